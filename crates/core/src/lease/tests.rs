//! Unit tests of the lease core: each rule of spec sections 4 and 5 pinned by a test that
//! fails if the rule breaks.

use super::*;

const LEASE: &str = "L-1";
const JOB: &str = "job-1";

/// 2026-01-01T10:00:00Z plus `seconds`.
fn t(seconds: u64) -> Timestamp {
    let base = Timestamp::parse("2026-01-01T10:00:00Z").unwrap();
    if seconds == 0 {
        base
    } else {
        base.checked_add(Seconds::new(seconds).unwrap()).unwrap()
    }
}

fn id(generation: u64, holder: &str) -> Identity {
    Identity {
        lease_id: LEASE.into(),
        generation,
        holder: holder.into(),
    }
}

fn row(at: u64, message: Message) -> Row {
    Row {
        observed_at: t(at),
        job_id: None,
        sent_at: None,
        message,
    }
}

/// An offer at `at` of `generation` to `holder` for `duration` seconds, ack deadline at
/// `ack_by` seconds (default: expiry).
fn offer_full(at: u64, generation: u64, holder: &str, duration: u64, ack_by: Option<u64>) -> Row {
    let given = GivenTerms {
        ack_deadline: ack_by.map(t),
        ..GivenTerms::default()
    };
    let terms = OfferTerms::resolve(t(at), &given, Seconds::new(duration).unwrap()).unwrap();
    let mut offer_row = row(
        at,
        Message::Offer(Offer {
            identity: id(generation, holder),
            terms,
            given,
        }),
    );
    offer_row.job_id = Some(JOB.into());
    offer_row
}

fn offer(at: u64, generation: u64, holder: &str) -> Row {
    offer_full(at, generation, holder, 30, Some(at + 10))
}

fn ack(at: u64, generation: u64, holder: &str) -> Row {
    row(at, Message::Ack(id(generation, holder)))
}

fn renew(at: u64, generation: u64, holder: &str, renew_seq: u64) -> Row {
    row(
        at,
        Message::Renew {
            identity: id(generation, holder),
            renew_seq,
        },
    )
}

fn progress(at: u64, generation: u64, holder: &str, progress_seq: u64) -> Row {
    row(
        at,
        Message::Progress {
            identity: id(generation, holder),
            progress_seq,
            progress_value: Some(compact_str::format_compact!("{progress_seq}0%")),
        },
    )
}

fn result(at: u64, generation: u64, holder: &str, result: TerminalResult) -> Row {
    row(
        at,
        Message::Result {
            identity: id(generation, holder),
            result,
        },
    )
}

fn cancel_request(at: u64) -> Row {
    row(at, Message::CancelRequest)
}

fn cancel_ack(at: u64, generation: u64, holder: &str) -> Row {
    row(at, Message::CancelAck(id(generation, holder)))
}

fn observe(at: u64) -> Row {
    row(at, Message::Observe)
}

/// Replays `rows`, returning the case and each row's `(disposition, reason)`.
fn run(rows: &[Row]) -> (Case, Vec<(Disposition, RowReason)>) {
    let (case, outcomes) = replay(rows).expect("valid rows").expect("some rows");
    let pairs = outcomes.iter().map(|o| (o.disposition, o.reason)).collect();
    (case, pairs)
}

/// The last row's `(disposition, reason)`.
fn last(rows: &[Row]) -> (Disposition, RowReason) {
    *run(rows).1.last().unwrap()
}

fn verdict(rows: &[Row]) -> (Decision, CaseReason) {
    let v = run(rows).0.verdict(None);
    (v.decision, v.reason)
}

use Disposition::*;
use RowReason as R;

/// An active generation 1 held by worker-a: offered at 0 (expires 30, ack by 10), acked at 2.
fn active() -> Vec<Row> {
    vec![offer(0, 1, "worker-a"), ack(2, 1, "worker-a")]
}

/// Generation 1 (worker-a) expired at 31; generation 2 (worker-b) offered at 40, acked at 41.
fn reassigned() -> Vec<Row> {
    vec![
        offer(0, 1, "worker-a"),
        ack(1, 1, "worker-a"),
        observe(31),
        offer(40, 2, "worker-b"),
        ack(41, 2, "worker-b"),
    ]
}

fn with(mut rows: Vec<Row>, more: impl IntoIterator<Item = Row>) -> Vec<Row> {
    rows.extend(more);
    rows
}

// ---- Step 1: the clock (deadlines are exclusive) ----

