//! A grade report as one JSON document, keys in a fixed order (so the same run gives the same
//! bytes). A hidden golden value has no `expected` key at all.

use std::io::{self, Write};

use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::grading::case_list::CaseList;
use crate::grading::{CaseGrade, CaseOutcome, FileGrade, GradeReport, Spot, Summary};

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

/// One golden case's record.
fn case_json(case: &CaseGrade) -> Value {
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
}

/// The `len` records `records` reads back from a temporary file, serialised one at a time
/// rather than as one tree; an error reading one back is the serialiser's.
pub(crate) fn serialize_records<S: Serializer, T: Serialize>(
    serializer: S,
    len: usize,
    records: impl Iterator<Item = io::Result<T>>,
) -> Result<S::Ok, S::Error> {
    let mut seq = serializer.serialize_seq(Some(len))?;
    for record in records {
        seq.serialize_element(&record.map_err(serde::ser::Error::custom)?)?;
    }
    seq.end()
}

/// A file's cases, serialised one record at a time rather than as one tree.
struct Cases<'a>(&'a CaseList);

impl Serialize for Cases<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let cases = self.0.iter().map(|case| case.map(|case| case_json(&case)));
        serialize_records(serializer, self.0.len(), cases)
    }
}

/// One compared pair, its keys in the document's order.
struct FileJson<'a>(&'a FileGrade);

impl Serialize for FileJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let file = self.0;
        let unknown: Vec<Value> = file
            .unknown
            .iter()
            .map(|u| {
                let u = u.map_err(serde::ser::Error::custom)?;
                let (at_file, at_line) = spot(&u.at);
                Ok(json!({"case_id": u.case_id, "file": at_file, "line": at_line}))
            })
            .collect::<Result<_, S::Error>>()?;
        let mut map = serializer.serialize_map(Some(5))?;
        map.serialize_entry("file", &file.file)?;
        map.serialize_entry("golden", &file.golden)?;
        map.serialize_entry("summary", &summary_json(&file.summary()))?;
        map.serialize_entry("cases", &Cases(&file.cases))?;
        map.serialize_entry("unknown", &unknown)?;
        map.end()
    }
}

struct Files<'a>(&'a [FileGrade]);

impl Serialize for Files<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(FileJson))
    }
}

/// The whole document, its keys in a fixed order.
struct Document<'a>(&'a GradeReport);

impl Serialize for Document<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let report = self.0;
        let unpaired: Vec<Value> = report
            .unpaired
            .iter()
            .map(|u| json!({"file": u.file, "problem": u.problem.code(), "message": u.problem.message()}))
            .collect();
        let columns: Vec<&str> = report.columns.iter().map(|c| c.name()).collect();
        let mut map = serializer.serialize_map(Some(6))?;
        map.serialize_entry("command", report.command)?;
        map.serialize_entry("columns", &columns)?;
        map.serialize_entry("revealed", &report.revealed)?;
        map.serialize_entry("summary", &summary_json(&report.summary()))?;
        map.serialize_entry("files", &Files(&report.files))?;
        map.serialize_entry("unpaired", &unpaired)?;
        map.end()
    }
}

/// Writes the report as pretty-printed JSON, a case record at a time: a report listing
/// millions of cases is never one tree or one string.
pub fn write(report: &GradeReport, out: &mut dyn Write) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut out, &Document(report)).map_err(io::Error::from)?;
    out.write_all(b"\n")?;
    out.flush()
}
