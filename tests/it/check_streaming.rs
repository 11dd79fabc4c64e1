//! `check` grades each case file on the streaming engine, joining the engine's matrix with the
//! golden file one hash partition at a time: its grade must be the one `compare` gives for the
//! whole matrix built from every case kept (`judge_sources`), with matched, wrong, missing and
//! unknown cases, more cases than a partition holds, interleaved and messy files, a later
//! `--as-of`, and one partition or many (each one's cases merged back into golden order).

use leasejudge::generate::{default_mix, write_cases, write_messy_cases, Options};
use leasejudge::grading::engine_check::{judge_and_compare, Threads};
use leasejudge::grading::matrix_reader::SplitMatrix;
use leasejudge::grading::partitions::Splitter;
use leasejudge::grading::{
    compare, parse_column_list, Column, FileGrade, GradeReport, MatrixFile, MatrixFileFormat,
    MatrixInput, MatrixRead, MissingAt,
};
use leasejudge::input::InputErrors;
use leasejudge::input::Source;
use leasejudge::lease::Timestamp;
use leasejudge::matrix::{CsvMatrix, MatrixRow, MatrixWriter};
use leasejudge::report::{github, grade_table, markdown};
use leasejudge::streaming::StreamError;

use crate::reference;
use reference::judge_sources;

fn options(seed: u64, cases: u64) -> Options {
    Options {
        seed,
        cases,
        rows_per_case: (2, 9),
        interleave: 8,
        mix: default_mix(),
    }
}

/// The golden file at `path` read split as `grade` reads a key: sound, or its every error.
fn golden_split(
    path: &std::path::Path,
    columns: &[Column],
    splitter: &Splitter,
) -> Result<SplitMatrix, InputErrors> {
    MatrixRead::golden(columns)
        .read_split(MatrixInput::Path(path), "golden.csv", splitter)
        .and_then(|(golden, errors)| golden.checked(errors))
}

/// The engine's whole matrix of `source`, as `check` built it before.
fn whole(source: &Source, as_of: Option<Timestamp>) -> (MatrixFile, Vec<u8>) {
    let judged =
        judge_sources(std::slice::from_ref(source), None, as_of, &mut |_, _, _| {}).unwrap();
    let rows: Vec<MatrixRow> = judged
        .iter()
        .map(|j| MatrixRow::new(&j.case_id, &j.case, &j.verdict))
        .collect();
    let mut csv = Vec::new();
    let mut writer = MatrixWriter::new(&mut csv, &CsvMatrix, &[]).unwrap();
    for row in &rows {
        writer.write(row, &[]).unwrap();
    }
    writer.finish().unwrap();
    let file =
        MatrixFile::from_matrix_rows(&source.name, judged.iter().map(|j| j.first_line).zip(&rows));
    (file, csv)
}

