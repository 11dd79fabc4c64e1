//! A platform's CSV export read whole as a table of text (a Canvas gradebook export, a Moodle
//! grading worksheet, a GitHub Classroom roster), and the cells written back: the importers
//! read these files, so they are read as strictly as a gradebook (every row as wide as the
//! header, UTF-8, every problem located) and written with the cells a spreadsheet cannot run.

use std::io::Read;
use std::path::Path;

use crate::input::records::RecordReader;
use crate::input::{
    body_record, header_record, thousands, BodyRecord, ErrorKind, InputError, InputErrors,
};
use crate::limits::{MAX_ROSTER_BYTES, MAX_ROSTER_CELLS, MAX_ROSTER_ROWS};

/// One row of a table: its line in the file and its cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The line the row starts on.
    pub line: u64,
    /// Its cells, as many as the header has (a column the reader left out, [`Kept`], is
    /// blank).
    pub cells: Vec<String>,
    /// Whether every cell left out of it ([`Kept`]) is one its `quiet` accepts (`true`
    /// when none is left out).
    pub left_out_quiet: bool,
}

/// Which columns of a table are kept, as its reader decides from the header: the others are
/// read (checked as UTF-8) but not held, so that a roster of many columns costs only the
/// ones used (issue 36: a Canvas export of 100,000 learners and 20 columns peaked at 511 MiB
/// to use 6 of them).
pub struct Kept {
    /// Per column, whether it is kept.
    pub columns: Vec<bool>,
    /// Whether a cell left out is of no account (a row whose left-out cells are not all so
    /// is marked, [`Row::left_out_quiet`]).
    pub quiet: fn(&str) -> bool,
}

/// What decides, from a table's header (a table with no rows yet), which columns to keep;
/// `None` keeps them all.
pub type KeepColumns<'a> = &'a dyn Fn(&Table) -> Option<Kept>;

/// A CSV file read whole: its header and rows, and the delimiter it was written with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    /// The file as named on the command line, for errors.
    pub name: String,
    /// The header row's cells.
    pub header: Vec<String>,
    /// The line the header is on.
    pub header_line: u64,
    /// The rows after the header, blank ones left out.
    pub rows: Vec<Row>,
}

impl Table {
    /// The index of the header cell equal to `name` (ASCII case ignored, spaces around
    /// trimmed), if exactly one is.
    pub fn column(&self, name: &str) -> Option<usize> {
        let mut found = self
            .header
            .iter()
            .enumerate()
            .filter(|(_, cell)| cell.trim().eq_ignore_ascii_case(name));
        let first = found.next()?.0;
        found.next().is_none().then_some(first)
    }

    /// An error at the header, about `column`.
    pub fn header_error(&self, message: impl Into<String>) -> InputError {
        InputError::new(ErrorKind::Header, &self.name, self.header_line, message).column("header")
    }
}

/// Reads `path` as a table. Canvas exports with a semicolon when the instructor's locale
/// asks for one, so the delimiter is the one of `,` and `;` that splits the header into more
/// cells, as Canvas's own importer decides (`GradebookImporter#identify_delimiter`); a BOM is
/// dropped. It is read a record at a time, never whole, and held to
/// [`MAX_ROSTER_ROWS`] rows, [`MAX_ROSTER_CELLS`] cells and [`MAX_ROSTER_BYTES`] bytes of
/// text as it is read.
pub fn read_table(path: &Path) -> Result<Table, InputErrors> {
    read_table_keeping(path, &|_| None)
}

/// [`read_table`], holding only the columns `keep` decides from the header.
pub fn read_table_keeping(path: &Path, keep: KeepColumns<'_>) -> Result<Table, InputErrors> {
    let name = path.to_string_lossy().into_owned();
    let file = std::fs::File::open(path)
        .map_err(|e| InputErrors::one(InputError::unreadable(&name, 0, e)))?;
    parse_table_keeping(file, &name, keep)
}

/// Parses a table (named `name` in errors) from `reader`.
#[cfg(test)]
pub fn parse_table(reader: impl Read, name: &str) -> Result<Table, InputErrors> {
    parse_table_keeping(reader, name, &|_| None)
}

