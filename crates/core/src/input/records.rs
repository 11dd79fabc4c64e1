//! CSV records with their lines, as the csv crate reads them (RFC 4180 quoting, `\r`, `\n`
//! or `\r\n` ending a record, blank lines skipped, a leading UTF-8 BOM dropped), but faster
//! for the rows case files are made of. The delimiter is a comma unless set otherwise
//! ([`RecordReader::set_delimiter`], after [`RecordReader::peek_line`] has shown the header).
//!
//! One pass finds a record's cells in the buffer it was read into: the text between
//! delimiters, and a cell that opens with a `"` as far as its closing quote (doubled quotes
//! inside are made one in place, after the pass). A record this does not cover (a `"` inside
//! an unquoted cell, text after a closing quote, a quoted cell the input ends in) is parsed by
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
    unterminated: bool,
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

    /// The bytes the cells are in, and each cell's range in them. Bytes outside every range
    /// are not text (delimiters, quotes, what was left after doubled quotes were made one),
    /// and may not even be valid UTF-8 when every cell is.
    pub fn parts(&self) -> (&'a [u8], &'a [(usize, usize)]) {
        (self.bytes, self.bounds)
    }

    /// Whether every byte is ASCII (known for free for most records; `false` means "not
    /// known to be").
    pub fn is_ascii(&self) -> bool {
        self.ascii
    }

    /// Whether the input ended inside a quoted cell (the csv crate would take the rest of the
    /// file as that cell; readers report it instead).
    pub fn is_unterminated(&self) -> bool {
        self.unterminated
    }

    /// Its cells as text when every cell is valid UTF-8 (one check for the whole record, none
    /// when its bytes are known to be ASCII), `None` when one is not: the caller's slow path
    /// says which.
    #[inline]
    pub fn texts(&self) -> Option<RecordTexts<'a>> {
        if !self.ascii {
            let all = std::str::from_utf8(self.bytes).ok()?;
            // A cell cut inside a character is not valid UTF-8, though the record is.
            if !self
                .bounds
                .iter()
                .all(|&(start, end)| all.is_char_boundary(start) && all.is_char_boundary(end))
            {
                return None;
            }
        }
        Some(RecordTexts {
            bytes: self.bytes,
            bounds: self.bounds,
        })
    }
}

/// A record's cells, every one known to be valid UTF-8 ([`Record::texts`]).
#[derive(Clone, Copy)]
pub struct RecordTexts<'a> {
    bytes: &'a [u8],
    bounds: &'a [(usize, usize)],
}

impl<'a> RecordTexts<'a> {
    /// The cell at `index` (a panic past the record's end, as a slice's).
    #[inline]
    pub fn get(&self, index: usize) -> &'a str {
        let (start, end) = self.bounds[index];
        // SAFETY: `Record::texts` made this only when the record's bytes are ASCII or valid
        // UTF-8 with both ends of every cell on character boundaries: every cell is valid
        // UTF-8. (Checked per cell, or sliced as a `str`, it cost a tenth of a golden file's
        // read.)
        unsafe { std::str::from_utf8_unchecked(&self.bytes[start..end]) }
    }

    /// How many cells.
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    /// Whether it has no cells (never, as [`Record::is_empty`]).
    pub fn is_empty(&self) -> bool {
        self.bounds.is_empty()
    }

    /// The cells in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a str> + '_ {
        (0..self.len()).map(|index| self.get(index))
    }
}

/// Reads [`Record`]s from a reader.
pub struct RecordReader<R> {
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
    core: Option<csv_core::Reader>,
    out: Vec<u8>,
    /// The cells of the record being read whose quotes were doubled inside (unescaped in
    /// place once the record is known to be read without csv_core).
    escaped: Vec<usize>,
    ends: Vec<usize>,
    /// The byte that separates cells.
    delimiter: u8,
    /// Whether the last line end consumed was a `\r`: a `\n` right after it ends no further
    /// line (lines end at `\n`, `\r\n` and a lone `\r`).
    after_cr: bool,
}

const BUFFER: usize = 1 << 16;

/// A quoted cell found in the buffer, as offsets from the record's start.
struct QuotedCell {
    /// Just after the opening quote.
    start: usize,
    /// At the closing quote.
    end: usize,
    /// Whether a doubled quote is inside.
    escaped: bool,
    /// Whether a line end is inside.
    line_ends: bool,
    /// Whether a byte inside is not ASCII (or perhaps one after the cell: `false` means
    /// "none is").
    high: bool,
}

