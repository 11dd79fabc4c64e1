//! A matrix as it is held once read: its rows in file order, findable by case id, in one
//! buffer of text ([`MatrixFile`]), or split by case-id hash into partitions kept in temporary
//! files ([`SplitMatrix`](super::SplitMatrix)), each loaded as a [`MatrixFile`] to be joined.

use std::hash::BuildHasher;

use crate::grading::columns::Column;
use crate::grading::partitions::{Partitions, Splitter};
use crate::input::{ErrorKind, InputError, InputErrors};
use crate::matrix::MatrixRow;

/// The most problems of one matrix that are listed; past them, problems are counted, and the
/// count is said in a last line ([`listed_problems`]). A learner's 60 MB paste of one row is
/// 1.5 million duplicated case ids: listed whole they took a gigabyte, and no reader needs
/// more than the first thousand to know what to fix. The run's cap on every error list.
pub const MAX_LISTED_PROBLEMS: usize = crate::input::MAX_LISTED_ERRORS;

/// `errors` kept to [`MAX_LISTED_PROBLEMS`], counting with them the `unlisted` more that were
/// not kept (displayed as a last line that says how many).
pub fn listed_problems(errors: Vec<InputError>, unlisted: u64) -> InputErrors {
    let mut listed = InputErrors::from(errors);
    listed.count_unlisted(unlisted);
    listed
}

/// How a matrix being read is split: the splitter, and the graded columns (in the order a
/// JSON row's missing keys are reported); `None` to hold it whole.
pub(super) type Split<'a> = Option<(&'a Splitter, &'a [Column])>;

/// One case's row of a matrix file, with where it is: a view into the [`MatrixFile`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixEntry<'a> {
    /// The case id, trimmed.
    pub case_id: &'a str,
    /// The line the row starts on.
    pub line: u64,
    /// The cells the reader kept, as written, in matrix order: only the columns asked for
    /// (see [`super::MatrixRead::keep`]) that the file has (CSV) or the row gives (JSON). A large
    /// matrix is graded on two columns, so the other twenty are not held for every row.
    cells: &'a [CellEnd],
    /// The row's text: its case id, then its kept cells one after another.
    text: &'a str,
}

impl<'a> MatrixEntry<'a> {
    /// The cell of `column`, if the row gives it (and it was kept); the case id's is
    /// [`MatrixEntry::case_id`], trimmed.
    pub fn cell(&self, column: Column) -> Option<&'a str> {
        if column == Column::CaseId {
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
pub(super) fn kept_cells<'c, S: AsRef<str>>(
    cells: &'c [Option<S>],
    keep: &[bool],
) -> Vec<(Column, &'c str)> {
    cells
        .iter()
        .enumerate()
        .filter(|(index, _)| keep[*index] && *index != Column::CaseId.index())
        .filter_map(|(index, cell)| Some((Column::at(index)?, cell.as_ref()?.as_ref())))
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
    pub(super) header_columns: Vec<bool>,
    /// Which columns' cells rows keep.
    pub(super) keep: Vec<bool>,
    /// Every row's case id and kept cells, one after another, in file order.
    text: String,
    /// The rows, in file order.
    rows: Vec<Row>,
    /// Every row's kept cells, in file order.
    cells: Vec<CellEnd>,
    /// Row numbers, by the hash of their case id.
    by_case_id: hashbrown::HashTable<u32>,
    hasher: foldhash::fast::RandomState,
    /// Where rows go instead when the matrix is read split ([`SplitMatrix`](super::SplitMatrix)).
    pub(super) split: Option<Box<SplitSink>>,
    /// How many of the reader's problems were counted, not kept (none: [`InputErrors`] counts
    /// its own).
    pub(super) unlisted: u64,
    /// How the file was read (its format, delimiter, encoding or sheet).
    pub read_as: Option<ReadAs>,
    /// How many rows the file has, those with errors (ragged, a case id twice, bad UTF-8)
    /// included: what a learner counts in their file.
    pub(super) records: u64,
    /// Whether its first row is a case file's ([`super::CASE_FILE_NOT_MATRIX`]): the rest is
    /// not read.
    pub(super) case_file: bool,
}

/// How a matrix file was read: what a learner is told, so that a file read otherwise than
/// they meant (another sheet, another delimiter) is seen at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadAs {
    /// CSV text split at this delimiter; UTF-16 when `utf16`.
    Csv {
        /// The delimiter, detected or given.
        delimiter: crate::input::Delimiter,
        /// Whether the text was UTF-16.
        utf16: bool,
    },
    /// A JSON array of case objects; UTF-16 when `utf16`.
    Json {
        /// Whether the text was UTF-16.
        utf16: bool,
    },
    /// A workbook's sheet, by name.
    Sheet(String),
}

