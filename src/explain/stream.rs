//! `explain` (and `adjudicate --explain`'s `detail` column) on the streaming engine: each
//! case's trace is made from its rows when the engine closes it, through a [`CaseWriter`], in
//! order of first appearance. Text, JSON and the matrix with its sentences are written a case
//! at a time in bounded memory: a case that comes back after it was closed is rebuilt from
//! its own lines by the engine and its record written again in place of the first. A page
//! of the first `--limit` cases (or of the `--case` ids) numbers them as their first rows are
//! read, so a case that comes back keeps its number (an HTML page of every case keeps an id
//! and a number for each, not its rows), and only the engine's window stays open. A
//! case of more rows than it keeps in memory is written as its rows are replayed from the
//! engine's temporary file, a row at a time ([`TracedRows`]). The records stay in the engine's
//! temporary files until the whole input is known to be good, so bad input anywhere still
//! leaves no output.

use std::collections::{HashMap, HashSet};
use std::io;
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex};

use anyhow::Context;

use crate::input::{ErrorKind, InputError, InputErrors, InputFormat, Source};
use crate::lease::{Case, CaseFault, Timestamp};
use crate::matrix::{MatrixEncoding, MatrixRow};
use crate::store::AppendFile;
use crate::store::Put;
use crate::streaming::{
    judge, CaseRecords, CaseWriter, KeptRow, KeptRows, RecordOut, Sink, StreamError,
    StreamSettings, Window, EVERY_CASE,
};

use super::sentence::sentence_of;
use super::witness::{of_spilled, of_trace, Search, Witness};
use super::{CaseTrace, Format, SourcedRow, State, Summary, TracedRow, TracedRows, VisitRow};

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
        let (row, fault) = *refused;
        refused_row(&row.file, row.line, &fault)
    })
}

/// A row the core refused on a replay (the engine has already refused such input; this is a
/// safety net).
fn refused_row(file: &str, line: u64, fault: &CaseFault) -> io::Error {
    io::Error::other(format!("{file}:{line}: {}: {fault}", fault.column()))
}

/// [`trace_of`] kept rows, read back first if they were written out.
fn trace_of_kept(
    file: &str,
    case_id: &str,
    rows: &KeptRows,
    run_as_of: Option<Timestamp>,
) -> io::Result<Option<CaseTrace>> {
    match rows.as_slice() {
        Some(rows) => trace_of(file, case_id, rows, run_as_of),
        None => trace_of(file, case_id, &rows.to_vec()?, run_as_of),
    }
}

/// A case's kept rows, written out to a temporary file, replayed again into traced rows at
/// each pass: the rows of a case too long to hold, seen one at a time.
struct Replayed<'a> {
    file: &'a str,
    rows: &'a KeptRows,
}

impl TracedRows for Replayed<'_> {
    fn len(&self) -> usize {
        self.rows.len()
    }

    fn visit(&self, visit: VisitRow<'_>) -> io::Result<()> {
        let mut case: Option<Case> = None;
        let mut index = 0;
        self.rows.visit(&mut |kept| {
            let fault = |fault: CaseFault| refused_row(self.file, kept.line, &fault);
            let outcome = match &mut case {
                None => {
                    let (started, outcome) = Case::start(&kept.row).map_err(fault)?;
                    case = Some(started);
                    outcome
                }
                Some(case) => case.step(&kept.row).map_err(fault)?,
            };
            let traced = TracedRow {
                after: State::of(case.as_ref().expect("started above")),
                source: SourcedRow {
                    file: self.file.to_owned(),
                    line: kept.line,
                    row: kept.row.clone(),
                },
                outcome,
            };
            let flow = visit(index, &traced)?;
            index += 1;
            Ok(flow)
        })
    }
}

