//! The streaming adjudicator against the straightforward one (`judge_sources`, every case in
//! memory) on generated files: the same matrix bytes, the same audit, the same errors, with
//! one file or several, one thread or two, contiguous or interleaved cases, and cases that
//! reappear after being closed. Also: `generate` is reproducible and its golden is the
//! engine's matrix, and NDJSON on standard input is audited line by line as it arrives.

use crate::matrix_bytes;
use crate::reference;
use matrix_bytes::{matrix_bytes, Encoding, ENCODINGS};
use reference::judge_sources;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use leasejudge::generate::{default_mix, parse_mix, write_cases, Options, Scenario};
use leasejudge::input::Source;
use leasejudge::lease::Timestamp;
use leasejudge::matrix::{CsvMatrix, JsonMatrix};
use leasejudge::streaming::{judge, Sink, StreamError, StreamSettings, EVERY_CASE};

fn generated(seed: u64, cases: u64, interleave: u64) -> Vec<u8> {
    let options = Options {
        seed,
        cases,
        rows_per_case: (3, 16),
        interleave,
        mix: default_mix(),
    };
    let mut out = Vec::new();
    write_cases(&options, &mut out).unwrap();
    out
}

fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> Source {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    Source::file(path)
}

type Audit = Vec<String>;

/// The straightforward run: every case kept, the matrix written at the end.
fn reference(sources: &[Source], encoding: Encoding) -> Result<(Vec<u8>, Audit), String> {
    reference_at(sources, encoding, None)
}

fn reference_at(
    sources: &[Source],
    encoding: Encoding,
    as_of: Option<Timestamp>,
) -> Result<(Vec<u8>, Audit), String> {
    let mut audit = Vec::new();
    let judged = judge_sources(sources, None, as_of, &mut |at, row, outcome| {
        audit.push(format!(
            "{} {} {} {:?}",
            row.case_id, at.file, at.line, outcome
        ));
    })
    .map_err(|e| e.to_string())?;
    Ok((matrix_bytes(&judged, encoding), audit))
}

fn streamed(
    sources: &[Source],
    encoding: Encoding,
    open_cases: usize,
    jobs: usize,
) -> Result<(Vec<u8>, Audit), String> {
    streamed_at(sources, encoding, open_cases, jobs, None)
}

fn streamed_at(
    sources: &[Source],
    encoding: Encoding,
    open_cases: usize,
    jobs: usize,
    as_of: Option<Timestamp>,
) -> Result<(Vec<u8>, Audit), String> {
    let settings = StreamSettings {
        run_as_of: as_of,
        open_cases,
        jobs,
        ..StreamSettings::default()
    };
    streamed_with(sources, encoding, settings)
}

/// The matrix and audit of a run with `settings` (the audit asked for, no file split).
fn streamed_with(
    sources: &[Source],
    encoding: Encoding,
    settings: StreamSettings<'_>,
) -> Result<(Vec<u8>, Audit), String> {
    let settings = StreamSettings {
        rows_observed: true,
        split_min_bytes: u64::MAX,
        ..settings
    };
    let mut audit = Vec::new();
    let mut out = Vec::new();
    judge(
        sources,
        &settings,
        Sink::Matrix(encoding),
        &mut |at, row, outcome| {
            audit.push(format!(
                "{} {} {} {:?}",
                row.case_id, at.file, at.line, outcome
            ));
        },
    )
    .and_then(|matrix| Ok(matrix.write_to(&mut out)?))
    .map_err(|e| match e {
        StreamError::Input(errors) => errors.to_string(),
        StreamError::Io(e) => panic!("i/o: {e}"),
    })?;
    Ok((out, audit))
}

