//! `leasejudge reorder`: spec section 7 as a check a lab designer runs, trying seeded
//! permutations of each case's renew/progress arrivals. The command line only: the work is
//! [`crate::ops::reorder`].

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::commands::adjudicate::parse_timestamp;
use crate::commands::args::ReadArgs;
use crate::commands::choice::choice;
use crate::input::InputFormat;
use crate::lease::Timestamp;
use crate::ops::reorder::Options;

/// Permute which renew/progress messages of one generation fill their arrival slots (spec
/// section 7) and report invariant violations and order-sensitive cases.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
For each case, every swap of two messages is tried first, then random larger permutations, up \
to --permutations in all; the same --seed always tries the same permutations. A permutation \
is written as the lines of its arrival slots and the lines of the messages that fill them.

Exit status: 0 the invariant held (order-sensitive cases are information); 1 the invariant of \
section 7 was violated (a bug in the lease rules); 2 bad input or usage.")]
pub struct Args {
    /// Case files (CSV, JSON, NDJSON or a workbook by extension), directories, or `-` for standard input.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// How many permutations to try per case.
    #[arg(long, short = 'n', default_value_t = 100, value_name = "N",
          value_parser = crate::limits::parse_permutations)]
    pub permutations: usize,

    /// The seed of the permutations (the same seed tries the same permutations).
    #[arg(long, default_value_t = 0, value_name = "S")]
    pub seed: u64,

    /// Judge whole cases at this RFC 3339 instant if it is later than the case's last row.
    #[arg(long, value_name = "TIMESTAMP", value_parser = parse_timestamp)]
    pub as_of: Option<Timestamp>,

    /// Read every input as this format, whatever its extension.
    #[arg(long, value_parser = choice::<InputFormat>(), value_name = "FORMAT")]
    pub input_format: Option<InputFormat>,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub read: ReadArgs,

    /// Write the report to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Runs `reorder`.
pub fn run(args: &Args) -> Result<ExitCode> {
    let options = Options {
        inputs: args.inputs.clone(),
        permutations: args.permutations,
        seed: args.seed,
        as_of: args.as_of,
        input_format: args.input_format,
        read: args.read.options(),
        output: args.output.clone(),
    };
    crate::ops::reorder::run(&options).map(super::exit_code)
}
