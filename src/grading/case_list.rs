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
use crate::store::{Merge, SpillBuffer, Spilled};

/// Encoded records held in memory before they go to the temporary file: a small report
/// never makes one.
const SPILL_BYTES: usize = 64 * 1024;

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
    fn encode(&self, names: &mut Names, out: &mut Vec<u8>);
    /// Reads back a record [`Record::encode`] wrote, its file names from `names`.
    fn decode(names: &[String], reader: &mut dyn Read) -> io::Result<Self>;
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
        debug_assert!(self.last_key.is_none_or(|last| last < key), "keys grow");
        self.last_key = Some(key);
        self.bytes.buf().extend_from_slice(&key.to_le_bytes());
        record.encode(&mut self.names, self.bytes.buf());
        self.open += 1;
        self.len += 1;
        self.counts[record.kind()] += 1;
        self.bytes.spill_if_full()
    }

    /// Encodes `record` as [`ListWriter::push`] would, into `out` (to be pushed later with
    /// [`ListWriter::push_encoded`]), and returns its kind ([`Record::kind`]).
    pub fn encode(&mut self, record: &T, out: &mut Vec<u8>) -> usize {
        record.encode(&mut self.names, out);
        record.kind()
    }

    /// Adds a record [`ListWriter::encode`] encoded, of kind `kind`, to the current run.
    pub fn push_encoded(&mut self, key: u64, kind: usize, encoded: &[u8]) -> io::Result<()> {
        debug_assert!(self.last_key.is_none_or(|last| last < key), "keys grow");
        self.last_key = Some(key);
        self.bytes.buf().extend_from_slice(&key.to_le_bytes());
        self.bytes.buf().extend_from_slice(encoded);
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
        for (key, record) in records.into_iter().enumerate() {
            writer
                .push(key as u64, &record)
                .expect("nothing is written to a file");
        }
        writer.finish().expect("nothing is written to a file")
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

    /// The records in key order, decoded one at a time (the runs merged as they are read).
    ///
    /// # Panics
    ///
    /// If the temporary file cannot be read back (a failing disk): the file was written by
    /// this process and is never touched by another, so nothing else can make a read fail.
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
        ListIter {
            merge: Merge::new(runs).unwrap_or_else(|e| panic!("{}", read_back_failed(&e))),
            remaining: self.len,
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

impl<T: Record + PartialEq> PartialEq for Listed<T> {
    fn eq(&self, other: &Listed<T>) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
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
    type Item = T;
    type IntoIter = ListIter<'a, T>;

    fn into_iter(self) -> ListIter<'a, T> {
        self.iter()
    }
}

/// Why a list cannot be read back.
fn read_back_failed(e: &io::Error) -> String {
    format!("reading back the temporary file of cases: {e}")
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
        let reader = self.reader.as_mut();
        Some(
            bytes::<8>(reader)
                .map(u64::from_le_bytes)
                .and_then(|key| Ok((key, T::decode(self.names, reader)?))),
        )
    }
}

/// The records of a [`Listed`], in key order.
pub struct ListIter<'a, T> {
    merge: Merge<u64, T, RunRecords<'a, T>>,
    remaining: usize,
}

impl<T: Record> Iterator for ListIter<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        let (_, record) = self
            .merge
            .next()?
            .unwrap_or_else(|e| panic!("{}", read_back_failed(&e)));
        self.remaining -= 1;
        Some(record)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<T: Record> ExactSizeIterator for ListIter<'_, T> {}

impl Record for CaseGrade {
    fn kind(&self) -> usize {
        match self.outcome {
            CaseOutcome::Matched => 0,
            CaseOutcome::Mismatched(_) => 1,
            CaseOutcome::Missing => 2,
        }
    }

    fn encode(&self, names: &mut Names, out: &mut Vec<u8>) {
        put_text(&self.case_id, out);
        put_spot(&self.at, names, out);
        out.push(self.kind() as u8);
        if let CaseOutcome::Mismatched(mismatches) = &self.outcome {
            out.extend_from_slice(
                &u32::try_from(mismatches.len())
                    .expect("fewer than 4G columns")
                    .to_le_bytes(),
            );
            for mismatch in mismatches {
                out.push(u8::try_from(mismatch.column.index()).expect("fewer than 256 columns"));
                put_optional_text(mismatch.expected.as_deref(), out);
                put_text(&mismatch.actual, out);
            }
        }
    }

