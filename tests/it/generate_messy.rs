//! `generate --style messy`: deterministic by seed, valid input in every shape it writes, its
//! golden matrix the engine's, and each case whose story was told to the end decided as the
//! generator meant (its own model of the case, not the engine's word).

use std::collections::HashMap;
use std::path::Path;

use leasejudge::generate::{default_mix, write_messy_cases, CaseModel, Options};

fn options(seed: u64, cases: u64) -> Options {
    Options {
        seed,
        cases,
        rows_per_case: (3, 16),
        interleave: 4,
        mix: default_mix(),
    }
}

fn messy(seed: u64, cases: u64) -> (Vec<u8>, Vec<CaseModel>) {
    let mut out = Vec::new();
    let mut models = Vec::new();
    write_messy_cases(&options(seed, cases), &mut out, &mut |m| models.push(m)).unwrap();
    (out, models)
}

fn leasejudge(args: &[&str]) -> std::process::Output {
    crate::common::leasejudge(args).output()
}

#[test]
fn messy_files_are_the_same_for_a_seed_and_differ_between_seeds() {
    let (a, models_a) = messy(9, 400);
    let (b, models_b) = messy(9, 400);
    assert_eq!(a, b);
    assert_eq!(models_a, models_b);
    let (c, _) = messy(10, 400);
    assert_ne!(a, c);
    assert_eq!(models_a[19].case_id, "c9-000019");
}

/// What the matrix's decision and reason columns say of each case.
fn decisions(matrix: &Path) -> HashMap<String, String> {
    let mut reader = csv::Reader::from_path(matrix).unwrap();
    let headers = reader.headers().unwrap().clone();
    let at = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (id, decision, reason) = (at("case_id"), at("decision"), at("reason"));
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[id].to_owned(), format!("{} {}", &r[decision], &r[reason]))
        })
        .collect()
}

#[test]
fn messy_files_adjudicate_to_their_golden_and_their_stories() {
    let dir = tempfile::tempdir().unwrap();
    let mut shapes_seen = [false; 6];
    for seed in [1u64, 3, 9] {
        let cases = dir.path().join(format!("messy-{seed}.csv"));
        let golden = dir.path().join(format!("messy-{seed}.golden.csv"));
        let (bytes, models) = messy(seed, 1500);
        let out = leasejudge(&[
            "generate",
            "--style",
            "messy",
            "--seed",
            &seed.to_string(),
            "--cases",
            "1500",
            "--rows-per-case",
            "3..16",
            "--interleave",
            "4",
            "-o",
            cases.to_str().unwrap(),
            "--golden",
            golden.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            std::fs::read(&cases).unwrap(),
            bytes,
            "the command writes the library's bytes"
        );
        let text = String::from_utf8(bytes).unwrap();
        for (n, shape) in ["\r\n", "\"\"", "+01:00", "-08:00", "PT", "\n\n"]
            .iter()
            .enumerate()
        {
            shapes_seen[n] |= text.contains(shape) || (n == 5 && text.contains("\r\n\r\n"));
        }

        // The golden file passes `check`, and `adjudicate` writes it again byte for byte.
        let check = leasejudge(&[
            "check",
            cases.to_str().unwrap(),
            "--golden",
            golden.to_str().unwrap(),
        ]);
        assert!(
            check.status.success(),
            "{}",
            String::from_utf8_lossy(&check.stdout)
        );
        let again = leasejudge(&["adjudicate", cases.to_str().unwrap(), "--format", "csv"]);
        assert!(
            again.status.success(),
            "{}",
            String::from_utf8_lossy(&again.stderr)
        );
        assert_eq!(again.stdout, std::fs::read(&golden).unwrap());

        // Every case is in the matrix, and a story told to the end ends as it was written to.
        let decided = decisions(&golden);
        assert_eq!(decided.len(), models.len());
        let mut whole = 0;
        for model in &models {
            let got = &decided[&model.case_id];
            if !model.cut_short {
                whole += 1;
                assert_eq!(
                    got,
                    model.scenario.ends_in(),
                    "{} ({:?})",
                    model.case_id,
                    model.scenario
                );
            }
        }
        assert!(
            whole > 1000 && whole < models.len(),
            "{whole} of {} told whole",
            models.len()
        );
    }
    assert_eq!(
        shapes_seen, [true; 6],
        "CRLF, \"\", +01:00, -08:00, PT.., blank lines"
    );
}
