//! The autograders `leasejudge autograder` writes, run as their platforms document running
//! them (issue 22).
//!
//! Gradescope (its autograder specification and sample Dockerfile): the zip is extracted to
//! `/autograder/source`, `run_autograder` is copied to `/autograder/run_autograder` and made
//! executable, `bash /autograder/source/setup.sh` runs once; for each submission the upload is
//! put in `/autograder/submission`, `/autograder/results` exists (the harness writes the
//! script's output to `results/stdout`), and `/autograder/run_autograder` runs from
//! `/autograder`. PrairieLearn (its grader host): the question's `tests/` is copied to
//! `/grade/tests`, the upload's files to `/grade/student`, `/grade/results` does not exist, the
//! entrypoint named in `info.json` is made executable and run directly (no shell), and
//! `results.json` is read only if it exits 0 and is at most 1 MiB.
//!
//! Here the root is a scratch directory (`LEASEJUDGE_AUTOGRADER_ROOT`); every run must exit
//! 0 with results that parse and carry the platform's fields, on submissions right, wrong,
//! malformed, empty, of two files, nested, linked to the key and of 20,000 cases.

#![cfg(unix)]

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, Once, OnceLock};

use serde_json::Value;

use crate::common::{copy_tree, text};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/autograder")
        .join(name)
}

fn leasejudge(args: &[&str], cwd: &Path) -> Output {
    crate::common::leasejudge(args)
        .dir(cwd)
        .env("NO_COLOR", "1")
        .output()
}

/// Runs `command`, again when the file it executes is still open for writing in a process
/// another test thread forked at that moment ("Text file busy": the scripts are copied, and
/// the binary extracted, just before they run). The scripts' `exec ... 2>&1` says so on
/// standard output, with the shell's 126 for a command that could not be run. Nothing else
/// is retried.
fn output_of(command: &mut Command) -> Output {
    let busy = |output: &Output| {
        output.status.code() == Some(126)
            && (text(&output.stdout) + &text(&output.stderr)).contains("Text file busy")
    };
    for _ in 0..100 {
        match command.output() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Ok(output) if busy(&output) => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            output => return output.unwrap(),
        }
    }
    panic!("{command:?}: the file stayed busy");
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// Extracts `zip` into `into` as `unzip` does, Unix modes included.
fn extract(zip: &Path, into: &Path) {
    let mut archive = zip::ZipArchive::new(fs::File::open(zip).unwrap()).unwrap();
    for index in 0..archive.len() {
        let mut entry = archive.by_index(index).unwrap();
        let path = into.join(entry.enclosed_name().unwrap());
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).unwrap();
        fs::write(&path, bytes).unwrap();
        if let Some(mode) = entry.unix_mode() {
            set_mode(&path, mode & 0o777);
        }
    }
}

/// An autograder for each platform, built once from `tests/data/autograder`, and
/// Gradescope's image of its zip (extracted, `setup.sh` run).
struct Bundles {
    zip: PathBuf,
    image: PathBuf,
    question: PathBuf,
}

/// Builds a Gradescope autograder with `args` and makes its image as Gradescope does.
fn gradescope_image(dir: &Path, name: &str, args: &[&str]) -> (PathBuf, PathBuf) {
    let zip = dir.join(format!("{name}.zip"));
    let mut all = vec!["autograder", "gradescope"];
    all.extend_from_slice(args);
    all.extend(["-o", zip.to_str().unwrap()]);
    let built = leasejudge(&all, dir);
    assert_eq!(built.status.code(), Some(0), "{}", text(&built.stderr));
    let image = dir.join(format!("{name}-image"));
    extract(&zip, &image.join("source"));
    fs::copy(
        image.join("source/run_autograder"),
        image.join("run_autograder"),
    )
    .unwrap();
    set_mode(&image.join("run_autograder"), 0o755);
    let setup = output_of(
        Command::new("bash")
            .arg(image.join("source/setup.sh"))
            .current_dir(&image),
    );
    assert!(setup.status.success(), "setup.sh: {}", text(&setup.stderr));
    assert!(text(&setup.stdout).starts_with("leasejudge "));
    (zip, image)
}

/// The scratch directories made once per test process and shared by its tests, removed
/// when the process exits: statics are never dropped, and a `TempDir` in one was left in
/// the temporary directory by every run (a bundle holds three copies of the 90 MB debug
/// binary; `cargo nextest`, a process per test, left one per test).
static SHARED_DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A new scratch directory, removed at exit.
fn shared_dir() -> PathBuf {
    extern "C" fn remove_shared_dirs() {
        if let Ok(dirs) = SHARED_DIRS.lock() {
            for dir in dirs.iter() {
                let _ = fs::remove_dir_all(dir);
            }
        }
    }
    static AT_EXIT: Once = Once::new();
    // SAFETY: atexit(3) registers a function taking and returning nothing.
    AT_EXIT.call_once(|| assert_eq!(unsafe { libc::atexit(remove_shared_dirs) }, 0));
    let dir = tempfile::tempdir().unwrap().keep();
    SHARED_DIRS.lock().unwrap().push(dir.clone());
    dir
}

fn bundles() -> &'static Bundles {
    static BUNDLES: OnceLock<Bundles> = OnceLock::new();
    BUNDLES.get_or_init(|| {
        let dir = shared_dir();
        let key = data("key.csv");
        let cases = data("cases.csv");
        let common = [
            "--golden",
            key.to_str().unwrap(),
            "--cases",
            cases.to_str().unwrap(),
        ];
        let (zip, image) = gradescope_image(&dir, "autograder", &common);
        let question = dir.join("lab-1");
        let mut args = vec!["autograder", "prairielearn"];
        args.extend(common);
        args.extend(["-o", question.to_str().unwrap()]);
        let built = leasejudge(&args, &dir);
        assert_eq!(built.status.code(), Some(0), "{}", text(&built.stderr));
        Bundles {
            zip,
            image,
            question,
        }
    })
}

