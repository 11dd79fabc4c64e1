//! The limits of options and inputs: values beyond them are usage errors (exit 2) or located
//! input errors rather than panics, runaway allocation or a thread per request.
//! `docs/safety.md` lists them for users.

/// The most threads `--jobs` may ask for. More than a few per CPU only costs memory (each
/// thread has its own buffers and open cases), and thousands fail to spawn under a memory
/// limit.
pub const MAX_JOBS: usize = 256;

/// The stack of every thread leasejudge starts (a file's reader, the half of a split file,
/// the parser of a pipelined file, the progress display), given explicitly: a thread started
/// without one gets `RUST_MIN_STACK` bytes, which an environment may set as low as it likes
/// (16 KiB aborted every file thread, and left a temporary file behind). 8 MiB, what the main
/// thread runs the same code on (a Linux process's default stack); only what is used is
/// touched, and up to [`MAX_JOBS`] of them fit in the address space of a 4 GiB limit.
pub const THREAD_STACK_BYTES: usize = 8 << 20;

/// The most cases `--open-cases` may keep open at once (per half of a split file). Each open
/// case holds its state and pending rows, so this bounds memory at a few hundred megabytes.
pub const MAX_OPEN_CASES: usize = 1_000_000;

/// The most permutations `reorder --permutations` may try per case (each is tried as it is
/// drawn, but a 16-byte hash of each is kept while a case is explored, to avoid repeats).
pub const MAX_PERMUTATIONS: usize = 1_000_000;

/// The most rows of one case `reorder` explores: each permutation is replayed from the case's
/// rows held in memory (about 800 bytes a row, so at most some 80 MB). A longer case is a
/// located input error: a case of a million rows is not one a lab designer permutes, and
/// holding it would take gigabytes.
pub const MAX_REORDER_CASE_ROWS: usize = 100_000;

/// The rows one case's minimal-witness search (`explain --witness`) may replay in all, each
/// replay of some of its rows counting those rows. A search leaves out halves, then smaller
/// runs, then one row at a time; a pass of one row at a time over `n` rows replays about
/// `2 * n * n` rows, so this finishes the search of every case whose candidate rows (its
/// accepted offers, acks, renewals, cancellations and results, with a few more) number up to
/// about 2,000, in half a second or so; past it the search stops with the witness it has,
/// marked not minimal.
pub const WITNESS_REPLAYED_ROWS: u64 = 1 << 23;

/// The most rows of one case a minimal-witness search holds in memory (about 50 MiB): its
/// candidate rows, or else the whole case. A case with more of both is not searched: its
/// witness is the whole case, marked not minimal.
pub const WITNESS_HELD_ROWS: usize = 1 << 16;

/// The most rows `generate` may hold at once: the rows of every case in progress, that is
/// `--interleave` times the largest `--rows-per-case` (about 200 bytes each).
pub const MAX_GENERATED_ROWS_IN_MEMORY: u64 = 1_000_000;

/// The longest record a reader accepts (one CSV line with its quoted newlines, one NDJSON line,
/// one element of a JSON array: a row, or a case of a JSON matrix): longer is a located input
/// error, not an allocation that grows until memory runs out (`/dev/zero` as input).
pub const MAX_RECORD_BYTES: usize = 1 << 20;

/// The largest file read whole: a workbook, a gradebook, a submission given on standard
/// input; and the largest case of a `{"cases": [...]}` JSON case file, each read whole to
/// find its `case_id` among its keys. CSV, NDJSON and JSON arrays (case files, and the
/// matrices `grade` and `check` compare) are read a record at a time and have no limit.
pub const MAX_DOCUMENT_BYTES: u64 = 256 << 20;

/// The most a workbook's parts may inflate to, all those read together (the sheet, its
/// shared strings, its styles, its list of sheets): what a file read whole may hold. The
/// counting is of bytes as they are inflated, not of the sizes the archive declares (which a
/// zip bomb declares small).
pub const MAX_WORKBOOK_INFLATED_BYTES: u64 = MAX_DOCUMENT_BYTES;

