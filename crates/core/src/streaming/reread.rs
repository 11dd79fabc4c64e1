//! Reading a file again for a case that comes back after it was closed: where its lines (CSV,
//! NDJSON) or its rows (a JSON array) start, found by a scan kept as sparse points, and the
//! replay of only that case's rows up to where it was closed, through the handle the file was
//! first read through (never its path, which may name another file by now).

use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::input::{
    json_object_starts, parse_row_into, read, read_cells, BadRow, CaseRead, CsvHeader, InputErrors,
    InputFormat, Locate, NoObserver, RawCells, ReadOptions, RowResult, RowSink,
};
use crate::lease::values::same_text;
use crate::lease::Case;

use super::ids::Closed;
use super::kept::KeptRow;
use super::opened::OpenedFile;
use super::rules::Slot;
use super::watch::Watched;
use crate::store::{read_at, ReadAt};

/// The file being read: its name, format and how to read it again.
pub(super) struct CurrentFile {
    pub(super) name: String,
    pub(super) format: InputFormat,
    /// The delimiter and sheet it is read with.
    pub(super) options: ReadOptions,
    /// The handle it is read through (or the copy of standard input made as it was read).
    pub(super) reread: OpenedFile,
    /// Set up at the first case that comes back: the file's handle, its CSV header, where
    /// its lines start, where its JSON rows start.
    pub(super) opened: Option<Opened>,
    /// The rows read from it so far: a JSON array may hold several rows on a line (all of
    /// them on one), so the rows of a case read again from a JSON file are found by their
    /// number rather than their line.
    pub(super) rows: u64,
}

/// Where some lines of a file start, found by scanning its bytes for line ends (what the
/// readers count lines by) as far as a case read again needed, with a point kept every
/// [`LINE_INDEX_STEP`] bytes: finding a line costs a scan from the point before it, and
/// every byte is scanned once more at most besides.
pub(super) struct LineIndex {
    /// (line, byte offset of its start), in order; the first is line 1 at byte 0.
    pub(super) points: Vec<(u64, u64)>,
}

/// Bytes between the points of a [`LineIndex`]: a case that comes back costs a scan of this
/// much at most to find its first line (a point per MiB cost each of 100,000 returning
/// one-row cases half a MiB), and the points of a 356 MB file take 90 KB.
const LINE_INDEX_STEP: u64 = 1 << 16;

impl LineIndex {
    pub(super) fn new() -> LineIndex {
        LineIndex {
            points: vec![(1, 0)],
        }
    }

