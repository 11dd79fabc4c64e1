//! The one engine every command reads cases through ([`judge`]): replays rows as they are
//! read, keeps only open cases in memory, writes each finished case's record (its matrix row,
//! or what a [`CaseWriter`] makes of its rows) early, and judges a case that comes back after
//! it was let go from its own rows, read again: one pipeline, whatever the shape of the input.
//!
//! Its parts: the cross-row rules (`rules.rs`), one pass over the rows (`run.rs`), reading a
//! file again for a case that comes back (`reread.rs`), how files are read and by how many
//! threads (`schedule.rs`, `split.rs`, every file through `watch.rs`), and the stores: the open-case index (`index.rs`), the
//! seen-id filter and closed-case log (`ids.rs`), the spill of records (`spill.rs`).
//!
//! # How memory stays flat
//!
//! Cases are kept open in order of first appearance. When more than `open_cases` are open,
//! the oldest is *closed*: judged, its matrix row written to a spill file, its state dropped.
//! At the end of each file every case is closed (a case cannot continue in another file: a
//! case id in two files is an input error). Spilled rows are already in output order, since
//! cases close in order of first appearance. The spill is copied to the output at the end, so
//! bad input anywhere still leaves no output.
//!
//! Every case id goes into a Bloom filter ([`SeenIds`], sized for the expected cases and
//! growing up to 16 MiB), and every closed case into a log in a temporary file ([`IdLog`]:
//! its id, file, first and last line, and where its matrix row is in the spill). A row whose
//! case is not open is new for certain when the filter has not seen its id (a Bloom filter
//! has no false negatives).
//! When the filter says "maybe", the log settles it: a false positive (rare) costs a scan of
//! the log; a real hit is a closed case coming back, or a case id repeated in a later file.
//!
//! # A case that comes back
//!
//! Its earlier rows lie between its first line and the last line it had when it was closed
//! (the log says both): the file (or the copy of standard input) is read again up to that
//! line, only that case's rows are parsed and replayed, and the case is open again, as if it
//! had never been closed. The row that brought it back is replayed into it, so the audit sees
//! the same outcome, at the same moment, as a run that kept every case. When it closes again,
//! its matrix row is written beside the spill and replaces, when the spill is assembled, the
//! row written at its first closing: it keeps its place in order of first appearance. The
//! cost is that case's stretch of the file, not the file. A case id of an earlier file is
//! reported naming both places.
//!
//! Standard input is copied, as it is read, to an anonymous temporary file (as large as the
//! input) so that it can be read again. Temporary files are unlinked as they are made.
//!
//! # Both cores
//!
//! A lone CSV file of [`DEFAULT_SPLIT_MIN_BYTES`] or more is read as two halves on two
//! threads and stitched (`split.rs`), for a [`CaseWriter`] too when it can be forked
//! ([`CaseWriter::fork`]) and `on_row` need not see the rows in order. Several files are read by at most `jobs` workers (never
//! more than there are files), each keeping one spill and one log for all the files it reads,
//! merged in command-line order. Otherwise (a small file, JSON, standard input, or an audit,
//! which must see rows in order) one thread parses while the other replays.

use std::io;

use crate::input::{BadRow, InputError, InputErrors, InputFormat, ParsedRow, RowResult, Source};
use crate::lease::{Outcome, Timestamp};
use crate::matrix::MatrixEncoding;
mod cases;
mod ids;
mod index;
mod kept;
mod opened;
mod places;
mod reread;
pub mod rules;
mod run;
mod schedule;
mod spill;
mod split;
mod watch;

/// What a case's records are written to ([`CaseRecords::write_to`]).
pub use crate::store::AppendFile;
pub use cases::{CaseWriter, RecordOut};
pub use ids::{Closed, IdLog, SeenIds};
pub use kept::{KeptRow, KeptRows, DEFAULT_CASE_ROWS_IN_MEMORY};
pub use rules::{clash_error, Location};
use spill::{assemble, assemble_rows, SpillFile};

use ids::{id_hash, IdRecords};
use run::StreamRun;
use schedule::{stream_in_order, InPlace};
use watch::Watched;

