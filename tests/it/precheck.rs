//! `leasejudge precheck`: a learner checks a matrix before handing it in, without the key
//! (issue 29), on the example lab's submissions, a folder, a workbook and UTF-16 text.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn precheck(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .arg("precheck")
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("COLUMNS", crate::common::WIDE)
        .output()
        .unwrap()
}

fn lab() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/lab"))
}

fn stdout(run: &Output) -> String {
    String::from_utf8_lossy(&run.stdout).into_owned()
}

#[test]
fn the_example_submissions_are_checked_as_they_will_be_graded() {
    let cases = ["--cases", "cases.csv"];
    for (submission, code, lines) in [
        (
            "submissions/ada.csv",
            0,
            &[
                "submissions/ada.csv: read as CSV, cells separated by \",\": 4 rows, for the lab's 4 cases",
                "submissions/ada.csv: ready: every case of the lab once, every graded cell a valid value",
            ][..],
        ),
        (
            "submissions/ben.csv",
            2,
            &[
                "submissions/ben.csv: read as CSV, cells separated by \",\": 5 rows, for the lab's 4 cases",
                "submissions/ben.csv:3: decision: EXPIRD is not a decision code; did you mean EXPIRED?",
                "submissions/ben.csv:6: case_id: probe-5 is not a case of the lab: the row is not graded (is its case id mistyped?)",
                "submissions/ben.csv: 2 problems above: the file can be graded, but these cost points or are not graded; fix them and check again",
            ][..],
        ),
        (
            "submissions/cy.csv",
            2,
            &[
                "submissions/cy.csv: read as CSV, cells separated by \",\": 4 rows, for the lab's 4 cases",
                "submissions/cy.csv:4: case_id: duplicated case id: it is already on line 2 (\"probe-1\")",
                "submissions/cy.csv: cannot be graded as it is: fix the problem above and check again",
            ][..],
        ),
        (
            "submissions/eve.csv",
            0,
            &[
                "submissions/eve.csv: read as CSV, cells separated by \";\": 4 rows, for the lab's 4 cases",
                "submissions/eve.csv: ready: every case of the lab once, every graded cell a valid value",
            ][..],
        ),
    ] {
        let mut args = vec![submission];
        args.extend(cases);
        let run = precheck(&args, lab());
        assert_eq!(run.status.code(), Some(code), "{submission}: {}", stdout(&run));
        assert_eq!(stdout(&run).lines().collect::<Vec<_>>(), lines, "{submission}");
    }
}

#[test]
fn a_missing_case_an_empty_answer_and_a_missing_column_are_located() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(lab().join("cases.csv"), dir.path().join("cases.csv")).unwrap();
    fs::write(
        dir.path().join("m.csv"),
        "case_id,decision,reason\nprobe-1,ACTIVE,\nprobe-2,EXPIRED,expired_without_result\n",
    )
    .unwrap();
    let run = precheck(&["m.csv", "--cases", "cases.csv"], dir.path());
    assert_eq!(run.status.code(), Some(2));
    let out = stdout(&run);
    for line in [
        "m.csv:2: reason: empty: every case has a reason",
        "m.csv: case_id: the lab's case probe-3 is not in the file: every case is graded, and one left out counts as wrong",
        "m.csv: case_id: the lab's case probe-4 is not in the file",
    ] {
        assert!(out.contains(line), "{line}: {out}");
    }
    fs::write(
        dir.path().join("m.csv"),
        "case_id,decision\nprobe-1,ACTIVE\n",
    )
    .unwrap();
    let run = precheck(&["m.csv", "--cases", "cases.csv"], dir.path());
    assert_eq!(run.status.code(), Some(2));
    assert!(stdout(&run).contains("m.csv:1: header: no column for the graded column reason"));
    // Graded on more columns, they must be there too.
    fs::copy(lab().join("key.csv"), dir.path().join("full.csv")).unwrap();
    let run = precheck(
        &["full.csv", "--cases", "cases.csv", "--columns", "all"],
        dir.path(),
    );
    assert_eq!(run.status.code(), Some(0), "{}", stdout(&run));
}

#[test]
fn a_folder_and_utf16_text_are_read_as_the_grader_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(lab().join("cases.csv"), dir.path().join("cases.csv")).unwrap();
    // A learner's repository: the case file in data/, .git, the matrix as UTF-16 with tabs.
    let repo = dir.path().join("repo");
    fs::create_dir_all(repo.join("data")).unwrap();
    fs::create_dir_all(repo.join(".git")).unwrap();
    fs::copy(lab().join("cases.csv"), repo.join("data/cases.csv")).unwrap();
    fs::write(repo.join(".git/config"), "[core]\n").unwrap();
    let text = fs::read_to_string(lab().join("submissions/ada.csv"))
        .unwrap()
        .replace(',', "\t");
    let mut bytes = vec![0xff, 0xfe];
    for unit in text.encode_utf16() {
        bytes.extend(unit.to_le_bytes());
    }
    fs::write(repo.join("matrix.csv"), bytes).unwrap();
    let run = precheck(&["repo", "--cases", "cases.csv"], dir.path());
    assert_eq!(run.status.code(), Some(0), "{}", stdout(&run));
    assert!(stdout(&run).starts_with(
        "matrix.csv: read as CSV, cells separated by tab, UTF-16 text: 4 rows, for the lab's 4 cases\n"
    ));
    // A folder without a matrix says so.
    fs::remove_file(repo.join("matrix.csv")).unwrap();
    let run = precheck(&["repo", "--cases", "cases.csv"], dir.path());
    assert_eq!(run.status.code(), Some(2));
    assert!(stdout(&run).contains("upload: holds the lab's case file data/cases.csv, not a matrix"));
    // Bad case files are the instructor's to fix: every problem located, exit 2.
    fs::write(dir.path().join("bad.csv"), "case_id,event\nx,offer\n").unwrap();
    let run = precheck(&["repo", "--cases", "bad.csv"], dir.path());
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("bad.csv:"));
}

#[test]
fn every_row_of_the_file_is_counted_those_with_problems_too() {
    // Tab-separated, a case id twice and a ragged row: three rows, as the learner counts them
    // (issue 40: it said "2 rows"), in every format a matrix comes in.
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("tabs.csv"),
        "case_id\tdecision\treason\nprobe-1\tACTIVE\tstale_generation\n\
         probe-1\tEXPIRED\texpired_without_result\nprobe-3\tACTIVE\n",
    )
    .unwrap();
    fs::write(
        dir.path().join("rows.json"),
        r#"[{"case_id": "probe-1", "decision": "ACTIVE", "reason": "stale_generation"},
{"case_id": "probe-1", "decision": "EXPIRED", "reason": "expired_without_result"},
"not an object"]"#,
    )
    .unwrap();
    let cases = lab().join("cases.csv");
    for (file, read_as) in [
        ("tabs.csv", "read as CSV, cells separated by tab: 3 rows"),
        ("rows.json", "read as a JSON matrix: 3 rows"),
    ] {
        let run = precheck(&[file, "--cases", cases.to_str().unwrap()], dir.path());
        assert_eq!(run.status.code(), Some(2));
        let first = stdout(&run).lines().next().unwrap().to_owned();
        assert_eq!(first, format!("{file}: {read_as}, for the lab's 4 cases"));
    }
}
