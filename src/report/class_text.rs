//! `grade`'s class report in the line-oriented formats: a table for people, Markdown for a
//! CI step summary, and GitHub Actions workflow commands. Each covers every submission and
//! ends with (or starts with, in Markdown) the class summary.

use std::io::{self, Write};

use comfy_table::{Cell, Color};

use crate::grading::class::{
    CaseStatus, ClassReport, Counts, Submission, SubmissionOutcome, UnknownRow,
};
use crate::grading::marks::CaseMark;
use crate::grading::Spot;
use crate::output::{escape_controls, escape_controls_keep_lines, escape_message};

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
pub(crate) use super::paged::{write_paged, PagedStyle};

/// Escapes Markdown table-cell text, control characters included.
fn escape_cell(text: &str) -> String {
    markdown::escape_cell(text)
}

/// The text with every control character (and bidi override) but the line break escaped
/// visibly (`\u{1b}`), so a case id or file name cannot drive a terminal or inject a workflow
/// command: [`escape_controls_keep_lines`] applied to a whole rendering, so nothing that came
/// from input escapes it.
pub fn visible_controls(text: &str) -> String {
    escape_controls_keep_lines(text).into_owned()
}

/// A table cell of text that may have come from input: line breaks escaped too, so a
/// file name or cell cannot split a row into a fake one.
fn clean_cell(text: impl AsRef<str>) -> Cell {
    Cell::new(escape_controls(text.as_ref()))
}

/// A table cell of several lines, each made of the tool's words and values already escaped.
fn clean_lines_cell(lines: &[String]) -> Cell {
    let lines: Vec<_> = lines.iter().map(|line| escape_message(line)).collect();
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
    let mut text = match report.points {
        // The assignment's points: what the platform shows.
        Some(points) => format!(
            "{}/{} ({})",
            report.points_value(score),
            number(points),
            report.percent_text(score)
        ),
        None => format!(
            "{score}/{} ({})",
            report.max_score(),
            report.percent_text(score)
        ),
    };
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
            "; {} with warnings (rows not in the key)",
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
    let mut line = if moved.is_empty() {
        "Moved since the baseline: nobody".to_owned()
    } else {
        format!("Moved since the baseline: {}", moved.join(", "))
    };
    // A score out of another maximum moved with the key, not with the learner: said, since
    // the changes above compare the points as they stand.
    if let Some(earlier) = report.baseline_out_of_another() {
        let earlier: Vec<String> = earlier.iter().map(|max| max.to_string()).collect();
        line.push_str(&format!(
            "; the baseline's scores are out of {}, this run's out of {} (the key or the graded \
             columns changed): the changes compare points as they stand",
            earlier.join(" and "),
            report.max_score()
        ));
    }
    // Matched by name as given: a submission renamed, or given by another path (`./s` for
    // `s/`), is said, not left to look unmoved.
    let absent: Vec<&Submission> = report
        .submissions
        .iter()
        .filter(|s| s.previous.is_none())
        .collect();
    if !absent.is_empty() {
        const SHOWN: usize = 5;
        let mut names: Vec<String> = absent
            .iter()
            .take(SHOWN)
            .map(|s| escape_controls(&s.name).into_owned())
            .collect();
        if absent.len() > SHOWN {
            names.push(format!("and {} more", absent.len() - SHOWN));
        }
        line.push_str(&format!(
            "; {} of {} not in the baseline, which names submissions as given (the same paths \
             from the same directory): {}",
            absent.len(),
            report.submissions.len(),
            names.join(", ")
        ));
    }
    Some(line)
}

/// The golden-file problem lines: the learner's message, and the details when revealed.
pub fn key_lines(report: &ClassReport) -> Vec<String> {
    match &report.key_problems {
        None => Vec::new(),
        Some(problems) => std::iter::once(report.key_message().to_owned())
            .chain(problems.shown().iter().map(|p| p.to_string()))
            .collect(),
    }
}

