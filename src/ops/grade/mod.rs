//! Grading a class (spec section 8, issue 14), `grade`'s work: every submission on its own
//! against the hidden golden labels, a class summary, a gradebook, partial credit,
//! autograder result files, feedback levels and hints. Golden values and the golden file's
//! name stay hidden unless the feedback is `full`. [`run`] takes plain [`Options`]; the
//! command line makes them (`commands/grade.rs`).

mod autograder;
mod checks;
mod entries;
mod gradebook;
mod read;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::grading::class::{
    grade_submission, ClassReport, Feedback, Previous, Scoring, Submission, SubmissionOutcome,
};
use crate::grading::precheck::{precheck, Precheck};
use crate::grading::submission_file::InstructorFiles;
use crate::grading::upload::{find_matrix, UPLOAD};
use crate::grading::{default_format, Column, ReportFormat};
use crate::input::{InputErrors, ReadOptions};
use crate::lms::{Lms, Missing};
use crate::ops::{usage, Status};
use crate::output::{commit_all, escape_controls, Content, Output};
use crate::report::class_json::write_json;
use crate::report::class_text::{key_lines, score_line, write_github, write_markdown, write_table};
use crate::report::github_classroom::write_github_classroom;
use crate::report::gradebook::{render_gradebook, write_item_analysis};
use crate::report::platform_results::{write_gradescope, write_prairielearn, Visibility};

use autograder::{refuse_unusable_key, remove_earlier_results, Log, LOG_LIMIT};
use checks::{check_format_options, check_outputs};
use entries::{class_entries, expand, read_lms_class, Entry};
use gradebook::{platform_gradebook, render_file};
use read::{hints, read_golden, read_submission, splitter};

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

    /// Whether this is an autograder platform's results file.
    pub fn is_platform(self) -> bool {
        matches!(self, GradeFormat::Gradescope | GradeFormat::Prairielearn)
    }

    /// Whether this reports on one submission.
    pub fn is_one_submission(self) -> bool {
        self.is_platform() || self == GradeFormat::GithubClassroom
    }
}

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
    /// How submissions are read if they are CSV or workbooks.
    pub read: ReadOptions,
}

