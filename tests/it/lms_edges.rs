//! `grade --lms` at the platforms' edges (issue 36): every grade on the learner who earned it,
//! or on nobody, said. Canvas names read back with the roster (a name ending in `_7`), group
//! assignments graded for every member, an entry name twice in a download, learners the
//! roster lacks, an assignment worth no points, Moodle's PHP CSV reader, and the GitHub
//! Classroom reporter's two sums. Each platform's side is imitated from its own code, cited
//! where it is.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use super::lms::{canvas_import, records, zip_dir, CANVAS_EXPORT};
use crate::common::{canvas_export, grade_lms, submission, text, write, Class};

/// Each learner's grade in the import, by user id.
fn canvas_grades(written: &str) -> HashMap<String, String> {
    canvas_import(written)
        .grades
        .into_iter()
        .map(|(id, cells)| (id, cells["4102"].clone()))
        .collect()
}

// ------------------------------------------------ Canvas: a name ending in _DIGITS

#[test]
fn a_canvas_name_ending_in_digits_is_graded_as_its_own_learner() {
    let class = Class::canvas(
        "20.00",
        &[("Doe, Jane_7", "1001", ""), ("Smith, Bob", "7", "9.00")],
    );
    // Jane's sortable name ends in `_7`, and user 7 is someone else, with a grade already.
    // content_zipper.rb: sortable name `Doe, Jane_7` -> `doejane_7`, then `_{user id}`, then
    // `_{attachment id}_{display name}`.
    class.entry("doejane_7_1001_55001_matrix.csv", "ada.csv");
    let zip = class.path("download.zip");
    zip_dir(&class.folder, &zip, "");
    for download in [&class.folder, &zip] {
        let (run, written) = grade_lms("canvas", download, &class.roster, &[]);
        let stderr = text(&run.stderr);
        assert_eq!(
            run.status.code(),
            Some(2),
            "Bob has no submission: {stderr}"
        );
        assert!(
            text(&run.stdout).contains("Doe, Jane_7 (1001)/matrix.csv: 4/4"),
            "{}",
            text(&run.stdout)
        );
        assert!(
            stderr.contains("Smith, Bob (7): no submission in the download"),
            "{stderr}"
        );
        let grades = canvas_grades(&written.expect("written"));
        assert_eq!(grades.get("1001").map(String::as_str), Some("20"));
        assert_eq!(grades.get("7"), None, "Bob's 9 stays: {grades:?}");
    }
    // Bob's own file beside Jane's: each graded on their own.
    class.entry("smithbob_LATE_7_55002_matrix.csv", "ben.csv");
    let (run, written) = class.grade("canvas", &[]);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    let grades = canvas_grades(&written.unwrap());
    assert_eq!(grades["1001"], "20");
    assert_eq!(grades["7"], "5");
}

#[test]
fn a_canvas_entry_named_for_another_learner_is_said_and_nothing_is_graded() {
    let class = Class::canvas("20.00", &[("Okafor, Ben", "1002", "")]);
    class.entry("lovelaceada_1002_55001_matrix.csv", "ada.csv");
    let (run, written) = class.grade("canvas", &[]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr.contains("named for \"lovelaceada\" (user 1002), but the roster's user 1002 is \"Okafor, Ben\" (\"okaforben\" in Canvas's file names)")
            && stderr.contains("lovelaceada_1002_55001_matrix.csv"),
        "{stderr}"
    );
    assert!(written.is_none());
    assert!(run.stdout.is_empty());
}

// ------------------------------------------------ Canvas: group assignments

/// Canvas's export of a group set (`GroupCategoriesController#export`): every student, with
/// their group's name or none. Its `name` column is the sortable name (`build_row`:
/// `row << user.sortable_name`), as the gradebook export's `Student` is.
pub(super) const GROUP_SET: &str =
    "name,canvas_user_id,user_id,login_id,sections,group_name,canvas_group_id,group_id\n\
\"Lovelace, Ada\",1001,,ada,A,Team Rocket,71,\n\
\"Okafor, Ben\",1002,,ben,A,Team Rocket,71,\n\
\"Yilmaz, Cy\",1003,,cy,A,Team Magma,72,\n\
\"Doe, Dee\",1004,,dee,A,Team Magma,72,\n\
\"Adams, Eve\",1005,,eve,A,Team Aqua,73,\n\
\"O'Brien, Siân\",1006,,sian,A,,,\n";

/// What a group assignment's grades become on Canvas: `Assignment#grade_student` grades the
/// whole group unless the assignment grades members individually, so the import's rows,
/// applied in user-id order, each set every member of that learner's group. Returns the
/// grades as they end.
fn as_canvas_grades_a_group(
    grades: &HashMap<String, String>,
    groups: &[&[&str]],
) -> HashMap<String, String> {
    let mut ids: Vec<&String> = grades.keys().collect();
    ids.sort_by_key(|id| id.parse::<u64>().unwrap());
    let mut end = HashMap::new();
    for id in ids {
        let group = groups
            .iter()
            .find(|g| g.contains(&id.as_str()))
            .copied()
            .unwrap_or(&[]);
        for member in group.iter().map(|m| m.to_string()).chain([id.clone()]) {
            end.insert(member, grades[id].clone());
        }
    }
    end
}

