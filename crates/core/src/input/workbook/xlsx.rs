//! `.xlsx` and `.xlsm` workbooks (Office Open XML): the rows of one sheet, a cell at a time,
//! with the values calamine 0.35 gives them (its rules for shared strings, styles' date
//! formats and cell types are followed here; calamine itself reads whole parts into memory
//! without limits). Only the parts a sheet needs are read: the list of sheets and its
//! relationships, the styles, the shared strings (all kept in memory, within
//! [`MAX_WORKBOOK_HELD_BYTES`](crate::limits::MAX_WORKBOOK_HELD_BYTES) together) and the
//! sheet, which streams.

use super::archive::{Archive, Budget, Part};
use super::xml::{unescape_into, Event, XmlError, XmlReader};
use super::{
    located_name, unreadable_workbook, Cell, Located, Serial, SheetChoice, SheetRow, SheetStart,
    Visit, MAX_SHEETS_LOOKED_AT,
};
use crate::input::error::{ErrorKind, InputError};
use crate::limits::{MAX_RECORD_BYTES, MAX_SHEET_COLUMNS, MAX_SHEET_ROWS};

mod strings;

use strings::{read_rich_text, read_shared_strings, read_text, Strings};

/// Hands `visit` the rows of the sheet named `sheet` (else the first) of `workbook`.
pub(super) fn for_each_row(
    workbook: impl std::io::Read + std::io::Seek,
    file: &str,
    sheet: Option<&str>,
    visit: Visit<'_>,
) -> Result<(), InputError> {
    let budget = Budget::default();
    let mut archive = Archive::open(workbook).map_err(|m| unreadable_workbook(file, m))?;
    let book =
        read_workbook(&mut archive, &budget, sheet).map_err(|m| unreadable_workbook(file, m))?;
    let (name, id) = book.sheet.map_err(|choice| choice.not_found(file))?;
    let path = match worksheet_path(&mut archive, &budget, file, &name, &id)? {
        Ok(path) => path,
        Err(not_a_worksheet) => return Err(unreadable_workbook(file, not_a_worksheet)),
    };
    let formats = read_styles(&mut archive, &budget).map_err(|m| unreadable_workbook(file, m))?;
    let strings =
        read_shared_strings(&mut archive, &budget).map_err(|m| unreadable_workbook(file, m))?;
    let Some(index) = archive.find(&path) else {
        return Err(unreadable_workbook(
            file,
            format!("the sheet {name:?} is not in the workbook (no part {path:?})"),
        ));
    };
    let context = Context {
        strings: &strings,
        formats: &formats,
        is_1904: book.is_1904,
    };
    let mut xml = archive
        .xml(index, &path, false, &budget)
        .map_err(|m| unreadable_workbook(file, m))?;
    let sheet = Sheet {
        file,
        path: &path,
        located: &located_name(file, &name),
        context: &context,
        budget: &budget,
    };
    sheet.read(&mut xml, visit)
}

/// Where the sheet `name` (relationship `id`) is: its part's path, or why it is not a
/// worksheet (a chart or dialog sheet, a part elsewhere); `Err` when the workbook does not say.
fn worksheet_path(
    archive: &mut Archive<'_>,
    budget: &Budget,
    file: &str,
    name: &str,
    id: &[u8],
) -> Result<Result<String, String>, InputError> {
    let target = read_relationship(archive, id, budget)
        .map_err(|m| unreadable_workbook(file, m))?
        .ok_or_else(|| {
            unreadable_workbook(
                file,
                format!(
                    "the sheet {name:?} has no relationship {:?}",
                    String::from_utf8_lossy(id)
                ),
            )
        })?;
    let path = sheet_path(&target);
    Ok(match path.split('/').nth(1) {
        Some("worksheets") => Ok(path),
        Some("chartsheets" | "dialogsheets") => Err(format!(
            "the sheet {name:?} is a chart or dialog sheet, not a worksheet"
        )),
        _ => Err(format!(
            "the sheet {name:?} is at {path:?}, not a worksheet's place"
        )),
    })
}

