//! Anonymous temporary files: unlinked as they are made (nothing is left in the temporary
//! directory, even when the process is killed), appended to at their end and read back by
//! positional reads that leave the file's position alone, so that one writer and several
//! readers share one descriptor.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// A new anonymous temporary file, shared: the engine keeps a copy of standard input in one
/// and reads it again as it reads any other file ([`ReadAt`]).
pub fn anonymous_file() -> io::Result<Arc<File>> {
    scratch_file().map(Arc::new)
}

/// A new anonymous temporary file of one owner's, written and read back through its own
/// position (a spooled workbook, a table's copy of the matrix, `check`'s matrix and lines).
///
/// It is made in the temporary directory (`TMPDIR`, else `/tmp`). Where there is none (an
/// empty root: a chroot or a container holding nothing but the binary), it is an anonymous
/// file in memory on Linux, as a `/tmp` on tmpfs would be, within a budget
/// (`memory::MAX_MEMORY_TEMP_BYTES`, see `memory.rs`); failing
/// both, the error names the directory and what chose it. Its owner writes it through a
/// [`TempWriter`], so that a full disk names the directory.
pub fn scratch_file() -> io::Result<File> {
    tempfile::tempfile().or_else(|in_dir| {
        super::memory::file().map_err(|_| temp_error("cannot make a temporary file", in_dir))
    })
}

/// The directory temporary files are made in, and what chose it (said in their errors: the
/// remedy for a full or missing one is `TMPDIR`).
pub(crate) fn temporary_directory() -> (PathBuf, &'static str) {
    let chosen_by = match std::env::var_os("TMPDIR") {
        Some(value) if !value.is_empty() => "named by TMPDIR",
        Some(_) => "TMPDIR is empty",
        None => "the default; TMPDIR is not set",
    };
    (tempfile::env::temp_dir(), chosen_by)
}

/// The failure `e` of a temporary file, as `doing` it (`"cannot write a temporary file"`):
/// with the directory it is in and what chose it, and the same kind.
pub fn temp_error(doing: &str, e: io::Error) -> io::Error {
    if e.get_ref().is_some_and(|inner| inner.is::<TempDirError>()) {
        return e;
    }
    let (directory, chosen_by) = temporary_directory();
    let kind = e.kind();
    // A full disk is said as what it is, with what to do about it.
    let remedy = match kind {
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded | io::ErrorKind::FileTooLarge => {
            "; there is no space left there for temporary files: free some, or set TMPDIR to a \
             directory with room"
        }
        _ => "",
    };
    io::Error::new(
        kind,
        TempDirError {
            // Shown through the command line's error, which escapes what it quotes.
            message: format!(
                "{doing} in {} ({chosen_by}): {e}{remedy}",
                directory.display()
            ),
        },
    )
}

/// A failure of a temporary file, naming its directory.
#[derive(Debug)]
struct TempDirError {
    message: String,
}

impl std::fmt::Display for TempDirError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TempDirError {}

/// A writer to a temporary file whose failures name the temporary directory.
pub struct TempWriter<W>(pub W);

impl<W: Write> Write for TempWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .write(buf)
            .and_then(|n| super::memory::wrote(n).map(|()| n))
            .map_err(|e| temp_error("cannot write a temporary file", e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0
            .flush()
            .map_err(|e| temp_error("cannot write a temporary file", e))
    }
}

/// Reads `buf.len()` bytes or fewer (at the end) at `offset` of `file`, leaving its position
/// alone.
pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        std::os::windows::fs::FileExt::seek_read(file, buf, offset)
    }
}

/// A reader of a shared file from an offset on, by positional reads: any file the engine
/// reads again (a case file opened anew, or a temporary file).
pub struct ReadAt {
    pub(crate) file: Arc<File>,
    pub(crate) offset: u64,
}

impl Read for ReadAt {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = read_at(&self.file, buf, self.offset)?;
        self.offset += n as u64;
        Ok(n)
    }
}

/// An anonymous temporary file, cheap to clone (every clone is the same file). Appends go to
/// its end through the file's own position, which nothing else moves: every read is
/// positional, and a copy that seeks ([`TempFile::descriptor`]) is made after the writing.
#[derive(Clone, Debug)]
pub struct TempFile(Arc<File>);

impl TempFile {
    /// A new, empty file.
    pub fn new() -> io::Result<TempFile> {
        anonymous_file().map(TempFile)
    }

    /// Appends `bytes` at the end.
    pub fn append(&self, bytes: &[u8]) -> io::Result<()> {
        (&*self.0)
            .write_all(bytes)
            .and_then(|()| super::memory::wrote(bytes.len()))
            .map_err(|e| temp_error("cannot write a temporary file", e))
    }

    /// A writer appending at the end (only one writer per file).
    pub fn appender(&self) -> Appender {
        Appender(self.clone())
    }

