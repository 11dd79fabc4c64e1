//! JSON arrays are read as they come, element by element: the same rows as NDJSON give the
//! same matrix and the same outcomes, whether the array is on one line (every row on line 1),
//! pretty-printed with one key per line, or read from standard input; a case that comes back
//! after more than `--open-cases` others is read again up to the row that brought it back, not
//! the line; and every run matches the straightforward reader (`judge_sources`), lines and
//! errors included.

use crate::matrix_bytes;
use crate::reference;
use matrix_bytes::matrix_bytes;
use reference::judge_sources;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use leasejudge::input::Source;
use leasejudge::matrix::CsvMatrix;
use leasejudge::streaming::{judge, Sink, StreamError, StreamSettings};

fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> Source {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    Source::file(path)
}

/// A run's matrix (or its errors), and each replayed row: case, line, outcome.
type Run = Result<(Vec<u8>, Vec<(String, u64, String)>), String>;

fn reference(source: &Source) -> Run {
    let mut audit = Vec::new();
    let judged = judge_sources(
        std::slice::from_ref(source),
        None,
        None,
        &mut |at, row, o| {
            audit.push((row.case_id.to_string(), at.line, format!("{o:?}")));
        },
    )
    .map_err(|e| e.to_string())?;
    Ok((matrix_bytes(&judged, &CsvMatrix), audit))
}

fn streamed(source: &Source, open_cases: usize, jobs: usize) -> Run {
    let settings = StreamSettings {
        open_cases,
        jobs,
        rows_observed: true,
        split_min_bytes: u64::MAX,
        ..StreamSettings::default()
    };
    let mut audit = Vec::new();
    let mut out = Vec::new();
    judge(
        std::slice::from_ref(source),
        &settings,
        Sink::Matrix(&CsvMatrix),
        &mut |at, row, o| audit.push((row.case_id.to_string(), at.line, format!("{o:?}"))),
    )
    .and_then(|matrix| Ok(matrix.write_to(&mut out)?))
    .map_err(|e| match e {
        StreamError::Input(errors) => errors.to_string(),
        StreamError::Io(e) => panic!("i/o: {e}"),
    })?;
    Ok((out, audit))
}

