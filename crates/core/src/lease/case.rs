//! The lease state machine for one case: rows in, one outcome per row, and a verdict.
//!
//! Sans-IO: nothing here reads a clock or touches a file. Time arrives as each row's
//! `observed_at` and as the `as_of` a verdict is asked for.

use std::collections::BTreeSet;
use std::fmt;

use compact_str::CompactString;

use super::generation::{ClockEffect, Lease, Progress};
use super::row::{Identity, Message, Offer, Row};
use super::shortcut::{Contract, Reading, Shortcut};
use super::types::{
    AckState, CaseReason, ConflictKind, Decision, Disposition, Event, Phase, ReasonPrecedence,
    RowReason, TerminalResult,
};
use super::values::{same_text, Timestamp, ValueError};

/// The outcome of one row: the clock step's effect, the disposition and the row reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// What step 1 did at the row's `observed_at`, if anything.
    pub clock: Option<ClockEffect>,
    /// What the row did to the lease.
    pub disposition: Disposition,
    /// Why.
    pub reason: RowReason,
}

/// A row that breaks the case file's own rules (spec section 2): bad input, not an outcome.
/// The row is not applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaseFault {
    /// The first row of a case is not an `offer`.
    FirstRowNotOffer(Event),
    /// The first offer gives no `job_id`.
    MissingJobId,
    /// The row's `job_id` differs from the case's.
    JobIdMismatch {
        /// The case's job id, from its first offer.
        expected: String,
    },
    /// `observed_at` is earlier than the previous row's.
    ObservedAtDecreased {
        /// The previous row's `observed_at`.
        previous: Timestamp,
    },
    /// An accepted renewal would compute an `expires_at` outside years 0001 to 9999.
    ExpiryOutOfRange(ValueError),
}

impl CaseFault {
    /// The column the fault is about.
    pub fn column(&self) -> &'static str {
        match self {
            CaseFault::FirstRowNotOffer(_) => "event",
            CaseFault::MissingJobId | CaseFault::JobIdMismatch { .. } => "job_id",
            CaseFault::ObservedAtDecreased { .. } => "observed_at",
            CaseFault::ExpiryOutOfRange(_) => "observed_at",
        }
    }
}

impl fmt::Display for CaseFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaseFault::FirstRowNotOffer(event) => {
                write!(f, "the first row of a case must be an offer, not {event}")
            }
            CaseFault::MissingJobId => f.write_str("the first offer of a case must give a job_id"),
            CaseFault::JobIdMismatch { expected } => {
                write!(f, "differs from the case's job_id {expected:?}")
            }
            CaseFault::ObservedAtDecreased { previous } => {
                write!(f, "decreases within the case (previous row: {previous})")
            }
            CaseFault::ExpiryOutOfRange(e) => {
                write!(
                    f,
                    "the renewal's expires_at (observed_at + lease_duration) is {e}"
                )
            }
        }
    }
}

impl std::error::Error for CaseFault {}

/// One case's lease record: the current generation and the whole-case findings, replayed
/// under a [`Reading`]: the contract (the default, [`Contract`], which every command judges
/// with) or a shortcut of the catalogue ([`Case::start_reading`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case<R: Reading = Contract> {
    job_id: CompactString,
    lease: Lease,
    stale_generations: BTreeSet<u64>,
    late_progress: BTreeSet<u64>,
    conflict: Option<ConflictKind>,
    last_observed_at: Timestamp,
    reading: R,
}

/// A case judged at `as_of` without a copy of its lease: what the final clock step changes
/// (phase, ack state) and the decision. The rest of the lease is the case's
/// ([`Case::lease`]). For writing many matrix rows; [`Verdict`] has the whole lease.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judgement {
    /// The instant the case was judged at.
    pub as_of: Timestamp,
    /// The current generation's phase after step 1 at `as_of`.
    pub phase: Phase,
    /// Its ack state after step 1 at `as_of`.
    pub ack_state: AckState,
    /// What step 1 at `as_of` did, if anything.
    pub clock: Option<ClockEffect>,
    /// The decision.
    pub decision: Decision,
    /// The reason code.
    pub reason: CaseReason,
}

impl Judgement {
    /// `lease_expired`: the current generation is `EXPIRED` at `as_of`.
    pub fn lease_expired(&self) -> bool {
        self.phase == Phase::Expired
    }
}

