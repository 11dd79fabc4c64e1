//! `leasejudge generate`: write a seeded random case file, and optionally its golden matrix.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use crate::generate::{default_mix, parse_mix, write_cases, write_messy_cases, Options, Style};
use crate::input::Source;
use crate::limits::MAX_GENERATED_ROWS_IN_MEMORY;
use crate::output::{check_paths, persist_all, Content, Named, Output};
use crate::streaming::{judge, Sink, StreamSettings};

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
    #[arg(long, value_enum, default_value_t = Style::Plain)]
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
    if args.list_scenarios {
        // Through an Output: a closed standard output is an error here too.
        let mut out = Output::open(None, Content::Text)?;
        for (scenario, weight) in default_mix() {
            writeln!(
                out,
                "{:<20} {weight:>3}  {}",
                scenario.name(),
                scenario.ends_in()
            )?;
        }
        out.commit()?;
        return Ok(ExitCode::SUCCESS);
    }
    let cases_to_file = args.output.as_deref().is_some_and(|p| p.as_os_str() != "-");
    if args.golden.is_some() && !cases_to_file {
        bail!("--golden needs the case file written to a file with -o");
    }
    let interleave = args.interleave.unwrap_or(match args.style {
        Style::Plain => 8,
        Style::Messy => 4,
    });
    if interleave == 0 {
        bail!("--interleave must be 1 or more");
    }
    let held = interleave.saturating_mul(args.rows_per_case.1);
    if held > MAX_GENERATED_ROWS_IN_MEMORY {
        bail!(
            "--interleave {interleave} times the most --rows-per-case {} is {held} rows held in \
             memory at once; at most {MAX_GENERATED_ROWS_IN_MEMORY} are allowed",
            args.rows_per_case.1
        );
    }
    let options = Options {
        seed: args.seed,
        cases: args.cases,
        rows_per_case: args.rows_per_case,
        interleave,
        mix: parse_mix(&args.mix).map_err(|e| anyhow::anyhow!("--mix: {e}"))?,
    };
    let mut outputs = vec![match &args.output {
        Some(path) => Named::new("-o", path),
        None => Named::stdout("the case file"),
    }];
    if let Some(golden) = &args.golden {
        outputs.push(Named::new("--golden", golden));
    }
    check_paths(&[], &outputs)?;
    if let (Some(_), Some(cases)) = (&args.golden, &args.output) {
        // The golden matrix is judged from the case file as written, before it is renamed
        // into place: a device cannot be read back.
        if std::fs::metadata(cases).is_ok_and(|meta| !meta.is_file()) {
            bail!("--golden needs -o to name a regular file, not a device or pipe");
        }
    }
    let mut output = Output::open(args.output.as_deref(), Content::Csv)?;
    let progress = crate::terminal::bytes_spinner("generate: case file");
    let written = match &progress {
        Some(bar) => write_style(args.style, &options, &mut bar.bar().wrap_write(&mut output)),
        None => write_style(args.style, &options, &mut output),
    };
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    written.context("cannot write the case file")?;
    let cases_written = output.finish()?;

    let mut finished = vec![];
    if let (Some(golden), Some(cases)) = (&args.golden, &args.output) {
        let written = cases_written
            .written_path()
            .context("--golden needs -o to name a regular file")?;
        let source = Source {
            name: cases.to_string_lossy().into_owned(),
            path: Some(written.to_owned()),
            options: Default::default(),
        };
        let progress = crate::terminal::bytes_spinner("generate: golden matrix, cases read");
        let settings = StreamSettings {
            input_format: Some(crate::input::InputFormat::Csv),
            progress: progress.as_ref().map(crate::terminal::Progress::bytes_read),
            ..StreamSettings::default()
        };
        let mut out = Output::open(Some(golden), Content::Csv)?;
        let judged = judge(
            &[source],
            &settings,
            Sink::Matrix(&crate::matrix::CsvMatrix),
            &mut |_, _, _| {},
        )
        .and_then(|matrix| Ok(matrix.write_to(&mut out)?));
        if let Some(bar) = progress {
            bar.finish_and_clear();
        }
        judged.context("cannot judge the generated cases")?;
        finished.push(out.finish()?);
    }
    finished.insert(0, cases_written);
    persist_all(finished)?;
    Ok(ExitCode::SUCCESS)
}

/// Writes the case file in `style`.
fn write_style(
    style: Style,
    options: &Options,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    match style {
        Style::Plain => write_cases(options, out).map(drop),
        Style::Messy => write_messy_cases(options, out, &mut |_| {}).map(drop),
    }
}
