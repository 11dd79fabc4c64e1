//! JSON case files: an array of rows, `{"cases": [...]}`, or NDJSON; every row located by the
//! line its object opens on.

use std::fmt;
use std::io::BufRead;
use std::marker::PhantomData;

use serde::de::{
    DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::error::{ErrorKind, InputError, InputErrors};
use super::fields::{
    cell_text, located, normalise_header, parse_row, BadRow, Field, FieldMap, Mapped, RawCells,
    RowResult, FIELD_COUNT,
};
use super::json_array::{Element, Failure, Limit, Noted, TrackedReader, Tracker};
use super::json_fast::Restart;

/// A JSON object with its keys in order and duplicates kept, so that a key given twice is
/// reported (as a CSV header naming a column twice is) rather than the last value winning:
/// the one object visitor of the JSON readers. `V` is how a value is kept: a case file's row
/// keeps each as written (`RowObject`), a matrix's case object parses it (`Value`).
pub struct JsonObject<V>(pub Vec<(String, V)>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for JsonObject<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<JsonObject<V>, D::Error> {
        struct ObjectVisitor<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for ObjectVisitor<V> {
            type Value = JsonObject<V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsonObject<V>, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, V>()? {
                    entries.push(entry);
                }
                Ok(JsonObject(entries))
            }
        }
        deserializer.deserialize_map(ObjectVisitor(PhantomData))
    }
}

/// A row object, each value as written: a number is kept verbatim (`1E5` stays `1E5`, spec
/// section 2), which a parsed [`Value`] would not do.
type RowObject<'a> = JsonObject<&'a RawValue>;

/// Counts lines as offsets into one text increase, from the line the text starts on.
struct LineCounter<'a> {
    text: &'a str,
    offset: usize,
    line: u64,
}

impl<'a> LineCounter<'a> {
    fn new(text: &'a str, line: u64) -> LineCounter<'a> {
        LineCounter {
            text,
            offset: 0,
            line,
        }
    }

    /// The line of `raw`, a slice of the text; calls must come in increasing order.
    fn line_of(&mut self, raw: &RawValue) -> u64 {
        let at = raw.get().as_ptr() as usize - self.text.as_ptr() as usize;
        let at = at.max(self.offset);
        self.line += self.text.as_bytes()[self.offset..at]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64;
        self.offset = at;
        self.line
    }
}

fn syntax_error(file: &str, e: &serde_json::Error) -> InputError {
    InputError::new(
        ErrorKind::Syntax,
        file,
        e.line() as u64,
        format!("invalid JSON: {e}"),
    )
}

/// The error that stopped reading a JSON document: the parser's, located where it says, or
/// the reader's own ([`Failure`]), located where it was.
pub(super) fn stream_error(file: &str, e: &serde_json::Error, tracker: &Tracker) -> InputError {
    match tracker.failure() {
        Some(Failure::InvalidUtf8 { line }) => {
            InputError::new(ErrorKind::Encoding, file, line, "not valid UTF-8")
        }
        Some(Failure::TooLong { line, limit }) => InputError::unreadable(file, line, limit),
        None if e.is_io() => InputError::unreadable(file, 0, e),
        None if e.is_syntax() && e.to_string().starts_with("control character") => {
            // The parser read the character (and may have read on); a parse of the whole text
            // (as before) stops at it, and that is where it is.
            let (line, column) = tracker.error_at();
            let text = e.to_string();
            let code = text.rfind(" at line ").map_or(&text[..], |at| &text[..at]);
            InputError::new(
                ErrorKind::Syntax,
                file,
                line,
                format!("invalid JSON: {code} at line {line} column {column}"),
            )
        }
        None => syntax_error(file, e),
    }
}

/// A syntax error inside one row object, whose own line and column (counted from the object,
/// not the file) would mislead: only the column is kept, as the error is already located.
fn relative_syntax_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let message = match text.rfind(" at line ") {
        Some(at) => &text[..at],
        None => &text,
    };
    format!("invalid JSON: {message} (column {})", e.column())
}

const SHAPE: &str = "a JSON case file is an array of row objects or an object {\"cases\": [...]}";

