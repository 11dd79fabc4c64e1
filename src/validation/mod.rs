//! What `validate` finds in case files without judging them for output: every input error
//! located, and the warnings a case author wants to see (`warnings`), by the streaming engine
//! in bounded memory ([`validate_streaming`], what the command runs). Its parts are public for
//! a caller that states the same report another way (the tests' plain statement, every case
//! in memory): the reader's warnings of a file ([`read_file`]) and the warnings of one case
//! ([`case_warnings`]).

use std::io::Write;

use crate::input::ErrorKind;
use crate::input::{
    names_output_only, read_source, Field, InputError, InputErrors, InputFormat, ParsedRow,
    RawCells, ReadObserver,
};
use crate::lease::{Case, Decision, Event, Phase, Row};
use crate::store::TempFile;

mod read_twice;
mod warnings;

pub use read_twice::{read_twice, ReadTwice};
pub use warnings::{Warning, WarningKind, Warnings};

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
    /// The ignored column names already warned of: a set, as a file may have 100,000 of them
    /// (a list searched for each took 46 s).
    ignored_seen: std::collections::HashSet<String>,
    warnings: &'a mut Warnings,
}

impl<'a> FileObserver<'a> {
    /// The observer of the file `file` (the `file_index`-th), its warnings to `warnings`.
    fn new(file_index: usize, file: &'a str, warnings: &'a mut Warnings) -> FileObserver<'a> {
        FileObserver {
            file_index,
            file,
            ignored_seen: std::collections::HashSet::new(),
            warnings,
        }
    }
}

impl ReadObserver for FileObserver<'_> {
    fn ignored_column(&mut self, line: u64, name: &str) {
        if !self.ignored_seen.insert(name.to_owned()) {
            return;
        }
        let normalised = crate::input::normalise_header(name);
        if is_annotation(&normalised) {
            return;
        }
        let message = if names_output_only(&normalised) {
            "an output-only matrix column: ignored on input"
        } else if normalised.is_empty() {
            "a column with no name: ignored"
        } else {
            "names no case-file field: ignored"
        };
        self.warnings.push(
            Warning {
                file_index: self.file_index,
                kind: WarningKind::IgnoredColumn,
                at: InputError::new(ErrorKind::Header, self.file, line, message)
                    .column(name.trim()),
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
                ErrorKind::Value,
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
                    kind: WarningKind::UnusedField,
                    at,
                },
                0,
            );
        }
    }
}

/// Whether a column (its normalised header) is an annotation for people, which every case
/// file may carry and nothing reads: a header with the word `note` or `comment` (`note`,
/// `Notes`, `Operator Comment`). It is ignored like any unknown column, without a warning: the
/// warning is for a misspelt field, and no field's name has either word.
pub fn is_annotation(normalised_header: &str) -> bool {
    normalised_header
        .split('_')
        .any(|word| matches!(word, "note" | "notes" | "comment" | "comments"))
}

fn article(event: Event) -> &'static str {
    match event {
        Event::Offer | Event::Ack | Event::Observe => "n",
        _ => "",
    }
}

/// One case's rows as read, for the case-level warnings.
pub struct CaseRows {
    /// Its input's position on the command line.
    pub file_index: usize,
    /// Its input's name.
    pub file: String,
    /// The line of each row.
    pub lines: Vec<u64>,
    /// Its rows, in order (at least one).
    pub rows: Vec<Row>,
}