/// A lone file read as two halves on two threads, however small it is (the audit is not
/// asked for: a file is never split when it is).
fn streamed_split(
    sources: &[Source],
    encoding: Encoding,
    open_cases: usize,
) -> Result<Vec<u8>, String> {
    let settings = StreamSettings {
        open_cases,
        jobs: 2,
        split_min_bytes: 1,
        ..StreamSettings::default()
    };
    let mut out = Vec::new();
    judge(
        sources,
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

/// Every combination of settings gives the reference's matrix, audit and errors.
fn assert_same_as_reference(sources: &[Source], label: &str) {
    assert_same_as_reference_in(sources, label, &ENCODINGS);
}

/// [`assert_same_as_reference`], the matrix written in each of `encodings`.
fn assert_same_as_reference_in(sources: &[Source], label: &str, encodings: &[Encoding]) {
    for &encoding in encodings {
        let expected = reference(sources, encoding).map(|(matrix, _)| matrix);
        for open_cases in [4096, 3, 1] {
            assert!(
                expected == streamed_split(sources, encoding, open_cases),
                "{label}: split run differs ({encoding:?}, open {open_cases}): {:?}",
                streamed_split(sources, encoding, open_cases)
                    .map(|m| String::from_utf8_lossy(&m).into_owned())
            );
        }
    }
    for &encoding in encodings {
        let expected = reference(sources, encoding);
        for (open_cases, jobs) in [(4096, 1), (4096, 2), (3, 1), (3, 2), (1, 1)] {
            let actual = streamed(sources, encoding, open_cases, jobs);
            match (&expected, &actual) {
                (Ok((matrix, audit)), Ok((actual_matrix, actual_audit))) => {
                    assert!(
                        matrix == actual_matrix,
                        "{label}: matrix differs ({encoding:?}, open {open_cases}, jobs {jobs})"
                    );
                    // With several files on two threads the audit is not asked for.
                    if jobs == 1 || sources.len() == 1 {
                        assert!(
                            audit == actual_audit,
                            "{label}: audit differs ({encoding:?}, open {open_cases}, jobs {jobs})"
                        );
                    }
                }
                (Err(errors), Err(actual_errors)) => assert_eq!(
                    errors, actual_errors,
                    "{label}: errors differ ({encoding:?}, open {open_cases}, jobs {jobs})"
                ),
                _ => panic!(
                    "{label}: one run failed and the other did not: {expected:?} / {actual:?}"
                ),
            }
        }
    }
}

/// 120 generated cases in one file, `interleave` of them going on at once, match the
/// reference in every setting.
fn one_file_matches_the_reference(seed: u64, interleave: u64) {
    let dir = tempfile::tempdir().unwrap();
    let source = write_file(
        dir.path(),
        &format!("g{seed}.csv"),
        &generated(seed, 120, interleave),
    );
    assert_same_as_reference(&[source], &format!("seed {seed}, interleave {interleave}"));
}

#[test]
fn one_file_of_contiguous_cases_matches_the_reference() {
    one_file_matches_the_reference(1, 1);
}

#[test]
fn one_file_of_cases_interleaved_by_4_matches_the_reference() {
    one_file_matches_the_reference(2, 4);
}

#[test]
fn one_file_of_cases_interleaved_by_30_matches_the_reference() {
    one_file_matches_the_reference(3, 30);
}

/// The same rows (of generated cases, interleaved by 5) as CSV, NDJSON and a JSON array,
/// every cell a string: `rows.csv`, `rows.ndjson`, `rows.json`. 60 cases make NDJSON and a
/// JSON array of 85 kB, past the second point of the engine's index of lines and rows (a
/// point every 64 KiB), and with 3 or 1 cases open nearly every row brings a case back.
fn same_rows_three_ways(dir: &Path) -> [Source; 3] {
    let csv = String::from_utf8(generated(21, 60, 5)).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let objects: Vec<String> = lines
        .map(|line| {
            let object: serde_json::Map<String, serde_json::Value> = header
                .iter()
                .zip(line.split(','))
                .filter(|(_, cell)| !cell.is_empty())
                .map(|(k, v)| (k.to_string(), serde_json::Value::String(v.to_string())))
                .collect();
            serde_json::Value::Object(object).to_string()
        })
        .collect();
    [
        write_file(dir, "rows.csv", csv.as_bytes()),
        write_file(dir, "rows.ndjson", objects.join("\n").as_bytes()),
        write_file(
            dir,
            "rows.json",
            format!("[{}]", objects.join(",\n")).as_bytes(),
        ),
    ]
}

/// `source` matches the reference in every setting, and with a late `--as-of`. The matrix
/// is written as CSV only: how it is written does not depend on the input's format (both
/// encodings are compared on generated files above).
fn assert_same_as_reference_and_as_of(source: &Source) {
    let single = std::slice::from_ref(source);
    assert_same_as_reference_in(single, &source.name, &[&CsvMatrix]);
    let late = Timestamp::parse("2026-01-01T00:30:00Z").unwrap();
    for (open_cases, jobs) in [(4096, 2), (2, 1)] {
        assert_eq!(
            reference_at(single, &CsvMatrix, Some(late)),
            streamed_at(single, &CsvMatrix, open_cases, jobs, Some(late)),
            "{} --as-of, open {open_cases}, jobs {jobs}",
            source.name
        );
    }
}

#[test]
fn csv_rows_match_the_reference_in_every_setting_and_as_of() {
    let dir = tempfile::tempdir().unwrap();
    let [csv, _, _] = same_rows_three_ways(dir.path());
    assert_same_as_reference_and_as_of(&csv);
}

#[test]
fn ndjson_rows_match_the_reference_in_every_setting_and_as_of() {
    let dir = tempfile::tempdir().unwrap();
    let [_, ndjson, _] = same_rows_three_ways(dir.path());
    assert_same_as_reference_and_as_of(&ndjson);
}

#[test]
fn json_array_rows_match_the_reference_in_every_setting_and_as_of() {
    let dir = tempfile::tempdir().unwrap();
    let [_, _, array] = same_rows_three_ways(dir.path());
    assert_same_as_reference_and_as_of(&array);
}

#[test]
fn the_same_rows_as_csv_ndjson_or_a_json_array_judge_alike() {
    let dir = tempfile::tempdir().unwrap();
    let sources = same_rows_three_ways(dir.path());
    let matrices: Vec<Vec<u8>> = sources
        .iter()
        .map(|s| {
            streamed(std::slice::from_ref(s), &CsvMatrix, 4096, 2)
                .unwrap()
                .0
        })
        .collect();
    assert_eq!(matrices[0], matrices[1]);
    assert_eq!(matrices[0], matrices[2]);
}

#[test]
fn several_files_match_the_reference_on_one_thread_or_two() {
    let dir = tempfile::tempdir().unwrap();
    let sources: Vec<Source> = (0..4)
        .map(|i| {
            // Distinct case ids per file: the generator numbers cases from 0, so prefix them.
            let text = String::from_utf8(generated(10 + i, 120, 1 + i)).unwrap();
            let text = text.replace("case-", &format!("f{i}-case-"));
            write_file(dir.path(), &format!("part{i}.csv"), text.as_bytes())
        })
        .collect();
    assert_same_as_reference(&sources, "four files");
}

#[test]
fn a_case_id_in_two_files_is_reported_with_both_places() {
    let dir = tempfile::tempdir().unwrap();
    let a = write_file(dir.path(), "a.csv", &generated(5, 50, 1));
    let b = write_file(dir.path(), "b.csv", &generated(6, 50, 1));
    let sources = [a, b];
    assert_same_as_reference(&sources, "duplicate ids");
    let errors = streamed(&sources, &CsvMatrix, 4096, 2).unwrap_err();
    assert!(
        errors.contains("case ids must be unique across files"),
        "{errors}"
    );
    assert!(errors.contains("a.csv:2"), "{errors}");
}

/// Open cases whose texts are long are closed early once they hold 4 MiB together (the
/// 4,096 places would otherwise hold 4,096 holders of up to a record each), and a case
/// closed so that comes back is judged as one case: 700 cases with a 30 KB holder each, all
/// offered before any is acknowledged (21 MB held at once), give the reference's matrix on
/// one thread or two, and read as a split file's halves.
#[test]
fn open_cases_of_long_texts_close_early_and_come_back_as_one_case() {
    let dir = tempfile::tempdir().unwrap();
    let holder = "h".repeat(30_000);
    let mut text = String::from(
        "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n",
    );
    for i in 0..700 {
        text.push_str(&format!(
            "c{i},offer,2026-01-01T10:00:00Z,job-{i},L-{i},1,{holder}{i},60\n"
        ));
    }
    for i in 0..700 {
        let at = if i % 2 == 0 { "10:00:30" } else { "10:01:30" };
        text.push_str(&format!(
            "c{i},ack,2026-01-01T{at}Z,,L-{i},1,{holder}{i},\n"
        ));
    }
    let source = write_file(dir.path(), "long.csv", text.as_bytes());
    let expected = reference(std::slice::from_ref(&source), &CsvMatrix).map(|(m, _)| m);
    for jobs in [1, 2] {
        let actual = streamed(std::slice::from_ref(&source), &CsvMatrix, 4096, jobs);
        assert!(
            actual.as_ref().map(|(m, _)| m) == expected.as_ref(),
            "jobs {jobs}: the matrix differs"
        );
    }
    assert!(expected == streamed_split(std::slice::from_ref(&source), &CsvMatrix, 4096));
    let matrix = String::from_utf8(expected.unwrap()).unwrap();
    let decisions: Vec<&str> = matrix
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').nth(1).unwrap())
        .collect();
    assert_eq!(decisions.len(), 700);
    assert!(
        decisions.iter().step_by(2).all(|d| *d == "ACTIVE"),
        "{decisions:?}"
    );
}

#[test]
fn a_case_that_reappears_after_closing_is_judged_as_one_case() {
    let dir = tempfile::tempdir().unwrap();
    let text = "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n\
                a,offer,2026-01-01T10:00:00Z,job-a,L-a,1,w,60\n\
                b,offer,2026-01-01T10:00:01Z,job-b,L-b,1,w,60\n\
                c,offer,2026-01-01T10:00:02Z,job-c,L-c,1,w,60\n\
                a,ack,2026-01-01T10:00:03Z,,L-a,1,w,\n\
                d,offer,2026-01-01T10:00:04Z,job-d,L-d,1,w,60\n\
                b,ack,2026-01-01T10:00:05Z,,L-b,1,w,\n";
    let source = write_file(dir.path(), "back.csv", text.as_bytes());
    assert_same_as_reference(std::slice::from_ref(&source), "reappearing");
    let (matrix, _) = streamed(&[source], &CsvMatrix, 1, 1).unwrap();
    let matrix = String::from_utf8(matrix).unwrap();
    let decisions: Vec<&str> = matrix
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').nth(1).unwrap())
        .collect();
    assert_eq!(
        decisions,
        ["ACTIVE", "ACTIVE", "PENDING_ACK", "PENDING_ACK"]
    );
}

#[test]
fn bad_input_gives_the_reference_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from_utf8(generated(8, 60, 3)).unwrap();
    text = text.replacen(",ack,", ",akc,", 2);
    text = text.replacen("2026-01-01T00:01", "2026-01-01 00:01", 1);
    text.push_str("case-00000002,observe\n");
    let source = write_file(dir.path(), "bad.csv", text.as_bytes());
    assert_same_as_reference(std::slice::from_ref(&source), "bad input");
    assert!(streamed(&[source], &CsvMatrix, 4096, 1).is_err());
}

/// Rows of `cases` cases, four each and contiguous: offer, ack, progress, and a last row
/// that `last` writes (given the case number and its minute).
fn four_row_cases(cases: u32, last: &dyn Fn(u32, u32) -> String) -> String {
    let mut text = String::from(
        "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration,progress_seq,progress_value\n",
    );
    for case in 0..cases {
        let minute = case % 50;
        text.push_str(&format!(
            "c{case},offer,2026-01-01T10:{minute:02}:00Z,j{case},L,1,w,600,,\n\
             c{case},ack,2026-01-01T10:{minute:02}:01Z,,L,1,w,,,\n\
             c{case},progress,2026-01-01T10:{minute:02}:02Z,,L,1,w,,1,10%\n"
        ));
        text.push_str(&last(case, minute));
        text.push('\n');
    }
    text
}

#[test]
fn a_split_file_gives_the_reference_errors_with_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    // Every case breaks a rule in its last row (a fault, judged with the case's earlier
    // rows, some of which are in the other half for the case cut in two), and some rows
    // have type errors (found without the case).
    let text = four_row_cases(200, &|case, minute| {
        if case % 7 == 3 {
            format!("c{case},akc,2026-01-01T10:{minute:02}:03Z,,L,1,w,,,")
        } else {
            format!("c{case},progress,2026-01-01T10:{minute:02}:00Z,,L,1,w,,2,")
        }
    });
    let source = write_file(dir.path(), "faults.csv", text.as_bytes());
    assert_same_as_reference(std::slice::from_ref(&source), "faults in both halves");
    let errors = streamed_split(&[source], &CsvMatrix, 4096).unwrap_err();
    // The last row of the last case but one (the last is a type error).
    assert!(errors.contains("faults.csv:797: observed_at"), "{errors}");
    assert!(errors.contains("faults.csv:801: event"), "{errors}");
}

