//! The autograder result files of `grade`, for one submission: Gradescope's `results.json`
//! (its autograder specification) and PrairieLearn's external-grading results. Each is at
//! most [`RESULTS_LIMIT`] bytes however many cases the lab has (feedback is cut, with a note
//! of what was left out, and the score never changes); learner text is plain text with its
//! control characters made visible; and Gradescope's `visibility` covers everything a learner
//! sees, the top-level output included.
//!
//! Documents are written as serde_json pretty-prints them, a piece at a time: the entries
//! before `tests`, then each test, so the bytes of every piece are known before it is written
//! and the whole document can be kept under the limit while the tests are read from the
//! submission's marks.

use std::io::Write;

use serde_json::{json, Value};

use crate::grading::class::{CaseMark, CaseStatus, ClassReport, Submission, SubmissionOutcome};
use crate::output::{escape_controls, escape_controls_keep_lines, escape_message};

use super::class_shortcuts::learner_lines;
use super::class_text::score_line;

/// The most bytes a results document has. PrairieLearn's grader host refuses a
/// `results.json` over 1 MiB ("The grading results were larger than 1MB",
/// `apps/grader-host/src/index.ts`); 1,000,000 bytes is under the limit on either reading of
/// "1 MB", and Gradescope's results are held to it too.
pub const RESULTS_LIMIT: usize = 1_000_000;

/// The most bytes of the text of one top-level field (Gradescope's `output`, PrairieLearn's
/// `output` and `format_errors`): the lines after it are counted in a last line instead.
const TOP_TEXT_LIMIT: usize = 100_000;

/// The most bytes of one test's text: a learner's cell can be long.
const TEST_TEXT_LIMIT: usize = 4_000;

/// The Gradescope test that shows the check of the upload, visible whatever the visibility:
/// the "pre-submission check" Gradescope's specification keeps visible ("a test that checks
/// whether the student's code compiled"), so a learner whose file cannot be graded is told at
/// once, not at the due date.
pub const CHECK_TEST: &str = "Check of the upload";

/// The check's lines (how the file was read, its problems, the verdict), capped.
fn check_lines(report: &ClassReport) -> Option<Vec<String>> {
    let check = report.precheck.as_ref()?;
    let mut lines = CappedLines::new(TOP_TEXT_LIMIT, TOP_TEXT_NOTE);
    for line in check.lines() {
        lines.push(&line);
    }
    Some(lines.finish("lines of the check"))
}

/// Who sees Gradescope test results, and when (the autograder specification's values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    /// Shown to the learner at once.
    Visible,
    /// Never shown to the learner.
    Hidden,
    /// Shown after the due date.
    AfterDueDate,
    /// Shown once grades are published.
    AfterPublished,
}

crate::choice::choices!(Visibility {
    Visible => "visible",
        "Shown to the learner at once";
    Hidden => "hidden",
        "Never shown to the learner";
    AfterDueDate => "after_due_date",
        "Shown after the due date";
    AfterPublished => "after_published",
        "Shown once grades are published";
});

impl Visibility {
    /// The specification's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Visibility::Visible => "visible",
            Visibility::Hidden => "hidden",
            Visibility::AfterDueDate => "after_due_date",
            Visibility::AfterPublished => "after_published",
        }
    }

    /// What a learner is told at once when the results are not visible yet.
    fn received(self) -> &'static str {
        match self {
            Visibility::Visible => "",
            Visibility::Hidden => "Your submission was received. Its results are not shown.",
            Visibility::AfterDueDate => {
                "Your submission was received. Its results are shown after the due date."
            }
            Visibility::AfterPublished => {
                "Your submission was received. Its results are shown once grades are published."
            }
        }
    }
}

/// `value` as serde_json pretty-prints it `depth` levels into a document: every line after
/// the first indented two spaces a level (JSON strings hold no raw line breaks).
fn pretty(value: &Value, depth: usize) -> String {
    let text = serde_json::to_string_pretty(value).expect("a JSON value prints");
    text.replace('\n', &format!("\n{}", "  ".repeat(depth)))
}

/// The document up to the `tests` array: `{`, every entry of `head`, and the `tests` key.
pub(super) fn head_text(head: &[(&str, Value)]) -> String {
    let mut text = String::from("{\n");
    for (key, value) in head {
        text.push_str("  ");
        text.push_str(&serde_json::to_string(key).expect("a key prints"));
        text.push_str(": ");
        text.push_str(&pretty(value, 1));
        text.push_str(",\n");
    }
    text.push_str("  \"tests\": ");
    text
}

