//! When the machine misbehaves (issue 28, docs/safety.md): a closed pipe or a closed or full
//! standard error never changes a verdict and never panics; a file the run was asked for is
//! committed or the run says it was not; outputs keep the permissions the umask or the file
//! they replace give them; a case file changed under a run is never read as a mix of two
//! files; a temporary directory that fails is named. Every hostile condition is made here: a
//! pipe whose reader is gone, `/dev/full`, a umask, a file-size limit, a FIFO.

#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const CASES: &str = include_str!("../../cases/acks.csv");
const GOLDEN: &str = include_str!("../../golden/acks.csv");

/// The golden matrix with every `ACTIVE,within_lease` decision wrong: a submission (or a
/// golden file) that differs.
fn wrong() -> String {
    GOLDEN.replace("ACTIVE,within_lease", "EXPIRED,expired_without_result")
}

/// A case file with a row that cannot be read (a bad timestamp).
fn malformed() -> String {
    format!("{CASES}ack-before-deadline,ack,not-a-time,,L-A1,1,w-a,,,,,,,,,,\n")
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("in.csv", CASES.to_owned()),
        ("golden.csv", GOLDEN.to_owned()),
        ("right.csv", GOLDEN.to_owned()),
        ("wrong.csv", wrong()),
        ("bad.csv", malformed()),
    ] {
        fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// The write end of a pipe whose read end is already closed: every write to it fails with
/// `EPIPE` (what `leasejudge ... | head -1` meets once `head` has gone), from the first byte.
fn reader_gone() -> fs::File {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: `pipe` fills two new descriptors, each owned by exactly one File below.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let (read, write) = unsafe { (fs::File::from_raw_fd(fds[0]), fs::File::from_raw_fd(fds[1])) };
    drop(read);
    write
}

fn dev_full() -> fs::File {
    fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap()
}

/// Where a run's standard output or standard error goes.
enum To {
    /// A pipe, read whole.
    Piped,
    /// A pipe whose reader is gone.
    ReaderGone,
    /// `/dev/full`.
    Full,
}

impl To {
    fn stdio(&self) -> Stdio {
        match self {
            To::Piped => Stdio::piped(),
            To::ReaderGone => reader_gone().into(),
            To::Full => dev_full().into(),
        }
    }
}

fn run(dir: &Path, args: &[&str], stdout: To, stderr: To) -> Output {
    Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout.stdio())
        .stderr(stderr.stdio())
        .output()
        .unwrap()
}

fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// What no run may print, whatever happened: a panic, a backtrace, a Debug dump.
fn assert_a_message(output: &Output, what: &str) {
    let text = stderr(output);
    for sign in [
        "panicked",
        "RUST_BACKTRACE",
        "failed printing",
        "Os {",
        "Custom {",
        "ZipWriter",
    ] {
        assert!(!text.contains(sign), "{what}: {sign:?} in {text}");
    }
    assert_ne!(output.status.code(), Some(101), "{what}: {text}");
    assert!(output.status.code().is_some(), "{what}: killed by a signal");
}

