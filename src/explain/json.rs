//! The trace as JSON: one object per case with its rows (claim, clock, outcome, state after)
//! and its verdict (rule, sentence and matrix row). Keys keep a fixed order.
//!
//! A case's text is written straight into bytes (`json_write.rs`); the borrowed structs here
//! give the same document to serde_json, for [`case_json`] (a value to inspect) and as the
//! reference the writer is tested against.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::lease::{ClockEffect, Message, Verdict};
use crate::matrix::MatrixRow;

use super::witness::Witness;
use super::{CaseTrace, Rule, State, TracedRow};

/// The opening of the array.
pub fn start() -> String {
    "[".to_owned()
}

/// One case's object as an element of the array (pretty-printed).
pub fn case(index: usize, trace: &CaseTrace) -> String {
    super::json_write::case_text(index, trace)
}

/// [`case`] through serde_json: what [`super::json_write`] must write (its tests).
#[cfg(test)]
pub(crate) fn case_serde(index: usize, trace: &CaseTrace) -> String {
    let mut text = String::from(if index == 0 { "\n" } else { ",\n" });
    text.push_str(
        &serde_json::to_string_pretty(&CaseJson::of(trace)).expect("a trace always serialises"),
    );
    text
}

/// The end of the array.
pub fn end(cases: usize) -> String {
    if cases == 0 { "]\n" } else { "\n]\n" }.to_owned()
}

/// One case's trace as a JSON value (for callers that want to inspect it).
pub fn case_json(trace: &CaseTrace) -> Value {
    serde_json::to_value(CaseJson::of(trace)).expect("a trace always serialises")
}

fn clock_name(effect: Option<ClockEffect>) -> Option<&'static str> {
    effect.map(|effect| match effect {
        ClockEffect::AckTimedOut => "ack_timed_out",
        ClockEffect::Expired => "expired",
    })
}

fn text<T: ToString>(value: Option<T>) -> Option<String> {
    value.map(|v| v.to_string())
}

#[derive(Serialize)]
struct CaseJson<'a, R: Serialize, W: Serialize> {
    case_id: &'a str,
    job_id: &'a str,
    file: &'a str,
    rows: R,
    verdict: VerdictJson<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    witness: Option<WitnessJson<W>>,
}

/// A case's witness: its rows (each with its file, line and index in the case's `rows`), how
/// many of the case's, the instant they are judged at alone (their last `observed_at`, or
/// `--as-of` if later), the decision and reason they give alone, whether no one of them can be
/// left out (`false`: `stopped_by` says which bound stopped the search, `budget_rows` or
/// `held_rows`), the rows the search replayed, and its two bounds.
#[derive(Serialize)]
struct WitnessJson<W: Serialize> {
    rows: W,
    size: usize,
    of: usize,
    as_of: String,
    decision: &'static str,
    reason: &'static str,
    minimal: bool,
    stopped_by: Option<&'static str>,
    replayed_rows: u64,
    budget_rows: u64,
    held_rows: usize,
}

impl<W: Serialize> WitnessJson<W> {
    fn of(witness: &Witness, rows: W) -> WitnessJson<W> {
        WitnessJson {
            rows,
            size: witness.len(),
            of: witness.of,
            as_of: witness.as_of.to_string(),
            decision: witness.decision.as_str(),
            reason: witness.reason.as_str(),
            minimal: witness.minimal,
            stopped_by: witness.stopped_by(),
            replayed_rows: witness.replayed_rows,
            budget_rows: witness.budget,
            held_rows: witness.held_rows,
        }
    }
}

#[derive(Serialize)]
struct WitnessRowJson<'a> {
    file: &'a str,
    line: u64,
    index: usize,
}

#[derive(Serialize)]
struct VerdictJson<'a> {
    as_of: String,
    clock: Option<&'static str>,
    state: StateJson<'a>,
    decision: &'static str,
    reason: &'static str,
    decision_rule: DecisionRuleJson,
    reason_precedence: Vec<PrecedenceJson>,
    sentence: String,
    matrix: Map<String, Value>,
}

#[derive(Serialize)]
struct DecisionRuleJson {
    table_row: u8,
    condition: &'static str,
}

#[derive(Serialize)]
struct PrecedenceJson {
    reason: &'static str,
    condition: &'static str,
    chosen: bool,
}

#[derive(Serialize)]
struct IdentityJson<'a> {
    lease_id: &'a str,
    generation: u64,
    holder: &'a str,
}

/// The fields the row's event uses (an empty object for events that use none).
#[derive(Serialize)]
#[serde(untagged)]
enum FieldsJson<'a> {
    Offer {
        issued_at: String,
        lease_duration: u64,
        expires_at: String,
        ack_deadline: String,
    },
    Renew {
        renew_seq: u64,
    },
    Progress {
        progress_seq: u64,
        progress_value: Option<&'a str>,
    },
    Result {
        result: &'static str,
    },
    None {},
}

#[derive(Serialize)]
struct RowJson<'a> {
    file: &'a str,
    line: u64,
    event: &'static str,
    observed_at: String,
    sent_at: Option<String>,
    identity: Option<IdentityJson<'a>>,
    fields: FieldsJson<'a>,
    clock: Option<&'static str>,
    disposition: &'static str,
    reason: &'static str,
    after: StateJson<'a>,
}

