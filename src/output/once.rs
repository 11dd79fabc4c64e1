//! Inputs a command reads twice by name (`validate`'s two passes; `autograder`, which checks
//! the case files against the key and then carries them): one that cannot be read twice
//! (standard input, a FIFO, a pipe named `/dev/fd/N` as a shell's `<(…)` gives) is copied once,
//! as it is read, and every read after is of the copy (issue 36: a FIFO's second open waited
//! for a writer that had gone, a pipe's second read found nothing, so `validate` said "0 rows"
//! and `autograder` carried an empty case file it never checked, and standard input was
//! copied without bound). A copy holds at most `limit` bytes
//! ([`MAX_KEPT_INPUT_BYTES`](crate::limits::MAX_KEPT_INPUT_BYTES) for the commands): a
//! longer input is a located error, found as it is copied, before it is read. One whose first
//! bytes are not text (`/dev/zero`) is copied no further than them: its read says what it is.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;

use super::{GuardedTemp, GuardedTempDir};
use crate::input::content::{sniff, Content, HEAD_BYTES};
use crate::input::{InputError, Source};

/// The inputs as both passes read them, and the copies they read (removed when dropped, and
/// by an interrupting signal).
pub struct ReadTwice {
    /// The sources, each input that cannot be read twice replaced by its copy (named as
    /// before).
    pub sources: Vec<Source>,
    _copies: Vec<GuardedTemp>,
    _folder: Option<GuardedTempDir>,
}

/// `sources` with every input that cannot be read twice copied (`Err`: one is longer than
/// `limit`, the error that says so). Standard input's copy has no name, so it is read as CSV
/// unless a format is given, as standard input is; a FIFO's or a pipe's copy has its name, so
/// it is read in the format its name says, as the input would have been.
pub fn read_twice(sources: &[Source], limit: u64) -> io::Result<Result<ReadTwice, InputError>> {
    let mut copies = Vec::new();
    let mut folder: Option<GuardedTempDir> = None;
    let mut readable = Vec::with_capacity(sources.len());
    for source in sources {
        let copied_to = match &source.path {
            None => {
                let mut copy = GuardedTemp::new()?;
                if !copy_within(io::stdin().lock(), copy.as_file_mut(), limit)? {
                    return Ok(Err(too_long(&source.name, limit)));
                }
                let path = copy.path().to_owned();
                copies.push(copy);
                Some(path)
            }
            // A name that cannot be opened is read as it is: its read says why not.
            Some(path) if is_read_once(path) => match File::open(path) {
                Err(_) => None,
                Ok(input) => {
                    let folder = match &mut folder {
                        Some(folder) => folder,
                        None => folder.insert(GuardedTempDir::private("leasejudge-inputs-")?),
                    };
                    // In a folder of its own, under its own name: its format is its name's.
                    let place = folder.path().join(readable.len().to_string());
                    std::fs::create_dir(&place)?;
                    let path = place.join(path.file_name().unwrap_or(path.as_os_str()));
                    let mut copy = File::create_new(&path)?;
                    if !copy_within(input, &mut copy, limit)? {
                        return Ok(Err(too_long(&source.name, limit)));
                    }
                    Some(path)
                }
            },
            Some(_) => None,
        };
        readable.push(match copied_to {
            Some(path) => Source {
                name: source.name.clone(),
                path: Some(path),
                options: source.options.clone(),
            },
            None => source.clone(),
        });
    }
    Ok(Ok(ReadTwice {
        sources: readable,
        _copies: copies,
        _folder: folder,
    }))
}

/// Whether `path` names an input that cannot be read twice: there, and not a regular file
/// (a FIFO, a pipe, a device).
fn is_read_once(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| !meta.is_file() && !meta.is_dir())
}

/// The error of an input longer than `limit`.
fn too_long(name: &str, limit: u64) -> InputError {
    InputError::new(
        name,
        0,
        format!(
            "it is longer than {limit} bytes, the most kept of an input that cannot be read \
             twice (standard input, a pipe, a FIFO) to read again; give it as a file"
        ),
    )
}

/// Copies `input` to `copy`, at most `limit` bytes and one more; whether it ended within
/// `limit`. Input whose first bytes are not text is copied no further than them.
fn copy_within(input: impl Read, copy: &mut File, limit: u64) -> io::Result<bool> {
    let mut input = input.take(limit.saturating_add(1));
    let mut head = Vec::with_capacity(HEAD_BYTES);
    (&mut input)
        .take(HEAD_BYTES as u64)
        .read_to_end(&mut head)?;
    let mut out = crate::store::TempWriter(copy);
    out.write_all(&head)?;
    let mut copied = head.len() as u64;
    if !matches!(sniff(&head), Content::NotText(_)) {
        copied += io::copy(&mut input, &mut out)?;
    }
    out.flush()?;
    Ok(copied <= limit)
}
