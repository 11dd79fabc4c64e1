//! `explain` (and `adjudicate --explain`'s `detail` column) on the streaming engine: each
//! case's trace is made from its rows when the engine closes it, through a [`CaseWriter`], in
//! order of first appearance. Text, JSON and the matrix with its sentences are written a case
//! at a time in bounded memory: a case that comes back after it was closed is rebuilt from
//! its own lines by the engine and its record written again in place of the first. HTML and
//! Mermaid number their cases and stop at `--limit`, so every case of a file stays open to its
//! end ([`EVERY_CASE`]) and each is written once, in order. The records stay in the engine's
//! temporary files until the whole input is known to be good, so bad input anywhere still
//! leaves no output.

use std::collections::HashSet;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use serde_json::Value;

use crate::input::{InputError, InputErrors, InputFormat, Source};
use crate::lease::Timestamp;
use crate::output::AppendFile;
use crate::streaming::{
    judge, CaseRecords, CaseWriter, Encoding, KeptRow, Sink, StreamError, StreamSettings, Window,
    EVERY_CASE,
};

use super::{CaseTrace, Format, SourcedRow};

/// Replays a case's kept rows (every row that replayed, in file order) into its trace.
fn trace_of(
    file: &str,
    case_id: &str,
    rows: &[KeptRow],
    run_as_of: Option<Timestamp>,
) -> io::Result<Option<CaseTrace>> {
    let rows = rows
        .iter()
        .map(|kept| SourcedRow {
            file: file.to_owned(),
            line: kept.line,
            row: kept.row.clone(),
        })
        .collect();
    CaseTrace::replay(case_id, rows, run_as_of).map_err(|refused| {
        // The engine has already refused such input; this is a safety net.
        let (row, fault) = *refused;
        io::Error::other(format!(
            "{}:{}: {}: {fault}",
            row.file,
            row.line,
            fault.column()
        ))
    })
}

fn selected(wanted: &[String], id: &str) -> bool {
    wanted.is_empty() || wanted.iter().any(|w| w == id)
}

/// Writes each selected case's trace in `format`.
struct Traces {
    format: Format,
    run_as_of: Option<Timestamp>,
    /// The cases asked for; none: every case.
    wanted: Vec<String>,
    /// How the cases are numbered: `None` writes each as a case after the first (text and
    /// JSON, whose first record's leading separator is left out when the records are
    /// copied); otherwise the number of cases selected so far (HTML, Mermaid), of which at
    /// most `limit` are written.
    numbered: Option<Numbered>,
}

