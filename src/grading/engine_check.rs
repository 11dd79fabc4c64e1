//! `check`'s side of grading: one case file judged by the streaming engine, its matrix
//! joined with a golden file one hash partition at a time, in memory that does not grow with
//! either file.
//!
//! The engine keeps the matrix as typed rows ([`CellsMatrix`]: each case's first line and
//! its cells, in order of first appearance) in its temporary files; a case's first row is
//! the one [`judge`] and [`first_rows`] (the bundle's key check) tell apart by its outcome.
//! The matrix is then read back a row at a time into [`Partitions`] split by the golden file's
//! [`Splitter`](super::partitions::Splitter), and each partition of the golden file is loaded
//! and joined with the engine's rows of the same partition (a hash join, as out-of-core
//! databases run one). Each partition yields its listed cases in
//! golden order and its unknown cases in matrix order, as sorted runs of a
//! `CaseList` and an
//! `UnknownList` that merge them back as a report reads
//! them: the same [`FileGrade`] that [`compare`](super::compare()) gives for the whole
//! matrix, field for field when matched cases are listed (with them only counted, the same
//! report renders the same).

use std::io;

use crate::input::{InputErrors, Source};
use crate::lease::{RowReason, Timestamp};
use crate::matrix::{CellsMatrix, COLUMNS};
use crate::streaming::{CaseRecords, Location, Sink, StreamError, StreamSettings};

use super::case_list::ListWriter;
use super::columns::Column;
use super::compare::{mismatches, CaseGrade, CaseOutcome, FileGrade, Spot, UnknownCase};
use super::matrix_reader::{with_duplicates, Duplicates, SplitMatrix};
use super::partitions::{Partitions, StoredRow};
/// The engine's matrix of one case file as typed rows ([`CellsMatrix`]: each case's first
/// line and cells), kept in the engine's temporary files until it is graded.
pub struct Judged {
    records: CaseRecords,
}

/// What is told each case's id and first line as the case starts.
pub type OnCase<'a> = dyn FnMut(&str, u64) + 'a;

/// How many threads the engine reads a case file on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Threads {
    /// Threads for a large file's two halves (1: one thread reads it from start to end).
    pub jobs: usize,
    /// The least size of a file read in two halves.
    pub split_min_bytes: u64,
}

impl Threads {
    /// One thread reads the file from start to end.
    pub const ONE: Threads = Threads {
        jobs: 1,
        split_min_bytes: u64::MAX,
    };

    /// As `adjudicate` reads a file: in two halves if it is large, on `jobs` threads.
    pub fn like_adjudicate(jobs: usize) -> Threads {
        Threads {
            jobs,
            split_min_bytes: crate::streaming::DEFAULT_SPLIT_MIN_BYTES,
        }
    }
}

/// Judges `source` at `run_as_of`, keeping its matrix as typed rows in temporary files. With
/// `on_case`, every case's id and first line is told to it as the case starts, in file
/// order (so that a caller checking several files can find a case id in two of them, even
/// in a file with errors), and the file is read on one thread; without, on `threads` (a
/// large file in two halves, as `adjudicate` reads it), each case's first line coming with
/// its row.
pub fn judge(
    source: &Source,
    run_as_of: Option<Timestamp>,
    threads: Threads,
    mut on_case: Option<&mut OnCase<'_>>,
) -> Result<Judged, StreamError> {
    let settings = match on_case {
        // `on_row` must see the rows in file order.
        Some(_) => StreamSettings {
            run_as_of,
            ..StreamSettings::in_file_order()
        },
        None => StreamSettings {
            run_as_of,
            jobs: threads.jobs,
            split_min_bytes: threads.split_min_bytes,
            ..StreamSettings::default()
        },
    };
    let records = crate::streaming::judge(
        std::slice::from_ref(source),
        &settings,
        Sink::Matrix(&CellsMatrix),
        &mut |at, parsed, outcome| {
            if let (Some(on_case), true) = (&mut on_case, starts_case(outcome)) {
                on_case(&parsed.case_id, at.line);
            }
        },
    )?;
    Ok(Judged { records })
}

