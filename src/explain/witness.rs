//! Minimal witnesses (`explain --witness`): for a case, some of its rows that, replayed alone,
//! give the case's decision and reason, and from which no one row can be left out without
//! changing them or making the rows an invalid case. That is 1-minimal, not the smallest such
//! subset.
//!
//! "Replayed alone" is the contract's reading (spec section 5) applied to the rows as a case of
//! their own, in their order: judged at their own last `observed_at`, or at the run's `--as-of`
//! if that is later; not at the whole case's instant. A witness is a case file a reviewer can
//! run `adjudicate` on (with the same `--as-of`) to get the same decision and reason. Rows that
//! are no valid case (the first is not an offer giving a `job_id`, a renewal computes an
//! `expires_at` past year 9999: any [`crate::lease::CaseFault`]) are never a witness.
//!
//! The search checks every claim by replay. It starts from the rows the verdict can depend
//! on (the candidate: the first and last rows, every accepted row but progress and observe, the
//! conflict, and the rows that made the reason's finding), kept only if a replay gives the
//! verdict; otherwise from the whole case (which is a witness: it is the case). Then delta
//! debugging (Zeller's ddmin) keeps one run of rows alone, or leaves one out, halves first,
//! then smaller runs, down to one row at a time, until no one row can go. Two bounds, the same
//! whatever the engine's window, so that a case gets the same witness held in memory or kept
//! in a temporary file: a budget of replayed rows per case ([`Search::replayed_rows`]), past
//! which the search stops with the witness it has (`minimal: false`, still rows that replay to
//! the verdict); and the rows it holds ([`Search::held_rows`]): a case whose candidate and
//! whole are both longer is not searched, its witness the whole case (`minimal: false`).

use std::io;
use std::ops::{ControlFlow, Range};

use crate::lease::{Case, CaseReason, Decision, Disposition, Row, RowReason, Timestamp, Verdict};
use crate::limits::{WITNESS_HELD_ROWS, WITNESS_REPLAYED_ROWS};
use crate::streaming::{KeptRow, KeptRows};

use super::{CaseTrace, TracedRow, TracedRows};

/// How many of a witness's lines it keeps to list (text, HTML and Mermaid name these; the
/// rest are marked where the rows are shown).
pub const LISTED_LINES: usize = 20;

/// How far a witness search may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Search {
    /// The rows one case's search may replay in all, each replay counting the rows it
    /// replays.
    pub replayed_rows: u64,
    /// The most rows of a case a search holds in memory (its candidate, or else the whole
    /// case).
    pub held_rows: usize,
}

impl Search {
    /// The commands' search: [`WITNESS_REPLAYED_ROWS`] and [`WITNESS_HELD_ROWS`].
    pub const COMMAND: Search = Search {
        replayed_rows: WITNESS_REPLAYED_ROWS,
        held_rows: WITNESS_HELD_ROWS,
    };
}

/// A case's witness: which of its rows, and what they give replayed alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    /// The rows, by their index in the case (from 0).
    pub rows: Picked,
    /// How many rows the case has.
    pub of: usize,
    /// The lines of its first [`LISTED_LINES`] rows.
    pub lines: Vec<u64>,
    /// The instant the rows alone are judged at: their last `observed_at`, or the run's
    /// `--as-of` if later.
    pub as_of: Timestamp,
    /// Their last row's `observed_at`.
    pub last_observed_at: Timestamp,
    /// The decision they give alone (the case's).
    pub decision: Decision,
    /// The reason they give alone (the case's).
    pub reason: CaseReason,
    /// Whether the search finished: no one row can be left out. `false` when the budget
    /// stopped it first, or the case was too long to search.
    pub minimal: bool,
    /// The case was too long to search ([`Search::held_rows`]): the witness is the whole case.
    pub unsearched: bool,
    /// The rows the search replayed.
    pub replayed_rows: u64,
    /// The budget it had ([`Search::replayed_rows`]).
    pub budget: u64,
    /// The most rows it could hold ([`Search::held_rows`]).
    pub held_rows: usize,
}

