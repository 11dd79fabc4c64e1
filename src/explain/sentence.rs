//! The one plain-English sentence per case that names the rows that decided its verdict.
//!
//! Deterministic: built only from the trace. It starts with `DECISION (reason):` and then
//! cites rows by line, so a reviewer can check each claim against the case file.
//!
//! Made from the verdict and rows seen through [`TracedRows`], a pass at a time: a few
//! passes, each holding only the rows it cites, so that a case of millions of rows replayed
//! from a temporary file is never held whole.

use std::io;
use std::ops::ControlFlow;

use crate::lease::{
    CaseReason, ClockEffect, ConflictKind, Disposition, Message, RowReason, Verdict,
};

use super::{CaseTrace, TracedRow, TracedRows};

/// The sentence for a case, e.g. `ACTIVE (stale_generation): generation 8 has been current
/// since line 6 (offer to worker-b); line 8, a renew from generation 7 (worker-a), was
/// rejected as stale.`
pub fn sentence(trace: &CaseTrace) -> String {
    sentence_of(&trace.verdict, &trace.rows).expect("rows in memory are always seen")
}

/// [`sentence`] of the case judged `verdict` whose rows are `rows` (an error: they could not
/// be read back).
pub fn sentence_of(verdict: &Verdict, rows: &dyn TracedRows) -> io::Result<String> {
    let trace = &View::new(verdict, rows)?;
    // By the reason, every one named: a new reason has no sentence until it is given one
    // here (each reason belongs to one row of the decision table, `CaseReason::decision_row`).
    let body = match verdict.reason {
        CaseReason::HolderConflict
        | CaseReason::OverlappingGenerations
        | CaseReason::GenerationReused => conflict(trace),
        CaseReason::ResultAccepted => terminal(trace),
        CaseReason::CancelAcknowledgedNoResult | CaseReason::CancelUnacknowledged => {
            reconciliation(trace)
        }
        CaseReason::ResultAfterExpiry => expired(trace, Some(RowReason::ResultAfterExpiry)),
        CaseReason::RenewAfterExpiry => expired(trace, Some(RowReason::RenewAfterExpiry)),
        CaseReason::ExpiredWithoutResult => expired(trace, None),
        CaseReason::AckAfterDeadline | CaseReason::AckMissing => ack_timeout(trace),
        CaseReason::StaleGeneration => active_with_stale(trace),
        CaseReason::LateProgress => active_with_late_progress(trace),
        CaseReason::WithinLease => active_within_lease(trace),
        CaseReason::AwaitingAck => pending(trace),
    }?;
    Ok(format!(
        "{} ({}): {body}.",
        verdict.decision, verdict.reason
    ))
}

/// A case's verdict and rows, with the index of the row that made the current generation
/// current (its accepted offer; 0 when none did), found by a first pass.
struct View<'a> {
    verdict: &'a Verdict,
    rows: &'a dyn TracedRows,
    since: usize,
}

/// Whether a row made its generation current: an accepted offer (or reassignment).
fn made_current(row: &TracedRow) -> bool {
    row.outcome.disposition == Disposition::Accepted
        && matches!(
            row.outcome.reason,
            RowReason::Offered | RowReason::Reassigned
        )
}

/// Rows matching a test: the first whole, and the line of each (the first's too).
struct Listed {
    first: Option<TracedRow>,
    lines: Vec<u64>,
}

