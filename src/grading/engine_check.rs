//! `check`'s side of grading: one case file judged by the streaming engine, its matrix
//! joined with a golden file held whole or one hash partition at a time, in memory that does
//! not grow with either file.
//!
//! The engine keeps the matrix as typed rows ([`CellsMatrix`]: each case's first line and
//! its cells, in order of first appearance) in its temporary files; a case's first row is
//! the one [`judge`] and [`first_rows`] (the bundle's key check) tell apart by its outcome.
//! A golden file no larger than a partition is held whole, and the matrix is read back once,
//! each row joined with it as it comes. Any other golden file is joined a partition at a
//! time: the matrix is read back a row at a time into [`Partitions`] split by the golden
//! file's [`Splitter`](super::partitions::Splitter), and each partition of the golden file is
//! loaded and joined with the engine's rows of the same partition (a hash join, as
//! out-of-core databases run one). Either way, each partition yields its listed cases in
//! golden order and the unknown cases come in matrix order, as sorted runs of a `CaseList`
//! and an `UnknownList` that merge them back as a report reads them: the same [`FileGrade`]
//! that [`compare`](super::compare()) gives for the whole matrix, field for field when
//! matched cases are listed (with them only counted, the same report renders the same).

use std::io;

use crate::input::{InputErrors, Source};
use crate::lease::{RowReason, Timestamp};
use crate::matrix::{CellsMatrix, CellsRecord, COLUMNS};
use crate::store::{SpillBuffer, Spilled};
use crate::streaming::{CaseRecords, Location, Sink, StreamError, StreamSettings};

use super::case_list::ListWriter;
use super::columns::Column;
use super::compare::{mismatches, CaseGrade, CaseOutcome, FileGrade, Spot, UnknownCase};
use super::matrix_reader::{with_duplicates, Duplicates, LoadedPart, SplitMatrix};
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
///
/// A golden file held whole ([`SplitMatrix::is_held`]) is joined with the engine's rows as
/// they are read back, once, in order; any other is joined a partition at a time with the
/// engine's rows split as it is. The two give the same grade (a test runs both).
pub fn grade_judged(
    judged: Judged,
    name: &str,
    golden: &SplitMatrix,
    columns: &[Column],
    list_matched: bool,
) -> io::Result<(FileGrade, Duplicates)> {
    if golden.is_held() {
        grade_held(judged, name, golden, columns, list_matched)
    } else {
        grade_split(judged, name, golden, columns, list_matched)
    }
}

/// [`grade_judged`] a partition at a time: the engine's rows split as `golden` is, and each
/// partition of the golden file loaded and joined with the engine's rows of that partition.
fn grade_split(
    judged: Judged,
    name: &str,
    golden: &SplitMatrix,
    columns: &[Column],
    list_matched: bool,
) -> io::Result<(FileGrade, Duplicates)> {
    let engine = split_matrix(judged, golden, columns)?;
    let mut join = Join::new(name, columns, list_matched);
    let mut duplicates = Duplicates::default();
    for part in 0..golden.parts() {
        let loaded = golden.load(part)?;
        duplicates.add(&loaded);
        let mut slots = vec![Slot::Unseen; loaded.matrix.len()];
        engine.read(part, &mut |row: StoredRow<'_>| {
            let cell = |column: Column| {
                row.cells
                    .iter()
                    .find(|(c, _)| *c == column)
                    .map(|(_, text)| *text)
            };
            join.row(
                &EngineRow {
                    index: row.index,
                    line: row.line,
                    case_id: row.case_id,
                    cell: &cell,
                },
                &loaded,
                &mut slots,
            )
        })?;
        // A partition's listed cases are pushed: its encoded bytes are not kept past it.
        let encoded = join.take_encoded()?;
        join.end_part(&loaded, slots, &encoded, &golden.name)?;
        join.unknown.end_run();
    }
    Ok((join.finish(&golden.name)?, duplicates))
}