impl Witness {
    /// How many rows it has.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether it has none (never: a witness is a case).
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Whether row `index` of the case is one of its rows.
    pub fn contains(&self, index: usize) -> bool {
        self.rows.contains(index)
    }

    /// Its lines as a list: `9, 10, 12`, with `and N more` past [`LISTED_LINES`].
    pub fn lines_text(&self) -> String {
        let mut text = self
            .lines
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        if self.len() > self.lines.len() {
            text.push_str(&format!(" and {} more", self.len() - self.lines.len()));
        }
        text
    }

    /// What stopped the search short of a minimal witness: `budget_rows` (its budget of
    /// replayed rows), `held_rows` (the case was too long to search); `None` when it was not.
    pub fn stopped_by(&self) -> Option<&'static str> {
        match (self.minimal, self.unsearched) {
            (true, _) => None,
            (false, false) => Some("budget_rows"),
            (false, true) => Some("held_rows"),
        }
    }

    /// `3 of 4 rows`.
    pub fn size_text(&self) -> String {
        format!(
            "{} of {} row{}",
            self.len(),
            self.of,
            if self.of == 1 { "" } else { "s" }
        )
    }

    /// What it claims, in a sentence after its size and lines: what the rows give alone and
    /// when they are judged, and whether no one of them can be left out.
    pub fn claim_text(&self) -> String {
        let instant = if self.as_of == self.last_observed_at {
            "their last row's observed_at"
        } else {
            "--as-of"
        };
        let minimal = if self.minimal {
            "leaving out any one of them changes that or makes them no valid case".to_owned()
        } else if self.unsearched {
            format!(
                "not shown minimal: the case is too long to search (more than {} rows)",
                self.held_rows
            )
        } else {
            format!(
                "not shown minimal: the search stopped at its budget of {} replayed rows",
                self.budget
            )
        };
        format!(
            "replayed alone, judged at {} ({instant}), they give {} ({}); {minimal}",
            self.as_of, self.decision, self.reason
        )
    }
}

/// Rows of a case picked by index (from 0), as sorted, disjoint, non-adjacent ranges: a
/// search leaves out runs of rows, so a few ranges hold what it keeps of a long case.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Picked {
    ranges: Vec<Range<usize>>,
    len: usize,
}

impl Picked {
    /// Rows `0..rows`.
    pub fn all(rows: usize) -> Picked {
        let mut picked = Picked::default();
        picked.push_range(0..rows);
        picked
    }

    /// The rows `indices` names, ascending.
    pub fn of_sorted(indices: impl IntoIterator<Item = usize>) -> Picked {
        let mut picked = Picked::default();
        for index in indices {
            picked.push_range(index..index + 1);
        }
        picked
    }

    fn push_range(&mut self, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        self.len += range.len();
        match self.ranges.last_mut() {
            Some(last) if last.end == range.start => last.end = range.end,
            _ => self.ranges.push(range),
        }
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether row `index` is picked.
    pub fn contains(&self, index: usize) -> bool {
        let after = self.ranges.partition_point(|range| range.start <= index);
        after > 0 && self.ranges[after - 1].contains(&index)
    }

    /// The picked rows' indices, ascending.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.ranges.iter().flat_map(|range| range.clone())
    }

    /// These rows without those of rank `ranks` among them (the first picked row has rank 0),
    /// or (`only`) those alone.
    fn cut(&self, ranks: Range<usize>, only: bool) -> Picked {
        let mut kept = Picked::default();
        let mut rank = 0;
        for range in &self.ranges {
            // This range's rows have ranks rank..rank + len; `ranks` covers from..to of them.
            let (first, len) = (range.start, range.len());
            let from = first + ranks.start.clamp(rank, rank + len) - rank;
            let to = first + ranks.end.clamp(rank, rank + len) - rank;
            if only {
                kept.push_range(from..to);
            } else {
                kept.push_range(first..from);
                kept.push_range(to..range.end);
            }
            rank += len;
        }
        kept
    }

    /// The rows of `original` these pick (these index into it).
    fn map(&self, original: &[usize]) -> Picked {
        Picked::of_sorted(self.iter().map(|index| original[index]))
    }
}

