//! Issue 36, "a class readable or writable by others" and "inputs that are read whole, or
//! never end": a class's download is unpacked into the owner's private tree (folders `0700`,
//! files `0600`, whatever the umask), an entry whose name the file system refuses is the
//! learner's problem and not the class's, and every input of `grade` is read within bounds.

#![cfg(unix)]

use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::{key, root, said, submission};

/// A Moodle grading worksheet of the participants `ids` (`Participant {id}`), out of 10.
fn moodle_worksheet(path: &Path, ids: &[u32]) {
    let mut text = String::from(
        "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,\
         Last modified (submission),Online text,Last modified (grade),Feedback comments\n",
    );
    for id in ids {
        text.push_str(&format!(
            "Participant {id},Learner {id},l{id}@example.edu,Submitted for grading,,10.00,Yes,-,,-,\n"
        ));
    }
    fs::write(path, text).unwrap();
}

/// The folder Moodle's download puts participant `id`'s files in.
fn moodle_folder(id: u32) -> String {
    format!("Learner {id}_{id}_assignsubmission_file")
}

/// A zip of `entries` (a name ending in `/` is a folder).
fn zip_of(path: &Path, entries: &[(String, Vec<u8>)]) {
    let mut zip = zip::ZipWriter::new(fs::File::create(path).unwrap());
    for (name, bytes) in entries {
        if name.ends_with('/') {
            zip.add_directory(name.as_str(), zip::write::SimpleFileOptions::default())
                .unwrap();
        } else {
            zip.start_file(name.as_str(), zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(bytes).unwrap();
        }
    }
    zip.finish().unwrap();
}

/// The command of `grade` with `args`, in `dir`, under `umask`, with `TMPDIR` set to `tmp`.
fn grade_command(dir: &Path, tmp: &Path, umask: u32, args: &[&str]) -> Command {
    let mut command = wide(Command::new(env!("CARGO_BIN_EXE_leasejudge")));
    command
        .current_dir(dir)
        .arg("grade")
        .args(args)
        .env("TMPDIR", tmp)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: umask is async-signal-safe and touches nothing of the parent's.
    unsafe {
        command.pre_exec(move || {
            libc::umask(umask as libc::mode_t);
            Ok(())
        });
    }
    command
}

/// `command` with the tests' wide `COLUMNS`, so a message is found whole on one line (a test
/// of the width rule sets it itself).
fn wide(mut command: Command) -> Command {
    command.env("COLUMNS", crate::common::WIDE);
    command
}

pub(super) fn mkfifo(path: &Path) {
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
}

/// Every folder and file under `root` with its mode (links left out).
fn modes_under(root: &Path) -> Vec<(PathBuf, bool, u32)> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let meta = fs::symlink_metadata(entry.path()).unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            }
            if !meta.file_type().is_symlink() {
                found.push((
                    entry.path(),
                    meta.is_dir(),
                    meta.permissions().mode() & 0o7777,
                ));
            }
        }
    }
    found
}

/// The tree `grade --lms moodle` unpacks `download` (in `dir`, with `worksheet.csv`) into,
/// under `umask` with `TMPDIR` at `tmp`: every folder and file in it with its mode, seen while
/// the run waits for its key (a FIFO it opens once the class is unpacked; the tree's root
/// checked `0700`). The run then ends (a FIFO is no key), and the tree is gone.
fn unpacked_tree(dir: &Path, tmp: &Path, umask: u32, download: &str) -> Vec<(PathBuf, bool, u32)> {
    unpacked_tree_and_links(dir, tmp, umask, &moodle_args(download)).0
}

/// What follows the key in `grade` of the Moodle class `download` with `worksheet.csv`.
fn moodle_args(download: &str) -> [&str; 7] {
    [
        download,
        "--lms",
        "moodle",
        "--roster",
        "worksheet.csv",
        "--gradebook",
        "import.csv",
    ]
}

/// Every link of a tree with what it points to, and every file with what it holds.
type Links = Vec<(PathBuf, PathBuf)>;
type Contents = Vec<(PathBuf, Vec<u8>)>;

/// [`unpacked_tree`] of `grade --golden key.csv` with `args`, every link in the tree with what
/// it points to, and every file with what it holds.
fn unpacked_tree_and_links(
    dir: &Path,
    tmp: &Path,
    umask: u32,
    args: &[&str],
) -> (Vec<(PathBuf, bool, u32)>, Links, Contents) {
    let fifo = dir.join("key.csv");
    mkfifo(&fifo);
    let child = grade_command(dir, tmp, umask, &[&["--golden", "key.csv"], args].concat())
        .spawn()
        .unwrap();
    // Waited for on a thread of its own, which opens the FIFO once the run ends: a run that
    // ends without opening its key fails the test rather than leaves it waiting.
    let opener = fifo.clone();
    let waiter = std::thread::spawn(move || {
        let out = child.wait_with_output().unwrap();
        let _ = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&opener);
        out
    });
    // Returns once the run has opened its key: the class is unpacked by then.
    let writer = fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let staged: Vec<PathBuf> = fs::read_dir(tmp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("leasejudge-download-")
        })
        .collect();
    assert_eq!(staged.len(), 1, "umask {umask:03o}: {staged:?}");
    let root_mode = fs::metadata(&staged[0]).unwrap().permissions().mode() & 0o7777;
    assert_eq!(root_mode, 0o700, "umask {umask:03o}: the tree's root");
    let modes = modes_under(&staged[0]);
    let links = links_under(&staged[0]);
    let contents = modes
        .iter()
        .filter(|(_, is_dir, _)| !is_dir)
        .map(|(path, _, _)| (path.clone(), fs::read(path).unwrap()))
        .collect();
    drop(writer);
    let out = waiter.join().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert_eq!(fs::read_dir(tmp).unwrap().count(), 0, "{}", said(&out));
    fs::remove_file(&fifo).unwrap();
    (modes, links, contents)
}

/// Every link under `root`, with what it points to.
fn links_under(root: &Path) -> Links {
    let mut found = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else if meta.file_type().is_symlink() {
                let target = fs::read_link(&path).unwrap();
                found.push((path, target));
            }
        }
    }
    found
}

