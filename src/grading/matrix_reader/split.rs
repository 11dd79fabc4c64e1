//! A matrix read split by case-id hash, a partition loaded at a time or held whole, and
//! the case ids it has twice, found as its partitions load.

use crate::grading::columns::Column;
use crate::grading::partitions::{Partitions, Splitter, StoredRow};
use crate::grading::spool::{Spool, SpoolWriter};
use crate::input::{InputError, InputErrors};

use super::rows::{duplicated, kept_error, listed_problems, missing_headers, MatrixFile};
use super::ReadAs;
use super::MAX_LISTED_PROBLEMS;

/// A matrix read split by case-id hash ([`crate::grading::partitions`]): none of its rows is held
/// but in its partitions' buffers; a partition is loaded as a [`MatrixFile`] to be joined,
/// so a matrix of any size is graded in bounded memory.
#[derive(Debug)]
pub struct SplitMatrix {
    /// The file's name as given, for messages.
    pub name: String,
    pub(super) header_line: Option<u64>,
    pub(super) header_columns: Vec<bool>,
    pub(super) keep: Vec<bool>,
    pub(super) partitions: Partitions,
    /// Each JSON row's missing graded keys, in file order (the first
    /// [`MAX_LISTED_PROBLEMS`]), and how many more.
    pub(super) missing: Vec<InputError>,
    pub(super) missing_unlisted: u64,
    /// How many of its reader's problems were counted, not listed.
    pub(super) unlisted: u64,
    /// How it was read.
    pub read_as: Option<ReadAs>,
    /// How many rows the file has, those with errors included.
    pub(super) records: u64,
    /// Every partition, loaded once for all ([`SplitMatrix::hold`],
    /// [`SplitMatrix::hold_within`]), or none.
    pub(super) held: Vec<LoadedPart>,
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
    /// Its rows whose case id a row before them has (not in the matrix): the first
    /// [`MAX_LISTED_PROBLEMS`], and how many more.
    pub duplicates: Duplicates,
}

/// Rows whose case id an earlier row has, found as partitions are loaded: the first
/// [`MAX_LISTED_PROBLEMS`] listed, the rest counted (with, from [`SplitMatrix::duplicates`],
/// the problems its reader counted and did not list).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Duplicates {
    /// The rows listed, with their errors.
    pub listed: Vec<Duplicate>,
    /// How many more problems there are.
    pub unlisted: u64,
}

