//! Case-file columns: header normalisation, aliases, and turning one row's cells into a typed
//! [`Row`](crate::lease::Row) with every problem located.

use crate::lease::values::{parse_integer, parse_sequence, same_text};
use crate::lease::{
    CompactString, Event, GivenTerms, Identity, Message, Offer, OfferTerms, Row, Seconds,
    TerminalResult, TermsError, Timestamp, ValueError,
};
use crate::matrix::Column;

use super::error::{ErrorKind, InputError, InputErrors};

/// A recognised case-file field (spec section 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// `case_id`
    CaseId,
    /// `event`, aliases `message`, `kind`
    Event,
    /// `observed_at`
    ObservedAt,
    /// `job_id`
    JobId,
    /// `lease_id`
    LeaseId,
    /// `generation`, alias `lease_generation`
    Generation,
    /// `holder`, alias `holder_identity`
    Holder,
    /// `issued_at`
    IssuedAt,
    /// `lease_duration`
    LeaseDuration,
    /// `expires_at`
    ExpiresAt,
    /// `ack_deadline`
    AckDeadline,
    /// `renew_seq`, alias `renew_sequence`
    RenewSeq,
    /// `progress_seq`, alias `progress_sequence`
    ProgressSeq,
    /// `progress_value`
    ProgressValue,
    /// `result`, alias `terminal_result`
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

/// Whether a matrix column (spec section 5) is output-only: what the engine derives, which a
/// case file does not carry and which is ignored on input.
pub const fn output_only(column: Column) -> bool {
    match column {
        Column::AckState
        | Column::RenewTime
        | Column::CancelRequested
        | Column::CancelAck
        | Column::StaleGeneration
        | Column::LateProgress
        | Column::LeaseExpired
        | Column::OwnershipConflict
        | Column::Decision
        | Column::Reason => true,
        Column::CaseId
        | Column::JobId
        | Column::LeaseId
        | Column::Generation
        | Column::HolderIdentity
        | Column::IssuedAt
        | Column::LeaseDuration
        | Column::ExpiresAt
        | Column::AckDeadline
        | Column::RenewSequence
        | Column::ProgressSequence
        | Column::ProgressValue
        | Column::TerminalResult => false,
    }
}

/// Whether a normalised header names an output-only matrix column ([`output_only`]).
pub fn names_output_only(name: &str) -> bool {
    Column::from_name(name).is_some_and(output_only)
}

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

/// One row's cells, indexed by field, as [`cell_text`] gives them: trimmed (except
/// `progress_value`), `None` where the row has no such column or the cell is empty.
pub type RawCells<'a> = [Option<&'a str>; FIELD_COUNT];

/// A cell's text as the parser reads it: trimmed of surrounding whitespace, except
/// `progress_value`, which is kept verbatim (only a truly empty cell means "no value"); `None`
/// when nothing is left. Readers apply it as they map cells to fields, one pass over a row.
#[inline]
pub fn cell_text(field: Field, raw: &str) -> Option<&str> {
    let bytes = raw.as_bytes();
    let text = match (bytes.first(), bytes.last()) {
        // About half the cells of a typical row.
        (None, _) => return None,
        // Most cells have nothing to trim; an ASCII graphic character at both ends proves it
        // (and `progress_value` is kept as it is anyway).
        (Some(first), Some(last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => {
            return Some(raw)
        }
        _ if field == Field::ProgressValue => raw,
        _ => raw.trim(),
    };
    (!text.is_empty()).then_some(text)
}

/// Makes a located error for the row being parsed: field, message, offending value.
pub type Locate<'a> = dyn Fn(Option<Field>, String, Option<&str>) -> InputError + 'a;

/// A problem with a row's field at `file:line` (a value that does not parse, a required one
/// missing: [`ErrorKind::Value`]), about the field if one is named, quoting a value if one is
/// given.
pub fn located(
    file: &str,
    line: u64,
    field: Option<Field>,
    message: String,
    value: Option<&str>,
) -> InputError {
    let mut error = InputError::new(ErrorKind::Value, file, line, message);
    if let Some(field) = field {
        error = error.column(field.name());
    }
    if let Some(value) = value {
        error = error.value(value);
    }
    error
}

/// A typed row with its case id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedRow {
    /// The case the row belongs to.
    pub case_id: CompactString,
    /// The typed row.
    pub row: Row,
}

/// A row read from a case file: typed, or invalid (its errors already reported) with what it
/// still says validly.
pub type RowResult = Result<ParsedRow, BadRow>;

/// What a row with errors still says validly: enough for the checks that span rows, so that
/// a row with a bad `result` and a `job_id` differing from its case's has both reported
/// (spec section 2: every error is listed).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BadRow {
    /// Its case id, if given.
    pub case_id: Option<CompactString>,
    /// Its job id, if given.
    pub job_id: Option<CompactString>,
    /// Its `observed_at`, if given and valid.
    pub observed_at: Option<Timestamp>,
}

