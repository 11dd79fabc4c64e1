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

use crate::lease::{ClockEffect, CompactString, Disposition, Phase, RowReason, Timestamp, Verdict};

use super::text::{claim_text, clock_text, state_text};
use super::witness::Witness;
use super::{CaseTrace, Rule, State, Summary, TracedRow, TracedRows};

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

/// Geometry of the SVG timeline.
const WIDTH: f64 = 1200.0;
const LABEL_WIDTH: f64 = 190.0;
const RIGHT_MARGIN: f64 = 40.0;
const AXIS_HEIGHT: f64 = 34.0;
/// A lane: three rows of mark labels, the marks on the validity bar, two rows of bar labels.
const LANE_HEIGHT: f64 = 76.0;
/// The marks' centre and the bar's top, from a lane's top.
const MARK_Y: f64 = 48.0;
const BAR_Y: f64 = 42.0;
const BAR_HEIGHT: f64 = 12.0;
/// Rows of mark labels above the marks; a label that fits in none is left out.
const LABEL_ROWS: usize = 3;
const LABEL_ROW_HEIGHT: f64 = 12.0;
/// The width of a character of the 11 px monospace labels, and the gap kept between labels.
const CHAR_WIDTH: f64 = 6.7;
const LABEL_GAP: f64 = 4.0;

/// Rows of labels, each remembering where its last label ends: a label goes in the first
/// row where it does not overlap the one before.
struct Shelves {
    ends: Vec<f64>,
}

impl Shelves {
    fn new(rows: usize) -> Shelves {
        Shelves {
            ends: vec![f64::NEG_INFINITY; rows],
        }
    }

    /// The row for a label from `start` to `end`, or `None` when every row is taken there.
    fn place(&mut self, start: f64, end: f64) -> Option<usize> {
        let row = self.ends.iter().position(|&e| e + LABEL_GAP <= start)?;
        self.ends[row] = end;
        Some(row)
    }
}

fn label_width(text: &str) -> f64 {
    text.chars().count() as f64 * CHAR_WIDTH
}
const BOTTOM_MARGIN: f64 = 20.0;

/// One lane: the coordinator's, or one generation and holder's.
#[derive(Clone, Debug, PartialEq, Eq)]
enum LaneKey {
    Coordinator,
    Generation(u64, CompactString),
}

/// A generation's validity window as it ended up.
struct Window {
    lane: usize,
    start: Timestamp,
    /// When it was acked, if it was.
    acked_at: Option<Timestamp>,
    /// Each superseded `expires_at` (the bar grew past it) and the renewal time that did it.
    growth: Vec<(Timestamp, Timestamp)>,
    /// The ack deadline (end of an unacked offer).
    ack_deadline: Timestamp,
    /// The final `expires_at`.
    expires_at: Timestamp,
    /// When a cancel was requested, if one was.
    cancel_requested: Option<Timestamp>,
    /// How the generation ended: expired, ack timeout, a result (with its time), or still on.
    end: WindowEnd,
    title: String,
}

enum WindowEnd {
    Open,
    Expired,
    AckTimeout,
    Result(String, Timestamp),
}

struct Timeline<'a> {
    trace: &'a Shown<'a>,
    /// The case's index on the page, for links to its trace rows.
    case_index: usize,
    lanes: Vec<(LaneKey, String)>,
    windows: Vec<Window>,
    t0: f64,
    t1: f64,
}

