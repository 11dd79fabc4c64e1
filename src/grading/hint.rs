//! Hints for `grade --feedback hint`: for a case, the case-file lines that decide its correct
//! verdict (the lines `explain` cites, from the same replay), and nothing else — no contract
//! section, no rule's name, no word of a decision or reason code, no quote of the rows (issue
//! 22). A hint is only a file name and line numbers (`Hint`), so its text carries no more
//! than which lines to read again.

use std::collections::HashMap;

use crate::explain::sentence::sentence;
use crate::explain::stream::trace_records;
use crate::explain::CaseTrace;
use crate::input::Source;
use crate::streaming::StreamError;

use super::class::Hint;

/// The line numbers a sentence cites (`line 6`, `lines 8, 10 and 12`), ascending, once each.
pub fn cited_lines(text: &str) -> Vec<u64> {
    let mut lines = Vec::new();
    let mut words = text.split_whitespace().peekable();
    while let Some(word) = words.next() {
        let word = word.trim_start_matches('(');
        if word != "line" && word != "lines" {
            continue;
        }
        while let Some(next) = words.peek() {
            if *next == "and" {
                words.next();
                continue;
            }
            let digits = next.trim_end_matches([',', '.', ';', ')', ':']);
            match digits.parse::<u64>() {
                Ok(n) => {
                    lines.push(n);
                    words.next();
                }
                Err(_) => break,
            }
        }
    }
    lines.sort_unstable();
    lines.dedup();
    lines
}

/// The hint for a case, from its replay: the lines its `explain` sentence cites that are the
/// case's own rows (a sentence's `line 0` for a row it lacks is none), or every row of the
/// case if it cites none, so that no hint is told apart by having no lines.
pub fn hint(trace: &CaseTrace) -> Hint {
    let text = sentence(trace);
    // The sentence starts `DECISION (reason): `; only the rest cites lines.
    let body = text
        .split_once(": ")
        .map_or(text.as_str(), |(_, body)| body);
    let own = |line: &u64| trace.rows.iter().any(|row| row.source.line == *line);
    let mut lines: Vec<u64> = cited_lines(body).into_iter().filter(own).collect();
    if lines.is_empty() {
        lines = trace.rows.iter().map(|row| row.source.line).collect();
        lines.sort_unstable();
        lines.dedup();
    }
    Hint {
        file: trace.file().to_owned(),
        lines,
    }
}

/// The hint of every case of the case files `sources`, by case id (a case in two files: the
/// later's). Each case is replayed as `explain` replays it and only its hint is kept, so this
/// holds the engine's open cases and a hint per case, never every trace at once (a
/// 100,000-case lab's traces took 800 MB; its hints take a few).
pub fn hints_by_case(sources: &[Source]) -> Result<HashMap<String, Hint>, StreamError> {
    hints_by_case_in(sources, crate::streaming::Window::COMMAND)
}

/// [`hints_by_case`], the engine keeping `window` open (and reading a lone CSV file of
/// `window.split_min_bytes` or more as two halves): the same hints whatever the window.
pub fn hints_by_case_in(
    sources: &[Source],
    window: crate::streaming::Window,
) -> Result<HashMap<String, Hint>, StreamError> {
    let records = trace_records(sources, None, window, |trace, out| {
        let hint = hint(trace);
        let record = serde_json::json!([trace.case_id, hint.file, hint.lines]);
        serde_json::to_writer(&mut *out, &record).expect("JSON prints");
        out.push(b'\n');
    })?;
    let mut text = Vec::new();
    records.write_to(&mut text)?;
    let mut hints = HashMap::new();
    for line in text.split(|&b| b == b'\n').filter(|line| !line.is_empty()) {
        let (case_id, file, lines): (String, String, Vec<u64>) =
            serde_json::from_slice(line).map_err(std::io::Error::other)?;
        hints.insert(case_id, Hint { file, lines });
    }
    Ok(hints)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every case through both paths: a lone file read whole, and as two halves on two
    /// threads (when there are two cores), gives the same hints.
    #[test]
    fn hints_read_as_two_halves_are_the_whole_files() {
        let dir = tempfile::tempdir().unwrap();
        for source in crate::split_corpus::files(dir.path()) {
            for window in crate::split_corpus::WINDOWS {
                let hints = |split_min_bytes| {
                    let window = crate::streaming::Window {
                        split_min_bytes,
                        ..window
                    };
                    hints_by_case_in(std::slice::from_ref(&source), window)
                        .map(|hints| {
                            let mut hints: Vec<_> = hints.into_iter().collect();
                            hints.sort_by(|a, b| a.0.cmp(&b.0));
                            hints
                        })
                        .map_err(|e| e.to_string())
                };
                assert_eq!(hints(1), hints(u64::MAX), "{}", source.name);
            }
        }
    }

    #[test]
    fn lines_are_read_from_sentences() {
        assert_eq!(
            cited_lines("generation 8 has been current since line 6 (offer to worker-b); line 8, a renew from generation 7, was rejected; lines 9, 12 and 10."),
            [6, 8, 9, 10, 12]
        );
        assert_eq!(
            cited_lines("the verdict at 2026-01-01T10:00:00Z found"),
            Vec::<u64>::new()
        );
    }

    /// A sentence that cites a row the case lacks (`line 0`) cites none of its rows: the
    /// hint then names every row of the case, not a line that is not there, and is not told
    /// apart by naming none.
    #[test]
    fn a_hint_cites_only_the_cases_own_rows() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.csv");
        std::fs::write(
            &file,
            "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n\
             c,offer,2026-01-01T10:00:00Z,j,L,1,w,30\n\
             c,ack,2026-01-01T10:00:01Z,j,L,1,w,\n",
        )
        .unwrap();
        let mut traces = crate::ops::explain::traces(&[file], None, None, &[]).unwrap();
        let mut trace = traces.remove(0);
        assert_eq!(hint(&trace).lines, [3]);
        // Judged as if cancelled: the sentence's cancel_request is on no line.
        trace.verdict.decision = crate::lease::Decision::ReconciliationRequired;
        trace.verdict.reason = crate::lease::CaseReason::CancelUnacknowledged;
        assert!(sentence(&trace).contains("line 0 requested a cancel"));
        assert_eq!(hint(&trace).lines, [2, 3]);
    }
}
