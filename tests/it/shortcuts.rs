//! The catalogue of shortcuts and `leasejudge shortcuts`, as data and as claims:
//!
//! - each shortcut's hand-checked case file `tests/data/shortcuts/<name>.csv` and its matrix
//!   under the shortcut, `<name>.matrix.csv`, written by hand from the contract and the
//!   shortcut's sentence (`LEASEJUDGE_BLESS=1` writes the engine's next to a differing one as
//!   `.new`, never over it), walked by one runner;
//! - the command's runs as snapshots (`tests/data/shortcuts/cli/`, the layout of
//!   [`crate::snapshot`]), on `cases/probes.csv` and `cases/`;
//! - the search's findings checked against the catalogue, and the suggested cases mending the
//!   lab they were made for.

use std::fs;
use std::path::{Path, PathBuf};

use leasejudge::input::Source;
use leasejudge::lease::{Contract, Message, Shortcut};
use leasejudge::matrix::{CsvMatrix, JsonMatrix, MatrixEncoding};
use leasejudge::shortcuts::{find_catching_case, write_matrix_under, Bounds, Finding};
use leasejudge::streaming::{judge, Sink, StreamSettings};

use crate::common::root;

fn data_dir() -> PathBuf {
    root().join("tests/data/shortcuts")
}

fn source(path: &Path) -> Source {
    Source {
        name: path.to_string_lossy().into_owned(),
        path: Some(path.to_owned()),
        options: Default::default(),
    }
}

