//! `validate`, `reorder` and `adjudicate` runs as data: each `tests/data/cli/NAME.args` (the arguments, one line, paths
//! relative to that directory) runs the binary there, and its standard output, standard error
//! and exit status must equal `NAME.stdout`, `NAME.stderr` and `NAME.status`.
//!
//! Run with `LEASEJUDGE_BLESS=1` to (re)write the expected files after a deliberate change, then review
//! the diff.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cli")
}

fn expect(failures: &mut Vec<String>, path: &Path, actual: &str) {
    if std::env::var_os("LEASEJUDGE_BLESS").is_some() {
        fs::write(path, actual).unwrap();
    }
    let expected = fs::read_to_string(path).unwrap_or_else(|_| {
        panic!(
            "no {} (run with LEASEJUDGE_BLESS=1, then review)",
            path.display()
        )
    });
    if expected != actual {
        failures.push(format!(
            "{} differs\n--- expected\n{expected}--- actual\n{actual}",
            path.display()
        ));
    }
}

#[test]
fn every_recorded_run_gives_its_recorded_output() {
    let mut names: Vec<String> = fs::read_dir(data_dir())
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".args").map(str::to_owned)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 10, "only {} recorded runs", names.len());
    let mut failures = Vec::new();
    for name in &names {
        let dir = data_dir();
        let args = fs::read_to_string(dir.join(format!("{name}.args"))).unwrap();
        let run = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
            .current_dir(&dir)
            .args(args.split_whitespace())
            .output()
            .unwrap();
        let status = format!("{}\n", run.status.code().unwrap_or(-1));
        expect(&mut failures, &dir.join(format!("{name}.status")), &status);
        expect(
            &mut failures,
            &dir.join(format!("{name}.stdout")),
            &String::from_utf8_lossy(&run.stdout),
        );
        expect(
            &mut failures,
            &dir.join(format!("{name}.stderr")),
            &String::from_utf8_lossy(&run.stderr),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
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
