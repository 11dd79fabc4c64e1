//! Reading a matrix — a golden file or a learner's filled-in submission — as CSV, as a
//! workbook, or as the JSON array of spec section 5, with every problem located.
//!
//! Files are read as spreadsheets save them (spec sections 2 and 8): the delimiter (comma,
//! semicolon or tab) detected from the header, a byte-order mark, `\n`, `\r\n` or `\r` line
//! endings, blank lines, extra columns, columns in any order, headings as the lesson writes
//! them (`Decision`, `Stale Generation`), `.xlsx`/`.xlsm`/`.ods` workbooks. Their structure is
//! held to what case files are (issue 13): a row with more or fewer cells than the header, an
//! unterminated quote, a duplicated `case_id` and a row without one are errors. A golden file's
//! values must also be in the contract's canonical form ([`read_golden_file`]).

use std::hash::BuildHasher;
use std::path::Path;

use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::columns::Column;
use super::partitions::{Partitions, Splitter, StoredRow};
use super::spool::{Spool, SpoolWriter};
use crate::input::records::Records;
use crate::input::workbook::{for_each_row, is_workbook_extension};
use crate::input::{
    check_forced_delimiter, detect_delimiter, HeaderColumns, InputError, InputErrors, ReadOptions,
    UNTERMINATED,
};
use crate::matrix::MatrixRow;

/// How a matrix being read is split: the splitter, and the graded columns (in the order a
/// JSON row's missing keys are reported); `None` to hold it whole.
type Split<'a> = Option<(&'a Splitter, &'a [Column])>;

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
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("json") => MatrixFileFormat::Json,
            Some(extension) if is_workbook_extension(extension) => MatrixFileFormat::Workbook,
            _ => MatrixFileFormat::Csv,
        }
    }
}

/// One case's row of a matrix file, with where it is: a view into the [`MatrixFile`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixEntry<'a> {
    /// The case id, trimmed.
    pub case_id: &'a str,
    /// The line the row starts on.
    pub line: u64,
    /// The cells the reader kept, as written, in matrix order: only the columns asked for
    /// (see [`parse_matrix_keeping`]) that the file has (CSV) or the row gives (JSON). A large
    /// matrix is graded on two columns, so the other twenty are not held for every row.
    cells: &'a [CellEnd],
    /// The row's text: its case id, then its kept cells one after another.
    text: &'a str,
}

impl<'a> MatrixEntry<'a> {
    /// The cell of `column`, if the row gives it (and it was kept); the case id's is
    /// [`MatrixEntry::case_id`], trimmed.
    pub fn cell(&self, column: Column) -> Option<&'a str> {
        if column == Column::CASE_ID {
            return Some(self.case_id);
        }
        let mut start = self.case_id.len();
        for cell in self.cells {
            let end = cell.end as usize;
            if usize::from(cell.column) == column.index() {
                return Some(&self.text[start..end]);
            }
            start = end;
        }
        None
    }
}

/// A kept cell: its column, and where its text ends, counted from the start of its row's
/// text (it starts where the one before it, or the case id, ends).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CellEnd {
    column: u8,
    end: u32,
}

/// A row's cells in [`crate::matrix::COLUMNS`] order, reduced to the kept ones (the case id
/// is held once, as [`MatrixEntry::case_id`]).
fn kept_cells<'c>(cells: &'c [Option<String>], keep: &[bool]) -> Vec<(Column, &'c str)> {
    cells
        .iter()
        .enumerate()
        .filter(|(index, _)| keep[*index] && *index != Column::CASE_ID.index())
        .filter_map(|(index, cell)| Some((Column::at(index)?, cell.as_deref()?)))
        .collect()
}

/// Where a row is held in a [`MatrixFile`].
#[derive(Clone, Copy, Debug)]
struct Row {
    line: u64,
    /// Where its case id starts in [`MatrixFile::text`].
    start: usize,
    /// Where its cells start in [`MatrixFile::cells`].
    first_cell: u32,
    /// Its case id's length in bytes.
    id_len: u32,
}

/// A matrix read from a file (or built from the engine's verdicts): rows in file order,
/// findable by case id. The rows' text is held in one buffer and the index holds row numbers,
/// so a row costs its text and a few words: a 400k-case matrix graded on two columns is tens
/// of megabytes, not hundreds.
#[derive(Debug)]
pub struct MatrixFile {
    /// The file's name as given, for messages and annotations.
    pub name: String,
    /// The CSV header's line; `None` for JSON, whose keys are per row.
    pub header_line: Option<u64>,
    /// Which columns the CSV header has (every column for JSON and engine matrices).
    header_columns: Vec<bool>,
    /// Which columns' cells rows keep.
    keep: Vec<bool>,
    /// Every row's case id and kept cells, one after another, in file order.
    text: String,
    /// The rows, in file order.
    rows: Vec<Row>,
    /// Every row's kept cells, in file order.
    cells: Vec<CellEnd>,
    /// Row numbers, by the hash of their case id.
    by_case_id: hashbrown::HashTable<u32>,
    hasher: foldhash::fast::RandomState,
    /// Where rows go instead when the matrix is read split ([`SplitMatrix`]).
    split: Option<Box<SplitSink>>,
}

/// The rows of a matrix being read split, and what is checked of them as they come.
#[derive(Debug)]
struct SplitSink {
    partitions: Partitions,
    /// The graded columns, in the order their absence is reported.
    graded: Vec<Column>,
    /// Each JSON row's missing graded keys, as [`MatrixFile::missing_columns`] lists them.
    missing: Vec<InputError>,
}

impl MatrixFile {
    fn new(
        name: &str,
        header_line: Option<u64>,
        header_columns: Vec<bool>,
        keep: &[bool],
    ) -> MatrixFile {
        MatrixFile {
            name: name.to_owned(),
            header_line,
            header_columns,
            keep: keep.to_vec(),
            text: String::new(),
            rows: Vec::new(),
            cells: Vec::new(),
            by_case_id: hashbrown::HashTable::new(),
            hasher: foldhash::fast::RandomState::default(),
            split: None,
        }
    }

    /// As [`MatrixFile::new`], its rows split by `split` (the splitter, and the graded
    /// columns) if given.
    fn with_split(
        name: &str,
        header_line: Option<u64>,
        header_columns: Vec<bool>,
        keep: &[bool],
        split: Split<'_>,
    ) -> MatrixFile {
        let mut file = MatrixFile::new(name, header_line, header_columns, keep);
        file.split = split.map(|(splitter, graded)| {
            Box::new(SplitSink {
                partitions: Partitions::new(splitter),
                graded: graded.to_vec(),
                missing: Vec::new(),
            })
        });
        file
    }

    /// The engine's matrix for the cases of the file `name`, each row located at `line` (the
    /// case's first line in the case file).
    pub fn from_matrix_rows<'a>(
        name: &str,
        rows: impl IntoIterator<Item = (u64, &'a MatrixRow)>,
    ) -> MatrixFile {
        let keep = [true; Column::COUNT];
        let mut file = MatrixFile::new(name, None, vec![true; Column::COUNT], &keep);
        for (line, row) in rows {
            let cells: Vec<Option<String>> = row.cells().into_iter().map(Some).collect();
            let kept = kept_cells(&cells, &keep);
            // The engine never yields two cases with one id, so this cannot fail.
            let _ = file.push(&row.case_id, line, &kept, 0);
        }
        file
    }

