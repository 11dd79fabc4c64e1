//! leasejudge: replays job-lease case files through the Lease Lifecycle & Progress State
//! Machine v1 contract and writes the evidence matrix.
//!
//! - [`lease`] is the sans-IO core: typed rows in, a disposition per row, a verdict per case.
//! - [`input`] reads CSV, JSON and NDJSON case files into typed rows, locating every error.
//! - [`streaming`] is the one engine every command reads cases through: it groups rows into
//!   cases across files, applies the cross-row rules and judges every case as rows arrive, in
//!   memory that does not grow with the file. Its per-case rules ([`streaming::rules`]) are
//!   there for a caller that feeds rows itself.
//! - [`matrix`] is the evidence matrix, its encodings (CSV and JSON) and their writer.
//! - [`explain`] replays a case row by row and shows why its verdict is what it is.
//! - [`grading`] compares matrices with golden files (spec section 8) for `check` and `grade`.
//! - [`bundle`] is what a Gradescope or PrairieLearn autograder (a bundle) carries and runs.
//! - [`lms`] reads a learning platform's download and roster and writes its gradebook import.
//! - `store` keeps what outgrows memory in temporary files: spills, logs and sorted runs.
//! - [`generate`] writes seeded random case files.
//! - [`reorder`] is spec section 7's reordering check.
//! - [`shortcuts`] says how strong a lab is against the catalogue of shortcuts (misreadings
//!   of the contract, [`lease::Shortcut`]): which its cases catch, and the cases that would.
//! - [`validation`] is what `validate` finds: input errors and warnings, in bounded memory.
//! - [`ops`] is the work of each command, callable without clap: plain options in, a status
//!   out (grading a class: [`ops::grade::run`]).
//!
//! One case's rows through the engine's per-case rules ([`streaming::rules`]), as a caller
//! that reads rows itself and groups them into cases would feed them:
//!
//! ```
//! use leasejudge::input::{read, CaseRead, InputErrors, InputFormat, NoObserver, ReadOptions};
//! use leasejudge::matrix::MatrixRow;
//! use leasejudge::streaming::rules::{start_case, step_case, Location, Slot};
//!
//! let file = "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n\
//!             c1,offer,2026-01-01T10:00:00Z,job-1,L-1,1,worker-a,30\n\
//!             c1,ack,2026-01-01T10:00:05Z,,L-1,1,worker-a,\n";
//! let mut case = Slot::Broken;
//! let (mut errors, mut faults) = (InputErrors::new(), InputErrors::new());
//! let options = ReadOptions::default();
//! let how = CaseRead::new("example.csv", InputFormat::Csv, &options);
//! let mut feed = |line, row| {
//!     let at = Location { file_index: 0, file: "example.csv", line };
//!     let outcome = match line {
//!         2 => start_case(&mut case, at, &row, &mut faults),
//!         _ => step_case(&mut case, at, &row, &mut faults),
//!     };
//!     println!("line {line}: {outcome:?}");
//! };
//! read(file.as_bytes(), &how, &mut errors, &mut feed, &mut NoObserver);
//! assert!(errors.is_empty() && faults.is_empty());
//! let Slot::Live(case) = case else { panic!("the case replays") };
//! let row = MatrixRow::new("c1", &case, &case.verdict(None));
//! assert_eq!(row.decision.as_str(), "ACTIVE");
//! assert_eq!(row.reason.as_str(), "within_lease");
//! ```

#![warn(missing_docs)]

// The core's modules (crates/core), under the names the rest of the crate and its users have
// always reached them by.
pub(crate) use leasejudge_core::store;
pub use leasejudge_core::{
    cell, choice, input, lease, limits, matrix, random, sanitize, streaming,
};

pub mod bundle;
pub mod explain;
pub mod generate;
pub mod grading;
pub mod lms;
pub mod ops;
pub mod output;
pub mod reorder;
pub mod report;
pub mod shortcuts;
pub mod terminal;
pub mod validation;

/// Case files of the shapes a split meets, for the case writers' tests (each writer's
/// records read whole and as two halves must be the same bytes): generated plain and messy
/// cases past a small window, quoted line ends, CRLF, cases that come back across the cut,
/// and errors in both halves.
#[cfg(test)]
mod split_corpus {
    use crate::generate::{default_mix, write_cases, write_messy_cases, Options};
    use crate::input::Source;

    const HEADER: &str =
        "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration,note\n";

    fn rows(from: u32, to: u32, value: &str) -> String {
        (from..to)
            .map(|case| {
                format!(
                    "c{case},offer,2026-01-01T10:00:00Z,j,L,1,w,600,{value}\n\
                     c{case},ack,2026-01-01T10:00:01Z,,L,1,w,,\n\
                     c{case},complete,2026-01-01T10:00:05Z,,L,1,w,,\n"
                )
            })
            .collect()
    }

    /// The windows the writers' tests keep open: the commands', and one that a few cases go
    /// past, each case keeping two rows in memory (the rest in a temporary file).
    pub(crate) const WINDOWS: [crate::streaming::Window; 2] = [
        crate::streaming::Window::COMMAND,
        crate::streaming::Window {
            open_cases: 8,
            kept_rows: 64,
            case_rows_in_memory: 2,
            kept_input_bytes: crate::limits::MAX_KEPT_INPUT_BYTES,
            split_min_bytes: 0,
        },
    ];

    /// The files, written in `dir`.
    pub(crate) fn files(dir: &std::path::Path) -> Vec<Source> {
        let options = |seed| Options {
            seed,
            cases: 150,
            rows_per_case: (1, 9),
            interleave: 6,
            mix: default_mix(),
        };
        let mut plain = Vec::new();
        write_cases(&options(7), &mut plain).unwrap();
        let mut messy = Vec::new();
        write_messy_cases(&options(8), &mut messy, &mut |_| {}).unwrap();
        let quoted = format!("{HEADER}{}", rows(0, 120, "\"a, \"\"b\"\"\nc\""));
        let back = "c0,observe,2026-01-01T11:00:00Z,,,,,,\nc5,observe,2026-01-01T11:00:00Z,,,,,,\n";
        let shapes: [(&str, Vec<u8>); 6] = [
            ("plain.csv", plain),
            ("messy.csv", messy),
            ("quoted.csv", quoted.clone().into_bytes()),
            ("crlf.csv", quoted.replace('\n', "\r\n").into_bytes()),
            (
                "back.csv",
                format!("{HEADER}{}{back}", rows(0, 120, "x")).into_bytes(),
            ),
            (
                "errors.csv",
                format!(
                    "{HEADER}c1,ack,x,,,,,,\n{}c2,ack,x,,,,,,\n",
                    rows(0, 120, "x")
                )
                .into_bytes(),
            ),
        ];
        shapes
            .into_iter()
            .map(|(name, bytes)| {
                let path = dir.join(name);
                std::fs::write(&path, bytes).unwrap();
                Source::file(path)
            })
            .collect()
    }
}
