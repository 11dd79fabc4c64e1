//! `leasejudge grade`: grade a class's filled-in matrices against hidden golden labels (spec
//! section 8, issue 14): every submission on its own, a class summary, a gradebook, partial
//! credit, autograder result files, feedback levels and hints. Golden values and the golden
//! file's name stay hidden unless `--reveal` (`--feedback full`).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::grading::class::{
    grade_submission, parse_points, parse_weights, ClassReport, Feedback, Hint, Previous, Scoring,
    Submission, SubmissionOutcome,
};
use crate::grading::hint::hints_by_case;
use crate::grading::matrix_reader::{open_matrix, MatrixInput, MatrixRead, SplitMatrix};
use crate::grading::partitions::Splitter;
use crate::grading::precheck::{precheck, Precheck};
use crate::grading::spool::Spool;
use crate::grading::submission_file::{
    is_symbolic_link, open_submission, standard_input_submission, InstructorFiles,
};
use crate::grading::upload::{find_matrix, UPLOAD};
use crate::grading::{
    default_format, parse_column_list, Column, GradedColumns, MatrixFileFormat, ReportFormat,
};
use crate::input::{InputError, InputErrors, ReadArgs};
use crate::lms::roster::scaled;
use crate::lms::{read_class, Class, LearnerGrade, Lms, Missing, NotOnRoster, Roster, Upload};
use crate::output::{
    check_paths, commit_all, escape_controls, escape_message, Content, Named, Output,
};
use crate::report::class_json::write_json;
use crate::report::class_text::{key_lines, score_line, write_github, write_markdown, write_table};
use crate::report::github_classroom::write_github_classroom;
use crate::report::gradebook::{render_gradebook, write_item_analysis};
use crate::report::learner_feedback::feedback_lines;
use crate::report::platform_results::{write_gradescope, write_prairielearn, Visibility};
use crate::streaming::StreamError;

/// How `grade`'s report is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GradeFormat {
    /// Per submission a table of its cases, then the class summary, for people.
    Table,
    /// One JSON document: every submission, per-case and per-column breakdown, the summary.
    Json,
    /// JUnit XML: a testsuite per submission, a testcase per case.
    Junit,
    /// GitHub Actions workflow commands.
    Github,
    /// Markdown, for a CI step summary.
    Markdown,
    /// Gradescope's autograder `results.json` (one submission).
    Gradescope,
    /// PrairieLearn's external grading results (one submission).
    Prairielearn,
    /// The input of GitHub Classroom's grading reporter, as JSON (one submission).
    GithubClassroom,
}

impl GradeFormat {
    /// What a report in this format holds.
    pub fn content(self) -> Content {
        match self {
            GradeFormat::Table | GradeFormat::Markdown => Content::Text,
            GradeFormat::Json
            | GradeFormat::Gradescope
            | GradeFormat::Prairielearn
            | GradeFormat::GithubClassroom => Content::Json,
            GradeFormat::Junit => Content::Markup,
            GradeFormat::Github => Content::WorkflowCommands,
        }
    }
}

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
    /// `hint` also the case-file lines that decide each wrong case (needs --cases); `full`
    /// everything, expected values included.
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub feedback: Option<Feedback>,

    /// The case files the matrices were filled in from (for --feedback hint).
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
    #[arg(long, value_enum)]
    pub visibility: Option<Visibility>,

    /// Report format [default: by the -o file's extension: .xml junit, .json json, .md
    /// markdown; otherwise table].
    #[arg(long, short = 'f', value_enum)]
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
        value_enum,
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
    #[arg(long, value_enum, value_name = "WHAT", requires = "lms")]
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
    #[arg(long, value_enum, value_name = "WHAT", requires = "lms")]
    pub not_on_roster: Option<NotOnRoster>,

    /// How submissions are read if they are CSV or workbooks (the golden file: always
    /// detected, first sheet).
    #[command(flatten)]
    pub read: ReadArgs,
}

/// Whether a directory entry is a matrix file `grade` reads: by its extension, a regular
/// file or a symbolic link (whatever it points to, even a directory: listed so that it is
/// reported ungradable, not followed or skipped in silence), or one that cannot be examined
/// (reading it says why).
fn is_matrix_file(path: &Path) -> bool {
    let extension = crate::input::lowercase_extension(path);
    matches!(
        extension.as_deref(),
        Some("csv" | "json" | "xlsx" | "xlsm" | "ods")
    ) && std::fs::symlink_metadata(path)
        .map_or(true, |meta| meta.is_file() || meta.file_type().is_symlink())
}

/// The submissions the arguments name: files as given, directories expanded in name order. A
/// symbolic link is not a directory here (it is a submission, refused when opened) unless its
/// name ends with `/`, which asks for the directory it points to.
fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, InputErrors> {
    let mut files = Vec::new();
    let mut errors = InputErrors::new();
    for path in paths {
        if std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_dir()) {
            files.extend(crate::input::files_in_directory(
                path,
                &is_matrix_file,
                "matrix files (.csv, .json, .xlsx, .xlsm, .ods)",
                &mut errors,
            ));
        } else {
            files.push(path.clone());
        }
    }
    if errors.is_empty() {
        Ok(files)
    } else {
        Err(errors)
    }
}

