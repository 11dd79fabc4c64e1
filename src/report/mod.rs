//! Human- and machine-facing renderings beyond the matrix itself: tables and the row audit.

pub mod audit;
pub mod table;