/// A class's download is unpacked into a tree no one else can enter, each folder made `0700`
/// and each file `0600` whatever the umask: seen while the run waits for its key (a FIFO it
/// opens once the class is unpacked).
#[test]
fn a_download_is_unpacked_into_the_owners_private_tree_whatever_the_umask() {
    for umask in [0o000, 0o022] {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let tmp = dir.join("tmp");
        fs::create_dir(&tmp).unwrap();
        moodle_worksheet(&dir.join("worksheet.csv"), &[2001, 2002]);
        zip_of(
            &dir.join("download.zip"),
            &[
                (
                    format!("{}/matrix.csv", moodle_folder(2001)),
                    submission("ada.csv"),
                ),
                (
                    format!("{}/lab/matrix.csv", moodle_folder(2002)),
                    submission("ben.csv"),
                ),
                (format!("{}/notes.txt", moodle_folder(2002)), b"x".to_vec()),
            ],
        );
        let modes = unpacked_tree(dir, &tmp, umask, "download.zip");
        assert!(
            modes.iter().any(|(p, _, _)| p.ends_with("lab/matrix.csv")),
            "{modes:?}"
        );
        for (path, is_dir, mode) in &modes {
            let want = if *is_dir { 0o700 } else { 0o600 };
            assert_eq!(*mode, want, "umask {umask:03o}: {}", path.display());
        }
        // The same class with its key, under the same umask, graded.
        let key = key();
        let out = grade_command(
            dir,
            &tmp,
            umask,
            &[
                "--golden",
                key.to_str().unwrap(),
                "download.zip",
                "--lms",
                "moodle",
                "--roster",
                "worksheet.csv",
                "--gradebook",
                "import.csv",
            ],
        )
        .output()
        .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", said(&out));
        let import = fs::read_to_string(dir.join("import.csv")).unwrap();
        assert!(import.contains("Participant 2001,") && import.contains("Participant 2002,"));
        assert_eq!(
            fs::read_dir(&tmp).unwrap().count(),
            0,
            "the tree is gone when the run ends"
        );
    }
}

/// The platforms' unpacking goes through the private tree too: a name the zip holds twice,
/// its entries written with data descriptors (the earlier copy, which the zip crate's index
/// does not reach, read where the central directory says), is two files, the later beside
/// the earlier as `matrix (2nd of this name).csv`, each `0600` in folders `0700` whatever the
/// umask; a link beside a file of its name is a link pointing nowhere, as its own record
/// says (never a file holding its target's name); a long name twice is its learner's problem,
/// named. The learner with two matrices is ungradable, both named; the rest of the class is
/// graded.
#[test]
fn a_name_twice_is_unpacked_beside_itself_into_the_private_tree_whatever_the_umask() {
    let long = format!("{}.txt", "n".repeat(300));
    let folder = |id: u32, name: &str| format!("{}/{name}", moodle_folder(id));
    let (ada, ben) = (submission("ada.csv"), submission("ben.csv"));
    let entries: Vec<(String, Vec<u8>, u32)> = vec![
        (folder(2001, "matrix.csv"), ada.clone(), 0o100_644),
        (folder(2002, "matrix.csv"), ben.clone(), 0o100_644),
        (folder(2002, "lab/notes.txt"), b"first".to_vec(), 0o100_644),
        (folder(2002, "lab/notes.txt"), b"second".to_vec(), 0o100_644),
        (folder(2002, "matrix.csv"), ada.clone(), 0o100_644),
        // The earlier of two a link to the instructor's key, the later a file.
        (
            folder(2003, "matrix.csv"),
            b"/etc/passwd".to_vec(),
            0o120_777,
        ),
        (folder(2003, "matrix.csv"), ada.clone(), 0o100_644),
        (folder(2004, &long), b"one".to_vec(), 0o100_644),
        (folder(2004, &long), b"two".to_vec(), 0o100_644),
        (folder(2004, "matrix.csv"), ada.clone(), 0o100_644),
    ];
    let entries: Vec<(&str, &[u8], u32)> = entries
        .iter()
        .map(|(name, data, mode)| (name.as_str(), data.as_slice(), *mode))
        .collect();
    for umask in [0o000, 0o022] {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let tmp = dir.join("tmp");
        fs::create_dir(&tmp).unwrap();
        moodle_worksheet(&dir.join("worksheet.csv"), &[2001, 2002, 2003, 2004]);
        crate::lms_edges::zip_of_stored_modes(&dir.join("download.zip"), &entries, true);
        let (modes, links, contents) =
            unpacked_tree_and_links(dir, &tmp, umask, &moodle_args("download.zip"));
        for (path, is_dir, mode) in &modes {
            let want = if *is_dir { 0o700 } else { 0o600 };
            assert_eq!(*mode, want, "umask {umask:03o}: {}", path.display());
        }
        let read = |end: &str| {
            let (_, bytes) = contents
                .iter()
                .find(|(p, _)| p.ends_with(end))
                .unwrap_or_else(|| panic!("umask {umask:03o}: no {end} in {modes:?}"));
            bytes.clone()
        };
        // Learner 2002 (the roster's second, folder 1): the later copy where the index has it,
        // the earlier beside it.
        assert_eq!(read("1/matrix.csv"), ada);
        assert_eq!(read("1/matrix (2nd of this name).csv"), ben);
        assert_eq!(read("1/lab/notes.txt"), b"second");
        assert_eq!(read("1/lab/notes (2nd of this name).txt"), b"first");
        assert_eq!(read("2/matrix.csv"), ada);
        assert_eq!(links.len(), 1, "{links:?}");
        assert!(links[0].0.ends_with("2/matrix (2nd of this name).csv"));
        assert_ne!(links[0].1, Path::new("/etc/passwd"));
        assert!(fs::metadata(&links[0].0).is_err(), "it points nowhere");
        let out = grade_command(
            dir,
            &tmp,
            umask,
            &[
                "--golden",
                key().to_str().unwrap(),
                "download.zip",
                "--lms",
                "moodle",
                "--roster",
                "worksheet.csv",
                "--gradebook",
                "import.csv",
            ],
        )
        .output()
        .unwrap();
        let said = said(&out);
        assert_eq!(out.status.code(), Some(2), "{said}");
        assert!(!said.contains("cannot unpack:"), "{said}");
        assert!(
            said.contains(
                "Learner 2002 (Participant 2002): holds 2 matrices (matrix (2nd of this \
                 name).csv, matrix.csv)"
            ),
            "{said}"
        );
        assert!(
            said.contains(&format!(
                "Learner 2004 (Participant 2004)/{long}: cannot be graded: it cannot be \
                 unpacked: its name is too long"
            )),
            "{said}"
        );
        // Learner 2003's link is no file of the upload (never opened), and their matrix is
        // graded, as the autograders' rule has it.
        let import = fs::read_to_string(dir.join("import.csv")).unwrap();
        for graded in ["Participant 2001,", "Participant 2003,"] {
            let row: Vec<&str> = import.lines().filter(|l| l.starts_with(graded)).collect();
            assert!(row.len() == 1 && row[0].contains(",10,"), "{import}");
        }
        assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
    }
}

