//! One streaming pass ([`StreamRun`]): the open cases in a ring in order of first appearance,
//! found by id hash; the oldest closed (judged, its record spilled, its id logged) when more
//! are open than allowed; a case that comes back kept open (pinned) to the end of its file.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::input::InputFormat;
use crate::input::{BadRow, InputErrors, ReadOptions, RowResult};
use crate::lease::values::same_text;
use crate::lease::{Message, Outcome, Timestamp};

use super::cases::CaseWriter;
use super::ids::{id_hash, Closed, IdLog, SeenIds};
use super::index::OpenIndex;
use super::kept::{KeptRow, KeptRows};
use super::opened::OpenedFile;
use super::places::{note_fault_case, slot_held, step_pinned, Foreign, OpenCase, Pinned};
use super::reread::{read_case_again, CurrentFile};
use super::rules::{clash_error, start_case, step_case, Location, Slot};
use super::spill::Spill;
use super::{split, EVERY_CASE, OPEN_CASES_HELD_BYTES, PLACE_KEEPS_BYTES};
use crate::matrix::MatrixEncoding;

/// One streaming pass over rows of one or more files.
pub(super) struct StreamRun {
    pub(super) run_as_of: Option<Timestamp>,
    pub(super) open_cases: usize,
    pub(super) seen: Arc<SeenIds>,
    /// With a filter shared with another run: the ids it said "maybe" of that this run had
    /// not seen (false positives, or ids the other run inserted first).
    pub(super) suspects: Option<Vec<String>>,
    /// The open cases: the case with sequence number `seq` is at `seq % open_cases`, so a
    /// new case takes the place (and the memory) of the one just closed.
    pub(super) open: Vec<OpenCase>,
    /// [`id_hash`] of a case id → sequence numbers of open cases; ids that share a hash are
    /// told apart by comparing them.
    pub(super) index: OpenIndex,
    /// Cases `closed..next` are open.
    pub(super) closed: u64,
    pub(super) next: u64,
    /// The [`id_hash`], sequence number and place in `open` of the cases of recent rows, each
    /// at the slot its hash's low bits name ([`recent_slot`]), tried before the index: one
    /// look, not a search, and the place is kept, not worked out again by a division.
    pub(super) recent: [(u64, u64, usize); RECENT_SLOTS],
    pub(super) spill: Spill,
    /// Errors of the current file from this run's own checks (the readers report theirs).
    pub(super) faults: InputErrors,
    /// Every input error so far, in file and line order.
    pub(super) errors: InputErrors,
    /// Set by a tail run ([`split`]) that met a case coming back: it cannot judge it, and
    /// the file is read on from the cut by the first run instead.
    pub(super) gave_up: bool,
    /// Every closed case.
    pub(super) ids: IdLog,
    /// For each of `faults` kept, the sequence number of its case.
    pub(super) fault_cases: Vec<u64>,
    /// Set for the second half of a split file ([`split`]): every closed case is spilled,
    /// faults or not, and logged here.
    pub(super) tail: Option<split::CloseLog>,
    /// The file being read, if it can be read again.
    pub(super) current: Option<CurrentFile>,
    /// The names of the files read, by command-line position.
    pub(super) file_names: Vec<String>,
    /// The command-line position of the file being read.
    pub(super) file_index: usize,
    /// Case ids of earlier files met in the current one, where they were first, and whether
    /// that was reported (at its first valid row).
    pub(super) foreign: std::collections::HashMap<String, Foreign>,
    /// How many times a closed case came back and was read again.
    pub(super) came_back_count: u64,
    /// Cases of the current file that came back.
    pub(super) pinned: std::collections::HashMap<String, Pinned, foldhash::fast::FixedState>,
    /// What is written for each case instead of its matrix row, if anything: its rows are
    /// then kept while it is open.
    pub(super) cases: Option<Box<dyn CaseWriter + Send>>,
    /// The rows the open cases keep for `cases`, all together (at most `max_kept_rows`
    /// but for the newest case's).
    pub(super) kept_rows: usize,
    /// Whether the open cases keep their rows: there is a case writer, and it looks at them
    /// ([`CaseWriter::needs_rows`]).
    pub(super) keeping_rows: bool,
    /// Lines added to a row's line when it is kept for the case writer: a second half's
    /// ([`split`]) counts its lines from the cut, but its records cite the whole file's.
    pub(super) kept_line_base: u64,
    /// How many rows each case keeps in memory before they go to a temporary file
    /// ([`StreamSettings::case_rows_in_memory`](super::StreamSettings::case_rows_in_memory)).
    pub(super) case_rows_in_memory: usize,
    /// The most rows the open cases keep, all together, before the oldest are closed
    /// ([`DEFAULT_KEPT_ROWS`](super::DEFAULT_KEPT_ROWS) unless the settings say).
    pub(super) max_kept_rows: usize,
    /// The bytes the open cases' ids and cases hold, all together (at most
    /// [`OPEN_CASES_HELD_BYTES`] but for the newest case's).
    pub(super) held_bytes: usize,
    /// The bytes the pinned cases' ids and cases hold, all together: past
    /// [`OPEN_CASES_HELD_BYTES`], the next case that comes back closes the older half again.
    pub(super) pinned_bytes: usize,
    /// Cases that came back kept open at once, at least (or `open_cases` if more):
    /// [`DEFAULT_PINNED_CASES`](super::DEFAULT_PINNED_CASES) unless the settings say.
    pub(super) max_pinned: usize,
}