impl<'a> Timeline<'a> {
    fn new(trace: &'a Shown<'a>, case_index: usize) -> io::Result<Timeline<'a>> {
        let mut lanes: Vec<(LaneKey, String)> =
            vec![(LaneKey::Coordinator, "coordinator".to_owned())];
        let mut first = None;
        trace.rows.visit(&mut |_, row| {
            first.get_or_insert(row.source.row.observed_at);
            if let Some(identity) = row.source.row.message.identity() {
                let key = LaneKey::Generation(identity.generation, identity.holder.clone());
                if !lanes.iter().any(|(k, _)| *k == key) {
                    lanes.push((
                        key,
                        format!("gen {} · {}", identity.generation, identity.holder),
                    ));
                }
            }
            Ok(ControlFlow::Continue(()))
        })?;
        let windows = windows(trace, &lanes)?;
        let first = first
            .ok_or_else(|| io::Error::other("a case with no rows has no timeline"))?
            .unix_seconds_f64();
        let as_of = trace.verdict.as_of.unix_seconds_f64();
        let t0 = windows
            .iter()
            .map(|w| w.start.unix_seconds_f64())
            .fold(first, f64::min);
        let natural_end = windows
            .iter()
            .map(|w| match w.end {
                WindowEnd::AckTimeout => w.ack_deadline.unix_seconds_f64(),
                _ => w.expires_at.unix_seconds_f64(),
            })
            .fold(as_of, f64::max);
        // A long lease would squeeze every row into the left edge: show at most half as
        // much again after the last row, and let longer bars run off the right edge.
        let observed = as_of - t0;
        let end = if observed > 0.0 {
            natural_end.min(as_of + observed * 0.5)
        } else {
            natural_end
        };
        let span = (end - t0).max(1.0);
        Ok(Timeline {
            trace,
            case_index,
            lanes,
            windows,
            t0,
            t1: t0 + span * 1.03,
        })
    }

    fn x(&self, t: Timestamp) -> f64 {
        let fraction = (t.unix_seconds_f64() - self.t0) / (self.t1 - self.t0);
        LABEL_WIDTH + fraction.clamp(0.0, 1.0) * (WIDTH - LABEL_WIDTH - RIGHT_MARGIN)
    }

    fn lane_top(&self, lane: usize) -> f64 {
        AXIS_HEIGHT + lane as f64 * LANE_HEIGHT
    }

    fn lane_of(&self, row: &super::TracedRow) -> usize {
        match row.source.row.message.identity() {
            Some(identity) => {
                let key = LaneKey::Generation(identity.generation, identity.holder.clone());
                self.lanes.iter().position(|(k, _)| *k == key).unwrap_or(0)
            }
            None => 0,
        }
    }

    fn render(&self, out: &mut Page<'_>) -> io::Result<()> {
        let height = AXIS_HEIGHT + self.lanes.len() as f64 * LANE_HEIGHT + BOTTOM_MARGIN;
        let _ = writeln!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\" role=\"img\" aria-label=\"timeline of case {}\">",
            escape_html(self.trace.case_id)
        );
        out.push_str("<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eceff1\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#b0bec5\" stroke-width=\"2\"/></pattern></defs>\n");
        self.render_lanes(out, height);
        self.render_axis(out, height);
        for window in &self.windows {
            self.render_window(out, window);
        }
        self.render_marks(out)?;
        let x = self.x(self.trace.verdict.as_of);
        let _ = writeln!(
            out,
            "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#1b1f23\" stroke-dasharray=\"2 3\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\"><title>judged at {}</title>verdict</text>",
            AXIS_HEIGHT - 4.0,
            height - BOTTOM_MARGIN + 2.0,
            height - 5.0,
            self.trace.verdict.as_of
        );
        out.push_str("</svg>\n");
        Ok(())
    }

    fn render_lanes(&self, out: &mut Page<'_>, height: f64) {
        for (index, (_, label)) in self.lanes.iter().enumerate() {
            let top = self.lane_top(index);
            let fill = if index % 2 == 0 { "#f6f8fa" } else { "#ffffff" };
            let _ = writeln!(
                out,
                "<rect x=\"0\" y=\"{top:.1}\" width=\"{WIDTH}\" height=\"{LANE_HEIGHT}\" fill=\"{fill}\"/>"
            );
            let shown: String = if label.chars().count() > 26 {
                label.chars().take(25).chain(['…']).collect()
            } else {
                label.clone()
            };
            let _ = writeln!(
                out,
                "<text class=\"lane-label\" x=\"8\" y=\"{:.1}\"><title>{}</title>{}</text>",
                top + MARK_Y + 4.0,
                escape_html(label),
                escape_html(&shown)
            );
        }
        let _ = writeln!(
            out,
            "<line x1=\"{LABEL_WIDTH}\" y1=\"{AXIS_HEIGHT}\" x2=\"{LABEL_WIDTH}\" y2=\"{:.1}\" stroke=\"#d0d7de\"/>",
            height - BOTTOM_MARGIN
        );
    }

    fn render_axis(&self, out: &mut Page<'_>, height: f64) {
        let span = self.t1 - self.t0;
        let step = tick_step(span);
        let first = (self.t0 / step).ceil() * step;
        let mut t = first;
        let mut count = 0;
        while t <= self.t1 && count < 40 {
            let fraction = (t - self.t0) / span;
            let x = LABEL_WIDTH + fraction * (WIDTH - LABEL_WIDTH - RIGHT_MARGIN);
            let label = tick_label(t, span);
            let _ = writeln!(
                out,
                "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#e1e4e8\"/><text class=\"tick\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{label}</text>",
                AXIS_HEIGHT,
                height - BOTTOM_MARGIN,
                AXIS_HEIGHT - 10.0
            );
            t += step;
            count += 1;
        }
    }

    fn render_window(&self, out: &mut Page<'_>, window: &Window) {
        let top = self.lane_top(window.lane);
        let y = top + BAR_Y;
        let bar_height = BAR_HEIGHT;
        // Labels under the bar, placed in rows once all are known (left to right).
        let mut below: Vec<BarLabel> = Vec::new();
        let x_start = self.x(window.start);
        let _ = write!(out, "<g><title>{}</title>", escape_html(&window.title));
        // The offer before its ack: hatched up to the ack (or to the ack deadline if none).
        let offered_until = match (window.acked_at, &window.end) {
            (Some(at), _) => at,
            (None, _) => window.ack_deadline,
        };
        let x_offered = self.x(offered_until);
        let _ = write!(
            out,
            "<rect x=\"{x_start:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{bar_height}\" fill=\"url(#hatch)\" stroke=\"#90a4ae\"/>",
            (x_offered - x_start).max(1.0)
        );
        if let Some(acked_at) = window.acked_at {
            let x_ack = self.x(acked_at);
            let x_end = self.x(window.expires_at);
            let (solid_end, faded) = match &window.end {
                WindowEnd::Result(_, at) => (self.x(*at), true),
                _ => (x_end, false),
            };
            let _ = write!(
                out,
                "<rect x=\"{x_ack:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{bar_height}\" fill=\"#90caf9\" stroke=\"#1565c0\"/>",
                (solid_end - x_ack).max(1.0)
            );
            if faded && x_end > solid_end {
                let _ = write!(
                    out,
                    "<rect x=\"{solid_end:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{bar_height}\" fill=\"#e3f2fd\" stroke=\"#90caf9\" stroke-dasharray=\"3 2\"/>",
                    x_end - solid_end
                );
            }
            for (old_expiry, renewed_at) in &window.growth {
                let x_old = self.x(*old_expiry);
                let x_renew = self.x(*renewed_at);
                let _ = write!(
                    out,
                    "<line x1=\"{x_old:.1}\" y1=\"{:.1}\" x2=\"{x_old:.1}\" y2=\"{:.1}\" stroke=\"#0d47a1\" stroke-width=\"1.5\" stroke-dasharray=\"2 2\"/><line x1=\"{x_renew:.1}\" y1=\"{:.1}\" x2=\"{x_renew:.1}\" y2=\"{:.1}\" stroke=\"#0d47a1\" stroke-width=\"2\"/>",
                    y - 3.0,
                    y + bar_height + 3.0,
                    y,
                    y + bar_height
                );
            }
            if window.expires_at.unix_seconds_f64() > self.t1 {
                below.push(BarLabel::ending_at(
                    WIDTH - RIGHT_MARGIN,
                    format!("expires {} →", window.expires_at),
                    "",
                ));
            }
        }
        if let Some(at) = window.cancel_requested {
            let x = self.x(at);
            let _ = write!(
                out,
                "<path d=\"M{:.1} {:.1} l5 -7 l-10 0 z\" fill=\"#ef8f00\"/>",
                x,
                y - 1.0,
            );
            below.push(BarLabel::centred_at(x, "cancel".to_owned(), "fill:#b26a00"));
        }
        let (cap_at, cap_label, colour) = match &window.end {
            WindowEnd::Open => (None, String::new(), ""),
            WindowEnd::Expired => (Some(window.expires_at), "expired".to_owned(), "#c62828"),
            WindowEnd::AckTimeout => (
                Some(window.ack_deadline),
                "ack timeout".to_owned(),
                "#c62828",
            ),
            WindowEnd::Result(result, at) => (Some(*at), result.clone(), "#1b5e20"),
        };
        if let Some(at) = cap_at {
            let x = self.x(at);
            let _ = write!(
                out,
                "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"{colour}\" stroke-width=\"3\"/>",
                y - 4.0,
                y + bar_height + 4.0,
            );
            // Near the right edge the label goes on the left of the cap so it is not cut off.
            let style = format!("fill:{colour}");
            below.push(if x + 4.0 + label_width(&cap_label) > WIDTH - 4.0 {
                BarLabel::ending_at(x - 4.0, cap_label, &style)
            } else {
                BarLabel::starting_at(x + 4.0, cap_label, &style)
            });
        }
        below.sort_by(|a, b| a.start.total_cmp(&b.start));
        let mut shelves = Shelves::new(2);
        for label in below {
            // A label with no room is left out: the bar's hover text and the trace say it.
            if let Some(row) = shelves.place(label.start, label.start + label_width(&label.text)) {
                let _ = write!(
                    out,
                    "<text x=\"{:.1}\" y=\"{:.1}\" style=\"{}\">{}</text>",
                    label.start,
                    y + bar_height + 12.0 + row as f64 * 10.0,
                    label.style,
                    escape_html(&label.text)
                );
            }
        }
        out.push_str("</g>\n");
    }

    fn render_marks(&self, out: &mut Page<'_>) -> io::Result<()> {
        // Rows at the same instant in one lane are nudged apart so each stays visible.
        let mut last_x: Vec<f64> = vec![f64::NEG_INFINITY; self.lanes.len()];
        let mut shelves: Vec<Shelves> = (0..self.lanes.len())
            .map(|_| Shelves::new(LABEL_ROWS))
            .collect();
        each_row(self.trace.rows, &mut |index, row, before| {
            let lane = self.lane_of(row);
            let mut x = self.x(row.source.row.observed_at);
            if x < last_x[lane] + 9.0 {
                x = last_x[lane] + 9.0;
            }
            last_x[lane] = x;
            let y = self.lane_top(lane) + MARK_Y;
            let colour = disposition_colour(row.outcome.disposition);
            let mut title = format!(
                "line {}: {} at {}\n{}",
                row.source.line,
                row.source.row.message.event(),
                row.source.row.observed_at,
                claim_text(&row.source.row)
            );
            if let (Some(effect), Some(before)) = (row.outcome.clock, before) {
                let _ = write!(title, "\nclock: {}", clock_text(effect, before));
            }
            let _ = write!(
                title,
                "\n{} {}\nafter: {}",
                row.outcome.disposition,
                row.outcome.reason,
                state_text(&row.after)
            );
            let shape = match row.outcome.disposition {
                d if crosses(d) => format!(
                    "<path d=\"M{:.1} {:.1} l12 12 m0 -12 l-12 12\" stroke=\"{colour}\" stroke-width=\"3.5\"/>",
                    x - 6.0,
                    y - 6.0
                ),
                _ => format!(
                    "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"6.5\" fill=\"{colour}\" stroke=\"#fff\" stroke-width=\"1.5\"/>"
                ),
            };
            let shape = match self.trace.witness.is_some_and(|w| w.contains(index)) {
                true => format!("<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"9\" fill=\"none\" stroke=\"#1565c0\" stroke-width=\"2\"/>{shape}"),
                false => shape,
            };
            let text = format!("L{} {}", row.source.line, short_event(row));
            // Near the right edge a label moves left, so that it is not cut off.
            let start = (x - 4.0).min(WIDTH - 2.0 - label_width(&text));
            let label = match shelves[lane].place(start, start + label_width(&text)) {
                Some(level) => format!(
                    "<text x=\"{start:.1}\" y=\"{:.1}\">{}</text>",
                    y - 11.0 - level as f64 * LABEL_ROW_HEIGHT,
                    escape_html(&text)
                ),
                // No room in any row: the mark keeps its link and hover text.
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "<a class=\"mark\" href=\"#{}\"><title>{}</title>{shape}{label}</a>",
                row_id(self.case_index, index),
                escape_html(&title),
            );
            out.hand_on(HAND_ON_AT)
        })
    }
}

