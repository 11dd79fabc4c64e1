//! Streaming adjudication: replays rows as they are read, keeps only open cases in memory,
//! writes each finished case's matrix row early, and falls back to the all-in-memory
//! [`judge_sources`] only when a case it has let go of comes back.
//!
//! # How memory stays flat
//!
//! Cases are kept open in order of first appearance. When more than `open_cases` are open,
//! the oldest is *closed*: judged, its matrix row written to a spill file, its state dropped.
//! At the end of each file every case is closed (a case cannot continue in another file: a
//! case id in two files is an input error). Spilled rows are already in output order, since
//! cases close in order of first appearance. The spill is copied to the output at the end, so
//! bad input anywhere still leaves no output, as with [`judge_sources`].
//!
//! Every case id goes into a Bloom filter ([`SeenIds`], sized for the input up to 16 MiB) and,
//! in order, into a log in a temporary file ([`IdLog`]). A row whose case is not open is new for certain when the
//! filter has not seen its id (a Bloom filter has no false negatives). When the filter says
//! "maybe", the log settles it: a false positive (rare) costs a scan of the log; a real hit
//! is a closed case reappearing after more than `open_cases` other cases started, or a case
//! id repeated in a later file. Neither can be handled from what was kept, so the streaming
//! pass gives up and the run is redone by [`judge_sources`], which keeps every case (and
//! reports cross-file duplicates naming both places). The output is the same either way; only
//! time and memory differ.
//!
//! Audit lines already streamed are not repeated by the fallback: the rows before the point
//! of doubt had the same outcomes in both passes, so the fallback skips that many. Standard
//! input is copied to a temporary file as it is read, so that the fallback can read it again.
//!
//! # Both cores
//!
//! A lone CSV file of [`DEFAULT_SPLIT_MIN_BYTES`] or more is read as two halves on two
//! threads and stitched (`split.rs`). Several files are read on `jobs` threads, a pass each,
//! merged in command-line order. Otherwise (a small file, JSON, standard input, or an audit,
//! which must see rows in order) one thread parses while the other replays.

use std::fs::File;
use std::hash::BuildHasherDefault;
use std::io::{self, BufWriter, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use indicatif::ProgressBar;

use crate::adjudication::{bad_row_errors, fault_error, fault_errors, judge_sources, Location};
use crate::input::{
    parse_row_into, read_csv_cells, read_from_with, BadRow, InputError, InputErrors, InputFormat,
    Locate, ParsedRow, RawCells, RowResult, RowSink, Source,
};
use crate::lease::values::same_text;
use crate::lease::{Case, Message, Outcome, Timestamp};
use crate::matrix::MatrixRow;
use crate::output::AppendFile;

mod ids;
mod index;
mod spill;
mod split;

use ids::{id_hash, FxHasher, IdRecords};
pub use ids::{IdLog, SeenIds};
use index::OpenIndex;
pub use spill::{assemble, Encoding, Spill, SpillFile};

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

// Unboxed on purpose: open cases live in a ring in order of first appearance and are closed
// from its front, so closing reads memory in order (boxed, each close was a cache miss).
#[allow(clippy::large_enum_variant)]
enum Slot {
    /// Replaying.
    Live(Case),
    /// Its first row was bad input; later rows are only type-checked.
    Broken,
}

struct OpenCase {
    case_id: String,
    /// [`id_hash`] of `case_id`.
    hash: u64,
    slot: Slot,
    /// The line of its last row so far.
    last_line: u64,
}

/// Why a streaming pass stopped short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NeedsFullRun {
    /// How many rows were replayed (and handed to `on_row`) before the point of doubt.
    pub rows_replayed: u64,
}

