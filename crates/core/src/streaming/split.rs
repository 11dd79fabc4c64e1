//! One large CSV file adjudicated as two halves on two threads, then stitched together so
//! that the matrix and the errors are exactly those of one pass over the whole file.
//!
//! # How the halves meet
//!
//! The file is cut at the first line start after its middle. This thread replays the first
//! half into the run as usual but leaves its open cases open. A second thread replays the
//! second half into a run of its own (a *tail* run) that treats every case as new, spills
//! every case it closes and logs each one (id, last line, bytes spilled) in a [`CloseLog`].
//!
//! A case whose rows straddle the cut (the usual thing: the cut falls inside some case) is
//! still open in the first run when the second half begins. Such a case was judged wrongly by
//! the tail run, which saw only its later rows, so the stitch:
//! 1. finds, in the close log, every case the first run still has open (the *continued*
//!    cases), and leaves their rows out of the tail's spill and their faults out of its
//!    errors;
//! 2. reads the second half again up to the last row of a continued case (a few rows: a
//!    case's rows are usually close together), replaying only the continued cases' rows into
//!    the first run, which judges them in order of first appearance as usual;
//! 3. looks for every other case of the close log in the first run's log of closed cases:
//!    such a case came back after the first run let it go. Both runs share one Bloom filter,
//!    so a case id in both halves was a "maybe" for whichever run saw it second: only those
//!    *suspects* are looked for. A case that came back is left out of the tail's outcome
//!    like a continued case, and its rows in the second half (between the first and last
//!    lines the close log gives it) are read again and replayed into the first run, which
//!    judges it as a single pass judges a case that comes back (from its rows read again,
//!    see the parent module). Only if the tail run met a case of its own coming back, which
//!    it cannot judge, is its work dropped and the first run reads on from the cut, as a
//!    single-threaded pass would;
//! 4. numbers the second half's lines after the first half's.
//!
//! The cut is a row boundary only if no quoted cell holds a line end across it, and only the
//! first half's reader, which reads the file from its start, knows: quote parity does not
//! (the csv reader takes a `"` inside an unquoted cell as text). So the cut is speculative.
//! The first half's reader reads on until no record is left to start before the cut; if its
//! last record ended at the cut (blank lines aside), the second half was read from a record's
//! start, as a single pass would read it. If that record goes on past the cut, the second
//! half's work is dropped and the first run reads on, after that record, as a single pass
//! would: quoted files are split too, and a file whose cut falls in a quoted line end costs
//! about one single-threaded pass.

use std::collections::HashSet;
use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::opened::OpenedFile;
use super::reread::LineIndex;
use super::*;
use crate::input::{read_cells, CaseRead, CsvHeader, CsvRead, Delimiter, InputFormat};
use crate::store::ReadAt;

/// Every case a tail run closed, in order of first appearance (which is the order of its
/// spill): id, the lines of its first and last rows, and the bytes of its spilled matrix row
/// (0 if it wrote none), in a temporary file.
pub(super) struct CloseLog(IdRecords<3>);

impl CloseLog {
    fn new() -> io::Result<CloseLog> {
        IdRecords::new().map(CloseLog)
    }

    /// Logs a closed case.
    pub(super) fn push(
        &mut self,
        case_id: &str,
        (first_line, last_line): (u64, u64),
        spilled: u64,
    ) -> io::Result<()> {
        self.0.push(case_id, [first_line, last_line, spilled])
    }

    /// Calls `visit` for every logged case in order, until it returns `false`.
    fn for_each(
        mut self,
        visit: &mut dyn FnMut(&str, Logged) -> io::Result<bool>,
    ) -> io::Result<()> {
        self.0
            .for_each(&mut |case_id, [first_line, last_line, spilled]| {
                visit(
                    case_id,
                    Logged {
                        first_line,
                        last_line,
                        spilled,
                    },
                )
            })
    }
}

/// A case of a [`CloseLog`]: the lines of its first and last rows, and the bytes of its
/// spilled matrix row.
#[derive(Clone, Copy)]
struct Logged {
    first_line: u64,
    last_line: u64,
    spilled: u64,
}

/// A case of the second half that the first half may have closed: its id, its place in the
/// tail's log, and where its row is in the tail's spill.
struct Suspect {
    case_id: String,
    seq: u64,
    logged: Logged,
    offset: u64,
}

/// How a split pass over one file ended.
pub(super) enum Split {
    /// Too small, not CSV, or not readable as two halves: read it whole; `run` is untouched.
    Whole,
    /// Adjudicated and ended in `run`; the second half's matrix rows, if any, follow `run`'s
    /// spill.
    Done(Option<SpillFile>),
}

