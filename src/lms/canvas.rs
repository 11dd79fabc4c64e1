//! Canvas: the assignment's "Download Submissions" zip, the gradebook's "Export" CSV, and the
//! CSV its gradebook "Import" takes back.
//!
//! - **Download** (`lib/content_zipper.rb` in instructure/canvas-lms, `get_filename` and
//!   `add_upload_submission`): every uploaded file is one entry at the zip's root, named
//!   `{name}[_LATE]_{user id}_{attachment id}_{file}`: the learner's sortable name lowercased
//!   with everything but letters and digits removed (`doejane`, `obriensiân`), `LATE` for a
//!   late submission, Canvas's user id, the file's attachment id and its display name (a file
//!   uploaded again under the same name is displayed `matrix-1.csv`). Only the latest
//!   submission's files are in it. Canvas reads these names back (for a zip of marked
//!   files, `Assignment#infer_comment_context_from_filename`) by splitting at `_` and taking
//!   the first two parts made of digits as the user id and the attachment id: so does this
//!   module. A text entry is `{name}[_LATE]_{user id}_text.html`, a URL
//!   `{name}[_LATE]_{user id}_link.html`. With anonymous grading the names carry
//!   `anon_{anonymous id}` instead, which no gradebook export has: refused.
//! - **Roster**: the gradebook export (`lib/gradebook_exporter.rb`): `Student` (or
//!   `LastName`,`FirstName`), `ID` (the user id), the SIS and login columns, `Section`, the
//!   custom columns, then an assignment per column, headed `{title} ({assignment id})`, and
//!   the totals; a `Points Possible` row gives each assignment's points.
//! - **Import** (`app/models/gradebook_importer.rb`): the header must start with `Student`
//!   and `ID` (or `LastName`, `FirstName`, `ID`) and end its student columns with `Section`;
//!   a learner is found by `ID`; a `Points Possible` row is read; a column is matched to its
//!   assignment by the id in its header. A learner or an assignment column left out of the
//!   file is not changed, but a blank cell is a change: it deletes the score there
//!   (`no_change_to_value?` compares the new value with the score). So the file written has
//!   the student columns through `Section`, this assignment's column, the `Points Possible`
//!   row, and a row per learner given a grade: a learner with no grade is left out.

use std::collections::HashMap;

use crate::input::{ErrorKind, InputError, InputErrors};
use crate::output::quote;

use super::canvas_names::{
    display_name_keys, is_named, name_in_files, name_key, readings, same_name,
};
use super::download::{Claim, Download, Entry, Kind, Unclaimed};
use super::gradebook::{Claims, Gradebook, GroupsFile, LearnerIndex, LmsFacts};
use super::groups::{Group, Groups};
use super::roster::{is_gradable_points, parse_points, points_text, Learner, LearnerGrade};
use super::table::{sheet_cell, Kept, Row, Table};

/// The headers of the export's total columns, which are not assignments
/// (`GradebookImporter::NON_ASSIGNMENT_COLUMN_HEADERS`, matched anywhere in a header as the
/// importer matches them).
const NOT_ASSIGNMENTS: [&str; 9] = [
    "Current Score",
    "Current Points",
    "Current Grade",
    "Final Score",
    "Final Points",
    "Final Grade",
    "Override Score",
    "Override Grade",
    "Override Status",
];

/// Whether `entry` is named as Canvas names a submission's files (by its shape alone: which
/// learner's it is takes the roster, [`claim`]).
pub fn looks_named(entry: &Entry) -> bool {
    entry.kind != Kind::Folder && !readings(&entry.name).is_empty()
}