/// One streaming pass over rows of one or more files.
pub struct StreamRun {
    run_as_of: Option<Timestamp>,
    open_cases: usize,
    seen: Arc<SeenIds>,
    /// With a filter shared with another run: the ids it said "maybe" of that this run had
    /// not seen (false positives, or ids the other run inserted first).
    suspects: Option<Vec<String>>,
    /// The open cases: the case with sequence number `seq` is at `seq % open_cases`, so a
    /// new case takes the place (and the memory) of the one just closed.
    open: Vec<OpenCase>,
    /// [`id_hash`] of a case id → sequence number of its open case.
    /// Two open ids with one hash (never seen with 64 bits) make the pass give up.
    index: OpenIndex,
    /// Cases `closed..next` are open.
    closed: u64,
    next: u64,
    /// The [`id_hash`], sequence number and place in `open` of the cases of recent rows
    /// (round robin from `recent_next`), tried before the index: the place is kept, not worked
    /// out again by a division on every row.
    recent: [(u64, u64, usize); RECENT_CASES],
    recent_next: usize,
    /// Where in `recent` the case of the last row replayed is.
    recent_hit: usize,
    spill: Spill,
    /// Errors of the current file from this run's own checks (the readers report theirs).
    faults: Vec<InputError>,
    /// Every input error so far, in file and line order.
    errors: Vec<InputError>,
    rows_replayed: u64,
    needs_full_run: bool,
    /// Every case id seen, in order of first appearance.
    ids: IdLog,
    /// For each of `faults`, the sequence number of its case.
    fault_cases: Vec<u64>,
    /// Set for the second half of a split file ([`split`]): every closed case is spilled,
    /// faults or not, and logged here.
    tail: Option<split::CloseLog>,
}

impl StreamRun {
    /// A pass judging cases at `run_as_of` (if later than their last row), keeping at most
    /// `open_cases` open, spilling rows as `encoding`, noting case ids in `seen` (sized for
    /// the input, and `shared` if another run notes its ids there too).
    pub fn new(
        run_as_of: Option<Timestamp>,
        open_cases: usize,
        encoding: Encoding,
        seen: Arc<SeenIds>,
        shared: bool,
    ) -> io::Result<StreamRun> {
        Ok(StreamRun {
            run_as_of,
            open_cases: open_cases.max(1),
            seen,
            suspects: shared.then(Vec::new),
            // Sized once (growing by doubling touched fresh pages again and again, perf).
            open: Vec::with_capacity(open_cases.clamp(1, 1 << 16)),
            index: OpenIndex::with_capacity(open_cases.clamp(1, 1 << 16)),
            closed: 0,
            next: 0,
            recent: [(0, u64::MAX, 0); RECENT_CASES],
            recent_next: 0,
            recent_hit: 0,
            spill: Spill::new(encoding)?,
            faults: Vec::new(),
            errors: Vec::new(),
            rows_replayed: 0,
            needs_full_run: false,
            ids: IdLog::new()?,
            fault_cases: Vec::new(),
            tail: None,
        })
    }

    /// Whether the pass has given up (see the module documentation).
    pub fn needs_full_run(&self) -> bool {
        self.needs_full_run
    }

    fn give_up(&mut self) -> Option<Outcome> {
        self.needs_full_run = true;
        None
    }

    /// Takes one row as read; returns its outcome if it was replayed.
    pub fn feed(&mut self, at: Location<'_>, row: &RowResult) -> io::Result<Option<Outcome>> {
        self.feed_hashed(at, row, row_hash(row))
    }

