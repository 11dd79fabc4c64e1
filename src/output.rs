//! Where output goes: standard output, or a file written atomically (a temporary file in the
//! same directory, renamed over the target only when everything was written), or a device or
//! pipe named by path (`/dev/null`, a FIFO), written straight through.
//!
//! The rules every command follows (see `docs/safety.md`):
//! 1. Before any work, [`check_paths`] with every input and every output it may write: no
//!    output may be an input or another output.
//! 2. Open each output with [`Output::open`], write, and commit them all together with
//!    [`commit_all`] only when the whole run succeeded. On an error, return it: dropping an
//!    uncommitted [`Output`] removes its temporary file and leaves the target as it was.
//! 3. A report whose job is to carry problems (a `check` or `grade` report in JUnit, GitHub,
//!    Markdown or JSON) is the exception: write the problems into it, commit it alone with
//!    [`commit_problem_report`] (still atomically; the run's other outputs are dropped, their
//!    files left as they were) and return exit 2.
//!
//! Interrupted runs leave nothing behind: temporary files are removed on SIGINT, SIGTERM
//! and SIGHUP ([`install_signal_handlers`]).

mod cleanup;
mod dir;
mod paths;
mod sanitize;

pub use cleanup::{install_signal_handlers, GuardedTemp, GuardedTempDir};
pub use dir::OutputDir;
pub use paths::{check_paths, Named, PathClash, PathClashes};
pub use sanitize::{escape_controls, escape_controls_keep_lines, is_unsafe_char};

use std::fs;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use tempfile::NamedTempFile;

use crate::input::{InputError, InputErrors, Source};

/// Set when standard output was closed when the process started (`leasejudge ... >&-`).
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Records that standard output was closed at start-up. The standard library reopens a closed
/// standard output on `/dev/null` before `main` runs, so only code that runs earlier (the
/// binary's start-up hook) can tell; an [`Output`] on standard output then fails to open.
pub fn note_stdout_closed() {
    STDOUT_CLOSED.store(true, Ordering::Relaxed);
}

/// The handle standard output is written through: a duplicate of its file descriptor, so that
/// a failed write (`EBADF` on a descriptor opened for reading, `ENOSPC`, `EIO`) is an error; the
/// standard library's own handle reports `EBADF` as success.
#[cfg(unix)]
type StdoutHandle = File;

#[cfg(not(unix))]
type StdoutHandle = io::Stdout;

#[cfg(unix)]
fn stdout_handle() -> io::Result<StdoutHandle> {
    use std::os::fd::AsFd;
    io::stdout().as_fd().try_clone_to_owned().map(File::from)
}

#[cfg(not(unix))]
fn stdout_handle() -> io::Result<StdoutHandle> {
    Ok(io::stdout())
}

/// An output being written: standard output, or a temporary file to rename on [`commit`].
///
/// Dropped without a commit, a file output leaves the target untouched and removes the
/// temporary file.
///
/// [`commit`]: Output::commit
pub struct Output {
    inner: Inner,
}

/// Keeps a temporary file's path in the registry that signal handlers clean up, until it is
/// renamed into place or removed.
struct Registration(PathBuf);

impl Drop for Registration {
    fn drop(&mut self) {
        cleanup::forget(&mut cleanup::live(), &self.0);
    }
}

enum Inner {
    Stdout(BufWriter<StdoutHandle>),
    File {
        temp: BufWriter<NamedTempFile>,
        target: PathBuf,
        // Dropped after `temp` (fields drop in order): the file is gone before it is forgotten.
        registration: Registration,
    },
    /// An existing path that is not a regular file (a character device such as `/dev/null`,
    /// a FIFO, a socket): renaming a file over it would replace the device, so it is opened
    /// and written like standard output.
    Device {
        out: BufWriter<File>,
        target: PathBuf,
    },
}

/// An output whose bytes are all written and flushed, waiting for [`Finished::persist`].
pub struct Finished {
    inner: FinishedInner,
}

enum FinishedInner {
    /// Standard output and devices: nothing is left to do.
    Written,
    File {
        temp: tempfile::TempPath,
        target: PathBuf,
        registration: Registration,
    },
}

impl Finished {
    /// Where the finished bytes are before they are renamed into place (to read them back),
    /// or `None` for standard output and devices, which cannot be read back.
    pub fn written_path(&self) -> Option<&Path> {
        match &self.inner {
            FinishedInner::Written => None,
            FinishedInner::File { temp, .. } => Some(temp),
        }
    }

    /// Renames the file into place (nothing for standard output and devices).
    pub fn persist(self) -> Result<()> {
        let mut live = cleanup::live();
        self.persist_locked(&mut live)
    }

