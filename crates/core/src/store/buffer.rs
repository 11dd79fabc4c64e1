//! Bytes kept in memory up to a cap, then appended to a [`TempFile`] ([`SpillBuffer`]), and
//! read back from wherever they ended up ([`Spilled`]): a small list never makes a file.

use std::io::{self, BufReader, Read};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::file::TempFile;

/// The most bytes finished buffers keep in memory, all of them together; past it, a finished
/// buffer's bytes go to one temporary file that all share. Each buffer alone stays in memory
/// up to its own cap, but a class of 100,000 submissions kept each one's marks (40 KB) in
/// memory: 4 GB.
const MAX_HELD_BYTES: usize = 32 << 20;

/// The bytes finished buffers keep in memory now.
static HELD_BYTES: AtomicUsize = AtomicUsize::new(0);

/// The temporary file of the buffers finished past [`MAX_HELD_BYTES`], and its length.
static SHARED: Mutex<Option<(TempFile, u64)>> = Mutex::new(None);

/// Appends `bytes` to the shared file (made at the first): the file and where they start.
fn append_shared(bytes: &[u8]) -> io::Result<(TempFile, u64)> {
    let mut shared = SHARED.lock().map_err(|_| {
        io::Error::other("the shared temporary file was held by a thread that panicked")
    })?;
    let (file, len) = match &mut *shared {
        Some(shared) => shared,
        None => shared.insert((TempFile::new()?, 0)),
    };
    file.append(bytes)?;
    let start = *len;
    *len += bytes.len() as u64;
    Ok((file.clone(), start))
}

/// Bytes a finished buffer keeps in memory, counted in `HELD_BYTES` while they are.
pub struct Held(Box<[u8]>);

impl Held {
    fn new(bytes: Vec<u8>) -> Held {
        HELD_BYTES.fetch_add(bytes.len(), Ordering::Relaxed);
        Held(bytes.into_boxed_slice())
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        HELD_BYTES.fetch_sub(self.0.len(), Ordering::Relaxed);
    }
}

/// Encoded records being written: in memory until `spill_at` bytes wait, then appended to an
/// anonymous temporary file (made at the first spill).
pub struct SpillBuffer {
    buf: Vec<u8>,
    file: Option<TempFile>,
    /// Bytes already in the file.
    spilled: u64,
    spill_at: usize,
}

impl SpillBuffer {
    /// Nothing written; bytes go to the file past `spill_at` of them.
    pub fn new(spill_at: usize) -> SpillBuffer {
        SpillBuffer {
            buf: Vec::new(),
            file: None,
            spilled: 0,
            spill_at,
        }
    }

    /// Nothing written; bytes go to `file` once `spill_at` of them wait, through a buffer of
    /// `capacity` bytes made up front (so that it keeps to one allocation of that size).
    pub(crate) fn to_file(file: TempFile, capacity: usize, spill_at: usize) -> SpillBuffer {
        SpillBuffer {
            buf: Vec::with_capacity(capacity),
            file: Some(file),
            spilled: 0,
            spill_at,
        }
    }

    /// Where the next record's bytes are appended.
    pub fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// How many bytes were written in all.
    pub fn written(&self) -> u64 {
        self.spilled + self.buf.len() as u64
    }

    /// Moves the bytes waiting to the file if there are enough of them.
    pub fn spill_if_full(&mut self) -> io::Result<()> {
        if self.buf.len() >= self.spill_at {
            self.spill()?;
        }
        Ok(())
    }