    /// Reads `buf.len()` bytes or fewer (at the end) at `offset`.
    pub(crate) fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        read_at(&self.0, buf, offset).map_err(|e| temp_error("cannot read a temporary file", e))
    }

    /// Fills `buf` from byte `offset` (an error if the file ends first).
    pub(crate) fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let mut done = 0;
        while done < buf.len() {
            match self.read_at(&mut buf[done..], offset + done as u64) {
                Ok(0) => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "a temporary file ends inside a record",
                    ))
                }
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Writes all of `bytes` at byte `offset`, leaving the file's position alone (a file
    /// written this way is not appended to).
    pub(crate) fn write_all_at(&self, bytes: &[u8], offset: u64) -> io::Result<()> {
        self.write_all_at_unnamed(bytes, offset)
            .and_then(|()| super::memory::wrote(bytes.len()))
            .map_err(|e| temp_error("cannot write a temporary file", e))
    }

    fn write_all_at_unnamed(&self, bytes: &[u8], offset: u64) -> io::Result<()> {
        #[cfg(unix)]
        {
            std::os::unix::fs::FileExt::write_all_at(&*self.0, bytes, offset)
        }
        #[cfg(windows)]
        {
            let mut done = 0;
            while done < bytes.len() {
                done += std::os::windows::fs::FileExt::seek_write(
                    &*self.0,
                    &bytes[done..],
                    offset + done as u64,
                )?;
            }
            Ok(())
        }
    }

    /// The bytes from `offset` to the end, read by positional reads.
    pub fn reader(&self, offset: u64) -> TempReader {
        TempReader(ReadAt {
            file: Arc::clone(&self.0),
            offset,
        })
    }

    /// The bytes of `extents` ((offset, length) each), one after another.
    pub fn extents<'a>(&'a self, extents: &'a [(u64, u64)]) -> Extents<'a> {
        Extents {
            file: self,
            extents,
            read: 0,
        }
    }

    /// A descriptor of its own (its position shared with the file's), for a copy that seeks
    /// once the writing is done, closed after it.
    pub fn descriptor(&self) -> io::Result<File> {
        self.0.try_clone()
    }
}

/// Reads a [`TempFile`] from an offset on; its failures name the temporary directory.
pub struct TempReader(ReadAt);

impl Read for TempReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0
            .read(buf)
            .map_err(|e| temp_error("cannot read a temporary file", e))
    }
}

/// Writes to a [`TempFile`] at its end.
pub struct Appender(TempFile);

impl Write for Appender {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        (&*self.0 .0)
            .write(buf)
            .and_then(|n| super::memory::wrote(n).map(|()| n))
            .map_err(|e| temp_error("cannot write a temporary file", e))
    }

    fn flush(&mut self) -> io::Result<()> {
        (&*self.0 .0)
            .flush()
            .map_err(|e| temp_error("cannot write a temporary file", e))
    }
}

/// Stretches of a [`TempFile`] read one after another (the position left alone, so several
/// may be read at once).
pub struct Extents<'a> {
    file: &'a TempFile,
    /// The stretches not yet read whole.
    extents: &'a [(u64, u64)],
    /// How much of the first is read.
    read: u64,
}

impl Read for Extents<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(&(offset, len)) = self.extents.first() else {
            return Ok(0);
        };
        let want = buf.len().min((len - self.read) as usize);
        let n = self.file.read_at(&mut buf[..want], offset + self.read)?;
        if n == 0 && want > 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        self.read += n as u64;
        if self.read == len {
            self.extents = &self.extents[1..];
            self.read = 0;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appended_bytes_read_back_at_any_offset_while_appending_goes_on() {
        let file = TempFile::new().unwrap();
        file.append(b"hello ").unwrap();
        let mut appender = file.appender();
        appender.write_all(b"world").unwrap();
        appender.flush().unwrap();
        let mut buf = [0u8; 5];
        file.read_exact_at(&mut buf, 6).unwrap();
        assert_eq!(&buf, b"world");
        // A read past the end reads less, and an exact read says so.
        assert_eq!(file.read_at(&mut buf, 9).unwrap(), 2);
        assert_eq!(
            file.read_exact_at(&mut buf, 9).unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
        // Positional reads leave the position alone: the next append still goes at the end.
        file.append(b"!").unwrap();
        let mut all = String::new();
        file.reader(0).read_to_string(&mut all).unwrap();
        assert_eq!(all, "hello world!");
        let mut tail = String::new();
        file.clone().reader(6).read_to_string(&mut tail).unwrap();
        assert_eq!(tail, "world!");
    }

    #[test]
    fn extents_read_back_in_the_order_given() {
        let file = TempFile::new().unwrap();
        file.append(b"0123456789").unwrap();
        let mut text = String::new();
        file.extents(&[(7, 3), (0, 2), (3, 1)])
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "789013");
        // An extent past the end is an error, not a short read.
        let mut rest = Vec::new();
        let err = file.extents(&[(8, 5)]).read_to_end(&mut rest).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn a_file_written_at_offsets_reads_back_what_was_written_where() {
        let file = TempFile::new().unwrap();
        file.write_all_at(b"world", 6).unwrap();
        file.write_all_at(b"hello ", 0).unwrap();
        let mut buf = [0u8; 11];
        file.read_exact_at(&mut buf, 0).unwrap();
        assert_eq!(&buf, b"hello world");
    }
}
