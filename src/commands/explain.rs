//! `leasejudge explain`: replay cases and show how each verdict came about, as a text trace,
//! JSON, Markdown with Mermaid sequence diagrams, or a self-contained HTML timeline page.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::adjudication::judge_sources;
use crate::commands::adjudicate::parse_timestamp;
use crate::commands::adjudicate::source_names;
use crate::explain::{CaseTrace, Format, TraceCollector};
use crate::input::{expand_inputs, InputError, InputErrors, InputFormat, ReadArgs};
use crate::lease::Timestamp;
use crate::output::{check_paths, Named, Output};

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
}

/// The default `--limit`: a page of this many cases stays a few megabytes.
pub const DEFAULT_LIMIT: usize = 500;

/// Reads the inputs and collects the rows of every case, checking that each id in `wanted`
/// names a case. Unknown ids are errors, listed after any input errors would have been.
pub fn collect(
    inputs: &[PathBuf],
    input_format: Option<InputFormat>,
    as_of: Option<Timestamp>,
    wanted: &[String],
) -> Result<TraceCollector> {
    collect_read(inputs, input_format, &ReadArgs::default(), as_of, wanted)
}

/// [`collect`], reading CSV files and workbooks as `read` says.
fn collect_read(
    inputs: &[PathBuf],
    input_format: Option<InputFormat>,
    read: &ReadArgs,
    as_of: Option<Timestamp>,
    wanted: &[String],
) -> Result<TraceCollector> {
    let sources = read.apply(expand_inputs(inputs)?);
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
    Ok(collector)
}

/// Reads the inputs and replays the cases `wanted` names (every case when empty), in order
/// of first appearance.
pub fn traces(
    inputs: &[PathBuf],
    input_format: Option<InputFormat>,
    as_of: Option<Timestamp>,
    wanted: &[String],
) -> Result<Vec<CaseTrace>> {
    let collector = collect(inputs, input_format, as_of, wanted)?;
    collector.traces(as_of, &|id| selected(wanted, id))
}

fn selected(wanted: &[String], id: &str) -> bool {
    wanted.is_empty() || wanted.iter().any(|w| w == id)
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
    if matches!(format, Format::Text | Format::Json) {
        // Written case by case as cases close, in bounded memory.
        let mut output = Output::open(args.output.as_deref())?;
        let progress = crate::terminal::spinner("explain", &sources);
        let explained = crate::explain::stream::explain_streaming(
            &sources,
            args.input_format,
            args.as_of,
            format,
            &args.cases,
            &mut output,
        );
        if let Some(progress) = progress {
            progress.finish_and_clear();
        }
        explained?;
        output.commit()?;
        return Ok(ExitCode::SUCCESS);
    }
    let progress = crate::terminal::spinner("explain", &sources);
    let collected = collect_read(
        &args.inputs,
        args.input_format,
        &args.read,
        args.as_of,
        &args.cases,
    );
    if let Some(progress) = progress {
        progress.finish_and_clear();
    }
    let collector = collected?;
    let total = collector.count(&|id| selected(&args.cases, id));
    let limited = matches!(format, Format::Html | Format::Mermaid)
        && args.cases.is_empty()
        && args.limit > 0
        && total > args.limit;
    // The first `limit` cases in order of first appearance.
    let first: std::collections::HashSet<&str> = if limited {
        collector.case_ids().take(args.limit).collect()
    } else {
        std::collections::HashSet::new()
    };
    let first: std::collections::HashSet<String> = first.into_iter().map(str::to_owned).collect();
    let keep = |id: &str| {
        if limited {
            first.contains(id)
        } else {
            selected(&args.cases, id)
        }
    };
    let count = collector.count(&keep);
    let mut output = Output::open(args.output.as_deref())?;
    output
        .write_all(format.start(count).as_bytes())
        .context("cannot write the explanation")?;
    if limited {
        let left_out = total - count;
        output
            .write_all(format.omitted(count, left_out).as_bytes())
            .context("cannot write the explanation")?;
        eprintln!(
            "leasejudge: explain: showing the first {count} of {total} cases; {left_out} left out \
             (--limit N, --limit 0 for all, or --case ID to choose)"
        );
    }
    let mut index = 0;
    collector.replay_each(args.as_of, &keep, &mut |trace| {
        output
            .write_all(format.case(index, &trace).as_bytes())
            .context("cannot write the explanation")?;
        index += 1;
        Ok(())
    })?;
    output
        .write_all(format.end(count).as_bytes())
        .context("cannot write the explanation")?;
    output.commit()?;
    Ok(ExitCode::SUCCESS)
}

fn default_format(target: &Option<PathBuf>) -> Format {
    let extension = target
        .as_ref()
        .and_then(|p| p.extension())
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("html" | "htm") => Format::Html,
        Some("json") => Format::Json,
        Some("md" | "markdown") => Format::Mermaid,
        _ => Format::Text,
    }
}