#[test]
fn a_canvas_group_submission_is_graded_for_every_member() {
    let class = Class::canvas(
        "20.00",
        &[
            ("Lovelace, Ada", "1001", "3.00"),
            ("Okafor, Ben", "1002", ""),
            ("Yilmaz, Cy", "1003", ""),
            ("Doe, Dee", "1004", "EX"),
            ("Adams, Eve", "1005", ""),
            ("O'Brien, Siân", "1006", ""),
        ],
    );
    let groups = class.path("groups.csv");
    write(&groups, GROUP_SET.as_bytes());
    // `Assignment#representatives`: one member stands for the group, under the group's name;
    // a learner in no group under their display name (`Siân O'Brien`), which neither export
    // has.
    class.entry("teamrocket_1002_55001_matrix.csv", "ada.csv");
    class.entry("teammagma_LATE_1003_55002_matrix.csv", "ben.csv");
    class.entry("siânobrien_1006_55003_matrix.csv", "eve.csv");
    // Without the groups: refused, saying why, nothing written.
    let (run, written) = class.grade("canvas", &[]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr.contains("in a group assignment Canvas names each group's submission by the group and one member, so give the group set's export with --groups"),
        "{stderr}"
    );
    assert!(written.is_none());
    let groups_arg = groups.to_str().unwrap();
    let zip = class.path("download.zip");
    zip_dir(&class.folder, &zip, "");
    for download in [&class.folder, &zip] {
        let (run, written) =
            grade_lms("canvas", download, &class.roster, &["--groups", groups_arg]);
        let stderr = text(&run.stderr);
        assert_eq!(
            run.status.code(),
            Some(2),
            "Eve's group handed in nothing: {stderr}"
        );
        let report = text(&run.stdout);
        for line in [
            "Lovelace, Ada (1001), group Team Rocket/matrix.csv: 4/4",
            "Okafor, Ben (1002), group Team Rocket/matrix.csv: 4/4",
            "Yilmaz, Cy (1003), group Team Magma/matrix.csv: 1/4",
            "Doe, Dee (1004), group Team Magma/matrix.csv: 1/4",
            "O'Brien, Siân (1006)/matrix.csv: 4/4",
        ] {
            assert!(report.contains(line), "{line} in\n{report}");
        }
        assert!(
            stderr.contains("Adams, Eve (1005): no submission in the download"),
            "{stderr}"
        );
        let grades = canvas_grades(&written.unwrap());
        assert_eq!(grades["1001"], "20");
        assert_eq!(grades["1002"], "20");
        assert_eq!(grades["1003"], "5");
        assert_eq!(grades["1004"], "5");
        assert_eq!(grades["1006"], "20");
        assert_eq!(grades.get("1005"), None);
        // However Canvas spreads a row's grade over its group, every member ends as graded.
        let teams: [&[&str]; 3] = [&["1001", "1002"], &["1003", "1004"], &["1005"]];
        assert_eq!(as_canvas_grades_a_group(&grades, &teams), grades);
    }
    // --missing zero: the group that handed in nothing gets 0, every member; no team of a
    // submission ends at 0.
    let (_, written) = class.grade("canvas", &["--groups", groups_arg, "--missing", "zero"]);
    let grades = canvas_grades(&written.unwrap());
    assert_eq!(grades["1005"], "0");
    let teams: [&[&str]; 3] = [&["1001", "1002"], &["1003", "1004"], &["1005"]];
    let end = as_canvas_grades_a_group(&grades, &teams);
    assert_eq!(end["1001"], "20");
    assert_eq!(end["1004"], "5");
}

// ------------------------------------------------ one name twice in a download

/// A zip of stored entries whose names may repeat, laid out as APPNOTE.TXT says (the zip
/// crate's writer refuses a name twice; Python's zipfile and Info-ZIP's zip write one).
fn zip_with_repeats(zip: &Path, entries: &[(&str, &[u8])]) {
    zip_of_stored(zip, entries, false);
}

/// [`zip_with_repeats`], each entry's sizes and CRC-32 in a data descriptor after its data
/// when `descriptors` (general purpose flag bit 3, APPNOTE.TXT 4.3.9: the local header's are
/// zero), as a zipper writing to a stream does (Python's zipfile on a pipe, `zip -` of
/// Info-ZIP); the central directory has them as ever.
pub(super) fn zip_of_stored(zip: &Path, entries: &[(&str, &[u8])], descriptors: bool) {
    let entries: Vec<(&str, &[u8], u32)> = entries
        .iter()
        .map(|&(name, data)| (name, data, 0o100_644))
        .collect();
    zip_of_stored_modes(zip, &entries, descriptors);
}

