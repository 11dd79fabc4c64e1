//! The text trace for a terminal: every row with its claim, clock effect, outcome and the
//! state after it, then the verdict with the rule that chose it and the sentence.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;
use std::ops::ControlFlow;

use crate::lease::{ClockEffect, Message, Row, Timestamp, Verdict};

use super::witness::Witness;
use super::{or_dash, CaseTrace, Rule, State, Summary, TracedRow, TracedRows};

/// One case's trace; cases after the first are preceded by a blank line.
pub fn case(index: usize, trace: &CaseTrace) -> String {
    let mut out = String::new();
    if index > 0 {
        out.push('\n');
    }
    render_case(&mut out, trace);
    out
}

/// Text with control characters escaped, so a case file cannot drive the terminal (the
/// shared [`escape_controls`](crate::output::escape_controls)).
pub fn clean(text: &str) -> Cow<'_, str> {
    crate::output::escape_controls(text)
}

fn render_case(out: &mut String, trace: &CaseTrace) {
    render_head(
        out,
        &trace.case_id,
        &trace.job_id,
        trace.rows.len(),
        trace.file(),
    );
    let witness = trace.witness.as_ref();
    for (index, row) in trace.rows.iter().enumerate() {
        let marked = witness.map(|witness| witness.contains(index));
        render_row(out, row, trace.before(index), marked);
    }
    let last = &trace.rows[trace.rows.len() - 1];
    render_verdict(
        out,
        &trace.verdict,
        (&last.after, last.source.row.observed_at),
        &trace.sentence(),
    );
    if let Some(witness) = witness {
        render_witness(out, witness);
    }
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
    let mut text = String::new();
    if index > 0 {
        text.push('\n');
    }
    render_head(
        &mut text,
        &summary.case_id,
        &summary.job_id,
        summary.rows,
        &summary.file,
    );
    out.write_all(text.as_bytes())?;
    let mut before: Option<State> = None;
    let witness = summary.witness.as_ref();
    rows.visit(&mut |index, row| {
        text.clear();
        let marked = witness.map(|witness| witness.contains(index));
        render_row(&mut text, row, before.as_ref(), marked);
        before = Some(row.after.clone());
        out.write_all(text.as_bytes())?;
        Ok(ControlFlow::Continue(()))
    })?;
    text.clear();
    render_verdict(
        &mut text,
        &summary.verdict,
        (&summary.last, summary.last_observed_at),
        sentence,
    );
    if let Some(witness) = witness {
        render_witness(&mut text, witness);
    }
    out.write_all(text.as_bytes())
}

/// The witness's lines, after the verdict's: its size and lines, then what it claims.
fn render_witness(out: &mut String, witness: &Witness) {
    let _ = writeln!(
        out,
        "    witness   {}, marked *: line{} {}",
        witness.size_text(),
        if witness.len() == 1 { "" } else { "s" },
        witness.lines_text()
    );
    let _ = writeln!(out, "              {}", witness.claim_text());
}

/// The case's first line: its id, job, number of rows and file.
fn render_head(out: &mut String, case_id: &str, job_id: &str, rows: usize, file: &str) {
    let _ = writeln!(
        out,
        "case {} (job {}): {} row{} from {}",
        clean(case_id),
        clean(job_id),
        rows,
        if rows == 1 { "" } else { "s" },
        clean(file)
    );
}

/// The verdict's lines, given the state after the last row and its `observed_at`.
fn render_verdict(
    out: &mut String,
    verdict: &Verdict,
    (last_after, last): (&State, Timestamp),
    sentence: &str,
) {
    let rule = Rule::of(verdict);
    let last = Some(last);
    let _ = writeln!(
        out,
        "  verdict at {}{}",
        verdict.as_of,
        if Some(verdict.as_of) == last {
            " (the last row's observed_at)"
        } else {
            " (--as-of)"
        }
    );
    if let Some(effect) = verdict.clock {
        let _ = writeln!(out, "    clock     {}", clock_text(effect, last_after));
    }
    let final_state = State {
        lease: verdict.lease.clone(),
        ..last_after.clone()
    };
    let _ = writeln!(out, "    state     {}", state_text(&final_state));
    let _ = writeln!(
        out,
        "    decision  {}: {}",
        verdict.decision,
        rule.decision_text()
    );
    let _ = writeln!(
        out,
        "    reason    {}: {}",
        verdict.reason,
        rule.reason_text()
    );
    let _ = writeln!(out, "    sentence  {}", clean(sentence));
}