/// The case judged at `as_of` (spec section 5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The instant the case was judged at.
    pub as_of: Timestamp,
    /// The current generation after step 1 at `as_of`.
    pub lease: Lease,
    /// What step 1 at `as_of` did, if anything.
    pub clock: Option<ClockEffect>,
    /// The decision.
    pub decision: Decision,
    /// The reason code.
    pub reason: CaseReason,
}

impl Verdict {
    /// `lease_expired`: the current generation is `EXPIRED` at `as_of`.
    pub fn lease_expired(&self) -> bool {
        self.lease.phase == Phase::Expired
    }
}

fn outcome(clock: Option<ClockEffect>, disposition: Disposition, reason: RowReason) -> Outcome {
    Outcome {
        clock,
        disposition,
        reason,
    }
}

impl Case {
    /// Starts a case from its first row, which must be an `offer` giving a `job_id`.
    pub fn start(row: &Row) -> Result<(Case, Outcome), CaseFault> {
        Case::start_reading(row, Contract)
    }
}

impl<R: Reading> Case<R> {
    /// About how many bytes the case holds beyond its own size: its texts longer than the 24
    /// bytes kept inline (job and lease ids, holder, progress value) and the numbers it
    /// records (stale generations, late progress), for the budget of the engine's open cases
    /// (a place in its ring holds a case whose texts may each be as long as a record).
    #[inline]
    pub fn held_bytes(&self) -> usize {
        // A short text is kept inside the case (up to 24 bytes): only a longer one holds
        // memory of its own. Asked after every row, so the usual answer is a few compares.
        fn heap(text: &CompactString) -> usize {
            if text.is_heap_allocated() {
                text.len()
            } else {
                0
            }
        }
        let identity = &self.lease.offer.identity;
        let progress_value = match &self.lease.progress {
            Some(Progress {
                progress_value: Some(value),
                ..
            }) => heap(value),
            _ => 0,
        };
        heap(&self.job_id)
            + heap(&identity.lease_id)
            + heap(&identity.holder)
            + progress_value
            // A set's entry, with its share of the tree's nodes.
            + 16 * (self.stale_generations.len() + self.late_progress.len())
    }

    /// [`Case::start`] under `reading`: the case's later rows are replayed as it reads them.
    pub fn start_reading(row: &Row, reading: R) -> Result<(Case<R>, Outcome), CaseFault> {
        let Message::Offer(offer) = &row.message else {
            return Err(CaseFault::FirstRowNotOffer(row.message.event()));
        };
        let job_id = row.job_id.clone().ok_or(CaseFault::MissingJobId)?;
        let case = Case {
            job_id,
            lease: Lease::new(offer.clone()),
            stale_generations: BTreeSet::new(),
            late_progress: BTreeSet::new(),
            conflict: None,
            last_observed_at: row.observed_at,
            reading,
        };
        Ok((
            case,
            outcome(None, Disposition::Accepted, RowReason::Offered),
        ))
    }

    /// The reading the case is replayed under.
    pub fn reading(&self) -> R {
        self.reading
    }

    /// The faults a row of this case has whatever its event: `observed_at` earlier than the
    /// previous row's, a `job_id` differing from the case's — both, when both (spec section 2
    /// lists every error). [`step`](Case::step) stops at the first; a row that could not be
    /// typed is checked with what it still says.
    pub fn row_faults(
        &self,
        job_id: Option<&str>,
        observed_at: Option<Timestamp>,
    ) -> Vec<CaseFault> {
        let mut faults = Vec::new();
        if observed_at.is_some_and(|now| now < self.last_observed_at) {
            faults.push(CaseFault::ObservedAtDecreased {
                previous: self.last_observed_at,
            });
        }
        if job_id.is_some_and(|job_id| job_id != self.job_id.as_str()) {
            faults.push(CaseFault::JobIdMismatch {
                expected: self.job_id.to_string(),
            });
        }
        faults
    }

