//! Reads the machine formats of `grade` and `check` back (JUnit XML with roxmltree, JSON with
//! serde_json) and checks the hidden-label rule across every report format.

use std::path::{Path, PathBuf};
use std::process::Output;

const FORMATS: [&str; 8] = [
    "table",
    "json",
    "junit",
    "github",
    "markdown",
    "gradescope",
    "prairielearn",
    "github-classroom",
];

fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/grading")
        .join(path)
}

fn leasejudge(args: &[&str]) -> Output {
    crate::common::leasejudge(args)
        .env("NO_COLOR", "1")
        .output()
}

/// `grade` of the `grade-wrong` submission: probe-1 right, probe-2 wrong in both columns,
/// probe-3 missing, probe-4 missing its reason, probe-9 unknown.
fn grade_wrong(format: &str, reveal: bool) -> Output {
    let submission = data("grade-wrong/submission.csv");
    let golden = data("grade-wrong/golden.csv");
    let mut args = vec![
        "grade",
        submission.to_str().unwrap(),
        "--golden",
        golden.to_str().unwrap(),
        "--format",
        format,
    ];
    if reveal {
        args.push("--reveal");
    }
    leasejudge(&args)
}

#[test]
fn junit_reads_back() {
    let output = grade_wrong("junit", true);
    assert_eq!(output.status.code(), Some(1));
    let xml = String::from_utf8(output.stdout).unwrap();
    let document = roxmltree::Document::parse(&xml).unwrap();
    let root = document.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    // Four golden cases and the unknown row, which is skipped (a warning), not failed.
    assert_eq!(root.attribute("tests"), Some("5"));
    assert_eq!(root.attribute("failures"), Some("3"));
    assert_eq!(root.attribute("skipped"), Some("1"));
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    // One per submission, then the class summary.
    assert_eq!(suites.len(), 2);
    assert!(suites[0]
        .attribute("name")
        .unwrap()
        .ends_with("submission.csv"));
    assert_eq!(suites[1].attribute("name"), Some("class summary"));
    let cases: Vec<_> = suites[0]
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    let names: Vec<&str> = cases.iter().map(|c| c.attribute("name").unwrap()).collect();
    assert_eq!(
        names,
        ["probe-1", "probe-2", "probe-3", "probe-4", "probe-9"]
    );
    let failure = |index: usize| {
        cases[index]
            .children()
            .find(|n| n.has_tag_name("failure"))
            .map(|f| {
                (
                    f.attribute("type").unwrap(),
                    f.attribute("message").unwrap(),
                )
            })
    };
    assert_eq!(failure(0), None);
    assert_eq!(
        failure(1),
        Some((
            "mismatched",
            "decision: expected EXPIRED, got ACTIVE; reason: expected expired_without_result, got within_lease"
        ))
    );
    assert_eq!(failure(2).unwrap().0, "missing");
    assert_eq!(
        failure(3),
        Some((
            "mismatched",
            "reason: expected cancel_unacknowledged, got (empty)"
        ))
    );
    assert_eq!(failure(4), None);
    assert!(cases[4].children().any(|n| n.has_tag_name("skipped")));
}

#[test]
fn json_reads_back() {
    let output = grade_wrong("json", false);
    assert_eq!(output.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["command"], "grade");
    assert_eq!(report["revealed"], false);
    assert!(report.get("golden").is_none(), "the golden file is named");
    assert_eq!(report["cases"], 4);
    assert_eq!(report["max_score"], 4);
    assert_eq!(report["summary"]["submissions"], 1);
    assert_eq!(report["summary"]["mean_percent"].as_f64(), Some(25.0));
    let submission = &report["submissions"][0];
    assert_eq!(submission["status"], "graded");
    assert_eq!(submission["score"], 1);
    let counts = &submission["counts"];
    assert_eq!(counts["matched"], 1);
    assert_eq!(counts["mismatched"], 2);
    assert_eq!(counts["missing"], 1);
    assert_eq!(counts["unknown"], 1);
    assert_eq!(submission["column_correct"]["decision"], 2);
    assert_eq!(submission["column_correct"]["reason"], 1);
    let probe_2 = &submission["cases"][1];
    assert_eq!(probe_2["case_id"], "probe-2");
    assert_eq!(probe_2["line"], 3);
    let decision = probe_2["columns"]["decision"].as_object().unwrap();
    assert_eq!(decision["correct"], false);
    assert_eq!(decision["actual"], "ACTIVE");
    assert!(!decision.contains_key("expected"), "hidden value leaked");
    let probe_4 = &submission["cases"][3];
    assert_eq!(probe_4["columns"]["decision"]["correct"], true);
    assert_eq!(probe_4["columns"]["reason"]["correct"], false);
    assert_eq!(submission["warnings"][0]["case_id"], "probe-9");
}

