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
//! full) is the run's, and says so ([`EntryFailure::Run`]). A learner's entries are copied
//! (from a folder) or unpacked (from a zip) here ([`copy_entry`], [`unzip_item`]), counted
//! against [`MAX_UPLOAD_FILES`] and the download's size limits as they are.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::Path;

use crate::grading::submission_file::{open_submission, InstructorFiles};
use crate::grading::upload::{too_many_files, MAX_UPLOAD_FILES};
use crate::input::{InputError, InputErrors};

use super::entries::{
    folder_entries, Kind, Metered, ZipItem, MAX_DEPTH, MAX_DOWNLOAD_BYTES, MAX_FILE_BYTES,
};

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

/// Puts an entry in the learner's tree with `make`: a failure because of its name (too long,
/// another entry's) is a problem of the learner's upload, named `shown`; any other is the
/// run's.
fn place_entry(
    shown: &str,
    problems: &mut InputErrors,
    make: impl FnOnce() -> io::Result<()>,
) -> io::Result<()> {
    match make() {
        Ok(()) => Ok(()),
        Err(e) => match entry_failure(shown, e) {
            EntryFailure::Entry(problem) => {
                problems.push(problem);
                Ok(())
            }
            EntryFailure::Run(e) => Err(e),
        },
    }
}

/// A learner's upload being put together: its problems so far, and how many more files it
/// may have ([`MAX_UPLOAD_FILES`]).
pub struct Placing {
    /// The problems of the upload.
    pub problems: InputErrors,
    files_left: usize,
}

impl Placing {
    /// Nothing placed yet.
    pub fn new() -> Placing {
        Placing {
            problems: InputErrors::new(),
            files_left: MAX_UPLOAD_FILES,
        }
    }

    /// Counts one more file; `false` (and the problem said once) past [`MAX_UPLOAD_FILES`]:
    /// an upload of more is no learner's matrix and its notes, and is not unpacked further.
    pub fn one_more_file(&mut self) -> bool {
        match self.files_left {
            0 => false,
            1 => {
                self.files_left = 0;
                self.problems.push(too_many_files());
                true
            }
            _ => {
                self.files_left -= 1;
                true
            }
        }
    }

    /// Whether the upload has passed [`MAX_UPLOAD_FILES`].
    pub fn is_full(&self) -> bool {
        self.files_left == 0
    }
}

/// Copies `from` (a `kind` entry) to `to`; `shown` is its place in the upload. A file is
/// opened as a submission is (a link, a hard link or an instructor's file is a problem); a
/// link becomes one that points nowhere; a folder is copied whole but for its litter.
pub fn copy_entry(
    from: &Path,
    kind: Kind,
    to: &Path,
    shown: &str,
    instructor: &InstructorFiles,
    depth: usize,
    placing: &mut Placing,
) -> io::Result<()> {
    let problems = &mut placing.problems;
    match kind {
        Kind::Link => place_entry(shown, problems, || dangling_link(to)),
        Kind::File => {
            let mut file = match open_submission(from, shown, instructor) {
                Ok(file) => file,
                Err(problem) => {
                    problems.push(problem);
                    return Ok(());
                }
            };
            match copy_limited(&mut file, to, MAX_FILE_BYTES) {
                Ok(copied) if copied > MAX_FILE_BYTES => problems.push(too_large(shown)),
                Ok(_) => {}
                Err(CopyFailure::Read(e)) => {
                    problems.push(InputError::new(shown, 0, format!("cannot read: {e}")))
                }
                Err(CopyFailure::Create(e) | CopyFailure::Write(e)) => {
                    place_entry(shown, problems, || Err(e))?
                }
            }
            Ok(())
        }
        Kind::Folder => {
            let mut made = true;
            place_entry(shown, problems, || {
                make_folders(to).inspect_err(|_| made = false)
            })?;
            if depth >= MAX_DEPTH || !made {
                return Ok(());
            }
            for entry in folder_entries(from)? {
                if entry.kind != Kind::Folder && !placing.one_more_file() {
                    return Ok(());
                }
                let shown = if shown.is_empty() {
                    entry.name.clone()
                } else {
                    format!("{shown}/{}", entry.name)
                };
                copy_entry(
                    &from.join(&entry.os_name),
                    entry.kind,
                    &to.join(&entry.os_name),
                    &shown,
                    instructor,
                    depth + 1,
                    placing,
                )?;
            }
            Ok(())
        }
    }
}