    /// [`feed`](StreamRun::feed) with the row's [`row_hash`], computed where the row was
    /// parsed (its case id is in that thread's cache, not yet in this one's).
    fn feed_hashed(
        &mut self,
        at: Location<'_>,
        row: &RowResult,
        hash: u64,
    ) -> io::Result<Option<Outcome>> {
        if self.needs_full_run {
            return Ok(None);
        }
        let case_id = match row {
            Ok(parsed) => &parsed.case_id,
            Err(BadRow {
                case_id: Some(case_id),
                ..
            }) => case_id,
            Err(_) => return Ok(None),
        };
        // Rows of one case come together, or a few cases take turns: try the cases of recent
        // rows before the index (hashes first, then the id), the case of the row before first.
        let closed = self.closed;
        let open = &self.open;
        let is_open_case = |&(recent_hash, seq, place): &(u64, u64, usize)| {
            (recent_hash == hash
                && seq != u64::MAX
                && seq >= closed
                && same_text(&open[place].case_id, case_id))
            .then_some((seq, place))
        };
        let last = match is_open_case(&self.recent[self.recent_hit]) {
            Some(found) => Some(found),
            None => self
                .recent
                .iter()
                .enumerate()
                .find_map(|(index, recent)| Some((index, is_open_case(recent)?)))
                .map(|(index, found)| {
                    self.recent_hit = index;
                    found
                }),
        };
        // A case starts with an offer: for an offer of another case, the filter is asked first,
        // and its usual answer, "certainly new", spares a look in the index (a cache miss with
        // thousands of cases open).
        let is_offer = matches!(row, Ok(parsed) if matches!(parsed.row.message, Message::Offer(_)));
        let maybe_seen = (last.is_none() && is_offer).then(|| self.seen.insert_hashed(hash));
        let found = match maybe_seen {
            Some(false) => None,
            _ => last.or_else(|| {
                let seq = self.index.get(hash)?;
                Some((seq, self.place(seq)))
            }),
        };
        if let Some((seq, place)) = found {
            if last.is_none() && !same_text(&self.open[place].case_id, case_id) {
                // Another open case has this id's hash: too rare to handle here.
                return Ok(self.give_up());
            }
            if last.is_none() {
                self.remember_recent(hash, seq, place);
            }
            let open = &mut self.open[place];
            open.last_line = at.line;
            let (Ok(parsed), Slot::Live(case)) = (row, &mut open.slot) else {
                // A bad row is still checked against its case (every error is listed).
                if let (Err(bad), Slot::Live(case)) = (row, &open.slot) {
                    let errors = bad_row_errors(at, case, bad);
                    if !errors.is_empty() {
                        self.faults.extend(errors);
                        self.fault_cases.push(seq);
                    }
                }
                return Ok(None);
            };
            return Ok(match case.step(&parsed.row) {
                Ok(outcome) => {
                    self.rows_replayed += 1;
                    Some(outcome)
                }
                Err(fault) => {
                    self.faults
                        .extend(fault_errors(at, case, &fault, &parsed.row));
                    self.fault_cases.push(seq);
                    None
                }
            });
        }
        // A "maybe" from the filter is settled by the log of every id seen (rare: a false
        // positive about once per million cases, or a real reappearance).
        if maybe_seen.unwrap_or_else(|| self.seen.insert_hashed(hash)) {
            if self.ids.contains(case_id)? {
                return Ok(self.give_up());
            }
            if let Some(suspects) = &mut self.suspects {
                suspects.push(case_id.to_string());
            }
        }
        self.ids.push(case_id)?;
        if self.next - self.closed == self.open_cases as u64 {
            self.close_oldest()?;
            self.prefetch_case(self.closed + CLOSE_AHEAD);
        }
        let seq = self.next;
        self.next += 1;
        let place = self.place(seq);
        if place == self.open.len() {
            self.open.push(OpenCase {
                case_id: String::new(),
                hash,
                slot: Slot::Broken,
                last_line: at.line,
            });
        }
        // In the place of a closed case: its strings and its case are reused.
        let open = &mut self.open[place];
        open.case_id.clear();
        open.case_id.push_str(case_id);
        open.hash = hash;
        open.last_line = at.line;
        let outcome = match row {
            Ok(ParsedRow { row, .. }) => {
                let started = if let Slot::Live(case) = &mut open.slot {
                    case.restart(row)
                } else {
                    Case::start(row).map(|(case, outcome)| {
                        open.slot = Slot::Live(case);
                        outcome
                    })
                };
                match started {
                    Ok(outcome) => Some(outcome),
                    Err(fault) => {
                        open.slot = Slot::Broken;
                        self.faults.push(fault_error(at, &fault, row));
                        self.fault_cases.push(seq);
                        None
                    }
                }
            }
            Err(_) => {
                open.slot = Slot::Broken;
                None
            }
        };
        if outcome.is_some() {
            self.rows_replayed += 1;
        }
        self.index.insert(hash, seq);
        self.remember_recent(hash, seq, place);
        Ok(outcome)
    }

    /// Asks for the memory of open case `seq` (if it is open) to be brought into the cache:
    /// cases are closed oldest first, thousands of cases after they were last touched, so the
    /// case to close a few new cases from now is asked for now, and closing it then does not
    /// wait for memory.
    fn prefetch_case(&self, seq: u64) {
        if seq >= self.next {
            return;
        }
        let open = &self.open[self.place(seq)];
        let start = std::ptr::from_ref(open).cast::<u8>();
        for offset in (0..std::mem::size_of::<OpenCase>()).step_by(64) {
            prefetch(start.wrapping_add(offset));
        }
    }

    /// Makes the case `seq` (at `place`) the most recent, in place of the least recent.
    fn remember_recent(&mut self, hash: u64, seq: u64, place: usize) {
        self.recent[self.recent_next] = (hash, seq, place);
        self.recent_hit = self.recent_next;
        self.recent_next = (self.recent_next + 1) % RECENT_CASES;
    }

    /// Where case `seq` is in `open`.
    fn place(&self, seq: u64) -> usize {
        (seq % self.open_cases as u64) as usize
    }

