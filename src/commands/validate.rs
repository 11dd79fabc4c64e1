//! `leasejudge validate`: checks case files without judging them for output: every input error
//! located (exit 2), plus warnings a case author wants to see (exit 0 if there are only those).

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};

use crate::adjudication::{Adjudication, Location};
use crate::input::{
    expand_inputs, read_source_observed, Field, InputError, InputFormat, ParsedRow, RawCells,
    ReadArgs, ReadObserver, OUTPUT_ONLY_COLUMNS,
};
use crate::lease::{Case, Decision, Event, Phase, Row};

/// Check case files: every input error, and warnings about what a case author likely did
/// not mean.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Warnings: a file with no case rows; columns that are ignored; fields given on events that do not use them; a case that \
ends before any deadline passed (so its decision says nothing about expiry); a case that never \
leaves PENDING_ACK.

Exit status: 0 no input errors (warnings may be listed); 2 bad input or usage (every problem is \
listed as FILE:LINE: column: message (value)).")]
pub struct Args {
    /// Case files (CSV, JSON, NDJSON or a workbook by extension), directories (every case file in them, in
    /// name order), or `-` for standard input.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Read every input as this format, whatever its extension.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormat>,

    /// List at most N warnings (the first N, in file order); every warning is still counted
    /// in the summary by kind. The exit code does not depend on warnings.
    #[arg(long, value_name = "N")]
    pub max_warnings: Option<usize>,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub read: ReadArgs,
}

/// The kinds of warning, in the order the summary lists them.
/// Each is its name, its plural, and what its message says.
const WARNING_KINDS: [(&str, &str, &str); 5] = [
    ("ignored column", "ignored columns", "ignored"),
    (
        "field its event does not use",
        "fields their events do not use",
        "which does not use it",
    ),
    (
        "case never acknowledged",
        "cases never acknowledged",
        "never leaves PENDING_ACK",
    ),
    (
        "case ending before a deadline",
        "cases ending before a deadline",
        "before any deadline could be judged",
    ),
    (
        "file without case rows",
        "files without case rows",
        "holds no case rows",
    ),
];

/// The kind of a warning, by the message [`validate`] gives it.
fn warning_kind(warning: &InputError) -> usize {
    WARNING_KINDS
        .iter()
        .position(|(_, _, mark)| warning.message.contains(mark))
        .unwrap_or(WARNING_KINDS.len())
}

/// A warning: like an [`InputError`] but it does not stop anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// Which input on the command line (for ordering).
    pub file_index: usize,
    /// Where: `FILE:LINE: column: message (value)`, as an input error would be written.
    pub at: InputError,
}

/// Whether `event` uses `field` (spec section 2's "used by" column). Fields every row may
/// carry (`case_id`, `event`, `observed_at`, `job_id`) are used by all.
pub fn event_uses(event: Event, field: Field) -> bool {
    let identity = event == Event::Offer || event.is_worker_message();
    match field {
        Field::CaseId | Field::Event | Field::ObservedAt | Field::JobId => true,
        Field::LeaseId | Field::Generation | Field::Holder => identity,
        Field::IssuedAt | Field::LeaseDuration | Field::ExpiresAt | Field::AckDeadline => {
            event == Event::Offer
        }
        Field::RenewSeq => event == Event::Renew,
        Field::ProgressSeq | Field::ProgressValue => event == Event::Progress,
        Field::Result => event == Event::Result,
        Field::SentAt => event.is_worker_message(),
    }
}

/// Collects the reader-level warnings of one file.
struct FileObserver<'a> {
    file_index: usize,
    file: &'a str,
    ignored_seen: Vec<String>,
    warnings: &'a mut Warnings,
}

