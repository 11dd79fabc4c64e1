//! The test oracles: plain statements of what the engine and `validate` compute, with every
//! case in memory, that their bounded-memory runs are tested against.

pub mod adjudication;
pub mod validate;
