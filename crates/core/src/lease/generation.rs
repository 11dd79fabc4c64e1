//! The current generation's record (spec section 3, the fields *per generation*): its
//! contract, phase, ack state, last renewal and progress, cancellation and expiry rejections,
//! and the rules that read only it: the clock step, a repeated offer, a renewal in `ACTIVE`.

use compact_str::CompactString;

use super::row::{Identity, Offer};
use super::shortcut::{Reading, Shortcut};
use super::types::{AckState, Disposition, Phase, RowReason};
use super::values::{Timestamp, ValueError};

/// What the clock step (spec section 4, step 1) did before a row was applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClockEffect {
    /// The ack deadline passed with no ack: `OFFERED` became `ACK_TIMEOUT`, ack `MISSING`.
    AckTimedOut,
    /// The lease reached `expires_at`: `ACTIVE` became `EXPIRED`.
    Expired,
}

/// The last accepted renewal of a generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Renewal {
    /// Its `renew_seq`.
    pub renew_seq: u64,
    /// When it was observed (`renew_time`).
    pub renew_time: Timestamp,
}

/// The last accepted progress of a generation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Progress {
    /// Its `progress_seq`.
    pub progress_seq: u64,
    /// Its value, verbatim.
    pub progress_value: Option<CompactString>,
}

/// The current generation's record: every *per generation* field of spec section 3.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Lease {
    /// The accepted offer, as issued (renewals do not change it).
    pub offer: Offer,
    /// When authority ends: the offer's, or the last accepted renewal's time plus the duration.
    pub expires_at: Timestamp,
    /// Where the generation stands.
    pub phase: Phase,
    /// Whether the offer was acknowledged.
    pub ack_state: AckState,
    /// The last accepted renewal.
    pub renewal: Option<Renewal>,
    /// The last accepted progress.
    pub progress: Option<Progress>,
    /// When a cancel was requested.
    pub cancel_requested: Option<Timestamp>,
    /// When the holder acknowledged the cancel.
    pub cancel_ack: Option<Timestamp>,
    /// A result of this generation was rejected for arriving after expiry.
    pub result_rejected_for_expiry: bool,
    /// A renew of this generation was rejected for arriving after expiry.
    pub renew_rejected_for_expiry: bool,
}

impl Lease {
    pub(super) fn new(offer: Offer) -> Lease {
        Lease {
            expires_at: offer.terms.expires_at,
            offer,
            phase: Phase::Offered,
            ack_state: AckState::Pending,
            renewal: None,
            progress: None,
            cancel_requested: None,
            cancel_ack: None,
            result_rejected_for_expiry: false,
            renew_rejected_for_expiry: false,
        }
    }

    /// Makes this the record [`Lease::new`] would make of `offer`, reusing its strings.
    pub(super) fn reset(&mut self, offer: &Offer) {
        // Every field named, so that a new one cannot be forgotten here.
        let Lease {
            offer: current,
            expires_at,
            phase,
            ack_state,
            renewal,
            progress,
            cancel_requested,
            cancel_ack,
            result_rejected_for_expiry,
            renew_rejected_for_expiry,
        } = self;
        let Offer {
            identity,
            terms,
            given,
        } = current;
        let Identity {
            lease_id,
            generation,
            holder,
        } = identity;
        lease_id.clone_from(&offer.identity.lease_id);
        *generation = offer.identity.generation;
        holder.clone_from(&offer.identity.holder);
        *terms = offer.terms;
        *given = offer.given;
        *expires_at = offer.terms.expires_at;
        *phase = Phase::Offered;
        *ack_state = AckState::Pending;
        *renewal = None;
        *progress = None;
        *cancel_requested = None;
        *cancel_ack = None;
        *result_rejected_for_expiry = false;
        *renew_rejected_for_expiry = false;
    }

    /// The generation's identity.
    pub fn identity(&self) -> &Identity {
        &self.offer.identity
    }

    /// Step 1: lets the clock reach `now`.
    pub(super) fn advance_clock(
        &mut self,
        now: Timestamp,
        reading: impl Reading,
    ) -> Option<ClockEffect> {
        let (phase, ack_state, effect) = self.clock_at(now, reading);
        self.phase = phase;
        self.ack_state = ack_state;
        effect
    }

    /// What step 1 at `now` would make of the phase and the ack state, and its effect.
    #[inline]
    pub(super) fn clock_at(
        &self,
        now: Timestamp,
        reading: impl Reading,
    ) -> (Phase, AckState, Option<ClockEffect>) {
        // Every deadline is exclusive: reached at the instant itself (spec section 1).
        let reached = |deadline: Timestamp| {
            if reading.takes(Shortcut::InclusiveDeadlines) {
                now > deadline
            } else {
                now >= deadline
            }
        };
        match self.phase {
            Phase::Offered if reached(self.offer.terms.ack_deadline) => (
                Phase::AckTimeout,
                AckState::Missing,
                Some(ClockEffect::AckTimedOut),
            ),
            Phase::Active
                if reached(self.expires_at) && !reading.takes(Shortcut::AckedNeverExpires) =>
            {
                (Phase::Expired, self.ack_state, Some(ClockEffect::Expired))
            }
            phase => (phase, self.ack_state, None),
        }
    }

    /// Whether `offer` repeats this generation's accepted offer (spec 4.2, `offer`, same
    /// generation): identity and duration equal, and each time the row gives equal to the
    /// accepted offer's.
    pub(super) fn is_repeated_by(&self, offer: &Offer, reading: impl Reading) -> bool {
        let accepted = &self.offer;
        let same_if_given =
            |given: Option<Timestamp>, issued: Timestamp| given.is_none_or(|value| value == issued);
        // Renewals do not count: the offer as issued, not the expiry they moved.
        let expires_at = if reading.takes(Shortcut::RenewalChangesOffer) {
            self.expires_at
        } else {
            accepted.terms.expires_at
        };
        accepted.identity == offer.identity
            && accepted.terms.lease_duration == offer.terms.lease_duration
            && same_if_given(offer.given.issued_at, accepted.terms.issued_at)
            && same_if_given(offer.given.expires_at, expires_at)
            && same_if_given(offer.given.ack_deadline, accepted.terms.ack_deadline)
    }

    /// Spec 4.2, `renew` with `renew_seq` in `ACTIVE` (cancel requested or not), at `now`.
    #[inline]
    pub(super) fn renew_active(
        &mut self,
        renew_seq: u64,
        now: Timestamp,
        reading: impl Reading,
    ) -> Result<(Disposition, RowReason), ValueError> {
        let last = self.renewal.map_or(0, |r| r.renew_seq);
        let repeats = renew_seq == last;
        if renew_seq > last || (repeats && reading.takes(Shortcut::DuplicateRenewExtends)) {
            self.expires_at = now.checked_add(self.offer.terms.lease_duration)?;
            self.renewal = Some(Renewal {
                renew_seq,
                renew_time: now,
            });
            Ok((Disposition::Accepted, RowReason::Renewed))
        } else if repeats {
            Ok((Disposition::Duplicate, RowReason::DuplicateRenew))
        } else {
            Ok((Disposition::Rejected, RowReason::RenewOutOfOrder))
        }
    }
}
