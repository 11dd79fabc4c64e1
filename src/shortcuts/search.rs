//! The search for a case that tells a shortcut from the contract: breadth first over the
//! pairs (the contract's case, the shortcut's case) that the same rows reach from an offer,
//! each row from the alphabet of `alphabet.rs`, each pair remembered by the abstraction of
//! `key.rs`, and every pair reached judged at its last row on the graded columns.
//!
//! Breadth first, the first pair that differs is reached by a case of the fewest rows the
//! alphabet allows (what `--suggest` writes). When no new pair is left to reach, every case
//! the alphabet can build has been judged, whatever its length: no case over it catches the
//! shortcut on those columns (`uncatchable`). Otherwise the search stops at its bounds and
//! says so.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use super::alphabet::{first_offer, next_rows};
use super::key::Keys;
use crate::lease::{Case, Contract, Row, Shortcut};
use crate::matrix::differing_columns;

/// The bits of the columns whose values an ownership conflict fixes for good, whatever the
/// reading: `ownership_conflict` (no rule clears it), `decision` (row 1 of the decision table
/// comes first) and `reason` (the first conflict's, which no reading replaces). A search on
/// some of them reaches the same pairs as a search on any others of them (the key keeps
/// none of their values, which the state decides), so an exhausted one settles all three.
pub const FIXED_BY_A_CONFLICT: u32 = 1 << 20 | 1 << 21 | 1 << 22;

/// How far a search may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The most rows a case may have.
    pub rows: usize,
    /// The most pairs remembered.
    pub states: usize,
}

impl Bounds {
    /// The bounds of `leasejudge shortcuts`' search for a catching case.
    pub const CATCH: Bounds = Bounds {
        rows: 64,
        states: 50_000,
    };
    /// The bounds of its search for the columns that would catch an uncatchable shortcut
    /// (one search for all, which need not settle any).
    pub const COLUMNS: Bounds = Bounds {
        rows: 8,
        states: 2_000,
    };
    /// The bounds of its search on one column that the search for all did not find a case
    /// for: enough to reach every pair where the column's values are few.
    pub const ONE_COLUMN: Bounds = Bounds {
        rows: 64,
        states: 10_000,
    };
}

/// How much a search covered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Coverage {
    /// The pairs it reached and judged.
    pub states: usize,
    /// The rows of its longest case.
    pub rows: usize,
    /// Whether it reached every pair the alphabet can (else its bounds stopped it).
    pub exhausted: bool,
    /// The columns in which some pair it reached differs (bits by position): each has a
    /// case that catches the shortcut on it.
    pub differing: u32,
}

/// What a search for a catching case found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// A case that catches the shortcut, of the fewest rows over the alphabet.
    Caught {
        /// Its rows, the first an offer with a job id.
        rows: Vec<Row>,
        /// The graded columns it differs in (bits by position in the matrix's columns).
        columns: u32,
    },
    /// No case caught it: every pair reached was judged the same on the graded columns.
    NotCaught(Coverage),
}

/// A search's tree: each pair reached, by the row that reached it from its parent, kept
/// small (a pair's key as a 128-bit hash, a row as its place in its parent's alphabet) so
/// that the bound on pairs bounds the memory: about 30 bytes a pair, and the cases of the
/// level being expanded.
struct Tree {
    shortcut: Shortcut,
    /// The first row, an offer.
    first: Row,
    /// (parent, place of the row in the parent's alphabet) of each pair; the root (0) is
    /// the first offer's.
    nodes: Vec<(u32, u16)>,
    seen: HashSet<u128>,
    keys: Keys,
    /// The key being built.
    key: Vec<i64>,
}

impl Tree {
    /// Remembers the pair; `false` if an equal one was reached before. Pairs are told apart
    /// by a 128-bit hash of their key: two keys of the at most a few hundred thousand a
    /// search remembers share one with a chance below 1 in 10^27.
    fn remember(&mut self, contract: &Case, under: &Case<Shortcut>) -> bool {
        self.keys.key(contract, under, &mut self.key);
        let hash = |salt: u64| {
            let mut hasher = std::hash::DefaultHasher::new();
            salt.hash(&mut hasher);
            self.key.hash(&mut hasher);
            hasher.finish()
        };
        self.seen
            .insert(u128::from(hash(0)) << 64 | u128::from(hash(1)))
    }

    /// The rows from the first offer to `node`: the alphabet made again along the way.
    fn rows_to(&self, mut node: usize) -> Vec<Row> {
        let mut places = Vec::new();
        while node != 0 {
            let (parent, place) = self.nodes[node];
            places.push(place);
            node = parent as usize;
        }
        let (mut contract, _) = Case::start(&self.first).expect("an offer starts a case");
        let (mut under, _) =
            Case::start_reading(&self.first, self.shortcut).expect("an offer starts a case");
        let mut rows = vec![self.first.clone()];
        let mut alphabet = Vec::new();
        for place in places.into_iter().rev() {
            next_rows(&contract, &under, self.shortcut, &mut alphabet);
            let row = alphabet.swap_remove(usize::from(place));
            contract.step(&row).expect("the row replayed in the search");
            under.step(&row).expect("the row replayed in the search");
            rows.push(row);
        }
        rows
    }
}

/// The columns in which the pair's rows differ, judged at their last row.
fn differing(contract: &Case, under: &Case<Shortcut>) -> u32 {
    differing_columns(
        (contract, &contract.judge(None)),
        (under, &under.judge(None)),
    )
}

