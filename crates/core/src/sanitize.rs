//! Text from input (a case file, a submission, a file name) made inert wherever people open
//! what leasejudge writes. Each rule is written once, here, and every writer uses it (the
//! characters unsafe to show and the spreadsheet cell are [`crate::cell`]'s, below the matrix
//! that writes its cells by them, and re-exported here):
//!
//! - **Read by a person** (a terminal, a CI log, a report): [`escape_controls`] shows every
//!   control, invisible, bidirectional and line-separating character as `\u{200b}`, one for
//!   one (a `\` that would start such an escape is itself `\u{5c}`), so two different names
//!   never look the same and nothing moves the cursor or starts a line.
//! - **A CI log**: GitHub's runner runs a line as a workflow command when, after leading
//!   whitespace, it starts with `::`, or when it holds `##[` anywhere (actions/runner,
//!   `src/Runner.Common/ActionCommand.cs`, `TryParseV2` and `TryParse`, on every line of
//!   standard output and standard error, `src/Runner.Worker/Handlers/OutputManager.cs`). Its
//!   matching is culture-sensitive, which skips ignorable characters (controls, zero-width
//!   characters), so these are skipped here too. [`CommandGuard`] finds both and escapes the
//!   character that completes them (the second `:`, the `[`): in text by
//!   [`escape_controls`], in a whole stream by [`InertWriter`], in the form of its format.
//! - **A spreadsheet**: a cell that starts with `= + - @` (after the whitespace a spreadsheet
//!   trims), a tab, a carriage return or a NUL is a formula to it (OWASP's CSV injection).
//!   [`spreadsheet_cell`] writes such a value with a `'` before it, reversibly:
//!   [`spreadsheet_value`] gives the value back, so a matrix or a template written by
//!   leasejudge reads back unchanged.
//! - **Markdown**: [`escape_markdown`] backslash-escapes what CommonMark and GFM could render,
//!   so no input is a link, an image, emphasis, code, HTML, an entity, an autolink or a table
//!   cell's end.
//!
//! A case file's text cannot be carried inertly in CSV when it holds a workflow command in its
//! middle; [`workflow_command_in`] finds it, and case files are refused with it (docs/safety.md).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};

use crate::cell::is_ignorable;
pub use crate::cell::{is_unsafe_char, spreadsheet_cell, spreadsheet_value};
use runs::{is_ordinary_ascii, may_hold_command, printable_run, space_run};

/// `text`, a value from input, for a person to read: every unsafe character
/// ([`is_unsafe_char`]) written as `\u{hex}`, a `\` that would start such an escape as
/// `\u{5c}` (so the escaping is one for one: two values never look the same), and no
/// workflow command in it (a leading `::` and `##[` anywhere escaped: the value may start a
/// line). Borrowed when nothing changes.
///
/// ```
/// use leasejudge_core::sanitize::escape_controls;
/// assert_eq!(escape_controls("case\u{1b}[31m-1\n"), "case\\u{1b}[31m-1\\u{a}");
/// assert_eq!(escape_controls("ada\u{200b}.csv"), "ada\\u{200b}.csv");
/// assert_eq!(escape_controls("ada\\u{200b}.csv"), "ada\\u{5c}u{200b}.csv");
/// assert_eq!(escape_controls("a##[add-mask]b"), "a##\\u{5b}add-mask]b");
/// assert_eq!(escape_controls("::error::x"), ":\\u{3a}error::x");
/// assert_eq!(escape_controls("plain é"), "plain é");
/// ```
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    escape(text, false, true)
}

/// A message of one line made of the tool's words and parts from input (each already given
/// by [`escape_controls`] or quoted): what is still unsafe shown as `\u{hex}` (a line break
/// too), and no workflow command in it. A `\` is left as it is, so parts already escaped are
/// not escaped twice.
pub fn escape_message(text: &str) -> Cow<'_, str> {
    escape(text, false, false)
}