/// What a learner handed in: files by their place in the upload.
enum Put {
    /// A copy of a file of `tests/data/autograder`.
    Copy(&'static str),
    /// A file with these bytes.
    Bytes(Vec<u8>),
    /// A symbolic link to the key, by its absolute path.
    LinkToKey,
    /// A symbolic link to the key, by a relative path.
    RelativeLinkToKey,
    /// A hard link to the key.
    HardLinkToKey,
    /// A copy of a file of `tests/data/autograder` under a name of these bytes, in the folder
    /// the entry names (not UTF-8: a Windows zip unpacked by Info-ZIP).
    RawName(&'static [u8], &'static str),
}

/// One run of an autograder.
struct Run {
    code: Option<i32>,
    /// The script's output (standard output and error), which only instructors see.
    output: String,
    /// The results, as the platform reads them (PrairieLearn: only after exit 0).
    results: Option<Value>,
    bytes: usize,
}

/// Lays out `files` in `upload` (a folder of `root`, where the bundle's key is `key`).
fn put(root: &Path, upload: &Path, key: &Path, files: &[(&str, Put)]) {
    fs::create_dir_all(upload).unwrap();
    for (name, what) in files {
        let path = upload.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        match what {
            Put::Copy(from) => {
                fs::copy(data(from), &path).unwrap();
            }
            Put::Bytes(bytes) => fs::write(&path, bytes).unwrap(),
            Put::LinkToKey => std::os::unix::fs::symlink(key, &path).unwrap(),
            Put::RelativeLinkToKey => {
                let depth = path.strip_prefix(root).unwrap().components().count() - 1;
                let relative =
                    "../".repeat(depth) + key.strip_prefix(root).unwrap().to_str().unwrap();
                std::os::unix::fs::symlink(relative, &path).unwrap();
            }
            Put::HardLinkToKey => fs::hard_link(key, &path).unwrap(),
            Put::RawName(name, from) => {
                use std::os::unix::ffi::OsStrExt;
                fs::create_dir_all(&path).unwrap();
                let name = std::ffi::OsStr::from_bytes(name);
                fs::copy(data(from), path.join(name)).unwrap();
            }
        }
    }
}

/// Runs the Gradescope autograder of `image` on `files`, as Gradescope does.
fn gradescope_run(image: &Path, files: &[(&str, Put)]) -> Run {
    gradescope_run_after(image, files, &|_| {})
}

/// [`gradescope_run`], `before` done to the root (`/autograder`) just before the run.
fn gradescope_run_after(image: &Path, files: &[(&str, Put)], before: &dyn Fn(&Path)) -> Run {
    let root = tempfile::tempdir().unwrap();
    copy_tree(&image.join("source"), &root.path().join("source"));
    fs::copy(
        image.join("run_autograder"),
        root.path().join("run_autograder"),
    )
    .unwrap();
    let key = root.path().join("source/golden.csv");
    put(root.path(), &root.path().join("submission"), &key, files);
    fs::create_dir_all(root.path().join("results")).unwrap();
    before(root.path());
    let ran = output_of(
        Command::new(root.path().join("run_autograder"))
            .current_dir(root.path())
            .env("LEASEJUDGE_AUTOGRADER_ROOT", root.path()),
    );
    let output = text(&ran.stdout) + &text(&ran.stderr);
    fs::write(root.path().join("results/stdout"), &output).unwrap();
    let results = fs::read(root.path().join("results/results.json")).ok();
    Run {
        code: ran.status.code(),
        output,
        bytes: results.as_ref().map_or(0, Vec::len),
        results: results.map(|bytes| {
            let results: Value = serde_json::from_slice(&bytes).expect("results.json parses");
            gradescope_schema(&results);
            results
        }),
    }
}

/// Runs the PrairieLearn question `question` on `files`, as its grader host does.
fn prairielearn_run(question: &Path, files: &[(&str, Put)]) -> Run {
    prairielearn_run_after(question, files, &|_| {})
}

/// [`prairielearn_run`], `before` done to the root (`/grade`) just before the run. The files
/// its `info.json` names in `externalGradingOptions.serverFilesCourse` are copied from the
/// course's `serverFilesCourse/` to `/grade/serverFilesCourse/`, as `buildDirectory` in
/// `apps/prairielearn/src/lib/externalGraderCommon.ts` copies them (the course is the
/// directory that holds `questions/`).
fn prairielearn_run_after(question: &Path, files: &[(&str, Put)], before: &dyn Fn(&Path)) -> Run {
    let root = tempfile::tempdir().unwrap();
    copy_tree(&question.join("tests"), &root.path().join("tests"));
    fs::create_dir_all(root.path().join("serverFilesCourse")).unwrap();
    let info: Value =
        serde_json::from_slice(&fs::read(question.join("info.json")).unwrap()).unwrap();
    if let Some(shared) = info["externalGradingOptions"]["serverFilesCourse"].as_array() {
        let course = question
            .ancestors()
            .find(|dir| dir.file_name().is_some_and(|n| n == "questions"))
            .and_then(Path::parent)
            .expect("a question of a course");
        for entry in shared {
            let entry = entry.as_str().unwrap();
            copy_tree(
                &course.join("serverFilesCourse").join(entry),
                &root.path().join("serverFilesCourse").join(entry),
            );
        }
    }
    fs::create_dir_all(root.path().join("data")).unwrap();
    fs::write(root.path().join("data/data.json"), "{}").unwrap();
    let key = root.path().join("tests/golden.csv");
    put(root.path(), &root.path().join("student"), &key, files);
    assert!(!root.path().join("results").exists());
    before(root.path());
    let entrypoint = info["externalGradingOptions"]["entrypoint"]
        .as_str()
        .unwrap();
    let inside = entrypoint.strip_prefix("/grade/").expect("under /grade");
    let entrypoint = root.path().join(inside);
    // grader-host: `chmod +x` an entrypoint under /grade, then Docker runs it (no shell).
    set_mode(&entrypoint, mode(&entrypoint) | 0o111);
    let ran = output_of(
        Command::new(&entrypoint)
            .current_dir("/")
            .env("LEASEJUDGE_AUTOGRADER_ROOT", root.path()),
    );
    let output = text(&ran.stdout) + &text(&ran.stderr);
    // `succeeded = !timedOut && ExitCode === 0`; then results.json, refused over 1 MiB.
    let results = ran
        .status
        .success()
        .then(|| fs::read(root.path().join("results/results.json")).ok())
        .flatten();
    Run {
        code: ran.status.code(),
        output,
        bytes: results.as_ref().map_or(0, Vec::len),
        results: results.map(|bytes| {
            assert!(
                bytes.len() <= 1024 * 1024,
                "PrairieLearn refuses results over 1 MiB"
            );
            let results: Value = serde_json::from_slice(&bytes).expect("results.json parses");
            prairielearn_schema(&results);
            results
        }),
    }
}

fn keys_among(object: &Value, allowed: &[&str], what: &str) {
    for key in object.as_object().unwrap().keys() {
        assert!(
            allowed.contains(&key.as_str()),
            "{what}: {key} is not in the schema"
        );
    }
}

const VISIBILITIES: [&str; 4] = ["hidden", "after_due_date", "after_published", "visible"];
const FORMATS: [&str; 5] = ["text", "html", "simple_format", "md", "ansi"];

/// Gradescope's results.json fields (its autograder specification).
fn gradescope_schema(results: &Value) {
    keys_among(
        results,
        &[
            "score",
            "execution_time",
            "output",
            "output_format",
            "test_output_format",
            "test_name_format",
            "visibility",
            "stdout_visibility",
            "extra_data",
            "tests",
            "leaderboard",
        ],
        "results.json",
    );
    assert!(results["score"].is_number());
    assert!(results["output"].is_string());
    // Learner text is plain text everywhere: the top level's default renders HTML.
    for key in ["output_format", "test_output_format", "test_name_format"] {
        assert_eq!(results[key], "text", "{key}");
        assert!(FORMATS.contains(&results[key].as_str().unwrap()));
    }
    assert!(VISIBILITIES.contains(&results["visibility"].as_str().unwrap()));
    for test in results["tests"].as_array().unwrap() {
        keys_among(
            test,
            &[
                "score",
                "max_score",
                "status",
                "name",
                "name_format",
                "number",
                "output",
                "output_format",
                "tags",
                "visibility",
                "extra_data",
            ],
            "a test",
        );
        assert!(test["name"].is_string());
        assert!(test["output"].is_string());
        assert!(["passed", "failed"].contains(&test["status"].as_str().unwrap()));
        assert!(VISIBILITIES.contains(&test["visibility"].as_str().unwrap()));
        assert_eq!(test.get("score").is_some(), test.get("max_score").is_some());
    }
}

/// PrairieLearn's results fields (its external grading documentation and
/// pl-external-grader-results).
fn prairielearn_schema(results: &Value) {
    keys_among(
        results,
        &[
            "gradable",
            "score",
            "message",
            "output",
            "format_errors",
            "tests",
        ],
        "results.json",
    );
    let gradable = results["gradable"].as_bool().unwrap();
    assert!(results["message"].is_string());
    if gradable {
        let score = results["score"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&score));
        assert!(results["output"].is_string());
        for test in results["tests"].as_array().unwrap() {
            keys_among(test, &["name", "points", "max_points", "message"], "a test");
            assert!(test["name"].is_string() && test["message"].is_string());
            // One test without points turns off every test's points display.
            assert!(test["points"].is_number() && test["max_points"].is_number());
        }
    } else {
        let errors = results["format_errors"].as_array().unwrap();
        assert!(!errors.is_empty() && errors.iter().all(Value::is_string));
    }
}

fn gradescope(files: &[(&str, Put)]) -> Run {
    gradescope_run(&bundles().image, files)
}

fn prairielearn(files: &[(&str, Put)]) -> Run {
    prairielearn_run(&bundles().question, files)
}

/// A run's results: it exited 0 and wrote them.
fn graded(run: &Run) -> Value {
    assert_eq!(run.code, Some(0), "{}", run.output);
    run.results.clone().expect("results were written")
}

fn test_named<'a>(results: &'a Value, name: &str) -> &'a Value {
    results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no test {name}: {results}"))
}

#[test]
fn the_zip_has_its_scripts_at_the_root_and_carries_everything() {
    let zip = &bundles().zip;
    let mut archive = zip::ZipArchive::new(fs::File::open(zip).unwrap()).unwrap();
    let mut names: Vec<(String, u32)> = (0..archive.len())
        .map(|i| {
            let entry = archive.by_index(i).unwrap();
            // Dated the zip format's first day: the same inputs, the same bytes.
            assert_eq!(entry.last_modified(), Some(zip::DateTime::default()));
            (entry.name().to_owned(), entry.unix_mode().unwrap() & 0o777)
        })
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ("cases.csv".to_owned(), 0o644),
            ("golden.csv".to_owned(), 0o644),
            ("leasejudge".to_owned(), 0o755),
            ("run_autograder".to_owned(), 0o755),
            ("setup.sh".to_owned(), 0o755),
        ]
    );
    let carried = bundles().image.join("source");
    assert_eq!(
        fs::read(carried.join("leasejudge")).unwrap(),
        fs::read(env!("CARGO_BIN_EXE_leasejudge")).unwrap(),
        "the running binary itself"
    );
    assert_eq!(
        fs::read(carried.join("golden.csv")).unwrap(),
        fs::read(data("key.csv")).unwrap()
    );
    let setup = fs::read_to_string(carried.join("setup.sh")).unwrap();
    // The binary is the statically linked build: any base image runs it.
    assert!(
        setup.contains("(statically linked: any image runs it)"),
        "{setup}"
    );
    for network in ["apt", "curl", "wget", "pip"] {
        assert!(
            !setup.contains(network),
            "setup.sh needs no network: {setup}"
        );
    }
    // The platform's paths are the default.
    let run = fs::read_to_string(carried.join("run_autograder")).unwrap();
    assert!(run.starts_with("#!/bin/sh\n"));
    assert!(run.contains("${LEASEJUDGE_AUTOGRADER_ROOT:-/autograder}"));
}

