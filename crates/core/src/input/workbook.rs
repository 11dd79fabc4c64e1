//! Workbooks (`.xlsx`, `.xlsm`, `.ods`; spec section 2): their rows as the text a spreadsheet
//! would export, and an `.xlsx` matrix written with rust_xlsxwriter.
//!
//! A workbook is a zip archive of XML parts, and a small one can inflate to gigabytes. So it is
//! read here within limits that hold by construction (`docs/safety.md` lists them): only the
//! parts a sheet needs are inflated (`archive`), every byte inflated is counted as it comes,
//! the XML reader holds one tag or text at a time (`xml`), and a sheet streams a row at a
//! time (`xlsx`, `ods`), its cells given the values and text calamine 0.35 would give them
//! ([`Cell`]; the tests read every workbook through calamine too and compare). What it costs
//! is the workbook's bytes as stored,
//! the parts kept in memory (an `.xlsx` file's shared strings and styles) and one row.

mod archive;
mod ods;
mod xlsx;
mod xml;

use super::csv::map_header;
use super::error::{ErrorKind, InputError, InputErrors};
use super::fields::{cell_text, located, RawCells, FIELD_COUNT};
use super::{ReadObserver, RowSink};
use crate::limits::MAX_RECORD_BYTES;

/// What a sheet's rows are handed to: the sheet's located name, the row's number (from 1) and
/// its cells from column A; it returns whether to go on (`false`: the sheet's other rows are
/// not read).
type Visit<'a> = &'a mut dyn FnMut(&str, u64, &[String]) -> bool;

/// A problem while a part is read: of its XML, or one that says what it is.
enum Located {
    Xml(xml::XmlError),
    Message(String),
}

/// A whole-workbook error: `file: not a readable workbook: ...`. (Not "cannot read": that
/// is for a file that cannot be opened, which `grade` tells a learner apart from a malformed
/// one.)
fn unreadable_workbook(file: &str, message: String) -> InputError {
    InputError::new(
        ErrorKind::Syntax,
        file,
        0,
        format!("not a readable workbook: {message}"),
    )
}

/// The error of a row longer than a record may be.
fn row_too_long() -> String {
    format!(
        "the row is longer than {MAX_RECORD_BYTES} bytes (1 MiB), its cells' text and a \
         separator between each, the most one row may hold"
    )
}

/// A sheet's row as it is read: its cells' text by column, within a record's length (the
/// length of the row as CSV, a separator between each cell).
#[derive(Default)]
struct SheetRow {
    cells: Vec<String>,
    text: usize,
}

impl SheetRow {
    fn clear(&mut self) {
        self.cells.clear();
        self.text = 0;
    }

    fn cells(&self) -> &[String] {
        &self.cells
    }

    /// Its length as CSV.
    fn bytes(&self) -> usize {
        self.text + self.cells.len()
    }

    /// Sets the cell at `column` (from 0), unless the row would grow too long.
    fn set(&mut self, column: usize, text: String) -> Result<(), String> {
        let width = self.cells.len().max(column + 1);
        let replaced = self.cells.get(column).map_or(0, String::len);
        let total = self.text - replaced + text.len();
        if total + width > MAX_RECORD_BYTES {
            return Err(row_too_long());
        }
        if self.cells.len() <= column {
            self.cells.resize(column + 1, String::new());
        }
        self.cells[column] = text;
        self.text = total;
        Ok(())
    }
}

/// A cell's value as a sheet stores it, before it is text ([`cell_as_text`]): the kinds of
/// value calamine 0.35's `Data` tells apart for the cells these readers meet.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// No value.
    Empty,
    /// Text, kept as written.
    String(String),
    /// A number without a date or time format.
    Float(f64),
    /// A boolean (`.xlsx` `t="b"`, ODS `office:boolean-value`).
    Bool(bool),
    /// An `.xlsx` number whose format is a date, a time or a duration: a serial day count.
    Serial(Serial),
    /// An ODS date or date-time (`office:date-value`), as written.
    DateTimeIso(String),
    /// An ODS duration (`office:time-value`) or an `.xlsx` ISO date cell, as written.
    DurationIso(String),
    /// A formula's error, by the code a spreadsheet shows (`#N/A`).
    Error(&'static str),
}

/// An `.xlsx` serial date-time: days (and their fraction) since the workbook's epoch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Serial {
    /// The number stored.
    pub days: f64,
    /// Whether its format is a duration (`[h]:mm:ss`) rather than a point in time.
    pub is_duration: bool,
    /// Whether the workbook counts from 1904-01-01 (`date1904`) rather than 1900.
    pub is_1904: bool,
}

/// The error codes a cell may hold, as `.xlsx` writes them (calamine's `CellErrorType`).
pub(crate) fn error_code(code: &str) -> Option<&'static str> {
    [
        "#DIV/0!", "#N/A", "#NAME?", "#NULL!", "#NUM!", "#REF!", "#VALUE!",
    ]
    .into_iter()
    .find(|known| *known == code)
}