/// [`escape_message`] for a message of several lines: line breaks (`\n`) stay, and each line
/// is guarded as a line of its own.
pub fn escape_controls_keep_lines(text: &str) -> Cow<'_, str> {
    escape(text, true, false)
}

/// `value` in double quotes as a message quotes it, as Rust's `{:?}` does (`\"`, `\\`,
/// `\n`, `\t`, `\r`, `\0`) but with every unsafe character as `\u{hex}`, and no workflow
/// command in it.
///
/// ```
/// use leasejudge_core::sanitize::quote;
/// assert_eq!(quote("yesterday"), "\"yesterday\"");
/// assert_eq!(quote("a\"b\\\n\u{200b}\u{a0}##[x"), "\"a\\\"b\\\\\\n\\u{200b}\\u{a0}##\\u{5b}x\"");
/// ```
pub fn quote(value: &str) -> String {
    let mut quoted = String::with_capacity(value.len() + 2);
    quoted.push('"');
    for c in value.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\t' => quoted.push_str("\\t"),
            '\r' => quoted.push_str("\\r"),
            '\0' => quoted.push_str("\\0"),
            c if is_unsafe_char(c) => {
                let _ = write!(quoted, "\\u{{{:x}}}", u32::from(c));
            }
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    guarded(&quoted).unwrap_or(quoted)
}

/// Whether `escape` would leave `text` as it is: no unsafe character, no `\`, `#` or `:`.
fn plainly_safe(text: &str) -> bool {
    text.bytes()
        .all(|b| !matches!(b, b'\\' | b'#' | b':' | 0..=0x1f | 0x7f..=0xff))
        || !text
            .chars()
            .any(|c| is_unsafe_char(c) || matches!(c, '\\' | '#' | ':'))
}

fn escape(text: &str, keep_lines: bool, one_for_one: bool) -> Cow<'_, str> {
    if plainly_safe(text) {
        return Cow::Borrowed(text);
    }
    let mut visible = String::with_capacity(text.len() + 8);
    for (at, c) in text.char_indices() {
        if keep_lines && c == '\n' {
            visible.push('\n');
        } else if is_unsafe_char(c) {
            let _ = write!(visible, "\\u{{{:x}}}", u32::from(c));
        } else if one_for_one && c == '\\' && text[at + 1..].starts_with("u{") {
            visible.push_str("\\u{5c}");
        } else {
            visible.push(c);
        }
    }
    match guarded(&visible) {
        Some(out) => Cow::Owned(out),
        None if visible == text => Cow::Borrowed(text),
        None => Cow::Owned(visible),
    }
}

/// `text` with the character that completes each workflow command escaped as `\u{hex}`, or
/// `None` if it has none. The text starts a line.
fn guarded(text: &str) -> Option<String> {
    let mut guard = CommandGuard::new(false);
    let mut out: Option<String> = None;
    for (at, c) in text.char_indices() {
        let escape = guard.step(c).is_some();
        match (&mut out, escape) {
            (None, false) => {}
            (None, true) => {
                let mut started = String::with_capacity(text.len() + 8);
                started.push_str(&text[..at]);
                let _ = write!(started, "\\u{{{:x}}}", u32::from(c));
                out = Some(started);
            }
            (Some(out), true) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            (Some(out), false) => out.push(c),
        }
    }
    out
}

/// Finds what would make a line a GitHub Actions workflow command, a character at a time:
/// `::` after a line's leading whitespace, or `##[` anywhere, ignorable characters skipped
/// between them as the runner skips them. [`CommandGuard::step`] says which character to
/// escape: the second `:` or the `[`, which completes the command.
#[derive(Clone, Debug)]
pub struct CommandGuard {
    /// Only whitespace and ignorable characters since the line began.
    line_start: bool,
    /// A `:` just ended the line's leading whitespace.
    colon: bool,
    /// The `#` just before (0, 1, or 2 and more).
    hashes: u8,
    /// Lines starting with `::` are the writer's own (GitHub workflow commands): only `##[`
    /// is guarded.
    commands_allowed: bool,
}

