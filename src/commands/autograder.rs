//! `leasejudge autograder`: an autograder ready to upload, built from the answer key and the
//! lab's case files: a Gradescope zip (`autograder gradescope`) or a PrairieLearn question
//! directory (`autograder prairielearn`), holding the key, the case files, this binary and the
//! scripts the platform runs (`bundle`). Before anything is written, the options
//! are checked, the key is read as `grade` reads it, and the case files are adjudicated and
//! their matrix graded against the key: a key that is malformed, or that disagrees with the
//! contract's verdicts on the case files, is refused with every problem located, for the
//! instructor who is building it.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use zip::write::SimpleFileOptions;

use crate::bundle::binary::{inspect, CLibrary, GlibcVersion};
use crate::bundle::{
    info_json, is_reserved, is_uuid, question_html, run_script, setup_script, BinaryAt,
    GradeOptions, Platform, QuestionHash, BINARY, CLIENT_FILES, COURSE_FOLDER, KEY_STEM, RUN,
    SETUP, WROTE,
};
use crate::commands::grade::Weights;
use crate::grading::class::{
    grade_submission, parse_points, parse_weights, CaseStatus, Feedback, Scoring, SubmissionOutcome,
};
use crate::grading::compare::shown;
use crate::grading::matrix_reader::{MatrixInput, MatrixRead, SplitMatrix};
use crate::grading::partitions::Splitter;
use crate::grading::upload::shown_name;
use crate::grading::{parse_column_list, GradedColumns, MatrixFileFormat};
use crate::input::{
    check_unchanged, expand_inputs, FileChanged, FileStamp, InputError, InputErrors, ReadArgs,
    ReadOptions, Source,
};
use crate::lease::RowReason;
use crate::output::{check_paths, Content, GuardedTemp, Named, Output, OutputDir};
use crate::report::class_text::number;
use crate::report::platform_results::Visibility;
use crate::store::TempWriter;
use crate::streaming::{judge, Sink, StreamError, StreamSettings};

/// PrairieLearn's grader images (`graders/*/Dockerfile` in PrairieLearn/PrairieLearn), the
/// system each is built on, and its GNU C library.
const PRAIRIELEARN_IMAGES: [(&str, &str, GlibcVersion); 4] = [
    (
        "prairielearn/grader-python",
        "Amazon Linux 2023",
        GlibcVersion(2, 34),
    ),
    ("prairielearn/grader-c", "Ubuntu 24.04", GlibcVersion(2, 39)),
    (
        "prairielearn/grader-java",
        "Ubuntu 24.04",
        GlibcVersion(2, 39),
    ),
    ("prairielearn/grader-r", "Ubuntu 24.04", GlibcVersion(2, 39)),
];

/// Gradescope's default base image and its GNU C library.
const GRADESCOPE_IMAGE: (&str, GlibcVersion) = ("Ubuntu 22.04", GlibcVersion(2, 35));

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
    /// carried for --feedback hint.
    #[arg(long = "cases", value_name = "CASEFILE", num_args = 1.., required = true)]
    cases: Vec<PathBuf>,

    /// What learners see (as `grade`): none, cases, hint or full [default: cases].
    #[arg(long, value_enum, value_name = "LEVEL")]
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
    #[arg(long, value_enum)]
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
    #[arg(long, value_enum, value_name = "LEVEL")]
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

fn usage(message: &str) -> anyhow::Error {
    anyhow::anyhow!("usage: {message}")
}

/// An autograder's inputs, checked: what is carried, and how it grades.
struct Prepared {
    /// The key and its name in the bundle.
    key: PathBuf,
    /// The case files and their names in the bundle.
    cases: Vec<(PathBuf, String)>,
    /// The binary and how it gets its C library.
    binary: PathBuf,
    c_library: CLibrary,
    /// How the bundled `grade` grades.
    options: GradeOptions,
    /// How many cases the key has.
    key_cases: u64,
    /// The copies of the case files that cannot be read twice, which `cases` names.
    _copies: crate::output::ReadTwice,
    /// What the key and the case files were before they were checked: each is carried only
    /// as it was then.
    stamps: HashMap<PathBuf, Option<FileStamp>>,
    /// The points a submission can score on the platform: `--points`, or the raw total.
    total_points: f64,
    /// The bytes of the lab's full matrix as CSV (every column): what a learner who fills
    /// in every column hands in.
    matrix_bytes: u64,
}

/// Runs `autograder`.
pub fn run(args: &Args) -> Result<ExitCode> {
    match &args.platform {
        PlatformArgs::Gradescope(args) => gradescope(args),
        PlatformArgs::Prairielearn(args) => prairielearn(args),
        PlatformArgs::GithubClassroom(args) => github_classroom(args),
    }
}

