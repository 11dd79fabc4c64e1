//! A case whose rows do not fit the rows a case keeps in memory is written from its rows in a
//! temporary file, replayed a pass at a time: its bytes must be those of the case held whole,
//! in every `explain` format (with and without `--limit`) and in `adjudicate --explain`'s
//! detail column. Tried with a budget of two rows, so that nearly every case takes that path,
//! on generated and messy cases, one long case, and a case that comes back after every other
//! (its rows read again, then written out again).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::matrix_bytes::{Encoding, ENCODINGS};
use leasejudge::explain::stream::{explain_streaming, DetailedRows};
use leasejudge::explain::Format;
use leasejudge::generate::{default_mix, write_cases, write_messy_cases, Options};
use leasejudge::input::{expand_inputs, ReadOptions, Source};
use leasejudge::streaming::{judge, Sink, StreamSettings, Window, DEFAULT_CASE_ROWS_IN_MEMORY};

/// The cases the explanations keep open (the command's window is larger; the bytes must not
/// depend on it): a test goes past it with few cases.
const OPEN_CASES: usize = 16;

/// The budget of the written-out path: every case of more than two rows takes it.
const FEW_ROWS: usize = 2;

fn options(seed: u64, cases: u64, rows_per_case: (u64, u64), interleave: u64) -> Options {
    Options {
        seed,
        cases,
        rows_per_case,
        interleave,
        mix: default_mix(),
    }
}

fn sources(file: &Path) -> Vec<Source> {
    ReadOptions::default().apply(expand_inputs(&[file.to_owned()]).unwrap())
}

/// `explain -f format --limit limit` of `file`, each case keeping at most `budget` rows in
/// memory.
fn explained(file: &Path, format: Format, limit: usize, budget: usize) -> Vec<u8> {
    let window = Window {
        open_cases: OPEN_CASES,
        case_rows_in_memory: budget,
        ..Window::COMMAND
    };
    // Read whole, and as two halves on two threads (however small the file is): one output.
    let mut outputs = [u64::MAX, 1].map(|split_min_bytes| {
        let explanation = explain_streaming(
            &sources(file),
            None,
            None,
            (format, limit),
            &[],
            Window {
                split_min_bytes,
                ..window
            },
            None,
        )
        .unwrap();
        let mut out = Vec::new();
        explanation.write_to(&mut out).unwrap();
        out
    });
    assert!(outputs[0] == outputs[1], "{format:?}: two halves differ");
    std::mem::take(&mut outputs[0])
}

/// `adjudicate --explain`'s rows of `file` in `encoding`, with at most `budget` rows kept, the
/// file parsed on a second thread if `jobs` is more than 1.
fn detailed_on(file: &Path, encoding: Encoding, budget: usize, jobs: usize) -> Vec<u8> {
    let settings = StreamSettings {
        case_rows_in_memory: budget,
        ..StreamSettings::in_file_order_on(jobs)
    };
    let writer = DetailedRows {
        encoding,
        run_as_of: None,
        column: "detail",
        witness: None,
    };
    let records = judge(
        &sources(file),
        &settings,
        Sink::Cases(Box::new(writer)),
        &mut |_, _, _| {},
    )
    .unwrap_or_else(|_| panic!("{} is good input", file.display()));
    let mut out = Vec::new();
    records.write_to(&mut out).unwrap();
    out
}

/// [`detailed_on`] one thread.
fn detailed(file: &Path, encoding: Encoding, budget: usize) -> Vec<u8> {
    detailed_on(file, encoding, budget, 1)
}

/// Every format and limit, and both detail encodings: the same bytes whichever path.
fn same_bytes_written_out(file: &Path) {
    let ways = [
        (Format::Text, 0),
        (Format::Json, 0),
        (Format::Html, 0),
        (Format::Html, 3),
        (Format::Mermaid, 0),
        (Format::Mermaid, 3),
    ];
    for (format, limit) in ways {
        let held = explained(file, format, limit, DEFAULT_CASE_ROWS_IN_MEMORY);
        let written_out = explained(file, format, limit, FEW_ROWS);
        assert!(!held.is_empty());
        assert!(
            held == written_out,
            "{} -f {format:?} --limit {limit}",
            file.display()
        );
    }
    // The streaming JSON, written straight into bytes, is what serde_json writes for every
    // case's whole trace.
    let traces = leasejudge::ops::explain::traces(&[file.to_owned()], None, None, &[]).unwrap();
    let whole = Format::Json.render(&traces).into_bytes();
    for budget in [DEFAULT_CASE_ROWS_IN_MEMORY, FEW_ROWS] {
        assert!(
            explained(file, Format::Json, 0, budget) == whole,
            "{} -f json, budget {budget}",
            file.display()
        );
    }
    for encoding in ENCODINGS {
        let held = detailed(file, encoding, DEFAULT_CASE_ROWS_IN_MEMORY);
        assert!(!held.is_empty());
        assert!(
            held == detailed(file, encoding, FEW_ROWS),
            "{} --explain as {encoding:?}",
            file.display()
        );
        // Parsed on a second thread while the first replays and writes: the same records.
        for budget in [DEFAULT_CASE_ROWS_IN_MEMORY, FEW_ROWS] {
            assert!(
                held == detailed_on(file, encoding, budget, 2),
                "{} --explain as {encoding:?}, two threads, budget {budget}",
                file.display()
            );
        }
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn generated_cases_written_out_are_the_held_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut plain = Vec::new();
    write_cases(&options(11, 300, (2, 30), 6), &mut plain).unwrap();
    same_bytes_written_out(&write(dir.path(), "plain.csv", &plain));
}

#[test]
fn messy_cases_written_out_are_the_held_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut messy = Vec::new();
    write_messy_cases(&options(12, 300, (2, 30), 4), &mut messy, &mut |_| {}).unwrap();
    same_bytes_written_out(&write(dir.path(), "messy.csv", &messy));
}