impl CommandGuard {
    /// A guard at the start of a line; `commands_allowed` for a stream of the writer's own
    /// workflow commands, whose input parts are escaped by the command rules.
    pub fn new(commands_allowed: bool) -> CommandGuard {
        CommandGuard {
            line_start: true,
            colon: false,
            hashes: 0,
            commands_allowed,
        }
    }

    /// Whether the guard is where an ordinary character leaves it (not at a line's start,
    /// after no `:` or `#`): from here every printable ASCII character but `#`, the space
    /// included, leaves it here, and none is escaped ([`InertFilter`]'s fast path).
    fn is_ordinary(&self) -> bool {
        !self.line_start && !self.colon && self.hashes == 0
    }

    /// Takes an ordinary character: neither whitespace, ignorable, `:`, `#` nor `[`.
    fn ordinary(&mut self) {
        self.line_start = false;
        self.colon = false;
        self.hashes = 0;
    }

    /// Takes the next character: `Some(c)` when it must be escaped.
    pub fn step(&mut self, c: char) -> Option<char> {
        match c {
            '\n' | '\r' => {
                self.line_start = true;
                self.colon = false;
                self.hashes = 0;
                None
            }
            c if is_ignorable(c) => None,
            c if self.line_start && c.is_whitespace() => None,
            ':' if self.colon => {
                self.colon = false;
                self.hashes = 0;
                Some(c)
            }
            ':' if self.line_start && !self.commands_allowed => {
                self.line_start = false;
                self.colon = true;
                self.hashes = 0;
                None
            }
            '[' if self.hashes >= 2 => {
                self.hashes = 0;
                self.line_start = false;
                self.colon = false;
                Some(c)
            }
            c => {
                self.hashes = if c == '#' {
                    (self.hashes + 1).min(2)
                } else {
                    0
                };
                self.line_start = false;
                self.colon = false;
                None
            }
        }
    }
}

/// Whether `text` holds a workflow command that no CSV quoting can make inert: `##[`
/// anywhere, or a line break followed (after whitespace) by `::`. A value that starts with
/// `::` is not one: [`spreadsheet_cell`] writes it inertly. Ignorable characters are skipped
/// as the runner skips them. Returns what was found, for the message.
// Inline: asked of every case-file text on every row, and nearly always answered by the
// prefilter.
#[inline(always)]
pub fn workflow_command_in(text: &str) -> Option<&'static str> {
    if !may_hold_command(text.as_bytes()) {
        return None;
    }
    command_in(text)
}

/// [`workflow_command_in`] of a text that may hold one, a character at a time.
#[inline(never)]
fn command_in(text: &str) -> Option<&'static str> {
    let mut guard = CommandGuard::new(false);
    // The value's own start is not a line start: a leading `::` is quoted, not refused.
    guard.line_start = false;
    text.chars().find_map(|c| match guard.step(c) {
        Some('[') => Some("##["),
        Some(_) => Some("::"),
        None => None,
    })
}

/// What an output holds, for [`InertWriter`]: how a character is escaped in it, and which
/// rules apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// Text for people (tables, messages, Markdown): `\u{5b}`; controls are the writer's own
    /// (colours) and pass.
    Text,
    /// GitHub workflow commands: as text, but lines starting with `::` are the writer's.
    WorkflowCommands,
    /// JSON: `\u005b` (only ever inside a string); every unsafe character but the layout's
    /// whitespace escaped the same way, so a terminal shows the document as it is.
    Json,
    /// XML or HTML: `&#91;`; unsafe characters (beyond C0, which XML cannot hold) as `&#x…;`.
    Markup,
    /// CSV for a terminal: every unsafe character but the line feed as `\u{1b}`. (CSV to a
    /// file or a pipe is not filtered: it is data, kept exact; see [`spreadsheet_cell`].)
    CsvOnTerminal,
}

