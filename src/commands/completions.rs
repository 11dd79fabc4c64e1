//! `leasejudge completions SHELL`: the shell completion script, generated from the clap
//! definitions (clap_complete) so that it never falls behind the options.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap_complete::Shell;

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

/// The completion script for `shell` of the command line `command`: the clap definitions are
/// passed in by `cli`, which dispatches here, so that this module does not import it back.
pub fn script(shell: Shell, mut command: clap::Command) -> Vec<u8> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "leasejudge", &mut script);
    script
}

/// Runs `completions` for the command line `command`.
pub fn run(args: &Args, command: clap::Command) -> Result<ExitCode> {
    use std::io::Write;
    let mut out = crate::output::Output::open(None, crate::output::Content::Text)?;
    out.write_all(&script(args.shell, command))
        .context("cannot write the completion script")?;
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}
