//! The matrix's columns as a type (spec section 5): each column's name, the kind of its
//! values, and how a cell of it compares (spec section 8). Every match on a column is
//! exhaustive, so a new column does not compile until each place handles it.

use std::collections::BTreeSet;
use std::fmt;

use crate::lease::values::parse_integer;
use crate::lease::{self, CaseReason, Seconds, Timestamp};

/// One column of the evidence matrix (spec section 5), in matrix order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Column {
    /// `case_id`: The case the row is about: the key rows are matched by.
    CaseId,
    /// `job_id`: The job the case's offers are for.
    JobId,
    /// `lease_id`: The current generation's lease id.
    LeaseId,
    /// `generation`: The current generation number.
    Generation,
    /// `holder_identity`: The worker the current generation was offered to.
    HolderIdentity,
    /// `issued_at`: When the current generation's lease was issued.
    IssuedAt,
    /// `lease_duration`: The current generation's lease duration, in whole seconds.
    LeaseDuration,
    /// `expires_at`: When the current generation expires (renewals included).
    ExpiresAt,
    /// `ack_deadline`: The current generation's acknowledgement deadline.
    AckDeadline,
    /// `ack_state`: Whether the current generation was acknowledged (`ACKED`, `LATE`, ...).
    AckState,
    /// `renew_sequence`: The current generation's last accepted renew sequence; empty for none.
    RenewSequence,
    /// `renew_time`: When that renew was observed; empty for none.
    RenewTime,
    /// `progress_sequence`: The current generation's last accepted progress sequence; empty for none.
    ProgressSequence,
    /// `progress_value`: That progress report's value; empty for none.
    ProgressValue,
    /// `cancel_requested`: When a cancel of the current generation was requested; empty for none.
    CancelRequested,
    /// `cancel_ack`: When the worker acknowledged the cancel; empty for none.
    CancelAck,
    /// `terminal_result`: The current generation's accepted result (`SUCCESS`, `FAILED`, `CANCELLED`); empty for none.
    TerminalResult,
    /// `stale_generation`: The distinct stale generation numbers, ascending, joined with `;`.
    StaleGeneration,
    /// `late_progress`: The distinct late progress sequence numbers of the whole case, ascending, joined with `;`.
    LateProgress,
    /// `lease_expired`: Whether the current generation's phase is `EXPIRED` at `as_of`.
    LeaseExpired,
    /// `ownership_conflict`: Whether two workers held the job at once (a `CONFLICT` row).
    OwnershipConflict,
    /// `decision`: The decision of spec section 5, the first that applies.
    Decision,
    /// `reason`: The reason code for the decision, the first that applies.
    Reason,
}

/// How a column's values are written and compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// Free text (ids, holders, the progress value): equal after trimming.
    Text,
    /// An unsigned integer (a JSON number): `7` and `007` are equal.
    Integer,
    /// A duration in whole seconds (a JSON number): `30`, `30s` and `PT30S` are equal.
    Duration,
    /// A timestamp: equal as instants, whatever the offset or fraction digits.
    Timestamp,
    /// A contract code (`ACKED`, `ACTIVE`, `stale_generation`): equal ignoring case.
    Code,
    /// A boolean (a JSON boolean): `true`/`yes`/`1` and `false`/`no`/`0`, in any case.
    Boolean,
    /// A `;`-separated list of integers (a JSON array), compared as a set.
    List,
}

/// The matrix's columns, in order.
const ALL: [Column; Column::COUNT] = [
    Column::CaseId,
    Column::JobId,
    Column::LeaseId,
    Column::Generation,
    Column::HolderIdentity,
    Column::IssuedAt,
    Column::LeaseDuration,
    Column::ExpiresAt,
    Column::AckDeadline,
    Column::AckState,
    Column::RenewSequence,
    Column::RenewTime,
    Column::ProgressSequence,
    Column::ProgressValue,
    Column::CancelRequested,
    Column::CancelAck,
    Column::TerminalResult,
    Column::StaleGeneration,
    Column::LateProgress,
    Column::LeaseExpired,
    Column::OwnershipConflict,
    Column::Decision,
    Column::Reason,
];

impl Column {
    /// How many columns the matrix has.
    pub const COUNT: usize = 23;

    /// Every column, in matrix order.
    pub const ALL: [Column; Column::COUNT] = ALL;

    /// The column at `index` in matrix order.
    pub fn at(index: usize) -> Option<Column> {
        ALL.get(index).copied()
    }

    /// Every column, in matrix order.
    pub fn all() -> impl Iterator<Item = Column> {
        ALL.into_iter()
    }

