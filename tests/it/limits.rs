//! Every limit on input holds in every role a file can have (issue 24): a case file
//! (`adjudicate`, `validate`, `explain`, `check`), a submission (`grade`), a key (`grade
//! --golden`, shown located only with `--reveal`) and a golden file of `check`. Each run ends
//! with exit 2 and the limit's located error. (Workbook limits, in every role:
//! tests/it/workbook_bombs.rs.)

use crate::common::{leasejudge_in, said};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const CASE_HEADER: &str =
    "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration";
const CASE_ROW: &str = "c1,offer,2026-01-01T00:00:00Z,j,L,1,w,30";
const JSON_CASE_ROW: &str = r#"{"case_id": "c1", "event": "offer", "observed_at": "2026-01-01T00:00:00Z", "job_id": "j", "lease_id": "L", "generation": 1, "holder": "w", "lease_duration": 30}"#;
const MATRIX_ROW: &str =
    r#"{"case_id": "c1", "decision": "PENDING_ACK", "reason": "awaiting_ack"}"#;

/// A workspace with a good case file, its matrix (`key.csv`, also a submission) and, for
/// each limit, a case file and a matrix that pass it.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path();
    std::fs::write(
        path.join("cases.csv"),
        format!("{CASE_HEADER}\n{CASE_ROW}\n"),
    )
    .unwrap();
    let made = leasejudge_in(
        path,
        &["adjudicate", "cases.csv", "-f", "csv", "-o", "key.csv"],
    );
    assert!(made.status.success(), "{}", said(&made));
    // A record of 1.5 MiB: past the limit, and within the buffer the JSON scanner grows to
    // (which let such a record through).
    let long = "x".repeat(3 << 19);
    let write = |name: &str, body: String| std::fs::write(path.join(name), body).unwrap();
    write(
        "record.csv",
        format!(
            "{CASE_HEADER},note\n{CASE_ROW},\nc2,offer,2026-01-01T00:00:00Z,j,L,1,w,30,{long}\n"
        ),
    );
    write(
        "record-matrix.csv",
        format!("case_id,decision,reason\nc1,PENDING_ACK,awaiting_ack\nc2,ACTIVE,{long}\n"),
    );
    write(
        "record.json",
        format!("[{JSON_CASE_ROW},\n{{\"case_id\": \"c2\", \"note\": \"{long}\"}}]\n"),
    );
    write(
        "record-matrix.json",
        format!("[{MATRIX_ROW},\n{{\"case_id\": \"c2\", \"decision\": \"{long}\"}}]\n"),
    );
    // A value nested half a million deep (a megabyte of brackets).
    let deep = format!("{}{}", "[".repeat(500_000), "]".repeat(500_000));
    write(
        "deep.json",
        format!("[{JSON_CASE_ROW},\n{{\"case_id\": \"c2\", \"note\": {deep}}}]\n"),
    );
    write(
        "deep-matrix.json",
        format!("[{MATRIX_ROW},\n{{\"case_id\": \"c2\", \"decision\": {deep}}}]\n"),
    );
    // Files larger than a file read whole may be (sparse: no disk, no time).
    for name in ["big.xlsx", "big.ods"] {
        let file = std::fs::File::create(path.join(name)).unwrap();
        file.set_len(300 << 20).unwrap();
    }
    dir
}

/// The runs of `file` in every role, and whether each shows the error located.
fn roles<'a>(case_file: &'a str, matrix: &'a str) -> Vec<(Vec<&'a str>, bool)> {
    vec![
        (vec!["adjudicate", case_file, "-f", "csv"], true),
        (vec!["validate", case_file], true),
        (vec!["explain", case_file, "-f", "json"], true),
        (vec!["check", case_file, "--golden", "key.csv"], true),
        (vec!["check", "cases.csv", "--golden", matrix], true),
        (vec!["grade", matrix, "--golden", "key.csv"], true),
        (
            vec!["grade", "key.csv", "--golden", matrix, "--reveal"],
            true,
        ),
        (vec!["grade", "key.csv", "--golden", matrix], false),
    ]
}