    fn close_oldest(&mut self) -> io::Result<()> {
        if self.closed == self.next {
            return Ok(());
        }
        let open = &self.open[self.place(self.closed)];
        self.closed += 1;
        self.index.remove(open.hash);
        if let Some(log) = &mut self.tail {
            // Whether this case continues a case of the first half is known only later: its
            // row is written whatever happened, and it can be left out then.
            let spilled = match &open.slot {
                Slot::Live(case) => self.spill.push_case(&open.case_id, case, self.run_as_of)?,
                Slot::Broken => 0,
            };
            return log.push(&open.case_id, open.last_line, spilled);
        }
        // Once there is an error nothing will be written; the spill is not worth filling.
        if let (Slot::Live(case), true) = (&open.slot, self.errors.is_empty()) {
            if self.faults.is_empty() {
                self.spill.push_case(&open.case_id, case, self.run_as_of)?;
            }
        }
        Ok(())
    }

    /// [`feed_hashed`](StreamRun::feed_hashed) for a reader's rows: when the pass gives up,
    /// or on an I/O error (kept in `io_error`), `stop` is raised so the reader ends; after an
    /// error no row is fed.
    fn feed_or_stop(
        &mut self,
        at: Location<'_>,
        row: &RowResult,
        hash: u64,
        stop: &AtomicBool,
        io_error: &mut Option<io::Error>,
    ) -> Option<Outcome> {
        if io_error.is_some() {
            return None;
        }
        match self.feed_hashed(at, row, hash) {
            Ok(outcome) => {
                if self.needs_full_run {
                    stop.store(true, Ordering::Relaxed);
                }
                outcome
            }
            Err(e) => {
                stop.store(true, Ordering::Relaxed);
                *io_error = Some(e);
                None
            }
        }
    }

    /// The sequence number of the open case `case_id`, if it is open.
    fn open_seq(&self, case_id: &str) -> Option<u64> {
        let seq = self.index.get(id_hash(case_id))?;
        (self.open[self.place(seq)].case_id == case_id).then_some(seq)
    }

    /// Closes every open case, oldest first.
    fn close_all(&mut self) -> io::Result<()> {
        while self.closed < self.next {
            self.close_oldest()?;
        }
        Ok(())
    }

    /// Ends one file: closes every open case and files the file's errors in line order
    /// (`reader_errors` first at equal lines, as [`judge_sources`] does).
    pub fn end_file(&mut self, mut reader_errors: Vec<InputError>) -> io::Result<()> {
        if self.needs_full_run {
            return Ok(());
        }
        reader_errors.append(&mut self.faults);
        self.fault_cases.clear();
        reader_errors.sort_by_key(|e| e.line);
        self.close_all()?;
        self.errors.extend(reader_errors);
        Ok(())
    }
}

/// What a streaming adjudication needs to know.
pub struct StreamSettings<'a> {
    /// Every input's format, if forced.
    pub input_format: Option<InputFormat>,
    /// The run's `--as-of`.
    pub run_as_of: Option<Timestamp>,
    /// How many cases may be open at once before the oldest is closed.
    pub open_cases: usize,
    /// The matrix encoding.
    pub encoding: Encoding,
    /// Worker threads for several files, or for the two halves of one large CSV file (1: one
    /// thread reads every file from start to end).
    pub jobs: usize,
    /// Whether `on_row` must see every row in order (an audit): a file is then never split.
    pub rows_observed: bool,
    /// With `jobs` > 1, a lone CSV file of at least this many bytes is read as two halves on
    /// two threads ([`DEFAULT_SPLIT_MIN_BYTES`]; `u64::MAX`: never).
    pub split_min_bytes: u64,
    /// Counts bytes read, if shown.
    pub progress: Option<&'a ProgressBar>,
}

/// A Bloom filter sized for `sources`: for about one case per 40 bytes of input (a case's
/// first row, an offer, is longer) when every input is a file, else of the largest size.
/// Its size only matters for speed: more cases than expected mean more false positives.
fn filter_for(sources: &[Source]) -> SeenIds {
    let bytes: Option<u64> = sources
        .iter()
        .map(|source| {
            let path = source.path.as_ref()?;
            std::fs::metadata(path).ok().map(|m| m.len())
        })
        .sum();
    bytes.map_or_else(SeenIds::new, |bytes| SeenIds::for_ids(bytes / 40 + 1))
}

/// How many new cases before its closing an open case is prefetched.
const CLOSE_AHEAD: u64 = 4;

