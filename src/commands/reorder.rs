//! `leasejudge reorder`: spec section 7 as a check a lab designer runs, trying seeded
//! permutations of each case's renew/progress arrivals.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use anyhow::{bail, Context, Result};

use crate::commands::adjudicate::parse_timestamp;
use crate::commands::adjudicate::source_names;
use crate::input::{expand_inputs, InputFormat, ReadArgs};
use crate::lease::{Row, Timestamp};
use crate::output::{check_paths, escape_controls, Content, Named, Output};
use crate::reorder::{case_seed, explore_case};
use crate::streaming::{judge, CaseWriter, KeptRow, Sink, StreamError, StreamSettings, EVERY_CASE};

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

/// What the report's last line counts, over every case.
#[derive(Debug, Default)]
struct Totals {
    cases: usize,
    tried: usize,
    checked: usize,
    violations: usize,
    sensitive: usize,
}

/// Explores each case as the engine closes it and writes its report lines: its violations of
/// section 7 and whether its decision depends on arrival order. Every case stays open to the
/// end of its file ([`EVERY_CASE`]), so each is explored once, and counted once in `totals`.
struct Explorer {
    permutations: usize,
    seed: u64,
    as_of: Option<Timestamp>,
    totals: Arc<Mutex<Totals>>,
}

impl CaseWriter for Explorer {
    fn write_case(
        &mut self,
        _file_index: usize,
        file: &str,
        case_id: &str,
        kept: &[KeptRow],
        out: &mut Vec<u8>,
    ) -> std::io::Result<bool> {
        let lines: Vec<u64> = kept.iter().map(|kept| kept.line).collect();
        let rows: Vec<Row> = kept.iter().map(|kept| kept.row.clone()).collect();
        let findings = explore_case(
            &rows,
            self.permutations,
            case_seed(self.seed, case_id),
            self.as_of,
        );
        for (permutation, differences) in &findings.violations {
            let what: Vec<String> = differences
                .iter()
                .map(|d| format!("{} {:?} became {:?}", d.column, d.original, d.permuted))
                .collect();
            writeln!(
                out,
                "{}:{}: case {}: VIOLATION of section 7 ({}): {}",
                escape_controls(file),
                lines[permutation.last_slot()],
                escape_controls(case_id),
                permutation.describe(&lines),
                what.join(", ")
            )?;
        }
        if let Some(found) = &findings.order_sensitive {
            writeln!(
                out,
                "{}:{}: case {}: decision depends on arrival order: {} ({}) in file order, {} \
                 ({}) with {}",
                escape_controls(file),
                lines[found.permutation.slots[0]],
                escape_controls(case_id),
                found.original.0,
                found.original.1,
                found.permuted.0,
                found.permuted.1,
                found.permutation.describe(&lines)
            )?;
        }
        let mut totals = self
            .totals
            .lock()
            .map_err(|_| std::io::Error::other("the totals were held by a thread that panicked"))?;
        totals.cases += 1;
        totals.tried += findings.tried;
        totals.checked += findings.checked;
        totals.violations += findings.violations.len();
        totals.sensitive += usize::from(findings.order_sensitive.is_some());
        // A case with nothing to report writes no record.
        Ok(!out.is_empty())
    }
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
    let totals = Arc::new(Mutex::new(Totals::default()));
    let explorer = Explorer {
        permutations: args.permutations,
        seed: args.seed,
        as_of: args.as_of,
        totals: Arc::clone(&totals),
    };
    let settings = StreamSettings {
        input_format: args.input_format,
        open_cases: EVERY_CASE,
        ..StreamSettings::in_file_order()
    };
    let found = judge(
        &sources,
        &settings,
        Sink::Cases(Box::new(explorer)),
        &mut |_, _, _| {},
    );
    let found = match found {
        Ok(found) => found,
        Err(error) => {
            if let Some(progress) = progress {
                progress.finish_and_clear();
            }
            return match error {
                StreamError::Input(errors) => Err(errors.into()),
                StreamError::Io(e) => Err(e.into()),
            };
        }
    };
    let totals = std::mem::take(
        &mut *totals
            .lock()
            .map_err(|_| anyhow::anyhow!("the totals were held by a thread that panicked"))?,
    );
    let Totals {
        cases,
        tried,
        checked,
        violations,
        sensitive,
    } = totals;
    let mut out = Output::open(args.output.as_deref(), Content::Text)?;
    found.write_to(&mut out)?;
    writeln!(
        out,
        "{} case{}, {tried} permutation{} tried (seed {}), {checked} within the invariant's \
         scope: {violations} violation{}, {sensitive} order-sensitive case{}",
        cases,
        if cases == 1 { "" } else { "s" },
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
