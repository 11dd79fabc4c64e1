//! A run over rows fed one at a time, every case kept in memory: groups rows into cases,
//! applies the engine's per-case rules ([`leasejudge::streaming::rules`], the same code) and
//! judges every case. The straightforward statement the engine, which keeps a window of
//! cases open, is tested against (`reference.rs`, `validate`'s plain statement), and the
//! fuzz body's run.

use std::collections::HashMap;

use leasejudge::input::{InputErrors, ParsedRow, RowResult};
use leasejudge::lease::{Case, Outcome, Timestamp, Verdict};
use leasejudge::streaming::rules::{clash_error, start_case, step_case, Slot};
pub use leasejudge::streaming::Location;

struct Entry {
    case_id: String,
    file_index: usize,
    file: String,
    first_line: u64,
    slot: Slot,
}

/// A judged case, in order of first appearance.
#[derive(Clone, Debug)]
pub struct Judged {
    /// The case id.
    pub case_id: String,
    /// The line of its first row.
    pub first_line: u64,
    /// The replayed case.
    pub case: Case,
    /// Its verdict.
    pub verdict: Verdict,
}

/// Collects rows from any number of inputs and judges their cases.
#[derive(Default)]
pub struct Adjudication {
    index: HashMap<String, usize>,
    entries: Vec<Entry>,
    errors: InputErrors,
    clashes: Vec<(usize, usize)>,
}

impl Adjudication {
    /// An empty run.
    pub fn new() -> Adjudication {
        Adjudication::default()
    }

    /// Takes one row as read. A valid row of a healthy case is replayed and its outcome
    /// returned; anything else records what is wrong (if the reader has not already).
    pub fn feed(&mut self, at: Location<'_>, row: &RowResult) -> Option<Outcome> {
        let case_id = match row {
            Ok(parsed) => parsed.case_id.as_str(),
            Err(bad) => bad.case_id.as_deref()?,
        };
        let Some(&index) = self.index.get(case_id) else {
            let mut slot = Slot::Broken;
            let outcome = start_case(&mut slot, at, row, &mut self.errors);
            self.insert(at, case_id.to_owned(), slot);
            return outcome;
        };
        let entry = &mut self.entries[index];
        if entry.file_index != at.file_index {
            // A case id in two files is one error, at the first valid row of the later file;
            // a row that could not be typed there lists its own errors only (spec section 2).
            if let Ok(ParsedRow { case_id, .. }) = row {
                if !self.clashes.contains(&(index, at.file_index)) {
                    self.clashes.push((index, at.file_index));
                    self.errors
                        .push(clash_error(at, case_id, &entry.file, entry.first_line));
                }
            }
            return None;
        }
        // What a row that could not be typed still says is checked against its case.
        step_case(&mut entry.slot, at, row, &mut self.errors)
    }

    fn insert(&mut self, at: Location<'_>, case_id: String, slot: Slot) {
        self.index.insert(case_id.clone(), self.entries.len());
        self.entries.push(Entry {
            case_id,
            file_index: at.file_index,
            file: at.file.to_owned(),
            first_line: at.line,
            slot,
        });
    }

    /// Errors found so far by this run's own checks (not the readers').
    pub fn take_errors(&mut self) -> InputErrors {
        std::mem::take(&mut self.errors)
    }

    /// Judges every case in order of first appearance, at its last `observed_at` or
    /// `run_as_of` if later; fails with every error if there was any.
    pub fn finish(mut self, run_as_of: Option<Timestamp>) -> Result<Vec<Judged>, InputErrors> {
        if !self.errors.is_empty() {
            return Err(std::mem::take(&mut self.errors));
        }
        Ok(self
            .entries
            .into_iter()
            .filter_map(|entry| match entry.slot {
                Slot::Live(case) => Some(Judged {
                    verdict: case.verdict(run_as_of),
                    case,
                    case_id: entry.case_id,
                    first_line: entry.first_line,
                }),
                Slot::Broken => None,
            })
            .collect())
    }
}
