//! Property tests of the lease core over generated row sequences (spec sections 4, 5 and 7).
//!
//! Case counts are kept moderate (they run in CI); `PROPTEST_CASES` raises them locally.

use crate::common;

use std::collections::BTreeSet;

use common::{ack, at, id, offer, progress, renew, row};
use leasejudge::lease::{
    Case, Disposition, Identity, Message, Phase, RowReason, TerminalResult, Timestamp,
};
use leasejudge::matrix::{MatrixRow, COLUMNS};
use leasejudge::reorder::{check_invariant, groups, Invariant, Permutation};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// What a generated row says, before it gets a time and an identity.
#[derive(Clone, Debug)]
enum Spec {
    Offer {
        duration: u64,
        ack_after: Option<u64>,
    },
    RepeatOffer,
    Ack,
    Renew(u64),
    Progress(u64),
    CancelRequest,
    CancelAck,
    Result(TerminalResult),
    Observe,
}

/// Whose identity a generated message claims: the latest offer's (most of the time, so the
/// rules past the identity check are reached), or an arbitrary one.
#[derive(Clone, Debug)]
enum Claim {
    Latest,
    Other(Identity),
}

fn spec() -> impl Strategy<Value = Spec> {
    prop_oneof![
        2 => (1u64..60, proptest::option::of(0u64..60))
            .prop_map(|(duration, ack_after)| Spec::Offer { duration, ack_after }),
        1 => Just(Spec::RepeatOffer),
        3 => Just(Spec::Ack),
        4 => (1u64..6).prop_map(Spec::Renew),
        4 => (1u64..6).prop_map(Spec::Progress),
        2 => Just(Spec::CancelRequest),
        1 => Just(Spec::CancelAck),
        2 => prop_oneof![
            Just(TerminalResult::Success),
            Just(TerminalResult::Failed),
            Just(TerminalResult::Cancelled)
        ]
        .prop_map(Spec::Result),
        1 => Just(Spec::Observe),
    ]
}

fn claim() -> impl Strategy<Value = Claim> {
    prop_oneof![
        3 => Just(Claim::Latest),
        1 => (prop_oneof![4 => Just("L-1"), 1 => Just("L-2")], 0u64..4, prop_oneof![Just("a"), Just("b")])
            .prop_map(|(lease, generation, holder)| Claim::Other(id(lease, generation, holder))),
    ]
}

/// A case's rows: a first offer (or, rarely, anything), then up to 24 rows, each a few
/// seconds after the last.
fn rows() -> impl Strategy<Value = Vec<leasejudge::lease::Row>> {
    let first_is_offer = prop_oneof![9 => Just(true), 1 => Just(false)];
    (
        first_is_offer,
        1u64..60,
        proptest::collection::vec((0u64..8, spec(), claim()), 0..24),
    )
        .prop_map(|(first_is_offer, duration, rest)| {
            let mut latest = id("L-1", 1, "a");
            let mut latest_offer: Option<leasejudge::lease::Row> = None;
            let mut rows = Vec::new();
            let mut now = 0;
            let first = if first_is_offer {
                Spec::Offer {
                    duration,
                    ack_after: None,
                }
            } else {
                Spec::Ack
            };
            for (index, (delta, spec, claim)) in std::iter::once((0, first, Claim::Latest))
                .chain(rest)
                .enumerate()
            {
                now += delta;
                let claims_latest = matches!(claim, Claim::Latest);
                let identity = match claim {
                    Claim::Latest => latest.clone(),
                    Claim::Other(identity) => identity,
                };
                let row = match spec {
                    Spec::Offer {
                        duration,
                        ack_after,
                    } => {
                        // Later offers usually move to the next generation (a reassignment).
                        let identity = if index > 0 && claims_latest {
                            id(
                                "L-1",
                                latest.generation + 1,
                                if now % 2 == 0 { "a" } else { "b" },
                            )
                        } else {
                            identity
                        };
                        latest = identity.clone();
                        let made = offer(now, identity, duration, ack_after);
                        latest_offer = Some(made.clone());
                        made
                    }
                    Spec::RepeatOffer => match &latest_offer {
                        Some(earlier) => leasejudge::lease::Row {
                            observed_at: at(now),
                            ..earlier.clone()
                        },
                        None => row(now, Message::Observe),
                    },
                    Spec::Ack => ack(now, identity),
                    Spec::Renew(seq) => renew(now, identity, seq),
                    Spec::Progress(seq) => progress(now, identity, seq),
                    Spec::CancelRequest => row(now, Message::CancelRequest),
                    Spec::CancelAck => row(now, Message::CancelAck(identity)),
                    Spec::Result(result) => common::result(now, identity, result),
                    Spec::Observe => row(now, Message::Observe),
                };
                rows.push(row);
            }
            rows
        })
}