/// Grades the class `options` name and writes the report and the files beside it; the
/// status is the class's (with `autograder`, success once the results are written).
pub fn run(options: &Options) -> Result<Status> {
    let feedback = options.feedback;
    if options.golden.as_os_str() == "-" {
        return Err(usage(
            "--golden - is not allowed: standard input is for a submission; give the golden file's path",
        ));
    }
    if feedback == Feedback::Hint && options.cases.is_empty() {
        return Err(usage(
            "--feedback hint needs the case files: --cases CASEFILE...",
        ));
    }
    if feedback != Feedback::Hint && !options.cases.is_empty() {
        return Err(usage("--cases is used only with --feedback hint"));
    }
    let format =
        options
            .format
            .unwrap_or_else(|| match default_format(options.output.as_deref()) {
                ReportFormat::Table => GradeFormat::Table,
                ReportFormat::Json => GradeFormat::Json,
                ReportFormat::Junit => GradeFormat::Junit,
                ReportFormat::Github => GradeFormat::Github,
                ReportFormat::Markdown => GradeFormat::Markdown,
            });
    check_format_options(options, format)?;
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
    // Every file read for the instructor, which no submission may be (nor a copy made of
    // one from a download).
    let mut instructor = InstructorFiles::new();
    instructor.add_path(&options.golden);
    for path in options.baseline.iter().chain(&options.roster) {
        instructor.add_path(path);
    }
    // A case file that cannot be listed is reported when the hints read it.
    for source in crate::input::expand_inputs(&options.cases).unwrap_or_default() {
        if let Some(path) = &source.path {
            instructor.add_path(path);
        }
    }
    // A class from a platform's download: its learners, in the roster's order.
    let class = match options.lms {
        Some(lms) => Some(read_lms_class(options, lms, &instructor)?),
        None => None,
    };
    let entries = match (&class, &options.submission_dir) {
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
        (None, None) => expand(&options.submissions)?
            .into_iter()
            .map(|path| Entry::Read {
                name: path.to_string_lossy().into_owned(),
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
    if format.is_one_submission() && entries.len() != 1 {
        return Err(usage(&format!(
            "-f gradescope, -f prairielearn and -f github-classroom grade one submission; {} \
             given",
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
        Some(path) => Some(crate::grading::baseline::read_baseline(path)?),
        None => None,
    };
    let reveal = feedback.reveals();
    let splitter = splitter(&options.golden, &paths);
    let golden = read_golden(&options.golden, &columns, &splitter, &mut instructor);
    if let (true, Err(problems)) = (options.autograder, &golden) {
        return Ok(refuse_unusable_key(&options.golden, problems));
    }
    // The golden case ids in order, for the hints and the item analysis.
    let case_ids = match &golden {
        Ok(golden) if feedback == Feedback::Hint || options.item_analysis.is_some() => Some(
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
    // The check of a platform's one submission, shown to its learner at once.
    let mut check: Option<Precheck> = None;
    let cases = golden.as_ref().map_or(0, |golden| golden.len());
    let submissions = entries
        .into_iter()
        .map(|entry| -> Result<Submission> {
            let (name, outcome) = match entry {
                Entry::Refused { name, problems } => {
                    if format.is_platform() {
                        check = Some(Precheck::unreadable(&name, cases, problems.clone()));
                    }
                    (name, SubmissionOutcome::Ungradable(problems))
                }
                // A submission's own problems are reported even when the golden file is
                // unusable. A submission found in an upload is named by its place in it (what
                // the learner uploaded, a name that is not UTF-8 escaped), in its problems
                // too: never by the platform's path.
                Entry::Read { path, name } => {
                    let read = read_submission(
                        &path,
                        &name,
                        &options.read,
                        &columns,
                        &splitter,
                        &instructor,
                    );
                    let outcome = match read {
                        Err(errors) => {
                            if format.is_platform() {
                                check = Some(Precheck::unreadable(&name, cases, errors.clone()));
                            }
                            SubmissionOutcome::Ungradable(errors)
                        }
                        Ok((submission, errors)) => {
                            // On a platform, the learner's check first: it looks at the key's
                            // case ids, never its values.
                            if let (true, Ok(golden)) = (format.is_platform(), &golden) {
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
        golden: reveal.then(|| options.golden.to_string_lossy().into_owned()),
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
        points: options.points,
    };
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
    let mut out = Output::open(options.output.as_deref(), format.content())?;
    let color = crate::terminal::use_color(out.is_terminal());
    let text = match format {
        // Written as it is made, a page of a table at a time.
        GradeFormat::Table => {
            // Coloured or not, on a terminal or piped: the one width rule of every table.
            let width = crate::terminal::table_width(out.is_terminal());
            write_table(&report, color, options.verbose, Some(width), &mut out)
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
            let visibility = options.visibility.unwrap_or(Visibility::Visible);
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
    // The report, the gradebook and the item analysis commit together or not at all.
    let mut outputs = vec![out];
    // With --lms, the platform's import; none when the golden file cannot be used (every
    // learner would be ungradable, and with --missing zero given 0).
    let mut imported = None;
    match (&options.gradebook, &class) {
        (Some(path), Some(class)) if report.key_problems.is_none() => {
            let (text, line) = platform_gradebook(options, class, &report, path)?;
            outputs.push(render_file(path, &text, "gradebook")?);
            imported = Some(line);
        }
        (Some(path), Some(_)) => {
            imported = Some(format!(
                "the {} gradebook {} was not written: the golden file cannot be used",
                options.lms.map_or("", Lms::title),
                escape_controls(&path.to_string_lossy())
            ));
        }
        (Some(path), None) => {
            outputs.push(render_file(path, &render_gradebook(&report)?, "gradebook")?)
        }
        (None, _) => {}
    }
    if let Some(path) = &options.item_analysis {
        let mut out = Output::open(Some(path), Content::Csv)?;
        let golden_ids = case_ids
            .iter()
            .flat_map(|ids| ids.iter().map(|id| id.map(|(_, id)| id)));
        write_item_analysis(&report, golden_ids, &mut out)
            .context("cannot write the item analysis")?;
        outputs.push(out);
    }
    commit_all(outputs)?;
    if let Some(line) = imported {
        crate::output::to_stderr(&format!("leasejudge: {line}"));
    }
    let code = report.exit_code();
    // An autograder's log is the instructor's: kept under 1 MB whatever the upload.
    let mut log = Log::within(if options.autograder {
        LOG_LIMIT
    } else {
        usize::MAX
    });
    if code == 2 {
        // Trouble goes to standard error too, as with every command, whatever the report's
        // format: a submission's own problems, and the golden file's only as the report
        // shows them (in full with --reveal).
        let mut err = std::io::stderr().lock();
        match &key_trouble {
            Some(trouble) => log.line(&mut err, trouble),
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
                for problem in problems {
                    log.line(&mut err, &problem.to_string());
                }
            }
        }
        log.finish(&mut err);
        if ungradable > 0 {
            let _ = writeln!(
                err,
                "leasejudge: {ungradable} submission{} could not be graded",
                if ungradable == 1 { "" } else { "s" }
            );
        }
    }
    if options.autograder {
        // For the instructor: standard output is theirs on both platforms.
        let submission = &report.submissions[0];
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "leasejudge: {}: {}; the results are in {}",
            escape_controls(&submission.name),
            score_line(&report, submission),
            escape_controls(
                &options
                    .output
                    .as_deref()
                    .unwrap_or(Path::new("-"))
                    .to_string_lossy()
            )
        );
        return Ok(Status::Success);
    }
    Ok(Status::from_code(code))
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
        _ => format!(
            "the golden file given with --golden is malformed: {} problem{}; rerun with \
             --reveal to see each one located (learners are told only that it is malformed)",
            crate::output::thousands(problems.total()),
            if problems.total() == 1 { "" } else { "s" }
        ),
    }
}