/// A submission read split by `splitter`, with the errors its reader found; one that is not a
/// file of its own (a link, one of `instructor`'s files) is refused before a byte is read.
fn read_submission(
    path: &Path,
    name: &str,
    read: &ReadArgs,
    columns: &[Column],
    splitter: &Splitter,
    instructor: &InstructorFiles,
) -> Result<(SplitMatrix, InputErrors), InputErrors> {
    let options = read.options();
    if path.as_os_str() == "-" {
        let (file, format) = standard_input_submission(instructor).map_err(InputErrors::one)?;
        MatrixRead::submission(columns, &options).read_split(
            MatrixInput::Open(file, format),
            "-",
            splitter,
        )
    } else {
        let file = open_submission(path, name, instructor).map_err(InputErrors::one)?;
        let format = MatrixFileFormat::for_path(path);
        MatrixRead::submission(columns, &options).read_split(
            MatrixInput::Open(file, format),
            name,
            splitter,
        )
    }
}

/// The golden file, or its problems (unreadable, malformed, lacking a graded column). It is
/// read from the handle whose identity goes into `instructor`, so a submission can never be
/// the file that was read as the key.
fn read_golden(
    path: &Path,
    columns: &[Column],
    splitter: &Splitter,
    instructor: &mut InstructorFiles,
) -> Result<Result<SplitMatrix, InputErrors>> {
    let name = path.to_string_lossy();
    let file = match open_matrix(path, &name) {
        Ok(file) => file,
        Err(problems) => return Ok(Err(problems)),
    };
    instructor.add_open(&file);
    // Strict: a golden value not in canonical form is the author's error.
    let format = MatrixFileFormat::for_path(path);
    let (golden, errors) = match MatrixRead::golden(columns).read_split(
        MatrixInput::Open(file, format),
        &name,
        splitter,
    ) {
        Ok(read) => read,
        Err(problems) => return Ok(Err(problems)),
    };
    // A full temporary directory is the run's trouble, never a malformed key.
    let golden = match golden
        .checked_kept(errors)
        .context("cannot keep the golden file in temporary files")?
    {
        Ok(golden) => golden,
        Err(problems) => return Ok(Err(problems)),
    };
    let missing = golden.missing_columns(columns);
    Ok(if missing.is_empty() {
        Ok(golden)
    } else {
        Err(missing)
    })
}

/// Per golden case (`case_ids`, in golden-file order), the hint from replaying `cases`.
fn hints(cases: &[PathBuf], case_ids: &Spool<(u64, String)>) -> Result<Vec<Option<Hint>>> {
    let sources = ReadArgs::default().apply(crate::input::expand_inputs(cases)?);
    let mut by_id = match hints_by_case(&sources) {
        Ok(hints) => hints,
        Err(StreamError::Input(errors)) => return Err(errors.into()),
        Err(StreamError::Io(e)) => return Err(e).context("cannot keep the case files' hints"),
    };
    let hint = |id: io::Result<(u64, String)>| Ok(by_id.remove(id?.1.as_str()));
    case_ids.iter().map(hint).collect()
}

/// One splitter for the golden file and every submission, planned for the largest of them:
/// a partition of any of them then holds a few megabytes. Standard input is read whole
/// before it is split, so its size does not count, and nor does what a submission that is a
/// symbolic link points to (it is never read).
fn splitter(golden: &Path, submissions: &[&Path]) -> Splitter {
    let largest = std::fs::metadata(golden)
        .into_iter()
        .chain(
            submissions
                .iter()
                .filter_map(|path| std::fs::symlink_metadata(path).ok()),
        )
        .map(|metadata| metadata.len())
        .max()
        .unwrap_or(0);
    Splitter::for_bytes(largest)
}

fn usage(message: &str) -> anyhow::Error {
    anyhow::anyhow!("usage: {message}")
}

/// Whether `format` is an autograder platform's results file.
fn is_platform(format: GradeFormat) -> bool {
    matches!(format, GradeFormat::Gradescope | GradeFormat::Prairielearn)
}

/// Whether `format` reports on one submission.
fn is_one_submission(format: GradeFormat) -> bool {
    is_platform(format) || format == GradeFormat::GithubClassroom
}

