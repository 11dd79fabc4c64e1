//! Every line a command prints for people fits the width rule (issue 40): `COLUMNS`, else the
//! terminal, else 80. Each command runs at 60, 80 and 120 columns, and every line of its
//! standard output and standard error is measured in display columns; no code or path of a
//! table is split inside a word at any width; and on a terminal an ungradable submission's
//! problem is said once. A located problem (`FILE:LINE: column: message`) on standard error
//! is one line whatever its length, as compilers write them, so it is the one line not
//! measured.

use std::path::Path;

use crate::common::leasejudge;

/// How many columns `text` takes on a terminal.
fn width(text: &str) -> usize {
    leasejudge::terminal::display_width(text)
}

/// A located problem on standard error: `leasejudge: FILE:LINE: …` or `FILE:LINE: …`.
fn located(line: &str) -> bool {
    let line = line.strip_prefix("leasejudge: ").unwrap_or(line);
    let Some((file, rest)) = line.split_once(':') else {
        return false;
    };
    !file.contains(' ')
        && rest.split_once(':').is_some_and(|(number, _)| {
            !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())
        })
}

/// The runs measured: every command of the issue, in the human formats.
fn runs(scratch: &Path) -> Vec<Vec<String>> {
    let out = |name: &str| scratch.join(name).to_string_lossy().into_owned();
    let lab = "examples/lab";
    [
        vec![
            "grade",
            "--golden",
            "examples/lab/key.csv",
            "examples/lab/submissions/",
        ],
        vec![
            "grade",
            "--golden",
            "examples/lab/key.csv",
            "examples/lab/submissions/dee.json",
            "--reveal",
            "-v",
        ],
        vec![
            "grade",
            "--golden",
            "examples/lab/key.csv",
            "examples/lab/submissions/ben.csv",
            "--cases",
            "examples/lab/cases.csv",
            "--feedback",
            "hint",
        ],
        vec!["check", "cases/", "--golden", "golden/"],
        vec![
            "check",
            "examples/lab/cases.csv",
            "--golden",
            "tests/data/grading/grade-wrong/golden.csv",
            "-v",
        ],
        vec!["shortcuts", "examples/lab/cases.csv"],
        vec!["shortcuts", "cases/", "--columns", "all"],
        vec!["explain", "cases/probes.csv"],
        vec!["explain", "cases/"],
        vec!["adjudicate", "cases/", "-f", "table"],
        vec!["adjudicate", "cases/probes.csv", "--explain", "-f", "table"],
        vec!["adjudicate", "cases/probes.csv", "-f", "table", "--wide"],
        vec![
            "precheck",
            "examples/lab/submissions/ben.csv",
            "--cases",
            "examples/lab/cases.csv",
        ],
        vec![
            "precheck",
            "examples/lab/submissions/cy.csv",
            "--cases",
            "examples/lab/cases.csv",
        ],
        vec![
            "autograder",
            "gradescope",
            "--golden",
            "examples/lab/key.csv",
            "--cases",
            "examples/lab/cases.csv",
            "-o",
            &out("ag.zip"),
        ],
        vec![
            "autograder",
            "prairielearn",
            "--golden",
            "examples/lab/key.csv",
            "--cases",
            "examples/lab/cases.csv",
            "-o",
            &out("lab-1"),
        ],
        vec![
            "autograder",
            "github-classroom",
            "--cases",
            "examples/lab/cases.csv",
            "--practice-key",
            "examples/lms/github-classroom/practice-key.csv",
            "-o",
            &out("template"),
        ],
    ]
    .into_iter()
    .map(|args| {
        let _ = lab;
        args.into_iter().map(str::to_owned).collect()
    })
    .collect()
}

