//! Reading case files: CSV (comma, semicolon or tab), JSON, NDJSON and workbooks, from files,
//! directories or standard input, into typed rows with their locations; every problem becomes
//! a located [`InputError`].

pub mod content;
mod csv;
mod delimiter;
mod error;
mod fields;
mod json;
pub mod json_array;
pub mod json_fast;
pub mod records;
mod stamp;
pub mod workbook;

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

pub use csv::{body_record, header_record, BodyRecord, ReadFailure};
pub use csv::{CsvHeader, CsvRead, Stopped};
pub use delimiter::{
    check_forced as check_forced_delimiter, detect as detect_delimiter, Delimiter, HeaderColumns,
};
pub use error::{thousands, ErrorKind, InputError, InputErrors, MAX_LISTED_ERRORS};
pub use fields::{
    cell_text, located, normalise_header, parse_row, parse_row_into, BadRow, Field, FieldMap,
    Locate, Mapped, ParsedRow, RawCells, RowResult,
};
pub use fields::{names_output_only, output_only, FIELD_COUNT};
pub use json::read_rows_from as read_json_rows_from;
pub use json::JsonObject;
pub use json_fast::object_starts as json_object_starts;
pub use stamp::{check_unchanged, FileChanged, FileStamp};

/// One `read` into `buf`, tried again when a signal interrupts it: what the readers that keep
/// their own sliding buffer (CSV records, JSON arrays) read with. `Ok(0)` at the end.
pub(crate) fn read_some(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            read => return read,
        }
    }
}

/// Reads more into `buf` after its first `filled` bytes, doubling it first when it is full:
/// whether anything came (the end of the input sets `eof`). The refill of the readers that
/// slide their own buffer (CSV records, JSON arrays), after the slide.
pub(crate) fn read_more(
    reader: &mut impl Read,
    buf: &mut Vec<u8>,
    filled: &mut usize,
    eof: &mut bool,
) -> io::Result<bool> {
    if *filled == buf.len() {
        buf.resize(buf.len() * 2, 0);
    }
    match read_some(reader, &mut buf[*filled..])? {
        0 => {
            *eof = true;
            Ok(false)
        }
        n => {
            *filled += n;
            Ok(true)
        }
    }
}

/// The shape of a case file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputFormat {
    /// Comma-separated values with a header row.
    Csv,
    /// A JSON array of row objects, or `{"cases": [...]}`.
    Json,
    /// Newline-delimited JSON: one row object per line.
    Ndjson,
    /// An Excel or LibreOffice workbook (`.xlsx`, `.xlsm`, `.ods`): its first sheet, or the one
    /// `--sheet` names.
    Workbook,
}

crate::choice::choices!(InputFormat {
    Csv => "csv",
        "Comma-separated values with a header row";
    Json => "json",
        "A JSON array of row objects, or `{\"cases\": [...]}`";
    Ndjson => "ndjson",
        "Newline-delimited JSON: one row object per line";
    Workbook => "workbook",
        "An Excel or LibreOffice workbook (`.xlsx`, `.xlsm`, `.ods`): its first sheet, or the one `--sheet` names";
});

impl InputFormat {
    /// The format a file's extension implies (any case): `.json`, `.ndjson`/`.jsonl`,
    /// `.xlsx`/`.xlsm`/`.ods`, else CSV.
    pub fn for_path(path: &Path) -> InputFormat {
        let extension = lowercase_extension(path);
        match extension.as_deref() {
            Some("json") => InputFormat::Json,
            Some("ndjson" | "jsonl") => InputFormat::Ndjson,
            Some(extension) if workbook::is_workbook_extension(extension) => InputFormat::Workbook,
            _ => InputFormat::Csv,
        }
    }
}

/// The extension of `path` in lower case, if it has one that is UTF-8: formats go by it in
/// any case.
pub fn lowercase_extension(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// Whether a directory entry is a case file: `.csv`, `.json`, `.ndjson`, `.jsonl`, or a
/// workbook (`.xlsx`, `.xlsm`, `.ods`).
pub fn is_case_file(path: &Path) -> bool {
    let extension = lowercase_extension(path);
    match extension.as_deref() {
        Some("csv" | "json" | "ndjson" | "jsonl") => is_listed_file(path),
        Some(extension) => workbook::is_workbook_extension(extension) && is_listed_file(path),
        None => false,
    }
}

/// Whether a directory entry with a file extension we read is listed: a regular file, or one
/// that cannot be examined (a broken symlink, no permission), so that reading it reports why
/// instead of the file being skipped silently. Directories and devices are skipped.
pub fn is_listed_file(path: &Path) -> bool {
    std::fs::metadata(path).map_or(true, |meta| meta.is_file())
}

/// How a file is read besides its format: the CSV delimiter and the workbook sheet.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// The CSV delimiter; `None`: detected from the header line.
    pub delimiter: Option<Delimiter>,
    /// The workbook sheet; `None`: the first.
    pub sheet: Option<String>,
}

