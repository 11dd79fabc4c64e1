//! `reorder` keeps only the engine's window of cases open: a case that comes back after the
//! window let it go is explored again whole, its record (its report lines and its counts)
//! taking the place of the first, so that it is reported and counted once.

use std::io::Write;
use std::process::Command;

use leasejudge::generate::{default_mix, write_cases, Options};
use leasejudge::streaming::DEFAULT_OPEN_CASES as OPEN_CASES;

#[test]
fn a_case_back_after_every_other_is_counted_once() {
    let dir = tempfile::tempdir().unwrap();
    let cases = OPEN_CASES as u64 + 50;
    let options = Options {
        seed: 21,
        cases,
        rows_per_case: (3, 6),
        interleave: 8,
        mix: default_mix(),
    };
    let mut bytes = Vec::new();
    write_cases(&options, &mut bytes).unwrap();
    writeln!(
        bytes,
        "case-00000000,observe,2027-01-01T00:00:00Z,,,,,,,,,,,"
    )
    .unwrap();
    let file = dir.path().join("back.csv");
    std::fs::write(&file, &bytes).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .args(["reorder", file.to_str().unwrap(), "-n", "4"])
        .output()
        .unwrap();
    assert!(run.status.code() == Some(0) || run.status.code() == Some(1));
    let report = String::from_utf8(run.stdout).unwrap();
    let last = report.lines().last().unwrap();
    assert!(last.starts_with(&format!("{cases} cases, ")), "{last}");
    // Its report lines (if any) come once, in its place: before every other case's.
    let first_case_lines: Vec<usize> = report
        .lines()
        .enumerate()
        .filter(|(_, line)| line.contains("case case-00000000:"))
        .map(|(at, _)| at)
        .collect();
    assert!(first_case_lines.iter().enumerate().all(|(i, at)| *at == i));
}
