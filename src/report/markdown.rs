//! A grade report as Markdown for a CI step summary (`$GITHUB_STEP_SUMMARY`): a headline, the
//! counts, and a table of every problem. Cell text is escaped so a value cannot break the
//! table or inject HTML.

use std::io::{self, Write};

use crate::grading::GradeReport;

/// Escapes text for a Markdown table cell: each line as
/// [`escape_markdown`](crate::output::escape_markdown) escapes it, joined by `<br>`.
pub fn escape_cell(text: &str) -> String {
    let lines: Vec<String> = text
        .split('\n')
        .map(crate::output::escape_markdown)
        .collect();
    lines.join("<br>")
}

/// Renders the report as Markdown.
pub fn render(report: &GradeReport) -> String {
    let mut out = Vec::new();
    write(report, &mut out).expect("writing to memory does not fail");
    String::from_utf8(out).expect("the report is UTF-8")
}

/// Writes the report as Markdown, a table row at a time: a report may list millions of
/// differences.
pub fn write(report: &GradeReport, out: &mut dyn Write) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    let summary = report.summary();
    let verdict = if summary.is_clean() {
        "all cases match"
    } else {
        "differences found"
    };
    // Column names are plain identifiers, safe inside code spans.
    let columns: Vec<String> = report.columns.iter().map(|c| format!("`{c}`")).collect();
    write!(
        out,
        "## leasejudge {}: {verdict}\n\nGraded columns: {}.{}\n\n",
        report.command,
        columns.join(", "),
        if report.revealed {
            ""
        } else {
            " Expected values are hidden."
        }
    )?;
    out.write_all(
        b"| cases | matched | mismatched | missing | unknown | unpaired files | score |\n",
    )?;
    out.write_all(b"|---:|---:|---:|---:|---:|---:|---:|\n")?;
    writeln!(
        out,
        "| {} | {} | {} | {} | {} | {} | {} |",
        summary.cases,
        summary.matched,
        summary.mismatched,
        summary.missing,
        summary.unknown,
        summary.unpaired,
        summary.score_text()
    )?;
    // The problems' table has a header only when it has a row.
    let mut started = false;
    let mut row = |out: &mut dyn Write, cells: [&str; 4]| -> io::Result<()> {
        if !started {
            out.write_all(b"\n| case | where | result | details |\n|---|---|---|---|\n")?;
            started = true;
        }
        let cells: Vec<String> = cells.iter().map(|cell| escape_cell(cell)).collect();
        writeln!(out, "| {} |", cells.join(" | "))
    };
    for file in &report.files {
        for case in &file.cases {
            let case = case?;
            let problems = case.problems(&file.file);
            if !problems.is_empty() {
                row(
                    &mut out,
                    [
                        &crate::output::escape_controls(&case.case_id),
                        &case.at.to_string(),
                        case.status(),
                        &problems.join("\n"),
                    ],
                )?;
            }
        }
        for unknown in &file.unknown {
            let unknown = unknown?;
            row(
                &mut out,
                [
                    &crate::output::escape_controls(&unknown.case_id),
                    &unknown.at.to_string(),
                    "unknown",
                    &unknown.problem(&file.golden),
                ],
            )?;
        }
    }
    for unpaired in &report.unpaired {
        row(
            &mut out,
            [
                "",
                &crate::output::escape_controls(&unpaired.file),
                "unpaired",
                unpaired.problem.message(),
            ],
        )?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cannot_break_the_table() {
        assert_eq!(
            escape_cell("a|b\nc<d>&*e*_f"),
            "a\\|b<br>c\\<d\\>\\&\\*e\\*\\_f"
        );
        assert_eq!(
            escape_cell("![x](https://t.example/p.png) [Regrade](https://e.example) www.e.example"),
            "\\!\\[x\\](https\\://t.example/p.png) \\[Regrade\\](https\\://e.example) www\\.e.example"
        );
    }
}
