//! `grade`'s class report as JSON documents: leasejudge's own (every submission, per-case
//! and per-column breakdown, class summary), and the autograder result files of Gradescope
//! (`results.json` per its autograder specification) and PrairieLearn (external grading
//! results). Keys are in a fixed order, so the same run gives the same bytes; a hidden golden
//! value has no key at all.

use std::io::Write as _;

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::grading::class::{CaseMark, ClassReport, Outcome, Submission, UnknownRow};
use crate::grading::marks::{Marks, UnknownRows};

use super::class_text::score_line;

/// Who sees Gradescope test results, and when (the autograder specification's values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Visibility {
    /// Shown to the learner at once.
    Visible,
    /// Never shown to the learner.
    Hidden,
    /// Shown after the due date.
    #[value(name = "after_due_date")]
    AfterDueDate,
    /// Shown once grades are published.
    #[value(name = "after_published")]
    AfterPublished,
}

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
}

/// A percentage rounded to two decimals, so documents carry no float noise.
fn rounded(value: Option<f64>) -> Value {
    value.map_or(Value::Null, |v| json!((v * 100.0).round() / 100.0))
}

/// The most a submission can score; `null` when the golden file is malformed.
fn max_score(report: &ClassReport) -> Value {
    match report.key_problems {
        Some(_) => Value::Null,
        None => report.max_score().into(),
    }
}

fn error_json(problem: &crate::input::InputError) -> Value {
    json!({
        "file": problem.file,
        "line": if problem.line > 0 { Value::from(problem.line) } else { Value::Null },
        "column": problem.column,
        "message": problem.to_string(),
    })
}

fn case_json(report: &ClassReport, submission: &Submission, case: &CaseMark) -> Value {
    let mut object = Map::new();
    object.insert("case_id".into(), case.case_id.to_string().into());
    object.insert("status".into(), case.status.name().into());
    object.insert("line".into(), case.line.map_or(Value::Null, Value::from));
    object.insert("points".into(), case.points.into());
    object.insert("max_points".into(), report.scoring.case_max().into());
    let mut columns = Map::new();
    for (i, column) in report.scoring.columns.iter().enumerate() {
        let mut entry = Map::new();
        let correct = case.is_correct(i);
        entry.insert("correct".into(), correct.into());
        if report.scoring.weights.is_some() {
            let points = if correct { report.scoring.weight(i) } else { 0 };
            entry.insert("points".into(), points.into());
            entry.insert("max_points".into(), report.scoring.weight(i).into());
        }
        if let Some(miss) = case.misses.iter().find(|m| m.column == *column) {
            entry.insert("actual".into(), miss.actual.to_string().into());
            if let Some(expected) = &miss.expected {
                entry.insert("expected".into(), expected.to_string().into());
            }
            if let Some(note) = &miss.note {
                entry.insert("note".into(), note.clone().into());
            }
        }
        columns.insert(column.name().into(), Value::Object(entry));
    }
    object.insert("columns".into(), Value::Object(columns));
    let problems = report.problems(case, &submission.name);
    if !problems.is_empty() {
        object.insert("problems".into(), problems.into());
    }
    if let Some(Some(hint)) = report.hints.get(case.case as usize) {
        if case.status != crate::grading::class::CaseStatus::Matched {
            object.insert("hint".into(), hint.json());
        }
    }
    Value::Object(object)
}

/// A submission's unknown rows, serialised one at a time (a submission of wrong ids has as
/// many as it has rows).
struct WarningsJson<'a>(&'a UnknownRows);

impl Serialize for WarningsJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.0.iter().map(
                |u| json!({"case_id": u.case_id, "line": u.line, "message": UnknownRow::WARNING}),
            ),
        )
    }
}

