//! A case's trace written as pretty JSON straight into bytes: the same bytes serde_json's
//! pretty printer writes for [`super::json`]'s structs (two spaces an indent, `"key": value`,
//! `[]` and `{}` when empty), without a serializer call per key or a string per timestamp.
//! Every case of `explain -f json` is written this way (830 MB for a 52 MB file); the structs
//! stay for [`super::json::case_json`] (a value to inspect), and the tests compare the two on
//! every case.

use std::io;
use std::ops::ControlFlow;

use crate::lease::{ClockEffect, Lease, Message, Timestamp, Verdict};
use crate::matrix::{push_json_str, push_u64, MatrixRow};

use super::witness::Witness;
use super::{CaseTrace, Rule, State, Summary, TracedRow, TracedRows};

/// Bytes of a case kept before they go on to the output.
const CHUNK: usize = 1 << 16;

/// A line end and the spaces of the deepest usual indentation (a case's rows' fields are at
/// depth 4 or 5, 16 fit): what [`Pretty::indent`] copies.
const LINE_STARTS: &[u8; 33] = b"\n                                ";

/// Pretty JSON being written: where it goes, how deep it is, and whether the innermost
/// object or array has no member yet.
struct Pretty {
    out: Vec<u8>,
    depth: usize,
    first: bool,
}

impl Pretty {
    /// A line end and the indentation of `depth`: all of [`LINE_STARTS`] copied (a copy of a
    /// fixed size, no call) and what is not needed dropped again; two spaces pushed at a time
    /// were a tenth of `explain -f json`, a copy of the length needed called `memcpy`.
    #[inline]
    fn indent(&mut self) {
        let spaces = 2 * self.depth;
        if spaces < LINE_STARTS.len() {
            let end = self.out.len() + 1 + spaces;
            self.out.extend_from_slice(LINE_STARTS);
            self.out.truncate(end);
        } else {
            self.out.push(b'\n');
            self.out.resize(self.out.len() + spaces, b' ');
        }
    }

    /// Opens an object (`b'{'`) or array (`b'['`).
    fn open(&mut self, bracket: u8) {
        self.out.push(bracket);
        self.depth += 1;
        self.first = true;
    }

    /// Closes what [`open`](Pretty::open) opened.
    fn close(&mut self, bracket: u8) {
        self.depth -= 1;
        if !self.first {
            self.indent();
        }
        self.out.push(bracket);
        self.first = false;
    }

    /// Starts an array's element.
    fn element(&mut self) {
        if !self.first {
            self.out.push(b',');
        }
        self.indent();
        self.first = false;
    }

    /// Starts an object's member: its key (plain ASCII, never escaped).
    fn key(&mut self, key: &str) {
        self.element();
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\": ");
    }

    fn str(&mut self, key: &str, value: &str) {
        self.key(key);
        push_json_str(&mut self.out, value);
    }

    fn opt_str(&mut self, key: &str, value: Option<&str>) {
        match value {
            Some(value) => self.str(key, value),
            None => self.null(key),
        }
    }

    fn time(&mut self, key: &str, value: Timestamp) {
        self.key(key);
        self.out.push(b'"');
        value.write_to(&mut self.out);
        self.out.push(b'"');
    }

    fn opt_time(&mut self, key: &str, value: Option<Timestamp>) {
        match value {
            Some(value) => self.time(key, value),
            None => self.null(key),
        }
    }

    fn number(&mut self, key: &str, value: u64) {
        self.key(key);
        push_u64(&mut self.out, value);
    }

    fn opt_number(&mut self, key: &str, value: Option<u64>) {
        match value {
            Some(value) => self.number(key, value),
            None => self.null(key),
        }
    }

    fn bool(&mut self, key: &str, value: bool) {
        self.key(key);
        self.out
            .extend_from_slice(if value { b"true" } else { b"false" });
    }

    fn null(&mut self, key: &str) {
        self.key(key);
        self.out.extend_from_slice(b"null");
    }

    fn numbers(&mut self, key: &str, values: &[u64]) {
        self.key(key);
        self.open(b'[');
        for &value in values {
            self.element();
            push_u64(&mut self.out, value);
        }
        self.close(b']');
    }

    /// Moves what is written on to `to` once it is a chunk.
    fn move_on_if_full(&mut self, to: &mut dyn io::Write) -> io::Result<()> {
        if self.out.len() >= CHUNK {
            to.write_all(&self.out)?;
            self.out.clear();
        }
        Ok(())
    }
}