/// `parse_table`, holding only the columns `keep` decides from the header.
pub fn parse_table_keeping(
    reader: impl Read,
    name: &str,
    keep: KeepColumns<'_>,
) -> Result<Table, InputErrors> {
    let mut records = RecordReader::new(reader, true);
    let cells_with = |line: &[u8], delimiter: u8| {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .delimiter(delimiter)
            .from_reader(line);
        reader
            .records()
            .next()
            .and_then(Result::ok)
            .map_or(0, |record| record.len())
    };
    let delimiter = match records.peek_line() {
        Ok(Some(line)) if cells_with(line, b';') > cells_with(line, b',') => b';',
        _ => b',',
    };
    records.set_delimiter(delimiter);
    let mut errors = InputErrors::new();
    let text = |bytes: &[u8], line: u64, errors: &mut InputErrors| -> String {
        match std::str::from_utf8(bytes) {
            Ok(text) => text.to_owned(),
            Err(_) => {
                errors.push(
                    InputError::new(
                        ErrorKind::Encoding,
                        name,
                        line,
                        "not valid UTF-8: save the file as UTF-8",
                    )
                    .value(String::from_utf8_lossy(bytes)),
                );
                String::from_utf8_lossy(bytes).into_owned()
            }
        }
    };
    let (header_line, header) = match header_record(&mut records, name, &mut errors) {
        Ok(Some(record)) => {
            let line = record.line;
            let cells: Vec<Vec<u8>> = record.iter().map(<[u8]>::to_vec).collect();
            let header = cells
                .iter()
                .map(|cell| text(cell, line, &mut errors))
                .collect::<Vec<_>>();
            (line, header)
        }
        Ok(None) => return Err(errors),
        Err(failure) => return Err(InputErrors::one(failure.at(name, records.line()))),
    };
    let mut table = Table {
        name: name.to_owned(),
        header,
        header_line,
        rows: Vec::new(),
    };
    let kept = keep(&table);
    let Table { header, .. } = &table;
    let mut rows = Vec::new();
    let mut cells_kept = header.len();
    let mut bytes_kept: usize = header.iter().map(String::len).sum();
    loop {
        let record = match body_record(&mut records, name, header.len(), &mut errors) {
            Ok(BodyRecord::Row(record)) => record,
            Ok(BodyRecord::Ragged(_) | BodyRecord::Skipped) => continue,
            Ok(BodyRecord::End) => break,
            Err(failure) => {
                errors.push(failure.at(name, records.line()));
                break;
            }
        };
        let line = record.line;
        cells_kept += record.len();
        if rows.len() == MAX_ROSTER_ROWS || cells_kept > MAX_ROSTER_CELLS {
            // What is kept of a roster is held while the class is graded: it is refused
            // where it passes the limit, before more is read.
            errors.push(InputError::new(
                ErrorKind::Limit,
                name,
                line,
                format!(
                    "the roster has more than {} rows or {} cells, the most one may have (a \
                     class is graded in memory, within 256 MiB): grade the class in parts",
                    thousands(MAX_ROSTER_ROWS as u64),
                    thousands(MAX_ROSTER_CELLS as u64)
                ),
            ));
            return Err(errors);
        }
        let is_kept = |at: usize| match &kept {
            Some(kept) => kept.columns.get(at).copied().unwrap_or(true),
            None => true,
        };
        bytes_kept += record
            .iter()
            .enumerate()
            .filter(|(at, _)| is_kept(*at))
            .map(|(_, cell)| cell.len())
            .sum::<usize>();
        if bytes_kept > MAX_ROSTER_BYTES {
            errors.push(InputError::new(
                ErrorKind::Limit,
                name,
                line,
                format!(
                    "the roster holds more than {} bytes (16 MiB) of text in the cells it keeps, \
                     the most one may (a class is graded in memory, within 256 MiB): grade the \
                     class in parts",
                    thousands(MAX_ROSTER_BYTES as u64)
                ),
            ));
            return Err(errors);
        }
        let cells: Vec<Vec<u8>> = record.iter().map(<[u8]>::to_vec).collect();
        let mut left_out_quiet = true;
        let cells = cells
            .iter()
            .enumerate()
            .map(|(at, cell)| match &kept {
                Some(kept) if !is_kept(at) => {
                    match std::str::from_utf8(cell) {
                        Ok(cell) => left_out_quiet &= (kept.quiet)(cell),
                        Err(_) => drop(text(cell, line, &mut errors)),
                    }
                    String::new()
                }
                _ => text(cell, line, &mut errors),
            })
            .collect();
        rows.push(Row {
            line,
            cells,
            left_out_quiet,
        });
    }
    if errors.is_empty() {
        table.rows = rows;
        Ok(table)
    } else {
        Err(errors)
    }
}