#[test]
fn a_split_file_with_quotes_or_crlf_or_a_case_that_comes_back_matches_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let plain = four_row_cases(301, &|case, minute| {
        format!("c{case},observe,2026-01-01T10:{minute:02}:09Z,,,,,,,")
    });
    // A quoted cell in the first half: the halves are read again as one.
    let quoted_early: String = plain.replacen(",1,10%\n", ",1,\"10%, \"\"early\"\"\"\n", 1);
    // Quoted cells (one holding a line end) only in the second half.
    let at = plain.len() * 3 / 4;
    let at = at + plain[at..].find(",1,10%\n").unwrap();
    let quoted_late = format!(
        "{}{}",
        &plain[..at],
        plain[at..].replacen(",1,10%\n", ",1,\"10%\nand more\"\n", 3)
    );
    let crlf = plain.replace('\n', "\r\n");
    // The first case again at the end: closed by the first half long before.
    let came_back = format!("{plain}c0,renew,2026-01-01T10:59:00Z,,L,1,w,,,\n");
    // Every row an offer: the part of the case cut in two that the second half sees starts
    // with an offer, so the second half judges (and writes) it as a case of its own.
    let offers: String = plain
        .lines()
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            if cells[1] == "event" {
                format!("{line}\n")
            } else {
                let case = &cells[0][1..];
                format!("{},offer,{},j{case},L,1,w,600,,\n", cells[0], cells[2])
            }
        })
        .collect();
    // A quoted cell holding many line ends, across the middle of the file: the cut falls
    // inside it, and the halves are read again as one.
    let (first, second) = plain.split_at(plain.find("c150,offer").unwrap());
    let long_cell = "and more\n".repeat(plain.len() / 8);
    let quoted_across =
        format!("{first}c150x,progress,2026-01-01T10:00:00Z,,L,1,w,,1,\"{long_cell}\"\n{second}");
    // The split cuts at the first line start after the middle: there, one case goes on.
    let cut_inside_a_case = |text: &str| {
        let cut = text.len() / 2 + text[text.len() / 2..].find('\n').unwrap() + 1;
        let before = text[..cut - 1].rsplit('\n').next().unwrap();
        let after = &text[cut..];
        before.split(',').next() == after.split(',').next()
    };
    assert!(cut_inside_a_case(&plain) && cut_inside_a_case(&offers));
    for (name, text) in [
        ("plain.csv", plain.clone()),
        ("quoted-early.csv", quoted_early.clone()),
        ("quoted-late.csv", quoted_late),
        ("crlf.csv", crlf),
        ("came-back.csv", came_back),
        ("offers.csv", offers),
        ("quoted-across.csv", quoted_across),
        // Both: the second half gives up (with few cases open, c250 was let go) while the
        // first half has a quote.
        (
            "quoted-and-back.csv",
            format!("{quoted_early}c250,renew,2026-01-01T10:59:00Z,,L,1,w,,,\n"),
        ),
    ] {
        let source = write_file(dir.path(), name, text.as_bytes());
        assert_same_as_reference(std::slice::from_ref(&source), name);
    }
}

