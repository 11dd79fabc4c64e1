//! Grading a class (spec section 8, issue 14), `grade`'s work: every submission on its own
//! against the hidden golden labels, a class summary, a gradebook, partial credit,
//! autograder result files, feedback levels and hints. Golden values and the golden file's
//! name stay hidden unless the feedback is `full`. [`run`] takes plain [`Options`]; the
//! command line makes them (`commands/grade.rs`).

mod autograder;
mod checks;
mod entries;
mod format;
mod gradebook;
mod read;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::grading::class::{ClassReport, Feedback, Scoring};
use crate::grading::spool::Spool;
use crate::grading::submission_file::InstructorFiles;
use crate::grading::Column;
use crate::input::{ErrorKind, InputErrors, ReadOptions};
use crate::lms::{Class, Lms, Missing, NotOnRoster};
use crate::ops::{usage, Status};
use crate::output::{commit_all, Output};
use crate::report::default_format;
use crate::report::platform_results::Visibility;

use autograder::{log_trouble, refuse_unusable_key, remove_earlier_results, say_results};
use checks::{check_format_options, check_outputs};
use entries::{entries, grade_entries, read_lms_class, Entry, Grading};
pub use format::GradeFormat;
use gradebook::files_beside_report;
use read::{case_shortcuts, hints, read_golden, splitter};

/// What `grade` is asked to do: the command line's options, parsed.
#[derive(Clone, Debug)]
pub struct Options {
    /// Submissions: matrix files, directories of them, or `-` for standard input (with
    /// `lms`, the one platform's download).
    pub submissions: Vec<PathBuf>,
    /// One learner's upload, as an autograder unpacks it: its one matrix file is the
    /// submission.
    pub submission_dir: Option<PathBuf>,
    /// Run as a platform's grading script: success once the results are written.
    pub autograder: bool,
    /// The golden matrix with the labels.
    pub golden: PathBuf,
    /// What learners see.
    pub feedback: Feedback,
    /// The case files the matrices were filled in from (for hints).
    pub cases: Vec<PathBuf>,
    /// Partial credit: each case scores the sum of the weights of its right columns.
    pub weights: Option<Vec<(Column, u32)>>,
    /// The columns graded.
    pub columns: Vec<Column>,
    /// Where to write a gradebook (with `lms`, the platform's import).
    pub gradebook: Option<PathBuf>,
    /// An earlier gradebook: each submission's previous score and the change.
    pub baseline: Option<PathBuf>,
    /// Where to write an item analysis.
    pub item_analysis: Option<PathBuf>,
    /// The assignment's points: the platforms' scores scaled to them.
    pub points: Option<f64>,
    /// Who sees the Gradescope results, and when.
    pub visibility: Option<Visibility>,
    /// The report's format [default: by the output's extension].
    pub format: Option<GradeFormat>,
    /// Where to write the report [default: standard output].
    pub output: Option<PathBuf>,
    /// In the table, list every case, not only those that differ.
    pub verbose: bool,
    /// The platform the class was collected on.
    pub lms: Option<Lms>,
    /// The platform's roster.
    pub roster: Option<PathBuf>,
    /// What a learner on the roster with no gradable submission gets.
    pub missing: Option<Missing>,
    /// Which of a Canvas export's assignments is graded.
    pub assignment: Option<String>,
    /// A group assignment's groups: a group's submission is graded for every member.
    pub groups: Option<PathBuf>,
    /// What becomes of a submission of a learner the roster lacks [default: an error].
    pub not_on_roster: Option<NotOnRoster>,
    /// How submissions are read if they are CSV or workbooks.
    pub read: ReadOptions,
}

