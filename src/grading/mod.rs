//! Grading (spec section 8): reading matrices leniently, comparing them with golden files,
//! and the options and report formats `check` and `grade` share.

pub mod columns;
pub mod compare;
pub mod engine_check;
pub mod matrix_file;

use std::path::PathBuf;

use anyhow::{Context, Result};

pub use columns::{parse_column_list, Column, ValueKind, DEFAULT_GRADED};
pub use compare::{
    compare, CaseGrade, CaseOutcome, FileGrade, GradeReport, Mismatch, MissingAt, Spot, Summary,
    UnknownCase, Unpaired, UnpairedFile,
};
pub use matrix_file::{parse_matrix, read_matrix_file, MatrixEntry, MatrixFile, MatrixFileFormat};

use crate::output::Output;
use crate::report;

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
}

/// The graded columns given with `--columns`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GradedColumns(pub Vec<Column>);

fn parse_graded_columns(text: &str) -> Result<GradedColumns, String> {
    parse_column_list(text).map(GradedColumns)
}

/// The format an output file's extension implies; a table otherwise.
pub fn default_format(output: Option<&std::path::Path>) -> ReportFormat {
    let extension = output
        .and_then(|p| p.extension())
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("xml") => ReportFormat::Junit,
        Some("json") => ReportFormat::Json,
        Some("md" | "markdown") => ReportFormat::Markdown,
        _ => ReportFormat::Table,
    }
}

/// Renders `report` in `format` to `output` (or standard output) and commits it.
pub fn write_report(report: &GradeReport, args: &ReportArgs) -> Result<()> {
    let mut out = Output::open(args.output.as_deref())?;
    let color = out.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let text = match args
        .format
        .unwrap_or_else(|| default_format(args.output.as_deref()))
    {
        ReportFormat::Table => report::grade_table::render(report, color),
        ReportFormat::Json => report::grade_json::render(report),
        ReportFormat::Junit => report::junit::render(report)?,
        ReportFormat::Github => report::github::render(report),
        ReportFormat::Markdown => report::markdown::render(report),
    };
    std::io::Write::write_all(&mut out, text.as_bytes()).context("cannot write the report")?;
    out.commit()
}
