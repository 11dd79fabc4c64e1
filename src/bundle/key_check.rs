//! The key checked against the contract: the case files adjudicated by the engine and their
//! matrix graded against the key, as `grade` would grade it; a key that disagrees is refused
//! with every disagreement located in the key and in the case files.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

use crate::grading::class::{grade_submission, CaseStatus, Scoring, SubmissionOutcome};
use crate::grading::compare::shown;
use crate::grading::engine_check::first_rows;
use crate::grading::matrix_reader::{MatrixInput, MatrixRead, SplitMatrix};
use crate::grading::partitions::Splitter;
use crate::input::{ErrorKind, InputError, InputErrors, ReadOptions, Source};
use crate::output::GuardedTemp;
use crate::store::TempWriter;
use crate::streaming::{judge, Sink, StreamError, StreamSettings};

/// The engine's settings for the case files' matrix: every core.
fn settings() -> StreamSettings<'static> {
    StreamSettings {
        jobs: std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(crate::limits::MAX_JOBS),
        ..StreamSettings::default()
    }
}

/// Reads the key as `grade` reads it and grades the engine's matrix of the case files against
/// it (golden values shown: the instructor is building the autograder); returns how many
/// cases it has and the bytes of the engine's matrix, or every problem of the key and the
/// case files, located. A key that need not grade `every_case` (a practice key) may lack
/// some of the case files' cases.
pub(super) fn check_key(
    key: &Path,
    sources: &[Source],
    scoring: &Scoring,
    every_case: bool,
) -> Result<(u64, u64)> {
    let size = |path: &Path| std::fs::metadata(path).map_or(0, |m| m.len());
    let largest = sources
        .iter()
        .filter_map(|s| s.path.as_deref())
        .map(size)
        .chain([size(key)])
        .max()
        .unwrap_or(0);
    let splitter = Splitter::for_bytes(largest);
    let key_name = key.to_string_lossy().into_owned();
    let columns = &scoring.columns;
    // Strict, as `grade` reads it: a golden value not in canonical form is the author's error.
    let golden = MatrixRead::golden(columns)
        .read_split(MatrixInput::Path(key), &key_name, &splitter)
        .and_then(|(golden, errors)| golden.checked(errors))
        .and_then(|golden| {
            let missing = golden.missing_columns(columns);
            if missing.is_empty() {
                Ok(golden)
            } else {
                Err(missing)
            }
        });
    let mut temp = GuardedTemp::new()?;
    let judged = judge(
        sources,
        &settings(),
        Sink::Matrix(&crate::matrix::CsvMatrix),
        &mut |_, _, _| {},
    )
    .and_then(|matrix| Ok(matrix.write_to(&mut TempWriter(temp.as_file_mut()))?));
    let mut problems = match &golden {
        Ok(_) => InputErrors::new(),
        Err(problems) => problems.clone(),
    };
    match judged {
        Ok(()) => {}
        Err(StreamError::Input(errors)) => problems.append(errors),
        Err(StreamError::Io(e)) => return Err(e).context("cannot keep the engine's matrix"),
    }
    let golden = match golden {
        Ok(golden) if problems.is_empty() => golden,
        _ => return Err(problems.into()),
    };
    temp.as_file_mut()
        .flush()
        .context("cannot keep the engine's matrix")?;
    let options = ReadOptions::default();
    let (engine, errors) = MatrixRead::submission(columns, &options).read_split(
        MatrixInput::Path(temp.path()),
        "the engine's matrix",
        &splitter,
    )?;
    let outcome = grade_submission(Some(&golden), engine, errors, scoring, true)
        .context("grading through temporary files")?;
    let SubmissionOutcome::Graded(graded) = outcome else {
        anyhow::bail!("the engine's matrix of the case files could not be read back");
    };
    if graded.score == golden.len() * scoring.case_max()
        && (graded.unknown.is_empty() || !every_case)
    {
        let bytes = temp.as_file_mut().metadata().map_or(0, |m| m.len());
        return Ok((golden.len(), bytes));
    }
    Err(disagreements(&golden, &key_name, sources, &graded, every_case)?.into())
}

