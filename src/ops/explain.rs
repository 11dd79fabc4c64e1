//! Explaining verdicts, `explain`'s work: the cases replayed and how each verdict came
//! about shown as a text trace, JSON, Markdown with Mermaid sequence diagrams, or a
//! self-contained HTML timeline page. [`run`] takes plain [`Options`]; the command line makes
//! them (`commands/explain.rs`).

use std::path::PathBuf;

use anyhow::Result;

use crate::explain::stream::{every_trace, explain_streaming, unknown_cases};
use crate::explain::{CaseTrace, Format};
use crate::input::{expand_inputs, InputFormat, ReadOptions};
use crate::lease::Timestamp;
use crate::ops::{source_names, Status};
use crate::output::{check_paths, Named, Output};
use crate::streaming::StreamError;

/// What `explain` is asked to do: the command line's options, parsed.
#[derive(Clone, Debug)]
pub struct Options {
    /// Case files, directories of them, or `-` for standard input.
    pub inputs: Vec<PathBuf>,
    /// Explain only these cases (every case when empty).
    pub cases: Vec<String>,
    /// The format [default: by the output's extension, else text].
    pub format: Option<Format>,
    /// Where to write [default: standard output].
    pub output: Option<PathBuf>,
    /// Read every input as this format, whatever its extension.
    pub input_format: Option<InputFormat>,
    /// How CSV files and workbooks are read.
    pub read: ReadOptions,
    /// Judge every case at this instant if it is later than the case's last row.
    pub as_of: Option<Timestamp>,
    /// Without `cases`, how many cases HTML and Mermaid show (0: every case).
    pub limit: usize,
    /// Also give each case a minimal witness, marked in every format.
    pub witness: bool,
}

/// The default `--limit`: a page of this many cases stays a few megabytes.
pub const DEFAULT_LIMIT: usize = 500;

/// Reads the inputs and replays the cases `wanted` names (every case when empty; each must
/// be in the inputs), in order of first appearance. Unknown ids are errors, listed after any
/// input errors would have been.
pub fn traces(
    inputs: &[PathBuf],
    input_format: Option<InputFormat>,
    as_of: Option<Timestamp>,
    wanted: &[String],
) -> Result<Vec<CaseTrace>> {
    let sources = expand_inputs(inputs)?;
    let traces = match every_trace(&sources, input_format, as_of) {
        Ok(traces) => traces,
        Err(StreamError::Input(errors)) => return Err(errors.into()),
        Err(StreamError::Io(e)) => return Err(e.into()),
    };
    unknown_cases(wanted, |id| traces.iter().any(|trace| trace.case_id == id))?;
    Ok(traces
        .into_iter()
        .filter(|trace| wanted.is_empty() || wanted.contains(&trace.case_id))
        .collect())
}

/// Explains the cases `options` name, in the format asked for.
pub fn run(options: &Options) -> Result<Status> {
    if options
        .inputs
        .iter()
        .filter(|p| p.as_os_str() == "-")
        .count()
        > 1
    {
        anyhow::bail!("standard input (-) can be read only once");
    }
    let sources = options.read.apply(expand_inputs(&options.inputs)?);
    let output_name = match &options.output {
        Some(path) => Named::new("-o", path),
        None => Named::stdout("the explanation"),
    };
    check_paths(&source_names(&sources), &[output_name])?;
    let format = options
        .format
        .unwrap_or_else(|| default_format(&options.output));
    // Text and JSON have always opened their output before reading, pages after.
    let paged = matches!(format, Format::Html | Format::Mermaid);
    let mut output = match paged {
        false => Some(Output::open(options.output.as_deref(), format.content())?),
        true => None,
    };
    let progress = crate::ops::spinner("explain", &sources);
    let explained = explain_streaming(
        &sources,
        options.input_format,
        options.as_of,
        (format, options.limit),
        &options.cases,
        crate::streaming::Window::COMMAND,
        options
            .witness
            .then_some(crate::explain::witness::Search::COMMAND),
    );
    if let Some(progress) = progress {
        progress.finish_and_clear();
    }
    let explanation = explained?;
    let mut output = match output.take() {
        Some(output) => output,
        None => Output::open(options.output.as_deref(), format.content())?,
    };
    if explanation.shown < explanation.selected {
        crate::terminal::to_stderr_wrapped(&format!(
            "leasejudge: explain: showing the first {} of {} cases; {} left out \
             (--limit N, --limit 0 for all, or --case ID to choose)",
            explanation.shown,
            explanation.selected,
            explanation.selected - explanation.shown
        ));
    }
    if matches!(format, Format::Text) {
        // The trace is text for people: every line fits the width (COLUMNS, the terminal, or
        // 80), a long claim or state continuing under its value.
        let width = crate::terminal::table_width(output.is_terminal());
        let mut wrapped = crate::terminal::WrapLines::new(&mut output, usize::from(width));
        explanation.write_to(&mut wrapped)?;
        wrapped.finish()?;
    } else {
        explanation.write_to(&mut output)?;
    }
    output.commit()?;
    Ok(Status::Success)
}

fn default_format(target: &Option<PathBuf>) -> Format {
    let extension = target
        .as_deref()
        .and_then(crate::input::lowercase_extension);
    match extension.as_deref() {
        Some("html" | "htm") => Format::Html,
        Some("json") => Format::Json,
        Some("md" | "markdown") => Format::Mermaid,
        _ => Format::Text,
    }
}