/// Whose the download's entry `entry` is: of its readings ([`readings`]), the one whose user
/// id is on the roster and whose name part is the name Canvas writes for that learner, or
/// (with `groups`) for that learner's group, or for a learner in no group their display
/// name. None: an entry of someone the roster lacks, or a name that is not the roster's
/// (said, with what the roster has); two: said too. Never a guess.
pub fn claim(entry: &Entry, roster: &Roster, groups: Option<&Groups>) -> Result<Claim, Unclaimed> {
    let not_named = |why: String| Err(Unclaimed::NotNamed(why));
    if entry.kind == Kind::Folder {
        return not_named(
            "a folder: Canvas's download holds files named after their learners".into(),
        );
    }
    let readings = readings(&entry.name);
    // A name of anonymous grading (`anon_{anonymous id}`), unless it is a learner's whose
    // name Canvas writes `anon` (`A, Non`), which the roster finds below.
    let parts: Vec<&str> = entry.name.split('_').collect();
    let anonymous = parts.first() == Some(&"anon") || parts.get(..2) == Some(&["LATE", "anon"]);
    let anonymous_error = || {
        not_named(
            "named for anonymous grading (anon_...): the gradebook export has no anonymous ids; \
             download the submissions again once the assignment's anonymous grading is off"
                .into(),
        )
    };
    if readings.is_empty() {
        if anonymous {
            return anonymous_error();
        }
        return not_named(
            "not named as Canvas names a submission's files ({name}_{user id}_{attachment id}_\
             {file})"
                .into(),
        );
    }
    let mut found: Vec<Claim> = Vec::new();
    for reading in &readings {
        let learner = roster.learner(reading.user);
        let claim = |group: Option<Group>| Claim {
            learner: reading.user.to_owned(),
            place: reading.place.clone(),
            group,
        };
        if roster
            .by_id
            .get(reading.user)
            .is_some_and(|&i| is_named(reading.name, &roster.keys[i]))
        {
            found.push(claim(None));
        }
        let Some(groups) = groups else { continue };
        match groups.of(reading.user) {
            Some(group) if same_name(reading.name, &group.name) => {
                found.push(claim(Some(group.clone())))
            }
            // A learner in no group of a group assignment: named by their display name, which
            // no export has (the group set's `name` column is the sortable name too): the
            // words of the sortable name in another order (`Lovelace, Ada` as `Ada Lovelace`).
            None if learner.is_some_and(|learner| {
                groups
                    .display_name(reading.user)
                    .is_some_and(|name| same_name(reading.name, name))
                    || display_name_keys(&roster.sortable_name(learner))
                        .iter()
                        .any(|key| is_named(reading.name, key))
            }) =>
            {
                found.push(claim(None))
            }
            _ => {}
        }
    }
    // A group named as its member who handed in is the group's submission (every member's,
    // that member's too).
    found.dedup();
    if let [a, b] = found.as_slice() {
        if a.learner == b.learner && a.place == b.place && a.group.is_some() != b.group.is_some() {
            found.retain(|claim| claim.group.is_some());
        }
    }
    match found.as_slice() {
        [_] => return Ok(found.remove(0)),
        [first, second, ..] => {
            return not_named(format!(
                "named for two learners of the roster: user {} (file {}) and user {} (file {}); \
                 rename it in the download to the one it is",
                first.learner,
                quote(&first.place),
                second.learner,
                quote(&second.place)
            ))
        }
        [] if anonymous => return anonymous_error(),
        [] => {}
    }
    // Whose it is: the reading furthest right decides (Canvas builds the name with the user id
    // just before the attachment id, and a name part may itself end in `_DIGITS`): a learner
    // of the roster under another name (renamed since the download) is said as theirs, never
    // blamed on, nor with `--not-on-roster skip` left out as, the user another split reads.
    let reading = readings.last().expect("a reading at least");
    let renamed = readings
        .iter()
        .find(|other| roster.learner(other.user).is_some());
    match (roster.learner(reading.user), renamed) {
        (None, None) => {
            let mut absent: Vec<&str> = readings.iter().map(|r| r.user).collect();
            absent.dedup();
            return Err(Unclaimed::NotOnRoster(format!(
                "the submission of the Canvas user {}, who is not on the roster",
                absent.join(" or ")
            )));
        }
        // Someone the roster lacks, or (another split) a learner of the roster renamed: not
        // left out as the one, nor graded as the other (with `--missing zero` a renamed
        // learner would get 0): said, both ways.
        (None, Some(other)) => {
            let learner = roster.learner(other.user).expect("on the roster");
            return not_named(format!(
                "read from the right, the submission of the Canvas user {}, who is not on the \
                 roster; read otherwise, named for {} (user {}), whom the roster names {}: \
                 rename it in the download to the one it is",
                reading.user,
                quote(other.name),
                other.user,
                quote(&roster.sortable_name(learner))
            ));
        }
        (Some(_), _) => {}
    }
    let learner = roster
        .learner(reading.user)
        .expect("the reading's user is on the roster");
    let name = roster.sortable_name(learner);
    not_named(format!(
        "named for {} (user {}), but the roster's user {} is {} ({} in Canvas's file names): \
         in a group assignment Canvas names each group's submission by the group and one \
         member, so give the group set's export with --groups; otherwise the download and the \
         gradebook export are not of one class, or the name changed between them (export \
         again)",
        quote(reading.name),
        reading.user,
        reading.user,
        quote(&name),
        quote(&name_in_files(&name))
    ))
}

