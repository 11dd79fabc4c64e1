//! Located input errors: `FILE:LINE: column: message (value)`, displayed with every part
//! that came from input made safe to show.

use crate::sanitize::{escape_controls, escape_message, quote};

/// The most of a value an error keeps (its length is kept too): an error per row quoting a
/// long value (a shared string a workbook's every row uses, say) would otherwise hold every
/// copy.
pub(super) const MAX_KEPT_VALUE_BYTES: usize = 4096;

/// What kind of problem an [`InputError`] is (rust-csv's `ErrorKind` is the model): set where
/// each error is made, so that a caller tells them apart by kind, never by the words of the
/// message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The input could not be read: it could not be opened, listed or read to its end (`cannot
    /// read: ...`, [`InputError::unreadable`]), a bound on what one read may hold included.
    Io,
    /// What the run keeps of the input in temporary files could not be kept: the machine's
    /// trouble, not the input's.
    Temp,
    /// Not text the reader takes: not UTF-8, a binary file where text was expected.
    Encoding,
    /// The format's grammar is broken: an unterminated quote, a row with more or fewer cells
    /// than the header, JSON or a workbook that does not parse, a shape that is not the
    /// format's.
    Syntax,
    /// The header (or a row's keys): a required column missing, two naming one field or
    /// column, a column that may not be there.
    Header,
    /// A value outside its grammar or its domain: a timestamp, an event, a number, a code, an
    /// id; a required value missing; text the outputs cannot carry inertly.
    Value,
    /// A rule across rows, cases or files broken: a case that does not start with an offer, a
    /// case id in two files or twice in one, a case one file has and the other lacks.
    Rule,
    /// A bound on what is kept or explored passed while the input itself was read (a case too
    /// long to explore, an entry too large to unpack).
    Limit,
    /// The file is of the other kind, told by its header: a case file given where a matrix
    /// goes (the key, a golden file, a learner's answers), or a matrix given as a case file.
    Swapped,
    /// A file refused for what it is, not what it holds: a link, a hard link, the key or
    /// another of the instructor's files, standard input where it cannot be read, a file that
    /// changed while it was read, an entry leading out of its folder.
    Refused,
    /// Something that must be there is not: no matrix in an upload, no submission for a
    /// learner, no case files in a directory, no sheet of that name, no case of that id.
    Missing,
    /// Not a problem of its own: the line that counts the problems not listed.
    Unlisted,
}

/// One problem in the input, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// What kind of problem it is.
    pub kind: ErrorKind,
    /// The file as named on the command line (`-` for standard input).
    pub file: String,
    /// The 1-based line (0 when the problem is about the whole file).
    pub line: u64,
    /// The column (a field's canonical name or the header as written), if the problem has one.
    pub column: Option<String>,
    /// What is wrong.
    pub message: String,
    /// The offending value, if there is one: its first `MAX_KEPT_VALUE_BYTES` (4 KiB) at most.
    pub value: Option<String>,
    /// The value's length in bytes, all of it.
    pub value_bytes: usize,
}

/// What [`InputError::unreadable`] puts before the cause.
const UNREADABLE: &str = "cannot read: ";

impl InputError {
    /// A problem of `kind` at `file:line`.
    pub fn new(kind: ErrorKind, file: &str, line: u64, message: impl Into<String>) -> InputError {
        InputError {
            kind,
            file: file.to_owned(),
            line,
            column: None,
            message: message.into(),
            value: None,
            value_bytes: 0,
        }
    }

    /// `file` could not be read at `line` (0: at all), for `cause`: `cannot read: CAUSE`, of
    /// kind [`ErrorKind::Io`].
    pub fn unreadable(file: &str, line: u64, cause: impl std::fmt::Display) -> InputError {
        InputError::new(ErrorKind::Io, file, line, format!("{UNREADABLE}{cause}"))
    }

    /// Why an input could not be read, as [`InputError::unreadable`] was told (the message
    /// itself for an error not made by it); `None` when it is no [`ErrorKind::Io`] error.
    pub fn io_cause(&self) -> Option<&str> {
        (self.kind == ErrorKind::Io).then(|| {
            self.message
                .strip_prefix(UNREADABLE)
                .unwrap_or(&self.message)
        })
    }

    /// Whether the whole file could not be read: its one problem is about the file, not a
    /// line of it, and is of kind [`ErrorKind::Io`].
    pub fn is_unreadable_file(&self) -> bool {
        self.line == 0 && self.kind == ErrorKind::Io
    }

    /// The same problem, about `column`.
    pub fn column(mut self, column: impl Into<String>) -> InputError {
        self.column = Some(column.into());
        self
    }

    /// The same problem, quoting `value` (its first `MAX_KEPT_VALUE_BYTES` (4 KiB) kept).
    pub fn value(mut self, value: impl Into<String>) -> InputError {
        let mut value = value.into();
        self.value_bytes = value.len();
        if value.len() > MAX_KEPT_VALUE_BYTES {
            let mut end = MAX_KEPT_VALUE_BYTES;
            while !value.is_char_boundary(end) {
                end -= 1;
            }
            value.truncate(end);
            value.shrink_to_fit();
        }
        self.value = Some(value);
        self
    }
}

