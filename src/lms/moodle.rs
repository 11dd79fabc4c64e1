//! Moodle: the assignment's "Download all submissions" zip (with or without "Download
//! submissions in folders"), the offline grading worksheet ("Download grading worksheet"),
//! and the worksheet its "Upload grading worksheet" takes back.
//!
//! - **Download** (`mod/assign/classes/downloader.php` in moodle/moodle, `get_student_prefix`
//!   and `load_submissionplugin_filelist`; `download_submissions` in `mod/assign/locallib.php`
//!   before 4.1): each learner's prefix is `{full name}_{participant id}`, the full name with
//!   `_` made a space and cleaned as a file name ([`name_in_files`]: spaces, commas and letters
//!   of any script stay), the participant id the number the worksheet's `Identifier` carries
//!   (`get_uniqueid_for_user`; `Participant` stands for the name with blind marking). The name
//!   is checked against the worksheet's ([`claim_named`]). In
//!   folders, a learner's files are in `{prefix}_assignsubmission_file/` (`..._file_/` before
//!   4.1), as uploaded, and online text in `{prefix}_assignsubmission_onlinetext/`; without
//!   folders, each file is `{prefix}_assignsubmission_file_{file name}`. Only the latest
//!   attempt is in it. Group submissions are named after the group: refused.
//! - **Roster**: the grading worksheet (`mod/assign/gradingtable.php` downloading): columns
//!   `Identifier` (`Participant 104`), `Full name`, the identity fields, `Status`, `Grade`,
//!   `Maximum Grade` (`Scale` for a scale), `Grade can be changed`, `Last modified
//!   (submission)`, `Last modified (grade)`, and a column per feedback text (`Feedback
//!   comments`). These are Moodle's English strings (`mod/assign/lang/en/assign.php`): the
//!   importer finds its columns by the strings of the language it runs in.
//! - **Import** (`mod/assign/feedback/offline/importgradeslib.php` and `locallib.php`,
//!   `process_import_grades`): the columns are found by `Identifier`, `Grade` and `Last
//!   modified (grade)`; a learner is found by the number after `Participant `; a row is
//!   skipped when its grade is blank, the same as the grade there, above the maximum or
//!   changed in Moodle since the worksheet was downloaded (unless "ignore modified"); a
//!   feedback cell replaces the feedback whenever it differs, a blank one clearing it, and is
//!   stored as HTML (`set_editor_text` with `FORMAT_HTML`). A learner left out of the file is
//!   not changed. So the worksheet written keeps every column and a row per learner given a
//!   grade, with `Grade` and `Feedback comments` filled in (the feedback as plain text made
//!   safe for HTML: `&`, `<`, `>` as entities, a `<br>` between lines); a learner with no
//!   grade is left out.

use std::collections::HashMap;

use crate::input::{ErrorKind, InputError, InputErrors};

use crate::output::quote;

use super::canvas_names::comparable;
use super::download::{Claim, Download, Entry, Kind, Unclaimed};
use super::gradebook::{Claims, Gradebook, GroupsFile, LearnerIndex, LmsFacts};
use super::groups::Groups;
use super::roster::{is_gradable_points, parse_points, points_text, Learner, LearnerGrade};
use super::table::{php_csv_text, php_reread_breaks, sheet_cell, Table};

/// What follows a learner's prefix in the download: the submission plugin's name.
const PLUGIN: &str = "_assignsubmission_";

/// What the worksheet's `Identifier` cells start with (`hiddenuser`: `Participant `).
const PARTICIPANT: &str = "Participant ";