/// A Canvas gradebook export, read for one assignment.
#[derive(Clone, Debug)]
pub struct Roster {
    table: Table,
    /// The learners, in the export's order.
    pub learners: Vec<Learner>,
    /// The `Section` column: the last of the student columns.
    section: usize,
    /// This assignment's column.
    assignment: usize,
    /// The `Points Possible` row.
    points_row: Option<usize>,
    /// The points Canvas holds for the assignment.
    pub points: Option<f64>,
    /// A learner by user id.
    by_id: HashMap<String, usize>,
    /// Per learner, their sortable name as compared with a download's names
    /// ([`name_key`]).
    keys: Vec<String>,
}

/// An assignment column's title and id: `Lab 5 (1234)`.
fn title_and_id(header: &str) -> Option<(&str, &str)> {
    let inner = header.trim().strip_suffix(')')?;
    let (title, id) = inner.rsplit_once(" (")?;
    (!id.is_empty() && id.bytes().all(|b| b.is_ascii_digit())).then_some((title, id))
}

/// Whether a row is the export's `Muted` or `Manual Posting` row, which the importer skips.
fn is_posting_row(row: &Row) -> bool {
    row.left_out_quiet && row.cells.iter().all(|cell| is_posting_cell(cell))
}

/// Whether a cell may be in the `Muted` or `Manual Posting` row.
fn is_posting_cell(cell: &str) -> bool {
    let cell = cell.trim();
    cell.is_empty()
        || cell.eq_ignore_ascii_case("muted")
        || cell.to_ascii_lowercase().starts_with("manual posting")
}

/// The columns of an export `read_roster` uses, decided from `table`'s header (no rows read
/// yet): the student columns through `Section` and the assignment's. The other assignments'
/// are not held (a class of 100,000 learners held 20 columns to use 6). `None` (all kept)
/// when the header is not one `read_roster` takes, so that its errors are said as they are.
pub fn kept_columns(table: &Table, assignment: Option<&str>) -> Option<Kept> {
    let (_, section) = student_columns(&table.header)?;
    let chosen = assignment_column(table, section, assignment).ok()?;
    Some(Kept {
        columns: (0..table.header.len())
            .map(|i| i <= section || i == chosen)
            .collect(),
        quiet: is_posting_cell,
    })
}

/// Where the names' columns end (`1`: `Student`, `2`: `LastName`, `FirstName`; the `ID`
/// column is the next) and the `Section` column is, if `header` is a Canvas export's.
fn student_columns(header: &[String]) -> Option<(usize, usize)> {
    let has = |i: usize, text: &str| header.get(i).is_some_and(|h| h.contains(text));
    let names = if header.len() > 3 && has(0, "Student") && has(1, "ID") {
        1
    } else if header.len() > 4 && has(0, "LastName") && has(1, "FirstName") && has(2, "ID") {
        2
    } else {
        return None;
    };
    let section = (names + 1..header.len()).find(|&i| header[i].trim() == "Section")?;
    Some((names, section))
}

/// An assignment worth no points (`0.00`): every grade written would be 0, replacing what
/// is there (an excused `EX`, grades given), so it is refused at its row.
fn no_points(
    table: &Table,
    row: &super::table::Row,
    column: usize,
    points: Option<f64>,
) -> Option<InputError> {
    points.filter(|&p| !is_gradable_points(p)).map(|_| {
        InputError::new(
            ErrorKind::Value,
            &table.name,
            row.line,
            "the assignment is worth no points on Canvas (less than 0.01): every grade written \
             would be 0 (replacing an excused EX and every grade there); set its points on \
             Canvas (the assignment's Points) and export the gradebook again",
        )
        .column(table.header[column].trim())
        .value(row.cells[column].trim())
    })
}

/// What the first cell of the export's points row holds, and what Canvas's importer looks
/// for in every row's first cell (`row[0] =~ /Points Possible/`).
const POINTS_POSSIBLE: &str = "Points Possible";

/// Why a row whose first cell holds `Points Possible` cannot be read as the points row: it is
/// a learner's (their name holds it: the importer would set the assignment's points to their
/// grade, and every grade here would be scaled to it), or a second one. `None`: it is the
/// export's points row.
fn points_possible_error(
    table: &Table,
    row: &super::table::Row,
    id_column: usize,
    first: Option<usize>,
) -> Option<InputError> {
    let id = row.cells[id_column].trim();
    let message = if !id.is_empty() {
        format!(
            "the learner {id}'s name holds \"{POINTS_POSSIBLE}\", which Canvas's importer reads \
             as the assignment's points row: the import would set the assignment's points to this \
             learner's grade; change the name in Canvas (or take the row out of the export and \
             give --not-on-roster skip) and export again"
        )
    } else if let Some(first) = first {
        format!(
            "a second {POINTS_POSSIBLE} row (the first is on line {}): which one is the \
             assignment's? export the gradebook again",
            table.rows[first].line
        )
    } else {
        return None;
    };
    Some(
        InputError::new(ErrorKind::Rule, &table.name, row.line, message)
            .column(table.header[0].trim())
            .value(row.cells[0].trim()),
    )
}

