//! A case's matrix row as compact JSON, written straight from the case and its judgement.

use crate::lease::{Case, Judgement, Phase, Timestamp};

use super::{push_u64, push_u64_list};

/// Appends one case's matrix row as a compact JSON object: the same bytes as
/// [`MatrixRow::new`](super::MatrixRow::new) serialised by serde_json (`push_json_row`
/// without extra cells, less its leading line break), built straight from the case and its
/// judgement, as [`push_csv_row`](super::push_csv_row) builds the CSV row: no row, no string
/// per cell, no JSON value tree.
pub fn push_json_case(out: &mut Vec<u8>, case_id: &str, case: &Case, judgement: &Judgement) {
    // Every column, in order: a new column fails to compile here until it is written.
    const _: () = assert!(super::Column::COUNT == 23);
    let lease = case.lease();
    let identity = lease.identity();
    let terms = &lease.offer.terms;
    let time = |out: &mut Vec<u8>, time: Timestamp| {
        out.push(b'"');
        time.write_to(out);
        out.push(b'"');
    };
    let time_or_null = |out: &mut Vec<u8>, value: Option<Timestamp>| match value {
        Some(value) => time(out, value),
        None => out.extend_from_slice(b"null"),
    };
    let number_or_null = |out: &mut Vec<u8>, value: Option<u64>| match value {
        Some(value) => push_u64(out, value),
        None => out.extend_from_slice(b"null"),
    };
    out.extend_from_slice(b"{\"case_id\":");
    push_json_str(out, case_id);
    out.extend_from_slice(b",\"job_id\":");
    push_json_str(out, case.job_id());
    out.extend_from_slice(b",\"lease_id\":");
    push_json_str(out, &identity.lease_id);
    out.extend_from_slice(b",\"generation\":");
    push_u64(out, identity.generation);
    out.extend_from_slice(b",\"holder_identity\":");
    push_json_str(out, &identity.holder);
    out.extend_from_slice(b",\"issued_at\":");
    time(out, terms.issued_at);
    out.extend_from_slice(b",\"lease_duration\":");
    push_u64(out, terms.lease_duration.get());
    out.extend_from_slice(b",\"expires_at\":");
    time(out, lease.expires_at);
    out.extend_from_slice(b",\"ack_deadline\":");
    time(out, terms.ack_deadline);
    out.extend_from_slice(b",\"ack_state\":\"");
    out.extend_from_slice(judgement.ack_state.as_str().as_bytes());
    out.extend_from_slice(b"\",\"renew_sequence\":");
    number_or_null(out, lease.renewal.map(|r| r.renew_seq));
    out.extend_from_slice(b",\"renew_time\":");
    time_or_null(out, lease.renewal.map(|r| r.renew_time));
    out.extend_from_slice(b",\"progress_sequence\":");
    number_or_null(out, lease.progress.as_ref().map(|p| p.progress_seq));
    out.extend_from_slice(b",\"progress_value\":");
    match lease
        .progress
        .as_ref()
        .and_then(|p| p.progress_value.as_deref())
    {
        Some(value) => push_json_str(out, value),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"cancel_requested\":");
    time_or_null(out, lease.cancel_requested);
    out.extend_from_slice(b",\"cancel_ack\":");
    time_or_null(out, lease.cancel_ack);
    out.extend_from_slice(b",\"terminal_result\":");
    match judgement.phase {
        Phase::Terminal(result) => {
            out.push(b'"');
            out.extend_from_slice(result.as_str().as_bytes());
            out.push(b'"');
        }
        _ => out.extend_from_slice(b"null"),
    }
    for (key, values) in [
        (&b",\"stale_generation\":["[..], case.stale_generations()),
        (&b"],\"late_progress\":["[..], case.late_progress()),
    ] {
        out.extend_from_slice(key);
        push_u64_list(out, values, b',');
    }
    out.extend_from_slice(if judgement.lease_expired() {
        b"],\"lease_expired\":true"
    } else {
        b"],\"lease_expired\":false"
    });
    out.extend_from_slice(if case.conflict().is_some() {
        b",\"ownership_conflict\":true,\"decision\":\""
    } else {
        b",\"ownership_conflict\":false,\"decision\":\""
    });
    out.extend_from_slice(judgement.decision.as_str().as_bytes());
    out.extend_from_slice(b"\",\"reason\":\"");
    out.extend_from_slice(judgement.reason.as_str().as_bytes());
    out.extend_from_slice(b"\"}");
}

/// Appends `text` as a JSON string, escaped as serde_json escapes it: `"` and `\\`, the
/// short escapes of backspace, form feed, line feed, carriage return and tab, every other
/// control character below U+0020 as `\\u00XX` (lower-case hex); nothing else.
pub fn push_json_str(out: &mut Vec<u8>, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    let bytes = text.as_bytes();
    let mut start = 0;
    for (at, &b) in bytes.iter().enumerate() {
        let short = match b {
            b'"' => b'"',
            b'\\' => b'\\',
            0x08 => b'b',
            0x0c => b'f',
            b'\n' => b'n',
            b'\r' => b'r',
            b'\t' => b't',
            0..=0x1f => b'u',
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..at]);
        out.push(b'\\');
        out.push(short);
        if short == b'u' {
            out.extend_from_slice(&[
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 15)],
            ]);
        }
        start = at + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}