/// [`id_hash`] of a row's case id, if it has one.
fn row_hash(row: &RowResult) -> u64 {
    match row {
        Ok(parsed) => id_hash(&parsed.case_id),
        Err(BadRow {
            case_id: Some(case_id),
            ..
        }) => id_hash(case_id),
        Err(_) => 0,
    }
}

/// What a streaming adjudication needs to know.
pub struct StreamSettings<'a> {
    /// Every input's format, if forced.
    pub input_format: Option<InputFormat>,
    /// The run's `--as-of`.
    pub run_as_of: Option<Timestamp>,
    /// How many cases may be open at once before the oldest is closed ([`EVERY_CASE`]: none
    /// is closed before its file ends).
    pub open_cases: usize,
    /// Worker threads for several files, or for the two halves of one large CSV file (1: one
    /// thread reads every file from start to end).
    pub jobs: usize,
    /// Whether `on_row` must see every row in order (an audit): a file is then never split.
    pub rows_observed: bool,
    /// With `jobs` > 1, a lone CSV file of at least this many bytes is read as two halves on
    /// two threads ([`DEFAULT_SPLIT_MIN_BYTES`]; `u64::MAX`: never).
    pub split_min_bytes: u64,
    /// Where the bytes read are counted, if progress is shown (the command draws it).
    pub progress: Option<&'a std::sync::atomic::AtomicU64>,
    /// The most rows the open cases keep for a case writer, all together, before the oldest
    /// are closed ([`DEFAULT_KEPT_ROWS`]).
    pub kept_rows: usize,
    /// Cases that came back kept open at once, at least, before the half that came back
    /// first are closed again ([`DEFAULT_PINNED_CASES`]).
    pub pinned_cases: usize,
    /// How many rows each open case keeps in memory for a case writer ([`Sink::Cases`])
    /// before they go to a temporary file, read back when the case is written
    /// ([`DEFAULT_CASE_ROWS_IN_MEMORY`]; a few: tests of the written-out path).
    pub case_rows_in_memory: usize,
    /// How much of an input that cannot be read twice (standard input, a pipe, a FIFO) is
    /// copied as it is read, for a case that comes back
    /// ([`MAX_KEPT_INPUT_BYTES`](crate::limits::MAX_KEPT_INPUT_BYTES); tests give a few).
    pub kept_input_bytes: u64,
}

impl Default for StreamSettings<'_> {
    /// The engine's defaults: the format each file's name and bytes say, no `--as-of`, a
    /// window of [`DEFAULT_OPEN_CASES`], one thread, no audit, large lone files split (when
    /// more threads are given), no progress.
    fn default() -> Self {
        StreamSettings {
            input_format: None,
            run_as_of: None,
            open_cases: DEFAULT_OPEN_CASES,
            jobs: 1,
            rows_observed: false,
            split_min_bytes: DEFAULT_SPLIT_MIN_BYTES,
            progress: None,
            kept_rows: DEFAULT_KEPT_ROWS,
            pinned_cases: DEFAULT_PINNED_CASES,
            case_rows_in_memory: DEFAULT_CASE_ROWS_IN_MEMORY,
            kept_input_bytes: crate::limits::MAX_KEPT_INPUT_BYTES,
        }
    }
}

impl StreamSettings<'_> {
    /// One thread reading every file from start to end, `on_row` seeing every row in file
    /// order (for an audit, or the first lines of each case); otherwise the defaults.
    pub fn in_file_order() -> Self {
        StreamSettings::in_file_order_on(1)
    }

    /// A run of a [`CaseWriter`] keeping `window` open, on [`default_jobs`] threads: a lone
    /// CSV file of `window.split_min_bytes` or more read as two halves if the writer can be
    /// forked ([`CaseWriter::fork`]), otherwise a file parsed on a second thread while this
    /// one replays. `on_row` then does not see every row: a caller that needs it to sets
    /// `rows_observed`.
    pub fn for_records(window: Window) -> Self {
        StreamSettings {
            jobs: default_jobs(),
            open_cases: window.open_cases,
            kept_rows: window.kept_rows,
            case_rows_in_memory: window.case_rows_in_memory,
            split_min_bytes: window.split_min_bytes,
            ..StreamSettings::default()
        }
    }

    /// [`in_file_order`](StreamSettings::in_file_order), a file parsed on a second thread
    /// while this one replays its rows (and a [`CaseWriter`] writes its cases) when `jobs` is
    /// more than 1: the same rows in the same order, so the same records, on two cores.
    pub fn in_file_order_on(jobs: usize) -> Self {
        StreamSettings {
            jobs,
            rows_observed: true,
            split_min_bytes: u64::MAX,
            ..StreamSettings::default()
        }
    }
}

