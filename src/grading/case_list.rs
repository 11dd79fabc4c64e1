//! The cases a grade lists (golden cases as graded, and unknown cases), kept encoded and, past
//! 64 KiB, in an anonymous temporary file, as sorted runs merged back by key as they are read
//! (the store's k-way merge):
//! `check` joins a golden file one partition at a time, each partition yielding its cases in
//! golden order, and a report lists them in golden order without ever holding them all.

use std::io::{self, Read};
use std::marker::PhantomData;
use std::sync::Arc;

use super::case_grade::{CaseGrade, CaseOutcome, Mismatch, Spot, UnknownCase};
use super::columns::Column;
use super::spool::SPILL_BYTES;
use crate::store::{corrupt, Get, Merge, Put, SpillBuffer, Spilled};

/// The read buffers of all runs together while they are merged.
const MERGE_BUFFER_BYTES: usize = 1 << 20;

/// The smallest and largest read buffer of one run.
const RUN_BUFFER: (usize, usize) = (4 << 10, 64 << 10);

/// A record a [`Listed`] holds: encoded to bytes and decoded back, the file names of its
/// spots held once per list rather than once per record.
pub trait Record: Sized {
    /// Which of the list's three counts it adds to ([`Listed::count_of`]).
    fn kind(&self) -> usize;
    /// Appends the record's bytes to `out`, its file names numbered by `names`.
    fn encode(&self, names: &mut Names, out: &mut impl Put);
    /// Reads back a record [`Record::encode`] wrote, its file names from `names`.
    fn decode(names: &[String], input: &mut impl Read) -> io::Result<Self>;
}

/// The distinct file names a list's records point at (one or two in practice).
#[derive(Debug, Default)]
pub struct Names(Vec<String>);

impl Names {
    fn number(&mut self, name: &str) -> u32 {
        let found = self.0.iter().position(|n| n == name);
        let index = found.unwrap_or_else(|| {
            self.0.push(name.to_owned());
            self.0.len() - 1
        });
        u32::try_from(index).expect("fewer than 4G file names")
    }
}

/// One sorted run: where it ends in the store, and how many records it holds.
#[derive(Clone, Copy, Debug)]
struct Run {
    end: u64,
    records: usize,
}

/// Records in key order, read back one at a time, as often as a renderer needs.
pub struct Listed<T> {
    store: Spilled,
    runs: Vec<Run>,
    names: Arc<[String]>,
    len: usize,
    counts: [usize; 3],
    record: PhantomData<fn() -> T>,
}

/// The golden cases a grade lists, in golden-file order.
pub type CaseList = Listed<CaseGrade>;

/// The cases the golden file lacks, in graded-file order.
pub type UnknownList = Listed<UnknownCase>;

/// Encodes records as they come, in runs each sorted by key, spilling them to a temporary
/// file past 64 KiB.
pub struct ListWriter<T> {
    bytes: SpillBuffer,
    runs: Vec<Run>,
    /// Records since the last run ended, and the last one's key.
    open: usize,
    last_key: Option<u64>,
    names: Names,
    len: usize,
    counts: [usize; 3],
    record: PhantomData<fn() -> T>,
}

impl<T: Record> Default for ListWriter<T> {
    fn default() -> Self {
        ListWriter::new()
    }
}

impl<T: Record> ListWriter<T> {
    /// No records yet.
    pub fn new() -> ListWriter<T> {
        ListWriter {
            bytes: SpillBuffer::new(SPILL_BYTES),
            runs: Vec::new(),
            open: 0,
            last_key: None,
            names: Names::default(),
            len: 0,
            counts: [0; 3],
            record: PhantomData,
        }
    }

    /// Adds `record` to the current run; keys grow within a run.
    pub fn push(&mut self, key: u64, record: &T) -> io::Result<()> {
        self.add(key, record.kind(), |names, out| record.encode(names, out))
    }

    /// Encodes `record` as [`ListWriter::push`] would, into `out` (to be pushed later with
    /// [`ListWriter::push_encoded`]), and returns its kind ([`Record::kind`]).
    pub fn encode(&mut self, record: &T, out: &mut Vec<u8>) -> usize {
        record.encode(&mut self.names, out);
        record.kind()
    }