/// The cells a class summary row shows (the table's and Markdown's): submission, score, max,
/// percent, status, and with a baseline the previous score and the change. The name is
/// left raw for each format to escape.
pub fn summary_cells(report: &ClassReport, submission: &Submission) -> Vec<String> {
    let score = submission.score();
    let mut cells = vec![
        submission.name.clone(),
        score.map_or_else(String::new, |s| s.to_string()),
        report.max_score_text(),
        score.map_or_else(String::new, |s| report.percent_text(s)),
        submission.status().to_owned(),
    ];
    if report.baseline {
        cells.extend(baseline_cells(submission));
    }
    cells
}

/// A submission's previous score and its change, as the summary and the gradebook write
/// them (empty when unknown).
pub fn baseline_cells(submission: &Submission) -> [String; 2] {
    [
        submission
            .previous
            .and_then(|p| p.score)
            .map_or_else(String::new, number),
        submission.change().map_or_else(String::new, signed),
    ]
}

/// The most rows of wrong cases and warnings a class report shows for one submission (without
/// `--verbose`): a 24-line screen when each wraps to four lines, as a missing case's does.
pub const CLASS_ROWS_SHOWN: usize = 5;

/// A graded submission's counts, as a class report lists them.
fn counts_line(counts: Counts) -> String {
    let mut text = format!(
        "{} matched, {} mismatched, {} missing",
        counts.matched, counts.mismatched, counts.missing
    );
    if counts.unknown > 0 {
        text.push_str(&format!("; {} unknown (not scored)", counts.unknown));
    }
    text
}

/// Writes the report as tables for people; statuses are coloured when `color`. A
/// submission's table lists the cases that differ and the warnings, or every case when
/// `verbose`; in a class (more than one submission) without `verbose`, after its counts, only
/// the first [`CLASS_ROWS_SHOWN`] and how many more there are. Tables are drawn a page at a
/// time: a submission of any size fits in memory.
/// `width`: the widest a table may be (a terminal's width), its widest columns narrowed to
/// fit; `None`, as wide as its cells.
pub fn write_table(
    report: &ClassReport,
    color: bool,
    verbose: bool,
    width: Option<u16>,
    out: &mut dyn Write,
) -> io::Result<()> {
    for line in key_lines(report) {
        write_prose(out, &visible_controls(&line), width)?;
    }
    for submission in &report.submissions {
        let score = format!(
            "{}: {}",
            escape_controls(&submission.name),
            escape_controls(&score_line(report, submission))
        );
        write_prose(out, &score, width)?;
        match &submission.outcome {
            SubmissionOutcome::KeyMalformed => write_prose(
                out,
                &format!("  not graded: {}", report.key_message()),
                width,
            )?,
            SubmissionOutcome::Ungradable(problems) => {
                for problem in problems.shown() {
                    let line = format!("  {}", escape_message(&problem.to_string()));
                    write_prose(out, &line, width)?;
                }
            }
            SubmissionOutcome::Graded(graded) => {
                let shows_cases = report.feedback.shows_cases();
                // A class lists each submission's counts and its first few wrong cases: a
                // class of learners who handed in nothing would be a table row per missing
                // case each (364 KB a learner for a 1,000-case key).
                let capped = report.submissions.len() > 1 && !verbose;
                let counts = graded.counts();
                if capped {
                    writeln!(out, "  {}", counts_line(counts))?;
                }
                let named = graded.shortcuts.as_deref().unwrap_or_default();
                if let Some(line) = super::class_shortcuts::submission_line(named) {
                    write_prose(out, &format!("  {line}"), width)?;
                }
                let shown = if capped { CLASS_ROWS_SHOWN } else { usize::MAX };
                let rows = || {
                    let cases = graded
                        .cases
                        .iter()
                        .filter(move |case| {
                            let listed =
                                |case: &CaseMark| verbose || case.status != CaseStatus::Matched;
                            shows_cases && case.as_ref().map_or(true, listed)
                        })
                        .map(|case| {
                            let case = case?;
                            let colour = match case.status {
                                CaseStatus::Matched => Color::Green,
                                _ => Color::Red,
                            };
                            let at = Spot {
                                file: submission.located(),
                                line: case.line,
                            };
                            Ok(vec![
                                clean_cell(&*case.case_id),
                                clean_cell(at.to_string()),
                                coloured(case.status.name(), colour, color),
                                clean_lines_cell(&report.problems(&case, &submission.name)),
                            ])
                        });
                    let unknown = graded.unknown.iter().map(|unknown| {
                        let unknown = unknown?;
                        Ok(vec![
                            clean_cell(&unknown.case_id),
                            clean_cell(format!("{}:{}", submission.located(), unknown.line)),
                            coloured("warning", Color::Yellow, color),
                            clean_cell(UnknownRow::WARNING),
                        ])
                    });
                    cases.chain(unknown).take(shown)
                };
                let style = PagedStyle {
                    color,
                    skip_empty: true,
                    width,
                };
                write_paged(out, &["case", "where", "result", "details"], style, rows)?;
                let listed = counts.unknown
                    + if shows_cases {
                        counts.mismatched + counts.missing
                    } else {
                        0
                    };
                if listed > shown {
                    writeln!(
                        out,
                        "  and {} more: see the learner's feedback or `-f json`",
                        listed - shown
                    )?;
                }
            }
        }
    }
    writeln!(out)?;
    let summary = visible_controls(&format!("Class: {}", summary_line(report)));
    write_prose(out, &summary, width)?;
    let mut header = vec!["submission", "score", "max", "percent", "status"];
    if report.baseline {
        header.extend(["previous", "change"]);
    }
    let rows = || {
        report.submissions.iter().map(|submission| {
            let mut cells = summary_cells(report, submission);
            cells[0] = escape_controls(&cells[0]).into_owned();
            Ok(cells.into_iter().map(Cell::new).collect())
        })
    };
    let style = PagedStyle {
        color,
        skip_empty: false,
        width,
    };
    write_paged(out, &header, style, rows)?;
    if let Some(moved) = moved_line(report) {
        write_prose(out, &visible_controls(&moved), width)?;
    }
    for line in super::class_shortcuts::class_lines(report) {
        write_prose(out, &line, width)?;
    }
    if !report.feedback.reveals() {
        writeln!(out, "Expected values are hidden.")?;
    }
    Ok(())
}