/// One test as an element of the `tests` array.
pub(super) fn test_text(test: &Value) -> String {
    format!("    {}", pretty(test, 2))
}

/// Bytes after the head besides the tests themselves and their separators (`[\n`, `\n  ]`,
/// `\n}\n`).
pub(super) const TESTS_TAIL: usize = 2 + 4 + 3;

/// Writes a document: `head`, then `tests` (each already made an array element), as
/// serde_json's pretty printer writes the whole value, then a newline.
pub(super) fn write_document(
    head: &str,
    tests: impl IntoIterator<Item = std::io::Result<String>>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(out);
    out.write_all(head.as_bytes())?;
    let mut first = true;
    for test in tests {
        let test = test?;
        out.write_all(if first { b"[\n" } else { b",\n" })?;
        out.write_all(test.as_bytes())?;
        first = false;
    }
    out.write_all(if first { b"[]" } else { b"\n  ]" })?;
    out.write_all(b"\n}\n")?;
    out.flush()
}

/// What the last line of a top-level text says of the lines that did not fit.
const TOP_TEXT_NOTE: &str = "not listed: the results are limited to 1 MB";

/// Lines of a text kept to a number of bytes (a top-level text's [`TOP_TEXT_LIMIT`], a
/// learner's feedback): the lines that do not fit are counted, and said in a last line.
pub(super) struct CappedLines {
    lines: Vec<String>,
    bytes: usize,
    left_out: usize,
    /// The most bytes of the lines kept, each with the line break after it.
    limit: usize,
    /// Why the lines left out are not listed, in the last line.
    note: &'static str,
}

impl CappedLines {
    /// No lines yet, to be kept to `limit` bytes; `note` says why the rest are not listed.
    pub(super) fn new(limit: usize, note: &'static str) -> CappedLines {
        CappedLines {
            lines: Vec::new(),
            bytes: 0,
            left_out: 0,
            limit,
            note,
        }
    }

    /// Adds `line` if it fits: its parts from input are shown as a person reads them where the
    /// line is made, and what is still unsafe is made visible here, once (a `\u{9}` already
    /// shown is not shown again as `\u{5c}u{9}`).
    pub(super) fn push(&mut self, line: &str) {
        let line = escape_message(line);
        // Each line with the line break after it.
        let bytes = line.len() + 1;
        if self.left_out == 0 && self.bytes + bytes <= self.limit {
            self.bytes += bytes;
            self.lines.push(line.into_owned());
        } else {
            self.left_out += 1;
        }
    }

    /// The lines, and if some did not fit, `… and N more WHAT (NOTE)`.
    pub(super) fn finish(mut self, what: &str) -> Vec<String> {
        if self.left_out > 0 {
            self.lines.push(format!(
                "… and {} more {what} ({})",
                self.left_out, self.note
            ));
        }
        self.lines
    }
}

/// A test's text, its control characters made visible (line breaks kept) and cut to
/// [`TEST_TEXT_LIMIT`] bytes.
pub(super) fn test_output(lines: &[String]) -> String {
    let text = lines.join("\n");
    let text = escape_controls_keep_lines(&text);
    if text.len() <= TEST_TEXT_LIMIT {
        return text.into_owned();
    }
    let mut end = TEST_TEXT_LIMIT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… (cut)", &text[..end])
}

/// The submission's problems when ungradable, or the golden file's when it is malformed (as
/// the report shows them: only its message unless revealed), capped.
pub(super) fn problem_lines(report: &ClassReport, submission: &Submission) -> Vec<String> {
    let mut lines = CappedLines::new(TOP_TEXT_LIMIT, TOP_TEXT_NOTE);
    match &submission.outcome {
        SubmissionOutcome::KeyMalformed => {
            for line in super::class_text::key_lines(report) {
                lines.push(&line);
            }
        }
        SubmissionOutcome::Ungradable(problems) => {
            for problem in problems.shown() {
                lines.push(&problem.to_string());
            }
        }
        SubmissionOutcome::Graded(_) => {}
    }
    lines.finish("problems")
}

/// The warnings for a graded submission's rows the golden file lacks, capped.
fn warning_lines(submission: &Submission) -> std::io::Result<Vec<String>> {
    let mut lines = CappedLines::new(TOP_TEXT_LIMIT, TOP_TEXT_NOTE);
    if let SubmissionOutcome::Graded(graded) = &submission.outcome {
        for unknown in &graded.unknown {
            lines.push(&unknown?.warning_line(&submission.located()));
        }
    }
    Ok(lines.finish("rows whose case ids are not in the key (warnings, not scored)"))
}

