//! A submission's case marks, kept encoded and, past a few kilobytes, in an anonymous
//! temporary file, so that a class of many large submissions is graded in memory that does
//! not grow with their number; renderers read them back in order, as often as they need.

use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::sync::Arc;

use super::class::{CaseMark, CaseStatus, ColumnMiss};
use super::columns::Column;

/// Encoded marks held in memory before they go to the temporary file: a small submission
/// never makes one.
const SPILL_BYTES: usize = 64 * 1024;

/// Where the encoded marks are.
#[derive(Clone)]
enum Store {
    /// Few enough to stay in memory.
    Memory(Arc<[u8]>),
    /// In an anonymous temporary file (unlinked when made, so nothing is left behind even
    /// when the process is killed), read by positional reads so readers can overlap.
    File(Arc<File>),
}

/// One submission's marks, in golden-file order.
#[derive(Clone)]
pub struct Marks {
    store: Store,
    count: usize,
}

/// Encodes marks as they are made, spilling them to a temporary file past 64 KiB.
pub struct MarksWriter {
    buf: Vec<u8>,
    file: Option<Arc<File>>,
    /// Bytes already in the file.
    spilled: u64,
    count: usize,
}

/// A point between two marks of a [`MarksWriter`]: where a run of marks starts or ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    offset: u64,
    count: usize,
}

impl Default for MarksWriter {
    fn default() -> Self {
        MarksWriter::new()
    }
}

impl MarksWriter {
    /// No marks yet.
    pub fn new() -> MarksWriter {
        MarksWriter {
            buf: Vec::new(),
            file: None,
            spilled: 0,
            count: 0,
        }
    }

    /// Adds the next mark.
    pub fn push(&mut self, mark: &CaseMark) -> io::Result<()> {
        encode(mark, &mut self.buf);
        self.count += 1;
        if self.buf.len() >= SPILL_BYTES {
            self.spill()?;
        }
        Ok(())
    }

    fn spill(&mut self) -> io::Result<()> {
        let file = match &self.file {
            Some(file) => file,
            None => self.file.insert(Arc::new(tempfile::tempfile()?)),
        };
        (&**file).write_all(&self.buf)?;
        self.spilled += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }

    /// The point after the marks pushed so far.
    pub fn point(&self) -> Point {
        Point {
            offset: self.spilled + self.buf.len() as u64,
            count: self.count,
        }
    }

    /// The marks, ready to be read back.
    pub fn finish(mut self) -> io::Result<Marks> {
        let store = if self.file.is_some() {
            self.spill()?;
            Store::File(self.file.take().expect("made by spill"))
        } else {
            Store::Memory(self.buf.into())
        };
        Ok(Marks {
            store,
            count: self.count,
        })
    }
}

impl Marks {
    /// The marks of `marks`, kept in memory (for tests and small reports).
    pub fn from_marks<'a>(marks: impl IntoIterator<Item = &'a CaseMark>) -> Marks {
        let mut buf = Vec::new();
        let mut count = 0;
        for mark in marks {
            encode(mark, &mut buf);
            count += 1;
        }
        Marks {
            store: Store::Memory(buf.into()),
            count,
        }
    }

    /// How many marks there are (one per golden case).
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The marks in order, decoded one at a time.
    ///
    /// # Panics
    ///
    /// If the temporary file cannot be read back (a failing disk): the file was written by
    /// this process and is never touched by another, so nothing else can make a read fail.
    pub fn iter(&self) -> MarksIter<'_> {
        self.iter_from(
            Point {
                offset: 0,
                count: 0,
            },
            self.count,
            SPILL_BYTES,
        )
    }

    /// The `count` marks from `start` on, read through a buffer of `buffer` bytes.
    fn iter_from(&self, start: Point, count: usize, buffer: usize) -> MarksIter<'_> {
        let reader: Box<dyn Read + '_> = match &self.store {
            Store::Memory(bytes) => Box::new(&bytes[start.offset as usize..]),
            Store::File(file) => Box::new(BufReader::with_capacity(
                buffer,
                ReadAt {
                    file: file.as_ref(),
                    offset: start.offset,
                },
            )),
        };
        MarksIter {
            reader,
            left: count,
        }
    }

    /// The runs of marks between consecutive `points` (each run in golden order, as a
    /// partition of a split matrix yields them) merged into one sequence in golden order:
    /// the k-way merge of an external sort, a mark at a time from each run.
    pub fn merge_runs(&self, points: &[Point]) -> io::Result<Marks> {
        // Many runs each read through a small buffer: a thousand runs cost 8 MiB.
        let mut runs: Vec<MarksIter<'_>> = points
            .windows(2)
            .map(|run| self.iter_from(run[0], run[1].count - run[0].count, 8 << 10))
            .collect();
        let mut heads = std::collections::BinaryHeap::new();
        for (run, marks) in runs.iter_mut().enumerate() {
            if let Some(mark) = marks.next() {
                heads.push(std::cmp::Reverse(Head(mark, run)));
            }
        }
        let mut merged = MarksWriter::new();
        while let Some(std::cmp::Reverse(Head(mark, run))) = heads.pop() {
            merged.push(&mark)?;
            if let Some(next) = runs[run].next() {
                heads.push(std::cmp::Reverse(Head(next, run)));
            }
        }
        merged.finish()
    }
}