/// Writes `text`, lines for people, and a line end: each line wrapped to `width` when there
/// is one ([`crate::terminal::wrap_lines`]: at spaces, never inside a code or a path), as
/// wide as it is otherwise.
pub(crate) fn write_prose(out: &mut dyn Write, text: &str, width: Option<u16>) -> io::Result<()> {
    match width {
        Some(width) => writeln!(
            out,
            "{}",
            crate::terminal::wrap_lines(text, usize::from(width))
        ),
        None => writeln!(out, "{text}"),
    }
}

/// Writes the report as Markdown, as it is made.
pub fn write_markdown(report: &ClassReport, out: &mut dyn Write) -> io::Result<()> {
    let verdict = match report.exit_code() {
        0 => "full marks",
        1 => "differences found",
        _ => "problems found",
    };
    write!(
        out,
        "## leasejudge grade: {verdict}\n\n{}.{}\n\n",
        escape_cell(&summary_line(report)),
        if report.feedback.reveals() {
            ""
        } else {
            " Expected values are hidden."
        }
    )?;
    for line in key_lines(report) {
        writeln!(out, "- {}", escape_cell(&line))?;
    }
    if report.key_problems.is_some() {
        writeln!(out)?;
    }
    let mut header = "| submission | score | max | percent | status |".to_owned();
    let mut rule = "|---|---:|---:|---:|---|".to_owned();
    if report.baseline {
        header.push_str(" previous | change |");
        rule.push_str("---:|---:|");
    }
    write!(out, "{header}\n{rule}\n")?;
    for submission in &report.submissions {
        let mut cells = summary_cells(report, submission);
        cells[0] = escape_cell(&escape_controls(&cells[0]));
        writeln!(out, "| {} |", cells.join(" | "))?;
    }
    if let Some(moved) = moved_line(report) {
        write!(out, "\n{}\n", escape_cell(&moved))?;
    }
    for submission in &report.submissions {
        // Made twice (a submission's rows are not held): to see whether there are any, then
        // to write them.
        let rows = || -> Box<dyn Iterator<Item = io::Result<[String; 4]>> + '_> {
            match &submission.outcome {
                SubmissionOutcome::KeyMalformed => Box::new(std::iter::empty()),
                SubmissionOutcome::Ungradable(problems) => {
                    Box::new(problems.shown().into_iter().map(|problem| {
                        let at = Spot {
                            file: problem.file.clone(),
                            line: (problem.line > 0).then_some(problem.line),
                        };
                        Ok([
                            String::new(),
                            at.to_string(),
                            "ungradable".to_owned(),
                            problem.to_string(),
                        ])
                    }))
                }
                SubmissionOutcome::Graded(graded) => {
                    let cases = graded.cases.iter().filter_map(|case| {
                        let case = match case {
                            Ok(case) => case,
                            Err(e) => return Some(Err(e)),
                        };
                        let problems = report.problems(&case, &submission.name);
                        (!problems.is_empty()).then(|| {
                            let at = Spot {
                                file: submission.located(),
                                line: case.line,
                            };
                            Ok([
                                escape_controls(&case.case_id).into_owned(),
                                at.to_string(),
                                case.status.name().to_owned(),
                                problems.join("\n"),
                            ])
                        })
                    });
                    let unknown = graded.unknown.iter().map(|unknown| {
                        let unknown = unknown?;
                        Ok([
                            escape_controls(&unknown.case_id).into_owned(),
                            format!("{}:{}", submission.located(), unknown.line),
                            "warning".to_owned(),
                            UnknownRow::WARNING.to_owned(),
                        ])
                    });
                    Box::new(cases.chain(unknown))
                }
            }
        };
        if rows().next().is_none() {
            continue;
        }
        write!(
            out,
            "\n### {}: {}\n\n| case | where | result | details |\n|---|---|---|---|\n",
            escape_cell(&escape_controls(&submission.name)),
            escape_cell(&score_line(report, submission))
        )?;
        for row in rows() {
            let cells: Vec<String> = row?.iter().map(|cell| escape_cell(cell)).collect();
            writeln!(out, "| {} |", cells.join(" | "))?;
        }
    }
    Ok(())
}

