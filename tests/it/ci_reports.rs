//! `check` on bad input, as CI sees it: the JUnit file is written with an `<error>` testcase
//! per problem, GitHub annotations respect the per-step limit with the rest in the step
//! summary, Markdown says what is wrong, the exit code is 2; `check -` reads standard input.

use std::path::{Path, PathBuf};

use crate::common::{self, root, Run};

fn leasejudge(args: &[&str], env: &[(&str, &Path)], stdin: &str) -> Run {
    let mut run = common::leasejudge(args)
        .env_remove(&["GITHUB_STEP_SUMMARY"])
        .stdin(stdin);
    for (name, value) in env {
        run = run.env(name, value);
    }
    run.run()
}

/// A case file whose first `n` data rows have an unknown event (lines 2..=n+1).
fn bad_cases(dir: &Path, n: usize) -> PathBuf {
    let mut text = String::from(
        "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n",
    );
    for i in 0..n {
        text.push_str(&format!("c{i},teleport,2026-01-01T10:00:00Z,j,L,1,w,30\n"));
    }
    let path = dir.join("bad.csv");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn junit_names_every_problem_as_an_error_testcase() {
    let dir = tempfile::tempdir().unwrap();
    let cases = bad_cases(dir.path(), 3);
    let report = dir.path().join("report.xml");
    let run = leasejudge(
        &[
            "check",
            cases.to_str().unwrap(),
            "--golden",
            "golden/probes.csv",
            "-o",
            report.to_str().unwrap(),
        ],
        &[],
        "",
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stderr.matches("teleport").count(), 3, "{}", run.stderr);
    let xml = std::fs::read_to_string(&report).expect("the JUnit file is written");
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let errors: Vec<roxmltree::Node> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .filter(|n| n.children().any(|c| c.has_tag_name("error")))
        .collect();
    assert_eq!(errors.len(), 3, "{xml}");
    for (i, case) in errors.iter().enumerate() {
        let name = case.attribute("name").unwrap();
        assert!(name.ends_with(&format!("bad.csv:{}", i + 2)), "{name}");
        let error = case.children().find(|c| c.has_tag_name("error")).unwrap();
        assert!(error.attribute("message").unwrap().contains("teleport"));
    }
}

#[test]
fn github_annotates_up_to_the_step_limit_and_summarises_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let cases = bad_cases(dir.path(), 25);
    let summary = dir.path().join("summary.md");
    let run = leasejudge(
        &[
            "check",
            cases.to_str().unwrap(),
            "--golden",
            "golden/probes.csv",
            "-f",
            "github",
        ],
        &[("GITHUB_STEP_SUMMARY", &summary)],
        "",
    );
    assert_eq!(run.code, 2);
    let annotations: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("::error"))
        .collect();
    assert_eq!(annotations.len(), 10, "{}", run.stdout);
    for (i, line) in annotations[..9].iter().enumerate() {
        assert!(line.contains(&format!(",line={},", i + 2)), "{line}");
        assert!(line.contains("file="), "{line}");
    }
    assert!(
        annotations[9].contains("16 more input errors"),
        "{}",
        annotations[9]
    );
    // Every problem is in the log and in the step summary.
    for i in 2..=26 {
        assert!(
            run.stdout.contains(&format!("bad.csv:{i}: ")),
            "line {i} not in the log"
        );
    }
    let summary = std::fs::read_to_string(&summary).expect("the step summary is written");
    assert_eq!(summary.matches("teleport").count(), 25, "{summary}");
    // Few problems: one annotation each, no "more".
    let few = bad_cases(dir.path(), 2);
    let run = leasejudge(
        &[
            "check",
            few.to_str().unwrap(),
            "--golden",
            "golden/probes.csv",
            "-f",
            "github",
        ],
        &[],
        "",
    );
    assert_eq!(
        run.stdout
            .lines()
            .filter(|l| l.starts_with("::error"))
            .count(),
        2
    );
    assert!(!run.stdout.contains("more input errors"));
}

#[test]
fn markdown_says_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let cases = bad_cases(dir.path(), 2);
    let run = leasejudge(
        &[
            "check",
            cases.to_str().unwrap(),
            "--golden",
            "golden/probes.csv",
            "-f",
            "markdown",
        ],
        &[],
        "",
    );
    assert_eq!(run.code, 2);
    assert!(run.stdout.contains("2 input errors"), "{}", run.stdout);
    assert_eq!(run.stdout.matches("teleport").count(), 2, "{}", run.stdout);
    assert!(run.stdout.contains("| 2 |") && run.stdout.contains("| 3 |"));
}

#[test]
fn check_reads_a_case_file_from_standard_input() {
    let probes = std::fs::read_to_string(root().join("cases/probes.csv")).unwrap();
    let run = leasejudge(
        &["check", "-", "--golden", "golden/probes.csv"],
        &[],
        &probes,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("4 cases, 4 matched"), "{}", run.stdout);
    // A difference on standard input is reported against `-`.
    let changed = probes.replacen("worker-b", "worker-z", 1);
    let run = leasejudge(
        &[
            "check",
            "-",
            "--golden",
            "golden/probes.csv",
            "--columns",
            "all",
        ],
        &[],
        &changed,
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    // The table lists only what differs (and the summary) unless --verbose.
    assert!(
        run.stdout.contains("probe-1") && !run.stdout.contains("probe-2"),
        "{}",
        run.stdout
    );
    let verbose = leasejudge(
        &[
            "check",
            "-",
            "--golden",
            "golden/probes.csv",
            "--columns",
            "all",
            "--verbose",
        ],
        &[],
        &changed,
    );
    assert!(verbose.stdout.contains("probe-2"), "{}", verbose.stdout);
    assert!(verbose.stdout.lines().count() > run.stdout.lines().count());
    // A golden directory cannot pair standard input.
    let run = leasejudge(&["check", "-", "--golden", "golden/"], &[], &probes);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("--golden must be a file"),
        "{}",
        run.stderr
    );
}
