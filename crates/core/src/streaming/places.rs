//! What a streaming pass holds of a case: an open case in its ring, a case that came back
//! (pinned), a case id of an earlier file; and the replay of a pinned case's row.

use std::io;

use crate::input::{InputErrors, RowResult};
use crate::lease::Outcome;

use super::ids::Closed;
use super::kept::KeptRows;
use super::rules::{step_case, Location, Slot};

/// A case open in a pass's ring.
pub(super) struct OpenCase {
    pub(super) case_id: String,
    /// [`id_hash`](super::ids::id_hash) of `case_id`.
    pub(super) hash: u64,
    pub(super) slot: Slot,
    /// The line of its first row.
    pub(super) first_line: u64,
    /// The line of its last row so far.
    pub(super) last_line: u64,
    /// The number of rows of its file before its first row, and before its last so far.
    pub(super) first_row: u64,
    pub(super) last_row: u64,
    /// Its rows that replayed, for a [`CaseWriter`](super::CaseWriter) (none kept without one).
    pub(super) rows: KeptRows,
    /// The bytes its id and its case hold, as last counted (the run's `held_bytes`).
    pub(super) held: usize,
}

/// A case id of an earlier file met in the current one.
pub(super) struct Foreign {
    /// Where it was in its file.
    pub(super) closed: Closed,
    /// Whether its clash was reported (at its first valid row).
    pub(super) reported: bool,
}

/// A case that came back after it was closed, kept open to the end of its file (or until
/// `max_pinned` others came back after it).
pub(super) struct Pinned {
    pub(super) slot: Slot,
    /// Where it was first and last, and where its matrix row is in the spill (`None`: none
    /// was written, as there were errors): it is replaced when the case closes.
    pub(super) closed: Closed,
    /// Its rows that replayed, for a [`CaseWriter`](super::CaseWriter) (none kept without one).
    pub(super) rows: KeptRows,
    /// The bytes its id and its case hold, as last counted (the run's `pinned_bytes`).
    pub(super) held: usize,
}

/// Notes the case `seq` of the fault just found, while the fault is one of those kept: the
/// list pairs with the faults kept, so it is bounded as they are.
pub(super) fn note_fault_case(fault_cases: &mut Vec<u64>, faults: &InputErrors, seq: u64) {
    if fault_cases.len() < faults.listed().len() {
        fault_cases.push(seq);
    }
}

/// The bytes the case in `slot` holds ([`Case::held_bytes`](crate::lease::Case::held_bytes)).
pub(super) fn slot_held(slot: &Slot) -> usize {
    match slot {
        Slot::Live(case) => case.held_bytes(),
        Slot::Broken => 0,
    }
}

/// Replays a row of a case that came back, the row `row_number` of its file (keeping it for a
/// [`CaseWriter`](super::CaseWriter) if `keeping`); its faults go to `faults` (with no case
/// number: a split file's second half never keeps one).
pub(super) fn step_pinned(
    pinned: &mut Pinned,
    at: Location<'_>,
    (row_number, row): (u64, &RowResult),
    keeping: bool,
    faults: &mut InputErrors,
    fault_cases: &mut Vec<u64>,
) -> io::Result<Option<Outcome>> {
    pinned.closed.last_line = at.line;
    pinned.closed.last_row = row_number;
    let before = faults.len();
    let outcome = step_case(&mut pinned.slot, at, row, faults);
    if faults.len() > before {
        note_fault_case(fault_cases, faults, u64::MAX);
    }
    if keeping {
        pinned.rows.keep(at, row, &outcome)?;
    }
    Ok(outcome)
}