/// What rows replayed alone give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Judged {
    decision: Decision,
    reason: CaseReason,
    as_of: Timestamp,
    last_observed_at: Timestamp,
}

impl Judged {
    fn of_verdict(verdict: &Verdict, last_observed_at: Timestamp) -> Judged {
        Judged {
            decision: verdict.decision,
            reason: verdict.reason,
            as_of: verdict.as_of,
            last_observed_at,
        }
    }

    fn gives(&self, target: &Judged) -> bool {
        (self.decision, self.reason) == (target.decision, target.reason)
    }
}

/// Rows replayed one at a time as a case of their own: `None` once they are no valid case.
struct Replay(Option<Option<Case>>);

impl Replay {
    fn new() -> Replay {
        Replay(Some(None))
    }

    fn push(&mut self, row: &Row) {
        let started = match &mut self.0 {
            None => return,
            Some(None) => Case::start(row).map(|(case, _)| Some(case)),
            Some(Some(case)) => case.step(row).map(|_| None),
        };
        match started {
            Ok(Some(case)) => self.0 = Some(Some(case)),
            Ok(None) => {}
            Err(_) => self.0 = None,
        }
    }

    fn judged(self, run_as_of: Option<Timestamp>) -> Option<Judged> {
        let case = self.0??;
        let judgement = case.judge(run_as_of);
        Some(Judged {
            decision: judgement.decision,
            reason: judgement.reason,
            as_of: judgement.as_of,
            last_observed_at: case.last_observed_at(),
        })
    }
}

/// Rows held in memory, each with its line and its index in the case.
struct Held<'a> {
    rows: Vec<&'a Row>,
    lines: Vec<u64>,
    original: Vec<usize>,
}

impl<'a> Held<'a> {
    fn of_kept(kept: &'a [(usize, KeptRow)]) -> Held<'a> {
        Held {
            rows: kept.iter().map(|(_, kept)| &kept.row).collect(),
            lines: kept.iter().map(|(_, kept)| kept.line).collect(),
            original: kept.iter().map(|(index, _)| *index).collect(),
        }
    }

    fn len(&self) -> usize {
        self.rows.len()
    }

    /// What the rows `picked` give replayed alone; `None` when they are no valid case.
    fn judge(&self, picked: &Picked, run_as_of: Option<Timestamp>) -> Option<Judged> {
        let mut replay = Replay::new();
        for index in picked.iter() {
            replay.push(self.rows[index]);
        }
        replay.judged(run_as_of)
    }
}

/// The rows a search may still replay.
struct Budget {
    left: u64,
}

impl Budget {
    /// Takes `rows` from what is left, if that much is.
    fn spend(&mut self, rows: u64) -> bool {
        match self.left.checked_sub(rows) {
            Some(left) => {
                self.left = left;
                true
            }
            None => false,
        }
    }
}

/// Reduces `picked` (which replays to `judged`) by delta debugging, while the budget lasts
/// ([`reduce_by`] with a replay of the rows `rows` holds).
fn reduce(
    rows: &Held<'_>,
    (picked, judged): (Picked, Judged),
    run_as_of: Option<Timestamp>,
    budget: &mut Budget,
) -> (Picked, Judged, bool) {
    let target = judged;
    reduce_by((picked, judged), budget, &mut |tried| {
        rows.judge(tried, run_as_of)
            .filter(|found| found.gives(&target))
    })
}

/// Delta debugging (Zeller's ddmin) of `picked`, for which `keeps` held (giving `kept`): with
/// the rows cut into `n` runs (2 at first), it keeps one run alone if `keeps` holds for it (and
/// starts again from 2 runs), else leaves one run out if `keeps` holds without it (and goes on
/// with `n - 1` runs), else cuts finer (`2n` runs) until the runs are single rows, none of
/// which can be left out: the rows left are 1-minimal. Each try spends its rows from `budget`
/// first. Returns the rows, what `keeps` gave for them, and whether the search finished
/// (`false`: the budget stopped it).
fn reduce_by<K>(
    (mut picked, mut kept): (Picked, K),
    budget: &mut Budget,
    keeps: &mut dyn FnMut(&Picked) -> Option<K>,
) -> (Picked, K, bool) {
    let mut granularity = 2;
    'cut: loop {
        let len = picked.len();
        // One row left: without it there is nothing.
        if len <= 1 {
            return (picked, kept, true);
        }
        let chunks = granularity.min(len);
        // A run alone (with two runs, the other left out: the same tries as below).
        let tries = (chunks > 2).then_some(true).into_iter().chain([false]);
        for only in tries {
            for chunk in 0..chunks {
                let tried = picked.cut(chunk * len / chunks..(chunk + 1) * len / chunks, only);
                if !budget.spend(tried.len() as u64) {
                    return (picked, kept, false);
                }
                if let Some(found) = keeps(&tried) {
                    (picked, kept) = (tried, found);
                    granularity = if only { 2 } else { (chunks - 1).max(2) };
                    continue 'cut;
                }
            }
        }
        if chunks >= len {
            return (picked, kept, true);
        }
        granularity = (chunks * 2).min(len);
    }
}