#[derive(Serialize)]
struct StateJson<'a> {
    phase: String,
    lease_id: &'a str,
    generation: u64,
    holder: &'a str,
    issued_at: String,
    lease_duration: u64,
    expires_at: String,
    ack_deadline: String,
    ack_state: &'static str,
    renew_sequence: Option<u64>,
    renew_time: Option<String>,
    progress_sequence: Option<u64>,
    progress_value: Option<&'a str>,
    cancel_requested: Option<String>,
    cancel_ack: Option<String>,
    stale_generation: &'a [u64],
    late_progress: &'a [u64],
    ownership_conflict: Option<&'static str>,
}

type HeldCaseJson<'a> = CaseJson<'a, Vec<RowJson<'a>>, Vec<WitnessRowJson<'a>>>;

impl<'a> HeldCaseJson<'a> {
    fn of(trace: &'a CaseTrace) -> HeldCaseJson<'a> {
        let last = &trace.rows[trace.rows.len() - 1].after;
        CaseJson {
            case_id: &trace.case_id,
            job_id: &trace.job_id,
            file: trace.file(),
            rows: trace.rows.iter().map(RowJson::of).collect(),
            verdict: VerdictJson::of(&trace.verdict, last, trace.sentence(), &trace.matrix),
            witness: trace.witness.as_ref().map(|witness| {
                let rows = witness.rows.iter().map(|index| WitnessRowJson {
                    file: &trace.rows[index].source.file,
                    line: trace.rows[index].source.line,
                    index,
                });
                WitnessJson::of(witness, rows.collect())
            }),
        }
    }
}

impl<'a> VerdictJson<'a> {
    /// The verdict with the findings of the state after the last row.
    fn of(
        verdict: &'a Verdict,
        last: &'a State,
        sentence: String,
        matrix: &MatrixRow,
    ) -> VerdictJson<'a> {
        let rule = Rule::of(verdict);
        VerdictJson {
            as_of: verdict.as_of.to_string(),
            clock: clock_name(verdict.clock),
            state: StateJson::of(&verdict.lease, last),
            decision: verdict.decision.as_str(),
            reason: verdict.reason.as_str(),
            decision_rule: DecisionRuleJson {
                table_row: rule.table_row,
                condition: rule.condition,
            },
            reason_precedence: rule
                .precedence
                .iter()
                .enumerate()
                .map(|(i, r)| PrecedenceJson {
                    reason: r.reason.as_str(),
                    condition: r.condition,
                    chosen: i == rule.chosen,
                })
                .collect(),
            sentence,
            matrix: matrix.to_json(),
        }
    }
}

impl<'a> RowJson<'a> {
    fn of(row: &'a TracedRow) -> RowJson<'a> {
        let source = &row.source;
        let message = &source.row.message;
        let fields = match message {
            Message::Offer(offer) => FieldsJson::Offer {
                issued_at: offer.terms.issued_at.to_string(),
                lease_duration: offer.terms.lease_duration.get(),
                expires_at: offer.terms.expires_at.to_string(),
                ack_deadline: offer.terms.ack_deadline.to_string(),
            },
            Message::Renew { renew_seq, .. } => FieldsJson::Renew {
                renew_seq: *renew_seq,
            },
            Message::Progress {
                progress_seq,
                progress_value,
                ..
            } => FieldsJson::Progress {
                progress_seq: *progress_seq,
                progress_value: progress_value.as_deref(),
            },
            Message::Result { result, .. } => FieldsJson::Result {
                result: result.as_str(),
            },
            Message::Ack(_) | Message::CancelAck(_) | Message::CancelRequest | Message::Observe => {
                FieldsJson::None {}
            }
        };
        RowJson {
            file: &source.file,
            line: source.line,
            event: message.event().as_str(),
            observed_at: source.row.observed_at.to_string(),
            sent_at: text(source.row.sent_at),
            identity: message.identity().map(|identity| IdentityJson {
                lease_id: &identity.lease_id,
                generation: identity.generation,
                holder: &identity.holder,
            }),
            fields,
            clock: clock_name(row.outcome.clock),
            disposition: row.outcome.disposition.as_str(),
            reason: row.outcome.reason.as_str(),
            after: StateJson::of(&row.after.lease, &row.after),
        }
    }
}

impl<'a> StateJson<'a> {
    /// The state of `lease` with the findings of `findings` (the verdict's lease has had one
    /// more clock step than the last row's).
    fn of(lease: &'a crate::lease::Lease, findings: &'a State) -> StateJson<'a> {
        let identity = lease.identity();
        StateJson {
            phase: lease.phase.name(),
            lease_id: &identity.lease_id,
            generation: identity.generation,
            holder: &identity.holder,
            issued_at: lease.offer.terms.issued_at.to_string(),
            lease_duration: lease.offer.terms.lease_duration.get(),
            expires_at: lease.expires_at.to_string(),
            ack_deadline: lease.offer.terms.ack_deadline.to_string(),
            ack_state: lease.ack_state.as_str(),
            renew_sequence: lease.renewal.map(|r| r.renew_seq),
            renew_time: text(lease.renewal.map(|r| r.renew_time)),
            progress_sequence: lease.progress.as_ref().map(|p| p.progress_seq),
            progress_value: lease
                .progress
                .as_ref()
                .and_then(|p| p.progress_value.as_deref()),
            cancel_requested: text(lease.cancel_requested),
            cancel_ack: text(lease.cancel_ack),
            stale_generation: &findings.stale_generations,
            late_progress: &findings.late_progress,
            ownership_conflict: findings.conflict.map(|c| c.row_reason().as_str()),
        }
    }
}
