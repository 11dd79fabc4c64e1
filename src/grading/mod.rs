//! Grading (spec section 8): reading matrices leniently, comparing them with golden files,
//! and the options and report formats `check` and `grade` share.

pub(crate) mod baseline;
pub(crate) mod canonical;
pub(crate) mod case_grade;
pub(crate) mod case_list;
pub(crate) mod clashes;
pub mod class;
pub(crate) mod columns;
pub(crate) mod compare;
pub mod engine_check;
pub(crate) mod feedback;
pub mod hint;
pub mod learner_shortcuts;
pub(crate) mod marks;
pub mod matrix_reader;
pub mod partitions;
pub(crate) mod precheck;
pub(crate) mod spool;
pub(crate) mod submission_file;
pub(crate) mod template;
pub(crate) mod upload;

use std::path::PathBuf;

pub use columns::{column_from_header, parse_column_list, Column, ValueKind, DEFAULT_GRADED};
pub use compare::{
    compare, CaseGrade, CaseOutcome, FileGrade, GradeReport, Mismatch, MissingAt, Spot, Summary,
    UnknownCase, Unpaired, UnpairedFile,
};
pub use matrix_reader::{
    golden_errors, MatrixEntry, MatrixFile, MatrixFileFormat, MatrixInput, MatrixRead, Strictness,
};

/// How a grade report is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    /// A table per case and a summary, for people.
    Table,
    /// One JSON document.
    Json,
    /// JUnit XML: one testsuite per file, one testcase per case.
    Junit,
    /// GitHub Actions workflow commands (`::error file=...,line=...::`).
    Github,
    /// Markdown, for a CI step summary.
    Markdown,
}

crate::choice::choices!(ReportFormat {
    Table => "table",
        "A table per case and a summary, for people";
    Json => "json",
        "One JSON document";
    Junit => "junit",
        "JUnit XML: one testsuite per file, one testcase per case";
    Github => "github",
        "GitHub Actions workflow commands (`::error file=...,line=...::`)";
    Markdown => "markdown",
        "Markdown, for a CI step summary";
});

impl ReportFormat {
    /// What a report in this format holds.
    pub fn content(self) -> crate::output::Content {
        use crate::output::Content;
        match self {
            ReportFormat::Table | ReportFormat::Markdown => Content::Text,
            ReportFormat::Json => Content::Json,
            ReportFormat::Junit => Content::Markup,
            ReportFormat::Github => Content::WorkflowCommands,
        }
    }
}

/// What a grade report is made of and where it goes: the options `check` and `grade` share.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// The columns graded.
    pub columns: Vec<Column>,
    /// The report's format [default: by the output's extension].
    pub format: Option<ReportFormat>,
    /// Where the report is written [default: standard output].
    pub output: Option<PathBuf>,
    /// In the table, list every case, not only those that differ.
    pub verbose: bool,
}

impl ReportOptions {
    /// Whether the report lists matched cases one by one: JSON and JUnit do (a record or a
    /// passing test per case), the table with `--verbose`; the others only count them.
    pub fn lists_matched(&self) -> bool {
        match self
            .format
            .unwrap_or_else(|| default_format(self.output.as_deref()))
        {
            ReportFormat::Json | ReportFormat::Junit => true,
            ReportFormat::Table => self.verbose,
            ReportFormat::Github | ReportFormat::Markdown => false,
        }
    }
}

/// The format an output file's extension implies; a table otherwise.
pub fn default_format(output: Option<&std::path::Path>) -> ReportFormat {
    let extension = output.and_then(crate::input::lowercase_extension);
    match extension.as_deref() {
        Some("xml") => ReportFormat::Junit,
        Some("json") => ReportFormat::Json,
        Some("md" | "markdown") => ReportFormat::Markdown,
        _ => ReportFormat::Table,
    }
}
