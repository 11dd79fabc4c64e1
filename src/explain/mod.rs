//! Explaining decisions: a case replayed row by row with the state after each row, the
//! contract rule that chose its verdict, one plain-English sentence, and renderings of all
//! that as text, JSON, Mermaid and HTML.
//!
//! A [`CaseTrace`] is a pure function of a case's rows (and the run's `--as-of`): it replays
//! them with [`Case::start`] and [`Case::step`], the same calls adjudication makes, so the
//! verdict it shows is the verdict the matrix has.

pub mod html;
pub mod json;
mod json_write;
pub mod mermaid;
pub mod sentence;
pub mod stream;
pub mod text;
pub mod witness;

use std::ops::ControlFlow;

use crate::lease::{
    Case, CaseFault, CaseReason, ConflictKind, Disposition, Lease, Outcome, ReasonPrecedence, Row,
    RowReason, Timestamp, Verdict,
};
use crate::matrix::MatrixRow;

/// An output format of `leasejudge explain`, written one case at a time so that a large run
/// never holds more than one replayed case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// A step-by-step trace for the terminal.
    Text,
    /// The trace as one JSON array of case objects.
    Json,
    /// Markdown with one Mermaid sequence diagram per case.
    Mermaid,
    /// One self-contained HTML page with a timeline per case.
    Html,
}

crate::choice::choices!(Format {
    Text => "text",
        "A step-by-step trace for the terminal";
    Json => "json",
        "The trace as one JSON array of case objects";
    Mermaid => "mermaid",
        "Markdown with one Mermaid sequence diagram per case";
    Html => "html",
        "One self-contained HTML page with a timeline per case";
});

impl Format {
    /// What an output in this format holds.
    pub fn content(self) -> crate::output::Content {
        match self {
            Format::Text | Format::Mermaid => crate::output::Content::Text,
            Format::Json => crate::output::Content::Json,
            Format::Html => crate::output::Content::Markup,
        }
    }

    /// What comes before the first case, given how many cases follow.
    pub fn start(self, cases: usize) -> String {
        match self {
            Format::Text => String::new(),
            Format::Json => json::start(),
            Format::Mermaid => mermaid::start(),
            Format::Html => html::start(cases),
        }
    }

    /// One case, the `index`-th (from 0).
    pub fn case(self, index: usize, trace: &CaseTrace) -> String {
        match self {
            Format::Text => text::case(index, trace),
            Format::Json => json::case(index, trace),
            Format::Mermaid => mermaid::case(trace),
            Format::Html => html::case(index, trace),
        }
    }

    /// The note, after [`Format::start`], that only the first `shown` cases are there and
    /// `left_out` more were left out (HTML and Mermaid, which `--limit` applies to).
    pub fn omitted(self, shown: usize, left_out: usize) -> String {
        let text = format!(
            "Only the first {shown} cases are shown; {left_out} more were left out. Run leasejudge \
             explain with --case ID to choose cases, or --limit N (0 for all) to show more."
        );
        match self {
            Format::Html => format!("<p class=\"omitted\">{}</p>\n", html::escape_html(&text)),
            Format::Mermaid => format!("\n> **Note.** {text}\n"),
            Format::Text | Format::Json => String::new(),
        }
    }

    /// What comes after the last case.
    pub fn end(self, cases: usize) -> String {
        match self {
            Format::Text | Format::Mermaid => String::new(),
            Format::Json => json::end(cases),
            Format::Html => html::end(),
        }
    }

    /// Every trace in this format, as one string.
    pub fn render(self, traces: &[CaseTrace]) -> String {
        let mut out = self.start(traces.len());
        for (index, trace) in traces.iter().enumerate() {
            out.push_str(&self.case(index, trace));
        }
        out.push_str(&self.end(traces.len()));
        out
    }
}

/// One input row of a case with where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourcedRow {
    /// The file as named on the command line.
    pub file: String,
    /// The row's line in that file.
    pub line: u64,
    /// The typed row.
    pub row: Row,
}

/// The case's record right after a row: the current generation and the whole-case findings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// The current generation.
    pub lease: Lease,
    /// The distinct stale generation numbers seen so far, ascending.
    pub stale_generations: Vec<u64>,
    /// The distinct late progress sequence numbers seen so far, ascending.
    pub late_progress: Vec<u64>,
    /// The first ownership conflict, once there is one.
    pub conflict: Option<ConflictKind>,
}

impl State {
    pub(crate) fn of(case: &Case) -> State {
        State {
            lease: case.lease().clone(),
            stale_generations: case.stale_generations().iter().copied().collect(),
            late_progress: case.late_progress().iter().copied().collect(),
            conflict: case.conflict(),
        }
    }
}

/// One replayed row: the row, what it did, and the state after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TracedRow {
    /// The row and its location.
    pub source: SourcedRow,
    /// The clock step's effect, the disposition and the row reason.
    pub outcome: Outcome,
    /// The record after the row was applied.
    pub after: State,
}

