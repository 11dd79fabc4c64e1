//! The cross-row rules, written once: what a row means for its case (a case starts with an
//! offer, `observed_at` never decreases, `job_id` never changes, a case id belongs to one file)
//! and the located input error each broken rule gives.
//!
//! This is the engine's sans-IO per-case core, public for a caller that groups rows into
//! cases itself and feeds them one at a time: it holds each case in a [`Slot`], starts it with
//! [`start_case`] on its first row and steps it with [`step_case`] on each later row of the
//! same file, and reports a case id met again in another file with [`clash_error`].

use crate::input::{BadRow, ErrorKind, InputError, InputErrors, ParsedRow, RowResult};
use crate::lease::{Case, CaseFault, Outcome, Row, Timestamp};

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

/// A case as the rules see it.
// Unboxed on purpose: open cases live in a ring in order of first appearance and are closed
// from its front, so closing reads memory in order (boxed, each close was a cache miss).
#[allow(clippy::large_enum_variant)]
pub enum Slot {
    /// Replaying.
    Live(Case),
    /// Its first row was bad input; later rows are only type-checked.
    Broken,
}

/// Starts the case `slot` holds from its first row (reusing the memory of the case it held
/// before, if any): a valid offer replays, anything else breaks the case, a refused row with
/// its error added to `faults`. Returns the row's outcome if it replayed.
#[inline]
pub fn start_case(
    slot: &mut Slot,
    at: Location<'_>,
    row: &RowResult,
    faults: &mut InputErrors,
) -> Option<Outcome> {
    let Ok(ParsedRow { row, .. }) = row else {
        // The reader reported the row's errors; its later rows must not be blamed for not
        // being an offer.
        *slot = Slot::Broken;
        return None;
    };
    let started = if let Slot::Live(case) = slot {
        case.restart(row)
    } else {
        Case::start(row).map(|(case, outcome)| {
            *slot = Slot::Live(case);
            outcome
        })
    };
    match started {
        Ok(outcome) => Some(outcome),
        Err(fault) => {
            *slot = Slot::Broken;
            faults.push(fault_error(at, &fault, row));
            None
        }
    }
}

/// Replays a later row of the case `slot` holds; its errors against the case go to `faults`
/// (a row that could not be typed is still checked against its case: every error is listed).
/// Returns the row's outcome if it replayed.
#[inline]
pub fn step_case(
    slot: &mut Slot,
    at: Location<'_>,
    row: &RowResult,
    faults: &mut InputErrors,
) -> Option<Outcome> {
    let Slot::Live(case) = slot else {
        return None;
    };
    match row {
        Ok(parsed) => match case.step(&parsed.row) {
            Ok(outcome) => Some(outcome),
            Err(fault) => {
                faults.extend(fault_errors(at, case, &fault, &parsed.row));
                None
            }
        },
        Err(bad) => {
            faults.extend(bad_row_errors(at, case, bad));
            None
        }
    }
}

/// The located input error for a row at `at` of a case first seen in another file, `file`
/// at `first_line`.
pub fn clash_error(at: Location<'_>, case_id: &str, file: &str, first_line: u64) -> InputError {
    InputError::new(
        ErrorKind::Rule,
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
fn fault_error(at: Location<'_>, fault: &CaseFault, row: &Row) -> InputError {
    located_fault(at, fault, row.job_id.as_deref(), Some(row.observed_at))
}

fn located_fault(
    at: Location<'_>,
    fault: &CaseFault,
    job_id: Option<&str>,
    observed_at: Option<Timestamp>,
) -> InputError {
    let error = InputError::new(ErrorKind::Rule, at.file, at.line, fault.to_string())
        .column(fault.column());
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
fn fault_errors(at: Location<'_>, case: &Case, fault: &CaseFault, row: &Row) -> Vec<InputError> {
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
fn bad_row_errors(at: Location<'_>, case: &Case, bad: &BadRow) -> Vec<InputError> {
    case.row_faults(bad.job_id.as_deref(), bad.observed_at)
        .iter()
        .map(|fault| located_fault(at, fault, bad.job_id.as_deref(), bad.observed_at))
        .collect()
}