/// Which cases' tests a document lists when not all fit: every case's test when they do;
/// otherwise the wrong cases first, in golden-file order, as many as fit, and only when all
/// of them fit the right ones in the space left (a right case's test tells a learner least).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Plan {
    /// How many of the wrong cases are listed (the first ones).
    pub(super) wrong_listed: usize,
    /// How many of the right cases are listed (the first ones).
    pub(super) right_listed: usize,
    /// Whether some case is not listed.
    pub(super) cut: bool,
    /// The wrong cases not listed.
    pub(super) wrong_left: usize,
    /// The right cases not listed.
    pub(super) right_left: usize,
    /// Points and most points of the cases not listed.
    pub(super) left_points: u64,
    pub(super) left_max: u64,
}

impl Plan {
    /// Whether the case, the `wrong_index`-th wrong case or the `right_index`-th right one,
    /// is listed.
    fn lists(&self, matched: bool, index: usize) -> bool {
        if matched {
            index < self.right_listed
        } else {
            index < self.wrong_listed
        }
    }

    /// The line said at the top of the document when cases are not listed.
    fn top_note(&self) -> Option<String> {
        self.cut.then(|| {
            format!(
                "Feedback on {} of the cases is not listed ({} wrong, {} right): the results \
                 are limited to 1 MB. The score counts every case.",
                self.wrong_left + self.right_left,
                self.wrong_left,
                self.right_left
            )
        })
    }

    /// The text of the last test, which stands for the cases not listed.
    fn test_note(&self) -> String {
        format!(
            "{} cases are not listed here ({} wrong, {} right): the results are limited to \
             1 MB. Their points are counted in this test and in the score.",
            self.wrong_left + self.right_left,
            self.wrong_left,
            self.right_left
        )
    }

    /// The largest plan's notes can be for `cases` cases: for reserving their bytes.
    pub(super) fn widest(cases: usize, max_points: u64) -> Plan {
        Plan {
            wrong_listed: 0,
            right_listed: 0,
            cut: true,
            wrong_left: cases,
            right_left: cases,
            left_points: max_points,
            left_max: max_points,
        }
    }
}

/// Plans which tests of `cases` fit in `budget` bytes: `size` is a case's test as an array
/// element (the separator before it included), `points` its points and most points.
pub(super) fn plan(
    cases: &crate::grading::marks::Marks,
    budget: usize,
    size: &dyn Fn(&CaseMark) -> usize,
    case_max: u64,
) -> std::io::Result<Plan> {
    // Sized only until they overflow: a large lab's tests are not all made to be measured.
    let mut total = 0usize;
    for case in cases {
        total += size(&case?);
        if total > budget {
            break;
        }
    }
    let mut plan = Plan::default();
    if total <= budget {
        plan.wrong_listed = usize::MAX;
        plan.right_listed = usize::MAX;
        return Ok(plan);
    }
    plan.cut = true;
    // The wrong cases first, each listed while they fit; then, only if every wrong case is
    // listed, the right ones in the space left: each a prefix in golden-file order.
    let mut used = 0usize;
    let mut fit = |case: &CaseMark, full: &mut bool| -> bool {
        if !*full {
            let bytes = size(case);
            if used + bytes <= budget {
                used += bytes;
                return true;
            }
            *full = true;
        }
        false
    };
    let (mut right_count, mut right_points) = (0usize, 0u64);
    let mut full = false;
    for case in cases {
        let case = case?;
        if case.status == CaseStatus::Matched {
            right_count += 1;
            right_points += case.points;
        } else if fit(&case, &mut full) {
            plan.wrong_listed += 1;
        } else {
            plan.wrong_left += 1;
            plan.left_points += case.points;
            plan.left_max += case_max;
        }
    }
    if plan.wrong_left > 0 {
        plan.right_left = right_count;
        plan.left_points += right_points;
        plan.left_max += right_count as u64 * case_max;
        return Ok(plan);
    }
    let mut full = false;
    for case in cases {
        let case = case?;
        if case.status != CaseStatus::Matched {
            continue;
        }
        if fit(&case, &mut full) {
            plan.right_listed += 1;
        } else {
            plan.right_left += 1;
            plan.left_points += case.points;
            plan.left_max += case_max;
        }
    }
    Ok(plan)
}