#[test]
fn generate_is_reproducible_and_reaches_every_decision_and_reason() {
    let a = generated(42, 2000, 8);
    assert_eq!(a, generated(42, 2000, 8));
    assert_ne!(a, generated(43, 2000, 8));
    let dir = tempfile::tempdir().unwrap();
    let source = write_file(dir.path(), "g.csv", &a);
    let (matrix, _) = streamed(&[source], &CsvMatrix, 4096, 1).unwrap();
    let matrix = String::from_utf8(matrix).unwrap();
    let mut pairs: Vec<String> = matrix
        .lines()
        .skip(1)
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            format!("{} {}", cells[21], cells[22])
        })
        .collect();
    pairs.sort();
    pairs.dedup();
    assert_eq!(pairs.len(), 17, "every decision and reason pair: {pairs:?}");
    // Each scenario alone ends in the decision and reason it is written for.
    for &scenario in Scenario::ALL {
        let options = Options {
            seed: 1,
            cases: 60,
            rows_per_case: (3, 20),
            interleave: 3,
            mix: parse_mix(&format!("{}=1", scenario.name())).unwrap(),
        };
        let mut out = Vec::new();
        write_cases(&options, &mut out).unwrap();
        let source = write_file(dir.path(), "one.csv", &out);
        let (matrix, _) = streamed(&[source], &CsvMatrix, 4096, 1).unwrap();
        let matrix = String::from_utf8(matrix).unwrap();
        let expected = format!(",{}", scenario.ends_in().replace(' ', ","));
        assert_eq!(matrix.lines().count(), 61);
        assert!(
            matrix.lines().skip(1).all(|l| l.ends_with(&expected)),
            "{}: {matrix}",
            scenario.name()
        );
    }
}