/// Writes a GitHub Classroom template repository: the workflow, the binary (and the practice
/// key) in `.github/leasejudge/`, the case files and the blank matrix at its root.
fn github_classroom(args: &GithubClassroomArgs) -> Result<ExitCode> {
    use crate::bundle::github_classroom::{
        is_plain_name, workflow, Workflow, DIR, MATRIX, WORKFLOW,
    };
    if args.output.as_os_str() == "-" {
        return Err(usage("-o - is not allowed: the template is a directory"));
    }
    if std::fs::read_dir(&args.output).is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(usage(&format!(
            "{} is not empty: give a new directory, then copy its files into the template \
             repository (nothing was written)",
            args.output.display()
        )));
    }
    let feedback = args.feedback.unwrap_or(Feedback::Cases);
    let columns = args.columns.0.clone();
    let weights = args.weights.as_ref().map(|w| w.0.clone());
    let scoring = Scoring::new(columns.clone(), weights.as_deref()).map_err(|e| usage(&e))?;
    if args
        .cases
        .iter()
        .chain(&args.practice_key)
        .any(|c| c.as_os_str() == "-")
    {
        return Err(usage(
            "standard input (-) cannot be carried: give the case files' and the key's paths",
        ));
    }
    let (binary, c_library) = check_binary(args.binary.as_deref())?;
    let sources = expand_inputs(&args.cases)?;
    let mut cases = Vec::new();
    for source in &sources {
        let path = source.path.clone().expect("not standard input");
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !is_plain_name(&name) || name == MATRIX {
            return Err(usage(&format!(
                "the case file {} cannot be put in the repository under its name: the workflow \
                 names it, so a name is letters, digits, `.`, `_` and `-` (not first), and not \
                 {MATRIX}, the learners' matrix; rename it",
                path.display()
            )));
        }
        if cases.iter().any(|(_, earlier)| *earlier == name) {
            return Err(usage(&format!(
                "two case files are named {name}: they sit side by side in the repository; \
                 rename one"
            )));
        }
        cases.push((path, name));
    }
    let mut inputs = vec![Named::new("--binary", &binary)];
    inputs.extend(cases.iter().map(|(path, _)| Named::new("--cases", path)));
    if let Some(key) = &args.practice_key {
        inputs.push(Named::new("--practice-key", key));
    }
    check_paths(&inputs, &[Named::new("-o", &args.output)])?;
    let practice = match &args.practice_key {
        Some(key) => {
            let (cases_in_key, _) = check_key(key, &sources, &scoring, false)?;
            let extension = match MatrixFileFormat::for_path(key) {
                MatrixFileFormat::Csv => "csv".to_owned(),
                MatrixFileFormat::Json => "json".to_owned(),
                MatrixFileFormat::Workbook => key
                    .extension()
                    .map(|e| e.to_string_lossy().to_ascii_lowercase())
                    .unwrap_or_default(),
            };
            Some((
                key.clone(),
                format!("practice-key.{extension}"),
                cases_in_key,
            ))
        }
        None => None,
    };
    let mut blank = Vec::new();
    crate::commands::template::write_blank_matrix(&sources, &columns, &mut blank)?;
    let options = GradeOptions {
        key: String::new(),
        cases: cases.iter().map(|(_, name)| name.clone()).collect(),
        feedback,
        columns,
        weights,
        visibility: None,
        delimiter: args.read.delimiter,
        sheet: args.read.sheet.clone(),
        points: None,
    };
    let text = workflow(&Workflow {
        cases: options.cases.clone(),
        practice_key: practice.as_ref().map(|(_, name, _)| name.clone()),
        grade_options: options.words(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
    });
    let out = OutputDir::create(&args.output)?;
    out.write_file(WORKFLOW, 0o644, &mut text.as_bytes())?;
    let open =
        |path: &Path| File::open(path).with_context(|| format!("cannot read {}", path.display()));
    out.write_file(&format!("{DIR}/{BINARY}"), 0o755, &mut open(&binary)?)?;
    if let Some((key, name, _)) = &practice {
        out.write_file(&format!("{DIR}/{name}"), 0o644, &mut open(key)?)?;
    }
    for (path, name) in &cases {
        out.write_file(name, 0o644, &mut open(path)?)?;
    }
    out.write_file(MATRIX, 0o644, &mut blank.as_slice())?;
    out.commit()?;
    // What was written, for the instructor: said if standard output takes it (the run is
    // done either way). Names from the command line and the case files: no line of it is
    // a workflow command.
    let mut stdout = crate::output::InertWriter::new(Vec::new(), crate::output::Syntax::Text);
    writeln!(
        stdout,
        "leasejudge: wrote {}: {WORKFLOW}, {DIR}/{BINARY} ({}){}, {MATRIX} (blank), {}",
        args.output.display(),
        needs(c_library),
        practice
            .as_ref()
            .map_or_else(String::new, |(_, name, count)| format!(
                ", {DIR}/{name} ({count} practice cases)"
            )),
        cases
            .iter()
            .map(|(_, name)| name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    writeln!(
        stdout,
        "leasejudge: push its files as the assignment's template repository, and add no \
         autograding tests on the assignment's page (GitHub Classroom would commit its own \
         {WORKFLOW} over this one){}",
        if practice.is_some() {
            "; the practice key is in every learner's repository: it is not secret"
        } else {
            ""
        }
    )?;
    if let Ok(out) = stdout.finish() {
        say(&out);
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes what a build says to standard output, each line wrapped to its width (COLUMNS,
/// the terminal, or 80) and continued two columns in; a closed standard output loses it.
fn say(said: &[u8]) {
    let mut stdout = io::stdout().lock();
    let width = crate::terminal::table_width(std::io::IsTerminal::is_terminal(&stdout));
    let text = crate::terminal::wrap_lines(&String::from_utf8_lossy(said), usize::from(width));
    let _ = stdout.write_all(text.as_bytes());
}

fn gradescope(args: &GradescopeArgs) -> Result<ExitCode> {
    if args.output.as_os_str() == "-" {
        return Err(usage("-o - is not allowed: the zip is written to a file"));
    }
    let prepared = prepare(&args.common, args.visibility, &args.output)?;
    write_zip(&args.output, &prepared)?;
    let (image, has) = GRADESCOPE_IMAGE;
    // What was written, for the instructor: said if standard output takes it (the run is
    // done either way). Names from the command line and the case files: no line of it is
    // a workflow command.
    let mut out = crate::output::InertWriter::new(Vec::new(), crate::output::Syntax::Text);
    writeln!(
        out,
        "leasejudge: wrote {}: {SETUP}, {RUN}, {BINARY} ({}), {} ({} cases), {}",
        args.output.display(),
        needs(prepared.c_library),
        prepared.options.key,
        prepared.key_cases,
        case_names(&prepared)
    )?;
    match prepared.c_library {
        CLibrary::Static => writeln!(
            out,
            "leasejudge: upload it on the assignment's Configure Autograder page, on any base \
             image (the binary is statically linked)"
        )?,
        CLibrary::Shared(glibc) => writeln!(
            out,
            "leasejudge: upload it on the assignment's Configure Autograder page, on a base \
             image with glibc {} or later (the default, {image}, has {has})",
            glibc.map_or_else(|| "any".to_owned(), |v| v.to_string())
        )?,
    }
    writeln!(
        out,
        "leasejudge: a submission scores out of {points}: set the assignment's autograder points \
         to {points} (--points N scales the score to another total)",
        points = number(prepared.total_points)
    )?;
    if let Ok(out) = out.finish() {
        say(&out);
    }
    Ok(ExitCode::SUCCESS)
}

/// pl-file-upload's limit on an answer's files ("maxFileSizeMB = 5", compared with
/// `* 1024 * 1024` in PrairieLearn's `elements/pl-file-upload/pl-file-upload.js`).
const UPLOAD_LIMIT: u64 = 5 * 1024 * 1024;

/// The warning for a lab whose full matrix, `bytes` as CSV, is more than pl-file-upload
/// takes: learners then hand in the graded `columns` only.
fn upload_warning(bytes: u64, columns: &[crate::grading::Column]) -> Option<String> {
    (bytes > UPLOAD_LIMIT).then(|| {
        format!(
            "the lab's full matrix, every column filled in, is {:.1} MB: more than the 5 MB \
             pl-file-upload takes in one answer. Hand out a template of the graded columns only \
             (`leasejudge template CASEFILE --columns {}`), and tell learners to hand in those \
             columns only",
            bytes as f64 / (1024.0 * 1024.0),
            columns
                .iter()
                .map(|c| c.name())
                .collect::<Vec<_>>()
                .join(",")
        )
    })
}

/// Where a PrairieLearn question is written.
struct QuestionPlace {
    /// Its directory (through a symbolic link, the directory the link names).
    dir: PathBuf,
    /// Its QID: what its uuid is derived from.
    qid: String,
    /// The course, when the binary is shared in its `serverFilesCourse/`.
    course: Option<PathBuf>,
}

/// The question's place: `-o`, or `--course` and `--qid`.
fn question_place(args: &PrairieLearnArgs) -> Result<QuestionPlace> {
    let (dir, qid, course) = match (&args.output, &args.course, &args.qid) {
        (Some(dir), None, None) => {
            if dir.as_os_str() == "-" {
                return Err(usage("-o - is not allowed: the question is a directory"));
            }
            let qid = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (dir.clone(), qid, None)
        }
        (None, Some(course), Some(qid)) => {
            let parts: Vec<&str> = qid.split('/').collect();
            if parts
                .iter()
                .any(|part| part.is_empty() || *part == "." || *part == ".." || part.contains('\\'))
            {
                return Err(usage(&format!(
                    "--qid {qid:?} is not a question's id: folder names under questions/, \
                     separated by /"
                )));
            }
            if !course.is_dir() {
                anyhow::bail!(
                    "--course {}: there is no such directory (give the course's root, which \
                     holds infoCourse.json)",
                    course.display()
                );
            }
            let dir = parts
                .iter()
                .fold(course.join("questions"), |dir, part| dir.join(part));
            (dir, qid.clone(), Some(course.clone()))
        }
        _ => {
            return Err(usage(
                "give -o QUESTION_DIR, or --course COURSE_DIR and --qid QID",
            ))
        }
    };
    // Written through a symbolic link: the directory it names is replaced, the link kept.
    let dir = if dir.is_symlink() {
        std::fs::canonicalize(&dir).with_context(|| {
            format!(
                "cannot write {}: it is a symbolic link to nothing",
                dir.display()
            )
        })?
    } else {
        dir
    };
    Ok(QuestionPlace { dir, qid, course })
}

fn prairielearn(args: &PrairieLearnArgs) -> Result<ExitCode> {
    let place = question_place(args)?;
    let existing = existing_question(&place.dir)?;
    let prepared = prepare(&args.common, None, &place.dir)?;
    let image = known_image(&args.image, prepared.c_library.glibc()).map_err(|e| usage(&e))?;
    let binary_at = match place.course {
        Some(_) => BinaryAt::Course,
        None => BinaryAt::Bundle,
    };
    // The shared binary is made ready first, and renamed into place with the question: a
    // build that fails leaves the course's binary as it was.
    let (shared, binary_file) = match &place.course {
        Some(course) => {
            let (path, how, file) = share_binary(course, &prepared.binary)?;
            (Some((path, how)), file)
        }
        None => (None, None),
    };
    if let Some(parent) = place.dir.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot write {}", place.dir.display()))?;
    }
    let (uuid, carried) =
        write_question(args, &place, &prepared, existing, binary_at, binary_file)?;
    // What was written, for the instructor: said if standard output takes it (the run is
    // done either way). Names from the command line and the case files: no line of it is
    // a workflow command.
    let mut out = crate::output::InertWriter::new(Vec::new(), crate::output::Syntax::Text);
    writeln!(
        out,
        "leasejudge: wrote question {} (uuid {uuid}): info.json, question.html, tests/ with {}",
        place.dir.display(),
        carried.join(", ")
    )?;
    if let Some((binary, how)) = &shared {
        writeln!(
            out,
            "leasejudge: {how} {} ({}), which the course's leasejudge questions share",
            binary.display(),
            needs(prepared.c_library)
        )?;
    }
    let sync = match place.course {
        Some(_) => "sync the course",
        None => "copy the directory into the course's questions/ and sync",
    };
    match (image, prepared.c_library) {
        (Some((name, system, _)), CLibrary::Static) => {
            writeln!(out, "leasejudge: graded on {name} ({system}); {sync}")?
        }
        (None, CLibrary::Static) => writeln!(
            out,
            "leasejudge: graded on {} (any image runs the statically linked binary); {sync}",
            args.image
        )?,
        (Some((name, system, has)), CLibrary::Shared(_)) => writeln!(
            out,
            "leasejudge: graded on {name} ({system}, glibc {has}); {sync}"
        )?,
        (None, CLibrary::Shared(glibc)) => writeln!(
            out,
            "leasejudge: graded on {}: make sure it has glibc {} or later; {sync}",
            args.image,
            glibc.map_or_else(|| "any".to_owned(), |v| v.to_string())
        )?,
    }
    writeln!(
        out,
        "leasejudge: the tests' points add up to {points}: give the question {points} points in \
         the assessment (infoAssessment.json), so the points it shows are the ones awarded",
        points = number(prepared.total_points)
    )?;
    if let Ok(out) = out.finish() {
        say(&out);
    }
    if let Some(warning) = upload_warning(prepared.matrix_bytes, &prepared.options.columns) {
        crate::output::to_stderr_wrapped(&format!("leasejudge: warning: {warning}"));
    }
    Ok(ExitCode::SUCCESS)
}

/// The PrairieLearn image `image` as [`PRAIRIELEARN_IMAGES`] knows it (`None` for another
/// image), or why it cannot run a binary that needs `needs`.
fn known_image(
    image: &str,
    needs: Option<GlibcVersion>,
) -> Result<Option<(&'static str, &'static str, GlibcVersion)>, String> {
    let known = PRAIRIELEARN_IMAGES
        .iter()
        .find(|(name, _, _)| image == *name || image.strip_suffix(":latest") == Some(*name))
        .copied();
    match (known, needs) {
        (Some((name, system, has)), Some(needs)) if needs > has => {
            let fitting: Vec<&str> = PRAIRIELEARN_IMAGES
                .iter()
                .filter(|(_, _, glibc)| *glibc >= needs)
                .map(|(name, _, _)| *name)
                .collect();
            let instead = if fitting.is_empty() {
                "give --image one that has it, or --binary a leasejudge built against an older \
                 glibc"
                    .to_owned()
            } else {
                format!("give --image {}", fitting.join(" or --image "))
            };
            Err(format!(
                "the binary needs glibc {needs}, but {name} ({system}) has {has}: {instead}"
            ))
        }
        _ => Ok(known),
    }
}

fn needs(c_library: CLibrary) -> String {
    match c_library {
        CLibrary::Static => "x86-64 Linux, statically linked".to_owned(),
        CLibrary::Shared(Some(version)) => format!("x86-64 Linux, glibc {version} or later"),
        CLibrary::Shared(None) => "x86-64 Linux".to_owned(),
    }
}

fn case_names(prepared: &Prepared) -> String {
    prepared
        .cases
        .iter()
        .map(|(_, name)| name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks the options and the binary, reads the key and adjudicates the case files, and
/// refuses (every problem listed) a key that cannot grade them.
fn prepare(common: &Common, visibility: Option<Visibility>, output: &Path) -> Result<Prepared> {
    let feedback = common.feedback.unwrap_or(Feedback::Cases);
    let columns = common.columns.0.clone();
    let weights = common.weights.as_ref().map(|w| w.0.clone());
    let scoring = Scoring::new(columns.clone(), weights.as_deref()).map_err(|e| usage(&e))?;
    if common.golden.as_os_str() == "-" || common.cases.iter().any(|c| c.as_os_str() == "-") {
        return Err(usage(
            "standard input (-) cannot be carried: give the key's and the case files' paths",
        ));
    }
    let (binary, c_library) = check_binary(common.binary.as_deref())?;
    // A case file that cannot be read twice (a pipe, `<(…)`) is read once, into a copy that
    // is checked against the key and carried.
    let copies = crate::output::read_twice(
        &expand_inputs(&common.cases)?,
        crate::limits::MAX_KEPT_INPUT_BYTES,
    )?
    .map_err(InputErrors::one)?;
    let sources = copies.sources.clone();
    let mut cases = Vec::new();
    let mut names: HashMap<String, PathBuf> = HashMap::new();
    for source in &sources {
        let path = source.path.clone().expect("not standard input");
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if is_reserved(&name) {
            return Err(usage(&format!(
                "the case file {} cannot be carried under its name: {name} is a name the \
                 autograder's own files use ({SETUP}, {RUN}, {BINARY}, {KEY_STEM}.*, info.json, \
                 question.html); rename it",
                path.display()
            )));
        }
        if let Some(earlier) = names.insert(name.clone(), path.clone()) {
            return Err(usage(&format!(
                "the case files {} and {} have the same name, {name}: they sit side by side in \
                 the autograder; rename one",
                earlier.display(),
                path.display()
            )));
        }
        cases.push((path, name));
    }
    let mut inputs = vec![
        Named::new("--golden", &common.golden),
        Named::new("--binary", &binary),
    ];
    inputs.extend(cases.iter().map(|(path, _)| Named::new("--cases", path)));
    check_paths(&inputs, &[Named::new("-o", output)])?;
    let key_extension = match MatrixFileFormat::for_path(&common.golden) {
        MatrixFileFormat::Csv => "csv".to_owned(),
        MatrixFileFormat::Json => "json".to_owned(),
        MatrixFileFormat::Workbook => common
            .golden
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default(),
    };
    // Taken before the key is checked against the cases: what is carried is what was checked.
    let stamps = std::iter::once(&common.golden)
        .chain(cases.iter().map(|(path, _)| path))
        .map(|path| (path.clone(), FileStamp::of_path(path).ok().flatten()))
        .collect();
    let (key_cases, matrix_bytes) = check_key(&common.golden, &sources, &scoring, true)?;
    Ok(Prepared {
        _copies: copies,
        stamps,
        key: common.golden.clone(),
        cases: cases.clone(),
        binary,
        c_library,
        options: GradeOptions {
            key: format!("{KEY_STEM}.{key_extension}"),
            cases: cases.into_iter().map(|(_, name)| name).collect(),
            feedback,
            columns,
            weights,
            visibility,
            delimiter: common.read.delimiter,
            sheet: common.read.sheet.clone(),
            points: common.points,
        },
        key_cases,
        total_points: common
            .points
            .unwrap_or((key_cases * scoring.case_max()) as f64),
        matrix_bytes,
    })
}

/// The binary to carry and how it gets its C library: this one, or `--binary`'s, which must
/// be an x86-64 Linux executable of this version.
fn check_binary(given: Option<&Path>) -> Result<(PathBuf, CLibrary)> {
    let path = match given {
        Some(path) => path.to_owned(),
        None => std::env::current_exe().context("cannot find this leasejudge binary")?,
    };
    let binary = inspect(&path).map_err(|e| {
        let hint = if given.is_some() {
            "give --binary a leasejudge built for x86_64-unknown-linux-gnu"
        } else {
            "this leasejudge cannot be carried: give --binary a leasejudge built for \
             x86_64-unknown-linux-gnu (`cargo build --release --target x86_64-unknown-linux-gnu`)"
        };
        anyhow::anyhow!(
            "cannot carry {}: {e}; Gradescope and PrairieLearn grade on x86-64 Linux, so {hint}",
            path.display()
        )
    })?;
    if let Some(given) = given {
        check_version(given)?;
    }
    Ok((path, binary.c_library))
}

/// A `--binary` must be this version: the scripts use this version's options. It is run to
/// ask, where it can run.
fn check_version(binary: &Path) -> Result<()> {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return Ok(());
    }
    let ours = format!("leasejudge {}", env!("CARGO_PKG_VERSION"));
    let output = std::process::Command::new(binary)
        .arg("--version")
        .output()
        .with_context(|| {
            format!(
                "cannot run --binary {} to ask its version",
                binary.display()
            )
        })?;
    let theirs = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if !output.status.success() || theirs != ours {
        anyhow::bail!(
            "--binary {} is not {ours} (it says {:?}{}): the autograder's scripts use this \
             version's options",
            binary.display(),
            theirs,
            if output.status.success() {
                String::new()
            } else {
                format!(", {}", String::from_utf8_lossy(&output.stderr).trim())
            }
        );
    }
    Ok(())
}

fn settings(rows_observed: bool) -> StreamSettings<'static> {
    StreamSettings {
        jobs: if rows_observed {
            1
        } else {
            std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .min(crate::limits::MAX_JOBS)
        },
        rows_observed,
        ..StreamSettings::default()
    }
}

/// Reads the key as `grade` reads it and grades the engine's matrix of the case files against
/// it (golden values shown: the instructor is building the autograder); returns how many
/// cases it has and the bytes of the engine's matrix, or every problem of the key and the
/// case files, located. A key that need not grade `every_case` (a practice key) may lack
/// some of the case files' cases.
fn check_key(
    key: &Path,
    sources: &[Source],
    scoring: &Scoring,
    every_case: bool,
) -> Result<(u64, u64)> {
    let size = |path: &Path| std::fs::metadata(path).map_or(0, |m| m.len());
    let largest = sources
        .iter()
        .filter_map(|s| s.path.as_deref())
        .map(size)
        .chain([size(key)])
        .max()
        .unwrap_or(0);
    let splitter = Splitter::for_bytes(largest);
    let key_name = key.to_string_lossy().into_owned();
    let columns = &scoring.columns;
    // Strict, as `grade` reads it: a golden value not in canonical form is the author's error.
    let golden = MatrixRead::golden(columns)
        .read_split(MatrixInput::Path(key), &key_name, &splitter)
        .and_then(|(golden, errors)| golden.checked(errors))
        .and_then(|golden| {
            let missing = golden.missing_columns(columns);
            if missing.is_empty() {
                Ok(golden)
            } else {
                Err(missing)
            }
        });
    let mut temp = GuardedTemp::new()?;
    let judged = judge(
        sources,
        &settings(false),
        Sink::Matrix(&crate::matrix::CsvMatrix),
        &mut |_, _, _| {},
    )
    .and_then(|matrix| Ok(matrix.write_to(&mut TempWriter(temp.as_file_mut()))?));
    let mut problems = match &golden {
        Ok(_) => InputErrors::new(),
        Err(problems) => problems.clone(),
    };
    match judged {
        Ok(()) => {}
        Err(StreamError::Input(errors)) => problems.append(errors),
        Err(StreamError::Io(e)) => return Err(e).context("cannot keep the engine's matrix"),
    }
    let golden = match golden {
        Ok(golden) if problems.is_empty() => golden,
        _ => return Err(problems.into()),
    };
    temp.as_file_mut()
        .flush()
        .context("cannot keep the engine's matrix")?;
    let options = ReadOptions::default();
    let (engine, errors) = MatrixRead::submission(columns, &options).read_split(
        MatrixInput::Path(temp.path()),
        "the engine's matrix",
        &splitter,
    )?;
    let outcome = grade_submission(Some(&golden), engine, errors, scoring, true)
        .context("grading through temporary files")?;
    let SubmissionOutcome::Graded(graded) = outcome else {
        anyhow::bail!("the engine's matrix of the case files could not be read back");
    };
    if graded.score == golden.len() * scoring.case_max()
        && (graded.unknown.is_empty() || !every_case)
    {
        let bytes = temp.as_file_mut().metadata().map_or(0, |m| m.len());
        return Ok((golden.len(), bytes));
    }
    Err(disagreements(&golden, &key_name, sources, &graded, every_case)?.into())
}

/// Where a case the key and the case files disagree on is: its line in the key, and its
/// first row in the case files.
#[derive(Default)]
struct Place {
    key_line: u64,
    case_file: Option<(String, u64)>,
}

/// Every case the key and the engine's verdicts on the case files disagree on, located in
/// the key and in the case files (found again in a second pass: only these cases' places are
/// kept); a case of the case files the key lacks only when it must grade `every_case`.
fn disagreements(
    golden: &SplitMatrix,
    key_name: &str,
    sources: &[Source],
    graded: &crate::grading::class::Graded,
    every_case: bool,
) -> Result<KeyDisagrees> {
    let mut places: HashMap<String, Place> = HashMap::new();
    for case in &graded.cases {
        let case = case?;
        if case.status != CaseStatus::Matched {
            places.insert(case.case_id.to_string(), Place::default());
        }
    }
    for unknown in graded.unknown.iter().filter(|_| every_case) {
        let unknown = unknown?;
        places.insert(unknown.case_id.clone(), Place::default());
    }
    for part in 0..golden.parts() {
        let loaded = golden.load(part).context("reading the key back")?;
        for row in loaded.matrix.rows() {
            if let Some(place) = places.get_mut(row.case_id) {
                place.key_line = row.line;
            }
        }
    }
    // Only `on_row` is wanted: the matrix is dropped unread.
    let found = judge(
        sources,
        &settings(true),
        Sink::Matrix(&crate::matrix::CsvMatrix),
        &mut |at, parsed, outcome| {
            if outcome.reason == RowReason::Offered {
                if let Some(place) = places.get_mut(parsed.case_id.as_str()) {
                    place
                        .case_file
                        .get_or_insert_with(|| (at.file.to_owned(), at.line));
                }
            }
        },
    );
    if let Err(e) = found {
        anyhow::bail!("the case files could not be read again: {e}");
    }
    let in_cases = |place: &Place| match &place.case_file {
        Some((file, line)) => format!(" ({file} line {line})"),
        None => String::new(),
    };
    let mut errors = InputErrors::new();
    for case in &graded.cases {
        let case = case?;
        if case.status == CaseStatus::Matched {
            continue;
        }
        let place = &places[&*case.case_id];
        match case.status {
            CaseStatus::Matched => {}
            CaseStatus::Missing => errors.push(
                InputError::new(
                    key_name,
                    place.key_line,
                    format!(
                        "the key has case {}, but none of the case files does",
                        case.case_id
                    ),
                )
                .column("case_id"),
            ),
            CaseStatus::Mismatched => {
                for miss in &case.misses {
                    let expected = miss.expected.as_deref().unwrap_or_default();
                    errors.push(
                        InputError::new(
                            key_name,
                            place.key_line,
                            format!(
                                "case {}: the key has {}, but the contract gives {} for its \
                                 rows{}",
                                case.case_id,
                                shown(expected),
                                shown(&miss.actual),
                                in_cases(place)
                            ),
                        )
                        .column(miss.column.name()),
                    );
                }
            }
        }
    }
    for unknown in graded.unknown.iter().filter(|_| every_case) {
        let unknown = unknown?;
        let place = &places[&unknown.case_id];
        let (file, line) = place.case_file.clone().unwrap_or_default();
        errors.push(
            InputError::new(
                &file,
                line,
                format!(
                    "case {} is not in the key {key_name}: the key must grade every case the \
                     case files have",
                    unknown.case_id
                ),
            )
            .column("case_id"),
        );
    }
    Ok(KeyDisagrees {
        key: key_name.to_owned(),
        problems: errors,
    })
}

/// A key that disagrees with the contract's verdicts on the case files: what it means, then
/// every problem, counted as they are (the sentence is no problem of its own).
#[derive(Debug)]
struct KeyDisagrees {
    key: String,
    problems: InputErrors,
}

impl std::fmt::Display for KeyDisagrees {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.problems.total();
        writeln!(
            f,
            "{}: disagrees with the contract's verdicts on the case files ({} problem{} below; \
             `leasejudge check CASEFILE --golden KEY` shows them too): the autograder would \
             grade learners against a wrong key",
            crate::output::escape_controls(&self.key),
            crate::output::thousands(n),
            if n == 1 { "" } else { "s" }
        )?;
        write!(f, "{}", self.problems)
    }
}

impl std::error::Error for KeyDisagrees {}

/// A file's bytes as a zip entry's options: deflated, the given Unix mode, the zip format's
/// earliest time (the same inputs give the same bytes), zip64 for a file over 4 GiB.
fn zip_options(mode: u32, bytes: u64) -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(mode)
        .last_modified_time(zip::DateTime::default())
        .large_file(bytes >= u64::from(u32::MAX))
}

/// Writes the Gradescope zip atomically: its scripts at the root (mode 0755), the binary, the
/// key and the case files, each streamed in.
/// The zip's output. Once a write or seek has failed (a full disk), the rest is dropped: the
/// archive's writer, dropped on the error's way out, then finishes the archive into nothing
/// (seeks keep a position of their own, so its checks still hold) instead of failing again
/// and printing its own error (a Debug dump) to standard error. The output is dropped
/// uncommitted either way.
struct ZipOutput {
    out: Output,
    failed: bool,
    /// Where the next byte goes, and the end of what was written.
    position: u64,
    end: u64,
}

impl Write for ZipOutput {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = if self.failed {
            buf.len()
        } else {
            let written = self.out.write(buf);
            self.failed = written.is_err();
            written?
        };
        self.position += n as u64;
        self.end = self.end.max(self.position);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.failed {
            return Ok(());
        }
        let flushed = self.out.flush();
        self.failed = flushed.is_err();
        flushed
    }
}

impl io::Seek for ZipOutput {
    fn seek(&mut self, pos: io::SeekFrom) -> io::Result<u64> {
        self.position = if self.failed {
            let from = |base: u64, delta: i64| base.saturating_add_signed(delta);
            match pos {
                io::SeekFrom::Start(at) => at,
                io::SeekFrom::Current(delta) => from(self.position, delta),
                io::SeekFrom::End(delta) => from(self.end, delta),
            }
        } else {
            let sought = self.out.seek(pos);
            self.failed = sought.is_err();
            sought?
        };
        Ok(self.position)
    }
}

fn write_zip(path: &Path, prepared: &Prepared) -> Result<()> {
    let mut zip = zip::ZipWriter::new(ZipOutput {
        out: Output::open(Some(path), Content::Binary)?,
        failed: false,
        position: 0,
        end: 0,
    });
    let what = || format!("cannot write {}", path.display());
    let mut add = |name: &str, mode: u32, contents: &mut dyn Read, bytes: u64| -> Result<()> {
        zip.start_file(name, zip_options(mode, bytes))
            .with_context(what)?;
        io::copy(contents, &mut zip).with_context(what)?;
        Ok(())
    };
    let setup = setup_script(prepared.c_library);
    add(SETUP, 0o755, &mut setup.as_bytes(), setup.len() as u64)?;
    let run = run_script(
        Platform::Gradescope,
        &prepared.options,
        BinaryAt::Bundle,
        &[],
    );
    add(RUN, 0o755, &mut run.as_bytes(), run.len() as u64)?;
    let mut carry = |source: &Path, name: &str, mode: u32| -> Result<()> {
        let mut file = carried(&prepared.stamps, source)?;
        let bytes = file.file.metadata().map_or(0, |m| m.len());
        add(name, mode, &mut file, bytes)
    };
    carry(&prepared.binary, BINARY, 0o755)?;
    carry(&prepared.key, &prepared.options.key, 0o644)?;
    for (case_file, name) in &prepared.cases {
        carry(case_file, name, 0o644)?;
    }
    let out = zip.finish().with_context(what)?;
    out.out.commit()
}

/// A file the autograder carries, opened to be copied: the key or a case file must be the
/// file that was checked, as it was (by its stamp, at the open and when its copy ends),
/// else the copy fails with [`FileChanged`], an input error.
struct Carried {
    file: File,
    name: String,
    stamp: Option<FileStamp>,
}

fn carried(stamps: &HashMap<PathBuf, Option<FileStamp>>, path: &Path) -> Result<Carried> {
    let file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let carried = Carried {
        file,
        name: path.to_string_lossy().into_owned(),
        stamp: stamps.get(path).copied().flatten(),
    };
    if let Some(stamp) = &carried.stamp {
        let now = FileStamp::of_file(&carried.file)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if let Some(how) = stamp.change(now.as_ref()) {
            let changed = FileChanged {
                file: carried.name.clone(),
                how,
            };
            return Err(InputErrors::one(changed.input_error()).into());
        }
    }
    Ok(carried)
}

impl Read for Carried {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read(buf)?;
        if let (0, false, Some(stamp)) = (n, buf.is_empty(), &self.stamp) {
            // Its end: written to since the open, it was not carried as it was checked.
            check_unchanged(&self.name, stamp, &self.file)?;
        }
        Ok(n)
    }
}

