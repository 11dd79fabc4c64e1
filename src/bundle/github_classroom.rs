//! What a GitHub Classroom template repository made by `leasejudge autograder
//! github-classroom` holds, and the workflow GitHub runs on every push to a learner's copy.
//!
//! The workflow has the shape GitHub Classroom generates for its own tests (its name,
//! `Autograding Tests`; the triggers `push` and `repository_dispatch`; the permissions
//! `checks: write`, `actions: read`, `contents: read`; the job `run-autograding-tests` on
//! `ubuntu-latest`, skipped for the commits `github-classroom[bot]` makes; a checkout; the
//! grading steps; classroom-resources/autograding-grading-reporter last), so the Classroom
//! shows its "Points X/Y". Its grading steps run the leasejudge binary the template carries
//! (no Rust toolchain, no download), write the reporter's input (`-f github-classroom`)
//! base64 to the step's `result` output, and the reporter reads it from
//! `{STEP ID}_RESULTS`, as it reads its own graders' (`src/main.js`).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::grading::class::{Feedback, Scoring};
use crate::grading::{Column, MatrixFileFormat};
use crate::input::{expand_inputs, ReadOptions};
use crate::ops::{usage, Status};
use crate::output::{check_paths, Named, OutputDir};

use super::key_check::check_key;
use super::prepare::{check_binary, needs};
use super::{shell_word, Autograder, GradeOptions, BINARY};

/// Where the template keeps leasejudge's files: a hidden folder, which no rule takes for
/// the learner's matrix.
pub const DIR: &str = ".github/leasejudge";

/// The workflow's path in the repository (GitHub Classroom's own name for it).
pub const WORKFLOW: &str = ".github/workflows/classroom.yml";

/// The matrix learners fill in (the blank one is in the template).
pub const MATRIX: &str = "matrix.csv";

/// What the workflow runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workflow {
    /// The case files' names in the repository.
    pub cases: Vec<String>,
    /// The practice key's name in [`DIR`], if there is one.
    pub practice_key: Option<String>,
    /// `grade`'s options for the practice cases, as shell words (last on its line: `--cases`
    /// takes every word after it).
    pub grade_options: Vec<String>,
    /// The leasejudge version that wrote it.
    pub version: String,
}

/// Whether `name` can be written in the workflow as it is: letters, digits, `.`, `_` and
/// `-`, not starting with `-` or `.` (a file name in a shell line of a YAML file, where
/// `${{` would be a GitHub expression and a line break would end the step).
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(['-', '.'])
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// The workflow file.
pub fn workflow(how: &Workflow) -> String {
    let cases: Vec<String> = how.cases.iter().map(|c| shell_word(c)).collect();
    let cases = cases.join(" ");
    let mut text = format!(
        "# Written by `leasejudge autograder github-classroom` (leasejudge {version}).\n\
         # Every push checks the learner's {MATRIX} with leasejudge precheck (will it be graded?)\n\
         {practice_comment}\
         # and GitHub Classroom's reporter shows the result (\"Points X/Y\").\n\
         # The binary in {DIR} runs on GitHub's Ubuntu runners: nothing is installed.\n\
         name: Autograding Tests\n\
         'on':\n\
         - push\n\
         - repository_dispatch\n\
         permissions:\n  \
           checks: write\n  \
           actions: read\n  \
           contents: read\n\
         env:\n  \
           MATRIX: {MATRIX}\n\
         jobs:\n  \
           run-autograding-tests:\n    \
             runs-on: ubuntu-latest\n    \
             if: github.actor != 'github-classroom[bot]'\n    \
             steps:\n    \
             - name: Checkout code\n      \
               uses: actions/checkout@v4\n    \
             - name: Install leasejudge\n      \
               run: |\n        \
                 chmod +x {DIR}/leasejudge\n        \
                 echo \"$GITHUB_WORKSPACE/{DIR}\" >> \"$GITHUB_PATH\"\n    \
             - name: Precheck\n      \
               id: precheck\n      \
               run: |\n        \
                 leasejudge precheck \"$MATRIX\" --cases {cases} || true\n        \
                 leasejudge precheck -f github-classroom \"$MATRIX\" --cases {cases} > \"$RUNNER_TEMP/precheck.json\" || test -s \"$RUNNER_TEMP/precheck.json\"\n        \
                 echo \"result=$(base64 -w0 \"$RUNNER_TEMP/precheck.json\")\" >> \"$GITHUB_OUTPUT\"\n",
        version = how.version,
        practice_comment = if how.practice_key.is_some() {
            "# and grades the practice cases against the practice key (in this repository: not\n\
             # secret; the grade that counts is the instructor's run after the deadline),\n"
        } else {
            ""
        },
    );
    let mut runners = vec!["precheck"];
    if let Some(key) = &how.practice_key {
        let key = shell_word(&format!("{DIR}/{key}"));
        let options = how.grade_options.join(" ");
        text.push_str(&format!(
            "    - name: Practice cases\n      \
               id: practice\n      \
               run: |\n        \
                 leasejudge grade --golden {key} \"$MATRIX\" {options} || true\n        \
                 leasejudge grade -f github-classroom -o \"$RUNNER_TEMP/practice.json\" --golden {key} \"$MATRIX\" {options} || test -s \"$RUNNER_TEMP/practice.json\"\n        \
                 echo \"result=$(base64 -w0 \"$RUNNER_TEMP/practice.json\")\" >> \"$GITHUB_OUTPUT\"\n"
        ));
        runners.push("practice");
    }
    text.push_str(
        "    - name: Autograding Reporter\n      \
           uses: classroom-resources/autograding-grading-reporter@v1\n      \
           env:\n",
    );
    for runner in &runners {
        text.push_str(&format!(
            "        {}_RESULTS: \"${{{{steps.{runner}.outputs.result}}}}\"\n",
            runner.to_ascii_uppercase()
        ));
    }
    text.push_str(&format!(
        "      with:\n        runners: {}\n",
        runners.join(",")
    ));
    text
}

