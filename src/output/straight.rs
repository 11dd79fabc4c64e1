//! Standard output and devices, written straight through: a reader that closed its end of a
//! pipe (`leasejudge ... | head -1`) ends the writing quietly, and any other failure is kept
//! for the commit, so that neither ends the run early or changes its verdict on the way.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

/// How writing to a [`Straight`] stands.
#[derive(Debug)]
pub(super) enum Flow {
    /// Every write so far went through.
    Open,
    /// The reader closed the pipe: the rest is dropped, and that is not an error (the run's
    /// files are still committed and its exit status is still its verdict).
    ReaderGone,
    /// A write failed (a full device, `EIO`): the rest is dropped, and the failure is the
    /// commit's error, so that no file of the run is renamed into place after it.
    Failed(io::Error),
}

/// A writer whose failures wait for [`Straight::finish`]: standard output, or a device or
/// FIFO named by path.
pub(super) struct Straight<W> {
    inner: W,
    flow: Flow,
}

impl<W: Write> Straight<W> {
    pub(super) fn new(inner: W) -> Straight<W> {
        Straight {
            inner,
            flow: Flow::Open,
        }
    }

    /// What is written to.
    pub(super) fn get_ref(&self) -> &W {
        &self.inner
    }

    /// Whether writes still go through.
    pub(super) fn is_open(&self) -> bool {
        matches!(self.flow, Flow::Open)
    }

    /// Notes the failure `e` of a write or flush; `Ok` unless it must be retried.
    fn failed(&mut self, e: io::Error) -> io::Result<()> {
        match e.kind() {
            io::ErrorKind::Interrupted => return Err(e),
            io::ErrorKind::BrokenPipe => self.flow = Flow::ReaderGone,
            _ => self.flow = Flow::Failed(e),
        }
        Ok(())
    }

    /// Everything written is flushed; the failure a write met, if one did (a closed pipe is
    /// none).
    pub(super) fn finish(&mut self) -> io::Result<()> {
        self.flush()?;
        match std::mem::replace(&mut self.flow, Flow::ReaderGone) {
            Flow::Failed(e) => Err(e),
            Flow::Open | Flow::ReaderGone => Ok(()),
        }
    }
}

impl<W: Write> Write for Straight<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.is_open() {
            match self.inner.write(buf) {
                Ok(n) => return Ok(n),
                Err(e) => self.failed(e)?,
            }
        }
        // Dropped: the reader is gone, or the failure waits for the commit.
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.is_open() {
            if let Err(e) = self.inner.flush() {
                self.failed(e)?;
            }
        }
        Ok(())
    }
}

impl<W: Write + Seek> Seek for Straight<W> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

impl<W: Write> Straight<W> {
    /// Appends the next `len` bytes of `file` (fewer if it ends first), letting the kernel
    /// copy them; returns how many were taken from `file` (all of them, dropped, once the
    /// writing stopped: `file` is left just past them either way).
    pub(super) fn append_file(&mut self, file: &mut File, len: u64) -> io::Result<u64> {
        let at = file.stream_position()?;
        if self.is_open() {
            // The copy is the kernel's (no pass through user space), so a failure cannot be
            // told to be the write's or the read's; either way the run fails at its commit
            // (unless the pipe was closed, which only a write meets).
            match io::copy(&mut Read::by_ref(file).take(len), &mut self.inner) {
                Ok(n) => return Ok(n),
                Err(e) => self.failed(e)?,
            }
        }
        let skipped = len.min(file.metadata()?.len().saturating_sub(at));
        file.seek(SeekFrom::Start(at + skipped))?;
        Ok(skipped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that takes `room` bytes, then fails with `kind`.
    struct Failing {
        room: usize,
        kind: io::ErrorKind,
        taken: Vec<u8>,
    }

    impl Write for Failing {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                return Err(self.kind.into());
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            self.taken.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_pipe_ends_the_writing_quietly_and_other_failures_wait_for_the_finish() {
        for (kind, quiet) in [
            (io::ErrorKind::BrokenPipe, true),
            (io::ErrorKind::StorageFull, false),
            (io::ErrorKind::Other, false),
        ] {
            let mut out = Straight::new(Failing {
                room: 4,
                kind,
                taken: Vec::new(),
            });
            out.write_all(b"abcdefgh").unwrap();
            out.write_all(b"more").unwrap();
            assert!(!out.is_open());
            assert_eq!(out.inner.taken, b"abcd");
            assert_eq!(out.finish().is_ok(), quiet, "{kind:?}");
        }
    }
}
