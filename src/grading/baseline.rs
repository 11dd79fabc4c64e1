//! Reading a previous gradebook (`grade --baseline`): each submission's earlier score.
//!
//! A gradebook is read as strictly as a golden file's structure (spec section 2): by the same
//! record reader and strict record loop (`crate::input::body_record`), a row with more or
//! fewer cells than the header, an unterminated quote, a header naming a column twice, a
//! submission listed twice and a score that is not a number are errors, every one listed and
//! located. It is the comma-separated file `grade --gradebook` writes.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use crate::grading::partitions::{Partitions, Splitter};
use crate::input::records::RecordReader;
use crate::input::ErrorKind;
use crate::input::{
    body_record, header_record, normalise_header, BodyRecord, InputError, InputErrors,
    MAX_LISTED_ERRORS,
};

/// What a previous gradebook says of this class: each submission's score, and the maximum
/// score it was out of.
#[derive(Debug, Default)]
pub struct Baseline {
    /// The scores by submission name (see [`read_baseline`]).
    pub scores: HashMap<String, Option<f64>>,
    /// The distinct numbers of its `max_score` column (a gradebook `grade --gradebook` wrote
    /// has one), in the order first seen, at most [`MAX_SCORES_KEPT`]; empty without the
    /// column. A score out of another maximum (the key or the graded columns changed since)
    /// is compared as it stands, and the report says so.
    pub max_scores: Vec<f64>,
}

/// How many distinct maximum scores a baseline's [`Baseline::max_scores`] keeps (one is
/// usual: a gradebook is one run's).
pub const MAX_SCORES_KEPT: usize = 4;

/// The scores of an old gradebook by submission name (as the gradebook shows it:
/// [`crate::sanitize::escape_controls`] of the name), of the submissions `wanted` names (the
/// class being graded); `None` where the score cell is empty (an ungradable submission).
///
/// It is read a record at a time, never whole: its rows' names go to partitions on disk
/// (`grading::partitions`, as a golden file's case ids do) where a name listed twice is
/// found a partition at a time, and only the scores `wanted` are kept in memory, so a
/// gradebook of any size is read within the same memory (a 60 MB one took 365 MB).
pub fn read_baseline(path: &Path, wanted: &dyn Fn(&str) -> bool) -> Result<Baseline, InputErrors> {
    let name = path.to_string_lossy().into_owned();
    let cannot = |e: std::io::Error| InputErrors::one(InputError::unreadable(&name, 0, e));
    let file = std::fs::File::open(path).map_err(cannot)?;
    // A partition of a gradebook holds an eighth of what one of a matrix does: its rows are
    // short, each name one entry of the map a partition is checked with.
    let size = file.metadata().map_err(cannot)?.len();
    read_scores(
        file,
        &name,
        &Splitter::for_bytes(size.saturating_mul(8)),
        wanted,
    )
}

/// The columns a gradebook is read by.
const COLUMNS: [&str; 2] = ["submission", "score"];

/// A score as a partition keeps it beside its row: `None` (an empty cell) as a bit pattern
/// no finite score has.
const NO_SCORE: u64 = u64::MAX;

/// Reads a gradebook (named `name` in errors): a header with `submission` and `score` columns
/// (named in any case; others ignored), then one row per submission; the scores of the
/// submissions `wanted` names are returned. Its rows are split by `splitter` (a partition at
/// a time is held to find a name listed twice).
fn read_scores(
    reader: impl Read,
    name: &str,
    splitter: &Splitter,
    wanted: &dyn Fn(&str) -> bool,
) -> Result<Baseline, InputErrors> {
    let mut records = RecordReader::new(reader, true);
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
    let at = find_columns(&header, name, header_line, &mut errors);
    let [Some(submission_at), Some(score_at)] = at else {
        return Err(errors);
    };
    // Optional: a gradebook of another tool may not have it.
    let max_at = header
        .iter()
        .position(|text| normalise_header(text) == "max_score");
    let mut max_scores: Vec<f64> = Vec::new();
    // Every named row, by name, to find a name listed twice once all are read.
    let mut named = Partitions::new(splitter);
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
        // Only to be said beside the scores: a cell that is no number is not an error.
        let max_score = max_at
            .and_then(|index| record.iter().nth(index))
            .and_then(|bytes| std::str::from_utf8(bytes).ok())
            .and_then(|text| text.trim().parse::<f64>().ok())
            .filter(|max| max.is_finite());
        if let Some(max) = max_score {
            if max_scores.len() < MAX_SCORES_KEPT && !max_scores.contains(&max) {
                max_scores.push(max);
            }
        }
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
        let kept = score.flatten().map_or(NO_SCORE, f64::to_bits);
        named.push(&submission, line, kept, &[]);
    }
    let (scores, duplicates) = scores_and_duplicates(&named, name, wanted).map_err(|e| {
        InputErrors::one(InputError::new(
            ErrorKind::Temp,
            name,
            0,
            format!("cannot keep the file in temporary files: {e}"),
        ))
    })?;
    errors.merge_by_line(duplicates);
    if errors.is_empty() {
        Ok(Baseline { scores, max_scores })
    } else {
        Err(errors)
    }
}

