//! The k-way merge of sorted runs (of an external sort, or of a join that yields its results
//! a partition at a time): every run's next entry in a heap by key, the least taken and
//! replaced by the next of its run.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;

/// Runs each yielding `(key, entry)` in key order, merged into one sequence in key order;
/// entries with equal keys come in the order of their runs (a stable merge), and an entry is
/// read from its run only once the one before it was taken.
pub struct Merge<K, T, R> {
    runs: Vec<R>,
    /// Per run, its next entry, read.
    heads: Vec<Option<T>>,
    /// The runs with a next entry, by its key.
    heap: BinaryHeap<Reverse<(K, usize)>>,
}

impl<K: Ord, T, R: Iterator<Item = io::Result<(K, T)>>> Merge<K, T, R> {
    /// The merge of `runs`, each's first entry read.
    pub fn new(runs: Vec<R>) -> io::Result<Merge<K, T, R>> {
        let mut merge = Merge {
            heads: (0..runs.len()).map(|_| None).collect(),
            heap: BinaryHeap::with_capacity(runs.len()),
            runs,
        };
        for run in 0..merge.runs.len() {
            merge.advance(run)?;
        }
        Ok(merge)
    }

    /// Reads run `run`'s next entry, if it has one, into its head.
    fn advance(&mut self, run: usize) -> io::Result<()> {
        if let Some((key, entry)) = self.runs[run].next().transpose()? {
            self.heads[run] = Some(entry);
            self.heap.push(Reverse((key, run)));
        }
        Ok(())
    }
}

impl<K: Ord, T, R: Iterator<Item = io::Result<(K, T)>>> Iterator for Merge<K, T, R> {
    type Item = io::Result<(K, T)>;

    /// The least entry; an error reading the next of its run instead (the entry is lost
    /// with it), and after that nothing more.
    fn next(&mut self) -> Option<io::Result<(K, T)>> {
        let Reverse((key, run)) = self.heap.pop()?;
        let entry = self.heads[run]
            .take()
            .expect("a run in the heap has a head");
        if let Err(e) = self.advance(run) {
            self.heap.clear();
            return Some(Err(e));
        }
        Some(Ok((key, entry)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Run = std::vec::IntoIter<io::Result<(u32, &'static str)>>;

    fn run(entries: &[(u32, &'static str)]) -> Run {
        entries
            .iter()
            .map(|&entry| Ok(entry))
            .collect::<Vec<_>>()
            .into_iter()
    }

    fn merged(runs: Vec<Run>) -> Vec<(u32, &'static str)> {
        Merge::new(runs).unwrap().map(Result::unwrap).collect()
    }

    #[test]
    fn runs_merge_into_key_order() {
        let runs = vec![
            run(&[(1, "a"), (4, "d"), (9, "i")]),
            run(&[(2, "b"), (3, "c")]),
            run(&[(5, "e"), (6, "f"), (7, "g"), (8, "h")]),
        ];
        let keys: Vec<u32> = merged(runs).iter().map(|(key, _)| *key).collect();
        assert_eq!(keys, (1..=9).collect::<Vec<_>>());
    }

    #[test]
    fn empty_runs_and_no_runs_merge_to_what_the_others_hold() {
        assert_eq!(merged(Vec::new()), []);
        assert_eq!(merged(vec![run(&[]), run(&[])]), []);
        let runs = vec![
            run(&[]),
            run(&[(2, "b")]),
            run(&[]),
            run(&[(1, "a")]),
            run(&[]),
        ];
        assert_eq!(merged(runs), [(1, "a"), (2, "b")]);
    }

    #[test]
    fn ties_keep_the_order_of_their_runs_and_within_a_run() {
        let runs = vec![
            run(&[(1, "first run"), (2, "first run, 1"), (2, "first run, 2")]),
            run(&[(1, "second run"), (2, "second run")]),
            run(&[(0, "third run"), (2, "third run")]),
        ];
        assert_eq!(
            merged(runs),
            [
                (0, "third run"),
                (1, "first run"),
                (1, "second run"),
                (2, "first run, 1"),
                (2, "first run, 2"),
                (2, "second run"),
                (2, "third run"),
            ]
        );
    }

    #[test]
    fn an_error_reading_a_run_ends_the_merge_after_it() {
        let failing: Run =
            vec![Ok((1, "a")), Err(io::Error::other("disk")), Ok((3, "c"))].into_iter();
        let mut merge = Merge::new(vec![failing, run(&[(2, "b")])]).unwrap();
        // The entry whose successor could not be read is taken with it.
        assert_eq!(merge.next().unwrap().unwrap_err().to_string(), "disk");
        assert!(merge.next().is_none());
        // An error in a run's first entry is the merge's.
        let failing: Run = vec![Err(io::Error::other("disk"))].into_iter();
        assert!(Merge::new(vec![failing]).is_err());
    }
}
