//! The label-leak test (issues 13 and 14): a golden file with a unique marker in every cell
//! (all but `case_id`, which learners are given in the blank template anyway), malformed in
//! every way a golden file can be, graded in every report format with a gradebook and an item
//! analysis. Without `--reveal`, no output — standard output, standard error, or any file
//! written — may hold a marker or any part of the golden file's path.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use leasejudge::matrix::COLUMNS;

const FORMATS: [&str; 8] = [
    "table",
    "json",
    "junit",
    "github",
    "markdown",
    "gradescope",
    "prairielearn",
    "github-classroom",
];

/// Every marker starts with this (checked case-insensitively); nothing else in a run has it.
const MARK: &str = "zqmark";

/// The well-formed golden file's decisions and reasons: codes the learner's submission never
/// names and no typo note would suggest for it, so seeing one is seeing a golden value.
const GOLDEN_CODES: [&str; 6] = [
    "reconciliation_required",
    "cancel_acknowledged_no_result",
    "ack_timeout",
    "ack_after_deadline",
    "pending_ack",
    "awaiting_ack",
];

/// A golden file in canonical form: each row's decision and reason from [`GOLDEN_CODES`],
/// markers in the free-text columns.
fn well_formed_golden() -> Vec<u8> {
    let mut text = String::from("case_id,job_id,holder_identity,decision,reason,lease_expired\n");
    let rows = [
        ("RECONCILIATION_REQUIRED", "cancel_acknowledged_no_result"),
        ("ACK_TIMEOUT", "ack_after_deadline"),
        ("PENDING_ACK", "awaiting_ack"),
    ];
    for (index, (decision, reason)) in rows.iter().enumerate() {
        let row = index + 1;
        text.push_str(&format!(
            "case-{row},{},{},{decision},{reason},true\n",
            marker(row, 1),
            marker(row, 4)
        ));
    }
    text.into_bytes()
}

/// Where the golden file lives: a name no report may show.
const KEY_DIR: &str = "instructor-only-keydir";
const KEY_STEM: &str = "secret-answer-key";

fn marker(row: usize, column: usize) -> String {
    format!("ZQMARK{row}C{column}")
}

/// A header and `rows` data rows of markers (case ids `case-N`), one cell per column.
fn marked_rows(rows: usize) -> Vec<Vec<String>> {
    let mut lines = vec![COLUMNS.iter().map(|c| c.to_string()).collect::<Vec<_>>()];
    for row in 1..=rows {
        lines.push(
            (0..COLUMNS.len())
                .map(|c| {
                    if c == 0 {
                        format!("case-{row}")
                    } else {
                        marker(row, c)
                    }
                })
                .collect(),
        );
    }
    lines
}

fn csv_text(rows: &[Vec<String>]) -> Vec<u8> {
    let mut text = String::new();
    for row in rows {
        text.push_str(&row.join(","));
        text.push('\n');
    }
    text.into_bytes()
}

fn column(name: &str) -> usize {
    COLUMNS.iter().position(|c| *c == name).unwrap()
}

