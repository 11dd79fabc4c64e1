//! Which shortcut each learner took (issue 37, part 4): the lab's cases judged once under
//! every shortcut of the catalogue ([`CaseShortcuts`], from the case files `grade --cases`
//! is given), and, for one submission, the shortcuts whose matrix agrees with its answers on
//! its wrong cases ([`Tally`], made as the submission is graded).
//!
//! A shortcut *agrees* with a learner on a case when, in every graded column, the learner's
//! cell is the same value (spec section 8's comparison, [`Column::same_value`]) as the
//! shortcut's matrix row's cell on that case. Only a shortcut whose row differs from the
//! contract's in a graded column is kept for a case: one that gives the contract's answer
//! cannot explain a wrong one (with a key `adjudicate` wrote), and would explain a right
//! answer marked wrong by a key that is not the contract's.

use std::collections::HashMap;
use std::io::{self, Read};

use super::columns::Column;
use super::matrix_reader::MatrixEntry;
use super::spool::Spool;
use crate::input::Source;
use crate::lease::Shortcut;
use crate::shortcuts::SideBySide;
use crate::store::{corrupt, Get, Put};
use crate::streaming::{judge, CaseWriter, KeptRows, RecordOut, Sink, StreamError, StreamSettings};

/// One shortcut's graded cells on one case, where they differ from the contract's.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ShortcutRow {
    /// The shortcut's place in [`Shortcut::ALL`].
    shortcut: u8,
    /// Its cells in the graded columns, in their order.
    cells: Box<[Box<str>]>,
}

/// Every golden case's shortcut rows, in golden-file order: judged once per run from the
/// case files, held per case (never per learner).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaseShortcuts {
    by_case: Vec<Vec<ShortcutRow>>,
}

// A mark's bits hold every shortcut of the catalogue.
const _: () = assert!(Shortcut::ALL.len() <= 64);

impl CaseShortcuts {
    /// Judges every case of `sources` under the contract and every shortcut, keeping the
    /// `columns` cells of each shortcut whose row differs from the contract's there, and
    /// lays them out by the key's case ids (`case_ids`, in golden-file order). A golden case
    /// no case file has gets none; a case in two files is the later's (as the hints'). Bad
    /// input is the engine's error, every problem listed.
    pub fn judge(
        sources: &[Source],
        columns: &[Column],
        case_ids: &Spool<(u64, String)>,
    ) -> Result<CaseShortcuts, StreamError> {
        let writer = RowsUnder {
            side_by_side: SideBySide::new(Shortcut::ALL),
            columns: columns.to_vec(),
            graded: columns.iter().fold(0, |bits, c| bits | 1 << c.index()),
        };
        // Read with the default options, as the hints are: `--delimiter` and `--sheet` are
        // the submissions'.
        let records = judge(
            sources,
            &StreamSettings::in_file_order(),
            Sink::Cases(Box::new(writer)),
            &mut |_, _, _| {},
        )?;
        let mut bytes = Vec::new();
        records.write_to(&mut bytes)?;
        let mut by_id: HashMap<String, Vec<ShortcutRow>> = HashMap::new();
        let mut input = &bytes[..];
        while !input.is_empty() {
            let (case_id, rows) = read_record(&mut input, columns.len())?;
            by_id.insert(case_id, rows);
        }
        let mut by_case = Vec::new();
        for id in case_ids.iter() {
            by_case.push(by_id.remove(id?.1.as_str()).unwrap_or_default());
        }
        Ok(CaseShortcuts { by_case })
    }

    /// The rows of golden case `case` (its index in the golden file).
    fn rows(&self, case: u32) -> &[ShortcutRow] {
        self.by_case.get(case as usize).map_or(&[], Vec::as_slice)
    }
}

/// For each case, its id and each shortcut row that differs from the contract's on the
/// graded columns: the shortcut's index and its graded cells. A shortcut that cannot judge
/// the case (an expiry past year 9999) has no row and explains nothing.
struct RowsUnder {
    side_by_side: SideBySide,
    columns: Vec<Column>,
    graded: u32,
}

impl CaseWriter for RowsUnder {
    fn write_case(
        &mut self,
        _file_index: usize,
        _file: &str,
        case_id: &str,
        rows: &KeptRows,
        out: &mut RecordOut<'_>,
    ) -> io::Result<bool> {
        self.side_by_side.replay_kept(rows)?;
        let differing = self.side_by_side.caught(None, self.graded);
        out.put_str(case_id);
        let (_, under) = self.side_by_side.matrix_rows(case_id, None);
        let kept: Vec<_> = under
            .iter()
            .enumerate()
            .filter(|(index, _)| differing >> index & 1 == 1)
            .filter_map(|(index, (_, row))| Some((index, row.as_ref().ok()?.cells())))
            .collect();
        out.put_u8(kept.len() as u8);
        for (index, cells) in kept {
            out.put_u8(index as u8);
            for column in &self.columns {
                out.put_str(&cells[column.index()]);
            }
        }
        Ok(true)
    }
}

