//! The core of leasejudge: the Lease Lifecycle & Progress State Machine v1 contract, the case
//! file readers, the one streaming engine every command reads cases through, the evidence
//! matrix, and what keeps their output inert. It knows no command line, terminal or report
//! format: the `leasejudge` crate builds its commands on it and re-exports every module here
//! under its own name (`leasejudge::input` is [`input`]).
//!
//! - [`lease`] is the sans-IO contract: typed rows in, a disposition per row, a verdict per case.
//! - [`input`] reads CSV, JSON, NDJSON and workbook case files into typed rows, locating every
//!   error.
//! - [`streaming`] groups rows into cases across files, applies the cross-row rules and judges
//!   every case as rows arrive, in memory that does not grow with the file.
//! - [`matrix`] is the evidence matrix, its columns, its encodings and their writer.
//! - [`store`] keeps what outgrows memory in temporary files: spills, logs and sorted runs.
//! - [`limits`] is every bound on what is read and kept.
//! - [`sanitize`] and [`cell`] make text inert where people open it.
//! - [`random`] is the seeded generator tests and generated cases share; [`choice`] is how an
//!   enum says the words that choose its values on a command line.

#![deny(missing_docs, unreachable_pub)]

pub mod cell;
pub mod choice;
pub mod input;
pub mod lease;
pub mod limits;
pub mod matrix;
pub mod random;
pub mod sanitize;
pub mod store;
pub mod streaming;
