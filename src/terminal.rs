//! What the terminal allows: whether output is coloured (`--color` and the NO_COLOR /
//! CLICOLOR conventions) and how wide a table may be. Every command asks here, so that one
//! rule decides for all of them.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::sync::OnceLock;

/// The `--color` option.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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

crate::choice::choices!(ColorChoice {
    Auto => "auto",
        "Colour a terminal, unless NO_COLOR, CLICOLOR=0 or TERM=dumb says not to (CLICOLOR_FORCE colours even a pipe)";
    Always => "always",
        "Always colour, even a pipe or a file";
    Never => "never",
        "Never colour";
});

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

/// The width of a table when neither `COLUMNS` nor a terminal says: a pipe (`| less`,
/// `| head`) or a file, read on a terminal or in a mail of the usual 80 columns. Python's
/// `shutil.get_terminal_size` and dpkg fall back to the same.
pub const PIPED_TABLE_WIDTH: u16 = 80;

/// The width a table may take: `COLUMNS` when it is set to a number (so that a script or a
/// test can fix it, or widen a pipe's table: `COLUMNS=400`), else the terminal's when the
/// table goes to one (`to_terminal`: standard output, and a terminal), else
/// [`PIPED_TABLE_WIDTH`]. Coloured or not, the rule is the same.
pub fn table_width(to_terminal: bool) -> u16 {
    if let Some(columns) = columns_variable() {
        return columns;
    }
    if to_terminal {
        if let Some((terminal_size::Width(width), _)) = terminal_size::terminal_size() {
            return width;
        }
    }
    PIPED_TABLE_WIDTH
}

/// The width text to standard error may take: `COLUMNS` when set, else standard error's
/// terminal's when it is one, else [`PIPED_TABLE_WIDTH`] (the rule of [`table_width`], for
/// the stream the text goes to).
pub fn stderr_text_width() -> u16 {
    if let Some(columns) = columns_variable() {
        return columns;
    }
    if std::io::stderr().is_terminal() {
        if let Some((terminal_size::Width(width), _)) =
            terminal_size::terminal_size_of(std::io::stderr())
        {
            return width;
        }
    }
    PIPED_TABLE_WIDTH
}

/// `COLUMNS`, when it is set to a number above 0.
fn columns_variable() -> Option<u16> {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|text| text.trim().parse::<u16>().ok())
        .filter(|&n| n > 0)
}

/// How many columns `text` takes on a terminal (a wide character two, a combining one none).
pub fn display_width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// `text` for a terminal `width` columns wide: each of its lines broken at spaces into lines
/// no wider, the lines after the first of each started with `indent` (a hanging indent, where
/// the layout has one: a located problem's continuation, a trace's field). It breaks only at
/// spaces, never inside a word, so a code (`cancel_acknowledged_no_result`), a path
/// (`examples/lab/submissions/ben.csv:2`) or a number stays whole: a word wider than the
/// line stands alone on its own line, wider than `width`. The one wrapping of every line of
/// prose the commands print for people; a table's cells are fitted by the table.
pub fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut wrapped = String::with_capacity(text.len() + text.len() / 8);
    for (index, line) in text.split('\n').enumerate() {
        if index > 0 {
            wrapped.push('\n');
        }
        wrap_line(line, width, indent, &mut wrapped);
    }
    wrapped
}

/// One line of [`wrap`], appended to `out`: the spaces between words kept as they are (a
/// label's alignment) except where the line breaks.
fn wrap_line(line: &str, width: usize, indent: &str, out: &mut String) {
    if display_width(line) <= width {
        out.push_str(line);
        return;
    }
    let indent_width = display_width(indent);
    let mut used = 0;
    let mut at_start = true;
    let mut rest = line;
    // Each word with the spaces before it; the line's own leading spaces stay on its first.
    while !rest.is_empty() {
        let gap = rest.len() - rest.trim_start_matches(' ').len();
        let spaces = &rest[..gap];
        let after_gap = &rest[gap..];
        let end = after_gap.find(' ').unwrap_or(after_gap.len());
        let word = &after_gap[..end];
        rest = &after_gap[end..];
        if word.is_empty() {
            break;
        }
        let n = display_width(word);
        if !at_start && used + gap + n > width {
            out.push('\n');
            out.push_str(indent);
            used = indent_width;
        } else {
            out.push_str(spaces);
            used += gap;
        }
        out.push_str(word);
        used += n;
        at_start = false;
    }
}

