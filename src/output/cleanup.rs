//! Interrupted runs leave nothing: the named temporary files (and directories) of unfinished
//! outputs are registered here, and SIGINT, SIGTERM and SIGHUP remove them before the process
//! exits with 128 + the signal's number.
//!
//! Commits hold the registry's lock while they rename, so a signal either comes before a
//! commit (every output stays as it was) or waits until every output of the run is in place.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The temporary files of outputs not yet committed or dropped.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The registry, even if a thread panicked while holding it (a list of paths cannot be left
/// inconsistent by a panic).
pub(crate) fn live() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Forgets `path` (it was renamed into place or removed).
pub(crate) fn forget(live: &mut Vec<PathBuf>, path: &Path) {
    if let Some(index) = live.iter().position(|p| p == path) {
        live.swap_remove(index);
    }
}

/// A temporary file that is not an output (a copy of standard input that a command reads
/// twice), which must be opened again by path. On Linux it is anonymous (unlinked at
/// creation) and named through `/proc/self/fd`, so no signal, not even SIGKILL, leaves it
/// behind; elsewhere it is a named file, removed when dropped and by SIGINT, SIGTERM and
/// SIGHUP like an output's temporary file.
pub struct GuardedTemp {
    file: std::fs::File,
    path: PathBuf,
    /// The name of a named file, removed when dropped; `None` for an anonymous one.
    named: Option<tempfile::TempPath>,
}

impl GuardedTemp {
    /// A new temporary file in the temporary directory (an error names it).
    pub fn new() -> std::io::Result<GuardedTemp> {
        GuardedTemp::make().map_err(|e| crate::store::temp_error("cannot make a temporary file", e))
    }

    fn make() -> std::io::Result<GuardedTemp> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let file = tempfile::tempfile()?;
            let path = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
            // Without /proc mounted the anonymous file cannot be opened again: use a name.
            if std::fs::File::open(&path).is_ok() {
                return Ok(GuardedTemp {
                    file,
                    path,
                    named: None,
                });
            }
        }
        let (file, named) = tempfile::NamedTempFile::new()?.into_parts();
        live().push(named.to_path_buf());
        Ok(GuardedTemp {
            file,
            path: named.to_path_buf(),
            named: Some(named),
        })
    }

    /// A path that opens the file again.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The open file, for writing.
    pub fn as_file_mut(&mut self) -> &mut std::fs::File {
        &mut self.file
    }
}

impl Drop for GuardedTemp {
    fn drop(&mut self) {
        // A named file is removed by its TempPath's own drop, after this.
        if let Some(named) = &self.named {
            forget(&mut live(), named);
        }
    }
}

/// A temporary directory that is not an output (the files of a class's download, unpacked
/// to be graded): removed when dropped, and by SIGINT, SIGTERM and SIGHUP like an output's
/// temporary file, so an interrupted run leaves nothing behind.
///
/// It is made only in a temporary directory no other user can rename things in
/// (`trusted.rs`), and held open once made: on Linux its [`path`](GuardedTempDir::path)
/// reaches it through the open handle (`/proc/self/fd/N`), so whatever is done to its name in
/// the temporary directory, what is written and read under that path is in the directory that
/// was made (issue 36: a tree renamed away and another put in its place took a learner's
/// matrix).
pub struct GuardedTempDir {
    /// Taken when dropped.
    dir: Option<tempfile::TempDir>,
    /// The open directory, while it is in use.
    _handle: Option<std::fs::File>,
    /// How it is reached: through the handle, or (without `/proc`) by its name.
    reached: PathBuf,
}

