//! Case-file columns: header normalisation, aliases, and turning one row's cells into a typed
//! [`Row`](crate::lease::Row) with every problem located.

use crate::lease::values::{parse_integer, parse_sequence};
use crate::lease::{
    Event, GivenTerms, Identity, Message, Offer, OfferTerms, Row, Seconds, TerminalResult,
    TermsError, Timestamp, ValueError,
};

use super::error::InputError;

/// A recognised case-file field (spec section 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// `case_id`
    CaseId,
    /// `event` [`message`, `kind`]
    Event,
    /// `observed_at`
    ObservedAt,
    /// `job_id`
    JobId,
    /// `lease_id`
    LeaseId,
    /// `generation` [`lease_generation`]
    Generation,
    /// `holder` [`holder_identity`]
    Holder,
    /// `issued_at`
    IssuedAt,
    /// `lease_duration`
    LeaseDuration,
    /// `expires_at`
    ExpiresAt,
    /// `ack_deadline`
    AckDeadline,
    /// `renew_seq` [`renew_sequence`]
    RenewSeq,
    /// `progress_seq` [`progress_sequence`]
    ProgressSeq,
    /// `progress_value`
    ProgressValue,
    /// `result` [`terminal_result`]
    Result,
    /// `sent_at`
    SentAt,
}

/// How many fields there are.
pub const FIELD_COUNT: usize = 16;

impl Field {
    /// Every field, in the order of spec section 2's table.
    pub const ALL: [Field; FIELD_COUNT] = [
        Field::CaseId,
        Field::Event,
        Field::ObservedAt,
        Field::JobId,
        Field::LeaseId,
        Field::Generation,
        Field::Holder,
        Field::IssuedAt,
        Field::LeaseDuration,
        Field::ExpiresAt,
        Field::AckDeadline,
        Field::RenewSeq,
        Field::ProgressSeq,
        Field::ProgressValue,
        Field::Result,
        Field::SentAt,
    ];

