//! One module per subcommand; each has its clap `Args` and a `run` returning the exit code.

pub mod adjudicate;
pub mod reorder;
pub mod validate;
