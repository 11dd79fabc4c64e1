//! `grade`'s class report as JUnit XML (quick-junit): a testsuite per submission with a
//! testcase per golden case (a failure names the wrong columns, never a hidden golden value),
//! unknown rows as skipped testcases (warnings, not failures), an ungradable submission as
//! one errored testcase per problem, and a last testsuite without testcases whose properties
//! carry the class summary. No timestamps, so output is stable.

use anyhow::{Context, Result};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::grading::class::{CaseStatus, ClassReport, Outcome, UnknownRow};

use super::class_text::{key_lines, score_line};

fn non_success(
    kind: NonSuccessKind,
    ty: &str,
    message: String,
    description: String,
) -> TestCaseStatus {
    let mut status = TestCaseStatus::non_success(kind);
    status
        .set_type(ty)
        .set_message(message)
        .set_description(description);
    status
}

/// Renders the report as JUnit XML.
pub fn render(report: &ClassReport) -> Result<String> {
    let mut junit = Report::new("leasejudge grade");
    for submission in &report.submissions {
        let name = submission.name.as_str();
        let mut suite = TestSuite::new(name);
        suite.add_property(("score", score_line(report, submission).as_str()));
        let add = |suite: &mut TestSuite, test_name: &str, status: TestCaseStatus| {
            let mut test = TestCase::new(test_name, status);
            test.set_classname(name);
            suite.add_test_case(test);
        };
        match &submission.outcome {
            Outcome::KeyMalformed => {
                let lines = key_lines(report);
                add(
                    &mut suite,
                    "golden file",
                    non_success(
                        NonSuccessKind::Error,
                        "golden_malformed",
                        report.key_message().to_owned(),
                        format!("{}\n", lines.join("\n")),
                    ),
                );
            }
            Outcome::Ungradable(problems) => {
                for (i, problem) in problems.iter().enumerate() {
                    add(
                        &mut suite,
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
            Outcome::Graded(graded) => {
                if report.feedback.shows_cases() {
                    for case in &graded.cases {
                        let status = match case.status {
                            CaseStatus::Matched => TestCaseStatus::success(),
                            status => {
                                let problems = report.problems(case, name);
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
                        add(&mut suite, report.case_id(case.case), status);
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
                    add(&mut suite, "score", status);
                }
                for unknown in &graded.unknown {
                    let mut status = TestCaseStatus::skipped();
                    status
                        .set_type("warning")
                        .set_message(UnknownRow::WARNING)
                        .set_description(format!(
                            "{name}:{}: {}\n",
                            unknown.line,
                            UnknownRow::WARNING
                        ));
                    add(&mut suite, &unknown.case_id, status);
                }
            }
        }
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
                format!("moved {}", submission.name).as_str(),
                super::class_text::signed(change).as_str(),
            ));
        }
    }
    junit.add_test_suite(class);
    let mut text = junit
        .to_string()
        .context("cannot render the JUnit report")?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}