/// A group's submission (`--groups`) is put in each member's upload by the same private
/// unpacking, within the same rules: every file `0600` in folders `0700` whatever the umask; a
/// name too long is each member's problem, named; a name twice is each member's two matrices,
/// both named; a learner of no group is graded as ever.
#[test]
fn a_groups_submission_is_unpacked_for_each_member_by_the_same_rules() {
    let long = format!("{}.txt", "n".repeat(300));
    let long_entry = format!("teamrocket_1002_55004_{long}");
    let (ada, ben, eve) = (
        submission("ada.csv"),
        submission("ben.csv"),
        submission("eve.csv"),
    );
    let entries = [
        ("teamrocket_1002_55001_matrix.csv".to_owned(), ada.clone()),
        (long_entry, b"notes".to_vec()),
        ("teammagma_1003_55002_matrix.csv".to_owned(), ben),
        ("teammagma_1003_55005_matrix.csv".to_owned(), ada),
        ("siânobrien_1006_55003_matrix.csv".to_owned(), eve),
    ];
    let learners = [
        ("Lovelace, Ada", "1001", ""),
        ("Okafor, Ben", "1002", ""),
        ("Yilmaz, Cy", "1003", ""),
        ("Doe, Dee", "1004", ""),
        ("Adams, Eve", "1005", ""),
        ("O'Brien, Siân", "1006", ""),
    ];
    let args = [
        "download.zip",
        "--lms",
        "canvas",
        "--roster",
        "gradebook.csv",
        "--groups",
        "groups.csv",
        "--gradebook",
        "import.csv",
    ];
    for umask in [0o000, 0o022] {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let tmp = dir.join("tmp");
        fs::create_dir(&tmp).unwrap();
        let export = crate::common::canvas_export("20.00", &learners);
        fs::write(dir.join("gradebook.csv"), export).unwrap();
        fs::write(dir.join("groups.csv"), crate::lms_edges::GROUP_SET).unwrap();
        zip_of(&dir.join("download.zip"), &entries);
        let (modes, _, _) = unpacked_tree_and_links(dir, &tmp, umask, &args);
        // Both members of each group have the group's files.
        for member in ["0", "1", "2", "3"] {
            let end = format!("{member}/matrix.csv");
            assert!(modes.iter().any(|(p, _, _)| p.ends_with(&end)), "{modes:?}");
        }
        for (path, is_dir, mode) in &modes {
            let want = if *is_dir { 0o700 } else { 0o600 };
            assert_eq!(*mode, want, "umask {umask:03o}: {}", path.display());
        }
        let key = key();
        let out = grade_command(
            dir,
            &tmp,
            umask,
            &[&["--golden", key.to_str().unwrap()][..], &args].concat(),
        )
        .output()
        .unwrap();
        let said = said(&out);
        assert_eq!(out.status.code(), Some(2), "{said}");
        for member in ["Lovelace, Ada (1001)", "Okafor, Ben (1002)"] {
            let line = format!(
                "{member}, group Team Rocket/{long}: cannot be graded: it cannot be unpacked: \
                 its name is too long"
            );
            assert!(said.contains(&line), "{line} in {said}");
        }
        for member in ["Yilmaz, Cy (1003)", "Doe, Dee (1004)"] {
            let line = format!(
                "{member}, group Team Magma: holds 2 matrices (matrix (2nd of this name).csv, \
                 matrix.csv)"
            );
            assert!(said.contains(&line), "{line} in {said}");
        }
        let import = fs::read_to_string(dir.join("import.csv")).unwrap();
        let rows: Vec<&str> = import.lines().filter(|l| l.contains(",1006,")).collect();
        assert!(rows.len() == 1 && rows[0].contains(",20"), "{import}");
        assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
    }
}

/// An entry whose name the file system refuses (too long), or whose place another entry takes
/// (a file where a folder must be), is a problem of its learner's upload, named; a name twice
/// (once resolved) is two files, the learner's two matrices, said by name; the rest of the
/// class is graded.
#[test]
fn an_entry_the_file_system_refuses_is_its_learners_problem_named_and_the_rest_is_graded() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let tmp = dir.join("tmp");
    fs::create_dir(&tmp).unwrap();
    moodle_worksheet(&dir.join("worksheet.csv"), &[2001, 2002, 2003, 2004]);
    let long = "n".repeat(300);
    zip_of(
        &dir.join("download.zip"),
        &[
            (
                format!("{}/matrix.csv", moodle_folder(2001)),
                submission("ada.csv"),
            ),
            (
                format!("{}/{long}.txt", moodle_folder(2002)),
                b"notes".to_vec(),
            ),
            (
                format!("{}/matrix.csv", moodle_folder(2002)),
                submission("ada.csv"),
            ),
            (format!("{}/lab", moodle_folder(2003)), b"a file".to_vec()),
            (
                format!("{}/lab/matrix.csv", moodle_folder(2003)),
                submission("ada.csv"),
            ),
            (
                format!("{}/matrix.csv", moodle_folder(2004)),
                submission("ada.csv"),
            ),
            // The same name once resolved.
            (
                format!("{}/./matrix.csv", moodle_folder(2004)),
                submission("ben.csv"),
            ),
        ],
    );
    let out = grade_command(
        dir,
        &tmp,
        0o022,
        &[
            "--golden",
            key().to_str().unwrap(),
            "download.zip",
            "--lms",
            "moodle",
            "--roster",
            "worksheet.csv",
            "--gradebook",
            "import.csv",
        ],
    )
    .output()
    .unwrap();
    let said = said(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains(&format!("Learner 2002 (Participant 2002)/{long}.txt: cannot be graded: it cannot be unpacked: its name is too long")),
        "{said}"
    );
    assert!(
        said.contains("Learner 2003 (Participant 2003)/lab/matrix.csv: cannot be graded: it cannot be unpacked: a file of the upload has the name of a folder on its way"),
        "{said}"
    );
    assert!(
        said.contains("Learner 2004 (Participant 2004): holds 2 matrices (matrix (2nd of this name).csv, matrix.csv)"),
        "{said}"
    );
    let import = fs::read_to_string(dir.join("import.csv")).unwrap();
    let graded: Vec<&str> = import
        .lines()
        .filter(|line| line.starts_with("Participant 2001,"))
        .collect();
    assert_eq!(graded.len(), 1, "{import}");
    assert!(graded[0].contains(",10,"), "{import}");
}

/// Runs `grade --lms moodle` on `download` with `worksheet.csv` in `dir`, the gradebook to
/// `import.csv`.
fn grade_moodle(dir: &Path, download: &str) -> Output {
    let key = key();
    let tmp = dir.join("tmp");
    let _ = fs::create_dir(&tmp);
    grade_command(
        dir,
        &tmp,
        0o022,
        &[
            "--golden",
            key.to_str().unwrap(),
            download,
            "--lms",
            "moodle",
            "--roster",
            "worksheet.csv",
            "--gradebook",
            "import.csv",
        ],
    )
    .output()
    .unwrap()
}

