//! Human- and machine-facing renderings beyond the matrix itself: tables, the row audit, and
//! the grade reports of `check` and `grade` (table, JSON, JUnit, GitHub annotations, Markdown).
//!
//! Renderers depend on the grading types ([`crate::grading`]), never the reverse.

pub mod audit;
pub mod class_json;
pub mod class_junit;
pub mod class_text;
pub mod github;
pub mod grade_json;
pub mod grade_table;
pub mod gradebook;
pub mod junit;
pub mod markdown;
pub mod table;

use anyhow::{Context, Result};

use crate::grading::{default_format, GradeReport, ReportArgs, ReportFormat};
use crate::output::Output;

/// Renders `check`'s `report` in the chosen format to `-o` (or standard output) and commits it.
pub fn write_report(report: &GradeReport, args: &ReportArgs) -> Result<()> {
    let mut out = Output::open(args.output.as_deref())?;
    let color = out.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let text = match args
        .format
        .unwrap_or_else(|| default_format(args.output.as_deref()))
    {
        ReportFormat::Table => grade_table::render(report, color),
        ReportFormat::Json => grade_json::render(report),
        ReportFormat::Junit => junit::render(report)?,
        ReportFormat::Github => github::render(report),
        ReportFormat::Markdown => markdown::render(report),
    };
    std::io::Write::write_all(&mut out, text.as_bytes()).context("cannot write the report")?;
    out.commit()
}