/// Every malformed golden file: (name, extension, bytes).
fn malformed_goldens() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let decision = column("decision");
    let reason = column("reason");
    let mut cases = Vec::new();

    let mut bad_utf8 = csv_text(&marked_rows(3));
    let at = String::from_utf8_lossy(&bad_utf8)
        .find(&marker(2, decision))
        .unwrap()
        + marker(2, decision).len();
    bad_utf8.insert(at, 0xff);
    cases.push(("bad-utf8-cell", "csv", bad_utf8));

    let mut rows = marked_rows(3);
    rows[0][reason] = "ZQMARK\u{fffd}head".to_owned();
    let mut bad_header = csv_text(&rows);
    let at = String::from_utf8_lossy(&bad_header).find("ZQMARK").unwrap() + 6;
    bad_header.splice(at..at + 3, [0xfe]);
    cases.push(("bad-utf8-header", "csv", bad_header));

    let mut rows = marked_rows(3);
    rows[3][0] = "case-1".to_owned();
    cases.push(("duplicate-case-id", "csv", csv_text(&rows)));

    let mut rows = marked_rows(3);
    rows[2][0] = String::new();
    cases.push(("missing-case-id", "csv", csv_text(&rows)));

    let rows: Vec<Vec<String>> = marked_rows(3)
        .into_iter()
        .map(|mut row| {
            row.remove(reason);
            row
        })
        .collect();
    cases.push(("missing-graded-column", "csv", csv_text(&rows)));

    let mut rows = marked_rows(3);
    rows[2].push("ZQMARKEXTRA".to_owned());
    cases.push(("ragged-long-row", "csv", csv_text(&rows)));

    let mut rows = marked_rows(3);
    rows[2].truncate(decision + 1);
    cases.push(("ragged-short-row", "csv", csv_text(&rows)));

    let mut rows = marked_rows(3);
    rows[2][decision] = format!("\"{}", marker(2, decision));
    cases.push(("unterminated-quote", "csv", csv_text(&rows)));

    let mut rows = marked_rows(3);
    rows[0][reason] = "Decision".to_owned();
    cases.push(("two-headers-one-column", "csv", csv_text(&rows)));

    cases.push(("empty", "csv", Vec::new()));

    // JSON goldens: the same markers as objects.
    let objects = |rows: &[Vec<String>]| -> Vec<serde_json::Map<String, serde_json::Value>> {
        rows[1..]
            .iter()
            .map(|row| {
                rows[0]
                    .iter()
                    .zip(row)
                    .map(|(k, v)| (k.clone(), serde_json::Value::from(v.clone())))
                    .collect()
            })
            .collect()
    };
    let rows = marked_rows(3);
    let mut objs = objects(&rows);
    objs[1].insert(
        "decision".into(),
        serde_json::json!({ "x": marker(2, decision) }),
    );
    cases.push((
        "json-object-in-cell",
        "json",
        serde_json::to_vec(&objs).unwrap(),
    ));

    let mut objs = objects(&rows);
    objs[1].insert(
        "stale_generation".into(),
        serde_json::json!([[marker(2, 1)]]),
    );
    cases.push((
        "json-nested-array",
        "json",
        serde_json::to_vec(&objs).unwrap(),
    ));

    let mut objs = objects(&rows);
    objs[1].insert("Decision".into(), serde_json::json!("ZQMARKDUPKEY"));
    cases.push((
        "json-two-keys-one-column",
        "json",
        serde_json::to_vec(&objs).unwrap(),
    ));

    let objs = objects(&rows);
    cases.push((
        "json-not-an-array",
        "json",
        serde_json::to_vec(&serde_json::json!({ "cases": objs })).unwrap(),
    ));

    let mut truncated = serde_json::to_vec(&objects(&rows)).unwrap();
    truncated.truncate(truncated.len() / 2);
    cases.push(("json-truncated", "json", truncated));

    let mut objs: Vec<serde_json::Value> = objects(&rows).into_iter().map(Into::into).collect();
    objs.push(serde_json::json!("ZQMARKSTRAY"));
    cases.push((
        "json-non-object-element",
        "json",
        serde_json::to_vec(&objs).unwrap(),
    ));

    let mut objs = objects(&rows);
    objs[2].remove("reason");
    cases.push((
        "json-row-without-graded-key",
        "json",
        serde_json::to_vec(&objs).unwrap(),
    ));

    let mut bad = serde_json::to_vec(&objects(&rows)).unwrap();
    let at = String::from_utf8_lossy(&bad).find("ZQMARK1").unwrap() + 7;
    bad.insert(at, 0xff);
    cases.push(("json-bad-utf8", "json", bad));

    // Canonical in every graded column, but not in one the run does not grade (spec section 8:
    // the golden file is read strictly, all of it).
    let well_formed = String::from_utf8(well_formed_golden()).unwrap();
    let with_generation = |third: &str| {
        let mut lines: Vec<String> = well_formed.lines().map(str::to_owned).collect();
        lines[0].push_str(",generation");
        lines[1].push_str(",7");
        lines[2].push_str(",8");
        lines[3].push_str(&format!(",{third}"));
        lines.join("\n") + "\n"
    };
    cases.push((
        "ungraded-column-value",
        "csv",
        with_generation("ZQMARKGEN").into_bytes(),
    ));

    // A structural error and value errors together: all are listed, none shown to learners.
    let mut both = with_generation("ZQMARKGEN");
    both.push_str("case-1,ZQMARKDUP,x,ZQMARKDUPDECISION,ZQMARKDUPREASON,true,1\n");
    cases.push(("structural-and-value-errors", "csv", both.into_bytes()));

    // A key given twice: an error, not the last value winning.
    let twice = well_formed
        .lines()
        .skip(1)
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            format!(
                "{{\"case_id\":\"{}\",\"decision\":\"{}\",\"reason\":\"{}\",\"lease_expired\":true,\"decision\":\"{}\"}}",
                cells[0], cells[3], cells[4], "ZQMARKTWICE"
            )
        })
        .collect::<Vec<_>>()
        .join(",\n");
    cases.push(("json-key-twice", "json", format!("[{twice}]").into_bytes()));

    // A key that names no column, holding a marker (and named by one), and one past the record limit.
    let mut objs = objects(&rows);
    objs[1].insert("ZQMARKKEYNAME".into(), serde_json::json!("ZQMARKKEYVALUE"));
    objs[2].insert(
        "notes".into(),
        serde_json::json!(format!("ZQMARKLONG{}", "y".repeat((1 << 20) + 100))),
    );
    cases.push((
        "json-unknown-keys",
        "json",
        serde_json::to_vec(&objs).unwrap(),
    ));
    // A header cell that names no column, in a CSV golden file.
    let mut rows = marked_rows(3);
    rows[0][column("job_id")] = "ZQMARKHEADER".to_owned();
    cases.push(("unknown-header", "csv", csv_text(&rows)));
    let rows = marked_rows(3);

    // A workbook whose sheet holds one cell past 1 MiB (more than Excel lets a cell hold, so
    // written by hand): stopped at the cell's limit.
    let inline = |row: usize, col: usize, text: &str| {
        format!(
            "<c r=\"{}{}\" t=\"inlineStr\"><is><t>{text}</t></is></c>",
            (b'A' + col as u8) as char,
            row + 1
        )
    };
    let header: String = rows[0]
        .iter()
        .enumerate()
        .map(|(c, name)| inline(0, c, name))
        .collect();
    let huge = format!("ZQMARKCELL{}", "z".repeat((1 << 20) + 100));
    let sheet = format!(
        "<worksheet><sheetData><row r=\"1\">{header}</row><row r=\"2\">{}{}</row></sheetData></worksheet>",
        inline(1, 0, "case-1"),
        inline(1, 1, &huge)
    );
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, body) in [
        ("xl/workbook.xml", "<workbook xmlns:r=\"r\"><sheets><sheet name=\"Key\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>".to_owned()),
        ("xl/_rels/workbook.xml.rels", "<Relationships><Relationship Id=\"rId1\" Target=\"worksheets/sheet1.xml\"/></Relationships>".to_owned()),
        ("xl/worksheets/sheet1.xml", sheet),
    ] {
        zip.start_file(name, zip::write::SimpleFileOptions::default()).unwrap();
        std::io::Write::write_all(&mut zip, body.as_bytes()).unwrap();
    }
    cases.push((
        "workbook-huge-cell",
        "xlsx",
        zip.finish().unwrap().into_inner(),
    ));

    // Not malformed: every answer is wrong, and the golden values must stay hidden. Golden
    // files are read strictly (values in canonical form), so its graded cells hold real codes
    // that no report has any other reason to show ([`GOLDEN_CODES`]), and its free-text cells
    // markers.
    cases.push(("well-formed", "csv", well_formed_golden()));
    cases
}

