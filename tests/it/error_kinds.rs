//! Every input error has a kind, set where it is made (issue 39): a caller tells a file that
//! cannot be read from one that is malformed, a bad value from a broken rule, by the kind,
//! never by the words of the message. Each case file here has one kind of problem, and the
//! engine's errors for it are all of that kind.

use std::path::Path;

use leasejudge::input::{ErrorKind, InputError, Source};
use leasejudge::matrix::CsvMatrix;
use leasejudge::streaming::{judge, Sink, StreamError, StreamSettings};

const HEADER: &str = "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration";

/// The kinds of the errors the engine finds in `text`, a case file named `name`.
fn kinds(dir: &Path, name: &str, text: &[u8]) -> Vec<(ErrorKind, String)> {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    errors_of(&path)
}

fn errors_of(path: &Path) -> Vec<(ErrorKind, String)> {
    let settings = StreamSettings::in_file_order();
    match judge(
        &[Source::file(path)],
        &settings,
        Sink::Matrix(&CsvMatrix),
        &mut |_, _, _| {},
    ) {
        Err(StreamError::Input(errors)) => errors.iter().map(|e| (e.kind, e.to_string())).collect(),
        Err(StreamError::Io(e)) => panic!("{e}"),
        Ok(_) => Vec::new(),
    }
}

fn only(kinds: &[(ErrorKind, String)], kind: ErrorKind) {
    assert!(
        !kinds.is_empty(),
        "no error where a {kind:?} one was expected"
    );
    for (found, text) in kinds {
        assert_eq!(*found, kind, "{text}");
    }
}

#[test]
fn each_kind_of_problem_in_a_case_file_has_its_kind() {
    let dir = tempfile::tempdir().unwrap();
    let offer = "c1,offer,2026-01-01T10:00:00Z,job-1,L-1,1,w,30";
    // The file cannot be read at all: I/O, about the whole file.
    let missing = errors_of(&dir.path().join("absent.csv"));
    only(&missing, ErrorKind::Io);
    assert!(missing[0].1.contains(": cannot read: "), "{}", missing[0].1);
    // The format's grammar: a quote left open, a row of the wrong width.
    only(
        &kinds(
            dir.path(),
            "quote.csv",
            format!("{HEADER}\n\"c1,offer\n").as_bytes(),
        ),
        ErrorKind::Syntax,
    );
    only(
        &kinds(
            dir.path(),
            "ragged.csv",
            format!("{HEADER}\n{offer},extra\n").as_bytes(),
        ),
        ErrorKind::Syntax,
    );
    // Not text: a cell in Latin-1, not UTF-8.
    let mut latin1 = format!("{HEADER}\nc").into_bytes();
    latin1.push(0xe9);
    latin1.extend_from_slice(b"1,offer,2026-01-01T10:00:00Z,job-1,L-1,1,w,30\n");
    only(
        &kinds(dir.path(), "latin1.csv", &latin1),
        ErrorKind::Encoding,
    );
    // The header: a required column missing.
    only(
        &kinds(
            dir.path(),
            "header.csv",
            b"case_id,observed_at\nc1,2026-01-01T10:00:00Z\n",
        ),
        ErrorKind::Header,
    );
    // A value: a timestamp that is none.
    only(
        &kinds(
            dir.path(),
            "value.csv",
            format!("{HEADER}\nc1,offer,yesterday,job-1,L-1,1,w,30\n").as_bytes(),
        ),
        ErrorKind::Value,
    );
    // A rule across rows: a case whose first row is no offer.
    only(
        &kinds(
            dir.path(),
            "rule.csv",
            format!("{HEADER}\nc1,ack,2026-01-01T10:00:00Z,job-1,L-1,1,w,\n").as_bytes(),
        ),
        ErrorKind::Rule,
    );
    // JSON that does not parse is a syntax error too.
    only(
        &kinds(dir.path(), "broken.json", b"[{\"case_id\": \"c1\",]"),
        ErrorKind::Syntax,
    );
}

/// Whether a whole file could not be read is the kind's, not the message's: the words may
/// change, the answer does not.
#[test]
fn an_unreadable_file_is_told_by_its_kind() {
    let unreadable = InputError::unreadable("key.csv", 0, "No such file or directory");
    assert_eq!(unreadable.kind, ErrorKind::Io);
    assert!(unreadable.is_unreadable_file());
    assert_eq!(unreadable.io_cause(), Some("No such file or directory"));
    assert_eq!(
        unreadable.to_string(),
        "key.csv: cannot read: No such file or directory"
    );
    // At a line, the file was read up to it: not unreadable as a whole.
    assert!(!InputError::unreadable("key.csv", 7, "a record too long").is_unreadable_file());
    // Worded like an I/O error but of another kind: not unreadable.
    let malformed = InputError::new(ErrorKind::Syntax, "key.csv", 0, "cannot read this shape");
    assert!(!malformed.is_unreadable_file());
    assert_eq!(malformed.io_cause(), None);
}
