//! `leasejudge reorder`: spec section 7 as a check a lab designer runs, trying seeded
//! permutations of each case's renew/progress arrivals.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use crate::adjudication::judge_sources;
use crate::commands::adjudicate::parse_timestamp;
use crate::commands::adjudicate::source_names;
use crate::input::{expand_inputs, InputErrors, InputFormat, ReadArgs, Source};
use crate::lease::{Row, Timestamp};
use crate::output::{check_paths, escape_controls, Named, Output};
use crate::reorder::{case_seed, explore_case};

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
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormat>,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub read: ReadArgs,

    /// Write the report to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// One case's rows, in file order, with their lines.
#[derive(Clone, Debug)]
pub struct CaseRows {
    /// The case id.
    pub case_id: String,
    /// The file it came from.
    pub file: String,
    /// Each row's line.
    pub lines: Vec<u64>,
    /// The rows.
    pub rows: Vec<Row>,
}

/// Reads every source and groups its rows by case, failing with every input error (the same
/// reading and checks as `adjudicate`, through [`judge_sources`]).
pub fn read_cases(
    sources: &[Source],
    input_format: Option<InputFormat>,
) -> Result<Vec<CaseRows>, InputErrors> {
    let mut cases: Vec<CaseRows> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    judge_sources(sources, input_format, None, &mut |at, parsed, _outcome| {
        let slot = *index.entry(parsed.case_id.to_string()).or_insert_with(|| {
            cases.push(CaseRows {
                case_id: parsed.case_id.to_string(),
                file: at.file.to_owned(),
                lines: Vec::new(),
                rows: Vec::new(),
            });
            cases.len() - 1
        });
        cases[slot].lines.push(at.line);
        cases[slot].rows.push(parsed.row.clone());
    })?;
    Ok(cases)
}

/// Runs `reorder`.
pub fn run(args: &Args) -> Result<ExitCode> {
    if args.inputs.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        bail!("standard input (-) can be read only once");
    }
    let sources = args.read.apply(expand_inputs(&args.inputs)?);
    let output_name = match &args.output {
        Some(path) => Named::new("-o", path),
        None => Named::stdout("the report"),
    };
    check_paths(&source_names(&sources), &[output_name])?;
    let progress = crate::terminal::spinner("reorder", &sources);
    let cases = read_cases(&sources, args.input_format);
    let cases = match cases {
        Ok(cases) => cases,
        Err(error) => {
            if let Some(progress) = progress {
                progress.finish_and_clear();
            }
            return Err(error.into());
        }
    };
    let mut out = Output::open(args.output.as_deref())?;
    let mut violations = 0usize;
    let mut sensitive = 0usize;
    let mut tried = 0usize;
    let mut checked = 0usize;
    for case in &cases {
        let findings = explore_case(
            &case.rows,
            args.permutations,
            case_seed(args.seed, &case.case_id),
            args.as_of,
        );
        tried += findings.tried;
        checked += findings.checked;
        for (permutation, differences) in &findings.violations {
            violations += 1;
            let what: Vec<String> = differences
                .iter()
                .map(|d| format!("{} {:?} became {:?}", d.column, d.original, d.permuted))
                .collect();
            writeln!(
                out,
                "{}:{}: case {}: VIOLATION of section 7 ({}): {}",
                escape_controls(&case.file),
                case.lines[permutation.last_slot()],
                escape_controls(&case.case_id),
                permutation.describe(&case.lines),
                what.join(", ")
            )?;
        }
        if let Some(found) = &findings.order_sensitive {
            sensitive += 1;
            writeln!(
                out,
                "{}:{}: case {}: decision depends on arrival order: {} ({}) in file order, {} \
                 ({}) with {}",
                escape_controls(&case.file),
                case.lines[found.permutation.slots[0]],
                escape_controls(&case.case_id),
                found.original.0,
                found.original.1,
                found.permuted.0,
                found.permuted.1,
                found.permutation.describe(&case.lines)
            )?;
        }
    }
    writeln!(
        out,
        "{} case{}, {tried} permutation{} tried (seed {}), {checked} within the invariant's \
         scope: {violations} violation{}, {sensitive} order-sensitive case{}",
        cases.len(),
        if cases.len() == 1 { "" } else { "s" },
        if tried == 1 { "" } else { "s" },
        args.seed,
        if violations == 1 { "" } else { "s" },
        if sensitive == 1 { "" } else { "s" },
    )?;
    if let Some(progress) = progress {
        progress.finish_and_clear();
    }
    out.commit().context("cannot write the report")?;
    Ok(if violations > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
