//! Reading a matrix leniently — a golden file or a learner's filled-in submission — as CSV or
//! as the JSON array of spec section 5, with every problem located.
//!
//! Lenient means what a spreadsheet export needs (spec section 8 and issue 3): a byte-order
//! mark, CRLF line endings, blank lines, extra columns, columns in any order, headings as the
//! lesson writes them (`Decision`, `Stale Generation`), and rows with trailing cells left off.
//! A duplicated `case_id`, a row without one, an unreadable file and a row with more cells
//! than the header are errors.

use std::collections::HashMap;
use std::path::Path;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::columns::Column;
use crate::input::{InputError, InputErrors};
use crate::matrix::MatrixRow;

/// How a matrix file is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixFileFormat {
    /// CSV with a header row.
    Csv,
    /// One JSON array of case objects (spec section 5).
    Json,
}

impl MatrixFileFormat {
    /// The format a file's extension implies: `.json` (any case) is JSON, anything else CSV.
    pub fn for_path(path: &Path) -> MatrixFileFormat {
        let json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        if json {
            MatrixFileFormat::Json
        } else {
            MatrixFileFormat::Csv
        }
    }
}

/// One case's row of a matrix file, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatrixEntry {
    /// The case id, trimmed.
    pub case_id: String,
    /// The line the row starts on.
    pub line: u64,
    /// The cells in [`crate::matrix::COLUMNS`] order, as written; `None` where the file has no
    /// such column (CSV) or the row no such key (JSON).
    pub cells: Vec<Option<String>>,
}

impl MatrixEntry {
    /// The cell of `column`, if the row gives it.
    pub fn cell(&self, column: Column) -> Option<&str> {
        self.cells[column.index()].as_deref()
    }
}

/// A matrix read from a file (or built from the engine's verdicts): rows in file order,
/// findable by case id.
#[derive(Clone, Debug)]
pub struct MatrixFile {
    /// The file's name as given, for messages and annotations.
    pub name: String,
    /// The CSV header's line; `None` for JSON, whose keys are per row.
    pub header_line: Option<u64>,
    /// Which columns the CSV header has (every column for JSON and engine matrices).
    header_columns: Vec<bool>,
    /// The rows, in file order.
    pub rows: Vec<MatrixEntry>,
    by_case_id: HashMap<String, usize>,
}

impl MatrixFile {
    fn new(name: &str, header_line: Option<u64>, header_columns: Vec<bool>) -> MatrixFile {
        MatrixFile {
            name: name.to_owned(),
            header_line,
            header_columns,
            rows: Vec::new(),
            by_case_id: HashMap::new(),
        }
    }

    /// The engine's matrix for the cases of the file `name`, each row located at `line` (the
    /// case's first line in the case file).
    pub fn from_matrix_rows<'a>(
        name: &str,
        rows: impl IntoIterator<Item = (u64, &'a MatrixRow)>,
    ) -> MatrixFile {
        let mut file = MatrixFile::new(name, None, vec![true; Column::COUNT]);
        for (line, row) in rows {
            let cells = row.cells().into_iter().map(Some).collect();
            // The engine never yields two cases with one id, so this cannot fail.
            let _ = file.push(MatrixEntry {
                case_id: row.case_id.clone(),
                line,
                cells,
            });
        }
        file
    }

    /// The row of `case_id`, if there is one.
    pub fn find(&self, case_id: &str) -> Option<&MatrixEntry> {
        self.by_case_id.get(case_id).map(|&i| &self.rows[i])
    }

    /// The index in [`rows`](MatrixFile::rows) of `case_id`'s row, if there is one.
    pub fn position(&self, case_id: &str) -> Option<usize> {
        self.by_case_id.get(case_id).copied()
    }

    /// Adds a row; a case id already present is refused with the line it is on.
    fn push(&mut self, entry: MatrixEntry) -> Result<(), u64> {
        if let Some(&earlier) = self.by_case_id.get(&entry.case_id) {
            return Err(self.rows[earlier].line);
        }
        self.by_case_id
            .insert(entry.case_id.clone(), self.rows.len());
        self.rows.push(entry);
        Ok(())
    }

    /// Every graded column the file lacks, located: at the CSV header, or at each JSON row
    /// without the key.
    pub fn missing_columns(&self, graded: &[Column]) -> Vec<InputError> {
        let mut errors = Vec::new();
        if let Some(header_line) = self.header_line {
            for &column in graded {
                if !self.header_columns[column.index()] {
                    errors.push(
                        InputError::new(
                            &self.name,
                            header_line,
                            format!("no column for the graded column {column}"),
                        )
                        .column("header"),
                    );
                }
            }
        } else {
            for row in &self.rows {
                for &column in graded {
                    if row.cell(column).is_none() {
                        errors.push(
                            InputError::new(&self.name, row.line, "the row has no such key")
                                .column(column.name()),
                        );
                    }
                }
            }
        }
        errors
    }
}