/// Each sheet's name and first row with a cell (see [`super::first_rows`]).
pub(super) fn first_rows(
    workbook: impl std::io::Read + std::io::Seek,
    file: &str,
) -> Result<Vec<SheetStart>, InputError> {
    let cannot = |m| unreadable_workbook(file, m);
    // One budget for every sheet: what is inflated is counted across them.
    let budget = Budget::default();
    let mut archive = Archive::open(workbook).map_err(cannot)?;
    let book = read_workbook(&mut archive, &budget, None).map_err(cannot)?;
    let formats = read_styles(&mut archive, &budget).map_err(cannot)?;
    let strings = read_shared_strings(&mut archive, &budget).map_err(cannot)?;
    let context = Context {
        strings: &strings,
        formats: &formats,
        is_1904: book.is_1904,
    };
    let mut rows = Vec::new();
    for (name, id) in &book.all {
        let mut first = None;
        if let Ok(path) = worksheet_path(&mut archive, &budget, file, name, id)? {
            if let Some(index) = archive.find(&path) {
                let mut xml = archive.xml(index, &path, false, &budget).map_err(cannot)?;
                let sheet = Sheet {
                    file,
                    path: &path,
                    located: &located_name(file, name),
                    context: &context,
                    budget: &budget,
                };
                sheet.read(&mut xml, &mut |_, _, cells| {
                    first = Some(cells.to_vec());
                    false
                })?;
            }
        }
        rows.push(SheetStart {
            name: name.clone(),
            first_row: first,
        });
    }
    Ok(rows)
}

/// What a workbook's list of sheets says: the sheet to read (its name and relationship id),
/// or what was listed instead; and its date system.
struct Book<'w> {
    sheet: Result<(String, Vec<u8>), SheetChoice<'w>>,
    is_1904: bool,
    /// Every sheet's name and relationship id, the first [`MAX_SHEETS_LOOKED_AT`].
    all: Vec<(String, Vec<u8>)>,
}

/// The part that names the sheets.
const WORKBOOK_PART: &str = "xl/workbook.xml";
/// The part that says where each sheet is.
const RELATIONSHIPS_PART: &str = "xl/_rels/workbook.xml.rels";

/// An error of a part read whole: its name, and the message (with where, if it matters).
fn part_error(part: &str, error: XmlError) -> String {
    match error {
        // The inflating limits name the part already.
        XmlError::Io(e) if e.kind() == std::io::ErrorKind::FileTooLarge => e.to_string(),
        error => format!("{part}: {error}"),
    }
}

fn read_workbook<'w>(
    archive: &mut Archive<'_>,
    budget: &Budget,
    wanted: Option<&'w str>,
) -> Result<Book<'w>, String> {
    let mut book = Book {
        sheet: Err(SheetChoice::new(wanted)),
        is_1904: false,
        all: Vec::new(),
    };
    let Some(index) = archive.find(WORKBOOK_PART) else {
        return Ok(book);
    };
    let mut xml = archive.xml(index, WORKBOOK_PART, true, budget)?;
    let fail = |e| part_error(WORKBOOK_PART, e);
    loop {
        match xml.next().map_err(fail)? {
            Event::Start(tag) if tag.local_name() == b"sheet" => {
                let listing = book.all.len() < MAX_SHEETS_LOOKED_AT;
                if book.sheet.is_ok() && !listing {
                    continue;
                }
                let mut name = String::new();
                let mut id = Vec::new();
                for (key, value) in tag.attrs() {
                    if key == b"name" {
                        name.clear();
                        unescape_into(value, &mut name, false, MAX_RECORD_BYTES)
                            .map_err(|e| format!("{WORKBOOK_PART}: a sheet's name: {}", why(e)))?;
                    } else if super::xml::local(key) == b"id" {
                        id = value.to_vec();
                    }
                }
                if listing {
                    book.all.push((name.clone(), id.clone()));
                }
                if let Err(choice) = &mut book.sheet {
                    if choice.is_wanted(&name) {
                        book.sheet = Ok((name, id));
                    }
                }
            }
            Event::Start(tag) if tag.name() == b"workbookPr" => {
                book.is_1904 = matches!(tag.attr(b"date1904"), Some(b"1" | b"true"));
            }
            Event::Eof => return Ok(book),
            _ => {}
        }
    }
}

