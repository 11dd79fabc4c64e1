//! A class read from a platform's download (`grade --lms`): each entry of the download given
//! to the learner it names (or, for a group's submission, to every member of the group), the
//! entries of learners the roster lacks refused or, with `--not-on-roster skip`, listed and
//! left out, and each learner's files made their upload, where the autograders' rule finds the
//! matrix.

use std::path::Path;

use crate::grading::submission_file::InstructorFiles;
use crate::grading::upload::{find_matrix, UploadedMatrix};
use crate::input::{ErrorKind, InputError, InputErrors};
use crate::output::{listed, quote, GuardedTempDir};

use super::download::{Claim, Download, Entry, Unclaimed};
use super::gradebook::{Gradebook, GroupsFile, LearnerIndex};
use super::groups::Groups;
use super::Lms;

/// What becomes of the download's entries of learners the roster lacks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NotOnRoster {
    /// An error: nothing is graded or written until the roster has every learner.
    #[default]
    Error,
    /// Each such entry is listed and left out; the others are graded (the learner gets no
    /// grade).
    Skip,
}

crate::choice::choices!(NotOnRoster {
    Error => "error",
        "An error: nothing is graded or written until the roster has every learner";
    Skip => "skip",
        "Each such entry is listed and left out; the others are graded (the learner gets no grade)";
});

/// How a download is read besides its roster.
#[derive(Clone, Debug, Default)]
pub struct ClassOptions {
    /// Who is in which group, for a group assignment (`--groups`).
    pub groups: Option<Groups>,
    /// What becomes of entries of learners the roster lacks (`--not-on-roster`).
    pub not_on_roster: NotOnRoster,
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
    /// The roster: the platform's gradebook.
    pub roster: Box<dyn Gradebook>,
    /// Per learner (parallel to the roster's learners), the submission.
    pub uploads: Vec<Upload>,
    /// Per learner, the group whose submission is theirs.
    pub groups: Vec<Option<String>>,
    /// The entries of learners the roster lacks, left out with `--not-on-roster skip`: each
    /// says whose it is, to be listed.
    pub skipped: Vec<InputError>,
    /// Where uploads put together from the download are (removed when the class is
    /// dropped).
    _staging: GuardedTempDir,
}

impl ClassOptions {
    /// The options of `grade --lms`: the groups file read for the platform (Canvas's group
    /// set export, GitHub Classroom's assignment grades; Moodle's group submissions are named
    /// by the group, which no worksheet lists: refused).
    pub fn read(
        lms: Lms,
        groups: Option<&Path>,
        not_on_roster: Option<NotOnRoster>,
    ) -> Result<ClassOptions, InputErrors> {
        let groups = match (groups, lms.facts().groups) {
            (None, _) => None,
            (Some(path), GroupsFile::Read(read)) => Some(read(path)?),
            (Some(path), GroupsFile::Refused(why)) => {
                return Err(InputErrors::one(InputError::new(
                    ErrorKind::Refused,
                    &path.to_string_lossy(),
                    0,
                    format!("--groups is for {}: {why}", platforms_with_groups()),
                )))
            }
        };
        Ok(ClassOptions {
            groups,
            not_on_roster: not_on_roster.unwrap_or_default(),
        })
    }
}

impl Class {
    /// The lines that list the entries left out with `--not-on-roster skip`, then what the
    /// gradebook's line adds about them.
    pub fn skipped_lines(&self) -> (Vec<String>, Option<String>) {
        let lines = self.skipped.iter().map(ToString::to_string).collect();
        let note = (!self.skipped.is_empty()).then(|| {
            format!(
                "{} entr{} of the download of learners not on the roster left out (listed above)",
                self.skipped.len(),
                if self.skipped.len() == 1 { "y" } else { "ies" }
            )
        });
        (lines, note)
    }

    /// How reports name the `n`-th learner: the roster's label, and the group whose
    /// submission is theirs (`Okafor, Ben (1002), group Team Rocket`).
    pub fn label(&self, n: usize) -> String {
        let label = &self.roster.learners()[n].label;
        match &self.groups[n] {
            Some(group) => format!("{label}, group {group}"),
            None => label.clone(),
        }
    }
}

/// Reads a class: the download (a folder or a zip), whose every entry must be named for a
/// learner on the roster, or a group of them (every one that is not is listed, and nothing
/// is graded, unless `--not-on-roster skip` leaves out those of learners the roster lacks).
/// Each learner's files become their upload, where `find_matrix` finds the matrix.
/// `instructor`: the files no copied submission may be.
pub fn read_class(
    lms: Lms,
    download: &Path,
    roster: Box<dyn Gradebook>,
    instructor: &InstructorFiles,
    options: &ClassOptions,
) -> Result<Class, InputErrors> {
    let groups = options.groups.as_ref();
    let recognised = |entry: &Entry| roster.recognises(entry, groups);
    let opened = Download::open(download, &recognised)?;
    let entries = opened.entries()?;
    let Claimed {
        claimed,
        groups: group_of,
        skipped,
    } = claim_entries(lms, roster.as_ref(), &opened, entries, options)?;
    // The owner's alone (0700) before anything goes in: see `staging`.
    let staging = GuardedTempDir::private("leasejudge-download-").map_err(|e| {
        InputErrors::one(InputError::new(
            ErrorKind::Temp,
            opened.name(),
            0,
            format!("cannot make a temporary directory to unpack it in: {e}"),
        ))
    })?;
    let mut uploads = Vec::new();
    for (n, claims) in claimed.iter().enumerate() {
        if claims.is_empty() {
            uploads.push(Upload::Missing);
            continue;
        }
        let staged = staging.path().join(n.to_string());
        let made = opened.upload(claims, &staged, instructor).map_err(|e| {
            InputErrors::one(InputError::new(
                ErrorKind::Io,
                opened.name(),
                0,
                format!("cannot unpack: {e}"),
            ))
        })?;
        uploads.push(match made {
            Err(problems) => Upload::Problems(problems),
            Ok(dir) => match find_matrix(&dir) {
                Ok(found) => Upload::Found(found),
                Err(problems) => Upload::Problems(problems),
            },
        });
    }
    Ok(Class {
        roster,
        uploads,
        groups: group_of,
        skipped,
        _staging: staging,
    })
}