/// How many names a refusal lists.
const NAMES_LISTED: usize = 10;

/// Every entry inside `dir`, by its path relative to it (`/`-separated): files, links and
/// anything else, and folders that hold nothing; links are not followed.
fn entries_inside(dir: &Path, prefix: &str, found: &mut Vec<String>) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    let mut names: Vec<_> = entries.filter_map(Result::ok).collect();
    names.sort_by_key(|entry| entry.file_name());
    for entry in names {
        let name = format!("{prefix}{}", shown_name(&entry.file_name()));
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            let before = found.len();
            entries_inside(&entry.path(), &format!("{name}/"), found)?;
            if found.len() == before {
                found.push(format!("{name}/"));
            }
        } else {
            found.push(name);
        }
    }
    Ok(())
}

/// What leasejudge wrote in the question at `dir`, as its script lists it ([`WROTE`]), with
/// the files every question has; for a question written before the script listed them, the
/// files such a question held (the binary, the key and case files in `tests/`).
fn written_by_leasejudge(dir: &Path, inside: &[String]) -> Option<Vec<String>> {
    let script = std::fs::read_to_string(dir.join("tests").join(RUN)).ok()?;
    let mut ours = vec![
        "info.json".to_owned(),
        "question.html".to_owned(),
        format!("tests/{RUN}"),
    ];
    match script.lines().find_map(|line| line.strip_prefix(WROTE)) {
        Some(listed) => ours.extend(serde_json::from_str::<Vec<String>>(listed).ok()?),
        None if script.contains("leasejudge grade --autograder") => {
            let carried = |name: &str| {
                name.strip_prefix("tests/").is_some_and(|file| {
                    !file.contains('/')
                        && (file == BINARY
                            || std::path::Path::new(file).extension().is_some_and(|e| {
                                ["csv", "json", "ndjson", "jsonl", "xlsx", "xlsm", "ods"]
                                    .iter()
                                    .any(|x| e.eq_ignore_ascii_case(x))
                            }))
                })
            };
            ours.extend(inside.iter().filter(|name| carried(name)).cloned());
        }
        None => return None,
    }
    Some(ours)
}

