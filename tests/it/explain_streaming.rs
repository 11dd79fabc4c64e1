//! `explain -f text|json` writes cases as they close, in bounded memory: its bytes must be
//! those of the whole-file trace (every case kept, then rendered), with more cases than the
//! window holds, interleaved, messy, with `--case`, with `--as-of`, and with cases that come
//! back after they were written (the engine rebuilds each from its own lines and writes its
//! trace again in its place: once, many, twice, asked for by `--case`, from standard input).
//! The engine keeps a small window open ([`WINDOW`]), so that a hundred cases go past it; the
//! command itself is run on standard input, past its own window.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use leasejudge::explain::stream::explain_streaming;
use leasejudge::explain::Format;
use leasejudge::generate::{default_mix, write_cases, write_messy_cases, Options};
use leasejudge::input::Source;
use leasejudge::lease::Timestamp;
use leasejudge::ops::explain::traces;
use leasejudge::streaming::Window;

/// The window the streamed explanations keep open: 16 cases, and 256 rows in all (the
/// command's is [`Window::COMMAND`]; the bytes must not depend on it).
const WINDOW: Window = Window {
    open_cases: 16,
    kept_rows: 256,
    ..Window::COMMAND
};

fn options(seed: u64, cases: u64, interleave: u64) -> Options {
    Options {
        seed,
        cases,
        rows_per_case: (2, 5),
        interleave,
        mix: default_mix(),
    }
}

