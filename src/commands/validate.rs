//! `leasejudge validate`: checks case files without judging them for output: every input error
//! located (exit 2), plus warnings a case author wants to see (exit 0 if there are only those).
//! The command line only: the work is [`crate::ops::validate`].

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::commands::args::ReadArgs;
use crate::commands::choice::choice;
use crate::input::InputFormat;
use crate::ops::validate::Options;

/// Check case files: every input error, and warnings about what a case author likely did
/// not mean.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Warnings: a file with no case rows; columns that are ignored (but for a note or comment \
column, which is for people); fields given on events that do not use them. With --lint, also \
a case that ends before any deadline passed (so its decision says nothing about expiry) and a \
case that never leaves PENDING_ACK.

Exit status: 0 no input errors (warnings may be listed); 2 bad input or usage (every problem is \
listed as FILE:LINE: column: message (value)).")]
pub struct Args {
    /// Case files (CSV, JSON, NDJSON or a workbook by extension), directories (every case file in them, in
    /// name order), or `-` for standard input.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Read every input as this format, whatever its extension.
    #[arg(long, value_parser = choice::<InputFormat>(), value_name = "FORMAT")]
    pub input_format: Option<InputFormat>,

    /// Also note cases that may not be what their author meant: a case that ends before any
    /// deadline passed (so its decision says nothing about expiry), and a case that never
    /// leaves PENDING_ACK. Off by default: both are often meant (a case about an ack in time
    /// ends ACTIVE before it expires).
    #[arg(long)]
    pub lint: bool,

    /// List at most N warnings (the first N, in file order); every warning is still counted
    /// in the summary by kind. The exit code does not depend on warnings.
    #[arg(long, value_name = "N")]
    pub max_warnings: Option<usize>,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub read: ReadArgs,
}

/// Runs `validate`.
pub fn run(args: &Args) -> Result<ExitCode> {
    let options = Options {
        inputs: args.inputs.clone(),
        input_format: args.input_format,
        lint: args.lint,
        max_warnings: args.max_warnings,
        read: args.read.options(),
    };
    crate::ops::validate::run(&options).map(super::exit_code)
}
