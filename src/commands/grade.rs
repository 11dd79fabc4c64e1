//! `leasejudge grade`: grade a class's filled-in matrices against hidden golden labels (spec
//! section 8, issue 14). The command line only: the work is [`crate::ops::grade`].

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::commands::args::GradedColumns;
use crate::commands::args::ReadArgs;
use crate::commands::choice::choice;
use crate::grading::class::{parse_points, parse_weights, Feedback};
use crate::grading::{parse_column_list, Column};
use crate::lms::{Lms, Missing, NotOnRoster};
use crate::ops::grade::{GradeFormat, Options};
use crate::report::platform_results::Visibility;

/// The weights given with `--weights`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights(pub Vec<(Column, u32)>);

fn parse_weights_arg(text: &str) -> Result<Weights, String> {
    parse_weights(text).map(Weights)
}

fn parse_graded(text: &str) -> Result<GradedColumns, String> {
    parse_column_list(text).map(GradedColumns)
}

/// Grade filled-in matrices against golden labels.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
A submission may be a CSV file from any spreadsheet (comma, semicolon or tab, detected from \
the header; a byte-order mark; \\n, \\r\\n or \\r line endings) or a workbook (.xlsx, .xlsm, \
.ods), with extra columns, columns in any order, headings as in the lesson (Decision, Reason, \
Stale Generation) and blank lines. Its values compare leniently (spec section 8): timestamps \
with a space for T and no offset (UTC), integers like 08 or 8.0, durations like PT30S, \
TRUE/yes/1 booleans, ;-lists in any order. The golden file's values must be in canonical form. \
Rows are matched by case_id; a golden case the submission lacks counts as wrong; a submission \
row the golden file lacks is a warning, not scored.

Each submission is graded on its own: one that cannot be read is reported as ungradable, \
with every problem listed as FILE:LINE: column: message (value), and the others are still \
graded. A submission must be a regular file of its own: a symbolic link, a hard link or a \
file read for the instructor is ungradable, and links in a directory are not followed. \
Learners never see the golden file's name or values unless --reveal.

On an autograder, --submission-dir names the folder the platform put the learner's upload in: \
its one matrix file (by extension, in folders too, links not followed) is the submission, and \
none or several make it ungradable. --autograder runs as the platform's grading script: see \
docs/grading.md.

With --lms PLATFORM, the one SUBMISSION is the platform's bulk download of the class (the \
folder or the zip: Canvas's Download Submissions, Moodle's Download all submissions, the \
folder `gh classroom clone student-repos` makes), --roster its roster export, and \
--gradebook writes the file the platform's gradebook imports: each learner's grade scaled to \
the assignment's points, Moodle's feedback comments at the --feedback level. Every entry of \
the download must be a roster learner's (one that is not is an error, named; with \
--not-on-roster skip one of a learner the roster lacks is listed and left out), or with \
--groups a group's, graded for every member; each learner's matrix is found among their \
files as the autograders find it. A learner with no \
gradable submission is listed as ungradable and gets no grade (left out of the import, so a \
grade already there stays) unless --missing zero. See docs/grading.md.

Exit status: 0 every submission has full marks; 1 a difference; 2 trouble (an ungradable \
submission, a learner of the roster without one, a malformed golden file, unreadable options \
files). With --autograder: 0 once the \
results are written; 2 when they are not (a golden file that cannot be used, a usage error).")]
pub struct Args {
    /// Submissions: matrix files (CSV, or JSON or a workbook by extension), directories (every
    /// .csv, .json, .xlsx, .xlsm and .ods file in them, in name order), or `-` for CSV (or a
    /// workbook) on standard input.
    #[arg(required_unless_present = "submission_dir", value_name = "SUBMISSION")]
    pub submissions: Vec<PathBuf>,

    /// One learner's upload, as an autograder unpacks it: the one matrix file in DIR or its
    /// folders is the submission, named by its place in DIR; none, several, or a link is an
    /// ungradable submission.
    #[arg(long, value_name = "DIR", conflicts_with = "submissions")]
    pub submission_dir: Option<PathBuf>,

    /// Run as a platform's grading script (with -f gradescope or -f prairielearn, and -o):
    /// create -o's directory and exit 0 once the results are written, however the submission
    /// did; a golden file that cannot be used writes no results (the platform reports a failed
    /// run, and no score is recorded) and its problems go in full to standard output, which the
    /// platforms show only to instructors.
    #[arg(long)]
    pub autograder: bool,

    /// The golden matrix with the labels (CSV, or JSON or a workbook by extension).
    #[arg(long, value_name = "GOLDEN")]
    pub golden: PathBuf,

    /// Show golden values and the golden file's problems (for instructors): --feedback full.
    #[arg(long, conflicts_with = "feedback")]
    pub reveal: bool,

    /// What learners see: `none` the score only; `cases` which cases and columns are wrong;
    /// `hint` also the case-file lines that decide each wrong case (needs --cases);
    /// `shortcut` as `cases`, plus the shortcuts the wrong answers follow, by name and
    /// contract section (needs --cases); `full` everything, expected values included.
    #[arg(long, value_parser = choice::<Feedback>(), value_name = "LEVEL")]
    pub feedback: Option<Feedback>,

    /// The case files the matrices were filled in from: for --feedback hint, and to name the
    /// shortcut each learner's wrong answers follow.
    #[arg(long = "cases", value_name = "CASEFILE", num_args = 1..)]
    pub cases: Vec<PathBuf>,

