//! Grading where the class lives (issue 30): `grade --lms` reads a learning platform's bulk
//! download of a class's submissions and its roster, finds each learner's matrix in their
//! files as the autograders do, and writes back the file the platform's gradebook imports.
//! One module per platform ([`canvas`], [`moodle`], [`github_classroom`]) knows its names,
//! its roster and its importer; [`download`] reads a download, folder or zip; [`table`]
//! reads and writes the CSV files.

pub mod canvas;
pub mod download;
mod entries;
pub mod github_classroom;
pub mod moodle;
pub mod roster;
mod staging;
pub mod table;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::grading::submission_file::InstructorFiles;
use crate::grading::upload::{find_matrix, UploadedMatrix};
use crate::input::{InputError, InputErrors};
use crate::output::GuardedTempDir;

use download::{Download, Entry};
pub use roster::{Learner, LearnerGrade};

/// The platform a class was collected on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Lms {
    /// Canvas: "Download Submissions", the gradebook export, its gradebook import.
    Canvas,
    /// Moodle: "Download all submissions", the grading worksheet, its upload.
    Moodle,
    /// GitHub Classroom: `gh classroom clone student-repos`, the roster, a grades CSV.
    GithubClassroom,
}

impl Lms {
    /// How people call it.
    pub fn title(self) -> &'static str {
        match self {
            Lms::Canvas => "Canvas",
            Lms::Moodle => "Moodle",
            Lms::GithubClassroom => "GitHub Classroom",
        }
    }
}

/// What a learner on the roster without a grade gets in the gradebook written back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Missing {
    /// No grade: the learner is left out of the import (or their points left empty), so a
    /// grade already in the gradebook stays.
    #[default]
    Skip,
    /// A grade of 0.
    Zero,
}

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
        let table = table::read_table(path)?;
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

/// What became of a learner's submission.
#[derive(Clone, Debug)]
pub enum Upload {
    /// The matrix, found in the learner's upload.
    Found(UploadedMatrix),
    /// The upload, with no gradable matrix: why (named `upload`, or by a file's place).
    Problems(InputErrors),
    /// The download has nothing of the learner's.
    Missing,
}

/// A class: the roster, and for each of its learners what the download holds.
pub struct Class {
    /// The roster.
    pub roster: Roster,
    /// Per learner (parallel to the roster's learners), the submission.
    pub uploads: Vec<Upload>,
    /// Where uploads put together from the download are (removed when the class is
    /// dropped).
    _staging: GuardedTempDir,
}

/// Reads a class: the roster, then the download (a folder or a zip), whose every entry must
/// be named for a learner on the roster (every one that is not is listed, and nothing is
/// graded). Each learner's files become their upload, where [`find_matrix`] finds the
/// matrix. `instructor`: the files no copied submission may be.
pub fn read_class(
    lms: Lms,
    download: &Path,
    roster: Roster,
    instructor: &InstructorFiles,
) -> Result<Class, InputErrors> {
    let recognised = |entry: &Entry| match &roster {
        Roster::Canvas(_) => canvas::claim(entry).is_ok(),
        Roster::Moodle(_) => moodle::claim(entry).is_ok(),
        Roster::GithubClassroom(roster) => roster.recognises(entry),
    };
    let opened = Download::open(download, &recognised)?;
    let entries = opened.entries()?;
    let slug = match &roster {
        Roster::GithubClassroom(roster) => Some(
            roster
                .slug(opened.root_name(), &entries, opened.name())
                .map_err(InputErrors::one)?,
        ),
        _ => None,
    };
    let index: HashMap<&str, usize> = roster
        .learners()
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.id.is_empty())
        .map(|(i, l)| (l.id.as_str(), i))
        .collect();
    let mut claimed: Vec<Vec<(Entry, String)>> = vec![Vec::new(); roster.learners().len()];
    // The places each learner's entries were given: a learner may have many thousands.
    let mut places: HashSet<(usize, String)> = HashSet::new();
    let mut errors = InputErrors::new();
    let whose = |learner: &str| match lms {
        Lms::Canvas => format!("the Canvas user {learner}"),
        Lms::Moodle => format!("Participant {learner}"),
        Lms::GithubClassroom => format!("the GitHub user {learner}"),
    };
    for entry in entries {
        let claim = match (&roster, &slug) {
            (Roster::Canvas(_), _) => canvas::claim(&entry),
            (Roster::Moodle(_), _) => moodle::claim(&entry),
            (Roster::GithubClassroom(_), Some(slug)) => github_classroom::claim(&entry, slug),
            (Roster::GithubClassroom(_), None) => unreachable!("a slug was found"),
        };
        match claim {
            Err(why) => errors.push(
                InputError::new(
                    opened.name(),
                    0,
                    format!("whose is this entry? it is {why}"),
                )
                .value(entry.name.clone()),
            ),
            Ok(claim) => match index.get(claim.learner.as_str()) {
                None => errors.push(
                    InputError::new(
                        opened.name(),
                        0,
                        format!(
                            "the submission of {}, who is not on the roster: give the roster of \
                             the class the download is from",
                            whose(&claim.learner)
                        ),
                    )
                    .value(entry.name.clone()),
                ),
                Some(&learner) => {
                    let taken = places.contains(&(learner, claim.place.clone()));
                    // Two files of one learner under one name (Canvas lets an upload repeat
                    // a name): each keeps the download's name.
                    let place = if taken {
                        entry.name.clone()
                    } else {
                        claim.place
                    };
                    places.insert((learner, place.clone()));
                    claimed[learner].push((entry, place));
                }
            },
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // The owner's alone (0700) before anything goes in: see `staging`.
    let staging = GuardedTempDir::private("leasejudge-download-").map_err(|e| {
        InputErrors::from(vec![InputError::new(
            opened.name(),
            0,
            format!("cannot make a temporary directory to unpack it in: {e}"),
        )])
    })?;
    let mut uploads = Vec::new();
    for (n, claims) in claimed.iter().enumerate() {
        if claims.is_empty() {
            uploads.push(Upload::Missing);
            continue;
        }
        let staged = staging.path().join(n.to_string());
        let made = opened.upload(claims, &staged, instructor).map_err(|e| {
            InputErrors::from(vec![InputError::new(
                opened.name(),
                0,
                format!("cannot unpack: {e}"),
            )])
        })?;
        uploads.push(match made {
            Err(problems) => Upload::Problems(problems),
            Ok(dir) => match find_matrix(&dir) {
                Ok(found) => Upload::Found(UploadedMatrix {
                    path: found.path,
                    name: found.name,
                }),
                Err(problems) => Upload::Problems(problems),
            },
        });
    }
    Ok(Class {
        roster,
        uploads,
        _staging: staging,
    })
}