/// A learner's upload of more files than an upload may hold is refused as soon as that is
/// known, named, without being unpacked or walked whole (one learner's 100,000 entries took
/// ten seconds, quadratic in them, and 500,000 more than nine minutes); the rest of the class
/// is graded. From a zip, and from a folder graded where it is.
#[test]
fn a_learner_with_more_files_than_an_upload_may_hold_is_refused_and_the_rest_graded() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    moodle_worksheet(&dir.join("worksheet.csv"), &[2001, 2002]);
    let mut entries = vec![
        (
            format!("{}/matrix.csv", moodle_folder(2001)),
            submission("ada.csv"),
        ),
        (
            format!("{}/matrix.csv", moodle_folder(2002)),
            submission("ada.csv"),
        ),
    ];
    for n in 0..10_001 {
        entries.push((format!("{}/n/{n}.txt", moodle_folder(2002)), Vec::new()));
    }
    zip_of(&dir.join("download.zip"), &entries);
    let folder = dir.join("download");
    for (name, bytes) in &entries {
        let path = folder.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
    for download in ["download.zip", "download"] {
        let out = grade_moodle(dir, download);
        let said = said(&out);
        assert_eq!(out.status.code(), Some(2), "{download}: {said}");
        assert!(
            said.contains(
                "Learner 2002 (Participant 2002): holds more than 10000 files, the most an \
                 upload may hold"
            ),
            "{download}: {said}"
        );
        let import = fs::read_to_string(dir.join("import.csv")).unwrap();
        assert!(
            import
                .lines()
                .any(|l| l.starts_with("Participant 2001,") && l.contains(",10,")),
            "{download}: {import}"
        );
    }
}

/// A zip of more entries than a download may have, or whose directory is larger than a
/// download's may be, is refused before its entries are kept: the zip crate keeps some 500
/// bytes for each entry its directory lists (500,000 entries took 529 MB).
#[test]
fn a_zip_of_too_many_entries_or_too_large_a_directory_is_refused() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    moodle_worksheet(&dir.join("worksheet.csv"), &[2001]);
    let many: Vec<(String, Vec<u8>)> = (0..100_001)
        .map(|n| (format!("{}/{n}", moodle_folder(2001)), Vec::new()))
        .collect();
    zip_of(&dir.join("many.zip"), &many);
    let out = grade_moodle(dir, "many.zip");
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains(
            "many.zip: holds 100001 entries, more than 100000, the most a download may have"
        ),
        "{}",
        said(&out)
    );
    // The entries of a name the zip holds again count: the zip crate's index keeps one of
    // them, the rest are read past it. (The end record's count is 16 bits, as a zip of fewer
    // than 65,536 entries has it: it says 34,465 here, and the crate reads that many.)
    let name = format!("{}/matrix.csv", moodle_folder(2001));
    let twice: Vec<(&str, &[u8])> = (0..100_001).map(|_| (name.as_str(), &b""[..])).collect();
    crate::lms_edges::zip_of_stored(&dir.join("twice.zip"), &twice, false);
    let out = grade_moodle(dir, "twice.zip");
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains(
            "twice.zip: holds 100001 entries, more than 100000, the most a download may have"
        ),
        "{}",
        said(&out)
    );
    let long = "x".repeat(400);
    let wide: Vec<(String, Vec<u8>)> = (0..30_000)
        .map(|n| (format!("{}/{long}{n}", moodle_folder(2001)), Vec::new()))
        .collect();
    zip_of(&dir.join("wide.zip"), &wide);
    let out = grade_moodle(dir, "wide.zip");
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains("wide.zip: cannot read: its directory is larger than 12582912 bytes"),
        "{}",
        said(&out)
    );
}

/// `check -f github` on bad input with `$GITHUB_STEP_SUMMARY` set, in `dir` (a bad case file
/// `bad.csv`, the golden file `golden.csv`), its report to `-o report.txt`.
fn check_with_summary(dir: &Path, summary: &Path) -> Output {
    crate::common::leasejudge(&[
        "check",
        "bad.csv",
        "--golden",
        "golden.csv",
        "-f",
        "github",
        "-o",
        "report.txt",
    ])
    .dir(dir)
    .env("GITHUB_STEP_SUMMARY", summary)
    .output()
}

/// The step summary is an output like the others: one that names an input (the case file, the
/// golden file) or another output is refused before anything is written, and one that cannot
/// be appended to (`/dev/full`) commits nothing (the report stays as it was).
#[test]
fn the_step_summary_is_an_output_checked_against_the_inputs_and_committed_with_the_rest() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let bad = "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n\
               c1,teleport,2026-01-01T10:00:00Z,j,L,1,w,30\n";
    fs::write(dir.join("bad.csv"), bad).unwrap();
    let golden = fs::read(root().join("golden/probes.csv")).unwrap();
    fs::write(dir.join("golden.csv"), &golden).unwrap();
    fs::write(dir.join("report.txt"), "an earlier report\n").unwrap();
    for (named, role) in [
        ("bad.csv", "input bad.csv"),
        ("golden.csv", "--golden golden.csv"),
        ("report.txt", "-o report.txt"),
    ] {
        let out = check_with_summary(dir, &dir.join(named));
        assert_eq!(out.status.code(), Some(2), "{named}: {}", said(&out));
        assert!(
            said(&out).contains(&format!("{role} and $GITHUB_STEP_SUMMARY"))
                && said(&out).contains("are the same file"),
            "{named}: {}",
            said(&out)
        );
        assert_eq!(fs::read_to_string(dir.join("bad.csv")).unwrap(), bad);
        assert_eq!(fs::read(dir.join("golden.csv")).unwrap(), golden);
        assert_eq!(
            fs::read_to_string(dir.join("report.txt")).unwrap(),
            "an earlier report\n"
        );
    }
    let out = check_with_summary(dir, Path::new("/dev/full"));
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains("cannot append to $GITHUB_STEP_SUMMARY /dev/full")
            && said(&out).contains("so report.txt was not written (it is as it was)"),
        "{}",
        said(&out)
    );
    assert_eq!(
        fs::read_to_string(dir.join("report.txt")).unwrap(),
        "an earlier report\n"
    );
    // A summary that can be appended to: the report and the summary both written.
    let summary = dir.join("summary.md");
    fs::write(&summary, "# earlier steps\n").unwrap();
    let out = check_with_summary(dir, &summary);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(fs::read_to_string(dir.join("report.txt"))
        .unwrap()
        .contains("teleport"));
    let summary = fs::read_to_string(&summary).unwrap();
    assert!(
        summary.starts_with("# earlier steps\n") && summary.contains("teleport"),
        "{summary}"
    );
}

/// Runs leasejudge with `args` in `dir` under `umask`.
fn under_umask(dir: &Path, umask: u32, args: &[&str]) -> Output {
    let mut command = wide(Command::new(env!("CARGO_BIN_EXE_leasejudge")));
    command.current_dir(dir).args(args).stdin(Stdio::null());
    // SAFETY: umask is async-signal-safe and touches nothing of the parent's.
    unsafe {
        command.pre_exec(move || {
            libc::umask(umask as libc::mode_t);
            Ok(())
        });
    }
    command.output().unwrap()
}