#[test]
fn right_and_wrong_submissions_are_graded_on_both_platforms() {
    let run = gradescope(&[("matrix.csv", Put::Copy("right.csv"))]);
    let results = graded(&run);
    assert_eq!(results["score"], 4);
    assert!(results["output"]
        .as_str()
        .unwrap()
        .starts_with("Score: 4/4 (100.0%)"));
    assert!(results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["status"] == "passed"));
    // The script's output is the instructor's.
    assert!(
        run.output.contains("matrix.csv: 4/4 (100.0%)"),
        "{}",
        run.output
    );

    let results = graded(&gradescope(&[("ben.csv", Put::Copy("wrong.csv"))]));
    assert_eq!(results["score"], 1);
    let output = results["output"].as_str().unwrap();
    assert!(output.contains("warning: ben.csv:6: probe-5: this case is not in the key"));
    assert_eq!(
        test_named(&results, "probe-4")["output"],
        "decision: CANCELLED is wrong\nreason: result_accepted is wrong"
    );
    assert!(
        !text(results.to_string().as_bytes()).contains("RECONCILIATION_REQUIRED"),
        "no golden value"
    );

    let results = graded(&prairielearn(&[("matrix.csv", Put::Copy("right.csv"))]));
    assert_eq!(results["gradable"], true);
    assert_eq!(results["score"], 1.0);
    let results = graded(&prairielearn(&[("dee.json", Put::Copy("wrong.json"))]));
    assert_eq!(results["gradable"], true);
    assert_eq!(results["score"], 0.25);
    assert_eq!(results["message"], "Score: 1/4 (25.0%)");
    assert_eq!(
        test_named(&results, "probe-3")["message"],
        "reason: within_lease is wrong"
    );
}

#[test]
fn a_malformed_submission_is_ungradable_and_the_run_still_succeeds() {
    let results = graded(&gradescope(&[("cy.csv", Put::Copy("malformed.csv"))]));
    assert_eq!(results["score"], 0);
    let output = results["output"].as_str().unwrap();
    assert!(
        output.contains("cy.csv:4: case_id: duplicated case id"),
        "{output}"
    );
    let results = graded(&prairielearn(&[("cy.csv", Put::Copy("malformed.csv"))]));
    assert_eq!(results["gradable"], false);
    assert!(results["format_errors"][0]
        .as_str()
        .unwrap()
        .starts_with("cy.csv:4: case_id: duplicated case id"));
}

#[test]
fn an_empty_upload_or_one_without_a_matrix_is_ungradable() {
    for files in [vec![], vec![("notes.txt", Put::Copy("notes.txt"))]] {
        let results = graded(&gradescope(&files));
        assert_eq!(results["score"], 0);
        let output = results["output"].as_str().unwrap();
        assert!(
            output.starts_with("upload: is empty")
                || output.starts_with("upload: holds no matrix file (it holds notes.txt)"),
            "{output}"
        );
        let results = graded(&prairielearn(&files));
        assert_eq!(results["gradable"], false);
        assert!(results["format_errors"][0]
            .as_str()
            .unwrap()
            .contains("hand in the matrix as one .csv"));
    }
}

#[test]
fn two_matrices_are_ungradable_and_what_is_not_a_matrix_beside_one_is_ignored() {
    let two = [
        ("matrix.csv", Put::Copy("right.csv")),
        ("lab/copy.csv", Put::Copy("wrong.csv")),
    ];
    let results = graded(&gradescope(&two));
    assert!(results["output"]
        .as_str()
        .unwrap()
        .starts_with("upload: holds 2 matrices (lab/copy.csv, matrix.csv): which one"));
    let results = graded(&prairielearn(&two));
    assert_eq!(results["gradable"], false);
    assert!(results["format_errors"][0]
        .as_str()
        .unwrap()
        .contains("holds 2 matrices"));

    // A note, a JSON file that is no matrix, the lab's case file: not candidates.
    for beside in [
        ("notes.txt", Put::Copy("notes.txt")),
        ("notes.json", Put::Copy("notes.json")),
        ("data/cases.csv", Put::Copy("cases.csv")),
    ] {
        let with = [("matrix.csv", Put::Copy("right.csv")), beside];
        assert_eq!(graded(&gradescope(&with))["score"], 4);
        assert_eq!(graded(&prairielearn(&with))["score"], 1.0);
    }
}

#[test]
fn a_matrix_in_folders_is_found_and_named_by_its_place() {
    let nested = [
        ("lab 1/answers/ben.csv", Put::Copy("wrong.csv")),
        // What macOS puts in a zip beside the file.
        (
            "__MACOSX/lab 1/answers/._ben.csv",
            Put::Bytes(b"\0\x05\x16\x07".to_vec()),
        ),
        ("lab 1/.DS_Store", Put::Bytes(vec![0; 8])),
    ];
    let results = graded(&gradescope(&nested));
    assert_eq!(results["score"], 1);
    assert!(results["output"]
        .as_str()
        .unwrap()
        .contains("warning: lab 1/answers/ben.csv:6: probe-5"));
    let results = graded(&prairielearn(&nested));
    assert_eq!(results["score"], 0.25);
    assert!(results["output"]
        .as_str()
        .unwrap()
        .contains("lab 1/answers/ben.csv:6"));
}

#[test]
fn a_symbolic_link_to_the_key_is_ungradable() {
    for link in [Put::LinkToKey, Put::RelativeLinkToKey] {
        let files = [("matrix.csv", link)];
        let run = gradescope(&files);
        let results = graded(&run);
        assert_eq!(results["score"], 0, "{results}");
        let output = results["output"].as_str().unwrap();
        assert!(output.contains("matrix.csv is a symbolic link"), "{output}");
        assert!(!output.contains("golden"), "the key is not named: {output}");
        let run = prairielearn(&files);
        let results = graded(&run);
        assert_eq!(results["gradable"], false);
    }
}

/// A hard link is a regular file of the upload: only the open file's link count and inode
/// tell it from the key (grading::submission_file).
#[test]
fn a_hard_link_to_the_key_is_ungradable() {
    let files = [("matrix.csv", Put::HardLinkToKey)];
    let results = graded(&gradescope(&files));
    assert_eq!(results["score"], 0, "{results}");
    let results = graded(&prairielearn(&files));
    assert_eq!(results["gradable"], false, "{results}");
}

#[test]
fn learner_text_stays_plain_text() {
    let files = [("markup.csv", Put::Copy("markup.csv"))];
    let results = graded(&gradescope(&files));
    let probe_1 = test_named(&results, "probe-1")["output"].as_str().unwrap();
    assert!(
        probe_1.starts_with("decision: x<script>alert(1)</script> is wrong"),
        "{probe_1}"
    );
    let probe_2 = test_named(&results, "probe-2")["output"].as_str().unwrap();
    assert!(
        probe_2.starts_with("reason: \\u{1b}[31mexpired_without_result is wrong"),
        "{probe_2}"
    );
    // PrairieLearn escapes <, > and & itself (ansi2html); an escape character would colour the page.
    let results = graded(&prairielearn(&files));
    let probe_2 = test_named(&results, "probe-2")["message"].as_str().unwrap();
    assert!(!probe_2.contains('\u{1b}'), "{probe_2}");
}

#[test]
fn a_key_broken_after_the_build_fails_the_run_and_tells_the_instructor() {
    // Gradescope: no results.json is "The autograder failed to execute correctly", not a 0.
    let image = tempfile::tempdir().unwrap();
    copy_tree(&bundles().image, image.path());
    let key = image.path().join("source/golden.csv");
    let broken = fs::read_to_string(&key)
        .unwrap()
        .replace("probe-2,", "probe-1,");
    fs::write(&key, broken).unwrap();
    let run = gradescope_run(image.path(), &[("matrix.csv", Put::Copy("right.csv"))]);
    assert_ne!(run.code, Some(0));
    assert!(run.results.is_none(), "no results, so no score is recorded");
    assert!(
        run.output
            .contains("the answer key golden.csv cannot be used"),
        "{}",
        run.output
    );
    assert!(
        run.output
            .contains("golden.csv:3: case_id: duplicated case id"),
        "{}",
        run.output
    );
    // PrairieLearn: the job fails, so the submission is not gradable and costs no attempt.
    let question = tempfile::tempdir().unwrap();
    copy_tree(&bundles().question, question.path());
    fs::write(
        question.path().join("tests/golden.csv"),
        "case_id,decision\nprobe-1,ACTIVE\n",
    )
    .unwrap();
    let run = prairielearn_run(question.path(), &[("matrix.csv", Put::Copy("right.csv"))]);
    assert_ne!(run.code, Some(0));
    assert!(run.results.is_none());
    assert!(
        run.output
            .contains("golden.csv:1: header: no column for the graded column reason"),
        "{}",
        run.output
    );
}

