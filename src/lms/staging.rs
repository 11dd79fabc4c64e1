//! The owner's private tree a class's download is put together in (issue 36): learners'
//! files are no one else's to read or change while they are graded. Its root is made with
//! mode `0700` before anything goes in, so no other local user can enter it, list it, or swap
//! a file in it between unpacking and grading; within it every folder is made `0700` and
//! every file `0600` as it is created (not changed after the data is in), whatever the umask.
//! A file is created only where nothing is (`O_EXCL`), never through a link (`O_NOFOLLOW`):
//! a file or link of the upload whose place another entry has taken (a zip holding a name
//! twice, the earlier copy read past the zip's index by `zip_shadows`; a Moodle folder and a
//! flat file of one learner) goes beside it, `matrix (2nd of this name).csv`, made the same
//! way, so the autograders' rule sees both ([`Placing::beside`]).
//!
//! An entry that cannot be put there because of its name (too long for the file system, a
//! file where a folder must be) is the learner's problem, named by the entry
//! ([`EntryFailure::Entry`]); a failure of the disk the temporary directory is on (it is
//! full) is the run's, and says so ([`EntryFailure::Run`]). A learner's entries are copied
//! (from a folder) or unpacked (from a zip) here ([`copy_entry`], [`unzip_item`]), counted
//! against [`MAX_UPLOAD_FILES`] and the download's size limits as they are.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::grading::submission_file::{open_submission, InstructorFiles};
use crate::grading::upload::{too_many_files, MAX_UPLOAD_FILES};
use crate::input::{ErrorKind, InputError, InputErrors};
use crate::output::creating_in_temp;

use super::entries::{
    folder_entries, Kind, Metered, ZipItem, MAX_DEPTH, MAX_DOWNLOAD_BYTES, MAX_FILE_BYTES,
};
use super::zip_shadows;

/// The mode of an unpacked folder.
pub const FOLDER_MODE: u32 = 0o700;

/// The mode of an unpacked file.
pub const FILE_MODE: u32 = 0o600;

/// Makes `path` and the folders above it that are not there yet, each `0700`.
pub fn make_folders(path: &Path) -> io::Result<()> {
    // Followed: the tree's root is reached through a link to its open handle
    // (`GuardedTempDir::path`), and every link the tree itself holds points nowhere.
    if fs::metadata(path).is_ok_and(|meta| meta.is_dir()) {
        return Ok(());
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        make_folders(parent)?;
    }
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, FOLDER_MODE);
    match creating_in_temp(|| builder.create(path)) {
        Ok(()) => {}
        // What is there is not a folder (it was looked at above): a file or a link of the
        // upload has the folder's name, which is what the learner is told.
        #[cfg(unix)]
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
            let errno = if link { libc::ELOOP } else { libc::ENOTDIR };
            return Err(io::Error::from_raw_os_error(errno));
        }
        Err(e) => return Err(e),
    }
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
    let file = creating_in_temp(|| options.open(path))?;
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
        creating_in_temp(|| std::os::unix::fs::symlink(NOWHERE, path))
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
            ErrorKind::Refused,
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

/// A learner's upload being put together: its problems so far, how many more files it may
/// have ([`MAX_UPLOAD_FILES`]), the names two of its entries were given, and what the
/// download has unpacked or copied so far, against `MAX_DOWNLOAD_BYTES`.
pub struct Placing {
    /// The problems of the upload.
    pub problems: InputErrors,
    files_left: usize,
    /// For each place two entries were given, the next `n` of its `n`th of this name: the
    /// free name of a place given many times is found without trying every one before it.
    taken: HashMap<PathBuf, u64>,
    /// Bytes the download's uploads have unpacked or copied so far, this one's with them.
    pub unpacked: u64,
    /// How many names were tried ([`Placing::beside`]): the tests hold it linear.
    #[cfg(test)]
    tries: u64,
}

