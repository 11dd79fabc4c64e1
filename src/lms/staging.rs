//! The owner's private tree a class's download is put together in (issue 36): learners'
//! files are no one else's to read or change while they are graded. Its root is made with
//! mode `0700` before anything goes in, so no other local user can enter it, list it, or swap
//! a file in it between unpacking and grading; within it every folder is made `0700` and
//! every file `0600` as it is created (not changed after the data is in), whatever the umask.
//! A file is created only where nothing is (`O_EXCL`), never through a link (`O_NOFOLLOW`).
//!
//! An entry that cannot be put there because of its name (too long for the file system, the
//! name of another entry, a folder where a file is) is the learner's problem, named by the
//! entry ([`EntryFailure::Entry`]); a failure of the disk the temporary directory is on (it is
//! full) is the run's, and says so ([`EntryFailure::Run`]).

use std::fs::{self, File};
use std::io;
use std::path::Path;

use crate::input::InputError;

/// The mode of an unpacked folder.
pub const FOLDER_MODE: u32 = 0o700;

/// The mode of an unpacked file.
pub const FILE_MODE: u32 = 0o600;

/// Makes `path` and the folders above it that are not there yet, each `0700`.
pub fn make_folders(path: &Path) -> io::Result<()> {
    if fs::symlink_metadata(path).is_ok_and(|meta| meta.is_dir()) {
        return Ok(());
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        make_folders(parent)?;
    }
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, FOLDER_MODE);
    builder.create(path)?;
    // A umask that takes the owner's own bits (`077` does not; `277` would) is undone on the
    // empty folder, before anything goes in.
    set_mode(path, FOLDER_MODE)
}

/// Creates the file `path` (its folders made) for writing: a new file, `0600`, not through a
/// link; an entry there already is an error (`EEXIST`).
pub fn create_file(path: &Path) -> io::Result<File> {
    if let Some(parent) = path.parent() {
        make_folders(parent)?;
    }
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(FILE_MODE).custom_flags(libc::O_NOFOLLOW);
    }
    let file = options.open(path)?;
    #[cfg(unix)]
    {
        // As for a folder: the empty file, before a byte is in it.
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(fs::Permissions::from_mode(FILE_MODE))?;
    }
    Ok(file)
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

/// What a link in the download becomes: a link to this name, which no unpacked entry can
/// have (a name starting with `.` is never unpacked or copied), so it points nowhere.
const NOWHERE: &str = ".a symbolic link in the download";

/// A link at `path` that points nowhere: the upload had a link there, and the rule refuses
/// links without following them.
pub fn dangling_link(path: &Path) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        make_folders(parent)?;
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(NOWHERE, path)
    }
    #[cfg(not(unix))]
    {
        // Without symbolic links, an empty file stands for it.
        create_file(path).map(drop)
    }
}

/// Why an entry could not be put in the tree.
#[derive(Debug)]
pub enum EntryFailure {
    /// Its name: the learner's upload has a problem, named by the entry.
    Entry(InputError),
    /// The disk (full, failing): the run cannot go on.
    Run(io::Error),
}

/// What the failure `e` of putting the entry `shown` (its place in the learner's upload) in
/// the tree is: the entry's, when its name is why (too long, another entry's, a file where a
/// folder must be, a character the file system refuses), else the run's.
pub fn entry_failure(shown: &str, e: io::Error) -> EntryFailure {
    #[cfg(unix)]
    let why = match e.raw_os_error() {
        Some(libc::ENAMETOOLONG) => Some("its name is too long for the file system"),
        Some(libc::EEXIST) => Some("another entry of the upload has its name"),
        Some(libc::ENOTDIR) => Some("a file of the upload has the name of a folder on its way"),
        Some(libc::EISDIR) => Some("a folder of the upload has its name"),
        Some(libc::ELOOP) => Some("a link of the upload has the name of a folder on its way"),
        Some(libc::EILSEQ | libc::EINVAL) => Some("the file system refuses its name"),
        _ => None,
    };
    #[cfg(not(unix))]
    let why = match e.kind() {
        io::ErrorKind::AlreadyExists => Some("another entry of the upload has its name"),
        io::ErrorKind::InvalidInput => Some("the file system refuses its name"),
        _ => None,
    };
    match why {
        Some(why) => EntryFailure::Entry(InputError::new(
            shown,
            0,
            format!("cannot be graded: it cannot be unpacked: {why} ({e})"),
        )),
        None => EntryFailure::Run(crate::store::temp_error(
            &format!("cannot unpack {}", crate::output::escape_controls(shown)),
            e,
        )),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn folders_and_files_are_the_owners_alone_and_never_made_through_a_link() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("a/b/matrix.csv");
        create_file(&file).unwrap().write_all(b"x").unwrap();
        assert_eq!(mode(&root.path().join("a")), FOLDER_MODE);
        assert_eq!(mode(&root.path().join("a/b")), FOLDER_MODE);
        assert_eq!(mode(&file), FILE_MODE);
        // A second entry of one name is refused, not written over the first.
        let e = create_file(&file).unwrap_err();
        assert!(matches!(
            entry_failure("a/b/matrix.csv", e),
            EntryFailure::Entry(_)
        ));
        assert_eq!(fs::read(&file).unwrap(), b"x");
        // A link (pointing nowhere) is not written through.
        let link = root.path().join("l.csv");
        dangling_link(&link).unwrap();
        assert!(create_file(&link).is_err());
        assert!(fs::read_dir(root.path()).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with('.')));
        let long = root.path().join("x".repeat(300));
        match entry_failure("x", create_file(&long).unwrap_err()) {
            EntryFailure::Entry(problem) => {
                assert!(problem.message.contains("too long"), "{problem}")
            }
            EntryFailure::Run(e) => panic!("{e}"),
        }
    }
}
