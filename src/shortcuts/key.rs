//! What the search remembers of a pair of cases (the contract's and a shortcut's after the
//! same rows): an abstraction that keeps everything the rules and the graded columns can
//! still tell apart, and forgets the rest, so that pairs which differ only in what no later
//! row can reveal are one state, and the reachable states are few (often finitely many: then
//! the search can exhaust them).
//!
//! Why each thing kept or forgotten is sound, for the rules and the search's alphabet:
//! - **Times** are kept relative to the last row's instant: the rules compare instants with
//!   each other only (a row's time with a deadline, a re-sent offer's times with the
//!   offer's), and every time the alphabet makes is relative too. An instant more than
//!   [`PAST`] seconds before the last row can no longer be reached by any time the
//!   alphabet makes (a row's time, or a worker's `sent_at`, is at most [`DURATION`] before
//!   it), so only which other instants it equals matters: it is kept as a label, the same
//!   for equal instants.
//! - Of the times, the rules read only the **live deadlines** (the ack deadline while
//!   `OFFERED`; the expiry while `OFFERED`, `ACTIVE`, or `ACK_TIMEOUT`, which a late ack
//!   may end under `late_ack_accepted`), and a re-sent offer's times, which the alphabet
//!   copies from one of the two offers: whether the two offers are equal decides those (and
//!   under `renewal_changes_offer`, the offer's expiry against the current one, both kept).
//!   Any other time is kept only if its column is graded.
//! - **Sequences and generations**: the alphabet's numbers are relative to the two cases'
//!   current ones, and the rules only compare numbers, so both cases' numbers are kept
//!   relative to the smaller (clamped where the alphabet's "one below" stops at 1; of
//!   generations, the smaller's parity, which sets an offer's duration); a number no later
//!   row of its generation compares with (a frozen case's, a sequence once the phase or a
//!   cancel makes every later one refused or late whatever its number) is forgotten. A
//!   graded `stale_generation` keeps the stale sets relative to the generations too (below
//!   the lowest a row can still add, only whether the two agree); a graded `late_progress`
//!   keeps the sequences and late sets whole, since a new generation's sequences start
//!   again at 1 and can meet old late ones.
//! - A time or set that only a column shows (`renew_time`, `cancel_requested`, `cancel_ack`,
//!   the stale and late sets) is kept only if that column is graded; otherwise only whether
//!   it is set, which the rules read.
//! - The progress value is the sequence's digits in every row the alphabet makes: kept by
//!   the sequence.

use std::collections::BTreeSet;

use super::alphabet::DURATION;
use crate::lease::{AckState, Case, ConflictKind, Lease, Phase, Reading, Shortcut, Timestamp};

/// How far before the last row an instant is still kept as an offset.
pub const PAST: i64 = 2 * DURATION;

/// A deadline no later row's time can come before.
const PASSED: i64 = i64::MIN + 1;

/// The bits of the columns a key must keep (by position in [`crate::matrix::COLUMNS`]).
mod column {
    /// `lease_id`, `generation`, `holder_identity`.
    pub const IDENTITY: u32 = 1 << 2 | 1 << 3 | 1 << 4;
    pub const RENEW_SEQUENCE: u32 = 1 << 10;
    /// `progress_sequence`, `progress_value`, `late_progress`.
    pub const PROGRESS: u32 = 1 << 12 | 1 << 13 | 1 << 18;
    pub const ISSUED_AT: u32 = 1 << 5;
    pub const EXPIRES_AT: u32 = 1 << 7;
    pub const ACK_DEADLINE: u32 = 1 << 8;
    pub const RENEW_TIME: u32 = 1 << 11;
    pub const CANCEL_REQUESTED: u32 = 1 << 14;
    pub const CANCEL_ACK: u32 = 1 << 15;
    pub const STALE_GENERATION: u32 = 1 << 17;
    pub const LATE_PROGRESS: u32 = 1 << 18;
}

/// Builds keys; holds the instants labelled so far for the key being built.
pub struct Keys {
    graded: u32,
    shortcut: Shortcut,
    labels: Vec<i64>,
}

impl Keys {
    /// Keys for a search for `shortcut` on the `graded` columns.
    pub fn new(graded: u32, shortcut: Shortcut) -> Keys {
        Keys {
            graded,
            shortcut,
            labels: Vec::new(),
        }
    }

