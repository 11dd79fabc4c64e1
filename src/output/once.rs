//! Inputs a command reads twice by name (`validate`'s two passes; `autograder`, which checks
//! the case files against the key and then carries them): one that cannot be read twice
//! (standard input, a FIFO, a pipe named `/dev/fd/N` as a shell's `<(…)` gives) is copied once,
//! as it is read, and every read after is of the copy (issue 36: a FIFO's second open waited
//! for a writer that had gone, a pipe's second read found nothing, so `validate` said "0 rows"
//! and `autograder` carried an empty case file it never checked, and standard input was
//! copied without bound). A copy holds at most `limit` bytes
//! ([`MAX_KEPT_INPUT_BYTES`](crate::limits::MAX_KEPT_INPUT_BYTES) for the commands): a
//! longer input is found as it is copied, before it is read. One whose first bytes are not
//! text (`/dev/zero`) is copied no further than them: its read says what it is.
//!
//! Paths in, paths out: what an input is and its errors are the caller's
//! (`validation::read_twice` gives case files' sources and says which is too long).

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::{GuardedTemp, GuardedTempDir};

/// How an input that is not text is told by its first bytes (the input layer's rule, given
/// by the caller: the output layer knows no input format).
#[derive(Clone, Copy)]
pub struct NotText<'a> {
    /// How many of its first bytes tell.
    pub head_bytes: usize,
    /// Whether they say it is not text.
    pub says: &'a dyn Fn(&[u8]) -> bool,
}

/// The copies of the inputs that cannot be read twice (removed when dropped, and by an
/// interrupting signal).
pub struct ReadOnce {
    /// Per input, in order, the copy to read in its place (`None`: read the input itself).
    pub copies: Vec<Option<PathBuf>>,
    _copies: Vec<GuardedTemp>,
    _folder: Option<GuardedTempDir>,
}

/// Every input of `inputs` (a path, or `None` for standard input) that cannot be read twice,
/// copied (`Err`: the index of one longer than `limit`). Standard input's copy has no name; a
/// FIFO's or a pipe's copy has its name, in a folder of its own. An input whose first bytes
/// say it is not text (`not_text`) is copied no further than them.
pub fn copy_read_once(
    inputs: &[Option<&Path>],
    limit: u64,
    not_text: NotText<'_>,
) -> io::Result<Result<ReadOnce, usize>> {
    let mut guarded = Vec::new();
    let mut folder: Option<GuardedTempDir> = None;
    let mut copies = Vec::with_capacity(inputs.len());
    for (index, input) in inputs.iter().enumerate() {
        let copied_to = match input {
            None => {
                let mut copy = GuardedTemp::new()?;
                if !copy_within(io::stdin().lock(), copy.as_file_mut(), limit, not_text)? {
                    return Ok(Err(index));
                }
                let path = copy.path().to_owned();
                guarded.push(copy);
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
                    let place = folder.path().join(copies.len().to_string());
                    super::creating_in_temp(|| std::fs::create_dir(&place))?;
                    let path = place.join(path.file_name().unwrap_or(path.as_os_str()));
                    let mut copy = super::creating_in_temp(|| File::create_new(&path))?;
                    if !copy_within(input, &mut copy, limit, not_text)? {
                        return Ok(Err(index));
                    }
                    Some(path)
                }
            },
            Some(_) => None,
        };
        copies.push(copied_to);
    }
    Ok(Ok(ReadOnce {
        copies,
        _copies: guarded,
        _folder: folder,
    }))
}

/// Whether `path` names an input that cannot be read twice: there, and not a regular file
/// (a FIFO, a pipe, a device).
fn is_read_once(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| !meta.is_file() && !meta.is_dir())
}

/// Copies `input` to `copy`, at most `limit` bytes and one more; whether it ended within
/// `limit`. Input whose first bytes say it is not text is copied no further than them.
fn copy_within(
    input: impl Read,
    copy: &mut File,
    limit: u64,
    not_text: NotText<'_>,
) -> io::Result<bool> {
    let mut input = input.take(limit.saturating_add(1));
    let mut head = Vec::with_capacity(not_text.head_bytes);
    (&mut input)
        .take(not_text.head_bytes as u64)
        .read_to_end(&mut head)?;
    let mut out = crate::store::TempWriter(copy);
    out.write_all(&head)?;
    let mut copied = head.len() as u64;
    if !(not_text.says)(&head) {
        copied += io::copy(&mut input, &mut out)?;
    }
    out.flush()?;
    Ok(copied <= limit)
}
