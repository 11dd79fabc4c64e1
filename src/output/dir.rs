//! An output that is a directory (a PrairieLearn question): written whole in a temporary
//! directory beside its target, then renamed into place, so that a run that fails or is
//! interrupted leaves the target as it was and nothing half-written behind. A target that
//! exists is swapped with the new directory in one step where the kernel can
//! (`renameat2(RENAME_EXCHANGE)` on Linux), then the old one is removed.

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::{cleanup, Registration};

/// A directory being written, renamed over its target on [`OutputDir::commit`].
pub struct OutputDir {
    temp: tempfile::TempDir,
    target: PathBuf,
    // Dropped after `temp` (fields drop in order): the directory is gone before it is
    // forgotten.
    registration: Registration,
}

impl OutputDir {
    /// Starts writing `target`, a directory that may not exist yet (its parent must).
    pub fn create(target: &Path) -> Result<OutputDir> {
        if fs::metadata(target).is_ok_and(|meta| !meta.is_dir()) {
            anyhow::bail!("cannot write {}: it is not a directory", target.display());
        }
        let parent = match target.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        if !parent.is_dir() {
            anyhow::bail!(
                "cannot write {}: there is no directory {}",
                target.display(),
                parent.display()
            );
        }
        // Created and registered under the lock: a signal cannot fall in between.
        let mut live = cleanup::live();
        let mut builder = tempfile::Builder::new();
        builder.prefix(".leasejudge-").suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // What any new directory gets: rwx for all, less the umask.
            builder.permissions(fs::Permissions::from_mode(0o777));
        }
        let temp = builder.tempdir_in(parent).with_context(|| {
            format!(
                "cannot write {}: cannot make a temporary directory in {}",
                target.display(),
                parent.display()
            )
        })?;
        live.push(temp.path().to_owned());
        let registration = Registration(temp.path().to_owned());
        drop(live);
        Ok(OutputDir {
            temp,
            target: target.to_owned(),
            registration,
        })
    }

    /// Writes the file `relative` (`/`-separated; its directories are made) with `contents`
    /// and the Unix permissions `mode` less the umask (an answer key is no more open than
    /// the umask lets new files be); returns how many bytes it has.
    pub fn write_file(&self, relative: &str, mode: u32, contents: &mut dyn Read) -> Result<u64> {
        // Under the registry's lock: a signal's cleanup cannot remove the directory while a
        // file is being made in it (which left it behind, not empty), and once it has, no
        // file is made again.
        let _live = cleanup::live();
        let path = relative
            .split('/')
            .fold(self.temp.path().to_owned(), |path, part| path.join(part));
        let what = || format!("cannot write {}/{relative}", self.target.display());
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).with_context(what)?;
        }
        let mut file = create_file(&path, mode).with_context(what)?;
        let bytes = io::copy(contents, &mut file).with_context(what)?;
        file.sync_all().with_context(what)?;
        Ok(bytes)
    }

    /// Renames the directory into place; a target that exists is replaced whole.
    pub fn commit(self) -> Result<()> {
        self.commit_checked(&|_| Ok(()))
    }

    /// [`OutputDir::commit`], the replaced directory checked by `replaced` once it is out of
    /// place (swapped out in one step, so nothing can be added to it by its name any more):
    /// if it fails (a file was added to the target while this one was written), the two are
    /// swapped back and nothing is replaced.
    pub fn commit_checked(self, replaced: &dyn Fn(&Path) -> Result<()>) -> Result<()> {
        self.commit_with(replaced, Vec::new())
    }

    /// [`OutputDir::commit_checked`], and with it the files `also` (finished, waiting to be
    /// renamed into place: a PrairieLearn course's shared binary), renamed into place once the
    /// directory is, under the same hold on signals: a directory that cannot be put in place
    /// (or fails its check) leaves them as they were too.
    pub fn commit_with(
        self,
        replaced: &dyn Fn(&Path) -> Result<()>,
        also: Vec<super::Finished>,
    ) -> Result<()> {
        let OutputDir {
            temp,
            target,
            registration,
        } = self;
        let mut live = cleanup::live();
        let written = temp.keep();
        let result = install(&written, &target, replaced);
        if result.is_err() {
            let _ = fs::remove_dir_all(&written);
        }
        cleanup::forget(&mut live, &registration.0);
        // Its drop would take the registry's lock, which is held here.
        std::mem::forget(registration);
        if result.is_ok() {
            // Each is renamed (none may be dropped here: its drop takes the lock held).
            let mut first_error = None;
            for file in also {
                if let Err(e) = file.persist_locked(&mut live) {
                    first_error.get_or_insert(e);
                }
            }
            if let Some(e) = first_error {
                return Err(e);
            }
        } else {
            // Their temporary files are removed (which takes the registry's lock).
            drop(live);
            drop(also);
        }
        match result {
            Ok(()) => Ok(()),
            Err(Refused::Check(e)) => Err(e),
            Err(Refused::Io(e)) => {
                Err(e).with_context(|| format!("cannot write {}", target.display()))
            }
        }
    }
}