    /// [`Case::start`] in the place of a case that is no longer needed, reusing its memory
    /// (a streaming pass starts a case per case id, and this spares it the allocations). On
    /// success the case is the one `start` returns; on a fault it is left as it was.
    pub fn restart(&mut self, row: &Row) -> Result<Outcome, CaseFault> {
        let Message::Offer(offer) = &row.message else {
            return Err(CaseFault::FirstRowNotOffer(row.message.event()));
        };
        let Some(job_id) = &row.job_id else {
            return Err(CaseFault::MissingJobId);
        };
        let Case {
            job_id: current_job_id,
            lease,
            stale_generations,
            late_progress,
            conflict,
            last_observed_at,
            reading: _,
        } = self;
        current_job_id.clone_from(job_id);
        lease.reset(offer);
        stale_generations.clear();
        late_progress.clear();
        *conflict = None;
        *last_observed_at = row.observed_at;
        Ok(outcome(None, Disposition::Accepted, RowReason::Offered))
    }

    /// Replays one more row (spec section 4): the clock, the conflict freeze, the identity
    /// check and the event's rule. A row that breaks the file's rules is a [`CaseFault`].
    pub fn step(&mut self, row: &Row) -> Result<Outcome, CaseFault> {
        let observed_at = row.observed_at;
        if observed_at < self.last_observed_at {
            return Err(CaseFault::ObservedAtDecreased {
                previous: self.last_observed_at,
            });
        }
        if let Some(job_id) = &row.job_id {
            if *job_id != self.job_id {
                return Err(CaseFault::JobIdMismatch {
                    expected: self.job_id.to_string(),
                });
            }
        }
        self.last_observed_at = observed_at;
        // `t`: the coordinator's clock; `sent_at` is the worker's claim, for the audit only.
        let now = match row.sent_at {
            Some(sent_at) if self.reading.takes(Shortcut::WorkerClock) => sent_at,
            _ => observed_at,
        };
        let clock = self.lease.advance_clock(now, self.reading);
        // Step 2: the conflict freeze.
        if self.conflict.is_some() && !self.reading.takes(Shortcut::ConflictNotFrozen) {
            return Ok(outcome(
                clock,
                Disposition::Blocked,
                RowReason::OwnershipConflict,
            ));
        }
        let (disposition, reason) = match &row.message {
            Message::Offer(offer) => self.offer(offer),
            Message::CancelRequest => self.cancel_request(now),
            Message::Observe => (Disposition::Accepted, RowReason::Observed),
            worker => {
                let identity = worker
                    .identity()
                    .expect("worker messages carry an identity");
                match self.check_identity(identity, worker.event()) {
                    Some(refusal) => refusal,
                    None => self.worker_message(worker, now)?,
                }
            }
        };
        Ok(outcome(clock, disposition, reason))
    }

    /// Spec 4.1: `None` when the message is from the current generation's lease and holder.
    fn check_identity(
        &mut self,
        identity: &Identity,
        event: Event,
    ) -> Option<(Disposition, RowReason)> {
        let current = self.lease.identity();
        if identity.generation < current.generation {
            if event == Event::Renew && self.reading.takes(Shortcut::OldGenerationRenews) {
                return None;
            }
            self.stale_generations.insert(identity.generation);
            Some((Disposition::Rejected, RowReason::StaleGeneration))
        } else if identity.generation > current.generation {
            Some((Disposition::Rejected, RowReason::UnknownGeneration))
        } else if !same_text(&identity.lease_id, &current.lease_id) {
            Some((Disposition::Rejected, RowReason::UnknownLease))
        } else if !same_text(&identity.holder, &current.holder) {
            Some(self.raise_conflict(ConflictKind::HolderConflict))
        } else {
            None
        }
    }

    fn raise_conflict(&mut self, kind: ConflictKind) -> (Disposition, RowReason) {
        if self.reading.takes(Shortcut::ConflictNotFrozen) {
            // Rows after a conflict are applied: a later one may conflict again, and the
            // first conflict's reason stays.
            self.conflict.get_or_insert(kind);
        } else {
            assert!(self.conflict.is_none(), "a frozen case takes no more rows");
            self.conflict = Some(kind);
        }
        (Disposition::Conflict, kind.row_reason())
    }

