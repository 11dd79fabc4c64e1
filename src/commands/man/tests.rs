//! The manual against clap's definitions, walked rather than listed, so that a new
//! subcommand or option is held to the manual too: the one page and the pages of `--dir`
//! (what `leasejudge man` writes: [`page`] and [`pages`] of the documented command line)
//! document every command and option of the tree. The binary's own writing of them is
//! `tests/it/ecosystem.rs`'s.

use std::process::Command;

use super::{commands, page, page_name, pages};
use crate::cli::documented_command;

/// Every visible command of the command line's tree (nested ones included).
fn command_tree() -> Vec<clap::Command> {
    commands(documented_command())
}

/// What a manual page shows of `arg`: its long name, its short name, or for a positional its
/// value name, as roff writes them.
fn roff_names(arg: &clap::Arg) -> Vec<String> {
    let roff = |text: &str| text.replace('-', "\\-");
    let mut names = Vec::new();
    if let Some(long) = arg.get_long() {
        names.push(format!("\\fB{}\\fR", roff(&format!("--{long}"))));
    }
    if let Some(short) = arg.get_short() {
        names.push(format!("\\fB\\-{short}\\fR"));
    }
    if arg.is_positional() {
        let value = arg
            .get_value_names()
            .and_then(|names| names.first().map(|n| n.to_string()))
            .unwrap_or_else(|| arg.get_id().to_string().to_uppercase());
        names.push(format!("\\fI{}\\fR", roff(&value)));
    }
    names
}

/// Whether `page` documents every visible argument of `command`; the missing ones.
fn undocumented(page: &str, command: &clap::Command) -> Vec<String> {
    command
        .get_arguments()
        .filter(|arg| !arg.is_hide_set())
        .flat_map(roff_names)
        .filter(|name| !page.contains(name.as_str()))
        .map(|name| format!("{}: {name}", command.get_name()))
        .collect()
}

/// groff formats `page` without a warning, where groff is installed.
fn groff_accepts(page: &str) {
    if Command::new("groff").arg("--version").output().is_err() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("leasejudge.1");
    std::fs::write(&path, page).unwrap();
    let output = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stderr), "", "groff warns");
}

/// The one page's section of `command` (`.SH "LEASEJUDGE GRADE"` to the next section).
fn section<'p>(page: &'p str, command: &clap::Command) -> Option<&'p str> {
    let name = command.get_bin_name().unwrap().to_uppercase();
    let heading = format!(".SH \"{name}\"");
    let at = page.find(&heading)?;
    let rest = &page[at + heading.len()..];
    Some(&rest[..rest.find("\n.SH ").unwrap_or(rest.len())])
}

#[test]
fn the_man_page_documents_every_command_and_option_of_the_tree() {
    let page = String::from_utf8(page(documented_command()).unwrap()).unwrap();
    let tree = command_tree();
    assert!(tree.len() >= 16, "the tree lost commands: {}", tree.len());
    let mut missing = Vec::new();
    for command in &tree[1..] {
        let Some(section) = section(&page, command) else {
            missing.push(format!("no section for {}", command.get_name()));
            continue;
        };
        missing.extend(undocumented(section, command));
    }
    missing.extend(undocumented(&page, &tree[0]));
    assert!(missing.is_empty(), "undocumented: {missing:#?}");
    groff_accepts(&page);
}

#[test]
fn the_man_dir_has_the_page_every_subcommands_section_names() {
    let written: Vec<(String, String)> = pages(documented_command())
        .unwrap()
        .into_iter()
        .map(|(name, roff)| (name, String::from_utf8(roff).unwrap()))
        .collect();
    let is_written = |file: &str| written.iter().any(|(name, _)| name == file);
    let mut missing = Vec::new();
    for command in command_tree() {
        let name = page_name(&command);
        let Some((_, page)) = written
            .iter()
            .find(|(file, _)| *file == format!("{name}.1"))
        else {
            missing.push(format!("no page {name}.1"));
            continue;
        };
        assert!(
            page.contains(&format!(".TH {name} 1")),
            "{name}.1 has no title"
        );
        missing.extend(undocumented(page, &command));
        // Every page a SUBCOMMANDS section names is there.
        for line in page.lines().filter(|line| line.ends_with("(1)")) {
            let named = line.trim_end_matches("(1)").replace("\\-", "-");
            if !is_written(&format!("{named}.1")) {
                missing.push(format!("{name}.1 names {named}(1), which is not written"));
            }
        }
        groff_accepts(page);
    }
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
fn color_is_offered_only_where_something_is_coloured() {
    let page = String::from_utf8(page(documented_command()).unwrap()).unwrap();
    for command in command_tree().iter().skip(1) {
        let section = section(&page, command).unwrap();
        let uncoloured = ["man", "completions"].contains(&command.get_name());
        assert_eq!(
            section.contains("\\-\\-color"),
            !uncoloured,
            "{}: --color offered: {}",
            command.get_name(),
            !uncoloured
        );
    }
}