    /// Its position in the matrix (and in [`crate::matrix::MatrixRow::cells`]).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Its name: the CSV header and the JSON key.
    pub const fn name(self) -> &'static str {
        match self {
            Column::CaseId => "case_id",
            Column::JobId => "job_id",
            Column::LeaseId => "lease_id",
            Column::Generation => "generation",
            Column::HolderIdentity => "holder_identity",
            Column::IssuedAt => "issued_at",
            Column::LeaseDuration => "lease_duration",
            Column::ExpiresAt => "expires_at",
            Column::AckDeadline => "ack_deadline",
            Column::AckState => "ack_state",
            Column::RenewSequence => "renew_sequence",
            Column::RenewTime => "renew_time",
            Column::ProgressSequence => "progress_sequence",
            Column::ProgressValue => "progress_value",
            Column::CancelRequested => "cancel_requested",
            Column::CancelAck => "cancel_ack",
            Column::TerminalResult => "terminal_result",
            Column::StaleGeneration => "stale_generation",
            Column::LateProgress => "late_progress",
            Column::LeaseExpired => "lease_expired",
            Column::OwnershipConflict => "ownership_conflict",
            Column::Decision => "decision",
            Column::Reason => "reason",
        }
    }

    /// The column of this exact name.
    pub fn from_name(name: &str) -> Option<Column> {
        ALL.into_iter().find(|column| column.name() == name)
    }

    /// The kind of its values: how they are written in JSON and compared.
    pub const fn kind(self) -> ValueKind {
        match self {
            Column::CaseId
            | Column::JobId
            | Column::LeaseId
            | Column::HolderIdentity
            | Column::ProgressValue => ValueKind::Text,
            Column::Generation | Column::RenewSequence | Column::ProgressSequence => {
                ValueKind::Integer
            }
            Column::LeaseDuration => ValueKind::Duration,
            Column::IssuedAt
            | Column::ExpiresAt
            | Column::AckDeadline
            | Column::RenewTime
            | Column::CancelRequested
            | Column::CancelAck => ValueKind::Timestamp,
            Column::AckState | Column::TerminalResult | Column::Decision | Column::Reason => {
                ValueKind::Code
            }
            Column::LeaseExpired | Column::OwnershipConflict => ValueKind::Boolean,
            Column::StaleGeneration | Column::LateProgress => ValueKind::List,
        }
    }

    /// Whether every case has a value here (an empty cell is never right).
    pub const fn always_filled(self) -> bool {
        match self {
            Column::LeaseExpired
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
            | Column::AckState
            | Column::RenewSequence
            | Column::RenewTime
            | Column::ProgressSequence
            | Column::ProgressValue
            | Column::CancelRequested
            | Column::CancelAck
            | Column::TerminalResult
            | Column::StaleGeneration
            | Column::LateProgress => false,
        }
    }

    /// The valid codes of a code column; `None` for a column without a fixed set.
    pub fn codes(self) -> Option<Vec<&'static str>> {
        match self {
            Column::Decision => Some(lease::Decision::ALL.iter().map(|d| d.as_str()).collect()),
            Column::Reason => Some(CaseReason::ALL.iter().map(|r| r.as_str()).collect()),
            Column::AckState => Some(lease::AckState::ALL.iter().map(|a| a.as_str()).collect()),
            Column::TerminalResult => Some(
                lease::TerminalResult::ALL
                    .iter()
                    .map(|r| r.as_str())
                    .collect(),
            ),
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
            | Column::RenewTime
            | Column::ProgressSequence
            | Column::ProgressValue
            | Column::CancelRequested
            | Column::CancelAck
            | Column::StaleGeneration
            | Column::LateProgress
            | Column::LeaseExpired
            | Column::OwnershipConflict => None,
        }
    }

    /// Whether two cells of this column hold the same value (spec section 8), each read
    /// leniently (a spreadsheet's reformatting undone: `2026-01-01 10:00:55` is
    /// `2026-01-01T10:00:55Z`, `08` and `8.0` are `8`, `PT30S` is `30`, `TRUE` is `true`). A
    /// value that does not parse as the column's type is compared as trimmed text.
    pub fn same_value(self, expected: &str, actual: &str) -> bool {
        // The same text is the same value (what a cell compares as depends on its text
        // alone): most cells of a matrix match, and are told so without parsing either.
        expected == actual
            || Comparable::of(self.kind(), expected) == Comparable::of(self.kind(), actual)
    }

    /// Whether a golden cell is in the canonical form of spec section 5 (what the engine
    /// writes): `Err` says what the form is. Empty means "none", except where every case has
    /// a value (`decision`, `reason`, `lease_expired`, `ownership_conflict`).
    pub fn check_canonical(self, cell: &str) -> Result<(), String> {
        if cell.is_empty() {
            return match self.always_filled() {
                true => Err("empty; every case has a value here".to_owned()),
                false => Ok(()),
            };
        }
        let codes = |all: Vec<&'static str>| -> Result<(), String> {
            if all.contains(&cell) {
                Ok(())
            } else {
                Err(format!("not a canonical code: one of {}", all.join(", ")))
            }
        };
        match self.kind() {
            ValueKind::Text => Ok(()),
            ValueKind::Integer => canonical_integer(cell).map(drop),
            ValueKind::Duration => match canonical_integer(cell) {
                Ok(0) => Err("not a canonical duration: whole seconds, more than 0".to_owned()),
                Ok(_) => Ok(()),
                Err(_) => Err("not a canonical duration: whole seconds like 30".to_owned()),
            },
            ValueKind::Timestamp => match Timestamp::parse(cell) {
                Ok(instant) if instant.to_string() == cell => Ok(()),
                _ => Err(
                    "not a canonical timestamp: UTC as YYYY-MM-DDTHH:MM:SSZ (a fraction only if not zero)"
                        .to_owned(),
                ),
            },
            ValueKind::Code => codes(self.codes().unwrap_or_default()),
            ValueKind::Boolean => match cell {
                "true" | "false" => Ok(()),
                _ => Err("not a canonical boolean: true or false".to_owned()),
            },
            ValueKind::List => {
                let mut previous = None;
                for item in cell.split(';') {
                    let n = canonical_integer(item).map_err(|_| {
                        "not a canonical list: integers in ascending order joined with ;".to_owned()
                    })?;
                    if previous.is_some_and(|p| p >= n) {
                        return Err(
                            "not a canonical list: distinct integers in ascending order".to_owned()
                        );
                    }
                    previous = Some(n);
                }
                Ok(())
            }
        }
    }
}

