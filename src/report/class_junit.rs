//! `grade`'s class report as JUnit XML (quick-junit): a testsuite per submission with a
//! testcase per golden case (a failure names the wrong columns, never a hidden golden value),
//! unknown rows as skipped testcases (warnings, not failures), an ungradable submission as
//! one errored testcase per problem, and a last testsuite without testcases whose properties
//! carry the class summary. No timestamps, so output is stable.

use anyhow::{Context, Result};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use std::io::Write;

use crate::grading::class::{CaseStatus, ClassReport, Submission, SubmissionOutcome, UnknownRow};

use super::class_text::{key_lines, score_line};
use crate::output::{escape_controls, escape_controls_keep_lines, escape_message};

/// A name in a JUnit report (a suite, a test case, a class, a property) that may come from
/// input: every character XML cannot hold, or a person could not see, shown as `\u{1b}`, one
/// for one, so that two different names never become the same (quick-junit would drop them).
pub(crate) fn junit_name(text: &str) -> String {
    escape_controls(text).into_owned()
}

/// A failure's message (one line) as a person reads it.
pub(crate) fn junit_message(text: &str) -> String {
    escape_message(text).into_owned()
}

/// A failure's description (lines) as a person reads it.
pub(crate) fn junit_text(text: &str) -> String {
    escape_controls_keep_lines(text).into_owned()
}

fn non_success(
    kind: NonSuccessKind,
    ty: &str,
    message: String,
    description: String,
) -> TestCaseStatus {
    let mut status = TestCaseStatus::non_success(kind);
    status
        .set_type(ty)
        .set_message(junit_message(&message))
        .set_description(junit_text(&description));
    status
}

/// Test cases rendered at once: a suite of any size needs no more memory than a page.
const PAGE_CASES: usize = 1024;

/// Calls `add` with each test case of `submission`'s suite, in order.
fn each_case(
    report: &ClassReport,
    submission: &Submission,
    add: &mut dyn FnMut(TestCase),
) -> std::io::Result<()> {
    let name = submission.name.as_str();
    let mut add = |test_name: &str, status: TestCaseStatus| {
        let mut test = TestCase::new(junit_name(test_name), status);
        test.set_classname(junit_name(name));
        add(test);
    };
    match &submission.outcome {
        SubmissionOutcome::KeyMalformed => {
            let lines = key_lines(report);
            add(
                "key",
                non_success(
                    NonSuccessKind::Error,
                    "key_malformed",
                    report.key_message().to_owned(),
                    format!("{}\n", lines.join("\n")),
                ),
            );
        }
        SubmissionOutcome::Ungradable(problems) => {
            for (i, problem) in problems.shown().iter().enumerate() {
                add(
                    &format!("problem {}", i + 1),
                    non_success(
                        NonSuccessKind::Error,
                        "ungradable",
                        problem.to_string(),
                        format!("{problem}\n"),
                    ),
                );
            }
        }
        SubmissionOutcome::Graded(graded) => {
            if report.feedback.shows_cases() {
                for case in &graded.cases {
                    let case = case?;
                    let status = match case.status {
                        CaseStatus::Matched => TestCaseStatus::success(),
                        status => {
                            let problems = report.problems(&case, name);
                            let at = match case.line {
                                Some(line) => format!("{name}:{line}"),
                                None => name.to_owned(),
                            };
                            non_success(
                                NonSuccessKind::Failure,
                                status.name(),
                                problems.join("; "),
                                format!("{at}: {}\n", problems.join("\n")),
                            )
                        }
                    };
                    add(&case.case_id, status);
                }
            } else {
                let status = if graded.score == report.max_score() {
                    TestCaseStatus::success()
                } else {
                    let line = score_line(report, submission);
                    non_success(
                        NonSuccessKind::Failure,
                        "score",
                        line.clone(),
                        format!("{line}\n"),
                    )
                };
                add("score", status);
            }
            for unknown in &graded.unknown {
                let unknown = unknown?;
                let mut status = TestCaseStatus::skipped();
                status
                    .set_type("warning")
                    .set_message(UnknownRow::WARNING)
                    .set_description(junit_text(&format!(
                        "{name}:{}: {}\n",
                        unknown.line,
                        UnknownRow::WARNING
                    )));
                add(&unknown.case_id, status);
            }
        }
    }
    Ok(())
}

/// The lines quick-junit writes for `cases` inside a testsuite (as they are wherever the
/// suite is: their indentation depends only on their depth).
fn case_lines(cases: Vec<TestCase>) -> Result<String> {
    if cases.is_empty() {
        return Ok(String::new());
    }
    let mut page = Report::new("page");
    let mut suite = TestSuite::new("page");
    suite.add_test_cases(cases);
    page.add_test_suite(suite);
    let text = page.to_string().context("cannot render the JUnit report")?;
    let lines: Vec<&str> = text.lines().collect();
    let open = lines
        .iter()
        .position(|line| line.starts_with("    <testsuite "))
        .expect("a suite");
    let close = lines
        .iter()
        .rposition(|line| *line == SUITE_END)
        .expect("an open suite is closed");
    Ok(lines[open + 1..close]
        .iter()
        .map(|line| format!("{line}\n"))
        .collect())
}

/// How quick-junit closes a testsuite that has properties. Escaped text never starts a line
/// with it, so it marks where a suite's test cases go.
const SUITE_END: &str = "    </testsuite>";