/// The tests of a graded submission's cases as the plan lists them, then (if some are not
/// listed) `note` made from the plan.
pub(super) fn planned_tests<'a>(
    cases: &'a crate::grading::marks::Marks,
    plan: Plan,
    test: &'a dyn Fn(&CaseMark) -> Value,
    note: &'a dyn Fn(&Plan) -> Value,
) -> impl Iterator<Item = std::io::Result<String>> + 'a {
    let mut wrong = 0usize;
    let mut right = 0usize;
    cases
        .iter()
        .filter_map(move |case| {
            let case = match case {
                Ok(case) => case,
                Err(e) => return Some(Err(e)),
            };
            let matched = case.status == CaseStatus::Matched;
            let index = if matched { &mut right } else { &mut wrong };
            let listed = plan.lists(matched, *index);
            *index += 1;
            listed.then(|| Ok(test_text(&test(&case))))
        })
        .chain(plan.cut.then(|| Ok(test_text(&note(&plan)))))
}

/// The bytes a test takes as an array element, with the separator before it.
pub(super) fn element_bytes(test: &Value) -> usize {
    test_text(test).len() + 2
}

/// The one submission of an autograder run (the command refuses more).
pub(super) fn only(report: &ClassReport) -> &Submission {
    &report.submissions[0]
}

/// Whether the submission's tests list its cases: it was graded and the feedback shows
/// cases.
pub(super) fn lists_cases(report: &ClassReport, submission: &Submission) -> bool {
    matches!(submission.outcome, SubmissionOutcome::Graded(_)) && report.feedback.shows_cases()
}

/// A case's Gradescope test.
fn gradescope_test(
    report: &ClassReport,
    submission: &Submission,
    visibility: Visibility,
    case: &CaseMark,
) -> Value {
    let problems = report.problems(case, &submission.name);
    json!({
        "name": escape_controls(&case.case_id),
        "score": report.points_value(case.points),
        "max_score": report.points_value(report.scoring.case_max()),
        "status": if case.status == CaseStatus::Matched { "passed" } else { "failed" },
        "output": test_output(&problems),
        "visibility": visibility.name(),
    })
}

/// Writes the Gradescope `results.json`: the top-level `score`, `output` and `visibility`,
/// every text field declared plain text (`output_format`, `test_output_format`,
/// `test_name_format`: the specification's default for the top-level output renders HTML),
/// and a test per golden case (score, max_score, status, output naming the wrong columns)
/// when the feedback shows cases. Unless `visibility` is `visible`, the top-level output only
/// says the submission was received, and what it would have said is the first test, which
/// has the visibility like every test (a test that is not visible hides the total score from
/// learners). At most [`RESULTS_LIMIT`] bytes.
pub fn write_gradescope(
    report: &ClassReport,
    visibility: Visibility,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    write_gradescope_within(report, visibility, RESULTS_LIMIT, out)
}

