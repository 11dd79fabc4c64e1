//! The matrix rows of closed cases, encoded in output order in temporary files (spills), and
//! their assembly into the output once the whole input is known to be good.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, Write};

use crate::lease::{Case, Timestamp};
use crate::matrix::{push_csv_row, CsvMatrixWriter, MatrixRow};
use crate::output::AppendFile;

/// How the matrix is encoded in the spill and the final output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// CSV, as [`CsvMatrixWriter`] writes it.
    Csv,
    /// One JSON array, as [`crate::matrix::JsonMatrixWriter`] writes it.
    Json,
}

/// Matrix rows encoded in output order in a temporary file.
pub struct Spill {
    writer: SpillWriter,
    rows: u64,
    path: tempfile::TempPath,
}

/// A finished spill: closed (so that a run over many files does not hold a descriptor per
/// file), removed when dropped.
pub struct SpillFile {
    path: tempfile::TempPath,
    rows: u64,
    /// Rows left out when it is assembled: (byte offset, length), in order.
    skip: Vec<(u64, u64)>,
}

impl SpillFile {
    /// Leaves out, when assembled, the row of `len` bytes at byte `offset` (after any left out
    /// before it).
    pub(super) fn skip_row(&mut self, offset: u64, len: u64) {
        debug_assert!(self.skip.last().is_none_or(|&(at, n)| at + n <= offset));
        self.skip.push((offset, len));
        self.rows -= 1;
    }
}

enum SpillWriter {
    /// Rows encoded by [`push_csv_row`] into the scratch buffer, then written.
    Csv(BufWriter<File>, Vec<u8>),
    /// Rows encoded into the scratch buffer, then written.
    Json(BufWriter<File>, Vec<u8>),
}

impl Spill {
    /// An empty spill.
    pub fn new(encoding: Encoding) -> io::Result<Spill> {
        let (file, path) = tempfile::NamedTempFile::new()?.into_parts();
        let file = BufWriter::with_capacity(1 << 16, file);
        let writer = match encoding {
            Encoding::Csv => SpillWriter::Csv(file, Vec::with_capacity(512)),
            Encoding::Json => SpillWriter::Json(file, Vec::with_capacity(512)),
        };
        Ok(Spill {
            writer,
            rows: 0,
            path,
        })
    }

    /// Appends one row, encoded as [`CsvMatrixWriter`] or [`crate::matrix::JsonMatrixWriter`]
    /// would; returns its length in bytes. JSON rows are written as `,\n{...}`; the first
    /// comma is dropped when the spills are assembled.
    pub fn push(&mut self, row: &MatrixRow) -> io::Result<u64> {
        self.rows += 1;
        match &mut self.writer {
            SpillWriter::Csv(writer, scratch) => {
                scratch.clear();
                let mut csv = csv::WriterBuilder::new()
                    .terminator(csv::Terminator::Any(b'\n'))
                    .from_writer(&mut *scratch);
                row.write_csv(&mut csv)?;
                csv.flush()?;
                drop(csv);
                writer.write_all(scratch)?;
                Ok(scratch.len() as u64)
            }
            SpillWriter::Json(writer, scratch) => {
                scratch.clear();
                scratch.extend_from_slice(b",\n");
                serde_json::to_writer(&mut *scratch, &row.to_json())?;
                writer.write_all(scratch)?;
                Ok(scratch.len() as u64)
            }
        }
    }

    /// Appends a closed case's row judged at `run_as_of`: as [`Spill::push`] of its
    /// [`MatrixRow`], without building one (or copying the lease) for CSV.
    pub fn push_case(
        &mut self,
        case_id: &str,
        case: &Case,
        run_as_of: Option<Timestamp>,
    ) -> io::Result<u64> {
        match &mut self.writer {
            SpillWriter::Csv(writer, scratch) => {
                self.rows += 1;
                scratch.clear();
                push_csv_row(scratch, case_id, case, &case.judge(run_as_of));
                writer.write_all(scratch)?;
                Ok(scratch.len() as u64)
            }
            SpillWriter::Json(..) => {
                self.push(&MatrixRow::new(case_id, case, &case.verdict(run_as_of)))
            }
        }
    }

    /// How many rows it holds.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Flushes and closes the spill.
    pub fn close(self) -> io::Result<SpillFile> {
        let buffered = match self.writer {
            SpillWriter::Csv(writer, _) | SpillWriter::Json(writer, _) => writer,
        };
        buffered.into_inner().map_err(|e| e.into_error())?;
        Ok(SpillFile {
            path: self.path,
            rows: self.rows,
            skip: Vec::new(),
        })
    }
}

/// Writes the whole matrix from spills in order: header (or `[`), every row not left out,
/// trailer.
pub fn assemble(
    out: &mut impl AppendFile,
    encoding: Encoding,
    spills: Vec<SpillFile>,
) -> io::Result<()> {
    let total: u64 = spills.iter().map(|spill| spill.rows).sum();
    match encoding {
        Encoding::Csv => {
            CsvMatrixWriter::new(&mut *out, &[])?.finish()?;
        }
        Encoding::Json => out.write_all(b"[")?,
    }
    let mut first = true;
    for spill in spills {
        if spill.rows == 0 {
            continue;
        }
        let mut file = File::open(&spill.path)?;
        // The stretches between the rows left out.
        let mut stretches = Vec::with_capacity(spill.skip.len() + 1);
        let mut at = 0u64;
        for &(offset, len) in &spill.skip {
            stretches.push((at, offset - at));
            at = offset + len;
        }
        stretches.push((at, file.metadata()?.len() - at));
        for (start, mut len) in stretches {
            if len == 0 {
                continue;
            }
            file.seek(io::SeekFrom::Start(start))?;
            if encoding == Encoding::Json && first {
                // Drop the leading comma of the first row written.
                let mut comma = [0u8; 1];
                file.read_exact(&mut comma)?;
                len -= 1;
            }
            first = false;
            if out.append_file(&mut file, len)? != len {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "a spill file is shorter than what was written to it",
                ));
            }
        }
    }
    if encoding == Encoding::Json {
        out.write_all(if total == 0 { b"]\n" } else { b"\n]\n" })?;
    }
    Ok(())
}
