//! `leasejudge autograder`: an autograder ready to upload, built from the answer key and the
//! lab's case files: a Gradescope zip (`autograder gradescope`) or a PrairieLearn question
//! directory (`autograder prairielearn`), holding the key, the case files, this binary and the
//! scripts the platform runs ([`crate::autograder`]). Before anything is written, the options
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

use crate::autograder::binary::{inspect, GlibcVersion};
use crate::autograder::{
    info_json, is_reserved, is_uuid, question_html, run_script, setup_script, GradeOptions,
    Platform, QuestionHash, BINARY, KEY_STEM, RUN, SETUP,
};
use crate::commands::grade::Weights;
use crate::grading::class::{
    grade_submission, parse_weights, CaseStatus, Feedback, Outcome, Scoring,
};
use crate::grading::compare::shown;
use crate::grading::matrix::{MatrixInput, MatrixRead, SplitMatrix};
use crate::grading::partitions::Splitter;
use crate::grading::{parse_column_list, GradedColumns, MatrixFileFormat};
use crate::input::{expand_inputs, InputError, InputErrors, ReadArgs, ReadOptions, Source};
use crate::lease::RowReason;
use crate::output::{check_paths, AppendFile, GuardedTemp, Named, Output, OutputDir};
use crate::report::autograder::Visibility;
use crate::streaming::{
    judge, Encoding, Sink, StreamError, StreamSettings, DEFAULT_OPEN_CASES, DEFAULT_SPLIT_MIN_BYTES,
};

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

/// Write an autograder ready to upload: a Gradescope zip or a PrairieLearn question.
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

    /// The question directory to write (its name is the question's QID); one leasejudge
    /// wrote before is replaced whole, keeping its uuid.
    #[arg(long, short = 'o', value_name = "QUESTION_DIR")]
    output: PathBuf,

    /// The grading image: it needs the GNU C library the binary needs.
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
    /// The binary and what it needs.
    binary: PathBuf,
    glibc: Option<GlibcVersion>,
    /// How the bundled `grade` grades.
    options: GradeOptions,
    /// How many cases the key has.
    key_cases: u64,
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
    use crate::autograder::github_classroom::{
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
    let (binary, glibc) = check_binary(args.binary.as_deref())?;
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
            let cases_in_key = check_key(key, &sources, &scoring, false)?;
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
    let mut stdout = io::stdout().lock();
    writeln!(
        stdout,
        "leasejudge: wrote {}: {WORKFLOW}, {DIR}/{BINARY} ({}){}, {MATRIX} (blank), {}",
        args.output.display(),
        needs(glibc),
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
    Ok(ExitCode::SUCCESS)
}

fn gradescope(args: &GradescopeArgs) -> Result<ExitCode> {
    if args.output.as_os_str() == "-" {
        return Err(usage("-o - is not allowed: the zip is written to a file"));
    }
    let prepared = prepare(&args.common, args.visibility, &args.output)?;
    write_zip(&args.output, &prepared)?;
    let (image, has) = GRADESCOPE_IMAGE;
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "leasejudge: wrote {}: {SETUP}, {RUN}, {BINARY} ({}), {} ({} cases), {}",
        args.output.display(),
        needs(prepared.glibc),
        prepared.options.key,
        prepared.key_cases,
        case_names(&prepared)
    )?;
    writeln!(
        out,
        "leasejudge: upload it on the assignment's Configure Autograder page, on a base image \
         with glibc {} or later (the default, {image}, has {has})",
        prepared
            .glibc
            .map_or_else(|| "any".to_owned(), |v| v.to_string())
    )?;
    Ok(ExitCode::SUCCESS)
}