impl Syntax {
    fn write_escaped(self, c: char, out: &mut Vec<u8>) {
        let code = u32::from(c);
        match self {
            Syntax::Text | Syntax::WorkflowCommands | Syntax::CsvOnTerminal => {
                let _ = write!(out, "\\u{{{code:x}}}");
            }
            Syntax::Json => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            Syntax::Markup => {
                if matches!(c, '[' | ':') {
                    let _ = write!(out, "&#{code};");
                } else {
                    let _ = write!(out, "&#x{code:x};");
                }
            }
        }
    }

    /// Whether an unsafe character the writer itself did not escape is escaped in the stream.
    fn escapes_unsafe(self, c: char) -> bool {
        match self {
            Syntax::Text | Syntax::WorkflowCommands => false,
            Syntax::Json => !matches!(c, '\n' | '\r' | '\t') && is_unsafe_char(c),
            Syntax::Markup => !c.is_ascii() && is_unsafe_char(c),
            Syntax::CsvOnTerminal => c != '\n' && is_unsafe_char(c),
        }
    }
}

/// Makes a stream inert as it passes ([`Syntax`]): no line of it is a workflow command, and
/// in JSON, markup and CSV on a terminal no unsafe character passes raw. Bytes that are not
/// UTF-8 pass as they are. The writer it filters into is given to each call, so that an owner
/// of several kinds of writer (the command's output) keeps one; [`InertWriter`] is the
/// usual wrapper.
#[derive(Debug)]
pub struct InertFilter {
    syntax: Syntax,
    guard: CommandGuard,
    /// The start of a character cut by the end of the last write.
    carry: Vec<u8>,
    scratch: Vec<u8>,
}