/// A PrairieLearn course's shared binary is made as any program is, `rwxr-xr-x` less the
/// umask (`rwx------` under `umask 077`, as the question beside it), and is renamed into place
/// with the question: a build that fails (its question's place is a file) leaves the binary
/// every question of the course runs as it was.
#[test]
fn a_courses_binary_honours_the_umask_and_is_replaced_only_with_its_question() {
    let scratch = tempfile::tempdir().unwrap();
    let course = scratch.path().join("course");
    fs::create_dir(&course).unwrap();
    fs::write(course.join("infoCourse.json"), "{}").unwrap();
    let data = |name: &str| root().join("tests/data/autograder").join(name);
    let (key, cases) = (data("key.csv"), data("cases.csv"));
    let build = |umask: u32, qid: &str, binary: Option<&Path>| {
        let mut args = vec![
            "autograder",
            "prairielearn",
            "--golden",
            key.to_str().unwrap(),
            "--cases",
            cases.to_str().unwrap(),
            "--course",
            course.to_str().unwrap(),
            "--qid",
            qid,
        ];
        if let Some(binary) = binary {
            args.extend(["--binary", binary.to_str().unwrap()]);
        }
        under_umask(scratch.path(), umask, &args)
    };
    let built = build(0o077, "lab-1", None);
    assert_eq!(built.status.code(), Some(0), "{}", said(&built));
    let shared = course.join("serverFilesCourse/leasejudge/leasejudge");
    for path in [
        shared.clone(),
        course.join("serverFilesCourse/leasejudge"),
        course.join("questions/lab-1/tests/run_autograder"),
    ] {
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode & 0o077, 0, "{} is {mode:03o}", path.display());
    }
    assert_eq!(
        fs::metadata(&shared).unwrap().permissions().mode() & 0o777,
        0o700
    );
    let first = fs::read(&shared).unwrap();
    // Another build of the binary (the same program, one byte more), for a question whose
    // place cannot be made: nothing is written, the course's binary stays.
    let other = scratch.path().join("other-leasejudge");
    let mut bytes = first.clone();
    bytes.push(0);
    fs::write(&other, &bytes).unwrap();
    fs::set_permissions(&other, fs::Permissions::from_mode(0o755)).unwrap();
    fs::write(course.join("questions/a"), "a file").unwrap();
    let failed = build(0o022, "a/b", Some(&other));
    assert_eq!(failed.status.code(), Some(2), "{}", said(&failed));
    assert_eq!(fs::read(&shared).unwrap(), first, "{}", said(&failed));
    let left: Vec<String> = fs::read_dir(course.join("serverFilesCourse/leasejudge"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["leasejudge"], "no temporary file is left");
    // Built where it can be: the binary is replaced with the question, and keeps its mode.
    let rebuilt = build(0o022, "lab-2", Some(&other));
    assert_eq!(rebuilt.status.code(), Some(0), "{}", said(&rebuilt));
    assert!(
        said(&rebuilt).contains("leasejudge: replaced "),
        "{}",
        said(&rebuilt)
    );
    assert_eq!(fs::read(&shared).unwrap(), bytes);
    assert_eq!(
        fs::metadata(&shared).unwrap().permissions().mode() & 0o777,
        0o700
    );
}