/// Grades the class `options` name and writes the report and the files beside it; the
/// status is the class's (with `autograder`, success once the results are written).
pub fn run(options: &Options) -> Result<Status> {
    let format = checked_format(options)?;
    let feedback = options.feedback;
    let columns = options.columns.clone();
    let scoring =
        Scoring::new(columns.clone(), options.weights.as_deref()).map_err(|e| usage(&e))?;
    if options
        .submissions
        .iter()
        .filter(|p| p.as_os_str() == "-")
        .count()
        > 1
    {
        return Err(usage("standard input (-) can be read only once"));
    }
    let mut instructor = instructor_files(options);
    // A class from a platform's download: its learners, in the roster's order.
    let class = match options.lms {
        Some(lms) => Some(read_lms_class(options, lms, &instructor)?),
        None => None,
    };
    let entries = entries(options, class.as_ref())?;
    let paths: Vec<&Path> = entries
        .iter()
        .filter_map(|entry| match entry {
            Entry::Read { path, .. } => Some(path.as_path()),
            Entry::Refused { .. } => None,
        })
        .collect();
    if format.is_one_submission() && entries.len() != 1 {
        return Err(usage(&format!(
            "{} grade one submission; {} given",
            GradeFormat::one_submission_listed("and"),
            entries.len()
        )));
    }
    check_outputs(options, &paths, feedback.reveals())?;
    if options.autograder {
        remove_earlier_results(
            options
                .output
                .as_deref()
                .expect("checked: --autograder has -o"),
        )?;
    }
    crate::limits::raise_open_files_limit();
    let baseline = match &options.baseline {
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
    let splitter = splitter(&options.golden, &paths);
    let golden = read_golden(&options.golden, &columns, &splitter, &mut instructor)?;
    if let (true, Err(problems)) = (options.autograder, &golden) {
        return Ok(refuse_unusable_key(&options.golden, problems));
    }
    // The golden case ids in order, for the hints, the shortcuts and the item analysis.
    let case_ids = match &golden {
        Ok(golden) if !options.cases.is_empty() || options.item_analysis.is_some() => Some(
            golden
                .case_ids()
                .context("reading the golden file back from its temporary file")?,
        ),
        _ => None,
    };
    let hints = match (&case_ids, feedback) {
        (Some(case_ids), Feedback::Hint) => hints(&options.cases, case_ids)?,
        _ => Vec::new(),
    };
    // The lab's cases judged once under every shortcut, for every learner.
    let shortcuts = match (&case_ids, options.cases.is_empty()) {
        (Some(case_ids), false) => Some(case_shortcuts(&options.cases, &columns, case_ids)?),
        _ => None,
    };
    let grading = Grading {
        shortcuts: shortcuts.as_ref(),
        golden: golden.as_ref().ok(),
        platform: format.is_platform(),
        read: &options.read,
        columns: &columns,
        scoring: &scoring,
        reveal,
        splitter: &splitter,
        instructor: &instructor,
        baseline: baseline.as_ref().map(|baseline| &baseline.scores),
    };
    let (submissions, check) = grade_entries(
        entries,
        &grading,
        golden.as_ref().map_or(0, |golden| golden.len()),
    )?;
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
        golden: reveal.then(|| options.golden.to_string_lossy().into_owned()),
        cases: match &golden {
            Ok(golden) => usize::try_from(golden.len()).expect("cases fit memory"),
            Err(_) => 0,
        },
        hints,
        // Unreadable, not malformed: its one problem is about the whole file.
        key_unreadable: matches!(&golden, Err(problems) if matches!(problems.listed(),
            [only] if only.is_unreadable_file())),
        key_problems: match golden {
            Ok(_) => None,
            Err(problems) => Some(if reveal { problems } else { InputErrors::new() }),
        },
        submissions,
        baseline: baseline.is_some(),
        baseline_max_scores: baseline
            .map(|baseline| baseline.max_scores)
            .unwrap_or_default(),
        precheck: check,
        points: options.points,
    };
    let problems_shown =
        write_outputs(options, format, &report, class.as_ref(), case_ids.as_ref())?;
    let code = report.exit_code();
    if code == 2 {
        log_trouble(
            options.autograder,
            &report,
            key_trouble.as_deref(),
            problems_shown,
        );
    }
    if options.autograder {
        say_results(options, &report);
        return Ok(Status::Success);
    }
    Ok(Status::from_code(code))
}

