//! A table drawn a page at a time (comfy-table) at column widths measured over every page:
//! `grade`'s and `check`'s tables of cases and of submissions. Fitted to a width, a column is
//! never narrower than its widest word, so no code or path is split inside a word; when the
//! words cannot fit side by side, each row becomes a record, a line per column.

use std::io::{self, Write};

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{Cell, ColumnConstraint, ContentArrangement, Table, Width};

/// Rows drawn at once: a class table of any length needs no more memory than a page.
const PAGE_ROWS: usize = 512;

fn new_table(color: bool) -> Table {
    let mut table = Table::new();
    table
        .load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled);
    if color {
        // Also to a pipe or a file, for `--color always`.
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    table
}

/// How [`write_paged`] draws a table.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PagedStyle {
    /// Colour the cells that ask for it.
    pub color: bool,
    /// Write nothing for a table without rows (rather than its header).
    pub skip_empty: bool,
    /// The widest the table may be (`COLUMNS`, a terminal); `None`: no limit.
    pub width: Option<u16>,
}

/// Writes a table of `header` and the rows `rows` yields (called twice), a page at a time:
/// the first pass measures every column as comfy-table does, and each page is drawn at those
/// widths, so that the pages join (their inner borders dropped) into the table comfy-table
/// draws whole, without holding more than a page of it. Too wide for `style.width`, the widest
/// columns are narrowed a character at a time until it fits, but never below the widest word
/// of any of their cells or their header, so that comfy-table wraps cells at spaces only and
/// never splits a code (`cancel_acknowledged_no_result`) or a path inside a word. When even
/// that cannot fit, each row is written as a record instead, a line per column
/// ([`write_records`]). Writes nothing when `rows` is empty and `style.skip_empty`; returns
/// whether it wrote. Every line ends in a line break.
pub(crate) fn write_paged<I>(
    out: &mut dyn Write,
    header: &[&str],
    style: PagedStyle,
    rows: impl Fn() -> I,
) -> io::Result<bool>
where
    I: Iterator<Item = io::Result<Vec<Cell>>>,
{
    let mut widths: Vec<u16> = Vec::new();
    // The widest word of each column: the narrowest it can be without splitting one.
    let mut floor: Vec<u16> = header.iter().map(|h| longest_word(h)).collect();
    let mut count = 0usize;
    let mut measure = |page: Vec<Vec<Cell>>| {
        let mut table = Table::new();
        table.set_header(header.to_vec());
        for row in page {
            for (index, cell) in row.iter().enumerate() {
                if let Some(floor) = floor.get_mut(index) {
                    *floor = (*floor).max(longest_word(&cell.content()));
                }
            }
            table.add_row(row);
        }
        for (index, width) in table.column_max_content_widths().into_iter().enumerate() {
            match widths.get_mut(index) {
                Some(max) => *max = (*max).max(width),
                None => widths.push(width),
            }
        }
    };
    let mut page = Vec::with_capacity(PAGE_ROWS);
    for row in rows() {
        count += 1;
        page.push(row?);
        if page.len() == PAGE_ROWS {
            measure(std::mem::take(&mut page));
        }
    }
    measure(page);
    if count == 0 && style.skip_empty {
        return Ok(false);
    }
    if let Some(width) = style.width {
        // Each column has a space either side and a rule after it, and there is one before.
        let frame = 3 * widths.len() + 1;
        let needed: usize = floor.iter().map(|&w| usize::from(w.max(1))).sum();
        if needed + frame > usize::from(width) {
            return write_records(out, header, usize::from(width), rows).map(|()| true);
        }
        while widths.iter().map(|&w| usize::from(w)).sum::<usize>() + frame > usize::from(width) {
            let Some(widest) = (0..widths.len())
                .filter(|&i| widths[i] > floor[i].max(1))
                .max_by_key(|&i| (widths[i], std::cmp::Reverse(i)))
            else {
                break;
            };
            widths[widest] -= 1;
        }
    }
    let color = style.color;
    // Draws a page; returns its bottom border, written only after the last page.
    let draw = |page: Vec<Vec<Cell>>, first: bool, out: &mut dyn Write| -> io::Result<String> {
        let mut table = new_table(color);
        if first {
            table.set_header(header.to_vec());
        }
        for row in page {
            table.add_row(row);
        }
        // The width comfy-table gives a column is its content's and the padding either side.
        table.set_constraints(
            widths
                .iter()
                .map(|&w| ColumnConstraint::Absolute(Width::Fixed(w.saturating_add(2)))),
        );
        let text = table.to_string();
        let lines: Vec<&str> = text.split('\n').collect();
        let (last, body) = lines.split_last().expect("a table has a border");
        for line in &body[usize::from(!first)..] {
            writeln!(out, "{line}")?;
        }
        Ok((*last).to_owned())
    };
    let mut bottom = None;
    let mut page = Vec::with_capacity(PAGE_ROWS);
    for row in rows() {
        page.push(row?);
        if page.len() == PAGE_ROWS {
            bottom = Some(draw(std::mem::take(&mut page), bottom.is_none(), out)?);
        }
    }
    if !page.is_empty() || bottom.is_none() {
        bottom = Some(draw(page, bottom.is_none(), out)?);
    }
    let bottom = bottom.unwrap_or_default();
    writeln!(out, "{bottom}")?;
    Ok(true)
}