impl InertFilter {
    /// A filter by the rules of `syntax`, at the start of a line.
    pub fn new(syntax: Syntax) -> InertFilter {
        InertFilter {
            syntax,
            guard: CommandGuard::new(syntax == Syntax::WorkflowCommands),
            carry: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Filters `buf` into `out`. A character cut by the end of `buf` is held until the next
    /// call, or [`InertFilter::end`]. What passes as it is goes to `out` from `buf` itself, in
    /// runs between the characters escaped (not copied first: an explanation of hundreds of
    /// megabytes passes here whole).
    pub fn write_through(&mut self, out: &mut impl Write, buf: &[u8]) -> io::Result<()> {
        if self.carry.is_empty() {
            self.filter(buf, out)
        } else {
            // A character was cut by the last write (rare: writers write whole strings, a
            // copy of a file in blocks): joined with what follows.
            let mut joined = std::mem::take(&mut self.carry);
            joined.extend_from_slice(buf);
            self.filter(&joined, out)
        }
    }

    /// Writes out a character held back by the last write (as it is: the stream ended in it).
    pub fn end(&mut self, out: &mut impl Write) -> io::Result<()> {
        if !self.carry.is_empty() {
            out.write_all(&self.carry)?;
            self.carry.clear();
        }
        Ok(())
    }

    /// Filters `buf` into `out`, holding back a character cut at its end.
    fn filter(&mut self, buf: &[u8], out: &mut impl Write) -> io::Result<()> {
        let syntax = self.syntax;
        let mut plain_from = 0;
        let mut at = 0;
        while at < buf.len() {
            // In the middle of a line nothing printable but a `#` matters (a `:` or a `[`
            // completes a command only at a line's start or after `##`): such a run passes
            // eight bytes at a time.
            if self.guard.is_ordinary() {
                let run = printable_run(&buf[at..]);
                if run > 0 {
                    at += run;
                    continue;
                }
            }
            let byte = buf[at];
            if byte == b'\n' {
                // No syntax escapes a line end, and it starts a line (`CommandGuard::step`);
                // its indentation leaves the line at its start and an ordinary byte after it
                // ends that start, so pretty JSON's line start is taken at once.
                self.guard.step('\n');
                at += 1;
                at += space_run(&buf[at..]);
                if buf.get(at).copied().is_some_and(is_ordinary_ascii) {
                    self.guard.ordinary();
                    at += 1;
                }
                continue;
            }
            // A byte that neither the guard nor the escapes care about (ASCII but whitespace,
            // controls, `#`, `:` and `[`) ends a line's start; a space only ends it.
            if is_ordinary_ascii(byte) {
                // What follows it passes by the run above.
                self.guard.ordinary();
                at += 1;
                continue;
            }
            if byte == b' ' {
                // A run of spaces at once (pretty JSON's indentation): each does what the
                // first does.
                let run = space_run(&buf[at..]);
                if !self.guard.line_start {
                    self.guard.ordinary();
                }
                at += run;
                continue;
            }
            let width = match byte {
                0..=0x7f => 1,
                0xc2..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf4 => 4,
                _ => 0,
            };
            if width > 1 && at + width > buf.len() {
                self.carry.extend_from_slice(&buf[at..]);
                return out.write_all(&buf[plain_from..at]);
            }
            let c = match width {
                0 => None,
                // ASCII is its own character: no UTF-8 decoding for a line end or a colon.
                1 => Some(char::from(byte)),
                _ => std::str::from_utf8(&buf[at..at + width])
                    .ok()
                    .and_then(|s| s.chars().next()),
            };
            let Some(c) = c else {
                // Not UTF-8: the byte passes, an ordinary character.
                self.guard.ordinary();
                at += 1;
                continue;
            };
            if self.guard.step(c).is_some() || syntax.escapes_unsafe(c) {
                out.write_all(&buf[plain_from..at])?;
                self.scratch.clear();
                syntax.write_escaped(c, &mut self.scratch);
                out.write_all(&self.scratch)?;
                plain_from = at + width;
            }
            at += width;
        }
        out.write_all(&buf[plain_from..])
    }
}

/// A writer that makes what passes through it inert ([`InertFilter`]). Call
/// [`InertWriter::finish`] at the end: a character cut by the end of a write is held until
/// the next.
pub struct InertWriter<W: Write> {
    inner: W,
    filter: InertFilter,
}

impl<W: Write> InertWriter<W> {
    /// Filters what is written to `inner` by the rules of `syntax`.
    pub fn new(inner: W, syntax: Syntax) -> InertWriter<W> {
        InertWriter {
            inner,
            filter: InertFilter::new(syntax),
        }
    }

    /// Writes out a character held back, and returns the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.filter.end(&mut self.inner)?;
        Ok(self.inner)
    }
}

impl<W: Write> Write for InertWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.filter.write_through(&mut self.inner, buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.filter.write_through(&mut self.inner, buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// `text` for a CSV cell of a report that nothing reads back (an audit, a gradebook, an item
/// analysis): shown as a person reads it ([`escape_controls`]) and written as
/// [`spreadsheet_cell`] writes it.
pub fn report_cell(text: &str) -> Cow<'_, str> {
    match escape_controls(text) {
        Cow::Borrowed(text) => spreadsheet_cell(text),
        Cow::Owned(text) => Cow::Owned(spreadsheet_cell(&text).into_owned()),
    }
}

/// `text` for Markdown, inline: shown as a person reads it ([`escape_message`]: a line break
/// too; a name whose escaping must be one for one is given by [`escape_controls`] first),
/// then backslash-escaped (CommonMark allows it for every ASCII punctuation character) where
/// a character could make it more than text under CommonMark and GFM, and GitHub's math:
/// `` \ ` `` (code), `*`, `~` and `_` but inside a word (emphasis, strikethrough), `[ ]`
/// (links, images, footnotes), `< > &` (HTML, autolinks, entities), `|` (a table cell's
/// end), `$` (math), `@` (e-mail autolinks), `:` before `/` and `.` after `www` (GFM's URL and
/// `www.` autolinks); and at its start any punctuation, or the `.` or `)` after leading
/// digits, which could begin a block (a list, a heading, a quote, a rule) in a list item.
///
/// ```
/// use leasejudge_core::sanitize::escape_markdown;
/// assert_eq!(
///     escape_markdown("![x](https://t.example/p.png)"),
///     "\\!\\[x\\](https\\://t.example/p.png)"
/// );
/// assert_eq!(escape_markdown("www.evil.example a@b.c"), "www\\.evil.example a\\@b.c");
/// assert_eq!(escape_markdown("- probe-1 (x): 25.0%"), "\\- probe-1 (x): 25.0%");
/// assert_eq!(escape_markdown("expired_without_result _x_"), "expired_without_result \\_x\\_");
/// ```
pub fn escape_markdown(text: &str) -> String {
    let visible = escape_message(text);
    let mut out = String::with_capacity(visible.len() + 8);
    let mut leading_digits = true;
    let mut previous: Option<char> = None;
    let mut chars = visible.chars().peekable();
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        let escape = match c {
            '\\' | '`' | '*' | '~' | '[' | ']' | '<' | '>' | '&' | '|' | '$' | '@' => true,
            '_' => {
                !(previous.is_some_and(char::is_alphanumeric)
                    && next.is_some_and(char::is_alphanumeric))
            }
            ':' => next == Some('/'),
            '.' if leading_digits && previous.is_some() => true,
            '.' => out.len() >= 3 && out[out.len() - 3..].eq_ignore_ascii_case("www"),
            ')' => leading_digits && previous.is_some(),
            c => previous.is_none() && c.is_ascii_punctuation(),
        };
        leading_digits = leading_digits && c.is_ascii_digit();
        if escape {
            out.push('\\');
        }
        out.push(c);
        previous = Some(c);
    }
    out
}

mod runs;

#[cfg(test)]
mod filter_runs;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_characters_are_shown_one_for_one() {
        assert_eq!(
            escape_controls("a\u{1b}b\tc\u{7f}\u{9b}"),
            "a\\u{1b}b\\u{9}c\\u{7f}\\u{9b}"
        );
        assert_eq!(escape_controls("x\u{202e}y"), "x\\u{202e}y");
        for c in [
            '\u{200b}',
            '\u{2028}',
            '\u{2029}',
            '\u{feff}',
            '\u{a0}',
            '\u{e0041}',
        ] {
            assert_eq!(
                escape_controls(&format!("a{c}")),
                format!("a\\u{{{:x}}}", u32::from(c))
            );
        }
        assert_eq!(escape_controls_keep_lines("a\nb\rc"), "a\nb\\u{d}c");
        assert!(matches!(
            escape_controls("ünïcödé ✓ C:\\data"),
            Cow::Borrowed(_)
        ));
        // One for one: a literal escape is told from the character it names.
        assert_ne!(escape_controls("a\u{200b}"), escape_controls("a\\u{200b}"));
    }