/// What a question directory holds that leasejudge did not write.
enum Foreign {
    /// Nothing at all.
    Empty,
    /// It is no question leasejudge wrote: everything in it.
    NotAQuestion(Vec<String>),
    /// A question leasejudge wrote: the files in it that leasejudge did not write.
    Files(Vec<String>),
}

fn foreign_files(dir: &Path) -> Result<Foreign> {
    let mut inside = Vec::new();
    entries_inside(dir, "", &mut inside)?;
    if inside.is_empty() {
        return Ok(Foreign::Empty);
    }
    let Some(ours) = written_by_leasejudge(dir, &inside) else {
        return Ok(Foreign::NotAQuestion(inside));
    };
    Ok(Foreign::Files(
        inside
            .into_iter()
            .filter(|name| !ours.contains(name))
            .collect(),
    ))
}

/// Checks the question a rebuild took out of place: a file added to it while the new one was
/// written (after [`existing_question`] looked) is no reason to lose it.
fn nothing_added(question: &Path, replaced: &Path) -> Result<()> {
    let added = match foreign_files(replaced)? {
        Foreign::Empty => return Ok(()),
        Foreign::Files(added) if added.is_empty() => return Ok(()),
        Foreign::Files(added) | Foreign::NotAQuestion(added) => added,
    };
    anyhow::bail!(
        "{} was changed while it was rebuilt ({} appeared): it is left as it was; run again \
         (nothing was written)",
        question.display(),
        listed_names(&added)
    )
}

