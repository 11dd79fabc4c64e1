//! `validate` runs on the streaming engine with a window of open cases: its report must be
//! the whole-file one's (`validate`), error for error and warning for warning, on plain and
//! messy files with more cases than the window holds, several files, a file with input
//! errors, an empty file, and cases that come back after the engine let them go (rebuilt
//! from their own lines: once, many at once, twice, from standard input).

use std::io::Write;
use std::path::Path;

use leasejudge::generate::{default_mix, write_cases, write_messy_cases, Options};
use leasejudge::input::Source;
use leasejudge::validation::{validate, validate_streaming, Report, OPEN_CASES};

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

fn same(sources: &[Source]) -> Report {
    let streamed = validate_streaming(sources, None, None).unwrap();
    let whole = shown(&validate(sources, None, None));
    assert_eq!(shown(&streamed), whole);
    // With `--max-warnings`, the first N of the same list, and the same counts.
    for limit in [0, 1, 7, 150] {
        let listed = validate_streaming(sources, None, Some(limit)).unwrap();
        let mut expected = whole.clone();
        let total = streamed.warnings.total();
        let errors = streamed.errors.len();
        if total > limit {
            expected.drain(errors + limit..errors + total);
        }
        assert_eq!(shown(&listed), expected, "--max-warnings {limit}");
        assert_eq!(shown(&validate(sources, None, Some(limit))), expected);
    }
    streamed
}

#[test]
fn streamed_validation_reports_as_the_whole_file_one() {
    let dir = tempfile::tempdir().unwrap();
    let cases = OPEN_CASES as u64 + 500;
    let mut plain = Vec::new();
    write_cases(&options(5, cases), &mut plain).unwrap();
    let mut messy = Vec::new();
    write_messy_cases(&options(6, cases), &mut messy, &mut |_| {}).unwrap();
    let plain = source(dir.path(), "plain.csv", &plain);
    let messy_source = source(dir.path(), "messy.csv", &messy);

    let report = same(&[plain.clone(), messy_source.clone()]);
    assert!(report.errors.is_empty());
    // Pending cases, cases that end before a deadline, and the messy file's unknown column.
    assert!(report.warnings.total() > 100, "{}", report.warnings.total());

    // A case that comes back after every other: the engine let it go and rebuilds it.
    let mut back = std::fs::read(plain.path.as_ref().unwrap()).unwrap();
    writeln!(
        back,
        "case-00000001,observe,2027-01-01T00:00:00Z,,,,,,,,,,,"
    )
    .unwrap();
    let back = source(dir.path(), "back.csv", &back);
    same(std::slice::from_ref(&back));
    // Many cases come back, more than are kept open at once, some twice, with warnings
    // that change (a pending case acknowledged late) or appear.
    let mut many = std::fs::read(plain.path.as_ref().unwrap()).unwrap();
    for round in 0..2u64 {
        for case in (0..cases).step_by(if round == 0 { 1 } else { 5 }) {
            writeln!(
                many,
                "case-{case:08},observe,2027-01-0{}T00:00:00Z,,,,,,,,,,,",
                round + 1
            )
            .unwrap();
        }
    }
    let many = source(dir.path(), "many.csv", &many);
    same(std::slice::from_ref(&many));
    // The same from standard input (read twice, so kept in a file first).
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
    let piped = run(
        &["validate", "-"],
        std::fs::File::open(back_path).unwrap().into(),
    );
    let named = run(&["validate", &back.name], std::process::Stdio::null());
    assert_eq!(piped.0, named.0);
    assert_eq!(piped.1, named.1.replace(&back.name, "-"));
    assert!(piped.1.contains("warning: -:"), "{}", piped.1);

    // Input errors (a bad timestamp, a case not starting with an offer, a time going back),
    // and an empty file next to a good one.
    let mut bad = messy.clone();
    writeln!(bad).unwrap();
    let text = String::from_utf8(bad).unwrap();
    let broken = text
        .replacen("2026-01-01T00:00:3", "2026-01-01 00:00:3", 3)
        .replacen(",offer,", ",ack,", 2);
    let broken = source(dir.path(), "broken.csv", broken.as_bytes());
    let report = same(&[broken, source(dir.path(), "empty.csv", b"")]);
    assert!(report.errors.len() >= 2, "{:?}", report.errors);
    same(&[
        messy_source,
        source(
            dir.path(),
            "header-only.csv",
            b"case_id,event,observed_at\n",
        ),
    ]);
}

#[test]
fn long_cases_close_early_and_report_as_the_whole_file() {
    // More rows than the open cases may keep (65,536): the oldest are closed early, and
    // those still going come back.
    let dir = tempfile::tempdir().unwrap();
    let long = Options {
        rows_per_case: (300, 400),
        interleave: 3,
        ..options(13, 240)
    };
    let mut bytes = Vec::new();
    write_cases(&long, &mut bytes).unwrap();
    same(&[source(dir.path(), "long.csv", &bytes)]);
}