/// [`cell_as_text`], keeping a string cell's text rather than copying it.
fn cell_into_text(cell: Cell) -> String {
    match cell {
        Cell::String(text) | Cell::DurationIso(text) => text,
        other => cell_as_text(&other),
    }
}

/// Whether a lower-case extension names a workbook: `xlsx`, `xlsm` or `ods`.
pub fn is_workbook_extension(extension: &str) -> bool {
    matches!(extension, "xlsx" | "xlsm" | "ods")
}

/// A cell as the text a spreadsheet would export: integers stored as floats without `.0`
/// (`8`), other numbers in their shortest form, a date-time as that instant in UTC in the
/// contract's form (`2026-01-01T10:00:55Z`), a duration as ISO 8601 seconds (`PT30S`),
/// errors as their code (`#N/A`). A boolean cell, which has no case of its own (a spreadsheet
/// shows `TRUE`), reads as the contract writes booleans, `true`/`false`, so that a typed
/// golden workbook is in canonical form.
pub fn cell_as_text(cell: &Cell) -> String {
    match cell {
        Cell::Empty => String::new(),
        Cell::String(text) | Cell::DurationIso(text) => text.clone(),
        Cell::Float(x) => float_text(*x),
        Cell::Bool(true) => "true".to_owned(),
        Cell::Bool(false) => "false".to_owned(),
        Cell::Serial(serial) => serial_text(serial),
        Cell::DateTimeIso(text) => iso_datetime_text(text),
        Cell::Error(code) => (*code).to_owned(),
    }
}

fn float_text(x: f64) -> String {
    // Below 2^53 every whole float is an exact integer.
    if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

fn serial_text(serial: &Serial) -> String {
    if serial.is_duration {
        let seconds = serial.days * 86_400.0;
        return if seconds.fract().abs() < 1e-6 {
            format!("PT{}S", seconds.round() as i64)
        } else {
            format!("PT{}S", float_text(seconds))
        };
    }
    let (year, month, day, hour, minute, second, milli) = serial_parts(serial.days, serial.is_1904);
    let mut text = format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}");
    if milli != 0 {
        let fraction = format!("{milli:03}");
        text.push('.');
        text.push_str(fraction.trim_end_matches('0'));
    }
    text.push('Z');
    text
}

/// A serial date-time's year, month, day, hour, minute, second and millisecond, as calamine
/// 0.35 computes them (`ExcelDateTime::to_ymd_hms_milli`), quirks kept so that a workbook
/// reads the same as it did through calamine: the 1900 epoch's fictitious 1900-02-29 (serial
/// 60), a negative serial read as day 0, the time truncated to the second with the
/// milliseconds rounded (which can give `24:00:00` at a day's very end).
fn serial_parts(serial: f64, is_1904: bool) -> (i64, u32, u32, u64, u64, u64, u64) {
    let whole_days = serial.floor() as u64; // `as` saturates: a negative serial is day 0
    let (year, month, day) = if !is_1904 && whole_days <= 365 {
        first_year_of_1900_epoch(whole_days)
    } else {
        use chrono::{Datelike, NaiveDate};
        // Excel counts 1900-02-29, which never was: from March 1900 a serial is one day more
        // than the days since 1899-12-31.
        let (epoch_year, epoch_month, epoch_day) = if is_1904 {
            (1904, 1, 1)
        } else {
            (1899, 12, 30)
        };
        let date = NaiveDate::from_ymd_opt(epoch_year, epoch_month, epoch_day)
            .and_then(|epoch| epoch.checked_add_days(chrono::Days::new(whole_days)))
            .unwrap_or(NaiveDate::MAX); // past year 262,143: not a date any contract accepts
        (i64::from(date.year()), date.month(), date.day())
    };
    let time = serial.fract();
    let mut milli = ((time * 86_400.0).fract() * 1000.0).round() as u64;
    let mut seconds_of_day = (time * 86_400.0) as u64;
    if milli == 1000 {
        seconds_of_day += 1;
        milli = 0;
    }
    let hour = seconds_of_day / 3600;
    let minute = (seconds_of_day - hour * 3600) / 60;
    let second = (seconds_of_day - hour * 3600 - minute * 60) % 60;
    (year, month, day, hour, minute, second, milli)
}

/// A day of the 1900 epoch's first year (serials 0 to 365), counted as Excel counts it:
/// February has 29 days; day 0 is 1899-12-31.
fn first_year_of_1900_epoch(day_of_year: u64) -> (i64, u32, u32) {
    const MONTHS: [u64; 12] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if day_of_year == 0 {
        return (1899, 12, 31);
    }
    let mut day = day_of_year;
    for (month, length) in (1u32..).zip(MONTHS) {
        if day <= length {
            return (1900, month, day as u32);
        }
        day -= length;
    }
    unreachable!("a day of the year is at most 366")
}

