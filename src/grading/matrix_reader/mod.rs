//! Reading a matrix — a golden file or a learner's filled-in submission — as CSV, as a
//! workbook, or as the JSON array of spec section 5, with every problem located. One reader:
//! [`MatrixRead`] says how (golden or submission, the cells kept, the delimiter and sheet) and
//! reads a [`MatrixInput`] (a path, an open file or bytes) whole, into a [`MatrixFile`], or
//! split by case-id hash, into a [`SplitMatrix`]; `csv`, `workbook` and `json` read each
//! format, `rows` holds what they read,
//! `split` a matrix read split.
//!
//! Files are read as spreadsheets save them (spec sections 2 and 8): the delimiter (comma,
//! semicolon or tab) detected from the header, a byte-order mark, `\n`, `\r\n` or `\r` line
//! endings, blank lines, extra columns, columns in any order, headings as the lesson writes
//! them (`Decision`, `Stale Generation`), `.xlsx`/`.xlsm`/`.ods` workbooks. Their structure is
//! held to what case files are (issue 13): a row with more or fewer cells than the header, an
//! unterminated quote, a duplicated `case_id` and a row without one are errors. A golden file's
//! values must also be in the contract's canonical form ([`Strictness::Golden`]).

mod csv;
mod json;
mod rows;
mod split;
#[cfg(test)]
mod tests;
mod workbook;

use std::path::Path;

use rows::{duplicated, kept_cells, Split};
pub use rows::{kept_error, listed_problems, MatrixEntry, MatrixFile, ReadAs, MAX_LISTED_PROBLEMS};
pub use split::{
    insert_errors, with_duplicates, Duplicate, Duplicates, Loaded, LoadedPart, SplitMatrix,
};

use super::canonical::plainly_canonical;
use super::columns::{column_from_header, Column};
use super::partitions::Splitter;
use crate::input::content::{not_text, read_head, sniff, Content, Utf16Text, HEAD_BYTES};
use crate::input::workbook::is_workbook_extension;
use crate::input::{ErrorKind, InputError, InputErrors, ReadOptions};

/// How a matrix file is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixFileFormat {
    /// CSV with a header row.
    Csv,
    /// One JSON array of case objects (spec section 5).
    Json,
    /// An `.xlsx`, `.xlsm` or `.ods` workbook: a sheet with a header row.
    Workbook,
}

impl MatrixFileFormat {
    /// The format a file's extension implies (any case): `.json` is JSON, `.xlsx`, `.xlsm` and
    /// `.ods` a workbook, anything else CSV.
    pub fn for_path(path: &Path) -> MatrixFileFormat {
        let extension = crate::input::lowercase_extension(path);
        match extension.as_deref() {
            Some("json") => MatrixFileFormat::Json,
            Some(extension) if is_workbook_extension(extension) => MatrixFileFormat::Workbook,
            _ => MatrixFileFormat::Csv,
        }
    }
}

/// How a matrix's values are held to the contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strictness {
    /// A learner's submission: values are compared leniently later, not checked here.
    Submission,
    /// A golden file: every cell, kept or not, must be in canonical form (spec sections 5 and
    /// 8), so a typo in a label is the author's error, not a point taken from a learner. Only
    /// the kept cells are held, but every cell is checked as its row is read, and a value
    /// error is listed with the file's structural errors, in line order.
    Golden,
}

/// What a matrix is read from.
#[derive(Debug)]
pub enum MatrixInput<'a> {
    /// A file, in the format its extension implies ([`MatrixFileFormat::for_path`]).
    Path(&'a Path),
    /// A file already open, in a format: `grade` reads a submission from the handle it was
    /// checked on, and the golden file from the one whose identity no submission may share.
    Open(std::fs::File, MatrixFileFormat),
    /// A file's bytes, in a format (standard input, tests).
    Bytes(&'a [u8], MatrixFileFormat),
}

/// How a matrix is read: the one options struct of every matrix reader.
#[derive(Clone, Copy, Debug)]
pub struct MatrixRead<'a> {
    /// Golden file or submission.
    pub strictness: Strictness,
    /// The columns whose cells are kept (with the case id); the others are checked as usual
    /// but not held: a large matrix is graded on two columns.
    pub keep: &'a [Column],
    /// The CSV delimiter and workbook sheet (a golden file is read with the defaults).
    pub options: &'a ReadOptions,
}