/// A hint to bring the cache line at `at` into the cache.
#[inline(always)]
fn prefetch(at: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it never faults and reads or changes nothing that the
    // program can see, whatever the address; SSE, which has it, is part of every x86-64.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(at.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// How many cases of recent rows are tried before the index: enough for a handful of cases
/// taking turns (8 interleaved, generated: a tenth faster than trying only the last case).
const RECENT_CASES: usize = 8;

/// The default number of open cases before the oldest is closed.
pub const DEFAULT_OPEN_CASES: usize = 4096;

/// The default size from which a lone CSV file is read as two halves: below it, a second
/// thread does not pay for itself.
pub const DEFAULT_SPLIT_MIN_BYTES: u64 = 4 << 20;

/// Adjudicates `sources` and writes the whole matrix to `out`, streaming: `on_row` sees each
/// replayed row as soon as it is read. Output and errors are exactly those of
/// [`judge_sources`] followed by writing the matrix.
pub fn adjudicate_streaming(
    sources: &[Source],
    settings: &StreamSettings<'_>,
    out: &mut impl AppendFile,
    on_row: &mut dyn FnMut(Location<'_>, &ParsedRow, &Outcome),
) -> Result<(), StreamError> {
    let parallel =
        settings.jobs > 1 && sources.len() > 1 && sources.iter().all(|s| s.path.is_some());
    let attempt = if parallel {
        stream_parallel(sources, settings)
    } else {
        stream_sequential(sources, settings, on_row)
    }
    .map_err(StreamError::Io)?;
    match attempt {
        Attempt::Done(spills) => {
            assemble(out, settings.encoding, spills).map_err(StreamError::Io)?;
            Ok(())
        }
        Attempt::Failed(errors) => Err(StreamError::Input(InputErrors(errors))),
        Attempt::NeedsFullRun {
            rows_replayed,
            sources: replay_sources,
            _spool,
        } => {
            // Redo the run keeping every case; skip the audit lines already streamed.
            let mut skip = rows_replayed;
            let judged = judge_sources(
                &replay_sources,
                settings.input_format,
                settings.run_as_of,
                &mut |at, row, outcome| {
                    if skip > 0 {
                        skip -= 1;
                    } else {
                        on_row(at, row, outcome);
                    }
                },
            )
            .map_err(StreamError::Input)?;
            let mut spill = Spill::new(settings.encoding).map_err(StreamError::Io)?;
            for j in &judged {
                spill
                    .push(&MatrixRow::new(&j.case_id, &j.case, &j.verdict))
                    .map_err(StreamError::Io)?;
            }
            let spill = spill.close().map_err(StreamError::Io)?;
            assemble(out, settings.encoding, vec![spill]).map_err(StreamError::Io)?;
            Ok(())
        }
    }
}

/// Why a streaming adjudication failed.
#[derive(Debug)]
pub enum StreamError {
    /// Bad input: every error, as [`judge_sources`] lists them.
    Input(InputErrors),
    /// Reading a spill or writing the output failed.
    Io(io::Error),
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

enum Attempt {
    Done(Vec<SpillFile>),
    Failed(Vec<InputError>),
    NeedsFullRun {
        rows_replayed: u64,
        sources: Vec<Source>,
        /// Keeps the copy of standard input alive while the fallback reads it.
        _spool: Option<tempfile::NamedTempFile>,
    },
}

/// A reader that reports its bytes to the progress bar, copies them to a spool (standard
/// input, so the fallback can read it again) and reads as empty once told to stop.
struct Watched<'a, R> {
    inner: R,
    progress: Option<&'a ProgressBar>,
    spool: Option<&'a mut BufWriter<File>>,
    stop: &'a AtomicBool,
}

impl<R: Read> Read for Watched<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stop.load(Ordering::Relaxed) {
            return Ok(0);
        }
        let n = self.inner.read(buf)?;
        if let Some(spool) = &mut self.spool {
            spool.write_all(&buf[..n])?;
        }
        if let Some(progress) = self.progress {
            progress.inc(n as u64);
        }
        Ok(n)
    }
}

fn open_source(source: &Source, format: InputFormat) -> Result<Box<dyn Read>, InputError> {
    match &source.path {
        None => Ok(Box::new(io::stdin().lock())),
        Some(path) => crate::input::open_case_file(path, format)
            .map(|f| Box::new(f) as Box<dyn Read>)
            .map_err(|message| InputError::new(&source.name, 0, message)),
    }
}

