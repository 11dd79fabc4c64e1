//! A matrix as a workbook's sheet (`.xlsx`, `.xlsm`, `.ods`): the first row with a cell is
//! the header; errors are located as `file.xlsx[Sheet1]:ROW`.

use super::rows::Split;
use super::{check_golden_cells, MatrixFile, MatrixRead, Strictness, Table};
use crate::grading::columns::{column_from_header, Column};
use crate::input::workbook::{first_rows, for_each_row, SheetStart};
use crate::input::{ErrorKind, InputError, InputErrors};
use crate::sanitize::spreadsheet_value;

/// How much of a sheet's first row a message quotes.
const QUOTED_CHARS: usize = 40;

/// Whether a sheet's first row is a matrix's header: a cell of it names `case_id`.
fn is_matrix_header(cells: &[String]) -> bool {
    cells
        .iter()
        .any(|cell| column_from_header(cell) == Some(Column::CaseId))
}

/// What a sheet starts with, for a message: `empty`, or its first cells' text, shortened.
fn starts_with(first: &Option<Vec<String>>) -> String {
    let Some(cells) = first else {
        return "is empty".to_owned();
    };
    let text = cells
        .iter()
        .filter(|cell| !cell.trim().is_empty())
        .map(|cell| cell.trim())
        .collect::<Vec<_>>()
        .join(", ");
    let mut shown: String = text.chars().take(QUOTED_CHARS).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    format!("starts with {shown:?}")
}

/// The sheet of a learner's workbook that holds the matrix: the one sheet whose first row
/// names `case_id` (`None` for the first sheet, when it is the only one and holds no matrix:
/// reading it says what is wrong), or why there is not one.
fn matrix_sheet(bytes: &[u8], name: &str) -> Result<Option<String>, InputError> {
    // A workbook that cannot be looked at is read from its first sheet: that reading says,
    // located, what is wrong with it.
    let Ok(sheets) = first_rows(std::io::Cursor::new(bytes), name) else {
        return Ok(None);
    };
    let matrices: Vec<&str> = sheets
        .iter()
        .filter(|sheet| sheet.first_row.as_deref().is_some_and(is_matrix_header))
        .map(|sheet| sheet.name.as_str())
        .collect();
    const HEADER: &str = "a first row naming case_id and the graded columns (decision, reason)";
    match matrices.as_slice() {
        [one] => Ok(Some((*one).to_owned())),
        [] if sheets.len() <= 1 => {
            let Some(SheetStart {
                name: sheet,
                first_row: first,
            }) = sheets.first()
            else {
                return Ok(None);
            };
            Err(InputError::new(ErrorKind::Header,
                &format!("{name}, sheet {sheet}"),
                0,
                format!(
                    "not a matrix: the sheet {} and has no matrix header; the matrix needs {HEADER}",
                    starts_with(first)
                ),
            ))
        }
        [] => {
            let listed: Vec<String> = sheets
                .iter()
                .map(|sheet| format!("sheet {} {}", sheet.name, starts_with(&sheet.first_row)))
                .collect();
            Err(InputError::new(
                ErrorKind::Missing,
                name,
                0,
                format!(
                    "no sheet holds a matrix ({}); put the matrix on one sheet, with {HEADER}",
                    listed.join("; ")
                ),
            ))
        }
        several => Err(InputError::new(
            ErrorKind::Header,
            name,
            0,
            format!(
                "{} sheets hold a matrix header ({}): which one is the answer? Keep the matrix \
                 on one sheet, or clear the header of the others",
                several.len(),
                several.join(", ")
            ),
        )),
    }
}

/// Reads a workbook's sheet: the first row with a cell is the header; errors are located as
/// `file.xlsx[Sheet1]:ROW`.
pub(super) fn read(
    bytes: &[u8],
    name: &str,
    how: &MatrixRead<'_>,
    keep: &[bool],
    split: Split<'_>,
    errors: &mut InputErrors,
) -> Option<MatrixFile> {
    let strictness = how.strictness;
    // A learner's workbook is read from the sheet that holds the matrix; a golden file's
    // from its first, as its author saved it.
    let chosen = match (&how.options.sheet, strictness) {
        (Some(sheet), _) => Some(sheet.clone()),
        (None, Strictness::Submission) => match matrix_sheet(bytes, name) {
            Ok(sheet) => sheet,
            Err(error) => {
                errors.push(error);
                return None;
            }
        },
        (None, Strictness::Golden) => None,
    };
    let mut table: Option<Table> = None;
    // The sheet read, by name, from its rows' location (`file.xlsx[Sheet]`).
    let mut sheet: Option<String> = None;
    let mut row_errors = InputErrors::new();
    let read = for_each_row(
        bytes,
        name,
        chosen.as_deref(),
        &mut |located, line, cells| {
            if cells.iter().all(|cell| cell.trim().is_empty()) {
                return;
            }
            if sheet.is_none() {
                sheet = located
                    .strip_prefix(name)
                    .and_then(|rest| rest.strip_prefix('['))
                    .and_then(|rest| rest.strip_suffix(']'))
                    .map(str::to_owned);
            }
            let Some(table) = &mut table else {
                let header: Vec<Option<&str>> = cells.iter().map(|c| Some(c.as_str())).collect();
                table = Some(Table::new(
                    located,
                    line,
                    &header,
                    keep,
                    strictness,
                    split,
                    &mut row_errors,
                ));
                return;
            };
            if table.case_file {
                return;
            }
            table.file.records += 1;
            let width = cells
                .iter()
                .rposition(|cell| !cell.trim().is_empty())
                .map_or(0, |last| last + 1);
            if width > table.targets.len() {
                row_errors.push(InputError::new(
                    ErrorKind::Syntax,
                    located,
                    line,
                    format!(
                        "the row has {width} cells; the header has {}",
                        table.targets.len()
                    ),
                ));
            } else {
                let values: Vec<&str> = cells.iter().map(|cell| spreadsheet_value(cell)).collect();
                table.add(line, &values, &mut row_errors);
            }
            if strictness == Strictness::Golden {
                // A sheet's row ends at its last cell: the columns after it are empty cells.
                let cells = table
                    .targets
                    .iter()
                    .enumerate()
                    .filter_map(|(index, target)| {
                        let cell = cells.get(index).map_or("", String::as_str);
                        Some(((*target)?, spreadsheet_value(cell)))
                    });
                check_golden_cells(located, line, cells, &mut row_errors);
            }
        },
    );
    errors.append(row_errors);
    if let Err(e) = read {
        errors.push_final(e);
        // With the rows read so far (see `json::read`).
        return table.map(|table| with_sheet(table.file, sheet));
    }
    if table.is_none() {
        errors.push(InputError::new(
            ErrorKind::Header,
            name,
            0,
            "empty sheet: no header row",
        ));
    }
    table
        .filter(|table| !table.case_file)
        .map(|table| with_sheet(table.file, sheet))
}

/// The file, read from `sheet`.
fn with_sheet(mut file: MatrixFile, sheet: Option<String>) -> MatrixFile {
    file.read_as = sheet.map(super::ReadAs::Sheet);
    file
}