/// The lease, findings and matrix state a row must not change, judged at `t`.
fn judged_at(case: &Case, t: Timestamp) -> MatrixRow {
    MatrixRow::new("case", case, &case.verdict(Some(t)))
}

/// Steps through `rows`, calling `check(before, row, outcome, after)` for every row that
/// replays (a case fault stops the walk, as it stops a run).
fn walk(
    rows: &[leasejudge::lease::Row],
    mut check: impl FnMut(&Case, &leasejudge::lease::Row, &leasejudge::lease::Outcome, &Case),
) {
    let Some((first, rest)) = rows.split_first() else {
        return;
    };
    let Ok((mut case, _)) = Case::start(first) else {
        return;
    };
    for row in rest {
        let before = case.clone();
        let Ok(outcome) = case.step(row) else {
            return;
        };
        check(&before, row, &outcome, &case);
    }
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 200,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// No row sequence panics the core, the verdict or the matrix, at any `as_of`.
    #[test]
    fn no_row_sequence_panics(rows in rows(), later in 0u64..100) {
        let replayed = leasejudge::lease::replay(&rows);
        if let Ok(Some((case, _))) = replayed {
            let as_of = case.last_observed_at().checked_add(
                leasejudge::lease::Seconds::new(later.max(1)).unwrap()).unwrap();
            for verdict in [case.verdict(None), case.verdict(Some(as_of))] {
                let matrix = MatrixRow::new("case", &case, &verdict);
                prop_assert_eq!(matrix.cells().len(), COLUMNS.len());
            }
        }
    }

    /// A stale-generation message changes nothing but the stale set.
    #[test]
    fn stale_generation_changes_no_state(rows in rows()) {
        let mut failure = None;
        walk(&rows, |before, row, outcome, after| {
            if outcome.reason == RowReason::StaleGeneration && failure.is_none() {
                let expected = before.verdict(Some(row.observed_at)).lease;
                if after.lease() != &expected
                    || after.conflict() != before.conflict()
                    || after.late_progress() != before.late_progress()
                {
                    failure = Some(format!("{row:?} changed the case"));
                }
            }
        });
        prop_assert!(failure.is_none(), "{:?}", failure);
    }

    /// Within a generation, the accepted progress sequence never decreases.
    #[test]
    fn accepted_progress_never_decreases(rows in rows()) {
        let mut failure = None;
        walk(&rows, |before, row, _, after| {
            let seq = |case: &Case| case.lease().progress.as_ref().map_or(0, |p| p.progress_seq);
            if before.lease().identity() == after.lease().identity() && seq(after) < seq(before) {
                failure = Some(format!("{row:?}: progress {} -> {}", seq(before), seq(after)));
            }
        });
        prop_assert!(failure.is_none(), "{:?}", failure);
    }

    /// After an ownership conflict every row is BLOCKED and only the clock acts.
    #[test]
    fn nothing_changes_after_a_conflict(rows in rows()) {
        let mut failure = None;
        walk(&rows, |before, row, outcome, after| {
            if before.conflict().is_some() {
                let expected = before.verdict(Some(row.observed_at)).lease;
                if outcome.disposition != Disposition::Blocked
                    || after.lease() != &expected
                    || after.conflict() != before.conflict()
                    || after.stale_generations() != before.stale_generations()
                    || after.late_progress() != before.late_progress()
                {
                    failure = Some(format!("{row:?} changed a frozen case: {outcome:?}"));
                }
            }
        });
        prop_assert!(failure.is_none(), "{:?}", failure);
    }

    /// Once a generation has expired it is never ACTIVE again (at any later row or verdict).
    #[test]
    fn an_expired_generation_is_never_active_again(rows in rows(), later in 0u64..100) {
        let mut expired: BTreeSet<u64> = BTreeSet::new();
        let mut failure = None;
        walk(&rows, |_, row, _, after| {
            let lease = after.lease();
            let generation = lease.identity().generation;
            if lease.phase == Phase::Active && expired.contains(&generation) {
                failure = Some(format!("{row:?}: generation {generation} active again"));
            }
            if lease.phase == Phase::Expired {
                expired.insert(generation);
            }
        });
        prop_assert!(failure.is_none(), "{:?}", failure);
        if let Ok(Some((case, _))) = leasejudge::lease::replay(&rows) {
            let verdict = case.verdict(Some(case.last_observed_at().max(at(later))));
            prop_assert!(!(verdict.lease.phase == Phase::Active
                && expired.contains(&verdict.lease.identity().generation)));
        }
    }

    /// A REJECTED, DUPLICATE or RECORDED row changes none of the matrix's state columns: only
    /// the findings its rule names (stale and late sets, `ack_state = LATE`, expiry flags, and
    /// so the reason).
    #[test]
    fn refused_rows_change_no_state_column(rows in rows()) {
        let findings = ["stale_generation", "late_progress", "reason"];
        let mut failure = None;
        walk(&rows, |before, row, outcome, after| {
            let refused = matches!(
                outcome.disposition,
                Disposition::Rejected | Disposition::Duplicate | Disposition::Recorded
            );
            if !refused || failure.is_some() {
                return;
            }
            let t = row.observed_at;
            let (was, now) = (judged_at(before, t).cells(), judged_at(after, t).cells());
            for (index, column) in COLUMNS.iter().enumerate() {
                let finding = findings.contains(column)
                    || (*column == "ack_state" && outcome.reason == RowReason::AckAfterDeadline);
                if !finding && was[index] != now[index] {
                    failure = Some(format!(
                        "{row:?} ({outcome:?}) changed {column}: {:?} -> {:?}",
                        was[index], now[index]
                    ));
                }
            }
        });
        prop_assert!(failure.is_none(), "{:?}", failure);
    }
}

