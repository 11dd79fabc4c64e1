//! What one learner is told about their submission in a platform's gradebook (Moodle's
//! feedback comments, `grade --lms`): plain text lines at the run's `--feedback` level, their
//! control characters made visible, at most [`FEEDBACK_LIMIT`] bytes.

use std::io;

use crate::grading::class::{CaseStatus, ClassReport, Submission, SubmissionOutcome};

use super::class_shortcuts::learner_lines;
use super::class_text::score_line;
use super::platform_results::CappedLines;

/// The most bytes of one learner's feedback: a gradebook cell, not a report.
pub const FEEDBACK_LIMIT: usize = 60_000;

/// The feedback on `submission`: its score, then (as the feedback level shows them) a line
/// per wrong case with what is wrong in it and the hint, and a warning per row the golden
/// file lacks; or why it could not be graded.
pub fn feedback_lines(report: &ClassReport, submission: &Submission) -> io::Result<Vec<String>> {
    let mut lines = CappedLines::new(FEEDBACK_LIMIT, "not listed");
    match &submission.outcome {
        SubmissionOutcome::KeyMalformed => lines.push(report.key_message()),
        SubmissionOutcome::Ungradable(problems) => {
            lines.push("Your submission could not be graded:");
            for problem in problems.shown() {
                lines.push(&problem.to_string());
            }
        }
        SubmissionOutcome::Graded(graded) => {
            lines.push(&format!("Score: {}", score_line(report, submission)));
            for line in learner_lines(report, submission) {
                lines.push(&line);
            }
            for case in &graded.cases {
                let case = case?;
                if case.status == CaseStatus::Matched {
                    continue;
                }
                let problems = report.problems(&case, &submission.name);
                if !problems.is_empty() {
                    lines.push(&format!("{}: {}", case.case_id, problems.join("; ")));
                }
            }
            for unknown in &graded.unknown {
                lines.push(&unknown?.warning_line(&submission.located()));
            }
        }
    }
    Ok(lines.finish("lines"))
}
