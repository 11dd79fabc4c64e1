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

mod append;
mod cleanup;
mod dir;
mod once;
mod paths;
mod straight;
mod trusted;
mod writeback;

pub use crate::sanitize::{
    escape_controls, escape_controls_keep_lines, escape_markdown, escape_message, is_unsafe_char,
    quote, report_cell, spreadsheet_cell, spreadsheet_value, workflow_command_in, CommandGuard,
    InertFilter, InertWriter, Syntax,
};
pub use append::{commit_all_appending, Appended};
pub use cleanup::{creating_in_temp, install_signal_handlers, GuardedTemp, GuardedTempDir};
pub use dir::OutputDir;
pub use once::{copy_read_once, NotText, ReadOnce};
pub use paths::{check_paths, Named, PathClash, PathClashes};

use std::fs;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};

use crate::store::AppendFile;
use straight::Straight;
use writeback::Writeback;

/// `a, b and c` (`conjunction`: `and`): words as a message lists them; one word alone, none
/// empty.
pub fn listed(words: &[impl AsRef<str>], conjunction: &str) -> String {
    match words.split_last() {
        Some((last, [])) => last.as_ref().to_owned(),
        Some((last, rest)) => {
            let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
            format!("{} {conjunction} {}", rest.join(", "), last.as_ref())
        }
        None => String::new(),
    }
}

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

/// What an output holds: how it is kept inert where people open it (the rules of the
/// `sanitize` module, listed in docs/safety.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    /// Bytes only programs read (a zip archive): written as they are.
    Binary,
    /// CSV: data, kept exact wherever it goes (its cells are written inert by
    /// [`spreadsheet_cell`] or [`report_cell`]), except on a terminal, where every unsafe
    /// character but the line feed is shown as `\u{1b}`.
    Csv,
    /// JSON: `##[` and every unsafe character written as JSON escapes (`\u005b`), which
    /// read back the same.
    Json,
    /// XML or HTML: `##[`, a leading `::` and unsafe characters as character references.
    Markup,
    /// Text for people (tables, Markdown, summaries): no line can be a workflow command.
    Text,
    /// GitHub workflow commands: the writer's own `::` lines pass; `##[` never does.
    WorkflowCommands,
}