    /// Adds a record [`ListWriter::encode`] encoded, of kind `kind`, to the current run.
    pub fn push_encoded(&mut self, key: u64, kind: usize, encoded: &[u8]) -> io::Result<()> {
        self.add(key, kind, |_, out| out.put_raw(encoded))
    }

    /// Adds the record of kind `kind` that `write` writes, after its key, to the current run.
    fn add(
        &mut self,
        key: u64,
        kind: usize,
        write: impl FnOnce(&mut Names, &mut Vec<u8>),
    ) -> io::Result<()> {
        debug_assert!(self.last_key.is_none_or(|last| last < key), "keys grow");
        self.last_key = Some(key);
        self.bytes.buf().put_u64(key);
        write(&mut self.names, self.bytes.buf());
        self.open += 1;
        self.len += 1;
        self.counts[kind] += 1;
        self.bytes.spill_if_full()
    }

    /// Ends the current run: the next record may have any key.
    pub fn end_run(&mut self) {
        if self.open > 0 {
            self.runs.push(Run {
                end: self.bytes.written(),
                records: self.open,
            });
        }
        self.open = 0;
        self.last_key = None;
    }

    /// The records, ready to be read back in key order.
    pub fn finish(mut self) -> io::Result<Listed<T>> {
        self.end_run();
        Ok(Listed {
            store: self.bytes.finish()?,
            runs: self.runs,
            names: self.names.0.into(),
            len: self.len,
            counts: self.counts,
            record: PhantomData,
        })
    }
}

impl<T: Record> Listed<T> {
    /// `records` in the order given, kept in memory (for small reports and tests).
    pub fn from_records(records: impl IntoIterator<Item = T>) -> Listed<T> {
        let mut writer = ListWriter::new();
        writer.bytes = SpillBuffer::new(usize::MAX);
        // Held in memory: a file is written only if lists held at once pass the store's
        // budget, and then only a failing disk could make the write fail.
        for (key, record) in records.into_iter().enumerate() {
            writer
                .push(key as u64, &record)
                .expect("a list made in memory is written to no file");
        }
        writer
            .finish()
            .expect("a list made in memory writes a file only past the budget, on a working disk")
    }

    /// How many records there are.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many records are of kind `kind` ([`Record::kind`]).
    pub fn count_of(&self, kind: usize) -> usize {
        self.counts[kind]
    }

    /// The records in key order, decoded one at a time (the runs merged as they are read);
    /// an error reading one back ends them.
    pub fn iter(&self) -> ListIter<'_, T> {
        let buffer =
            (MERGE_BUFFER_BYTES / self.runs.len().max(1)).clamp(RUN_BUFFER.0, RUN_BUFFER.1);
        let mut start = 0u64;
        let mut runs = Vec::with_capacity(self.runs.len());
        for run in &self.runs {
            runs.push(RunRecords {
                reader: self.store.reader(start, Some(run.end), buffer),
                left: run.records,
                names: &self.names,
                record: PhantomData,
            });
            start = run.end;
        }
        match Merge::new(runs) {
            Ok(merge) => ListIter {
                merge: Some(merge),
                failed: None,
            },
            Err(e) => ListIter {
                merge: None,
                failed: Some(e),
            },
        }
    }
}

impl Listed<CaseGrade> {
    /// How many listed cases matched.
    pub fn matched(&self) -> usize {
        self.count_of(0)
    }

    /// How many listed cases differ.
    pub fn mismatched(&self) -> usize {
        self.count_of(1)
    }

    /// How many listed cases are missing.
    pub fn missing(&self) -> usize {
        self.count_of(2)
    }
}

impl<T> Clone for Listed<T> {
    fn clone(&self) -> Self {
        Listed {
            store: self.store.clone(),
            runs: self.runs.clone(),
            names: self.names.clone(),
            len: self.len,
            counts: self.counts,
            record: PhantomData,
        }
    }
}

/// Equal when both read back whole and alike.
impl<T: Record + PartialEq> PartialEq for Listed<T> {
    fn eq(&self, other: &Listed<T>) -> bool {
        let same =
            |(a, b): (io::Result<T>, io::Result<T>)| matches!((a, b), (Ok(a), Ok(b)) if a == b);
        self.len == other.len && self.iter().zip(other.iter()).all(same)
    }
}