fn assert_every_role(case_file: &str, matrix: &str, case_error: &str, matrix_error: &str) {
    let dir = workspace();
    for (args, located) in roles(case_file, matrix) {
        let out = leasejudge_in(dir.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", said(&out));
        let matrix_role = args.contains(&matrix) && !args.contains(&case_file);
        let want = if matrix_role {
            matrix_error
        } else {
            case_error
        };
        if located {
            assert!(
                said(&out).contains(want),
                "{args:?} lacks {want:?}:\n{}",
                said(&out)
            );
        } else {
            // Malformed, or (a file refused by its size, before it is read) unreadable.
            assert!(
                said(&out).contains("the key is malformed; contact your instructor")
                    || said(&out).contains("the key cannot be read; contact your instructor"),
                "{args:?}: {}",
                said(&out)
            );
            assert!(
                !said(&out).contains(matrix),
                "{args:?} names the key: {}",
                said(&out)
            );
        }
    }
}

#[test]
fn a_csv_record_over_one_mebibyte() {
    let error = ":3: cannot read: a record longer than 1048576 bytes (1 MiB)";
    assert_every_role(
        "record.csv",
        "record-matrix.csv",
        &format!("record.csv{error}"),
        &format!("record-matrix.csv{error}"),
    );
}

#[test]
fn a_json_element_over_one_mebibyte() {
    let error = ":2: cannot read: a record longer than 1048576 bytes (1 MiB)";
    assert_every_role(
        "record.json",
        "record-matrix.json",
        &format!("record.json{error}"),
        &format!("record-matrix.json{error}"),
    );
}

#[test]
fn a_json_value_nested_half_a_million_deep() {
    // A case file's rows keep a value as written (never nested into): it is not a string;
    // a matrix's cases are parsed whole, at most 128 deep.
    assert_every_role(
        "deep.json",
        "deep-matrix.json",
        "deep.json:2: note: must be a string, a number or null",
        "deep-matrix.json:2: a value nested more than 128 deep, which no matrix cell is",
    );
}

#[test]
fn a_workbook_larger_than_a_file_read_whole() {
    let error = ": cannot read: larger than 268435456 bytes (256 MiB)";
    for (case_file, matrix) in [("big.xlsx", "big.xlsx"), ("big.ods", "big.ods")] {
        assert_every_role(
            case_file,
            matrix,
            &format!("{case_file}{error}"),
            &format!("{matrix}{error}"),
        );
    }
}

/// Runs `args` with a zip archive's first bytes and `bytes` zero bytes on standard input.
fn with_zeros_on_stdin(dir: &Path, args: &[&str], bytes: usize) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        // A zip archive's first bytes: a workbook to every reader, read whole (zeros alone
        // are refused by their first bytes, as not text).
        if stdin.write_all(b"PK\x03\x04").is_err() {
            return;
        }
        let chunk = vec![0u8; 1 << 20];
        let mut left = bytes;
        while left > 0 {
            let n = left.min(chunk.len());
            // The reader may stop at the limit and close the pipe.
            if stdin.write_all(&chunk[..n]).is_err() {
                return;
            }
            left -= n;
        }
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

#[test]
fn standard_input_larger_than_a_file_read_whole() {
    let dir = workspace();
    let error = "-: cannot read: larger than 268435456 bytes (256 MiB)";
    for args in [
        vec!["adjudicate", "-", "--input-format", "workbook", "-f", "csv"],
        vec!["validate", "-", "--input-format", "workbook"],
        vec!["grade", "-", "--golden", "key.csv"],
    ] {
        let out = with_zeros_on_stdin(dir.path(), &args, 300 << 20);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", said(&out));
        assert!(
            said(&out).contains(error),
            "{args:?} lacks {error:?}:\n{}",
            said(&out)
        );
    }
}
