//! The body shared by the libFuzzer target and the plain mutation harness
//! (`tests/it/fuzz_harness.rs`): one input's bytes through every reader and the engine.
//!
//! The first byte picks the input format and whether to judge at a later `as_of`; the rest is
//! the file. Nothing here may panic, whatever the bytes. Its includer provides, beside it, the
//! tests' row-at-a-time run (`tests/it/oracle/adjudication.rs`) as `adjudication`.

use super::adjudication::{Adjudication, Location};
use leasejudge::input::{read, CaseRead, InputErrors, InputFormat, NoObserver, ReadOptions};
use leasejudge::lease::Timestamp;
use leasejudge::matrix::{CsvMatrix, JsonMatrix, MatrixRow, MatrixWriter};

/// Runs one input through the readers, the adjudication, the writers and the reorder check.
pub fn exercise(data: &[u8]) {
    let Some((&control, file)) = data.split_first() else {
        return;
    };
    let format = match control % 3 {
        0 => InputFormat::Csv,
        1 => InputFormat::Json,
        _ => InputFormat::Ndjson,
    };
    let as_of = (control & 0x80 != 0)
        .then(|| Timestamp::parse("2026-06-01T00:00:00Z").expect("a valid timestamp"));

    let mut run = Adjudication::new();
    let mut errors = InputErrors::new();
    let mut rows_by_case: Vec<(String, Vec<leasejudge::lease::Row>)> = Vec::new();
    let options = ReadOptions::default();
    let mut feed = |line, row: leasejudge::input::RowResult| {
        run.feed(
            Location {
                file_index: 0,
                file: "fuzz",
                line,
            },
            &row,
        );
        if let Ok(parsed) = row {
            match rows_by_case
                .iter_mut()
                .find(|(id, _)| *id == parsed.case_id)
            {
                Some((_, rows)) => rows.push(parsed.row),
                None => rows_by_case.push((parsed.case_id.to_string(), vec![parsed.row])),
            }
        }
    };
    let how = CaseRead::new("fuzz", format, &options);
    read(file, &how, &mut errors, &mut feed, &mut NoObserver);
    errors.append(run.take_errors());
    if !errors.is_empty() {
        // Error text must render (and quote huge values briefly) without panicking.
        let text = errors.to_string();
        assert!(text.ends_with("nothing was written"));
        return;
    }
    let judged = match run.finish(as_of) {
        Ok(judged) => judged,
        Err(errors) => panic!("errors after a clean read: {errors}"),
    };
    let matrix: Vec<MatrixRow> = judged
        .iter()
        .map(|j| MatrixRow::new(&j.case_id, &j.case, &j.verdict))
        .collect();
    let mut csv = MatrixWriter::new(Vec::new(), &CsvMatrix, &[]).expect("writing to memory");
    let mut json = MatrixWriter::new(Vec::new(), &JsonMatrix, &[]).expect("writing to memory");
    for row in &matrix {
        csv.write(row, &[]).expect("writing to memory");
        json.write(row, &[]).expect("writing to memory");
    }
    let json = json.finish().expect("writing to memory");
    serde_json::from_slice::<serde_json::Value>(&json).expect("the JSON matrix parses");
    csv.finish().expect("writing to memory");

    for (case_id, rows) in &rows_by_case {
        let findings = leasejudge::reorder::explore_case(rows, 8, case_id.len() as u64, as_of);
        assert!(
            findings.violations.is_empty(),
            "section 7 violated in {case_id}: {:?}",
            findings.violations
        );
    }
}