#[test]
fn hidden_results_show_a_learner_nothing_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let key = data("key.csv");
    let cases = data("cases.csv");
    let (_, image) = gradescope_image(
        dir.path(),
        "hidden",
        &[
            "--golden",
            key.to_str().unwrap(),
            "--cases",
            cases.to_str().unwrap(),
            "--visibility",
            "hidden",
            "--feedback",
            "none",
        ],
    );
    let results = graded(&gradescope_run(
        &image,
        &[("ben.csv", Put::Copy("wrong.csv"))],
    ));
    assert_eq!(results["visibility"], "hidden");
    assert_eq!(
        results["output"],
        "Your submission was received. Its results are not shown. The test \"Check of the \
         upload\", shown now, says how the file was read."
    );
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(
        tests.len(),
        2,
        "the check, and a hidden test that hides the total score"
    );
    assert_eq!(tests[0]["name"], "Check of the upload");
    assert_eq!(tests[0]["visibility"], "visible");
    assert!(
        tests[0].get("score").is_none(),
        "the check carries no points"
    );
    assert_eq!(tests[1]["visibility"], "hidden");
    assert!(tests[1]["output"]
        .as_str()
        .unwrap()
        .starts_with("Score: 1/4"));
}

/// `count` generated cases and their golden matrix in `dir`, and a submission that answers
/// every case ACTIVE within_lease.
fn large_lab(dir: &Path, count: usize) -> (PathBuf, PathBuf, PathBuf) {
    let cases = dir.join("big.csv");
    let key = dir.join("big.golden.csv");
    let made = leasejudge(
        &[
            "generate",
            "--cases",
            &count.to_string(),
            "--seed",
            "22",
            "-o",
            "big.csv",
            "--golden",
            "big.golden.csv",
        ],
        dir,
    );
    assert!(made.status.success(), "{}", text(&made.stderr));
    let mut submission = String::from("case_id,decision,reason\n");
    let golden = fs::read_to_string(&key).unwrap();
    for line in golden.lines().skip(1) {
        let id = line.split(',').next().unwrap();
        submission.push_str(&format!("{id},ACTIVE,within_lease\n"));
    }
    let answers = dir.join("answers.csv");
    fs::write(&answers, submission).unwrap();
    (cases, key, answers)
}

/// How many cases the large lab has: the fewest whose results, listed in full, would take more
/// than the platforms' 1 MB (the cut itself, at any limit, is `report::autograder`'s unit tests;
/// here, that the whole run keeps to the real limit and the score).
const LARGE_LAB_CASES: usize = 8_000;

/// A lab of [`LARGE_LAB_CASES`] cases, every answer `ACTIVE within_lease`, made once for the
/// tests of both platforms.
struct LargeLab {
    cases: PathBuf,
    key: PathBuf,
    /// The submission's bytes.
    submission: Vec<u8>,
    /// The score `grade` gives the submission, with nothing cut.
    score: u64,
}

fn large_lab_once() -> &'static LargeLab {
    static LAB: OnceLock<LargeLab> = OnceLock::new();
    LAB.get_or_init(|| {
        let dir = shared_dir();
        let (cases, key, answers) = large_lab(&dir, LARGE_LAB_CASES);
        let report = leasejudge(
            &[
                "grade",
                "--golden",
                key.to_str().unwrap(),
                answers.to_str().unwrap(),
                "-f",
                "json",
            ],
            &dir,
        );
        let report: Value = serde_json::from_slice(&report.stdout).unwrap();
        let score = report["submissions"][0]["score"].as_u64().unwrap();
        assert!(score > 0 && score < LARGE_LAB_CASES as u64);
        let submission = fs::read(&answers).unwrap();
        LargeLab {
            cases,
            key,
            submission,
            score,
        }
    })
}

#[test]
fn a_large_lab_keeps_gradescope_results_under_1_mb_and_the_score() {
    let lab = large_lab_once();
    let score = lab.score;
    let dir = tempfile::tempdir().unwrap();
    let common = [
        "--golden",
        lab.key.to_str().unwrap(),
        "--cases",
        lab.cases.to_str().unwrap(),
    ];
    let (_, image) = gradescope_image(dir.path(), "big", &common);
    let files = [("answers.csv", Put::Bytes(lab.submission.clone()))];
    let run = gradescope_run(&image, &files);
    let results = graded(&run);
    assert!(run.bytes <= 1_000_000, "{} bytes", run.bytes);
    assert!(
        run.bytes > 900_000,
        "the space is used: {} bytes",
        run.bytes
    );
    assert_eq!(results["score"], score, "the score is unchanged");
    let tests = results["tests"].as_array().unwrap();
    let note = tests.last().unwrap();
    assert_eq!(note["name"], "Cases not listed");
    // Less the check, first, and the note, last.
    let listed = tests.len() - 2;
    let left = LARGE_LAB_CASES - listed;
    assert!(note["output"]
        .as_str()
        .unwrap()
        .starts_with(&format!("{left} cases are not listed here")));
    assert!(results["output"]
        .as_str()
        .unwrap()
        .contains(&format!("Feedback on {left} of the cases is not listed")));
    assert_eq!(tests[0]["name"], "Check of the upload");
    let points: u64 = tests[1..]
        .iter()
        .map(|t| t["score"].as_u64().unwrap())
        .sum();
    assert_eq!(points, score, "the tests' points add up to the score");
}

#[test]
fn a_large_lab_keeps_prairielearn_results_under_1_mb_and_the_score() {
    let lab = large_lab_once();
    let score = lab.score;
    let dir = tempfile::tempdir().unwrap();
    let question = dir.path().join("big-lab");
    let args = [
        "autograder",
        "prairielearn",
        "--golden",
        lab.key.to_str().unwrap(),
        "--cases",
        lab.cases.to_str().unwrap(),
        "-o",
        question.to_str().unwrap(),
    ];
    assert!(leasejudge(&args, dir.path()).status.success());
    let files = [("answers.csv", Put::Bytes(lab.submission.clone()))];
    let run = prairielearn_run(&question, &files);
    let results = graded(&run);
    assert!(run.bytes <= 1_000_000, "{} bytes", run.bytes);
    assert_eq!(
        results["score"].as_f64().unwrap(),
        score as f64 / LARGE_LAB_CASES as f64
    );
    let tests = results["tests"].as_array().unwrap();
    let points: u64 = tests.iter().map(|t| t["points"].as_u64().unwrap()).sum();
    let most: u64 = tests
        .iter()
        .map(|t| t["max_points"].as_u64().unwrap())
        .sum();
    assert_eq!(
        (points, most),
        (score, LARGE_LAB_CASES as u64),
        "PrairieLearn adds the tests' points up"
    );
    assert!(results["output"]
        .as_str()
        .unwrap()
        .contains("is not listed"));
}

/// `autograder gradescope` with `args`, in `dir`, writing `out.zip`.
fn build(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["autograder", "gradescope"];
    all.extend_from_slice(args);
    all.extend(["-o", "out.zip"]);
    leasejudge(&all, dir)
}

fn lab(dir: &Path) {
    for file in ["key.csv", "cases.csv"] {
        fs::copy(data(file), dir.join(file)).unwrap();
    }
}

