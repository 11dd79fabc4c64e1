//! Writing practice files, `generate`'s work: a seeded random case file
//! ([`crate::generate`] makes its rows) and, optionally, its golden matrix, the engine's own.
//! [`run`] takes plain [`Options`]; the command line makes them (`commands/generate.rs`).

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use crate::generate::{
    default_mix, parse_mix, write_cases, write_messy_cases, Options as GenerateOptions, Style,
};
use crate::input::Source;
use crate::limits::MAX_GENERATED_ROWS_IN_MEMORY;
use crate::ops::Status;
use crate::output::{check_paths, persist_all, Content, Named, Output};
use crate::streaming::{judge, Sink, StreamSettings};

/// What `generate` is asked to do: the command line's options, parsed.
#[derive(Clone, Debug)]
pub struct Options {
    /// The random seed.
    pub seed: u64,
    /// How many cases.
    pub cases: u64,
    /// Rows per case, at least and at most.
    pub rows_per_case: (u64, u64),
    /// How many cases are in progress at once [default: 8 plain, 4 messy].
    pub interleave: Option<u64>,
    /// How the file is written.
    pub style: Style,
    /// The scenarios and their weights, `name=weight,...`, or `default`.
    pub mix: String,
    /// Where to write the case file [default: standard output].
    pub output: Option<PathBuf>,
    /// Where to write the engine's matrix of the generated cases.
    pub golden: Option<PathBuf>,
    /// List the scenarios instead.
    pub list_scenarios: bool,
}

/// Writes the case file (and its golden matrix) `options` describe, or lists the scenarios.
pub fn run(options: &Options) -> Result<Status> {
    if options.list_scenarios {
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
        return Ok(Status::Success);
    }
    let cases_to_file = options
        .output
        .as_deref()
        .is_some_and(|p| p.as_os_str() != "-");
    if options.golden.is_some() && !cases_to_file {
        bail!("--golden needs the case file written to a file with -o");
    }
    let interleave = options.interleave.unwrap_or(match options.style {
        Style::Plain => 8,
        Style::Messy => 4,
    });
    if interleave == 0 {
        bail!("--interleave must be 1 or more");
    }
    let held = interleave.saturating_mul(options.rows_per_case.1);
    if held > MAX_GENERATED_ROWS_IN_MEMORY {
        bail!(
            "--interleave {interleave} times the most --rows-per-case {} is {held} rows held in \
             memory at once; at most {MAX_GENERATED_ROWS_IN_MEMORY} are allowed",
            options.rows_per_case.1
        );
    }
    let generated = GenerateOptions {
        seed: options.seed,
        cases: options.cases,
        rows_per_case: options.rows_per_case,
        interleave,
        mix: parse_mix(&options.mix).map_err(|e| anyhow::anyhow!("--mix: {e}"))?,
    };
    let mut outputs = vec![match &options.output {
        Some(path) => Named::new("-o", path),
        None => Named::stdout("the case file"),
    }];
    if let Some(golden) = &options.golden {
        outputs.push(Named::new("--golden", golden));
    }
    check_paths(&[], &outputs)?;
    if let (Some(_), Some(cases)) = (&options.golden, &options.output) {
        // The golden matrix is judged from the case file as written, before it is renamed
        // into place: a device cannot be read back.
        if std::fs::metadata(cases).is_ok_and(|meta| !meta.is_file()) {
            bail!("--golden needs -o to name a regular file, not a device or pipe");
        }
    }
    let mut output = Output::open(options.output.as_deref(), Content::Csv)?;
    let progress = crate::terminal::bytes_spinner("generate: case file");
    let written = match &progress {
        Some(bar) => write_style(
            options.style,
            &generated,
            &mut bar.bar().wrap_write(&mut output),
        ),
        None => write_style(options.style, &generated, &mut output),
    };
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    written.context("cannot write the case file")?;
    let cases_written = output.finish()?;

    let mut finished = vec![];
    if let (Some(golden), Some(cases)) = (&options.golden, &options.output) {
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
    Ok(Status::Success)
}

/// Writes the case file in `style`.
fn write_style(
    style: Style,
    options: &GenerateOptions,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    match style {
        Style::Plain => write_cases(options, out).map(drop),
        Style::Messy => write_messy_cases(options, out, &mut |_| {}).map(drop),
    }
}
