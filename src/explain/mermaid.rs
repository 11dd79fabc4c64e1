//! The trace as Markdown with one Mermaid `sequenceDiagram` per case: the coordinator and
//! each holder as participants, every row an arrow labelled with its event and disposition,
//! notes for clock effects (ack timeouts, expiry), reassignments, conflicts and the verdict.
//!
//! Everything from the case file is escaped: Mermaid entity codes (`#45;`) inside diagrams,
//! Markdown backslash escapes outside them.

use std::fmt::Write as _;
use std::io;
use std::ops::ControlFlow;

use crate::lease::{ClockEffect, CompactString, Disposition, Message, RowReason, Verdict};
use crate::output::{escape_controls, escape_markdown};

use super::witness::Witness;
use super::{CaseTrace, State, Summary, TracedRow, TracedRows};

/// The document's title.
pub fn start() -> String {
    "# leasejudge explain\n".to_owned()
}

/// One case's section: a heading, the sentence and the diagram.
pub fn case(trace: &CaseTrace) -> String {
    let mut out = String::from("\n");
    render_case(&mut out, trace);
    out
}

/// Escapes text for a Mermaid label with entity codes (`#59;`): only letters, digits, spaces
/// and `_ . ( ) /` stay as they are, and `-` unless it could start an arrow. `colon_ok`
/// keeps `:` (safe in message and note text, not in participant names).
pub fn escape_mermaid(text: &str, colon_ok: bool) -> String {
    // What cannot be seen is shown first (an entity code would draw it invisibly again).
    let text = crate::output::escape_message(text);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let keep = match c {
            ' ' | '_' | '.' | '(' | ')' | '/' => true,
            ':' => colon_ok,
            '-' => !matches!(chars.peek(), Some('-' | '>')),
            c => c.is_alphanumeric(),
        };
        if keep {
            out.push(c);
        } else {
            let _ = write!(out, "#{};", u32::from(c));
        }
    }
    out
}

/// The participants: the coordinator, then each holder in order of first appearance.
struct Participants {
    holders: Vec<CompactString>,
}

impl Participants {
    fn of(rows: &dyn TracedRows) -> io::Result<Participants> {
        let mut holders: Vec<CompactString> = Vec::new();
        rows.visit(&mut |_, row| {
            if let Some(identity) = row.source.row.message.identity() {
                if !holders.contains(&identity.holder) {
                    holders.push(identity.holder.clone());
                }
            }
            Ok(ControlFlow::Continue(()))
        })?;
        Ok(Participants { holders })
    }

    /// The diagram id of a holder: `H1`, `H2`, ...
    fn id(&self, holder: &str) -> String {
        let index = self
            .holders
            .iter()
            .position(|h| h == holder)
            .expect("every holder is a participant");
        format!("H{}", index + 1)
    }

    fn last_id(&self) -> String {
        format!("H{}", self.holders.len())
    }
}

fn render_case(out: &mut String, trace: &CaseTrace) {
    let participants = Participants::of(&trace.rows).expect("rows in memory are always seen");
    let witness = trace.witness.as_ref();
    render_head(
        out,
        &trace.case_id,
        &trace.sentence(),
        witness,
        &participants,
    );
    for (index, row) in trace.rows.iter().enumerate() {
        let marked = witness.is_some_and(|witness| witness.contains(index));
        render_row(out, &participants, trace.before(index), (row, marked));
    }
    render_verdict(
        out,
        &trace.verdict,
        &trace.rows[trace.rows.len() - 1].after,
        &participants,
    );
}

/// [`case`] written to `out` as it is made, for a case whose rows are seen a pass at a time
/// (`summary` from a first pass, `sentence` from [`super::sentence::sentence_of`]).
pub(crate) fn write_case(
    out: &mut dyn io::Write,
    summary: &Summary,
    rows: &dyn TracedRows,
    sentence: &str,
) -> io::Result<()> {
    let participants = Participants::of(rows)?;
    let mut text = String::from("\n");
    let witness = summary.witness.as_ref();
    render_head(
        &mut text,
        &summary.case_id,
        sentence,
        witness,
        &participants,
    );
    out.write_all(text.as_bytes())?;
    let mut before: Option<State> = None;
    rows.visit(&mut |index, row| {
        text.clear();
        let marked = witness.is_some_and(|witness| witness.contains(index));
        render_row(&mut text, &participants, before.as_ref(), (row, marked));
        before = Some(row.after.clone());
        out.write_all(text.as_bytes())?;
        Ok(ControlFlow::Continue(()))
    })?;
    text.clear();
    render_verdict(&mut text, &summary.verdict, &summary.last, &participants);
    out.write_all(text.as_bytes())
}

/// The case's heading, sentence (and witness), and the diagram's start with its participants.
fn render_head(
    out: &mut String,
    case_id: &str,
    sentence: &str,
    witness: Option<&Witness>,
    participants: &Participants,
) {
    let _ = writeln!(
        out,
        "## Case {}\n",
        escape_markdown(&escape_controls(case_id))
    );
    let _ = writeln!(out, "{}\n", escape_markdown(sentence));
    if let Some(witness) = witness {
        let text = format!(
            "Witness: {} (line{} {}), highlighted and marked (witness) in the diagram: {}.",
            witness.size_text(),
            if witness.len() == 1 { "" } else { "s" },
            witness.lines_text(),
            witness.claim_text()
        );
        let _ = writeln!(out, "{}\n", escape_markdown(&text));
    }
    out.push_str("```mermaid\nsequenceDiagram\n");
    out.push_str("    participant C as coordinator\n");
    for (i, holder) in participants.holders.iter().enumerate() {
        let _ = writeln!(
            out,
            "    participant H{} as {}",
            i + 1,
            escape_mermaid(holder, false)
        );
    }
}