/// Breadth first from the first offer, over the rows of the alphabet that `allowed` lets
/// through, calling `judged` with each new pair's differing columns (and its node): `true`
/// stops the search. Returns the coverage.
fn breadth_first(
    shortcut: Shortcut,
    graded: u32,
    bounds: Bounds,
    allowed: &dyn Fn(&Row) -> bool,
    judged: &mut dyn FnMut(&Tree, usize, u32) -> bool,
) -> Coverage {
    let first = first_offer(&format!("job-{}", shortcut.name()));
    let (contract, _) = Case::<Contract>::start(&first).expect("an offer starts a case");
    let (under, _) = Case::start_reading(&first, shortcut).expect("an offer starts a case");
    let mut tree = Tree {
        shortcut,
        first,
        nodes: vec![(0, 0)],
        seen: HashSet::new(),
        keys: Keys::new(graded, shortcut),
        key: Vec::with_capacity(64),
    };
    tree.remember(&contract, &under);
    let first = differing(&contract, &under);
    let mut coverage = Coverage {
        states: 1,
        rows: 1,
        exhausted: false,
        differing: first,
    };
    if judged(&tree, 0, first) {
        return coverage;
    }
    let mut level = vec![(0u32, contract, under)];
    let mut rows = Vec::new();
    while coverage.rows < bounds.rows {
        let depth = coverage.rows + 1;
        let mut next = Vec::new();
        for (node, contract, under) in &level {
            next_rows(contract, under, shortcut, &mut rows);
            for (place, row) in rows.iter().enumerate().filter(|(_, row)| allowed(row)) {
                let mut contract = contract.clone();
                let mut under = under.clone();
                // A row the contract refuses is bad input, not a case; one the shortcut
                // alone cannot judge (an expiry past year 9999) is never made here.
                if contract.step(row).is_err() || under.step(row).is_err() {
                    continue;
                }
                if !tree.remember(&contract, &under) {
                    continue;
                }
                let place = u16::try_from(place).expect("an alphabet of fewer than 65536 rows");
                tree.nodes.push((*node, place));
                let reached = tree.nodes.len() - 1;
                let reached_node = u32::try_from(reached).expect("fewer pairs than the bound");
                coverage.states += 1;
                coverage.rows = depth;
                let differs = differing(&contract, &under);
                coverage.differing |= differs;
                if judged(&tree, reached, differs) {
                    return coverage;
                }
                let settled = contract.conflict().is_some()
                    && under.conflict().is_some()
                    && graded & !FIXED_BY_A_CONFLICT == 0;
                if !settled {
                    next.push((reached_node, contract, under));
                }
                if coverage.states >= bounds.states {
                    return coverage;
                }
            }
        }
        if next.is_empty() {
            coverage.exhausted = true;
            return coverage;
        }
        level = next;
    }
    coverage
}

/// Searches for a case that catches `shortcut` on the `graded` columns (bits by position in
/// the matrix's columns).
pub fn find_catching_case(shortcut: Shortcut, graded: u32, bounds: Bounds) -> Finding {
    find_catching_case_of(shortcut, graded, bounds, &|_| true)
}

/// [`find_catching_case`] over the rows `allowed` lets through.
fn find_catching_case_of(
    shortcut: Shortcut,
    graded: u32,
    bounds: Bounds,
    allowed: &dyn Fn(&Row) -> bool,
) -> Finding {
    let mut found = None;
    let coverage = breadth_first(
        shortcut,
        graded,
        bounds,
        allowed,
        &mut |tree, node, differs| {
            if differs & graded != 0 {
                found = Some(Finding::Caught {
                    rows: tree.rows_to(node),
                    columns: differs & graded,
                });
            }
            found.is_some()
        },
    );
    found.unwrap_or(Finding::NotCaught(coverage))
}

/// The columns of `candidates` in which some case tells `shortcut` from the contract, found
/// by a search that does not stop at the first (within `bounds`), and its coverage.
pub fn find_catching_columns(
    shortcut: Shortcut,
    candidates: u32,
    bounds: Bounds,
) -> (u32, Coverage) {
    let mut found = 0;
    let coverage = breadth_first(
        shortcut,
        candidates,
        bounds,
        &|_| true,
        &mut |_, _, differs| {
            found |= differs & candidates;
            found == candidates
        },
    );
    (found, coverage)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lease::Message;

    const DECISION_REASON: u32 = 1 << 21 | 1 << 22;

    /// `late_progress_resumes` needs two generations to be caught on decision and reason:
    /// over the rows of one generation (no offer of another), the search reaches every pair
    /// and none differs. Within one generation a cancel requested decides the case
    /// (RECONCILIATION_REQUIRED), or a result does, whatever the late set.
    #[test]
    fn late_progress_resumes_needs_two_generations() {
        let one_generation = |row: &Row| match &row.message {
            Message::Offer(offer) => offer.identity.generation == 1,
            _ => true,
        };
        match find_catching_case_of(
            Shortcut::LateProgressResumes,
            DECISION_REASON,
            Bounds::CATCH,
            &one_generation,
        ) {
            Finding::NotCaught(coverage) => assert!(coverage.exhausted, "{coverage:?}"),
            found => panic!("caught within one generation: {found:?}"),
        }
    }

    /// Breadth first, the first catching case has the fewest rows: none of one row fewer
    /// catches the shortcut (a search bounded one row short finds nothing).
    #[test]
    fn the_catching_case_has_the_fewest_rows() {
        for &shortcut in Shortcut::ALL {
            let Finding::Caught { rows, .. } =
                find_catching_case(shortcut, DECISION_REASON, Bounds::CATCH)
            else {
                continue;
            };
            let shorter = Bounds {
                rows: rows.len() - 1,
                ..Bounds::CATCH
            };
            assert!(
                matches!(
                    find_catching_case(shortcut, DECISION_REASON, shorter),
                    Finding::NotCaught(_)
                ),
                "{shortcut}"
            );
        }
    }
}