/// Sets the cell `index` of `bounds`, growing it by one if it must.
#[inline(always)]
fn set_bound(bounds: &mut Vec<(usize, usize)>, index: usize, cell: (usize, usize)) {
    if index == bounds.len() {
        bounds.push(cell);
    } else {
        bounds[index] = cell;
    }
}

/// The bytes of a 16-byte chunk that matter, one bit per byte (bit `i`: byte `i`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ChunkMarks {
    /// The delimiters (named for the usual one).
    commas: u32,
    /// The bytes that end the fast scan of a record: `\n`, `\r` and `"`.
    stops: u32,
    /// The bytes that are not ASCII.
    high: u32,
}

/// [`ChunkMarks`] of `chunk` with SSE2 (part of every x86-64): a handful of instructions for
/// 16 bytes, where most bytes of a case file are looked at once and passed over.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn chunk_marks(chunk: &[u8; 16], delimiter: u8) -> ChunkMarks {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is enabled on every x86-64 target; the unaligned load reads exactly the
    // 16 bytes of `chunk`.
    unsafe {
        let bytes = _mm_loadu_si128(chunk.as_ptr().cast());
        let equal = |byte: u8| _mm_cmpeq_epi8(bytes, _mm_set1_epi8(byte as i8));
        let stops = _mm_or_si128(_mm_or_si128(equal(b'\n'), equal(b'\r')), equal(b'"'));
        ChunkMarks {
            commas: _mm_movemask_epi8(equal(delimiter)) as u32,
            stops: _mm_movemask_epi8(stops) as u32,
            high: _mm_movemask_epi8(bytes) as u32,
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
use chunk_marks_portable as chunk_marks;

/// [`ChunkMarks`] of `chunk`, a byte at a time: the definition the SSE2 version is tested
/// against, and the version used elsewhere.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn chunk_marks_portable(chunk: &[u8; 16], delimiter: u8) -> ChunkMarks {
    let mut marks = ChunkMarks {
        commas: 0,
        stops: 0,
        high: 0,
    };
    for (i, &byte) in chunk.iter().enumerate() {
        marks.commas |= u32::from(byte == delimiter) << i;
        marks.stops |= u32::from(matches!(byte, b'\n' | b'\r' | b'"')) << i;
        marks.high |= u32::from(!byte.is_ascii()) << i;
    }
    marks
}

impl<R: Read> RecordReader<R> {
    /// Records from the start of `reader`; with `at_file_start`, a leading BOM is dropped.
    pub fn new(reader: R, at_file_start: bool) -> RecordReader<R> {
        RecordReader {
            reader,
            buf: vec![0; BUFFER],
            pos: 0,
            filled: 0,
            eof: false,
            line: 1,
            consumed_before: 0,
            at_start: at_file_start,
            bounds: Vec::new(),
            core: None,
            out: vec![0; 1024],
            escaped: Vec::new(),
            ends: vec![0; 64],
            delimiter: b',',
            after_cr: false,
        }
    }

    /// Reads cells split by `delimiter` from here on (not `"`, `\n` or `\r`).
    pub fn set_delimiter(&mut self, delimiter: u8) {
        debug_assert!(!matches!(delimiter, b'"' | b'\n' | b'\r'));
        self.delimiter = delimiter;
        self.core = None;
    }

    /// The next record's first line, without consuming it (a leading BOM and blank lines are
    /// passed over): what a delimiter is detected from. `None` at the end of the input.
    pub fn peek_line(&mut self) -> io::Result<Option<&[u8]>> {
        if !self.skip_to_record()? {
            return Ok(None);
        }
        let mut searched = 0;
        loop {
            let bytes = &self.buf[self.pos..self.filled];
            if let Some(end) = memchr::memchr2(b'\n', b'\r', &bytes[searched..]) {
                let end = self.pos + searched + end;
                return Ok(Some(&self.buf[self.pos..end]));
            }
            searched = bytes.len();
            if !self.refill()? {
                return Ok(Some(&self.buf[self.pos..self.filled]));
            }
        }
    }

    /// Drops a BOM at the file's start and skips blank lines; `false` at the end of the input.
    fn skip_to_record(&mut self) -> io::Result<bool> {
        self.skip_blank_lines(u64::MAX)
    }

    /// Skips blank lines as [`RecordReader::next_record`] does, but none that starts at or after
    /// the byte offset `limit`: a reader that must know whether a record starts at some
    /// offset stops there, and then [`RecordReader::offset`] and [`RecordReader::line`] say where it is.
    pub fn skip_blank_lines_before(&mut self, limit: u64) -> io::Result<()> {
        self.skip_blank_lines(limit).map(drop)
    }

    /// [`RecordReader::skip_to_record`], stopping at `limit` (`true` there, unless the input ends).
    fn skip_blank_lines(&mut self, limit: u64) -> io::Result<bool> {
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
                Some(b'\n' | b'\r') if self.offset() >= limit => return Ok(true),
                Some(b'\n') => {
                    self.pos += 1;
                    if !self.after_cr {
                        self.line += 1;
                    }
                    self.after_cr = false;
                }
                Some(b'\r') => {
                    self.pos += 1;
                    self.line += 1;
                    self.after_cr = true;
                }
                Some(_) => return Ok(true),
                None => {
                    if !self.refill()? {
                        return Ok(false);
                    }
                }
            }
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
        // A line longer than the buffer may grow it, up to the longest record.
        if self.filled == self.buf.len() && self.filled >= crate::limits::MAX_RECORD_BYTES {
            return Err(crate::limits::record_too_long());
        }
        super::read_more(
            &mut self.reader,
            &mut self.buf,
            &mut self.filled,
            &mut self.eof,
        )
    }

    /// The next record, or `None` at the end of the input.
    pub fn next_record(&mut self) -> io::Result<Option<Record<'_>>> {
        // Most records start right where the last one ended.
        let at_record = !self.at_start
            && self.buf[self.pos..self.filled]
                .first()
                .is_some_and(|byte| !matches!(byte, b'\n' | b'\r'));
        if !at_record && !self.skip_to_record()? {
            return Ok(None);
        }
        self.after_cr = false;
        let delimiter = self.delimiter;
        let line = self.line;
        // One pass over the record's bytes for its delimiters, up to its end: `\n`, `\r` or the
        // end of the input (each ends a record for csv_core too). A `"` that opens a cell is
        // read past to its closing quote and the pass goes on after it; any other `"` is
        // csv_core's (see below).
        // Cells are written at `count`, a local (pushing to `bounds` stored its length back
        // to memory on every comma), with room for a chunk's worth made before each chunk.
        let mut count = 0;
        let mut cell_start = 0;
        // Offsets from `pos`, which stay valid when `refill` moves the bytes.
        let mut at = 0;
        // Whether any byte scanned is not ASCII.
        let mut high = 0u32;
        // Whether a quoted cell holds a line end (then the record's lines are counted).
        let mut quoted_line_ends = false;
        self.escaped.clear();
        let stop = loop {
            let stop = 'scan: loop {
                let bytes = &self.buf[self.pos..self.filled];
                // Sixteen bytes at a time: the commas before the first stop, then the stop.
                while let Some(chunk) = bytes.get(at..at + 16) {
                    if self.bounds.len() < count + 16 {
                        self.bounds.resize(count + 16, (0, 0));
                    }
                    let marks = chunk_marks(chunk.try_into().expect("16 bytes"), delimiter);
                    high |= marks.high;
                    let first_stop = marks.stops.trailing_zeros();
                    let mut commas = marks.commas & (((1u64 << first_stop) - 1) as u32);
                    while commas != 0 {
                        let index = at + commas.trailing_zeros() as usize;
                        self.bounds[count] = (cell_start, index);
                        count += 1;
                        cell_start = index + 1;
                        commas &= commas - 1;
                    }
                    if marks.stops != 0 {
                        at += first_stop as usize;
                        break 'scan Some(bytes[at]);
                    }
                    at += 16;
                }
                while at < bytes.len() {
                    let byte = bytes[at];
                    high |= u32::from(!byte.is_ascii());
                    if byte == delimiter {
                        set_bound(&mut self.bounds, count, (cell_start, at));
                        count += 1;
                        cell_start = at + 1;
                    } else if matches!(byte, b'\n' | b'\r' | b'"') {
                        break 'scan Some(byte);
                    }
                    at += 1;
                }
                if !self.refill()? {
                    break None;
                }
            };
            if stop != Some(b'"') {
                set_bound(&mut self.bounds, count, (cell_start, at));
                count += 1;
                break stop;
            }
            // A quote that opens a cell, in a record read whole within the buffer and going
            // on after the cell, is read here; anything else (a quote inside a cell, text
            // after a closing quote, a record that ends the input or is longer than the
            // buffer) is csv_core's, from the record's start (nothing is consumed or changed
            // until the record is known to be read here).
            let quoted = match at == cell_start {
                true => self.quoted_cell(at)?,
                false => None,
            };
            let Some(quoted) = quoted else {
                return self.core_record(line);
            };
            high |= u32::from(quoted.high);
            quoted_line_ends |= quoted.line_ends;
            if quoted.escaped {
                self.escaped.push(count);
            }
            set_bound(&mut self.bounds, count, (quoted.start, quoted.end));
            count += 1;
            at = quoted.end + 1;
            match self.buf[self.pos + at] {
                byte if byte == delimiter => {
                    at += 1;
                    cell_start = at;
                }
                byte @ (b'\n' | b'\r') => break Some(byte),
                _ => return self.core_record(line),
            }
        };
        if quoted_line_ends {
            // Lines end inside quotes too (`\r\n` once). The record's first byte ends none.
            let raw = &self.buf[self.pos..self.pos + at];
            for i in memchr::memchr2_iter(b'\n', b'\r', raw) {
                if raw[i] == b'\r' || raw[i - 1] != b'\r' {
                    self.line += 1;
                }
            }
        }
        // Doubled quotes become one, in place: the record is read, and a cell only shrinks.
        for &index in &self.escaped {
            let (start, end) = self.bounds[index];
            let cell = &mut self.buf[self.pos + start..self.pos + end];
            let (mut read, mut written) = (0, 0);
            while read < cell.len() {
                cell[written] = cell[read];
                read += if cell[read] == b'"' { 2 } else { 1 };
                written += 1;
            }
            self.bounds[index].1 = start + written;
        }
        let start = self.pos;
        self.pos += at;
        if stop.is_some() {
            // Past the `\n` or `\r` (a `\n` after a `\r` is skipped next, as a blank line,
            // ending no further line).
            self.pos += 1;
            self.line += 1;
            self.after_cr = stop == Some(b'\r');
        }
        Ok(Some(Record {
            line,
            bytes: &self.buf[start..start + at],
            bounds: &self.bounds[..count],
            ascii: high == 0,
            unterminated: false,
        }))
    }

    /// Reads more input without growing the buffer (which a long record would need): `false`
    /// when there is no room or no more input.
    fn more_in_buffer(&mut self) -> io::Result<bool> {
        if self.pos == 0 && self.filled == self.buf.len() {
            return Ok(false);
        }
        self.refill()
    }

    /// The quoted cell whose opening quote is at `open` (from `pos`), as far as its closing
    /// quote (a doubled quote inside is one quote, as csv_core reads it), with the byte after
    /// the closing quote read too; nothing is consumed. `None` if the input ends first or the
    /// buffer fills (csv_core then reads the record).
    fn quoted_cell(&mut self, open: usize) -> io::Result<Option<QuotedCell>> {
        let mut at = open + 1;
        let mut cell = QuotedCell {
            start: at,
            end: at,
            escaped: false,
            line_ends: false,
            high: false,
        };
        // One pass for the quotes, the line ends and the bytes that are not ASCII, sixteen
        // bytes at a time (the cells are short: a call to memchr for each cost more).
        loop {
            let bytes = &self.buf[self.pos..self.filled];
            let quote = 'scan: {
                while let Some(chunk) = bytes.get(at..at + 16) {
                    let marks = chunk_marks(chunk.try_into().expect("16 bytes"), self.delimiter);
                    let mut stops = marks.stops;
                    while stops != 0 {
                        let index = stops.trailing_zeros();
                        if chunk[index as usize] == b'"' {
                            cell.high |= marks.high & ((1u64 << index) - 1) as u32 != 0;
                            break 'scan Some(at + index as usize);
                        }
                        cell.line_ends = true;
                        stops &= stops - 1;
                    }
                    cell.high |= marks.high != 0;
                    at += 16;
                }
                while at < bytes.len() {
                    match bytes[at] {
                        b'"' => break 'scan Some(at),
                        b'\n' | b'\r' => cell.line_ends = true,
                        byte => cell.high |= !byte.is_ascii(),
                    }
                    at += 1;
                }
                None
            };
            let Some(quote) = quote else {
                if !self.more_in_buffer()? {
                    return Ok(None);
                }
                continue;
            };
            if self.pos + quote + 1 == self.filled && !self.more_in_buffer()? {
                return Ok(None);
            }
            if self.buf[self.pos + quote + 1] != b'"' {
                cell.end = quote;
                return Ok(Some(cell));
            }
            cell.escaped = true;
            at = quote + 2;
        }
    }

    /// Parses the record at `pos` with `csv_core`, reading more as it needs.
    fn core_record(&mut self, line: u64) -> io::Result<Option<Record<'_>>> {
        use csv_core::ReadRecordResult as Core;
        let (mut nout, mut nend) = (0, 0);
        let mut unterminated = false;
        let mut at_end = false;
        // Built at the first record that needs it: building csv_core's DFA takes tens of
        // microseconds, twice per file, which was most of the time of a run over 10,000 small
        // files, and most files never need it. csv_core drops a BOM from the first input it is
        // given, wherever that is; the BOM at the file's start is dropped by `skip_to_record`
        // instead, and a line end read first (skipped as a blank line) makes csv_core's later
        // input never "first".
        if self.core.is_none() {
            let mut core = csv_core::ReaderBuilder::new()
                .delimiter(self.delimiter)
                .build();
            let _ = core.read_record(b"\n", &mut [0u8; 1], &mut [0usize; 1]);
            self.core = Some(core);
        }
        'record: loop {
            let input = &self.buf[self.pos..self.filled];
            let (result, nin, out, end) = self.core.as_mut().expect("built above").read_record(
                input,
                &mut self.out[nout..],
                &mut self.ends[nend..],
            );
            let consumed = &input[..nin];
            for at in memchr::memchr2_iter(b'\n', b'\r', consumed) {
                let after_cr = match at {
                    0 => self.after_cr,
                    _ => consumed[at - 1] == b'\r',
                };
                if consumed[at] == b'\r' || !after_cr {
                    self.line += 1;
                }
            }
            if let Some(&last) = consumed.last() {
                self.after_cr = last == b'\r';
            }
            self.pos += nin;
            nout += out;
            nend += end;
            match result {
                // Read more; at the end of the input, the next (empty) read ends the record.
                Core::InputEmpty => {
                    if !self.refill()? && !at_end {
                        // The input ends inside this record, which csv_core would end here
                        // even inside quotes. A line end shows which: outside quotes it ends
                        // the record as the end of the input would; inside, it is taken as
                        // text (and dropped again below), and the next, empty read ends it.
                        at_end = true;
                        loop {
                            let (result, _, _, end) = self
                                .core
                                .as_mut()
                                .expect("built above")
                                .read_record(b"\n", &mut self.out[nout..], &mut self.ends[nend..]);
                            match result {
                                Core::OutputFull => self.out.resize(self.out.len() * 2, 0),
                                Core::OutputEndsFull => self.ends.resize(self.ends.len() * 2, 0),
                                Core::InputEmpty => {
                                    unterminated = true;
                                    break;
                                }
                                Core::Record | Core::End => {
                                    nend += end;
                                    break 'record;
                                }
                            }
                        }
                    }
                }
                Core::OutputFull | Core::OutputEndsFull
                    if nout >= crate::limits::MAX_RECORD_BYTES
                        || nend >= crate::limits::MAX_RECORD_BYTES =>
                {
                    return Err(crate::limits::record_too_long());
                }
                Core::OutputFull => self.out.resize(self.out.len() * 2, 0),
                Core::OutputEndsFull => self.ends.resize(self.ends.len() * 2, 0),
                Core::Record => break,
                Core::End => return Ok(None),
            }
        }
        if unterminated {
            // The probing line end, taken into the last cell, is not in the input.
            if let Some(last) = self.ends[..nend].last_mut() {
                *last = (*last).min(nout);
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
            unterminated,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_marks_match_the_byte_at_a_time_definition() {
        // Every byte value in every position, among the bytes that matter, from a fixed
        // pseudo-random sequence.
        let mut rng = crate::random::SplitMix64::new(0x9E37_79B9_7F4A_7C15);
        let mut next = || rng.next_u64();
        let special = [
            b',', b';', b'\t', b'\n', b'\r', b'"', b' ', b'a', 0x80, 0xFF, 0x7F, 0,
        ];
        for round in 0..20_000u32 {
            let mut chunk = [0u8; 16];
            for (i, byte) in chunk.iter_mut().enumerate() {
                let r = next();
                // The first 4096 rounds put every byte value in every position.
                *byte = if round < 4096 && i == round as usize % 16 {
                    (round / 16) as u8
                } else if r % 3 == 0 {
                    (r >> 8) as u8
                } else {
                    special[(r >> 8) as usize % special.len()]
                };
            }
            for delimiter in [b',', b';', b'\t'] {
                assert_eq!(
                    chunk_marks(&chunk, delimiter),
                    chunk_marks_portable(&chunk, delimiter),
                    "{chunk:?}"
                );
            }
        }
        let mut chunk = [b'x'; 16];
        chunk[0] = b',';
        chunk[5] = b'"';
        chunk[15] = 0xC3;
        let marks = chunk_marks(&chunk, b',');
        assert_eq!(
            (marks.commas, marks.stops, marks.high),
            (1, 1 << 5, 1 << 15)
        );
    }
}