/// [`zip_of_stored`] of entries with the Unix mode each has (`0o120_777` a symbolic link,
/// its data the link's target), as Info-ZIP's `zip -y` writes them.
pub(super) fn zip_of_stored_modes(zip: &Path, entries: &[(&str, &[u8], u32)], descriptors: bool) {
    fn crc32(data: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &byte in data {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xedb8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
    let mut out: Vec<u8> = Vec::new();
    let mut central: Vec<u8> = Vec::new();
    for &(name, data, mode) in entries {
        let offset = out.len() as u32;
        let sizes = [crc32(data), data.len() as u32, data.len() as u32];
        let flags: u8 = if descriptors { 8 } else { 0 };
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&[20, 0, flags, 0, 0, 0, 0, 0, 0, 0]);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&[20, 3, 20, 0, flags, 0, 0, 0, 0, 0, 0, 0]);
        for value in sizes {
            let local = if descriptors { 0 } else { value };
            out.extend_from_slice(&local.to_le_bytes());
            central.extend_from_slice(&value.to_le_bytes());
        }
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        if descriptors {
            out.extend_from_slice(&0x0807_4b50u32.to_le_bytes());
            for value in sizes {
                out.extend_from_slice(&value.to_le_bytes());
            }
        }
        central.extend_from_slice(&(name.len() as u16).to_le_bytes());
        central.extend_from_slice(&[0; 8]);
        central.extend_from_slice(&(mode << 16).to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let start = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    fs::write(zip, out).unwrap();
}

const TWICE: &str =
    "holds 2 matrices (matrix (2nd of this name).csv, matrix.csv): which one is the answer?";

#[test]
fn one_entry_name_twice_in_a_download_is_two_matrices_said_by_name() {
    let scratch = tempfile::tempdir().unwrap();
    let roster = scratch.path().join("gradebook.csv");
    write(&roster, CANVAS_EXPORT.as_bytes());
    let ada = submission("ada.csv");
    let ben = submission("ben.csv");
    // The zip holds Ada's file twice, full marks then a quarter, and Siân's once.
    for order in [[&ada, &ben], [&ben, &ada]] {
        let zip = scratch.path().join("twice.zip");
        zip_with_repeats(
            &zip,
            &[
                ("lovelaceada_1001_55001_matrix.csv", order[0]),
                ("obriensiân_1005_55005_matrix.csv", &ada),
                ("lovelaceada_1001_55001_matrix.csv", order[1]),
            ],
        );
        let (run, written) = grade_lms("canvas", &zip, &roster, &["--assignment", "4102"]);
        let stderr = text(&run.stderr);
        assert_eq!(run.status.code(), Some(2));
        assert!(
            stderr.contains(&format!("Lovelace, Ada (1001): {TWICE}")),
            "{stderr}"
        );
        let grades = canvas_grades(&written.unwrap());
        assert_eq!(grades.get("1001"), None, "neither wins: {grades:?}");
        assert_eq!(grades["1005"], "20");
    }
}

#[test]
fn a_moodle_folder_and_a_flat_file_of_one_learner_are_two_matrices() {
    let scratch = tempfile::tempdir().unwrap();
    let roster = scratch.path().join("worksheet.csv");
    write(&roster, super::lms::MOODLE_WORKSHEET.as_bytes());
    let folder = scratch.path().join("download");
    write(
        &folder.join("Ada Lovelace_2001_assignsubmission_file/matrix.csv"),
        &submission("ada.csv"),
    );
    write(
        &folder.join("Ada Lovelace_2001_assignsubmission_file_matrix.csv"),
        &submission("ben.csv"),
    );
    write(
        &folder.join("Ben Okafor_2002_assignsubmission_file/matrix.csv"),
        &submission("ben.csv"),
    );
    let zip = scratch.path().join("download.zip");
    zip_dir(&folder, &zip, "");
    for download in [&folder, &zip] {
        let (run, written) = grade_lms("moodle", download, &roster, &[]);
        let stderr = text(&run.stderr);
        assert_eq!(run.status.code(), Some(2));
        assert!(
            stderr.contains(&format!("Ada Lovelace (Participant 2001): {TWICE}")),
            "{stderr}"
        );
        let rows = records(&written.unwrap(), b',');
        assert!(
            rows.iter().all(|row| row[0] != "Participant 2001"),
            "no grade for Ada: {rows:?}"
        );
    }
}

// ------------------------------------------------ an assignment worth no points

#[test]
fn an_assignment_worth_no_points_is_refused_naming_the_row() {
    let class = Class::new();
    class.entry("lovelaceada_1001_55001_matrix.csv", "ada.csv");
    for points in ["0.00", "0,00", "0.004"] {
        class.write_roster(canvas_export(points, &[("Lovelace, Ada", "1001", "EX")]));
        let (run, written) = class.grade("canvas", &[]);
        let stderr = text(&run.stderr);
        assert_eq!(run.status.code(), Some(2));
        assert!(
            stderr.contains(
                "gradebook.csv:2: Lab 2 (4102): the assignment is worth no points on Canvas"
            ) && stderr.contains(&format!("(\"{points}\")")),
            "{stderr}"
        );
        assert!(written.is_none());
    }
    // Moodle's maximum grade of 0, and --points below a hundredth.
    let worksheet = class.path("worksheet.csv");
    write(
        &worksheet,
        b"Identifier,Full name,Grade,Maximum Grade,Last modified (grade)\nParticipant 2001,Ada Lovelace,,0.00,-\n",
    );
    let moodle = class.path("moodle");
    write(
        &moodle.join("Ada Lovelace_2001_assignsubmission_file/matrix.csv"),
        &submission("ada.csv"),
    );
    let (run, written) = grade_lms("moodle", &moodle, &worksheet, &[]);
    assert!(
        text(&run.stderr)
            .contains("worksheet.csv:2: Maximum Grade: the assignment's maximum grade is 0"),
        "{}",
        text(&run.stderr)
    );
    assert!(written.is_none());
    class.write_roster(canvas_export("", &[("Lovelace, Ada", "1001", "")]));
    let (run, written) = class.grade("canvas", &["--points", "0.001"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("--points with --lms must be at least 0.01"));
    assert!(written.is_none());
}

// ------------------------------------------------ learners the roster lacks

#[test]
fn a_learner_the_roster_lacks_is_said_with_the_cause_or_left_out_and_listed() {
    let class = Class::canvas("20.00", &[("Lovelace, Ada", "1001", "")]);
    class.entry("lovelaceada_1001_55001_matrix.csv", "ada.csv");
    // An inactive student: in the download, not in the export.
    class.entry("gonegary_1010_55010_matrix.csv", "ben.csv");
    let (run, written) = class.grade("canvas", &[]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr.contains("the submission of the Canvas user 1010, who is not on the roster: Canvas's gradebook export leaves out inactive and concluded students")
            && stderr.contains("--not-on-roster skip"),
        "{stderr}"
    );
    assert!(written.is_none());
    let (run, written) = class.grade("canvas", &["--not-on-roster", "skip"]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("left out (--not-on-roster skip): the submission of the Canvas user 1010, who is not on the roster; it is not graded, and no grade is written for it (\"gonegary_1010_55010_matrix.csv\")"),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 grade out of 20 points, 1 entry of the download of learners not on the roster left out (listed above)"),
        "{stderr}"
    );
    let grades = canvas_grades(&written.unwrap());
    assert_eq!(grades.len(), 1);
    assert_eq!(grades["1001"], "20");
}

// ------------------------------------------------ regrades, whatever the names

/// A gradebook's rows as `submission -> (score, previous_score)` (the gradebook's own
/// columns, read as a spreadsheet would: `'` before a live value taken off).
fn gradebook_scores(path: &Path) -> Vec<(String, String, Option<String>)> {
    let text = fs::read_to_string(path).unwrap();
    let rows = records(&text, b',');
    let at = |name: &str| rows[0].iter().position(|h| h == name);
    let previous = at("previous_score");
    rows[1..]
        .iter()
        .map(|row| {
            (
                row[0].clone(),
                row[1].clone(),
                previous.map(|i| row[i].clone()),
            )
        })
        .collect()
}

#[cfg(unix)]
#[test]
fn a_gradebook_reads_back_into_a_regrade_whatever_the_names() {
    use std::os::unix::ffi::OsStrExt;
    let scratch = tempfile::tempdir().unwrap();
    let subs = scratch.path().join("subs");
    fs::create_dir_all(&subs).unwrap();
    let name = |bytes: &[u8]| subs.join(std::ffi::OsStr::from_bytes(bytes));
    // Two names that are not UTF-8 and differ in one byte, and one whose UTF-8 text spells
    // what the first would be shown as.
    fs::write(name(b"r\xe8ponse.csv"), submission("ada.csv")).unwrap();
    fs::write(name(b"r\xe9ponse.csv"), submission("ben.csv")).unwrap();
    fs::write(name(b"r\\xe8ponse.csv"), submission("eve.csv")).unwrap();
    // Names that differ by a leading space, a spreadsheet's quote, a control character.
    let top = [
        (" ada.csv", "ada.csv"),
        ("ada.csv", "ben.csv"),
        ("=1+1.csv", "ada.csv"),
        ("'=1+1.csv", "ben.csv"),
        ("tab\there.csv", "ada.csv"),
        ("tab\\u{9}here.csv", "ben.csv"),
    ];
    for (file, from) in top {
        fs::write(scratch.path().join(file), submission(from)).unwrap();
    }
    let key = crate::common::key();
    let mut args = vec!["grade", "--golden", key.to_str().unwrap(), "subs"];
    args.extend(top.iter().map(|(file, _)| *file));
    let first = [args.clone(), vec!["--gradebook", "first.csv"]].concat();
    let run = crate::common::leasejudge_in(scratch.path(), &first);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    let graded = gradebook_scores(&scratch.path().join("first.csv"));
    assert_eq!(graded.len(), 9);
    let names: std::collections::HashSet<&String> = graded.iter().map(|(n, _, _)| n).collect();
    assert_eq!(names.len(), 9, "every name its own: {graded:?}");
    // The regrade reads the gradebook back: every submission finds its own previous score.
    let second = [
        args,
        vec!["--baseline", "first.csv", "--gradebook", "second.csv"],
    ]
    .concat();
    let run = crate::common::leasejudge_in(scratch.path(), &second);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    let regraded = gradebook_scores(&scratch.path().join("second.csv"));
    for ((name, score, _), (again, _, previous)) in graded.iter().zip(&regraded) {
        assert_eq!(name, again);
        assert_eq!(previous.as_deref(), Some(score.as_str()), "{name}");
    }
    // The two names that are not UTF-8 are told apart, and from the text that spells one.
    let shown: Vec<&str> = graded.iter().map(|(n, _, _)| n.as_str()).collect();
    for expected in [
        "subs/r\\xe8ponse.csv",
        "subs/r\\xe9ponse.csv",
        "subs/r\\x5cxe8ponse.csv",
        " ada.csv",
        "'=1+1.csv",
        "''=1+1.csv",
        "tab\\u{9}here.csv",
        "tab\\u{5c}u{9}here.csv",
    ] {
        assert!(shown.contains(&expected), "{expected} in {shown:?}");
    }
}

// ------------------------------------------------ Moodle reads the worksheet with PHP

/// The rows Moodle's upload reads from a worksheet: `csv_import_reader::load_csv_content`
/// (Moodle's `lib/csvlib.class.php`: the BOM taken off, `\r\n` and `\r` made `\n`, the text
/// trimmed, then `fgetcsv($fp, 0, ',', '"')` row by row, a blank line skipped), each row read
/// by [`php_fgetcsv`]. A row of another width than the header's makes Moodle refuse the whole
/// file (`csvweirdcolumns`): asserted here.
pub(super) fn moodle_csv_rows(content: &str) -> Vec<Vec<String>> {
    let content = content.strip_prefix('\u{feff}').unwrap_or(content);
    let content = content.replace("\r\n", "\n").replace('\r', "\n");
    let content = content.trim_matches([' ', '\t', '\n', '\r', '\0', '\x0b']);
    let rows = php_rows(content.as_bytes());
    for row in &rows {
        assert_eq!(row.len(), rows[0].len(), "csvweirdcolumns: {row:?}");
    }
    rows
}

/// Every row of `content` as repeated `fgetcsv` calls read them, a blank line skipped.
fn php_rows(content: &[u8]) -> Vec<Vec<String>> {
    let mut lines = content.split_inclusive(|&b| b == b'\n');
    let mut rows: Vec<Vec<String>> = Vec::new();
    while let Some(line) = lines.next() {
        let Some(row) = php_fgetcsv(line, &mut lines) else {
            continue;
        };
        rows.push(
            row.into_iter()
                .map(|cell| String::from_utf8(cell).unwrap())
                .collect(),
        );
    }
    rows
}

/// The rows Moodle's importer works on: `load_csv_content` keeps the rows [`moodle_csv_rows`]
/// reads by writing them to a file of its own with PHP's `fputcsv`
/// (`csv_export_writer::print_array`, in `lib/csvlib.class.php` too), and the importer reads
/// that file back with `fgetcsv` (`csv_import_reader::init` and `next`, called by
/// `assignfeedback_offline_grade_importer::next` in
/// `mod/assign/feedback/offline/importgradeslib.php`), taking each column by its index. Those
/// two do not agree on a backslash before a quote, so this reading is asserted to give the
/// same cells as the first.
pub(super) fn moodle_importer_rows(content: &str) -> Vec<Vec<String>> {
    let first = moodle_csv_rows(content);
    let stored: Vec<u8> = first.iter().flat_map(|row| php_fputcsv(row)).collect();
    let again = php_rows(&stored);
    assert_eq!(again, first, "Moodle's second reading moves cells");
    again
}

/// A row as PHP writes it: `php_fputcsv` of php-src's `ext/standard/file.c`, delimiter `,`,
/// enclosure `"`, escape `\`: a cell holding one of them, a line break, a tab or a space is
/// enclosed, a `"` in it doubled unless a `\` (or a run of them) is just before it; a `\n`
/// after the row.
fn php_fputcsv(row: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, cell) in row.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let cell = cell.as_bytes();
        if !cell.iter().any(|b| b",\"\\\n\r\t ".contains(b)) {
            out.extend_from_slice(cell);
            continue;
        }
        out.push(b'"');
        let mut escaped = false;
        for &byte in cell {
            if byte == b'\\' {
                escaped = true;
            } else if !escaped && byte == b'"' {
                out.push(b'"');
            } else {
                escaped = false;
            }
            out.push(byte);
        }
        out.push(b'"');
    }
    out.push(b'\n');
    out
}

/// Where `line`'s text ends: before a last `\r\n`, `\n` or `\r`
/// (`php_fgetcsv_lookup_trailing_spaces`).
fn php_line_end(line: &[u8]) -> usize {
    match line {
        [.., b'\r', b'\n'] => line.len() - 2,
        [.., b'\n' | b'\r'] => line.len() - 1,
        _ => line.len(),
    }
}

/// One row as PHP reads it: `php_fgetcsv` of php-src's `ext/standard/file.c`, delimiter `,`,
/// enclosure `"`, escape `\`, byte for byte (its `php_mblen` steps over a multibyte
/// character whole, but no byte of one is `,`, `"` or `\`, so a byte at a time reads the
/// same); an enclosure left open at the line's end goes on with the next line (`lines`).
/// `None`: a blank line.
fn php_fgetcsv<'a>(
    first: &[u8],
    lines: &mut impl Iterator<Item = &'a [u8]>,
) -> Option<Vec<Vec<u8>>> {
    let (delimiter, enclosure, escape) = (b',', b'"', b'\\');
    let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
    let mut buf = first.to_vec();
    let mut limit = php_line_end(&buf);
    let mut line_end = limit;
    let mut bptr = 0;
    let mut values = Vec::new();
    let mut first_field = true;
    loop {
        let mut temp: Vec<u8> = Vec::new();
        let mut inc_len = usize::from(bptr < limit);
        if inc_len == 1 {
            let mut tmp = bptr;
            while tmp < buf.len() && buf[tmp] != delimiter && is_space(buf[tmp]) {
                tmp += 1;
            }
            if tmp < limit && buf[tmp] == enclosure {
                bptr = tmp;
            }
        }
        if first_field && bptr == line_end {
            return None;
        }
        first_field = false;
        if inc_len != 0 && buf[bptr] == enclosure {
            // 2A. an enclosed field
            let mut state = 0;
            bptr += 1;
            let mut hunk = bptr;
            'enclosed: loop {
                if inc_len == 0 {
                    match state {
                        2 => {
                            temp.extend_from_slice(&buf[hunk..bptr - 1]);
                            hunk = bptr;
                            break 'enclosed;
                        }
                        _ => {
                            temp.extend_from_slice(&buf[hunk..bptr]);
                            // The embedded line end, then the next line.
                            temp.extend_from_slice(&buf[line_end..]);
                            match lines.next() {
                                None => {
                                    hunk = bptr;
                                    break 'enclosed;
                                }
                                Some(next) => {
                                    buf = next.to_vec();
                                    bptr = 0;
                                    hunk = 0;
                                    limit = php_line_end(&buf);
                                    line_end = limit;
                                    state = 0;
                                }
                            }
                        }
                    }
                } else {
                    match state {
                        1 => {
                            bptr += 1;
                            state = 0;
                        }
                        2 => {
                            if buf[bptr] != enclosure {
                                temp.extend_from_slice(&buf[hunk..bptr - 1]);
                                hunk = bptr;
                                break 'enclosed;
                            }
                            temp.extend_from_slice(&buf[hunk..bptr]);
                            bptr += 1;
                            hunk = bptr;
                            state = 0;
                        }
                        _ => {
                            if buf[bptr] == enclosure {
                                state = 2;
                            } else if buf[bptr] == escape {
                                state = 1;
                            }
                            bptr += 1;
                        }
                    }
                }
                inc_len = usize::from(bptr < limit);
            }
            // What follows the enclosure, up to the delimiter, is added as it is.
            while inc_len != 0 && buf[bptr] != delimiter {
                bptr += 1;
                inc_len = usize::from(bptr < limit);
            }
            temp.extend_from_slice(&buf[hunk..bptr]);
            bptr += inc_len;
        } else {
            // 2B. a field without enclosure
            let hunk = bptr;
            while inc_len != 0 && buf[bptr] != delimiter {
                bptr += 1;
                inc_len = usize::from(bptr < limit);
            }
            temp.extend_from_slice(&buf[hunk..bptr]);
            temp.truncate(php_line_end(&temp));
            if bptr < buf.len() && buf[bptr] == delimiter {
                bptr += 1;
            }
        }
        values.push(temp);
        if inc_len == 0 {
            break;
        }
    }
    Some(values)
}

