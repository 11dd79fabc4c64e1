//! The feedback levels: what a learner is shown about their submission, from the score
//! alone to every expected value, and what each level needs and shows.

/// What a learner is shown about their submission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feedback {
    /// The score only.
    None,
    /// Which cases and columns are wrong, without the expected values.
    Cases,
    /// As `cases`, plus, for each wrong case, the case-file lines to read again: a file name
    /// and line numbers, nothing else (needs `--cases`).
    Hint,
    /// As `cases`, plus the shortcuts (misreadings of the contract) the learner's wrong
    /// answers follow, each by name and contract section, never a value (needs `--cases`).
    Shortcut,
    /// Everything, expected values included (`--reveal`).
    Full,
}

crate::choice::choices!(Feedback {
    None => "none",
        "The score only";
    Cases => "cases",
        "Which cases and columns are wrong, without the expected values";
    Hint => "hint",
        "As `cases`, plus, for each wrong case, the case-file lines to read again: a file name and line numbers, nothing else (needs `--cases`)";
    Shortcut => "shortcut",
        "As `cases`, plus the shortcuts (misreadings of the contract) the learner's wrong answers follow, each by name and contract section, never a value (needs `--cases`)";
    Full => "full",
        "Everything, expected values included (`--reveal`)";
});

impl Feedback {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Feedback::None => "none",
            Feedback::Cases => "cases",
            Feedback::Hint => "hint",
            Feedback::Shortcut => "shortcut",
            Feedback::Full => "full",
        }
    }

    /// Whether per-case results are shown.
    pub fn shows_cases(self) -> bool {
        self != Feedback::None
    }

    /// Whether the level needs the lab's case files (`--cases`): a hint cites their lines,
    /// and the shortcuts are judged on their cases.
    pub fn needs_cases(self) -> bool {
        matches!(self, Feedback::Hint | Feedback::Shortcut)
    }

    /// Whether golden values and the golden file's name are shown.
    pub fn reveals(self) -> bool {
        self == Feedback::Full
    }
}