    /// How many rows it has.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether it has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The row at `index` in file order.
    pub fn row(&self, index: usize) -> MatrixEntry<'_> {
        let row = self.rows[index];
        let (end, cells_end) = match self.rows.get(index + 1) {
            Some(next) => (next.start, next.first_cell as usize),
            None => (self.text.len(), self.cells.len()),
        };
        let text = &self.text[row.start..end];
        MatrixEntry {
            case_id: &text[..row.id_len as usize],
            line: row.line,
            cells: &self.cells[row.first_cell as usize..cells_end],
            text,
        }
    }

    /// The rows, in file order.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = MatrixEntry<'_>> + '_ {
        (0..self.rows.len()).map(|index| self.row(index))
    }

    /// The row of `case_id`, if there is one.
    pub fn find(&self, case_id: &str) -> Option<MatrixEntry<'_>> {
        self.position(case_id).map(|index| self.row(index))
    }

    /// The index in file order of `case_id`'s row, if there is one.
    pub fn position(&self, case_id: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(case_id);
        self.by_case_id
            .find(hash, |&index| self.id(index as usize) == case_id)
            .map(|&index| index as usize)
    }

    /// Makes room for `rows` more rows of about `bytes` bytes of text in all.
    fn reserve(&mut self, rows: usize, bytes: usize) {
        self.rows.reserve_exact(rows);
        self.text.reserve_exact(bytes);
        self.cells
            .reserve_exact(rows * self.keep.iter().filter(|k| **k).count());
        let (text, table_rows, hasher) = (&self.text, &self.rows, &self.hasher);
        self.by_case_id.reserve(rows, |&i| {
            let row = table_rows[i as usize];
            hasher.hash_one(&text[row.start..row.start + row.id_len as usize])
        });
    }

    /// The case id of the row at `index`.
    fn id(&self, index: usize) -> &str {
        let row = self.rows[index];
        &self.text[row.start..row.start + row.id_len as usize]
    }

    /// Adds a row: its case id and its kept cells; a case id already present is refused with
    /// the line it is on. A matrix read split sends the row to its partition, where a
    /// duplicate is found when the partition is loaded; `errors_before` (how many errors the
    /// reader has listed) says where that error goes among the others.
    fn push(
        &mut self,
        case_id: &str,
        line: u64,
        cells: &[(Column, &str)],
        errors_before: usize,
    ) -> Result<(), u64> {
        if let Some(sink) = &mut self.split {
            if self.header_line.is_none() {
                for &column in &sink.graded {
                    if column != Column::CASE_ID && !cells.iter().any(|(c, _)| *c == column) {
                        sink.missing.push(
                            InputError::new(&self.name, line, "the row has no such key")
                                .column(column.name()),
                        );
                    }
                }
            }
            sink.partitions
                .push(case_id, line, errors_before as u64, cells);
            return Ok(());
        }
        let hash = self.hasher.hash_one(case_id);
        if let Some(&earlier) = self
            .by_case_id
            .find(hash, |&index| self.id(index as usize) == case_id)
        {
            return Err(self.rows[earlier as usize].line);
        }
        let index = u32::try_from(self.rows.len()).expect("fewer than 4G rows");
        let start = self.text.len();
        let first_cell = u32::try_from(self.cells.len()).expect("fewer than 4G cells");
        self.text.push_str(case_id);
        for (column, cell) in cells {
            self.text.push_str(cell);
            self.cells.push(CellEnd {
                column: u8::try_from(column.index()).expect("fewer than 256 columns"),
                end: u32::try_from(self.text.len() - start).expect("a row under 4 GiB"),
            });
        }
        self.rows.push(Row {
            line,
            start,
            first_cell,
            id_len: u32::try_from(case_id.len()).expect("a case id under 4 GiB"),
        });
        let (text, rows, hasher) = (&self.text, &self.rows, &self.hasher);
        self.by_case_id.insert_unique(hash, index, |&i| {
            let row = rows[i as usize];
            hasher.hash_one(&text[row.start..row.start + row.id_len as usize])
        });
        Ok(())
    }

    /// Every graded column the file lacks, located: at the CSV header, or at each JSON row
    /// without the key.
    pub fn missing_columns(&self, graded: &[Column]) -> Vec<InputError> {
        let mut errors = Vec::new();
        if let Some(header_line) = self.header_line {
            errors = missing_headers(&self.name, header_line, &self.header_columns, graded);
        } else {
            for row in self.rows() {
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

/// Every graded column a CSV header lacks, located at the header.
fn missing_headers(
    name: &str,
    header_line: u64,
    header_columns: &[bool],
    graded: &[Column],
) -> Vec<InputError> {
    graded
        .iter()
        .filter(|column| !header_columns[column.index()])
        .map(|column| {
            InputError::new(
                name,
                header_line,
                format!("no column for the graded column {column}"),
            )
            .column("header")
        })
        .collect()
}

/// A matrix read split by case-id hash ([`super::partitions`]): none of its rows is held
/// but in its partitions' buffers; a partition is loaded as a [`MatrixFile`] to be joined,
/// so a matrix of any size is graded in bounded memory.
#[derive(Debug)]
pub struct SplitMatrix {
    /// The file's name as given, for messages.
    pub name: String,
    header_line: Option<u64>,
    header_columns: Vec<bool>,
    keep: Vec<bool>,
    partitions: Partitions,
    /// Each JSON row's missing graded keys, in file order.
    missing: Vec<InputError>,
    /// Its one partition, loaded once for all ([`SplitMatrix::hold`]).
    held: Option<LoadedPart>,
}

/// A loaded partition: held by its matrix, or loaded for the caller.
pub enum Loaded<'a> {
    /// The matrix's one partition, loaded once.
    Held(&'a LoadedPart),
    /// Loaded for this use.
    Fresh(Box<LoadedPart>),
}

impl std::ops::Deref for Loaded<'_> {
    type Target = LoadedPart;

    fn deref(&self) -> &LoadedPart {
        match self {
            Loaded::Held(part) => part,
            Loaded::Fresh(part) => part,
        }
    }
}

/// A partition of a [`SplitMatrix`], loaded.
#[derive(Debug)]
pub struct LoadedPart {
    /// Its rows in file order, findable by case id.
    pub matrix: MatrixFile,
    /// Per row of [`LoadedPart::matrix`], its index among the whole file's rows.
    pub indexes: Vec<u64>,
    /// Its rows whose case id a row before them has (not in the matrix).
    pub duplicates: Vec<Duplicate>,
}

/// A row whose case id an earlier row has: an error found only when its partition is loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Duplicate {
    /// The row's index among the file's rows.
    pub index: u64,
    /// How many of the reader's errors come before it (see [`with_duplicates`]).
    errors_before: u64,
    /// The error, as a matrix read whole reports it.
    pub error: InputError,
}

impl SplitMatrix {
    /// How many rows were read (duplicates included).
    pub fn len(&self) -> u64 {
        self.partitions.len()
    }

    /// Whether no row was read.
    pub fn is_empty(&self) -> bool {
        self.partitions.is_empty()
    }

    /// How many partitions it is split into.
    pub fn parts(&self) -> usize {
        self.partitions.parts()
    }

    /// The splitter it was split by: a matrix joined with it is split by the same one.
    pub fn splitter(&self) -> &Splitter {
        self.partitions.splitter()
    }

    /// Every graded column the file lacks, as [`MatrixFile::missing_columns`] lists them
    /// (`graded` must be the columns it was read for). A JSON row whose case id is
    /// duplicated is listed too, so ask only of a matrix read without errors.
    pub fn missing_columns(&self, graded: &[Column]) -> Vec<InputError> {
        match self.header_line {
            Some(header_line) => {
                missing_headers(&self.name, header_line, &self.header_columns, graded)
            }
            None => self.missing.clone(),
        }
    }
    /// Whether it lacks a graded column ([`SplitMatrix::missing_columns`] is not empty).
    pub fn lacks_columns(&self, graded: &[Column]) -> bool {
        match self.header_line {
            Some(_) => graded.iter().any(|c| !self.header_columns[c.index()]),
            None => !self.missing.is_empty(),
        }
    }

    /// [`SplitMatrix::missing_columns`], the matrix given up for them (a JSON matrix's list
    /// can be long: not copied).
    pub fn into_missing_columns(self, graded: &[Column]) -> Vec<InputError> {
        match self.header_line {
            Some(_) => self.missing_columns(graded),
            None => self.missing,
        }
    }

    /// Moves its partitions' buffers to their files ([`Partitions::seal`]): a join holds only
    /// the partition it loads.
    pub fn seal(&mut self) {
        self.partitions.seal();
    }

    /// Keeps its partition loaded when it has only one (a golden file a class is graded
    /// against: loaded once, not once per submission). Its duplicates are then those of the
    /// held partition.
    pub fn hold(&mut self) -> std::io::Result<()> {
        if self.parts() == 1 && self.held.is_none() {
            self.held = Some(self.read_part(0)?);
        }
        Ok(())
    }

    /// Partition `part`, loaded (or held).
    pub fn load(&self, part: usize) -> std::io::Result<Loaded<'_>> {
        Ok(match &self.held {
            Some(held) => Loaded::Held(held),
            None => Loaded::Fresh(Box::new(self.read_part(part)?)),
        })
    }

    fn read_part(&self, part: usize) -> std::io::Result<LoadedPart> {
        let mut matrix = MatrixFile::new(
            &self.name,
            self.header_line,
            self.header_columns.clone(),
            &self.keep,
        );
        let (rows, bytes) = self.partitions.size(part);
        matrix.reserve(rows, bytes);
        let mut indexes = Vec::with_capacity(rows);
        let mut duplicates = Vec::new();
        self.partitions.read(part, &mut |row: StoredRow<'_>| {
            match matrix.push(row.case_id, row.line, row.cells, 0) {
                Ok(()) => indexes.push(row.index),
                Err(earlier) => duplicates.push(Duplicate {
                    index: row.index,
                    errors_before: row.tag,
                    error: duplicated(&self.name, row.line, earlier, row.case_id.to_owned()),
                }),
            }
            Ok(())
        })?;
        Ok(LoadedPart {
            matrix,
            indexes,
            duplicates,
        })
    }

    /// Every row's case id with its index, in file order (spooled: for the item analysis
    /// and hints, which walk the golden cases in order).
    pub fn case_ids(&self) -> std::io::Result<Spool<(u64, String)>> {
        let mut ids = SpoolWriter::new();
        let mut runs = vec![ids.point()];
        for part in 0..self.parts() {
            self.partitions.read(part, &mut |row| {
                ids.push(&(row.index, row.case_id.to_owned()))
            })?;
            runs.push(ids.point());
        }
        ids.finish()?.merge_runs(&runs)
    }

    /// Every duplicated case id, found by loading each partition once.
    pub fn duplicates(&self) -> std::io::Result<Vec<Duplicate>> {
        let mut all = Vec::new();
        for part in 0..self.parts() {
            all.extend(self.load(part)?.duplicates.iter().cloned());
        }
        Ok(all)
    }
}

