//! Reading case files: CSV, JSON and NDJSON, from files, directories or standard input, into
//! typed rows with their locations; every problem becomes a located [`InputError`].

mod csv;
mod error;
mod fields;
mod json;
pub mod records;

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

pub use csv::{CsvHeader, CsvRead};
pub use error::{located, InputError, InputErrors};
pub use fields::{
    cell_text, normalise_header, parse_row, parse_row_into, Field, FieldMap, Locate, Mapped,
    ParsedRow, RawCells, RowResult,
};
pub use fields::{FIELD_COUNT, OUTPUT_ONLY_COLUMNS};

/// The shape of a case file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum InputFormat {
    /// Comma-separated values with a header row.
    Csv,
    /// A JSON array of row objects, or `{"cases": [...]}`.
    Json,
    /// Newline-delimited JSON: one row object per line.
    Ndjson,
}

impl InputFormat {
    /// The format a file's extension implies (any case): `.json`, `.ndjson`/`.jsonl`, else CSV.
    pub fn for_path(path: &Path) -> InputFormat {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("json") => InputFormat::Json,
            Some("ndjson" | "jsonl") => InputFormat::Ndjson,
            _ => InputFormat::Csv,
        }
    }
}

/// Whether a directory entry is a case file: `.csv`, `.json`, `.ndjson` or `.jsonl`.
pub fn is_case_file(path: &Path) -> bool {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    matches!(
        extension.as_deref(),
        Some("csv" | "json" | "ndjson" | "jsonl")
    ) && path.is_file()
}

/// One input: a file, or standard input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// How errors and the audit name it: the path as given, or `-`.
    pub name: String,
    /// The file, or `None` for standard input.
    pub path: Option<PathBuf>,
}

impl Source {
    /// The format to read it with: the override, else the file's extension.
    pub fn format(&self, format_override: Option<InputFormat>) -> InputFormat {
        match (format_override, &self.path) {
            (Some(format), _) => format,
            (None, Some(path)) => InputFormat::for_path(path),
            (None, None) => InputFormat::Csv,
        }
    }
}

/// The sources with standard input copied to a temporary file (kept alive by the returned
/// handles, and named as before), for commands that read their inputs more than once. The copy
/// has no extension, so it is read as CSV unless a format is given, as standard input is.
pub fn spool_standard_input(
    sources: &[Source],
) -> io::Result<(Vec<Source>, Vec<tempfile::NamedTempFile>)> {
    let mut spools = Vec::new();
    let mut readable = Vec::with_capacity(sources.len());
    for source in sources {
        if source.path.is_some() {
            readable.push(source.clone());
            continue;
        }
        let mut spool = tempfile::NamedTempFile::new()?;
        io::copy(&mut io::stdin().lock(), &mut spool)?;
        io::Write::flush(&mut spool)?;
        readable.push(Source {
            name: source.name.clone(),
            path: Some(spool.path().to_owned()),
        });
        spools.push(spool);
    }
    Ok((readable, spools))
}

/// Expands the command line's inputs: `-` is standard input, a directory is every case file
/// directly in it in name order, anything else a file.
pub fn expand_inputs(inputs: &[PathBuf]) -> Result<Vec<Source>, InputErrors> {
    let mut sources = Vec::new();
    let mut errors = Vec::new();
    for input in inputs {
        let name = input.to_string_lossy().into_owned();
        if name == "-" {
            sources.push(Source { name, path: None });
        } else if input.is_dir() {
            let entries = match std::fs::read_dir(input) {
                Ok(entries) => entries,
                Err(e) => {
                    errors.push(InputError::new(
                        &name,
                        0,
                        format!("cannot read directory: {e}"),
                    ));
                    continue;
                }
            };
            let mut files: Vec<PathBuf> = entries
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .filter(|path| is_case_file(path))
                .collect();
            files.sort();
            if files.is_empty() {
                errors.push(InputError::new(
                    &name,
                    0,
                    "the directory holds no case files",
                ));
            }
            sources.extend(files.into_iter().map(|path| Source {
                name: path.to_string_lossy().into_owned(),
                path: Some(path),
            }));
        } else {
            sources.push(Source {
                name,
                path: Some(input.clone()),
            });
        }
    }
    if errors.is_empty() {
        Ok(sources)
    } else {
        Err(InputErrors(errors))
    }
}

/// What a reader sees besides typed rows, for callers that want more than the rows (the
/// `validate` command's warnings). Both methods default to doing nothing.
pub trait ReadObserver {
    /// A CSV column or JSON key at `line` that names no field, so its values are ignored.
    fn ignored_column(&mut self, line: u64, name: &str) {
        let _ = (line, name);
    }

    /// The raw cells of the row at `line`, just before they are parsed.
    fn cells(&mut self, line: u64, cells: &RawCells<'_>) {
        let _ = (line, cells);
    }
}

