//! `leasejudge shortcuts`: how strong a lab is against the catalogue of shortcuts — which
//! its cases catch, which survive (and the case that would catch each), which no case can
//! catch on the graded columns — and, with `--suggest`, the cases that mend it. The work is
//! `shortcuts::assess`; the report is `report::shortcuts`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use crate::commands::adjudicate::source_names;
use crate::grading::{parse_column_list, GradedColumns, DEFAULT_GRADED};
use crate::input::{expand_inputs, InputFormat, ReadArgs};
use crate::output::{check_paths, persist_all, Content, Named, Output};
use crate::report::shortcuts::{write_json, write_markdown, write_text};
use crate::shortcuts::{assess, format_for, write_suggestions};
use crate::streaming::{StreamError, StreamSettings, Window};

/// How the report is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// A table for people, then each survivor's case and each uncatchable's reason.
    Text,
    /// One JSON object: every shortcut with its status and the cases that catch it.
    Json,
    /// Markdown, for a CI step summary.
    Markdown,
}

fn parse_columns(text: &str) -> Result<GradedColumns, String> {
    parse_column_list(text).map(GradedColumns)
}

/// Say which shortcuts (misreadings of the contract) a lab's cases catch.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Each shortcut is caught (a case of the lab whose matrix row under the shortcut differs from \
the contract's in a graded column), survives (no case of the lab catches it, but the search \
found one that would: --suggest writes it), or uncatchable (no case can catch it on these \
columns: the search reached every pair of cases it can build; the report names the columns \
that would catch it).\n\
Exit status: 0 nothing catchable survives; 1 some shortcut survives (or the search could not \
decide one); 2 bad input or usage (every problem is listed as FILE:LINE: column: message \
(value), and nothing is written).")]
pub struct Args {
    /// The lab's case files (CSV, JSON, NDJSON or a workbook by extension), directories, or
    /// `-` for standard input.
    #[arg(required = true, value_name = "CASES")]
    pub inputs: Vec<PathBuf>,

    /// The graded columns: names separated by commas (as matrix headers), or `all`
    /// [default: decision,reason, as grade's].
    #[arg(long, value_name = "COLUMNS", value_parser = parse_columns)]
    pub columns: Option<GradedColumns>,

    /// The report's format.
    #[arg(long, short = 'f', value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,

    /// Write the report to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Write a case file with, for each surviving shortcut, the case of fewest rows the search
    /// found that catches it (case id catch-<name>): CSV, or JSON, NDJSON by extension.
    #[arg(long, value_name = "FILE")]
    pub suggest: Option<PathBuf>,

    /// Also write the golden matrix of the --suggest cases (the contract's), CSV or JSON by
    /// extension.
    #[arg(long, value_name = "FILE", requires = "suggest")]
    pub golden: Option<PathBuf>,

    /// Read every input as this format, whatever its extension.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormat>,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub read: ReadArgs,

    /// Threads for the searches [default: the number of CPUs]; 1 to 256, of which at most 4
    /// search at once (each holds up to about 45 MiB). The report is the same for any N.
    #[arg(long, value_name = "N", value_parser = crate::limits::parse_jobs)]
    pub jobs: Option<usize>,
}

/// Runs `shortcuts`.
pub fn run(args: &Args) -> Result<ExitCode> {
    if args.inputs.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        bail!("standard input (-) can be read only once");
    }
    let suggest_format = match &args.suggest {
        Some(path) => Some(format_for(path).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let sources = args.read.apply(expand_inputs(&args.inputs)?);
    let mut outputs = vec![match &args.output {
        Some(path) => Named::new("-o", path),
        None => Named::stdout("the report"),
    }];
    if let Some(path) = &args.suggest {
        outputs.push(Named::new("--suggest", path));
    }
    if let Some(path) = &args.golden {
        outputs.push(Named::new("--golden", path));
    }
    check_paths(&source_names(&sources), &outputs)?;

    let graded = args
        .columns
        .as_ref()
        .map_or(&DEFAULT_GRADED[..], |columns| &columns.0)
        .iter()
        .fold(0u32, |bits, column| bits | 1 << column.index());
    let settings = StreamSettings {
        input_format: args.input_format,
        open_cases: Window::COMMAND.open_cases,
        kept_rows: Window::COMMAND.kept_rows,
        case_rows_in_memory: Window::COMMAND.case_rows_in_memory,
        ..StreamSettings::in_file_order()
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let assessment = match assess(&sources, &settings, graded, jobs) {
        Ok(assessment) => assessment,
        Err(StreamError::Input(errors)) => return Err(errors.into()),
        Err(StreamError::Io(e)) => return Err(e).context("cannot judge the cases"),
    };

    let content = match args.format {
        ReportFormat::Text => Content::Text,
        ReportFormat::Json => Content::Json,
        ReportFormat::Markdown => Content::Text,
    };
    let mut report = Output::open(args.output.as_deref(), content)?;
    match args.format {
        ReportFormat::Text => write_text(&assessment, &mut report),
        ReportFormat::Json => write_json(&assessment, &mut report),
        ReportFormat::Markdown => write_markdown(&assessment, &mut report),
    }
    .context("cannot write the report")?;
    let mut finished = vec![report.finish()?];
    if let (Some(path), Some(format)) = (&args.suggest, suggest_format) {
        finished.extend(write_suggestions(
            &assessment,
            path,
            format,
            args.golden.as_ref(),
        )?);
    }
    persist_all(finished)?;
    let weak = assessment
        .shortcuts
        .iter()
        .any(|(_, standing)| standing.weakens_the_lab());
    Ok(ExitCode::from(u8::from(weak)))
}
