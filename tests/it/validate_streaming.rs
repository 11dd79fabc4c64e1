//! `validate` runs on the streaming engine with a window of open cases: its report must be
//! the whole-file one's (`validate`), error for error and warning for warning, on plain and
//! messy files with more cases than the window holds, several files, a file with input
//! errors, an empty file, and cases that come back after the engine let them go (rebuilt
//! from their own lines: once, many at once, twice, from standard input).

use std::io::Write;
use std::path::Path;

use leasejudge::generate::{default_mix, write_cases, write_messy_cases, Options};
use leasejudge::input::Source;
use leasejudge::streaming::{Window, DEFAULT_KEPT_ROWS};
use leasejudge::validation::{validate_streaming, Report};

use crate::oracle::validate::validate;

fn options(seed: u64, cases: u64) -> Options {
    Options {
        seed,
        cases,
        rows_per_case: (1, 8),
        interleave: 8,
        mix: default_mix(),
    }
}

fn source(dir: &Path, name: &str, bytes: &[u8]) -> Source {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    Source::file(path)
}

fn shown(report: &Report) -> Vec<String> {
    let mut lines: Vec<String> = report.errors.iter().map(|e| format!("error {e}")).collect();
    lines.extend(
        report
            .warnings
            .listed()
            .unwrap()
            .map(|w| format!("warning {}", w.unwrap())),
    );
    lines.push(format!(
        "{} cases, {} rows, {} warnings: {}",
        report.cases,
        report.rows,
        report.warnings.total(),
        report.warnings.by_kind()
    ));
    lines
}

/// The window of open cases the streamed runs keep: small, so that a hundred cases go
/// past it (the command's is `Window::COMMAND.open_cases`; the report must not depend on it).
const WINDOW: usize = 16;

/// The rows the open cases of [`long_cases`] keep, all together, before the oldest are
/// closed (the command's is `leasejudge::streaming::DEFAULT_KEPT_ROWS`).
const LONG_KEPT_ROWS: usize = 256;

/// The `--max-warnings` limits each file is validated with, besides none.
const LIMITS: [usize; 4] = [0, 1, 7, 150];

/// The streamed report of `sources` is the whole-file one, without a limit on the warnings
/// listed and with each of `limits` (the first N of the same list, and the same counts).
fn same_with(sources: &[Source], limits: &[usize]) -> Report {
    same_within(sources, limits, DEFAULT_KEPT_ROWS)
}

/// [`same_with`], the open cases keeping at most `kept_rows` rows.
/// Each report is made twice: a lone file read whole, and read as two halves on two threads
/// (however small it is, when there are two cores).
fn same_within(sources: &[Source], limits: &[usize], kept_rows: usize) -> Report {
    let window = Window {
        open_cases: WINDOW,
        kept_rows,
        split_min_bytes: u64::MAX,
        ..Window::COMMAND
    };
    let split = Window {
        split_min_bytes: 1,
        ..window
    };
    let streamed = validate_streaming(sources, None, None, true, window).unwrap();
    for lint in [true, false] {
        assert_eq!(
            shown(&validate_streaming(sources, None, None, lint, split).unwrap()),
            shown(&validate_streaming(sources, None, None, lint, window).unwrap()),
            "read as two halves, lint {lint}"
        );
    }
    let whole = shown(&validate(sources, None, None, true));
    assert_eq!(shown(&streamed), whole);
    for &limit in limits {
        let listed = validate_streaming(sources, None, Some(limit), true, window).unwrap();
        let halves = validate_streaming(sources, None, Some(limit), true, split).unwrap();
        assert_eq!(
            shown(&halves),
            shown(&listed),
            "--max-warnings {limit}, two halves"
        );
        let mut expected = whole.clone();
        let total = streamed.warnings.total();
        let errors = streamed.errors.len();
        if total > limit {
            expected.drain(errors + limit..errors + total);
        }
        assert_eq!(shown(&listed), expected, "--max-warnings {limit}");
        assert_eq!(shown(&validate(sources, None, Some(limit), true)), expected);
    }
    streamed
}

/// [`same_with`] every limit.
fn same(sources: &[Source]) -> Report {
    same_with(sources, &LIMITS)
}

/// More cases than the window holds (it lets the oldest go): generated plainly, or messily.
fn past_the_window(dir: &Path, messy: bool) -> Source {
    past_a_window_of(dir, messy, WINDOW)
}

/// More cases than a window of `window` holds.
fn past_a_window_of(dir: &Path, messy: bool, window: usize) -> Source {
    let cases = window as u64 + 100;
    let mut bytes = Vec::new();
    if messy {
        write_messy_cases(&options(6, cases), &mut bytes, &mut |_| {}).unwrap();
        source(dir, "messy.csv", &bytes)
    } else {
        write_cases(&options(5, cases), &mut bytes).unwrap();
        source(dir, "plain.csv", &bytes)
    }
}

/// The plain file past a window of `window` with `rows` appended, as `name`.
fn plain_and(dir: &Path, name: &str, rows: &[u8], window: usize) -> Source {
    let plain = past_a_window_of(dir, false, window);
    let mut bytes = std::fs::read(plain.path.as_ref().unwrap()).unwrap();
    bytes.extend_from_slice(rows);
    source(dir, name, &bytes)
}