/// Where a CSV reader hands each row's cells, to be parsed (with [`parse_row`] or
/// [`parse_row_into`]) wherever the sink keeps rows.
pub trait RowSink {
    /// The cells of the row at `line`; `locate` makes its errors, which go to `errors`.
    fn row(
        &mut self,
        line: u64,
        cells: &RawCells<'_>,
        errors: &mut Vec<InputError>,
        locate: &Locate<'_>,
    );
}

/// A [`RowSink`] that parses each row with [`parse_row`] and hands it on.
struct Parsing<'a>(&'a mut dyn FnMut(u64, RowResult));

impl RowSink for Parsing<'_> {
    fn row(
        &mut self,
        line: u64,
        cells: &RawCells<'_>,
        errors: &mut Vec<InputError>,
        locate: &Locate<'_>,
    ) {
        (self.0)(line, parse_row(cells, errors, locate));
    }
}

/// Reads a CSV case file from any reader, handing each row's cells to `sink` unparsed.
pub fn read_csv_cells(
    reader: impl Read,
    name: &str,
    errors: &mut Vec<InputError>,
    sink: &mut dyn RowSink,
) {
    csv::read(reader, name, None, false, errors, sink, &mut NoObserver);
}

/// Reads just the header of a CSV case file: `None` if it has none or a problem (which
/// reading the whole file reports).
pub fn read_csv_header(reader: impl Read, name: &str) -> Option<CsvHeader> {
    csv::read_header(reader, name)
}

/// [`read_csv_cells`] from a given start (after the header, or from the start of the file),
/// stopping at the first quoted record if asked, and saying what it saw besides rows.
pub fn read_csv_from(
    reader: impl Read,
    name: &str,
    header: Option<&CsvHeader>,
    stop_at_quote: bool,
    errors: &mut Vec<InputError>,
    sink: &mut dyn RowSink,
) -> CsvRead {
    csv::read(
        reader,
        name,
        header,
        stop_at_quote,
        errors,
        sink,
        &mut NoObserver,
    )
}

/// The observer that ignores everything.
struct NoObserver;

impl ReadObserver for NoObserver {}

/// Reads one source, calling `sink` with each valid row and its line as soon as it is read;
/// every problem goes to `errors`.
pub fn read_source(
    source: &Source,
    format_override: Option<InputFormat>,
    errors: &mut Vec<InputError>,
    sink: &mut dyn FnMut(u64, RowResult),
) {
    read_source_observed(source, format_override, errors, sink, &mut NoObserver);
}

/// [`read_source`], also telling `observer` about ignored columns and raw cells.
pub fn read_source_observed(
    source: &Source,
    format_override: Option<InputFormat>,
    errors: &mut Vec<InputError>,
    sink: &mut dyn FnMut(u64, RowResult),
    observer: &mut dyn ReadObserver,
) {
    let reader: Box<dyn Read> = match &source.path {
        None => Box::new(io::stdin().lock()),
        Some(path) => match File::open(path) {
            Ok(file) => Box::new(file),
            Err(e) => {
                errors.push(InputError::new(
                    &source.name,
                    0,
                    format!("cannot read: {e}"),
                ));
                return;
            }
        },
    };
    read_from_observed(
        reader,
        &source.name,
        source.format(format_override),
        errors,
        sink,
        observer,
    );
}

/// Reads case rows of `format` from any reader (the file is named `name` in errors).
pub fn read_from(
    reader: impl Read,
    name: &str,
    format: InputFormat,
    errors: &mut Vec<InputError>,
    sink: &mut dyn FnMut(u64, RowResult),
) {
    read_from_observed(reader, name, format, errors, sink, &mut NoObserver);
}

/// [`read_from`], also telling `observer` about ignored columns and raw cells.
pub fn read_from_observed(
    mut reader: impl Read,
    name: &str,
    format: InputFormat,
    errors: &mut Vec<InputError>,
    sink: &mut dyn FnMut(u64, RowResult),
    observer: &mut dyn ReadObserver,
) {
    match format {
        InputFormat::Csv => {
            csv::read(
                reader,
                name,
                None,
                false,
                errors,
                &mut Parsing(sink),
                observer,
            );
        }
        InputFormat::Ndjson => json::read_lines(
            BufReader::with_capacity(1 << 16, reader),
            name,
            errors,
            sink,
            observer,
        ),
        InputFormat::Json => {
            let mut bytes = Vec::new();
            if let Err(e) = reader.read_to_end(&mut bytes) {
                errors.push(InputError::new(name, 0, format!("cannot read: {e}")));
                return;
            }
            let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
            match std::str::from_utf8(body) {
                Ok(text) => json::read_document(text, name, errors, sink, observer),
                Err(e) => {
                    let line = 1 + body[..e.valid_up_to()]
                        .iter()
                        .filter(|&&b| b == b'\n')
                        .count() as u64;
                    errors.push(InputError::new(name, line, "not valid UTF-8"));
                }
            }
        }
    }
}
