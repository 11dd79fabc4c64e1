//! `grade --lms` attacked at the edges issue 36 fixed, on classes made the way the platforms
//! make them: each test is one break that an attack found, fixed at its cause. Every grade
//! lands on the learner who earned it, or on nobody, said.

use std::fs;

use super::lms::CANVAS_EXPORT;
use super::lms_edges::{moodle_importer_rows, zip_of_stored};
use crate::common::{canvas_export, grade_lms, submission, text, write, Class};

/// Each learner's grade in a Canvas import, by user id (`ID`, the second column).
fn canvas_grades(written: &str) -> Vec<(String, String)> {
    super::lms::records(written, b',')
        .into_iter()
        .skip(2)
        .map(|row| (row[1].clone(), row.last().unwrap().clone()))
        .collect()
}

/// A Moodle worksheet of `Participant 3000 + i` per name, worth 10.
fn moodle_worksheet(names: &[&str]) -> String {
    let mut worksheet = String::from(
        "Identifier,Full name,Email address,Grade,Maximum Grade,Last modified (grade),Feedback comments\n",
    );
    for (i, name) in names.iter().enumerate() {
        worksheet.push_str(&format!(
            "Participant {},\"{}\",p{i}@example.edu,,10.00,-,\n",
            3000 + i,
            name.replace('"', "\"\"")
        ));
    }
    worksheet
}

// ------------------------------------------------ Canvas: a row that says Points Possible

#[test]
fn a_canvas_learner_named_points_possible_is_refused_not_taken_for_the_points() {
    let class = Class::canvas(
        "20.00",
        &[
            ("Lovelace, Ada", "1001", ""),
            ("Points Possible, Pat", "1002", "5.00"),
        ],
    );
    class.entry("lovelaceada_1001_55001_matrix.csv", "ada.csv");
    class.entry("pointspossiblepat_1002_55002_matrix.csv", "ben.csv");
    // Canvas's importer takes any row whose first cell holds "Points Possible" for the points
    // row (`check_for_non_student_row`): read as such here, Pat's grade there (5.00) became
    // the assignment's points, Ada's 4/4 was written 5 of 20, and Pat was "not on the roster".
    let (run, written) = class.grade("canvas", &[]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "gradebook.csv:4: Student: the learner 1002's name holds \"Points Possible\", which \
             Canvas's importer reads as the assignment's points row"
        ) && stderr.contains("(\"Points Possible, Pat\")"),
        "{stderr}"
    );
    assert!(written.is_none(), "nothing is written");
    // A second points row (no user id) is not taken over the first either.
    let mut two = canvas_export("20.00", &[("Lovelace, Ada", "1001", "")]);
    two.push_str("    Points Possible,,,,10.00\n");
    write(&class.roster, two.as_bytes());
    let (run, written) = class.grade("canvas", &["--not-on-roster", "skip"]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "gradebook.csv:4: Student: a second Points Possible row (the first is on line 2)"
        ),
        "{stderr}"
    );
    assert!(written.is_none());
}

// ------------------------------------------------ Canvas: a learner whose name is `anon`

#[test]
fn a_canvas_learner_whose_name_canvas_writes_anon_is_graded_not_taken_for_anonymous() {
    let class = Class::canvas(
        "20.00",
        &[("A, Non", "1001", ""), ("Okafor, Ben", "1002", "")],
    );
    // `A, Non` is `anon` in Canvas's file names, as anonymous grading's `anon_{id}` starts.
    class.entry("anon_1001_55001_matrix.csv", "ada.csv");
    class.entry("okaforben_LATE_1002_55002_matrix.csv", "ben.csv");
    let (run, written) = class.grade("canvas", &[]);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    assert_eq!(
        canvas_grades(&written.unwrap()),
        [("1001".into(), "20".into()), ("1002".into(), "5".into())]
    );
    // A download made with anonymous grading on is still refused, saying so.
    class.entry("anon_Xb3kq_55003_matrix.csv", "ada.csv");
    let (run, written) = class.grade("canvas", &[]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        text(&run.stderr).contains("named for anonymous grading (anon_...)"),
        "{}",
        text(&run.stderr)
    );
    assert!(written.is_none());
}

// ------------------------------------------------ a download zipped again on a Mac

