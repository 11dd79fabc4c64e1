//! Reading a previous gradebook (`grade --baseline`): each submission's earlier score.
//!
//! A gradebook is read as strictly as a golden file's structure (spec section 2): by the same
//! record reader and strict record loop (`crate::input::body_record`), a row with more or
//! fewer cells than the header, an unterminated quote, a header naming a column twice, a
//! submission listed twice and a score that is not a number are errors, every one listed and
//! located. It is the comma-separated file `grade --gradebook` writes.

use std::collections::HashMap;
use std::path::Path;

use crate::input::records::RecordReader;
use crate::input::ErrorKind;
use crate::input::{
    body_record, header_record, normalise_header, BodyRecord, InputError, InputErrors,
};

/// The scores of an old gradebook by submission name (as the gradebook shows it:
/// [`crate::sanitize::escape_controls`] of the name); `None` where the score cell is empty (an
/// ungradable submission).
pub fn read_baseline(path: &Path) -> Result<HashMap<String, Option<f64>>, InputErrors> {
    let name = path.to_string_lossy().into_owned();
    let bytes = std::fs::File::open(path)
        .and_then(crate::limits::read_document)
        .map_err(|e| InputErrors::one(InputError::unreadable(&name, 0, e)))?;
    parse_baseline(&bytes, &name)
}

/// The columns a gradebook is read by.
const COLUMNS: [&str; 2] = ["submission", "score"];

