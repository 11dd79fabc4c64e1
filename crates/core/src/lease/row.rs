//! A typed case-file row: one message the coordinator observed, already checked for types
//! and required fields by the input layer.

use compact_str::CompactString;

use super::types::{Event, TerminalResult};
use super::values::{Seconds, Timestamp, ValueError};

/// Who a worker message (or an offer) claims to be: the lease, its generation and holder.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Identity {
    /// The lease id.
    pub lease_id: CompactString,
    /// The lease generation.
    pub generation: u64,
    /// The holder identity.
    pub holder: CompactString,
}

/// The timing terms of an offer, with the contract's defaults resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OfferTerms {
    /// When the lease was issued (default: the offer's `observed_at`).
    pub issued_at: Timestamp,
    /// How long the lease lasts from issue, or from each accepted renewal.
    pub lease_duration: Seconds,
    /// `issued_at + lease_duration`.
    pub expires_at: Timestamp,
    /// The ack deadline (default: `expires_at`).
    pub ack_deadline: Timestamp,
}

/// Which offer term failed to resolve, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TermsError {
    /// `issued_at + lease_duration` leaves years 0001 to 9999.
    ExpiryOutOfRange(ValueError),
    /// A given `expires_at` is not `issued_at + lease_duration` (the computed value).
    ExpiresAtMismatch(Timestamp),
    /// The ack deadline is before `issued_at` or after `expires_at`.
    AckDeadlineOutOfRange {
        /// The offer's `issued_at`.
        issued_at: Timestamp,
        /// The offer's `expires_at`.
        expires_at: Timestamp,
    },
}

impl OfferTerms {
    /// Resolves an offer's terms from what the row gives, applying the contract's defaults
    /// and consistency rules (spec section 2).
    pub fn resolve(
        observed_at: Timestamp,
        given: &GivenTerms,
        lease_duration: Seconds,
    ) -> Result<OfferTerms, TermsError> {
        let issued_at = given.issued_at.unwrap_or(observed_at);
        let expires_at = issued_at
            .checked_add(lease_duration)
            .map_err(TermsError::ExpiryOutOfRange)?;
        if let Some(given_expiry) = given.expires_at {
            if given_expiry != expires_at {
                return Err(TermsError::ExpiresAtMismatch(expires_at));
            }
        }
        let ack_deadline = given.ack_deadline.unwrap_or(expires_at);
        if ack_deadline < issued_at || ack_deadline > expires_at {
            return Err(TermsError::AckDeadlineOutOfRange {
                issued_at,
                expires_at,
            });
        }
        Ok(OfferTerms {
            issued_at,
            lease_duration,
            expires_at,
            ack_deadline,
        })
    }
}

/// The optional timing fields exactly as an offer row gives them (compared for duplicates).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GivenTerms {
    /// `issued_at`, if the row gives it.
    pub issued_at: Option<Timestamp>,
    /// `expires_at`, if the row gives it.
    pub expires_at: Option<Timestamp>,
    /// `ack_deadline`, if the row gives it.
    pub ack_deadline: Option<Timestamp>,
}

/// An offer: a lease generation issued to a holder.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Offer {
    /// The lease, generation and holder offered.
    pub identity: Identity,
    /// The resolved terms.
    pub terms: OfferTerms,
    /// The timing fields the row itself gave.
    pub given: GivenTerms,
}

/// What a row says, with the fields its event requires.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Message {
    /// `offer`: issue (or re-issue) a generation.
    Offer(Offer),
    /// `ack`: the holder accepts the offer.
    Ack(Identity),
    /// `renew` with its `renew_seq`.
    Renew {
        /// Who sends it.
        identity: Identity,
        /// The renewal's sequence number (at least 1).
        renew_seq: u64,
    },
    /// `progress` with its `progress_seq` and verbatim value.
    Progress {
        /// Who sends it.
        identity: Identity,
        /// The progress sequence number (at least 1).
        progress_seq: u64,
        /// The progress value, verbatim (`None` when the cell is empty).
        progress_value: Option<CompactString>,
    },
    /// `cancel_request` from the coordinator (no identity).
    CancelRequest,
    /// `cancel_ack`: the holder acknowledges a cancel request.
    CancelAck(Identity),
    /// `result`: a terminal result.
    Result {
        /// Who sends it.
        identity: Identity,
        /// The result.
        result: TerminalResult,
    },
    /// `observe`: a clock reading.
    Observe,
}

impl Message {
    /// The event this message is.
    pub fn event(&self) -> Event {
        match self {
            Message::Offer(_) => Event::Offer,
            Message::Ack(_) => Event::Ack,
            Message::Renew { .. } => Event::Renew,
            Message::Progress { .. } => Event::Progress,
            Message::CancelRequest => Event::CancelRequest,
            Message::CancelAck(_) => Event::CancelAck,
            Message::Result { .. } => Event::Result,
            Message::Observe => Event::Observe,
        }
    }

    /// The identity the message claims, for offers and worker messages.
    pub fn identity(&self) -> Option<&Identity> {
        match self {
            Message::Offer(offer) => Some(&offer.identity),
            Message::Ack(identity)
            | Message::CancelAck(identity)
            | Message::Renew { identity, .. }
            | Message::Progress { identity, .. }
            | Message::Result { identity, .. } => Some(identity),
            Message::CancelRequest | Message::Observe => None,
        }
    }
}

/// One row of a case: when the coordinator observed it, and what it says.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Row {
    /// The coordinator's clock when the row was observed.
    pub observed_at: Timestamp,
    /// The job id, if the row gives one.
    pub job_id: Option<CompactString>,
    /// The worker's own send time: kept for the audit trail, never used for a decision.
    pub sent_at: Option<Timestamp>,
    /// The message.
    pub message: Message,
}