#[test]
fn a_closed_pipe_never_changes_the_verdict() {
    let dir = workspace();
    let cases: &[(&str, i32)] = &[
        ("check in.csv --golden golden.csv", 0),
        ("check in.csv --golden wrong.csv", 1),
        ("check in.csv --golden wrong.csv -f github", 1),
        ("check in.csv --golden wrong.csv -f junit", 1),
        ("check bad.csv --golden golden.csv", 2),
        ("check bad.csv --golden golden.csv -f junit", 2),
        ("adjudicate in.csv -f csv", 0),
        ("adjudicate bad.csv -f csv", 2),
        ("adjudicate in.csv -f table", 0),
        ("grade right.csv --golden golden.csv", 0),
        ("grade wrong.csv --golden golden.csv", 1),
        ("grade bad.csv --golden golden.csv", 2),
        ("explain in.csv", 0),
        ("explain bad.csv", 2),
        ("template in.csv", 0),
        ("reorder in.csv", 0),
        ("validate in.csv", 0),
        ("validate bad.csv", 2),
        ("generate --cases 3000", 0),
    ];
    for &(args, code) in cases {
        let piped = run(dir.path(), &words(args), To::Piped, To::Piped);
        assert_eq!(
            piped.status.code(),
            Some(code),
            "{args}: {}",
            stderr(&piped)
        );
        let closed = run(dir.path(), &words(args), To::ReaderGone, To::Piped);
        assert_eq!(
            closed.status.code(),
            Some(code),
            "{args} | head: {}",
            stderr(&closed)
        );
        assert_a_message(&closed, args);
        // Quiet: what standard error says is what it says unpiped (a closed pipe is the
        // reader's choice, not a problem).
        assert_eq!(stderr(&closed), stderr(&piped), "{args}");
    }
}

#[test]
fn a_closed_pipe_still_commits_every_file_the_run_was_asked_for() {
    let dir = workspace();
    let runs: &[(&str, &[&str], i32)] = &[
        (
            "adjudicate in.csv -f csv --audit audit.csv",
            &["audit.csv"],
            0,
        ),
        (
            "adjudicate in.csv -o matrix.csv --audit -",
            &["matrix.csv"],
            0,
        ),
        (
            "grade wrong.csv --golden golden.csv --gradebook gb.csv --item-analysis items.csv",
            &["gb.csv", "items.csv"],
            1,
        ),
        (
            "check in.csv --golden wrong.csv --bless",
            &["wrong.csv.new"],
            1,
        ),
    ];
    for &(args, files, code) in runs {
        let piped = run(dir.path(), &words(args), To::Piped, To::Piped);
        assert_eq!(
            piped.status.code(),
            Some(code),
            "{args}: {}",
            stderr(&piped)
        );
        let expected: Vec<Vec<u8>> = files
            .iter()
            .map(|file| fs::read(dir.path().join(file)).unwrap())
            .collect();
        for file in files {
            fs::write(dir.path().join(file), "old").unwrap();
        }
        let closed = run(dir.path(), &words(args), To::ReaderGone, To::Piped);
        assert_eq!(
            closed.status.code(),
            Some(code),
            "{args}: {}",
            stderr(&closed)
        );
        assert_a_message(&closed, args);
        for (file, bytes) in files.iter().zip(&expected) {
            assert_eq!(
                &fs::read(dir.path().join(file)).unwrap(),
                bytes,
                "{args}: {file} was not written"
            );
        }
    }
}

#[test]
fn a_full_standard_output_commits_nothing_and_says_which_files_it_left() {
    let dir = workspace();
    for args in [
        "grade wrong.csv --golden golden.csv --gradebook gb.csv --item-analysis items.csv",
        "adjudicate in.csv -f csv --audit gb.csv",
    ] {
        fs::write(dir.path().join("gb.csv"), "old").unwrap();
        let full = run(dir.path(), &words(args), To::Full, To::Piped);
        assert_eq!(full.status.code(), Some(2), "{args}");
        assert_a_message(&full, args);
        let text = stderr(&full);
        assert!(text.contains("standard output"), "{args}: {text}");
        assert!(
            text.contains("gb.csv was not written") || text.contains("gb.csv, "),
            "{text}"
        );
        assert_eq!(fs::read(dir.path().join("gb.csv")).unwrap(), b"old");
        assert!(
            fs::read_dir(dir.path()).unwrap().all(|e| !e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".leasejudge-")),
            "{args} left a temporary file"
        );
    }
}