/// Parses a gradebook's bytes (named `name` in errors): a header with `submission` and
/// `score` columns (named in any case; others ignored), then one row per submission.
pub fn parse_baseline(
    bytes: &[u8],
    name: &str,
) -> Result<HashMap<String, Option<f64>>, InputErrors> {
    let mut records = RecordReader::new(bytes, true);
    let mut errors = InputErrors::new();
    let (header_line, header) = match header_record(&mut records, name, &mut errors) {
        Ok(Some(record)) => (
            record.line,
            record
                .iter()
                .map(|cell| String::from_utf8_lossy(cell).into_owned())
                .collect::<Vec<_>>(),
        ),
        Ok(None) => return Err(errors),
        Err(failure) => return Err(InputErrors::one(failure.at(name, records.line()))),
    };
    // Where each of `COLUMNS` is in the header.
    let mut at: [Option<usize>; 2] = [None; 2];
    for (index, text) in header.iter().enumerate() {
        let Some(wanted) = COLUMNS.iter().position(|c| *c == normalise_header(text)) else {
            continue;
        };
        if let Some(earlier) = at[wanted] {
            errors.push(
                InputError::new(
                    ErrorKind::Header,
                    name,
                    header_line,
                    format!(
                        "columns {:?} and {text:?} both name the column {}",
                        header[earlier], COLUMNS[wanted]
                    ),
                )
                .column("header"),
            );
        } else {
            at[wanted] = Some(index);
        }
    }
    for (column, found) in COLUMNS.iter().zip(at) {
        if found.is_none() {
            errors.push(
                InputError::new(
                    ErrorKind::Header,
                    name,
                    header_line,
                    format!(
                        "no {column} column: a gradebook's header has submission and score columns"
                    ),
                )
                .column("header"),
            );
        }
    }
    let [Some(submission_at), Some(score_at)] = at else {
        return Err(errors);
    };
    let mut scores = HashMap::new();
    // The line each submission is on, for a second listing's message.
    let mut lines: HashMap<String, u64> = HashMap::new();
    loop {
        let record = match body_record(&mut records, name, header.len(), &mut errors) {
            Ok(BodyRecord::Row(record)) => record,
            Ok(BodyRecord::Ragged(_) | BodyRecord::Skipped) => continue,
            Ok(BodyRecord::End) => break,
            Err(failure) => {
                errors.push(failure.at(name, records.line()));
                break;
            }
        };
        let line = record.line;
        let cell = |index: usize, column: &str, errors: &mut InputErrors| {
            let bytes = record.iter().nth(index).unwrap_or_default();
            match std::str::from_utf8(bytes) {
                Ok(text) => Some(text.to_owned()),
                Err(_) => {
                    errors.push(
                        InputError::new(ErrorKind::Encoding, name, line, "not valid UTF-8")
                            .column(column)
                            .value(String::from_utf8_lossy(bytes)),
                    );
                    None
                }
            }
        };
        // As `grade --gradebook` wrote it: `'=x` is `=x` (`crate::sanitize::report_cell`).
        let submission = cell(submission_at, "submission", &mut errors)
            .map(|text| crate::sanitize::spreadsheet_value(&text).to_owned());
        // A name is kept as written, spaces and all (` ada.csv` is not `ada.csv`); a score
        // may have spaces around it.
        let score = cell(score_at, "score", &mut errors).and_then(|text| {
            let text = text.trim().to_owned();
            if text.is_empty() {
                return Some(None);
            }
            match text.parse::<f64>() {
                Ok(score) if score.is_finite() => Some(Some(score)),
                _ => {
                    errors.push(
                        InputError::new(ErrorKind::Value, name, line, "not a number")
                            .column("score")
                            .value(text),
                    );
                    None
                }
            }
        });
        let Some(submission) = submission else {
            continue;
        };
        if submission.is_empty() {
            errors.push(
                InputError::new(ErrorKind::Value, name, line, "no submission name")
                    .column("submission"),
            );
            continue;
        }
        // A row with a bad score still names its submission: a second row for it is an error.
        if let Some(&earlier) = lines.get(&submission) {
            errors.push(
                InputError::new(
                    ErrorKind::Rule,
                    name,
                    line,
                    format!("duplicated submission: it is already on line {earlier}"),
                )
                .column("submission")
                .value(submission),
            );
            continue;
        }
        lines.insert(submission.clone(), line);
        if let Some(score) = score {
            scores.insert(submission, score);
        }
    }
    if errors.is_empty() {
        Ok(scores)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(text: &str) -> Vec<String> {
        parse_baseline(text.as_bytes(), "old.csv")
            .unwrap_err()
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    #[test]
    fn gradebooks_read_back() {
        let scores = parse_baseline(
            b"\xEF\xBB\xBFSubmission,Score,max_score\r\nalice.csv,3,4\r\n\r\nbob.csv,,4\r\n\"c,d.csv\",2.5,4\r\n",
            "old.csv",
        )
        .unwrap();
        assert_eq!(scores.len(), 3);
        assert_eq!(scores["alice.csv"], Some(3.0));
        assert_eq!(scores["bob.csv"], None);
        assert_eq!(scores["c,d.csv"], Some(2.5));
    }

    #[test]
    fn every_problem_in_a_gradebook_is_listed() {
        // A bad score does not hide that its submission is listed again.
        assert_eq!(
            messages("submission,score\na,x\na,1\nb,2\na,2\n"),
            [
                "old.csv:2: score: not a number (\"x\")",
                "old.csv:3: submission: duplicated submission: it is already on line 2 (\"a\")",
                "old.csv:5: submission: duplicated submission: it is already on line 2 (\"a\")",
            ]
        );
        assert_eq!(
            messages("submission,score\nx,1\ny\nz,1,extra\n,3\nw,inf\nv,\"2\n"),
            [
                "old.csv:3: the row has 1 cells; the header has 2",
                "old.csv:4: the row has 3 cells; the header has 2",
                "old.csv:5: submission: no submission name",
                "old.csv:6: score: not a number (\"inf\")",
                "old.csv:7: unterminated quote: the file ends inside a quoted cell",
            ]
        );
        assert_eq!(
            messages("submission,Score,score\n"),
            ["old.csv:1: header: columns \"Score\" and \"score\" both name the column score"]
        );
        assert_eq!(
            messages("name,points\n"),
            [
                "old.csv:1: header: no submission column: a gradebook's header has submission and score columns",
                "old.csv:1: header: no score column: a gradebook's header has submission and score columns",
            ]
        );
        assert_eq!(messages(""), ["old.csv:1: empty file: no header row"]);
        assert_eq!(
            messages("submission,\"score\n"),
            ["old.csv:1: header: unterminated quote: the file ends inside a quoted cell"]
        );
    }
}