impl ReadObserver for FileObserver<'_> {
    fn ignored_column(&mut self, line: u64, name: &str) {
        if self.ignored_seen.iter().any(|seen| seen == name) {
            return;
        }
        self.ignored_seen.push(name.to_owned());
        let normalised = crate::input::normalise_header(name);
        let message = if OUTPUT_ONLY_COLUMNS.contains(&normalised.as_str()) {
            "an output-only matrix column: ignored on input"
        } else if normalised.is_empty() {
            "a column with no name: ignored"
        } else {
            "names no case-file field: ignored"
        };
        self.warnings.push(
            Warning {
                file_index: self.file_index,
                at: InputError::new(self.file, line, message).column(name.trim()),
            },
            0,
        );
    }

    fn cells(&mut self, line: u64, cells: &RawCells<'_>) {
        let Some(event) = cells[Field::Event as usize].and_then(|e| Event::parse(e.trim())) else {
            return;
        };
        for field in Field::ALL {
            let Some(value) = cells[field as usize] else {
                continue;
            };
            if value.trim().is_empty() || event_uses(event, field) {
                continue;
            }
            let at = InputError::new(
                self.file,
                line,
                format!(
                    "given on a{} {event} row, which does not use it",
                    article(event)
                ),
            )
            .column(field.name())
            .value(value.trim());
            self.warnings.push(
                Warning {
                    file_index: self.file_index,
                    at,
                },
                0,
            );
        }
    }
}

fn article(event: Event) -> &'static str {
    match event {
        Event::Offer | Event::Ack | Event::Observe => "n",
        _ => "",
    }
}

/// One case's rows as read, for the case-level warnings.
struct CaseRows {
    file_index: usize,
    file: String,
    lines: Vec<u64>,
    rows: Vec<Row>,
}

/// The case-level warnings of a case that replays without input errors.
fn case_warnings(case_id: &str, rows: &CaseRows) -> Vec<Warning> {
    let mut warnings = Vec::new();
    let Ok(Some((case, outcomes))) = crate::lease::replay(&rows.rows) else {
        return warnings;
    };
    let first_line = rows.lines[0];
    let last_line = *rows.lines.last().expect("a case has a row");
    let warn = |line: u64, message: String| Warning {
        file_index: rows.file_index,
        at: InputError::new(&rows.file, line, message)
            .column("case_id")
            .value(case_id),
    };

    // Never leaves PENDING_ACK: the decision is PENDING_ACK after every row.
    let verdict = case.verdict(None);
    if always_pending(&rows.rows) {
        warnings.push(warn(
            first_line,
            format!(
                "the case never leaves PENDING_ACK: no ack was accepted and it ends at {}, \
                 before the ack deadline {}",
                case.last_observed_at(),
                verdict.lease.offer.terms.ack_deadline
            ),
        ));
        return warnings;
    }

    // Ends before any deadline could be judged: no deadline passed at any row, and the case
    // ends ACTIVE while its expiry is still ahead, so the decision says nothing about whether
    // the holder kept its lease alive. (Other decisions do not wait on a deadline.)
    let any_deadline_passed = outcomes.iter().any(|o| o.clock.is_some()) || verdict.clock.is_some();
    let judged_on_a_deadline = matches!(verdict.decision, Decision::Active | Decision::PendingAck);
    if !any_deadline_passed && judged_on_a_deadline {
        let (which, deadline) = match verdict.lease.phase {
            Phase::Offered => ("ack_deadline", verdict.lease.offer.terms.ack_deadline),
            _ => ("expires_at", verdict.lease.expires_at),
        };
        warnings.push(warn(
            last_line,
            format!(
                "the case ends at {} before any deadline could be judged (next: {which} \
                 {deadline}), so its decision {} says nothing about expiry",
                case.last_observed_at(),
                verdict.decision
            ),
        ));
    }
    warnings
}

/// Whether the case's decision, judged after each of its rows, is always `PENDING_ACK`.
fn always_pending(rows: &[Row]) -> bool {
    let Some((first, rest)) = rows.split_first() else {
        return false;
    };
    let Ok((mut case, _)) = Case::start(first) else {
        return false;
    };
    let pending = |case: &Case| case.verdict(None).decision == Decision::PendingAck;
    if !pending(&case) {
        return false;
    }
    for row in rest {
        if case.step(row).is_err() || !pending(&case) {
            return false;
        }
    }
    true
}

