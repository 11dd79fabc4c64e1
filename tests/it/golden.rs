//! The golden runner: every case file in `cases/` is adjudicated and its matrix and row audit
//! compared byte for byte with `golden/<stem>.csv` and `golden/audit/<stem>.csv`.
//!
//! The golden files are written by hand from the contract. To review a change, run with
//! `LEASEJUDGE_BLESS=1`: the engine's output is written next to each differing golden file as
//! `*.new` (never over it), and the diff is yours to read.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::root;

fn leasejudge(args: &[&str]) -> (i32, String, String) {
    let run = crate::common::leasejudge(args).run();
    (run.code, run.stdout, run.stderr)
}

fn case_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(root().join("cases"))
        .expect("cases/")
        .map(|e| e.unwrap().path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("csv" | "json" | "ndjson" | "jsonl")
            )
        })
        .collect();
    files.sort();
    files
}

/// Compares `actual` with the golden file, collecting a readable diff; with
/// `LEASEJUDGE_BLESS=1` writes `<golden>.new` for review instead of failing silently.
fn compare(golden: &Path, actual: &str, failures: &mut Vec<String>) {
    let expected = fs::read_to_string(golden).unwrap_or_default();
    if expected == actual {
        return;
    }
    if crate::snapshot::blessing() {
        fs::write(golden.with_extension("csv.new"), actual).unwrap();
    }
    let mut report = format!("{} differs:\n", golden.display());
    let expected_lines: Vec<&str> = expected.lines().collect();
    let actual_lines: Vec<&str> = actual.lines().collect();
    for i in 0..expected_lines.len().max(actual_lines.len()) {
        let (e, a) = (expected_lines.get(i), actual_lines.get(i));
        if e != a {
            report.push_str(&format!(
                "  line {}:\n    expected {}\n    actual   {}\n",
                i + 1,
                e.unwrap_or(&"<none>"),
                a.unwrap_or(&"<none>")
            ));
        }
    }
    failures.push(report);
}