/// The key serde_json gives a number, under `arbitrary_precision`, when asked for any value:
/// a map of this one key.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// Where rows and errors go while a document is read.
struct Reading<'a> {
    file: &'a str,
    tracker: &'a Tracker,
    /// Whether the top array's first element is a stand-in, not read.
    skip_first: bool,
    errors: &'a mut InputErrors,
    sink: &'a mut dyn FnMut(u64, RowResult),
    observer: &'a mut dyn super::ReadObserver,
}

/// Reads a JSON document (an array of rows, or `{"cases": [...]}`) from `reader` as it
/// comes: each row reaches `sink` once its object is read, and only one element of the
/// document (a row, or a case of `{"cases": [...]}`) is held at a time.
pub(super) fn read_document(
    reader: impl std::io::Read,
    file: &str,
    errors: &mut InputErrors,
    sink: &mut dyn FnMut(u64, RowResult),
    observer: &mut dyn super::ReadObserver,
) {
    let mut object = |line: u64, text: &str| match serde_json::from_str::<RowObject>(text) {
        Ok(object) => {
            read_row(&object, None, file, line, errors, sink, observer);
            true
        }
        Err(_) => false,
    };
    match super::json_fast::read_array(reader, &mut object) {
        Ok(()) => {}
        Err(Restart::Io(e)) => errors.push(InputError::unreadable(file, 0, e)),
        Err(Restart::At { rest, skip_first }) => {
            read_stream(rest, skip_first, file, errors, sink, observer)
        }
    }
}

/// Reads the rows of a JSON array from a line's start inside it (for a case read again):
/// `false`, with nothing read, if the line does not start at an element, the `,` before one
/// or the `[`. Rows stop at the first thing the fast path does not expect; no error is
/// reported (the rows were read once already).
pub fn read_rows_from(
    reader: impl std::io::Read,
    file: &str,
    sink: &mut dyn FnMut(u64, RowResult),
) -> bool {
    let mut errors = InputErrors::new();
    let mut object = |line: u64, text: &str| match serde_json::from_str::<RowObject>(text) {
        Ok(object) => {
            read_row(
                &object,
                None,
                file,
                line,
                &mut errors,
                sink,
                &mut super::NoObserver,
            );
            true
        }
        Err(_) => false,
    };
    super::json_fast::read_rows_from(reader, &mut object)
}

/// Reads a JSON document with serde_json's parser reading a byte at a time: every shape,
/// and every error located as a parse of the whole text located it. With `skip_first`, the
/// first element of the top array is a stand-in (see [`Restart`]) and is not read.
fn read_stream(
    reader: impl std::io::Read,
    skip_first: bool,
    file: &str,
    errors: &mut InputErrors,
    sink: &mut dyn FnMut(u64, RowResult),
    observer: &mut dyn super::ReadObserver,
) {
    let tracker = Tracker::new();
    let mut parser = serde_json::Deserializer::from_reader(TrackedReader::new(reader, &tracker));
    let mut reading = Reading {
        file,
        tracker: &tracker,
        skip_first,
        errors,
        sink,
        observer,
    };
    let read = (&mut parser)
        .deserialize_any(Top(&mut reading))
        .and_then(|()| parser.end());
    if let Err(e) = read {
        reading.errors.push_final(stream_error(file, &e, &tracker));
    }
}

/// The document's top value: its shape decides how it is read.
struct Top<'r, 'a>(&'r mut Reading<'a>);

impl Top<'_, '_> {
    fn not_a_shape<E>(self) -> Result<(), E> {
        let reading = self.0;
        let line = reading.tracker.token_line();
        reading.errors.push(InputError::new(
            ErrorKind::Syntax,
            reading.file,
            line,
            SHAPE,
        ));
        Ok(())
    }
}

