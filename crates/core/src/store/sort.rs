//! An external merge sort that keeps only the first entries: entries come in any order, are
//! sorted in runs of a fixed number written to temporary files, and come back in key order
//! through one [`Merge`] of the runs, so memory stays bounded whatever their number.

use std::io::{self, BufRead, BufReader};

use super::buffer::SpillBuffer;
use super::codec::Record;
use super::file::{TempFile, TempReader};
use super::merge::Merge;

/// An entry an [`ExternalSort`] sorts: ordered by its key, written to a run and read back.
pub trait Entry: Record {
    /// What entries are sorted by; no two entries of one sort have the same.
    type Key: Ord + Copy;
    /// Its key.
    fn key(&self) -> Self::Key;
}

/// Entries sorted by key, of which only the first `limit` are kept. Up to `per_run` wait in
/// memory; then they are sorted, and written as a run if more than half of them are among
/// the first `limit` (otherwise those few stay waiting). Past `runs_before_merge` runs, the
/// runs are merged into one (a bound on open files).
#[derive(Debug)]
pub struct ExternalSort<E> {
    limit: usize,
    per_run: usize,
    runs_before_merge: usize,
    pending: Vec<E>,
    runs: Vec<TempFile>,
    /// A run that could not be written: reported when the entries are read.
    failed: Option<io::Error>,
}

/// The buffer a run is written and read through.
const RUN_BUFFER: usize = 1 << 13;

impl<E: Entry + Clone> ExternalSort<E> {
    /// No entries yet; the first `limit` will be kept.
    pub fn new(limit: usize, per_run: usize, runs_before_merge: usize) -> ExternalSort<E> {
        ExternalSort {
            limit,
            per_run,
            runs_before_merge,
            pending: Vec::new(),
            runs: Vec::new(),
            failed: None,
        }
    }

    /// Adds the entry `make` makes, unless none is kept (a limit of 0, or a run that could
    /// not be written): then it is not made.
    pub fn push(&mut self, make: impl FnOnce() -> E) {
        if self.limit == 0 || self.failed.is_some() {
            return;
        }
        self.pending.push(make());
        if self.pending.len() >= self.per_run {
            self.pending.sort_unstable_by_key(E::key);
            self.pending.truncate(self.limit);
            // Under the limit, what is kept stays small: no run is needed.
            if self.pending.len() > self.per_run / 2 {
                if let Err(e) = self.spill() {
                    self.failed = Some(e);
                }
            }
        }
    }

    /// Writes sorted `entries` as a new run (the first error reading them is the run's).
    fn write_run(entries: impl IntoIterator<Item = io::Result<E>>) -> io::Result<TempFile> {
        let file = TempFile::new()?;
        let mut out = SpillBuffer::to_file(file.clone(), 2 * RUN_BUFFER, RUN_BUFFER);
        for entry in entries {
            entry?.encode(out.buf());
            out.spill_if_full()?;
        }
        out.spill()?;
        Ok(file)
    }

    /// Writes the pending entries (sorted) as a run, and merges the runs if there are many.
    fn spill(&mut self) -> io::Result<()> {
        let run = Self::write_run(self.pending.drain(..).map(Ok))?;
        self.runs.push(run);
        if self.runs.len() >= self.runs_before_merge {
            let merged = self.merge(Vec::new())?.take(self.limit);
            let merged = Self::write_run(merged.map(|entry| entry.map(|(_, entry)| entry)))?;
            self.runs = vec![merged];
        }
        Ok(())
    }

    /// Adds every entry of `other` (its waiting entries as a run of their own, and its runs).
    pub fn absorb(&mut self, other: ExternalSort<E>) -> io::Result<()> {
        if let Some(e) = other.failed {
            return Err(e);
        }
        let mut pending = other.pending;
        pending.sort_unstable_by_key(E::key);
        pending.truncate(self.limit);
        if !pending.is_empty() {
            self.runs
                .push(Self::write_run(pending.into_iter().map(Ok))?);
        }
        self.runs.extend(other.runs);
        Ok(())
    }

    /// The runs and `waiting` (sorted), merged.
    fn merge(&self, waiting: Vec<E>) -> io::Result<Merge<E::Key, E, Run<E>>> {
        let mut runs: Vec<Run<E>> = self
            .runs
            .iter()
            .map(|file| Run::File(BufReader::with_capacity(RUN_BUFFER, file.reader(0))))
            .collect();
        runs.push(Run::Memory(waiting.into_iter()));
        Merge::new(runs)
    }