/// The engine's matrix (CSV) of `sources` judged at `run_as_of`, the rows read in file order,
/// `on_case` told each case's id and the place of its first row as the case starts
/// (`starts_case`), so no case is told twice.
pub fn first_rows(
    sources: &[Source],
    run_as_of: Option<Timestamp>,
    on_case: &mut dyn FnMut(&str, Location<'_>),
) -> Result<CaseRecords, StreamError> {
    let settings = StreamSettings {
        run_as_of,
        // `on_row` must see the rows in file order, for the first rows.
        ..StreamSettings::in_file_order()
    };
    crate::streaming::judge(
        sources,
        &settings,
        Sink::Matrix(&crate::matrix::CsvMatrix),
        &mut |at, parsed, outcome| {
            if starts_case(outcome) {
                on_case(&parsed.case_id, at);
            }
        },
    )
}

/// Whether a row of this outcome is its case's first: the only row whose outcome is
/// `ACCEPTED offered` (a later offer is `reassigned`, a duplicate or a conflict), so no case
/// starts twice.
fn starts_case(outcome: &crate::lease::Outcome) -> bool {
    outcome.reason == RowReason::Offered
}

/// Grades the engine's matrix `judged` of the case file `name` against `golden` on `columns`
/// (golden values shown, a missing case pointed at its golden row), as `check` reports it.
/// Matched cases are listed in [`FileGrade::cases`] only when `list_matched` (the report
/// shows them); otherwise they are only counted. The golden file's duplicated case ids,
/// found as its partitions are loaded, come with the grade: with any, the golden file is in
/// error and the grade means nothing.
pub fn grade_judged(
    judged: Judged,
    name: &str,
    golden: &SplitMatrix,
    columns: &[Column],
    list_matched: bool,
) -> io::Result<(FileGrade, Duplicates)> {
    let engine = split_matrix(judged, golden, columns)?;
    let mut cases = ListWriter::<CaseGrade>::new();
    let mut unknown = ListWriter::<UnknownCase>::new();
    let mut matched_unlisted = 0usize;
    let mut duplicates = Duplicates::default();
    for part in 0..golden.parts() {
        let loaded = golden.load(part)?;
        duplicates.add(&loaded);
        let expected_rows = &loaded.matrix;
        // Per golden case of the partition what became of it; the listed ones (differences,
        // and matched cases when `list_matched`) encoded as they come, in the engine's order.
        let mut slots = vec![Slot::Unseen; expected_rows.len()];
        let mut encoded: Vec<u8> = Vec::new();
        engine.read(part, &mut |row: StoredRow<'_>| {
            let Some(position) = expected_rows.position(row.case_id) else {
                let at = Spot {
                    file: name.to_owned(),
                    line: Some(row.line),
                };
                return unknown.push(
                    row.index,
                    &UnknownCase {
                        case_id: row.case_id.to_owned(),
                        at,
                    },
                );
            };
            let expected = expected_rows.row(position);
            let cell = |column: Column| {
                row.cells
                    .iter()
                    .find(|(c, _)| *c == column)
                    .map(|(_, text)| *text)
            };
            let differ = mismatches(&expected, &cell, columns, true);
            let outcome = if differ.is_empty() {
                if !list_matched {
                    matched_unlisted += 1;
                    slots[position] = Slot::Counted;
                    return Ok(());
                }
                CaseOutcome::Matched
            } else {
                CaseOutcome::Mismatched(differ)
            };
            let grade = CaseGrade {
                case_id: expected.case_id.to_owned(),
                at: Spot {
                    file: name.to_owned(),
                    line: Some(row.line),
                },
                outcome,
            };
            let start = encoded.len();
            let kind = cases.encode(&grade, &mut encoded);
            slots[position] = Slot::Listed {
                start: u32::try_from(start).map_err(io::Error::other)?,
                end: u32::try_from(encoded.len()).map_err(io::Error::other)?,
                kind: kind as u8,
            };
            Ok(())
        })?;
        // The engine's rows come in first-appearance order; the report lists golden order,
        // which within a partition is the order of its rows.
        for (position, slot) in slots.into_iter().enumerate() {
            let key = loaded.indexes[position];
            match slot {
                Slot::Unseen => {
                    let expected = expected_rows.row(position);
                    cases.push(
                        key,
                        &CaseGrade {
                            case_id: expected.case_id.to_owned(),
                            at: Spot {
                                file: golden.name.clone(),
                                line: Some(expected.line),
                            },
                            outcome: CaseOutcome::Missing,
                        },
                    )?;
                }
                Slot::Counted => {}
                Slot::Listed { start, end, kind } => cases.push_encoded(
                    key,
                    usize::from(kind),
                    &encoded[start as usize..end as usize],
                )?,
            }
        }
        cases.end_run();
        unknown.end_run();
    }
    let grade = FileGrade {
        file: name.to_owned(),
        golden: golden.name.clone(),
        cases: cases.finish()?,
        matched_unlisted,
        unknown: unknown.finish()?,
    };
    Ok((grade, duplicates))
}

/// What became of a golden case of the partition being joined.
#[derive(Clone, Copy)]
enum Slot {
    /// The engine's matrix has no row for it (yet).
    Unseen,
    /// Matched, and only counted.
    Counted,
    /// Listed: its record's bytes among the partition's encoded records, and its kind.
    Listed { start: u32, end: u32, kind: u8 },
}

/// The engine's typed rows split into partitions as `golden` is, each row with its case's
/// first line and only the graded cells (no CSV written and read back).
fn split_matrix(
    judged: Judged,
    golden: &SplitMatrix,
    columns: &[Column],
) -> io::Result<Partitions> {
    let mut partitions = Partitions::new(golden.splitter());
    judged.records.for_each_cells_record(&mut |line, record| {
        let mut all = [""; COLUMNS.len()];
        for (cell, text) in all.iter_mut().zip(record.cells()) {
            *cell = text.ok_or_else(|| io::Error::other("a spilled matrix row is malformed"))?;
        }
        let cells: Vec<(Column, &str)> = columns
            .iter()
            .map(|&column| (column, all[column.index()]))
            .collect();
        partitions.push(all[0], line, 0, &cells);
        Ok(())
    })?;
    partitions.seal();
    Ok(partitions)
}

/// Judges `source` at `run_as_of` and grades its matrix against `golden` on `columns`, as
/// [`grade_judged`] does (the golden file's duplicated case ids are input errors). Without a
/// golden file the case file is only judged (its input errors still count).
pub fn judge_and_compare(
    source: &Source,
    run_as_of: Option<Timestamp>,
    threads: Threads,
    golden: Option<&SplitMatrix>,
    columns: &[Column],
    list_matched: bool,
) -> Result<Option<FileGrade>, StreamError> {
    let judged = judge(source, run_as_of, threads, None)?;
    let Some(golden) = golden else {
        return Ok(None);
    };
    let (grade, duplicates) = grade_judged(judged, &source.name, golden, columns, list_matched)?;
    if duplicates.is_empty() {
        Ok(Some(grade))
    } else {
        Err(StreamError::Input(with_duplicates(
            InputErrors::new(),
            duplicates,
        )))
    }
}