fn clock_name(effect: Option<ClockEffect>) -> Option<&'static str> {
    effect.map(|effect| match effect {
        ClockEffect::AckTimedOut => "ack_timed_out",
        ClockEffect::Expired => "expired",
    })
}

/// Writes one case's object as an element of the array, the bytes serde_json's pretty printer
/// writes for [`super::json`]'s structs: `summary` from a first pass over `rows`, `sentence`
/// from [`super::sentence::sentence_of`].
pub(crate) fn write_case(
    out: &mut dyn io::Write,
    index: usize,
    summary: &Summary,
    rows: &dyn TracedRows,
    sentence: &str,
) -> io::Result<()> {
    let case = Case {
        case_id: &summary.case_id,
        job_id: &summary.job_id,
        file: &summary.file,
        rows,
        verdict: &summary.verdict,
        last: &summary.last,
        sentence,
        matrix: &summary.matrix,
        witness: summary.witness.as_ref(),
    };
    write(out, index, &case)
}

/// [`write_case`] of a whole trace, as a string.
pub(crate) fn case_text(index: usize, trace: &CaseTrace) -> String {
    let mut out = Vec::new();
    write_trace(&mut out, index, trace).expect("writing to memory does not fail");
    String::from_utf8(out).expect("JSON of UTF-8 text is UTF-8")
}

/// [`write_case`] of a whole trace, to `out` (the engine's record: no string made, checked
/// and copied on the way).
pub(crate) fn write_trace(
    out: &mut dyn io::Write,
    index: usize,
    trace: &CaseTrace,
) -> io::Result<()> {
    let sentence = trace.sentence();
    let case = Case {
        case_id: &trace.case_id,
        job_id: &trace.job_id,
        file: trace.file(),
        rows: &trace.rows,
        verdict: &trace.verdict,
        last: &trace.rows[trace.rows.len() - 1].after,
        sentence: &sentence,
        matrix: &trace.matrix,
        witness: trace.witness.as_ref(),
    };
    write(out, index, &case)
}

/// What a case's object holds.
struct Case<'a> {
    case_id: &'a str,
    job_id: &'a str,
    file: &'a str,
    rows: &'a dyn TracedRows,
    verdict: &'a Verdict,
    last: &'a State,
    sentence: &'a str,
    matrix: &'a MatrixRow,
    /// `explain --witness`: the case's witness, after the verdict.
    witness: Option<&'a Witness>,
}

fn write(out: &mut dyn io::Write, index: usize, case: &Case<'_>) -> io::Result<()> {
    let mut json = Pretty {
        out: Vec::with_capacity(4096),
        depth: 0,
        first: true,
    };
    json.out
        .extend_from_slice(if index == 0 { b"\n" } else { b",\n" });
    json.open(b'{');
    json.str("case_id", case.case_id);
    json.str("job_id", case.job_id);
    json.str("file", case.file);
    json.key("rows");
    json.open(b'[');
    let mut failed = None;
    case.rows.visit(&mut |_, row| {
        json.element();
        write_row(&mut json, row);
        if let Err(e) = json.move_on_if_full(out) {
            failed = Some(e);
            return Ok(ControlFlow::Break(()));
        }
        Ok(ControlFlow::Continue(()))
    })?;
    if let Some(e) = failed {
        return Err(e);
    }
    json.close(b']');
    json.key("verdict");
    write_verdict(
        &mut json,
        case.verdict,
        case.last,
        case.sentence,
        case.matrix,
    );
    if let Some(witness) = case.witness {
        write_witness(&mut json, out, case, witness)?;
    }
    json.close(b'}');
    out.write_all(&json.out)
}

