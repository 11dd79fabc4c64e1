//! Per-case records in place of matrix rows: the hook through which `explain` and `validate`
//! run on the one streaming engine. A [`CaseWriter`] makes each case's record from its rows
//! when the engine closes it; a case that comes back is rebuilt from its own lines and its
//! record written again in place of the first, so the records come out once per case, in
//! order of first appearance, holding no more than the engine holds (its open cases' rows).

use std::sync::atomic::AtomicBool;

use crate::adjudication::Location;
use crate::input::{ParsedRow, Source};
use crate::lease::{Outcome, Row};
use crate::output::AppendFile;

use super::{assemble_rows, stream_in_order, Attempt, Encoding, SpillFile, StreamError};
use super::{StreamRun, StreamSettings};

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
}

/// The records of a run, one per case written, in order of first appearance.
pub struct CaseRecords {
    spills: Vec<SpillFile>,
}

impl CaseRecords {
    /// How many records there are.
    pub fn count(&self) -> u64 {
        self.spills.iter().map(SpillFile::rows).sum()
    }

    /// Writes every record in order to `out`, leaving out the first `skip` bytes of the
    /// first (a separator each record starts with).
    pub fn write_to(self, out: &mut impl AppendFile, skip: u64) -> std::io::Result<()> {
        assemble_rows(out, self.spills, skip)
    }
}

/// Streams `sources` on one thread, in file order, as
/// [`adjudicate_streaming`](super::adjudicate_streaming) does (same errors, `on_row` sees
/// every replayed row as it is read), writing for each case the record `cases` makes of it
/// instead of its matrix row. The records are kept in temporary files until the whole input
/// is known to be good. `settings.encoding`, `jobs` and `split_min_bytes` are not used.
pub fn stream_cases(
    sources: &[Source],
    settings: &StreamSettings<'_>,
    cases: Box<dyn CaseWriter + Send>,
    on_row: &mut dyn FnMut(Location<'_>, &ParsedRow, &Outcome),
) -> Result<CaseRecords, StreamError> {
    let settings = StreamSettings {
        input_format: settings.input_format,
        run_as_of: settings.run_as_of,
        open_cases: settings.open_cases,
        encoding: Encoding::Csv,
        // One thread, files in order: records (and `on_row`) follow the input.
        jobs: 1,
        rows_observed: true,
        split_min_bytes: u64::MAX,
        progress: settings.progress,
    };
    let mut run = StreamRun::new(
        settings.run_as_of,
        settings.open_cases,
        Encoding::Csv,
        std::sync::Arc::new(super::filter_for(sources)),
        false,
    )
    .map_err(StreamError::Io)?;
    run.spill = super::Spill::for_records().map_err(StreamError::Io)?;
    run.cases = Some(cases);
    let stop = AtomicBool::new(false);
    match stream_in_order(run, sources, &settings, &stop, on_row).map_err(StreamError::Io)? {
        Attempt::Done(spills) => Ok(CaseRecords { spills }),
        Attempt::Failed(errors) => Err(StreamError::Input(crate::input::InputErrors(errors))),
    }
}