/// An ODS date-time (`2026-01-01T10:00:55`, or a date alone), which has no offset: read as
/// UTC. Anything else is kept as written.
fn iso_datetime_text(text: &str) -> String {
    let bytes = text.as_bytes();
    let is_date = bytes.len() >= 10
        && bytes[..10].iter().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                *b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    if !is_date {
        return text.to_owned();
    }
    if bytes.len() == 10 {
        return format!("{text}T00:00:00Z");
    }
    let time = &text[10..];
    let has_offset = time.ends_with(['Z', 'z']) || time[1..].contains(['+', '-']);
    if time.starts_with('T') && !has_offset {
        format!("{text}Z")
    } else {
        text.to_owned()
    }
}

/// The name errors give a sheet: `file.xlsx[Sheet1]`.
pub fn located_name(file: &str, sheet: &str) -> String {
    format!("{file}[{sheet}]")
}

/// Hands `visit` every row of a workbook's sheet (the one named `sheet`, else the first) that
/// has a cell: the sheet's located name, the row's number in the spreadsheet (from 1), and
/// its cells as text by column from column A (trailing empty cells left off). `file` names the
/// workbook in errors. Its content picks the reader (an OpenDocument file starts with its
/// mimetype; else a name ending `.ods`; else `.xlsx`), so a renamed workbook reads as what it
/// is. Rows handed on before an error stay handed on.
pub fn for_each_row(
    bytes: &[u8],
    file: &str,
    sheet: Option<&str>,
    visit: &mut dyn FnMut(&str, u64, &[String]),
) -> Result<(), InputError> {
    for_each_row_in(std::io::Cursor::new(bytes), file, sheet, visit)
}

/// [`for_each_row`] of a workbook read from `workbook` (a file, say, rather than bytes in
/// memory).
pub fn for_each_row_in(
    mut workbook: impl std::io::Read + std::io::Seek,
    file: &str,
    sheet: Option<&str>,
    visit: &mut dyn FnMut(&str, u64, &[String]),
) -> Result<(), InputError> {
    // By its content (an OpenDocument file's first member is its mimetype), so that a
    // workbook renamed is read as what it is; else by its name.
    let mut head = [0u8; 39];
    let read = archive::read_head(&mut workbook, &mut head)
        .map_err(|e| unreadable_workbook(file, e.to_string()))?;
    let ods = looks_like_ods(&head[..read]) || file.to_ascii_lowercase().ends_with(".ods");
    let visit = &mut |located: &str, line: u64, cells: &[String]| {
        visit(located, line, cells);
        true
    };
    if ods {
        ods::for_each_row(workbook, file, sheet, visit)
    } else {
        xlsx::for_each_row(workbook, file, sheet, visit)
    }
}

/// A sheet's name and its first row with a cell (`None`: the sheet is empty, or is not a
/// worksheet).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SheetStart {
    /// The sheet's name.
    pub name: String,
    /// Its first row with a cell, by column from column A.
    pub first_row: Option<Vec<String>>,
}

/// The most sheets [`first_rows`] looks at: a workbook has a few, and a crafted one millions.
pub const MAX_SHEETS_LOOKED_AT: usize = 64;

/// The name of each sheet of a workbook (the first [`MAX_SHEETS_LOOKED_AT`], in the order it
/// lists them) and its first row with a cell (`None`: the sheet is empty, or not a worksheet):
/// what picks the sheet that holds a matrix. Only as much of each sheet is read as its first
/// row, within one workbook's limits.
pub fn first_rows(
    mut workbook: impl std::io::Read + std::io::Seek,
    file: &str,
) -> Result<Vec<SheetStart>, InputError> {
    let mut head = [0u8; 39];
    let read = archive::read_head(&mut workbook, &mut head)
        .map_err(|e| unreadable_workbook(file, e.to_string()))?;
    if looks_like_ods(&head[..read]) || file.to_ascii_lowercase().ends_with(".ods") {
        ods::first_rows(workbook, file)
    } else {
        xlsx::first_rows(workbook, file)
    }
}

/// Whether a zip archive is an OpenDocument file: its first member is `mimetype`.
fn looks_like_ods(bytes: &[u8]) -> bool {
    bytes.len() > 38 && bytes.starts_with(b"PK\x03\x04") && &bytes[30..38] == b"mimetype"
}

/// How many sheet names an error lists (a workbook has a few; a crafted one, millions).
const NAMES_LISTED: usize = 100;

/// Picks the sheet to read as a workbook lists its sheets: the one named `wanted`, else the
/// first. The first few names are kept for the error that says there is no such sheet.
struct SheetChoice<'w> {
    wanted: Option<&'w str>,
    listed: Vec<String>,
    more: usize,
}