/// The entries of a download, given to the learners on the roster whose they are.
struct Claimed {
    /// Per learner, their entries and where each goes in their upload.
    claimed: Vec<Vec<(Entry, String)>>,
    /// Per learner, the group whose submission is theirs.
    groups: Vec<Option<String>>,
    /// The entries left out with `--not-on-roster skip`, each saying whose it is.
    skipped: Vec<InputError>,
}

/// Gives each entry of `opened` to the learners of `roster` whose it is (every entry that is
/// no one's, or someone's the roster lacks, listed unless `--not-on-roster skip`).
fn claim_entries(
    lms: Lms,
    roster: &dyn Gradebook,
    opened: &Download,
    entries: Vec<Entry>,
    options: &ClassOptions,
) -> Result<Claimed, InputErrors> {
    let index: LearnerIndex = roster
        .learners()
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.id.is_empty())
        .map(|(i, l)| (l.id.as_str(), i))
        .collect();
    let claims = roster
        .claims(opened, &entries, &index, options.groups.as_ref())
        .map_err(InputErrors::one)?;
    let learners = roster.learners().len();
    let mut claimed: Vec<Vec<(Entry, String)>> = vec![Vec::new(); learners];
    let mut group_of: Vec<Option<String>> = vec![None; learners];
    let mut errors = InputErrors::new();
    let mut skipped = Vec::new();
    for entry in entries {
        let claim = claims(&entry);
        let claim = claim.and_then(|claim| on_roster(lms, claim, &index));
        match claim {
            Ok((claim, members)) => {
                for member in members {
                    claimed[member].push((entry.clone(), claim.place.clone()));
                    group_of[member] = claim.group.as_ref().map(|g| g.name.clone());
                }
            }
            Err(Unclaimed::NotNamed(why)) => errors.push(
                InputError::new(
                    ErrorKind::Rule,
                    opened.name(),
                    0,
                    format!("whose is this entry? it is {why}"),
                )
                .value(entry.name.clone()),
            ),
            Err(Unclaimed::NotOnRoster(who)) => {
                let error = match options.not_on_roster {
                    NotOnRoster::Error => InputError::new(
                        ErrorKind::Rule,
                        opened.name(),
                        0,
                        format!("{who}: {}", lms.not_on_roster_cause()),
                    ),
                    NotOnRoster::Skip => InputError::new(
                        ErrorKind::Rule,
                        opened.name(),
                        0,
                        format!(
                            "left out (--not-on-roster skip): {who}; it is not graded, and no \
                             grade is written for it"
                        ),
                    ),
                };
                let error = error.value(entry.name.clone());
                match options.not_on_roster {
                    NotOnRoster::Error => errors.push(error),
                    NotOnRoster::Skip => skipped.push(error),
                }
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Claimed {
        claimed,
        groups: group_of,
        skipped,
    })
}

/// The claim, and the roster's learners whose submission the entry is (the learner it names,
/// or the group's members the roster has); none is an entry of someone the roster lacks.
fn on_roster(
    lms: Lms,
    claim: Claim,
    index: &LearnerIndex,
) -> Result<(Claim, Vec<usize>), Unclaimed> {
    let members: Vec<usize> = match &claim.group {
        Some(group) => group
            .members
            .iter()
            .filter_map(|id| index.get(id.as_str()).copied())
            .collect(),
        None => index
            .get(claim.learner.as_str())
            .copied()
            .into_iter()
            .collect(),
    };
    if !members.is_empty() {
        return Ok((claim, members));
    }
    let who = match (&claim.group, lms) {
        (Some(group), _) => {
            return Err(Unclaimed::NotOnRoster(format!(
                "the submission of the group {}, none of whose members is on the roster",
                quote(&group.name)
            )))
        }
        (None, lms) => lms.learner(&claim.learner),
    };
    Err(Unclaimed::NotOnRoster(format!(
        "the submission of {who}, who is not on the roster"
    )))
}

/// The platforms that take `--groups`, as a message lists them: `Canvas and GitHub Classroom`.
fn platforms_with_groups() -> String {
    let titles: Vec<&str> = <Lms as crate::choice::Choice>::ALL
        .iter()
        .filter(|lms| matches!(lms.facts().groups, GroupsFile::Read(_)))
        .map(|lms| lms.title())
        .collect();
    listed(&titles, "and")
}
