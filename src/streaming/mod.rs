//! Streaming adjudication: replays rows as they are read, keeps only open cases in memory,
//! writes each finished case's matrix row early, and judges a case that comes back after it
//! was let go from its own rows, read again: one pipeline, whatever the shape of the input.
//!
//! # How memory stays flat
//!
//! Cases are kept open in order of first appearance. When more than `open_cases` are open,
//! the oldest is *closed*: judged, its matrix row written to a spill file, its state dropped.
//! At the end of each file every case is closed (a case cannot continue in another file: a
//! case id in two files is an input error). Spilled rows are already in output order, since
//! cases close in order of first appearance. The spill is copied to the output at the end, so
//! bad input anywhere still leaves no output, as with [`judge_sources`](crate::adjudication::judge_sources).
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
//! reported naming both places, as [`judge_sources`](crate::adjudication::judge_sources) does.
//!
//! Standard input is copied, as it is read, to an anonymous temporary file (as large as the
//! input) so that it can be read again. Temporary files are unlinked as they are made.
//!
//! # Both cores
//!
//! A lone CSV file of [`DEFAULT_SPLIT_MIN_BYTES`] or more is read as two halves on two
//! threads and stitched (`split.rs`). Several files are read by at most `jobs` workers (never
//! more than there are files), each keeping one spill and one log for all the files it reads,
//! merged in command-line order. Otherwise (a small file, JSON, standard input, or an audit,
//! which must see rows in order) one thread parses while the other replays.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use indicatif::ProgressBar;

use crate::adjudication::{bad_row_errors, clash_error, fault_error, fault_errors, Location};
use crate::input::{
    json_object_starts, parse_row_into, read, read_cells, BadRow, CaseRead, CsvHeader, InputError,
    InputErrors, InputFormat, Locate, NoObserver, ParsedRow, RawCells, ReadOptions, RowResult,
    RowSink, Source,
};
use crate::lease::values::same_text;
use crate::lease::{Case, Message, Outcome, Timestamp};
use crate::output::AppendFile;

mod cases;
mod ids;
mod index;
mod spill;
mod split;

pub use cases::{stream_cases, CaseRecords, CaseWriter, KeptRow};

use ids::{id_hash, IdRecords};
pub use ids::{Closed, IdLog, SeenIds};
use index::OpenIndex;
use spill::{anonymous_file, ReadAt};
pub use spill::{assemble, assemble_rows, Encoding, Spill, SpillFile};

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
    /// The line of its first row.
    first_line: u64,
    /// The line of its last row so far.
    last_line: u64,
    /// The number of rows of its file before its first row, and before its last so far.
    first_row: u64,
    last_row: u64,
    /// Its rows that replayed, for a [`CaseWriter`] (none kept without one).
    rows: Vec<KeptRow>,
}

/// A case that came back after it was closed, kept open to the end of its file (or until
/// [`PINNED_CASES`] others came back after it).
struct Pinned {
    slot: Slot,
    /// Where it was first and last, and where its matrix row is in the spill (`None`: none
    /// was written, as there were errors): it is replaced when the case closes.
    closed: Closed,
    /// Its rows that replayed, for a [`CaseWriter`] (none kept without one).
    rows: Vec<KeptRow>,
}

/// How the file being read can be read again from its start (for a case that comes back).
enum Reread {
    /// Open the file again.
    Path(PathBuf),
    /// The copy of standard input made as it was read.
    Spool(Arc<File>),
}

/// The file being read: its name, format and how to read it again.
struct CurrentFile {
    name: String,
    format: InputFormat,
    /// The delimiter and sheet it is read with.
    options: ReadOptions,
    reread: Reread,
    /// Opened at the first case that comes back: the file, its CSV header, where its lines
    /// start, where its JSON rows start.
    opened: Option<(Arc<File>, Option<CsvHeader>, LineIndex, RowIndex)>,
    /// The rows read from it so far: a JSON array may hold several rows on a line (all of
    /// them on one), so the rows of a case read again from a JSON file are found by their
    /// number rather than their line.
    rows: u64,
}

/// Where some lines of a file start, found by scanning its bytes for line ends (what the
/// readers count lines by) as far as a case read again needed, with a point kept every
/// [`LINE_INDEX_STEP`] bytes: finding a line costs a scan from the point before it, and
/// every byte is scanned once more at most besides.
struct LineIndex {
    /// (line, byte offset of its start), in order; the first is line 1 at byte 0.
    points: Vec<(u64, u64)>,
}

/// Bytes between the points of a [`LineIndex`]: a case that comes back costs a scan of this
/// much at most to find its first line (a point per MiB cost each of 100,000 returning
/// one-row cases half a MiB), and the points of a 356 MB file take 90 KB.
const LINE_INDEX_STEP: u64 = 1 << 16;

impl LineIndex {
    fn new() -> LineIndex {
        LineIndex {
            points: vec![(1, 0)],
        }
    }

    /// The byte offset where `line` starts, if the file has that many lines.
    fn start_of(&mut self, file: &File, line: u64) -> io::Result<Option<u64>> {
        let point = self.points.partition_point(|&(l, _)| l <= line) - 1;
        let (mut at_line, mut offset) = self.points[point];
        let extends = point + 1 == self.points.len();
        let mut buf = vec![0u8; 1 << 16];
        while at_line < line {
            let n = spill::read_at(file, &mut buf, offset)?;
            if n == 0 {
                return Ok(None);
            }
            let mut consumed = n;
            for end in memchr::memchr_iter(b'\n', &buf[..n]) {
                at_line += 1;
                let start = offset + end as u64 + 1;
                if extends && start >= self.points.last().map_or(0, |p| p.1) + LINE_INDEX_STEP {
                    self.points.push((at_line, start));
                }
                if at_line == line {
                    consumed = end + 1;
                    break;
                }
            }
            offset += consumed as u64;
        }
        Ok(Some(offset))
    }
}