impl ReadOptions {
    /// `sources`, each to be read with these options.
    pub fn apply(&self, mut sources: Vec<Source>) -> Vec<Source> {
        for source in &mut sources {
            source.options = self.clone();
        }
        sources
    }
}

/// One input: a file, or standard input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// How errors and the audit name it: the path as given, or `-`.
    pub name: String,
    /// The file, or `None` for standard input.
    pub path: Option<PathBuf>,
    /// The delimiter and sheet to read it with.
    pub options: ReadOptions,
}

impl Source {
    /// A file, named in messages by its path, read with the default options.
    pub fn file(path: impl Into<PathBuf>) -> Source {
        let path = path.into();
        Source {
            name: path.to_string_lossy().into_owned(),
            path: Some(path),
            options: ReadOptions::default(),
        }
    }

    /// The format to read it with: the override, else the file's extension.
    pub fn format(&self, format_override: Option<InputFormat>) -> InputFormat {
        match (format_override, &self.path) {
            (Some(format), _) => format,
            (None, Some(path)) => InputFormat::for_path(path),
            (None, None) => InputFormat::Csv,
        }
    }
}

/// Opens the case file at `path`, of `format`, for reading; a workbook (read whole) that is
/// larger than [`crate::limits::MAX_DOCUMENT_BYTES`] is refused by its size, before a byte is
/// read. JSON, NDJSON and CSV are read as they come, whatever their size. The error is why
/// the file cannot be read ([`InputError::unreadable`]).
pub fn open_case_file(path: &Path, format: InputFormat) -> io::Result<File> {
    File::open(path).and_then(|file| {
        if format == InputFormat::Workbook {
            crate::limits::check_document_size(&file)?;
        }
        Ok(file)
    })
}

/// The files directly in `directory` that `wanted` accepts, in name order; a directory that
/// cannot be read, or holds none (`what` says of what), is an error added to `errors`.
pub fn files_in_directory(
    directory: &Path,
    wanted: &dyn Fn(&Path) -> bool,
    what: &str,
    errors: &mut InputErrors,
) -> Vec<PathBuf> {
    let name = directory.to_string_lossy();
    let entries = match std::fs::read_dir(directory) {
        Ok(entries) => entries,
        Err(e) => {
            errors.push(InputError::new(
                ErrorKind::Io,
                &name,
                0,
                format!("cannot read directory: {e}"),
            ));
            return Vec::new();
        }
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| wanted(path))
        .collect();
    files.sort();
    if files.is_empty() {
        errors.push(InputError::new(
            ErrorKind::Missing,
            &name,
            0,
            format!("the directory holds no {what}"),
        ));
    }
    files
}

/// Expands the command line's inputs: `-` is standard input, a directory is every case file
/// directly in it in name order, anything else a file.
pub fn expand_inputs(inputs: &[PathBuf]) -> Result<Vec<Source>, InputErrors> {
    let mut sources = Vec::new();
    let mut errors = InputErrors::new();
    for input in inputs {
        let name = input.to_string_lossy().into_owned();
        if name == "-" {
            sources.push(Source {
                name,
                path: None,
                options: ReadOptions::default(),
            });
        } else if input.is_dir() {
            let files = files_in_directory(input, &is_case_file, "case files", &mut errors);
            sources.extend(files.into_iter().map(Source::file));
        } else {
            sources.push(Source {
                name,
                path: Some(input.clone()),
                options: ReadOptions::default(),
            });
        }
    }
    if errors.is_empty() {
        Ok(sources)
    } else {
        Err(errors)
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
        errors: &mut InputErrors,
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
        errors: &mut InputErrors,
        locate: &Locate<'_>,
    ) {
        (self.0)(line, parse_row(cells, errors, locate));
    }
}

/// The observer that ignores everything: for readers that want only the rows.
pub struct NoObserver;

impl ReadObserver for NoObserver {}

/// How a case file is read: the one options struct of the case-file readers ([`read`],
/// [`read_cells`], [`read_source`]).
#[derive(Clone, Copy, Debug)]
pub struct CaseRead<'a> {
    /// The file as errors and the audit name it.
    pub name: &'a str,
    /// Its format.
    pub format: InputFormat,
    /// The CSV delimiter (`None`: detected from the header line) and the workbook sheet.
    pub options: &'a ReadOptions,
    /// CSV only: the file's header, read before ([`CsvHeader::read`]); the reader starts at a
    /// row after it (at the start of a line), with its delimiter, lines counted from 1 there.
    pub after_header: Option<&'a CsvHeader>,
    /// CSV only: a byte offset (from where the reader starts) to stop at: reading stops at the
    /// first record boundary at or after it ([`Stopped`]).
    pub cut: Option<u64>,
}

