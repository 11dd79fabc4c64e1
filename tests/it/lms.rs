//! `grade --lms` (issue 30): for Canvas, Moodle and GitHub Classroom, a bulk download (folder
//! and zip) and a roster laid out as the platform makes them, graded, and the file written
//! back read by a reader that follows the platform's importer (its code, cited in
//! `src/lms/`); and `grade -f github-classroom`, the grading reporter's input, checked field
//! by field as the reporter reads it.

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{copy_tree, grade_lms, key, root, submission, text, write};

pub(super) fn leasejudge(args: &[&str]) -> Output {
    crate::common::leasejudge(args)
        .env("NO_COLOR", "1")
        .output()
}

/// Zips every file under `dir` (names relative to it, `prefix/` before them).
pub(super) fn zip_dir(dir: &Path, zip: &Path, prefix: &str) {
    fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, files);
            } else {
                files.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.sort();
    let mut writer = zip::ZipWriter::new(fs::File::create(zip).unwrap());
    for file in files {
        let name = format!(
            "{prefix}{}",
            file.strip_prefix(dir).unwrap().to_string_lossy()
        );
        writer
            .start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        writer.write_all(&fs::read(&file).unwrap()).unwrap();
    }
    writer.finish().unwrap();
}

/// CSV records as a permissive reader gives them.
pub(super) fn records(text: &str, delimiter: u8) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(str::to_owned).collect())
        .collect()
}

// ---------------------------------------------------------------- Canvas

/// What Canvas's gradebook import makes of a CSV, as `app/models/gradebook_importer.rb` reads
/// it: the delimiter of the first lines (`identify_delimiter`), the header's student columns
/// (`row_has_student_headers?`, `update_column_count`, the last of them `Section`), the
/// assignment columns by the id in `Title (ID)` with the totals stripped, the `Points Possible`
/// row, the `Muted`/`Manual Posting` rows skipped, and each learner by `ID` with their cells.
pub(super) struct CanvasImport {
    /// Per assignment id, its points.
    pub(super) points: HashMap<String, String>,
    /// Per user id, per assignment id, the cell (stripped).
    pub(super) grades: HashMap<String, HashMap<String, String>>,
}

