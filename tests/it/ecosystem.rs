//! The CLI's fit with its ecosystem: shell completions, the man page, `--color` and the
//! colour conventions, and a table that fits the terminal's width.

use std::process::Command;

use crate::common::{self, root, Run};

/// Runs leasejudge from the repository root with a clean colour environment plus `env`.
fn leasejudge_env(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut run = common::leasejudge(args).env_remove(&[
        "NO_COLOR",
        "CLICOLOR",
        "CLICOLOR_FORCE",
        "TERM",
        "COLUMNS",
    ]);
    for (name, value) in env {
        run = run.env(name, value);
    }
    run.run()
}

fn leasejudge(args: &[&str]) -> Run {
    leasejudge_env(args, &[])
}

const SUBCOMMANDS: [&str; 11] = [
    "adjudicate",
    "generate",
    "explain",
    "check",
    "grade",
    "validate",
    "reorder",
    "shortcuts",
    "template",
    "completions",
    "man",
];

#[test]
fn completions_are_real_scripts_for_every_shell() {
    // A marker each shell's completion system needs to load the script.
    let shells = [
        ("bash", "complete -F _leasejudge"),
        ("zsh", "#compdef leasejudge"),
        ("fish", "complete -c leasejudge"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion:arg-completer[leasejudge]"),
    ];
    for (shell, marker) in shells {
        let run = leasejudge(&["completions", shell]);
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        assert!(run.stdout.contains(marker), "{shell} lacks {marker:?}");
        for sub in SUBCOMMANDS {
            assert!(run.stdout.contains(sub), "{shell} does not complete {sub}");
        }
        assert!(
            run.stdout.contains("golden"),
            "{shell} lacks check's options"
        );
    }
    let bad = leasejudge(&["completions", "tcsh"]);
    assert_eq!(bad.code, 2);
    // bash itself parses the script, where bash is installed.
    if Command::new("bash").arg("--version").output().is_ok() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("leasejudge.bash");
        std::fs::write(&script, leasejudge(&["completions", "bash"]).stdout).unwrap();
        let status = Command::new("bash")
            .arg("-n")
            .arg(&script)
            .status()
            .unwrap();
        assert!(status.success(), "bash -n rejects the completion script");
    }
}