    fn offer(&mut self, offer: &Offer) -> (Disposition, RowReason) {
        let current = self.lease.identity().generation;
        let generation = offer.identity.generation;
        if generation > current {
            match self.lease.phase {
                Phase::Offered | Phase::Active
                    if self.lease.cancel_requested.is_some()
                        && self.reading.takes(Shortcut::CancelEndsAuthority) =>
                {
                    self.lease.reset(offer);
                    (Disposition::Accepted, RowReason::Reassigned)
                }
                Phase::Offered | Phase::Active => {
                    self.raise_conflict(ConflictKind::OverlappingGenerations)
                }
                Phase::AckTimeout | Phase::Expired | Phase::Terminal(_) => {
                    self.lease.reset(offer);
                    (Disposition::Accepted, RowReason::Reassigned)
                }
            }
        } else if generation == current {
            if self.lease.is_repeated_by(offer, self.reading) {
                (Disposition::Duplicate, RowReason::DuplicateOffer)
            } else {
                self.raise_conflict(ConflictKind::GenerationReused)
            }
        } else {
            self.stale_generations.insert(generation);
            (Disposition::Rejected, RowReason::StaleGeneration)
        }
    }

    fn cancel_request(&mut self, now: Timestamp) -> (Disposition, RowReason) {
        let lease = &mut self.lease;
        if matches!(lease.phase, Phase::Terminal(_)) {
            (Disposition::Rejected, RowReason::CancelAfterResult)
        } else if lease.cancel_requested.is_some() {
            (Disposition::Duplicate, RowReason::DuplicateCancelRequest)
        } else {
            lease.cancel_requested = Some(now);
            (Disposition::Accepted, RowReason::CancelRequested)
        }
    }

    /// Spec 4.2 for a worker message that passed the identity check.
    #[inline]
    fn worker_message(
        &mut self,
        message: &Message,
        now: Timestamp,
    ) -> Result<(Disposition, RowReason), CaseFault> {
        let decided = match message {
            Message::Ack(_) => self.ack(),
            Message::Renew { renew_seq, .. } => self.renew(*renew_seq, now)?,
            Message::Progress {
                progress_seq,
                progress_value,
                ..
            } => self.progress(*progress_seq, progress_value, now)?,
            Message::CancelAck(_) => {
                let lease = &mut self.lease;
                if lease.cancel_requested.is_none() {
                    (Disposition::Rejected, RowReason::CancelNotRequested)
                } else if lease.cancel_ack.is_some() {
                    (Disposition::Duplicate, RowReason::DuplicateCancelAck)
                } else {
                    lease.cancel_ack = Some(now);
                    (Disposition::Accepted, RowReason::CancelAcked)
                }
            }
            Message::Result { result, .. } => self.result(*result),
            Message::Offer(_) | Message::CancelRequest | Message::Observe => {
                unreachable!("not a worker message: {:?}", message.event())
            }
        };
        Ok(decided)
    }

    /// Spec 4.2, `ack`.
    #[inline]
    fn ack(&mut self) -> (Disposition, RowReason) {
        let lease = &mut self.lease;
        match lease.phase {
            Phase::Offered => {
                lease.phase = Phase::Active;
                lease.ack_state = AckState::Acked;
                (Disposition::Accepted, RowReason::Acked)
            }
            Phase::AckTimeout if self.reading.takes(Shortcut::LateAckAccepted) => {
                lease.phase = Phase::Active;
                lease.ack_state = AckState::Acked;
                (Disposition::Accepted, RowReason::Acked)
            }
            Phase::AckTimeout => {
                lease.ack_state = AckState::Late;
                (Disposition::Rejected, RowReason::AckAfterDeadline)
            }
            Phase::Active | Phase::Expired | Phase::Terminal(_) => {
                assert_eq!(lease.ack_state, AckState::Acked, "only an ack activates");
                (Disposition::Duplicate, RowReason::DuplicateAck)
            }
        }
    }

    /// Spec 4.2, `renew` with `renew_seq`.
    #[inline]
    fn renew(
        &mut self,
        renew_seq: u64,
        now: Timestamp,
    ) -> Result<(Disposition, RowReason), CaseFault> {
        let reading = self.reading;
        let lease = &mut self.lease;
        Ok(match lease.phase {
            Phase::Offered | Phase::AckTimeout => (Disposition::Rejected, RowReason::NotAcked),
            Phase::Expired if reading.takes(Shortcut::ExpiredLeaseRenews) => {
                let decided = lease
                    .renew_active(renew_seq, now, reading)
                    .map_err(CaseFault::ExpiryOutOfRange)?;
                if decided.0 == Disposition::Accepted {
                    lease.phase = Phase::Active;
                }
                decided
            }
            // An expired lease is never revived.
            Phase::Expired => {
                lease.renew_rejected_for_expiry = true;
                (Disposition::Rejected, RowReason::RenewAfterExpiry)
            }
            Phase::Terminal(_) => (Disposition::Rejected, RowReason::AfterResult),
            Phase::Active => lease
                .renew_active(renew_seq, now, reading)
                .map_err(CaseFault::ExpiryOutOfRange)?,
        })
    }

