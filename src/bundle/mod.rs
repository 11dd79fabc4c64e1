//! What an autograder made by `leasejudge autograder` holds, and the scripts its platform runs:
//! a Gradescope zip (`setup.sh` and `run_autograder` at its root, the binary, the key and the
//! case files, extracted to `/autograder/source`) or a PrairieLearn question directory
//! (`info.json`, `question.html`, and the same files in `tests/`, copied to `/grade/tests`).
//! The scripts are a few lines: everything else is `leasejudge grade --autograder`, run from
//! the bundle's directory so that the key and the case files are named as the bundle names
//! them (a hint cites `cases.csv`, not a platform's path). A GitHub Classroom template
//! repository is `github_classroom`'s. Each platform is a module of its own, named once in
//! the list of platforms (`platform.rs`).

pub mod binary;
mod carried;
mod course;
mod key_check;
mod platform;
mod prepare;
mod question_dir;

use crate::grading::class::Feedback;
use crate::grading::Column;
use crate::input::Delimiter;
use crate::report::platform_results::Visibility;

use binary::CLibrary;

pub(crate) use platform::RunScript;
pub use platform::{build, Autograder, Build};
pub use prepare::Inputs;

/// Each platform's module (its options, its build, its run script), from the list.
macro_rules! platform_modules {
    ($($variant:ident $module:ident $options:ident;)+) => {
        $(
            pub(crate) mod $module;
            pub use $module::$options;
        )+
    };
}

crate::autograder_platforms!(platform_modules);

/// Writes what a build says to standard output, each line wrapped to its width (COLUMNS,
/// the terminal, or 80) and continued two columns in; a closed standard output loses it.
fn say(said: &[u8]) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let width = crate::terminal::table_width(std::io::IsTerminal::is_terminal(&stdout));
    let text = crate::terminal::wrap_lines(&String::from_utf8_lossy(said), usize::from(width));
    let _ = stdout.write_all(text.as_bytes());
}

/// Gradescope's image-building script.
pub const SETUP: &str = "setup.sh";
/// The script the platform runs for each submission.
pub const RUN: &str = "run_autograder";
/// The binary.
pub const BINARY: &str = "leasejudge";
/// The key's name in a bundle, before its extension: learners never see it.
pub const KEY_STEM: &str = "golden";

/// The names a case file cannot have in a bundle (its files sit side by side).
pub fn is_reserved(name: &str) -> bool {
    name == SETUP
        || name == RUN
        || name == BINARY
        || name == "info.json"
        || name == "question.html"
        || std::path::Path::new(name)
            .file_stem()
            .is_some_and(|stem| stem == KEY_STEM)
}

/// How the bundled `grade` grades: the options the instructor passed, and the bundle's names
/// of the key and the case files.
#[derive(Clone, Debug, PartialEq)]
pub struct GradeOptions {
    /// The key's name in the bundle (`golden.csv`).
    pub key: String,
    /// The case files' names in the bundle.
    pub cases: Vec<String>,
    /// What learners see.
    pub feedback: Feedback,
    /// The graded columns.
    pub columns: Vec<Column>,
    /// Partial credit.
    pub weights: Option<Vec<(Column, u32)>>,
    /// Gradescope's visibility.
    pub visibility: Option<Visibility>,
    /// How submissions that are CSV are split.
    pub delimiter: Option<Delimiter>,
    /// The sheet of a workbook submission.
    pub sheet: Option<String>,
    /// The assignment's points the score is scaled to (`None`: the raw points).
    pub points: Option<f64>,
}

/// `text` as one shell word: as it is when it is plain, else in single quotes.
pub fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.,=/:@+".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

