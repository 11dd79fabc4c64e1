//! The submissions `grade` grades: files and directories as given, a learner's upload, or a
//! platform's download of a class read with its roster, each an [`Entry`] to read or one
//! refused with the reason.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::grading::class::{
    grade_submission_naming, Previous, Scoring, Submission, SubmissionOutcome,
};
use crate::grading::learner_shortcuts::CaseShortcuts;
use crate::grading::matrix_reader::SplitMatrix;
use crate::grading::partitions::Splitter;
use crate::grading::precheck::{precheck, Precheck};
use crate::grading::submission_file::InstructorFiles;
use crate::grading::upload::{find_matrix, UPLOAD};
use crate::grading::Column;
use crate::input::{ErrorKind, InputError, InputErrors, ReadOptions};
use crate::lms::{read_class, Class, Lms, Upload};
use crate::ops::usage;
use crate::output::{escape_controls, listed};

use super::read::read_submission;
use super::Options;

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
pub(super) fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, InputErrors> {
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

/// A submission to grade: a file to read, or why there is none (an ungradable submission).
pub(super) enum Entry {
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
    pub(super) fn shown_name(&self) -> String {
        let (Entry::Read { name, .. } | Entry::Refused { name, .. }) = self;
        escape_controls(name).into_owned()
    }
}

/// The roster and the download of `--lms`, read. The points the roster holds must agree
/// with `--points`.
pub(super) fn read_lms_class(
    options: &Options,
    lms: Lms,
    instructor: &InstructorFiles,
) -> Result<Class> {
    let [download] = options.submissions.as_slice() else {
        return Err(usage(&format!(
            "--lms takes one SUBMISSION, the {} download of the class (its folder or zip); {} \
             given",
            lms.title(),
            options.submissions.len()
        )));
    };
    if download.as_os_str() == "-" {
        return Err(usage(
            "--lms reads the download from its folder or zip, not standard input",
        ));
    }
    let Some(roster_path) = options.roster.as_deref() else {
        return Err(usage("--lms needs --roster ROSTER, the platform's roster"));
    };
    if !lms.facts().takes_assignment && options.assignment.is_some() {
        return Err(usage(&assignment_misused()));
    }
    let roster = lms.read_roster(roster_path, options.assignment.as_deref())?;
    if let (Some(held), Some(given)) = (roster.points(), options.points) {
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
    if roster.points().is_none() && options.points.is_none() && lms.facts().needs_points {
        return Err(usage(&format!(
            "{} does not say the assignment's points: give --points",
            roster_path.display()
        )));
    }
    if options
        .points
        .is_some_and(|p| !crate::lms::roster::is_gradable_points(p))
    {
        return Err(usage(
            "--points with --lms must be at least 0.01: grades are written to the hundredth",
        ));
    }
    let options =
        crate::lms::ClassOptions::read(lms, options.groups.as_deref(), options.not_on_roster)?;
    Ok(read_class(lms, download, roster, instructor, &options)?)
}

/// Why `--assignment` is refused for a platform whose roster is of one assignment: `--assignment
/// picks a column of a Canvas gradebook export; a Moodle worksheet and a GitHub Classroom roster
/// are of one assignment`.
fn assignment_misused() -> String {
    let rosters = |takes: bool| -> Vec<&'static str> {
        <Lms as crate::choice::Choice>::ALL
            .iter()
            .filter(|lms| lms.facts().takes_assignment == takes)
            .map(|lms| lms.facts().roster)
            .collect()
    };
    let (several, one) = (rosters(true), rosters(false));
    format!(
        "--assignment picks a column of {}; {} {} of one assignment",
        listed(&several, "or"),
        listed(&one, "and"),
        if one.len() == 1 { "is" } else { "are" }
    )
}

/// A class's learners as submissions, in the roster's order: a learner's matrix is named
/// `{learner}/{its place in the upload}`; a learner without one is a refused entry named by
/// the learner, saying why.
pub(super) fn class_entries(class: &Class) -> Vec<Entry> {
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
                        ErrorKind::Missing,
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

/// The submissions `options` name: a class's learners in the roster's order, a learner's
/// upload (its one matrix file, or why it has none), or files and directories as given.
pub(super) fn entries(options: &Options, class: Option<&Class>) -> Result<Vec<Entry>> {
    Ok(match (class, &options.submission_dir) {
        (Some(class), _) => class_entries(class),
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
                name: crate::grading::upload::path_name(&path),
                path,
            })
            .collect(),
    })
}

