//! A grade report as a table for people: a line per case that differs (every golden case
//! with `verbose`) and per unknown case, then unpaired files and the summary.

use std::io::{self, Write};

use comfy_table::{Cell, Color};

use super::class_text::{write_paged, PagedStyle};

use crate::grading::{CaseOutcome, GradeReport};
use crate::output::{escape_controls, escape_controls_keep_lines, escape_message};

/// Writes the report, a page of its table at a time; statuses are coloured when `color`;
/// matched cases are listed only when `verbose`. The table is as wide as its cells, or
/// narrowed to `width` (`terminal::table_width`; `None`: no limit).
pub fn write(
    report: &GradeReport,
    color: bool,
    verbose: bool,
    width: Option<u16>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let status = |text: &str, colour: Color| {
        let cell = Cell::new(text);
        if color {
            cell.fg(colour)
        } else {
            cell
        }
    };
    let rows = || {
        report.files.iter().flat_map(move |file| {
            let cases = file
                .cases
                .iter()
                .filter(move |case| {
                    verbose
                        || !matches!(case, Ok(case) if matches!(case.outcome, CaseOutcome::Matched))
                })
                .map(move |case| {
                    let case = case?;
                    let colour = match case.outcome {
                        CaseOutcome::Matched => Color::Green,
                        CaseOutcome::Mismatched(_) | CaseOutcome::Missing => Color::Red,
                    };
                    Ok(vec![
                        Cell::new(escape_controls(&case.case_id)),
                        Cell::new(escape_controls(&case.at.to_string())),
                        status(case.status(), colour),
                        Cell::new(escape_controls_keep_lines(
                            &case.problems(&file.file).join("\n"),
                        )),
                    ])
                });
            let unknown = file.unknown.iter().map(move |unknown| {
                let unknown = unknown?;
                Ok(vec![
                    Cell::new(escape_controls(&unknown.case_id)),
                    Cell::new(escape_controls(&unknown.at.to_string())),
                    status("unknown", Color::Yellow),
                    Cell::new(escape_message(&unknown.problem(&file.golden))),
                ])
            });
            cases.chain(unknown)
        })
    };
    let style = PagedStyle {
        color,
        skip_empty: true,
        width,
    };
    write_paged(out, &["case", "where", "result", "details"], style, rows)?;
    let mut text = String::new();
    for unpaired in &report.unpaired {
        text.push_str(&format!(
            "{}: {}\n",
            escape_controls(&unpaired.file),
            unpaired.problem.message()
        ));
    }
    let summary = report.summary();
    let columns: Vec<&str> = report.columns.iter().map(|c| c.name()).collect();
    text.push_str(&format!(
        "{} cases, {} matched, {} mismatched, {} missing, score {}",
        summary.cases,
        summary.matched,
        summary.mismatched,
        summary.missing,
        summary.score_text()
    ));
    if summary.unknown > 0 {
        text.push_str(&format!("; {} unknown (not scored)", summary.unknown));
    }
    if summary.unpaired > 0 {
        text.push_str(&format!("; {} unpaired files", summary.unpaired));
    }
    text.push_str(&format!(" (graded: {})\n", columns.join(", ")));
    if !report.revealed {
        text.push_str("Expected values are hidden.\n");
    }
    super::class_text::write_prose(out, text.trim_end_matches('\n'), width)
}