    /// Moves the bytes waiting to the file (made if there is none yet).
    pub(crate) fn spill(&mut self) -> io::Result<()> {
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(TempFile::new()?),
        };
        file.append(&self.buf)?;
        self.spilled += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }

    /// Every byte written, ready to be read back: in memory if they were never spilled and
    /// memory holds few enough of other buffers' (`MAX_HELD_BYTES`), else in a file.
    pub fn finish(mut self) -> io::Result<Spilled> {
        Ok(if self.file.is_some() {
            self.spill()?;
            Spilled::File(self.file.take().expect("made by spill"))
        } else if HELD_BYTES.load(Ordering::Relaxed) + self.buf.len() > MAX_HELD_BYTES {
            let (file, start) = append_shared(&self.buf)?;
            Spilled::Shared {
                file,
                start,
                len: self.buf.len() as u64,
            }
        } else {
            Spilled::Memory(Arc::new(Held::new(std::mem::take(&mut self.buf))))
        })
    }
}

/// Where the bytes of a [`SpillBuffer`] are, once written.
#[derive(Clone)]
pub enum Spilled {
    /// Few enough to stay in memory.
    Memory(Arc<Held>),
    /// In an anonymous temporary file, read by positional reads so readers can overlap.
    File(TempFile),
    /// In the temporary file finished buffers share, `len` bytes from `start`.
    Shared {
        /// The shared file.
        file: TempFile,
        /// Where the bytes start in it.
        start: u64,
        /// How many there are.
        len: u64,
    },
}