fn write_gradescope_within(
    report: &ClassReport,
    visibility: Visibility,
    limit: usize,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let submission = only(report);
    let score = submission.score().unwrap_or(0);
    let lists = lists_cases(report, submission);
    let warnings = warning_lines(submission)?;
    // What the learner is told about the whole submission, with `note` (the plan's) in it.
    let summary = |note: Option<String>| -> String {
        let mut lines = problem_lines(report, submission);
        lines.push(format!("Score: {}", score_line(report, submission)));
        lines.extend(learner_lines(report, submission));
        lines.extend(warnings.iter().cloned());
        lines.extend(note);
        if !report.feedback.reveals() {
            lines.push("Expected values are hidden.".to_owned());
        }
        lines.join("\n")
    };
    let visible = visibility == Visibility::Visible;
    let checked = report.precheck.as_ref();
    let head = |note: Option<String>| -> String {
        let output = if visible {
            summary(note)
        } else {
            let mut output = visibility.received().to_owned();
            match checked {
                Some(check) if !check.gradable => output.push_str(&format!(
                    " It cannot be graded as it is: the test \"{CHECK_TEST}\", shown now, \
                     says why."
                )),
                Some(_) => output.push_str(&format!(
                    " The test \"{CHECK_TEST}\", shown now, says how the file was read."
                )),
                None => {}
            }
            output
        };
        head_text(&[
            ("score", report.points_value(score)),
            ("output", output.into()),
            ("output_format", "text".into()),
            ("test_output_format", "text".into()),
            ("test_name_format", "text".into()),
            ("visibility", visibility.name().into()),
        ])
    };
    let full_marks = matches!(&submission.outcome, SubmissionOutcome::Graded(g) if g.score == report.max_score());
    // Not visible: the summary is the first test. With no case tests after it, it carries the
    // score (so that a test hides the total); with them, it is informational.
    let summary_test = |note: Option<String>| -> Option<Value> {
        (!visible).then(|| {
            let mut test = json!({
                "name": "Summary",
                "status": if full_marks { "passed" } else { "failed" },
                "output": summary(note),
                "visibility": visibility.name(),
            });
            if !lists {
                test["score"] = report.points_value(score);
                test["max_score"] = report.points_value(report.max_score());
            }
            test
        })
    };
    // The check, first and visible whatever the visibility; it carries no points. It passes
    // when the file is graded (its warnings, a row the lab lacks or a cell that is no code,
    // in its output): a learner whose file is graded reads no `failed` before any score.
    let check_test = check_lines(report).map(|lines| {
        let passed = checked.is_some_and(|check| check.gradable);
        json!({
            "name": CHECK_TEST,
            "status": if passed { "passed" } else { "failed" },
            "output": lines.join("\n"),
            "visibility": Visibility::Visible.name(),
        })
    });
    let first_tests = |note: Option<String>| {
        check_test
            .iter()
            .map(test_text)
            .chain(summary_test(note).map(|t| test_text(&t)))
            .map(Ok)
            .collect::<Vec<_>>()
    };
    let test = |case: &CaseMark| gradescope_test(report, submission, visibility, case);
    let note = |plan: &Plan| {
        json!({
            "name": "Cases not listed",
            "score": report.points_value(plan.left_points),
            "max_score": report.points_value(plan.left_max),
            "status": if plan.left_points == plan.left_max { "passed" } else { "failed" },
            "output": plan.test_note(),
            "visibility": visibility.name(),
        })
    };
    let SubmissionOutcome::Graded(graded) = &submission.outcome else {
        return write_document(&head(None), first_tests(None), out);
    };
    if !lists {
        return write_document(&head(None), first_tests(None), out);
    }
    // Bytes for everything but the cases' tests, with the widest notes.
    let widest = Plan::widest(report.cases, report.max_score());
    let fixed = head(widest.top_note()).len()
        + first_tests(widest.top_note())
            .iter()
            .map(|t| t.as_ref().map_or(0, |t| t.len() + 2))
            .sum::<usize>()
        + element_bytes(&note(&widest))
        + TESTS_TAIL;
    let size = |case: &CaseMark| element_bytes(&test(case));
    let plan = plan(
        &graded.cases,
        limit.saturating_sub(fixed),
        &size,
        report.scoring.case_max(),
    )?;
    let tests = first_tests(plan.top_note())
        .into_iter()
        .chain(planned_tests(&graded.cases, plan, &test, &note));
    write_document(&head(plan.top_note()), tests, out)
}

/// A case's PrairieLearn test.
fn prairielearn_test(report: &ClassReport, submission: &Submission, case: &CaseMark) -> Value {
    let problems = report.problems(case, &submission.name);
    json!({
        "name": escape_controls(&case.case_id),
        "points": report.points_value(case.points),
        "max_points": report.points_value(report.scoring.case_max()),
        "message": test_output(&problems),
    })
}

/// Writes PrairieLearn's external grading results: `gradable`, `score` in [0, 1], `message`,
/// `output`, and a test per golden case when the feedback shows cases; an ungradable
/// submission is `gradable: false` with `format_errors`. `pl-external-grader-results`
/// escapes every field it shows (its `message` and `output` go through ansi2html, which
/// escapes `<`, `>` and `&` and renders ANSI colour codes, so control characters are made
/// visible here). At most [`RESULTS_LIMIT`] bytes: tests left out are one last test carrying
/// their points, so the points it shows add up.
pub fn write_prairielearn(report: &ClassReport, out: &mut dyn Write) -> std::io::Result<()> {
    write_prairielearn_within(report, RESULTS_LIMIT, out)
}

