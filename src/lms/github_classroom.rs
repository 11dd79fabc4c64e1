//! GitHub Classroom: the student repositories `gh classroom clone student-repos` clones, the
//! classroom's roster CSV, and the grades file written back (GitHub Classroom imports no
//! grades).
//!
//! - **Download** (`cmd/gh-classroom/clone/student-repos/student-repos.go` in
//!   github/gh-classroom): a folder `{assignment slug}-submissions` holding a clone of every
//!   accepted assignment's repository under the repository's name, which GitHub Classroom
//!   makes `{assignment slug}-{GitHub username}`. The slug is read from the folder's name, or
//!   (a folder renamed, a zip of it) found as the one prefix every repository shares before
//!   a username of the roster. Group assignments' repositories are named after the group:
//!   they match no username and are refused.
//! - **Roster**: the classroom's roster download: `identifier`, `github_username`,
//!   `github_id`, `name`; `github_username` is empty for a learner who has not linked an
//!   account.
//! - **Grades**: the roster with `points_awarded` and `points_available` added, the columns
//!   `gh classroom assignment-grades` writes (`cmd/gh-classroom/assignment-grades/
//!   assignment_grades.go`); a learner with no grade has an empty `points_awarded`.

use std::collections::{BTreeSet, HashMap};

use crate::input::{ErrorKind, InputError, InputErrors};

use super::download::{Claim, Download, Entry, Kind, Unclaimed};
use super::gradebook::{Claims, Gradebook, GroupsFile, LearnerIndex, LmsFacts};
use super::groups::Groups;
use super::roster::{points_text, Learner, LearnerGrade};
use super::table::{csv_text, sheet_cell, Table};

/// The suffix of the folder `gh classroom clone student-repos` clones into.
const SUBMISSIONS: &str = "-submissions";

/// A GitHub Classroom roster.
#[derive(Clone, Debug)]
pub struct Roster {
    table: Table,
    /// The learners, in the roster's order; a learner's id is the username in lower case.
    pub learners: Vec<Learner>,
}

/// Reads a classroom roster.
pub fn read_roster(table: Table) -> Result<Roster, InputErrors> {
    let Some(username) = table.column("github_username") else {
        return Err(InputErrors::from(vec![table.header_error(
            "no github_username column: not a GitHub Classroom roster (download it from the \
             classroom's Students tab)",
        )]));
    };
    let identifier = table.column("identifier");
    let mut errors = InputErrors::new();
    let mut learners = Vec::new();
    let mut seen: HashMap<String, u64> = HashMap::new();
    for (index, row) in table.rows.iter().enumerate() {
        let name = row.cells[username].trim();
        let who = identifier
            .map(|at| row.cells[at].trim())
            .filter(|who| !who.is_empty());
        if name.is_empty() {
            let label = who.unwrap_or("(no identifier)").to_owned();
            learners.push(Learner {
                id: String::new(),
                label,
                row: index,
                note: Some("no GitHub account is linked to this roster entry".into()),
            });
            continue;
        }
        let id = name.to_ascii_lowercase();
        if let Some(first) = seen.insert(id.clone(), row.line) {
            errors.push(
                InputError::new(
                    ErrorKind::Rule,
                    &table.name,
                    row.line,
                    format!("the GitHub user {name} is listed twice (first on line {first})"),
                )
                .column("github_username")
                .value(name),
            );
            continue;
        }
        learners.push(Learner {
            id,
            label: name.to_owned(),
            row: index,
            note: None,
        });
    }
    if errors.is_empty() {
        Ok(Roster { table, learners })
    } else {
        Err(errors)
    }
}

impl Roster {
    /// The usernames on the roster, in lower case.
    fn usernames(&self) -> BTreeSet<&str> {
        self.learners
            .iter()
            .map(|l| l.id.as_str())
            .filter(|id| !id.is_empty())
            .collect()
    }

    /// Whether `entry` is named as a repository of a roster learner.
    pub fn is_repository(&self, entry: &Entry) -> bool {
        entry.kind == Kind::Folder && !slugs(&entry.name, &self.usernames()).is_empty()
    }