/// What an [`unescape_into`] error says.
fn why(error: Option<String>) -> String {
    error.unwrap_or_else(|| {
        format!("longer than {MAX_RECORD_BYTES} bytes (1 MiB), the most one may hold")
    })
}

/// The target of the workbook's relationship `id`, if it has one.
fn read_relationship(
    archive: &mut Archive<'_>,
    id: &[u8],
    budget: &Budget,
) -> Result<Option<String>, String> {
    let Some(index) = archive.find(RELATIONSHIPS_PART) else {
        return Err(format!(
            "no {RELATIONSHIPS_PART}, which says where the sheets are"
        ));
    };
    let mut xml = archive.xml(index, RELATIONSHIPS_PART, true, budget)?;
    let fail = |e| part_error(RELATIONSHIPS_PART, e);
    loop {
        match xml.next().map_err(fail)? {
            Event::Start(tag)
                if tag.local_name() == b"Relationship" && tag.attr(b"Id") == Some(id) =>
            {
                let mut target = String::new();
                unescape_into(
                    tag.attr(b"Target").unwrap_or_default(),
                    &mut target,
                    false,
                    MAX_RECORD_BYTES,
                )
                .map_err(|e| format!("{RELATIONSHIPS_PART}: a target: {}", why(e)))?;
                return Ok(Some(target));
            }
            Event::Eof => return Ok(None),
            _ => {}
        }
    }
}

/// A sheet's part from its relationship's target, as calamine finds it.
fn sheet_path(target: &str) -> String {
    if let Some(rest) = target.strip_prefix('/') {
        if rest.starts_with("xl/") {
            return rest.to_owned();
        }
    }
    if target.starts_with("xl/") {
        target.to_owned()
    } else {
        format!("xl/{target}")
    }
}

/// What a cell's style says of its number: a date-time, a duration, or neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CellFormat {
    Other,
    DateTime,
    TimeDelta,
}

/// Whether a number format is a date-time or a duration (calamine's
/// `detect_custom_number_format`, itself after openpyxl).
fn detect_custom_number_format(format: &str) -> CellFormat {
    let mut escaped = false;
    let mut is_quote = false;
    let mut brackets = 0u8;
    let mut prev = ' ';
    let mut hms = false;
    let mut ap = false;
    for s in format.chars() {
        match (s, escaped, is_quote, ap, brackets) {
            (_, true, ..) => escaped = false,
            ('_' | '\\', ..) => escaped = true,
            ('"', _, true, _, _) => is_quote = false,
            (_, _, true, _, _) => (),
            ('"', _, _, _, _) => is_quote = true,
            (';', ..) => return CellFormat::Other,
            ('[', ..) => brackets += 1,
            (']', .., 1) if hms => return CellFormat::TimeDelta,
            (']', ..) => brackets = brackets.saturating_sub(1),
            ('a' | 'A', _, _, false, 0) => ap = true,
            ('p' | 'm' | '/' | 'P' | 'M', _, _, true, 0) => return CellFormat::DateTime,
            ('d' | 'm' | 'h' | 'y' | 's' | 'D' | 'M' | 'H' | 'Y' | 'S', _, _, false, 0) => {
                return CellFormat::DateTime
            }
            _ => {
                if !(hms && s.eq_ignore_ascii_case(&prev)) {
                    hms = prev == '[' && matches!(s, 'm' | 'h' | 's' | 'M' | 'H' | 'S');
                }
            }
        }
        prev = s;
    }
    CellFormat::Other
}

