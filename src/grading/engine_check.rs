//! `check`'s side of grading: one case file judged by the streaming engine, its matrix
//! joined with a golden file one hash partition at a time, in memory that does not grow with
//! either file.
//!
//! The engine writes the matrix (CSV, in order of first appearance) to a temporary file, and
//! the line of each case's first row is noted (to a second temporary file) as [`first_rows`]
//! finds it, so those lines come in the matrix's order. The matrix is then read back a row
//! at a time into [`Partitions`] split by the golden file's
//! [`Splitter`](super::partitions::Splitter), and each partition of the golden file is loaded
//! and joined with the engine's rows of the same partition (a hash join, as out-of-core
//! databases run one). Each partition yields its listed cases in
//! golden order and its unknown cases in matrix order, as sorted runs of a
//! `CaseList` and an
//! `UnknownList` that merge them back as a report reads
//! them: the same [`FileGrade`] that [`compare`](super::compare()) gives for the whole
//! matrix, field for field when matched cases are listed (with them only counted, the same
//! report renders the same).

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Seek, SeekFrom, Write};

use crate::input::{InputErrors, Source};
use crate::lease::{RowReason, Timestamp};
use crate::store::{Get, Put, SpillBuffer, Spilled, TempWriter};
use crate::streaming::{CaseRecords, Location, Sink, StreamError, StreamSettings};

use super::case_list::ListWriter;
use super::columns::Column;
use super::compare::{mismatches, CaseGrade, CaseOutcome, FileGrade, Spot, UnknownCase};
use super::matrix_reader::{with_duplicates, Duplicates, SplitMatrix};
use super::partitions::{Partitions, StoredRow};
/// The engine's matrix of one case file, kept in temporary files until it is graded.
pub struct Judged {
    /// The matrix as CSV, a header and a row per case in order of first appearance.
    matrix: File,
    /// Each case's first line in the case file, in the matrix's order (8 bytes each).
    first_lines: Spilled,
    /// The matrix's size in bytes, to plan partitions by.
    bytes: u64,
}

impl Judged {
    /// The size of the engine's matrix as CSV: what a join must hold, spread over partitions.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// Judges `source` at `run_as_of`, keeping its matrix in temporary files, and tells `on_case`
/// each case's id and first line as the case starts (so that a caller checking several files
/// can find a case id in two of them).
pub fn judge(
    source: &Source,
    run_as_of: Option<Timestamp>,
    on_case: &mut dyn FnMut(&str, u64),
) -> Result<Judged, StreamError> {
    // The engine's matrix, appended to a temporary file.
    let mut spill = TempWriter(BufWriter::with_capacity(
        1 << 16,
        crate::store::scratch_file()?,
    ));
    let mut first_lines = SpillBuffer::new(1 << 16);
    let mut lines_failed: Option<io::Error> = None;
    first_rows(
        std::slice::from_ref(source),
        run_as_of,
        &mut |case_id, at| {
            if lines_failed.is_none() {
                first_lines.buf().put_u64(at.line);
                lines_failed = first_lines.spill_if_full().err();
            }
            on_case(case_id, at.line);
        },
    )?
    .write_to(&mut spill)?;
    if let Some(e) = lines_failed {
        return Err(e.into());
    }
    // Flushed through the writer whose failures name the temporary directory.
    spill.flush()?;
    let mut matrix = spill.0.into_inner().map_err(|e| e.into_error())?;
    let bytes = matrix.stream_position()?;
    matrix.seek(SeekFrom::Start(0))?;
    Ok(Judged {
        matrix,
        first_lines: first_lines.finish()?,
        bytes,
    })
}

/// The engine's matrix (CSV) of `sources` judged at `run_as_of`, the rows read in file order,
/// `on_case` told each case's id and the place of its first row as the case starts. A case's
/// first row is the only one whose outcome is `ACCEPTED offered` (a later offer is
/// `reassigned`, a duplicate or a conflict), so no case is told twice.
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
            if outcome.reason == RowReason::Offered {
                on_case(&parsed.case_id, at);
            }
        },
    )
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

/// The engine's matrix read back a row at a time into partitions split as `golden` is, each
/// row with its case's first line and only the graded cells.
fn split_matrix(
    judged: Judged,
    golden: &SplitMatrix,
    columns: &[Column],
) -> io::Result<Partitions> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(BufReader::with_capacity(1 << 16, judged.matrix));
    let mut first_lines = judged.first_lines.reader(0, None, 1 << 16);
    let mut partitions = Partitions::new(golden.splitter());
    let mut record = csv::StringRecord::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| io::Error::other(e.to_string()))?
    {
        let line = first_lines.get_u64()?;
        // The engine's matrix has every column, in column order.
        let cells: Vec<(Column, &str)> = columns
            .iter()
            .map(|&column| {
                let cell = record.get(column.index()).unwrap_or_default();
                (column, crate::sanitize::spreadsheet_value(cell))
            })
            .collect();
        let case_id = crate::sanitize::spreadsheet_value(&record[0]);
        partitions.push(case_id, line, 0, &cells);
    }
    partitions.seal();
    Ok(partitions)
}

/// Judges `source` at `run_as_of` and grades its matrix against `golden` on `columns`, as
/// [`grade_judged`] does (the golden file's duplicated case ids are input errors). Without a
/// golden file the case file is only judged (its input errors still count).
pub fn judge_and_compare(
    source: &Source,
    run_as_of: Option<Timestamp>,
    golden: Option<&SplitMatrix>,
    columns: &[Column],
    list_matched: bool,
) -> Result<Option<FileGrade>, StreamError> {
    let judged = judge(source, run_as_of, &mut |_, _| {})?;
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
