//! What the terminal allows: whether output is coloured (`--color` and the NO_COLOR /
//! CLICOLOR conventions) and how wide a table may be. Every command asks here, so that one
//! rule decides for all of them.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::sync::OnceLock;

/// The `--color` option.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour a terminal, unless NO_COLOR, CLICOLOR=0 or TERM=dumb says not to (CLICOLOR_FORCE
    /// colours even a pipe).
    #[default]
    Auto,
    /// Always colour, even a pipe or a file.
    Always,
    /// Never colour.
    Never,
}

static CHOICE: OnceLock<ColorChoice> = OnceLock::new();

/// Records the run's `--color` (once, from the command line; later calls are ignored).
pub fn set_color_choice(choice: ColorChoice) {
    let _ = CHOICE.set(choice);
}

/// Whether output going to a terminal (or not, `is_terminal`) is coloured, by the run's
/// `--color` and the process environment.
pub fn use_color(is_terminal: bool) -> bool {
    let color = decide_color(
        CHOICE.get().copied().unwrap_or_default(),
        is_terminal,
        |name| std::env::var_os(name),
    );
    if color {
        // crossterm, which colours comfy-table's cells, reads NO_COLOR itself and would turn
        // `--color always` into plain text; the rule above has already weighed NO_COLOR.
        crossterm::style::Colored::set_ansi_color_disabled(false);
    }
    color
}

/// The rule, with the environment as a lookup (so that it can be tested without touching the
/// process's): `--color always|never` wins; then a non-empty NO_COLOR (no-color.org) turns
/// colour off, CLICOLOR_FORCE other than `0` turns it on, CLICOLOR=0 and TERM=dumb turn it
/// off (the CLICOLOR convention, in the order anstream applies it); else only a terminal is
/// coloured.
pub fn decide_color(
    choice: ColorChoice,
    is_terminal: bool,
    env: impl Fn(&str) -> Option<OsString>,
) -> bool {
    let set = |name: &str| env(name).filter(|value| !value.is_empty());
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            if set("NO_COLOR").is_some() {
                false
            } else if set("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
                true
            } else if set("CLICOLOR").is_some_and(|v| v == "0")
                || env("TERM").is_some_and(|v| v == "dumb")
            {
                false
            } else {
                is_terminal
            }
        }
    }
}

/// The width a table for standard output may take: `COLUMNS` when it is set to a number (so
/// that a script or a test can fix it), else the terminal's, else none (a pipe or a file: no
/// limit).
pub fn table_width() -> Option<u16> {
    if let Some(columns) = std::env::var("COLUMNS")
        .ok()
        .and_then(|text| text.trim().parse::<u16>().ok())
        .filter(|&n| n > 0)
    {
        return Some(columns);
    }
    if !std::io::stdout().is_terminal() {
        return None;
    }
    terminal_size::terminal_size().map(|(terminal_size::Width(width), _)| width)
}

/// A spinner on standard error while a command that keeps every case (`validate`,
/// `explain`, `check`, `reorder`) works through `sources`, only when standard error is a
/// terminal: it names the command and the input's size and shows the time taken.
/// `adjudicate`, which streams, has a bar of bytes read instead.
pub fn spinner(command: &str, sources: &[crate::input::Source]) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bytes: u64 = sources
        .iter()
        .filter_map(|s| s.path.as_ref())
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    let files = sources.len();
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .expect("a valid template"),
    );
    bar.set_message(format!(
        "{command}: {files} file{} ({})",
        if files == 1 { "" } else { "s" },
        indicatif::HumanBytes(bytes)
    ));
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    Some(bar)
}

/// A spinner on standard error counting the bytes a command writes (`generate`), only when
/// standard error is a terminal; feed it with [`indicatif::ProgressBar::wrap_write`].
pub fn bytes_spinner(message: &str) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} {msg}: {bytes} ({bytes_per_sec}, {elapsed})",
        )
        .expect("a valid template"),
    );
    bar.set_message(message.to_owned());
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    Some(bar)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decide(choice: ColorChoice, tty: bool, vars: &[(&str, &str)]) -> bool {
        decide_color(choice, tty, |name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| OsString::from(value))
        })
    }

    #[test]
    fn auto_colours_only_a_terminal_that_the_environment_allows() {
        use ColorChoice::*;
        assert!(decide(Auto, true, &[]));
        assert!(!decide(Auto, false, &[]));
        assert!(!decide(Auto, true, &[("NO_COLOR", "1")]));
        assert!(
            decide(Auto, true, &[("NO_COLOR", "")]),
            "empty NO_COLOR is unset"
        );
        assert!(!decide(Auto, true, &[("CLICOLOR", "0")]));
        assert!(decide(Auto, true, &[("CLICOLOR", "1")]));
        assert!(!decide(Auto, true, &[("TERM", "dumb")]));
        assert!(decide(Auto, false, &[("CLICOLOR_FORCE", "1")]));
        assert!(!decide(Auto, false, &[("CLICOLOR_FORCE", "0")]));
        assert!(decide(
            Auto,
            false,
            &[("CLICOLOR_FORCE", "1"), ("TERM", "dumb")]
        ));
        assert!(!decide(
            Auto,
            true,
            &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]
        ));
        assert!(decide(
            Always,
            false,
            &[("NO_COLOR", "1"), ("TERM", "dumb")]
        ));
        assert!(!decide(Never, true, &[("CLICOLOR_FORCE", "1")]));
    }
}