    /// The byte offset where `line` starts, if the file has that many lines.
    pub(super) fn start_of(&mut self, file: &File, line: u64) -> io::Result<Option<u64>> {
        let point = self.points.partition_point(|&(l, _)| l <= line) - 1;
        let (mut at_line, mut offset) = self.points[point];
        let extends = point + 1 == self.points.len();
        let mut buf = vec![0u8; 1 << 16];
        while at_line < line {
            let n = read_at(file, &mut buf, offset)?;
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
pub(super) struct RowIndex {
    /// (rows before it, byte offset, line) of some rows, in order.
    points: Vec<(u64, u64, u64)>,
    /// Whether the scan met something other than an object or the array's end (no point
    /// past the last can be found).
    stuck: bool,
}

impl RowIndex {
    pub(super) fn new() -> RowIndex {
        RowIndex {
            points: Vec::new(),
            stuck: false,
        }
    }

    /// The byte offset and line of the row with `row` rows before it, if the file is an
    /// array of objects that far.
    pub(super) fn start_of(
        &mut self,
        file: &Arc<File>,
        row: u64,
    ) -> io::Result<Option<(u64, u64)>> {
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

/// The state of the closed case `case_id` of the file `current` once its rows up to its
/// closing are replayed again (see `StreamRun::rebuild`), with its rows that replayed if
/// `keeping` them.
pub(super) fn read_case_again(
    current: &mut CurrentFile,
    keeping: bool,
    case_id: &str,
    closed: &Closed,
) -> io::Result<(Slot, Vec<KeptRow>)> {
    current.reread.readable_again()?;
    if current.opened.is_none() {
        current.opened = Some(open_again(current)?);
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
    let shift = std::cell::Cell::new(line_base);
    // The number of rows before the next one read.
    let next_row = std::cell::Cell::new(rows_before);
    let mut found = Replayed {
        case_id,
        keeping,
        by_number,
        lines: (first, last),
        rows_numbered: (closed.first_row, closed.last_row),
        done: &done,
        slot: None,
        rows: Vec::new(),
    };
    let mut replay = |line: u64, row: &RowResult| {
        let line = line + shift.get();
        let number = next_row.get();
        next_row.set(number + 1);
        found.row(line, number, row);
    };
    let mut errors = InputErrors::new();
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
    // A file changed in place reads differently: that, not what is missing, is the error.
    let read_through = Arc::clone(file);
    current.reread.check_read(&read_through)?;
    let Replayed { slot, rows, .. } = found;
    let slot = slot.ok_or_else(|| {
        io::Error::other(format!(
            "{}: the rows of case {case_id} were not found when read again",
            current.name
        ))
    })?;
    Ok((slot, rows))
}

/// A file opened to be read again: its handle, its header if it is CSV, and the indexes of
/// its lines and JSON rows found so far.
pub(super) type Opened = (Arc<File>, Option<CsvHeader>, LineIndex, RowIndex);

/// The file of `current` opened again, with its header if it is CSV and empty indexes of
/// its lines and JSON rows.
fn open_again(current: &mut CurrentFile) -> io::Result<Opened> {
    let file = current.reread.handle()?;
    let header = match current.format {
        InputFormat::Csv => {
            let reader = ReadAt {
                file: Arc::clone(&file),
                offset: 0,
            };
            Some(
                CsvHeader::read(reader, &current.name, current.options.delimiter).ok_or_else(
                    || {
                        io::Error::other(format!(
                            "{}: the header cannot be read again",
                            current.name
                        ))
                    },
                )?,
            )
        }
        _ => None,
    };
    Ok((file, header, LineIndex::new(), RowIndex::new()))
}

/// A closed case replayed from its rows read again: the rows of other cases and those
/// before its first or after its last are passed over.
struct Replayed<'a> {
    case_id: &'a str,
    /// Whether the rows that replayed are kept.
    keeping: bool,
    /// Whether rows are found by their number (JSON), not their line.
    by_number: bool,
    /// The case's first and last line.
    lines: (u64, u64),
    /// The case's first and last row by number.
    rows_numbered: (u64, u64),
    /// Set once the reading is past the case.
    done: &'a AtomicBool,
    /// The case as replayed so far (`None`: no row of it yet).
    slot: Option<Slot>,
    /// Its rows that replayed, if `keeping`.
    rows: Vec<KeptRow>,
}

impl Replayed<'_> {
    /// Replays the row at `line` (the `number`th of the file), if it is the case's.
    fn row(&mut self, line: u64, number: u64, row: &RowResult) {
        let (at, (first, last)) = match self.by_number {
            true => (number, self.rows_numbered),
            false => (line, self.lines),
        };
        if at > last {
            self.done.store(true, Ordering::Relaxed);
            return;
        }
        let id = match row {
            Ok(parsed) => parsed.case_id.as_str(),
            Err(BadRow {
                case_id: Some(id), ..
            }) => id.as_str(),
            Err(_) => return,
        };
        if at < first || !same_text(id, self.case_id) {
            return;
        }
        let replayed = match (&mut self.slot, row) {
            (None, Ok(parsed)) => {
                let started = Case::start(&parsed.row);
                let replayed = started.is_ok();
                self.slot = Some(started.map_or(Slot::Broken, |(case, _)| Slot::Live(case)));
                replayed
            }
            (None, Err(_)) => {
                self.slot = Some(Slot::Broken);
                false
            }
            // A fault leaves the case as it was, as it did the first time.
            (Some(Slot::Live(case)), Ok(parsed)) => case.step(&parsed.row).is_ok(),
            _ => false,
        };
        // The rows a case writer sees are those that replayed, as they did the first time.
        if let (true, true, Ok(parsed)) = (self.keeping, replayed, row) {
            self.rows.push(KeptRow {
                line,
                row: parsed.row.clone(),
            });
        }
    }
}

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
        errors: &mut InputErrors,
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