#[test]
fn ack_deadline_is_exclusive() {
    let rows = [offer(0, 1, "worker-a"), ack(10, 1, "worker-a")];
    assert_eq!(last(&rows), (Rejected, R::AckAfterDeadline));
    let rows = [offer(0, 1, "worker-a"), ack(9, 1, "worker-a")];
    assert_eq!(last(&rows), (Accepted, R::Acked));
}

#[test]
fn clock_step_times_out_an_unacked_offer() {
    let (case, outcomes) = {
        let rows = [offer(0, 1, "worker-a"), observe(10)];
        let (case, outcomes) = replay(&rows).unwrap().unwrap();
        (case, outcomes)
    };
    assert_eq!(outcomes[1].clock, Some(ClockEffect::AckTimedOut));
    assert_eq!(case.lease().phase, Phase::AckTimeout);
    assert_eq!(case.lease().ack_state, AckState::Missing);
    assert_eq!(
        verdict(&[offer(0, 1, "worker-a"), observe(10)]),
        (Decision::AckTimeout, CaseReason::AckMissing)
    );
    assert_eq!(
        verdict(&[offer(0, 1, "worker-a"), observe(9)]),
        (Decision::PendingAck, CaseReason::AwaitingAck)
    );
}

#[test]
fn expiry_is_exclusive() {
    let rows = with(active(), [renew(30, 1, "worker-a", 1)]);
    assert_eq!(last(&rows), (Rejected, R::RenewAfterExpiry));
    let rows = with(active(), [renew(29, 1, "worker-a", 1)]);
    assert_eq!(last(&rows), (Accepted, R::Renewed));
    let (case, outcomes) = replay(&with(active(), [observe(30)])).unwrap().unwrap();
    assert_eq!(outcomes[2].clock, Some(ClockEffect::Expired));
    assert_eq!(case.lease().phase, Phase::Expired);
}

#[test]
fn verdict_applies_the_clock_at_as_of() {
    let (case, _) = run(&active());
    assert_eq!(case.verdict(None).decision, Decision::Active);
    let later = case.verdict(Some(t(30)));
    assert_eq!(later.as_of, t(30));
    assert_eq!(
        (later.decision, later.reason),
        (Decision::Expired, CaseReason::ExpiredWithoutResult)
    );
    assert_eq!(later.clock, Some(ClockEffect::Expired));
    assert!(later.lease_expired());
    // An --as-of earlier than the last row changes nothing: the case is judged at its end.
    let earlier = case.verdict(Some(t(0)));
    assert_eq!(earlier.as_of, t(2));
    assert_eq!(earlier.decision, Decision::Active);
    assert!(!earlier.lease_expired());
}

// ---- Step 2: the conflict freeze ----

#[test]
fn rows_after_a_conflict_are_blocked_and_change_nothing() {
    let rows = with(
        active(),
        [
            ack(3, 1, "worker-b"),
            progress(4, 1, "worker-a", 1),
            renew(5, 1, "worker-a", 1),
            cancel_request(6),
            offer(7, 1, "worker-a"),
            renew(8, 0, "worker-z", 1),
            result(9, 1, "worker-a", TerminalResult::Success),
        ],
    );
    let (case, outcomes) = run(&rows);
    assert_eq!(outcomes[2], (Conflict, R::HolderConflict));
    for outcome in &outcomes[3..] {
        assert_eq!(*outcome, (Blocked, R::OwnershipConflict));
    }
    let lease = case.lease();
    assert_eq!(lease.progress, None);
    assert_eq!(lease.renewal, None);
    assert_eq!(lease.cancel_requested, None);
    assert_eq!(lease.phase, Phase::Active);
    assert!(
        case.stale_generations().is_empty(),
        "a blocked stale row adds nothing"
    );
    assert_eq!(
        verdict(&rows),
        (Decision::OwnershipConflict, CaseReason::HolderConflict)
    );
}

#[test]
fn a_frozen_lease_still_expires() {
    let rows = with(active(), [ack(3, 1, "worker-b"), observe(31)]);
    let (case, outcomes) = replay(&rows).unwrap().unwrap();
    assert_eq!(outcomes[3].disposition, Blocked);
    assert_eq!(outcomes[3].clock, Some(ClockEffect::Expired));
    let v = case.verdict(None);
    assert!(v.lease_expired());
    assert_eq!(v.decision, Decision::OwnershipConflict);
}

// ---- 4.1: identity checks, in order ----