impl std::error::Error for InputError {}

/// The most input errors a run lists in full; past them, errors are only counted. A file of a
/// million malformed rows held one error each (2 GB, and 446 MB of standard error), and no
/// reader needs more than the first thousand to see what to fix; a thousand errors, each
/// quoting at most `MAX_KEPT_VALUE_BYTES`, are at most a few MiB.
pub const MAX_LISTED_ERRORS: usize = 1_000;

/// Every input error of a run, as it is collected: the first [`MAX_LISTED_ERRORS`] in full
/// (displayed one per line), the rest only counted, so that what is held does not grow with
/// the number of bad rows. Every collector of errors, from a row's reader to a run's end, is
/// one of these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputErrors {
    /// The errors kept, in the order they came (or by line, once [merged](Self::merge_by_line)).
    listed: Vec<InputError>,
    /// How many more there were, not kept.
    unlisted: u64,
    /// The most kept: [`MAX_LISTED_ERRORS`] but in tests.
    cap: usize,
}

impl InputErrors {
    /// No errors yet.
    pub fn new() -> InputErrors {
        InputErrors::with_cap(MAX_LISTED_ERRORS)
    }

    /// No errors yet, keeping at most `cap` of those to come (tests prove the cap with a
    /// small one).
    pub fn with_cap(cap: usize) -> InputErrors {
        InputErrors {
            listed: Vec::new(),
            unlisted: 0,
            cap,
        }
    }

    /// Just `error`.
    pub fn one(error: InputError) -> InputErrors {
        let mut errors = InputErrors::new();
        errors.push(error);
        errors
    }

    /// Adds `error`: kept if fewer than the cap are, else counted.
    pub fn push(&mut self, error: InputError) {
        if self.listed.len() < self.cap {
            self.listed.push(error);
        } else {
            self.unlisted += 1;
        }
    }

    /// Adds `error`, the one that ended the reading of a file (a limit passed, a read that
    /// failed): always kept, in the place of the last one kept if the list is full, since it
    /// says why the rest of the file was not read.
    pub fn push_final(&mut self, error: InputError) {
        if self.listed.len() >= self.cap && self.cap > 0 {
            self.listed.pop();
            self.unlisted += 1;
        }
        self.push(error);
    }

    /// How many errors there were, kept or not: it grows by one with every [`push`](Self::push),
    /// so that a caller can tell whether a step found any.
    pub fn len(&self) -> usize {
        self.listed.len() + usize::try_from(self.unlisted).unwrap_or(usize::MAX)
    }

    /// How many errors there were, kept or not.
    pub fn total(&self) -> u64 {
        self.listed.len() as u64 + self.unlisted
    }

    /// Whether there were none.
    pub fn is_empty(&self) -> bool {
        self.listed.is_empty() && self.unlisted == 0
    }

    /// The errors kept, the first of them.
    pub fn listed(&self) -> &[InputError] {
        &self.listed
    }

    /// The errors kept, to be changed in place (their lines shifted, say).
    pub fn listed_mut(&mut self) -> &mut [InputError] {
        &mut self.listed
    }

    /// How many errors were counted but not kept.
    pub fn unlisted(&self) -> u64 {
        self.unlisted
    }

    /// The errors kept (those not kept are dropped: for callers that only look at the first).
    pub fn into_listed(self) -> Vec<InputError> {
        self.listed
    }

    /// The errors kept.
    pub fn iter(&self) -> std::slice::Iter<'_, InputError> {
        self.listed.iter()
    }

    /// Counts `more` errors that were found but not kept (by a reader that capped its own
    /// list).
    pub fn count_unlisted(&mut self, more: u64) {
        self.unlisted += more;
    }

    /// Adds `other`'s errors after these ones, its count too.
    pub fn append(&mut self, other: InputErrors) {
        let unlisted = other.unlisted;
        self.extend(other.listed);
        self.unlisted += unlisted;
    }

    /// Adds `other`'s errors among these ones in line order (these first at equal lines): each
    /// list is in line order as read, so the first of both by line are among the first of
    /// each, and those are the ones kept.
    pub fn merge_by_line(&mut self, other: InputErrors) {
        self.unlisted += other.unlisted;
        self.listed.extend(other.listed);
        self.listed.sort_by_key(|e| e.line);
        let cap = self.cap;
        if self.listed.len() > cap {
            self.unlisted += (self.listed.len() - cap) as u64;
            self.listed.truncate(cap);
        }
    }
}

impl InputErrors {
    /// `… and 998,900 more input errors, not listed (only the first 1,000 are)`, when some were
    /// counted but not kept (numbers only: nothing in it comes from input).
    pub fn unlisted_message(&self) -> Option<String> {
        let more = self.unlisted;
        (more > 0).then(|| {
            format!(
                "… and {} more input error{}, not listed (only the first {} are)",
                thousands(more),
                if more == 1 { "" } else { "s" },
                thousands(self.listed.len() as u64)
            )
        })
    }

