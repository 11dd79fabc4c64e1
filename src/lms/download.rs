//! A platform's bulk download of a class's submissions, as the instructor has it: the folder
//! (the zip unpacked, or `gh classroom clone student-repos`'s folder) or the zip itself. Its
//! top-level entries are named by the platform after the learner; each platform's module
//! says whose an entry is ([`Claim`]), and this module gathers a learner's entries into one
//! folder, the learner's upload, laid out as the learner handed it in, where the
//! autograders' rule finds the matrix.
//!
//! A learner whose upload is one folder of a folder download (a Moodle "in folders"
//! download, a cloned repository) is graded where it is. Otherwise the learner's files are
//! put in a folder of a temporary directory (gone when the run ends, however it ends): from
//! the zip, or copied from a flat folder (Canvas names every file after its learner).
//!
//! Nothing is followed or trusted: links are never followed (a link in a learner's upload
//! becomes a link the rule refuses, pointing nowhere); a zip entry whose name leaves the
//! folder (`../x`) is an error of the download, and one that stays inside is where its name,
//! resolved, puts it (`zip`'s `enclosed_name`); a file copied from a folder is opened
//! as `grade` opens a submission (not a link, not a hard link, none of the instructor's files);
//! what is unpacked or copied is counted as it is, against `MAX_FILE_BYTES` a file and
//! `MAX_DOWNLOAD_BYTES` in all (`entries.rs`), and put in the owner's private tree
//! (`staging.rs`). A name the zip holds twice is two entries, the earlier read past the
//! zip's index (`zip_shadows.rs`) and put beside the later. What systems leave beside files
//! (names starting with `.`, `__MACOSX`, `~$` owner files) is skipped, as the rule skips it.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::grading::submission_file::InstructorFiles;
use crate::input::{ErrorKind, InputError, InputErrors};

use super::entries::{folder_entries, zip_entries, Metered, ZipItem, MAX_DEPTH};
pub use super::entries::{is_litter, Entry, Kind, MAX_ZIP_DIRECTORY_BYTES, MAX_ZIP_ENTRIES};
use super::groups::Group;
use super::staging::{self, Placing};
use super::zip_shadows;

/// How many wrapping folders are looked through for the download's entries (a zip of the
/// folder a download was unpacked into).
const MAX_WRAPPERS: usize = 3;

/// Whose an entry is, as a platform's naming says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The learner's id on the platform (as the roster has it): for a group's submission,
    /// the member it is named by.
    pub learner: String,
    /// Where the entry goes in the learner's upload: a file's name as the learner gave it
    /// (`matrix.csv` of Canvas's `doejane_123456_7890123_matrix.csv`), or for a folder the
    /// folder its files go in (empty: the upload itself).
    pub place: String,
    /// A group's submission, every member's (`--groups`).
    pub group: Option<Group>,
}

/// Why an entry is no learner's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unclaimed {
    /// It is not named as the platform names a submission, or its name is not the roster's
    /// for the learner it names: why.
    NotNamed(String),
    /// It is named for someone the roster lacks: said as `the submission of WHO, who is not
    /// on the roster`.
    NotOnRoster(String),
}

enum Source {
    /// A folder: the download's root in it.
    Folder(PathBuf),
    /// A zip: the archive and its entries below the download's root, in order of their
    /// top-level names (each name's in archive order, then the earlier copies of a name it
    /// holds twice): a learner's are found by a binary search, without a pass over every
    /// learner's.
    Zip {
        archive: RefCell<zip::ZipArchive<Metered>>,
        /// The zip file, for the entries the archive's index does not reach.
        file: File,
        items: Vec<ZipItem>,
    },
}

/// A download, opened.
pub struct Download {
    /// The path given, for messages.
    name: String,
    /// The name of the folder its entries are in (the zip's name without `.zip`, or the
    /// innermost wrapping folder's).
    root_name: String,
    source: Source,
    /// Bytes unpacked or copied so far, every upload's, against `MAX_DOWNLOAD_BYTES`.
    unpacked: Cell<u64>,
}

