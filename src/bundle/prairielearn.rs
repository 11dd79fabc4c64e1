//! A PrairieLearn autograder: a question directory (`info.json`, `question.html`, and in
//! `tests/` the script, the key, the case files when hints cite them and the binary unless
//! the course shares it), written whole and swapped into place; a question leasejudge wrote
//! before is replaced, keeping its uuid.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::grading::Column;
use crate::ops::{usage, Status};
use crate::output::OutputDir;
use crate::report::class_text::number;

use super::binary::{CLibrary, GlibcVersion};
use super::carried::carried;
use super::course::share_binary;
use super::prepare::{needs, prepare, Inputs, Prepared};
use super::question_dir::{existing_question, nothing_added};
use super::{
    info_json, question_html, run_script, say, Autograder, BinaryAt, QuestionHash,
    RunScript, BINARY, CLIENT_FILES, RUN,
};

/// PrairieLearn: `/grade`, the upload in `student/`, the bundle in `tests/`.
pub(super) const SCRIPT: RunScript = RunScript {
    results: &crate::report::prairielearn::RESULTS,
    root: "/grade",
    bundle: "tests",
    upload: "student",
    how: "# PrairieLearn's grader runs this for each submission as the question's entrypoint,\n\
          # /grade/tests/run_autograder (made executable first): the upload is in\n\
          # /grade/student, and the results go to /grade/results/results.json.",
    makes_executable: true,
    lists_wrote: true,
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

/// A PrairieLearn question to build.
#[derive(Clone, Debug)]
pub struct PrairieLearnOptions {
    /// What it is built from.
    pub inputs: Inputs,
    /// A question of its own to write (its name is the question's QID).
    pub output: Option<PathBuf>,
    /// The course to write the question into, as `COURSE_DIR/questions/QID`, the binary
    /// shared in its `serverFilesCourse/`.
    pub course: Option<PathBuf>,
    /// The question's id in the course.
    pub qid: Option<String>,
    /// The grading image.
    pub image: String,
    /// Seconds a grading job may take.
    pub timeout: u32,
    /// The question's uuid [default: kept from the question being replaced, else derived].
    pub uuid: Option<String>,
    /// The question's title.
    pub title: String,
    /// The question's topic.
    pub topic: String,
    /// Whether the question carries the lab's case files and the blank matrix in
    /// `clientFilesQuestion/` for learners to download (never the key).
    pub client_files: bool,
}

impl Autograder for PrairieLearnOptions {
    fn build(&self) -> Result<Status> {
        prairielearn(self)
    }
}

/// Builds the question `options` describe and says what it holds and how to set it up.
fn prairielearn(options: &PrairieLearnOptions) -> Result<Status> {
    let place = question_place(options)?;
    let existing = existing_question(&place.dir)?;
    let prepared = prepare(&options.inputs, None, &place.dir)?;
    let image = known_image(&options.image, prepared.c_library.glibc()).map_err(|e| usage(&e))?;
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
        write_question(options, &place, &prepared, existing, binary_at, binary_file)?;
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
            options.image
        )?,
        (Some((name, system, has)), CLibrary::Shared(_)) => writeln!(
            out,
            "leasejudge: graded on {name} ({system}, glibc {has}); {sync}"
        )?,
        (None, CLibrary::Shared(glibc)) => writeln!(
            out,
            "leasejudge: graded on {}: make sure it has glibc {} or later; {sync}",
            options.image,
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
        crate::terminal::to_stderr_wrapped(&format!("leasejudge: warning: {warning}"));
    }
    Ok(Status::Success)
}

/// pl-file-upload's limit on an answer's files ("maxFileSizeMB = 5", compared with
/// `* 1024 * 1024` in PrairieLearn's `elements/pl-file-upload/pl-file-upload.js`).
const UPLOAD_LIMIT: u64 = 5 * 1024 * 1024;

/// The warning for a lab whose full matrix, `bytes` as CSV, is more than pl-file-upload
/// takes: learners then hand in the graded `columns` only.
fn upload_warning(bytes: u64, columns: &[Column]) -> Option<String> {
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
fn question_place(options: &PrairieLearnOptions) -> Result<QuestionPlace> {
    let (dir, qid, course) = match (&options.output, &options.course, &options.qid) {
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

/// Writes what learners download from the question's page into its `clientFilesQuestion/`:
/// the case files by their own names, and the blank matrix as `blank`.
fn write_client_files(out: &OutputDir, prepared: &Prepared, blank: &str) -> Result<()> {
    let open = |path: &Path| carried(&prepared.stamps, path);
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
    let mut matrix = Vec::new();
    crate::grading::template::write_blank_matrix(&sources, &prepared.options.columns, &mut matrix)?;
    out.write_file(
        &format!("{CLIENT_FILES}/{blank}"),
        0o644,
        &mut matrix.as_slice(),
    )?;
    Ok(())
}

/// Writes the PrairieLearn question directory atomically: its `tests/` holds the script, the
/// key, the case files only when hints cite them, and the binary unless the course shares
/// it; `shared` (the course's binary, ready) is renamed into place with it. Returns its uuid
/// and what `tests/` holds.
fn write_question(
    options: &PrairieLearnOptions,
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
    if prepared.options.feedback.needs_cases() {
        carried_names.extend(prepared.cases.iter().map(|(_, name)| name.clone()));
    }
    if binary_at == BinaryAt::Bundle {
        carried_names.push(BINARY.to_owned());
    }
    // What learners download from the question's page: the case files by their own names
    // (a hint names the file they have) and the blank matrix; never the key.
    let downloads: Vec<String> = if options.client_files {
        let mut names: Vec<String> = prepared
            .cases
            .iter()
            .map(|(_, name)| name.clone())
            .collect();
        names.push(blank_name(&names));
        names
    } else {
        Vec::new()
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
    let run = run_script(&SCRIPT, &prepared.options, binary_at, &wrote);
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
    if prepared.options.feedback.needs_cases() {
        for (case_file, name) in &prepared.cases {
            out.write_file(&format!("tests/{name}"), 0o644, &mut open(case_file)?)?;
        }
    }
    let uuid = options
        .uuid
        .clone()
        .or(existing)
        .unwrap_or_else(|| hash.uuid());
    let info = info_json(
        &uuid,
        &options.title,
        &options.topic,
        &options.image,
        options.timeout,
        binary_at,
    );
    out.write_file("info.json", 0o644, &mut info.as_bytes())?;
    if let Some(blank) = downloads.last() {
        write_client_files(&out, prepared, blank)?;
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
    fn a_lab_whose_full_matrix_passes_the_upload_limit_is_warned_of() {
        let columns = [
            crate::grading::Column::Decision,
            crate::grading::Column::Reason,
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
