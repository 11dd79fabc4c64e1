//! A matrix's rows split by case-id hash into partitions, each spilled to the store's
//! temporary file (one for all of them) once it outgrows its buffer, so that two matrices are
//! joined one partition at a time (a hash join, as out-of-core databases run one) in memory
//! that does not grow with them.
//!
//! Every matrix of one run is split by one [`Splitter`], so a case id lands in the same
//! partition of the golden file and of every submission. A partition holds its rows in file
//! order, each with its index in the whole file, so results merge back into file order.

use std::hash::BuildHasher;
use std::io::{self, BufReader, Read};

use super::columns::Column;
use crate::store::{corrupt, Get, Put, TempFile};

/// How many input bytes one partition is planned for: a loaded partition of a golden file
/// and one of a submission, graded on every column, stay within a few tens of megabytes.
pub const PART_INPUT_BYTES: u64 = 16 << 20;

/// The buffers of all of a matrix's partitions together: a matrix smaller than this never
/// touches the disk.
const BUFFER_BYTES: usize = 16 << 20;

/// Buffered bytes a matrix keeps in memory when it is sealed ([`Partitions::seal`]).
const SEALED_BYTES: usize = 1 << 20;

/// The smallest buffer a partition spills from.
const MIN_PART_BUFFER: usize = 16 << 10;

/// The buffer a partition is read back through.
const READ_BUFFER: usize = 64 << 10;

/// The most partitions a matrix is split into (each partition's buffer costs a little, even
/// when empty): up to 16 GiB of input, a partition is at most [`PART_INPUT_BYTES`].
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

/// One row as a partition returns it, borrowed from the partition's reader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRow<'a> {
    /// Its index among the matrix's rows, in file order.
    pub index: u64,
    /// The line it starts on.
    pub line: u64,
    /// A number its writer keeps with it: for a matrix's reader, how many errors it had
    /// listed before this row (where an error found later about it, a duplicated case id,
    /// goes among them); for `check`'s ids across files, the file.
    pub tag: u64,
    /// Its case id, trimmed.
    pub case_id: &'a str,
    /// Its kept cells, in column order.
    pub cells: &'a [(Column, &'a str)],
}

/// A matrix's rows, split into partitions.
#[derive(Debug)]
pub struct Partitions {
    splitter: Splitter,
    parts: Vec<Part>,
    /// Where every partition spills, a chunk at a time (one file, not one per partition: a
    /// class of submissions split a thousand ways must not run out of file handles).
    file: Option<TempFile>,
    /// How many bytes the file has.
    file_len: u64,
    rows: u64,
    buffer_limit: usize,
    /// The first failure to write a partition's file; reported when the rows are read.
    failed: Option<io::Error>,
}

/// One partition: its rows encoded, the older ones in chunks of the file.
#[derive(Debug, Default)]
struct Part {
    /// How many rows it has, and their case ids' and cells' bytes.
    rows: usize,
    text_bytes: usize,
    buf: Vec<u8>,
    /// Its chunks of the file, in order: (offset, length).
    chunks: Vec<(u64, u64)>,
}

