//! Where output goes: standard output, or a file written atomically (a temporary file in the
//! same directory, renamed over the target only when everything was written), or a device or
//! pipe named by path (`/dev/null`, a FIFO), written straight through.

use std::fs;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Read, Stdout, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use tempfile::NamedTempFile;

/// An output being written: standard output, or a temporary file to rename on [`commit`].
///
/// Dropped without a commit, a file output leaves the target untouched and removes the
/// temporary file.
///
/// [`commit`]: Output::commit
pub struct Output {
    inner: Inner,
}

enum Inner {
    Stdout(BufWriter<Stdout>),
    File {
        temp: BufWriter<NamedTempFile>,
        target: PathBuf,
    },
    /// An existing path that is not a regular file (a character device such as `/dev/null`,
    /// a FIFO, a socket): renaming a file over it would replace the device, so it is opened
    /// and written like standard output.
    Device {
        out: BufWriter<File>,
        target: PathBuf,
    },
}

impl Output {
    /// Opens `target`; `None` or `-` means standard output.
    pub fn open(target: Option<&Path>) -> Result<Output> {
        match target {
            None => Ok(Output::stdout()),
            Some(path) if path == Path::new("-") => Ok(Output::stdout()),
            Some(path) => {
                // Through a symlink to the file it names: the link stays a link.
                let path = match fs::canonicalize(path) {
                    Ok(real) if path.is_symlink() => real,
                    _ => path.to_owned(),
                };
                if path.is_dir() {
                    anyhow::bail!("cannot write {}: it is a directory", path.display());
                }
                if fs::metadata(&path).is_ok_and(|meta| !meta.is_file()) {
                    let file = fs::OpenOptions::new()
                        .write(true)
                        .open(&path)
                        .with_context(|| format!("cannot write {}", path.display()))?;
                    return Ok(Output {
                        inner: Inner::Device {
                            out: BufWriter::with_capacity(1 << 16, file),
                            target: path,
                        },
                    });
                }
                let directory = match path.parent() {
                    Some(parent) if !parent.as_os_str().is_empty() => parent,
                    _ => Path::new("."),
                };
                if !directory.is_dir() {
                    anyhow::bail!(
                        "cannot write {}: there is no directory {}",
                        path.display(),
                        directory.display()
                    );
                }
                let temp = tempfile::Builder::new()
                    .prefix(".leasejudge-")
                    .suffix(".tmp")
                    .tempfile_in(directory)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                Ok(Output {
                    inner: Inner::File {
                        temp: BufWriter::with_capacity(1 << 16, temp),
                        target: path,
                    },
                })
            }
        }
    }

    fn stdout() -> Output {
        Output {
            inner: Inner::Stdout(BufWriter::with_capacity(1 << 16, io::stdout())),
        }
    }

    /// Whether this output is standard output and standard output is a terminal.
    pub fn is_terminal(&self) -> bool {
        matches!(self.inner, Inner::Stdout(_)) && io::stdout().is_terminal()
    }

    /// Whether this output is standard output.
    pub fn is_stdout(&self) -> bool {
        matches!(self.inner, Inner::Stdout(_))
    }

    /// Finishes the output: flushes standard output, or renames the file into place.
    pub fn commit(self) -> Result<()> {
        match self.inner {
            Inner::Stdout(mut out) => out.flush().context("cannot write to standard output"),
            Inner::File { temp, target } => {
                let temp = temp
                    .into_inner()
                    .map_err(|e| e.into_error())
                    .with_context(|| format!("cannot write {}", target.display()))?;
                temp.as_file()
                    .sync_all()
                    .with_context(|| format!("cannot write {}", target.display()))?;
                let temp_path = temp.into_temp_path();
                set_readable(&temp_path);
                temp_path
                    .persist(&target)
                    .with_context(|| format!("cannot write {}", target.display()))?;
                Ok(())
            }
            Inner::Device { mut out, target } => out
                .flush()
                .with_context(|| format!("cannot write {}", target.display())),
        }
    }
}

/// Temporary files are created owner-only; the finished output gets the usual `rw-r--r--`.
#[cfg(unix)]
fn set_readable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    // Best effort: the output is still complete and correct if this fails.
    let _ = fs::set_permissions(path, fs::Permissions::from_mode(0o644));
}

#[cfg(not(unix))]
fn set_readable(_path: &Path) {}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Stdout(out) => out.write(buf),
            Inner::File { temp, .. } => temp.write(buf),
            Inner::Device { out, .. } => out.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.inner {
            Inner::Stdout(out) => out.write_all(buf),
            Inner::File { temp, .. } => temp.write_all(buf),
            Inner::Device { out, .. } => out.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            Inner::Stdout(out) => out.flush(),
            Inner::File { temp, .. } => temp.flush(),
            Inner::Device { out, .. } => out.flush(),
        }
    }
}

/// A writer that can append part of a file: [`Output`] lets the kernel copy it (no pass
/// through user space), anything else reads and writes it.
pub trait AppendFile: Write {
    /// Appends the next `len` bytes of `file` (fewer if it ends first); returns how many.
    fn append_file(&mut self, file: &mut File, len: u64) -> io::Result<u64> {
        io::copy(&mut file.take(len), self)
    }
}

impl AppendFile for Vec<u8> {}

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

impl AppendFile for Output {
    fn append_file(&mut self, file: &mut File, len: u64) -> io::Result<u64> {
        // Flushed first, then the standard library's copy between file descriptors
        // (copy_file_range, sendfile or splice where the kernel has them).
        match &mut self.inner {
            Inner::Stdout(out) => {
                out.flush()?;
                io::copy(&mut file.take(len), &mut io::stdout().lock())
            }
            Inner::File { temp, .. } => {
                temp.flush()?;
                io::copy(&mut file.take(len), temp.get_mut().as_file_mut())
            }
            Inner::Device { out, .. } => {
                out.flush()?;
                io::copy(&mut file.take(len), out.get_mut())
            }
        }
    }
}