/// Everything `validate` found.
#[derive(Debug, Default)]
pub struct Report {
    /// Input errors, in file and line order.
    pub errors: Vec<InputError>,
    /// Warnings: all counted, the first `--max-warnings` listed in file and line order.
    pub warnings: Warnings,
    /// Cases read.
    pub cases: usize,
    /// Rows read (valid or not).
    pub rows: usize,
}

/// Validates the sources: every input error and every warning (the first `max_warnings`
/// listed, every one counted), with every case's rows in memory: the plain statement of
/// what `validate` reports, which [`validate_streaming`] (what the command runs) is tested
/// against.
pub fn validate(
    sources: &[crate::input::Source],
    input_format: Option<InputFormat>,
    max_warnings: Option<usize>,
) -> Report {
    let mut adjudication = Adjudication::new();
    let mut errors = Vec::new();
    let mut warnings = Warnings::new(max_warnings.unwrap_or(usize::MAX));
    let mut case_rows: Vec<(String, CaseRows)> = Vec::new();
    let mut case_index: HashMap<String, usize> = HashMap::new();
    let mut row_count = 0usize;
    for (file_index, source) in sources.iter().enumerate() {
        let mut file_errors = Vec::new();
        let rows_before = row_count;
        let mut observer = FileObserver {
            file_index,
            file: &source.name,
            ignored_seen: Vec::new(),
            warnings: &mut warnings,
        };
        read_source_observed(
            source,
            input_format,
            &mut file_errors,
            &mut |line, row| {
                row_count += 1;
                let at = Location {
                    file_index,
                    file: &source.name,
                    line,
                };
                adjudication.feed(at, &row);
                if let Ok(ParsedRow { case_id, row }) = row {
                    let index = *case_index.entry(case_id.to_string()).or_insert_with(|| {
                        case_rows.push((
                            case_id.to_string(),
                            CaseRows {
                                file_index,
                                file: source.name.clone(),
                                lines: Vec::new(),
                                rows: Vec::new(),
                            },
                        ));
                        case_rows.len() - 1
                    });
                    let entry = &mut case_rows[index].1;
                    if entry.file_index == file_index {
                        entry.lines.push(line);
                        entry.rows.push(row);
                    }
                }
            },
            &mut observer,
        );
        file_errors.extend(adjudication.take_errors());
        file_errors.sort_by_key(|e| e.line);
        if file_errors.is_empty() && row_count == rows_before {
            warnings.push(
                Warning {
                    file_index,
                    at: InputError::new(&source.name, 0, "holds no case rows"),
                },
                0,
            );
        }
        errors.extend(file_errors);
    }
    let cases = case_rows.len();
    if errors.is_empty() {
        for (case_id, rows) in &case_rows {
            for warning in case_warnings(case_id, rows) {
                warnings.push(warning, 1);
            }
        }
    }
    Report {
        errors,
        warnings,
        cases,
        rows: row_count,
    }
}

/// Runs `validate`.
pub fn run(args: &Args) -> Result<ExitCode> {
    if args.inputs.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        bail!("standard input (-) can be read only once");
    }
    let sources = args.read.apply(expand_inputs(&args.inputs)?);
    let progress = crate::terminal::spinner("validate", &sources);
    let report = validate_streaming(&sources, args.input_format, args.max_warnings);
    if let Some(progress) = progress {
        progress.finish_and_clear();
    }
    let report = report?;
    let mut stderr = std::io::stderr().lock();
    for error in &report.errors {
        writeln!(stderr, "{error}")?;
    }
    let shown = report.warnings.listed_count();
    for warning in report.warnings.listed()? {
        writeln!(stderr, "warning: {}", warning?)?;
    }
    if shown < report.warnings.total() {
        writeln!(
            stderr,
            "warning: {} more not listed (--max-warnings {shown})",
            report.warnings.total() - shown
        )?;
    }
    if !report.warnings.is_empty() {
        writeln!(stderr, "warnings by kind: {}", report.warnings.by_kind())?;
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let summary = format!(
        "{}, {}: {}, {}",
        plural(report.cases, "case"),
        plural(report.rows, "row"),
        plural(report.errors.len(), "input error"),
        plural(report.warnings.total(), "warning"),
    );
    if report.errors.is_empty() {
        // Through Output, which knows a closed standard output: then this is an error.
        let mut stdout = crate::output::Output::open(None)?;
        writeln!(stdout, "{summary}")?;
        stdout.commit()?;
        Ok(ExitCode::SUCCESS)
    } else {
        writeln!(stderr, "{summary}")?;
        Ok(ExitCode::from(2))
    }
}

