//! One case judged under the contract and every shortcut side by side ([`SideBySide`]: its
//! rows replayed once, each row stepping every reading), and the engine's hooks that judge a
//! lab so: [`CatchRecords`] (which shortcuts each case catches, for `leasejudge shortcuts`)
//! and [`MatrixUnder`] (a lab's whole matrix under one reading, the rows the contract's
//! matrix has).

use std::io::{self, Write};
use std::ops::ControlFlow;

use crate::lease::{Case, CaseFault, Contract, Reading, Row, Shortcut, Timestamp};
use crate::matrix::{differing_columns, MatrixEncoding, MatrixRow};
use crate::store::Put;
use crate::streaming::{CaseWriter, KeptRows, RecordOut};

/// A case under one reading: replaying, or refused by a rule the reading bends into a fault
/// (a shortcut's renewal or progress computing an expiry past year 9999).
// Unboxed: a replay is made once per reading and reused from case to case.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
enum Replay<R: Reading> {
    /// No row yet.
    Empty,
    /// Replaying.
    Live(Case<R>),
    /// The reading cannot judge the case.
    Faulted(CaseFault),
}

impl<R: Reading> Replay<R> {
    fn start(&mut self, row: &Row, reading: R) -> Result<(), CaseFault> {
        let started = match self {
            Replay::Live(case) => case.restart(row).map(drop),
            _ => Case::start_reading(row, reading).map(|(case, _)| *self = Replay::Live(case)),
        };
        started.inspect_err(|fault| *self = Replay::Faulted(fault.clone()))
    }

    fn step(&mut self, row: &Row) -> Result<(), CaseFault> {
        match self {
            Replay::Live(case) => case
                .step(row)
                .map(drop)
                .inspect_err(|fault| *self = Replay::Faulted(fault.clone())),
            Replay::Faulted(_) => Ok(()),
            Replay::Empty => panic!("a case is started before it is stepped"),
        }
    }
}

/// A case's rows replayed under the contract and under each of a list of shortcuts at once:
/// [`start`](SideBySide::start) with its first row, [`step`](SideBySide::step) with each
/// later one, then [`caught`](SideBySide::caught) or [`matrix_rows`](SideBySide::matrix_rows).
/// Reused from case to case (the cases' memory is kept).
#[derive(Clone, Debug)]
pub struct SideBySide {
    contract: Replay<Contract>,
    shortcuts: Vec<(Shortcut, Replay<Shortcut>)>,
}

impl SideBySide {
    /// The contract and `shortcuts`, no case yet.
    pub fn new(shortcuts: &[Shortcut]) -> SideBySide {
        SideBySide {
            contract: Replay::Empty,
            shortcuts: shortcuts.iter().map(|&s| (s, Replay::Empty)).collect(),
        }
    }

    /// The shortcuts, in the order given.
    pub fn shortcuts(&self) -> impl Iterator<Item = Shortcut> + '_ {
        self.shortcuts.iter().map(|(shortcut, _)| *shortcut)
    }

    /// Starts a case from its first row. The error is the contract's: the row is bad input.
    pub fn start(&mut self, row: &Row) -> Result<(), CaseFault> {
        self.contract.start(row, Contract)?;
        for (shortcut, replay) in &mut self.shortcuts {
            // A shortcut does not change how a case starts: its fault is the contract's.
            replay.start(row, *shortcut)?;
        }
        Ok(())
    }

    /// Replays one more row. The error is the contract's (bad input); a shortcut's own fault
    /// leaves that shortcut unable to judge the case.
    pub fn step(&mut self, row: &Row) -> Result<(), CaseFault> {
        self.contract.step(row)?;
        for (_, replay) in &mut self.shortcuts {
            // Recorded in the replay: the shortcut cannot judge this case.
            let _ = replay.step(row);
        }
        Ok(())
    }

    /// The case as the contract replayed it.
    pub fn contract(&self) -> &Case {
        match &self.contract {
            Replay::Live(case) => case,
            _ => panic!("the contract judges every case it started"),
        }
    }

    /// The shortcuts (as bits by position in the list given to [`SideBySide::new`]) under
    /// which the case's matrix row, judged at `run_as_of`, differs from the contract's in a
    /// column of `graded` (bits by position in [`crate::matrix::COLUMNS`]). A shortcut that
    /// cannot judge the case is caught by it: its reading cannot give the contract's row.
    pub fn caught(&self, run_as_of: Option<Timestamp>, graded: u32) -> u64 {
        let contract = self.contract();
        let judged = contract.judge(run_as_of);
        let mut caught = 0;
        for (index, (_, replay)) in self.shortcuts.iter().enumerate() {
            let differs = match replay {
                Replay::Live(case) => {
                    differing_columns((contract, &judged), (case, &case.judge(run_as_of))) & graded
                        != 0
                }
                Replay::Faulted(_) | Replay::Empty => true,
            };
            if differs {
                caught |= 1 << index;
            }
        }
        caught
    }

    /// The case's matrix row under the contract, and under each shortcut (or the fault that
    /// keeps the shortcut from judging it), judged at `run_as_of`.
    #[allow(clippy::type_complexity)]
    pub fn matrix_rows(
        &self,
        case_id: &str,
        run_as_of: Option<Timestamp>,
    ) -> (MatrixRow, Vec<(Shortcut, Result<MatrixRow, CaseFault>)>) {
        let contract = self.contract();
        let row = MatrixRow::new(case_id, contract, &contract.verdict(run_as_of));
        let under = self
            .shortcuts
            .iter()
            .map(|(shortcut, replay)| {
                let row = match replay {
                    Replay::Live(case) => {
                        Ok(MatrixRow::new(case_id, case, &case.verdict(run_as_of)))
                    }
                    Replay::Faulted(fault) => Err(fault.clone()),
                    Replay::Empty => panic!("a case is started before it is judged"),
                };
                (*shortcut, row)
            })
            .collect();
        (row, under)
    }

    /// Replays a whole case from the rows a [`CaseWriter`] is handed.
    pub fn replay_kept(&mut self, rows: &KeptRows) -> io::Result<()> {
        let mut first = true;
        rows.visit(&mut |kept| {
            let replayed = if std::mem::take(&mut first) {
                self.start(&kept.row)
            } else {
                self.step(&kept.row)
            };
            // The engine replayed these rows without a fault before handing them over.
            replayed.map_err(|fault| io::Error::other(format!("a kept row faulted: {fault}")))?;
            Ok(ControlFlow::Continue(()))
        })
    }
}