    /// Spec 4.2, `progress` with `progress_seq` and its value.
    #[inline]
    fn progress(
        &mut self,
        progress_seq: u64,
        progress_value: &Option<CompactString>,
        now: Timestamp,
    ) -> Result<(Disposition, RowReason), CaseFault> {
        use Disposition::*;
        use RowReason::*;
        let reading = self.reading;
        let lease = &mut self.lease;
        Ok(match lease.phase {
            Phase::Offered | Phase::AckTimeout => (Rejected, NotAcked),
            Phase::Expired => {
                self.late_progress.insert(progress_seq);
                (Recorded, ProgressAfterExpiry)
            }
            Phase::Terminal(_) => {
                self.late_progress.insert(progress_seq);
                (Recorded, ProgressAfterResult)
            }
            Phase::Active
                if lease.cancel_requested.is_some()
                    && !reading.takes(Shortcut::LateProgressResumes) =>
            {
                self.late_progress.insert(progress_seq);
                (Recorded, ProgressAfterCancel)
            }
            Phase::Active => {
                let last = lease.progress.as_ref().map_or(0, |p| p.progress_seq);
                // The newer progress is kept: progress never moves backward.
                let backward =
                    progress_seq < last && reading.takes(Shortcut::ProgressMovesBackward);
                if progress_seq > last || backward {
                    lease.progress = Some(Progress {
                        progress_seq,
                        progress_value: progress_value.clone(),
                    });
                    // Progress never renews.
                    if reading.takes(Shortcut::ProgressRenews) {
                        lease.expires_at = now
                            .checked_add(lease.offer.terms.lease_duration)
                            .map_err(CaseFault::ExpiryOutOfRange)?;
                    }
                    (Accepted, ProgressAccepted)
                } else if progress_seq == last {
                    (Duplicate, DuplicateProgress)
                } else {
                    self.late_progress.insert(progress_seq);
                    (Recorded, ProgressOutOfOrder)
                }
            }
        })
    }

    /// Spec 4.2, `result` with value `result`.
    #[inline]
    fn result(&mut self, result: TerminalResult) -> (Disposition, RowReason) {
        use Disposition::*;
        use RowReason::*;
        let reading = self.reading;
        let lease = &mut self.lease;
        match lease.phase {
            Phase::Offered | Phase::AckTimeout => (Rejected, NotAcked),
            Phase::Expired => {
                lease.result_rejected_for_expiry = true;
                (Rejected, ResultAfterExpiry)
            }
            Phase::Terminal(accepted) if accepted == result => (Duplicate, DuplicateResult),
            // The first accepted result stands.
            Phase::Terminal(_) if reading.takes(Shortcut::LastResultWins) => {
                lease.phase = Phase::Terminal(result);
                (Accepted, ResultAccepted)
            }
            Phase::Terminal(_) => (Rejected, ContradictoryResult),
            // A worker cannot claim a cancellation the coordinator never asked for.
            Phase::Active
                if result == TerminalResult::Cancelled
                    && lease.cancel_requested.is_none()
                    && !reading.takes(Shortcut::UnrequestedCancelAccepted) =>
            {
                (Rejected, CancelNotRequested)
            }
            Phase::Active => {
                lease.phase = Phase::Terminal(result);
                (Accepted, ResultAccepted)
            }
        }
    }

    /// The case's job id.
    pub fn job_id(&self) -> &str {
        &self.job_id
    }

    /// The current generation as replayed so far (before any final clock step).
    pub fn lease(&self) -> &Lease {
        &self.lease
    }

    /// The distinct stale generation numbers seen, ascending.
    pub fn stale_generations(&self) -> &BTreeSet<u64> {
        &self.stale_generations
    }

    /// The distinct late progress sequence numbers of the whole case, ascending.
    pub fn late_progress(&self) -> &BTreeSet<u64> {
        &self.late_progress
    }

