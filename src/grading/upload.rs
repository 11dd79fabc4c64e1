//! The learner's matrix among the files they handed in: an autograder's upload directory
//! (Gradescope's `/autograder/submission`, PrairieLearn's `/grade/student`, `grade
//! --submission-dir`), or any list of a learner's files ([`find_learners_matrix`], for a
//! download from a learning platform). Exactly one of them must be the matrix.
//!
//! A file is a candidate by its extension (`.csv`, `.json`, `.xlsx`, `.xlsm`, `.ods`, in any
//! case), outside what systems, spreadsheets and tools leave beside a file: any name starting
//! with `.` and everything in such a folder (`.git/`, `.github/`, `.DS_Store`, macOS's
//! `._matrix.csv`), macOS's `__MACOSX/` and Office's owner files (`~$matrix.xlsx`). Then a
//! candidate's first row says what it is: a matrix header names `case_id` (and, if it names
//! an `event` column, a graded answer too), a case file's names `event` and no answer. The one
//! matrix is the answer; a lab's case file handed in beside it (a GitHub starter repository's
//! `data/cases.csv`) is not a candidate. With no matrix header anywhere, the one remaining
//! candidate is graded (its reading says what is wrong with it); several matrices, or several
//! files none of which is one, make the upload ungradable, with their names.
//!
//! Names are bytes: a file is opened by the name the file system gave it, and shown with any
//! byte that is not UTF-8 escaped (`r\xe9ponse.csv`, from a Windows zip unpacked by Info-ZIP).
//! The directory is walked without following links: a link is no file of the upload (one
//! chosen as the matrix is refused), and a link to a directory is never entered. A file is
//! looked at only if it is a regular file, opened without following a link and without
//! waiting on a FIFO.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::grading::columns::{column_from_header, Column};
use crate::input::content::{sniff, Content, Utf16Text};
use crate::input::{normalise_header, ErrorKind, Field, InputError, InputErrors};

/// The extensions of the matrix files `grade` reads (compared without case).
pub const MATRIX_EXTENSIONS: [&str; 5] = ["csv", "json", "xlsx", "xlsm", "ods"];

/// The name an upload's own problems are reported under.
pub const UPLOAD: &str = "upload";

/// How deep folders are searched: an upload is a handful of folders, and a limit keeps a
/// pathological one from exhausting the stack.
const MAX_DEPTH: usize = 32;

/// How many file names a problem quotes.
const QUOTED_NAMES: usize = 10;

/// How many candidates are looked at: an upload of more is no learner's matrix and its
/// notes, and is refused without opening them.
const MAX_LOOKED_AT: usize = 100;

/// The most files an upload may hold (its folders walked, a learner's entries of a download
/// unpacked): more is no learner's matrix and its notes, and is refused as soon as it is
/// found, without a list of them held or unpacked (a learner's 500,000 entries took minutes
/// and half a gigabyte).
pub const MAX_UPLOAD_FILES: usize = 10_000;

/// How many bytes of a text file are read to find its first row.
const HEADER_BYTES: usize = 64 << 10;

/// What to hand in, said after every problem.
const HAND_IN: &str = "hand in the matrix as one .csv, .json, .xlsx, .xlsm or .ods file";

/// A file a learner handed in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandedIn {
    /// Where it is on this machine.
    pub path: PathBuf,
    /// Its place in what the learner handed in, folder by folder, as the file system names
    /// them (`lab 1/matrix.csv`; bytes, not necessarily UTF-8).
    pub place: PathBuf,
    /// Whether it is a symbolic link (never opened; refused if it is the one matrix).
    pub is_link: bool,
}

impl HandedIn {
    /// Its place as learners see it: folders joined with `/`, a byte that is not UTF-8
    /// escaped (`r\xe9ponse.csv`).
    pub fn name(&self) -> String {
        let parts: Vec<String> = self.place.iter().map(shown_name).collect();
        parts.join("/")
    }
}

