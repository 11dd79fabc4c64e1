//! CSV case files: the delimiter, header mapping, ragged rows, unterminated quotes, bad
//! UTF-8, all located.

use std::io::Read;

use super::delimiter::{detect, Delimiter, HeaderColumns};
use super::error::{ErrorKind, InputError, InputErrors};
use super::fields::{
    cell_text, located, names_output_only, normalise_header, Field, FieldMap, Mapped, RawCells,
    FIELD_COUNT,
};
use super::records::{Record, RecordReader};
use super::{CaseRead, RowSink};

/// A CSV file's header: its column names and the field each names. Read once, it lets a
/// later read start in the middle of the file (see [`CaseRead::after_header`]).
#[derive(Clone, Debug)]
pub struct CsvHeader {
    names: Vec<String>,
    columns: Vec<Option<Field>>,
    /// The byte just after the header record.
    end: u64,
    /// What separates the cells.
    delimiter: Delimiter,
}

impl CsvHeader {
    /// Reads just the header of a CSV file (with `delimiter`, or the one detected): `None` if
    /// it has none or any problem (which a whole read of the file reports).
    pub fn read(reader: impl Read, file: &str, delimiter: Option<Delimiter>) -> Option<CsvHeader> {
        let mut records = RecordReader::new(reader, true);
        let mut errors = InputErrors::new();
        let header = read_header_record(
            &mut records,
            file,
            delimiter,
            &mut errors,
            &mut super::NoObserver,
        )?;
        errors.is_empty().then_some(header)
    }

    /// The byte offset just after the header record.
    pub fn end(&self) -> u64 {
        self.end
    }

    /// The delimiter, as given or detected.
    pub fn delimiter(&self) -> Delimiter {
        self.delimiter
    }
}

/// Whether a header cell names a column of a case file (a field, an alias, or an output-only
/// matrix column), for delimiter detection.
fn names_case_column(cell: &str) -> bool {
    let name = normalise_header(cell);
    Field::from_normalised(&name).is_some() || names_output_only(&name)
}

fn names_case_id(cell: &str) -> bool {
    Field::from_normalised(&normalise_header(cell)) == Some(Field::CaseId)
}

/// What a CSV read saw besides its rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CsvRead {
    /// The line of the byte after the last one read: 1 plus the line ends read.
    pub end_line: u64,
    /// For a read asked to stop at a byte offset: where it stopped, at `end_line`.
    pub stopped: Option<Stopped>,
}

/// Where a read asked to stop at a byte offset (a *cut*) stopped: at the first place at or
/// after the cut where a reader started afresh reads the same records as this one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped {
    /// The byte offset it stopped at: the cut itself, or else the first byte of the record
    /// after the one that holds the cut (or the end of the input).
    pub offset: u64,
    /// Whether it stopped at the cut: no record holds the byte before it (a quoted cell with
    /// a line end does when the cut falls inside it).
    pub at_cut: bool,
}

