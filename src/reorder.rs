//! Spec section 7 as a check: permuting which renew/progress messages of one generation fill
//! their arrival slots, and what that may and may not change.
//!
//! Sans-IO like the lease core: rows in, findings out. The `reorder` command drives it with a
//! seeded [`SplitMix64`], so the same seed always tries the same permutations.

use std::collections::HashSet;
use std::fmt;

use crate::random::SplitMix64;

use crate::lease::{replay, Case, Decision, Message, Phase, Row, Timestamp};
use crate::matrix::MatrixRow;

/// The two kinds of message section 7 permutes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// `renew`, by `renew_seq`.
    Renew,
    /// `progress`, by `progress_seq`.
    Progress,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Renew => "renew",
            Kind::Progress => "progress",
        })
    }
}

/// The kind, generation and sequence number of a renew or progress row.
pub fn sequenced(row: &Row) -> Option<(Kind, u64, u64)> {
    match &row.message {
        Message::Renew {
            identity,
            renew_seq,
        } => Some((Kind::Renew, identity.generation, *renew_seq)),
        Message::Progress {
            identity,
            progress_seq,
            ..
        } => Some((Kind::Progress, identity.generation, *progress_seq)),
        _ => None,
    }
}

/// The rows of one kind and generation whose sequence numbers are unique among the case's rows
/// of that kind and generation: any subset of them may be permuted (section 7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The kind of message.
    pub kind: Kind,
    /// The generation the messages name.
    pub generation: u64,
    /// Their row indices, ascending.
    pub members: Vec<usize>,
}

/// Every group of a case with at least two members, by generation then kind.
pub fn groups(rows: &[Row]) -> Vec<Group> {
    let mut keyed: Vec<((u64, Kind), u64, usize)> = rows
        .iter()
        .enumerate()
        .filter_map(|(index, row)| {
            sequenced(row).map(|(kind, generation, seq)| ((generation, kind), seq, index))
        })
        .collect();
    keyed.sort();
    let mut groups: Vec<Group> = Vec::new();
    let mut i = 0;
    while i < keyed.len() {
        let key = keyed[i].0;
        let mut members = Vec::new();
        while i < keyed.len() && keyed[i].0 == key {
            let seq = keyed[i].1;
            let mut j = i;
            while j < keyed.len() && keyed[j].0 == key && keyed[j].1 == seq {
                j += 1;
            }
            if j - i == 1 {
                members.push(keyed[i].2);
            }
            i = j;
        }
        members.sort_unstable();
        if members.len() >= 2 {
            groups.push(Group {
                kind: key.1,
                generation: key.0,
                members,
            });
        }
    }
    groups
}

/// Which message fills which arrival slot: `fills[i]` is the row moved into `slots[i]`.
/// Both are row indices; `slots` is ascending and `fills` is a permutation of it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Permutation {
    /// The kind of the permuted messages.
    pub kind: Kind,
    /// Their generation.
    pub generation: u64,
    /// The arrival slots, ascending.
    pub slots: Vec<usize>,
    /// The row that fills each slot.
    pub fills: Vec<usize>,
}

impl Permutation {
    /// How many messages change slot.
    pub fn moved(&self) -> usize {
        self.slots
            .iter()
            .zip(&self.fills)
            .filter(|(slot, fill)| slot != fill)
            .count()
    }

    /// The index of the last permuted slot.
    pub fn last_slot(&self) -> usize {
        *self.slots.last().expect("a permutation has slots")
    }

    /// The rows in the permuted order: each slot keeps its `observed_at` and takes the rest of
    /// the message that fills it; every other row stays where it is.
    pub fn apply(&self, rows: &[Row]) -> Vec<Row> {
        let mut permuted = rows.to_vec();
        for (&slot, &fill) in self.slots.iter().zip(&self.fills) {
            permuted[slot] = Row {
                observed_at: rows[slot].observed_at,
                ..rows[fill].clone()
            };
        }
        permuted
    }

    /// Describes the permutation with the rows' lines: `lines 4, 6 arrive as 6, 4`.
    pub fn describe(&self, lines: &[u64]) -> String {
        let list = |indices: &[usize]| {
            indices
                .iter()
                .map(|&i| lines[i].to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "generation {} {}: slots at lines {} filled by lines {}",
            self.generation,
            self.kind,
            list(&self.slots),
            list(&self.fills)
        )
    }
}

/// A column of section 7's invariant that differed between the two orders.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The matrix column.
    pub column: &'static str,
    /// Its value in file order.
    pub original: String,
    /// Its value in the permuted order.
    pub permuted: String,
}

