//! A lone CSV file read as two halves on two threads, cut speculatively at the first line
//! start after its middle, against the straightforward run (`judge_sources`, every case in
//! memory): the same matrix bytes or the same errors, on quoted files. Each shape is built
//! so that the cut falls where it is meant to (the assertions say where), on quoted cells
//! everywhere, a quoted line end across the cut, a stray `"` inside an unquoted cell (which
//! the csv reader takes as text, so quote parity would place the cut wrongly), CRLF, blank
//! lines at the cut, a case coming back across the cut, an unterminated quote, and errors in
//! both halves.

use crate::matrix_bytes;
use crate::reference;
use matrix_bytes::{matrix_bytes, Encoding, ENCODINGS};
use reference::judge_sources;

use std::path::Path;

use leasejudge::generate::{default_mix, write_messy_cases, Options};
use leasejudge::input::Source;
use leasejudge::matrix::CsvMatrix;
use leasejudge::streaming::{judge, Sink, StreamError, StreamSettings};

fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> Source {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    Source::file(path)
}

/// The straightforward run's matrix, or its errors.
fn reference(source: &Source, encoding: Encoding) -> Result<Vec<u8>, String> {
    let judged = judge_sources(std::slice::from_ref(source), None, None, &mut |_, _, _| {})
        .map_err(|e| e.to_string())?;
    Ok(matrix_bytes(&judged, encoding))
}

/// The file read as two halves, however small it is.
fn split(source: &Source, encoding: Encoding, open_cases: usize) -> Result<Vec<u8>, String> {
    let settings = StreamSettings {
        open_cases,
        jobs: 2,
        split_min_bytes: 1,
        ..StreamSettings::default()
    };
    let mut out = Vec::new();
    judge(
        std::slice::from_ref(source),
        &settings,
        Sink::Matrix(encoding),
        &mut |_, _, _| {},
    )
    .and_then(|matrix| Ok(matrix.write_to(&mut out)?))
    .map_err(|e| match e {
        StreamError::Input(errors) => errors.to_string(),
        StreamError::Io(e) => panic!("i/o: {e}"),
    })?;
    Ok(out)
}

fn assert_split_same_as_reference(source: &Source, label: &str) {
    for encoding in ENCODINGS {
        let expected = reference(source, encoding);
        for open_cases in [4096, 3, 1] {
            let actual = split(source, encoding, open_cases);
            assert!(
                expected == actual,
                "{label}: split run differs ({encoding:?}, open {open_cases}):\n{}\n---\n{}",
                show(&expected),
                show(&actual)
            );
        }
    }
}

fn show(result: &Result<Vec<u8>, String>) -> String {
    match result {
        Ok(matrix) => String::from_utf8_lossy(matrix).into_owned(),
        Err(errors) => errors.clone(),
    }
}

const HEADER: &str = "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration,progress_seq,progress_value\n";

/// One case's four rows: offer, ack, progress with `value` (as written, quotes and all),
/// observe.
fn case_rows(case: u32, value: &str) -> String {
    let minute = case % 50;
    format!(
        "c{case:03},offer,2026-01-01T10:{minute:02}:00Z,j{case},L,1,w,600,,\n\
         c{case:03},ack,2026-01-01T10:{minute:02}:01Z,,L,1,w,,,\n\
         c{case:03},progress,2026-01-01T10:{minute:02}:02Z,,L,1,w,,1,{value}\n\
         c{case:03},observe,2026-01-01T10:{minute:02}:09Z,,,,,,,\n"
    )
}

/// Cases `from..to`, with the progress value `value` gives each.
fn cases(from: u32, to: u32, value: &dyn Fn(u32) -> String) -> String {
    (from..to)
        .map(|case| case_rows(case, &value(case)))
        .collect()
}

/// Where the split cuts `text`: the first line start after its middle.
fn cut(text: &str) -> usize {
    let middle = text.len() / 2;
    middle + text[middle..].find('\n').unwrap() + 1
}

/// Every progress value quoted, some with commas, doubled quotes or a line end.
fn quoted_value(case: u32) -> String {
    match case % 4 {
        0 => format!("\"{case},5%\""),
        1 => format!("\"phase \"\"{case}\"\"\""),
        2 => "\"two\nlines\"".to_owned(),
        _ => "\"\"".to_owned(),
    }
}