impl<'de> Visitor<'de> for Top<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(SHAPE)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut rows: A) -> Result<(), A::Error> {
        let reading = self.0;
        let element = || Element {
            tracker: reading.tracker,
            limit: Limit::Record,
        };
        while let Some((line, raw)) = rows.next_element_seed(element())? {
            if std::mem::take(&mut reading.skip_first) {
                continue;
            }
            read_object(
                raw.get(),
                None,
                reading.file,
                line,
                reading.errors,
                reading.sink,
                reading.observer,
            );
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let reading = self.0;
        let top_line = reading.tracker.token_line();
        let mut cases = false;
        while let Some(key) = map.next_key_seed(Key(reading.tracker))? {
            if key == NUMBER_TOKEN {
                map.next_value_seed(Noted(reading.tracker, PhantomData::<IgnoredAny>))?;
                return Top(reading).not_a_shape();
            }
            if key != "cases" {
                map.next_value_seed(Noted(reading.tracker, PhantomData::<IgnoredAny>))?;
                continue;
            }
            if cases {
                return Err(A::Error::duplicate_field("cases"));
            }
            reading.tracker.watch();
            cases = map.next_value_seed(CasesSeed(reading))?;
        }
        if !cases {
            reading.errors.push(InputError::new(
                ErrorKind::Syntax,
                reading.file,
                top_line,
                format!("the object has no \"cases\" key; {SHAPE}"),
            ));
        }
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        self.not_a_shape()
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        self.not_a_shape()
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.not_a_shape()
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        self.not_a_shape()
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        self.not_a_shape()
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        self.not_a_shape()
    }
}

/// A key of the top object, at most a record long.
struct Key<'t>(&'t Tracker);

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        let (_, key) = self.0.limited(Limit::Record, || {
            Noted(self.0, PhantomData::<String>).deserialize(deserializer)
        });
        key
    }
}

/// The value of `"cases"`: `true` if it is there (not `null`, which counts as no key).
struct CasesSeed<'r, 'a>(&'r mut Reading<'a>);

impl<'de> DeserializeSeed<'de> for CasesSeed<'_, '_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl CasesSeed<'_, '_> {
    fn not_an_array<E>(self) -> Result<bool, E> {
        let reading = self.0;
        let line = reading.tracker.token_line();
        reading.errors.push(
            InputError::new(
                ErrorKind::Syntax,
                reading.file,
                line,
                "must be an array of cases",
            )
            .column("cases"),
        );
        Ok(true)
    }
}

impl<'de> Visitor<'de> for CasesSeed<'_, '_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of cases")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut entries: A) -> Result<bool, A::Error> {
        let reading = self.0;
        let element = || Element {
            tracker: reading.tracker,
            limit: Limit::Case,
        };
        while let Some((line, raw)) = entries.next_element_seed(element())? {
            read_case(raw.get(), line, reading);
        }
        Ok(true)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let tracker = self.0.tracker;
        while map
            .next_entry_seed(
                Noted(tracker, PhantomData::<IgnoredAny>),
                Noted(tracker, PhantomData::<IgnoredAny>),
            )?
            .is_some()
        {}
        self.not_an_array()
    }

    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
        self.not_an_array()
    }

    fn visit_str<E>(self, _: &str) -> Result<bool, E> {
        self.not_an_array()
    }

    fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
        self.not_an_array()
    }

    fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
        self.not_an_array()
    }

    fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
        self.not_an_array()
    }
}

/// Reads one case of `{"cases": [...]}` (its text, at `line`): its rows take its `case_id`.
fn read_case(text: &str, line: u64, reading: &mut Reading<'_>) {
    #[derive(Deserialize)]
    struct CaseEntry<'a> {
        case_id: Option<Value>,
        #[serde(borrow)]
        messages: Option<Vec<&'a RawValue>>,
    }
    let file = reading.file;
    let entry: CaseEntry = match serde_json::from_str(text) {
        Ok(entry) => entry,
        Err(_) => {
            reading.errors.push(InputError::new(
                ErrorKind::Syntax,
                file,
                line,
                "each case must be an object {\"case_id\": ..., \"messages\": [...]}",
            ));
            return;
        }
    };
    let case_id = match entry.case_id {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_owned(),
        Some(Value::Number(n)) => n.to_string(),
        other => {
            let mut error = InputError::new(ErrorKind::Value, file, line, "missing or not text")
                .column("case_id");
            if let Some(value) = other {
                error = error.value(value.to_string());
            }
            reading.errors.push(error);
            return;
        }
    };
    let Some(messages) = entry.messages else {
        reading.errors.push(
            InputError::new(
                ErrorKind::Syntax,
                file,
                line,
                "missing or not an array of rows",
            )
            .column("messages"),
        );
        return;
    };
    let mut lines = LineCounter::new(text, line);
    for raw in messages {
        let line = lines.line_of(raw);
        if raw.get().len() > crate::limits::MAX_RECORD_BYTES {
            reading
                .errors
                .push(InputError::unreadable(file, line, Limit::Record));
            continue;
        }
        read_object(
            raw.get(),
            Some(&case_id),
            file,
            line,
            reading.errors,
            reading.sink,
            reading.observer,
        );
    }
}