/// Delta debugging for any property of rows (a case that still catches a shortcut, say): of
/// rows `0..len`, for all of which `keeps` holds, some for which it still holds and from
/// which no one row can be left out without it failing (1-minimal), found by the search the
/// witnesses use, each try spending its rows from a budget of `budget_rows`. Returns them, and
/// whether the search finished (`false`: the budget stopped it, and `keeps` holds for them).
pub fn shrink(
    len: usize,
    budget_rows: u64,
    mut keeps: impl FnMut(&Picked) -> bool,
) -> (Picked, bool) {
    let mut budget = Budget { left: budget_rows };
    let tried = &mut |picked: &Picked| keeps(picked).then_some(());
    let (picked, (), finished) = reduce_by((Picked::all(len), ()), &mut budget, tried);
    (picked, finished)
}

/// The rows a verdict can depend on, found in one pass over the replayed rows, with their
/// indices: the first row (the case's offer and job id) and the last (its instant); every
/// accepted row but progress and observe (offers, acks, renewals, cancellations, results);
/// the conflict; and for the reason's finding the row that made it (the first stale row; the
/// first late progress, and the accepted progress it came after when it was out of order;
/// the last late ack, or the last result or renew rejected for expiry). `None` when more than
/// `at_most` rows: the search then starts from the whole case. Nothing here is assumed: the
/// search replays these rows before it keeps them.
fn candidate(
    rows: &dyn TracedRows,
    verdict: &Verdict,
    at_most: usize,
) -> io::Result<Option<Vec<(usize, KeptRow)>>> {
    let last_index = rows.len().saturating_sub(1);
    let mut kept: Vec<(usize, KeptRow)> = Vec::new();
    // Rows known to matter only once every row was seen: the last of their kind so far.
    let mut last_of_reason: Option<(usize, KeptRow)> = None;
    let mut last_progress: Option<(usize, KeptRow)> = None;
    let mut finding_seen = false;
    let mut too_many = false;
    let keep_of = |index: usize, row: &TracedRow| {
        (
            index,
            KeptRow {
                line: row.source.line,
                row: row.source.row.clone(),
            },
        )
    };
    rows.visit(&mut |index, row| {
        let (disposition, reason) = (row.outcome.disposition, row.outcome.reason);
        let finding = !finding_seen && makes_finding(verdict.reason, reason);
        let mut keep = index == 0
            || index == last_index
            || disposition == Disposition::Conflict
            || (disposition == Disposition::Accepted
                && !matches!(reason, RowReason::ProgressAccepted | RowReason::Observed))
            || finding;
        if finding {
            finding_seen = true;
            if reason == RowReason::ProgressOutOfOrder {
                kept.extend(last_progress.take());
            }
        }
        if reason == RowReason::ProgressAccepted {
            last_progress = Some(keep_of(index, row));
        }
        if Some(reason) == expiry_or_late_ack(verdict.reason) {
            last_of_reason = Some(keep_of(index, row));
            keep = false;
        }
        if keep {
            kept.push(keep_of(index, row));
        }
        if kept.len() > at_most {
            too_many = true;
            return Ok(ControlFlow::Break(()));
        }
        Ok(ControlFlow::Continue(()))
    })?;
    kept.extend(last_of_reason);
    kept.sort_by_key(|(index, _)| *index);
    kept.dedup_by_key(|(index, _)| *index);
    Ok((!too_many && kept.len() <= at_most).then_some(kept))
}