/// Parses one row's cells. Every problem of the row is pushed to `errors` (each made by
/// `locate`); if there was any, the result is `Err` with the row's case id, if it has one.
pub fn parse_row(cells: &RawCells<'_>, errors: &mut InputErrors, locate: &Locate<'_>) -> RowResult {
    let mut row = Err(BadRow::default());
    parse_row_into(cells, errors, locate, &mut row);
    row
}

/// [`parse_row`] into the place of a row that is no longer needed: the row is written field
/// by field, and its text is held inline ([`CompactString`]: up to 24 bytes, as ids usually
/// are), so a reader that keeps a batch of rows usually allocates nothing per row.
///
/// Returns whether `slot` held a valid row of the same case before and holds one now, so that
/// whatever the caller worked out from the case id (its hash) still holds.
pub fn parse_row_into(
    cells: &RawCells<'_>,
    errors: &mut InputErrors,
    locate: &Locate<'_>,
    slot: &mut RowResult,
) -> bool {
    match parse_typed(cells, errors, locate, slot) {
        Some(same_case) => same_case,
        None => {
            *slot = Err(BadRow {
                case_id: cells[Field::CaseId.index()].map(CompactString::new),
                job_id: cells[Field::JobId.index()].map(CompactString::new),
                observed_at: cells[Field::ObservedAt.index()]
                    .and_then(|text| Timestamp::parse(text).ok()),
            });
            false
        }
    }
}

/// Parses a row into `slot`: whether it held a valid row of the same case before, or `None`
/// (and `slot` untouched) if the row has errors.
fn parse_typed(
    cells: &RawCells<'_>,
    errors: &mut InputErrors,
    locate: &Locate<'_>,
    slot: &mut RowResult,
) -> Option<bool> {
    let before = errors.len();
    let values = parse_values(cells, errors, locate);

    // Text the matrix carries (spec section 5) that would be a GitHub Actions workflow
    // command wherever the matrix is printed, and that no CSV quoting can make inert
    // (docs/safety.md): refused here, for every command alike.
    for field in TEXT_FIELDS {
        if let Some(value) = cells[field.index()] {
            if let Some(found) = crate::sanitize::workflow_command_in(value) {
                errors.push(locate(Some(field), command_message(found), Some(value)));
            }
        }
    }

    let case_id = require(cells, errors, locate, Field::CaseId, &|| {
        "on every row".into()
    });
    require(cells, errors, locate, Field::Event, &|| {
        "on every row".into()
    });
    require(cells, errors, locate, Field::ObservedAt, &|| {
        "on every row".into()
    });
    let message = message(cells, errors, locate, &values);

    if errors.len() != before {
        return None;
    }
    // One at a time: a tuple of them would copy the message twice more.
    let (Some(case_id), Some(observed_at)) = (case_id, values.observed_at) else {
        return None;
    };
    let message = message?;
    let job_id = cells[Field::JobId.index()].map(CompactString::new);
    // Field by field into a row already there: no copy of the whole row.
    Some(match slot {
        Ok(parsed) => {
            let same_case = same_text(&parsed.case_id, case_id);
            if !same_case {
                parsed.case_id = CompactString::new(case_id);
            }
            parsed.row.observed_at = observed_at;
            parsed.row.job_id = job_id;
            parsed.row.sent_at = values.sent_at;
            parsed.row.message = message;
            same_case
        }
        Err(_) => {
            *slot = Ok(ParsedRow {
                case_id: CompactString::new(case_id),
                row: Row {
                    observed_at,
                    job_id,
                    sent_at: values.sent_at,
                    message,
                },
            });
            false
        }
    })
}

/// Every recognised field a row gives that has a type, whatever its event, each parsed once
/// and kept (`None`: absent, or bad and reported).
struct Values {
    observed_at: Option<Timestamp>,
    issued_at: Option<Timestamp>,
    expires_at: Option<Timestamp>,
    ack_deadline: Option<Timestamp>,
    sent_at: Option<Timestamp>,
    generation: Option<u64>,
    lease_duration: Option<Seconds>,
    renew_seq: Option<u64>,
    progress_seq: Option<u64>,
    result: Option<TerminalResult>,
    event: Option<Event>,
}