impl<'a> CaseRead<'a> {
    /// A whole file named `name` in `format`, read with `options`.
    pub fn new(name: &'a str, format: InputFormat, options: &'a ReadOptions) -> CaseRead<'a> {
        CaseRead {
            name,
            format,
            options,
            after_header: None,
            cut: None,
        }
    }

    /// `source`, in the format the override or its extension gives.
    pub fn of(source: &'a Source, format_override: Option<InputFormat>) -> CaseRead<'a> {
        CaseRead::new(
            &source.name,
            source.format(format_override),
            &source.options,
        )
    }
}

/// Reads case rows from any reader as `how` says, calling `sink` with each row and its line as
/// soon as it is read, and telling `observer` about ignored columns and raw cells; every
/// problem goes to `errors`.
pub fn read(
    reader: impl Read,
    how: &CaseRead<'_>,
    errors: &mut InputErrors,
    sink: &mut dyn FnMut(u64, RowResult),
    observer: &mut dyn ReadObserver,
) {
    let name = how.name;
    match how.format {
        InputFormat::Csv => {
            csv::read(reader, how, errors, &mut Parsing(sink), observer);
        }
        InputFormat::Workbook => {
            // A zip archive is read from its end: the workbook is copied, at most
            // MAX_DOCUMENT_BYTES of it, to an anonymous temporary file, not held in memory.
            let file = match crate::limits::spool_document(reader) {
                Ok(file) => file,
                Err(e) => {
                    errors.push(InputError::unreadable(name, 0, e));
                    return;
                }
            };
            workbook::read_cases(
                io::BufReader::with_capacity(1 << 16, file),
                name,
                how.options.sheet.as_deref(),
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
        InputFormat::Json => json::read_document(reader, name, errors, sink, observer),
    }
}

/// Reads a CSV case file as `how` says, handing each row's cells to `sink` unparsed (to be
/// parsed where the sink keeps rows), and saying what it saw besides rows.
pub fn read_cells(
    reader: impl Read,
    how: &CaseRead<'_>,
    errors: &mut InputErrors,
    sink: &mut dyn RowSink,
) -> CsvRead {
    debug_assert_eq!(how.format, InputFormat::Csv);
    csv::read(reader, how, errors, sink, &mut NoObserver)
}

/// Reads one source (a file, or standard input), in the format the override or its
/// extension gives, as [`read`] reads it.
pub fn read_source(
    source: &Source,
    format_override: Option<InputFormat>,
    errors: &mut InputErrors,
    sink: &mut dyn FnMut(u64, RowResult),
    observer: &mut dyn ReadObserver,
) {
    let how = CaseRead::of(source, format_override);
    if let Some(reader) = open_source(source, &how, errors) {
        read(reader, &how, errors, sink, observer);
    }
}

/// Reads one source as [`read_source`] does for what its reader sees besides the rows: the
/// ignored columns and each row's raw cells go to `observer`, and the rows are counted (valid
/// or not, as [`read_source`] hands them on), but a CSV file's rows are not typed, so their
/// value errors are not found: `validate`'s pass for the reader's warnings, beside the engine,
/// which types every row. Returns how many rows were read.
pub fn observe_source(
    source: &Source,
    format_override: Option<InputFormat>,
    errors: &mut InputErrors,
    observer: &mut dyn ReadObserver,
) -> usize {
    let how = CaseRead::of(source, format_override);
    if how.format != InputFormat::Csv {
        let mut rows = 0usize;
        read_source(
            source,
            format_override,
            errors,
            &mut |_, _| rows += 1,
            observer,
        );
        return rows;
    }
    /// Counts the rows it is handed, untyped.
    struct Counting(usize);
    impl RowSink for Counting {
        fn row(&mut self, _: u64, _: &RawCells<'_>, _: &mut InputErrors, _: &Locate<'_>) {
            self.0 += 1;
        }
    }
    let mut counting = Counting(0);
    if let Some(reader) = open_source(source, &how, errors) {
        csv::read(reader, &how, errors, &mut counting, observer);
    }
    counting.0
}

/// The reader of `source` (standard input, or its file opened for `how`'s format); `None`
/// when it cannot be opened, said in `errors`.
fn open_source(
    source: &Source,
    how: &CaseRead<'_>,
    errors: &mut InputErrors,
) -> Option<Box<dyn Read>> {
    match &source.path {
        None => Some(Box::new(io::stdin().lock())),
        Some(path) => match open_case_file(path, how.format) {
            Ok(file) => Some(Box::new(file)),
            Err(e) => {
                errors.push(InputError::unreadable(&source.name, 0, e));
                None
            }
        },
    }
}