/// The column of the assignment `assignment` names (its id, its title or its whole header;
/// without it, the export's only assignment), among the columns after `section`.
fn assignment_column(
    table: &Table,
    section: usize,
    assignment: Option<&str>,
) -> Result<usize, InputErrors> {
    let header = &table.header;
    let assignments: Vec<(usize, &str, &str)> = (section + 1..header.len())
        .filter(|&i| !NOT_ASSIGNMENTS.iter().any(|n| header[i].contains(n)))
        .filter_map(|i| title_and_id(&header[i]).map(|(title, id)| (i, title, id)))
        .collect();
    let listed = || {
        assignments
            .iter()
            .map(|(i, _, _)| header[*i].trim().to_owned())
            .collect::<Vec<_>>()
            .join("; ")
    };
    let chosen: Vec<usize> = match assignment {
        None => assignments.iter().map(|(i, _, _)| *i).collect(),
        Some(wanted) => {
            let wanted = wanted.trim();
            let by_id: Vec<usize> = assignments
                .iter()
                .filter(|(_, _, id)| *id == wanted)
                .map(|(i, _, _)| *i)
                .collect();
            if by_id.is_empty() {
                assignments
                    .iter()
                    .filter(|(i, title, _)| *title == wanted || header[*i].trim() == wanted)
                    .map(|(i, _, _)| *i)
                    .collect()
            } else {
                by_id
            }
        }
    };
    match (chosen.as_slice(), assignment) {
        ([one], _) => Ok(*one),
        ([], None) => Err(InputErrors::from(vec![table.header_error(
            "no assignment columns (headed TITLE (ID)): export the gradebook with the \
             assignment in it",
        )])),
        ([], Some(wanted)) => Err(InputErrors::from(vec![table
            .header_error(format!(
                "no assignment {wanted:?} (give --assignment its id or title); the export's \
                 assignments: {}",
                listed()
            ))
            .value(wanted)])),
        (_, None) => Err(InputErrors::from(vec![table.header_error(format!(
            "the export has {} assignments: name the one being graded with --assignment ID \
             (its id, the number in parentheses): {}",
            chosen.len(),
            listed()
        ))])),
        (_, Some(wanted)) => Err(InputErrors::from(vec![table
            .header_error(format!(
                "{} assignments are titled {wanted:?}: give --assignment the id of one: {}",
                chosen.len(),
                listed()
            ))
            .value(wanted)])),
    }
}