impl std::fmt::Display for ReadAs {
    /// `CSV, cells separated by ";"`, `a JSON matrix`, `the workbook's sheet "Matrix"`, with
    /// `, UTF-16 text` when it was.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let utf16 = |utf16: bool| if utf16 { ", UTF-16 text" } else { "" };
        match self {
            ReadAs::Csv {
                delimiter,
                utf16: u,
            } => {
                write!(f, "CSV, cells separated by {delimiter}{}", utf16(*u))
            }
            ReadAs::Json { utf16: u } => write!(f, "a JSON matrix{}", utf16(*u)),
            ReadAs::Sheet(sheet) => write!(f, "the workbook's sheet {sheet:?}"),
        }
    }
}

/// The rows of a matrix being read split, and what is checked of them as they come.
#[derive(Debug)]
pub(super) struct SplitSink {
    pub(super) partitions: Partitions,
    /// The graded columns, in the order their absence is reported.
    graded: Vec<Column>,
    /// Each JSON row's missing graded keys, as [`MatrixFile::missing_columns`] lists them
    /// (the first [`MAX_LISTED_PROBLEMS`]; the rest counted).
    pub(super) missing: Vec<InputError>,
    pub(super) missing_unlisted: u64,
}

impl MatrixFile {
    pub(super) fn new(
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
            unlisted: 0,
            read_as: None,
            records: 0,
            case_file: false,
        }
    }

    /// How many rows the file has, those with errors included.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// As [`MatrixFile::new`], its rows split by `split` (the splitter, and the graded
    /// columns) if given.
    pub(super) fn with_split(
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
                missing_unlisted: 0,
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
    pub(super) fn reserve(&mut self, rows: usize, bytes: usize) {
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
    pub(super) fn push(
        &mut self,
        case_id: &str,
        line: u64,
        cells: &[(Column, &str)],
        errors_before: usize,
    ) -> Result<(), u64> {
        if let Some(sink) = &mut self.split {
            if self.header_line.is_none() {
                for &column in &sink.graded {
                    if column != Column::CaseId && !cells.iter().any(|(c, _)| *c == column) {
                        if sink.missing.len() >= MAX_LISTED_PROBLEMS {
                            sink.missing_unlisted += 1;
                            continue;
                        }
                        sink.missing.push(
                            InputError::new(
                                ErrorKind::Header,
                                &self.name,
                                line,
                                "the row has no such key",
                            )
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
    pub fn missing_columns(&self, graded: &[Column]) -> InputErrors {
        let mut errors = InputErrors::new();
        if let Some(header_line) = self.header_line {
            errors.extend(missing_headers(
                &self.name,
                header_line,
                &self.header_columns,
                graded,
            ));
        } else {
            for row in self.rows() {
                for &column in graded {
                    if row.cell(column).is_none() {
                        errors.push(
                            InputError::new(
                                ErrorKind::Header,
                                &self.name,
                                row.line,
                                "the row has no such key",
                            )
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
pub(super) fn missing_headers(
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
                ErrorKind::Header,
                name,
                header_line,
                format!("no column for the graded column {column}"),
            )
            .column("header")
        })
        .collect()
}

/// The error of a split matrix whose temporary files failed.
pub fn kept_error(name: &str, e: std::io::Error) -> InputErrors {
    InputErrors::from(vec![InputError::new(
        ErrorKind::Temp,
        name,
        0,
        format!("cannot keep the file in temporary files: {e}"),
    )])
}

/// The error for a case id at `line` that is already on line `earlier`.
pub(super) fn duplicated(name: &str, line: u64, earlier: u64, case_id: String) -> InputError {
    InputError::new(
        ErrorKind::Rule,
        name,
        line,
        format!("duplicated case id: it is already on line {earlier}"),
    )
    .column("case_id")
    .value(case_id)
}