    /// The key of the pair `contract`, `under`, into `key` (cleared first).
    pub fn key(&mut self, contract: &Case, under: &Case<Shortcut>, key: &mut Vec<i64>) {
        self.labels.clear();
        key.clear();
        let now = contract.last_observed_at().unix_seconds();
        self.case(contract, now, key);
        self.case(under, now, key);
        let (mine, theirs) = (contract.lease(), under.lease());
        // Whether a re-sent copy of one case's offer repeats the other's.
        key.push(i64::from(mine.offer == theirs.offer));
        // A number no later row compares with (and no graded column shows) is forgotten.
        let keep = |read: bool, columns: u32| read || self.graded & columns != 0;
        let generations = [
            keep(!frozen(contract), column::IDENTITY).then_some(mine.identity().generation),
            keep(!frozen(under), column::IDENTITY).then_some(theirs.identity().generation),
        ];
        // Every generation is 1 or more; the parity of the smaller decides the offers'
        // durations (the alphabet's), so it is kept.
        relative(generations, |base| (base % 2) as i64, key);
        if self.graded & column::STALE_GENERATION != 0 {
            stale_sets(
                [contract.stale_generations(), under.stale_generations()],
                generations.iter().flatten().copied().min(),
                key,
            );
        }
        let renew = |lease: &Lease| lease.renewal.map_or(0, |r| r.renew_seq);
        let renews = [
            keep(renewal_read(contract), column::RENEW_SEQUENCE).then_some(renew(mine)),
            keep(renewal_read(under), column::RENEW_SEQUENCE).then_some(renew(theirs)),
        ];
        relative(renews, |base| base.min(2) as i64, key);
        let progress = |lease: &Lease| lease.progress.as_ref().map_or(0, |p| p.progress_seq);
        let progresses = [
            keep(progress_read(contract), column::PROGRESS).then_some(progress(mine)),
            keep(progress_read(under), column::PROGRESS).then_some(progress(theirs)),
        ];
        if self.graded & column::LATE_PROGRESS != 0 {
            key.extend(progresses.map(|seq| seq.map_or(-1, |seq| seq as i64)));
            key.extend(set(contract.late_progress()));
            key.push(-1);
            key.extend(set(under.late_progress()));
        } else {
            relative(progresses, |base| base.min(2) as i64, key);
        }
    }

    /// What the key keeps of one case but its numbers.
    fn case<R: Reading>(&mut self, case: &Case<R>, now: i64, key: &mut Vec<i64>) {
        let lease = case.lease();
        let terms = &lease.offer.terms;
        key.extend([
            phase(lease.phase),
            ack_state(lease.ack_state),
            case.conflict().map_or(0, conflict),
            i64::from(lease.result_rejected_for_expiry),
            i64::from(lease.renew_rejected_for_expiry),
            i64::from(lease.identity().holder.as_str() == "worker-a"),
            terms.lease_duration.get() as i64,
        ]);
        // The offer's times: the rules compare a re-sent offer's with them (the pair's
        // offers are equal or not, which the key keeps), and read the ack deadline while
        // it is live; `renewal_changes_offer` compares the offer's expiry with the
        // current one.
        let renewal_changes_offer = self.shortcut == Shortcut::RenewalChangesOffer;
        let live_expiry = matches!(
            lease.phase,
            Phase::Offered | Phase::Active | Phase::AckTimeout
        );
        for (time, column, kept) in [
            (terms.issued_at, column::ISSUED_AT, false),
            (
                terms.ack_deadline,
                column::ACK_DEADLINE,
                lease.phase == Phase::Offered,
            ),
            (terms.expires_at, 0, renewal_changes_offer),
            (
                lease.expires_at,
                column::EXPIRES_AT,
                live_expiry || renewal_changes_offer,
            ),
        ] {
            if self.graded & column != 0 {
                key.push(self.time(time, now));
            } else if kept {
                key.push(self.deadline(time, now));
            }
        }
        for (time, column) in [
            (lease.renewal.map(|r| r.renew_time), column::RENEW_TIME),
            (lease.cancel_requested, column::CANCEL_REQUESTED),
            (lease.cancel_ack, column::CANCEL_ACK),
        ] {
            key.push(match time {
                None => i64::MIN,
                Some(time) if self.graded & column != 0 => self.time(time, now),
                Some(_) => i64::MAX,
            });
        }
        if self.graded & column::STALE_GENERATION == 0 {
            key.push(i64::from(case.stale_generations().is_empty()));
        }
        if self.graded & column::LATE_PROGRESS == 0 {
            key.push(i64::from(case.late_progress().is_empty()));
        }
    }