/// The verdict's notes and the diagram's end, given the state after the last row.
fn render_verdict(out: &mut String, verdict: &Verdict, last: &State, participants: &Participants) {
    if let Some(effect) = verdict.clock {
        let lease = &last.lease;
        let holder = participants.id(&lease.identity().holder);
        let _ = writeln!(
            out,
            "    Note over {holder}: {}",
            escape_mermaid(&clock_note(effect, lease, verdict.as_of), true)
        );
    }
    let _ = writeln!(
        out,
        "    Note over C,{}: verdict at {}: {} ({})",
        participants.last_id(),
        escape_mermaid(&verdict.as_of.to_string(), true),
        verdict.decision,
        verdict.reason
    );
    out.push_str("```\n");
}

fn clock_note(
    effect: ClockEffect,
    lease: &crate::lease::Lease,
    at: crate::lease::Timestamp,
) -> String {
    let generation = lease.identity().generation;
    match effect {
        ClockEffect::AckTimedOut => format!(
            "at {at}: generation {generation} ack deadline {} passed (ACK_TIMEOUT)",
            lease.offer.terms.ack_deadline
        ),
        ClockEffect::Expired => format!(
            "at {at}: generation {generation} expired at {} (EXPIRED)",
            lease.expires_at
        ),
    }
}

/// The arrow for a disposition: solid for accepted, dotted for duplicates and recorded
/// evidence, a cross for rejected, conflicting and blocked rows.
fn arrow(disposition: Disposition) -> &'static str {
    match disposition {
        Disposition::Accepted => "->>",
        Disposition::Duplicate | Disposition::Recorded => "-->>",
        Disposition::Rejected | Disposition::Conflict | Disposition::Blocked => "-x",
    }
}

/// One row's arrow and notes, given the state before it (none for the first); a row of the
/// case's witness (`marked`) is highlighted (a `rect` around its arrow) and its label says so.
fn render_row(
    out: &mut String,
    participants: &Participants,
    before: Option<&State>,
    (row, marked): (&TracedRow, bool),
) {
    let source = &row.source;
    if let (Some(effect), Some(before)) = (row.outcome.clock, before) {
        let holder = participants.id(&before.lease.identity().holder);
        let _ = writeln!(
            out,
            "    Note over {holder}: {}",
            escape_mermaid(
                &clock_note(effect, &before.lease, source.row.observed_at),
                true
            )
        );
    }
    let mut label = format!("line {} {}", source.line, source.row.message.event());
    if let Some(identity) = source.row.message.identity() {
        let _ = write!(label, " gen {}", identity.generation);
    }
    match &source.row.message {
        Message::Renew { renew_seq, .. } => {
            let _ = write!(label, " seq {renew_seq}");
        }
        Message::Progress { progress_seq, .. } => {
            let _ = write!(label, " seq {progress_seq}");
        }
        Message::Result { result, .. } => {
            let _ = write!(label, " {result}");
        }
        _ => {}
    }
    let _ = write!(
        label,
        ": {} {}",
        row.outcome.disposition, row.outcome.reason
    );
    if marked {
        label.push_str(" (witness)");
        out.push_str("    rect rgb(255, 243, 176)\n");
    }
    let label = escape_mermaid(&label, true);
    let arrow = arrow(row.outcome.disposition);
    // Messages without an identity go to the holder current before the row.
    let current_holder = before.unwrap_or(&row.after).lease.identity().holder.clone();
    match &source.row.message {
        Message::Offer(offer) => {
            let to = participants.id(&offer.identity.holder);
            let _ = writeln!(out, "    C{arrow}{to}: {label}");
        }
        Message::CancelRequest => {
            let to = participants.id(&current_holder);
            let _ = writeln!(out, "    C{arrow}{to}: {label}");
        }
        Message::Observe => {
            let _ = writeln!(out, "    Note over C: {label}");
        }
        worker => {
            let identity = worker
                .identity()
                .expect("worker messages carry an identity");
            let from = participants.id(&identity.holder);
            let _ = writeln!(out, "    {from}{arrow}C: {label}");
        }
    }
    if marked {
        out.push_str("    end\n");
    }
    match (row.outcome.disposition, row.outcome.reason, before) {
        (Disposition::Accepted, RowReason::Reassigned, Some(before)) => {
            let old = before.lease.identity();
            let new = row.after.lease.identity();
            let (from, to) = (participants.id(&old.holder), participants.id(&new.holder));
            let over = if from == to {
                from
            } else {
                format!("{from},{to}")
            };
            let _ = writeln!(
                out,
                "    Note over {over}: reassigned: generation {} ({}) replaces generation {} ({})",
                new.generation,
                escape_mermaid(&new.holder, true),
                old.generation,
                escape_mermaid(&old.holder, true)
            );
        }
        (Disposition::Conflict, reason, _) => {
            let _ = writeln!(
                out,
                "    Note over C,{}: ownership conflict ({reason}): every later row is blocked",
                participants.last_id()
            );
        }
        _ => {}
    }
}