/// The hanging indent of a line of a report laid out as people read it: a `label   value`
/// line (`    claims    lease L-2, …`, `    decision  EXPIRED: …`) continues under its value;
/// any other line two columns further in than it starts (`FILE:LINE: message` continues at
/// 2, an indented problem at 4).
pub fn hanging_indent(line: &str) -> usize {
    let lead = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[lead..];
    if let Some(label_end) = rest.find("  ") {
        let label = &rest[..label_end];
        let value = rest[label_end..].trim_start_matches(' ');
        if !label.is_empty() && !label.contains(' ') && !value.is_empty() {
            return lead + label_end + (rest[label_end..].len() - value.len());
        }
    }
    lead + 2
}

/// [`to_stderr`](crate::output::to_stderr) for prose: each line fitted to the width of
/// standard error (COLUMNS, its terminal, or 80), wrapped at spaces with its hanging indent.
/// A list of located problems (`FILE:LINE: column: message (value)`) goes through
/// `to_stderr` instead, a problem to a line whatever its length, as compilers write them,
/// for editors, `grep` and CI's problem matchers.
pub fn to_stderr_wrapped(text: &str) {
    let width = usize::from(stderr_text_width());
    crate::output::to_stderr(&wrap_lines(text, width));
}

/// `text` for a terminal `width` columns wide, each line wrapped ([`wrap`]) with its
/// [`hanging_indent`].
pub fn wrap_lines(text: &str, width: usize) -> String {
    text.split('\n')
        .map(|line| wrap(line, width, &" ".repeat(hanging_indent(line))))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Writes text for people to `W`, each line wrapped ([`wrap`]) to `width` columns with its
/// [`hanging_indent`]: for reports written a line at a time (`explain`'s trace), so that
/// every line fits however long the values it quotes.
pub struct WrapLines<W: std::io::Write> {
    out: W,
    width: usize,
    line: Vec<u8>,
}

/// Text wrapped to the terminal as it is appended (`explain`'s trace).
impl<W: std::io::Write> crate::store::AppendFile for WrapLines<W> {}

impl<W: std::io::Write> WrapLines<W> {
    /// Lines to `out`, wrapped to `width` columns.
    pub fn new(out: W, width: usize) -> WrapLines<W> {
        WrapLines {
            out,
            width,
            line: Vec::new(),
        }
    }

    /// Writes a line that was not ended, and returns the writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.write_line(false)?;
        self.out.flush()?;
        Ok(self.out)
    }

    fn write_line(&mut self, ended: bool) -> std::io::Result<()> {
        if self.line.is_empty() && !ended {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&self.line);
        let indent = " ".repeat(hanging_indent(&text));
        let mut wrapped = wrap(&text, self.width, &indent).into_bytes();
        if ended {
            wrapped.push(b'\n');
        }
        self.line.clear();
        self.out.write_all(&wrapped)
    }
}

impl<W: std::io::Write> std::io::Write for WrapLines<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut rest = bytes;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            self.line.extend_from_slice(&rest[..end]);
            self.write_line(true)?;
            rest = &rest[end + 1..];
        }
        self.line.extend_from_slice(rest);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// How long work may take before its progress is drawn: work that ends sooner draws
/// nothing (a bar that flashes past is noise, and on a small file it was all the output
/// there was besides the table).
pub const PROGRESS_DELAY: std::time::Duration = std::time::Duration::from_secs(1);

