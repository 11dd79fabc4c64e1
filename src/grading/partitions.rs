//! A matrix's rows split by case-id hash into partitions, each spilled to an anonymous
//! temporary file once it outgrows its buffer, so that two matrices are joined one partition
//! at a time (a hash join, as out-of-core databases run one) in memory that does not grow
//! with them.
//!
//! Every matrix of one run is split by one [`Splitter`], so a case id lands in the same
//! partition of the golden file and of every submission. A partition holds its rows in file
//! order, each with its index in the whole file, so results merge back into file order.

use std::fs::File;
use std::hash::BuildHasher;
use std::io::{self, BufReader, Read, Write};

use super::columns::Column;

/// How many input bytes one partition is planned for: a loaded partition of a golden file
/// and one of a submission, graded on every column, stay within a few tens of megabytes.
pub const PART_INPUT_BYTES: u64 = 16 << 20;

/// The buffers of all of a matrix's partitions together: a matrix smaller than this never
/// touches the disk.
const BUFFER_BYTES: usize = 16 << 20;

/// Buffered bytes a matrix keeps in memory when it is sealed ([`Partitions::seal`]).
const SEALED_BYTES: usize = 1 << 20;

/// The smallest buffer a partition writes its file from.
const MIN_PART_BUFFER: usize = 64 << 10;

/// The most partitions a matrix is split into (a partition's buffer and its file each cost
/// a little, even when empty).
const MAX_PARTS: usize = 1024;

/// Which partition a case id goes to; shared by every matrix one run joins.
#[derive(Clone, Debug)]
pub struct Splitter {
    /// Seeded once per run: a learner cannot choose ids that all land in one partition.
    hasher: foldhash::fast::RandomState,
    parts: usize,
}

impl Splitter {
    /// A splitter for inputs of at most `bytes` bytes each.
    pub fn for_bytes(bytes: u64) -> Splitter {
        let parts = bytes.div_ceil(PART_INPUT_BYTES).clamp(1, MAX_PARTS as u64) as usize;
        Splitter::with_parts(parts)
    }

    /// A splitter into `parts` partitions (at least one).
    pub fn with_parts(parts: usize) -> Splitter {
        Splitter {
            hasher: foldhash::fast::RandomState::default(),
            parts: parts.clamp(1, MAX_PARTS),
        }
    }

    /// How many partitions it splits into.
    pub fn parts(&self) -> usize {
        self.parts
    }

    /// The partition of `case_id`.
    pub fn part_of(&self, case_id: &str) -> usize {
        // The hash's high bits scaled to the count: no division, and every bit counts.
        ((u128::from(self.hasher.hash_one(case_id)) * self.parts as u128) >> 64) as usize
    }
}

/// One row as a partition returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRow {
    /// Its index among the matrix's rows, in file order.
    pub index: u64,
    /// The line it starts on.
    pub line: u64,
    /// How many errors the file's reader had listed before this row: where an error found
    /// later about it (a duplicated case id) goes among them.
    pub errors_before: u64,
    /// Its case id, trimmed.
    pub case_id: String,
    /// Its kept cells, in column order.
    pub cells: Vec<(Column, String)>,
}

/// A matrix's rows, split into partitions.
#[derive(Debug)]
pub struct Partitions {
    splitter: Splitter,
    parts: Vec<Part>,
    rows: u64,
    buffer_limit: usize,
    /// The first failure to write a partition's file; reported when the rows are read.
    failed: Option<io::Error>,
}

/// One partition: its rows encoded, the older ones in its file.
#[derive(Debug, Default)]
struct Part {
    buf: Vec<u8>,
    file: Option<File>,
}

impl Partitions {
    /// No rows yet.
    pub fn new(splitter: &Splitter) -> Partitions {
        let parts = splitter.parts();
        Partitions {
            splitter: splitter.clone(),
            parts: (0..parts).map(|_| Part::default()).collect(),
            rows: 0,
            buffer_limit: (BUFFER_BYTES / parts).max(MIN_PART_BUFFER),
            failed: None,
        }
    }

