//! Bounded exhaustive exploration of message interleavings for small configurations (two
//! holders, two generations, a handful of messages each): every order of the messages, each
//! arriving after any of a few clock steps, explored depth-first with already-seen states
//! pruned. At every state it checks that
//!
//! - at most one holder is authorised (ACTIVE and unexpired) at any instant: authority never
//!   passes from one holder to another while the first still holds it;
//! - no result (or renewal) is accepted from a non-current generation or after expiry;
//! - decisions are a function of the rows: replaying the path from scratch gives the same
//!   case, outcomes and verdicts.
//!
//! The number of states explored is printed (`cargo test --test it interleavings:: -- --nocapture`).

use crate::common;

use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use common::{ack, at, id, offer, progress, renew, result, row};
use leasejudge::lease::{
    replay, Case, Identity, Message, Outcome, Phase, Row, RowReason, Seconds, TerminalResult,
    Timestamp,
};

/// A message that can arrive at any time.
#[derive(Clone, Debug)]
enum Template {
    Offer(Identity),
    Ack(Identity),
    Renew(Identity, u64),
    Progress(Identity, u64),
    Result(Identity, TerminalResult),
    CancelRequest,
    CancelAck(Identity),
}

const DURATION: u64 = 10;
const ACK_AFTER: u64 = 5;

impl Template {
    fn at(&self, seconds: u64) -> Row {
        match self {
            Template::Offer(identity) => {
                offer(seconds, identity.clone(), DURATION, Some(ACK_AFTER))
            }
            Template::Ack(identity) => ack(seconds, identity.clone()),
            Template::Renew(identity, seq) => renew(seconds, identity.clone(), *seq),
            Template::Progress(identity, seq) => progress(seconds, identity.clone(), *seq),
            Template::Result(identity, r) => result(seconds, identity.clone(), *r),
            Template::CancelRequest => row(seconds, Message::CancelRequest),
            Template::CancelAck(identity) => row(seconds, Message::CancelAck(identity.clone())),
        }
    }
}

/// One configuration: the first offer, and the messages that may follow in any order.
struct Configuration {
    name: &'static str,
    first: Identity,
    messages: Vec<Template>,
    /// The clock steps a message may arrive after.
    steps: &'static [u64],
}

#[derive(Default)]
struct Stats {
    states: usize,
    transitions: usize,
    max_depth: usize,
    /// Transitions after which a holder was authorised, results accepted, and reassignments:
    /// the checks above had something to check.
    authorised: usize,
    results_accepted: usize,
    reassigned: usize,
}

/// Who holds authority at `t`: the current holder if the generation is ACTIVE and unexpired.
fn authorised(case: &Case, t: Timestamp) -> Option<(u64, String)> {
    let lease = case.verdict(Some(t)).lease;
    (lease.phase == Phase::Active && t < lease.expires_at).then(|| {
        (
            lease.identity().generation,
            lease.identity().holder.to_string(),
        )
    })
}

fn state_key(case: &Case, remaining: u32) -> u64 {
    let mut hasher = DefaultHasher::new();
    case.lease().hash(&mut hasher);
    case.stale_generations().hash(&mut hasher);
    case.late_progress().hash(&mut hasher);
    case.conflict().hash(&mut hasher);
    case.last_observed_at().hash(&mut hasher);
    remaining.hash(&mut hasher);
    hasher.finish()
}

/// Checks one transition `before --row--> after`; panics with the path on a violation.
fn check_transition(before: &Case, row: &Row, outcome: &Outcome, after: &Case, path: &[Row]) {
    let t = row.observed_at;
    let fail = |what: &str| panic!("{what}\nrow: {row:?}\noutcome: {outcome:?}\npath: {path:#?}");
    let was = before.verdict(Some(t)).lease; // the generation as step 1 leaves it at t
    if let (Some(old), Some(new)) = (authorised(before, t), authorised(after, t)) {
        if old != new {
            fail("two holders authorised at the same instant");
        }
    }
    if after.lease().identity().generation != was.identity().generation
        && was.phase == Phase::Active
    {
        fail("a new generation became current while the old one was ACTIVE");
    }
    let message_generation = row.message.identity().map(|i| i.generation);
    if matches!(
        outcome.reason,
        RowReason::ResultAccepted | RowReason::Renewed
    ) {
        if message_generation != Some(was.identity().generation) {
            fail("a result or renewal was accepted from a non-current generation");
        }
        if was.phase != Phase::Active || t >= was.expires_at {
            fail("a result or renewal was accepted after expiry (or before ack)");
        }
    }
    // Authority never appears without an ack of the current generation.
    if let Some((generation, _)) = authorised(after, t) {
        if after.lease().identity().generation != generation
            || after.lease().ack_state != leasejudge::lease::AckState::Acked
        {
            fail("authority without an accepted ack");
        }
    }
}

/// Decisions are a function of the rows: replaying the path from scratch gives the same case
/// and outcomes, and judging it twice, now or later, gives the same verdict.
fn check_replay(case: &Case, outcomes: &[Outcome], path: &[Row]) {
    let (replayed, replayed_outcomes) = replay(path).unwrap().unwrap();
    assert_eq!(&replayed, case, "replay differs: {path:#?}");
    assert_eq!(replayed_outcomes, outcomes, "outcomes differ: {path:#?}");
    let later = case
        .last_observed_at()
        .checked_add(Seconds::new(3 * DURATION).unwrap())
        .unwrap();
    for as_of in [None, Some(later)] {
        let (first, second) = (case.verdict(as_of), replayed.verdict(as_of));
        assert_eq!(first, second);
        // An ACTIVE decision is never given for an expired lease.
        if first.decision == leasejudge::lease::Decision::Active {
            assert!(
                first.as_of < first.lease.expires_at,
                "ACTIVE after expiry: {path:#?}"
            );
        }
    }
}