/// A label under a validity bar: its text, where it starts, and its style.
struct BarLabel {
    start: f64,
    text: String,
    style: String,
}

impl BarLabel {
    fn starting_at(x: f64, text: String, style: &str) -> BarLabel {
        BarLabel {
            start: x,
            text,
            style: style.to_owned(),
        }
    }

    fn ending_at(x: f64, text: String, style: &str) -> BarLabel {
        BarLabel {
            start: x - label_width(&text),
            text,
            style: style.to_owned(),
        }
    }

    fn centred_at(x: f64, text: String, style: &str) -> BarLabel {
        BarLabel {
            start: x - label_width(&text) / 2.0,
            text,
            style: style.to_owned(),
        }
    }
}

fn short_event(row: &super::TracedRow) -> String {
    use crate::lease::Message;
    match &row.source.row.message {
        Message::Renew { renew_seq, .. } => format!("renew {renew_seq}"),
        Message::Progress { progress_seq, .. } => format!("progress {progress_seq}"),
        Message::Result { result, .. } => format!("result {result}"),
        message => message.event().to_string(),
    }
}

/// The validity window of every generation that was accepted (offered or reassigned), in
/// one pass over the rows: a window is finished at the next accepted offer, or at the end.
fn windows(trace: &Shown<'_>, lanes: &[(LaneKey, String)]) -> io::Result<Vec<Window>> {
    let mut windows = Vec::new();
    let mut open: Option<Opened> = None;
    let mut before: Option<State> = None;
    trace.rows.visit(&mut |_, row| {
        let made_current = row.outcome.disposition == Disposition::Accepted
            && matches!(
                row.outcome.reason,
                RowReason::Offered | RowReason::Reassigned
            );
        if made_current {
            if let (Some(opened), Some(before)) = (open.take(), &before) {
                // The reassigning row's clock step may have ended the old generation.
                let mut state = before.clone();
                if let Some(effect) = row.outcome.clock {
                    state.lease.phase = match effect {
                        ClockEffect::AckTimedOut => Phase::AckTimeout,
                        ClockEffect::Expired => Phase::Expired,
                    };
                }
                windows.push(opened.finish(&state, trace.verdict, lanes));
            }
            open = Some(Opened::at(row));
        } else if let Some(opened) = &mut open {
            opened.step(row);
        }
        before = Some(row.after.clone());
        Ok(ControlFlow::Continue(()))
    })?;
    if let (Some(opened), Some(before)) = (open, before) {
        // The last generation's final state includes the verdict's own clock step.
        let state = State {
            lease: trace.verdict.lease.clone(),
            ..before
        };
        windows.push(opened.finish(&state, trace.verdict, lanes));
    }
    Ok(windows)
}