#[test]
fn php_fgetcsv_is_imitated_as_php_reads() {
    // What PHP's own test suite and manual show fgetcsv doing with its escape character.
    let read = |text: &str| moodle_csv_rows(text);
    assert_eq!(read("a,\"b,c\",d\n"), [["a", "b,c", "d"]]);
    assert_eq!(read("\"say \"\"hi\"\"\"\n"), [["say \"hi\""]]);
    // The escape is kept, and the quote after it does not end the cell.
    assert_eq!(read("\"a\\\"b\",c\n"), [["a\\\"b", "c"]]);
    // RFC 4180's doubling after a backslash ends the cell early: the rest is added raw.
    assert_eq!(read("\"\\\"\"x\"\n"), [["\\\"x\""]]);
    // An enclosure open at the line's end takes the next line.
    assert_eq!(read("\"a\nb\",c\n"), [["a\nb", "c"]]);
    assert_eq!(read(" \"x\" ,y\n"), [["x ", "y"]]);
    // fputcsv doubles no quote after a backslash, and encloses a cell with a space.
    let cells = |cells: &[&str]| cells.iter().map(|c| c.to_string()).collect::<Vec<_>>();
    assert_eq!(php_fputcsv(&cells(&["a", "b c", ""])), b"a,\"b c\",\n");
    assert_eq!(
        php_fputcsv(&cells(&["a\\\"b", "x\\"])),
        b"\"a\\\"b\",\"x\\\"\n"
    );
    assert_eq!(
        php_fputcsv(&cells(&["say \"hi\""])),
        b"\"say \"\"hi\"\"\"\n"
    );
    // So what fgetcsv reads from what fputcsv wrote is not always what was written: a cell
    // ending in a backslash takes the rest of the line, the next cell with it.
    let stored = php_fputcsv(&cells(&["x\\", "y"]));
    assert_eq!(php_rows(&stored), [["x\\\",y\n"]]);
}

