//! A matrix as CSV: the delimiter detected from the header (or given), the header mapped to
//! matrix columns, then a record at a time, every structural problem located.

use super::rows::Split;
use super::{check_golden_cells, MatrixFile, MatrixRead, Strictness, Table};
use crate::grading::columns::{column_from_header, Column};
use crate::input::records::{RecordReader, RecordTexts};
use crate::input::ErrorKind;
use crate::input::{
    body_record, check_forced_delimiter, detect_delimiter, header_record, BodyRecord,
    HeaderColumns, InputError, InputErrors,
};
use crate::sanitize::spreadsheet_value;

/// Whether a header cell names a matrix column / `case_id`, for delimiter detection.
fn names_matrix_column(cell: &str) -> bool {
    column_from_header(cell).is_some()
}

fn names_case_id(cell: &str) -> bool {
    column_from_header(cell) == Some(Column::CaseId)
}

/// Reads a CSV matrix from `reader`: `None` when nothing could be read past its errors.
pub(super) fn read(
    reader: impl std::io::Read,
    name: &str,
    how: &MatrixRead<'_>,
    keep: &[bool],
    split: Split<'_>,
    errors: &mut InputErrors,
) -> Option<MatrixFile> {
    let strictness = how.strictness;
    let mut records = RecordReader::new(reader, true);
    let cannot = |line: u64, e: std::io::Error| InputError::unreadable(name, line, e);
    let columns = HeaderColumns {
        known: &names_matrix_column,
        is_key: &names_case_id,
    };
    let delimiter = match how.options.delimiter {
        Some(delimiter) => {
            // Said here, with what the header looked like, rather than as a bare "no case_id
            // column" from the header's mapping.
            if let Ok(Some(header)) = records.peek_line() {
                if let Err(message) = check_forced_delimiter(header, delimiter, &columns) {
                    errors.push(
                        InputError::new(ErrorKind::Header, name, records.line(), message)
                            .column("header"),
                    );
                    return None;
                }
            }
            delimiter
        }
        None => match records.peek_line() {
            Ok(Some(header)) => match detect_delimiter(header, &columns) {
                Ok(delimiter) => delimiter,
                Err(message) => {
                    errors.push(
                        InputError::new(ErrorKind::Header, name, records.line(), message)
                            .column("header"),
                    );
                    return None;
                }
            },
            Ok(None) => crate::input::Delimiter::COMMA,
            Err(e) => {
                errors.push(cannot(records.line(), e));
                return None;
            }
        },
    };
    records.set_delimiter(delimiter.byte());
    let (header_line, header) = match header_record(&mut records, name, errors) {
        Ok(Some(record)) => (
            record.line,
            record.iter().map(<[u8]>::to_vec).collect::<Vec<_>>(),
        ),
        Ok(None) => return None,
        Err(failure) => {
            errors.push(failure.at(name, records.line()));
            return None;
        }
    };
    let header_text: Vec<Option<&str>> = header
        .iter()
        .map(|cell| {
            let text = std::str::from_utf8(cell).ok();
            if text.is_none() {
                errors.push(
                    InputError::new(
                        ErrorKind::Encoding,
                        name,
                        header_line,
                        "header is not valid UTF-8",
                    )
                    .column("header")
                    .value(String::from_utf8_lossy(cell)),
                );
            }
            text
        })
        .collect();
    let mut table = Table::new(
        name,
        header_line,
        &header_text,
        keep,
        strictness,
        split,
        errors,
    );
    if table.case_file {
        return None;
    }
    loop {
        let (record, ragged) = match body_record(&mut records, name, table.targets.len(), errors) {
            Ok(BodyRecord::Row(record)) => (record, false),
            Ok(BodyRecord::Ragged(record)) => (record, true),
            Ok(BodyRecord::Skipped) => continue,
            Ok(BodyRecord::End) => break,
            Err(failure) => {
                errors.push_final(failure.at(name, records.line()));
                break;
            }
        };
        table.file.records += 1;
        let line = record.line;
        // A golden row's values are checked even where its structure is wrong, so that every
        // problem is listed in one run; a cell past the header's end has no column to check.
        let check = |targets: &[Option<Column>], errors: &mut InputErrors| {
            if strictness == Strictness::Golden {
                let cells = record.iter().zip(targets).filter_map(|(cell, target)| {
                    let text = std::str::from_utf8(cell).ok()?;
                    Some(((*target)?, spreadsheet_value(text)))
                });
                check_golden_cells(name, line, cells, errors);
            }
        };
        if let Some(texts) = record.texts() {
            add_texts(&mut table, name, line, texts, ragged, strictness, errors);
            continue;
        }
        if ragged {
            check(&table.targets, errors);
            continue;
        }
        let mut cells = Vec::with_capacity(record.len());
        let mut row_ok = true;
        for (cell, target) in record.iter().zip(&table.targets) {
            match std::str::from_utf8(cell) {
                Ok(text) => cells.push(spreadsheet_value(text)),
                Err(_) => {
                    let column = target.map_or("header", |c| c.name());
                    errors.push(
                        InputError::new(ErrorKind::Encoding, name, line, "not valid UTF-8")
                            .column(column)
                            .value(String::from_utf8_lossy(cell)),
                    );
                    row_ok = false;
                }
            }
        }
        if row_ok {
            table.add(line, &cells, errors);
        }
        check(&table.targets, errors);
    }
    table.file.read_as = Some(super::ReadAs::Csv {
        delimiter,
        utf16: false,
    });
    Some(table.file)
}

/// Adds a record whose every cell is text (nearly every one: no cell checked or copied alone),
/// unless `ragged`, then checks a golden row's values, as [`read`] does for any record.
fn add_texts(
    table: &mut Table,
    name: &str,
    line: u64,
    texts: RecordTexts<'_>,
    ragged: bool,
    strictness: Strictness,
    errors: &mut InputErrors,
) {
    if !ragged {
        let cells: Vec<&str> = texts.iter().map(spreadsheet_value).collect();
        table.add(line, &cells, errors);
    }
    if strictness == Strictness::Golden {
        let cells = texts
            .iter()
            .zip(&table.targets)
            .filter_map(|(text, target)| Some(((*target)?, spreadsheet_value(text))));
        check_golden_cells(name, line, cells, errors);
    }
}