/// The first case again after every other: the engine, with a window of `window`, let it go
/// and rebuilds it.
fn first_case_back(dir: &Path, window: usize) -> Source {
    plain_and(
        dir,
        "back.csv",
        b"case-00000001,observe,2027-01-01T00:00:00Z,,,,,,,,,,,\n",
        window,
    )
}

/// Every case again after the window let them go (more than are kept open at once), every
/// fifth twice, with warnings that change (a pending case acknowledged late) or appear.
fn many_cases_back(dir: &Path) -> Source {
    let cases = WINDOW as u64 + 100;
    let mut rows = Vec::new();
    for round in 0..2u64 {
        for case in (0..cases).step_by(if round == 0 { 1 } else { 5 }) {
            writeln!(
                rows,
                "case-{case:08},observe,2027-01-0{}T00:00:00Z,,,,,,,,,,,",
                round + 1
            )
            .unwrap();
        }
    }
    plain_and(dir, "many.csv", &rows, WINDOW)
}

#[test]
fn plain_and_messy_files_past_the_window_report_as_the_whole_files_do() {
    let dir = tempfile::tempdir().unwrap();
    let plain = past_the_window(dir.path(), false);
    let messy = past_the_window(dir.path(), true);
    let report = same(&[plain, messy]);
    assert!(report.errors.is_empty());
    // Pending cases, cases that end before a deadline, and the messy file's unknown column.
    assert!(report.warnings.total() > 20, "{}", report.warnings.total());
}

#[test]
fn a_case_back_after_every_other_reports_as_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    same(&[first_case_back(dir.path(), WINDOW)]);
}

#[test]
fn many_cases_back_some_twice_report_as_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    same_with(&[many_cases_back(dir.path())], &LIMITS[..2]);
}

#[test]
fn many_cases_back_some_twice_list_the_first_warnings_as_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    same_with(&[many_cases_back(dir.path())], &LIMITS[2..]);
}

#[test]
fn standard_input_read_again_reports_as_the_file_does() {
    // Read twice (the first case comes back), so kept in a file first.
    let dir = tempfile::tempdir().unwrap();
    // The command's own window, past which the case went.
    let back = first_case_back(dir.path(), Window::COMMAND.open_cases);
    let run = |args: &[&str], stdin: std::process::Stdio| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_leasejudge"))
            .args(args)
            .stdin(stdin)
            .output()
            .unwrap();
        assert!(out.status.success());
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let back_path = back.path.as_ref().unwrap();
    // With the case-level notes (--lint), which come from the engine's pass over the cases.
    let piped = run(
        &["validate", "--lint", "-"],
        std::fs::File::open(back_path).unwrap().into(),
    );
    let named = run(
        &["validate", "--lint", &back.name],
        std::process::Stdio::null(),
    );
    assert_eq!(piped.0, named.0);
    assert_eq!(piped.1, named.1.replace(&back.name, "-"));
    assert!(piped.1.contains("warning: -:"), "{}", piped.1);
}

#[test]
fn input_errors_and_an_empty_file_report_as_the_whole_files_do() {
    // A bad timestamp, a case not starting with an offer, a time going back.
    let dir = tempfile::tempdir().unwrap();
    let messy = past_the_window(dir.path(), true);
    let mut bad = std::fs::read(messy.path.as_ref().unwrap()).unwrap();
    writeln!(bad).unwrap();
    let text = String::from_utf8(bad).unwrap();
    let broken = text
        .replacen("2026-01-01T00:00:3", "2026-01-01 00:00:3", 3)
        .replacen(",offer,", ",ack,", 2);
    let broken = source(dir.path(), "broken.csv", broken.as_bytes());
    let report = same(&[broken, source(dir.path(), "empty.csv", b"")]);
    assert!(report.errors.len() >= 2, "{:?}", report.errors);
}

#[test]
fn a_header_only_file_beside_a_messy_one_reports_as_the_whole_files_do() {
    let dir = tempfile::tempdir().unwrap();
    same(&[
        past_the_window(dir.path(), true),
        source(
            dir.path(),
            "header-only.csv",
            b"case_id,event,observed_at\n",
        ),
    ]);
}

/// More rows than the open cases may keep ([`LONG_KEPT_ROWS`]) in 40 cases of 30 to 40 rows,
/// three at a time: the oldest are closed early, and those still going come back.
fn long_cases(dir: &Path) -> Source {
    let long = Options {
        rows_per_case: (30, 40),
        interleave: 3,
        ..options(13, 40)
    };
    let mut bytes = Vec::new();
    write_cases(&long, &mut bytes).unwrap();
    source(dir, "long.csv", &bytes)
}

#[test]
fn long_cases_close_early_and_report_as_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    same_within(&[long_cases(dir.path())], &LIMITS[..2], LONG_KEPT_ROWS);
}

#[test]
fn long_cases_close_early_and_list_the_first_warnings_as_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    same_within(&[long_cases(dir.path())], &LIMITS[2..], LONG_KEPT_ROWS);
}