/// An option the format cannot honour is a usage error, not ignored in silence.
fn check_format_options(args: &Args, format: GradeFormat) -> Result<()> {
    if args.visibility.is_some() && format != GradeFormat::Gradescope {
        return Err(usage(if format == GradeFormat::Prairielearn {
            "--visibility cannot be honoured with -f prairielearn: PrairieLearn shows external \
             grading results at once, and its results have no visibility (hide scores with the \
             assessment's own settings)"
        } else {
            "--visibility is used only with -f gradescope"
        }));
    }
    if args.points.is_some() && !is_platform(format) && args.lms.is_none() {
        return Err(usage(
            "--points scales a platform's score: it is used only with -f gradescope, -f \
             prairielearn or --lms",
        ));
    }
    if args.verbose && is_one_submission(format) {
        return Err(usage(
            "-v lists every case in the table; -f gradescope, -f prairielearn and -f \
             github-classroom have a test per case already",
        ));
    }
    if args.lms.is_some() && is_one_submission(format) {
        return Err(usage(
            "--lms grades a class: -f gradescope, -f prairielearn and -f github-classroom \
             report on one submission",
        ));
    }
    if args.autograder {
        if !is_platform(format) {
            return Err(usage(
                "--autograder runs as a platform's grading script: give -f gradescope or -f \
                 prairielearn",
            ));
        }
        if args.output.as_deref().is_none_or(|p| p.as_os_str() == "-") {
            return Err(usage(
                "--autograder needs -o FILE: the results file the platform reads",
            ));
        }
    }
    Ok(())
}

/// On an autograder, a golden file that cannot be used writes no results: the platform then
/// reports the run as failed (Gradescope: "The autograder failed to execute correctly";
/// PrairieLearn: the job did not succeed, so the submission is not gradable and costs no
/// attempt) instead of recording a score for every learner. Its problems go in full to
/// standard output, which both platforms show only to instructors.
fn refuse_unusable_key(golden: &Path, problems: &InputErrors) -> ExitCode {
    let mut out = std::io::stdout().lock();
    let width = crate::terminal::table_width(std::io::IsTerminal::is_terminal(&out));
    let mut log = Log::within(LOG_LIMIT).wrapped(width);
    log.prose(
        &mut out,
        &format!(
            "the answer key {} cannot be used, so no results were written: the platform \
             reports this run as failed and records no score. Fix the key in the autograder, \
             then regrade. Its problems:",
            escape_controls(&golden.to_string_lossy())
        ),
    );
    for problem in problems {
        log.line(&mut out, &problem.to_string());
    }
    if let Some(line) = crate::output::unlisted_line(problems) {
        log.line(&mut out, &line);
    }
    log.finish(&mut out);
    let _ = out.flush();
    ExitCode::from(2)
}

/// What is wrong with an unusable key, for the one running `grade` (the report tells learners
/// only that it cannot be used): the reason it cannot be read, or how many problems it has
/// and how to see them, never its name or a value.
fn key_trouble(problems: &InputErrors) -> String {
    match problems.listed() {
        [only] if only.line == 0 && only.message.starts_with("cannot read") => format!(
            "the golden file given with --golden cannot be read ({}): check its path (the \
             report names it only with --reveal)",
            only.message
                .strip_prefix("cannot read: ")
                .unwrap_or(&only.message)
        ),
        [only] if only.message == crate::grading::matrix_reader::CASE_FILE_NOT_MATRIX => {
            "the golden file given with --golden is a case file, not a matrix: it has an event \
             column and no decision or reason; give the key (the matrix adjudicate writes of \
             the case files) with --golden, and the case files with --cases"
                .to_owned()
        }
        _ => format!(
            "the golden file given with --golden is malformed: {} problem{}; rerun with \
             --reveal to see each one located (learners are told only that it is malformed)",
            crate::output::thousands(problems.total()),
            if problems.total() == 1 { "" } else { "s" }
        ),
    }
}

/// Removes the results an earlier run left at `path` (a container used again): a run that
/// writes none (its key cannot be used) must leave none, or the platform would read the
/// earlier learner's. Run once `path` is known to be no input.
fn remove_earlier_results(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e).with_context(|| {
            format!(
                "cannot remove the results of an earlier run, {}",
                path.display()
            )
        }),
        _ => Ok(()),
    }
}

/// The most bytes an autograder run writes for its instructor: its standard output and error
/// are the run's log (Gradescope's `results/stdout`, PrairieLearn's job log), and a large
/// upload's every problem once made 129 MB of it. 1,000,000 bytes, like the results.
const LOG_LIMIT: usize = 1_000_000;

/// Lines written as `leasejudge: LINE` (controls made visible) while they fit in a budget;
/// the lines past it are counted, and [`Log::finish`] says how many.
struct Log {
    left: usize,
    left_out: u64,
    /// The width its lines are wrapped to.
    width: usize,
}

impl Log {
    /// A log of at most `limit` bytes (`usize::MAX`: no limit), its lines unwrapped.
    fn within(limit: usize) -> Log {
        // Room kept for the last line, which counts what was left out.
        Log {
            left: limit.saturating_sub(200),
            left_out: 0,
            width: usize::MAX,
        }
    }

    /// The log with its lines wrapped to `width` columns (the width rule of the stream it
    /// goes to), each entry's continuation indented.
    fn wrapped(self, width: u16) -> Log {
        Log {
            width: usize::from(width),
            ..self
        }
    }

    /// A located problem: one line, whatever its length (as compilers write them, for
    /// editors, `grep` and CI's problem matchers).
    fn line(&mut self, out: &mut dyn Write, line: &str) {
        self.entry(out, line, usize::MAX);
    }

