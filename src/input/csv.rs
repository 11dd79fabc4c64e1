//! CSV case files: header mapping, ragged rows, bad UTF-8, all located.

use std::collections::VecDeque;
use std::io::{self, Read};

use super::error::{located, InputError};
use super::fields::{Field, FieldMap, Mapped, RawCells, FIELD_COUNT};
use super::RowSink;

/// Reads CSV rows from `reader`, handing `sink` each row's cells and line to parse; every
/// problem goes to `errors`.
pub fn read(
    reader: impl Read,
    file: &str,
    errors: &mut Vec<InputError>,
    sink: &mut dyn RowSink,
    observer: &mut dyn super::ReadObserver,
) {
    // The csv reader's own buffer is the only one (callers pass unbuffered readers): a
    // second buffer under it cost a copy of every byte.
    let mut csv = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .buffer_capacity(1 << 16)
        .from_reader(LineIndex::new(reader));
    let mut record = csv::ByteRecord::new();
    let read_record = |csv: &mut csv::Reader<_>, record: &mut csv::ByteRecord| match csv
        .read_byte_record(record)
    {
        Ok(more) => Ok(more),
        Err(e) => {
            let line = e.position().map_or(0, |p| p.line());
            Err(InputError::new(file, line, format!("unreadable CSV: {e}")))
        }
    };

    // The header.
    match read_record(&mut csv, &mut record) {
        Ok(true) => {}
        Ok(false) => {
            errors.push(InputError::new(file, 1, "empty file: no header row"));
            return;
        }
        Err(e) => {
            errors.push(e);
            return;
        }
    }
    let header_line = record_line(&mut csv, &record);
    let mut header_names = Vec::with_capacity(record.len());
    let mut header_ok = true;
    for (index, cell) in record.iter().enumerate() {
        match std::str::from_utf8(cell) {
            Ok(name) => header_names.push(strip_bom(index, name).to_owned()),
            Err(_) => {
                errors.push(
                    InputError::new(file, header_line, "header is not valid UTF-8")
                        .column(format!("column {}", index + 1))
                        .value(String::from_utf8_lossy(cell)),
                );
                header_ok = false;
                header_names.push(String::new());
            }
        }
    }
    let mut map = FieldMap::<usize>::new();
    for (index, name) in header_names.iter().enumerate() {
        if let Err((field, earlier)) = map.insert(name, index) {
            errors.push(
                InputError::new(
                    file,
                    header_line,
                    format!(
                        "columns {:?} and {:?} both name the field {}",
                        header_names[earlier],
                        name,
                        field.name()
                    ),
                )
                .column("header"),
            );
            header_ok = false;
        }
    }
    for required in [Field::CaseId, Field::Event, Field::ObservedAt] {
        if map.get(required).is_none() {
            errors.push(
                InputError::new(
                    file,
                    header_line,
                    format!("no {} column (required on every row)", required.name()),
                )
                .column("header"),
            );
            header_ok = false;
        }
    }
    if !header_ok {
        return;
    }
    let columns: Vec<Option<Field>> = header_names
        .iter()
        .map(|name| match FieldMap::<()>::new().insert(name, ()) {
            Ok(Mapped::Field(field)) => Some(field),
            _ => None,
        })
        .collect();
    for (name, column) in header_names.iter().zip(&columns) {
        if column.is_none() {
            observer.ignored_column(header_line, name);
        }
    }

    loop {
        match read_record(&mut csv, &mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                errors.push(e);
                break;
            }
        }
        let line = record_line(&mut csv, &record);
        if record.iter().all(|cell| cell.trim_ascii().is_empty()) {
            continue;
        }
        if record.len() != columns.len() {
            errors.push(InputError::new(
                file,
                line,
                format!(
                    "the row has {} cells; the header has {}",
                    record.len(),
                    columns.len()
                ),
            ));
            continue;
        }
        let mut cells: RawCells<'_> = [None; FIELD_COUNT];
        if !cells_if_utf8(&record, &columns, &mut cells) {
            {
                let mut utf8_ok = true;
                for (index, cell) in record.iter().enumerate() {
                    match std::str::from_utf8(cell) {
                        Ok(text) => {
                            if let Some(field) = columns[index] {
                                cells[field as usize] = Some(text);
                            }
                        }
                        Err(_) => {
                            errors.push(
                                InputError::new(file, line, "not valid UTF-8")
                                    .column(column_label(&header_names, index))
                                    .value(String::from_utf8_lossy(cell)),
                            );
                            utf8_ok = false;
                        }
                    }
                }
                if !utf8_ok {
                    continue;
                }
            }
        }
        let locate = |field: Option<Field>, message: String, value: Option<&str>| {
            located(file, line, field, message, value)
        };
        observer.cells(line, &cells);
        sink.row(line, &cells, errors, &locate);
    }
}