/// Reads a gradebook export for the assignment `assignment` names (its id, its title or its
/// whole header; without it, the export's only assignment).
pub fn read_roster(table: Table, assignment: Option<&str>) -> Result<Roster, InputErrors> {
    let header = &table.header;
    let has = |i: usize, text: &str| header.get(i).is_some_and(|h| h.contains(text));
    let (names, id_column) = if header.len() > 3 && has(0, "Student") && has(1, "ID") {
        (1, 1)
    } else if header.len() > 4 && has(0, "LastName") && has(1, "FirstName") && has(2, "ID") {
        (2, 2)
    } else {
        return Err(InputErrors::from(vec![table.header_error(
            "not a Canvas gradebook export: its header starts with Student and ID (or LastName, \
             FirstName and ID); export the gradebook from Canvas's Gradebook, Export",
        )]));
    };
    let Some(section) = (id_column + 1..header.len()).find(|&i| header[i].trim() == "Section")
    else {
        return Err(InputErrors::from(vec![table.header_error(
            "no Section column: Canvas's importer needs the student columns to end with it; \
             export the gradebook again",
        )]));
    };
    let assignment_column = assignment_column(&table, section, assignment)?;
    let mut errors = InputErrors::new();
    let mut learners: Vec<Learner> = Vec::new();
    let mut points_row = None;
    let mut points = None;
    let mut seen: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    for (index, row) in table.rows.iter().enumerate() {
        let cells = &row.cells;
        // Canvas's importer takes any row whose first cell holds `Points Possible` for the
        // points row (`check_for_non_student_row`): the export's own has no user id.
        if cells[0].contains(POINTS_POSSIBLE) {
            if let Some(error) = points_possible_error(&table, row, id_column, points_row) {
                errors.push(error);
                continue;
            }
            points_row = Some(index);
            points = parse_points(&cells[assignment_column]);
            if let Some(error) = no_points(&table, row, assignment_column, points) {
                errors.push(error);
            }
            continue;
        }
        if is_posting_row(row) {
            continue;
        }
        let id = cells[id_column].trim();
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            errors.push(
                InputError::new(
                    ErrorKind::Value,
                    &table.name,
                    row.line,
                    "not a Canvas user id: the download names each file by its learner's id, so \
                     every learner's row needs it; export the gradebook again",
                )
                .column(header[id_column].trim())
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
                    format!("the learner {id} is listed twice (first on line {first})"),
                )
                .column(header[id_column].trim())
                .value(id),
            );
            continue;
        }
        let name = if names == 2 {
            format!("{} {}", cells[1].trim(), cells[0].trim())
        } else {
            cells[0].trim().to_owned()
        };
        learners.push(Learner {
            id: id.to_owned(),
            label: format!("{name} ({id})"),
            row: index,
            note: None,
        });
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let by_id = learners
        .iter()
        .enumerate()
        .map(|(i, l)| (l.id.clone(), i))
        .collect();
    let mut roster = Roster {
        table,
        learners,
        section,
        assignment: assignment_column,
        points_row,
        points,
        by_id,
        keys: Vec::new(),
    };
    roster.keys = roster
        .learners
        .iter()
        .map(|l| name_key(&roster.sortable_name(l)))
        .collect();
    Ok(roster)
}

impl Roster {
    /// The learner whose user id is `id`.
    pub fn learner(&self, id: &str) -> Option<&Learner> {
        self.by_id.get(id).map(|&i| &self.learners[i])
    }

    /// A learner's sortable name, which Canvas names their files by: the `Student` cell
    /// (`Last, First`), or `LastName, FirstName` from an export that splits them.
    pub fn sortable_name(&self, learner: &Learner) -> String {
        let cells = &self.table.rows[learner.row].cells;
        if self.id_column() == 2 {
            format!("{}, {}", cells[0].trim(), cells[1].trim())
        } else {
            cells[0].trim().to_owned()
        }
    }

    /// Whether the learner is excused from the assignment: their cell is `EX`
    /// (`GradebookExporter`, for an excused submission; the importer reads it in any case).
    pub fn is_excused(&self, learner: &Learner) -> bool {
        self.table.rows[learner.row].cells[self.assignment]
            .trim()
            .eq_ignore_ascii_case("EX")
    }

    /// The assignment's column header, `Lab 5 (1234)`.
    pub fn assignment(&self) -> &str {
        self.table.header[self.assignment].trim()
    }

    /// The CSV Canvas's gradebook import takes: the student columns through `Section` and this
    /// assignment's column; the `Points Possible` row; a row per learner with a grade
    /// (`grades` is parallel to the learners), the others left out so that their scores stay.
    /// `points` is the assignment's points, written in the `Points Possible` row.
    pub fn import_csv(&self, grades: &[LearnerGrade], points: f64) -> String {
        // Each row is written as it is made, never all of them held as cells first (a class
        // of 100,000 learners held a copy of every student cell).
        let take = |cells: &[String]| -> Vec<String> {
            let mut row: Vec<String> = cells[..=self.section].to_vec();
            row.push(cells[self.assignment].clone());
            row
        };
        let mut writer = csv::Writer::from_writer(Vec::with_capacity(self.rendered_size(grades)));
        let mut write = |row: &[String]| {
            writer
                .write_record(row)
                .expect("writing CSV to memory cannot fail")
        };
        write(&take(&self.table.header));
        // The row as exported (the points are the roster's, `grade` checks): the importer
        // sets the assignment's points from it.
        let mut points_row = vec![String::new(); self.section + 2];
        match self.points_row {
            Some(index) => {
                let cells = &self.table.rows[index].cells;
                points_row[0] = cells[0].clone();
                points_row[self.section + 1] = match parse_points(&cells[self.assignment]) {
                    Some(_) => cells[self.assignment].clone(),
                    None => points_text(points),
                };
            }
            None => {
                points_row[0] = "    Points Possible".to_owned();
                points_row[self.section + 1] = points_text(points);
            }
        }
        write(&points_row);
        for (learner, grade) in self.learners.iter().zip(grades) {
            let Some(value) = grade.points else {
                continue;
            };
            let cells = &self.table.rows[learner.row].cells;
            let mut row: Vec<String> = take(cells)
                .iter()
                .enumerate()
                // The ID is what the importer finds the learner by: digits, as exported.
                .map(|(i, cell)| {
                    if i == self.id_column() {
                        cell.clone()
                    } else {
                        sheet_cell(cell)
                    }
                })
                .collect();
            row[self.section + 1] = points_text(value);
            write(&row);
        }
        let bytes = writer
            .into_inner()
            .expect("writing CSV to memory cannot fail");
        String::from_utf8(bytes).expect("CSV of strings is UTF-8")
    }