impl GradeOptions {
    /// `grade`'s options after the key, the upload and the results file, as shell words.
    pub fn words(&self) -> Vec<String> {
        let names =
            |columns: &mut dyn Iterator<Item = String>| columns.collect::<Vec<_>>().join(",");
        let mut words = vec![
            "--columns".to_owned(),
            names(&mut self.columns.iter().map(|c| c.name().to_owned())),
            "--feedback".to_owned(),
            self.feedback.name().to_owned(),
        ];
        if let Some(weights) = &self.weights {
            words.push("--weights".to_owned());
            words.push(names(
                &mut weights.iter().map(|(c, w)| format!("{}={w}", c.name())),
            ));
        }
        if let Some(points) = self.points {
            words.push("--points".to_owned());
            words.push(crate::report::class_text::number(points));
        }
        if let Some(visibility) = self.visibility {
            words.push("--visibility".to_owned());
            words.push(visibility.name().to_owned());
        }
        if let Some(delimiter) = self.delimiter {
            words.push("--delimiter".to_owned());
            words.push(match delimiter.byte() {
                b',' => "comma".to_owned(),
                b';' => "semicolon".to_owned(),
                b'\t' => "tab".to_owned(),
                byte => char::from(byte).to_string(),
            });
        }
        if let Some(sheet) = &self.sheet {
            words.push("--sheet".to_owned());
            words.push(sheet.clone());
        }
        // Last: it takes every word after it.
        if self.feedback.needs_cases() {
            words.push("--cases".to_owned());
            words.extend(self.cases.iter().cloned());
        }
        words.iter().map(|w| shell_word(w)).collect()
    }
}

/// The folder of a PrairieLearn course's `serverFilesCourse/` that holds the binary its
/// questions share, named in each question's `externalGradingOptions.serverFilesCourse`: the
/// grader copies it to `/grade/serverFilesCourse/leasejudge/` for every job
/// (`buildDirectory` in PrairieLearn's `apps/prairielearn/src/lib/externalGraderCommon.ts`).
pub const COURSE_FOLDER: &str = "leasejudge";

/// Where the script finds the binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryAt {
    /// In the bundle, beside the script (a Gradescope zip, a PrairieLearn question of its own).
    Bundle,
    /// In the PrairieLearn course's shared folder, [`COURSE_FOLDER`] of `serverFilesCourse/`.
    Course,
}

/// The line of a PrairieLearn question's script that lists the files leasejudge wrote in the
/// question (its `tests/` files), as a JSON array: a rebuild replaces these and refuses a
/// question that holds anything else.
pub const WROTE: &str = "# leasejudge wrote: ";

/// The script the platform runs for each submission. It takes its root from
/// `LEASEJUDGE_AUTOGRADER_ROOT` (a local trial, the tests) and otherwise uses the platform's.
/// A PrairieLearn question's lists the files written in the question (`wrote`, [`WROTE`]).
pub(crate) fn run_script(
    facts: &RunScript,
    options: &GradeOptions,
    binary_at: BinaryAt,
    wrote: &[String],
) -> String {
    let binary = match binary_at {
        BinaryAt::Bundle => format!("./{BINARY}"),
        BinaryAt::Course => format!("\"$root/serverFilesCourse/{COURSE_FOLDER}/{BINARY}\""),
    };
    let make_executable = match facts.makes_executable {
        true => format!("[ -x {binary} ] || chmod +x {binary}\n"),
        false => String::new(),
    };
    let wrote = match facts.lists_wrote {
        true => format!(
            "{WROTE}{}\n",
            serde_json::to_string(wrote).expect("names print")
        ),
        false => String::new(),
    };
    format!(
        "#!/bin/sh\n\
         # Grades one learner's upload with leasejudge (written by `leasejudge autograder {format}`).\n\
         {how}\n\
         # `grade --autograder` writes the results and exits 0 however the submission did; a key\n\
         # that cannot be used writes none (the run fails; its problems are in this script's\n\
         # output, which only instructors see).\n\
         {wrote}\
         root=$(cd \"${{LEASEJUDGE_AUTOGRADER_ROOT:-{root}}}\" && pwd) || exit 2\n\
         cd \"$root/{bundle}\" || exit 2\n\
         {make_executable}\
         exec {binary} grade --autograder -f {format} --golden {key} \\\n    \
         --submission-dir \"$root/{upload}\" -o \"$root/results/results.json\" \\\n    \
         {options} 2>&1\n",
        how = facts.how,
        format = facts.results.word,
        root = facts.root,
        bundle = facts.bundle,
        upload = facts.upload,
        key = shell_word(&options.key),
        options = options.words().join(" "),
    )
}

