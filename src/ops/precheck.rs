//! Checking a filled-in matrix before it is handed in, `precheck`'s work: without the key,
//! as the autograders check it first (`grading::precheck`): how the file (or the
//! one matrix of a folder) is read, and every problem that would cost points or stop the
//! grading, located. [`run`] takes plain [`Options`]; the command line makes them
//! (`commands/precheck.rs`).

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::grading::matrix_reader::{MatrixFileFormat, MatrixInput, MatrixRead};
use crate::grading::partitions::Splitter;
use crate::grading::precheck::{lab_cases, precheck, Precheck};
use crate::grading::submission_file::{open_submission, InstructorFiles};
use crate::grading::upload::find_matrix;
use crate::grading::Column;
use crate::input::{expand_inputs, InputErrors, ReadOptions};
use crate::ops::Status;
use crate::output::{escape_message, Content, Output};
use crate::report::github_classroom::write_precheck;
use crate::streaming::StreamError;

/// How `precheck` says what it found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PrecheckFormat {
    /// Lines for the learner: how the file was read, every problem located, the verdict.
    #[default]
    Text,
    /// The input of GitHub Classroom's grading reporter, as JSON: one test worth no points
    /// that passes when the matrix is ready (the workflow `autograder github-classroom`
    /// writes runs it on every push).
    GithubClassroom,
}

crate::choice::choices!(PrecheckFormat {
    Text => "text",
        "Lines for the learner: how the file was read, every problem located, the verdict";
    GithubClassroom => "github-classroom",
        "The input of GitHub Classroom's grading reporter, as JSON: one test worth no points that passes when the matrix is ready (the workflow `autograder github-classroom` writes runs it on every push)";
});

/// What `precheck` is asked to do: the command line's options, parsed.
#[derive(Clone, Debug)]
pub struct Options {
    /// The matrix file, or a folder holding it.
    pub submission: PathBuf,
    /// The lab's case files (or directories of them).
    pub cases: Vec<PathBuf>,
    /// The graded columns, as the grader grades them.
    pub columns: Vec<Column>,
    /// How the matrix is read, as the grader reads it.
    pub read: ReadOptions,
    /// What is printed.
    pub format: PrecheckFormat,
}

/// Checks the matrix `options` name against the lab's case files and says what it found.
pub fn run(options: &Options) -> Result<Status> {
    if options.submission.as_os_str() == "-" || options.cases.iter().any(|c| c.as_os_str() == "-") {
        anyhow::bail!("usage: precheck reads files: give the matrix's and the case files' paths");
    }
    let columns = options.columns.clone();
    let sources = options.read.apply(expand_inputs(&options.cases)?);
    let found = if options.submission.is_dir() {
        find_matrix(&options.submission).map(|found| (found.path, found.name))
    } else {
        Ok((
            options.submission.clone(),
            options.submission.to_string_lossy().into_owned(),
        ))
    };
    let size = |path: &std::path::Path| std::fs::metadata(path).map_or(0, |m| m.len());
    let largest = sources
        .iter()
        .filter_map(|s| s.path.as_deref())
        .map(size)
        .chain(found.as_ref().ok().map(|(path, _)| size(path)))
        .max()
        .unwrap_or(0);
    let splitter = Splitter::for_bytes(largest);
    let lab = match lab_cases(&sources, &splitter) {
        Ok(lab) => lab,
        Err(StreamError::Input(errors)) => return Err(errors.into()),
        Err(StreamError::Io(e)) => return Err(e).context("cannot keep the lab's cases"),
    };
    let check = match found {
        Err(problems) => Precheck::unreadable(crate::grading::upload::UPLOAD, lab.len(), problems),
        Ok((path, name)) => {
            // Opened as the grader opens it: a link is refused, not followed.
            let read = open_submission(&path, &name, &InstructorFiles::new())
                .map_err(InputErrors::one)
                .and_then(|file| {
                    MatrixRead::submission(&columns, &options.read).read_split(
                        MatrixInput::Open(file, MatrixFileFormat::for_path(&path)),
                        &name,
                        &splitter,
                    )
                });
            match read {
                Err(errors) => Precheck::unreadable(&name, lab.len(), errors),
                Ok((submission, errors)) => {
                    precheck(&name, &lab, &submission, &errors, &columns)
                        .context("cannot read the matrix back from its temporary files")?
                }
            }
        }
    };
    // Through Output: a closed pipe does not change the verdict.
    let mut out = match options.format {
        PrecheckFormat::Text => {
            let mut out = Output::open(None, Content::Text)?;
            // Each line fits the width (COLUMNS, the terminal, or 80), a located problem
            // continuing two columns in.
            let width = usize::from(crate::terminal::table_width(out.is_terminal()));
            for line in check.lines() {
                let line = escape_message(&line);
                writeln!(out, "{}", crate::terminal::wrap(&line, width, "  "))?;
            }
            out
        }
        PrecheckFormat::GithubClassroom => {
            let mut out = Output::open(None, Content::Json)?;
            write_precheck(&check, &mut out)?;
            out
        }
    };
    out.flush()?;
    out.commit()?;
    Ok(if check.passed() {
        Status::Success
    } else {
        Status::Trouble
    })
}
