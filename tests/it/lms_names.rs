//! `grade --lms` puts a grade on the learner the platform named, by name and by group (issue
//! 36, second attack): two Canvas groups of one name stay two groups, a Moodle entry whose
//! name is not the worksheet's for its participant id is refused, and a Canvas entry named
//! for a roster's learner under another name is said as that learner's, never another user's.
//! Each platform's side is imitated from its own code, cited where it is.

use crate::common::{grade_lms, submission, text, write, Class};

// ------------------------------------------------ Canvas: two groups of one name

#[test]
fn two_canvas_groups_of_one_name_are_graded_apart() {
    let class = Class::canvas(
        "20.00",
        &[
            ("Lovelace, Ada", "1001", ""),
            ("Okafor, Ben", "1002", ""),
            ("Yilmaz, Cy", "1003", "7.00"),
            ("Doe, Dee", "1004", ""),
        ],
    );
    // Canvas allows two groups of a set to share a name (`app/models/group.rb` validates a
    // name's presence and length only); the group set's export
    // (`GroupCategoriesController#export`) tells them apart by canvas_group_id.
    let groups = class.path("groups.csv");
    write(
        &groups,
        b"name,canvas_user_id,user_id,login_id,sections,group_name,canvas_group_id,group_id\n\
\"Lovelace, Ada\",1001,,ada,A,Team 1,9,\n\
\"Okafor, Ben\",1002,,ben,A,Team 1,9,\n\
\"Yilmaz, Cy\",1003,,cy,A,Team 1,10,\n\
\"Doe, Dee\",1004,,dee,A,Team 1,10,\n",
    );
    // Only group 9 handed in, named by the group and Ada (`Assignment#representatives`).
    class.entry("team1_1001_55001_matrix.csv", "ada.csv");
    let (run, written) = class.grade("canvas", &["--groups", groups.to_str().unwrap()]);
    let stderr = text(&run.stderr);
    let report = text(&run.stdout);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        report.contains("Okafor, Ben (1002), group Team 1/matrix.csv: 4/4"),
        "{report}"
    );
    assert!(
        stderr.contains("Yilmaz, Cy (1003): no submission in the download")
            && stderr.contains("Doe, Dee (1004): no submission in the download"),
        "{stderr}"
    );
    let written = written.expect("written");
    assert!(
        written.contains("1001") && written.contains("1002"),
        "{written}"
    );
    assert!(
        !written.contains("1003") && !written.contains("1004"),
        "group 10 handed in nothing: {written}"
    );
    // A hand-made file without ids cannot tell the two groups from one: refused, both rows
    // named, nothing written.
    write(
        &groups,
        b"name,canvas_user_id,group_name\nAda,1001,Team 1\nCy,1003,Team 1\n",
    );
    let (run, written) = class.grade("canvas", &["--groups", groups.to_str().unwrap()]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("groups.csv:3") && stderr.contains("named on line 2 too"),
        "{stderr}"
    );
    assert!(written.is_none());
}

// ------------------------------------------------ Moodle: the entry's name checked

#[test]
fn a_moodle_entry_named_for_another_learner_than_the_worksheets_is_refused() {
    let scratch = tempfile::tempdir().unwrap();
    let roster = scratch.path().join("worksheet.csv");
    write(
        &roster,
        "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,Last modified (submission),Last modified (grade),Feedback comments\n\
Participant 2001,Ada Lovelace,ada@example.edu,Submitted for grading,,10.00,Yes,-,-,\n\
Participant 2002,Ben Okafor,ben@example.edu,Submitted for grading,,10.00,Yes,-,-,\n\
Participant 2003,Siân O'Brien_Jr,sian@example.edu,Submitted for grading,,10.00,Yes,-,-,\n"
            .as_bytes(),
    );
    // `mod/assign/classes/downloader.php`, `get_student_prefix`: the full name with `_` made
    // a space, `clean_filename` (`PARAM_FILE`: `'` removed), then `_{participant id}`. Ben's
    // folder carries Ada's id and Ada's Ben's: their grades would swap.
    let folder = scratch.path().join("submissions");
    for (name, file) in [
        (
            "Ben Okafor_2001_assignsubmission_file/matrix.csv",
            "ben.csv",
        ),
        (
            "Ada Lovelace_2002_assignsubmission_file/matrix.csv",
            "ada.csv",
        ),
        (
            "Siân OBrien Jr_2003_assignsubmission_file/matrix.csv",
            "eve.csv",
        ),
    ] {
        write(&folder.join(name), &submission(file));
    }
    let (run, written) = grade_lms("moodle", &folder, &roster, &[]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "it is named for \"Ben Okafor\" (Participant 2001), but the worksheet's Participant \
             2001 is \"Ada Lovelace\""
        ) && stderr.contains("Ben Okafor_2001_assignsubmission_file")
            && stderr.contains("named for \"Ada Lovelace\" (Participant 2002)"),
        "{stderr}"
    );
    assert!(!stderr.contains("Participant 2003 is"), "{stderr}");
    assert!(written.is_none());
    // Named as Moodle names them (and under blind marking, `Participant`): graded.
    std::fs::remove_dir_all(&folder).unwrap();
    for (name, file) in [
        (
            "Ada Lovelace_2001_assignsubmission_file/matrix.csv",
            "ada.csv",
        ),
        (
            "Participant_2002_assignsubmission_file/matrix.csv",
            "ben.csv",
        ),
        (
            "Siân OBrien Jr_2003_assignsubmission_file/matrix.csv",
            "eve.csv",
        ),
    ] {
        write(&folder.join(name), &submission(file));
    }
    let (run, written) = grade_lms("moodle", &folder, &roster, &[]);
    assert!(
        matches!(run.status.code(), Some(0 | 1)),
        "{}",
        text(&run.stderr)
    );
    assert!(written.is_some());
}