impl PartialEq for Marks {
    fn eq(&self, other: &Marks) -> bool {
        self.count == other.count && self.iter().eq(other.iter())
    }
}

impl Eq for Marks {}

impl std::fmt::Debug for Marks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a Marks {
    type Item = CaseMark;
    type IntoIter = MarksIter<'a>;

    fn into_iter(self) -> MarksIter<'a> {
        self.iter()
    }
}

/// A run's next mark, ordered by its golden case.
struct Head(CaseMark, usize);

impl PartialEq for Head {
    fn eq(&self, other: &Head) -> bool {
        self.0.case == other.0.case
    }
}

impl Eq for Head {}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Head) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head {
    fn cmp(&self, other: &Head) -> std::cmp::Ordering {
        self.0.case.cmp(&other.0.case)
    }
}

/// The marks of a [`Marks`], in order.
pub struct MarksIter<'a> {
    reader: Box<dyn Read + 'a>,
    left: usize,
}

impl Iterator for MarksIter<'_> {
    type Item = CaseMark;

    fn next(&mut self) -> Option<CaseMark> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(
            decode(&mut self.reader)
                .unwrap_or_else(|e| panic!("reading back the temporary file of case marks: {e}")),
        )
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for MarksIter<'_> {}

/// Reads a shared file from an offset, leaving its position alone.
struct ReadAt<'a> {
    file: &'a File,
    offset: u64,
}

impl Read for ReadAt<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = super::read_at(self.file, buf, self.offset)?;
        self.offset += n as u64;
        Ok(n)
    }
}

const HAS_LINE: u8 = 1 << 2;

fn encode(mark: &CaseMark, out: &mut Vec<u8>) {
    out.extend_from_slice(&mark.case.to_le_bytes());
    encode_text(Some(&mark.case_id), out);
    let status = match mark.status {
        CaseStatus::Matched => 0u8,
        CaseStatus::Mismatched => 1,
        CaseStatus::Missing => 2,
    };
    out.push(status | if mark.line.is_some() { HAS_LINE } else { 0 });
    if let Some(line) = mark.line {
        out.extend_from_slice(&line.to_le_bytes());
    }
    out.extend_from_slice(&mark.correct.to_le_bytes());
    out.extend_from_slice(&mark.points.to_le_bytes());
    // A case has at most one miss per column, and there are fewer than 256 columns.
    out.push(mark.misses.len() as u8);
    for miss in &mark.misses {
        out.push(miss.column.index() as u8);
        encode_text(Some(&miss.actual), out);
        encode_text(miss.expected.as_deref(), out);
        encode_text(miss.note.as_deref(), out);
    }
}