/// Whose the download's entry `entry` is.
pub fn claim(entry: &Entry) -> Result<Claim, String> {
    let not_moodle = || {
        "not named as Moodle names a submission ({full name}_{participant id}_assignsubmission_...)"
            .to_owned()
    };
    let Some(at) = entry.name.find(PLUGIN) else {
        return Err(not_moodle());
    };
    let prefix = &entry.name[..at];
    let Some((_, id)) = prefix.rsplit_once('_') else {
        return Err(not_moodle());
    };
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(not_moodle());
    }
    let rest = &entry.name[at + PLUGIN.len()..];
    let place =
        match entry.kind {
            Kind::Folder => {
                let plugin = rest.trim_end_matches('_');
                if plugin == "file" {
                    String::new()
                } else {
                    plugin.to_owned()
                }
            }
            Kind::File | Kind::Link => match rest.split_once('_') {
                Some(("file", name)) if !name.is_empty() => name.to_owned(),
                Some((plugin, name)) if !name.is_empty() => format!("{plugin}/{name}"),
                // Named as a learner's folder, but a link: Moodle's zip holds the folder itself.
                _ if entry.kind == Kind::Link => return Err(
                    "a symbolic link named as Moodle names a learner's folder: Moodle's download \
                     holds the folder itself, never a link; unpack the download again, or put \
                     the folder in the link's place"
                        .to_owned(),
                ),
                _ => return Err(not_moodle()),
            },
        };
    Ok(Claim {
        learner: id.to_owned(),
        place,
        group: None,
    })
}

/// The name part of a learner's prefix as Moodle writes it for `full_name`
/// (`downloader.php`, `get_student_prefix`): `_` made a space (`str_replace`), then
/// `clean_filename` (`clean_param` with `PARAM_FILE` in `lib/moodlelib.php`), which removes
/// control characters and `&`, `<`, `>`, `"`, the backquote, `|`, `'`, `:`, `\` and `/`.
pub fn name_in_files(full_name: &str) -> String {
    full_name
        .chars()
        .map(|c| if c == '_' { ' ' } else { c })
        .filter(|&c| !c.is_control() && !"&<>\"`|':\\/".contains(c))
        .collect()
}

/// What Moodle's download names a learner under blind marking (`get_string('participant',
/// 'mod_assign')` in English) instead of their full name.
const BLIND_NAME: &str = "Participant";

/// Whose the download's entry `entry` is ([`claim`]), its name checked against the
/// worksheet's for that participant id (`index`: the worksheet's learners by id): an entry
/// whose name is not the name Moodle writes for that learner ([`name_in_files`]; any
/// learner's under blind marking) is someone else's, or of another course or assignment
/// whose participant ids collide, and is said, never graded. An id the worksheet lacks is
/// left to the caller.
pub fn claim_named(
    entry: &Entry,
    roster: &Roster,
    index: &HashMap<&str, usize>,
) -> Result<Claim, String> {
    let claim = claim(entry)?;
    let Some(&n) = index.get(claim.learner.as_str()) else {
        return Ok(claim);
    };
    let Some(full_name) = roster.full_name(&roster.learners[n]) else {
        return Ok(claim);
    };
    let prefix = &entry.name[..entry.name.find(PLUGIN).expect("a claimed entry's plugin")];
    let (named, _) = prefix.rsplit_once('_').expect("a claimed entry's id");
    let comparable = |name: &str| comparable(name_in_files(name).trim());
    if named == BLIND_NAME || comparable(named) == comparable(full_name) {
        return Ok(claim);
    }
    Err(format!(
        "named for {} (Participant {}), but the worksheet's Participant {} is {} ({} in \
         Moodle's file names): the download and the worksheet are not of one assignment, or \
         the name changed between them (download both again)",
        quote(named),
        claim.learner,
        claim.learner,
        quote(full_name),
        quote(name_in_files(full_name).trim())
    ))
}

/// A Moodle grading worksheet.
#[derive(Clone, Debug)]
pub struct Roster {
    table: Table,
    /// The learners, in the worksheet's order.
    pub learners: Vec<Learner>,
    identifier: usize,
    grade: usize,
    modified: usize,
    feedback: Option<usize>,
    /// The `Full name` column, if the worksheet shows names.
    full_name: Option<usize>,
    /// The assignment's maximum grade.
    pub points: Option<f64>,
}