impl<'w> SheetChoice<'w> {
    fn new(wanted: Option<&'w str>) -> SheetChoice<'w> {
        SheetChoice {
            wanted,
            listed: Vec::new(),
            more: 0,
        }
    }

    /// Whether `name`, the next sheet listed, is the one to read.
    fn is_wanted(&mut self, name: &str) -> bool {
        if self.wanted.is_none_or(|wanted| wanted == name) {
            return true;
        }
        if self.listed.len() < NAMES_LISTED {
            self.listed.push(format!("{name:?}"));
        } else {
            self.more += 1;
        }
        false
    }

    /// The error when no sheet listed was the one to read.
    fn not_found(mut self, file: &str) -> InputError {
        let Some(wanted) = self.wanted else {
            return InputError::new(ErrorKind::Missing, file, 0, "the workbook has no sheets");
        };
        if self.more > 0 {
            self.listed.push(format!("and {} more", self.more));
        }
        InputError::new(
            ErrorKind::Missing,
            file,
            0,
            format!(
                "no sheet {wanted:?}; the workbook has {}",
                self.listed.join(", ")
            ),
        )
    }
}

/// Reads the case rows of a workbook's sheet: the first row with a cell is the header (mapped
/// as a CSV header is), and each later row with a cell goes to `sink`; errors are located as
/// `file.xlsx[Sheet1]:ROW`.
pub fn read_cases(
    workbook: impl std::io::Read + std::io::Seek,
    file: &str,
    sheet: Option<&str>,
    errors: &mut InputErrors,
    sink: &mut dyn RowSink,
    observer: &mut dyn ReadObserver,
) {
    // `None` before the header; then its columns, or `None` inside if it was bad.
    let mut header: Option<Option<Vec<Option<super::Field>>>> = None;
    let mut row_errors = InputErrors::new();
    let result = for_each_row_in(workbook, file, sheet, &mut |located_file, line, cells| {
        if cells.iter().all(|cell| cell.trim().is_empty()) {
            return;
        }
        let columns = match &header {
            None => {
                header = Some(map_header(
                    cells,
                    line,
                    located_file,
                    &mut row_errors,
                    observer,
                ));
                return;
            }
            Some(None) => return,
            Some(Some(columns)) => columns,
        };
        let width = cells
            .iter()
            .rposition(|cell| !cell.trim().is_empty())
            .map_or(0, |last| last + 1);
        if width > columns.len() {
            row_errors.push(InputError::new(
                ErrorKind::Syntax,
                located_file,
                line,
                format!(
                    "the row has {width} cells; the header has {}",
                    columns.len()
                ),
            ));
            return;
        }
        let mut raw: RawCells<'_> = [None; FIELD_COUNT];
        for (cell, column) in cells.iter().zip(columns) {
            if let Some(field) = column {
                raw[*field as usize] = cell_text(*field, cell);
            }
        }
        let locate = |field, message: String, value: Option<&str>| {
            located(located_file, line, field, message, value)
        };
        observer.cells(line, &raw);
        sink.row(line, &raw, &mut row_errors, &locate);
    });
    errors.append(row_errors);
    match result {
        Err(e) => errors.push_final(e),
        Ok(()) if header.is_none() => {
            errors.push(InputError::new(
                ErrorKind::Header,
                file,
                0,
                "empty sheet: no header row",
            ));
        }
        Ok(()) => {}
    }
}

/// An `.xlsx` workbook of one sheet named `sheet`: `header` in bold and frozen, then `rows`
/// as text, each column as wide as its longest cell (within reason).
pub fn matrix_xlsx(
    sheet: &str,
    header: &[&str],
    rows: &[Vec<String>],
) -> Result<Vec<u8>, rust_xlsxwriter::XlsxError> {
    use rust_xlsxwriter::{Format, Workbook};
    let mut workbook = Workbook::new();
    let worksheet = workbook.add_worksheet();
    worksheet.set_name(sheet)?;
    let bold = Format::new().set_bold();
    let mut widths: Vec<usize> = header.iter().map(|name| name.chars().count()).collect();
    for (column, name) in header.iter().enumerate() {
        worksheet.write_string_with_format(0, column as u16, *name, &bold)?;
    }
    for (index, row) in rows.iter().enumerate() {
        let at = u32::try_from(index + 1)
            .map_err(|_| rust_xlsxwriter::XlsxError::RowColumnLimitError)?;
        for (column, text) in row.iter().enumerate() {
            if column >= widths.len() {
                widths.resize(column + 1, 0);
            }
            widths[column] = widths[column].max(text.chars().count());
            if !text.is_empty() {
                worksheet.write_string(at, column as u16, text)?;
            }
        }
    }
    for (column, width) in widths.iter().enumerate() {
        // Excel's width unit is about one character; a little room, and no column too wide.
        worksheet.set_column_width(column as u16, (*width as f64 + 2.0).min(60.0))?;
    }
    worksheet.set_freeze_panes(1, 0)?;
    workbook.save_to_buffer()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serial(days: f64, is_duration: bool) -> Cell {
        Cell::Serial(Serial {
            days,
            is_duration,
            is_1904: false,
        })
    }

    #[test]
    fn cells_read_as_a_spreadsheet_exports_them() {
        assert_eq!(cell_as_text(&Cell::Float(8.0)), "8");
        assert_eq!(cell_as_text(&Cell::Float(-3.0)), "-3");
        assert_eq!(cell_as_text(&Cell::Float(0.25)), "0.25");
        assert_eq!(cell_as_text(&Cell::Bool(true)), "true");
        assert_eq!(cell_as_text(&Cell::Empty), "");
        assert_eq!(cell_as_text(&Cell::Error("#N/A")), "#N/A");
        // 2026-01-01 10:00:55 is day 46023 and 36055 seconds.
        let at = 46023.0 + 36055.0 / 86400.0;
        assert_eq!(cell_as_text(&serial(at, false)), "2026-01-01T10:00:55Z");
        let half = 46023.0 + 0.25 / 86400.0;
        assert_eq!(
            cell_as_text(&serial(half, false)),
            "2026-01-01T00:00:00.25Z"
        );
        assert_eq!(cell_as_text(&serial(30.0 / 86400.0, true)), "PT30S");
        assert_eq!(
            cell_as_text(&Cell::DateTimeIso("2026-01-01T10:00:55".into())),
            "2026-01-01T10:00:55Z"
        );
        assert_eq!(
            cell_as_text(&Cell::DateTimeIso("2026-01-01".into())),
            "2026-01-01T00:00:00Z"
        );
        assert_eq!(
            cell_as_text(&Cell::DateTimeIso("2026-01-01T10:00:55+02:00".into())),
            "2026-01-01T10:00:55+02:00"
        );
    }

    /// Serial date-times give calamine's components: every day of both epochs' first years
    /// (1900's fictitious February 29th, day 0, negative serials), days across eight
    /// thousand years, and times that round up to the next second or day.
    #[test]
    fn serial_dates_are_calamines() {
        use calamine::{ExcelDateTime, ExcelDateTimeType};
        let fractions = [
            0.0,
            0.25,
            0.5 / 86400.0,
            0.999_999_999,
            1.0 - 0.0004 / 86400.0,
        ];
        let days = (0..=800)
            .chain((800..=2_958_465).step_by(997))
            .chain([2_958_465]);
        for day in days {
            for fraction in fractions {
                for is_1904 in [false, true] {
                    let value = day as f64 + fraction;
                    let theirs = ExcelDateTime::new(value, ExcelDateTimeType::DateTime, is_1904)
                        .to_ymd_hms_milli();
                    let (y, mo, d, h, mi, s, ms) = serial_parts(value, is_1904);
                    let ours = (
                        y as u16, mo as u8, d as u8, h as u8, mi as u8, s as u8, ms as u16,
                    );
                    assert_eq!(ours, theirs, "serial {value} (1904: {is_1904})");
                }
            }
        }
    }
}

/// The reader against calamine's: every workbook here, read by both, gives the same rows.
#[cfg(test)]
mod same_as_calamine {
    use std::io::{Cursor, Write};