/// How many warnings [`Warnings`] holds before it sorts them into a run on disk.
const WARNINGS_PER_RUN: usize = 8192;

/// How many runs [`Warnings`] keeps before merging them into one (a bound on open files).
const RUNS_BEFORE_MERGE: usize = 64;

/// A warning's place in the listing: file, line, then which pass found it (the reader's
/// warnings before the cases'), then the order it was found in, as a stable sort of the
/// reader's warnings followed by the cases' would put them.
type WarningKey = (u64, u64, u8, u64);

/// The warnings of a run: every one counted (in total and by kind), the first
/// N (the limit) in file and line order kept for listing, the rest dropped. Warnings
/// come in any order (a case's when it closes); they are sorted in runs of
/// `WARNINGS_PER_RUN` spilled to temporary files and merged when listed, so memory stays
/// bounded whatever their number (an external merge sort).
#[derive(Debug)]
pub struct Warnings {
    limit: usize,
    total: usize,
    by_kind: [usize; WARNING_KINDS.len() + 1],
    next_seq: u64,
    pending: Vec<(WarningKey, Box<str>)>,
    runs: Vec<std::fs::File>,
    /// A temporary file that could not be written: reported when the warnings are listed.
    failed: Option<std::io::Error>,
}

impl Default for Warnings {
    fn default() -> Warnings {
        Warnings::new(usize::MAX)
    }
}

impl Warnings {
    /// No warnings yet; the first `limit` will be listed.
    pub fn new(limit: usize) -> Warnings {
        Warnings {
            limit,
            total: 0,
            by_kind: [0; WARNING_KINDS.len() + 1],
            next_seq: 0,
            pending: Vec::new(),
            runs: Vec::new(),
            failed: None,
        }
    }

    /// How many warnings there are.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// How many are listed: at most the limit.
    pub fn listed_count(&self) -> usize {
        self.total.min(self.limit)
    }

    /// Adds a warning found by pass `phase` (0 the reader, 1 the cases).
    fn push(&mut self, warning: Warning, phase: u8) {
        self.total += 1;
        self.by_kind[warning_kind(&warning.at)] += 1;
        if self.limit == 0 || self.failed.is_some() {
            return;
        }
        let key = (
            warning.file_index as u64,
            warning.at.line,
            phase,
            self.next_seq,
        );
        self.next_seq += 1;
        self.pending
            .push((key, warning.at.to_string().into_boxed_str()));
        if self.pending.len() >= WARNINGS_PER_RUN {
            self.pending.sort_unstable_by_key(|(key, _)| *key);
            self.pending.truncate(self.limit);
            // Under the limit, what is kept stays small: no run is needed.
            if self.pending.len() > WARNINGS_PER_RUN / 2 {
                if let Err(e) = self.spill() {
                    self.failed = Some(e);
                }
            }
        }
    }