    fn persist_locked(self, live: &mut Vec<PathBuf>) -> Result<()> {
        match self.inner {
            FinishedInner::Written => Ok(()),
            FinishedInner::File {
                temp,
                target,
                registration,
            } => {
                let result = temp
                    .persist(&target)
                    .with_context(|| format!("cannot write {}", target.display()));
                cleanup::forget(live, &registration.0);
                // Its drop would take the registry's lock, which the caller holds.
                std::mem::forget(registration);
                result
            }
        }
    }
}

/// Commits every output of a run together: all are flushed (and files synced) first, and only
/// when every one of them was written completely are the files renamed into place. If any
/// fails, no file is replaced. A signal arriving during the renames waits until they are done.
pub fn commit_all(outputs: Vec<Output>) -> Result<()> {
    let mut finished = Vec::with_capacity(outputs.len());
    for output in outputs {
        finished.push(output.finish()?);
    }
    persist_all(finished)
}

/// Commits `report`, a report whose job is to carry the run's problems to CI or a learner,
/// and nothing else: every output in `others` is dropped (its temporary file removed, its
/// target left as it was). The command still exits 2.
pub fn commit_problem_report(report: Output, others: Vec<Output>) -> Result<()> {
    drop(others);
    report.commit()
}

/// Renames every finished output into place, holding off signal handlers until all are.
pub fn persist_all(finished: Vec<Finished>) -> Result<()> {
    let mut live = cleanup::live();
    let mut first_error = None;
    for output in finished {
        if let Err(e) = output.persist_locked(&mut live) {
            first_error.get_or_insert(e);
        }
    }
    first_error.map_or(Ok(()), Err)
}

impl Output {
    /// Opens `target`; `None` or `-` means standard output.
    pub fn open(target: Option<&Path>) -> Result<Output> {
        match target {
            None => Output::stdout(),
            Some(path) if path == Path::new("-") => Output::stdout(),
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
                // Created and registered under the lock: a signal cannot fall in between.
                let mut live = cleanup::live();
                let temp = tempfile::Builder::new()
                    .prefix(".leasejudge-")
                    .suffix(".tmp")
                    .tempfile_in(directory)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                live.push(temp.path().to_owned());
                let registration = Registration(temp.path().to_owned());
                drop(live);
                Ok(Output {
                    inner: Inner::File {
                        temp: BufWriter::with_capacity(1 << 16, temp),
                        target: path,
                        registration,
                    },
                })
            }
        }
    }

    fn stdout() -> Result<Output> {
        if STDOUT_CLOSED.load(Ordering::Relaxed) {
            anyhow::bail!("cannot write to standard output: it is closed");
        }
        let handle = stdout_handle().context("cannot write to standard output")?;
        Ok(Output {
            inner: Inner::Stdout(BufWriter::with_capacity(1 << 16, handle)),
        })
    }

    /// Whether this output is standard output and standard output is a terminal.
    pub fn is_terminal(&self) -> bool {
        matches!(self.inner, Inner::Stdout(_)) && io::stdout().is_terminal()
    }

    /// Whether this output is standard output.
    pub fn is_stdout(&self) -> bool {
        matches!(self.inner, Inner::Stdout(_))
    }

    /// Writes out everything buffered (and syncs a file) without renaming it into place yet;
    /// see [`commit_all`].
    pub fn finish(self) -> Result<Finished> {
        match self.inner {
            Inner::Stdout(mut out) => {
                out.flush().context("cannot write to standard output")?;
                Ok(Finished {
                    inner: FinishedInner::Written,
                })
            }
            Inner::File {
                temp,
                target,
                registration,
            } => {
                let temp = temp
                    .into_inner()
                    .map_err(|e| e.into_error())
                    .with_context(|| format!("cannot write {}", target.display()))?;
                temp.as_file()
                    .sync_all()
                    .with_context(|| format!("cannot write {}", target.display()))?;
                let temp = temp.into_temp_path();
                set_readable(&temp);
                Ok(Finished {
                    inner: FinishedInner::File {
                        temp,
                        target,
                        registration,
                    },
                })
            }
            Inner::Device { mut out, target } => {
                out.flush()
                    .with_context(|| format!("cannot write {}", target.display()))?;
                Ok(Finished {
                    inner: FinishedInner::Written,
                })
            }
        }
    }

    /// Finishes this one output and renames it into place: for a run with a single output,
    /// or a report that carries the run's problems (see the module's rules).
    pub fn commit(self) -> Result<()> {
        self.finish()?.persist()
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

/// A file output can seek (a zip archive's writer goes back to patch sizes); standard output
/// cannot, and a device or pipe only as it allows.
impl Seek for Output {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        match &mut self.inner {
            Inner::Stdout(_) => Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "standard output cannot seek",
            )),
            Inner::File { temp, .. } => temp.seek(pos),
            Inner::Device { out, .. } => out.seek(pos),
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
                io::copy(&mut file.take(len), out.get_mut())
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

/// The case-file sources with standard input copied to a guarded temporary file (kept alive
/// by the returned handles, and named as before), for commands that read their inputs more
/// than once. The copy has no extension, so it is read as CSV unless a format is given, as
/// standard input is. It is removed when the handle is dropped, or by an interrupting signal.
pub fn spool_standard_input(sources: &[Source]) -> io::Result<(Vec<Source>, Vec<GuardedTemp>)> {
    let mut spools = Vec::new();
    let mut readable = Vec::with_capacity(sources.len());
    for source in sources {
        if source.path.is_some() {
            readable.push(source.clone());
            continue;
        }
        let mut spool = GuardedTemp::new()?;
        io::copy(&mut io::stdin().lock(), spool.as_file_mut())?;
        io::Write::flush(spool.as_file_mut())?;
        readable.push(Source {
            name: source.name.clone(),
            path: Some(spool.path().to_owned()),
            options: source.options.clone(),
        });
        spools.push(spool);
    }
    Ok((readable, spools))
}

/// The longest value an input error's message quotes; longer values are cut with `…`.
const MAX_QUOTED_CHARS: usize = 80;

/// An input error as every command shows it, `FILE:LINE: column: message (value)`: here, with
/// the escaping of what came from input, rather than in [`crate::input`], which is below the
/// output layer and does not import it.
impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Each part may come from input: a file name, a header cell, a key.
        let file = escape_controls(&self.file);
        if self.line == 0 {
            write!(f, "{file}: ")?;
        } else {
            write!(f, "{file}:{}: ", self.line)?;
        }
        if let Some(column) = &self.column {
            write!(f, "{}: ", escape_controls(column))?;
        }
        f.write_str(&escape_controls(&self.message))?;
        if let Some(value) = &self.value {
            if value.chars().count() > MAX_QUOTED_CHARS {
                let cut: String = value.chars().take(MAX_QUOTED_CHARS).collect();
                write!(f, " ({:?}… {} bytes in all)", cut, self.value_bytes)?;
            } else {
                write!(f, " ({value:?})")?;
            }
        }
        Ok(())
    }
}