    /// How many rows it holds.
    pub fn len(&self) -> u64 {
        self.rows
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// How many partitions there are.
    pub fn parts(&self) -> usize {
        self.parts.len()
    }

    /// The splitter its rows were split by.
    pub fn splitter(&self) -> &Splitter {
        &self.splitter
    }

    /// Adds the next row in file order. A failure to write its partition's file is kept and
    /// returned by [`Partitions::read`], so a reader need not stop for it.
    pub fn push(&mut self, case_id: &str, line: u64, errors_before: u64, cells: &[(Column, &str)]) {
        let index = self.rows;
        self.rows += 1;
        let part = &mut self.parts[self.splitter.part_of(case_id)];
        let out = &mut part.buf;
        out.extend_from_slice(&index.to_le_bytes());
        out.extend_from_slice(&line.to_le_bytes());
        out.extend_from_slice(&errors_before.to_le_bytes());
        put_text(out, case_id);
        out.push(u8::try_from(cells.len()).expect("fewer than 256 columns"));
        for (column, text) in cells {
            out.push(u8::try_from(column.index()).expect("fewer than 256 columns"));
            put_text(out, text);
        }
        if part.buf.len() >= self.buffer_limit && self.failed.is_none() {
            if let Err(e) = spill(part) {
                self.failed = Some(e);
            }
        }
    }

    /// Once every row is pushed: moves what the buffers hold to the partitions' files and
    /// frees them, unless it is little (a small matrix still never touches the disk), so that
    /// a join holds the one partition it loads rather than every partition's last rows.
    pub fn seal(&mut self) {
        let buffered: usize = self.parts.iter().map(|part| part.buf.len()).sum();
        if buffered <= SEALED_BYTES {
            return;
        }
        for part in &mut self.parts {
            if !part.buf.is_empty() && self.failed.is_none() {
                if let Err(e) = spill(part) {
                    self.failed = Some(e);
                }
            }
            part.buf = Vec::new();
        }
    }

    /// Calls `each` with partition `part`'s rows, in file order.
    pub fn read(
        &self,
        part: usize,
        each: &mut dyn FnMut(StoredRow) -> io::Result<()>,
    ) -> io::Result<()> {
        if let Some(e) = &self.failed {
            return Err(io::Error::new(e.kind(), e.to_string()));
        }
        let part = &self.parts[part];
        let spilled: Box<dyn Read + '_> = match &part.file {
            Some(file) => Box::new(BufReader::with_capacity(
                MIN_PART_BUFFER,
                ReadAt { file, offset: 0 },
            )),
            None => Box::new(io::empty()),
        };
        let mut reader = spilled.chain(&part.buf[..]);
        loop {
            let mut head = [0u8; 8];
            match reader.read(&mut head[..1])? {
                0 => return Ok(()),
                _ => reader.read_exact(&mut head[1..])?,
            }
            let index = u64::from_le_bytes(head);
            let line = u64::from_le_bytes(take(&mut reader)?);
            let errors_before = u64::from_le_bytes(take(&mut reader)?);
            let case_id = get_text(&mut reader)?;
            let [count] = take(&mut reader)?;
            let mut cells = Vec::with_capacity(usize::from(count));
            for _ in 0..count {
                let [column] = take(&mut reader)?;
                let column = Column::at(usize::from(column))
                    .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "a bad column"))?;
                cells.push((column, get_text(&mut reader)?));
            }
            each(StoredRow {
                index,
                line,
                errors_before,
                case_id,
                cells,
            })?;
        }
    }
}

/// Moves a partition's buffer to the end of its file (made on first use; anonymous, so it is
/// gone when the process ends, however it ends).
fn spill(part: &mut Part) -> io::Result<()> {
    let file = match &mut part.file {
        Some(file) => file,
        None => part.file.insert(tempfile::tempfile()?),
    };
    file.write_all(&part.buf)?;
    part.buf.clear();
    Ok(())
}

/// Reads a shared file from an offset, leaving its position alone: a partition is read while
/// others may be read too.
struct ReadAt<'a> {
    file: &'a File,
    offset: u64,
}

impl Read for ReadAt<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        #[cfg(unix)]
        let n = std::os::unix::fs::FileExt::read_at(self.file, buf, self.offset)?;
        #[cfg(windows)]
        let n = std::os::windows::fs::FileExt::seek_read(self.file, buf, self.offset)?;
        self.offset += n as u64;
        Ok(n)
    }
}

fn put_text(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(
        &u32::try_from(text.len())
            .expect("a cell under 4 GiB")
            .to_le_bytes(),
    );
    out.extend_from_slice(text.as_bytes());
}