/// [`grade_judged`] for a golden file whose partitions are all held loaded: the engine's rows
/// are read back once, in order, each joined with its case id's partition as it comes, and
/// are never split and written again. The grade is the same run for run, but for the unknown
/// cases: one run in the engine's order rather than one per partition, which read back the
/// same.
fn grade_held(
    judged: Judged,
    name: &str,
    golden: &SplitMatrix,
    columns: &[Column],
    list_matched: bool,
) -> io::Result<(FileGrade, Duplicates)> {
    let splitter = golden.splitter();
    let mut duplicates = Duplicates::default();
    let mut loaded = Vec::with_capacity(golden.parts());
    for part in 0..golden.parts() {
        let part = golden.load(part)?;
        duplicates.add(&part);
        loaded.push(part);
    }
    let mut slots: Vec<Vec<Slot>> = loaded
        .iter()
        .map(|part| vec![Slot::Unseen; part.matrix.len()])
        .collect();
    let mut join = Join::new(name, columns, list_matched);
    let wanted = joined_cells(columns);
    let mut index = 0u64;
    judged.records.for_each_cells_record(&mut |line, record| {
        let mut all = [""; COLUMNS.len()];
        record_cells(&record, &wanted, &mut all)?;
        let part = splitter.part_of(all[0]);
        let row = EngineRow {
            index,
            line,
            case_id: all[0],
            cell: &|column: Column| Some(all[column.index()]),
        };
        index += 1;
        join.row(&row, &loaded[part], &mut slots[part])
    })?;
    join.unknown.end_run();
    let encoded = join.take_encoded()?;
    for (part, slots) in loaded.iter().zip(slots) {
        join.end_part(part, slots, &encoded, &golden.name)?;
    }
    Ok((join.finish(&golden.name)?, duplicates))
}

/// An engine row as a join reads it.
struct EngineRow<'a> {
    /// Its index among the engine's rows (first-appearance order).
    index: u64,
    /// Its case's first line.
    line: u64,
    case_id: &'a str,
    /// Its cell of a graded column.
    cell: &'a dyn Fn(Column) -> Option<&'a str>,
}

/// A join under way: what it lists so far.
struct Join<'a> {
    name: &'a str,
    columns: &'a [Column],
    list_matched: bool,
    cases: ListWriter<CaseGrade>,
    unknown: ListWriter<UnknownCase>,
    matched_unlisted: usize,
    /// The listed cases of the partitions not yet ended, encoded as they come (in the
    /// engine's order), each found by its [`Slot::Listed`].
    encoded: SpillBuffer,
    /// A listed case's record, read back to be pushed.
    record: Vec<u8>,
}

/// How many bytes of a join's pending listed cases stay in memory: past it they move to a
/// temporary file. A join holding every partition of the golden file keeps every listed
/// case until the engine's last row, and a listed case carries the engine's cells, which
/// are as large as the case file makes them.
#[cfg(not(test))]
const PENDING_BYTES: usize = 8 << 20;
/// A few records: the unit tests' joins go through the temporary file.
#[cfg(test)]
const PENDING_BYTES: usize = 256;