/// A file name as text, one for one (two names never give one text, so a gradebook's names
/// read back into a regrade, issue 36): as it is when it is UTF-8, else with each byte that is
/// not shown as `\xNN`, and a `\` that would read as such an escape (before `x` and two hex
/// digits) shown as `\x5c`.
pub fn shown_name(name: &OsStr) -> String {
    #[cfg(unix)]
    let bytes = {
        use std::os::unix::ffi::OsStrExt;
        name.as_bytes()
    };
    #[cfg(not(unix))]
    let lossy = name.to_string_lossy();
    #[cfg(not(unix))]
    let bytes = lossy.as_bytes();
    let mut shown = String::new();
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        for (at, c) in valid.char_indices() {
            if c == '\\' && reads_as_escape(&valid[at + 1..]) {
                shown.push_str("\\x5c");
            } else {
                shown.push(c);
            }
        }
        for byte in chunk.invalid() {
            shown.push_str(&format!("\\x{byte:02x}"));
        }
    }
    shown
}

/// Whether `after` (what follows a `\`) would make it read as a `\xNN` escape.
fn reads_as_escape(after: &str) -> bool {
    let bytes = after.as_bytes();
    bytes.len() >= 3 && bytes[0] == b'x' && bytes[1..3].iter().all(u8::is_ascii_hexdigit)
}

/// A path given on the command line as reports name it: [`shown_name`] of the whole path.
pub fn path_name(path: &Path) -> String {
    shown_name(path.as_os_str())
}

/// The matrix file found among a learner's files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UploadedMatrix {
    /// Where it is.
    pub path: PathBuf,
    /// Its place in what was handed in, as learners see it ([`HandedIn::name`]).
    pub name: String,
}

/// Whether `name` has a matrix file's extension.
pub fn has_matrix_extension(name: &Path) -> bool {
    name.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| MATRIX_EXTENSIONS.iter().any(|m| m.eq_ignore_ascii_case(e)))
}

/// Whether an entry is what an operating system, a spreadsheet or a tool leaves beside a
/// file (a hidden file or folder, macOS's resource forks, Office's owner files).
fn is_litter(name: &OsStr) -> bool {
    let bytes = name.as_encoded_bytes();
    bytes.starts_with(b".") || bytes.starts_with(b"~$") || name == "__MACOSX"
}

/// Every file of the upload `dir` but what is litter (`is_litter`: hidden folders are not
/// entered), in name order (bytes), folders walked as they come; links are listed, never
/// followed. `Err`: a folder that cannot be read, or one nested too deep.
pub fn files_in_upload(dir: &Path) -> Result<Vec<HandedIn>, InputErrors> {
    let mut files = Vec::new();
    let mut problems = InputErrors::new();
    // Stopped past the most an upload may hold: `problems` says so.
    let _ = walk(dir, &mut PathBuf::new(), 0, &mut files, &mut problems);
    if problems.is_empty() {
        Ok(files)
    } else {
        Err(problems)
    }
}

/// Walks `dir` (at `place` in the upload, `depth` folders down) into `files`; `false` once the
/// upload is found to hold more than [`MAX_UPLOAD_FILES`] files (said in `problems`), and the
/// walk stops.
fn walk(
    dir: &Path,
    place: &mut PathBuf,
    depth: usize,
    files: &mut Vec<HandedIn>,
    problems: &mut InputErrors,
) -> bool {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            let what = if depth == 0 {
                "the upload's folder".to_owned()
            } else {
                format!("folder {}", shown_place(place))
            };
            problems.push(InputError::new(
                ErrorKind::Io,
                UPLOAD,
                0,
                format!("cannot read {what}: {e}"),
            ));
            return true;
        }
    };
    // No more are kept than the upload may hold, however many the folder has.
    let room = MAX_UPLOAD_FILES - files.len();
    let mut entries: Vec<_> = entries.filter_map(Result::ok).take(room + 1).collect();
    if entries.len() > room {
        problems.push(too_many_files());
        return false;
    }
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let name: OsString = entry.file_name();
        if is_litter(&name) {
            continue;
        }
        // The entry itself, not what a link points to.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        place.push(&name);
        if kind.is_dir() {
            if depth < MAX_DEPTH {
                if !walk(&entry.path(), place, depth + 1, files, problems) {
                    return false;
                }
            } else {
                problems.push(InputError::new(
                    ErrorKind::Limit,
                    UPLOAD,
                    0,
                    format!(
                        "folder {} is nested more than {MAX_DEPTH} deep; {HAND_IN}",
                        shown_place(place)
                    ),
                ));
            }
        } else if files.len() == MAX_UPLOAD_FILES {
            problems.push(too_many_files());
            return false;
        } else {
            files.push(HandedIn {
                path: entry.path(),
                place: place.clone(),
                is_link: kind.is_symlink(),
            });
        }
        place.pop();
    }
    true
}