/// A submission's entries but `cases` and `warnings`, which are written lazily (see
/// [`SubmissionJson`]).
fn submission_head(report: &ClassReport, submission: &Submission) -> Map<String, Value> {
    let mut object = Map::new();
    object.insert("submission".into(), submission.name.clone().into());
    object.insert("status".into(), submission.status().into());
    let score = submission.score();
    object.insert("score".into(), score.map_or(Value::Null, Value::from));
    object.insert("max_score".into(), max_score(report));
    object.insert(
        "percent".into(),
        rounded(score.and_then(|s| report.percent(s))),
    );
    if report.baseline {
        object.insert(
            "previous_score".into(),
            submission
                .previous
                .and_then(|p| p.score)
                .map_or(Value::Null, Value::from),
        );
        object.insert(
            "change".into(),
            submission.change().map_or(Value::Null, Value::from),
        );
    }
    match &submission.outcome {
        Outcome::KeyMalformed => {
            object.insert("errors".into(), json!([{"message": report.key_message()}]));
        }
        Outcome::Ungradable(problems) => {
            let errors: Vec<Value> = problems.iter().map(error_json).collect();
            object.insert("errors".into(), errors.into());
        }
        Outcome::Graded(graded) => {
            let counts = graded.counts();
            object.insert(
                "counts".into(),
                json!({
                    "matched": counts.matched,
                    "mismatched": counts.mismatched,
                    "missing": counts.missing,
                    "unknown": counts.unknown,
                }),
            );
            let mut correct = Map::new();
            for (i, column) in report.scoring.columns.iter().enumerate() {
                correct.insert(column.name().into(), graded.column_correct(i).into());
            }
            object.insert("column_correct".into(), Value::Object(correct));
        }
    }
    object
}

/// One submission, its cases serialised one at a time so a large class never holds the
/// whole document in memory.
struct SubmissionJson<'a>(&'a ClassReport, &'a Submission);

impl Serialize for SubmissionJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let SubmissionJson(report, submission) = *self;
        let head = submission_head(report, submission);
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in &head {
            map.serialize_entry(key, value)?;
        }
        if let Outcome::Graded(graded) = &submission.outcome {
            if report.feedback.shows_cases() {
                map.serialize_entry("cases", &CasesJson(report, submission, &graded.cases))?;
            }
            map.serialize_entry("warnings", &WarningsJson(&graded.unknown))?;
        }
        map.end()
    }
}

struct CasesJson<'a>(&'a ClassReport, &'a Submission, &'a Marks);

impl Serialize for CasesJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let CasesJson(report, submission, cases) = *self;
        serializer.collect_seq(
            cases
                .iter()
                .map(|case| case_json(report, submission, &case)),
        )
    }
}

struct SubmissionsJson<'a>(&'a ClassReport);

impl Serialize for SubmissionsJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let report = self.0;
        serializer.collect_seq(report.submissions.iter().map(|s| SubmissionJson(report, s)))
    }
}

fn document_json<S: Serializer>(report: &ClassReport, serializer: S) -> Result<S::Ok, S::Error> {
    let summary = report.summary();
    let weights = report.scoring.weights.as_ref().map_or(Value::Null, |_| {
        let mut weights = Map::new();
        for (i, column) in report.scoring.columns.iter().enumerate() {
            weights.insert(column.name().into(), report.scoring.weight(i).into());
        }
        Value::Object(weights)
    });
    let columns: Vec<&str> = report.scoring.columns.iter().map(|c| c.name()).collect();
    let mut document = Map::new();
    document.insert("command".into(), "grade".into());
    document.insert("columns".into(), columns.into());
    document.insert(
        "scoring".into(),
        if report.scoring.weights.is_some() {
            "weighted"
        } else {
            "all_or_nothing"
        }
        .into(),
    );
    document.insert("weights".into(), weights);
    document.insert("feedback".into(), report.feedback.name().into());
    document.insert("revealed".into(), report.feedback.reveals().into());
    if let Some(golden) = &report.golden {
        document.insert("golden".into(), golden.clone().into());
    }
    if let Some(problems) = &report.key_problems {
        let mut key = vec![json!({"message": report.key_message()})];
        key.extend(problems.iter().map(error_json));
        document.insert("golden_errors".into(), key.into());
    }
    document.insert("cases".into(), report.cases.into());
    document.insert("max_score".into(), max_score(report));
    let mut class = json!({
        "submissions": summary.submissions,
        "graded": summary.graded,
        "ungradable": summary.ungradable,
        "full_marks": summary.full_marks,
        "with_warnings": summary.with_warnings,
        "mean_percent": rounded(summary.mean_percent),
    });
    if report.baseline {
        let moved: Vec<Value> = report
            .moved()
            .iter()
            .map(|(s, change)| json!({"submission": s.name, "change": change}))
            .collect();
        class["moved"] = moved.into();
    }
    document.insert("summary".into(), class);
    let mut map = serializer.serialize_map(None)?;
    for (key, value) in &document {
        map.serialize_entry(key, value)?;
    }
    map.serialize_entry("submissions", &SubmissionsJson(report))?;
    map.end()
}

