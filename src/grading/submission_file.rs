//! Opening a submission so that it is never the key (issue 22): a submission is a regular
//! file of its own — not a symbolic link, not a hard link, not one of the files `grade` reads
//! for the instructor — checked on the open handle that is then read, so nothing can change
//! between the check and the read.
//!
//! "A file of its own" is decided by what the file is, never by comparing path strings:
//!
//! - the submission is opened without following a symbolic link in its last component
//!   (`O_NOFOLLOW`), so a link — absolute, relative, dangling, to the key or to another
//!   submission — is refused, not read;
//! - the open handle must be a regular file (`fstat`), with one name (a hard link to any file,
//!   the key or another, has two or more);
//! - its device and inode must differ from every instructor file's: the golden file (taken from
//!   its own open handle), the case files given for hints and the baseline gradebook. This
//!   catches what a link count cannot: a bind mount, `..` in a path, or standard input
//!   redirected from the key.
//!
//! The messages say what the submission is (a link, not a regular file), never which file it
//! leads to: learners may see them.

use std::fs::{File, Metadata};
use std::io;
use std::path::Path;

use crate::input::{ErrorKind, InputError};

/// What makes two names the same file: its device and inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileId {
    device: u64,
    inode: u64,
}

impl FileId {
    #[cfg(unix)]
    fn of(meta: &Metadata) -> Option<FileId> {
        use std::os::unix::fs::MetadataExt;
        Some(FileId {
            device: meta.dev(),
            inode: meta.ino(),
        })
    }

    /// Elsewhere the standard library does not give a file's identity: only the link and
    /// file-type checks apply.
    #[cfg(not(unix))]
    fn of(_meta: &Metadata) -> Option<FileId> {
        None
    }
}

/// The files `grade` reads for the instructor (the golden file, case files, the baseline): a
/// submission may be none of them.
#[derive(Debug, Default)]
pub struct InstructorFiles {
    ids: Vec<FileId>,
}

impl InstructorFiles {
    /// No files yet.
    pub fn new() -> InstructorFiles {
        InstructorFiles::default()
    }

    /// The file open as `file` (the golden file, from the handle it is read from).
    pub fn add_open(&mut self, file: &File) {
        if let Some(id) = file.metadata().ok().as_ref().and_then(FileId::of) {
            self.ids.push(id);
        }
    }

    /// The file at `path`, following links (it is the instructor's name for it). A path that
    /// cannot be examined is left out: reading it fails with its own message.
    pub fn add_path(&mut self, path: &Path) {
        if let Some(id) = std::fs::metadata(path).ok().as_ref().and_then(FileId::of) {
            self.ids.push(id);
        }
    }

    fn holds(&self, meta: &Metadata) -> bool {
        FileId::of(meta).is_some_and(|id| self.ids.contains(&id))
    }
}

/// The message of a submission that is a symbolic link.
pub const SYMBOLIC_LINK: &str = "cannot be graded: the submission is a symbolic link, not a file \
     of its own; submit the file itself (to grade a directory through a link, end its name with /)";

/// The message of a submission named by one of this process's own descriptors
/// (`/dev/fd/63`, what a shell's `<(...)` gives): a link to a pipe, refused as every link is,
/// with what works instead.
pub const OWN_DESCRIPTOR: &str = "cannot be graded: the submission is named by a descriptor \
     (a shell's <(...) gives one), which is a symbolic link; pipe it on standard input as - instead";

/// The message of a submission that is one of the instructor's files.
pub const NOT_ITS_OWN: &str = "cannot be graded: the submission is not a file of its own (it is \
     the same file as one the grader reads for itself)";

fn refused(name: &str, message: impl Into<String>) -> InputError {
    InputError::new(ErrorKind::Refused, name, 0, message)
}

