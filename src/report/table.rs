//! The matrix as a table for people (comfy-table), sized to the terminal: by default the
//! columns that say what was decided and why, codes never wrapped, rendered in pages of fixed
//! column widths so that a table of millions of cases needs no more memory than a page. When
//! the chosen columns cannot fit, each case is written as a vertical record instead.

use std::io::{self, Write};

use comfy_table::{Cell, Color, ColumnConstraint, ContentArrangement, Table, Width};

use crate::lease::{AckState, CaseReason, Decision, TerminalResult};
use crate::matrix::COLUMNS;
use crate::output::escape_controls;

/// The derived column of the default table: the findings (spec section 5) that are set.
pub const FINDINGS_COLUMN: &str = "findings";

/// comfy-table's UTF8_NO_BORDERS without the rules between rows: a header rule and rules
/// between columns only, so that a case takes one line when it fits.
const PRESET: &str = "     ═╪ ┆          ";

/// Rows rendered at once; the first page also sets the column widths for the whole table.
const PAGE_ROWS: usize = 256;

/// The narrowest a wrappable column (ids, values, sentences) is squeezed to.
const MIN_WRAPPED_WIDTH: usize = 8;

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
    /// The widest the table may be; `None`: no limit (a pipe or a file).
    pub width: Option<u16>,
}

impl TableStyle {
    /// The style for `out`: coloured by [`crate::terminal::use_color`], as wide as
    /// [`crate::terminal::table_width`] allows when it is standard output.
    pub fn for_output(columns: TableColumns, out: &crate::output::Output) -> TableStyle {
        TableStyle {
            columns,
            color: crate::terminal::use_color(out.is_terminal()),
            width: if out.is_stdout() {
                crate::terminal::table_width()
            } else {
                None
            },
        }
    }
}

/// Where a shown column's cells come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// A matrix column, by index in [`COLUMNS`].
    Matrix(usize),
    /// The findings that are set.
    Findings,
    /// An extra column after `reason`, by index.
    Extra(usize),
}

struct Shown {
    name: String,
    source: Source,
    /// The longest value the column can hold if it holds codes (never wrapped); `None` for
    /// ids, values and sentences, which may wrap.
    code_width: Option<usize>,
    /// Whether the column holds timestamps.
    timestamp: bool,
}

fn longest(codes: impl Iterator<Item = &'static str>) -> usize {
    codes.map(str::len).max().unwrap_or(0)
}

fn code_width(column: &str) -> Option<usize> {
    Some(match column {
        "decision" => longest(Decision::ALL.iter().map(|d| d.as_str())),
        "reason" => longest(CaseReason::ALL.iter().map(|r| r.as_str())),
        "ack_state" => longest(AckState::ALL.iter().map(|a| a.as_str())),
        "terminal_result" => longest(TerminalResult::ALL.iter().map(|t| t.as_str())),
        "lease_expired" | "ownership_conflict" => "false".len(),
        "generation" | "lease_duration" | "renew_sequence" | "progress_sequence" => 1,
        _ => return None,
    })
}

/// The findings cell: each finding column that is set, by name (with its numbers).
pub fn findings(cells: &[String]) -> String {
    let mut parts = Vec::new();
    for (index, cell) in cells.iter().enumerate().take(COLUMNS.len()) {
        match COLUMNS[index] {
            "stale_generation" | "late_progress" if !cell.is_empty() => {
                parts.push(format!("{}={cell}", COLUMNS[index]));
            }
            "lease_expired" | "ownership_conflict" if cell == "true" => {
                parts.push(COLUMNS[index].to_owned());
            }
            _ => {}
        }
    }
    parts.join(", ")
}