/// Writes the report as leasejudge's JSON document (pretty-printed, then a newline), a case
/// at a time.
pub fn write_json(report: &ClassReport, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut writer = std::io::BufWriter::new(out);
    serde_json::to_writer_pretty(&mut writer, &DocumentJson(report))?;
    writer.write_all(b"\n")?;
    writer.flush()
}

struct DocumentJson<'a>(&'a ClassReport);

impl Serialize for DocumentJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        document_json(self.0, serializer)
    }
}

/// The one submission of an autograder run (the command refuses more).
fn only(report: &ClassReport) -> &Submission {
    &report.submissions[0]
}

/// An autograder document: its entries but `tests` (a few lines of text at most), then
/// `tests`, made a case at a time while it is written.
struct AutograderJson<T> {
    head: Value,
    tests: T,
}

impl<T: Serialize> Serialize for AutograderJson<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if let Value::Object(head) = &self.head {
            for (key, value) in head {
                map.serialize_entry(key, value)?;
            }
        }
        map.serialize_entry("tests", &self.tests)?;
        map.end()
    }
}

/// The one place an autograder document is written: pretty-printed, then a newline, the
/// bytes `to_string_pretty` gave for the whole document when it was built in memory.
fn write_autograder<T: Serialize>(
    document: &AutograderJson<T>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut writer = std::io::BufWriter::new(out);
    serde_json::to_writer_pretty(&mut writer, document)?;
    writer.write_all(b"\n")?;
    writer.flush()
}

/// Gradescope's tests: one per golden case when the feedback shows cases, read back from the
/// submission's marks as they are written.
struct GradescopeTests<'a>(&'a ClassReport, &'a Submission, Visibility);

impl Serialize for GradescopeTests<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let GradescopeTests(report, submission, visibility) = *self;
        match &submission.outcome {
            Outcome::Graded(graded) if report.feedback.shows_cases() => {
                serializer.collect_seq(graded.cases.iter().map(|case| {
                    let problems = report.problems(&case, &submission.name);
                    json!({
                        "name": &*case.case_id,
                        "score": case.points,
                        "max_score": report.scoring.case_max(),
                        "status": if case.status == crate::grading::class::CaseStatus::Matched { "passed" } else { "failed" },
                        "output": problems.join("\n"),
                        "visibility": visibility.name(),
                    })
                }))
            }
            _ => serializer.collect_seq(std::iter::empty::<Value>()),
        }
    }
}

/// Writes the Gradescope `results.json`: a test per golden case (score, max_score, status,
/// output naming the wrong columns), the top-level score and output, and `visibility`; the
/// tests are written as they are made.
pub fn write_gradescope(
    report: &ClassReport,
    visibility: Visibility,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let submission = only(report);
    let mut output = Vec::new();
    output.extend(key_or_problems(report, submission));
    output.push(format!("Score: {}", score_line(report, submission)));
    if let Outcome::Graded(graded) = &submission.outcome {
        for unknown in &graded.unknown {
            output.push(format!(
                "warning: {}:{}: {}: {}",
                submission.name,
                unknown.line,
                unknown.case_id,
                UnknownRow::WARNING
            ));
        }
    }
    if !report.feedback.reveals() {
        output.push("Expected values are hidden.".to_owned());
    }
    let head = json!({
        "score": submission.score().unwrap_or(0),
        "output": output.join("\n"),
        "visibility": visibility.name(),
    });
    write_autograder(
        &AutograderJson {
            head,
            tests: GradescopeTests(report, submission, visibility),
        },
        out,
    )
}

