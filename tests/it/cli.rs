//! The `adjudicate` command end to end: formats, inputs, options, exit codes, located errors,
//! and that a failed run writes nothing.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{self, root, Run};

fn leasejudge_with_stdin(args: &[&str], stdin: &str) -> Run {
    common::leasejudge(args).stdin(stdin).run()
}

fn leasejudge(args: &[&str]) -> Run {
    common::leasejudge(args).run()
}

/// The names of the entries of `dir` (to see that no temporary file was left behind).
fn names_in(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

const HEADER: &str = "case_id,job_id,lease_id,generation,holder_identity,issued_at,\
lease_duration,expires_at,ack_deadline,ack_state,renew_sequence,renew_time,progress_sequence,\
progress_value,cancel_requested,cancel_ack,terminal_result,stale_generation,late_progress,\
lease_expired,ownership_conflict,decision,reason";

#[test]
fn every_kind_of_bad_input_is_listed_with_its_location() {
    let run = leasejudge(&["adjudicate", "tests/data/errors/every-error.csv"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    let expected =
        fs::read_to_string(root().join("tests/data/errors/every-error.expected")).unwrap();
    let mut want = String::from("leasejudge: ");
    want.push_str(&expected);
    want.push_str("13 input errors; nothing was written\n");
    assert_eq!(run.stderr, want);
}

#[test]
fn two_columns_for_one_field_and_a_case_id_in_two_files_are_errors() {
    let run = leasejudge(&[
        "adjudicate",
        "tests/data/errors/two-columns.csv",
        "tests/data/errors/clash-a.csv",
        "tests/data/errors/clash-b.csv",
    ]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "leasejudge: tests/data/errors/two-columns.csv:1: header: columns \"holder\" and \
         \"Holder Identity\" both name the field holder\n\
         tests/data/errors/two-columns.csv:1: header: columns \"event\" and \"Kind\" both name \
         the field event\n\
         tests/data/errors/clash-b.csv:3: case_id: case id also appears in \
         tests/data/errors/clash-a.csv:2; case ids must be unique across files (\"shared\")\n\
         3 input errors; nothing was written\n"
    );
}

#[test]
fn unreadable_files_bad_utf8_and_wrong_json_shapes_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let bad_utf8 = dir.path().join("bad.csv");
    fs::write(
        &bad_utf8,
        b"case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n\
          c,offer,2026-01-01T10:00:00Z,j,L,1,w,30\n\
          c\xff,observe,2026-01-01T10:00:00Z,,,,,\n",
    )
    .unwrap();
    let shape = dir.path().join("shape.json");
    fs::write(&shape, "\n  \"just a string\"\n").unwrap();
    let missing = dir.path().join("missing.csv");
    let run = leasejudge(&[
        "adjudicate",
        bad_utf8.to_str().unwrap(),
        shape.to_str().unwrap(),
        missing.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2);
    let lines: Vec<&str> = run.stderr.lines().collect();
    let name = |p: &Path| p.to_str().unwrap().to_owned();
    assert!(
        lines[0].starts_with(&format!(
            "leasejudge: {}:3: case_id: not valid UTF-8",
            name(&bad_utf8)
        )),
        "{}",
        run.stderr
    );
    assert!(lines.iter().any(|l| l.starts_with(&format!(
        "{}:2: a JSON case file is an array of row objects",
        name(&shape)
    ))));
    assert!(lines
        .iter()
        .any(|l| l.starts_with(&format!("{}: cannot read:", name(&missing)))));
    assert_eq!(
        *lines.last().unwrap(),
        "3 input errors; nothing was written"
    );
}

#[test]
fn a_failed_run_leaves_an_existing_output_untouched_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("matrix.csv");
    let audit = dir.path().join("audit.csv");
    fs::write(&out, "precious\n").unwrap();
    fs::write(&audit, "precious audit\n").unwrap();
    let run = leasejudge(&[
        "adjudicate",
        "cases/probes.csv",
        "tests/data/errors/every-error.csv",
        "-o",
        out.to_str().unwrap(),
        "--audit",
        audit.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2);
    assert_eq!(fs::read_to_string(&out).unwrap(), "precious\n");
    assert_eq!(fs::read_to_string(&audit).unwrap(), "precious audit\n");
    let names = names_in(dir.path());
    assert_eq!(names.len(), 2, "no temporary file left behind: {names:?}");
}

#[test]
fn output_file_is_written_and_its_extension_picks_json() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("m.csv");
    let json = dir.path().join("m.json");
    let run = leasejudge(&[
        "adjudicate",
        "cases/probes.csv",
        "-o",
        csv.to_str().unwrap(),
    ]);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""));
    assert_eq!(
        fs::read_to_string(&csv).unwrap(),
        fs::read_to_string(root().join("golden/probes.csv")).unwrap()
    );
    let run = leasejudge(&[
        "adjudicate",
        "cases/probes.csv",
        "-o",
        json.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0);
    assert_eq!(
        fs::read_to_string(&json).unwrap(),
        fs::read_to_string(root().join("tests/data/probes.matrix.json")).unwrap()
    );
}

#[test]
fn stdout_defaults_to_csv_when_not_a_terminal_and_the_table_is_on_request() {
    let run = leasejudge(&["adjudicate", "cases/probes.csv"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.starts_with(HEADER));
    let run = common::leasejudge(&["adjudicate", "cases/probes.csv", "--format", "table"])
        .env_remove(&["COLUMNS"])
        .run();
    assert_eq!(run.code, 0);
    let lines: Vec<&str> = run.stdout.lines().collect();
    // A header, its rule, four cases (the default columns, 80 characters wide on a pipe:
    // probe-4's two findings take a line each).
    assert_eq!(lines.len(), 7, "{}", run.stdout);
    assert!(lines.iter().all(|line| line.chars().count() <= 80));
    assert!(lines[0].contains("case_id") && lines[0].contains("reason"));
    assert!(lines[2].contains("probe-1") && lines[2].contains("stale_generation"));
    assert!(lines[5].contains("RECONCILIATION_REQUIRED") && lines[5].contains("late_progress=2"));
    assert!(lines[6].trim_end().ends_with("lease_expired"));
}

#[test]
fn standard_input_needs_its_format_and_ndjson_is_read_from_it() {
    let ndjson = fs::read_to_string(root().join("cases/stream.ndjson")).unwrap();
    let run = leasejudge_with_stdin(
        &[
            "adjudicate",
            "-",
            "--input-format",
            "ndjson",
            "--format",
            "csv",
        ],
        &ndjson,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        fs::read_to_string(root().join("golden/stream.csv")).unwrap()
    );
    let csv = fs::read_to_string(root().join("cases/probes.csv")).unwrap();
    let run = leasejudge_with_stdin(&["adjudicate", "-"], &csv);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        fs::read_to_string(root().join("golden/probes.csv")).unwrap()
    );
}

#[test]
fn audit_streams_to_stdout_while_the_matrix_goes_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.csv");
    let run = leasejudge(&[
        "adjudicate",
        "cases/probes.csv",
        "--audit",
        "-",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        fs::read_to_string(root().join("golden/audit/probes.csv")).unwrap()
    );
    let run = leasejudge(&["adjudicate", "cases/probes.csv", "--audit", "-"]);
    assert_eq!(
        run.code, 2,
        "the audit and the matrix cannot both take stdout"
    );
    assert!(run.stderr.contains("give the matrix a file with -o"));
}

#[test]
fn as_of_judges_every_case_later_but_never_earlier() {
    let run = leasejudge(&[
        "adjudicate",
        "cases/probes.csv",
        "--as-of",
        "2026-01-01T12:00:00Z",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let decisions: Vec<String> = run
        .stdout
        .lines()
        .skip(1)
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            format!("{} {} {}", cells[19], cells[21], cells[22])
        })
        .collect();
    assert_eq!(
        decisions,
        [
            "true EXPIRED expired_without_result",
            "true EXPIRED expired_without_result",
            "true EXPIRED expired_without_result",
            "true RECONCILIATION_REQUIRED cancel_unacknowledged",
        ]
    );
    let run = leasejudge(&[
        "adjudicate",
        "cases/probes.csv",
        "--as-of",
        "2000-01-01T00:00:00Z",
    ]);
    assert_eq!(
        run.stdout,
        fs::read_to_string(root().join("golden/probes.csv")).unwrap()
    );
    let run = leasejudge(&[
        "adjudicate",
        "cases/probes.csv",
        "--as-of",
        "2026-01-01 12:00",
    ]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--as-of"), "{}", run.stderr);
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(leasejudge(&["adjudicate"]).code, 2);
    assert_eq!(
        leasejudge(&["adjudicate", "cases/probes.csv", "--format", "xml"]).code,
        2
    );
    assert_eq!(leasejudge(&["no-such-command"]).code, 2);
    let run = leasejudge(&["adjudicate", "-", "-"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("only once"));
}

#[test]
fn the_same_input_gives_the_same_bytes() {
    let first = leasejudge(&["adjudicate", "cases", "--format", "json"]);
    let second = leasejudge(&["adjudicate", "cases", "--format", "json"]);
    assert_eq!(first.code, 0);
    assert_eq!(first.stdout, second.stdout);
    let parsed: serde_json::Value = serde_json::from_str(&first.stdout).unwrap();
    assert!(parsed.as_array().unwrap().len() >= 44);
}

#[test]
fn an_output_in_a_missing_directory_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("no-such-dir/out.csv");
    let run = leasejudge(&[
        "adjudicate",
        "cases/probes.csv",
        "-o",
        target.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!(
            "leasejudge: cannot write {}: there is no directory {}\n",
            target.display(),
            dir.path().join("no-such-dir").display()
        )
    );
    let run = leasejudge(&[
        "adjudicate",
        "cases/probes.csv",
        "-o",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("it is a directory"), "{}", run.stderr);
}

#[cfg(unix)]
#[test]
fn an_output_that_is_a_symlink_or_a_fifo_stays_one() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let golden = fs::read_to_string(root().join("golden/probes.csv")).unwrap();

    // A symlink: the file it names gets the matrix, and the link stays a link.
    let real = dir.path().join("real.csv");
    let link = dir.path().join("link.csv");
    fs::write(&real, "old\n").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let run = leasejudge(&[
        "adjudicate",
        "cases/probes.csv",
        "-o",
        link.to_str().unwrap(),
    ]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(fs::read_to_string(&real).unwrap(), golden);

    // A FIFO (as `/dev/null` is a device): written through, never renamed over.
    let fifo = dir.path().join("matrix.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
    };
    let run = leasejudge(&[
        "adjudicate",
        "cases/probes.csv",
        "-o",
        fifo.to_str().unwrap(),
    ]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    let kind = fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced: {kind:?}");
    assert_eq!(reader.join().unwrap(), golden);
    let names = names_in(dir.path());
    assert_eq!(names.len(), 3, "no temporary file left behind: {names:?}");
}

/// `--color always` wins over NO_COLOR (which only tempers `auto`), in every coloured table;
/// comfy-table's styling library reads NO_COLOR on its own, so this is checked end to end.
#[test]
fn color_always_wins_over_no_color() {
    let runs: &[&[&str]] = &[
        &["adjudicate", "cases/probes.csv", "-f", "table"],
        &[
            "grade",
            "examples/lab/submissions/ada.csv",
            "--golden",
            "examples/lab/key.csv",
            "--verbose",
        ],
    ];
    for args in runs {
        for (color, coloured) in [("always", true), ("auto", false), ("never", false)] {
            let run = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
                .args(*args)
                .args(["--color", color])
                .current_dir(root())
                .env("NO_COLOR", "1")
                .env_remove("CLICOLOR_FORCE")
                .output()
                .unwrap();
            let stdout = String::from_utf8(run.stdout).unwrap();
            assert_eq!(
                stdout.contains("\u{1b}[38;5;"),
                coloured,
                "{args:?} --color {color}:\n{stdout}"
            );
        }
    }
}

/// Spec section 2: a case id in two input files is an input error, for `check` as for every
/// command that reads case files, naming both places.
#[test]
fn check_refuses_a_case_id_in_two_case_files() {
    let dir = tempfile::tempdir().unwrap();
    let (cases, golden) = (dir.path().join("cases"), dir.path().join("golden"));
    fs::create_dir(&cases).unwrap();
    fs::create_dir(&golden).unwrap();
    for name in ["a.csv", "b.csv"] {
        fs::copy(root().join("cases/probes.csv"), cases.join(name)).unwrap();
        fs::copy(root().join("golden/probes.csv"), golden.join(name)).unwrap();
    }
    let run = leasejudge(&[
        "check",
        cases.to_str().unwrap(),
        "--golden",
        golden.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    let b = cases.join("b.csv");
    let a = cases.join("a.csv");
    let expected = format!(
        "{}:2: case_id: case id also appears in {}:2; case ids must be unique across files \
         (\"probe-1\")",
        b.display(),
        a.display()
    );
    assert!(run.stderr.contains(&expected), "{}", run.stderr);
    assert_eq!(run.stderr.matches("case ids must be unique").count(), 4);
    // One case file alone is fine.
    fs::remove_file(cases.join("b.csv")).unwrap();
    fs::remove_file(golden.join("b.csv")).unwrap();
    let run = leasejudge(&[
        "check",
        cases.to_str().unwrap(),
        "--golden",
        golden.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

/// Where there is no temporary directory (an empty root: a chroot or a container holding only
/// the binary), the scratch files a run needs are kept in memory: standard input is read,
/// and `check` spools its matrix, as anywhere else.
#[test]
fn a_run_needs_no_temporary_directory() {
    let csv = fs::read_to_string(root().join("cases/probes.csv")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .args(["adjudicate", "-", "--format", "csv"])
        .current_dir(root())
        .env("TMPDIR", "/nonexistent/leasejudge-tmp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(csv.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        fs::read_to_string(root().join("golden/probes.csv")).unwrap()
    );
    let check = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .args(["check", "cases/probes.csv", "--golden", "golden/probes.csv"])
        .current_dir(root())
        .env("TMPDIR", "/nonexistent/leasejudge-tmp")
        .output()
        .unwrap();
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}