impl Download {
    /// Opens the folder or zip at `path`. A root that holds nothing but one folder that
    /// `recognised` does not take for a learner's entry is looked through (up to
    /// `MAX_WRAPPERS` deep).
    pub fn open(path: &Path, recognised: &dyn Fn(&Entry) -> bool) -> Result<Download, InputErrors> {
        let name = path.to_string_lossy().into_owned();
        let unreadable = |e: io::Error| InputErrors::one(InputError::unreadable(&name, 0, e));
        let meta = fs::metadata(path).map_err(unreadable)?;
        let stem = |p: &Path| {
            p.file_stem()
                .or_else(|| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        if !meta.is_dir() {
            let (source, root_name) = open_zip(path, &name, recognised)?;
            return Ok(Download {
                name,
                root_name: root_name.unwrap_or_else(|| stem(path)),
                source,
                unpacked: Cell::new(0),
            });
        }
        let mut root = path.to_owned();
        let mut root_name = fs::canonicalize(path)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| stem(path));
        for _ in 0..MAX_WRAPPERS {
            let entries = folder_entries(&root).map_err(unreadable)?;
            match entries.as_slice() {
                [only] if only.kind == Kind::Folder && !recognised(only) => {
                    root = root.join(&only.name);
                    root_name = only.name.clone();
                }
                _ => break,
            }
        }
        Ok(Download {
            name,
            root_name,
            source: Source::Folder(root),
            unpacked: Cell::new(0),
        })
    }

    /// The path given, for messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name of the folder the entries are in.
    pub fn root_name(&self) -> &str {
        &self.root_name
    }

    /// The top-level entries, litter skipped, in name order.
    pub fn entries(&self) -> Result<Vec<Entry>, InputErrors> {
        match &self.source {
            Source::Folder(root) => folder_entries(root)
                .map_err(|e| InputErrors::from(vec![InputError::unreadable(&self.name, 0, e)])),
            Source::Zip { items, .. } => Ok(zip_entries(items)),
        }
    }

    /// The learner's upload made of `claimed` (top-level entries and where each goes): a
    /// folder of a folder download as it is, when it is the whole upload; otherwise the
    /// entries put together in a new folder `staged` (which must not exist). A file that
    /// cannot be put there (a link in a flat folder, one of the instructor's files, one that
    /// inflates too far) is a problem of the learner's upload, named by its place in it; the
    /// outer error is the run's (a full disk, a download past `MAX_DOWNLOAD_BYTES`).
    pub fn upload(
        &self,
        claimed: &[(Entry, String)],
        staged: &Path,
        instructor: &InstructorFiles,
    ) -> io::Result<Result<PathBuf, InputErrors>> {
        if let (Source::Folder(root), [(entry, place)]) = (&self.source, claimed) {
            if entry.kind == Kind::Folder && place.is_empty() {
                return Ok(Ok(root.join(&entry.os_name)));
            }
        }
        let mut placing = Placing::new(self.unpacked.get());
        staging::make_folders(staged)?;
        for (entry, place) in claimed {
            if placing.is_full() {
                break;
            }
            // A failure of the run names the entry it came at.
            let named = |e: io::Error| {
                io::Error::new(
                    e.kind(),
                    format!("{}: {e}", crate::output::escape_controls(&entry.name)),
                )
            };
            self.place(entry, place, staged, instructor, &mut placing)
                .map_err(named)?;
        }
        self.unpacked.set(placing.unpacked);
        Ok(if placing.problems.is_empty() {
            Ok(staged.to_owned())
        } else {
            Err(placing.problems)
        })
    }

    /// Puts the top-level `entry` at `place` of the upload being made in `staged`.
    fn place(
        &self,
        entry: &Entry,
        place: &str,
        staged: &Path,
        instructor: &InstructorFiles,
        placing: &mut Placing,
    ) -> io::Result<()> {
        let target = join(staged, place);
        match &self.source {
            Source::Folder(root) => {
                if entry.kind != Kind::Folder && !placing.one_more_file() {
                    return Ok(());
                }
                staging::copy_entry(
                    &root.join(&entry.os_name),
                    entry.kind,
                    &target,
                    place,
                    instructor,
                    0,
                    placing,
                )
            }
            Source::Zip {
                archive,
                file,
                items,
            } => {
                let from = items.partition_point(|item| item.components[0] < entry.name);
                let own = items[from..]
                    .iter()
                    .take_while(|item| item.components[0] == entry.name);
                for item in own {
                    let rest = &item.components[1..];
                    if rest.iter().any(|c| is_litter(c)) || rest.len() > MAX_DEPTH {
                        continue;
                    }
                    if item.kind != Kind::Folder && !placing.one_more_file() {
                        break;
                    }
                    let path = rest.iter().fold(target.clone(), |p, c| p.join(c));
                    let shown = std::iter::once(place)
                        .chain(rest.iter().map(String::as_str))
                        .filter(|p| !p.is_empty())
                        .collect::<Vec<_>>()
                        .join("/");
                    let zip = staging::Zip {
                        archive: &mut archive.borrow_mut(),
                        file,
                    };
                    staging::unzip_item(zip, item, &path, &shown, placing)?;
                }
                Ok(())
            }
        }
    }
}

/// Opens the zip at `path` (`name` in messages): its items below the download's root, and
/// the name of the wrapping folder looked through, if any. Its directory is read within
/// `MAX_ZIP_DIRECTORY_BYTES`, and it may hold at most `MAX_ZIP_ENTRIES` entries, those of a
/// name it holds twice counted.
fn open_zip(
    path: &Path,
    name: &str,
    recognised: &dyn Fn(&Entry) -> bool,
) -> Result<(Source, Option<String>), InputErrors> {
    let error = |kind: ErrorKind, message: String| {
        InputErrors::one(InputError::new(kind, name, 0, message))
    };
    let unreadable = |e: io::Error| InputErrors::one(InputError::unreadable(name, 0, e));
    let too_many = |count: usize| {
        error(
            ErrorKind::Limit,
            format!(
                "holds {count} entries, more than {MAX_ZIP_ENTRIES}, the most a download may have"
            ),
        )
    };
    // A zip is read from its end (its directory) and its entries again for each learner: a
    // pipe or a device (`<(…)`, a FIFO) cannot be, and opening a FIFO would wait for a writer.
    if !std::fs::metadata(path).map_err(unreadable)?.is_file() {
        return Err(error(
            ErrorKind::Value,
            "is a pipe or a device, not a file: a zip download is read from its end and more \
             than once, so give it as a file (or the folder it unpacks to)"
                .to_owned(),
        ));
    }
    let file = File::open(path).map_err(unreadable)?;
    let shadows_file = file.try_clone().map_err(unreadable)?;
    let left = Rc::new(Cell::new(MAX_ZIP_DIRECTORY_BYTES));
    let metered = Metered::new(file, Rc::clone(&left));
    let mut archive = zip::ZipArchive::new(metered).map_err(|e| match e {
        zip::result::ZipError::Io(e) if left.get() == 0 => unreadable(e),
        e => error(
            ErrorKind::Syntax,
            format!(
                "is neither a folder nor a zip the platform made ({e}); give the download as the \
             platform made it"
            ),
        ),
    })?;
    left.set(u64::MAX);
    if archive.len() > MAX_ZIP_ENTRIES {
        return Err(too_many(archive.len()));
    }
    let (mut items, kept, named) = zip_items(&mut archive, name)?;
    let shadows = zip_shadows::shadowed(
        &shadows_file,
        archive.central_directory_start(),
        archive.offset(),
        &kept,
        (MAX_ZIP_ENTRIES + 1, MAX_ZIP_DIRECTORY_BYTES),
    )
    .map_err(|e| {
        error(
            ErrorKind::Io,
            format!("cannot read its central directory: {e}"),
        )
    })?;
    if archive.len() + shadows.len() > MAX_ZIP_ENTRIES {
        return Err(too_many(archive.len() + shadows.len()));
    }
    // A name the zip holds twice: the earlier entries, which the archive's index does not
    // reach, go beside the one it keeps.
    for shadow in shadows {
        let Some(&twin) = named.get(&shadow.name) else {
            continue;
        };
        let twin = &items[twin];
        let kind = if shadow.is_dir() {
            Kind::Folder
        } else if shadow.is_symlink() {
            Kind::Link
        } else {
            Kind::File
        };
        items.push(ZipItem {
            index: twin.index,
            components: twin.components.clone(),
            kind,
            shadow: Some(shadow),
        });
    }
    let mut root_name = None;
    for _ in 0..MAX_WRAPPERS {
        let entries = zip_entries(&items);
        match entries.as_slice() {
            [only] if only.kind == Kind::Folder && !recognised(only) => {
                // Only what is in the wrapping folder: what lies beside it is litter
                // (macOS's `__MACOSX/{folder}/._...`), which must not become entries.
                items.retain(|item| item.components.len() > 1 && item.components[0] == only.name);
                for item in &mut items {
                    item.components.remove(0);
                }
                root_name = Some(only.name.clone());
            }
            _ => break,
        }
    }
    // Stable: each top-level name's items stay in archive order, the earlier copies of a
    // name the zip holds twice after them.
    items.sort_by(|a, b| a.components[0].cmp(&b.components[0]));
    let source = Source::Zip {
        archive: RefCell::new(archive),
        file: shadows_file,
        items,
    };
    Ok((source, root_name))
}

/// The items of the zip's index, the central directory records it keeps (their offsets) and
/// the item of each name (its bytes).
type Indexed = (Vec<ZipItem>, HashSet<u64>, HashMap<Vec<u8>, usize>);

/// The zip's items as its index has them (one per name); an entry whose name leads out of
/// the download's folder is an error (every one listed).
fn zip_items(archive: &mut zip::ZipArchive<Metered>, name: &str) -> Result<Indexed, InputErrors> {
    let mut items = Vec::new();
    let mut problems = InputErrors::new();
    let mut kept = HashSet::new();
    let mut named = HashMap::new();
    for index in 0..archive.len() {
        let entry = archive.by_index(index).map_err(|e| {
            InputErrors::one(InputError::new(
                ErrorKind::Io,
                name,
                0,
                format!("cannot read entry {}: {e}", index + 1),
            ))
        })?;
        kept.insert(entry.central_header_start());
        let Some(enclosed) = entry.enclosed_name() else {
            problems.push(
                InputError::new(
                    ErrorKind::Refused,
                    name,
                    0,
                    "an entry's name leads out of the download's folder: this is not a \
                     download the platform made",
                )
                .value(entry.name()),
            );
            continue;
        };
        let components = utf8_components(
            enclosed
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect(),
            entry.name_raw(),
        );
        if components.is_empty() {
            continue;
        }
        let kind = if entry.is_dir() {
            Kind::Folder
        } else if entry.is_symlink() {
            Kind::Link
        } else {
            Kind::File
        };
        named.insert(entry.name_raw().to_vec(), items.len());
        items.push(ZipItem {
            index,
            components,
            kind,
            shadow: None,
        });
    }
    if problems.is_empty() {
        Ok((items, kept, named))
    } else {
        Err(problems)
    }
}

/// A zip entry's path components (`enclosed`, as the zip crate decoded its name) read as
/// UTF-8 when its name's bytes (`raw`) are UTF-8: a name not flagged as UTF-8 is decoded by
/// the crate as CP437, but rubyzip (Canvas) and other Unix zippers write UTF-8 names without
/// the flag, and Info-ZIP's unzip takes such a name's bytes as they are. A name that is not
/// UTF-8 stays as the crate read it; the crate has already checked that it stays inside
/// the folder, and the separators and dots are the same in either reading.
fn utf8_components(enclosed: Vec<String>, raw: &[u8]) -> Vec<String> {
    let Ok(text) = std::str::from_utf8(raw) else {
        return enclosed;
    };
    if raw.is_ascii() {
        return enclosed;
    }
    let mut components: Vec<String> = Vec::new();
    for part in text.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                components.pop();
            }
            part => components.push(part.to_owned()),
        }
    }
    if components.len() == enclosed.len() {
        components
    } else {
        enclosed
    }
}

