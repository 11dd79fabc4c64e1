//! Per-case records in place of matrix rows: the hook through which `explain`, `validate`,
//! `template`, `reorder` and `adjudicate --explain` run on the one streaming engine. A [`CaseWriter`] makes each case's record from its rows
//! when the engine closes it; a case that comes back is rebuilt from its own lines and its
//! record written again in place of the first, so the records come out once per case, in
//! order of first appearance, holding no more than the engine holds (its open cases' rows).

use std::io::{self, Write};

use super::kept::KeptRows;
use crate::store::Put;

/// What a run writes for each case in place of its matrix row.
pub trait CaseWriter {
    /// Appends to `out` the record of case `case_id` of the input at command-line position
    /// `file_index` (named `file`), from `rows`: its rows that replayed, in file order (every
    /// row of a good case; a long case's are read back from a temporary file). Returns `false` to write none (a case not asked for); a record
    /// written must not be empty; an error ends the run. Called when the case closes, and again if it comes back
    /// and closes again (with every row): the second record takes the place of the first.
    fn write_case(
        &mut self,
        file_index: usize,
        file: &str,
        case_id: &str,
        rows: &KeptRows,
        out: &mut RecordOut<'_>,
    ) -> std::io::Result<bool>;

    /// Whether [`write_case`](Self::write_case) looks at the rows: a writer that does not
    /// (the template writes a case's id alone) is handed none, so that a case of millions of
    /// rows is never held.
    fn needs_rows(&self) -> bool {
        true
    }

    /// How many bytes every record starts with to separate it from the record before (a
    /// comma, a blank line): the first record is written without them.
    fn separator_len(&self) -> u64 {
        0
    }

    /// A writer for the second half of a lone large CSV file read as two halves on two
    /// threads (`split.rs`), if this one can have one: it must write, for a case, the record
    /// this one would (its rows' lines are those of the whole file), whichever writer is
    /// asked and in whatever order, so that the records stitched are those of one pass.
    /// `None` (the default): the file is read whole, parsed on one thread while the other
    /// replays.
    fn fork(&self) -> Option<Box<dyn CaseWriter + Send>> {
        None
    }
}

/// What takes a record's bytes as they are written (the engine's spill).
pub(super) type MoveOn<'a> = &'a mut dyn FnMut(&[u8]) -> io::Result<()>;

/// Where a [`CaseWriter`] writes a case's record: a buffer, moved on to the engine's spill
/// each time it holds [`RecordOut::MOVE_AT`] bytes (when the record is a first one, not a
/// replacement), so that the record of a case of millions of rows is never held whole.
pub struct RecordOut<'a> {
    buf: &'a mut Vec<u8>,
    /// Takes the bytes written so far, if they may be moved on before the record ends.
    sink: Option<MoveOn<'a>>,
    /// The bytes moved on.
    moved: u64,
}

impl<'a> RecordOut<'a> {
    /// Bytes held before they are moved on.
    pub const MOVE_AT: usize = 1 << 16;

    /// A record written into `buf` (empty), moved on to `sink` as it grows if there is one.
    pub fn new(buf: &'a mut Vec<u8>, sink: Option<MoveOn<'a>>) -> RecordOut<'a> {
        RecordOut {
            buf,
            sink,
            moved: 0,
        }
    }

    /// How many bytes were written.
    pub fn len(&self) -> u64 {
        self.moved + self.buf.len() as u64
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many bytes were moved on (they cannot be taken back).
    pub fn moved(&self) -> u64 {
        self.moved
    }

    /// Moves the bytes held on, if they may be and there are enough of them.
    fn move_if_full(&mut self) -> io::Result<()> {
        if self.buf.len() >= Self::MOVE_AT {
            if let Some(sink) = &mut self.sink {
                sink(self.buf)?;
                self.moved += self.buf.len() as u64;
                self.buf.clear();
            }
        }
        Ok(())
    }
}

/// A record's fields, by the store's codec (held until the record is written whole).
impl Put for RecordOut<'_> {
    fn put_raw(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }
}

impl Write for RecordOut<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        self.move_if_full()?;
        Ok(bytes.len())
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.write(bytes).map(|_| ())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