#[test]
fn identity_checks_come_in_the_contract_order() {
    let base = reassigned();
    // Lower generation: stale, whatever the holder and lease.
    let mut other_lease = renew(42, 1, "worker-z", 9);
    if let Message::Renew { identity, .. } = &mut other_lease.message {
        identity.lease_id = "L-other".into();
    }
    let (case, outcomes) = run(&with(base.clone(), [other_lease]));
    assert_eq!(outcomes[5], (Rejected, R::StaleGeneration));
    assert_eq!(
        case.stale_generations().iter().copied().collect::<Vec<_>>(),
        [1]
    );
    // Higher generation: never issued.
    assert_eq!(
        last(&with(base.clone(), [progress(42, 3, "worker-b", 1)])),
        (Rejected, R::UnknownGeneration)
    );
    // Same generation, other lease id (even with another holder): unknown lease.
    let mut wrong_lease = ack(42, 2, "worker-c");
    if let Message::Ack(identity) = &mut wrong_lease.message {
        identity.lease_id = "L-2".into();
    }
    assert_eq!(
        last(&with(base.clone(), [wrong_lease])),
        (Rejected, R::UnknownLease)
    );
    // Same generation and lease, other holder: conflict.
    assert_eq!(
        last(&with(base, [cancel_ack(42, 2, "worker-a")])),
        (Conflict, R::HolderConflict)
    );
}

#[test]
fn identity_checks_apply_in_every_phase() {
    let finished = with(
        active(),
        [result(5, 1, "worker-a", TerminalResult::Success)],
    );
    assert_eq!(
        last(&with(
            finished.clone(),
            [result(6, 1, "worker-b", TerminalResult::Success)]
        )),
        (Conflict, R::HolderConflict)
    );
    assert_eq!(
        last(&with(finished, [renew(6, 0, "worker-a", 1)])),
        (Rejected, R::StaleGeneration)
    );
    let timed_out = vec![offer(0, 1, "worker-a"), observe(11)];
    assert_eq!(
        last(&with(timed_out, [ack(12, 1, "worker-b")])),
        (Conflict, R::HolderConflict)
    );
}

#[test]
fn stale_messages_never_change_the_lease() {
    let base = reassigned();
    let before = run(&base).0.lease().clone();
    let rows = with(
        base,
        [
            renew(42, 1, "worker-a", 5),
            progress(43, 1, "worker-a", 5),
            result(44, 1, "worker-a", TerminalResult::Success),
            cancel_ack(45, 1, "worker-a"),
            offer(46, 1, "worker-a"),
        ],
    );
    let (case, outcomes) = run(&rows);
    for outcome in &outcomes[5..] {
        assert_eq!(*outcome, (Rejected, R::StaleGeneration));
    }
    assert_eq!(*case.lease(), before);
    assert_eq!(
        verdict(&rows),
        (Decision::Active, CaseReason::StaleGeneration)
    );
}

// ---- 4.2: offer ----

#[test]
fn first_offer_sets_the_contract() {
    let (case, outcomes) = run(&[offer_full(0, 7, "worker-a", 30, None)]);
    assert_eq!(outcomes, [(Accepted, R::Offered)]);
    let lease = case.lease();
    assert_eq!(lease.phase, Phase::Offered);
    assert_eq!(lease.ack_state, AckState::Pending);
    assert_eq!(lease.expires_at, t(30));
    assert_eq!(
        lease.offer.terms.ack_deadline,
        t(30),
        "ack deadline defaults to expiry"
    );
    assert_eq!(case.job_id(), JOB);
}

#[test]
fn a_higher_generation_conflicts_while_the_current_one_has_authority() {
    assert_eq!(
        last(&[offer(0, 1, "worker-a"), offer(5, 2, "worker-b")]),
        (Conflict, R::OverlappingGenerations)
    );
    assert_eq!(
        last(&with(active(), [offer(5, 2, "worker-b")])),
        (Conflict, R::OverlappingGenerations)
    );
    let cancelled = with(active(), [cancel_request(4), offer(5, 2, "worker-b")]);
    let (case, outcomes) = run(&cancelled);
    assert_eq!(outcomes[3], (Conflict, R::OverlappingGenerations));
    assert_eq!(
        case.lease().identity().generation,
        1,
        "a conflicting offer does not become current"
    );
}

#[test]
fn a_higher_generation_is_reassigned_once_authority_ended() {
    for ended in [
        vec![offer(0, 1, "worker-a"), observe(10)],
        with(active(), [observe(30)]),
        with(active(), [result(5, 1, "worker-a", TerminalResult::Failed)]),
    ] {
        let rows = with(ended, [offer(50, 4, "worker-b")]);
        let (case, outcomes) = run(&rows);
        assert_eq!(*outcomes.last().unwrap(), (Accepted, R::Reassigned));
        assert_eq!(*case.lease().identity(), id(4, "worker-b"));
        assert_eq!(case.lease().phase, Phase::Offered);
    }
}

