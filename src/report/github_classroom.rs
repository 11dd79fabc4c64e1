//! `grade -f github-classroom`: one submission's results as the input of GitHub Classroom's
//! grading reporter (classroom-resources/autograding-grading-reporter), the JSON its graders
//! (classroom-resources/autograding-command-grader, `generateResult`) hand it:
//! `{"version": 1, "status", "max_score", "tests": [{"name", "status", "score", "message",
//! "test_code", "filename", "line_no", "duration"}]}`, statuses `pass`, `fail` or `error`.
//!
//! How the reporter reads it (`src/main.js`, `src/notify-classroom.js`,
//! `src/console-results.js`, `src/helpers/test-helpers.js`, at the `v1` tag workflows use): a
//! workflow step's output, base64, in the environment variable `{STEP ID}_RESULTS`; "Points
//! X/Y" (the annotation GitHub Classroom records) is the sum of every test's `score` over the
//! sum of `max_score`, for runners whose `max_score` is not 0, while the log's "Total points
//! for RUNNER" is the passing tests' share of the runner's `max_score`; a runner whose
//! `status` is `fail` or `error` fails the reporter's step. The log shows each test's name (and
//! ` - line N` unless `line_no` is 0), an error test's `message`, and `test_code` when it is
//! not empty.
//!
//! So every test is worth the same and scores all of it or nothing, which makes the two totals
//! one number (issue 36): a test per golden case (one point), or with weights a test per
//! point of each column ([`unit_tests`]); an ungradable submission is one `error` test saying
//! why. With `--feedback none`, or when those tests do not fit in [`REPORTER_LIMIT`] bytes,
//! tests of equal worth stand for the score ([`grouped_tests`]). No time is written
//! (`duration` is 0): the same input gives the same bytes. The names and messages reach a CI
//! log: every line is made inert
//! there ([`log_text`]).

use std::io::Write;

use serde_json::{json, Value};

use crate::grading::class::{CaseMark, CaseStatus, ClassReport, SubmissionOutcome};
use crate::grading::precheck::Precheck;

use super::class_shortcuts::learner_lines;
use super::class_text::score_line;
use super::platform_results::{
    element_bytes, head_text, lists_cases, only, problem_lines, test_output, test_text,
    write_document, TESTS_TAIL,
};
use super::{PlatformResults, ResultsOptions};

/// GitHub Classroom's results: its row of the platforms' results files. Its workflow runs
/// `grade` itself (no `--autograder`), and hands the document to the reporter.
pub(crate) const RESULTS: PlatformResults = PlatformResults {
    word: "github-classroom",
    help: "The input of GitHub Classroom's grading reporter, as JSON (one submission)",
    autograder: false,
    write: |report, _: &ResultsOptions, out| write_github_classroom(report, out),
};

/// The most bytes the document has. The reporter is handed it through an environment
/// variable, base64 (4 bytes for 3), and Linux refuses to start a program with one
/// environment string over 128 KiB (`MAX_ARG_STRLEN`, execve(2)): 96,000 bytes make 128,000,
/// under it with the variable's name. (A step's outputs may hold 1 MB, GitHub's limit.)
pub const REPORTER_LIMIT: usize = 96_000;

/// `text` made inert in a GitHub Actions log, line by line (the reporter prints names and
/// messages as they are): the project's rule for messages of several lines
/// ([`crate::sanitize::escape_controls_keep_lines`]: controls shown, no line a workflow
/// command).
pub fn log_text(text: &str) -> String {
    crate::sanitize::escape_controls_keep_lines(text).into_owned()
}

/// One test as the reporter reads it.
fn test(name: &str, passed: Option<bool>, score: u64, message: &str) -> Value {
    json!({
        "name": log_text(name),
        "status": match passed {
            Some(true) => "pass",
            Some(false) => "fail",
            None => "error",
        },
        "score": score,
        "message": log_text(message),
        "test_code": "",
        "filename": "",
        "line_no": 0,
        "duration": 0,
    })
}

/// The name of `precheck`'s one test.
pub const PRECHECK_TEST: &str = "Check of the matrix";