/// A cell of a file the platform imports, from its own export (a name, an e-mail) or ours
/// (the feedback, already shown as a person reads it): kept as it is, so the platform matches
/// it back, and never live as a formula, made inert the reversible way
/// ([`crate::sanitize::spreadsheet_cell`]: a `'` before a live value). Every cell an LMS
/// gradebook writes from input goes through here (the cells the importer reads, an id, a
/// date, are written as the platform wrote them).
pub fn sheet_cell(text: &str) -> String {
    crate::sanitize::spreadsheet_cell(text).into_owned()
}

/// Writes `rows` as CSV (comma-separated, `\n` line ends, quoted where needed). The cells are
/// written as given: the callers pass what came from input through [`sheet_cell`], and
/// leave the cells the importer reads as the platform wrote them.
pub fn csv_text(rows: &[Vec<String>]) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer
            .write_record(row)
            .expect("writing CSV to memory cannot fail");
    }
    let bytes = writer
        .into_inner()
        .expect("writing CSV to memory cannot fail");
    String::from_utf8(bytes).expect("CSV of strings is UTF-8")
}

/// Writes `rows` as CSV that PHP's `fgetcsv` reads back cell for cell, for Moodle's upload
/// (`csv_import_reader::load_csv_content` in Moodle's `lib/csvlib.class.php` reads the file
/// with `fgetcsv($fp, 0, $delimiter, $enclosure)`, whose escape character is `\`).
///
/// `php_fgetcsv` in php-src's `ext/standard/file.c` reads an enclosed cell a byte at a time:
/// a `"` followed by another is one `"`, a `"` followed by anything else ends the enclosure
/// (and what follows, up to the delimiter, is added as it is), and a `\` makes the character
/// after it literal (both kept): so a `"` after an unpaired `\` must not be doubled, and
/// RFC 4180's doubling of `\"EXPIRED\"` is read as a quote that ends the cell early (Moodle
/// then finds a row of other width and refuses the whole worksheet, `csvweirdcolumns`). A
/// cell ending in an unpaired `\` is closed before it, the `\` following the enclosure. A
/// cell is enclosed when it holds a comma, a `"`, a `\` or a line break, or starts or ends
/// with white space (which `fgetcsv` and Moodle's `trim` of the file would take off).
pub fn php_csv_text(rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            php_cell(cell, &mut out);
        }
        out.push('\n');
    }
    out
}

/// Whether Moodle's upload would misread `cell` the second time it reads the worksheet:
/// `load_csv_content` stores the rows it read with PHP's `fputcsv` (`csv_export_writer::
/// print_array`) and the importer's `next()` reads them back with `fgetcsv`, and the two
/// disagree on a backslash before a quote. `php_fputcsv` doubles no `"` after a `\`, while
/// `php_fgetcsv` takes each `\` as escaping the character after it: so a cell ending in an
/// odd run of backslashes (its closing `"` read as escaped) or holding a `"` after an even run
/// (read as the enclosure's end) comes back split or joined with the cells after it, and the
/// row's grade is read from another cell. No writing of the file avoids it: the cell is
/// refused where it is read ([`super::moodle`]), and the feedback written holds neither
/// character.
pub fn php_reread_breaks(cell: &str) -> bool {
    let mut backslashes = 0usize;
    for c in cell.chars() {
        match c {
            '\\' => backslashes += 1,
            '"' if backslashes > 0 && backslashes % 2 == 0 => return true,
            _ => backslashes = 0,
        }
    }
    backslashes % 2 == 1
}

