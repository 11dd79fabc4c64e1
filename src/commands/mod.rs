//! One module per subcommand; each has its clap `Args` and a `run` returning the exit code.

pub(crate) mod adjudicate;
pub(crate) mod autograder;
pub(crate) mod check;
pub(crate) mod completions;
pub mod explain;
pub(crate) mod generate;
pub(crate) mod grade;
pub mod man;
pub(crate) mod precheck;
pub(crate) mod reorder;
pub(crate) mod shortcuts;
pub(crate) mod template;
pub(crate) mod validate;
