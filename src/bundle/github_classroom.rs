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

use super::shell_word;

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
