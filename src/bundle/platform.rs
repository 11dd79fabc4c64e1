//! The autograder platforms, each named once ([`autograder_platforms!`](crate::autograder_platforms)),
//! and what every platform's bundle is: its build ([`Autograder`]) and, if the platform runs
//! one, its run script ([`RunScript`]). A platform is its file in `src/bundle/` (its options
//! and its build, its run script's layout), its results file in `src/report/` (its row: its
//! word, help line and writer), its arguments' file in the binary's
//! `src/commands/autograder/`, and its row of the list: `bundle`'s and `report`'s modules of
//! the platforms, [`Build`], `grade -f`'s results formats and `autograder`'s subcommands are
//! made from the list.

use crate::ops::Status;
use crate::report::PlatformResults;

/// Calls `$then!` with the autograder platforms, one row each, in `autograder --help`'s and
/// `grade -f`'s order: the platform's variant (of [`Build`](crate::bundle::Build) and
/// `GradeFormat`, and of the binary's subcommands), its module (of `bundle`, its build; of
/// `report`, its results file and their row; of the binary's `commands::autograder`, its
/// arguments), and its options (what [`Autograder`](crate::bundle::Autograder) builds,
/// `bundle::` re-exports it). The one list: the library makes its modules, `Build` and `grade
/// -f`'s results formats from it, and the binary (which owns clap) its `autograder`
/// subcommands, so that a platform is its own files and its row here.
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

/// How a platform runs the bundle's script (`run_autograder`) for each submission.
pub(crate) struct RunScript {
    /// The platform's results file, which the script has `grade --autograder` write: its
    /// word names the platform.
    pub(crate) results: &'static PlatformResults,
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

/// Declares [`Build`] (and, for the tests, the platforms' results files) from the list.
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

        /// Every platform's results file, in the list's order.
        #[cfg(test)]
        const RESULTS: &[&PlatformResults] = &[$(&crate::report::$module::RESULTS),+];
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

    /// Each platform's word is one word of the command line, and no other platform's; a run
    /// script has `grade --autograder` write an autograder's results, and names where the
    /// platform puts the upload.
    #[test]
    fn every_platform_has_its_own_word_and_its_script_names_its_run() {
        let mut words: Vec<&str> = RESULTS.iter().map(|results| results.word).collect();
        assert!(words
            .iter()
            .all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase() || c == '-')));
        words.sort_unstable();
        words.dedup();
        assert_eq!(words.len(), RESULTS.len(), "a word twice");
        for script in [
            &super::super::gradescope::SCRIPT,
            &super::super::prairielearn::SCRIPT,
        ] {
            assert!(script.results.autograder, "{}", script.results.word);
            assert!(script.root.starts_with('/'), "{}", script.results.word);
            assert!(
                script
                    .how
                    .contains(&format!("{}/{}", script.root, script.upload)),
                "{}: the comment names the upload's folder",
                script.results.word
            );
        }
    }
}