/// The threads a command reads its files on when not told: one per core, at most
/// [`MAX_JOBS`](crate::limits::MAX_JOBS).
pub fn default_jobs() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(crate::limits::MAX_JOBS)
}

/// A Bloom filter sized for `sources` ([`SeenIds::for_input_bytes`]) when every input is a
/// file, else of the largest size. Its size only matters for speed and memory: more cases than
/// expected grow it.
fn filter_for(sources: &[Source]) -> SeenIds {
    let bytes: Option<u64> = sources
        .iter()
        .map(|source| {
            let path = source.path.as_ref()?;
            std::fs::metadata(path).ok().map(|m| m.len())
        })
        .sum();
    bytes.map_or_else(SeenIds::new, SeenIds::for_input_bytes)
}

/// The default number of open cases before the oldest is closed.
pub const DEFAULT_OPEN_CASES: usize = 4096;

/// The most rows the open cases keep for a case writer, all together: about 24 MiB (a kept
/// row takes about 370 bytes), more than 4,096 cases of 8 to 9 rows (generated and messy
/// files) keep, so that only files of long cases close cases early.
pub const DEFAULT_KEPT_ROWS: usize = 1 << 16;

/// Cases that came back kept open at once, at least (or `open_cases` if more).
pub const DEFAULT_PINNED_CASES: usize = 1024;

/// What a run that keeps its cases' rows (`explain`, `validate`) keeps open: how many cases,
/// and how many of their rows in all. Its output is the same whatever the window; tests give
/// a small one, to go past it with few cases.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    /// Cases open at once before the oldest is closed.
    pub open_cases: usize,
    /// Rows the open cases keep, all together, before the oldest are closed.
    pub kept_rows: usize,
    /// Rows one case keeps in memory before the rest go to a temporary file.
    pub case_rows_in_memory: usize,
    /// The most of an input that cannot be read twice that is kept to read again.
    pub kept_input_bytes: u64,
    /// The size from which a lone CSV file is read as two halves, if the writer can be
    /// forked ([`CaseWriter::fork`]; [`DEFAULT_SPLIT_MIN_BYTES`]; tests give 1, to split
    /// small files, and `u64::MAX`, never to).
    pub split_min_bytes: u64,
}

impl Window {
    /// The commands' window: [`DEFAULT_OPEN_CASES`] cases, [`DEFAULT_KEPT_ROWS`] rows,
    /// [`DEFAULT_CASE_ROWS_IN_MEMORY`] of a case in memory, and
    /// [`MAX_KEPT_INPUT_BYTES`](crate::limits::MAX_KEPT_INPUT_BYTES) kept of an input read once.
    pub const COMMAND: Window = Window {
        open_cases: DEFAULT_OPEN_CASES,
        kept_rows: DEFAULT_KEPT_ROWS,
        case_rows_in_memory: DEFAULT_CASE_ROWS_IN_MEMORY,
        kept_input_bytes: crate::limits::MAX_KEPT_INPUT_BYTES,
        split_min_bytes: DEFAULT_SPLIT_MIN_BYTES,
    };
}

/// The most bytes the open cases of one run hold together (their ids, and their cases' texts
/// and recorded numbers, [`Case::held_bytes`](crate::lease::Case::held_bytes)) before the
/// oldest are closed early: 4 MiB (a run on each half of a file, and its cases that came
/// back as much again), far more than 4,096 cases of ids and holders a few dozen bytes long
/// hold (about 100 KiB: a text of up to 24 bytes is kept inside its case), so that only
/// cases of long texts close early.
#[cfg(not(test))]
pub(crate) const OPEN_CASES_HELD_BYTES: usize = 4 << 20;
/// About fifty generated cases' worth: the core's own tests close cases early for it.
#[cfg(test)]
pub(crate) const OPEN_CASES_HELD_BYTES: usize = 2 << 10;