/// Writes the reporter's input for `precheck -f github-classroom`: one test,
/// [`PRECHECK_TEST`], worth no points (`max_score` 0, so "Points X/Y" counts the practice
/// cases alone), passing when the matrix is ready to hand in and failing otherwise (which
/// fails the reporter's step: the learner sees a red check); its message is the check's
/// lines, as many as fit in [`REPORTER_LIMIT`], then how many more there are, then the
/// verdict.
pub fn write_precheck(check: &Precheck, out: &mut dyn Write) -> std::io::Result<()> {
    let passed = check.passed();
    let head = head_text(&[
        ("version", 1.into()),
        ("status", if passed { "pass" } else { "fail" }.into()),
        ("max_score", 0.into()),
    ]);
    let mut lines = check.lines();
    let verdict = lines.pop().expect("a check's last line is its verdict");
    // What a line costs in the document: made inert, then escaped as a JSON string, and the
    // `\n` that joins it. Room is kept for the line that counts what is left out.
    let cost = |line: &str| {
        serde_json::to_string(&log_text(line)).map_or(line.len(), |json| json.len()) + 2
    };
    let skeleton = element_bytes(&test(PRECHECK_TEST, Some(passed), 0, ""));
    let mut room = REPORTER_LIMIT
        .saturating_sub(head.len() + skeleton + TESTS_TAIL + 400)
        .saturating_sub(cost(&verdict));
    let mut kept = Vec::new();
    let mut left_out = 0usize;
    for line in lines {
        let bytes = cost(&line);
        if left_out == 0 && bytes <= room {
            room -= bytes;
            kept.push(line);
        } else {
            left_out += 1;
        }
    }
    if left_out > 0 {
        kept.push(format!(
            "… and {left_out} more line{}: run leasejudge precheck on the matrix to see every one",
            if left_out == 1 { "" } else { "s" }
        ));
    }
    kept.push(verdict);
    let test = test(PRECHECK_TEST, Some(passed), 0, &kept.join("\n"));
    write_document(&head, [Ok(test_text(&test))], out)
}

/// Writes the reporter's input for the report's one submission.
pub fn write_github_classroom(report: &ClassReport, out: &mut dyn Write) -> std::io::Result<()> {
    write_within(report, REPORTER_LIMIT, out)
}

fn write_within(report: &ClassReport, limit: usize, out: &mut dyn Write) -> std::io::Result<()> {
    let submission = only(report);
    let max = report.max_score();
    let head = |status: &str| {
        head_text(&[
            ("version", 1.into()),
            ("status", status.into()),
            ("max_score", max.into()),
        ])
    };
    let SubmissionOutcome::Graded(graded) = &submission.outcome else {
        let lines = problem_lines(report, submission);
        let name = if report.key_problems.is_some() {
            "answer key".to_owned()
        } else {
            submission.name.clone()
        };
        let message = test_output(&lines);
        let tests = [Ok(test_text(&test(&name, None, 0, &message)))];
        return write_document(&head("error"), tests, out);
    };
    let status = if graded.score == max { "pass" } else { "fail" };
    // With `--feedback shortcut`, a first test of no points names the shortcuts the wrong
    // answers follow (a failing one: there are wrong answers).
    let shortcuts = learner_lines(report, submission);
    let first: Vec<Value> = (!shortcuts.is_empty())
        .then(|| test("Shortcuts", Some(false), 0, &shortcuts.join("\n")))
        .into_iter()
        .collect();
    let budget = limit.saturating_sub(
        head(status).len() + TESTS_TAIL + first.iter().map(element_bytes).sum::<usize>(),
    );
    let first_texts = || first.iter().map(|t| Ok(test_text(t)));
    if lists_cases(report, submission) {
        let unit = unit_points(report);
        let tests = |case: &CaseMark| unit_tests(report, &submission.name, case, unit);
        // Sized only until they overflow.
        let mut total = 0usize;
        for case in &graded.cases {
            total += tests(&case?).iter().map(element_bytes).sum::<usize>();
            if total > budget {
                break;
            }
        }
        if total <= budget {
            let all = graded.cases.iter().flat_map(|case| match case {
                Ok(case) => tests(&case)
                    .into_iter()
                    .map(|t| Ok(test_text(&t)))
                    .collect::<Vec<_>>(),
                Err(e) => vec![Err(e)],
            });
            return write_document(&head(status), first_texts().chain(all), out);
        }
    }
    let score = format!("Score: {}.", score_line(report, submission));
    let why = if lists_cases(report, submission) {
        format!(
            "The lab's {} cases do not fit the reporter's input a test each (it is limited to \
             {REPORTER_LIMIT} bytes): these tests stand for the points, each worth the same; the \
             report above lists the cases.",
            report.cases
        )
    } else {
        "These tests stand for the points, each worth the same.".to_owned()
    };
    let grouped = grouped_tests(graded.score, max, &format!("{score} {why}"), budget);
    let grouped = grouped.iter().map(|t| Ok(test_text(t)));
    write_document(&head(status), first_texts().chain(grouped), out)
}

