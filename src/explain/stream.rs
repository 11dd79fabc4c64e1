//! `explain` in bounded memory for the formats written one case at a time (text and JSON):
//! rows come from the streaming engine's `on_row`, a window of open cases keeps their rows,
//! and the oldest case is replayed and written as soon as more than [`OPEN_CASES`] are open.
//!
//! Cases are written in order of first appearance, as [`TraceCollector`] writes them, so the
//! bytes are the same. A case that comes back after it was written (more than [`OPEN_CASES`]
//! other cases began in between) cannot be written again: the run is then redone with every
//! case kept ([`TraceCollector`]), as the engine once did for adjudication. The traces go to
//! a temporary file first, so bad input anywhere still leaves no output.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};

use crate::input::{InputError, InputErrors, InputFormat, Source};
use crate::lease::Timestamp;
use crate::streaming::{adjudicate_streaming, Encoding, StreamError, StreamSettings};

use super::{CaseTrace, Format, SourcedRow, TraceCollector};

/// How many cases may be open (rows kept, not yet written) before the oldest is written.
pub const OPEN_CASES: usize = 4096;

fn id_key(id: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    id.hash(&mut hasher);
    hasher.finish()
}

/// The window of open cases and what has been written.
struct Window<'a> {
    format: Format,
    run_as_of: Option<Timestamp>,
    keep: &'a dyn Fn(&str) -> bool,
    /// Open cases, oldest first; `index` maps an id to its place counted from `base`.
    open: VecDeque<(String, Vec<SourcedRow>)>,
    index: HashMap<String, u64>,
    base: u64,
    /// [`id_key`] of every written case: a row whose id is here may be a case coming back.
    written: HashSet<u64>,
    /// Cases written so far (those `keep` selects).
    count: usize,
    out: BufWriter<std::fs::File>,
    /// A written case came back, or writing failed: the run must be redone.
    came_back: bool,
    failure: Option<anyhow::Error>,
}

impl Window<'_> {
    fn add(&mut self, file: &str, line: u64, case_id: &str, row: &crate::lease::Row) {
        // A case not selected is never written, so it may come back as it likes.
        if self.came_back || self.failure.is_some() || !(self.keep)(case_id) {
            return;
        }
        let place = match self.index.get(case_id) {
            Some(&seq) => (seq - self.base) as usize,
            None => {
                if self.written.contains(&id_key(case_id)) {
                    self.came_back = true;
                    return;
                }
                if self.open.len() == OPEN_CASES {
                    self.close_oldest();
                }
                self.index
                    .insert(case_id.to_owned(), self.base + self.open.len() as u64);
                self.open.push_back((case_id.to_owned(), Vec::new()));
                self.open.len() - 1
            }
        };
        self.open[place].1.push(SourcedRow {
            file: file.to_owned(),
            line,
            row: row.clone(),
        });
    }

    fn close_oldest(&mut self) {
        let Some((case_id, rows)) = self.open.pop_front() else {
            return;
        };
        self.base += 1;
        self.index.remove(&case_id);
        self.written.insert(id_key(&case_id));
        if self.failure.is_some() {
            return;
        }
        let written = match CaseTrace::replay(&case_id, rows, self.run_as_of) {
            Ok(Some(trace)) => {
                let text = self.format.case(self.count, &trace);
                self.count += 1;
                self.out.write_all(text.as_bytes()).map_err(Into::into)
            }
            Ok(None) => Ok(()),
            Err(refused) => {
                // Adjudication has already refused such input; this is a safety net.
                let (row, fault) = *refused;
                Err(anyhow::anyhow!(
                    "{}:{}: {}: {fault}",
                    row.file,
                    row.line,
                    fault.column()
                ))
            }
        };
        if let Err(e) = written {
            self.failure = Some(e);
        }
    }
}

/// Writes the `format` (text or JSON) explanation of the cases `keep` selects to `out`,
/// keeping at most [`OPEN_CASES`] cases' rows in memory (standard input is first copied to a
/// temporary file). `wanted` are the ids asked for by name (each must be in the inputs).
pub fn explain_streaming(
    sources: &[Source],
    input_format: Option<InputFormat>,
    run_as_of: Option<Timestamp>,
    format: Format,
    wanted: &[String],
    keep: &dyn Fn(&str) -> bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    assert!(
        matches!(format, Format::Text | Format::Json),
        "written case by case"
    );
    // Read twice if a case comes back: standard input is kept in a file.
    let (readable, _spools) = crate::input::spool_standard_input(sources)?;
    let sources = &readable[..];
    let spill = tempfile::tempfile()?;
    let mut window = Window {
        format,
        run_as_of,
        keep,
        open: VecDeque::new(),
        index: HashMap::new(),
        base: 0,
        written: HashSet::new(),
        count: 0,
        out: BufWriter::with_capacity(1 << 16, spill),
        came_back: false,
        failure: None,
    };
    let mut found: HashSet<&str> = HashSet::new();
    let settings = StreamSettings {
        input_format,
        run_as_of,
        open_cases: crate::streaming::DEFAULT_OPEN_CASES,
        encoding: Encoding::Csv,
        jobs: 1,
        progress: None,
        // Rows must arrive in file order.
        rows_observed: true,
        split_min_bytes: u64::MAX,
    };
    let judged = adjudicate_streaming(sources, &settings, &mut io::sink(), &mut |at, parsed, _| {
        if let Some(w) = wanted.iter().find(|w| **w == *parsed.case_id) {
            found.insert(w.as_str());
        }
        window.add(at.file, at.line, &parsed.case_id, &parsed.row);
    });
    match judged {
        Ok(()) => {}
        Err(StreamError::Input(errors)) => return Err(errors.into()),
        Err(StreamError::Io(e)) => return Err(e.into()),
    }
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
    if window.came_back {
        return explain_whole(sources, input_format, run_as_of, format, keep, out);
    }
    while !window.open.is_empty() {
        window.close_oldest();
    }
    if let Some(failure) = window.failure {
        return Err(failure);
    }
    let count = window.count;
    let mut spill = window.out.into_inner().map_err(|e| e.into_error())?;
    spill.seek(SeekFrom::Start(0))?;
    out.write_all(format.start(count).as_bytes())?;
    io::copy(&mut spill, out)?;
    out.write_all(format.end(count).as_bytes())?;
    Ok(())
}

/// The explanation with every case kept until the end, for a run in which a case came back.
fn explain_whole(
    sources: &[Source],
    input_format: Option<InputFormat>,
    run_as_of: Option<Timestamp>,
    format: Format,
    keep: &dyn Fn(&str) -> bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let mut collector = TraceCollector::new();
    crate::adjudication::judge_sources(sources, input_format, run_as_of, &mut |at, row, _| {
        collector.add(at, row)
    })?;
    let count = collector.count(keep);
    out.write_all(format.start(count).as_bytes())?;
    let mut index = 0;
    collector.replay_each(run_as_of, keep, &mut |trace| {
        out.write_all(format.case(index, &trace).as_bytes())?;
        index += 1;
        Ok(())
    })?;
    out.write_all(format.end(count).as_bytes())?;
    Ok(())
}
