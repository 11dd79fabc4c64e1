//! Error lists are capped (issue 28, "Memory"): past `MAX_LISTED_ERRORS` (1,000) input errors,
//! every command lists the first ones in full, then one line counting the rest, and still exits
//! 2 saying how many there were in all. Each command is run at the smallest size that proves
//! its cap: the cap and a few more malformed rows (memory is measured by bench/hostile.sh,
//! never here).

use crate::common::leasejudge_in;

use leasejudge::input::MAX_LISTED_ERRORS;

/// Malformed rows past the cap: the errors not listed.
const MORE: usize = 7;

const HEADER: &str = "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n";

/// A case file of `n` rows, each of its own case, each with a generation that is no number.
fn bad_case_file(n: usize) -> String {
    let mut text = HEADER.to_owned();
    for i in 0..n {
        text.push_str(&format!(
            "c{i},offer,2026-01-01T00:00:00Z,j{i},L{i},notanumber,w,30\n"
        ));
    }
    text
}

/// A matrix of `n` rows, each with a cell more than its header: malformed as a key and as a
/// submission.
fn ragged_matrix(n: usize) -> String {
    let mut text = "case_id,decision,reason\n".to_owned();
    for i in 0..n {
        text.push_str(&format!("c{i},ACTIVE,within_lease,extra\n"));
    }
    text
}

/// Whether `line` is an error at a line of a file: `NAME.csv:LINE: ...`.
fn is_located(line: &str) -> bool {
    line.split_once(".csv:")
        .is_some_and(|(_, rest)| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// The line that counts the errors not listed.
fn unlisted_line(more: usize) -> String {
    format!(
        "… and {more} more input error{}, not listed (only the first 1,000 are)",
        if more == 1 { "" } else { "s" }
    )
}

/// What each command must show: its arguments, where the error lines are (standard error, or
/// standard output for an autograder's instructor log), and the line that counts them all.
struct Case {
    args: &'static [&'static str],
    on_stdout: bool,
    total_line: &'static str,
}

#[test]
fn every_command_lists_the_first_errors_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let rows = MAX_LISTED_ERRORS + MORE;
    std::fs::write(dir.path().join("bad.csv"), bad_case_file(rows)).unwrap();
    std::fs::write(dir.path().join("ragged.csv"), ragged_matrix(rows)).unwrap();
    std::fs::write(
        dir.path().join("cases.csv"),
        format!("{HEADER}c0,offer,2026-01-01T00:00:00Z,j,L,1,w,30\n"),
    )
    .unwrap();
    let key = leasejudge_in(
        dir.path(),
        &[
            "adjudicate",
            "cases.csv",
            "--format",
            "csv",
            "-o",
            "key.csv",
        ],
    );
    assert!(key.status.success(), "{key:?}");
    let all = "1,007 input errors; nothing was written";
    let cases = [
        Case {
            args: &["adjudicate", "bad.csv"],
            on_stdout: false,
            total_line: all,
        },
        Case {
            args: &["adjudicate", "bad.csv", "--explain"],
            on_stdout: false,
            total_line: all,
        },
        Case {
            args: &["adjudicate", "bad.csv", "--jobs", "2"],
            on_stdout: false,
            total_line: all,
        },
        Case {
            args: &["validate", "bad.csv"],
            on_stdout: false,
            total_line: "0 cases, 1007 rows: 1007 input errors, 0 warnings",
        },
        Case {
            args: &["check", "bad.csv", "--golden", "key.csv"],
            on_stdout: false,
            total_line: all,
        },
        Case {
            args: &["explain", "bad.csv"],
            on_stdout: false,
            total_line: all,
        },
        Case {
            args: &["explain", "bad.csv", "--format", "json"],
            on_stdout: false,
            total_line: all,
        },
        Case {
            args: &["template", "bad.csv"],
            on_stdout: false,
            total_line: all,
        },
        Case {
            args: &["reorder", "bad.csv"],
            on_stdout: false,
            total_line: all,
        },
        Case {
            args: &["shortcuts", "bad.csv"],
            on_stdout: false,
            total_line: all,
        },
        Case {
            args: &["grade", "key.csv", "--golden", "ragged.csv", "--reveal"],
            on_stdout: false,
            total_line: "",
        },
        Case {
            args: &["grade", "ragged.csv", "--golden", "key.csv"],
            on_stdout: true,
            total_line: "",
        },
        Case {
            args: &[
                "grade",
                "key.csv",
                "--golden",
                "ragged.csv",
                "--autograder",
                "-f",
                "gradescope",
                "-o",
                "results",
            ],
            on_stdout: true,
            total_line: "",
        },
    ];
    for case in cases {
        let run = leasejudge_in(dir.path(), case.args);
        let what = case.args.join(" ");
        assert_eq!(run.status.code(), Some(2), "{what}: {run:?}");
        let text = String::from_utf8_lossy(if case.on_stdout {
            &run.stdout
        } else {
            &run.stderr
        });
        let located = text.lines().filter(|line| is_located(line)).count();
        assert_eq!(
            located, MAX_LISTED_ERRORS,
            "{what}: the first errors, in full"
        );
        assert!(
            text.contains(&unlisted_line(MORE)),
            "{what}: the rest counted\n{text}"
        );
        if !case.total_line.is_empty() {
            assert!(text.contains(case.total_line), "{what}: the total\n{text}");
        }
    }
}

#[test]
fn a_ci_report_of_bad_input_counts_the_errors_it_does_not_list() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.csv"),
        bad_case_file(MAX_LISTED_ERRORS + MORE),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("key.csv"),
        "case_id,decision,reason\nc0,ACTIVE,within_lease\n",
    )
    .unwrap();
    let run = leasejudge_in(
        dir.path(),
        &["check", "bad.csv", "--golden", "key.csv", "-o", "r.json"],
    );
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(
        report["errors"].as_array().unwrap().len(),
        MAX_LISTED_ERRORS
    );
    assert_eq!(report["unlisted_errors"], MORE);
}
