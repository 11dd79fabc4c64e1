//! A libFuzzer-free fuzz harness: mutated case files through `fuzz/exercise.rs` (the same body
//! as the cargo-fuzz target), deterministically seeded so a failure reproduces.
//!
//! CI runs a moderate number of iterations; `FUZZ_ITERATIONS=1000000 cargo test --release
//! --test it fuzz_harness::` runs it for longer, and `FUZZ_SEED` picks another stream. Inputs that
//! once crashed are kept in `tests/data/fuzz-regressions/` and replayed first.

#[path = "../../fuzz/exercise.rs"]
mod exercise;

/// What `exercise` runs the rows through (shared with the cargo-fuzz target, which includes
/// the same file).
use crate::oracle::adjudication;

use std::fs;
use std::path::Path;

use leasejudge::random::SplitMix64;

/// Every file under `dir` (recursively), sorted by path.
fn files_under(dir: &Path) -> Vec<Vec<u8>> {
    let mut paths = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths.iter().map(|p| fs::read(p).unwrap()).collect()
}

/// Tokens that tend to reach edge cases of the grammars.
const TOKENS: &[&str] = &[
    ",",
    "\"",
    "\n",
    "\r\n",
    "\u{feff}",
    "{",
    "}",
    "[",
    "]",
    ":",
    "null",
    "0",
    "1",
    "18446744073709551615",
    "18446744073709551616",
    "-1",
    "1.0",
    "1e3",
    "9999-12-31T23:59:59Z",
    "0001-01-01T00:00:00Z",
    "2026-01-01T10:00:60Z",
    "2026-01-01T10:00:00+23:59",
    "2026-01-01T10:00:00.999999999Z",
    "P1D",
    "PT0S",
    "3153600000",
    "offer",
    "ack",
    "renew",
    "progress",
    "result",
    "observe",
    "cancel_request",
    "cancel_ack",
    "SUCCESS",
    "CANCELLED",
    "case_id",
    "generation",
    "kind",
    "Holder Identity",
];

fn mutate(input: &[u8], seeds: &[Vec<u8>], rng: &mut SplitMix64) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = if out.is_empty() {
            0
        } else {
            rng.below(out.len() + 1)
        };
        match rng.below(6) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            1 => {
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                out.splice(at..at, token.iter().copied());
            }
            2 if !out.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(out.len());
                let start = at.min(end);
                out.drain(start..end);
            }
            3 if !out.is_empty() => {
                let start = rng.below(out.len());
                let end = (start + 1 + rng.below(64)).min(out.len());
                let copy = out[start..end].to_vec();
                out.splice(at..at, copy);
            }
            4 => {
                let other = &seeds[rng.below(seeds.len())];
                let cut = rng.below(other.len() + 1);
                out.truncate(at);
                out.extend_from_slice(&other[cut..]);
            }
            _ => out.insert(at, rng.next_u64() as u8),
        }
    }
    out
}

#[test]
fn regressions_and_seeds_do_not_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let regressions = files_under(&root.join("tests/data/fuzz-regressions"));
    assert!(!regressions.is_empty(), "the regression corpus is missing");
    for input in &regressions {
        exercise::exercise(input);
    }
    for seed in files_under(&root.join("cases")) {
        for control in 0..=255u8 {
            let mut input = vec![control];
            input.extend_from_slice(&seed);
            exercise::exercise(&input);
        }
    }
}

#[test]
fn mutated_case_files_do_not_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seeds = files_under(&root.join("cases"));
    seeds.extend(files_under(&root.join("tests/data/malformed")));
    let iterations: usize = std::env::var("FUZZ_ITERATIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3000);
    let seed: u64 = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let mut rng = SplitMix64::new(seed);
    for iteration in 0..iterations {
        let base = &seeds[rng.below(seeds.len())];
        let mut input = vec![rng.next_u64() as u8];
        input.extend(mutate(base, &seeds, &mut rng));
        let outcome = std::panic::catch_unwind(|| exercise::exercise(&input));
        if outcome.is_err() {
            let saved =
                std::env::temp_dir().join(format!("leasejudge-fuzz-crash-{seed}-{iteration}"));
            fs::write(&saved, &input).unwrap();
            panic!(
                "iteration {iteration} (FUZZ_SEED={seed}) panicked; input saved to {}",
                saved.display()
            );
        }
    }
}