/// Progress on standard error: drawn only when standard error is a terminal, only once the
/// work has taken [`PROGRESS_DELAY`], and never wider than the terminal (less its last
/// column). Until then its bar counts but draws nowhere. Dropping it (or
/// [`Progress::finish_and_clear`]) clears what it drew.
pub struct Progress {
    bar: indicatif::ProgressBar,
    /// The thread that draws the bar once the delay has passed, and the channel that tells
    /// it the work ended first.
    reveal: Option<(std::sync::mpsc::Sender<()>, std::thread::JoinHandle<()>)>,
    /// Set once the bar is given standard error to draw on.
    shown: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// The bytes the work has read, which it counts and the bar shows (the engine knows no
    /// bar: see [`Progress::bytes_read`]).
    read: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

/// How often a shown bar takes in the bytes counted in [`Progress::bytes_read`].
const BYTES_READ_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

impl Progress {
    /// `bar` (drawn nowhere yet) in `template`, shown after [`PROGRESS_DELAY`], ticking on
    /// its own if `tick` (a spinner).
    fn start(bar: indicatif::ProgressBar, template: &str, tick: bool) -> Progress {
        Progress::start_after(bar, template, tick, progress_delay())
    }

    /// [`Progress::start`], shown after `delay` (the tests give none, or a day, so that what
    /// they see does not depend on how busy the machine is).
    fn start_after(
        bar: indicatif::ProgressBar,
        template: &str,
        tick: bool,
        delay: std::time::Duration,
    ) -> Progress {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        bar.set_style(
            indicatif::ProgressStyle::with_template(template)
                .expect("a valid template")
                .progress_chars("=> "),
        );
        use std::sync::atomic::Ordering;
        use std::sync::mpsc::RecvTimeoutError;
        let (done, wait) = std::sync::mpsc::channel::<()>();
        let shown = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let read = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let (drawn, flag, counted) = (
            bar.clone(),
            std::sync::Arc::clone(&shown),
            std::sync::Arc::clone(&read),
        );
        let reveal = std::thread::Builder::new()
            .name("leasejudge-progress".into())
            .stack_size(crate::limits::THREAD_STACK_BYTES)
            .spawn(move || {
                if let Err(RecvTimeoutError::Timeout) = wait.recv_timeout(delay) {
                    drawn.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                    flag.store(true, Ordering::SeqCst);
                    drawn.tick();
                    // The bytes read since last time (a bar fed through a writer it wraps
                    // counts them itself: this adds nothing to it).
                    let mut taken = 0;
                    loop {
                        let now = counted.load(Ordering::Relaxed);
                        drawn.inc(now - taken);
                        taken = now;
                        // A spinner turns here, not on a thread of indicatif's own (started
                        // without a stack of our choosing: see THREAD_STACK_BYTES).
                        if tick {
                            drawn.tick();
                        }
                        if !matches!(
                            wait.recv_timeout(BYTES_READ_EVERY),
                            Err(RecvTimeoutError::Timeout)
                        ) {
                            break;
                        }
                    }
                }
            })
            .ok()
            .map(|handle| (done, handle));
        Progress {
            bar,
            reveal,
            shown,
            read,
        }
    }

    /// The bar, to wrap a writer with.
    pub fn bar(&self) -> &indicatif::ProgressBar {
        &self.bar
    }

    /// The count of bytes read that the bar shows: the work adds to it, and the bar takes
    /// it in once shown.
    pub fn bytes_read(&self) -> &std::sync::atomic::AtomicU64 {
        &self.read
    }

    /// Clears what was drawn (if anything was).
    pub fn finish_and_clear(self) {
        drop(self);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some((done, reveal)) = self.reveal.take() {
            drop(done);
            let _ = reveal.join();
        }
        // A bar never shown drew nothing to clear.
        if self.shown.load(std::sync::atomic::Ordering::SeqCst) {
            self.bar.finish_and_clear();
        }
    }
}

/// How long work runs before its progress is drawn: [`PROGRESS_DELAY`], unless
/// `LEASEJUDGE_PROGRESS_DELAY_MS` gives it in milliseconds (tests give 0, so that a run held
/// on its input draws at once, or a day, so that no run of theirs draws).
fn progress_delay() -> std::time::Duration {
    std::env::var("LEASEJUDGE_PROGRESS_DELAY_MS")
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map_or(PROGRESS_DELAY, std::time::Duration::from_millis)
}

/// The width of standard error's terminal, or `None` when it is not a terminal (then
/// nothing is drawn).
fn stderr_width() -> Option<u16> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    Some(terminal_size::terminal_size_of(std::io::stderr()).map_or(80, |(w, _)| w.0))
}