/// Fills `cells` by field when the whole record is valid UTF-8 and every cell boundary is a
/// character boundary (so every cell is valid UTF-8): one check instead of one per cell.
/// `false` (with `cells` partly filled) otherwise.
fn cells_if_utf8<'r>(
    record: &'r csv::ByteRecord,
    columns: &[Option<Field>],
    cells: &mut RawCells<'r>,
) -> bool {
    let bytes = record.as_slice();
    let Ok(all) = std::str::from_utf8(bytes) else {
        return false;
    };
    let base = all.as_ptr() as usize;
    for (cell, column) in record.iter().zip(columns) {
        let start = cell.as_ptr() as usize - base;
        let Some(cell) = all.get(start..start + cell.len()) else {
            return false;
        };
        if let Some(field) = column {
            cells[*field as usize] = Some(cell);
        }
    }
    true
}

fn strip_bom(index: usize, name: &str) -> &str {
    if index == 0 {
        name.strip_prefix('\u{feff}').unwrap_or(name)
    } else {
        name
    }
}

fn column_label(header: &[String], index: usize) -> String {
    match header.get(index) {
        Some(name) if !name.trim().is_empty() => name.trim().to_owned(),
        _ => format!("column {}", index + 1),
    }
}

/// The line a record starts on.
///
/// The csv crate's own record positions lag behind after a `\r\n` terminator (the `\n` is
/// consumed by the next read) and after skipped blank lines, so a CRLF file or one with blank
/// lines would be blamed on the wrong line. The record's first content byte is the first line
/// start at or after the byte where the csv reader began the record.
fn record_line<R: Read>(csv: &mut csv::Reader<LineIndex<R>>, record: &csv::ByteRecord) -> u64 {
    let start = record.position().map_or(0, |p| p.byte());
    csv.get_mut().line_at(start)
}

/// A reader that notes where each non-blank line starts (byte offset and 1-based line), for
/// [`record_line`]. Entries before the current record are dropped, so memory stays bounded by
/// the csv reader's read-ahead.
struct LineIndex<R> {
    inner: R,
    offset: u64,
    line: u64,
    at_line_start: bool,
    starts: VecDeque<(u64, u64)>,
}

impl<R: Read> LineIndex<R> {
    fn new(inner: R) -> LineIndex<R> {
        LineIndex {
            inner,
            offset: 0,
            line: 1,
            at_line_start: true,
            starts: VecDeque::new(),
        }
    }

    /// The line of the first line start at or after byte `start`.
    fn line_at(&mut self, start: u64) -> u64 {
        while self
            .starts
            .front()
            .is_some_and(|&(offset, _)| offset < start)
        {
            self.starts.pop_front();
        }
        self.starts.front().map_or(self.line, |&(_, line)| line)
    }
}

impl<R: Read> Read for LineIndex<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let bytes = &buf[..n];
        let mut i = 0;
        while i < n {
            if self.at_line_start {
                match bytes[i] {
                    b'\n' => self.line += 1,
                    b'\r' => {}
                    _ => {
                        self.starts.push_back((self.offset + i as u64, self.line));
                        self.at_line_start = false;
                    }
                }
                i += 1;
            } else {
                // Inside a line only its end matters: skip to it (this reader sees every byte
                // of a CSV file, so the byte-by-byte version cost as much as csv parsing; a
                // SIMD search halves what the plain loop still cost, perf).
                match memchr::memchr(b'\n', &bytes[i..]) {
                    Some(end) => {
                        i += end + 1;
                        self.line += 1;
                        self.at_line_start = true;
                    }
                    None => break,
                }
            }
        }
        self.offset += n as u64;
        Ok(n)
    }
}
