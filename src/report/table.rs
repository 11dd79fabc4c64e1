//! The matrix as a table for people (comfy-table), sized to the terminal: by default the
//! columns that say what was decided and why, rendered in pages of fixed column widths so that
//! a table of millions of cases needs no more memory than a page. Codes are never split inside
//! a word: ids and values wrap first, then the findings break between findings and after a
//! `_`, `=` or `;`, and only then the other codes after a `_`. When the chosen columns cannot
//! fit even so, each case is written as a vertical record instead.

use std::io::{self, Write};

use comfy_table::{Cell, Color, ColumnConstraint, ContentArrangement, Table, Width};

use crate::lease::Decision;
use crate::matrix::{Column, ValueKind, COLUMNS};
use crate::output::escape_controls;

/// The derived column of the default table: the findings (spec section 5) that are set.
pub const FINDINGS_COLUMN: &str = "findings";

/// comfy-table's UTF8_NO_BORDERS without the rules between rows: a header rule and rules
/// between columns only, so that a case takes one line when it fits.
const PRESET: &str = "     ═╪ ┆          ";

/// Rows rendered at once; the first page also sets the column widths for the whole table.
const PAGE_ROWS: usize = 256;

/// The narrowest a wrappable column (ids, values) is squeezed to.
const MIN_WRAPPED_WIDTH: usize = 8;

/// The narrowest a column of sentences (`detail`) is squeezed to: narrower, a sentence takes a
/// line for every word or two, and a case reads better as a vertical record.
const MIN_SENTENCE_WIDTH: usize = 30;

/// Which columns a matrix table shows (`--columns`, `--wide`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableColumns {
    /// `case_id`, `decision`, `reason`, the findings set, and any extra column (`detail`).
    Default,
    /// Every matrix column and every extra column.
    All,
    /// These columns, in this order: matrix column names, `findings`, or extra column names.
    Named(Vec<String>),
}

impl TableColumns {
    /// Parses `--columns`: `default`, `all`, or names separated by commas.
    pub fn parse(text: &str) -> Result<TableColumns, String> {
        match text.trim() {
            "default" => return Ok(TableColumns::Default),
            "all" => return Ok(TableColumns::All),
            _ => {}
        }
        let names: Vec<String> = text
            .split(',')
            .map(|name| name.trim().to_owned())
            .filter(|name| !name.is_empty())
            .collect();
        if names.is_empty() {
            return Err("name at least one column, or `all`".to_owned());
        }
        Ok(TableColumns::Named(names))
    }
}

/// How a table is drawn.
#[derive(Clone, Debug)]
pub struct TableStyle {
    /// The columns shown.
    pub columns: TableColumns,
    /// Colour the decision.
    pub color: bool,
    /// The widest the table may be; `None`: no limit.
    pub width: Option<u16>,
}

impl TableStyle {
    /// The style for `out`: coloured by `terminal::use_color`, as wide as
    /// `terminal::table_width` allows.
    pub fn for_output(columns: TableColumns, out: &crate::output::Output) -> TableStyle {
        TableStyle {
            columns,
            color: crate::terminal::use_color(out.is_terminal()),
            width: Some(crate::terminal::table_width(out.is_terminal())),
        }
    }
}

/// Where a shown column's cells come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// A matrix column.
    Matrix(Column),
    /// The findings that are set.
    Findings,
    /// An extra column after `reason`, by index.
    Extra(usize),
}

struct Shown {
    name: String,
    source: Source,
    /// The longest value the column can hold if it holds codes (broken only after a `_`, and
    /// only when nothing else is left to narrow); `None` for ids, values and sentences, which
    /// may wrap anywhere.
    code_width: Option<usize>,
    /// The longest part of any of the column's codes when they are broken after each `_`.
    code_part_width: Option<usize>,
    /// Whether the column holds timestamps.
    timestamp: bool,
}

fn longest(codes: impl Iterator<Item = &'static str>) -> usize {
    codes.map(str::len).max().unwrap_or(0)
}

/// The codes a column can hold, when it holds words of the contract's.
fn codes(column: Column) -> Option<Vec<&'static str>> {
    match column.kind() {
        ValueKind::Code => column.codes(),
        ValueKind::Boolean => Some(vec!["false", "true"]),
        ValueKind::Text
        | ValueKind::Integer
        | ValueKind::Duration
        | ValueKind::Timestamp
        | ValueKind::List => None,
    }
}