fn leasejudge() -> Command {
    Command::new(env!("CARGO_BIN_EXE_leasejudge"))
}

#[test]
fn generate_command_writes_the_engines_matrix_as_golden() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("practice.csv");
    let golden = dir.path().join("practice.golden.csv");
    let status = leasejudge()
        .args(["generate", "--seed", "7", "--cases", "200", "-o"])
        .arg(&cases)
        .arg("--golden")
        .arg(&golden)
        .status()
        .unwrap();
    assert!(status.success());
    let output = leasejudge()
        .args(["adjudicate", "--format", "csv", "--jobs", "1"])
        .arg(&cases)
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(output.stdout, std::fs::read(&golden).unwrap());
    let again = leasejudge()
        .args(["generate", "--seed", "7", "--cases", "200"])
        .output()
        .unwrap();
    assert_eq!(again.stdout, std::fs::read(&cases).unwrap());
}

#[test]
fn ndjson_on_standard_input_is_audited_as_each_row_arrives() {
    let dir = tempfile::tempdir().unwrap();
    let matrix: PathBuf = dir.path().join("matrix.csv");
    let mut child = leasejudge()
        .args([
            "adjudicate",
            "-",
            "--input-format",
            "ndjson",
            "--audit",
            "-",
            "-o",
        ])
        .arg(&matrix)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "case_id,file,line,event,disposition,reason\n");
    let rows = [
        r#"{"case_id":"live","event":"offer","observed_at":"2026-01-01T10:00:00Z","job_id":"j","lease_id":"L","generation":1,"holder":"w","lease_duration":"30s"}"#,
        r#"{"case_id":"live","event":"ack","observed_at":"2026-01-01T10:00:01Z","lease_id":"L","generation":1,"holder":"w"}"#,
        r#"{"case_id":"live","event":"renew","observed_at":"2026-01-01T10:00:40Z","lease_id":"L","generation":1,"holder":"w","renew_seq":1}"#,
    ];
    let expected = [
        "live,-,1,offer,ACCEPTED,offered\n",
        "live,-,2,ack,ACCEPTED,acked\n",
        "live,-,3,renew,REJECTED,renew_after_expiry\n",
    ];
    for (row, expected) in rows.iter().zip(expected) {
        // Standard input stays open: the audit line must come out before the next row.
        writeln!(stdin, "{row}").unwrap();
        stdin.flush().unwrap();
        line.clear();
        stdout.read_line(&mut line).unwrap();
        assert_eq!(line, expected);
    }
    assert!(
        !matrix.exists(),
        "the matrix is written at the end of input"
    );
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let written = std::fs::read_to_string(&matrix).unwrap();
    assert!(
        written.ends_with(",EXPIRED,renew_after_expiry\n"),
        "{written}"
    );
}