/// What [`TracedRows::visit`] calls with each row and its index: whether to go on, or an
/// error that ends the pass and is returned.
pub type VisitRow<'a> = &'a mut dyn FnMut(usize, &TracedRow) -> std::io::Result<ControlFlow<()>>;

/// A case's replayed rows, seen in order: from memory ([`CaseTrace::rows`]), or replayed
/// again, a pass at a time, from rows kept in a temporary file (a case too long to hold).
pub trait TracedRows {
    /// How many rows there are.
    fn len(&self) -> usize;

    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `visit` with each row and its index, in order, until it breaks or fails (an
    /// error of its own, writing; or the rows could not be read back).
    fn visit(&self, visit: VisitRow<'_>) -> std::io::Result<()>;
}

impl TracedRows for Vec<TracedRow> {
    fn len(&self) -> usize {
        Vec::len(self)
    }

    fn visit(&self, visit: VisitRow<'_>) -> std::io::Result<()> {
        for (index, row) in self.iter().enumerate() {
            if visit(index, row)?.is_break() {
                break;
            }
        }
        Ok(())
    }
}

/// What a case's trace says besides its rows, for a case whose rows are seen a pass at a
/// time ([`TracedRows`]) rather than held in a [`CaseTrace`].
pub(crate) struct Summary {
    /// The case id.
    pub(crate) case_id: String,
    /// The case's job id.
    pub(crate) job_id: String,
    /// The file the case came from.
    pub(crate) file: String,
    /// How many rows it has.
    pub(crate) rows: usize,
    /// The verdict.
    pub(crate) verdict: Verdict,
    /// The case's row of the evidence matrix.
    pub(crate) matrix: MatrixRow,
    /// The state after the last row.
    pub(crate) last: State,
    /// The last row's `observed_at`.
    pub(crate) last_observed_at: Timestamp,
    /// Its witness, when one was asked for.
    pub(crate) witness: Option<witness::Witness>,
}

/// A whole case replayed: every row with its outcome and state, then the verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseTrace {
    /// The case id.
    pub case_id: String,
    /// The case's job id.
    pub job_id: String,
    /// The rows in file order.
    pub rows: Vec<TracedRow>,
    /// The verdict, judged as adjudication judges it.
    pub verdict: Verdict,
    /// The case's row of the evidence matrix.
    pub matrix: MatrixRow,
    /// Its minimal witness, when one was asked for ([`witness::of_trace`]).
    pub witness: Option<witness::Witness>,
}

impl CaseTrace {
    /// Replays `rows` (one case's rows, in file order) and judges the case at its last
    /// `observed_at` or `run_as_of` if later. Fails at the first row the core refuses, giving
    /// that row back; `Ok(None)` when there are no rows.
    pub fn replay(
        case_id: &str,
        rows: Vec<SourcedRow>,
        run_as_of: Option<Timestamp>,
    ) -> Result<Option<CaseTrace>, Box<(SourcedRow, CaseFault)>> {
        let mut rows = rows.into_iter();
        let Some(first) = rows.next() else {
            return Ok(None);
        };
        let (mut case, outcome) = match Case::start(&first.row) {
            Ok(started) => started,
            Err(fault) => return Err(Box::new((first, fault))),
        };
        let mut traced = Vec::with_capacity(rows.len() + 1);
        traced.push(TracedRow {
            after: State::of(&case),
            source: first,
            outcome,
        });
        for source in rows {
            let outcome = match case.step(&source.row) {
                Ok(outcome) => outcome,
                Err(fault) => return Err(Box::new((source, fault))),
            };
            traced.push(TracedRow {
                after: State::of(&case),
                source,
                outcome,
            });
        }
        let verdict = case.verdict(run_as_of);
        Ok(Some(CaseTrace {
            case_id: case_id.to_owned(),
            job_id: case.job_id().to_owned(),
            matrix: MatrixRow::new(case_id, &case, &verdict),
            rows: traced,
            verdict,
            witness: None,
        }))
    }

    /// The file the case came from.
    pub fn file(&self) -> &str {
        &self.rows[0].source.file
    }

    /// The index of the row that made the current generation current (its accepted offer).
    pub fn current_since(&self) -> usize {
        self.rows
            .iter()
            .rposition(|r| {
                r.outcome.disposition == Disposition::Accepted
                    && matches!(r.outcome.reason, RowReason::Offered | RowReason::Reassigned)
            })
            .unwrap_or(0)
    }

    /// The state just before row `index` (the clock step of that row has not run yet).
    pub fn before(&self, index: usize) -> Option<&State> {
        index.checked_sub(1).map(|i| &self.rows[i].after)
    }

    /// The contract rule that chose the verdict.
    pub fn rule(&self) -> Rule {
        Rule::of(&self.verdict)
    }

    /// The one-sentence explanation of the verdict.
    pub fn sentence(&self) -> String {
        sentence::sentence(self)
    }
}

/// One entry of a reason-precedence list (spec section 5, reason table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReasonRule {
    /// The reason.
    pub reason: CaseReason,
    /// When it applies.
    pub condition: &'static str,
}

