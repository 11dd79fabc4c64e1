//! Bad input as a CI report: when `check` or `grade` cannot grade because an input is
//! malformed, the report file the CI step expects still says what is wrong and where (a JUnit
//! `<error>` testcase, a GitHub `::error` annotation or a Markdown list per problem, or JSON),
//! while standard error lists every problem and the exit code stays 2.

use anyhow::{Context, Result};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::input::thousands;
use crate::input::{ErrorKind, InputError, InputErrors};
use crate::report::class_junit::{junit_message, junit_name, junit_text};
use crate::report::github::{command as workflow_command, escape_data};
use crate::report::markdown::escape_cell;

/// Error annotations GitHub shows per step (and warnings, another 10); later ones are
/// dropped silently, so the last one shown says how many more the step summary and log hold.
pub const ANNOTATIONS_PER_STEP: usize = 10;

fn spot(error: &InputError) -> crate::grading::Spot {
    crate::grading::Spot {
        file: error.file.clone(),
        line: (error.line > 0).then_some(error.line),
    }
}

fn what(error: &InputError) -> String {
    // The message without the location, which a report carries in its own fields.
    let mut text = String::new();
    if let Some(column) = &error.column {
        text.push_str(column);
        text.push_str(": ");
    }
    text.push_str(&error.message);
    if let Some(value) = &error.value {
        let mut quoting = InputError::new(ErrorKind::Value, "", 0, "").value(value.clone());
        quoting.value_bytes = error.value_bytes;
        let quoted = quoting.to_string();
        // `InputError` quotes (and cuts) a value the same way everywhere: reuse its tail.
        if let Some(start) = quoted.find(" (") {
            text.push_str(&quoted[start..]);
        }
    }
    text
}

fn headline(command: &str, errors: &InputErrors) -> String {
    let n = errors.total();
    format!(
        "leasejudge {command}: {} input error{}; nothing was graded",
        thousands(n),
        if n == 1 { "" } else { "s" }
    )
}

/// JUnit XML: one testsuite, one testcase with an `<error>` per problem, named by its place.
pub fn junit(command: &str, errors: &InputErrors) -> Result<String> {
    let mut report = Report::new(format!("leasejudge {command}"));
    let mut suite = TestSuite::new("input");
    for error in errors {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status
            .set_type("input")
            .set_message(junit_message(&what(error)))
            .set_description(junit_text(&format!("{error}\n")));
        let name = if error.line > 0 {
            format!("{}:{}", junit_name(&error.file), error.line)
        } else {
            junit_name(&error.file)
        };
        let mut test = TestCase::new(name, status);
        test.set_classname(junit_name(&error.file));
        suite.add_test_case(test);
    }
    if let Some(line) = errors.unlisted_message() {
        // One more testcase stands for the errors not listed, so that a reader of the
        // report alone knows there were more.
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status
            .set_type("input")
            .set_message(junit_message(&line))
            .set_description(junit_text(&format!("{line}\n")));
        suite.add_test_case(TestCase::new("unlisted", status));
    }
    report.add_test_suite(suite);
    let mut text = report
        .to_string()
        .context("cannot render the JUnit report")?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// GitHub workflow commands: an `::error file=…,line=…::` per problem up to
/// [`ANNOTATIONS_PER_STEP`] (the last saying how many more there are), then every problem as
/// a plain log line, so that none is lost.
pub fn github(command: &str, errors: &InputErrors) -> String {
    let problems = errors.listed();
    let title = format!("leasejudge {command}: bad input");
    let mut text = String::new();
    let shown = if problems.len() > ANNOTATIONS_PER_STEP {
        ANNOTATIONS_PER_STEP - 1
    } else {
        problems.len()
    };
    for error in &problems[..shown] {
        text.push_str(&workflow_command(
            "error",
            Some(&spot(error)),
            &title,
            &what(error),
        ));
    }
    if shown < problems.len() {
        let message = format!(
            "{} more input errors (GitHub shows {ANNOTATIONS_PER_STEP} annotations per step): \
             every one is in the step summary and in this log",
            thousands(errors.total() - shown as u64)
        );
        text.push_str(&workflow_command("error", None, &title, &message));
    }
    text.push_str(&format!("{}\n", escape_data(&headline(command, errors))));
    for error in problems {
        // A plain line, not a command: its file name (first) is escaped as a person reads
        // it, so that nothing can make it one (`escape_controls`).
        text.push_str(&escape_data(&error.to_string()));
        text.push('\n');
    }
    if let Some(line) = errors.unlisted_message() {
        text.push_str(&escape_data(&line));
        text.push('\n');
    }
    text
}

/// Markdown for a step summary: a headline and a table of every problem.
pub fn markdown(command: &str, errors: &InputErrors) -> String {
    let mut text = format!(
        "## {}\n\nThe input could not be read, so no case was graded. Fix these and run again:\n\n\
         | file | line | problem |\n|---|---:|---|\n",
        escape_cell(&headline(command, errors))
    );
    for error in errors {
        let line = if error.line > 0 {
            error.line.to_string()
        } else {
            String::new()
        };
        text.push_str(&format!(
            "| {} | {line} | {} |\n",
            escape_cell(&error.file),
            escape_cell(&what(error))
        ));
    }
    if let Some(line) = errors.unlisted_message() {
        text.push_str(&format!("\n{}\n", escape_cell(&line)));
    }
    text
}

/// One JSON document: `{"command", "status": "input_errors", "errors": [{file, line, column,
/// message, value}]}`.
pub fn json(command: &str, errors: &InputErrors) -> String {
    let list: Vec<serde_json::Value> = errors
        .iter()
        .map(|e| {
            serde_json::json!({
                "file": e.file,
                "line": (e.line > 0).then_some(e.line),
                "column": e.column,
                "message": e.message,
                "value": e.value,
            })
        })
        .collect();
    let mut document = serde_json::json!({
        "command": command,
        "status": "input_errors",
        "errors": list,
    });
    if errors.unlisted() > 0 {
        // Only past the cap, so that a short report is as it always was.
        document["unlisted_errors"] = errors.unlisted().into();
    }
    let mut text = serde_json::to_string_pretty(&document).expect("JSON values serialise");
    text.push('\n');
    text
}