#[test]
fn one_long_case_with_stale_and_late_rows_written_out_is_the_held_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut long = b"case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration,\
renew_seq,progress_seq,progress_value\n"
        .to_vec();
    writeln!(long, "big,offer,2026-01-01T00:00:00Z,j,L,2,w,600000,,,").unwrap();
    writeln!(long, "big,ack,2026-01-01T00:00:01Z,,L,2,w,,,,").unwrap();
    for i in 1..40u64 {
        writeln!(
            long,
            "big,progress,2026-01-01T00:{i:02}:00Z,,L,2,w,,,{i},v{i}"
        )
        .unwrap();
        if i % 7 == 0 {
            // A generation before the current one: stale; a progress out of order: late.
            writeln!(long, "big,renew,2026-01-01T00:{i:02}:30Z,,L,1,w,,{i},,").unwrap();
            writeln!(
                long,
                "big,progress,2026-01-01T00:{i:02}:30Z,,L,2,w,,,1,again"
            )
            .unwrap();
        }
    }
    same_bytes_written_out(&write(dir.path(), "long.csv", &long));
}

#[test]
fn a_case_back_after_every_other_written_out_is_the_held_one() {
    // More cases than are kept open, so the first is written, then comes back and is read
    // again (its rows past the budget written out again).
    let dir = tempfile::tempdir().unwrap();
    let mut back = Vec::new();
    write_cases(&options(13, OPEN_CASES as u64 + 50, (3, 6), 8), &mut back).unwrap();
    writeln!(
        back,
        "case-00000000,observe,2027-01-01T00:00:00Z,,,,,,,,,,,"
    )
    .unwrap();
    same_bytes_written_out(&write(dir.path(), "back.csv", &back));
}

/// `--limit` pages keep only the engine's window of cases open, numbering the cases they show
/// as their first rows are read (and a Mermaid document of every case numbers none): with the
/// first case coming back after every other, the page of the first three, and of every case,
/// is the whole file's.
#[test]
fn a_page_of_some_cases_with_one_that_comes_back_is_the_whole_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut back = Vec::new();
    let cases = OPEN_CASES as u64 + 50;
    write_cases(&options(14, cases, (2, 4), 8), &mut back).unwrap();
    writeln!(
        back,
        "case-00000000,observe,2027-01-01T00:00:00Z,,,,,,,,,,,"
    )
    .unwrap();
    let file = write(dir.path(), "back.csv", &back);
    let traces =
        leasejudge::ops::explain::traces(std::slice::from_ref(&file), None, None, &[]).unwrap();
    assert_eq!(traces.len() as u64, cases);
    for format in [Format::Html, Format::Mermaid] {
        let shown = 3;
        let mut page = format.start(shown);
        page.push_str(&format.omitted(shown, traces.len() - shown));
        for (index, trace) in traces[..shown].iter().enumerate() {
            page.push_str(&format.case(index, trace));
        }
        page.push_str(&format.end(shown));
        assert!(
            explained(&file, format, shown, DEFAULT_CASE_ROWS_IN_MEMORY) == page.into_bytes(),
            "{format:?} --limit {shown}"
        );
        for every_case in [traces.len() + 1, 0] {
            assert!(
                explained(&file, format, every_case, DEFAULT_CASE_ROWS_IN_MEMORY)
                    == format.render(&traces).into_bytes(),
                "{format:?} --limit {every_case}"
            );
        }
    }
}

/// A JSON array on one line, its cases past the window and the first coming back at its end:
/// an HTML page of every case numbers them in order of first appearance though they share a
/// line (a number found again by the case's first line would not tell them apart).
#[test]
fn a_page_of_every_case_of_a_one_line_json_array_is_the_whole_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = Vec::new();
    write_cases(&options(15, OPEN_CASES as u64 + 50, (2, 4), 8), &mut csv).unwrap();
    writeln!(csv, "case-00000000,observe,2027-01-01T00:00:00Z,,,,,,,,,,,").unwrap();
    let csv = String::from_utf8(csv).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let objects: Vec<String> = lines
        .map(|line| {
            let fields: Vec<String> = header
                .iter()
                .zip(line.split(','))
                .filter(|(_, value)| !value.is_empty())
                .map(|(name, value)| format!("{name:?}:{value:?}"))
                .collect();
            format!("{{{}}}", fields.join(","))
        })
        .collect();
    let file = write(
        dir.path(),
        "one-line.json",
        format!("[{}]\n", objects.join(",")).as_bytes(),
    );
    let traces =
        leasejudge::ops::explain::traces(std::slice::from_ref(&file), None, None, &[]).unwrap();
    assert_eq!(traces.len(), OPEN_CASES + 50);
    assert!(
        explained(&file, Format::Html, 0, DEFAULT_CASE_ROWS_IN_MEMORY)
            == Format::Html.render(&traces).into_bytes()
    );
}
