//! Runs every scenario under `tests/data/grading/` through the `leasejudge` binary.
//!
//! A scenario is a directory of input files plus:
//! - `args`: the command line after `leasejudge`, split on whitespace; it runs inside a fresh
//!   copy of the directory, so relative paths and written files stay in the copy;
//! - `expected.status`, `expected.stdout`, `expected.stderr`: the exit code and exact output;
//! - `expected-files/` (optional): files that must exist in the copy afterwards with exactly
//!   this content (at the same relative path);
//! - `expected-absent` (optional): paths, one a line, that must not exist afterwards.
//!
//! `UPDATE_EXPECTED=1 cargo test --test it grading::` rewrites the expected files from the actual
//! run (review the diff before committing).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const EXPECTED: [&str; 3] = ["expected.status", "expected.stdout", "expected.stderr"];

fn copy_inputs(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let name_text = name.to_string_lossy();
        if EXPECTED.contains(&name_text.as_ref())
            || name_text == "expected-files"
            || name_text == "expected-absent"
        {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy_inputs(&path, &to.join(&name));
        } else {
            fs::copy(&path, to.join(&name)).unwrap();
        }
    }
}

fn files_under(root: &Path, dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(root, &path, found);
        } else {
            found.push(path.strip_prefix(root).unwrap().to_owned());
        }
    }
}

/// Runs one scenario; returns what differs from the expectations.
fn run_scenario(dir: &Path, update: bool) -> Vec<String> {
    let work = tempfile::tempdir().unwrap();
    copy_inputs(dir, work.path());
    let args = fs::read_to_string(dir.join("args")).expect("a scenario needs an args file");
    let output = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .args(args.split_whitespace())
        .current_dir(work.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let status = format!("{}\n", output.status.code().unwrap_or(-1));
    let actual = [
        status.into_bytes(),
        output.stdout.clone(),
        output.stderr.clone(),
    ];
    let mut problems = Vec::new();
    for (name, actual) in EXPECTED.iter().zip(&actual) {
        let path = dir.join(name);
        if update {
            fs::write(&path, actual).unwrap();
            continue;
        }
        let expected = fs::read(&path).unwrap_or_default();
        if &expected != actual {
            problems.push(format!(
                "{name} differs:\n--- expected\n{}\n--- actual\n{}",
                String::from_utf8_lossy(&expected),
                String::from_utf8_lossy(actual)
            ));
        }
    }
    let expected_files = dir.join("expected-files");
    if expected_files.is_dir() {
        let mut files = Vec::new();
        files_under(&expected_files, &expected_files, &mut files);
        for file in files {
            let produced = fs::read(work.path().join(&file));
            if update {
                fs::write(expected_files.join(&file), produced.unwrap_or_default()).unwrap();
                continue;
            }
            match produced {
                Err(e) => problems.push(format!("{}: not produced: {e}", file.display())),
                Ok(produced) if produced != fs::read(expected_files.join(&file)).unwrap() => {
                    problems.push(format!(
                        "{} differs:\n{}",
                        file.display(),
                        String::from_utf8_lossy(&produced)
                    ))
                }
                Ok(_) => {}
            }
        }
    }
    if let Ok(absent) = fs::read_to_string(dir.join("expected-absent")) {
        for path in absent.lines().filter(|l| !l.trim().is_empty()) {
            if work.path().join(path.trim()).exists() {
                problems.push(format!("{path}: exists but must not"));
            }
        }
    }
    problems
}

#[test]
fn grading_scenarios() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/grading");
    let update = std::env::var_os("UPDATE_EXPECTED").is_some();
    let mut scenarios: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("args").is_file())
        .collect();
    scenarios.sort();
    assert!(scenarios.len() >= 10, "scenarios went missing");
    let mut failures = Vec::new();
    for scenario in &scenarios {
        for problem in run_scenario(scenario, update) {
            failures.push(format!("{}: {problem}", scenario.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