impl GuardedTempDir {
    /// A new directory in the temporary directory, its name starting with `prefix`, the
    /// owner's alone: made with mode `0700` whatever the umask, before anything goes in, so
    /// no other local user can enter it (a class's submissions unpacked in it are no one
    /// else's to read, or to swap between unpacking and grading). A temporary directory that
    /// another user owns, or may write to without the sticky bit, is refused, naming it.
    pub fn private(prefix: &str) -> std::io::Result<GuardedTempDir> {
        let parent = super::trusted::trusted_temp_dir()?;
        // Created and registered under the lock: a signal cannot fall in between.
        let mut live = live();
        let mut builder = tempfile::Builder::new();
        builder.prefix(prefix);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o700));
        }
        let dir = builder.tempdir_in(parent)?;
        live.push(dir.path().to_owned());
        drop(live);
        let reached = dir.path().to_owned();
        let mut dir = GuardedTempDir {
            dir: Some(dir),
            _handle: None,
            reached,
        };
        // A umask that takes the owner's own bits is undone while it is empty.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(dir.named(), std::fs::Permissions::from_mode(0o700))?;
        }
        dir.hold()?;
        Ok(dir)
    }

    /// Opens the directory and, where `/proc` reaches an open handle, uses the handle's path.
    fn hold(&mut self) -> std::io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
            let handle = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
                .open(self.named())?;
            let made = handle.metadata()?;
            let through = PathBuf::from(format!("/proc/self/fd/{}", handle.as_raw_fd()));
            let same = std::fs::metadata(&through)
                .is_ok_and(|seen| seen.dev() == made.dev() && seen.ino() == made.ino());
            if same {
                self.reached = through;
                self._handle = Some(handle);
            }
        }
        Ok(())
    }

    /// Its name in the temporary directory.
    fn named(&self) -> &Path {
        self.dir.as_ref().expect("taken only when dropped").path()
    }

    /// A path that reaches it: through its open handle where the system allows, else its
    /// name.
    pub fn path(&self) -> &Path {
        &self.reached
    }
}

impl Drop for GuardedTempDir {
    fn drop(&mut self) {
        // Removed, then forgotten, under the lock: a signal either removes it or finds it gone.
        let mut live = live();
        if let Some(dir) = self.dir.take() {
            let path = dir.path().to_owned();
            let _ = dir.close();
            forget(&mut live, &path);
        }
    }
}

/// Makes an entry in a temporary directory with `make`, where no signal's cleanup can be
/// removing it at the same time: a cleanup that removed a tree while another thread went on
/// adding to it found it not empty and left it (issue 36). Once a signal has come, `make`
/// never runs: the process exits first.
pub fn creating_in_temp<T>(make: impl FnOnce() -> T) -> T {
    let _live = live();
    make()
}

/// Removes every registered temporary file and directory and exits with 128 + `signal`.
fn remove_all_and_exit(signal: i32) -> ! {
    let live = live();
    for path in live.iter() {
        if std::fs::remove_file(path).is_err() {
            let _ = std::fs::remove_dir_all(path);
        }
    }
    // The lock is kept: no commit may start after the files are gone.
    std::process::exit(128 + signal)
}

/// Installs the handlers for SIGINT, SIGTERM and SIGHUP: a thread that waits for one, removes
/// the temporary files of unfinished outputs and exits with 128 + the signal. Call it once,
/// before any output is opened (the command line does, first thing).
#[cfg(unix)]
pub fn install_signal_handlers() -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("signals".into())
        .stack_size(64 * 1024)
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                remove_all_and_exit(signal);
            }
        })?;
    Ok(())
}

/// Signals are not handled off Unix; Ctrl-C ends the process as it would anyway.
#[cfg(not(unix))]
pub fn install_signal_handlers() -> std::io::Result<()> {
    Ok(())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::fs;

    /// Another user who could rename the tree away and put theirs in its place (a temporary
    /// directory that is theirs is refused, `trusted.rs`) would still take nothing: what is
    /// written and read after goes to the tree that was made.
    #[test]
    fn a_tree_renamed_away_under_the_run_takes_nothing_written_after() {
        let dir = GuardedTempDir::private("leasejudge-test-").unwrap();
        fs::write(dir.path().join("before"), b"1").unwrap();
        let named = dir.named().to_owned();
        let away = named.with_extension("old");
        fs::rename(&named, &away).unwrap();
        fs::create_dir(&named).unwrap();
        fs::write(named.join("planted"), b"20").unwrap();
        fs::write(dir.path().join("after"), b"2").unwrap();
        assert!(!dir.path().join("planted").exists());
        assert!(!named.join("after").exists());
        assert_eq!(fs::read(away.join("after")).unwrap(), b"2");
        assert_eq!(fs::read(dir.path().join("before")).unwrap(), b"1");
        // Put back, so that it is removed with the rest.
        fs::remove_dir_all(&named).unwrap();
        fs::rename(&away, &named).unwrap();
        drop(dir);
        assert!(!named.exists());
    }
}
