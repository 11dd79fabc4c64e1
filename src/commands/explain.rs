//! `leasejudge explain`: replay cases and show how each verdict came about. The command line
//! only: the work is [`crate::ops::explain`].

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::commands::adjudicate::parse_timestamp;
use crate::commands::args::ReadArgs;
use crate::commands::choice::choice;
use crate::explain::Format;
use crate::input::InputFormat;
use crate::lease::Timestamp;
use crate::ops::explain::{Options, DEFAULT_LIMIT};

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
    #[arg(long, short = 'f', value_parser = choice::<Format>())]
    pub format: Option<Format>,

    /// Write to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Read every input as this format, whatever its extension.
    #[arg(long, value_parser = choice::<InputFormat>(), value_name = "FORMAT")]
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

/// Runs `explain`.
pub fn run(args: &Args) -> Result<ExitCode> {
    let options = Options {
        inputs: args.inputs.clone(),
        cases: args.cases.clone(),
        format: args.format,
        output: args.output.clone(),
        input_format: args.input_format,
        read: args.read.options(),
        as_of: args.as_of,
        limit: args.limit,
        witness: args.witness,
    };
    crate::ops::explain::run(&options).map(super::exit_code)
}