/// Gradescope's `setup.sh`, run once as root when it builds the autograder's image: nothing
/// to install (no network), the binary made executable and run once, so that a binary the
/// image cannot run (a shared C library too old) fails the build with the loader's message.
pub fn setup_script(c_library: CLibrary) -> String {
    let needs = match c_library {
        CLibrary::Static => "statically linked: any image runs it".to_owned(),
        CLibrary::Shared(Some(version)) => format!("it needs glibc {version} or later"),
        CLibrary::Shared(None) => "it needs no particular glibc".to_owned(),
    };
    format!(
        "#!/usr/bin/env bash\n\
         # Gradescope runs this once, as root, when it builds the autograder's image from the zip\n\
         # (extracted to /autograder/source). leasejudge is one binary: nothing is installed and\n\
         # no network is needed. Written by `leasejudge autograder gradescope`.\n\
         set -eu\n\
         cd \"$(dirname \"$0\")\"\n\
         chmod 0755 {BINARY} {RUN}\n\
         # Fails the build on an image that cannot run the binary ({needs}).\n\
         ./{BINARY} --version\n"
    )
}

/// The PrairieLearn question's `info.json`; `binary_at` [`BinaryAt::Course`] names the
/// course's shared folder in `externalGradingOptions.serverFilesCourse`.
pub fn info_json(
    uuid: &str,
    title: &str,
    topic: &str,
    image: &str,
    timeout: u32,
    binary_at: BinaryAt,
) -> String {
    let mut info = serde_json::json!({
        "uuid": uuid,
        "title": title,
        "topic": topic,
        "tags": ["leasejudge"],
        "type": "v3",
        "singleVariant": true,
        "showCorrectAnswer": false,
        "gradingMethod": "External",
        "externalGradingOptions": {
            // Deprecated (and always on) in current PrairieLearn, required by older servers.
            "enabled": true,
            "image": image,
            "entrypoint": prairielearn::SCRIPT.run_path(),
            "timeout": timeout,
        },
    });
    if binary_at == BinaryAt::Course {
        info["externalGradingOptions"]["serverFilesCourse"] = serde_json::json!([COURSE_FOLDER]);
    }
    serde_json::to_string_pretty(&info).expect("JSON prints") + "\n"
}

/// Where a PrairieLearn question keeps the files learners download (`pl-file-download`'s
/// default directory): the lab's case files and the blank matrix, never the key.
pub const CLIENT_FILES: &str = "clientFilesQuestion";

/// The PrairieLearn question's `question.html`: a link to each file learners work from
/// (`downloads`, in [`CLIENT_FILES`]: the case files and the blank matrix), a file upload for
/// the one matrix file, and the external grader's results.
pub fn question_html(downloads: &[String]) -> String {
    let mut html = String::from(
        "<pl-question-panel>\n  \
         <p>\n    \
         Fill in the evidence matrix for the lab's case files and upload it as one file: a CSV\n    \
         saved from any spreadsheet, a JSON matrix, or the workbook itself (.xlsx, .xlsm or .ods).\n  \
         </p>\n",
    );
    if !downloads.is_empty() {
        html.push_str("  <p>The lab's case files, and the blank matrix to fill in:</p>\n");
        for name in downloads {
            html.push_str(&format!(
                "  <pl-file-download file-name=\"{}\"></pl-file-download>\n",
                crate::explain::html::escape_html(name)
            ));
        }
    }
    html.push_str(
        "  <pl-file-upload optional-file-patterns=\"*.csv, *.json, *.xlsx, *.xlsm, *.ods\"></pl-file-upload>\n\
         </pl-question-panel>\n\
         \n\
         <pl-submission-panel>\n  \
         <pl-external-grader-results></pl-external-grader-results>\n  \
         <pl-file-preview></pl-file-preview>\n\
         </pl-submission-panel>\n",
    );
    html
}

/// FNV-1a, 128 bits: a stable hash of the bytes a question is made from, for its uuid.
#[derive(Clone, Copy, Debug)]
pub struct QuestionHash(u128);

