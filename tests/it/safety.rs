//! Output safety (issue 13, docs/safety.md): no output may be an input or another output,
//! a failed run replaces nothing, an interrupted run leaves nothing behind.

use crate::common::leasejudge_in;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const CASES: &str = include_str!("../../cases/acks.csv");
const GOLDEN: &str = include_str!("../../golden/acks.csv");

/// Every file under `dir` (not following symlinks) with its bytes, or where it links to.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(next) = pending.pop() {
        for entry in fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                pending.push(path);
            } else if meta.file_type().is_symlink() {
                let target = fs::read_link(&path).unwrap();
                files.insert(path, target.into_os_string().into_encoded_bytes());
            } else {
                files.insert(path.clone(), fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// A directory with the input files, a subdirectory for `..`, and for each name the four
/// other names of one file: itself, a symlink, `sub/../name` and a hard link.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    fs::create_dir(dir.path().join("gold")).unwrap();
    fs::write(dir.path().join("in.csv"), CASES).unwrap();
    fs::write(dir.path().join("golden.csv"), GOLDEN).unwrap();
    fs::write(dir.path().join("submission.csv"), GOLDEN).unwrap();
    fs::write(dir.path().join("gold/in.csv"), GOLDEN).unwrap();
    fs::write(dir.path().join("gold/orphan.csv"), GOLDEN).unwrap();
    fs::write(dir.path().join("sub/in.csv"), CASES).unwrap();
    dir
}

/// The ways to name `file` again; each creates what it needs in `dir`.
fn aliases(dir: &Path, file: &str) -> Vec<(&'static str, String)> {
    let link = format!("link-{}", file.replace('/', "-"));
    std::os::unix::fs::symlink(dir.join(file), dir.join(&link)).unwrap();
    let hard = format!("hard-{}", file.replace('/', "-"));
    fs::hard_link(dir.join(file), dir.join(&hard)).unwrap();
    vec![
        ("itself", file.to_owned()),
        ("symlink", link),
        ("dotdot", format!("sub/../{file}")),
        ("hard link", hard),
    ]
}

fn assert_refused(dir: &Path, args: &[&str], what: &str) {
    let before = snapshot(dir);
    let run = leasejudge_in(dir, args);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{what}: {args:?}\n{stderr}");
    assert!(
        stderr.contains("are the same file"),
        "{what}: {args:?}\n{stderr}"
    );
    assert_eq!(snapshot(dir), before, "{what}: {args:?} touched a file");
}

/// Each command with an output option `{}` to fill, and the inputs that command reads.
const OUTPUT_OPTIONS: &[(&[&str], &[&str])] = &[
    (&["adjudicate", "in.csv", "-o", "{}"], &["in.csv"]),
    (
        &["adjudicate", "in.csv", "-o", "out.csv", "--audit", "{}"],
        &["in.csv"],
    ),
    (
        &["adjudicate", "in.csv", "-f", "table", "-o", "{}"],
        &["in.csv"],
    ),
    (&["explain", "in.csv", "-o", "{}"], &["in.csv"]),
    (&["reorder", "in.csv", "-o", "{}"], &["in.csv"]),
    (&["shortcuts", "in.csv", "-o", "{}"], &["in.csv"]),
    (&["shortcuts", "in.csv", "--suggest", "{}"], &["in.csv"]),
    (
        &[
            "shortcuts",
            "in.csv",
            "--suggest",
            "s.csv",
            "--golden",
            "{}",
        ],
        &["in.csv"],
    ),
    (&["template", "in.csv", "-o", "{}"], &["in.csv"]),
    (
        &["check", "in.csv", "--golden", "golden.csv", "-o", "{}"],
        &["in.csv", "golden.csv"],
    ),
    (
        &["check", "in.csv", "--golden", "gold", "-o", "{}"],
        &["in.csv", "gold/in.csv"],
    ),
    (
        &[
            "grade",
            "submission.csv",
            "--golden",
            "golden.csv",
            "-o",
            "{}",
        ],
        &["submission.csv", "golden.csv"],
    ),
    (
        &["check", "sub", "--golden", "gold", "-o", "{}"],
        &["sub/in.csv", "gold/in.csv", "gold/orphan.csv"],
    ),
];

#[test]
fn no_output_may_be_an_input() {
    for (template, inputs) in OUTPUT_OPTIONS {
        for input in *inputs {
            let dir = workspace();
            for (how, alias) in aliases(dir.path(), input) {
                let args: Vec<&str> = template
                    .iter()
                    .map(|a| if *a == "{}" { alias.as_str() } else { a })
                    .collect();
                assert_refused(dir.path(), &args, &format!("{input} as {how}"));
            }
        }
    }
}

#[test]
fn a_blessed_file_may_not_be_an_input() {
    // --bless writes gold/in.csv.new; here that name is the case file itself.
    for how in ["symlink", "hard link"] {
        let dir = workspace();
        let new = dir.path().join("gold/in.csv.new");
        if how == "symlink" {
            std::os::unix::fs::symlink(dir.path().join("in.csv"), &new).unwrap();
        } else {
            fs::hard_link(dir.path().join("in.csv"), &new).unwrap();
        }
        let args = ["check", "in.csv", "--golden", "gold", "--bless"];
        assert_refused(dir.path(), &args, how);
    }
}

#[test]
fn no_output_may_be_another_output() {
    let runs: &[&[&str]] = &[
        &["adjudicate", "in.csv", "-o", "out.csv", "--audit", "{}"],
        &[
            "generate", "--cases", "3", "-o", "out.csv", "--golden", "{}",
        ],
        &["check", "in.csv", "--golden", "gold", "--bless", "-o", "{}"],
        &[
            "shortcuts",
            "in.csv",
            "--suggest",
            "out.csv",
            "--golden",
            "{}",
        ],
        &["shortcuts", "in.csv", "-o", "out.csv", "--suggest", "{}"],
    ];
    let names = [
        ("itself", "out.csv"),
        ("dotdot", "sub/../out.csv"),
        ("dot", "./out.csv"),
    ];
    for template in runs {
        for (how, name) in names {
            let dir = workspace();
            let name = if template[0] == "check" {
                name.replace("out.csv", "gold/in.csv.new")
            } else {
                name.to_owned()
            };
            let args: Vec<&str> = template
                .iter()
                .map(|a| if *a == "{}" { name.as_str() } else { a })
                .collect();
            assert_refused(dir.path(), &args, &format!("two outputs, {how}"));
        }
    }
    // An existing output file under two names (hard link) is one file too.
    let dir = workspace();
    fs::write(dir.path().join("out.csv"), "old").unwrap();
    fs::hard_link(dir.path().join("out.csv"), dir.path().join("again.csv")).unwrap();
    let args = [
        "adjudicate",
        "in.csv",
        "-o",
        "out.csv",
        "--audit",
        "again.csv",
    ];
    assert_refused(dir.path(), &args, "two outputs, hard link");
}

#[test]
fn standard_input_and_output_are_compared_by_what_they_are_open_on() {
    for command in ["adjudicate", "template"] {
        let dir = workspace();
        let input = dir.path().join("in.csv");
        let before = snapshot(dir.path());
        let run = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
            .current_dir(dir.path())
            .args([command, "-", "-o", "in.csv"])
            .stdin(fs::File::open(&input).unwrap())
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "{command}");
        assert_eq!(snapshot(dir.path()), before, "{command}");
        let run = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
            .current_dir(dir.path())
            .args([command, "in.csv"])
            .stdout(fs::OpenOptions::new().append(true).open(&input).unwrap())
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "{command}");
        assert_eq!(snapshot(dir.path()), before, "{command}");
    }
}