/// An output being written: standard output, or a temporary file to rename on [`commit`].
/// What is written passes through the filter of its [`Content`].
///
/// Dropped without a commit, a file output leaves the target untouched and removes the
/// temporary file.
///
/// [`commit`]: Output::commit
pub struct Output {
    inner: Inner,
    filter: Option<InertFilter>,
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
    /// Standard output: a closed pipe ends the writing quietly, and other failures wait for
    /// the commit ([`Straight`]).
    Stdout(BufWriter<Straight<StdoutHandle>>),
    /// A regular file, written to a temporary file beside it and renamed over it.
    File {
        temp: BufWriter<Writeback>,
        target: PathBuf,
        /// The permissions the file gets (those of the file it replaces), or `None` for a new
        /// file, whose temporary file was made with the umask's.
        mode: Option<u32>,
        // Dropped after `temp` (fields drop in order): the file is gone before it is forgotten.
        registration: Registration,
    },
    /// An existing path that is not a regular file (a character device such as `/dev/null`,
    /// a FIFO, a socket): renaming a file over it would replace the device, so it is opened
    /// and written like standard output.
    Device {
        out: BufWriter<Straight<File>>,
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
/// fails, no file is replaced, and the error names the files left as they were. A signal
/// arriving during the renames waits until they are done.
pub fn commit_all(outputs: Vec<Output>) -> Result<()> {
    let targets: Vec<PathBuf> = outputs
        .iter()
        .filter_map(|output| match &output.inner {
            Inner::File { target, .. } => Some(target.clone()),
            Inner::Stdout(_) | Inner::Device { .. } => None,
        })
        .collect();
    let mut finished = Vec::with_capacity(outputs.len());
    for output in outputs {
        match output.finish() {
            Ok(done) => finished.push(done),
            Err(e) if targets.is_empty() => return Err(e),
            Err(e) => return Err(anyhow::anyhow!("{e:#}; {}", not_written(&targets))),
        }
    }
    persist_all(finished)
}

/// What a run that failed before its commit says of the files it was to write.
fn not_written(targets: &[PathBuf]) -> String {
    let names: Vec<String> = targets
        .iter()
        .map(|target| escape_controls(&target.to_string_lossy()).into_owned())
        .collect();
    match names.as_slice() {
        [one] => format!("so {one} was not written (it is as it was)"),
        _ => format!(
            "so {} were not written (each is as it was)",
            names.join(", ")
        ),
    }
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
    /// Opens `target` for `content`; `None` or `-` means standard output.
    pub fn open(target: Option<&Path>, content: Content) -> Result<Output> {
        let mut output = Output::open_raw(target, new_file_permissions())?;
        output.set_content(content);
        Ok(output)
    }

    /// Opens the file `target` for a program (bytes only): a new file is made `rwxr-xr-x` less
    /// the umask (under `umask 077`, `rwx------`), as a compiler makes one; a file it replaces
    /// keeps its mode, as every output does.
    pub fn open_executable(target: &Path) -> Result<Output> {
        #[cfg(unix)]
        let permissions = {
            use std::os::unix::fs::PermissionsExt;
            Some(fs::Permissions::from_mode(0o755))
        };
        #[cfg(not(unix))]
        let permissions = None;
        let mut output = Output::open_raw(Some(target), permissions)?;
        output.set_content(Content::Binary);
        Ok(output)
    }

    /// Sets what the output holds, for a command that chooses its format by what the output
    /// is (a table on a terminal): before anything is written.
    pub fn set_content(&mut self, content: Content) {
        let syntax = match content {
            Content::Binary => None,
            Content::Csv => self.is_terminal().then_some(Syntax::CsvOnTerminal),
            Content::Json => Some(Syntax::Json),
            Content::Markup => Some(Syntax::Markup),
            Content::Text => Some(Syntax::Text),
            Content::WorkflowCommands => Some(Syntax::WorkflowCommands),
        };
        self.filter = syntax.map(InertFilter::new);
    }

    /// `target` opened; a new file's temporary file is made with `permissions` (less the
    /// umask, which the kernel applies).
    fn open_raw(target: Option<&Path>, permissions: Option<fs::Permissions>) -> Result<Output> {
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
                            out: BufWriter::with_capacity(1 << 16, Straight::new(file)),
                            target: path,
                        },
                        filter: None,
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
                let mode = existing_mode(&path);
                let mut builder = tempfile::Builder::new();
                builder.prefix(".leasejudge-").suffix(".tmp");
                if let (None, Some(permissions)) = (mode, permissions) {
                    // A new file gets what any program's new file gets: rw for all, less
                    // the umask (the kernel applies it, and a directory's default ACL).
                    // One that replaces a file stays owner-only until it has that file's.
                    builder.permissions(permissions);
                }
                // Created and registered under the lock: a signal cannot fall in between.
                let mut live = cleanup::live();
                let temp = builder.tempfile_in(directory).with_context(|| {
                    format!(
                        "cannot write {}: cannot make a temporary file in {}",
                        path.display(),
                        directory.display()
                    )
                })?;
                live.push(temp.path().to_owned());
                let registration = Registration(temp.path().to_owned());
                drop(live);
                Ok(Output {
                    inner: Inner::File {
                        temp: BufWriter::with_capacity(1 << 16, Writeback::new(temp)),
                        target: path,
                        mode,
                        registration,
                    },
                    filter: None,
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
            inner: Inner::Stdout(BufWriter::with_capacity(1 << 16, Straight::new(handle))),
            filter: None,
        })
    }

    /// Whether this output is a terminal: standard output on one, or a terminal named by path.
    pub fn is_terminal(&self) -> bool {
        match &self.inner {
            Inner::Stdout(_) => io::stdout().is_terminal(),
            Inner::Device { out, .. } => out.get_ref().get_ref().is_terminal(),
            Inner::File { .. } => false,
        }
    }

    /// Whether this output is standard output.
    pub fn is_stdout(&self) -> bool {
        matches!(self.inner, Inner::Stdout(_))
    }

    /// Writes out everything buffered (and syncs a file) without renaming it into place yet;
    /// see [`commit_all`]. Standard output or a device whose reader closed the pipe is
    /// finished (what was dropped was not wanted); one that a write failed on is an error.
    pub fn finish(mut self) -> Result<Finished> {
        if let Some(mut filter) = self.filter.take() {
            let ended = match &mut self.inner {
                Inner::Stdout(out) => filter.end(out),
                Inner::File { temp, .. } => filter.end(temp),
                Inner::Device { out, .. } => filter.end(out),
            };
            ended.with_context(|| format!("cannot write {}", self.name()))?;
        }
        match self.inner {
            Inner::Stdout(mut out) => {
                out.flush()
                    .and_then(|()| out.get_mut().finish())
                    .context("cannot write to standard output")?;
                Ok(Finished {
                    inner: FinishedInner::Written,
                })
            }
            Inner::File {
                temp,
                target,
                mode,
                registration,
            } => {
                let cannot = || format!("cannot write {}", target.display());
                let temp = temp
                    .into_inner()
                    .map_err(|e| e.into_error())
                    .with_context(cannot)?
                    .into_inner();
                // The mode of the file it replaces as it is now (or was when the run began,
                // if it is gone); a new file has the umask's already.
                if let Some(mode) = existing_mode(&target).or(mode) {
                    set_mode(temp.as_file(), mode).with_context(cannot)?;
                }
                temp.as_file().sync_all().with_context(cannot)?;
                Ok(Finished {
                    inner: FinishedInner::File {
                        temp: temp.into_temp_path(),
                        target,
                        registration,
                    },
                })
            }
            Inner::Device { mut out, target } => {
                out.flush()
                    .and_then(|()| out.get_mut().finish())
                    .with_context(|| format!("cannot write {}", target.display()))?;
                Ok(Finished {
                    inner: FinishedInner::Written,
                })
            }
        }
    }

    /// What the output is called in a message: its path, or standard output.
    fn name(&self) -> String {
        match &self.inner {
            Inner::Stdout(_) => "to standard output".to_owned(),
            Inner::File { target, .. } | Inner::Device { target, .. } => {
                target.display().to_string()
            }
        }
    }

    /// Finishes this one output and renames it into place: for a run with a single output,
    /// or a report that carries the run's problems (see the module's rules).
    pub fn commit(self) -> Result<()> {
        self.finish()?.persist()
    }
}
/// The permission bits of the regular file at `path`, if there is one (an output that
/// replaces it keeps them; set-id and sticky bits are not carried over to a file written anew).
fn existing_mode(path: &Path) -> Option<u32> {
    mode_of(path, fs::Metadata::is_file)
}

/// The permission bits of what is at `path`, if it is of the kind `is_kind` accepts.
#[cfg(unix)]
fn mode_of(path: &Path, is_kind: fn(&fs::Metadata) -> bool) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path)
        .ok()
        .filter(is_kind)
        .map(|meta| meta.permissions().mode() & 0o777)
}