fn read_record(input: &mut impl Read, columns: usize) -> io::Result<(String, Vec<ShortcutRow>)> {
    let case_id = input.get_string()?;
    let count = input.get_u8()?;
    let mut rows = Vec::with_capacity(usize::from(count));
    for _ in 0..count {
        let shortcut = input.get_u8()?;
        if usize::from(shortcut) >= Shortcut::ALL.len() {
            return Err(corrupt("an unknown shortcut"));
        }
        let cells = (0..columns)
            .map(|_| input.get_string().map(String::into_boxed_str))
            .collect::<io::Result<_>>()?;
        rows.push(ShortcutRow { shortcut, cells });
    }
    Ok((case_id, rows))
}

/// A shortcut named for a submission, with how many of its wrong cases it explains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Explained {
    /// The shortcut.
    pub shortcut: Shortcut,
    /// How many of the submission's wrong cases its matrix agrees with.
    pub explains: u32,
}

/// One submission's count, per shortcut, of the wrong cases it explains and of the right
/// cases it would have changed, kept as the submission's cases are graded.
#[derive(Clone, Debug)]
pub struct Tally<'a> {
    table: &'a CaseShortcuts,
    columns: &'a [Column],
    explains: [u32; Shortcut::ALL.len()],
    changes: [u32; Shortcut::ALL.len()],
    wrong: u32,
}

impl<'a> Tally<'a> {
    /// A tally against `table`, on the graded `columns` (the table's).
    pub fn new(table: &'a CaseShortcuts, columns: &'a [Column]) -> Tally<'a> {
        Tally {
            table,
            columns,
            explains: [0; Shortcut::ALL.len()],
            changes: [0; Shortcut::ALL.len()],
            wrong: 0,
        }
    }

    /// Counts golden case `case`, which the submission answered with `found`: `right` when
    /// every graded column is. Returns the shortcuts (bits by place in [`Shortcut::ALL`])
    /// that agree with a wrong answer; none for a right one.
    pub fn answered(&mut self, case: u32, found: &MatrixEntry<'_>, right: bool) -> u64 {
        self.wrong += u32::from(!right);
        let mut agreeing = 0;
        for row in self.table.rows(case) {
            let agrees = self.columns.iter().zip(&*row.cells).all(|(column, cell)| {
                column.same_value(cell, found.cell(*column).unwrap_or_default())
            });
            let index = usize::from(row.shortcut);
            match (right, agrees) {
                (false, true) => {
                    self.explains[index] += 1;
                    agreeing |= 1 << index;
                }
                (true, false) => self.changes[index] += 1,
                _ => {}
            }
        }
        agreeing
    }

    /// The shortcuts named for the submission: those that explain at least two of its wrong
    /// cases (or, with fewer than two, all of them that explain one), most explained first;
    /// ties to the one that would have changed fewer of its right cases, then to the
    /// catalogue's order.
    pub fn named(&self) -> Vec<Explained> {
        let least = self.wrong.clamp(1, 2);
        let mut named: Vec<usize> = (0..Shortcut::ALL.len())
            .filter(|&index| self.explains[index] >= least)
            .collect();
        named.sort_by_key(|&index| {
            (
                std::cmp::Reverse(self.explains[index]),
                self.changes[index],
                index,
            )
        });
        named
            .into_iter()
            .map(|index| Explained {
                shortcut: Shortcut::ALL[index],
                explains: self.explains[index],
            })
            .collect()
    }
}

/// The shortcuts of `bits` (by place in [`Shortcut::ALL`]), in the catalogue's order.
pub fn shortcuts_of(bits: u64) -> impl Iterator<Item = Shortcut> {
    Shortcut::ALL
        .iter()
        .enumerate()
        .filter(move |(index, _)| bits >> index & 1 == 1)
        .map(|(_, &shortcut)| shortcut)
}

/// One golden case's wrong answers over a class (the item analysis's): each distinct answer
/// (its graded cells, a valid code in any case counted as one), how many gave it, and the
/// shortcuts that agree with it; held for one case at a time.
#[derive(Debug, Default)]
pub struct WrongAnswers {
    answers: HashMap<Vec<Option<String>>, (usize, u64)>,
}

impl WrongAnswers {
    /// Counts one submission's mark of the case: a wrong answer (a missing case is none),
    /// whose right columns are the key's and wrong ones `canonical` of what it wrote.
    pub fn add(&mut self, mark: &super::marks::CaseMark, columns: &[Column]) {
        if mark.status != super::marks::CaseStatus::Mismatched {
            return;
        }
        let answer = columns
            .iter()
            .map(|column| {
                let miss = mark.misses.iter().find(|m| m.column == *column)?;
                Some(canonical(*column, &miss.actual))
            })
            .collect();
        let entry = self.answers.entry(answer).or_default();
        entry.0 += 1;
        entry.1 |= mark.shortcuts;
    }