#[test]
fn every_case_file_matches_its_golden_matrix_and_audit() {
    let files = case_files();
    assert!(files.len() >= 2, "cases/ holds the probes and more");
    let mut failures = Vec::new();
    let audit_dir = tempfile::tempdir().unwrap();
    for file in &files {
        let stem = file.file_stem().unwrap().to_str().unwrap();
        let name = format!("cases/{}", file.file_name().unwrap().to_str().unwrap());
        let audit = audit_dir.path().join(format!("{stem}.csv"));
        let (code, stdout, stderr) = leasejudge(&[
            "adjudicate",
            &name,
            "--format",
            "csv",
            "--audit",
            audit.to_str().unwrap(),
        ]);
        if code != 0 {
            failures.push(format!("{name}: exit {code}\n{stderr}"));
            continue;
        }
        compare(
            &root().join(format!("golden/{stem}.csv")),
            &stdout,
            &mut failures,
        );
        let audit_text = fs::read_to_string(&audit).unwrap();
        compare(
            &root().join(format!("golden/audit/{stem}.csv")),
            &audit_text,
            &mut failures,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_golden_file_has_a_case_file() {
    let stems: Vec<String> = case_files()
        .iter()
        .map(|p| p.file_stem().unwrap().to_str().unwrap().to_owned())
        .collect();
    for dir in ["golden", "golden/audit"] {
        for entry in fs::read_dir(root().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("csv") {
                continue;
            }
            let stem = path.file_stem().unwrap().to_str().unwrap();
            assert!(
                stems.iter().any(|s| s == stem),
                "{} has no case file in cases/",
                path.display()
            );
        }
    }
}

#[test]
fn the_whole_directory_gives_every_golden_row_in_file_name_order() {
    let (code, stdout, stderr) = leasejudge(&["adjudicate", "cases", "--format", "csv"]);
    assert_eq!(code, 0, "{stderr}");
    let mut expected = String::new();
    for (i, file) in case_files().iter().enumerate() {
        let stem = file.file_stem().unwrap().to_str().unwrap();
        let golden = fs::read_to_string(root().join(format!("golden/{stem}.csv"))).unwrap();
        let mut lines = golden.lines();
        let header = lines.next().unwrap();
        if i == 0 {
            expected.push_str(header);
            expected.push('\n');
        }
        for line in lines {
            expected.push_str(line);
            expected.push('\n');
        }
    }
    assert_eq!(stdout, expected);
}

/// The contract's worked examples, byte for byte: `cases/probes.csv` is a copy of
/// `../shared/spec/examples/probes.csv` and `golden/probes.csv` of its matrix.
#[test]
fn the_contract_examples_are_bundled_byte_for_byte() {
    let shared = root().join("../shared/spec/examples");
    let bundled_cases = fs::read(root().join("cases/probes.csv")).unwrap();
    let bundled_matrix = fs::read(root().join("golden/probes.csv")).unwrap();
    if shared.is_dir() {
        assert_eq!(bundled_cases, fs::read(shared.join("probes.csv")).unwrap());
        assert_eq!(
            bundled_matrix,
            fs::read(shared.join("probes.matrix.csv")).unwrap()
        );
        let spec_path = shared.join("probes.csv");
        let (code, stdout, _) =
            leasejudge(&["adjudicate", spec_path.to_str().unwrap(), "--format", "csv"]);
        assert_eq!(code, 0);
        assert_eq!(stdout.as_bytes(), &bundled_matrix[..]);
    } else {
        eprintln!("note: ../shared/spec/examples is not here; checked the bundled copy only");
    }
    // The bundled probes give the spec's matrix whether or not shared/ is present.
    let (code, stdout, _) = leasejudge(&["adjudicate", "cases/probes.csv", "--format", "csv"]);
    assert_eq!(code, 0);
    assert_eq!(stdout.as_bytes(), &bundled_matrix[..]);
}

/// Spec section 5's JSON form of the probes, written by hand in tests/data.
#[test]
fn the_probes_as_json() {
    let (code, stdout, stderr) =
        leasejudge(&["adjudicate", "cases/probes.csv", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let expected = fs::read_to_string(root().join("tests/data/probes.matrix.json")).unwrap();
    let parse = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap();
    assert_eq!(parse(&stdout), parse(&expected));
    assert_eq!(stdout, expected, "same values, and the same bytes");
}

/// A golden file on a pipe (`--golden <(...)`, a FIFO) is read as the file itself would be:
/// it cannot go back to its start after its first bytes are sniffed, so it is copied first.
#[test]
fn a_golden_file_on_a_pipe_is_read_like_the_file() {
    let golden = std::fs::read(root().join("golden/acks.csv")).unwrap();
    let on_pipe =
        |args: &[&str], golden: &[u8]| crate::common::leasejudge(args).stdin(golden).run();
    let check = ["check", "cases/acks.csv", "--golden", "/dev/stdin"];
    let from_file =
        crate::common::leasejudge(&["check", "cases/acks.csv", "--golden", "golden/acks.csv"])
            .run();
    let piped = on_pipe(&check, &golden);
    assert_eq!(
        (piped.code, &piped.stdout),
        (0, &from_file.stdout),
        "{}",
        piped.stderr
    );
    assert!(
        piped.stdout.contains("9 matched, 0 mismatched"),
        "{}",
        piped.stdout
    );
    // A wrong key on a pipe is graded as wrong, not refused.
    let wrong =
        String::from_utf8(golden.clone())
            .unwrap()
            .replacen("within_lease", "awaiting_ack", 1);
    let piped = on_pipe(&check, wrong.as_bytes());
    assert_eq!(piped.code, 1, "{}{}", piped.stdout, piped.stderr);
    assert!(
        piped.stdout.contains("8 matched, 1 mismatched"),
        "{}",
        piped.stdout
    );
    // grade reads its key the same way.
    let dir = tempfile::tempdir().unwrap();
    let matrix = dir.path().join("m.csv");
    let out = matrix.to_str().unwrap();
    let adjudicated = crate::common::leasejudge(&["adjudicate", "cases/acks.csv", "-o", out]).run();
    assert_eq!(adjudicated.code, 0, "{}", adjudicated.stderr);
    let graded = on_pipe(&["grade", out, "--golden", "/dev/stdin"], &golden);
    assert_eq!(graded.code, 0, "{}{}", graded.stdout, graded.stderr);
    assert!(graded.stdout.contains("9/9 (100.0%)"), "{}", graded.stdout);
}
