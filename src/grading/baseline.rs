//! Reading a previous gradebook (`grade --baseline`): each submission's earlier score.

use std::collections::HashMap;
use std::path::Path;

use crate::input::{InputError, InputErrors};

/// The scores of an old gradebook by submission name; `None` where the score cell is empty
/// (an ungradable submission).
pub fn read_baseline(path: &Path) -> Result<HashMap<String, Option<f64>>, InputErrors> {
    let name = path.to_string_lossy().into_owned();
    let bytes = std::fs::read(path)
        .map_err(|e| InputErrors(vec![InputError::new(&name, 0, format!("cannot read: {e}"))]))?;
    parse_baseline(&bytes, &name)
}

/// Parses a gradebook's bytes (named `name` in errors): a header with `submission` and
/// `score` columns, then one line per submission.
pub fn parse_baseline(
    bytes: &[u8],
    name: &str,
) -> Result<HashMap<String, Option<f64>>, InputErrors> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(body);
    let mut errors = Vec::new();
    let header = match reader.headers() {
        Ok(header) => header.clone(),
        Err(e) => {
            let line = e.position().map_or(1, |p| p.line());
            return Err(InputErrors(vec![InputError::new(
                name,
                line,
                format!("unreadable CSV: {e}"),
            )]));
        }
    };
    let find = |wanted: &str| {
        header
            .iter()
            .position(|h| h.trim().eq_ignore_ascii_case(wanted))
    };
    let (Some(submission_at), Some(score_at)) = (find("submission"), find("score")) else {
        return Err(InputErrors(vec![InputError::new(
            name,
            1,
            "a gradebook's header has submission and score columns",
        )
        .column("header")]));
    };
    let mut scores = HashMap::new();
    for record in reader.records() {
        let record = match record {
            Ok(record) => record,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                errors.push(InputError::new(name, line, format!("unreadable CSV: {e}")));
                continue;
            }
        };
        let line = record.position().map_or(0, |p| p.line());
        let submission = record.get(submission_at).unwrap_or_default().trim();
        if submission.is_empty() {
            errors.push(InputError::new(name, line, "no submission name").column("submission"));
            continue;
        }
        let cell = record.get(score_at).unwrap_or_default().trim();
        let score = if cell.is_empty() {
            None
        } else {
            match cell.parse::<f64>() {
                Ok(score) if score.is_finite() => Some(score),
                _ => {
                    errors.push(
                        InputError::new(name, line, "not a number")
                            .column("score")
                            .value(cell),
                    );
                    continue;
                }
            }
        };
        if scores.insert(submission.to_owned(), score).is_some() {
            errors.push(
                InputError::new(name, line, "this submission is listed twice")
                    .column("submission")
                    .value(submission),
            );
        }
    }
    if errors.is_empty() {
        Ok(scores)
    } else {
        Err(InputErrors(errors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gradebooks_read_back() {
        let scores = parse_baseline(
            b"submission,score,max_score\nalice.csv,3,4\nbob.csv,,4\n",
            "old.csv",
        )
        .unwrap();
        assert_eq!(scores["alice.csv"], Some(3.0));
        assert_eq!(scores["bob.csv"], None);
        let errors = parse_baseline(b"submission,score\na,x\na,1\na,2\n", "old.csv").unwrap_err();
        let messages: Vec<String> = errors.0.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            messages,
            [
                "old.csv:2: score: not a number (\"x\")",
                "old.csv:4: submission: this submission is listed twice (\"a\")"
            ]
        );
        assert!(parse_baseline(b"name,points\n", "old.csv").is_err());
    }
}