/// The rule of the contract that chose a verdict: the decision-table row, and the reason
/// precedence list for that decision with the entry that applied first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The decision-table row (1 to 7).
    pub table_row: u8,
    /// That row's condition.
    pub condition: &'static str,
    /// The reasons for the decision, in precedence order.
    pub precedence: Vec<ReasonRule>,
    /// The index in `precedence` of the reason chosen.
    pub chosen: usize,
}

impl Rule {
    /// The rule behind `verdict`, from the contract's table ([`crate::lease::Decision::reason_precedence`]).
    pub fn of(verdict: &Verdict) -> Rule {
        let decision = verdict.decision;
        let precedence: Vec<ReasonRule> = match decision.reason_precedence() {
            ReasonPrecedence::FirstConflict => vec![ReasonRule {
                reason: verdict.reason,
                condition: "the reason of the first CONFLICT row",
            }],
            ReasonPrecedence::FirstThatApplies(list) => list
                .iter()
                .map(|&(reason, condition)| ReasonRule { reason, condition })
                .collect(),
        };
        // The engine gives a decision only a reason of its row (`decide` checks it against
        // [`CaseReason::decision_row`]; the lease module's tests, the table against itself).
        let chosen = precedence
            .iter()
            .position(|r| r.reason == verdict.reason)
            .expect("the verdict's reason is in its decision's precedence list");
        Rule {
            table_row: decision.table_row(),
            condition: decision.table_condition(),
            precedence,
            chosen,
        }
    }

    /// The decision rule as one line: `table row 6 (phase = ACTIVE); rows 1-5 do not apply`.
    pub fn decision_text(&self) -> String {
        let mut text = format!("decision table row {} ({})", self.table_row, self.condition);
        match self.table_row {
            1 => text.push_str(", which comes first"),
            2 => text.push_str("; row 1 does not apply"),
            n => text.push_str(&format!("; rows 1-{} do not apply", n - 1)),
        }
        text
    }

    /// The reason rule as one line, the chosen entry in brackets.
    pub fn reason_text(&self) -> String {
        let entries: Vec<String> = self
            .precedence
            .iter()
            .enumerate()
            .map(|(i, r)| {
                if i == self.chosen {
                    format!("[{} ({})]", r.reason.as_str(), r.condition)
                } else {
                    format!("{} ({})", r.reason.as_str(), r.condition)
                }
            })
            .collect();
        format!("first that applies: {}", entries.join(", else "))
    }
}

/// A timestamp or `-` for none.
pub(crate) fn or_dash<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

/// `html` with each timestamp (`2026-01-01T10:00:00Z`, a fraction or not) kept on one line:
/// a browser would break it after a hyphen.
pub(crate) fn nowrap_timestamps(html: &str) -> String {
    let bytes = html.as_bytes();
    let digits = |at: usize, n: usize| {
        bytes
            .get(at..at + n)
            .is_some_and(|part| part.iter().all(u8::is_ascii_digit))
    };
    let starts_at = |at: usize| {
        digits(at, 4)
            && bytes.get(at + 4) == Some(&b'-')
            && digits(at + 5, 2)
            && bytes.get(at + 7) == Some(&b'-')
            && digits(at + 8, 2)
            && bytes.get(at + 10) == Some(&b'T')
    };
    let mut out = String::with_capacity(html.len() + 32);
    let mut copied = 0;
    let mut at = 0;
    while at + 11 <= bytes.len() {
        if (at == 0 || !bytes[at - 1].is_ascii_digit()) && starts_at(at) {
            // The clock part: digits, `:` and a fraction's `.`, then `Z`.
            let clock = html[at + 11..]
                .find(|c: char| !(c.is_ascii_digit() || c == ':' || c == '.'))
                .map_or(html.len(), |n| at + 11 + n);
            if bytes.get(clock) != Some(&b'Z') {
                at += 1;
                continue;
            }
            let end = clock + 1;
            out.push_str(&html[copied..at]);
            out.push_str("<span class=\"nw\">");
            out.push_str(&html[at..end]);
            out.push_str("</span>");
            copied = end;
            at = end;
        } else {
            at += 1;
        }
    }
    out.push_str(&html[copied..]);
    out
}

#[cfg(test)]
mod nowrap_tests {
    use super::nowrap_timestamps;

    #[test]
    fn timestamps_are_kept_on_one_line_and_nothing_else_is_touched() {
        assert_eq!(
            nowrap_timestamps("at 2026-01-01T10:00:00Z, expires_at 2026-01-01T10:00:30.5Z"),
            "at <span class=\"nw\">2026-01-01T10:00:00Z</span>, expires_at \
             <span class=\"nw\">2026-01-01T10:00:30.5Z</span>"
        );
        // Not a timestamp of ours: left as it is, and no span across markup.
        for text in [
            "2026-01-01Tx<br>Z",
            "12026-01-01T10:00:00Z",
            "2026-01-01T10:00",
            "x",
        ] {
            assert_eq!(nowrap_timestamps(text), text);
        }
    }
}