/// Reads a matrix file, in the format its extension implies.
pub fn read_matrix_file(path: &Path, name: &str) -> Result<MatrixFile, InputErrors> {
    let bytes = std::fs::read(path)
        .map_err(|e| InputErrors(vec![InputError::new(name, 0, format!("cannot read: {e}"))]))?;
    parse_matrix(&bytes, name, MatrixFileFormat::for_path(path))
}

/// Reads a matrix from its bytes (named `name` in errors).
pub fn parse_matrix(
    bytes: &[u8],
    name: &str,
    format: MatrixFileFormat,
) -> Result<MatrixFile, InputErrors> {
    let mut errors = Vec::new();
    let file = match format {
        MatrixFileFormat::Csv => parse_csv(bytes, name, &mut errors),
        MatrixFileFormat::Json => parse_json(bytes, name, &mut errors),
    };
    match file {
        Some(file) if errors.is_empty() => Ok(file),
        _ => Err(InputErrors(errors)),
    }
}

/// Adds a row, turning a missing or duplicated case id into an error.
fn add_row(
    file: &mut MatrixFile,
    line: u64,
    cells: Vec<Option<String>>,
    errors: &mut Vec<InputError>,
) {
    let case_id = cells[Column::CASE_ID.index()]
        .as_deref()
        .unwrap_or_default()
        .trim()
        .to_owned();
    if case_id.is_empty() {
        errors.push(InputError::new(&file.name, line, "missing case id").column("case_id"));
        return;
    }
    let name = file.name.clone();
    if let Err(earlier) = file.push(MatrixEntry {
        case_id: case_id.clone(),
        line,
        cells,
    }) {
        errors.push(
            InputError::new(
                &name,
                line,
                format!("duplicated case id: it is already on line {earlier}"),
            )
            .column("case_id")
            .value(case_id),
        );
    }
}

fn parse_csv(bytes: &[u8], name: &str, errors: &mut Vec<InputError>) -> Option<MatrixFile> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(body);
    let mut records = reader.byte_records();
    let located_csv_error = |e: csv::Error| {
        let line = e.position().map_or(0, |p| p.line());
        InputError::new(name, line, format!("unreadable CSV: {e}"))
    };
    let header = match records.next() {
        None => {
            errors.push(InputError::new(name, 1, "empty file: no header row"));
            return None;
        }
        Some(Err(e)) => {
            errors.push(located_csv_error(e));
            return None;
        }
        Some(Ok(header)) => header,
    };
    let mut lines = LineCounter::new(body);
    let header_line = header.position().map_or(1, |p| lines.record_line(p.byte()));
    // Where each header cell goes: the matrix column it names, if any.
    let mut targets: Vec<Option<Column>> = Vec::with_capacity(header.len());
    let mut header_columns = vec![false; Column::COUNT];
    let mut named_by: Vec<Option<String>> = vec![None; Column::COUNT];
    for cell in header.iter() {
        let Ok(text) = std::str::from_utf8(cell) else {
            errors.push(
                InputError::new(name, header_line, "header is not valid UTF-8")
                    .column("header")
                    .value(String::from_utf8_lossy(cell)),
            );
            targets.push(None);
            continue;
        };
        let column = Column::from_header(text);
        if let Some(column) = column {
            if let Some(earlier) = &named_by[column.index()] {
                errors.push(
                    InputError::new(
                        name,
                        header_line,
                        format!("columns {earlier:?} and {text:?} both name the column {column}"),
                    )
                    .column("header"),
                );
                targets.push(None);
                continue;
            }
            named_by[column.index()] = Some(text.to_owned());
            header_columns[column.index()] = true;
        }
        targets.push(column);
    }
    if !header_columns[Column::CASE_ID.index()] {
        errors.push(InputError::new(name, header_line, "no case_id column").column("header"));
    }
    let mut file = MatrixFile::new(name, Some(header_line), header_columns.clone());
    for record in records {
        let record = match record {
            Ok(record) => record,
            Err(e) => {
                errors.push(located_csv_error(e));
                continue;
            }
        };
        let line = record.position().map_or(0, |p| lines.record_line(p.byte()));
        if record.iter().all(|cell| cell.trim_ascii().is_empty()) {
            continue;
        }
        if record.len() > targets.len() {
            errors.push(InputError::new(
                name,
                line,
                format!(
                    "{} cells, but the header has {} columns",
                    record.len(),
                    targets.len()
                ),
            ));
            continue;
        }
        // Columns the header has start empty, so a row with trailing cells left off reads as
        // empty cells there; columns it lacks stay absent.
        let mut cells: Vec<Option<String>> = header_columns
            .iter()
            .map(|&present| present.then(String::new))
            .collect();
        let mut row_ok = true;
        for (cell, target) in record.iter().zip(&targets) {
            let Some(column) = target else { continue };
            match std::str::from_utf8(cell) {
                Ok(text) => cells[column.index()] = Some(text.to_owned()),
                Err(_) => {
                    errors.push(
                        InputError::new(name, line, "not valid UTF-8")
                            .column(column.name())
                            .value(String::from_utf8_lossy(cell)),
                    );
                    row_ok = false;
                }
            }
        }
        if row_ok {
            add_row(&mut file, line, cells, errors);
        }
    }
    Some(file)
}

