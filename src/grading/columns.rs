//! The matrix columns as graders see them: header names (with the lesson's headings and the
//! case-file aliases), the `--columns` list, how each column's values compare (spec section 8:
//! leniently, as a spreadsheet may have reformatted them), and the canonical form a golden
//! file's values must have.

use std::collections::BTreeSet;
use std::fmt;

use crate::input::normalise_header;
use crate::lease::values::parse_integer;
use crate::lease::{AckState, CaseReason, Decision, Seconds, TerminalResult, Timestamp};
use crate::matrix::COLUMNS;

/// One column of the evidence matrix (spec section 5), by its position in [`COLUMNS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Column(usize);

/// How a column's values are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// Free text (ids, holders, the progress value): equal after trimming.
    Text,
    /// An unsigned integer: `7` and `007` are equal.
    Integer,
    /// A duration: `30`, `30s` and `PT30S` are equal.
    Duration,
    /// A timestamp: equal as instants, whatever the offset or fraction digits.
    Timestamp,
    /// A contract code (`ACKED`, `ACTIVE`, `stale_generation`): equal ignoring case.
    Code,
    /// A boolean: `true`/`yes`/`1` and `false`/`no`/`0`, in any case.
    Boolean,
    /// A `;`-separated list of integers, compared as a set.
    List,
}

impl Column {
    /// `case_id`, the key rows are matched by.
    pub const CASE_ID: Column = Column(0);
    /// `decision`.
    pub const DECISION: Column = Column(21);
    /// `reason`.
    pub const REASON: Column = Column(22);
    /// How many columns the matrix has.
    pub const COUNT: usize = COLUMNS.len();

    /// The column at `index` in [`COLUMNS`].
    pub fn at(index: usize) -> Option<Column> {
        (index < Column::COUNT).then_some(Column(index))
    }

    /// Every column, in matrix order.
    pub fn all() -> impl Iterator<Item = Column> {
        (0..Column::COUNT).map(Column)
    }

    /// Its position in [`COLUMNS`] (and in [`crate::matrix::MatrixRow::cells`]).
    pub fn index(self) -> usize {
        self.0
    }

