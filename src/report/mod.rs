//! Human- and machine-facing renderings beyond the matrix itself: tables, the row audit, and
//! the grade reports of `check` and `grade` (table, JSON, JUnit, GitHub annotations, Markdown,
//! and the autograders' result files).
//!
//! The report formats of `check` and `grade` are one table (`formats/mod.rs`, each format's
//! row: its word, help lines, content and writer); each format's writer is its own file
//! (`formats/json.rs`, ...), and every report is written through it. A new format is its file
//! and its row. Each autograder platform's results file of one submission is a module named
//! in the list of platforms (`gradescope.rs`, `prairielearn.rs`, `github_classroom.rs`): its
//! row (`RESULTS`, a `PlatformResults`) beside its writer, or naming the writer it shares
//! (`platform_results.rs`, Gradescope's and PrairieLearn's).
//!
//! Renderers depend on the grading types ([`crate::grading`]), never the reverse.

pub(crate) mod audit;
pub(crate) mod class_json;
pub(crate) mod class_junit;
pub(crate) mod class_shortcuts;
pub(crate) mod class_text;
pub mod github;
pub(crate) mod grade_json;
pub mod grade_table;
pub(crate) mod gradebook;
pub(crate) mod junit;
pub(crate) mod learner_feedback;
pub mod markdown;
pub(crate) mod paged;
pub mod platform_results;
pub(crate) mod problems;
pub mod shortcuts;
pub mod table;

mod formats;

/// Each autograder platform's results file of one submission (`grade -f WORD`): its row and
/// its writer, a module per platform of the list (`autograder_platforms!`).
macro_rules! platform_results_modules {
    ($($variant:ident $module:ident $options:ident;)+) => {
        $(pub(crate) mod $module;)+
    };
}

crate::autograder_platforms!(platform_results_modules);

use anyhow::{Context, Result};

use crate::grading::class::ClassReport;
use crate::grading::GradeReport;
use crate::output::{commit_all_appending, Appended, Output};

pub(crate) use formats::Style;
pub use formats::{default_format, ReportFormat, ReportOptions};

/// A platform's results file of one submission, `grade -f WORD`: its row, in its module
/// (`RESULTS`).
pub(crate) struct PlatformResults {
    /// Its word: `grade -f WORD` writes it, and `autograder WORD` builds the platform's
    /// autograder.
    pub(crate) word: &'static str,
    /// `grade -f`'s help line for it.
    pub(crate) help: &'static str,
    /// Whether the platform runs `grade --autograder` (its bundle's run script) and takes its
    /// score (`--points` scales it): an autograder's results, not a reporter's input.
    pub(crate) autograder: bool,
    /// Writes the results of the report's one submission, as `options` ask.
    pub(crate) write:
        fn(&ClassReport, &ResultsOptions, &mut dyn std::io::Write) -> std::io::Result<()>,
}

/// What `grade`'s options ask of a platform's results file.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ResultsOptions {
    /// Who sees Gradescope's results, and when (`None`: visible).
    pub(crate) visibility: Option<platform_results::Visibility>,
}

/// The name of the report's output, for [`check_paths`](crate::output::check_paths).
pub fn report_output(args: &ReportOptions) -> crate::output::Named<'_> {
    match &args.output {
        Some(path) => crate::output::Named::new("-o", path),
        None => crate::output::Named::stdout("the report"),
    }
}

/// Renders `report` in `format` to `output` (or standard output), not yet committed: commit it
/// with the run's other outputs ([`crate::output::commit_all`]).
pub fn render_report(report: &GradeReport, args: &ReportOptions) -> Result<Output> {
    let format = args.format();
    let mut out = Output::open(args.output.as_deref(), format.content())?;
    let style = Style::of(&out, args.verbose);
    format.write_check(report, style, &mut out)?;
    Ok(out)
}

/// Writes the report of input errors that kept `command` from grading, in the format and to
/// the file `args` name (nothing for a table: standard error lists them). For GitHub, every
/// problem also goes to the step summary (`$GITHUB_STEP_SUMMARY`) when it is set, since the
/// step shows only `problems::ANNOTATIONS_PER_STEP` annotations.
pub fn write_problems(
    errors: &crate::input::InputErrors,
    args: &ReportOptions,
    command: &str,
) -> Result<()> {
    let format = args.format();
    let Some(text) = format.problems(command, errors)? else {
        return Ok(());
    };
    let mut out = Output::open(args.output.as_deref(), format.content())?;
    std::io::Write::write_all(&mut out, text.as_bytes()).context("cannot write the report")?;
    // The step summary is an output like the others, committed with the report.
    let appended: Vec<Appended> = step_summary(args)
        .map(|path| Appended {
            role: STEP_SUMMARY.to_owned(),
            path,
            bytes: problems::markdown(command, errors).into_bytes(),
        })
        .into_iter()
        .collect();
    commit_all_appending(vec![out], &appended)
}

/// What names the step summary in messages.
pub const STEP_SUMMARY: &str = "$GITHUB_STEP_SUMMARY";

/// The step summary a GitHub report of problems appends to (`$GITHUB_STEP_SUMMARY`, when it
/// is set and the format is `github`): an output of the run, which no input or other output
/// may be (give it to [`check_paths`](crate::output::check_paths) as [`STEP_SUMMARY`]).
pub fn step_summary(args: &ReportOptions) -> Option<std::path::PathBuf> {
    if !args.format().appends_step_summary() {
        return None;
    }
    std::env::var_os("GITHUB_STEP_SUMMARY")
        .filter(|s| !s.is_empty())
        .map(std::path::PathBuf::from)
}
