//! A run over many rows from many files: groups rows into cases, replays each through the
//! lease core, checks the cross-row rules (unique case ids across files, the first row, time
//! order) and judges every case.

use std::collections::HashMap;

use crate::input::{BadRow, InputError, InputErrors, ParsedRow, RowResult};
use crate::lease::{Case, CaseFault, Outcome, Row, Timestamp, Verdict};

/// Where a row came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location<'a> {
    /// The input's position on the command line (0-based), to tell files apart.
    pub file_index: usize,
    /// The file's name.
    pub file: &'a str,
    /// The row's line.
    pub line: u64,
}

enum CaseSlot {
    /// Replaying.
    Live(Box<Case>),
    /// Its first row was bad input; later rows are only type-checked.
    Broken,
}

struct Entry {
    case_id: String,
    file_index: usize,
    file: String,
    first_line: u64,
    slot: CaseSlot,
}

/// A judged case, in order of first appearance.
#[derive(Clone, Debug)]
pub struct Judged {
    /// The case id.
    pub case_id: String,
    /// The file the case came from.
    pub file: String,
    /// The line of its first row.
    pub first_line: u64,
    /// The replayed case.
    pub case: Case,
    /// Its verdict.
    pub verdict: Verdict,
}

/// Collects rows from any number of inputs and judges their cases.
#[derive(Default)]
pub struct Adjudication {
    index: HashMap<String, usize>,
    entries: Vec<Entry>,
    errors: Vec<InputError>,
    clashes: Vec<(usize, usize)>,
}

impl Adjudication {
    /// An empty run.
    pub fn new() -> Adjudication {
        Adjudication::default()
    }

    /// Takes one row as read. A valid row of a healthy case is replayed and its outcome
    /// returned; anything else records what is wrong (if the reader has not already).
    pub fn feed(&mut self, at: Location<'_>, row: &RowResult) -> Option<Outcome> {
        match row {
            Ok(parsed) => self.feed_row(at, parsed),
            Err(bad) => {
                // The reader reported the row's errors. A case whose first row is bad is
                // broken: its later rows must not be blamed for not being an offer.
                if let Some(case_id) = &bad.case_id {
                    match self.index.get(case_id.as_str()) {
                        None => self.insert(at, case_id.to_string(), CaseSlot::Broken),
                        Some(&index) => {
                            // What the row still says is checked against its case too.
                            if let CaseSlot::Live(case) = &self.entries[index].slot {
                                self.errors.extend(bad_row_errors(at, case, bad));
                            }
                        }
                    }
                }
                None
            }
        }
    }

    fn insert(&mut self, at: Location<'_>, case_id: String, slot: CaseSlot) {
        self.index.insert(case_id.clone(), self.entries.len());
        self.entries.push(Entry {
            case_id,
            file_index: at.file_index,
            file: at.file.to_owned(),
            first_line: at.line,
            slot,
        });
    }

    fn feed_row(&mut self, at: Location<'_>, parsed: &ParsedRow) -> Option<Outcome> {
        let ParsedRow { case_id, row } = parsed;
        let Some(&index) = self.index.get(case_id.as_str()) else {
            return match Case::start(row) {
                Ok((case, outcome)) => {
                    self.insert(at, case_id.to_string(), CaseSlot::Live(Box::new(case)));
                    Some(outcome)
                }
                Err(fault) => {
                    self.errors.push(fault_error(at, &fault, row));
                    self.insert(at, case_id.to_string(), CaseSlot::Broken);
                    None
                }
            };
        };
        let entry = &mut self.entries[index];
        if entry.file_index != at.file_index {
            if !self.clashes.contains(&(index, at.file_index)) {
                self.clashes.push((index, at.file_index));
                self.errors
                    .push(clash_error(at, case_id, &entry.file, entry.first_line));
            }
            return None;
        }
        let CaseSlot::Live(case) = &mut entry.slot else {
            return None;
        };
        match case.step(row) {
            Ok(outcome) => Some(outcome),
            Err(fault) => {
                self.errors.extend(fault_errors(at, case, &fault, row));
                None
            }
        }
    }

    /// Errors found so far by this run's own checks (not the readers').
    pub fn take_errors(&mut self) -> Vec<InputError> {
        std::mem::take(&mut self.errors)
    }