impl Placing {
    /// Nothing placed yet of this upload; `unpacked`: bytes of the download's other uploads.
    pub fn new(unpacked: u64) -> Placing {
        Placing {
            problems: InputErrors::new(),
            files_left: MAX_UPLOAD_FILES,
            taken: HashMap::new(),
            unpacked,
            #[cfg(test)]
            tries: 0,
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

    /// Makes a file or a link of the upload with `make` at `path` (its folders made), which
    /// makes one only where nothing is (`O_EXCL`, or a link's own `EEXIST`); when an entry of
    /// the upload is there already (two entries of the download put a file at one place: a
    /// zip holding a name twice, a Moodle folder and a flat file of one learner, a file
    /// uploaded twice under one name, a group's file beside the member's own), at the first
    /// free `{stem} (2nd of this name){.extension}` beside it: the later goes beside the
    /// earlier, never over it, and the autograders' rule sees both (two matrices make the
    /// upload ungradable, both named). Returns what `make` made and where.
    fn beside<T>(
        &mut self,
        path: &Path,
        mut make: impl FnMut(&Path) -> io::Result<T>,
    ) -> io::Result<(T, PathBuf)> {
        if let Some(parent) = path.parent() {
            make_folders(parent)?;
        }
        let mut n = self.taken.get(path).copied().unwrap_or(1);
        loop {
            let candidate = if n == 1 {
                path.to_owned()
            } else {
                nth_of_name(path, n)
            };
            #[cfg(test)]
            {
                self.tries += 1;
            }
            match make(&candidate) {
                // Nothing but the upload's own entries is in the owner's private tree, and it
                // has at most `MAX_UPLOAD_FILES`: a name is free before that many are tried.
                Err(e)
                    if e.kind() == io::ErrorKind::AlreadyExists && n <= MAX_UPLOAD_FILES as u64 =>
                {
                    n += 1
                }
                Err(e) => return Err(e),
                Ok(made) => {
                    if n > 1 {
                        self.taken.insert(path.to_owned(), n + 1);
                    }
                    return Ok((made, candidate));
                }
            }
        }
    }
}

/// The name of the `n`th entry (`n` > 1) of the upload put at `path`: `matrix.csv`'s second
/// is `matrix (2nd of this name).csv`.
fn nth_of_name(path: &Path, n: u64) -> PathBuf {
    let suffix = match n % 10 {
        _ if (11..=13).contains(&(n % 100)) => "th",
        1 => "st",
        2 => "nd",
        3 => "rd",
        _ => "th",
    };
    let mut name = path.file_stem().unwrap_or_default().to_os_string();
    name.push(format!(" ({n}{suffix} of this name)"));
    if let Some(extension) = path.extension() {
        name.push(".");
        name.push(extension);
    }
    path.with_file_name(name)
}

/// Counts `bytes` more unpacked or copied from the download; past `MAX_DOWNLOAD_BYTES` the
/// run stops (a group's submission is put in each member's upload, and counts for each).
fn count_unpacked(placing: &mut Placing, bytes: u64) -> io::Result<()> {
    placing.unpacked = placing.unpacked.saturating_add(bytes);
    if placing.unpacked > MAX_DOWNLOAD_BYTES {
        return Err(io::Error::other(format!(
            "the download inflates to more than {MAX_DOWNLOAD_BYTES} bytes (16 GiB), the most a \
             download may (a group's submission counts once for each of its members)"
        )));
    }
    Ok(())
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
    match kind {
        Kind::Link => {
            let made = placing.beside(to, dangling_link).map(drop);
            place_entry(shown, &mut placing.problems, || made)
        }
        Kind::File => {
            let mut file = match open_submission(from, shown, instructor) {
                Ok(file) => file,
                Err(problem) => {
                    placing.problems.push(problem);
                    return Ok(());
                }
            };
            match copy_limited(&mut file, to, MAX_FILE_BYTES, placing) {
                Ok(copied) => {
                    if copied > MAX_FILE_BYTES {
                        placing.problems.push(too_large(shown));
                    }
                    count_unpacked(placing, copied)?;
                }
                Err(CopyFailure::Read(e)) => {
                    placing.problems.push(InputError::unreadable(shown, 0, e))
                }
                Err(CopyFailure::Create(e) | CopyFailure::Write(e)) => {
                    place_entry(shown, &mut placing.problems, || Err(e))?
                }
            }
            Ok(())
        }
        Kind::Folder => {
            let mut made = true;
            place_entry(shown, &mut placing.problems, || {
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

/// Copies `reader` to a new file at `to`, or beside it ([`Placing::beside`]), the owner's
/// alone ([`create_file`]), at most `limit` bytes and one more; returns how many bytes were
/// copied (more than `limit`: it was cut there).
fn copy_limited(
    reader: &mut dyn Read,
    to: &Path,
    limit: u64,
    placing: &mut Placing,
) -> Result<u64, CopyFailure> {
    let (mut out, _) = placing
        .beside(to, create_file)
        .map_err(CopyFailure::Create)?;
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
        ErrorKind::Limit,
        shown,
        0,
        format!(
            "cannot be graded: it is larger than {} bytes (1 GiB) unpacked",
            MAX_FILE_BYTES
        ),
    )
}

/// A zip download as its items are unpacked: the archive's index, and the file itself for
/// the entries the index does not reach (`zip_shadows`).
pub struct Zip<'a> {
    /// The archive.
    pub archive: &'a mut zip::ZipArchive<Metered>,
    /// The zip file.
    pub file: &'a File,
}

/// Unpacks one zip item to `path` (`shown`: its place in the upload), or beside it when an
/// entry of the upload is there already, counting what it inflates to against the limits.
pub fn unzip_item(
    zip: Zip<'_>,
    item: &ZipItem,
    path: &Path,
    shown: &str,
    placing: &mut Placing,
) -> io::Result<()> {
    match item.kind {
        Kind::Folder => place_entry(shown, &mut placing.problems, || make_folders(path)),
        Kind::Link => {
            let made = placing.beside(path, dangling_link).map(drop);
            place_entry(shown, &mut placing.problems, || made)
        }
        Kind::File => {
            count_unpacked(placing, 0)?;
            let copied = match &item.shadow {
                // An earlier entry of a name the zip holds again, which the index does not
                // reach: read where the central directory says it is.
                Some(shadow) => zip_shadows::read_with(zip.file, shadow, |reader| {
                    copy_limited(reader, path, MAX_FILE_BYTES, placing)
                })
                .unwrap_or_else(|e| Err(CopyFailure::Read(e))),
                None => match zip.archive.by_index(item.index) {
                    Ok(file) if file.encrypted() => {
                        placing.problems.push(InputError::new(
                            ErrorKind::Refused,
                            shown,
                            0,
                            "cannot be graded: it is encrypted in the download",
                        ));
                        return Ok(());
                    }
                    Ok(mut file) => copy_limited(&mut file, path, MAX_FILE_BYTES, placing),
                    Err(e) => {
                        let problem =
                            InputError::new(ErrorKind::Io, shown, 0, format!("cannot unpack: {e}"));
                        placing.problems.push(problem);
                        return Ok(());
                    }
                },
            };
            let copied = match copied {
                Ok(copied) => copied,
                // A damaged entry (a bad checksum, a truncated stream, no local header where
                // the directory says) is the learner's file that cannot be read, not the
                // run's failure.
                Err(CopyFailure::Read(e))
                    if e.kind() == io::ErrorKind::InvalidData
                        || e.kind() == io::ErrorKind::UnexpectedEof =>
                {
                    let problem =
                        InputError::new(ErrorKind::Io, shown, 0, format!("cannot unpack: {e}"));
                    placing.problems.push(problem);
                    return Ok(());
                }
                Err(CopyFailure::Read(e)) => return Err(e),
                Err(CopyFailure::Create(e) | CopyFailure::Write(e)) => {
                    return place_entry(shown, &mut placing.problems, || Err(e));
                }
            };
            if copied > MAX_FILE_BYTES {
                placing.problems.push(too_large(shown));
            }
            count_unpacked(placing, copied)
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
        let copied = copy_limited(
            &mut io::repeat(b'x').take(100),
            &path,
            10,
            &mut Placing::new(0),
        )
        .ok()
        .unwrap();
        assert_eq!(copied, 11, "one byte past the limit tells it was reached");
        assert_eq!(fs::metadata(&path).unwrap().len(), 11);
        let path = dir.path().join("small");
        let copied = copy_limited(
            &mut io::repeat(b'x').take(10),
            &path,
            10,
            &mut Placing::new(0),
        )
        .ok()
        .unwrap();
        assert_eq!(copied, 10);
    }

    #[test]
    fn an_entry_whose_place_is_taken_goes_beside_it_named_by_its_rank() {
        assert_eq!(
            [2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 1002].map(|n| nth_of_name(
                Path::new("a/matrix.csv"),
                n
            )
            .to_string_lossy()
            .into_owned()),
            [
                "a/matrix (2nd of this name).csv",
                "a/matrix (3rd of this name).csv",
                "a/matrix (4th of this name).csv",
                "a/matrix (11th of this name).csv",
                "a/matrix (12th of this name).csv",
                "a/matrix (13th of this name).csv",
                "a/matrix (21st of this name).csv",
                "a/matrix (22nd of this name).csv",
                "a/matrix (23rd of this name).csv",
                "a/matrix (101st of this name).csv",
                "a/matrix (111th of this name).csv",
                "a/matrix (1002nd of this name).csv",
            ]
        );
        assert_eq!(
            nth_of_name(Path::new("notes"), 2),
            Path::new("notes (2nd of this name)")
        );
    }

    #[test]
    fn what_is_copied_from_a_folder_counts_against_the_downloads_limit() {
        // A group's file is copied into each member's upload: every copy counts.
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("teamrocket_1002_55001_matrix.csv");
        fs::write(&from, "case_id\n").unwrap();
        let copy = |placing: &mut Placing, member: &str| {
            copy_entry(
                &from,
                Kind::File,
                &dir.path().join(member).join("matrix.csv"),
                "matrix.csv",
                &InstructorFiles::new(),
                0,
                placing,
            )
        };
        let mut placing = Placing::new(0);
        copy(&mut placing, "0").unwrap();
        assert_eq!(placing.unpacked, 8);
        let mut placing = Placing::new(MAX_DOWNLOAD_BYTES - 10);
        copy(&mut placing, "1").unwrap();
        let e = copy(&mut placing, "2").unwrap_err();
        assert!(e.to_string().contains("16 GiB"), "{e}");
    }

    #[test]
    fn many_entries_of_one_name_are_placed_in_linear_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/matrix.csv");
        let mut placing = Placing::new(0);
        let copies = 2_000u64;
        for n in 0..copies {
            let text = n.to_string();
            copy_limited(&mut text.as_bytes(), &path, 10, &mut placing)
                .ok()
                .unwrap();
        }
        // Each name tried once, but for the first of each later copy (taken by the first).
        assert!(
            placing.tries <= 2 * copies,
            "{} names tried for {copies} copies",
            placing.tries
        );
        assert_eq!(fs::read(&path).unwrap(), b"0");
        assert_eq!(fs::read(nth_of_name(&path, 2)).unwrap(), b"1");
        assert_eq!(fs::read(nth_of_name(&path, copies)).unwrap(), b"1999");
        assert_eq!(fs::read_dir(dir.path().join("sub")).unwrap().count(), 2_000);
        assert!(placing.problems.is_empty());
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
        // An entry whose place is taken (by a file, a link, a folder) goes beside it, made
        // the same way; the one there is not touched.
        let mut placing = Placing::new(0);
        let (mut second, at) = placing.beside(&file, create_file).unwrap();
        second.write_all(b"y").unwrap();
        assert_eq!(at, root.path().join("a/b/matrix (2nd of this name).csv"));
        assert_eq!(mode(&at), FILE_MODE);
        assert_eq!(fs::read(&file).unwrap(), b"x");
        let (_, beside_link) = placing.beside(&link, create_file).unwrap();
        assert_eq!(beside_link, root.path().join("l (2nd of this name).csv"));
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        let ((), beside_folder) = placing
            .beside(&root.path().join("a"), dangling_link)
            .unwrap();
        assert_eq!(beside_folder, root.path().join("a (2nd of this name)"));
        assert!(fs::symlink_metadata(root.path().join("a"))
            .unwrap()
            .is_dir());
        let long = root.path().join("x".repeat(300));
        match entry_failure("x", create_file(&long).unwrap_err()) {
            EntryFailure::Entry(problem) => {
                assert!(problem.message.contains("too long"), "{problem}")
            }
            EntryFailure::Run(e) => panic!("{e}"),
        }
    }
}
