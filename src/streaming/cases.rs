//! Per-case records in place of matrix rows: the hook through which `explain`, `validate`,
//! `template`, `reorder` and `adjudicate --explain` run on the one streaming engine. A [`CaseWriter`] makes each case's record from its rows
//! when the engine closes it; a case that comes back is rebuilt from its own lines and its
//! record written again in place of the first, so the records come out once per case, in
//! order of first appearance, holding no more than the engine holds (its open cases' rows).

use crate::lease::Row;

/// A row of a case as it was replayed, with its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptRow {
    /// Its line in the case's file.
    pub line: u64,
    /// The typed row.
    pub row: Row,
}

/// What a run writes for each case in place of its matrix row.
pub trait CaseWriter {
    /// Appends to `out` the record of case `case_id` of the input at command-line position
    /// `file_index` (named `file`), from `rows`: its rows that replayed, in file order (every
    /// row of a good case). Returns `false` to write none (a case not asked for); a record
    /// written must not be empty; an error ends the run. Called when the case closes, and again if it comes back
    /// and closes again (with every row): the second record takes the place of the first.
    fn write_case(
        &mut self,
        file_index: usize,
        file: &str,
        case_id: &str,
        rows: &[KeptRow],
        out: &mut Vec<u8>,
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
}