/// The reader's `errors` with the `duplicates` found later put where a matrix read whole
/// lists them: in file order, each after the errors of the rows before it.
pub fn with_duplicates(errors: Vec<InputError>, mut duplicates: Vec<Duplicate>) -> Vec<InputError> {
    duplicates.sort_by_key(|d| d.index);
    let found = duplicates.into_iter().map(|d| (d.errors_before, d.error));
    insert_errors(errors, found)
}

/// `errors` with each of the `found` errors put after the first `n` of them, `n` its number:
/// errors found after the others, listed where they would have been found in one pass
/// (`found` in that order, its numbers growing).
pub fn insert_errors(
    errors: Vec<InputError>,
    found: impl IntoIterator<Item = (u64, InputError)>,
) -> Vec<InputError> {
    let mut merged = Vec::with_capacity(errors.len());
    let mut errors = errors.into_iter();
    let mut taken = 0u64;
    for (errors_before, error) in found {
        while taken < errors_before {
            match errors.next() {
                Some(error) => merged.push(error),
                None => break,
            }
            taken += 1;
        }
        merged.push(error);
    }
    merged.extend(errors);
    merged
}

impl MatrixFile {
    /// The matrix read split, if it was.
    fn into_split(self) -> Option<SplitMatrix> {
        let sink = self.split?;
        Some(SplitMatrix {
            name: self.name,
            header_line: self.header_line,
            header_columns: self.header_columns,
            keep: self.keep,
            partitions: sink.partitions,
            missing: sink.missing,
            held: None,
        })
    }
}

/// A matrix read split by `splitter` (the cells of `columns` kept), with the errors found as
/// it was read; its duplicated case ids are found as its partitions are loaded
/// ([`SplitMatrix::load`], merged with [`with_duplicates`]). `Err` when no row could be read.
pub fn read_matrix_file_split(
    path: &Path,
    name: &str,
    options: &ReadOptions,
    columns: &[Column],
    splitter: &Splitter,
) -> Result<(SplitMatrix, Vec<InputError>), InputErrors> {
    let file = open_matrix(path, name)?;
    let format = MatrixFileFormat::for_path(path);
    read_matrix_split_from(file, format, name, options, columns, splitter)
}

/// [`read_matrix_file_split`] of a file already open, in `format`: a submission is read from
/// the handle it was checked on ([`super::submission_file::open_submission`]).
pub fn read_matrix_split_from(
    file: std::fs::File,
    format: MatrixFileFormat,
    name: &str,
    options: &ReadOptions,
    columns: &[Column],
    splitter: &Splitter,
) -> Result<(SplitMatrix, Vec<InputError>), InputErrors> {
    let split = Some((splitter, columns));
    as_split(read_open_file(
        file,
        format,
        name,
        options,
        columns,
        Strictness::Submission,
        split,
    ))
}

/// A matrix read split, with its reader's errors.
fn as_split(read: Partial) -> Result<(SplitMatrix, Vec<InputError>), InputErrors> {
    let (file, errors) = read?;
    Ok((file.into_split().expect("read split"), errors))
}

/// [`read_matrix_file_split`] from the bytes of a file in `format`.
pub fn parse_matrix_split(
    bytes: &[u8],
    name: &str,
    format: MatrixFileFormat,
    options: &ReadOptions,
    columns: &[Column],
    splitter: &Splitter,
) -> Result<(SplitMatrix, Vec<InputError>), InputErrors> {
    let split = Some((splitter, columns));
    as_split(parse(
        bytes,
        name,
        format,
        options,
        columns,
        Strictness::Submission,
        split,
    ))
}

/// Reads a golden file strictly, as [`read_golden_file_keeping`], split by `splitter`: its
/// partitions are loaded once to find duplicated case ids, so that a golden file is known
/// sound before anything is graded against it.
pub fn read_golden_file_split(
    path: &Path,
    name: &str,
    columns: &[Column],
    splitter: &Splitter,
) -> Result<SplitMatrix, InputErrors> {
    let file = open_matrix(path, name)?;
    read_golden_split_from(
        file,
        MatrixFileFormat::for_path(path),
        name,
        columns,
        splitter,
    )
}

/// [`read_golden_file_split`] of a file already open, in `format`: `grade` reads the golden
/// file from the handle whose identity no submission may share.
pub fn read_golden_split_from(
    file: std::fs::File,
    format: MatrixFileFormat,
    name: &str,
    columns: &[Column],
    splitter: &Splitter,
) -> Result<SplitMatrix, InputErrors> {
    let (mut file, errors) = golden_split_unchecked(file, format, name, columns, splitter)?;
    let duplicates = file
        .hold()
        .and_then(|()| file.duplicates())
        .map_err(|e| kept_error(name, e))?;
    let errors = with_duplicates(errors, duplicates);
    if errors.is_empty() {
        Ok(file)
    } else {
        Err(InputErrors(errors))
    }
}

