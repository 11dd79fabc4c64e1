//! Grading (spec section 8): reading matrices leniently, comparing them with golden files,
//! and the options and report formats `check` and `grade` share.

pub(crate) mod baseline;
pub(crate) mod canonical;
pub(crate) mod case_grade;
pub(crate) mod case_list;
pub(crate) mod clashes;
pub(crate) mod class;
pub(crate) mod columns;
pub(crate) mod compare;
pub mod engine_check;
pub mod hint;
pub(crate) mod marks;
pub mod matrix_reader;
pub mod partitions;
pub(crate) mod precheck;
pub(crate) mod spool;
pub(crate) mod submission_file;
pub(crate) mod template;
pub(crate) mod upload;

use std::path::PathBuf;

pub use columns::{parse_column_list, Column, ValueKind, DEFAULT_GRADED};
pub use compare::{
    compare, CaseGrade, CaseOutcome, FileGrade, GradeReport, Mismatch, MissingAt, Spot, Summary,
    UnknownCase, Unpaired, UnpairedFile,
};
pub use matrix_reader::{
    golden_errors, MatrixEntry, MatrixFile, MatrixFileFormat, MatrixInput, MatrixRead, Strictness,
};

/// How a grade report is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
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

/// The options `check` and `grade` share.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// The columns to grade: names separated by commas (as matrix headers), or `all`.
    #[arg(long, value_name = "COLUMNS", default_value = "decision,reason", value_parser = parse_graded_columns)]
    pub columns: GradedColumns,

    /// Report format [default: by the -o file's extension: .xml junit, .json json, .md
    /// markdown; otherwise table].
    #[arg(long, short = 'f', value_enum)]
    pub format: Option<ReportFormat>,

    /// Write the report to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// In the table, list every case, not only those that differ.
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

impl ReportArgs {
    /// The options they give.
    pub fn options(&self) -> ReportOptions {
        ReportOptions {
            columns: self.columns.0.clone(),
            format: self.format,
            output: self.output.clone(),
            verbose: self.verbose,
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

/// The graded columns given with `--columns`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GradedColumns(pub Vec<Column>);

fn parse_graded_columns(text: &str) -> Result<GradedColumns, String> {
    parse_column_list(text).map(GradedColumns)
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