/// The display width of the widest word (between spaces and line breaks) of `text`.
fn longest_word(text: &str) -> u16 {
    text.split([' ', '\n'])
        .map(crate::terminal::display_width)
        .max()
        .unwrap_or(0)
        .try_into()
        .unwrap_or(u16::MAX)
}

/// The rows as records, for a table whose words cannot fit side by side in `width`: a line
/// per column, `name  value`, the value wrapped at spaces under itself (a word wider than
/// the line stays whole), a blank line between rows. Colour is left off: what a cell says is
/// there in its words.
fn write_records<I>(
    out: &mut dyn Write,
    header: &[&str],
    width: usize,
    rows: impl Fn() -> I,
) -> io::Result<()>
where
    I: Iterator<Item = io::Result<Vec<Cell>>>,
{
    let name_width = header
        .iter()
        .map(|h| crate::terminal::display_width(h))
        .max()
        .unwrap_or(0);
    let indent = " ".repeat(name_width + 2);
    for (index, row) in rows().enumerate() {
        if index > 0 {
            writeln!(out)?;
        }
        for (name, cell) in header.iter().zip(row?) {
            let content = cell.content();
            for (at, line) in content.split('\n').enumerate() {
                let label = if at == 0 { *name } else { "" };
                let line = format!("{label:<name_width$}  {line}");
                writeln!(
                    out,
                    "{}",
                    crate::terminal::wrap(&line, width, &indent).trim_end()
                )?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use comfy_table::Color;

    /// The whole table as comfy-table draws it in one piece: what pages must join into.
    fn whole(header: &[&str], rows: &[Vec<String>], color: bool) -> String {
        let mut table = Table::new();
        table.load_preset(UTF8_FULL_CONDENSED);
        if color {
            table.enforce_styling();
        }
        table.force_no_tty();
        table.set_header(header.to_vec());
        for (index, row) in rows.iter().enumerate() {
            let mut cells: Vec<Cell> = row.iter().map(Cell::new).collect();
            if color && index % 3 == 0 {
                cells[1] = Cell::new(&row[1]).fg(Color::Red);
            }
            table.add_row(cells);
        }
        format!("{table}\n")
    }

    #[test]
    fn pages_join_into_the_whole_table() {
        // Three pages and a bit; the widest cells and a multi-line one late in the table.
        let rows: Vec<Vec<String>> = (0..PAGE_ROWS * 3 + 7)
            .map(|i| {
                let details = match i {
                    1500 => "a much longer line than any before it — with a dash".to_owned(),
                    1530 => "two\nlines, the second wider".to_owned(),
                    _ => "x".repeat(i % 17),
                };
                vec![format!("case-{i}"), format!("f.csv:{}", i + 2), details]
            })
            .collect();
        let header = ["case", "where", "details"];
        for color in [false, true] {
            let mut out = Vec::new();
            let cells = || {
                rows.iter().enumerate().map(|(index, row)| {
                    let mut cells: Vec<Cell> = row.iter().map(Cell::new).collect();
                    if color && index % 3 == 0 {
                        cells[1] = Cell::new(&row[1]).fg(Color::Red);
                    }
                    Ok(cells)
                })
            };
            let style = PagedStyle {
                color,
                skip_empty: true,
                width: None,
            };
            assert!(write_paged(&mut out, &header, style, cells).unwrap());
            let paged = String::from_utf8(out).unwrap();
            assert_eq!(paged, whole(&header, &rows, color), "color {color}");
        }
        // No rows: nothing, or the header alone as comfy-table draws it.
        let mut out = Vec::new();
        let mut style = PagedStyle {
            color: false,
            skip_empty: true,
            width: None,
        };
        assert!(!write_paged(&mut out, &header, style, std::iter::empty).unwrap());
        assert!(out.is_empty());
        style.skip_empty = false;
        assert!(write_paged(&mut out, &header, style, std::iter::empty).unwrap());
        assert_eq!(String::from_utf8(out).unwrap(), whole(&header, &[], false));
    }

    #[test]
    fn a_table_too_wide_is_narrowed_to_fit() {
        let rows: Vec<Vec<String>> = (0..PAGE_ROWS + 40)
            .map(|i| {
                let details = format!("{} words to wrap", "many ".repeat(i % 20));
                vec![format!("case-{i}"), details]
            })
            .collect();
        let mut out = Vec::new();
        let style = PagedStyle {
            color: false,
            skip_empty: true,
            width: Some(40),
        };
        let cells = || {
            rows.iter()
                .map(|row| Ok(row.iter().map(Cell::new).collect()))
        };
        write_paged(&mut out, &["case", "details"], style, cells).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() > rows.len() + 4, "long details wrap");
        let rule = |line: &str| line.chars().position(|c| c == '┆' || c == '╪' || c == '┬');
        for line in &lines {
            assert!(line.chars().count() <= 40, "{line:?}");
        }
        assert!(lines[1..lines.len() - 1]
            .iter()
            .all(|line| rule(line) == rule(lines[1])));
    }
}
