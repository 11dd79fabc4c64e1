//! A grade report as GitHub Actions workflow commands: an `::error` annotation per wrong or
//! missing case (at the case's first line in the case file, or the submission's row), a
//! `::warning` per unknown case, an `::error` per unpaired file, and a closing `::notice` (or
//! `::error`) with the summary. Every value is escaped by the workflow-command rules.

use std::io::{self, Write};

use crate::grading::{GradeReport, Spot};

/// Escapes a command's message: `%`, `\r` and `\n`.
pub fn escape_data(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => escaped.push_str("%25"),
            '\r' => escaped.push_str("%0D"),
            '\n' => escaped.push_str("%0A"),
            // Workflow commands are read from the log line by line, and the log is shown
            // in a terminal-like viewer: no other control character gets through.
            c if crate::output::is_unsafe_char(c) => {
                escaped.push_str(&crate::output::escape_controls(c.encode_utf8(&mut [0; 4])))
            }
            c => escaped.push(c),
        }
    }
    escaped
}

/// Escapes a property value (`file=`, `title=`): as a message, and `:` and `,` too.
pub fn escape_property(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in escape_data(text).chars() {
        match c {
            ':' => escaped.push_str("%3A"),
            ',' => escaped.push_str("%2C"),
            c => escaped.push(c),
        }
    }
    escaped
}

/// One workflow command: `::level file=F,line=L,title=T::message`.
pub fn command(level: &str, at: Option<&Spot>, title: &str, message: &str) -> String {
    let mut properties = Vec::new();
    if let Some(at) = at {
        properties.push(format!("file={}", escape_property(&at.file)));
        if let Some(line) = at.line {
            properties.push(format!("line={line}"));
        }
    }
    properties.push(format!("title={}", escape_property(title)));
    format!(
        "::{level} {}::{}\n",
        properties.join(","),
        escape_data(message)
    )
}

/// Renders the report as workflow commands.
pub fn render(report: &GradeReport) -> String {
    let mut out = Vec::new();
    write(report, &mut out).expect("writing to memory does not fail");
    String::from_utf8(out).expect("the report is UTF-8")
}

/// Writes the report as workflow commands, one at a time: a report may list millions of
/// differences.
pub fn write(report: &GradeReport, out: &mut dyn Write) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    for file in &report.files {
        for case in &file.cases {
            let case = case?;
            let problems = case.problems(&file.file);
            if !problems.is_empty() {
                let title = format!(
                    "leasejudge {}: case {} {}",
                    report.command,
                    case.case_id,
                    case.status()
                );
                out.write_all(
                    command("error", Some(&case.at), &title, &problems.join("\n")).as_bytes(),
                )?;
            }
        }
        for unknown in &file.unknown {
            let unknown = unknown?;
            let title = format!(
                "leasejudge {}: case {} unknown",
                report.command, unknown.case_id
            );
            out.write_all(
                command(
                    "warning",
                    Some(&unknown.at),
                    &title,
                    &unknown.problem(&file.golden),
                )
                .as_bytes(),
            )?;
        }
    }
    for unpaired in &report.unpaired {
        let at = Spot {
            file: unpaired.file.clone(),
            line: None,
        };
        let title = format!("leasejudge {}: unpaired file", report.command);
        out.write_all(command("error", Some(&at), &title, unpaired.problem.message()).as_bytes())?;
    }
    let summary = report.summary();
    let message = format!(
        "{} cases, {} matched, {} mismatched, {} missing, {} unknown, {} unpaired files; score {}",
        summary.cases,
        summary.matched,
        summary.mismatched,
        summary.missing,
        summary.unknown,
        summary.unpaired,
        summary.score_text()
    );
    let level = if summary.is_clean() {
        "notice"
    } else {
        "error"
    };
    out.write_all(
        command(
            level,
            None,
            &format!("leasejudge {}", report.command),
            &message,
        )
        .as_bytes(),
    )?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_follows_the_workflow_command_rules() {
        assert_eq!(
            escape_data("50% done\r\nnext: a,b"),
            "50%25 done%0D%0Anext: a,b"
        );
        assert_eq!(escape_property("a:b,c%d\ne"), "a%3Ab%2Cc%25d%0Ae");
        let at = Spot {
            file: "cases/x,y:z.csv".into(),
            line: Some(7),
        };
        assert_eq!(
            command("error", Some(&at), "case c:1", "reason: 100% wrong\nsee"),
            "::error file=cases/x%2Cy%3Az.csv,line=7,title=case c%3A1::reason: 100%25 wrong%0Asee\n"
        );
    }
}
