//! `grade`'s class report in the line-oriented formats: a table for people, Markdown for a
//! CI step summary, and GitHub Actions workflow commands. Each covers every submission and
//! ends with (or starts with, in Markdown) the class summary.

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{Cell, Color, ContentArrangement, Table};

use crate::grading::class::{CaseStatus, ClassReport, Outcome, Submission, UnknownRow};
use crate::grading::Spot;
use crate::output::{escape_controls, escape_controls_keep_lines};

use super::github;

/// A workflow command whose title and message have control characters escaped first.
fn command(level: &str, at: Option<&Spot>, title: &str, message: &str) -> String {
    let at = at.map(|at| Spot {
        file: visible_controls(&at.file),
        line: at.line,
    });
    github::command(
        level,
        at.as_ref(),
        &visible_controls(title),
        &visible_controls(message),
    )
}
use super::markdown;

/// Escapes Markdown table-cell text, control characters included.
fn escape_cell(text: &str) -> String {
    markdown::escape_cell(&visible_controls(text))
}

/// The text with every control character (and bidi override) but the line break escaped
/// visibly (`\u{1b}`), so a case id or file name cannot drive a terminal or inject a workflow
/// command: [`escape_controls_keep_lines`] applied to a whole rendering, so nothing that came
/// from input escapes it.
pub fn visible_controls(text: &str) -> String {
    escape_controls_keep_lines(text).into_owned()
}

fn new_table(color: bool) -> Table {
    let mut table = Table::new();
    table
        .load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    if color {
        // Also to a pipe or a file, for `--color always`.
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    table
}

/// A table cell of text that may have come from input: line breaks escaped too, so a
/// file name or cell cannot split a row into a fake one.
fn clean_cell(text: impl AsRef<str>) -> Cell {
    Cell::new(escape_controls(text.as_ref()))
}

/// A table cell of several lines, each of which may have come from input.
fn clean_lines_cell(lines: &[String]) -> Cell {
    let lines: Vec<_> = lines.iter().map(|line| escape_controls(line)).collect();
    Cell::new(lines.join("\n"))
}

fn coloured(text: &str, colour: Color, color: bool) -> Cell {
    let cell = clean_cell(text);
    if color {
        cell.fg(colour)
    } else {
        cell
    }
}

/// `3/4 (75.0%)`, with the baseline when there is one: `; was 2 (+1)`.
pub fn score_line(report: &ClassReport, submission: &Submission) -> String {
    let Some(score) = submission.score() else {
        return "ungradable".to_owned();
    };
    let mut text = format!(
        "{score}/{} ({})",
        report.max_score(),
        report.percent_text(score)
    );
    if report.baseline {
        match submission.previous.map(|p| p.score) {
            None => text.push_str("; not in the baseline"),
            Some(None) => text.push_str("; ungradable in the baseline"),
            Some(Some(previous)) if previous == score as f64 => {
                text.push_str(&format!("; was {} (no change)", number(previous)))
            }
            Some(Some(previous)) => text.push_str(&format!(
                "; was {} ({})",
                number(previous),
                signed(score as f64 - previous)
            )),
        }
    }
    text
}

/// A score as written in a gradebook: no fraction when whole.
pub fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else {
        format!("{value}")
    }
}

/// `+1`, `-2.5`, `0`.
pub fn signed(value: f64) -> String {
    if value > 0.0 {
        format!("+{}", number(value))
    } else {
        number(value)
    }
}

/// The graded columns, with their weights when scoring is partial: `decision=2, reason=1`.
pub fn columns_text(report: &ClassReport) -> String {
    let scoring = &report.scoring;
    let names: Vec<String> = scoring
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| match scoring.weights {
            Some(_) => format!("{c}={}", scoring.weight(i)),
            None => c.name().to_owned(),
        })
        .collect();
    names.join(", ")
}

/// The class summary line.
pub fn summary_line(report: &ClassReport) -> String {
    let summary = report.summary();
    let mut text = format!(
        "{} submission{}: {} graded ({} with full marks), {} ungradable; mean score {}",
        summary.submissions,
        if summary.submissions == 1 { "" } else { "s" },
        summary.graded,
        summary.full_marks,
        summary.ungradable,
        summary
            .mean_percent
            .map_or_else(|| "-".to_owned(), |m| format!("{m:.1}%")),
    );
    if summary.with_warnings > 0 {
        text.push_str(&format!(
            "; {} with warnings (rows not in the golden file)",
            summary.with_warnings
        ));
    }
    let max = report.max_score_text();
    text.push_str(&format!(
        " (graded: {}; max score {max})",
        columns_text(report)
    ));
    text
}