#[test]
fn devices_may_take_several_outputs() {
    let dir = workspace();
    let run = leasejudge_in(
        dir.path(),
        &[
            "adjudicate",
            "in.csv",
            "-o",
            "/dev/null",
            "--audit",
            "/dev/null",
        ],
    );
    assert_eq!(run.status.code(), Some(0), "{:?}", run);
}

#[test]
fn a_failed_output_commits_no_other() {
    let dir = workspace();
    fs::write(dir.path().join("keep.csv"), "old matrix").unwrap();
    fs::write(dir.path().join("keep-audit.csv"), "old audit").unwrap();
    let before = snapshot(dir.path());
    for args in [
        &[
            "adjudicate",
            "in.csv",
            "--audit",
            "/dev/full",
            "-o",
            "keep.csv",
        ][..],
        &[
            "adjudicate",
            "in.csv",
            "--audit",
            "keep-audit.csv",
            "-o",
            "/dev/full",
        ],
        &[
            "adjudicate",
            "in.csv",
            "-f",
            "table",
            "--audit",
            "/dev/full",
            "-o",
            "keep.csv",
        ],
        &[
            "generate",
            "--cases",
            "5",
            "-o",
            "keep.csv",
            "--golden",
            "/dev/full",
        ],
    ] {
        let run = leasejudge_in(dir.path(), args);
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        assert_eq!(snapshot(dir.path()), before, "{args:?}");
    }
}