/// The problem of an upload of more than [`MAX_UPLOAD_FILES`] files.
pub fn too_many_files() -> InputError {
    InputError::new(
        ErrorKind::Limit,
        UPLOAD,
        0,
        format!("holds more than {MAX_UPLOAD_FILES} files, the most an upload may hold; {HAND_IN}"),
    )
}

fn shown_place(place: &Path) -> String {
    let parts: Vec<String> = place.iter().map(shown_name).collect();
    parts.join("/")
}

/// What a candidate's first row says it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Looks {
    /// A matrix: its header names `case_id`.
    Matrix,
    /// A case file: its header names `event` and no graded answer.
    CaseFile,
    /// Neither (or not looked at: a link, not a regular file, unreadable).
    Unknown,
}

/// What a header's cells (a CSV header, a sheet's first row, a JSON object's keys) say.
fn looks_of<'a>(cells: impl IntoIterator<Item = &'a str>) -> Looks {
    let (mut case_id, mut answer, mut event) = (false, false, false);
    for cell in cells {
        match column_from_header(cell) {
            Some(Column::CaseId) => case_id = true,
            Some(Column::Decision | Column::Reason) => answer = true,
            _ => {}
        }
        event |= Field::from_normalised(&normalise_header(cell)) == Some(Field::Event);
    }
    match (case_id, answer, event) {
        (true, true, _) | (true, false, false) => Looks::Matrix,
        (_, false, true) => Looks::CaseFile,
        _ => Looks::Unknown,
    }
}

/// Opens `path` to look at, if it is a regular file: not through a link, not waiting on a
/// FIFO.
fn open_to_look(path: &Path) -> Option<File> {
    #[cfg(unix)]
    let file = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path)
            .ok()?
    };
    #[cfg(not(unix))]
    let file = File::open(path).ok()?;
    file.metadata().ok()?.is_file().then_some(file)
}

/// What the file at `path` looks like, by its first row.
fn look(path: &Path) -> Looks {
    let Some(file) = open_to_look(path) else {
        return Looks::Unknown;
    };
    let mut head = Vec::with_capacity(HEADER_BYTES);
    if file
        .take(HEADER_BYTES as u64)
        .read_to_end(&mut head)
        .is_err()
    {
        return Looks::Unknown;
    }
    match sniff(&head) {
        Content::Workbook => look_at_workbook(path),
        Content::NotText(_) => Looks::Unknown,
        Content::Utf16(encoding) => {
            let mut text = Vec::new();
            // The head may end inside a character: only its whole lines are looked at.
            let _ = Utf16Text::new(&head[..], encoding).read_to_end(&mut text);
            look_at_text(&text)
        }
        Content::Text => look_at_text(&head),
    }
}