impl Spilled {
    /// The bytes from `start` to `end` (the last byte if `None`), read through a buffer of
    /// `buffer` bytes when they are in the file.
    pub fn reader(&self, start: u64, end: Option<u64>, buffer: usize) -> Box<dyn Read + '_> {
        match self {
            Spilled::Memory(bytes) => {
                let end = end.map_or(bytes.0.len(), |end| end as usize);
                Box::new(&bytes.0[start as usize..end])
            }
            Spilled::Shared {
                file,
                start: base,
                len,
            } => {
                let end = end.unwrap_or(*len);
                let from = file.reader(base + start).take(end - start);
                Box::new(BufReader::with_capacity(buffer, from))
            }
            Spilled::File(file) => {
                let from = file.reader(start);
                match end {
                    Some(end) => Box::new(BufReader::with_capacity(buffer, from.take(end - start))),
                    None => Box::new(BufReader::with_capacity(buffer, from)),
                }
            }
        }
    }

    /// Fills `buf` with the bytes from `start` (a record found by where it starts, read
    /// without a reader of its own); fewer bytes than asked for are an error.
    pub fn read_exact_at(&self, start: u64, buf: &mut [u8]) -> io::Result<()> {
        let short = || io::Error::new(io::ErrorKind::UnexpectedEof, "past the bytes written");
        match self {
            Spilled::Memory(bytes) => {
                let start = usize::try_from(start).map_err(|_| short())?;
                let end = start.checked_add(buf.len()).ok_or_else(short)?;
                buf.copy_from_slice(bytes.0.get(start..end).ok_or_else(short)?);
                Ok(())
            }
            Spilled::Shared {
                file,
                start: base,
                len,
            } => {
                if start + buf.len() as u64 > *len {
                    return Err(short());
                }
                file.reader(base + start).read_exact(buf)
            }
            Spilled::File(file) => file.reader(start).read_exact(buf),
        }
    }

    /// Whether the bytes went to the temporary file.
    pub fn is_file(&self) -> bool {
        matches!(self, Spilled::File(_) | Spilled::Shared { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(spilled: &Spilled, start: u64, end: Option<u64>) -> Vec<u8> {
        let mut bytes = Vec::new();
        spilled
            .reader(start, end, 7)
            .read_to_end(&mut bytes)
            .unwrap();
        bytes
    }

    /// A record is read back by where it starts, from memory or from the file alike, and a
    /// read past the bytes written is an error.
    #[test]
    fn a_record_is_read_at_its_start_wherever_the_bytes_are() {
        let bytes: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
        for spill_at in [1 << 20, 100] {
            let mut buffer = SpillBuffer::new(spill_at);
            for chunk in bytes.chunks(300) {
                buffer.buf().extend_from_slice(chunk);
                buffer.spill_if_full().unwrap();
            }
            let spilled = buffer.finish().unwrap();
            assert_eq!(spilled.is_file(), spill_at == 100);
            let mut record = [0u8; 37];
            spilled.read_exact_at(4321, &mut record).unwrap();
            assert_eq!(record[..], bytes[4321..4358]);
            assert!(spilled.read_exact_at(4990, &mut record).is_err());
        }
    }

    #[test]
    fn bytes_under_the_cap_stay_in_memory() {
        let mut buffer = SpillBuffer::new(100);
        buffer.buf().extend_from_slice(&[7; 99]);
        buffer.spill_if_full().unwrap();
        assert_eq!(buffer.written(), 99);
        let spilled = buffer.finish().unwrap();
        assert!(!spilled.is_file());
        assert_eq!(read_all(&spilled, 0, None), vec![7; 99]);
    }

    #[test]
    fn past_the_memory_budget_finished_buffers_share_a_file() {
        // Enough small buffers to pass the budget (other tests' buffers count too): every
        // one reads back whole and in ranges, wherever it went.
        let count = MAX_HELD_BYTES / 1000 + 10;
        let finished: Vec<(Spilled, Vec<u8>)> = (0..count)
            .map(|i| {
                let mut buffer = SpillBuffer::new(1 << 20);
                let bytes: Vec<u8> = (0..1000).map(|j| ((i + j) % 251) as u8).collect();
                buffer.buf().extend_from_slice(&bytes);
                (buffer.finish().unwrap(), bytes)
            })
            .collect();
        assert!(finished.iter().any(|(spilled, _)| spilled.is_file()));
        assert!(HELD_BYTES.load(Ordering::Relaxed) <= MAX_HELD_BYTES);
        for (spilled, bytes) in &finished {
            assert_eq!(&read_all(spilled, 0, None), bytes);
            assert_eq!(read_all(spilled, 10, Some(20)), bytes[10..20]);
        }
    }

    #[test]
    fn a_buffer_to_a_given_file_writes_there_and_flushes_when_told() {
        let file = TempFile::new().unwrap();
        let mut buffer = SpillBuffer::to_file(file.clone(), 64, 10);
        buffer.buf().extend_from_slice(b"0123456789");
        buffer.spill_if_full().unwrap();
        buffer.buf().extend_from_slice(b"abc");
        buffer.spill_if_full().unwrap();
        let mut read = Vec::new();
        file.reader(0).read_to_end(&mut read).unwrap();
        assert_eq!(read, b"0123456789");
        buffer.spill().unwrap();
        assert_eq!(buffer.written(), 13);
        read.clear();
        file.reader(0).read_to_end(&mut read).unwrap();
        assert_eq!(read, b"0123456789abc");
    }

    #[test]
    fn bytes_past_the_cap_go_to_the_file_and_read_back_whole_and_in_ranges() {
        let mut buffer = SpillBuffer::new(100);
        let mut expected = Vec::new();
        for i in 0..1000u32 {
            let bytes = i.to_le_bytes();
            buffer.buf().extend_from_slice(&bytes);
            expected.extend_from_slice(&bytes);
            buffer.spill_if_full().unwrap();
            // What waits in memory never reaches the cap.
            assert!(buffer.buf().len() < 100);
            assert_eq!(buffer.written(), expected.len() as u64);
        }
        let spilled = buffer.finish().unwrap();
        assert!(spilled.is_file());
        assert_eq!(read_all(&spilled, 0, None), expected);
        assert_eq!(read_all(&spilled, 10, Some(3000)), expected[10..3000]);
        // Two readers at once, from their own offsets.
        let (mut first, mut second) = (spilled.reader(0, None, 16), spilled.reader(4, None, 16));
        let (mut a, mut b) = ([0u8; 4], [0u8; 4]);
        first.read_exact(&mut a).unwrap();
        second.read_exact(&mut b).unwrap();
        assert_eq!((a, b), (0u32.to_le_bytes(), 1u32.to_le_bytes()));
    }
}