    /// Its canonical name.
    pub fn name(self) -> &'static str {
        COLUMNS[self.0]
    }

    /// The column a header names: its canonical name, or a case-file alias of it (`holder`,
    /// `lease_generation`, `renew_seq`, `progress_seq`, `result`), after normalising the way
    /// case-file headers are (so `Decision` and `Stale Generation` work).
    pub fn from_header(header: &str) -> Option<Column> {
        let name = normalise_header(header);
        let canonical = match name.as_str() {
            "holder" => "holder_identity",
            "lease_generation" => "generation",
            "renew_seq" => "renew_sequence",
            "progress_seq" => "progress_sequence",
            "result" => "terminal_result",
            other => other,
        };
        COLUMNS.iter().position(|c| *c == canonical).map(Column)
    }

    /// How its values compare.
    pub fn kind(self) -> ValueKind {
        match self.name() {
            "generation" | "renew_sequence" | "progress_sequence" => ValueKind::Integer,
            "lease_duration" => ValueKind::Duration,
            "issued_at" | "expires_at" | "ack_deadline" | "renew_time" | "cancel_requested"
            | "cancel_ack" => ValueKind::Timestamp,
            "ack_state" | "terminal_result" | "decision" | "reason" => ValueKind::Code,
            "lease_expired" | "ownership_conflict" => ValueKind::Boolean,
            "stale_generation" | "late_progress" => ValueKind::List,
            _ => ValueKind::Text,
        }
    }

    /// Whether two cells of this column hold the same value (spec section 8), each read
    /// leniently (a spreadsheet's reformatting undone: `2026-01-01 10:00:55` is
    /// `2026-01-01T10:00:55Z`, `08` and `8.0` are `8`, `PT30S` is `30`, `TRUE` is `true`). A
    /// value that does not parse as the column's type is compared as trimmed text.
    pub fn same_value(self, expected: &str, actual: &str) -> bool {
        Comparable::of(self.kind(), expected) == Comparable::of(self.kind(), actual)
    }

    /// Whether a golden cell is in the canonical form of spec section 5 (what the engine
    /// writes): `Err` says what the form is. Empty means "none", except where every case has
    /// a value (`decision`, `reason`, `lease_expired`, `ownership_conflict`).
    pub fn check_canonical(self, cell: &str) -> Result<(), String> {
        if cell.is_empty() {
            return match self.name() {
                "decision" | "reason" | "lease_expired" | "ownership_conflict" => {
                    Err("empty; every case has a value here".to_owned())
                }
                _ => Ok(()),
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
            ValueKind::Code => match self.name() {
                "ack_state" => codes(AckState::ALL.iter().map(|c| c.as_str()).collect()),
                "terminal_result" => {
                    codes(TerminalResult::ALL.iter().map(|c| c.as_str()).collect())
                }
                "decision" => codes(Decision::ALL.iter().map(|c| c.as_str()).collect()),
                _ => codes(CaseReason::ALL.iter().map(|c| c.as_str()).collect()),
            },
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

/// The graded columns by default: `decision` and `reason`.
pub const DEFAULT_GRADED: [Column; 2] = [Column::DECISION, Column::REASON];

/// Parses `--columns`: `all` (every column but `case_id`), or names separated by commas,
/// written like matrix headers. Duplicates are dropped; the result is in matrix order.
pub fn parse_column_list(text: &str) -> Result<Vec<Column>, String> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(Column::all().filter(|c| *c != Column::CASE_ID).collect());
    }
    let mut columns = BTreeSet::new();
    for name in text.split(',') {
        if name.trim().is_empty() {
            continue;
        }
        match Column::from_header(name) {
            Some(Column::CASE_ID) => {
                return Err("case_id is the key rows are matched by, not a graded column".into())
            }
            Some(column) => {
                columns.insert(column);
            }
            None => {
                return Err(format!(
                    "unknown column {:?}; the matrix columns are {} (or all)",
                    name.trim(),
                    COLUMNS[1..].join(", ")
                ))
            }
        }
    }
    if columns.is_empty() {
        return Err("no columns given".into());
    }
    Ok(columns.into_iter().collect())
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

/// The valid codes of a code column, if it has a fixed set.
pub fn codes(column: Column) -> Option<Vec<&'static str>> {
    match column.name() {
        "decision" => Some(Decision::ALL.iter().map(|d| d.as_str()).collect()),
        "reason" => Some(CaseReason::ALL.iter().map(|r| r.as_str()).collect()),
        "ack_state" => Some(AckState::ALL.iter().map(|a| a.as_str()).collect()),
        "terminal_result" => Some(TerminalResult::ALL.iter().map(|r| r.as_str()).collect()),
        _ => None,
    }
}

/// Why `value` cannot be right in `column` whatever the case, with the nearest valid code
/// when one is close; `None` for an empty cell or a valid code. Depends on the value alone,
/// so it says nothing about the golden value.
pub fn typo_note(column: Column, value: &str) -> Option<String> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    let value = &*crate::sanitize::escape_controls(value);
    if column.kind() == ValueKind::Boolean {
        let known = ["true", "false", "yes", "no", "1", "0"];
        return (!known.iter().any(|k| k.eq_ignore_ascii_case(value)))
            .then(|| format!("{value} is not a boolean (true or false)"));
    }
    let codes = codes(column)?;
    if codes.iter().any(|c| c.eq_ignore_ascii_case(value)) {
        return None;
    }
    let lower = value.to_ascii_lowercase();
    let nearest = codes
        .iter()
        .map(|c| (strsim::levenshtein(&lower, &c.to_ascii_lowercase()), *c))
        .min()
        .filter(|(distance, _)| *distance <= 3.max(value.chars().count() / 3));
    Some(match nearest {
        Some((_, code)) => format!("{value} is not a {column} code; did you mean {code}?"),
        None => format!(
            "{value} is not a {column} code (the codes are {})",
            codes.join(", ")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str) -> Column {
        Column::from_header(name).unwrap()
    }

    #[test]
    fn headers_normalise_like_case_files() {
        assert_eq!(column("Decision"), Column::DECISION);
        assert_eq!(column(" Stale Generation "), column("stale_generation"));
        assert_eq!(column("Holder Identity"), column("holder"));
        assert_eq!(column("ACK-Deadline"), column("ack_deadline"));
        assert_eq!(column("Terminal Result"), column("result"));
        assert_eq!(Column::from_header("Renew Sequence/Time"), None);
        assert_eq!(Column::from_header("explanation"), None);
    }

    #[test]
    fn values_compare_by_kind() {
        let same = |name: &str, a: &str, b: &str| column(name).same_value(a, b);
        assert!(same("decision", "ACTIVE", " active "));
        assert!(!same("decision", "ACTIVE", "EXPIRED"));
        assert!(same("lease_expired", "true", "Yes"));
        assert!(same("ownership_conflict", "false", "0"));
        assert!(!same("lease_expired", "true", "no"));
        assert!(same("stale_generation", "3;7", "7; 3"));
        assert!(same("late_progress", "", " "));
        assert!(!same("late_progress", "2", ""));
        assert!(same(
            "expires_at",
            "2026-01-01T10:00:30Z",
            "2026-01-01T12:00:30.000+02:00"
        ));
        assert!(!same(
            "expires_at",
            "2026-01-01T10:00:30Z",
            "2026-01-01T10:00:31Z"
        ));
        assert!(same("lease_duration", "300", "5m"));
        assert!(same("generation", "7", "007"));
        assert!(!same("holder", "worker-a", "Worker-A"));
        assert!(same("progress_value", "40", " 40"));
        assert!(same("reason", "", ""));
        assert!(!same("reason", "", "within_lease"));
    }

    #[test]
    fn spreadsheet_reformatting_is_undone() {
        let same = |name: &str, a: &str, b: &str| column(name).same_value(a, b);
        // Spec section 8's own examples.
        assert!(same(
            "expires_at",
            "2026-01-01T10:00:55Z",
            "2026-01-01 10:00:55"
        ));
        assert!(same(
            "expires_at",
            "2026-01-01T10:00:55Z",
            "2026-01-01T10:00:55"
        ));
        assert!(same(
            "expires_at",
            "2026-01-01T10:00:55.5Z",
            "2026-01-01 10:00:55.500"
        ));
        assert!(!same(
            "expires_at",
            "2026-01-01T10:00:55Z",
            "2026-01-01 10:00:56"
        ));
        assert!(same("generation", "8", "08"));
        assert!(same("generation", "8", "8.0"));
        assert!(!same("generation", "8", "8.5"));
        assert!(same("lease_duration", "30", "PT30S"));
        assert!(same("lease_duration", "30", "30.0"));
        assert!(same("stale_generation", "3;7", "07;3.0"));
        assert!(same("lease_expired", "true", "TRUE"));
        assert!(same("ownership_conflict", "false", "FALSE"));
        assert!(same("decision", "ACTIVE", "Active"));
    }

    #[test]
    fn golden_values_must_be_canonical() {
        let check = |name: &str, cell: &str| column(name).check_canonical(cell).is_ok();
        for (name, good, bad) in [
            ("expires_at", "2026-01-01T10:00:55Z", "2026-01-01 10:00:55"),
            (
                "expires_at",
                "2026-01-01T10:00:55.25Z",
                "2026-01-01T12:00:55+02:00",
            ),
            ("generation", "8", "08"),
            ("generation", "0", "8.0"),
            ("lease_duration", "30", "PT30S"),
            ("lease_duration", "30", "0"),
            ("lease_expired", "true", "TRUE"),
            ("ownership_conflict", "false", "no"),
            ("decision", "ACTIVE", "active"),
            ("reason", "within_lease", "WITHIN_LEASE"),
            ("ack_state", "ACKED", "acked"),
            ("terminal_result", "SUCCESS", "success"),
            ("stale_generation", "3;7", "7;3"),
            ("late_progress", "2", "2; 5"),
            ("decision", "EXPIRED", ""),
        ] {
            assert!(check(name, good), "{name}: {good:?}");
            assert!(!check(name, bad), "{name}: {bad:?}");
        }
        assert!(check("renew_time", ""));
        assert!(check("holder", "Worker A"));
    }

    #[test]
    fn column_lists_parse() {
        assert_eq!(
            parse_column_list("decision,reason").unwrap(),
            DEFAULT_GRADED
        );
        assert_eq!(
            parse_column_list("Reason, Decision, reason").unwrap(),
            DEFAULT_GRADED
        );
        assert_eq!(parse_column_list("all").unwrap().len(), Column::COUNT - 1);
        assert!(parse_column_list("decision,verdict").is_err());
        assert!(parse_column_list("case_id").is_err());
        assert!(parse_column_list(" , ").is_err());
    }
}