/// Adjudicates one CSV file, `opened`, in two halves (see the module documentation), or says
/// why not. Both halves, and every read again, go through its handle. The second half's run
/// writes what `run` writes: matrix rows in its encoding, or the records of a fork of its
/// case writer ([`CaseWriter::fork`]; a writer that has none is read whole).
pub(super) fn stream_split(
    run: &mut StreamRun,
    file_index: usize,
    source: &Source,
    settings: &StreamSettings<'_>,
    stop: &AtomicBool,
    opened: &OpenedFile,
) -> io::Result<Split> {
    if settings.jobs < 2
        || settings.rows_observed
        || source.format(settings.input_format) != InputFormat::Csv
    {
        return Ok(Split::Whole);
    }
    let writes = match &run.cases {
        None => TailWrites::Matrix(run.spill.encoding()),
        Some(cases) => match cases.fork() {
            Some(fork) => TailWrites::Cases(fork),
            None => return Ok(Split::Whole),
        },
    };
    // Anything unusual (no such file, a bad header) is for the whole read to report.
    let Some((header, cut)) = plan(
        opened,
        &source.name,
        source.options.delimiter,
        settings.split_min_bytes,
    ) else {
        return Ok(Split::Whole);
    };

    run.begin_file(
        file_index,
        &source.name,
        InputFormat::Csv,
        &source.options,
        Some(opened.clone()),
    );
    // One filter for both halves: an id in both is a "maybe" for whichever inserts it second.
    let seen = Arc::clone(&run.seen);
    if run.suspects.is_none() {
        return Ok(Split::Whole);
    }
    let (head, tail) = read_halves(
        run, file_index, source, settings, writes, stop, opened, &header, cut, &seen,
    );
    let (Some(head), Some(tail)) = (head, tail) else {
        return Ok(Split::Whole);
    };
    let (head_read, mut errors) = head?;
    let Some(stopped) = head_read.stopped else {
        // The first half's read ended before the cut (a record too long, an I/O error): a
        // single pass ends there too, and the second half is not read.
        run.end_file(errors)?;
        return Ok(Split::Done(None));
    };
    // Where the first run reads on from, and the line before it, if the second half's work
    // is dropped.
    let (read_on, spill) = if stopped.at_cut {
        let (tail, tail_errors) = tail?;
        let at = Stitch {
            file_index,
            source,
            file: opened,
            header: &header,
            cut,
            line_base: head_read.end_line - 1,
        };
        // A case writer's records cite lines counted before the first half's reader counted
        // them: if they differ (they should not), the records are not the file's.
        let lines_differ = tail.cases.is_some() && tail.kept_line_base != at.line_base;
        let stitched = if tail.gave_up || lines_differ {
            Stitched::ReadOn
        } else {
            stitch(run, tail, tail_errors, &mut errors, &at)?
        };
        match stitched {
            Stitched::Done(spill) => (None, Some(spill)),
            // A case came back across the cut.
            Stitched::ReadOn => (Some((cut, at.line_base)), None),
        }
    } else {
        // A record (a quoted cell holding a line end) spans the cut: the second half was
        // read from inside it. Its outcome, even an error, is not the file's.
        (Some((stopped.offset, head_read.end_line - 1)), None)
    };
    if let Some((offset, line_base)) = read_on {
        errors.append(read_on_from(
            run, file_index, source, opened, &header, offset, line_base,
        )?);
    }
    run.end_file(errors)?;
    Ok(Split::Done(spill))
}

/// What the two halves' reads came to: the first run's read to the cut, and the second half's
/// run with its reader's errors.
type Halves = (
    Option<io::Result<(CsvRead, InputErrors)>>,
    Option<io::Result<(StreamRun, InputErrors)>>,
);