impl<'a> Join<'a> {
    fn new(name: &'a str, columns: &'a [Column], list_matched: bool) -> Join<'a> {
        Join {
            name,
            columns,
            list_matched,
            cases: ListWriter::new(),
            unknown: ListWriter::new(),
            matched_unlisted: 0,
            encoded: SpillBuffer::new(PENDING_BYTES),
            record: Vec::new(),
        }
    }

    /// Joins an engine row with its partition of the golden file (`slots`: per golden case of
    /// it, what became of it so far).
    fn row(
        &mut self,
        row: &EngineRow<'_>,
        part: &LoadedPart,
        slots: &mut [Slot],
    ) -> io::Result<()> {
        let Some(position) = part.matrix.position(row.case_id) else {
            let at = Spot {
                file: self.name.to_owned(),
                line: Some(row.line),
            };
            return self.unknown.push(
                row.index,
                &UnknownCase {
                    case_id: row.case_id.to_owned(),
                    at,
                },
            );
        };
        let expected = part.matrix.row(position);
        let differ = mismatches(&expected, row.cell, self.columns, true);
        let outcome = if differ.is_empty() {
            if !self.list_matched {
                self.matched_unlisted += 1;
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
                file: self.name.to_owned(),
                line: Some(row.line),
            },
            outcome,
        };
        let start = self.encoded.written();
        let kind = self.cases.encode(&grade, self.encoded.buf());
        slots[position] = Slot::Listed {
            start,
            len: u32::try_from(self.encoded.written() - start).map_err(io::Error::other)?,
            kind: kind as u8,
        };
        self.encoded.spill_if_full()
    }

    /// Lists a partition's golden cases in golden order, which within a partition is the
    /// order of its rows (the engine's rows came in first-appearance order), as one run:
    /// those listed as they were joined (their records in `encoded`, from
    /// [`Join::take_encoded`]), and those the engine's matrix lacks (at `golden_name`).
    fn end_part(
        &mut self,
        part: &LoadedPart,
        slots: Vec<Slot>,
        encoded: &Spilled,
        golden_name: &str,
    ) -> io::Result<()> {
        for (position, slot) in slots.into_iter().enumerate() {
            let key = part.indexes[position];
            match slot {
                Slot::Unseen => {
                    let expected = part.matrix.row(position);
                    self.cases.push(
                        key,
                        &CaseGrade {
                            case_id: expected.case_id.to_owned(),
                            at: Spot {
                                file: golden_name.to_owned(),
                                line: Some(expected.line),
                            },
                            outcome: CaseOutcome::Missing,
                        },
                    )?;
                }
                Slot::Counted => {}
                Slot::Listed { start, len, kind } => {
                    self.record.resize(len as usize, 0);
                    encoded.read_exact_at(start, &mut self.record)?;
                    self.cases
                        .push_encoded(key, usize::from(kind), &self.record)?;
                }
            }
        }
        self.cases.end_run();
        Ok(())
    }

    /// The listed cases encoded so far, ready to be read back; the next are encoded anew.
    fn take_encoded(&mut self) -> io::Result<Spilled> {
        std::mem::replace(&mut self.encoded, SpillBuffer::new(PENDING_BYTES)).finish()
    }

    fn finish(self, golden_name: &str) -> io::Result<FileGrade> {
        Ok(FileGrade {
            file: self.name.to_owned(),
            golden: golden_name.to_owned(),
            cases: self.cases.finish()?,
            matched_unlisted: self.matched_unlisted,
            unknown: self.unknown.finish()?,
        })
    }
}

/// What became of a golden case of a partition being joined.
#[derive(Clone, Copy)]
enum Slot {
    /// The engine's matrix has no row for it (yet).
    Unseen,
    /// Matched, and only counted.
    Counted,
    /// Listed: where its record starts among the join's encoded records ([`Join::encoded`]),
    /// its length, and its kind.
    Listed { start: u64, len: u32, kind: u8 },
}