    use calamine::{Data, Ods, Reader, Xlsx};

    use super::*;

    /// A calamine cell as text, through calamine's own date arithmetic (what this module did
    /// before it had its own cell type).
    fn calamine_text(cell: &Data) -> String {
        match cell {
            Data::Empty => String::new(),
            Data::String(text) | Data::DurationIso(text) => text.clone(),
            Data::Int(n) => n.to_string(),
            Data::Float(x) => float_text(*x),
            Data::Bool(b) => b.to_string(),
            Data::DateTimeIso(text) => iso_datetime_text(text),
            Data::Error(error) => error.to_string(),
            Data::DateTime(datetime) if datetime.is_duration() => {
                cell_as_text(&Cell::Serial(Serial {
                    days: datetime.as_f64(),
                    is_duration: true,
                    is_1904: false,
                }))
            }
            Data::DateTime(datetime) => {
                let (year, month, day, hour, minute, second, milli) = datetime.to_ymd_hms_milli();
                let mut text =
                    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}");
                if milli != 0 {
                    let fraction = format!("{milli:03}");
                    text.push('.');
                    text.push_str(fraction.trim_end_matches('0'));
                }
                text + "Z"
            }
        }
    }

    /// The rows calamine 0.35 reads (what this module did with it before reading workbooks
    /// itself): `(sheet, row, cells)`, or its error.
    fn calamine_rows(
        bytes: &[u8],
        ods: bool,
        sheet: Option<&str>,
    ) -> Result<Vec<(String, u64, Vec<String>)>, String> {
        let mut rows = Vec::new();
        let choose = |names: Vec<String>| match sheet {
            None => names.first().cloned().ok_or("no sheets".to_owned()),
            Some(wanted) => names
                .into_iter()
                .find(|n| n == wanted)
                .ok_or("no such sheet".to_owned()),
        };
        if ods {
            let mut workbook: Ods<_> = calamine::open_workbook_from_rs(Cursor::new(bytes))
                .map_err(|e: calamine::OdsError| e.to_string())?;
            let name = choose(workbook.sheet_names())?;
            let range = workbook.worksheet_range(&name).map_err(|e| e.to_string())?;
            let (first_row, first_column) = range.start().unwrap_or((0, 0));
            for (index, row) in range.rows().enumerate() {
                let mut cells = vec![String::new(); first_column as usize];
                cells.extend(row.iter().map(calamine_text));
                while cells.last().is_some_and(String::is_empty) {
                    cells.pop();
                }
                if !cells.is_empty() {
                    rows.push((name.clone(), u64::from(first_row) + index as u64 + 1, cells));
                }
            }
            return Ok(rows);
        }
        let mut workbook: Xlsx<_> = calamine::open_workbook_from_rs(Cursor::new(bytes))
            .map_err(|e: calamine::XlsxError| e.to_string())?;
        let name = choose(workbook.sheet_names())?;
        let mut reader = workbook
            .worksheet_cells_reader(&name)
            .map_err(|e| e.to_string())?;
        let mut row: Option<u32> = None;
        let mut cells: Vec<String> = Vec::new();
        while let Some(cell) = reader.next_cell().map_err(|e| e.to_string())? {
            let text = calamine_text(&Data::from(cell.get_value().clone()));
            if text.is_empty() {
                continue;
            }
            let (at_row, at_column) = cell.get_position();
            if row != Some(at_row) {
                if let Some(done) = row {
                    rows.push((
                        name.clone(),
                        u64::from(done) + 1,
                        std::mem::take(&mut cells),
                    ));
                }
                row = Some(at_row);
            }
            let column = at_column as usize;
            if cells.len() <= column {
                cells.resize(column + 1, String::new());
            }
            cells[column] = text;
        }
        if let Some(done) = row {
            rows.push((name, u64::from(done) + 1, cells));
        }
        Ok(rows)
    }

