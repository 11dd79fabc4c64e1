//! A grade report as JUnit XML (quick-junit): one testsuite per graded file, one testcase per
//! golden case, a failure naming each differing column with the expected (when not hidden)
//! and the actual value. Unknown cases fail too (they make the run exit 1); an unpaired file
//! is a testsuite of its own with one failing testcase. No timestamps, so output is stable.

use anyhow::{Context, Result};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::grading::GradeReport;

fn failure(kind: &str, message: String, description: String) -> TestCaseStatus {
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
    status
        .set_type(kind)
        .set_message(message)
        .set_description(description);
    status
}

/// Renders the report as JUnit XML.
pub fn render(report: &GradeReport) -> Result<String> {
    let mut junit = Report::new(format!("leasejudge {}", report.command));
    for file in &report.files {
        let mut suite = TestSuite::new(file.file.as_str());
        suite.add_property(("golden", file.golden.as_str()));
        for case in &file.cases {
            let problems = case.problems(&file.file);
            let status = match case.status() {
                "matched" => TestCaseStatus::success(),
                kind => failure(
                    kind,
                    problems.join("; "),
                    format!("{}: {}\n", case.at, problems.join("\n")),
                ),
            };
            let mut test = TestCase::new(case.case_id.as_str(), status);
            test.set_classname(file.file.as_str());
            suite.add_test_case(test);
        }
        for unknown in &file.unknown {
            let problem = unknown.problem(&file.golden);
            let mut test = TestCase::new(
                unknown.case_id.as_str(),
                failure(
                    "unknown",
                    problem.clone(),
                    format!("{}: {problem}\n", unknown.at),
                ),
            );
            test.set_classname(file.file.as_str());
            suite.add_test_case(test);
        }
        junit.add_test_suite(suite);
    }
    for unpaired in &report.unpaired {
        let mut suite = TestSuite::new(unpaired.file.as_str());
        let message = unpaired.problem.message().to_owned();
        let mut test = TestCase::new(
            "pairing",
            failure(
                unpaired.problem.code(),
                message.clone(),
                format!("{}: {message}\n", unpaired.file),
            ),
        );
        test.set_classname(unpaired.file.as_str());
        suite.add_test_case(test);
        junit.add_test_suite(suite);
    }
    let mut text = junit
        .to_string()
        .context("cannot render the JUnit report")?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}