/// Reads the header record with `delimiter`, or the one detected from it, and maps its
/// columns; every problem goes to `errors` (and then `None`).
fn read_header_record<R: Read>(
    records: &mut RecordReader<R>,
    file: &str,
    delimiter: Option<Delimiter>,
    errors: &mut InputErrors,
    observer: &mut dyn super::ReadObserver,
) -> Option<CsvHeader> {
    let delimiter = match delimiter {
        Some(delimiter) => {
            // Said here, with what the header looked like, rather than as every required
            // column missing.
            let columns = HeaderColumns {
                known: &names_case_column,
                is_key: &names_case_id,
            };
            if let Ok(Some(header)) = records.peek_line() {
                if let Err(message) = super::delimiter::check_forced(header, delimiter, &columns) {
                    errors.push(
                        InputError::new(ErrorKind::Header, file, records.line(), message)
                            .column("header"),
                    );
                    return None;
                }
            }
            delimiter
        }
        None => {
            let line = records.line();
            let detected = match records.peek_line() {
                Ok(Some(header)) => detect(
                    header,
                    &HeaderColumns {
                        known: &names_case_column,
                        is_key: &names_case_id,
                    },
                ),
                Ok(None) => Ok(Delimiter::COMMA),
                Err(e) => {
                    errors.push(InputError::unreadable(file, line, e));
                    return None;
                }
            };
            match detected {
                Ok(delimiter) => delimiter,
                Err(message) => {
                    errors.push(
                        InputError::new(ErrorKind::Header, file, records.line(), message)
                            .column("header"),
                    );
                    return None;
                }
            }
        }
    };
    records.set_delimiter(delimiter.byte());
    let record = match header_record(records, file, errors) {
        Ok(Some(record)) => record,
        Ok(None) => return None,
        Err(failure) => {
            errors.push(failure.at(file, failure.started_at));
            return None;
        }
    };
    let header_line = record.line;
    let mut header_names = Vec::with_capacity(record.len());
    let mut header_ok = true;
    for (index, cell) in record.iter().enumerate() {
        match std::str::from_utf8(cell) {
            Ok(name) => header_names.push(strip_bom(index, name).to_owned()),
            Err(_) => {
                errors.push(
                    InputError::new(
                        ErrorKind::Encoding,
                        file,
                        header_line,
                        "header is not valid UTF-8",
                    )
                    .column(format!("column {}", index + 1))
                    .value(String::from_utf8_lossy(cell)),
                );
                header_ok = false;
                header_names.push(String::new());
            }
        }
    }
    let columns = map_header(&header_names, header_line, file, errors, observer);
    if !header_ok {
        return None;
    }
    Some(CsvHeader {
        names: header_names,
        columns: columns?,
        end: records.offset(),
        delimiter,
    })
}