/// What the second half's run writes for each case it closes.
enum TailWrites {
    /// Its matrix row in this encoding (`None`: no matrix, as the first run writes none).
    Matrix(Option<&'static dyn MatrixEncoding>),
    /// The record this fork of the first run's case writer makes of it.
    Cases(Box<dyn CaseWriter + Send>),
}

/// The two halves read at once: the first by `run` on this thread, to the cut, the second
/// from the cut by a run of its own on another (`None` each when there is no other thread).
#[allow(clippy::too_many_arguments)]
fn read_halves(
    run: &mut StreamRun,
    file_index: usize,
    source: &Source,
    settings: &StreamSettings<'_>,
    writes: TailWrites,
    stop: &AtomicBool,
    opened: &OpenedFile,
    header: &CsvHeader,
    cut: u64,
    seen: &Arc<SeenIds>,
) -> Halves {
    // The tail has a stop of its own: when it gives up, the first half reads on.
    let tail_stop = AtomicBool::new(false);
    let tail_stop = &tail_stop;
    std::thread::scope(|scope| {
        let Ok(tail) = std::thread::Builder::new()
            .name("leasejudge-tail".into())
            .stack_size(crate::limits::THREAD_STACK_BYTES)
            .spawn_scoped(scope, move || -> io::Result<(StreamRun, InputErrors)> {
                let (encoding, cases) = match writes {
                    TailWrites::Matrix(encoding) => (encoding, None),
                    TailWrites::Cases(cases) => (None, Some(cases)),
                };
                let mut tail = StreamRun::new(
                    settings.run_as_of,
                    settings.open_cases,
                    encoding,
                    Arc::clone(seen),
                    true,
                )?
                .bounded_by(settings);
                if let Some(cases) = cases {
                    // Its records cite the whole file's lines: those before the cut are
                    // counted first (checked against the first half's count at the stitch).
                    tail.kept_line_base = lines_before(opened, cut)?;
                    tail.keeping_rows = cases.needs_rows();
                    tail.cases = Some(cases);
                }
                tail.tail = Some(CloseLog::new()?);
                tail.begin_file(
                    file_index,
                    &source.name,
                    InputFormat::Csv,
                    &source.options,
                    None,
                );
                let reader = Watched {
                    inner: opened.reader(cut)?,
                    progress: settings.progress,
                    spool: None,
                    stop: tail_stop,
                };
                let (_, errors) = feed_csv(
                    &mut tail,
                    reader,
                    file_index,
                    source,
                    Some(header),
                    None,
                    tail_stop,
                    &mut |_, _| true,
                )?;
                tail.close_all()?;
                Ok((tail, errors))
            })
        else {
            // No second thread: the file is read whole.
            return (None, None);
        };
        let head = opened.reader(0).and_then(|file| {
            let reader = Watched {
                inner: file,
                progress: settings.progress,
                spool: None,
                stop,
            };
            let head = feed_csv(
                run,
                reader,
                file_index,
                source,
                None,
                Some(cut),
                stop,
                &mut |_, _| true,
            );
            if !head
                .as_ref()
                .is_ok_and(|(read, _)| read.stopped.is_some_and(|at| at.at_cut))
            {
                // The second half is read for nothing: stop it.
                tail_stop.store(true, Ordering::Relaxed);
            }
            head
        });
        let tail = tail
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the tail thread panicked")));
        (Some(head), Some(tail))
    })
}

/// The first run reads on from `offset` (the line before it `line_base`), as a single pass
/// would, when the second half's work is dropped; returns the reader's errors, located in the
/// file.
fn read_on_from(
    run: &mut StreamRun,
    file_index: usize,
    source: &Source,
    opened: &OpenedFile,
    header: &CsvHeader,
    offset: u64,
    line_base: u64,
) -> io::Result<InputErrors> {
    // The first run reads on, as a single pass would. The filter it
    // shared holds the second half's ids too, which would all be "maybe" (a scan of the
    // log each): it gets one of its own, of the ids it has seen.
    let seen = SeenIds::for_input_bytes(opened.len().unwrap_or(0));
    run.ids.for_each(&mut |id| {
        seen.insert(id);
        true
    })?;
    for seq in run.closed..run.next {
        seen.insert(&run.open[run.place(seq)].case_id);
    }
    for id in run.pinned.keys() {
        seen.insert(id);
    }
    run.seen = Arc::new(seen);
    run.suspects = None;
    let done = AtomicBool::new(false);
    let reader = Watched {
        inner: opened.reader(offset)?,
        progress: None,
        spool: None,
        stop: &done,
    };
    let (_, more) = feed_csv_shifted(
        run,
        reader,
        file_index,
        source,
        Some(header),
        line_base,
        None,
        &done,
        &mut |_, _| true,
    )?;
    let mut more = more;
    for error in more.listed_mut() {
        shift(error, line_base);
    }
    Ok(more)
}

/// How the stitch ended.
enum Stitched {
    /// The second half's matrix rows, to follow the first run's.
    Done(SpillFile),
    /// A case came back: the second half must be read on by the first run.
    ReadOn,
}

/// Where a file would be cut: its header, and the first line start after its middle.
fn plan(
    opened: &OpenedFile,
    name: &str,
    delimiter: Option<Delimiter>,
    min_bytes: u64,
) -> Option<(CsvHeader, u64)> {
    let size = opened.len()?;
    if size < min_bytes {
        return None;
    }
    let header = CsvHeader::read(opened.reader(0).ok()?, name, delimiter)?;
    // The line end is looked for within the longest record a reader takes: a longer line is
    // an error of the file, read whole by one run, and is never held here (a 600 MB line
    // read to its end took 841 MB).
    let middle = io::Read::take(
        opened.reader(size / 2).ok()?,
        crate::limits::MAX_RECORD_BYTES as u64 + 1,
    );
    let mut reader = io::BufReader::with_capacity(1 << 16, middle);
    let mut read = 0u64;
    loop {
        let buffer = io::BufRead::fill_buf(&mut reader).ok()?;
        if buffer.is_empty() {
            return None;
        }
        if let Some(end) = memchr::memchr(b'\n', buffer) {
            read += end as u64 + 1;
            break;
        }
        let len = buffer.len();
        read += len as u64;
        io::BufRead::consume(&mut reader, len);
    }
    let cut = size / 2 + read;
    (cut > header.end() && cut < size).then_some((header, cut))
}

/// What the stitch needs to know about the file.
struct Stitch<'a> {
    file_index: usize,
    source: &'a Source,
    /// The file, read again through its handle.
    file: &'a OpenedFile,
    header: &'a CsvHeader,
    cut: u64,
    /// Lines before the cut: added to the second half's line numbers.
    line_base: u64,
}

