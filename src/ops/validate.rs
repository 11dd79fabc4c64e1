//! Validating case files, `validate`'s work: every input error located (trouble), plus the
//! warnings a case author wants to see, listed and counted by kind ([`crate::validation`]
//! finds them). [`run`] takes plain [`Options`]; the command line makes them
//! (`commands/validate.rs`).

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Result};

use crate::input::{expand_inputs, InputFormat, ReadOptions};
use crate::ops::Status;
use crate::streaming::Window;
use crate::validation::validate_streaming;

/// What `validate` is asked to do: the command line's options, parsed.
#[derive(Clone, Debug)]
pub struct Options {
    /// Case files, directories of them, or `-` for standard input.
    pub inputs: Vec<PathBuf>,
    /// Read every input as this format, whatever its extension.
    pub input_format: Option<InputFormat>,
    /// Also note cases that may not be what their author meant.
    pub lint: bool,
    /// List at most this many warnings (every warning is still counted).
    pub max_warnings: Option<usize>,
    /// How CSV files and workbooks are read.
    pub read: ReadOptions,
}

/// Validates the case files `options` name: every input error and the warnings, said on
/// standard error, the summary on standard output when there are no errors.
pub fn run(options: &Options) -> Result<Status> {
    if options
        .inputs
        .iter()
        .filter(|p| p.as_os_str() == "-")
        .count()
        > 1
    {
        bail!("standard input (-) can be read only once");
    }
    let sources = options.read.apply(expand_inputs(&options.inputs)?);
    let progress = crate::ops::spinner("validate", &sources);
    let report = validate_streaming(
        &sources,
        options.input_format,
        options.max_warnings,
        options.lint,
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
    if let Some(line) = report.errors.unlisted_message() {
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
        Ok(Status::Success)
    } else {
        stderr.line(summary);
        Ok(Status::Trouble)
    }
}