    /// An instant the rules compare later rows' times with: its offset from `now`, or, once
    /// no later row's time can come before it, only that it has passed.
    fn deadline(&self, time: Timestamp, now: i64) -> i64 {
        // Every later row's time is `now` or after it; only a worker's clock (its `sent_at`,
        // read by `worker_clock`) may be up to a lease's duration before it.
        let earliest = match self.shortcut {
            Shortcut::WorkerClock => -DURATION,
            _ => 0,
        };
        let offset = time.unix_seconds() - now;
        if offset >= earliest {
            offset
        } else {
            PASSED
        }
    }

    /// An instant: its offset from `now`, or, long past, a label shared by equal instants.
    fn time(&mut self, time: Timestamp, now: i64) -> i64 {
        let offset = time.unix_seconds() - now;
        if offset >= -PAST {
            return offset;
        }
        let label = match self.labels.iter().position(|&seen| seen == offset) {
            Some(label) => label,
            None => {
                self.labels.push(offset);
                self.labels.len() - 1
            }
        };
        -PAST - 1 - label as i64
    }
}

/// Two numbers (`None`: one no later row compares with) relative to the smaller of those
/// kept, of which `base` keeps what the alphabet can tell (where its "one below" stops at
/// 1; a generation's parity).
fn relative(numbers: [Option<u64>; 2], base: impl Fn(u64) -> i64, key: &mut Vec<i64>) {
    let Some(smaller) = numbers.iter().flatten().copied().min() else {
        key.extend([-1, -1, -1]);
        return;
    };
    key.push(base(smaller));
    key.extend(numbers.map(|n| n.map_or(-1, |n| (n - smaller) as i64)));
}

/// Whether a case is frozen by a conflict for good: no later row changes it but the clock.
fn frozen<R: Reading>(case: &Case<R>) -> bool {
    case.conflict().is_some() && !case.reading().takes(Shortcut::ConflictNotFrozen)
}

/// Whether a later row of the case's generation may still compare a renew's sequence with
/// the last accepted one: not once the case is frozen, `TERMINAL`, or `EXPIRED` (a renew is
/// then refused whatever its sequence, unless `expired_lease_renews` revives the lease).
/// A new generation starts its sequences afresh.
fn renewal_read<R: Reading>(case: &Case<R>) -> bool {
    !frozen(case)
        && match case.lease().phase {
            Phase::Terminal(_) => false,
            Phase::Expired => case.reading().takes(Shortcut::ExpiredLeaseRenews),
            Phase::Offered | Phase::Active | Phase::AckTimeout => true,
        }
}

/// Whether a later row of the case's generation may still compare a progress's sequence
/// with the last accepted one: as [`renewal_read`], and not once a cancel is requested (a
/// progress is then late whatever its sequence, unless `late_progress_resumes`).
fn progress_read<R: Reading>(case: &Case<R>) -> bool {
    renewal_read(case)
        && (case.lease().cancel_requested.is_none()
            || case.reading().takes(Shortcut::LateProgressResumes))
}

fn set(values: &BTreeSet<u64>) -> impl Iterator<Item = i64> + '_ {
    values.iter().map(|&v| v as i64)
}

/// The two stale sets, for a graded `stale_generation`: a stale generation is one below a
/// current one (the alphabet's "older" is the smaller current generation, `base`, less one),
/// so generations are only ever added from `base - 1` up. Those are kept relative to `base`;
/// the ones below, which no later row adds again, only by whether the two sets have the
/// same of them, and whether each has any (`None`: no later row adds any).
fn stale_sets(sets: [&BTreeSet<u64>; 2], base: Option<u64>, key: &mut Vec<i64>) {
    let lowest = base.map_or(u64::MAX, |base| base.saturating_sub(1));
    let [mine, theirs] = sets.map(|set| set.iter().copied().filter(|&g| g < lowest));
    key.push(i64::from(mine.clone().eq(theirs.clone())));
    key.extend([mine, theirs].map(|mut below| i64::from(below.next().is_none())));
    for set in sets {
        key.push(-1);
        key.extend(set.range(lowest..).map(|&g| g as i64 - lowest as i64));
    }
}

fn phase(phase: Phase) -> i64 {
    match phase {
        Phase::Offered => 0,
        Phase::Active => 1,
        Phase::AckTimeout => 2,
        Phase::Expired => 3,
        Phase::Terminal(result) => 4 + result as i64,
    }
}

fn ack_state(state: AckState) -> i64 {
    state as i64
}

fn conflict(kind: ConflictKind) -> i64 {
    1 + kind as i64
}
