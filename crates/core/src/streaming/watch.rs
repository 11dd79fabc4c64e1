//! The reader every file of a run is read through: it counts its bytes for whoever shows
//! progress, copies them to the copy of an input that cannot be read again ([`InputCopy`])
//! and reads as empty once the run says stop.

use std::fs::File;
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The copy of an input that cannot be read again (standard input, a pipe, a FIFO), made as it
/// is read, in an anonymous temporary file, so that a case that comes back can be read again
/// from it: at most [`MAX_KEPT_INPUT_BYTES`](crate::limits::MAX_KEPT_INPUT_BYTES). Past that, or once the temporary file cannot be
/// written (a full disk, the memory budget without a temporary directory), the copy stops and
/// the input is read on to its end: only a case that then comes back, and must be read
/// again, is an error, which says why (an endless stream is adjudicated as it comes; the
/// copy grew without bound before). The engine's limit is its settings'
/// (`StreamSettings::kept_input_bytes`).
pub(crate) struct InputCopy {
    file: Arc<File>,
    /// The most it keeps.
    limit: u64,
    kept: AtomicU64,
    /// Why the copy stopped, if it did.
    cut: Mutex<Option<String>>,
}

impl InputCopy {
    /// A new, empty copy, of at most `limit` bytes.
    pub(super) fn new(limit: u64) -> io::Result<InputCopy> {
        Ok(InputCopy {
            file: crate::store::anonymous_file()?,
            limit,
            kept: AtomicU64::new(0),
            cut: Mutex::new(None),
        })
    }

    /// The file the copy is in.
    pub(crate) fn file(&self) -> &Arc<File> {
        &self.file
    }

    /// Appends `bytes` just read, unless the copy has stopped (or stops here).
    fn keep(&self, bytes: &[u8]) {
        let mut cut = self.cut.lock().unwrap_or_else(|e| e.into_inner());
        if cut.is_some() {
            return;
        }
        let kept = self.kept.load(Ordering::Relaxed) + bytes.len() as u64;
        if kept > self.limit {
            *cut = Some(format!(
                "it is longer than {} bytes, the most of it kept to read again",
                self.limit
            ));
            return;
        }
        // Unbuffered: what was read is in the copy before its rows are replayed.
        match crate::store::TempWriter(&*self.file).write_all(bytes) {
            Ok(()) => self.kept.store(kept, Ordering::Relaxed),
            Err(e) => *cut = Some(format!("its copy, kept to read again, stopped: {e}")),
        }
    }

    /// Whether the copy holds the whole input read so far: an error saying why not.
    pub(crate) fn whole(&self, name: &str) -> io::Result<()> {
        let cut = self.cut.lock().unwrap_or_else(|e| e.into_inner());
        match &*cut {
            None => Ok(()),
            Some(why) => Err(io::Error::other(format!(
                "{name}: a case comes back, to be read again, but {why}: give the input as a \
                 file, or a larger --open-cases"
            ))),
        }
    }
}

/// A reader that counts its bytes in `progress`, copies them to a spool (an input that
/// cannot be read again, so that a case that comes back can be) and reads as empty once told
/// to stop.
pub(super) struct Watched<'a, R> {
    pub(super) inner: R,
    pub(super) progress: Option<&'a AtomicU64>,
    pub(super) spool: Option<&'a InputCopy>,
    pub(super) stop: &'a AtomicBool,
}

impl<R: Read> Read for Watched<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stop.load(Ordering::Relaxed) {
            return Ok(0);
        }
        let n = self.inner.read(buf)?;
        if let Some(spool) = self.spool {
            spool.keep(&buf[..n]);
        }
        if let Some(progress) = self.progress {
            progress.fetch_add(n as u64, Ordering::Relaxed);
        }
        Ok(n)
    }
}