/// Whether a row of `row_reason` makes the finding the case's reason `reason` rests on
/// (stale or late), the first of which the candidate keeps.
fn makes_finding(reason: CaseReason, row_reason: RowReason) -> bool {
    match reason {
        CaseReason::StaleGeneration => row_reason == RowReason::StaleGeneration,
        CaseReason::LateProgress => matches!(
            row_reason,
            RowReason::ProgressAfterExpiry
                | RowReason::ProgressAfterResult
                | RowReason::ProgressAfterCancel
                | RowReason::ProgressOutOfOrder
        ),
        _ => false,
    }
}

/// The row reason of the current generation's finding `reason` rests on (a late ack, a
/// result or renew rejected for expiry), the last of which the candidate keeps.
fn expiry_or_late_ack(reason: CaseReason) -> Option<RowReason> {
    match reason {
        CaseReason::AckAfterDeadline => Some(RowReason::AckAfterDeadline),
        CaseReason::ResultAfterExpiry => Some(RowReason::ResultAfterExpiry),
        CaseReason::RenewAfterExpiry => Some(RowReason::RenewAfterExpiry),
        _ => None,
    }
}

/// A case's rows as a search replays them: held in memory, kept in a temporary file (to be
/// read into memory), or too many to hold.
enum CaseRows<'a> {
    Held(Held<'a>),
    Spilled(&'a KeptRows),
    TooLong,
}

/// Searches the witness of a case judged `verdict` (at the run's `run_as_of`), whose rows
/// are `traced` (their outcomes, for the candidate) and `all` (to replay).
fn search(
    traced: &dyn TracedRows,
    all: CaseRows<'_>,
    (verdict, last_observed_at): (&Verdict, Timestamp),
    run_as_of: Option<Timestamp>,
    settings: Search,
) -> io::Result<Witness> {
    let mut budget = Budget {
        left: settings.replayed_rows,
    };
    let of = traced.len();
    let whole = Judged::of_verdict(verdict, last_observed_at);
    let witness =
        |lines: Vec<u64>, rows: Picked, (judged, minimal): (Judged, bool), left| Witness {
            rows,
            of,
            lines,
            as_of: judged.as_of,
            last_observed_at: judged.last_observed_at,
            decision: judged.decision,
            reason: judged.reason,
            minimal,
            unsearched: false,
            replayed_rows: settings.replayed_rows - left,
            budget: settings.replayed_rows,
            held_rows: settings.held_rows,
        };
    let reduced = |held: &Held<'_>, start: (Picked, Judged), budget: &mut Budget| {
        let (picked, judged, minimal) = reduce(held, start, run_as_of, budget);
        let lines = picked.iter().take(LISTED_LINES).map(|i| held.lines[i]);
        witness(
            lines.collect(),
            picked.map(&held.original),
            (judged, minimal),
            budget.left,
        )
    };
    if let Some(candidate) = candidate(traced, verdict, settings.held_rows)? {
        let held = Held::of_kept(&candidate);
        let picked = Picked::all(held.len());
        if held.len() < of && budget.spend(held.len() as u64) {
            if let Some(found) = held.judge(&picked, run_as_of).filter(|j| j.gives(&whole)) {
                return Ok(reduced(&held, (picked, found), &mut budget));
            }
        }
    }
    let start = (Picked::all(of), whole);
    match all {
        CaseRows::Held(held) => Ok(reduced(&held, start, &mut budget)),
        CaseRows::Spilled(kept) => {
            let mut rows = Vec::with_capacity(of);
            kept.visit(&mut |row| {
                rows.push((rows.len(), row.clone()));
                Ok(ControlFlow::Continue(()))
            })?;
            Ok(reduced(&Held::of_kept(&rows), start, &mut budget))
        }
        // Too long to hold: the whole case, not searched.
        CaseRows::TooLong => {
            let mut lines = Vec::with_capacity(LISTED_LINES);
            traced.visit(&mut |_, row| {
                lines.push(row.source.line);
                Ok(match lines.len() < LISTED_LINES {
                    true => ControlFlow::Continue(()),
                    false => ControlFlow::Break(()),
                })
            })?;
            let unsearched = witness(lines, start.0, (whole, false), budget.left);
            Ok(Witness {
                unsearched: true,
                ..unsearched
            })
        }
    }
}

