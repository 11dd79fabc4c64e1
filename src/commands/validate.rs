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

/// `N kind, M kind, ...` over `warnings`, in [`WARNING_KINDS`] order.
fn warnings_by_kind(warnings: &[InputError]) -> String {
    // One count per kind, and one for a warning of no known kind.
    let mut counts = [0usize; WARNING_KINDS.len() + 1];
    for warning in warnings {
        counts[warning_kind(warning)] += 1;
    }
    counts
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
    warnings: &'a mut Vec<Warning>,
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
        self.warnings.push(Warning {
            file_index: self.file_index,
            at: InputError::new(self.file, line, message).column(name.trim()),
        });
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
            self.warnings.push(Warning {
                file_index: self.file_index,
                at: InputError::new(
                    self.file,
                    line,
                    format!(
                        "given on a{} {event} row, which does not use it",
                        article(event)
                    ),
                )
                .column(field.name())
                .value(value.trim()),
            });
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
    /// Warnings, in file and line order.
    pub warnings: Vec<InputError>,
    /// Cases read.
    pub cases: usize,
    /// Rows read (valid or not).
    pub rows: usize,
}

/// Validates the sources: every input error and every warning.
pub fn validate(sources: &[crate::input::Source], input_format: Option<InputFormat>) -> Report {
    let mut adjudication = Adjudication::new();
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
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
            warnings.push(Warning {
                file_index,
                at: InputError::new(&source.name, 0, "holds no case rows"),
            });
        }
        errors.extend(file_errors);
    }
    let cases = case_rows.len();
    if errors.is_empty() {
        for (case_id, rows) in &case_rows {
            warnings.extend(case_warnings(case_id, rows));
        }
    }
    warnings.sort_by_key(|w| (w.file_index, w.at.line));
    Report {
        errors,
        warnings: warnings.into_iter().map(|w| w.at).collect(),
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
    let report = validate_streaming(&sources, args.input_format);
    if let Some(progress) = progress {
        progress.finish_and_clear();
    }
    let report = report?;
    let mut stderr = std::io::stderr().lock();
    for error in &report.errors {
        writeln!(stderr, "{error}")?;
    }
    let shown = args
        .max_warnings
        .unwrap_or(usize::MAX)
        .min(report.warnings.len());
    for warning in &report.warnings[..shown] {
        writeln!(stderr, "warning: {warning}")?;
    }
    if shown < report.warnings.len() {
        writeln!(
            stderr,
            "warning: {} more not listed (--max-warnings {shown})",
            report.warnings.len() - shown
        )?;
    }
    if !report.warnings.is_empty() {
        writeln!(
            stderr,
            "warnings by kind: {}",
            warnings_by_kind(&report.warnings)
        )?;
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let summary = format!(
        "{}, {}: {}, {}",
        plural(report.cases, "case"),
        plural(report.rows, "row"),
        plural(report.errors.len(), "input error"),
        plural(report.warnings.len(), "warning"),
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

/// How many cases' rows [`validate_streaming`] keeps before the oldest case's warnings are
/// worked out and its rows let go.
pub const OPEN_CASES: usize = 4096;

/// The open cases of [`validate_streaming`], oldest first.
struct CaseWindow {
    open: std::collections::VecDeque<(String, CaseRows)>,
    /// Case id → sequence number (its place in `open` counted from `base`).
    index: HashMap<String, u64>,
    base: u64,
    /// A hash of every closed case id: a row whose id is here may be a case coming back.
    closed: std::collections::HashSet<u64>,
    came_back: bool,
    warnings: Vec<Warning>,
}

fn id_key(id: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    id.hash(&mut hasher);
    hasher.finish()
}

impl CaseWindow {
    fn add(&mut self, file_index: usize, file: &str, line: u64, case_id: &str, row: &Row) {
        if self.came_back {
            return;
        }
        let place = match self.index.get(case_id) {
            Some(&seq) => (seq - self.base) as usize,
            None => {
                if self.closed.contains(&id_key(case_id)) {
                    self.came_back = true;
                    return;
                }
                if self.open.len() == OPEN_CASES {
                    self.close_oldest();
                }
                let seq = self.base + self.open.len() as u64;
                self.index.insert(case_id.to_owned(), seq);
                self.open.push_back((
                    case_id.to_owned(),
                    CaseRows {
                        file_index,
                        file: file.to_owned(),
                        lines: Vec::new(),
                        rows: Vec::new(),
                    },
                ));
                self.open.len() - 1
            }
        };
        let rows = &mut self.open[place].1;
        rows.lines.push(line);
        rows.rows.push(row.clone());
    }

    fn close_oldest(&mut self) {
        if let Some((case_id, rows)) = self.open.pop_front() {
            self.base += 1;
            self.index.remove(&case_id);
            self.closed.insert(id_key(&case_id));
            self.warnings.extend(case_warnings(&case_id, &rows));
        }
    }
}

/// [`validate`] on the streaming engine, in bounded memory: the engine lists the input errors
/// (as `adjudicate` does) and hands each replayed row to a window of open cases whose
/// warnings are worked out as they close; a second, lighter pass reads every file for the
/// reader's warnings and counts. Standard input is copied to a temporary file first, to be
/// read twice. The report is [`validate`]'s, to the byte; a case that comes back after
/// [`OPEN_CASES`] others began, and the case count of input with errors, are worked out as
/// [`validate`] does, in memory.
pub fn validate_streaming(
    sources: &[crate::input::Source],
    input_format: Option<InputFormat>,
) -> std::io::Result<Report> {
    let (readable, spools) = crate::input::spool_standard_input(sources)?;
    let sources = &readable[..];

    let mut window = CaseWindow {
        open: std::collections::VecDeque::new(),
        index: HashMap::new(),
        base: 0,
        closed: std::collections::HashSet::new(),
        came_back: false,
        warnings: Vec::new(),
    };
    let settings = crate::streaming::StreamSettings {
        input_format,
        run_as_of: None,
        open_cases: crate::streaming::DEFAULT_OPEN_CASES,
        encoding: crate::streaming::Encoding::Csv,
        jobs: 1,
        progress: None,
        // The window needs every row, in file order.
        rows_observed: true,
        split_min_bytes: u64::MAX,
    };
    let judged = crate::streaming::adjudicate_streaming(
        sources,
        &settings,
        &mut std::io::sink(),
        &mut |at, parsed, _| {
            window.add(
                at.file_index,
                at.file,
                at.line,
                &parsed.case_id,
                &parsed.row,
            )
        },
    );
    let (errors, mut cases) = match judged {
        Ok(()) => (Vec::new(), None),
        Err(crate::streaming::StreamError::Input(errors)) => (errors.0, Some(0)),
        Err(crate::streaming::StreamError::Io(e)) => return Err(e),
    };
    if errors.is_empty() && window.came_back {
        return Ok(validate(sources, input_format));
    }

    // The reader's warnings and the counts. With input errors the cases are counted as
    // `validate` counts them (every id of a row that parsed), which needs their ids.
    let mut warnings = Vec::new();
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
                if let (Some(_), Ok(ParsedRow { case_id, .. })) = (cases, &row) {
                    if !ids.contains(&**case_id) {
                        ids.insert(case_id.to_string());
                    }
                }
            },
            &mut observer,
        );
        if file_errors.is_empty() && row_count == rows_before {
            warnings.push(Warning {
                file_index,
                at: InputError::new(&source.name, 0, "holds no case rows"),
            });
        }
    }
    if cases.is_some() {
        cases = Some(ids.len());
    }
    let cases = match cases {
        Some(cases) => cases,
        None => {
            let cases = window.base as usize + window.open.len();
            while !window.open.is_empty() {
                window.close_oldest();
            }
            warnings.append(&mut window.warnings);
            cases
        }
    };
    warnings.sort_by_key(|w| (w.file_index, w.at.line));
    drop(spools);
    Ok(Report {
        errors,
        warnings: warnings.into_iter().map(|w| w.at).collect(),
        cases,
        rows: row_count,
    })
}