fn explain(args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .arg("explain")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn whole(file: &Path, format: Format, wanted: &[String], as_of: Option<Timestamp>) -> Vec<u8> {
    let traces = traces(&[file.to_owned()], None, as_of, wanted).unwrap();
    format.render(&traces).into_bytes()
}

/// What `explain FILE -f FORMAT [--case ...] [--as-of ...]` writes, [`WINDOW`] open: the
/// same bytes read whole and read as two halves on two threads (however small the file is,
/// when there are two cores).
fn streamed(file: &Path, format: Format, wanted: &[String], as_of: Option<Timestamp>) -> Vec<u8> {
    let sources = [Source::file(file.to_owned())];
    let mut outputs = [1, u64::MAX].map(|split_min_bytes| {
        let window = Window {
            split_min_bytes,
            ..WINDOW
        };
        let explained =
            explain_streaming(&sources, None, as_of, (format, 0), wanted, window, None).unwrap();
        let mut out = Vec::new();
        explained.write_to(&mut out).unwrap();
        out
    });
    assert!(
        outputs[0] == outputs[1],
        "{} -f {format:?}: read as two halves, the bytes differ",
        file.display()
    );
    std::mem::take(&mut outputs[1])
}

/// The streamed and the whole-file trace of `file` in `format`.
fn streamed_and_whole(file: &Path, format: Format) -> (Vec<u8>, Vec<u8>) {
    (
        streamed(file, format, &[], None),
        whole(file, format, &[], None),
    )
}

fn same_both_ways(file: &Path) {
    for format in [Format::Json, Format::Text] {
        let (streamed, whole) = streamed_and_whole(file, format);
        assert!(streamed == whole, "{} -f {format:?}", file.display());
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// More cases than `window` holds (so the oldest are written while later ones are read):
/// 100 past it.
fn cases_past(window: usize) -> u64 {
    window as u64 + 100
}

/// More cases than [`WINDOW`] holds.
fn cases_past_the_window() -> u64 {
    cases_past(WINDOW.open_cases)
}

/// Plain generated cases past the window, as bytes.
fn plain_bytes() -> Vec<u8> {
    plain_bytes_past(WINDOW.open_cases)
}

/// Plain generated cases past a window of `window`, as bytes.
fn plain_bytes_past(window: usize) -> Vec<u8> {
    let mut plain = Vec::new();
    write_cases(&options(4, cases_past(window), 8), &mut plain).unwrap();
    plain
}

/// The plain cases with the first one coming back after every other case.
fn first_case_back(dir: &Path) -> PathBuf {
    first_case_back_past(dir, WINDOW.open_cases)
}

/// The plain cases past a window of `window`, the first coming back after every other.
fn first_case_back_past(dir: &Path, window: usize) -> PathBuf {
    let mut back = plain_bytes_past(window);
    writeln!(
        back,
        "case-00000000,observe,2027-01-01T00:00:00Z,,,,,,,,,,,"
    )
    .unwrap();
    write(dir, "back.csv", &back)
}

/// The plain cases, then every case again after the window let them go (more than are kept
/// open at once), every seventh twice.
fn many_cases_back(dir: &Path) -> PathBuf {
    let cases = cases_past_the_window();
    let mut many = plain_bytes();
    for round in 0..2 {
        for case in (0..cases).step_by(if round == 0 { 1 } else { 7 }) {
            writeln!(
                many,
                "case-{case:08},observe,2027-01-0{}T00:00:00Z,,,,,,,,,,,",
                round + 1
            )
            .unwrap();
        }
    }
    write(dir, "many.csv", &many)
}

#[test]
fn plain_cases_past_the_window_are_the_whole_file_ones() {
    let dir = tempfile::tempdir().unwrap();
    same_both_ways(&write(dir.path(), "plain.csv", &plain_bytes()));
}

#[test]
fn messy_cases_past_the_window_are_the_whole_file_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut messy = Vec::new();
    write_messy_cases(
        &options(3, cases_past_the_window(), 4),
        &mut messy,
        &mut |_| {},
    )
    .unwrap();
    same_both_ways(&write(dir.path(), "messy.csv", &messy));
}

#[test]
fn a_case_back_after_every_other_is_rebuilt_to_the_whole_file_ones() {
    let dir = tempfile::tempdir().unwrap();
    same_both_ways(&first_case_back(dir.path()));
}

#[test]
fn a_case_back_on_standard_input_is_rebuilt_to_the_whole_file_ones() {
    // Standard input is copied as it is read, to be read again: past the command's window.
    let dir = tempfile::tempdir().unwrap();
    let back_file = first_case_back_past(dir.path(), Window::COMMAND.open_cases);
    let piped = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .args(["explain", "-f", "json", "-"])
        .stdin(std::fs::File::open(&back_file).unwrap())
        .output()
        .unwrap();
    assert!(
        piped.status.success(),
        "{}",
        String::from_utf8_lossy(&piped.stderr)
    );
    let named = String::from_utf8(whole(&back_file, Format::Json, &[], None)).unwrap();
    let quoted = format!("{:?}", back_file.to_str().unwrap());
    assert_eq!(
        String::from_utf8(piped.stdout).unwrap(),
        named.replace(&quoted, "\"-\"")
    );
}

#[test]
fn many_cases_back_some_twice_are_rebuilt_to_the_whole_file_ones() {
    let dir = tempfile::tempdir().unwrap();
    same_both_ways(&many_cases_back(dir.path()));
}

#[test]
fn a_case_asked_for_among_many_back_is_the_whole_file_one() {
    let dir = tempfile::tempdir().unwrap();
    let many_file = many_cases_back(dir.path());
    let wanted = vec!["case-00000014".to_owned()];
    assert_eq!(
        streamed(&many_file, Format::Text, &wanted, None),
        whole(&many_file, Format::Text, &wanted, None)
    );
}

#[test]
fn some_cases_asked_for_one_the_last_with_a_later_as_of_are_the_whole_file_ones() {
    let dir = tempfile::tempdir().unwrap();
    let plain_file = write(dir.path(), "plain.csv", &plain_bytes());
    let wanted = vec![
        "case-00000007".to_owned(),
        format!("case-{:08}", cases_past_the_window() - 1),
    ];
    let as_of = Some(Timestamp::parse("2027-06-01T00:00:00Z").unwrap());
    assert_eq!(
        streamed(&plain_file, Format::Json, &wanted, as_of),
        whole(&plain_file, Format::Json, &wanted, as_of)
    );
}

#[test]
fn no_case_selected_at_all_is_an_empty_json_array() {
    let dir = tempfile::tempdir().unwrap();
    // The generated file's header line alone, with no line end.
    let plain = plain_bytes();
    let header = plain.split(|&b| b == b'\n').next().unwrap();
    let empty = write(dir.path(), "empty.csv", header);
    assert_eq!(explain(&[empty.to_str().unwrap(), "-f", "json"]), b"[]\n");
}

/// 40 cases of 30 to 40 rows, three at a time: more rows than the open cases of [`WINDOW`]
/// may keep, so the oldest cases are closed early (and those still going come back).
fn long_cases(dir: &Path) -> PathBuf {
    let long = Options {
        rows_per_case: (30, 40),
        ..options(13, 40, 3)
    };
    let mut bytes = Vec::new();
    write_cases(&long, &mut bytes).unwrap();
    write(dir, "long.csv", &bytes)
}

#[test]
fn long_cases_close_early_and_give_the_whole_file_json() {
    let dir = tempfile::tempdir().unwrap();
    let file = long_cases(dir.path());
    let (streamed, whole) = streamed_and_whole(&file, Format::Json);
    assert!(streamed == whole, "{} -f json", file.display());
}

#[test]
fn long_cases_close_early_and_give_the_whole_file_text() {
    let dir = tempfile::tempdir().unwrap();
    let file = long_cases(dir.path());
    let (streamed, whole) = streamed_and_whole(&file, Format::Text);
    assert!(streamed == whole, "{} -f text", file.display());
}