    /// Writes the pending warnings (sorted) as a run.
    fn spill(&mut self) -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(tempfile::tempfile()?);
        for (key, text) in self.pending.drain(..) {
            write_entry(&mut out, key, &text)?;
        }
        self.runs
            .push(out.into_inner().map_err(|e| e.into_error())?);
        if self.runs.len() >= RUNS_BEFORE_MERGE {
            let mut merged = std::io::BufWriter::new(tempfile::tempfile()?);
            for entry in merge_runs(&self.runs, Vec::new())?.take(self.limit) {
                let (key, text) = entry?;
                write_entry(&mut merged, key, &text)?;
            }
            self.runs = vec![merged.into_inner().map_err(|e| e.into_error())?];
        }
        Ok(())
    }

    /// Adds every warning of `other` (its keys, counts and runs).
    fn absorb(&mut self, other: Warnings) -> std::io::Result<()> {
        if let Some(e) = other.failed {
            return Err(e);
        }
        self.total += other.total;
        for (mine, theirs) in self.by_kind.iter_mut().zip(other.by_kind) {
            *mine += theirs;
        }
        let mut pending = other.pending;
        pending.sort_unstable_by_key(|(key, _)| *key);
        pending.truncate(self.limit);
        if !pending.is_empty() {
            let mut out = std::io::BufWriter::new(tempfile::tempfile()?);
            for (key, text) in pending {
                write_entry(&mut out, key, &text)?;
            }
            self.runs
                .push(out.into_inner().map_err(|e| e.into_error())?);
        }
        self.runs.extend(other.runs);
        Ok(())
    }

    /// The listed warnings (`FILE:LINE: column: message (value)`), in file and line order.
    pub fn listed(&self) -> std::io::Result<impl Iterator<Item = std::io::Result<String>> + '_> {
        if let Some(e) = &self.failed {
            return Err(std::io::Error::new(e.kind(), e.to_string()));
        }
        let mut pending: Vec<_> = self
            .pending
            .iter()
            .map(|(k, t)| (*k, t.to_string()))
            .collect();
        pending.sort_unstable_by_key(|(key, _)| *key);
        Ok(merge_runs(&self.runs, pending)?
            .take(self.limit)
            .map(|entry| entry.map(|(_, text)| text)))
    }

    /// `N kind, M kind, ...`, in `WARNING_KINDS` order.
    pub fn by_kind(&self) -> String {
        self.by_kind
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(kind, &n)| {
                let (one, many, _) = WARNING_KINDS
                    .get(kind)
                    .copied()
                    .unwrap_or(("other", "others", ""));
                format!("{n} {}", if n == 1 { one } else { many })
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn write_entry(out: &mut impl Write, key: WarningKey, text: &str) -> std::io::Result<()> {
    out.write_all(&key.0.to_le_bytes())?;
    out.write_all(&key.1.to_le_bytes())?;
    out.write_all(&[key.2])?;
    out.write_all(&key.3.to_le_bytes())?;
    out.write_all(&(text.len() as u64).to_le_bytes())?;
    out.write_all(text.as_bytes())
}

/// The next entry of a run, or `None` at its end.
fn read_entry(input: &mut impl std::io::Read) -> std::io::Result<Option<(WarningKey, String)>> {
    let mut word = [0u8; 8];
    match input.read_exact(&mut word) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let file = u64::from_le_bytes(word);
    input.read_exact(&mut word)?;
    let line = u64::from_le_bytes(word);
    let mut phase = [0u8; 1];
    input.read_exact(&mut phase)?;
    input.read_exact(&mut word)?;
    let seq = u64::from_le_bytes(word);
    input.read_exact(&mut word)?;
    let mut text = vec![0u8; u64::from_le_bytes(word) as usize];
    input.read_exact(&mut text)?;
    let text = String::from_utf8(text).map_err(std::io::Error::other)?;
    Ok(Some(((file, line, phase[0], seq), text)))
}

/// The entries of sorted `runs` and sorted `extra`, merged in key order.
fn merge_runs<'a>(
    runs: &'a [std::fs::File],
    extra: Vec<(WarningKey, String)>,
) -> std::io::Result<impl Iterator<Item = std::io::Result<(WarningKey, String)>> + 'a> {
    use std::cmp::Reverse;
    use std::io::{Seek, SeekFrom};
    let mut readers = Vec::with_capacity(runs.len());
    let mut heap = std::collections::BinaryHeap::new();
    for (index, mut file) in runs.iter().enumerate() {
        file.seek(SeekFrom::Start(0))?;
        let mut reader = std::io::BufReader::with_capacity(1 << 13, file);
        if let Some((key, text)) = read_entry(&mut reader)? {
            heap.push(Reverse((key, index, text)));
        }
        readers.push(reader);
    }
    let mut extra = extra.into_iter();
    let extra_index = runs.len();
    if let Some((key, text)) = extra.next() {
        heap.push(Reverse((key, extra_index, text)));
    }
    Ok(std::iter::from_fn(move || {
        let Reverse((key, index, text)) = heap.pop()?;
        let next = if index == extra_index {
            Ok(extra.next())
        } else {
            read_entry(&mut readers[index])
        };
        match next {
            Ok(Some((key, text))) => heap.push(Reverse((key, index, text))),
            Ok(None) => {}
            Err(e) => {
                heap.clear();
                return Some(Err(e));
            }
        }
        Some(Ok((key, text)))
    }))
}

