//! `explain --witness`: every witness is checked here as a reviewer would, by replaying its
//! rows alone (judged at their own last `observed_at`, or the run's `--as-of` if later) and
//! then without each one of them in turn ([`check`], also the property tests' check). The
//! witnesses of the bundled cases are snapshots (`tests/data/witness/<stem>.csv`; those of
//! `probes.csv` checked by hand, see `docs/explain.md`); the search gives the same witness
//! whatever the engine's window (a case held in memory or kept in a temporary file, streamed or
//! held whole); its two bounds, given small here, stop it with a witness still good.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use leasejudge::explain::stream::explain_streaming;
use leasejudge::explain::witness::{of_trace, Search, Witness};
use leasejudge::explain::{CaseTrace, Format};
use leasejudge::generate::{default_mix, write_cases, write_messy_cases, Options};
use leasejudge::input::{expand_inputs, is_case_file, ReadOptions};
use leasejudge::lease::{Row, Timestamp};
use leasejudge::ops::explain::traces;
use leasejudge::streaming::Window;

use crate::common::root;

/// What is wrong with `witness` as a witness of the case of `rows` judged at the run's
/// `run_as_of`: its rows alone must be a valid case giving the case's decision and reason
/// (at the instant it says), and, when it says it is minimal, without any one of them they
/// must be no valid case or give another decision or reason.
pub fn check(rows: &[Row], witness: &Witness, run_as_of: Option<Timestamp>) -> Result<(), String> {
    let (case, _) = leasejudge::lease::replay(rows)
        .map_err(|e| format!("the case is no valid case: {e:?}"))?
        .ok_or("the case has no rows")?;
    let verdict = case.judge(run_as_of);
    let picked: Vec<usize> = witness.rows.iter().collect();
    if picked.is_empty() || picked.iter().any(|&i| i >= rows.len()) {
        return Err(format!("rows {picked:?} are not rows of the case"));
    }
    if picked.len() != witness.len() || witness.of != rows.len() {
        return Err(format!(
            "{} of {} rows, said {:?}",
            picked.len(),
            rows.len(),
            witness
        ));
    }
    let alone = |without: Option<usize>| {
        let kept: Vec<&Row> = picked
            .iter()
            .filter(|&&i| Some(i) != without)
            .map(|&i| &rows[i])
            .collect();
        match leasejudge::lease::replay(kept) {
            Ok(Some((case, _))) => Some(case.judge(run_as_of)),
            _ => None,
        }
    };
    let judged = alone(None).ok_or_else(|| format!("rows {picked:?} alone are no valid case"))?;
    if (judged.decision, judged.reason) != (verdict.decision, verdict.reason) {
        return Err(format!(
            "rows {picked:?} alone give {} ({}), the case {} ({})",
            judged.decision, judged.reason, verdict.decision, verdict.reason
        ));
    }
    if (judged.as_of, judged.decision, judged.reason)
        != (witness.as_of, witness.decision, witness.reason)
    {
        return Err(format!(
            "rows {picked:?} alone: {judged:?}, said {witness:?}"
        ));
    }
    if witness.minimal {
        for &left_out in &picked {
            if let Some(without) = alone(Some(left_out)) {
                if (without.decision, without.reason) == (verdict.decision, verdict.reason) {
                    return Err(format!(
                        "rows {picked:?} without row {left_out} still give {} ({})",
                        verdict.decision, verdict.reason
                    ));
                }
            }
        }
    }
    Ok(())
}

/// [`check`] of every case of `traces`, whose witnesses were searched with `run_as_of`.
fn check_all(traces: &[CaseTrace], run_as_of: Option<Timestamp>) {
    for trace in traces {
        let rows: Vec<Row> = trace.rows.iter().map(|r| r.source.row.clone()).collect();
        let witness = trace.witness.as_ref().expect("a witness was searched for");
        if let Err(problem) = check(&rows, witness, run_as_of) {
            panic!("case {}: {problem}", trace.case_id);
        }
    }
}