impl<'a> View<'a> {
    fn new(verdict: &'a Verdict, rows: &'a dyn TracedRows) -> io::Result<View<'a>> {
        let mut since = 0;
        rows.visit(&mut |index, row| {
            if made_current(row) {
                since = index;
            }
            Ok(ControlFlow::Continue(()))
        })?;
        Ok(View {
            verdict,
            rows,
            since,
        })
    }

    /// The first row from `from` on matching `wanted`, and its index.
    fn first(
        &self,
        from: usize,
        wanted: impl Fn(&TracedRow) -> bool,
    ) -> io::Result<Option<(usize, TracedRow)>> {
        let mut found = None;
        self.rows.visit(&mut |index, row| {
            if index >= from && wanted(row) {
                found = Some((index, row.clone()));
                return Ok(ControlFlow::Break(()));
            }
            Ok(ControlFlow::Continue(()))
        })?;
        Ok(found)
    }

    /// The first row of the current generation matching `wanted`.
    fn first_current(&self, wanted: impl Fn(&TracedRow) -> bool) -> io::Result<Option<TracedRow>> {
        Ok(self.first(self.since, wanted)?.map(|(_, row)| row))
    }

    /// The last row of the current generation matching `wanted`.
    fn last_current(&self, wanted: impl Fn(&TracedRow) -> bool) -> io::Result<Option<TracedRow>> {
        let mut found = None;
        self.rows.visit(&mut |index, row| {
            if index >= self.since && wanted(row) {
                found = Some(row.clone());
            }
            Ok(ControlFlow::Continue(()))
        })?;
        Ok(found)
    }

    /// Every row from `from` on matching `wanted`.
    fn every(&self, from: usize, wanted: impl Fn(&TracedRow) -> bool) -> io::Result<Listed> {
        let mut listed = Listed {
            first: None,
            lines: Vec::new(),
        };
        self.rows.visit(&mut |index, row| {
            if index >= from && wanted(row) {
                if listed.first.is_none() {
                    listed.first = Some(row.clone());
                }
                listed.lines.push(line(row));
            }
            Ok(ControlFlow::Continue(()))
        })?;
        Ok(listed)
    }

    /// The row that made the current generation current.
    fn offer(&self) -> io::Result<TracedRow> {
        self.first(self.since, |_| true)?
            .map(|(_, row)| row)
            .ok_or_else(|| io::Error::other("a case with no rows has no sentence"))
    }
}

/// What a row is, as a noun phrase: `a renew from generation 7 (worker-a)`.
pub fn describe(row: &TracedRow) -> String {
    let from = |identity: &crate::lease::Identity| {
        format!(
            "from generation {} ({})",
            identity.generation, identity.holder
        )
    };
    match &row.source.row.message {
        Message::Offer(offer) => format!(
            "an offer of generation {} to {}",
            offer.identity.generation, offer.identity.holder
        ),
        Message::Ack(identity) => format!("an ack {}", from(identity)),
        Message::Renew { identity, .. } => format!("a renew {}", from(identity)),
        Message::Progress {
            identity,
            progress_seq,
            ..
        } => format!("progress {progress_seq} {}", from(identity)),
        Message::CancelRequest => "a cancel_request".to_owned(),
        Message::CancelAck(identity) => format!("a cancel_ack {}", from(identity)),
        Message::Result { identity, result } => format!("a {result} result {}", from(identity)),
        Message::Observe => "an observe".to_owned(),
    }
}

fn line(row: &TracedRow) -> u64 {
    row.source.line
}

