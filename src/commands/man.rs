//! `leasejudge man`: the manual page as roff on standard output, generated from the clap
//! definitions (clap_mangen): the main page, then one section per subcommand.

use std::process::ExitCode;

use anyhow::{Context, Result};

/// Write the manual page (roff) to standard output.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Read it with `leasejudge man | man -l -`, or install it:
  leasejudge man > ~/.local/share/man/man1/leasejudge.1")]
pub struct Args {}

/// The manual page of the command line `command`: `leasejudge(1)` with every subcommand's
/// options. The clap definitions are passed in by `cli`, which dispatches here, so that this
/// module does not import it back.
pub fn page(mut command: clap::Command) -> std::io::Result<Vec<u8>> {
    // Building sets each subcommand's binary name (`leasejudge check`) for its synopsis.
    command.build();
    let mut roff = Vec::new();
    clap_mangen::Man::new(command.clone()).render(&mut roff)?;
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        // Each subcommand is a section of the one page (as ripgrep's is one page), its own
        // sections demoted to subsections.
        let mut part = Vec::new();
        let man = clap_mangen::Man::new(sub.clone());
        man.render_description_section(&mut part)?;
        man.render_synopsis_section(&mut part)?;
        man.render_options_section(&mut part)?;
        if sub.get_after_help().is_some() || sub.get_after_long_help().is_some() {
            man.render_extra_section(&mut part)?;
        }
        let part = String::from_utf8_lossy(&part).replace("\n.SH EXTRA\n", "\n.SS NOTES\n");
        roff.extend_from_slice(
            format!(".SH \"LEASEJUDGE {}\"\n", sub.get_name().to_uppercase()).as_bytes(),
        );
        for line in part.lines() {
            let line = line
                .strip_prefix(".SH ")
                .map_or_else(|| line.to_owned(), |heading| format!(".SS {heading}"));
            roff.extend_from_slice(line.as_bytes());
            roff.push(b'\n');
        }
    }
    Ok(roff)
}

/// Runs `man` for the command line `command`.
pub fn run(_args: &Args, command: clap::Command) -> Result<ExitCode> {
    use std::io::Write;
    let roff = page(command).context("cannot render the manual page")?;
    let mut out = crate::output::Output::open(None, crate::output::Content::Text)?;
    out.write_all(&roff)
        .context("cannot write the manual page")?;
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}