/// Timestamp columns: narrower than a timestamp, the date and the time go on two lines.
fn is_timestamp(column: &str) -> bool {
    matches!(
        column,
        "issued_at"
            | "expires_at"
            | "ack_deadline"
            | "renew_time"
            | "cancel_requested"
            | "cancel_ack"
    )
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

/// A cell in a column `width` wide: a timestamp that does not fit is broken before its `T`.
fn fit_cell(column: &Shown, text: &str, width: usize) -> String {
    if column.timestamp && text.chars().count() > width {
        if let Some(at) = text.find('T') {
            return format!("{}\n{}", &text[..at], &text[at..]);
        }
    }
    text.to_owned()
}

fn resolve(columns: &TableColumns, extra: &[String]) -> Result<Vec<Shown>, String> {
    let source_of = |name: &str| -> Option<Source> {
        if let Some(index) = COLUMNS.iter().position(|c| *c == name) {
            Some(Source::Matrix(index))
        } else if name == FINDINGS_COLUMN {
            Some(Source::Findings)
        } else {
            extra.iter().position(|e| e == name).map(Source::Extra)
        }
    };
    let names: Vec<String> = match columns {
        TableColumns::Default => ["case_id", "decision", "reason", FINDINGS_COLUMN]
            .iter()
            .map(|s| (*s).to_owned())
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
                code_width: code_width(&name),
                timestamp: is_timestamp(&name),
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
enum Layout {
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
    layout: Option<Layout>,
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
                Source::Matrix(index) => escape_controls(&cells[index]).into_owned(),
                Source::Findings => findings(cells),
                Source::Extra(index) => escape_controls(&extra[index]).into_owned(),
            })
            .collect();
        self.page.push(row);
        if self.page.len() == PAGE_ROWS {
            self.flush_page()?;
        }
        Ok(())
    }

    /// Writes what is left; returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.flush_page()?;
        self.out.flush()?;
        Ok(self.out)
    }

    fn decide_layout(&self) -> Layout {
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
                    .max(column.code_width.unwrap_or(0))
                    .max(1)
            })
            .collect();
        let Some(width) = self.style.width else {
            return Layout::Columns(natural, 1);
        };
        let n = self.shown.len();
        let minimum: Vec<usize> = self
            .shown
            .iter()
            .zip(&natural)
            .map(|(column, &natural)| match column.code_width {
                // A code keeps its width.
                Some(_) => natural,
                None if column.timestamp => natural.min("2026-01-01".len()),
                None => natural.min(MIN_WRAPPED_WIDTH.max(header_min(&column.name))),
            })
            .collect();
        // A space either side of each column's content and a rule between columns, no outer
        // border ([`PRESET`]); when that is too wide, no space after the content (so that
        // every column of the matrix fits 300 characters).
        let needed: usize = minimum.iter().sum();
        let Some((available, right)) = [(3 * n - 1, 1), (2 * n - 1, 0)]
            .into_iter()
            .find(|&(frame, _)| needed + frame <= usize::from(width))
            .map(|(frame, right)| (usize::from(width) - frame, right))
        else {
            return Layout::Vertical;
        };
        // Narrow the widest wrappable column, a character at a time, until the table fits.
        let mut widths = natural;
        while widths.iter().sum::<usize>() > available {
            let widest = (0..widths.len())
                .filter(|&i| widths[i] > minimum[i])
                .max_by_key(|&i| (widths[i], std::cmp::Reverse(i)))
                .expect("the minimum widths fit");
            widths[widest] -= 1;
        }
        Layout::Columns(widths, right)
    }

    fn flush_page(&mut self) -> io::Result<()> {
        let first = self.layout.is_none();
        if first {
            self.layout = Some(self.decide_layout());
        }
        let page = std::mem::take(&mut self.page);
        match self.layout.as_ref().expect("decided above") {
            Layout::Vertical => self.write_records(&page, first),
            Layout::Columns(widths, right) => {
                let (widths, right) = (widths.clone(), *right);
                self.write_columns(&page, &widths, right, first)
            }
        }
    }

    fn decision_cell(&self, column: &Shown, text: &str) -> Cell {
        let cell = Cell::new(text);
        match Decision::parse(text) {
            Some(decision) if self.style.color && column.name == "decision" => {
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
                .map(|((column, text), &w)| self.decision_cell(column, &fit_cell(column, text, w)))
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
                    Some(decision) if self.style.color && column.name == "decision" => {
                        format!(
                            "{}{text}\x1b[0m",
                            ansi_foreground(decision_colour(decision))
                        )
                    }
                    _ => text.clone(),
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