/// How many cases' rows [`validate_streaming`] keeps (those of the engine's open cases)
/// before the oldest case's warnings are worked out and its rows let go.
pub const OPEN_CASES: usize = crate::streaming::DEFAULT_OPEN_CASES;

/// Writes each case's warnings as a record for the engine: a count byte, the case's input
/// and id, then each warning's line and message ([`read_case_warnings`] reads it back). A
/// record is written for every case, with no warnings too, so that a case that comes back
/// has a record to replace.
struct CaseWarnings;

impl crate::streaming::CaseWriter for CaseWarnings {
    fn write_case(
        &mut self,
        file_index: usize,
        file: &str,
        case_id: &str,
        rows: &[crate::streaming::KeptRow],
        out: &mut Vec<u8>,
    ) -> std::io::Result<bool> {
        let rows = CaseRows {
            file_index,
            file: file.to_owned(),
            lines: rows.iter().map(|kept| kept.line).collect(),
            rows: rows.iter().map(|kept| kept.row.clone()).collect(),
        };
        let warnings = if rows.rows.is_empty() {
            Vec::new()
        } else {
            case_warnings(case_id, &rows)
        };
        let count = u8::try_from(warnings.len()).map_err(std::io::Error::other)?;
        out.push(count);
        let put = |out: &mut Vec<u8>, bytes: &[u8]| {
            out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
            out.extend_from_slice(bytes);
        };
        out.extend_from_slice(&(file_index as u64).to_le_bytes());
        put(out, case_id.as_bytes());
        for warning in &warnings {
            out.extend_from_slice(&warning.at.line.to_le_bytes());
            put(out, warning.at.message.as_bytes());
        }
        Ok(true)
    }
}

/// Reads back the records [`CaseWarnings`] wrote, in order, into `warnings`; returns how
/// many cases there were.
fn read_case_warnings(
    records: impl std::io::Read,
    sources: &[crate::input::Source],
    warnings: &mut Warnings,
) -> std::io::Result<usize> {
    use std::io::Read;
    let mut input = std::io::BufReader::with_capacity(1 << 16, records);
    let word = |input: &mut std::io::BufReader<_>| -> std::io::Result<u64> {
        let mut bytes = [0u8; 8];
        input.read_exact(&mut bytes)?;
        Ok(u64::from_le_bytes(bytes))
    };
    let text = |input: &mut std::io::BufReader<_>| -> std::io::Result<String> {
        let len = word(input)?;
        let mut bytes = Vec::new();
        input.by_ref().take(len).read_to_end(&mut bytes)?;
        String::from_utf8(bytes).map_err(std::io::Error::other)
    };
    let mut cases = 0;
    loop {
        let mut count = [0u8; 1];
        match input.read_exact(&mut count) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(cases),
            Err(e) => return Err(e),
        }
        cases += 1;
        let file_index = usize::try_from(word(&mut input)?).map_err(std::io::Error::other)?;
        let case_id = text(&mut input)?;
        let file = sources
            .get(file_index)
            .map(|source| source.name.as_str())
            .ok_or_else(|| std::io::Error::other("a case's record names no input"))?;
        for _ in 0..count[0] {
            let line = word(&mut input)?;
            let message = text(&mut input)?;
            let at = InputError::new(file, line, message)
                .column("case_id")
                .value(case_id.as_str());
            warnings.push(Warning { file_index, at }, 1);
        }
    }
}

