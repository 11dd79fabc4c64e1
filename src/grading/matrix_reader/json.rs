//! A matrix as the JSON array of spec section 5, read as it comes, a case object at a time
//! (a 400k-case matrix is never held as text), each located by the line it opens on.

use serde::de::{Deserializer, SeqAccess, Visitor};
use serde_json::Value;

use super::rows::Split;
use super::{
    add_row, check_golden_cells, MatrixFile, MatrixRead, Strictness, UNKNOWN_GOLDEN_COLUMN,
};
use crate::grading::columns::{column_from_header, Column};
use crate::input::{ErrorKind, InputError, InputErrors, JsonObject};

/// Reads a JSON matrix as it comes, a case at a time (a 400k-case matrix is never held as
/// text): each case object is located by the line it opens on.
pub(super) fn read(
    reader: impl std::io::Read,
    name: &str,
    how: &MatrixRead<'_>,
    keep: &[bool],
    split: Split<'_>,
    errors: &mut InputErrors,
) -> Option<MatrixFile> {
    let strictness = how.strictness;
    use crate::input::json_array::{Element, Failure, Limit, TrackedReader, Tracker};
    use crate::input::json_fast::Restart;

    struct Cases<'r> {
        tracker: &'r Tracker,
        file: &'r mut MatrixFile,
        /// Whether the first element is the scan's stand-in, not a case.
        skip_first: bool,
        strictness: Strictness,
        errors: &'r mut InputErrors,
    }
    impl<'de> Visitor<'de> for Cases<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an array of case objects")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut cases: A) -> Result<(), A::Error> {
            let element = || Element {
                tracker: self.tracker,
                limit: Limit::Record,
            };
            let mut skip = self.skip_first;
            while let Some((line, raw)) = cases.next_element_seed(element())? {
                if std::mem::take(&mut skip) {
                    continue;
                }
                add_json_case(self.file, line, raw.get(), self.strictness, self.errors);
            }
            Ok(())
        }
    }

    let mut file = MatrixFile::with_split(name, None, vec![true; Column::COUNT], keep, split);
    // Well-formed arrays are scanned for their objects; anything else (and what follows) is
    // read by serde_json's parser from where the scan stopped.
    let mut object = |line: u64, text: &str| match serde_json::from_str::<CaseObject>(text) {
        Ok(object) => {
            add_case_object(&mut file, line, &object, strictness, errors);
            true
        }
        Err(_) => false,
    };
    let (rest, skip_first) = match crate::input::json_fast::read_array(reader, &mut object) {
        Ok(()) => return Some(file),
        Err(Restart::Io(e)) => {
            errors.push(InputError::unreadable(name, 0, e));
            // With the rows read so far: a split matrix's duplicates among them are found
            // later, and listed with this error.
            return Some(file);
        }
        Err(Restart::At { rest, skip_first }) => (rest, skip_first),
    };
    let tracker = Tracker::new();
    let mut parser = serde_json::Deserializer::from_reader(TrackedReader::new(rest, &tracker));
    let read = (&mut parser)
        .deserialize_seq(Cases {
            tracker: &tracker,
            file: &mut file,
            skip_first,
            strictness,
            errors,
        })
        .and_then(|()| parser.end());
    let Err(e) = read else {
        return Some(file);
    };
    let error = match tracker.failure() {
        Some(Failure::InvalidUtf8 { line }) => {
            InputError::new(ErrorKind::Encoding, name, line, "not valid UTF-8")
        }
        Some(Failure::TooLong { line, limit }) => InputError::unreadable(name, line, limit),
        None if e.is_io() => InputError::unreadable(name, 0, e),
        None if e.is_data() => InputError::new(
            ErrorKind::Syntax,
            name,
            e.line() as u64,
            "a JSON matrix is one array of case objects",
        ),
        None => InputError::new(
            ErrorKind::Syntax,
            name,
            e.line() as u64,
            format!("unreadable JSON: {e}"),
        ),
    };
    errors.push(error);
    Some(file)
}