impl Duplicates {
    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.listed.is_empty() && self.unlisted == 0
    }

    /// Adds one, if there is room to list it.
    fn push(&mut self, duplicate: Duplicate) {
        if self.listed.len() < MAX_LISTED_PROBLEMS {
            self.listed.push(duplicate);
        } else {
            self.unlisted += 1;
        }
    }

    /// Adds those of a loaded partition.
    pub fn add(&mut self, part: &LoadedPart) {
        for duplicate in &part.duplicates.listed {
            self.push(duplicate.clone());
        }
        self.unlisted += part.duplicates.unlisted;
    }
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

    /// How many rows the file has, those with errors (ragged, bad UTF-8) included: what a
    /// learner counts in their file.
    pub fn records(&self) -> u64 {
        self.records
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
    pub fn missing_columns(&self, graded: &[Column]) -> InputErrors {
        match self.header_line {
            Some(header_line) => InputErrors::from(missing_headers(
                &self.name,
                header_line,
                &self.header_columns,
                graded,
            )),
            None => listed_problems(self.missing.clone(), self.missing_unlisted),
        }
    }
    /// Whether it lacks a graded column ([`SplitMatrix::missing_columns`] is not empty).
    pub fn lacks_columns(&self, graded: &[Column]) -> bool {
        match self.header_line {
            Some(_) => graded.iter().any(|c| !self.header_columns[c.index()]),
            None => !self.missing.is_empty() || self.missing_unlisted > 0,
        }
    }

    /// [`SplitMatrix::missing_columns`], the matrix given up for them (a JSON matrix's list
    /// can be long: not copied).
    pub fn into_missing_columns(self, graded: &[Column]) -> InputErrors {
        match self.header_line {
            Some(_) => self.missing_columns(graded),
            None => listed_problems(self.missing, self.missing_unlisted),
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
        if self.parts() == 1 {
            self.hold_every_part()?;
        }
        Ok(())
    }

    /// Keeps every partition loaded when their case ids and kept cells come to at most
    /// `bytes` (or there is only one): a matrix that small costs no more held whole than one
    /// partition of a large one, and a join then reads the other side once, not a partition
    /// at a time ([`SplitMatrix::is_held`]).
    pub fn hold_within(&mut self, bytes: u64) -> std::io::Result<()> {
        let text: u64 = (0..self.parts())
            .map(|part| self.partitions.size(part).1 as u64)
            .sum();
        if self.parts() == 1 || text <= bytes {
            self.hold_every_part()?;
        }
        Ok(())
    }

    fn hold_every_part(&mut self) -> std::io::Result<()> {
        if self.held.is_empty() {
            self.held = (0..self.parts())
                .map(|part| self.read_part(part))
                .collect::<std::io::Result<_>>()?;
        }
        Ok(())
    }

    /// Whether every partition is held loaded.
    pub fn is_held(&self) -> bool {
        !self.held.is_empty()
    }

    /// Partition `part`, loaded (or held).
    pub fn load(&self, part: usize) -> std::io::Result<Loaded<'_>> {
        Ok(match self.held.get(part) {
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
        let mut duplicates = Duplicates::default();
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

    /// The matrix, if neither its reader (`errors`) nor one load of each partition (its
    /// duplicated case ids) found an error: a golden file is known sound before anything is
    /// graded against it. A matrix of one partition keeps it loaded ([`SplitMatrix::hold`]).
    pub fn checked(self, errors: InputErrors) -> Result<SplitMatrix, InputErrors> {
        let name = self.name.clone();
        self.checked_kept(errors)
            .unwrap_or_else(|e| Err(kept_error(&name, e)))
    }

    /// [`SplitMatrix::checked`], a failure of its temporary files (a full temporary
    /// directory) kept apart from what is wrong with the matrix: it is the run's trouble, and
    /// says so to whoever runs it, never that the file is malformed.
    pub fn checked_kept(
        mut self,
        errors: InputErrors,
    ) -> std::io::Result<Result<SplitMatrix, InputErrors>> {
        let duplicates = self.hold().and_then(|()| self.duplicates())?;
        let errors = with_duplicates(errors, duplicates);
        Ok(if errors.is_empty() {
            Ok(self)
        } else {
            Err(errors)
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
        ids.finish()?.merge_runs(&runs, |(index, _)| *index)
    }

    /// Every duplicated case id, found by loading each partition once (the first
    /// [`MAX_LISTED_PROBLEMS`]), counting with those not listed the problems its reader did
    /// not list.
    pub fn duplicates(&self) -> std::io::Result<Duplicates> {
        let mut all = Duplicates {
            listed: Vec::new(),
            unlisted: self.unlisted,
        };
        for part in 0..self.parts() {
            all.add(&*self.load(part)?);
        }
        Ok(all)
    }
}

/// The reader's `errors` with the `duplicates` found later put where a matrix read whole
/// lists them: in file order, each after the errors of the rows before it; kept to
/// [`MAX_LISTED_PROBLEMS`], with a last problem that counts the rest.
pub fn with_duplicates(errors: InputErrors, duplicates: Duplicates) -> InputErrors {
    let Duplicates {
        listed: mut duplicates,
        unlisted,
    } = duplicates;
    duplicates.sort_by_key(|d| d.index);
    let found = duplicates.into_iter().map(|d| (d.errors_before, d.error));
    let not_kept = errors.unlisted();
    listed_problems(
        insert_errors(errors.into_listed(), found),
        unlisted + not_kept,
    )
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
    pub(super) fn into_split(self) -> Option<SplitMatrix> {
        let sink = self.split?;
        Some(SplitMatrix {
            name: self.name,
            header_line: self.header_line,
            header_columns: self.header_columns,
            keep: self.keep,
            partitions: sink.partitions,
            missing: sink.missing,
            missing_unlisted: sink.missing_unlisted,
            unlisted: self.unlisted,
            read_as: self.read_as,
            records: self.records,
            held: Vec::new(),
        })
    }
}