    /// The first ownership conflict, if any.
    pub fn conflict(&self) -> Option<ConflictKind> {
        self.conflict
    }

    /// The last row's `observed_at`.
    pub fn last_observed_at(&self) -> Timestamp {
        self.last_observed_at
    }

    /// Judges the case (spec section 5) at its last `observed_at`, or at `run_as_of` if
    /// that is later; step 1 is applied once more at that instant.
    pub fn verdict(&self, run_as_of: Option<Timestamp>) -> Verdict {
        let judgement = self.judge(run_as_of);
        let mut lease = self.lease.clone();
        lease.phase = judgement.phase;
        lease.ack_state = judgement.ack_state;
        Verdict {
            as_of: judgement.as_of,
            lease,
            clock: judgement.clock,
            decision: judgement.decision,
            reason: judgement.reason,
        }
    }

    /// [`verdict`](Case::verdict) without copying the lease.
    pub fn judge(&self, run_as_of: Option<Timestamp>) -> Judgement {
        let as_of = run_as_of.map_or(self.last_observed_at, |t| t.max(self.last_observed_at));
        let (phase, ack_state, clock) = self.lease.clock_at(as_of, self.reading);
        let (decision, reason) = self.decide(phase, ack_state);
        // The reason table's rows: `explain` finds the reason in its decision's list.
        debug_assert_eq!(reason.decision_row(), decision.table_row(), "{reason:?}");
        Judgement {
            as_of,
            phase,
            ack_state,
            clock,
            decision,
            reason,
        }
    }

    /// The decision table of spec section 5 for the current lease with `phase` and `ack_state`
    /// after the final clock step, and the decision's reason: the first of its reason table's
    /// list ([`Decision::reason_precedence`], the one statement of the order) that applies.
    fn decide(&self, phase: Phase, ack_state: AckState) -> (Decision, CaseReason) {
        let decision = if self.conflict.is_some() {
            Decision::OwnershipConflict
        } else {
            match phase {
                Phase::Terminal(TerminalResult::Success) => Decision::Success,
                Phase::Terminal(TerminalResult::Failed) => Decision::Failed,
                Phase::Terminal(TerminalResult::Cancelled) => Decision::Cancelled,
                _ if self.lease.cancel_requested.is_some() => Decision::ReconciliationRequired,
                Phase::Expired => Decision::Expired,
                Phase::AckTimeout => Decision::AckTimeout,
                Phase::Active => Decision::Active,
                Phase::Offered => Decision::PendingAck,
            }
        };
        let reason = match decision.reason_precedence() {
            ReasonPrecedence::FirstConflict => self
                .conflict
                .expect("a conflict decides OWNERSHIP_CONFLICT")
                .case_reason(),
            ReasonPrecedence::FirstThatApplies(reasons) => reasons
                .iter()
                .map(|&(reason, _)| reason)
                .find(|&reason| self.reason_applies(reason, ack_state))
                .expect("each list ends with a reason that always applies"),
        };
        (decision, reason)
    }

    /// Whether the condition of `reason`'s row in the reason table holds (a reason listed as
    /// "otherwise" or "always" always does). Only asked of the reasons of the decision made.
    fn reason_applies(&self, reason: CaseReason, ack_state: AckState) -> bool {
        let lease = &self.lease;
        match reason {
            CaseReason::CancelAcknowledgedNoResult => lease.cancel_ack.is_some(),
            CaseReason::ResultAfterExpiry => lease.result_rejected_for_expiry,
            CaseReason::RenewAfterExpiry => lease.renew_rejected_for_expiry,
            CaseReason::AckAfterDeadline => ack_state == AckState::Late,
            CaseReason::StaleGeneration => !self.stale_generations.is_empty(),
            CaseReason::LateProgress => !self.late_progress.is_empty(),
            CaseReason::ResultAccepted
            | CaseReason::CancelUnacknowledged
            | CaseReason::ExpiredWithoutResult
            | CaseReason::AckMissing
            | CaseReason::WithinLease
            | CaseReason::AwaitingAck => true,
            CaseReason::HolderConflict
            | CaseReason::OverlappingGenerations
            | CaseReason::GenerationReused => {
                unreachable!("a conflict's reason is its kind's, not a condition")
            }
        }
    }
}
