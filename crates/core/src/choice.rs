//! The words of an option that takes one of a few values (`--format json`): each of the
//! library's enums says its words and what each means, and the command line offers them
//! (`commands::choice`), so that the library needs no command-line parser.

/// An enum whose values are chosen by a word on the command line.
pub trait Choice: Copy + Send + Sync + 'static {
    /// Every value, in the order `--help` lists them.
    const ALL: &'static [Self];

    /// The word that chooses the value.
    fn name(self) -> &'static str;

    /// What the value means, in the one line `--help` shows beside its word.
    fn help(self) -> &'static str;

    /// The value a word chooses, if any.
    fn from_name(word: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|value| value.name() == word)
    }
}

/// Implements [`Choice`] for an enum from one list of its values, their words and help
/// lines (in `--help`'s order): the matches it writes are exhaustive, so a new value is a
/// compile error until it is listed, and the list is every value.
#[macro_export]
macro_rules! choices {
    ($ty:ty { $($variant:ident => $name:literal, $help:literal;)+ }) => {
        impl $crate::choice::Choice for $ty {
            const ALL: &'static [Self] = &[$(Self::$variant),+];

            fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)+
                }
            }

            fn help(self) -> &'static str {
                match self {
                    $(Self::$variant => $help,)+
                }
            }
        }
    };
}
pub use choices;