/// Adds the case object `element` (its text, at `line`) to `file`.
fn add_json_case(
    file: &mut MatrixFile,
    line: u64,
    element: &str,
    strictness: Strictness,
    errors: &mut InputErrors,
) {
    let parsed = serde_json::from_str::<CaseObject>(element);
    if parsed.is_err() {
        // A row all the same (add_case_object counts the others).
        file.records += 1;
    }
    match parsed {
        Ok(object) => add_case_object(file, line, &object, strictness, errors),
        // serde_json's parser nests at most 128 deep (no matrix cell nests at all).
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
            errors.push(InputError::new(
                ErrorKind::Syntax,
                &file.name,
                line,
                "a value nested more than 128 deep, which no matrix cell is",
            ))
        }
        Err(_) => errors.push(InputError::new(
            ErrorKind::Syntax,
            &file.name,
            line,
            "each case must be a JSON object",
        )),
    }
}

/// Adds the case object `object`, at `line`, to `file`.
fn add_case_object(
    file: &mut MatrixFile,
    line: u64,
    object: &CaseObject,
    strictness: Strictness,
    errors: &mut InputErrors,
) {
    if file.case_file {
        return;
    }
    // A case file's row first: the file is a case file, said once (see `Table::new`).
    if file.records == 0 {
        let keys: Vec<Option<&str>> = object.0.iter().map(|(key, _)| Some(key.as_str())).collect();
        if super::case_file_header(&keys) {
            file.case_file = true;
            errors.push(
                InputError::new(
                    ErrorKind::Swapped,
                    &file.name,
                    line,
                    super::CASE_FILE_NOT_MATRIX,
                )
                .column("key"),
            );
            return;
        }
    }
    file.records += 1;
    let name = &file.name.clone();
    let mut cells: Vec<Option<String>> = vec![None; Column::COUNT];
    let mut named_by: Vec<Option<&str>> = vec![None; Column::COUNT];
    let mut row_ok = true;
    // Values of keys reported as duplicates, checked (golden files) but never kept.
    let mut repeated: Vec<(Column, String)> = Vec::new();
    // Keys after the last matrix column are spec section 5's further columns.
    let last_matrix_column = object
        .0
        .iter()
        .rposition(|(key, _)| column_from_header(key).is_some());
    for (position, (key, value)) in object.0.iter().enumerate() {
        let Some(column) = column_from_header(key) else {
            if strictness == Strictness::Golden
                && last_matrix_column.is_some_and(|last| position < last)
            {
                errors.push(
                    InputError::new(ErrorKind::Header, name, line, UNKNOWN_GOLDEN_COLUMN)
                        .column("key")
                        .value(key.as_str()),
                );
            }
            continue;
        };
        if let Some(earlier) = named_by[column.index()] {
            errors.push(
                InputError::new(
                    ErrorKind::Header,
                    name,
                    line,
                    format!("keys {earlier:?} and {key:?} both name the column {column}"),
                )
                .column(column.name()),
            );
            row_ok = false;
            repeated.extend(json_cell(value).map(|cell| (column, cell)));
            continue;
        }
        named_by[column.index()] = Some(key);
        match json_cell(value) {
            Some(cell) => cells[column.index()] = Some(cell),
            None => {
                errors.push(
                    InputError::new(
                        ErrorKind::Value,
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
    // Listed after the row's structural errors, as in CSV files.
    let mut value_errors = InputErrors::new();
    if strictness == Strictness::Golden {
        let given = cells
            .iter()
            .enumerate()
            .filter_map(|(index, cell)| Some((Column::at(index)?, cell.as_deref()?)));
        let repeated = repeated
            .iter()
            .map(|(column, cell)| (*column, cell.as_str()));
        check_golden_cells(name, line, given.chain(repeated), &mut value_errors);
    }
    if row_ok {
        add_row(file, line, &cells, errors);
    }
    errors.append(value_errors);
}

/// A case object: its keys in order, duplicates kept, each value parsed.
type CaseObject = JsonObject<Value>;

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