fn write_prairielearn_within(
    report: &ClassReport,
    limit: usize,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let submission = only(report);
    let SubmissionOutcome::Graded(graded) = &submission.outcome else {
        let message = if report.key_problems.is_some() {
            report.key_message().to_owned()
        } else {
            format!(
                "{} could not be graded: fix the problems listed and submit again",
                escape_controls(&submission.name)
            )
        };
        let head = head_text(&[
            ("gradable", false.into()),
            ("score", json!(0.0)),
            ("message", message.into()),
            ("format_errors", problem_lines(report, submission).into()),
        ]);
        return write_document(&head, [], out);
    };
    let max = report.max_score();
    let score = if max == 0 {
        1.0
    } else {
        graded.score as f64 / max as f64
    };
    let warnings = warning_lines(submission)?;
    let head = |note: Option<String>| -> String {
        let mut output = check_lines(report).unwrap_or_default();
        output.extend(learner_lines(report, submission));
        output.extend(warnings.iter().cloned());
        output.extend(note);
        if !report.feedback.reveals() {
            output.push("Expected values are hidden.".to_owned());
        }
        head_text(&[
            ("gradable", true.into()),
            ("score", score.into()),
            (
                "message",
                format!("Score: {}", score_line(report, submission)).into(),
            ),
            ("output", output.join("\n").into()),
        ])
    };
    if !report.feedback.shows_cases() {
        return write_document(&head(None), [], out);
    }
    let test = |case: &CaseMark| prairielearn_test(report, submission, case);
    // Points on the note too: PrairieLearn drops every test's points if one test lacks them.
    let note = |plan: &Plan| {
        json!({
            "name": "Cases not listed",
            "points": report.points_value(plan.left_points),
            "max_points": report.points_value(plan.left_max),
            "message": plan.test_note(),
        })
    };
    let widest = Plan::widest(report.cases, report.max_score());
    let fixed = head(widest.top_note()).len() + element_bytes(&note(&widest)) + TESTS_TAIL;
    let size = |case: &CaseMark| element_bytes(&test(case));
    let plan = plan(
        &graded.cases,
        limit.saturating_sub(fixed),
        &size,
        report.scoring.case_max(),
    )?;
    let tests = planned_tests(&graded.cases, plan, &test, &note);
    write_document(&head(plan.top_note()), tests, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grading::class::{graded_csv, Feedback, Scoring, UnknownRow};
    use crate::grading::Column;

    const CASES: usize = 3_000;

    /// A report of one submission of `CASES` cases (enough for its marks to go to a
    /// temporary file), some wrong, some with typos, some missing, and a stray row.
    fn report(feedback: Feedback) -> ClassReport {
        let header = "case_id,decision,reason\n";
        let mut golden = header.to_owned();
        let mut wrong = header.to_owned();
        for i in 0..CASES {
            golden.push_str(&format!("c{i},ACTIVE,within_lease\n"));
            if i % 7 != 0 {
                let decision = if i % 3 == 0 { "EXPIRD" } else { "ACTIVE" };
                wrong.push_str(&format!("c{i},{decision},within_lease\n"));
            }
        }
        wrong.push_str("stray,ACTIVE,within_lease\n");
        let marks = graded_csv(&golden, &wrong);
        ClassReport {
            scoring: Scoring::new(vec![Column::Decision, Column::Reason], None).unwrap(),
            feedback,
            golden: None,
            cases: CASES,
            hints: Vec::new(),
            key_problems: None,
            key_unreadable: false,
            submissions: vec![Submission {
                name: "ben.csv".to_owned(),
                outcome: SubmissionOutcome::Graded(marks),
                previous: None,
            }],
            baseline: false,
            baseline_max_scores: Vec::new(),
            precheck: None,
            points: None,
        }
    }

    /// The documents as they were built whole before they were written as they are made.
    fn whole(report: &ClassReport, gradescope: bool) -> String {
        let submission = only(report);
        let SubmissionOutcome::Graded(graded) = &submission.outcome else {
            panic!("graded")
        };
        let mut tests = Vec::new();
        if report.feedback.shows_cases() {
            for case in &graded.cases {
                let case = case.unwrap();
                let problems = report.problems(&case, &submission.name).join("\n");
                let name = &*case.case_id;
                let max = report.scoring.case_max();
                tests.push(if gradescope {
                    let status = if case.status == CaseStatus::Matched {
                        "passed"
                    } else {
                        "failed"
                    };
                    json!({"name": name, "score": case.points, "max_score": max,
                        "status": status, "output": problems, "visibility": "visible"})
                } else {
                    json!({"name": name, "points": case.points, "max_points": max,
                        "message": problems})
                });
            }
        }
        let mut output = vec![format!(
            "warning: ben.csv:{}: stray: {}",
            graded.unknown.iter().next().unwrap().unwrap().line,
            UnknownRow::WARNING
        )];
        if !report.feedback.reveals() {
            output.push("Expected values are hidden.".to_owned());
        }
        let score_line = format!("Score: {}", score_line(report, submission));
        let document = if gradescope {
            output.insert(0, score_line);
            json!({"score": graded.score, "output": output.join("\n"),
                "output_format": "text", "test_output_format": "text",
                "test_name_format": "text", "visibility": "visible", "tests": tests})
        } else {
            let score = graded.score as f64 / report.max_score() as f64;
            json!({"gradable": true, "score": score, "message": score_line,
                "output": output.join("\n"), "tests": tests})
        };
        serde_json::to_string_pretty(&document).unwrap() + "\n"
    }

    #[test]
    fn autograder_documents_written_a_case_at_a_time_are_the_whole_documents() {
        for feedback in [Feedback::None, Feedback::Cases, Feedback::Full] {
            let report = report(feedback);
            let mut out = Vec::new();
            write_gradescope(&report, Visibility::Visible, &mut out).unwrap();
            let text = String::from_utf8(out).unwrap();
            assert_eq!(text, whole(&report, true), "gradescope, {feedback:?}");
            if feedback.shows_cases() {
                assert!(text.contains("\"output\": \"decision: EXPIRD is wrong"));
            } else {
                assert!(text.ends_with("\"tests\": []\n}\n"));
            }
            let mut out = Vec::new();
            write_prairielearn(&report, &mut out).unwrap();
            let text = String::from_utf8(out).unwrap();
            assert_eq!(text, whole(&report, false), "prairielearn, {feedback:?}");
        }
    }

    /// The tests of a document, and its total bytes.
    fn parsed(out: &[u8]) -> (Value, usize) {
        (serde_json::from_slice(out).unwrap(), out.len())
    }

    #[test]
    fn documents_keep_under_the_limit_wrong_cases_first_and_points_add_up() {
        let report = report(Feedback::Cases);
        let SubmissionOutcome::Graded(graded) = &only(&report).outcome else {
            unreachable!()
        };
        let wrong_cases = graded
            .cases
            .iter()
            .filter(|c| c.as_ref().unwrap().status != CaseStatus::Matched)
            .count();
        for limit in [60_000, 120_000, 250_000] {
            let mut out = Vec::new();
            write_gradescope_within(&report, Visibility::Visible, limit, &mut out).unwrap();
            let (document, bytes) = parsed(&out);
            assert!(bytes <= limit, "{bytes} > {limit}");
            assert!(
                bytes > limit - 2_000,
                "the space is used: {bytes} of {limit}"
            );
            let tests = document["tests"].as_array().unwrap();
            let note = tests.last().unwrap();
            assert_eq!(note["name"], "Cases not listed");
            let listed = &tests[..tests.len() - 1];
            let points: u64 = tests.iter().map(|t| t["score"].as_u64().unwrap()).sum();
            let most: u64 = tests.iter().map(|t| t["max_score"].as_u64().unwrap()).sum();
            assert_eq!(
                points, graded.score,
                "the tests' points add up to the score"
            );
            assert_eq!(most, report.max_score());
            assert_eq!(document["score"], graded.score, "the score is unchanged");
            let left = CASES - listed.len();
            assert!(document["output"]
                .as_str()
                .unwrap()
                .contains(&format!("Feedback on {left} of the cases is not listed")));
            // Wrong cases come first: a right case is listed only once every wrong one is.
            let listed_wrong = listed.iter().filter(|t| t["status"] == "failed").count();
            if listed.iter().any(|t| t["status"] == "passed") {
                assert_eq!(listed_wrong, wrong_cases);
            }
            let mut out = Vec::new();
            write_prairielearn_within(&report, limit, &mut out).unwrap();
            let (document, bytes) = parsed(&out);
            assert!(bytes <= limit, "{bytes} > {limit}");
            let tests = document["tests"].as_array().unwrap();
            let points: u64 = tests.iter().map(|t| t["points"].as_u64().unwrap()).sum();
            let most: u64 = tests
                .iter()
                .map(|t| t["max_points"].as_u64().unwrap())
                .sum();
            assert_eq!(points, graded.score);
            assert_eq!(most, report.max_score());
            assert!(document["output"]
                .as_str()
                .unwrap()
                .contains("is not listed"));
        }
    }

    #[test]
    fn long_texts_are_cut_and_the_document_stays_under_the_limit() {
        let header = "case_id,decision,reason\n";
        let golden = format!("{header}c1,ACTIVE,within_lease\n");
        // A 10,000-byte cell, and 20,000 rows the golden file lacks (a warning each).
        let mut rows = format!("{header}c1,{},within_lease\n", "X".repeat(10_000));
        for i in 0..20_000 {
            rows.push_str(&format!("stray-{i:05},ACTIVE,within_lease\n"));
        }
        let mut report = report(Feedback::Cases);
        report.cases = 1;
        report.submissions[0].outcome = SubmissionOutcome::Graded(graded_csv(&golden, &rows));
        for gradescope in [true, false] {
            let mut out = Vec::new();
            if gradescope {
                write_gradescope(&report, Visibility::Visible, &mut out).unwrap();
            } else {
                write_prairielearn(&report, &mut out).unwrap();
            }
            assert!(out.len() <= RESULTS_LIMIT, "{} bytes", out.len());
            let document: Value = serde_json::from_slice(&out).unwrap();
            let output = document["output"].as_str().unwrap();
            assert!(output.len() <= TOP_TEXT_LIMIT + 200, "{}", output.len());
            let listed = output.matches("warning: ben.csv:").count();
            assert!(listed > 100 && listed < 20_000, "{listed}");
            assert!(
                output.contains(&format!(
                    "… and {} more rows whose case ids are not in the key",
                    20_000 - listed
                )),
                "{}",
                &output[output.len() - 300..]
            );
            let test = &document["tests"][0];
            let text = test[if gradescope { "output" } else { "message" }]
                .as_str()
                .unwrap();
            assert!(text.ends_with("… (cut)"), "{text}");
            assert!(text.len() <= TEST_TEXT_LIMIT + "… (cut)".len());
        }
    }

    #[test]
    fn hidden_results_show_nothing_at_the_top_and_everything_in_tests() {
        for feedback in [Feedback::None, Feedback::Cases] {
            let report = report(feedback);
            for visibility in [
                Visibility::Hidden,
                Visibility::AfterDueDate,
                Visibility::AfterPublished,
            ] {
                let mut out = Vec::new();
                write_gradescope(&report, visibility, &mut out).unwrap();
                let document: Value = serde_json::from_slice(&out).unwrap();
                let output = document["output"].as_str().unwrap();
                assert!(!output.contains("Score"), "{output}");
                assert!(!output.contains("warning"), "{output}");
                assert_eq!(document["visibility"], visibility.name());
                let tests = document["tests"].as_array().unwrap();
                assert!(!tests.is_empty(), "a test hides the total score");
                assert!(tests.iter().all(|t| t["visibility"] == visibility.name()));
                assert_eq!(tests[0]["name"], "Summary");
                assert!(tests[0]["output"].as_str().unwrap().starts_with("Score: "));
                // Points are counted once: on the summary only when it is the only test.
                assert_eq!(tests[0].get("score").is_some(), tests.len() == 1);
            }
        }
    }

    #[test]
    fn learner_text_is_plain_text_with_visible_controls() {
        let header = "case_id,decision,reason\n";
        let golden = format!("{header}c1,ACTIVE,within_lease\n");
        let wrong = format!(
            "{header}c1,x<script>alert(1)</script>,\u{1b}]8;;http://a.example\u{7}link\n\u{1b}[31mred,ACTIVE,within_lease\n"
        );
        let mut report = report(Feedback::Cases);
        report.cases = 1;
        report.submissions[0].outcome = SubmissionOutcome::Graded(graded_csv(&golden, &wrong));
        let mut out = Vec::new();
        write_gradescope(&report, Visibility::Visible, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let document: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(document["output_format"], "text");
        assert_eq!(document["test_output_format"], "text");
        assert_eq!(document["test_name_format"], "text");
        let mut out = Vec::new();
        write_prairielearn(&report, &mut out).unwrap();
        let pl = String::from_utf8(out).unwrap();
        for text in [&text, &pl] {
            // serde_json writes an escape character as \u001b: none may reach the page.
            assert!(!text.contains("\\u001b"), "{text}");
            assert!(text.contains("\\\\u{1b}[31mred"), "{text}");
            assert!(
                text.contains("\\\\u{1b}]8;;http://a.example\\\\u{7}link"),
                "{text}"
            );
        }
    }
}