fn prairielearn(args: &PrairieLearnArgs) -> Result<ExitCode> {
    if args.output.as_os_str() == "-" {
        return Err(usage("-o - is not allowed: the question is a directory"));
    }
    let existing = existing_question(&args.output)?;
    let prepared = prepare(&args.common, None, &args.output)?;
    let image = known_image(&args.image, prepared.glibc).map_err(|e| usage(&e))?;
    let uuid = write_question(args, &prepared, existing)?;
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "leasejudge: wrote question {} (uuid {uuid}): info.json, question.html, tests/ with \
         {RUN}, {BINARY} ({}), {} ({} cases), {}",
        args.output.display(),
        needs(prepared.glibc),
        prepared.options.key,
        prepared.key_cases,
        case_names(&prepared)
    )?;
    match image {
        Some((name, system, has)) => writeln!(
            out,
            "leasejudge: graded on {name} ({system}, glibc {has}); copy the directory into the \
             course's questions/ and sync"
        )?,
        None => writeln!(
            out,
            "leasejudge: graded on {}: make sure it has glibc {} or later; copy the directory \
             into the course's questions/ and sync",
            args.image,
            prepared
                .glibc
                .map_or_else(|| "any".to_owned(), |v| v.to_string())
        )?,
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

fn needs(glibc: Option<GlibcVersion>) -> String {
    match glibc {
        Some(version) => format!("x86-64 Linux, glibc {version} or later"),
        None => "x86-64 Linux".to_owned(),
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
    let (binary, glibc) = check_binary(common.binary.as_deref())?;
    let sources = expand_inputs(&common.cases)?;
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
    let key_cases = check_key(&common.golden, &sources, &scoring, true)?;
    Ok(Prepared {
        key: common.golden.clone(),
        cases: cases.clone(),
        binary,
        glibc,
        options: GradeOptions {
            key: format!("{KEY_STEM}.{key_extension}"),
            cases: cases.into_iter().map(|(_, name)| name).collect(),
            feedback,
            columns,
            weights,
            visibility,
            delimiter: common.read.delimiter,
            sheet: common.read.sheet.clone(),
        },
        key_cases,
    })
}

/// The binary to carry and the C library it needs: this one, or `--binary`'s, which must be
/// an x86-64 Linux executable of this version.
fn check_binary(given: Option<&Path>) -> Result<(PathBuf, Option<GlibcVersion>)> {
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
    Ok((path, binary.glibc))
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

/// A temporary file the engine's matrix is written to.
struct EngineMatrix<'a>(&'a mut File);

impl Write for EngineMatrix<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl AppendFile for EngineMatrix<'_> {}

fn settings(rows_observed: bool) -> StreamSettings<'static> {
    StreamSettings {
        input_format: None,
        run_as_of: None,
        open_cases: DEFAULT_OPEN_CASES,
        jobs: if rows_observed {
            1
        } else {
            std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .min(crate::limits::MAX_JOBS)
        },
        progress: None,
        rows_observed,
        split_min_bytes: DEFAULT_SPLIT_MIN_BYTES,
        bad_rows_against_earlier_files: false,
    }
}

/// Reads the key as `grade` reads it and grades the engine's matrix of the case files against
/// it (golden values shown: the instructor is building the autograder); returns how many
/// cases it has, or every problem of the key and the case files, located.
fn check_key(key: &Path, sources: &[Source], scoring: &Scoring, every_case: bool) -> Result<u64> {
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
        .map_err(|e| e.0)
        .and_then(|golden| {
            let missing = golden.missing_columns(columns);
            if missing.is_empty() {
                Ok(golden)
            } else {
                Err(missing)
            }
        });
    let mut temp = GuardedTemp::new().context("cannot make a temporary file")?;
    let judged = judge(
        sources,
        &settings(false),
        Sink::Matrix(Encoding::Csv),
        &mut |_, _, _| {},
    )
    .and_then(|matrix| Ok(matrix.write_to(&mut EngineMatrix(temp.as_file_mut()))?));
    let mut problems = match &golden {
        Ok(_) => Vec::new(),
        Err(problems) => problems.clone(),
    };
    match judged {
        Ok(()) => {}
        Err(StreamError::Input(errors)) => problems.extend(errors.0),
        Err(StreamError::Io(e)) => return Err(e).context("cannot keep the engine's matrix"),
    }
    let golden = match golden {
        Ok(golden) if problems.is_empty() => golden,
        _ => return Err(InputErrors(problems).into()),
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
    let Outcome::Graded(graded) = outcome else {
        anyhow::bail!("the engine's matrix of the case files could not be read back");
    };
    if graded.score == golden.len() * scoring.case_max()
        && (graded.unknown.is_empty() || !every_case)
    {
        return Ok(golden.len());
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
) -> Result<InputErrors> {
    let mut places: HashMap<String, Place> = HashMap::new();
    for case in &graded.cases {
        if case.status != CaseStatus::Matched {
            places.insert(case.case_id.to_string(), Place::default());
        }
    }
    for unknown in graded.unknown.iter().filter(|_| every_case) {
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
        Sink::Matrix(Encoding::Csv),
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
    let mut errors = Vec::new();
    for case in &graded.cases {
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
    let mut all = vec![InputError::new(
        key_name,
        0,
        format!(
            "disagrees with the contract's verdicts on the case files ({} problem{} below; \
             `leasejudge check CASEFILE --golden KEY` shows them too): the autograder would \
             grade learners against a wrong key",
            errors.len(),
            if errors.len() == 1 { "" } else { "s" }
        ),
    )];
    all.extend(errors);
    Ok(InputErrors(all))
}

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
fn write_zip(path: &Path, prepared: &Prepared) -> Result<()> {
    let mut zip = zip::ZipWriter::new(Output::open(Some(path))?);
    let what = || format!("cannot write {}", path.display());
    let mut add = |name: &str, mode: u32, contents: &mut dyn Read, bytes: u64| -> Result<()> {
        zip.start_file(name, zip_options(mode, bytes))
            .with_context(what)?;
        io::copy(contents, &mut zip).with_context(what)?;
        Ok(())
    };
    let setup = setup_script(prepared.glibc);
    add(SETUP, 0o755, &mut setup.as_bytes(), setup.len() as u64)?;
    let run = run_script(Platform::Gradescope, &prepared.options);
    add(RUN, 0o755, &mut run.as_bytes(), run.len() as u64)?;
    let mut carry = |source: &Path, name: &str, mode: u32| -> Result<()> {
        let mut file =
            File::open(source).with_context(|| format!("cannot read {}", source.display()))?;
        let bytes = file.metadata().map_or(0, |m| m.len());
        add(name, mode, &mut file, bytes)
    };
    carry(&prepared.binary, BINARY, 0o755)?;
    carry(&prepared.key, &prepared.options.key, 0o644)?;
    for (case_file, name) in &prepared.cases {
        carry(case_file, name, 0o644)?;
    }
    let out = zip.finish().with_context(what)?;
    out.commit()
}

/// The uuid of the question leasejudge wrote at `dir` before, if there is one; a directory
/// that holds anything leasejudge does not write is refused (it would be replaced whole).
fn existing_question(dir: &Path) -> Result<Option<String>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(None);
    };
    let mut foreign = Vec::new();
    let mut count = 0;
    for entry in entries.filter_map(Result::ok) {
        count += 1;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        match (name.as_str(), is_dir) {
            ("info.json" | "question.html", false) | ("tests", true) => {}
            _ => foreign.push(name),
        }
    }
    if count == 0 {
        return Ok(None);
    }
    let tests = dir.join("tests");
    if !foreign.is_empty() || !tests.join(RUN).is_file() || !tests.join(BINARY).is_file() {
        foreign.sort();
        let what = if foreign.is_empty() {
            String::new()
        } else {
            format!(" (it holds {})", foreign.join(", "))
        };
        anyhow::bail!(
            "{} exists and is not a question leasejudge wrote{what}: it would be replaced whole, \
             so give a new directory or remove it (nothing was written)",
            dir.display()
        );
    }
    let uuid = std::fs::read(dir.join("info.json"))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .and_then(|info| info["uuid"].as_str().map(str::to_owned))
        .filter(|uuid| is_uuid(uuid));
    Ok(uuid)
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

/// Writes the PrairieLearn question directory atomically; returns its uuid.
fn write_question(
    args: &PrairieLearnArgs,
    prepared: &Prepared,
    existing: Option<String>,
) -> Result<String> {
    let out = OutputDir::create(&args.output)?;
    let mut hash = QuestionHash::default();
    // The question's name (its QID) first: one key in two questions gives two uuids.
    hash.update(b"leasejudge question\0");
    let qid = args
        .output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    hash.update(qid.as_bytes());
    hash.update(b"\0");
    let run = run_script(Platform::PrairieLearn, &prepared.options);
    hash.update(run.as_bytes());
    out.write_file(&format!("tests/{RUN}"), 0o755, &mut run.as_bytes())?;
    let open =
        |path: &Path| File::open(path).with_context(|| format!("cannot read {}", path.display()));
    out.write_file(
        &format!("tests/{BINARY}"),
        0o755,
        &mut open(&prepared.binary)?,
    )?;
    let mut hashing = Hashing {
        inner: open(&prepared.key)?,
        hash: &mut hash,
    };
    out.write_file(
        &format!("tests/{}", prepared.options.key),
        0o644,
        &mut hashing,
    )?;
    for (case_file, name) in &prepared.cases {
        out.write_file(&format!("tests/{name}"), 0o644, &mut open(case_file)?)?;
    }
    let uuid = args
        .uuid
        .clone()
        .or(existing)
        .unwrap_or_else(|| hash.uuid());
    let info = info_json(&uuid, &args.title, &args.topic, &args.image, args.timeout);
    out.write_file("info.json", 0o644, &mut info.as_bytes())?;
    out.write_file("question.html", 0o644, &mut question_html().as_bytes())?;
    out.commit()?;
    Ok(uuid)
}

#[cfg(test)]
mod tests {
    use super::*;

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
