//! `leasejudge generate`: write a seeded random case file, and optionally its golden matrix.
//! The command line only: the work is [`crate::ops::generate`].

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::commands::choice::choice;
use crate::generate::Style;
use crate::ops::generate::Options;

/// Write a seeded random case file (CSV) whose cases reach every decision and reason.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
The same options always give the same bytes, on any machine. The golden file is the engine's \
own matrix of the generated file (adjudicate --format csv).\n\
Styles: plain (the default) writes one spelling of everything; messy writes what other tools and \
people write: short sequential ids (c9-000019), scrambled header spellings and aliases in a \
shuffled order with an unknown column, quoted cells with commas and doubled quotes, times in \
+01:00/-08:00 offsets with fractions, every duration form, blank lines, CRLF in some files, \
cases cut short, and 1 to --interleave cases in progress at once.\n\
Exit status: 0 written; 2 bad options or cannot write (no output file is left half-written).")]
pub struct Args {
    /// The random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// How many cases.
    #[arg(long, default_value_t = 1000)]
    pub cases: u64,

    /// Rows per case, `N` or `MIN..MAX` (scenarios need a few rows of their own); --interleave
    /// times MAX may be at most 1000000 (the rows held in memory at once).
    #[arg(long, value_name = "N|MIN..MAX", default_value = "6..14", value_parser = parse_rows)]
    pub rows_per_case: (u64, u64),

    /// How many cases are in progress at once (1: each case's rows are contiguous); at most
    /// this many in the messy style. Default: 8 plain, 4 messy.
    #[arg(long, value_name = "K")]
    pub interleave: Option<u64>,

    /// How the file is written: `plain`, one spelling of everything, or `messy`, the
    /// spellings and shapes other tools and people write (scrambled and aliased headers,
    /// quoted cells, offset times, every duration form, blank lines, CRLF, cases cut short).
    #[arg(long, value_parser = choice::<Style>(), default_value = "plain")]
    pub style: Style,

    /// The scenarios and their weights, `name=weight,...` (only those listed are generated),
    /// or `default`. See --list-scenarios.
    #[arg(long, value_name = "MIX", default_value = "default")]
    pub mix: String,

    /// Write the case file to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Also write the engine's matrix of the generated cases to FILE (needs -o).
    #[arg(long, value_name = "FILE")]
    pub golden: Option<PathBuf>,

    /// List the scenarios with their default weights and what they end in, then exit.
    #[arg(long)]
    pub list_scenarios: bool,
}

fn parse_rows(text: &str) -> Result<(u64, u64), String> {
    let number = |t: &str| {
        t.trim()
            .parse::<u64>()
            .map_err(|_| format!("not a whole number: {t:?}"))
    };
    let (low, high) = match text.split_once("..") {
        Some((low, high)) => (number(low)?, number(high.trim_start_matches('='))?),
        None => {
            let n = number(text)?;
            (n, n)
        }
    };
    if low == 0 || low > high {
        return Err(format!(
            "rows per case must be 1 or more, MIN <= MAX: {text:?}"
        ));
    }
    Ok((low, high))
}

/// Runs `generate`.
pub fn run(args: &Args) -> Result<ExitCode> {
    let options = Options {
        seed: args.seed,
        cases: args.cases,
        rows_per_case: args.rows_per_case,
        interleave: args.interleave,
        style: args.style,
        mix: args.mix.clone(),
        output: args.output.clone(),
        golden: args.golden.clone(),
        list_scenarios: args.list_scenarios,
    };
    crate::ops::generate::run(&options).map(super::exit_code)
}