/// A case's witness, as [`super::json`]'s `WitnessJson` is written: its rows found as the
/// case's rows are visited again (a long case's from its temporary file), then its size, the
/// instant and verdict of its rows alone, and how its search went.
fn write_witness(
    json: &mut Pretty,
    out: &mut dyn io::Write,
    case: &Case<'_>,
    witness: &Witness,
) -> io::Result<()> {
    json.key("witness");
    json.open(b'{');
    json.key("rows");
    json.open(b'[');
    let mut failed = None;
    case.rows.visit(&mut |index, row| {
        if !witness.contains(index) {
            return Ok(ControlFlow::Continue(()));
        }
        json.element();
        json.open(b'{');
        json.str("file", case.file);
        json.number("line", row.source.line);
        json.number("index", index as u64);
        json.close(b'}');
        if let Err(e) = json.move_on_if_full(out) {
            failed = Some(e);
            return Ok(ControlFlow::Break(()));
        }
        Ok(ControlFlow::Continue(()))
    })?;
    if let Some(e) = failed {
        return Err(e);
    }
    json.close(b']');
    json.number("size", witness.len() as u64);
    json.number("of", witness.of as u64);
    json.time("as_of", witness.as_of);
    json.str("decision", witness.decision.as_str());
    json.str("reason", witness.reason.as_str());
    json.bool("minimal", witness.minimal);
    json.opt_str("stopped_by", witness.stopped_by());
    json.number("replayed_rows", witness.replayed_rows);
    json.number("budget_rows", witness.budget);
    json.number("held_rows", witness.held_rows as u64);
    json.close(b'}');
    Ok(())
}

fn write_verdict(
    json: &mut Pretty,
    verdict: &Verdict,
    last: &State,
    sentence: &str,
    matrix: &MatrixRow,
) {
    let rule = Rule::of(verdict);
    json.open(b'{');
    json.time("as_of", verdict.as_of);
    json.opt_str("clock", clock_name(verdict.clock));
    json.key("state");
    write_state(json, &verdict.lease, last);
    json.str("decision", verdict.decision.as_str());
    json.str("reason", verdict.reason.as_str());
    json.key("decision_rule");
    json.open(b'{');
    json.number("table_row", u64::from(rule.table_row));
    json.str("condition", rule.condition);
    json.close(b'}');
    json.key("reason_precedence");
    json.open(b'[');
    for (i, reason) in rule.precedence.iter().enumerate() {
        json.element();
        json.open(b'{');
        json.str("reason", reason.reason.as_str());
        json.str("condition", reason.condition);
        json.bool("chosen", i == rule.chosen);
        json.close(b'}');
    }
    json.close(b']');
    json.str("sentence", sentence);
    json.key("matrix");
    write_matrix(json, matrix);
    json.close(b'}');
}

/// The matrix row as [`MatrixRow::to_json`] gives it.
fn write_matrix(json: &mut Pretty, row: &MatrixRow) {
    json.open(b'{');
    json.str("case_id", &row.case_id);
    json.str("job_id", &row.job_id);
    json.str("lease_id", &row.lease_id);
    json.number("generation", row.generation);
    json.str("holder_identity", &row.holder_identity);
    json.time("issued_at", row.issued_at);
    json.number("lease_duration", row.lease_duration.get());
    json.time("expires_at", row.expires_at);
    json.time("ack_deadline", row.ack_deadline);
    json.str("ack_state", row.ack_state.as_str());
    json.opt_number("renew_sequence", row.renew_sequence);
    json.opt_time("renew_time", row.renew_time);
    json.opt_number("progress_sequence", row.progress_sequence);
    json.opt_str("progress_value", row.progress_value.as_deref());
    json.opt_time("cancel_requested", row.cancel_requested);
    json.opt_time("cancel_ack", row.cancel_ack);
    json.opt_str("terminal_result", row.terminal_result.map(|r| r.as_str()));
    json.numbers("stale_generation", &row.stale_generation);
    json.numbers("late_progress", &row.late_progress);
    json.bool("lease_expired", row.lease_expired);
    json.bool("ownership_conflict", row.ownership_conflict);
    json.str("decision", row.decision.as_str());
    json.str("reason", row.reason.as_str());
    json.close(b'}');
}

fn write_row(json: &mut Pretty, row: &TracedRow) {
    let source = &row.source;
    let message = &source.row.message;
    json.open(b'{');
    json.str("file", &source.file);
    json.number("line", source.line);
    json.str("event", message.event().as_str());
    json.time("observed_at", source.row.observed_at);
    json.opt_time("sent_at", source.row.sent_at);
    match message.identity() {
        Some(identity) => {
            json.key("identity");
            json.open(b'{');
            json.str("lease_id", &identity.lease_id);
            json.number("generation", identity.generation);
            json.str("holder", &identity.holder);
            json.close(b'}');
        }
        None => json.null("identity"),
    }
    json.key("fields");
    json.open(b'{');
    match message {
        Message::Offer(offer) => {
            json.time("issued_at", offer.terms.issued_at);
            json.number("lease_duration", offer.terms.lease_duration.get());
            json.time("expires_at", offer.terms.expires_at);
            json.time("ack_deadline", offer.terms.ack_deadline);
        }
        Message::Renew { renew_seq, .. } => json.number("renew_seq", *renew_seq),
        Message::Progress {
            progress_seq,
            progress_value,
            ..
        } => {
            json.number("progress_seq", *progress_seq);
            json.opt_str("progress_value", progress_value.as_deref());
        }
        Message::Result { result, .. } => json.str("result", result.as_str()),
        Message::Ack(_) | Message::CancelAck(_) | Message::CancelRequest | Message::Observe => {}
    }
    json.close(b'}');
    json.opt_str("clock", clock_name(row.outcome.clock));
    json.str("disposition", row.outcome.disposition.as_str());
    json.str("reason", row.outcome.reason.as_str());
    json.key("after");
    write_state(json, &row.after.lease, &row.after);
    json.close(b'}');
}