/// The built-in number formats that are dates, times or durations.
fn builtin_format(id: u32) -> CellFormat {
    match id {
        14..=22 | 45 | 47 => CellFormat::DateTime,
        46 => CellFormat::TimeDelta,
        _ => CellFormat::Other,
    }
}

/// A number format id (`numFmtId`): a number below 65,536, as the format says.
fn format_id(raw: &[u8]) -> Option<u32> {
    std::str::from_utf8(raw)
        .ok()?
        .parse::<u32>()
        .ok()
        .filter(|&id| id < 1 << 16)
}

/// The format of each cell style (`cellXfs`), by style index.
fn read_styles(archive: &mut Archive<'_>, budget: &Budget) -> Result<Vec<CellFormat>, String> {
    const PART: &str = "xl/styles.xml";
    let mut formats = Vec::new();
    let Some(index) = archive.find(PART) else {
        return Ok(formats);
    };
    let mut xml = archive.xml(index, PART, true, budget)?;
    let fail = |e| part_error(PART, e);
    // Custom number formats by id: at most 65,536 of them, however many the part lists.
    let mut custom: std::collections::HashMap<u32, CellFormat> = Default::default();
    // The depth of the open `numFmts` or `cellXfs`, if any.
    let (mut in_formats, mut in_styles) = (None, None);
    let mut code = String::new();
    loop {
        let depth = xml.depth();
        match xml.next().map_err(fail)? {
            Event::Start(tag) => match tag.local_name() {
                b"numFmts" => in_formats = Some(depth + 1),
                b"cellXfs" => in_styles = Some(depth + 1),
                b"numFmt" if in_formats.is_some() => {
                    code.clear();
                    let code_raw = tag.attr(b"formatCode").unwrap_or_default();
                    unescape_into(code_raw, &mut code, false, MAX_RECORD_BYTES)
                        .map_err(|e| format!("{PART}: a number format: {}", why(e)))?;
                    if let (Some(id), false) =
                        (tag.attr(b"numFmtId").and_then(format_id), code.is_empty())
                    {
                        custom.insert(id, detect_custom_number_format(&code));
                    }
                }
                b"xf" if in_styles.is_some() => {
                    formats.push(tag.attr(b"numFmtId").map_or(CellFormat::Other, |raw| {
                        match format_id(raw) {
                            Some(id) => custom.get(&id).copied().unwrap_or(builtin_format(id)),
                            None => CellFormat::Other,
                        }
                    }));
                }
                _ => {}
            },
            Event::End(depth) => {
                if in_formats.is_some_and(|open| depth < open) {
                    in_formats = None;
                }
                if in_styles.is_some_and(|open| depth < open) {
                    in_styles = None;
                }
            }
            Event::Eof => return Ok(formats),
            _ => {}
        }
    }
}

/// What a cell's value is read with.
struct Context<'a> {
    strings: &'a Strings,
    formats: &'a [CellFormat],
    is_1904: bool,
}

/// A cell's type (its `t` attribute).
#[derive(Clone, Debug, PartialEq, Eq)]
enum CellType {
    /// No `t`: a number, or text if it is not one.
    Untyped,
    Number,
    Shared,
    Bool,
    Date,
    Error,
    Text,
    Inline,
    Unknown(String),
}

impl CellType {
    fn of(t: Option<&[u8]>) -> CellType {
        match t {
            None => CellType::Untyped,
            Some(b"n") => CellType::Number,
            Some(b"s") => CellType::Shared,
            Some(b"b") => CellType::Bool,
            Some(b"d") => CellType::Date,
            Some(b"e") => CellType::Error,
            Some(b"str") => CellType::Text,
            Some(b"inlineStr" | b"is") => CellType::Inline,
            Some(other) => CellType::Unknown(String::from_utf8_lossy(other).into_owned()),
        }
    }
}

