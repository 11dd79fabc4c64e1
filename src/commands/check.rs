//! `leasejudge check`: adjudicate case files with the engine and diff their matrices against
//! golden matrices (spec section 8), for CI. The command line only: the work is
//! [`crate::ops::check`].

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::commands::adjudicate::parse_timestamp;
use crate::commands::args::ReadArgs;
use crate::commands::args::ReportArgs;
use crate::lease::Timestamp;
use crate::ops::check::Options;

/// Adjudicate case files and compare their matrices with golden files.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Directories pair files by name: cases/x.csv (or .json, .ndjson, .jsonl, .xlsx, .xlsm, .ods) \
with golden/x.csv (or .json, .xlsx, .xlsm, .ods); subdirectories are not read. A file without \
a partner is reported. Golden values must be in the canonical form the engine writes.

Exit status: 0 every graded column of every case matches; 1 differences (a wrong, missing or \
unknown case, or an unpaired file); 2 trouble (unreadable file, bad input, a golden file \
lacking a graded column), every problem listed as FILE:LINE: column: message (value).")]
pub struct Args {
    /// A case file, a directory of case files, or `-` for a CSV case file on standard input
    /// (then --golden names a file).
    #[arg(value_name = "CASES")]
    pub cases: PathBuf,

    /// The golden matrix (CSV, or JSON or a workbook by extension) of a case file, or a
    /// directory of them.
    #[arg(long, value_name = "GOLDEN")]
    pub golden: PathBuf,

    /// Judge every case at this RFC 3339 instant if it is later than the case's last row.
    #[arg(long, value_name = "TIMESTAMP", value_parser = parse_timestamp)]
    pub as_of: Option<Timestamp>,

    /// Write the engine's matrix next to each golden file that differs in the graded columns,
    /// as `<golden>.new` (and `<golden dir>/<name>.csv.new` for a case file without one); golden files
    /// themselves are never changed.
    #[arg(long)]
    pub bless: bool,

    /// How case files that are CSV or workbooks are read (golden files: always detected, first
    /// sheet).
    #[command(flatten)]
    pub read: ReadArgs,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub report: ReportArgs,
}

/// Runs `check`.
pub fn run(args: &Args) -> Result<ExitCode> {
    let options = Options {
        cases: args.cases.clone(),
        golden: args.golden.clone(),
        as_of: args.as_of,
        bless: args.bless,
        read: args.read.options(),
        report: args.report.options(),
    };
    crate::ops::check::run(&options).map(super::exit_code)
}
