//! The trace as one self-contained HTML page: per case, the verdict sentence above an inline
//! SVG timeline (a lane per generation and holder, the lease validity window as a bar that
//! grows on renewals and ends at expiry, each row a mark coloured by its disposition), and the
//! full trace as a table that is always shown (so that it prints and needs no hover). A mark
//! links to its row of the table, which is then highlighted: a click pins it, without
//! scripts. Labels of marks close in time are stacked in up to three rows, and thinned
//! beyond that (the mark and its table row remain), so that no two labels overlap.
//!
//! No scripts, fonts or images are fetched: the page is CSS and SVG only. Everything from the
//! case file is HTML-escaped.

use std::fmt::Write as _;
use std::io;
use std::ops::ControlFlow;

use crate::lease::{Disposition, Verdict};

use super::text::{claim_text, clock_text, state_text};
use super::witness::Witness;
use super::{CaseTrace, Rule, State, Summary, TracedRow, TracedRows};

mod timeline;

use timeline::Timeline;

/// Escapes `& < > " '` for HTML text and attribute values, after showing what a reader could
/// not see (controls, zero-width and bidirectional characters) as `\u{200b}`: a character
/// reference would draw it invisibly again. Line breaks stay (for the caller to place).
pub fn escape_html(text: &str) -> String {
    let text = crate::output::escape_controls_keep_lines(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Whether a disposition's marks are drawn as a cross (a claim that did not count) rather
/// than a dot, so the difference does not rest on colour alone.
fn crosses(disposition: Disposition) -> bool {
    matches!(
        disposition,
        Disposition::Rejected | Disposition::Conflict | Disposition::Blocked
    )
}

/// The colour of a disposition's marks.
pub fn disposition_colour(disposition: Disposition) -> &'static str {
    match disposition {
        Disposition::Accepted => "#2e7d32",
        Disposition::Duplicate => "#78909c",
        Disposition::Recorded => "#ef8f00",
        Disposition::Rejected => "#c62828",
        Disposition::Conflict => "#8e24aa",
        Disposition::Blocked => "#37474f",
    }
}

const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:24px;color:#1b1f23;background:#fafafa}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:18px;margin:0 0 6px}
.sub{color:#586069;margin:0 0 16px}
.omitted{background:#fff8c5;border:1px solid #d4a72c;border-radius:6px;padding:8px 12px;margin:0 0 16px}
.case{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:16px 18px;margin:0 0 20px}
.verdict{display:inline-block;font-size:13px;font-weight:600;padding:2px 8px;border-radius:10px;margin-left:8px;color:#fff;vertical-align:middle}
.sentence{font-size:15px;line-height:1.45;margin:6px 0 10px}
.legend{display:flex;flex-wrap:wrap;gap:14px;font-size:13px;color:#444;margin:0 0 16px}
.legend span{display:inline-flex;align-items:center;gap:5px}
.dot{width:11px;height:11px;border-radius:50%;display:inline-block}
.swatch{width:22px;height:9px;display:inline-block;border:1px solid #1565c0;background:#90caf9}
svg{max-width:100%;height:auto;display:block}
.timeline{overflow-x:auto}
.timeline svg{min-width:960px}
.nw{white-space:nowrap}
svg text{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:11px;fill:#333}
svg .lane-label{font-family:system-ui,sans-serif;font-size:12px;fill:#24292f}
svg .tick{fill:#6a737d;font-size:10px}
.trace{margin-top:8px;font-size:13px;overflow-x:auto}
table{border-collapse:collapse;margin-top:8px;width:100%;min-width:760px}
th,td{border:1px solid #d8dee4;padding:3px 6px;text-align:left;vertical-align:top;font-family:ui-monospace,monospace;font-size:12px}
th{background:#f3f4f6}
td.d{font-weight:600}
tr:target{background:#fff3b0;outline:2px solid #d4a72c}
.witness{border-left:4px solid #1565c0;padding-left:8px}
tr.witness td:first-child{border-left:4px solid #1565c0;font-weight:600}
svg a{cursor:pointer}
svg a:focus circle,svg a:hover circle{stroke:#1b1f23;stroke-width:2.5}
svg a:focus path,svg a:hover path{stroke-width:5}
@media print{body{margin:0;background:#fff}.case{break-inside:avoid-page;border:none}tr:target{outline:none}}
";

/// The page up to the first case: head, style, title and legend.
pub fn start(cases: usize) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<title>leasejudge explain</title>\n<style>\n");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n<h1>leasejudge explain</h1>\n");
    let _ = writeln!(
        out,
        "<p class=\"sub\">{} case{}; times are the coordinator's clock (observed_at), UTC. Click a mark to pin its row in the trace below the timeline.</p>",
        cases,
        if cases == 1 { "" } else { "s" }
    );
    out.push_str("<div class=\"legend\">");
    for disposition in Disposition::ALL {
        let colour = disposition_colour(*disposition);
        let glyph = if crosses(*disposition) {
            format!("<svg width=\"12\" height=\"12\" viewBox=\"0 0 12 12\"><path d=\"M1 1 L11 11 M11 1 L1 11\" stroke=\"{colour}\" stroke-width=\"3\"/></svg>")
        } else {
            format!("<i class=\"dot\" style=\"background:{colour}\"></i>")
        };
        let _ = write!(out, "<span>{glyph}{disposition}</span>");
    }
    out.push_str("<span><i class=\"swatch\"></i>lease validity window (grows on renewals)</span>");
    out.push_str("<span><i class=\"swatch\" style=\"background:#eceff1;border-color:#90a4ae\"></i>offered, not acked</span>");
    out.push_str("</div>\n");
    out
}

/// One case's section: verdict, sentence, timeline and trace table.
pub fn case(index: usize, trace: &CaseTrace) -> String {
    let mut out = Page::held();
    let shown = Shown {
        case_id: &trace.case_id,
        job_id: &trace.job_id,
        file: trace.file(),
        verdict: &trace.verdict,
        rows: &trace.rows,
        sentence: &trace.sentence(),
        witness: trace.witness.as_ref(),
    };
    render_case(&mut out, &shown, index).expect("rows in memory are always seen");
    out.text
}

/// [`case`] written to `out` as it is made, for a case whose rows are seen a pass at a time
/// (`summary` from a first pass, `sentence` from [`super::sentence::sentence_of`]).
pub(crate) fn write_case(
    out: &mut dyn io::Write,
    index: usize,
    summary: &Summary,
    rows: &dyn TracedRows,
    sentence: &str,
) -> io::Result<()> {
    let mut page = Page {
        text: String::new(),
        sink: Some(out),
    };
    let shown = Shown {
        case_id: &summary.case_id,
        job_id: &summary.job_id,
        file: &summary.file,
        verdict: &summary.verdict,
        rows,
        sentence,
        witness: summary.witness.as_ref(),
    };
    render_case(&mut page, &shown, index)?;
    page.hand_on(0)
}

/// What a case's section shows: the case, its verdict and sentence, and its rows (seen a
/// pass at a time).
struct Shown<'a> {
    case_id: &'a str,
    job_id: &'a str,
    file: &'a str,
    verdict: &'a Verdict,
    rows: &'a dyn TracedRows,
    sentence: &'a str,
    /// Its witness, marked (a ring on the timeline, a bar beside the trace's rows).
    witness: Option<&'a Witness>,
}

/// A case's section as it is written: held whole, or handed on to `sink` a row or so at a
/// time (a case too long to hold).
struct Page<'a> {
    text: String,
    sink: Option<&'a mut dyn io::Write>,
}

impl Page<'_> {
    /// A section held whole.
    fn held() -> Page<'static> {
        Page {
            text: String::new(),
            sink: None,
        }
    }

    fn push_str(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// Hands the text on to the sink, if there is one, once it holds `at_least` bytes.
    fn hand_on(&mut self, at_least: usize) -> io::Result<()> {
        if let Some(sink) = &mut self.sink {
            if self.text.len() >= at_least {
                sink.write_all(self.text.as_bytes())?;
                self.text.clear();
            }
        }
        Ok(())
    }
}

impl std::fmt::Write for Page<'_> {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        self.text.push_str(text);
        Ok(())
    }
}

/// How much of a section is held before it is handed on.
const HAND_ON_AT: usize = 1 << 16;

/// What [`each_row`] calls with a row's index, the row, and the state before it.
type EachRow<'a> = &'a mut dyn FnMut(usize, &TracedRow, Option<&State>) -> io::Result<()>;

/// Calls `each` with every row of `rows`, its index and the state before it (none for the
/// first); an error of `each` (writing) ends the pass and is returned.
fn each_row(rows: &dyn TracedRows, each: EachRow<'_>) -> io::Result<()> {
    let mut before: Option<State> = None;
    rows.visit(&mut |index, row| {
        each(index, row, before.as_ref())?;
        before = Some(row.after.clone());
        Ok(ControlFlow::Continue(()))
    })
}

/// The end of the page.
pub fn end() -> String {
    "</body>\n</html>\n".to_owned()
}

fn verdict_colour(verdict: &Verdict) -> &'static str {
    use crate::lease::Decision::*;
    match verdict.decision {
        Success | Active => "#2e7d32",
        PendingAck => "#00838f",
        Failed | Cancelled => "#b26a00",
        OwnershipConflict => "#8e24aa",
        ReconciliationRequired | Expired | AckTimeout => "#c62828",
    }
}

fn render_case(out: &mut Page<'_>, trace: &Shown<'_>, index: usize) -> io::Result<()> {
    let verdict = trace.verdict;
    let _ = writeln!(out, "<section class=\"case\" id=\"case-{}\">", index + 1);
    let _ = writeln!(
        out,
        "<h2>Case {} <small>(job {}, {})</small><span class=\"verdict\" style=\"background:{}\">{} ({})</span></h2>",
        escape_html(trace.case_id),
        escape_html(trace.job_id),
        escape_html(trace.file),
        verdict_colour(verdict),
        verdict.decision,
        verdict.reason
    );
    let _ = writeln!(
        out,
        "<p class=\"sentence\">{}</p>",
        escape_html(trace.sentence)
    );
    if let Some(witness) = trace.witness {
        let _ = writeln!(
            out,
            "<p class=\"witness\">Witness: {} (line{} {}), ringed on the timeline and marked * in the trace: {}.</p>",
            witness.size_text(),
            if witness.len() == 1 { "" } else { "s" },
            witness.lines_text(),
            escape_html(&witness.claim_text())
        );
    }
    // On a narrow screen the timeline keeps a readable size and scrolls in its own box, as
    // the trace table does.
    out.push_str("<div class=\"timeline\">");
    Timeline::new(trace, index)?.render(out)?;
    out.push_str("</div>\n");
    render_table(out, trace, index)?;
    out.push_str("</section>\n");
    Ok(())
}

/// The id of row `row` (from 0) of case `case` (from 0) in the trace table.
fn row_id(case: usize, row: usize) -> String {
    format!("case-{}-row-{}", case + 1, row + 1)
}

fn render_table(out: &mut Page<'_>, trace: &Shown<'_>, case_index: usize) -> io::Result<()> {
    let rule = Rule::of(trace.verdict);
    let _ = writeln!(
        out,
        "<div class=\"trace\"><p>Trace: {} row{}, then the verdict</p>",
        trace.rows.len(),
        if trace.rows.len() == 1 { "" } else { "s" }
    );
    out.push_str("<table>\n<tr><th>line</th><th>observed_at</th><th>event</th><th>claims</th><th>outcome</th><th>state after</th></tr>\n");
    each_row(trace.rows, &mut |index, row, before| {
        let mut outcome = format!("{} {}", row.outcome.disposition, row.outcome.reason);
        if let (Some(effect), Some(before)) = (row.outcome.clock, before) {
            outcome = format!("clock: {}\n{outcome}", clock_text(effect, before));
        }
        let marked = trace.witness.is_some_and(|witness| witness.contains(index));
        let _ = writeln!(
            out,
            "<tr id=\"{}\"{}><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"d\" style=\"color:{}\">{}</td><td>{}</td></tr>",
            row_id(case_index, index),
            if marked { " class=\"witness\" title=\"a witness row\"" } else { "" },
            if marked { "* " } else { "" },
            row.source.line,
            super::nowrap_timestamps(&row.source.row.observed_at.to_string()),
            row.source.row.message.event(),
            super::nowrap_timestamps(&escape_html(&claim_text(&row.source.row))),
            disposition_colour(row.outcome.disposition),
            super::nowrap_timestamps(&escape_html(&outcome)).replace('\n', "<br>"),
            super::nowrap_timestamps(&escape_html(&state_text(&row.after)))
        );
        out.hand_on(HAND_ON_AT)
    })?;
    out.push_str("</table>\n");
    let _ = writeln!(
        out,
        "<p>Verdict at {}: <b>{}</b>, {}.<br><b>{}</b>, {}.</p>",
        trace.verdict.as_of,
        trace.verdict.decision,
        escape_html(&rule.decision_text()),
        trace.verdict.reason,
        escape_html(&rule.reason_text())
    );
    out.push_str("</div>\n");
    Ok(())
}