#[test]
fn reassignment_resets_every_per_generation_field_but_keeps_findings() {
    let rows = vec![
        offer(0, 1, "worker-a"),
        ack(1, 1, "worker-a"),
        renew(2, 1, "worker-a", 1),
        progress(3, 1, "worker-a", 2),
        progress(4, 1, "worker-a", 1),
        cancel_request(5),
        cancel_ack(6, 1, "worker-a"),
        observe(40),
        renew(41, 1, "worker-a", 2),
        result(42, 1, "worker-a", TerminalResult::Success),
        offer(50, 2, "worker-b"),
    ];
    let (case, outcomes) = run(&rows);
    assert_eq!(outcomes[8], (Rejected, R::RenewAfterExpiry));
    assert_eq!(outcomes[9], (Rejected, R::ResultAfterExpiry));
    assert_eq!(outcomes[10], (Accepted, R::Reassigned));
    let lease = case.lease();
    assert_eq!(lease.renewal, None);
    assert_eq!(lease.progress, None);
    assert_eq!(lease.cancel_requested, None);
    assert_eq!(lease.cancel_ack, None);
    assert!(!lease.result_rejected_for_expiry && !lease.renew_rejected_for_expiry);
    assert_eq!(lease.ack_state, AckState::Pending);
    assert_eq!(
        case.late_progress().iter().copied().collect::<Vec<_>>(),
        [1]
    );
    assert_eq!(
        verdict(&rows),
        (Decision::PendingAck, CaseReason::AwaitingAck)
    );
}

#[test]
fn same_generation_offer_is_duplicate_only_if_every_given_term_matches() {
    // Compared with the offer as issued: renewals do not count.
    let base = with(active(), [renew(5, 1, "worker-a", 1)]);
    let mut repeat = offer(6, 1, "worker-a");
    // The row gives ack_deadline 16 (its own observed_at + 10), which differs from the
    // original's 10 → reused. Without the deadline it repeats the offer.
    assert_eq!(
        last(&with(base.clone(), [repeat.clone()])),
        (Conflict, R::GenerationReused)
    );
    if let Message::Offer(o) = &mut repeat.message {
        o.given = GivenTerms::default();
    }
    assert_eq!(
        last(&with(base.clone(), [repeat.clone()])),
        (Duplicate, R::DuplicateOffer)
    );
    // Given terms equal to the accepted offer's → duplicate.
    if let Message::Offer(o) = &mut repeat.message {
        o.given = GivenTerms {
            issued_at: Some(t(0)),
            expires_at: Some(t(30)),
            ack_deadline: Some(t(10)),
        };
    }
    assert_eq!(
        last(&with(base.clone(), [repeat.clone()])),
        (Duplicate, R::DuplicateOffer)
    );
    // Another holder, lease id or duration → reused.
    let variants: [fn(&mut Offer); 4] = [
        |o| o.identity.holder = "worker-b".into(),
        |o| o.identity.lease_id = "L-9".into(),
        |o| o.terms.lease_duration = Seconds::new(31).unwrap(),
        |o| o.given.issued_at = Some(t(1)),
    ];
    for change in variants {
        let mut changed = repeat.clone();
        if let Message::Offer(o) = &mut changed.message {
            change(o);
        }
        let (case, outcomes) = run(&with(base.clone(), [changed]));
        assert_eq!(*outcomes.last().unwrap(), (Conflict, R::GenerationReused));
        assert_eq!(case.lease().offer.identity, id(1, "worker-a"));
    }
}

#[test]
fn a_lower_generation_offer_is_stale() {
    let rows = [offer(0, 5, "worker-a"), offer(1, 4, "worker-a")];
    let (case, outcomes) = run(&rows);
    assert_eq!(outcomes[1], (Rejected, R::StaleGeneration));
    assert!(case.stale_generations().contains(&4));
}

// ---- 4.2: ack ----

#[test]
fn ack_rules() {
    let (case, outcomes) = run(&active());
    assert_eq!(outcomes[1], (Accepted, R::Acked));
    assert_eq!(case.lease().phase, Phase::Active);
    assert_eq!(case.lease().ack_state, AckState::Acked);

    let late = [offer(0, 1, "worker-a"), observe(10), ack(12, 1, "worker-a")];
    let (case, outcomes) = run(&late);
    assert_eq!(outcomes[2], (Rejected, R::AckAfterDeadline));
    assert_eq!(case.lease().ack_state, AckState::Late);
    assert_eq!(case.lease().phase, Phase::AckTimeout);
    assert_eq!(
        verdict(&late),
        (Decision::AckTimeout, CaseReason::AckAfterDeadline)
    );

    for later in [
        vec![ack(3, 1, "worker-a")],
        vec![observe(30), ack(31, 1, "worker-a")],
        vec![
            result(3, 1, "worker-a", TerminalResult::Success),
            ack(4, 1, "worker-a"),
        ],
    ] {
        assert_eq!(last(&with(active(), later)), (Duplicate, R::DuplicateAck));
    }
}

