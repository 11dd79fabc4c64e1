//! libFuzzer target: arbitrary bytes through the CSV/JSON/NDJSON readers, the adjudication,
//! the matrix writers and the section 7 reorder check. Any panic is a bug.

#![no_main]

#[path = "../exercise.rs"]
mod exercise;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    exercise::exercise(data);
});
