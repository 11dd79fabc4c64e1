//! `leasejudge explain` and `adjudicate --explain`: explaining never changes a decision
//! (checked against adjudication for every case file in `cases/`), and snapshots of the
//! text trace, sentences, Mermaid, JSON and HTML structure under `tests/data/explain/`.
//!
//! Snapshots: each `NAME.cmd` there is one ([`crate::snapshot`]), some with the filter
//! `html-structure` (a page's elements and text, not its styles).

use std::fs;
use std::path::PathBuf;

use leasejudge::commands::explain::traces;
use leasejudge::input::{expand_inputs, is_case_file};
use leasejudge::matrix::MatrixRow;

use crate::reference;
use reference::judge_sources;

use crate::common::root;

fn leasejudge(args: &[&str]) -> std::process::Output {
    // The table's width and colour must not depend on the caller's environment.
    crate::common::leasejudge(args)
        .env_remove(&["COLUMNS", "CLICOLOR_FORCE"])
        .output()
}

fn case_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(root().join("cases"))
        .expect("cases/ exists")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| is_case_file(path))
        .collect();
    files.sort();
    files
}

/// For every case file in `cases/`, the explained verdict and matrix row equal
/// adjudication's, case by case and in the same order.
#[test]
fn explain_verdicts_equal_adjudication_for_every_case_file() {
    let files = case_files();
    assert!(!files.is_empty(), "cases/ holds case files");
    let mut cases = 0;
    for file in &files {
        let sources = expand_inputs(std::slice::from_ref(file)).expect("the file exists");
        let mut rows_seen: Vec<String> = Vec::new();
        let judged = judge_sources(&sources, None, None, &mut |_, row, _| {
            rows_seen.push(row.case_id.to_string())
        })
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let explained = traces(std::slice::from_ref(file), None, None, &[])
            .unwrap_or_else(|e| panic!("{}: {e:#}", file.display()));
        let judged_ids: Vec<&str> = judged.iter().map(|j| j.case_id.as_str()).collect();
        let explained_ids: Vec<&str> = explained.iter().map(|t| t.case_id.as_str()).collect();
        assert_eq!(explained_ids, judged_ids, "{}", file.display());
        for (judged, trace) in judged.iter().zip(&explained) {
            assert_eq!(trace.verdict, judged.verdict, "{}", judged.case_id);
            assert_eq!(
                trace.matrix,
                MatrixRow::new(&judged.case_id, &judged.case, &judged.verdict),
                "{}",
                judged.case_id
            );
            let seen = rows_seen.iter().filter(|id| **id == judged.case_id).count();
            assert_eq!(
                trace.rows.len(),
                seen,
                "{}: every row is traced",
                judged.case_id
            );
            cases += 1;
        }
    }
    assert!(cases > 0);
}

/// The command-line view of the same promise, with `--as-of`: `explain --format json` and
/// `adjudicate --explain --format json` over the whole `cases/` directory agree on decision,
/// reason and sentence for every case.
#[test]
fn explain_cli_agrees_with_adjudicate_detail_column() {
    for as_of in [None, Some("2026-06-01T00:00:00Z")] {
        let mut adjudicate_args = vec!["adjudicate", "cases", "--explain", "-f", "json"];
        let mut explain_args = vec!["explain", "cases", "-f", "json"];
        if let Some(t) = as_of {
            adjudicate_args.extend(["--as-of", t]);
            explain_args.extend(["--as-of", t]);
        }
        let matrix = leasejudge(&adjudicate_args);
        assert!(matrix.status.success(), "{:?}", matrix);
        let explained = leasejudge(&explain_args);
        assert!(explained.status.success(), "{:?}", explained);
        let matrix: serde_json::Value = serde_json::from_slice(&matrix.stdout).unwrap();
        let explained: serde_json::Value = serde_json::from_slice(&explained.stdout).unwrap();
        let matrix = matrix.as_array().unwrap();
        let explained = explained.as_array().unwrap();
        assert_eq!(matrix.len(), explained.len());
        assert!(!matrix.is_empty());
        for (row, trace) in matrix.iter().zip(explained) {
            let verdict = &trace["verdict"];
            assert_eq!(row["case_id"], trace["case_id"]);
            assert_eq!(row["decision"], verdict["decision"], "{}", row["case_id"]);
            assert_eq!(row["reason"], verdict["reason"], "{}", row["case_id"]);
            assert_eq!(row["detail"], verdict["sentence"], "{}", row["case_id"]);
            assert_eq!(&verdict["matrix"]["decision"], &row["decision"]);
            let keys: Vec<&String> = row.as_object().unwrap().keys().collect();
            assert_eq!(keys[keys.len() - 2..], ["reason", "detail"]);
        }
    }
}