#[test]
fn a_file_quoted_everywhere_matches_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "\"case_id\",\"event\",observed_at,job_id,lease_id,generation,holder,lease_duration,progress_seq,\"progress_value\"\n{}",
        cases(0, 300, &quoted_value)
    );
    let source = write_file(dir.path(), "quoted.csv", text.as_bytes());
    assert_split_same_as_reference(&source, "quoted everywhere");
    let crlf = text.replace('\n', "\r\n");
    let source = write_file(dir.path(), "quoted-crlf.csv", crlf.as_bytes());
    assert_split_same_as_reference(&source, "quoted everywhere, CRLF");
    let cr = text.replace('\n', "\r");
    let source = write_file(dir.path(), "quoted-cr.csv", cr.as_bytes());
    assert_split_same_as_reference(&source, "quoted everywhere, lone CR");
}

#[test]
fn a_quoted_line_end_across_the_cut_matches_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    // One long quoted cell in the middle, its line end late in it: the middle of the file
    // falls before that line end, so the cut is inside the cell. What follows the line end
    // looks like rows (a reader started there takes it for rows), and like an unterminated
    // quote.
    for (name, after) in [
        ("across.csv", "end of note".to_owned()),
        (
            "across-fake-rows.csv",
            "c900,offer,2026-01-01T10:00:00Z,j900,L,1,w,600,,\nc000,renew,2026-01-01T11:00:00Z,,L,1,w,,,\n".to_owned(),
        ),
        ("across-fake-quote.csv", "a stray \"\" here, \"\"\n".to_owned()),
    ] {
        let first = cases(0, 150, &quoted_value);
        let second = cases(151, 300, &quoted_value);
        let cell = format!("\"{}\n{after}\"", "x".repeat(3000));
        let middle = case_rows(150, &cell);
        let text = format!("{HEADER}{first}{middle}{second}");
        let starts = HEADER.len() + first.len();
        let cut = cut(&text);
        assert!(
            starts < cut && cut < starts + middle.len(),
            "{name}: the cut ({cut}) is inside the long cell ({starts}..)"
        );
        let source = write_file(dir.path(), name, text.as_bytes());
        assert_split_same_as_reference(&source, name);
    }
}

#[test]
fn a_stray_quote_inside_an_unquoted_cell_matches_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    // An odd number of `"` before the cut, none of them quoting: by quote parity the cut
    // would be inside a quoted cell; it is not.
    let value = |case: u32| match case {
        7 => "5\"%".to_owned(),
        200 => "say \"hi".to_owned(),
        _ => format!("{}%", case % 100),
    };
    let text = format!("{HEADER}{}", cases(0, 300, &value));
    let cut = cut(&text);
    assert_eq!(text[..cut].matches('"').count(), 1);
    assert!(text[cut..].starts_with('c'), "the cut is a row start");
    let source = write_file(dir.path(), "stray.csv", text.as_bytes());
    assert_split_same_as_reference(&source, "stray quote");
    // And with a quoted line end after the stray quote, in each half.
    let value = |case: u32| match case {
        7 => "5\"%".to_owned(),
        9 | 250 => "\"a\nb\"".to_owned(),
        _ => format!("{}%", case % 100),
    };
    let text = format!("{HEADER}{}", cases(0, 300, &value));
    let source = write_file(dir.path(), "stray-then-quoted.csv", text.as_bytes());
    assert_split_same_as_reference(&source, "stray quote, then a quoted line end");
}

#[test]
fn blank_lines_at_the_cut_match_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    for (name, blank) in [
        ("blank-lf.csv", "\n"),
        ("blank-crlf.csv", "\r\n"),
        // Lone `\r`s end lines too; the cut is after a `\n`.
        ("blank-cr.csv", "\r\r\n"),
        ("blank-spaces.csv", "  ,,\n"),
    ] {
        // The middle falls among blank lines, inside one case (its rows on either side).
        let first = cases(0, 150, &quoted_value);
        let second = cases(151, 300, &quoted_value);
        let split_case = case_rows(150, "\"50,5%\"");
        let (head, tail) = split_case.split_at(split_case.find("c150,ack").unwrap());
        let blanks = blank.repeat(4000 / blank.len());
        let text = format!("{HEADER}{first}{head}{blanks}{tail}{second}");
        let starts = HEADER.len() + first.len() + head.len();
        let cut = cut(&text);
        assert!(
            starts < cut && cut < starts + blanks.len(),
            "{name}: the cut ({cut}) is among the blank lines ({starts}..)"
        );
        let source = write_file(dir.path(), name, text.as_bytes());
        assert_split_same_as_reference(&source, name);
        // The same with the blank lines ending exactly at the cut: the next byte starts a row.
        let text = format!("{HEADER}{first}{head}{blank}{tail}{second}");
        let source = write_file(dir.path(), &format!("one-{name}"), text.as_bytes());
        assert_split_same_as_reference(&source, &format!("one {name}"));
    }
}