#[test]
fn a_malformed_key_is_refused_when_the_autograder_is_built() {
    let dir = tempfile::tempdir().unwrap();
    lab(dir.path());
    let key = fs::read_to_string(dir.path().join("key.csv")).unwrap();
    let broken = key.replace("probe-2,", "probe-1,").replace(
        "EXPIRED,expired_without_result",
        "EXPIRD,expired_without_result",
    );
    fs::write(dir.path().join("key.csv"), broken).unwrap();
    fs::write(dir.path().join("out.zip"), "an earlier zip").unwrap();
    let built = build(dir.path(), &["--golden", "key.csv", "--cases", "cases.csv"]);
    assert_eq!(built.status.code(), Some(2));
    let errors = text(&built.stderr);
    // Every problem, located, with the golden values: the instructor is building it.
    assert!(
        errors.contains("key.csv:3: case_id: duplicated case id"),
        "{errors}"
    );
    assert!(errors.contains("key.csv:3: decision:"), "{errors}");
    assert!(errors.contains("EXPIRD"), "{errors}");
    assert_eq!(
        fs::read(dir.path().join("out.zip")).unwrap(),
        b"an earlier zip"
    );
    let leftovers: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(".leasejudge-"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn a_key_that_disagrees_with_the_case_files_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    lab(dir.path());
    let key = fs::read_to_string(dir.path().join("key.csv")).unwrap();
    let mut lines: Vec<String> = key.lines().map(str::to_owned).collect();
    // probe-2 decided wrong, probe-4 gone, a case no case file has.
    lines[2] = lines[2].replace("EXPIRED", "ACTIVE");
    let extra = lines[1].replace("probe-1", "probe-9");
    lines.remove(4);
    lines.push(extra);
    fs::write(dir.path().join("key.csv"), lines.join("\n") + "\n").unwrap();
    let built = build(dir.path(), &["--golden", "key.csv", "--cases", "cases.csv"]);
    assert_eq!(built.status.code(), Some(2));
    let errors = text(&built.stderr);
    assert!(
        errors.contains(
            "key.csv: disagrees with the contract's verdicts on the case files (3 problems below"
        ),
        "{errors}"
    );
    assert!(errors.contains("key.csv:3: decision: case probe-2: the key has ACTIVE, but the contract gives EXPIRED for its rows (cases.csv line 9)"), "{errors}");
    assert!(
        errors.contains(
            "key.csv:5: case_id: the key has case probe-9, but none of the case files does"
        ),
        "{errors}"
    );
    assert!(
        errors.contains("cases.csv:18: case_id: case probe-4 is not in the key key.csv"),
        "{errors}"
    );
    assert!(!dir.path().join("out.zip").exists());
    // A key that only lacks a case of the case files: a learner's answer to it would be
    // ignored.
    let without_probe_4: Vec<&str> = key.lines().filter(|l| !l.starts_with("probe-4,")).collect();
    fs::write(
        dir.path().join("key.csv"),
        without_probe_4.join("\n") + "\n",
    )
    .unwrap();
    let built = build(dir.path(), &["--golden", "key.csv", "--cases", "cases.csv"]);
    assert_eq!(built.status.code(), Some(2));
    let errors = text(&built.stderr);
    assert!(errors.contains("(1 problem below"), "{errors}");
    // The sentence that says what the problems mean is not counted as one (issue 29).
    assert!(
        errors.ends_with("\n1 input error; nothing was written\n"),
        "{errors}"
    );
    assert!(
        errors.contains("cases.csv:18: case_id: case probe-4 is not in the key key.csv"),
        "{errors}"
    );
    assert!(!dir.path().join("out.zip").exists());
}

#[test]
fn bad_options_and_inputs_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    lab(dir.path());
    fs::write(
        dir.path().join("bad-cases.csv"),
        "case_id,event\nc1,teleport\n",
    )
    .unwrap();
    fs::write(
        dir.path().join("not-a-binary"),
        "#!/bin/sh\necho leasejudge\n",
    )
    .unwrap();
    let common = ["--golden", "key.csv", "--cases", "cases.csv"];
    let refused: [(&[&str], &str); 6] = [
        (&["--weights", "nope=2"], "nope"),
        (&["--columns", "decision,bogus"], "bogus"),
        (&["--visibility", "sometimes"], "sometimes"),
        (
            &["--binary", "not-a-binary"],
            "not-a-binary: it is not an x86-64 Linux executable (a script)",
        ),
        (
            &["--cases", "bad-cases.csv"],
            "bad-cases.csv:1: header: no observed_at column",
        ),
        (&["--cases", "key.csv"], ""),
    ];
    for (extra, says) in refused {
        let mut args = common.to_vec();
        args.extend_from_slice(extra);
        let built = build(dir.path(), &args);
        assert_eq!(
            built.status.code(),
            Some(2),
            "{extra:?}: {}",
            text(&built.stderr)
        );
        assert!(
            text(&built.stderr).contains(says),
            "{extra:?}: {}",
            text(&built.stderr)
        );
        assert!(!dir.path().join("out.zip").exists(), "{extra:?}");
    }
    // No output may be an input.
    let built = leasejudge(
        &[
            "autograder",
            "gradescope",
            "--golden",
            "key.csv",
            "--cases",
            "cases.csv",
            "-o",
            "key.csv",
        ],
        dir.path(),
    );
    assert_eq!(built.status.code(), Some(2));
    assert!(
        text(&built.stderr).contains("are the same file"),
        "{}",
        text(&built.stderr)
    );
    // PrairieLearn has no visibility.
    let built = leasejudge(
        &[
            "autograder",
            "prairielearn",
            "--golden",
            "key.csv",
            "--cases",
            "cases.csv",
            "--visibility",
            "hidden",
            "-o",
            "q",
        ],
        dir.path(),
    );
    assert_eq!(built.status.code(), Some(2));
    assert!(!dir.path().join("q").exists());
}

/// A lab's key and case files with weights and hints: the options a build is made from.
const SAME_INPUTS: [&str; 8] = [
    "--golden",
    "key.csv",
    "--cases",
    "cases.csv",
    "--weights",
    "decision=2",
    "--feedback",
    "hint",
];

#[test]
fn the_same_inputs_give_the_same_zip_bytes() {
    let dir = tempfile::tempdir().unwrap();
    lab(dir.path());
    assert!(build(dir.path(), &SAME_INPUTS).status.success());
    let first = fs::read(dir.path().join("out.zip")).unwrap();
    fs::remove_file(dir.path().join("out.zip")).unwrap();
    assert!(build(dir.path(), &SAME_INPUTS).status.success());
    assert_eq!(fs::read(dir.path().join("out.zip")).unwrap(), first);
}

#[test]
fn the_same_inputs_give_the_same_question_and_another_question_another_uuid() {
    let dir = tempfile::tempdir().unwrap();
    lab(dir.path());
    let question = |name: &str| {
        let mut all = vec!["autograder", "prairielearn"];
        all.extend_from_slice(&SAME_INPUTS);
        all.extend(["-o", name]);
        let built = leasejudge(&all, dir.path());
        assert!(built.status.success(), "{}", text(&built.stderr));
        fs::read_to_string(dir.path().join(name).join("info.json")).unwrap()
    };
    let info = question("lab-1");
    fs::rename(dir.path().join("lab-1"), dir.path().join("lab-1.old")).unwrap();
    assert_eq!(question("lab-1"), info, "the same question, the same uuid");
    assert_ne!(question("lab-2"), info, "another question, another uuid");
}

