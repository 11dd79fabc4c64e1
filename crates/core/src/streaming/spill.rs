//! The matrix rows of closed cases, encoded in output order in the store's temporary files
//! (spills), rows of cases that came back written again as replacements, and their assembly
//! into the output once the whole input is known to be good.

use std::io::{self, BufRead, BufWriter, Read, Seek, Write};

use crate::lease::{Case, Timestamp};
use crate::matrix::MatrixEncoding;
use crate::store::AppendFile;
use crate::store::{Appender, SpillBuffer, TempFile};

use super::cases::RecordOut;

/// A row written in place of another when the spill is assembled.
#[derive(Clone, Copy, Debug)]
struct Replace {
    /// Where the row left out is in the spill file, and its length.
    at: u64,
    len: u64,
    /// Where its replacement is in the patch file, and its length (none: left out).
    with: Option<(u64, u64)>,
}

/// Matrix rows encoded in output order in an anonymous temporary file. One spill can hold the
/// rows of several files one after the other ([`Spill::segment`]).
pub(super) struct Spill {
    /// How its matrix rows are encoded, each after the encoding's separator (left out of the
    /// first when the spills are assembled). `None`: no matrix, but for each case the record a
    /// [`CaseWriter`](super::CaseWriter) makes of it ([`Spill::push_record`]).
    encoding: Option<&'static dyn MatrixEncoding>,
    file: TempFile,
    /// The rows, through a buffer: a row is encoded straight into it (not into `scratch`
    /// and copied), and it is written out to `file` once it has less than [`SPILL_ROW_ROOM`]
    /// bytes of room left of [`SPILL_BUFFER`]. Its bytes written are the spill's.
    pending: SpillBuffer,
    scratch: Vec<u8>,
    /// Where the current segment starts, and its rows.
    start: u64,
    rows: u64,
    /// Rows written again (cases that came back), made at the first one.
    patches: Option<(TempFile, BufWriter<Appender>)>,
    patch_bytes: u64,
    replace: Vec<Replace>,
}

/// A finished stretch of a spill, assembled in order with others.
pub(super) struct SpillFile {
    file: TempFile,
    patches: Option<TempFile>,
    start: u64,
    end: u64,
    rows: u64,
    /// Rows left out or replaced when it is assembled.
    replace: Vec<Replace>,
    /// Lines before the part of the file its run read (a second half's): added to the first
    /// lines its [`CellsMatrix`](crate::matrix::CellsMatrix) records hold.
    line_base: u64,
}

impl SpillFile {
    /// How many rows (or records) it holds, once assembled.
    pub(super) fn rows(&self) -> u64 {
        self.rows
    }

    /// Says that its run counted lines from after the first `line_base` lines of the file.
    pub(super) fn set_line_base(&mut self, line_base: u64) {
        self.line_base = line_base;
    }

    /// Leaves out, when assembled, the row of `len` bytes at byte `offset` of this stretch
    /// (after any left out before it).
    pub(super) fn skip_row(&mut self, offset: u64, len: u64) {
        self.replace.push(Replace {
            at: self.start + offset,
            len,
            with: None,
        });
        self.rows -= 1;
    }
}

impl Spill {
    /// An empty spill of matrix rows in `encoding`, or (`None`) of case records
    /// ([`Spill::push_record`]).
    pub(super) fn new(encoding: Option<&'static dyn MatrixEncoding>) -> io::Result<Spill> {
        let file = TempFile::new()?;
        Ok(Spill {
            encoding,
            pending: SpillBuffer::to_file(
                file.clone(),
                SPILL_BUFFER,
                SPILL_BUFFER - SPILL_ROW_ROOM + 1,
            ),
            file,
            scratch: Vec::with_capacity(512),
            start: 0,
            rows: 0,
            patches: None,
            patch_bytes: 0,
            replace: Vec::new(),
        })
    }

