//! The catalogue of shortcuts: misreadings of the contract a learner (or an implementation)
//! takes, each a real variant of one rule of [`Case`](super::Case), and the [`Reading`] a case
//! is replayed under (the contract itself, or one shortcut).
//!
//! Each shortcut changes only what its sentence says, everywhere that rule applies, the final
//! judgement at `as_of` included; the rule it bends is written beside the contract's in
//! `case.rs`, where a `reading.takes(Shortcut::…)` names it. The contract's engine is
//! [`Case<Contract>`](super::Case): [`Contract::takes`] is `false` at compile time, so the
//! contract's code is what it was before the catalogue (no branch is left in it).

use std::fmt;
use std::hash::Hash;

/// How a case's rows are read: the contract ([`Contract`]), one [`Shortcut`], or either
/// chosen at run time (`Option<Shortcut>`, `None` for the contract).
pub trait Reading: Copy + fmt::Debug + Eq + Hash + Send + Sync + 'static {
    /// Whether this reading takes `shortcut`.
    fn takes(self, shortcut: Shortcut) -> bool;

    /// The shortcut this reading takes, if any.
    fn shortcut(self) -> Option<Shortcut>;
}

/// The contract, read literally: the engine every command judges with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Contract;

impl Reading for Contract {
    #[inline(always)]
    fn takes(self, _: Shortcut) -> bool {
        false
    }

    #[inline(always)]
    fn shortcut(self) -> Option<Shortcut> {
        None
    }
}

impl Reading for Shortcut {
    #[inline]
    fn takes(self, shortcut: Shortcut) -> bool {
        self == shortcut
    }

    fn shortcut(self) -> Option<Shortcut> {
        Some(self)
    }
}

impl Reading for Option<Shortcut> {
    #[inline]
    fn takes(self, shortcut: Shortcut) -> bool {
        self == Some(shortcut)
    }

    fn shortcut(self) -> Option<Shortcut> {
        self
    }
}

macro_rules! catalogue {
    (
        $(
            $(#[$meta:meta])*
            $variant:ident => $name:literal, $section:literal, $summary:literal, $as_if:literal;
        )+
    ) => {
        /// A misreading of the contract: a real variant of one of its rules (see the module).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Shortcut {
            $( $(#[$meta])* $variant, )+
        }

        impl Shortcut {
            /// Every shortcut, in the catalogue's order (the twelve first).
            pub const ALL: &'static [Shortcut] = &[$(Shortcut::$variant),+];

            /// Its name, as `leasejudge shortcuts` reports it.
            pub fn name(self) -> &'static str {
                match self { $( Shortcut::$variant => $name, )+ }
            }

            /// The section of the contract it contradicts.
            pub fn section(self) -> &'static str {
                match self { $( Shortcut::$variant => $section, )+ }
            }

            /// What it does, in one sentence.
            pub fn summary(self) -> &'static str {
                match self { $( Shortcut::$variant => $summary, )+ }
            }

            /// How a learner who takes it answers, ending the class summary's sentence
            /// ("7 of 40 submissions answer as if deadlines were inclusive").
            pub fn as_if(self) -> &'static str {
                match self { $( Shortcut::$variant => $as_if, )+ }
            }
        }
    };
}

