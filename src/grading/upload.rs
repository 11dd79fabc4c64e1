//! The one matrix file of a learner's upload (`grade --submission-dir`). An autograder puts
//! what a learner handed in into a directory, files and folders as they were uploaded
//! (Gradescope's `/autograder/submission`, PrairieLearn's `/grade/student`); exactly one of
//! its files must be the matrix, told by its extension.
//!
//! The directory is walked without following links: a link is no file of the upload, and a
//! link to a directory is never entered. What operating systems and spreadsheets leave
//! beside a file is skipped: names starting with `.` (`.DS_Store`, macOS's `._matrix.csv`),
//! Office's owner files (`~$matrix.xlsx`) and macOS's `__MACOSX` folder. Anything else that
//! is not a matrix (`notes.txt`) is ignored. No matrix file, several, or one that is a link
//! is a problem of the upload, reported like any other that makes a submission ungradable.

use std::path::{Path, PathBuf};

use crate::input::InputError;

/// The extensions of the matrix files `grade` reads (compared without case).
pub const MATRIX_EXTENSIONS: [&str; 5] = ["csv", "json", "xlsx", "xlsm", "ods"];

/// The name an upload's own problems are reported under.
pub const UPLOAD: &str = "upload";

/// How deep folders are searched: an upload is a handful of folders, and a limit keeps a
/// pathological one from exhausting the stack.
const MAX_DEPTH: usize = 32;

/// How many file names a problem quotes.
const QUOTED_NAMES: usize = 10;

/// What to hand in, said after every problem.
const HAND_IN: &str = "hand in the matrix as one .csv, .json, .xlsx, .xlsm or .ods file";

/// The matrix file found in an upload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UploadedMatrix {
    /// Its path (the directory joined with its place in the upload).
    pub path: PathBuf,
    /// Its place in the upload (`matrix.csv`, `lab/matrix.csv`), the name learners see.
    pub name: String,
}

/// Whether `name` has a matrix file's extension.
pub fn has_matrix_extension(name: &Path) -> bool {
    name.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| MATRIX_EXTENSIONS.iter().any(|m| m.eq_ignore_ascii_case(e)))
}

/// Whether an entry is what an operating system or a spreadsheet leaves beside a file.
fn is_litter(name: &str) -> bool {
    name.starts_with('.') || name.starts_with("~$") || name == "__MACOSX"
}

/// An upload's entries: the matrix candidates and the other files, by their place in it.
#[derive(Default)]
struct Found {
    /// Files with a matrix extension, and whether each is a link.
    candidates: Vec<(String, bool)>,
    /// How many other files there are, and the first few names.
    others: usize,
    other_names: Vec<String>,
    /// Folders that could not be read.
    problems: Vec<InputError>,
}

/// Its place in the upload, with `/` between folders whatever the platform.
fn place(parts: &[String]) -> String {
    parts.join("/")
}

fn walk(dir: &Path, parts: &mut Vec<String>, found: &mut Found) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            let what = if parts.is_empty() {
                "the upload's folder".to_owned()
            } else {
                format!("folder {}", place(parts))
            };
            found.problems.push(InputError::new(
                UPLOAD,
                0,
                format!("cannot read {what}: {e}"),
            ));
            return;
        }
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_litter(&name) {
            continue;
        }
        // The entry itself, not what a link points to.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        parts.push(name);
        if kind.is_dir() {
            if parts.len() <= MAX_DEPTH {
                walk(&entry.path(), parts, found);
            } else {
                found.problems.push(InputError::new(
                    UPLOAD,
                    0,
                    format!(
                        "folder {} is nested more than {MAX_DEPTH} deep; {HAND_IN}",
                        place(parts)
                    ),
                ));
            }
        } else if has_matrix_extension(Path::new(parts.last().expect("just pushed"))) {
            found.candidates.push((place(parts), kind.is_symlink()));
        } else {
            found.others += 1;
            if found.other_names.len() < QUOTED_NAMES {
                found.other_names.push(place(parts));
            }
        }
        parts.pop();
    }
}

/// `a, b and 3 more`.
fn listed(names: &[String], all: usize) -> String {
    let mut text = names.join(", ");
    if all > names.len() {
        text.push_str(&format!(" and {} more", all - names.len()));
    }
    text
}