/// The field each header cell names; every problem (two columns for one field, a required
/// column missing) goes to `errors`, and then `None`. Columns that name no field are told to
/// `observer`.
pub(super) fn map_header(
    header_names: &[String],
    header_line: u64,
    file: &str,
    errors: &mut InputErrors,
    observer: &mut dyn super::ReadObserver,
) -> Option<Vec<Option<Field>>> {
    if let Some(message) = matrix_not_case_file(header_names) {
        errors
            .push(InputError::new(ErrorKind::Swapped, file, header_line, message).column("header"));
        return None;
    }
    let mut header_ok = true;
    let mut map = FieldMap::<usize>::new();
    for (index, name) in header_names.iter().enumerate() {
        if let Err((field, earlier)) = map.insert(name, index) {
            errors.push(
                InputError::new(
                    ErrorKind::Header,
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
                    ErrorKind::Header,
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
        return None;
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
    Some(columns)
}

/// What a header that names no event but a matrix's decision or reason is: a matrix (a key,
/// a learner's answers) given where a case file goes, said in one line rather than as the
/// case-file columns it lacks.
pub(crate) fn matrix_not_case_file(header_names: &[String]) -> Option<&'static str> {
    let names: Vec<String> = header_names
        .iter()
        .map(|name| super::fields::normalise_header(name))
        .collect();
    let event = names.iter().any(|name| {
        super::fields::Field::from_normalised(name) == Some(super::fields::Field::Event)
    });
    let answers = names
        .iter()
        .any(|name| name == "decision" || name == "reason");
    (answers && !event).then_some(
        "this is a matrix, not a case file: its header names decision or reason and no event \
         (case files record events; a matrix is what adjudicate writes)",
    )
}

/// The message for a record the input ends inside of.
const UNTERMINATED: &str = "unterminated quote: the file ends inside a quoted cell";

/// A failed read of a record: the line the read started at, and why. Each strict reader
/// locates its "cannot read" where it always has: a case file at the line the read started
/// at, a matrix or gradebook at the line reading had reached ([`RecordReader::line`]).
pub struct ReadFailure {
    /// The line the read started at.
    pub(crate) started_at: u64,
    /// Why it failed.
    pub(crate) error: std::io::Error,
}

impl ReadFailure {
    /// The "cannot read" error of the failure, at `line`.
    pub fn at(&self, file: &str, line: u64) -> InputError {
        InputError::unreadable(file, line, &self.error)
    }
}

/// The header record of a strict CSV file (a case file, a matrix, a gradebook); `Ok(None)`
/// when the file is empty or ends inside the header's quote, each reported to `errors`.
pub fn header_record<'r, R: Read>(
    records: &'r mut RecordReader<R>,
    file: &str,
    errors: &mut InputErrors,
) -> Result<Option<Record<'r>>, ReadFailure> {
    let started_at = records.line();
    match records.next_record() {
        Ok(Some(record)) if record.is_unterminated() => {
            errors.push(
                InputError::new(ErrorKind::Syntax, file, record.line, UNTERMINATED)
                    .column("header"),
            );
            Ok(None)
        }
        Ok(Some(record)) => Ok(Some(record)),
        Ok(None) => {
            errors.push(InputError::new(
                ErrorKind::Header,
                file,
                1,
                "empty file: no header row",
            ));
            Ok(None)
        }
        Err(error) => Err(ReadFailure { started_at, error }),
    }
}

/// One step of the strict CSV record loop, after the header: the one loop of the case-file,
/// matrix and gradebook readers.
pub enum BodyRecord<'r> {
    /// A record with as many cells as the header.
    Row(Record<'r>),
    /// A record with more or fewer cells than the header, reported already; its cells are
    /// given to a reader that still checks them (a golden file's values).
    Ragged(Record<'r>),
    /// A blank record, or one the input ends inside the quote of (reported): nothing to read.
    Skipped,
    /// The end of the input.
    End,
}

/// The next record of a strict CSV body whose header has `width` cells: blank records are
/// skipped, and an unterminated quote and a row of another width are reported to `errors`,
/// each located at the record's line.
#[inline]
pub fn body_record<'r, R: Read>(
    records: &'r mut RecordReader<R>,
    file: &str,
    width: usize,
    errors: &mut InputErrors,
) -> Result<BodyRecord<'r>, ReadFailure> {
    let started_at = records.line();
    let record = match records.next_record() {
        Ok(Some(record)) => record,
        Ok(None) => return Ok(BodyRecord::End),
        Err(error) => return Err(ReadFailure { started_at, error }),
    };
    if record.is_unterminated() {
        errors.push(InputError::new(
            ErrorKind::Syntax,
            file,
            record.line,
            UNTERMINATED,
        ));
        return Ok(BodyRecord::Skipped);
    }
    if record.iter().all(|cell| cell.trim_ascii().is_empty()) {
        return Ok(BodyRecord::Skipped);
    }
    if record.len() != width {
        errors.push(InputError::new(
            ErrorKind::Syntax,
            file,
            record.line,
            format!("the row has {} cells; the header has {width}", record.len()),
        ));
        return Ok(BodyRecord::Ragged(record));
    }
    Ok(BodyRecord::Row(record))
}

