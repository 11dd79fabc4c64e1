//! Grading where the class lives (issue 30): `grade --lms` reads a learning platform's bulk
//! download of a class's submissions and its roster, finds each learner's matrix in their
//! files as the autograders do, and writes back the file the platform's gradebook imports.
//! One module per platform ([`canvas`], [`moodle`], [`github_classroom`]) knows its names,
//! its roster and its importer; [`download`] reads a download, folder or zip; [`class`] gives
//! each entry to its learner (or a group's to every member, [`groups`]); [`table`] reads and
//! writes the CSV files.

pub mod canvas;
pub mod canvas_names;
pub mod class;
pub mod download;
mod entries;
pub mod github_classroom;
pub mod groups;
pub mod moodle;
pub mod roster;
mod staging;
pub mod table;
mod zip_shadows;

use std::path::Path;

use crate::input::InputErrors;

pub use class::{read_class, Class, ClassOptions, NotOnRoster, Upload};
pub use roster::{Learner, LearnerGrade};

/// The platform a class was collected on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lms {
    /// Canvas: "Download Submissions", the gradebook export, its gradebook import.
    Canvas,
    /// Moodle: "Download all submissions", the grading worksheet, its upload.
    Moodle,
    /// GitHub Classroom: `gh classroom clone student-repos`, the roster, a grades CSV.
    GithubClassroom,
}

/// What a platform is to `grade --lms`, beside its module (its names, roster and importer):
/// one row per platform, so that a new platform is a variant, its word (`choices!` below),
/// its row here, its module and its arms of [`Roster`].
struct LmsFacts {
    /// How people call it.
    title: &'static str,
    /// How a message names a learner by the platform's id: `{learner} 1001`.
    learner: &'static str,
    /// Why an entry of a learner the roster lacks may be there, as the platform's exports
    /// go, and what to do.
    not_on_roster: &'static str,
}

impl Lms {
    /// The platform's row.
    const fn facts(self) -> &'static LmsFacts {
        match self {
            Lms::Canvas => &LmsFacts {
                title: "Canvas",
                learner: "the Canvas user",
                not_on_roster: "Canvas's gradebook export leaves out inactive and concluded \
                    students unless the Gradebook shows them (View, Show: Inactive enrollments, \
                    Concluded enrollments), and a filtered view exports only whom it shows, while \
                    Download Submissions includes them: export the gradebook again showing every \
                    student, or give --not-on-roster skip to grade the others (this learner is \
                    listed and gets no grade)",
            },
            Lms::Moodle => &LmsFacts {
                title: "Moodle",
                learner: "Participant",
                not_on_roster: "the grading worksheet lists the participants the grading table \
                    showed when it was downloaded (its filter, its group, Show only active \
                    enrolments): download the worksheet again from the same view as the \
                    submissions, or give --not-on-roster skip to grade the others (this learner \
                    is listed and gets no grade)",
            },
            Lms::GithubClassroom => &LmsFacts {
                title: "GitHub Classroom",
                learner: "the GitHub user",
                not_on_roster: "a student who accepted the assignment without being on the \
                    classroom's roster (or linked to no roster entry), or a team's repository of \
                    a group assignment (named after the team: give --groups with the CSV `gh \
                    classroom assignment-grades` writes): add them to the roster and download it \
                    again, or give --not-on-roster skip to grade the others (this entry is listed \
                    and gets no grade)",
            },
        }
    }

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
}

crate::choice::choices!(Lms {
    Canvas => "canvas",
        "Canvas: \"Download Submissions\", the gradebook export, its gradebook import";
    Moodle => "moodle",
        "Moodle: \"Download all submissions\", the grading worksheet, its upload";
    GithubClassroom => "github-classroom",
        "GitHub Classroom: `gh classroom clone student-repos`, the roster, a grades CSV";
});

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

/// A platform's roster.
#[derive(Clone, Debug)]
pub enum Roster {
    /// A Canvas gradebook export.
    Canvas(canvas::Roster),
    /// A Moodle grading worksheet.
    Moodle(moodle::Roster),
    /// A GitHub Classroom roster.
    GithubClassroom(github_classroom::Roster),
}

impl Roster {
    /// Reads the roster at `path` for `lms` (`assignment`: which of a Canvas export's
    /// assignments is graded).
    pub fn read(lms: Lms, path: &Path, assignment: Option<&str>) -> Result<Roster, InputErrors> {
        // A Canvas export holds every assignment's column: only the graded one is kept.
        let table = match lms {
            Lms::Canvas => table::read_table_keeping(path, &|header_only| {
                canvas::kept_columns(header_only, assignment)
            })?,
            Lms::Moodle | Lms::GithubClassroom => table::read_table(path)?,
        };
        Ok(match lms {
            Lms::Canvas => Roster::Canvas(canvas::read_roster(table, assignment)?),
            Lms::Moodle => Roster::Moodle(moodle::read_roster(table)?),
            Lms::GithubClassroom => Roster::GithubClassroom(github_classroom::read_roster(table)?),
        })
    }

    /// The learners, in the roster's order.
    pub fn learners(&self) -> &[Learner] {
        match self {
            Roster::Canvas(roster) => &roster.learners,
            Roster::Moodle(roster) => &roster.learners,
            Roster::GithubClassroom(roster) => &roster.learners,
        }
    }

    /// The points the platform holds for the assignment (Canvas's `Points Possible`,
    /// Moodle's `Maximum Grade`), if the roster says.
    pub fn points(&self) -> Option<f64> {
        match self {
            Roster::Canvas(roster) => roster.points,
            Roster::Moodle(roster) => roster.points,
            Roster::GithubClassroom(_) => None,
        }
    }

    /// Whether the `n`-th learner is excused from the assignment on the platform (Canvas's
    /// `EX`): `--missing zero` gives them no 0, which would undo the excusal.
    pub fn excused(&self, n: usize) -> bool {
        match self {
            Roster::Canvas(roster) => roster.excused(&roster.learners[n]),
            Roster::Moodle(_) | Roster::GithubClassroom(_) => false,
        }
    }

    /// The file the platform imports, for `grades` (parallel to the learners) out of
    /// `points`.
    pub fn render(&self, grades: &[LearnerGrade], points: f64) -> String {
        match self {
            Roster::Canvas(roster) => roster.render(grades, points),
            Roster::Moodle(roster) => roster.render(grades),
            Roster::GithubClassroom(roster) => roster.render(grades, points),
        }
    }

    /// What the written file is, for the run's last line.
    pub fn describe(&self) -> String {
        match self {
            Roster::Canvas(roster) => format!(
                "import it in Canvas's Gradebook (Import): the column {}",
                roster.assignment()
            ),
            Roster::Moodle(roster) => format!(
                "upload it on the assignment's Upload grading worksheet page{}",
                if roster.has_feedback() {
                    ""
                } else {
                    " (the worksheet has no Feedback comments column: enable feedback \
                     comments to carry feedback)"
                }
            ),
            Roster::GithubClassroom(_) => {
                "GitHub Classroom imports no grades: the file is the roster with points_awarded"
                    .to_owned()
            }
        }
    }
}
