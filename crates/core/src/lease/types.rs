//! The contract's vocabulary: events, phases, dispositions, row reasons, decisions and reasons.

use std::fmt;

macro_rules! code_enum {
    (
        $(#[$meta:meta])*
        $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident => $code:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every value, in the contract's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The code as the contract writes it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $code, )+
                }
            }

            /// The value whose code matches `text`, ignoring ASCII case.
            pub fn parse(text: &str) -> Option<$name> {
                $name::ALL.iter().copied().find(|v| v.as_str().eq_ignore_ascii_case(text))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

code_enum! {
    /// What a case-file row reports (spec section 2, "Events").
    Event {
        /// The coordinator issues (or re-issues) a lease generation to a holder.
        Offer => "offer",
        /// The holder accepts the offer.
        Ack => "ack",
        /// The holder extends the current generation.
        Renew => "renew",
        /// Evidence of work; never renews.
        Progress => "progress",
        /// The coordinator's intent to cancel the current generation.
        CancelRequest => "cancel_request",
        /// The holder acknowledges the cancel request.
        CancelAck => "cancel_ack",
        /// The holder's terminal result.
        Result => "result",
        /// A clock reading with no message: "it is now `observed_at`".
        Observe => "observe",
    }
}

impl Event {
    /// Whether the event is sent by a worker (and so carries an identity that is checked).
    pub fn is_worker_message(self) -> bool {
        matches!(
            self,
            Event::Ack | Event::Renew | Event::Progress | Event::CancelAck | Event::Result
        )
    }
}

code_enum! {
    /// A worker's terminal result.
    TerminalResult {
        /// The job finished successfully.
        Success => "SUCCESS",
        /// The job failed.
        Failed => "FAILED",
        /// The job stopped because the coordinator asked it to.
        Cancelled => "CANCELLED",
    }
}

/// Where the current generation stands (spec section 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Offered to the holder; no ack yet and the ack deadline has not passed.
    Offered,
    /// Acked and not yet expired: the holder has authority.
    Active,
    /// The ack deadline passed with no ack.
    AckTimeout,
    /// The lease reached `expires_at` while active; it is never revived.
    Expired,
    /// A terminal result was accepted.
    Terminal(TerminalResult),
}

impl Phase {
    /// The phase as the contract writes it (`TERMINAL(SUCCESS)` for a terminal phase).
    pub fn name(self) -> String {
        match self {
            Phase::Offered => "OFFERED".into(),
            Phase::Active => "ACTIVE".into(),
            Phase::AckTimeout => "ACK_TIMEOUT".into(),
            Phase::Expired => "EXPIRED".into(),
            Phase::Terminal(r) => format!("TERMINAL({r})"),
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

code_enum! {
    /// Whether the current generation's offer was acknowledged.
    AckState {
        /// No ack yet, and the deadline has not passed.
        Pending => "PENDING",
        /// Acked before the deadline.
        Acked => "ACKED",
        /// An ack arrived at or after the deadline.
        Late => "LATE",
        /// The deadline passed with no ack.
        Missing => "MISSING",
    }
}

code_enum! {
    /// What a row did to the lease (spec section 4, step 3).
    Disposition {
        /// The row changed the lease: its contract, phase, sequences or cancellation.
        Accepted => "ACCEPTED",
        /// An idempotent repeat of what was already accepted.
        Duplicate => "DUPLICATE",
        /// Late or stale evidence kept for audit.
        Recorded => "RECORDED",
        /// A claim with no authority.
        Rejected => "REJECTED",
        /// The row exposed contradictory ownership.
        Conflict => "CONFLICT",
        /// The case is frozen by an earlier ownership conflict.
        Blocked => "BLOCKED",
    }
}

code_enum! {
    /// Why a row got its disposition (spec section 4.1 and 4.2).
    RowReason {
        /// The case's first offer was accepted.
        Offered => "offered",
        /// A higher generation replaced one whose authority had ended.
        Reassigned => "reassigned",
        /// The offer repeats the current generation's offer exactly.
        DuplicateOffer => "duplicate_offer",
        /// An offer reuses the current generation number with different terms.
        GenerationReused => "generation_reused",
        /// A higher generation was offered while the current one still had authority.
        OverlappingGenerations => "overlapping_generations",
        /// The message names a generation older than the current one.
        StaleGeneration => "stale_generation",
        /// The message names a generation newer than any issued.
        UnknownGeneration => "unknown_generation",
        /// The message names the current generation with another lease id.
        UnknownLease => "unknown_lease",
        /// Another holder claims the current generation and lease.
        HolderConflict => "holder_conflict",
        /// The offer was acked in time; the lease is active.
        Acked => "acked",
        /// The ack arrived after the ack deadline.
        AckAfterDeadline => "ack_after_deadline",
        /// The offer was already acked.
        DuplicateAck => "duplicate_ack",
        /// A renew, progress or result before the offer was acked.
        NotAcked => "not_acked",
        /// A renew after the lease expired; an expired lease is never revived.
        RenewAfterExpiry => "renew_after_expiry",
        /// A renew after a terminal result.
        AfterResult => "after_result",
        /// The renewal advanced the sequence and extended the lease.
        Renewed => "renewed",
        /// The renewal repeats the last accepted sequence.
        DuplicateRenew => "duplicate_renew",
        /// The renewal's sequence is below the last accepted one.
        RenewOutOfOrder => "renew_out_of_order",
        /// Progress after the lease expired, kept as late evidence.
        ProgressAfterExpiry => "progress_after_expiry",
        /// Progress after a terminal result, kept as late evidence.
        ProgressAfterResult => "progress_after_result",
        /// Progress after a cancel request, kept as late evidence.
        ProgressAfterCancel => "progress_after_cancel",
        /// The progress advanced the sequence.
        ProgressAccepted => "progress_accepted",
        /// The progress repeats the last accepted sequence.
        DuplicateProgress => "duplicate_progress",
        /// The progress sequence is below the last accepted one; the newer is kept.
        ProgressOutOfOrder => "progress_out_of_order",
        /// A cancel request after a terminal result.
        CancelAfterResult => "cancel_after_result",
        /// A cancel was already requested.
        DuplicateCancelRequest => "duplicate_cancel_request",
        /// The coordinator's cancel request was recorded.
        CancelRequested => "cancel_requested",
        /// A cancel ack, or a CANCELLED result, with no cancel requested.
        CancelNotRequested => "cancel_not_requested",
        /// The cancel was already acknowledged.
        DuplicateCancelAck => "duplicate_cancel_ack",
        /// The holder acknowledged the cancel request.
        CancelAcked => "cancel_acked",
        /// A result after the lease expired; completion stays unproven.
        ResultAfterExpiry => "result_after_expiry",
        /// The same result again.
        DuplicateResult => "duplicate_result",
        /// A different result after one was accepted; the first stands.
        ContradictoryResult => "contradictory_result",
        /// The terminal result was accepted.
        ResultAccepted => "result_accepted",
        /// A clock reading; only the clock step acted.
        Observed => "observed",
        /// The case is frozen by an earlier ownership conflict.
        OwnershipConflict => "ownership_conflict",
    }
}

code_enum! {
    /// The case's decision (spec section 5, decision table).
    Decision {
        /// Contradictory ownership was seen (row 1).
        OwnershipConflict => "OWNERSHIP_CONFLICT",
        /// A SUCCESS result was accepted (row 2).
        Success => "SUCCESS",
        /// A FAILED result was accepted (row 2).
        Failed => "FAILED",
        /// A CANCELLED result was accepted (row 2).
        Cancelled => "CANCELLED",
        /// A cancel was requested and no result accepted (row 3).
        ReconciliationRequired => "RECONCILIATION_REQUIRED",
        /// The lease expired without a result (row 4).
        Expired => "EXPIRED",
        /// The offer was never acked in time (row 5).
        AckTimeout => "ACK_TIMEOUT",
        /// The holder has authority (row 6).
        Active => "ACTIVE",
        /// Offered and awaiting an ack (row 7).
        PendingAck => "PENDING_ACK",
    }
}

impl Decision {
    /// The row of the decision table (1 to 7) that yields this decision.
    pub fn table_row(self) -> u8 {
        match self {
            Decision::OwnershipConflict => 1,
            Decision::Success | Decision::Failed | Decision::Cancelled => 2,
            Decision::ReconciliationRequired => 3,
            Decision::Expired => 4,
            Decision::AckTimeout => 5,
            Decision::Active => 6,
            Decision::PendingAck => 7,
        }
    }

    /// The condition of this decision's row of the decision table.
    pub fn table_condition(self) -> &'static str {
        match self {
            Decision::OwnershipConflict => "ownership_conflict is set",
            Decision::Success | Decision::Failed | Decision::Cancelled => "phase = TERMINAL(r)",
            Decision::ReconciliationRequired => "a cancel was requested and no result accepted",
            Decision::Expired => "phase = EXPIRED",
            Decision::AckTimeout => "phase = ACK_TIMEOUT",
            Decision::Active => "phase = ACTIVE",
            Decision::PendingAck => "phase = OFFERED",
        }
    }

    /// How this decision's reason is chosen (the reason table): the contract's one statement
    /// of it, which `explain` shows and [`CaseReason::decision_row`] must agree with.
    pub fn reason_precedence(self) -> ReasonPrecedence {
        use CaseReason as R;
        match self {
            Decision::OwnershipConflict => ReasonPrecedence::FirstConflict,
            Decision::Success | Decision::Failed | Decision::Cancelled => {
                ReasonPrecedence::FirstThatApplies(&[(R::ResultAccepted, "a result was accepted")])
            }
            Decision::ReconciliationRequired => ReasonPrecedence::FirstThatApplies(&[
                (R::CancelAcknowledgedNoResult, "the cancel was acknowledged"),
                (R::CancelUnacknowledged, "otherwise"),
            ]),
            Decision::Expired => ReasonPrecedence::FirstThatApplies(&[
                (
                    R::ResultAfterExpiry,
                    "a result of the current generation was rejected for expiry",
                ),
                (
                    R::RenewAfterExpiry,
                    "a renew of the current generation was rejected for expiry",
                ),
                (R::ExpiredWithoutResult, "otherwise"),
            ]),
            Decision::AckTimeout => ReasonPrecedence::FirstThatApplies(&[
                (R::AckAfterDeadline, "ack_state = LATE"),
                (R::AckMissing, "otherwise"),
            ]),
            Decision::Active => ReasonPrecedence::FirstThatApplies(&[
                (R::StaleGeneration, "the stale set is not empty"),
                (R::LateProgress, "the late set is not empty"),
                (R::WithinLease, "otherwise"),
            ]),
            Decision::PendingAck => {
                ReasonPrecedence::FirstThatApplies(&[(R::AwaitingAck, "always")])
            }
        }
    }
}

/// How a decision's reason is chosen (spec section 5, reason table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReasonPrecedence {
    /// The reason of the first CONFLICT row: one of the conflict reasons
    /// ([`ConflictKind::case_reason`]).
    FirstConflict,
    /// The first of these reasons whose condition applies, in this order.
    FirstThatApplies(&'static [(CaseReason, &'static str)]),
}