impl<T: Record + Eq> Eq for Listed<T> {}

impl<T: Record + std::fmt::Debug> std::fmt::Debug for Listed<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Record> Default for Listed<T> {
    fn default() -> Self {
        Listed::from_records(std::iter::empty())
    }
}

impl<T: Record> FromIterator<T> for Listed<T> {
    fn from_iter<I: IntoIterator<Item = T>>(records: I) -> Self {
        Listed::from_records(records)
    }
}

impl<'a, T: Record> IntoIterator for &'a Listed<T> {
    type Item = io::Result<T>;
    type IntoIter = ListIter<'a, T>;

    fn into_iter(self) -> ListIter<'a, T> {
        self.iter()
    }
}

/// One sorted run of a [`Listed`], decoded one record at a time.
struct RunRecords<'a, T> {
    reader: Box<dyn Read + 'a>,
    /// The records not yet decoded.
    left: usize,
    names: &'a [String],
    record: PhantomData<fn() -> T>,
}

impl<T: Record> Iterator for RunRecords<'_, T> {
    type Item = io::Result<(u64, T)>;

    fn next(&mut self) -> Option<io::Result<(u64, T)>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let input = &mut self.reader;
        Some(
            input
                .get_u64()
                .and_then(|key| Ok((key, T::decode(self.names, input)?))),
        )
    }
}

/// The records of a [`Listed`], in key order.
pub struct ListIter<'a, T> {
    merge: Option<Merge<u64, T, RunRecords<'a, T>>>,
    /// An error reading the runs' first records, given before anything else.
    failed: Option<io::Error>,
}

impl<T: Record> Iterator for ListIter<'_, T> {
    type Item = io::Result<T>;

    /// The next record; after an error reading one back, nothing more.
    fn next(&mut self) -> Option<io::Result<T>> {
        if let Some(e) = self.failed.take() {
            return Some(Err(e));
        }
        Some(self.merge.as_mut()?.next()?.map(|(_, record)| record))
    }
}

impl Record for CaseGrade {
    fn kind(&self) -> usize {
        match self.outcome {
            CaseOutcome::Matched => 0,
            CaseOutcome::Mismatched(_) => 1,
            CaseOutcome::Missing => 2,
        }
    }

    fn encode(&self, names: &mut Names, out: &mut impl Put) {
        out.put_str(&self.case_id);
        put_spot(&self.at, names, out);
        out.put_u8(self.kind() as u8);
        if let CaseOutcome::Mismatched(mismatches) = &self.outcome {
            out.put_u8(u8::try_from(mismatches.len()).expect("fewer than 256 columns"));
            for mismatch in mismatches {
                out.put_u8(u8::try_from(mismatch.column.index()).expect("fewer than 256 columns"));
                out.put_optional_str(mismatch.expected.as_deref());
                out.put_str(&mismatch.actual);
            }
        }
    }

    fn decode(names: &[String], input: &mut impl Read) -> io::Result<CaseGrade> {
        let case_id = input.get_string()?;
        let at = get_spot(names, input)?;
        let outcome = match input.get_u8()? {
            0 => CaseOutcome::Matched,
            1 => {
                let count = input.get_u8()?;
                let mut mismatches = Vec::with_capacity(usize::from(count));
                for _ in 0..count {
                    mismatches.push(Mismatch {
                        column: Column::at(usize::from(input.get_u8()?))
                            .ok_or_else(|| corrupt("an unknown column"))?,
                        expected: input.get_optional_string()?,
                        actual: input.get_string()?,
                    });
                }
                CaseOutcome::Mismatched(mismatches)
            }
            2 => CaseOutcome::Missing,
            _ => return Err(corrupt("an unknown case outcome")),
        };
        Ok(CaseGrade {
            case_id,
            at,
            outcome,
        })
    }
}

impl Record for UnknownCase {
    fn kind(&self) -> usize {
        0
    }

    fn encode(&self, names: &mut Names, out: &mut impl Put) {
        out.put_str(&self.case_id);
        put_spot(&self.at, names, out);
    }