/// Rows handed from the parsing thread to the replaying one at a time. Batches go back and
/// forth (see [`BatchFiller`]); small ones, few in flight (the channel holds
/// [`BATCHES_IN_FLIGHT`]), keep the rows crossing between the cores in cache: 1024-row
/// batches, eight in flight, spent about 8% more CPU (m1.csv, alternating runs).
const BATCH_ROWS: usize = 256;
/// Full batches the channel holds before the parser waits.
const BATCHES_IN_FLIGHT: usize = 4;

/// A row as the parsing thread hands it over.
struct BatchRow {
    line: u64,
    /// [`row_hash`] of `row`.
    hash: u64,
    row: RowResult,
}

/// Rows in file order; a batch is sent with how many of its rows are filled.
type Batch = Vec<BatchRow>;

/// The parsing thread's end of the pipeline: parses rows into the places of rows already
/// replayed, and sends each full batch.
struct BatchFiller {
    batch: Batch,
    filled: usize,
    sender: std::sync::mpsc::SyncSender<(Batch, usize)>,
    recycled: std::sync::mpsc::Receiver<Batch>,
}

impl BatchFiller {
    /// The index of the next row's place (which may still hold an old row).
    fn next_slot(&mut self, line: u64) -> usize {
        if self.filled == self.batch.len() {
            self.batch.push(BatchRow {
                line,
                hash: 0,
                row: Err(BadRow::default()),
            });
        } else {
            self.batch[self.filled].line = line;
        }
        self.filled += 1;
        self.filled - 1
    }

    /// Sends the batch once it is full.
    fn sent_if_full(&mut self) {
        if self.filled == BATCH_ROWS {
            let empty = self
                .recycled
                .try_recv()
                .unwrap_or_else(|_| Vec::with_capacity(BATCH_ROWS));
            let full = std::mem::replace(&mut self.batch, empty);
            // A closed channel means the replay stopped; the stop flag ends the reading.
            let _ = self.sender.send((full, BATCH_ROWS));
            self.filled = 0;
        }
    }

    /// Adds a row parsed elsewhere (JSON).
    fn put(&mut self, line: u64, row: RowResult) {
        let index = self.next_slot(line);
        let slot = &mut self.batch[index];
        slot.hash = row_hash(&row);
        slot.row = row;
        self.sent_if_full();
    }

    /// Sends the last rows.
    fn finish(self) {
        if self.filled > 0 {
            let _ = self.sender.send((self.batch, self.filled));
        }
    }
}

impl RowSink for BatchFiller {
    fn row(
        &mut self,
        line: u64,
        cells: &RawCells<'_>,
        errors: &mut Vec<InputError>,
        locate: &Locate<'_>,
    ) {
        let index = self.next_slot(line);
        let slot = &mut self.batch[index];
        if !parse_row_into(cells, errors, locate, &mut slot.row) {
            slot.hash = row_hash(&slot.row);
        }
        self.sent_if_full();
    }
}

/// A [`RowSink`] that parses every row into one place, reusing its strings, and replays it
/// there: the single-threaded path allocates and copies no row.
struct InPlace<'a, F> {
    slot: RowResult,
    /// [`row_hash`] of `slot`.
    hash: u64,
    replay: &'a mut F,
}

impl<F: FnMut(u64, &RowResult, u64)> RowSink for InPlace<'_, F> {
    fn row(
        &mut self,
        line: u64,
        cells: &RawCells<'_>,
        errors: &mut Vec<InputError>,
        locate: &Locate<'_>,
    ) {
        // Rows of a case usually come together: its id is hashed once.
        if !parse_row_into(cells, errors, locate, &mut self.slot) {
            self.hash = row_hash(&self.slot);
        }
        (self.replay)(line, &self.slot, self.hash);
    }
}

