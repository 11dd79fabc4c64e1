//! `leasejudge precheck`: a learner checks their filled-in matrix before handing it in,
//! without the key. The command line only: the work is [`crate::ops::precheck`].

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::commands::args::GradedColumns;
use crate::commands::args::ReadArgs;
use crate::commands::choice::choice;
use crate::grading::parse_column_list;
use crate::ops::precheck::{Options, PrecheckFormat};

fn parse_graded(text: &str) -> Result<GradedColumns, String> {
    parse_column_list(text).map(GradedColumns)
}

/// Check a filled-in matrix before handing it in (no key needed).
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Checks the matrix as the autograder will read it, without the answers: every case of the case \
files once, no case they lack, the graded columns there, and every graded cell a valid code \
(with the nearest one when it is not) or a value where every case has one. The first line says \
how the file was read (its delimiter, encoding, or the workbook's sheet); each problem is \
listed as FILE:LINE: column: message.

A folder is checked as an autograder finds the matrix in an upload: its one matrix file, \
hidden folders (.git) and the lab's case files set aside.

Exit status: 0 ready to hand in; 2 problems (listed), or the case files cannot be read.")]
pub struct Args {
    /// The matrix file (CSV, JSON or a workbook), or a folder holding it.
    #[arg(value_name = "SUBMISSION")]
    submission: PathBuf,

    /// The lab's case files (or directories of them): the cases the matrix must answer.
    #[arg(long = "cases", value_name = "CASEFILE", num_args = 1.., required = true)]
    cases: Vec<PathBuf>,

    /// The graded columns, as the grader grades them: names separated by commas, or `all`.
    #[arg(long, value_name = "COLUMNS", default_value = "decision,reason", value_parser = parse_graded)]
    columns: GradedColumns,

    /// How the matrix is read, as the grader reads it.
    #[command(flatten)]
    read: ReadArgs,

    /// What is printed.
    #[arg(long, short = 'f', value_parser = choice::<PrecheckFormat>(), default_value = "text")]
    format: PrecheckFormat,
}

/// Runs `precheck`.
pub fn run(args: &Args) -> Result<ExitCode> {
    let options = Options {
        submission: args.submission.clone(),
        cases: args.cases.clone(),
        columns: args.columns.0.clone(),
        read: args.read.options(),
        format: args.format,
    };
    crate::ops::precheck::run(&options).map(super::exit_code)
}