struct Explorer<'a> {
    configuration: &'a Configuration,
    seen: HashSet<u64>,
    stats: Stats,
    path: Vec<Row>,
    outcomes: Vec<Outcome>,
}

impl Explorer<'_> {
    fn explore(&mut self, case: &Case, remaining: u32, now: u64) {
        self.stats.max_depth = self.stats.max_depth.max(self.path.len());
        for (index, template) in self.configuration.messages.iter().enumerate() {
            if remaining & (1 << index) == 0 {
                continue;
            }
            for &step in self.configuration.steps {
                let t = now + step;
                let row = template.at(t);
                let mut after = case.clone();
                let outcome = after.step(&row).expect("generated rows are valid input");
                self.stats.transitions += 1;
                self.stats.authorised += usize::from(authorised(&after, at(t)).is_some());
                self.stats.results_accepted +=
                    usize::from(outcome.reason == RowReason::ResultAccepted);
                self.stats.reassigned += usize::from(outcome.reason == RowReason::Reassigned);
                self.path.push(row);
                self.outcomes.push(outcome);
                check_transition(
                    case,
                    self.path.last().unwrap(),
                    &outcome,
                    &after,
                    &self.path,
                );
                let rest = remaining & !(1 << index);
                if self.seen.insert(state_key(&after, rest)) {
                    self.stats.states += 1;
                    check_replay(&after, &self.outcomes, &self.path);
                    self.explore(&after, rest, t);
                }
                self.path.pop();
                self.outcomes.pop();
            }
        }
    }
}

fn explore(configuration: &Configuration) -> Stats {
    let first = offer(0, configuration.first.clone(), DURATION, Some(ACK_AFTER));
    let (case, outcome) = Case::start(&first).unwrap();
    let all = (1u32 << configuration.messages.len()) - 1;
    let mut explorer = Explorer {
        configuration,
        seen: HashSet::new(),
        stats: Stats {
            states: 1,
            ..Stats::default()
        },
        path: vec![first],
        outcomes: vec![outcome],
    };
    explorer.seen.insert(state_key(&case, all));
    explorer.explore(&case, all, 0);
    println!(
        "{}: {} messages, clock steps {:?}: {} distinct states explored, {} transitions, \
         deepest path {} rows ({} authorised, {} results accepted, {} reassignments)",
        configuration.name,
        configuration.messages.len(),
        configuration.steps,
        explorer.stats.states,
        explorer.stats.transitions,
        explorer.stats.max_depth,
        explorer.stats.authorised,
        explorer.stats.results_accepted,
        explorer.stats.reassigned
    );
    assert!(explorer.stats.authorised > 0 && explorer.stats.results_accepted > 0);
    assert!(explorer.stats.reassigned > 0);
    explorer.stats
}

/// Generation 1 to holder a, then a reassignment to holder b as generation 2; both holders
/// ack, renew, report progress and a result, in every order and timing.
#[test]
fn handover_between_two_holders() {
    let (a, b) = (id("L-1", 1, "a"), id("L-1", 2, "b"));
    let stats = explore(&Configuration {
        name: "handover",
        first: a.clone(),
        messages: vec![
            Template::Ack(a.clone()),
            Template::Renew(a.clone(), 1),
            Template::Progress(a.clone(), 1),
            Template::Result(a.clone(), TerminalResult::Success),
            Template::Offer(b.clone()),
            Template::Ack(b.clone()),
            Template::Renew(b.clone(), 1),
            Template::Result(b.clone(), TerminalResult::Failed),
        ],
        steps: &[0, 4, 11],
    });
    assert!(
        stats.states > 10_000,
        "explored only {} states",
        stats.states
    );
}

/// Two holders claim the same generation, with a cancellation and a second generation in
/// the mix: the conflict freeze and the cancel rules under every order and timing.
#[test]
fn two_holders_claim_one_generation() {
    let a = id("L-1", 1, "a");
    let b_same = id("L-1", 1, "b");
    let b_next = id("L-1", 2, "b");
    let stats = explore(&Configuration {
        name: "contested",
        first: a.clone(),
        messages: vec![
            Template::Ack(a.clone()),
            Template::Ack(b_same.clone()),
            Template::Renew(b_same.clone(), 1),
            Template::Result(a.clone(), TerminalResult::Cancelled),
            Template::CancelRequest,
            Template::CancelAck(a.clone()),
            Template::Offer(b_next.clone()),
            Template::Ack(b_next.clone()),
        ],
        steps: &[0, 4, 11],
    });
    assert!(
        stats.states > 1_000,
        "explored only {} states",
        stats.states
    );
}

/// The timing of section 4's deadlines is exercised: a one-message configuration reaches the
/// ack deadline and the expiry exactly at their instants (exclusive deadlines).
#[test]
fn deadlines_are_reached_at_their_instant() {
    let a = id("L-1", 1, "a");
    let (mut case, _) = Case::start(&offer(0, a.clone(), DURATION, Some(ACK_AFTER))).unwrap();
    let late = case.step(&ack(ACK_AFTER, a.clone())).unwrap();
    assert_eq!(late.reason, RowReason::AckAfterDeadline);
    assert_eq!(
        case.verdict(Some(at(DURATION))).lease.phase,
        Phase::AckTimeout
    );
}
