//! `leasejudge adjudicate`: replay case files and write the evidence matrix (and an audit).
//! The command line only: the work is [`crate::ops::adjudicate`].

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::commands::args::ReadArgs;
use crate::commands::choice::choice;
use crate::input::InputFormat;
use crate::lease::Timestamp;
use crate::ops::adjudicate::{MatrixFormat, Options};
use crate::report::table::TableColumns;
use crate::streaming::DEFAULT_OPEN_CASES;

/// Replay case files through the lease rules and write the evidence matrix.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Exit status: 0 the matrix was written; 2 bad input or usage (every problem is listed as \
FILE:LINE: column: message (value), and no output file is written or replaced).")]
pub struct Args {
    /// Case files (CSV, JSON, NDJSON or a workbook by extension), directories (every case file in them, in
    /// name order), or `-` for standard input.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Output format [default: table on a terminal, else csv; json when -o ends in .json].
    #[arg(long, short = 'f', value_parser = choice::<MatrixFormat>())]
    pub format: Option<MatrixFormat>,

    /// Write the matrix to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Read every input as this format, whatever its extension (needed for standard input,
    /// which is otherwise read as CSV).
    #[arg(long, value_parser = choice::<InputFormat>(), value_name = "FORMAT")]
    pub input_format: Option<InputFormat>,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub read: ReadArgs,

    /// Judge every case at this RFC 3339 instant if it is later than the case's last row.
    #[arg(long, value_name = "TIMESTAMP", value_parser = parse_timestamp)]
    pub as_of: Option<Timestamp>,

    /// Also write one CSV line per input row (case_id, file, line, event, disposition,
    /// reason) to FILE; `-` streams it to standard output as rows are read.
    #[arg(long, value_name = "FILE")]
    pub audit: Option<PathBuf>,

    /// Add a `detail` column after `reason`: one sentence per case naming the rows that
    /// decided it (the sentence of `leasejudge explain`).
    #[arg(long)]
    pub explain: bool,

    /// With --explain, add two columns after `detail`: `witness`, the lines of a minimal
    /// witness (rows that, replayed alone, give the case's decision and reason, none of which
    /// can be left out), `;`-joined; and `witness_minimal`, `false` when the search stopped at
    /// its budget of replayed rows (see `leasejudge explain --witness`).
    #[arg(long, requires = "explain")]
    pub witness: bool,

    /// Threads for reading several input files at once, or the two halves of one CSV file of
    /// 4 MiB or more [default: the number of CPUs]; 1 to 256. The output is the same for any N.
    #[arg(long, value_name = "N", value_parser = crate::limits::parse_jobs)]
    pub jobs: Option<usize>,

    /// Cases kept open at once (per half, for a file read as two halves) before the oldest is
    /// judged and written out; a case that continues after that is still judged correctly: its
    /// own rows are read again. 1 to 1000000.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_OPEN_CASES,
          value_parser = crate::limits::parse_open_cases)]
    pub open_cases: usize,

    /// The table's columns: names separated by commas (matrix columns, `findings`, `detail`),
    /// `default` (case_id, decision, reason, findings) or `all`. Implies `-f table`; with
    /// `-f csv` or `-f json` (which always have every matrix column) it is a usage error.
    #[arg(long, value_name = "COLUMNS", value_parser = TableColumns::parse)]
    pub columns: Option<TableColumns>,

    /// Show every column in the table (as --columns all): a vertical record per case when
    /// they cannot fit the terminal. Implies `-f table`; a usage error with `-f csv` or `-f json`.
    #[arg(long, conflicts_with = "columns")]
    pub wide: bool,
}

/// Parses a command-line timestamp with the contract's grammar.
pub fn parse_timestamp(text: &str) -> Result<Timestamp, String> {
    Timestamp::parse(text.trim()).map_err(|e| e.to_string())
}

/// Runs `adjudicate`.
pub fn run(args: &Args) -> Result<ExitCode> {
    let options = Options {
        inputs: args.inputs.clone(),
        format: args.format,
        output: args.output.clone(),
        input_format: args.input_format,
        read: args.read.options(),
        as_of: args.as_of,
        audit: args.audit.clone(),
        explain: args.explain,
        witness: args.witness,
        jobs: args.jobs,
        open_cases: args.open_cases,
        columns: args.columns.clone(),
        wide: args.wide,
    };
    crate::ops::adjudicate::run(&options).map(super::exit_code)
}