/// Every input error of a run, one per line, then the count.
impl std::fmt::Display for InputErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for error in &self.0 {
            writeln!(f, "{error}")?;
        }
        let n = self.0.len();
        write!(
            f,
            "{n} input error{}; nothing was written",
            if n == 1 { "" } else { "s" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_files(dir: &Path) -> usize {
        fs::read_dir(dir)
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().starts_with(".leasejudge-")
            })
            .count()
    }

    #[test]
    fn outputs_commit_together_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let b = dir.path().join("b.csv");
        fs::write(&a, "old a").unwrap();
        let mut first = Output::open(Some(&a)).unwrap();
        first.write_all(b"new a").unwrap();
        let mut full = Output::open(Some(Path::new("/dev/full"))).unwrap();
        full.write_all(b"held in the buffer until the commit")
            .unwrap();
        assert!(commit_all(vec![first, full]).is_err());
        assert_eq!(fs::read(&a).unwrap(), b"old a");
        assert_eq!(temp_files(dir.path()), 0);

        let mut first = Output::open(Some(&a)).unwrap();
        first.write_all(b"new a").unwrap();
        let mut second = Output::open(Some(&b)).unwrap();
        second.write_all(b"new b").unwrap();
        let registered = |dir: &Path| {
            cleanup::live()
                .iter()
                .filter(|p| p.starts_with(dir))
                .count()
        };
        assert_eq!(
            registered(dir.path()),
            2,
            "registered for the signal handlers"
        );
        commit_all(vec![first, second]).unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"new a");
        assert_eq!(fs::read(&b).unwrap(), b"new b");
        assert_eq!(temp_files(dir.path()), 0);
        assert_eq!(registered(dir.path()), 0);
    }

    #[test]
    fn a_problem_report_commits_alone() {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().join("report.xml");
        let gradebook = dir.path().join("gradebook.csv");
        fs::write(&gradebook, "old").unwrap();
        let mut out = Output::open(Some(&report)).unwrap();
        out.write_all(b"<problems/>").unwrap();
        let mut other = Output::open(Some(&gradebook)).unwrap();
        other.write_all(b"new").unwrap();
        commit_problem_report(out, vec![other]).unwrap();
        assert_eq!(fs::read(&report).unwrap(), b"<problems/>");
        assert_eq!(fs::read(&gradebook).unwrap(), b"old");
        assert_eq!(temp_files(dir.path()), 0);
    }
}