/// Reads the rest of a cell (`c`): its value, as calamine reads it.
fn read_cell(
    xml: &mut XmlReader<Part<'_, '_>>,
    kind: &CellType,
    style: Option<usize>,
    context: &Context<'_>,
    text: &mut String,
) -> Result<Cell, Located> {
    let open = xml.depth();
    let mut value = Cell::Empty;
    loop {
        match xml.next().map_err(Located::Xml)? {
            Event::Start(tag) => {
                let child = tag.local_name();
                let (inline, v, formula) = (child == b"is", child == b"v", child == b"f");
                text.clear();
                if inline {
                    read_rich_text(xml, text)?;
                    value = Cell::String(text.clone());
                } else if v && *kind != CellType::Inline {
                    read_text(xml, text)?;
                    value = read_value(context, text, style, kind)?;
                } else {
                    xml.skip_element().map_err(Located::Xml)?;
                    if v || formula {
                        value = Cell::Empty;
                    }
                }
            }
            Event::End(depth) if depth < open => return Ok(value),
            _ => {}
        }
    }
}

/// A cell's value from the text of its `v` (calamine's `read_v`).
fn read_value(
    context: &Context<'_>,
    v: &str,
    style: Option<usize>,
    kind: &CellType,
) -> Result<Cell, Located> {
    let message = |m: String| Located::Message(m);
    Ok(match kind {
        CellType::Shared => {
            if v.is_empty() {
                return Ok(Cell::Empty);
            }
            let index = v.parse::<usize>().unwrap_or(0);
            Cell::String(context.strings.get(index).ok_or_else(|| {
                message(format!(
                    "shared string {index} is not among the workbook's {}",
                    context.strings.len
                ))
            })?)
        }
        CellType::Bool => Cell::Bool(v != "0"),
        CellType::Date => Cell::DateTimeIso(v.to_owned()),
        CellType::Error => Cell::Error(
            super::error_code(v).ok_or_else(|| message(format!("not a cell error code: {v:?}")))?,
        ),
        CellType::Text => Cell::String(v.to_owned()),
        CellType::Number | CellType::Untyped => {
            if v.is_empty() {
                return Ok(Cell::Empty);
            }
            match v.parse::<f64>() {
                Ok(number) => {
                    let format = match style {
                        Some(index) => context.formats.get(index).copied(),
                        None => Some(CellFormat::Other),
                    };
                    let is_duration = match format {
                        Some(CellFormat::DateTime) => false,
                        Some(CellFormat::TimeDelta) => true,
                        _ => return Ok(Cell::Float(number)),
                    };
                    Cell::Serial(Serial {
                        days: number,
                        is_duration,
                        is_1904: context.is_1904,
                    })
                }
                Err(_) if *kind == CellType::Untyped => Cell::String(v.to_owned()),
                Err(_) => return Err(message(format!("not a number: {v:?}"))),
            }
        }
        CellType::Inline => Cell::Empty,
        CellType::Unknown(t) => return Err(message(format!("an unknown cell type t={t:?}"))),
    })
}

/// A sheet being read, and where its errors are.
struct Sheet<'a> {
    file: &'a str,
    path: &'a str,
    /// `file.xlsx[Sheet1]`.
    located: &'a str,
    context: &'a Context<'a>,
    budget: &'a Budget,
}

