//! What the integration tests share: typed rows for the property tests and the interleaving
//! explorer, and running the binary ([`leasejudge`]).

use std::io::Write;
use std::path::{Path, PathBuf};
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

/// The repository's root, where the binary runs unless told otherwise.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The width the tests' runs have unless a test says otherwise: wide enough that every
/// message and table row is one line, so that a test of what is said finds its words on
/// one line. A test of the width rule sets `COLUMNS` itself, or removes it (then 80).
pub const WIDE: &str = "1000";

/// One run of the binary being built: `leasejudge(args).dir(..).env(..).stdin(..)`, then
/// [`Invocation::output`] (the bytes) or [`Invocation::run`] (UTF-8 text). It runs from the
/// repository root with nothing on standard input and `COLUMNS` at [`WIDE`] unless told
/// otherwise; what the caller's environment says of colour or CI summaries reaches it unless
/// a test removes it.
pub fn leasejudge(args: &[&str]) -> Invocation {
    let mut command = Command::new(env!("CARGO_BIN_EXE_leasejudge"));
    command.args(args).current_dir(root()).env("COLUMNS", WIDE);
    Invocation {
        command,
        stdin: Vec::new(),
    }
}

/// Runs the binary with `args` in `dir`, with nothing on standard input, and waits for it.
pub fn leasejudge_in(dir: &Path, args: &[&str]) -> Output {
    leasejudge(args).dir(dir).output()
}

/// A run of the binary being set up ([`leasejudge`]).
pub struct Invocation {
    command: Command,
    stdin: Vec<u8>,
}

/// A finished run, its output as text.
#[derive(Debug)]
pub struct Run {
    /// The exit status (-1 if killed by a signal).
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Invocation {
    /// Runs it in `dir`.
    pub fn dir(mut self, dir: &Path) -> Invocation {
        self.command.current_dir(dir);
        self
    }

    /// Sets `name` to `value` in its environment.
    pub fn env(mut self, name: &str, value: impl AsRef<std::ffi::OsStr>) -> Invocation {
        self.command.env(name, value);
        self
    }

    /// Removes each of `names` from its environment.
    pub fn env_remove(mut self, names: &[&str]) -> Invocation {
        for name in names {
            self.command.env_remove(name);
        }
        self
    }

    /// Gives it `bytes` on standard input.
    pub fn stdin(mut self, bytes: impl AsRef<[u8]>) -> Invocation {
        self.stdin = bytes.as_ref().to_vec();
        self
    }

    /// Runs it to the end; its exit status and the bytes it wrote.
    pub fn output(mut self) -> Output {
        let mut child = self
            .command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        let mut input = child.stdin.take().unwrap();
        let bytes = std::mem::take(&mut self.stdin);
        // Written from a thread of its own, so that a run writing much before it has read all
        // its input cannot stall on a full pipe; a run that stops reading early closes the
        // pipe, and what it did not read is its business.
        let writer = std::thread::spawn(move || {
            let _ = input.write_all(&bytes);
        });
        let output = child.wait_with_output().expect("the binary runs");
        writer.join().unwrap();
        output
    }

    /// Runs it to the end; its exit status and its output as UTF-8 text.
    pub fn run(self) -> Run {
        let output = self.output();
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).expect("UTF-8 standard output"),
            stderr: String::from_utf8(output.stderr).expect("UTF-8 standard error"),
        }
    }
}