/// [`read_golden_file_split`] without the pass that looks for duplicated case ids: the file
/// with the errors found as it was read. A caller that loads every partition anyway (a join)
/// finds them there ([`LoadedPart::duplicates`]) and merges them with [`with_duplicates`].
pub fn read_golden_file_split_unchecked(
    path: &Path,
    name: &str,
    columns: &[Column],
    splitter: &Splitter,
) -> Result<(SplitMatrix, Vec<InputError>), InputErrors> {
    let file = open_matrix(path, name)?;
    golden_split_unchecked(
        file,
        MatrixFileFormat::for_path(path),
        name,
        columns,
        splitter,
    )
}

fn golden_split_unchecked(
    file: std::fs::File,
    format: MatrixFileFormat,
    name: &str,
    columns: &[Column],
    splitter: &Splitter,
) -> Result<(SplitMatrix, Vec<InputError>), InputErrors> {
    let options = ReadOptions::default();
    let split = Some((splitter, columns));
    let (mut file, errors) = as_split(read_open_file(
        file,
        format,
        name,
        &options,
        columns,
        Strictness::Golden,
        split,
    ))?;
    file.seal();
    Ok((file, errors))
}

/// The error of a split matrix whose temporary files failed.
pub fn kept_error(name: &str, e: std::io::Error) -> InputErrors {
    InputErrors(vec![InputError::new(
        name,
        0,
        format!("cannot keep the file in temporary files: {e}"),
    )])
}

#[cfg(test)]
mod storage_tests {
    use super::*;

    #[test]
    fn every_row_is_found_with_its_own_cells() {
        let mut text = String::from("case_id,decision,reason,job_id\n");
        for i in 0..5000 {
            // Empty cells, ids of every length, and ids that are prefixes of others.
            let reason = if i % 3 == 0 { "" } else { "within_lease" };
            text.push_str(&format!("c{i},D{i},{reason},j{i}\n"));
        }
        let keep = [Column::DECISION, Column::REASON];
        let file = parse_matrix_keeping(
            text.as_bytes(),
            "m.csv",
            MatrixFileFormat::Csv,
            &ReadOptions::default(),
            &keep,
        )
        .unwrap();
        assert_eq!(file.len(), 5000);
        for i in 0..5000 {
            let row = file.find(&format!("c{i}")).unwrap();
            assert_eq!(file.position(row.case_id), Some(i));
            assert_eq!(row.line, i as u64 + 2);
            assert_eq!(row.cell(Column::DECISION), Some(format!("D{i}").as_str()));
            let reason = if i % 3 == 0 { "" } else { "within_lease" };
            assert_eq!(row.cell(Column::REASON), Some(reason));
            assert_eq!(row.cell(Column::from_header("job_id").unwrap()), None);
            assert_eq!(row, file.row(i));
        }
        assert!(file.find("c5000").is_none() && file.find("c").is_none());
        // A JSON row that gives no kept key keeps no cells; the next row's are its own.
        let json = "[{\"case_id\":\"a\"},{\"case_id\":\"b\",\"reason\":\"x\"}]";
        let file = parse_matrix_keeping(
            json.as_bytes(),
            "m.json",
            MatrixFileFormat::Json,
            &ReadOptions::default(),
            &keep,
        )
        .unwrap();
        let a = file.find("a").unwrap();
        assert_eq!(
            (a.cell(Column::DECISION), a.cell(Column::REASON)),
            (None, None)
        );
        assert_eq!(file.find("b").unwrap().cell(Column::REASON), Some("x"));
    }
}

/// Reads a matrix file, in the format its extension implies (a CSV delimiter detected, a
/// workbook's first sheet).
pub fn read_matrix_file(path: &Path, name: &str) -> Result<MatrixFile, InputErrors> {
    read_matrix_file_with(path, name, &ReadOptions::default())
}

/// [`read_matrix_file`] with a given delimiter or sheet.
pub fn read_matrix_file_with(
    path: &Path,
    name: &str,
    options: &ReadOptions,
) -> Result<MatrixFile, InputErrors> {
    let every: Vec<Column> = Column::all().collect();
    read_matrix_file_keeping(path, name, options, &every)
}

/// Reads a matrix file keeping only the cells of `columns` (and the case id), in the format
/// its extension implies. Every matrix file is read here.
pub fn read_matrix_file_keeping(
    path: &Path,
    name: &str,
    options: &ReadOptions,
    columns: &[Column],
) -> Result<MatrixFile, InputErrors> {
    whole(read_file(
        path,
        name,
        options,
        columns,
        Strictness::Submission,
        None,
    ))
}

/// Reads a golden file strictly: as [`read_matrix_file`], and every value must be in the
/// contract's canonical form (spec sections 5 and 8), so a typo in a label is the author's
/// error, not a point taken from a learner.
pub fn read_golden_file(path: &Path, name: &str) -> Result<MatrixFile, InputErrors> {
    let every: Vec<Column> = Column::all().collect();
    read_golden_file_keeping(path, name, &every)
}

/// [`read_golden_file`] keeping only the cells of `columns` (and the case id). Only they are
/// held, but every cell is checked for canonical form as its row is read (spec section 8: the
/// golden file is read strictly, not only its graded columns), and a value error is listed
/// with the file's structural errors, in line order.
pub fn read_golden_file_keeping(
    path: &Path,
    name: &str,
    columns: &[Column],
) -> Result<MatrixFile, InputErrors> {
    whole(read_file(
        path,
        name,
        &ReadOptions::default(),
        columns,
        Strictness::Golden,
        None,
    ))
}

/// Reads a matrix file in the format its extension implies. CSV and JSON are read as they
/// come, a row at a time, so a matrix of any size is held only as its kept cells; a workbook
/// is read whole (its sheets are compressed XML), up to [`crate::limits::MAX_DOCUMENT_BYTES`].
fn read_file(
    path: &Path,
    name: &str,
    options: &ReadOptions,
    columns: &[Column],
    strictness: Strictness,
    split: Split<'_>,
) -> Partial {
    let file = open_matrix(path, name)?;
    let format = MatrixFileFormat::for_path(path);
    read_open_file(file, format, name, options, columns, strictness, split)
}

/// [`read_file`] of a file already open, in `format`.
fn read_open_file(
    file: std::fs::File,
    format: MatrixFileFormat,
    name: &str,
    options: &ReadOptions,
    columns: &[Column],
    strictness: Strictness,
    split: Split<'_>,
) -> Partial {
    let cannot = |e: std::io::Error| {
        InputErrors(vec![InputError::new(name, 0, format!("cannot read: {e}"))])
    };
    let keep = kept_columns(columns);
    let mut errors = Vec::new();
    match format {
        MatrixFileFormat::Json => partial(
            parse_json(file, name, &keep, strictness, split, &mut errors),
            errors,
        ),
        MatrixFileFormat::Csv => partial(
            parse_csv(file, name, options, &keep, strictness, split, &mut errors),
            errors,
        ),
        MatrixFileFormat::Workbook => {
            // Refused by its size before a byte is read; then read from the same handle.
            crate::limits::check_document_size(&file).map_err(cannot)?;
            let bytes = crate::limits::read_file_document(file).map_err(cannot)?;
            parse(
                &bytes,
                name,
                MatrixFileFormat::Workbook,
                options,
                columns,
                strictness,
                split,
            )
        }
    }
}