/// The traces of `file`, each with its witness searched with `search`.
fn witnessed(file: &Path, run_as_of: Option<Timestamp>, search: Search) -> Vec<CaseTrace> {
    let mut traces = traces(&[file.to_owned()], None, run_as_of, &[]).unwrap();
    for trace in &mut traces {
        trace.witness = Some(of_trace(trace, run_as_of, search));
    }
    traces
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

/// A witness as a snapshot line: the case, its verdict, the witness's lines and size, and
/// whether it is minimal.
fn snapshot_line(trace: &CaseTrace) -> String {
    let witness = trace.witness.as_ref().unwrap();
    let lines: Vec<String> = witness
        .rows
        .iter()
        .map(|i| trace.rows[i].source.line.to_string())
        .collect();
    format!(
        "{},{},{},{},{},{},{}\n",
        trace.case_id,
        trace.verdict.decision,
        trace.verdict.reason,
        lines.join(";"),
        witness.len(),
        witness.of,
        witness.minimal
    )
}

/// Every bundled case's witness is good, minimal, and its snapshot's (for `probes.csv`, the
/// witnesses checked by hand: lines 6;7;8, 9;10;12, 13;14;16;17 and 18;21).
#[test]
fn bundled_cases_have_good_minimal_witnesses_as_in_their_snapshots() {
    let mut failures = Vec::new();
    let files = case_files();
    assert!(files.len() >= 10);
    for file in files {
        let traces = witnessed(&file, None, Search::COMMAND);
        check_all(&traces, None);
        let mut snapshot = String::from("case_id,decision,reason,witness,size,of,minimal\n");
        for trace in &traces {
            assert!(trace.witness.as_ref().unwrap().minimal, "{}", trace.case_id);
            snapshot.push_str(&snapshot_line(trace));
        }
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        let expected = root()
            .join("tests/data/witness")
            .join(format!("{stem}.csv"));
        failures.extend(crate::snapshot::expect_file(&expected, snapshot.as_bytes()).err());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// With `--as-of` later than every row, each witness is judged there too, alone: a witness
/// then needs no row to carry the instant.
#[test]
fn bundled_cases_judged_later_have_good_minimal_witnesses() {
    let as_of = Some(Timestamp::parse("2026-06-01T00:00:00Z").unwrap());
    for file in case_files() {
        check_all(&witnessed(&file, as_of, Search::COMMAND), as_of);
    }
}

/// The contract's probe 2 judged alone at its witness's own instant: its observe row, which
/// carries the instant the lease is found expired, is one of the witness's rows (judged at
/// the case's instant instead, offer and ack alone would do: see docs/explain.md).
#[test]
fn probe_two_keeps_the_row_that_finds_the_lease_expired() {
    let traces = witnessed(&root().join("cases/probes.csv"), None, Search::COMMAND);
    let probe = traces.iter().find(|t| t.case_id == "probe-2").unwrap();
    let witness = probe.witness.as_ref().unwrap();
    let lines: Vec<u64> = witness
        .rows
        .iter()
        .map(|i| probe.rows[i].source.line)
        .collect();
    assert_eq!(lines, [9, 10, 12]);
    assert_eq!(witness.as_of.to_string(), "2026-01-01T10:00:45Z");
    // Offer and ack alone are judged at the ack's instant, when the lease is still active.
    let rows: Vec<&Row> = [0, 1].iter().map(|&i| &probe.rows[i].source.row).collect();
    let (case, _) = leasejudge::lease::replay(rows).unwrap().unwrap();
    assert_eq!(case.judge(None).decision.as_str(), "ACTIVE");
    let judged_later = case.judge(Some(witness.as_of));
    assert_eq!(judged_later.decision.as_str(), "EXPIRED");
}

/// A case of `renewals` renewals, each needed to keep the lease alive until the next (30 s
/// lease, a renewal every 20 s), then a result: its witness is every row but the progress
/// between them, more than a small budget finds.
fn renewal_chain(dir: &Path, renewals: u64) -> PathBuf {
    let mut csv = b"case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration,\
renew_seq,progress_seq,result\n"
        .to_vec();
    let at = |seconds: u64| {
        format!(
            "2026-01-01T{:02}:{:02}:{:02}Z",
            seconds / 3600,
            seconds / 60 % 60,
            seconds % 60
        )
    };
    writeln!(csv, "chain,offer,{},j,L,1,w,30,,,", at(0)).unwrap();
    writeln!(csv, "chain,ack,{},,L,1,w,,,,", at(1)).unwrap();
    for seq in 1..=renewals {
        writeln!(csv, "chain,progress,{},,L,1,w,,,{seq},", at(seq * 20 - 5)).unwrap();
        writeln!(csv, "chain,renew,{},,L,1,w,,{seq},,", at(seq * 20)).unwrap();
    }
    writeln!(
        csv,
        "chain,result,{},,L,1,w,,,,SUCCESS",
        at(renewals * 20 + 10)
    )
    .unwrap();
    let path = dir.join("chain.csv");
    fs::write(&path, csv).unwrap();
    path
}

/// A budget of replayed rows too small to finish stops the search with a witness that still
/// replays to the verdict, says it is not minimal and by what, and spent no more than it had;
/// the command's budget finishes it.
#[test]
fn a_small_budget_stops_the_search_with_a_good_witness() {
    let dir = tempfile::tempdir().unwrap();
    let file = renewal_chain(dir.path(), 40);
    let budget = Search {
        replayed_rows: 300,
        ..Search::COMMAND
    };
    let traces = witnessed(&file, None, budget);
    check_all(&traces, None);
    let witness = traces[0].witness.as_ref().unwrap();
    assert!(!witness.minimal);
    assert_eq!(witness.stopped_by(), Some("budget_rows"));
    assert!(witness.replayed_rows <= 300);
    assert!(witness.claim_text().contains("budget of 300 replayed rows"));
    let finished = witnessed(&file, None, Search::COMMAND);
    check_all(&finished, None);
    let witness = finished[0].witness.as_ref().unwrap();
    assert!(witness.minimal, "{witness:?}");
    // Offer, ack, every renewal and the result: the progress rows go.
    assert_eq!(witness.len(), 43);
    // The JSON says so too.
    let json = leasejudge::explain::json::case_json(&traces[0]);
    assert_eq!(json["witness"]["minimal"], false);
    assert_eq!(json["witness"]["stopped_by"], "budget_rows");
    assert_eq!(json["witness"]["budget_rows"], 300);
    assert_eq!(
        json["witness"]["size"],
        json["witness"]["rows"].as_array().unwrap().len()
    );
}

/// A case longer than a search holds, whose candidate rows are too, is not searched: its
/// witness is the whole case, not minimal, said to be for its length; a case whose candidate
/// fits is searched from it however long.
#[test]
fn a_case_too_long_to_hold_is_its_own_witness() {
    let dir = tempfile::tempdir().unwrap();
    let file = renewal_chain(dir.path(), 10);
    let small = Search {
        held_rows: 5,
        ..Search::COMMAND
    };
    let traces = witnessed(&file, None, small);
    check_all(&traces, None);
    let witness = traces[0].witness.as_ref().unwrap();
    assert_eq!(
        (witness.len(), witness.of, witness.minimal),
        (23, 23, false)
    );
    assert_eq!(witness.stopped_by(), Some("held_rows"));
    assert!(witness
        .claim_text()
        .contains("too long to search (more than 5 rows)"));
    // 13 candidate rows (offer, ack, renewals, result) fit 13: searched.
    let fits = Search {
        held_rows: 13,
        ..Search::COMMAND
    };
    let traces = witnessed(&file, None, fits);
    check_all(&traces, None);
    assert!(traces[0].witness.as_ref().unwrap().minimal);
}

fn options(seed: u64, cases: u64, rows_per_case: (u64, u64), interleave: u64) -> Options {
    Options {
        seed,
        cases,
        rows_per_case,
        interleave,
        mix: default_mix(),
    }
}

/// `explain --witness -f format` of `file` keeping `window` open, searching with `search`.
fn explained(file: &Path, format: Format, window: Window, search: Search) -> Vec<u8> {
    let sources = ReadOptions::default().apply(expand_inputs(&[file.to_owned()]).unwrap());
    let explanation =
        explain_streaming(&sources, None, None, (format, 0), &[], window, Some(search)).unwrap();
    let mut out = Vec::new();
    explanation.write_to(&mut out).unwrap();
    out
}

/// Generated and messy cases, and long ones: streamed with a small window, and with every
/// case of more than two rows kept in a temporary file, in every format, their witnesses are
/// those of the whole-file traces; and every one is good.
#[test]
fn witnesses_are_the_same_held_or_kept_in_a_file_streamed_or_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut plain = Vec::new();
    write_cases(&options(21, 120, (2, 30), 6), &mut plain).unwrap();
    let mut messy = Vec::new();
    write_messy_cases(&options(22, 120, (2, 30), 4), &mut messy, &mut |_| {}).unwrap();
    let chain = renewal_chain(dir.path(), 30);
    let small = Window {
        open_cases: 16,
        kept_rows: 256,
        case_rows_in_memory: 2,
        ..Window::COMMAND
    };
    // A search that holds fewer rows than some cases have, and stops some: the bounds apply
    // alike whichever way the rows come.
    let bounded = Search {
        replayed_rows: 400,
        held_rows: 20,
    };
    for (name, bytes) in [("plain.csv", plain), ("messy.csv", messy)] {
        let file = dir.path().join(name);
        fs::write(&file, bytes).unwrap();
        same_witnesses(&file, small, Search::COMMAND);
        same_witnesses(&file, small, bounded);
    }
    same_witnesses(&chain, small, Search::COMMAND);
    same_witnesses(&chain, small, bounded);
}

fn same_witnesses(file: &Path, window: Window, search: Search) {
    let whole = witnessed(file, None, search);
    check_all(&whole, None);
    for format in [Format::Text, Format::Json, Format::Html, Format::Mermaid] {
        let expected = format.render(&whole).into_bytes();
        // Read whole, and as two halves on two threads (however small the file is).
        let halves = Window {
            split_min_bytes: 1,
            ..window
        };
        let whole = Window {
            split_min_bytes: u64::MAX,
            ..window
        };
        for window in [whole, halves, Window::COMMAND] {
            assert!(
                explained(file, format, window, search) == expected,
                "{} -f {format:?} with {window:?} and {search:?}",
                file.display()
            );
        }
    }
}

/// `adjudicate --explain --witness` gives each case the witness `explain --witness` gives it.
#[test]
fn adjudicate_gives_the_witness_explain_gives() {
    let run = |args: &[&str]| {
        let out = crate::common::leasejudge(args).output();
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let matrix = run(&[
        "adjudicate",
        "cases",
        "--explain",
        "--witness",
        "-f",
        "json",
    ]);
    let explained = run(&["explain", "cases", "--witness", "-f", "json"]);
    let (matrix, explained) = (matrix.as_array().unwrap(), explained.as_array().unwrap());
    assert_eq!(matrix.len(), explained.len());
    for (row, trace) in matrix.iter().zip(explained) {
        let witness = &trace["witness"];
        let lines: Vec<String> = witness["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| row["line"].to_string())
            .collect();
        assert_eq!(row["witness"], lines.join(";"), "{}", row["case_id"]);
        assert_eq!(row["witness_minimal"], witness["minimal"].to_string());
        assert_eq!(witness["decision"], row["decision"]);
        assert_eq!(witness["reason"], row["reason"]);
    }
}