/// The uuid of the question leasejudge wrote at `dir` before, if there is one. It is replaced
/// whole, so one that holds anything leasejudge did not write, anywhere inside (an
/// instructor's `tests/grader.py`, `clientFilesQuestion/`), is refused with those names.
fn existing_question(dir: &Path) -> Result<Option<String>> {
    match std::fs::symlink_metadata(dir) {
        Err(_) => return Ok(None),
        Ok(meta) if !meta.is_dir() => {
            anyhow::bail!("cannot write {}: it is not a directory", dir.display())
        }
        Ok(_) => {}
    }
    let foreign = match foreign_files(dir)? {
        Foreign::Empty => return Ok(None),
        Foreign::NotAQuestion(inside) => anyhow::bail!(
            "{} exists and is not a question leasejudge wrote (it holds {}): it would be \
             replaced whole, so give a new directory or remove it (nothing was written)",
            dir.display(),
            listed_names(&inside)
        ),
        Foreign::Files(foreign) => foreign,
    };
    if !foreign.is_empty() {
        anyhow::bail!(
            "{} holds {} leasejudge did not write ({}): a rebuild replaces the question whole, \
             so it would delete {}; move {} out of the question, or write another one \
             (nothing was written)",
            dir.display(),
            if foreign.len() == 1 {
                "a file"
            } else {
                "files"
            },
            listed_names(&foreign),
            if foreign.len() == 1 { "it" } else { "them" },
            if foreign.len() == 1 { "it" } else { "them" },
        );
    }
    let uuid = std::fs::read(dir.join("info.json"))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .and_then(|info| info["uuid"].as_str().map(str::to_owned))
        .filter(|uuid| is_uuid(uuid));
    Ok(uuid)
}

