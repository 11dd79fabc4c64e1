//! Who is in which group, for a group assignment's download (`grade --lms --groups FILE`,
//! issue 36): a group hands in one submission, named by the group, and every member is graded
//! on it.
//!
//! - **Canvas**: the group set's CSV export (`GroupCategoriesController#export`, the columns
//!   `name,canvas_user_id,user_id,login_id,sections,group_name,canvas_group_id,group_id`,
//!   whose `group_name` is empty for a learner in no group). A group assignment's download
//!   names each group's files by the group's name and one member's user id
//!   (`Assignment#representatives`), and a learner in no group by their display name, which
//!   the export does not have: its `name` is the sortable name (`build_row`), whose words
//!   [`super::canvas_names::display_name_keys`] reorders. A group is its `canvas_group_id`:
//!   two groups may share a name.
//! - **GitHub Classroom**: the CSV `gh classroom assignment-grades` writes
//!   (`cmd/gh-classroom/assignment-grades/assignment_grades.go`): a row per learner with
//!   `github_username` and `student_repository_name` (and `group_name` for a group
//!   assignment): a team's repository is every member's.

use std::collections::HashMap;
use std::path::Path;

use crate::input::{ErrorKind, InputError, InputErrors};
use crate::output::quote;

use super::table::{read_table, Table};

/// A group: its name and its members' platform ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The group's name (Canvas's group name; GitHub Classroom's team, or its repository).
    pub name: String,
    /// The members' ids as the roster has them (Canvas user ids, GitHub usernames in lower
    /// case), in the file's order.
    pub members: Vec<String>,
}

/// The groups of a group set.
#[derive(Clone, Debug, Default)]
pub struct Groups {
    groups: Vec<Group>,
    /// A member's group.
    of_member: HashMap<String, usize>,
    /// A group by its key: Canvas's `canvas_group_id` (its name in a file without ids);
    /// GitHub Classroom's repository name (in lower case).
    by_key: HashMap<String, usize>,
    /// A learner's name as the file has it (Canvas's `name`: the sortable name, or a display
    /// name in a file made by hand), which names a learner in no group.
    display: HashMap<String, String>,
}

impl Groups {
    /// The group `member` is in.
    pub fn of(&self, member: &str) -> Option<&Group> {
        self.of_member.get(member).map(|&i| &self.groups[i])
    }

    /// The group whose key (a GitHub Classroom repository's name) is `key`.
    pub fn by_key(&self, key: &str) -> Option<&Group> {
        self.by_key
            .get(&key.to_ascii_lowercase())
            .map(|&i| &self.groups[i])
    }

    /// A learner's name as the file has it (`Groups::display`), if it has one.
    pub fn display_name(&self, member: &str) -> Option<&str> {
        self.display.get(member).map(String::as_str)
    }

    fn add(&mut self, key: String, name: &str, member: String) {
        let next = self.groups.len();
        let at = *self.by_key.entry(key).or_insert(next);
        if at == next {
            self.groups.push(Group {
                name: name.to_owned(),
                members: Vec::new(),
            });
        }
        self.groups[at].members.push(member.clone());
        self.of_member.insert(member, at);
    }
}

/// The column `name` of `table`, or an error saying what the file should be.
fn column(table: &Table, name: &str, what: &str) -> Result<usize, InputError> {
    table
        .column(name)
        .ok_or_else(|| table.header_error(format!("no {name} column: not {what}")))
}

const CANVAS_FILE: &str = "a Canvas group set's export (People, the group set, Export: the \
     columns name, canvas_user_id, ..., group_name)";

const GITHUB_FILE: &str = "the CSV `gh classroom assignment-grades -a ASSIGNMENT_ID` writes \
     (github_username, student_repository_name, group_name)";

/// Where a group was first seen in a groups file, to say when another row disagrees.
struct FirstRow {
    line: u64,
    /// The group's name on that row (Canvas), or its repository (GitHub Classroom).
    other: String,
}

/// An error of `table`'s `line` saying two groups are one name (or one group two names), the
/// first row named.
fn two_groups_error(
    table: &Table,
    line: u64,
    column: &str,
    value: &str,
    why: String,
) -> InputError {
    InputError::new(ErrorKind::Rule, &table.name, line, why)
        .column(column)
        .value(value)
}

