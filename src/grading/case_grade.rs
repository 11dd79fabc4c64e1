//! One golden case's grade, as `check` and `grade` list it: where it points, how it fared,
//! and the cases the golden file lacks. Below both the comparison that makes grades and the
//! lists that keep them ([`super::case_list`]), so that neither imports the other.

use super::columns::Column;

/// A place a finding points at: a file, and a line when there is one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spot {
    /// The file, as named on the command line.
    pub file: String,
    /// The 1-based line, if the finding has one.
    pub line: Option<u64>,
}

impl std::fmt::Display for Spot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}", self.file),
            None => f.write_str(&self.file),
        }
    }
}

/// One graded column that differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The column.
    pub column: Column,
    /// The golden value, trimmed; `None` when golden values are hidden.
    pub expected: Option<String>,
    /// The value found (the engine's, or the submission's), trimmed.
    pub actual: String,
}

/// How one golden case fared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaseOutcome {
    /// Every graded column matches.
    Matched,
    /// These graded columns differ.
    Mismatched(Vec<Mismatch>),
    /// The case is in the golden file but not in the matrix graded.
    Missing,
}

/// One golden case's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseGrade {
    /// The case id.
    pub case_id: String,
    /// Where to point: the graded row (the case's first line in the case file, or the
    /// submission's row); for a missing case, the golden row (`check`) or the submission file
    /// (`grade`).
    pub at: Spot,
    /// How it fared.
    pub outcome: CaseOutcome,
}

/// A case in the graded matrix that the golden file does not have: reported, not scored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownCase {
    /// The case id.
    pub case_id: String,
    /// Its row.
    pub at: Spot,
}

/// A value as people read it: `(empty)` for an empty cell, and what a person could not see
/// or a log would run made visible ([`escape_controls`](crate::output::escape_controls)).
pub fn shown(value: &str) -> std::borrow::Cow<'_, str> {
    if value.is_empty() {
        std::borrow::Cow::Borrowed("(empty)")
    } else {
        crate::output::escape_controls(value)
    }
}

impl Mismatch {
    /// `decision: expected ACTIVE, got EXPIRED`, or without the golden value when hidden:
    /// `decision: EXPIRED is wrong`.
    pub fn describe(&self) -> String {
        match &self.expected {
            Some(expected) => format!(
                "{}: expected {}, got {}",
                self.column,
                shown(expected),
                shown(&self.actual)
            ),
            None => format!("{}: {} is wrong", self.column, shown(&self.actual)),
        }
    }
}

impl CaseGrade {
    /// What is wrong with the case, one line per problem; empty when it matched.
    pub fn problems(&self, graded_file: &str) -> Vec<String> {
        match &self.outcome {
            CaseOutcome::Matched => Vec::new(),
            CaseOutcome::Mismatched(mismatches) => {
                mismatches.iter().map(Mismatch::describe).collect()
            }
            CaseOutcome::Missing => vec![format!(
                "missing: the golden file has this case, {} does not (counted wrong)",
                crate::output::escape_controls(graded_file)
            )],
        }
    }

    /// `matched`, `mismatched` or `missing`.
    pub fn status(&self) -> &'static str {
        match self.outcome {
            CaseOutcome::Matched => "matched",
            CaseOutcome::Mismatched(_) => "mismatched",
            CaseOutcome::Missing => "missing",
        }
    }
}

impl UnknownCase {
    /// What is wrong, for people.
    pub fn problem(&self, golden: &str) -> String {
        format!(
            "not in the golden file {} (reported, not scored)",
            crate::output::escape_controls(golden)
        )
    }
}