/// Reads newline-delimited JSON: one row object per line, blank lines skipped. Rows reach
/// `sink` as soon as their line is read.
pub(super) fn read_lines(
    mut reader: impl BufRead,
    file: &str,
    errors: &mut InputErrors,
    sink: &mut dyn FnMut(u64, RowResult),
    observer: &mut dyn super::ReadObserver,
) {
    let mut buffer = Vec::new();
    let mut line = 0u64;
    loop {
        buffer.clear();
        let limit = crate::limits::MAX_RECORD_BYTES as u64 + 1;
        match std::io::Read::take(&mut reader, limit).read_until(b'\n', &mut buffer) {
            Ok(0) => break,
            Ok(n) if n as u64 == limit && buffer.last() != Some(&b'\n') => {
                let e = crate::limits::record_too_long();
                errors.push(InputError::new(
                    ErrorKind::Io,
                    file,
                    line + 1,
                    format!("unreadable: {e}"),
                ));
                break;
            }
            Ok(_) => line += 1,
            Err(e) => {
                errors.push(InputError::new(
                    ErrorKind::Io,
                    file,
                    line + 1,
                    format!("unreadable: {e}"),
                ));
                break;
            }
        }
        let bytes = if line == 1 {
            buffer.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&buffer)
        } else {
            &buffer[..]
        };
        let text = match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(_) => {
                errors.push(InputError::new(
                    ErrorKind::Encoding,
                    file,
                    line,
                    "not valid UTF-8",
                ));
                continue;
            }
        };
        if text.trim().is_empty() {
            continue;
        }
        // Without its line break, a truncated object is an error on its own line, not the next.
        let text = text.trim_end_matches(['\n', '\r']);
        read_object(text, None, file, line, errors, sink, observer);
    }
}

/// Parses one row object (JSON text) and hands it on.
fn read_object(
    json: &str,
    case_id: Option<&str>,
    file: &str,
    line: u64,
    errors: &mut InputErrors,
    sink: &mut dyn FnMut(u64, RowResult),
    observer: &mut dyn super::ReadObserver,
) {
    let object: RowObject = match serde_json::from_str(json) {
        Ok(object) => object,
        Err(e) if e.is_syntax() || e.is_eof() => {
            let at = line + e.line() as u64 - 1;
            errors.push(InputError::new(
                ErrorKind::Syntax,
                file,
                at,
                relative_syntax_message(&e),
            ));
            return;
        }
        Err(_) => {
            errors.push(
                InputError::new(ErrorKind::Syntax, file, line, "a row must be a JSON object")
                    .value(json.trim().chars().take(200).collect::<String>()),
            );
            return;
        }
    };
    read_row(&object, case_id, file, line, errors, sink, observer);
}