/// Reads a Canvas group set's export. Groups are keyed by `canvas_group_id`: Canvas lets two
/// groups of a set have one name (`app/models/group.rb` validates a name's presence and
/// length only), and the download names a group's entry by its name and one member, so a
/// group is known by its members' ids, never by its name. A file without `canvas_group_id`
/// (made by hand: Canvas's export has it whenever someone is in a group) cannot tell two
/// groups of one name from one group, so there a name on two rows is refused, naming both.
pub fn read_canvas(path: &Path) -> Result<Groups, InputErrors> {
    let table = read_table(path)?;
    let user = column(&table, "canvas_user_id", CANVAS_FILE).map_err(InputErrors::one)?;
    let group = column(&table, "group_name", CANVAS_FILE).map_err(InputErrors::one)?;
    let group_id = table.column("canvas_group_id");
    let display = table.column("name");
    let mut groups = Groups::default();
    let mut errors = InputErrors::new();
    let mut seen: HashMap<String, u64> = HashMap::new();
    // A group's first row: by its id (with the name there), or by its name without ids.
    let mut first: HashMap<String, FirstRow> = HashMap::new();
    for row in &table.rows {
        let id = row.cells[user].trim();
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            errors.push(
                InputError::new(
                    ErrorKind::Value,
                    &table.name,
                    row.line,
                    "not a Canvas user id",
                )
                .column("canvas_user_id")
                .value(id),
            );
            continue;
        }
        if let Some(first) = seen.insert(id.to_owned(), row.line) {
            errors.push(
                InputError::new(
                    ErrorKind::Rule,
                    &table.name,
                    row.line,
                    format!(
                        "the user {id} is listed twice (first on line {first}): a learner is \
                         in one group of a group set"
                    ),
                )
                .column("canvas_user_id")
                .value(id),
            );
            continue;
        }
        if let Some(at) = display {
            groups
                .display
                .insert(id.to_owned(), row.cells[at].trim().to_owned());
        }
        let name = row.cells[group].trim();
        if name.is_empty() {
            continue;
        }
        let key = match canvas_group_key(&table, row, group_id, name, &mut first) {
            Ok(key) => key,
            Err(error) => {
                errors.push(error);
                continue;
            }
        };
        groups.add(key, name, id.to_owned());
    }
    if errors.is_empty() {
        Ok(groups)
    } else {
        Err(errors)
    }
}

/// The key of the group a Canvas export's `row` puts its learner in (named `name`): its
/// `canvas_group_id`, or without that column its name, seen only on this row's group.
fn canvas_group_key(
    table: &Table,
    row: &super::table::Row,
    group_id: Option<usize>,
    name: &str,
    first: &mut HashMap<String, FirstRow>,
) -> Result<String, InputError> {
    let Some(at) = group_id else {
        // Without ids, every row of a name would be one group: refused past the first.
        if let Some(seen) = first.get(name) {
            return Err(two_groups_error(
                table,
                row.line,
                "group_name",
                name,
                format!(
                    "the group {} is named on line {} too, and without a canvas_group_id \
                     column two groups of one name (which Canvas allows) cannot be told from one \
                     group: give Canvas's own export of the group set (People, the group set, \
                     Export), which has canvas_group_id",
                    quote(name),
                    seen.line
                ),
            ));
        }
        first.insert(
            name.to_owned(),
            FirstRow {
                line: row.line,
                other: String::new(),
            },
        );
        return Ok(name.to_owned());
    };
    let id = row.cells[at].trim();
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(two_groups_error(
            table,
            row.line,
            "canvas_group_id",
            id,
            format!("not a Canvas group id, for the group {}", quote(name)),
        ));
    }
    match first.get(id) {
        Some(seen) if seen.other != name => Err(two_groups_error(
            table,
            row.line,
            "group_name",
            name,
            format!(
                "the group {id} is named {} on line {}: one group, two names; export the group \
                 set again",
                quote(&seen.other),
                seen.line
            ),
        )),
        Some(_) => Ok(id.to_owned()),
        None => {
            first.insert(
                id.to_owned(),
                FirstRow {
                    line: row.line,
                    other: name.to_owned(),
                },
            );
            Ok(id.to_owned())
        }
    }
}

