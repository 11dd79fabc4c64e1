//! `leasejudge shortcuts`: how strong a lab is against the catalogue of shortcuts — which
//! its cases catch, which survive (and the case that would catch each), which no case can
//! catch on the graded columns — and, with `--suggest`, the cases that mend it. The command
//! line only: the work is [`crate::ops::shortcuts`].

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::commands::args::GradedColumns;
use crate::commands::args::ReadArgs;
use crate::commands::choice::choice;
use crate::grading::parse_column_list;
use crate::input::InputFormat;
use crate::ops::shortcuts::{Options, ReportFormat};

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
    #[arg(long, short = 'f', value_parser = choice::<ReportFormat>(), default_value = "text")]
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
    #[arg(long, value_parser = choice::<InputFormat>(), value_name = "FORMAT")]
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
    let options = Options {
        inputs: args.inputs.clone(),
        columns: args.columns.as_ref().map(|columns| columns.0.clone()),
        format: args.format,
        output: args.output.clone(),
        suggest: args.suggest.clone(),
        golden: args.golden.clone(),
        input_format: args.input_format,
        read: args.read.options(),
        jobs: args.jobs,
    };
    crate::ops::shortcuts::run(&options).map(super::exit_code)
}
