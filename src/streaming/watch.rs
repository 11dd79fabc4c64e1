//! The reader every file of a run is read through: it reports its bytes to the progress bar,
//! copies them to the spool of standard input and reads as empty once the run says stop.

use std::fs::File;
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use indicatif::ProgressBar;

/// A reader that reports its bytes to the progress bar, copies them to a spool (standard
/// input, so that a case that comes back can be read again) and reads as empty once told to
/// stop.
pub(super) struct Watched<'a, R> {
    pub(super) inner: R,
    pub(super) progress: Option<&'a ProgressBar>,
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
            progress.inc(n as u64);
        }
        Ok(n)
    }
}
