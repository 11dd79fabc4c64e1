//! How a run's files are read: one after the other into one run (a file parsed on one thread
//! while the other replays, a lone large CSV file in two halves), or several files by a few
//! workers at once and merged in command-line order.

use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use crate::input::{
    parse_row_into, read, read_cells, BadRow, CaseRead, InputErrors, InputFormat, Locate,
    NoObserver, ParsedRow, RawCells, RowResult, RowSink, Source,
};
use crate::lease::Outcome;

use super::ids::{IdLog, SeenIds};
use super::opened::OpenedFile;
use super::rules::Location;
use super::run::StreamRun;
use super::spill::{Spill, SpillFile};
use super::watch::{InputCopy, Watched};
use super::{filter_for, row_hash, split, Attempt, StreamSettings};
use crate::matrix::MatrixEncoding;

/// Rows handed from the parsing thread to the replaying one at a time. Batches go back and
/// forth (see [`BatchFiller`]); small ones, few in flight (the channel holds
/// [`BATCHES_IN_FLIGHT`]), keep the rows crossing between the cores in cache: 1024-row
/// batches, eight in flight, spent about 8% more CPU (m1.csv, alternating runs).
const BATCH_ROWS: usize = 256;
/// Full batches the channel holds before the parser waits.
const BATCHES_IN_FLIGHT: usize = 4;

/// A row as the parsing thread hands it over.
struct BatchRow {
    line: u64,
    /// [`row_hash`] of `row`.
    hash: u64,
    row: RowResult,
}

/// Rows in file order; a batch is sent with how many of its rows are filled.
type Batch = Vec<BatchRow>;

/// The parsing thread's end of the pipeline: parses rows into the places of rows already
/// replayed, and sends each full batch.
struct BatchFiller {
    batch: Batch,
    filled: usize,
    sender: std::sync::mpsc::SyncSender<(Batch, usize)>,
    recycled: std::sync::mpsc::Receiver<Batch>,
}

impl BatchFiller {
    /// The index of the next row's place (which may still hold an old row).
    fn next_slot(&mut self, line: u64) -> usize {
        if self.filled == self.batch.len() {
            self.batch.push(BatchRow {
                line,
                hash: 0,
                row: Err(BadRow::default()),
            });
        } else {
            self.batch[self.filled].line = line;
        }
        self.filled += 1;
        self.filled - 1
    }

    /// Sends the batch once it is full.
    fn sent_if_full(&mut self) {
        if self.filled == BATCH_ROWS {
            let empty = self
                .recycled
                .try_recv()
                .unwrap_or_else(|_| Vec::with_capacity(BATCH_ROWS));
            let full = std::mem::replace(&mut self.batch, empty);
            // A closed channel means the replay stopped; the stop flag ends the reading.
            let _ = self.sender.send((full, BATCH_ROWS));
            self.filled = 0;
        }
    }

    /// Adds a row parsed elsewhere (JSON).
    fn put(&mut self, line: u64, row: RowResult) {
        let index = self.next_slot(line);
        let slot = &mut self.batch[index];
        slot.hash = row_hash(&row);
        slot.row = row;
        self.sent_if_full();
    }

    /// Sends the last rows.
    fn finish(self) {
        if self.filled > 0 {
            let _ = self.sender.send((self.batch, self.filled));
        }
    }
}

impl RowSink for BatchFiller {
    fn row(
        &mut self,
        line: u64,
        cells: &RawCells<'_>,
        errors: &mut InputErrors,
        locate: &Locate<'_>,
    ) {
        let index = self.next_slot(line);
        let slot = &mut self.batch[index];
        if !parse_row_into(cells, errors, locate, &mut slot.row) {
            slot.hash = row_hash(&slot.row);
        }
        self.sent_if_full();
    }
}

/// A [`RowSink`] that parses every row into one place, reusing its strings, and replays it
/// there: the single-threaded path allocates and copies no row.
pub(super) struct InPlace<'a, F> {
    pub(super) slot: RowResult,
    /// [`row_hash`] of `slot`.
    pub(super) hash: u64,
    pub(super) replay: &'a mut F,
}

impl<F: FnMut(u64, &RowResult, u64)> RowSink for InPlace<'_, F> {
    fn row(
        &mut self,
        line: u64,
        cells: &RawCells<'_>,
        errors: &mut InputErrors,
        locate: &Locate<'_>,
    ) {
        // Rows of a case usually come together: its id is hashed once.
        if !parse_row_into(cells, errors, locate, &mut self.slot) {
            self.hash = row_hash(&self.slot);
        }
        (self.replay)(line, &self.slot, self.hash);
    }
}