/// What section 7's invariant says about one permutation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invariant {
    /// Some permuted message, in one order or the other, did not arrive while its generation
    /// was `ACTIVE` with no cancel requested and no ownership conflict: nothing is promised.
    NotApplicable,
    /// The invariant applied and held.
    Holds,
    /// The invariant applied and failed: a bug in the lease rules.
    Violated(Vec<Difference>),
}

/// Replays `rows[..=last]`, checking that every row in `slots` arrives while generation
/// `generation` is current, `ACTIVE` (not reaching expiry at its arrival), with no cancel
/// requested and no conflict. Returns the judged prefix if it does.
fn replay_prefix(rows: &[Row], slots: &[usize], generation: u64) -> Option<(Case, MatrixRow)> {
    let last = *slots.last()?;
    let (first, rest) = rows[..=last].split_first()?;
    let (mut case, _) = Case::start(first).ok()?;
    for (offset, row) in rest.iter().enumerate() {
        let index = offset + 1;
        if slots.contains(&index) && !authorised_for(&case, generation, row.observed_at) {
            return None;
        }
        case.step(row).ok()?;
    }
    let verdict = case.verdict(None);
    let matrix = MatrixRow::new("", &case, &verdict);
    Some((case, matrix))
}

/// Whether a message of `generation` arriving at `at` finds that generation `ACTIVE` (after
/// the clock step), with no cancel requested and no ownership conflict.
fn authorised_for(case: &Case, generation: u64, at: Timestamp) -> bool {
    let lease = case.lease();
    lease.identity().generation == generation
        && lease.phase == Phase::Active
        && at < lease.expires_at
        && lease.cancel_requested.is_none()
        && case.conflict().is_none()
}

/// Checks section 7's invariant for one permutation of `rows` (a whole case, file order).
pub fn check_invariant(rows: &[Row], permutation: &Permutation) -> Invariant {
    let permuted = permutation.apply(rows);
    let slots = &permutation.slots;
    let (Some((_, original)), Some((_, reordered))) = (
        replay_prefix(rows, slots, permutation.generation),
        replay_prefix(&permuted, slots, permutation.generation),
    ) else {
        return Invariant::NotApplicable;
    };
    let differences = invariant_differences(&original, &reordered);
    if differences.is_empty() {
        Invariant::Holds
    } else {
        Invariant::Violated(differences)
    }
}

/// The columns section 7 says must not depend on arrival order, where they differ.
pub fn invariant_differences(original: &MatrixRow, permuted: &MatrixRow) -> Vec<Difference> {
    let original_cells = original.cells();
    let permuted_cells = permuted.cells();
    [
        "generation",
        "holder_identity",
        "progress_sequence",
        "progress_value",
        "terminal_result",
        "decision",
    ]
    .into_iter()
    .filter_map(|column| {
        let at = crate::matrix::COLUMNS
            .iter()
            .position(|c| *c == column)
            .expect("a matrix column");
        (original_cells[at] != permuted_cells[at]).then(|| Difference {
            column,
            original: original_cells[at].clone(),
            permuted: permuted_cells[at].clone(),
        })
    })
    .collect()
}

/// The whole case's decision and reason in the permuted order (judged at its end, or at
/// `as_of` if later), or `None` if the permuted rows do not replay (an expiry out of range).
pub fn whole_case_decision(
    rows: &[Row],
    as_of: Option<Timestamp>,
) -> Option<(Decision, crate::lease::CaseReason)> {
    let (case, _) = replay(rows).ok()??;
    let verdict = case.verdict(as_of);
    Some((verdict.decision, verdict.reason))
}

/// A stable 64-bit hash of a case id (FNV-1a), so each case gets its own stream of
/// permutations that does not shift when other cases are added.
pub fn case_seed(seed: u64, case_id: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in case_id.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    seed ^ hash
}

/// The permutations to try for a case, at most `budget`: first every swap of two messages of
/// a group (the smallest permutations), in file order, then random subsets of a random group in
/// random non-identity orders.
pub fn permutations(groups: &[Group], budget: usize, rng: &mut SplitMix64) -> Vec<Permutation> {
    Permutations::new(groups, budget, rng).collect()
}

/// [`permutations`] drawn one at a time, so that trying them holds one permutation, not all:
/// a million permutations of a 400-message group held whole took 2.8 GB before aborting.
pub struct Permutations<'a> {
    groups: &'a [Group],
    budget: usize,
    rng: &'a mut SplitMix64,
    /// Permutations produced so far.
    produced: usize,
    /// The next swap: group, then the two member indices.
    swap: (usize, usize, usize),
    /// Random draws made so far.
    draws: usize,
    /// A 128-bit hash of each random permutation produced, for the repeat check (a scan of
    /// the produced made `-n N` quadratic; holding them whole made it need gigabytes). Two
    /// permutations sharing a hash (about one chance in 2^64 at a million) only skip one.
    /// Swaps are not kept: a random permutation moves at least three messages, so it is
    /// never a swap.
    tried: HashSet<u128>,
}

