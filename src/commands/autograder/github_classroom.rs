//! `leasejudge autograder github-classroom`'s arguments: the template repository's case
//! files, its practice key and where it goes.

use std::path::PathBuf;

use crate::bundle::GithubClassroomOptions;
use crate::commands::args::{GradedColumns, ReadArgs};
use crate::commands::choice::choice;
use crate::commands::grade::Weights;
use crate::grading::class::Feedback;

use super::{parse_graded, parse_weights_arg};

/// A GitHub Classroom template repository: its workflow checks the matrix on every push
/// (and grades practice cases), for GitHub Classroom's reporter.
#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The lab's case files (or directories of them): put in the repository for learners,
    /// and what the workflow's precheck checks the matrix against.
    #[arg(long = "cases", value_name = "CASEFILE", num_args = 1.., required = true)]
    cases: Vec<PathBuf>,

    /// A key for practice cases (some of the lab's cases, or all), graded on every push. It
    /// is in the learner's repository, so it is not secret: never give the real key.
    #[arg(long, value_name = "KEY")]
    practice_key: Option<PathBuf>,

    /// What learners see of the practice cases (as `grade`): none, cases, hint or full
    /// [default: cases].
    #[arg(long, value_parser = choice::<Feedback>(), value_name = "LEVEL")]
    feedback: Option<Feedback>,

    /// Partial credit for the practice cases (as `grade`), e.g. `decision=2,reason=1`.
    #[arg(long, value_name = "COLUMN=WEIGHT,...", value_parser = parse_weights_arg)]
    weights: Option<Weights>,

    /// The columns learners fill in and that are graded (as `grade`).
    #[arg(long, value_name = "COLUMNS", default_value = "decision,reason", value_parser = parse_graded)]
    columns: GradedColumns,

    /// The leasejudge binary to carry [default: this one]: an x86-64 Linux executable of
    /// this version (GitHub's Ubuntu runners are x86-64 Linux).
    #[arg(long, value_name = "PATH")]
    binary: Option<PathBuf>,

    /// How learners' CSV files and workbooks are read (as `grade`).
    #[command(flatten)]
    read: ReadArgs,

    /// The folder to write the template repository's files in: new, or empty.
    #[arg(long, short = 'o', value_name = "DIR")]
    output: PathBuf,
}

impl Args {
    /// The template repository to build.
    pub(super) fn options(&self) -> GithubClassroomOptions {
        GithubClassroomOptions {
            cases: self.cases.clone(),
            practice_key: self.practice_key.clone(),
            feedback: self.feedback.unwrap_or(Feedback::Cases),
            weights: self.weights.as_ref().map(|w| w.0.clone()),
            columns: self.columns.0.clone(),
            binary: self.binary.clone(),
            read: self.read.options(),
            output: self.output.clone(),
        }
    }
}