/// The state of `lease` with the findings of `findings`.
fn write_state(json: &mut Pretty, lease: &Lease, findings: &State) {
    let identity = lease.identity();
    json.open(b'{');
    json.str("phase", &lease.phase.name());
    json.str("lease_id", &identity.lease_id);
    json.number("generation", identity.generation);
    json.str("holder", &identity.holder);
    json.time("issued_at", lease.offer.terms.issued_at);
    json.number("lease_duration", lease.offer.terms.lease_duration.get());
    json.time("expires_at", lease.expires_at);
    json.time("ack_deadline", lease.offer.terms.ack_deadline);
    json.str("ack_state", lease.ack_state.as_str());
    json.opt_number("renew_sequence", lease.renewal.map(|r| r.renew_seq));
    json.opt_time("renew_time", lease.renewal.map(|r| r.renew_time));
    json.opt_number(
        "progress_sequence",
        lease.progress.as_ref().map(|p| p.progress_seq),
    );
    json.opt_str(
        "progress_value",
        lease
            .progress
            .as_ref()
            .and_then(|p| p.progress_value.as_deref()),
    );
    json.opt_time("cancel_requested", lease.cancel_requested);
    json.opt_time("cancel_ack", lease.cancel_ack);
    json.numbers("stale_generation", &findings.stale_generations);
    json.numbers("late_progress", &findings.late_progress);
    json.opt_str(
        "ownership_conflict",
        findings.conflict.map(|c| c.row_reason().as_str()),
    );
    json.close(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{default_mix, write_cases, write_messy_cases, Options};

    /// Every case of generated and messy files, at their own time and later: the bytes
    /// serde_json's pretty printer writes for the structs.
    #[test]
    fn every_depth_is_indented_two_spaces_a_level() {
        for depth in 0..40 {
            let mut json = Pretty {
                out: b"x".to_vec(),
                depth,
                first: true,
            };
            json.indent();
            let expected = format!("x\n{}", "  ".repeat(depth));
            assert_eq!(
                String::from_utf8(json.out).unwrap(),
                expected,
                "depth {depth}"
            );
        }
    }

    #[test]
    fn every_case_is_written_as_serde_json_writes_it() {
        let dir = tempfile::tempdir().unwrap();
        let options = |seed| Options {
            seed,
            cases: 300,
            rows_per_case: (2, 20),
            interleave: 5,
            mix: default_mix(),
        };
        let (mut plain, mut messy) = (Vec::new(), Vec::new());
        write_cases(&options(21), &mut plain).unwrap();
        write_messy_cases(&options(22), &mut messy, &mut |_| {}).unwrap();
        let later = Timestamp::parse("2027-01-01T00:00:00Z").ok();
        for (name, bytes) in [("plain.csv", &plain), ("messy.csv", &messy)] {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            for as_of in [None, later] {
                let traces =
                    crate::ops::explain::traces(std::slice::from_ref(&path), None, as_of, &[])
                        .unwrap();
                assert_eq!(traces.len(), 300);
                for (index, trace) in traces.into_iter().enumerate() {
                    let expected = super::super::json::case_serde(index, &trace);
                    assert_eq!(
                        case_text(index, &trace),
                        expected,
                        "{name} {}",
                        trace.case_id
                    );
                    // And with its witness (`explain --witness`), written after the verdict.
                    let mut trace = trace;
                    let search = super::super::witness::Search::COMMAND;
                    trace.witness = Some(super::super::witness::of_trace(&trace, as_of, search));
                    assert_eq!(
                        case_text(index, &trace),
                        super::super::json::case_serde(index, &trace),
                        "{name} {} with its witness",
                        trace.case_id
                    );
                }
            }
        }
    }
}
