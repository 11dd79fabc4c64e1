//! A grade report as Markdown for a CI step summary (`$GITHUB_STEP_SUMMARY`): a headline, the
//! counts, and a table of every problem. Cell text is escaped so a value cannot break the
//! table or inject HTML.

use crate::grading::GradeReport;

/// Escapes text for a Markdown table cell.
pub fn escape_cell(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' => escaped.push_str("\\|"),
            '\\' => escaped.push_str("\\\\"),
            '`' => escaped.push_str("\\`"),
            '*' => escaped.push_str("\\*"),
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '\r' => {}
            '\n' => escaped.push_str("<br>"),
            c if crate::output::is_unsafe_char(c) => {
                escaped.push_str(&crate::output::escape_controls(c.encode_utf8(&mut [0; 4])))
            }
            c => escaped.push(c),
        }
    }
    escaped
}

/// Renders the report as Markdown.
pub fn render(report: &GradeReport) -> String {
    let summary = report.summary();
    let verdict = if summary.is_clean() {
        "all cases match"
    } else {
        "differences found"
    };
    // Column names are plain identifiers, safe inside code spans.
    let columns: Vec<String> = report.columns.iter().map(|c| format!("`{c}`")).collect();
    let mut text = format!(
        "## leasejudge {}: {verdict}\n\nGraded columns: {}.{}\n\n",
        report.command,
        columns.join(", "),
        if report.revealed {
            ""
        } else {
            " Expected values are hidden."
        }
    );
    text.push_str(
        "| cases | matched | mismatched | missing | unknown | unpaired files | score |\n",
    );
    text.push_str("|---:|---:|---:|---:|---:|---:|---:|\n");
    text.push_str(&format!(
        "| {} | {} | {} | {} | {} | {} | {} |\n",
        summary.cases,
        summary.matched,
        summary.mismatched,
        summary.missing,
        summary.unknown,
        summary.unpaired,
        summary.score_text()
    ));
    let mut rows = Vec::new();
    for file in &report.files {
        for case in &file.cases {
            let problems = case.problems(&file.file);
            if !problems.is_empty() {
                rows.push([
                    case.case_id.clone(),
                    case.at.to_string(),
                    case.status().to_owned(),
                    problems.join("\n"),
                ]);
            }
        }
        for unknown in &file.unknown {
            rows.push([
                unknown.case_id.clone(),
                unknown.at.to_string(),
                "unknown".to_owned(),
                unknown.problem(&file.golden),
            ]);
        }
    }
    for unpaired in &report.unpaired {
        rows.push([
            String::new(),
            unpaired.file.clone(),
            "unpaired".to_owned(),
            unpaired.problem.message().to_owned(),
        ]);
    }
    if !rows.is_empty() {
        text.push_str("\n| case | where | result | details |\n|---|---|---|---|\n");
        for row in rows {
            let cells: Vec<String> = row.iter().map(|cell| escape_cell(cell)).collect();
            text.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cannot_break_the_table() {
        assert_eq!(
            escape_cell("a|b\nc<d>&*e*_f"),
            "a\\|b<br>c&lt;d&gt;&amp;\\*e\\*_f"
        );
    }
}
