//! `leasejudge validate`: checks case files without judging them for output: every input error
//! located (exit 2), plus warnings a case author wants to see (exit 0 if there are only those).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};

use crate::input::{expand_inputs, InputFormat, ReadArgs};
use crate::streaming::Window;
use crate::validation::validate_streaming;

/// Check case files: every input error, and warnings about what a case author likely did
/// not mean.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Warnings: a file with no case rows; columns that are ignored (but for a note or comment \
column, which is for people); fields given on events that do not use them. With --lint, also \
a case that ends before any deadline passed (so its decision says nothing about expiry) and a \
case that never leaves PENDING_ACK.

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

    /// Also note cases that may not be what their author meant: a case that ends before any
    /// deadline passed (so its decision says nothing about expiry), and a case that never
    /// leaves PENDING_ACK. Off by default: both are often meant (a case about an ack in time
    /// ends ACTIVE before it expires).
    #[arg(long)]
    pub lint: bool,

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
    let report = validate_streaming(
        &sources,
        args.input_format,
        args.max_warnings,
        args.lint,
        Window::COMMAND,
    );
    if let Some(progress) = progress {
        progress.finish_and_clear();
    }
    let report = report?;
    // Standard error is where the findings go; if it is closed or full they are lost, and
    // the exit status still says whether there were errors. No line of it can be a
    // workflow command in a CI log, whatever the messages quote.
    let mut stderr = crate::output::StderrLines::new();
    for error in &report.errors {
        stderr.line(error);
    }
    if let Some(line) = crate::output::unlisted_line(&report.errors) {
        stderr.line(line);
    }
    let shown = report.warnings.listed_count();
    for warning in report.warnings.listed()? {
        stderr.line(format_args!("warning: {}", warning?));
    }
    if shown < report.warnings.total() {
        stderr.line(format_args!(
            "warning: {} more not listed (--max-warnings {shown})",
            report.warnings.total() - shown
        ));
    }
    if !report.warnings.is_empty() {
        stderr.line(format_args!(
            "warnings by kind: {}",
            report.warnings.by_kind()
        ));
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
        stderr.flush();
        // Through Output, which knows a closed standard output: then this is an error.
        let mut stdout = crate::output::Output::open(None, crate::output::Content::Text)?;
        writeln!(stdout, "{summary}")?;
        stdout.commit()?;
        Ok(ExitCode::SUCCESS)
    } else {
        stderr.line(summary);
        Ok(ExitCode::from(2))
    }
}