/// `a, b and 3 more`.
fn listed_names(names: &[String]) -> String {
    let mut text = names
        .iter()
        .take(NAMES_LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > NAMES_LISTED {
        text.push_str(&format!(" and {} more", names.len() - NAMES_LISTED));
    }
    text
}

/// Makes the binary ready for the course's shared folder,
/// `serverFilesCourse/leasejudge/leasejudge` (written to a temporary file beside it, to rename
/// into place with the question: `rwxr-xr-x` less the umask when new, its mode kept when it
/// replaces one), unless the same bytes are there already; returns where, whether it is
/// written, kept or replaced, and the file to rename. A file there that is not an x86-64 Linux
/// executable is refused: leasejudge did not write it.
fn share_binary(
    course: &Path,
    binary: &Path,
) -> Result<(PathBuf, &'static str, Option<crate::output::Finished>)> {
    let folder = course.join("serverFilesCourse").join(COURSE_FOLDER);
    let target = folder.join(BINARY);
    let how = match std::fs::symlink_metadata(&target) {
        Err(_) => "wrote",
        Ok(meta) if meta.is_file() && same_bytes(&target, binary)? => {
            return Ok((target, "kept", None));
        }
        Ok(meta) if meta.is_file() && inspect(&target).is_ok() => "replaced",
        Ok(_) => anyhow::bail!(
            "{} is there and is not a leasejudge binary: the course's leasejudge questions run \
             the binary at that place; move that file away (nothing was written)",
            target.display()
        ),
    };
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot write {}", target.display()))?;
    let mut out = Output::open_executable(&target)?;
    let mut file =
        File::open(binary).with_context(|| format!("cannot read {}", binary.display()))?;
    io::copy(&mut file, &mut out).with_context(|| format!("cannot write {}", target.display()))?;
    Ok((target, how, Some(out.finish()?)))
}

/// Whether two files hold the same bytes.
fn same_bytes(a: &Path, b: &Path) -> Result<bool> {
    let open =
        |path: &Path| File::open(path).with_context(|| format!("cannot read {}", path.display()));
    let (mut a, mut b) = (io::BufReader::new(open(a)?), io::BufReader::new(open(b)?));
    if a.get_ref().metadata()?.len() != b.get_ref().metadata()?.len() {
        return Ok(false);
    }
    let (mut x, mut y) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = a.read(&mut x)?;
        if n == 0 {
            return Ok(true);
        }
        b.read_exact(&mut y[..n])?;
        if x[..n] != y[..n] {
            return Ok(false);
        }
    }
}

