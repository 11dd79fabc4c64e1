//! libFuzzer target: arbitrary bytes through the CSV/JSON/NDJSON readers, the adjudication,
//! the matrix writers and the section 7 reorder check. Any panic is a bug.

#![no_main]

#[path = "../exercise.rs"]
mod exercise;

/// The tests' row-at-a-time run, which the fuzz body feeds (it reads only part of what the
/// run gives: the tests read the rest).
#[allow(dead_code)]
#[path = "../../tests/it/oracle/adjudication.rs"]
mod adjudication;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    exercise::exercise(data);
});