// ---- 4.2: renew ----

#[test]
fn renew_rules() {
    let unacked = [offer(0, 1, "worker-a"), renew(1, 1, "worker-a", 1)];
    assert_eq!(last(&unacked), (Rejected, R::NotAcked));
    let timed_out = [
        offer(0, 1, "worker-a"),
        observe(10),
        renew(11, 1, "worker-a", 1),
    ];
    assert_eq!(last(&timed_out), (Rejected, R::NotAcked));
    let finished = with(
        active(),
        [
            result(3, 1, "worker-a", TerminalResult::Success),
            renew(4, 1, "worker-a", 1),
        ],
    );
    assert_eq!(last(&finished), (Rejected, R::AfterResult));

    let rows = with(
        active(),
        [
            renew(20, 1, "worker-a", 2),
            renew(25, 1, "worker-a", 2),
            renew(26, 1, "worker-a", 1),
            cancel_request(27),
            renew(40, 1, "worker-a", 3),
        ],
    );
    let (case, outcomes) = run(&rows);
    assert_eq!(outcomes[2], (Accepted, R::Renewed));
    assert_eq!(outcomes[3], (Duplicate, R::DuplicateRenew));
    assert_eq!(outcomes[4], (Rejected, R::RenewOutOfOrder));
    assert_eq!(
        outcomes[6],
        (Accepted, R::Renewed),
        "a cancel does not stop renewals"
    );
    assert_eq!(
        case.lease().expires_at,
        t(70),
        "expiry = renewal time + duration"
    );
    assert_eq!(
        case.lease().renewal,
        Some(Renewal {
            renew_seq: 3,
            renew_time: t(40)
        })
    );
    assert_eq!(
        case.lease().offer.terms.expires_at,
        t(30),
        "the offer is kept as issued"
    );
}

#[test]
fn an_expired_lease_is_never_revived() {
    let rows = with(
        active(),
        [
            observe(30),
            renew(31, 1, "worker-a", 1),
            ack(32, 1, "worker-a"),
        ],
    );
    let (case, outcomes) = run(&rows);
    assert_eq!(outcomes[3], (Rejected, R::RenewAfterExpiry));
    assert_eq!(case.lease().phase, Phase::Expired);
    assert_eq!(
        verdict(&rows),
        (Decision::Expired, CaseReason::RenewAfterExpiry)
    );
}

// ---- 4.2: progress ----

#[test]
fn progress_rules() {
    let unacked = [offer(0, 1, "worker-a"), progress(1, 1, "worker-a", 1)];
    assert_eq!(last(&unacked), (Rejected, R::NotAcked));
    assert!(run(&unacked).0.late_progress().is_empty());

    let rows = with(
        active(),
        [
            progress(3, 1, "worker-a", 13),
            progress(4, 1, "worker-a", 14),
            progress(5, 1, "worker-a", 14),
            progress(6, 1, "worker-a", 12),
        ],
    );
    let (case, outcomes) = run(&rows);
    assert_eq!(outcomes[2], (Accepted, R::ProgressAccepted));
    assert_eq!(outcomes[4], (Duplicate, R::DuplicateProgress));
    assert_eq!(outcomes[5], (Recorded, R::ProgressOutOfOrder));
    let kept = case.lease().progress.clone().unwrap();
    assert_eq!(
        (kept.progress_seq, kept.progress_value.as_deref()),
        (14, Some("140%"))
    );
    assert_eq!(
        case.late_progress().iter().copied().collect::<Vec<_>>(),
        [12]
    );
    assert_eq!(case.lease().expires_at, t(30), "progress never renews");
    assert_eq!(verdict(&rows), (Decision::Active, CaseReason::LateProgress));

    let cases: [(Vec<Row>, RowReason); 3] = [
        (
            vec![observe(30), progress(31, 1, "worker-a", 1)],
            R::ProgressAfterExpiry,
        ),
        (
            vec![
                result(3, 1, "worker-a", TerminalResult::Success),
                progress(4, 1, "worker-a", 1),
            ],
            R::ProgressAfterResult,
        ),
        (
            vec![cancel_request(3), progress(4, 1, "worker-a", 1)],
            R::ProgressAfterCancel,
        ),
    ];
    for (more, reason) in cases {
        let (case, outcomes) = run(&with(active(), more));
        assert_eq!(*outcomes.last().unwrap(), (Recorded, reason));
        assert!(case.late_progress().contains(&1));
        assert_eq!(case.lease().progress, None);
    }
}