/// What a case's trace says besides its rows, from one replay of its kept rows (none: it
/// has none).
fn summary_of(
    file: &str,
    case_id: &str,
    rows: &KeptRows,
    run_as_of: Option<Timestamp>,
) -> io::Result<Option<Summary>> {
    let mut case: Option<Case> = None;
    let mut last_observed_at = None;
    rows.visit(&mut |kept| {
        let fault = |fault: CaseFault| refused_row(file, kept.line, &fault);
        match &mut case {
            None => case = Some(Case::start(&kept.row).map_err(fault)?.0),
            Some(case) => {
                case.step(&kept.row).map_err(fault)?;
            }
        }
        last_observed_at = Some(kept.row.observed_at);
        Ok(ControlFlow::Continue(()))
    })?;
    let (Some(case), Some(last_observed_at)) = (case, last_observed_at) else {
        return Ok(None);
    };
    let verdict = case.verdict(run_as_of);
    Ok(Some(Summary {
        case_id: case_id.to_owned(),
        job_id: case.job_id().to_owned(),
        file: file.to_owned(),
        rows: rows.len(),
        matrix: MatrixRow::new(case_id, &case, &verdict),
        last: State::of(&case),
        last_observed_at,
        verdict,
        witness: None,
    }))
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
    /// copied, and a Mermaid document of every case, which numbers none); otherwise by first
    /// appearance, as their first rows are read (HTML, and Mermaid with `--limit` or
    /// `--case`), so that a case that comes back after the engine's window let it go keeps
    /// its number, and the window bounds the cases kept.
    numbered: Option<Arc<Mutex<FirstSeen>>>,
    /// How far each case's witness is searched for; `None`: no witness.
    witness: Option<Search>,
}

/// The cases a page shows, numbered in order of first appearance as their first rows are
/// read (at most `room` of them: memory is that of the page's cases), and how many cases
/// were selected in all (each counted once, however many times it was written).
struct FirstSeen {
    /// Each shown case's number and whether it was counted among the selected.
    numbers: HashMap<String, (usize, bool)>,
    room: usize,
    selected: usize,
}

impl FirstSeen {
    /// Notes a row of case `case_id`: a case selected and not yet numbered is given the next
    /// number while there is room.
    fn saw(&mut self, wanted: &[String], case_id: &str) {
        if self.numbers.len() < self.room
            && !self.numbers.contains_key(case_id)
            && selected(wanted, case_id)
        {
            let number = self.numbers.len();
            self.numbers.insert(case_id.to_owned(), (number, false));
        }
    }

    /// The number of selected case `case_id` as it is written, if it is shown, counting it
    /// among the selected the first time. A case not shown is written once: the engine asks
    /// again only for a case whose record was written.
    fn number(&mut self, case_id: &str) -> Option<usize> {
        match self.numbers.get_mut(case_id) {
            Some((number, counted)) => {
                let number = *number;
                if !*counted {
                    *counted = true;
                    self.selected += 1;
                }
                Some(number)
            }
            None => {
                self.selected += 1;
                None
            }
        }
    }
}

/// What a lock of a page's numbering gives when another thread panicked holding it.
fn poisoned<T>(_: T) -> io::Error {
    io::Error::other("the page's numbering was held by a thread that panicked")
}