#[test]
fn moodle_reads_back_every_cell_of_the_worksheet_written() {
    let scratch = tempfile::tempdir().unwrap();
    // A worksheet whose cells are hostile to a CSV reader with an escape character.
    let names = [
        "\\\"EXPIRED\\\"",
        "a backslash \\ inside",
        "two \\\\ backslashes, and \"quotes\"",
        " leading space",
        "tab\there",
        "=HYPERLINK(\"x\")",
        "plain",
        "Nguyễn, Thị",
        "O'Brien \\\\\\\"Jr\\\"",
    ];
    let mut worksheet = String::from(
        "Identifier,Full name,Email address,Grade,Maximum Grade,Last modified (grade),Feedback comments\n",
    );
    let rfc = |cell: &str| format!("\"{}\"", cell.replace('"', "\"\""));
    for (i, name) in names.iter().enumerate() {
        worksheet.push_str(&format!(
            "Participant {},{},{},,10.00,-,\n",
            3000 + i,
            rfc(name),
            rfc(&format!("{name}@example.edu"))
        ));
    }
    let roster = scratch.path().join("worksheet.csv");
    write(&roster, worksheet.as_bytes());
    // Each learner's matrix echoes hostile cells into the feedback.
    let answers = [
        "\\\"EXPIRED\\\"",
        "x\\",
        "\"quoted\"",
        "a,b",
        "tab\there",
        "back\\slash\\\"",
        "<b>&amp;</b>",
        // What PHP's second reading of the worksheet would split (issue 36, attack): a quote
        // after two backslashes, a run of backslashes at a cell's end.
        "a\\\\\", \"b",
        "ends in\\\\\\",
    ];
    let folder = scratch.path().join("download");
    // Each folder named as `downloader.php` names it: the full name with `_` made a space and
    // `clean_filename`'s characters (`PARAM_FILE` in `lib/moodlelib.php`) removed.
    let in_files = |name: &str| -> String {
        name.replace('_', " ")
            .chars()
            .filter(|&c| !c.is_control() && !"&<>\"`|':\\/".contains(c))
            .collect()
    };
    for (i, answer) in answers.iter().enumerate() {
        write(
            &folder.join(format!(
                "{}_{}_assignsubmission_file/matrix.csv",
                in_files(names[i]),
                3000 + i
            )),
            format!(
                "case_id,decision,reason\nprobe-1,{},within_lease\n",
                rfc(answer)
            )
            .as_bytes(),
        );
    }
    let (run, written) = grade_lms("moodle", &folder, &roster, &[]);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    let written = written.unwrap();
    let rows = moodle_importer_rows(&written);
    assert_eq!(rows.len(), answers.len() + 1, "{written}");
    let original = records(&worksheet, b',');
    assert_eq!(rows[0], original[0]);
    for (row, before) in rows[1..].iter().zip(&original[1..]) {
        // The roster's own cells come back as Moodle wrote them (`'` before a live one).
        assert_eq!(row[0], before[0]);
        let unquoted = |cell: &str| {
            cell.strip_prefix('\'')
                .filter(|rest| rest.starts_with('='))
                .unwrap_or(cell)
                .to_owned()
        };
        assert_eq!(unquoted(&row[1]), before[1]);
        assert_eq!(unquoted(&row[2]), before[2]);
        assert_eq!(row[5], before[5]);
    }
    // The feedback shows each answer as the learner wrote it, its tab shown once as \u{9}.
    for (row, answer) in rows[1..].iter().zip(answers) {
        let feedback = super::lms::shown_in_moodle(&row[6]).join("\n");
        let shown = answer.replace('\t', "\\u{9}");
        assert!(
            feedback.contains(&format!("probe-1: decision: {shown} is wrong")),
            "{shown} in {feedback}"
        );
        assert!(!feedback.contains("\\u{5c}"), "escaped once: {feedback}");
    }
}