/// Reads a golden matrix from its bytes (named `name` in errors) as
/// [`read_golden_file_keeping`] reads a file: every cell checked, the cells of `columns` (and
/// the case id) kept.
pub fn parse_golden_keeping(
    bytes: &[u8],
    name: &str,
    format: MatrixFileFormat,
    columns: &[Column],
) -> Result<MatrixFile, InputErrors> {
    whole(parse(
        bytes,
        name,
        format,
        &ReadOptions::default(),
        columns,
        Strictness::Golden,
        None,
    ))
}

/// Every kept value of a matrix that is not in canonical form, located: what
/// [`read_golden_file`] checks, for a matrix read otherwise.
pub fn golden_errors(file: &MatrixFile) -> Vec<InputError> {
    let mut errors = Vec::new();
    for row in file.rows() {
        for column in Column::all() {
            let Some(cell) = row.cell(column) else {
                continue;
            };
            if let Err(message) = column.check_canonical(cell) {
                errors.push(
                    InputError::new(&file.name, row.line, message)
                        .column(column.name())
                        .value(cell),
                );
            }
        }
    }
    errors
}

/// Reads a matrix from its bytes (named `name` in errors).
pub fn parse_matrix(
    bytes: &[u8],
    name: &str,
    format: MatrixFileFormat,
) -> Result<MatrixFile, InputErrors> {
    parse_matrix_with(bytes, name, format, &ReadOptions::default())
}

/// [`parse_matrix`] with a given delimiter (CSV) or sheet (workbooks).
pub fn parse_matrix_with(
    bytes: &[u8],
    name: &str,
    format: MatrixFileFormat,
    options: &ReadOptions,
) -> Result<MatrixFile, InputErrors> {
    let every: Vec<Column> = Column::all().collect();
    parse_matrix_keeping(bytes, name, format, options, &every)
}

/// Reads a matrix from its bytes keeping only the cells of `columns` (and the case id); the
/// others are checked as usual but not held: a large matrix is graded on two columns.
pub fn parse_matrix_keeping(
    bytes: &[u8],
    name: &str,
    format: MatrixFileFormat,
    options: &ReadOptions,
    columns: &[Column],
) -> Result<MatrixFile, InputErrors> {
    whole(parse(
        bytes,
        name,
        format,
        options,
        columns,
        Strictness::Submission,
        None,
    ))
}

/// A golden file's header cell or case object's key that names no matrix column, among the
/// matrix's columns. Spec section 5 lets further columns (an explanation, `adjudicate
/// --explain`'s `detail`) follow the matrix's, and graders ignore those; one before or between
/// them is a misspelt or foreign column, and a key is strict about what it holds.
const UNKNOWN_GOLDEN_COLUMN: &str = "names no matrix column; in a golden file only further \
     columns after the matrix's (an explanation) may name none";

/// How a matrix's values are held to the contract.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Strictness {
    /// A learner's submission: values are compared leniently later, not checked here.
    Submission,
    /// A golden file: every cell, kept or not, must be in canonical form.
    Golden,
}

/// A matrix as read, with the errors found in it (it may have some), or only errors when
/// nothing could be read past them.
type Partial = Result<(MatrixFile, Vec<InputError>), InputErrors>;

fn partial(file: Option<MatrixFile>, errors: Vec<InputError>) -> Partial {
    match file {
        Some(file) => Ok((file, errors)),
        None => Err(InputErrors(errors)),
    }
}

/// The matrix, if it was read without an error.
fn whole(read: Partial) -> Result<MatrixFile, InputErrors> {
    match read? {
        (file, errors) if errors.is_empty() => Ok(file),
        (_, errors) => Err(InputErrors(errors)),
    }
}