    /// The shortcuts (bits by place in [`Shortcut::ALL`]) that give the most common wrong
    /// answer (ties to the answer first in text order, right columns first); 0 when no
    /// shortcut gives it or nobody answered the case wrong.
    pub fn most_common_shortcuts(&self) -> u64 {
        self.answers
            .iter()
            .max_by(|a, b| a.1 .0.cmp(&b.1 .0).then_with(|| b.0.cmp(a.0)))
            .map_or(0, |(_, (_, shortcuts))| *shortcuts)
    }
}

/// A learner's cell as one answer: a valid code in any case written as the code.
fn canonical(column: Column, cell: &str) -> String {
    super::columns::codes(column)
        .and_then(|codes| codes.into_iter().find(|c| c.eq_ignore_ascii_case(cell)))
        .map_or_else(|| cell.to_owned(), str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grading::{MatrixFileFormat, MatrixInput, MatrixRead};

    fn row(shortcut: Shortcut, decision: &str, reason: &str) -> ShortcutRow {
        let index = Shortcut::ALL.iter().position(|&s| s == shortcut).unwrap();
        ShortcutRow {
            shortcut: index as u8,
            cells: vec![decision.into(), reason.into()].into_boxed_slice(),
        }
    }

    /// The learner's answers to golden cases 0..: `answers[i]` for case `i`, `right[i]`
    /// whether it is right; the names and counts the tally gives.
    fn named(table: CaseShortcuts, answers: &[(&str, &str, bool)]) -> Vec<(&'static str, u32)> {
        let columns = [Column::Decision, Column::Reason];
        let mut text = String::from("case_id,decision,reason\n");
        for (i, (decision, reason, _)) in answers.iter().enumerate() {
            text.push_str(&format!("c{i},{decision},{reason}\n"));
        }
        let matrix = MatrixRead::submission(&columns, &Default::default())
            .read(
                MatrixInput::Bytes(text.as_bytes(), MatrixFileFormat::Csv),
                "m.csv",
            )
            .unwrap();
        let mut tally = Tally::new(&table, &columns);
        for (i, (_, _, right)) in answers.iter().enumerate() {
            let found = matrix.find(&format!("c{i}")).unwrap();
            tally.answered(i as u32, &found, *right);
        }
        tally
            .named()
            .into_iter()
            .map(|e| (e.shortcut.name(), e.explains))
            .collect()
    }

    /// Most explained first; a tie to the shortcut that would have changed fewer right
    /// answers, then to the catalogue's order; at least two explained, or one with one
    /// wrong case; agreeing is section 8's comparison (a code in any case).
    #[test]
    fn named_by_count_then_changes_then_catalogue() {
        use Shortcut::*;
        let table = CaseShortcuts {
            by_case: vec![
                // Cases 0-2, wrong: the learner answered EXPIRED lease_expired.
                vec![
                    row(AckedNeverExpires, "EXPIRED", "lease_expired"),
                    row(InclusiveDeadlines, "EXPIRED", "lease_expired"),
                    row(ProgressRenews, "EXPIRED", "lease_expired"),
                ],
                vec![
                    row(AckedNeverExpires, "EXPIRED", "lease_expired"),
                    row(InclusiveDeadlines, "EXPIRED", "lease_expired"),
                    row(ProgressRenews, "EXPIRED", "lease_expired"),
                    row(WorkerClock, "EXPIRED", "lease_expired"),
                ],
                vec![
                    row(LateAckAccepted, "EXPIRED", "lease_expired"),
                    row(ProgressRenews, "ACTIVE", "within_lease"),
                ],
                // Case 3, right: acked_never_expires would have changed it.
                vec![row(AckedNeverExpires, "ACTIVE", "within_lease")],
            ],
        };
        let answers = [
            ("EXPIRED", "lease_expired", false),
            ("expired", "lease_expired", false),
            ("EXPIRED", "lease_expired", false),
            ("EXPIRED", "expired_without_result", true),
        ];
        // inclusive_deadlines and progress_renews tie on 2 and on changes (none): the
        // catalogue's order; acked_never_expires, also 2, changed a right answer; one case
        // alone (worker_clock, late_ack_accepted) is not enough with three wrong.
        assert_eq!(
            named(table.clone(), &answers),
            [
                ("inclusive_deadlines", 2),
                ("progress_renews", 2),
                ("acked_never_expires", 2)
            ]
        );
        // One wrong case: every shortcut that explains it (each would have changed the right
        // case 1, so the catalogue's order).
        let one = [
            ("EXPIRED", "lease_expired", false),
            ("ACTIVE", "within_lease", true),
        ];
        assert_eq!(
            named(table.clone(), &one),
            [
                ("inclusive_deadlines", 1),
                ("acked_never_expires", 1),
                ("progress_renews", 1)
            ]
        );
        // No wrong case: none.
        assert_eq!(named(table, &[("ACTIVE", "within_lease", true)]), []);
    }
}
