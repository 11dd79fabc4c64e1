//! `.ods` workbooks (OpenDocument): the rows of one sheet of `content.xml`, streamed a row at
//! a time, with the values calamine 0.35 gives their cells (which builds every sheet's whole
//! grid first, repeated rows and columns spelled out: about 110 bytes a cell). Repeated rows
//! and cells are handed on as often as they repeat, within a row's length and the sheet's
//! text ([`MAX_WORKBOOK_TEXT_BYTES`](crate::limits::MAX_WORKBOOK_TEXT_BYTES)); empty ones
//! cost nothing however often they repeat.

use super::archive::{Archive, Budget, Part};
use super::xml::{unescape_into, Event, XmlReader};
use super::{
    located_name, unreadable_workbook, Cell, Located, SheetChoice, SheetRow, SheetStart, Visit,
    MAX_SHEETS_LOOKED_AT,
};
use crate::input::error::{ErrorKind, InputError};
use crate::limits::{MAX_RECORD_BYTES, MAX_SHEET_COLUMNS, MAX_SHEET_ROWS};

const MIMETYPE: &[u8] = b"application/vnd.oasis.opendocument.spreadsheet";
const CONTENT: &str = "content.xml";
const MANIFEST: &str = "META-INF/manifest.xml";

/// Opens `content.xml`, which holds the sheets, of the OpenDocument spreadsheet `archive`:
/// refused if it is not one, or is encrypted.
fn open_content<'a, 'b>(
    archive: &'a mut Archive<'b>,
    file: &str,
    budget: &'a Budget,
) -> Result<XmlReader<Part<'a, 'b>>, InputError> {
    let cannot = |m| unreadable_workbook(file, m);
    let Some(index) = archive.find("mimetype") else {
        return Err(cannot(
            "no mimetype part: not an OpenDocument file".to_owned(),
        ));
    };
    let mimetype = read_head(archive, index, "mimetype", budget)?;
    if mimetype != MIMETYPE {
        return Err(cannot(format!(
            "not an OpenDocument spreadsheet: its mimetype is {:?}",
            String::from_utf8_lossy(&mimetype)
        )));
    }
    if let Some(index) = archive.find(MANIFEST) {
        let mut xml = archive.xml(index, MANIFEST, true, budget).map_err(cannot)?;
        loop {
            match xml.next() {
                Ok(Event::Start(tag)) if tag.name() == b"manifest:encryption-data" => {
                    return Err(cannot(
                        "an encrypted (password-protected) workbook, which leasejudge cannot \
                         read: save it without a password, or as CSV"
                            .to_owned(),
                    ))
                }
                Ok(Event::Eof) => break,
                Ok(_) => {}
                Err(e) => return Err(cannot(format!("{MANIFEST}: {e}"))),
            }
        }
    }
    let Some(index) = archive.find(CONTENT) else {
        return Err(cannot(format!("no {CONTENT}, which holds the sheets")));
    };
    archive.xml(index, CONTENT, false, budget).map_err(cannot)
}

/// The name of the table element just started, if it has one.
fn table_name(
    tag: &super::xml::Tag<'_>,
    file: &str,
    name: &mut String,
) -> Result<bool, InputError> {
    let Some(raw) = tag.attr(b"table:name") else {
        return Ok(false);
    };
    name.clear();
    unescape_into(raw, name, false, MAX_RECORD_BYTES)
        .map_err(|e| unreadable_workbook(file, format!("{CONTENT}: a sheet's name: {}", why(e))))?;
    Ok(true)
}