    /// The errors kept, then (if some were not) one more, of the file of the last kept, that
    /// says how many were not: for reports that list problems one by one.
    pub fn shown(&self) -> Vec<InputError> {
        let mut shown = self.listed.clone();
        if let Some(message) = self.unlisted_message() {
            let file = self.listed.last().map_or("", |e| e.file.as_str());
            shown.push(InputError::new(ErrorKind::Unlisted, file, 0, message));
        }
        shown
    }
}

/// `n` with its thousands grouped by commas (`998,900`), as a count is read.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

impl Default for InputErrors {
    fn default() -> InputErrors {
        InputErrors::new()
    }
}

impl Extend<InputError> for InputErrors {
    fn extend<I: IntoIterator<Item = InputError>>(&mut self, errors: I) {
        for error in errors {
            self.push(error);
        }
    }
}

impl From<Vec<InputError>> for InputErrors {
    /// `errors`, the first [`MAX_LISTED_ERRORS`] kept and the rest counted.
    fn from(errors: Vec<InputError>) -> InputErrors {
        errors.into_iter().collect()
    }
}

impl FromIterator<InputError> for InputErrors {
    fn from_iter<I: IntoIterator<Item = InputError>>(errors: I) -> InputErrors {
        let mut capped = InputErrors::new();
        capped.extend(errors);
        capped
    }
}

impl<'a> IntoIterator for &'a InputErrors {
    type Item = &'a InputError;
    type IntoIter = std::slice::Iter<'a, InputError>;

    fn into_iter(self) -> Self::IntoIter {
        self.listed.iter()
    }
}

impl std::error::Error for InputErrors {}

/// The longest value an input error's message quotes; longer values are cut with `…`.
const MAX_QUOTED_CHARS: usize = 80;

/// An input error as every command shows it, `FILE:LINE: column: message (value)`, each part
/// that came from input made safe to show ([`crate::sanitize`]).
impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Each part may come from input: a file name, a header cell, a key.
        let file = escape_controls(&self.file);
        if self.line == 0 {
            write!(f, "{file}: ")?;
        } else {
            write!(f, "{file}:{}: ", self.line)?;
        }
        if let Some(column) = &self.column {
            write!(f, "{}: ", escape_controls(column))?;
        }
        f.write_str(&escape_message(&self.message))?;
        if let Some(value) = &self.value {
            if value.chars().count() > MAX_QUOTED_CHARS {
                let cut: String = value.chars().take(MAX_QUOTED_CHARS).collect();
                write!(f, " ({}… {} bytes in all)", quote(&cut), self.value_bytes)?;
            } else {
                write!(f, " ({})", quote(value))?;
            }
        }
        Ok(())
    }
}

/// Every input error of a run listed, one per line, then how many were not (if any), then the
/// count of all.
impl std::fmt::Display for InputErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for error in self {
            writeln!(f, "{error}")?;
        }
        if let Some(line) = self.unlisted_message() {
            writeln!(f, "{line}")?;
        }
        let n = self.total();
        write!(
            f,
            "{} input error{}; nothing was written",
            thousands(n),
            if n == 1 { "" } else { "s" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(line: u64) -> InputError {
        InputError::new(ErrorKind::Value, "f.csv", line, "bad")
    }

    #[test]
    fn past_the_cap_errors_are_counted_not_kept() {
        let mut errors = InputErrors::with_cap(3);
        for line in 1..=10 {
            let before = errors.len();
            errors.push(error(line));
            assert_eq!(errors.len(), before + 1, "every push is counted");
        }
        let lines: Vec<u64> = errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, [1, 2, 3]);
        assert_eq!(errors.unlisted(), 7);
        assert_eq!(errors.total(), 10);
    }

    #[test]
    fn the_error_that_ended_a_read_is_kept_past_the_cap() {
        let mut errors = InputErrors::with_cap(3);
        errors.extend([1, 2, 3, 4].map(error));
        errors.push_final(InputError::unreadable("f.csv", 9, "a limit"));
        let lines: Vec<u64> = errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, [1, 2, 9]);
        assert_eq!(errors.total(), 5);
    }

    #[test]
    fn merged_lists_keep_the_first_by_line() {
        let mut reader = InputErrors::with_cap(3);
        reader.extend([1, 4, 6, 8, 9].map(error));
        let mut faults = InputErrors::with_cap(3);
        faults.extend([2, 3, 7, 10].map(error));
        reader.merge_by_line(faults);
        let lines: Vec<u64> = reader.iter().map(|e| e.line).collect();
        assert_eq!(lines, [1, 2, 3]);
        assert_eq!(reader.total(), 9);
    }

    #[test]
    fn a_vector_past_the_cap_is_capped() {
        let errors = InputErrors::from(
            (0..MAX_LISTED_ERRORS as u64 + 5)
                .map(error)
                .collect::<Vec<_>>(),
        );
        assert_eq!(errors.listed().len(), MAX_LISTED_ERRORS);
        assert_eq!(errors.unlisted(), 5);
    }
}