    fn our_rows(
        bytes: &[u8],
        name: &str,
        sheet: Option<&str>,
    ) -> Result<Vec<(String, u64, Vec<String>)>, String> {
        let mut rows = Vec::new();
        for_each_row(bytes, name, sheet, &mut |located, line, cells| {
            let sheet = located
                .strip_prefix(name)
                .and_then(|s| s.strip_prefix('['))
                .and_then(|s| s.strip_suffix(']'))
                .expect("file[sheet]");
            rows.push((sheet.to_owned(), line, cells.to_vec()));
        })
        .map_err(|e| e.to_string())?;
        Ok(rows)
    }

    fn assert_same(bytes: &[u8], name: &str, sheet: Option<&str>) -> usize {
        let ods = name.ends_with(".ods") || (name == "-" && looks_like_ods(bytes));
        let want = calamine_rows(bytes, ods, sheet).expect("calamine reads it");
        let got = our_rows(bytes, name, sheet).expect("we read it");
        assert_eq!(got, want, "{name} {sheet:?}");
        want.len()
    }

    /// A zip archive of `parts` (deflated).
    pub(crate) fn zip_of(parts: &[(&str, &[u8])]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, bytes) in parts {
            let stored = *name == "mimetype";
            let options = zip::write::SimpleFileOptions::default().compression_method(if stored {
                zip::CompressionMethod::Stored
            } else {
                zip::CompressionMethod::Deflated
            });
            zip.start_file(*name, options).unwrap();
            zip.write_all(bytes).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    /// An `.xlsx` of one sheet (`Data`) whose worksheet, shared strings and styles are
    /// written by hand.
    pub(crate) fn hand_xlsx(
        sheet_data: &str,
        shared: &str,
        styles: &str,
        workbook_pr: &str,
    ) -> Vec<u8> {
        let workbook = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<workbook xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" \
             xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\">{workbook_pr}\
             <sheets><sheet name=\"Data &amp; more\" sheetId=\"1\" r:id=\"rId1\"/><sheet name=\"Other\" sheetId=\"2\" r:id=\"rId2\"/></sheets></workbook>"
        );
        let rels = "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">\
             <Relationship Id=\"rId1\" Type=\"t\" Target=\"worksheets/sheet1.xml\"/>\
             <Relationship Id=\"rId2\" Type=\"t\" Target=\"/xl/worksheets/sheet2.xml\"/></Relationships>";
        let sheet = format!(
            "<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\"><dimension ref=\"A1:C9\"/>\
             <sheetData>{sheet_data}</sheetData></worksheet>"
        );
        let other = "<worksheet><sheetData><row r=\"2\"><c r=\"B2\" t=\"inlineStr\"><is><t>other</t></is></c></row></sheetData></worksheet>";
        let mut parts: Vec<(&str, &[u8])> = vec![
            ("[Content_Types].xml", b"<Types/>"),
            ("xl/workbook.xml", workbook.as_bytes()),
            ("xl/_rels/workbook.xml.rels", rels.as_bytes()),
            ("xl/worksheets/sheet1.xml", sheet.as_bytes()),
            ("xl/worksheets/sheet2.xml", other.as_bytes()),
        ];
        if !shared.is_empty() {
            parts.push(("xl/sharedStrings.xml", shared.as_bytes()));
        }
        if !styles.is_empty() {
            parts.push(("xl/styles.xml", styles.as_bytes()));
        }
        zip_of(&parts)
    }