/// The widest [`indicatif::HumanBytes`] (`1023.99 KiB`) and the widest rate of them.
const BYTES_WIDTH: usize = 11;
const RATE_WIDTH: usize = BYTES_WIDTH + 2;
/// The widest short duration (`{eta}`, `{elapsed}`: `59m`, `23h`, `100y`).
const DURATION_WIDTH: usize = 5;

/// The first of `templates` (each with the most columns it can take) that fits a terminal
/// `width` columns wide, its last column left free: a line as wide as the terminal wraps on
/// some, and the next draw starts a line lower. (indicatif fills the rest of the line with
/// spaces, to clear what was there.)
fn fitting(width: u16, templates: Vec<(String, usize)>) -> Option<String> {
    let room = usize::from(width).saturating_sub(1);
    templates
        .into_iter()
        .find(|(_, widest)| *widest <= room)
        .map(|(template, _)| template)
}

/// The template of a bar of bytes read for a terminal `width` columns wide, out of a total
/// if it is known: the bar takes the room the rest leaves, and the rate and time to go are
/// left off where there is too little; `None` if not even the bytes read fit.
pub fn bytes_bar_template(width: u16, total_known: bool) -> Option<String> {
    let room = usize::from(width).saturating_sub(1);
    let mut templates = Vec::new();
    if total_known {
        // "S 1023.99 KiB/1023.99 KiB 1023.99 KiB/s, eta 100y [" and "]".
        let text = 2 + 2 * BYTES_WIDTH + 1 + 1 + RATE_WIDTH + 6 + DURATION_WIDTH + 2;
        if room >= text + 1 + 10 {
            let bar = (room - text - 1).min(60);
            templates.push((
                format!(
                    "{{spinner}} {{bytes}}/{{total_bytes}} {{bytes_per_sec}}, eta {{eta}} [{{bar:{bar}}}]"
                ),
                text + 1 + bar,
            ));
        }
        let text = 2 + 2 * BYTES_WIDTH + 1 + 2;
        if room >= text + 1 + 5 {
            let bar = (room - text - 1).min(60);
            templates.push((
                format!("{{spinner}} {{bytes}}/{{total_bytes}} [{{bar:{bar}}}]"),
                text + 1 + bar,
            ));
        }
        templates.push((
            "{spinner} {bytes}/{total_bytes}".to_owned(),
            2 + 2 * BYTES_WIDTH + 1,
        ));
    } else {
        templates.push((
            "{spinner} {bytes} read ({bytes_per_sec}, {elapsed})".to_owned(),
            2 + BYTES_WIDTH + 7 + RATE_WIDTH + 2 + DURATION_WIDTH + 1,
        ));
    }
    templates.push(("{spinner} {bytes}".to_owned(), 2 + BYTES_WIDTH));
    fitting(width, templates)
}

/// Text for a template: braces would be read as placeholders.
fn template_text(text: &str) -> String {
    text.replace('{', "{{").replace('}', "}}")
}

/// The template of a spinner with the fixed message `message` (and, if it fits, `detail`
/// after it) and the time taken, for a terminal `width` columns wide.
pub fn spinner_template(width: u16, message: &str, detail: &str) -> Option<String> {
    let count = |text: &str| text.chars().count();
    let (message_text, detail_text) = (template_text(message), template_text(detail));
    fitting(
        width,
        vec![
            (
                format!("{{spinner}} {message_text}{detail_text} ({{elapsed}})"),
                2 + count(message) + count(detail) + 2 + DURATION_WIDTH + 1,
            ),
            (
                format!("{{spinner}} {message_text} ({{elapsed}})"),
                2 + count(message) + 2 + DURATION_WIDTH + 1,
            ),
            (format!("{{spinner}} {message_text}"), 2 + count(message)),
        ],
    )
}

/// A bar of `total` bytes as they are read (`adjudicate`, which streams), on standard error
/// when it is a terminal; a count without a bar when the total is not known (standard input
/// among the inputs).
pub fn bytes_bar(total: Option<u64>) -> Option<Progress> {
    let template = bytes_bar_template(stderr_width()?, total.is_some())?;
    let bar = match total {
        Some(total) => indicatif::ProgressBar::new(total),
        None => indicatif::ProgressBar::no_length(),
    };
    Some(Progress::start(bar, &template, false))
}