    /// The assignment's slug: from the folder `root` (`{slug}-submissions`), or else the one
    /// prefix all of `entries` share before a roster username.
    pub fn slug(
        &self,
        root: &str,
        entries: &[Entry],
        download: &str,
    ) -> Result<String, InputError> {
        if let Some(slug) = root.strip_suffix(SUBMISSIONS).filter(|s| !s.is_empty()) {
            return Ok(slug.to_owned());
        }
        let usernames = self.usernames();
        let mut common: Option<BTreeSet<String>> = None;
        for entry in entries.iter().filter(|e| e.kind == Kind::Folder) {
            let these = slugs(&entry.name, &usernames);
            if these.is_empty() {
                continue;
            }
            common = Some(match common {
                None => these,
                Some(common) => common.intersection(&these).cloned().collect(),
            });
        }
        match common.map(|c| c.into_iter().collect::<Vec<_>>()).as_deref() {
            Some([slug]) => Ok(slug.clone()),
            // No repository is named after a roster learner: the repositories of a group
            // assignment are named after the teams.
            None => Err(InputError::new(
                ErrorKind::Missing,
                download,
                0,
                "no repository is named SLUG-USERNAME for a username of the roster: GitHub \
                 Classroom names a group assignment's repositories after the teams \
                 (SLUG-TEAM), so give --groups with the CSV `gh classroom assignment-grades -a \
                 ASSIGNMENT_ID` writes, whose github_username and student_repository_name say \
                 whose each repository is; for a roster of another classroom, give this \
                 classroom's",
            )),
            _ => Err(InputError::new(
                ErrorKind::Syntax,
                download,
                0,
                "cannot tell the assignment's repositories from their names: give the folder \
                 `gh classroom clone student-repos` made (SLUG-submissions), under its name",
            )),
        }
    }

    /// The grades file: the roster with `points_awarded` and `points_available` (replaced if
    /// it has them, added if not); a learner with no grade has `points_awarded` empty.
    pub fn grades_csv(&self, grades: &[LearnerGrade], points: f64) -> String {
        let mut header = self.table.header.clone();
        let mut at = |name: &str| match self.table.column(name) {
            Some(i) => i,
            None => {
                header.push(name.to_owned());
                header.len() - 1
            }
        };
        let awarded = at("points_awarded");
        let available = at("points_available");
        let mut rows = vec![header.iter().map(|h| sheet_cell(h)).collect::<Vec<_>>()];
        for (learner, grade) in self.learners.iter().zip(grades) {
            let mut row: Vec<String> = self.table.rows[learner.row]
                .cells
                .iter()
                .map(|cell| sheet_cell(cell))
                .collect();
            row.resize(header.len(), String::new());
            row[awarded] = grade.points.map(points_text).unwrap_or_default();
            row[available] = points_text(points);
            rows.push(row);
        }
        csv_text(&rows)
    }
}

/// The slugs `name` could have: each prefix before a `-` after which a roster username ends
/// the name (compared without case).
fn slugs(name: &str, usernames: &BTreeSet<&str>) -> BTreeSet<String> {
    name.char_indices()
        .filter(|(_, c)| *c == '-')
        .filter(|(i, _)| *i > 0 && usernames.contains(name[i + 1..].to_ascii_lowercase().as_str()))
        .map(|(i, _)| name[..i].to_owned())
        .collect()
}

/// Whose the repository `entry` is, for the assignment `slug` (`None`: not known, the
/// repositories being known by `groups`): a team's repository that `groups` names is every
/// member's, any other is the learner whose username ends its name.
pub fn claim(
    entry: &Entry,
    slug: Option<&str>,
    groups: Option<&Groups>,
) -> Result<Claim, Unclaimed> {
    if entry.kind != Kind::Folder {
        return Err(Unclaimed::NotNamed("not a repository's folder".into()));
    }
    if let Some(group) = groups.and_then(|groups| groups.by_key(&entry.name)) {
        return Ok(Claim {
            learner: group.members[0].clone(),
            place: String::new(),
            group: (group.members.len() > 1 || group.name != entry.name).then(|| group.clone()),
        });
    }
    let Some(slug) = slug else {
        return Err(Unclaimed::NotNamed(
            "not a repository the --groups file names (its student_repository_name)".into(),
        ));
    };
    match entry
        .name
        .strip_prefix(slug)
        .and_then(|rest| rest.strip_prefix('-'))
    {
        Some(user) if !user.is_empty() => Ok(Claim {
            learner: user.to_ascii_lowercase(),
            place: String::new(),
            group: None,
        }),
        _ => Err(Unclaimed::NotNamed(format!(
            "not named as a repository of the assignment {slug} ({slug}-USERNAME)"
        ))),
    }
}

