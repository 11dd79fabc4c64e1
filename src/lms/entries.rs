//! A download's entries as the file system or a zip has them, for the download (`download`)
//! and for the private tree its learners' files are put in (`staging`): what an entry is,
//! what is litter, a folder's entries and a zip's, its directory read within bounds, and the
//! limits on what a download holds.

use std::cell::Cell;
use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::rc::Rc;

use super::zip_shadows::Shadow;

/// The most one unpacked file may inflate to: far more than a matrix of the largest lab.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// The most a zip download may inflate to in all.
pub const MAX_DOWNLOAD_BYTES: u64 = 16 << 30;

/// The most entries a download may have (a zip's, or a folder's at its top): the zip
/// crate keeps some 500 bytes in memory for each entry of a zip's directory, and a class's
/// download is graded within 256 MiB (500,000 entries took 529 MB).
pub const MAX_ZIP_ENTRIES: usize = 100_000;

/// The most bytes of a zip's directory that are read: what the zip crate keeps in memory is
/// about eight times as much (its entries, each name three times), so this bounds the memory
/// of a download's directory whatever its entries' names, as [`MAX_ZIP_ENTRIES`] bounds their
/// number (100,000 entries named as Canvas names them take about 9 MiB).
pub const MAX_ZIP_DIRECTORY_BYTES: u64 = 12 << 20;

/// How deep folders are copied or unpacked.
pub(super) const MAX_DEPTH: usize = 32;

/// What an entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A folder.
    Folder,
    /// A symbolic link (never followed).
    Link,
}

/// A top-level entry of the download.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its name (a name that is not UTF-8 with U+FFFD for what is not).
    pub name: String,
    /// What it is.
    pub kind: Kind,
    /// Its name as the system has it, bytes and all (the zip's decoded name for a zip).
    pub os_name: OsString,
}

/// Whether `name` is what an operating system or a spreadsheet leaves beside a file (the
/// autograders' rule skips the same).
pub fn is_litter(name: &str) -> bool {
    name.starts_with('.') || name.starts_with("~$") || name == "__MACOSX"
}

/// One entry of a zip download.
pub(super) struct ZipItem {
    /// Its index in the archive.
    pub(super) index: usize,
    /// Its path's components below the download's root.
    pub(super) components: Vec<String>,
    /// What it is.
    pub(super) kind: Kind,
    /// For an earlier entry of a name the archive holds again (which the archive's index
    /// does not reach), where it is.
    pub(super) shadow: Option<Shadow>,
}

/// A zip download's file, read by the zip crate: while it reads the directory, no more than
/// [`MAX_ZIP_DIRECTORY_BYTES`] of it (the crate keeps each entry the directory lists in
/// memory, however many it says there are); then as much as unpacking needs.
pub(super) struct Metered {
    file: File,
    /// Bytes that may still be read (`u64::MAX` once the directory is read).
    left: Rc<Cell<u64>>,
}

impl Read for Metered {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.left.get();
        if left == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "its directory is larger than {MAX_ZIP_DIRECTORY_BYTES} bytes (12 MiB), the \
                     most a download's may be (about {MAX_ZIP_ENTRIES} entries)"
                ),
            ));
        }
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = self.file.read(&mut buf[..want])?;
        self.left.set(left - n as u64);
        Ok(n)
    }
}

impl Seek for Metered {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.file.seek(to)
    }
}

impl Metered {
    /// `file`, its reads counted against `left` (set it to `u64::MAX` once the directory
    /// is read).
    pub(super) fn new(file: File, left: Rc<Cell<u64>>) -> Metered {
        Metered { file, left }
    }
}

/// A folder's entries, litter skipped, in name order; links are not followed. A folder of
/// more than [`MAX_ZIP_ENTRIES`] is an error, found before more are kept.
pub(super) fn folder_entries(root: &Path) -> io::Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for entry in fs::read_dir(root)? {
        let entry = entry?;
        if entries.len() == MAX_ZIP_ENTRIES {
            return Err(io::Error::other(format!(
                "holds more than {MAX_ZIP_ENTRIES} entries, the most a download's folder may"
            )));
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_litter(&name) {
            continue;
        }
        let kind = entry.file_type()?;
        let kind = if kind.is_symlink() {
            Kind::Link
        } else if kind.is_dir() {
            Kind::Folder
        } else {
            Kind::File
        };
        entries.push(Entry {
            name,
            kind,
            os_name: entry.file_name(),
        });
    }
    entries.sort_by(|a, b| a.os_name.cmp(&b.os_name));
    Ok(entries)
}

/// The top-level entries of a zip's items, litter skipped, in name order: a name with
/// entries below it is a folder (zips need not list folders).
pub(super) fn zip_entries(items: &[ZipItem]) -> Vec<Entry> {
    let mut entries: std::collections::BTreeMap<&str, Kind> = std::collections::BTreeMap::new();
    for item in items {
        let name = item.components[0].as_str();
        if is_litter(name) {
            continue;
        }
        let kind = if item.components.len() > 1 {
            Kind::Folder
        } else {
            item.kind
        };
        let slot = entries.entry(name).or_insert(kind);
        if kind == Kind::Folder {
            *slot = Kind::Folder;
        }
    }
    entries
        .into_iter()
        .map(|(name, kind)| Entry {
            name: name.to_owned(),
            kind,
            os_name: OsString::from(name),
        })
        .collect()
}
