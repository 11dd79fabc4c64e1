//! How strong a lab is against the catalogue of shortcuts ([`Shortcut`]): which shortcuts its
//! cases catch on the graded columns (a case whose matrix row under the shortcut differs from
//! the contract's in one of them), which survive although some case could catch them (with
//! the case of fewest rows the search finds), and which no case can catch on those columns
//! (the search reached every pair of cases it can build and none differs). `leasejudge
//! shortcuts` is a thin command over [`assess`].
//!
//! For other uses of the catalogue: [`SideBySide`] judges one case under the contract and
//! every shortcut at once, giving each reading's [`MatrixRow`];
//! [`write_matrix_under`] writes a lab's whole matrix under one reading, through the engine.

use std::io::{self, BufReader};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::input::Source;
use crate::lease::{replay_reading, Contract, Reading, Row, Shortcut, Timestamp};
use crate::matrix::{MatrixEncoding, MatrixRow};
use crate::store::AppendFile;
use crate::store::{Get, TempFile, TempWriter};
use crate::streaming::{judge, Sink, StreamError, StreamSettings};

mod alphabet;
mod judge;
mod key;
mod search;
mod suggest;

pub use judge::{CatchRecords, MatrixUnder, SideBySide};
pub use search::{
    find_catching_case, find_catching_columns, Bounds, Coverage, Finding, FIXED_BY_A_CONFLICT,
};
pub use suggest::{format_for, row_object, write_cases, write_suggestions};

/// The columns no reading changes, which the search for columns that would catch a
/// shortcut leaves out: `case_id` and `job_id` are the rows' own (the case's id, its first
/// offer's job id), the same under every reading.
const THE_ROWS_OWN: u32 = 1 << 0 | 1 << 1;

/// The most searches run at once, whatever `--jobs` says: a search at its bound holds about
/// 45 MiB, and four of them beside the engine stay within the command's 256 MiB.
const MAX_SEARCHES_AT_ONCE: usize = 4;

/// Every column of the matrix, as bits by position.
const EVERY_COLUMN: u32 = (1 << crate::matrix::COLUMNS.len()) - 1;

/// A case the search found that catches a shortcut the lab lets survive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    /// Its case id: `catch-<name>`.
    pub case_id: String,
    /// Its rows, the fewest the search's alphabet allows.
    pub rows: Vec<Row>,
    /// The graded columns it differs in (bits by position in the matrix's columns).
    pub columns: u32,
    /// Its matrix row under the contract.
    pub contract: MatrixRow,
    /// Its matrix row under the shortcut.
    pub shortcut: MatrixRow,
}

impl Witness {
    /// The witness of `shortcut` made of `rows` (a case both readings judge).
    fn new(shortcut: Shortcut, rows: Vec<Row>, columns: u32) -> Witness {
        let case_id = format!("catch-{}", shortcut.name());
        let (contract, _) = replay_reading(&rows, Contract)
            .expect("the search's rows replay")
            .expect("and there are some");
        let (under, _) = replay_reading(&rows, shortcut)
            .expect("the search's rows replay")
            .expect("and there are some");
        Witness {
            contract: MatrixRow::new(&case_id, &contract, &contract.verdict(None)),
            shortcut: MatrixRow::new(&case_id, &under, &under.verdict(None)),
            case_id,
            rows,
            columns,
        }
    }
}

/// Where a shortcut stands against a lab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Standing {
    /// Some of the lab's cases catch it.
    Caught {
        /// How many.
        cases: u64,
    },
    /// No case of the lab catches it, but this one would.
    Survives(Box<Witness>),
    /// No case at all catches it on the graded columns: the search reached every pair of
    /// cases its alphabet can build.
    Uncatchable {
        /// The search that proved it.
        search: Coverage,
        /// The columns in which some case tells it from the contract (bits by position).
        columns: u32,
        /// The columns (but the graded ones and the rows' own) in which no case can: a
        /// search on each alone reached every pair.
        never: u32,
        /// The columns for which neither was found within the searches' bounds.
        unsettled: u32,
    },
    /// No case of the lab catches it, and the search stopped at its bounds before it found
    /// a case that does or reached every pair it can build.
    Undecided {
        /// The search, and where it stopped.
        search: Coverage,
    },
}