#[test]
fn a_download_zipped_again_on_a_mac_is_looked_through_its_folder() {
    let scratch = tempfile::tempdir().unwrap();
    let roster = scratch.path().join("gradebook.csv");
    write(&roster, CANVAS_EXPORT.as_bytes());
    // macOS's Compress of an unpacked download: the folder, and beside it `__MACOSX/` with
    // the folder's AppleDouble files. Before, the litter's `{folder}/` was taken for an entry
    // of the download ("whose is this entry? it is a folder") and nothing was graded.
    let zip = scratch.path().join("submissions.zip");
    let ada = submission("ada.csv");
    zip_of_stored(
        &zip,
        &[
            ("submissions/lovelaceada_1001_55001_matrix.csv", &ada),
            ("submissions/.DS_Store", b"\0\0\0\x01Bud1"),
            (
                "__MACOSX/submissions/._lovelaceada_1001_55001_matrix.csv",
                b"\0\x05\x16\x07",
            ),
        ],
        false,
    );
    let (run, written) = grade_lms("canvas", &zip, &roster, &["--assignment", "4102"]);
    let stderr = text(&run.stderr);
    assert!(
        !stderr.contains("whose is this entry"),
        "the download is read: {stderr}"
    );
    assert_eq!(run.status.code(), Some(2), "others have no submission");
    let grades = canvas_grades(&written.unwrap());
    assert!(grades.contains(&("1001".into(), "20".into())), "{grades:?}");
}

// ------------------------------------------------ a name twice, with data descriptors

#[test]
fn a_name_twice_in_a_zip_written_to_a_stream_is_two_matrices_said_by_name() {
    let scratch = tempfile::tempdir().unwrap();
    let roster = scratch.path().join("gradebook.csv");
    write(&roster, CANVAS_EXPORT.as_bytes());
    let zip = scratch.path().join("stream.zip");
    let (ada, ben) = (submission("ada.csv"), submission("ben.csv"));
    // Each entry's sizes in a data descriptor: the earlier of the two names, which the zip
    // crate's index does not reach, was "cannot unpack: unsupported Zip archive", the
    // learner ungradable for the wrong reason.
    zip_of_stored(
        &zip,
        &[
            ("lovelaceada_1001_55001_matrix.csv", &ben),
            ("obriensiân_1005_55005_matrix.csv", &ada),
            ("lovelaceada_1001_55001_matrix.csv", &ada),
        ],
        true,
    );
    let (run, written) = grade_lms("canvas", &zip, &roster, &["--assignment", "4102"]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr.contains(
            "Lovelace, Ada (1001): holds 2 matrices (matrix (2nd of this name).csv, matrix.csv)"
        ) && !stderr.contains("cannot unpack"),
        "{stderr}"
    );
    let grades = canvas_grades(&written.unwrap());
    assert!(!grades.iter().any(|(id, _)| id == "1001"), "{grades:?}");
    assert!(grades.contains(&("1005".into(), "20".into())), "{grades:?}");
}

// ------------------------------------------------ Moodle reads the worksheet twice

#[test]
fn moodles_second_reading_of_the_worksheet_takes_each_learners_grade_from_their_row() {
    let scratch = tempfile::tempdir().unwrap();
    let roster = scratch.path().join("worksheet.csv");
    write(
        &roster,
        moodle_worksheet(&["Ann Ames", "Bo Brown"]).as_bytes(),
    );
    // Ann's matrix holds a quote after two backslashes. Moodle's importer writes the rows it
    // read with fputcsv, which doubles no quote after a backslash, and reads them again with
    // fgetcsv, which takes that quote for the cell's end: her feedback came back in 26 cells,
    // cut at `a\\`.
    let folder = scratch.path().join("download");
    write(
        &folder.join("Ann Ames_3000_assignsubmission_file/matrix.csv"),
        b"case_id,decision,reason\nprobe-1,\"a\\\\\"\", 40, \"\"b\\\\\",within_lease\n",
    );
    write(
        &folder.join("Bo Brown_3001_assignsubmission_file/matrix.csv"),
        &submission("ada.csv"),
    );
    let (run, written) = grade_lms("moodle", &folder, &roster, &[]);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    let rows = moodle_importer_rows(&written.unwrap());
    assert_eq!(
        rows[1][..4],
        ["Participant 3000", "Ann Ames", "p0@example.edu", "0"]
    );
    assert_eq!(
        rows[2][..4],
        ["Participant 3001", "Bo Brown", "p1@example.edu", "10"]
    );
    let feedback = super::lms::shown_in_moodle(&rows[1][6]).join("\n");
    assert!(
        feedback.contains("probe-1: decision: a\\\\\", 40, \"b\\\\ is wrong"),
        "{feedback}"
    );
}

#[test]
fn a_worksheet_cell_moodle_reads_back_wrongly_is_refused_naming_it() {
    let scratch = tempfile::tempdir().unwrap();
    let roster = scratch.path().join("worksheet.csv");
    // A learner may name themselves `Bob\` in Moodle: the importer's second reading took the
    // cells after that name for one, and the grade from the feedback's text (the learner's).
    write(
        &roster,
        moodle_worksheet(&["Ann Ames", "Bob\\", "Cy \\\\\"C\\\\\", Jr"]).as_bytes(),
    );
    let folder = scratch.path().join("download");
    for (i, name) in ["Ann Ames", "Bob", "Cy C"].iter().enumerate() {
        write(
            &folder.join(format!(
                "{name}_{}_assignsubmission_file/matrix.csv",
                3000 + i
            )),
            &submission("ben.csv"),
        );
    }
    let (run, written) = grade_lms("moodle", &folder, &roster, &[]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("worksheet.csv:3: Full name: Moodle's upload would read this row wrongly")
            && stderr.contains("(\"Bob\\\\\")")
            && stderr.contains("worksheet.csv:4: Full name: Moodle's upload")
            && stderr.contains("2 input errors"),
        "{stderr}"
    );
    assert!(written.is_none());
}

