//! The matrix as a table for people (comfy-table), sized to the terminal when there is one.

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{Cell, Color, ContentArrangement, Table};

use crate::lease::Decision;
use crate::matrix::{MatrixRow, COLUMNS};
use crate::output::escape_controls;

/// Renders the matrix: every column, one row per case, the decision coloured when `color`.
pub fn matrix_table(rows: &[MatrixRow], extra: &[(&str, Vec<String>)], color: bool) -> String {
    let mut table = Table::new();
    table
        .load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    if !color {
        table.force_no_tty();
    }
    let mut header: Vec<Cell> = COLUMNS.iter().map(Cell::new).collect();
    header.extend(extra.iter().map(|(name, _)| Cell::new(name)));
    table.set_header(header);
    for (index, row) in rows.iter().enumerate() {
        // Cells quote input (case ids, holders, progress values): escaped for the terminal.
        let mut cells: Vec<Cell> = row
            .cells()
            .into_iter()
            .map(|cell| Cell::new(escape_controls(cell.as_ref())))
            .collect();
        if color {
            let colour = decision_colour(row.decision);
            cells[21] = Cell::new(row.decision.as_str()).fg(colour);
        }
        cells.extend(
            extra
                .iter()
                .map(|(_, values)| Cell::new(escape_controls(&values[index]))),
        );
        table.add_row(cells);
    }
    let mut text = table.to_string();
    text.push('\n');
    text
}

fn decision_colour(decision: Decision) -> Color {
    match decision {
        Decision::Success | Decision::Active => Color::Green,
        Decision::PendingAck => Color::Cyan,
        Decision::Failed | Decision::Cancelled => Color::Yellow,
        Decision::OwnershipConflict => Color::Red,
        Decision::ReconciliationRequired | Decision::Expired | Decision::AckTimeout => {
            Color::Magenta
        }
    }
}