#[test]
fn a_closed_or_full_standard_error_changes_no_exit_status_and_never_panics() {
    let dir = workspace();
    let cases: &[(&str, i32)] = &[
        ("adjudicate bad.csv -f csv", 2),
        ("adjudicate missing.csv -f csv", 2),
        ("adjudicate in.csv -f csv", 0),
        ("validate bad.csv", 2),
        ("validate in.csv", 0),
        ("check bad.csv --golden golden.csv", 2),
        ("check in.csv --golden wrong.csv --bless", 1),
        ("grade bad.csv --golden golden.csv", 2),
        ("explain bad.csv", 2),
        ("explain in.csv --limit 1 -f html", 0),
        ("template bad.csv", 2),
        ("reorder bad.csv", 2),
        ("generate --golden key.csv", 2),
        ("adjudicate --no-such-option", 2),
    ];
    for &(args, code) in cases {
        for (how, to) in [("closed pipe", To::ReaderGone), ("/dev/full", To::Full)] {
            let out = run(dir.path(), &words(args), To::Piped, to);
            assert_eq!(out.status.code(), Some(code), "{args} 2> {how}");
            assert_a_message(&out, args);
        }
        // The shell's `2>&-`: the standard library opens /dev/null in its place.
        let out = Command::new("sh")
            .current_dir(dir.path())
            .arg("-c")
            .arg(format!(
                "exec '{}' {args} 2>&-",
                env!("CARGO_BIN_EXE_leasejudge")
            ))
            .stdout(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{args} 2>&-");
    }
    // Many errors, all to a closed standard error: still exit 2.
    let mut many = String::from(CASES.lines().next().unwrap());
    many.push('\n');
    for i in 0..20_000 {
        many.push_str(&format!("c{i},offer,never,j,L,1,w,,30,,,,,,,,\n"));
    }
    fs::write(dir.path().join("many.csv"), many).unwrap();
    for args in ["validate many.csv", "adjudicate many.csv -f csv"] {
        let out = run(dir.path(), &words(args), To::Piped, To::ReaderGone);
        assert_eq!(out.status.code(), Some(2), "{args}");
        assert!(out.stdout.is_empty(), "{args}");
    }
}

/// Runs `args` in `dir` under `umask`.
fn under_umask(dir: &Path, umask: u32, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_leasejudge"));
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

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn a_new_output_honours_the_umask_and_a_replaced_one_keeps_its_mode() {
    let dir = workspace();
    for (umask, expected) in [(0o077, 0o600), (0o022, 0o644), (0o002, 0o664)] {
        for name in ["cases.csv", "key.csv", "matrix.csv", "audit.csv"] {
            let _ = fs::remove_file(dir.path().join(name));
        }
        let generated = under_umask(
            dir.path(),
            umask,
            &[
                "generate",
                "--cases",
                "5",
                "-o",
                "cases.csv",
                "--golden",
                "key.csv",
            ],
        );
        assert_eq!(generated.status.code(), Some(0), "{}", stderr(&generated));
        let adjudicated = under_umask(
            dir.path(),
            umask,
            &[
                "adjudicate",
                "in.csv",
                "-o",
                "matrix.csv",
                "--audit",
                "audit.csv",
            ],
        );
        assert_eq!(adjudicated.status.code(), Some(0));
        for name in ["cases.csv", "key.csv", "matrix.csv", "audit.csv"] {
            assert_eq!(
                mode(&dir.path().join(name)),
                expected,
                "{name} under umask {umask:03o}"
            );
        }
    }
    // Replaced: the file's own mode stays, whatever the umask.
    for (kept, umask) in [(0o600, 0o022), (0o640, 0o077), (0o604, 0o000)] {
        for name in ["key.csv", "matrix.csv"] {
            fs::set_permissions(dir.path().join(name), fs::Permissions::from_mode(kept)).unwrap();
        }
        let generated = under_umask(
            dir.path(),
            umask,
            &[
                "generate",
                "--cases",
                "5",
                "-o",
                "cases.csv",
                "--golden",
                "key.csv",
            ],
        );
        assert_eq!(generated.status.code(), Some(0));
        let adjudicated = under_umask(
            dir.path(),
            umask,
            &["adjudicate", "in.csv", "-o", "matrix.csv"],
        );
        assert_eq!(adjudicated.status.code(), Some(0));
        for name in ["key.csv", "matrix.csv"] {
            assert_eq!(mode(&dir.path().join(name)), kept, "{name} kept {kept:03o}");
        }
    }
    // Through a symlink: the file it names keeps its mode.
    fs::set_permissions(
        dir.path().join("matrix.csv"),
        fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    std::os::unix::fs::symlink("matrix.csv", dir.path().join("link.csv")).unwrap();
    let linked = under_umask(
        dir.path(),
        0o022,
        &["adjudicate", "in.csv", "-o", "link.csv"],
    );
    assert_eq!(linked.status.code(), Some(0));
    assert_eq!(mode(&dir.path().join("matrix.csv")), 0o600);
}

#[test]
fn a_prairielearn_question_is_no_more_open_than_the_umask() {
    let dir = workspace();
    let built = under_umask(
        dir.path(),
        0o077,
        &[
            "autograder",
            "prairielearn",
            "--golden",
            "golden.csv",
            "--cases",
            "in.csv",
            "-o",
            "question",
        ],
    );
    assert_eq!(built.status.code(), Some(0), "{}", stderr(&built));
    let mut pending = vec![dir.path().join("question")];
    let mut seen = 0;
    while let Some(path) = pending.pop() {
        let meta = fs::metadata(&path).unwrap();
        assert_eq!(
            meta.permissions().mode() & 0o077,
            0,
            "{} is open to others",
            path.display()
        );
        seen += 1;
        if meta.is_dir() {
            pending.extend(fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        }
    }
    assert!(seen > 4, "the question holds its files");
}

/// Runs `args` in `dir` with `TMPDIR` set to `tmpdir`, every file it writes limited to
/// `max_file_bytes` (`EFBIG` past it, as a full disk fails), standard input from `input`.
fn limited(dir: &Path, tmpdir: &Path, max_file_bytes: u64, input: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_leasejudge"));
    command
        .current_dir(dir)
        .args(args)
        .env("TMPDIR", tmpdir)
        .stdin(fs::File::open(input).unwrap());
    // SAFETY: signal and setrlimit are async-signal-safe and touch nothing of the parent's.
    unsafe {
        command.pre_exec(move || {
            // Ignored, a write past the limit fails instead of killing the process.
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: max_file_bytes as libc::rlim_t,
                rlim_max: libc::RLIM_INFINITY,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command.output().unwrap()
}

#[test]
fn a_temporary_directory_that_fails_is_named_with_tmpdir() {
    let dir = workspace();
    // A case file larger than the limit, read from standard input, whose first case comes
    // back at its end: its copy (a temporary file, from which that case is read again)
    // cannot be written. (A copy that stops is no failure until it must be read again: an
    // endless input is judged as it comes.)
    let mut big = String::from(CASES);
    let mut block = 0;
    while big.len() < 300_000 {
        block += 1;
        let rows = CASES.split_once('\n').unwrap().1;
        big.push_str(&rows.replace("ack-", &format!("k{block}-")));
    }
    big.push_str("ack-before-deadline,observe,2026-03-02T10:30:00Z,,,,,,,,,,,,,,\n");
    fs::write(dir.path().join("big.csv"), big).unwrap();
    let tmp = dir.path().join("tmp");
    fs::create_dir(&tmp).unwrap();
    let table = ["adjudicate", "-", "-f", "table", "--open-cases", "1"];
    // A missing TMPDIR, or one that is not a directory, is no failure: the scratch files fall
    // back to anonymous files in memory (tests/it/cli.rs, a_run_needs_no_temporary_directory). A
    // full one is.
    let out = limited(
        dir.path(),
        &tmp,
        100_000,
        &dir.path().join("big.csv"),
        &table,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_a_message(&out, "full");
    let text = stderr(&out);
    assert!(
        text.contains(&*tmp.to_string_lossy()) && text.contains("TMPDIR"),
        "{text}"
    );
}

#[test]
fn a_full_disk_under_an_autograder_zip_is_a_message_and_leaves_nothing() {
    let dir = workspace();
    fs::write(dir.path().join("grader.zip"), "old").unwrap();
    let out = limited(
        dir.path(),
        dir.path(),
        200_000,
        &dir.path().join("in.csv"),
        &[
            "autograder",
            "gradescope",
            "--golden",
            "golden.csv",
            "--cases",
            "in.csv",
            "-o",
            "grader.zip",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_a_message(&out, "zip");
    assert!(stderr(&out).contains("grader.zip"), "{}", stderr(&out));
    assert_eq!(fs::read(dir.path().join("grader.zip")).unwrap(), b"old");
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with(".leasejudge-")),
        "{names:?}"
    );
}

/// Makes a FIFO at `path`.
fn fifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a NUL-terminated path that lives for the call.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
}

/// `template first.csv fifo.csv`, whose second file (a FIFO, so the run waits for it after
/// reading the first) has a bad row of a case of the first. Before the FIFO is written,
/// `meddle` changes the first file; what the run then does.
fn read_earlier_file_again(meddle: &dyn Fn(&Path)) -> Output {
    let dir = workspace();
    fs::write(dir.path().join("first.csv"), CASES).unwrap();
    fifo(&dir.path().join("fifo.csv"));
    let child = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .current_dir(dir.path())
        .args(["template", "first.csv", "fifo.csv"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Opening the FIFO waits for the run to open it: the first file has been read whole.
    let mut writer = fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join("fifo.csv"))
        .unwrap();
    meddle(dir.path());
    let header = CASES.lines().next().unwrap();
    use std::io::Write;
    writeln!(
        writer,
        "{header}\nack-before-deadline,ack,not-a-time,,L-A1,1,w-a,,,,,,,,,,"
    )
    .unwrap();
    drop(writer);
    child.wait_with_output().unwrap()
}

#[test]
fn a_case_file_replaced_under_a_run_is_never_read_as_a_mix() {
    let untouched = read_earlier_file_again(&|_| {});
    assert_eq!(untouched.status.code(), Some(2));
    let expected = stderr(&untouched);
    // The bad row lists its own error only, and the file read first is not read again for
    // it (a case id in two files is one error, not one case).
    assert!(expected.contains("fifo.csv:2"), "{expected}");
    assert!(!expected.contains("first.csv:"), "{expected}");

    // Another file moved to its name, the file cut short, or a row added: the run has
    // finished with it and says what it said of the file as it was.
    let replaced = read_earlier_file_again(&|dir| {
        fs::write(dir.join("new.csv"), CASES.replace("w-a", "w-z")).unwrap();
        fs::rename(dir.join("new.csv"), dir.join("first.csv")).unwrap();
    });
    let truncated = read_earlier_file_again(&|dir| {
        fs::OpenOptions::new()
            .write(true)
            .open(dir.join("first.csv"))
            .unwrap()
            .set_len(10)
            .unwrap();
    });
    let appended = read_earlier_file_again(&|dir| {
        use std::io::Write;
        let mut file = fs::OpenOptions::new()
            .append(true)
            .open(dir.join("first.csv"))
            .unwrap();
        writeln!(file, "x,offer,2026-03-02T10:00:00Z,j,L,1,w,,60,,,,,,,,").unwrap();
    });
    for (what, out) in [
        ("replaced", replaced),
        ("truncated", truncated),
        ("appended", appended),
    ] {
        assert_eq!(out.status.code(), Some(2), "{what}");
        assert_eq!(stderr(&out), expected, "{what}");
        assert!(out.stdout.is_empty(), "{what}: a template was written");
    }
}