/// Writes the report as JUnit XML, a page of test cases at a time: the suites are first
/// counted (their test cases made and dropped), then drawn without test cases, and each
/// suite's test cases are made again and written before its end.
pub fn write(report: &ClassReport, out: &mut dyn Write) -> Result<()> {
    let mut junit = Report::new("leasejudge grade");
    for submission in &report.submissions {
        let mut suite = TestSuite::new(junit_name(&submission.name));
        suite.add_property(("score", score_line(report, submission).as_str()));
        count_cases(&mut suite, |add| each_case(report, submission, add))?;
        junit.add_test_suite(suite);
    }
    let summary = report.summary();
    let mut class = TestSuite::new("class summary");
    for (key, value) in [
        ("submissions", summary.submissions.to_string()),
        ("graded", summary.graded.to_string()),
        ("ungradable", summary.ungradable.to_string()),
        ("full_marks", summary.full_marks.to_string()),
        ("max_score", report.max_score().to_string()),
        (
            "mean_percent",
            summary
                .mean_percent
                .map_or_else(|| "-".to_owned(), |m| format!("{m:.1}")),
        ),
    ] {
        class.add_property((key, value.as_str()));
    }
    if report.baseline {
        for (submission, change) in report.moved() {
            class.add_property((
                format!("moved {}", junit_name(&submission.name)).as_str(),
                super::class_text::signed(change).as_str(),
            ));
        }
    }
    junit.add_test_suite(class);
    // The class summary's suite comes last and has no test cases.
    write_spliced(
        &junit,
        out,
        &mut |index, add| match report.submissions.get(index) {
            Some(submission) => each_case(report, submission, add),
            None => Ok(()),
        },
    )
}

/// Adds the test cases `each` makes to `suite` for their counts only, dropping them a page
/// at a time (quick-junit counts a test case as it is added).
pub(crate) fn count_cases(
    suite: &mut TestSuite,
    each: impl FnOnce(AddCase<'_>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let made = each(&mut |test| {
        suite.add_test_case(test);
        if suite.test_cases.len() == PAGE_CASES {
            suite.test_cases.clear();
        }
    });
    suite.test_cases.clear();
    made
}

/// Where a suite's test cases are given, one at a time.
pub(crate) type AddCase<'a> = &'a mut dyn FnMut(TestCase);

/// Writes `junit`, whose suites were counted ([`count_cases`]) but hold no test cases, with
/// the test cases `cases(index, add)` makes for suite `index` spliced in before its end, a
/// page at a time. Each suite must have a property, so that it is not written as one empty
/// element.
pub(crate) fn write_spliced(
    junit: &Report,
    out: &mut dyn Write,
    cases: &mut dyn FnMut(usize, AddCase<'_>) -> std::io::Result<()>,
) -> Result<()> {
    let skeleton = junit
        .to_string()
        .context("cannot render the JUnit report")?;
    let mut suite = 0;
    for line in skeleton.lines() {
        if line == SUITE_END {
            let mut page = Vec::with_capacity(PAGE_CASES);
            let mut failed = Ok(());
            let made = cases(suite, &mut |test| {
                page.push(test);
                if page.len() == PAGE_CASES && failed.is_ok() {
                    failed = case_lines(std::mem::take(&mut page))
                        .and_then(|lines| Ok(out.write_all(lines.as_bytes())?));
                }
            });
            failed?;
            made?;
            out.write_all(case_lines(page)?.as_bytes())?;
            suite += 1;
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grading::class::{graded_csv, Feedback, Graded, Scoring};
    use crate::grading::Column;

    #[test]
    fn pages_of_test_cases_make_the_whole_report() {
        let header = "case_id,decision,reason\n";
        let mut golden = header.to_owned();
        let mut wrong = header.to_owned();
        for i in 0..PAGE_CASES * 2 + 5 {
            golden.push_str(&format!("c{i},ACTIVE,within_lease\n"));
            if i % 7 != 0 {
                let decision = if i % 3 == 0 { "EXPIRD" } else { "ACTIVE" };
                wrong.push_str(&format!("c{i},{decision},within_lease\n"));
            }
        }
        wrong.push_str("stray,ACTIVE,within_lease\n");
        let submission = |name: &str, graded: Graded| Submission {
            name: name.to_owned(),
            outcome: SubmissionOutcome::Graded(graded),
            previous: None,
        };
        let report = ClassReport {
            scoring: Scoring::new(vec![Column::Decision, Column::Reason], None).unwrap(),
            feedback: Feedback::Cases,
            golden: None,
            cases: PAGE_CASES * 2 + 5,
            hints: Vec::new(),
            key_problems: None,
            key_unreadable: false,
            submissions: vec![
                submission("a & <b>.csv", graded_csv(&golden, &wrong)),
                submission("empty.csv", graded_csv(header, header)),
                submission("right.csv", graded_csv(&golden, &golden)),
            ],
            baseline: false,
            baseline_max_scores: Vec::new(),
            precheck: None,
            points: None,
        };
        let mut out = Vec::new();
        write(&report, &mut out).unwrap();
        // What quick-junit writes for the report built whole.
        let mut whole = Report::new("leasejudge grade");
        for submission in &report.submissions {
            let mut suite = TestSuite::new(submission.name.as_str());
            suite.add_property(("score", score_line(&report, submission).as_str()));
            each_case(&report, submission, &mut |test| {
                suite.add_test_case(test);
            })
            .unwrap();
            whole.add_test_suite(suite);
        }
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("<failure message=\"decision: EXPIRD is wrong"));
        // The class summary's suite has no test cases: up to it, the two are the same.
        let summary_at = text.find("    <testsuite name=\"class summary\"").unwrap();
        let expected = whole.to_string().unwrap();
        assert_eq!(text[..summary_at], expected[..summary_at]);
        assert!(expected[summary_at..].starts_with("</testsuites>"));
    }
}