/// The manual through the binary: one page with its sections on standard output; with
/// `--dir`, a page per command beside what the directory held. That the pages document every
/// command and option of the tree, and that groff formats them without a warning, is the
/// binary's own test (`commands::man::tests`), on the bytes `man` writes.
#[test]
fn the_man_page_and_the_man_dir_are_written() {
    let run = leasejudge(&["man"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = &run.stdout;
    assert!(page.contains(".TH leasejudge 1"), "no title macro");
    for section in ["NAME", "SYNOPSIS", "OPTIONS", "SUBCOMMANDS"] {
        assert!(page.contains(&format!(".SH {section}")), "no {section}");
    }
    for sub in SUBCOMMANDS {
        let heading = format!(".SH \"LEASEJUDGE {}\"", sub.to_uppercase());
        assert!(page.contains(&heading), "no section {heading}");
    }
    // The autograder's options, which the page once left out.
    for option in ["\\-\\-qid", "\\-\\-practice\\-key", "\\-\\-points"] {
        assert!(page.contains(option), "no {option}");
    }
    // The one page points at its own sections, never at pages that are not installed.
    assert!(!page.contains("(1)\n"), "names another page:\n{page}");
    // That groff formats every page without a warning is the binary's own test
    // (src/commands/man/tests.rs), on the same bytes.

    let dir = tempfile::tempdir().unwrap();
    let man1 = dir.path().join("share/man1");
    // Something of the reader's own in the directory stays.
    std::fs::create_dir_all(&man1).unwrap();
    std::fs::write(man1.join("other.1"), "kept").unwrap();
    let run = leasejudge(&["man", "--dir", man1.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert_eq!(
        std::fs::read_to_string(man1.join("other.1")).unwrap(),
        "kept"
    );
    for name in [
        "leasejudge",
        "leasejudge-grade",
        "leasejudge-autograder-gradescope",
    ] {
        let page = std::fs::read_to_string(man1.join(format!("{name}.1"))).unwrap();
        assert!(
            page.contains(&format!(".TH {name} 1")),
            "{name}.1 has no title"
        );
    }
}

#[test]
fn color_is_offered_only_where_something_is_coloured() {
    for shell in ["bash", "fish", "zsh"] {
        let script = leasejudge(&["completions", shell]).stdout;
        assert!(
            script.contains("--dir") || script.contains("'--dir"),
            "{shell}"
        );
    }
    let bash = leasejudge(&["completions", "bash"]).stdout;
    let man = &bash[bash.find("leasejudge__subcmd__man)").unwrap()..];
    let man_opts = man.lines().nth(1).unwrap();
    assert!(!man_opts.contains("--color"), "{man_opts}");
    let grade = &bash[bash.find("leasejudge__subcmd__grade)").unwrap()..];
    assert!(grade.lines().nth(1).unwrap().contains("--color"));
    // Still accepted (a global option), and ignored, on both.
    assert_eq!(leasejudge(&["man", "--color", "never"]).code, 0);
    assert_eq!(
        leasejudge(&["--color", "always", "completions", "bash"]).code,
        0
    );
    // The top-level help describes every autograder.
    let help = leasejudge(&["--help"]).stdout;
    let autograder = help
        .lines()
        .find(|l| l.trim_start().starts_with("autograder"))
        .unwrap();
    let described: String = help[help.find(autograder).unwrap()..]
        .lines()
        .take(2)
        .collect();
    for platform in ["Gradescope", "PrairieLearn", "GitHub Classroom"] {
        assert!(described.contains(platform), "{described}");
    }
}

const ESC: char = '\u{1b}';

#[test]
fn color_follows_the_option_then_the_conventions() {
    let table = ["adjudicate", "cases/probes.csv", "-f", "table"];
    let coloured = |extra: &[&str], env: &[(&str, &str)]| {
        let args: Vec<&str> = extra.iter().chain(table.iter()).copied().collect();
        let run = leasejudge_env(&args, env);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout.contains(ESC)
    };
    // Standard output is a pipe here: auto does not colour it.
    assert!(!coloured(&[], &[]));
    assert!(coloured(&["--color", "always"], &[]));
    assert!(coloured(&[], &[("CLICOLOR_FORCE", "1")]));
    assert!(!coloured(
        &[],
        &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]
    ));
    assert!(!coloured(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]));
    assert!(coloured(
        &["--color", "always"],
        &[("NO_COLOR", "1"), ("TERM", "dumb")]
    ));
    // The option is global: after the subcommand too, and on check's table.
    let run = leasejudge_env(
        &[
            "check",
            "cases/probes.csv",
            "--golden",
            "golden/probes.csv",
            "--color",
            "always",
            "--verbose",
        ],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains(ESC), "check's table is not coloured");
    // Colour never leaks into machine formats.
    let csv = leasejudge(&[
        "--color",
        "always",
        "adjudicate",
        "cases/probes.csv",
        "-f",
        "csv",
    ]);
    assert!(!csv.stdout.contains(ESC));
}

fn table_at(width: u16, extra: &[&str]) -> String {
    let mut args = vec!["adjudicate", "cases/", "-f", "table"];
    args.extend_from_slice(extra);
    let run = leasejudge_env(&args, &[("COLUMNS", &width.to_string())]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

/// Every case's decision and reason from the golden files, for checking that none is wrapped.
fn golden_codes() -> Vec<(String, String)> {
    let mut codes = Vec::new();
    for entry in std::fs::read_dir(root().join("golden")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("csv") {
            continue;
        }
        let mut reader = csv::Reader::from_path(&path).unwrap();
        for record in reader.records() {
            let record = record.unwrap();
            codes.push((record[21].to_owned(), record[22].to_owned()));
        }
    }
    assert!(codes.len() > 50);
    codes
}

#[test]
fn the_default_table_fits_80_120_and_300_columns_without_wrapping_a_code() {
    let codes = golden_codes();
    for width in [80u16, 120, 300] {
        let text = table_at(width, &[]);
        let header = text.lines().next().unwrap();
        for column in ["case_id", "decision", "reason", "findings"] {
            assert!(
                header.contains(column),
                "{width}: no {column} in {header:?}"
            );
        }
        assert!(
            !header.contains("holder_identity"),
            "{width}: not the default columns"
        );
        for line in text.lines() {
            assert!(
                line.chars().count() <= usize::from(width),
                "{width}: a line of {} characters: {line:?}",
                line.chars().count()
            );
        }
        // Each case's decision and reason stand whole on one line of the table.
        for (decision, reason) in &codes {
            let whole = text.lines().any(|line| {
                let cells: Vec<&str> = line.split('┆').map(str::trim).collect();
                cells.contains(&decision.as_str()) && cells.contains(&reason.as_str())
            });
            assert!(
                whole,
                "{width}: {decision} / {reason} is wrapped or missing"
            );
        }
    }
}

#[test]
fn wide_shows_every_column_side_by_side_or_as_records() {
    let wide = table_at(300, &["--wide"]);
    let header = wide.lines().next().unwrap();
    let headers: Vec<&str> = header.split('┆').map(str::trim).collect();
    assert_eq!(headers.len(), 23, "{header}");
    assert_eq!(headers[0], "case_id");
    assert_eq!(headers[22], "reason");
    assert!(wide.lines().all(|line| line.chars().count() <= 300));
    assert!(wide.contains("RECONCILIATION_REQUIRED"));
    // At 80 columns 23 columns cannot fit: one record per case, a line per column.
    let records = table_at(80, &["--columns", "all"]);
    assert!(!records.contains('┆'));
    let first: Vec<&str> = records.lines().take(23).collect();
    assert!(first[0].starts_with("case_id "), "{first:?}");
    assert!(first[4].starts_with("holder_identity "), "{first:?}");
    assert!(first[22].starts_with("reason "), "{first:?}");
    for line in records.lines() {
        assert!(!line.contains("RECONCILIA\n"));
    }
    // Named columns, in the order given.
    let picked = table_at(120, &["--columns", "decision,case_id"]);
    let header: Vec<&str> = picked
        .lines()
        .next()
        .unwrap()
        .split('┆')
        .map(str::trim)
        .collect();
    assert_eq!(header, ["decision", "case_id"]);
    let bad = leasejudge_env(
        &["adjudicate", "cases/", "-f", "table", "--columns", "nope"],
        &[],
    );
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("no such column: nope"),
        "{}",
        bad.stderr
    );
}

#[test]
fn a_table_of_many_pages_keeps_its_column_widths() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("many.csv");
    let run = leasejudge(&[
        "generate",
        "--seed",
        "7",
        "--cases",
        "1500",
        "-o",
        cases.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = leasejudge_env(
        &["adjudicate", cases.to_str().unwrap(), "-f", "table"],
        &[("COLUMNS", "100")],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines.len() > 1500, "one line per case at least");
    // Every line puts its column rules at the header's places: the pages share widths.
    let rules = |line: &str| -> Vec<usize> {
        line.chars()
            .enumerate()
            .filter(|(_, c)| *c == '┆' || *c == '╪')
            .map(|(i, _)| i)
            .collect()
    };
    let expected = rules(lines[0]);
    assert_eq!(expected.len(), 3);
    for line in &lines[1..] {
        assert_eq!(rules(line), expected, "{line:?}");
    }
    // The streamed table lists the cases of the CSV matrix, in order.
    let csv = leasejudge(&["adjudicate", cases.to_str().unwrap(), "-f", "csv"]);
    let ids: Vec<String> = csv
        .stdout
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_owned())
        .collect();
    let shown: Vec<String> = lines[2..]
        .iter()
        .map(|l| l.split('┆').next().unwrap().trim().to_owned())
        .filter(|id| !id.is_empty())
        .collect();
    assert_eq!(shown, ids);
}

/// Every piece a code may be shown as when its column is too narrow for it: a run of its
/// consecutive parts, each part ending after one of `breaks` (`RECONCILIATION_`,
/// `generation=7`), never a piece of a word.
fn pieces(code: &str, breaks: &[char]) -> Vec<String> {
    let parts: Vec<&str> = code.split_inclusive(breaks).collect();
    let mut pieces = Vec::new();
    for start in 0..parts.len() {
        for end in start + 1..=parts.len() {
            pieces.push(parts[start..end].concat());
        }
    }
    pieces
}

#[test]
fn codes_and_findings_break_only_between_words_at_any_width() {
    // The golden matrices' decisions, reasons and findings, as the table shows them.
    let mut decisions = std::collections::HashSet::new();
    let mut reasons = std::collections::HashSet::new();
    let mut findings = std::collections::HashSet::new();
    for entry in std::fs::read_dir(root().join("golden")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("csv") {
            continue;
        }
        let mut reader = csv::Reader::from_path(&path).unwrap();
        for record in reader.records() {
            let record = record.unwrap();
            decisions.extend(pieces(&record[21], &['_']));
            reasons.extend(pieces(&record[22], &['_']));
            for (index, name) in [(17, "stale_generation"), (18, "late_progress")] {
                if !record[index].is_empty() {
                    let finding = format!("{name}={}", &record[index]);
                    findings.extend(pieces(&finding, &['_', '=', ';']));
                }
            }
            for (index, name) in [(19, "lease_expired"), (20, "ownership_conflict")] {
                if &record[index] == "true" {
                    findings.extend(pieces(name, &['_', '=', ';']));
                }
            }
        }
    }
    let mut side_by_side = 0;
    for width in [56u16, 60, 64, 70, 76, 80, 90, 100, 120] {
        let text = table_at(width, &[]);
        for line in text.lines().skip(2) {
            assert!(
                line.chars().count() <= usize::from(width),
                "{width}: {line:?}"
            );
            let cells: Vec<&str> = line.split('┆').map(str::trim).collect();
            if cells.len() != 4 {
                continue;
            }
            side_by_side += 1;
            for (cell, shown, what) in [
                (cells[1], &decisions, "decision"),
                (cells[2], &reasons, "reason"),
            ] {
                assert!(
                    cell.is_empty() || shown.contains(cell),
                    "{width}: the {what} piece {cell:?} splits a word: {line:?}"
                );
            }
            for finding in cells[3].split(", ").filter(|f| !f.is_empty()) {
                assert!(
                    findings.contains(finding),
                    "{width}: the finding piece {finding:?} splits a word: {line:?}"
                );
            }
        }
    }
    assert!(side_by_side > 500, "the tables were drawn side by side");
}

#[test]
fn a_piped_table_is_80_columns_wide_unless_columns_says_otherwise() {
    // The table's lines (the summary sentences are prose, which a terminal wraps).
    let widest = |text: &str| {
        text.lines()
            .filter(|line| line.contains(['┆', '│', '─', '═']))
            .map(|line| line.chars().count())
            .max()
            .unwrap_or(0)
    };
    // No terminal, no COLUMNS: 80, whatever the colour.
    let adjudicate = leasejudge(&["adjudicate", "cases/", "-f", "table"]);
    assert_eq!(adjudicate.code, 0, "{}", adjudicate.stderr);
    assert!(widest(&adjudicate.stdout) <= 80, "{}", adjudicate.stdout);
    let grade = [
        "grade",
        "tests/data/grading/grade-wrong/submission.csv",
        "--golden",
        "tests/data/grading/grade-wrong/golden.csv",
    ];
    for color in ["never", "always"] {
        let mut args = vec!["--color", color];
        args.extend(grade);
        let run = leasejudge(&args);
        assert_eq!(run.code, 1, "{}", run.stderr);
        let plain: String = strip_ansi(&run.stdout);
        assert!(widest(&plain) <= 80, "--color {color}:\n{plain}");
        // COLUMNS sets the width, coloured or not: narrower, or wide enough for whole rows.
        for (columns, fits) in [("60", true), ("300", false)] {
            let run = leasejudge_env(&args, &[("COLUMNS", columns)]);
            let plain = strip_ansi(&run.stdout);
            let width = widest(&plain);
            assert!(
                width <= columns.parse().unwrap(),
                "COLUMNS={columns}:\n{plain}"
            );
            assert_eq!(width <= 80, fits, "COLUMNS={columns}:\n{plain}");
        }
    }
    // check's table too.
    let check = leasejudge(&[
        "check",
        "cases/probes.csv",
        "--golden",
        "golden/probes.csv",
        "-v",
    ]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    assert!(widest(&check.stdout) <= 80, "{}", check.stdout);
}

/// `text` without its ANSI colour sequences.
fn strip_ansi(text: &str) -> String {
    let mut plain = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            plain.push(c);
        }
    }
    plain
}