/// Reads through, hashing what it reads.
struct Hashing<'a, R> {
    inner: R,
    hash: &'a mut QuestionHash,
}

impl<R: Read> Read for Hashing<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
}

/// The blank matrix's name among the case files `names`: `matrix.csv`, unless a case file
/// has that name.
fn blank_name(names: &[String]) -> String {
    ["matrix.csv", "blank-matrix.csv", "blank-matrix-0.csv"]
        .into_iter()
        .find(|name| !names.iter().any(|n| n == name))
        .unwrap_or("blank-matrix-0.csv")
        .to_owned()
}

/// Writes the PrairieLearn question directory atomically: its `tests/` holds the script, the
/// key, the case files only when hints cite them, and the binary unless the course shares
/// it; `shared` (the course's binary, ready) is renamed into place with it. Returns its uuid
/// and what `tests/` holds.
fn write_question(
    args: &PrairieLearnArgs,
    place: &QuestionPlace,
    prepared: &Prepared,
    existing: Option<String>,
    binary_at: BinaryAt,
    shared: Option<crate::output::Finished>,
) -> Result<(String, Vec<String>)> {
    let out = OutputDir::create(&place.dir)?;
    let mut hash = QuestionHash::default();
    // The question's name (its QID) first: one key in two questions gives two uuids.
    hash.update(b"leasejudge question\0");
    hash.update(place.qid.as_bytes());
    hash.update(b"\0");
    let mut carried_names = vec![prepared.options.key.clone()];
    if prepared.options.feedback == Feedback::Hint {
        carried_names.extend(prepared.cases.iter().map(|(_, name)| name.clone()));
    }
    if binary_at == BinaryAt::Bundle {
        carried_names.push(BINARY.to_owned());
    }
    // What learners download from the question's page: the case files by their own names
    // (a hint names the file they have) and the blank matrix; never the key.
    let downloads: Vec<String> = if args.no_client_files {
        Vec::new()
    } else {
        let mut names: Vec<String> = prepared
            .cases
            .iter()
            .map(|(_, name)| name.clone())
            .collect();
        names.push(blank_name(&names));
        names
    };
    let wrote: Vec<String> = carried_names
        .iter()
        .map(|name| format!("tests/{name}"))
        .chain(
            downloads
                .iter()
                .map(|name| format!("{CLIENT_FILES}/{name}")),
        )
        .collect();
    let run = run_script(Platform::PrairieLearn, &prepared.options, binary_at, &wrote);
    hash.update(run.as_bytes());
    out.write_file(&format!("tests/{RUN}"), 0o755, &mut run.as_bytes())?;
    let open = |path: &Path| carried(&prepared.stamps, path);
    if binary_at == BinaryAt::Bundle {
        out.write_file(
            &format!("tests/{BINARY}"),
            0o755,
            &mut open(&prepared.binary)?,
        )?;
    }
    let mut hashing = Hashing {
        inner: open(&prepared.key)?,
        hash: &mut hash,
    };
    out.write_file(
        &format!("tests/{}", prepared.options.key),
        0o644,
        &mut hashing,
    )?;
    if prepared.options.feedback == Feedback::Hint {
        for (case_file, name) in &prepared.cases {
            out.write_file(&format!("tests/{name}"), 0o644, &mut open(case_file)?)?;
        }
    }
    let uuid = args
        .uuid
        .clone()
        .or(existing)
        .unwrap_or_else(|| hash.uuid());
    let info = info_json(
        &uuid,
        &args.title,
        &args.topic,
        &args.image,
        args.timeout,
        binary_at,
    );
    out.write_file("info.json", 0o644, &mut info.as_bytes())?;
    if !downloads.is_empty() {
        for (case_file, name) in &prepared.cases {
            out.write_file(
                &format!("{CLIENT_FILES}/{name}"),
                0o644,
                &mut open(case_file)?,
            )?;
        }
        let sources: Vec<crate::input::Source> = prepared
            .cases
            .iter()
            .map(|(path, _)| crate::input::Source::file(path))
            .collect();
        let mut blank = Vec::new();
        crate::commands::template::write_blank_matrix(
            &sources,
            &prepared.options.columns,
            &mut blank,
        )?;
        out.write_file(
            &format!("{CLIENT_FILES}/{}", downloads[downloads.len() - 1]),
            0o644,
            &mut blank.as_slice(),
        )?;
    }
    let html = question_html(&downloads);
    out.write_file("question.html", 0o644, &mut html.as_bytes())?;
    out.commit_with(
        &|replaced| nothing_added(&place.dir, replaced),
        shared.into_iter().collect(),
    )?;
    let mut listed = vec![RUN.to_owned()];
    listed.extend(carried_names.into_iter().map(|name| {
        if name == prepared.options.key {
            format!("{name} ({} cases)", prepared.key_cases)
        } else {
            name
        }
    }));
    Ok((uuid, listed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_carried_only_as_it_was_checked() {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("key.csv");
        std::fs::write(&key, "case_id,decision\nc1,ACTIVE\n").unwrap();
        let stamps: HashMap<PathBuf, Option<FileStamp>> =
            [(key.clone(), FileStamp::of_path(&key).unwrap())].into();
        let mut copy = Vec::new();
        carried(&stamps, &key)
            .unwrap()
            .read_to_end(&mut copy)
            .unwrap();
        assert_eq!(copy, b"case_id,decision\nc1,ACTIVE\n");

        // Written to while it is copied: the copy fails at its end.
        let mut file = carried(&stamps, &key).unwrap();
        let mut start = [0u8; 4];
        file.read_exact(&mut start).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&key)
            .unwrap()
            .write_all(b"c2,EXPIRED\n")
            .unwrap();
        let e = file.read_to_end(&mut Vec::new()).unwrap_err();
        assert!(FileChanged::of(&e).is_some(), "{e}");

        // Replaced before it is opened to be copied: refused at the open.
        std::fs::write(dir.path().join("new.csv"), "case_id,decision\nc1,ACTIVE\n").unwrap();
        std::fs::rename(dir.path().join("new.csv"), &key).unwrap();
        let refused = carried(&stamps, &key).err().unwrap();
        assert!(
            refused.to_string().contains("renamed or replaced"),
            "{refused}"
        );
    }

    #[test]
    fn a_lab_whose_full_matrix_passes_the_upload_limit_is_warned_of() {
        let columns = [
            crate::grading::Column::DECISION,
            crate::grading::Column::REASON,
        ];
        assert_eq!(upload_warning(5 * 1024 * 1024, &columns), None);
        let warning = upload_warning(6 * 1024 * 1024, &columns).unwrap();
        assert!(
            warning.starts_with("the lab's full matrix, every column filled in, is 6.0 MB"),
            "{warning}"
        );
        assert!(warning.contains("--columns decision,reason"), "{warning}");
    }

    #[test]
    fn an_image_too_old_for_the_binary_is_refused_with_the_ones_that_fit() {
        assert_eq!(
            known_image("prairielearn/grader-python", Some(GlibcVersion(2, 34))),
            Ok(Some((
                "prairielearn/grader-python",
                "Amazon Linux 2023",
                GlibcVersion(2, 34)
            )))
        );
        assert_eq!(
            known_image(
                "prairielearn/grader-python:latest",
                Some(GlibcVersion(2, 36))
            ),
            Err(
                "the binary needs glibc 2.36, but prairielearn/grader-python (Amazon Linux \
                 2023) has 2.34: give --image prairielearn/grader-c or --image \
                 prairielearn/grader-java or --image prairielearn/grader-r"
                    .to_owned()
            )
        );
        assert!(
            known_image("prairielearn/grader-c", Some(GlibcVersion(2, 40)))
                .unwrap_err()
                .ends_with(
                    "give --image one that has it, or --binary a leasejudge built against \
                        an older glibc"
                )
        );
        // Another image is the instructor's to check; a static binary fits any.
        assert_eq!(
            known_image("python:3.13", Some(GlibcVersion(2, 99))),
            Ok(None)
        );
        assert!(known_image("prairielearn/grader-python", None)
            .unwrap()
            .is_some());
    }
}
