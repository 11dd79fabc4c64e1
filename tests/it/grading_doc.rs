//! Runs the "Running a lab" walkthrough of `docs/grading.md` as written: every `leasejudge`
//! line of its `sh` blocks, from the repository root, must exit with the status its
//! `# exit N` comment says (with `/tmp/lab` moved to a temporary directory).

use std::path::Path;
use std::process::Command;

#[test]
fn the_walkthrough_runs_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/grading.md")).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let scratch_path = scratch.path().to_str().unwrap();
    let mut in_block = false;
    let mut ran = 0;
    let mut failures = Vec::new();
    for line in doc.lines() {
        if line.starts_with("```") {
            in_block = line == "```sh";
            continue;
        }
        if !in_block || !line.starts_with("leasejudge ") {
            continue;
        }
        let (command, comment) = line
            .split_once('#')
            .expect("a command says its exit status");
        let expected: i32 = comment
            .trim()
            .strip_prefix("exit ")
            .and_then(|n| n.parse().ok())
            .expect("# exit N");
        let command = command.replace("/tmp/lab", scratch_path);
        let args: Vec<&str> = command.split_whitespace().skip(1).collect();
        let output = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
            .args(&args)
            .current_dir(root)
            .env("NO_COLOR", "1")
            // Rows whole, so that a promised phrase is found on one line.
            .env("COLUMNS", "1000")
            .output()
            .unwrap();
        ran += 1;
        if output.status.code() != Some(expected) {
            failures.push(format!(
                "{line}\nexited {:?}\n{}{}",
                output.status.code(),
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        if args.contains(&"hint") {
            let text = String::from_utf8_lossy(&output.stdout);
            let promised = "look again at lines 21 and 22 in examples/lab/cases.csv";
            if !text.contains(promised) {
                failures.push(format!("{line}\ndoes not print {promised:?}:\n{text}"));
            }
            // A hint cites rows, never the contract's sections (issue 22).
            if text.contains("section") {
                failures.push(format!("{line}\nnames a section:\n{text}"));
            }
        }
    }
    assert!(ran >= 9, "the walkthrough lost its commands ({ran} found)");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // What the walkthrough promises about the files it wrote.
    let gradebook = std::fs::read_to_string(scratch.path().join("gradebook.csv")).unwrap();
    assert!(gradebook.starts_with("submission,score,max_score,percentage,matched,mismatched,missing,unknown,decision_correct,reason_correct,status\n"));
    assert!(gradebook.contains("examples/lab/submissions/cy.csv,,4,,,,,,,,ungradable\n"));
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(scratch.path().join("pl-results.json")).unwrap())
            .unwrap();
    assert_eq!(results["gradable"], false);
    assert!(results["format_errors"][0]
        .as_str()
        .unwrap()
        .contains("duplicated case id"));
    // The platforms' examples (issue 30), checked by hand against the key: Ada and Siân have
    // every case right, Ben one of four, Ned handed in nothing and keeps his grade.
    let written = |name: &str| std::fs::read_to_string(scratch.path().join(name)).unwrap();
    assert_eq!(
        written("canvas-import.csv"),
        "Student,ID,SIS User ID,SIS Login ID,Section,Lab 2 (4102)\n    \
         Points Possible,,,,,20.00\n\
         \"Lovelace, Ada\",1001,ada,ada@example.edu,Section A,20\n\
         \"Okafor, Ben\",1002,ben,ben@example.edu,Section A,5\n\
         \"O'Brien, Siân\",1005,sian,sian@example.edu,Section B,20\n"
    );
    let moodle = written("moodle-worksheet.csv");
    assert!(moodle.starts_with("Identifier,Full name,Email address,Status,Grade,Maximum Grade,"));
    assert!(moodle.contains(
        "\nParticipant 2001,Ada Lovelace,ada@example.edu,Submitted for grading,10,10.00,"
    ));
    assert!(moodle.contains(
        "\nParticipant 2002,Ben Okafor,ben@example.edu,Submitted for grading,2.5,10.00,"
    ));
    assert!(moodle.contains("\"Score: 1/4 (25.0%)<br>probe-1: reason: within_lease is wrong<br>"));
    assert!(moodle.contains(
        "\nParticipant 2005,\"Siân O'Brien, Jr\",sian@example.edu,Submitted for grading,10,10.00,"
    ));
    assert!(!moodle.contains("Participant 2006"));
    assert_eq!(
        written("grades.csv"),
        "identifier,github_username,github_id,name,points_awarded,points_available\n\
         ada@example.edu,ada-l,101,Ada Lovelace,10,10\n\
         ben@example.edu,benok,102,Ben Okafor,2.5,10\n\
         sian@example.edu,sian-ob,105,Siân O'Brien,10,10\n"
    );
    assert!(scratch
        .path()
        .join("template/.github/workflows/classroom.yml")
        .is_file());
    let blank = std::fs::read_to_string(scratch.path().join("blank.csv")).unwrap();
    assert_eq!(
        blank,
        std::fs::read_to_string(root.join("examples/lab/blank.csv")).unwrap()
    );
}
