//! `grade`'s class report as leasejudge's own JSON document: every submission, per-case and
//! per-column breakdown, class summary (the autograder result files are
//! [`super::platform_results`]'s). Keys are in a fixed order, so the same run gives the same bytes;
//! a hidden golden value has no key at all.

use std::io::Write as _;

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::grading::class::{CaseMark, ClassReport, Submission, SubmissionOutcome, UnknownRow};
use crate::grading::marks::{Marks, UnknownRows};
use crate::report::class_shortcuts::{class_json, submission_json};
use crate::report::grade_json::serialize_records;

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
        let warning = |u: UnknownRow| {
            let message = UnknownRow::WARNING;
            json!({"case_id": u.case_id, "line": u.line, "message": message})
        };
        let warnings = self.0.iter().map(|u| u.map(warning));
        serialize_records(serializer, self.0.len(), warnings)
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
        SubmissionOutcome::KeyMalformed => {
            object.insert("errors".into(), json!([{"message": report.key_message()}]));
        }
        SubmissionOutcome::Ungradable(problems) => {
            let errors: Vec<Value> = problems.shown().iter().map(error_json).collect();
            object.insert("errors".into(), errors.into());
        }
        SubmissionOutcome::Graded(graded) => {
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
            if let Some(named) = &graded.shortcuts {
                object.insert("shortcuts".into(), submission_json(named));
            }
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
        if let SubmissionOutcome::Graded(graded) = &submission.outcome {
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
        let cases_json = cases
            .iter()
            .map(|case| case.map(|case| case_json(report, submission, &case)));
        serialize_records(serializer, cases.len(), cases_json)
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
        key.extend(problems.shown().iter().map(error_json));
        document.insert("key_errors".into(), key.into());
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
        // The baseline's maximum scores, when its gradebook says them: a change compares
        // points as they stand, and a maximum that differs from this run's says why many moved.
        // A whole number as `max_score` is written (`12`, not `12.0`).
        let whole = |max: f64| max.fract() == 0.0 && (0.0..9.0e15).contains(&max);
        class["baseline_max_scores"] = report
            .baseline_max_scores
            .iter()
            .map(|&max| {
                if whole(max) {
                    Value::from(max as u64)
                } else {
                    Value::from(max)
                }
            })
            .collect::<Vec<Value>>()
            .into();
    }
    if let Some(shortcuts) = class_json(report) {
        class["shortcuts"] = shortcuts;
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
