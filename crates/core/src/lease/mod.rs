//! The sans-IO lease core: typed rows in, one [`Outcome`] per row, and a [`Verdict`] per case.
//!
//! Nothing in this module reads a clock, a file or the environment; the same rows always give
//! the same outcomes. [`Case::start`] takes a case's first row, [`Case::step`] every later one,
//! and [`Case::verdict`] judges the case at an instant.
//!
//! A case is replayed under a [`Reading`]: the contract ([`Contract`], the default, which
//! every command judges with), or one of the catalogue's [`Shortcut`]s, the misreadings a
//! learner takes, each a variant of one rule written beside it ([`Case::start_reading`]).

mod case;
mod generation;
mod row;
mod shortcut;
mod types;
pub mod values;

pub use case::{Case, CaseFault, Judgement, Outcome, Verdict};
/// The text of identities, job ids and progress values: short, so held inline (no
/// allocation per row).
pub use compact_str::CompactString;
pub use generation::{ClockEffect, Lease, Progress, Renewal};
pub use row::{GivenTerms, Identity, Message, Offer, OfferTerms, Row, TermsError};
pub use shortcut::{Contract, Reading, Shortcut};
pub use types::{
    AckState, CaseReason, ConflictKind, Decision, Disposition, Event, Phase, ReasonPrecedence,
    RowReason, TerminalResult,
};
pub use values::{Seconds, Timestamp, ValueError};

/// A replayed case and each of its rows' outcomes, in order.
pub type Replayed = (Case, Vec<Outcome>);

/// Replays a whole case from its rows, returning each row's outcome and the final record.
///
/// A convenience over [`Case::start`] and [`Case::step`] for callers that already hold every
/// row of one case; it stops at the first [`CaseFault`], with the index of the faulty row.
pub fn replay<'a>(
    rows: impl IntoIterator<Item = &'a Row>,
) -> Result<Option<Replayed>, (usize, CaseFault)> {
    replay_reading(rows, Contract)
}

/// [`replay`] under `reading`.
#[allow(clippy::type_complexity)]
pub fn replay_reading<'a, R: Reading>(
    rows: impl IntoIterator<Item = &'a Row>,
    reading: R,
) -> Result<Option<(Case<R>, Vec<Outcome>)>, (usize, CaseFault)> {
    let mut rows = rows.into_iter();
    let Some(first) = rows.next() else {
        return Ok(None);
    };
    let (mut case, first_outcome) =
        Case::start_reading(first, reading).map_err(|fault| (0, fault))?;
    let mut outcomes = vec![first_outcome];
    for (index, row) in rows.enumerate() {
        outcomes.push(case.step(row).map_err(|fault| (index + 1, fault))?);
    }
    Ok(Some((case, outcomes)))
}

#[cfg(test)]
mod tests;