/// How every submission is read and graded.
pub(super) struct Grading<'a> {
    /// The key, if it can be used.
    pub(super) golden: Option<&'a SplitMatrix>,
    /// Whether the report is a platform's results: the learner's check first.
    pub(super) platform: bool,
    pub(super) read: &'a ReadOptions,
    pub(super) columns: &'a [Column],
    pub(super) scoring: &'a Scoring,
    /// Whether golden values are shown.
    pub(super) reveal: bool,
    pub(super) splitter: &'a Splitter,
    pub(super) instructor: &'a InstructorFiles,
    /// The earlier gradebook's scores, by submission.
    pub(super) baseline: Option<&'a HashMap<String, Option<f64>>>,
    /// The lab's cases under every shortcut (`--cases`), to name each learner's.
    pub(super) shortcuts: Option<&'a CaseShortcuts>,
}

/// Each entry read and graded, with its previous score from the baseline; and on a
/// platform, the check of its one submission, shown to its learner at once. `cases` is how
/// many the key has (0 when it cannot be used).
pub(super) fn grade_entries(
    entries: Vec<Entry>,
    grading: &Grading<'_>,
    cases: u64,
) -> Result<(Vec<Submission>, Option<Precheck>)> {
    let mut check: Option<Precheck> = None;
    let submissions = entries
        .into_iter()
        .map(|entry| -> Result<Submission> {
            let (name, outcome) = match entry {
                Entry::Refused { name, problems } => {
                    if grading.platform {
                        check = Some(Precheck::unreadable(&name, cases, problems.clone()));
                    }
                    (name, SubmissionOutcome::Ungradable(problems))
                }
                // A submission's own problems are reported even when the golden file is
                // unusable. A submission found in an upload is named by its place in it (what
                // the learner uploaded, a name that is not UTF-8 escaped), in its problems
                // too: never by the platform's path.
                Entry::Read { path, name } => {
                    let outcome = grade_file(&path, &name, grading, cases, &mut check)?;
                    (name, outcome)
                }
            };
            // A gradebook names a submission as a person reads it (`report_cell`, one for one).
            let previous = grading
                .baseline
                .and_then(|b| b.get(&*escape_controls(&name)))
                .map(|score| Previous { score: *score });
            Ok(Submission {
                name,
                outcome,
                previous,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((submissions, check))
}

/// The submission at `path`, read and graded; on a platform, `check` is its check.
fn grade_file(
    path: &Path,
    name: &str,
    grading: &Grading<'_>,
    cases: u64,
    check: &mut Option<Precheck>,
) -> Result<SubmissionOutcome> {
    let read = read_submission(
        path,
        name,
        grading.read,
        grading.columns,
        grading.splitter,
        grading.instructor,
    );
    Ok(match read {
        Err(errors) => {
            if grading.platform {
                *check = Some(Precheck::unreadable(name, cases, errors.clone()));
            }
            SubmissionOutcome::Ungradable(errors)
        }
        Ok((submission, errors)) => {
            // On a platform, the learner's check first: it looks at the key's case ids,
            // never its values.
            if let (true, Some(golden)) = (grading.platform, grading.golden) {
                *check = Some(
                    precheck(name, golden, &submission, &errors, grading.columns)
                        .context("checking through temporary files")?,
                );
            }
            grade_submission_naming(
                grading.golden,
                submission,
                errors,
                grading.scoring,
                grading.reveal,
                grading.shortcuts,
            )
            .context("grading through temporary files")?
        }
    })
}