impl StreamRun {
    /// A pass judging cases at `run_as_of` (if later than their last row), keeping at most
    /// `open_cases` open, spilling rows in `encoding` (or, `None`, case records), noting case ids in `seen` (sized for
    /// the input, and `shared` if another run notes its ids there too).
    pub(super) fn new(
        run_as_of: Option<Timestamp>,
        open_cases: usize,
        encoding: Option<&'static dyn MatrixEncoding>,
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

    /// The run, keeping as many rows (in all, and of one case in memory) and cases that came
    /// back as `settings` allow.
    pub(super) fn bounded_by(mut self, settings: &super::StreamSettings<'_>) -> StreamRun {
        self.max_kept_rows = settings.kept_rows;
        self.max_pinned = settings.pinned_cases;
        self.case_rows_in_memory = settings.case_rows_in_memory;
        self
    }

    /// A pass that writes to `spill` and `ids`, which a worker keeps for file after file.
    pub(super) fn with_stores(
        run_as_of: Option<Timestamp>,
        open_cases: usize,
        seen: Arc<SeenIds>,
        spill: Spill,
        ids: IdLog,
    ) -> StreamRun {
        StreamRun {
            run_as_of,
            open_cases: open_cases.max(1),
            max_kept_rows: super::DEFAULT_KEPT_ROWS,
            max_pinned: super::DEFAULT_PINNED_CASES,
            seen,
            suspects: None,
            // Sized once (growing by doubling touched fresh pages again and again, perf).
            open: Vec::with_capacity(open_cases.clamp(1, 1 << 16)),
            index: OpenIndex::with_capacity(open_cases.clamp(1, 1 << 16)),
            closed: 0,
            next: 0,
            recent: [(0, u64::MAX, 0); RECENT_SLOTS],
            spill,
            faults: InputErrors::new(),
            errors: InputErrors::new(),
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
            held_bytes: 0,
            pinned_bytes: 0,
            keeping_rows: false,
            kept_line_base: 0,
            case_rows_in_memory: super::DEFAULT_CASE_ROWS_IN_MEMORY,
        }
    }

    /// Says which file the next rows come from: its command-line position and name, and
    /// the handle it is read through, to read it again (none: a case that comes back is an
    /// I/O error).
    pub(super) fn begin_file(
        &mut self,
        file_index: usize,
        name: &str,
        format: InputFormat,
        options: &ReadOptions,
        reread: Option<OpenedFile>,
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

    /// Takes one row as read, with its [`row_hash`](super::row_hash), computed where the row
    /// was parsed (its case id is in that thread's cache, not yet in this one's); returns its
    /// outcome if it was replayed.
    pub(super) fn feed_hashed(
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
            if self.keeping_rows {
                let kept_at = self.kept_at(at);
                if let Some(moved) = self.open[place].rows.keep(kept_at, row, &outcome)? {
                    self.kept_rows -= moved;
                    self.kept_row()?;
                }
            }
            self.count_held(seq, place)?;
            return Ok(outcome);
        }
        self.feed_not_open(at, row, hash, case_id, maybe_seen)
    }

    /// [`feed_hashed`](StreamRun::feed_hashed) for a row whose case is not open (`case_id`,
    /// its hash and the filter's answer if it was asked): a new case, one that comes back, or
    /// one of an earlier file. Kept apart, so that the row of an open case (most rows) does
    /// not pay for its registers and stack.
    #[inline(never)]
    pub(super) fn feed_not_open(
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
            if let Some(foreign) = self.foreign.get_mut(case_id) {
                if !foreign.reported && row.is_ok() {
                    foreign.reported = true;
                    let closed = foreign.closed;
                    self.foreign_row(at, case_id, &closed);
                }
                // A row that could not be typed lists its own errors only: a case id in two
                // files is one error, not one case (spec section 2).
                return Ok(None);
            }
            let (row_number, keeping) = (self.row_number(), self.keeping_rows);
            if let Some(pinned) = self.pinned.get_mut(case_id) {
                let outcome = step_pinned(
                    pinned,
                    at,
                    (row_number, row),
                    keeping,
                    &mut self.faults,
                    &mut self.fault_cases,
                );
                let held = case_id.len() + slot_held(&pinned.slot);
                self.pinned_bytes = self.pinned_bytes - pinned.held + held;
                pinned.held = held;
                return outcome;
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
        let before = self.faults.len();
        let outcome = start_case(&mut open.slot, at, row, &mut self.faults);
        if self.faults.len() > before {
            note_fault_case(&mut self.fault_cases, &self.faults, seq);
        }
        if self.keeping_rows {
            let kept_at = Location {
                line: at.line + self.kept_line_base,
                ..at
            };
            if let Some(moved) = open.rows.keep(kept_at, row, &outcome)? {
                self.kept_rows -= moved;
                self.kept_row()?;
            }
        }
        self.count_held(seq, place)?;
        Ok(outcome)
    }

    /// Counts again what the case `seq` at `place` holds, after a row of it, unless keeping
    /// the row closed it ([`StreamRun::kept_row`]: its place counts nothing then); past
    /// [`OPEN_CASES_HELD_BYTES`] in all, closes the oldest open cases (all but the newest)
    /// until they hold less, unless every case is to stay open ([`EVERY_CASE`]). The open
    /// cases are bounded by their number ([`DEFAULT_OPEN_CASES`](super::DEFAULT_OPEN_CASES)),
    /// but a case's texts may each be as long as a record: 1,500 open cases with a holder of
    /// 300 KB each took 601 MiB. A case closed early that comes back is judged again from its
    /// rows read again, as any case that comes back is.
    #[inline]
    pub(super) fn count_held(&mut self, seq: u64, place: usize) -> io::Result<()> {
        if seq < self.closed {
            return Ok(());
        }
        let open = &mut self.open[place];
        let held = open.case_id.len() + slot_held(&open.slot);
        if held == open.held {
            return Ok(());
        }
        self.held_bytes = self.held_bytes - open.held + held;
        open.held = held;
        self.close_past_held_budget()
    }

    /// Closes the oldest open cases (all but the newest) while they hold more than
    /// [`OPEN_CASES_HELD_BYTES`], unless every case is to stay open.
    #[inline(never)]
    fn close_past_held_budget(&mut self) -> io::Result<()> {
        while self.held_bytes > OPEN_CASES_HELD_BYTES
            && self.open_cases != EVERY_CASE
            && self.next - self.closed > 1
        {
            self.close_oldest()?;
        }
        Ok(())
    }

    /// Counts a row kept for the case writer; past `max_kept_rows`, closes the oldest open
    /// cases (all but the newest) until they keep fewer, unless every case is to stay open
    /// ([`EVERY_CASE`]). Open cases are closed when newer ones
    /// crowd them out ([`DEFAULT_OPEN_CASES`](super::DEFAULT_OPEN_CASES)), which bounds their memory when each holds a
    /// state; cases that keep their rows (for `explain` and `validate`) hold as much as their
    /// rows, and 4,096 cases of 400 rows took 540 MB. A case closed early that comes back is
    /// judged again from its rows read again, as any case that comes back is.
    pub(super) fn kept_row(&mut self) -> io::Result<()> {
        self.kept_rows += 1;
        while self.kept_rows > self.max_kept_rows
            && self.open_cases != EVERY_CASE
            && self.next - self.closed > 1
        {
            self.close_oldest()?;
        }
        Ok(())
    }

    /// Where a row at `at` is kept for the case writer: at its line in the whole file.
    pub(super) fn kept_at<'a>(&self, at: Location<'a>) -> Location<'a> {
        Location {
            line: at.line + self.kept_line_base,
            ..at
        }
    }