/// Checks the metadata of an open submission: a regular file (`stream_ok`: or, for standard
/// input, a pipe, terminal or socket), with one name, and none of the instructor's files.
fn check_own(
    meta: &Metadata,
    name: &str,
    instructor: &InstructorFiles,
    stream_ok: bool,
) -> Result<(), InputError> {
    if !meta.is_file() {
        if stream_ok {
            return Ok(());
        }
        return Err(refused(
            name,
            format!(
                "cannot be graded: the submission is not a regular file (it is {})",
                kind(meta)
            ),
        ));
    }
    let names = link_count(meta);
    if names > 1 {
        return Err(refused(
            name,
            format!(
                "cannot be graded: the submission is a hard link (the file has {names} names), not a \
                 file of its own; submit a copy of the file"
            ),
        ));
    }
    if instructor.holds(meta) {
        return Err(refused(name, NOT_ITS_OWN));
    }
    Ok(())
}

#[cfg(unix)]
fn link_count(meta: &Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(meta)
}

#[cfg(not(unix))]
fn link_count(_meta: &Metadata) -> u64 {
    1
}

/// What a file that is not a regular file is, for a message.
fn kind(meta: &Metadata) -> &'static str {
    let file_type = meta.file_type();
    if file_type.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return "a device";
        }
    }
    "not a file"
}

/// Opens the submission at `path` (named `name` in messages) to be read: not through a
/// symbolic link, a regular file with one name, none of `instructor`'s files. Read the
/// returned handle; never open the path again.
pub fn open_submission(
    path: &Path,
    name: &str,
    instructor: &InstructorFiles,
) -> Result<File, InputError> {
    let file = match open_no_follow(path) {
        Ok(file) => file,
        Err(e) => {
            // The last component was a link: refused by the open itself, not by a check
            // before it.
            let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
            return Err(if is_link && names_a_descriptor(path) {
                refused(name, OWN_DESCRIPTOR)
            } else if is_link {
                refused(name, SYMBOLIC_LINK)
            } else {
                InputError::unreadable(name, 0, e)
            });
        }
    };
    let meta = file
        .metadata()
        .map_err(|e| InputError::unreadable(name, 0, e))?;
    check_own(&meta, name, instructor, false)?;
    Ok(file)
}

/// Whether `path` names one of this process's descriptors (`/dev/fd/N`, `/proc/self/fd/N`,
/// `/dev/stdin`): said as such when it is refused, since "submit the file itself" would not help.
fn names_a_descriptor(path: &Path) -> bool {
    let text = path.to_string_lossy();
    ["/dev/fd/", "/proc/self/fd/"].iter().any(|prefix| {
        text.strip_prefix(prefix)
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
    }) || text == "/dev/stdin"
}

/// Opens `path` for reading without following a symbolic link in its last component, and
/// without waiting for a writer if it is a FIFO (which is then refused). `O_NONBLOCK` stays
/// set on the regular file that is read: it has no effect on regular files.
#[cfg(unix)]
fn open_no_follow(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    Ok(file)
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> io::Result<File> {
    if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(io::Error::other("a symbolic link"));
    }
    File::open(path)
}

/// Checks standard input as a submission (`-`): a pipe, terminal or socket is read as it
/// comes; a regular file (a redirect) must be one of its own, as a named submission must. A
/// redirect from a symbolic link was followed by the shell, so cannot be told from the file:
/// name such a file instead.
pub fn check_standard_input(instructor: &InstructorFiles) -> Result<(), InputError> {
    match standard_input_metadata() {
        Some(meta) => check_own(&meta, "-", instructor, true),
        None => Ok(()),
    }
}