/// The longest value of a column of codes; numbers are never broken (a width of 1 marks
/// them as unbreakable).
fn code_width(column: Column) -> Option<usize> {
    match column.kind() {
        ValueKind::Integer | ValueKind::Duration => Some(1),
        ValueKind::Text
        | ValueKind::Timestamp
        | ValueKind::Code
        | ValueKind::Boolean
        | ValueKind::List => codes(column).map(|codes| longest(codes.into_iter())),
    }
}

/// The longest part of a column's codes broken after each `_`: the narrowest the column can
/// be without splitting a word. Numbers have no parts: they keep their width.
fn code_part_width(column: Column) -> Option<usize> {
    codes(column).map(|codes| longest(codes.into_iter().flat_map(|c| c.split_inclusive('_'))))
}

/// Where a finding may break: after a `_` of its name, its `=`, or a `;` between numbers.
fn finding_break(c: char) -> bool {
    matches!(c, '_' | '=' | ';')
}

/// The longest part of the findings' names broken at [`finding_break`] (`generation=`).
fn finding_name_part_width() -> usize {
    Column::all()
        .filter_map(|column| match column.kind() {
            ValueKind::List => Some(format!("{}=", column.name())),
            ValueKind::Boolean => Some(column.name().to_owned()),
            _ => None,
        })
        .flat_map(|name| {
            name.split_inclusive(finding_break)
                .map(str::len)
                .collect::<Vec<_>>()
        })
        .max()
        .unwrap_or(0)
}

/// The findings cell: each finding column (a list or a boolean) that is set, by name (a
/// list with its numbers).
pub fn findings(cells: &[String]) -> String {
    let mut parts = Vec::new();
    for (column, cell) in Column::all().zip(cells) {
        match column.kind() {
            ValueKind::List if !cell.is_empty() => {
                parts.push(format!("{}={cell}", column.name()));
            }
            ValueKind::Boolean if cell == "true" => parts.push(column.name().to_owned()),
            _ => {}
        }
    }
    parts.join(", ")
}

/// The narrowest a header can be: its longest part when broken after each `_`.
fn header_min(name: &str) -> usize {
    name.split_inclusive('_')
        .map(|part| part.chars().count())
        .max()
        .unwrap_or(0)
}

/// A header in `width` characters: broken after `_`, parts packed greedily into lines.
fn wrap_header(name: &str, width: usize) -> String {
    let mut text = String::new();
    let mut line = 0;
    for part in name.split_inclusive('_') {
        let n = part.chars().count();
        if line > 0 && line + n > width {
            text.push('\n');
            line = 0;
        }
        text.push_str(part);
        line += n;
    }
    text
}

/// A cell in a column `width` wide: a timestamp that does not fit is broken before its `T`;
/// findings are put a line each (or as many as fit on a line), a finding too long for a line
/// broken at [`finding_break`]; a code is broken after a `_`; an id or a value after a `-`,
/// `_`, `.`, `/`, `:` or space where it can, else anywhere. Extra columns (`detail`'s
/// sentences) are left to comfy-table, which wraps them at spaces.
fn fit_cell(column: &Shown, text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    if column.timestamp {
        if let Some(at) = text.find('T') {
            return format!("{}\n{}", &text[..at], &text[at..]);
        }
    }
    if column.source == Source::Findings {
        return fit_findings(text, width);
    }
    if column.code_width.is_some() {
        return wrap_after(text, width, |c| c == '_');
    }
    if let Source::Matrix(_) = column.source {
        return wrap_after(text, width, |c| {
            matches!(c, '-' | '_' | '.' | '/' | ':' | ' ')
        });
    }
    text.to_owned()
}

/// `text` in lines of at most `width` characters, broken after the characters `breaks`
/// accepts (a part longer than a line, which only a number can be, is cut at the width).
fn wrap_after(text: &str, width: usize, breaks: impl Fn(char) -> bool) -> String {
    let width = width.max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut line_len = 0;
    for part in text.split_inclusive(&breaks) {
        let mut part = part;
        let mut n = part.chars().count();
        if line_len > 0 && line_len + n > width {
            lines.push(std::mem::take(&mut line));
            line_len = 0;
        }
        while n > width {
            let cut = part
                .char_indices()
                .nth(width)
                .map_or(part.len(), |(at, _)| at);
            lines.push(part[..cut].to_owned());
            part = &part[cut..];
            n -= width;
        }
        line.push_str(part);
        line_len += n;
    }
    if line_len > 0 || lines.is_empty() {
        lines.push(line);
    }
    lines.join("\n")
}