impl CaseWriter for Traces {
    fn write_case(
        &mut self,
        _file_index: usize,
        file: &str,
        case_id: &str,
        rows: &KeptRows,
        out: &mut RecordOut<'_>,
    ) -> io::Result<bool> {
        if !selected(&self.wanted, case_id) {
            return Ok(false);
        }
        let index = match &self.numbered {
            None => 1,
            Some(first_seen) => match first_seen.lock().map_err(poisoned)?.number(case_id) {
                Some(index) => index,
                None => return Ok(false),
            },
        };
        if rows.is_spilled() {
            // Too long to hold: written as it is replayed, a row at a time.
            let Some(mut summary) = summary_of(file, case_id, rows, self.run_as_of)? else {
                return Ok(false);
            };
            let replayed = Replayed { file, rows };
            if let Some(search) = self.witness {
                let judged = (&summary.verdict, summary.last_observed_at);
                summary.witness =
                    Some(of_spilled(&replayed, rows, judged, self.run_as_of, search)?);
            }
            let sentence = sentence_of(&summary.verdict, &replayed)?;
            match self.format {
                Format::Text => {
                    super::text::write_case(out, index, &summary, &replayed, &sentence)?
                }
                Format::Mermaid => super::mermaid::write_case(out, &summary, &replayed, &sentence)?,
                Format::Html => {
                    super::html::write_case(out, index, &summary, &replayed, &sentence)?
                }
                Format::Json => {
                    super::json_write::write_case(out, index, &summary, &replayed, &sentence)?
                }
            }
            return Ok(true);
        }
        match trace_of_kept(file, case_id, rows, self.run_as_of)? {
            Some(mut trace) => {
                if let Some(search) = self.witness {
                    trace.witness = Some(of_trace(&trace, self.run_as_of, search));
                }
                match self.format {
                    Format::Json => super::json_write::write_trace(out, index, &trace)?,
                    _ => out.put_raw(self.format.case(index, &trace).as_bytes()),
                }
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

    /// Unnumbered, a case's record is made from its rows alone; a page numbers its cases
    /// in order of first appearance, as their rows are read in order.
    fn fork(&self) -> Option<Box<dyn CaseWriter + Send>> {
        match self.numbered {
            Some(_) => None,
            None => Some(Box::new(Traces {
                format: self.format,
                run_as_of: self.run_as_of,
                wanted: self.wanted.clone(),
                numbered: None,
                witness: self.witness,
            })),
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

/// An error for each id `wanted` names that is not in the inputs (`found` says which are),
/// located on the command line; `Ok` when there is none.
pub(crate) fn unknown_cases(
    wanted: &[String],
    found: impl Fn(&str) -> bool,
) -> Result<(), InputErrors> {
    let unknown: Vec<InputError> = wanted
        .iter()
        .filter(|id| !found(id))
        .map(|id| {
            InputError::new(
                ErrorKind::Missing,
                "command line",
                0,
                "no case with this id in the inputs",
            )
            .column("--case")
            .value(id.clone())
        })
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(InputErrors::from(unknown))
    }
}

/// Judges `sources` and makes the `format` explanation of the cases `wanted` names (every
/// case when empty; each must be in the inputs). HTML and Mermaid show, without `wanted`,
/// only the first `limit` cases (0: every case), with a note saying how many were left out.
/// The run keeps `window` open (the command's is [`Window::COMMAND`]): its cases and their
/// rows before the oldest case is written, and a case's rows in memory before the rest go to
/// a temporary file (a long case is written as it is replayed from there, to the same bytes);
/// only an HTML page of every case keeps every case open. With `witness` (the command's is
/// [`Search::COMMAND`]), each case also shows its minimal witness ([`super::witness`]), the
/// same whatever the window.
pub fn explain_streaming(
    sources: &[Source],
    input_format: Option<InputFormat>,
    run_as_of: Option<Timestamp>,
    (format, limit): (Format, usize),
    wanted: &[String],
    window: Window,
    witness: Option<Search>,
) -> anyhow::Result<Explanation> {
    let paged = matches!(format, Format::Html | Format::Mermaid);
    // A page numbers its cases as their first rows are read, so that only the engine's
    // window stays open: a case that comes back keeps its number. An HTML page of every case
    // numbers every case so (an id and a number kept for each, not its rows); a Mermaid
    // document of every case numbers none.
    let room = match (wanted.is_empty(), limit) {
        (true, 0) if format == Format::Html => Some(usize::MAX),
        (true, 0) => None,
        (true, limit) => Some(limit),
        (false, _) => Some(wanted.len()),
    };
    let first_seen = room.filter(|_| paged).map(|room| {
        Arc::new(Mutex::new(FirstSeen {
            numbers: HashMap::new(),
            room,
            selected: 0,
        }))
    });
    let traces = Traces {
        format,
        run_as_of,
        wanted: wanted.to_vec(),
        numbered: first_seen.as_ref().map(Arc::clone),
        witness,
    };
    let settings = StreamSettings {
        // The ids asked for are looked for, and a page's cases numbered, as rows are read.
        rows_observed: !wanted.is_empty() || first_seen.is_some(),
        ..settings(input_format, run_as_of, Some(window))
    };
    let mut found: HashSet<&str> = HashSet::new();
    let mut numbering_failed = false;
    let records = judge(
        sources,
        &settings,
        Sink::Cases(Box::new(traces)),
        &mut |_, parsed, _| {
            if let Some(w) = wanted.iter().find(|w| **w == *parsed.case_id) {
                found.insert(w.as_str());
            }
            if let Some(first_seen) = &first_seen {
                match first_seen.lock() {
                    Ok(mut first_seen) => first_seen.saw(wanted, &parsed.case_id),
                    Err(_) => numbering_failed = true,
                }
            }
        },
    );
    if numbering_failed {
        return Err(poisoned(()).into());
    }
    let records = match records {
        Ok(records) => records,
        Err(StreamError::Input(errors)) => return Err(errors.into()),
        Err(StreamError::Io(e)) => return Err(e.into()),
    };
    unknown_cases(wanted, |id| found.contains(id))?;
    let shown = records.count() as usize;
    let selected = match &first_seen {
        Some(first_seen) => first_seen.lock().map_err(poisoned)?.selected,
        None => shown,
    };
    Ok(Explanation {
        format,
        records,
        shown,
        selected,
    })
}

/// The engine's settings for a run keeping `window` open (a lone large CSV file read as two
/// halves when the writer can be forked, else parsed on a second core); without one, every
/// case of a file stays open to its end, read in file order.
fn settings(
    input_format: Option<InputFormat>,
    run_as_of: Option<Timestamp>,
    window: Option<Window>,
) -> StreamSettings<'static> {
    let base = match window {
        Some(window) => StreamSettings::for_records(window),
        None => StreamSettings {
            open_cases: EVERY_CASE,
            ..StreamSettings::in_file_order_on(crate::streaming::default_jobs())
        },
    };
    StreamSettings {
        input_format,
        run_as_of,
        ..base
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
        rows: &KeptRows,
        _out: &mut RecordOut<'_>,
    ) -> io::Result<bool> {
        if let Some(trace) = trace_of_kept(file, case_id, rows, self.run_as_of)? {
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

impl<F: FnMut(&CaseTrace, &mut Vec<u8>) + Send + Clone + 'static> CaseWriter for TraceRecords<F> {
    fn write_case(
        &mut self,
        _file_index: usize,
        file: &str,
        case_id: &str,
        rows: &KeptRows,
        out: &mut RecordOut<'_>,
    ) -> io::Result<bool> {
        let Some(trace) = trace_of_kept(file, case_id, rows, self.run_as_of)? else {
            return Ok(false);
        };
        let mut record = Vec::new();
        (self.record)(&trace, &mut record);
        out.put_raw(&record);
        Ok(!out.is_empty())
    }

    /// `record` is a copy: a record is made from the case's trace alone.
    fn fork(&self) -> Option<Box<dyn CaseWriter + Send>> {
        Some(Box::new(TraceRecords {
            run_as_of: self.run_as_of,
            record: self.record.clone(),
        }))
    }
}

/// Judges `sources` and writes, for each case, the record `record` makes of its trace, in
/// order of first appearance (a case that comes back is replayed whole again and its record
/// takes the place of the first): what every trace says, in the memory of the engine's open
/// cases rather than of every trace ([`every_trace`]). `record` must write something.
pub fn trace_records(
    sources: &[Source],
    run_as_of: Option<Timestamp>,
    window: Window,
    record: impl FnMut(&CaseTrace, &mut Vec<u8>) + Send + Clone + 'static,
) -> Result<CaseRecords, StreamError> {
    let writer = TraceRecords { run_as_of, record };
    judge(
        sources,
        &settings(None, run_as_of, Some(window)),
        Sink::Cases(Box::new(writer)),
        &mut |_, _, _| {},
    )
}

/// Writes each case's matrix row with its sentence in a `detail` column after the matrix's
/// (`adjudicate --explain`), as CSV rows or JSON objects (each after a comma); with `witness`,
/// two more: the witness's lines (`9;10;12`, ascending) and whether it is minimal
/// (`adjudicate --explain --witness`, [`WITNESS_COLUMNS`]).
pub struct DetailedRows {
    /// How the rows are written.
    pub encoding: &'static dyn MatrixEncoding,
    /// The run's `--as-of`.
    pub run_as_of: Option<Timestamp>,
    /// The extra column's name.
    pub column: &'static str,
    /// How far each case's witness is searched for; `None`: no witness columns.
    pub witness: Option<Search>,
}

/// The names of the columns `adjudicate --explain --witness` adds after `detail`: the
/// witness's lines, and whether it is minimal (`true`, or `false` when its search stopped at
/// its budget).
pub const WITNESS_COLUMNS: [&str; 2] = ["witness", "witness_minimal"];

/// A witness's cells: its lines, `;`-joined, and whether it is minimal.
fn witness_cells(
    witness: &Witness,
    rows: &dyn TracedRows,
) -> io::Result<[(&'static str, String); 2]> {
    let mut lines = String::new();
    rows.visit(&mut |index, row| {
        if witness.contains(index) {
            if !lines.is_empty() {
                lines.push(';');
            }
            lines.push_str(&row.source.line.to_string());
        }
        Ok(ControlFlow::Continue(()))
    })?;
    let [lines_column, minimal_column] = WITNESS_COLUMNS;
    Ok([
        (lines_column, lines),
        (minimal_column, witness.minimal.to_string()),
    ])
}

impl CaseWriter for DetailedRows {
    fn write_case(
        &mut self,
        _file_index: usize,
        file: &str,
        case_id: &str,
        rows: &KeptRows,
        out: &mut RecordOut<'_>,
    ) -> io::Result<bool> {
        let mut cells = Vec::with_capacity(3);
        let matrix = match rows.as_slice() {
            Some(rows) => {
                let Some(trace) = trace_of(file, case_id, rows, self.run_as_of)? else {
                    return Ok(false);
                };
                cells.push((self.column, trace.sentence()));
                if let Some(search) = self.witness {
                    let witness = of_trace(&trace, self.run_as_of, search);
                    cells.extend(witness_cells(&witness, &trace.rows)?);
                }
                trace.matrix
            }
            // Too long to hold: replayed a pass at a time.
            None => {
                let Some(summary) = summary_of(file, case_id, rows, self.run_as_of)? else {
                    return Ok(false);
                };
                let replayed = Replayed { file, rows };
                cells.push((self.column, sentence_of(&summary.verdict, &replayed)?));
                if let Some(search) = self.witness {
                    let judged = (&summary.verdict, summary.last_observed_at);
                    let witness = of_spilled(&replayed, rows, judged, self.run_as_of, search)?;
                    cells.extend(witness_cells(&witness, &replayed)?);
                }
                summary.matrix
            }
        };
        out.put_raw(self.encoding.separator());
        self.encoding.write_row(out, &matrix, &cells)?;
        Ok(true)
    }

    fn separator_len(&self) -> u64 {
        self.encoding.separator().len() as u64
    }

    /// A case's row is made from its rows alone.
    fn fork(&self) -> Option<Box<dyn CaseWriter + Send>> {
        Some(Box::new(DetailedRows { ..*self }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every case through both paths: a lone file read whole, and as two halves on two
    /// threads (when there are two cores), gives the same rows with their sentences and
    /// witnesses (`adjudicate --explain --witness`), as CSV and as JSON.
    #[test]
    fn detailed_rows_read_as_two_halves_are_the_whole_files() {
        let dir = tempfile::tempdir().unwrap();
        let encodings: [&'static dyn MatrixEncoding; 2] =
            [&crate::matrix::CsvMatrix, &crate::matrix::JsonMatrix];
        for source in crate::split_corpus::files(dir.path()) {
            for window in crate::split_corpus::WINDOWS {
                for encoding in encodings {
                    let rows = |split_min_bytes| {
                        let writer = DetailedRows {
                            encoding,
                            run_as_of: None,
                            column: "detail",
                            witness: Some(Search::COMMAND),
                        };
                        let settings = StreamSettings::for_records(Window {
                            split_min_bytes,
                            ..window
                        });
                        let sources = std::slice::from_ref(&source);
                        match judge(
                            sources,
                            &settings,
                            Sink::Cases(Box::new(writer)),
                            &mut |_, _, _| {},
                        ) {
                            Ok(records) => {
                                let mut out = Vec::new();
                                records.write_to(&mut out).unwrap();
                                Ok(out)
                            }
                            Err(e) => Err(e.to_string()),
                        }
                    };
                    assert!(rows(1) == rows(u64::MAX), "{}", source.name);
                }
            }
        }
    }
}