    /// Partial credit: each case scores the sum of the weights of its right columns, e.g.
    /// `decision=2,reason=1` (a graded column not named weighs 1).
    #[arg(long, value_name = "COLUMN=WEIGHT,...", value_parser = parse_weights_arg)]
    pub weights: Option<Weights>,

    /// The columns to grade: names separated by commas (as matrix headers), or `all`.
    #[arg(long, value_name = "COLUMNS", default_value = "decision,reason", value_parser = parse_graded)]
    pub columns: GradedColumns,

    /// Write a gradebook CSV: one line per submission.
    #[arg(long, value_name = "FILE")]
    pub gradebook: Option<PathBuf>,

    /// An earlier gradebook: each submission's previous score and the change.
    #[arg(long, value_name = "OLD_GRADEBOOK")]
    pub baseline: Option<PathBuf>,

    /// Write an item analysis CSV: per golden case, how many got each graded column right
    /// and the most common wrong answer.
    #[arg(long, value_name = "FILE")]
    pub item_analysis: Option<PathBuf>,

    /// The assignment's points: the platforms' scores (Gradescope's score and test points,
    /// PrairieLearn's test points; with --lms, the grades written for the gradebook) scaled
    /// to them, as the assignment is set up on the platform (only with -f gradescope, -f
    /// prairielearn or --lms) [default: the raw points, one per case or the sum of the
    /// weights; with --lms, the roster's (Canvas's Points Possible, Moodle's Maximum Grade)].
    #[arg(long, value_name = "N", value_parser = parse_points)]
    pub points: Option<f64>,

    /// Who sees the Gradescope results, and when: the tests and the top-level output (only
    /// with -f gradescope) [default: visible].
    #[arg(long, value_parser = choice::<Visibility>())]
    pub visibility: Option<Visibility>,

    /// Report format [default: by the -o file's extension: .xml junit, .json json, .md
    /// markdown; otherwise table].
    #[arg(long, short = 'f', value_parser = choice::<GradeFormat>())]
    pub format: Option<GradeFormat>,

    /// Write the report to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// In the table, list every case, not only those that differ.
    #[arg(long, short = 'v')]
    pub verbose: bool,

    /// The platform the class was collected on: SUBMISSION is its bulk download of the
    /// submissions (the folder or the zip), --roster its roster export, and --gradebook
    /// writes the file its gradebook imports.
    #[arg(
        long,
        value_parser = choice::<Lms>(),
        value_name = "PLATFORM",
        requires = "roster",
        requires = "gradebook",
        conflicts_with_all = ["submission_dir", "baseline"]
    )]
    pub lms: Option<Lms>,

    /// The platform's roster: Canvas's gradebook export, Moodle's grading worksheet, GitHub
    /// Classroom's roster CSV.
    #[arg(long, value_name = "ROSTER", requires = "lms")]
    pub roster: Option<PathBuf>,

    /// What a learner on the roster with no gradable submission gets: `skip` no grade (a
    /// grade already in the gradebook stays), `zero` a 0 [default: skip].
    #[arg(long, value_parser = choice::<Missing>(), value_name = "WHAT", requires = "lms")]
    pub missing: Option<Missing>,

    /// Which of a Canvas export's assignments is graded: its id (the number in parentheses
    /// in its column's header) or its title [default: the export's only assignment].
    #[arg(long, value_name = "ASSIGNMENT", requires = "lms")]
    pub assignment: Option<String>,

    /// A group assignment's groups, so that a group's submission is graded for every member:
    /// Canvas's export of the group set (People, the group set, Export), or the CSV `gh
    /// classroom assignment-grades` writes.
    #[arg(long, value_name = "FILE", requires = "lms")]
    pub groups: Option<PathBuf>,

    /// What becomes of a submission in the download of a learner the roster lacks: `error`
    /// nothing is graded (give the roster of every learner); `skip` it is listed and left
    /// out, the others graded [default: error].
    #[arg(long, value_parser = choice::<NotOnRoster>(), value_name = "WHAT", requires = "lms")]
    pub not_on_roster: Option<NotOnRoster>,

    /// How submissions are read if they are CSV or workbooks (the golden file: always
    /// detected, first sheet).
    #[command(flatten)]
    pub read: ReadArgs,
}

impl Args {
    /// The options `grade` runs with.
    fn options(&self) -> Options {
        Options {
            submissions: self.submissions.clone(),
            submission_dir: self.submission_dir.clone(),
            autograder: self.autograder,
            golden: self.golden.clone(),
            feedback: if self.reveal {
                Feedback::Full
            } else {
                self.feedback.unwrap_or(Feedback::Cases)
            },
            cases: self.cases.clone(),
            weights: self.weights.as_ref().map(|w| w.0.clone()),
            columns: self.columns.0.clone(),
            gradebook: self.gradebook.clone(),
            baseline: self.baseline.clone(),
            item_analysis: self.item_analysis.clone(),
            points: self.points,
            visibility: self.visibility,
            format: self.format,
            output: self.output.clone(),
            verbose: self.verbose,
            lms: self.lms,
            roster: self.roster.clone(),
            missing: self.missing,
            assignment: self.assignment.clone(),
            groups: self.groups.clone(),
            not_on_roster: self.not_on_roster,
            read: self.read.options(),
        }
    }
}

/// Runs `grade`.
pub fn run(args: &Args) -> Result<ExitCode> {
    crate::ops::grade::run(&args.options()).map(super::exit_code)
}