fn take<const N: usize>(reader: &mut dyn Read) -> io::Result<[u8; N]> {
    let mut buf = [0; N];
    reader.read_exact(&mut buf)?;
    Ok(buf)
}

fn get_text(reader: &mut dyn Read) -> io::Result<String> {
    let len = u32::from_le_bytes(take(reader)?) as usize;
    let mut buf = vec![0; len];
    reader.read_exact(&mut buf)?;
    String::from_utf8(buf)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "a text that is not UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(partitions: &Partitions) -> Vec<StoredRow> {
        let mut all = Vec::new();
        for part in 0..partitions.parts() {
            let mut last = None;
            partitions
                .read(part, &mut |row| {
                    // File order within a partition.
                    assert!(last.is_none_or(|l| l < row.index));
                    last = Some(row.index);
                    all.push(row);
                    Ok(())
                })
                .unwrap();
        }
        all.sort_by_key(|row| row.index);
        all
    }

    #[test]
    fn every_row_comes_back_once_in_its_ids_partition_spilled_or_not() {
        for parts in [1, 3, 64] {
            let splitter = Splitter::with_parts(parts);
            let mut partitions = Partitions::new(&splitter);
            // Small buffers: most rows go through the files.
            partitions.buffer_limit = 100;
            let ids: Vec<String> = (0..2000).map(|i| format!("c-{}", i % 1500)).collect();
            for (i, id) in ids.iter().enumerate() {
                let cell = format!("v{i}");
                let cells: Vec<(Column, &str)> = if i % 2 == 0 {
                    vec![(Column::DECISION, cell.as_str()), (Column::REASON, "")]
                } else {
                    Vec::new()
                };
                partitions.push(id, i as u64 + 2, i as u64 / 7, &cells);
            }
            assert_eq!(partitions.len(), 2000);
            let back = rows(&partitions);
            assert_eq!(back.len(), 2000);
            for (i, row) in back.iter().enumerate() {
                assert_eq!(row.index, i as u64);
                assert_eq!(row.line, i as u64 + 2);
                assert_eq!(row.errors_before, i as u64 / 7);
                assert_eq!(row.case_id, ids[i]);
                if i % 2 == 0 {
                    assert_eq!(
                        row.cells,
                        vec![
                            (Column::DECISION, format!("v{i}")),
                            (Column::REASON, String::new())
                        ]
                    );
                } else {
                    assert!(row.cells.is_empty());
                }
            }
            // One id, one partition, in every matrix split by the same splitter.
            for id in &ids {
                assert_eq!(splitter.part_of(id), splitter.part_of(&id.clone()));
            }
            // Read again: a partition is read as often as a class has submissions.
            assert_eq!(rows(&partitions), back);
        }
    }

    #[test]
    fn a_sealed_matrix_reads_back_the_same_from_its_files() {
        for count in [100u64, 40_000] {
            let splitter = Splitter::with_parts(5);
            let mut partitions = Partitions::new(&splitter);
            let cell = "x".repeat(40);
            for i in 0..count {
                partitions.push(&format!("c{i}"), i + 2, 0, &[(Column::DECISION, &cell)]);
            }
            let before = rows(&partitions);
            partitions.seal();
            let buffered: usize = partitions.parts.iter().map(|p| p.buf.capacity()).sum();
            // A small matrix stays in memory; a large one keeps no buffer.
            assert_eq!(buffered == 0, count == 40_000, "{count}");
            assert_eq!(rows(&partitions), before);
            assert_eq!(before.len() as u64, count);
        }
    }

    #[test]
    fn partitions_are_planned_from_the_input_size() {
        assert_eq!(Splitter::for_bytes(0).parts(), 1);
        assert_eq!(Splitter::for_bytes(PART_INPUT_BYTES).parts(), 1);
        assert_eq!(Splitter::for_bytes(PART_INPUT_BYTES + 1).parts(), 2);
        assert_eq!(Splitter::for_bytes(u64::MAX).parts(), MAX_PARTS);
        let splitter = Splitter::with_parts(8);
        let mut counts = [0usize; 8];
        for i in 0..8000 {
            counts[splitter.part_of(&format!("c9-{i:06}"))] += 1;
        }
        // Short sequential ids spread out.
        assert!(
            counts.iter().all(|&c| (700..1300).contains(&c)),
            "{counts:?}"
        );
    }
}
