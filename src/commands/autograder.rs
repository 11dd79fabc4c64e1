//! `leasejudge autograder`: an autograder ready to upload, built from the answer key and the
//! lab's case files: a Gradescope zip, a PrairieLearn question directory or a GitHub
//! Classroom template repository. The command line only: the work is [`crate::bundle`].

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::bundle::{
    is_uuid, Build, GithubClassroomOptions, GradescopeOptions, Inputs, PrairieLearnOptions,
};
use crate::commands::args::GradedColumns;
use crate::commands::args::ReadArgs;
use crate::commands::choice::choice;
use crate::commands::grade::Weights;
use crate::grading::class::{parse_points, parse_weights, Feedback};
use crate::grading::parse_column_list;
use crate::report::platform_results::Visibility;

fn parse_weights_arg(text: &str) -> Result<Weights, String> {
    parse_weights(text).map(Weights)
}

fn parse_graded(text: &str) -> Result<GradedColumns, String> {
    parse_column_list(text).map(GradedColumns)
}

fn parse_timeout(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(seconds @ 1..=600) => Ok(seconds),
        _ => Err(format!(
            "{text:?} is not a timeout: whole seconds from 1 to 600 (PrairieLearn's limit)"
        )),
    }
}

fn parse_uuid(text: &str) -> Result<String, String> {
    if is_uuid(text) {
        Ok(text.to_ascii_lowercase())
    } else {
        Err(format!(
            "{text:?} is not a UUID (8-4-4-4-12 hexadecimal digits)"
        ))
    }
}

/// Write an autograder ready to upload: a Gradescope zip, a PrairieLearn question, or a GitHub
/// Classroom template repository.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
The key is validated and the case files are adjudicated before anything is written: a \
malformed key, a case file with input errors, or a key that disagrees with the contract's \
verdicts on the case files (a case the key has and no case file does, one the case files \
have and the key does not, or a graded column that differs) is refused, every problem \
listed as FILE:LINE: column: message (value), and nothing is written.

Exit status: 0 the autograder was written; 2 it was not (bad input or usage).")]
pub struct Args {
    #[command(subcommand)]
    platform: PlatformArgs,
}

#[derive(Debug, clap::Subcommand)]
enum PlatformArgs {
    /// A zip to upload on a Gradescope programming assignment's Configure Autograder page.
    Gradescope(GradescopeArgs),
    /// A question directory for a PrairieLearn course (questions/<QID>).
    Prairielearn(PrairieLearnArgs),
    /// A GitHub Classroom template repository: its workflow checks the matrix on every push
    /// (and grades practice cases), for GitHub Classroom's reporter.
    GithubClassroom(GithubClassroomArgs),
}

/// What both platforms' autograders are built from.
#[derive(Debug, clap::Args)]
struct Common {
    /// The answer key: the golden matrix (CSV, or JSON or a workbook by extension).
    #[arg(long, value_name = "KEY")]
    golden: PathBuf,

    /// The lab's case files (or directories of them): adjudicated to check the key, and
    /// carried for --feedback hint and shortcut.
    #[arg(long = "cases", value_name = "CASEFILE", num_args = 1.., required = true)]
    cases: Vec<PathBuf>,

    /// What learners see (as `grade`): none, cases, hint, shortcut or full [default: cases].
    #[arg(long, value_parser = choice::<Feedback>(), value_name = "LEVEL")]
    feedback: Option<Feedback>,

    /// Partial credit (as `grade`), e.g. `decision=2,reason=1`.
    #[arg(long, value_name = "COLUMN=WEIGHT,...", value_parser = parse_weights_arg)]
    weights: Option<Weights>,

    /// The assignment's points (as `grade`): the score is scaled to them [default: the raw
    /// points, one per case or the sum of the weights]. The build prints the total to set on
    /// the platform.
    #[arg(long, value_name = "N", value_parser = parse_points)]
    points: Option<f64>,

    /// The columns to grade (as `grade`): names separated by commas, or `all`.
    #[arg(long, value_name = "COLUMNS", default_value = "decision,reason", value_parser = parse_graded)]
    columns: GradedColumns,

    /// The leasejudge binary to carry [default: this one]: an x86-64 Linux executable of
    /// this version (the platforms run x86-64 Linux).
    #[arg(long, value_name = "PATH")]
    binary: Option<PathBuf>,

    /// How learners' CSV files and workbooks are read (as `grade`).
    #[command(flatten)]
    read: ReadArgs,
}