/// Joins the tail run's outcome to `run` (module documentation, steps 1 to 4); `errors`
/// gains the tail's reader errors.
fn stitch(
    run: &mut StreamRun,
    tail: StreamRun,
    tail_errors: InputErrors,
    errors: &mut InputErrors,
    at: &Stitch<'_>,
) -> io::Result<Stitched> {
    let StreamRun {
        spill,
        faults,
        fault_cases,
        tail: log,
        suspects: tail_suspects,
        ..
    } = tail;
    let mut spill = spill.close()?;
    let log = log.expect("a tail run logs its cases");

    // Steps 1 and 3. A case in both halves is a suspect of one of them (the filter is
    // shared); it is continued if the first run has it open, and came back if the first run
    // closed it. Cases that are no suspect were in the second half only.
    // Every logged case is looked up: foldhash, not SipHash.
    let suspects: HashSet<String, foldhash::fast::FixedState> = run
        .suspects
        .take()
        .into_iter()
        .chain(tail_suspects)
        .flatten()
        .collect();
    let mut continued: HashSet<String> = HashSet::new();
    // The tail's cases judged again by the first run (their rows, faults and matrix rows
    // in the tail's outcome are left out).
    let mut rejudged_seqs: HashSet<u64> = HashSet::new();
    let mut last_continued_line = 0;
    // Suspects the first run does not have open: each one's sequence number in the tail, its
    // lines there, and its spilled row.
    let mut maybe_came_back: Vec<Suspect> = Vec::new();
    let (mut seq, mut offset) = (0u64, 0u64);
    log.for_each(&mut |case_id, logged| {
        if suspects.contains(case_id) {
            if run.open_seq(case_id).is_some() {
                continued.insert(case_id.to_owned());
                rejudged_seqs.insert(seq);
                last_continued_line = last_continued_line.max(logged.last_line);
                if logged.spilled > 0 {
                    spill.skip_row(offset, logged.spilled);
                }
            } else {
                maybe_came_back.push(Suspect {
                    case_id: case_id.to_owned(),
                    seq,
                    logged,
                    offset,
                });
            }
        }
        seq += 1;
        offset += logged.spilled;
        Ok(true)
    })?;
    // Rare (a false positive, or a case that really came back): the first run's log of the
    // cases it closed settles each. A case that came back is judged again by the first run
    // from its rows in both halves, as a single pass judges a case that comes back; the
    // tail's work on every other case stands. (Before, the tail's work was all dropped and
    // the first run read the second half again alone: a case coming back cost up to twice
    // the time, as much as the second thread had sped the run up.)
    let mut came_back: Vec<(u64, u64, String)> = Vec::new();
    for suspect in maybe_came_back {
        if run.ids.last(&suspect.case_id)?.is_some() {
            rejudged_seqs.insert(suspect.seq);
            let Logged {
                first_line,
                last_line,
                spilled,
            } = suspect.logged;
            if spilled > 0 {
                spill.skip_row(suspect.offset, spilled);
            }
            came_back.push((first_line, last_line, suspect.case_id));
        }
    }

    // Step 2.
    if !continued.is_empty() {
        replay_continued(run, at, &continued, last_continued_line)?;
    }
    replay_came_back(run, at, came_back)?;

    // Step 4, and the faults of the cases the tail judged alone.
    // Faults past the cap were counted, not kept: they are counted here too (those of a case
    // judged again among them are then counted twice, past the thousandth error only).
    run.faults.count_unlisted(faults.unlisted());
    for (mut fault, seq) in faults.into_listed().into_iter().zip(fault_cases) {
        if !rejudged_seqs.contains(&seq) {
            shift(&mut fault, at.line_base);
            run.faults.push(fault);
            if run.fault_cases.len() < run.faults.listed().len() {
                run.fault_cases.push(u64::MAX);
            }
        }
    }
    let mut tail_errors = tail_errors;
    for error in tail_errors.listed_mut() {
        shift(error, at.line_base);
    }
    errors.append(tail_errors);
    spill.set_line_base(at.line_base);
    Ok(Stitched::Done(spill))
}