/// Checks one row object, parsed, and hands it on.
fn read_row(
    object: &RowObject<'_>,
    case_id: Option<&str>,
    file: &str,
    line: u64,
    errors: &mut InputErrors,
    sink: &mut dyn FnMut(u64, RowResult),
    observer: &mut dyn super::ReadObserver,
) {
    let mut map = FieldMap::<usize>::new();
    let mut texts: Vec<Option<String>> = Vec::with_capacity(object.0.len());
    let before = errors.len();
    // Fields whose value was reported here already: left out of the row, so that the rest of
    // it is still checked (every error listed) without a second error for the same cell.
    let mut reported: Vec<Field> = Vec::new();
    for (index, (key, value)) in object.0.iter().enumerate() {
        match map.insert(key, index) {
            Ok(Mapped::Field(_)) => {}
            Ok(Mapped::Ignored) => observer.ignored_column(line, key),
            Err((field, earlier)) => {
                reported.push(field);
                errors.push(
                    InputError::new(
                        ErrorKind::Header,
                        file,
                        line,
                        format!(
                            "keys {:?} and {:?} both name the field {}",
                            object.0[earlier].0,
                            key,
                            field.name()
                        ),
                    )
                    .column(key.clone()),
                )
            }
        }
        let raw = value.get();
        texts.push(match raw.as_bytes().first() {
            Some(b'n') => None,
            Some(b'"') => Some(serde_json::from_str::<String>(raw).unwrap_or_default()),
            // Verbatim: the number as written.
            Some(b'-' | b'0'..=b'9') => Some(raw.to_owned()),
            _ => {
                let compact = serde_json::from_str::<Value>(raw)
                    .map_or_else(|_| raw.to_owned(), |value| value.to_string());
                errors.push(
                    InputError::new(
                        ErrorKind::Value,
                        file,
                        line,
                        "must be a string, a number or null",
                    )
                    .column(key.clone())
                    .value(compact),
                );
                reported.extend(Field::from_normalised(&normalise_header(key)));
                None
            }
        });
    }
    if texts
        .iter()
        .all(|t| t.as_deref().is_none_or(|t| t.trim().is_empty()))
    {
        return; // An empty row.
    }
    let mut cells: RawCells<'_> = [None; FIELD_COUNT];
    for field in Field::ALL {
        if let Some(&index) = map.get(field) {
            if !reported.contains(&field) {
                cells[field as usize] = texts[index].as_deref().and_then(|t| cell_text(field, t));
            }
        }
    }
    if let Some(expected) = case_id {
        match cells[Field::CaseId as usize] {
            None => cells[Field::CaseId as usize] = Some(expected),
            Some(given) if given == expected => {}
            Some(given) => {
                errors.push(
                    InputError::new(
                        ErrorKind::Rule,
                        file,
                        line,
                        format!("differs from the enclosing case's case_id {expected:?}"),
                    )
                    .column("case_id")
                    .value(given),
                );
                // The row is checked as a row of the enclosing case.
                cells[Field::CaseId as usize] = Some(expected);
            }
        }
    }
    let locate = |field: Option<Field>, message: String, value: Option<&str>| {
        located(file, line, field, message, value)
    };
    observer.cells(line, &cells);
    let reported_before = errors.len() != before;
    // The row's own errors, a few at most (one per field), then filed.
    let mut row_errors = InputErrors::new();
    let row = parse_row(&cells, &mut row_errors, &locate);
    // "missing, required on offer" for a value reported above as of the wrong type.
    errors.extend(row_errors.into_listed().into_iter().filter(|error| {
        !error
            .column
            .as_deref()
            .is_some_and(|column| reported.iter().any(|f| f.name() == column))
    }));
    let row = match row {
        // Its problems were reported above: it is not replayed, only checked against its case.
        Ok(parsed) if reported_before => Err(BadRow {
            case_id: Some(parsed.case_id),
            job_id: parsed.row.job_id,
            observed_at: Some(parsed.row.observed_at),
        }),
        row => row,
    };
    sink(line, row);
}

#[cfg(test)]
mod tests {
    //! The reader against the one it replaced, which parsed the whole document first: the
    //! same rows and the same errors, wherever a document is cut or broken, except that rows
    //! before a document's syntax error are now read (and their errors listed) before it.

    use super::*;
    use crate::input::ReadObserver;

    struct Quiet;
    impl ReadObserver for Quiet {}

    type Read = (Vec<(u64, RowResult)>, Vec<String>);

    fn streamed(bytes: &[u8]) -> Read {
        let (mut rows, mut errors) = (Vec::new(), InputErrors::new());
        read_document(
            bytes,
            "t.json",
            &mut errors,
            &mut |line, row| rows.push((line, row)),
            &mut Quiet,
        );
        (rows, errors.iter().map(ToString::to_string).collect())
    }

    fn whole(bytes: &[u8]) -> Read {
        let (mut rows, mut errors) = (Vec::new(), InputErrors::new());
        let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        match std::str::from_utf8(body) {
            Ok(text) => read_whole(
                text,
                "t.json",
                &mut errors,
                &mut |line, row| rows.push((line, row)),
                &mut Quiet,
            ),
            Err(e) => {
                let line = 1 + body[..e.valid_up_to()]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count() as u64;
                errors.push(InputError::new(
                    ErrorKind::Encoding,
                    "t.json",
                    line,
                    "not valid UTF-8",
                ));
            }
        }
        (rows, errors.iter().map(ToString::to_string).collect())
    }