/// Who moved since the baseline: `alice.csv +1, bob.csv -2`.
pub fn moved_line(report: &ClassReport) -> Option<String> {
    if !report.baseline {
        return None;
    }
    let moved: Vec<String> = report
        .moved()
        .iter()
        .map(|(s, change)| format!("{} {}", escape_controls(&s.name), signed(*change)))
        .collect();
    Some(if moved.is_empty() {
        "Moved since the baseline: nobody".to_owned()
    } else {
        format!("Moved since the baseline: {}", moved.join(", "))
    })
}

/// The golden-file problem lines: the learner's message, and the details when revealed.
pub fn key_lines(report: &ClassReport) -> Vec<String> {
    match &report.key_problems {
        None => Vec::new(),
        Some(problems) => std::iter::once(report.key_message().to_owned())
            .chain(problems.iter().map(|p| p.to_string()))
            .collect(),
    }
}

/// Renders the report as tables for people; statuses are coloured when `color`. A
/// submission's table lists the cases that differ and the warnings, or every case when
/// `verbose`.
pub fn render_table(report: &ClassReport, color: bool, verbose: bool) -> String {
    let mut text = String::new();
    for line in key_lines(report) {
        text.push_str(&visible_controls(&format!("{line}\n")));
    }
    for submission in &report.submissions {
        text.push_str(&format!(
            "{}: {}\n",
            escape_controls(&submission.name),
            escape_controls(&score_line(report, submission))
        ));
        match &submission.outcome {
            Outcome::KeyMalformed => {
                text.push_str(&format!("  not graded: {}\n", report.key_message()))
            }
            Outcome::Ungradable(problems) => {
                for problem in problems {
                    text.push_str(&format!("  {}\n", escape_controls(&problem.to_string())));
                }
            }
            Outcome::Graded(graded) => {
                let mut table = new_table(color);
                table.set_header(["case", "where", "result", "details"]);
                let mut rows = 0;
                if report.feedback.shows_cases() {
                    for case in &graded.cases {
                        if case.status == CaseStatus::Matched && !verbose {
                            continue;
                        }
                        let colour = match case.status {
                            CaseStatus::Matched => Color::Green,
                            _ => Color::Red,
                        };
                        let at = Spot {
                            file: submission.name.clone(),
                            line: case.line,
                        };
                        table.add_row(vec![
                            clean_cell(report.case_id(case.case)),
                            clean_cell(at.to_string()),
                            coloured(case.status.name(), colour, color),
                            clean_lines_cell(&report.problems(case, &submission.name)),
                        ]);
                        rows += 1;
                    }
                }
                for unknown in &graded.unknown {
                    table.add_row(vec![
                        clean_cell(&unknown.case_id),
                        clean_cell(format!("{}:{}", submission.name, unknown.line)),
                        coloured("warning", Color::Yellow, color),
                        clean_cell(UnknownRow::WARNING),
                    ]);
                    rows += 1;
                }
                if rows > 0 {
                    text.push_str(&table.to_string());
                    text.push('\n');
                }
            }
        }
    }
    text.push('\n');
    text.push_str(&visible_controls(&format!(
        "Class: {}\n",
        summary_line(report)
    )));
    let mut table = new_table(color);
    let mut header = vec!["submission", "score", "max", "percent", "status"];
    if report.baseline {
        header.extend(["previous", "change"]);
    }
    table.set_header(header);
    for submission in &report.submissions {
        let score = submission.score();
        let mut row = vec![
            escape_controls(&submission.name).into_owned(),
            score.map_or_else(String::new, |s| s.to_string()),
            report.max_score_text(),
            score.map_or_else(String::new, |s| report.percent_text(s)),
            submission.status().to_owned(),
        ];
        if report.baseline {
            row.push(
                submission
                    .previous
                    .and_then(|p| p.score)
                    .map_or_else(String::new, number),
            );
            row.push(submission.change().map_or_else(String::new, signed));
        }
        table.add_row(row);
    }
    text.push_str(&table.to_string());
    text.push('\n');
    if let Some(moved) = moved_line(report) {
        text.push_str(&visible_controls(&format!("{moved}\n")));
    }
    if !report.feedback.reveals() {
        text.push_str("Expected values are hidden.\n");
    }
    text
}

