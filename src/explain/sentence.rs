//! The one plain-English sentence per case that names the rows that decided its verdict.
//!
//! Deterministic: built only from the trace. It starts with `DECISION (reason):` and then
//! cites rows by line, so a reviewer can check each claim against the case file.

use crate::lease::{CaseReason, ClockEffect, ConflictKind, Disposition, Message, RowReason};

use super::{CaseTrace, TracedRow};

/// The sentence for a case, e.g. `ACTIVE (stale_generation): generation 8 has been current
/// since line 6 (offer to worker-b); line 8, a renew from generation 7 (worker-a), was
/// rejected as stale.`
pub fn sentence(trace: &CaseTrace) -> String {
    let verdict = &trace.verdict;
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
    };
    format!("{} ({}): {body}.", verdict.decision, verdict.reason)
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
fn lines(rows: &[&TracedRow]) -> String {
    let numbers: Vec<String> = rows.iter().map(|r| line(r).to_string()).collect();
    match numbers.split_last() {
        Some((last, [])) => format!("line {last}"),
        Some((last, rest)) => format!("lines {} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Rows of the current generation (from its accepted offer on) matching `wanted`.
fn current_rows<'a>(
    trace: &'a CaseTrace,
    wanted: impl Fn(&TracedRow) -> bool + 'a,
) -> impl Iterator<Item = &'a TracedRow> + 'a {
    trace.rows[trace.current_since()..]
        .iter()
        .filter(move |r| wanted(r))
}

fn with_reason(row: &TracedRow, disposition: Disposition, reason: RowReason) -> bool {
    row.outcome.disposition == disposition && row.outcome.reason == reason
}

fn generation_and_holder(trace: &CaseTrace) -> String {
    let identity = trace.verdict.lease.identity();
    format!("generation {} ({})", identity.generation, identity.holder)
}

/// Where step 1 produced `effect` for the current generation: the row whose clock step did
/// it, or the verdict's own clock step at `as_of`.
fn clock_witness(trace: &CaseTrace, effect: ClockEffect) -> String {
    match current_rows(trace, |r| r.outcome.clock == Some(effect)).next() {
        Some(row) => format!(
            "line {} ({} at {}) found",
            line(row),
            row.source.row.message.event(),
            row.source.row.observed_at
        ),
        None => format!("the verdict at {} found", trace.verdict.as_of),
    }
}

fn conflict(trace: &CaseTrace) -> String {
    let Some(index) = trace
        .rows
        .iter()
        .position(|r| r.outcome.disposition == Disposition::Conflict)
    else {
        return "a conflict was recorded".to_owned();
    };
    let row = &trace.rows[index];
    let state = &row.after;
    let current = state.lease.identity();
    let since = trace.rows[..index]
        .iter()
        .rposition(|r| {
            r.outcome.disposition == Disposition::Accepted
                && matches!(r.outcome.reason, RowReason::Offered | RowReason::Reassigned)
        })
        .map_or(0, |i| trace.rows[i].source.line);
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
    text
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

fn terminal(trace: &CaseTrace) -> String {
    let result = current_rows(trace, |r| {
        with_reason(r, Disposition::Accepted, RowReason::ResultAccepted)
    })
    .next();
    let cancel = current_rows(trace, |r| {
        with_reason(r, Disposition::Accepted, RowReason::CancelRequested)
    })
    .next();
    let Some(result) = result else {
        return format!("{} reached a result", generation_and_holder(trace));
    };
    let mut text = format!(
        "line {}, {}, was accepted while the lease was active",
        line(result),
        describe(result)
    );
    if let Some(cancel) = cancel {
        text.push_str(&format!(
            ", after the cancel_request on line {}",
            line(cancel)
        ));
    }
    text
}

fn reconciliation(trace: &CaseTrace) -> String {
    let cancel = current_rows(trace, |r| {
        with_reason(r, Disposition::Accepted, RowReason::CancelRequested)
    })
    .next();
    let cancel_line = cancel.map_or(0, line);
    let mut text = format!(
        "line {cancel_line} requested a cancel of {}",
        generation_and_holder(trace)
    );
    if trace.verdict.reason == CaseReason::CancelAcknowledgedNoResult {
        let ack = current_rows(trace, |r| {
            with_reason(r, Disposition::Accepted, RowReason::CancelAcked)
        })
        .next();
        text.push_str(&format!(
            " and line {} acknowledged it, but no result was accepted, so the work is not proven stopped",
            ack.map_or(0, line)
        ));
    } else {
        text.push_str(", and neither a cancel_ack nor a result was accepted after it");
    }
    let late: Vec<&TracedRow> = current_rows(trace, |r| {
        r.outcome.reason == RowReason::ProgressAfterCancel
    })
    .collect();
    if let Some(first) = late.first() {
        text.push_str(&format!(
            "; {}, {}, arrived after the cancel and was recorded as late",
            lines(&[first]),
            describe(first)
        ));
        text.push_str(&more(&late));
    }
    text
}

/// `rejected_for`: the reason of the rejected row that chose the case's reason (`None`:
/// nothing after expiry).
fn expired(trace: &CaseTrace, rejected_for: Option<RowReason>) -> String {
    let lease = &trace.verdict.lease;
    let renewal = current_rows(trace, |r| {
        with_reason(r, Disposition::Accepted, RowReason::Renewed)
    })
    .last();
    let set_by = match renewal {
        Some(row) => format!("was last renewed on line {}", line(row)),
        None => format!(
            "was offered on line {} and never renewed",
            trace.rows[trace.current_since()].source.line
        ),
    };
    let mut text = format!(
        "{} {set_by}, so it expired at {}, as {} it",
        generation_and_holder(trace),
        lease.expires_at,
        clock_witness(trace, ClockEffect::Expired)
    );
    let rejected = |reason: RowReason| {
        current_rows(trace, move |r| {
            with_reason(r, Disposition::Rejected, reason)
        })
        .next()
    };
    match rejected_for {
        Some(reason) => {
            if let Some(row) = rejected(reason) {
                text.push_str(&format!(
                    "; line {}, {}, arrived after expiry and was rejected",
                    line(row),
                    describe(row)
                ));
            }
        }
        None => text.push_str("; no result was accepted before expiry"),
    }
    text
}

fn ack_timeout(trace: &CaseTrace) -> String {
    let offer = &trace.rows[trace.current_since()];
    let identity = trace.verdict.lease.identity();
    let mut text = format!(
        "generation {} was offered to {} on line {} with ack deadline {}",
        identity.generation,
        identity.holder,
        line(offer),
        trace.verdict.lease.offer.terms.ack_deadline,
    );
    let late_ack = current_rows(trace, |r| {
        with_reason(r, Disposition::Rejected, RowReason::AckAfterDeadline)
    })
    .next();
    let late_ack_timed_out =
        late_ack.is_some_and(|r| r.outcome.clock == Some(ClockEffect::AckTimedOut));
    if !late_ack_timed_out {
        text.push_str(&format!(
            ", and {} it passed with no ack",
            clock_witness(trace, ClockEffect::AckTimedOut)
        ));
    }
    if trace.verdict.reason == CaseReason::AckAfterDeadline {
        if let Some(row) = late_ack {
            text.push_str(&format!(
                "; line {}, {} at {}, came at or after the deadline and was rejected",
                line(row),
                describe(row),
                row.source.row.observed_at
            ));
        }
    }
    text
}

/// `ACTIVE (stale_generation)`.
fn active_with_stale(trace: &CaseTrace) -> String {
    let offer = &trace.rows[trace.current_since()];
    let identity = trace.verdict.lease.identity();
    let stale: Vec<&TracedRow> = trace
        .rows
        .iter()
        .filter(|r| r.outcome.reason == RowReason::StaleGeneration)
        .collect();
    let mut text = current_since(identity, offer);
    if let Some(first) = stale.first() {
        text.push_str(&format!(
            "; line {}, {}, was rejected as stale",
            line(first),
            describe(first)
        ));
        text.push_str(&more(&stale));
    }
    text
}

/// `ACTIVE (late_progress)`.
fn active_with_late_progress(trace: &CaseTrace) -> String {
    let offer = &trace.rows[trace.current_since()];
    let identity = trace.verdict.lease.identity();
    let late: Vec<&TracedRow> = trace
        .rows
        .iter()
        .filter(|r| {
            r.outcome.disposition == Disposition::Recorded
                && matches!(
                    r.outcome.reason,
                    RowReason::ProgressOutOfOrder
                        | RowReason::ProgressAfterExpiry
                        | RowReason::ProgressAfterResult
                        | RowReason::ProgressAfterCancel
                )
        })
        .collect();
    let mut text = current_since(identity, offer);
    if let Some(first) = late.first() {
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
    text
}

/// `ACTIVE (within_lease)`.
fn active_within_lease(trace: &CaseTrace) -> String {
    let identity = trace.verdict.lease.identity();
    let ack = current_rows(trace, |r| {
        with_reason(r, Disposition::Accepted, RowReason::Acked)
    })
    .next();
    let renewal = current_rows(trace, |r| {
        with_reason(r, Disposition::Accepted, RowReason::Renewed)
    })
    .last();
    let mut text = format!(
        "generation {} ({}) has been active since line {} (ack)",
        identity.generation,
        identity.holder,
        ack.map_or(0, line)
    );
    if let Some(renewal) = renewal {
        text.push_str(&format!(", was last renewed on line {}", line(renewal)));
    }
    text.push_str(&format!(
        " and holds the lease until {}; no stale or late evidence was seen",
        trace.verdict.lease.expires_at
    ));
    text
}

fn or_none(value: Option<u64>) -> String {
    value.map_or_else(|| "none".to_owned(), |v| v.to_string())
}

fn pending(trace: &CaseTrace) -> String {
    let offer = &trace.rows[trace.current_since()];
    let identity = trace.verdict.lease.identity();
    format!(
        "generation {} was offered to {} on line {}, and at {} no ack had arrived and the ack deadline {} had not passed",
        identity.generation,
        identity.holder,
        line(offer),
        trace.verdict.as_of,
        trace.verdict.lease.offer.terms.ack_deadline
    )
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
fn more(rows: &[&TracedRow]) -> String {
    if rows.len() > 1 {
        format!(" ({} more: {})", rows.len() - 1, lines(&rows[1..]))
    } else {
        String::new()
    }
}