/// Step 2: the cases the first run has open read on from the cut, to the last line of any
/// of them in the second half, only their rows replayed.
fn replay_continued(
    run: &mut StreamRun,
    at: &Stitch<'_>,
    continued: &HashSet<String>,
    last_continued_line: u64,
) -> io::Result<()> {
    let done = AtomicBool::new(false);
    let reader = Watched {
        inner: at.file.reader(at.cut)?,
        progress: None,
        spool: None,
        stop: &done,
    };
    let line_base = at.line_base;
    // The rows' errors were reported by the tail run.
    feed_csv_shifted(
        run,
        reader,
        at.file_index,
        at.source,
        Some(at.header),
        line_base,
        None,
        &done,
        &mut |line, row| {
            kept_after_cut(line, last_continued_line + line_base, &done, row, |id| {
                continued.contains(id)
            })
        },
    )?;
    Ok(())
}

/// The cases that came back (each its first and last line in the second half, and its id),
/// each read again from its first line in the second half to its last (stretches that
/// overlap read once), only their rows replayed.
fn replay_came_back(
    run: &mut StreamRun,
    at: &Stitch<'_>,
    mut came_back: Vec<(u64, u64, String)>,
) -> io::Result<()> {
    if came_back.is_empty() {
        return Ok(());
    }
    came_back.sort_unstable();
    let mut lines = LineIndex {
        points: vec![(1, 0), (at.line_base + 1, at.cut)],
    };
    let file = at.file.shared()?;
    let mut next = 0;
    while next < came_back.len() {
        let (first, mut last) = (came_back[next].0, came_back[next].1);
        let mut cases: HashSet<&str> = HashSet::new();
        while next < came_back.len() && came_back[next].0 <= last {
            last = last.max(came_back[next].1);
            cases.insert(&came_back[next].2);
            next += 1;
        }
        let Some(start) = lines.start_of(&file, first + at.line_base)? else {
            return Err(io::Error::other(format!(
                "{}: line {} was not found when read again",
                at.source.name,
                first + at.line_base
            )));
        };
        let done = AtomicBool::new(false);
        let reader = Watched {
            inner: ReadAt {
                file: Arc::clone(&file),
                offset: start,
            },
            progress: None,
            spool: None,
            stop: &done,
        };
        let line_base = at.line_base + first - 1;
        // The rows' errors were reported by the tail run.
        feed_csv_shifted(
            run,
            reader,
            at.file_index,
            at.source,
            Some(at.header),
            line_base,
            None,
            &done,
            &mut |line, row| {
                kept_after_cut(line, last + at.line_base, &done, row, |id| {
                    cases.contains(id)
                })
            },
        )?;
    }
    Ok(())
}