/// A cell Moodle's upload would read back wrongly, with the row's other cells moved
/// ([`php_reread_breaks`]).
fn reread_error(table: &Table, row: &super::table::Row, at: usize) -> InputError {
    InputError::new(
        ErrorKind::Value,
        &table.name,
        row.line,
        "Moodle's upload would read this row wrongly: it reads the worksheet, writes it again \
         with PHP's fputcsv and reads that with fgetcsv, which split a cell ending in a \
         backslash, or holding a quote after two, and the row's grade would be read from another \
         cell; Moodle's import reads only Identifier, Grade, Last modified (grade) and the \
         feedback, so take the backslashes out of this cell (or change it in Moodle and download \
         the worksheet again)",
    )
    .column(table.header[at].trim())
    .value(row.cells[at].as_str())
}

/// Reads a grading worksheet.
pub fn read_roster(table: Table) -> Result<Roster, InputErrors> {
    let mut errors = InputErrors::new();
    let mut column = |name: &str| {
        let found = table.column(name);
        if found.is_none() {
            errors.push(table.header_error(format!(
                "no {name} column: not a Moodle grading worksheet (download it with Moodle's \
                 language set to English, from the assignment's View all submissions, Download \
                 grading worksheet, with offline grading worksheets enabled in its feedback \
                 types)"
            )));
        }
        found
    };
    let identifier = column("Identifier");
    let grade = column("Grade");
    let modified = column("Last modified (grade)");
    let (Some(identifier), Some(grade), Some(modified)) = (identifier, grade, modified) else {
        return Err(errors);
    };
    if table.column("Scale").is_some() {
        return Err(InputErrors::from(vec![table.header_error(
            "the assignment is graded on a scale: leasejudge writes points; set the assignment's \
             grade type to Point",
        )]));
    }
    if table.column("Group").is_some() {
        return Err(InputErrors::from(vec![table.header_error(
            "students submit in groups: the download is named by group, not by learner, so it \
             cannot be matched to the worksheet's learners",
        )]));
    }
    let maximum = table.column("Maximum Grade");
    let full_name = table.column("Full name");
    let feedback = table.column("Feedback comments");
    let mut learners = Vec::new();
    let mut points: Option<(f64, u64)> = None;
    let mut seen: HashMap<String, u64> = HashMap::new();
    for (index, row) in table.rows.iter().enumerate() {
        let cells = &row.cells;
        let id = cells[identifier].trim();
        let Some(number) = id
            .strip_prefix(PARTICIPANT.trim_end())
            .map(str::trim)
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        else {
            errors.push(
                InputError::new(
                    ErrorKind::Value,
                    &table.name,
                    row.line,
                    "not a participant's identifier (Participant NUMBER): download the worksheet \
                     again, with Moodle's language set to English",
                )
                .column(table.header[identifier].trim())
                .value(id),
            );
            continue;
        };
        if let Some(first) = seen.insert(number.to_owned(), row.line) {
            errors.push(
                InputError::new(
                    ErrorKind::Rule,
                    &table.name,
                    row.line,
                    format!("{id} is listed twice (first on line {first})"),
                )
                .column(table.header[identifier].trim())
                .value(id),
            );
            continue;
        }
        // The cells written back as read (the grade and the feedback are written anew).
        for (at, cell) in cells.iter().enumerate() {
            if at != grade && Some(at) != feedback && php_reread_breaks(cell) {
                errors.push(reread_error(&table, row, at));
            }
        }
        if let Some(at) = maximum {
            match (parse_points(&cells[at]), points) {
                (None, _) => errors.push(
                    InputError::new(
                        ErrorKind::Value,
                        &table.name,
                        row.line,
                        "not a number of points",
                    )
                    .column(table.header[at].trim())
                    .value(cells[at].trim()),
                ),
                (Some(max), None) if !is_gradable_points(max) => errors.push(
                    InputError::new(
                        ErrorKind::Value,
                        &table.name,
                        row.line,
                        "the assignment's maximum grade is 0 (less than 0.01): every grade \
                         written would be 0; set its maximum grade in Moodle and download the \
                         worksheet again",
                    )
                    .column(table.header[at].trim())
                    .value(cells[at].trim()),
                ),
                (Some(max), None) => points = Some((max, row.line)),
                (Some(max), Some((first, line))) if max != first => errors.push(
                    InputError::new(
                        ErrorKind::Rule,
                        &table.name,
                        row.line,
                        format!("differs from the maximum grade on line {line}, {first}"),
                    )
                    .column(table.header[at].trim())
                    .value(cells[at].trim()),
                ),
                _ => {}
            }
        }
        let label = match full_name
            .map(|at| cells[at].trim())
            .filter(|n| !n.is_empty())
        {
            Some(name) => format!("{name} ({PARTICIPANT}{number})"),
            None => format!("{PARTICIPANT}{number}"),
        };
        learners.push(Learner {
            id: number.to_owned(),
            label,
            row: index,
            note: None,
        });
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Roster {
        table,
        learners,
        identifier,
        grade,
        modified,
        feedback,
        full_name,
        points: points.map(|(max, _)| max),
    })
}

