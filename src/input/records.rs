//! CSV records with their lines, as the csv crate reads them (RFC 4180 quoting, `\r`, `\n`
//! or `\r\n` ending a record, blank lines skipped, a leading UTF-8 BOM dropped), but faster
//! for the rows case files are made of.
//!
//! A record with no `"` before its end (a `\n`, a `\r` or the end of the input) cannot hold
//! quoting: its cells are simply the text between commas. Any other record is parsed by
//! `csv_core`, the csv crate's own parser, from where it starts. Both are exact; a property
//! test checks them against the csv crate on random inputs.

use std::io::{self, Read};

/// One record: its cells as byte ranges of `bytes`, and the line its first byte is on.
pub struct Record<'a> {
    /// The line (1-based, counting `\n`) of the record's first byte.
    pub line: u64,
    bytes: &'a [u8],
    bounds: &'a [(usize, usize)],
    ascii: bool,
    quoted: bool,
}

impl<'a> Record<'a> {
    /// How many cells it has.
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    /// Whether it has no cells (never: a record has at least one, perhaps empty).
    pub fn is_empty(&self) -> bool {
        self.bounds.is_empty()
    }

    /// Its cells in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        self.bounds
            .iter()
            .map(|&(start, end)| &self.bytes[start..end])
    }

    /// Every cell's bytes, back to back, and each cell's range in them.
    pub fn parts(&self) -> (&'a [u8], &'a [(usize, usize)]) {
        (self.bytes, self.bounds)
    }

    /// Whether every byte is ASCII (known for free for most records; `false` means "not
    /// known to be").
    pub fn is_ascii(&self) -> bool {
        self.ascii
    }

    /// Whether the record holds a `"` (and so was parsed by `csv_core`).
    pub fn is_quoted(&self) -> bool {
        self.quoted
    }
}

/// Reads [`Record`]s from a reader.
pub struct Records<R> {
    reader: R,
    /// Read but not yet consumed: `buf[pos..filled]`.
    buf: Vec<u8>,
    pos: usize,
    filled: usize,
    eof: bool,
    /// The line of `buf[pos]`.
    line: u64,
    /// Bytes consumed before `buf[0]`.
    consumed_before: u64,
    /// Whether a leading BOM may still need dropping.
    at_start: bool,
    bounds: Vec<(usize, usize)>,
    /// For records `csv_core` parses: the cells back to back, and where each ends.
    core: csv_core::Reader,
    out: Vec<u8>,
    ends: Vec<usize>,
    /// Whether a `"` was read.
    saw_quote: bool,
}

const BUFFER: usize = 1 << 16;

/// `0x80` in each byte of `word` below `limit` (at most `0x80`), and perhaps in some others
/// above such a byte (a borrow runs on), never in none: each marked byte is looked at.
#[inline(always)]
fn bytes_below(word: u64, limit: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    word.wrapping_sub(ONES * u64::from(limit)) & !word & (ONES * 0x80)
}

/// `0x80` in each byte of `word` that equals `byte`, `0` in the others: exact, since no byte's
/// sum carries into the next.
#[inline(always)]
fn equal_bytes(word: u64, byte: u8) -> u64 {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let diff = word ^ (u64::from(byte) * 0x0101_0101_0101_0101);
    !(((diff & LOW7) + LOW7) | diff | LOW7)
}

impl<R: Read> Records<R> {
    /// Records from the start of `reader`; with `at_file_start`, a leading BOM is dropped.
    pub fn new(reader: R, at_file_start: bool) -> Records<R> {
        let mut core = csv_core::Reader::new();
        // csv_core drops a BOM from the first input it is given, wherever that is; the BOM at
        // the file's start is dropped here instead, and a line end read first (skipped as a
        // blank line) makes csv_core's later input never "first".
        let _ = core.read_record(b"\n", &mut [0u8; 1], &mut [0usize; 1]);
        Records {
            reader,
            buf: vec![0; BUFFER],
            pos: 0,
            filled: 0,
            eof: false,
            line: 1,
            consumed_before: 0,
            at_start: at_file_start,
            bounds: Vec::new(),
            core,
            out: vec![0; 1024],
            ends: vec![0; 64],
            saw_quote: false,
        }
    }

    /// The byte offset (from where the reader started) of the next unread byte.
    pub fn offset(&self) -> u64 {
        self.consumed_before + self.pos as u64
    }

    /// The line of the next unread byte: 1 plus the line ends read.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// Whether a `"` has been read.
    pub fn saw_quote(&self) -> bool {
        self.saw_quote
    }