#[test]
fn standard_input_is_read_again_when_a_closed_case_reappears() {
    let text = String::from_utf8(generated(9, 200, 12)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.csv");
    std::fs::write(&file, &text).unwrap();
    let from_file = leasejudge()
        .args(["adjudicate", "--format", "csv", "--open-cases", "2"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(from_file.status.success());
    let mut child = leasejudge()
        .args(["adjudicate", "-", "--format", "csv", "--open-cases", "2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()).unwrap());
    let from_stdin = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(from_stdin.status.success());
    assert_eq!(from_file.stdout, from_stdin.stdout);
}

#[test]
fn many_files_on_two_threads_do_not_hold_a_descriptor_per_file() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("inputs");
    std::fs::create_dir(&inputs).unwrap();
    for i in 0..200 {
        let text = format!(
            "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n\
             c{i},offer,2026-01-01T10:00:00Z,j{i},L,1,w,30\n\
             c{i},ack,2026-01-01T10:00:01Z,,L,1,w,\n"
        );
        std::fs::write(inputs.join(format!("f{i:03}.csv")), text).unwrap();
    }
    // With at most 48 descriptors: 200 files kept open until the merge would fail.
    let limited = Command::new("sh")
        .arg("-c")
        .arg("ulimit -n 48 && exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_leasejudge"))
        .args(["adjudicate", "--format", "csv", "--jobs", "2"])
        .arg(&inputs)
        .output()
        .unwrap();
    assert!(
        limited.status.success(),
        "{}",
        String::from_utf8_lossy(&limited.stderr)
    );
    let one_thread = leasejudge()
        .args(["adjudicate", "--format", "csv", "--jobs", "1"])
        .arg(&inputs)
        .output()
        .unwrap();
    assert_eq!(limited.stdout, one_thread.stdout);
    assert_eq!(
        String::from_utf8(limited.stdout).unwrap().lines().count(),
        201
    );
}

/// An offer row of case `case` at second `second`.
fn offer(case: &str, second: u32) -> String {
    format!(
        "{case},offer,2026-01-01T10:{:02}:{:02}Z,j-{case},L,1,w,600,,\n",
        second / 60,
        second % 60
    )
}

#[test]
fn cases_that_come_back_early_late_twice_broken_or_faulty_match_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from(
        "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration,progress_seq,progress_value\n",
    );
    // c3's first row is bad (no such event): it is broken, and so is what comes back of it.
    for case in 0..40 {
        if case == 3 {
            text.push_str("c3,offr,2026-01-01T10:00:03Z,j-c3,L,1,w,600,,\n");
        } else {
            text.push_str(&offer(&format!("c{case}"), case));
        }
        if case == 20 {
            // Early: c1 comes back after 19 other cases, with an ack.
            text.push_str("c1,ack,2026-01-01T10:00:30Z,,L,1,w,,,\n");
            text.push_str("c3,ack,2026-01-01T10:00:30Z,,L,1,w,,,\n");
        }
    }
    // Late: c0 at the very end; c1 a second time; c2 with a row that breaks a rule (time
    // going back) and another that does not.
    text.push_str("c1,progress,2026-01-01T10:01:00Z,,L,1,w,,1,50%\n");
    text.push_str("c2,ack,2026-01-01T09:00:00Z,,L,1,w,,,\n");
    text.push_str("c2,ack,2026-01-01T10:01:00Z,,L,1,w,,,\n");
    text.push_str("c0,ack,2026-01-01T10:02:00Z,,L,1,w,,,\n");
    let source = write_file(dir.path(), "back.csv", text.as_bytes());
    assert_same_as_reference(std::slice::from_ref(&source), "back");
    let errors = streamed(&[source], &CsvMatrix, 3, 1).unwrap_err();
    assert!(errors.contains("back.csv:45: observed_at"), "{errors}");

    // Without the bad rows the run succeeds, and each case that came back is one row, in
    // its place, judged with all its rows.
    let good: String = text
        .lines()
        .filter(|l| !l.starts_with("c3,") && !l.contains("T09:00"))
        .map(|l| format!("{l}\n"))
        .collect();
    let source = write_file(dir.path(), "back-good.csv", good.as_bytes());
    assert_same_as_reference(std::slice::from_ref(&source), "back, good");
    let (matrix, _) = streamed(&[source], &CsvMatrix, 3, 1).unwrap();
    let matrix = String::from_utf8(matrix).unwrap();
    let ids: Vec<&str> = matrix
        .lines()
        .skip(1)
        .map(|l| &l[..l.find(',').unwrap()])
        .collect();
    let expected: Vec<String> = (0..40)
        .filter(|&c| c != 3)
        .map(|c| format!("c{c}"))
        .collect();
    assert_eq!(ids, expected);
    for (case, state) in [(0, "ACKED"), (1, "ACKED"), (2, "ACKED"), (4, "PENDING")] {
        let row = matrix
            .lines()
            .find(|l| l.starts_with(&format!("c{case},")))
            .unwrap();
        assert!(row.contains(&format!(",{state},")), "{row}");
    }
}

/// Cases that came back kept open at once in [`many_cases_coming_back_match_the_reference`]
/// (the engine's is `DEFAULT_PINNED_CASES`).
const PINNED_CASES: usize = 32;

/// 44 cases come back (more than the [`PINNED_CASES`] kept open once they come back, so the
/// half that came back first is let go again), and every tenth of them comes back a second
/// time: those let go are read again, the others are still open. (A second return for every
/// case proved no more and cost each run a stretch read again per case.)
fn many_cases_coming_back_match_the_reference(encoding: Encoding) {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from(
        "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration,progress_seq,progress_value\n",
    );
    let cases = 44;
    for case in 0..cases {
        text.push_str(&offer(&format!("c{case}"), 0));
    }
    for case in 0..cases {
        text.push_str(&format!("c{case},ack,2026-01-01T10:01:00Z,,L,1,w,,,\n"));
    }
    for case in (0..cases).step_by(10) {
        text.push_str(&format!(
            "c{case},progress,2026-01-01T10:02:00Z,,L,1,w,,1,{}%\n",
            case % 100
        ));
    }
    let source = write_file(dir.path(), "many-back.csv", text.as_bytes());
    let single = std::slice::from_ref(&source);
    let expected = reference(single, encoding).unwrap();
    for (open_cases, jobs) in [(1, 1), (20, 2)] {
        let settings = StreamSettings {
            open_cases,
            jobs,
            pinned_cases: PINNED_CASES,
            ..StreamSettings::default()
        };
        assert!(
            expected == streamed_with(single, encoding, settings).unwrap(),
            "{encoding:?}, open {open_cases}, jobs {jobs}"
        );
    }
}

#[test]
fn more_cases_coming_back_than_are_kept_open_match_the_reference_as_csv() {
    many_cases_coming_back_match_the_reference(&CsvMatrix);
}

#[test]
fn more_cases_coming_back_than_are_kept_open_match_the_reference_as_json() {
    many_cases_coming_back_match_the_reference(&JsonMatrix);
}

#[test]
fn a_case_id_of_an_earlier_file_met_first_in_a_bad_row_is_reported_at_its_first_good_row() {
    let dir = tempfile::tempdir().unwrap();
    let header = "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n";
    let a = format!(
        "{header}x,offer,2026-01-01T10:00:00Z,j,L,1,w,60\ny,offer,2026-01-01T10:00:00Z,j,L,1,w,60\n"
    );
    let b = format!(
        "{header}z,offer,2026-01-01T10:00:00Z,j,L,1,w,60\nx,offr,2026-01-01T10:00:01Z,,L,1,w,\n\
         x,ack,2026-01-01T10:00:01Z,,L,1,w,\nx,ack,2026-01-01T10:00:02Z,,L,1,w,\n"
    );
    let sources = [
        write_file(dir.path(), "a.csv", a.as_bytes()),
        write_file(dir.path(), "b.csv", b.as_bytes()),
    ];
    assert_same_as_reference(&sources, "clash after a bad row");
    let errors = streamed(&sources, &CsvMatrix, 1, 1).unwrap_err();
    assert!(errors.contains("b.csv:4: case_id"), "{errors}");
    assert!(errors.contains("a.csv:2"), "{errors}");
}

#[test]
fn an_audit_of_several_files_lists_every_row_whatever_the_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("in");
    std::fs::create_dir(&inputs).unwrap();
    for i in 0..3 {
        let text = String::from_utf8(generated(30 + i, 20, 2))
            .unwrap()
            .replace("case-", &format!("f{i}-"));
        std::fs::write(inputs.join(format!("f{i}.csv")), text).unwrap();
    }
    let audit = |jobs: &str| {
        let audit = dir.path().join(format!("audit-{jobs}.csv"));
        let status = leasejudge()
            .args(["adjudicate", "--format", "csv", "--jobs", jobs, "-o"])
            .arg(dir.path().join("m.csv"))
            .arg("--audit")
            .arg(&audit)
            .arg(&inputs)
            .status()
            .unwrap();
        assert!(status.success());
        std::fs::read_to_string(audit).unwrap()
    };
    let one = audit("1");
    assert!(one.lines().count() > 60, "{one}");
    assert_eq!(one, audit("2"));
}

/// Writes one byte per case, so that a run with a case writer can be told apart from none.
struct Marks;

impl leasejudge::streaming::CaseWriter for Marks {
    fn write_case(
        &mut self,
        _file_index: usize,
        _file: &str,
        _case_id: &str,
        _rows: &leasejudge::streaming::KeptRows,
        out: &mut leasejudge::streaming::RecordOut<'_>,
    ) -> std::io::Result<bool> {
        std::io::Write::write_all(out, b".")?;
        Ok(true)
    }
}

/// A bad row of a case id first seen in an earlier file lists its own errors only, not its
/// `job_id` or `observed_at` against that file's case (a case id in two files is one error,
/// not one case: spec section 2), and the first valid row the clash: in every command, with
/// every case kept (`template`, `reorder`, `explain -f html`) or a window of them.
#[test]
fn a_bad_row_of_an_earlier_files_case_lists_its_own_errors_only() {
    let dir = tempfile::tempdir().unwrap();
    let header = "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n";
    let a = write_file(
        dir.path(),
        "a.csv",
        format!("{header}c1,offer,2026-01-01T10:00:00Z,j1,L-1,1,w,30\n").as_bytes(),
    );
    let b = write_file(
        dir.path(),
        "b.csv",
        format!(
            "{header}c1,bogus,2026-01-01T09:00:00Z,j2,L-1,1,w,\n\
             c1,ack,2026-01-01T10:00:05Z,,L-1,1,w,\n"
        )
        .as_bytes(),
    );
    let sources = [a, b];
    let expected = reference(&sources, &CsvMatrix).unwrap_err();
    assert_eq!(expected.lines().count(), 3, "{expected}");
    assert!(
        expected.contains("b.csv:2: event: unknown event"),
        "{expected}"
    );
    assert!(
        expected.contains("b.csv:3: case_id: case id also appears in "),
        "{expected}"
    );
    for (open_cases, jobs) in [(EVERY_CASE, 1), (4096, 1), (1, 1), (4096, 2), (1, 2)] {
        let settings = StreamSettings {
            open_cases,
            ..StreamSettings::in_file_order_on(jobs)
        };
        let errors = match judge(
            &sources,
            &settings,
            Sink::Cases(Box::new(Marks)),
            &mut |_, _, _| {},
        ) {
            Err(StreamError::Input(errors)) => errors.to_string(),
            _ => panic!("bad input is an error"),
        };
        assert_eq!(errors, expected, "open {open_cases}, jobs {jobs}");
    }
    assert_eq!(
        streamed(&sources, &CsvMatrix, 4096, 1).unwrap_err(),
        expected
    );
}
