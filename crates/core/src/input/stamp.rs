//! What a case file was when a run opened it (its identity, size and modification time), so
//! that a file changed, truncated or replaced under the run is found and refused, never read
//! as a mix of two files.

use std::fs::{File, Metadata};
use std::io;
use std::path::Path;
use std::time::SystemTime;

use super::InputError;
use crate::input::ErrorKind;

/// A regular file as it was: which file it is, how long, and when it was last written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileStamp {
    /// Device and inode (0 off Unix): which file a path names.
    identity: (u64, u64),
    len: u64,
    modified: Option<SystemTime>,
}

impl FileStamp {
    /// The stamp of an open file, if it is a regular file (a FIFO or a device has no size to
    /// compare, and is read once).
    pub fn of_file(file: &File) -> io::Result<Option<FileStamp>> {
        file.metadata().map(|meta| FileStamp::of(&meta))
    }

    /// The stamp of the file a path names now, if it is a regular file.
    pub fn of_path(path: &Path) -> io::Result<Option<FileStamp>> {
        std::fs::metadata(path).map(|meta| FileStamp::of(&meta))
    }

    fn of(meta: &Metadata) -> Option<FileStamp> {
        meta.is_file().then(|| FileStamp {
            identity: identity(meta),
            len: meta.len(),
            modified: meta.modified().ok(),
        })
    }

    /// How `now` differs from this stamp, in words, if it does: another file, another size,
    /// or written since. A write within the file system's timestamp granularity that keeps
    /// the size cannot be seen.
    pub fn change(&self, now: Option<&FileStamp>) -> Option<String> {
        let Some(now) = now else {
            return Some("it is no longer a regular file".to_owned());
        };
        if now.identity != self.identity {
            Some("the name now leads to another file: it was renamed or replaced".to_owned())
        } else if now.len != self.len {
            Some(format!(
                "it had {} bytes when it was opened and has {} now",
                self.len, now.len
            ))
        } else if now.modified != self.modified {
            Some("it was written to after it was opened".to_owned())
        } else {
            None
        }
    }

    /// The size it had.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether it was empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(unix)]
fn identity(meta: &Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn identity(_meta: &Metadata) -> (u64, u64) {
    (0, 0)
}

/// A case file that changed while a run read it: the run's outcome would be a mix of two
/// files, so it is an input error of that file, and nothing is written.
#[derive(Debug)]
pub struct FileChanged {
    /// The file as named on the command line.
    pub file: String,
    /// How it changed.
    pub how: String,
}

impl FileChanged {
    /// The same as a whole-file [`InputError`].
    pub fn input_error(&self) -> InputError {
        InputError::new(
            ErrorKind::Refused,
            &self.file,
            0,
            format!(
                "the file changed while it was being read ({}); run again once nothing \
                 writes to it",
                self.how
            ),
        )
    }

    /// The same as an I/O error (to pass through the engine's I/O paths; the engine turns
    /// it back into an input error, see [`FileChanged::of`]).
    pub fn into_io(self) -> io::Error {
        io::Error::other(self)
    }

    /// The [`FileChanged`] an I/O error carries, if it carries one.
    pub fn of(e: &io::Error) -> Option<&FileChanged> {
        e.get_ref()
            .and_then(|inner| inner.downcast_ref::<FileChanged>())
    }
}

impl std::fmt::Display for FileChanged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.input_error().fmt(f)
    }
}

impl std::error::Error for FileChanged {}

/// Checks that the open `file`, named `name`, is as `stamp` says it was.
pub fn check_unchanged(name: &str, stamp: &FileStamp, file: &File) -> io::Result<()> {
    let now = FileStamp::of_file(file)?;
    match stamp.change(now.as_ref()) {
        None => Ok(()),
        Some(how) => Err(FileChanged {
            file: name.to_owned(),
            how,
        }
        .into_io()),
    }
}
