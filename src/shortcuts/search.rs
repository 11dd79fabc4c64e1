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

use super::alphabet::{first_offer, next_rows};
use super::key::Keys;
use crate::lease::{Case, Contract, Row, Shortcut};
use crate::matrix::differing_columns;

/// The bits of the columns whose values an ownership conflict fixes for good, whatever the
/// reading: `ownership_conflict` (no rule clears it), `decision` (row 1 of the decision table
/// comes first) and `reason` (the first conflict's, which no reading replaces).
const FIXED_BY_A_CONFLICT: u32 = 1 << 20 | 1 << 21 | 1 << 22;

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
        states: 200_000,
    };
    /// The bounds of its search for the columns that would catch an uncatchable shortcut.
    pub const COLUMNS: Bounds = Bounds {
        rows: 8,
        states: 20_000,
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

/// A search's tree: each pair reached, by the row that reached it from its parent.
struct Tree {
    /// (parent, row) of each pair; the root (index 0) is the first offer.
    nodes: Vec<(usize, Row)>,
    seen: HashSet<Box<[i64]>>,
    keys: Keys,
}

impl Tree {
    /// The rows from the first offer to `node`.
    fn rows_to(&self, mut node: usize) -> Vec<Row> {
        let mut rows = vec![self.nodes[node].1.clone()];
        while node != 0 {
            node = self.nodes[node].0;
            rows.push(self.nodes[node].1.clone());
        }
        rows.reverse();
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

/// Breadth first from the first offer, calling `judged` with each new pair's differing
/// columns (and its node): `true` stops the search. Returns the coverage.
fn breadth_first(
    shortcut: Shortcut,
    graded: u32,
    bounds: Bounds,
    judged: &mut dyn FnMut(&Tree, usize, u32) -> bool,
) -> Coverage {
    let first = first_offer(&format!("job-{}", shortcut.name()));
    let (contract, _) = Case::<Contract>::start(&first).expect("an offer starts a case");
    let (under, _) = Case::start_reading(&first, shortcut).expect("an offer starts a case");
    let mut tree = Tree {
        nodes: vec![(0, first)],
        seen: HashSet::new(),
        keys: Keys::new(graded, shortcut),
    };
    tree.seen.insert(tree.keys.key(&contract, &under));
    let mut coverage = Coverage {
        states: 1,
        rows: 1,
        exhausted: false,
    };
    if judged(&tree, 0, differing(&contract, &under)) {
        return coverage;
    }
    let mut level = vec![(0, contract, under)];
    let mut rows = Vec::new();
    while coverage.rows < bounds.rows {
        let depth = coverage.rows + 1;
        let mut next = Vec::new();
        for (node, contract, under) in &level {
            next_rows(contract, under, shortcut, &mut rows);
            for row in rows.drain(..) {
                let mut contract = contract.clone();
                let mut under = under.clone();
                // A row the contract refuses is bad input, not a case; one the shortcut
                // alone cannot judge (an expiry past year 9999) is never made here.
                if contract.step(&row).is_err() || under.step(&row).is_err() {
                    continue;
                }
                if !tree.seen.insert(tree.keys.key(&contract, &under)) {
                    continue;
                }
                tree.nodes.push((*node, row));
                let reached = tree.nodes.len() - 1;
                coverage.states += 1;
                coverage.rows = depth;
                if judged(&tree, reached, differing(&contract, &under)) {
                    return coverage;
                }
                let settled = contract.conflict().is_some()
                    && under.conflict().is_some()
                    && graded & !FIXED_BY_A_CONFLICT == 0;
                if !settled {
                    next.push((reached, contract, under));
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
    let mut found = None;
    let coverage = breadth_first(shortcut, graded, bounds, &mut |tree, node, differs| {
        if differs & graded != 0 {
            found = Some(Finding::Caught {
                rows: tree.rows_to(node),
                columns: differs & graded,
            });
        }
        found.is_some()
    });
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
    let coverage = breadth_first(shortcut, candidates, bounds, &mut |_, _, differs| {
        found |= differs & candidates;
        found == candidates
    });
    (found, coverage)
}