    /// The field's canonical column name.
    pub fn name(self) -> &'static str {
        match self {
            Field::CaseId => "case_id",
            Field::Event => "event",
            Field::ObservedAt => "observed_at",
            Field::JobId => "job_id",
            Field::LeaseId => "lease_id",
            Field::Generation => "generation",
            Field::Holder => "holder",
            Field::IssuedAt => "issued_at",
            Field::LeaseDuration => "lease_duration",
            Field::ExpiresAt => "expires_at",
            Field::AckDeadline => "ack_deadline",
            Field::RenewSeq => "renew_seq",
            Field::ProgressSeq => "progress_seq",
            Field::ProgressValue => "progress_value",
            Field::Result => "result",
            Field::SentAt => "sent_at",
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    /// The field a normalised header names, by canonical name or alias.
    pub fn from_normalised(name: &str) -> Option<Field> {
        Some(match name {
            "case_id" => Field::CaseId,
            "event" | "message" | "kind" => Field::Event,
            "observed_at" => Field::ObservedAt,
            "job_id" => Field::JobId,
            "lease_id" => Field::LeaseId,
            "generation" | "lease_generation" => Field::Generation,
            "holder" | "holder_identity" => Field::Holder,
            "issued_at" => Field::IssuedAt,
            "lease_duration" => Field::LeaseDuration,
            "expires_at" => Field::ExpiresAt,
            "ack_deadline" => Field::AckDeadline,
            "renew_seq" | "renew_sequence" => Field::RenewSeq,
            "progress_seq" | "progress_sequence" => Field::ProgressSeq,
            "progress_value" => Field::ProgressValue,
            "result" | "terminal_result" => Field::Result,
            "sent_at" => Field::SentAt,
            _ => return None,
        })
    }
}

/// Normalises a header name: trimmed, lower case, with spaces, `-` and `/` as `_`.
pub fn normalise_header(name: &str) -> String {
    name.trim()
        .chars()
        .map(|c| match c {
            ' ' | '-' | '/' => '_',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// The output-only matrix columns (spec section 5) that are ignored on input.
pub const OUTPUT_ONLY_COLUMNS: &[&str] = &[
    "ack_state",
    "renew_time",
    "cancel_requested",
    "cancel_ack",
    "stale_generation",
    "late_progress",
    "lease_expired",
    "ownership_conflict",
    "decision",
    "reason",
];

/// Where each recognised field is in a row: built once per header.
#[derive(Clone, Debug, Default)]
pub struct FieldMap<K> {
    slots: [Option<K>; FIELD_COUNT],
}

/// The outcome of mapping one column name.
pub enum Mapped {
    /// The column names this field.
    Field(Field),
    /// Unknown or output-only: ignored.
    Ignored,
}

impl<K: Clone> FieldMap<K> {
    /// An empty map.
    pub fn new() -> FieldMap<K> {
        FieldMap {
            slots: std::array::from_fn(|_| None),
        }
    }

    /// Records that `key` holds the column called `raw_name`. Returns the field's earlier key
    /// if another column already names the same field (an input error for the caller).
    pub fn insert(&mut self, raw_name: &str, key: K) -> Result<Mapped, (Field, K)> {
        let Some(field) = Field::from_normalised(&normalise_header(raw_name)) else {
            return Ok(Mapped::Ignored);
        };
        let slot = &mut self.slots[field.index()];
        if let Some(previous) = slot {
            return Err((field, previous.clone()));
        }
        *slot = Some(key);
        Ok(Mapped::Field(field))
    }

    /// The key of a field's column, if the input has one.
    pub fn get(&self, field: Field) -> Option<&K> {
        self.slots[field.index()].as_ref()
    }
}

/// One row's raw cells, indexed by field: `None` where the row has no such column or cell.
pub type RawCells<'a> = [Option<&'a str>; FIELD_COUNT];

/// A typed row with its case id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedRow {
    /// The case the row belongs to.
    pub case_id: String,
    /// The typed row.
    pub row: Row,
}

/// A row read from a case file: typed, or invalid (its errors already reported) with the
/// case id it gives, if any.
pub type RowResult = Result<ParsedRow, Option<String>>;

/// Parses one row's cells. Every problem of the row is pushed to `errors` (each made by
/// `locate`); if there was any, the result is `Err` with the row's case id, if it has one.
pub fn parse_row(
    cells: &RawCells<'_>,
    errors: &mut Vec<InputError>,
    locate: &dyn Fn(Option<Field>, String, Option<&str>) -> InputError,
) -> RowResult {
    let case_id_text = cells[Field::CaseId.index()]
        .map(str::trim)
        .filter(|id| !id.is_empty());
    parse_typed(cells, errors, locate).ok_or_else(|| case_id_text.map(str::to_owned))
}

fn parse_typed(
    cells: &RawCells<'_>,
    errors: &mut Vec<InputError>,
    locate: &dyn Fn(Option<Field>, String, Option<&str>) -> InputError,
) -> Option<ParsedRow> {
    let before = errors.len();
    let text = |field: Field| -> Option<&str> {
        let raw = cells[field.index()]?;
        let value = if field == Field::ProgressValue {
            raw
        } else {
            raw.trim()
        };
        (!value.trim().is_empty()).then_some(value)
    };
    let mut typed = |field: Field, parse: &dyn Fn(&str) -> Result<(), ValueError>| {
        if let Some(value) = text(field) {
            if let Err(e) = parse(value) {
                errors.push(locate(Some(field), e.0, Some(value)));
            }
        }
    };
    // Type-check every recognised field the row gives, whatever its event.
    for field in [
        Field::ObservedAt,
        Field::IssuedAt,
        Field::ExpiresAt,
        Field::AckDeadline,
        Field::SentAt,
    ] {
        typed(field, &|v| Timestamp::parse(v).map(drop));
    }
    typed(Field::Generation, &|v| parse_integer(v).map(drop));
    typed(Field::LeaseDuration, &|v| Seconds::parse(v).map(drop));
    typed(Field::RenewSeq, &|v| parse_sequence(v).map(drop));
    typed(Field::ProgressSeq, &|v| parse_sequence(v).map(drop));
    typed(Field::Result, &|v| {
        TerminalResult::parse(v).map(drop).ok_or_else(|| {
            ValueError("unknown result (expected SUCCESS, FAILED or CANCELLED)".into())
        })
    });
    typed(Field::Event, &|v| {
        Event::parse(v).map(drop).ok_or_else(|| {
            ValueError(
                "unknown event (expected offer, ack, renew, progress, cancel_request, \
                 cancel_ack, result or observe)"
                    .into(),
            )
        })
    });

    let mut require = |field: Field, why: &str| -> Option<&str> {
        let value = text(field);
        if value.is_none() {
            errors.push(locate(
                Some(field),
                format!("missing, required {why}"),
                None,
            ));
        }
        value
    };
    let case_id = require(Field::CaseId, "on every row");
    let event_text = require(Field::Event, "on every row");
    let observed_text = require(Field::ObservedAt, "on every row");
    let event = event_text.and_then(Event::parse);

    let timestamp = |field: Field| text(field).and_then(|v| Timestamp::parse(v).ok());
    let sequence = |field: Field| text(field).and_then(|v| parse_sequence(v).ok());

    let needs_identity = event.is_some_and(|e| e == Event::Offer || e.is_worker_message());
    let identity = if needs_identity {
        let why = format!("on {}", event.expect("checked"));
        let lease_id = require(Field::LeaseId, &why);
        let generation = require(Field::Generation, &why);
        let holder = require(Field::Holder, &why);
        match (lease_id, generation.map(parse_integer), holder) {
            (Some(lease_id), Some(Ok(generation)), Some(holder)) => Some(Identity {
                lease_id: lease_id.to_owned(),
                generation,
                holder: holder.to_owned(),
            }),
            _ => None,
        }
    } else {
        None
    };

    let message = match event {
        None => None,
        Some(Event::Offer) => {
            let duration = require(Field::LeaseDuration, "on offer");
            let given = GivenTerms {
                issued_at: timestamp(Field::IssuedAt),
                expires_at: timestamp(Field::ExpiresAt),
                ack_deadline: timestamp(Field::AckDeadline),
            };
            let observed_at = observed_text.and_then(|v| Timestamp::parse(v).ok());
            // Resolve the terms only from values that parsed, so one bad cell is one error.
            let timing_parsed = [
                (Field::IssuedAt, given.issued_at),
                (Field::ExpiresAt, given.expires_at),
                (Field::AckDeadline, given.ack_deadline),
            ]
            .iter()
            .all(|(field, parsed)| text(*field).is_none() || parsed.is_some());
            match (identity, duration.map(Seconds::parse), observed_at) {
                (Some(identity), Some(Ok(duration)), Some(observed_at)) if timing_parsed => {
                    match OfferTerms::resolve(observed_at, &given, duration) {
                        Ok(terms) => Some(Message::Offer(Offer {
                            identity,
                            terms,
                            given,
                        })),
                        Err(e) => {
                            errors.push(terms_error(
                                e,
                                text(Field::LeaseDuration),
                                text(Field::ExpiresAt),
                                text(Field::AckDeadline),
                                locate,
                            ));
                            None
                        }
                    }
                }
                _ => None,
            }
        }
        Some(Event::Ack) => identity.map(Message::Ack),
        Some(Event::CancelAck) => identity.map(Message::CancelAck),
        Some(Event::Renew) => {
            let seq = require(Field::RenewSeq, "on renew").and(sequence(Field::RenewSeq));
            identity
                .zip(seq)
                .map(|(identity, renew_seq)| Message::Renew {
                    identity,
                    renew_seq,
                })
        }
        Some(Event::Progress) => {
            let seq = require(Field::ProgressSeq, "on progress").and(sequence(Field::ProgressSeq));
            identity
                .zip(seq)
                .map(|(identity, progress_seq)| Message::Progress {
                    identity,
                    progress_seq,
                    progress_value: text(Field::ProgressValue).map(str::to_owned),
                })
        }
        Some(Event::Result) => {
            let result = require(Field::Result, "on result").and_then(TerminalResult::parse);
            identity
                .zip(result)
                .map(|(identity, result)| Message::Result { identity, result })
        }
        Some(Event::CancelRequest) => Some(Message::CancelRequest),
        Some(Event::Observe) => Some(Message::Observe),
    };

    if errors.len() != before {
        return None;
    }
    let observed_at = Timestamp::parse(observed_text?).ok()?;
    Some(ParsedRow {
        case_id: case_id?.to_owned(),
        row: Row {
            observed_at,
            job_id: text(Field::JobId).map(str::to_owned),
            sent_at: timestamp(Field::SentAt),
            message: message?,
        },
    })
}

fn terms_error(
    error: TermsError,
    duration_text: Option<&str>,
    expires_at_text: Option<&str>,
    ack_deadline_text: Option<&str>,
    locate: &dyn Fn(Option<Field>, String, Option<&str>) -> InputError,
) -> InputError {
    match error {
        TermsError::ExpiryOutOfRange(e) => locate(
            Some(Field::LeaseDuration),
            format!("expires_at (issued_at + lease_duration) is {e}"),
            duration_text,
        ),
        TermsError::ExpiresAtMismatch(computed) => locate(
            Some(Field::ExpiresAt),
            format!("must equal issued_at + lease_duration = {computed}"),
            expires_at_text,
        ),
        TermsError::AckDeadlineOutOfRange {
            issued_at,
            expires_at,
        } => locate(
            Some(Field::AckDeadline),
            format!("must lie between issued_at ({issued_at}) and expires_at ({expires_at})"),
            ack_deadline_text,
        ),
    }
}