impl Standing {
    /// The status `leasejudge shortcuts` reports.
    pub fn status(&self) -> &'static str {
        match self {
            Standing::Caught { .. } => "caught",
            Standing::Survives(_) => "survives",
            Standing::Uncatchable { .. } => "uncatchable",
            Standing::Undecided { .. } => "undecided",
        }
    }

    /// Whether a case could catch it that the lab lacks (or the search could not tell).
    pub fn weakens_the_lab(&self) -> bool {
        matches!(self, Standing::Survives(_) | Standing::Undecided { .. })
    }
}

/// A lab's strength against every shortcut of the catalogue.
pub struct Assessment {
    /// The graded columns (bits by position in the matrix's columns).
    pub graded: u32,
    /// How many cases the lab has.
    pub cases: u64,
    /// Each shortcut of the catalogue, in its order, and where it stands.
    pub shortcuts: Vec<(Shortcut, Standing)>,
    /// Each case's id and the bits of the shortcuts it catches, in matrix order.
    records: TempFile,
}

impl Assessment {
    /// Calls `each` with the id of every case that catches `shortcut`, in matrix order.
    pub fn cases_catching(
        &self,
        shortcut: Shortcut,
        each: &mut dyn FnMut(&str) -> io::Result<()>,
    ) -> io::Result<()> {
        let bit = 1u64 << catalogue_index(shortcut);
        read_records(&self.records, &mut |case_id, caught| {
            if caught & bit != 0 {
                each(case_id)?;
            }
            Ok(())
        })
    }

    /// The witnesses of the shortcuts that survive, in the catalogue's order.
    pub fn witnesses(&self) -> impl Iterator<Item = &Witness> {
        self.shortcuts
            .iter()
            .filter_map(|(_, standing)| match standing {
                Standing::Survives(witness) => Some(&**witness),
                _ => None,
            })
    }
}

fn catalogue_index(shortcut: Shortcut) -> usize {
    Shortcut::ALL
        .iter()
        .position(|&s| s == shortcut)
        .expect("in the catalogue")
}

/// Reads back the records [`CatchRecords`] wrote: each case's id and its bits.
fn read_records(
    records: &TempFile,
    each: &mut dyn FnMut(&str, u64) -> io::Result<()>,
) -> io::Result<()> {
    let mut reader = BufReader::with_capacity(1 << 16, records.reader(0));
    let mut case_id = Vec::new();
    while let Some(length) = reader.get_first::<8>()? {
        case_id.resize(u64::from_le_bytes(length) as usize, 0);
        reader.get_raw(&mut case_id)?;
        let caught = reader.get_u64()?;
        let case_id = std::str::from_utf8(&case_id)
            .map_err(|_| crate::store::corrupt("a case id that is not UTF-8"))?;
        each(case_id, caught)?;
    }
    Ok(())
}

/// Judges every case of `sources` (through the engine, with `settings`) under the contract
/// and every shortcut, on the `graded` columns (bits by position in the matrix's columns),
/// and searches, for each shortcut no case catches, for a case that would (on up to `jobs`
/// threads). Bad input is the engine's error, every problem listed.
pub fn assess(
    sources: &[Source],
    settings: &StreamSettings<'_>,
    graded: u32,
    jobs: usize,
) -> Result<Assessment, StreamError> {
    let writer = CatchRecords::new(Shortcut::ALL, graded, settings.run_as_of);
    let judged = judge(
        sources,
        settings,
        Sink::Cases(Box::new(writer)),
        &mut |_, _, _| {},
    )?;
    let records = TempFile::new()?;
    judged.write_to(&mut TempWriter(records.appender()))?;
    let mut cases = 0;
    let mut caught = vec![0u64; Shortcut::ALL.len()];
    read_records(&records, &mut |_, bits| {
        cases += 1;
        for (index, count) in caught.iter_mut().enumerate() {
            *count += bits >> index & 1;
        }
        Ok(())
    })?;
    let searched = search_each(
        Shortcut::ALL
            .iter()
            .zip(&caught)
            .filter(|(_, &count)| count == 0)
            .map(|(&shortcut, _)| shortcut)
            .collect(),
        graded,
        jobs,
    );
    let shortcuts = Shortcut::ALL
        .iter()
        .zip(caught)
        .map(|(&shortcut, count)| {
            let standing = match count {
                0 => searched
                    .iter()
                    .find(|(s, _)| *s == shortcut)
                    .expect("searched")
                    .1
                    .clone(),
                cases => Standing::Caught { cases },
            };
            (shortcut, standing)
        })
        .collect();
    Ok(Assessment {
        graded,
        cases,
        shortcuts,
        records,
    })
}