/// Plain text as Moodle's HTML feedback field shows it: `&`, `<` and `>` as entities, and a
/// `<br>` between lines; `"` and `\` as entities too, so that no learner's text puts in the
/// cell what Moodle's second reading of the worksheet splits ([`php_reread_breaks`]).
pub fn feedback_html(lines: &[String]) -> String {
    let escape = |line: &String| {
        line.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\\', "&#92;")
    };
    lines.iter().map(escape).collect::<Vec<_>>().join("<br>")
}

impl Roster {
    /// `learner`'s full name, if the worksheet shows it.
    fn full_name(&self, learner: &Learner) -> Option<&str> {
        let at = self.full_name?;
        Some(self.table.rows[learner.row].cells[at].trim()).filter(|name| !name.is_empty())
    }

    /// Whether the worksheet has a `Feedback comments` column to fill in.
    pub fn has_feedback(&self) -> bool {
        self.feedback.is_some()
    }

    /// The worksheet Moodle's upload takes: every column, and a row per learner with a grade
    /// (`grades` is parallel to the learners), its `Grade` and `Feedback comments` filled in;
    /// the others are left out so that their grades and feedback stay.
    pub fn worksheet(&self, grades: &[LearnerGrade]) -> String {
        let mut rows = vec![self.table.header.clone()];
        for (learner, grade) in self.learners.iter().zip(grades) {
            let Some(value) = grade.points else {
                continue;
            };
            let cells = &self.table.rows[learner.row].cells;
            let mut row: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(i, cell)| {
                    // What the importer reads, as Moodle wrote it.
                    if i == self.identifier || i == self.modified {
                        cell.clone()
                    } else {
                        sheet_cell(cell)
                    }
                })
                .collect();
            row[self.grade] = points_text(value);
            if let Some(at) = self.feedback {
                row[at] = sheet_cell(&feedback_html(&grade.feedback));
            }
            rows.push(row);
        }
        php_csv_text(&rows)
    }
}

/// Moodle's row of the platforms' table.
pub const FACTS: LmsFacts = LmsFacts {
    title: "Moodle",
    roster: "a Moodle worksheet",
    learner: "Participant",
    not_on_roster: "the grading worksheet lists the participants the grading table showed when \
        it was downloaded (its filter, its group, Show only active enrolments): download the \
        worksheet again from the same view as the submissions, or give --not-on-roster skip to \
        grade the others (this learner is listed and gets no grade)",
    takes_assignment: false,
    needs_points: true,
    read_roster: |path, _| Ok(Box::new(read_roster(super::table::read_table(path)?)?)),
    groups: GroupsFile::Refused(
        "Moodle names a group's submission by the group, which its grading worksheet does not \
         list; grade group assignments there with Moodle's own tools",
    ),
};

impl Gradebook for Roster {
    fn learners(&self) -> &[Learner] {
        &self.learners
    }

    fn points(&self) -> Option<f64> {
        self.points
    }

    fn render(&self, grades: &[LearnerGrade], _: f64) -> String {
        self.worksheet(grades)
    }

    fn describe(&self) -> String {
        format!(
            "upload it on the assignment's Upload grading worksheet page{}",
            if self.has_feedback() {
                ""
            } else {
                " (the worksheet has no Feedback comments column: enable feedback comments to \
                 carry feedback)"
            }
        )
    }