#[test]
fn every_line_fits_60_80_and_120_columns() {
    let mut over = Vec::new();
    for columns in [60usize, 80, 120] {
        let scratch = tempfile::tempdir().unwrap();
        for args in runs(scratch.path()) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let run = leasejudge(&args)
                .env("COLUMNS", columns.to_string())
                .env("NO_COLOR", "1")
                .run();
            assert!(run.code <= 2, "{args:?}: {}", run.stderr);
            for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
                for line in text.lines() {
                    if width(line) > columns && !(stream == "stderr" && located(line)) {
                        over.push(format!("{columns}: {args:?} {stream}: {line}"));
                    }
                }
            }
            // Built again into the same place the next time round.
            let _ = std::fs::remove_dir_all(scratch.path().join("template"));
        }
    }
    assert!(
        over.is_empty(),
        "{} lines too wide:\n{}",
        over.len(),
        over.join("\n")
    );
}

/// The words of `text` that hold a code or a path (a `_` or a `/`), table borders and
/// punctuation around them taken off.
fn codes_and_paths(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || "│┆║".contains(c))
        .map(|word| word.trim_matches(|c: char| ",;()\"'".contains(c)))
        .filter(|word| word.contains('_') || word.contains('/'))
        .filter(|word| !word.chars().any(|c| "─═┼╪┬┴╡╞┌┐└┘".contains(c)))
        .map(str::to_owned)
        .collect()
}

#[test]
fn no_code_or_path_of_a_table_is_split_at_any_width() {
    // `grade`'s, `check`'s and `shortcuts`'s tables keep every word whole; `adjudicate`'s may break a code
    // after a `_`, between its words (`RECONCILIATION_` / `REQUIRED`, as docs/reference.md
    // says), which ecosystem.rs checks.
    let key = "examples/lab/key.csv";
    let tables: [&[&str]; 5] = [
        &["shortcuts", "examples/lab/cases.csv"],
        &["grade", "--golden", key, "examples/lab/submissions/"],
        &[
            "grade",
            "--golden",
            key,
            "examples/lab/submissions/dee.json",
            "-v",
        ],
        &[
            "grade",
            "--golden",
            key,
            "examples/lab/submissions/",
            "-v",
            "--reveal",
        ],
        &[
            "check",
            "examples/lab/cases.csv",
            "--golden",
            "tests/data/grading/grade-wrong/golden.csv",
            "-v",
        ],
    ];
    let mut split = Vec::new();
    for args in tables {
        // Wide enough for every row whole: the words as they are.
        let whole = leasejudge(args).env("NO_COLOR", "1").run().stdout;
        let words = codes_and_paths(&whole);
        assert!(!words.is_empty(), "{args:?}");
        for columns in [40, 60, 80, 120] {
            let narrow = leasejudge(args)
                .env("COLUMNS", columns.to_string())
                .env("NO_COLOR", "1")
                .run()
                .stdout;
            let found = codes_and_paths(&narrow);
            for word in &words {
                if !found.contains(word) {
                    split.push(format!("{columns}: {args:?}: {word}"));
                }
            }
        }
    }
    split.dedup();
    assert!(
        split.is_empty(),
        "split inside a word:\n{}",
        split.join("\n")
    );
}

/// What `command` (a shell command line) writes to a terminal 100 columns wide, standard
/// output and standard error both, or `None` without script(1).
fn on_terminal(command: &str) -> Option<String> {
    let line = format!("stty cols 100 rows 24; {command}");
    let out = std::process::Command::new("script")
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .current_dir(crate::common::root())
        .env_remove("COLUMNS")
        .env("NO_COLOR", "1")
        .output()
        .ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn an_ungradable_submission_is_said_once_on_a_terminal() {
    let binary = env!("CARGO_BIN_EXE_leasejudge");
    let command = format!("{binary} grade --golden examples/lab/key.csv examples/lab/submissions/");
    let Some(shown) = on_terminal(&command) else {
        eprintln!("no script(1): nothing to check");
        return;
    };
    assert_eq!(shown.matches("duplicated case id").count(), 1, "{shown}");
    assert!(
        shown.contains("1 submission could not be graded (the report above says why)"),
        "{shown}"
    );
    // Piped, standard error lists it for a log, and the report has it too.
    let run = leasejudge(&[
        "grade",
        "--golden",
        "examples/lab/key.csv",
        "examples/lab/submissions/",
    ])
    .run();
    assert_eq!(run.stdout.matches("duplicated case id").count(), 1);
    assert_eq!(run.stderr.matches("duplicated case id").count(), 1);
}