impl Partitions {
    /// No rows yet.
    pub fn new(splitter: &Splitter) -> Partitions {
        let parts = splitter.parts();
        Partitions {
            splitter: splitter.clone(),
            parts: (0..parts).map(|_| Part::default()).collect(),
            file: None,
            file_len: 0,
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
    pub fn push(&mut self, case_id: &str, line: u64, tag: u64, cells: &[(Column, &str)]) {
        let index = self.rows;
        self.rows += 1;
        if self.failed.is_some() {
            // Nothing more is kept: reading the rows back reports the failure.
            return;
        }
        let which = self.splitter.part_of(case_id);
        let len = 4
            + 8 * 3
            + 4
            + case_id.len()
            + 1
            + cells
                .iter()
                .map(|(_, text)| 1 + 4 + text.len())
                .sum::<usize>();
        // A buffer never grows past its limit (a doubling Vec would hold up to twice it): it
        // is spilled before a row that would not fit.
        if self.parts[which].buf.len() + len > self.buffer_limit
            && !self.parts[which].buf.is_empty()
        {
            if let Err(e) = self.spill(which) {
                self.failed = Some(e);
            }
        }
        let part = &mut self.parts[which];
        part.rows += 1;
        part.text_bytes += case_id.len() + cells.iter().map(|(_, text)| text.len()).sum::<usize>();
        if part.buf.capacity() - part.buf.len() < len {
            // Doubling, but never past the limit: a small matrix takes little.
            let want = (part.buf.capacity() * 2)
                .max(MIN_PART_BUFFER)
                .min(self.buffer_limit)
                .max(part.buf.len() + len);
            part.buf.reserve_exact(want - part.buf.len());
        }
        let out = &mut part.buf;
        // The length first, so that a row is read back with one copy and no allocation.
        out.put_u32(u32::try_from(len - 4).expect("a row under 4 GiB"));
        out.put_u64(index);
        out.put_u64(line);
        out.put_u64(tag);
        // The lengths, then every text one after another: read back as one `str`, checked
        // once.
        put_len(out, case_id.len());
        out.put_u8(u8::try_from(cells.len()).expect("fewer than 256 columns"));
        for (column, text) in cells {
            out.put_u8(u8::try_from(column.index()).expect("fewer than 256 columns"));
            put_len(out, text.len());
        }
        out.put_raw(case_id.as_bytes());
        for (_, text) in cells {
            out.put_raw(text.as_bytes());
        }
    }

    /// Moves a partition's buffer to the end of the file (made on first use; anonymous, so
    /// it is gone when the process ends, however it ends).
    fn spill(&mut self, part: usize) -> io::Result<()> {
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(TempFile::new()?),
        };
        let part = &mut self.parts[part];
        file.append(&part.buf)?;
        let len = part.buf.len() as u64;
        part.chunks.push((self.file_len, len));
        self.file_len += len;
        part.buf.clear();
        Ok(())
    }

    /// How many rows partition `part` has, and how many bytes their case ids and cells.
    pub fn size(&self, part: usize) -> (usize, usize) {
        (self.parts[part].rows, self.parts[part].text_bytes)
    }

    /// Once every row is pushed: moves what the buffers hold to the partitions' files and
    /// frees them, unless it is little (a small matrix still never touches the disk), so that
    /// a join holds the one partition it loads rather than every partition's last rows.
    pub fn seal(&mut self) {
        let buffered: usize = self.parts.iter().map(|part| part.buf.len()).sum();
        if buffered <= SEALED_BYTES {
            return;
        }
        for part in 0..self.parts.len() {
            if !self.parts[part].buf.is_empty() && self.failed.is_none() {
                if let Err(e) = self.spill(part) {
                    self.failed = Some(e);
                }
            }
            self.parts[part].buf = Vec::new();
        }
    }

    /// Calls `each` with partition `part`'s rows, in file order.
    pub fn read(
        &self,
        part: usize,
        each: &mut dyn FnMut(StoredRow<'_>) -> io::Result<()>,
    ) -> io::Result<()> {
        if let Some(e) = &self.failed {
            return Err(io::Error::new(e.kind(), e.to_string()));
        }
        let part = &self.parts[part];
        let spilled: Box<dyn Read + '_> = match &self.file {
            Some(file) if !part.chunks.is_empty() => Box::new(BufReader::with_capacity(
                READ_BUFFER,
                file.extents(&part.chunks),
            )),
            _ => Box::new(io::empty()),
        };
        let mut reader = spilled.chain(&part.buf[..]);
        let mut record = Vec::new();
        while let Some(head) = reader.get_first()? {
            record.resize(u32::from_le_bytes(head) as usize, 0);
            reader.get_raw(&mut record)?;
            // On the stack, each row's own: no allocation per row.
            let mut cells = [(Column::CaseId, ""); Column::COUNT];
            each(decode(&record, &mut cells)?)?;
        }
        Ok(())
    }
}

/// A row from its record (what follows its length).
fn decode<'a>(
    mut record: &'a [u8],
    cells: &'a mut [(Column, &'a str); Column::COUNT],
) -> io::Result<StoredRow<'a>> {
    let index = record.get_u64()?;
    let line = record.get_u64()?;
    let tag = record.get_u64()?;
    let id_len = record.get_u32()? as usize;
    let count = usize::from(record.get_u8()?);
    if count > cells.len() {
        return Err(corrupt("more cells than columns"));
    }
    let mut ends = [0usize; Column::COUNT];
    let mut end = id_len;
    for (cell, cell_end) in cells[..count].iter_mut().zip(&mut ends) {
        cell.0 = Column::at(usize::from(record.get_u8()?))
            .ok_or_else(|| corrupt("an unknown column"))?;
        end += record.get_u32()? as usize;
        *cell_end = end;
    }
    let texts = std::str::from_utf8(record).map_err(|_| corrupt("a text that is not UTF-8"))?;
    let piece = |from: usize, to: usize| {
        texts
            .get(from..to)
            .ok_or_else(|| corrupt("a text that does not fit its row"))
    };
    let case_id = piece(0, id_len)?;
    let mut start = id_len;
    for (cell, &cell_end) in cells[..count].iter_mut().zip(&ends) {
        cell.1 = piece(start, cell_end)?;
        start = cell_end;
    }
    if start != texts.len() {
        return Err(corrupt("a row longer than its texts"));
    }
    Ok(StoredRow {
        index,
        line,
        tag,
        case_id,
        cells: &cells[..count],
    })
}

fn put_len(out: &mut Vec<u8>, len: usize) {
    out.put_u32(u32::try_from(len).expect("a cell under 4 GiB"));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row, owned: (index, line, errors before, case id, cells).
    type Owned = (u64, u64, u64, String, Vec<(Column, String)>);

    fn rows(partitions: &Partitions) -> Vec<Owned> {
        let mut all = Vec::new();
        for part in 0..partitions.parts() {
            let mut last = None;
            partitions
                .read(part, &mut |row| {
                    // File order within a partition.
                    assert!(last.is_none_or(|l| l < row.index));
                    last = Some(row.index);
                    let cells = row.cells.iter().map(|(c, t)| (*c, t.to_string()));
                    all.push((
                        row.index,
                        row.line,
                        row.tag,
                        row.case_id.to_owned(),
                        cells.collect(),
                    ));
                    Ok(())
                })
                .unwrap();
        }
        all.sort_by_key(|row| row.0);
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
                    vec![(Column::Decision, cell.as_str()), (Column::Reason, "")]
                } else {
                    Vec::new()
                };
                partitions.push(id, i as u64 + 2, i as u64 / 7, &cells);
            }
            assert_eq!(partitions.len(), 2000);
            let back = rows(&partitions);
            assert_eq!(back.len(), 2000);
            for (i, (index, line, errors_before, case_id, cells)) in back.iter().enumerate() {
                assert_eq!(*index, i as u64);
                assert_eq!(*line, i as u64 + 2);
                assert_eq!(*errors_before, i as u64 / 7);
                assert_eq!(case_id, &ids[i]);
                if i % 2 == 0 {
                    assert_eq!(
                        *cells,
                        vec![
                            (Column::Decision, format!("v{i}")),
                            (Column::Reason, String::new())
                        ]
                    );
                } else {
                    assert!(cells.is_empty());
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
                partitions.push(&format!("c{i}"), i + 2, 0, &[(Column::Decision, &cell)]);
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
