//! `check`'s side of grading: one case file judged by the streaming engine, its matrix
//! compared row by row with a golden file, without keeping the engine's matrix or its cases.
//!
//! The engine writes the matrix (CSV, in order of first appearance) to a temporary file, and
//! `on_row` notes the line of each case's first row: the only row whose outcome is
//! `ACCEPTED offered` (a later offer is `reassigned`, a duplicate or a conflict), so those
//! lines come in the matrix's order. The matrix is then read back a row at a time and graded
//! as [`compare`](super::compare()) grades a whole matrix: the same [`FileGrade`], field for field
//! when matched cases are listed (with them only counted, the same report renders the same).

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};

use crate::input::{InputErrors, Source};
use crate::lease::{RowReason, Timestamp};
use crate::output::AppendFile;
use crate::streaming::{
    adjudicate_streaming, Encoding, StreamError, StreamSettings, DEFAULT_OPEN_CASES,
};

use super::columns::Column;
use super::compare::{mismatches, CaseGrade, CaseOutcome, FileGrade, Spot, UnknownCase};
use super::matrix_file::MatrixFile;

/// Why a case file could not be checked.
#[derive(Debug)]
pub enum CheckError {
    /// Bad input: every error, as `adjudicate` lists them.
    Input(InputErrors),
    /// A temporary file could not be written or read.
    Io(io::Error),
}

impl From<io::Error> for CheckError {
    fn from(e: io::Error) -> CheckError {
        CheckError::Io(e)
    }
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckError::Input(errors) => errors.fmt(f),
            CheckError::Io(e) => write!(f, "cannot keep the engine's matrix: {e}"),
        }
    }
}

impl std::error::Error for CheckError {}

/// A temporary file the engine's matrix is appended to.
struct MatrixSpill(BufWriter<File>);

impl Write for MatrixSpill {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl AppendFile for MatrixSpill {}

/// Judges `source` at `run_as_of` and grades its matrix against `golden` on `columns`
/// (golden values shown, a missing case pointed at its golden row), as `check` reports it.
/// Without a golden file the case file is only judged (its input errors still count).
/// Matched cases are listed in [`FileGrade::cases`] only when `list_matched` (the report
/// shows them); otherwise they are only counted.
pub fn judge_and_compare(
    source: &Source,
    run_as_of: Option<Timestamp>,
    golden: Option<&MatrixFile>,
    columns: &[Column],
    list_matched: bool,
) -> Result<Option<FileGrade>, CheckError> {
    judge_and_compare_noting(
        source,
        run_as_of,
        golden,
        columns,
        list_matched,
        &mut |_, _| {},
    )
}

/// [`judge_and_compare`], telling `on_case` each case's id and first line as the case
/// starts (so that a caller checking several files can find a case id in two of them).
pub fn judge_and_compare_noting(
    source: &Source,
    run_as_of: Option<Timestamp>,
    golden: Option<&MatrixFile>,
    columns: &[Column],
    list_matched: bool,
    on_case: &mut dyn FnMut(&str, u64),
) -> Result<Option<FileGrade>, CheckError> {
    let mut spill = MatrixSpill(BufWriter::with_capacity(1 << 16, tempfile::tempfile()?));
    let mut first_lines: Vec<u64> = Vec::new();
    let settings = StreamSettings {
        input_format: None,
        run_as_of,
        open_cases: DEFAULT_OPEN_CASES,
        encoding: Encoding::Csv,
        jobs: 1,
        progress: None,
        // `on_row` must see the rows in file order, for the first lines.
        rows_observed: true,
        split_min_bytes: u64::MAX,
    };
    let judged = adjudicate_streaming(
        std::slice::from_ref(source),
        &settings,
        &mut spill,
        &mut |at, parsed, outcome| {
            if outcome.reason == RowReason::Offered {
                first_lines.push(at.line);
                on_case(&parsed.case_id, at.line);
            }
        },
    );
    match judged {
        Ok(()) => {}
        Err(StreamError::Input(errors)) => return Err(CheckError::Input(errors)),
        Err(StreamError::Io(e)) => return Err(e.into()),
    }
    let Some(golden) = golden else {
        return Ok(None);
    };
    let mut file = spill.0.into_inner().map_err(|e| e.into_error())?;
    file.seek(SeekFrom::Start(0))?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(io::BufReader::with_capacity(1 << 16, file));
    let name = &source.name;
    // Per golden case only whether it was seen; a record only for what is listed (differences,
    // and matched cases when `list_matched`), so memory follows the differences, not the file.
    let mut seen = vec![false; golden.len()];
    let mut listed: Vec<(usize, CaseGrade)> = Vec::new();
    let mut matched_unlisted = 0usize;
    let mut unknown = Vec::new();
    let mut record = csv::StringRecord::new();
    let mut n = 0usize;
    while reader
        .read_record(&mut record)
        .map_err(|e| io::Error::other(e.to_string()))?
    {
        let case_id = &record[0];
        let line = first_lines[n];
        n += 1;
        let at = || Spot {
            file: name.clone(),
            line: Some(line),
        };
        match golden.position(case_id) {
            None => unknown.push(UnknownCase {
                case_id: case_id.to_owned(),
                at: at(),
            }),
            Some(index) => {
                seen[index] = true;
                let expected = golden.row(index);
                let differ = mismatches(&expected, &|c| record.get(c.index()), columns, true);
                let outcome = if differ.is_empty() {
                    if !list_matched {
                        matched_unlisted += 1;
                        continue;
                    }
                    CaseOutcome::Matched
                } else {
                    CaseOutcome::Mismatched(differ)
                };
                listed.push((
                    index,
                    CaseGrade {
                        case_id: expected.case_id.to_owned(),
                        at: at(),
                        outcome,
                    },
                ));
            }
        }
    }
    listed.extend(
        seen.iter()
            .zip(golden.rows())
            .enumerate()
            .filter(|(_, (seen, _))| !**seen)
            .map(|(index, (_, expected))| {
                (
                    index,
                    CaseGrade {
                        case_id: expected.case_id.to_owned(),
                        at: Spot {
                            file: golden.name.clone(),
                            line: Some(expected.line),
                        },
                        outcome: CaseOutcome::Missing,
                    },
                )
            }),
    );
    drop(seen);
    // The engine's matrix is in first-appearance order; the report lists golden-file order.
    listed.sort_unstable_by_key(|(index, _)| *index);
    let cases = listed.into_iter().map(|(_, grade)| grade).collect();
    Ok(Some(FileGrade {
        file: name.clone(),
        golden: golden.name.clone(),
        cases,
        matched_unlisted,
        unknown,
    }))
}
