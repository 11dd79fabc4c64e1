//! The cases the search found, written as a case file: CSV, a JSON array of rows, or NDJSON,
//! chosen by the file's extension as every case file's format is (spec section 2), each row
//! with the fields its event uses; and their golden matrix, judged from the file as written.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde_json::{Map, Value};

use crate::input::{InputFormat, Source};
use crate::lease::{Message, Row};
use crate::matrix::{CsvMatrix, JsonMatrix};
use crate::output::{Content, Finished, Output};
use crate::streaming::{judge, Sink, StreamSettings};

/// The columns of a written case file, in order.
const HEADER: [&str; 16] = [
    "case_id",
    "event",
    "observed_at",
    "sent_at",
    "job_id",
    "lease_id",
    "generation",
    "holder",
    "issued_at",
    "lease_duration",
    "expires_at",
    "ack_deadline",
    "renew_seq",
    "progress_seq",
    "progress_value",
    "result",
];

/// A cell of a written row: text, or a number (written as a JSON number).
enum Cell {
    Text(String),
    Number(u64),
}

/// The cells of `row` of case `case_id`, by column of [`HEADER`] (`None`: empty).
fn cells(case_id: &str, row: &Row) -> [Option<Cell>; 16] {
    let text = |value: &str| Some(Cell::Text(value.to_owned()));
    let time = |value: Option<crate::lease::Timestamp>| value.map(|t| Cell::Text(t.to_string()));
    let mut cells: [Option<Cell>; 16] = Default::default();
    cells[0] = text(case_id);
    cells[1] = text(row.message.event().as_str());
    cells[2] = time(Some(row.observed_at));
    cells[3] = time(row.sent_at);
    cells[4] = row.job_id.as_deref().and_then(text);
    if let Some(identity) = row.message.identity() {
        cells[5] = text(&identity.lease_id);
        cells[6] = Some(Cell::Number(identity.generation));
        cells[7] = text(&identity.holder);
    }
    match &row.message {
        Message::Offer(offer) => {
            cells[8] = time(offer.given.issued_at);
            cells[9] = Some(Cell::Number(offer.terms.lease_duration.get()));
            cells[10] = time(offer.given.expires_at);
            cells[11] = time(offer.given.ack_deadline);
        }
        Message::Renew { renew_seq, .. } => cells[12] = Some(Cell::Number(*renew_seq)),
        Message::Progress {
            progress_seq,
            progress_value,
            ..
        } => {
            cells[13] = Some(Cell::Number(*progress_seq));
            cells[14] = progress_value.as_deref().and_then(text);
        }
        Message::Result { result, .. } => cells[15] = text(result.as_str()),
        Message::Ack(_) | Message::CancelAck(_) | Message::CancelRequest | Message::Observe => {}
    }
    cells
}

/// Row `row` of case `case_id` as a JSON case file's row object: the fields it gives, in
/// the order of the CSV header, integers as numbers.
pub fn row_object(case_id: &str, row: &Row) -> Map<String, Value> {
    let mut object = Map::new();
    for (name, cell) in HEADER.iter().zip(cells(case_id, row)) {
        let value = match cell {
            None => continue,
            Some(Cell::Text(text)) => Value::String(text),
            Some(Cell::Number(n)) => Value::from(n),
        };
        object.insert((*name).to_owned(), value);
    }
    object
}

/// The format a case file written to `path` has: JSON for `.json`, NDJSON for `.ndjson` and
/// `.jsonl`, CSV otherwise (a workbook extension is refused: it would not be one).
pub fn format_for(path: &Path) -> Result<InputFormat, String> {
    match InputFormat::for_path(path) {
        InputFormat::Workbook => Err(format!(
            "{}: cases are written as CSV, JSON or NDJSON, not as a workbook",
            path.display()
        )),
        format => Ok(format),
    }
}

/// Writes `cases` (each an id and its rows) as a case file in `format`.
pub fn write_cases(
    cases: &[(String, Vec<Row>)],
    format: InputFormat,
    out: &mut impl Write,
) -> io::Result<()> {
    match format {
        InputFormat::Json | InputFormat::Ndjson => {
            let json = format == InputFormat::Json;
            let mut first = true;
            if json {
                out.write_all(b"[")?;
            }
            for (case_id, rows) in cases {
                for row in rows {
                    let object = row_object(case_id, row);
                    if json && !std::mem::take(&mut first) {
                        out.write_all(b",")?;
                    }
                    if json {
                        out.write_all(b"\n")?;
                    }
                    serde_json::to_writer(&mut *out, &object)?;
                    if !json {
                        out.write_all(b"\n")?;
                    }
                }
            }
            if json {
                out.write_all(if first { b"]\n" } else { b"\n]\n" })?;
            }
            Ok(())
        }
        _ => {
            let mut writer = csv::WriterBuilder::new()
                .terminator(csv::Terminator::Any(b'\n'))
                .from_writer(out);
            writer.write_record(HEADER)?;
            for (case_id, rows) in cases {
                for row in rows {
                    writer.write_record(cells(case_id, row).map(|cell| match cell {
                        None => String::new(),
                        Some(Cell::Text(text)) => text,
                        Some(Cell::Number(n)) => n.to_string(),
                    }))?;
                }
            }
            writer.flush()
        }
    }
}

/// Writes the survivors' cases to `path` in `format`, and their golden matrix to `golden`
/// (judged from the case file as written, as `generate --golden` does); both finished, for
/// the run to commit with its report.
pub fn write_suggestions(
    assessment: &super::Assessment,
    path: &Path,
    format: InputFormat,
    golden: Option<&PathBuf>,
) -> Result<Vec<Finished>> {
    let cases: Vec<(String, Vec<crate::lease::Row>)> = assessment
        .witnesses()
        .map(|witness| (witness.case_id.clone(), witness.rows.clone()))
        .collect();
    let content = match format {
        InputFormat::Csv => Content::Csv,
        _ => Content::Json,
    };
    let mut out = Output::open(Some(path), content)?;
    write_cases(&cases, format, &mut out).context("cannot write the suggested cases")?;
    let written = out.finish()?;
    let mut finished = Vec::new();
    if let Some(golden) = golden {
        let Some(cases_path) = written.written_path() else {
            bail!("--golden needs --suggest to name a regular file, not a device or pipe");
        };
        let source = Source {
            name: path.to_string_lossy().into_owned(),
            path: Some(cases_path.to_owned()),
            options: Default::default(),
        };
        let settings = StreamSettings {
            input_format: Some(format),
            ..StreamSettings::default()
        };
        let (encoding, content): (&'static dyn crate::matrix::MatrixEncoding, _) =
            match InputFormat::for_path(golden) {
                InputFormat::Json => (&JsonMatrix, Content::Json),
                _ => (&CsvMatrix, Content::Csv),
            };
        let mut out = Output::open(Some(golden), content)?;
        judge(
            &[source],
            &settings,
            Sink::Matrix(encoding),
            &mut |_, _, _| {},
        )
        .and_then(|matrix| Ok(matrix.write_to(&mut out)?))
        .context("cannot judge the suggested cases")?;
        finished.push(out.finish()?);
    }
    finished.insert(0, written);
    Ok(finished)
}
