//! `explain` in bounded memory for the formats written one case at a time (text and JSON),
//! on the streaming engine: each case's trace is made from its rows when the engine closes
//! it ([`stream_cases`]), in order of first appearance, as [`TraceCollector`](super::TraceCollector)
//! writes them, so the bytes are the same. A case that comes back after it was closed is
//! rebuilt from its own lines by the engine and its trace written again in place of the
//! first: nothing is held but the engine's open cases, and the run is never redone. The
//! traces stay in the engine's temporary files until the whole input is known to be good,
//! so bad input anywhere still leaves no output.

use std::collections::HashSet;
use std::io;

use crate::input::{InputError, InputErrors, InputFormat, Source};
use crate::lease::Timestamp;
use crate::output::AppendFile;
use crate::streaming::{
    stream_cases, CaseWriter, Encoding, KeptRow, StreamError, StreamSettings, DEFAULT_OPEN_CASES,
};

use super::{CaseTrace, Format, SourcedRow};

/// How many cases may be open (rows kept, not yet written) before the oldest is written:
/// the engine's.
pub const OPEN_CASES: usize = DEFAULT_OPEN_CASES;

/// Writes each selected case's trace, as a case after the first (the first one's leading
/// separator is left out when the records are copied).
struct Traces {
    format: Format,
    run_as_of: Option<Timestamp>,
    /// The cases asked for; none: every case.
    wanted: Vec<String>,
}

impl CaseWriter for Traces {
    fn write_case(
        &mut self,
        _file_index: usize,
        file: &str,
        case_id: &str,
        rows: &[KeptRow],
        out: &mut Vec<u8>,
    ) -> io::Result<bool> {
        if !(self.wanted.is_empty() || self.wanted.iter().any(|w| w == case_id)) {
            return Ok(false);
        }
        let rows = rows
            .iter()
            .map(|kept| SourcedRow {
                file: file.to_owned(),
                line: kept.line,
                row: kept.row.clone(),
            })
            .collect();
        match CaseTrace::replay(case_id, rows, self.run_as_of) {
            Ok(Some(trace)) => {
                out.extend_from_slice(self.format.case(1, &trace).as_bytes());
                Ok(true)
            }
            Ok(None) => Ok(false),
            Err(refused) => {
                // The engine has already refused such input; this is a safety net.
                let (row, fault) = *refused;
                Err(io::Error::other(format!(
                    "{}:{}: {}: {fault}",
                    row.file,
                    row.line,
                    fault.column()
                )))
            }
        }
    }
}

/// Writes the `format` (text or JSON) explanation of the cases `wanted` names (every case
/// when empty; each must be in the inputs) to `out`, holding no more than the streaming
/// engine's open cases.
pub fn explain_streaming(
    sources: &[Source],
    input_format: Option<InputFormat>,
    run_as_of: Option<Timestamp>,
    format: Format,
    wanted: &[String],
    out: &mut impl AppendFile,
) -> anyhow::Result<()> {
    assert!(
        matches!(format, Format::Text | Format::Json),
        "written case by case"
    );
    let mut found: HashSet<&str> = HashSet::new();
    let settings = StreamSettings {
        input_format,
        run_as_of,
        open_cases: DEFAULT_OPEN_CASES,
        encoding: Encoding::Csv,
        jobs: 1,
        progress: None,
        rows_observed: true,
        split_min_bytes: u64::MAX,
    };
    let traces = Traces {
        format,
        run_as_of,
        wanted: wanted.to_vec(),
    };
    let records = stream_cases(sources, &settings, Box::new(traces), &mut |_, parsed, _| {
        if let Some(w) = wanted.iter().find(|w| **w == *parsed.case_id) {
            found.insert(w.as_str());
        }
    });
    let records = match records {
        Ok(records) => records,
        Err(StreamError::Input(errors)) => return Err(errors.into()),
        Err(StreamError::Io(e)) => return Err(e.into()),
    };
    let unknown: Vec<InputError> = wanted
        .iter()
        .filter(|id| !found.contains(id.as_str()))
        .map(|id| {
            InputError::new("command line", 0, "no case with this id in the inputs")
                .column("--case")
                .value(id.clone())
        })
        .collect();
    if !unknown.is_empty() {
        return Err(InputErrors(unknown).into());
    }
    let count = records.count() as usize;
    out.write_all(format.start(count).as_bytes())?;
    records.write_to(out, 1)?;
    out.write_all(format.end(count).as_bytes())?;
    Ok(())
}
