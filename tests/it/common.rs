//! What the integration tests share: typed rows for the property tests and the interleaving
//! explorer, running the binary ([`leasejudge`]), and a class as a platform's download makes it
//! ([`Class`]: a roster, a folder of entries of the lab's matrices, graded by `grade --lms`).

use std::fs;
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

/// The example lab's key (examples/lab/key.csv).
pub fn key() -> PathBuf {
    root().join("examples/lab/key.csv")
}

/// An example learner's matrix (examples/lab/submissions).
pub fn submission(name: &str) -> Vec<u8> {
    fs::read(root().join("examples/lab/submissions").join(name)).unwrap()
}

/// `bytes` as text, any byte that is not UTF-8 shown as such.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// What a run said: its standard output, then its standard error, as text.
pub fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Writes `bytes` to `path`, making its folders first.
pub fn write(path: &Path, bytes: &[u8]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

/// A Canvas export of one assignment, `Lab 2 (4102)`: `Student,ID,SIS Login ID,Section`, a
/// `Points Possible` row of `points`, and a row per `(sortable name, id, grade there)`.
pub fn canvas_export(points: &str, learners: &[(&str, &str, &str)]) -> String {
    let mut text = format!(
        "Student,ID,SIS Login ID,Section,Lab 2 (4102)\n    Points Possible,,,,\"{points}\"\n"
    );
    for (name, id, grade) in learners {
        text.push_str(&format!("\"{name}\",{id},login{id},A,{grade}\n"));
    }
    text
}

/// Runs `grade --lms platform` with the lab's key on `download` (a folder, a zip or a pipe)
/// and `roster`, the gradebook written beside the download; the run and the gradebook's
/// text, if it was written.
pub fn grade_lms(
    platform: &str,
    download: &Path,
    roster: &Path,
    extra: &[&str],
) -> (Output, Option<String>) {
    let out = download.parent().unwrap().join(format!(
        "{}-import.csv",
        download.file_name().unwrap().to_string_lossy()
    ));
    let _ = fs::remove_file(&out);
    let key = key();
    let mut args = vec![
        "grade",
        "--golden",
        key.to_str().unwrap(),
        download.to_str().unwrap(),
        "--lms",
        platform,
        "--roster",
        roster.to_str().unwrap(),
        "--gradebook",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let run = leasejudge(&args).env("NO_COLOR", "1").output();
    (run, fs::read_to_string(&out).ok())
}

/// A class as a platform's download makes it, in a scratch directory of its own: the roster
/// ([`Class::roster`], `gradebook.csv`) and a folder of entries ([`Class::folder`],
/// `submissions/`), each entry one of the lab's matrices under the name the platform gives it;
/// graded with `grade --lms` ([`Class::grade`]).
pub struct Class {
    scratch: tempfile::TempDir,
    /// The roster: `gradebook.csv` (a Canvas export, a Moodle worksheet, ...).
    pub roster: PathBuf,
    /// The download's folder of entries: `submissions/`.
    pub folder: PathBuf,
}

impl Class {
    /// An empty class: no roster written yet, no entry.
    pub fn new() -> Class {
        let scratch = tempfile::tempdir().unwrap();
        Class {
            roster: scratch.path().join("gradebook.csv"),
            folder: scratch.path().join("submissions"),
            scratch,
        }
    }

    /// A Canvas class whose roster is [`canvas_export`] of `points` and `learners`.
    pub fn canvas(points: &str, learners: &[(&str, &str, &str)]) -> Class {
        let class = Class::new();
        class.write_roster(canvas_export(points, learners));
        class
    }

    /// (Re)writes the roster as `text`.
    pub fn write_roster(&self, text: impl AsRef<[u8]>) {
        write(&self.roster, text.as_ref());
    }

    /// Adds the entry `name` (a path in the folder) holding the lab's matrix `matrix`
    /// (`ada.csv`, ...).
    pub fn entry(&self, name: &str, matrix: &str) -> &Class {
        write(&self.folder.join(name), &submission(matrix));
        self
    }

    /// A path in the class's scratch directory, beside the roster and the folder.
    pub fn path(&self, name: &str) -> PathBuf {
        self.scratch.path().join(name)
    }

    /// Grades the folder as `platform`'s download: the run and the gradebook's text.
    pub fn grade(&self, platform: &str, extra: &[&str]) -> (Output, Option<String>) {
        grade_lms(platform, &self.folder, &self.roster, extra)
    }
}

/// Copies a directory tree, modes kept (as PrairieLearn's copy, a tar archive and a git
/// checkout do); a bundle's binary is hard-linked, to save copying it for every run.
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else if entry.file_name() == "leasejudge" {
            fs::hard_link(entry.path(), &target).unwrap();
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}