impl<'a> Permutations<'a> {
    /// At most `budget` permutations of `groups`, random ones drawn from `rng`.
    pub fn new(groups: &'a [Group], budget: usize, rng: &'a mut SplitMix64) -> Self {
        Permutations {
            groups,
            budget,
            rng,
            produced: 0,
            swap: (0, 0, 1),
            draws: 0,
            tried: HashSet::new(),
        }
    }

    fn next_swap(&mut self) -> Option<Permutation> {
        loop {
            let (g, i, j) = self.swap;
            let group = self.groups.get(g)?;
            if i + 1 >= group.members.len() {
                self.swap = (g + 1, 0, 1);
                continue;
            }
            if j >= group.members.len() {
                self.swap = (g, i + 1, i + 2);
                continue;
            }
            self.swap = (g, i, j + 1);
            let (a, b) = (group.members[i], group.members[j]);
            return Some(Permutation {
                kind: group.kind,
                generation: group.generation,
                slots: vec![a, b],
                fills: vec![b, a],
            });
        }
    }

    fn next_random(&mut self) -> Option<Permutation> {
        let groups = self.groups;
        if groups.is_empty() {
            return None;
        }
        // Random draws may repeat a permutation already tried; a bounded number of draws keeps
        // a tiny case (whose permutations are few) from looping forever.
        while self.draws < self.budget.saturating_mul(4) {
            self.draws += 1;
            let Some(permutation) = draw_permutation(self.rng, groups) else {
                continue; // a group whose only permutation is the swap, already tried
            };
            if self.tried.insert(hash128(&permutation)) {
                return Some(permutation);
            }
        }
        None
    }
}

impl Iterator for Permutations<'_> {
    type Item = Permutation;

    fn next(&mut self) -> Option<Permutation> {
        if self.produced == self.budget {
            return None;
        }
        let next = self.next_swap().or_else(|| self.next_random())?;
        self.produced += 1;
        Some(next)
    }
}

/// A random permutation of three or more members of one random group of `groups` (never
/// the identity), or `None` when the group drawn has fewer than three members (its only
/// permutation is the swap, tried in order). One draw consumes the generator the same way
/// whatever is done with its result, so the sequence is fixed by the seed.
fn draw_permutation(rng: &mut SplitMix64, groups: &[Group]) -> Option<Permutation> {
    let group = &groups[rng.below(groups.len())];
    let n = group.members.len();
    if n < 3 {
        return None;
    }
    let size = 3 + rng.below(n - 2);
    // A random subset of `size` members: a partial Fisher-Yates shuffle of the indices.
    let mut indices: Vec<usize> = (0..n).collect();
    for i in 0..size {
        let j = i + rng.below(n - i);
        indices.swap(i, j);
    }
    let mut slots: Vec<usize> = indices[..size].iter().map(|&i| group.members[i]).collect();
    slots.sort_unstable();
    let mut fills = slots.clone();
    for i in (1..size).rev() {
        fills.swap(i, rng.below(i + 1));
    }
    if fills == slots {
        fills.rotate_left(1);
    }
    Some(Permutation {
        kind: group.kind,
        generation: group.generation,
        slots,
        fills,
    })
}

/// Two 64-bit hashes of `permutation` under different prefixes.
fn hash128(permutation: &Permutation) -> u128 {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let half = |prefix: u8| {
        let mut hasher = DefaultHasher::new();
        prefix.hash(&mut hasher);
        permutation.hash(&mut hasher);
        hasher.finish()
    };
    (u128::from(half(0)) << 64) | u128::from(half(1))
}

/// What trying permutations of one case found.
#[derive(Clone, Debug, Default)]
pub struct CaseFindings {
    /// Permutations tried.
    pub tried: usize,
    /// Permutations for which the invariant applied (and was checked).
    pub checked: usize,
    /// Every violation of the invariant, with its permutation.
    pub violations: Vec<(Permutation, Vec<Difference>)>,
    /// The smallest permutation (fewest messages moved, then first tried) that changes the
    /// whole case's decision, with the decision and reason in file order and permuted.
    pub order_sensitive: Option<OrderSensitivity>,
}

/// A permutation that changes the whole case's decision.
#[derive(Clone, Debug)]
pub struct OrderSensitivity {
    /// The permutation.
    pub permutation: Permutation,
    /// Decision and reason in file order.
    pub original: (Decision, crate::lease::CaseReason),
    /// Decision and reason in the permuted order.
    pub permuted: (Decision, crate::lease::CaseReason),
}