/// The numbering of the cases of a page: the cases selected so far, and how many are shown.
struct Numbered {
    selected: Arc<AtomicUsize>,
    limit: Option<usize>,
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
        if !selected(&self.wanted, case_id) {
            return Ok(false);
        }
        let index = match &self.numbered {
            None => 1,
            Some(numbered) => {
                let index = numbered.selected.fetch_add(1, Ordering::Relaxed);
                if numbered.limit.is_some_and(|limit| index >= limit) {
                    return Ok(false);
                }
                index
            }
        };
        match trace_of(file, case_id, rows, self.run_as_of)? {
            Some(trace) => {
                out.extend_from_slice(self.format.case(index, &trace).as_bytes());
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn separator_len(&self) -> u64 {
        match (self.numbered.is_some(), self.format) {
            (false, Format::Text | Format::Json) => 1,
            _ => 0,
        }
    }
}

/// The explanation [`explain_streaming`] made, in temporary files until it is written.
pub struct Explanation {
    format: Format,
    records: CaseRecords,
    /// The cases shown.
    pub shown: usize,
    /// The cases selected (more than `shown` when `--limit` left some out).
    pub selected: usize,
}

impl Explanation {
    /// Writes it to `out`: what comes before the first case, the note saying how many cases
    /// were left out (if any were), every case, and what comes after the last.
    pub fn write_to(self, out: &mut impl AppendFile) -> anyhow::Result<()> {
        let Explanation {
            format,
            records,
            shown,
            selected,
        } = self;
        // A page's write errors have always said what was being written; a trace's not.
        let paged = matches!(format, Format::Html | Format::Mermaid);
        let written = |result: io::Result<()>| match paged {
            true => result.context("cannot write the explanation"),
            false => Ok(result?),
        };
        written(out.write_all(format.start(shown).as_bytes()))?;
        if shown < selected {
            written(out.write_all(format.omitted(shown, selected - shown).as_bytes()))?;
        }
        written(records.write_to(out))?;
        written(out.write_all(format.end(shown).as_bytes()))
    }
}

/// Judges `sources` and makes the `format` explanation of the cases `wanted` names (every
/// case when empty; each must be in the inputs). HTML and Mermaid show, without `wanted`,
/// only the first `limit` cases (0: every case), with a note saying how many were left out.
/// Text and JSON keep `window` open (rows kept, not yet written) before the oldest case is
/// written (the command's is [`Window::COMMAND`]); pages keep every case open.
pub fn explain_streaming(
    sources: &[Source],
    input_format: Option<InputFormat>,
    run_as_of: Option<Timestamp>,
    (format, limit): (Format, usize),
    wanted: &[String],
    window: Window,
) -> anyhow::Result<Explanation> {
    let paged = matches!(format, Format::Html | Format::Mermaid);
    let selected = Arc::new(AtomicUsize::new(0));
    let traces = Traces {
        format,
        run_as_of,
        wanted: wanted.to_vec(),
        numbered: paged.then(|| Numbered {
            selected: Arc::clone(&selected),
            limit: (wanted.is_empty() && limit > 0).then_some(limit),
        }),
    };
    let settings = settings(input_format, run_as_of, (!paged).then_some(window));
    let mut found: HashSet<&str> = HashSet::new();
    let records = judge(
        sources,
        &settings,
        Sink::Cases(Box::new(traces)),
        &mut |_, parsed, _| {
            if let Some(w) = wanted.iter().find(|w| **w == *parsed.case_id) {
                found.insert(w.as_str());
            }
        },
    );
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
        return Err(InputErrors::from(unknown).into());
    }
    let shown = records.count() as usize;
    let selected = match paged {
        true => selected.load(Ordering::Relaxed),
        false => shown,
    };
    Ok(Explanation {
        format,
        records,
        shown,
        selected,
    })
}

/// The engine's settings for a one-thread run in file order, keeping `window` open; without
/// one, every case of a file stays open to its end.
fn settings(
    input_format: Option<InputFormat>,
    run_as_of: Option<Timestamp>,
    window: Option<Window>,
) -> StreamSettings<'static> {
    StreamSettings {
        input_format,
        run_as_of,
        open_cases: window.map_or(EVERY_CASE, |window| window.open_cases),
        kept_rows: window.map_or(crate::streaming::DEFAULT_KEPT_ROWS, |window| {
            window.kept_rows
        }),
        ..StreamSettings::in_file_order()
    }
}

/// Keeps each selected case's trace (writing no record).
struct Kept {
    run_as_of: Option<Timestamp>,
    traces: Arc<Mutex<Vec<CaseTrace>>>,
}

impl CaseWriter for Kept {
    fn write_case(
        &mut self,
        _file_index: usize,
        file: &str,
        case_id: &str,
        rows: &[KeptRow],
        _out: &mut Vec<u8>,
    ) -> io::Result<bool> {
        if let Some(trace) = trace_of(file, case_id, rows, self.run_as_of)? {
            self.traces
                .lock()
                .map_err(|_| io::Error::other("a trace was kept by a thread that panicked"))?
                .push(trace);
        }
        Ok(false)
    }
}

