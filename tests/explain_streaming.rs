//! `explain -f text|json` writes cases as they close, in bounded memory: its bytes must be
//! those of the whole-file trace (every case kept, then rendered), with more cases than the
//! window holds, interleaved, messy, with `--case`, with `--as-of`, and with cases that come
//! back after they were written (the engine rebuilds each from its own lines and writes its
//! trace again in its place: once, many, twice, asked for by `--case`, from standard input).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use leasejudge::commands::explain::traces;
use leasejudge::explain::stream::OPEN_CASES;
use leasejudge::explain::Format;
use leasejudge::generate::{default_mix, write_cases, write_messy_cases, Options};
use leasejudge::lease::Timestamp;

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

fn same_both_ways(file: &Path) {
    let name = file.to_str().unwrap();
    for (format, flag) in [(Format::Json, "json"), (Format::Text, "text")] {
        assert_eq!(
            explain(&[name, "-f", flag]),
            whole(file, format, &[], None),
            "{name} -f {flag}"
        );
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn streamed_explanations_are_the_whole_file_ones() {
    let dir = tempfile::tempdir().unwrap();
    let cases = OPEN_CASES as u64 + 200;

    let mut plain = Vec::new();
    write_cases(&options(4, cases, 8), &mut plain).unwrap();
    let plain_file = write(dir.path(), "plain.csv", &plain);
    same_both_ways(&plain_file);

    let mut messy = Vec::new();
    write_messy_cases(&options(3, cases, 4), &mut messy, &mut |_| {}).unwrap();
    let messy_file = write(dir.path(), "messy.csv", &messy);
    same_both_ways(&messy_file);

    // The first case comes back after every other case: rebuilt, same bytes.
    let mut back = plain.clone();
    writeln!(
        back,
        "case-00000000,observe,2027-01-01T00:00:00Z,,,,,,,,,,,"
    )
    .unwrap();
    let back_file = write(dir.path(), "back.csv", &back);
    same_both_ways(&back_file);
    // The same from standard input (copied as it is read, to be read again).
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

    // Many cases come back after the window let them go (more than are kept open at once),
    // some twice; one of them asked for by --case.
    let mut many = plain.clone();
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
    let many_file = write(dir.path(), "many.csv", &many);
    same_both_ways(&many_file);
    let wanted = vec!["case-00000014".to_owned()];
    assert_eq!(
        explain(&[
            many_file.to_str().unwrap(),
            "-f",
            "text",
            "--case",
            &wanted[0]
        ]),
        whole(&many_file, Format::Text, &wanted, None)
    );

    // Only some cases, one of them the last; and a later --as-of.
    let wanted = vec!["case-00000007".to_owned(), format!("case-{:08}", cases - 1)];
    let as_of = "2027-06-01T00:00:00Z";
    let name = plain_file.to_str().unwrap();
    assert_eq!(
        explain(&[
            name,
            "-f",
            "json",
            "--case",
            &wanted.join(","),
            "--as-of",
            as_of
        ]),
        whole(
            &plain_file,
            Format::Json,
            &wanted,
            Some(Timestamp::parse(as_of).unwrap())
        )
    );
    // No case selected at all: an empty JSON array, as before.
    let empty = write(
        dir.path(),
        "empty.csv",
        plain.split(|&b| b == b'\n').next().unwrap(),
    );
    assert_eq!(explain(&[empty.to_str().unwrap(), "-f", "json"]), b"[]\n");
}

#[test]
fn long_cases_close_early_and_give_the_whole_file_ones() {
    // 240 cases of 300 to 400 rows, three at a time: more rows than the open cases may keep
    // (65,536), so the oldest cases are closed early (and those still going come back).
    let dir = tempfile::tempdir().unwrap();
    let long = Options {
        rows_per_case: (300, 400),
        ..options(13, 240, 3)
    };
    let mut bytes = Vec::new();
    write_cases(&long, &mut bytes).unwrap();
    let file = write(dir.path(), "long.csv", &bytes);
    same_both_ways(&file);
}