/// A workbook looks like a matrix if a sheet's first row is a matrix header, like a case
/// file if none is and one's is a case file's.
fn look_at_workbook(path: &Path) -> Looks {
    let Some(file) = open_to_look(path) else {
        return Looks::Unknown;
    };
    // Read in place (a zip archive is read by seeking), within a workbook's limits.
    if crate::limits::check_document_size(&file).is_err() {
        return Looks::Unknown;
    }
    let reader = std::io::BufReader::new(file);
    let Ok(sheets) = crate::input::workbook::first_rows(reader, "workbook") else {
        return Looks::Unknown;
    };
    let looks: Vec<Looks> = sheets
        .iter()
        .filter_map(|sheet| sheet.first_row.as_ref())
        .map(|cells| looks_of(cells.iter().map(String::as_str)))
        .collect();
    if looks.contains(&Looks::Matrix) {
        Looks::Matrix
    } else if looks.contains(&Looks::CaseFile) {
        Looks::CaseFile
    } else {
        Looks::Unknown
    }
}

/// Text looks like what its first non-blank line names: a JSON document by the keys in it
/// (a case file's or a matrix's objects), CSV by its header's cells (split at the commas,
/// semicolons or tabs, whichever makes more cells).
fn look_at_text(text: &[u8]) -> Looks {
    let text = String::from_utf8_lossy(text);
    let text = text.trim_start_matches('\u{feff}').trim_start();
    if text.starts_with('[') || text.starts_with('{') {
        return looks_of(json_keys(text));
    }
    let Some(line) = text.lines().find(|line| !line.trim().is_empty()) else {
        return Looks::Unknown;
    };
    let delimiter = [',', ';', '\t']
        .into_iter()
        .max_by_key(|d| line.matches(*d).count())
        .expect("three delimiters");
    looks_of(
        line.split(delimiter)
            .map(|cell| cell.trim().trim_matches('"')),
    )
}

/// The strings of a JSON text that are followed by `:` (its objects' keys), in its first
/// bytes.
fn json_keys(text: &str) -> Vec<&str> {
    let mut keys = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('"') {
        let after = &rest[open + 1..];
        let mut end = None;
        let mut escaped = false;
        for (index, c) in after.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => {
                    end = Some(index);
                    break;
                }
                _ => escaped = false,
            }
        }
        let Some(end) = end else { break };
        let string = &after[..end];
        rest = &after[end + 1..];
        if rest.trim_start().starts_with(':') {
            keys.push(string);
        }
    }
    keys
}

/// `a, b and 3 more`.
fn listed(names: &[String]) -> String {
    let mut text = names
        .iter()
        .take(QUOTED_NAMES)
        .map(|name| visibly(name))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > QUOTED_NAMES {
        text.push_str(&format!(" and {} more", names.len() - QUOTED_NAMES));
    }
    text
}

/// A name as it is listed among others: each character that takes no room on a screen (a
/// combining accent, a zero-width space or joiner) shown as `\u{301}`, so that two names
/// that differ only there (`réponse.csv` composed and decomposed, as macOS and Windows write
/// it) do not read as one name listed twice; a `\u{` of the name itself as `\x5cu{`.
fn visibly(name: &str) -> String {
    use unicode_width::UnicodeWidthChar;
    let mut shown = String::with_capacity(name.len());
    for (at, c) in name.char_indices() {
        if c == '\\' && name[at..].starts_with("\\u{") {
            shown.push_str("\\x5c");
        } else if c.width() == Some(0) || (c != ' ' && c.is_whitespace()) {
            shown.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            shown.push(c);
        }
    }
    shown
}

