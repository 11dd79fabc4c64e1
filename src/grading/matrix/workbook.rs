//! A matrix as a workbook's sheet (`.xlsx`, `.xlsm`, `.ods`): the first row with a cell is
//! the header; errors are located as `file.xlsx[Sheet1]:ROW`.

use super::rows::Split;
use super::{check_golden_cells, MatrixFile, MatrixRead, Strictness, Table};
use crate::input::workbook::for_each_row;
use crate::input::InputError;

/// Reads a workbook's sheet: the first row with a cell is the header; errors are located as
/// `file.xlsx[Sheet1]:ROW`.
pub(super) fn read(
    bytes: &[u8],
    name: &str,
    how: &MatrixRead<'_>,
    keep: &[bool],
    split: Split<'_>,
    errors: &mut Vec<InputError>,
) -> Option<MatrixFile> {
    let strictness = how.strictness;
    let mut table: Option<Table> = None;
    let mut row_errors = Vec::new();
    let read = for_each_row(
        bytes,
        name,
        how.options.sheet.as_deref(),
        &mut |located, line, cells| {
            if cells.iter().all(|cell| cell.trim().is_empty()) {
                return;
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
            let width = cells
                .iter()
                .rposition(|cell| !cell.trim().is_empty())
                .map_or(0, |last| last + 1);
            super::cap_problems(&mut row_errors, &mut table.file.unlisted);
            if width > table.targets.len() {
                row_errors.push(InputError::new(
                    located,
                    line,
                    format!(
                        "the row has {width} cells; the header has {}",
                        table.targets.len()
                    ),
                ));
            } else {
                table.add(line, cells.to_vec(), &mut row_errors);
            }
            if strictness == Strictness::Golden {
                // A sheet's row ends at its last cell: the columns after it are empty cells.
                let cells = table
                    .targets
                    .iter()
                    .enumerate()
                    .filter_map(|(index, target)| {
                        Some(((*target)?, cells.get(index).map_or("", String::as_str)))
                    });
                check_golden_cells(located, line, cells, &mut row_errors);
            }
        },
    );
    errors.append(&mut row_errors);
    if let Err(e) = read {
        errors.push(e);
        // With the rows read so far (see `json::read`).
        return table.map(|table| table.file);
    }
    if table.is_none() {
        errors.push(InputError::new(name, 0, "empty sheet: no header row"));
    }
    table.map(|table| table.file)
}
