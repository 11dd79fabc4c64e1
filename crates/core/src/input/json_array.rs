//! Reading a JSON document element by element from any reader, never holding the document:
//! the bytes serde_json's parser takes, counted into lines (so each element is located by the
//! line it opens on), checked as UTF-8, and bounded per element.
//!
//! serde_json's parser reads through [`TrackedReader`] a byte at a time and looks at most one
//! byte ahead. When a sequence's element begins, that byte is the element's first (whitespace
//! and the comma before it are already read), so the lines read so far locate the element.

use std::cell::Cell;
use std::fmt;
use std::io::{self, Read};
use std::marker::PhantomData;

use serde::de::{DeserializeSeed, Deserializer};
use serde_json::value::RawValue;

/// Why reading stopped with an error of [`TrackedReader`]'s own (serde_json only passes it
/// on): what the caller reports, located.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The byte at this line is not valid UTF-8 (JSON text is UTF-8).
    InvalidUtf8 {
        /// The line of the first byte that is not.
        line: u64,
    },
    /// An element longer than its [`Limit`].
    TooLong {
        /// The line the element opens on.
        line: u64,
        /// The limit it broke.
        limit: Limit,
    },
}

/// How much of the input one element may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// A row or a matrix case: [`crate::limits::MAX_RECORD_BYTES`], as a CSV record or an
    /// NDJSON line.
    Record,
    /// A case of `{"cases": [...]}`, read whole to find its `case_id` wherever it is among its
    /// keys: [`crate::limits::MAX_DOCUMENT_BYTES`], what a whole file could hold before.
    Case,
}

impl Limit {
    fn bytes(self) -> u64 {
        match self {
            Limit::Record => crate::limits::MAX_RECORD_BYTES as u64,
            Limit::Case => crate::limits::MAX_DOCUMENT_BYTES,
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Record => write!(f, "{}", crate::limits::record_too_long()),
            Limit::Case => write!(
                f,
                "a case longer than {} bytes (256 MiB), the most one case of {{\"cases\": [...]}} \
                 may hold (an array of rows has no such limit)",
                crate::limits::MAX_DOCUMENT_BYTES
            ),
        }
    }
}

/// Where reading is, shared by the reader (which serde_json owns while it parses) and the
/// visitors that hand elements on.
#[derive(Debug)]
pub struct Tracker {
    /// 1 plus the line ends read.
    line: Cell<u64>,
    /// The bytes read (after a byte-order mark).
    offset: Cell<u64>,
    /// The offset past which reading fails, and the element's line and limit.
    bound: Cell<Option<(u64, u64, Limit)>>,
    /// Whether the line of the next byte that is not whitespace is wanted.
    watching: Cell<bool>,
    /// The line of the first byte that was not whitespace since [`Tracker::watch`].
    token_line: Cell<Option<u64>>,
    /// The offsets where the line of the last byte read starts, and the line before it.
    line_starts: Cell<(u64, u64)>,
    failure: Cell<Option<Failure>>,
    /// [`Tracker::last_byte`] when a value first failed to parse (see [`Noted`]).
    error_at: Cell<Option<(u64, u64)>>,
}

impl Default for Tracker {
    fn default() -> Tracker {
        Tracker::new()
    }
}

impl Tracker {
    /// At the start of the input, watching for its first token.
    pub fn new() -> Tracker {
        Tracker {
            line: Cell::new(1),
            offset: Cell::new(0),
            bound: Cell::new(None),
            watching: Cell::new(true),
            token_line: Cell::new(None),
            line_starts: Cell::new((0, 0)),
            failure: Cell::new(None),
            error_at: Cell::new(None),
        }
    }

    /// The line of the last byte read: inside a sequence, at an element's start, the line the
    /// element opens on.
    pub(crate) fn line(&self) -> u64 {
        self.line.get()
    }

    /// Watches for the next byte read that is not whitespace (the start of the value about to
    /// be parsed, when no byte is looked ahead at).
    pub(crate) fn watch(&self) {
        self.watching.set(true);
        self.token_line.set(None);
    }

    /// The line of the first token read since [`Tracker::watch`] (or the start).
    pub(crate) fn token_line(&self) -> u64 {
        self.token_line.get().unwrap_or(self.line.get())
    }

    /// The line and column (bytes before it on its line) of the last byte read.
    pub(crate) fn last_byte(&self) -> (u64, u64) {
        let (before, start) = self.line_starts.get();
        let offset = self.offset.get();
        if offset > 0 && offset == start {
            // A line end: the last byte of the line before.
            (self.line.get() - 1, offset - 1 - before)
        } else {
            (self.line.get(), offset.saturating_sub(1) - start)
        }
    }

    /// Where the parser was when a value first failed ([`Noted`]), else
    /// [`Tracker::last_byte`]: the byte that broke the syntax, for an error found in a byte
    /// (a control character in a string) rather than looked ahead at.
    pub(crate) fn error_at(&self) -> (u64, u64) {
        self.error_at.get().unwrap_or_else(|| self.last_byte())
    }

    /// Why the reader failed, if it did (taken: asked once).
    pub fn failure(&self) -> Option<Failure> {
        self.failure.take()
    }