/// Writes the report as GitHub Actions workflow commands, as they are made.
pub fn write_github(report: &ClassReport, out: &mut dyn Write) -> io::Result<()> {
    for line in key_lines(report) {
        out.write_all(command("error", None, "leasejudge grade: key", &line).as_bytes())?;
    }
    for submission in &report.submissions {
        let file = Spot {
            file: submission.name.clone(),
            line: None,
        };
        match &submission.outcome {
            SubmissionOutcome::KeyMalformed => {}
            SubmissionOutcome::Ungradable(problems) => {
                for problem in problems.shown() {
                    let at = Spot {
                        file: problem.file.clone(),
                        line: (problem.line > 0).then_some(problem.line),
                    };
                    out.write_all(
                        command(
                            "error",
                            Some(&at),
                            "leasejudge grade: ungradable",
                            &problem.to_string(),
                        )
                        .as_bytes(),
                    )?;
                }
            }
            SubmissionOutcome::Graded(graded) => {
                for case in &graded.cases {
                    let case = case?;
                    let problems = report.problems(&case, &submission.name);
                    if !problems.is_empty() {
                        let at = Spot {
                            file: submission.located(),
                            line: case.line,
                        };
                        let title = format!(
                            "leasejudge grade: case {} {}",
                            &*case.case_id,
                            case.status.name()
                        );
                        out.write_all(
                            command("error", Some(&at), &title, &problems.join("\n")).as_bytes(),
                        )?;
                    }
                }
                for unknown in &graded.unknown {
                    let unknown = unknown?;
                    let at = Spot {
                        file: submission.located(),
                        line: Some(unknown.line),
                    };
                    let title = format!("leasejudge grade: case {} unknown", unknown.case_id);
                    out.write_all(
                        command("warning", Some(&at), &title, UnknownRow::WARNING).as_bytes(),
                    )?;
                }
            }
        }
        let level = match &submission.outcome {
            SubmissionOutcome::Graded(graded) if graded.score == report.max_score() => "notice",
            _ => "error",
        };
        out.write_all(
            command(
                level,
                Some(&file),
                "leasejudge grade: score",
                &score_line(report, submission),
            )
            .as_bytes(),
        )?;
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
    out.write_all(command(level, None, "leasejudge grade", &message).as_bytes())
}