    fn decode(names: &[String], reader: &mut dyn Read) -> io::Result<CaseGrade> {
        let case_id = get_text(reader)?;
        let at = get_spot(names, reader)?;
        let [kind] = bytes(reader)?;
        let outcome = match kind {
            0 => CaseOutcome::Matched,
            1 => {
                let count = u32::from_le_bytes(bytes(reader)?);
                let mut mismatches = Vec::with_capacity(count.min(256) as usize);
                for _ in 0..count {
                    let [column] = bytes(reader)?;
                    mismatches.push(Mismatch {
                        column: Column::at(usize::from(column))
                            .ok_or_else(|| corrupt("an unknown column"))?,
                        expected: get_optional_text(reader)?,
                        actual: get_text(reader)?,
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

    fn encode(&self, names: &mut Names, out: &mut Vec<u8>) {
        put_text(&self.case_id, out);
        put_spot(&self.at, names, out);
    }

    fn decode(names: &[String], reader: &mut dyn Read) -> io::Result<UnknownCase> {
        Ok(UnknownCase {
            case_id: get_text(reader)?,
            at: get_spot(names, reader)?,
        })
    }
}

fn put_text(text: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(
        &u32::try_from(text.len())
            .expect("a text under 4 GiB")
            .to_le_bytes(),
    );
    out.extend_from_slice(text.as_bytes());
}

/// A text as its length plus one (0 for none) and its bytes.
fn put_optional_text(text: Option<&str>, out: &mut Vec<u8>) {
    match text {
        None => out.extend_from_slice(&0u32.to_le_bytes()),
        Some(text) => {
            let len = u32::try_from(text.len() + 1).expect("a text under 4 GiB");
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(text.as_bytes());
        }
    }
}

fn put_spot(spot: &Spot, names: &mut Names, out: &mut Vec<u8>) {
    out.extend_from_slice(&names.number(&spot.file).to_le_bytes());
    match spot.line {
        None => out.push(0),
        Some(line) => {
            out.push(1);
            out.extend_from_slice(&line.to_le_bytes());
        }
    }
}

fn bytes<const N: usize>(reader: &mut dyn Read) -> io::Result<[u8; N]> {
    let mut buf = [0; N];
    reader.read_exact(&mut buf)?;
    Ok(buf)
}

fn corrupt(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
}

fn get_bytes(reader: &mut dyn Read, len: usize) -> io::Result<String> {
    let mut buf = vec![0; len];
    reader.read_exact(&mut buf)?;
    String::from_utf8(buf).map_err(|_| corrupt("a text that is not UTF-8"))
}

fn get_text(reader: &mut dyn Read) -> io::Result<String> {
    let len = u32::from_le_bytes(bytes(reader)?);
    get_bytes(reader, len as usize)
}

fn get_optional_text(reader: &mut dyn Read) -> io::Result<Option<String>> {
    match u32::from_le_bytes(bytes(reader)?) {
        0 => Ok(None),
        len => get_bytes(reader, len as usize - 1).map(Some),
    }
}

fn get_spot(names: &[String], reader: &mut dyn Read) -> io::Result<Spot> {
    let name = u32::from_le_bytes(bytes(reader)?) as usize;
    let file = names
        .get(name)
        .ok_or_else(|| corrupt("an unknown file name"))?
        .clone();
    let [has_line] = bytes(reader)?;
    let line = match has_line {
        0 => None,
        _ => Some(u64::from_le_bytes(bytes(reader)?)),
    };
    Ok(Spot { file, line })
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
                    column: Column::DECISION,
                    expected: Some(format!("spät {n}")),
                    actual: String::new(),
                },
                Mismatch {
                    column: Column::REASON,
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
                assert_eq!(first.next().as_ref(), Some(case));
                assert_eq!(second.next().as_ref(), Some(case));
            }
            assert_eq!(first.next(), None);
            assert_eq!(list, CaseList::from_records(expected.iter().cloned()));
            let counted = |kind: usize| expected.iter().filter(|c| c.kind() == kind).count();
            assert_eq!(
                (list.matched(), list.mismatched(), list.missing()),
                (counted(0), counted(1), counted(2))
            );
        }
    }
}