    fn line(error: &str) -> u64 {
        error
            .split(':')
            .nth(1)
            .and_then(|l| l.parse().ok())
            .unwrap_or(0)
    }

    /// Whether a document's error is the one it gave before, or one of the known differences:
    /// the first error in the file where UTF-8 was checked first; serde_json's sequence and
    /// map parser's wording ("trailing comma") where a parse of the whole text said
    /// "expected value", at the same line and column; a second `"cases"` key, reported as
    /// the key is read, a column on.
    fn same_break(old: &str, new: &str) -> bool {
        if old == new {
            return true;
        }
        if old.ends_with(": not valid UTF-8") {
            return new.contains(": invalid JSON: ") && line(new) <= line(old);
        }
        if new.contains("duplicate field `cases`") {
            return line(new) == line(old);
        }
        let place = |e: &str| e.rfind(" at line ").map(|at| e[at..].to_owned());
        let wording = |e: &str| {
            [
                "expected value",
                "trailing comma",
                "key must be a string",
                "EOF while parsing",
            ]
            .iter()
            .any(|w| e.contains(w))
        };
        line(old) == line(new) && place(old) == place(new) && wording(old) && wording(new)
    }

    fn assert_alike(bytes: &[u8]) {
        let (old_rows, old_errors) = whole(bytes);
        let (rows, errors) = streamed(bytes);
        let whole_document = old_rows.is_empty()
            && old_errors.len() == 1
            && (old_errors[0].contains(": invalid JSON: ")
                || old_errors[0].ends_with(": not valid UTF-8"));
        let context = || String::from_utf8_lossy(bytes).into_owned();
        if whole_document {
            // Rows before the break were read and checked, and the break ends the list.
            let last = errors.last().expect("an error");
            assert!(
                same_break(&old_errors[0], last),
                "{old_errors:?} / {errors:?}: {}",
                context()
            );
            assert!(
                rows.iter().all(|(at, _)| *at <= line(last)),
                "{}",
                context()
            );
            assert!(
                errors.iter().all(|e| line(e) <= line(last)),
                "{}",
                context()
            );
        } else {
            assert_eq!(errors, old_errors, "{}", context());
            assert_eq!(rows, old_rows, "{}", context());
        }
    }