/// A case made for section 7: one generation offered and acked, then renew and progress
/// messages with distinct sequence numbers (in a random order) mixed with clock readings and
/// stale messages, a few seconds apart.
fn reorderable_case() -> impl Strategy<Value = (Vec<leasejudge::lease::Row>, u64)> {
    let extra = prop_oneof![
        3 => Just(0u8), // renew
        3 => Just(1u8), // progress
        1 => Just(2u8), // observe
        1 => Just(3u8), // stale progress
        1 => Just(4u8), // cancel request
    ];
    (
        10u64..90,
        proptest::collection::vec((0u64..15, extra), 2..12),
        any::<u64>(),
    )
        .prop_map(|(duration, extras, pick)| {
            let current = id("L-1", 2, "a");
            let mut rows = vec![
                offer(0, current.clone(), duration, Some(5)),
                ack(1, current.clone()),
            ];
            let (mut renew_seq, mut progress_seq, mut now) = (0, 0, 1);
            for (delta, kind) in extras {
                now += delta;
                rows.push(match kind {
                    0 => {
                        renew_seq += 1;
                        renew(now, current.clone(), renew_seq)
                    }
                    1 => {
                        progress_seq += 1;
                        progress(now, current.clone(), progress_seq)
                    }
                    2 => row(now, Message::Observe),
                    3 => progress(now, id("L-1", 1, "b"), 1),
                    _ => row(now, Message::CancelRequest),
                });
            }
            (rows, pick)
        })
}

/// A permutation of one group of `rows`, chosen by `pick`.
fn permutation_of(rows: &[leasejudge::lease::Row], pick: u64) -> Option<Permutation> {
    let groups = groups(rows);
    if groups.is_empty() {
        return None;
    }
    let mut rng = leasejudge::random::SplitMix64::new(pick);
    let group = &groups[rng.below(groups.len())];
    let slots = group.members.clone();
    let mut fills = slots.clone();
    for i in (1..fills.len()).rev() {
        fills.swap(i, rng.below(i + 1));
    }
    Some(Permutation {
        kind: group.kind,
        generation: group.generation,
        slots,
        fills,
    })
}

/// Spec section 7: whenever its precondition holds, the invariant columns do not depend on
/// the order in which one generation's renew/progress messages filled their slots. Also
/// checks that the precondition held often enough for the property to mean something.
#[test]
fn reordered_messages_do_not_change_ownership() {
    let mut runner = TestRunner::new(Config {
        cases: 300,
        ..Config::default()
    });
    let applicable = std::cell::Cell::new(0u32);
    runner
        .run(&reorderable_case(), |(rows, pick)| {
            if let Some(permutation) = permutation_of(&rows, pick) {
                match check_invariant(&rows, &permutation) {
                    Invariant::Violated(differences) => {
                        return Err(TestCaseError::fail(format!(
                            "{permutation:?}: {differences:?}"
                        )))
                    }
                    Invariant::Holds => applicable.set(applicable.get() + 1),
                    Invariant::NotApplicable => {}
                }
            }
            Ok(())
        })
        .unwrap();
    assert!(
        applicable.get() >= 50,
        "the invariant applied in only {} of 300 cases",
        applicable.get()
    );
}