/// Feeds one source into `run`; `on_row` sees replayed rows. With `pipelined`, a file is
/// parsed on a second thread while this one replays (standard input is not: a live stream
/// must not wait for a batch to fill). Standard input is copied to `spool` as it is read.
/// A file is read, and read again, through one handle: `opened` if the caller opened it.
#[allow(clippy::too_many_arguments)]
pub(super) fn stream_source(
    run: &mut StreamRun,
    file_index: usize,
    source: &Source,
    settings: &StreamSettings<'_>,
    spool: Option<&Arc<InputCopy>>,
    opened: Option<OpenedFile>,
    stop: &AtomicBool,
    pipelined: bool,
    on_row: &mut dyn FnMut(Location<'_>, &ParsedRow, &Outcome),
) -> io::Result<()> {
    let mut io_error = None;
    let format = source.format(settings.input_format);
    let opened = match (opened, &source.path) {
        (Some(opened), _) => Some(Ok(opened)),
        (None, Some(path)) => Some(OpenedFile::open(&source.name, path, format)),
        (None, None) => None,
    };
    // A file that cannot be read again (a pipe, a FIFO) is read again from its copy.
    let reread = match (&opened, spool) {
        (_, Some(spool)) => Some(OpenedFile::spool(&source.name, spool)),
        (Some(Ok(opened)), None) => Some(opened.clone()),
        _ => None,
    };
    run.begin_file(file_index, &source.name, format, &source.options, reread);
    let mut replay = |line: u64, row: &RowResult, hash: u64| {
        let at = Location {
            file_index,
            file: &source.name,
            line,
        };
        if let (Some(outcome), Ok(parsed)) =
            (run.feed_or_stop(at, row, hash, stop, &mut io_error), row)
        {
            on_row(at, parsed, &outcome);
        }
    };
    let errors = match (opened, pipelined) {
        (Some(Err(e)), _) => InputErrors::one(e),
        (Some(Ok(opened)), true) => {
            let watched = Watched {
                inner: opened.sequential()?,
                progress: settings.progress,
                spool: spool.map(|copy| &**copy),
                stop,
            };
            let (sender, receiver) =
                std::sync::mpsc::sync_channel::<(Batch, usize)>(BATCHES_IN_FLIGHT);
            // Emptied batches go back to the parser with their rows, which it parses the
            // next rows into: no row is allocated on one thread and freed on the other,
            // and none is moved through the channel (perf: a third of the run went on
            // allocating, freeing and copying rows).
            let (recycle, recycled) = std::sync::mpsc::channel::<Batch>();
            std::thread::scope(|scope| {
                let parser = std::thread::Builder::new()
                    .name("leasejudge-parse".into())
                    .stack_size(crate::limits::THREAD_STACK_BYTES)
                    .spawn_scoped(scope, move || {
                        let mut errors = InputErrors::new();
                        let mut filler = BatchFiller {
                            batch: Vec::with_capacity(BATCH_ROWS),
                            filled: 0,
                            sender,
                            recycled,
                        };
                        let how = CaseRead::new(&source.name, format, &source.options);
                        match format {
                            InputFormat::Csv => {
                                read_cells(watched, &how, &mut errors, &mut filler);
                            }
                            _ => read(
                                watched,
                                &how,
                                &mut errors,
                                &mut |line, row| filler.put(line, row),
                                &mut NoObserver,
                            ),
                        }
                        filler.finish();
                        errors
                    })?;
                for (batch, filled) in receiver {
                    for row in &batch[..filled] {
                        replay(row.line, &row.row, row.hash);
                    }
                    // The parser may be done and gone: then the batch is simply freed.
                    let _ = recycle.send(batch);
                }
                parser
                    .join()
                    .map_err(|_| io::Error::other("the parsing thread panicked"))
            })?
        }
        (opened, _) => {
            let reader: Box<dyn Read> = match opened {
                Some(Ok(opened)) => Box::new(opened.sequential()?),
                _ => Box::new(io::stdin().lock()),
            };
            {
                let watched = Watched {
                    inner: reader,
                    progress: settings.progress,
                    spool: spool.map(|copy| &**copy),
                    stop,
                };
                let mut errors = InputErrors::new();
                let how = CaseRead::new(&source.name, format, &source.options);
                if format == InputFormat::Csv {
                    let mut sink = InPlace {
                        slot: Err(BadRow::default()),
                        hash: 0,
                        replay: &mut replay,
                    };
                    read_cells(watched, &how, &mut errors, &mut sink);
                } else {
                    read(
                        watched,
                        &how,
                        &mut errors,
                        &mut |line, row| replay(line, &row, row_hash(&row)),
                        &mut NoObserver,
                    );
                }
                errors
            }
        }
    };
    if let Some(e) = io_error {
        return Err(e);
    }
    run.end_file(errors)
}

/// Whether `path` names a regular file (following links), which can be read twice: anything
/// else (a FIFO, `/dev/fd/N` of a pipe, a device) is read once.
pub(super) fn is_regular_file(path: &std::path::Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| meta.is_file())
}