// ---- 4.2: cancel_request and cancel_ack ----

#[test]
fn cancel_rules() {
    let rows = with(
        active(),
        [
            cancel_ack(3, 1, "worker-a"),
            cancel_request(4),
            cancel_request(5),
            cancel_ack(6, 1, "worker-a"),
            cancel_ack(7, 1, "worker-a"),
        ],
    );
    let (case, outcomes) = run(&rows);
    assert_eq!(outcomes[2], (Rejected, R::CancelNotRequested));
    assert_eq!(outcomes[3], (Accepted, R::CancelRequested));
    assert_eq!(outcomes[4], (Duplicate, R::DuplicateCancelRequest));
    assert_eq!(outcomes[5], (Accepted, R::CancelAcked));
    assert_eq!(outcomes[6], (Duplicate, R::DuplicateCancelAck));
    assert_eq!(case.lease().cancel_requested, Some(t(4)));
    assert_eq!(case.lease().cancel_ack, Some(t(6)));
    assert_eq!(
        case.lease().phase,
        Phase::Active,
        "a cancel does not change the phase"
    );
    assert_eq!(
        verdict(&rows),
        (
            Decision::ReconciliationRequired,
            CaseReason::CancelAcknowledgedNoResult
        )
    );
    let finished = with(
        active(),
        [
            result(3, 1, "worker-a", TerminalResult::Success),
            cancel_request(4),
        ],
    );
    assert_eq!(last(&finished), (Rejected, R::CancelAfterResult));
}

#[test]
fn a_cancel_on_an_expired_or_unacked_lease_still_needs_reconciliation() {
    // The decision table's row 3 comes before rows 4 to 7.
    let expired = with(active(), [observe(40), cancel_request(41)]);
    assert_eq!(last(&expired), (Accepted, R::CancelRequested));
    assert_eq!(
        verdict(&expired),
        (
            Decision::ReconciliationRequired,
            CaseReason::CancelUnacknowledged
        )
    );
    let pending = [offer(0, 1, "worker-a"), cancel_request(1)];
    assert_eq!(
        verdict(&pending),
        (
            Decision::ReconciliationRequired,
            CaseReason::CancelUnacknowledged
        )
    );
}

// ---- 4.2: result ----

#[test]
fn result_rules() {
    use TerminalResult::*;
    assert_eq!(
        last(&[offer(0, 1, "worker-a"), result(1, 1, "worker-a", Success)]),
        (Rejected, R::NotAcked)
    );
    let expired = with(active(), [observe(30), result(31, 1, "worker-a", Success)]);
    assert_eq!(last(&expired), (Rejected, R::ResultAfterExpiry));
    assert_eq!(
        verdict(&expired),
        (Decision::Expired, CaseReason::ResultAfterExpiry)
    );

    let uninvited = with(active(), [result(3, 1, "worker-a", Cancelled)]);
    assert_eq!(last(&uninvited), (Rejected, R::CancelNotRequested));
    assert_eq!(run(&uninvited).0.lease().phase, Phase::Active);

    let invited = with(
        active(),
        [cancel_request(3), result(4, 1, "worker-a", Cancelled)],
    );
    assert_eq!(last(&invited), (Accepted, R::ResultAccepted));
    assert_eq!(
        verdict(&invited),
        (Decision::Cancelled, CaseReason::ResultAccepted)
    );

    let finished = with(
        active(),
        [
            result(3, 1, "worker-a", Failed),
            result(4, 1, "worker-a", Failed),
            result(5, 1, "worker-a", Success),
        ],
    );
    let (case, outcomes) = run(&finished);
    assert_eq!(outcomes[2], (Accepted, R::ResultAccepted));
    assert_eq!(outcomes[3], (Duplicate, R::DuplicateResult));
    assert_eq!(outcomes[4], (Rejected, R::ContradictoryResult));
    assert_eq!(
        case.lease().phase,
        Phase::Terminal(Failed),
        "the first result stands"
    );
    assert_eq!(
        verdict(&finished),
        (Decision::Failed, CaseReason::ResultAccepted)
    );

    // A terminal lease is not expired by the clock.
    let done = with(active(), [result(3, 1, "worker-a", Success), observe(100)]);
    let v = run(&done).0.verdict(None);
    assert_eq!((v.decision, v.lease_expired()), (Decision::Success, false));
}

#[test]
fn observe_only_moves_the_clock() {
    let rows = with(active(), [observe(5)]);
    let (case, outcomes) = run(&rows);
    assert_eq!(outcomes[2], (Accepted, R::Observed));
    assert_eq!(*case.lease(), run(&active()).0.lease().clone());
}