/// An unsigned integer written as the contract writes one: digits, no sign, no leading zero.
fn canonical_integer(text: &str) -> Result<u64, String> {
    let n = parse_integer(text).map_err(|e| e.to_string())?;
    if n.to_string() == text {
        Ok(n)
    } else {
        Err("not a canonical integer: digits without leading zeros".to_owned())
    }
}

/// An integer as a spreadsheet may have reformatted it: with leading zeros (`08`) or a zero
/// fraction (`8.0`).
fn lenient_integer(text: &str) -> Option<u64> {
    if let Ok(n) = parse_integer(text) {
        return Some(n);
    }
    let (whole, fraction) = text.split_once('.')?;
    if fraction.is_empty() || !fraction.bytes().all(|b| b == b'0') {
        return None;
    }
    parse_integer(whole).ok()
}

/// A timestamp as a spreadsheet may have reformatted it: a space for the `T`, and without an
/// offset read as UTC (spec section 8).
fn lenient_timestamp(text: &str) -> Option<Timestamp> {
    if let Ok(instant) = Timestamp::parse(text) {
        return Some(instant);
    }
    let mut fixed = text.to_owned();
    if fixed.len() > 10 && fixed.as_bytes()[10] == b' ' {
        fixed.replace_range(10..11, "T");
    }
    let time = fixed.get(11..)?;
    let has_offset = time.ends_with(['Z', 'z']) || time.contains(['+', '-']);
    if !has_offset {
        fixed.push('Z');
    }
    Timestamp::parse(&fixed).ok()
}

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A cell reduced to what grading compares.
#[derive(Debug, PartialEq, Eq)]
enum Comparable {
    Empty,
    Text(String),
    Number(u64),
    Instant(Timestamp),
    Bool(bool),
    Set(BTreeSet<ListItem>),
}

/// One element of a `;`-list.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum ListItem {
    Number(u64),
    Text(String),
}

impl Comparable {
    fn of(kind: ValueKind, cell: &str) -> Comparable {
        let text = cell.trim();
        if text.is_empty() {
            // An empty cell means "none"; for a list that is the empty set.
            return if kind == ValueKind::List {
                Comparable::Set(BTreeSet::new())
            } else {
                Comparable::Empty
            };
        }
        let as_text = || Comparable::Text(text.to_owned());
        let as_code = || Comparable::Text(text.to_ascii_lowercase());
        match kind {
            ValueKind::Text => as_text(),
            ValueKind::Integer => lenient_integer(text).map_or_else(as_text, Comparable::Number),
            ValueKind::Duration => Seconds::parse(text)
                .map(|s| s.get())
                .ok()
                .or_else(|| lenient_integer(text))
                .map_or_else(as_text, Comparable::Number),
            ValueKind::Timestamp => {
                lenient_timestamp(text).map_or_else(as_text, Comparable::Instant)
            }
            ValueKind::Code => as_code(),
            ValueKind::Boolean => match text.to_ascii_lowercase().as_str() {
                "true" | "yes" | "1" => Comparable::Bool(true),
                "false" | "no" | "0" => Comparable::Bool(false),
                _ => as_code(),
            },
            ValueKind::List => Comparable::Set(
                text.split(';')
                    .map(str::trim)
                    .filter(|item| !item.is_empty())
                    .map(|item| {
                        lenient_integer(item)
                            .map_or_else(|| ListItem::Text(item.to_owned()), ListItem::Number)
                    })
                    .collect(),
            ),
        }
    }
}