/// Every thread leasejudge starts is given its stack: `RUST_MIN_STACK=16384` (the default of
/// threads started without one) aborted every file thread (exit 134, a temporary file left).
/// A lone large file (read as two halves), several files (read by several workers) and a lone
/// small one (parsed on a thread of its own) give the matrix they give without it.
#[test]
fn threads_have_their_stack_whatever_rust_min_stack_says() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let header = "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n";
    let mut big = String::from(header);
    let mut n = 0;
    while big.len() < 5 << 20 {
        big.push_str(&format!(
            "case-{n},offer,2026-01-01T00:00:00Z,job-{n},L-{n},1,w,30\n"
        ));
        n += 1;
    }
    fs::write(dir.join("big.csv"), &big).unwrap();
    fs::copy(root().join("cases/probes.csv"), dir.join("probes.csv")).unwrap();
    fs::copy(root().join("cases/acks.csv"), dir.join("acks.csv")).unwrap();
    for inputs in [
        &["big.csv"][..],
        &["probes.csv", "acks.csv"],
        &["probes.csv"],
    ] {
        let run = |env: bool| {
            let mut args = vec!["adjudicate", "--jobs", "2", "-f", "csv", "-o", "out.csv"];
            args.extend_from_slice(inputs);
            let mut run = crate::common::leasejudge(&args).dir(dir);
            if env {
                run = run.env("RUST_MIN_STACK", "16384");
            }
            let out = run.output();
            (out, fs::read(dir.join("out.csv")).unwrap_or_default())
        };
        let (plain, want) = run(false);
        assert_eq!(plain.status.code(), Some(0), "{inputs:?}: {}", said(&plain));
        let (starved, got) = run(true);
        assert_eq!(
            starved.status.code(),
            Some(0),
            "{inputs:?}: {}",
            said(&starved)
        );
        assert!(got == want, "{inputs:?}: another matrix");
        let left: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|name| name.to_string_lossy().starts_with(".leasejudge-"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
}

/// A temporary directory that fills up (a limit on the size of a file the run writes stands
/// for a full disk: `EFBIG` as `ENOSPC` would be) while the golden file is kept in temporary
/// files is said as what it is, to the one running `grade`, never to learners as a malformed
/// key; an autograder run writes no results (the platform says the run failed), its log says
/// why.
#[test]
fn a_full_temporary_directory_is_said_as_such_never_as_a_malformed_key() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let tmp = dir.join("tmp");
    fs::create_dir(&tmp).unwrap();
    let mut key = String::from("case_id,decision,reason\n");
    for n in 0..50_000 {
        key.push_str(&format!("case-{n},ACTIVE,progress_accepted\n"));
    }
    fs::write(dir.join("key.csv"), &key).unwrap();
    fs::write(dir.join("matrix.csv"), &key).unwrap();
    for extra in [
        &[][..],
        &[
            "-f",
            "gradescope",
            "--autograder",
            "-o",
            "results/results.json",
        ],
    ] {
        let mut command = wide(Command::new(env!("CARGO_BIN_EXE_leasejudge")));
        command
            .current_dir(dir)
            .args(["grade", "matrix.csv", "--golden", "key.csv"])
            .args(extra)
            .env("TMPDIR", &tmp)
            .stdin(Stdio::null());
        // SAFETY: signal and setrlimit are async-signal-safe and touch nothing of the parent's.
        unsafe {
            command.pre_exec(|| {
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                let limit = libc::rlimit {
                    rlim_cur: 256 << 10,
                    rlim_max: libc::RLIM_INFINITY,
                };
                if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let out = command.output().unwrap();
        let said = said(&out);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {said}");
        assert!(!said.contains("malformed"), "{extra:?}: {said}");
        assert!(
            said.contains(
                "cannot keep the golden file in temporary files: cannot write a temporary file in"
            ) && said.contains("no space left there for temporary files"),
            "{extra:?}: {said}"
        );
        assert!(!dir.join("results/results.json").exists());
    }
}

/// With no temporary directory, temporary files are kept in memory, as for an empty root, but
/// only up to a budget, past which the run says why it stops (a workbook on standard input,
/// copied to a temporary file to be read from its end, grew one to 200 MB before).
#[test]
fn temporary_files_kept_in_memory_for_want_of_a_directory_stay_within_a_budget() {
    let scratch = tempfile::tempdir().unwrap();
    let input = scratch.path().join("input");
    // A zip's first bytes and 200 MiB of zeros (sparse: no disk).
    fs::write(&input, b"PK\x03\x04").unwrap();
    fs::OpenOptions::new()
        .write(true)
        .open(&input)
        .unwrap()
        .set_len(200 << 20)
        .unwrap();
    let out = wide(Command::new(env!("CARGO_BIN_EXE_leasejudge")))
        .args(["adjudicate", "-", "--input-format", "workbook", "-f", "csv"])
        .env("TMPDIR", scratch.path().join("no-such-directory"))
        .stdin(fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains(
            "no-such-directory (named by TMPDIR): no temporary file can be made there, so they \
             are kept in memory, and they would hold more than 134217728 bytes (128 MiB)"
        ),
        "{}",
        said(&out)
    );
    // Within the budget, the fallback does its work as before: a small class graded.
    let key = key();
    let ada = root().join("examples/lab/submissions/ada.csv");
    let out = crate::common::leasejudge(&[
        "grade",
        ada.to_str().unwrap(),
        "--golden",
        key.to_str().unwrap(),
    ])
    .env("TMPDIR", scratch.path().join("no-such-directory"))
    .output();
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
}

/// Runs `command` with what `feed` writes on its standard input (from a thread of its own; a
/// run that stops reading closes the pipe), held to `address_space` bytes of memory
/// (`RLIMIT_AS`, as `prlimit --as` and bench/hostile.sh's `ulimit -v` hold a run): its exit
/// status and what it said. A run whose memory grows with its input fails to allocate (`out
/// of memory`, or an abort) rather than take the machine. (The child's peak resident memory
/// is no measure here: `wait4` reports that of the test process it was spawned from.)
fn within_memory(
    mut command: Command,
    address_space: u64,
    feed: impl FnOnce(std::process::ChildStdin) + Send + 'static,
) -> (Option<i32>, String) {
    // SAFETY: setrlimit is async-signal-safe and touches nothing of the parent's.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: address_space as libc::rlim_t,
                rlim_max: address_space as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || feed(stdin));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (out.status.code(), said(&out))
}

/// Writes `head`, then `line` over and over until `bytes` are written or the reader goes.
fn feed_lines(
    head: &'static [u8],
    line: &'static [u8],
    bytes: usize,
) -> impl FnOnce(std::process::ChildStdin) + Send {
    move |mut stdin| {
        if stdin.write_all(head).is_err() {
            return;
        }
        let chunk: Vec<u8> = line
            .iter()
            .copied()
            .cycle()
            .take((1 << 20) / line.len() * line.len())
            .collect();
        let mut left = bytes;
        while left > 0 {
            let n = left.min(chunk.len());
            if stdin.write_all(&chunk[..n]).is_err() {
                return;
            }
            left -= n;
        }
    }
}

/// A submission on standard input is held to the limit of one read whole as it is read, in
/// flat memory: 300 MiB of rows stop at 256 MiB with a located error, within 256 MiB of
/// memory (the whole was read into memory first: out of memory there, and `/dev/zero` took
/// 537 MiB); what is not text is refused by its first bytes.
#[test]
fn a_submission_on_standard_input_is_bounded_as_it_is_read_in_flat_memory() {
    let key = key();
    let grade = || {
        let mut command = wide(Command::new(env!("CARGO_BIN_EXE_leasejudge")));
        command.args(["grade", "-", "--golden", key.to_str().unwrap()]);
        command
    };
    let (code, said) = within_memory(
        grade(),
        256 << 20,
        feed_lines(
            b"case_id,decision,reason\n",
            b"c9,ACTIVE,progress_accepted\n",
            300 << 20,
        ),
    );
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("-: cannot read: larger than 268435456 bytes (256 MiB)"),
        "{said}"
    );
    let (code, said) = within_memory(grade(), 256 << 20, feed_lines(b"", b"\0", 300 << 20));
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("-: not a matrix: it is binary data"),
        "{said}"
    );
}

/// A regrade's baseline (an earlier gradebook) is read a record at a time, its names checked
/// for repeats a partition at a time on disk and only the class's scores kept: a gradebook of
/// 600,000 rows is read in the memory of a small one, within 128 MiB of address space (read
/// whole, it took 177 MiB resident and aborted there; 24 MB took 305 MiB), and the class's
/// earlier scores are still found, the last row's too.
#[test]
fn a_large_baseline_is_read_in_flat_memory_and_its_class_scores_found() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let subs = dir.join("subs");
    fs::create_dir(&subs).unwrap();
    fs::write(subs.join("ada.csv"), submission("ada.csv")).unwrap();
    fs::write(subs.join("ben.csv"), submission("ben.csv")).unwrap();
    let mut old = String::from("submission,score\nsubs/ada.csv,3\n");
    for n in 0..600_000 {
        old.push_str(&format!("learner-{n:08}.csv,{}\n", n % 5));
    }
    old.push_str("subs/ben.csv,4\n");
    fs::write(dir.join("old.csv"), &old).unwrap();
    let key = key();
    let mut command = wide(Command::new(env!("CARGO_BIN_EXE_leasejudge")));
    command.current_dir(dir).args([
        "grade",
        "subs",
        "--golden",
        key.to_str().unwrap(),
        "--baseline",
        "old.csv",
        "-f",
        "markdown",
    ]);
    let (code, said) = within_memory(command, 128 << 20, |_| {});
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains("| subs/ada.csv | 4 | 4 | 100.0% | graded | 3 | +1 |"),
        "{said}"
    );
    assert!(
        said.contains("| subs/ben.csv | 1 | 4 | 25.0% | graded | 4 | -3 |"),
        "{said}"
    );
}

