//! `leasejudge precheck`: a learner checks their filled-in matrix before handing it in,
//! without the key, as the autograders check it first ([`crate::grading::precheck`]): how the
//! file (or the one matrix of a folder) is read, and every problem that would cost points or
//! stop the grading, located.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::grading::matrix_reader::{MatrixFileFormat, MatrixInput, MatrixRead};
use crate::grading::partitions::Splitter;
use crate::grading::precheck::{lab_cases, precheck, Precheck};
use crate::grading::submission_file::{open_submission, InstructorFiles};
use crate::grading::upload::find_matrix;
use crate::grading::{parse_column_list, GradedColumns};
use crate::input::{expand_inputs, InputErrors, ReadArgs};
use crate::output::{escape_message, Content, Output};
use crate::report::github_classroom::write_precheck;
use crate::streaming::StreamError;

/// How `precheck` says what it found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum PrecheckFormat {
    /// Lines for the learner: how the file was read, every problem located, the verdict.
    #[default]
    Text,
    /// The input of GitHub Classroom's grading reporter, as JSON: one test worth no points
    /// that passes when the matrix is ready (the workflow `autograder github-classroom`
    /// writes runs it on every push).
    GithubClassroom,
}

fn parse_graded(text: &str) -> Result<GradedColumns, String> {
    parse_column_list(text).map(GradedColumns)
}

/// Check a filled-in matrix before handing it in (no key needed).
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Checks the matrix as the autograder will read it, without the answers: every case of the case \
files once, no case they lack, the graded columns there, and every graded cell a valid code \
(with the nearest one when it is not) or a value where every case has one. The first line says \
how the file was read (its delimiter, encoding, or the workbook's sheet); each problem is \
listed as FILE:LINE: column: message.

A folder is checked as an autograder finds the matrix in an upload: its one matrix file, \
hidden folders (.git) and the lab's case files set aside.

Exit status: 0 ready to hand in; 2 problems (listed), or the case files cannot be read.")]
pub struct Args {
    /// The matrix file (CSV, JSON or a workbook), or a folder holding it.
    #[arg(value_name = "SUBMISSION")]
    submission: PathBuf,

    /// The lab's case files (or directories of them): the cases the matrix must answer.
    #[arg(long = "cases", value_name = "CASEFILE", num_args = 1.., required = true)]
    cases: Vec<PathBuf>,

    /// The graded columns, as the grader grades them: names separated by commas, or `all`.
    #[arg(long, value_name = "COLUMNS", default_value = "decision,reason", value_parser = parse_graded)]
    columns: GradedColumns,

    /// How the matrix is read, as the grader reads it.
    #[command(flatten)]
    read: ReadArgs,

    /// What is printed.
    #[arg(long, short = 'f', value_enum, default_value_t)]
    format: PrecheckFormat,
}

/// Runs `precheck`.
pub fn run(args: &Args) -> Result<ExitCode> {
    if args.submission.as_os_str() == "-" || args.cases.iter().any(|c| c.as_os_str() == "-") {
        anyhow::bail!("usage: precheck reads files: give the matrix's and the case files' paths");
    }
    let columns = args.columns.0.clone();
    let sources = args.read.apply(expand_inputs(&args.cases)?);
    let found = if args.submission.is_dir() {
        find_matrix(&args.submission).map(|found| (found.path, found.name))
    } else {
        Ok((
            args.submission.clone(),
            args.submission.to_string_lossy().into_owned(),
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
            let options = args.read.options();
            // Opened as the grader opens it: a link is refused, not followed.
            let read = open_submission(&path, &name, &InstructorFiles::new())
                .map_err(InputErrors::one)
                .and_then(|file| {
                    MatrixRead::submission(&columns, &options).read_split(
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
    let mut out = match args.format {
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
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}
