//! The matrix columns as graders see them: header names (with the lesson's headings and the
//! case-file aliases), the `--columns` list, and the notes on values that cannot be right. How
//! each column's values compare and their canonical form are the column's own
//! ([`crate::matrix::Column`]).

use std::collections::BTreeSet;

use crate::input::normalise_header;
pub use crate::matrix::{Column, ValueKind};

/// The column a header names: its canonical name, or a case-file alias of it (`holder`,
/// `lease_generation`, `renew_seq`, `progress_seq`, `result`), after normalising the way
/// case-file headers are (so `Decision` and `Stale Generation` work).
pub fn column_from_header(header: &str) -> Option<Column> {
    match normalise_header(header).as_str() {
        "holder" => Some(Column::HolderIdentity),
        "lease_generation" => Some(Column::Generation),
        "renew_seq" => Some(Column::RenewSequence),
        "progress_seq" => Some(Column::ProgressSequence),
        "result" => Some(Column::TerminalResult),
        name => Column::from_name(name),
    }
}

/// The graded columns by default: `decision` and `reason`.
pub const DEFAULT_GRADED: [Column; 2] = [Column::Decision, Column::Reason];

/// Parses `--columns`: `all` (every column but `case_id`), or names separated by commas,
/// written like matrix headers. Duplicates are dropped; the result is in matrix order.
pub fn parse_column_list(text: &str) -> Result<Vec<Column>, String> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(Column::all().filter(|c| *c != Column::CaseId).collect());
    }
    let mut columns = BTreeSet::new();
    for name in text.split(',') {
        if name.trim().is_empty() {
            continue;
        }
        match column_from_header(name) {
            Some(Column::CaseId) => {
                return Err("case_id is the key rows are matched by, not a graded column".into())
            }
            Some(column) => {
                columns.insert(column);
            }
            None => {
                return Err(format!(
                    "unknown column {:?}; the matrix columns are {} (or all)",
                    name.trim(),
                    crate::matrix::COLUMNS[1..].join(", ")
                ))
            }
        }
    }
    if columns.is_empty() {
        return Err("no columns given".into());
    }
    Ok(columns.into_iter().collect())
}

/// The valid codes of a code column, if it has a fixed set.
pub fn codes(column: Column) -> Option<Vec<&'static str>> {
    column.codes()
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
        column_from_header(name).unwrap()
    }

    #[test]
    fn headers_normalise_like_case_files() {
        assert_eq!(column("Decision"), Column::Decision);
        assert_eq!(column(" Stale Generation "), column("stale_generation"));
        assert_eq!(column("Holder Identity"), column("holder"));
        assert_eq!(column("ACK-Deadline"), column("ack_deadline"));
        assert_eq!(column("Terminal Result"), column("result"));
        assert_eq!(column_from_header("Renew Sequence/Time"), None);
        assert_eq!(column_from_header("explanation"), None);
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
