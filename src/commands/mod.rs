//! One module per subcommand; each has its clap `Args` and a `run` that turns them into the
//! options of the work (in [`crate::ops`], or the module that owns it), makes one call, and
//! returns the exit code.

pub(crate) mod adjudicate;
pub(crate) mod args;
pub(crate) mod autograder;
pub(crate) mod check;
pub(crate) mod choice;
pub(crate) mod completions;
pub(crate) mod explain;
pub(crate) mod generate;
pub(crate) mod grade;
pub mod man;
pub(crate) mod precheck;
pub(crate) mod reorder;
pub(crate) mod shortcuts;
pub(crate) mod template;
pub(crate) mod validate;

/// The exit code of a command whose work ended with `status`.
pub(crate) fn exit_code(status: crate::ops::Status) -> std::process::ExitCode {
    std::process::ExitCode::from(status.code())
}