/// The checker itself catches a violation: a rule change that let a reordered progress
/// overwrite a newer one would be reported (the invariant compares what it should).
#[test]
fn the_invariant_check_reports_a_difference() {
    let current = id("L-1", 1, "a");
    let rows = vec![
        offer(0, current.clone(), 60, None),
        ack(1, current.clone()),
        progress(2, current.clone(), 1),
        progress(3, current.clone(), 2),
    ];
    let original = MatrixRow::new(
        "c",
        &leasejudge::lease::replay(&rows).unwrap().unwrap().0,
        &{
            let (case, _) = leasejudge::lease::replay(&rows).unwrap().unwrap();
            case.verdict(None)
        },
    );
    let mut tampered = original.clone();
    tampered.progress_sequence = Some(1);
    let differences = leasejudge::reorder::invariant_differences(&original, &tampered);
    assert_eq!(differences.len(), 1);
    assert_eq!(differences[0].column, "progress_sequence");
    let swap = Permutation {
        kind: leasejudge::reorder::Kind::Progress,
        generation: 1,
        slots: vec![2, 3],
        fills: vec![3, 2],
    };
    assert_eq!(check_invariant(&rows, &swap), Invariant::Holds);
}

/// The generator reaches the rules the properties are about: without this, a property over
/// generated rows could hold only because the rows never exercise it.
#[test]
fn generated_rows_reach_every_row_reason() {
    use proptest::strategy::ValueTree;
    let mut runner = TestRunner::deterministic();
    let mut seen = BTreeSet::new();
    for _ in 0..1000 {
        let rows = rows().new_tree(&mut runner).unwrap().current();
        walk(&rows, |_, _, outcome, _| {
            seen.insert(outcome.reason);
        });
    }
    let missing: Vec<RowReason> = RowReason::ALL
        .iter()
        .copied()
        .filter(|reason| *reason != RowReason::Offered && !seen.contains(reason))
        .collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}

/// Minimal witnesses (`explain --witness`), on generated cases judged at their own instant or
/// at a run's `--as-of` (earlier or later than their rows): every witness replayed alone gives
/// the case's decision and reason, and no one of its rows can be left out
/// ([`crate::witness::check`]), unless its search says it was stopped (`minimal: false`), which
/// only small bounds do; a search never replays more rows than its budget.
#[test]
fn witnesses_replay_alone_to_the_verdict_and_lose_no_row() {
    use leasejudge::explain::witness::{of_trace, Search};
    use leasejudge::explain::{CaseTrace, SourcedRow};
    let mut runner = TestRunner::new(Config {
        cases: 400,
        ..Config::default()
    });
    let bounds = prop_oneof![
        3 => Just(None),
        1 => (0u64..80, 1usize..12).prop_map(Some),
    ];
    let strategy = (rows(), proptest::option::of(0u64..200), bounds);
    let (shorter, stopped) = (std::cell::Cell::new(0u32), std::cell::Cell::new(0u32));
    runner
        .run(&strategy, |(rows, as_of, bounds)| {
            let sourced = rows
                .iter()
                .enumerate()
                .map(|(i, row)| SourcedRow {
                    file: "case.csv".to_owned(),
                    line: i as u64 + 2,
                    row: row.clone(),
                })
                .collect();
            let run_as_of = as_of.map(at);
            let Ok(Some(trace)) = CaseTrace::replay("case", sourced, run_as_of) else {
                return Ok(());
            };
            let search = match bounds {
                None => Search::COMMAND,
                Some((replayed_rows, held_rows)) => Search {
                    replayed_rows,
                    held_rows,
                },
            };
            let witness = of_trace(&trace, run_as_of, search);
            crate::witness::check(&rows, &witness, run_as_of).map_err(TestCaseError::fail)?;
            prop_assert!(witness.replayed_rows <= search.replayed_rows);
            prop_assert!(witness.minimal || bounds.is_some(), "{witness:?}");
            shorter.set(shorter.get() + u32::from(witness.len() < rows.len()));
            stopped.set(stopped.get() + u32::from(!witness.minimal));
            Ok(())
        })
        .unwrap();
    // The property means something: most witnesses leave rows out, and some searches stop.
    assert!(shorter.get() >= 200, "{} shorter", shorter.get());
    assert!(stopped.get() >= 10, "{} stopped", stopped.get());
}