/// A learner's submission: every case answered wrongly, one case the golden file lacks.
const SUBMISSION: &str = "case_id,decision,reason,lease_expired\n\
case-1,EXPIRD,within_lease,maybe\n\
case-2,ACTIVE,within_lease,false\n\
case-3,,,\n\
case-99,ACTIVE,within_lease,true\n";

/// Every file under `dir` with its bytes.
fn files_under(dir: &Path, found: &mut Vec<(PathBuf, Vec<u8>)>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, found);
        } else {
            found.push((path.clone(), fs::read(&path).unwrap()));
        }
    }
}

fn leaks(text: &[u8]) -> Vec<&'static str> {
    let text = String::from_utf8_lossy(text).to_ascii_lowercase();
    [MARK, KEY_DIR, KEY_STEM]
        .into_iter()
        .chain(GOLDEN_CODES)
        .filter(|secret| text.contains(secret))
        .collect()
}

/// Runs `grade` on the golden `name` in `format` (with a gradebook, an item analysis and the
/// report in a file); returns every output as (what, bytes) and the exit code.
fn run(
    golden: &(&str, &str, Vec<u8>),
    format: &str,
    extra: &[&str],
) -> (Vec<(String, Vec<u8>)>, Option<i32>) {
    let dir = tempfile::tempdir().unwrap();
    let key_dir = dir.path().join(KEY_DIR);
    fs::create_dir(&key_dir).unwrap();
    let key = key_dir.join(format!("{KEY_STEM}-{}.{}", golden.0, golden.1));
    fs::write(&key, &golden.2).unwrap();
    let work = dir.path().join("work");
    fs::create_dir(&work).unwrap();
    fs::write(work.join("learner.csv"), SUBMISSION).unwrap();
    let mut outputs = Vec::new();
    let mut code = None;
    // Once to standard output, once to a file with the instructor's CSV files beside it.
    for to_file in [false, true] {
        let mut args: Vec<String> = [
            "grade",
            "learner.csv",
            "--golden",
            key.to_str().unwrap(),
            "-f",
            format,
            "--columns",
            "decision,reason,lease_expired",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        if to_file {
            args.extend(
                [
                    "-o",
                    "report.out",
                    "--gradebook",
                    "gradebook.csv",
                    "--item-analysis",
                    "items.csv",
                ]
                .iter()
                .map(|s| s.to_string()),
            );
        }
        let output = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
            .args(&args)
            .current_dir(&work)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        code = output.status.code();
        outputs.push((format!("stdout (to_file: {to_file})"), output.stdout));
        outputs.push((format!("stderr (to_file: {to_file})"), output.stderr));
    }
    let mut files = Vec::new();
    files_under(&work, &mut files);
    for (path, bytes) in files {
        if path.file_name().unwrap() != "learner.csv" {
            outputs.push((path.display().to_string(), bytes));
        }
    }
    (outputs, code)
}

/// Every golden file graded in `format` with `extra`: the expected exit code, and no marker,
/// golden value or part of the key's path in any output.
fn assert_no_leak_without_reveal(format: &str, extra: &[&str]) {
    let mut failures = Vec::new();
    for golden in &malformed_goldens() {
        let (outputs, code) = run(golden, format, extra);
        let expected: &[i32] = if golden.0 == "well-formed" {
            &[1]
        } else {
            &[2]
        };
        if !code.is_some_and(|code| expected.contains(&code)) {
            failures.push(format!(
                "{} -f {format} {extra:?}: exit {code:?}, expected one of {expected:?}",
                golden.0
            ));
        }
        for (what, bytes) in &outputs {
            // "golden" is the instructor's word: the report a learner reads (standard output,
            // or the `-o` file) says "the key", or nothing.
            let learners = what.starts_with("stdout") || what.ends_with("report.out");
            if learners
                && String::from_utf8_lossy(bytes)
                    .to_ascii_lowercase()
                    .contains("golden")
            {
                failures.push(format!(
                    "{} -f {format} {extra:?}: {what} says \"golden\":\n{}",
                    golden.0,
                    String::from_utf8_lossy(bytes)
                ));
            }
            let found = leaks(bytes);
            if !found.is_empty() {
                failures.push(format!(
                    "{} -f {format} {extra:?}: {what} shows {found:?}:\n{}",
                    golden.0,
                    String::from_utf8_lossy(bytes)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A test per report format, with the default feedback and with `--feedback none`.
mod no_golden_value_or_path_leaks_without_reveal {
    macro_rules! per_format {
        ($($format:ident, $without_feedback:ident;)*) => {
            // A format's name is its test's with `-` for `_`.
            #[test]
            fn covers_every_format() {
                assert_eq!(
                    super::FORMATS.map(str::to_owned),
                    [$(stringify!($format).replace('_', "-")),*]
                );
            }
            $(
                #[test]
                fn $format() {
                    super::assert_no_leak_without_reveal(&stringify!($format).replace('_', "-"), &[]);
                }
                #[test]
                fn $without_feedback() {
                    super::assert_no_leak_without_reveal(
                        &stringify!($format).replace('_', "-"),
                        &["--feedback", "none"],
                    );
                }
            )*
        };
    }

    per_format! {
        table, table_without_feedback;
        json, json_without_feedback;
        junit, junit_without_feedback;
        github, github_without_feedback;
        markdown, markdown_without_feedback;
        gradescope, gradescope_without_feedback;
        prairielearn, prairielearn_without_feedback;
        github_classroom, github_classroom_without_feedback;
    }
}

#[test]
fn a_malformed_golden_file_tells_the_learner_to_ask() {
    for golden in malformed_goldens() {
        if golden.0 == "well-formed" {
            continue;
        }
        let (outputs, _) = run(&golden, "table", &[]);
        assert!(
            String::from_utf8_lossy(&outputs[0].1)
                .contains("the key is malformed; contact your instructor"),
            "{}: {}",
            golden.0,
            String::from_utf8_lossy(&outputs[0].1)
        );
    }
}

/// The control: with `--reveal` the instructor sees the problem in full, so the check above
/// can see a leak when there is one.
#[test]
fn reveal_shows_the_instructor_everything() {
    let goldens = malformed_goldens();
    for name in [
        "bad-utf8-cell",
        "json-object-in-cell",
        "ungraded-column-value",
        "well-formed",
    ] {
        let golden = goldens.iter().find(|g| g.0 == name).unwrap();
        for format in FORMATS {
            let (outputs, _) = run(golden, format, &["--reveal"]);
            let text = String::from_utf8_lossy(&outputs[0].1).to_ascii_lowercase();
            // A malformed file's problems quote its markers; the well-formed one's expected
            // values are its codes.
            let secret = if name == "well-formed" {
                GOLDEN_CODES[0]
            } else {
                MARK
            };
            assert!(
                text.contains(secret),
                "{name} -f {format} --reveal hides the golden values:\n{text}"
            );
        }
    }
}

/// A golden file that cannot be read (missing, a directory) is not "malformed": learners are
/// told it cannot be read, still without its name; `--golden -` is a usage error, since
/// standard input is for a submission.
#[test]
fn an_unreadable_golden_file_is_not_called_malformed() {
    let dir = tempfile::tempdir().unwrap();
    let key_dir = dir.path().join(KEY_DIR);
    fs::create_dir(&key_dir).unwrap();
    fs::create_dir(key_dir.join(format!("{KEY_STEM}-dir.csv"))).unwrap();
    fs::write(dir.path().join("learner.csv"), SUBMISSION).unwrap();
    for golden in [
        key_dir.join(format!("{KEY_STEM}-missing.csv")),
        key_dir.join(format!("{KEY_STEM}-dir.csv")),
    ] {
        for format in FORMATS {
            let output = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
                .args(["grade", "learner.csv", "--golden"])
                .arg(&golden)
                .args(["-f", format])
                .current_dir(dir.path())
                .output()
                .unwrap();
            let what = format!("{} -f {format}", golden.display());
            assert_eq!(output.status.code(), Some(2), "{what}");
            let stderr = String::from_utf8_lossy(&output.stderr);
            // Standard error is the one running `grade`'s: what is wrong, not whom to ask
            // (issue 29); still without the key's name.
            assert!(
                stderr.contains("the golden file given with --golden cannot be read ("),
                "{what}: {stderr}"
            );
            assert!(!stderr.contains("malformed"), "{what}: {stderr}");
            for text in [&output.stdout, &output.stderr] {
                assert_eq!(leaks(text), Vec::<&str>::new(), "{what}");
            }
        }
    }
    fs::write(dir.path().join("-"), SUBMISSION).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .args(["grade", "learner.csv", "--golden", "-"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--golden -"), "{stderr}");
    assert!(output.stdout.is_empty());
}
