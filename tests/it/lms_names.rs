//! `grade --lms` puts a grade on the learner the platform named, by name and by group (issue
//! 36, second attack): two Canvas groups of one name stay two groups, a Moodle entry whose
//! name is not the worksheet's for its participant id is refused, and a Canvas entry named
//! for a roster's learner under another name is said as that learner's, never another user's.
//! Each platform's side is imitated from its own code, cited where it is.

use super::lms::{grade_lms, submission, text, write};
use super::lms_edges::canvas_export;

// ------------------------------------------------ Canvas: two groups of one name

#[test]
fn two_canvas_groups_of_one_name_are_graded_apart() {
    let scratch = tempfile::tempdir().unwrap();
    let roster = scratch.path().join("gradebook.csv");
    write(
        &roster,
        canvas_export(
            "20.00",
            &[
                ("Lovelace, Ada", "1001", ""),
                ("Okafor, Ben", "1002", ""),
                ("Yilmaz, Cy", "1003", "7.00"),
                ("Doe, Dee", "1004", ""),
            ],
        )
        .as_bytes(),
    );
    // Canvas allows two groups of a set to share a name (`app/models/group.rb` validates a
    // name's presence and length only); the group set's export
    // (`GroupCategoriesController#export`) tells them apart by canvas_group_id.
    let groups = scratch.path().join("groups.csv");
    write(
        &groups,
        b"name,canvas_user_id,user_id,login_id,sections,group_name,canvas_group_id,group_id\n\
\"Lovelace, Ada\",1001,,ada,A,Team 1,9,\n\
\"Okafor, Ben\",1002,,ben,A,Team 1,9,\n\
\"Yilmaz, Cy\",1003,,cy,A,Team 1,10,\n\
\"Doe, Dee\",1004,,dee,A,Team 1,10,\n",
    );
    // Only group 9 handed in, named by the group and Ada (`Assignment#representatives`).
    let folder = scratch.path().join("submissions");
    write(
        &folder.join("team1_1001_55001_matrix.csv"),
        &submission("ada.csv"),
    );
    let (run, written) = grade_lms(
        "canvas",
        &folder,
        &roster,
        &["--groups", groups.to_str().unwrap()],
    );
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
    let (run, written) = grade_lms(
        "canvas",
        &folder,
        &roster,
        &["--groups", groups.to_str().unwrap()],
    );
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("groups.csv:3") && stderr.contains("named on line 2 too"),
        "{stderr}"
    );
    assert!(written.is_none());
}