/// For each case, which shortcuts it catches on the graded columns: a record of its id (the
/// store's codec: a text) and the bits of [`SideBySide::caught`] (eight bytes).
pub struct CatchRecords {
    side_by_side: SideBySide,
    graded: u32,
    run_as_of: Option<Timestamp>,
}

impl CatchRecords {
    /// Judges each case under the contract and `shortcuts` (at most 64) at `run_as_of`,
    /// comparing the `graded` columns (bits by position in [`crate::matrix::COLUMNS`]).
    pub fn new(shortcuts: &[Shortcut], graded: u32, run_as_of: Option<Timestamp>) -> CatchRecords {
        assert!(shortcuts.len() <= 64, "a record holds 64 shortcuts' bits");
        CatchRecords {
            side_by_side: SideBySide::new(shortcuts),
            graded,
            run_as_of,
        }
    }
}

impl CaseWriter for CatchRecords {
    fn write_case(
        &mut self,
        _file_index: usize,
        _file: &str,
        case_id: &str,
        rows: &KeptRows,
        out: &mut RecordOut<'_>,
    ) -> io::Result<bool> {
        self.side_by_side.replay_kept(rows)?;
        out.put_str(case_id);
        out.put_u64(self.side_by_side.caught(self.run_as_of, self.graded));
        Ok(true)
    }
}

/// A lab's matrix under one reading: each case's row, as the contract's matrix has it
/// ([`MatrixRow`], written by `encoding`), judged at `run_as_of`. Run it through
/// [`crate::streaming::judge`] as `Sink::Cases`, and write the encoding's header before the
/// records and its trailer after them ([`crate::shortcuts::write_matrix_under`] does both).
pub struct MatrixUnder<R: Reading> {
    reading: R,
    encoding: &'static dyn MatrixEncoding,
    run_as_of: Option<Timestamp>,
    case: Option<Case<R>>,
}

impl<R: Reading> MatrixUnder<R> {
    /// Each case's row under `reading`, in `encoding`, judged at `run_as_of`.
    pub fn new(
        reading: R,
        encoding: &'static dyn MatrixEncoding,
        run_as_of: Option<Timestamp>,
    ) -> MatrixUnder<R> {
        MatrixUnder {
            reading,
            encoding,
            run_as_of,
            case: None,
        }
    }
}