    #[test]
    fn workbooks_written_by_rust_xlsxwriter() {
        use rust_xlsxwriter::{ExcelDateTime as Date, Format, Formula, Workbook};
        let mut workbook = Workbook::new();
        let first = workbook.add_worksheet();
        first.set_name("Typed").unwrap();
        let date = Format::new().set_num_format("yyyy-mm-dd hh:mm:ss.000");
        let duration = Format::new().set_num_format("[h]:mm:ss");
        let money = Format::new().set_num_format("#,##0.00;[Red]-#,##0.00");
        let bold = Format::new().set_bold();
        first.write_string(0, 0, "case_id").unwrap();
        first
            .write_string(0, 2, "a \"quoted\" & <tagged> text")
            .unwrap();
        first.write_number(1, 0, 8.0).unwrap();
        first.write_number(1, 1, -0.25).unwrap();
        first.write_number(1, 3, 1e300).unwrap();
        let at = Date::parse_from_str("2026-01-01T10:00:55.250").unwrap();
        first.write_datetime_with_format(2, 0, &at, &date).unwrap();
        first
            .write_number_with_format(2, 1, 30.0 / 86400.0, &duration)
            .unwrap();
        first
            .write_number_with_format(2, 2, 1234.5, &money)
            .unwrap();
        first.write_boolean(3, 0, true).unwrap();
        first.write_boolean(3, 1, false).unwrap();
        first
            .write_formula(4, 0, Formula::new("=1+1").set_result("2"))
            .unwrap();
        first
            .write_formula(4, 1, Formula::new("=\"x\"&\"y\"").set_result("xy"))
            .unwrap();
        first
            .write_rich_string(5, 0, &[(&bold, "rich "), (&Format::default(), "text")])
            .unwrap();
        first
            .write_string(6, 1, "line one\r\nline two\ttab _x000D_")
            .unwrap();
        first.write_string(1_048_575, 16_383, "far corner").unwrap();
        let second = workbook.add_worksheet();
        second.set_name("Second").unwrap();
        second.write_string(3, 2, "second sheet").unwrap();
        let bytes = workbook.save_to_buffer().unwrap();
        assert_eq!(assert_same(&bytes, "typed.xlsx", None), 8);
        assert_eq!(assert_same(&bytes, "typed.xlsx", Some("Second")), 1);
        // Standard input: told by its bytes.
        assert_eq!(assert_same(&bytes, "-", None), 8);
    }

    #[test]
    fn workbooks_written_by_hand() {
        let shared = "<sst count=\"9\" uniqueCount=\"4\"><si><t>plain</t></si>\
            <si><r><rPr><b/></rPr><t xml:space=\"preserve\">rich </t></r><r><t>run</t></r>\
            <rPh sb=\"0\" eb=\"1\"><t>PHONETIC</t></rPh></si>\
            <si><t>a_x000D_b &amp; &#x263A; &lt;c&gt;</t></si><si/><si><t><![CDATA[<cdata>]]></t></si></sst>";
        let styles = "<styleSheet><numFmts count=\"1\"><numFmt numFmtId=\"164\" formatCode=\"d/m/yyyy\"/></numFmts>\
            <cellXfs count=\"4\"><xf numFmtId=\"0\"/><xf numFmtId=\"164\"/><xf numFmtId=\"46\"/><xf numFmtId=\"14\"/></cellXfs></styleSheet>";
        let sheet = "<row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c><c r=\"C1\" t=\"s\"><v>1</v></c></row>\
            <row><c t=\"s\"><v>2</v></c><c t=\"s\"><v>3</v></c><c t=\"s\"><v>4</v></c></row>\
            <row r=\"5\"><c r=\"A5\" s=\"1\"><v>46023.5</v></c><c r=\"B5\" s=\"2\"><v>0.5</v></c>\
            <c r=\"C5\" s=\"3\" t=\"n\"><v>46023</v></c><c r=\"D5\" s=\"9\"><v>7</v></c></row>\
            <row r=\"6\"><c r=\"A6\" t=\"str\"><f>A1</f><v>from &quot;formula&quot;</v></c>\
            <c r=\"B6\" t=\"e\"><v>#N/A</v></c><c r=\"C6\" t=\"b\"><v>1</v></c>\
            <c r=\"D6\" t=\"d\"><v>2026-01-01T10:00:00</v></c><c r=\"E6\"><v>not a number</v></c>\
            <c r=\"F6\" t=\"inlineStr\"><is><t>inline</t></is></c><c r=\"G6\"><f>1+1</f></c></row>\
            <!-- a comment --><row r=\"8\" spans=\"1:3\"><c r=\"B9\"><v>9</v></c><c><v>10</v></c></row>\
            <row r=\"3\"><c r=\"A3\"><v>3</v></c></row><row r=\"4\"/>";
        for pr in ["", "<workbookPr date1904=\"1\"/>"] {
            let bytes = hand_xlsx(sheet, shared, styles, pr);
            assert_eq!(assert_same(&bytes, "hand.xlsx", None), 7, "{pr}");
            assert_eq!(assert_same(&bytes, "hand.xlsm", Some("Other")), 1);
        }
        // Without shared strings or styles.
        let bytes = hand_xlsx(
            "<row><c><v>1</v></c><c t=\"inlineStr\"><is><t>x</t></is></c></row>",
            "",
            "",
            "",
        );
        assert_eq!(assert_same(&bytes, "bare.xlsx", None), 1);
    }