/// A roster is read a record at a time and held to a documented size as it is read: its
/// class is graded with every learner held, within 256 MiB up to 100,000 learners (a Canvas
/// export of a million took 1.7 GB); past that, or past 2,000,000 cells, a located error.
#[test]
fn a_roster_past_its_limit_is_refused_where_it_passes_it() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let download = dir.join("download");
    fs::create_dir(&download).unwrap();
    let header = "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be \
                  changed,Last modified (submission),Online text,Last modified (grade),Feedback \
                  comments\n";
    let row = |n: usize| format!("Participant {n},Learner {n},,Submitted,,10.00,Yes,-,,-,\n");
    let mut long = String::from(header);
    for n in 1..=100_001 {
        long.push_str(&row(n));
    }
    fs::write(dir.join("worksheet.csv"), &long).unwrap();
    let out = grade_moodle(dir, "download");
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains(
            "worksheet.csv:100002: the roster has more than 100,000 rows or 2,000,000 cells"
        ),
        "{}",
        said(&out)
    );
    // Wide: 1,000 columns of 2,001 rows.
    let extra: String = (0..989).map(|n| format!(",x{n}")).collect();
    let mut wide = format!("{}{extra}\n", header.trim_end());
    for n in 1..=2_001 {
        wide.push_str(&format!("{}{}\n", row(n).trim_end(), ",".repeat(989)));
    }
    fs::write(dir.join("worksheet.csv"), &wide).unwrap();
    let out = grade_moodle(dir, "download");
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains("worksheet.csv:2001: the roster has more than"),
        "{}",
        said(&out)
    );
    // Long: rows and cells within their limits, but past 16 MiB of text in the cells kept
    // (each is held: 100,000 learners of 20 cells of 120 bytes peaked at 511 MiB; a
    // worksheet's are all kept). The line it passes it on is named.
    let comment = "y".repeat(1_000);
    let cell_bytes = |line: &str| line.trim_end().len() - line.matches(',').count();
    let mut kept = cell_bytes(header);
    let mut long = String::from(header);
    let mut passes_on = None;
    for n in 1..=20_000 {
        let line = format!("{}{comment}\n", row(n).trim_end());
        kept += cell_bytes(&line);
        if kept > 16 << 20 && passes_on.is_none() {
            passes_on = Some(n + 1);
        }
        long.push_str(&line);
    }
    fs::write(dir.join("worksheet.csv"), &long).unwrap();
    let out = grade_moodle(dir, "download");
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    let expected = format!(
        "worksheet.csv:{}: the roster holds more than 16,777,216 bytes (16 MiB) of text in the \
         cells it keeps",
        passes_on.unwrap()
    );
    assert!(said(&out).contains(&expected), "{expected}\n{}", said(&out));
}

/// Case rows in which case `a` comes back after `b` opened: with one case open at a time, `a`
/// is closed and read again.
const COMES_BACK: &str =
    "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration
a,offer,2026-01-01T00:00:00Z,j,L,1,w,30
b,offer,2026-01-01T00:00:00Z,j2,L2,1,w,30
a,ack,2026-01-01T00:00:05Z,j,L,1,w,
";

/// A FIFO at `path` that a thread fills with `text` once a reader opens it, and keeps
/// answering any later open with an empty end (so that a reader that opens it again sees it
/// end rather than waits forever) until `done` is set.
fn fifo_with(
    path: &Path,
    text: &'static str,
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<()> {
    mkfifo(path);
    let path = path.to_owned();
    std::thread::spawn(move || {
        let mut writer = fs::OpenOptions::new().write(true).open(&path).unwrap();
        let _ = writer.write_all(text.as_bytes());
        drop(writer);
        while !done.load(std::sync::atomic::Ordering::SeqCst) {
            // Fails (ENXIO) while no reader waits; a reader waiting is released at once.
            let _ = fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&path);
            std::thread::yield_now();
        }
    })
}

/// Runs `args` in `dir` with a FIFO `name` there that holds `text`.
fn with_fifo(dir: &Path, name: &str, text: &'static str, args: &[&str]) -> Output {
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let feeder = fifo_with(&dir.join(name), text, std::sync::Arc::clone(&done));
    let out = crate::common::leasejudge(args).dir(dir).output();
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    feeder.join().unwrap();
    out
}

/// An input that cannot be read twice — a FIFO, a shell's `<(…)` — is read once: `validate`
/// (which reads its inputs twice) counts its rows (it waited on a FIFO forever, and said "0
/// rows" of a pipe), and a case that comes back is read again from a copy made as it was read
/// ("the header cannot be read again").
#[test]
fn an_input_that_cannot_be_read_twice_is_read_once() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    fs::write(dir.join("back.csv"), COMES_BACK).unwrap();
    let out = with_fifo(dir, "fifo.csv", COMES_BACK, &["validate", "fifo.csv"]);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(
        said(&out).contains("2 cases, 3 rows: 0 input errors"),
        "{}",
        said(&out)
    );
    let piped = wide(Command::new("bash"))
        .current_dir(dir)
        .args([
            "-c",
            "\"$0\" validate <(cat back.csv) && \"$0\" adjudicate <(cat back.csv) --open-cases 1 -f csv",
            env!("CARGO_BIN_EXE_leasejudge"),
        ])
        .output()
        .unwrap();
    assert_eq!(piped.status.code(), Some(0), "{}", said(&piped));
    assert!(
        said(&piped).contains("2 cases, 3 rows: 0 input errors"),
        "{}",
        said(&piped)
    );
    assert!(said(&piped).contains(",ACKED,"), "{}", said(&piped));
    let want =
        crate::common::leasejudge(&["adjudicate", "back.csv", "--open-cases", "1", "-f", "csv"])
            .dir(dir)
            .output();
    for args in [
        &["adjudicate", "fifo.csv", "--open-cases", "1", "-f", "csv"][..],
        &[
            "adjudicate",
            "fifo.csv",
            "--open-cases",
            "1",
            "-f",
            "csv",
            "--jobs",
            "2",
        ],
    ] {
        let _ = fs::remove_file(dir.join("fifo.csv"));
        let out = with_fifo(dir, "fifo.csv", COMES_BACK, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", said(&out));
        assert_eq!(out.stdout, want.stdout, "{args:?}");
    }
}

/// `autograder --cases <(…)` carries the case file it checked against the key, not the empty
/// one a second read of the pipe finds.
#[test]
fn an_autograder_carries_the_case_file_it_checked_even_from_a_pipe() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let data = root().join("tests/data/autograder");
    let built = wide(Command::new("bash"))
        .current_dir(dir)
        .args([
            "-c",
            "\"$0\" autograder prairielearn --golden \"$1/key.csv\" --cases <(cat \"$1/cases.csv\") --feedback hint -o question",
            env!("CARGO_BIN_EXE_leasejudge"),
            data.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(built.status.code(), Some(0), "{}", said(&built));
    let tests = dir.join("question/tests");
    let carried: Vec<PathBuf> = fs::read_dir(&tests)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            !["run_autograder", "golden.csv", "leasejudge"].contains(&name.as_str())
        })
        .collect();
    assert_eq!(carried.len(), 1, "{carried:?}");
    let (got, want) = (
        fs::read(&carried[0]).unwrap(),
        fs::read(data.join("cases.csv")).unwrap(),
    );
    assert!(
        got == want,
        "the case file carried is not the one checked: {} bytes",
        got.len()
    );
}