/// Reads `gh classroom assignment-grades`' CSV.
pub fn read_github(path: &Path) -> Result<Groups, InputErrors> {
    let table = read_table(path)?;
    let user = column(&table, "github_username", GITHUB_FILE).map_err(InputErrors::one)?;
    let repository =
        column(&table, "student_repository_name", GITHUB_FILE).map_err(InputErrors::one)?;
    let team = table.column("group_name");
    let mut groups = Groups::default();
    let mut errors = InputErrors::new();
    let mut seen: HashMap<String, u64> = HashMap::new();
    let mut teams: HashMap<String, FirstRow> = HashMap::new();
    for row in &table.rows {
        let username = row.cells[user].trim().to_ascii_lowercase();
        let repo = row.cells[repository].trim();
        if username.is_empty() || repo.is_empty() {
            continue;
        }
        if let Some(first) = seen.insert(username.clone(), row.line) {
            errors.push(
                InputError::new(
                    ErrorKind::Rule,
                    &table.name,
                    row.line,
                    format!("the GitHub user is listed twice (first on line {first})"),
                )
                .column("github_username")
                .value(row.cells[user].trim()),
            );
            continue;
        }
        let name = team
            .map(|at| row.cells[at].trim())
            .filter(|name| !name.is_empty())
            .unwrap_or(repo);
        // A team is its repository; a team's name on two repositories is two teams that
        // reports could not tell apart (GitHub's team names are unique in an organisation, so
        // the file was put together from more than one classroom, or by hand).
        match teams.get(name) {
            Some(seen) if !seen.other.eq_ignore_ascii_case(repo) => {
                errors.push(two_groups_error(
                    &table,
                    row.line,
                    "group_name",
                    name,
                    format!(
                        "the team {} has the repository {} on line {} and {} here: two teams \
                         of one name; give the CSV of one assignment as gh classroom \
                         assignment-grades writes it",
                        quote(name),
                        quote(&seen.other),
                        seen.line,
                        quote(repo)
                    ),
                ));
                continue;
            }
            Some(_) => {}
            None => {
                teams.insert(
                    name.to_owned(),
                    FirstRow {
                        line: row.line,
                        other: repo.to_owned(),
                    },
                );
            }
        }
        groups.add(repo.to_ascii_lowercase(), name, username);
    }
    if errors.is_empty() {
        Ok(groups)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> tempfile::NamedTempFile {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), text).unwrap();
        file
    }

    #[test]
    fn a_canvas_group_set_export_gives_groups_and_display_names() {
        let export = file(
            "name,canvas_user_id,user_id,login_id,sections,group_name,canvas_group_id,group_id\n\
             Ada Lovelace,1001,,ada,A,Team Rocket,9,\n\
             Ben Okafor,1002,,ben,A,Team Rocket,9,\n\
             Cy Yilmaz,1003,,cy,A,,,\n",
        );
        let groups = read_canvas(export.path()).unwrap();
        let rocket = groups.of("1002").unwrap();
        assert_eq!(rocket.name, "Team Rocket");
        assert_eq!(rocket.members, ["1001", "1002"]);
        assert!(groups.of("1003").is_none());
        assert_eq!(groups.display_name("1003"), Some("Cy Yilmaz"));
        let twice = file("canvas_user_id,group_name\n1,A\n1,B\nx,A\n");
        let errors = read_canvas(twice.path()).unwrap_err();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(read_canvas(file("name,group\n").path()).is_err());
    }

    #[test]
    fn two_canvas_groups_of_one_name_stay_two_groups_or_are_refused_without_ids() {
        // Canvas allows two groups of one name (`app/models/group.rb` validates presence and
        // length only); its export tells them apart by canvas_group_id.
        let export = file(
            "name,canvas_user_id,user_id,login_id,sections,group_name,canvas_group_id,group_id\n\
             Ada,1001,,ada,A,Team 1,9,\n\
             Ben,1002,,ben,A,Team 1,9,\n\
             Cy,1003,,cy,A,Team 1,10,\n\
             Dee,1004,,dee,A,Team 1,10,\n",
        );
        let groups = read_canvas(export.path()).unwrap();
        assert_eq!(groups.of("1001").unwrap().members, ["1001", "1002"]);
        assert_eq!(groups.of("1004").unwrap().members, ["1003", "1004"]);
        // Without ids one name cannot be two groups: refused, naming both rows.
        let no_ids = file("name,canvas_user_id,group_name\nAda,1001,Team 1\nCy,1003,Team 1\n");
        let errors = read_canvas(no_ids.path()).unwrap_err().to_string();
        assert!(
            errors.contains(":3:") && errors.contains("named on line 2 too"),
            "{errors}"
        );
        // One id, two names: refused.
        let renamed = file("canvas_user_id,group_name,canvas_group_id\n1,A,9\n2,B,9\n3,C,x\n");
        let errors = read_canvas(renamed.path()).unwrap_err();
        assert_eq!(errors.len(), 2, "{errors:?}");
    }

    #[test]
    fn one_team_name_on_two_repositories_is_refused_naming_both_rows() {
        let grades = file(
            "github_username,student_repository_name,group_name\n\
             ada,lab-5-rocket,Rocket\n\
             ben,Lab-5-Rocket,Rocket\n\
             cy,lab-5-rocket-2,Rocket\n",
        );
        let errors = read_github(grades.path()).unwrap_err().to_string();
        assert!(
            errors.contains(":4:") && errors.contains("on line 2 and"),
            "{errors}"
        );
    }

    #[test]
    fn assignment_grades_give_each_repository_its_members() {
        let grades = file(
            "assignment_name,assignment_url,starter_code_url,github_username,roster_identifier,student_repository_name,student_repository_url,submission_timestamp,points_awarded,points_available,group_name\n\
             lab,u,s,Ada-L,ada@x,lab-5-rocket,r,t,1,4,Rocket\n\
             lab,u,s,benok,ben@x,lab-5-rocket,r,t,1,4,Rocket\n\
             lab,u,s,sian,sian@x,lab-5-sian,r,t,1,4,\n",
        );
        let groups = read_github(grades.path()).unwrap();
        let rocket = groups.by_key("Lab-5-Rocket").unwrap();
        assert_eq!(rocket.name, "Rocket");
        assert_eq!(rocket.members, ["ada-l", "benok"]);
        assert_eq!(groups.by_key("lab-5-sian").unwrap().members, ["sian"]);
    }
}