/// One cell of [`php_csv_text`].
fn php_cell(cell: &str, out: &mut String) {
    let is_space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c');
    let enclose = cell.contains([',', '"', '\\', '\n', '\r'])
        || cell.starts_with(is_space)
        || cell.ends_with(is_space);
    if !enclose {
        out.push_str(cell);
        return;
    }
    out.push('"');
    let mut escaped = false;
    for c in cell.chars() {
        if escaped {
            out.push(c);
            escaped = false;
        } else if c == '\\' {
            out.push(c);
            escaped = true;
        } else if c == '"' {
            out.push_str("\"\"");
        } else {
            out.push(c);
        }
    }
    if escaped {
        // An unpaired `\` last would make the closing `"` literal: close before it.
        out.pop();
        out.push_str("\"\\");
    } else {
        out.push('"');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_read_strictly_with_their_delimiter() {
        let table =
            parse_table(&b"\xEF\xBB\xBFa;b;c\r\n1;\"x;y\";3\n\n4;5;6\n"[..], "t.csv").unwrap();
        assert_eq!(table.header, ["a", "b", "c"]);
        assert_eq!(table.rows.len(), 2);
        assert_eq!(table.rows[0].cells, ["1", "x;y", "3"]);
        assert_eq!(table.rows[1].line, 4);
        let errors = parse_table(&b"a,b\n1,2,3\n\xff,2\n"[..], "t.csv").unwrap_err();
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages[0].starts_with("t.csv:2: the row has 3 cells"));
        assert!(messages[1].starts_with("t.csv:3: not valid UTF-8"));
        assert_eq!(table.column("B"), Some(1));
    }

    #[test]
    fn cells_from_input_cannot_be_formulas_and_keep_their_text() {
        assert_eq!(sheet_cell("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(sheet_cell("@SUM(1)"), "'@SUM(1)");
        assert_eq!(sheet_cell("+1+1"), "'+1+1");
        assert_eq!(sheet_cell("-1+A1"), "'-1+A1");
        // A plain signed number is a number to a spreadsheet, not a formula (sanitize's rule).
        assert_eq!(sheet_cell("-1"), "-1");
        assert_eq!(sheet_cell("-"), "-");
        assert_eq!(sheet_cell("\t=1"), "'\t=1");
        assert_eq!(sheet_cell("Ada\tLovelace"), "Ada\tLovelace");
        assert_eq!(sheet_cell("O'Brien, Siân"), "O'Brien, Siân");
    }

    #[test]
    fn php_cells_escape_as_fgetcsv_reads_them() {
        let rows = |cells: &[&str]| php_csv_text(&[cells.iter().map(|c| c.to_string()).collect()]);
        assert_eq!(rows(&["a", "b c", ""]), "a,b c,\n");
        assert_eq!(rows(&["\\\"EXPIRED\\\""]), "\"\\\"EXPIRED\\\"\"\n");
        assert_eq!(rows(&["say \"hi\""]), "\"say \"\"hi\"\"\"\n");
        assert_eq!(rows(&["ends\\"]), "\"ends\"\\\n");
        assert_eq!(rows(&["two\\\\"]), "\"two\\\\\"\n");
        assert_eq!(rows(&[" lead", "x,y"]), "\" lead\",\"x,y\"\n");
    }

    #[test]
    fn cells_moodle_reads_back_wrongly_are_known() {
        for broken in ["x\\", "x\\\\\\", "a\\\\\", b", "\\\\\"", "a\\\\\"\"b"] {
            assert!(php_reread_breaks(broken), "{broken}");
        }
        for kept in [
            "\\\"EXPIRED\\\"",
            "x\\\\",
            "a\\b",
            "say \"hi\"",
            "plain",
            "",
            "\\\\\\\"",
        ] {
            assert!(!php_reread_breaks(kept), "{kept}");
        }
    }
}