    /// Moves the unread bytes to the front and reads more after them; `false` at the end of
    /// the input.
    fn refill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.filled, 0);
            self.consumed_before += self.pos as u64;
            self.filled -= self.pos;
            self.pos = 0;
        }
        if self.filled == self.buf.len() {
            // A line longer than the buffer.
            self.buf.resize(self.buf.len() * 2, 0);
        }
        loop {
            match self.reader.read(&mut self.buf[self.filled..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.filled += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// The next record, or `None` at the end of the input.
    pub fn next_record(&mut self) -> io::Result<Option<Record<'_>>> {
        if self.at_start {
            while self.filled - self.pos < 3 && self.refill()? {}
            if self.buf[self.pos..self.filled].starts_with(b"\xEF\xBB\xBF") {
                self.pos += 3;
            }
            self.at_start = false;
        }
        // Skip blank lines, as csv_core does.
        loop {
            match self.buf[self.pos..self.filled].first() {
                Some(b'\n') => {
                    self.pos += 1;
                    self.line += 1;
                }
                Some(b'\r') => self.pos += 1,
                Some(_) => break,
                None => {
                    if !self.refill()? {
                        return Ok(None);
                    }
                }
            }
        }
        // One pass over the record's bytes for its commas, up to its end: `\n`, `\r` or the
        // end of the input (each ends a record for csv_core too), unless a `"` comes first.
        let line = self.line;
        self.bounds.clear();
        let mut cell_start = 0;
        // Offsets from `pos`, which stay valid when `refill` moves the bytes.
        let mut at = 0;
        // Every byte scanned, or-ed together: its high bit says whether any is not ASCII.
        let mut high = 0u64;
        let stop = 'scan: loop {
            let bytes = &self.buf[self.pos..self.filled];
            // Eight bytes at a time: a mask of the bytes that matter, then each of them.
            while let Some(chunk) = bytes.get(at..at + 8) {
                let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
                high |= word;
                // `\n`, `\r` and `"` are all below `#`: one test finds them, and a few others
                // (spaces), which are looked at and passed over.
                let mut marks = equal_bytes(word, b',') | bytes_below(word, b'#');
                while marks != 0 {
                    let index = at + (marks.trailing_zeros() / 8) as usize;
                    match bytes[index] {
                        b',' => {
                            self.bounds.push((cell_start, index));
                            cell_start = index + 1;
                        }
                        stop @ (b'\n' | b'\r' | b'"') => {
                            at = index;
                            break 'scan Some(stop);
                        }
                        _ => {}
                    }
                    marks &= marks - 1;
                }
                at += 8;
            }
            while at < bytes.len() {
                high |= u64::from(bytes[at]);
                match bytes[at] {
                    b',' => {
                        self.bounds.push((cell_start, at));
                        cell_start = at + 1;
                    }
                    b'\n' | b'\r' | b'"' => break,
                    _ => {}
                }
                at += 1;
            }
            if at < bytes.len() {
                break Some(bytes[at]);
            }
            if !self.refill()? {
                break None;
            }
        };
        if stop == Some(b'"') {
            self.saw_quote = true;
            return self.core_record(line);
        }
        self.bounds.push((cell_start, at));
        let start = self.pos;
        self.pos += at;
        if stop.is_some() {
            // Past the `\n` or `\r` (a `\n` after a `\r` is skipped next, as a blank line).
            self.pos += 1;
            if stop == Some(b'\n') {
                self.line += 1;
            }
        }
        Ok(Some(Record {
            line,
            bytes: &self.buf[start..start + at],
            bounds: &self.bounds,
            ascii: high & 0x8080_8080_8080_8080 == 0,
            quoted: false,
        }))
    }

    /// Parses the record at `pos` with `csv_core`, reading more as it needs.
    fn core_record(&mut self, line: u64) -> io::Result<Option<Record<'_>>> {
        use csv_core::ReadRecordResult as Core;
        let (mut nout, mut nend) = (0, 0);
        loop {
            let input = &self.buf[self.pos..self.filled];
            let (result, nin, out, end) =
                self.core
                    .read_record(input, &mut self.out[nout..], &mut self.ends[nend..]);
            self.line += memchr::memchr_iter(b'\n', &input[..nin]).count() as u64;
            self.pos += nin;
            nout += out;
            nend += end;
            match result {
                // Read more; at the end of the input, the next (empty) read ends the record.
                Core::InputEmpty => {
                    self.refill()?;
                }
                Core::OutputFull => self.out.resize(self.out.len() * 2, 0),
                Core::OutputEndsFull => self.ends.resize(self.ends.len() * 2, 0),
                Core::Record => break,
                Core::End => return Ok(None),
            }
        }
        self.bounds.clear();
        let mut cell_start = 0;
        for &cell_end in &self.ends[..nend] {
            self.bounds.push((cell_start, cell_end));
            cell_start = cell_end;
        }
        Ok(Some(Record {
            line,
            bytes: &self.out[..nout],
            bounds: &self.bounds,
            ascii: false,
            quoted: true,
        }))
    }
}
