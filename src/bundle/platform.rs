//! The autograder platforms, each named once ([`autograder_platforms!`](crate::autograder_platforms)),
//! and what every platform is to leasejudge: its facts ([`Platform`]: its word, its results
//! file, the script it runs) and its build ([`Autograder`]). A platform is its file in
//! `src/bundle/` (its options, its build, its `PLATFORM`), its arguments' file in the
//! binary's `src/commands/autograder/`, a results writer in `src/report/`, and its row of the
//! list: `bundle`'s modules, [`Build`], `grade -f`'s results formats and `autograder`'s
//! subcommands are made from the list.

use std::io::Write;

use crate::grading::class::ClassReport;
use crate::ops::Status;

/// Calls `$then!` with the autograder platforms, one row each, in `autograder --help`'s and
/// `grade -f`'s order: the platform's variant (of [`Build`](crate::bundle::Build) and
/// `GradeFormat`, and of the binary's subcommands), its module of `bundle` (and of the
/// binary's `commands::autograder`), and its options (what [`Autograder`](crate::bundle::Autograder)
/// builds, `bundle::` re-exports it). The one list: the library makes its modules, `Build`
/// and `grade -f`'s results formats from it, and the binary (which owns clap) its
/// `autograder` subcommands, so that a platform is its own files and its row here.
#[macro_export]
macro_rules! autograder_platforms {
    ($then:ident) => {
        $then! {
            Gradescope gradescope GradescopeOptions;
            PrairieLearn prairielearn PrairieLearnOptions;
            GithubClassroom github_classroom GithubClassroomOptions;
        }
    };
}

/// An autograder, built for its platform (each platform's options).
pub trait Autograder {
    /// Builds the autograder, `leasejudge autograder`'s work: the options are checked, the
    /// inputs read and checked before anything is written, and what was written is said on
    /// standard output.
    fn build(&self) -> anyhow::Result<Status>;
}

/// What a platform is to leasejudge: each platform's file holds its row, `PLATFORM`.
pub(crate) struct Platform {
    /// Its word: `autograder WORD` builds its autograder, `grade -f WORD` writes its results.
    pub(crate) word: &'static str,
    /// `grade -f`'s help line for its results.
    pub(crate) results_help: &'static str,
    /// Writes the results of the report's one submission, as `grade`'s options ask.
    pub(crate) write_results:
        fn(&ClassReport, &crate::ops::grade::Options, &mut dyn Write) -> std::io::Result<()>,
    /// The script the platform runs for each submission, which runs `grade --autograder` and
    /// hands the platform its score (`None`: the platform runs its own steps, GitHub
    /// Classroom's workflow, and its results are a reporter's input).
    pub(crate) script: Option<&'static RunScript>,
}

/// How a platform runs the bundle's script (`run_autograder`) for each submission.
pub(crate) struct RunScript {
    /// Where the platform lays out a grading run.
    pub(crate) root: &'static str,
    /// The folder of the root that holds the bundle's files.
    pub(crate) bundle: &'static str,
    /// The folder of the root that holds the learner's upload.
    pub(crate) upload: &'static str,
    /// The run script's comment on how the platform runs it.
    pub(crate) how: &'static str,
    /// Whether the run script makes the binary executable itself (a course repository may
    /// lose the bit; Gradescope's `setup.sh` sets it).
    pub(crate) makes_executable: bool,
    /// Whether the run script lists the files leasejudge wrote ([`WROTE`](super::WROTE): a
    /// question rebuilt in place).
    pub(crate) lists_wrote: bool,
}

impl RunScript {
    /// The script's path on the platform (PrairieLearn's `entrypoint`).
    pub(crate) fn run_path(&self) -> String {
        format!("{}/{}/{}", self.root, self.bundle, super::RUN)
    }
}

/// Declares [`Build`] and the list of the platforms' rows from the list.
macro_rules! builds {
    ($($variant:ident $module:ident $options:ident;)+) => {
        /// An autograder to build, for its platform.
        #[derive(Clone, Debug)]
        pub enum Build {
            $(
                #[doc = concat!("An autograder of `bundle::", stringify!($module), "`: ")]
                #[doc = concat!("`leasejudge autograder`'s subcommand of that name.")]
                $variant(super::$options),
            )+
        }

        impl Build {
            /// The autograder to build.
            fn autograder(&self) -> &dyn Autograder {
                match self {
                    $(Build::$variant(options) => options,)+
                }
            }
        }

        /// Every platform's row, in the list's order.
        #[cfg(test)]
        pub(crate) const PLATFORMS: &[&Platform] = &[$(&super::$module::PLATFORM),+];
    };
}

crate::autograder_platforms!(builds);

/// Builds the autograder `build` describes, `leasejudge autograder`'s work: the options are
/// checked, the key is read as `grade` reads it, and the case files are adjudicated and
/// their matrix graded against the key before anything is written; a key that is malformed,
/// or that disagrees with the contract's verdicts on the case files, is refused with every
/// problem located. Says on standard output what was written.
pub fn build(build: &Build) -> anyhow::Result<Status> {
    build.autograder().build()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A platform with a run script lays out a run the script can name, and its word is one
    /// word of the command line.
    #[test]
    fn every_platform_has_a_word_and_a_script_that_names_its_run() {
        let mut words: Vec<&str> = PLATFORMS.iter().map(|p| p.word).collect();
        assert!(words
            .iter()
            .all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase() || c == '-')));
        words.sort_unstable();
        words.dedup();
        assert_eq!(words.len(), PLATFORMS.len(), "a word twice");
        for platform in PLATFORMS {
            if let Some(script) = platform.script {
                assert!(script.root.starts_with('/'), "{}", platform.word);
                assert!(
                    script
                        .how
                        .contains(&format!("{}/{}", script.root, script.upload)),
                    "{}: the comment names the upload's folder",
                    platform.word
                );
            }
        }
    }
}