/// Type-checks every recognised field the row gives, whatever its event; each bad value is
/// reported. Inlined, as [`checked`] is: most of the calls find no cell, or return at once.
#[inline(always)]
fn parse_values(cells: &RawCells<'_>, errors: &mut InputErrors, locate: &Locate<'_>) -> Values {
    let text = |field: Field| cells[field.index()];
    let mut check_timestamp =
        |field: Field| checked(errors, locate, field, text(field), Timestamp::parse);
    let observed_at = check_timestamp(Field::ObservedAt);
    let issued_at = check_timestamp(Field::IssuedAt);
    let expires_at = check_timestamp(Field::ExpiresAt);
    let ack_deadline = check_timestamp(Field::AckDeadline);
    let sent_at = check_timestamp(Field::SentAt);
    let generation = checked(
        errors,
        locate,
        Field::Generation,
        text(Field::Generation),
        parse_integer,
    );
    let lease_duration = checked(
        errors,
        locate,
        Field::LeaseDuration,
        text(Field::LeaseDuration),
        Seconds::parse,
    );
    let renew_seq = checked(
        errors,
        locate,
        Field::RenewSeq,
        text(Field::RenewSeq),
        parse_sequence,
    );
    let progress_seq = checked(
        errors,
        locate,
        Field::ProgressSeq,
        text(Field::ProgressSeq),
        parse_sequence,
    );
    // Both kept, so that neither is parsed again.
    let result = checked(errors, locate, Field::Result, text(Field::Result), |v| {
        TerminalResult::parse(v).ok_or_else(|| {
            ValueError("unknown result (expected SUCCESS, FAILED or CANCELLED)".into())
        })
    });
    let event = checked(errors, locate, Field::Event, text(Field::Event), |v| {
        parse_event(v).ok_or_else(|| {
            ValueError(
                "unknown event (expected offer, ack, renew, progress, cancel_request, \
                 cancel_ack, result or observe)"
                    .into(),
            )
        })
    });
    Values {
        observed_at,
        issued_at,
        expires_at,
        ack_deadline,
        sent_at,
        generation,
        lease_duration,
        renew_seq,
        progress_seq,
        result,
        event,
    }
}

/// `value` parsed by `parse`, or `None` with its error reported (also `None` when absent).
#[inline(always)]
fn checked<T>(
    errors: &mut InputErrors,
    locate: &Locate<'_>,
    field: Field,
    value: Option<&str>,
    parse: impl Fn(&str) -> Result<T, ValueError>,
) -> Option<T> {
    let value = value?;
    match parse(value) {
        Ok(parsed) => Some(parsed),
        Err(e) => {
            errors.push(locate(Some(field), e.0, Some(value)));
            None
        }
    }
}

/// The text of `field`, or `None` with an error: it is required (`why` says where).
#[inline(always)]
fn require<'c>(
    cells: &RawCells<'c>,
    errors: &mut InputErrors,
    locate: &Locate<'_>,
    field: Field,
    why: &dyn Fn() -> String,
) -> Option<&'c str> {
    let value = cells[field.index()];
    if value.is_none() {
        errors.push(locate(
            Some(field),
            format!("missing, required {}", why()),
            None,
        ));
    }
    value
}