#[test]
fn a_question_is_rebuilt_in_place_keeping_its_uuid_and_a_foreign_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    lab(dir.path());
    let build = |extra: &[&str]| {
        let mut all = vec![
            "autograder",
            "prairielearn",
            "--golden",
            "key.csv",
            "--cases",
            "cases.csv",
            "-o",
            "lab-1",
        ];
        all.extend_from_slice(extra);
        leasejudge(&all, dir.path())
    };
    assert!(build(&["--uuid", "0E1D2C3B-4A59-4867-8675-645342312019"])
        .status
        .success());
    let info = || -> Value {
        serde_json::from_slice(&fs::read(dir.path().join("lab-1/info.json")).unwrap()).unwrap()
    };
    assert_eq!(info()["uuid"], "0e1d2c3b-4a59-4867-8675-645342312019");
    // Rebuilt with other options: the uuid stays, the options change.
    assert!(build(&["--feedback", "none", "--timeout", "60"])
        .status
        .success());
    assert_eq!(info()["uuid"], "0e1d2c3b-4a59-4867-8675-645342312019");
    assert_eq!(info()["externalGradingOptions"]["timeout"], 60);
    let run = fs::read_to_string(dir.path().join("lab-1/tests/run_autograder")).unwrap();
    assert!(run.contains("--feedback none"));
    // A question with files leasejudge did not write, anywhere inside, would lose them: the
    // rebuild is refused, naming them (issue 28).
    fs::write(
        dir.path().join("lab-1/server.py"),
        "def grade(data): pass\n",
    )
    .unwrap();
    fs::write(dir.path().join("lab-1/tests/notes.txt"), "fixtures\n").unwrap();
    fs::create_dir_all(dir.path().join("lab-1/clientFilesQuestion/empty")).unwrap();
    let refused = build(&[]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains(
            "holds files leasejudge did not write (clientFilesQuestion/empty/, server.py, \
             tests/notes.txt): a rebuild replaces the question whole, so it would delete them"
        ),
        "{}",
        text(&refused.stderr)
    );
    assert!(dir.path().join("lab-1/server.py").exists());
    assert!(dir.path().join("lab-1/tests/notes.txt").exists());
    // Without them it is rebuilt; the case files it no longer needs (no hints) are gone.
    fs::remove_file(dir.path().join("lab-1/server.py")).unwrap();
    fs::remove_file(dir.path().join("lab-1/tests/notes.txt")).unwrap();
    fs::remove_dir_all(dir.path().join("lab-1/clientFilesQuestion")).unwrap();
    assert!(build(&["--feedback", "hint"]).status.success());
    assert!(dir.path().join("lab-1/tests/cases.csv").is_file());
    // The shortcuts are judged on the case files too: carried, and given to grade.
    assert!(build(&["--feedback", "shortcut"]).status.success());
    assert!(dir.path().join("lab-1/tests/cases.csv").is_file());
    let run = fs::read_to_string(dir.path().join("lab-1/tests/run_autograder")).unwrap();
    assert!(
        run.contains("--feedback shortcut") && run.contains("--cases"),
        "{run}"
    );
    assert!(build(&[]).status.success());
    assert!(!dir.path().join("lab-1/tests/cases.csv").exists());
    assert_eq!(info()["uuid"], "0e1d2c3b-4a59-4867-8675-645342312019");
    // A directory that is no question at all is refused whole.
    fs::create_dir_all(dir.path().join("other")).unwrap();
    fs::write(dir.path().join("other/server.py"), "").unwrap();
    let mut all = vec![
        "autograder",
        "prairielearn",
        "--golden",
        "key.csv",
        "--cases",
        "cases.csv",
        "-o",
        "other",
    ];
    let refused = leasejudge(&all, dir.path());
    assert!(
        text(&refused.stderr).contains(
            "other exists and is not a question leasejudge wrote (it \
             holds server.py)"
        ),
        "{}",
        text(&refused.stderr)
    );
    // A symbolic link to a question is written through: the link stays a link.
    std::os::unix::fs::symlink(dir.path().join("lab-1"), dir.path().join("linked")).unwrap();
    all[7] = "linked";
    assert!(leasejudge(&all, dir.path()).status.success());
    assert!(fs::symlink_metadata(dir.path().join("linked"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(info()["uuid"], "0e1d2c3b-4a59-4867-8675-645342312019");
    let leftovers: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".leasejudge-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn the_question_names_its_image_entrypoint_and_upload() {
    let question = &bundles().question;
    let info: Value =
        serde_json::from_slice(&fs::read(question.join("info.json")).unwrap()).unwrap();
    assert_eq!(info["type"], "v3");
    assert_eq!(info["gradingMethod"], "External");
    let options = &info["externalGradingOptions"];
    assert_eq!(options["enabled"], true);
    assert_eq!(options["image"], "prairielearn/grader-python");
    assert_eq!(options["entrypoint"], "/grade/tests/run_autograder");
    assert_eq!(options["timeout"], 30);
    let uuid = info["uuid"].as_str().unwrap();
    assert_eq!(uuid.len(), 36);
    let html = fs::read_to_string(question.join("question.html")).unwrap();
    assert!(html.contains(
        "<pl-file-upload optional-file-patterns=\"*.csv, *.json, *.xlsx, *.xlsm, *.ods\">"
    ));
    assert!(html.contains("<pl-external-grader-results></pl-external-grader-results>"));
    for file in ["run_autograder", "leasejudge", "golden.csv"] {
        assert!(question.join("tests").join(file).is_file(), "tests/{file}");
    }
    // The case files only when hints cite them.
    assert!(!question.join("tests/cases.csv").exists());
    assert_eq!(mode(&question.join("tests/run_autograder")), 0o755);
    assert_eq!(mode(&question.join("tests/leasejudge")), 0o755);
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[test]
fn a_binary_of_another_program_or_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    lab(dir.path());
    let common = ["--golden", "key.csv", "--cases", "cases.csv", "--binary"];
    // An x86-64 Linux executable, but not this leasejudge: the scripts use this version's
    // options.
    let echo = ["/bin/echo", "/usr/bin/echo"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .expect("an echo binary");
    let mut args = common.to_vec();
    args.push(echo);
    let built = build(dir.path(), &args);
    assert_eq!(built.status.code(), Some(2));
    let ours = format!("is not leasejudge {}", env!("CARGO_PKG_VERSION"));
    assert!(
        text(&built.stderr).contains(&ours),
        "{}",
        text(&built.stderr)
    );
    assert!(!dir.path().join("out.zip").exists());
    let mut args = common.to_vec();
    args.push(env!("CARGO_BIN_EXE_leasejudge"));
    assert!(build(dir.path(), &args).status.success());
}

// Issue 29: every learner gets a score and a reason to act on, on both platforms.

/// The Gradescope image of the shared bundle with its script asking for `visibility`: what
/// `autograder gradescope --visibility VISIBILITY` writes differs from the bundle only there.
fn image_with_visibility(visibility: &str) -> tempfile::TempDir {
    let image = tempfile::tempdir().unwrap();
    copy_tree(&bundles().image, image.path());
    for script in ["run_autograder", "source/run_autograder"] {
        let path = image.path().join(script);
        let text = fs::read_to_string(&path).unwrap();
        let text = text.replace(
            " --feedback cases ",
            &format!(" --feedback cases --visibility {visibility} "),
        );
        assert!(
            text.contains(&format!("--visibility {visibility}")),
            "{text}"
        );
        fs::write(&path, text).unwrap();
    }
    image
}

/// The check of the upload, the first test of Gradescope's results.
fn check_test(results: &Value) -> &Value {
    let check = &results["tests"][0];
    assert_eq!(check["name"], "Check of the upload", "{results}");
    assert_eq!(check["visibility"], "visible", "{results}");
    assert!(check.get("score").is_none(), "the check carries no points");
    check
}

/// `right.csv` without its reason column.
fn without_reason() -> Vec<u8> {
    fs::read_to_string(data("right.csv"))
        .unwrap()
        .lines()
        .map(|line| line.rsplit_once(',').unwrap().0.to_owned() + "\n")
        .collect::<String>()
        .into_bytes()
}

#[test]
fn an_unusable_upload_is_explained_at_once_whatever_the_visibility() {
    let uploads: [(&str, Vec<(&str, Put)>); 2] = [
        (
            "no column for the graded column reason",
            vec![("matrix.csv", Put::Bytes(without_reason()))],
        ),
        (
            "upload: holds 2 matrices (a.csv, b.csv)",
            vec![
                ("a.csv", Put::Copy("right.csv")),
                ("b.csv", Put::Copy("wrong.csv")),
            ],
        ),
    ];
    for visibility in ["hidden", "after_due_date", "after_published"] {
        let image = image_with_visibility(visibility);
        for (problem, files) in &uploads {
            let results = graded(&gradescope_run(image.path(), files));
            let check = check_test(&results);
            assert_eq!(check["status"], "failed");
            let output = check["output"].as_str().unwrap();
            assert!(output.contains(problem), "{visibility}: {output}");
            assert!(output.contains("cannot be graded as it is"), "{output}");
            // The score keeps the visibility asked for.
            assert_eq!(results["visibility"], visibility);
            let summary = &results["tests"][1];
            assert_eq!(summary["visibility"], visibility);
            assert_eq!(summary["score"], 0);
            assert!(results["output"]
                .as_str()
                .unwrap()
                .ends_with("It cannot be graded as it is: the test \"Check of the upload\", shown now, says why."));
        }
    }
    for (problem, files) in &uploads {
        let results = graded(&prairielearn(files));
        assert_eq!(results["gradable"], false);
        let errors = results["format_errors"].to_string();
        assert!(errors.contains(problem), "{errors}");
    }
    // A gradable upload's check passes, and says how the file was read.
    let image = image_with_visibility("after_due_date");
    let results = graded(&gradescope_run(
        image.path(),
        &[("matrix.csv", Put::Copy("right.csv"))],
    ));
    let check = check_test(&results);
    assert_eq!(check["status"], "passed");
    assert_eq!(
        check["output"],
        "matrix.csv: read as CSV, cells separated by \",\": 4 rows, for the lab's 4 cases\n\
         matrix.csv: ready: every case of the lab once, every graded cell a valid value"
    );
    assert!(results["tests"].as_array().unwrap()[1..]
        .iter()
        .all(|t| t["visibility"] == "after_due_date"));
    // A file that is graded passes the check too, its warnings in the check's output: a
    // learner whose file scored reads no `failed` above the score (issue 40).
    let results = graded(&gradescope_run(
        image.path(),
        &[("matrix.csv", Put::Copy("wrong.csv"))],
    ));
    let check = check_test(&results);
    assert_eq!(check["status"], "passed", "{check}");
    let output = check["output"].as_str().unwrap();
    assert!(output.contains("EXPIRD is not a decision code"), "{output}");
    assert!(output.contains("the file can be graded"), "{output}");
}

#[test]
fn a_name_that_is_not_utf8_is_graded_and_shown_escaped() {
    let files = [("", Put::RawName(b"r\xe9ponse.csv", "wrong.csv"))];
    let run = gradescope(&files);
    let results = graded(&run);
    assert_eq!(results["score"], 1);
    assert!(
        run.output.contains("leasejudge: r\\xe9ponse.csv: 1/4"),
        "{}",
        run.output
    );
    let check = check_test(&results)["output"].as_str().unwrap().to_owned();
    assert!(check.starts_with("r\\xe9ponse.csv: read as CSV"), "{check}");
    let results = graded(&prairielearn(&files));
    assert_eq!(results["score"], 0.25);
    assert!(results["output"]
        .as_str()
        .unwrap()
        .contains("r\\xe9ponse.csv:3: decision: EXPIRD is not a decision code"));
}

#[test]
fn a_github_starter_repository_or_a_case_file_beside_the_matrix_is_graded() {
    let repository = [
        ("data/cases.csv", Put::Copy("cases.csv")),
        (
            ".github/workflows/classroom.yml",
            Put::Bytes(b"on: push\n".to_vec()),
        ),
        (
            ".github/classroom/autograding.json",
            Put::Copy("notes.json"),
        ),
        (".git/HEAD", Put::Bytes(b"ref: refs/heads/main\n".to_vec())),
        (".git/lfs/objects/matrix.csv", Put::Copy("wrong.csv")),
        ("README.md", Put::Bytes(b"# Lab 3\n".to_vec())),
        ("matrix.csv", Put::Copy("right.csv")),
    ];
    assert_eq!(graded(&gradescope(&repository))["score"], 4);
    assert_eq!(graded(&prairielearn(&repository))["score"], 1.0);
    let beside = [
        ("cases.csv", Put::Copy("cases.csv")),
        ("answers.csv", Put::Copy("wrong.csv")),
    ];
    assert_eq!(graded(&gradescope(&beside))["score"], 1);
    assert_eq!(graded(&prairielearn(&beside))["score"], 0.25);
    // Only the case file: said so.
    let results = graded(&gradescope(&[("cases.csv", Put::Copy("cases.csv"))]));
    assert!(check_test(&results)["output"]
        .as_str()
        .unwrap()
        .contains("cases.csv"));
}

/// Every string of a JSON document: what a learner may be shown.
fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::String(text) => vec![text.clone()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(fields) => fields.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

/// `text` as UTF-16 with a byte-order mark, as Excel's "Unicode Text" saves it.
fn utf16(text: &str, little_endian: bool) -> Vec<u8> {
    let mut bytes = if little_endian {
        vec![0xff, 0xfe]
    } else {
        vec![0xfe, 0xff]
    };
    for unit in text.encode_utf16() {
        bytes.extend(if little_endian {
            unit.to_le_bytes()
        } else {
            unit.to_be_bytes()
        });
    }
    bytes
}

/// A workbook of `sheets` (name, rows of cells), as a spreadsheet saves it.
fn workbook(sheets: &[(&str, &[&[&str]])]) -> Vec<u8> {
    let mut book = rust_xlsxwriter::Workbook::new();
    for (name, rows) in sheets {
        let sheet = book.add_worksheet();
        sheet.set_name(*name).unwrap();
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                sheet.write_string(r as u32, c as u16, *cell).unwrap();
            }
        }
    }
    book.save_to_buffer().unwrap()
}

/// The rows of `right.csv`.
fn right_rows() -> Vec<Vec<String>> {
    fs::read_to_string(data("right.csv"))
        .unwrap()
        .lines()
        .map(|line| line.split(',').map(str::to_owned).collect())
        .collect()
}

#[test]
fn files_as_people_save_them_are_read() {
    let right = fs::read_to_string(data("right.csv")).unwrap();
    let rows = right_rows();
    let rows: Vec<Vec<&str>> = rows
        .iter()
        .map(|row| row.iter().map(String::as_str).collect())
        .collect();
    let rows: Vec<&[&str]> = rows.iter().map(Vec::as_slice).collect();
    let instructions: &[&[&str]] = &[&["Lab 3: fill in the Matrix sheet"], &["Due Friday"]];
    let matrix_second = workbook(&[("Instructions", instructions), ("Matrix", &rows)]);
    let shapes: Vec<(&str, Vec<(&str, Put)>)> = vec![
        (
            "UTF-16 (little-endian), commas",
            vec![("matrix.csv", Put::Bytes(utf16(&right, true)))],
        ),
        (
            "UTF-16, tabs, Excel's Unicode Text",
            vec![(
                "matrix.csv",
                Put::Bytes(utf16(&right.replace(',', "\t").replace('\n', "\r\n"), true)),
            )],
        ),
        (
            "UTF-16 (big-endian)",
            vec![("matrix.csv", Put::Bytes(utf16(&right, false)))],
        ),
        (
            "a workbook renamed .csv",
            vec![("matrix.csv", Put::Bytes(workbook(&[("Matrix", &rows)])))],
        ),
        (
            "the matrix on the second sheet",
            vec![("matrix.xlsx", Put::Bytes(matrix_second.clone()))],
        ),
    ];
    for (shape, files) in &shapes {
        assert_eq!(graded(&gradescope(files))["score"], 4, "{shape}");
        assert_eq!(graded(&prairielearn(files))["score"], 1.0, "{shape}");
    }
    let results = graded(&gradescope(&[("matrix.xlsx", Put::Bytes(matrix_second))]));
    assert!(check_test(&results)["output"]
        .as_str()
        .unwrap()
        .starts_with("matrix.xlsx: read as the workbook's sheet \"Matrix\": 4 rows"));
    // Unreadable as they are: said without a server path or binary junk, with what to do.
    let refused: [(&str, Vec<u8>, &str); 3] = [
        (
            "matrix.xlsx",
            workbook(&[("Instructions", instructions)]),
            "matrix.xlsx, sheet Instructions: not a matrix: the sheet starts with \"Lab 3: \
             fill in the Matrix sheet\" and has no matrix header; the matrix needs a first row \
             naming case_id and the graded columns (decision, reason)",
        ),
        (
            "matrix.csv",
            b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\0\0\0\0binary".to_vec(),
            "matrix.csv: not a matrix: it is an Excel 97-2003 workbook (.xls)",
        ),
        (
            "matrix.csv",
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec(),
            "matrix.csv: not a matrix: it is a picture",
        ),
    ];
    for (name, bytes, message) in refused {
        let files = [(name, Put::Bytes(bytes))];
        for run in [gradescope(&files), prairielearn(&files)] {
            let results = graded(&run);
            let text = strings(&results).join("\n");
            assert!(text.contains(message), "{message}: {text}");
            for junk in ["\0", "/autograder", "/grade/", "\u{3}", "PK"] {
                assert!(!text.contains(junk), "{junk:?} in {text}");
            }
        }
    }
}

#[test]
fn a_stale_result_is_removed_and_the_instructors_log_stays_small() {
    // A container used again: an earlier learner's results, and a key broken since.
    let image = tempfile::tempdir().unwrap();
    copy_tree(&bundles().image, image.path());
    fs::write(image.path().join("source/golden.csv"), "case_id\nprobe-1\n").unwrap();
    let run = gradescope_run_after(
        image.path(),
        &[("matrix.csv", Put::Copy("right.csv"))],
        &|root| fs::write(root.join("results/results.json"), "{\"score\": 4}").unwrap(),
    );
    assert_ne!(run.code, Some(0));
    assert!(
        run.results.is_none(),
        "the earlier results are gone: {}",
        run.output
    );
    // An upload of every kind of bad row, long ones: the log stays within 1 MB, and results
    // are written.
    let mut rows = b"case_id,decision,reason\n".to_vec();
    for i in 0..4_000 {
        rows.extend(format!("c{i},").as_bytes());
        rows.extend(std::iter::repeat_n(0xff, 5_000));
        rows.extend(b",x,extra\n");
    }
    let files = [("matrix.csv", Put::Bytes(rows))];
    for run in [gradescope(&files), prairielearn(&files)] {
        assert!(
            run.output.len() <= 1_000_000,
            "{} bytes of log",
            run.output.len()
        );
        let results = graded(&run);
        assert!(results
            .to_string()
            .contains("more input errors, not listed"));
    }
}

#[test]
fn points_scale_the_score_on_both_platforms() {
    let dir = tempfile::tempdir().unwrap();
    let key = data("key.csv");
    let cases = data("cases.csv");
    let common = [
        "--golden",
        key.to_str().unwrap(),
        "--cases",
        cases.to_str().unwrap(),
        "--points",
        "10",
    ];
    let mut args = vec!["autograder", "gradescope"];
    args.extend(common);
    args.extend(["-o", "points.zip"]);
    let built = leasejudge(&args, dir.path());
    assert!(
        text(&built.stdout).contains("set the assignment's autograder points to 10"),
        "{}",
        text(&built.stdout)
    );
    let image = dir.path().join("image");
    extract(&dir.path().join("points.zip"), &image.join("source"));
    fs::copy(
        image.join("source/run_autograder"),
        image.join("run_autograder"),
    )
    .unwrap();
    set_mode(&image.join("run_autograder"), 0o755);
    let results = graded(&gradescope_run(
        &image,
        &[("m.csv", Put::Copy("wrong.csv"))],
    ));
    assert_eq!(results["score"], 2.5);
    let tests = &results["tests"].as_array().unwrap()[1..];
    let most: f64 = tests.iter().map(|t| t["max_score"].as_f64().unwrap()).sum();
    assert_eq!(most, 10.0);
    assert!(results["output"]
        .as_str()
        .unwrap()
        .starts_with("Score: 2.5/10 (25.0%)"));
    let mut args = vec!["autograder", "prairielearn"];
    args.extend(common);
    args.extend(["-o", "points-q"]);
    let built = leasejudge(&args, dir.path());
    assert!(text(&built.stdout).contains("give the question 10 points in the assessment"));
    let results = graded(&prairielearn_run(
        &dir.path().join("points-q"),
        &[("m.csv", Put::Copy("wrong.csv"))],
    ));
    assert_eq!(results["score"], 0.25);
    let tests = results["tests"].as_array().unwrap();
    let points: f64 = tests.iter().map(|t| t["points"].as_f64().unwrap()).sum();
    let most: f64 = tests
        .iter()
        .map(|t| t["max_points"].as_f64().unwrap())
        .sum();
    assert_eq!((points, most), (2.5, 10.0));
}

#[test]
fn a_course_shares_one_binary_among_its_questions() {
    let course = tempfile::tempdir().unwrap();
    fs::write(course.path().join("infoCourse.json"), "{}").unwrap();
    let key = data("key.csv");
    let cases = data("cases.csv");
    let build = |qid: &str, extra: &[&str]| {
        let mut args = vec![
            "autograder",
            "prairielearn",
            "--golden",
            key.to_str().unwrap(),
            "--cases",
            cases.to_str().unwrap(),
            "--course",
            course.path().to_str().unwrap(),
            "--qid",
            qid,
        ];
        args.extend_from_slice(extra);
        let built = leasejudge(&args, course.path());
        assert_eq!(built.status.code(), Some(0), "{}", text(&built.stderr));
        text(&built.stdout)
    };
    let first = build("lab-3/matrix", &[]);
    assert!(first.contains("leasejudge: wrote "), "{first}");
    let second = build("lab-4", &["--feedback", "hint"]);
    assert!(second.contains("leasejudge: kept "), "{second}");
    let shared = course
        .path()
        .join("serverFilesCourse/leasejudge/leasejudge");
    assert_eq!(mode(&shared), 0o755);
    assert_eq!(
        fs::read(&shared).unwrap(),
        fs::read(env!("CARGO_BIN_EXE_leasejudge")).unwrap()
    );
    for (qid, tests) in [
        ("lab-3/matrix", &["golden.csv", "run_autograder"][..]),
        ("lab-4", &["cases.csv", "golden.csv", "run_autograder"][..]),
    ] {
        let question = course.path().join("questions").join(qid);
        let mut held: Vec<String> = fs::read_dir(question.join("tests"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        held.sort();
        assert_eq!(held, tests, "{qid}: only what it needs, no binary");
        let info: Value =
            serde_json::from_slice(&fs::read(question.join("info.json")).unwrap()).unwrap();
        assert_eq!(
            info["externalGradingOptions"]["serverFilesCourse"],
            serde_json::json!(["leasejudge"])
        );
        let results = graded(&prairielearn_run(
            &question,
            &[("matrix.csv", Put::Copy("wrong.csv"))],
        ));
        assert_eq!(results["score"], 0.25, "{qid}");
    }
    // A hint cites the case file the second question carries.
    let results = graded(&prairielearn_run(
        &course.path().join("questions/lab-4"),
        &[("matrix.csv", Put::Copy("wrong.csv"))],
    ));
    assert!(results.to_string().contains("in cases.csv"), "{results}");
    // A file at the binary's place that leasejudge did not write is not replaced.
    fs::remove_file(&shared).unwrap();
    fs::write(&shared, "#!/bin/sh\n").unwrap();
    let mut args = vec![
        "autograder",
        "prairielearn",
        "--golden",
        key.to_str().unwrap(),
        "--cases",
        cases.to_str().unwrap(),
        "--course",
        course.path().to_str().unwrap(),
        "--qid",
        "lab-5",
    ];
    let refused = leasejudge(&args, course.path());
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused.stderr).contains("is there and is not a leasejudge binary"));
    assert!(!course.path().join("questions/lab-5").exists());
    assert_eq!(fs::read(&shared).unwrap(), b"#!/bin/sh\n");
    // A question id that leaves questions/ is refused.
    args[9] = "../escape";
    let refused = leasejudge(&args, course.path());
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused.stderr).contains("is not a question's id"));
}

