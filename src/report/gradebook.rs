//! `grade`'s instructor files as CSV: the gradebook (one line per submission) and the item
//! analysis (one line per golden case: how many got each graded column right, and the most
//! common wrong answer). Text from input (a file name, a case id, a learner's answer) is
//! written as [`report_cell`] writes it: inert in a spreadsheet and in a log.

use std::io::Write;

use anyhow::{Context, Result};

use crate::grading::class::{item_analysis, ClassReport, SubmissionOutcome};
use crate::grading::learner_shortcuts::shortcuts_of;
use crate::output::{report_cell, spreadsheet_cell};

use super::class_text::baseline_cells;

fn csv_text(rows: Vec<Vec<String>>) -> Result<String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer.write_record(&row).context("cannot write CSV")?;
    }
    let bytes = writer.into_inner().context("cannot write CSV")?;
    Ok(String::from_utf8(bytes).expect("CSV of strings is UTF-8"))
}

/// The gradebook: `submission,score,max_score,percentage,matched,mismatched,missing,unknown`,
/// a `<column>_correct` per graded column, `status`, and with a baseline `previous_score`
/// and `change`. An ungradable submission has empty counts.
pub fn render_gradebook(report: &ClassReport) -> Result<String> {
    let mut header: Vec<String> = [
        "submission",
        "score",
        "max_score",
        "percentage",
        "matched",
        "mismatched",
        "missing",
        "unknown",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    header.extend(
        report
            .scoring
            .columns
            .iter()
            .map(|c| format!("{c}_correct")),
    );
    header.push("status".into());
    if report.baseline {
        header.extend(["previous_score".into(), "change".into()]);
    }
    let mut rows = vec![header];
    for submission in &report.submissions {
        let mut row = vec![report_cell(&submission.name).into_owned()];
        match &submission.outcome {
            SubmissionOutcome::Graded(graded) => {
                let counts = graded.counts();
                row.push(graded.score.to_string());
                row.push(report.max_score().to_string());
                row.push(
                    report
                        .percent(graded.score)
                        .map_or_else(String::new, |p| format!("{p:.1}")),
                );
                for count in [
                    counts.matched,
                    counts.mismatched,
                    counts.missing,
                    counts.unknown,
                ] {
                    row.push(count.to_string());
                }
                for i in 0..report.scoring.columns.len() {
                    row.push(graded.column_correct(i).to_string());
                }
            }
            _ => {
                row.push(String::new());
                row.push(report.max_score().to_string());
                row.extend(std::iter::repeat_n(
                    String::new(),
                    5 + report.scoring.columns.len(),
                ));
            }
        }
        row.push(submission.status().to_owned());
        if report.baseline {
            row.extend(baseline_cells(submission));
        }
        rows.push(row);
    }
    csv_text(rows)
}

/// Writes the item analysis: `case_id,graded`, then per graded column `<column>_correct`,
/// `<column>_most_common_wrong`, `<column>_most_common_wrong_count`; a line per golden case
/// (`golden_ids`, in golden-file order), written as it is made.
pub fn write_item_analysis(
    report: &ClassReport,
    golden_ids: impl Iterator<Item = std::io::Result<String>>,
    out: &mut dyn Write,
) -> Result<()> {
    let graded = report.summary().graded.to_string();
    let mut writer = csv::Writer::from_writer(out);
    let mut header = vec!["case_id".to_owned(), "graded".to_owned()];
    for column in &report.scoring.columns {
        header.push(format!("{column}_correct"));
        header.push(format!("{column}_most_common_wrong"));
        header.push(format!("{column}_most_common_wrong_count"));
    }
    // With the case files: which shortcut gives each case's most common wrong answer.
    let named = report.submissions.iter().any(|submission| {
        matches!(&submission.outcome,
            SubmissionOutcome::Graded(graded) if graded.shortcuts.is_some())
    });
    if named {
        header.push("most_common_wrong_shortcut".to_owned());
    }
    writer.write_record(&header).context("cannot write CSV")?;
    let mut row = Vec::new();
    item_analysis(report, golden_ids, &mut |item| {
        row.clear();
        // The key's own case id, so that a row is matched back to the key: kept as it is,
        // never live in a spreadsheet (a `'` before a live one).
        row.push(spreadsheet_cell(&item.case_id).into_owned());
        row.push(graded.clone());
        for (right, top) in item.columns {
            row.push(right.to_string());
            match top {
                Some((answer, count)) => {
                    // A learner's answer: what a spreadsheet would run, or a log show as a
                    // command, is made inert.
                    row.push(report_cell(&answer).into_owned());
                    row.push(count.to_string());
                }
                None => {
                    row.push(String::new());
                    row.push("0".to_owned());
                }
            }
        }
        if let Some(bits) = item.shortcuts {
            let names: Vec<&str> = shortcuts_of(bits).map(|s| s.name()).collect();
            row.push(names.join(" "));
        }
        writer.write_record(&row).context("cannot write CSV")
    })?;
    writer.flush().context("cannot write CSV")?;
    Ok(())
}