#[derive(Debug, clap::Args)]
struct GradescopeArgs {
    #[command(flatten)]
    common: Common,

    /// Who sees the results, and when: visible, hidden, after_due_date or after_published
    /// (the tests and the top-level output) [default: visible].
    #[arg(long, value_parser = choice::<Visibility>())]
    visibility: Option<Visibility>,

    /// The zip to write (atomically).
    #[arg(long, short = 'o', value_name = "ZIP")]
    output: PathBuf,
}

#[derive(Debug, clap::Args)]
struct PrairieLearnArgs {
    #[command(flatten)]
    common: Common,

    /// A question of its own to write (its name is the question's QID), the binary in its
    /// tests/; one leasejudge wrote before is replaced whole, keeping its uuid.
    #[arg(
        long,
        short = 'o',
        value_name = "QUESTION_DIR",
        required_unless_present = "course",
        conflicts_with_all = ["course", "qid"]
    )]
    output: Option<PathBuf>,

    /// The course to write the question into, as COURSE_DIR/questions/QID: the binary goes
    /// once to COURSE_DIR/serverFilesCourse/leasejudge/, which every leasejudge question of
    /// the course shares.
    #[arg(long, value_name = "COURSE_DIR", requires = "qid")]
    course: Option<PathBuf>,

    /// The question's id in the course: its directory under questions/ (folders separated by
    /// /).
    #[arg(long, value_name = "QID", requires = "course")]
    qid: Option<String>,

    /// The grading image: any, for the statically linked release binary; for a dynamically
    /// linked --binary, one with the GNU C library it needs.
    #[arg(
        long,
        value_name = "IMAGE",
        default_value = "prairielearn/grader-python"
    )]
    image: String,

    /// Seconds a grading job may take (PrairieLearn's `timeout`, at most 600).
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = parse_timeout)]
    timeout: u32,

    /// The question's uuid [default: kept from the question being replaced, else derived
    /// from the question's name, key and options, so the same inputs give the same bytes].
    #[arg(long, value_name = "UUID", value_parser = parse_uuid)]
    uuid: Option<String>,

    /// The question's title.
    #[arg(long, value_name = "TITLE", default_value = "Lease evidence matrix")]
    title: String,

    /// The question's topic.
    #[arg(long, value_name = "TOPIC", default_value = "Leases")]
    topic: String,

    /// Leave out clientFilesQuestion/: by default the question carries the lab's case files
    /// and the blank matrix there, linked from question.html for learners to download (never
    /// the key).
    #[arg(long)]
    no_client_files: bool,
}

/// What a GitHub Classroom template repository is made from.
#[derive(Debug, clap::Args)]
struct GithubClassroomArgs {
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

impl Common {
    fn inputs(&self) -> Inputs {
        Inputs {
            golden: self.golden.clone(),
            cases: self.cases.clone(),
            feedback: self.feedback.unwrap_or(Feedback::Cases),
            weights: self.weights.as_ref().map(|w| w.0.clone()),
            points: self.points,
            columns: self.columns.0.clone(),
            binary: self.binary.clone(),
            read: self.read.options(),
        }
    }
}

impl Args {
    /// The autograder to build.
    fn build(&self) -> Build {
        match &self.platform {
            PlatformArgs::Gradescope(args) => Build::Gradescope(GradescopeOptions {
                inputs: args.common.inputs(),
                visibility: args.visibility,
                output: args.output.clone(),
            }),
            PlatformArgs::Prairielearn(args) => Build::PrairieLearn(PrairieLearnOptions {
                inputs: args.common.inputs(),
                output: args.output.clone(),
                course: args.course.clone(),
                qid: args.qid.clone(),
                image: args.image.clone(),
                timeout: args.timeout,
                uuid: args.uuid.clone(),
                title: args.title.clone(),
                topic: args.topic.clone(),
                client_files: !args.no_client_files,
            }),
            PlatformArgs::GithubClassroom(args) => Build::GithubClassroom(GithubClassroomOptions {
                cases: args.cases.clone(),
                practice_key: args.practice_key.clone(),
                feedback: args.feedback.unwrap_or(Feedback::Cases),
                weights: args.weights.as_ref().map(|w| w.0.clone()),
                columns: args.columns.0.clone(),
                binary: args.binary.clone(),
                read: args.read.options(),
                output: args.output.clone(),
            }),
        }
    }
}

/// Runs `autograder`.
pub fn run(args: &Args) -> Result<ExitCode> {
    crate::bundle::build(&args.build()).map(super::exit_code)
}