#[test]
fn a_closed_or_unwritable_standard_output_is_an_error() {
    let dir = workspace();
    // Opened for reading only: every write fails with EBADF.
    let run = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .current_dir(dir.path())
        .args(["adjudicate", "in.csv", "-f", "csv"])
        .stdout(fs::File::open(dir.path().join("golden.csv")).unwrap())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    // Closed: the shell's `>&-`.
    for args in [
        "adjudicate in.csv -f csv",
        "adjudicate in.csv -f table",
        "explain in.csv",
        "generate --cases 3",
        "generate --list-scenarios",
        "check in.csv --golden golden.csv -f github",
        "grade submission.csv --golden golden.csv",
        "validate in.csv",
        "man",
        "completions bash",
        "template in.csv",
        "reorder in.csv",
    ] {
        let run = Command::new("sh")
            .current_dir(dir.path())
            .arg("-c")
            .arg(format!(
                "exec '{}' {args} >&-",
                env!("CARGO_BIN_EXE_leasejudge")
            ))
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "{args}: {run:?}");
        assert!(String::from_utf8_lossy(&run.stderr).contains("standard output"));
    }
    // A full device.
    let run = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .current_dir(dir.path())
        .args(["adjudicate", "in.csv", "-f", "csv"])
        .stdout(
            fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
}

#[test]
fn a_closed_pipe_stays_quiet() {
    let dir = workspace();
    let run = Command::new("sh")
        .current_dir(dir.path())
        .arg("-c")
        .arg(format!(
            "'{}' generate --cases 20000 | head -c 10 >/dev/null",
            env!("CARGO_BIN_EXE_leasejudge")
        ))
        .output()
        .unwrap();
    assert!(
        run.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// Leftovers of a run: the temporary files beside the output.
fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".leasejudge-"))
        .collect()
}

// Each interrupted command is its own test. Every run checks the output directory and the
// private `TMPDIR` both (the engine's temporary files, spills, logs, the copy of standard
// input, are anonymous: unlinked at creation, so no signal, not even SIGKILL, can leave them
// there). The signal is sent at a known point, not after a delay: once every output's
// temporary file is there, and, for `adjudicate`, while half its input has been read and the
// rest has not come (it reads standard input, held open), so the run cannot end first.

#[test]
fn an_interrupted_adjudicate_with_an_audit_leaves_nothing_and_keeps_the_old_outputs() {
    interrupt_large_run(
        &["adjudicate", "-", "-o", "out.csv", "--audit", "audit.csv"],
        2,
    );
}

#[test]
fn an_interrupted_adjudicate_to_json_leaves_nothing_and_keeps_the_old_output() {
    interrupt_large_run(&["adjudicate", "-", "-f", "json", "-o", "out.csv"], 1);
}

#[test]
fn an_interrupted_generate_with_a_golden_file_leaves_nothing_and_keeps_the_old_outputs() {
    interrupt_large_run(
        &[
            "generate",
            "--cases",
            "15000",
            "-o",
            "out.csv",
            "--golden",
            "audit.csv",
        ],
        2,
    );
}

