//! Records kept encoded and, past a few kilobytes, in an anonymous temporary file, so that
//! what a run lists per case (a submission's marks, its unknown rows) takes memory that does
//! not grow with the number of cases; renderers read them back in order, as often as they
//! need. Runs of records each in key order merge into one (the store's k-way merge), as a
//! partition-at-a-time join yields them.

use std::io::{self, Read};
use std::marker::PhantomData;

use crate::store::{Merge, Record, SpillBuffer, Spilled};

/// Encoded records held in memory before they go to the temporary file: a small list never
/// makes one.
pub(super) const SPILL_BYTES: usize = 64 * 1024;

/// Records in order, kept encoded (in memory or a temporary file) and decoded as they are
/// read, as often as needed.
pub struct Spool<T> {
    store: Spilled,
    count: usize,
    record: PhantomData<fn() -> T>,
}

impl<T> Clone for Spool<T> {
    fn clone(&self) -> Self {
        Spool {
            store: self.store.clone(),
            count: self.count,
            record: PhantomData,
        }
    }
}

/// Encodes records as they are made, spilling them to a temporary file past 64 KiB.
pub struct SpoolWriter<T> {
    bytes: SpillBuffer,
    count: usize,
    record: PhantomData<fn(&T)>,
}

/// A point between two records of a [`SpoolWriter`]: where a run of records starts or ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    offset: u64,
    count: usize,
}

impl<T: Record> Default for SpoolWriter<T> {
    fn default() -> Self {
        SpoolWriter::new()
    }
}

impl<T: Record> SpoolWriter<T> {
    /// No records yet.
    pub fn new() -> SpoolWriter<T> {
        SpoolWriter {
            bytes: SpillBuffer::new(SPILL_BYTES),
            count: 0,
            record: PhantomData,
        }
    }

    /// Adds the next record.
    pub fn push(&mut self, record: &T) -> io::Result<()> {
        record.encode(self.bytes.buf());
        self.count += 1;
        self.bytes.spill_if_full()
    }

    /// The point after the records pushed so far.
    pub fn point(&self) -> Point {
        Point {
            offset: self.bytes.written(),
            count: self.count,
        }
    }

    /// The records, ready to be read back.
    pub fn finish(self) -> io::Result<Spool<T>> {
        Ok(Spool {
            store: self.bytes.finish()?,
            count: self.count,
            record: PhantomData,
        })
    }
}

impl<T: Record> Spool<T> {
    /// The records of `records`, in memory (unless memory holds many finished buffers).
    #[cfg(test)]
    pub fn from_records<'a>(records: impl IntoIterator<Item = &'a T>) -> Spool<T>
    where
        T: 'a,
    {
        let mut writer = SpoolWriter::new();
        writer.bytes = SpillBuffer::new(usize::MAX);
        for record in records {
            writer.push(record).expect("nothing is written to a file");
        }
        writer.finish().expect("a temporary file can be written")
    }

    /// Whether the records went to a temporary file.
    #[cfg(test)]
    pub(crate) fn is_in_file(&self) -> bool {
        self.store.is_file()
    }

    /// How many records there are.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The records in order, decoded one at a time (an error reading one back ends them).
    pub fn iter(&self) -> SpoolIter<'_, T> {
        self.iter_from(
            Point {
                offset: 0,
                count: 0,
            },
            self.count,
            SPILL_BYTES,
        )
    }

    /// The `count` records from `start` on, read through a buffer of `buffer` bytes.
    fn iter_from(&self, start: Point, count: usize, buffer: usize) -> SpoolIter<'_, T> {
        SpoolIter {
            reader: self.store.reader(start.offset, None, buffer),
            left: count,
            record: PhantomData,
        }
    }

    /// The runs of records between consecutive `points` (each run in the order of `key`, as
    /// a partition of a split matrix yields them) merged into one sequence in key order: the
    /// k-way merge of an external sort, a record at a time from each run.
    pub fn merge_runs(&self, points: &[Point], key: impl Fn(&T) -> u64) -> io::Result<Spool<T>> {
        if let [first, last] = points {
            if first.count == 0 && last.count == self.count {
                // One run of everything: already in order.
                return Ok(self.clone());
            }
        }
        // Many runs each read through a small buffer: a thousand runs cost 8 MiB.
        let runs: Vec<_> = points
            .windows(2)
            .map(|run| {
                self.iter_from(run[0], run[1].count - run[0].count, 8 << 10)
                    .map(|record| record.map(|record| (key(&record), record)))
            })
            .collect();
        let mut merged = SpoolWriter::new();
        for record in Merge::new(runs)? {
            merged.push(&record?.1)?;
        }
        merged.finish()
    }
}

/// Equal when both read back whole and alike.
impl<T: Record + PartialEq> PartialEq for Spool<T> {
    fn eq(&self, other: &Spool<T>) -> bool {
        let same =
            |(a, b): (io::Result<T>, io::Result<T>)| matches!((a, b), (Ok(a), Ok(b)) if a == b);
        self.count == other.count && self.iter().zip(other.iter()).all(same)
    }
}

impl<T: Record + Eq> Eq for Spool<T> {}

impl<T: Record + std::fmt::Debug> std::fmt::Debug for Spool<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a, T: Record> IntoIterator for &'a Spool<T> {
    type Item = io::Result<T>;
    type IntoIter = SpoolIter<'a, T>;

    fn into_iter(self) -> SpoolIter<'a, T> {
        self.iter()
    }
}

/// The records of a [`Spool`], in order.
pub struct SpoolIter<'a, T> {
    reader: Box<dyn Read + 'a>,
    left: usize,
    record: PhantomData<fn() -> T>,
}

impl<T: Record> Iterator for SpoolIter<'_, T> {
    type Item = io::Result<T>;

    /// The next record; after an error reading one back, nothing more.
    fn next(&mut self) -> Option<io::Result<T>> {
        if self.left == 0 {
            return None;
        }
        let record = T::decode(&mut self.reader);
        self.left = if record.is_ok() { self.left - 1 } else { 0 };
        Some(record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spooled_file_cut_short_reads_back_as_an_error_not_a_panic() {
        let records: Vec<(u64, String)> = (0..10_000).map(|i| (i, format!("case {i}"))).collect();
        let mut writer = SpoolWriter::new();
        for record in &records {
            writer.push(record).unwrap();
        }
        let spool = writer.finish().unwrap();
        let Spilled::File(file) = &spool.store else {
            panic!("10,000 records go to the file");
        };
        let whole = spool.iter().map(Result::unwrap).collect::<Vec<_>>();
        assert_eq!(whole, records);
        // Cut inside the 5,000th record's text.
        let cut = (0..5_000)
            .map(|i| 16 + format!("case {i}").len() as u64)
            .sum::<u64>()
            - 2;
        file.descriptor().unwrap().set_len(cut).unwrap();
        let mut read = spool.iter();
        for record in &records[..4_999] {
            assert_eq!(&read.next().unwrap().unwrap(), record);
        }
        let e = read.next().unwrap().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(e.to_string(), "a temporary file ends inside a record");
        // Nothing after the error.
        assert!(read.next().is_none());
    }
}