/// One row's lines, given the state before it (none for the first); with a witness,
/// `marked` says whether the row is one of its rows (marked `*`).
fn render_row(out: &mut String, row: &TracedRow, before: Option<&State>, marked: Option<bool>) {
    let source = &row.source;
    let _ = writeln!(
        out,
        "{} line {}: {} at {}",
        if marked == Some(true) { '*' } else { ' ' },
        source.line,
        source.row.message.event(),
        source.row.observed_at
    );
    let _ = writeln!(out, "    claims    {}", claim_text(&source.row));
    if let (Some(effect), Some(before)) = (row.outcome.clock, before) {
        let _ = writeln!(out, "    clock     {}", clock_text(effect, before));
    }
    let _ = writeln!(
        out,
        "    outcome   {} {}",
        row.outcome.disposition, row.outcome.reason
    );
    let _ = writeln!(out, "    after     {}", state_text(&row.after));
}

/// What the row claims: its identity and the fields its event uses.
pub fn claim_text(row: &Row) -> String {
    let mut text = match row.message.identity() {
        Some(identity) => format!(
            "lease {}, generation {}, holder {}",
            clean(&identity.lease_id),
            identity.generation,
            clean(&identity.holder)
        ),
        None => "coordinator (no identity)".to_owned(),
    };
    match &row.message {
        Message::Offer(offer) => {
            let terms = &offer.terms;
            let _ = write!(
                text,
                "; lease_duration {}s, issued_at {}, expires_at {}, ack_deadline {}",
                terms.lease_duration, terms.issued_at, terms.expires_at, terms.ack_deadline
            );
        }
        Message::Renew { renew_seq, .. } => {
            let _ = write!(text, "; renew_seq {renew_seq}");
        }
        Message::Progress {
            progress_seq,
            progress_value,
            ..
        } => {
            let _ = write!(text, "; progress_seq {progress_seq}");
            if let Some(value) = progress_value {
                let _ = write!(text, ", progress_value {value:?}");
            }
        }
        Message::Result { result, .. } => {
            let _ = write!(text, "; result {result}");
        }
        Message::Ack(_) | Message::CancelAck(_) | Message::CancelRequest | Message::Observe => {}
    }
    if let Some(sent_at) = row.sent_at {
        let _ = write!(text, "; sent_at {sent_at} (audit only)");
    }
    text
}

/// What step 1 did, given the state before it ran.
pub fn clock_text(effect: ClockEffect, before: &State) -> String {
    let lease = &before.lease;
    let generation = lease.identity().generation;
    match effect {
        ClockEffect::AckTimedOut => format!(
            "generation {generation}'s ack deadline {} passed: OFFERED -> ACK_TIMEOUT, ack MISSING",
            lease.offer.terms.ack_deadline
        ),
        ClockEffect::Expired => format!(
            "generation {generation} reached expires_at {}: ACTIVE -> EXPIRED",
            lease.expires_at
        ),
    }
}

/// The record as one line: phase, identity, expiry, ack, renewal, progress, cancellation,
/// and any findings.
pub fn state_text(state: &State) -> String {
    let lease = &state.lease;
    let identity = lease.identity();
    let mut text = format!(
        "{} generation {} ({}, lease {}), expires_at {}, ack {}",
        lease.phase,
        identity.generation,
        clean(&identity.holder),
        clean(&identity.lease_id),
        lease.expires_at,
        lease.ack_state
    );
    match lease.renewal {
        Some(r) => {
            let _ = write!(text, ", renew {} at {}", r.renew_seq, r.renew_time);
        }
        None => text.push_str(", renew -"),
    }
    match &lease.progress {
        Some(p) => {
            let _ = write!(text, ", progress {}", p.progress_seq);
            if let Some(value) = &p.progress_value {
                let _ = write!(text, " ({value:?})");
            }
        }
        None => text.push_str(", progress -"),
    }
    match lease.cancel_requested {
        Some(at) => {
            let _ = write!(
                text,
                ", cancel requested {at} acked {}",
                or_dash(lease.cancel_ack)
            );
        }
        None => text.push_str(", cancel -"),
    }
    if !state.stale_generations.is_empty() {
        let _ = write!(text, "; stale {}", join(&state.stale_generations));
    }
    if !state.late_progress.is_empty() {
        let _ = write!(text, "; late {}", join(&state.late_progress));
    }
    if let Some(conflict) = state.conflict {
        let _ = write!(text, "; conflict {}", conflict.row_reason());
    }
    text
}

/// `7;8`, as the matrix writes lists.
pub fn join(values: &[u64]) -> String {
    values
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(";")
}
