//! An output file's early writeback: the kernel is asked to start writing a large output's
//! pages to the disk while the rest is still being written, so that the sync of its commit
//! waits for the last few megabytes rather than for the whole file.
//!
//! A commit syncs its files before it renames them (an output that survives a crash is part
//! of never replacing a good file with a bad one). Written then synced, a large output pays
//! for its bytes twice in turn: once copying them into the page cache, once waiting for the
//! disk. Started early, the disk's half overlaps the copying, as databases do it (RocksDB's
//! `bytes_per_sync`). Nothing about what is written, or when the file is renamed, changes: the
//! commit still syncs the whole file and reports any failure; the early start is a hint whose
//! failures are ignored.

use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};

use tempfile::NamedTempFile;

/// How many bytes are written between two requests to start writeback: large enough that a
/// request is rare (one every few milliseconds at the outputs' rates), small enough that the
/// commit's sync finds little left to write.
const WRITEBACK_EVERY: u64 = 8 << 20;

/// A temporary output file that starts the writeback of its pages every
/// [`WRITEBACK_EVERY`] bytes written.
#[derive(Debug)]
pub(super) struct Writeback {
    file: NamedTempFile,
    /// Bytes written since writeback was last started.
    unstarted: u64,
}

impl Writeback {
    pub(super) fn new(file: NamedTempFile) -> Writeback {
        Writeback { file, unstarted: 0 }
    }

    /// The file, for its commit (which syncs it).
    pub(super) fn into_inner(self) -> NamedTempFile {
        self.file
    }

    /// The file itself, for a copy between file descriptors; call [`Writeback::wrote`] with
    /// what was copied.
    pub(super) fn as_file_mut(&mut self) -> &mut File {
        self.file.as_file_mut()
    }

    /// Counts `bytes` written, and starts their writeback once enough are.
    pub(super) fn wrote(&mut self, bytes: u64) {
        self.unstarted += bytes;
        if self.unstarted >= WRITEBACK_EVERY {
            self.unstarted = 0;
            start_writeback(self.file.as_file());
        }
    }
}

/// Asks the kernel to start writing every dirty page of `file` to the disk, without waiting
/// for it (pages already being written are left to it). A hint: a file system without it, or
/// any failure, leaves the work to the commit's sync.
#[cfg(target_os = "linux")]
fn start_writeback(file: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: sync_file_range reads no memory of ours; the descriptor is open for the call's
    // length (borrowed from `file`). Offset 0 and length 0 mean the whole file.
    let _ = unsafe { libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_file: &File) {}

impl Write for Writeback {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.file.write(buf)?;
        self.wrote(written as u64);
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Seek for Writeback {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.file.seek(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn what_is_written_reads_back_the_same_past_many_writeback_starts() {
        let mut out = Writeback::new(NamedTempFile::new().unwrap());
        let block: Vec<u8> = (0..=255u8).cycle().take(1 << 20).collect();
        for _ in 0..20 {
            out.write_all(&block).unwrap();
        }
        // A zip writer goes back to patch what it wrote.
        out.seek(SeekFrom::Start(3)).unwrap();
        out.write_all(b"patched").unwrap();
        out.seek(SeekFrom::End(0)).unwrap();
        out.write_all(b"end").unwrap();
        out.flush().unwrap();
        let mut back = Vec::new();
        out.into_inner()
            .reopen()
            .unwrap()
            .read_to_end(&mut back)
            .unwrap();
        let mut expected: Vec<u8> = block.repeat(20);
        expected[3..10].copy_from_slice(b"patched");
        expected.extend_from_slice(b"end");
        assert_eq!(back.len(), expected.len());
        assert!(back == expected);
    }
}