    /// The number of rows of the current file before the row being fed (0 when the file
    /// cannot be read again, and nothing needs it).
    pub(super) fn row_number(&self) -> u64 {
        self.current.as_ref().map_or(0, |current| current.rows - 1)
    }

    /// Replays a row of the open case `seq` (at `place`).
    pub(super) fn step_open(
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
        let before = self.faults.len();
        let outcome = step_case(&mut open.slot, at, row, &mut self.faults);
        if self.faults.len() > before {
            note_fault_case(&mut self.fault_cases, &self.faults, seq);
        }
        outcome
    }

    /// Opens a case for `case_id` (closing the oldest if as many as allowed are open), its
    /// first row at `at`; returns its sequence number and place. Its slot still holds the
    /// case of the place's last occupant, for reuse.
    pub(super) fn open_case(
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
                rows: KeptRows::new(self.case_rows_in_memory),
                held: 0,
            });
        }
        let open = &mut self.open[place];
        self.kept_rows -= open.rows.in_memory();
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
    pub(super) fn came_back(
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
            let foreign = Foreign { closed, reported };
            self.foreign.insert(case_id.to_owned(), foreign);
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
        let rows = KeptRows::from_rows(rows, self.case_rows_in_memory)?;
        let row_number = self.row_number();
        self.came_back_count += 1;
        if self.pinned.len() >= self.max_pinned.max(self.open_cases)
            || self.pinned_bytes > OPEN_CASES_HELD_BYTES
        {
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
        let pinned = self.pinned.entry(case_id.to_owned()).or_insert(Pinned {
            slot,
            closed,
            rows,
            held: 0,
        });
        let outcome = step_pinned(
            pinned,
            at,
            (row_number, row),
            self.keeping_rows,
            &mut self.faults,
            &mut self.fault_cases,
        );
        let held = case_id.len() + slot_held(&pinned.slot);
        self.pinned_bytes = self.pinned_bytes - pinned.held + held;
        pinned.held = held;
        outcome
    }

    /// Closes a case that came back: its row replaces the one written at its first closing.
    pub(super) fn close_pinned(&mut self, case_id: &str, pinned: Pinned) -> io::Result<()> {
        self.pinned_bytes -= pinned.held;
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
                None => self.spill.replace_case(
                    at,
                    len,
                    case_id,
                    pinned.closed.first_line,
                    case,
                    self.run_as_of,
                )?,
            }
        }
        self.ids.push(case_id, &pinned.closed)
    }

    /// Reports a valid row of a case of an earlier file, naming both places (every record of
    /// a case id is of the file it was first in, with its first line).
    pub(super) fn foreign_row(&mut self, at: Location<'_>, case_id: &str, closed: &Closed) {
        let file = self
            .file_names
            .get(closed.file_index as usize)
            .map_or("", String::as_str);
        self.faults
            .push(clash_error(at, case_id, file, closed.first_line));
        note_fault_case(&mut self.fault_cases, &self.faults, u64::MAX);
    }

    /// Asks for the memory of open case `seq` (if it is open) to be brought into the cache:
    /// cases are closed oldest first, thousands of cases after they were last touched, so the
    /// case to close a few new cases from now is asked for now, and closing it then does not
    /// wait for memory.
    pub(super) fn prefetch_case(&self, seq: u64) {
        if seq >= self.next {
            return;
        }
        let open = &self.open[self.place(seq)];
        let start = std::ptr::from_ref(open).cast::<u8>();
        for offset in (0..std::mem::size_of::<OpenCase>()).step_by(64) {
            super::index::prefetch(start.wrapping_add(offset));
        }
    }

    /// Makes the case `seq` (at `place`) the recent case of its hash's slot, in place of the
    /// case there.
    pub(super) fn remember_recent(&mut self, hash: u64, seq: u64, place: usize) {
        self.recent[recent_slot(hash)] = (hash, seq, place);
    }

    /// Where case `seq` is in `open`.
    pub(super) fn place(&self, seq: u64) -> usize {
        (seq % self.open_cases as u64) as usize
    }

    pub(super) fn close_oldest(&mut self) -> io::Result<()> {
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
            // row (or record) is written whatever happened, and it can be left out then.
            let spilled = match (&open.slot, &mut self.cases) {
                (Slot::Live(_), Some(cases)) => {
                    let file = self.file_names[self.file_index].as_str();
                    self.spill
                        .push_record(&mut |out| {
                            cases.write_case(self.file_index, file, &open.case_id, &open.rows, out)
                        })?
                        .map_or(0, |(_, len)| len)
                }
                (Slot::Live(case), None) => {
                    let first_line = open.first_line;
                    self.spill
                        .push_case(&open.case_id, first_line, case, self.run_as_of)?
                        .1
                }
                (Slot::Broken, _) => 0,
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
                    None => Some(self.spill.push_case(
                        &open.case_id,
                        open.first_line,
                        case,
                        self.run_as_of,
                    )?),
                };
            }
        }
        self.ids.push(&open.case_id, &closed)?;
        self.release_rows(seq);
        Ok(())
    }

    /// Lets go of the rows closed case `seq` kept (its place may wait long for a new case),
    /// and of its case and id if they hold more than a place keeps for the next case
    /// ([`PLACE_KEEPS_BYTES`]).
    pub(super) fn release_rows(&mut self, seq: u64) {
        let place = self.place(seq);
        let open = &mut self.open[place];
        self.kept_rows -= open.rows.in_memory();
        open.rows.release();
        self.held_bytes -= open.held;
        if open.held > PLACE_KEEPS_BYTES {
            open.slot = Slot::Broken;
            open.case_id = String::new();
        }
        open.held = 0;
    }

    /// [`feed_hashed`](StreamRun::feed_hashed) for a reader's rows: when the pass gives up,
    /// or on an I/O error (kept in `io_error`), `stop` is raised so the reader ends; after an
    /// error no row is fed.
    pub(super) fn feed_or_stop(
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
    pub(super) fn open_seq(&self, case_id: &str) -> Option<u64> {
        self.index.get(id_hash(case_id), |seq| {
            self.open[self.place(seq)].case_id == case_id
        })
    }

    /// Closes every open case, oldest first.
    pub(super) fn close_all(&mut self) -> io::Result<()> {
        while self.closed < self.next {
            self.close_oldest()?;
        }
        Ok(())
    }

    /// Ends one file: closes every open case and files the file's errors in line order
    /// (`reader_errors` first at equal lines).
    pub(super) fn end_file(&mut self, mut reader_errors: InputErrors) -> io::Result<()> {
        // A file changed in place while it was read gave rows of two files: that is its one
        // error (the others may be the change's).
        if let Some(current) = &self.current {
            current.reread.check()?;
        }
        // Each list is in line order, and capped: merged, the first of both are kept.
        reader_errors.merge_by_line(std::mem::take(&mut self.faults));
        self.fault_cases.clear();
        // Filed before the cases close: with errors nothing is written, and a case writer
        // (which may be costly: `reorder`) is not asked for records that would be dropped.
        self.errors.append(reader_errors);
        self.close_all()?;
        for (case_id, pinned) in std::mem::take(&mut self.pinned) {
            self.close_pinned(&case_id, pinned)?;
        }
        // Its handle is closed: a run over thousands of files does not hold one each.
        self.current = None;
        self.foreign.clear();
        Ok(())
    }
}