    /// A sentence: wrapped to the log's width, its continuation lines indented.
    fn prose(&mut self, out: &mut dyn Write, line: &str) {
        self.entry(out, line, self.width);
    }

    fn entry(&mut self, out: &mut dyn Write, line: &str, width: usize) {
        // An entry starts a line of its own: a line break in a name cannot forge another, and
        // a wrapped one's continuation lines are indented. Its parts from input are escaped
        // where the line is made; what is still unsafe is shown here.
        let line = crate::terminal::wrap(
            &format!("leasejudge: {}", escape_message(line)),
            width,
            "  ",
        ) + "\n";
        if self.left_out == 0 && line.len() <= self.left {
            self.left -= line.len();
            let _ = out.write_all(line.as_bytes());
        } else {
            self.left_out += 1;
        }
    }

    fn finish(&mut self, out: &mut dyn Write) {
        if self.left_out > 0 {
            let _ = writeln!(
                out,
                "leasejudge: … and {} more line{} not shown: this log is kept under 1 MB",
                self.left_out,
                if self.left_out == 1 { "" } else { "s" }
            );
            self.left_out = 0;
        }
    }
}

/// `text` written to a temporary file for `path`, to commit with the run's other outputs.
fn render_file(path: &Path, text: &str, what: &str) -> Result<Output> {
    let mut out = Output::open(Some(path), Content::Csv)?;
    out.write_all(text.as_bytes())
        .with_context(|| format!("cannot write the {what}"))?;
    Ok(out)
}

/// Before anything is read: no output may be an input or another output. A clash with the
/// golden file is reported without its name unless `reveal`, since learners may see it.
fn check_outputs(args: &Args, submissions: &[&Path], reveal: bool) -> Result<()> {
    let mut outputs = vec![match &args.output {
        Some(path) => Named::new("-o", path),
        None => Named::stdout("the report"),
    }];
    if let Some(path) = &args.gradebook {
        outputs.push(Named::new("--gradebook", path));
    }
    if let Some(path) = &args.item_analysis {
        outputs.push(Named::new("--item-analysis", path));
    }
    // A submission that is a symbolic link is never read (it is ungradable), so it is no
    // input: a learner's link to an output does not stop the class's run.
    let mut inputs: Vec<Named<'_>> = submissions
        .iter()
        .filter(|path| !is_symbolic_link(path))
        .map(|path| Named::new("submission", path))
        .collect();
    if let Some(path) = &args.baseline {
        inputs.push(Named::new("--baseline", path));
    }
    if let Some(path) = &args.roster {
        inputs.push(Named::new("--roster", path));
    }
    if let Some(path) = &args.groups {
        inputs.push(Named::new("--groups", path));
    }
    if args.lms.is_some() {
        inputs.extend(
            args.submissions
                .iter()
                .map(|p| Named::new("the download", p)),
        );
    }
    inputs.extend(args.cases.iter().map(|path| Named::new("--cases", path)));
    check_paths(&inputs, &outputs)?;
    // A download's folder is an input whole: an output in it would be an entry of no
    // learner's in the next run.
    if let (Some(_), [download]) = (args.lms, args.submissions.as_slice()) {
        if let Some(folder) = std::fs::canonicalize(download).ok().filter(|p| p.is_dir()) {
            let named = [
                ("-o", &args.output),
                ("--gradebook", &args.gradebook),
                ("--item-analysis", &args.item_analysis),
            ];
            for (option, path) in named {
                let Some(path) = path else { continue };
                let parent = match path.parent() {
                    Some(parent) if !parent.as_os_str().is_empty() => parent,
                    _ => Path::new("."),
                };
                if std::fs::canonicalize(parent).is_ok_and(|p| p.starts_with(&folder)) {
                    return Err(usage(&format!(
                        "{option} {} is inside the download {}, an input: write it elsewhere \
                         (nothing was written)",
                        path.display(),
                        download.display()
                    )));
                }
            }
        }
    }
    let golden = [Named::new("--golden", &args.golden)];
    match check_paths(&golden, &outputs) {
        Err(_) if !reveal => Err(anyhow::anyhow!(
            "an output and the golden file are the same file; an output may not be an input (nothing \
             was written)"
        )),
        result => Ok(result?),
    }
}

/// A submission to grade: a file to read, or why there is none (an ungradable submission).
enum Entry {
    /// A file, named as reports name it.
    Read {
        /// Where it is.
        path: PathBuf,
        /// What reports call it.
        name: String,
    },
    /// No file to read: the problems.
    Refused {
        /// What reports call it.
        name: String,
        /// Why there is no file.
        problems: InputErrors,
    },
}

impl Entry {
    /// Its name as a gradebook shows it (as a person reads it: `escape_controls`).
    fn shown_name(&self) -> String {
        let (Entry::Read { name, .. } | Entry::Refused { name, .. }) = self;
        escape_controls(name).into_owned()
    }
}

