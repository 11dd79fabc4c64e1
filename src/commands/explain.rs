//! `leasejudge explain`: replay cases and show how each verdict came about, as a text trace,
//! JSON, Markdown with Mermaid sequence diagrams, or a self-contained HTML timeline page.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::commands::adjudicate::parse_timestamp;
use crate::commands::adjudicate::source_names;
use crate::explain::stream::{every_trace, explain_streaming, unknown_cases};
use crate::explain::{CaseTrace, Format};
use crate::input::{expand_inputs, InputFormat, ReadArgs};
use crate::lease::Timestamp;
use crate::output::{check_paths, Named, Output};
use crate::streaming::StreamError;

/// Show, row by row, how each case's verdict came about.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Exit status: 0 the explanation was written; 2 bad input, an unknown --case, or usage (every \
problem is listed, and no output file is written or replaced).")]
pub struct Args {
    /// Case files (CSV, JSON, NDJSON or a workbook by extension), directories, or `-` for standard input.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Explain only these cases: a comma-separated list, or repeat --case. Without it every
    /// case is explained, in order of first appearance.
    #[arg(
        long = "case",
        value_name = "CASE_ID",
        value_delimiter = ',',
        action = clap::ArgAction::Append
    )]
    pub cases: Vec<String>,

    /// Output format [default: text; html or json when -o ends in .html or .json, mermaid
    /// when it ends in .md].
    #[arg(long, short = 'f', value_enum)]
    pub format: Option<Format>,

    /// Write to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Read every input as this format, whatever its extension.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormat>,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub read: ReadArgs,

    /// Judge every case at this RFC 3339 instant if it is later than the case's last row.
    #[arg(long, value_name = "TIMESTAMP", value_parser = parse_timestamp)]
    pub as_of: Option<Timestamp>,

    /// Without --case, HTML and Mermaid show only the first N cases (a page or diagram of
    /// every case of a large file is too big to open) and say how many were left out; 0 shows
    /// every case. Text and JSON always have every case.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_LIMIT)]
    pub limit: usize,

    /// Also give each case a minimal witness: some of its rows that, replayed alone as a case
    /// (judged at their last observed_at, or --as-of if later), give its decision and reason,
    /// none of which can be left out; marked in every format (`witness` in JSON). A search
    /// stopped by its budget of replayed rows per case says so (JSON: "minimal": false).
    #[arg(long)]
    pub witness: bool,
}

/// The default `--limit`: a page of this many cases stays a few megabytes.
pub const DEFAULT_LIMIT: usize = 500;

/// Reads the inputs and replays the cases `wanted` names (every case when empty; each must
/// be in the inputs), in order of first appearance. Unknown ids are errors, listed after any
/// input errors would have been.
pub fn traces(
    inputs: &[PathBuf],
    input_format: Option<InputFormat>,
    as_of: Option<Timestamp>,
    wanted: &[String],
) -> Result<Vec<CaseTrace>> {
    let sources = ReadArgs::default().apply(expand_inputs(inputs)?);
    let traces = match every_trace(&sources, input_format, as_of) {
        Ok(traces) => traces,
        Err(StreamError::Input(errors)) => return Err(errors.into()),
        Err(StreamError::Io(e)) => return Err(e.into()),
    };
    unknown_cases(wanted, |id| traces.iter().any(|trace| trace.case_id == id))?;
    Ok(traces
        .into_iter()
        .filter(|trace| wanted.is_empty() || wanted.contains(&trace.case_id))
        .collect())
}

/// Runs `explain`.
pub fn run(args: &Args) -> Result<ExitCode> {
    if args.inputs.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        anyhow::bail!("standard input (-) can be read only once");
    }
    let sources = args.read.apply(expand_inputs(&args.inputs)?);
    let output_name = match &args.output {
        Some(path) => Named::new("-o", path),
        None => Named::stdout("the explanation"),
    };
    check_paths(&source_names(&sources), &[output_name])?;
    let format = args.format.unwrap_or_else(|| default_format(&args.output));
    // Text and JSON have always opened their output before reading, pages after.
    let paged = matches!(format, Format::Html | Format::Mermaid);
    let mut output = match paged {
        false => Some(Output::open(args.output.as_deref(), format.content())?),
        true => None,
    };
    let progress = crate::terminal::spinner("explain", &sources);
    let explained = explain_streaming(
        &sources,
        args.input_format,
        args.as_of,
        (format, args.limit),
        &args.cases,
        crate::streaming::Window::COMMAND,
        args.witness
            .then_some(crate::explain::witness::Search::COMMAND),
    );
    if let Some(progress) = progress {
        progress.finish_and_clear();
    }
    let explanation = explained?;
    let mut output = match output.take() {
        Some(output) => output,
        None => Output::open(args.output.as_deref(), format.content())?,
    };
    if explanation.shown < explanation.selected {
        crate::output::to_stderr_wrapped(&format!(
            "leasejudge: explain: showing the first {} of {} cases; {} left out \
             (--limit N, --limit 0 for all, or --case ID to choose)",
            explanation.shown,
            explanation.selected,
            explanation.selected - explanation.shown
        ));
    }
    if matches!(format, Format::Text) {
        // The trace is text for people: every line fits the width (COLUMNS, the terminal, or
        // 80), a long claim or state continuing under its value.
        let width = crate::terminal::table_width(output.is_terminal());
        let mut wrapped = crate::terminal::WrapLines::new(&mut output, usize::from(width));
        explanation.write_to(&mut wrapped)?;
        wrapped.finish()?;
    } else {
        explanation.write_to(&mut output)?;
    }
    output.commit()?;
    Ok(ExitCode::SUCCESS)
}

fn default_format(target: &Option<PathBuf>) -> Format {
    let extension = target
        .as_deref()
        .and_then(crate::input::lowercase_extension);
    match extension.as_deref() {
        Some("html" | "htm") => Format::Html,
        Some("json") => Format::Json,
        Some("md" | "markdown") => Format::Mermaid,
        _ => Format::Text,
    }
}
