//! `leasejudge template`: the blank matrix to hand out for a lab — the header and one row per
//! case of the case files, in matrix order, with only `case_id` filled in. Grading it
//! untouched scores 0 (every graded cell is empty, and a golden decision or reason never is).
//! The command line only: the work is [`crate::ops::template`].

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::commands::args::GradedColumns;
use crate::grading::parse_column_list;
use crate::ops::template::Options;

fn parse_columns(text: &str) -> Result<GradedColumns, String> {
    parse_column_list(text).map(GradedColumns)
}

/// Write the blank matrix learners fill in.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Exit status: 0 the template was written; 2 bad input (every problem listed as \
FILE:LINE: column: message (value); nothing is written) or usage.")]
pub struct Args {
    /// Case files (CSV, JSON or NDJSON by extension), directories, or `-` for standard input.
    #[arg(required = true, value_name = "CASES")]
    pub inputs: Vec<PathBuf>,

    /// The columns after case_id: names separated by commas (as matrix headers), or `all`.
    #[arg(long, value_name = "COLUMNS", default_value = "all", value_parser = parse_columns)]
    pub columns: GradedColumns,

    /// Write to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Runs `template`.
pub fn run(args: &Args) -> Result<ExitCode> {
    let options = Options {
        inputs: args.inputs.clone(),
        columns: args.columns.0.clone(),
        output: args.output.clone(),
    };
    crate::ops::template::run(&options).map(super::exit_code)
}