    /// How its matrix rows are encoded (`None`: case records).
    pub(super) fn encoding(&self) -> Option<&'static dyn MatrixEncoding> {
        self.encoding
    }

    /// Appends the record `fill` writes, unless it returns `false`; returns where it is and
    /// its length. A record must not be empty: rows are told apart by where they start. A
    /// long record goes on to the spill as it is written ([`RecordOut`]), so it must return
    /// `false` before it writes, if it does.
    pub(super) fn push_record(
        &mut self,
        fill: &mut dyn FnMut(&mut RecordOut<'_>) -> io::Result<bool>,
    ) -> io::Result<Option<(u64, u64)>> {
        self.scratch.clear();
        let at = self.pending.written();
        let pending = &mut self.pending;
        let mut move_on = |bytes: &[u8]| {
            pending.buf().extend_from_slice(bytes);
            pending.spill_if_full()
        };
        let mut out = RecordOut::new(&mut self.scratch, Some(&mut move_on));
        let wanted = fill(&mut out)?;
        let moved = out.moved();
        if !wanted {
            return match moved {
                0 => Ok(None),
                _ => Err(io::Error::other(
                    "a case's record was withdrawn after part of it was written",
                )),
            };
        }
        if moved == 0 && self.scratch.is_empty() {
            return Err(io::Error::other("a case's record is empty"));
        }
        self.pending.buf().extend_from_slice(&self.scratch);
        self.rows += 1;
        self.pending.spill_if_full()?;
        Ok(Some((at, self.pending.written() - at)))
    }

    /// [`replace_case`](Spill::replace_case) for a record (a case's record that was written
    /// is written again, so `fill` is expected to write one).
    pub(super) fn replace_record(
        &mut self,
        at: u64,
        len: u64,
        fill: &mut dyn FnMut(&mut RecordOut<'_>) -> io::Result<bool>,
    ) -> io::Result<()> {
        self.scratch.clear();
        if !fill(&mut RecordOut::new(&mut self.scratch, None))? || self.scratch.is_empty() {
            return Err(io::Error::other(
                "a case that came back wrote no record in place of its first",
            ));
        }
        self.append_patch(at, len)
    }

    /// Counts the bytes of `pending`'s buffer from `start` as a row (writing it out if it is
    /// full); returns where the row is and its length.
    fn appended(&mut self, start: usize) -> io::Result<(u64, u64)> {
        let len = (self.pending.buf().len() - start) as u64;
        let at = self.pending.written() - len;
        self.rows += 1;
        self.pending.spill_if_full()?;
        Ok((at, len))
    }

    /// Appends a closed case's row judged at `run_as_of`; returns where it is and its length.
    pub(super) fn push_case(
        &mut self,
        case_id: &str,
        first_line: u64,
        case: &Case,
        run_as_of: Option<Timestamp>,
    ) -> io::Result<(u64, u64)> {
        let start = self.pending.buf().len();
        encode_case(
            self.encoding,
            self.pending.buf(),
            case_id,
            first_line,
            case,
            run_as_of,
        )?;
        self.appended(start)
    }

    /// Writes a case's row again, to replace the row `len` bytes long at `at` (of this
    /// spill's current segment) when the spill is assembled: a case that came back after
    /// its row was written keeps its place in the output.
    pub(super) fn replace_case(
        &mut self,
        at: u64,
        len: u64,
        case_id: &str,
        first_line: u64,
        case: &Case,
        run_as_of: Option<Timestamp>,
    ) -> io::Result<()> {
        self.scratch.clear();
        encode_case(
            self.encoding,
            &mut self.scratch,
            case_id,
            first_line,
            case,
            run_as_of,
        )?;
        self.append_patch(at, len)
    }

    /// Writes the scratch buffer as the replacement of the row `len` bytes long at `at`.
    fn append_patch(&mut self, at: u64, len: u64) -> io::Result<()> {
        if self.patches.is_none() {
            let file = TempFile::new()?;
            let writer = BufWriter::with_capacity(1 << 14, file.appender());
            self.patches = Some((file, writer));
        }
        let (_, writer) = self.patches.as_mut().expect("made above");
        writer.write_all(&self.scratch)?;
        self.replace.push(Replace {
            at,
            len,
            with: Some((self.patch_bytes, self.scratch.len() as u64)),
        });
        self.patch_bytes += self.scratch.len() as u64;
        Ok(())
    }

    /// Ends the current segment (flushing what it wrote) and starts the next one.
    pub(super) fn segment(&mut self) -> io::Result<SpillFile> {
        self.pending.spill()?;
        if let Some((_, writer)) = &mut self.patches {
            writer.flush()?;
        }
        let segment = SpillFile {
            file: self.file.clone(),
            patches: self.patches.as_ref().map(|(file, _)| file.clone()),
            start: self.start,
            end: self.pending.written(),
            rows: self.rows,
            replace: std::mem::take(&mut self.replace),
            line_base: 0,
        };
        self.start = self.pending.written();
        self.rows = 0;
        Ok(segment)
    }

    /// Flushes the spill; what it holds.
    pub(super) fn close(mut self) -> io::Result<SpillFile> {
        self.segment()
    }
}

/// Bytes of rows a spill keeps before writing them to its file: 64 KiB, not a byte more
/// (a buffer of 65 KiB took mimalloc's next size class and raised the peak memory of the
/// messy 74k run by 1.8 MB).
const SPILL_BUFFER: usize = 1 << 16;

/// Room a spill's buffer keeps for the next row (a longer row grows the buffer, once).
const SPILL_ROW_ROOM: usize = 4096;

/// Appends to `out` a closed case's row judged at `run_as_of` in `encoding`, after its
/// separator.
fn encode_case(
    encoding: Option<&dyn MatrixEncoding>,
    out: &mut Vec<u8>,
    case_id: &str,
    first_line: u64,
    case: &Case,
    run_as_of: Option<Timestamp>,
) -> io::Result<()> {
    let encoding = encoding
        .ok_or_else(|| io::Error::other("a run that writes records writes no matrix rows"))?;
    out.extend_from_slice(encoding.separator());
    encoding.push_case(out, case_id, first_line, case, run_as_of)
}

/// Writes the whole matrix from spills in order: header, every row not left out or its
/// replacement (the first without its separator), trailer.
pub(super) fn assemble(
    out: &mut impl AppendFile,
    encoding: &dyn MatrixEncoding,
    spills: Vec<SpillFile>,
) -> io::Result<()> {
    let total: u64 = spills.iter().map(|spill| spill.rows).sum();
    encoding.write_header(out, &[])?;
    assemble_rows(out, spills, encoding.separator().len() as u64)?;
    encoding.write_trailer(out, total)
}

/// Writes every row (or record) of `spills` in order, each replaced row by its
/// replacement, leaving out the first `skip` bytes of the first one written.
pub(super) fn assemble_rows(
    out: &mut impl AppendFile,
    spills: Vec<SpillFile>,
    skip: u64,
) -> io::Result<()> {
    for_each_stretch(spills, skip, &mut |_, source, len| {
        if out.append_file(source, len)? != len {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "a spill file is shorter than what was written to it",
            ));
        }
        Ok(())
    })
}