/// The one matrix file in the upload `dir`, or why there is not one (reported under
/// [`UPLOAD`]).
pub fn find_matrix(dir: &Path) -> Result<UploadedMatrix, Vec<InputError>> {
    let mut found = Found::default();
    walk(dir, &mut Vec::new(), &mut found);
    if !found.problems.is_empty() {
        return Err(found.problems);
    }
    let problem = |message: String| Err(vec![InputError::new(UPLOAD, 0, message)]);
    match found.candidates.as_slice() {
        [] if found.others == 0 => problem(format!("is empty; {HAND_IN}")),
        [] => problem(format!(
            "holds no matrix file (it holds {}); {HAND_IN}",
            listed(&found.other_names, found.others)
        )),
        [(name, true)] => problem(format!(
            "{name} is a symbolic link, not a file of the upload; hand in the file itself"
        )),
        [(name, false)] => Ok(UploadedMatrix {
            path: name
                .split('/')
                .fold(dir.to_owned(), |path, part| path.join(part)),
            name: name.clone(),
        }),
        many => {
            let names: Vec<String> = many
                .iter()
                .take(QUOTED_NAMES)
                .map(|(name, _)| name.clone())
                .collect();
            problem(format!(
                "holds {} matrix files ({}); {HAND_IN}, and nothing else with those extensions",
                many.len(),
                listed(&names, many.len())
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn upload(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for file in files {
            let path = dir.path().join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "case_id,decision,reason\n").unwrap();
        }
        dir
    }

    fn message(result: Result<UploadedMatrix, Vec<InputError>>) -> String {
        let errors = result.unwrap_err();
        assert_eq!(errors.len(), 1);
        errors[0].to_string()
    }

    #[test]
    fn the_one_matrix_file_is_found_wherever_it_is() {
        let dir = upload(&["notes.txt", "lab 3/Matrix.CSV", "README.md"]);
        let found = find_matrix(dir.path()).unwrap();
        assert_eq!(found.name, "lab 3/Matrix.CSV");
        assert_eq!(found.path, dir.path().join("lab 3").join("Matrix.CSV"));
    }

    #[test]
    fn what_systems_and_spreadsheets_leave_is_skipped() {
        let dir = upload(&[
            "matrix.xlsx",
            "~$matrix.xlsx",
            ".~lock.matrix.ods#",
            "__MACOSX/._matrix.xlsx",
            "._matrix.xlsx",
            ".hidden/other.csv",
        ]);
        assert_eq!(find_matrix(dir.path()).unwrap().name, "matrix.xlsx");
    }

    #[test]
    fn none_or_several_matrix_files_are_the_uploads_problem() {
        let dir = upload(&[]);
        assert_eq!(
            message(find_matrix(dir.path())),
            format!("upload: is empty; {HAND_IN}")
        );
        let dir = upload(&["notes.txt", "answers.pdf"]);
        assert_eq!(
            message(find_matrix(dir.path())),
            format!("upload: holds no matrix file (it holds answers.pdf, notes.txt); {HAND_IN}")
        );
        let dir = upload(&["matrix.csv", "notes.json"]);
        assert_eq!(
            message(find_matrix(dir.path())),
            format!(
                "upload: holds 2 matrix files (matrix.csv, notes.json); {HAND_IN}, and nothing \
                 else with those extensions"
            )
        );
        let names: Vec<String> = (0..12).map(|i| format!("m{i:02}.csv")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let text = message(find_matrix(upload(&names).path()));
        assert!(text.contains("holds 12 matrix files (m00.csv, "), "{text}");
        assert!(text.contains("m09.csv and 2 more)"), "{text}");
        let missing = tempfile::tempdir().unwrap().path().join("gone");
        assert!(
            message(find_matrix(&missing)).starts_with("upload: cannot read the upload's folder: ")
        );
    }

    #[cfg(unix)]
    #[test]
    fn links_are_not_files_of_the_upload_and_are_never_followed() {
        let outside = upload(&["key.csv", "elsewhere/matrix.csv"]);
        let dir = upload(&[]);
        std::os::unix::fs::symlink(
            outside.path().join("key.csv"),
            dir.path().join("matrix.csv"),
        )
        .unwrap();
        assert_eq!(
            message(find_matrix(dir.path())),
            "upload: matrix.csv is a symbolic link, not a file of the upload; hand in the file \
             itself"
        );
        // A link to a folder is not entered: the matrix beyond it is not found.
        let dir = upload(&[]);
        std::os::unix::fs::symlink(outside.path().join("elsewhere"), dir.path().join("lab"))
            .unwrap();
        assert_eq!(
            message(find_matrix(dir.path())),
            format!("upload: holds no matrix file (it holds lab); {HAND_IN}")
        );
    }
}
