//! Malformed input, class by class: every input under `tests/data/malformed/` (a file, or a
//! directory of files read together) must fail `adjudicate` with exactly the located errors of
//! its `NAME.stderr`, exit 2, leave existing `-o` and `--audit` targets untouched and no
//! temporary file behind; `validate` must list the same errors and exit 2 too.
//!
//! `LEASEJUDGE_BLESS=1` (re)writes the `.stderr` files after a deliberate message change, as it
//! does every snapshot ([`crate::snapshot::expect_file`]); review the diff.

use std::fs;
use std::path::{Path, PathBuf};

const PRECIOUS_MATRIX: &str = "an earlier matrix that a failed run must not touch\n";
const PRECIOUS_AUDIT: &str = "an earlier audit that a failed run must not touch\n";

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/malformed")
}

fn inputs() -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(data_dir())
        .expect("tests/data/malformed exists")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.ends_with(".stderr"))
        .collect();
    names.sort();
    names
}

fn leasejudge(args: &[&str]) -> std::process::Output {
    crate::common::leasejudge_in(&data_dir(), args)
}

/// Checks one input; returns a description of each failure.
fn check(name: &str) -> Vec<String> {
    let mut failures = Vec::new();
    let scratch = tempfile::tempdir().unwrap();
    let matrix = scratch.path().join("matrix.csv");
    let audit = scratch.path().join("audit.csv");
    fs::write(&matrix, PRECIOUS_MATRIX).unwrap();
    fs::write(&audit, PRECIOUS_AUDIT).unwrap();
    let run = leasejudge(&[
        "adjudicate",
        name,
        "-o",
        matrix.to_str().unwrap(),
        "--audit",
        audit.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    let expected_path = data_dir().join(format!("{name}.stderr"));
    failures.extend(crate::snapshot::expect_file(&expected_path, stderr.as_bytes()).err());
    let expected = fs::read_to_string(&expected_path).unwrap_or_default();
    if run.status.code() != Some(2) {
        failures.push(format!(
            "{name}: adjudicate exit {:?}, not 2",
            run.status.code()
        ));
    }
    if !run.stdout.is_empty() {
        failures.push(format!("{name}: adjudicate wrote to standard output"));
    }
    if fs::read_to_string(&matrix).unwrap() != PRECIOUS_MATRIX {
        failures.push(format!("{name}: the -o target was changed"));
    }
    if fs::read_to_string(&audit).unwrap() != PRECIOUS_AUDIT {
        failures.push(format!("{name}: the --audit target was changed"));
    }
    let mut left: Vec<String> = fs::read_dir(scratch.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    if left != ["audit.csv", "matrix.csv"] {
        failures.push(format!("{name}: files left behind: {left:?}"));
    }

    // Every error line (without the program prefix and the summary) is located and appears,
    // in the same order, in `validate`'s report.
    let error_lines: Vec<&str> = expected
        .lines()
        .map(|line| line.strip_prefix("leasejudge: ").unwrap_or(line))
        .filter(|line| !line.ends_with("nothing was written"))
        .collect();
    if error_lines.is_empty() {
        failures.push(format!("{name}: the expected stderr lists no error"));
    }
    for line in &error_lines {
        let located = line.starts_with(name) && line[name.len()..].starts_with(':')
            || name.find('.').is_none() && line.starts_with(&format!("{name}/"));
        if !located {
            failures.push(format!("{name}: error not located in the file: {line}"));
        }
    }
    let validate = leasejudge(&["validate", name]);
    let validate_stderr = String::from_utf8_lossy(&validate.stderr);
    let validate_errors: Vec<&str> = validate_stderr
        .lines()
        .filter(|line| !line.starts_with("warning: ") && !line.contains(" input error"))
        .collect();
    if validate.status.code() != Some(2) {
        failures.push(format!(
            "{name}: validate exit {:?}, not 2",
            validate.status.code()
        ));
    }
    if validate_errors != error_lines {
        failures.push(format!(
            "{name}: validate errors differ\n--- expected\n{}\n--- actual\n{}",
            error_lines.join("\n"),
            validate_errors.join("\n")
        ));
    }
    failures
}

#[test]
fn every_malformed_input_is_located_and_changes_nothing() {
    let names = inputs();
    // One input per class of spec section 2's list and the extra classes.
    assert!(names.len() >= 35, "only {} malformed inputs", names.len());
    let failures: Vec<String> = names.iter().flat_map(|name| check(name)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