/// The most rows a roster (a Canvas gradebook export, a Moodle grading worksheet, a GitHub
/// Classroom roster) may have: a class is graded with each learner's outcome held (about a
/// kilobyte each, the roster's row besides), and written back whole, so its size is bounded
/// rather than streamed; 100,000 learners, as many as a download may have entries
/// (`MAX_ZIP_ENTRIES`), are graded within 256 MiB (a million took
/// 1.7 GB). A longer roster is a located error where it passes the limit.
pub const MAX_ROSTER_ROWS: usize = 100_000;

/// The most cells a roster may have, all its rows' together: each is held (a Canvas export
/// has a column per assignment; 70 columns of 100,000 learners would be 7,000,000 cells and
/// as many strings).
pub const MAX_ROSTER_CELLS: usize = 2_000_000;

/// The most text a roster may hold in the cells it keeps (a Canvas export's student columns
/// and the graded assignment's; every cell of the other platforms'), all together: each is
/// held while the class is graded, and the rows and cells above do not bound it (100,000
/// learners of 20 cells of 120 bytes, 220 MB, peaked at 511 MiB). 16 MiB is 160 bytes for
/// each of 100,000 learners (a Canvas export's kept cells are a name, ids, a login, a section
/// and a grade); with the most rows and cells a roster may have, every cell kept, the class
/// is graded within 256 MiB (`docs/safety.md`, its limits).
pub const MAX_ROSTER_BYTES: usize = 16 << 20;

/// The most of an input that cannot be read twice (standard input, a pipe, a FIFO) that is
/// copied to a temporary file to read again: by the engine, for a case that comes back (past
/// it the copy stops, and only such a case is an error), and by `validate`, which reads its
/// inputs twice (past it, the input is an error). An endless input copied 2.5 GB in 5 s.
pub const MAX_KEPT_INPUT_BYTES: u64 = 4 << 30;

/// The most the parts of a workbook that are kept in memory while its sheet is read (its
/// shared strings, styles, list of sheets and their relationships; an `.ods` file's manifest)
/// may inflate to together: what they hold in memory is at most this, which keeps `validate`
/// within 96 MiB (at 64 MiB it took 105). About 650,000 rows of a messy case file saved from
/// a spreadsheet, whose text cells are all shared strings.
pub const MAX_WORKBOOK_HELD_BYTES: u64 = 32 << 20;

/// The most text a workbook's sheet may hand on, its cells as they are read (a shared string
/// counts each time a cell uses it, an `.ods` cell or row each time it is repeated): what a
/// file read whole may hold, so that a small sheet of references to one long string is not a
/// terabyte of rows.
pub const MAX_WORKBOOK_TEXT_BYTES: u64 = MAX_DOCUMENT_BYTES;

/// The most of a workbook's zip directory that is read (its list of parts, each kept in
/// memory while the workbook is read): about 10,000 parts, where a workbook has tens.
pub const MAX_WORKBOOK_DIRECTORY_BYTES: u64 = 1 << 20;

/// The rows a sheet may have, as in Excel and LibreOffice (row 1048576 is the last).
pub const MAX_SHEET_ROWS: u64 = 1 << 20;

/// The columns a sheet may have, as in Excel (XFD is the last).
pub const MAX_SHEET_COLUMNS: u64 = 1 << 14;

/// The error for a record longer than [`MAX_RECORD_BYTES`].
pub fn record_too_long() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "a record longer than {} bytes (1 MiB), the most one record may hold",
            MAX_RECORD_BYTES
        ),
    )
}

/// The error for a file read whole that is larger than [`MAX_DOCUMENT_BYTES`], of kind
/// [`std::io::ErrorKind::FileTooLarge`].
fn document_too_large() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::FileTooLarge,
        format!(
            "larger than {} bytes (256 MiB), the most a file read whole (a workbook, a \
             gradebook, a golden file or a submission on a pipe or standard input) may hold",
            MAX_DOCUMENT_BYTES
        ),
    )
}

/// Reads all of `reader`, up to [`MAX_DOCUMENT_BYTES`]; a longer input is an error rather than
/// memory that grows until the allocator gives up (`/dev/zero`, an endless pipe).
pub fn read_document(reader: impl std::io::Read) -> std::io::Result<Vec<u8>> {
    read_document_into(reader, Vec::new())
}

