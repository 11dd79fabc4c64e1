//! Writing the blank matrix to hand out, `template`'s work: the header and one row per case
//! of the case files, only `case_id` filled in (`grading::template`). [`run`] takes
//! plain [`Options`]; the command line makes them (`commands/template.rs`).

use std::path::PathBuf;

use anyhow::Result;

use crate::grading::template::write_blank_matrix;
use crate::grading::Column;
use crate::input::expand_inputs;
use crate::ops::{source_names, Status};
use crate::output::{check_paths, Content, Named, Output};

/// What `template` is asked to do: the command line's options, parsed.
#[derive(Clone, Debug)]
pub struct Options {
    /// Case files, directories of them, or `-` for standard input.
    pub inputs: Vec<PathBuf>,
    /// The columns after `case_id`.
    pub columns: Vec<Column>,
    /// Where to write [default: standard output].
    pub output: Option<PathBuf>,
}

/// Writes the blank matrix of the case files `options` name.
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
    let sources = expand_inputs(&options.inputs)?;
    let output_name = match &options.output {
        Some(path) => Named::new("-o", path),
        None => Named::stdout("the template"),
    };
    // Before reading: a template written over its own case file would destroy it.
    check_paths(&source_names(&sources), &[output_name])?;
    let mut out = Output::open(options.output.as_deref(), Content::Csv)?;
    write_blank_matrix(&sources, &options.columns, &mut out)?;
    out.commit()?;
    Ok(Status::Success)
}