/// Where a case the key and the case files disagree on is: its line in the key, and its
/// first row in the case files.
#[derive(Default)]
struct Place {
    key_line: u64,
    case_file: Option<(String, u64)>,
}

/// Every case the key and the engine's verdicts on the case files disagree on, located in
/// the key and in the case files (found again in a second pass: only these cases' places are
/// kept); a case of the case files the key lacks only when it must grade `every_case`.
fn disagreements(
    golden: &SplitMatrix,
    key_name: &str,
    sources: &[Source],
    graded: &crate::grading::class::Graded,
    every_case: bool,
) -> Result<KeyDisagrees> {
    let mut places: HashMap<String, Place> = HashMap::new();
    for case in &graded.cases {
        let case = case?;
        if case.status != CaseStatus::Matched {
            places.insert(case.case_id.to_string(), Place::default());
        }
    }
    for unknown in graded.unknown.iter().filter(|_| every_case) {
        let unknown = unknown?;
        places.insert(unknown.case_id.clone(), Place::default());
    }
    for part in 0..golden.parts() {
        let loaded = golden.load(part).context("reading the key back")?;
        for row in loaded.matrix.rows() {
            if let Some(place) = places.get_mut(row.case_id) {
                place.key_line = row.line;
            }
        }
    }
    // Only the first rows are wanted: the matrix is dropped unread.
    let found = first_rows(sources, None, &mut |case_id, at| {
        if let Some(place) = places.get_mut(case_id) {
            place
                .case_file
                .get_or_insert_with(|| (at.file.to_owned(), at.line));
        }
    });
    if let Err(e) = found {
        anyhow::bail!("the case files could not be read again: {e}");
    }
    let in_cases = |place: &Place| match &place.case_file {
        Some((file, line)) => format!(" ({file} line {line})"),
        None => String::new(),
    };
    let mut errors = InputErrors::new();
    for case in &graded.cases {
        let case = case?;
        if case.status == CaseStatus::Matched {
            continue;
        }
        let place = &places[&*case.case_id];
        match case.status {
            CaseStatus::Matched => {}
            CaseStatus::Missing => errors.push(
                InputError::new(
                    ErrorKind::Rule,
                    key_name,
                    place.key_line,
                    format!(
                        "the key has case {}, but none of the case files does",
                        case.case_id
                    ),
                )
                .column("case_id"),
            ),
            CaseStatus::Mismatched => {
                for miss in &case.misses {
                    let expected = miss.expected.as_deref().unwrap_or_default();
                    errors.push(
                        InputError::new(
                            ErrorKind::Rule,
                            key_name,
                            place.key_line,
                            format!(
                                "case {}: the key has {}, but the contract gives {} for its \
                                 rows{}",
                                case.case_id,
                                shown(expected),
                                shown(&miss.actual),
                                in_cases(place)
                            ),
                        )
                        .column(miss.column.name()),
                    );
                }
            }
        }
    }
    for unknown in graded.unknown.iter().filter(|_| every_case) {
        let unknown = unknown?;
        let place = &places[&unknown.case_id];
        let (file, line) = place.case_file.clone().unwrap_or_default();
        errors.push(
            InputError::new(
                ErrorKind::Rule,
                &file,
                line,
                format!(
                    "case {} is not in the key {key_name}: the key must grade every case the \
                     case files have",
                    unknown.case_id
                ),
            )
            .column("case_id"),
        );
    }
    Ok(KeyDisagrees {
        key: key_name.to_owned(),
        problems: errors,
    })
}

/// A key that disagrees with the contract's verdicts on the case files: what it means, then
/// every problem, counted as they are (the sentence is no problem of its own).
#[derive(Debug)]
struct KeyDisagrees {
    key: String,
    problems: InputErrors,
}

impl std::fmt::Display for KeyDisagrees {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.problems.total();
        writeln!(
            f,
            "{}: disagrees with the contract's verdicts on the case files ({} problem{} below; \
             `leasejudge check CASEFILE --golden KEY` shows them too): the autograder would \
             grade learners against a wrong key",
            crate::output::escape_controls(&self.key),
            crate::input::thousands(n),
            if n == 1 { "" } else { "s" }
        )?;
        write!(f, "{}", self.problems)
    }
}

impl std::error::Error for KeyDisagrees {}