// ---- Section 5: decision table and reason precedence ----

#[test]
fn decision_table_precedence() {
    use TerminalResult::*;
    // 1 beats 2: a conflict after a result.
    let rows = with(
        active(),
        [result(3, 1, "worker-a", Success), offer(4, 1, "worker-b")],
    );
    assert_eq!(
        verdict(&rows),
        (Decision::OwnershipConflict, CaseReason::GenerationReused)
    );
    // 2 beats 3: a result after a cancel request.
    let rows = with(
        active(),
        [cancel_request(3), result(4, 1, "worker-a", Success)],
    );
    assert_eq!(
        verdict(&rows),
        (Decision::Success, CaseReason::ResultAccepted)
    );
    // 3 beats 4: a cancel on a lease that then expired.
    let rows = with(active(), [cancel_request(3), observe(30)]);
    assert_eq!(
        verdict(&rows),
        (
            Decision::ReconciliationRequired,
            CaseReason::CancelUnacknowledged
        )
    );
    // The first conflict's reason stands.
    let rows = [
        offer(0, 1, "worker-a"),
        offer(1, 2, "worker-b"),
        offer(2, 1, "worker-z"),
    ];
    assert_eq!(
        verdict(&rows),
        (
            Decision::OwnershipConflict,
            CaseReason::OverlappingGenerations
        )
    );
}

#[test]
fn reason_precedence_within_a_decision() {
    // EXPIRED: result_after_expiry beats renew_after_expiry.
    let rows = with(
        active(),
        [
            observe(30),
            renew(31, 1, "worker-a", 1),
            result(32, 1, "worker-a", TerminalResult::Success),
        ],
    );
    assert_eq!(
        verdict(&rows),
        (Decision::Expired, CaseReason::ResultAfterExpiry)
    );
    // ACTIVE: stale_generation beats late_progress.
    let rows = vec![
        offer(0, 1, "worker-a"),
        observe(10),
        offer(11, 2, "worker-b"),
        ack(12, 2, "worker-b"),
        progress(13, 2, "worker-b", 2),
        progress(14, 2, "worker-b", 1),
        ack(15, 1, "worker-a"),
    ];
    assert_eq!(
        verdict(&rows),
        (Decision::Active, CaseReason::StaleGeneration)
    );
    assert_eq!(
        verdict(&active()),
        (Decision::Active, CaseReason::WithinLease)
    );
}

// ---- Faults: bad input, not outcomes ----

#[test]
fn rows_that_break_the_file_rules_are_faults() {
    assert_eq!(
        Case::start(&ack(0, 1, "worker-a")).unwrap_err(),
        CaseFault::FirstRowNotOffer(Event::Ack)
    );
    let mut no_job = offer(0, 1, "worker-a");
    no_job.job_id = None;
    assert_eq!(Case::start(&no_job).unwrap_err(), CaseFault::MissingJobId);

    let (mut case, _) = Case::start(&offer(10, 1, "worker-a")).unwrap();
    let before = case.clone();
    assert_eq!(
        case.step(&observe(9)).unwrap_err(),
        CaseFault::ObservedAtDecreased { previous: t(10) }
    );
    let mut other_job = observe(11);
    other_job.job_id = Some("job-2".into());
    assert!(matches!(
        case.step(&other_job).unwrap_err(),
        CaseFault::JobIdMismatch { .. }
    ));
    assert_eq!(case, before, "a faulty row is not applied");
    let mut same_job = observe(11);
    same_job.job_id = Some(JOB.into());
    assert!(case.step(&same_job).is_ok());
}

#[test]
fn a_renewal_past_year_9999_is_a_fault() {
    let start = Timestamp::parse("9999-12-31T23:58:00Z").unwrap();
    let terms =
        OfferTerms::resolve(start, &GivenTerms::default(), Seconds::new(90).unwrap()).unwrap();
    let offer_row = Row {
        observed_at: start,
        job_id: Some(JOB.into()),
        sent_at: None,
        message: Message::Offer(Offer {
            identity: id(1, "w"),
            terms,
            given: GivenTerms::default(),
        }),
    };
    let (mut case, _) = Case::start(&offer_row).unwrap();
    let at = |text: &str, message: Message| Row {
        observed_at: Timestamp::parse(text).unwrap(),
        job_id: None,
        sent_at: None,
        message,
    };
    case.step(&at("9999-12-31T23:58:01Z", Message::Ack(id(1, "w"))))
        .unwrap();
    let renewal = Message::Renew {
        identity: id(1, "w"),
        renew_seq: 1,
    };
    assert!(matches!(
        case.step(&at("9999-12-31T23:59:00Z", renewal)),
        Err(CaseFault::ExpiryOutOfRange(_))
    ));
}