/// `base` joined with a `/`-separated place.
fn join(base: &Path, place: &str) -> PathBuf {
    place
        .split('/')
        .filter(|p| !p.is_empty())
        .fold(base.to_owned(), |path, part| path.join(part))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zip_of(entries: &[(&str, &[u8])]) -> tempfile::NamedTempFile {
        let file = tempfile::NamedTempFile::new().unwrap();
        let mut zip = zip::ZipWriter::new(file.reopen().unwrap());
        for (name, bytes) in entries {
            if name.ends_with('/') {
                zip.add_directory(*name, zip::write::SimpleFileOptions::default())
                    .unwrap();
            } else {
                zip.start_file(*name, zip::write::SimpleFileOptions::default())
                    .unwrap();
                zip.write_all(bytes).unwrap();
            }
        }
        zip.finish().unwrap();
        file
    }

    #[test]
    fn a_zip_is_looked_through_its_wrapping_folder_and_unpacked_by_learner() {
        let zip = zip_of(&[
            ("class/", b""),
            ("class/a_1/matrix.csv", b"case_id\n"),
            ("class/a_1/sub/notes.txt", b"x"),
            ("class/a_1/.git/config", b"x"),
            ("class/b_2.csv", b"case_id\n"),
            ("class/__MACOSX/._b_2.csv", b"x"),
        ]);
        let download = Download::open(zip.path(), &|entry| entry.name != "class").unwrap();
        assert_eq!(download.root_name(), "class");
        let entries = download.entries().unwrap();
        assert_eq!(
            entries,
            [
                Entry {
                    name: "a_1".into(),
                    kind: Kind::Folder,
                    os_name: "a_1".into(),
                },
                Entry {
                    name: "b_2.csv".into(),
                    kind: Kind::File,
                    os_name: "b_2.csv".into(),
                }
            ]
        );
        let staging = tempfile::tempdir().unwrap();
        let instructor = InstructorFiles::new();
        let a = download
            .upload(
                &[(entries[0].clone(), String::new())],
                &staging.path().join("0"),
                &instructor,
            )
            .unwrap()
            .unwrap();
        assert_eq!(fs::read(a.join("matrix.csv")).unwrap(), b"case_id\n");
        assert!(a.join("sub/notes.txt").is_file());
        assert!(
            !a.join(".git").exists(),
            "what the rule skips is not unpacked"
        );
        let b = download
            .upload(
                &[(entries[1].clone(), "matrix.csv".into())],
                &staging.path().join("1"),
                &instructor,
            )
            .unwrap()
            .unwrap();
        assert_eq!(fs::read(b.join("matrix.csv")).unwrap(), b"case_id\n");
    }

    #[cfg(unix)]
    #[test]
    fn a_zip_entry_that_is_a_link_becomes_one_that_points_nowhere() {
        let file = tempfile::NamedTempFile::new().unwrap();
        let mut zip = zip::ZipWriter::new(file.reopen().unwrap());
        zip.add_symlink(
            "x_1_2_matrix.csv",
            "/etc/passwd",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        zip.finish().unwrap();
        let download = Download::open(file.path(), &|_| true).unwrap();
        let entries = download.entries().unwrap();
        assert_eq!(entries[0].kind, Kind::Link);
        let staging = tempfile::tempdir().unwrap();
        let upload = download
            .upload(
                &[(entries[0].clone(), "matrix.csv".into())],
                &staging.path().join("0"),
                &InstructorFiles::new(),
            )
            .unwrap()
            .unwrap();
        let link = fs::read_link(upload.join("matrix.csv")).unwrap();
        assert_ne!(link, Path::new("/etc/passwd"));
        assert!(fs::metadata(upload.join("matrix.csv")).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8_are_followed_as_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let root = tempfile::tempdir().unwrap();
        let name = std::ffi::OsStr::from_bytes(b"r\xe9ponse_7_8_matrix.csv");
        fs::write(root.path().join(name), "case_id\n").unwrap();
        let download = Download::open(root.path(), &|_| true).unwrap();
        let entries = download.entries().unwrap();
        assert_eq!(entries[0].name, "r\u{fffd}ponse_7_8_matrix.csv");
        let staging = tempfile::tempdir().unwrap();
        let upload = download
            .upload(
                &[(entries[0].clone(), "matrix.csv".into())],
                &staging.path().join("0"),
                &InstructorFiles::new(),
            )
            .unwrap()
            .unwrap();
        assert_eq!(fs::read(upload.join("matrix.csv")).unwrap(), b"case_id\n");
    }

    #[test]
    fn names_that_leave_the_folder_are_refused() {
        let zip = zip_of(&[("../evil.csv", b"x")]);
        let errors = Download::open(zip.path(), &|_| true).err().unwrap();
        assert!(errors.listed()[0]
            .message
            .contains("leads out of the download"));
        // A `..` that stays inside is resolved (the zip crate's `enclosed_name`): the file is
        // where its resolved name puts it, and whose that is decides.
        let zip = zip_of(&[("a_1/../b_2/matrix.csv", b"x")]);
        let download = Download::open(zip.path(), &|_| true).unwrap();
        let names: Vec<String> = download
            .entries()
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        assert_eq!(names, ["b_2"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_is_graded_in_place_or_copied_and_links_are_never_followed() {
        let root = tempfile::tempdir().unwrap();
        let key = root.path().join("key.csv");
        fs::write(&key, "case_id\n").unwrap();
        let download_dir = root.path().join("download");
        fs::create_dir_all(download_dir.join("x_1")).unwrap();
        fs::write(download_dir.join("x_1/matrix.csv"), "case_id\n").unwrap();
        std::os::unix::fs::symlink(&key, download_dir.join("y_2_matrix.csv")).unwrap();
        fs::hard_link(&key, download_dir.join("z_3_matrix.csv")).unwrap();
        let download = Download::open(&download_dir, &|_| true).unwrap();
        let entries = download.entries().unwrap();
        let mut instructor = InstructorFiles::new();
        instructor.add_path(&key);
        let staging = tempfile::tempdir().unwrap();
        let in_place = download
            .upload(
                &[(entries[0].clone(), String::new())],
                &staging.path().join("0"),
                &instructor,
            )
            .unwrap()
            .unwrap();
        assert_eq!(in_place, download_dir.join("x_1"));
        let linked = download
            .upload(
                &[(entries[1].clone(), "matrix.csv".into())],
                &staging.path().join("1"),
                &instructor,
            )
            .unwrap()
            .unwrap();
        let meta = fs::symlink_metadata(linked.join("matrix.csv")).unwrap();
        assert!(meta.file_type().is_symlink());
        assert!(
            fs::metadata(linked.join("matrix.csv")).is_err(),
            "it points nowhere"
        );
        let problems = download
            .upload(
                &[(entries[2].clone(), "matrix.csv".into())],
                &staging.path().join("2"),
                &instructor,
            )
            .unwrap()
            .unwrap_err();
        assert!(
            problems.listed()[0].message.contains("cannot be graded"),
            "{problems:?}"
        );
    }
}
