//! `validate`, `reorder` and `adjudicate` runs as data: each `tests/data/cli/NAME.cmd` is a
//! snapshot ([`crate::snapshot`]: the command line, run in a copy of that directory, and
//! `NAME.expected`, its exit status and output); and `reorder`'s seed.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cli")
}

/// Every recorded run (`tests/data/cli/NAME.cmd`, the snapshot layout of [`crate::snapshot`]).
#[test]
fn every_recorded_run_gives_its_recorded_output() {
    crate::snapshot::run_all(&data_dir(), 10, &[]);
}

/// `reorder` is reproducible: the same seed prints the same bytes, another seed may differ.
#[test]
fn reorder_output_depends_only_on_the_seed() {
    let run = |seed: &str| {
        Command::new(env!("CARGO_BIN_EXE_leasejudge"))
            .current_dir(data_dir())
            .args([
                "reorder",
                "../../../cases",
                "--permutations",
                "30",
                "--seed",
                seed,
            ])
            .output()
            .unwrap()
            .stdout
    };
    assert_eq!(run("11"), run("11"));
}

/// `validate cases/` lists only the warnings `cases/README.md` explains: the three fields on
/// json-cases.json's cancel_request row, which its case is there to show are ignored.
#[test]
fn the_bundled_cases_validate_with_only_the_warnings_their_readme_explains() {
    let run = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["validate", "cases/"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0));
    let stderr = String::from_utf8(run.stderr).unwrap();
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("warning: "))
        .collect();
    assert_eq!(warnings.len(), 3, "{stderr}");
    for (warning, field) in warnings.iter().zip(["lease_id", "generation", "holder"]) {
        assert!(
            warning.starts_with(&format!(
                "warning: cases/json-cases.json:26: {field}: given on a cancel_request row"
            )),
            "{warning}"
        );
    }
    let readme =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/README.md")).unwrap();
    assert!(readme.contains("lists three warnings"));
}