/// Where each of [`COLUMNS`] is in a gradebook's `header` (on `header_line`): a column named
/// twice or not at all is an error of the header.
fn find_columns(
    header: &[String],
    name: &str,
    header_line: u64,
    errors: &mut InputErrors,
) -> [Option<usize>; 2] {
    let header_error = |message: String| {
        InputError::new(ErrorKind::Header, name, header_line, message).column("header")
    };
    // Where each of `COLUMNS` is in the header.
    let mut at: [Option<usize>; 2] = [None; 2];
    for (index, text) in header.iter().enumerate() {
        let Some(wanted) = COLUMNS.iter().position(|c| *c == normalise_header(text)) else {
            continue;
        };
        if let Some(earlier) = at[wanted] {
            errors.push(header_error(format!(
                "columns {:?} and {text:?} both name the column {}",
                header[earlier], COLUMNS[wanted]
            )));
        } else {
            at[wanted] = Some(index);
        }
    }
    for (column, found) in COLUMNS.iter().zip(at) {
        if found.is_none() {
            errors.push(header_error(format!(
                "no {column} column: a gradebook's header has submission and score columns"
            )));
        }
    }
    at
}

/// A partition at a time: the scores of the submissions `wanted` names, and each row that
/// names a submission an earlier row names (the first [`MAX_LISTED_ERRORS`] by line, the
/// rest counted).
fn scores_and_duplicates(
    named: &Partitions,
    name: &str,
    wanted: &dyn Fn(&str) -> bool,
) -> std::io::Result<(HashMap<String, Option<f64>>, InputErrors)> {
    let mut scores = HashMap::new();
    let mut found: Vec<InputError> = Vec::new();
    let mut unlisted = 0u64;
    for part in 0..named.parts() {
        // The line each submission of the partition is first on.
        let mut lines: HashMap<String, u64> = HashMap::new();
        named.read(part, &mut |row| {
            if let Some(&earlier) = lines.get(row.case_id) {
                found.push(
                    InputError::new(
                        ErrorKind::Rule,
                        name,
                        row.line,
                        format!("duplicated submission: it is already on line {earlier}"),
                    )
                    .column("submission")
                    .value(row.case_id),
                );
                // Only the first by line are listed: the others are counted.
                if found.len() >= 2 * MAX_LISTED_ERRORS {
                    found.sort_by_key(|e| e.line);
                    unlisted += (found.len() - MAX_LISTED_ERRORS) as u64;
                    found.truncate(MAX_LISTED_ERRORS);
                }
                return Ok(());
            }
            lines.insert(row.case_id.to_owned(), row.line);
            if wanted(row.case_id) {
                let score = (row.tag != NO_SCORE).then(|| f64::from_bits(row.tag));
                scores.insert(row.case_id.to_owned(), score);
            }
            Ok(())
        })?;
    }
    found.sort_by_key(|e| e.line);
    let mut duplicates = InputErrors::new();
    for error in found {
        duplicates.push(error);
    }
    duplicates.count_unlisted(unlisted);
    Ok((scores, duplicates))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A gradebook's bytes (named `name` in errors) read, every submission's score kept.
    fn parse_baseline(
        bytes: &[u8],
        name: &str,
    ) -> Result<HashMap<String, Option<f64>>, InputErrors> {
        read_scores(bytes, name, &Splitter::with_parts(1), &|_| true).map(|b| b.scores)
    }

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
        let read = |text: &str| {
            read_scores(
                text.as_bytes(),
                "old.csv",
                &Splitter::with_parts(1),
                &|_| true,
            )
            .unwrap()
            .max_scores
        };
        assert_eq!(
            read("submission,score,max_score\na,1,4\nb,,4\nc,2, 6 \n"),
            [4.0, 6.0]
        );
        assert_eq!(
            read("submission,score\na,1\n"),
            [] as [f64; 0],
            "no column, none known"
        );
        assert_eq!(
            read("submission,score,Max Score\na,1,x\nb,1,\n"),
            [] as [f64; 0]
        );
    }

    #[test]
    fn a_gradebook_split_many_ways_keeps_the_wanted_scores_and_finds_every_name_twice() {
        let mut text = String::from("submission,score\n");
        for n in 0..2000 {
            text.push_str(&format!("s{n}.csv,{}\n", n % 5));
        }
        text.push_str("s7.csv,1\ns1999.csv,2\ns3.csv,\n");
        let read = |wanted: &dyn Fn(&str) -> bool| {
            read_scores(
                text.as_bytes(),
                "old.csv",
                &Splitter::with_parts(16),
                wanted,
            )
        };
        let messages: Vec<String> = read(&|_| true)
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            messages,
            [
                "old.csv:2002: submission: duplicated submission: it is already on line 9 (\"s7.csv\")",
                "old.csv:2003: submission: duplicated submission: it is already on line 2001 (\"s1999.csv\")",
                "old.csv:2004: submission: duplicated submission: it is already on line 5 (\"s3.csv\")",
            ]
        );
        let text = text.lines().take(2001).collect::<Vec<_>>().join("\n");
        let scores = read_scores(
            text.as_bytes(),
            "old.csv",
            &Splitter::with_parts(16),
            &|name| name == "s7.csv" || name == "s10.csv" || name == "absent.csv",
        )
        .unwrap()
        .scores;
        assert_eq!(scores.len(), 2, "only the wanted are kept");
        assert_eq!(scores["s7.csv"], Some(2.0));
        assert_eq!(scores["s10.csv"], Some(0.0));
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
