//! A submission is never the key (issue 22). On an autograder the key lies beside the
//! submission and an upload can carry links, so in every format and file type `grade` reads
//! (CSV with commas, tabs or semicolons, JSON, `.xlsx`, `.xlsm`, `.ods`) a submission that is
//! a symbolic link (absolute or relative), a hard link, the key by a `..` path or by standard
//! input, the key itself listed in a submission directory, or a link in a submission directory
//! (out of it, to the key, to another file, or within it) is ungradable (exit 2), with a
//! message that names neither the key nor its path — while a copy of the very same bytes
//! grades at full marks, so without the checks each of these would score 100%.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where the key lives, beside the submissions (as `/autograder/source` does): names no
/// output may show.
const KEY_DIR: &str = "instructor-only-keydir";
const KEY_STEM: &str = "secret-answer-key";

/// Every format and file type `grade` reads, as (what, the key's extension, the extension a
/// directory lists it under).
const FORMATS: [(&str, &str, &str); 7] = [
    ("csv", "csv", "csv"),
    ("tab-separated", "tsv", "csv"),
    ("semicolon csv from Excel", "csv", "csv"),
    ("json", "json", "json"),
    ("xlsx", "xlsx", "xlsx"),
    ("xlsm", "xlsm", "xlsm"),
    ("ods", "ods", "ods"),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The lab's key as rows of cells.
fn key_rows() -> Vec<Vec<String>> {
    fs::read_to_string(root().join("examples/lab/key.csv"))
        .unwrap()
        .lines()
        .map(|line| line.split(',').map(str::to_owned).collect())
        .collect()
}

/// The lab's key written in `format`.
fn key_bytes(format: &str) -> Vec<u8> {
    let rows = key_rows();
    let joined = |delimiter: &str, end: &str| {
        rows.iter()
            .map(|row| row.join(delimiter) + end)
            .collect::<String>()
    };
    match format {
        "csv" => joined(",", "\n").into_bytes(),
        "tab-separated" => joined("\t", "\n").into_bytes(),
        "semicolon csv from Excel" => format!("\u{feff}{}", joined(";", "\r\n")).into_bytes(),
        "json" => {
            let objects: Vec<serde_json::Value> = rows[1..]
                .iter()
                .map(|row| {
                    let object: serde_json::Map<String, serde_json::Value> = rows[0]
                        .iter()
                        .zip(row)
                        .filter(|(_, cell)| !cell.is_empty())
                        .map(|(name, cell)| (name.clone(), cell.clone().into()))
                        .collect();
                    object.into()
                })
                .collect();
            serde_json::to_vec(&objects).unwrap()
        }
        "xlsx" | "xlsm" => {
            let header: Vec<&str> = rows[0].iter().map(String::as_str).collect();
            leasejudge::input::workbook::matrix_xlsx("Matrix", &header, &rows[1..]).unwrap()
        }
        "ods" => ods(&rows),
        other => panic!("no format {other}"),
    }
}

/// A minimal OpenDocument spreadsheet of `rows`, every cell text.
fn ods(rows: &[Vec<String>]) -> Vec<u8> {
    use std::io::Write;
    use zip::write::SimpleFileOptions;
    let mut table = String::new();
    for row in rows {
        table.push_str("<table:table-row>");
        for cell in row {
            if cell.is_empty() {
                table.push_str("<table:table-cell/>");
            } else {
                table.push_str(&format!(
                    "<table:table-cell office:value-type=\"string\"><text:p>{cell}</text:p></table:table-cell>"
                ));
            }
        }
        table.push_str("</table:table-row>");
    }
    let content = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
         <office:document-content xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" \
         xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" \
         xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" office:version=\"1.2\">\
         <office:body><office:spreadsheet><table:table table:name=\"Matrix\">{table}</table:table>\
         </office:spreadsheet></office:body></office:document-content>"
    );
    let manifest = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
         <manifest:manifest xmlns:manifest=\"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0\" manifest:version=\"1.2\">\
         <manifest:file-entry manifest:full-path=\"/\" manifest:media-type=\"application/vnd.oasis.opendocument.spreadsheet\"/>\
         <manifest:file-entry manifest:full-path=\"content.xml\" manifest:media-type=\"text/xml\"/>\
         </manifest:manifest>";
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, text) in [
        ("mimetype", "application/vnd.oasis.opendocument.spreadsheet"),
        ("META-INF/manifest.xml", manifest),
        ("content.xml", content.as_str()),
    ] {
        zip.start_file(name, stored).unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// A scratch lab: the key (and whatever else the instructor keeps) in [`KEY_DIR`], the
/// learner's files in `submission/`, as an autograder lays them out.
struct Lab {
    dir: tempfile::TempDir,
    key: PathBuf,
    /// The key's bytes in its format.
    bytes: Vec<u8>,
    /// The extension a directory lists a matrix of this format under.
    listed: &'static str,
}

impl Lab {
    fn new(format: &(&str, &'static str, &'static str)) -> Lab {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join(KEY_DIR)).unwrap();
        fs::create_dir(dir.path().join("submission")).unwrap();
        let key = dir
            .path()
            .join(KEY_DIR)
            .join(format!("{KEY_STEM}.{}", format.1));
        let bytes = key_bytes(format.0);
        fs::write(&key, &bytes).unwrap();
        Lab {
            dir,
            key,
            bytes,
            listed: format.2,
        }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    /// A file of the instructor's beside the key (not read by `grade`) holding the key's
    /// bytes: a link to it would score full marks as surely as a link to the key.
    fn solution(&self, stem: &str) -> PathBuf {
        let path = self.path(KEY_DIR).join(format!(
            "{stem}.{}",
            self.key.extension().unwrap().to_str().unwrap()
        ));
        fs::write(&path, &self.bytes).unwrap();
        path
    }

    /// Runs `grade --golden KEY ARGS -f FORMAT` from the lab's root, standard input from
    /// `stdin` if given.
    fn grade(&self, args: &[&str], format: &str, stdin: Option<&Path>) -> Run {
        let mut command = Command::new(env!("CARGO_BIN_EXE_leasejudge"));
        command
            .arg("grade")
            .arg("--golden")
            .arg(&self.key)
            .args(args)
            .args(["-f", format])
            .current_dir(self.dir.path())
            .env("NO_COLOR", "1");
        match stdin {
            Some(path) => command.stdin(fs::File::open(path).unwrap()),
            None => command.stdin(Stdio::null()),
        };
        let output = command.output().unwrap();
        Run {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {}", self.stdout))
    }
}

/// What is wrong with one submission's report, if anything: `expected` is
/// `Some(score)` for a submission graded at that score, `None` for one that must be
/// ungradable with a message that names neither the key nor its path.
fn check_submission(report: &serde_json::Value, name: &str, expected: Option<u64>) -> Vec<String> {
    let Some(submission) = report["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["submission"] == name)
    else {
        return vec![format!("{name} is not in the report")];
    };
    let mut problems = Vec::new();
    match expected {
        Some(score) => {
            if submission["status"] != "graded" || submission["score"] != score {
                problems.push(format!("{name}: expected graded at {score}: {submission}"));
            }
        }
        None => {
            if submission["status"] != "ungradable" {
                problems.push(format!("{name}: graded, not ungradable: {submission}"));
            }
            for error in submission["errors"].as_array().into_iter().flatten() {
                let message = error["message"].as_str().unwrap();
                // The message after the submission's own name (which the instructor chose).
                let said = message
                    .strip_prefix(&format!("{name}: "))
                    .unwrap_or(message);
                if !said.starts_with("cannot be graded: the submission is") {
                    problems.push(format!("{name}: not refused as a link: {message}"));
                }
                let lower = said.to_ascii_lowercase();
                for secret in ["key", "golden", KEY_DIR, KEY_STEM, "solution"] {
                    if lower.contains(secret) {
                        problems.push(format!("{name}: the message says {secret:?}: {message}"));
                    }
                }
            }
        }
    }
    problems
}

/// Checks a run: exit `code`, every submission as `expected` says, and — unless a
/// submission's own name holds it — no output naming the key's directory or file.
fn check_run(run: &Run, code: i32, expected: &[(&str, Option<u64>)], what: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if run.code != Some(code) {
        problems.push(format!(
            "exit {:?}, expected {code}\n{}{}",
            run.code, run.stdout, run.stderr
        ));
    }
    let report = run.json();
    for (name, score) in expected {
        problems.extend(check_submission(&report, name, *score));
    }
    if !expected.iter().any(|(name, _)| name.contains(KEY_DIR)) {
        for secret in [KEY_DIR, KEY_STEM, "solution"] {
            if run.stdout.contains(secret) || run.stderr.contains(secret) {
                problems.push(format!(
                    "an output names {secret:?}:\n{}{}",
                    run.stdout, run.stderr
                ));
            }
        }
    }
    problems
        .into_iter()
        .map(|p| format!("{what}: {p}"))
        .collect()
}

/// Runs `grade` for every format on a fresh lab made by `arrange`, which returns the
/// arguments, standard input, exit code and expected submissions.
fn for_every_format(arrange: impl Fn(&Lab) -> Arrangement) -> Vec<String> {
    for_formats(&FORMATS, arrange)
}

/// [`for_every_format`] for the formats standard input can carry: CSV and workbooks (JSON
/// is told by a file's extension, which standard input lacks).
fn for_every_stdin_format(arrange: impl Fn(&Lab) -> Arrangement) -> Vec<String> {
    let formats: Vec<_> = FORMATS.into_iter().filter(|f| f.1 != "json").collect();
    for_formats(&formats, arrange)
}

fn for_formats(
    formats: &[(&str, &'static str, &'static str)],
    arrange: impl Fn(&Lab) -> Arrangement,
) -> Vec<String> {
    let mut problems = Vec::new();
    for format in formats {
        let lab = Lab::new(format);
        let arrangement = arrange(&lab);
        let args: Vec<&str> = arrangement.args.iter().map(String::as_str).collect();
        let run = lab.grade(&args, "json", arrangement.stdin.as_deref());
        let expected: Vec<(&str, Option<u64>)> = arrangement
            .expected
            .iter()
            .map(|(name, score)| (name.as_str(), *score))
            .collect();
        problems.extend(check_run(&run, arrangement.code, &expected, format.0));
    }
    problems
}

struct Arrangement {
    args: Vec<String>,
    stdin: Option<PathBuf>,
    code: i32,
    expected: Vec<(String, Option<u64>)>,
}

/// One submission named `name`, which must be ungradable.
fn refused(name: &str) -> Arrangement {
    Arrangement {
        args: vec![name.to_owned()],
        stdin: None,
        code: 2,
        expected: vec![(name.to_owned(), None)],
    }
}

fn assert_none(problems: Vec<String>) {
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// The control: a copy of the key's bytes, in every format, grades at full marks. So each
/// link below would score 100% if it were followed.
#[test]
fn a_copy_of_the_key_grades_at_full_marks() {
    assert_none(for_every_format(|lab| {
        let name = format!("submission/matrix.{}", lab.listed);
        fs::write(lab.path(&name), &lab.bytes).unwrap();
        Arrangement {
            args: vec![name.clone()],
            stdin: None,
            code: 0,
            expected: vec![(name, Some(4))],
        }
    }));
}

/// The control for standard input: a redirect from a copy of the key grades at full marks,
/// workbooks too (told by their bytes).
#[test]
fn standard_input_from_a_copy_of_the_key_grades_at_full_marks() {
    assert_none(for_every_stdin_format(|lab| {
        let copy = lab.path("submission/copy");
        fs::write(&copy, &lab.bytes).unwrap();
        Arrangement {
            args: vec!["-".to_owned()],
            stdin: Some(copy),
            code: 0,
            expected: vec![("-".to_owned(), Some(4))],
        }
    }));
}

#[test]
fn an_absolute_symbolic_link_to_the_key_is_ungradable() {
    assert_none(for_every_format(|lab| {
        let name = format!("submission/matrix.{}", lab.listed);
        symlink(&lab.key, lab.path(&name)).unwrap();
        refused(&name)
    }));
}

#[test]
fn a_relative_symbolic_link_to_the_key_is_ungradable() {
    assert_none(for_every_format(|lab| {
        let name = format!("submission/matrix.{}", lab.listed);
        let target = Path::new("..")
            .join(KEY_DIR)
            .join(lab.key.file_name().unwrap());
        symlink(target, lab.path(&name)).unwrap();
        refused(&name)
    }));
}

#[test]
fn a_hard_link_to_the_key_is_ungradable() {
    assert_none(for_every_format(|lab| {
        let name = format!("submission/matrix.{}", lab.listed);
        fs::hard_link(&lab.key, lab.path(&name)).unwrap();
        refused(&name)
    }));
}

/// The key by a path through `..`: one name, no link — told by its device and inode.
#[test]
fn the_key_by_a_dotdot_path_is_ungradable() {
    assert_none(for_every_format(|lab| {
        let name = format!(
            "submission/../{KEY_DIR}/{}",
            lab.key.file_name().unwrap().to_str().unwrap()
        );
        refused(&name)
    }));
}

/// Standard input redirected from the key: the same file, by its device and inode.
#[test]
fn standard_input_from_the_key_is_ungradable() {
    assert_none(for_every_stdin_format(|lab| Arrangement {
        stdin: Some(lab.key.clone()),
        ..refused("-")
    }));
}

/// A link to a file of the instructor's that `grade` does not read (a solution beside the
/// key): no identity to compare with, refused because it is a link.
#[test]
fn links_to_other_files_outside_the_submission_are_ungradable() {
    assert_none(for_every_format(|lab| {
        // Each to a file of its own, so that each check is seen to work alone.
        let symbolic = format!("submission/linked.{}", lab.listed);
        symlink(lab.solution("solution"), lab.path(&symbolic)).unwrap();
        let hard = format!("submission/hard.{}", lab.listed);
        fs::hard_link(lab.solution("solution-2"), lab.path(&hard)).unwrap();
        Arrangement {
            args: vec![symbolic.clone(), hard.clone()],
            stdin: None,
            code: 2,
            expected: vec![(symbolic, None), (hard, None)],
        }
    }));
}

/// A submission directory is read without following its links: a link out of it (to the
/// key, relative or absolute, or to another file), a link within it, and a link to a
/// directory named like a matrix are each listed and ungradable; the file of its own
/// beside them is graded.
#[test]
fn links_inside_a_submission_directory_are_not_followed() {
    assert_none(for_every_format(|lab| {
        let ext = lab.listed;
        let own = format!("submission/own.{ext}");
        fs::write(lab.path(&own), &lab.bytes).unwrap();
        let key_name = lab.key.file_name().unwrap().to_str().unwrap();
        let links = [
            (format!("absolute.{ext}"), lab.key.clone()),
            (
                format!("relative.{ext}"),
                Path::new("..").join(KEY_DIR).join(key_name),
            ),
            (format!("elsewhere.{ext}"), lab.solution("solution")),
            (format!("within.{ext}"), PathBuf::from(format!("own.{ext}"))),
            (format!("directory.{ext}"), Path::new("..").join(KEY_DIR)),
        ];
        let mut expected = vec![(own, Some(4))];
        for (name, target) in links {
            symlink(target, lab.path("submission").join(&name)).unwrap();
            expected.push((format!("submission/{name}"), None));
        }
        Arrangement {
            args: vec!["submission".to_owned()],
            stdin: None,
            code: 2,
            expected,
        }
    }));
}

/// The key lying in a directory given as submissions is listed like any file there, and
/// ungradable: it is the file read as the key.
#[test]
fn the_key_listed_in_a_submission_directory_is_ungradable() {
    assert_none(for_every_format(|lab| {
        let name = format!(
            "{KEY_DIR}/{}",
            lab.key.file_name().unwrap().to_str().unwrap()
        );
        // A directory lists only matrix extensions: the tab-separated key (.tsv) is named.
        let listed = lab.key.extension().unwrap() != "tsv";
        let arg = if listed {
            KEY_DIR.to_owned()
        } else {
            name.clone()
        };
        Arrangement {
            args: vec![arg],
            stdin: None,
            code: 2,
            expected: vec![(name, None)],
        }
    }));
}

/// A directory given through a symbolic link is a link like any other, unless its name ends
/// with `/`, which asks for the directory (and its links are still not followed).
#[test]
fn a_directory_through_a_link_needs_a_trailing_slash() {
    let lab = Lab::new(&FORMATS[0]);
    fs::write(lab.path("submission/own.csv"), &lab.bytes).unwrap();
    symlink(&lab.key, lab.path("submission/key.csv")).unwrap();
    symlink("submission", lab.path("linked")).unwrap();
    let run = lab.grade(&["linked"], "json", None);
    assert_none(check_run(&run, 2, &[("linked", None)], "linked"));
    let run = lab.grade(&["linked/"], "json", None);
    assert_none(check_run(
        &run,
        2,
        &[("linked/own.csv", Some(4)), ("linked/key.csv", None)],
        "linked/",
    ));
}

/// The autograder formats say the same: PrairieLearn `gradable: false` with the message in
/// `format_errors`, Gradescope the message in its output; neither names the key.
#[test]
fn autograder_results_refuse_a_link_without_naming_the_key() {
    let lab = Lab::new(&FORMATS[0]);
    symlink(&lab.key, lab.path("submission/matrix.csv")).unwrap();
    for format in ["prairielearn", "gradescope"] {
        let run = lab.grade(&["submission/matrix.csv"], format, None);
        assert_eq!(run.code, Some(2), "{format}: {}{}", run.stdout, run.stderr);
        let results = run.json();
        if format == "prairielearn" {
            assert_eq!(results["gradable"], false, "{results}");
            assert!(results["format_errors"][0]
                .as_str()
                .unwrap()
                .contains("the submission is a symbolic link"));
        } else {
            assert!(
                results
                    .to_string()
                    .contains("the submission is a symbolic link"),
                "{results}"
            );
        }
        for text in [&run.stdout, &run.stderr] {
            assert!(
                !text.contains(KEY_DIR) && !text.contains(KEY_STEM),
                "{text}"
            );
        }
    }
}

/// The other files `grade` reads for the instructor — the case files for hints, the baseline
/// gradebook — are no submissions either, by their device and inode.
#[test]
fn the_case_files_and_the_baseline_are_not_submissions() {
    let lab = Lab::new(&FORMATS[0]);
    let cases = lab.path(KEY_DIR).join("cases.csv");
    fs::copy(root().join("examples/lab/cases.csv"), &cases).unwrap();
    let own = lab.path("submission/own.csv");
    fs::write(&own, &lab.bytes).unwrap();
    let gradebook = lab.path(KEY_DIR).join("gradebook.csv");
    let run = lab.grade(
        &[
            "submission/own.csv",
            "--gradebook",
            gradebook.to_str().unwrap(),
        ],
        "json",
        None,
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let cases_name = format!("{KEY_DIR}/cases.csv");
    let gradebook_name = format!("{KEY_DIR}/gradebook.csv");
    let run = lab.grade(
        &[
            &cases_name,
            &gradebook_name,
            "--cases",
            &cases_name,
            "--feedback",
            "hint",
            "--baseline",
            &gradebook_name,
        ],
        "json",
        None,
    );
    assert_none(check_run(
        &run,
        2,
        &[(&cases_name, None), (&gradebook_name, None)],
        "instructor files",
    ));
    for name in [&cases_name, &gradebook_name] {
        assert!(
            run.stdout.contains(&format!(
                "{name}: cannot be graded: the submission is not a file of its own"
            )),
            "{name}: {}",
            run.stdout
        );
    }
}

/// docs/safety.md quotes the four messages as `grade` prints them.
#[test]
fn the_messages_are_the_ones_safety_md_quotes() {
    let doc = fs::read_to_string(root().join("docs/safety.md")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("subs")).unwrap();
    let key = dir.path().join("key.csv");
    fs::write(&key, key_bytes("csv")).unwrap();
    let matrix = dir.path().join("subs/matrix.csv");
    let arrange: [&dyn Fn(); 4] = [
        &|| symlink(&key, &matrix).unwrap(),
        &|| fs::hard_link(&key, &matrix).unwrap(),
        &|| {
            fs::copy(&key, &matrix).unwrap();
        },
        &|| {
            let made = Command::new("mkfifo").arg(&matrix).status().unwrap();
            assert!(made.success());
        },
    ];
    for (index, arrange) in arrange.iter().enumerate() {
        let _ = fs::remove_file(&matrix);
        arrange();
        // The third: the submission is the very file given as the golden file.
        let golden = if index == 2 { &matrix } else { &key };
        let output = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
            .args(["grade", "subs/matrix.csv", "--golden"])
            .arg(golden)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&output.stderr);
        let message = stderr
            .lines()
            .next()
            .unwrap()
            .strip_prefix("leasejudge: ")
            .unwrap();
        assert!(
            doc.lines().any(|line| line == message),
            "docs/safety.md does not quote {message:?}"
        );
    }
}

/// A link is never read, so it is no input an output could clash with: a learner's link to
/// the gradebook is ungradable and the class is still graded, the gradebook written.
#[test]
fn a_link_to_an_output_does_not_stop_the_class() {
    let lab = Lab::new(&FORMATS[0]);
    fs::write(lab.path("submission/own.csv"), &lab.bytes).unwrap();
    let gradebook = lab.path(KEY_DIR).join("gradebook.csv");
    fs::write(&gradebook, "an earlier gradebook\n").unwrap();
    symlink(&gradebook, lab.path("submission/out.csv")).unwrap();
    let run = lab.grade(
        &["submission", "--gradebook", gradebook.to_str().unwrap()],
        "json",
        None,
    );
    assert_none(check_run(
        &run,
        2,
        &[
            ("submission/own.csv", Some(4)),
            ("submission/out.csv", None),
        ],
        "a link to the gradebook",
    ));
    let written = fs::read_to_string(&gradebook).unwrap();
    assert!(written.contains("submission/own.csv,4,4,"), "{written}");
}