/// The roster and the download of `--lms`, read. The points the roster holds must agree
/// with `--points`.
fn read_lms_class(args: &Args, lms: Lms, instructor: &InstructorFiles) -> Result<Class> {
    let [download] = args.submissions.as_slice() else {
        return Err(usage(&format!(
            "--lms takes one SUBMISSION, the {} download of the class (its folder or zip); {} \
             given",
            lms.title(),
            args.submissions.len()
        )));
    };
    if download.as_os_str() == "-" {
        return Err(usage(
            "--lms reads the download from its folder or zip, not standard input",
        ));
    }
    let roster_path = args.roster.as_deref().expect("clap requires --roster");
    if lms != Lms::Canvas && args.assignment.is_some() {
        return Err(usage(
            "--assignment picks a column of a Canvas gradebook export; a Moodle worksheet and a \
             GitHub Classroom roster are of one assignment",
        ));
    }
    let roster = Roster::read(lms, roster_path, args.assignment.as_deref())?;
    if let (Some(held), Some(given)) = (roster.points(), args.points) {
        if (held - given).abs() > 1e-9 {
            return Err(usage(&format!(
                "--points {} disagrees with the {} points {} holds for the assignment ({}): \
                 leave --points out, or change the assignment's points on {} first",
                crate::lms::roster::points_text(given),
                crate::lms::roster::points_text(held),
                roster_path.display(),
                lms.title(),
                lms.title()
            )));
        }
    }
    if roster.points().is_none() && args.points.is_none() && lms != Lms::GithubClassroom {
        return Err(usage(&format!(
            "{} does not say the assignment's points: give --points",
            roster_path.display()
        )));
    }
    if args
        .points
        .is_some_and(|p| !crate::lms::roster::is_gradable_points(p))
    {
        return Err(usage(
            "--points with --lms must be at least 0.01: grades are written to the hundredth",
        ));
    }
    let options = crate::lms::ClassOptions::read(lms, args.groups.as_deref(), args.not_on_roster)?;
    Ok(read_class(lms, download, roster, instructor, &options)?)
}

/// A class's learners as submissions, in the roster's order: a learner's matrix is named
/// `{learner}/{its place in the upload}`; a learner without one is a refused entry named by
/// the learner, saying why.
fn class_entries(class: &Class) -> Vec<Entry> {
    class
        .roster
        .learners()
        .iter()
        .zip(&class.uploads)
        .enumerate()
        .map(|(n, (learner, upload))| {
            let label = &class.label(n);
            match upload {
                Upload::Found(found) => Entry::Read {
                    path: found.path.clone(),
                    name: format!("{label}/{}", found.name),
                },
                Upload::Problems(problems) => Entry::Refused {
                    name: label.clone(),
                    problems: problems
                        .iter()
                        .cloned()
                        .map(|mut problem| {
                            problem.file = if problem.file == UPLOAD {
                                label.clone()
                            } else {
                                format!("{label}/{}", problem.file)
                            };
                            problem
                        })
                        .collect(),
                },
                Upload::Missing => Entry::Refused {
                    name: label.clone(),
                    problems: InputErrors::one(InputError::new(
                        label,
                        0,
                        match &learner.note {
                            Some(note) => format!("no submission in the download: {note}"),
                            None => "no submission in the download".to_owned(),
                        },
                    )),
                },
            }
        })
        .collect()
}

/// The file the platform imports, and the line that says what was written.
fn platform_gradebook(
    args: &Args,
    class: &Class,
    report: &ClassReport,
    path: &Path,
) -> io::Result<(String, String)> {
    let points = args
        .points
        .or(class.roster.points())
        .unwrap_or(report.max_score() as f64);
    let missing = args.missing.unwrap_or_default();
    let grades: Vec<LearnerGrade> = report
        .submissions
        .iter()
        .zip(&class.uploads)
        .enumerate()
        .map(|(n, (submission, upload))| {
            Ok(LearnerGrade {
                points: match &submission.outcome {
                    SubmissionOutcome::Graded(graded) => {
                        Some(scaled(graded.score, report.max_score(), points))
                    }
                    // An excused learner's 0 would undo the excusal.
                    _ if missing == Missing::Zero && !class.roster.excused(n) => Some(0.0),
                    _ => None,
                },
                feedback: match upload {
                    Upload::Missing => vec!["No submission was found.".to_owned()],
                    _ => feedback_lines(report, submission)?,
                },
            })
        })
        .collect::<io::Result<_>>()?;
    let given = grades.iter().filter(|g| g.points.is_some()).count();
    let without = grades.len() - given;
    let mut line = format!(
        "wrote {}: {given} grade{} out of {} points",
        escape_controls(&path.to_string_lossy()),
        if given == 1 { "" } else { "s" },
        crate::lms::roster::points_text(points)
    );
    if without > 0 {
        line.push_str(&format!(
            ", {without} learner{} with no gradable submission given no grade ({})",
            if without == 1 { "" } else { "s" },
            match missing {
                Missing::Skip => "--missing zero gives 0",
                Missing::Zero => "excused on the platform: a 0 would undo the excusal",
            }
        ));
    }
    if let (_, Some(note)) = class.skipped_lines() {
        line.push_str(&format!(", {note}"));
    }
    line.push_str("; ");
    // The assignment's name is the roster's text.
    line.push_str(&escape_controls(&class.roster.describe()));
    Ok((class.roster.render(&grades, points), line))
}