impl Default for QuestionHash {
    fn default() -> QuestionHash {
        QuestionHash(0x6c62_272e_07bb_0142_62b8_2175_6295_c58d)
    }
}

impl QuestionHash {
    /// Adds `bytes`.
    pub fn update(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u128::from(byte);
            self.0 = self
                .0
                .wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013b);
        }
    }

    /// The hash as a version 8 (custom) UUID, `xxxxxxxx-xxxx-8xxx-yxxx-xxxxxxxxxxxx`.
    pub fn uuid(self) -> String {
        let mut bytes = self.0.to_be_bytes();
        bytes[6] = (bytes[6] & 0x0f) | 0x80;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        format!(
            "{}-{}-{}-{}-{}",
            &hex[..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..]
        )
    }
}

/// Whether `text` is a UUID as PrairieLearn's schema has it (8-4-4-4-12 hexadecimal digits).
pub fn is_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(group, len)| group.len() == len && group.chars().all(|c| c.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_when_they_need_it() {
        assert_eq!(shell_word("decision=2,reason=1"), "decision=2,reason=1");
        assert_eq!(shell_word("Sheet 1"), "'Sheet 1'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word("$(rm -rf /)"), "'$(rm -rf /)'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn the_uuid_is_a_stable_version_8_uuid() {
        let mut hash = QuestionHash::default();
        hash.update(b"lab-3");
        let uuid = hash.uuid();
        assert!(is_uuid(&uuid), "{uuid}");
        assert_eq!(&uuid[14..15], "8");
        assert!("89ab".contains(&uuid[19..20]));
        let mut again = QuestionHash::default();
        again.update(b"lab-3");
        assert_eq!(again.uuid(), uuid);
        let mut other = QuestionHash::default();
        other.update(b"lab-4");
        assert_ne!(other.uuid(), uuid);
        // FNV-1a 128 of the empty input is its offset basis.
        assert_eq!(
            QuestionHash::default().uuid(),
            "6c62272e-07bb-8142-a2b8-21756295c58d"
        );
        assert!(!is_uuid("6c62272e07bb014262b821756295c58d"));
    }

    #[test]
    fn the_run_script_passes_every_option() {
        let options = GradeOptions {
            key: "golden.csv".to_owned(),
            cases: vec!["lab 3.csv".to_owned()],
            feedback: Feedback::Hint,
            columns: vec![Column::Decision, Column::Reason],
            weights: Some(vec![(Column::Decision, 2)]),
            visibility: Some(Visibility::AfterDueDate),
            delimiter: Delimiter::new(b';'),
            sheet: Some("Matrix".to_owned()),
            points: Some(12.5),
        };
        let script = run_script(&gradescope::SCRIPT, &options, BinaryAt::Bundle, &[]);
        assert!(
            script.contains(
                "--columns decision,reason --feedback hint --weights decision=2 --points 12.5 \
             --visibility after_due_date --delimiter semicolon --sheet Matrix --cases 'lab 3.csv' \
             2>&1\n"
            ),
            "{script}"
        );
        assert!(script.contains("${LEASEJUDGE_AUTOGRADER_ROOT:-/autograder}"));
        assert!(script.contains("--submission-dir \"$root/submission\""));
        assert!(script.contains("exec ./leasejudge grade"));
        let wrote = ["tests/golden.csv".to_owned(), "tests/lab 3.csv".to_owned()];
        let script = run_script(&prairielearn::SCRIPT, &options, BinaryAt::Course, &wrote);
        assert!(script.contains("${LEASEJUDGE_AUTOGRADER_ROOT:-/grade}"));
        assert!(script.contains("cd \"$root/tests\""));
        assert!(
            script.contains("\n# leasejudge wrote: [\"tests/golden.csv\",\"tests/lab 3.csv\"]\n")
        );
        assert!(script.contains(
            "[ -x \"$root/serverFilesCourse/leasejudge/leasejudge\" ] || chmod +x \
             \"$root/serverFilesCourse/leasejudge/leasejudge\"\n\
             exec \"$root/serverFilesCourse/leasejudge/leasejudge\" grade"
        ));
    }
}
