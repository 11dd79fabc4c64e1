//! `leasejudge completions SHELL`: the shell completion script, generated from the clap
//! definitions (clap_complete) so that it never falls behind the options.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::Cli;

/// Write a shell completion script to standard output.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Install, for example:
  bash: leasejudge completions bash > ~/.local/share/bash-completion/completions/leasejudge
  zsh:  leasejudge completions zsh > ~/.zfunc/_leasejudge   (with ~/.zfunc on $fpath)
  fish: leasejudge completions fish > ~/.config/fish/completions/leasejudge.fish
  PowerShell: leasejudge completions powershell >> $PROFILE
  elvish: leasejudge completions elvish >> ~/.config/elvish/rc.elv")]
pub struct Args {
    /// The shell.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

/// The completion script for `shell`.
pub fn script(shell: Shell) -> Vec<u8> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "leasejudge", &mut script);
    script
}

/// Runs `completions`.
pub fn run(args: &Args) -> Result<ExitCode> {
    use std::io::Write;
    let mut out = crate::output::Output::open(None)?;
    out.write_all(&script(args.shell))
        .context("cannot write the completion script")?;
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}