    fn decode(names: &[String], input: &mut impl Read) -> io::Result<UnknownCase> {
        Ok(UnknownCase {
            case_id: input.get_string()?,
            at: get_spot(names, input)?,
        })
    }
}

/// A spot as the number of its file's name and its line.
fn put_spot(spot: &Spot, names: &mut Names, out: &mut impl Put) {
    out.put_u32(names.number(&spot.file));
    out.put_optional_u64(spot.line);
}

fn get_spot(names: &[String], input: &mut impl Read) -> io::Result<Spot> {
    let name = input.get_u32()? as usize;
    let file = names
        .get(name)
        .ok_or_else(|| corrupt("an unknown file name"))?
        .clone();
    Ok(Spot {
        file,
        line: input.get_optional_u64()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grade(n: u64) -> CaseGrade {
        let outcome = match n % 4 {
            0 | 3 => CaseOutcome::Matched,
            1 => CaseOutcome::Missing,
            _ => CaseOutcome::Mismatched(vec![
                Mismatch {
                    column: Column::Decision,
                    expected: Some(format!("spät {n}")),
                    actual: String::new(),
                },
                Mismatch {
                    column: Column::Reason,
                    expected: None,
                    actual: "x".repeat(n as usize % 7),
                },
            ]),
        };
        CaseGrade {
            case_id: format!("c-{n}"),
            at: Spot {
                file: if n % 4 == 1 {
                    "golden.csv"
                } else {
                    "cases.csv"
                }
                .to_owned(),
                line: (n % 5 != 0).then_some(n * 3 + 2),
            },
            outcome,
        }
    }

    /// Records split into runs as a partitioned join yields them: each run sorted, the runs
    /// interleaved; read back, they come in key order, spilled to the file or not.
    #[test]
    fn runs_merge_back_into_key_order_in_memory_and_spilled() {
        for (count, runs) in [
            (0u64, 1u64),
            (1, 1),
            (10, 3),
            (3000, 1),
            (3000, 7),
            (20_000, 64),
        ] {
            let mut writer = ListWriter::new();
            for run in 0..runs {
                for key in (0..count).filter(|key| key * 7919 % runs == run) {
                    writer.push(key, &grade(key)).unwrap();
                }
                writer.end_run();
            }
            let list = writer.finish().unwrap();
            assert_eq!(list.store.is_file(), count >= 3000, "{count}");
            let expected: Vec<CaseGrade> = (0..count).map(grade).collect();
            assert_eq!(list.len(), expected.len());
            // Two readers at once, each from the start.
            let mut first = list.iter();
            let mut second = list.iter();
            for case in &expected {
                assert_eq!(&first.next().unwrap().unwrap(), case);
                assert_eq!(&second.next().unwrap().unwrap(), case);
            }
            assert!(first.next().is_none());
            assert_eq!(list, CaseList::from_records(expected.iter().cloned()));
            let counted = |kind: usize| expected.iter().filter(|c| c.kind() == kind).count();
            assert_eq!(
                (list.matched(), list.mismatched(), list.missing()),
                (counted(0), counted(1), counted(2))
            );
        }
    }

    /// A list whose file was cut short reads back as an error, first or after the records
    /// before the cut, and then nothing: never a panic.
    #[test]
    fn a_list_whose_file_is_cut_short_reads_back_as_an_error() {
        for (runs, keep) in [(1u64, 2_000u64), (4, 2_000), (4, 10)] {
            let mut writer = ListWriter::new();
            for run in 0..runs {
                for key in (0..3000).filter(|key| key % runs == run) {
                    writer.push(key, &grade(key)).unwrap();
                }
                writer.end_run();
            }
            let list = writer.finish().unwrap();
            let Spilled::File(file) = &list.store else {
                panic!("3,000 records go to the file");
            };
            file.descriptor().unwrap().set_len(keep).unwrap();
            let read: Vec<io::Result<CaseGrade>> = list.iter().collect();
            let (last, before) = read.split_last().unwrap();
            assert!(
                before.iter().all(Result::is_ok),
                "{runs} runs, {keep} bytes"
            );
            let e = last.as_ref().unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "{e}");
            assert!(read.len() < 3000);
            assert_ne!(
                list,
                list.clone(),
                "a list that cannot be read equals nothing"
            );
        }
    }
}