/// Where each of `shortcuts` stands when no case of the lab catches it, by search (on up to
/// `jobs` threads; the result does not depend on them).
fn search_each(shortcuts: Vec<Shortcut>, graded: u32, jobs: usize) -> Vec<(Shortcut, Standing)> {
    let next = AtomicUsize::new(0);
    let found = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        let threads = jobs.min(MAX_SEARCHES_AT_ONCE).min(shortcuts.len()).max(1);
        for _ in 0..threads {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(&shortcut) = shortcuts.get(index) else {
                    break;
                };
                let standing = standing_by_search(shortcut, graded);
                found
                    .lock()
                    .expect("no search panics")
                    .push((shortcut, standing));
            });
        }
    });
    found.into_inner().expect("no search panics")
}

/// Where `shortcut` stands when no case of the lab catches it.
pub fn standing_by_search(shortcut: Shortcut, graded: u32) -> Standing {
    match find_catching_case(shortcut, graded, Bounds::CATCH) {
        Finding::Caught { rows, columns } => {
            Standing::Survives(Box::new(Witness::new(shortcut, rows, columns)))
        }
        Finding::NotCaught(search) if search.exhausted => {
            // The columns a conflict fixes were all settled by this search, if the graded
            // ones are among them (the same pairs are reached). Of the others, one search
            // that does not stop at the first difference finds most; each it did not is
            // searched alone, with the smaller key that allows.
            let candidates = EVERY_COLUMN & !graded & !THE_ROWS_OWN;
            let (mut columns, mut never, mut unsettled) = (0, 0, 0);
            let mut rest = candidates;
            if graded & !FIXED_BY_A_CONFLICT == 0 {
                columns |= search.differing & candidates & FIXED_BY_A_CONFLICT;
                never |= candidates & FIXED_BY_A_CONFLICT & !search.differing;
                rest &= !FIXED_BY_A_CONFLICT;
            }
            let (found, _) = find_catching_columns(shortcut, rest, Bounds::COLUMNS);
            columns |= found;
            for column in (0..32).map(|bit| 1u32 << bit) {
                if rest & column == 0 || columns & column != 0 {
                    continue;
                }
                match find_catching_case(shortcut, column, Bounds::ONE_COLUMN) {
                    Finding::Caught { .. } => columns |= column,
                    Finding::NotCaught(alone) if alone.exhausted => never |= column,
                    Finding::NotCaught(_) => unsettled |= column,
                }
            }
            Standing::Uncatchable {
                search,
                columns,
                never,
                unsettled,
            }
        }
        Finding::NotCaught(search) => Standing::Undecided { search },
    }
}

/// Writes the whole matrix of `sources` under `reading` in `encoding` to `out` (its header,
/// each case's row as [`MatrixUnder`] writes it, its trailer), judged at the settings'
/// `run_as_of`: what `Sink::Matrix` writes for the contract, under any reading.
pub fn write_matrix_under<R: Reading>(
    sources: &[Source],
    settings: &StreamSettings<'_>,
    reading: R,
    encoding: &'static dyn MatrixEncoding,
    out: &mut impl AppendFile,
) -> Result<(), StreamError> {
    let writer = MatrixUnder::new(reading, encoding, settings.run_as_of);
    let records = judge(
        sources,
        settings,
        Sink::Cases(Box::new(writer)),
        &mut |_, _, _| {},
    )?;
    let rows = records.count();
    encoding.write_header(out, &[])?;
    records.write_to(out)?;
    encoding.write_trailer(out, rows)?;
    out.flush()?;
    Ok(())
}

/// The instant the search's cases start at (what their times are relative to).
pub fn search_start() -> Timestamp {
    alphabet::at(alphabet::START)
}
