//! Grading (spec section 8): reading matrices leniently, comparing them with golden files,
//! and the grade reports `check` and `grade` make (in the formats of the `report` module).

pub(crate) mod baseline;
pub(crate) mod canonical;
pub(crate) mod case_grade;
pub(crate) mod case_list;
pub(crate) mod clashes;
pub mod class;
pub(crate) mod columns;
pub(crate) mod compare;
pub mod engine_check;
pub(crate) mod feedback;
pub mod hint;
pub mod learner_shortcuts;
pub(crate) mod marks;
pub mod matrix_reader;
pub mod partitions;
pub(crate) mod precheck;
pub(crate) mod spool;
pub(crate) mod submission_file;
pub(crate) mod template;
pub(crate) mod upload;

pub use columns::{column_from_header, parse_column_list, Column, ValueKind, DEFAULT_GRADED};
pub use compare::{
    compare, CaseGrade, CaseOutcome, FileGrade, GradeReport, Mismatch, MissingAt, Spot, Summary,
    UnknownCase, Unpaired, UnpairedFile,
};
pub use matrix_reader::{
    golden_errors, MatrixEntry, MatrixFile, MatrixFileFormat, MatrixInput, MatrixRead, Strictness,
};