fn key_or_problems(report: &ClassReport, submission: &Submission) -> Vec<String> {
    match &submission.outcome {
        Outcome::KeyMalformed => super::class_text::key_lines(report),
        Outcome::Ungradable(problems) => problems.iter().map(|p| p.to_string()).collect(),
        Outcome::Graded(_) => Vec::new(),
    }
}

/// PrairieLearn's tests: one per golden case of a graded submission when the feedback shows
/// cases, read back from its marks as they are written.
struct PrairieLearnTests<'a>(&'a ClassReport, &'a Submission);

impl Serialize for PrairieLearnTests<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let PrairieLearnTests(report, submission) = *self;
        match &submission.outcome {
            Outcome::Graded(graded) if report.feedback.shows_cases() => {
                serializer.collect_seq(graded.cases.iter().map(|case| {
                    let problems = report.problems(&case, &submission.name);
                    json!({
                        "name": &*case.case_id,
                        "points": case.points,
                        "max_points": report.scoring.case_max(),
                        "message": problems.join("\n"),
                    })
                }))
            }
            _ => serializer.collect_seq(std::iter::empty::<Value>()),
        }
    }
}

/// Writes PrairieLearn's external grading results: `gradable`, `score` in [0, 1],
/// `message`, `tests`; an ungradable submission is `gradable: false` with `format_errors`.
/// The tests are written as they are made.
pub fn write_prairielearn(
    report: &ClassReport,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let submission = only(report);
    let head = match &submission.outcome {
        Outcome::Graded(graded) => {
            let max = report.max_score();
            let score = if max == 0 {
                1.0
            } else {
                graded.score as f64 / max as f64
            };
            let mut output: Vec<String> = graded
                .unknown
                .iter()
                .map(|u| {
                    format!(
                        "warning: {}:{}: {}: {}",
                        submission.name,
                        u.line,
                        u.case_id,
                        UnknownRow::WARNING
                    )
                })
                .collect();
            if !report.feedback.reveals() {
                output.push("Expected values are hidden.".to_owned());
            }
            json!({
                "gradable": true,
                "score": score,
                "message": format!("Score: {}", score_line(report, submission)),
                "output": output.join("\n"),
            })
        }
        _ => {
            let format_errors = key_or_problems(report, submission);
            json!({
                "gradable": false,
                "score": 0.0,
                "message": if report.key_problems.is_some() { report.key_message().to_owned() } else { format!("{} could not be graded: fix the problems listed and submit again", submission.name) },
                "format_errors": format_errors,
            })
        }
    };
    write_autograder(
        &AutograderJson {
            head,
            tests: PrairieLearnTests(report, submission),
        },
        out,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grading::class::{graded_csv, CaseStatus, Feedback, Scoring};
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
            scoring: Scoring::new(vec![Column::DECISION, Column::REASON], None).unwrap(),
            feedback,
            golden: None,
            cases: CASES,
            hints: Vec::new(),
            key_problems: None,
            key_unreadable: false,
            submissions: vec![Submission {
                name: "ben.csv".to_owned(),
                outcome: Outcome::Graded(marks),
                previous: None,
            }],
            baseline: false,
        }
    }

    /// The documents as they were built whole before they were written as they are made.
    fn whole(report: &ClassReport, gradescope: bool) -> String {
        let submission = only(report);
        let Outcome::Graded(graded) = &submission.outcome else {
            panic!("graded")
        };
        let mut tests = Vec::new();
        if report.feedback.shows_cases() {
            for case in &graded.cases {
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
                        "status": status, "output": problems, "visibility": "hidden"})
                } else {
                    json!({"name": name, "points": case.points, "max_points": max,
                        "message": problems})
                });
            }
        }
        let mut output = vec![format!(
            "warning: ben.csv:{}: stray: {}",
            graded.unknown.iter().next().unwrap().line,
            UnknownRow::WARNING
        )];
        if !report.feedback.reveals() {
            output.push("Expected values are hidden.".to_owned());
        }
        let score_line = format!("Score: {}", score_line(report, submission));
        let document = if gradescope {
            output.insert(0, score_line);
            json!({"score": graded.score, "output": output.join("\n"),
                "visibility": "hidden", "tests": tests})
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
            write_gradescope(&report, Visibility::Hidden, &mut out).unwrap();
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
}