/// The default delimiter and sheet, which golden files are read with.
static DEFAULT_OPTIONS: ReadOptions = ReadOptions {
    delimiter: None,
    sheet: None,
};

impl<'a> MatrixRead<'a> {
    /// A learner's submission, keeping the cells of `keep`, read with `options`.
    pub fn submission(keep: &'a [Column], options: &'a ReadOptions) -> MatrixRead<'a> {
        MatrixRead {
            strictness: Strictness::Submission,
            keep,
            options,
        }
    }

    /// A golden file, keeping the cells of `keep` (every cell checked), with the default
    /// delimiter detection and first sheet.
    pub fn golden(keep: &'a [Column]) -> MatrixRead<'a> {
        MatrixRead {
            strictness: Strictness::Golden,
            keep,
            options: &DEFAULT_OPTIONS,
        }
    }

    /// Reads a whole matrix: the file, if it was read without an error. CSV and JSON are read
    /// as they come, a row at a time, so a matrix of any size is held only as its kept cells;
    /// a workbook is read whole (its sheets are compressed XML), up to
    /// [`crate::limits::MAX_DOCUMENT_BYTES`].
    pub fn read(&self, input: MatrixInput<'_>, name: &str) -> Result<MatrixFile, InputErrors> {
        match self.read_partial(input, name, None)? {
            (file, errors) if errors.is_empty() => Ok(file),
            (file, mut errors) => {
                errors.count_unlisted(file.unlisted);
                Err(errors)
            }
        }
    }

    /// Reads a matrix split by `splitter`, with the errors found as it was read; its
    /// duplicated case ids are found as its partitions are loaded ([`SplitMatrix::load`],
    /// merged with [`with_duplicates`]; [`SplitMatrix::checked`] does both). `Err` when no row
    /// could be read. A golden file's partitions are sealed ([`SplitMatrix::seal`]): it is
    /// joined against a partition at a time.
    pub fn read_split(
        &self,
        input: MatrixInput<'_>,
        name: &str,
        splitter: &Splitter,
    ) -> Result<(SplitMatrix, InputErrors), InputErrors> {
        let (file, errors) = self.read_partial(input, name, Some((splitter, self.keep)))?;
        let mut file = file.into_split().expect("read split");
        if self.strictness == Strictness::Golden {
            file.seal();
        }
        Ok((file, errors))
    }

    /// The matrix as read, with the errors found in it, or only errors when nothing could be
    /// read past them.
    fn read_partial(&self, input: MatrixInput<'_>, name: &str, split: Split<'_>) -> Partial {
        let cannot = |e: std::io::Error| InputErrors::one(InputError::unreadable(name, 0, e));
        let keep = kept_columns(self.keep);
        let mut errors = InputErrors::new();
        // What was read, for [`MatrixFile::read_as`].
        let (mut utf16, mut json) = (false, false);
        let file = match input {
            MatrixInput::Path(path) => {
                let file = open_matrix(path, name)?;
                return self.read_partial(
                    MatrixInput::Open(file, MatrixFileFormat::for_path(path)),
                    name,
                    split,
                );
            }
            MatrixInput::Open(mut file, named) if !file.metadata().map_err(cannot)?.is_file() => {
                // A pipe or a FIFO (`--golden <(...)`) cannot go back to its start once its
                // first bytes are sniffed: what is not text is told by them (`/dev/zero` is
                // not read on), and text is copied, its first bytes and the rest, to an
                // anonymous temporary file, as a file read whole is (within the same limit).
                let mut head = vec![0u8; HEAD_BYTES];
                let read = read_up_to(&mut file, &mut head).map_err(cannot)?;
                head.truncate(read);
                if let Content::NotText(what) = sniff(&head) {
                    return Err(not_a_matrix(name, what));
                }
                let rest = std::io::Read::chain(std::io::Cursor::new(head), file);
                let spooled = crate::limits::spool_document(rest).map_err(cannot)?;
                return self.read_partial(MatrixInput::Open(spooled, named), name, split);
            }
            MatrixInput::Open(mut file, named) => {
                // A file named a workbook is read whole: refused by its size before a byte is
                // read, whatever it holds.
                if named == MatrixFileFormat::Workbook {
                    crate::limits::check_document_size(&file).map_err(cannot)?;
                }
                // What the file is, by its first bytes rather than its name.
                let mut head = [0u8; HEAD_BYTES];
                let read = read_head(&mut file, &mut head).map_err(cannot)?;
                match (sniff(&head[..read]), named) {
                    (Content::NotText(what), _) => return Err(not_a_matrix(name, what)),
                    (Content::Workbook, _) => {
                        // Refused by its size before a byte is read; then read from the same
                        // handle.
                        crate::limits::check_document_size(&file).map_err(cannot)?;
                        let bytes = crate::limits::read_file_document(file).map_err(cannot)?;
                        workbook::read(&bytes, name, self, &keep, split, &mut errors)
                    }
                    (Content::Utf16(encoding), MatrixFileFormat::Json) => {
                        (utf16, json) = (true, true);
                        let text = Utf16Text::new(file, encoding);
                        json::read(text, name, self, &keep, split, &mut errors)
                    }
                    (Content::Utf16(encoding), _) => {
                        utf16 = true;
                        let text = Utf16Text::new(file, encoding);
                        csv::read(text, name, self, &keep, split, &mut errors)
                    }
                    (Content::Text, MatrixFileFormat::Json) => {
                        json = true;
                        json::read(file, name, self, &keep, split, &mut errors)
                    }
                    // Text, whatever its name: a workbook's name on a CSV file is read as CSV.
                    (Content::Text, _) => csv::read(file, name, self, &keep, split, &mut errors),
                }
            }
            MatrixInput::Bytes(bytes, named) => {
                match (sniff(&bytes[..bytes.len().min(HEAD_BYTES)]), named) {
                    (Content::NotText(what), _) => return Err(not_a_matrix(name, what)),
                    (Content::Workbook, _) => {
                        workbook::read(bytes, name, self, &keep, split, &mut errors)
                    }
                    (Content::Utf16(encoding), MatrixFileFormat::Json) => {
                        (utf16, json) = (true, true);
                        let text = Utf16Text::new(bytes, encoding);
                        json::read(text, name, self, &keep, split, &mut errors)
                    }
                    (Content::Utf16(encoding), _) => {
                        utf16 = true;
                        let text = Utf16Text::new(bytes, encoding);
                        csv::read(text, name, self, &keep, split, &mut errors)
                    }
                    (Content::Text, MatrixFileFormat::Json) => {
                        json = true;
                        json::read(bytes, name, self, &keep, split, &mut errors)
                    }
                    (Content::Text, _) => csv::read(bytes, name, self, &keep, split, &mut errors),
                }
            }
        };
        match file {
            // A case file: its one error says so.
            Some(file) if file.case_file => Err(errors),
            Some(mut file) => {
                file.read_as = match (file.read_as.take(), utf16) {
                    (Some(ReadAs::Csv { delimiter, .. }), utf16) => {
                        Some(ReadAs::Csv { delimiter, utf16 })
                    }
                    (Some(sheet @ ReadAs::Sheet(_)), _) => Some(sheet),
                    (_, utf16) if json => Some(ReadAs::Json { utf16 }),
                    (read_as, _) => read_as,
                };
                Ok((file, errors))
            }
            None => Err(errors),
        }
    }
}