impl<R: Reading> CaseWriter for MatrixUnder<R> {
    fn write_case(
        &mut self,
        _file_index: usize,
        _file: &str,
        case_id: &str,
        rows: &KeptRows,
        out: &mut RecordOut<'_>,
    ) -> io::Result<bool> {
        let mut fault = None;
        let mut first = true;
        rows.visit(&mut |kept| {
            let stepped = match (&mut self.case, std::mem::take(&mut first)) {
                (Some(case), true) => case.restart(&kept.row).map(drop),
                (case, true) => Case::start_reading(&kept.row, self.reading)
                    .map(|(started, _)| *case = Some(started)),
                (case, false) => case.as_mut().expect("started").step(&kept.row).map(drop),
            };
            match stepped {
                Ok(()) => Ok(ControlFlow::Continue(())),
                Err(e) => {
                    fault = Some(e);
                    Ok(ControlFlow::Break(()))
                }
            }
        })?;
        if let Some(fault) = fault {
            return Err(io::Error::other(format!(
                "case {case_id:?} cannot be judged under {:?}: {fault}",
                self.reading
            )));
        }
        let case = self.case.as_ref().expect("a written case has rows");
        let row = MatrixRow::new(case_id, case, &case.verdict(self.run_as_of));
        out.write_all(self.encoding.separator())?;
        self.encoding.write_row(out, &row, &[])?;
        Ok(true)
    }

    fn separator_len(&self) -> u64 {
        self.encoding.separator().len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{default_mix, write_cases, Options};
    use crate::input::{read, CaseRead, InputErrors, InputFormat, NoObserver, ReadOptions};

    /// Generated cases (every scenario of the default mix), each as its rows.
    fn generated(seed: u64) -> Vec<(String, Vec<Row>)> {
        let options = Options {
            seed,
            cases: 300,
            rows_per_case: (3, 14),
            interleave: 1,
            mix: default_mix(),
        };
        let mut text = Vec::new();
        write_cases(&options, &mut text).unwrap();
        let mut errors = InputErrors::new();
        let mut cases: Vec<(String, Vec<Row>)> = Vec::new();
        read(
            &text[..],
            &CaseRead::new("g.csv", InputFormat::Csv, &ReadOptions::default()),
            &mut errors,
            &mut |_, row| {
                let row = row.expect("a generated row is valid");
                match cases.last_mut() {
                    Some((id, rows)) if *id == row.case_id => rows.push(row.row),
                    _ => cases.push((row.case_id.to_string(), vec![row.row])),
                }
            },
            &mut NoObserver,
        );
        assert!(errors.is_empty());
        cases
    }

    fn side_by_side(rows: &[Row]) -> SideBySide {
        let mut judged = SideBySide::new(Shortcut::ALL);
        judged.start(&rows[0]).unwrap();
        for row in &rows[1..] {
            judged.step(row).unwrap();
        }
        judged
    }

    /// The typed comparison (`differing_columns`, behind `caught`) says what the matrix rows'
    /// cells say, column by column, for every shortcut on every generated case.
    #[test]
    fn caught_columns_are_the_cells_that_differ() {
        for seed in 1..=2 {
            for (case_id, rows) in generated(seed) {
                let judged = side_by_side(&rows);
                let (contract, under) = judged.matrix_rows(&case_id, None);
                let contract = contract.cells();
                let caught: Vec<u64> = (0..crate::matrix::COLUMNS.len())
                    .map(|column| judged.caught(None, 1 << column))
                    .collect();
                for (index, (shortcut, row)) in under.iter().enumerate() {
                    let row = row.as_ref().expect("generated times stay in range").cells();
                    for (column, caught) in caught.iter().enumerate() {
                        let differs = contract[column] != row[column];
                        let caught = caught >> index & 1 == 1;
                        assert_eq!(caught, differs, "{case_id} {shortcut} column {column}");
                    }
                }
            }
        }
    }

    /// On generated cases, `conflict_not_frozen` never changes the decision or the reason
    /// (what the search proves over its alphabet), and a reading of no shortcut is the
    /// contract's.
    #[test]
    fn conflict_not_frozen_keeps_decisions_and_no_shortcut_is_the_contract() {
        let index = Shortcut::ALL
            .iter()
            .position(|&s| s == Shortcut::ConflictNotFrozen)
            .unwrap();
        let mut conflicts = 0;
        for seed in 1..=3 {
            for (case_id, rows) in generated(seed) {
                let judged = side_by_side(&rows);
                let decision_reason = 1 << 21 | 1 << 22;
                assert_eq!(
                    judged.caught(None, decision_reason) >> index & 1,
                    0,
                    "{case_id}"
                );
                conflicts += usize::from(judged.contract().conflict().is_some());
                let (contract, _) = crate::lease::replay(&rows).unwrap().unwrap();
                let (none, _) = crate::lease::replay_reading(&rows, None).unwrap().unwrap();
                assert_eq!(
                    MatrixRow::new(&case_id, &contract, &contract.verdict(None)),
                    MatrixRow::new(&case_id, &none, &none.verdict(None))
                );
            }
        }
        assert!(
            conflicts > 10,
            "the generated cases have conflicts: {conflicts}"
        );
    }
}