/// The matrix of `sources` under `reading`, as CSV.
fn matrix_under<R: leasejudge::lease::Reading>(sources: &[Source], reading: R) -> String {
    let mut out = Vec::new();
    write_matrix_under(
        sources,
        &StreamSettings::default(),
        reading,
        &CsvMatrix,
        &mut out,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    String::from_utf8(out).unwrap()
}

/// The bits of the decision and reason columns.
const DECISION_REASON: u32 = 1 << 21 | 1 << 22;

/// Each shortcut's case file, replayed under the shortcut, gives the matrix written by hand;
/// and under the contract it gives another (the file shows the shortcut).
#[test]
fn every_shortcut_gives_its_hand_checked_matrix() {
    let mut failures = Vec::new();
    for &shortcut in Shortcut::ALL {
        let cases = data_dir().join(format!("{}.csv", shortcut.name()));
        let expected_path = data_dir().join(format!("{}.matrix.csv", shortcut.name()));
        let sources = [source(&cases)];
        let actual = matrix_under(&sources, shortcut);
        let expected = fs::read_to_string(&expected_path).unwrap_or_default();
        if actual != expected {
            if crate::snapshot::blessing() {
                fs::write(expected_path.with_extension("csv.new"), &actual).unwrap();
            }
            failures.push(format!(
                "{shortcut}: {} differs:\n--- expected\n{expected}--- actual\n{actual}",
                expected_path.display()
            ));
        }
        let contract = matrix_under(&sources, Contract);
        if contract == actual {
            failures.push(format!(
                "{shortcut}: its cases read the same under the contract"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The data directory holds a case file for every shortcut, and nothing else.
#[test]
fn the_data_is_the_catalogue() {
    let mut names: Vec<String> = fs::read_dir(data_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".csv") && !name.ends_with(".matrix.csv"))
        .map(|name| name.trim_end_matches(".csv").to_owned())
        .collect();
    names.sort();
    let mut catalogue: Vec<String> = Shortcut::ALL.iter().map(|s| s.name().to_owned()).collect();
    catalogue.sort();
    assert_eq!(names, catalogue);
}

/// Under the contract, the matrix written case by case (`MatrixUnder`) is the engine's own,
/// byte for byte, in both encodings: the reading a case carries changes nothing by itself.
#[test]
fn the_matrix_under_the_contract_is_the_engines() {
    let mut files: Vec<PathBuf> = fs::read_dir(root().join("cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e != "md"))
        .collect();
    files.sort();
    let sources: Vec<Source> = files.iter().map(|p| source(p)).collect();
    let encodings: [&'static dyn MatrixEncoding; 2] = [&CsvMatrix, &JsonMatrix];
    for encoding in encodings {
        let settings = StreamSettings::default();
        let mut engine = Vec::new();
        judge(
            &sources,
            &settings,
            Sink::Matrix(encoding),
            &mut |_, _, _| {},
        )
        .unwrap()
        .write_to(&mut engine)
        .unwrap();
        for reading in [None, Some(None::<Shortcut>)] {
            let mut under = Vec::new();
            match reading {
                None => write_matrix_under(&sources, &settings, Contract, encoding, &mut under),
                Some(none) => write_matrix_under(&sources, &settings, none, encoding, &mut under),
            }
            .unwrap();
            assert!(
                under == engine,
                "{encoding:?}:\n{}",
                String::from_utf8_lossy(&under)
            );
        }
    }
}

fn caught_rows(shortcut: Shortcut, graded: u32) -> Vec<leasejudge::lease::Row> {
    match find_catching_case(shortcut, graded, Bounds::CATCH) {
        Finding::Caught { rows, .. } => rows,
        Finding::NotCaught(coverage) => panic!("{shortcut}: not caught: {coverage:?}"),
    }
}

/// The rows as the report shows them, a line each.
fn shown(rows: &[leasejudge::lease::Row]) -> String {
    let start = leasejudge::shortcuts::search_start().unix_seconds();
    rows.iter()
        .map(|row| {
            format!(
                "\n  {}",
                leasejudge::report::shortcuts::describe_row(row, start)
            )
        })
        .collect()
}

fn generations(rows: &[leasejudge::lease::Row]) -> usize {
    let mut generations: Vec<u64> = rows
        .iter()
        .filter_map(|row| match &row.message {
            Message::Offer(offer) => Some(offer.identity.generation),
            _ => None,
        })
        .collect();
    generations.sort_unstable();
    generations.dedup();
    generations.len()
}

/// The search's findings on decision and reason, checked against what the catalogue's
/// sentences imply: `conflict_not_frozen` cannot be caught (once a conflict is set, the
/// decision is OWNERSHIP_CONFLICT and the reason the first conflict's, under either reading,
/// and before it the readings agree), and the search proves it by reaching every pair;
/// `late_progress_resumes` is caught only by a case of two generations (within one, a cancel
/// requested makes the decision RECONCILIATION_REQUIRED, or a result's, whatever the late
/// set); every other shortcut is caught, each by the shortest case its sentence calls for.
#[test]
fn the_search_finds_what_the_catalogue_implies_on_decision_and_reason() {
    match find_catching_case(Shortcut::ConflictNotFrozen, DECISION_REASON, Bounds::CATCH) {
        Finding::NotCaught(coverage) => assert!(coverage.exhausted, "{coverage:?}"),
        found => panic!("conflict_not_frozen caught: {found:?}"),
    }
    let rows = caught_rows(Shortcut::LateProgressResumes, DECISION_REASON);
    assert_eq!(generations(&rows), 2, "{}", shown(&rows));
    // The fewest rows each sentence needs: an offer, and then what the sentence names.
    let expected = [
        (Shortcut::InclusiveDeadlines, 2), // an observe at the ack deadline
        (Shortcut::WorkerClock, 2),        // an ack observed late, sent in time
        (Shortcut::AckedNeverExpires, 3),  // an ack, an observe at expiry
        (Shortcut::ProgressRenews, 4),     // an ack, a progress, an observe at expiry
        (Shortcut::OldGenerationRenews, 3), // an ack, a renew of generation 0
        (Shortcut::ProgressMovesBackward, 5), // an ack, two progress, an observe at expiry
        (Shortcut::LastResultWins, 4),     // an ack, two results
        (Shortcut::DuplicateRenewExtends, 5), // an ack, two equal renews, an observe
        (Shortcut::LateAckAccepted, 2),    // an ack at the deadline
        (Shortcut::ExpiredLeaseRenews, 3), // an ack, a renew at expiry
        (Shortcut::CancelEndsAuthority, 3), // a cancel request, a new generation
        (Shortcut::UnrequestedCancelAccepted, 3), // an ack, a CANCELLED result
        (Shortcut::RenewalChangesOffer, 4), // an ack, a renew, the offer re-sent
    ];
    let mut failures = Vec::new();
    for (shortcut, fewest) in expected {
        let rows = caught_rows(shortcut, DECISION_REASON);
        if rows.len() != fewest {
            failures.push(format!(
                "{shortcut}: {} rows, not {fewest}:{}",
                rows.len(),
                shown(&rows)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Graded on `stale_generation` alone, a shortcut that never touches the identity check
/// cannot be caught (the search reaches every pair: the stale sets are kept relative to the
/// generations), and one that does is.
#[test]
fn on_stale_generation_only_the_identity_shortcut_is_caught() {
    let stale = 1 << 17;
    match find_catching_case(Shortcut::ProgressMovesBackward, stale, Bounds::CATCH) {
        Finding::NotCaught(coverage) => assert!(coverage.exhausted, "{coverage:?}"),
        found => panic!("progress_moves_backward caught on stale_generation: {found:?}"),
    }
    caught_rows(Shortcut::OldGenerationRenews, stale);
}

/// Graded on every column, every shortcut is caught: each changes some state column as soon
/// as its rule applies (`conflict_not_frozen`'s `ack_state`, say, by an ack after a conflict).
#[test]
fn on_every_column_every_shortcut_is_caught() {
    let every = (1u32 << 23) - 1;
    for &shortcut in Shortcut::ALL {
        caught_rows(shortcut, every);
    }
}

/// Every suggested case, replayed by the engine (not the search), catches its shortcut on the
/// graded columns: the decision or reason differs.
#[test]
fn each_witness_differs_when_replayed_by_the_engine() {
    for &shortcut in Shortcut::ALL {
        if shortcut == Shortcut::ConflictNotFrozen {
            continue;
        }
        let rows = caught_rows(shortcut, DECISION_REASON);
        let (contract, _) = leasejudge::lease::replay(&rows).unwrap().unwrap();
        let (under, _) = leasejudge::lease::replay_reading(&rows, shortcut)
            .unwrap()
            .unwrap();
        let (a, b) = (contract.verdict(None), under.verdict(None));
        assert!(
            (a.decision, a.reason) != (b.decision, b.reason),
            "{shortcut}:{}",
            shown(&rows)
        );
    }
}

/// Every recorded run of the command (`tests/data/shortcuts/cli/NAME.cmd`).
#[test]
fn every_recorded_run_gives_its_recorded_output() {
    crate::snapshot::run_all(&data_dir().join("cli"), 8, &[]);
}

/// `--suggest` mends the lab: the lab and the suggested cases together let nothing catchable
/// survive, in CSV and in JSON, on the default columns and on all of them; and `--golden` is
/// the matrix `check` agrees with.
#[test]
fn the_suggested_cases_mend_the_lab() {
    let dir = tempfile::tempdir().unwrap();
    for (suggest, golden, columns) in [
        ("mend.csv", "mend.golden.csv", "decision,reason"),
        ("mend.json", "mend.golden.json", "all"),
        (
            "mend.ndjson",
            "mend.golden.csv",
            "decision,reason,expires_at",
        ),
    ] {
        let suggest = dir.path().join(suggest);
        let golden = dir.path().join(golden);
        let lab = root().join("cases/probes.csv");
        let args = |extra: &[&str]| {
            let mut args = vec!["shortcuts", lab.to_str().unwrap(), "--columns", columns];
            args.extend(extra);
            args.iter().map(|a| a.to_string()).collect::<Vec<_>>()
        };
        let first = crate::common::leasejudge(
            &args(&[
                "--suggest",
                suggest.to_str().unwrap(),
                "--golden",
                golden.to_str().unwrap(),
            ])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        )
        .run();
        assert_eq!(first.code, 1, "{}{}", first.stdout, first.stderr);
        let again = crate::common::leasejudge(
            &args(&[suggest.to_str().unwrap(), "-f", "json"])
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        )
        .run();
        assert_eq!(again.code, 0, "{}{}", again.stdout, again.stderr);
        let report: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
        for entry in report["shortcuts"].as_array().unwrap() {
            let status = entry["status"].as_str().unwrap();
            assert!(
                status == "caught" || status == "uncatchable",
                "{columns}: {entry}"
            );
        }
        let check = crate::common::leasejudge(&[
            "check",
            suggest.to_str().unwrap(),
            "--golden",
            golden.to_str().unwrap(),
        ])
        .run();
        assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
    }
}

/// The report does not depend on how many threads search.
#[test]
fn the_report_is_the_same_for_any_number_of_threads() {
    let lab = root().join("cases/probes.csv");
    let run = |jobs: &str| {
        crate::common::leasejudge(&[
            "shortcuts",
            lab.to_str().unwrap(),
            "-f",
            "json",
            "--jobs",
            jobs,
        ])
        .run()
        .stdout
    };
    assert_eq!(run("1"), run("3"));
}
