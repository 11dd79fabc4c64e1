//! `leasejudge template`: the blank matrix to hand out for a lab — the header and one row per
//! case of the case files, in matrix order, with only `case_id` filled in. Grading it
//! untouched scores 0 (every graded cell is empty, and a golden decision or reason never is).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::commands::adjudicate::source_names;
use crate::grading::template::write_blank_matrix;
use crate::grading::{parse_column_list, GradedColumns};
use crate::input::expand_inputs;
use crate::output::{check_paths, Content, Named, Output};

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
    if args.inputs.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        anyhow::bail!("standard input (-) can be read only once");
    }
    let sources = expand_inputs(&args.inputs)?;
    let output_name = match &args.output {
        Some(path) => Named::new("-o", path),
        None => Named::stdout("the template"),
    };
    // Before reading: a template written over its own case file would destroy it.
    check_paths(&source_names(&sources), &[output_name])?;
    let mut out = Output::open(args.output.as_deref(), Content::Csv)?;
    write_blank_matrix(&sources, &args.columns.0, &mut out)?;
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}