/// How many new cases before its closing an open case is prefetched.
const CLOSE_AHEAD: u64 = 4;

/// Slots for the cases of recent rows, a case in the slot of its hash ([`recent_slot`]):
/// enough that the handful of cases taking turns rarely share one (256: 6 KiB, in the L1
/// cache). A search of the last 8 cases cost a quarter of all the replay's own instructions
/// on a messy file, where cases take turns.
const RECENT_SLOTS: usize = 256;

/// The slot of `recent` a case id's [`id_hash`] goes in (the index uses its top bits).
fn recent_slot(hash: u64) -> usize {
    hash as usize & (RECENT_SLOTS - 1)
}

impl StreamRun {
    /// The state of the closed case `case_id` once its rows up to its closing are replayed
    /// again: the current file is read again from the case's first line to its last (a JSON
    /// file from its first row to its last, found by their number, from the point of a
    /// [`RowIndex`] before it), and only that case's rows are parsed and replayed (their
    /// faults were reported the first time).
    pub(super) fn rebuild(
        &mut self,
        case_id: &str,
        closed: &Closed,
    ) -> io::Result<(Slot, Vec<KeptRow>)> {
        let keeping = self.keeping_rows;
        let current = self.current.as_mut().ok_or_else(|| {
            io::Error::other(format!(
                "case {case_id} continues after it was closed, and the input cannot be read again"
            ))
        })?;
        read_case_again(current, keeping, case_id, closed)
    }
}