/// The witness of a case whose trace is held whole, judged at the run's `run_as_of`.
pub fn of_trace(trace: &CaseTrace, run_as_of: Option<Timestamp>, settings: Search) -> Witness {
    let held = Held {
        rows: trace.rows.iter().map(|row| &row.source.row).collect(),
        lines: trace.rows.iter().map(|row| row.source.line).collect(),
        original: (0..trace.rows.len()).collect(),
    };
    let last = trace.rows[trace.rows.len() - 1].source.row.observed_at;
    // A trace held whole longer than a search holds is searched as one kept in a file would
    // be (not at all), so that the witness does not depend on where the rows are.
    let all = match trace.rows.len() <= settings.held_rows {
        true => CaseRows::Held(held),
        false => CaseRows::TooLong,
    };
    search(
        &trace.rows,
        all,
        (&trace.verdict, last),
        run_as_of,
        settings,
    )
    .expect("rows in memory are always seen")
}

/// The witness of a case whose rows are kept in a temporary file (`kept`, replayed into
/// `traced`) and that was judged `verdict`, its last row observed at `last_observed_at`.
pub(crate) fn of_spilled(
    traced: &dyn TracedRows,
    kept: &KeptRows,
    judged: (&Verdict, Timestamp),
    run_as_of: Option<Timestamp>,
    settings: Search,
) -> io::Result<Witness> {
    let all = match kept.len() <= settings.held_rows {
        true => CaseRows::Spilled(kept),
        false => CaseRows::TooLong,
    };
    search(traced, all, judged, run_as_of, settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(picked: &Picked) -> Vec<usize> {
        picked.iter().collect()
    }

    #[test]
    fn picked_rows_cut_by_rank_keep_their_indices() {
        let picked = Picked::of_sorted([1, 2, 3, 7, 8, 12]);
        assert_eq!(picked.len(), 6);
        assert_eq!(picked.ranges, [1..4, 7..9, 12..13]);
        assert!(picked.contains(8) && picked.contains(12) && !picked.contains(4));
        assert_eq!(rows(&picked.cut(2..4, false)), [1, 2, 8, 12]);
        assert_eq!(rows(&picked.cut(2..4, true)), [3, 7]);
        assert_eq!(rows(&picked.cut(0..6, false)), Vec::<usize>::new());
        assert_eq!(rows(&picked.cut(5..6, true)), [12]);
        assert_eq!(
            picked.cut(0..2, false).cut(0..1, true),
            Picked::of_sorted([3])
        );
        assert_eq!(
            rows(&picked.map(&[10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22])),
            [11, 12, 13, 17, 18, 22]
        );
        assert_eq!(Picked::all(3), Picked::of_sorted([0, 1, 2]));
    }

    #[test]
    fn shrink_finds_a_one_minimal_subset_within_its_budget() {
        // Holds while rows 3 and 7 are both kept, or row 5 alone is: either is 1-minimal.
        let keeps =
            |picked: &Picked| (picked.contains(3) && picked.contains(7)) || rows(picked) == [5];
        let (found, finished) = shrink(10, u64::MAX, keeps);
        assert!(finished && keeps(&found));
        for left_out in found.iter() {
            let without = Picked::of_sorted(found.iter().filter(|&i| i != left_out));
            assert!(!keeps(&without), "{left_out} can go from {found:?}");
        }
        // No budget: the rows as they were, the search not finished.
        assert_eq!(shrink(10, 0, keeps), (Picked::all(10), false));
        // One row holds alone: nothing to try.
        assert_eq!(shrink(1, 0, |_| true), (Picked::all(1), true));
    }
}
