//! What the integration tests share: typed rows for the property tests and the interleaving
//! explorer, and running the binary in a directory.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use leasejudge::lease::{
    GivenTerms, Identity, Message, Offer, OfferTerms, Row, Seconds, TerminalResult, Timestamp,
};

/// 2026-01-01T10:00:00Z plus `seconds`.
pub fn at(seconds: u64) -> Timestamp {
    let base = Timestamp::parse("2026-01-01T10:00:00Z").unwrap();
    if seconds == 0 {
        base
    } else {
        base.checked_add(Seconds::new(seconds).unwrap()).unwrap()
    }
}

/// An identity.
pub fn id(lease_id: &str, generation: u64, holder: &str) -> Identity {
    Identity {
        lease_id: lease_id.into(),
        generation,
        holder: holder.into(),
    }
}

/// A row at `seconds` with no job id or sent_at.
pub fn row(seconds: u64, message: Message) -> Row {
    Row {
        observed_at: at(seconds),
        job_id: None,
        sent_at: None,
        message,
    }
}

/// An offer issued at `seconds` for `duration` seconds, with the ack deadline `ack_after`
/// seconds after issue (`None`: the default, the expiry).
pub fn offer(seconds: u64, identity: Identity, duration: u64, ack_after: Option<u64>) -> Row {
    let given = GivenTerms {
        ack_deadline: ack_after.map(|a| at(seconds + a.min(duration))),
        ..GivenTerms::default()
    };
    let terms = OfferTerms::resolve(at(seconds), &given, Seconds::new(duration).unwrap()).unwrap();
    Row {
        job_id: Some("job-1".into()),
        ..row(
            seconds,
            Message::Offer(Offer {
                identity,
                terms,
                given,
            }),
        )
    }
}

/// A renew.
pub fn renew(seconds: u64, identity: Identity, renew_seq: u64) -> Row {
    row(
        seconds,
        Message::Renew {
            identity,
            renew_seq,
        },
    )
}

/// A progress with value `v{seq}`.
pub fn progress(seconds: u64, identity: Identity, progress_seq: u64) -> Row {
    row(
        seconds,
        Message::Progress {
            identity,
            progress_seq,
            progress_value: Some(format!("v{progress_seq}").into()),
        },
    )
}

/// An ack.
pub fn ack(seconds: u64, identity: Identity) -> Row {
    row(seconds, Message::Ack(identity))
}

/// A result.
pub fn result(seconds: u64, identity: Identity, result: TerminalResult) -> Row {
    row(seconds, Message::Result { identity, result })
}

/// Runs the binary with `args` in `dir`, with nothing on standard input, and waits for it.
pub fn leasejudge_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}