// ------------------------------------------------ Canvas: a renamed learner, said as theirs

#[test]
fn a_canvas_learner_renamed_since_the_download_is_said_as_theirs_never_another_users() {
    let class = Class::canvas(
        "20.00",
        &[("Doe, Janet", "1001", ""), ("Okafor, Ben", "1002", "")],
    );
    // Jane (1001) is `Doe, Janet` on the roster now; `content_zipper.rb` wrote her old
    // sortable name `Doe, Jane_7` as `doejane_7`, then her id and the attachment id. Read from
    // the left (Canvas's own `infer_comment_context_from_filename`) it is user 7's, who is not
    // on the roster.
    class.entry("doejane_7_1001_55001_matrix.csv", "ada.csv");
    class.entry("okaforben_1002_55002_matrix.csv", "ben.csv");
    for mode in ["error", "skip"] {
        let (run, written) = class.grade("canvas", &["--not-on-roster", mode]);
        let stderr = text(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{mode}: {stderr}");
        assert!(
            stderr.contains(
                "named for \"doejane_7\" (user 1001), but the roster's user 1001 is \"Doe, Janet\""
            ) && stderr.contains("doejane_7_1001_55001_matrix.csv"),
            "{mode}: {stderr}"
        );
        assert!(!stderr.contains("user 7"), "{mode}: {stderr}");
        assert!(written.is_none(), "{mode}");
    }
}

// ------------------------------------------------ what a download is not: said as what it is

#[test]
fn a_moodle_learners_folder_that_is_a_link_is_said_to_be_a_link() {
    let scratch = tempfile::tempdir().unwrap();
    let roster = scratch.path().join("worksheet.csv");
    write(
        &roster,
        b"Identifier,Full name,Grade,Maximum Grade,Last modified (grade)\n\
Participant 2001,Ada Lovelace,,10.00,-\n",
    );
    let elsewhere = scratch.path().join("elsewhere");
    write(&elsewhere.join("matrix.csv"), &submission("ada.csv"));
    let folder = scratch.path().join("submissions");
    std::fs::create_dir_all(&folder).unwrap();
    std::os::unix::fs::symlink(
        &elsewhere,
        folder.join("Ada Lovelace_2001_assignsubmission_file"),
    )
    .unwrap();
    let (run, written) = grade_lms("moodle", &folder, &roster, &[]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("it is a symbolic link named as Moodle names a learner's folder")
            && !stderr.contains("not named as Moodle names"),
        "{stderr}"
    );
    assert!(written.is_none());
}

#[test]
fn a_zip_download_on_a_pipe_is_said_to_be_one_at_once() {
    let class = Class::canvas("20.00", &[("Lovelace, Ada", "1001", "")]);
    // No writer ever opens it: the run must not wait for one.
    let fifo = class.path("download.zip");
    super::bounds::mkfifo(&fifo);
    let (run, written) = grade_lms("canvas", &fifo, &class.roster, &[]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("is a pipe or a device, not a file")
            && !stderr.contains("neither a folder nor a zip"),
        "{stderr}"
    );
    assert!(written.is_none());
}