/// Finds the learner's matrix among the files they handed in (an upload's, from
/// [`files_in_upload`], or a download's, in any order): the candidates are the files with a
/// matrix file's extension outside hidden folders and litter; of them, the one whose first row
/// is a matrix header, else the one left once the lab's case files are set aside. No such
/// file, several matrices, several files none of which is a matrix, or a matrix that is a
/// symbolic link is why there is none: a problem reported under [`UPLOAD`], in words a learner
/// can act on, naming the files by their place in what they handed in.
pub fn find_learners_matrix(files: &[HandedIn]) -> Result<UploadedMatrix, InputErrors> {
    let problem = |kind: ErrorKind, message: String| {
        Err(InputErrors::one(InputError::new(kind, UPLOAD, 0, message)))
    };
    let mut others = Vec::new();
    let mut candidates = Vec::new();
    for file in files {
        if file.place.iter().any(is_litter) {
            continue;
        }
        if has_matrix_extension(&file.place) {
            candidates.push(file);
        } else {
            others.push(file.name());
        }
    }
    if candidates.is_empty() {
        return if others.is_empty() {
            problem(ErrorKind::Missing, format!("is empty; {HAND_IN}"))
        } else {
            problem(
                ErrorKind::Missing,
                format!(
                    "holds no matrix file (it holds {}); {HAND_IN}",
                    listed(&others)
                ),
            )
        };
    }
    if candidates.len() > MAX_LOOKED_AT {
        let names: Vec<String> = candidates.iter().map(|file| file.name()).collect();
        return problem(
            ErrorKind::Refused,
            format!(
                "holds {} files that could be the matrix ({}); {HAND_IN}",
                names.len(),
                listed(&names)
            ),
        );
    }
    let looked: Vec<(&HandedIn, Looks)> = candidates
        .iter()
        .map(|file| {
            // A link is never opened, not even to look at.
            let looks = if file.is_link {
                Looks::Unknown
            } else {
                look(&file.path)
            };
            (*file, looks)
        })
        .collect();
    let names = |looks: Looks| -> Vec<String> {
        looked
            .iter()
            .filter(|(_, l)| *l == looks)
            .map(|(file, _)| file.name())
            .collect()
    };
    let matrices: Vec<&HandedIn> = looked
        .iter()
        .filter(|(_, l)| *l == Looks::Matrix)
        .map(|(file, _)| *file)
        .collect();
    let chosen = match matrices.as_slice() {
        [one] => *one,
        [] => {
            let rest: Vec<&HandedIn> = looked
                .iter()
                .filter(|(_, l)| *l != Looks::CaseFile)
                .map(|(file, _)| *file)
                .collect();
            match rest.as_slice() {
                [one] => *one,
                [] => {
                    return problem(
                        ErrorKind::Missing,
                        format!(
                            "holds the lab's case file{} {}, not a matrix: {HAND_IN}, filled in \
                         (its first row naming case_id, decision and reason)",
                            if looked.len() == 1 { "" } else { "s" },
                            listed(&names(Looks::CaseFile))
                        ),
                    )
                }
                several => {
                    let names: Vec<String> = several.iter().map(|f| f.name()).collect();
                    return problem(
                        ErrorKind::Refused,
                        format!(
                            "holds {} files that could be the matrix ({}), and none starts with a \
                         matrix header (a first row naming case_id, decision and reason); \
                         {HAND_IN}",
                            several.len(),
                            listed(&names)
                        ),
                    );
                }
            }
        }
        several => {
            let names: Vec<String> = several.iter().map(|f| f.name()).collect();
            return problem(
                ErrorKind::Refused,
                format!(
                    "holds {} matrices ({}): which one is the answer? {HAND_IN}, and no other \
                 matrix beside it",
                    several.len(),
                    listed(&names)
                ),
            );
        }
    };
    if chosen.is_link {
        return problem(
            ErrorKind::Refused,
            format!(
                "{} is a symbolic link, not a file of the upload; hand in the file itself",
                chosen.name()
            ),
        );
    }
    Ok(UploadedMatrix {
        path: chosen.path.clone(),
        name: chosen.name(),
    })
}

