//! The shortcut each learner took (issue 37, part 4), on a class made by the library: the
//! bundled cases' matrix under each shortcut they catch, written by `write_matrix_under`, one
//! submission a shortcut, plus one right (the contract's matrix, which is also the key) and
//! one of random answers. The reports on it are snapshots, hand-checked, in
//! `tests/data/grading/grade-shortcuts-*`; this test holds the class to the library's
//! matrices, so the submissions are what following each shortcut gives.

use std::path::{Path, PathBuf};

use leasejudge::input::Source;
use leasejudge::lease::{Contract, Shortcut};
use leasejudge::matrix::CsvMatrix;
use leasejudge::shortcuts::write_matrix_under;
use leasejudge::streaming::StreamSettings;

use crate::common::root;
use crate::snapshot::expect_file;

/// The lab: every CSV case file of `cases/`, in name order (as the snapshots' `--cases`
/// names them).
pub const LAB: &[&str] = &[
    "acks.csv",
    "cancellation.csv",
    "conflicts.csv",
    "deadlines.csv",
    "lesson-headings.csv",
    "offers.csv",
    "probes.csv",
    "progress.csv",
    "renewals.csv",
    "results.csv",
];

/// The shortcuts the lab catches on decision and reason (`leasejudge shortcuts cases/*.csv`):
/// a submission each.
const FOLLOWED: &[Shortcut] = &[
    Shortcut::InclusiveDeadlines,
    Shortcut::WorkerClock,
    Shortcut::AckedNeverExpires,
    Shortcut::ProgressRenews,
    Shortcut::OldGenerationRenews,
    Shortcut::ProgressMovesBackward,
    Shortcut::LastResultWins,
    Shortcut::DuplicateRenewExtends,
    Shortcut::LateAckAccepted,
    Shortcut::ExpiredLeaseRenews,
    Shortcut::CancelEndsAuthority,
    Shortcut::UnrequestedCancelAccepted,
];

fn class_dir() -> PathBuf {
    root().join("tests/data/grading/grade-shortcuts-class")
}

fn lab() -> Vec<Source> {
    LAB.iter()
        .map(|name| {
            let path = root().join("cases").join(name);
            Source {
                name: format!("cases/{name}"),
                path: Some(path),
                options: Default::default(),
            }
        })
        .collect()
}

fn matrix_under<R: leasejudge::lease::Reading>(reading: R) -> Vec<u8> {
    let mut out = Vec::new();
    write_matrix_under(
        &lab(),
        &StreamSettings::default(),
        reading,
        &CsvMatrix,
        &mut out,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    out
}

/// Random answers: each row of the right matrix with its decision and reason drawn from the
/// codes (a fixed generator, so the file is the same every time), the other cells kept.
fn random_answers(right: &[u8]) -> Vec<u8> {
    const DECISIONS: &[&str] = &["ACTIVE", "EXPIRED", "ACK_TIMEOUT", "SUCCESS", "PENDING_ACK"];
    const REASONS: &[&str] = &[
        "within_lease",
        "ack_missing",
        "late_progress",
        "result_accepted",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let text = String::from_utf8(right.to_vec()).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let columns: Vec<&str> = header.split(',').collect();
    let decision = columns.iter().position(|c| *c == "decision").unwrap();
    let reason = columns.iter().position(|c| *c == "reason").unwrap();
    let mut out = format!("{header}\n");
    for line in lines {
        // The bundled cases' matrix has no quoted cell.
        let mut cells: Vec<String> = line.split(',').map(str::to_owned).collect();
        cells[decision] = DECISIONS[next(DECISIONS.len())].to_owned();
        cells[reason] = REASONS[next(REASONS.len())].to_owned();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out.into_bytes()
}

fn check(path: &Path, bytes: &[u8], failures: &mut Vec<String>) {
    if let Err(e) = expect_file(path, bytes) {
        failures.push(e);
    }
}

/// Every submission of the class is the library's matrix under its shortcut (the key and
/// `right.csv` the contract's), so the class's reports name what following each one gives.
#[test]
fn the_class_is_the_librarys_matrices_under_each_shortcut() {
    let dir = class_dir();
    let mut failures = Vec::new();
    let right = matrix_under(Contract);
    check(&dir.join("key.csv"), &right, &mut failures);
    check(&dir.join("submissions/right.csv"), &right, &mut failures);
    check(
        &dir.join("submissions/random.csv"),
        &random_answers(&right),
        &mut failures,
    );
    for &shortcut in FOLLOWED {
        let path = dir.join(format!("submissions/{}.csv", shortcut.name()));
        let under = matrix_under(shortcut);
        assert_ne!(under, right, "{shortcut}: the lab catches it");
        check(&path, &under, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