/// A spinner while a command that keeps every case (`validate`, `explain`, `check`,
/// `reorder`) works through `files` files of `bytes` bytes: it names the command and the
/// input's size and shows the time taken.
pub fn spinner(command: &str, files: usize, bytes: u64) -> Option<Progress> {
    let width = stderr_width()?;
    let detail = format!(
        ": {files} file{} ({})",
        if files == 1 { "" } else { "s" },
        indicatif::HumanBytes(bytes)
    );
    let template = spinner_template(width, command, &detail)?;
    Some(Progress::start(
        indicatif::ProgressBar::new_spinner(),
        &template,
        true,
    ))
}

/// A spinner counting the bytes a command writes (`generate`); feed it with
/// [`indicatif::ProgressBar::wrap_write`] on [`Progress::bar`].
pub fn bytes_spinner(message: &str) -> Option<Progress> {
    let width = stderr_width()?;
    let text = template_text(message);
    let count = message.chars().count();
    let template = fitting(
        width,
        vec![
            (
                format!("{{spinner}} {text}: {{bytes}} ({{bytes_per_sec}}, {{elapsed}})"),
                2 + count + 2 + BYTES_WIDTH + 2 + RATE_WIDTH + 2 + DURATION_WIDTH + 1,
            ),
            (
                format!("{{spinner}} {text}: {{bytes}}"),
                2 + count + 2 + BYTES_WIDTH,
            ),
            ("{spinner} {bytes}".to_owned(), 2 + BYTES_WIDTH),
        ],
    )?;
    Some(Progress::start(
        indicatif::ProgressBar::new_spinner(),
        &template,
        true,
    ))
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
    fn wrap_breaks_at_spaces_only_with_a_hanging_indent() {
        let text = "examples/lab/submissions/ben.csv:4: reason: cancel_acknowledged_no_result is \
                    wrong, and a_word_far_longer_than_the_whole_line_can_hold stays whole";
        for width in [10, 20, 40, 60, 80] {
            let wrapped = wrap(text, width, "  ");
            // Nothing but spaces is taken out or put in: the words, in order.
            let words: Vec<&str> = wrapped.split_whitespace().collect();
            assert_eq!(words, text.split_whitespace().collect::<Vec<_>>());
            for (index, line) in wrapped.lines().enumerate() {
                assert!(
                    display_width(line) <= width || !line.trim().contains(' '),
                    "{width}: {line:?}"
                );
                assert_eq!(index > 0, line.starts_with("  "), "{width}: {line:?}");
            }
        }
        assert_eq!(wrap("a bb ccc dddd", 6, "  "), "a bb\n  ccc\n  dddd");
        // Short lines, line breaks and leading spaces are kept.
        assert_eq!(wrap("  one\ntwo", 80, "    "), "  one\ntwo");
        assert_eq!(wrap("  aaa bbb", 7, "    "), "  aaa\n    bbb");
        // Display columns, not bytes: a wide character takes two.
        assert_eq!(wrap("日本 語", 5, ""), "日本\n語");
        assert_eq!(display_width("Siân"), 4);
    }

    #[test]
    fn a_report_line_continues_under_its_value() {
        assert_eq!(hanging_indent("    claims    lease L-2, generation 1"), 14);
        assert_eq!(
            hanging_indent("    decision  EXPIRED: decision table row 4"),
            14
        );
        assert_eq!(hanging_indent("  line 9: offer at 2026-01-01T10:00:00Z"), 4);
        assert_eq!(
            hanging_indent("cases.csv:3: decision: EXPIRD is not a code"),
            2
        );
        assert_eq!(hanging_indent("  ben.csv:4: case_id: duplicated"), 4);
        use std::io::Write;
        let mut out = WrapLines::new(Vec::new(), 20);
        out.write_all(b"    claims    lease L-2, generation 1\nshort\n")
            .unwrap();
        out.write_all(b"no end").unwrap();
        let text = String::from_utf8(out.finish().unwrap()).unwrap();
        assert_eq!(
            text,
            "    claims    lease\n              L-2,\n              generation\n              1\nshort\nno end"
        );
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

    /// The widest line `template` can draw: each field at its widest.
    fn widest(template: &str) -> usize {
        let mut line = template.to_owned();
        for (field, text) in [
            ("{spinner}", "S".to_owned()),
            ("{bytes}", "X".repeat(BYTES_WIDTH)),
            ("{total_bytes}", "X".repeat(BYTES_WIDTH)),
            ("{bytes_per_sec}", "X".repeat(RATE_WIDTH)),
            ("{eta}", "X".repeat(DURATION_WIDTH)),
            ("{elapsed}", "X".repeat(DURATION_WIDTH)),
        ] {
            line = line.replace(field, &text);
        }
        if let Some(start) = line.find("{bar:") {
            let end = start + line[start..].find('}').unwrap();
            let n: usize = line[start + 5..end].parse().unwrap();
            line.replace_range(start..=end, &"=".repeat(n));
        }
        line.replace("{{", "{").replace("}}", "}").chars().count()
    }

    #[test]
    fn what_is_drawn_fits_the_terminal_less_its_last_column() {
        for width in 0..=300u16 {
            for known in [true, false] {
                if let Some(template) = bytes_bar_template(width, known) {
                    assert!(
                        widest(&template) < usize::from(width),
                        "{width}: {template}"
                    );
                    assert!(indicatif::ProgressStyle::with_template(&template).is_ok());
                }
            }
            let detail = ": 12 files (1023.99 MiB)";
            if let Some(template) = spinner_template(width, "validate", detail) {
                assert!(
                    widest(&template) < usize::from(width),
                    "{width}: {template}"
                );
            }
        }
        // Everything on an 80-column terminal; nothing on a tiny one.
        let eighty = bytes_bar_template(80, true).unwrap();
        assert!(
            eighty.contains("eta") && eighty.contains("{bar:"),
            "{eighty}"
        );
        assert_eq!(bytes_bar_template(12, true), None);
        assert_eq!(
            spinner_template(80, "check", ": 1 file (2 B)").unwrap(),
            "{spinner} check: 1 file (2 B) ({elapsed})"
        );
        assert_eq!(
            spinner_template(20, "check", ": 1 file (1023.99 MiB)").unwrap(),
            "{spinner} check ({elapsed})"
        );
        // Braces in a message are text, not placeholders.
        assert_eq!(
            spinner_template(80, "{msg}", "").unwrap(),
            "{spinner} {{msg}} ({elapsed})"
        );
    }

    #[test]
    fn progress_is_drawn_only_once_the_delay_has_passed_and_shows_the_bytes_read() {
        use std::sync::atomic::Ordering;
        // A bar that ends before the delay (a day) is never given standard error to draw
        // on; one whose delay (none) has passed is. (Under cargo test standard error is no
        // terminal, so nothing shows either way.)
        let day = std::time::Duration::from_secs(86_400);
        let quick = Progress::start_after(indicatif::ProgressBar::new(10), "{bytes}", false, day);
        let shown = std::sync::Arc::clone(&quick.shown);
        quick.finish_and_clear();
        assert!(
            !shown.load(Ordering::SeqCst),
            "ended before the delay: never drawn"
        );
        let slow = Progress::start_after(
            indicatif::ProgressBar::new(10),
            "{bytes}",
            true,
            std::time::Duration::ZERO,
        );
        let shown = std::sync::Arc::clone(&slow.shown);
        // Shown as soon as the thread that reveals it runs: waited for, not for a while.
        let waited = std::time::Instant::now();
        while !shown.load(Ordering::SeqCst) {
            assert!(
                waited.elapsed() < std::time::Duration::from_secs(60),
                "still working after the delay: drawn"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        // The bytes the work counts are what the bar shows.
        slow.bytes_read().fetch_add(1234, Ordering::Relaxed);
        while slow.bar().position() != 1234 {
            assert!(waited.elapsed() < std::time::Duration::from_secs(60));
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        slow.finish_and_clear();
    }
}