/// A text as its length plus one (0 for none) and its bytes.
fn encode_text(text: Option<&str>, out: &mut Vec<u8>) {
    match text {
        None => out.extend_from_slice(&0u32.to_le_bytes()),
        Some(text) => {
            out.extend_from_slice(&(text.len() as u32 + 1).to_le_bytes());
            out.extend_from_slice(text.as_bytes());
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

fn decode_text(reader: &mut dyn Read) -> io::Result<Option<String>> {
    let len = u32::from_le_bytes(bytes(reader)?);
    if len == 0 {
        return Ok(None);
    }
    let mut buf = vec![0; len as usize - 1];
    reader.read_exact(&mut buf)?;
    String::from_utf8(buf)
        .map(Some)
        .map_err(|_| corrupt("a text that is not UTF-8"))
}

fn decode(reader: &mut dyn Read) -> io::Result<CaseMark> {
    let case = u32::from_le_bytes(bytes(reader)?);
    let case_id = decode_text(reader)?.ok_or_else(|| corrupt("a mark without a case id"))?;
    let [flags] = bytes(reader)?;
    let status = match flags & 3 {
        0 => CaseStatus::Matched,
        1 => CaseStatus::Mismatched,
        2 => CaseStatus::Missing,
        _ => return Err(corrupt("an unknown case status")),
    };
    let line = if flags & HAS_LINE != 0 {
        Some(u64::from_le_bytes(bytes(reader)?))
    } else {
        None
    };
    let correct = u32::from_le_bytes(bytes(reader)?);
    let points = u64::from_le_bytes(bytes(reader)?);
    let [count] = bytes(reader)?;
    let mut misses = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let [column] = bytes(reader)?;
        let column = Column::at(column as usize).ok_or_else(|| corrupt("an unknown column"))?;
        let actual = decode_text(reader)?.ok_or_else(|| corrupt("a miss without a value"))?;
        misses.push(ColumnMiss {
            column,
            actual: actual.into(),
            expected: decode_text(reader)?.map(Into::into),
            note: decode_text(reader)?,
        });
    }
    Ok(CaseMark {
        case,
        case_id: case_id.into(),
        line,
        status,
        correct,
        points,
        misses,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(case: u32) -> CaseMark {
        match case % 3 {
            0 => CaseMark {
                case,
                case_id: format!("c-{case}").into(),
                line: Some(u64::from(case) * 7 + 2),
                status: CaseStatus::Matched,
                correct: 3,
                points: 1,
                misses: Vec::new(),
            },
            1 => CaseMark {
                case,
                case_id: format!("c-{case}").into(),
                line: None,
                status: CaseStatus::Missing,
                correct: 0,
                points: 0,
                misses: Vec::new(),
            },
            _ => CaseMark {
                case,
                case_id: format!("c-{case}").into(),
                line: Some(u64::MAX),
                status: CaseStatus::Mismatched,
                correct: 1,
                points: 2,
                misses: vec![
                    ColumnMiss {
                        column: Column::REASON,
                        actual: format!("späte {case}").into(),
                        expected: Some("".into()),
                        note: None,
                    },
                    ColumnMiss {
                        column: Column::DECISION,
                        actual: "".into(),
                        expected: None,
                        note: Some(format!("note {case}")),
                    },
                ],
            },
        }
    }

    #[test]
    fn marks_read_back_as_written_in_memory_and_spilled() {
        for count in [0u32, 1, 5, 20_000] {
            let marks: Vec<CaseMark> = (0..count).map(mark).collect();
            let mut writer = MarksWriter::new();
            for m in &marks {
                writer.push(m).unwrap();
            }
            let written = writer.finish().unwrap();
            assert_eq!(
                matches!(written.store, Store::File(_)),
                count == 20_000,
                "{count}"
            );
            assert_eq!(written.len(), marks.len());
            // Two readers at once, each from the start.
            let mut first = written.iter();
            let mut second = written.iter();
            for m in &marks {
                assert_eq!(first.next().as_ref(), Some(m));
                assert_eq!(second.next().as_ref(), Some(m));
            }
            assert_eq!(first.next(), None);
            assert_eq!(written.iter().collect::<Vec<_>>(), marks);
            assert_eq!(written, Marks::from_marks(&marks));
        }
    }

    #[test]
    fn runs_merge_into_case_order_in_memory_and_spilled() {
        for (count, runs) in [(0u32, 1usize), (10, 1), (10, 3), (20_000, 7), (20_000, 300)] {
            // Case i goes to run hash(i) % runs, as a split matrix's partitions hold them.
            let run_of = |case: u32| (case.wrapping_mul(2_654_435_761) >> 7) as usize % runs;
            let mut writer = MarksWriter::new();
            let mut points = vec![writer.point()];
            for run in 0..runs {
                for case in (0..count).filter(|&case| run_of(case) == run) {
                    writer.push(&mark(case)).unwrap();
                }
                points.push(writer.point());
            }
            let merged = writer.finish().unwrap().merge_runs(&points).unwrap();
            assert_eq!(merged.len(), count as usize);
            assert!(
                merged.iter().map(|m| m.case).eq(0..count),
                "{count} in {runs}"
            );
            assert_eq!(
                merged,
                Marks::from_marks(&(0..count).map(mark).collect::<Vec<_>>())
            );
        }
    }
}