catalogue! {
    /// Step 1 treats `ack_deadline` and `expires_at` as inclusive: an instant equal to the
    /// deadline is still in time (`t > deadline` moves the phase), for every row and at
    /// `as_of`.
    InclusiveDeadlines => "inclusive_deadlines", "1 (deadline rule), 4 (step 1)",
        "A message observed exactly at ack_deadline or expires_at is still in time: only t > deadline moves the phase.",
        "as if deadlines were inclusive";
    /// A row's time `t` is its `sent_at` when it gives one, in step 1 and in every rule that
    /// uses `t` (a renewal's `renew_time` and expiry, `cancel_requested`, `cancel_ack`), on
    /// any row that gives one; `as_of` stays the last `observed_at`, and `observed_at` still
    /// orders the rows. An offer's terms are not `t`: its `issued_at` defaults to its
    /// `observed_at` (section 2, the input's own rule).
    WorkerClock => "worker_clock", "1 (coordinator clock)",
        "A row's time is the worker's sent_at when it gives one, for the clock step and every rule that uses the time.",
        "as if the worker's sent_at were the time";
    /// Step 1 never moves `ACTIVE` to `EXPIRED`, at any row or at `as_of`; the ack deadline
    /// still applies.
    AckedNeverExpires => "acked_never_expires", "4 (step 1)",
        "An acknowledged lease never expires; only the ack deadline is enforced.",
        "as if an acknowledged lease never expired";
    /// An accepted progress also sets `expires_at = t + lease_duration` (the renewal's
    /// sequence and time are not touched).
    ProgressRenews => "progress_renews", "4.2 (progress)",
        "An accepted progress also extends the lease: expires_at = t + lease_duration.",
        "as if progress renewed the lease";
    /// A `renew` whose generation is below the current one passes the identity check as if it
    /// carried the current generation, lease and holder (no stale finding), in every phase;
    /// then the renew rule applies. Other events of an old generation stay stale.
    OldGenerationRenews => "old_generation_renews", "4.1 (identity check)",
        "A renew from an older generation is taken as the current generation's: no stale finding, the renew rule applies.",
        "as if an older generation's renew were the current one's";
    /// In `ACTIVE` with no cancel, a progress sequence below the last accepted is accepted:
    /// `ACCEPTED progress_accepted`, sequence and value become the row's, nothing late.
    ProgressMovesBackward => "progress_moves_backward", "4.2 (progress)",
        "A progress sequence below the last accepted one is accepted and replaces it; nothing is late.",
        "as if progress could move backward";
    /// Progress in `ACTIVE` with a cancel requested is judged by the no-cancel rules: above
    /// the last accepted it is accepted, equal a duplicate, below out of order (late).
    LateProgressResumes => "late_progress_resumes", "4.2 (progress)",
        "Progress after a cancel request is judged as if no cancel had been requested.",
        "as if a cancel request did not change how progress is judged";
    /// In `TERMINAL`, a different result is `ACCEPTED result_accepted` and replaces the
    /// result (`CANCELLED` too, whether or not a cancel was requested: the `TERMINAL` rules
    /// come before the cancel check).
    LastResultWins => "last_result_wins", "4.2 (result)",
        "A different result after the first is accepted and replaces it.",
        "as if a later result replaced the first";
    /// In `ACTIVE`, a renew whose sequence equals the last accepted one is `ACCEPTED
    /// renewed`: `renew_time = t`, `expires_at = t + lease_duration`.
    DuplicateRenewExtends => "duplicate_renew_extends", "4.2 (renew)",
        "A renew repeating the last accepted sequence is accepted and extends the lease from its own time.",
        "as if a repeated renew extended the lease";
    /// Step 2 is skipped: rows after a conflict are applied as if there were none; the
    /// conflict and its first reason stay (a later conflicting row is `CONFLICT` with its own
    /// row reason, and a conflicting offer still does not become current).
    ConflictNotFrozen => "conflict_not_frozen", "4 (step 2)",
        "Rows after an ownership conflict are still applied; the conflict and its first reason stay.",
        "as if a conflict did not freeze the case";
    /// An ack in `ACK_TIMEOUT` is accepted as in `OFFERED`: `ACCEPTED acked`, phase
    /// `ACTIVE`, ack state `ACKED` (the offer's `expires_at` stands).
    LateAckAccepted => "late_ack_accepted", "4.2 (ack)",
        "An ack after the ack deadline is accepted as if it were in time.",
        "as if a late ack were in time";
    /// A renew in `EXPIRED` is judged as in `ACTIVE`: above the last accepted sequence it is
    /// `ACCEPTED renewed` and makes the phase `ACTIVE` again; equal is `DUPLICATE
    /// duplicate_renew`, below `REJECTED renew_out_of_order` (neither revives the lease nor
    /// sets the expiry-rejection flag).
    ExpiredLeaseRenews => "expired_lease_renews", "4.2 (renew)",
        "A renew after expiry is judged as in ACTIVE, and an accepted one revives the lease.",
        "as if a renew could revive an expired lease";
    /// A higher generation offered while the current one is `ACTIVE` or `OFFERED` with a
    /// cancel requested is `ACCEPTED reassigned`, as if the cancel request had ended the
    /// current holder's authority (the contract: "cancel requested or not" →
    /// `overlapping_generations`).
    CancelEndsAuthority => "cancel_ends_authority", "4.2 (offer)",
        "A cancel request ends the holder's authority: a new generation offered after it is reassigned, not overlapping.",
        "as if a cancel request ended the holder's authority";
    /// In `ACTIVE` with no cancel requested, a `CANCELLED` result is `ACCEPTED
    /// result_accepted` (the contract: "a worker cannot claim a cancellation the coordinator
    /// never asked for").
    UnrequestedCancelAccepted => "unrequested_cancel_accepted", "4.2 (result)",
        "A CANCELLED result is accepted although no cancel was requested.",
        "as if a worker could cancel without being asked";
    /// A repeated offer's given `expires_at` is compared with the current `expires_at`, which
    /// renewals move, instead of the offer's as issued (the contract: "renewals do not
    /// count").
    RenewalChangesOffer => "renewal_changes_offer", "4.2 (offer)",
        "A re-sent offer is compared with the expiry as renewed, so after a renewal an unchanged offer is a reused generation.",
        "as if renewals changed the offer's expiry";
}

impl Shortcut {
    /// The shortcut called `name`.
    pub fn from_name(name: &str) -> Option<Shortcut> {
        Shortcut::ALL.iter().copied().find(|s| s.name() == name)
    }
}

impl fmt::Display for Shortcut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