/// The engine's copy of an input that cannot be read twice is bounded
/// (`StreamSettings::kept_input_bytes`; 4 GiB for the commands, a few bytes here): past it the
/// copy stops and the input is still judged to its end, and only a case that then comes back,
/// to be read again, is an error that says why (the copy of an endless input grew without
/// bound).
#[test]
fn the_copy_of_an_input_read_once_is_bounded_and_a_case_read_again_past_it_says_so() {
    use leasejudge::input::Source;
    use leasejudge::matrix::CsvMatrix;
    use leasejudge::streaming::{judge, Sink, StreamError, StreamSettings};
    let scratch = tempfile::tempdir().unwrap();
    let run = |name: &str, text: &'static str, open_cases: usize, kept: u64| {
        let path = scratch.path().join(name);
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let feeder = fifo_with(&path, text, std::sync::Arc::clone(&done));
        let settings = StreamSettings {
            open_cases,
            kept_input_bytes: kept,
            ..StreamSettings::default()
        };
        let judged = judge(
            &[Source::file(&path)],
            &settings,
            Sink::Matrix(&CsvMatrix),
            &mut |_, _, _| {},
        );
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        feeder.join().unwrap();
        match judged {
            Ok(_) => Ok(()),
            Err(StreamError::Io(e)) => Err(e.to_string()),
            Err(StreamError::Input(errors)) => panic!("{errors}"),
        }
    };
    // Every case read once: judged to the end, past the copy's limit.
    assert_eq!(run("once.csv", COMES_BACK, 2, 10), Ok(()));
    // A case that comes back within the copy is read again from it.
    assert_eq!(run("within.csv", COMES_BACK, 1, 4096), Ok(()));
    let error = run("past.csv", COMES_BACK, 1, 10).unwrap_err();
    assert!(
        error.contains(
            "past.csv: a case comes back, to be read again, but it is longer than 10 bytes, the \
             most of it kept to read again"
        ),
        "{error}"
    );
    // `validate` reads every input twice: one past the copy's limit is an error of its own,
    // found as it is copied.
    let validate = |name: &str, kept: u64| {
        let path = scratch.path().join(name);
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let feeder = fifo_with(&path, COMES_BACK, std::sync::Arc::clone(&done));
        let report = leasejudge::validation::validate_streaming(
            &[Source::file(&path)],
            None,
            None,
            false,
            leasejudge::streaming::Window {
                kept_input_bytes: kept,
                ..leasejudge::streaming::Window::COMMAND
            },
        )
        .unwrap();
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        feeder.join().unwrap();
        report
    };
    let report = validate("validated.csv", 4096);
    assert!(report.errors.is_empty(), "{}", report.errors);
    assert_eq!((report.cases, report.rows), (2, 3));
    let report = validate("too-long.csv", 10);
    assert_eq!(
        report.errors.listed()[0].to_string(),
        format!(
            "{}: it is longer than 10 bytes, the most kept of an input that cannot be read \
             twice (standard input, a pipe, a FIFO) to read again; give it as a file",
            scratch.path().join("too-long.csv").display()
        )
    );
}

/// A Moodle class of `learners` participants, each with a matrix in the zip download: the
/// worksheet `worksheet.csv` and `download.zip` in `dir`.
fn moodle_class(dir: &Path, learners: u32) {
    let ids: Vec<u32> = (3000..3000 + learners).collect();
    moodle_worksheet(&dir.join("worksheet.csv"), &ids);
    let entries: Vec<(String, Vec<u8>)> = ids
        .iter()
        .map(|id| {
            (
                format!("{}/matrix.csv", moodle_folder(*id)),
                submission("ada.csv"),
            )
        })
        .collect();
    zip_of(&dir.join("download.zip"), &entries);
}

/// A temporary directory another user could rename things in (one others may write to
/// without the sticky bit; one another user owns is refused by the same rule, see
/// `output/trusted.rs`) is refused before anything of the class is unpacked, in a sentence
/// that names it and TMPDIR (issue 36: another user swapped the unpacked tree for theirs and a
/// learner's 0 of 4 was imported as 20). With the sticky bit, as `/tmp` has, it is used.
#[test]
fn a_temporary_directory_others_could_rename_in_is_refused_naming_it() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let tmp = dir.join("shared");
    fs::create_dir(&tmp).unwrap();
    moodle_class(dir, 2);
    let key = key();
    let args = [
        &["--golden", key.to_str().unwrap()][..],
        &moodle_args("download.zip"),
    ]
    .concat();
    for mode in [0o770, 0o777, 0o1777] {
        fs::set_permissions(&tmp, fs::Permissions::from_mode(mode)).unwrap();
        let out = grade_command(dir, &tmp, 0o022, &args).output().unwrap();
        let said = said(&out);
        if mode & 0o1000 != 0 {
            assert_eq!(out.status.code(), Some(0), "{mode:o}: {said}");
            assert!(dir.join("import.csv").exists());
        } else {
            assert_eq!(out.status.code(), Some(2), "{mode:o}: {said}");
            assert!(
                said.contains("(named by TMPDIR)")
                    && said.contains(&format!(
                        "shared may be written to by others (mode {mode:o}) and has no sticky bit"
                    ))
                    && said.contains("set TMPDIR to a directory of your own or root's"),
                "{mode:o}: {said}"
            );
            assert!(!dir.join("import.csv").exists());
        }
        assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0, "{mode:o}");
    }
}

/// SIGINT, SIGTERM and SIGHUP while a class is being unpacked leave nothing in the temporary
/// directory: the signal's cleanup and the unpacking never work on the tree at once (it
/// removed the tree while the unpacking went on adding to it, and left it, issue 36). Each
/// signal is sent once the tree has entries (the test waits for them, it does not guess a
/// time).
#[test]
fn a_signal_while_a_class_is_unpacked_leaves_nothing_in_the_temporary_directory() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    moodle_class(dir, 3000);
    let key = key();
    let args = [
        &["--golden", key.to_str().unwrap()][..],
        &moodle_args("download.zip"),
    ]
    .concat();
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        let tmp = dir.join(format!("tmp-{signal}"));
        fs::create_dir(&tmp).unwrap();
        let mut child = grade_command(dir, &tmp, 0o022, &args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Until the tree holds some learners' folders (or the run has ended).
        let unpacking = loop {
            if child.try_wait().unwrap().is_some() {
                break false;
            }
            let tree = fs::read_dir(&tmp)
                .unwrap()
                .filter_map(|e| e.ok())
                .find(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with("leasejudge-download-")
                });
            let entries = tree
                .and_then(|t| fs::read_dir(t.path()).ok())
                .map(|d| d.count());
            if entries.is_some_and(|n| n >= 20) {
                break true;
            }
            std::thread::yield_now();
        };
        assert!(unpacking, "the run ended before its tree was seen");
        // SAFETY: a signal to the child this test spawned and has not reaped.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(128 + signal), "signal {signal}");
        let left: Vec<_> = fs::read_dir(&tmp)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert!(left.is_empty(), "signal {signal}: left {left:?}");
        assert!(!dir.join("import.csv").exists());
    }
}
