//! `leasejudge man`: the manual, generated from the clap definitions (clap_mangen), so that it
//! lists exactly the commands and options the binary has: one page on standard output (the
//! main page, then a section per subcommand, nested ones included), or with `--dir` a page per
//! command (`leasejudge.1`, `leasejudge-grade.1`, `leasejudge-autograder-gradescope.1`), as
//! the main page's SUBCOMMANDS section names them.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

/// Write the manual page (roff) to standard output, or a page per command to a directory.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Read it with `leasejudge man | man -l -`, or install it:
  leasejudge man > ~/.local/share/man/man1/leasejudge.1
or install a page per command (man leasejudge-grade, man leasejudge-autograder-gradescope):
  leasejudge man --dir ~/.local/share/man/man1")]
pub struct Args {
    /// Write a page per command into DIR (made if missing): leasejudge.1, then
    /// leasejudge-COMMAND.1 for each subcommand (leasejudge-autograder-gradescope.1 for a
    /// nested one); pages already there are replaced, nothing else in DIR is touched.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// Every visible command of `command`'s tree, parents before their subcommands, built (so
/// that each subcommand's binary name, `leasejudge autograder gradescope`, is set for its
/// synopsis). `help` is left out: it is no command of its own.
pub fn commands(command: clap::Command) -> Vec<clap::Command> {
    fn walk(command: &clap::Command, into: &mut Vec<clap::Command>) {
        into.push(command.clone());
        // In the order the help and the SUBCOMMANDS section list them.
        let mut subs: Vec<&clap::Command> = command
            .get_subcommands()
            .filter(|s| !s.is_hide_set() && s.get_name() != "help")
            .collect();
        subs.sort_by_key(|s| s.get_display_order());
        for sub in subs {
            walk(sub, into);
        }
    }
    let mut command = command.disable_help_subcommand(true);
    command.build();
    let mut all = Vec::new();
    walk(&command, &mut all);
    all
}

/// The roff of `part` without the lines clap_mangen starts every rendering with (the `Aq`
/// string's definition), which a page needs once.
fn without_preamble(part: &[u8]) -> String {
    String::from_utf8_lossy(part)
        .lines()
        .filter(|line| !line.starts_with(".ie \\n(.g .ds Aq") && !line.starts_with(".el .ds Aq"))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// The one manual page of the command line `command`: `leasejudge(1)`, whose SUBCOMMANDS
/// section points at the sections below it, then a section per subcommand, nested ones
/// included (`LEASEJUDGE AUTOGRADER GRADESCOPE`), each with its synopsis, options and notes.
/// The clap definitions are passed in by `cli`, which dispatches here, so that this module
/// does not import it back.
pub fn page(command: clap::Command) -> std::io::Result<Vec<u8>> {
    let all = commands(command);
    let mut roff = Vec::new();
    clap_mangen::Man::new(all[0].clone()).render(&mut roff)?;
    // The SUBCOMMANDS section names the pages of `--dir` (`leasejudge-grade(1)`); in the one
    // page, each is a section below.
    let mut roff = String::from_utf8_lossy(&roff).into_owned();
    for sub in &all[1..] {
        let page = format!("{}(1)", page_name(sub).replace('-', "\\-"));
        let section = format!("{} (see below)", display_name(sub));
        roff = roff.replace(&format!("\n{page}\n"), &format!("\n{section}\n"));
    }
    for sub in &all[1..] {
        // Each subcommand is a section of the one page (as ripgrep's is one page), its own
        // sections demoted to subsections.
        let mut part = Vec::new();
        let man = clap_mangen::Man::new(sub.clone());
        man.render_description_section(&mut part)?;
        man.render_synopsis_section(&mut part)?;
        man.render_options_section(&mut part)?;
        if sub.has_subcommands() {
            man.render_subcommands_section(&mut part)?;
        }
        if sub.get_after_help().is_some() || sub.get_after_long_help().is_some() {
            man.render_extra_section(&mut part)?;
        }
        let mut part = without_preamble(&part).replace("\n.SH EXTRA\n", "\n.SS NOTES\n");
        if part.starts_with(".SH EXTRA\n") {
            part = part.replacen(".SH EXTRA\n", ".SS NOTES\n", 1);
        }
        for nested in sub.get_subcommands() {
            let page = format!("{}(1)", page_name(nested).replace('-', "\\-"));
            let section = format!("{} (see below)", display_name(nested));
            part = part.replace(&format!("\n{page}\n"), &format!("\n{section}\n"));
        }
        roff.push_str(&format!(".SH \"{}\"\n", display_name(sub).to_uppercase()));
        for line in part.lines() {
            let line = line
                .strip_prefix(".SH ")
                .map_or_else(|| line.to_owned(), |heading| format!(".SS {heading}"));
            roff.push_str(&line);
            roff.push('\n');
        }
    }
    Ok(roff.into_bytes())
}

/// `leasejudge autograder gradescope`: the command as typed.
fn display_name(command: &clap::Command) -> String {
    command
        .get_bin_name()
        .map_or_else(|| command.get_name().to_owned(), str::to_owned)
}

/// `leasejudge-autograder-gradescope`: the name of the command's own page.
pub fn page_name(command: &clap::Command) -> String {
    command
        .get_display_name()
        .map_or_else(|| command.get_name().to_owned(), str::to_owned)
}

/// A page per command of `command`'s tree: its file name (`leasejudge-grade.1`) and roff.
pub fn pages(command: clap::Command) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    commands(command)
        .into_iter()
        .map(|command| {
            let man = clap_mangen::Man::new(command);
            let mut roff = Vec::new();
            man.render(&mut roff)?;
            Ok((man.get_filename(), roff))
        })
        .collect()
}

/// Runs `man` for the command line `command`.
pub fn run(args: &Args, command: clap::Command) -> Result<ExitCode> {
    use std::io::Write;
    let Some(dir) = &args.dir else {
        let roff = page(command).context("cannot render the manual page")?;
        let mut out = crate::output::Output::open(None, crate::output::Content::Text)?;
        out.write_all(&roff)
            .context("cannot write the manual page")?;
        out.commit()?;
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot make the directory {}", dir.display()))?;
    let mut outputs = Vec::new();
    for (name, roff) in pages(command).context("cannot render the manual pages")? {
        let path = dir.join(&name);
        let mut out = crate::output::Output::open(Some(&path), crate::output::Content::Text)?;
        out.write_all(&roff)
            .with_context(|| format!("cannot write {}", path.display()))?;
        outputs.push(out);
    }
    // Every page or none: a failed run leaves the pages that were there as they were.
    crate::output::commit_all(outputs)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests;
