//! Every located problem in a workbook names its sheet (issue 40): `cases.xlsx[Lab 3]:3`, as
//! docs/spreadsheets.md shows, for a case file and for a learner's matrix, in every command
//! that reads them.

use std::path::Path;

use crate::common::leasejudge;

fn workbook(path: &Path, sheet: &str, rows: &[&str]) {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| row.split(',').map(str::to_owned).collect())
        .collect();
    let header: Vec<&str> = rows[0].iter().map(String::as_str).collect();
    let bytes = leasejudge::input::workbook::matrix_xlsx(sheet, &header, &rows[1..]).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// The lines of `text` that locate a problem in `file` at a line (`file:3:` or
/// `file[Sheet]:3:`), and those of them that do not name `sheet`.
fn unnamed<'t>(text: &'t str, file: &str, sheet: &str) -> (usize, Vec<&'t str>) {
    let at_line = |rest: &str| {
        rest.strip_prefix(':')
            .and_then(|rest| rest.split_once(':'))
            .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let located: Vec<&str> = text
        .lines()
        .map(|line| line.trim_start().trim_start_matches("leasejudge: "))
        .filter(|line| {
            let Some(rest) = line.strip_prefix(file) else {
                return false;
            };
            let rest = match rest.strip_prefix('[') {
                Some(sheeted) => sheeted.split_once(']').map_or("", |(_, rest)| rest),
                None => rest,
            };
            at_line(rest)
        })
        .collect();
    let bare = located
        .iter()
        .copied()
        .filter(|line| !line.starts_with(&format!("{file}[{sheet}]:")))
        .collect();
    (located.len(), bare)
}

#[test]
fn a_case_files_problems_name_its_sheet() {
    let dir = tempfile::tempdir().unwrap();
    let cases =
        std::fs::read_to_string(crate::common::root().join("examples/lab/cases.csv")).unwrap();
    let mut rows: Vec<String> = cases.lines().map(str::to_owned).collect();
    // Row 3 a timestamp that is none; row 5 a case of another file's id twice is fine, so a
    // second error: an event that is none.
    rows[2] = rows[2].replacen("2026-01-01T10:00:", "yesterday-", 1);
    rows[4] = rows[4].replacen(",renew,", ",renewal,", 1);
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    workbook(&dir.path().join("cases.xlsx"), "Lab 3", &rows);
    for args in [
        vec!["adjudicate", "cases.xlsx"],
        vec!["validate", "cases.xlsx"],
        vec!["explain", "cases.xlsx"],
        vec!["check", "cases.xlsx", "--golden", "key.csv"],
    ] {
        std::fs::copy(
            crate::common::root().join("examples/lab/key.csv"),
            dir.path().join("key.csv"),
        )
        .unwrap();
        let run = leasejudge(&args).dir(dir.path()).run();
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        let (located, bare) = unnamed(&run.stderr, "cases.xlsx", "Lab 3");
        assert!(located >= 1, "{args:?}: {}", run.stderr);
        assert!(bare.is_empty(), "{args:?}: {bare:#?}");
    }
}

#[test]
fn a_learners_workbook_problems_name_its_sheet() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        crate::common::root().join("examples/lab/key.csv"),
        dir.path().join("key.csv"),
    )
    .unwrap();
    std::fs::copy(
        crate::common::root().join("examples/lab/cases.csv"),
        dir.path().join("cases.csv"),
    )
    .unwrap();
    // A case id twice (rows 2 and 4), and a row of another lab.
    workbook(
        &dir.path().join("bob.xlsx"),
        "Answers",
        &[
            "case_id,decision,reason",
            "probe-1,ACTIVE,stale_generation",
            "probe-2,EXPIRD,expired_without_result",
            "probe-1,ACTIVE,within_lease",
        ],
    );
    for args in [
        vec!["grade", "--golden", "key.csv", "bob.xlsx"],
        vec!["grade", "--golden", "key.csv", "bob.xlsx", "-f", "json"],
        vec!["grade", "--golden", "key.csv", "bob.xlsx", "-f", "github"],
        vec!["precheck", "bob.xlsx", "--cases", "cases.csv"],
    ] {
        let run = leasejudge(&args).dir(dir.path()).run();
        assert_eq!(run.code, 2, "{args:?}: {}{}", run.stdout, run.stderr);
        // An annotation's file is its own property: `file=bob.xlsx[Answers],line=4`.
        let all = format!("{}\n{}", run.stdout, run.stderr)
            .replace("file=", "\n")
            .replace(",line=", ":");
        let (located, bare) = unnamed(&all, "bob.xlsx", "Answers");
        assert!(located >= 1, "{args:?}:\n{all}");
        assert!(bare.is_empty(), "{args:?}: {bare:#?}\n{all}");
    }
    // The graded case's problems name it too, where they are located.
    workbook(
        &dir.path().join("ann.xlsx"),
        "Answers",
        &[
            "case_id,decision,reason",
            "probe-1,ACTIVE,stale_generation",
            "probe-2,EXPIRD,expired_without_result",
            "probe-9,ACTIVE,within_lease",
        ],
    );
    // Graded: its rows' places in every report, and the warning of a row the key lacks.
    for format in ["table", "markdown", "github", "gradescope"] {
        let run = leasejudge(&["grade", "--golden", "key.csv", "ann.xlsx", "-f", format])
            .dir(dir.path())
            .run();
        assert_eq!(run.code, 1, "{format}: {}", run.stderr);
        // Markdown escapes the brackets; an annotation gives the line as its own property.
        let text = run.stdout.replace('\\', "").replace(",line=", ":");
        assert!(
            text.contains("ann.xlsx[Answers]:3"),
            "{format}:\n{}",
            run.stdout
        );
        assert!(
            text.contains("ann.xlsx[Answers]:4"),
            "{format}:\n{}",
            run.stdout
        );
        for bare in ["ann.xlsx:3", "ann.xlsx:4", "ann.xlsx,line="] {
            assert!(!text.contains(bare), "{format}:\n{}", run.stdout);
        }
    }
    let run = leasejudge(&["precheck", "ann.xlsx", "--cases", "cases.csv"])
        .dir(dir.path())
        .run();
    let (located, bare) = unnamed(&run.stdout, "ann.xlsx", "Answers");
    assert!(located >= 2, "{}", run.stdout);
    assert!(bare.is_empty(), "{bare:#?}\n{}", run.stdout);
}