/// The one matrix file in the upload `dir` ([`files_in_upload`], then
/// [`find_learners_matrix`]), or why there is not one (reported under [`UPLOAD`]).
pub fn find_matrix(dir: &Path) -> Result<UploadedMatrix, InputErrors> {
    find_learners_matrix(&files_in_upload(dir)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const MATRIX: &str = "case_id,decision,reason\n";
    const CASES: &str = "case_id,event,observed_at,job_id\n";

    fn upload_of(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (file, text) in files {
            let path = dir.path().join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        dir
    }

    fn upload(files: &[&str]) -> tempfile::TempDir {
        let files: Vec<(&str, &str)> = files.iter().map(|f| (*f, MATRIX)).collect();
        upload_of(&files)
    }

    fn message(result: Result<UploadedMatrix, InputErrors>) -> String {
        let errors = result.unwrap_err();
        assert_eq!(errors.len(), 1);
        errors.listed()[0].to_string()
    }

    #[test]
    fn names_listed_together_show_what_takes_no_room() {
        let composed = "r\u{e9}ponse.csv";
        let decomposed = "re\u{301}ponse.csv";
        assert_eq!(
            listed(&[composed.to_owned(), decomposed.to_owned()]),
            "r\u{e9}ponse.csv, re\\u{301}ponse.csv"
        );
        assert_eq!(visibly("a\u{200b}b.csv"), "a\\u{200b}b.csv");
        assert_eq!(visibly("a\\u{200b}b.csv"), "a\\x5cu{200b}b.csv");
        assert_eq!(visibly("my matrix.csv"), "my matrix.csv");
        assert_eq!(visibly("a\\b.csv"), "a\\b.csv");
    }

    #[test]
    fn names_are_shown_one_for_one() {
        use std::ffi::OsStr;
        assert_eq!(shown_name(OsStr::new("réponse.csv")), "réponse.csv");
        assert_eq!(
            shown_name(OsStr::new("r\\xe9ponse.csv")),
            "r\\x5cxe9ponse.csv"
        );
        assert_eq!(shown_name(OsStr::new("a\\b.csv")), "a\\b.csv");
        assert_eq!(shown_name(OsStr::new("a\\x5")), "a\\x5");
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let bytes = |b: &[u8]| shown_name(OsStr::from_bytes(b));
            assert_eq!(bytes(b"r\xe9ponse.csv"), "r\\xe9ponse.csv");
            assert_ne!(bytes(b"r\xe8ponse.csv"), bytes(b"r\xe9ponse.csv"));
            assert_ne!(bytes(b"r\xe9ponse.csv"), bytes(b"r\\xe9ponse.csv"));
        }
    }

    #[test]
    fn the_one_matrix_file_is_found_wherever_it_is() {
        let dir = upload(&["notes.txt", "lab 3/Matrix.CSV", "README.md"]);
        let found = find_matrix(dir.path()).unwrap();
        assert_eq!(found.name, "lab 3/Matrix.CSV");
        assert_eq!(found.path, dir.path().join("lab 3").join("Matrix.CSV"));
    }

    #[test]
    fn what_systems_spreadsheets_and_tools_leave_is_skipped() {
        let dir = upload(&[
            "matrix.xlsx",
            "~$matrix.xlsx",
            ".~lock.matrix.ods#",
            "__MACOSX/._matrix.xlsx",
            "._matrix.xlsx",
            ".hidden/other.csv",
            ".git/objects/pack/data.csv",
            ".github/classroom/autograding.json",
        ]);
        assert_eq!(find_matrix(dir.path()).unwrap().name, "matrix.xlsx");
        // A download's list is held to the same rule.
        let files = [
            HandedIn {
                path: dir.path().join(".github/classroom/autograding.json"),
                place: PathBuf::from(".github/classroom/autograding.json"),
                is_link: false,
            },
            HandedIn {
                path: dir.path().join("matrix.xlsx"),
                place: PathBuf::from("matrix.xlsx"),
                is_link: false,
            },
        ];
        assert_eq!(find_learners_matrix(&files).unwrap().name, "matrix.xlsx");
    }

    #[test]
    fn a_case_file_beside_the_matrix_is_not_a_candidate() {
        // A GitHub starter repository: the lab's case file, the workflow, the matrix.
        let dir = upload_of(&[
            ("data/cases.csv", CASES),
            (".github/workflows/classroom.yml", "on: push\n"),
            ("matrix.csv", MATRIX),
            ("README.md", "# Lab 3\n"),
        ]);
        assert_eq!(find_matrix(dir.path()).unwrap().name, "matrix.csv");
        // By its headings, in any spelling, delimiter or encoding.
        let dir = upload_of(&[
            ("cases.csv", "\u{feff}Case ID;Event;Observed At\n"),
            ("answers.csv", "Case ID;Decision;Reason\n"),
        ]);
        assert_eq!(find_matrix(dir.path()).unwrap().name, "answers.csv");
        let dir = upload_of(&[
            ("cases.json", "[{\"case_id\": \"p\", \"event\": \"offer\"}]"),
            ("m.json", "[{\"case_id\": \"p\", \"decision\": \"ACTIVE\"}]"),
        ]);
        assert_eq!(find_matrix(dir.path()).unwrap().name, "m.json");
        // A case file with the answers added to it is a matrix.
        let dir = upload_of(&[
            ("cases.csv", CASES),
            ("worked.csv", "case_id,event,decision,reason\n"),
        ]);
        assert_eq!(find_matrix(dir.path()).unwrap().name, "worked.csv");
        // Only a case file: said so.
        let dir = upload_of(&[("data/cases.csv", CASES), ("notes.csv", CASES)]);
        assert_eq!(
            message(find_matrix(dir.path())),
            format!(
                "upload: holds the lab's case files data/cases.csv, notes.csv, not a matrix: \
                 {HAND_IN}, filled in (its first row naming case_id, decision and reason)"
            )
        );
        // No matrix header anywhere: the one file left is graded, and says what is wrong.
        let dir = upload_of(&[("cases.csv", CASES), ("answers.csv", "id,verdict\n")]);
        assert_eq!(find_matrix(dir.path()).unwrap().name, "answers.csv");
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
        let dir = upload(&["matrix.csv", "lab/matrix.xlsx"]);
        assert_eq!(
            message(find_matrix(dir.path())),
            format!(
                "upload: holds 2 matrices (lab/matrix.xlsx, matrix.csv): which one is the \
                 answer? {HAND_IN}, and no other matrix beside it"
            )
        );
        let dir = upload_of(&[("a.csv", "x,y\n"), ("b.json", "{}")]);
        assert!(message(find_matrix(dir.path())).starts_with(
            "upload: holds 2 files that could be the matrix (a.csv, b.json), and none starts"
        ));
        let names: Vec<String> = (0..=MAX_LOOKED_AT)
            .map(|i| format!("n{i:03}.csv"))
            .collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let text = message(find_matrix(upload(&names).path()));
        assert!(
            text.starts_with("upload: holds 101 files that could be the matrix (n000.csv, "),
            "{text}"
        );
        let names: Vec<String> = (0..12).map(|i| format!("m{i:02}.csv")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let text = message(find_matrix(upload(&names).path()));
        assert!(text.contains("holds 12 matrices (m00.csv, "), "{text}");
        assert!(text.contains("m09.csv and 2 more)"), "{text}");
        let missing = tempfile::tempdir().unwrap().path().join("gone");
        assert!(
            message(find_matrix(&missing)).starts_with("upload: cannot read the upload's folder: ")
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_name_that_is_not_utf8_is_found_and_shown_escaped() {
        use std::os::unix::ffi::OsStrExt;
        let dir = upload(&["notes.txt"]);
        let name = OsStr::from_bytes(b"r\xe9ponse.csv");
        fs::write(dir.path().join(name), MATRIX).unwrap();
        let found = find_matrix(dir.path()).unwrap();
        assert_eq!(found.name, "r\\xe9ponse.csv");
        assert_eq!(found.path, dir.path().join(name));
        assert_eq!(fs::read_to_string(&found.path).unwrap(), MATRIX);
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
        // A link beside a matrix is never opened to be looked at, and the matrix is found.
        let dir = upload(&["matrix.csv"]);
        std::os::unix::fs::symlink(outside.path().join("key.csv"), dir.path().join("key.csv"))
            .unwrap();
        assert_eq!(find_matrix(dir.path()).unwrap().name, "matrix.csv");
    }
}