#[test]
fn offer_terms_resolve_with_the_contract_defaults_and_checks() {
    let duration = Seconds::new(30).unwrap();
    let given = GivenTerms {
        issued_at: Some(t(5)),
        ..GivenTerms::default()
    };
    let terms = OfferTerms::resolve(t(0), &given, duration).unwrap();
    assert_eq!(
        (terms.issued_at, terms.expires_at, terms.ack_deadline),
        (t(5), t(35), t(35))
    );
    let wrong_expiry = GivenTerms {
        expires_at: Some(t(31)),
        ..GivenTerms::default()
    };
    assert_eq!(
        OfferTerms::resolve(t(0), &wrong_expiry, duration),
        Err(TermsError::ExpiresAtMismatch(t(30)))
    );
    for deadline in [t(31), Timestamp::parse("2026-01-01T09:59:59Z").unwrap()] {
        let given = GivenTerms {
            ack_deadline: Some(deadline),
            ..GivenTerms::default()
        };
        assert!(matches!(
            OfferTerms::resolve(t(0), &given, duration),
            Err(TermsError::AckDeadlineOutOfRange { .. })
        ));
    }
    for deadline in [t(0), t(30)] {
        let given = GivenTerms {
            ack_deadline: Some(deadline),
            ..GivenTerms::default()
        };
        assert!(OfferTerms::resolve(t(0), &given, duration).is_ok());
    }
}

#[test]
fn restart_in_a_used_case_is_start() {
    // A case that has been through everything: renewal, progress, a stale generation, late
    // progress, a cancel, a reassignment and a conflict.
    let used_rows = with(
        active(),
        [
            renew(3, 1, "worker-a", 1),
            progress(4, 1, "worker-a", 2),
            offer(5, 0, "worker-z"),
            cancel_request(6),
            cancel_ack(7, 1, "worker-a"),
            progress(8, 1, "worker-a", 1),
            observe(60),
            offer(61, 2, "worker-b"),
            ack(62, 2, "worker-b"),
            ack(63, 2, "worker-c"),
        ],
    );
    let (mut used, _) = run(&used_rows);
    assert!(used.conflict().is_some() && !used.stale_generations().is_empty());
    let mut first = offer_full(100, 7, "worker-q", 45, None);
    first.job_id = Some("job-2".into());
    let (started, start_outcome) = Case::start(&first).unwrap();
    assert_eq!(used.restart(&first).unwrap(), start_outcome);
    assert_eq!(used, started);
    // And they go on alike.
    let mut fresh = started;
    for next in [ack(101, 7, "worker-q"), progress(102, 7, "worker-q", 1)] {
        assert_eq!(used.step(&next), fresh.step(&next));
    }
    assert_eq!(used, fresh);
    // Not an offer, or no job id: a fault, as for `start`.
    assert_eq!(
        used.restart(&ack(103, 7, "worker-q")),
        Err(CaseFault::FirstRowNotOffer(Event::Ack))
    );
    let mut no_job = offer(104, 1, "worker-a");
    no_job.job_id = None;
    assert_eq!(used.restart(&no_job), Err(CaseFault::MissingJobId));
}

/// The reason table agrees with itself: every decision's listed reasons are of its row, every
/// reason is listed by each decision of its row (the conflict reasons by the first-conflict
/// rule), and no reason is listed twice.
#[test]
fn the_reason_table_lists_each_reason_under_its_decisions_once() {
    use crate::lease::ReasonPrecedence;
    for &decision in Decision::ALL {
        match decision.reason_precedence() {
            ReasonPrecedence::FirstConflict => {
                assert_eq!(decision.table_row(), 1, "{decision:?}");
            }
            ReasonPrecedence::FirstThatApplies(list) => {
                for (i, &(reason, _)) in list.iter().enumerate() {
                    assert_eq!(reason.decision_row(), decision.table_row(), "{reason:?}");
                    assert!(!list[..i].iter().any(|&(r, _)| r == reason), "{reason:?}");
                }
            }
        }
    }
    for &reason in CaseReason::ALL {
        let listed = Decision::ALL
            .iter()
            .filter(|d| d.table_row() == reason.decision_row())
            .all(|d| match d.reason_precedence() {
                ReasonPrecedence::FirstConflict => [
                    ConflictKind::HolderConflict,
                    ConflictKind::OverlappingGenerations,
                    ConflictKind::GenerationReused,
                ]
                .iter()
                .any(|k| k.case_reason() == reason),
                ReasonPrecedence::FirstThatApplies(list) => list.iter().any(|&(r, _)| r == reason),
            });
        assert!(listed, "{reason:?}");
    }
}
