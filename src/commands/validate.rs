//! `leasejudge validate`: checks case files without judging them for output: every input error
//! located (exit 2), plus warnings a case author wants to see (exit 0 if there are only those).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};

use crate::input::{expand_inputs, InputFormat, ReadArgs};
use crate::validation::validate_streaming;

/// Check case files: every input error, and warnings about what a case author likely did
/// not mean.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Warnings: a file with no case rows; columns that are ignored; fields given on events that do not use them; a case that \
ends before any deadline passed (so its decision says nothing about expiry); a case that never \
leaves PENDING_ACK.

Exit status: 0 no input errors (warnings may be listed); 2 bad input or usage (every problem is \
listed as FILE:LINE: column: message (value)).")]
pub struct Args {
    /// Case files (CSV, JSON, NDJSON or a workbook by extension), directories (every case file in them, in
    /// name order), or `-` for standard input.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Read every input as this format, whatever its extension.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormat>,

    /// List at most N warnings (the first N, in file order); every warning is still counted
    /// in the summary by kind. The exit code does not depend on warnings.
    #[arg(long, value_name = "N")]
    pub max_warnings: Option<usize>,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub read: ReadArgs,
}

/// Runs `validate`.
pub fn run(args: &Args) -> Result<ExitCode> {
    if args.inputs.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        bail!("standard input (-) can be read only once");
    }
    let sources = args.read.apply(expand_inputs(&args.inputs)?);
    let progress = crate::terminal::spinner("validate", &sources);
    let report = validate_streaming(&sources, args.input_format, args.max_warnings);
    if let Some(progress) = progress {
        progress.finish_and_clear();
    }
    let report = report?;
    // No line of it can be a workflow command in a CI log, whatever the messages quote.
    let mut stderr =
        crate::output::InertWriter::new(std::io::stderr().lock(), crate::output::Syntax::Text);
    for error in &report.errors {
        writeln!(stderr, "{error}")?;
    }
    let shown = report.warnings.listed_count();
    for warning in report.warnings.listed()? {
        writeln!(stderr, "warning: {}", warning?)?;
    }
    if shown < report.warnings.total() {
        writeln!(
            stderr,
            "warning: {} more not listed (--max-warnings {shown})",
            report.warnings.total() - shown
        )?;
    }
    if !report.warnings.is_empty() {
        writeln!(stderr, "warnings by kind: {}", report.warnings.by_kind())?;
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let summary = format!(
        "{}, {}: {}, {}",
        plural(report.cases, "case"),
        plural(report.rows, "row"),
        plural(report.errors.len(), "input error"),
        plural(report.warnings.total(), "warning"),
    );
    if report.errors.is_empty() {
        // Through Output, which knows a closed standard output: then this is an error.
        let mut stdout = crate::output::Output::open(None, crate::output::Content::Text)?;
        writeln!(stdout, "{summary}")?;
        stdout.commit()?;
        Ok(ExitCode::SUCCESS)
    } else {
        writeln!(stderr, "{summary}")?;
        Ok(ExitCode::from(2))
    }
}