/// The files directly in `dir`, by name, with their bytes.
fn files_by_name(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// Runs `args` in a fresh directory holding old outputs, with a private `TMPDIR`, giving it
/// the first half of `input` (whole lines) on standard input, held open, if there is an
/// input. Sends `signal` once `outputs` temporary files are in the directory. Returns the
/// directories and the exit status.
fn interrupt_in_fresh_dir(
    args: &[&str],
    input: Option<&[u8]>,
    outputs: usize,
    signal: i32,
) -> (
    tempfile::TempDir,
    tempfile::TempDir,
    std::process::ExitStatus,
) {
    use std::io::Write;
    use std::time::{Duration, Instant};

    let out_dir = tempfile::tempdir().unwrap();
    let private_tmp = tempfile::tempdir().unwrap();
    fs::write(out_dir.path().join("out.csv"), "the old output\n").unwrap();
    fs::write(out_dir.path().join("audit.csv"), "the old audit\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .current_dir(out_dir.path())
        .env("TMPDIR", private_tmp.path())
        .args(args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kept open until the run has been signalled and has ended.
    let mut stdin = child.stdin.take();
    if let (Some(input), Some(stdin)) = (input, stdin.as_mut()) {
        let half = input.len() / 2;
        let cut = half + input[half..].iter().position(|&b| b == b'\n').unwrap() + 1;
        stdin.write_all(&input[..cut]).unwrap();
        stdin.flush().unwrap();
    }
    // Not a delay: a bound on a wait that otherwise ends as soon as the outputs are open.
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut ended = None;
    while ended.is_none() && leftovers(out_dir.path()).len() < outputs {
        assert!(
            Instant::now() < deadline,
            "{args:?}: its outputs were never opened"
        );
        ended = child.try_wait().unwrap();
        std::thread::sleep(Duration::from_millis(1));
    }
    let status = ended.unwrap_or_else(|| {
        // SAFETY: kill(2) on the child's pid, which has not been waited for yet.
        unsafe { libc::kill(child.id() as i32, signal) };
        child.wait().unwrap()
    });
    drop(stdin);
    (out_dir, private_tmp, status)
}

/// Interrupts `args` (which read `-`, standard input, a generated file of 10,000 cases, or
/// read nothing) with each signal once it has its `outputs` temporary files open, and checks
/// what is left in the output directory and in `TMPDIR`.
fn interrupt_large_run(args: &[&str], outputs: usize) {
    use std::os::unix::process::ExitStatusExt;

    let input = args.contains(&"-").then(|| {
        let dir = workspace();
        let made = leasejudge_in(
            dir.path(),
            &[
                "generate", "--cases", "10000", "--seed", "7", "-o", "big.csv",
            ],
        );
        assert!(made.status.success());
        fs::read(dir.path().join("big.csv")).unwrap()
    });
    let old = BTreeMap::from([
        ("audit.csv".to_owned(), b"the old audit\n".to_vec()),
        ("out.csv".to_owned(), b"the old output\n".to_vec()),
    ]);
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // A run with no input (generate) could still finish between the check and the
        // signal: it must then have written every output whole, and is tried again.
        let mut finished = 0;
        loop {
            let (out_dir, private_tmp, status) =
                interrupt_in_fresh_dir(args, input.as_deref(), outputs, signal);
            let what = format!("{args:?} signal {signal}: {status:?}");
            assert_eq!(leftovers(out_dir.path()), Vec::<String>::new(), "{what}");
            let tmp: Vec<_> = fs::read_dir(private_tmp.path()).unwrap().collect();
            assert!(tmp.is_empty(), "{what}: left in TMPDIR: {tmp:?}");
            if status.success() {
                assert!(input.is_none(), "{what}: finished without its whole input");
                let written = files_by_name(out_dir.path());
                assert!(
                    written.values().all(|bytes| bytes.ends_with(b"\n")),
                    "{what}"
                );
                assert_ne!(written, old, "{what}");
                finished += 1;
                assert!(finished < 10, "{what}: finished {finished} times");
                continue;
            }
            assert!(
                status.code() == Some(128 + signal) || status.signal() == Some(signal),
                "{what}"
            );
            assert_eq!(files_by_name(out_dir.path()), old, "{what}");
            break;
        }
    }
}

#[test]
fn absurd_options_are_usage_errors() {
    let dir = workspace();
    let runs: &[&[&str]] = &[
        &["adjudicate", "in.csv", "--jobs", "0"],
        &["adjudicate", "in.csv", "--jobs", "5000"],
        &["adjudicate", "in.csv", "--jobs", "18446744073709551616"],
        &["adjudicate", "in.csv", "--open-cases", "0"],
        &[
            "adjudicate",
            "in.csv",
            "--open-cases",
            "18446744073709551615",
        ],
        &["reorder", "in.csv", "--permutations", "0"],
        &[
            "reorder",
            "in.csv",
            "--permutations",
            "18446744073709551615",
        ],
        &[
            "generate",
            "--rows-per-case",
            "1..18446744073709551615",
            "--cases",
            "2",
        ],
        &[
            "generate",
            "--rows-per-case",
            "1..1000000000",
            "--cases",
            "2",
        ],
        &[
            "generate",
            "--rows-per-case",
            "100000",
            "--interleave",
            "1000",
        ],
        &["generate", "--interleave", "18446744073709551615"],
    ];
    for args in runs {
        let run = leasejudge_in(dir.path(), args);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(run.stdout.is_empty(), "{args:?} wrote output");
    }
    // The limits themselves are accepted.
    for args in [
        &[
            "adjudicate",
            "in.csv",
            "--jobs",
            "256",
            "--open-cases",
            "1000000",
        ][..],
        &["generate", "--rows-per-case", "1..125000", "--cases", "1"],
    ] {
        let run = leasejudge_in(dir.path(), args);
        assert_eq!(run.status.code(), Some(0), "{args:?}");
    }
}

#[test]
fn endless_records_are_located_input_errors() {
    let dir = workspace();
    let header = CASES.lines().next().unwrap();
    let long = "a".repeat(3 << 20);
    fs::write(dir.path().join("long.csv"), format!("{header}\n{long}\n")).unwrap();
    fs::write(dir.path().join("quoted.csv"), format!("{header}\n\"{long}")).unwrap();
    // A matrix's header (a case file's is refused as a matrix before its rows are read).
    fs::write(
        dir.path().join("long-matrix.csv"),
        format!("case_id,decision,reason\n{long}\n"),
    )
    .unwrap();
    fs::write(
        dir.path().join("long.ndjson"),
        format!("{{\"case_id\":\"{long}\"}}\n"),
    )
    .unwrap();
    // One element too long, after a row: read as far as it, its own line named.
    fs::write(
        dir.path().join("long.json"),
        format!("[{{\"case_id\": \"c1\"}},\n  {{\"case_id\":\"{long}\"}}]\n"),
    )
    .unwrap();
    fs::write(
        dir.path().join("long-case.json"),
        format!(
            "{{\"cases\": [\n {{\"case_id\": \"c1\", \"messages\": [{{\"note\": \"{long}\"}}]}}]}}"
        ),
    )
    .unwrap();
    let runs: &[(&[&str], &str)] = &[
        (
            &["adjudicate", "long.csv"],
            "long.csv:2: cannot read: a record longer than",
        ),
        (
            &["adjudicate", "long.csv", "-f", "table"],
            "long.csv:2: cannot read: a record longer than",
        ),
        (
            &["adjudicate", "quoted.csv"],
            "quoted.csv:2: cannot read: a record longer than",
        ),
        (
            &["validate", "quoted.csv"],
            "quoted.csv:2: cannot read: a record longer than",
        ),
        (
            &["adjudicate", "long.ndjson"],
            "long.ndjson:1: unreadable: a record longer than",
        ),
        (
            &["adjudicate", "--input-format", "csv", "/dev/zero"],
            "/dev/zero:1: cannot read: a record longer than",
        ),
        (
            &["adjudicate", "--input-format", "ndjson", "/dev/zero"],
            "/dev/zero:1: unreadable: a record longer than",
        ),
        (
            &["adjudicate", "--input-format", "json", "/dev/zero"],
            "/dev/zero:1: invalid JSON: expected value at line 1 column 1",
        ),
        (
            &["adjudicate", "long.json"],
            "long.json:2: cannot read: a record longer than",
        ),
        (
            &["validate", "long.json"],
            "long.json:2: cannot read: a record longer than",
        ),
        (
            &["adjudicate", "long-case.json"],
            "long-case.json:2: cannot read: a record longer than",
        ),
        (
            &["grade", "long-matrix.csv", "--golden", "golden.csv"],
            "long-matrix.csv:2: cannot read: a record longer than",
        ),
        // A device is no submission: it is refused before a byte is read (issue 22).
        (
            &["grade", "/dev/zero", "--golden", "golden.csv"],
            "/dev/zero: cannot be graded: the submission is not a regular file (it is a device)",
        ),
        (
            &["grade", "submission.csv", "--golden", "/dev/zero"],
            // Standard error says what is wrong, the key unnamed (issue 29).
            "the golden file given with --golden is malformed: 1 problem; rerun with --reveal",
        ),
        (
            &[
                "grade",
                "submission.csv",
                "--golden",
                "/dev/zero",
                "--reveal",
            ],
            // Told by its first bytes, before a record is read (issue 29).
            "/dev/zero: not a matrix: it is binary data",
        ),
    ];
    for (args, expected) in runs {
        let run = leasejudge_in(dir.path(), args);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

#[test]
fn json_numbers_are_kept_as_written() {
    let dir = workspace();
    let rows = [
        r#"{"case_id":"c1","event":"offer","observed_at":"2026-01-01T10:00:00Z","job_id":"j","lease_id":"L","generation":1,"holder":"w","lease_duration":30}"#,
        r#"{"case_id":"c1","event":"ack","observed_at":"2026-01-01T10:00:01Z","lease_id":"L","generation":1,"holder":"w"}"#,
        r#"{"case_id":"c1","event":"progress","observed_at":"2026-01-01T10:00:02Z","lease_id":"L","generation":1,"holder":"w","progress_seq":1,"progress_value":VALUE}"#,
    ];
    for value in [
        "1E5",
        "1.50",
        "-0",
        "2.5E-3",
        "100000000000000000000000000001",
    ] {
        let lines: Vec<String> = rows.iter().map(|r| r.replace("VALUE", value)).collect();
        fs::write(dir.path().join("p.ndjson"), lines.join("\n")).unwrap();
        fs::write(
            dir.path().join("p.json"),
            format!("[{}]", lines.join(",\n")),
        )
        .unwrap();
        for file in ["p.ndjson", "p.json"] {
            let run = leasejudge_in(dir.path(), &["adjudicate", file, "-f", "csv"]);
            assert!(run.status.success(), "{file} {value}");
            let matrix = String::from_utf8(run.stdout).unwrap();
            let row = matrix.lines().nth(1).unwrap();
            let cells: Vec<&str> = row.split(',').collect();
            assert_eq!(cells[13], value, "{file}: {row}");
        }
    }
}

/// Bytes no terminal or line-oriented output may carry raw: ESC, BEL, CR, DEL, a C1 control
/// (U+009B, CSI), and the right-to-left override.
fn raw_controls(text: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(text);
    text.chars()
        .filter(|&c| {
            matches!(
                c,
                '\u{1b}' | '\u{7}' | '\r' | '\u{7f}' | '\u{9b}' | '\u{202e}'
            )
        })
        .map(|c| format!("{c:?}"))
        .collect()
}

#[test]
fn text_from_input_reaches_terminals_escaped() {
    let dir = workspace();
    let evil = "c\u{1b}[31mX\u{7}\u{7f}\u{9b}2J\u{202e}";
    let mut cases = String::new();
    for (index, line) in CASES.lines().enumerate() {
        if index == 1 || index == 2 {
            cases.push_str(&line.replacen("ack-before-deadline", evil, 1));
        } else {
            cases.push_str(line);
        }
        cases.push('\n');
    }
    assert!(cases.contains(evil));
    fs::write(dir.path().join("evil.csv"), &cases).unwrap();
    let matrix = leasejudge_in(dir.path(), &["adjudicate", "evil.csv", "-f", "csv"]);
    assert!(matrix.status.success());
    // A golden file that disagrees on the evil case, so every report names it.
    let golden = String::from_utf8(matrix.stdout.clone()).unwrap().replacen(
        ",ACTIVE,within_lease",
        ",EXPIRED,within_lease",
        1,
    );
    fs::write(dir.path().join("evil-golden.csv"), golden).unwrap();
    let line_formats: &[&[&str]] = &[
        &["adjudicate", "evil.csv", "-f", "table"],
        &["adjudicate", "evil.csv", "-f", "table", "--explain"],
        &["explain", "evil.csv"],
        &["explain", "evil.csv", "-f", "mermaid"],
        &[
            "check",
            "evil.csv",
            "--golden",
            "evil-golden.csv",
            "-f",
            "table",
        ],
        &[
            "check",
            "evil.csv",
            "--golden",
            "evil-golden.csv",
            "-f",
            "github",
        ],
        &[
            "check",
            "evil.csv",
            "--golden",
            "evil-golden.csv",
            "-f",
            "markdown",
        ],
        &[
            "grade",
            "evil-golden.csv",
            "--golden",
            "golden.csv",
            "-f",
            "table",
        ],
        &[
            "grade",
            "evil-golden.csv",
            "--golden",
            "golden.csv",
            "-f",
            "github",
        ],
    ];
    for args in line_formats {
        let run = leasejudge_in(dir.path(), args);
        assert!(run.status.code().unwrap() < 2, "{args:?}: {run:?}");
        assert_eq!(
            raw_controls(&run.stdout),
            Vec::<String>::new(),
            "{args:?} stdout"
        );
        assert_eq!(
            raw_controls(&run.stderr),
            Vec::<String>::new(),
            "{args:?} stderr"
        );
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            stdout.contains("\\u{1b}") || stdout.contains("#27;"),
            "{args:?}: the case is not shown escaped\n{stdout}"
        );
    }
    // Formats with their own escaping keep the text exactly.
    let json = leasejudge_in(dir.path(), &["adjudicate", "evil.csv", "-f", "json"]);
    let parsed: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(parsed[0]["case_id"], evil);
    let mut csv = csv::Reader::from_reader(&matrix.stdout[..]);
    assert_eq!(&csv.records().next().unwrap().unwrap()[0], evil);
    let junit = leasejudge_in(
        dir.path(),
        &[
            "check",
            "evil.csv",
            "--golden",
            "evil-golden.csv",
            "-f",
            "junit",
        ],
    );
    roxmltree::Document::parse(std::str::from_utf8(&junit.stdout).unwrap()).unwrap();
    // HTML escapes controls as character references; a bidi override is ordinary text there.
    let html = leasejudge_in(dir.path(), &["explain", "evil.csv", "-f", "html"]);
    let html = String::from_utf8(html.stdout).unwrap();
    assert!(!html.chars().any(|c| c.is_control() && c != '\n'), "{html}");
}

#[test]
fn error_messages_escape_what_they_quote() {
    let dir = workspace();
    let header = CASES.lines().next().unwrap();
    // An unknown column named with an escape sequence, a bad value holding one, a file name
    // holding one.
    let bad = format!(
        "{header},x\u{1b}[2J\nc1,offer\u{1b}[31m,2026-01-01T10:00:00Z{}\n",
        ",".repeat(header.matches(',').count() - 2)
    );
    fs::write(dir.path().join("bad\u{1b}[1m.csv"), bad).unwrap();
    for args in [
        &["adjudicate", "bad\u{1b}[1m.csv"][..],
        &["validate", "bad\u{1b}[1m.csv"],
        &["adjudicate", "."],
        &["adjudicate", "no-such\u{1b}[1m.csv"],
    ] {
        let run = leasejudge_in(dir.path(), args);
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        assert_eq!(
            raw_controls(&run.stderr),
            Vec::<String>::new(),
            "{args:?}: {run:?}"
        );
        assert!(
            String::from_utf8_lossy(&run.stderr).contains("\\u{1b}"),
            "{args:?}: {run:?}"
        );
    }
}

#[test]
fn every_error_of_a_row_is_listed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (file, expected) in [
        (
            "tests/data/errors/every-error-of-a-row.csv",
            "tests/data/errors/every-error-of-a-row.expected",
        ),
        (
            "tests/data/errors/every-error-of-a-row.ndjson",
            "tests/data/errors/every-error-of-a-row.ndjson.expected",
        ),
    ] {
        let expected = fs::read_to_string(root.join(expected)).unwrap();
        let count = expected.lines().count();
        // The streaming engine (CSV, JSON), the engine that keeps every case (table), explain.
        for args in [
            &["adjudicate", file, "-f", "csv"][..],
            &["adjudicate", file, "-f", "json"],
            &["adjudicate", file, "-f", "table"],
            &["explain", file],
        ] {
            let run = leasejudge_in(root, args);
            assert_eq!(run.status.code(), Some(2), "{args:?}");
            let stderr = String::from_utf8(run.stderr).unwrap();
            assert_eq!(
                stderr,
                format!("leasejudge: {expected}{count} input errors; nothing was written\n"),
                "{args:?}"
            );
        }
        let run = leasejudge_in(root, &["validate", file]);
        assert_eq!(run.status.code(), Some(2));
        assert!(String::from_utf8(run.stderr)
            .unwrap()
            .starts_with(&expected));
    }
}

/// A learner names the submission file and fills its cells: neither may drive the terminal
/// or split a row of `grade`'s tables into a fake one, in any format.
#[test]
fn grade_escapes_file_names_and_cells() {
    let dir = workspace();
    let key = include_str!("../../examples/lab/key.csv");
    let name = "evil\u{1b}[31m\nname\u{202e}.csv";
    let mut submission = key.to_owned();
    submission.push_str("\"probe-2\nX\",,,,,,,,,,,,,,,,,,,,,,\n");
    fs::write(dir.path().join(name), submission).unwrap();
    fs::write(dir.path().join("key.csv"), key).unwrap();
    for format in ["table", "markdown", "github", "json", "junit"] {
        let run = leasejudge_in(
            dir.path(),
            &["grade", name, "--golden", "key.csv", "-f", format],
        );
        assert!(run.status.code().unwrap() < 2, "{format}: {run:?}");
        let mut raw = raw_controls(&run.stdout);
        if matches!(format, "json" | "junit") {
            // These escape by their own rules: ESC and line breaks; a bidi override is
            // ordinary text there.
            raw.retain(|c| c != "'\\u{202e}'");
        }
        assert_eq!(raw, Vec::<String>::new(), "{format}");
        let stdout = String::from_utf8(run.stdout).unwrap();
        match format {
            "json" => {
                let text = serde_json::to_string(
                    &serde_json::from_str::<serde_json::Value>(&stdout).unwrap(),
                )
                .unwrap();
                assert!(text.contains("evil\\u001b[31m\\nname"), "{stdout}");
            }
            "junit" => {
                roxmltree::Document::parse(&stdout).unwrap();
            }
            _ => {
                for line in stdout.lines() {
                    let start = line.trim_start_matches(['│', '|', ' ']);
                    assert!(
                        !start.starts_with("name") && !start.starts_with('X'),
                        "{format}: a row split by an input line break:\n{stdout}"
                    );
                }
            }
        }
    }
}

/// A directory entry that looks like an input but cannot be read (here a broken symlink) is
/// reported, not skipped: a gradebook without it would look complete.
#[test]
fn unreadable_directory_entries_are_reported() {
    let dir = workspace();
    fs::create_dir(dir.path().join("subs")).unwrap();
    fs::write(dir.path().join("subs/a.csv"), GOLDEN).unwrap();
    std::os::unix::fs::symlink("/nonexistent", dir.path().join("subs/broken.csv")).unwrap();
    let run = leasejudge_in(
        dir.path(),
        &[
            "grade",
            "--golden",
            "golden.csv",
            "subs",
            "--gradebook",
            "gb.csv",
        ],
    );
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    let gradebook = fs::read_to_string(dir.path().join("gb.csv")).unwrap();
    assert!(
        gradebook.contains("subs/broken.csv,,") && gradebook.contains(",ungradable"),
        "{gradebook}"
    );
    fs::create_dir(dir.path().join("cases")).unwrap();
    fs::write(dir.path().join("cases/a.csv"), CASES).unwrap();
    std::os::unix::fs::symlink("/nonexistent", dir.path().join("cases/broken.csv")).unwrap();
    for command in ["validate", "adjudicate", "explain", "template"] {
        let run = leasejudge_in(dir.path(), &[command, "cases"]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert_eq!(run.status.code(), Some(2), "{command}: {run:?}");
        assert!(
            format!("{stdout}{stderr}").contains("cases/broken.csv: cannot read"),
            "{command}: {stdout}{stderr}"
        );
    }
}

/// `--columns` and `--wide` shape the table; with CSV or JSON they would be ignored (a typo
/// in a column name unnoticed), so they are a usage error there, and imply the table otherwise.
#[test]
fn table_options_are_not_ignored() {
    let dir = workspace();
    for format in ["csv", "json"] {
        for option in [
            &["--columns", "nope,decision"][..],
            &["--columns", "decision"],
            &["--wide"],
        ] {
            let mut args = vec!["adjudicate", "in.csv", "-f", format];
            args.extend(option);
            let run = leasejudge_in(dir.path(), &args);
            let stderr = String::from_utf8_lossy(&run.stderr);
            assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(
                stderr.contains("--columns and --wide"),
                "{args:?}: {stderr}"
            );
            assert!(run.stdout.is_empty(), "{args:?}");
        }
    }
    // Without -f (standard output is not a terminal here) --columns means the table.
    let run = leasejudge_in(
        dir.path(),
        &["adjudicate", "in.csv", "--columns", "case_id,decision"],
    );
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let stdout = String::from_utf8(run.stdout).unwrap();
    let header: Vec<&str> = stdout.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["case_id", "┆", "decision"], "{stdout}");
    let run = leasejudge_in(dir.path(), &["adjudicate", "in.csv", "--columns", "nope"]);
    assert_eq!(run.status.code(), Some(2), "{run:?}");
}

/// A regular file too large to read whole (a workbook) is refused by its size, before it is
/// read. CSV and JSON files are not read whole (their records stream), so they are read
/// however large they are: these 300 MiB ones break at their first long record or their
/// second byte, and that is what is reported, at once.
#[test]
fn files_too_large_to_read_whole_are_refused_by_size() {
    let dir = workspace();
    let big = |name: &str, head: &str| {
        let path = dir.path().join(name);
        fs::write(&path, head).unwrap();
        // Sparse: no disk space, no time.
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(300 << 20)
            .unwrap();
    };
    big("big.csv", "case_id,decision,reason\n");
    big("big.json", "[");
    big("big.xlsx", "PK");
    let runs: &[(&[&str], &str)] = &[
        (
            &["grade", "big.xlsx", "--golden", "golden.csv"],
            "big.xlsx: cannot read: larger than 268435456 bytes (256 MiB)",
        ),
        (
            &[
                "grade",
                "submission.csv",
                "--golden",
                "big.xlsx",
                "--reveal",
            ],
            "big.xlsx: cannot read: larger than 268435456 bytes (256 MiB)",
        ),
        (
            &["grade", "big.csv", "--golden", "golden.csv"],
            "big.csv:2: cannot read: a record longer than 1048576 bytes",
        ),
        (
            &["grade", "submission.csv", "--golden", "big.csv", "--reveal"],
            "big.csv:2: cannot read: a record longer than 1048576 bytes",
        ),
        (
            &["adjudicate", "big.json"],
            "big.json:1: invalid JSON: expected value at line 1 column 2",
        ),
        (
            &["validate", "big.json"],
            "big.json:1: invalid JSON: expected value at line 1 column 2",
        ),
        (
            &["explain", "big.json"],
            "big.json:1: invalid JSON: expected value at line 1 column 2",
        ),
        (
            &["template", "big.json"],
            "big.json:1: invalid JSON: expected value at line 1 column 2",
        ),
    ];
    for (args, expected) in runs {
        let run = leasejudge_in(dir.path(), args);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("use NDJSON or CSV"), "{args:?}: {stderr}");
    }
}
