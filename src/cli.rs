//! The command line: clap definitions and dispatch to one module per subcommand.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::commands;
use crate::commands::choice::choice;
use crate::terminal::{set_color_choice, ColorChoice};

/// Adjudicates job-lease case files against the Lease Lifecycle & Progress State Machine v1.
#[derive(Debug, Parser)]
#[command(name = "leasejudge", version, about, propagate_version = true)]
pub struct Cli {
    /// Colour tables: auto (a terminal, unless NO_COLOR, CLICOLOR=0 or TERM=dumb; CLICOLOR_FORCE
    /// colours a pipe too), always or never.
    #[arg(long, global = true, value_parser = choice::<ColorChoice>(), value_name = "WHEN", default_value = "auto", hide_possible_values = true)]
    pub color: ColorChoice,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Replay case files and write the evidence matrix.
    Adjudicate(commands::adjudicate::Args),
    /// Write a seeded random case file and, optionally, its golden matrix.
    Generate(commands::generate::Args),
    /// Show, row by row, how each case's verdict came about (text, JSON, Mermaid or HTML).
    Explain(commands::explain::Args),
    /// Adjudicate case files and compare the matrices with golden files (for CI).
    Check(commands::check::Args),
    /// Grade filled-in matrices against golden labels, hiding them unless --reveal.
    Grade(commands::grade::Args),
    /// Check a filled-in matrix before handing it in, without the key, as the autograder will.
    Precheck(commands::precheck::Args),
    /// Write an autograder: a Gradescope zip, a PrairieLearn question, or a GitHub Classroom
    /// template repository.
    Autograder(commands::autograder::Args),
    /// Write the blank matrix to hand out: the header and the case ids of case files.
    Template(commands::template::Args),
    /// Check case files: every input error located, plus warnings.
    Validate(commands::validate::Args),
    /// Permute renew/progress arrivals (spec section 7) and check what may not change.
    Reorder(commands::reorder::Args),
    /// Say which shortcuts (misreadings of the contract) a lab's cases catch, and mend it.
    Shortcuts(commands::shortcuts::Args),
    /// Write a shell completion script to standard output.
    Completions(commands::completions::Args),
    /// Write the manual page (roff) to standard output, or a page per command (--dir).
    Man(commands::man::Args),
}

/// The whole program: runs the command line and reports its error, if any, on standard error
/// (exit status 2). Standard error may be closed or full: nothing is then said, and the exit
/// status is the same. A panic (a bug) is reported as a message too, without a backtrace, and
/// exits 2.
pub fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|panic| {
        let what = panic
            .payload()
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| panic.payload().downcast_ref::<String>().map(String::as_str))
            .unwrap_or("a panic");
        let place = panic
            .location()
            .map_or_else(String::new, |at| format!(" ({}:{})", at.file(), at.line()));
        crate::output::to_stderr(&format!(
            "leasejudge: internal error: {}{place}; this is a bug, please report it",
            crate::output::escape_controls(what)
        ));
    }));
    match std::panic::catch_unwind(run) {
        Ok(Ok(code)) => code,
        Ok(Err(error)) => {
            // Messages quote input (file names, header cells): nothing in them reaches the
            // terminal as a control sequence.
            let message = format!("{error:#}");
            let text = format!(
                "leasejudge: {}",
                crate::output::escape_controls_keep_lines(&message)
            );
            // Located problems are a line each, whatever their length; a sentence fits the
            // width of standard error.
            if error.chain().any(|e| e.is::<crate::input::InputErrors>()) {
                crate::output::to_stderr(&text);
            } else {
                crate::terminal::to_stderr_wrapped(&text);
            }
            ExitCode::from(2)
        }
        // Reported by the hook.
        Err(_) => ExitCode::from(2),
    }
}

/// The commands that write no table, which `--color` means nothing to.
const UNCOLOURED: [&str; 2] = ["man", "completions"];

/// The `--color` argument as defined on [`Cli`].
fn color_arg(command: &clap::Command) -> clap::Arg {
    command
        .get_arguments()
        .find(|arg| arg.get_id() == "color")
        .expect("--color is defined")
        .clone()
}

/// The command line's definitions, as parsed: `--color` is global, but `man` and
/// `completions` write no table, so there it is hidden (a subcommand that has an argument of
/// a global one's id is not given the global one): accepted, as a global option is, and
/// ignored.
pub fn command() -> clap::Command {
    let mut command = Cli::command();
    let hidden = color_arg(&command).hide(true);
    for name in UNCOLOURED {
        command = command.mut_subcommand(name, |sub| sub.arg(hidden.clone()));
    }
    command
}

/// The command line as the manual and the completion scripts show it: `--color` on every
/// command but `man` and `completions` (clap_complete lists hidden arguments too, so it is
/// not defined there at all).
pub fn documented_command() -> clap::Command {
    fn with_arg(mut command: clap::Command, arg: &clap::Arg) -> clap::Command {
        command = command.arg(arg.clone());
        let names: Vec<String> = command
            .get_subcommands()
            .map(|sub| sub.get_name().to_owned())
            .collect();
        for name in names {
            command = command.mut_subcommand(name, |sub| with_arg(sub, arg));
        }
        command
    }
    let command = Cli::command();
    let local = color_arg(&command).global(false);
    let mut command = command.mut_arg("color", |arg| arg.global(false));
    let names: Vec<String> = command
        .get_subcommands()
        .map(|sub| sub.get_name().to_owned())
        .filter(|name| !UNCOLOURED.contains(&name.as_str()))
        .collect();
    for name in names {
        command = command.mut_subcommand(name, |sub| with_arg(sub, &local));
    }
    command
}

/// Parses the command line and runs the subcommand; the exit code is the subcommand's.
pub fn run() -> Result<ExitCode> {
    let cli = Cli::from_arg_matches(&command().get_matches()).unwrap_or_else(|e| e.exit());
    set_color_choice(cli.color);
    crate::output::install_signal_handlers().context("cannot install the signal handlers")?;
    match &cli.command {
        Command::Adjudicate(args) => commands::adjudicate::run(args),
        Command::Generate(args) => commands::generate::run(args),
        Command::Explain(args) => commands::explain::run(args),
        Command::Check(args) => commands::check::run(args),
        Command::Grade(args) => commands::grade::run(args),
        Command::Precheck(args) => commands::precheck::run(args),
        Command::Autograder(args) => commands::autograder::run(args),
        Command::Template(args) => commands::template::run(args),
        Command::Validate(args) => commands::validate::run(args),
        Command::Reorder(args) => commands::reorder::run(args),
        Command::Shortcuts(args) => commands::shortcuts::run(args),
        Command::Completions(args) => commands::completions::run(args, documented_command()),
        Command::Man(args) => commands::man::run(args, documented_command()),
    }
}