/// Hands `visit` the rows of the sheet named `sheet` (else the first) of `workbook`.
pub(super) fn for_each_row(
    workbook: impl std::io::Read + std::io::Seek,
    file: &str,
    sheet: Option<&str>,
    visit: Visit<'_>,
) -> Result<(), InputError> {
    let budget = Budget::default();
    let mut archive = Archive::open(workbook).map_err(|m| unreadable_workbook(file, m))?;
    let mut xml = open_content(&mut archive, file, &budget)?;
    let content_error = |e| unreadable_workbook(file, format!("{CONTENT}: {e}"));
    let mut choice = SheetChoice::new(sheet);
    let mut name = String::new();
    loop {
        match xml.next().map_err(content_error)? {
            Event::Start(tag) if tag.name() == b"table:table" => {
                if !table_name(&tag, file, &mut name)? {
                    continue;
                }
                if choice.is_wanted(&name) {
                    let reader = Sheet {
                        located: &located_name(file, &name),
                        budget: &budget,
                    };
                    return reader.read(&mut xml, visit);
                }
                xml.skip_element().map_err(content_error)?;
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Err(choice.not_found(file))
}

/// Each sheet's name and first row with a cell (see [`super::first_rows`]), in one pass over
/// `content.xml`.
pub(super) fn first_rows(
    workbook: impl std::io::Read + std::io::Seek,
    file: &str,
) -> Result<Vec<SheetStart>, InputError> {
    let budget = Budget::default();
    let mut archive = Archive::open(workbook).map_err(|m| unreadable_workbook(file, m))?;
    let mut xml = open_content(&mut archive, file, &budget)?;
    let content_error = |e| unreadable_workbook(file, format!("{CONTENT}: {e}"));
    let mut rows = Vec::new();
    let mut name = String::new();
    while rows.len() < MAX_SHEETS_LOOKED_AT {
        match xml.next().map_err(content_error)? {
            Event::Start(tag) if tag.name() == b"table:table" => {
                if !table_name(&tag, file, &mut name)? {
                    continue;
                }
                let table_at = xml.depth();
                let mut first = None;
                let reader = Sheet {
                    located: &located_name(file, &name),
                    budget: &budget,
                };
                reader.read(&mut xml, &mut |_, _, cells| {
                    first = Some(cells.to_vec());
                    false
                })?;
                // Past the rest of the table, if its first row ended the read.
                while xml.depth() >= table_at {
                    if let Event::Eof = xml.next().map_err(content_error)? {
                        break;
                    }
                }
                rows.push(SheetStart {
                    name: name.clone(),
                    first_row: first,
                });
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(rows)
}

/// The first bytes of a part (its mimetype: 46 bytes).
fn read_head(
    archive: &mut Archive<'_>,
    index: usize,
    name: &str,
    budget: &Budget,
) -> Result<Vec<u8>, InputError> {
    use std::io::Read;
    let part = archive
        .part(index, name, true, budget)
        .map_err(|m| InputError::new(ErrorKind::Syntax, name, 0, m))?;
    let mut bytes = Vec::new();
    part.take(MIMETYPE.len() as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| {
            InputError::new(
                ErrorKind::Syntax,
                name,
                0,
                format!("not a readable workbook: {name}: {e}"),
            )
        })?;
    Ok(bytes)
}

/// What an [`unescape_into`] error says.
fn why(error: Option<String>) -> String {
    error.unwrap_or_else(|| {
        format!("longer than {MAX_RECORD_BYTES} bytes (1 MiB), the most one may hold")
    })
}

/// The sheet being read.
struct Sheet<'a> {
    /// `file.ods[Sheet1]`.
    located: &'a str,
    budget: &'a Budget,
}

/// A repeat count (`table:number-rows-repeated`, `table:number-columns-repeated`): 1 if not
/// given.
fn repeats(raw: Option<&[u8]>, what: &str) -> Result<u64, Located> {
    match raw {
        None => Ok(1),
        Some(raw) => std::str::from_utf8(raw)
            .ok()
            .and_then(|text| text.parse::<u64>().ok())
            .ok_or_else(|| {
                Located::Message(format!(
                    "{what} is {:?}, not a whole number",
                    String::from_utf8_lossy(raw)
                ))
            }),
    }
}

impl Sheet<'_> {
    fn error(&self, row: u64, column: Option<u64>, error: Located) -> InputError {
        let message = match error {
            Located::Xml(super::xml::XmlError::TooLong) if column.is_some() => {
                format!("longer than {MAX_RECORD_BYTES} bytes (1 MiB), the most one cell may hold")
            }
            Located::Xml(super::xml::XmlError::Io(e)) => e.to_string(),
            Located::Xml(e) => format!("{CONTENT}: {e}"),
            Located::Message(m) => m,
        };
        let error = InputError::new(ErrorKind::Syntax, self.located, row + 1, message);
        match column {
            Some(column) => {
                error.column(format!("cell {}", super::xlsx::cell_reference(row, column)))
            }
            None => error,
        }
    }

    /// Reads the table just started, handing its rows on.
    fn read(&self, xml: &mut XmlReader<Part<'_, '_>>, visit: Visit<'_>) -> Result<(), InputError> {
        let table_at = xml.depth();
        // The row (from 0) the next row element starts at, and how many there were.
        let (mut at, mut elements) = (0u64, 0u64);
        let mut row = SheetRow::default();
        loop {
            let event = xml
                .next()
                .map_err(|e| self.error(at, None, Located::Xml(e)))?;
            match event {
                Event::Start(tag) if tag.name() == b"table:table-row" => {
                    let count = repeats(tag.attr(b"table:number-rows-repeated"), "a row's repeat")
                        .map_err(|e| self.error(at, None, e))?;
                    elements += 1;
                    if elements > MAX_SHEET_ROWS {
                        return Err(self.error(
                            at.min(MAX_SHEET_ROWS),
                            None,
                            Located::Message(format!(
                                "more than {MAX_SHEET_ROWS} rows, the most a sheet has"
                            )),
                        ));
                    }
                    row.clear();
                    self.read_row(xml, at, &mut row)?;
                    if !row.cells().is_empty() {
                        let last = at.saturating_add(count);
                        if last > MAX_SHEET_ROWS {
                            return Err(self.error(
                                at.min(MAX_SHEET_ROWS),
                                None,
                                Located::Message(format!(
                                    "a row after row {MAX_SHEET_ROWS}, the last a sheet has"
                                )),
                            ));
                        }
                        for line in at..last {
                            self.budget
                                .text(row.bytes())
                                .map_err(|m| self.error(line, None, Located::Message(m)))?;
                            if !visit(self.located, line + 1, row.cells()) {
                                return Ok(());
                            }
                        }
                    }
                    at = at.saturating_add(count);
                }
                Event::End(depth) if depth < table_at => return Ok(()),
                _ => {}
            }
        }
    }

    /// Reads the row element just started (row `at` from 0) into `row`: its cells by column,
    /// repeated cells spelled out.
    fn read_row(
        &self,
        xml: &mut XmlReader<Part<'_, '_>>,
        at: u64,
        row: &mut SheetRow,
    ) -> Result<(), InputError> {
        let row_at = xml.depth();
        // The column (from 0) the next cell starts at, and how many cell elements there were.
        let (mut column, mut elements) = (0u64, 0u64);
        let mut text = String::new();
        loop {
            let event = xml
                .next()
                .map_err(|e| self.error(at, None, Located::Xml(e)))?;
            match event {
                Event::Start(tag)
                    if tag.name() == b"table:table-cell"
                        || tag.name() == b"table:covered-table-cell" =>
                {
                    elements += 1;
                    if elements > MAX_SHEET_COLUMNS {
                        return Err(self.error(
                            at,
                            None,
                            Located::Message(format!(
                                "more than {MAX_SHEET_COLUMNS} columns, the most a sheet has"
                            )),
                        ));
                    }
                    let here = column.min(MAX_SHEET_COLUMNS - 1);
                    let fail = |e| self.error(at, Some(here), e);
                    let count = repeats(
                        tag.attr(b"table:number-columns-repeated"),
                        "a cell's repeat",
                    )
                    .map_err(fail)?;
                    let (value, in_content) = cell_value(&tag).map_err(fail)?;
                    let value = if in_content {
                        text.clear();
                        read_cell_text(xml, &mut text).map_err(fail)?;
                        Cell::String(std::mem::take(&mut text))
                    } else {
                        xml.skip_element()
                            .map_err(|e| self.error(at, Some(here), Located::Xml(e)))?;
                        value
                    };
                    let cell = super::cell_into_text(value);
                    if !cell.is_empty() && count > 0 {
                        let end = column.saturating_add(count);
                        if end > MAX_SHEET_COLUMNS {
                            return Err(self.error(
                                at,
                                None,
                                Located::Message(format!(
                                    "a cell after column XFD ({MAX_SHEET_COLUMNS}), the last a \
                                     sheet has"
                                )),
                            ));
                        }
                        // Its length, repeated, is checked before it is spelled out.
                        let spelled = (cell.len() as u64 + 1).saturating_mul(count);
                        if spelled > MAX_RECORD_BYTES as u64 {
                            return Err(self.error(
                                at,
                                None,
                                Located::Message(super::row_too_long()),
                            ));
                        }
                        for at_column in column..end {
                            row.set(at_column as usize, cell.clone())
                                .map_err(|m| self.error(at, None, Located::Message(m)))?;
                        }
                    }
                    column = column.saturating_add(count);
                }
                Event::Start(_) => xml
                    .skip_element()
                    .map_err(|e| self.error(at, None, Located::Xml(e)))?,
                Event::End(depth) if depth < row_at => return Ok(()),
                _ => {}
            }
        }
    }
}

/// A cell's value from its attributes (calamine's `get_datatype`), and whether it is in its
/// content instead (a string cell without `office:string-value`).
fn cell_value(tag: &super::xml::Tag<'_>) -> Result<(Cell, bool), Located> {
    let mut is_string = false;
    let mut value = None;
    for (key, raw) in tag.attrs() {
        if value.is_some() {
            break;
        }
        let decoded = || -> Result<String, Located> {
            let mut text = String::new();
            unescape_into(raw, &mut text, false, MAX_RECORD_BYTES)
                .map_err(|e| Located::Message(why(e)))?;
            Ok(text)
        };
        match key {
            b"office:value" => {
                let text = decoded()?;
                let number = text.parse::<f64>().map_err(|_| {
                    Located::Message(format!("office:value is {text:?}, not a number"))
                })?;
                value = Some(Cell::Float(number));
            }
            b"office:string-value" => value = Some(Cell::String(decoded()?)),
            b"office:date-value" => value = Some(Cell::DateTimeIso(decoded()?)),
            b"office:time-value" => value = Some(Cell::DurationIso(decoded()?)),
            b"office:boolean-value" => value = Some(Cell::Bool(raw == b"TRUE" || raw == b"true")),
            b"office:value-type" => is_string = raw == b"string",
            _ => {}
        }
    }
    Ok(match value {
        Some(value) => (value, false),
        None => (Cell::Empty, is_string),
    })
}

/// Reads the text of the cell just started, as calamine does: its paragraphs joined by line
/// ends, `text:s` as spaces, annotations left out; within a record's length.
fn read_cell_text(xml: &mut XmlReader<Part<'_, '_>>, out: &mut String) -> Result<(), Located> {
    let open = xml.depth();
    let mut first_paragraph = true;
    let long = || Located::Message(why(None));
    loop {
        match xml.next().map_err(Located::Xml)? {
            Event::Start(tag) => {
                let name = tag.name();
                if name == b"office:annotation" {
                    xml.skip_element().map_err(Located::Xml)?;
                } else if name == b"text:p" {
                    if !std::mem::take(&mut first_paragraph) {
                        out.push('\n');
                    }
                } else if name == b"text:s" {
                    let count = repeats(tag.attr(b"text:c"), "a run of spaces")?;
                    if out.len() as u64 + count > MAX_RECORD_BYTES as u64 {
                        return Err(long());
                    }
                    out.extend(std::iter::repeat_n(' ', count as usize));
                }
            }
            Event::Text(raw) => unescape_into(raw, out, false, MAX_RECORD_BYTES)
                .map_err(|e| Located::Message(why(e)))?,
            Event::End(depth) if depth < open => return Ok(()),
            _ => {}
        }
        if out.len() > MAX_RECORD_BYTES {
            return Err(long());
        }
    }
}
