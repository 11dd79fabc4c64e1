//! `leasejudge explain`: replay cases and show how each verdict came about, as a text trace,
//! JSON, Markdown with Mermaid sequence diagrams, or a self-contained HTML timeline page.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::adjudication::judge_sources;
use crate::commands::adjudicate::parse_timestamp;
use crate::explain::{html, json, mermaid, text, CaseTrace, TraceCollector};
use crate::input::{expand_inputs, InputError, InputErrors, InputFormat};
use crate::lease::Timestamp;
use crate::output::Output;

/// How the explanation is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExplainFormat {
    /// A step-by-step trace for the terminal.
    Text,
    /// The trace as one JSON array of case objects.
    Json,
    /// Markdown with one Mermaid sequence diagram per case.
    Mermaid,
    /// One self-contained HTML page with a timeline per case.
    Html,
}

/// Show, row by row, how each case's verdict came about.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Exit status: 0 the explanation was written; 2 bad input, an unknown --case, or usage (every \
problem is listed, and no output file is written or replaced).")]
pub struct Args {
    /// Case files (CSV, JSON or NDJSON by extension), directories, or `-` for standard input.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Explain only these cases (several ids may follow one --case, or repeat it); without
    /// it every case is explained, in order of first appearance.
    #[arg(long = "case", value_name = "CASE_ID", num_args = 1.., action = clap::ArgAction::Append)]
    pub cases: Vec<String>,

    /// Output format [default: text; html or json when -o ends in .html or .json, mermaid
    /// when it ends in .md].
    #[arg(long, short = 'f', value_enum)]
    pub format: Option<ExplainFormat>,

    /// Write to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Read every input as this format, whatever its extension.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormat>,

    /// Judge every case at this RFC 3339 instant if it is later than the case's last row.
    #[arg(long, value_name = "TIMESTAMP", value_parser = parse_timestamp)]
    pub as_of: Option<Timestamp>,
}

/// Reads the inputs and replays the cases `wanted` names (every case when empty). Unknown
/// ids are errors, listed after any input errors.
pub fn traces(
    inputs: &[PathBuf],
    input_format: Option<InputFormat>,
    as_of: Option<Timestamp>,
    wanted: &[String],
) -> Result<Vec<CaseTrace>> {
    let sources = expand_inputs(inputs)?;
    let mut collector = TraceCollector::new();
    judge_sources(&sources, input_format, as_of, &mut |at, row, _| {
        collector.add(at, row)
    })?;
    let unknown: Vec<InputError> = wanted
        .iter()
        .filter(|id| !collector.case_ids().any(|known| known == id.as_str()))
        .map(|id| {
            InputError::new("command line", 0, "no case with this id in the inputs")
                .column("--case")
                .value(id.clone())
        })
        .collect();
    if !unknown.is_empty() {
        return Err(InputErrors(unknown).into());
    }
    collector.traces(as_of, &|id| {
        wanted.is_empty() || wanted.iter().any(|w| w == id)
    })
}

/// Runs `explain`.
pub fn run(args: &Args) -> Result<ExitCode> {
    if args.inputs.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        anyhow::bail!("standard input (-) can be read only once");
    }
    let traces = traces(&args.inputs, args.input_format, args.as_of, &args.cases)?;
    let format = args.format.unwrap_or_else(|| default_format(&args.output));
    let rendered = match format {
        ExplainFormat::Text => text::render(&traces),
        ExplainFormat::Json => json::render(&traces),
        ExplainFormat::Mermaid => mermaid::render(&traces),
        ExplainFormat::Html => html::render(&traces),
    };
    let mut output = Output::open(args.output.as_deref())?;
    output
        .write_all(rendered.as_bytes())
        .context("cannot write the explanation")?;
    output.commit()?;
    Ok(ExitCode::SUCCESS)
}

fn default_format(target: &Option<PathBuf>) -> ExplainFormat {
    let extension = target
        .as_ref()
        .and_then(|p| p.extension())
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("html" | "htm") => ExplainFormat::Html,
        Some("json") => ExplainFormat::Json,
        Some("md" | "markdown") => ExplainFormat::Mermaid,
        _ => ExplainFormat::Text,
    }
}