pub(super) fn canvas_import(csv_text: &str) -> CanvasImport {
    let first: Vec<&str> = csv_text.lines().take(3).collect();
    let count = |delimiter: u8| {
        let counts: Vec<usize> = first
            .iter()
            .map(|line| records(line, delimiter).first().map_or(0, Vec::len))
            .collect();
        if counts.windows(2).all(|w| w[0] == w[1]) {
            counts[0]
        } else {
            0
        }
    };
    let delimiter = if count(b';') > count(b',') {
        b';'
    } else {
        b','
    };
    let rows: Vec<Vec<String>> = records(csv_text, delimiter)
        .into_iter()
        .filter(|row| !row.iter().all(|c| c.trim().is_empty()))
        .collect();
    let header = &rows[0];
    assert!(
        header.len() > 3 && header[0].contains("Student") && header[1].contains("ID"),
        "Invalid header row: {header:?}"
    );
    let mut student_columns = 3;
    if header[2].contains("SIS Login ID") {
        student_columns += 1;
    } else if header[2].contains("SIS User ID") && header[3].contains("SIS Login ID") {
        let integration = usize::from(header.get(4).is_some_and(|h| h.contains("Integration ID")));
        student_columns += 2 + integration;
        if header
            .get(3 + integration + 1)
            .is_some_and(|h| h.contains("Root Account"))
        {
            student_columns += 1;
        }
    }
    assert!(
        header[student_columns - 1].contains("Section"),
        "Invalid header row: the student columns end with {:?}",
        header[student_columns - 1]
    );
    let non_assignment = [
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
    let assignments: Vec<(usize, String)> = header
        .iter()
        .enumerate()
        .skip(student_columns)
        .filter(|(_, h)| !non_assignment.iter().any(|n| h.contains(n)))
        .map(|(i, h)| {
            let id = h
                .trim_end_matches(')')
                .rsplit_once(" (")
                .map(|(_, id)| id.to_owned())
                .expect("an assignment column is headed TITLE (ID)");
            (i, id)
        })
        .collect();
    let mut import = CanvasImport {
        points: HashMap::new(),
        grades: HashMap::new(),
    };
    for row in &rows[1..] {
        if row[0].contains("Points Possible") {
            for (i, id) in &assignments {
                import.points.insert(id.clone(), row[*i].clone());
            }
            continue;
        }
        let muted = row.iter().all(|c| {
            let c = c.trim().to_ascii_lowercase();
            c.is_empty() || c == "muted" || c.starts_with("manual posting")
        });
        if muted {
            continue;
        }
        let cells = assignments
            .iter()
            .map(|(i, id)| (id.clone(), row[*i].trim().to_owned()))
            .collect();
        assert!(
            import.grades.insert(row[1].clone(), cells).is_none(),
            "a learner twice"
        );
    }
    import
}

pub(super) const CANVAS_EXPORT: &str = "Student,ID,SIS User ID,SIS Login ID,Section,Attendance,Lab 1 (4101),Lab 2 (4102),Current Points,Final Points,Current Score,Unposted Current Score,Final Score,Unposted Final Score\n\
,,,,,,,Manual Posting,,,,,,\n    \
Points Possible,,,,,(read only),10.00,20.00,(read only),(read only),(read only),(read only),(read only),(read only)\n\
\"Lovelace, Ada\",1001,ada,ada@example.edu,Section A,,9.00,,9.00,9.00,90.00,90.00,90.00,90.00\n\
\"Okafor, Ben\",1002,ben,ben@example.edu,Section A,,8.00,,8.00,8.00,80.00,80.00,80.00,80.00\n\
\"Yilmaz, Cy\",1003,cy,cy@example.edu,Section A,,7.00,5.00,12.00,12.00,40.00,40.00,40.00,40.00\n\
\"Doe, Dee\",1004,dee,dee@example.edu,Section B,,,,,,,,,\n\
\"O'Brien, Siân\",1005,sian,sian@example.edu,Section B,,10.00,,10.00,10.00,100.00,100.00,100.00,100.00\n\
\"Nobody, Ned\",1006,ned,ned@example.edu,Section B,,6.00,12.00,18.00,18.00,60.00,60.00,60.00,60.00\n\
\"=HYPERLINK(\"\"http://x\"\"),Two\",1007,two,two@example.edu,Section B,,,,,,,,,\n\
\"Student, Test\",1099,,,Section A,,,,,,,,,\n";

/// A Canvas "Download Submissions" folder: every file named after its learner
/// (`lib/content_zipper.rb`), a late one, a resubmitted file (`matrix-1.csv`), a learner with
/// two matrix files, one without any file.
pub(super) fn canvas_download(dir: &Path) {
    let files: [(&str, Vec<u8>); 8] = [
        ("lovelaceada_1001_55001_matrix.csv", submission("ada.csv")),
        (
            "okaforben_LATE_1002_55002_matrix.csv",
            submission("ben.csv"),
        ),
        ("yilmazcy_1003_55003_matrix.csv", submission("cy.csv")),
        ("doedee_1004_55004_matrix.json", submission("dee.json")),
        ("obriensiân_1005_55005_matrix-1.csv", submission("eve.csv")),
        ("obriensiân_1005_55006_notes.txt", b"my notes".to_vec()),
        ("hyperlinkhttpxtwo_1007_55008_a.csv", submission("ada.csv")),
        ("hyperlinkhttpxtwo_1007_55009_b.csv", submission("ben.csv")),
    ];
    for (name, bytes) in files {
        write(&dir.join(name), &bytes);
    }
}

#[test]
fn canvas_downloads_folder_and_zip_grade_into_what_canvas_imports() {
    let scratch = tempfile::tempdir().unwrap();
    let roster = scratch.path().join("gradebook.csv");
    write(&roster, CANVAS_EXPORT.as_bytes());
    let folder = scratch.path().join("submissions");
    canvas_download(&folder);
    let zip = scratch.path().join("cs101-lab-2_submissions.zip");
    zip_dir(&folder, &zip, "");
    // The zip unpacked into a folder of its own, zipped again: the wrapping folder is looked
    // through.
    let wrapped = scratch.path().join("wrapped.zip");
    zip_dir(&folder, &wrapped, "cs101-lab-2_submissions/");
    for download in [&folder, &zip, &wrapped] {
        let (run, written) = grade_lms("canvas", download, &roster, &["--assignment", "4102"]);
        let stderr = text(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{stderr}");
        // The learners without a gradable submission are listed.
        assert!(
            stderr.contains("Nobody, Ned (1006): no submission in the download"),
            "{stderr}"
        );
        assert!(
            stderr.contains("Student, Test (1099): no submission"),
            "{stderr}"
        );
        assert!(stderr.contains("Yilmaz, Cy (1003)/matrix.csv:4: case_id: duplicated case id"));
        assert!(
            stderr.contains("holds 2 matrices (a.csv, b.csv)"),
            "{stderr}"
        );
        let report = text(&run.stdout);
        assert!(
            report.contains("Okafor, Ben (1002)/matrix.csv: 1/4 (25.0%)"),
            "{report}"
        );
        assert!(
            report.contains("O'Brien, Siân (1005)/matrix-1.csv: 4/4"),
            "{report}"
        );
        let written = written.expect("the gradebook is written");
        let import = canvas_import(&written);
        assert_eq!(import.points["4102"], "20.00");
        let grade = |id: &str| import.grades.get(id).map(|g| g["4102"].clone());
        assert_eq!(grade("1001").as_deref(), Some("20"));
        assert_eq!(grade("1002").as_deref(), Some("5"));
        assert_eq!(grade("1004").as_deref(), Some("5"));
        assert_eq!(grade("1005").as_deref(), Some("20"));
        // No grade, no row: the importer leaves a score there as it is (a blank cell would
        // delete it).
        for id in ["1003", "1006", "1007", "1099"] {
            assert_eq!(grade(id), None, "{written}");
        }
        assert!(import.grades.values().all(|g| !g["4102"].is_empty()));
        // Only this assignment's column: the others stay as they are.
        assert!(!written.contains("Lab 1") && !written.contains("Current"));
    }
    // --missing zero: every learner gets a grade; --points must agree with the export.
    let (run, written) = grade_lms(
        "canvas",
        &zip,
        &roster,
        &[
            "--assignment",
            "Lab 2",
            "--missing",
            "zero",
            "--points",
            "20",
        ],
    );
    assert_eq!(run.status.code(), Some(2));
    let import = canvas_import(&written.unwrap());
    for id in ["1003", "1006", "1007", "1099"] {
        assert_eq!(import.grades[id]["4102"], "0");
    }
    // Every cell a spreadsheet opens is inert, the learners' names included.
    let (_, written) = grade_lms(
        "canvas",
        &zip,
        &roster,
        &["--assignment", "4102", "--missing", "zero"],
    );
    let written = written.unwrap();
    for row in records(&written, b',') {
        for cell in row {
            assert!(!cell.starts_with(['=', '+', '@']), "{cell:?} in\n{written}");
        }
    }
    let (run, written) = grade_lms("canvas", &zip, &roster, &["--points", "10"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("Lab 1 (4101); Lab 2 (4102)"));
    assert!(written.is_none());
    let (run, _) = grade_lms(
        "canvas",
        &zip,
        &roster,
        &["--assignment", "4102", "--points", "10"],
    );
    assert!(text(&run.stderr).contains("--points 10 disagrees with the 20 points"));
    // The download is an input: no output may go in it.
    let inside = folder.join("import.csv");
    let run = leasejudge(&[
        "grade",
        "--golden",
        key().to_str().unwrap(),
        folder.to_str().unwrap(),
        "--lms",
        "canvas",
        "--roster",
        roster.to_str().unwrap(),
        "--assignment",
        "4102",
        "--gradebook",
        inside.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        text(&run.stderr).contains("is inside the download"),
        "{}",
        text(&run.stderr)
    );
    assert!(!inside.exists());
}

#[test]
fn a_download_entry_of_no_roster_learner_is_an_error_and_nothing_is_written() {
    let scratch = tempfile::tempdir().unwrap();
    let roster = scratch.path().join("gradebook.csv");
    write(&roster, CANVAS_EXPORT.as_bytes());
    let folder = scratch.path().join("submissions");
    canvas_download(&folder);
    write(
        &folder.join("strangerx_4242_1_matrix.csv"),
        &submission("ada.csv"),
    );
    write(&folder.join("readme.txt"), b"hello");
    write(&folder.join("anon_Xb3kq_99_matrix.csv"), b"x");
    let (run, written) = grade_lms("canvas", &folder, &roster, &["--assignment", "4102"]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = text(&run.stderr);
    assert!(
        stderr.contains("the submission of the Canvas user 4242, who is not on the roster")
            && stderr.contains("strangerx_4242_1_matrix.csv"),
        "{stderr}"
    );
    assert!(stderr.contains("readme.txt"), "{stderr}");
    assert!(stderr.contains("anonymous grading"), "{stderr}");
    assert!(written.is_none());
    assert!(run.stdout.is_empty(), "nothing is graded");
}

// ---------------------------------------------------------------- Moodle

/// What Moodle's "Upload grading worksheet" makes of a CSV
/// (`mod/assign/feedback/offline/importgradeslib.php`, `process_import_grades` in its
/// `locallib.php`): the columns by their English names; each row's learner by the number after
/// `Participant `; a grade that is blank, negative or above the maximum skipped; the feedback
/// cell taken whenever the column is there. Returns, per participant, the grade the import
/// sets (None: skipped) and the feedback.
pub(super) fn moodle_import(
    csv_text: &str,
    maximum: f64,
) -> HashMap<String, (Option<f64>, Option<String>)> {
    // Read as Moodle reads it: PHP's fgetcsv, escape character and all.
    let rows = super::lms_edges::moodle_importer_rows(csv_text);
    let header = &rows[0];
    let at = |name: &str| header.iter().position(|h| h == name);
    let (Some(id), Some(grade), Some(_modified)) =
        (at("Identifier"), at("Grade"), at("Last modified (grade)"))
    else {
        panic!("invalidgradeimport: {header:?}");
    };
    let feedback = at("Feedback comments");
    let mut import = HashMap::new();
    for row in &rows[1..] {
        let participant = row[id]["Participant ".len()..].to_owned();
        // unformat_float: a decimal comma is a point.
        let value = row[grade].trim().replace(',', ".");
        let value = if value.is_empty() {
            None
        } else {
            let number: f64 = value.parse().expect("a grade the importer reads");
            (0.0..=maximum).contains(&number).then_some(number)
        };
        let comment = feedback.map(|i| row[i].clone());
        assert!(import.insert(participant, (value, comment)).is_none());
    }
    import
}

/// Moodle's feedback field is HTML: the plain text the learner reads.
pub(super) fn shown_in_moodle(html: &str) -> Vec<String> {
    html.split("<br>")
        .map(|line| {
            line.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#92;", "\\")
                .replace("&amp;", "&")
        })
        .collect()
}

pub(super) const MOODLE_WORKSHEET: &str = "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,Last modified (submission),Online text,Last modified (grade),Feedback comments\n\
Participant 2001,Ada Lovelace,ada@example.edu,Submitted for grading,,10.00,Yes,\"Monday, 3 March 2025, 9:00 AM\",,-,\n\
Participant 2002,Ben Okafor,ben@example.edu,Submitted for grading,,10.00,Yes,\"Monday, 3 March 2025, 9:05 AM\",,-,\n\
Participant 2003,Cy Yilmaz,cy@example.edu,Submitted for grading,,10.00,Yes,\"Monday, 3 March 2025, 9:06 AM\",,-,\n\
Participant 2005,\"Siân O'Brien, Jr\",sian@example.edu,Submitted for grading,,10.00,Yes,\"Monday, 3 March 2025, 9:10 AM\",,-,\n\
Participant 2006,Ned Nobody,ned@example.edu,No submission,7.00,10.00,Yes,-,,\"Tuesday, 4 March 2025, 10:00 AM\",Seen in class\n\
Participant 2007,Ada Lovelace,ada2@example.edu,Submitted for grading,,10.00,Yes,\"Monday, 3 March 2025, 9:20 AM\",,-,\n";

/// A Moodle "Download all submissions" in folders (`mod/assign/classes/downloader.php`):
/// `{full name}_{participant id}_assignsubmission_file/` with the files as uploaded, online
/// text beside it; two learners of one name; a matrix in a folder of the upload.
pub(super) fn moodle_in_folders(dir: &Path) {
    let files: [(&str, Vec<u8>); 7] = [
        (
            "Ada Lovelace_2001_assignsubmission_file/matrix.csv",
            submission("ada.csv"),
        ),
        (
            "Ben Okafor_2002_assignsubmission_file/lab/matrix.csv",
            submission("ben.csv"),
        ),
        (
            "Ben Okafor_2002_assignsubmission_file/notes.txt",
            b"notes".to_vec(),
        ),
        (
            "Cy Yilmaz_2003_assignsubmission_file/matrix.csv",
            submission("cy.csv"),
        ),
        (
            "Siân O'Brien, Jr_2005_assignsubmission_file/matrix.csv",
            submission("eve.csv"),
        ),
        (
            "Siân O'Brien, Jr_2005_assignsubmission_onlinetext/onlinetext.html",
            b"<p>hi</p>".to_vec(),
        ),
        (
            "Ada Lovelace_2007_assignsubmission_file/matrix.json",
            submission("dee.json"),
        ),
    ];
    for (name, bytes) in files {
        write(&dir.join(name), &bytes);
    }
}

/// The same download without folders: `{prefix}_assignsubmission_file_{file}`.
pub(super) fn moodle_flat(dir: &Path) {
    let files: [(&str, Vec<u8>); 6] = [
        (
            "Ada Lovelace_2001_assignsubmission_file_matrix.csv",
            submission("ada.csv"),
        ),
        (
            "Ben Okafor_2002_assignsubmission_file_matrix.csv",
            submission("ben.csv"),
        ),
        (
            "Cy Yilmaz_2003_assignsubmission_file_matrix.csv",
            submission("cy.csv"),
        ),
        (
            "Siân O'Brien, Jr_2005_assignsubmission_file_matrix.csv",
            submission("eve.csv"),
        ),
        (
            "Siân O'Brien, Jr_2005_assignsubmission_onlinetext_onlinetext.html",
            b"<p>hi</p>".to_vec(),
        ),
        (
            "Ada Lovelace_2007_assignsubmission_file_matrix.json",
            submission("dee.json"),
        ),
    ];
    for (name, bytes) in files {
        write(&dir.join(name), &bytes);
    }
}

#[test]
fn moodle_downloads_in_folders_or_not_folder_and_zip_grade_into_the_worksheet_moodle_takes() {
    let scratch = tempfile::tempdir().unwrap();
    let roster = scratch.path().join("worksheet.csv");
    write(&roster, MOODLE_WORKSHEET.as_bytes());
    let folders = scratch.path().join("folders");
    moodle_in_folders(&folders);
    let flat = scratch.path().join("flat");
    moodle_flat(&flat);
    let folders_zip = scratch.path().join("LAB-Lab 2-7.zip");
    zip_dir(&folders, &folders_zip, "");
    let flat_zip = scratch.path().join("flat.zip");
    zip_dir(&flat, &flat_zip, "");
    for download in [&folders, &flat, &folders_zip, &flat_zip] {
        let (run, written) = grade_lms("moodle", download, &roster, &[]);
        let stderr = text(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("Ned Nobody (Participant 2006): no submission"),
            "{stderr}"
        );
        let import = moodle_import(&written.expect("written"), 10.0);
        assert_eq!(import["2001"].0, Some(10.0));
        assert_eq!(import["2002"].0, Some(2.5));
        assert_eq!(import["2005"].0, Some(10.0));
        assert_eq!(import["2007"].0, Some(2.5), "the other Ada Lovelace");
        // Ungradable or missing: no row, so Moodle keeps the grade and the feedback there (a
        // blank feedback cell would clear it).
        assert!(!import.contains_key("2003") && !import.contains_key("2006"));
        let ben = shown_in_moodle(import["2002"].1.as_deref().unwrap());
        assert_eq!(ben[0], "Score: 1/4 (25.0%)");
        assert!(ben.contains(&"probe-2: decision: EXPIRD is wrong — EXPIRD is not a decision code; did you mean EXPIRED?".to_owned()), "{ben:?}");
        assert!(ben
            .iter()
            .all(|l| !l.contains("EXPIRED,") && !l.contains("expected")));
        // The feedback learners read in Moodle says "the key", never "golden" (issue 40):
        // Ben's case the key lacks is a warning in it.
        assert!(
            ben.iter()
                .any(|l| l.contains("this case is not in the key")),
            "{ben:?}"
        );
        for (_, feedback) in import.values() {
            let feedback = feedback.as_deref().unwrap_or("").to_ascii_lowercase();
            assert!(!feedback.contains("golden"), "{feedback}");
        }
    }
    // --missing zero, and the feedback at --feedback none: the score alone.
    let (_, written) = grade_lms(
        "moodle",
        &folders,
        &roster,
        &["--missing", "zero", "--feedback", "none"],
    );
    let import = moodle_import(&written.unwrap(), 10.0);
    assert_eq!(import["2003"].0, Some(0.0));
    assert_eq!(import["2006"].0, Some(0.0));
    // The score, and (as every format at `none`) the rows the key does not have.
    let ben = shown_in_moodle(import["2002"].1.as_deref().unwrap());
    assert_eq!(ben[0], "Score: 1/4 (25.0%)");
    assert_eq!(ben.len(), 2, "{ben:?}");
    assert!(ben[1].starts_with("warning: "), "{ben:?}");
    assert_eq!(
        shown_in_moodle(import["2006"].1.as_deref().unwrap()),
        ["No submission was found."]
    );
    let cy = shown_in_moodle(import["2003"].1.as_deref().unwrap());
    assert_eq!(cy[0], "Your submission could not be graded:");
    // A learner's text that is HTML is shown as text.
    let hostile = scratch.path().join("hostile");
    write(
        &hostile.join("Ada Lovelace_2001_assignsubmission_file/matrix.csv"),
        b"case_id,decision,reason\nprobe-1,<b>x</b>&,within_lease\n",
    );
    let (_, written) = grade_lms("moodle", &hostile, &roster, &[]);
    let written = written.unwrap();
    assert!(written.contains("&lt;b&gt;x&lt;/b&gt;&amp;"), "{written}");
    let import = moodle_import(&written, 10.0);
    let ada = shown_in_moodle(import["2001"].1.as_deref().unwrap());
    assert!(
        ada.iter()
            .any(|l| l.contains("decision: <b>x</b>& is wrong")),
        "{ada:?}"
    );
}

// ---------------------------------------------------------------- GitHub Classroom

pub(super) const GITHUB_ROSTER: &str =
    "\"identifier\",\"github_username\",\"github_id\",\"name\"\n\
\"ada@example.edu\",\"ada-l\",\"101\",\"Ada Lovelace\"\n\
\"ben@example.edu\",\"benok\",\"102\",\"Ben Okafor\"\n\
\"sian@example.edu\",\"sian-ob\",\"105\",\"Siân O'Brien\"\n\
\"cy@example.edu\",\"\",\"\",\"\"\n\
\"@dee\",\"dee-x\",\"104\",\"Dee\"\n";

/// `gh classroom clone student-repos`: `{slug}-submissions/{slug}-{username}/`, each a
/// repository with its own files (the case file handed out, a README, .github, .git).
pub(super) fn github_download(dir: &Path) {
    for (repo, matrix) in [
        ("lab-5-ada-l", "ada.csv"),
        ("lab-5-BenOk", "ben.csv"),
        ("lab-5-sian-ob", "eve.csv"),
    ] {
        let repo = dir.join(repo);
        write(&repo.join("matrix.csv"), &submission(matrix));
        write(&repo.join("README.md"), b"# Lab 5\n");
        write(&repo.join(".git/HEAD"), b"ref: refs/heads/main\n");
        write(&repo.join(".github/workflows/classroom.yml"), b"name: x\n");
        // The template's case file beside the matrix (what `autograder github-classroom`
        // puts in every repository): a case file's header makes it no candidate.
        write(
            &repo.join("cases.csv"),
            b"case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n",
        );
    }
}

#[test]
fn github_classroom_repositories_grade_into_the_roster_with_points_awarded() {
    let scratch = tempfile::tempdir().unwrap();
    let roster = scratch.path().join("classroom_roster.csv");
    write(&roster, GITHUB_ROSTER.as_bytes());
    let folder = scratch.path().join("lab-5-submissions");
    github_download(&folder);
    let zip = scratch.path().join("repos.zip");
    zip_dir(&folder, &zip, "lab-5-submissions/");
    for download in [&folder, &zip] {
        let (run, written) = grade_lms("github-classroom", download, &roster, &["--points", "10"]);
        let stderr = text(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(
                "cy@example.edu: no submission in the download: no GitHub account is linked"
            ),
            "{stderr}"
        );
        let rows = records(&written.unwrap(), b',');
        assert_eq!(
            rows[0],
            [
                "identifier",
                "github_username",
                "github_id",
                "name",
                "points_awarded",
                "points_available"
            ]
        );
        let points: HashMap<&str, (&str, &str)> = rows[1..]
            .iter()
            .map(|r| (r[1].as_str(), (r[4].as_str(), r[5].as_str())))
            .collect();
        assert_eq!(points["ada-l"], ("10", "10"));
        assert_eq!(points["benok"], ("2.5", "10"));
        assert_eq!(points["sian-ob"], ("10", "10"));
        assert_eq!(points["dee-x"], ("", "10"));
        assert_eq!(points[""], ("", "10"));
        assert!(rows.iter().flatten().all(|cell| !cell.starts_with('@')));
    }
    // The raw total without --points; a repository of no roster learner is an error.
    write(
        &folder.join("lab-5-mallory/matrix.csv"),
        &submission("ada.csv"),
    );
    let (run, written) = grade_lms("github-classroom", &folder, &roster, &[]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        text(&run.stderr).contains("lab-5-mallory"),
        "{}",
        text(&run.stderr)
    );
    assert!(written.is_none());
    fs::remove_dir_all(folder.join("lab-5-mallory")).unwrap();
    let (_, written) = grade_lms("github-classroom", &folder, &roster, &[]);
    assert!(written
        .unwrap()
        .contains("ada@example.edu,ada-l,101,Ada Lovelace,4,4\n"));
}

// ------------------------------------------------- the grading reporter's input

/// What the reporter does with a step's output (classroom-resources/autograding-grading-reporter,
/// `src/main.js` and `src/notify-classroom.js`): decodes the base64 of `{ID}_RESULTS`, parses
/// the JSON, and for a runner whose `max_score` is not 0 adds every test's `score` and the
/// `max_score`: the "Points X/Y" GitHub Classroom records. Its log says the runner's total
/// too, counted another way (`src/console-results.js`: "Total points for RUNNER:
/// {score.toFixed(2)}/{max_score}", the score by `getTestScore` in
/// `src/helpers/test-helpers.js` at the `v1` tag, built into `dist/main.js`: the passing
/// tests' share of `max_score`); the two must be
/// the same number (issue 36), asserted here.
pub(super) fn reporter_points(json: &[u8]) -> (serde_json::Value, Option<String>) {
    let (results, points, logged) = reporter_totals(json);
    if let (Some(points), Some(logged)) = (&points, &logged) {
        let total = points
            .strip_prefix("Points ")
            .and_then(|p| p.split('/').next())
            .unwrap()
            .parse::<f64>()
            .unwrap();
        assert_eq!(
            logged,
            &format!(
                "Total points for practice: {:.2}/{}",
                total, results["max_score"]
            ),
            "the log and the check run disagree ({points})"
        );
    }
    (results, points)
}

/// The reporter's two totals of a step's output: the check run's "Points X/Y" and the log's
/// "Total points for practice: X.XX/Y".
pub(super) fn reporter_totals(json: &[u8]) -> (serde_json::Value, Option<String>, Option<String>) {
    use base64_std as b64;
    let encoded = b64::encode(json);
    // The environment string the reporter is started with fits Linux's MAX_ARG_STRLEN.
    assert!("PRACTICE_RESULTS=".len() + encoded.len() < 128 * 1024);
    let decoded = b64::decode(&encoded);
    let results: serde_json::Value = serde_json::from_slice(&decoded).unwrap();
    let max = results["max_score"].as_u64().unwrap_or(0);
    let points = (max > 0).then(|| {
        let total: u64 = results["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["score"].as_u64().unwrap())
            .sum();
        format!("Points {total}/{max}")
    });
    let logged = (max > 0).then(|| {
        let tests = results["tests"].as_array().unwrap();
        let passed = tests.iter().filter(|t| t["status"] == "pass").count();
        let score = passed as f64 / tests.len() as f64 * max as f64;
        format!("Total points for practice: {score:.2}/{max}")
    });
    (results, points, logged)
}

/// Base64 as `Buffer.from(..).toString('base64')` writes it (no crate needed for a test).
pub(super) mod base64_std {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    pub fn encode(bytes: &[u8]) -> String {
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let n =
                chunk.iter().fold(0u32, |n, &b| (n << 8) | u32::from(b)) << (8 * (3 - chunk.len()));
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(TABLE[(n >> (18 - 6 * i)) as usize & 63] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    pub fn decode(text: &str) -> Vec<u8> {
        let mut out = Vec::new();
        for chunk in text.as_bytes().chunks(4) {
            let values: Vec<u32> = chunk
                .iter()
                .filter(|&&c| c != b'=')
                .map(|&c| TABLE.iter().position(|&t| t == c).unwrap() as u32)
                .collect();
            let n = values.iter().fold(0u32, |n, &v| (n << 6) | v) << (6 * (4 - values.len()));
            for i in 0..values.len().saturating_sub(1) {
                out.push((n >> (16 - 8 * i)) as u8);
            }
        }
        out
    }
}

/// Every field of every test, as the reporter and the graders' own results have them.
pub(super) fn check_test_fields(test: &serde_json::Value) {
    let fields: Vec<&str> = test
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        fields,
        [
            "name",
            "status",
            "score",
            "message",
            "test_code",
            "filename",
            "line_no",
            "duration"
        ]
    );
    assert!(test["name"].is_string());
    assert!(["pass", "fail", "error"].contains(&test["status"].as_str().unwrap()));
    assert!(test["score"].is_u64());
    assert!(test["message"].is_string());
    // An empty test_code prints nothing; line_no 0 prints no " - line N".
    assert_eq!(test["test_code"], "");
    assert_eq!(test["line_no"], 0);
    assert_eq!(test["duration"], 0);
}

#[test]
fn the_reporter_input_is_what_the_reporter_reads() {
    let lab = root().join("examples/lab/submissions");
    let run = |file: &str, extra: &[&str]| {
        let path = lab.join(file);
        let key = key();
        let mut args = vec![
            "grade",
            "--golden",
            key.to_str().unwrap(),
            path.to_str().unwrap(),
            "-f",
            "github-classroom",
        ];
        args.extend_from_slice(extra);
        leasejudge(&args)
    };
    let ben = run("ben.csv", &[]);
    assert_eq!(ben.status.code(), Some(1));
    let (results, points) = reporter_points(&ben.stdout);
    let top: Vec<&str> = results
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(top, ["version", "status", "max_score", "tests"]);
    assert_eq!(results["version"], 1);
    assert_eq!(results["status"], "fail");
    assert_eq!(results["max_score"], 4);
    assert_eq!(points.as_deref(), Some("Points 1/4"));
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 4, "one test per case");
    tests.iter().for_each(check_test_fields);
    assert_eq!(tests[0]["name"], "probe-1");
    assert_eq!(tests[0]["status"], "fail");
    assert_eq!(tests[0]["message"], "reason: within_lease is wrong");
    assert_eq!(tests[2]["status"], "pass");
    assert_eq!(tests[2]["score"], 1);
    // No expected value without --reveal.
    assert!(!text(&ben.stdout).contains("expected"));
    let ada = run("ada.csv", &[]);
    let (results, points) = reporter_points(&ada.stdout);
    assert_eq!(
        (results["status"].as_str(), points.as_deref()),
        (Some("pass"), Some("Points 4/4"))
    );
    // Weighted: a test per point of each column, each passing exactly when it scores, so a
    // case half right is a passing and a failing test, never a failing test with points.
    let weighted = run("ben.csv", &["--weights", "decision=2,reason=1"]);
    let (results, points) = reporter_points(&weighted.stdout);
    assert_eq!(points.as_deref(), Some("Points 6/12"));
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 12);
    let named: Vec<(&str, &str, u64)> = tests[..3]
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap(),
                t["status"].as_str().unwrap(),
                t["score"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        named,
        [
            ("probe-1: decision (1 of 2)", "pass", 1),
            ("probe-1: decision (2 of 2)", "pass", 1),
            ("probe-1: reason", "fail", 0)
        ]
    );
    assert_eq!(tests[2]["message"], "reason: within_lease is wrong");
    // --feedback none: tests of equal worth stand for the score, and say it.
    let none = run("ben.csv", &["--feedback", "none"]);
    let (results, points) = reporter_points(&none.stdout);
    assert_eq!(points.as_deref(), Some("Points 1/4"));
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 4);
    assert!(tests[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("Score: 1/4 (25.0%). These tests stand for the points"));
    assert!(
        !text(&none.stdout).contains("probe-"),
        "no case at --feedback none"
    );
    assert!(tests
        .iter()
        .all(|t| t["name"].as_str().unwrap().starts_with("Points ")));
    // Ungradable: an error test that says why (the reporter prints an error test's message).
    let cy = run("cy.csv", &[]);
    assert_eq!(cy.status.code(), Some(2));
    let (results, points) = reporter_points(&cy.stdout);
    assert_eq!(results["status"], "error");
    assert_eq!(points.as_deref(), Some("Points 0/4"));
    check_test_fields(&results["tests"][0]);
    assert_eq!(results["tests"][0]["status"], "error");
    assert!(results["tests"][0]["message"]
        .as_str()
        .unwrap()
        .contains("duplicated case id"));
    // A learner's cell cannot forge a workflow command in the reporter's log.
    let scratch = tempfile::tempdir().unwrap();
    let forged = scratch.path().join("forged.csv");
    write(
        &forged,
        b"case_id,decision,reason\nprobe-1,\"x\n::error::forged\",within_lease\n",
    );
    let out = leasejudge(&[
        "grade",
        "--golden",
        key().to_str().unwrap(),
        forged.to_str().unwrap(),
        "-f",
        "github-classroom",
    ]);
    let (results, _) = reporter_points(&out.stdout);
    for test in results["tests"].as_array().unwrap() {
        for line in test["message"].as_str().unwrap().lines() {
            assert!(
                !line.trim_start().starts_with("::") && !line.contains("##["),
                "{line:?}"
            );
        }
    }
}

#[test]
fn a_large_lab_fits_the_reporter_and_its_points_still_add_up() {
    let scratch = tempfile::tempdir().unwrap();
    let mut key = String::from("case_id,decision,reason\n");
    let mut answer = key.clone();
    for i in 0..6_000 {
        key.push_str(&format!("case-{i:05},EXPIRED,expired_without_result\n"));
        if i % 3 == 0 {
            answer.push_str(&format!("case-{i:05},EXPIRED,expired_without_result\n"));
        } else {
            answer.push_str(&format!("case-{i:05},ACTIVE,within_lease\n"));
        }
    }
    let key_path = scratch.path().join("key.csv");
    let answer_path = scratch.path().join("answer.csv");
    write(&key_path, key.as_bytes());
    write(&answer_path, answer.as_bytes());
    let out = leasejudge(&[
        "grade",
        "--golden",
        key_path.to_str().unwrap(),
        answer_path.to_str().unwrap(),
        "-f",
        "github-classroom",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.len() <= 96_000, "{} bytes", out.stdout.len());
    // Too many cases for a test each: tests of equal worth stand for the score (a third of
    // the points: one test of 2000 passing, two failing), and the log says the same total.
    let (results, points) = reporter_points(&out.stdout);
    assert_eq!(points.as_deref(), Some("Points 2000/6000"));
    let tests = results["tests"].as_array().unwrap();
    let named: Vec<(&str, &str)> = tests
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), t["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        named,
        [
            ("Points 1-2000 of 6000", "pass"),
            ("Points 2001-4000 of 6000", "fail"),
            ("Points 4001-6000 of 6000", "fail")
        ]
    );
    assert!(tests[0]["message"]
        .as_str()
        .unwrap()
        .contains("The lab's 6000 cases do not fit the reporter's input a test each"));
}

// ------------------------------------------------- the GitHub Classroom template

/// The first `rows` cases of the example key: a practice key.
fn practice_key(path: &Path, rows: usize) {
    let key = fs::read_to_string(key()).unwrap();
    let lines: Vec<&str> = key.lines().take(rows + 1).collect();
    write(path, format!("{}\n", lines.join("\n")).as_bytes());
}

#[test]
fn the_template_repository_runs_as_github_classroom_runs_it() {
    use yaml_rust2::YamlLoader;
    let scratch = tempfile::tempdir().unwrap();
    let practice = scratch.path().join("practice.csv");
    practice_key(&practice, 2);
    let template = scratch.path().join("template");
    let cases = root().join("examples/lab/cases.csv");
    let made = leasejudge(&[
        "autograder",
        "github-classroom",
        "--cases",
        cases.to_str().unwrap(),
        "--practice-key",
        practice.to_str().unwrap(),
        "-o",
        template.to_str().unwrap(),
    ]);
    assert_eq!(made.status.code(), Some(0), "{}", text(&made.stderr));
    assert!(text(&made.stdout).contains("2 practice cases"));
    assert_eq!(
        fs::read_to_string(template.join("matrix.csv")).unwrap(),
        "case_id,decision,reason\nprobe-1,,\nprobe-2,,\nprobe-3,,\nprobe-4,,\n"
    );
    assert_eq!(
        fs::read(template.join("cases.csv")).unwrap(),
        fs::read(&cases).unwrap()
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(template.join(".github/leasejudge/leasejudge"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
    }
    // The workflow in the shape GitHub Classroom generates.
    let text_of = |path: &str| fs::read_to_string(template.join(path)).unwrap();
    let workflow = YamlLoader::load_from_str(&text_of(".github/workflows/classroom.yml"))
        .unwrap()
        .remove(0);
    assert_eq!(workflow["name"].as_str(), Some("Autograding Tests"));
    let on: Vec<&str> = workflow["on"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(on, ["push", "repository_dispatch"]);
    assert_eq!(workflow["permissions"]["checks"].as_str(), Some("write"));
    assert_eq!(workflow["permissions"]["actions"].as_str(), Some("read"));
    assert_eq!(workflow["permissions"]["contents"].as_str(), Some("read"));
    let job = &workflow["jobs"]["run-autograding-tests"];
    assert_eq!(job["runs-on"].as_str(), Some("ubuntu-latest"));
    assert_eq!(
        job["if"].as_str(),
        Some("github.actor != 'github-classroom[bot]'")
    );
    let steps = job["steps"].as_vec().unwrap();
    assert_eq!(steps[0]["uses"].as_str(), Some("actions/checkout@v4"));
    let reporter = steps.last().unwrap();
    assert_eq!(
        reporter["uses"].as_str(),
        Some("classroom-resources/autograding-grading-reporter@v1")
    );
    // Every runner the reporter is given is a step that writes `result`, read from the
    // variable the reporter reads (`{ID in capitals}_RESULTS`).
    let runners: Vec<&str> = reporter["with"]["runners"]
        .as_str()
        .unwrap()
        .split(',')
        .collect();
    assert_eq!(runners, ["precheck", "practice"]);
    for runner in &runners {
        let step = steps
            .iter()
            .find(|s| s["id"].as_str() == Some(runner))
            .unwrap();
        assert!(step["run"]
            .as_str()
            .unwrap()
            .contains("result=$(base64 -w0"));
        let variable = format!("{}_RESULTS", runner.to_ascii_uppercase());
        assert_eq!(
            reporter["env"][variable.as_str()].as_str(),
            Some(format!("${{{{steps.{runner}.outputs.result}}}}").as_str())
        );
    }
    // A push, as the runner runs it: the checkout, the install step, then the practice step,
    // each with `bash -e`, the workflow's env, and GitHub's files for paths and outputs.
    let run_step = |checkout: &Path, name: &str, env: &[(&str, String)]| -> Output {
        let step = steps
            .iter()
            .find(|s| s["name"].as_str() == Some(name))
            .unwrap();
        let script = step["run"].as_str().unwrap();
        let mut command = Command::new("bash");
        command
            .arg("-e")
            .arg("-c")
            .arg(script)
            .current_dir(checkout);
        for (key, value) in env {
            command.env(key, value);
        }
        command.output().unwrap()
    };
    // Ada's matrix is ready; Ben's has a mistyped code and a row the lab lacks (the check
    // fails and says so; the file is still graded); one without its reason column cannot be
    // graded, and the check says why.
    let pushes = [
        (submission("ben.csv"), "fail", Some("Points 0/2")),
        (submission("ada.csv"), "pass", Some("Points 2/2")),
        (b"case_id,decision\nprobe-1,ACTIVE\n".to_vec(), "fail", None),
    ];
    for (matrix, checked, points) in pushes {
        let runner = tempfile::tempdir().unwrap();
        let checkout = runner.path().join("repo");
        copy_tree(&template, &checkout);
        write(&checkout.join("matrix.csv"), &matrix);
        let temp = runner.path().join("temp");
        fs::create_dir_all(&temp).unwrap();
        let github_path = runner.path().join("path");
        let github_output = runner.path().join("output");
        fs::write(&github_path, "").unwrap();
        fs::write(&github_output, "").unwrap();
        let mut env = vec![
            ("GITHUB_WORKSPACE", checkout.to_str().unwrap().to_owned()),
            ("GITHUB_PATH", github_path.to_str().unwrap().to_owned()),
            ("GITHUB_OUTPUT", github_output.to_str().unwrap().to_owned()),
            ("RUNNER_TEMP", temp.to_str().unwrap().to_owned()),
            (
                "MATRIX",
                workflow["env"]["MATRIX"].as_str().unwrap().to_owned(),
            ),
        ];
        let install = run_step(&checkout, "Install leasejudge", &env);
        assert!(install.status.success(), "{}", text(&install.stderr));
        let added = fs::read_to_string(&github_path).unwrap();
        env.push((
            "PATH",
            format!("{}:{}", added.trim(), std::env::var("PATH").unwrap()),
        ));
        // The check: a step of its own (GitHub gives each step its own output file), one
        // test worth no points, so "Points X/Y" counts the practice cases alone.
        let precheck = run_step(&checkout, "Precheck", &env);
        assert!(precheck.status.success(), "{}", text(&precheck.stderr));
        let output = fs::read_to_string(&github_output).unwrap();
        let encoded = output.strip_prefix("result=").unwrap().trim_end();
        let (results, shown) = reporter_points(&base64_std::decode(encoded));
        assert_eq!(shown, None, "the check scores no points: {results}");
        assert_eq!(results["version"], 1);
        assert_eq!(results["status"], checked, "{results}");
        assert_eq!(results["max_score"], 0);
        let tests = results["tests"].as_array().unwrap();
        assert_eq!(tests.len(), 1);
        check_test_fields(&tests[0]);
        assert_eq!(tests[0]["name"], "Check of the matrix");
        assert_eq!(tests[0]["status"], checked);
        assert_eq!(tests[0]["score"], 0);
        let message = tests[0]["message"].as_str().unwrap();
        assert!(message.starts_with("matrix.csv: read as CSV"), "{message}");
        if points.is_none() {
            assert!(message.contains("reason"), "{message}");
            assert!(
                message.ends_with("fix the problem above and check again"),
                "{message}"
            );
        } else if checked == "fail" {
            assert!(message.contains("did you mean EXPIRED?"), "{message}");
        }
        // The log shows the check as the learner reads it too.
        assert!(text(&precheck.stdout).contains("matrix.csv: read as CSV"));
        let Some(points) = points else { continue };
        fs::write(&github_output, "").unwrap();
        let practice = run_step(&checkout, "Practice cases", &env);
        assert!(practice.status.success(), "{}", text(&practice.stderr));
        let output = fs::read_to_string(&github_output).unwrap();
        let encoded = output.strip_prefix("result=").unwrap().trim_end();
        let decoded = base64_std::decode(encoded);
        let (results, shown) = reporter_points(&decoded);
        assert_eq!(shown.as_deref(), Some(points), "{results}");
        assert_eq!(
            results["tests"].as_array().unwrap().len(),
            2,
            "the practice cases only"
        );
    }
    // Refused: a folder that is not empty, a practice key that disagrees with the contract.
    let again = leasejudge(&[
        "autograder",
        "github-classroom",
        "--cases",
        cases.to_str().unwrap(),
        "-o",
        template.to_str().unwrap(),
    ]);
    assert_eq!(again.status.code(), Some(2));
    assert!(text(&again.stderr).contains("is not empty"));
    let wrong = scratch.path().join("wrong.csv");
    let key_text = fs::read_to_string(&practice)
        .unwrap()
        .replace("ACTIVE,stale_generation", "EXPIRED,stale_generation");
    write(&wrong, key_text.as_bytes());
    let refused = leasejudge(&[
        "autograder",
        "github-classroom",
        "--cases",
        cases.to_str().unwrap(),
        "--practice-key",
        wrong.to_str().unwrap(),
        "-o",
        scratch.path().join("other").to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("wrong.csv:2: decision: case probe-1: the key has EXPIRED"),
        "{}",
        text(&refused.stderr)
    );
    assert!(!scratch.path().join("other").exists());
}

/// `--feedback shortcut` end to end on a platform: the feedback comment Moodle imports names
/// the shortcut a learner's wrong answers follow, and is otherwise the `--feedback cases`
/// comment; a learner with every case right is told no shortcut (issue 37).
#[test]
fn moodle_feedback_names_each_learners_shortcut() {
    let scratch = tempfile::tempdir().unwrap();
    let lab = root().join("tests/data/grading/grade-shortcuts-class");
    let worksheet = "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,Last modified (submission),Online text,Last modified (grade),Feedback comments\n\
        Participant 3001,Ines Inclusive,ines@example.edu,Submitted for grading,,10.00,Yes,-,,-,\n\
        Participant 3002,Rita Right,rita@example.edu,Submitted for grading,,10.00,Yes,-,,-,\n";
    let roster = scratch.path().join("worksheet.csv");
    write(&roster, worksheet.as_bytes());
    let download = scratch.path().join("download");
    for (entry, matrix) in [
        ("Ines Inclusive_3001", "inclusive_deadlines.csv"),
        ("Rita Right_3002", "right.csv"),
    ] {
        let bytes = fs::read(lab.join("submissions").join(matrix)).unwrap();
        write(
            &download.join(format!("{entry}_assignsubmission_file_matrix.csv")),
            &bytes,
        );
    }
    let cases: Vec<String> = fs::read_dir(root().join("cases"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "csv"))
        .map(|path| path.to_string_lossy().into_owned())
        .collect();
    let imported = |level: &str| {
        let out = scratch.path().join(format!("import-{level}.csv"));
        let key = lab.join("key.csv");
        let mut args = vec![
            "grade",
            "--golden",
            key.to_str().unwrap(),
            download.to_str().unwrap(),
            "--lms",
            "moodle",
            "--roster",
            roster.to_str().unwrap(),
            "--gradebook",
            out.to_str().unwrap(),
            "--feedback",
            level,
            "--cases",
        ];
        args.extend(cases.iter().map(String::as_str));
        let run = crate::common::leasejudge(&args)
            .env("NO_COLOR", "1")
            .output();
        assert!(run.status.code() != Some(2), "{}", text(&run.stderr));
        let import = moodle_import(&fs::read_to_string(&out).unwrap(), 10.0);
        let comment = |id: &str| shown_in_moodle(import[id].1.as_deref().unwrap());
        (comment("3001"), comment("3002"))
    };
    let (ines, rita) = imported("shortcut");
    let (ines_cases, rita_cases) = imported("cases");
    let named: Vec<&String> = ines
        .iter()
        .filter(|line| !ines_cases.contains(line))
        .collect();
    // Most explained first: hers is the inclusive deadline.
    assert!(
        named
            .first()
            .is_some_and(|line| line.starts_with("Shortcut: inclusive_deadlines ("))
            && named.iter().all(|line| line.starts_with("Shortcut: ")),
        "the shortcut's lines: {named:?}\n{ines:?}"
    );
    assert!(
        ines_cases.iter().all(|line| ines.contains(line)),
        "the rest is --feedback cases' comment: {ines:?}\n{ines_cases:?}"
    );
    assert_eq!(rita, rita_cases, "all right: no shortcut said");
    assert!(
        rita.iter().all(|line| !line.contains("Shortcut")),
        "{rita:?}"
    );
}