/// The row's message for its event, its required fields reported if missing (`None` when
/// the event or a field it needs is missing or bad).
#[inline(always)]
fn message(
    cells: &RawCells<'_>,
    errors: &mut InputErrors,
    locate: &Locate<'_>,
    values: &Values,
) -> Option<Message> {
    let text = |field: Field| cells[field.index()];
    let event = values.event;
    let needs_identity = event.is_some_and(|e| e == Event::Offer || e.is_worker_message());
    let identity = if needs_identity {
        let why = || format!("on {}", event.expect("checked"));
        let lease_id = require(cells, errors, locate, Field::LeaseId, &why);
        let generation_text = require(cells, errors, locate, Field::Generation, &why);
        let holder = require(cells, errors, locate, Field::Holder, &why);
        match (lease_id, generation_text.and(values.generation), holder) {
            (Some(lease_id), Some(generation), Some(holder)) => Some(Identity {
                lease_id: CompactString::new(lease_id),
                generation,
                holder: CompactString::new(holder),
            }),
            _ => None,
        }
    } else {
        None
    };

    match event? {
        Event::Offer => offer(cells, errors, locate, values, identity),
        Event::Ack => identity.map(Message::Ack),
        Event::CancelAck => identity.map(Message::CancelAck),
        Event::Renew => {
            let seq = require(cells, errors, locate, Field::RenewSeq, &|| {
                "on renew".into()
            })
            .and(values.renew_seq);
            identity
                .zip(seq)
                .map(|(identity, renew_seq)| Message::Renew {
                    identity,
                    renew_seq,
                })
        }
        Event::Progress => {
            let seq = require(cells, errors, locate, Field::ProgressSeq, &|| {
                "on progress".into()
            })
            .and(values.progress_seq);
            identity
                .zip(seq)
                .map(|(identity, progress_seq)| Message::Progress {
                    identity,
                    progress_seq,
                    progress_value: text(Field::ProgressValue).map(CompactString::new),
                })
        }
        Event::Result => {
            let result = require(cells, errors, locate, Field::Result, &|| "on result".into())
                .and(values.result);
            identity
                .zip(result)
                .map(|(identity, result)| Message::Result { identity, result })
        }
        Event::CancelRequest => Some(Message::CancelRequest),
        Event::Observe => Some(Message::Observe),
    }
}