    fn recognises(&self, entry: &Entry, _: Option<&Groups>) -> bool {
        claim(entry).is_ok()
    }

    fn claims<'a>(
        &'a self,
        _: &Download,
        _: &[Entry],
        index: &'a LearnerIndex<'a>,
        _: Option<&'a Groups>,
    ) -> Result<Claims<'a>, InputError> {
        Ok(Box::new(move |entry| {
            claim_named(entry, self, index).map_err(Unclaimed::NotNamed)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lms::table::parse_table;

    #[test]
    fn moodle_names_are_read_in_folders_and_without() {
        let claim_of = |name: &str, kind: Kind| {
            claim(&Entry {
                name: name.into(),
                kind,
                os_name: name.into(),
            })
            .map(|c| (c.learner, c.place))
        };
        assert_eq!(
            claim_of("Jane Doe_104_assignsubmission_file", Kind::Folder),
            Ok(("104".into(), String::new()))
        );
        assert_eq!(
            claim_of("Siân O'Brien, Jr_7_assignsubmission_file_", Kind::Folder),
            Ok(("7".into(), String::new()))
        );
        assert_eq!(
            claim_of("Jane Doe_104_assignsubmission_onlinetext", Kind::Folder),
            Ok(("104".into(), "onlinetext".into()))
        );
        assert_eq!(
            claim_of(
                "Jane Doe_104_assignsubmission_file_my matrix.csv",
                Kind::File
            ),
            Ok(("104".into(), "my matrix.csv".into()))
        );
        assert_eq!(
            claim_of(
                "Participant_9_assignsubmission_onlinetext_onlinetext.html",
                Kind::File
            ),
            Ok(("9".into(), "onlinetext/onlinetext.html".into()))
        );
        assert!(claim_of("Group A_assignsubmission_file", Kind::Folder).is_err());
        assert!(claim_of("matrix.csv", Kind::File).is_err());
    }

    #[test]
    fn a_worksheet_gives_learners_points_and_an_upload() {
        let text = "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,Last modified (submission),Last modified (grade),Feedback comments\n\
            Participant 104,Jane Doe,jane@example.com,Submitted for grading,,20.00,Yes,\"Monday, 1 January 2024, 10:00 AM\",-,\n\
            Participant 7,@Sneaky,s@example.com,No submission,12.00,20.00,Yes,-,\"Tuesday, 2 January 2024, 9:00 AM\",Good\n";
        let roster = read_roster(parse_table(text.as_bytes(), "ws.csv").unwrap()).unwrap();
        assert_eq!(roster.points, Some(20.0));
        assert_eq!(roster.learners[0].label, "Jane Doe (Participant 104)");
        let grades = [
            LearnerGrade {
                points: Some(15.0),
                feedback: vec!["Score: 3/4".into(), "a <b> & c".into()],
            },
            LearnerGrade {
                points: None,
                feedback: vec![],
            },
        ];
        assert_eq!(
            roster.worksheet(&grades),
            "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,Last modified (submission),Last modified (grade),Feedback comments\n\
             Participant 104,Jane Doe,jane@example.com,Submitted for grading,15,20.00,Yes,\"Monday, 1 January 2024, 10:00 AM\",-,Score: 3/4<br>a &lt;b&gt; &amp; c\n"
        );
        let swapped = [grades[1].clone(), grades[0].clone()];
        assert!(roster.worksheet(&swapped).contains(",'@Sneaky,"));
        let bad = "Identifier,Grade,Last modified (grade),Maximum Grade\nTeilnehmer/in 4,,-,10\n";
        let errors = read_roster(parse_table(bad.as_bytes(), "ws.csv").unwrap()).unwrap_err();
        assert!(errors.listed()[0].message.contains("Participant NUMBER"));
        let scale = "Identifier,Grade,Scale,Last modified (grade)\nParticipant 1,,,-\n";
        assert!(read_roster(parse_table(scale.as_bytes(), "ws.csv").unwrap()).is_err());
    }
}