/// The findings cell (`a, b, c`) in lines of at most `width` characters: as many findings to
/// a line as fit, a line break in place of a `, `, and a finding longer than a line broken at
/// [`finding_break`].
fn fit_findings(text: &str, width: usize) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for finding in text.split(", ") {
        let n = finding.chars().count();
        if !line.is_empty() && line.chars().count() + 2 + n <= width {
            line.push_str(", ");
            line.push_str(finding);
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        if n <= width {
            line.push_str(finding);
        } else {
            lines.push(wrap_after(finding, width, finding_break));
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines.join("\n")
}

/// The matrix column a shown column is, if it is one.
fn matrix_column(source: Source) -> Option<Column> {
    match source {
        Source::Matrix(column) => Some(column),
        Source::Findings | Source::Extra(_) => None,
    }
}

fn resolve(columns: &TableColumns, extra: &[String]) -> Result<Vec<Shown>, String> {
    let source_of = |name: &str| -> Option<Source> {
        if let Some(column) = Column::from_name(name) {
            Some(Source::Matrix(column))
        } else if name == FINDINGS_COLUMN {
            Some(Source::Findings)
        } else {
            extra.iter().position(|e| e == name).map(Source::Extra)
        }
    };
    let names: Vec<String> = match columns {
        TableColumns::Default => [Column::CaseId, Column::Decision, Column::Reason]
            .iter()
            .map(|column| column.name().to_owned())
            .chain([FINDINGS_COLUMN.to_owned()])
            .chain(extra.iter().cloned())
            .collect(),
        TableColumns::All => COLUMNS
            .iter()
            .map(|s| (*s).to_owned())
            .chain(extra.iter().cloned())
            .collect(),
        TableColumns::Named(names) => names.clone(),
    };
    let mut shown = Vec::new();
    let mut unknown = Vec::new();
    for name in names {
        match source_of(&name) {
            Some(source) => shown.push(Shown {
                code_width: matrix_column(source).and_then(code_width),
                code_part_width: matrix_column(source).and_then(code_part_width),
                timestamp: matrix_column(source).map(Column::kind) == Some(ValueKind::Timestamp),
                name,
                source,
            }),
            None => unknown.push(name),
        }
    }
    if unknown.is_empty() {
        Ok(shown)
    } else {
        Err(format!(
            "--columns: no such column: {} (the matrix columns, `{FINDINGS_COLUMN}`{}, or `all`)",
            unknown.join(", "),
            extra.iter().map(|e| format!(", `{e}`")).collect::<String>()
        ))
    }
}

/// How the table is laid out, fixed by the first page.
enum TableLayout {
    /// Columns of these content widths, with a space after each column's content or not.
    Columns(Vec<usize>, usize),
    /// One record per case, a line per column: the columns cannot fit side by side.
    Vertical,
}

/// Writes matrix rows as a table, a page at a time.
pub struct TableWriter<W: Write> {
    out: W,
    shown: Vec<Shown>,
    style: TableStyle,
    page: Vec<Vec<String>>,
    layout: Option<TableLayout>,
}

impl<W: Write> TableWriter<W> {
    /// A table with `extra` columns after the matrix's (their names); fails on an unknown
    /// column name in `style.columns`.
    pub fn new(out: W, style: TableStyle, extra: &[String]) -> Result<TableWriter<W>, String> {
        let shown = resolve(&style.columns, extra)?;
        Ok(TableWriter {
            out,
            shown,
            style,
            page: Vec::with_capacity(PAGE_ROWS),
            layout: None,
        })
    }

    /// Adds one case: its 23 matrix cells (as CSV text) and its extra cells.
    pub fn write(&mut self, cells: &[String], extra: &[String]) -> io::Result<()> {
        // Ids and values come from case files and reach a terminal: control characters are
        // escaped before widths are measured.
        let row = self
            .shown
            .iter()
            .map(|column| match column.source {
                Source::Matrix(column) => escape_controls(&cells[column.index()]).into_owned(),
                Source::Findings => findings(cells),
                Source::Extra(index) => escape_controls(&extra[index]).into_owned(),
            })
            .collect();
        self.page.push(row);
        if self.page.len() == PAGE_ROWS {
            self.flush_page(false)?;
        }
        Ok(())
    }

    /// Writes what is left; returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.flush_page(true)?;
        self.out.flush()?;
        Ok(self.out)
    }

    /// The layout, from the first page; `whole` when that page is the whole table (a later
    /// page cannot hold a longer code, so codes need only the width of those shown).
    fn decide_layout(&self, whole: bool) -> TableLayout {
        let natural: Vec<usize> = self
            .shown
            .iter()
            .enumerate()
            .map(|(index, column)| {
                let content = self
                    .page
                    .iter()
                    .map(|row| row[index].chars().count())
                    .max()
                    .unwrap_or(0);
                content
                    .max(header_min(&column.name))
                    .max(if whole {
                        0
                    } else {
                        column.code_width.unwrap_or(0)
                    })
                    .max(1)
            })
            .collect();
        let Some(width) = self.style.width else {
            return TableLayout::Columns(natural, 1);
        };
        let width = usize::from(width);
        let n = self.shown.len();
        // The narrowest each column may be, in three steps, each tried only when the one before
        // cannot fit: (1) ids and values wrapped, every code and finding whole; (2) findings
        // broken after a `_`, `=` or `;`; (3) every code broken after a `_`. No step splits a
        // word of a code.
        let whole: Vec<usize> = self
            .shown
            .iter()
            .enumerate()
            .zip(&natural)
            .map(|((index, column), &natural)| match column.code_width {
                // A code keeps its width.
                Some(_) => natural,
                None if column.source == Source::Findings => {
                    let longest_finding = self
                        .page
                        .iter()
                        .flat_map(|row| row[index].split(", "))
                        .map(|finding| finding.chars().count())
                        .max()
                        .unwrap_or(0);
                    natural.min(longest_finding.max(header_min(&column.name)))
                }
                None if column.timestamp => natural.min("2026-01-01".len()),
                None if matches!(column.source, Source::Extra(_)) => {
                    natural.min(MIN_SENTENCE_WIDTH.max(header_min(&column.name)))
                }
                None => natural.min(MIN_WRAPPED_WIDTH.max(header_min(&column.name))),
            })
            .collect();
        let findings_broken: Vec<usize> = self
            .shown
            .iter()
            .enumerate()
            .zip(&whole)
            .map(|((index, column), &whole)| {
                if column.source != Source::Findings {
                    return whole;
                }
                let longest_part = self
                    .page
                    .iter()
                    .flat_map(|row| row[index].split(", "))
                    .flat_map(|finding| finding.split_inclusive(finding_break))
                    .map(|part| part.chars().count())
                    .max()
                    .unwrap_or(0);
                whole.min(
                    longest_part
                        .max(finding_name_part_width())
                        .max(header_min(&column.name)),
                )
            })
            .collect();
        let codes_broken: Vec<usize> = self
            .shown
            .iter()
            .zip(&findings_broken)
            .map(|(column, &floor)| match column.code_part_width {
                Some(part) => floor.min(part.max(header_min(&column.name))),
                None => floor,
            })
            .collect();
        let steps = [whole, findings_broken, codes_broken];
        // A space either side of each column's content and a rule between columns, no outer
        // border ([`PRESET`]); when that is too wide, no space after the content (so that
        // every column of the matrix fits 300 characters).
        for step in 0..steps.len() {
            let needed: usize = steps[step].iter().sum();
            for (frame, right) in [(3 * n - 1, 1), (2 * n - 1, 0)] {
                if needed + frame > width {
                    continue;
                }
                let available = width - frame;
                // Narrow the widest column above its floor, a character at a time, the floors
                // of each step in turn, until the table fits.
                let mut widths = natural;
                for floors in &steps[..=step] {
                    while widths.iter().sum::<usize>() > available {
                        let Some(widest) = (0..widths.len())
                            .filter(|&i| widths[i] > floors[i])
                            .max_by_key(|&i| (widths[i], std::cmp::Reverse(i)))
                        else {
                            break;
                        };
                        widths[widest] -= 1;
                    }
                }
                return TableLayout::Columns(widths, right);
            }
        }
        TableLayout::Vertical
    }

    /// Writes the page; `last`: no row comes after it.
    fn flush_page(&mut self, last: bool) -> io::Result<()> {
        let first = self.layout.is_none();
        if first {
            self.layout = Some(self.decide_layout(last));
        }
        let page = std::mem::take(&mut self.page);
        match self.layout.as_ref().expect("decided above") {
            TableLayout::Vertical => self.write_records(&page, first),
            TableLayout::Columns(widths, right) => {
                let (widths, right) = (widths.clone(), *right);
                self.write_columns(&page, &widths, right, first)
            }
        }
    }

    /// The cell of `text`, shown as `fitted`: a decision is coloured by what it says.
    fn decision_cell(&self, column: &Shown, text: &str, fitted: String) -> Cell {
        let cell = Cell::new(fitted);
        match Decision::parse(text) {
            Some(decision)
                if self.style.color && column.source == Source::Matrix(Column::Decision) =>
            {
                cell.fg(decision_colour(decision))
            }
            _ => cell,
        }
    }

    fn write_columns(
        &mut self,
        page: &[Vec<String>],
        widths: &[usize],
        right: usize,
        first: bool,
    ) -> io::Result<()> {
        let mut table = Table::new();
        table
            .load_preset(PRESET)
            .set_content_arrangement(ContentArrangement::Disabled)
            .force_no_tty();
        if self.style.color {
            table.enforce_styling();
        }
        if first {
            table.set_header(
                self.shown
                    .iter()
                    .zip(widths)
                    .map(|(c, &w)| Cell::new(wrap_header(&c.name, w))),
            );
        }
        for row in page {
            let cells: Vec<Cell> = self
                .shown
                .iter()
                .zip(row)
                .zip(widths)
                .map(|((column, text), &w)| {
                    self.decision_cell(column, text, fit_cell(column, text, w))
                })
                .collect();
            table.add_row(cells);
        }
        let constraints = widths.iter().map(|&w| {
            let w = u16::try_from(w + 1 + right).unwrap_or(u16::MAX);
            ColumnConstraint::Absolute(Width::Fixed(w))
        });
        table.set_constraints(constraints);
        for column in table.column_iter_mut() {
            column.set_padding((1, right as u16));
        }
        if page.is_empty() && !first {
            return Ok(());
        }
        // Without outer borders, pages (the first with the header) join into one table.
        for line in table.to_string().lines() {
            writeln!(self.out, "{}", line.trim_end())?;
        }
        Ok(())
    }

    fn write_records(&mut self, page: &[Vec<String>], first: bool) -> io::Result<()> {
        let name_width = self
            .shown
            .iter()
            .map(|c| c.name.chars().count())
            .max()
            .unwrap_or(0);
        for (index, row) in page.iter().enumerate() {
            if !(first && index == 0) {
                writeln!(self.out)?;
            }
            for (column, text) in self.shown.iter().zip(row) {
                let value = match Decision::parse(text) {
                    Some(decision)
                        if self.style.color
                            && column.source == Source::Matrix(Column::Decision) =>
                    {
                        format!(
                            "{}{text}\x1b[0m",
                            ansi_foreground(decision_colour(decision))
                        )
                    }
                    // Wrapped at spaces under itself: a `detail` sentence fits the width too.
                    _ => match self.style.width {
                        Some(width) => crate::terminal::wrap(
                            &format!("{:<name_width$}  {text}", column.name),
                            usize::from(width),
                            &" ".repeat(name_width + 2),
                        )[name_width + 2..]
                            .to_owned(),
                        None => text.clone(),
                    },
                };
                writeln!(self.out, "{:<name_width$}  {value}", column.name)?;
            }
        }
        Ok(())
    }
}

fn ansi_foreground(colour: Color) -> &'static str {
    match colour {
        Color::Green => "\x1b[38;5;10m",
        Color::Cyan => "\x1b[38;5;14m",
        Color::Yellow => "\x1b[38;5;11m",
        Color::Red => "\x1b[38;5;9m",
        _ => "\x1b[38;5;13m",
    }
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