/// Feeds one source into `run`; `on_row` sees replayed rows. With `pipelined`, a file is
/// parsed on a second thread while this one replays (standard input is not: a live stream
/// must not wait for a batch to fill).
#[allow(clippy::too_many_arguments)]
fn stream_source(
    run: &mut StreamRun,
    file_index: usize,
    source: &Source,
    settings: &StreamSettings<'_>,
    spool: Option<&mut BufWriter<File>>,
    stop: &AtomicBool,
    pipelined: bool,
    on_row: &mut dyn FnMut(Location<'_>, &ParsedRow, &Outcome),
) -> io::Result<()> {
    let mut io_error = None;
    let format = source.format(settings.input_format);
    let mut replay = |line: u64, row: &RowResult, hash: u64| {
        let at = Location {
            file_index,
            file: &source.name,
            line,
        };
        if let (Some(outcome), Ok(parsed)) =
            (run.feed_or_stop(at, row, hash, stop, &mut io_error), row)
        {
            on_row(at, parsed, &outcome);
        }
    };
    let errors = match (&source.path, pipelined) {
        (Some(path), true) => match crate::input::open_case_file(path, format) {
            Err(message) => vec![InputError::new(&source.name, 0, message)],
            Ok(file) => {
                let watched = Watched {
                    inner: file,
                    progress: settings.progress,
                    spool: None,
                    stop,
                };
                let (sender, receiver) =
                    std::sync::mpsc::sync_channel::<(Batch, usize)>(BATCHES_IN_FLIGHT);
                // Emptied batches go back to the parser with their rows, which it parses the
                // next rows into: no row is allocated on one thread and freed on the other,
                // and none is moved through the channel (perf: a third of the run went on
                // allocating, freeing and copying rows).
                let (recycle, recycled) = std::sync::mpsc::channel::<Batch>();
                std::thread::scope(|scope| {
                    let parser = std::thread::Builder::new()
                        .name("leasejudge-parse".into())
                        .spawn_scoped(scope, move || {
                            let mut errors = Vec::new();
                            let mut filler = BatchFiller {
                                batch: Vec::with_capacity(BATCH_ROWS),
                                filled: 0,
                                sender,
                                recycled,
                            };
                            match format {
                                InputFormat::Csv => read_csv_cells(
                                    watched,
                                    &source.name,
                                    source.options.delimiter,
                                    &mut errors,
                                    &mut filler,
                                ),
                                _ => read_from_with(
                                    watched,
                                    &source.name,
                                    format,
                                    &source.options,
                                    &mut errors,
                                    &mut |line, row| filler.put(line, row),
                                ),
                            }
                            filler.finish();
                            errors
                        })
                        .expect("a thread can be started");
                    for (batch, filled) in receiver {
                        for row in &batch[..filled] {
                            replay(row.line, &row.row, row.hash);
                        }
                        // The parser may be done and gone: then the batch is simply freed.
                        let _ = recycle.send(batch);
                    }
                    parser.join().expect("the parsing thread does not panic")
                })
            }
        },
        _ => match open_source(source, format) {
            Err(e) => vec![e],
            Ok(reader) => {
                let watched = Watched {
                    inner: reader,
                    progress: settings.progress,
                    spool,
                    stop,
                };
                let mut errors = Vec::new();
                if format == InputFormat::Csv {
                    let mut sink = InPlace {
                        slot: Err(BadRow::default()),
                        hash: 0,
                        replay: &mut replay,
                    };
                    read_csv_cells(
                        watched,
                        &source.name,
                        source.options.delimiter,
                        &mut errors,
                        &mut sink,
                    );
                } else {
                    read_from_with(
                        watched,
                        &source.name,
                        format,
                        &source.options,
                        &mut errors,
                        &mut |line, row| replay(line, &row, row_hash(&row)),
                    );
                }
                errors
            }
        },
    };
    if let Some(e) = io_error {
        return Err(e);
    }
    run.end_file(errors)
}

fn stream_sequential(
    sources: &[Source],
    settings: &StreamSettings<'_>,
    on_row: &mut dyn FnMut(Location<'_>, &ParsedRow, &Outcome),
) -> io::Result<Attempt> {
    let new_run = |shared| {
        let seen = Arc::new(filter_for(sources));
        StreamRun::new(
            settings.run_as_of,
            settings.open_cases,
            settings.encoding,
            seen,
            shared,
        )
    };
    // A lone file may be split, its two halves sharing the filter.
    let mut run = new_run(sources.len() == 1 && settings.jobs > 1)?;
    let stop = AtomicBool::new(false);
    if let [source] = sources {
        // One large file: two threads, one per half.
        match split::stream_split(&mut run, 0, source, settings, &stop)? {
            split::Split::Whole => run.suspects = None,
            split::Split::Retry => {
                run = new_run(false)?;
            }
            split::Split::Done(tail) => {
                return Ok(if run.errors.is_empty() {
                    Attempt::Done(
                        [Some(run.spill.close()?), tail]
                            .into_iter()
                            .flatten()
                            .collect(),
                    )
                } else {
                    Attempt::Failed(run.errors)
                });
            }
            split::Split::NeedsFullRun => return Ok(full_run(sources)),
        }
    }
    let mut spool = None;
    for (file_index, source) in sources.iter().enumerate() {
        let mut spool_writer = None;
        if source.path.is_none() {
            let temp = tempfile::NamedTempFile::new()?;
            spool_writer = Some(BufWriter::new(temp.reopen()?));
            spool = Some(temp);
        }
        stream_source(
            &mut run,
            file_index,
            source,
            settings,
            spool_writer.as_mut(),
            &stop,
            settings.jobs > 1,
            on_row,
        )?;
        if run.needs_full_run() {
            if let Some(mut writer) = spool_writer {
                // Standard input is read once: keep the rest for the fallback.
                io::copy(&mut io::stdin().lock(), &mut writer)?;
                writer.flush()?;
            }
            let replay_sources = sources
                .iter()
                .map(|s| match (&s.path, &spool) {
                    (None, Some(temp)) => Source {
                        name: s.name.clone(),
                        path: Some(temp.path().to_owned()),
                        options: s.options.clone(),
                    },
                    _ => s.clone(),
                })
                .collect();
            return Ok(Attempt::NeedsFullRun {
                rows_replayed: run.rows_replayed,
                sources: replay_sources,
                _spool: spool,
            });
        }
    }
    Ok(if run.errors.is_empty() {
        Attempt::Done(vec![run.spill.close()?])
    } else {
        Attempt::Failed(run.errors)
    })
}

/// Each file in its own pass on `jobs` threads; the merge checks case ids across files.
fn stream_parallel(sources: &[Source], settings: &StreamSettings<'_>) -> io::Result<Attempt> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    /// What a file's pass leaves for the merge.
    struct FileResult {
        needs_full_run: bool,
        errors: Vec<InputError>,
        spill: SpillFile,
        ids: IdLog,
    }
    let results: Vec<std::sync::Mutex<Option<io::Result<FileResult>>>> = sources
        .iter()
        .map(|_| std::sync::Mutex::new(None))
        .collect();
    // A thread that cannot be started (a memory limit) is not a panic: the workers that did
    // start take every file from the shared counter; with none, the run fails.
    let mut started = 0;
    let mut spawn_error = None;
    std::thread::scope(|scope| {
        for _ in 0..settings.jobs.min(sources.len()) {
            let worker = std::thread::Builder::new().spawn_scoped(scope, || loop {
                let file_index = next.fetch_add(1, Ordering::Relaxed);
                let Some(source) = sources.get(file_index) else {
                    break;
                };
                let result = StreamRun::new(
                    settings.run_as_of,
                    settings.open_cases,
                    settings.encoding,
                    Arc::new(filter_for(std::slice::from_ref(source))),
                    false,
                )
                .and_then(|mut run| {
                    stream_source(
                        &mut run,
                        file_index,
                        source,
                        settings,
                        None,
                        &stop,
                        false,
                        &mut |_, _, _| {},
                    )?;
                    // Only the file's outcome is kept for the merge: the filter and the
                    // open files go now.
                    run.ids.close()?;
                    Ok(FileResult {
                        needs_full_run: run.needs_full_run,
                        errors: run.errors,
                        spill: run.spill.close()?,
                        ids: run.ids,
                    })
                });
                *results[file_index].lock().expect("no panics while locked") = Some(result);
            });
            match worker {
                Ok(_) => started += 1,
                Err(e) => {
                    spawn_error = Some(e);
                    break;
                }
            }
        }
    });
    if started == 0 {
        if let Some(e) = spawn_error {
            return Err(e);
        }
    }
    let seen = filter_for(sources);
    let mut earlier_ids: Vec<IdLog> = Vec::new();
    let mut spills = Vec::new();
    let mut errors = Vec::new();
    for result in results {
        let mut run = result
            .into_inner()
            .expect("no panics while locked")
            .expect("every file was run")?;
        if run.needs_full_run {
            return Ok(full_run(sources));
        }
        let mut duplicate = false;
        run.ids.for_each(&mut |id| {
            if seen.may_contain(id) {
                for log in &mut earlier_ids {
                    // A scan per "maybe": rare, and exact.
                    match log.contains(id) {
                        Ok(false) => {}
                        _ => duplicate = true,
                    }
                }
            }
            seen.insert(id);
            !duplicate
        })?;
        if duplicate {
            return Ok(full_run(sources));
        }
        errors.extend(run.errors);
        spills.push(run.spill);
        earlier_ids.push(run.ids);
    }
    Ok(if errors.is_empty() {
        Attempt::Done(spills)
    } else {
        Attempt::Failed(errors)
    })
}

fn full_run(sources: &[Source]) -> Attempt {
    Attempt::NeedsFullRun {
        rows_replayed: 0,
        sources: sources.to_vec(),
        _spool: None,
    }
}