    #[test]
    fn documents_cut_or_broken_anywhere_read_as_before() {
        let mut documents: Vec<Vec<u8>> = Vec::new();
        for dir in ["cases", "tests/data/malformed"] {
            let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(dir);
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "json") {
                    documents.push(std::fs::read(path).unwrap());
                }
            }
        }
        documents.push(b"\xEF\xBB\xBF[{\"case_id\": \"c\", \"event\": \"offer\"}]".to_vec());
        documents.push(b" \n{\"cases\": null}\n".to_vec());
        documents.push(b"{\"cases\": [], \"cases\": []}".to_vec());
        documents.push(b"{\"other\": 1,\n \"cases\":\n 12\n}".to_vec());
        documents.push(b"\n\n12\n".to_vec());
        documents.push(b"[1,\n2]".to_vec());
        documents.push(b"[] x".to_vec());
        documents.push(
            b"[\n  {\"case_id\": \"c1\"}\n  ,\n\n  {\"case_id\": 2, \"event\": \"\\\"}\"}\n,]"
                .to_vec(),
        );
        documents.push(b"\xEF\xBB\xBF  [ {}, {\"a\": [1, {\"b\": \"]\"}]} ]\n\n x".to_vec());
        documents.push(b"[\n]\n".to_vec());
        for document in &documents {
            assert_alike(document);
            // About 120 cuts and 30 places broken in each of the larger documents: every
            // kind of token is still cut and broken somewhere.
            for cut in (0..document.len()).step_by((document.len() / 120).max(5)) {
                assert_alike(&document[..cut]);
            }
            for at in (0..document.len()).step_by((document.len() / 30).max(29)) {
                for byte in [
                    b',', b']', b'}', b'"', b'x', b'\n', 0xFF, b'1', b'{', b'\t', b'\\', b'-',
                    b'.', b'e', b'u', b':', b'n', 0xC3,
                ] {
                    let mut broken = document.clone();
                    broken[at] = byte;
                    assert_alike(&broken);
                }
            }
        }
    }

    // The reader this one replaced, kept as the oracle.
    /// Reads a JSON document (an array of rows, or `{"cases": [...]}`).
    fn read_whole(
        text: &str,
        file: &str,
        errors: &mut InputErrors,
        sink: &mut dyn FnMut(u64, RowResult),
        observer: &mut dyn crate::input::ReadObserver,
    ) {
        const SHAPE: &str =
            "a JSON case file is an array of row objects or an object {\"cases\": [...]}";
        let top: &RawValue = match serde_json::from_str(text) {
            Ok(top) => top,
            Err(e) => {
                errors.push(syntax_error(file, &e));
                return;
            }
        };
        let mut lines = LineCounter::new(text, 1);
        match top.get().as_bytes().first() {
            Some(b'[') => {
                let rows: Vec<&RawValue> = match serde_json::from_str(top.get()) {
                    Ok(rows) => rows,
                    Err(e) => return errors.push(syntax_error(file, &e)),
                };
                for raw in rows {
                    let line = lines.line_of(raw);
                    read_object(raw.get(), None, file, line, errors, sink, observer);
                }
            }
            Some(b'{') => {
                #[derive(Deserialize)]
                struct Cases<'a> {
                    #[serde(borrow)]
                    cases: Option<&'a RawValue>,
                }
                #[derive(Deserialize)]
                struct CaseEntry<'a> {
                    case_id: Option<Value>,
                    #[serde(borrow)]
                    messages: Option<Vec<&'a RawValue>>,
                }
                let top_line = lines.line_of(top);
                let cases = match serde_json::from_str::<Cases>(top.get()) {
                    Ok(Cases { cases: Some(cases) }) => cases,
                    Ok(Cases { cases: None }) => {
                        return errors.push(InputError::new(
                            ErrorKind::Syntax,
                            file,
                            top_line,
                            format!("the object has no \"cases\" key; {SHAPE}"),
                        ))
                    }
                    Err(e) => return errors.push(syntax_error(file, &e)),
                };
                let entries: Vec<&RawValue> = match serde_json::from_str(cases.get()) {
                    Ok(entries) => entries,
                    Err(_) => {
                        return errors.push(
                            InputError::new(
                                ErrorKind::Syntax,
                                file,
                                lines.line_of(cases),
                                "must be an array of cases",
                            )
                            .column("cases"),
                        )
                    }
                };
                for raw_entry in entries {
                    let entry_line = lines.line_of(raw_entry);
                    let entry: CaseEntry = match serde_json::from_str(raw_entry.get()) {
                        Ok(entry) => entry,
                        Err(_) => {
                            errors.push(InputError::new(ErrorKind::Syntax,
                                file,
                                entry_line,
                                "each case must be an object {\"case_id\": ..., \"messages\": [...]}",
                            ));
                            continue;
                        }
                    };
                    let case_id = match entry.case_id {
                        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_owned(),
                        Some(Value::Number(n)) => n.to_string(),
                        other => {
                            let mut error = InputError::new(
                                ErrorKind::Value,
                                file,
                                entry_line,
                                "missing or not text",
                            )
                            .column("case_id");
                            if let Some(value) = other {
                                error = error.value(value.to_string());
                            }
                            errors.push(error);
                            continue;
                        }
                    };
                    let Some(messages) = entry.messages else {
                        errors.push(
                            InputError::new(
                                ErrorKind::Syntax,
                                file,
                                entry_line,
                                "missing or not an array of rows",
                            )
                            .column("messages"),
                        );
                        continue;
                    };
                    for raw in messages {
                        let line = lines.line_of(raw);
                        read_object(
                            raw.get(),
                            Some(&case_id),
                            file,
                            line,
                            errors,
                            sink,
                            observer,
                        );
                    }
                }
            }
            _ => errors.push(InputError::new(
                ErrorKind::Syntax,
                file,
                lines.line_of(top),
                SHAPE,
            )),
        }
    }
}