// ------------------------------------------------ GitHub Classroom: the reporter's two sums

fn github_classroom_results(key: &Path, answer: &Path, extra: &[&str]) -> Vec<u8> {
    let mut args = vec![
        "grade",
        "--golden",
        key.to_str().unwrap(),
        answer.to_str().unwrap(),
        "-f",
        "github-classroom",
    ];
    args.extend_from_slice(extra);
    crate::common::leasejudge(&args).output().stdout
}

#[test]
fn the_reporters_log_and_check_run_say_the_same_points_with_partial_credit() {
    let scratch = tempfile::tempdir().unwrap();
    let key = crate::common::key();
    // Every mix of right and wrong columns over the lab's four cases, under several weights:
    // `reporter_points` asserts that the log's total and "Points X/Y" are the same number.
    let golden = fs::read_to_string(&key).unwrap();
    // The key's last two columns are decision and reason.
    let rows: Vec<Vec<&str>> = golden
        .lines()
        .skip(1)
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            vec![cells[0], cells[cells.len() - 2], cells[cells.len() - 1]]
        })
        .collect();
    let answer = scratch.path().join("answer.csv");
    let mut seen = std::collections::BTreeSet::new();
    for mask in 0u32..256 {
        let mut text = String::from("case_id,decision,reason\n");
        for (i, row) in rows.iter().enumerate() {
            let decision = if mask & (1 << (2 * i)) != 0 {
                row[1]
            } else {
                "EXPIRD"
            };
            let reason = if mask & (1 << (2 * i + 1)) != 0 {
                row[2]
            } else {
                "nope"
            };
            text.push_str(&format!("{},{decision},{reason}\n", row[0]));
        }
        write(&answer, text.as_bytes());
        for weights in [
            None,
            Some("decision=2,reason=1"),
            Some("decision=3,reason=2"),
            Some("decision=2,reason=2"),
            Some("decision=5,reason=0"),
        ] {
            let tried = if weights == Some("decision=2,reason=1") {
                mask % 5 == 0
            } else {
                mask % 17 == 0
            };
            if !tried {
                continue;
            }
            let extra: Vec<&str> = weights.map_or(vec![], |w| vec!["--weights", w]);
            let out = github_classroom_results(&key, &answer, &extra);
            let (results, points) = super::lms::reporter_points(&out);
            let tests = results["tests"].as_array().unwrap();
            // No failing test carries points, no passing one lacks them.
            let unit = tests
                .iter()
                .map(|t| t["score"].as_u64().unwrap())
                .max()
                .unwrap();
            for test in tests {
                let passed = test["status"] == "pass";
                assert_eq!(
                    test["score"].as_u64().unwrap(),
                    if passed { unit } else { 0 }
                );
            }
            seen.insert(points.unwrap());
        }
    }
    // Partial credit of every kind was tried.
    for points in [
        "Points 4/12",
        "Points 7/12",
        "Points 12/12",
        "Points 10/20",
        "Points 8/16",
    ] {
        assert!(seen.contains(points), "{points} in {seen:?}");
    }
}

