//! Human- and machine-facing renderings beyond the matrix itself: tables, the row audit, and
//! the grade reports of `check` and `grade` (table, JSON, JUnit, GitHub annotations, Markdown).

pub mod audit;
pub mod github;
pub mod grade_json;
pub mod grade_table;
pub mod junit;
pub mod markdown;
pub mod problems;
pub mod table;