/// Renders the report as Markdown.
pub fn render_markdown(report: &ClassReport) -> String {
    let verdict = match report.exit_code() {
        0 => "full marks",
        1 => "differences found",
        _ => "problems found",
    };
    let mut text = format!(
        "## leasejudge grade: {verdict}\n\n{}.{}\n\n",
        escape_cell(&summary_line(report)),
        if report.feedback.reveals() {
            ""
        } else {
            " Expected values are hidden."
        }
    );
    for line in key_lines(report) {
        text.push_str(&format!("- {}\n", escape_cell(&line)));
    }
    if report.key_problems.is_some() {
        text.push('\n');
    }
    let mut header = "| submission | score | max | percent | status |".to_owned();
    let mut rule = "|---|---:|---:|---:|---|".to_owned();
    if report.baseline {
        header.push_str(" previous | change |");
        rule.push_str("---:|---:|");
    }
    text.push_str(&format!("{header}\n{rule}\n"));
    for submission in &report.submissions {
        let score = submission.score();
        let mut cells = vec![
            escape_cell(&submission.name),
            score.map_or_else(String::new, |s| s.to_string()),
            report.max_score_text(),
            score.map_or_else(String::new, |s| report.percent_text(s)),
            submission.status().to_owned(),
        ];
        if report.baseline {
            cells.push(
                submission
                    .previous
                    .and_then(|p| p.score)
                    .map_or_else(String::new, number),
            );
            cells.push(submission.change().map_or_else(String::new, signed));
        }
        text.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    if let Some(moved) = moved_line(report) {
        text.push_str(&format!("\n{}\n", escape_cell(&moved)));
    }
    for submission in &report.submissions {
        let mut rows: Vec<[String; 4]> = Vec::new();
        match &submission.outcome {
            Outcome::KeyMalformed => {}
            Outcome::Ungradable(problems) => {
                for problem in problems {
                    let at = Spot {
                        file: problem.file.clone(),
                        line: (problem.line > 0).then_some(problem.line),
                    };
                    rows.push([
                        String::new(),
                        at.to_string(),
                        "ungradable".to_owned(),
                        problem.to_string(),
                    ]);
                }
            }
            Outcome::Graded(graded) => {
                for case in &graded.cases {
                    let problems = report.problems(case, &submission.name);
                    if !problems.is_empty() {
                        let at = Spot {
                            file: submission.name.clone(),
                            line: case.line,
                        };
                        rows.push([
                            report.case_id(case.case).to_owned(),
                            at.to_string(),
                            case.status.name().to_owned(),
                            problems.join("\n"),
                        ]);
                    }
                }
                for unknown in &graded.unknown {
                    rows.push([
                        unknown.case_id.clone(),
                        format!("{}:{}", submission.name, unknown.line),
                        "warning".to_owned(),
                        UnknownRow::WARNING.to_owned(),
                    ]);
                }
            }
        }
        if rows.is_empty() {
            continue;
        }
        text.push_str(&format!(
            "\n### {}: {}\n\n| case | where | result | details |\n|---|---|---|---|\n",
            escape_cell(&submission.name),
            escape_cell(&score_line(report, submission))
        ));
        for row in rows {
            let cells: Vec<String> = row.iter().map(|cell| escape_cell(cell)).collect();
            text.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
    }
    text
}

/// Renders the report as GitHub Actions workflow commands.
pub fn render_github(report: &ClassReport) -> String {
    let mut text = String::new();
    for line in key_lines(report) {
        text.push_str(&command(
            "error",
            None,
            "leasejudge grade: golden file",
            &line,
        ));
    }
    for submission in &report.submissions {
        let file = Spot {
            file: submission.name.clone(),
            line: None,
        };
        match &submission.outcome {
            Outcome::KeyMalformed => {}
            Outcome::Ungradable(problems) => {
                for problem in problems {
                    let at = Spot {
                        file: problem.file.clone(),
                        line: (problem.line > 0).then_some(problem.line),
                    };
                    text.push_str(&command(
                        "error",
                        Some(&at),
                        "leasejudge grade: ungradable",
                        &problem.to_string(),
                    ));
                }
            }
            Outcome::Graded(graded) => {
                for case in &graded.cases {
                    let problems = report.problems(case, &submission.name);
                    if !problems.is_empty() {
                        let at = Spot {
                            file: submission.name.clone(),
                            line: case.line,
                        };
                        let title = format!(
                            "leasejudge grade: case {} {}",
                            report.case_id(case.case),
                            case.status.name()
                        );
                        text.push_str(&command("error", Some(&at), &title, &problems.join("\n")));
                    }
                }
                for unknown in &graded.unknown {
                    let at = Spot {
                        file: submission.name.clone(),
                        line: Some(unknown.line),
                    };
                    let title = format!("leasejudge grade: case {} unknown", unknown.case_id);
                    text.push_str(&command("warning", Some(&at), &title, UnknownRow::WARNING));
                }
            }
        }
        let level = match &submission.outcome {
            Outcome::Graded(graded) if graded.score == report.max_score() => "notice",
            _ => "error",
        };
        text.push_str(&command(
            level,
            Some(&file),
            "leasejudge grade: score",
            &score_line(report, submission),
        ));
    }
    let mut message = summary_line(report);
    if let Some(moved) = moved_line(report) {
        message.push_str(&format!("\n{moved}"));
    }
    let level = if report.exit_code() == 0 {
        "notice"
    } else {
        "error"
    };
    text.push_str(&command(level, None, "leasejudge grade", &message));
    text
}