// ------------------------------------------------ points under a hundredth

#[test]
fn an_assignment_worth_under_a_hundredth_is_refused_as_worth_no_points() {
    let class = Class::canvas("0.005", &[("Lovelace, Ada", "1001", "EX")]);
    class.entry("lovelaceada_1001_55001_matrix.csv", "ben.csv");
    // 0.005 points: Ada's 1 of 4 was written 0 over her excused EX ("out of 0.01 points").
    let (run, written) = class.grade("canvas", &[]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        text(&run.stderr).contains(
            "gradebook.csv:2: Lab 2 (4102): the assignment is worth no points on Canvas (less \
             than 0.01)"
        ),
        "{}",
        text(&run.stderr)
    );
    assert!(written.is_none());
    class.write_roster(canvas_export("", &[("Lovelace, Ada", "1001", "EX")]));
    let (run, written) = class.grade("canvas", &["--points", "0.005"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("--points with --lms must be at least 0.01"));
    assert!(written.is_none());
    let worksheet = class.path("worksheet.csv");
    write(
        &worksheet,
        moodle_worksheet(&["Ann Ames"])
            .replace("10.00", "0.005")
            .as_bytes(),
    );
    let moodle = class.path("moodle");
    write(
        &moodle.join("Ann Ames_3000_assignsubmission_file/matrix.csv"),
        &submission("ben.csv"),
    );
    let (run, written) = grade_lms("moodle", &moodle, &worksheet, &[]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        text(&run.stderr).contains(
            "worksheet.csv:2: Maximum Grade: the assignment's maximum grade is 0 (less than 0.01)"
        ),
        "{}",
        text(&run.stderr)
    );
    assert!(written.is_none());
}

// ------------------------------------------------ a regrade matching nobody

#[test]
fn a_regrade_says_which_submissions_the_baseline_does_not_have() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("subs");
    for name in ["ada.csv", "ben.csv"] {
        write(&dir.join(name), &submission(name));
    }
    let key = crate::common::key();
    let run_in = |args: &[&str]| {
        crate::common::leasejudge(args)
            .dir(scratch.path())
            .env("NO_COLOR", "1")
            .output()
    };
    let golden = key.to_str().unwrap();
    let first = run_in(&[
        "grade",
        "--golden",
        golden,
        "subs/",
        "--gradebook",
        "gb.csv",
    ]);
    assert_eq!(first.status.code(), Some(1), "{}", text(&first.stderr));
    // The same files by another path: the baseline names none of them. It said "Moved since
    // the baseline: nobody", as if each had kept their score.
    let again = run_in(&[
        "grade",
        "--golden",
        golden,
        "./subs",
        "--baseline",
        "gb.csv",
    ]);
    let stdout = text(&again.stdout);
    assert!(
        stdout.contains(
            "Moved since the baseline: nobody; 2 of 2 not in the baseline, which names \
             submissions as given (the same paths from the same directory): ./subs/ada.csv, \
             ./subs/ben.csv"
        ),
        "{stdout}"
    );
    // A file renamed since: said by its new name.
    fs::rename(dir.join("ada.csv"), dir.join("ada2.csv")).unwrap();
    let renamed = run_in(&["grade", "--golden", golden, "subs/", "--baseline", "gb.csv"]);
    let stdout = text(&renamed.stdout);
    assert!(
        stdout.contains("Moved since the baseline: nobody; 1 of 2 not in the baseline")
            && stdout.contains("): subs/ada2.csv"),
        "{stdout}"
    );
}

// ------------------------------------------------ --missing zero and an excused learner

#[test]
fn missing_zero_gives_an_excused_learner_no_zero() {
    let class = Class::canvas(
        "20.00",
        &[
            ("Lovelace, Ada", "1001", ""),
            ("Okafor, Ben", "1002", "EX"),
            ("Doe, Dee", "1004", ""),
        ],
    );
    // Ben is excused (EX) and handed in nothing: his 0 would undo the excusal on import.
    class.entry("lovelaceada_1001_55001_matrix.csv", "ada.csv");
    let (run, written) = class.grade("canvas", &["--missing", "zero"]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert_eq!(
        canvas_grades(&written.unwrap()),
        [("1001".into(), "20".into()), ("1004".into(), "0".into())]
    );
    assert!(
        stderr.contains(
            "2 grades out of 20 points, 1 learner with no gradable submission given no grade \
             (excused on the platform: a 0 would undo the excusal)"
        ),
        "{stderr}"
    );
}