#[test]
fn precheck_says_what_the_autograders_check_says() {
    for upload in [
        vec![("matrix.csv", Put::Copy("wrong.csv"))],
        vec![("matrix.csv", Put::Bytes(without_reason()))],
        vec![
            ("data/cases.csv", Put::Copy("cases.csv")),
            ("lab/answers.csv", Put::Copy("right.csv")),
        ],
    ] {
        let results = graded(&gradescope(&upload));
        let check = check_test(&results)["output"].as_str().unwrap().to_owned();
        // The learner's own run, on the same folder, with the lab's case file.
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("upload");
        put(dir.path(), &folder, &data("key.csv"), &upload);
        let cases = data("cases.csv");
        let run = leasejudge(
            &["precheck", "upload", "--cases", cases.to_str().unwrap()],
            dir.path(),
        );
        assert_eq!(text(&run.stdout).trim_end(), check);
        let passed = check.ends_with("every graded cell a valid value");
        assert_eq!(
            run.status.code(),
            Some(if passed { 0 } else { 2 }),
            "{check}"
        );
    }
}

/// A PrairieLearn question gives learners what they work from (issue 40): the lab's case
/// files and the blank matrix in `clientFilesQuestion/`, each linked from `question.html`
/// with `pl-file-download`; never the key. `--no-client-files` leaves them out, and a rebuild
/// takes them for the build's own.
#[test]
fn a_prairielearn_question_hands_learners_the_case_files_and_the_blank_matrix() {
    let dir = tempfile::tempdir().unwrap();
    lab(dir.path());
    let args = [
        "autograder",
        "prairielearn",
        "--golden",
        "key.csv",
        "--cases",
        "cases.csv",
        "-o",
        "q",
    ];
    let run = leasejudge(&args, dir.path());
    assert!(run.status.success(), "{}", text(&run.stderr));
    let client = dir.path().join("q/clientFilesQuestion");
    let mut names: Vec<String> = fs::read_dir(&client)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["cases.csv", "matrix.csv"]);
    assert_eq!(
        fs::read(client.join("cases.csv")).unwrap(),
        fs::read(dir.path().join("cases.csv")).unwrap()
    );
    // The blank matrix `template` writes of the case files, on the graded columns.
    let blank = leasejudge(
        &[
            "template",
            "cases.csv",
            "--columns",
            "decision,reason",
            "-o",
            "-",
        ],
        dir.path(),
    );
    assert_eq!(fs::read(client.join("matrix.csv")).unwrap(), blank.stdout);
    // No answer of the key is in anything learners can download.
    let key = fs::read_to_string(dir.path().join("key.csv")).unwrap();
    let blank_text = fs::read_to_string(client.join("matrix.csv")).unwrap();
    for line in key.lines().skip(1) {
        let answer = line.split_once(',').unwrap().1;
        assert!(!blank_text.contains(answer), "{answer}");
    }
    let html = fs::read_to_string(dir.path().join("q/question.html")).unwrap();
    for name in ["cases.csv", "matrix.csv"] {
        assert!(
            html.contains(&format!(
                "<pl-file-download file-name=\"{name}\"></pl-file-download>"
            )),
            "{html}"
        );
    }
    // Built again in place: the files are the build's own, not a reason to refuse.
    let again = leasejudge(&args, dir.path());
    assert!(again.status.success(), "{}", text(&again.stderr));
    // Left out on request.
    let without = leasejudge(
        &[
            "autograder",
            "prairielearn",
            "--golden",
            "key.csv",
            "--cases",
            "cases.csv",
            "--no-client-files",
            "-o",
            "bare",
        ],
        dir.path(),
    );
    assert!(without.status.success(), "{}", text(&without.stderr));
    assert!(!dir.path().join("bare/clientFilesQuestion").exists());
    let html = fs::read_to_string(dir.path().join("bare/question.html")).unwrap();
    assert!(!html.contains("pl-file-download"));
}
