//! Located input errors: `FILE:LINE: column: message (value)`. They are displayed by
//! [`crate::output`], which owns making input safe for a terminal; this module is below it.

/// The most of a value an error keeps (its length is kept too): an error per row quoting a
/// long value (a shared string a workbook's every row uses, say) would otherwise hold every
/// copy.
pub const MAX_KEPT_VALUE_BYTES: usize = 4096;

/// One problem in the input, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
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

impl InputError {
    /// A problem at `file:line`.
    pub fn new(file: &str, line: u64, message: impl Into<String>) -> InputError {
        InputError {
            file: file.to_owned(),
            line,
            column: None,
            message: message.into(),
            value: None,
            value_bytes: 0,
        }
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

/// Every input error of a run; displayed one per line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputErrors(pub Vec<InputError>);

impl std::error::Error for InputErrors {}