/// The lines that end before byte `cut` of the file (just after a `\n`), as the CSV reader
/// counts them: at a `\n`, a `\r\n` or a lone `\r`, in quoted cells too.
fn lines_before(opened: &OpenedFile, cut: u64) -> io::Result<u64> {
    let mut reader = opened.reader(0)?.take(cut);
    let mut buffer = vec![0u8; 1 << 16];
    let (mut lines, mut after_cr) = (0u64, false);
    loop {
        let read = match reader.read(&mut buffer) {
            Ok(0) => return Ok(lines),
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let chunk = &buffer[..read];
        lines += count_line_ends(chunk, after_cr);
        after_cr = chunk[read - 1] == b'\r';
    }
}

/// The line ends in `chunk` (its first byte after a `\r` if `after_cr`): every `\r`, and
/// every `\n` not after a `\r`.
fn count_line_ends(chunk: &[u8], after_cr: bool) -> u64 {
    let mut lines = 0;
    for at in memchr::memchr2_iter(b'\n', b'\r', chunk) {
        let follows_cr = match at {
            0 => after_cr,
            _ => chunk[at - 1] == b'\r',
        };
        if chunk[at] == b'\r' || !follows_cr {
            lines += 1;
        }
    }
    lines
}

fn shift(error: &mut InputError, line_base: u64) {
    if error.line > 0 {
        error.line += line_base;
    }
}

/// Reads CSV rows into `run` (lines as the reader counts them; after `header`, if given, the
/// reader starts at a row), up to the first record boundary at or after `cut` if given,
/// replaying those `keep` accepts; returns what the read saw and the reader's errors.
#[allow(clippy::too_many_arguments)]
fn feed_csv(
    run: &mut StreamRun,
    reader: impl Read,
    file_index: usize,
    source: &Source,
    header: Option<&CsvHeader>,
    cut: Option<u64>,
    stop: &AtomicBool,
    keep: &mut dyn FnMut(u64, &RowResult) -> bool,
) -> io::Result<(CsvRead, InputErrors)> {
    feed_csv_shifted(run, reader, file_index, source, header, 0, cut, stop, keep)
}

/// Whether a row read on from a cut (on `line`) is replayed: it is one of the `wanted` cases'.
/// Past `last_line`, the last of theirs, the read stops (`done`) and nothing more is.
fn kept_after_cut(
    line: u64,
    last_line: u64,
    done: &AtomicBool,
    row: &RowResult,
    wanted: impl Fn(&str) -> bool,
) -> bool {
    if line > last_line {
        done.store(true, Ordering::Relaxed);
        return false;
    }
    let case_id = match row {
        Ok(parsed) => Some(&parsed.case_id),
        Err(bad) => bad.case_id.as_ref(),
    };
    case_id.is_some_and(|id| wanted(id.as_str()))
}

/// [`feed_csv`] with `line_base` added to every line the rows are replayed at (the reader's
/// errors are not shifted).
#[allow(clippy::too_many_arguments)]
fn feed_csv_shifted(
    run: &mut StreamRun,
    reader: impl Read,
    file_index: usize,
    source: &Source,
    header: Option<&CsvHeader>,
    line_base: u64,
    cut: Option<u64>,
    stop: &AtomicBool,
    keep: &mut dyn FnMut(u64, &RowResult) -> bool,
) -> io::Result<(CsvRead, InputErrors)> {
    let mut io_error = None;
    let mut replay = |line: u64, row: &RowResult, hash: u64| {
        let line = line + line_base;
        if keep(line, row) {
            let at = Location {
                file_index,
                file: &source.name,
                line,
            };
            run.feed_or_stop(at, row, hash, stop, &mut io_error);
        }
    };
    let mut sink = InPlace {
        slot: Err(crate::input::BadRow::default()),
        hash: 0,
        replay: &mut replay,
    };
    let mut errors = InputErrors::new();
    let how = CaseRead {
        after_header: header,
        cut,
        ..CaseRead::new(&source.name, InputFormat::Csv, &source.options)
    };
    let read = read_cells(reader, &how, &mut errors, &mut sink);
    match io_error {
        Some(e) => Err(e),
        None => Ok((read, errors)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::CsvMatrix;

    /// How a split pass over `text` ended: read as two halves and stitched ("split"), or read
    /// on by the first run from the cut or past it ("read on"), or not split at all.
    fn outcome(text: &str) -> &'static str {
        outcome_with(text, 4096)
    }

    /// [`outcome`] with at most `open_cases` cases open.
    fn outcome_with(text: &str, open_cases: usize) -> &'static str {
        outcome_of(text, open_cases, false)
    }

    /// [`outcome_with`], the run writing [`Lines`] records if `records`, else matrix rows.
    fn outcome_of(text: &str, open_cases: usize, records: bool) -> &'static str {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cases.csv");
        std::fs::write(&path, text).unwrap();
        let source = Source {
            name: "cases.csv".into(),
            path: Some(path),
            options: Default::default(),
        };
        let settings = StreamSettings {
            jobs: 2,
            split_min_bytes: 1,
            open_cases,
            ..StreamSettings::default()
        };
        let mut run = StreamRun::new(
            None,
            open_cases,
            (!records).then_some(&CsvMatrix as &'static dyn MatrixEncoding),
            Arc::new(SeenIds::for_ids(1000)),
            true,
        )
        .unwrap();
        if records {
            run.cases = Some(Box::new(Lines));
            run.keeping_rows = true;
        }
        let stop = AtomicBool::new(false);
        let opened = OpenedFile::open(
            &source.name,
            source.path.as_deref().unwrap(),
            InputFormat::Csv,
        )
        .unwrap();
        match stream_split(&mut run, 0, &source, &settings, &stop, &opened).unwrap() {
            Split::Whole => "whole",
            Split::Done(Some(_)) => "split",
            Split::Done(None) => "read on",
        }
    }

    fn rows(from: u32, to: u32, value: &str) -> String {
        (from..to)
            .map(|case| {
                format!(
                    "c{case},offer,2026-01-01T10:00:00Z,j,L,1,w,600,{value}\n\
                     c{case},ack,2026-01-01T10:00:01Z,,L,1,w,,\n"
                )
            })
            .collect()
    }

    const HEADER: &str =
        "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration,note\n";

    /// Writes a case's id and the lines of its rows: what a case writer's records cite.
    struct Lines;

    impl CaseWriter for Lines {
        fn write_case(
            &mut self,
            file_index: usize,
            file: &str,
            case_id: &str,
            rows: &KeptRows,
            out: &mut RecordOut<'_>,
        ) -> io::Result<bool> {
            use std::io::Write;
            write!(out, "{file_index} {file} {case_id}:")?;
            for row in rows.to_vec()? {
                write!(out, " {}", row.line)?;
            }
            writeln!(out)?;
            Ok(true)
        }

        fn fork(&self) -> Option<Box<dyn CaseWriter + Send>> {
            Some(Box::new(Lines))
        }
    }

    /// [`Lines`]' records of `text` (or its errors), a lone file of at least
    /// `split_min_bytes` read as two halves.
    fn records(text: &str, split_min_bytes: u64, open_cases: usize) -> Result<String, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cases.csv");
        std::fs::write(&path, text).unwrap();
        let source = Source {
            name: "cases.csv".into(),
            path: Some(path),
            options: Default::default(),
        };
        let settings = StreamSettings {
            jobs: 2,
            split_min_bytes,
            open_cases,
            ..StreamSettings::default()
        };
        match judge(
            &[source],
            &settings,
            Sink::Cases(Box::new(Lines)),
            &mut |_, _, _| {},
        ) {
            Ok(records) => {
                let mut out = Vec::new();
                records.write_to(&mut out).unwrap();
                Ok(String::from_utf8(out).unwrap())
            }
            Err(StreamError::Input(errors)) => Err(errors.to_string()),
            Err(StreamError::Io(e)) => panic!("i/o: {e}"),
        }
    }

    #[test]
    fn a_case_writers_records_cite_the_lines_of_one_pass() {
        let plain = format!("{HEADER}{}", rows(0, 200, "x"));
        let quoted = format!("{HEADER}{}", rows(0, 200, "\"a, \"\"b\"\"\nc\""));
        let back = "c0,observe,2026-01-01T11:00:00Z,,,,,,\nc5,observe,2026-01-01T11:00:00Z,,,,,,\n";
        let shapes = [
            ("plain", plain.clone(), "split"),
            ("quoted line ends", quoted.clone(), "split"),
            ("CRLF", quoted.replace('\n', "\r\n"), "split"),
            // Lone `\r`s end lines too; the cut is after a `\n`.
            (
                "lone CR",
                format!("{}\n{}", plain.replace('\n', "\r"), rows(200, 300, "x")),
                "split",
            ),
            (
                "blank lines at the middle",
                format!(
                    "{HEADER}{}{}{}",
                    rows(0, 100, "\"x\""),
                    "\n\r\n\r".repeat(2500),
                    rows(100, 200, "x")
                ),
                "split",
            ),
            (
                "cases back across the cut",
                format!("{HEADER}{}{}{back}", rows(0, 100, "x"), rows(100, 200, "x")),
                "split",
            ),
            (
                "errors in both halves",
                format!(
                    "{HEADER}c1,ack,x,,,,,,\n{}c2,ack,x,,,,,,\n",
                    rows(0, 200, "x")
                ),
                "split",
            ),
        ];
        for (label, text, expected) in &shapes {
            assert_eq!(outcome_of(text, 8, true), *expected, "{label}");
            for open_cases in [4096, 8, 3, 1] {
                let whole = records(text, u64::MAX, open_cases);
                let split = records(text, 1, open_cases);
                assert!(
                    whole == split,
                    "{label}, {open_cases} open:\n{whole:?}\n---\n{split:?}"
                );
            }
        }
    }

    #[test]
    fn line_ends_are_counted_as_the_reader_counts_them() {
        for (text, lines) in [
            ("", 0),
            ("a\n", 1),
            ("a\r\nb\n", 2),
            ("a\rb\r\r\n", 3),
            ("\n\n\r", 3),
        ] {
            assert_eq!(count_line_ends(text.as_bytes(), false), lines, "{text:?}");
            // Cut anywhere: the halves' counts add up.
            for at in 0..text.len() {
                let (a, b) = text.as_bytes().split_at(at);
                let after_cr = a.last() == Some(&b'\r');
                assert_eq!(
                    count_line_ends(a, false) + count_line_ends(b, after_cr),
                    lines,
                    "{text:?} at {at}"
                );
            }
        }
    }

    #[test]
    fn a_line_longer_than_a_record_across_the_middle_is_not_split() {
        // The middle falls inside a line longer than any record may be: the file is read
        // whole (and the reader reports the line), its line never held to find a cut.
        let long = "n".repeat(crate::limits::MAX_RECORD_BYTES * 3);
        let file = format!(
            "{HEADER}{}c7,ack,2026-01-01T10:00:01Z,,L,1,w,,{long}\n{}",
            rows(0, 1, "x"),
            rows(8, 9, "x")
        );
        assert_eq!(outcome(&file), "whole");
        // Just within a record, it is cut after it.
        let long = "n".repeat(crate::limits::MAX_RECORD_BYTES / 2);
        let file = format!(
            "{HEADER}{}c7,ack,2026-01-01T10:00:01Z,,L,1,w,,{long}\n{}",
            rows(0, 1, "x"),
            rows(8, 9, "x")
        );
        assert_eq!(outcome(&file), "split");
    }

    #[test]
    fn quoted_files_are_split_unless_a_record_spans_the_cut() {
        let plain = format!("{HEADER}{}", rows(0, 200, "x"));
        assert_eq!(outcome(&plain), "split");
        // Quoted cells (with commas, doubled quotes, line ends) everywhere.
        let quoted = format!("{HEADER}{}", rows(0, 200, "\"a, \"\"b\"\"\nc\""));
        assert_eq!(outcome(&quoted), "split");
        // A stray quote in an unquoted cell: csv takes it as text; by quote parity the cut
        // would be inside quotes.
        let stray = format!("{HEADER}{}{}", rows(0, 3, "a\"b"), rows(3, 200, "x"));
        assert_eq!(outcome(&stray), "split");
        // Blank lines (of every line end) around the middle, after a quoted cell.
        let blank = format!(
            "{HEADER}{}{}{}",
            rows(0, 100, "\"x\""),
            "\n\r\n\r".repeat(2500),
            rows(100, 200, "x")
        );
        assert_eq!(outcome(&blank), "split");
        // A quoted line end across the middle: the second half was read from inside it.
        let across = format!(
            "{HEADER}{}c999,observe,2026-01-01T10:00:00Z,,,,,,\"{}\n{}\"\n{}",
            rows(0, 100, "x"),
            "y".repeat(6000),
            "c5,offer,2026-01-01T10:00:00Z,j,L,1,w,600,",
            rows(100, 200, "x"),
        );
        assert_eq!(outcome(&across), "read on");
        // An unterminated quote in the first half: the rest of the file is its cell.
        let open = format!("{HEADER}{}\"{}", rows(0, 100, "x"), rows(100, 200, "x"));
        assert_eq!(outcome(&open), "read on");
    }

    #[test]
    fn a_case_coming_back_across_the_cut_keeps_the_second_halfs_work() {
        // c0 and c5 come back in the second half, long after the first half closed them (8
        // cases open): they are judged again from their rows, and the rest of the second
        // half's work stands (the file is not read on from the cut).
        let back = "c0,observe,2026-01-01T11:00:00Z,,,,,,\nc5,observe,2026-01-01T11:00:00Z,,,,,,\n";
        let text = format!("{HEADER}{}{}{back}", rows(0, 100, "x"), rows(100, 200, "x"));
        assert_eq!(outcome_with(&text, 8), "split");
        // A case of the second half's own coming back in it is still read on.
        let own = "c150,observe,2026-01-01T11:00:00Z,,,,,,\n";
        let text = format!("{HEADER}{}{}{own}", rows(0, 100, "x"), rows(100, 200, "x"));
        assert_eq!(outcome_with(&text, 8), "read on");
    }
}