/// Reads CSV rows from `reader` as `how` says, handing `sink` each row's cells and line to
/// parse; every problem goes to `errors`. Given the file's header ([`CaseRead::after_header`]),
/// the reader starts at a row (at the start of a line after the header) instead, and lines
/// are counted from 1 where it starts. Given a byte offset [`CaseRead::cut`] (counted from
/// where the reader starts), reading stops at the first record boundary at or after it
/// ([`Stopped`]). Without a header, cells are split by the delimiter of `how`, or the one
/// detected from the header line.
pub(super) fn read(
    reader: impl Read,
    how: &CaseRead<'_>,
    errors: &mut InputErrors,
    sink: &mut dyn RowSink,
    observer: &mut dyn super::ReadObserver,
) -> CsvRead {
    let (file, header, cut) = (how.name, how.after_header, how.cut);
    let delimiter = how.options.delimiter;
    let mut records = RecordReader::new(reader, header.is_none());
    let read_header;
    let CsvHeader {
        names: header_names,
        columns,
        ..
    } = match header {
        Some(header) => {
            records.set_delimiter(header.delimiter.byte());
            header
        }
        None => match read_header_record(&mut records, file, delimiter, errors, observer) {
            Some(header) => {
                read_header = header;
                &read_header
            }
            None => return summary(&records, None),
        },
    };
    // The columns that name a field, found once: a row maps only these.
    let mapped: Vec<(usize, Field)> = columns
        .iter()
        .enumerate()
        .filter_map(|(index, column)| column.map(|field| (index, field)))
        .collect();
    let mut stopped = None;
    loop {
        if let Some(cut) = cut {
            match stop_at_cut(&mut records, cut) {
                Ok(None) => {}
                Ok(Some(stop)) => {
                    stopped = Some(stop);
                    break;
                }
                Err(e) => {
                    errors.push(InputError::unreadable(file, records.line(), e));
                    break;
                }
            }
        }
        let record = match body_record(&mut records, file, columns.len(), errors) {
            Ok(BodyRecord::Row(record)) => record,
            Ok(BodyRecord::Ragged(_) | BodyRecord::Skipped) => continue,
            Ok(BodyRecord::End) => break,
            Err(failure) => {
                errors.push_final(failure.at(file, failure.started_at));
                break;
            }
        };
        let line = record.line;
        let mut cells: RawCells<'_> = [None; FIELD_COUNT];
        if !cells_if_utf8(&record, &mapped, &mut cells) {
            let mut utf8_ok = true;
            for (index, cell) in record.iter().enumerate() {
                match std::str::from_utf8(cell) {
                    Ok(text) => {
                        if let Some(field) = columns[index] {
                            cells[field as usize] = cell_text(field, text);
                        }
                    }
                    Err(_) => {
                        errors.push(
                            InputError::new(ErrorKind::Encoding, file, line, "not valid UTF-8")
                                .column(column_label(header_names, index))
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
        let locate = |field: Option<Field>, message: String, value: Option<&str>| {
            located(file, line, field, message, value)
        };
        observer.cells(line, &cells);
        sink.row(line, &cells, errors, &locate);
    }
    summary(&records, stopped)
}

fn summary<R: Read>(records: &RecordReader<R>, stopped: Option<Stopped>) -> CsvRead {
    CsvRead {
        end_line: records.line(),
        stopped,
    }
}

/// Where reading stops for a `cut`, once no record left to read starts before it; `None`
/// while one does. Lines end at `\n`, `\r\n` or a lone `\r` and the cut follows none of them
/// halfway, so at the cut (the byte after a `\n`) this reader is where a reader started
/// there is: at a record's start, blank lines still to skip.
fn stop_at_cut<R: Read>(
    records: &mut RecordReader<R>,
    cut: u64,
) -> std::io::Result<Option<Stopped>> {
    records.skip_blank_lines_before(cut)?;
    let offset = records.offset();
    if offset < cut {
        return Ok(None);
    }
    if offset == cut {
        return Ok(Some(Stopped {
            offset,
            at_cut: true,
        }));
    }
    // The last record read holds the cut. Its last line end may be a `\r` whose `\n` ends
    // no line; past the blank lines, at a record's first byte, nothing read before matters.
    records.skip_blank_lines_before(u64::MAX)?;
    Ok(Some(Stopped {
        offset: records.offset(),
        at_cut: false,
    }))
}

/// Fills `cells` (all `None` before) by field ([`cell_text`]) from the `mapped` columns when
/// the whole record is valid UTF-8 and every cell boundary is a character boundary (so every
/// cell is valid UTF-8): one check instead of one per cell. `false` (with `cells` partly
/// filled) otherwise.
fn cells_if_utf8<'r>(
    record: &Record<'r>,
    mapped: &[(usize, Field)],
    cells: &mut RawCells<'r>,
) -> bool {
    let (bytes, bounds) = record.parts();
    // `Record::texts`'s check, written out here: through `RecordTexts::get`, adjudicate
    // counted 1.5% more instructions.
    if !record.is_ascii() {
        let Ok(all) = std::str::from_utf8(bytes) else {
            return false;
        };
        // Every cell, named by a field or not: one cut inside a character is invalid UTF-8
        // (the slow path reports it), though the record as a whole is valid.
        if !bounds
            .iter()
            .all(|&(start, end)| all.is_char_boundary(start) && all.is_char_boundary(end))
        {
            return false;
        }
    }
    for &(column, field) in mapped {
        let (start, end) = bounds[column];
        // About half the cells of a row are empty: left `None`, as `cell_text` would make them.
        if start == end {
            continue;
        }
        // SAFETY: the record is valid UTF-8 and both ends of every cell are character
        // boundaries (every byte is ASCII, `Record::is_ascii`, or both were checked above), so
        // every cell is valid UTF-8. Slicing `str`s instead checked the boundaries of every
        // cell again (a tenth of this function's instructions).
        cells[field as usize] = cell_text(field, unsafe {
            std::str::from_utf8_unchecked(&bytes[start..end])
        });
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

#[cfg(test)]
mod tests {
    use super::super::{CaseRead, InputFormat, Locate, ReadOptions, RowSink};
    use super::*;

    /// A row's line and its cells by field.
    type OwnedRow = (u64, Vec<Option<String>>);

    /// Every row's cells as the reader maps them, by field.
    #[derive(Default)]
    struct Cells(Vec<OwnedRow>);

    impl RowSink for Cells {
        fn row(&mut self, line: u64, cells: &RawCells<'_>, _: &mut InputErrors, _: &Locate<'_>) {
            let cells = cells.iter().map(|cell| cell.map(str::to_owned)).collect();
            self.0.push((line, cells));
        }
    }

    fn read_cells(bytes: &[u8]) -> (Vec<OwnedRow>, Vec<String>) {
        let mut errors = InputErrors::new();
        let mut cells = Cells::default();
        let options = ReadOptions::default();
        let how = CaseRead::new("f.csv", InputFormat::Csv, &options);
        super::super::read_cells(bytes, &how, &mut errors, &mut cells);
        (cells.0, errors.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn cells_are_mapped_by_field_trimmed_in_ascii_and_other_rows_alike() {
        let (rows, errors) = read_cells(
            "note,Holder,case_id,event,progress_value,observed_at\n\
             x, w1 ,c1,ack, 5% ,t\n\
             é, wé ,c2,ack, 5é ,\n\
             ,,c3,  ,,t\n"
                .as_bytes(),
        );
        assert!(errors.is_empty(), "{errors:?}");
        let row = |pairs: &[(Field, &str)]| {
            let mut cells = vec![None; FIELD_COUNT];
            for (field, text) in pairs {
                cells[*field as usize] = Some(text.to_string());
            }
            cells
        };
        assert_eq!(
            rows,
            [
                (
                    2,
                    row(&[
                        (Field::Holder, "w1"),
                        (Field::CaseId, "c1"),
                        (Field::Event, "ack"),
                        (Field::ProgressValue, " 5% "),
                        (Field::ObservedAt, "t"),
                    ])
                ),
                (
                    3,
                    row(&[
                        (Field::Holder, "wé"),
                        (Field::CaseId, "c2"),
                        (Field::Event, "ack"),
                        (Field::ProgressValue, " 5é "),
                    ])
                ),
                (4, row(&[(Field::CaseId, "c3"), (Field::ObservedAt, "t")])),
            ]
        );
    }

    #[test]
    fn a_character_cut_by_a_delimiter_is_invalid_in_both_cells_named_or_not() {
        // `é` is C3 A9: each half alone is invalid, though the record's bytes back to back
        // (the delimiter left out) are valid UTF-8.
        for (header, row, column) in [
            ("holder,case_id", &b"w\xC3,\xA9c1"[..], "holder"),
            ("case_id,note,remark", &b"c1,x\xC3,\xA9"[..], "note"),
        ] {
            let mut bytes = format!("{header},event,observed_at\n").into_bytes();
            bytes.extend_from_slice(row);
            bytes.extend_from_slice(b",ack,t\n");
            let (rows, errors) = read_cells(&bytes);
            assert!(rows.is_empty(), "{rows:?}");
            assert_eq!(errors.len(), 2, "{errors:?}");
            assert!(
                errors[0].starts_with(&format!("f.csv:2: {column}: not valid UTF-8")),
                "{errors:?}"
            );
        }
    }
}