impl Sheet<'_> {
    /// The error `error` at row `row` (from 0), in the cell at `cell` if there is one.
    fn error(&self, row: u64, cell: Option<(u64, u64)>, error: Located) -> InputError {
        let message = match error {
            Located::Xml(XmlError::TooLong) if cell.is_some() => {
                format!("longer than {MAX_RECORD_BYTES} bytes (1 MiB), the most one cell may hold")
            }
            Located::Xml(XmlError::Io(e)) => e.to_string(),
            Located::Xml(e) => format!("{}: {e}", self.path),
            Located::Message(m) => m,
        };
        let error = InputError::new(ErrorKind::Syntax, self.located, row + 1, message);
        match cell {
            Some((row, column)) => error.column(format!("cell {}", cell_reference(row, column))),
            None => error,
        }
    }

    /// Hands `visit` the sheet's rows, each as its cells from column A.
    fn read(&self, xml: &mut XmlReader<Part<'_, '_>>, visit: Visit<'_>) -> Result<(), InputError> {
        loop {
            match xml.next() {
                Ok(Event::Start(tag)) if tag.local_name() == b"sheetData" => break,
                Ok(Event::Eof) => {
                    return Err(unreadable_workbook(
                        self.file,
                        format!("{} holds no sheetData: not a worksheet", self.path),
                    ))
                }
                Ok(_) => {}
                Err(e) => return Err(unreadable_workbook(self.file, part_error(self.path, e))),
            }
        }
        let data_at = xml.depth();
        // Where the next cell without a reference goes (as calamine places it), and the depth
        // of the open row element.
        let (mut row_index, mut column_index) = (0u64, 0u64);
        let mut row_open: Option<usize> = None;
        let (mut rows_seen, mut cells_in_row) = (0u64, 0u64);
        let mut row = SheetRow::default();
        let mut row_at: Option<u64> = None;
        let mut text = String::new();
        loop {
            let event = xml
                .next()
                .map_err(|e| self.error(row_index, None, Located::Xml(e)))?;
            match event {
                Event::Start(tag) if tag.local_name() == b"row" => {
                    let number = tag.attr(b"r").map(|r| (r.to_vec(), row_number(r)));
                    rows_seen += 1;
                    if rows_seen > MAX_SHEET_ROWS {
                        return Err(self.error(
                            row_index,
                            None,
                            Located::Message(format!(
                                "more than {MAX_SHEET_ROWS} rows, the most a sheet has"
                            )),
                        ));
                    }
                    match number {
                        Some((_, Some(number))) => row_index = number,
                        Some((raw, None)) => {
                            return Err(self.error(
                                row_index,
                                None,
                                Located::Message(format!(
                                    "a row numbered {:?}, not from 1 to {MAX_SHEET_ROWS}",
                                    String::from_utf8_lossy(&raw)
                                )),
                            ))
                        }
                        None => {}
                    }
                    row_open = Some(xml.depth());
                    cells_in_row = 0;
                }
                Event::Start(tag) if tag.local_name() == b"c" => {
                    let reference = tag.attr(b"r").map(|r| (r.to_vec(), cell_position(r)));
                    let style = tag.attr(b"s").map(|s| {
                        std::str::from_utf8(s)
                            .ok()
                            .and_then(|s| s.parse().ok())
                            .unwrap_or(0)
                    });
                    let kind = CellType::of(tag.attr(b"t"));
                    cells_in_row += 1;
                    let at = match reference {
                        Some((_, Some(at))) => at,
                        Some((raw, None)) => {
                            return Err(self.error(
                                row_index,
                                None,
                                Located::Message(format!(
                                    "a cell at {:?}, not a place in a sheet (A1 to XFD1048576)",
                                    String::from_utf8_lossy(&raw)
                                )),
                            ))
                        }
                        None => (row_index, column_index),
                    };
                    if cells_in_row > MAX_SHEET_COLUMNS || at.1 >= MAX_SHEET_COLUMNS {
                        return Err(self.error(
                            at.0,
                            None,
                            Located::Message(format!(
                                "more than {MAX_SHEET_COLUMNS} columns, the most a sheet has"
                            )),
                        ));
                    }
                    if at.0 >= MAX_SHEET_ROWS {
                        return Err(self.error(
                            at.0,
                            None,
                            Located::Message(format!(
                                "a row after row {MAX_SHEET_ROWS}, the last a sheet has"
                            )),
                        ));
                    }
                    column_index = at.1 + 1;
                    let value = read_cell(xml, &kind, style, self.context, &mut text)
                        .map_err(|e| self.error(at.0, Some(at), e))?;
                    let cell = super::cell_into_text(value);
                    if cell.is_empty() {
                        continue;
                    }
                    if row_at != Some(at.0) {
                        if let Some(done) = row_at {
                            if !visit(self.located, done + 1, row.cells()) {
                                return Ok(());
                            }
                            row.clear();
                        }
                        row_at = Some(at.0);
                    }
                    self.budget
                        .text(cell.len())
                        .map_err(|m| self.error(at.0, Some(at), Located::Message(m)))?;
                    row.set(at.1 as usize, cell)
                        .map_err(|m| self.error(at.0, None, Located::Message(m)))?;
                }
                Event::End(depth) => {
                    if depth < data_at {
                        break;
                    }
                    if row_open.is_some_and(|open| depth < open) {
                        row_open = None;
                        row_index += 1;
                        column_index = 0;
                    }
                }
                _ => {}
            }
        }
        if let Some(done) = row_at {
            visit(self.located, done + 1, row.cells());
        }
        Ok(())
    }
}

