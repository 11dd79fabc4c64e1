//! A grade report as JUnit XML (quick-junit): one testsuite per graded file, one testcase per
//! golden case, a failure naming each differing column with the expected (when not hidden)
//! and the actual value. Unknown cases fail too (they make the run exit 1); an unpaired file
//! is a testsuite of its own with one failing testcase. No timestamps, so output is stable.

use std::io::Write;

use anyhow::Result;
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::class_junit::{count_cases, junit_message, junit_name, junit_text, write_spliced};
use crate::grading::{FileGrade, GradeReport};

fn failure(kind: &str, message: String, description: String) -> TestCaseStatus {
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
    status
        .set_type(kind)
        .set_message(junit_message(&message))
        .set_description(junit_text(&description));
    status
}

/// Calls `add` with each test case of `file`'s suite, in order.
fn each_case(file: &FileGrade, add: &mut dyn FnMut(TestCase)) -> std::io::Result<()> {
    for case in &file.cases {
        let case = case?;
        let problems = case.problems(&file.file);
        let status = match case.status() {
            "matched" => TestCaseStatus::success(),
            kind => failure(
                kind,
                problems.join("; "),
                format!("{}: {}\n", case.at, problems.join("\n")),
            ),
        };
        let mut test = TestCase::new(junit_name(&case.case_id), status);
        test.set_classname(junit_name(&file.file));
        add(test);
    }
    for unknown in &file.unknown {
        let unknown = unknown?;
        let problem = unknown.problem(&file.golden);
        let mut test = TestCase::new(
            junit_name(&unknown.case_id),
            failure(
                "unknown",
                problem.clone(),
                format!("{}: {problem}\n", unknown.at),
            ),
        );
        test.set_classname(junit_name(&file.file));
        add(test);
    }
    Ok(())
}

/// Writes the report as JUnit XML, a page of test cases at a time: the suites are counted,
/// drawn without test cases, and each file's test cases are spliced in before its end.
pub fn write(report: &GradeReport, out: &mut dyn Write) -> Result<()> {
    let mut junit = Report::new(format!("leasejudge {}", report.command));
    for file in &report.files {
        let mut suite = TestSuite::new(junit_name(&file.file));
        suite.add_property(("golden", junit_name(&file.golden).as_str()));
        count_cases(&mut suite, |add| each_case(file, add))?;
        junit.add_test_suite(suite);
    }
    for unpaired in &report.unpaired {
        let mut suite = TestSuite::new(junit_name(&unpaired.file));
        let message = unpaired.problem.message().to_owned();
        let mut test = TestCase::new(
            "pairing",
            failure(
                unpaired.problem.code(),
                message.clone(),
                format!("{}: {message}\n", unpaired.file),
            ),
        );
        test.set_classname(junit_name(&unpaired.file));
        suite.add_test_case(test);
        junit.add_test_suite(suite);
    }
    // An unpaired file's suite holds its one test case already.
    write_spliced(
        &junit,
        out,
        &mut |index, add| match report.files.get(index) {
            Some(file) => each_case(file, add),
            None => Ok(()),
        },
    )
}
