//! A grade report as one JSON document, keys in a fixed order (so the same run gives the same
//! bytes). A hidden golden value has no `expected` key at all.

use serde_json::{json, Map, Value};

use crate::grading::{CaseOutcome, GradeReport, Spot, Summary};

fn spot(at: &Spot) -> (Value, Value) {
    (
        Value::from(at.file.clone()),
        at.line.map_or(Value::Null, Value::from),
    )
}

fn summary_json(summary: &Summary) -> Value {
    // Rounded to two decimals so the document does not carry float noise.
    let score = summary
        .score_percent()
        .map_or(Value::Null, |s| json!((s * 100.0).round() / 100.0));
    json!({
        "cases": summary.cases,
        "matched": summary.matched,
        "mismatched": summary.mismatched,
        "missing": summary.missing,
        "unknown": summary.unknown,
        "unpaired": summary.unpaired,
        "score_percent": score,
        "passed": summary.is_clean(),
    })
}

/// Renders the report as pretty-printed JSON.
pub fn render(report: &GradeReport) -> String {
    let files: Vec<Value> = report
        .files
        .iter()
        .map(|file| {
            let cases: Vec<Value> = file
                .cases
                .iter()
                .map(|case| {
                    let (at_file, at_line) = spot(&case.at);
                    let mut object = Map::new();
                    object.insert("case_id".into(), case.case_id.clone().into());
                    object.insert("status".into(), case.status().into());
                    object.insert("file".into(), at_file);
                    object.insert("line".into(), at_line);
                    if let CaseOutcome::Mismatched(mismatches) = &case.outcome {
                        let list: Vec<Value> = mismatches
                            .iter()
                            .map(|m| {
                                let mut entry = Map::new();
                                entry.insert("column".into(), m.column.name().into());
                                if let Some(expected) = &m.expected {
                                    entry.insert("expected".into(), expected.clone().into());
                                }
                                entry.insert("actual".into(), m.actual.clone().into());
                                Value::Object(entry)
                            })
                            .collect();
                        object.insert("mismatches".into(), list.into());
                    }
                    Value::Object(object)
                })
                .collect();
            let unknown: Vec<Value> = file
                .unknown
                .iter()
                .map(|u| {
                    let (at_file, at_line) = spot(&u.at);
                    json!({"case_id": u.case_id, "file": at_file, "line": at_line})
                })
                .collect();
            json!({
                "file": file.file,
                "golden": file.golden,
                "summary": summary_json(&file.summary()),
                "cases": cases,
                "unknown": unknown,
            })
        })
        .collect();
    let unpaired: Vec<Value> = report
        .unpaired
        .iter()
        .map(|u| json!({"file": u.file, "problem": u.problem.code(), "message": u.problem.message()}))
        .collect();
    let columns: Vec<&str> = report.columns.iter().map(|c| c.name()).collect();
    let document = json!({
        "command": report.command,
        "columns": columns,
        "revealed": report.revealed,
        "summary": summary_json(&report.summary()),
        "files": files,
        "unpaired": unpaired,
    });
    let mut text = serde_json::to_string_pretty(&document).expect("a JSON value always serialises");
    text.push('\n');
    text
}