    /// The first `limit` entries, in key order.
    pub fn sorted(&self) -> io::Result<impl Iterator<Item = io::Result<E>> + '_> {
        if let Some(e) = &self.failed {
            return Err(io::Error::new(e.kind(), e.to_string()));
        }
        let mut waiting = self.pending.clone();
        waiting.sort_unstable_by_key(E::key);
        Ok(self
            .merge(waiting)?
            .take(self.limit)
            .map(|entry| entry.map(|(_, entry)| entry)))
    }
}

/// A run of an [`ExternalSort`] as its merge reads it.
enum Run<E> {
    File(BufReader<TempReader>),
    Memory(std::vec::IntoIter<E>),
}

impl<E: Entry> Iterator for Run<E> {
    type Item = io::Result<(E::Key, E)>;

    fn next(&mut self) -> Option<io::Result<(E::Key, E)>> {
        let entry = match self {
            Run::File(reader) => match reader.fill_buf() {
                Ok([]) => return None,
                Ok(_) => E::decode(reader),
                Err(e) => Err(e),
            },
            Run::Memory(entries) => Ok(entries.next()?),
        };
        Some(entry.map(|entry| (entry.key(), entry)))
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::super::codec::{Get, Put};
    use super::*;

    /// A number and its text.
    #[derive(Clone, Debug, PartialEq, Eq)]
    struct Numbered(u64, String);

    impl Record for Numbered {
        fn encode(&self, out: &mut impl Put) {
            out.put_u64(self.0);
            out.put_str(&self.1);
        }

        fn decode(input: &mut impl Read) -> io::Result<Numbered> {
            Ok(Numbered(input.get_u64()?, input.get_string()?))
        }
    }

    impl Entry for Numbered {
        type Key = u64;

        fn key(&self) -> u64 {
            self.0
        }
    }

    /// `n` distinct keys in a scrambled order.
    fn scrambled(n: u64) -> Vec<Numbered> {
        (0..n)
            .map(|i| {
                let key = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                Numbered(key, format!("entry {i}"))
            })
            .collect()
    }

    fn sorted(sort: &ExternalSort<Numbered>) -> Vec<Numbered> {
        sort.sorted().unwrap().map(Result::unwrap).collect()
    }

    #[test]
    fn entries_past_many_runs_come_back_in_key_order_up_to_the_limit() {
        let entries = scrambled(10_000);
        let mut all = entries.clone();
        all.sort_by_key(Numbered::key);
        for limit in [usize::MAX, 0, 1, 37, 5_000] {
            // Runs of 64 entries, merged past 8 runs: both happen many times.
            let mut sort = ExternalSort::new(limit, 64, 8);
            for entry in &entries {
                sort.push(|| entry.clone());
            }
            assert!(sort.runs.len() < 8);
            let back = sorted(&sort);
            assert_eq!(back, all[..limit.min(all.len())], "limit {limit}");
            // Read again: the same.
            assert_eq!(sorted(&sort), back);
        }
    }

    #[test]
    fn a_few_entries_never_make_a_run() {
        let mut sort = ExternalSort::new(10, 64, 8);
        for entry in scrambled(1_000) {
            sort.push(|| entry);
        }
        // Each full batch is cut to the 10 first: they stay in memory.
        assert!(sort.runs.is_empty());
        assert_eq!(sorted(&sort).len(), 10);
        // With a limit of none kept, no entry is even made.
        let mut none = ExternalSort::<Numbered>::new(0, 64, 8);
        none.push(|| unreachable!("not made"));
        assert!(sorted(&none).is_empty());
    }

    #[test]
    fn an_absorbed_sort_merges_with_the_first() {
        let entries = scrambled(3_000);
        let (mut even, mut odd) = (
            ExternalSort::new(usize::MAX, 100, 4),
            ExternalSort::new(usize::MAX, 100, 4),
        );
        for entry in &entries {
            let sort = if entry.0 % 2 == 0 {
                &mut even
            } else {
                &mut odd
            };
            sort.push(|| entry.clone());
        }
        even.absorb(odd).unwrap();
        let mut all = entries;
        all.sort_by_key(Numbered::key);
        assert_eq!(sorted(&even), all);
    }
}
