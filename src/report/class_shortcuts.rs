//! The shortcuts learners took (issue 37, part 4), as the instructor's reports say them: a
//! submission's list (`inclusive_deadlines explains 3 wrong cases, …`), the class summary's
//! sentences ("7 of 40 submissions answer as if deadlines were inclusive", from the
//! catalogue's [`Shortcut::as_if`]), and the line said once when no case files were given.

use serde_json::{json, Value};

use crate::grading::class::{ClassReport, Feedback, Submission, SubmissionOutcome};
use crate::grading::learner_shortcuts::Explained;
use crate::lease::Shortcut;

/// What a class's text report says, once, when the shortcuts cannot be named: no case files
/// were given and some learner answered a case wrong (a report on one submission, which may
/// be its learner's, does not say it).
pub const NOT_NAMED: &str = "Shortcuts: not named, as no case files were given (grade --cases \
                             CASEFILE... names the shortcut each learner's wrong answers follow).";

/// A submission's shortcuts, as the text report lists them: `shortcuts: inclusive_deadlines
/// explains 14 wrong cases, acked_never_expires 9, late_ack_accepted 2`. `None` when there
/// are none to name.
pub fn submission_line(named: &[Explained]) -> Option<String> {
    let (first, rest) = named.split_first()?;
    let mut line = format!(
        "shortcuts: {} explains {} wrong case{}",
        first.shortcut.name(),
        first.explains,
        if first.explains == 1 { "" } else { "s" }
    );
    for explained in rest {
        line.push_str(&format!(
            ", {} {}",
            explained.shortcut.name(),
            explained.explains
        ));
    }
    Some(line)
}

/// A submission's shortcuts as the JSON report's `shortcuts`: `[{"name": …, "explains": N}]`.
pub fn submission_json(named: &[Explained]) -> Value {
    named
        .iter()
        .map(|explained| json!({"name": explained.shortcut.name(), "explains": explained.explains}))
        .collect::<Vec<_>>()
        .into()
}

/// For each shortcut named first for at least one graded submission (the one that explains
/// most of its wrong cases), how many: most first, then in the catalogue's order. `None`
/// when the shortcuts were not named (no case files).
pub fn class_counts(report: &ClassReport) -> Option<Vec<(Shortcut, usize)>> {
    let mut counts = vec![0usize; Shortcut::ALL.len()];
    let mut named_at_all = false;
    for submission in &report.submissions {
        if let SubmissionOutcome::Graded(graded) = &submission.outcome {
            if let Some(explained) = graded.shortcuts.as_ref()?.first() {
                let index = Shortcut::ALL
                    .iter()
                    .position(|&s| s == explained.shortcut)
                    .expect("in the catalogue");
                counts[index] += 1;
            }
            named_at_all = true;
        }
    }
    if !named_at_all {
        return None;
    }
    let mut counts: Vec<(Shortcut, usize)> = Shortcut::ALL
        .iter()
        .copied()
        .zip(counts)
        .filter(|(_, count)| *count > 0)
        .collect();
    // Stable: equal counts stay in the catalogue's order.
    counts.sort_by_key(|(_, count)| std::cmp::Reverse(*count));
    Some(counts)
}

/// The class summary's sentence for a shortcut `count` of `graded` submissions take.
pub fn sentence(shortcut: Shortcut, count: usize, graded: usize) -> String {
    format!(
        "{count} of {graded} graded submission{} answer{} {} ({}).",
        if graded == 1 { "" } else { "s" },
        if count == 1 { "s" } else { "" },
        shortcut.as_if(),
        shortcut.name()
    )
}

/// The class summary's lines about shortcuts: a sentence per shortcut some submission
/// takes, or [`NOT_NAMED`] when no case files were given and some learner has a wrong case.
pub fn class_lines(report: &ClassReport) -> Vec<String> {
    let graded = report.summary().graded;
    match class_counts(report) {
        Some(counts) => counts
            .into_iter()
            .map(|(shortcut, count)| sentence(shortcut, count, graded))
            .collect(),
        None if report.submissions.len() > 1 && any_wrong_answer(report) => {
            vec![NOT_NAMED.to_owned()]
        }
        None => Vec::new(),
    }
}

/// The JSON summary's `shortcuts`: per shortcut some submission takes, its name, how many
/// submissions take it and the sentence; `None` without case files.
pub fn class_json(report: &ClassReport) -> Option<Value> {
    let graded = report.summary().graded;
    let counts = class_counts(report)?;
    Some(
        counts
            .into_iter()
            .map(|(shortcut, count)| {
                json!({
                    "name": shortcut.name(),
                    "submissions": count,
                    "sentence": sentence(shortcut, count, graded),
                })
            })
            .collect::<Vec<_>>()
            .into(),
    )
}

/// Whether a graded submission answered a case wrong (a mismatched case).
fn any_wrong_answer(report: &ClassReport) -> bool {
    report.submissions.iter().any(|submission| {
        matches!(&submission.outcome,
            SubmissionOutcome::Graded(graded) if graded.counts().mismatched > 0)
    })
}

/// What a learner is told of the shortcuts their wrong answers follow, with `--feedback
/// shortcut` only: a line per shortcut named, its name, its contract section and how many of
/// their wrong cases it explains, never a value (`Shortcut: inclusive_deadlines (contract
/// section 1 (deadline rule), 4 (step 1)) explains 3 of your wrong cases.`). Nothing at any
/// other level.
pub fn learner_lines(report: &ClassReport, submission: &Submission) -> Vec<String> {
    let SubmissionOutcome::Graded(graded) = &submission.outcome else {
        return Vec::new();
    };
    if report.feedback != Feedback::Shortcut {
        return Vec::new();
    }
    graded
        .shortcuts
        .iter()
        .flatten()
        .map(|explained| {
            format!(
                "Shortcut: {} (contract section {}) explains {} of your wrong cases.",
                explained.shortcut.name(),
                explained.shortcut.section(),
                explained.explains
            )
        })
        .collect()
}
