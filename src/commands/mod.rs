//! One module per subcommand; each has its clap `Args` and a `run` returning the exit code.

pub mod adjudicate;
pub mod autograder;
pub mod check;
pub mod completions;
pub mod explain;
pub mod generate;
pub mod grade;
pub mod man;
pub mod precheck;
pub mod reorder;
pub mod template;
pub mod validate;