/// Why a directory was not put in place.
enum Refused {
    /// The replaced directory's check failed: nothing was replaced.
    Check(anyhow::Error),
    /// A rename or removal failed.
    Io(io::Error),
}

impl From<io::Error> for Refused {
    fn from(e: io::Error) -> Refused {
        Refused::Io(e)
    }
}

/// Puts the directory `written` at `target`: a rename, or for a target that is there and not
/// empty, an exchange of the two, after which the old directory (now at `written`) is checked
/// by `replaced` and removed, or, failing the check, swapped back.
fn install(
    written: &Path,
    target: &Path,
    replaced: &dyn Fn(&Path) -> Result<()>,
) -> std::result::Result<(), Refused> {
    // A new question has a new directory's permissions (rwx less the umask, as it was made);
    // one that replaces a question keeps that one's.
    if let Some(mode) = super::mode_of(target, fs::Metadata::is_dir) {
        set_mode(written, mode)?;
    }
    match fs::rename(written, target) {
        Ok(()) => return Ok(()),
        Err(e) if !target.is_dir() => return Err(e.into()),
        Err(_) => {}
    }
    exchange(written, target)?;
    if let Err(e) = replaced(written) {
        exchange(written, target)?;
        return Err(Refused::Check(e));
    }
    Ok(fs::remove_dir_all(written)?)
}

/// Swaps two directories in one step.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let a = CString::new(a.as_os_str().as_bytes())?;
    let b = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both are NUL-terminated paths that live for the call.
    let done = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if done == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Swaps two directories: the old one is moved aside first, so for a moment the target is
/// missing (no kernel call swaps them here).
#[cfg(not(target_os = "linux"))]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    let aside = a.with_extension("old");
    fs::rename(b, &aside)?;
    if let Err(e) = fs::rename(a, b) {
        let _ = fs::rename(&aside, b);
        return Err(e);
    }
    fs::rename(&aside, a)
}

/// Creates the new file `path` with the permissions `mode`, less the umask.
#[cfg(unix)]
fn create_file(path: &Path, mode: u32) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
}

#[cfg(not(unix))]
fn create_file(path: &Path, _mode: u32) -> io::Result<File> {
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leftovers(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with(".leasejudge-"))
            .collect()
    }

    #[test]
    fn a_directory_is_renamed_into_place_whole_or_not_at_all() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("question");
        let out = OutputDir::create(&target).unwrap();
        out.write_file("tests/run", 0o755, &mut &b"#!/bin/sh\n"[..])
            .unwrap();
        assert!(!target.exists(), "nothing is in place before the commit");
        out.commit().unwrap();
        assert_eq!(fs::read(target.join("tests/run")).unwrap(), b"#!/bin/sh\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&target.join("tests/run")), 0o755);
            assert_eq!(mode(&target), 0o755);
        }
        // Replaced whole: a file only the old one had is gone.
        fs::write(target.join("old.txt"), "old").unwrap();
        let out = OutputDir::create(&target).unwrap();
        out.write_file("info.json", 0o644, &mut &b"{}"[..]).unwrap();
        out.commit().unwrap();
        assert!(!target.join("old.txt").exists());
        assert!(!target.join("tests").exists());
        assert_eq!(fs::read(target.join("info.json")).unwrap(), b"{}");
        // Dropped without a commit: the target is as it was, the temporary directory gone.
        let out = OutputDir::create(&target).unwrap();
        out.write_file("info.json", 0o644, &mut &b"new"[..])
            .unwrap();
        drop(out);
        assert_eq!(fs::read(target.join("info.json")).unwrap(), b"{}");
        assert!(
            leftovers(root.path()).is_empty(),
            "{:?}",
            leftovers(root.path())
        );
        assert!(cleanup::live().iter().all(|p| !p.starts_with(root.path())));
    }

    #[test]
    fn a_replaced_directory_that_fails_its_check_is_put_back() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("question");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("added.txt"), "the instructor's").unwrap();
        let out = OutputDir::create(&target).unwrap();
        out.write_file("info.json", 0o644, &mut &b"new"[..])
            .unwrap();
        let refused = out
            .commit_checked(&|replaced| {
                assert!(
                    replaced.join("added.txt").is_file(),
                    "the old one is checked"
                );
                anyhow::bail!("added.txt appeared")
            })
            .unwrap_err();
        assert_eq!(refused.to_string(), "added.txt appeared");
        assert_eq!(
            fs::read(target.join("added.txt")).unwrap(),
            b"the instructor's"
        );
        assert!(!target.join("info.json").exists());
        assert!(leftovers(root.path()).is_empty());
    }
}