/// GitHub Classroom's row of the platforms' table.
pub const FACTS: LmsFacts = LmsFacts {
    title: "GitHub Classroom",
    roster: "a GitHub Classroom roster",
    learner: "the GitHub user",
    not_on_roster: "a student who accepted the assignment without being on the classroom's \
        roster (or linked to no roster entry), or a team's repository of a group assignment \
        (named after the team: give --groups with the CSV `gh classroom assignment-grades` \
        writes): add them to the roster and download it again, or give --not-on-roster skip to \
        grade the others (this entry is listed and gets no grade)",
    takes_assignment: false,
    // GitHub Classroom imports no grades: the raw score is written without points.
    needs_points: false,
    read_roster: |path, _| Ok(Box::new(read_roster(super::table::read_table(path)?)?)),
    groups: GroupsFile::Read(super::groups::read_github),
};

impl Gradebook for Roster {
    fn learners(&self) -> &[Learner] {
        &self.learners
    }

    fn render(&self, grades: &[LearnerGrade], points: f64) -> String {
        self.grades_csv(grades, points)
    }

    fn describe(&self) -> String {
        "GitHub Classroom imports no grades: the file is the roster with points_awarded".to_owned()
    }

    fn recognises(&self, entry: &Entry, groups: Option<&Groups>) -> bool {
        self.is_repository(entry) || groups.is_some_and(|g| g.by_key(&entry.name).is_some())
    }

    fn claims<'a>(
        &'a self,
        download: &Download,
        entries: &[Entry],
        _: &'a LearnerIndex<'a>,
        groups: Option<&'a Groups>,
    ) -> Result<Claims<'a>, InputError> {
        let slug = match self.slug(download.root_name(), entries, download.name()) {
            Ok(slug) => Some(slug),
            // With the groups, a team's repository is known by its name.
            Err(_) if groups.is_some() => None,
            Err(error) => return Err(error),
        };
        Ok(Box::new(move |entry| claim(entry, slug.as_deref(), groups)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lms::table::parse_table;

    fn folder(name: &str) -> Entry {
        Entry {
            name: name.into(),
            kind: Kind::Folder,
            os_name: name.into(),
        }
    }

    const ROSTER: &str = "identifier,github_username,github_id,name\n\
        jane@example.com,OctoCat,1,Jane\n\
        x,x-bob,2,X\n\
        y,bob,3,Y\n\
        zed@example.com,,,Zed\n";

    #[test]
    fn repositories_are_named_slug_dash_username() {
        let roster = read_roster(parse_table(ROSTER.as_bytes(), "r.csv").unwrap()).unwrap();
        assert_eq!(roster.learners[0].id, "octocat");
        assert_eq!(
            roster.learners[3].note.as_deref(),
            Some("no GitHub account is linked to this roster entry")
        );
        let entries = [
            folder("lab-5-octocat"),
            folder("lab-5-x-bob"),
            folder("lab-5-bob"),
        ];
        assert_eq!(
            roster.slug("lab-5-submissions", &entries, "d").unwrap(),
            "lab-5"
        );
        // Renamed: "lab-5-x" (x-bob's or bob's?) is settled by the others.
        assert_eq!(roster.slug("renamed", &entries, "d").unwrap(), "lab-5");
        assert!(roster.slug("renamed", &entries[1..2], "d").is_err());
        assert_eq!(
            claim(&entries[1], Some("lab-5"), None).map(|c| c.learner),
            Ok("x-bob".to_owned())
        );
        assert!(claim(&folder("lab-6-bob"), Some("lab-5"), None).is_err());
        assert!(roster.is_repository(&entries[0]));
        assert!(!roster.is_repository(&folder("lab-5-submissions")));
        let grades = [
            LearnerGrade {
                points: Some(3.0),
                feedback: vec![],
            },
            LearnerGrade {
                points: None,
                feedback: vec![],
            },
            LearnerGrade {
                points: Some(0.0),
                feedback: vec![],
            },
            LearnerGrade {
                points: None,
                feedback: vec![],
            },
        ];
        assert_eq!(
            roster.grades_csv(&grades, 4.0),
            "identifier,github_username,github_id,name,points_awarded,points_available\n\
             jane@example.com,OctoCat,1,Jane,3,4\n\
             x,x-bob,2,X,,4\n\
             y,bob,3,Y,0,4\n\
             zed@example.com,,,Zed,,4\n"
        );
    }
}