/// Reads the files one after the other into one run (a lone large CSV file in two halves).
pub(super) fn stream_sequential(
    sources: &[Source],
    settings: &StreamSettings<'_>,
    encoding: &'static dyn MatrixEncoding,
    on_row: &mut dyn FnMut(Location<'_>, &ParsedRow, &Outcome),
) -> io::Result<Attempt> {
    let new_run = |shared| {
        let seen = Arc::new(filter_for(sources));
        StreamRun::new(
            settings.run_as_of,
            settings.open_cases,
            Some(encoding),
            seen,
            shared,
        )
        .map(|run| run.bounded_by(settings))
    };
    // A lone file may be split, its two halves sharing the filter.
    let run = new_run(sources.len() == 1 && settings.jobs > 1)?;
    stream_run(run, sources, settings, on_row)
}

/// Reads the files one after the other into `run` (a lone large CSV file in two halves when
/// `run` was made to share its filter, [`StreamRun::new`]).
pub(super) fn stream_run(
    mut run: StreamRun,
    sources: &[Source],
    settings: &StreamSettings<'_>,
    on_row: &mut dyn FnMut(Location<'_>, &ParsedRow, &Outcome),
) -> io::Result<Attempt> {
    let stop = AtomicBool::new(false);
    let mut first = None;
    if let [source] = sources {
        // Opened once: the halves, or the whole read, and every read again go through it.
        let format = source.format(settings.input_format);
        first = source
            .path
            .as_deref()
            .and_then(|path| OpenedFile::open(&source.name, path, format).ok());
        // One large file: two threads, one per half.
        let split = match &first {
            Some(opened) => split::stream_split(&mut run, 0, source, settings, &stop, opened)?,
            None => split::Split::Whole,
        };
        match split {
            split::Split::Whole => run.suspects = None,
            split::Split::Done(tail) => {
                return Ok(if run.errors.is_empty() {
                    Attempt::Done(
                        [Some(run.spill.close()?), tail]
                            .into_iter()
                            .flatten()
                            .collect(),
                    )
                } else {
                    Attempt::Failed(run.errors)
                });
            }
        }
    }
    stream_in_order(run, sources, first, settings, &stop, on_row)
}

/// Reads the files one after the other, whole, into `run` (the first through `first` if
/// it was opened already).
pub(super) fn stream_in_order(
    mut run: StreamRun,
    sources: &[Source],
    mut first: Option<OpenedFile>,
    settings: &StreamSettings<'_>,
    stop: &AtomicBool,
    on_row: &mut dyn FnMut(Location<'_>, &ParsedRow, &Outcome),
) -> io::Result<Attempt> {
    for (file_index, source) in sources.iter().enumerate() {
        // Standard input, or a file that is no regular file (a pipe, a FIFO), is copied as it
        // is read, so that it can be read again; the copy goes when the input has been read.
        let once = match (&first, &source.path) {
            (Some(opened), _) => opened.len().is_none(),
            (None, Some(path)) => !is_regular_file(path),
            (None, None) => true,
        };
        let spool = match once {
            true => Some(Arc::new(InputCopy::new(settings.kept_input_bytes)?)),
            false => None,
        };
        stream_source(
            &mut run,
            file_index,
            source,
            settings,
            spool.as_ref(),
            first.take(),
            stop,
            settings.jobs > 1,
            on_row,
        )?;
    }
    Ok(if run.errors.is_empty() {
        Attempt::Done(vec![run.spill.close()?])
    } else {
        Attempt::Failed(run.errors)
    })
}

/// What a file's pass leaves for the merge.
struct FileResult {
    errors: InputErrors,
    spill: SpillFile,
    /// The worker that read it, and where its closed cases are in that worker's log.
    worker: usize,
    ids: (u64, u64),
}

/// Files read by at most `jobs` workers (this thread and `jobs - 1` others, never more than
/// there are files), each keeping one spill and one id log for every file it reads; the
/// merge checks case ids across files. A case id in two files sends the run to
/// [`stream_sequential`], which reports it with both places.
pub(super) fn stream_parallel(
    sources: &[Source],
    settings: &StreamSettings<'_>,
    encoding: &'static dyn MatrixEncoding,
) -> io::Result<Attempt> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let results: Vec<std::sync::Mutex<Option<io::Result<FileResult>>>> = sources
        .iter()
        .map(|_| std::sync::Mutex::new(None))
        .collect();
    let workers = settings.jobs.clamp(1, sources.len().max(1));
    // One run per worker for all its files (setting one up per file cost more than reading
    // a small file): its filter sized for its share of the input, its log read per file.
    let bytes: u64 = sources
        .iter()
        .filter_map(|s| std::fs::metadata(s.path.as_ref()?).ok())
        .map(|m| m.len())
        .sum();
    let work = |worker: usize| -> io::Result<IdLog> {
        let mut run = StreamRun::with_stores(
            settings.run_as_of,
            settings.open_cases,
            Arc::new(SeenIds::for_input_bytes(bytes / workers as u64)),
            Spill::new(Some(encoding))?,
            IdLog::new()?,
        )
        .bounded_by(settings);
        loop {
            let file_index = next.fetch_add(1, Ordering::Relaxed);
            let Some(source) = sources.get(file_index) else {
                break;
            };
            let from = run.ids.restart();
            let streamed = stream_source(
                &mut run,
                file_index,
                source,
                settings,
                None,
                None,
                &stop,
                false,
                &mut |_, _, _| {},
            );
            let result = streamed.and_then(|()| {
                Ok(FileResult {
                    errors: std::mem::take(&mut run.errors),
                    spill: run.spill.segment()?,
                    worker,
                    ids: (from, run.ids.written()),
                })
            });
            *results[file_index].lock().expect("no panics while locked") = Some(result);
        }
        run.ids.close()?;
        Ok(run.ids)
    };
    let work = &work;
    let logs: Vec<io::Result<IdLog>> = std::thread::scope(|scope| {
        let mut threads = Vec::new();
        for worker in 1..workers {
            // A thread that cannot be started leaves its share to the others.
            match std::thread::Builder::new()
                .name("leasejudge-file".into())
                .stack_size(crate::limits::THREAD_STACK_BYTES)
                .spawn_scoped(scope, move || work(worker))
            {
                Ok(thread) => threads.push(thread),
                Err(_) => break,
            }
        }
        let mut logs = vec![work(0)];
        for thread in threads {
            logs.push(
                thread
                    .join()
                    .unwrap_or_else(|_| Err(io::Error::other("a worker thread panicked"))),
            );
        }
        logs
    });
    let mut logs: Vec<IdLog> = logs.into_iter().collect::<io::Result<_>>()?;
    let seen = filter_for(sources);
    let mut earlier: Vec<(usize, u64, u64)> = Vec::new();
    let mut spills = Vec::new();
    let mut errors = InputErrors::new();
    for result in results {
        let file = result
            .into_inner()
            .expect("no panics while locked")
            .ok_or_else(|| io::Error::other("a file was not read"))??;
        let (from, to) = file.ids;
        // Ids the filter may have seen in an earlier file (or this one: a case that came
        // back is logged again) are looked for in the earlier files' logs.
        let mut maybe: std::collections::HashSet<String> = std::collections::HashSet::new();
        logs[file.worker].for_each_in(from, to, &mut |id| {
            if seen.may_contain(id) {
                maybe.insert(id.to_owned());
            }
            seen.insert(id);
            true
        })?;
        let mut duplicate = false;
        if !maybe.is_empty() {
            for &(worker, from, to) in &earlier {
                logs[worker].for_each_in(from, to, &mut |id| {
                    duplicate = maybe.contains(id);
                    !duplicate
                })?;
                if duplicate {
                    break;
                }
            }
        }
        if duplicate {
            // An input error: one pass over the files in order reports it exactly.
            return stream_sequential(sources, settings, encoding, &mut |_, _, _| {});
        }
        errors.append(file.errors);
        spills.push(file.spill);
        earlier.push((file.worker, from, to));
    }
    Ok(if errors.is_empty() {
        Attempt::Done(spills)
    } else {
        Attempt::Failed(errors)
    })
}