/// Runs `grade`.
pub fn run(args: &Args) -> Result<ExitCode> {
    let feedback = if args.reveal {
        Feedback::Full
    } else {
        args.feedback.unwrap_or(Feedback::Cases)
    };
    if args.golden.as_os_str() == "-" {
        return Err(usage(
            "--golden - is not allowed: standard input is for a submission; give the golden file's path",
        ));
    }
    if feedback == Feedback::Hint && args.cases.is_empty() {
        return Err(usage(
            "--feedback hint needs the case files: --cases CASEFILE...",
        ));
    }
    if feedback != Feedback::Hint && !args.cases.is_empty() {
        return Err(usage("--cases is used only with --feedback hint"));
    }
    let format = args
        .format
        .unwrap_or_else(|| match default_format(args.output.as_deref()) {
            ReportFormat::Table => GradeFormat::Table,
            ReportFormat::Json => GradeFormat::Json,
            ReportFormat::Junit => GradeFormat::Junit,
            ReportFormat::Github => GradeFormat::Github,
            ReportFormat::Markdown => GradeFormat::Markdown,
        });
    check_format_options(args, format)?;
    let columns = args.columns.0.clone();
    let scoring = Scoring::new(
        columns.clone(),
        args.weights.as_ref().map(|w| w.0.as_slice()),
    )
    .map_err(|e| usage(&e))?;
    if args
        .submissions
        .iter()
        .filter(|p| p.as_os_str() == "-")
        .count()
        > 1
    {
        return Err(usage("standard input (-) can be read only once"));
    }
    // Every file read for the instructor, which no submission may be (nor a copy made of
    // one from a download).
    let mut instructor = InstructorFiles::new();
    instructor.add_path(&args.golden);
    for path in args.baseline.iter().chain(&args.roster).chain(&args.groups) {
        instructor.add_path(path);
    }
    // A case file that cannot be listed is reported when the hints read it.
    for source in crate::input::expand_inputs(&args.cases).unwrap_or_default() {
        if let Some(path) = &source.path {
            instructor.add_path(path);
        }
    }
    // A class from a platform's download: its learners, in the roster's order.
    let class = match args.lms {
        Some(lms) => Some(read_lms_class(args, lms, &instructor)?),
        None => None,
    };
    let entries = match (&class, &args.submission_dir) {
        (Some(class), _) => class_entries(class),
        // A learner's upload: its one matrix file, or why it has none (ungradable).
        (None, Some(dir)) => vec![match find_matrix(dir) {
            Ok(found) => Entry::Read {
                path: found.path,
                name: found.name,
            },
            Err(problems) => Entry::Refused {
                name: UPLOAD.to_owned(),
                problems,
            },
        }],
        (None, None) => expand(&args.submissions)?
            .into_iter()
            .map(|path| Entry::Read {
                name: crate::grading::upload::path_name(&path),
                path,
            })
            .collect(),
    };
    let paths: Vec<&Path> = entries
        .iter()
        .filter_map(|entry| match entry {
            Entry::Read { path, .. } => Some(path.as_path()),
            Entry::Refused { .. } => None,
        })
        .collect();
    if is_one_submission(format) && entries.len() != 1 {
        return Err(usage(&format!(
            "-f gradescope, -f prairielearn and -f github-classroom grade one submission; {} \
             given",
            entries.len()
        )));
    }
    check_outputs(args, &paths, feedback.reveals())?;
    if args.autograder {
        remove_earlier_results(
            args.output
                .as_deref()
                .expect("checked: --autograder has -o"),
        )?;
    }
    crate::limits::raise_open_files_limit();
    let baseline = match &args.baseline {
        // Only this class's earlier scores are kept (a gradebook names a submission as a
        // person reads it: `escape_controls`).
        Some(path) => {
            let names: std::collections::HashSet<String> =
                entries.iter().map(Entry::shown_name).collect();
            Some(crate::grading::baseline::read_baseline(path, &|listed| {
                names.contains(listed)
            })?)
        }
        None => None,
    };
    let reveal = feedback.reveals();
    let splitter = splitter(&args.golden, &paths);
    let golden = read_golden(&args.golden, &columns, &splitter, &mut instructor)?;
    if let (true, Err(problems)) = (args.autograder, &golden) {
        return Ok(refuse_unusable_key(&args.golden, problems));
    }
    // The golden case ids in order, for the hints and the item analysis.
    let case_ids = match &golden {
        Ok(golden) if feedback == Feedback::Hint || args.item_analysis.is_some() => Some(
            golden
                .case_ids()
                .context("reading the golden file back from its temporary file")?,
        ),
        _ => None,
    };
    let hints = match (&case_ids, feedback) {
        (Some(case_ids), Feedback::Hint) => hints(&args.cases, case_ids)?,
        _ => Vec::new(),
    };
    // The check of a platform's one submission, shown to its learner at once.
    let mut check: Option<Precheck> = None;
    let cases = golden.as_ref().map_or(0, |golden| golden.len());
    let submissions = entries
        .into_iter()
        .map(|entry| -> Result<Submission> {
            let (name, outcome) = match entry {
                Entry::Refused { name, problems } => {
                    if is_platform(format) {
                        check = Some(Precheck::unreadable(&name, cases, problems.clone()));
                    }
                    (name, SubmissionOutcome::Ungradable(problems))
                }
                // A submission's own problems are reported even when the golden file is
                // unusable. A submission found in an upload is named by its place in it (what
                // the learner uploaded, a name that is not UTF-8 escaped), in its problems
                // too: never by the platform's path.
                Entry::Read { path, name } => {
                    let read =
                        read_submission(&path, &name, &args.read, &columns, &splitter, &instructor);
                    let outcome = match read {
                        Err(errors) => {
                            if is_platform(format) {
                                check = Some(Precheck::unreadable(&name, cases, errors.clone()));
                            }
                            SubmissionOutcome::Ungradable(errors)
                        }
                        Ok((submission, errors)) => {
                            // On a platform, the learner's check first: it looks at the key's
                            // case ids, never its values.
                            if let (true, Ok(golden)) = (is_platform(format), &golden) {
                                check = Some(
                                    precheck(&name, golden, &submission, &errors, &columns)
                                        .context("checking through temporary files")?,
                                );
                            }
                            grade_submission(
                                golden.as_ref().ok(),
                                submission,
                                errors,
                                &scoring,
                                reveal,
                            )
                            .context("grading through temporary files")?
                        }
                    };
                    (name, outcome)
                }
            };
            // A gradebook names a submission as a person reads it (`report_cell`, one for one).
            let previous = baseline
                .as_ref()
                .and_then(|b| b.get(&*escape_controls(&name)))
                .map(|score| Previous { score: *score });
            Ok(Submission {
                name,
                outcome,
                previous,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    // What the one running `grade` is told on standard error about an unusable key: what is
    // wrong with it, and what to do; its name and values only with --reveal (a CI log may be
    // a learner's).
    let key_trouble = match &golden {
        Err(problems) if !reveal => Some(key_trouble(problems)),
        _ => None,
    };
    let report = ClassReport {
        scoring,
        feedback,
        golden: reveal.then(|| args.golden.to_string_lossy().into_owned()),
        cases: match &golden {
            Ok(golden) => usize::try_from(golden.len()).expect("cases fit memory"),
            Err(_) => 0,
        },
        hints,
        // Unreadable, not malformed: its one problem is about the whole file.
        key_unreadable: matches!(&golden, Err(problems) if matches!(problems.listed(),
            [only] if only.line == 0 && only.message.starts_with("cannot read"))),
        key_problems: match golden {
            Ok(_) => None,
            Err(problems) => Some(if reveal { problems } else { InputErrors::new() }),
        },
        submissions,
        baseline: baseline.is_some(),
        precheck: check,
        points: args.points,
    };
    if args.autograder {
        // PrairieLearn does not create /grade/results.
        let directory = args.output.as_deref().and_then(Path::parent);
        if let Some(directory) = directory.filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(directory).with_context(|| {
                format!(
                    "cannot create the results directory {}",
                    directory.display()
                )
            })?;
        }
    }
    let mut out = Output::open(args.output.as_deref(), format.content())?;
    let color = crate::terminal::use_color(out.is_terminal());
    let text = match format {
        // Written as it is made, a page of a table at a time.
        GradeFormat::Table => {
            // Coloured or not, on a terminal or piped: the one width rule of every table.
            let width = crate::terminal::table_width(out.is_terminal());
            write_table(&report, color, args.verbose, Some(width), &mut out)
                .context("cannot write the report")?;
            String::new()
        }
        // Written as it is made: a class of large matrices makes a large document.
        GradeFormat::Json => {
            write_json(&report, &mut out).context("cannot write the report")?;
            String::new()
        }
        GradeFormat::Junit => {
            crate::report::class_junit::write(&report, &mut out)?;
            String::new()
        }
        GradeFormat::Github => {
            write_github(&report, &mut out).context("cannot write the report")?;
            String::new()
        }
        GradeFormat::Markdown => {
            write_markdown(&report, &mut out).context("cannot write the report")?;
            String::new()
        }
        // Written as it is made: a test per golden case.
        GradeFormat::Gradescope => {
            let visibility = args.visibility.unwrap_or(Visibility::Visible);
            write_gradescope(&report, visibility, &mut out).context("cannot write the report")?;
            String::new()
        }
        GradeFormat::Prairielearn => {
            write_prairielearn(&report, &mut out).context("cannot write the report")?;
            String::new()
        }
        GradeFormat::GithubClassroom => {
            write_github_classroom(&report, &mut out).context("cannot write the report")?;
            String::new()
        }
    };
    out.write_all(text.as_bytes())
        .context("cannot write the report")?;
    // A table on the terminal shows each ungradable submission's problems: on that same
    // terminal, standard error only counts them (they were printed twice).
    let problems_shown = format == GradeFormat::Table
        && out.is_terminal()
        && std::io::IsTerminal::is_terminal(&std::io::stderr());
    // The report, the gradebook and the item analysis commit together or not at all.
    let mut outputs = vec![out];
    // With --lms, the platform's import; none when the golden file cannot be used (every
    // learner would be ungradable, and with --missing zero given 0).
    let mut imported = None;
    match (&args.gradebook, &class) {
        (Some(path), Some(class)) if report.key_problems.is_none() => {
            let (text, line) = platform_gradebook(args, class, &report, path)?;
            outputs.push(render_file(path, &text, "gradebook")?);
            imported = Some(line);
        }
        (Some(path), Some(_)) => {
            imported = Some(format!(
                "the {} gradebook {} was not written: the golden file cannot be used",
                args.lms.map_or("", Lms::title),
                escape_controls(&path.to_string_lossy())
            ));
        }
        (Some(path), None) => {
            outputs.push(render_file(path, &render_gradebook(&report)?, "gradebook")?)
        }
        (None, _) => {}
    }
    if let Some(path) = &args.item_analysis {
        let mut out = Output::open(Some(path), Content::Csv)?;
        let golden_ids = case_ids
            .iter()
            .flat_map(|ids| ids.iter().map(|id| id.map(|(_, id)| id)));
        write_item_analysis(&report, golden_ids, &mut out)
            .context("cannot write the item analysis")?;
        outputs.push(out);
    }
    commit_all(outputs)?;
    for line in class.iter().flat_map(|class| class.skipped_lines().0) {
        crate::output::to_stderr(&format!("leasejudge: {line}"));
    }
    if let Some(line) = imported {
        crate::output::to_stderr_wrapped(&format!("leasejudge: {line}"));
    }
    let code = report.exit_code();
    // An autograder's log is the instructor's: kept under 1 MB whatever the upload.
    let mut log = Log::within(if args.autograder {
        LOG_LIMIT
    } else {
        usize::MAX
    })
    .wrapped(crate::terminal::stderr_text_width());
    if code == 2 {
        // Trouble goes to standard error too, as with every command, whatever the report's
        // format: a submission's own problems, and the golden file's only as the report
        // shows them (in full with --reveal).
        let mut err = std::io::stderr().lock();
        match &key_trouble {
            Some(trouble) => log.prose(&mut err, trouble),
            None => {
                for line in key_lines(&report) {
                    log.line(&mut err, &line);
                }
            }
        }
        let mut ungradable = 0;
        for submission in &report.submissions {
            if let SubmissionOutcome::Ungradable(problems) = &submission.outcome {
                ungradable += 1;
                if !problems_shown {
                    for problem in problems {
                        log.line(&mut err, &problem.to_string());
                    }
                }
            }
        }
        log.finish(&mut err);
        if ungradable > 0 {
            let _ = writeln!(
                err,
                "leasejudge: {ungradable} submission{} could not be graded{}",
                if ungradable == 1 { "" } else { "s" },
                if problems_shown {
                    " (the report above says why)"
                } else {
                    ""
                }
            );
        }
    }
    if args.autograder {
        // For the instructor: standard output is theirs on both platforms.
        let submission = &report.submissions[0];
        let mut out = std::io::stdout().lock();
        let line = format!(
            "leasejudge: {}: {}; the results are in {}",
            escape_controls(&submission.name),
            score_line(&report, submission),
            escape_controls(
                &args
                    .output
                    .as_deref()
                    .unwrap_or(Path::new("-"))
                    .to_string_lossy()
            )
        );
        let width = crate::terminal::table_width(std::io::IsTerminal::is_terminal(&out));
        let _ = writeln!(
            out,
            "{}",
            crate::terminal::wrap(&line, usize::from(width), "  ")
        );
        return Ok(ExitCode::SUCCESS);
    }
    Ok(ExitCode::from(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_keeps_to_its_budget_and_counts_what_it_leaves_out() {
        let mut log = Log::within(1_000);
        let mut out = Vec::new();
        for i in 0..100 {
            log.line(&mut out, &format!("problem {i:03}: {}", "x".repeat(40)));
        }
        log.finish(&mut out);
        let text = String::from_utf8(out).unwrap();
        assert!(text.len() <= 1_000, "{} bytes", text.len());
        let listed = text.matches("leasejudge: problem ").count();
        assert!(listed > 5, "{text}");
        assert!(
            text.ends_with(&format!(
                "leasejudge: … and {} more lines not shown: this log is kept under 1 MB\n",
                100 - listed
            )),
            "{text}"
        );
        // Control characters in a line are made visible, not written.
        let mut out = Vec::new();
        Log::within(LOG_LIMIT).line(&mut out, "a\u{1b}[31mb\nforged");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "leasejudge: a\\u{1b}[31mb\\u{a}forged\n"
        );
    }
}