    /// At least the bytes [`Roster::import_csv`] writes, so that its buffer is made once: one
    /// grown by doubling held up to three times the gradebook while it was copied (a class
    /// of 100,000 learners writes 30 MB). Each cell counts its quotes, its delimiter and a
    /// `'` [`sheet_cell`] may put before it; each row its grade (at most 16 bytes).
    fn rendered_size(&self, grades: &[LearnerGrade]) -> usize {
        let row_size = |cells: &[String]| {
            cells[..=self.section]
                .iter()
                .chain([&cells[self.assignment]])
                .map(|cell| cell.len() + 4)
                .sum::<usize>()
                + 16
        };
        let learners: usize = self
            .learners
            .iter()
            .zip(grades)
            .filter(|(_, grade)| grade.points.is_some())
            .map(|(learner, _)| row_size(&self.table.rows[learner.row].cells))
            .sum();
        let points_row = match self.points_row {
            Some(index) => row_size(&self.table.rows[index].cells),
            None => 32 + 4 * (self.section + 2),
        };
        row_size(&self.table.header) + points_row + learners
    }

    fn id_column(&self) -> usize {
        if self.table.header[0].contains("LastName") {
            2
        } else {
            1
        }
    }
}

/// Canvas's row of the platforms' table.
pub const FACTS: LmsFacts = LmsFacts {
    title: "Canvas",
    roster: "a Canvas gradebook export",
    learner: "the Canvas user",
    not_on_roster: "Canvas's gradebook export leaves out inactive and concluded students unless \
        the Gradebook shows them (View, Show: Inactive enrollments, Concluded enrollments), and a \
        filtered view exports only whom it shows, while Download Submissions includes them: \
        export the gradebook again showing every student, or give --not-on-roster skip to grade \
        the others (this learner is listed and gets no grade)",
    takes_assignment: true,
    needs_points: true,
    read_roster: |path, assignment| {
        // An export holds every assignment's column: only the graded one is kept.
        let table = super::table::read_table_keeping(path, &|header_only| {
            kept_columns(header_only, assignment)
        })?;
        Ok(Box::new(read_roster(table, assignment)?))
    },
    groups: GroupsFile::Read(super::groups::read_canvas),
};

impl Gradebook for Roster {
    fn learners(&self) -> &[Learner] {
        &self.learners
    }

    fn points(&self) -> Option<f64> {
        self.points
    }

    fn excused(&self, n: usize) -> bool {
        self.is_excused(&self.learners[n])
    }

    fn render(&self, grades: &[LearnerGrade], points: f64) -> String {
        self.import_csv(grades, points)
    }

    fn describe(&self) -> String {
        format!(
            "import it in Canvas's Gradebook (Import): the column {}",
            self.assignment()
        )
    }

    fn recognises(&self, entry: &Entry, _: Option<&Groups>) -> bool {
        looks_named(entry)
    }