#[test]
fn golden_values_stay_hidden_without_reveal() {
    // What the golden file says and the submission does not: none of it may appear.
    let hidden = ["EXPIRED", "expired_without_result", "cancel_unacknowledged"];
    for format in FORMATS {
        let output = grade_wrong(format, false);
        assert_eq!(output.status.code(), Some(1), "{format}");
        let text = String::from_utf8(output.stdout)
            .unwrap()
            .to_ascii_lowercase();
        for value in hidden {
            assert!(
                !text.contains(&value.to_ascii_lowercase()),
                "{format} shows the hidden value {value}:\n{text}"
            );
        }
        let revealed = grade_wrong(format, true);
        let text = String::from_utf8(revealed.stdout).unwrap();
        for value in hidden {
            assert!(
                text.contains(value),
                "{format} --reveal lacks {value}:\n{text}"
            );
        }
    }
}

#[test]
fn reports_are_deterministic() {
    for format in FORMATS {
        assert_eq!(
            grade_wrong(format, true).stdout,
            grade_wrong(format, true).stdout
        );
    }
}

#[test]
fn check_reads_back_as_junit_with_a_suite_per_file() {
    let cases = data("check-dirs/cases");
    let golden = data("check-dirs/golden");
    let output = leasejudge(&[
        "check",
        cases.to_str().unwrap(),
        "--golden",
        golden.to_str().unwrap(),
        "--format",
        "junit",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let xml = String::from_utf8(output.stdout).unwrap();
    let document = roxmltree::Document::parse(&xml).unwrap();
    let suites: Vec<String> = document
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .map(|n| {
            let name = n.attribute("name").unwrap();
            Path::new(name)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    // Two compared pairs, then one suite per unpaired file.
    assert_eq!(suites, ["a.csv", "b.json", "orphan.csv", "lonely.csv"]);
}

#[test]
fn an_ungradable_submission_is_reported_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("report.xml");
    let submission = data("grade-duplicate/submission.csv");
    let golden = data("grade-duplicate/golden.csv");
    let output = leasejudge(&[
        "grade",
        submission.to_str().unwrap(),
        "--golden",
        golden.to_str().unwrap(),
        "--format",
        "junit",
        "-o",
        target.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let xml = std::fs::read_to_string(&target).unwrap();
    let document = roxmltree::Document::parse(&xml).unwrap();
    let error = document
        .descendants()
        .find(|n| n.has_tag_name("error"))
        .unwrap();
    assert!(error.attribute("message").unwrap().ends_with(
        "submission.csv:5: case_id: duplicated case id: it is already on line 2 (\"probe-1\")"
    ));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("1 submission could not be graded"),
        "{stderr}"
    );
}

#[test]
fn an_untouched_template_scores_zero() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let blank = dir.path().join("blank.csv");
    let cases = root.join("examples/lab/cases.csv");
    let key = root.join("examples/lab/key.csv");
    let made = leasejudge(&[
        "template",
        cases.to_str().unwrap(),
        "-o",
        blank.to_str().unwrap(),
    ]);
    assert_eq!(made.status.code(), Some(0));
    let text = std::fs::read_to_string(&blank).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next().unwrap(), leasejudge::matrix::COLUMNS.join(","));
    let ids: Vec<&str> = lines.map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(ids, ["probe-1", "probe-2", "probe-3", "probe-4"]);
    for columns in [
        "decision,reason",
        "decision,reason,lease_expired,ownership_conflict",
    ] {
        let graded = leasejudge(&[
            "grade",
            blank.to_str().unwrap(),
            "--golden",
            key.to_str().unwrap(),
            "--columns",
            columns,
            "-f",
            "json",
        ]);
        assert_eq!(graded.status.code(), Some(1));
        let report: serde_json::Value = serde_json::from_slice(&graded.stdout).unwrap();
        assert_eq!(report["submissions"][0]["score"], 0, "{columns}");
    }
}

#[test]
fn control_characters_from_a_submission_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let submission = dir.path().join("evil.csv");
    std::fs::write(
        &submission,
        "case_id,decision,reason\nprobe-1,\"ACT\x1b[31mIVE\",x\x07\nevil\x1b]0;pwned\x07,ACTIVE,within_lease\n",
    )
    .unwrap();
    let golden = data("grade-wrong/golden.csv");
    for format in FORMATS {
        let output = leasejudge(&[
            "grade",
            submission.to_str().unwrap(),
            "--golden",
            golden.to_str().unwrap(),
            "-f",
            format,
        ]);
        assert_eq!(output.status.code(), Some(1), "{format}");
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(
            !text.contains('\x1b') && !text.contains('\x07'),
            "{format} passes a control character through:\n{text}"
        );
        if format == "junit" {
            roxmltree::Document::parse(&text).unwrap();
        } else if matches!(
            format,
            "json" | "gradescope" | "prairielearn" | "github-classroom"
        ) {
            serde_json::from_str::<serde_json::Value>(&text).unwrap();
        } else {
            assert!(text.contains("\\u{1b}"), "{format}:\n{text}");
        }
    }
}