/// What every test of a case's tests is worth: a case without weights is one test of one
/// point (right when every graded column is); with weights, each column's weight is split in
/// tests of the weights' greatest common divisor.
fn unit_points(report: &ClassReport) -> u64 {
    match &report.scoring.weights {
        None => 1,
        Some(weights) => weights
            .iter()
            .filter(|&&w| w > 0)
            .fold(0u64, |g, &w| gcd(g, u64::from(w)))
            .max(1),
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A case's tests, each worth `unit` points and passing exactly when it scores them: the
/// reporter's log prints "Total points" as the passing tests' share of `max_score`
/// (`getTestScore` in `src/helpers/test-helpers.js` at the `v1` tag the workflow runs: passed /
/// tests × max_score), while the
/// check run's "Points" adds the tests' `score` (`src/notify-classroom.js`); the two agree, and
/// with the grade, only when every test is worth the same and scores all of it or nothing.
fn unit_tests(report: &ClassReport, submission: &str, case: &CaseMark, unit: u64) -> Vec<Value> {
    let message = |right: bool| {
        if right {
            String::new()
        } else {
            test_output(&report.problems(case, submission))
        }
    };
    let Some(weights) = &report.scoring.weights else {
        let right = case.status == CaseStatus::Matched;
        return vec![test(
            &case.case_id,
            Some(right),
            case.points,
            &message(right),
        )];
    };
    let mut tests = Vec::new();
    for (i, (column, &weight)) in report.scoring.columns.iter().zip(weights).enumerate() {
        let parts = u64::from(weight) / unit;
        let right = case.is_correct(i);
        for part in 1..=parts {
            let name = if parts == 1 {
                format!("{}: {column}", case.case_id)
            } else {
                format!("{}: {column} ({part} of {parts})", case.case_id)
            };
            let score = if right { unit } else { 0 };
            tests.push(test(&name, Some(right), score, &message(right)));
        }
    }
    tests
}

/// Tests that stand for the score when a test per case (or per point) does not fit, or the
/// feedback lists no cases (`why` says which, after the score, in the first test): `score`
/// of `max` in tests of equal worth, the first ones passing, each scoring all of its worth or
/// nothing, so the log's "Total points" and the check run's "Points" are both the score. With
/// `v` the greatest common divisor of the score and `max`, that is `max / v` tests. When even
/// those do not fit in `budget` bytes, as many as fit stand for the score as nearly as they
/// can: the check run's "Points" is still the score, exactly, and the first test says so.
fn grouped_tests(score: u64, max: u64, why: &str, budget: usize) -> Vec<Value> {
    if max == 0 {
        return vec![test("Score", Some(true), 0, why)];
    }
    let note = |exact: bool| {
        let mut text = why.to_owned();
        if !exact {
            text.push_str(&format!(
                " So many points cannot be told in whole tests of equal worth here: the log's \
                 \"Total points\" is near {score}, and \"Points {score}/{max}\" is exact."
            ));
        }
        text
    };
    let v = gcd(score, max);
    let fits = |count: u64| -> bool {
        // Every test but the first is as long as the widest one's number.
        let widest = test(&format!("Points {max} of {max}"), Some(false), max, "");
        let first = element_bytes(&test("Points", Some(false), max, &note(false)));
        count <= 100_000 && first + element_bytes(&widest) * count as usize <= budget
    };
    let (count, passing, exact) = if fits(max / v) {
        (max / v, score / v, true)
    } else {
        let mut count = (max / v).min(100_000);
        while count > 2 && !fits(count) {
            count /= 2;
        }
        // The share of passing tests nearest the score's, at least one if it scored, and one
        // failing if it lost any.
        let mut passing = (score * count + max / 2) / max;
        if score > 0 {
            passing = passing.max(1);
        }
        if score < max {
            passing = passing.min(count - 1);
        }
        (count, passing, false)
    };
    // The points: `score` spread over the passing tests (equal when exact), none on a failing
    // one.
    let each = score.checked_div(passing).unwrap_or(0);
    let extra = score.checked_rem(passing).unwrap_or(0);
    (0..count)
        .map(|i| {
            let right = i < passing;
            let points = if right {
                each + u64::from(i < extra)
            } else {
                0
            };
            let worth = max / count;
            let name = if exact {
                let from = i * worth + 1;
                let to = (i + 1) * worth;
                if from == to {
                    format!("Points {from} of {max}")
                } else {
                    format!("Points {from}-{to} of {max}")
                }
            } else {
                format!("Points, part {} of {count}", i + 1)
            };
            let message = if i == 0 { note(exact) } else { String::new() };
            test(&name, Some(right), points, &message)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_cannot_become_a_workflow_command_in_the_log() {
        for text in [
            "::error::x",
            "a\n  ::add-mask::s",
            "x ##[error]y",
            "a:: b\u{1b}",
        ] {
            let shown = log_text(text);
            for line in shown.lines() {
                assert!(!line.trim_start().starts_with("::"), "{shown:?}");
                assert!(!line.contains("##["), "{shown:?}");
                assert!(!line.contains('\u{1b}'), "{shown:?}");
            }
        }
        // Text that is no command is left as it is.
        assert_eq!(log_text("a:: b"), "a:: b");
    }

    #[test]
    fn a_check_with_many_problems_fits_the_reporter_and_says_how_many_are_left_out() {
        let problem = |line: u64| crate::input::InputError {
            kind: crate::input::ErrorKind::Value,
            file: "matrix.csv".into(),
            line,
            column: Some("decision".into()),
            message: format!("{} is not a decision code", "X".repeat(300)),
            value: None,
            value_bytes: 0,
        };
        let check = Precheck {
            name: "matrix.csv".into(),
            read_as: None,
            rows: 1_000,
            cases: 1_000,
            gradable: true,
            problems: (2..1_002).map(problem).collect(),
        };
        let mut out = Vec::new();
        write_precheck(&check, &mut out).unwrap();
        assert!(out.len() <= REPORTER_LIMIT, "{} bytes", out.len());
        let document: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(document["status"], "fail");
        assert_eq!(document["max_score"], 0);
        let message = document["tests"][0]["message"].as_str().unwrap();
        let lines: Vec<&str> = message.lines().collect();
        assert!(
            lines[0].starts_with("matrix.csv: could not be read"),
            "{}",
            lines[0]
        );
        let shown = lines.len() - 3;
        assert!(shown > 100, "{shown} problems shown");
        assert_eq!(
            lines[lines.len() - 2],
            format!(
                "… and {} more lines: run leasejudge precheck on the matrix to see every one",
                1_000 - shown
            )
        );
        assert_eq!(lines[lines.len() - 1], check.verdict_line());
        // A check that passes is one passing test, worth nothing.
        let ready = Precheck {
            problems: crate::input::InputErrors::new(),
            ..check
        };
        let mut out = Vec::new();
        write_precheck(&ready, &mut out).unwrap();
        let document: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(document["status"], "pass");
        assert_eq!(document["tests"][0]["status"], "pass");
        assert_eq!(document["tests"][0]["score"], 0);
    }
}
