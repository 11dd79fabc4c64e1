//! The work of each command, callable without clap: a plain options struct in, a [`Status`]
//! out (cargo's `ops`). `commands/` parses the command line into these options and maps the
//! status to the exit code; everything between is here, or in the module that owns it
//! (`bundle::build` for the autograders).

pub mod adjudicate;
pub mod check;
pub mod explain;
pub mod generate;
pub mod grade;
pub mod precheck;
pub mod reorder;
pub mod shortcuts;
pub mod template;
pub mod validate;

/// How a command's work ended: what its exit status says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// All good (exit 0).
    Success,
    /// Differences: a grade short of full marks, a matrix unlike its golden file (exit 1).
    Differences,
    /// Trouble that was reported: bad input, an ungradable submission (exit 2).
    Trouble,
}

impl Status {
    /// The status an exit code of 0, 1 or 2 stands for (anything else is trouble).
    pub fn from_code(code: u8) -> Status {
        match code {
            0 => Status::Success,
            1 => Status::Differences,
            _ => Status::Trouble,
        }
    }

    /// The exit code: 0, 1 or 2.
    pub fn code(self) -> u8 {
        match self {
            Status::Success => 0,
            Status::Differences => 1,
            Status::Trouble => 2,
        }
    }
}

/// The names of the files `sources` reads, for [`check_paths`] (standard input as `-`).
pub(crate) fn source_names(sources: &[crate::input::Source]) -> Vec<crate::output::Named<'_>> {
    sources
        .iter()
        .map(|source| match &source.path {
            Some(path) => crate::output::Named::new("input", path),
            None => crate::output::Named::new("input", std::path::Path::new("-")),
        })
        .collect()
}

/// A bar of the bytes `sources` hold as they are read, on a terminal
/// ([`crate::terminal::bytes_bar`]; a count when one is standard input).
pub(crate) fn bytes_bar(sources: &[crate::input::Source]) -> Option<crate::terminal::Progress> {
    let total_known = sources.iter().all(|s| s.path.is_some());
    crate::terminal::bytes_bar(total_known.then(|| file_bytes(sources)))
}

/// A spinner naming `command` and the size of `sources` while it works, on a terminal
/// ([`crate::terminal::spinner`]).
pub(crate) fn spinner(
    command: &str,
    sources: &[crate::input::Source],
) -> Option<crate::terminal::Progress> {
    crate::terminal::spinner(command, sources.len(), file_bytes(sources))
}

/// The bytes of the files among `sources` (standard input counts none).
fn file_bytes(sources: &[crate::input::Source]) -> u64 {
    sources
        .iter()
        .filter_map(|s| s.path.as_ref())
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

/// A usage error: the options cannot be honoured together (exit 2, nothing written).
pub(crate) fn usage(message: &str) -> anyhow::Error {
    anyhow::anyhow!("usage: {message}")
}