#[cfg(not(unix))]
fn mode_of(_path: &Path, _is_kind: fn(&fs::Metadata) -> bool) -> Option<u32> {
    None
}

/// What a new output file is created with, before the umask: `rw-rw-rw-`, as a shell's `>`
/// creates a file (off Unix, the system's defaults).
fn new_file_permissions() -> Option<fs::Permissions> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(fs::Permissions::from_mode(0o666))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

#[cfg(unix)]
fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_file: &File, _mode: u32) -> io::Result<()> {
    Ok(())
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.filter.is_some() {
            self.write_all(buf)?;
            return Ok(buf.len());
        }
        match &mut self.inner {
            Inner::Stdout(out) => out.write(buf),
            Inner::File { temp, .. } => temp.write(buf),
            Inner::Device { out, .. } => out.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match (&mut self.inner, &mut self.filter) {
            (Inner::Stdout(out), Some(filter)) => filter.write_through(out, buf),
            (Inner::File { temp, .. }, Some(filter)) => filter.write_through(temp, buf),
            (Inner::Device { out, .. }, Some(filter)) => filter.write_through(out, buf),
            (Inner::Stdout(out), None) => out.write_all(buf),
            (Inner::File { temp, .. }, None) => temp.write_all(buf),
            (Inner::Device { out, .. }, None) => out.write_all(buf),
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

/// The block a file is copied through the inert filter in: large, so the filter's runs and
/// the writes are long.
const FILTERED_BLOCK: usize = 1 << 18;

impl AppendFile for Output {
    fn append_file(&mut self, file: &mut File, len: u64) -> io::Result<u64> {
        if self.filter.is_some() {
            // Through the filter, in user space, in large blocks (the filter passes what it
            // need not escape straight from the block).
            let mut block = vec![0u8; FILTERED_BLOCK.min(len as usize).max(1)];
            let (mut copied, mut file) = (0u64, file.take(len));
            loop {
                let read = match file.read(&mut block) {
                    Ok(0) => return Ok(copied),
                    Ok(read) => read,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                };
                self.write_all(&block[..read])?;
                copied += read as u64;
            }
        }
        // Flushed first, then the standard library's copy between file descriptors
        // (copy_file_range, sendfile or splice where the kernel has them).
        match &mut self.inner {
            Inner::Stdout(out) => {
                out.flush()?;
                out.get_mut().append_file(file, len)
            }
            Inner::File { temp, .. } => {
                temp.flush()?;
                let copied = io::copy(&mut file.take(len), temp.get_mut().as_file_mut())?;
                temp.get_mut().wrote(copied);
                Ok(copied)
            }
            Inner::Device { out, .. } => {
                out.flush()?;
                out.get_mut().append_file(file, len)
            }
        }
    }
}

/// Writes `text` and a line end to standard error in one write, if it can: a closed or full
/// standard error (`2>&-`, `2>/dev/full`, a closed pipe) loses the message but changes
/// nothing else (unlike `eprintln!`, which panics).
pub fn to_stderr(text: &str) {
    let mut line = String::with_capacity(text.len() + 1);
    line.push_str(text);
    line.push('\n');
    write_stderr(&line);
}

/// Writes `line` to standard error in one write, inert, if it can.
fn write_stderr(line: &str) {
    // No line of it can be a workflow command in a CI log, whatever the message quotes.
    let mut out = InertWriter::new(Vec::with_capacity(line.len()), Syntax::Text);
    if out.write_all(line.as_bytes()).is_ok() {
        if let Ok(line) = out.finish() {
            let _ = io::stderr().lock().write_all(&line);
        }
    }
}

/// Standard error for the many lines of a run (`validate`'s errors and warnings): written
/// until a write fails (a closed or full standard error), dropped from then on; the run and
/// its exit status go on as they would have.
pub struct StderrLines {
    /// No line of it can be a workflow command in a CI log, whatever the messages quote.
    out: InertWriter<BufWriter<io::Stderr>>,
    failed: bool,
}

impl StderrLines {
    /// Lines to standard error, buffered until [`StderrLines::flush`] or the drop.
    pub fn new() -> StderrLines {
        StderrLines {
            out: InertWriter::new(
                BufWriter::with_capacity(1 << 16, io::stderr()),
                Syntax::Text,
            ),
            failed: false,
        }
    }

    /// Writes `line` and a line end, unless a write failed before.
    pub fn line(&mut self, line: impl std::fmt::Display) {
        if !self.failed && writeln!(self.out, "{line}").is_err() {
            self.failed = true;
        }
    }

    /// Writes out what is buffered (before something goes to standard output).
    pub fn flush(&mut self) {
        if !self.failed && self.out.flush().is_err() {
            self.failed = true;
        }
    }
}

impl Default for StderrLines {
    fn default() -> StderrLines {
        StderrLines::new()
    }
}

impl Drop for StderrLines {
    fn drop(&mut self) {
        self.flush();
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
        let mut first = Output::open(Some(&a), Content::Binary).unwrap();
        first.write_all(b"new a").unwrap();
        let mut full = Output::open(Some(Path::new("/dev/full")), Content::Binary).unwrap();
        full.write_all(b"held in the buffer until the commit")
            .unwrap();
        assert!(commit_all(vec![first, full]).is_err());
        assert_eq!(fs::read(&a).unwrap(), b"old a");
        assert_eq!(temp_files(dir.path()), 0);

        let mut first = Output::open(Some(&a), Content::Binary).unwrap();
        first.write_all(b"new a").unwrap();
        let mut second = Output::open(Some(&b), Content::Binary).unwrap();
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
        let mut out = Output::open(Some(&report), Content::Binary).unwrap();
        out.write_all(b"<problems/>").unwrap();
        let mut other = Output::open(Some(&gradebook), Content::Binary).unwrap();
        other.write_all(b"new").unwrap();
        commit_problem_report(out, vec![other]).unwrap();
        assert_eq!(fs::read(&report).unwrap(), b"<problems/>");
        assert_eq!(fs::read(&gradebook).unwrap(), b"old");
        assert_eq!(temp_files(dir.path()), 0);
    }
}
