//! The trace as JSON: one object per case with its rows (claim, clock, outcome, state after)
//! and its verdict (rule, sentence and matrix row). Keys keep a fixed order.

use serde_json::{json, Map, Value};

use crate::lease::{ClockEffect, Message};

use super::{CaseTrace, State, TracedRow};

/// The opening of the array.
pub fn start() -> String {
    "[".to_owned()
}

/// One case's object as an element of the array (pretty-printed).
pub fn case(index: usize, trace: &CaseTrace) -> String {
    let mut text = String::from(if index == 0 { "\n" } else { ",\n" });
    text.push_str(
        &serde_json::to_string_pretty(&case_json(trace)).expect("a JSON value always serialises"),
    );
    text
}

/// The end of the array.
pub fn end(cases: usize) -> String {
    if cases == 0 { "]\n" } else { "\n]\n" }.to_owned()
}

fn opt<T: ToString>(value: Option<T>) -> Value {
    value.map_or(Value::Null, |v| Value::String(v.to_string()))
}

fn clock_json(effect: Option<ClockEffect>) -> Value {
    match effect {
        None => Value::Null,
        Some(ClockEffect::AckTimedOut) => Value::from("ack_timed_out"),
        Some(ClockEffect::Expired) => Value::from("expired"),
    }
}

/// One case's trace as a JSON object.
pub fn case_json(trace: &CaseTrace) -> Value {
    let rule = trace.rule();
    let verdict = &trace.verdict;
    let final_state = State {
        lease: verdict.lease.clone(),
        ..trace.rows[trace.rows.len() - 1].after.clone()
    };
    let precedence: Vec<Value> = rule
        .precedence
        .iter()
        .enumerate()
        .map(|(i, r)| json!({"reason": r.reason, "condition": r.condition, "chosen": i == rule.chosen}))
        .collect();
    json!({
        "case_id": trace.case_id,
        "job_id": trace.job_id,
        "file": trace.file(),
        "rows": trace.rows.iter().map(row_json).collect::<Vec<_>>(),
        "verdict": {
            "as_of": verdict.as_of.to_string(),
            "clock": clock_json(verdict.clock),
            "state": state_json(&final_state),
            "decision": verdict.decision.as_str(),
            "reason": verdict.reason.as_str(),
            "decision_rule": {"table_row": rule.table_row, "condition": rule.condition},
            "reason_precedence": precedence,
            "sentence": trace.sentence(),
            "matrix": Value::Object(trace.matrix.to_json()),
        },
    })
}

fn row_json(row: &TracedRow) -> Value {
    let source = &row.source;
    let message = &source.row.message;
    let mut object = Map::new();
    object.insert("file".into(), Value::from(source.file.clone()));
    object.insert("line".into(), Value::from(source.line));
    object.insert("event".into(), Value::from(message.event().as_str()));
    object.insert(
        "observed_at".into(),
        Value::from(source.row.observed_at.to_string()),
    );
    object.insert("sent_at".into(), opt(source.row.sent_at));
    object.insert(
        "identity".into(),
        message.identity().map_or(Value::Null, |identity| {
            json!({
                "lease_id": identity.lease_id,
                "generation": identity.generation,
                "holder": identity.holder,
            })
        }),
    );
    let fields = match message {
        Message::Offer(offer) => json!({
            "issued_at": offer.terms.issued_at.to_string(),
            "lease_duration": offer.terms.lease_duration.get(),
            "expires_at": offer.terms.expires_at.to_string(),
            "ack_deadline": offer.terms.ack_deadline.to_string(),
        }),
        Message::Renew { renew_seq, .. } => json!({"renew_seq": renew_seq}),
        Message::Progress {
            progress_seq,
            progress_value,
            ..
        } => json!({"progress_seq": progress_seq, "progress_value": progress_value}),
        Message::Result { result, .. } => json!({"result": result.as_str()}),
        Message::Ack(_) | Message::CancelAck(_) | Message::CancelRequest | Message::Observe => {
            json!({})
        }
    };
    object.insert("fields".into(), fields);
    object.insert("clock".into(), clock_json(row.outcome.clock));
    object.insert(
        "disposition".into(),
        Value::from(row.outcome.disposition.as_str()),
    );
    object.insert("reason".into(), Value::from(row.outcome.reason.as_str()));
    object.insert("after".into(), state_json(&row.after));
    Value::Object(object)
}

fn state_json(state: &State) -> Value {
    let lease = &state.lease;
    let identity = lease.identity();
    json!({
        "phase": lease.phase.name(),
        "lease_id": identity.lease_id,
        "generation": identity.generation,
        "holder": identity.holder,
        "issued_at": lease.offer.terms.issued_at.to_string(),
        "lease_duration": lease.offer.terms.lease_duration.get(),
        "expires_at": lease.expires_at.to_string(),
        "ack_deadline": lease.offer.terms.ack_deadline.to_string(),
        "ack_state": lease.ack_state.as_str(),
        "renew_sequence": lease.renewal.map(|r| r.renew_seq),
        "renew_time": opt(lease.renewal.map(|r| r.renew_time)),
        "progress_sequence": lease.progress.as_ref().map(|p| p.progress_seq),
        "progress_value": lease.progress.as_ref().and_then(|p| p.progress_value.clone()),
        "cancel_requested": opt(lease.cancel_requested),
        "cancel_ack": opt(lease.cancel_ack),
        "stale_generation": state.stale_generations,
        "late_progress": state.late_progress,
        "ownership_conflict": state.conflict.map(|c| c.row_reason().as_str()),
    })
}
