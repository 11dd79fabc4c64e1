//! Case files a command reads twice by name (`validate`'s two passes; `autograder`, which
//! checks the case files against the key and then carries them): each that cannot be read
//! twice (standard input, a FIFO, a pipe) copied once by [`crate::output::copy_read_once`],
//! its source read from the copy (named as before), and one longer than the copy may hold a
//! located error.

use std::io;

use crate::input::content::{sniff, Content, HEAD_BYTES};
use crate::input::{ErrorKind, InputError, Source};
use crate::output::{copy_read_once, NotText, ReadOnce};

/// The sources as both passes read them, and the copies they read (removed when dropped,
/// and by an interrupting signal).
pub struct ReadTwice {
    /// The sources, each input that cannot be read twice replaced by its copy (named as
    /// before).
    pub sources: Vec<Source>,
    _copies: ReadOnce,
}

/// `sources` with every input that cannot be read twice copied (`Err`: one is longer than
/// `limit`, the error that says so). Standard input's copy has no name, so it is read as CSV
/// unless a format is given, as standard input is; a FIFO's or a pipe's copy has its name, so
/// it is read in the format its name says, as the input would have been.
pub fn read_twice(sources: &[Source], limit: u64) -> io::Result<Result<ReadTwice, InputError>> {
    let inputs: Vec<_> = sources.iter().map(|s| s.path.as_deref()).collect();
    let not_text = NotText {
        head_bytes: HEAD_BYTES,
        says: &|head| matches!(sniff(head), Content::NotText(_)),
    };
    let copies = match copy_read_once(&inputs, limit, not_text)? {
        Ok(copies) => copies,
        Err(index) => return Ok(Err(too_long(&sources[index].name, limit))),
    };
    let sources = sources
        .iter()
        .zip(&copies.copies)
        .map(|(source, copy)| match copy {
            Some(path) => Source {
                name: source.name.clone(),
                path: Some(path.clone()),
                options: source.options.clone(),
            },
            None => source.clone(),
        })
        .collect();
    Ok(Ok(ReadTwice {
        sources,
        _copies: copies,
    }))
}

/// The error of an input longer than `limit`.
fn too_long(name: &str, limit: u64) -> InputError {
    InputError::new(
        ErrorKind::Limit,
        name,
        0,
        format!(
            "it is longer than {limit} bytes, the most kept of an input that cannot be read \
             twice (standard input, a pipe, a FIFO) to read again; give it as a file"
        ),
    )
}