/// Where some rows of a JSON array start, found by scanning its objects
/// ([`json_object_starts`], which does not parse them) as far as a case read again needed,
/// with a point kept every [`LINE_INDEX_STEP`] bytes: finding a row costs a scan from the
/// point before it, and every byte is scanned once more at most besides. A file that is not
/// an array of objects as far as the row has none: it is read from its start, rows counted.
struct RowIndex {
    /// (rows before it, byte offset, line) of some rows, in order.
    points: Vec<(u64, u64, u64)>,
    /// Whether the scan met something other than an object or the array's end (no point
    /// past the last can be found).
    stuck: bool,
}

impl RowIndex {
    fn new() -> RowIndex {
        RowIndex {
            points: Vec::new(),
            stuck: false,
        }
    }

    /// The byte offset and line of the row with `row` rows before it, if the file is an
    /// array of objects that far.
    fn start_of(&mut self, file: &Arc<File>, row: u64) -> io::Result<Option<(u64, u64)>> {
        let point = self.points.partition_point(|&(rows, ..)| rows <= row);
        let extends = point == self.points.len();
        if extends && self.stuck {
            return Ok(None);
        }
        let (mut next, from, line_base) = match point.checked_sub(1) {
            Some(point) => {
                let (rows, offset, line) = self.points[point];
                (rows, offset, line - 1)
            }
            None => (0, 0, 0),
        };
        let reader = ReadAt {
            file: Arc::clone(file),
            offset: from,
        };
        let mut found = None;
        let points = &mut self.points;
        let whole = json_object_starts(reader, &mut |offset, line| {
            let (offset, line) = (from + offset, line_base + line);
            let last = points.last().map(|&(_, offset, _)| offset);
            if extends && last.is_none_or(|last| offset >= last + LINE_INDEX_STEP) {
                points.push((next, offset, line));
            }
            if next == row {
                found = Some((offset, line));
                return false;
            }
            next += 1;
            true
        })?;
        if found.is_none() && !whole {
            self.stuck = true;
        }
        Ok(found)
    }
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
    /// [`id_hash`] of a case id → sequence numbers of open cases; ids that share a hash are
    /// told apart by comparing them.
    index: OpenIndex,
    /// Cases `closed..next` are open.
    closed: u64,
    next: u64,
    /// The [`id_hash`], sequence number and place in `open` of the cases of recent rows, each
    /// at the slot its hash's low bits name ([`recent_slot`]), tried before the index: one
    /// look, not a search, and the place is kept, not worked out again by a division.
    recent: [(u64, u64, usize); RECENT_SLOTS],
    spill: Spill,
    /// Errors of the current file from this run's own checks (the readers report theirs).
    faults: Vec<InputError>,
    /// Every input error so far, in file and line order.
    errors: Vec<InputError>,
    /// Set by a tail run ([`split`]) that met a case coming back: it cannot judge it, and
    /// the file is read on from the cut by the first run instead.
    gave_up: bool,
    /// Every closed case.
    ids: IdLog,
    /// For each of `faults`, the sequence number of its case.
    fault_cases: Vec<u64>,
    /// Set for the second half of a split file ([`split`]): every closed case is spilled,
    /// faults or not, and logged here.
    tail: Option<split::CloseLog>,
    /// The file being read, if it can be read again.
    current: Option<CurrentFile>,
    /// The names of the files read, by command-line position.
    file_names: Vec<String>,
    /// The command-line position of the file being read.
    file_index: usize,
    /// Case ids of earlier files met in the current one, where they were first, and whether
    /// that was reported (at its first valid row, as [`judge_sources`](crate::adjudication::judge_sources) does).
    foreign: std::collections::HashMap<String, (Closed, bool)>,
    /// How many times a closed case came back and was read again.
    came_back_count: u64,
    /// Cases of the current file that came back.
    pinned: std::collections::HashMap<String, Pinned, foldhash::fast::FixedState>,
    /// What is written for each case instead of its matrix row, if anything: its rows are
    /// then kept while it is open.
    cases: Option<Box<dyn CaseWriter + Send>>,
    /// The rows the open cases keep for `cases`, all together (at most [`MAX_KEPT_ROWS`]
    /// but for the newest case's).
    kept_rows: usize,
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
        let mut run = StreamRun::with_stores(
            run_as_of,
            open_cases,
            seen,
            Spill::new(encoding)?,
            IdLog::new()?,
        );
        if shared {
            run.suspects = Some(Vec::new());
        }
        Ok(run)
    }

    /// A pass that writes to `spill` and `ids`, which a worker keeps for file after file.
    fn with_stores(
        run_as_of: Option<Timestamp>,
        open_cases: usize,
        seen: Arc<SeenIds>,
        spill: Spill,
        ids: IdLog,
    ) -> StreamRun {
        StreamRun {
            run_as_of,
            open_cases: open_cases.max(1),
            seen,
            suspects: None,
            // Sized once (growing by doubling touched fresh pages again and again, perf).
            open: Vec::with_capacity(open_cases.clamp(1, 1 << 16)),
            index: OpenIndex::with_capacity(open_cases.clamp(1, 1 << 16)),
            closed: 0,
            next: 0,
            recent: [(0, u64::MAX, 0); RECENT_SLOTS],
            spill,
            faults: Vec::new(),
            errors: Vec::new(),
            gave_up: false,
            ids,
            fault_cases: Vec::new(),
            tail: None,
            current: None,
            file_names: Vec::new(),
            file_index: 0,
            foreign: std::collections::HashMap::new(),
            pinned: std::collections::HashMap::default(),
            came_back_count: 0,
            cases: None,
            kept_rows: 0,
        }
    }

    /// Says which file the next rows come from: its command-line position and name, and
    /// how to read it again (none: a case that comes back is an I/O error).
    fn begin_file(
        &mut self,
        file_index: usize,
        name: &str,
        format: InputFormat,
        options: &ReadOptions,
        reread: Option<Reread>,
    ) {
        if self.file_names.len() <= file_index {
            self.file_names.resize(file_index + 1, String::new());
        }
        self.file_names[file_index] = name.to_owned();
        self.file_index = file_index;
        self.current = reread.map(|reread| CurrentFile {
            name: name.to_owned(),
            format,
            options: options.clone(),
            reread,
            opened: None,
            rows: 0,
        });
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
        if let Some(current) = &mut self.current {
            current.rows += 1;
        }
        if self.gave_up {
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
        // Rows of one case come together, or a few cases take turns: the case of a recent row
        // with this hash is tried before the index (hash first, then the id; still open if
        // not closed since).
        let (recent_hash, seq, place) = self.recent[recent_slot(hash)];
        let last = (recent_hash == hash
            && seq != u64::MAX
            && seq >= self.closed
            && same_text(&self.open[place].case_id, case_id))
        .then_some((seq, place));
        // A case starts with an offer: for an offer of another case, the filter is asked first,
        // and its usual answer, "certainly new", spares a look in the index (a cache miss with
        // thousands of cases open).
        let is_offer = matches!(row, Ok(parsed) if matches!(parsed.row.message, Message::Offer(_)));
        let maybe_seen = (last.is_none() && is_offer).then(|| self.seen.insert_hashed(hash));
        let found = match maybe_seen {
            Some(false) => None,
            _ => last.or_else(|| {
                let seq = self.index.get(hash, |seq| {
                    same_text(&self.open[self.place(seq)].case_id, case_id)
                })?;
                Some((seq, self.place(seq)))
            }),
        };
        if let Some((seq, place)) = found {
            if last.is_none() {
                self.remember_recent(hash, seq, place);
            }
            let outcome = self.step_open(at, row, seq, place);
            if self.cases.is_some() && keep_row(&mut self.open[place].rows, at, row, &outcome) {
                self.kept_row()?;
            }
            return Ok(outcome);
        }
        self.feed_not_open(at, row, hash, case_id, maybe_seen)
    }

    /// [`feed_hashed`](StreamRun::feed_hashed) for a row whose case is not open (`case_id`,
    /// its hash and the filter's answer if it was asked): a new case, one that comes back, or
    /// one of an earlier file. Kept apart, so that the row of an open case (most rows) does
    /// not pay for its registers and stack.
    #[inline(never)]
    fn feed_not_open(
        &mut self,
        at: Location<'_>,
        row: &RowResult,
        hash: u64,
        case_id: &str,
        maybe_seen: Option<bool>,
    ) -> io::Result<Option<Outcome>> {
        // A "maybe" from the filter is settled by the log of every closed case (rare: a false
        // positive about once per million cases, or a real reappearance).
        if maybe_seen.unwrap_or_else(|| self.seen.insert_hashed(hash)) {
            if let Some((closed, reported)) = self.foreign.get_mut(case_id) {
                if !*reported && row.is_ok() {
                    *reported = true;
                    let closed = *closed;
                    self.foreign_row(at, case_id, &closed);
                }
                return Ok(None);
            }
            let (row_number, keeping) = (self.row_number(), self.cases.is_some());
            if let Some(pinned) = self.pinned.get_mut(case_id) {
                return Ok(step_pinned(
                    pinned,
                    at,
                    (row_number, row),
                    keeping,
                    &mut self.faults,
                    &mut self.fault_cases,
                ));
            }
            if let Some(closed) = self.ids.last(case_id)? {
                return self.came_back(at, row, closed);
            }
            if let Some(suspects) = &mut self.suspects {
                suspects.push(case_id.to_string());
            }
        }
        let (seq, place) = self.open_case(at, hash, case_id)?;
        // In the place of a closed case: its strings and its case are reused.
        let open = &mut self.open[place];
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
        if self.cases.is_some() && keep_row(&mut open.rows, at, row, &outcome) {
            self.kept_row()?;
        }
        Ok(outcome)
    }

    /// Counts a row kept for the case writer; past [`MAX_KEPT_ROWS`], closes the oldest open
    /// cases (all but the newest) until they keep fewer. Open cases are closed when newer ones
    /// crowd them out ([`DEFAULT_OPEN_CASES`]), which bounds their memory when each holds a
    /// state; cases that keep their rows (for `explain` and `validate`) hold as much as their
    /// rows, and 4,096 cases of 400 rows took 540 MB. A case closed early that comes back is
    /// judged again from its rows read again, as any case that comes back is.
    fn kept_row(&mut self) -> io::Result<()> {
        self.kept_rows += 1;
        while self.kept_rows > MAX_KEPT_ROWS && self.next - self.closed > 1 {
            self.close_oldest()?;
        }
        Ok(())
    }

    /// The number of rows of the current file before the row being fed (0 when the file
    /// cannot be read again, and nothing needs it).
    fn row_number(&self) -> u64 {
        self.current.as_ref().map_or(0, |current| current.rows - 1)
    }

    /// Replays a row of the open case `seq` (at `place`).
    fn step_open(
        &mut self,
        at: Location<'_>,
        row: &RowResult,
        seq: u64,
        place: usize,
    ) -> Option<Outcome> {
        let row_number = self.row_number();
        let open = &mut self.open[place];
        open.last_line = at.line;
        open.last_row = row_number;
        let (Ok(parsed), Slot::Live(case)) = (row, &mut open.slot) else {
            // A bad row is still checked against its case (every error is listed).
            if let (Err(bad), Slot::Live(case)) = (row, &open.slot) {
                let errors = bad_row_errors(at, case, bad);
                if !errors.is_empty() {
                    self.faults.extend(errors);
                    self.fault_cases.push(seq);
                }
            }
            return None;
        };
        match case.step(&parsed.row) {
            Ok(outcome) => Some(outcome),
            Err(fault) => {
                self.faults
                    .extend(fault_errors(at, case, &fault, &parsed.row));
                self.fault_cases.push(seq);
                None
            }
        }
    }

    /// Opens a case for `case_id` (closing the oldest if as many as allowed are open), its
    /// first row at `at`; returns its sequence number and place. Its slot still holds the
    /// case of the place's last occupant, for reuse.
    fn open_case(
        &mut self,
        at: Location<'_>,
        hash: u64,
        case_id: &str,
    ) -> io::Result<(u64, usize)> {
        if self.next - self.closed == self.open_cases as u64 {
            self.close_oldest()?;
            self.prefetch_case(self.closed + CLOSE_AHEAD);
        }
        let seq = self.next;
        self.next += 1;
        let place = self.place(seq);
        let row = self.row_number();
        if place == self.open.len() {
            self.open.push(OpenCase {
                case_id: String::new(),
                hash,
                slot: Slot::Broken,
                first_line: at.line,
                last_line: at.line,
                first_row: row,
                last_row: row,
                rows: Vec::new(),
            });
        }
        let open = &mut self.open[place];
        self.kept_rows -= open.rows.len();
        open.rows.clear();
        open.case_id.clear();
        open.case_id.push_str(case_id);
        open.hash = hash;
        open.first_line = at.line;
        open.last_line = at.line;
        open.first_row = row;
        open.last_row = row;
        self.index.insert(hash, seq);
        self.remember_recent(hash, seq, place);
        Ok((seq, place))
    }

    /// A row of a case this run closed: of an earlier file, an input error; of this file, the
    /// case is judged again from its rows, kept open (pinned) to the end of the file, and the
    /// row replayed into it.
    fn came_back(
        &mut self,
        at: Location<'_>,
        row: &RowResult,
        closed: Closed,
    ) -> io::Result<Option<Outcome>> {
        let case_id = match row {
            Ok(parsed) => parsed.case_id.as_str(),
            Err(bad) => bad.case_id.as_deref().unwrap_or_default(),
        };
        if closed.file_index != at.file_index as u64 {
            let reported = row.is_ok();
            self.foreign.insert(case_id.to_owned(), (closed, reported));
            if reported {
                self.foreign_row(at, case_id, &closed);
            }
            return Ok(None);
        }
        if self.tail.is_some() {
            self.gave_up = true;
            return Ok(None);
        }
        let (slot, rows) = self.rebuild(case_id, &closed)?;
        let row_number = self.row_number();
        self.came_back_count += 1;
        if self.pinned.len() >= PINNED_CASES.max(self.open_cases) {
            // The half whose last rows are oldest are closed again (and read again if they
            // come back again): memory stays bounded however many cases come back, and a
            // return costs a share of one sort, not a look at every pinned case.
            let mut by_age: Vec<(u64, String)> = self
                .pinned
                .iter()
                .map(|(id, pinned)| (pinned.closed.last_line, id.clone()))
                .collect();
            let half = by_age.len() / 2;
            by_age.select_nth_unstable(half);
            by_age.truncate(half.max(1));
            by_age.sort_unstable();
            for (_, oldest) in by_age {
                let pinned = self.pinned.remove(&oldest).expect("listed above");
                self.close_pinned(&oldest, pinned)?;
            }
        }
        let pinned = self
            .pinned
            .entry(case_id.to_owned())
            .or_insert(Pinned { slot, closed, rows });
        Ok(step_pinned(
            pinned,
            at,
            (row_number, row),
            self.cases.is_some(),
            &mut self.faults,
            &mut self.fault_cases,
        ))
    }

    /// Closes a case that came back: its row replaces the one written at its first closing.
    fn close_pinned(&mut self, case_id: &str, pinned: Pinned) -> io::Result<()> {
        if let (Slot::Live(case), Some((at, len)), true) = (
            &pinned.slot,
            pinned.closed.spilled,
            self.errors.is_empty() && self.faults.is_empty(),
        ) {
            match &mut self.cases {
                Some(cases) => {
                    let file = self.file_names[pinned.closed.file_index as usize].as_str();
                    let (file_index, rows) = (pinned.closed.file_index as usize, &pinned.rows);
                    self.spill.replace_record(at, len, &mut |out| {
                        cases.write_case(file_index, file, case_id, rows, out)
                    })?;
                }
                None => self
                    .spill
                    .replace_case(at, len, case_id, case, self.run_as_of)?,
            }
        }
        self.ids.push(case_id, &pinned.closed)
    }

    /// Reports a valid row of a case of an earlier file, naming both places (every record of
    /// a case id is of the file it was first in, with its first line).
    fn foreign_row(&mut self, at: Location<'_>, case_id: &str, closed: &Closed) {
        let file = self
            .file_names
            .get(closed.file_index as usize)
            .map_or("", String::as_str);
        self.faults
            .push(clash_error(at, case_id, file, closed.first_line));
        self.fault_cases.push(u64::MAX);
    }

    /// The state of the closed case `case_id` once its rows up to its closing are replayed
    /// again: the current file is read again from the case's first line to its last (a JSON
    /// file from its first row to its last, found by their number, from the point of a
    /// [`RowIndex`] before it), and only that case's rows are parsed and replayed (their
    /// faults were reported the first time).
    fn rebuild(&mut self, case_id: &str, closed: &Closed) -> io::Result<(Slot, Vec<KeptRow>)> {
        let keeping = self.cases.is_some();
        let current = self.current.as_mut().ok_or_else(|| {
            io::Error::other(format!(
                "case {case_id} continues after it was closed, and the input cannot be read again"
            ))
        })?;
        if current.opened.is_none() {
            let file = match &current.reread {
                Reread::Path(path) => Arc::new(File::open(path)?),
                Reread::Spool(file) => Arc::clone(file),
            };
            let header = match current.format {
                InputFormat::Csv => {
                    let reader = ReadAt {
                        file: Arc::clone(&file),
                        offset: 0,
                    };
                    Some(
                        CsvHeader::read(reader, &current.name, current.options.delimiter)
                            .ok_or_else(|| {
                                io::Error::other(format!(
                                    "{}: the header cannot be read again",
                                    current.name
                                ))
                            })?,
                    )
                }
                _ => None,
            };
            current.opened = Some((file, header, LineIndex::new(), RowIndex::new()));
        }
        let (file, header, lines, json_rows) = current.opened.as_mut().expect("opened above");
        let (first, last) = (closed.first_line, closed.last_line);
        // A JSON file's rows are found by their number: many may share a line.
        let by_number = current.format == InputFormat::Json;
        // Where reading starts, the line before it and the rows before it (0: the start of
        // the file). A JSON file is read from the case's first row; one that is not an array
        // of objects as far as that, from its start.
        let (offset, line_base, rows_before) = if by_number {
            match json_rows.start_of(file, closed.first_row)? {
                Some((offset, line)) => (offset, line - 1, closed.first_row),
                None => (0, 0, 0),
            }
        } else {
            match lines.start_of(file, first)? {
                Some(offset) => (offset, first - 1, 0),
                None => (0, 0, 0),
            }
        };
        let done = AtomicBool::new(false);
        let reader = Watched {
            inner: ReadAt {
                file: Arc::clone(file),
                offset,
            },
            progress: None,
            spool: None,
            stop: &done,
        };
        let mut slot: Option<Slot> = None;
        let shift = std::cell::Cell::new(line_base);
        // The number of rows before the next one read.
        let next_row = std::cell::Cell::new(rows_before);
        let mut rows = Vec::new();
        let mut replay = |line: u64, row: &RowResult| {
            let line = line + shift.get();
            let number = next_row.get();
            next_row.set(number + 1);
            let (at, first, last) = match by_number {
                true => (number, closed.first_row, closed.last_row),
                false => (line, first, last),
            };
            if at > last {
                done.store(true, Ordering::Relaxed);
                return;
            }
            let id = match row {
                Ok(parsed) => parsed.case_id.as_str(),
                Err(BadRow {
                    case_id: Some(id), ..
                }) => id.as_str(),
                Err(_) => return,
            };
            if at < first || !same_text(id, case_id) {
                return;
            }
            let replayed = match (&mut slot, row) {
                (None, Ok(parsed)) => {
                    let started = Case::start(&parsed.row);
                    let replayed = started.is_ok();
                    slot = Some(started.map_or(Slot::Broken, |(case, _)| Slot::Live(case)));
                    replayed
                }
                (None, Err(_)) => {
                    slot = Some(Slot::Broken);
                    false
                }
                // A fault leaves the case as it was, as it did the first time.
                (Some(Slot::Live(case)), Ok(parsed)) => case.step(&parsed.row).is_ok(),
                _ => false,
            };
            // The rows a case writer sees are those that replayed, as they did the first time.
            if let (true, true, Ok(parsed)) = (keeping, replayed, row) {
                rows.push(KeptRow {
                    line,
                    row: parsed.row.clone(),
                });
            }
        };
        let mut errors = Vec::new();
        let reader = match (current.format, offset) {
            (InputFormat::Json, 1..) => {
                if crate::input::read_json_rows_from(reader, &current.name, &mut |line, row| {
                    replay(line, &row)
                }) {
                    None
                } else {
                    // Not at an element after all: from the start, rows counted.
                    shift.set(0);
                    next_row.set(0);
                    Some(Watched {
                        inner: ReadAt {
                            file: Arc::clone(file),
                            offset: 0,
                        },
                        progress: None,
                        spool: None,
                        stop: &done,
                    })
                }
            }
            _ => Some(reader),
        };
        match (reader, current.format, &*header, line_base) {
            (None, ..) => {}
            (Some(reader), InputFormat::Csv, Some(header), base) if base > 0 => {
                let mut sink = LinesFrom {
                    first: first - base,
                    last: last - base,
                    past: false,
                    slot: Err(BadRow::default()),
                    replay: &mut replay,
                };
                let how = CaseRead {
                    after_header: Some(header),
                    ..CaseRead::new(&current.name, InputFormat::Csv, &current.options)
                };
                read_cells(reader, &how, &mut errors, &mut sink);
            }
            (Some(reader), InputFormat::Csv, ..) => {
                let mut sink = LinesFrom {
                    first,
                    last,
                    past: false,
                    slot: Err(BadRow::default()),
                    replay: &mut replay,
                };
                let how = CaseRead::new(&current.name, InputFormat::Csv, &current.options);
                read_cells(reader, &how, &mut errors, &mut sink);
            }
            (Some(reader), format, ..) => read(
                reader,
                &CaseRead::new(&current.name, format, &current.options),
                &mut errors,
                &mut |line, row| replay(line, &row),
                &mut NoObserver,
            ),
        }
        let slot = slot.ok_or_else(|| {
            io::Error::other(format!(
                "{}: the rows of case {case_id} were not found when read again",
                current.name
            ))
        })?;
        Ok((slot, rows))
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

    /// Makes the case `seq` (at `place`) the recent case of its hash's slot, in place of the
    /// case there.
    fn remember_recent(&mut self, hash: u64, seq: u64, place: usize) {
        self.recent[recent_slot(hash)] = (hash, seq, place);
    }

    /// Where case `seq` is in `open`.
    fn place(&self, seq: u64) -> usize {
        (seq % self.open_cases as u64) as usize
    }

    fn close_oldest(&mut self) -> io::Result<()> {
        if self.closed == self.next {
            return Ok(());
        }
        let seq = self.closed;
        let open = &self.open[self.place(seq)];
        self.closed += 1;
        self.index.remove(open.hash, seq);
        let mut closed = Closed {
            file_index: self.file_index as u64,
            first_line: open.first_line,
            last_line: open.last_line,
            first_row: open.first_row,
            last_row: open.last_row,
            spilled: None,
        };
        if let Some(log) = &mut self.tail {
            // Whether this case continues a case of the first half is known only later: its
            // row is written whatever happened, and it can be left out then.
            let spilled = match &open.slot {
                Slot::Live(case) => self.spill.push_case(&open.case_id, case, self.run_as_of)?.1,
                Slot::Broken => 0,
            };
            log.push(&open.case_id, (open.first_line, open.last_line), spilled)?;
            self.ids.push(&open.case_id, &closed)?;
            self.release_rows(seq);
            return Ok(());
        }
        // Once there is an error nothing will be written; the spill is not worth filling.
        if let (Slot::Live(case), true) = (&open.slot, self.errors.is_empty()) {
            if self.faults.is_empty() {
                closed.spilled = match &mut self.cases {
                    Some(cases) => {
                        let file = self.file_names[self.file_index].as_str();
                        self.spill.push_record(&mut |out| {
                            cases.write_case(self.file_index, file, &open.case_id, &open.rows, out)
                        })?
                    }
                    None => Some(self.spill.push_case(&open.case_id, case, self.run_as_of)?),
                };
            }
        }
        self.ids.push(&open.case_id, &closed)?;
        self.release_rows(seq);
        Ok(())
    }

    /// Lets go of the rows closed case `seq` kept (its place may wait long for a new case).
    fn release_rows(&mut self, seq: u64) {
        let place = self.place(seq);
        let rows = std::mem::take(&mut self.open[place].rows);
        self.kept_rows -= rows.len();
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
                if self.gave_up {
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
        self.index.get(id_hash(case_id), |seq| {
            self.open[self.place(seq)].case_id == case_id
        })
    }

    /// Closes every open case, oldest first.
    fn close_all(&mut self) -> io::Result<()> {
        while self.closed < self.next {
            self.close_oldest()?;
        }
        Ok(())
    }

    /// Ends one file: closes every open case and files the file's errors in line order
    /// (`reader_errors` first at equal lines, as [`judge_sources`](crate::adjudication::judge_sources) does).
    pub fn end_file(&mut self, mut reader_errors: Vec<InputError>) -> io::Result<()> {
        reader_errors.append(&mut self.faults);
        self.fault_cases.clear();
        reader_errors.sort_by_key(|e| e.line);
        self.close_all()?;
        for (case_id, pinned) in std::mem::take(&mut self.pinned) {
            self.close_pinned(&case_id, pinned)?;
        }
        self.errors.extend(reader_errors);
        self.current = None;
        self.foreign.clear();
        Ok(())
    }
}

/// Replays a row of a case that came back, the row `row_number` of its file (keeping it for a
/// [`CaseWriter`] if `keeping`); its faults go to `faults` (with no case number: a split
/// file's second half never keeps one).
fn step_pinned(
    pinned: &mut Pinned,
    at: Location<'_>,
    (row_number, row): (u64, &RowResult),
    keeping: bool,
    faults: &mut Vec<InputError>,
    fault_cases: &mut Vec<u64>,
) -> Option<Outcome> {
    pinned.closed.last_line = at.line;
    pinned.closed.last_row = row_number;
    let outcome = step_pinned_case(pinned, at, row, faults, fault_cases);
    if keeping {
        keep_row(&mut pinned.rows, at, row, &outcome);
    }
    outcome
}

/// The replay of [`step_pinned`]: the row's outcome, or its faults.
fn step_pinned_case(
    pinned: &mut Pinned,
    at: Location<'_>,
    row: &RowResult,
    faults: &mut Vec<InputError>,
    fault_cases: &mut Vec<u64>,
) -> Option<Outcome> {
    let (Ok(parsed), Slot::Live(case)) = (row, &mut pinned.slot) else {
        // A bad row is still checked against its case (every error is listed).
        if let (Err(bad), Slot::Live(case)) = (row, &pinned.slot) {
            let errors = bad_row_errors(at, case, bad);
            if !errors.is_empty() {
                faults.extend(errors);
                fault_cases.push(u64::MAX);
            }
        }
        return None;
    };
    match case.step(&parsed.row) {
        Ok(outcome) => Some(outcome),
        Err(fault) => {
            faults.extend(fault_errors(at, case, &fault, &parsed.row));
            fault_cases.push(u64::MAX);
            None
        }
    }
}

/// Keeps `row` among `rows` if it replayed (it has an `outcome`), for a [`CaseWriter`].
fn keep_row(
    rows: &mut Vec<KeptRow>,
    at: Location<'_>,
    row: &RowResult,
    outcome: &Option<Outcome>,
) -> bool {
    if let (Some(_), Ok(parsed)) = (outcome, row) {
        rows.push(KeptRow {
            line: at.line,
            row: parsed.row.clone(),
        });
        return true;
    }
    false
}

/// The most rows the open cases keep for a case writer, all together: about 24 MiB (a kept
/// row takes about 370 bytes), more than 4,096 cases of 8 to 9 rows (generated and messy
/// files) keep, so that only files of long cases close cases early.
const MAX_KEPT_ROWS: usize = 1 << 16;

/// Cases that came back kept open at once, at least (or `open_cases` if more).
const PINNED_CASES: usize = 1024;

/// A [`RowSink`] that parses only the rows from line `first` to line `last` (the rows of a
/// case read again), into one place, and hands them on; the first line after `last` is
/// handed on unparsed (to stop the reading), the rest of the reader's buffer is skipped
/// (parsing it cost each of 10,000 returning one-row cases a thousand rows).
struct LinesFrom<'a, F> {
    first: u64,
    last: u64,
    /// Whether the line after `last` was handed on.
    past: bool,
    slot: RowResult,
    replay: &'a mut F,
}

impl<F: FnMut(u64, &RowResult)> RowSink for LinesFrom<'_, F> {
    fn row(
        &mut self,
        line: u64,
        cells: &RawCells<'_>,
        errors: &mut Vec<InputError>,
        locate: &Locate<'_>,
    ) {
        if line > self.last {
            if !self.past {
                self.past = true;
                (self.replay)(line, &self.slot);
            }
        } else if line >= self.first {
            parse_row_into(cells, errors, locate, &mut self.slot);
            (self.replay)(line, &self.slot);
        }
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

/// Slots for the cases of recent rows, a case in the slot of its hash ([`recent_slot`]):
/// enough that the handful of cases taking turns rarely share one (256: 6 KiB, in the L1
/// cache). A search of the last 8 cases cost a quarter of all the replay's own instructions
/// on a messy file, where cases take turns.
const RECENT_SLOTS: usize = 256;

/// The slot of `recent` a case id's [`id_hash`] goes in (the index uses its top bits).
fn recent_slot(hash: u64) -> usize {
    hash as usize & (RECENT_SLOTS - 1)
}

/// The default number of open cases before the oldest is closed.
pub const DEFAULT_OPEN_CASES: usize = 4096;

/// The default size from which a lone CSV file is read as two halves: below it, a second
/// thread does not pay for itself.
pub const DEFAULT_SPLIT_MIN_BYTES: u64 = 4 << 20;

/// Adjudicates `sources` and writes the whole matrix to `out`, streaming: `on_row` sees each
/// replayed row as soon as it is read. Output and errors are exactly those of
/// [`judge_sources`](crate::adjudication::judge_sources) followed by writing the matrix.
pub fn adjudicate_streaming(
    sources: &[Source],
    settings: &StreamSettings<'_>,
    out: &mut impl AppendFile,
    on_row: &mut dyn FnMut(Location<'_>, &ParsedRow, &Outcome),
) -> Result<(), StreamError> {
    // An audit sees rows in order: files are then read one after the other.
    let parallel = settings.jobs > 1
        && sources.len() > 1
        && !settings.rows_observed
        && sources.iter().all(|s| s.path.is_some());
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
    }
}

/// Why a streaming adjudication failed.
#[derive(Debug)]
pub enum StreamError {
    /// Bad input: every error, as [`judge_sources`](crate::adjudication::judge_sources) lists them.
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
}

/// A reader that reports its bytes to the progress bar, copies them to a spool (standard
/// input, so that a case that comes back can be read again) and reads as empty once told to
/// stop.
struct Watched<'a, R> {
    inner: R,
    progress: Option<&'a ProgressBar>,
    spool: Option<&'a File>,
    stop: &'a AtomicBool,
}

impl<R: Read> Read for Watched<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stop.load(Ordering::Relaxed) {
            return Ok(0);
        }
        let n = self.inner.read(buf)?;
        if let Some(mut spool) = self.spool {
            // Unbuffered: what was read is in the spool before its rows are replayed.
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
/// must not wait for a batch to fill). Standard input is copied to `spool` as it is read.
#[allow(clippy::too_many_arguments)]
fn stream_source(
    run: &mut StreamRun,
    file_index: usize,
    source: &Source,
    settings: &StreamSettings<'_>,
    spool: Option<&Arc<File>>,
    stop: &AtomicBool,
    pipelined: bool,
    on_row: &mut dyn FnMut(Location<'_>, &ParsedRow, &Outcome),
) -> io::Result<()> {
    let mut io_error = None;
    let format = source.format(settings.input_format);
    let reread = match (&source.path, spool) {
        (Some(path), _) => Some(Reread::Path(path.clone())),
        (None, Some(spool)) => Some(Reread::Spool(Arc::clone(spool))),
        (None, None) => None,
    };
    run.begin_file(file_index, &source.name, format, &source.options, reread);
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
    let opened = match (&source.path, pipelined) {
        (Some(path), true) => Some(
            crate::input::open_case_file(path, format)
                .map_err(|message| InputError::new(&source.name, 0, message)),
        ),
        _ => None,
    };
    let errors = match opened {
        Some(Err(e)) => vec![e],
        Some(Ok(file)) => {
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
                        let how = CaseRead::new(&source.name, format, &source.options);
                        match format {
                            InputFormat::Csv => {
                                read_cells(watched, &how, &mut errors, &mut filler);
                            }
                            _ => read(
                                watched,
                                &how,
                                &mut errors,
                                &mut |line, row| filler.put(line, row),
                                &mut NoObserver,
                            ),
                        }
                        filler.finish();
                        errors
                    })?;
                for (batch, filled) in receiver {
                    for row in &batch[..filled] {
                        replay(row.line, &row.row, row.hash);
                    }
                    // The parser may be done and gone: then the batch is simply freed.
                    let _ = recycle.send(batch);
                }
                parser
                    .join()
                    .map_err(|_| io::Error::other("the parsing thread panicked"))
            })?
        }
        None => match open_source(source, format) {
            Err(e) => vec![e],
            Ok(reader) => {
                let watched = Watched {
                    inner: reader,
                    progress: settings.progress,
                    spool: spool.map(|file| &**file),
                    stop,
                };
                let mut errors = Vec::new();
                let how = CaseRead::new(&source.name, format, &source.options);
                if format == InputFormat::Csv {
                    let mut sink = InPlace {
                        slot: Err(BadRow::default()),
                        hash: 0,
                        replay: &mut replay,
                    };
                    read_cells(watched, &how, &mut errors, &mut sink);
                } else {
                    read(
                        watched,
                        &how,
                        &mut errors,
                        &mut |line, row| replay(line, &row, row_hash(&row)),
                        &mut NoObserver,
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

/// Reads the files one after the other into one run (a lone large CSV file in two halves).
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
        }
    }
    stream_in_order(run, sources, settings, &stop, on_row)
}

/// Reads the files one after the other, whole, into `run`.
fn stream_in_order(
    mut run: StreamRun,
    sources: &[Source],
    settings: &StreamSettings<'_>,
    stop: &AtomicBool,
    on_row: &mut dyn FnMut(Location<'_>, &ParsedRow, &Outcome),
) -> io::Result<Attempt> {
    for (file_index, source) in sources.iter().enumerate() {
        // Standard input is copied as it is read, so that it can be read again; the copy
        // goes when the input has been read.
        let spool = match source.path {
            None => Some(anonymous_file()?),
            Some(_) => None,
        };
        stream_source(
            &mut run,
            file_index,
            source,
            settings,
            spool.as_ref(),
            stop,
            settings.jobs > 1,
            on_row,
        )?;
    }
    Ok(if run.errors.is_empty() {
        Attempt::Done(vec![run.spill.close()?])
    } else {
        Attempt::Failed(run.errors)
    })
}

/// What a file's pass leaves for the merge.
struct FileResult {
    errors: Vec<InputError>,
    spill: SpillFile,
    /// The worker that read it, and where its closed cases are in that worker's log.
    worker: usize,
    ids: (u64, u64),
}

/// Files read by at most `jobs` workers (this thread and `jobs - 1` others, never more than
/// there are files), each keeping one spill and one id log for every file it reads; the
/// merge checks case ids across files. A case id in two files sends the run to
/// [`stream_sequential`], which reports it with both places.
fn stream_parallel(sources: &[Source], settings: &StreamSettings<'_>) -> io::Result<Attempt> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let results: Vec<std::sync::Mutex<Option<io::Result<FileResult>>>> = sources
        .iter()
        .map(|_| std::sync::Mutex::new(None))
        .collect();
    let workers = settings.jobs.clamp(1, sources.len().max(1));
    // One run per worker for all its files (setting one up per file cost more than reading
    // a small file): its filter sized for its share of the input, its log read per file.
    let bytes: u64 = sources
        .iter()
        .filter_map(|s| std::fs::metadata(s.path.as_ref()?).ok())
        .map(|m| m.len())
        .sum();
    let work = |worker: usize| -> io::Result<IdLog> {
        let mut run = StreamRun::with_stores(
            settings.run_as_of,
            settings.open_cases,
            Arc::new(SeenIds::for_input_bytes(bytes / workers as u64)),
            Spill::new(settings.encoding)?,
            IdLog::new()?,
        );
        loop {
            let file_index = next.fetch_add(1, Ordering::Relaxed);
            let Some(source) = sources.get(file_index) else {
                break;
            };
            let from = run.ids.restart();
            let streamed = stream_source(
                &mut run,
                file_index,
                source,
                settings,
                None,
                &stop,
                false,
                &mut |_, _, _| {},
            );
            let result = streamed.and_then(|()| {
                Ok(FileResult {
                    errors: std::mem::take(&mut run.errors),
                    spill: run.spill.segment()?,
                    worker,
                    ids: (from, run.ids.written()),
                })
            });
            *results[file_index].lock().expect("no panics while locked") = Some(result);
        }
        run.ids.close()?;
        Ok(run.ids)
    };
    let work = &work;
    let logs: Vec<io::Result<IdLog>> = std::thread::scope(|scope| {
        let mut threads = Vec::new();
        for worker in 1..workers {
            // A thread that cannot be started leaves its share to the others.
            match std::thread::Builder::new()
                .name("leasejudge-file".into())
                .spawn_scoped(scope, move || work(worker))
            {
                Ok(thread) => threads.push(thread),
                Err(_) => break,
            }
        }
        let mut logs = vec![work(0)];
        for thread in threads {
            logs.push(
                thread
                    .join()
                    .unwrap_or_else(|_| Err(io::Error::other("a worker thread panicked"))),
            );
        }
        logs
    });
    let mut logs: Vec<IdLog> = logs.into_iter().collect::<io::Result<_>>()?;
    let seen = filter_for(sources);
    let mut earlier: Vec<(usize, u64, u64)> = Vec::new();
    let mut spills = Vec::new();
    let mut errors = Vec::new();
    for result in results {
        let file = result
            .into_inner()
            .expect("no panics while locked")
            .ok_or_else(|| io::Error::other("a file was not read"))??;
        let (from, to) = file.ids;
        // Ids the filter may have seen in an earlier file (or this one: a case that came
        // back is logged again) are looked for in the earlier files' logs.
        let mut maybe: std::collections::HashSet<String> = std::collections::HashSet::new();
        logs[file.worker].for_each_in(from, to, &mut |id| {
            if seen.may_contain(id) {
                maybe.insert(id.to_owned());
            }
            seen.insert(id);
            true
        })?;
        let mut duplicate = false;
        if !maybe.is_empty() {
            for &(worker, from, to) in &earlier {
                logs[worker].for_each_in(from, to, &mut |id| {
                    duplicate = maybe.contains(id);
                    !duplicate
                })?;
                if duplicate {
                    break;
                }
            }
        }
        if duplicate {
            // An input error: one pass over the files in order reports it exactly.
            return stream_sequential(sources, settings, &mut |_, _, _| {});
        }
        errors.extend(file.errors);
        spills.push(file.spill);
        earlier.push((file.worker, from, to));
    }
    Ok(if errors.is_empty() {
        Attempt::Done(spills)
    } else {
        Attempt::Failed(errors)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{default_mix, write_cases, Options};
    use crate::matrix::{CsvMatrixWriter, MatrixRow};

    /// The matrix of `path` as [`judge_sources`](crate::adjudication::judge_sources) writes it.
    fn reference(source: &Source) -> Vec<u8> {
        let judged = crate::adjudication::judge_sources(
            std::slice::from_ref(source),
            None,
            None,
            &mut |_, _, _| {},
        )
        .unwrap();
        let mut writer = CsvMatrixWriter::new(Vec::new(), &[]).unwrap();
        for j in &judged {
            writer
                .write(&MatrixRow::new(&j.case_id, &j.case, &j.verdict), &[])
                .unwrap();
        }
        writer.finish().unwrap()
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
            Encoding::Csv,
            Arc::new(SeenIds::for_ids(1000)),
            false,
        )
        .unwrap();
        run.begin_file(
            0,
            &source.name,
            InputFormat::Csv,
            &source.options,
            Some(Reread::Path(source.path.clone().unwrap())),
        );
        let mut rows = Vec::new();
        let mut errors = Vec::new();
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
        assemble(&mut out, Encoding::Csv, vec![run.spill.close().unwrap()]).unwrap();
        (out, came_back)
    }

    #[test]
    fn ids_that_share_a_hash_are_told_apart_without_giving_up() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cases.csv");
        let options = Options {
            seed: 4,
            cases: 300,
            rows_per_case: (3, 12),
            interleave: 6,
            mix: default_mix(),
        };
        let mut text = Vec::new();
        write_cases(&options, &mut text).unwrap();
        std::fs::write(&path, &text).unwrap();
        let source = Source {
            name: "cases.csv".into(),
            path: Some(path),
            options: Default::default(),
        };
        let expected = reference(&source);
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