/// Forty one-offer cases; c1 comes back early (after 19 others) and late, c0 at the very end,
/// c2 with a row that goes back in time (an error) unless `good`, c3 broken from its first row
/// unless `good`.
fn rows(good: bool) -> Vec<String> {
    let mut rows = Vec::new();
    let row = |case: &str, event: &str, at: &str, extra: &str| {
        format!(
            r#"{{"case_id": "{case}", "event": "{event}", "observed_at": "2026-01-01T10:{at}Z", "lease_id": "L", "generation": 1, "holder": "w"{extra}}}"#
        )
    };
    for case in 0..40 {
        let at = format!("00:{case:02}");
        if case == 3 && !good {
            rows.push(row("c3", "offr", &at, r#", "job_id": "j""#));
        } else {
            rows.push(row(
                &format!("c{case}"),
                "offer",
                &at,
                &format!(r#", "job_id": "j-{case}", "lease_duration": 600"#),
            ));
        }
        if case == 20 {
            rows.push(row("c1", "ack", "00:30", ""));
        }
    }
    rows.push(row(
        "c1",
        "progress",
        "01:00",
        r#", "progress_seq": 1, "progress_value": "50%""#,
    ));
    if !good {
        rows.push(row("c2", "ack", "00:00", ""));
    }
    rows.push(row("c2", "ack", "01:00", ""));
    rows.push(row("c0", "ack", "02:00", ""));
    rows
}

/// The rows as NDJSON, as a JSON array on one line, pretty-printed (one key per line), and
/// with each row broken after its first key, so that the line a row opens on starts inside
/// the row before.
fn shapes(dir: &Path, label: &str, rows: &[String]) -> [Source; 4] {
    let values: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| serde_json::from_str(r).unwrap())
        .collect();
    let pretty = serde_json::to_string_pretty(&values).unwrap();
    assert!(pretty.lines().count() > rows.len() * 5, "one key per line");
    [
        write_file(dir, &format!("{label}.ndjson"), rows.join("\n").as_bytes()),
        write_file(
            dir,
            &format!("{label}-line.json"),
            format!("[{}]", rows.join(",")).as_bytes(),
        ),
        write_file(dir, &format!("{label}-pretty.json"), pretty.as_bytes()),
        write_file(
            dir,
            &format!("{label}-broken.json"),
            format!(
                "[{}]",
                rows.iter()
                    .map(|r| r.replacen(", ", ",\n", 1))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
            .as_bytes(),
        ),
    ]
}

/// A run's matrix and each replayed row's case and outcome, or its count of errors.
type Outcomes = Result<(Vec<u8>, Vec<(String, String)>), usize>;

/// Outcomes without their lines, which differ between the shapes.
fn outcomes(run: &Run) -> Outcomes {
    match run {
        Ok((matrix, audit)) => Ok((
            matrix.clone(),
            audit
                .iter()
                .map(|(c, _, o)| (c.clone(), o.clone()))
                .collect(),
        )),
        Err(errors) => Err(errors.lines().count()),
    }
}

#[test]
fn cases_coming_back_in_json_arrays_match_ndjson_and_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    for good in [true, false] {
        let label = if good { "good" } else { "bad" };
        let sources = shapes(dir.path(), label, &rows(good));
        let ndjson = streamed(&sources[0], 4096, 1);
        assert_eq!(ndjson.is_ok(), good, "{ndjson:?}");
        for source in &sources {
            let expected = reference(source);
            for (open_cases, jobs) in [(4096, 1), (4096, 2), (3, 1), (3, 2), (1, 1)] {
                let run = streamed(source, open_cases, jobs);
                assert_eq!(
                    run, expected,
                    "{} against the reference (open {open_cases}, jobs {jobs})",
                    source.name
                );
                assert_eq!(
                    outcomes(&run),
                    outcomes(&ndjson),
                    "{} against NDJSON (open {open_cases}, jobs {jobs})",
                    source.name
                );
            }
        }
    }
    // The line of the row going back in time, in each shape: NDJSON's 43rd line; line 1 of
    // the one-line array; in the pretty array, the line its `{` opens on (checked by hand:
    // `[`, then 39 offers of 10 lines, c3's of 9, an ack of 8 and a progress of 10); in the
    // broken one, each row opens on the line the row before ends on: the 43rd line.
    let sources = shapes(dir.path(), "lines", &rows(false));
    let lines = ["43", "1", "419", "43"];
    for (source, line) in sources.iter().zip(lines) {
        let errors = streamed(source, 1, 1).unwrap_err();
        assert!(
            errors.contains(&format!("{}:{line}: observed_at", source.name)),
            "{errors}"
        );
    }
}

#[test]
fn a_json_array_on_standard_input_streams_like_ndjson() {
    let dir = tempfile::tempdir().unwrap();
    let sources = shapes(dir.path(), "stdin", &rows(true));
    let run = |format: &str, path: &Path| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
            .args([
                "adjudicate",
                "-",
                "--input-format",
                format,
                "--open-cases",
                "2",
                "--format",
                "json",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let bytes = std::fs::read(path).unwrap();
        child.stdin.take().unwrap().write_all(&bytes).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let ndjson = run("ndjson", sources[0].path.as_ref().unwrap());
    assert!(ndjson.starts_with(b"["));
    for source in &sources[1..] {
        assert_eq!(
            run("json", source.path.as_ref().unwrap()),
            ndjson,
            "{}",
            source.name
        );
    }
}

/// 1,000 one-offer cases on one line (about 170 KB: three points of the row index, one every
/// 64 KiB from the first row), then a row for every twentieth case, last to first, and (when
/// `bad`) an error row for one of them: each comes back from a different distance, some
/// twice (the index is scanned forwards once, and used backwards after). Each return costs a
/// scan of up to 64 KiB from the point before it, so there are 50 of them, not thousands.
fn long_one_line_array(dir: &Path, bad: bool) -> Source {
    let cases = 1000;
    let row = |case: u32, event: &str, at: u32, extra: &str| {
        format!(
            r#"{{"case_id":"k{case}","event":"{event}","observed_at":"2026-01-01T{:02}:{:02}:{:02}Z","lease_id":"L","generation":1,"holder":"w"{extra}}}"#,
            at / 3600,
            at / 60 % 60,
            at % 60
        )
    };
    let mut rows: Vec<String> = (0..cases)
        .map(|case| {
            row(
                case,
                "offer",
                case,
                r#","job_id":"j","lease_duration":86400"#,
            )
        })
        .collect();
    for case in (0..cases).step_by(20).rev() {
        rows.push(row(case, "ack", 4000 + (cases - case), ""));
    }
    // The second to come back, the first and one between.
    for case in [20, 980, 500] {
        rows.push(row(
            case,
            "progress",
            9000,
            r#","progress_seq":1,"progress_value":"1%""#,
        ));
    }
    if bad {
        rows.push(row(40, "ack", 10, ""));
    }
    let name = if bad { "long-bad.json" } else { "long.json" };
    let source = write_file(dir, name, format!("[{}]", rows.join(",")).as_bytes());
    let size = std::fs::metadata(source.path.as_ref().unwrap())
        .unwrap()
        .len();
    assert!(size > 2 * 65536, "{size} bytes");
    source
}

/// `source` matches the reference with one case open, and with 100.
fn long_array_matches_the_reference(source: &Source) -> Run {
    let expected = reference(source);
    for open_cases in [1, 100] {
        assert_eq!(
            streamed(source, open_cases, 1),
            expected,
            "{} (open {open_cases})",
            source.name
        );
    }
    expected
}

#[test]
fn many_cases_coming_back_across_a_long_one_line_array_match_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let good = long_one_line_array(dir.path(), false);
    assert!(long_array_matches_the_reference(&good).is_ok());
}

#[test]
fn a_time_going_back_across_a_long_one_line_array_gives_the_reference_errors() {
    let dir = tempfile::tempdir().unwrap();
    let bad = long_one_line_array(dir.path(), true);
    assert!(long_array_matches_the_reference(&bad).is_err());
}