/// An offer's message: its identity and its terms resolved from the values that parsed, so
/// that one bad cell is one error.
#[inline(always)]
fn offer(
    cells: &RawCells<'_>,
    errors: &mut InputErrors,
    locate: &Locate<'_>,
    values: &Values,
    identity: Option<Identity>,
) -> Option<Message> {
    let text = |field: Field| cells[field.index()];
    let duration = require(cells, errors, locate, Field::LeaseDuration, &|| {
        "on offer".into()
    });
    let given = GivenTerms {
        issued_at: values.issued_at,
        expires_at: values.expires_at,
        ack_deadline: values.ack_deadline,
    };
    let timing_parsed = [
        (Field::IssuedAt, given.issued_at),
        (Field::ExpiresAt, given.expires_at),
        (Field::AckDeadline, given.ack_deadline),
    ]
    .iter()
    .all(|(field, parsed)| text(*field).is_none() || parsed.is_some());
    match (
        identity,
        duration.and(values.lease_duration),
        values.observed_at,
    ) {
        (Some(identity), Some(duration), Some(observed_at)) if timing_parsed => {
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

/// The fields whose text the evidence matrix carries as it is.
const TEXT_FIELDS: [Field; 5] = [
    Field::CaseId,
    Field::JobId,
    Field::LeaseId,
    Field::Holder,
    Field::ProgressValue,
];

/// Why text holding a workflow command (`found`: `##[` or `::`) is refused.
fn command_message(found: &str) -> String {
    let what = match found {
        // Not written as they are: the message itself must not be a command.
        "##[" => "`#`, `#`, `[` in a row",
        _ => "a line starting with `::`",
    };
    format!(
        "holds {what}, which a GitHub Actions log runs as a workflow command wherever the \
         matrix is shown; case-file text may not hold one"
    )
}

/// [`Event::parse`], with the usual lower-case spellings matched first (every row has an
/// event).
fn parse_event(text: &str) -> Option<Event> {
    match text {
        "offer" => Some(Event::Offer),
        "ack" => Some(Event::Ack),
        "renew" => Some(Event::Renew),
        "progress" => Some(Event::Progress),
        "observe" => Some(Event::Observe),
        "result" => Some(Event::Result),
        "cancel_request" => Some(Event::CancelRequest),
        "cancel_ack" => Some(Event::CancelAck),
        _ => Event::parse(text),
    }
}

fn terms_error(
    error: TermsError,
    duration_text: Option<&str>,
    expires_at_text: Option<&str>,
    ack_deadline_text: Option<&str>,
    locate: &Locate<'_>,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_normalise_to_fields_and_aliases() {
        let field = |name: &str| Field::from_normalised(&normalise_header(name));
        assert_eq!(field(" Job ID "), Some(Field::JobId));
        assert_eq!(field("Holder Identity"), Some(Field::Holder));
        assert_eq!(field("ACK-Deadline"), Some(Field::AckDeadline));
        assert_eq!(field("Renew/Sequence"), Some(Field::RenewSeq));
        assert_eq!(field("Lease Generation"), Some(Field::Generation));
        assert_eq!(field("KIND"), Some(Field::Event));
        assert_eq!(field("message"), Some(Field::Event));
        assert_eq!(field("Terminal Result"), Some(Field::Result));
        assert_eq!(field("decision"), None, "output-only columns are ignored");
        assert_eq!(field("Job  ID"), None, "two spaces make two underscores");
        // A matrix column is output-only exactly when no case-file field has its name.
        for column in Column::all() {
            assert_eq!(
                field(column.name()).is_none(),
                output_only(column),
                "{column}"
            );
        }
        for f in Field::ALL {
            assert_eq!(field(f.name()), Some(f));
        }
    }

    #[test]
    fn a_field_named_twice_is_reported_with_the_first_column() {
        let mut map = FieldMap::new();
        assert!(matches!(
            map.insert("holder", 3),
            Ok(Mapped::Field(Field::Holder))
        ));
        assert!(matches!(map.insert("note", 4), Ok(Mapped::Ignored)));
        assert!(matches!(
            map.insert("Holder Identity", 5),
            Err((Field::Holder, 3))
        ));
    }

    fn parse(pairs: &[(Field, &str)]) -> (RowResult, Vec<String>) {
        let mut cells: RawCells<'_> = [None; FIELD_COUNT];
        for (field, value) in pairs {
            cells[*field as usize] = cell_text(*field, value);
        }
        let mut errors = InputErrors::new();
        let locate = |field: Option<Field>, message: String, value: Option<&str>| {
            super::located("f.csv", 7, field, message, value)
        };
        let result = parse_row(&cells, &mut errors, &locate);
        (result, errors.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn cells_are_trimmed_except_progress_value_and_events_match_any_case() {
        let (row, errors) = parse(&[
            (Field::CaseId, " c1 "),
            (Field::Event, " PROGRESS "),
            (Field::ObservedAt, " 2026-01-01T10:00:00Z "),
            (Field::LeaseId, "L"),
            (Field::Generation, " 3 "),
            (Field::Holder, " w "),
            (Field::ProgressSeq, "2"),
            (Field::ProgressValue, " 50% "),
        ]);
        assert!(errors.is_empty(), "{errors:?}");
        let row = row.unwrap();
        assert_eq!(row.case_id, "c1");
        let Message::Progress {
            identity,
            progress_value,
            ..
        } = row.row.message
        else {
            panic!("a progress row")
        };
        assert_eq!((identity.generation, identity.holder.as_str()), (3, "w"));
        assert_eq!(progress_value.as_deref(), Some(" 50% "));
    }

    #[test]
    fn every_given_field_is_type_checked_even_where_unused() {
        let (row, errors) = parse(&[
            (Field::CaseId, "c1"),
            (Field::Event, "observe"),
            (Field::ObservedAt, "2026-01-01T10:00:00Z"),
            (Field::Generation, "-1"),
            (Field::RenewSeq, "x"),
            (Field::SentAt, "2026-01-01T10:00:00"),
        ]);
        // What the row still says validly, for the checks against its case.
        assert_eq!(
            row,
            Err(BadRow {
                case_id: Some("c1".into()),
                job_id: None,
                observed_at: Some(Timestamp::parse("2026-01-01T10:00:00Z").unwrap()),
            })
        );
        assert_eq!(
            errors,
            [
                "f.csv:7: sent_at: no offset (add `Z` or `±HH:MM`) (\"2026-01-01T10:00:00\")",
                "f.csv:7: generation: not an unsigned integer (decimal digits only) (\"-1\")",
                "f.csv:7: renew_seq: not an unsigned integer (decimal digits only) (\"x\")",
            ]
        );
    }

    #[test]
    fn identity_fields_are_required_on_worker_messages_only() {
        let (row, errors) = parse(&[
            (Field::CaseId, "c1"),
            (Field::Event, "cancel_request"),
            (Field::ObservedAt, "2026-01-01T10:00:00Z"),
        ]);
        assert!(row.is_ok() && errors.is_empty());
        let (row, errors) = parse(&[
            (Field::CaseId, "c1"),
            (Field::Event, "result"),
            (Field::ObservedAt, "2026-01-01T10:00:00Z"),
            (Field::LeaseId, "L"),
            (Field::Generation, "1"),
        ]);
        assert!(row.is_err());
        assert_eq!(
            errors,
            [
                "f.csv:7: holder: missing, required on result",
                "f.csv:7: result: missing, required on result",
            ]
        );
    }
}