/// `(row, column)` from 0 of a cell reference (`D17`), or `None` if it is not one within a
/// sheet's rows and columns.
fn cell_position(reference: &[u8]) -> Option<(u64, u64)> {
    let letters = reference
        .iter()
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    let (column, row) = reference.split_at(letters);
    let mut col = 0u64;
    for &letter in column {
        col = col * 26 + u64::from(letter.to_ascii_uppercase() - b'A') + 1;
        if col > MAX_SHEET_COLUMNS {
            return None;
        }
    }
    let row = row_number(row)?;
    Some((row, col.checked_sub(1)?))
}

/// A row number as written (from 1) as a row from 0, if within a sheet's rows.
fn row_number(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 8 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n: u64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
    (1..=MAX_SHEET_ROWS).contains(&n).then(|| n - 1)
}

/// A cell's reference (`D17`) from its row and column from 0.
pub(super) fn cell_reference(row: u64, column: u64) -> String {
    let mut letters = Vec::new();
    let mut n = column + 1;
    while n > 0 {
        letters.push(b'A' + ((n - 1) % 26) as u8);
        n = (n - 1) / 26;
    }
    letters.reverse();
    format!("{}{}", String::from_utf8(letters).expect("ASCII"), row + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_references_within_a_sheet() {
        assert_eq!(cell_position(b"A1"), Some((0, 0)));
        assert_eq!(cell_position(b"d17"), Some((16, 3)));
        assert_eq!(cell_position(b"XFD1048576"), Some((1_048_575, 16_383)));
        assert_eq!(cell_position(b"XFE1"), None);
        assert_eq!(cell_position(b"A1048577"), None);
        assert_eq!(cell_position(b"ZZZZZZZZZZZZZZ1"), None);
        assert_eq!(cell_position(b"A0"), None);
        assert_eq!(cell_position(b"1"), None);
        assert_eq!(cell_reference(16, 3), "D17");
        assert_eq!(cell_reference(0, 16_383), "XFD1");
        assert_eq!(cell_reference(0, 26), "AA1");
    }

    #[test]
    fn date_formats_as_calamine_detects_them() {
        for (format, want) in [
            ("yyyy-mm-dd", CellFormat::DateTime),
            ("[h]:mm:ss", CellFormat::TimeDelta),
            ("0.00", CellFormat::Other),
            ("\"d\"0", CellFormat::Other),
            ("h:mm AM/PM", CellFormat::DateTime),
            ("0;[Red]-0", CellFormat::Other),
        ] {
            assert_eq!(detect_custom_number_format(format), want, "{format}");
        }
        assert_eq!(builtin_format(14), CellFormat::DateTime);
        assert_eq!(builtin_format(46), CellFormat::TimeDelta);
        assert_eq!(builtin_format(0), CellFormat::Other);
    }
}
