//! One module per subcommand; each has its clap `Args` and a `run` returning the exit code.

pub mod adjudicate;
pub mod check;
pub mod explain;
pub mod generate;
pub mod grade;
pub mod reorder;
pub mod template;
pub mod validate;