/// Turns byte offsets into line numbers, counting newlines only since the last offset asked
/// about (offsets come in increasing order), so a file is scanned once.
struct LineCounter<'a> {
    body: &'a [u8],
    offset: usize,
    line: u64,
}

impl<'a> LineCounter<'a> {
    fn new(body: &'a [u8]) -> LineCounter<'a> {
        LineCounter {
            body,
            offset: 0,
            line: 1,
        }
    }

    /// The line of the byte at `offset`.
    fn line_of(&mut self, offset: usize) -> u64 {
        let offset = offset.min(self.body.len());
        if offset < self.offset {
            // Not expected, but stay correct: count again from the start.
            self.offset = 0;
            self.line = 1;
        }
        self.line += self.body[self.offset..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64;
        self.offset = offset;
        self.line
    }

    /// The line a CSV record starting at byte `offset` is on. The csv crate starts a record
    /// right after the previous terminator, which with CRLF is the `\r` (and skipped blank
    /// lines come before the record), so line breaks at the offset are passed over first.
    fn record_line(&mut self, offset: u64) -> u64 {
        let mut start = (offset as usize).min(self.body.len());
        while start < self.body.len() && matches!(self.body[start], b'\r' | b'\n') {
            start += 1;
        }
        self.line_of(start)
    }
}

fn parse_json(bytes: &[u8], name: &str, errors: &mut Vec<InputError>) -> Option<MatrixFile> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = match std::str::from_utf8(body) {
        Ok(text) => text,
        Err(e) => {
            let line = 1 + body[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            errors.push(InputError::new(name, line as u64, "not valid UTF-8"));
            return None;
        }
    };
    let elements: Vec<&RawValue> = match serde_json::from_str(text) {
        Ok(elements) => elements,
        Err(e) => {
            let message = if e.is_data() {
                "a JSON matrix is one array of case objects".to_owned()
            } else {
                format!("unreadable JSON: {e}")
            };
            errors.push(InputError::new(name, e.line() as u64, message));
            return None;
        }
    };
    let mut file = MatrixFile::new(name, None, vec![true; Column::COUNT]);
    let mut lines = LineCounter::new(text.as_bytes());
    for element in elements {
        // The element borrows from `text`, so its offset gives its line.
        let offset = element.get().as_ptr() as usize - text.as_ptr() as usize;
        let line = lines.line_of(offset);
        let object: Map<String, Value> = match serde_json::from_str(element.get()) {
            Ok(object) => object,
            Err(_) => {
                errors.push(InputError::new(
                    name,
                    line,
                    "each case must be a JSON object",
                ));
                continue;
            }
        };
        let mut cells: Vec<Option<String>> = vec![None; Column::COUNT];
        let mut named_by: Vec<Option<&str>> = vec![None; Column::COUNT];
        let mut row_ok = true;
        for (key, value) in &object {
            let Some(column) = Column::from_header(key) else {
                continue;
            };
            if let Some(earlier) = named_by[column.index()] {
                errors.push(
                    InputError::new(
                        name,
                        line,
                        format!("keys {earlier:?} and {key:?} both name the column {column}"),
                    )
                    .column(column.name()),
                );
                row_ok = false;
                continue;
            }
            named_by[column.index()] = Some(key);
            match json_cell(value) {
                Some(cell) => cells[column.index()] = Some(cell),
                None => {
                    errors.push(
                        InputError::new(
                            name,
                            line,
                            "not a string, number, boolean, null or array of them",
                        )
                        .column(column.name())
                        .value(value.to_string()),
                    );
                    row_ok = false;
                }
            }
        }
        if row_ok {
            add_row(&mut file, line, cells, errors);
        }
    }
    Some(file)
}

/// A JSON value as the text of a CSV cell: `null` is empty, an array is its elements joined
/// with `;`.
fn json_cell(value: &Value) -> Option<String> {
    fn scalar(value: &Value) -> Option<String> {
        match value {
            Value::Null => Some(String::new()),
            Value::String(text) => Some(text.clone()),
            Value::Number(number) => Some(number.to_string()),
            Value::Bool(flag) => Some(flag.to_string()),
            Value::Array(_) | Value::Object(_) => None,
        }
    }
    match value {
        Value::Array(items) => {
            let items: Option<Vec<String>> = items.iter().map(scalar).collect();
            Some(items?.join(";"))
        }
        other => scalar(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(text: &str) -> Result<MatrixFile, InputErrors> {
        parse_matrix(text.as_bytes(), "m.csv", MatrixFileFormat::Csv)
    }

    fn messages(result: Result<MatrixFile, InputErrors>) -> Vec<String> {
        result
            .unwrap_err()
            .0
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    #[test]
    fn messy_csv_is_read() {
        let file = csv("\u{feff}Note,Reason,Case ID,Decision\r\n\r\nx,within_lease,c1,ACTIVE\r\n,,,\r\ny,awaiting_ack,c2\r\n")
            .unwrap();
        assert_eq!(file.header_line, Some(1));
        assert_eq!(file.rows.len(), 2);
        let c1 = file.find("c1").unwrap();
        assert_eq!(c1.line, 3);
        assert_eq!(c1.cell(Column::DECISION), Some("ACTIVE"));
        assert_eq!(c1.cell(Column::REASON), Some("within_lease"));
        assert_eq!(c1.cell(Column::from_header("job_id").unwrap()), None);
        let c2 = file.find("c2").unwrap();
        assert_eq!(c2.line, 5);
        assert_eq!(c2.cell(Column::DECISION), Some(""));
        assert!(file
            .missing_columns(&[Column::DECISION, Column::REASON])
            .is_empty());
    }

    #[test]
    fn bad_csv_is_located() {
        assert_eq!(
            messages(csv("case_id,decision\nc1,ACTIVE\nc2,EXPIRED\nc1,ACTIVE\n")),
            ["m.csv:4: case_id: duplicated case id: it is already on line 2 (\"c1\")"]
        );
        assert_eq!(
            messages(csv("case_id,decision\n,ACTIVE\nc2,EXPIRED,extra\n")),
            [
                "m.csv:2: case_id: missing case id",
                "m.csv:3: 3 cells, but the header has 2 columns"
            ]
        );
        assert_eq!(
            messages(csv("Decision,decision,case_id\n")),
            ["m.csv:1: header: columns \"Decision\" and \"decision\" both name the column decision"]
        );
        assert_eq!(messages(csv("")), ["m.csv:1: empty file: no header row"]);
        let file = csv("case_id,decision\nc1,ACTIVE\n").unwrap();
        let missing: Vec<String> = file
            .missing_columns(&[Column::DECISION, Column::REASON])
            .iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(
            missing,
            ["m.csv:1: header: no column for the graded column reason"]
        );
    }

    #[test]
    fn json_matrix_is_read_with_lines() {
        let text = "[\n{\"case_id\":\"c1\",\"stale_generation\":[7,3],\"lease_expired\":false,\"Decision\":\"ACTIVE\",\"reason\":null},\n{\"case_id\":\"c2\",\"decision\":\"EXPIRED\"}\n]\n";
        let file = parse_matrix(text.as_bytes(), "m.json", MatrixFileFormat::Json).unwrap();
        let c1 = file.find("c1").unwrap();
        assert_eq!(c1.line, 2);
        assert_eq!(
            c1.cell(Column::from_header("stale_generation").unwrap()),
            Some("7;3")
        );
        assert_eq!(
            c1.cell(Column::from_header("lease_expired").unwrap()),
            Some("false")
        );
        assert_eq!(c1.cell(Column::REASON), Some(""));
        let missing: Vec<String> = file
            .missing_columns(&[Column::REASON])
            .iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(missing, ["m.json:3: reason: the row has no such key"]);
        let bad = parse_matrix(b"{\"cases\": []}", "m.json", MatrixFileFormat::Json);
        assert_eq!(
            messages(bad),
            ["m.json:1: a JSON matrix is one array of case objects"]
        );
    }
}
