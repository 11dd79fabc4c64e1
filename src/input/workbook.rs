//! Workbooks (`.xlsx`, `.xlsm`, `.ods`; spec section 2): their rows as the text a spreadsheet
//! would export, read with calamine, and an `.xlsx` matrix written with rust_xlsxwriter.
//!
//! An `.xlsx` sheet is read a cell at a time from its XML (calamine's cell reader), so it costs
//! one row besides the workbook's bytes (compressed, as in the file) and its shared strings.
//! An `.ods` sheet is read whole into calamine's cell grid before its rows are handed on
//! (measured: about 110 bytes a cell at the peak; docs/spreadsheets.md).

use std::io::Cursor;

use calamine::{Data, ExcelDateTime, Ods, Reader, Xlsx};

use super::csv::map_header;
use super::error::{located, InputError};
use super::fields::{cell_text, RawCells, FIELD_COUNT};
use super::{ReadObserver, RowSink};

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
pub fn cell_as_text(cell: &Data) -> String {
    match cell {
        Data::Empty => String::new(),
        Data::String(text) => text.clone(),
        Data::Int(n) => n.to_string(),
        Data::Float(x) => float_text(*x),
        Data::Bool(true) => "true".to_owned(),
        Data::Bool(false) => "false".to_owned(),
        Data::DateTime(datetime) => datetime_text(datetime),
        Data::DateTimeIso(text) => iso_datetime_text(text),
        Data::DurationIso(text) => text.clone(),
        Data::Error(error) => error.to_string(),
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

fn datetime_text(datetime: &ExcelDateTime) -> String {
    if datetime.is_duration() {
        let seconds = datetime.as_f64() * 86_400.0;
        return if seconds.fract().abs() < 1e-6 {
            format!("PT{}S", seconds.round() as i64)
        } else {
            format!("PT{}S", float_text(seconds))
        };
    }
    let (year, month, day, hour, minute, second, milli) = datetime.to_ymd_hms_milli();
    let mut text = format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}");
    if milli != 0 {
        let fraction = format!("{milli:03}");
        text.push('.');
        text.push_str(fraction.trim_end_matches('0'));
    }
    text.push('Z');
    text
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
/// workbook in errors, and its extension picks the reader (`.ods`, else `.xlsx`; neither, as
/// for standard input: whichever reads it).
pub fn for_each_row(
    bytes: &[u8],
    file: &str,
    sheet: Option<&str>,
    visit: &mut dyn FnMut(&str, u64, &[String]),
) -> Result<(), InputError> {
    let cannot = |e: &dyn std::fmt::Display| {
        InputError::new(file, 0, format!("cannot read the workbook: {e}"))
    };
    let lower = file.to_ascii_lowercase();
    let ods = lower.ends_with(".ods")
        || (!lower.ends_with(".xlsx") && !lower.ends_with(".xlsm") && looks_like_ods(bytes));
    if ods {
        let mut workbook: Ods<_> =
            calamine::open_workbook_from_rs(Cursor::new(bytes)).map_err(|e| cannot(&e))?;
        let name = choose_sheet(&workbook.sheet_names(), sheet, file)?;
        let range = workbook.worksheet_range(&name).map_err(|e| cannot(&e))?;
        let located = located_name(file, &name);
        let (first_row, first_column) = range.start().unwrap_or((0, 0));
        let mut cells = Vec::new();
        for (index, row) in range.rows().enumerate() {
            cells.clear();
            cells.resize(first_column as usize, String::new());
            cells.extend(row.iter().map(cell_as_text));
            while cells.last().is_some_and(String::is_empty) {
                cells.pop();
            }
            if !cells.is_empty() {
                visit(&located, u64::from(first_row) + index as u64 + 1, &cells);
            }
        }
        return Ok(());
    }
    let mut workbook: Xlsx<_> =
        calamine::open_workbook_from_rs(Cursor::new(bytes)).map_err(|e| cannot(&e))?;
    let name = choose_sheet(&workbook.sheet_names(), sheet, file)?;
    let located = located_name(file, &name);
    let mut reader = workbook
        .worksheet_cells_reader(&name)
        .map_err(|e| cannot(&e))?;
    let mut row: Option<u32> = None;
    let mut cells: Vec<String> = Vec::new();
    while let Some(cell) = reader.next_cell().map_err(|e| cannot(&e))? {
        let text = cell_as_text(&Data::from(cell.get_value().clone()));
        if text.is_empty() {
            continue;
        }
        let (at_row, at_column) = cell.get_position();
        if row != Some(at_row) {
            if let Some(done) = row {
                visit(&located, u64::from(done) + 1, &cells);
            }
            cells.clear();
            row = Some(at_row);
        }
        let column = at_column as usize;
        if cells.len() <= column {
            cells.resize(column + 1, String::new());
        }
        cells[column] = text;
    }
    if let Some(done) = row {
        visit(&located, u64::from(done) + 1, &cells);
    }
    Ok(())
}

/// Whether a zip archive is an OpenDocument file: its first member is `mimetype`.
fn looks_like_ods(bytes: &[u8]) -> bool {
    bytes.len() > 38 && bytes.starts_with(b"PK\x03\x04") && &bytes[30..38] == b"mimetype"
}

fn choose_sheet(names: &[String], wanted: Option<&str>, file: &str) -> Result<String, InputError> {
    match wanted {
        None => names
            .first()
            .cloned()
            .ok_or_else(|| InputError::new(file, 0, "the workbook has no sheets")),
        Some(wanted) => names
            .iter()
            .find(|name| name.as_str() == wanted)
            .cloned()
            .ok_or_else(|| {
                let all: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
                InputError::new(
                    file,
                    0,
                    format!("no sheet {wanted:?}; the workbook has {}", all.join(", ")),
                )
            }),
    }
}

/// Reads the case rows of a workbook's sheet: the first row with a cell is the header (mapped
/// as a CSV header is), and each later row with a cell goes to `sink`; errors are located as
/// `file.xlsx[Sheet1]:ROW`.
pub fn read_cases(
    bytes: &[u8],
    file: &str,
    sheet: Option<&str>,
    errors: &mut Vec<InputError>,
    sink: &mut dyn RowSink,
    observer: &mut dyn ReadObserver,
) {
    // `None` before the header; then its columns, or `None` inside if it was bad.
    let mut header: Option<Option<Vec<Option<super::Field>>>> = None;
    let mut row_errors = Vec::new();
    let result = for_each_row(bytes, file, sheet, &mut |located_file, line, cells| {
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
    errors.append(&mut row_errors);
    match result {
        Err(e) => errors.push(e),
        Ok(()) if header.is_none() => {
            errors.push(InputError::new(file, 0, "empty sheet: no header row"));
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
    use calamine::ExcelDateTimeType;

    #[test]
    fn cells_read_as_a_spreadsheet_exports_them() {
        assert_eq!(cell_as_text(&Data::Float(8.0)), "8");
        assert_eq!(cell_as_text(&Data::Float(-3.0)), "-3");
        assert_eq!(cell_as_text(&Data::Float(0.25)), "0.25");
        assert_eq!(cell_as_text(&Data::Int(7)), "7");
        assert_eq!(cell_as_text(&Data::Bool(true)), "true");
        assert_eq!(cell_as_text(&Data::Empty), "");
        // 2026-01-01 10:00:55 is day 46023 and 36055 seconds.
        let serial = 46023.0 + 36055.0 / 86400.0;
        let datetime = ExcelDateTime::new(serial, ExcelDateTimeType::DateTime, false);
        assert_eq!(
            cell_as_text(&Data::DateTime(datetime)),
            "2026-01-01T10:00:55Z"
        );
        let half = ExcelDateTime::new(46023.0 + 0.25 / 86400.0, ExcelDateTimeType::DateTime, false);
        assert_eq!(
            cell_as_text(&Data::DateTime(half)),
            "2026-01-01T00:00:00.25Z"
        );
        let duration = ExcelDateTime::new(30.0 / 86400.0, ExcelDateTimeType::TimeDelta, false);
        assert_eq!(cell_as_text(&Data::DateTime(duration)), "PT30S");
        assert_eq!(
            cell_as_text(&Data::DateTimeIso("2026-01-01T10:00:55".into())),
            "2026-01-01T10:00:55Z"
        );
        assert_eq!(
            cell_as_text(&Data::DateTimeIso("2026-01-01".into())),
            "2026-01-01T00:00:00Z"
        );
        assert_eq!(
            cell_as_text(&Data::DateTimeIso("2026-01-01T10:00:55+02:00".into())),
            "2026-01-01T10:00:55+02:00"
        );
    }
}