    fn claims<'a>(
        &'a self,
        _: &Download,
        _: &[Entry],
        _: &'a LearnerIndex<'a>,
        groups: Option<&'a Groups>,
    ) -> Result<Claims<'a>, InputError> {
        Ok(Box::new(move |entry| claim(entry, self, groups)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lms::table::parse_table;

    fn entry(name: &str) -> Entry {
        Entry {
            name: name.into(),
            kind: Kind::File,
            os_name: name.into(),
        }
    }

    const NAMES: &str = "Student,ID,SIS Login ID,Section,Lab (5)\n\
        \"Doe, Jane_7\",1001,jd,A,\n\
        \"Smith, Bob\",7,bs,A,\n\
        \"Okafor, Ben\",1002,bo,A,\n\
        \"O'Brien, Siân\",42,so,A,\n";

    fn roster_of(text: &str) -> Roster {
        read_roster(parse_table(text.as_bytes(), "gb.csv").unwrap(), None).unwrap()
    }

    #[test]
    fn canvas_names_are_read_from_the_right_learner_of_the_roster() {
        let roster = roster_of(NAMES);
        let claim_of =
            |name: &str| claim(&entry(name), &roster, None).map(|c| (c.learner, c.place, c.group));
        // Jane's name ends in _7: her file is hers, not user 7's.
        assert_eq!(
            claim_of("doejane_7_1001_55001_matrix.csv"),
            Ok(("1001".into(), "matrix.csv".into(), None))
        );
        assert_eq!(
            claim_of("smithbob_LATE_7_55002_lab_2_matrix-1.csv"),
            Ok(("7".into(), "lab_2_matrix-1.csv".into(), None))
        );
        assert_eq!(
            claim_of("obriensiân_42_text.html"),
            Ok(("42".into(), "text.html".into(), None))
        );
        // Named for a learner of the roster under another name: said, never graded.
        let Err(Unclaimed::NotNamed(why)) = claim_of("teamrocket_1002_55003_matrix.csv") else {
            panic!("a name that is not the roster's is refused");
        };
        assert!(
            why.contains("\"teamrocket\"")
                && why.contains("\"Okafor, Ben\"")
                && why.contains("--groups"),
            "{why}"
        );
        assert_eq!(
            claim_of("strangerx_4242_1_matrix.csv"),
            Err(Unclaimed::NotOnRoster(
                "the submission of the Canvas user 4242, who is not on the roster".into()
            ))
        );
        // Jane not on the roster, and user 7 (another split of her name) is Bob: neither left
        // out as Jane's nor taken for Bob's renamed, both said.
        let without_jane = roster_of(&NAMES.replace("\"Doe, Jane_7\",1001,jd,A,\n", ""));
        let Err(Unclaimed::NotNamed(why)) = claim(
            &entry("doejane_7_1001_55001_matrix.csv"),
            &without_jane,
            None,
        ) else {
            panic!("an entry read two ways is said");
        };
        assert!(
            why.contains("the Canvas user 1001, who is not on the roster")
                && why.contains(
                    "named for \"doejane\" (user 7), whom the roster names \"Smith, Bob\""
                ),
            "{why}"
        );
        // Nobody of its splits on the roster: someone the roster lacks.
        let without_bob = roster_of(
            &NAMES
                .replace("\"Doe, Jane_7\",1001,jd,A,\n", "")
                .replace("\"Smith, Bob\",7,", "\"Smith, Bob\",8,"),
        );
        assert_eq!(
            claim(
                &entry("doejane_7_1001_55001_matrix.csv"),
                &without_bob,
                None
            ),
            Err(Unclaimed::NotOnRoster(
                "the submission of the Canvas user 7 or 1001, who is not on the roster".into()
            ))
        );
        assert!(matches!(
            claim_of("anon_Xb3kq_99_matrix.csv"),
            Err(Unclaimed::NotNamed(why)) if why.contains("anonymous")
        ));
        assert!(claim_of("notes.txt").is_err());
        assert!(claim_of("doe_12_34_").is_err());
        let folder = Entry {
            name: "smithbob_7_2_x".into(),
            kind: Kind::Folder,
            os_name: "smithbob_7_2_x".into(),
        };
        assert!(claim(&folder, &roster, None).is_err());
    }

    #[test]
    fn a_groups_submission_is_every_members() {
        let roster = roster_of(NAMES);
        let export = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(
            export.path(),
            "name,canvas_user_id,user_id,login_id,sections,group_name,canvas_group_id,group_id\n\
             \"Smith, Bob\",7,,bs,A,Team Rocket,9,\n\
             \"Okafor, Ben\",1002,,bo,A,Team Rocket,9,\n\
             \"O'Brien, Siân\",42,,so,A,,,\n",
        )
        .unwrap();
        let groups = crate::lms::groups::read_canvas(export.path()).unwrap();
        let claimed = claim(
            &entry("teamrocket_1002_55003_matrix.csv"),
            &roster,
            Some(&groups),
        )
        .unwrap();
        let group = claimed.group.unwrap();
        assert_eq!(group.name, "Team Rocket");
        assert_eq!(group.members, ["7", "1002"]);
        // A group named as the member who handed in: the group's submission.
        let named_as_bob = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(
            named_as_bob.path(),
            "canvas_user_id,group_name,canvas_group_id\n7,\"Smith, Bob\",5\n1002,\"Smith, Bob\",5\n",
        )
        .unwrap();
        let bobs = crate::lms::groups::read_canvas(named_as_bob.path()).unwrap();
        let claimed = claim(&entry("smithbob_7_9_matrix.csv"), &roster, Some(&bobs)).unwrap();
        assert_eq!(claimed.group.unwrap().members, ["7", "1002"]);
        // A learner in no group is named by their display name in a group assignment.
        assert_eq!(
            claim(&entry("siânobrien_42_9_matrix.csv"), &roster, Some(&groups))
                .map(|c| (c.learner, c.group)),
            Ok(("42".into(), None))
        );
    }

    const EXPORT: &str = "Student,ID,SIS User ID,SIS Login ID,Section,Notes,Lab 1 (11),Lab 2 (22),Current Score,Final Score\n\
        Manual Posting,,,,,,Manual Posting,,,\n    \
        Points Possible,,,,,(read only),\"5,00\",10.00,(read only),(read only)\n\
        \"Doe, Jane\",123456,s1,jdoe,A,hi,5.00,8.00,80,80\n\
        \"=cmd|' /C calc'!A0\",42,s2,x,A,,,,,\n";

    #[test]
    fn an_export_gives_learners_points_and_an_import() {
        let table = parse_table(EXPORT.as_bytes(), "gb.csv").unwrap();
        let err = read_roster(table.clone(), None).unwrap_err();
        assert!(
            err.listed()[0].message.contains("Lab 1 (11); Lab 2 (22)"),
            "{err:?}"
        );
        let roster = read_roster(table.clone(), Some("Lab 1")).unwrap();
        assert_eq!(roster.points, Some(5.0));
        assert_eq!(roster.assignment(), "Lab 1 (11)");
        let roster = read_roster(table, Some("22")).unwrap();
        assert_eq!(roster.points, Some(10.0));
        assert_eq!(roster.learners.len(), 2);
        assert_eq!(roster.learners[0].label, "Doe, Jane (123456)");
        let grades = [
            LearnerGrade {
                points: Some(7.5),
                feedback: vec![],
            },
            LearnerGrade {
                points: None,
                feedback: vec![],
            },
        ];
        assert_eq!(
            roster.import_csv(&grades, 10.0),
            "Student,ID,SIS User ID,SIS Login ID,Section,Lab 2 (22)\n    \
             Points Possible,,,,,10.00\n\
             \"Doe, Jane\",123456,s1,jdoe,A,7.5\n"
        );
        let grades = [grades[1].clone(), grades[0].clone()];
        assert!(roster
            .import_csv(&grades, 10.0)
            .ends_with("\n'=cmd|' /C calc'!A0,42,s2,x,A,7.5\n"));
    }

    /// Read keeping only the columns it uses (the student columns and the graded
    /// assignment's), an export gives the same roster and import as read whole, and the other
    /// columns are not held; a row whose kept cells are blank but another is not is still a
    /// learner's row without an id (an error), never taken for the `Manual Posting` row.
    #[test]
    fn an_export_read_for_one_assignment_holds_only_its_columns() {
        use crate::lms::table::parse_table_keeping;
        let keeping = |text: &str, assignment: &str| {
            parse_table_keeping(text.as_bytes(), "gb.csv", &|header_only| {
                kept_columns(header_only, Some(assignment))
            })
        };
        let grades = [
            LearnerGrade {
                points: Some(7.5),
                feedback: vec![],
            },
            LearnerGrade {
                points: Some(1.0),
                feedback: vec![],
            },
        ];
        for assignment in ["Lab 1", "22"] {
            let whole = read_roster(
                parse_table(EXPORT.as_bytes(), "gb.csv").unwrap(),
                Some(assignment),
            )
            .unwrap();
            let table = keeping(EXPORT, assignment).unwrap();
            let other = if assignment == "22" { 6 } else { 7 };
            assert!(table.rows.iter().all(|row| row.cells[other].is_empty()
                && row.cells[5].is_empty()
                && row.cells[8].is_empty()));
            let kept = read_roster(table, Some(assignment)).unwrap();
            assert_eq!(kept.learners, whole.learners);
            assert_eq!(kept.points, whole.points);
            assert_eq!(
                kept.import_csv(&grades, 10.0),
                whole.import_csv(&grades, 10.0)
            );
        }
        let text = EXPORT.replace("\"=cmd|' /C calc'!A0\",42,s2,x,A,,,,,", ",,,,,,,,,lost");
        let whole = parse_table(text.as_bytes(), "gb.csv").unwrap();
        let said = read_roster(whole, Some("22")).unwrap_err().to_string();
        assert!(said.contains("not a Canvas user id"), "{said}");
        let kept = keeping(&text, "22").unwrap();
        assert!(!kept.rows.last().unwrap().left_out_quiet);
        assert_eq!(read_roster(kept, Some("22")).unwrap_err().to_string(), said);
    }
}