    #[test]
    fn workflow_commands_are_disarmed_in_text() {
        for (text, shown) in [
            ("::error::x", ":\\u{3a}error::x"),
            ("  \u{a0}::x::y", "  \\u{a0}::x::y"),
            ("  ::x::y", "  :\\u{3a}x::y"),
            ("see ##[add-mask]x", "see ##\\u{5b}add-mask]x"),
            ("#\u{200b}#[x]", "#\\u{200b}#[x]"),
            ("a: :b", "a: :b"),
            ("case ::x", "case ::x"),
        ] {
            assert_eq!(escape_controls(text), shown, "{text:?}");
        }
        assert_eq!(
            escape_controls_keep_lines("ok\n  ::stop-commands::t\n##[error]x"),
            "ok\n  :\\u{3a}stop-commands::t\n##\\u{5b}error]x"
        );
    }

    fn filtered(syntax: Syntax, chunks: &[&[u8]]) -> Vec<u8> {
        let mut writer = InertWriter::new(Vec::new(), syntax);
        for chunk in chunks {
            writer.write_all(chunk).unwrap();
        }
        writer.finish().unwrap()
    }

    #[test]
    fn a_stream_is_disarmed_however_it_is_cut() {
        let text = "a ##[add-mask]x\n\t::error::y\n\u{200b}::z::w é\u{202e}\n::";
        let whole = filtered(Syntax::Text, &[text.as_bytes()]);
        assert_eq!(
            String::from_utf8(whole.clone()).unwrap(),
            "a ##\\u{5b}add-mask]x\n\t:\\u{3a}error::y\n\u{200b}:\\u{3a}z::w é\u{202e}\n:\\u{3a}"
        );
        let bytes = text.as_bytes();
        for cut in 0..=bytes.len() {
            for second in cut..=bytes.len() {
                let parts = [&bytes[..cut], &bytes[cut..second], &bytes[second..]];
                assert_eq!(
                    filtered(Syntax::Text, &parts),
                    whole,
                    "cut at {cut}, {second}"
                );
            }
        }
    }