/// The engine's typed rows split into partitions as `golden` is, each row with its case's
/// first line and only the graded cells (no CSV written and read back).
fn split_matrix(
    judged: Judged,
    golden: &SplitMatrix,
    columns: &[Column],
) -> io::Result<Partitions> {
    let mut partitions = Partitions::new(golden.splitter());
    let wanted = joined_cells(columns);
    judged.records.for_each_cells_record(&mut |line, record| {
        let mut all = [""; COLUMNS.len()];
        record_cells(&record, &wanted, &mut all)?;
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

/// Which of a spilled matrix record's cells a join reads: the case id and the graded
/// columns'.
fn joined_cells(columns: &[Column]) -> [bool; COLUMNS.len()] {
    let mut wanted = [false; COLUMNS.len()];
    wanted[Column::CaseId.index()] = true;
    for column in columns {
        wanted[column.index()] = true;
    }
    wanted
}

/// Puts a spilled matrix record's `wanted` cells in their columns' places of `cells`.
fn record_cells<'r>(
    record: &CellsRecord<'r>,
    wanted: &[bool; COLUMNS.len()],
    cells: &mut [&'r str; COLUMNS.len()],
) -> io::Result<()> {
    record
        .cells_into(wanted, cells)
        .ok_or_else(|| io::Error::other("a spilled matrix row is malformed"))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grading::matrix_reader::{MatrixInput, MatrixRead};
    use crate::grading::partitions::Splitter;

    /// The two joins, a golden file held whole and one joined a partition at a time, give the
    /// same grade, field for field: on a golden file whose cases come in another order than
    /// the engine's, with cases of another decision, cases the engine's matrix lacks, cases
    /// the golden file lacks and a duplicated case id; on two columns and on every column,
    /// matched cases listed or only counted, in one partition or several.
    #[test]
    fn a_golden_file_held_whole_grades_as_one_joined_a_partition_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let options = crate::generate::Options {
            seed: 11,
            cases: 400,
            rows_per_case: (3, 10),
            interleave: 6,
            mix: crate::generate::default_mix(),
        };
        let mut cases = Vec::new();
        crate::generate::write_cases(&options, &mut cases).unwrap();
        let cases_path = dir.path().join("cases.csv");
        std::fs::write(&cases_path, &cases).unwrap();
        let source = Source {
            name: "cases.csv".to_owned(),
            path: Some(cases_path),
            options: Default::default(),
        };

        // The engine's matrix, changed into a golden file.
        let mut matrix = Vec::new();
        first_rows(std::slice::from_ref(&source), None, &mut |_, _| {})
            .unwrap()
            .write_to(&mut matrix)
            .unwrap();
        let matrix = String::from_utf8(matrix).unwrap();
        let mut lines = matrix.lines();
        let header = lines.next().unwrap().to_owned();
        let decision = header
            .split(',')
            .position(|name| name == "decision")
            .unwrap();
        let mut rows: Vec<String> = Vec::new();
        for (i, line) in lines.enumerate() {
            match i % 13 {
                // Not in the golden file: an unknown case.
                5 => continue,
                // Another decision: a mismatched case.
                2 | 9 => {
                    let mut cells: Vec<&str> = line.split(',').collect();
                    cells[decision] = if cells[decision] == "ACTIVE" {
                        "EXPIRED"
                    } else {
                        "ACTIVE"
                    };
                    rows.push(cells.join(","));
                }
                _ => rows.push(line.to_owned()),
            }
        }
        // The golden file's own order; cases the engine's matrix lacks (missing); one case
        // id twice.
        rows.reverse();
        rows[10..60].reverse();
        let template = rows[0].clone();
        let rest = &template[template.find(',').unwrap()..];
        for i in 0..9 {
            rows.insert(i * 17, format!("only-golden-{i}{rest}"));
        }
        let twice = rows[40].clone();
        rows.push(twice);
        let golden_path = dir.path().join("golden.csv");
        std::fs::write(&golden_path, format!("{header}\n{}\n", rows.join("\n"))).unwrap();

        let two = [Column::Decision, Column::Reason];
        for columns in [&two[..], &Column::ALL[..]] {
            for list_matched in [false, true] {
                for parts in [1, 3, 8] {
                    let splitter = Splitter::with_parts(parts);
                    let read = || {
                        let (golden, errors) = MatrixRead::golden(columns)
                            .read_split(MatrixInput::Path(&golden_path), "golden.csv", &splitter)
                            .unwrap();
                        assert!(errors.is_empty(), "{errors}");
                        golden
                    };
                    let split = read();
                    let mut held = read();
                    held.hold_within(u64::MAX).unwrap();
                    assert!(held.is_held() && !split.is_held());
                    let judged = || judge(&source, None, Threads::ONE, None).unwrap();
                    let by_part =
                        grade_judged(judged(), "cases.csv", &split, columns, list_matched).unwrap();
                    let whole =
                        grade_judged(judged(), "cases.csv", &held, columns, list_matched).unwrap();
                    assert_eq!(
                        whole, by_part,
                        "{parts} parts, listing matched: {list_matched}"
                    );
                    // Every kind of case is there to compare.
                    let (grade, duplicates) = whole;
                    assert_eq!(grade.cases.missing(), 9);
                    assert_eq!(grade.unknown.len(), 31);
                    assert!(
                        grade.cases.mismatched() > 40,
                        "{}",
                        grade.cases.mismatched()
                    );
                    let matched = grade.cases.matched() + grade.matched_unlisted;
                    assert_eq!(grade.cases.matched() > 0, list_matched);
                    assert_eq!(matched + grade.cases.mismatched() + 31, 400);
                    assert_eq!(duplicates.listed.len(), 1);
                }
            }
        }
    }
}