/// The case-level warnings (`--lint`) of a case that replays without input errors.
pub fn case_warnings(case_id: &str, rows: &CaseRows) -> Vec<Warning> {
    let mut warnings = Vec::new();
    let Ok(Some((case, outcomes))) = crate::lease::replay(&rows.rows) else {
        return warnings;
    };
    let first_line = rows.lines[0];
    let last_line = *rows.lines.last().expect("a case has a row");
    let warn = |kind: WarningKind, line: u64, message: String| Warning {
        file_index: rows.file_index,
        kind,
        at: InputError::new(ErrorKind::Rule, &rows.file, line, message)
            .column("case_id")
            .value(case_id),
    };

    // Never leaves PENDING_ACK: the decision is PENDING_ACK after every row.
    let verdict = case.verdict(None);
    if always_pending(&rows.rows) {
        warnings.push(warn(
            WarningKind::NeverAcknowledged,
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
            WarningKind::EndsBeforeDeadline,
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

/// Reads one file for `validate`, both ways: its rows to `on_row`, its reader warnings (columns
/// ignored) to `warnings`, and a "holds no case rows" warning when it has neither rows nor
/// reader errors; returns the reader's errors and how many rows it read (valid or not).
pub fn read_file(
    file_index: usize,
    source: &crate::input::Source,
    input_format: Option<InputFormat>,
    warnings: &mut Warnings,
    on_row: &mut dyn FnMut(u64, crate::input::RowResult),
) -> (InputErrors, usize) {
    let mut errors = InputErrors::new();
    let mut rows = 0usize;
    let mut observer = FileObserver::new(file_index, &source.name, warnings);
    read_source(
        source,
        input_format,
        &mut errors,
        &mut |line, row| {
            rows += 1;
            on_row(line, row);
        },
        &mut observer,
    );
    if errors.is_empty() && rows == 0 {
        no_case_rows(file_index, source, warnings);
    }
    (errors, rows)
}

/// [`read_file`]'s warnings and count of rows, without the rows: a CSV file's rows are not
/// typed (`input::observe_source`), since the engine types them beside this pass. The same
/// warnings and count as [`read_file`]'s, whatever the file.
fn read_file_warnings(
    file_index: usize,
    source: &crate::input::Source,
    input_format: Option<InputFormat>,
    warnings: &mut Warnings,
) -> usize {
    let mut errors = InputErrors::new();
    let mut observer = FileObserver::new(file_index, &source.name, warnings);
    let rows = crate::input::observe_source(source, input_format, &mut errors, &mut observer);
    // Untyped, the rows' value errors are not found; with no rows, none could be.
    if errors.is_empty() && rows == 0 {
        no_case_rows(file_index, source, warnings);
    }
    rows
}

/// The warning that `source` holds no case rows.
fn no_case_rows(file_index: usize, source: &crate::input::Source, warnings: &mut Warnings) {
    warnings.push(
        Warning {
            file_index,
            kind: WarningKind::NoCaseRows,
            at: InputError::new(ErrorKind::Missing, &source.name, 0, "holds no case rows"),
        },
        0,
    );
}

/// Everything `validate` found.
#[derive(Debug, Default)]
pub struct Report {
    /// Input errors, in file and line order (the first [`crate::input::MAX_LISTED_ERRORS`]
    /// kept, all counted).
    pub errors: InputErrors,
    /// Warnings: all counted, the first `--max-warnings` listed in file and line order.
    pub warnings: Warnings,
    /// Cases read.
    pub cases: usize,
    /// Rows read (valid or not).
    pub rows: usize,
}

/// Writes each case's warnings as a record for the engine: a count byte, the case's input
/// and id, then each warning's line and message ([`read_case_warnings`] reads it back). A
/// record is written for every case, with no warnings too, so that a case that comes back
/// has a record to replace.
struct CaseWarnings {
    /// Whether the case-level notes are wanted (`--lint`); without, every record is empty.
    lint: bool,
}

impl crate::streaming::CaseWriter for CaseWarnings {
    fn write_case(
        &mut self,
        file_index: usize,
        file: &str,
        case_id: &str,
        rows: &crate::streaming::KeptRows,
        out: &mut crate::streaming::RecordOut<'_>,
    ) -> std::io::Result<bool> {
        let rows = rows.to_vec()?;
        let rows = CaseRows {
            file_index,
            file: file.to_owned(),
            lines: rows.iter().map(|kept| kept.line).collect(),
            rows: rows.iter().map(|kept| kept.row.clone()).collect(),
        };
        let warnings = if rows.rows.is_empty() || !self.lint {
            Vec::new()
        } else {
            case_warnings(case_id, &rows)
        };
        use crate::store::Put;
        let count = u8::try_from(warnings.len()).map_err(std::io::Error::other)?;
        out.put_u8(count);
        out.put_u64(file_index as u64);
        out.put_str(case_id);
        for warning in &warnings {
            out.put_u8(warning.kind.code());
            out.put_u64(warning.at.line);
            out.put_str(&warning.at.message);
        }
        Ok(true)
    }

    /// Only the case-level notes look at the rows.
    fn needs_rows(&self) -> bool {
        self.lint
    }

    /// A case's record is made from its rows alone (the cap on warnings listed is applied
    /// when the records are read back, in order).
    fn fork(&self) -> Option<Box<dyn crate::streaming::CaseWriter + Send>> {
        Some(Box::new(CaseWarnings { lint: self.lint }))
    }
}

/// Reads back the records [`CaseWarnings`] wrote, in order, into `warnings`; returns how
/// many cases there were.
fn read_case_warnings(
    records: impl std::io::Read,
    sources: &[crate::input::Source],
    warnings: &mut Warnings,
) -> std::io::Result<usize> {
    use crate::store::Get;
    let mut input = std::io::BufReader::with_capacity(1 << 16, records);
    let mut cases = 0;
    loop {
        let Some([count]) = input.get_first()? else {
            return Ok(cases);
        };
        cases += 1;
        let file_index = usize::try_from(input.get_u64()?).map_err(std::io::Error::other)?;
        let case_id = input.get_string()?;
        let file = sources
            .get(file_index)
            .map(|source| source.name.as_str())
            .ok_or_else(|| std::io::Error::other("a case's record names no input"))?;
        for _ in 0..count {
            let kind = WarningKind::from_code(input.get_u8()?)?;
            let line = input.get_u64()?;
            let message = input.get_string()?;
            let at = InputError::new(ErrorKind::Rule, file, line, message)
                .column("case_id")
                .value(case_id.as_str());
            warnings.push(
                Warning {
                    file_index,
                    kind,
                    at,
                },
                1,
            );
        }
    }
}

/// Validates the sources: every input error and every warning (the first `max_warnings`
/// listed, every one counted; the case-level notes only with `lint`), on the streaming engine
/// in bounded memory. The engine lists the input errors (as `adjudicate` does) and, through
/// its case writer, writes each case's warnings when it closes (a case that comes back is
/// rebuilt from its own lines and its warnings written again in place of the first); a
/// second, lighter pass reads every file for the reader's warnings and counts, on a thread of
/// its own meanwhile. The report is
/// the same, to the byte, whatever the `window` (the command gives
/// [`Window::COMMAND`](crate::streaming::Window::COMMAND); tests give a small one, to go past
/// it with few cases).
pub fn validate_streaming(
    sources: &[crate::input::Source],
    input_format: Option<InputFormat>,
    max_warnings: Option<usize>,
    lint: bool,
    window: crate::streaming::Window,
) -> std::io::Result<Report> {
    let limit = max_warnings.unwrap_or(usize::MAX);
    // Read twice (the second pass), so standard input is kept in a file.
    // Each pass opens the files anew: the second must read what the first read (standard
    // input, copied once, cannot change).
    let named = sources;
    let stamps = file_stamps(named);
    let read_twice = match read_twice(sources, window.kept_input_bytes)? {
        Ok(read_twice) => read_twice,
        Err(too_long) => {
            return Ok(Report {
                errors: InputErrors::one(too_long),
                ..Report::default()
            })
        }
    };
    let sources = &read_twice.sources[..];

    let settings = crate::streaming::StreamSettings {
        input_format,
        ..crate::streaming::StreamSettings::for_records(window)
    };
    // The reader's warnings and the counts, on a thread of their own while the engine
    // judges (the two passes share nothing but the files).
    let reader_pass = |ids: Option<&mut std::collections::HashSet<String>>| {
        let mut warnings = Warnings::new(limit);
        let mut row_count = 0usize;
        let mut ids = ids;
        for (file_index, source) in sources.iter().enumerate() {
            row_count += match &mut ids {
                // The ids of the rows that parsed: their rows typed.
                Some(ids) => {
                    read_file(
                        file_index,
                        source,
                        input_format,
                        &mut warnings,
                        &mut |_, row| {
                            if let Ok(ParsedRow { case_id, .. }) = &row {
                                if !ids.contains(&**case_id) {
                                    ids.insert(case_id.to_string());
                                }
                            }
                        },
                    )
                    .1
                }
                None => read_file_warnings(file_index, source, input_format, &mut warnings),
            };
        }
        (warnings, row_count)
    };
    let (judged, read) = std::thread::scope(|scope| {
        let read = std::thread::Builder::new()
            .name("leasejudge-warnings".into())
            .spawn_scoped(scope, || reader_pass(None));
        let judged = crate::streaming::judge(
            sources,
            &settings,
            crate::streaming::Sink::Cases(Box::new(CaseWarnings { lint })),
            &mut |_, _, _| {},
        );
        let read = read.map(|thread| thread.join().expect("the reader's pass does not panic"));
        (judged, read)
    });
    let (errors, records) = match judged {
        Ok(records) => (InputErrors::new(), Some(records)),
        Err(crate::streaming::StreamError::Input(errors)) => (errors, None),
        Err(crate::streaming::StreamError::Io(e)) => return Err(e),
    };
    // With input errors the cases counted are the ids of every row that parsed, which the
    // pass read again for (rare: bad input); without a second thread, the pass is made here.
    let mut ids: std::collections::HashSet<String> = std::collections::HashSet::new();
    let (mut warnings, row_count) = match (read, &records) {
        (Ok(read), Some(_)) => read,
        (Ok(read), None) => {
            reader_pass(Some(&mut ids));
            read
        }
        (Err(_), _) => reader_pass(records.is_none().then_some(&mut ids)),
    };
    let cases = match records {
        None => ids.len(),
        Some(records) => {
            let file = TempFile::new()?;
            let mut out = std::io::BufWriter::new(file.appender());
            records.write_to(&mut out)?;
            out.flush()?;
            let mut case_warnings = Warnings::new(limit);
            let cases = read_case_warnings(file.reader(0), sources, &mut case_warnings)?;
            warnings.absorb(case_warnings)?;
            cases
        }
    };
    drop(read_twice);
    let changed = changed_files(named, &stamps);
    if !changed.is_empty() {
        // Its errors, warnings and counts would be of two files.
        return Ok(Report {
            errors: changed.into(),
            ..Report::default()
        });
    }
    Ok(Report {
        errors,
        warnings,
        cases,
        rows: row_count,
    })
}

/// What the files of `sources` are now, by path (none for a file that cannot be looked at;
/// its read reports it).
fn file_stamps(sources: &[crate::input::Source]) -> Vec<Option<crate::input::FileStamp>> {
    sources
        .iter()
        .map(|source| {
            let path = source.path.as_deref()?;
            crate::input::FileStamp::of_path(path).ok().flatten()
        })
        .collect()
}

/// The files of `sources` that are no longer as `stamps` says, each as an input error.
fn changed_files(
    sources: &[crate::input::Source],
    stamps: &[Option<crate::input::FileStamp>],
) -> Vec<InputError> {
    let now = file_stamps(sources);
    sources
        .iter()
        .zip(stamps.iter().zip(&now))
        .filter_map(|(source, (then, now))| {
            let how = then.as_ref()?.change(now.as_ref())?;
            Some(
                crate::input::FileChanged {
                    file: source.name.clone(),
                    how,
                }
                .input_error(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_replaced_or_rewritten_between_the_passes_is_an_error_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let source = |name: &str| crate::input::Source {
            name: name.to_owned(),
            path: Some(dir.path().join(name)),
            options: Default::default(),
        };
        let sources = [source("a.csv"), source("b.csv"), source("c.csv")];
        for name in ["a.csv", "b.csv", "c.csv"] {
            std::fs::write(dir.path().join(name), "case_id\n").unwrap();
        }
        let stamps = file_stamps(&sources);
        assert!(changed_files(&sources, &stamps).is_empty());
        std::fs::write(dir.path().join("new.csv"), "case_id\n").unwrap();
        std::fs::rename(dir.path().join("new.csv"), dir.path().join("b.csv")).unwrap();
        std::fs::write(dir.path().join("c.csv"), "case_id,event\n").unwrap();
        let changed: Vec<String> = changed_files(&sources, &stamps)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(changed.len(), 2, "{changed:?}");
        assert!(changed[0].starts_with("b.csv: the file changed"));
        assert!(changed[0].contains("renamed or replaced"));
        assert!(changed[1].starts_with("c.csv: the file changed"));
    }

    #[test]
    fn a_note_or_comment_column_is_an_annotation_and_no_field_is() {
        for header in [
            "note",
            "Notes",
            "Operator Comment",
            "comments",
            "reviewer-note",
        ] {
            let normalised = crate::input::normalise_header(header);
            assert!(is_annotation(&normalised), "{header}");
        }
        for header in ["holdr", "notary", "commentary", "extra", "decision"] {
            let normalised = crate::input::normalise_header(header);
            assert!(!is_annotation(&normalised), "{header}");
        }
        // A misspelt field is never taken for an annotation: no field's name has the words.
        for field in Field::ALL {
            assert!(!is_annotation(field.name()), "{}", field.name());
        }
    }

    /// The reader's pass without the rows typed gives [`read_file`]'s warnings and count, on
    /// files whose rows are fine, wrong in their values, not UTF-8, ragged, quoted over lines,
    /// of unused fields and ignored columns, with no rows, generated plain and messy, and in
    /// JSON (read typed, as before).
    #[test]
    fn the_warnings_pass_untyped_finds_what_the_typed_reading_finds() {
        let dir = tempfile::tempdir().unwrap();
        let mut files: Vec<(&str, Vec<u8>)> = vec![
            (
                "unused.csv",
                b"case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration,\
                  renew_seq,result,decision,,Notes,holdr\n\
                  c1,offer,2024-01-01T00:00:00Z,j,L,1,w1,30,7,,ACCEPT,x,n,h\n\
                  c1,renew,2024-01-01T00:00:05Z,j,L,1,w1,30,1,done,,,,\n\
                  c2,observe,2024-01-01T00:00:09Z,j,L,1,w1,,,,,,,\n"
                    .to_vec(),
            ),
            (
                "values.csv",
                b"case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n\
                  c1,offer,yesterday,j,L,one,w1,-3\n\
                  c2,bogus,2024-01-01T00:00:00Z,j,L,1,w1,30\n\
                  c3,offer,2024-01-01T00:00:00Z,j,L,1,w1,30,extra\n\
                  \n\
                  \"c4\",\"offer\",2024-01-01T00:00:00Z,\"j\nk\",L,1,w1,30\n"
                    .to_vec(),
            ),
            ("header-only.csv", b"case_id,event,observed_at\n".to_vec()),
            ("empty.csv", Vec::new()),
            (
                "bytes.csv",
                b"case_id,event,observed_at,holder\nc1,offer,2024-01-01T00:00:00Z,w\xff\n".to_vec(),
            ),
            (
                "rows.json",
                br#"[{"case_id":"c1","event":"offer","observed_at":"2024-01-01T00:00:00Z","renew_seq":3,"x":1}]"#
                    .to_vec(),
            ),
        ];
        for (name, seed) in [("plain.csv", 3), ("messy.csv", 4)] {
            let options = crate::generate::Options {
                seed,
                cases: 300,
                rows_per_case: (3, 12),
                interleave: 8,
                mix: crate::generate::default_mix(),
            };
            let mut bytes = Vec::new();
            if name == "messy.csv" {
                crate::generate::write_messy_cases(&options, &mut bytes, &mut |_| {}).unwrap();
            } else {
                crate::generate::write_cases(&options, &mut bytes).unwrap();
            }
            files.push((name, bytes));
        }
        let mut seen = Vec::new();
        for (index, (name, bytes)) in files.iter().enumerate() {
            std::fs::write(dir.path().join(name), bytes).unwrap();
            let source = crate::input::Source {
                name: (*name).to_owned(),
                path: Some(dir.path().join(name)),
                options: Default::default(),
            };
            let listed = |warnings: &Warnings| -> Vec<String> {
                warnings.listed().unwrap().map(Result::unwrap).collect()
            };
            let mut typed = Warnings::new(usize::MAX);
            let (_, typed_rows) = read_file(index, &source, None, &mut typed, &mut |_, _| {});
            let mut untyped = Warnings::new(usize::MAX);
            let untyped_rows = read_file_warnings(index, &source, None, &mut untyped);
            assert_eq!(untyped_rows, typed_rows, "{name}");
            assert_eq!(untyped.total(), typed.total(), "{name}");
            assert_eq!(listed(&untyped), listed(&typed), "{name}");
            seen.push((*name, typed_rows, typed.total()));
        }
        // Not a comparison of nothing: the warnings of every kind the pass finds are there.
        assert_eq!(
            &seen[..5],
            &[
                ("unused.csv", 3, 9),
                ("values.csv", 3, 0),
                ("header-only.csv", 0, 1),
                ("empty.csv", 0, 0),
                ("bytes.csv", 0, 0),
            ],
            "{seen:?}"
        );
    }
}
