//! The two rules of inert text the evidence matrix writes its cells by, below it: which
//! characters are unsafe to show ([`is_unsafe_char`]), and a spreadsheet cell that runs
//! nothing ([`spreadsheet_cell`], read back by [`spreadsheet_value`]). They are
//! [`crate::sanitize`]'s, which builds every other rule on them and re-exports them; they live
//! here so that the matrix needs nothing above it.

use std::borrow::Cow;

/// Whether `c` must not reach a person as it is: a control character (C0, DEL, C1), any
/// whitespace but the space (line and paragraph separators, no-break and other wide spaces), or
/// an invisible formatting character (zero-width characters, bidirectional controls, the
/// soft hyphen, variation selectors, tags, fillers that draw nothing).
pub fn is_unsafe_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_control();
    }
    c.is_control() || c.is_whitespace() || is_invisible(c)
}

/// Characters that draw nothing (or reorder what is drawn), beyond controls and whitespace.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{ad}' | '\u{34f}' | '\u{61c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}'
        | '\u{180b}'..='\u{180f}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{206f}' | '\u{3164}' | '\u{fe00}'..='\u{fe0f}' | '\u{feff}'
        | '\u{ffa0}' | '\u{fff9}'..='\u{fffb}' | '\u{1bca0}'..='\u{1bca3}'
        | '\u{1d173}'..='\u{1d17a}' | '\u{e0000}'..='\u{e0fff}')
}

/// Whether the runner's culture-sensitive matching may skip `c`: an unsafe character that is
/// not whitespace (whitespace counts, and ends a `##` or `::`).
pub(crate) fn is_ignorable(c: char) -> bool {
    is_unsafe_char(c) && !c.is_whitespace()
}

/// Whether a spreadsheet takes `text`, starting a cell, as a formula, or a CI runner takes it,
/// starting a line, as a command: it starts with a tab, a carriage return or a NUL, or (after
/// whitespace and ignorable characters, which spreadsheets and the runner trim) with `=`, `+`,
/// `-`, `@` (or their full-width forms) that do not begin a plain number, or with `::`.
fn live_at_start(text: &str) -> bool {
    match text.chars().next() {
        None => return false,
        Some('\t' | '\r' | '\0') => return true,
        Some(_) => {}
    }
    let trimmed = text.trim_start_matches(|c: char| c.is_whitespace() || is_ignorable(c));
    let mut chars = trimmed.chars();
    match chars.next() {
        Some('=' | '@' | '\u{ff1d}' | '\u{ff20}' | '\u{ff0b}' | '\u{ff0d}') => true,
        // A sign alone, or before a plain number, is text or a number to every spreadsheet.
        Some('+' | '-') => !chars.as_str().is_empty() && !is_plain_number(chars.as_str()),
        Some(':') => chars
            .as_str()
            .trim_start_matches(is_ignorable)
            .starts_with(':'),
        _ => false,
    }
}

/// Digits, with at most one `.` between digits: what follows the sign of `-5` or `+0.25`,
/// which every spreadsheet reads as a number, never a formula.
fn is_plain_number(text: &str) -> bool {
    let mut parts = text.splitn(2, '.');
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    parts.next().is_some_and(digits) && parts.next().is_none_or(digits)
}

/// Whether `text` is `'` (one or more) before a live value: the form [`spreadsheet_cell`]
/// writes a live value in, so such text is itself written with one more `'`.
fn quoted_live(text: &str) -> bool {
    text.starts_with('\'') && live_at_start(text.trim_start_matches('\''))
}

/// `text` for a CSV cell: a value a spreadsheet or a CI runner would take as live
/// (`live_at_start`: a leading `= + - @`, tab, CR, NUL or `::`) gets a `'` before it, as
/// OWASP advises, and so does a value that already looks like one (`'=x` is written `''=x`).
/// [`spreadsheet_value`] undoes it exactly. Borrowed when nothing changes.
///
/// ```
/// use leasejudge_core::cell::{spreadsheet_cell, spreadsheet_value};
/// assert_eq!(spreadsheet_cell("=1+1"), "'=1+1");
/// assert_eq!(spreadsheet_cell("\t@SUM(A1)"), "'\t@SUM(A1)");
/// assert_eq!(spreadsheet_cell("-5"), "-5");
/// assert_eq!(spreadsheet_cell("'=x"), "''=x");
/// assert_eq!(spreadsheet_cell("it's"), "it's");
/// for value in ["=1+1", "'=x", "''=x", "-5", "-x", "'", "it's", " =x"] {
///     assert_eq!(spreadsheet_value(&spreadsheet_cell(value)), value);
/// }
/// ```
#[inline]
pub fn spreadsheet_cell(text: &str) -> Cow<'_, str> {
    // Most values (ids, holders, numbers) start with an ASCII letter or digit, which is
    // neither whitespace, ignorable, a formula's sign nor a quote: live by no rule.
    if text
        .as_bytes()
        .first()
        .is_some_and(u8::is_ascii_alphanumeric)
    {
        return Cow::Borrowed(text);
    }
    spreadsheet_cell_by_rules(text)
}

/// [`spreadsheet_cell`] by its rules alone, for any text.
fn spreadsheet_cell_by_rules(text: &str) -> Cow<'_, str> {
    if live_at_start(text) || quoted_live(text) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// A CSV or workbook cell's value as [`spreadsheet_cell`] wrote it: one `'` taken off a value
/// that it put there (before a live value, or before another such `'`); anything else as it is.
pub fn spreadsheet_value(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if live_at_start(rest) || quoted_live(rest) => rest,
        _ => cell,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreadsheet_cells_are_inert_and_read_back() {
        for live in [
            "=1+1", "+1+1", "-1+1", "@SUM(1)", "\t=1", "\r=1", "\0", " =1", "\u{a0}@x", "::x",
            " ::x", "＝1", "-5%", "=5", "--1", "-+1",
        ] {
            let cell = spreadsheet_cell(live);
            assert!(cell.starts_with('\''), "{live:?}");
            assert_eq!(spreadsheet_value(&cell), live);
        }
        for inert in [
            "5", "-5", "+0.25", "-", "+", "a=b", "'x", "it's", "", ":x", "x::",
        ] {
            assert_eq!(spreadsheet_cell(inert), inert);
            assert_eq!(spreadsheet_value(inert), inert);
        }
        for quoted in ["'=x", "''=x", "'''-y"] {
            assert_eq!(spreadsheet_value(&spreadsheet_cell(quoted)), quoted);
        }
    }

    proptest::proptest! {
        /// The shortcut for a value that starts with a letter or a digit gives what the rules
        /// give, whatever follows (formula signs, quotes, colons, controls, wide characters).
        #[test]
        fn a_cell_starting_with_a_letter_or_digit_is_what_the_rules_make_it(
            text in "[a-zA-Z0-9=+@:' \\t\\r\\u{0}\\u{a0}\\u{200b}\\u{ff1d}-]{0,8}"
        ) {
            proptest::prop_assert_eq!(spreadsheet_cell(&text), spreadsheet_cell_by_rules(&text));
        }
    }
}
