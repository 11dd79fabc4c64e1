//! The one snapshot runner: a command line and what it must print and write, as data.
//!
//! A snapshot is a file `NAME.cmd` in a data directory: its first line is the command line
//! after `leasejudge` (split on whitespace); a line `filter: F` may follow, naming a filter the
//! test applies to standard output before comparing (explain's `html-structure`), and lines
//! `copy: PATH`, each a file or directory of the repository (`cases/probes.csv`, `cases`)
//! copied to the same relative path (so that a snapshot runs on the bundled cases as the
//! docs show them, without a copy of them to keep). It runs in a fresh copy of its directory
//! (so relative paths work and files it writes stay in the copy), with `NO_COLOR=1`, and
//! must match:
//! - `NAME.expected`: `exit status N`, then standard output, then `--- stderr` and standard
//!   error if there is any;
//! - `NAME.files/` (optional): files that must exist in the copy afterwards with exactly this
//!   content, at the same relative path;
//! - `NAME.absent` (optional): paths, one a line, that must not exist afterwards.
//!
//! `LEASEJUDGE_BLESS=1 cargo test --test it` rewrites the expectations of every snapshot (and
//! of the other data-driven tests) from the binary's output, for review as a diff.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether the run rewrites expectations rather than checking them.
pub fn blessing() -> bool {
    std::env::var_os("LEASEJUDGE_BLESS").is_some()
}

/// Checks `actual` against the file at `path`, or (when blessing) writes it there. Returns
/// what differs: the first differing line of each, and where.
pub fn expect_file(path: &Path, actual: &[u8]) -> Result<(), String> {
    if blessing() {
        fs::write(path, actual).unwrap();
        return Ok(());
    }
    let expected = fs::read(path).map_err(|e| {
        format!(
            "{}: {e} (LEASEJUDGE_BLESS=1 writes it; review it)",
            path.display()
        )
    })?;
    if expected == actual {
        return Ok(());
    }
    let (actual, expected) = (
        String::from_utf8_lossy(actual),
        String::from_utf8_lossy(&expected),
    );
    let line = actual
        .lines()
        .zip(expected.lines())
        .position(|(a, e)| a != e)
        .unwrap_or(actual.lines().count().min(expected.lines().count()));
    Err(format!(
        "{} differs at line {}:\n  actual:   {:?}\n  expected: {:?}\n--- whole actual\n{actual}",
        path.display(),
        line + 1,
        actual.lines().nth(line),
        expected.lines().nth(line),
    ))
}

/// A filter applied to a snapshot's standard output, by the name its `filter:` line gives.
pub type Filter = (&'static str, fn(&str) -> String);

/// Whether a directory entry is an expectation rather than an input.
fn is_expectation(name: &str) -> bool {
    [".expected", ".files", ".absent"]
        .iter()
        .any(|suffix| name.ends_with(suffix))
}

fn copy_inputs(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if is_expectation(&name.to_string_lossy()) {
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

/// Runs the snapshot `cmd_file`; returns what differs from its expectations.
pub fn run(cmd_file: &Path, filters: &[Filter]) -> Vec<String> {
    let dir = cmd_file.parent().unwrap();
    let stem = cmd_file.with_extension("");
    let with_suffix = |suffix: &str| PathBuf::from(format!("{}{suffix}", stem.display()));
    let spec = fs::read_to_string(cmd_file).unwrap();
    let mut lines = spec.lines();
    let args: Vec<&str> = lines.next().unwrap_or("").split_whitespace().collect();
    let directives: Vec<&str> = lines.collect();
    let filter = directives
        .iter()
        .find_map(|l| l.strip_prefix("filter: "))
        .map(|name| {
            let name = name.trim();
            filters
                .iter()
                .find(|(known, _)| *known == name)
                .unwrap_or_else(|| panic!("{}: unknown filter {name}", cmd_file.display()))
                .1
        });
    let work = tempfile::tempdir().unwrap();
    copy_inputs(dir, work.path());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for path in directives.iter().filter_map(|l| l.strip_prefix("copy: ")) {
        let (from, to) = (root.join(path.trim()), work.path().join(path.trim()));
        if from.is_dir() {
            copy_inputs(&from, &to);
        } else {
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            fs::copy(&from, &to).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
        }
    }
    let output = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .args(&args)
        .current_dir(work.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let mut actual = format!("exit status {}\n", output.status.code().unwrap_or(-1)).into_bytes();
    match filter {
        Some(filter) => actual.extend(filter(&String::from_utf8_lossy(&output.stdout)).bytes()),
        None => actual.extend(&output.stdout),
    }
    if !output.stderr.is_empty() {
        actual.extend(b"--- stderr\n");
        actual.extend(&output.stderr);
    }
    let mut problems: Vec<String> = expect_file(&with_suffix(".expected"), &actual)
        .err()
        .into_iter()
        .collect();
    let expected_files = with_suffix(".files");
    if expected_files.is_dir() {
        let mut files = Vec::new();
        files_under(&expected_files, &expected_files, &mut files);
        for file in files {
            match fs::read(work.path().join(&file)) {
                Err(e) => problems.push(format!("{}: not written: {e}", file.display())),
                Ok(written) => {
                    problems.extend(expect_file(&expected_files.join(&file), &written).err())
                }
            }
        }
    }
    if let Ok(absent) = fs::read_to_string(with_suffix(".absent")) {
        for path in absent.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if work.path().join(path).exists() {
                problems.push(format!("{path}: exists but must not"));
            }
        }
    }
    problems
}

/// Every `.cmd` file under `root` (its subdirectories too, one level), in name order.
pub fn cmd_files(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in fs::read_dir(root).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && !is_expectation(&path.to_string_lossy()) {
            found.extend(
                fs::read_dir(&path)
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .filter(|p| p.extension().is_some_and(|e| e == "cmd")),
            );
        } else if path.extension().is_some_and(|e| e == "cmd") {
            found.push(path);
        }
    }
    found.sort();
    found
}

/// Runs every snapshot under `root` (at least `at_least` of them, so that none goes missing
/// unseen) and fails listing every difference.
pub fn run_all(root: &Path, at_least: usize, filters: &[Filter]) {
    let snapshots = cmd_files(root);
    assert!(
        snapshots.len() >= at_least,
        "{}: {} snapshots, fewer than {at_least}",
        root.display(),
        snapshots.len()
    );
    let failures: Vec<String> = snapshots
        .iter()
        .flat_map(|cmd| {
            run(cmd, filters)
                .into_iter()
                .map(move |problem| format!("{}: {problem}", cmd.display()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} differences in {} snapshots (LEASEJUDGE_BLESS=1 rewrites them for review):\n{}",
        failures.len(),
        snapshots.len(),
        failures.join("\n\n")
    );
}
