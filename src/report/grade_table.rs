//! A grade report as a table for people: a line per case that differs (every golden case
//! with `verbose`) and per unknown case, then unpaired files and the summary.

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{Cell, Color, ContentArrangement, Table};

use crate::grading::{CaseOutcome, GradeReport};
use crate::output::{escape_controls, escape_controls_keep_lines};

/// Renders the report; statuses are coloured when `color`; matched cases are listed only when
/// `verbose`.
pub fn render(report: &GradeReport, color: bool, verbose: bool) -> String {
    let mut table = Table::new();
    table
        .load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    table.force_no_tty();
    if let Some(width) = crate::terminal::table_width() {
        table.set_width(width);
    }
    if color {
        table.enforce_styling();
    }
    table.set_header(["case", "where", "result", "details"]);
    let mut listed = false;
    for file in &report.files {
        for case in &file.cases {
            if !verbose && matches!(case.outcome, CaseOutcome::Matched) {
                continue;
            }
            listed = true;
            let colour = match case.outcome {
                CaseOutcome::Matched => Color::Green,
                CaseOutcome::Mismatched(_) | CaseOutcome::Missing => Color::Red,
            };
            let mut status = Cell::new(case.status());
            if color {
                status = status.fg(colour);
            }
            table.add_row(vec![
                Cell::new(escape_controls(&case.case_id)),
                Cell::new(escape_controls(&case.at.to_string())),
                status,
                Cell::new(escape_controls_keep_lines(
                    &case.problems(&file.file).join("\n"),
                )),
            ]);
        }
        for unknown in &file.unknown {
            listed = true;
            let mut status = Cell::new("unknown");
            if color {
                status = status.fg(Color::Yellow);
            }
            table.add_row(vec![
                Cell::new(escape_controls(&unknown.case_id)),
                Cell::new(escape_controls(&unknown.at.to_string())),
                status,
                Cell::new(escape_controls(&unknown.problem(&file.golden))),
            ]);
        }
    }
    let mut text = String::new();
    if listed {
        text.push_str(&table.to_string());
        text.push('\n');
    }
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
    text
}