    #[test]
    fn each_syntax_escapes_in_its_own_form() {
        let json = filtered(
            Syntax::Json,
            &["{\"a\": \"##[x\u{200b}\u{9b}\"}\n".as_bytes()],
        );
        assert_eq!(
            String::from_utf8(json).unwrap(),
            "{\"a\": \"##\\u005bx\\u200b\\u009b\"}\n"
        );
        let value: serde_json::Value =
            serde_json::from_slice(&filtered(Syntax::Json, &[b"\"##[\xf0\x9f\x98\x80\""])).unwrap();
        assert_eq!(value, "##[\u{1f600}");
        let xml = filtered(Syntax::Markup, &["<a>##[x\n::y\u{202e}</a>".as_bytes()]);
        assert_eq!(
            String::from_utf8(xml).unwrap(),
            "<a>##&#91;x\n:&#58;y&#x202e;</a>"
        );
        let commands = filtered(
            Syntax::WorkflowCommands,
            &[b"::error title=x::a ##[b\n::notice::c\n"],
        );
        assert_eq!(
            String::from_utf8(commands).unwrap(),
            "::error title=x::a ##\\u{5b}b\n::notice::c\n"
        );
        let csv = filtered(Syntax::CsvOnTerminal, &["a\u{1b}]0;t\u{7},b\n".as_bytes()]);
        assert_eq!(String::from_utf8(csv).unwrap(), "a\\u{1b}]0;t\\u{7},b\n");
        // Not UTF-8: passes.
        assert_eq!(filtered(Syntax::Text, &[b"a\xffb"]), b"a\xffb");
    }

    #[test]
    fn commands_that_csv_cannot_carry_are_found() {
        assert_eq!(workflow_command_in("a##[b"), Some("##["));
        assert_eq!(workflow_command_in("a#\u{200b}#[b"), Some("##["));
        assert_eq!(workflow_command_in("a\n  ::b"), Some("::"));
        assert_eq!(workflow_command_in("a\r::b"), Some("::"));
        assert_eq!(workflow_command_in("::b"), None);
        assert_eq!(workflow_command_in("a # [b ::c"), None);
        assert_eq!(workflow_command_in("probe-1"), None);
    }

    #[test]
    fn markdown_escapes_what_could_render() {
        assert_eq!(
            escape_markdown("a_b *c* `d` <e> &amp; | ~f~ $g$ _h_ @i https://j www.k"),
            "a_b \\*c\\* \\`d\\` \\<e\\> \\&amp; \\| \\~f\\~ \\$g\\$ \\_h\\_ \\@i https\\://j www\\.k"
        );
        assert_eq!(escape_markdown("zw\u{200b}"), "zw\\\\u{200b}");
        assert_eq!(escape_markdown("Ünïcode 42"), "Ünïcode 42");
        for start in [
            "- x", "+ x", "> x", "= x", "1. x", "12) x", "# x", "* x", "---",
        ] {
            let escaped = escape_markdown(start);
            assert!(escaped.contains('\\'), "{start:?}: {escaped:?}");
        }
        assert_eq!(
            escape_markdown("probe-1 (w-a), 3) x: 25.0% done."),
            "probe-1 (w-a), 3) x: 25.0% done."
        );
    }
}