    /// Judges every case in order of first appearance, at its last `observed_at` or
    /// `run_as_of` if later; fails with every error if there was any.
    pub fn finish(mut self, run_as_of: Option<Timestamp>) -> Result<Vec<Judged>, InputErrors> {
        if !self.errors.is_empty() {
            return Err(InputErrors(std::mem::take(&mut self.errors)));
        }
        Ok(self
            .entries
            .into_iter()
            .filter_map(|entry| match entry.slot {
                CaseSlot::Live(case) => Some(Judged {
                    verdict: case.verdict(run_as_of),
                    case: *case,
                    case_id: entry.case_id,
                    file: entry.file,
                    first_line: entry.first_line,
                }),
                CaseSlot::Broken => None,
            })
            .collect())
    }
}

/// The located input error for a row at `at` of a case first seen in another file, `file`
/// at `first_line`.
pub fn clash_error(at: Location<'_>, case_id: &str, file: &str, first_line: u64) -> InputError {
    InputError::new(
        at.file,
        at.line,
        format!(
            "case id also appears in {file}:{first_line}; case ids must be unique across files"
        ),
    )
    .column("case_id")
    .value(case_id.to_owned())
}

/// The located input error for a row the lease core refused.
pub fn fault_error(at: Location<'_>, fault: &CaseFault, row: &Row) -> InputError {
    located_fault(at, fault, row.job_id.as_deref(), Some(row.observed_at))
}

fn located_fault(
    at: Location<'_>,
    fault: &CaseFault,
    job_id: Option<&str>,
    observed_at: Option<Timestamp>,
) -> InputError {
    let error = InputError::new(at.file, at.line, fault.to_string()).column(fault.column());
    match fault {
        CaseFault::FirstRowNotOffer(event) => error.value(event.to_string()),
        CaseFault::MissingJobId => error,
        CaseFault::JobIdMismatch { .. } => error.value(job_id.unwrap_or_default()),
        CaseFault::ObservedAtDecreased { .. } | CaseFault::ExpiryOutOfRange(_) => match observed_at
        {
            Some(observed_at) => error.value(observed_at.to_string()),
            None => error,
        },
    }
}

/// Every error of a row `case` refused with `fault`: [`Case::step`] stops at its first fault,
/// but a decreasing `observed_at` and a differing `job_id` are independent and both listed.
pub fn fault_errors(
    at: Location<'_>,
    case: &Case,
    fault: &CaseFault,
    row: &Row,
) -> Vec<InputError> {
    let mut faults = case.row_faults(row.job_id.as_deref(), Some(row.observed_at));
    if !faults.contains(fault) {
        faults.insert(0, fault.clone());
    }
    faults
        .iter()
        .map(|fault| fault_error(at, fault, row))
        .collect()
}

/// The errors a row that could not be typed (its own errors already reported) has against
/// its case: a differing `job_id`, a decreasing `observed_at`.
pub fn bad_row_errors(at: Location<'_>, case: &Case, bad: &BadRow) -> Vec<InputError> {
    case.row_faults(bad.job_id.as_deref(), bad.observed_at)
        .iter()
        .map(|fault| located_fault(at, fault, bad.job_id.as_deref(), bad.observed_at))
        .collect()
}

/// Reads every source in order and judges every case. `on_row` sees each replayed row with
/// its location and outcome as soon as it is read (for audits and traces). Fails with every
/// input error of every source, in file and line order.
pub fn judge_sources(
    sources: &[crate::input::Source],
    input_format: Option<crate::input::InputFormat>,
    run_as_of: Option<Timestamp>,
    on_row: &mut dyn FnMut(Location<'_>, &ParsedRow, &Outcome),
) -> Result<Vec<Judged>, InputErrors> {
    let mut adjudication = Adjudication::new();
    let mut all_errors = Vec::new();
    for (file_index, source) in sources.iter().enumerate() {
        let mut errors = Vec::new();
        crate::input::read_source(
            source,
            input_format,
            &mut errors,
            &mut |line, row| {
                let at = Location {
                    file_index,
                    file: &source.name,
                    line,
                };
                if let Some(outcome) = adjudication.feed(at, &row) {
                    if let Ok(parsed) = &row {
                        on_row(at, parsed, &outcome);
                    }
                }
            },
            &mut crate::input::NoObserver,
        );
        errors.extend(adjudication.take_errors());
        errors.sort_by_key(|e| e.line);
        all_errors.extend(errors);
    }
    if all_errors.is_empty() {
        adjudication.finish(run_as_of)
    } else {
        Err(InputErrors(all_errors))
    }
}