/// The checks of the options that need no file, and the report's format.
fn checked_format(options: &Options) -> Result<GradeFormat> {
    if options.golden.as_os_str() == "-" {
        return Err(usage(
            "--golden - is not allowed: standard input is for a submission; give the golden file's path",
        ));
    }
    if options.feedback == Feedback::Hint && options.cases.is_empty() {
        return Err(usage(
            "--feedback hint needs the case files: --cases CASEFILE...",
        ));
    }
    if options.feedback == Feedback::Shortcut && options.cases.is_empty() {
        return Err(usage(
            "--feedback shortcut needs the case files: --cases CASEFILE...",
        ));
    }
    let format = options
        .format
        .unwrap_or_else(|| GradeFormat::Report(default_format(options.output.as_deref())));
    check_format_options(options, format)?;
    Ok(format)
}

/// Every file read for the instructor, which no submission may be (nor a copy made of one
/// from a download).
fn instructor_files(options: &Options) -> InstructorFiles {
    let mut instructor = InstructorFiles::new();
    instructor.add_path(&options.golden);
    for path in options
        .baseline
        .iter()
        .chain(&options.roster)
        .chain(&options.groups)
    {
        instructor.add_path(path);
    }
    // A case file that cannot be listed is reported when the hints read it.
    for source in crate::input::expand_inputs(&options.cases).unwrap_or_default() {
        if let Some(path) = &source.path {
            instructor.add_path(path);
        }
    }
    instructor
}

/// Writes the report, the gradebook and the item analysis, committed together or not at
/// all, and says which learners a download's entries were not graded for and what a
/// platform's import holds. Whether the report showed each ungradable submission's problems
/// on the terminal standard error is on too (a table on the terminal).
fn write_outputs(
    options: &Options,
    format: GradeFormat,
    report: &ClassReport,
    class: Option<&Class>,
    case_ids: Option<&Spool<(u64, String)>>,
) -> Result<bool> {
    if options.autograder {
        // PrairieLearn does not create /grade/results.
        let directory = options.output.as_deref().and_then(Path::parent);
        if let Some(directory) = directory.filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(directory).with_context(|| {
                format!(
                    "cannot create the results directory {}",
                    directory.display()
                )
            })?;
        }
    }
    let out = write_report(options, format, report)?;
    // A table on the terminal shows each ungradable submission's problems: on that same
    // terminal, standard error only counts them (they were printed twice).
    let problems_shown = matches!(format, GradeFormat::Report(format) if format.shows_problems())
        && out.is_terminal()
        && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut outputs = vec![out];
    let imported = files_beside_report(options, report, class, case_ids, &mut outputs)?;
    commit_all(outputs)?;
    for line in class.iter().flat_map(|class| class.skipped_lines().0) {
        crate::output::to_stderr(&format!("leasejudge: {line}"));
    }
    if let Some(line) = imported {
        crate::terminal::to_stderr_wrapped(&format!("leasejudge: {line}"));
    }
    Ok(problems_shown)
}

/// The report in `format`, written as it is made (a table a page at a time, a test per
/// golden case), not yet committed.
fn write_report(options: &Options, format: GradeFormat, report: &ClassReport) -> Result<Output> {
    let mut out = Output::open(options.output.as_deref(), format.content())?;
    format.write(report, options, &mut out)?;
    Ok(out)
}

/// What is wrong with an unusable key, for the one running `grade` (the report tells learners
/// only that it cannot be used): the reason it cannot be read, or how many problems it has
/// and how to see them, never its name or a value.
fn key_trouble(problems: &InputErrors) -> String {
    match problems.listed() {
        [only] if only.is_unreadable_file() => format!(
            "the golden file given with --golden cannot be read ({}): check its path (the \
             report names it only with --reveal)",
            only.io_cause().unwrap_or(&only.message)
        ),
        [only] if only.kind == ErrorKind::Swapped => {
            "the golden file given with --golden is a case file, not a matrix: it has an event \
             column and no decision or reason; give the key (the matrix adjudicate writes of \
             the case files) with --golden, and the case files with --cases"
                .to_owned()
        }
        _ => format!(
            "the golden file given with --golden is malformed: {} problem{}; rerun with \
             --reveal to see each one located (learners are told only that it is malformed)",
            crate::input::thousands(problems.total()),
            if problems.total() == 1 { "" } else { "s" }
        ),
    }
}
