//! `grade`'s files beside the report: the gradebook (a platform's import with `--lms`, and
//! the line that says what it holds) and the item analysis.

use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result};

use crate::grading::class::{ClassReport, SubmissionOutcome};
use crate::grading::spool::Spool;
use crate::lms::roster::scaled;
use crate::lms::{Class, LearnerGrade, Lms, Missing, Upload};
use crate::output::{escape_controls, Content, Output};
use crate::report::gradebook::{render_gradebook, write_item_analysis};
use crate::report::learner_feedback::feedback_lines;

use super::Options;

/// `text` written to a temporary file for `path`, to commit with the run's other outputs.
fn render_file(path: &Path, text: &str, what: &str) -> Result<Output> {
    let mut out = Output::open(Some(path), Content::Csv)?;
    out.write_all(text.as_bytes())
        .with_context(|| format!("cannot write the {what}"))?;
    Ok(out)
}

/// The file the platform imports, and the line that says what was written.
fn platform_gradebook(
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
        .enumerate()
        .map(|(n, (submission, upload))| {
            Ok(LearnerGrade {
                points: match &submission.outcome {
                    SubmissionOutcome::Graded(graded) => {
                        Some(scaled(graded.score, report.max_score(), points))
                    }
                    // An excused learner's 0 would undo the excusal.
                    _ if missing == Missing::Zero && !class.roster.excused(n) => Some(0.0),
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
            ", {without} learner{} with no gradable submission given no grade ({})",
            if without == 1 { "" } else { "s" },
            match missing {
                Missing::Skip => "--missing zero gives 0",
                Missing::Zero => "excused on the platform: a 0 would undo the excusal",
            }
        ));
    }
    if let (_, Some(note)) = class.skipped_lines() {
        line.push_str(&format!(", {note}"));
    }
    line.push_str("; ");
    // The assignment's name is the roster's text.
    line.push_str(&escape_controls(&class.roster.describe()));
    Ok((class.roster.render(&grades, points), line))
}

/// The gradebook and the item analysis `options` ask for, added to `outputs` to commit with
/// the report; with `--lms`, the line that says what the platform's import holds (none is
/// written when the golden file cannot be used: every learner would be ungradable, and with
/// `--missing zero` given 0).
pub(super) fn files_beside_report(
    options: &Options,
    report: &ClassReport,
    class: Option<&Class>,
    case_ids: Option<&Spool<(u64, String)>>,
    outputs: &mut Vec<Output>,
) -> Result<Option<String>> {
    let mut imported = None;
    match (&options.gradebook, class) {
        (Some(path), Some(class)) if report.key_problems.is_none() => {
            let (text, line) = platform_gradebook(options, class, report, path)?;
            outputs.push(render_file(path, &text, "gradebook")?);
            imported = Some(line);
        }
        (Some(path), Some(_)) => {
            imported = Some(format!(
                "the {} gradebook {} was not written: the golden file cannot be used",
                options.lms.map_or("", Lms::title),
                escape_controls(&path.to_string_lossy())
            ));
        }
        (Some(path), None) => {
            outputs.push(render_file(path, &render_gradebook(report)?, "gradebook")?)
        }
        (None, _) => {}
    }
    if let Some(path) = &options.item_analysis {
        let mut out = Output::open(Some(path), Content::Csv)?;
        let golden_ids = case_ids
            .iter()
            .flat_map(|ids| ids.iter().map(|id| id.map(|(_, id)| id)));
        write_item_analysis(report, golden_ids, &mut out)
            .context("cannot write the item analysis")?;
        outputs.push(out);
    }
    Ok(imported)
}