/// Hands every [`CellsMatrix`](crate::matrix::CellsMatrix) record of `spills` to `visit` in
/// order (each replaced record by its replacement), with the lines its run counted from.
pub(super) fn for_each_cells_record(
    spills: Vec<SpillFile>,
    visit: &mut dyn FnMut(u64, crate::matrix::CellsRecord<'_>) -> io::Result<()>,
) -> io::Result<()> {
    // A stretch ends where a record does.
    let mut record = Vec::new();
    for_each_stretch(spills, 0, &mut |line_base, source, len| {
        let mut stretch = io::BufReader::with_capacity(1 << 16, source.take(len));
        loop {
            // A record wholly in the reader's buffer is read there, not copied out first.
            let buffered = stretch.fill_buf()?;
            if let Some((cells, len)) = crate::matrix::CellsRecord::split_first(buffered) {
                visit(line_base, cells)?;
                stretch.consume(len);
                continue;
            }
            let mut len = [0u8; 4];
            match stretch.read_exact(&mut len) {
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
                read => read?,
            }
            record.clear();
            record.extend_from_slice(&len);
            let len = u32::from_le_bytes(len) as usize;
            record.resize(4 + len, 0);
            stretch.read_exact(&mut record[4..])?;
            let (cells, _) = crate::matrix::CellsRecord::split_first(&record)
                .ok_or_else(|| io::Error::other("a spilled record is malformed"))?;
            visit(line_base, cells)?;
        }
    })
}

/// Hands `visit` every stretch of `spills` to copy in order (its spill's line base, the file
/// positioned at its start, and its length): the rows between those left out, and the
/// replacements; the first `skip` bytes of the first row are skipped.
fn for_each_stretch(
    spills: Vec<SpillFile>,
    skip: u64,
    visit: &mut dyn FnMut(u64, &mut std::fs::File, u64) -> io::Result<()>,
) -> io::Result<()> {
    let mut first = true;
    for mut spill in spills {
        if spill.rows == 0 {
            continue;
        }
        // A descriptor of its own for the copy (closed after it): spills share theirs.
        let mut file = spill.file.descriptor()?;
        let mut patches = spill
            .patches
            .as_ref()
            .map(TempFile::descriptor)
            .transpose()?;
        // In order; a row replaced twice (a case that came back twice) by its last row.
        spill.replace.sort_by_key(|r| r.at);
        spill.replace.dedup_by(|later, earlier| {
            let same = later.at == earlier.at;
            if same {
                *earlier = *later;
            }
            same
        });
        // The stretches between the rows left out, and the replacements.
        let mut pieces = Vec::with_capacity(2 * spill.replace.len() + 1);
        let mut at = spill.start;
        for r in &spill.replace {
            pieces.push((false, at, r.at - at));
            if let Some((patch_at, patch_len)) = r.with {
                pieces.push((true, patch_at, patch_len));
            }
            at = r.at + r.len;
        }
        pieces.push((false, at, spill.end - at));
        for (patch, start, mut len) in pieces {
            if len == 0 {
                continue;
            }
            let source = match (patch, &mut patches) {
                (true, Some(patches)) => patches,
                _ => &mut file,
            };
            source.seek(io::SeekFrom::Start(start))?;
            if first && skip > 0 {
                // The first row written loses its leading separator.
                io::copy(&mut (&mut *source).take(skip), &mut io::sink())?;
                len = len.saturating_sub(skip);
            }
            first = false;
            visit(spill.line_base, source, len)?;
        }
    }
    Ok(())
}