impl CaseReason {
    /// The row of the decision table whose decisions carry this reason: every reason is
    /// listed here, so a new one does not build until it has its place in the contract.
    pub fn decision_row(self) -> u8 {
        match self {
            CaseReason::HolderConflict
            | CaseReason::OverlappingGenerations
            | CaseReason::GenerationReused => 1,
            CaseReason::ResultAccepted => 2,
            CaseReason::CancelAcknowledgedNoResult | CaseReason::CancelUnacknowledged => 3,
            CaseReason::ResultAfterExpiry
            | CaseReason::RenewAfterExpiry
            | CaseReason::ExpiredWithoutResult => 4,
            CaseReason::AckAfterDeadline | CaseReason::AckMissing => 5,
            CaseReason::StaleGeneration | CaseReason::LateProgress | CaseReason::WithinLease => 6,
            CaseReason::AwaitingAck => 7,
        }
    }
}

code_enum! {
    /// The case's reason code (spec section 5, reason table).
    CaseReason {
        /// The first conflict was another holder claiming the current generation.
        HolderConflict => "holder_conflict",
        /// The first conflict was a new generation offered while the old one had authority.
        OverlappingGenerations => "overlapping_generations",
        /// The first conflict was a generation number reused with other terms.
        GenerationReused => "generation_reused",
        /// A terminal result was accepted.
        ResultAccepted => "result_accepted",
        /// The cancel was acknowledged but no result arrived.
        CancelAcknowledgedNoResult => "cancel_acknowledged_no_result",
        /// The cancel was never acknowledged.
        CancelUnacknowledged => "cancel_unacknowledged",
        /// A result of the current generation was rejected because it arrived after expiry.
        ResultAfterExpiry => "result_after_expiry",
        /// A renew of the current generation was rejected because it arrived after expiry.
        RenewAfterExpiry => "renew_after_expiry",
        /// The lease expired and nothing arrived after.
        ExpiredWithoutResult => "expired_without_result",
        /// An ack arrived after the deadline.
        AckAfterDeadline => "ack_after_deadline",
        /// No ack arrived before the deadline.
        AckMissing => "ack_missing",
        /// Active, but stale generations were seen.
        StaleGeneration => "stale_generation",
        /// Active, but late progress was recorded.
        LateProgress => "late_progress",
        /// Active with clean evidence.
        WithinLease => "within_lease",
        /// Offered; waiting for the ack.
        AwaitingAck => "awaiting_ack",
    }
}

/// Which kind of ownership conflict froze a case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConflictKind {
    /// Two holders claimed the same generation and lease.
    HolderConflict,
    /// A new generation was offered while the current one still had authority.
    OverlappingGenerations,
    /// A generation number was offered again with other terms.
    GenerationReused,
}

impl ConflictKind {
    /// The row reason a row gets when it exposes this conflict.
    pub fn row_reason(self) -> RowReason {
        match self {
            ConflictKind::HolderConflict => RowReason::HolderConflict,
            ConflictKind::OverlappingGenerations => RowReason::OverlappingGenerations,
            ConflictKind::GenerationReused => RowReason::GenerationReused,
        }
    }

    /// The case reason an `OWNERSHIP_CONFLICT` decision gets from this conflict.
    pub fn case_reason(self) -> CaseReason {
        match self {
            ConflictKind::HolderConflict => CaseReason::HolderConflict,
            ConflictKind::OverlappingGenerations => CaseReason::OverlappingGenerations,
            ConflictKind::GenerationReused => CaseReason::GenerationReused,
        }
    }
}
