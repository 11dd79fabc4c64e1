//! An output that is appended to rather than replaced (GitHub's step summary,
//! `$GITHUB_STEP_SUMMARY`: a file the runner made, which other steps append to), committed
//! with the run's other outputs (issue 36): its bytes are appended only once every other
//! output is written and synced, so that a failed append (a full disk, `/dev/full`) commits
//! nothing; and if an output then cannot be renamed into place, the file is cut back to the
//! length it had, so that the run leaves it as it was.

use std::fs::{self, File};
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};

use super::{not_written, persist_all, Inner, Output};

/// Bytes to append to a file, with what the run calls it (`$GITHUB_STEP_SUMMARY`).
pub struct Appended {
    /// What names the file, for messages.
    pub role: String,
    /// The file.
    pub path: PathBuf,
    /// What is appended.
    pub bytes: Vec<u8>,
}

/// A file appended to: its length before (to cut it back to), if it is a regular file.
struct Done {
    file: File,
    length: Option<u64>,
}

/// Commits `outputs` as [`commit_all`](super::commit_all) does, and appends each of
/// `appended` with them: after every output is written and synced, before any is renamed into
/// place. A failed append commits nothing (the error names the files left as they were); an
/// output that then fails to be renamed takes the appends back.
pub fn commit_all_appending(outputs: Vec<Output>, appended: &[Appended]) -> Result<()> {
    let targets: Vec<PathBuf> = outputs
        .iter()
        .filter_map(|output| match &output.inner {
            Inner::File { target, .. } => Some(target.clone()),
            Inner::Stdout(_) | Inner::Device { .. } => None,
        })
        .collect();
    let left = |e: anyhow::Error| {
        if targets.is_empty() {
            e
        } else {
            anyhow::anyhow!("{e:#}; {}", not_written(&targets))
        }
    };
    let mut finished = Vec::with_capacity(outputs.len());
    for output in outputs {
        finished.push(output.finish().map_err(left)?);
    }
    let mut done = Vec::with_capacity(appended.len());
    for append in appended {
        match append_to(append) {
            Ok(file) => done.push(file),
            Err(e) => {
                take_back(done);
                return Err(left(e));
            }
        }
    }
    let persisted = persist_all(finished);
    if persisted.is_err() {
        take_back(done);
    }
    persisted
}

/// Appends `append`'s bytes to its file (made if it is not there), synced.
fn append_to(append: &Appended) -> Result<Done> {
    let cannot = || {
        format!(
            "cannot append to {} {}",
            append.role,
            super::escape_controls(&append.path.to_string_lossy())
        )
    };
    let mut file = fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&append.path)
        .with_context(cannot)?;
    let meta = file.metadata().with_context(cannot)?;
    let length = meta.is_file().then_some(meta.len());
    let written = file
        .write_all(&append.bytes)
        .and_then(|()| file.flush())
        .and_then(|()| match length {
            Some(_) => file.sync_data(),
            None => Ok(()),
        });
    if let Err(e) = written {
        take_back(vec![Done { file, length }]);
        return Err(e).with_context(cannot);
    }
    Ok(Done { file, length })
}

/// Cuts each appended file back to the length it had (what cannot be is left).
fn take_back(done: Vec<Done>) {
    for Done { file, length } in done {
        if let Some(length) = length {
            let _ = file.set_len(length);
        }
    }
}
