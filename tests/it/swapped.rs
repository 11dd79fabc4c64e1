//! A case file and a key swapped on the command line are named for what they are, in one
//! line, from their headers (issue 40): an event column is a case file's, a decision or
//! reason column without one a matrix's. Exit 2, nothing written, and a learner's report
//! still shows no value of the key.

use crate::common::leasejudge;

const CASES: &str = "examples/lab/cases.csv";
const KEY: &str = "examples/lab/key.csv";
const A_CASE_FILE: &str = "header: this is a case file, not a matrix";
const A_MATRIX: &str = "header: this is a matrix, not a case file";

/// The run's lines that say what a file is.
fn saying(text: &str, what: &str) -> Vec<String> {
    text.lines()
        .filter(|line| line.contains(what))
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_case_file_given_as_a_matrix_and_a_matrix_given_as_a_case_file_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.csv");
    std::fs::write(&out, "kept").unwrap();
    let out_arg = out.to_str().unwrap();
    // adjudicate, check, precheck: every problem is the file's kind, one line each.
    for (args, file, what) in [
        (vec!["adjudicate", KEY, "-o", out_arg], KEY, A_MATRIX),
        (
            vec!["check", CASES, "--golden", CASES, "-o", out_arg],
            CASES,
            A_CASE_FILE,
        ),
        (vec!["precheck", KEY, "--cases", KEY], KEY, A_MATRIX),
        (
            vec!["precheck", CASES, "--cases", CASES],
            CASES,
            A_CASE_FILE,
        ),
        (vec!["template", KEY, "-o", out_arg], KEY, A_MATRIX),
    ] {
        let run = leasejudge(&args).run();
        assert_eq!(run.code, 2, "{args:?}: {}{}", run.stdout, run.stderr);
        let all = format!("{}{}", run.stdout, run.stderr);
        let lines = saying(&all, what);
        assert_eq!(lines.len(), 1, "{args:?}:\n{all}");
        assert!(
            lines[0].contains(&format!("{file}:1: {what}")),
            "{args:?}: {}",
            lines[0]
        );
        assert!(!all.contains("duplicated case id"), "{args:?}:\n{all}");
        assert!(!all.contains("no event column"), "{args:?}:\n{all}");
    }
    // check with both swapped names each.
    let run = leasejudge(&["check", KEY, "--golden", CASES]).run();
    assert_eq!(run.code, 2);
    assert_eq!(saying(&run.stderr, A_MATRIX).len(), 1, "{}", run.stderr);
    assert_eq!(saying(&run.stderr, A_CASE_FILE).len(), 1, "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "kept");
}

#[test]
fn grade_names_a_case_file_given_as_the_key_without_showing_it() {
    let dir = tempfile::tempdir().unwrap();
    let gradebook = dir.path().join("gradebook.csv");
    let run = leasejudge(&[
        "grade",
        "--golden",
        CASES,
        "examples/lab/submissions/ada.csv",
        "--gradebook",
        gradebook.to_str().unwrap(),
    ])
    .run();
    assert_eq!(run.code, 2);
    // No grade: the gradebook (a report of problems) has every submission ungradable.
    let written = std::fs::read_to_string(&gradebook).unwrap();
    assert!(
        written.ends_with("ada.csv,,0,,,,,,,,ungradable\n"),
        "{written}"
    );
    // The one running grade is told what the key is, in one line; the report, which a
    // learner may read, names neither the file nor its content.
    let told: Vec<&str> = run
        .stderr
        .lines()
        .filter(|line| line.contains("is a case file, not a matrix"))
        .collect();
    assert_eq!(told.len(), 1, "{}", run.stderr);
    assert!(
        told[0].contains("--golden") && !told[0].contains(CASES),
        "{}",
        told[0]
    );
    assert!(!run.stdout.contains(CASES), "{}", run.stdout);
    assert!(!run.stdout.contains("probe-"), "{}", run.stdout);
    // A learner who hands in the case file is told so, in one line.
    let run = leasejudge(&["grade", "--golden", KEY, CASES]).run();
    assert_eq!(run.code, 2);
    assert_eq!(saying(&run.stdout, A_CASE_FILE).len(), 1, "{}", run.stdout);
    assert!(!run.stdout.contains("duplicated case id"), "{}", run.stdout);
}

#[test]
fn a_case_file_workbook_given_as_a_matrix_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let workbook = dir.path().join("cases.xlsx");
    let text = std::fs::read_to_string(leasejudge_root().join(CASES)).unwrap();
    let rows: Vec<Vec<String>> = text
        .lines()
        .map(|line| line.split(',').map(str::to_owned).collect())
        .collect();
    let header: Vec<&str> = rows[0].iter().map(String::as_str).collect();
    let bytes = leasejudge::input::workbook::matrix_xlsx("Lab 3", &header, &rows[1..]).unwrap();
    std::fs::write(&workbook, bytes).unwrap();
    let run = leasejudge(&["precheck", workbook.to_str().unwrap(), "--cases", CASES]).run();
    assert_eq!(run.code, 2);
    let lines = saying(&run.stdout, A_CASE_FILE);
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    assert!(lines[0].contains("cases.xlsx[Lab 3]:1:"), "{}", lines[0]);
}

fn leasejudge_root() -> std::path::PathBuf {
    crate::common::root()
}

#[test]
fn a_json_case_file_given_as_a_matrix_is_named() {
    // Its first row has an event and no decision or reason: the file is a case file.
    for args in [
        vec![
            "precheck",
            "cases/json-array.json",
            "--cases",
            "cases/probes.csv",
        ],
        vec![
            "grade",
            "--golden",
            "examples/lab/key.csv",
            "cases/json-array.json",
        ],
        vec![
            "grade",
            "--golden",
            "cases/json-array.json",
            "examples/lab/submissions/ada.csv",
            "--reveal",
        ],
    ] {
        let run = leasejudge(&args).run();
        assert_eq!(run.code, 2, "{args:?}");
        let all = format!("{}{}", run.stdout, run.stderr);
        // Once in the report; standard error (a log when piped) may list it too.
        let lines = saying(&run.stdout, "key: this is a case file, not a matrix");
        assert_eq!(lines.len(), 1, "{args:?}:\n{all}");
        assert!(
            saying(&run.stderr, "this is a case file").len() <= 1,
            "{all}"
        );
        assert!(
            lines[0].contains("cases/json-array.json:2: key:"),
            "{}",
            lines[0]
        );
        assert!(!all.contains("duplicated case id"), "{args:?}:\n{all}");
    }
}