/// Standard input as a submission (`-`), to be read as a file is: checked as
/// [`check_standard_input`] checks it; a regular file (a redirect) is read from a handle of
/// its own, as a named submission is; anything else (a pipe) is copied to an anonymous
/// temporary file as it is read, at most [`MAX_DOCUMENT_BYTES`] (the limit of a submission on
/// standard input, obeyed while it is read: past it the copy stops and the run says so),
/// and an input whose first bytes are not text (`/dev/zero`) no further than them. Its
/// format: a workbook if it starts as a zip archive does, else CSV (it has no name to say).
///
/// [`MAX_DOCUMENT_BYTES`]: crate::limits::MAX_DOCUMENT_BYTES
pub fn standard_input_submission(
    instructor: &InstructorFiles,
) -> Result<(File, crate::grading::MatrixFileFormat), InputError> {
    use crate::input::content::{read_head, sniff, Content, HEAD_BYTES};
    use std::io::Read;
    check_standard_input(instructor)?;
    let cannot = |e: io::Error| InputError::unreadable("-", 0, e);
    let mut file = match standard_input_file() {
        Some(file) => file,
        None => {
            let mut stdin = io::stdin().lock();
            let mut head = Vec::with_capacity(HEAD_BYTES);
            (&mut stdin)
                .take(HEAD_BYTES as u64)
                .read_to_end(&mut head)
                .map_err(cannot)?;
            let head = &head[..];
            let rest: Box<dyn Read + '_> = match sniff(head) {
                // Its first bytes say what it is: the reader says so from them.
                Content::NotText(_) => Box::new(io::empty()),
                _ => Box::new(stdin),
            };
            crate::limits::spool_document(head.chain(rest)).map_err(cannot)?
        }
    };
    let mut first = [0u8; 4];
    let read = read_head(&mut file, &mut first).map_err(cannot)?;
    let format = if matches!(sniff(&first[..read]), Content::Workbook) {
        crate::grading::MatrixFileFormat::Workbook
    } else {
        crate::grading::MatrixFileFormat::Csv
    };
    Ok((file, format))
}

/// Standard input's own handle, if it is a regular file (read from where it stands).
#[cfg(unix)]
fn standard_input_file() -> Option<File> {
    use std::os::fd::AsFd;
    let file = File::from(io::stdin().as_fd().try_clone_to_owned().ok()?);
    file.metadata().ok()?.is_file().then_some(file)
}

#[cfg(not(unix))]
fn standard_input_file() -> Option<File> {
    None
}

#[cfg(unix)]
fn standard_input_metadata() -> Option<Metadata> {
    use std::os::fd::AsFd;
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    File::from(fd).metadata().ok()
}

#[cfg(not(unix))]
fn standard_input_metadata() -> Option<Metadata> {
    None
}

/// Whether `path` is itself a symbolic link (not followed): a submission that is one is never
/// read, so it is no input that an output could clash with.
pub fn is_symbolic_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_its_own_opens_and_links_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("k.csv");
        std::fs::write(&key, "case_id\n").unwrap();
        let own = dir.path().join("own.csv");
        std::fs::write(&own, "case_id\n").unwrap();
        let mut instructor = InstructorFiles::new();
        instructor.add_open(&File::open(&key).unwrap());
        assert!(open_submission(&own, "own.csv", &instructor).is_ok());

        let symlink = dir.path().join("s.csv");
        std::os::unix::fs::symlink(&own, &symlink).unwrap();
        let error = open_submission(&symlink, "s.csv", &instructor).unwrap_err();
        assert_eq!(error.message, SYMBOLIC_LINK);
        // A descriptor of ours (a shell's `<(...)`) is a link too, said as what it is.
        let read = File::open(&own).unwrap();
        use std::os::fd::AsRawFd;
        let descriptor = std::path::PathBuf::from(format!("/dev/fd/{}", read.as_raw_fd()));
        let error = open_submission(&descriptor, "/dev/fd/N", &instructor).unwrap_err();
        assert_eq!(error.message, OWN_DESCRIPTOR);
        assert!(!names_a_descriptor(Path::new("/dev/fd/3x")) && !names_a_descriptor(&own));

        let hard = dir.path().join("h.csv");
        std::fs::hard_link(&own, &hard).unwrap();
        let error = open_submission(&hard, "h.csv", &instructor).unwrap_err();
        assert!(
            error.message.contains("hard link (the file has 2 names)"),
            "{error}"
        );

        // One name, and still the key: by its device and inode.
        let error = open_submission(&key, "k.csv", &instructor).unwrap_err();
        assert_eq!(error.message, NOT_ITS_OWN);

        let error = open_submission(dir.path(), "d", &instructor).unwrap_err();
        assert!(error
            .message
            .contains("not a regular file (it is a directory)"));
    }
}