/// What a place of the open cases' ring keeps of a closed case, its strings and lists, for
/// the next case it holds: a case that held more is let go of.
pub(crate) const PLACE_KEEPS_BYTES: usize = 1 << 10;

/// An open-case limit that keeps every case of a file open until the file ends: each case is
/// then closed, and its record written, exactly once, in order of first appearance, and no
/// case is closed early for the rows it keeps. For a caller that needs each case once, in
/// order (explain's traces kept whole); it holds every case of a file.
pub const EVERY_CASE: usize = usize::MAX;

/// The default size from which a lone CSV file is read as two halves: below it, a second
/// thread does not pay for itself.
pub const DEFAULT_SPLIT_MIN_BYTES: u64 = 4 << 20;

/// What the engine writes for each case when it closes.
pub enum Sink {
    /// Its row of the evidence matrix, in this encoding (the command's choice).
    Matrix(&'static dyn MatrixEncoding),
    /// The record a [`CaseWriter`] makes of its rows (which the case keeps while it is open).
    /// Files are then replayed on one thread, in order, so that the records (and `on_row`)
    /// follow the input; with `jobs` > 1 a file is parsed on a second thread meanwhile.
    Cases(Box<dyn CaseWriter + Send>),
}

/// Judges every case of `sources`, streaming, writing for each the record `sink` says; `on_row`
/// sees each replayed row with its location and outcome as soon as it is read (for audits and
/// traces). The records are kept in temporary files until the whole input is known to be
/// good: on bad input, every input error of every source, in file and line order (a reader's
/// errors first at equal lines), and no records.
pub fn judge(
    sources: &[Source],
    settings: &StreamSettings<'_>,
    sink: Sink,
    on_row: &mut dyn FnMut(Location<'_>, &ParsedRow, &Outcome),
) -> Result<CaseRecords, StreamError> {
    let (attempt, layout) = match sink {
        Sink::Matrix(encoding) => {
            // An audit sees rows in order: files are then read one after the other.
            // Inputs that can be read only once (standard input, a pipe) are read in order,
            // each copied as it is read.
            let parallel = settings.jobs > 1
                && sources.len() > 1
                && !settings.rows_observed
                && sources
                    .iter()
                    .all(|s| s.path.as_deref().is_some_and(schedule::is_regular_file));
            let attempt = if parallel {
                schedule::stream_parallel(sources, settings, encoding)
            } else {
                schedule::stream_sequential(sources, settings, encoding, on_row)
            };
            (attempt?, RecordLayout::Matrix(encoding))
        }
        Sink::Cases(cases) => {
            let separator = cases.separator_len();
            // A lone large CSV file may be read as two halves when `on_row` need not see
            // the rows in order and the writer can be forked; otherwise in file order, with
            // `jobs` > 1 a file parsed on a second thread.
            let split = settings.jobs > 1
                && sources.len() == 1
                && !settings.rows_observed
                && cases.fork().is_some();
            let mut run = StreamRun::new(
                settings.run_as_of,
                settings.open_cases,
                None,
                std::sync::Arc::new(filter_for(sources)),
                split,
            )?
            .bounded_by(settings);
            run.keeping_rows = cases.needs_rows();
            run.cases = Some(cases);
            let attempt = if split {
                schedule::stream_run(run, sources, settings, on_row)?
            } else {
                let settings = StreamSettings {
                    rows_observed: true,
                    split_min_bytes: u64::MAX,
                    ..*settings
                };
                let stop = std::sync::atomic::AtomicBool::new(false);
                stream_in_order(run, sources, None, &settings, &stop, on_row)?
            };
            (attempt, RecordLayout::Cases { separator })
        }
    };
    match attempt {
        Attempt::Done(spills) => Ok(CaseRecords { spills, layout }),
        Attempt::Failed(errors) => Err(StreamError::Input(errors)),
    }
}

/// What a run wrote: one record per case written, in order of first appearance, in
/// temporary files.
pub struct CaseRecords {
    spills: Vec<SpillFile>,
    layout: RecordLayout,
}

/// How records are put together into their output.
enum RecordLayout {
    /// Matrix rows in this encoding, between its header and trailer.
    Matrix(&'static dyn MatrixEncoding),
    /// A case writer's records, the first without its leading separator of this many bytes.
    Cases { separator: u64 },
}

impl CaseRecords {
    /// How many records there are.
    pub fn count(&self) -> u64 {
        self.spills.iter().map(SpillFile::rows).sum()
    }

    /// Hands `visit` every record in order, of a run whose sink was
    /// `Sink::Matrix(&CellsMatrix)`, with the line of its case's first row in its file.
    pub fn for_each_cells_record(
        self,
        visit: &mut dyn FnMut(u64, crate::matrix::CellsRecord<'_>) -> io::Result<()>,
    ) -> io::Result<()> {
        spill::for_each_cells_record(self.spills, &mut |line_base, record| {
            visit(line_base + record.first_line, record)
        })
    }

    /// Writes them in order to `out`: the whole matrix (header or brackets included), or
    /// every case record (the first without its leading separator).
    pub fn write_to(self, out: &mut impl AppendFile) -> io::Result<()> {
        match self.layout {
            RecordLayout::Matrix(encoding) => assemble(out, encoding, self.spills),
            RecordLayout::Cases { separator } => assemble_rows(out, self.spills, separator),
        }
    }
}

/// Why a run failed.
#[derive(Debug)]
pub enum StreamError {
    /// Bad input: every error, in file and line order.
    Input(InputErrors),
    /// A temporary file could not be written or read.
    Io(io::Error),
}

/// A case file changed under the run is an input error of that file (found where its
/// reading ends or a case of it is read again, and carried there as an I/O error).
impl From<io::Error> for StreamError {
    fn from(e: io::Error) -> StreamError {
        match crate::input::FileChanged::of(&e) {
            Some(changed) => StreamError::Input(InputErrors::one(changed.input_error())),
            None => StreamError::Io(e),
        }
    }
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamError::Input(errors) => errors.fmt(f),
            StreamError::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for StreamError {}

/// How a pass over every file ended.
enum Attempt {
    /// Every case's record, in spills in order.
    Done(Vec<SpillFile>),
    /// Every input error.
    Failed(InputErrors),
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::random::SplitMix64;

    /// `cases` cases of 3 to 12 rows (offer, ack, progress, then a result or a late clock
    /// reading), six open at a time and their rows interleaved at random: a case file the
    /// engine must keep several cases of open, written here because the case generator is not
    /// the core's.
    fn interleaved_cases(seed: u64, cases: u64) -> String {
        let mut rng = SplitMix64::new(seed);
        let mut text = String::from(
            "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration,\
             progress_seq,result\n",
        );
        let story = |case: u64, rows: u64| -> Vec<String> {
            let at = |second: u64| format!("2026-01-01T10:{:02}:{:02}Z", second / 60, second % 60);
            let lease = format!("L-{case},1,w-{}", case % 7);
            let mut lines = vec![
                format!("c{case},offer,{},job-{case},{lease},30,,", at(0)),
                format!("c{case},ack,{},,{lease},,,", at(1)),
            ];
            for seq in 1..rows - 2 {
                lines.push(format!("c{case},progress,{},,{lease},,{seq},", at(1 + seq)));
            }
            lines.push(match case % 3 {
                0 => format!("c{case},observe,{},,,,,,,", at(600)),
                _ => format!("c{case},result,{},,{lease},,,SUCCESS", at(rows)),
            });
            lines
        };
        let mut open: Vec<std::collections::VecDeque<String>> = Vec::new();
        let mut next = 0;
        loop {
            while open.len() < 6 && next < cases {
                let rows = rng.range(3, 12);
                open.push(story(next, rows).into());
                next += 1;
            }
            if open.is_empty() {
                return text;
            }
            let slot = rng.range(0, open.len() as u64 - 1) as usize;
            text.push_str(&open[slot].pop_front().unwrap());
            text.push('\n');
            if open[slot].is_empty() {
                open.remove(slot);
            }
        }
    }

    /// The matrix of a run fed every row with the hash `hash` gives it; how many times a case
    /// came back.
    fn streamed_with_hash(
        source: &Source,
        open_cases: usize,
        hash: &dyn Fn(&RowResult) -> u64,
    ) -> (Vec<u8>, u64) {
        let mut run = StreamRun::new(
            None,
            open_cases,
            Some(&crate::matrix::CsvMatrix),
            Arc::new(SeenIds::for_ids(1000)),
            false,
        )
        .unwrap();
        run.begin_file(
            0,
            &source.name,
            InputFormat::Csv,
            &source.options,
            Some(
                opened::OpenedFile::open(
                    &source.name,
                    source.path.as_deref().unwrap(),
                    InputFormat::Csv,
                )
                .unwrap(),
            ),
        );
        let mut rows = Vec::new();
        let mut errors = InputErrors::new();
        crate::input::read_source(
            source,
            None,
            &mut errors,
            &mut |line, row| rows.push((line, row)),
            &mut crate::input::NoObserver,
        );
        for (line, row) in &rows {
            let at = Location {
                file_index: 0,
                file: &source.name,
                line: *line,
            };
            run.feed_hashed(at, row, hash(row)).unwrap();
        }
        run.end_file(errors).unwrap();
        assert!(run.errors.is_empty());
        let came_back = run.came_back_count;
        let mut out = Vec::new();
        assemble(
            &mut out,
            &crate::matrix::CsvMatrix,
            vec![run.spill.close().unwrap()],
        )
        .unwrap();
        (out, came_back)
    }

    /// Open cases are closed early once their texts hold more than the budget together (here
    /// the tests' 2 KiB), and those that come back are judged again as one case: the same
    /// matrix as with every case kept open, and cases did come back.
    #[test]
    fn open_cases_holding_long_texts_close_early_and_come_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long.csv");
        let holder = "h".repeat(1000);
        let mut text = String::from(
            "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n",
        );
        for i in 0..60 {
            text.push_str(&format!(
                "c{i},offer,2026-01-01T10:00:00Z,job-{i},L-{i},1,{holder}{i},60\n"
            ));
        }
        for i in 0..60 {
            text.push_str(&format!(
                "c{i},ack,2026-01-01T10:00:30Z,,L-{i},1,{holder}{i},\n"
            ));
        }
        std::fs::write(&path, text).unwrap();
        let source = Source {
            name: "long.csv".into(),
            path: Some(path),
            options: Default::default(),
        };
        let (expected, came_back) = streamed_with_hash(&source, EVERY_CASE, &row_hash);
        assert_eq!(came_back, 0);
        let (actual, came_back) = streamed_with_hash(&source, 4096, &row_hash);
        assert!(actual == expected);
        // Two cases' texts fit the budget: every other case was closed and came back.
        assert!(came_back >= 55, "{came_back}");
        let matrix = String::from_utf8(actual).unwrap();
        assert_eq!(matrix.lines().count(), 61);
        assert!(
            matrix
                .lines()
                .skip(1)
                .all(|l| l.ends_with(",ACTIVE,within_lease")),
            "{matrix}"
        );
    }

    #[test]
    fn ids_that_share_a_hash_are_told_apart_without_giving_up() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cases.csv");
        std::fs::write(&path, interleaved_cases(4, 300)).unwrap();
        let source = Source {
            name: "cases.csv".into(),
            path: Some(path),
            options: Default::default(),
        };
        // The engine as it runs, ids hashed as they are, no case let go: what it must give.
        let (expected, came_back) = streamed_with_hash(&source, 1 << 20, &row_hash);
        assert_eq!(came_back, 0);
        // Every id one hash, or one of two: the index and the filter see nothing but
        // collisions.
        let all_one: &dyn Fn(&RowResult) -> u64 = &|_| 42;
        let two = |row: &RowResult| match row {
            Ok(parsed) => id_hash(&parsed.case_id) & 1,
            Err(_) => 1,
        };
        for hash in [all_one, &two] {
            let (matrix, came_back) = streamed_with_hash(&source, 4096, hash);
            assert!(matrix == expected, "{}", String::from_utf8_lossy(&matrix));
            assert_eq!(came_back, 0, "no case was let go, so none came back");
            // Few open: cases come back, and are told apart by id too.
            let (matrix, came_back) = streamed_with_hash(&source, 2, hash);
            assert!(matrix == expected, "{}", String::from_utf8_lossy(&matrix));
            assert!(came_back > 0);
        }
    }
}