/// Tries up to `budget` permutations of one case (its rows in file order).
pub fn explore_case(
    rows: &[Row],
    budget: usize,
    seed: u64,
    as_of: Option<Timestamp>,
) -> CaseFindings {
    let mut findings = CaseFindings::default();
    let Some(original) = whole_case_decision(rows, as_of) else {
        return findings;
    };
    let mut rng = SplitMix64::new(seed);
    let groups = groups(rows);
    for permutation in Permutations::new(&groups, budget, &mut rng) {
        findings.tried += 1;
        match check_invariant(rows, &permutation) {
            Invariant::NotApplicable => {}
            Invariant::Holds => findings.checked += 1,
            Invariant::Violated(differences) => {
                findings.checked += 1;
                findings.violations.push((permutation.clone(), differences));
            }
        }
        let smaller = findings
            .order_sensitive
            .as_ref()
            .is_none_or(|found| permutation.moved() < found.permutation.moved());
        if smaller {
            if let Some(permuted) = whole_case_decision(&permutation.apply(rows), as_of) {
                if permuted.0 != original.0 {
                    findings.order_sensitive = Some(OrderSensitivity {
                        permutation,
                        original,
                        permuted,
                    });
                }
            }
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `permutations` as it was written first, repeats found by scanning the list: the
    /// reference the faster repeat check must agree with, permutation for permutation.
    fn permutations_by_scan(
        groups: &[Group],
        budget: usize,
        rng: &mut SplitMix64,
    ) -> Vec<Permutation> {
        let mut chosen: Vec<Permutation> = Vec::new();
        'pairs: for group in groups {
            for (i, &a) in group.members.iter().enumerate() {
                for &b in &group.members[i + 1..] {
                    if chosen.len() == budget {
                        break 'pairs;
                    }
                    chosen.push(Permutation {
                        kind: group.kind,
                        generation: group.generation,
                        slots: vec![a, b],
                        fills: vec![b, a],
                    });
                }
            }
        }
        if groups.is_empty() {
            return chosen;
        }
        let mut draws = 0;
        while chosen.len() < budget && draws < budget.saturating_mul(4) {
            draws += 1;
            let Some(permutation) = super::draw_permutation(rng, groups) else {
                continue;
            };
            if !chosen.contains(&permutation) {
                chosen.push(permutation);
            }
        }
        chosen
    }

    fn group(kind: Kind, generation: u64, members: &[usize]) -> Group {
        Group {
            kind,
            generation,
            members: members.to_vec(),
        }
    }

    /// The same permutations in the same order, none repeated, whatever the budget: tiny
    /// groups whose few permutations are drawn again and again (the repeat check matters),
    /// and a large one.
    #[test]
    fn permutations_are_distinct_and_as_before() {
        let shapes = [
            vec![group(Kind::Progress, 1, &[1, 2, 3])],
            vec![
                group(Kind::Renew, 1, &[2, 4]),
                group(Kind::Progress, 1, &[3, 5, 6, 7]),
            ],
            vec![group(Kind::Progress, 2, &(1..40).collect::<Vec<_>>())],
        ];
        for groups in &shapes {
            for budget in [0, 1, 5, 30, 400] {
                for seed in 0..4 {
                    let fast = permutations(groups, budget, &mut SplitMix64::new(seed));
                    let scan = permutations_by_scan(groups, budget, &mut SplitMix64::new(seed));
                    assert_eq!(fast, scan, "budget {budget}, seed {seed}");
                    let distinct: HashSet<&Permutation> = fast.iter().collect();
                    assert_eq!(distinct.len(), fast.len(), "a permutation repeated");
                    assert!(fast.len() <= budget);
                }
            }
        }
        // Three messages: 3 swaps, then the 5 non-identity orders of all three slots; all
        // found, none twice.
        let three = permutations(&shapes[0], 100, &mut SplitMix64::new(7));
        assert_eq!(three.len(), 3 + 5);
    }

    /// Permutations are drawn as they are tried: the first few of a million over a
    /// 400-message group come without the rest being made (that took 2.8 GB).
    #[test]
    fn permutations_are_drawn_lazily() {
        let groups = vec![group(Kind::Progress, 1, &(2..402).collect::<Vec<_>>())];
        let mut rng = SplitMix64::new(1);
        let mut lazy = Permutations::new(&groups, 1_000_000, &mut rng);
        let first: Vec<Permutation> = lazy.by_ref().take(79_800 + 3).collect();
        assert_eq!(first[0].slots, vec![2, 3]);
        assert_eq!(first[79_799].slots, vec![400, 401]);
        assert!(first[79_800..].iter().all(|p| p.slots.len() >= 3));
        assert_eq!(
            lazy.tried.len(),
            3,
            "only random permutations are remembered"
        );
    }
}