#[test]
fn a_lab_too_large_for_a_test_a_point_keeps_both_sums_or_says_which_is_exact() {
    let scratch = tempfile::tempdir().unwrap();
    let (key, answer) = (scratch.path().join("key.csv"), scratch.path().join("a.csv"));
    let mut golden = String::from("case_id,decision,reason\n");
    let mut text = golden.clone();
    for i in 0..1000 {
        golden.push_str(&format!("c{i:04},EXPIRED,expired_without_result\n"));
        let decision = if i == 0 { "ACTIVE" } else { "EXPIRED" };
        text.push_str(&format!("c{i:04},{decision},expired_without_result\n"));
    }
    write(&key, golden.as_bytes());
    write(&answer, text.as_bytes());
    // 999 of 1000: no whole number of equal tests under 96,000 bytes says it exactly.
    let out = github_classroom_results(&key, &answer, &[]);
    assert!(out.len() <= 96_000, "{} bytes", out.len());
    let (results, points, logged) = super::lms::reporter_totals(&out);
    assert_eq!(points.as_deref(), Some("Points 999/1000"));
    let logged: f64 = logged.unwrap()["Total points for practice: ".len()..]
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((logged - 999.0).abs() < 10.0, "{logged}");
    assert!(results["tests"][0]["message"]
        .as_str()
        .unwrap()
        .contains("\"Points 999/1000\" is exact"));
    // 500 of 1000 is two tests, exact.
    let half: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i > 0 && i <= 500 {
                l.replace(",EXPIRED,", ",ACTIVE,")
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    write(&answer, half.as_bytes());
    let out = github_classroom_results(&key, &answer, &[]);
    let (results, points) = super::lms::reporter_points(&out);
    assert_eq!(points.as_deref(), Some("Points 500/1000"));
    assert_eq!(results["tests"].as_array().unwrap().len(), 2);
}

// ------------------------------------------------ GitHub Classroom: team repositories

#[test]
fn github_classroom_team_repositories_are_graded_for_their_members_or_refused_for_the_true_reason()
{
    let scratch = tempfile::tempdir().unwrap();
    let roster = scratch.path().join("classroom_roster.csv");
    write(&roster, super::lms::GITHUB_ROSTER.as_bytes());
    // A group assignment: repositories named after the teams.
    let folder = scratch.path().join("lab-5-submissions");
    write(
        &folder.join("lab-5-rocket/matrix.csv"),
        &submission("ada.csv"),
    );
    write(
        &folder.join("lab-5-magma/matrix.csv"),
        &submission("ben.csv"),
    );
    let (run, written) = grade_lms("github-classroom", &folder, &roster, &["--points", "10"]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr.contains("the submission of the GitHub user rocket, who is not on the roster")
            && stderr.contains("a team's repository of a group assignment")
            && stderr.contains("--groups"),
        "{stderr}"
    );
    assert!(written.is_none());
    // Renamed, the folder no longer says the slug: the message says why, not the folder.
    let renamed = scratch.path().join("renamed");
    fs::rename(&folder, &renamed).unwrap();
    let (run, _) = grade_lms("github-classroom", &renamed, &roster, &["--points", "10"]);
    let stderr = text(&run.stderr);
    assert!(
        stderr.contains("GitHub Classroom names a group assignment's repositories after the teams"),
        "{stderr}"
    );
    // With `gh classroom assignment-grades`' CSV: each team's matrix for every member.
    let grades = scratch.path().join("grades.csv");
    write(
        &grades,
        b"assignment_name,assignment_url,starter_code_url,github_username,roster_identifier,student_repository_name,student_repository_url,submission_timestamp,points_awarded,points_available,group_name\n\
          Lab 5,u,s,ada-l,ada@example.edu,lab-5-rocket,r,t,,,Rocket\n\
          Lab 5,u,s,benok,ben@example.edu,lab-5-rocket,r,t,,,Rocket\n\
          Lab 5,u,s,sian-ob,sian@example.edu,lab-5-magma,r,t,,,Magma\n",
    );
    let zip = scratch.path().join("repos.zip");
    zip_dir(&renamed, &zip, "lab-5-submissions/");
    for download in [&renamed, &zip] {
        let (run, written) = grade_lms(
            "github-classroom",
            download,
            &roster,
            &["--points", "10", "--groups", grades.to_str().unwrap()],
        );
        let stderr = text(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "dee-x has no team: {stderr}");
        assert!(
            text(&run.stdout).contains("benok, group Rocket/matrix.csv: 10.0/10"),
            "{}",
            text(&run.stdout)
        );
        let rows = records(&written.unwrap(), b',');
        let points: HashMap<&str, &str> = rows[1..]
            .iter()
            .map(|r| (r[1].as_str(), r[4].as_str()))
            .collect();
        assert_eq!(points["ada-l"], "10");
        assert_eq!(points["benok"], "10");
        assert_eq!(points["sian-ob"], "2.5");
        assert_eq!(points["dee-x"], "");
    }
}

// ------------------------------------------------ names of every shape, text kept

#[test]
fn canvas_names_of_every_shape_find_their_learner_and_keep_their_text() {
    let scratch = tempfile::tempdir().unwrap();
    // An export as Excel may leave it (BOM, CRLF) with names Canvas's file names mangle:
    // accents, final sigma, digits only, `LATE`, a name Canvas wrote as `="=..."`, CJK,
    // a line break and a tab with `_8_`, a name that is `_7_`.
    let learners = [
        ("Zoë, Anaïs", "11", "zoe\u{308}anai\u{308}s"),
        ("Σοφίας, ΑΣ", "12", "σοφίαςας_LATE"),
        ("12345", "13", "12345"),
        ("LATE, Late", "14", "latelate_LATE"),
        ("=\"\"=cmd\"\", X", "15", "cmdx"),
        ("新, 田中", "16", "新田中"),
        ("Doe,\nJane\t_8_", "17", "doejane8"),
        ("_7_", "18", "7"),
    ];
    let mut export = String::from(
        "\u{feff}Student,ID,SIS Login ID,Section,Lab 2 (4102)\r\n    Points Possible,,,,10.00\r\n",
    );
    let folder = scratch.path().join("submissions");
    for (i, (name, id, in_files)) in learners.iter().enumerate() {
        export.push_str(&format!("\"{name}\",{id},login{id},A,\r\n"));
        write(
            &folder.join(format!("{in_files}_{id}_{}_matrix.csv", 900 + i)),
            &submission("ada.csv"),
        );
    }
    let roster = scratch.path().join("gradebook.csv");
    write(&roster, export.as_bytes());
    let (run, written) = grade_lms("canvas", &folder, &roster, &[]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let written = written.unwrap();
    let grades = canvas_grades(&written);
    assert_eq!(grades.len(), learners.len(), "{grades:?}");
    assert!(grades.values().all(|g| g == "10"));
    // The import keeps each name as the export has it (a `'` before the live one).
    let rows = records(&written, b',');
    let exported = records(export.trim_start_matches('\u{feff}'), b',');
    for (row, before) in rows[2..].iter().zip(&exported[2..]) {
        let expected = if before[0].starts_with('=') {
            format!("'{}", before[0])
        } else {
            before[0].clone()
        };
        assert_eq!(row[0], expected);
    }
}

#[test]
fn the_item_analysis_keeps_the_keys_own_case_ids() {
    let scratch = tempfile::tempdir().unwrap();
    write(
        &scratch.path().join("key.csv"),
        b"case_id,decision,reason\n\"=p\t1\",ACTIVE,within_lease\n",
    );
    write(
        &scratch.path().join("a.csv"),
        b"case_id,decision,reason\n\"=p\t1\",EXPIRED,within_lease\n",
    );
    let run = crate::common::leasejudge_in(
        scratch.path(),
        &[
            "grade",
            "--golden",
            "key.csv",
            "a.csv",
            "--item-analysis",
            "items.csv",
        ],
    );
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    let rows = records(
        &fs::read_to_string(scratch.path().join("items.csv")).unwrap(),
        b',',
    );
    // Its tab kept, a `'` before the live `=`: the case id matches the key's back.
    assert_eq!(rows[1][0], "'=p\t1");
}

// ------------------------------------------------ each platform's options, from its row

/// What each platform's row of the table says it takes: `--groups` (Canvas, GitHub
/// Classroom), `--assignment` (Canvas), the points from the roster or `--points` (Canvas,
/// Moodle; GitHub Classroom writes the raw score). The refusals name the platforms that do
/// take the option, as the table lists them, so a new platform's row changes them.
#[test]
fn an_option_a_platform_does_not_take_is_refused_naming_those_that_do() {
    let class = Class::new();
    class.write_roster(super::lms::MOODLE_WORKSHEET);
    super::lms::moodle_in_folders(&class.folder);
    let groups = class.path("groups.csv");
    write(&groups, GROUP_SET.as_bytes());
    let flat = |bytes: &[u8]| text(bytes).split_whitespace().collect::<Vec<_>>().join(" ");
    let (run, written) = class.grade("moodle", &["--groups", groups.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        flat(&run.stderr).contains(
            "--groups is for Canvas and GitHub Classroom: Moodle names a group's submission by \
             the group, which its grading worksheet does not list; grade group assignments \
             there with Moodle's own tools"
        ),
        "{}",
        text(&run.stderr)
    );
    assert!(written.is_none());
    let (run, written) = class.grade("moodle", &["--assignment", "Lab 1"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        flat(&run.stderr).contains(
            "--assignment picks a column of a Canvas gradebook export; a Moodle worksheet and \
             a GitHub Classroom roster are of one assignment"
        ),
        "{}",
        text(&run.stderr)
    );
    assert!(written.is_none());
    // A Canvas export whose assignment has no points, and no --points: refused; the same
    // class with --points is graded.
    let canvas = Class::canvas("", &[("Lovelace, Ada", "1001", "")]);
    canvas.entry("lovelaceada_1001_1_matrix.csv", "ada.csv");
    let (run, written) = canvas.grade("canvas", &[]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run.stderr));
    assert!(
        flat(&run.stderr).contains("does not say the assignment's points: give --points"),
        "{}",
        text(&run.stderr)
    );
    assert!(written.is_none());
    let (run, written) = canvas.grade("canvas", &["--points", "10"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert!(written.is_some());
}
