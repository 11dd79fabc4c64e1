//! `grade`'s files beside the report: the gradebook (a platform's import with `--lms`) and
//! the line that says what it holds.

use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result};

use crate::grading::class::{ClassReport, SubmissionOutcome};
use crate::lms::roster::scaled;
use crate::lms::{Class, LearnerGrade, Missing, Upload};
use crate::output::{escape_controls, Content, Output};
use crate::report::learner_feedback::feedback_lines;

use super::Options;

/// `text` written to a temporary file for `path`, to commit with the run's other outputs.
pub(super) fn render_file(path: &Path, text: &str, what: &str) -> Result<Output> {
    let mut out = Output::open(Some(path), Content::Csv)?;
    out.write_all(text.as_bytes())
        .with_context(|| format!("cannot write the {what}"))?;
    Ok(out)
}

/// The file the platform imports, and the line that says what was written.
pub(super) fn platform_gradebook(
    options: &Options,
    class: &Class,
    report: &ClassReport,
    path: &Path,
) -> io::Result<(String, String)> {
    let points = options
        .points
        .or(class.roster.points())
        .unwrap_or(report.max_score() as f64);
    let missing = options.missing.unwrap_or_default();
    let grades: Vec<LearnerGrade> = report
        .submissions
        .iter()
        .zip(&class.uploads)
        .map(|(submission, upload)| {
            Ok(LearnerGrade {
                points: match &submission.outcome {
                    SubmissionOutcome::Graded(graded) => {
                        Some(scaled(graded.score, report.max_score(), points))
                    }
                    _ if missing == Missing::Zero => Some(0.0),
                    _ => None,
                },
                feedback: match upload {
                    Upload::Missing => vec!["No submission was found.".to_owned()],
                    _ => feedback_lines(report, submission)?,
                },
            })
        })
        .collect::<io::Result<_>>()?;
    let given = grades.iter().filter(|g| g.points.is_some()).count();
    let without = grades.len() - given;
    let mut line = format!(
        "wrote {}: {given} grade{} out of {} points",
        escape_controls(&path.to_string_lossy()),
        if given == 1 { "" } else { "s" },
        crate::lms::roster::points_text(points)
    );
    if without > 0 {
        line.push_str(&format!(
            ", {without} learner{} with no gradable submission given no grade (--missing zero \
             gives 0)",
            if without == 1 { "" } else { "s" }
        ));
    }
    line.push_str("; ");
    // The assignment's name is the roster's text.
    line.push_str(&escape_controls(&class.roster.describe()));
    Ok((class.roster.render(&grades, points), line))
}
