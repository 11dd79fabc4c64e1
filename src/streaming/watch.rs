//! The reader every file of a run is read through: it counts its bytes for whoever shows
//! progress, copies them to the spool of standard input and reads as empty once the run says
//! stop.

use std::fs::File;
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A reader that counts its bytes in `progress`, copies them to a spool (standard
/// input, so that a case that comes back can be read again) and reads as empty once told to
/// stop.
pub(super) struct Watched<'a, R> {
    pub(super) inner: R,
    pub(super) progress: Option<&'a AtomicU64>,
    pub(super) spool: Option<&'a File>,
    pub(super) stop: &'a AtomicBool,
}

impl<R: Read> Read for Watched<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stop.load(Ordering::Relaxed) {
            return Ok(0);
        }
        let n = self.inner.read(buf)?;
        if let Some(mut spool) = self.spool {
            // Unbuffered: what was read is in the spool before its rows are replayed.
            crate::store::TempWriter(&mut spool).write_all(&buf[..n])?;
        }
        if let Some(progress) = self.progress {
            progress.fetch_add(n as u64, Ordering::Relaxed);
        }
        Ok(n)
    }
}