/// An [`AppendFile`](crate::output::AppendFile) over a temporary file, for the engine's
/// records.
struct Records(std::io::BufWriter<std::fs::File>);

impl Write for Records {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

impl crate::output::AppendFile for Records {}

/// [`validate`] on the streaming engine, in bounded memory: the engine lists the input errors
/// (as `adjudicate` does) and, through its case writer, writes each case's warnings when it
/// closes (a case that comes back is rebuilt from its own lines and its warnings written
/// again in place of the first); a second, lighter pass reads every file for the reader's
/// warnings and counts. The report is [`validate`]'s, to the byte.
pub fn validate_streaming(
    sources: &[crate::input::Source],
    input_format: Option<InputFormat>,
    max_warnings: Option<usize>,
) -> std::io::Result<Report> {
    let limit = max_warnings.unwrap_or(usize::MAX);
    // Read twice (the second pass), so standard input is kept in a file.
    let (readable, spools) = crate::input::spool_standard_input(sources)?;
    let sources = &readable[..];

    let settings = crate::streaming::StreamSettings {
        input_format,
        run_as_of: None,
        open_cases: OPEN_CASES,
        encoding: crate::streaming::Encoding::Csv,
        jobs: 1,
        progress: None,
        rows_observed: true,
        split_min_bytes: u64::MAX,
    };
    let judged = crate::streaming::stream_cases(
        sources,
        &settings,
        Box::new(CaseWarnings),
        &mut |_, _, _| {},
    );
    let (errors, records) = match judged {
        Ok(records) => (Vec::new(), Some(records)),
        Err(crate::streaming::StreamError::Input(errors)) => (errors.0, None),
        Err(crate::streaming::StreamError::Io(e)) => return Err(e),
    };

    // The reader's warnings and the counts. With input errors the cases are counted as
    // `validate` counts them (every id of a row that parsed), which needs their ids.
    let mut warnings = Warnings::new(limit);
    let mut ids: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut row_count = 0usize;
    for (file_index, source) in sources.iter().enumerate() {
        let mut file_errors = Vec::new();
        let rows_before = row_count;
        let mut observer = FileObserver {
            file_index,
            file: &source.name,
            ignored_seen: Vec::new(),
            warnings: &mut warnings,
        };
        read_source_observed(
            source,
            input_format,
            &mut file_errors,
            &mut |_, row| {
                row_count += 1;
                if let (None, Ok(ParsedRow { case_id, .. })) = (&records, &row) {
                    if !ids.contains(&**case_id) {
                        ids.insert(case_id.to_string());
                    }
                }
            },
            &mut observer,
        );
        if file_errors.is_empty() && row_count == rows_before {
            warnings.push(
                Warning {
                    file_index,
                    at: InputError::new(&source.name, 0, "holds no case rows"),
                },
                0,
            );
        }
    }
    let cases = match records {
        None => ids.len(),
        Some(records) => {
            let mut file = Records(std::io::BufWriter::new(tempfile::tempfile()?));
            records.write_to(&mut file, 0)?;
            let mut file = file.0.into_inner().map_err(|e| e.into_error())?;
            std::io::Seek::rewind(&mut file)?;
            let mut case_warnings = Warnings::new(limit);
            let cases = read_case_warnings(file, sources, &mut case_warnings)?;
            warnings.absorb(case_warnings)?;
            cases
        }
    };
    drop(spools);
    Ok(Report {
        errors,
        warnings,
        cases,
        rows: row_count,
    })
}

#[cfg(test)]
mod warnings_tests {
    use super::*;

    /// `n` warnings over two files and two passes, in a scrambled order, with repeated lines.
    fn scrambled(n: u64) -> Vec<(Warning, u8)> {
        (0..n)
            .map(|i| {
                let mixed = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
                let file_index = (mixed % 2) as usize;
                let line = mixed % (n / 3 + 1);
                let message = if i % 5 == 0 {
                    "names no case-file field: ignored".to_owned()
                } else {
                    format!("warning {i}")
                };
                let at = InputError::new(&format!("f{file_index}.csv"), line, message);
                (Warning { file_index, at }, (i % 3 == 0) as u8)
            })
            .collect()
    }