    #[test]
    fn ods_workbooks() {
        for file in ["probes.ods", "lesson-headings.ods"] {
            let path = format!(
                "{}/tests/data/spreadsheets/{file}",
                concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
            );
            let bytes = std::fs::read(path).unwrap();
            let mut names = Vec::new();
            let got = {
                let workbook: Ods<_> =
                    calamine::open_workbook_from_rs(Cursor::new(&bytes[..])).unwrap();
                names.extend(workbook.sheet_names());
                names.len()
            };
            assert!(got > 0);
            for name in &names {
                assert_same(&bytes, file, Some(name));
            }
            assert_same(&bytes, file, None);
        }
        let content = "<?xml version=\"1.0\"?><office:document-content xmlns:office=\"o\" xmlns:table=\"t\" xmlns:text=\"x\">\
            <office:body><office:spreadsheet><table:table table:name=\"First &amp; one\">\
            <table:table-column table:number-columns-repeated=\"3\"/>\
            <table:table-row table:number-rows-repeated=\"2\"><table:table-cell table:number-columns-repeated=\"5\"/></table:table-row>\
            <table:table-header-rows><table:table-row><table:table-cell office:value-type=\"string\"><text:p>case_id</text:p></table:table-cell>\
            <table:table-cell table:number-columns-repeated=\"2\"/><table:table-cell office:value-type=\"float\" office:value=\"8\"/></table:table-row></table:table-header-rows>\
            <table:table-row table:number-rows-repeated=\"3\"><table:table-cell table:number-columns-repeated=\"2\" office:value-type=\"string\">\
            <text:p>two<text:s text:c=\"3\"/>words</text:p><text:p>second &amp; <text:span>span</text:span></text:p><office:annotation><text:p>note</text:p></office:annotation></table:table-cell>\
            <table:covered-table-cell/><table:table-cell office:value-type=\"date\" office:date-value=\"2026-01-01T10:00:55\"/>\
            <table:table-cell office:value-type=\"time\" office:time-value=\"PT30S\"/><table:table-cell office:value-type=\"boolean\" office:boolean-value=\"true\"/>\
            <table:table-cell office:value-type=\"percentage\" office:value=\"0.25\"/><table:table-cell office:value-type=\"string\" office:string-value=\"attr\"/></table:table-row>\
            <table:table-row table:number-rows-repeated=\"1048000\"><table:table-cell table:number-columns-repeated=\"1024\"/></table:table-row>\
            </table:table><table:table table:name=\"Second\"><table:table-row><table:table-cell table:number-columns-repeated=\"3\"/>\
            <table:table-cell office:value-type=\"string\"><text:p>x</text:p></table:table-cell></table:table-row></table:table>\
            </office:spreadsheet></office:body></office:document-content>";
        let manifest = "<manifest:manifest xmlns:manifest=\"m\"><manifest:file-entry manifest:full-path=\"/\"/></manifest:manifest>";
        let bytes = zip_of(&[
            (
                "mimetype",
                b"application/vnd.oasis.opendocument.spreadsheet",
            ),
            ("META-INF/manifest.xml", manifest.as_bytes()),
            ("content.xml", content.as_bytes()),
        ]);
        assert_eq!(assert_same(&bytes, "hand.ods", None), 4);
        assert_eq!(assert_same(&bytes, "hand.ods", Some("Second")), 1);
        assert_eq!(assert_same(&bytes, "-", Some("Second")), 1);
        assert_eq!(
            our_rows(&bytes, "hand.ods", Some("Third")).unwrap_err(),
            "hand.ods: no sheet \"Third\"; the workbook has \"First & one\", \"Second\""
        );
    }
}