/// Reads up to `head.len()` bytes of `reader` (fewer only at its end); how many.
fn read_up_to(reader: &mut impl std::io::Read, head: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < head.len() {
        match reader.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// The error of a file that is not a matrix at all (`what`: what it is).
fn not_a_matrix(name: &str, what: &str) -> InputErrors {
    InputErrors::one(InputError::new(
        ErrorKind::Encoding,
        name,
        0,
        not_text(what),
    ))
}

/// A matrix as read, with the errors found in it (it may have some), or only errors when
/// nothing could be read past them.
type Partial = Result<(MatrixFile, InputErrors), InputErrors>;

/// Every kept value of a matrix that is not in canonical form, located: what a golden read
/// ([`Strictness::Golden`]) checks, for a matrix read otherwise.
pub fn golden_errors(file: &MatrixFile) -> InputErrors {
    let mut errors = InputErrors::new();
    for row in file.rows() {
        for column in Column::all() {
            let Some(cell) = row.cell(column) else {
                continue;
            };
            if plainly_canonical(column, cell) {
                continue;
            }
            if let Err(message) = column.check_canonical(cell) {
                errors.push(
                    InputError::new(ErrorKind::Value, &file.name, row.line, message)
                        .column(column.name())
                        .value(cell),
                );
            }
        }
    }
    errors
}

/// Opens a matrix file to be read as it comes. A file that cannot be opened, or a directory
/// (which opens, and fails at its first read), is an error of the file, at no line: "cannot
/// be read", not "malformed".
pub fn open_matrix(path: &Path, name: &str) -> Result<std::fs::File, InputErrors> {
    let cannot = |e: std::io::Error| InputErrors::one(InputError::unreadable(name, 0, e));
    let file = std::fs::File::open(path).map_err(cannot)?;
    if file.metadata().map_err(cannot)?.is_dir() {
        return Err(cannot(std::io::ErrorKind::IsADirectory.into()));
    }
    Ok(file)
}

/// Which columns' cells are kept, by index.
fn kept_columns(columns: &[Column]) -> [bool; Column::COUNT] {
    let mut keep = [false; Column::COUNT];
    for column in columns {
        keep[column.index()] = true;
    }
    keep
}

/// A golden file's header cell or case object's key that names no matrix column, among the
/// matrix's columns. Spec section 5 lets further columns (an explanation, `adjudicate
/// --explain`'s `detail`) follow the matrix's, and graders ignore those; one before or between
/// them is a misspelt or foreign column, and a key is strict about what it holds.
const UNKNOWN_GOLDEN_COLUMN: &str = "names no matrix column; in a golden file only further \
     columns after the matrix's (an explanation) may name none";

/// Lists each of a golden row's cells that is not in canonical form. Called as the row is
/// read, before the cells not kept are dropped: a 400k-case golden file is checked whole
/// without being held whole.
fn check_golden_cells<'c>(
    name: &str,
    line: u64,
    cells: impl IntoIterator<Item = (Column, &'c str)>,
    errors: &mut InputErrors,
) {
    for (column, cell) in cells {
        // Nearly every cell of a golden file is canonical: told so without allocating.
        if plainly_canonical(column, cell) {
            continue;
        }
        if let Err(message) = column.check_canonical(cell) {
            errors.push(
                InputError::new(ErrorKind::Value, name, line, message)
                    .column(column.name())
                    .value(cell),
            );
        }
    }
}

/// Adds a row, turning a missing or duplicated case id into an error (`errors` keeps the first
/// [`MAX_LISTED_PROBLEMS`] of them, and counts the rest).
fn add_row<S: AsRef<str>>(
    file: &mut MatrixFile,
    line: u64,
    cells: &[Option<S>],
    errors: &mut InputErrors,
) {
    let case_id = cells[Column::CaseId.index()]
        .as_ref()
        .map_or("", AsRef::as_ref)
        .trim()
        .to_owned();
    if case_id.is_empty() {
        errors.push(
            InputError::new(ErrorKind::Value, &file.name, line, "missing case id")
                .column("case_id"),
        );
        return;
    }
    let keep = std::mem::take(&mut file.keep);
    let pushed = file.push(&case_id, line, &kept_cells(cells, &keep), errors.len());
    file.keep = keep;
    if let Err(earlier) = pushed {
        errors.push(duplicated(&file.name, line, earlier, case_id));
    }
}

/// A matrix being read from a header and rows of text cells (CSV or a workbook sheet).
struct Table {
    file: MatrixFile,
    /// The matrix column each header cell names, if any.
    targets: Vec<Option<Column>>,
    /// Whether the header is a case file's ([`CASE_FILE_NOT_MATRIX`]): its rows are not read.
    case_file: bool,
}

/// What a header that names a case file's event and no decision or reason is: a case file
/// given where a matrix goes (as the key, or as a learner's answers), said in one line rather
/// than as every row's problems as a matrix. It says nothing of any value.
pub const CASE_FILE_NOT_MATRIX: &str = "this is a case file, not a matrix: it has an event \
     column and no decision or reason (a matrix is what adjudicate writes, or a filled-in \
     template)";

/// Whether a header (a CSV or sheet header, a JSON row's keys) is a case file's: an event
/// column, and no decision or reason.
fn case_file_header(header: &[Option<&str>]) -> bool {
    use crate::input::{normalise_header, Field};
    let names = || header.iter().flatten().map(|cell| normalise_header(cell));
    names().any(|name| Field::from_normalised(&name) == Some(Field::Event))
        && !names().any(|name| name == "decision" || name == "reason")
}

impl Table {
    /// Maps the header; `None` for a cell that is not text (already reported). Two cells for
    /// one column and a missing `case_id` column are errors, and so, in a golden file, is a
    /// cell that names no matrix column.
    fn new(
        name: &str,
        line: u64,
        header: &[Option<&str>],
        keep: &[bool],
        strictness: Strictness,
        split: Split<'_>,
        errors: &mut InputErrors,
    ) -> Table {
        if case_file_header(header) {
            errors.push(
                InputError::new(ErrorKind::Swapped, name, line, CASE_FILE_NOT_MATRIX)
                    .column("header"),
            );
            return Table {
                file: MatrixFile::with_split(
                    name,
                    Some(line),
                    vec![false; Column::COUNT],
                    keep,
                    split,
                ),
                targets: vec![None; header.len()],
                case_file: true,
            };
        }
        let mut targets: Vec<Option<Column>> = Vec::with_capacity(header.len());
        let mut header_columns = vec![false; Column::COUNT];
        let mut named_by: Vec<Option<&str>> = vec![None; Column::COUNT];
        // Cells after the last matrix column are spec section 5's further columns.
        let last_matrix_column = header
            .iter()
            .rposition(|text| text.and_then(column_from_header).is_some());
        for (position, text) in header.iter().enumerate() {
            let column = text.and_then(column_from_header);
            if let (None, Some(text), Strictness::Golden) = (column, text, strictness) {
                if !text.trim().is_empty() && last_matrix_column.is_some_and(|last| position < last)
                {
                    errors.push(
                        InputError::new(ErrorKind::Header, name, line, UNKNOWN_GOLDEN_COLUMN)
                            .column("header")
                            .value(*text),
                    );
                }
            }
            if let (Some(column), Some(text)) = (column, text) {
                if let Some(earlier) = named_by[column.index()] {
                    errors.push(
                        InputError::new(
                            ErrorKind::Header,
                            name,
                            line,
                            format!(
                                "columns {earlier:?} and {text:?} both name the column {column}"
                            ),
                        )
                        .column("header"),
                    );
                    targets.push(None);
                    continue;
                }
                named_by[column.index()] = Some(text);
                header_columns[column.index()] = true;
            }
            targets.push(column);
        }
        if !header_columns[Column::CaseId.index()] {
            errors.push(
                InputError::new(ErrorKind::Header, name, line, "no case_id column")
                    .column("header"),
            );
        }
        Table {
            file: MatrixFile::with_split(name, Some(line), header_columns, keep, split),
            targets,
            case_file: false,
        }
    }

    /// Adds the row at `line`: its cells by header position (missing ones empty).
    fn add<S: AsRef<str>>(&mut self, line: u64, cells: &[S], errors: &mut InputErrors) {
        if !self.file.header_columns[Column::CaseId.index()] {
            // Reported once, at the header.
            return;
        }
        let mut row: Vec<Option<&str>> = self
            .file
            .header_columns
            .iter()
            .map(|&present| present.then_some(""))
            .collect();
        for (cell, target) in cells.iter().zip(&self.targets) {
            if let Some(column) = target {
                row[column.index()] = Some(cell.as_ref());
            }
        }
        add_row(&mut self.file, line, &row, errors);
    }
}
