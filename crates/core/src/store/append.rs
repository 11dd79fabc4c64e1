//! Writers that append whole stretches of a file: how the engine's spilled records are copied
//! out to whatever the command writes to.

use std::fs::File;
use std::io::{self, Read, Write};

/// A writer that can append part of a file: an output file lets the kernel copy it (no pass
/// through user space), anything else reads and writes it.
pub trait AppendFile: Write {
    /// Appends the next `len` bytes of `file` (fewer if it ends first); returns how many.
    fn append_file(&mut self, file: &mut File, len: u64) -> io::Result<u64> {
        io::copy(&mut file.take(len), self)
    }
}

impl AppendFile for Vec<u8> {}

/// A temporary file, its failures naming the temporary directory.
impl<W: Write> AppendFile for super::TempWriter<W> {}

impl<W: Write> AppendFile for io::BufWriter<W> {}

/// For runs that want the engine's rows or errors, not its matrix: the spill is skipped, not read.
impl AppendFile for io::Sink {
    fn append_file(&mut self, file: &mut File, len: u64) -> io::Result<u64> {
        use std::io::{Seek, SeekFrom};
        let at = file.stream_position()?;
        let skipped = len.min(file.metadata()?.len().saturating_sub(at));
        file.seek(SeekFrom::Current(skipped as i64))?;
        Ok(skipped)
    }
}
