//! The binary a PrairieLearn course's leasejudge questions share, in its
//! `serverFilesCourse/`: written once, kept while it is the same bytes, and renamed into
//! place with the question that names it.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::output::Output;

use super::binary::inspect;
use super::{BINARY, COURSE_FOLDER};

/// Makes the binary ready for the course's shared folder,
/// `serverFilesCourse/leasejudge/leasejudge` (written to a temporary file beside it, to rename
/// into place with the question: `rwxr-xr-x` less the umask when new, its mode kept when it
/// replaces one), unless the same bytes are there already; returns where, whether it is
/// written, kept or replaced, and the file to rename. A file there that is not an x86-64 Linux
/// executable is refused: leasejudge did not write it.
pub(super) fn share_binary(
    course: &Path,
    binary: &Path,
) -> Result<(PathBuf, &'static str, Option<crate::output::Finished>)> {
    let folder = course.join("serverFilesCourse").join(COURSE_FOLDER);
    let target = folder.join(BINARY);
    let how = match std::fs::symlink_metadata(&target) {
        Err(_) => "wrote",
        Ok(meta) if meta.is_file() && same_bytes(&target, binary)? => {
            return Ok((target, "kept", None));
        }
        Ok(meta) if meta.is_file() && inspect(&target).is_ok() => "replaced",
        Ok(_) => anyhow::bail!(
            "{} is there and is not a leasejudge binary: the course's leasejudge questions run \
             the binary at that place; move that file away (nothing was written)",
            target.display()
        ),
    };
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot write {}", target.display()))?;
    let mut out = Output::open_executable(&target)?;
    let mut file =
        File::open(binary).with_context(|| format!("cannot read {}", binary.display()))?;
    io::copy(&mut file, &mut out).with_context(|| format!("cannot write {}", target.display()))?;
    Ok((target, how, Some(out.finish()?)))
}

/// Whether two files hold the same bytes.
fn same_bytes(a: &Path, b: &Path) -> Result<bool> {
    let open =
        |path: &Path| File::open(path).with_context(|| format!("cannot read {}", path.display()));
    let (mut a, mut b) = (io::BufReader::new(open(a)?), io::BufReader::new(open(b)?));
    if a.get_ref().metadata()?.len() != b.get_ref().metadata()?.len() {
        return Ok(false);
    }
    let (mut x, mut y) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = a.read(&mut x)?;
        if n == 0 {
            return Ok(true);
        }
        b.read_exact(&mut y[..n])?;
        if x[..n] != y[..n] {
            return Ok(false);
        }
    }
}
