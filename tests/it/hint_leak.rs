//! Hints cite rows, never rules (issue 22): over generated corpora that hold every (decision,
//! reason) pair the contract has, a hint is `look again at lines … of FILE` and nothing else.
//!
//! - Its text is exactly what its file name and line numbers render to ([`reference`], written
//!   here, not taken from the crate), so it carries no more than which lines to read: no
//!   contract section, no rule's name, no word of any decision, reason, row reason or event
//!   code (checked word by word as well, with a message that says which).
//! - Its lines are the case's own rows, cited by `explain`'s sentence for the correct verdict.
//! - In every report format, a `--feedback hint` report with exactly those texts taken out is
//!   the `--feedback cases` report: a hint adds its text and nothing else, anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use leasejudge::explain::CaseTrace;
use leasejudge::grading::hint::{cited_lines, hint};
use leasejudge::lease::{
    AckState, CaseReason, Decision, Disposition, Event, RowReason, TerminalResult,
};

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

/// The only words a hint says besides its file name and numbers.
const HINT_WORDS: [&str; 7] = ["look", "again", "at", "line", "lines", "and", "in"];

/// A hint as its file and lines alone say it: `look again at lines 6, 8 and 9 in cases.csv`.
fn reference(file: &str, lines: &[u64]) -> String {
    let numbers: Vec<String> = lines.iter().map(u64::to_string).collect();
    let cited = match numbers.as_slice() {
        [] => String::new(),
        [one] => format!("line {one} in "),
        [rest @ .., last] => format!("lines {} and {last} in ", rest.join(", ")),
    };
    format!("look again at {cited}{file}")
}

/// Every word a hint may not say: each word of every decision, reason, row reason, event,
/// ack state, terminal result and disposition code, and the words the contract's sections
/// and rules are named by (the titles hints once cited among them).
fn forbidden_words() -> BTreeSet<String> {
    let mut codes: Vec<&str> = Vec::new();
    codes.extend(Decision::ALL.iter().map(|c| c.as_str()));
    codes.extend(CaseReason::ALL.iter().map(|c| c.as_str()));
    codes.extend(RowReason::ALL.iter().map(|c| c.as_str()));
    codes.extend(Event::ALL.iter().map(|c| c.as_str()));
    codes.extend(AckState::ALL.iter().map(|c| c.as_str()));
    codes.extend(TerminalResult::ALL.iter().map(|c| c.as_str()));
    codes.extend(Disposition::ALL.iter().map(|c| c.as_str()));
    let rules = "section spec contract rule step clock identity check offers acks renewals \
                 results cancellation expiry stale generations late progress";
    codes
        .iter()
        .flat_map(|code| code.split('_'))
        .chain(rules.split_whitespace())
        .map(str::to_ascii_lowercase)
        .collect()
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
}

/// A scratch directory with generated case files and their golden matrices.
struct Corpus {
    /// Kept for its files' lifetime.
    _dir: tempfile::TempDir,
    /// (case file, golden file), named neutrally: the hint names its case file.
    files: Vec<(PathBuf, PathBuf)>,
}

fn leasejudge(dir: &Path, args: &[&str]) -> std::process::Output {
    crate::common::leasejudge(args)
        .dir(dir)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "1000")
        .output()
}

/// The generated corpus: 120 cases each of a plain, a messy and another plain file, and
/// their golden matrices.
const CORPUS: [(&str, &str); 3] = [("1", "plain"), ("2", "messy"), ("3", "plain")];

/// Generates the `index`th file of [`CORPUS`] in `dir`: (case file, golden file).
fn corpus_file(dir: &Path, index: usize) -> (PathBuf, PathBuf) {
    let (seed, style) = CORPUS[index];
    let cases = format!("lab{index}.csv");
    let golden = format!("answers{index}.csv");
    let run = leasejudge(
        dir,
        &[
            "generate", "--cases", "120", "--seed", seed, "--style", style, "-o", &cases,
            "--golden", &golden,
        ],
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    (dir.join(cases), dir.join(golden))
}

fn corpus() -> Corpus {
    let dir = tempfile::tempdir().unwrap();
    let files = (0..CORPUS.len())
        .map(|index| corpus_file(dir.path(), index))
        .collect();
    Corpus { _dir: dir, files }
}

/// Every (decision, reason) the generator's scenarios end in: every pair the contract has.
fn every_pair() -> BTreeSet<(String, String)> {
    let run = leasejudge(Path::new("."), &["generate", "--list-scenarios"]);
    let pairs: BTreeSet<(String, String)> = String::from_utf8(run.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let n = fields.len();
            (fields[n - 2].to_owned(), fields[n - 1].to_owned())
        })
        .collect();
    assert_eq!(pairs.len(), 17, "{pairs:?}");
    pairs
}