/// [`read_document`] of a file, into a buffer sized to it: growing by doubling would have
/// held up to twice the file (and both buffers while copying), for a large golden file.
pub fn read_file_document(file: std::fs::File) -> std::io::Result<Vec<u8>> {
    let size = file
        .metadata()
        .map_or(0, |m| m.len())
        .min(MAX_DOCUMENT_BYTES)
        + 1;
    read_document_into(file, Vec::with_capacity(size as usize))
}

fn read_document_into(reader: impl std::io::Read, mut bytes: Vec<u8>) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    reader
        .take(MAX_DOCUMENT_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
        return Err(document_too_large());
    }
    Ok(bytes)
}

/// Copies all of `reader`, up to [`MAX_DOCUMENT_BYTES`], to an anonymous temporary file, and
/// returns it at its start: a file that must be read out of order (a workbook's zip archive is
/// read from its end) without holding it in memory. A longer input is the error of
/// [`read_document`].
pub fn spool_document(reader: impl std::io::Read) -> std::io::Result<std::fs::File> {
    use std::io::Seek;
    let mut file = crate::store::scratch_file()?;
    let copied = std::io::copy(
        &mut reader.take(MAX_DOCUMENT_BYTES + 1),
        &mut crate::store::TempWriter(&mut file),
    )?;
    if copied > MAX_DOCUMENT_BYTES {
        return Err(document_too_large());
    }
    file.rewind()?;
    Ok(file)
}

/// Refuses a regular file larger than [`MAX_DOCUMENT_BYTES`] by its size, before a byte of it
/// is read (reading 300 MB to find that out took seconds and the memory); a pipe or a device
/// has no size and is bounded by [`read_document`] instead.
pub fn check_document_size(file: &std::fs::File) -> std::io::Result<()> {
    let meta = file.metadata()?;
    if meta.is_file() && meta.len() > MAX_DOCUMENT_BYTES {
        return Err(document_too_large());
    }
    Ok(())
}

/// Reads the file at `path` whole: [`check_document_size`], then [`read_document`].
pub fn read_document_file(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    check_document_size(&file)?;
    read_file_document(file)
}

/// Parses a whole number from 1 to `max` for the option `name`.
fn count(text: &str, max: usize) -> Result<usize, String> {
    let n: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("not a whole number: {text:?}"))?;
    if n == 0 || n > max {
        return Err(format!("must be from 1 to {max}: {text}"));
    }
    Ok(n)
}

/// `--jobs`: 1 to [`MAX_JOBS`].
pub fn parse_jobs(text: &str) -> Result<usize, String> {
    count(text, MAX_JOBS)
}

/// `--open-cases`: 1 to [`MAX_OPEN_CASES`].
pub fn parse_open_cases(text: &str) -> Result<usize, String> {
    count(text, MAX_OPEN_CASES)
}

/// `--permutations`: 1 to [`MAX_PERMUTATIONS`].
pub fn parse_permutations(text: &str) -> Result<usize, String> {
    count(text, MAX_PERMUTATIONS)
}

/// Raises this process's soft limit on open files to its hard limit, as Go's runtime does at
/// start-up: `grade` keeps each graded submission's marks in an anonymous temporary file until
/// the report is written, so a class of a thousand large submissions holds a thousand files
/// open, past the soft limit of 1,024 many systems start with. Failing is not an error: the
/// run goes on under the old limit.
pub fn raise_open_files_limit() {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the struct it is given, which lives across the call.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0
            || limit.rlim_cur >= limit.rlim_max
        {
            return;
        }
        // macOS refuses more than its OPEN_MAX (10,240) even under an unlimited hard limit.
        for wanted in [limit.rlim_max, limit.rlim_max.min(10_240)] {
            let raised = libc::rlimit {
                rlim_cur: wanted,
                rlim_max: limit.rlim_max,
            };
            // SAFETY: setrlimit reads the struct it is given.
            if wanted > limit.rlim_cur
                && unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0
            {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_bounded_on_both_sides() {
        assert_eq!(parse_jobs("1"), Ok(1));
        assert_eq!(parse_jobs("256"), Ok(256));
        assert!(parse_jobs("0").is_err());
        assert!(parse_jobs("257").is_err());
        assert!(parse_jobs("18446744073709551616").is_err());
        assert!(parse_open_cases("0").is_err());
        assert_eq!(parse_open_cases("1000000"), Ok(1_000_000));
        assert!(parse_open_cases("1000001").is_err());
    }
}