/// The HTML page loads nothing from anywhere: no scripts, no external references (with the
/// witnesses marked too).
#[test]
fn html_is_self_contained_and_escaped() {
    for witness in [None, Some("--witness")] {
        html_is_self_contained_and_escaped_with(witness);
    }
}

fn html_is_self_contained_and_escaped_with(witness: Option<&str>) {
    let mut args = vec![
        "explain",
        "tests/data/explain/probes.csv",
        "tests/data/explain/hostile.csv",
        "-f",
        "html",
    ];
    args.extend(witness);
    let out = leasejudge(&args);
    assert!(out.status.success(), "{out:?}");
    let page = String::from_utf8(out.stdout).unwrap();
    let lower = page.to_ascii_lowercase();
    assert!(!lower.contains("<script"), "no script elements");
    for reference in ["src=", "@import", "url(http", "<link", "<iframe"] {
        assert!(
            !lower.contains(reference),
            "no external reference {reference}"
        );
    }
    // Links only within the page: each mark to its row of the trace, whose id is there.
    let links: Vec<&str> = page.split("href=\"").skip(1).collect();
    assert!(!links.is_empty(), "marks link to their trace rows");
    for link in links {
        let target = &link[..link.find('"').unwrap()];
        let id = target.strip_prefix('#').expect("an in-page link");
        assert!(page.contains(&format!("<tr id=\"{id}\"")), "no row {id}");
    }
    let without_namespace = lower.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(
        !without_namespace.contains("http://e\""),
        "user URLs never become attributes"
    );
    assert!(page.contains("x&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(!page.contains("<i>;"), "holder markup is escaped");
}

/// An unknown `--case` is an error (exit 2) that leaves an existing `-o` file untouched.
#[test]
fn unknown_case_leaves_output_file_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("page.html");
    fs::write(&target, "keep me").unwrap();
    let out = leasejudge(&[
        "explain",
        "tests/data/explain/probes.csv",
        "--case",
        "probe-1",
        "nope",
        "-o",
        target.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(fs::read_to_string(&target).unwrap(), "keep me");
    let leftovers = fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(leftovers, 1, "no temporary file is left behind");

    let out = leasejudge(&[
        "explain",
        "tests/data/explain/probes.csv",
        "--case",
        "probe-2",
        "-o",
        target.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let page = fs::read_to_string(&target).unwrap();
    assert!(
        page.starts_with("<!DOCTYPE html>"),
        "html chosen by the .html extension"
    );
    assert!(page.contains("probe-2") && !page.contains("probe-1"));
}

/// Reduces an HTML page to its structure: one line per element (name, id and class), and the
/// text of headings, sentences and `<title>` hover texts; geometry and styling are dropped.
fn html_structure(page: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut rest = page;
    let mut capture: Option<String> = None;
    while let Some(start) = rest.find('<') {
        let text = &rest[..start];
        if let Some(name) = &capture {
            let text = text.trim();
            if !text.is_empty() {
                out.push_str(&format!("{}  {name}: {text}\n", "  ".repeat(depth)));
            }
        }
        let end = rest[start..].find('>').expect("tags close") + start;
        let tag = &rest[start + 1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            depth = depth.saturating_sub(1);
            if capture.as_deref() == Some(name) {
                capture = None;
            }
            continue;
        }
        let self_closing = tag.ends_with('/');
        let name: String = tag
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '/')
            .collect();
        let mut line = name.clone();
        for attribute in ["id", "class"] {
            let needle = format!(" {attribute}=\"");
            if let Some(at) = tag.find(&needle) {
                let value = &tag[at + needle.len()..];
                let value = &value[..value.find('"').unwrap_or(value.len())];
                line.push_str(&format!(" {attribute}={value}"));
            }
        }
        out.push_str(&format!("{}{line}\n", "  ".repeat(depth)));
        if ["meta", "br"].contains(&name.as_str()) || self_closing {
            continue;
        }
        if [
            "title", "h1", "h2", "p", "summary", "text", "td", "th", "span",
        ]
        .contains(&name.as_str())
        {
            capture = Some(name.clone());
        }
        if name == "style" {
            // The stylesheet is presentation, not structure.
            let close = rest.find("</style>").expect("style closes");
            rest = &rest[close..];
        }
        depth += 1;
    }
    out
}

/// Every snapshot under `tests/data/explain/`.
#[test]
fn explain_snapshots() {
    let dir = root().join("tests/data/explain");
    crate::snapshot::run_all(&dir, 5, &[("html-structure", html_structure)]);
}

/// The labels of one SVG text line: (x start, x end, text), by the page's own width estimate
/// for its 11 px monospace labels (6.7 px a character; the screenshot script checks it).
fn svg_labels(svg: &str) -> Vec<(String, f64, f64, String)> {
    let mut labels = Vec::new();
    for piece in svg.split("<text ").skip(1) {
        let Some(close) = piece.find('>') else {
            continue;
        };
        let attributes = format!(" {}", &piece[..close]);
        let body = &piece[close + 1..piece.find("</text>").unwrap()];
        // A <title> inside a text is hover text, not drawn.
        let drawn = match body.find("</title>") {
            Some(end) => &body[end + "</title>".len()..],
            None => body,
        };
        let attribute = |name: &str| -> Option<&str> {
            let start = attributes.find(&format!(" {name}=\""))? + name.len() + 3;
            let rest = &attributes[start..];
            Some(&rest[..rest.find('"')?])
        };
        if matches!(attribute("class"), Some("lane-label" | "tick")) {
            continue; // the lane column and the axis have their own rows
        }
        let x: f64 = attribute("x").unwrap().parse().unwrap();
        let y = attribute("y").unwrap().to_owned();
        let width = drawn.chars().count() as f64 * 6.7;
        let start = match attribute("text-anchor") {
            Some("middle") => x - width / 2.0,
            Some("end") => x - width,
            _ => x,
        };
        labels.push((y, start, start + width, drawn.to_owned()));
    }
    labels
}

/// No two labels of a timeline overlap: marks close in time stack their labels in rows (or
/// drop one), and labels under a bar (`cancel`, the result) take a second line.
#[test]
fn timeline_labels_never_overlap() {
    let mut inputs: Vec<String> = std::fs::read_dir(root().join("cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e == "csv" || e == "json" || e == "ndjson")
        })
        .map(|p| {
            p.strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    inputs.sort();
    let mut args = vec!["explain"];
    args.extend(inputs.iter().map(String::as_str));
    args.extend(["-f", "html"]);
    let out = leasejudge(&args);
    assert!(out.status.success(), "{out:?}");
    let page = String::from_utf8(out.stdout).unwrap();
    let mut checked = 0;
    let mut overlaps = Vec::new();
    for svg in page.split("<svg xmlns").skip(1) {
        let svg = &svg[..svg.find("</svg>").unwrap()];
        let labels = svg_labels(svg);
        for (i, a) in labels.iter().enumerate() {
            for b in &labels[i + 1..] {
                checked += 1;
                if a.0 == b.0 && a.1 < b.2 && b.1 < a.2 {
                    overlaps.push(format!("{:?} over {:?} at y={}", a.3, b.3, a.0));
                }
            }
        }
    }
    assert!(checked > 1000, "too few labels compared ({checked})");
    assert!(
        overlaps.is_empty(),
        "{} overlapping labels:\n{}",
        overlaps.len(),
        overlaps.join("\n")
    );
}

/// Without `--case`, HTML and Mermaid show the first `--limit` cases and say how many were
/// left out; `--limit 0`, `--case` and the text format show every case asked for.
#[test]
fn html_and_mermaid_show_the_first_cases_of_a_large_input() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("many.csv");
    let cases = cases.to_str().unwrap();
    let out = leasejudge(&["generate", "--seed", "5", "--cases", "520", "-o", cases]);
    assert!(out.status.success(), "{out:?}");
    let count = |args: &[&str], marker: &str| {
        let mut all = vec!["explain", cases];
        all.extend_from_slice(args);
        let out = leasejudge(&all);
        assert!(out.status.success(), "{out:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        (
            stdout.matches(marker).count(),
            stdout,
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (shown, page, stderr) = count(&["-f", "html"], "<section class=\"case\"");
    assert_eq!(shown, 500);
    assert!(page.contains("Only the first 500 cases are shown; 20 more were left out."));
    assert!(
        stderr.contains("showing the first 500 of 520 cases; 20 left out"),
        "{stderr}"
    );
    let (shown, markdown, _) = count(&["-f", "mermaid", "--limit", "7"], "sequenceDiagram");
    assert_eq!(shown, 7);
    assert!(markdown.contains("513 more were left out"));
    assert_eq!(
        count(&["-f", "mermaid", "--limit", "0"], "sequenceDiagram").0,
        520
    );
    let (_, json, _) = count(&["-f", "json"], "");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json.as_array().unwrap().len(), 520, "JSON has every case");
    // Cases chosen with --case are all shown, whatever the limit.
    let (shown, page, _) = count(
        &[
            "-f",
            "html",
            "--limit",
            "1",
            "--case",
            "case-00000000,case-00000003",
        ],
        "<section class=\"case\"",
    );
    assert_eq!(shown, 2);
    assert!(!page.contains("left out"));
}

/// At a phone's width (390 px) the page stays readable (issue 40): the trace table and the
/// timeline scroll in boxes of their own instead of running off the side, the timeline keeps
/// a size its labels can be read at, and a timestamp never breaks at a hyphen. (Looked at in
/// Chromium at 390 and 1280 px: scripts/explain-screenshots.sh.)
#[test]
fn html_fits_a_phone_each_wide_part_scrolling_in_its_own_box() {
    let out = leasejudge(&["explain", "tests/data/explain/probes.csv", "-f", "html"]);
    assert!(out.status.success(), "{out:?}");
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(
        page.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
    );
    for rule in [
        ".trace{margin-top:8px;font-size:13px;overflow-x:auto}",
        ".timeline{overflow-x:auto}",
        ".timeline svg{min-width:960px}",
        ".nw{white-space:nowrap}",
    ] {
        assert!(page.contains(rule), "no {rule}");
    }
    // Every timeline is in its scrolling box, and every table in the trace's.
    assert_eq!(
        page.matches("<div class=\"timeline\"><svg").count(),
        page.matches("aria-label=\"timeline of case").count()
    );
    assert_eq!(
        page.matches("<table>").count(),
        page.matches("<div class=\"trace\">").count()
    );
    // Every timestamp of a trace row is one unbreakable span.
    let rows: Vec<&str> = page
        .lines()
        .filter(|line| line.starts_with("<tr id="))
        .collect();
    assert!(!rows.is_empty());
    for row in rows {
        let bare = row.replace("<span class=\"nw\">2026-", "");
        assert!(
            !bare.contains("2026-01-01T"),
            "a timestamp can break: {row}"
        );
    }
}