/// Why a copy failed: making the file (its name), reading what is copied, or writing it.
enum CopyFailure {
    Create(io::Error),
    Read(io::Error),
    Write(io::Error),
}

/// Copies `reader` to a new file at `to` (the owner's alone: [`create_file`]), at
/// most `limit` bytes and one more; returns how many bytes were copied (more than `limit`: it
/// was cut there).
fn copy_limited(reader: &mut dyn Read, to: &Path, limit: u64) -> Result<u64, CopyFailure> {
    let mut out = create_file(to).map_err(CopyFailure::Create)?;
    let mut reader = reader.take(limit + 1);
    let mut buf = vec![0u8; 64 << 10];
    let mut copied = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CopyFailure::Read(e)),
        };
        out.write_all(&buf[..n]).map_err(CopyFailure::Write)?;
        copied += n as u64;
    }
    Ok(copied)
}

fn too_large(shown: &str) -> InputError {
    InputError::new(
        shown,
        0,
        format!(
            "cannot be graded: it is larger than {} bytes (1 GiB) unpacked",
            MAX_FILE_BYTES
        ),
    )
}

/// Unpacks one zip item to `path` (`shown`: its place in the upload), counting what it
/// inflates to against the limits.
pub fn unzip_item(
    archive: &mut zip::ZipArchive<Metered>,
    item: &ZipItem,
    path: &Path,
    shown: &str,
    unpacked: &mut u64,
    problems: &mut InputErrors,
) -> io::Result<()> {
    match item.kind {
        Kind::Folder => place_entry(shown, problems, || make_folders(path)),
        Kind::Link => place_entry(shown, problems, || dangling_link(path)),
        Kind::File => {
            if *unpacked > MAX_DOWNLOAD_BYTES {
                return Err(io::Error::other(format!(
                    "the download inflates to more than {MAX_DOWNLOAD_BYTES} bytes (16 GiB), the \
                     most a download may"
                )));
            }
            let mut file = match archive.by_index(item.index) {
                Ok(file) if !file.encrypted() => file,
                Ok(_) => {
                    problems.push(InputError::new(
                        shown,
                        0,
                        "cannot be graded: it is encrypted in the download",
                    ));
                    return Ok(());
                }
                Err(e) => {
                    problems.push(InputError::new(shown, 0, format!("cannot unpack: {e}")));
                    return Ok(());
                }
            };
            let copied = match copy_limited(&mut file, path, MAX_FILE_BYTES) {
                Ok(copied) => copied,
                // A damaged entry (a bad checksum, a truncated stream) is the learner's file
                // that cannot be read, not the run's failure.
                Err(CopyFailure::Read(e))
                    if e.kind() == io::ErrorKind::InvalidData
                        || e.kind() == io::ErrorKind::UnexpectedEof =>
                {
                    problems.push(InputError::new(shown, 0, format!("cannot unpack: {e}")));
                    return Ok(());
                }
                Err(CopyFailure::Read(e)) => return Err(e),
                Err(CopyFailure::Create(e) | CopyFailure::Write(e)) => {
                    return place_entry(shown, problems, || Err(e));
                }
            };
            *unpacked += copied;
            if copied > MAX_FILE_BYTES {
                problems.push(too_large(shown));
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_cut_past_its_limit_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        let copied = copy_limited(&mut io::repeat(b'x').take(100), &path, 10)
            .ok()
            .unwrap();
        assert_eq!(copied, 11, "one byte past the limit tells it was reached");
        assert_eq!(fs::metadata(&path).unwrap().len(), 11);
        let path = dir.path().join("small");
        let copied = copy_limited(&mut io::repeat(b'x').take(10), &path, 10)
            .ok()
            .unwrap();
        assert_eq!(copied, 10);
    }
}

#[cfg(all(test, unix))]
mod unix_tests {
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