/// A GitHub Classroom template repository to build.
#[derive(Clone, Debug)]
pub struct GithubClassroomOptions {
    /// The lab's case files (or directories of them): put in the repository for learners.
    pub cases: Vec<PathBuf>,
    /// A key for practice cases, graded on every push (in the learner's repository: not
    /// secret).
    pub practice_key: Option<PathBuf>,
    /// What learners see of the practice cases.
    pub feedback: Feedback,
    /// Partial credit for the practice cases.
    pub weights: Option<Vec<(Column, u32)>>,
    /// The columns learners fill in and that are graded.
    pub columns: Vec<Column>,
    /// The leasejudge binary to carry [default: this one].
    pub binary: Option<PathBuf>,
    /// How learners' CSV files and workbooks are read.
    pub read: ReadOptions,
    /// The folder to write the template repository's files in: new, or empty.
    pub output: PathBuf,
}

impl Autograder for GithubClassroomOptions {
    fn build(&self) -> Result<Status> {
        github_classroom(self)
    }
}

/// Writes a GitHub Classroom template repository: the workflow, the binary (and the practice
/// key) in `.github/leasejudge/`, the case files and the blank matrix at its root.
fn github_classroom(options: &GithubClassroomOptions) -> Result<Status> {
    if options.output.as_os_str() == "-" {
        return Err(usage("-o - is not allowed: the template is a directory"));
    }
    if std::fs::read_dir(&options.output).is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(usage(&format!(
            "{} is not empty: give a new directory, then copy its files into the template \
             repository (nothing was written)",
            options.output.display()
        )));
    }
    let feedback = options.feedback;
    let columns = options.columns.clone();
    let weights = options.weights.clone();
    let scoring = Scoring::new(columns.clone(), weights.as_deref()).map_err(|e| usage(&e))?;
    if options
        .cases
        .iter()
        .chain(&options.practice_key)
        .any(|c| c.as_os_str() == "-")
    {
        return Err(usage(
            "standard input (-) cannot be carried: give the case files' and the key's paths",
        ));
    }
    let (binary, c_library) = check_binary(options.binary.as_deref())?;
    let sources = expand_inputs(&options.cases)?;
    let mut cases = Vec::new();
    for source in &sources {
        let path = source.path.clone().expect("not standard input");
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !is_plain_name(&name) || name == MATRIX {
            return Err(usage(&format!(
                "the case file {} cannot be put in the repository under its name: the workflow \
                 names it, so a name is letters, digits, `.`, `_` and `-` (not first), and not \
                 {MATRIX}, the learners' matrix; rename it",
                path.display()
            )));
        }
        if cases.iter().any(|(_, earlier)| *earlier == name) {
            return Err(usage(&format!(
                "two case files are named {name}: they sit side by side in the repository; \
                 rename one"
            )));
        }
        cases.push((path, name));
    }
    let mut inputs = vec![Named::new("--binary", &binary)];
    inputs.extend(cases.iter().map(|(path, _)| Named::new("--cases", path)));
    if let Some(key) = &options.practice_key {
        inputs.push(Named::new("--practice-key", key));
    }
    check_paths(&inputs, &[Named::new("-o", &options.output)])?;
    let practice = match &options.practice_key {
        Some(key) => {
            let (cases_in_key, _) = check_key(key, &sources, &scoring, false)?;
            let extension = match MatrixFileFormat::for_path(key) {
                MatrixFileFormat::Csv => "csv".to_owned(),
                MatrixFileFormat::Json => "json".to_owned(),
                MatrixFileFormat::Workbook => key
                    .extension()
                    .map(|e| e.to_string_lossy().to_ascii_lowercase())
                    .unwrap_or_default(),
            };
            Some((
                key.clone(),
                format!("practice-key.{extension}"),
                cases_in_key,
            ))
        }
        None => None,
    };
    let mut blank = Vec::new();
    crate::grading::template::write_blank_matrix(&sources, &columns, &mut blank)?;
    let grading = GradeOptions {
        key: String::new(),
        cases: cases.iter().map(|(_, name)| name.clone()).collect(),
        feedback,
        columns,
        weights,
        visibility: None,
        delimiter: options.read.delimiter,
        sheet: options.read.sheet.clone(),
        points: None,
    };
    let text = workflow(&Workflow {
        cases: grading.cases.clone(),
        practice_key: practice.as_ref().map(|(_, name, _)| name.clone()),
        grade_options: grading.words(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
    });
    let out = OutputDir::create(&options.output)?;
    out.write_file(WORKFLOW, 0o644, &mut text.as_bytes())?;
    let open =
        |path: &Path| File::open(path).with_context(|| format!("cannot read {}", path.display()));
    out.write_file(&format!("{DIR}/{BINARY}"), 0o755, &mut open(&binary)?)?;
    if let Some((key, name, _)) = &practice {
        out.write_file(&format!("{DIR}/{name}"), 0o644, &mut open(key)?)?;
    }
    for (path, name) in &cases {
        out.write_file(name, 0o644, &mut open(path)?)?;
    }
    out.write_file(MATRIX, 0o644, &mut blank.as_slice())?;
    out.commit()?;
    // What was written, for the instructor: said if standard output takes it (the run is
    // done either way). Names from the command line and the case files: no line of it is
    // a workflow command.
    let mut stdout = crate::output::InertWriter::new(Vec::new(), crate::output::Syntax::Text);
    writeln!(
        stdout,
        "leasejudge: wrote {}: {WORKFLOW}, {DIR}/{BINARY} ({}){}, {MATRIX} (blank), {}",
        options.output.display(),
        needs(c_library),
        practice
            .as_ref()
            .map_or_else(String::new, |(_, name, count)| format!(
                ", {DIR}/{name} ({count} practice cases)"
            )),
        cases
            .iter()
            .map(|(_, name)| name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    writeln!(
        stdout,
        "leasejudge: push its files as the assignment's template repository, and add no \
         autograding tests on the assignment's page (GitHub Classroom would commit its own \
         {WORKFLOW} over this one){}",
        if practice.is_some() {
            "; the practice key is in every learner's repository: it is not secret"
        } else {
            ""
        }
    )?;
    if let Ok(out) = stdout.finish() {
        super::say(&out);
    }
    Ok(Status::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_are_the_ones_a_workflow_line_can_hold() {
        assert!(is_plain_name("cases.csv"));
        assert!(is_plain_name("lab_3-cases.json"));
        assert!(!is_plain_name("my cases.csv"));
        assert!(!is_plain_name("${{secrets.X}}.csv"));
        assert!(!is_plain_name("-rf.csv"));
        assert!(!is_plain_name(".hidden.csv"));
    }

    #[test]
    fn the_workflow_names_every_runner_the_reporter_reads() {
        let how = Workflow {
            cases: vec!["cases.csv".into()],
            practice_key: Some("practice.csv".into()),
            grade_options: vec!["--columns".into(), "decision,reason".into()],
            version: "0.0.0".into(),
        };
        let text = workflow(&how);
        assert!(text.contains("        PRECHECK_RESULTS: \"${{steps.precheck.outputs.result}}\"\n"));
        assert!(text.contains("        PRACTICE_RESULTS: \"${{steps.practice.outputs.result}}\"\n"));
        assert!(text.ends_with("      with:\n        runners: precheck,practice\n"));
        let alone = workflow(&Workflow {
            practice_key: None,
            ..how
        });
        assert!(!alone.contains("practice"));
        assert!(alone.ends_with("runners: precheck\n"));
    }
}