    /// Runs `read`, which reads the value whose first byte was just looked at, failing once
    /// the value is longer than `limit`; returns the line it opens on and what `read` gives.
    pub(crate) fn limited<T>(&self, limit: Limit, read: impl FnOnce() -> T) -> (u64, T) {
        let line = self.line();
        // Its first byte is read already.
        let start = self.offset.get().saturating_sub(1);
        self.bound.set(Some((start + limit.bytes(), line, limit)));
        let value = read();
        self.bound.set(None);
        (line, value)
    }
}

/// A seed that notes where the parser was when `S` failed: serde_json reads on to the end of
/// the enclosing array or object (whitespace and a byte) before the error reaches the caller.
pub(crate) struct Noted<'t, S>(pub &'t Tracker, pub S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Noted<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        let Noted(tracker, seed) = self;
        let value = seed.deserialize(deserializer);
        if value.is_err() && tracker.error_at.get().is_none() {
            tracker.error_at.set(Some(tracker.last_byte()));
        }
        value
    }
}

/// A [`DeserializeSeed`] for one element of a sequence: its line and its text, as written
/// (numbers verbatim, keys given twice kept), at most `limit` long.
pub struct Element<'t> {
    /// Where reading is.
    pub tracker: &'t Tracker,
    /// How long it may be.
    pub limit: Limit,
}

impl<'de> DeserializeSeed<'de> for Element<'_> {
    type Value = (u64, Box<RawValue>);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        let (line, raw) = self.tracker.limited(self.limit, || {
            Noted(self.tracker, PhantomData::<Box<RawValue>>).deserialize(deserializer)
        });
        Ok((line, raw?))
    }
}

/// The bytes of `inner` for serde_json's parser, which reads a byte at a time: buffered,
/// a leading byte-order mark dropped, checked as UTF-8 ahead of the parser, counted into
/// lines, and bounded per element (see [`Tracker`]).
pub struct TrackedReader<'t, R> {
    inner: R,
    buf: Box<[u8]>,
    pos: usize,
    filled: usize,
    /// `buf[..checked]` is valid UTF-8 (or read past already).
    checked: usize,
    /// `buf[checked]` starts a sequence that is not UTF-8.
    invalid: bool,
    eof: bool,
    at_start: bool,
    tracker: &'t Tracker,
}

impl<'t, R: Read> TrackedReader<'t, R> {
    /// Reads `inner` from its start, telling `tracker` where it is.
    pub fn new(inner: R, tracker: &'t Tracker) -> TrackedReader<'t, R> {
        TrackedReader {
            inner,
            buf: vec![0; 1 << 16].into_boxed_slice(),
            pos: 0,
            filled: 0,
            checked: 0,
            invalid: false,
            eof: false,
            at_start: true,
            tracker,
        }
    }

    /// Makes checked bytes available; `false` at the end of the input.
    fn fill(&mut self) -> io::Result<bool> {
        loop {
            if self.invalid {
                self.tracker.failure.set(Some(Failure::InvalidUtf8 {
                    line: self.tracker.line(),
                }));
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "not valid UTF-8",
                ));
            }
            if self.eof {
                if self.checked < self.filled {
                    // A sequence cut short by the end of the input.
                    self.invalid = true;
                    continue;
                }
                return Ok(false);
            }
            // The unread bytes (an incomplete sequence at most) to the front.
            self.buf.copy_within(self.pos..self.filled, 0);
            self.filled -= self.pos;
            self.checked -= self.pos;
            self.pos = 0;
            let n = super::read_some(&mut self.inner, &mut self.buf[self.filled..])?;
            if n == 0 {
                self.eof = true;
                continue;
            }
            self.filled += n;
            if self.at_start {
                if self.filled < 3 && b"\xEF\xBB\xBF".starts_with(&self.buf[..self.filled]) {
                    continue; // Perhaps a byte-order mark: read on to know.
                }
                self.at_start = false;
                if self.buf[..self.filled].starts_with(b"\xEF\xBB\xBF") {
                    self.pos = 3;
                    self.checked = 3;
                }
            }
            match std::str::from_utf8(&self.buf[self.checked..self.filled]) {
                Ok(_) => self.checked = self.filled,
                Err(e) => {
                    self.checked += e.valid_up_to();
                    self.invalid = e.error_len().is_some();
                }
            }
            if self.checked > self.pos {
                return Ok(true);
            }
        }
    }
}

impl<R: Read> Read for TrackedReader<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.checked && !self.fill()? {
            return Ok(0);
        }
        let n = out.len().min(self.checked - self.pos);
        let bytes = &self.buf[self.pos..self.pos + n];
        let tracker = self.tracker;
        let mut line = tracker.line.get();
        let at = tracker.offset.get();
        for (i, &byte) in bytes.iter().enumerate() {
            // A `:` is passed over too: the value of a key is watched for before its `:`.
            if tracker.watching.get() && !matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | b':') {
                tracker.watching.set(false);
                tracker.token_line.set(Some(line));
            }
            if byte == b'\n' {
                line += 1;
                let (_, start) = tracker.line_starts.get();
                tracker.line_starts.set((start, at + i as u64 + 1));
            }
        }
        tracker.line.set(line);
        let offset = at + n as u64;
        tracker.offset.set(offset);
        if let Some((end, line, limit)) = tracker.bound.get() {
            if offset > end {
                tracker.failure.set(Some(Failure::TooLong { line, limit }));
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    limit.to_string(),
                ));
            }
        }
        out[..n].copy_from_slice(bytes);
        self.pos += n;
        Ok(n)
    }
}