/// `lines 8, 10 and 12`.
fn lines(rows: &[u64]) -> String {
    let numbers: Vec<String> = rows.iter().map(u64::to_string).collect();
    match numbers.split_last() {
        Some((last, [])) => format!("line {last}"),
        Some((last, rest)) => format!("lines {} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

fn with_reason(row: &TracedRow, disposition: Disposition, reason: RowReason) -> bool {
    row.outcome.disposition == disposition && row.outcome.reason == reason
}

fn generation_and_holder(trace: &View<'_>) -> String {
    let identity = trace.verdict.lease.identity();
    format!("generation {} ({})", identity.generation, identity.holder)
}

/// Where step 1 produced `effect` for the current generation: the row whose clock step did
/// it, or the verdict's own clock step at `as_of`.
fn clock_witness(trace: &View<'_>, effect: ClockEffect) -> io::Result<String> {
    Ok(
        match trace.first_current(|r| r.outcome.clock == Some(effect))? {
            Some(row) => format!(
                "line {} ({} at {}) found",
                line(&row),
                row.source.row.message.event(),
                row.source.row.observed_at
            ),
            None => format!("the verdict at {} found", trace.verdict.as_of),
        },
    )
}

fn conflict(trace: &View<'_>) -> io::Result<String> {
    // The first conflict, and the line of the last row before it that made a generation
    // current.
    let (mut found, mut since) = (None, 0);
    trace.rows.visit(&mut |index, row| {
        if row.outcome.disposition == Disposition::Conflict {
            found = Some((index, row.clone()));
            return Ok(ControlFlow::Break(()));
        }
        if made_current(row) {
            since = row.source.line;
        }
        Ok(ControlFlow::Continue(()))
    })?;
    let Some((index, row)) = found else {
        return Ok("a conflict was recorded".to_owned());
    };
    let row = &row;
    let state = &row.after;
    let current = state.lease.identity();
    let mut text = match state.conflict {
        Some(ConflictKind::HolderConflict) => format!(
            "line {}, {}, claimed lease {} generation {}, which line {since} gave to {}",
            line(row),
            describe(row),
            current.lease_id,
            current.generation,
            current.holder
        ),
        Some(ConflictKind::OverlappingGenerations) => format!(
            "line {}, {}, overlapped generation {} ({}), still {} until {} (offered on line {since})",
            line(row),
            describe(row),
            current.generation,
            current.holder,
            state.lease.phase,
            match state.lease.phase {
                crate::lease::Phase::Offered => state.lease.offer.terms.ack_deadline,
                _ => state.lease.expires_at,
            }
        ),
        Some(ConflictKind::GenerationReused) | None => format!(
            "line {}, {}, reused generation {} with {} than the offer on line {since}",
            line(row),
            describe(row),
            current.generation,
            differing_terms(&state.lease.offer, row)
        ),
    };
    let blocked = trace.rows.len() - index - 1;
    match blocked {
        0 => {}
        1 => text.push_str("; the row after it was blocked"),
        n => text.push_str(&format!("; the {n} rows after it were blocked")),
    }
    Ok(text)
}

/// The fields in which a conflicting offer differs from the generation's accepted offer.
fn differing_terms(accepted: &crate::lease::Offer, row: &TracedRow) -> String {
    let Message::Offer(offer) = &row.source.row.message else {
        return "terms".to_owned();
    };
    let mut fields = Vec::new();
    if offer.identity.lease_id != accepted.identity.lease_id {
        fields.push("lease_id");
    }
    if offer.identity.holder != accepted.identity.holder {
        fields.push("holder");
    }
    if offer.terms.lease_duration != accepted.terms.lease_duration {
        fields.push("lease_duration");
    }
    let differs =
        |given: Option<crate::lease::Timestamp>, issued| given.is_some_and(|t| t != issued);
    if differs(offer.given.issued_at, accepted.terms.issued_at) {
        fields.push("issued_at");
    }
    if differs(offer.given.expires_at, accepted.terms.expires_at) {
        fields.push("expires_at");
    }
    if differs(offer.given.ack_deadline, accepted.terms.ack_deadline) {
        fields.push("ack_deadline");
    }
    match fields.split_last() {
        None => "terms".to_owned(),
        Some((last, [])) => format!("a different {last}"),
        Some((last, rest)) => format!("a different {} and {last}", rest.join(", ")),
    }
}

fn terminal(trace: &View<'_>) -> io::Result<String> {
    let result = trace
        .first_current(|r| with_reason(r, Disposition::Accepted, RowReason::ResultAccepted))?;
    let cancel = trace
        .first_current(|r| with_reason(r, Disposition::Accepted, RowReason::CancelRequested))?;
    let Some(result) = result else {
        return Ok(format!("{} reached a result", generation_and_holder(trace)));
    };
    let mut text = format!(
        "line {}, {}, was accepted while the lease was active",
        line(&result),
        describe(&result)
    );
    if let Some(cancel) = cancel {
        text.push_str(&format!(
            ", after the cancel_request on line {}",
            line(&cancel)
        ));
    }
    Ok(text)
}

fn reconciliation(trace: &View<'_>) -> io::Result<String> {
    let cancel = trace
        .first_current(|r| with_reason(r, Disposition::Accepted, RowReason::CancelRequested))?;
    let cancel_line = cancel.as_ref().map_or(0, line);
    let mut text = format!(
        "line {cancel_line} requested a cancel of {}",
        generation_and_holder(trace)
    );
    if trace.verdict.reason == CaseReason::CancelAcknowledgedNoResult {
        let ack = trace
            .first_current(|r| with_reason(r, Disposition::Accepted, RowReason::CancelAcked))?;
        text.push_str(&format!(
            " and line {} acknowledged it, but no result was accepted, so the work is not proven stopped",
            ack.as_ref().map_or(0, line)
        ));
    } else {
        text.push_str(", and neither a cancel_ack nor a result was accepted after it");
    }
    let late = trace.every(trace.since, |r| {
        r.outcome.reason == RowReason::ProgressAfterCancel
    })?;
    if let Some(first) = &late.first {
        text.push_str(&format!(
            "; {}, {}, arrived after the cancel and was recorded as late",
            lines(&[line(first)]),
            describe(first)
        ));
        text.push_str(&more(&late));
    }
    Ok(text)
}

/// `rejected_for`: the reason of the rejected row that chose the case's reason (`None`:
/// nothing after expiry).
fn expired(trace: &View<'_>, rejected_for: Option<RowReason>) -> io::Result<String> {
    let lease = &trace.verdict.lease;
    let renewal =
        trace.last_current(|r| with_reason(r, Disposition::Accepted, RowReason::Renewed))?;
    let set_by = match renewal {
        Some(row) => format!("was last renewed on line {}", line(&row)),
        None => format!(
            "was offered on line {} and never renewed",
            trace.offer()?.source.line
        ),
    };
    let mut text = format!(
        "{} {set_by}, so it expired at {}, as {} it",
        generation_and_holder(trace),
        lease.expires_at,
        clock_witness(trace, ClockEffect::Expired)?
    );
    match rejected_for {
        Some(reason) => {
            if let Some(row) =
                trace.first_current(|r| with_reason(r, Disposition::Rejected, reason))?
            {
                text.push_str(&format!(
                    "; line {}, {}, arrived after expiry and was rejected",
                    line(&row),
                    describe(&row)
                ));
            }
        }
        None => text.push_str("; no result was accepted before expiry"),
    }
    Ok(text)
}

fn ack_timeout(trace: &View<'_>) -> io::Result<String> {
    let offer = &trace.offer()?;
    let identity = trace.verdict.lease.identity();
    let mut text = format!(
        "generation {} was offered to {} on line {} with ack deadline {}",
        identity.generation,
        identity.holder,
        line(offer),
        trace.verdict.lease.offer.terms.ack_deadline,
    );
    let late_ack = trace
        .first_current(|r| with_reason(r, Disposition::Rejected, RowReason::AckAfterDeadline))?;
    let late_ack_timed_out = late_ack
        .as_ref()
        .is_some_and(|r| r.outcome.clock == Some(ClockEffect::AckTimedOut));
    if !late_ack_timed_out {
        text.push_str(&format!(
            ", and {} it passed with no ack",
            clock_witness(trace, ClockEffect::AckTimedOut)?
        ));
    }
    if trace.verdict.reason == CaseReason::AckAfterDeadline {
        if let Some(row) = &late_ack {
            text.push_str(&format!(
                "; line {}, {} at {}, came at or after the deadline and was rejected",
                line(row),
                describe(row),
                row.source.row.observed_at
            ));
        }
    }
    Ok(text)
}

/// `ACTIVE (stale_generation)`.
fn active_with_stale(trace: &View<'_>) -> io::Result<String> {
    let offer = &trace.offer()?;
    let identity = trace.verdict.lease.identity();
    let stale = trace.every(0, |r| r.outcome.reason == RowReason::StaleGeneration)?;
    let mut text = current_since(identity, offer);
    if let Some(first) = &stale.first {
        text.push_str(&format!(
            "; line {}, {}, was rejected as stale",
            line(first),
            describe(first)
        ));
        text.push_str(&more(&stale));
    }
    Ok(text)
}

/// `ACTIVE (late_progress)`.
fn active_with_late_progress(trace: &View<'_>) -> io::Result<String> {
    let offer = &trace.offer()?;
    let identity = trace.verdict.lease.identity();
    let late = trace.every(0, |r| {
        r.outcome.disposition == Disposition::Recorded
            && matches!(
                r.outcome.reason,
                RowReason::ProgressOutOfOrder
                    | RowReason::ProgressAfterExpiry
                    | RowReason::ProgressAfterResult
                    | RowReason::ProgressAfterCancel
            )
    })?;
    let mut text = current_since(identity, offer);
    if let Some(first) = &late.first {
        let why = match first.outcome.reason {
            RowReason::ProgressOutOfOrder => format!(
                "arrived after progress {}",
                or_none(first.after.lease.progress.as_ref().map(|p| p.progress_seq))
            ),
            RowReason::ProgressAfterExpiry => "arrived after its lease expired".to_owned(),
            RowReason::ProgressAfterResult => "arrived after the result".to_owned(),
            _ => "arrived after a cancel request".to_owned(),
        };
        text.push_str(&format!(
            "; line {}, {}, {why} and was recorded as late",
            line(first),
            describe(first)
        ));
        text.push_str(&more(&late));
    }
    Ok(text)
}

/// `ACTIVE (within_lease)`.
fn active_within_lease(trace: &View<'_>) -> io::Result<String> {
    let identity = trace.verdict.lease.identity();
    let ack = trace.first_current(|r| with_reason(r, Disposition::Accepted, RowReason::Acked))?;
    let renewal =
        trace.last_current(|r| with_reason(r, Disposition::Accepted, RowReason::Renewed))?;
    let mut text = format!(
        "generation {} ({}) has been active since line {} (ack)",
        identity.generation,
        identity.holder,
        ack.as_ref().map_or(0, line)
    );
    if let Some(renewal) = renewal {
        text.push_str(&format!(", was last renewed on line {}", line(&renewal)));
    }
    text.push_str(&format!(
        " and holds the lease until {}; no stale or late evidence was seen",
        trace.verdict.lease.expires_at
    ));
    Ok(text)
}

fn or_none(value: Option<u64>) -> String {
    value.map_or_else(|| "none".to_owned(), |v| v.to_string())
}

fn pending(trace: &View<'_>) -> io::Result<String> {
    let offer = &trace.offer()?;
    let identity = trace.verdict.lease.identity();
    Ok(format!(
        "generation {} was offered to {} on line {}, and at {} no ack had arrived and the ack deadline {} had not passed",
        identity.generation,
        identity.holder,
        line(offer),
        trace.verdict.as_of,
        trace.verdict.lease.offer.terms.ack_deadline
    ))
}

/// "generation G has been current since line L (offer to H)".
fn current_since(identity: &crate::lease::Identity, offer: &TracedRow) -> String {
    format!(
        "generation {} has been current since line {} (offer to {})",
        identity.generation,
        line(offer),
        identity.holder
    )
}

/// " (N more: lines …)" for the rows after the first one named, or nothing.
fn more(rows: &Listed) -> String {
    if rows.lines.len() > 1 {
        format!(
            " ({} more: {})",
            rows.lines.len() - 1,
            lines(&rows.lines[1..])
        )
    } else {
        String::new()
    }
}