/// A generation's validity window while its rows are seen: its accepted offer's lease, and
/// what the rows after it did.
struct Opened {
    offer: crate::lease::Lease,
    acked_at: Option<Timestamp>,
    growth: Vec<(Timestamp, Timestamp)>,
    expires_at: Timestamp,
    result_at: Option<Timestamp>,
}

impl Opened {
    /// The window the accepted offer `row` opens.
    fn at(row: &TracedRow) -> Opened {
        let offer = row.after.lease.clone();
        Opened {
            expires_at: offer.expires_at,
            offer,
            acked_at: None,
            growth: Vec::new(),
            result_at: None,
        }
    }

    /// A row of the generation's after its offer (up to the next accepted offer).
    fn step(&mut self, row: &TracedRow) {
        let lease = &row.after.lease;
        if row.outcome.disposition == Disposition::Accepted {
            match row.outcome.reason {
                RowReason::Acked => self.acked_at = Some(row.source.row.observed_at),
                RowReason::Renewed => {
                    self.growth
                        .push((self.expires_at, row.source.row.observed_at));
                }
                RowReason::ResultAccepted => self.result_at = Some(row.source.row.observed_at),
                _ => {}
            }
        }
        self.expires_at = lease.expires_at;
    }

    /// The window as it ended, in `final_state`.
    fn finish(self, final_state: &State, verdict: &Verdict, lanes: &[(LaneKey, String)]) -> Window {
        let Opened {
            offer,
            acked_at,
            growth,
            result_at,
            ..
        } = self;
        let identity = offer.identity();
        let key = LaneKey::Generation(identity.generation, identity.holder.clone());
        let lane = lanes.iter().position(|(k, _)| *k == key).unwrap_or(0);
        let lease = &final_state.lease;
        let window_end = match lease.phase {
            Phase::Expired => WindowEnd::Expired,
            Phase::AckTimeout => WindowEnd::AckTimeout,
            Phase::Terminal(result) => {
                WindowEnd::Result(result.to_string(), result_at.unwrap_or(verdict.as_of))
            }
            Phase::Offered | Phase::Active => WindowEnd::Open,
        };
        let title = format!(
            "generation {} ({}, lease {})\nissued_at {}, ack_deadline {}, acked {}\nexpires_at {} after {} renewal{}\nphase {}",
            identity.generation,
            identity.holder,
            identity.lease_id,
            offer.offer.terms.issued_at,
            offer.offer.terms.ack_deadline,
            super::or_dash(acked_at),
            lease.expires_at,
            growth.len(),
            if growth.len() == 1 { "" } else { "s" },
            lease.phase
        );
        Window {
            lane,
            start: offer.offer.terms.issued_at,
            acked_at,
            growth,
            ack_deadline: offer.offer.terms.ack_deadline,
            expires_at: lease.expires_at,
            cancel_requested: lease.cancel_requested,
            end: window_end,
            title,
        }
    }
}

/// A round tick interval giving about eight ticks over `span` seconds.
fn tick_step(span: f64) -> f64 {
    const STEPS: [f64; 22] = [
        0.001, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0,
        1800.0, 3600.0, 7200.0, 21600.0, 43200.0, 86400.0, 604800.0,
    ];
    let target = span / 8.0;
    STEPS
        .iter()
        .copied()
        .find(|s| *s >= target)
        .unwrap_or_else(|| (target / 86400.0).ceil() * 86400.0)
}

/// A tick's label: time of day for short spans, the date for long ones.
fn tick_label(t: f64, span: f64) -> String {
    let seconds = t.floor() as i64;
    let Some(time) = chrono::DateTime::from_timestamp(seconds, 0) else {
        return String::new();
    };
    if span > 3.0 * 86400.0 {
        time.format("%Y-%m-%d").to_string()
    } else if span > 86400.0 {
        time.format("%m-%d %H:%M").to_string()
    } else if span < 5.0 {
        let millis = ((t - t.floor()) * 1000.0).round() as i64;
        format!("{}.{millis:03}", time.format("%H:%M:%S"))
    } else {
        time.format("%H:%M:%S").to_string()
    }
}