/// Every case's trace of `sources`, in order of first appearance (all held at once: for
/// callers that need them together).
pub fn every_trace(
    sources: &[Source],
    input_format: Option<InputFormat>,
    run_as_of: Option<Timestamp>,
) -> Result<Vec<CaseTrace>, StreamError> {
    let traces = Arc::new(Mutex::new(Vec::new()));
    let kept = Kept {
        run_as_of,
        traces: Arc::clone(&traces),
    };
    // Every case open to the end of its file: each is closed, and kept, once, in order.
    let settings = settings(input_format, run_as_of, None);
    judge(
        sources,
        &settings,
        Sink::Cases(Box::new(kept)),
        &mut |_, _, _| {},
    )?;
    let traces = std::mem::take(
        &mut *traces
            .lock()
            .map_err(|_| io::Error::other("a trace was kept by a thread that panicked"))?,
    );
    Ok(traces)
}

/// Makes a record of each case's trace with `record` (a small thing: a trace is replayed when
/// its case closes, handed over, and dropped).
struct TraceRecords<F> {
    run_as_of: Option<Timestamp>,
    record: F,
}

impl<F: FnMut(&CaseTrace, &mut Vec<u8>) + Send> CaseWriter for TraceRecords<F> {
    fn write_case(
        &mut self,
        _file_index: usize,
        file: &str,
        case_id: &str,
        rows: &[KeptRow],
        out: &mut Vec<u8>,
    ) -> io::Result<bool> {
        let Some(trace) = trace_of(file, case_id, rows, self.run_as_of)? else {
            return Ok(false);
        };
        (self.record)(&trace, out);
        Ok(!out.is_empty())
    }
}

/// Judges `sources` and writes, for each case, the record `record` makes of its trace, in
/// order of first appearance (a case that comes back is replayed whole again and its record
/// takes the place of the first): what every trace says, in the memory of the engine's open
/// cases rather than of every trace ([`every_trace`]). `record` must write something.
pub fn trace_records(
    sources: &[Source],
    run_as_of: Option<Timestamp>,
    record: impl FnMut(&CaseTrace, &mut Vec<u8>) + Send + 'static,
) -> Result<CaseRecords, StreamError> {
    let writer = TraceRecords { run_as_of, record };
    judge(
        sources,
        &settings(None, run_as_of, Some(Window::COMMAND)),
        Sink::Cases(Box::new(writer)),
        &mut |_, _, _| {},
    )
}

/// Writes each case's matrix row with its sentence in a `detail` column after the matrix's
/// (`adjudicate --explain`), as CSV rows or JSON objects (each after a comma).
pub struct DetailedRows {
    /// How the rows are written.
    pub encoding: Encoding,
    /// The run's `--as-of`.
    pub run_as_of: Option<Timestamp>,
    /// The extra column's name.
    pub column: &'static str,
}

impl CaseWriter for DetailedRows {
    fn write_case(
        &mut self,
        _file_index: usize,
        file: &str,
        case_id: &str,
        rows: &[KeptRow],
        out: &mut Vec<u8>,
    ) -> io::Result<bool> {
        let Some(trace) = trace_of(file, case_id, rows, self.run_as_of)? else {
            return Ok(false);
        };
        let sentence = trace.sentence();
        match self.encoding {
            Encoding::Csv => {
                let mut writer = csv::WriterBuilder::new()
                    .terminator(csv::Terminator::Any(b'\n'))
                    .from_writer(&mut *out);
                writer.write_record(
                    trace
                        .matrix
                        .cells()
                        .iter()
                        .chain([&sentence])
                        .map(|cell| crate::output::spreadsheet_cell(cell).into_owned()),
                )?;
                writer.flush()?;
            }
            Encoding::Json => {
                let mut object = trace.matrix.to_json();
                object.insert(self.column.to_owned(), Value::String(sentence));
                out.extend_from_slice(b",\n");
                serde_json::to_writer(&mut *out, &object)?;
            }
        }
        Ok(true)
    }

    fn separator_len(&self) -> u64 {
        u64::from(self.encoding == Encoding::Json)
    }
}