#[test]
fn a_case_coming_back_across_the_cut_matches_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let body = cases(0, 300, &quoted_value);
    // The first case again near the end, and a case of the first half again just after the
    // cut: the first half closed them long before (with few cases open).
    let cut_at = cut(&format!("{HEADER}{body}"));
    let after_cut = body[cut_at - HEADER.len()..].find("\nc").unwrap() + cut_at - HEADER.len() + 1;
    let text = format!(
        "{HEADER}{}c010,renew,2026-01-01T10:59:00Z,,L,1,w,,,\n{}c000,renew,2026-01-01T10:59:00Z,,L,1,w,,,\"\"\n",
        &body[..after_cut],
        &body[after_cut..],
    );
    let source = write_file(dir.path(), "came-back.csv", text.as_bytes());
    assert_split_same_as_reference(&source, "came back");
}

#[test]
fn errors_in_both_halves_have_the_reference_lines() {
    let dir = tempfile::tempdir().unwrap();
    // Quoted line ends in both halves (so lines and records differ), a bad event in each
    // half, a fault (a progress sequence going back), a ragged row and an unterminated
    // quote at the very end.
    let body = cases(0, 300, &|case| match case {
        40 | 260 => "\"a\nb\nc\"".to_owned(),
        _ => quoted_value(case),
    });
    let body = body
        .replace("c020,ack", "c020,akc")
        .replace("c280,ack", "c280,akc")
        .replace(
            "c270,observe,2026-01-01T10:20:09Z,,,,,,,",
            "c270,progress,2026-01-01T10:20:09Z,,L,1,w,,0,",
        )
        .replace(
            "c100,observe,2026-01-01T10:00:09Z,,,,,,,",
            "c100,observe,2026-01-01T10:00:09Z,,,,,,",
        );
    let text = format!("{HEADER}{body}c301,offer,\"2026-01-01T10:00:00Z\n");
    let source = write_file(dir.path(), "errors.csv", text.as_bytes());
    assert_split_same_as_reference(&source, "errors in both halves");
    let errors = split(&source, &CsvMatrix, 4096).unwrap_err();
    let line_of = |needle: &str| text[..text.find(needle).unwrap()].matches('\n').count() + 1;
    for (needle, column) in [
        ("c020,akc", "event"),
        ("c280,akc", "event"),
        ("c270,progress,2026-01-01T10:20:09Z", "progress_seq"),
    ] {
        let expected = format!("errors.csv:{}: {column}", line_of(needle));
        assert!(errors.contains(&expected), "{expected} in {errors}");
    }
    let ragged = format!(
        "errors.csv:{}: the row has 9 cells",
        line_of("c100,observe")
    );
    assert!(errors.contains(&ragged), "{ragged} in {errors}");
    let unterminated = format!("errors.csv:{}: unterminated quote", line_of("c301,offer"));
    assert!(errors.contains(&unterminated), "{unterminated} in {errors}");
}

#[test]
fn messy_files_match_the_reference_wherever_the_cut_falls() {
    // `generate --style messy` files (quoted cells, blank lines, scrambled headers, cases
    // interleaved): the cut falls somewhere different in each. Each again with the row
    // before the cut given a quoted note holding a line end, so that the cut is inside it.
    let dir = tempfile::tempdir().unwrap();
    for seed in 1..=4 {
        let options = Options {
            seed,
            cases: 40 + seed * 7,
            rows_per_case: (3, 16),
            interleave: 1 + seed % 4,
            mix: default_mix(),
        };
        let mut bytes = Vec::new();
        write_messy_cases(&options, &mut bytes, &mut |_| {}).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        let source = write_file(dir.path(), &format!("messy-{seed}.csv"), text.as_bytes());
        assert_split_same_as_reference(&source, &format!("messy seed {seed}"));

        // A line end in a quoted cell across the cut: the last cell of the row before the
        // cut becomes a long quoted note (so the row keeps the header's count of cells).
        let cut = cut(&text);
        let line_start = text[..cut - 1].rfind('\n').unwrap() + 1;
        let line = &text[line_start..cut - 1];
        let Some(comma) = line.rfind(',') else {
            continue;
        };
        // As long as the file: the middle falls among the `n`s.
        let note = "n".repeat(text.len());
        let quoted = format!(
            "{}{},\"{note}\nnote\"\n{}",
            &text[..line_start],
            &line[..comma],
            &text[cut..]
        );
        let note_at = line_start + comma + 2;
        assert!((note_at..note_at + note.len()).contains(&(quoted.len() / 2)));
        let source = write_file(
            dir.path(),
            &format!("messy-{seed}-across.csv"),
            quoted.as_bytes(),
        );
        assert_split_same_as_reference(&source, &format!("messy seed {seed}, across"));
    }
}
