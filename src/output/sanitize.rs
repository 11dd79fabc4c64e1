//! Text from input made safe for a terminal or a line-oriented format: control characters
//! (and the Unicode bidirectional controls that can reorder what a terminal shows) are
//! escaped visibly, as `\u{1b}`, so a case id cannot move the cursor, change colours, start a
//! new line in a one-line-per-problem format or disguise itself.
//!
//! Formats with escaping rules of their own (CSV, JSON, XML, HTML) use those instead.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` must not reach a terminal as it is: a C0 or C1 control, DEL, or a bidirectional
/// formatting character (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every unsafe character written as `\u{hex}`; borrowed when there is none.
///
/// ```
/// use leasejudge::output::escape_controls;
/// assert_eq!(escape_controls("case\u{1b}[31m-1\n"), "case\\u{1b}[31m-1\\u{a}");
/// assert_eq!(escape_controls("plain é"), "plain é");
/// ```
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// [`escape_controls`], but line breaks (`\n`) stay: for a whole message of several lines
/// whose parts came from input.
pub fn escape_controls_keep_lines(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

fn escape(text: &str, keep_lines: bool) -> Cow<'_, str> {
    let unsafe_char = |c: char| is_unsafe_char(c) && !(keep_lines && c == '\n');
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_are_escaped_and_the_rest_kept() {
        assert_eq!(
            escape_controls("a\u{1b}b\tc\u{7f}\u{9b}"),
            "a\\u{1b}b\\u{9}c\\u{7f}\\u{9b}"
        );
        assert_eq!(escape_controls("x\u{202e}y"), "x\\u{202e}y");
        assert_eq!(escape_controls_keep_lines("a\nb\rc"), "a\nb\\u{d}c");
        assert!(matches!(escape_controls("ünïcödé ✓"), Cow::Borrowed(_)));
    }
}