/// A golden file made from the engine's matrix with some decisions changed, some cases
/// dropped (unknown to it) and one case the case file does not have (missing).
fn tampered(matrix: &[u8]) -> Vec<u8> {
    let text = String::from_utf8(matrix.to_vec()).unwrap();
    let mut out = String::new();
    for (n, line) in text.lines().enumerate() {
        if n > 0 && n % 97 == 0 {
            continue; // a case the golden file lacks: unknown
        }
        if n > 0 && n % 13 == 0 {
            let cut = line.rfind(',').unwrap();
            let before = &line[..cut];
            let decision_cut = before.rfind(',').unwrap();
            out.push_str(&line[..decision_cut]);
            out.push_str(",EXPIRED,expired_without_result\n");
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    let last = text.lines().nth(1).unwrap();
    out.push_str(&last.replacen(last.split(',').next().unwrap(), "not-in-the-file", 1));
    out.push('\n');
    out.into_bytes()
}

/// `check` of the case file `bytes` (as `name`, judged at `as_of`) against the engine's own
/// matrix (`clean`) or a tampered one grades as `compare` does the whole matrix, in one
/// partition or many, with the matched cases listed or only counted, and the reports that
/// do not list matched cases are the same either way.
fn streamed_check_grades_as_the_whole_matrix_does(
    name: &str,
    bytes: &[u8],
    as_of: Option<Timestamp>,
    clean: bool,
) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    let source = Source::file(path);
    let (actual, matrix) = whole(&source, as_of);
    let golden_bytes = if clean { matrix } else { tampered(&matrix) };
    let golden_path = dir.path().join("golden.csv");
    std::fs::write(&golden_path, &golden_bytes).unwrap();
    let every: Vec<Column> = Column::all().collect();
    let golden = MatrixRead::submission(&every, &Default::default())
        .read(
            MatrixInput::Bytes(&golden_bytes, MatrixFileFormat::Csv),
            "golden.csv",
        )
        .unwrap();
    // Every case through both paths: the file read on one thread, and in two halves.
    let halves = Threads {
        jobs: 2,
        split_min_bytes: 1,
    };
    for (columns, parts, threads) in [
        ("decision,reason", 1, Threads::ONE),
        ("decision,reason", 1, halves),
        ("decision,reason", 7, Threads::ONE),
        ("decision,reason", 7, halves),
        ("all", 3, Threads::ONE),
        ("all", 3, halves),
    ] {
        let name = format!("{name}, {columns}, {parts} partitions, {threads:?}");
        let columns = parse_column_list(columns).unwrap();
        let split = golden_split(&golden_path, &columns, &Splitter::with_parts(parts)).unwrap();
        assert_eq!(split.parts(), parts);
        let expected = compare(&golden, &actual, &columns, true, MissingAt::GoldenRow);
        let got = judge_and_compare(&source, as_of, threads, Some(&split), &columns, true)
            .unwrap()
            .unwrap();
        assert_eq!(got, expected, "{name}");
        // Without the matched cases listed: only the differences are kept, the counts
        // are the same, and the reports that do not list matched cases are the same.
        let counted = judge_and_compare(&source, as_of, threads, Some(&split), &columns, false)
            .unwrap()
            .unwrap();
        assert_eq!(
            counted,
            expected.clone().matched_counted_only().unwrap(),
            "{name}"
        );
        assert_eq!(counted.summary(), expected.summary(), "{name}");
        if clean {
            assert!(counted.cases.is_empty(), "{name}");
        }
        let report = |file: FileGrade| GradeReport {
            command: "check",
            columns: columns.clone(),
            revealed: true,
            files: vec![file],
            unpaired: Vec::new(),
        };
        let (listed, counted) = (report(expected.clone()), report(counted));
        let table = |report: &GradeReport| {
            let mut out = Vec::new();
            grade_table::write(report, false, false, None, &mut out).unwrap();
            out
        };
        assert_eq!(table(&listed), table(&counted), "{name}");
        assert_eq!(github::render(&listed), github::render(&counted), "{name}");
        assert_eq!(
            markdown::render(&listed),
            markdown::render(&counted),
            "{name}"
        );
        let summary = got.summary();
        assert_eq!(summary.is_clean(), clean);
        if !clean {
            let seen = (summary.mismatched > 0, summary.missing, summary.unknown > 0);
            assert_eq!(seen, (true, 1, true), "{summary:?}");
        }
    }
}

/// 600 plain generated cases (the engine's window of open cases is proven in `streaming`;
/// here the join, partition by partition).
fn plain() -> Vec<u8> {
    let mut plain = Vec::new();
    write_cases(&options(2, 600), &mut plain).unwrap();
    plain
}

/// 300 messy generated cases.
fn messy() -> Vec<u8> {
    let mut messy = Vec::new();
    write_messy_cases(&options(3, 300), &mut messy, &mut |_| {}).unwrap();
    messy
}

fn later() -> Option<Timestamp> {
    Some(Timestamp::parse("2026-01-02T00:00:00Z").unwrap())
}

#[test]
fn streamed_check_of_plain_cases_against_their_own_matrix_is_clean() {
    streamed_check_grades_as_the_whole_matrix_does("plain.csv", &plain(), None, true);
}

#[test]
fn streamed_check_of_plain_cases_against_a_tampered_matrix_finds_its_differences() {
    streamed_check_grades_as_the_whole_matrix_does("plain.csv", &plain(), None, false);
}

#[test]
fn streamed_check_of_messy_cases_against_their_own_matrix_is_clean() {
    streamed_check_grades_as_the_whole_matrix_does("messy.csv", &messy(), None, true);
}

#[test]
fn streamed_check_of_messy_cases_against_a_tampered_matrix_finds_its_differences() {
    streamed_check_grades_as_the_whole_matrix_does("messy.csv", &messy(), None, false);
}

#[test]
fn streamed_check_as_of_later_against_its_own_matrix_is_clean() {
    streamed_check_grades_as_the_whole_matrix_does("plain-later.csv", &plain(), later(), true);
}

#[test]
fn streamed_check_as_of_later_against_a_tampered_matrix_finds_its_differences() {
    streamed_check_grades_as_the_whole_matrix_does("plain-later.csv", &plain(), later(), false);
}

/// A golden file's duplicated case ids are found as the join loads its partitions: the same
/// errors, in the same order, as the pass that looks for them before grading.
#[test]
fn duplicates_found_by_the_join_are_the_golden_files_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut plain = Vec::new();
    write_cases(&options(4, 500), &mut plain).unwrap();
    let path = dir.path().join("cases.csv");
    std::fs::write(&path, &plain).unwrap();
    let source = Source::file(path);
    let (_, matrix) = whole(&source, None);
    let text = String::from_utf8(matrix).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Three cases given twice, far apart, so that they fall in different partitions.
    let mut golden = lines.clone();
    for n in [3, 250, 400] {
        golden.push(lines[n]);
    }
    let golden_path = dir.path().join("golden.csv");
    std::fs::write(&golden_path, golden.join("\n") + "\n").unwrap();
    let columns = parse_column_list("decision,reason").unwrap();
    let splitter = Splitter::with_parts(5);
    let expected: Vec<String> = golden_split(&golden_path, &columns, &splitter)
        .unwrap_err()
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_eq!(expected.len(), 3, "{expected:?}");
    let (split, read_errors) = MatrixRead::golden(&columns)
        .read_split(MatrixInput::Path(&golden_path), "golden.csv", &splitter)
        .unwrap();
    assert!(read_errors.is_empty());
    let halves = Threads {
        jobs: 2,
        split_min_bytes: 1,
    };
    for threads in [Threads::ONE, halves] {
        match judge_and_compare(&source, None, threads, Some(&split), &columns, true) {
            Err(StreamError::Input(errors)) => {
                let got: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
                assert_eq!(got, expected);
            }
            other => panic!("{:?}", other.map(|_| ())),
        }
    }
}