/// Opens a matrix file to be read as it comes. A file that cannot be opened, or a directory
/// (which opens, and fails at its first read), is an error of the file, at no line: "cannot
/// be read", not "malformed".
pub fn open_matrix(path: &Path, name: &str) -> Result<std::fs::File, InputErrors> {
    let cannot = |e: std::io::Error| {
        InputErrors(vec![InputError::new(name, 0, format!("cannot read: {e}"))])
    };
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

fn parse(
    bytes: &[u8],
    name: &str,
    format: MatrixFileFormat,
    options: &ReadOptions,
    columns: &[Column],
    strictness: Strictness,
    split: Split<'_>,
) -> Partial {
    let keep = kept_columns(columns);
    let mut errors = Vec::new();
    let file = match format {
        MatrixFileFormat::Csv => {
            parse_csv(bytes, name, options, &keep, strictness, split, &mut errors)
        }
        MatrixFileFormat::Json => parse_json(bytes, name, &keep, strictness, split, &mut errors),
        MatrixFileFormat::Workbook => {
            parse_workbook(bytes, name, options, &keep, strictness, split, &mut errors)
        }
    };
    partial(file, errors)
}

/// Lists each of a golden row's cells that is not in canonical form. Called as the row is
/// read, before the cells not kept are dropped: a 400k-case golden file is checked whole
/// without being held whole.
fn check_golden_cells<'c>(
    name: &str,
    line: u64,
    cells: impl IntoIterator<Item = (Column, &'c str)>,
    errors: &mut Vec<InputError>,
) {
    for (column, cell) in cells {
        if let Err(message) = column.check_canonical(cell) {
            errors.push(
                InputError::new(name, line, message)
                    .column(column.name())
                    .value(cell),
            );
        }
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
    let keep = std::mem::take(&mut file.keep);
    let pushed = file.push(&case_id, line, &kept_cells(&cells, &keep), errors.len());
    file.keep = keep;
    if let Err(earlier) = pushed {
        errors.push(duplicated(&file.name, line, earlier, case_id));
    }
}

/// The error for a case id at `line` that is already on line `earlier`.
fn duplicated(name: &str, line: u64, earlier: u64, case_id: String) -> InputError {
    InputError::new(
        name,
        line,
        format!("duplicated case id: it is already on line {earlier}"),
    )
    .column("case_id")
    .value(case_id)
}

/// A matrix being read from a header and rows of text cells (CSV or a workbook sheet).
struct Table {
    file: MatrixFile,
    /// The matrix column each header cell names, if any.
    targets: Vec<Option<Column>>,
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
        errors: &mut Vec<InputError>,
    ) -> Table {
        let mut targets: Vec<Option<Column>> = Vec::with_capacity(header.len());
        let mut header_columns = vec![false; Column::COUNT];
        let mut named_by: Vec<Option<&str>> = vec![None; Column::COUNT];
        // Cells after the last matrix column are spec section 5's further columns.
        let last_matrix_column = header
            .iter()
            .rposition(|text| text.and_then(Column::from_header).is_some());
        for (position, text) in header.iter().enumerate() {
            let column = text.and_then(Column::from_header);
            if let (None, Some(text), Strictness::Golden) = (column, text, strictness) {
                if !text.trim().is_empty() && last_matrix_column.is_some_and(|last| position < last)
                {
                    errors.push(
                        InputError::new(name, line, UNKNOWN_GOLDEN_COLUMN)
                            .column("header")
                            .value(*text),
                    );
                }
            }
            if let (Some(column), Some(text)) = (column, text) {
                if let Some(earlier) = named_by[column.index()] {
                    errors.push(
                        InputError::new(
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
        if !header_columns[Column::CASE_ID.index()] {
            errors.push(InputError::new(name, line, "no case_id column").column("header"));
        }
        Table {
            file: MatrixFile::with_split(name, Some(line), header_columns, keep, split),
            targets,
        }
    }

    /// Adds the row at `line`: its cells by header position (missing ones empty).
    fn add(&mut self, line: u64, cells: Vec<String>, errors: &mut Vec<InputError>) {
        if !self.file.header_columns[Column::CASE_ID.index()] {
            // Reported once, at the header.
            return;
        }
        let mut row: Vec<Option<String>> = self
            .file
            .header_columns
            .iter()
            .map(|&present| present.then(String::new))
            .collect();
        for (cell, target) in cells.into_iter().zip(&self.targets) {
            if let Some(column) = target {
                row[column.index()] = Some(cell);
            }
        }
        add_row(&mut self.file, line, row, errors);
    }
}

/// Whether a header cell names a matrix column / `case_id`, for delimiter detection.
fn names_matrix_column(cell: &str) -> bool {
    Column::from_header(cell).is_some()
}

fn names_case_id(cell: &str) -> bool {
    Column::from_header(cell) == Some(Column::CASE_ID)
}

fn parse_csv(
    reader: impl std::io::Read,
    name: &str,
    options: &ReadOptions,
    keep: &[bool],
    strictness: Strictness,
    split: Split<'_>,
    errors: &mut Vec<InputError>,
) -> Option<MatrixFile> {
    let mut records = Records::new(reader, true);
    let cannot =
        |line: u64, e: std::io::Error| InputError::new(name, line, format!("cannot read: {e}"));
    let columns = HeaderColumns {
        known: &names_matrix_column,
        is_key: &names_case_id,
    };
    let delimiter = match options.delimiter {
        Some(delimiter) => {
            // Said here, with what the header looked like, rather than as a bare "no case_id
            // column" from the header's mapping.
            if let Ok(Some(header)) = records.peek_line() {
                if let Err(message) = check_forced_delimiter(header, delimiter, &columns) {
                    errors.push(InputError::new(name, records.line(), message).column("header"));
                    return None;
                }
            }
            delimiter
        }
        None => match records.peek_line() {
            Ok(Some(header)) => match detect_delimiter(header, &columns) {
                Ok(delimiter) => delimiter,
                Err(message) => {
                    errors.push(InputError::new(name, records.line(), message).column("header"));
                    return None;
                }
            },
            Ok(None) => crate::input::Delimiter::COMMA,
            Err(e) => {
                errors.push(cannot(records.line(), e));
                return None;
            }
        },
    };
    records.set_delimiter(delimiter.byte());
    let (header_line, header) = match records.next_record() {
        Ok(None) => {
            errors.push(InputError::new(name, 1, "empty file: no header row"));
            return None;
        }
        Err(e) => {
            errors.push(cannot(records.line(), e));
            return None;
        }
        Ok(Some(record)) if record.is_unterminated() => {
            errors.push(InputError::new(name, record.line, UNTERMINATED).column("header"));
            return None;
        }
        Ok(Some(record)) => (
            record.line,
            record.iter().map(<[u8]>::to_vec).collect::<Vec<_>>(),
        ),
    };
    let header_text: Vec<Option<&str>> = header
        .iter()
        .map(|cell| {
            let text = std::str::from_utf8(cell).ok();
            if text.is_none() {
                errors.push(
                    InputError::new(name, header_line, "header is not valid UTF-8")
                        .column("header")
                        .value(String::from_utf8_lossy(cell)),
                );
            }
            text
        })
        .collect();
    let mut table = Table::new(
        name,
        header_line,
        &header_text,
        keep,
        strictness,
        split,
        errors,
    );
    loop {
        let record = match records.next_record() {
            Ok(Some(record)) => record,
            Ok(None) => break,
            Err(e) => {
                errors.push(cannot(records.line(), e));
                break;
            }
        };
        let line = record.line;
        if record.is_unterminated() {
            errors.push(InputError::new(name, line, UNTERMINATED));
            continue;
        }
        if record.iter().all(|cell| cell.trim_ascii().is_empty()) {
            continue;
        }
        // A golden row's values are checked even where its structure is wrong, so that every
        // problem is listed in one run; a cell past the header's end has no column to check.
        let check = |targets: &[Option<Column>], errors: &mut Vec<InputError>| {
            if strictness == Strictness::Golden {
                let cells = record.iter().zip(targets).filter_map(|(cell, target)| {
                    Some(((*target)?, std::str::from_utf8(cell).ok()?))
                });
                check_golden_cells(name, line, cells, errors);
            }
        };
        if record.len() != table.targets.len() {
            errors.push(InputError::new(
                name,
                line,
                format!(
                    "the row has {} cells; the header has {}",
                    record.len(),
                    table.targets.len()
                ),
            ));
            check(&table.targets, errors);
            continue;
        }
        let mut cells = Vec::with_capacity(record.len());
        let mut row_ok = true;
        for (cell, target) in record.iter().zip(&table.targets) {
            match std::str::from_utf8(cell) {
                Ok(text) => cells.push(text.to_owned()),
                Err(_) => {
                    let column = target.map_or("header", |c| c.name());
                    errors.push(
                        InputError::new(name, line, "not valid UTF-8")
                            .column(column)
                            .value(String::from_utf8_lossy(cell)),
                    );
                    row_ok = false;
                }
            }
        }
        if row_ok {
            table.add(line, cells, errors);
        }
        check(&table.targets, errors);
    }
    Some(table.file)
}

/// Reads a workbook's sheet: the first row with a cell is the header; errors are located as
/// `file.xlsx[Sheet1]:ROW`.
fn parse_workbook(
    bytes: &[u8],
    name: &str,
    options: &ReadOptions,
    keep: &[bool],
    strictness: Strictness,
    split: Split<'_>,
    errors: &mut Vec<InputError>,
) -> Option<MatrixFile> {
    let mut table: Option<Table> = None;
    let mut row_errors = Vec::new();
    let read = for_each_row(
        bytes,
        name,
        options.sheet.as_deref(),
        &mut |located, line, cells| {
            if cells.iter().all(|cell| cell.trim().is_empty()) {
                return;
            }
            let Some(table) = &mut table else {
                let header: Vec<Option<&str>> = cells.iter().map(|c| Some(c.as_str())).collect();
                table = Some(Table::new(
                    located,
                    line,
                    &header,
                    keep,
                    strictness,
                    split,
                    &mut row_errors,
                ));
                return;
            };
            let width = cells
                .iter()
                .rposition(|cell| !cell.trim().is_empty())
                .map_or(0, |last| last + 1);
            if width > table.targets.len() {
                row_errors.push(InputError::new(
                    located,
                    line,
                    format!(
                        "the row has {width} cells; the header has {}",
                        table.targets.len()
                    ),
                ));
            } else {
                table.add(line, cells.to_vec(), &mut row_errors);
            }
            if strictness == Strictness::Golden {
                // A sheet's row ends at its last cell: the columns after it are empty cells.
                let cells = table
                    .targets
                    .iter()
                    .enumerate()
                    .filter_map(|(index, target)| {
                        Some(((*target)?, cells.get(index).map_or("", String::as_str)))
                    });
                check_golden_cells(located, line, cells, &mut row_errors);
            }
        },
    );
    errors.append(&mut row_errors);
    if let Err(e) = read {
        errors.push(e);
        // With the rows read so far (see `parse_json`).
        return table.map(|table| table.file);
    }
    if table.is_none() {
        errors.push(InputError::new(name, 0, "empty sheet: no header row"));
    }
    table.map(|table| table.file)
}

/// Reads a JSON matrix as it comes, a case at a time (a 400k-case matrix is never held as
/// text): each case object is located by the line it opens on.
fn parse_json(
    reader: impl std::io::Read,
    name: &str,
    keep: &[bool],
    strictness: Strictness,
    split: Split<'_>,
    errors: &mut Vec<InputError>,
) -> Option<MatrixFile> {
    use crate::input::json_array::{Element, Failure, Limit, TrackedReader, Tracker};
    use crate::input::json_fast::Restart;

    struct Cases<'r> {
        tracker: &'r Tracker,
        file: &'r mut MatrixFile,
        /// Whether the first element is the scan's stand-in, not a case.
        skip_first: bool,
        strictness: Strictness,
        errors: &'r mut Vec<InputError>,
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
            errors.push(InputError::new(name, 0, format!("cannot read: {e}")));
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
        Some(Failure::InvalidUtf8 { line }) => InputError::new(name, line, "not valid UTF-8"),
        Some(Failure::TooLong { line, limit }) => {
            InputError::new(name, line, format!("cannot read: {limit}"))
        }
        None if e.is_io() => InputError::new(name, 0, format!("cannot read: {e}")),
        None if e.is_data() => InputError::new(
            name,
            e.line() as u64,
            "a JSON matrix is one array of case objects",
        ),
        None => InputError::new(name, e.line() as u64, format!("unreadable JSON: {e}")),
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
    errors: &mut Vec<InputError>,
) {
    match serde_json::from_str::<CaseObject>(element) {
        Ok(object) => add_case_object(file, line, &object, strictness, errors),
        // serde_json's parser nests at most 128 deep (no matrix cell nests at all).
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
            errors.push(InputError::new(
                &file.name,
                line,
                "a value nested more than 128 deep, which no matrix cell is",
            ))
        }
        Err(_) => errors.push(InputError::new(
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
    errors: &mut Vec<InputError>,
) {
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
        .rposition(|(key, _)| Column::from_header(key).is_some());
    for (position, (key, value)) in object.0.iter().enumerate() {
        let Some(column) = Column::from_header(key) else {
            if strictness == Strictness::Golden
                && last_matrix_column.is_some_and(|last| position < last)
            {
                errors.push(
                    InputError::new(name, line, UNKNOWN_GOLDEN_COLUMN)
                        .column("key")
                        .value(key.as_str()),
                );
            }
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
            repeated.extend(json_cell(value).map(|cell| (column, cell)));
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
    // Listed after the row's structural errors, as in CSV files.
    let mut value_errors = Vec::new();
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
        add_row(file, line, cells, errors);
    }
    errors.append(&mut value_errors);
}

/// A case object with its keys in order and duplicates kept, so that a key given twice is
/// reported (as a CSV header naming a column twice is) rather than the last value winning.
struct CaseObject(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for CaseObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<CaseObject, D::Error> {
        struct CaseVisitor;
        impl<'de> Visitor<'de> for CaseVisitor {
            type Value = CaseObject;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a case object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CaseObject, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    entries.push(entry);
                }
                Ok(CaseObject(entries))
            }
        }
        deserializer.deserialize_map(CaseVisitor)
    }
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
        let file = csv("\u{feff}Note,Reason,Case ID,Decision\r\n\r\nx,within_lease,c1,ACTIVE\r\n,,,\r\ny,awaiting_ack,c2,\r\n")
            .unwrap();
        assert_eq!(file.header_line, Some(1));
        assert_eq!(file.len(), 2);
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
            messages(csv("case_id,decision\n,ACTIVE\nc2,EXPIRED,extra\nc3\n")),
            [
                "m.csv:2: case_id: missing case id",
                "m.csv:3: the row has 3 cells; the header has 2",
                "m.csv:4: the row has 1 cells; the header has 2",
            ]
        );
        assert_eq!(
            messages(csv("case_id,decision\nc1,ACTIVE\nc2,\"EXPIRED\n")),
            ["m.csv:3: unterminated quote: the file ends inside a quoted cell"]
        );
        // Lines end at a lone `\r` too, as old Mac spreadsheets save them.
        assert_eq!(
            messages(csv("case_id;decision\rc1;ACTIVE\r;EXPIRED\r")),
            ["m.csv:3: case_id: missing case id"]
        );
        assert_eq!(
            messages(csv("case_id|decision\nc1|ACTIVE\n")),
            ["m.csv:1: header: no case_id column: the header has one cell, \"case_id|decision\"; tried \",\" \";\" tab"]
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

    fn golden(text: &str, format: MatrixFileFormat, columns: &[Column]) -> Vec<String> {
        messages(parse_golden_keeping(text.as_bytes(), "g", format, columns))
    }

    const DECISIONS: &str = "OWNERSHIP_CONFLICT, SUCCESS, FAILED, CANCELLED, RECONCILIATION_REQUIRED, EXPIRED, ACK_TIMEOUT, ACTIVE, PENDING_ACK";

    #[test]
    fn a_golden_files_value_errors_are_listed_with_its_structural_ones() {
        // The newcomer's file: a bad code, an empty reason, a duplicate id and a ragged row.
        let text = "case_id,decision,reason\nc1,BOGUS,\nc1,ACTIVE,stale_generation\nc2,active,within_lease,extra\n,ACTIVE,\"within_lease\"\n";
        assert_eq!(
            golden(
                text,
                MatrixFileFormat::Csv,
                &[Column::DECISION, Column::REASON]
            ),
            [
                format!("g:2: decision: not a canonical code: one of {DECISIONS} (\"BOGUS\")"),
                "g:2: reason: empty; every case has a value here (\"\")".to_owned(),
                "g:3: case_id: duplicated case id: it is already on line 2 (\"c1\")".to_owned(),
                "g:4: the row has 4 cells; the header has 3".to_owned(),
                format!("g:4: decision: not a canonical code: one of {DECISIONS} (\"active\")"),
                "g:5: case_id: missing case id".to_owned(),
            ]
        );
        // A submission's values are not held to canonical form.
        assert_eq!(
            messages(csv(text)),
            [
                "m.csv:3: case_id: duplicated case id: it is already on line 2 (\"c1\")",
                "m.csv:4: the row has 4 cells; the header has 3",
                "m.csv:5: case_id: missing case id",
            ]
        );
    }

    #[test]
    fn a_golden_files_columns_are_all_checked_though_only_graded_ones_are_kept() {
        let graded = [Column::DECISION, Column::REASON];
        let generation = Column::from_header("generation").unwrap();
        let text = "case_id,generation,decision,reason\nc1,SECRETGEN,ACTIVE,within_lease\nc2,08,EXPIRED,expired_without_result\n";
        let bad = [
            "g:2: generation: not an unsigned integer (decimal digits only) (\"SECRETGEN\")",
            "g:3: generation: not a canonical integer: digits without leading zeros (\"08\")",
        ];
        assert_eq!(golden(text, MatrixFileFormat::Csv, &graded), bad);
        let json = "[{\"case_id\":\"c1\",\"generation\":\"SECRETGEN\",\"decision\":\"ACTIVE\",\"reason\":\"within_lease\"},\n{\"case_id\":\"c2\",\"generation\":\"08\",\"decision\":\"EXPIRED\",\"reason\":\"expired_without_result\"}]";
        let bad_json: Vec<String> = bad
            .iter()
            .map(|m| m.replace("g:2", "g:1").replace("g:3", "g:2"))
            .collect();
        assert_eq!(golden(json, MatrixFileFormat::Json, &graded), bad_json);
        // A canonical file is read, keeping only the graded cells.
        let good = text.replace("SECRETGEN", "7").replace(",08,", ",8,");
        let file =
            parse_golden_keeping(good.as_bytes(), "g", MatrixFileFormat::Csv, &graded).unwrap();
        let c1 = file.find("c1").unwrap();
        assert_eq!(c1.cell(Column::DECISION), Some("ACTIVE"));
        assert_eq!(c1.cell(generation), None);
    }

    #[test]
    fn a_golden_workbook_is_checked_whole_too() {
        let header = ["case_id", "generation", "decision", "reason"];
        let rows: Vec<Vec<String>> = [
            ["c1", "SECRETGEN", "ACTIVE", "within_lease"],
            ["c1", "7", "active", "within_lease"],
            ["c2", "8", "EXPIRED", ""],
        ]
        .iter()
        .map(|row| row.iter().map(|cell| cell.to_string()).collect())
        .collect();
        let bytes = crate::input::workbook::matrix_xlsx("Key", &header, &rows).unwrap();
        let errors: Vec<String> = parse_golden_keeping(
            &bytes,
            "g.xlsx",
            MatrixFileFormat::Workbook,
            &[Column::DECISION],
        )
        .unwrap_err()
        .0
        .iter()
        .map(|e| e.to_string())
        .collect();
        assert_eq!(
            errors,
            [
                "g.xlsx[Key]:2: generation: not an unsigned integer (decimal digits only) (\"SECRETGEN\")".to_owned(),
                "g.xlsx[Key]:3: case_id: duplicated case id: it is already on line 2 (\"c1\")".to_owned(),
                format!("g.xlsx[Key]:3: decision: not a canonical code: one of {DECISIONS} (\"active\")"),
                // An empty cell is checked, whether the sheet stores it or ends the row before it.
                "g.xlsx[Key]:4: reason: empty; every case has a value here (\"\")".to_owned(),
            ]
        );
    }

    #[test]
    fn a_json_key_given_twice_is_an_error_not_the_last_value() {
        let json = |text: &str| parse_matrix(text.as_bytes(), "m.json", MatrixFileFormat::Json);
        let twice = "[{\"case_id\":\"probe-1\",\"decision\":\"ACTIVE\",\"reason\":\"stale_generation\",\"decision\":\"EXPIRED\"}]";
        assert_eq!(
            messages(json(twice)),
            ["m.json:1: decision: keys \"decision\" and \"decision\" both name the column decision"]
        );
        let cased = "[{\"case_id\":\"c1\",\"Decision\":\"ACTIVE\"},\n{\"case_id\":\"c2\",\"decision\":\"ACTIVE\",\"Decision\":\"ACTIVE\"}]";
        assert_eq!(
            messages(json(cased)),
            ["m.json:2: decision: keys \"decision\" and \"Decision\" both name the column decision"]
        );
        assert_eq!(
            messages(json("[{\"case_id\":\"c1\",\"case_id\":\"c2\"}]")),
            ["m.json:1: case_id: keys \"case_id\" and \"case_id\" both name the column case_id"]
        );
        // Unknown keys are ignored, given twice or not.
        assert!(json("[{\"case_id\":\"c1\",\"note\":1,\"note\":2}]").is_ok());
        // In a golden file, the second value is checked too.
        assert_eq!(
            golden(
                "[{\"case_id\":\"c1\",\"decision\":\"ACTIVE\",\"reason\":\"within_lease\",\"decision\":\"active\"}]",
                MatrixFileFormat::Json,
                &[Column::DECISION],
            ),
            [
                "g:1: decision: keys \"decision\" and \"decision\" both name the column decision".to_owned(),
                format!("g:1: decision: not a canonical code: one of {DECISIONS} (\"active\")"),
            ]
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

    /// A JSON matrix is read a case at a time: what breaks it is located where it is, and the
    /// cases before are still checked (every error listed).
    #[test]
    fn json_matrix_breaks_are_located() {
        let json = |text: &[u8]| messages(parse_matrix(text, "m.json", MatrixFileFormat::Json));
        assert_eq!(
            json(b"[\n{\"case_id\": \"c1\"},\n{\"case_id\": \"c1\"},\n{\"case_id\": \"c\xFF\"}]"),
            [
                "m.json:3: case_id: duplicated case id: it is already on line 2 (\"c1\")",
                "m.json:4: not valid UTF-8"
            ]
        );
        assert_eq!(
            json(b"[\n{\"case_id\": \"c1\"},\n]"),
            ["m.json:3: unreadable JSON: trailing comma at line 3 column 1"]
        );
        let long = format!(
            "[{{\"case_id\": \"c1\"}},\n {{\"note\": \"{}\"}}]",
            "a".repeat(2 << 20)
        );
        let errors = json(long.as_bytes());
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with("m.json:2: cannot read: a record longer than"),
            "{errors:?}"
        );
        assert_eq!(
            json(b"[{\"case_id\": \"c1\"}] []"),
            ["m.json:1: unreadable JSON: trailing characters at line 1 column 21"]
        );
    }

    /// A matrix read split lists the errors a matrix read whole lists, in its order, however
    /// many partitions it is split into: duplicated case ids (found per partition) among the
    /// structural and value errors of the rows around them, and a JSON row's missing keys.
    #[test]
    fn a_split_matrix_lists_what_a_whole_one_does() {
        let mut csv = "case_id,decision,reason\n".to_owned();
        let mut json = "[\n".to_owned();
        for i in 0..400 {
            let id = format!("c{}", i % 150);
            let decision = if i % 9 == 0 { "expired" } else { "EXPIRED" };
            csv.push_str(&format!("{id},{decision},ack_missing\n"));
            if i % 37 == 0 {
                csv.push_str(",ACTIVE,\nc1,short\n");
            }
            let reason = if i % 5 == 0 {
                String::new()
            } else {
                ",\"reason\":\"ack_missing\"".to_owned()
            };
            let sep = if i == 399 { "" } else { "," };
            json.push_str(&format!(
                "{{\"case_id\":\"{id}\",\"decision\":\"{decision}\"{reason}}}{sep}\n"
            ));
        }
        // Broken part-way: the duplicates before the break are listed with it.
        let broken = format!("{json}{{\"case_id\": oops\n");
        json.push(']');
        let columns = [Column::REASON, Column::DECISION];
        for (text, format) in [
            (&csv, MatrixFileFormat::Csv),
            (&json, MatrixFileFormat::Json),
            (&broken, MatrixFileFormat::Json),
        ] {
            for strictness in [Strictness::Submission, Strictness::Golden] {
                let read = |split: Split<'_>| {
                    parse(
                        text.as_bytes(),
                        "m",
                        format,
                        &ReadOptions::default(),
                        &columns,
                        strictness,
                        split,
                    )
                    .unwrap()
                };
                let (whole, whole_errors) = read(None);
                assert!(whole_errors.len() >= 250, "{}", whole_errors.len());
                for parts in [1, 3, 16] {
                    let splitter = Splitter::with_parts(parts);
                    let (split, errors) = read(Some((&splitter, &columns)));
                    let split = split.into_split().unwrap();
                    let errors = with_duplicates(errors, split.duplicates().unwrap());
                    assert_eq!(errors, whole_errors, "{format:?}, {parts} parts");
                    // Missing keys are only asked of a matrix without errors: here the
                    // duplicated rows' are listed too.
                    let missing = split.missing_columns(&columns);
                    assert_eq!(split.lacks_columns(&columns), !missing.is_empty());
                    let csv_lacks = [Column::REASON, Column::at(5).expect("a column")];
                    assert_eq!(
                        split.lacks_columns(&csv_lacks),
                        !split.missing_columns(&csv_lacks).is_empty()
                    );
                    assert_eq!(
                        missing.len(),
                        if format == MatrixFileFormat::Json {
                            80
                        } else {
                            0
                        }
                    );
                    assert_eq!(
                        whole.missing_columns(&columns).len(),
                        missing.len() * 30 / 80
                    );
                    assert_eq!(split.len(), whole.len() as u64 + 250);
                    let ids = split.case_ids().unwrap();
                    assert!(ids.iter().map(|(index, _)| index).eq(0..400));
                    let first: Vec<String> = ids.iter().take(3).map(|(_, id)| id).collect();
                    assert_eq!(first, ["c0", "c1", "c2"]);
                }
            }
        }
    }
}
