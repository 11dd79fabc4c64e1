//! Assessing a lab against the catalogue of shortcuts, `shortcuts`' work: the case files
//! judged under the contract and every shortcut ([`crate::shortcuts::assess`]), the report
//! written ([`crate::report::shortcuts`]), and with `suggest` the cases that would catch each
//! survivor and their golden matrix. [`run`] takes plain [`Options`]; the command line makes
//! them (`commands/shortcuts.rs`).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use crate::grading::{Column, DEFAULT_GRADED};
use crate::input::{expand_inputs, InputFormat, ReadOptions};
use crate::ops::{source_names, Status};
use crate::output::{check_paths, persist_all, Content, Named, Output};
use crate::report::shortcuts::{write_json, write_markdown, write_text};
use crate::shortcuts::{assess, format_for, write_suggestions};
use crate::streaming::{StreamError, StreamSettings, Window};

/// How the report is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    /// A table for people, then each survivor's case and each uncatchable's reason.
    Text,
    /// One JSON object: every shortcut with its status and the cases that catch it.
    Json,
    /// Markdown, for a CI step summary.
    Markdown,
}

crate::choice::choices!(ReportFormat {
    Text => "text",
        "A table for people, then each survivor's case and each uncatchable's reason";
    Json => "json",
        "One JSON object: every shortcut with its status and the cases that catch it";
    Markdown => "markdown",
        "Markdown, for a CI step summary";
});

/// What `shortcuts` is asked to do: the command line's options, parsed.
#[derive(Clone, Debug)]
pub struct Options {
    /// The lab's case files, directories of them, or `-` for standard input.
    pub inputs: Vec<PathBuf>,
    /// The graded columns [default: decision and reason, as `grade`'s].
    pub columns: Option<Vec<Column>>,
    /// The report's format.
    pub format: ReportFormat,
    /// Where to write the report [default: standard output].
    pub output: Option<PathBuf>,
    /// Where to write the case that catches each surviving shortcut.
    pub suggest: Option<PathBuf>,
    /// Where to write the golden matrix of the suggested cases.
    pub golden: Option<PathBuf>,
    /// Read every input as this format, whatever its extension.
    pub input_format: Option<InputFormat>,
    /// How CSV files and workbooks are read.
    pub read: ReadOptions,
    /// Threads for the searches [default: the number of CPUs].
    pub jobs: Option<usize>,
}

/// Assesses the lab `options` names and writes the report (and the suggestions); the status
/// says whether some catchable shortcut survives.
pub fn run(options: &Options) -> Result<Status> {
    if options
        .inputs
        .iter()
        .filter(|p| p.as_os_str() == "-")
        .count()
        > 1
    {
        bail!("standard input (-) can be read only once");
    }
    let suggest_format = match &options.suggest {
        Some(path) => Some(format_for(path).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let sources = options.read.apply(expand_inputs(&options.inputs)?);
    let mut outputs = vec![match &options.output {
        Some(path) => Named::new("-o", path),
        None => Named::stdout("the report"),
    }];
    if let Some(path) = &options.suggest {
        outputs.push(Named::new("--suggest", path));
    }
    if let Some(path) = &options.golden {
        outputs.push(Named::new("--golden", path));
    }
    check_paths(&source_names(&sources), &outputs)?;

    let graded = options
        .columns
        .as_deref()
        .unwrap_or(&DEFAULT_GRADED[..])
        .iter()
        .fold(0u32, |bits, column| bits | 1 << column.index());
    let settings = StreamSettings {
        input_format: options.input_format,
        open_cases: Window::COMMAND.open_cases,
        kept_rows: Window::COMMAND.kept_rows,
        case_rows_in_memory: Window::COMMAND.case_rows_in_memory,
        ..StreamSettings::in_file_order()
    };
    let jobs = options
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let assessment = match assess(&sources, &settings, graded, jobs) {
        Ok(assessment) => assessment,
        Err(StreamError::Input(errors)) => return Err(errors.into()),
        Err(StreamError::Io(e)) => return Err(e).context("cannot judge the cases"),
    };

    let content = match options.format {
        ReportFormat::Text => Content::Text,
        ReportFormat::Json => Content::Json,
        ReportFormat::Markdown => Content::Text,
    };
    let mut report = Output::open(options.output.as_deref(), content)?;
    match options.format {
        ReportFormat::Text => {
            // The one width rule: COLUMNS, else the terminal, else 80.
            let width = crate::terminal::table_width(report.is_terminal());
            write_text(&assessment, usize::from(width), &mut report)
        }
        ReportFormat::Json => write_json(&assessment, &mut report),
        ReportFormat::Markdown => write_markdown(&assessment, &mut report),
    }
    .context("cannot write the report")?;
    let mut finished = vec![report.finish()?];
    if let (Some(path), Some(format)) = (&options.suggest, suggest_format) {
        finished.extend(write_suggestions(
            &assessment,
            path,
            format,
            options.golden.as_ref(),
        )?);
    }
    persist_all(finished)?;
    let weak = assessment
        .shortcuts
        .iter()
        .any(|(_, standing)| standing.weakens_the_lab());
    Ok(if weak {
        Status::Differences
    } else {
        Status::Success
    })
}
