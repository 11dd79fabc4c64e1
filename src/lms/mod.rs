//! Grading where the class lives (issue 30): `grade --lms` reads a learning platform's bulk
//! download of a class's submissions and its roster, finds each learner's matrix in their
//! files as the autograders do, and writes back the file the platform's gradebook imports.
//! One module per platform ([`canvas`], [`moodle`], [`github_classroom`]) knows its names,
//! its roster and its importer, as a [`Gradebook`] and its row of the table below;
//! [`download`] reads a download, folder or zip; [`class`] gives each entry to its learner
//! (or a group's to every member, [`groups`]); [`table`] reads and writes the CSV files.

pub mod canvas;
pub mod canvas_names;
pub mod class;
pub mod download;
mod entries;
pub mod github_classroom;
pub mod gradebook;
pub mod groups;
pub mod moodle;
pub mod roster;
mod staging;
pub mod table;
mod zip_shadows;

use std::path::Path;

use crate::input::InputErrors;

pub use class::{read_class, Class, ClassOptions, NotOnRoster, Upload};
pub use gradebook::{Gradebook, GroupsFile, LmsFacts};
pub use roster::{Learner, LearnerGrade};

/// Declares [`Lms`], its words and its rows from the one table below.
macro_rules! lms_platforms {
    ($($(#[$doc:meta])* $variant:ident => $word:literal, $help:literal, $facts:expr;)+) => {
        /// The platform a class was collected on.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Lms {
            $($(#[$doc])* $variant,)+
        }

        impl Lms {
            /// The platform's row: what it is to `grade --lms`, and how its roster is read.
            pub fn facts(self) -> &'static LmsFacts {
                match self {
                    $(Lms::$variant => &$facts,)+
                }
            }
        }

        crate::choice::choices!(Lms {
            $($variant => $word, $help;)+
        });
    };
}

// The platforms of `grade --lms`, in `--help`'s order: a new platform is its module (its
// gradebook, which reads its roster and claims a download's entries, and its `FACTS`) and
// its row here.
lms_platforms! {
    /// Canvas: "Download Submissions", the gradebook export, its gradebook import.
    Canvas => "canvas",
        "Canvas: \"Download Submissions\", the gradebook export, its gradebook import",
        canvas::FACTS;
    /// Moodle: "Download all submissions", the grading worksheet, its upload.
    Moodle => "moodle",
        "Moodle: \"Download all submissions\", the grading worksheet, its upload",
        moodle::FACTS;
    /// GitHub Classroom: `gh classroom clone student-repos`, the roster, a grades CSV.
    GithubClassroom => "github-classroom",
        "GitHub Classroom: `gh classroom clone student-repos`, the roster, a grades CSV",
        github_classroom::FACTS;
}

impl Lms {
    /// How people call it.
    pub fn title(self) -> &'static str {
        self.facts().title
    }

    /// How a message names the learner `id` by the platform's id (`the Canvas user 1001`).
    pub fn learner(self, id: &str) -> String {
        format!("{} {id}", self.facts().learner)
    }

    /// Why an entry of a learner the roster lacks may be there, as the platform's exports
    /// go, and what to do.
    pub fn not_on_roster_cause(self) -> &'static str {
        self.facts().not_on_roster
    }

    /// Reads the platform's roster at `path` (`assignment`: which of a Canvas export's
    /// assignments is graded).
    pub fn read_roster(
        self,
        path: &Path,
        assignment: Option<&str>,
    ) -> Result<Box<dyn Gradebook>, InputErrors> {
        (self.facts().read_roster)(path, assignment)
    }
}

/// What a learner on the roster without a grade gets in the gradebook written back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Missing {
    /// No grade: the learner is left out of the import (or their points left empty), so a
    /// grade already in the gradebook stays.
    #[default]
    Skip,
    /// A grade of 0.
    Zero,
}

crate::choice::choices!(Missing {
    Skip => "skip",
        "No grade: the learner is left out of the import (or their points left empty), so a grade already in the gradebook stays";
    Zero => "zero",
        "A grade of 0";
});