    /// What `validate` listed before warnings were sorted in runs, up to `limit`: every
    /// warning, the reader's before the cases', stably sorted by file and line (ties kept
    /// in order by their index). Only the first `limit` are formatted, which is most of the
    /// cost for half a million.
    fn expected(warnings: &[(Warning, u8)], limit: usize) -> Vec<String> {
        let mut order: Vec<(usize, u64, u8, usize)> = warnings
            .iter()
            .enumerate()
            .map(|(i, (w, phase))| (w.file_index, w.at.line, *phase, i))
            .collect();
        if limit < order.len() {
            order.select_nth_unstable(limit);
            order.truncate(limit);
        }
        order.sort_unstable();
        order
            .iter()
            .map(|&(.., i)| warnings[i].0.at.to_string())
            .collect()
    }

    fn listed(warnings: &Warnings) -> Vec<String> {
        warnings.listed().unwrap().map(Result::unwrap).collect()
    }

    /// Enough warnings for runs on disk to be merged (more than RUNS_BEFORE_MERGE runs),
    /// listed up to `limit`: the first `limit` in file order, every one counted.
    fn runs_on_disk_list_the_first_in_file_order_and_count_every_one(limit: usize) {
        let n = (WARNINGS_PER_RUN * (RUNS_BEFORE_MERGE + 3)) as u64;
        let warnings = scrambled(n);
        // The expected listing (formatting half a million warnings) is made beside the sink.
        let (all, sink) = std::thread::scope(|scope| {
            let all = scope.spawn(|| expected(&warnings, limit));
            let mut sink = Warnings::new(limit);
            for (warning, phase) in warnings.iter().cloned() {
                sink.push(warning, phase);
            }
            (all.join().unwrap(), sink)
        });
        assert_eq!(sink.total(), n as usize);
        assert_eq!(sink.listed_count(), limit.min(n as usize));
        let got = listed(&sink);
        assert_eq!(got.len(), limit.min(all.len()), "limit {limit}");
        assert!(got == all[..got.len()], "limit {limit}");
        assert_eq!(
            sink.by_kind(),
            format!(
                "{} ignored columns, {} others",
                n.div_ceil(5),
                n - n.div_ceil(5)
            )
        );
        // Listing twice gives the same.
        assert_eq!(listed(&sink), got);
    }

    #[test]
    fn runs_on_disk_list_every_warning_in_file_order_and_count_every_one() {
        runs_on_disk_list_the_first_in_file_order_and_count_every_one(usize::MAX);
    }

    #[test]
    fn runs_on_disk_list_none_of_them_with_no_room_and_count_every_one() {
        runs_on_disk_list_the_first_in_file_order_and_count_every_one(0);
    }

    #[test]
    fn runs_on_disk_list_the_first_one_and_count_every_one() {
        runs_on_disk_list_the_first_in_file_order_and_count_every_one(1);
    }

    #[test]
    fn runs_on_disk_list_the_first_thousand_and_count_every_one() {
        runs_on_disk_list_the_first_in_file_order_and_count_every_one(1000);
    }

    #[test]
    fn runs_on_disk_list_the_first_run_and_some_and_count_every_one() {
        runs_on_disk_list_the_first_in_file_order_and_count_every_one(WARNINGS_PER_RUN + 17);
    }

    #[test]
    fn absorbed_warnings_merge_with_the_reader_first_on_a_tie() {
        let warnings = scrambled(3 * WARNINGS_PER_RUN as u64 + 11);
        let all = expected(&warnings, usize::MAX);
        let (mut reader, mut cases) = (Warnings::new(usize::MAX), Warnings::new(usize::MAX));
        for (warning, phase) in warnings.iter().cloned() {
            if phase == 0 {
                reader.push(warning, phase);
            } else {
                cases.push(warning, phase);
            }
        }
        reader.absorb(cases).unwrap();
        assert_eq!(reader.total(), warnings.len());
        assert_eq!(listed(&reader), all);
    }
}
