//! The submissions `grade` grades: files and directories as given, a learner's upload, or a
//! platform's download of a class read with its roster, each an [`Entry`] to read or one
//! refused with the reason.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::grading::submission_file::InstructorFiles;
use crate::grading::upload::UPLOAD;
use crate::input::{InputError, InputErrors};
use crate::lms::{read_class, Class, Lms, Roster, Upload};
use crate::ops::usage;

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
    if lms != Lms::Canvas && options.assignment.is_some() {
        return Err(usage(
            "--assignment picks a column of a Canvas gradebook export; a Moodle worksheet and a \
             GitHub Classroom roster are of one assignment",
        ));
    }
    let roster = Roster::read(lms, roster_path, options.assignment.as_deref())?;
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
    if roster.points().is_none() && options.points.is_none() && lms != Lms::GithubClassroom {
        return Err(usage(&format!(
            "{} does not say the assignment's points: give --points",
            roster_path.display()
        )));
    }
    Ok(read_class(lms, download, roster, instructor)?)
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
        .map(|(learner, upload)| {
            let label = &learner.label;
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