fn traces(case_file: &Path) -> Vec<CaseTrace> {
    leasejudge::ops::explain::traces(&[case_file.to_owned()], None, None, &[]).unwrap()
}

#[test]
fn a_hint_is_its_file_and_lines_and_nothing_else() {
    let corpus = corpus();
    let forbidden = forbidden_words();
    for word in HINT_WORDS {
        assert!(!forbidden.contains(word), "{word} is a word of a code");
    }
    let mut pairs = BTreeSet::new();
    let mut failures = Vec::new();
    for (case_file, _) in &corpus.files {
        for trace in traces(case_file) {
            let verdict = &trace.verdict;
            pairs.insert((
                verdict.decision.as_str().to_owned(),
                verdict.reason.as_str().to_owned(),
            ));
            let hint = hint(&trace);
            let text = hint.describe();
            let what = format!(
                "{} ({} {})",
                trace.case_id, verdict.decision, verdict.reason
            );
            if text != reference(trace.file(), &hint.lines) {
                failures.push(format!("{what}: {text:?} says more than its lines"));
            }
            let file_words: BTreeSet<String> = words(trace.file()).collect();
            for word in words(&text) {
                let allowed = HINT_WORDS.contains(&word.as_str())
                    || file_words.contains(&word)
                    || word.bytes().all(|b| b.is_ascii_digit());
                if !allowed || forbidden.contains(&word) {
                    failures.push(format!("{what}: {text:?} says {word:?}"));
                }
            }
            // The lines: the case's own rows, ascending, that explain's sentence cites.
            let own: BTreeSet<u64> = trace.rows.iter().map(|r| r.source.line).collect();
            let sentence = leasejudge::explain::sentence::sentence(&trace);
            let cited: Vec<u64> = cited_lines(sentence.split_once(": ").unwrap().1)
                .into_iter()
                .filter(|line| own.contains(line))
                .collect();
            let sorted = hint.lines.windows(2).all(|w| w[0] < w[1]);
            if hint.lines.is_empty()
                || !sorted
                || !hint.lines.iter().all(|line| own.contains(line))
                || (!cited.is_empty() && hint.lines != cited)
            {
                failures.push(format!(
                    "{what}: lines {:?}; the case's rows {own:?}; explain cites {cited:?}",
                    hint.lines
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let missing: Vec<_> = every_pair().difference(&pairs).cloned().collect();
    assert!(missing.is_empty(), "the corpus lacks {missing:?}");
}

/// Each case's hint as the library makes it, by case id.
fn expected_hints(case_file: &Path) -> BTreeMap<String, (String, Vec<u64>)> {
    traces(case_file)
        .iter()
        .map(|trace| {
            let hint = hint(trace);
            (trace.case_id.clone(), (hint.file, hint.lines))
        })
        .collect()
}

/// The table's cells, row by row, without the borders and padding that a wider column
/// changes, and without the lines that are only a hint.
fn table_cells(text: &str, hints: &BTreeSet<String>) -> Vec<Vec<String>> {
    text.lines()
        .filter(|line| !line.starts_with(['┌', '╞', '├', '└']))
        .map(|line| {
            line.split(['│', '┆'])
                .map(|cell| cell.trim().to_owned())
                .collect::<Vec<_>>()
        })
        .filter(|cells| {
            let text: Vec<&String> = cells.iter().filter(|c| !c.is_empty()).collect();
            !(text.len() == 1 && hints.contains(text[0].as_str()))
        })
        .collect()
}

/// The JSON report without hints: each case's `hint` object (which must hold only `file`
/// and `lines`, as `expected` says), its hint line in `problems`, and the feedback level.
fn without_hints(
    mut report: serde_json::Value,
    expected: &BTreeMap<String, (String, Vec<u64>)>,
    failures: &mut Vec<String>,
) -> serde_json::Value {
    report["feedback"] = "cases".into();
    for submission in report["submissions"].as_array_mut().unwrap() {
        for case in submission["cases"].as_array_mut().unwrap() {
            let id = case["case_id"].as_str().unwrap().to_owned();
            let case = case.as_object_mut().unwrap();
            let Some(hint) = case.remove("hint") else {
                continue;
            };
            let (file, lines) = &expected[&id];
            if hint != serde_json::json!({"file": file, "lines": lines}) {
                failures.push(format!("json: {id}: hint {hint}"));
            }
            let problems = case["problems"].as_array_mut().unwrap();
            let text = serde_json::Value::from(reference(file, lines));
            problems.retain(|p| *p != text);
        }
    }
    report
}

/// Every format, graded on a blank template of the `index`th corpus file, adds the hint
/// text and nothing else.
fn every_format_adds_the_hint_text_and_nothing_else(index: usize) {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let mut failures = Vec::new();
    let (case_file, golden) = &corpus_file(dir, index);
    let cases = case_file.file_name().unwrap().to_str().unwrap();
    let golden = golden.file_name().unwrap().to_str().unwrap();
    let blank = format!("blank-{cases}");
    let made = leasejudge(
        dir,
        &[
            "template",
            cases,
            "--columns",
            "decision,reason",
            "-o",
            &blank,
        ],
    );
    assert!(made.status.success());
    // The lines as the library gives them, the file as the command line names it.
    let expected: BTreeMap<String, (String, Vec<u64>)> = expected_hints(case_file)
        .into_iter()
        .map(|(id, (_, lines))| (id, (cases.to_owned(), lines)))
        .collect();
    let texts: BTreeSet<String> = expected
        .values()
        .map(|(file, lines)| reference(file, lines))
        .collect();
    for format in FORMATS {
        let hinted = leasejudge(
            dir,
            &[
                "grade",
                "--golden",
                golden,
                &blank,
                "--cases",
                cases,
                "--feedback",
                "hint",
                "-f",
                format,
            ],
        );
        // With the case files too: they name the shortcuts in the instructor's table and
        // JSON whatever the feedback, so that only the hints tell the two apart.
        let plain = leasejudge(
            dir,
            &[
                "grade", "--golden", golden, &blank, "--cases", cases, "-f", format,
            ],
        );
        assert_eq!(hinted.status.code(), Some(1), "{format}");
        let hinted = String::from_utf8(hinted.stdout).unwrap();
        let plain = String::from_utf8(plain.stdout).unwrap();
        let what = format!("{cases} -f {format}");
        if hinted.to_ascii_lowercase().contains("section") {
            failures.push(format!("{what}: names a section"));
        }
        // "Golden" is the instructor's word: a learner's report says "the key" (issue 40).
        if hinted.to_ascii_lowercase().contains("golden") {
            failures.push(format!("{what}: says golden:\n{hinted}"));
        }
        let shown = hinted.matches("look again at").count();
        if shown < expected.len() {
            failures.push(format!(
                "{what}: {shown} hints for {} wrong cases",
                expected.len()
            ));
        }
        let same = match format {
            "table" => table_cells(&hinted, &texts) == table_cells(&plain, &texts),
            "json" => {
                let report = serde_json::from_str(&hinted).unwrap();
                without_hints(report, &expected, &mut failures)
                    == serde_json::from_str::<serde_json::Value>(&plain).unwrap()
            }
            _ => {
                // Each format joins a case's problems its own way; the hint comes last.
                let mut rest = hinted.clone();
                for text in &texts {
                    for joiner in ["%0A", "<br>", "; ", "\\n", "\n"] {
                        rest = rest.replace(&format!("{joiner}{text}"), "");
                    }
                }
                rest == plain
            }
        };
        if !same {
            failures.push(format!(
                "{what}: with the hints taken out, not the report without hints:\n{hinted}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_format_adds_the_hint_text_and_nothing_else_for_plain_cases() {
    every_format_adds_the_hint_text_and_nothing_else(0);
}

#[test]
fn every_format_adds_the_hint_text_and_nothing_else_for_messy_cases() {
    every_format_adds_the_hint_text_and_nothing_else(1);
}

#[test]
fn every_format_adds_the_hint_text_and_nothing_else_for_other_plain_cases() {
    every_format_adds_the_hint_text_and_nothing_else(2);
}

/// The learner-facing formats: what a platform shows the one learner.
const LEARNER_FORMATS: [&str; 3] = ["gradescope", "prairielearn", "github-classroom"];

/// A shortcut as `--feedback shortcut` names it: its name and section, from the catalogue,
/// and a count, nothing else.
fn shortcut_line(name: &str, explains: u64) -> String {
    let shortcut = leasejudge::lease::Shortcut::from_name(name).expect("in the catalogue");
    format!(
        "Shortcut: {name} (contract section {}) explains {explains} of your wrong cases.",
        shortcut.section()
    )
}

/// `--feedback shortcut` (issue 37): on every submission of the class made by following one
/// shortcut each, in each platform's output, the report is the `--feedback cases` report
/// plus the shortcuts the instructor's JSON report names, each a line of its name, its
/// contract section and a count (written here from the catalogue), so no golden value and no
/// decision or reason code; and without the flag, the platforms' outputs are the same with
/// the case files given or not.
#[test]
fn shortcut_feedback_adds_the_shortcuts_names_and_sections_and_nothing_else() {
    let dir = crate::common::root().join("tests/data/grading/grade-shortcuts-class");
    let lab: Vec<String> = crate::learner_shortcuts::LAB
        .iter()
        .map(|name| {
            crate::common::root()
                .join("cases")
                .join(name)
                .display()
                .to_string()
        })
        .collect();
    let codes: BTreeSet<String> = Decision::ALL
        .iter()
        .map(|c| c.as_str().to_ascii_lowercase())
        .chain(
            CaseReason::ALL
                .iter()
                .map(|c| c.as_str().to_ascii_lowercase()),
        )
        .collect();
    let mut failures = Vec::new();
    let mut named = 0;
    let mut submissions: Vec<PathBuf> = std::fs::read_dir(dir.join("submissions"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    submissions.sort();
    for submission in &submissions {
        let name = submission.display().to_string();
        let run = |extra: &[&str]| {
            let mut args = vec!["grade", "--golden", "key.csv", name.as_str()];
            args.extend(extra);
            let out = leasejudge(&dir, &args);
            String::from_utf8(out.stdout).unwrap()
        };
        let mut with_cases = vec!["--cases"];
        with_cases.extend(lab.iter().map(String::as_str));
        let report: serde_json::Value =
            serde_json::from_str(&run(&[&with_cases[..], &["-f", "json"]].concat())).unwrap();
        let lines: Vec<String> = report["submissions"][0]["shortcuts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| shortcut_line(s["name"].as_str().unwrap(), s["explains"].as_u64().unwrap()))
            .collect();
        named += lines.len();
        for line in &lines {
            let words = line
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map(str::to_ascii_lowercase);
            if let Some(code) = words.into_iter().find(|w| codes.contains(w)) {
                failures.push(format!("{name}: {line:?} says the code {code}"));
            }
        }
        for format in LEARNER_FORMATS {
            let what = format!("{name} -f {format}");
            let feedback = |level: &str, cases: bool| {
                let mut args = vec!["-f", format, "--feedback", level];
                if cases {
                    args.extend(&with_cases);
                }
                run(&args)
            };
            let cases = feedback("cases", true);
            if cases != feedback("cases", false) {
                failures.push(format!("{what}: --cases changes the learner's output"));
            }
            let shortcut = feedback("shortcut", true);
            let rest = if format == "github-classroom" {
                // A first test of no points carries the lines.
                let mut document: serde_json::Value = serde_json::from_str(&shortcut).unwrap();
                let tests = document["tests"].as_array_mut().unwrap();
                if !lines.is_empty() {
                    let first = tests.remove(0);
                    if first["name"] != "Shortcuts" || first["message"] != lines.join("\n") {
                        failures.push(format!("{what}: the first test is {first}"));
                    }
                }
                document == serde_json::from_str::<serde_json::Value>(&cases).unwrap()
            } else {
                let mut rest = shortcut.clone();
                for line in &lines {
                    if !rest.contains(line.as_str()) {
                        failures.push(format!("{what}: lacks {line:?}"));
                    }
                    rest = rest.replace(&format!("\\n{line}"), "");
                }
                rest == cases
            };
            if !rest {
                failures.push(format!(
                    "{what}: with the shortcuts taken out, not the --feedback cases output:\n\
                     {shortcut}\n---\n{cases}"
                ));
            }
        }
    }
    assert!(named >= 13, "the class names its shortcuts: {named}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
