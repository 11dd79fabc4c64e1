//! A file the autograder carries, copied only as it was when the key was checked against
//! the case files.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::input::{check_unchanged, FileChanged, FileStamp, InputErrors};

/// A file the autograder carries, opened to be copied: the key or a case file must be the
/// file that was checked, as it was (by its stamp, at the open and when its copy ends),
/// else the copy fails with [`FileChanged`], an input error.
pub(super) struct Carried {
    pub(super) file: File,
    name: String,
    stamp: Option<FileStamp>,
}

pub(super) fn carried(
    stamps: &HashMap<PathBuf, Option<FileStamp>>,
    path: &Path,
) -> Result<Carried> {
    let file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let carried = Carried {
        file,
        name: path.to_string_lossy().into_owned(),
        stamp: stamps.get(path).copied().flatten(),
    };
    if let Some(stamp) = &carried.stamp {
        let now = FileStamp::of_file(&carried.file)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if let Some(how) = stamp.change(now.as_ref()) {
            let changed = FileChanged {
                file: carried.name.clone(),
                how,
            };
            return Err(InputErrors::one(changed.input_error()).into());
        }
    }
    Ok(carried)
}

impl Read for Carried {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read(buf)?;
        if let (0, false, Some(stamp)) = (n, buf.is_empty(), &self.stamp) {
            // Its end: written to since the open, it was not carried as it was checked.
            check_unchanged(&self.name, stamp, &self.file)?;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn a_file_is_carried_only_as_it_was_checked() {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("key.csv");
        std::fs::write(&key, "case_id,decision\nc1,ACTIVE\n").unwrap();
        let stamps: HashMap<PathBuf, Option<FileStamp>> =
            [(key.clone(), FileStamp::of_path(&key).unwrap())].into();
        let mut copy = Vec::new();
        carried(&stamps, &key)
            .unwrap()
            .read_to_end(&mut copy)
            .unwrap();
        assert_eq!(copy, b"case_id,decision\nc1,ACTIVE\n");

        // Written to while it is copied: the copy fails at its end.
        let mut file = carried(&stamps, &key).unwrap();
        let mut start = [0u8; 4];
        file.read_exact(&mut start).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&key)
            .unwrap()
            .write_all(b"c2,EXPIRED\n")
            .unwrap();
        let e = file.read_to_end(&mut Vec::new()).unwrap_err();
        assert!(FileChanged::of(&e).is_some(), "{e}");

        // Replaced before it is opened to be copied: refused at the open.
        std::fs::write(dir.path().join("new.csv"), "case_id,decision\nc1,ACTIVE\n").unwrap();
        std::fs::rename(dir.path().join("new.csv"), &key).unwrap();
        let refused = carried(&stamps, &key).err().unwrap();
        assert!(
            refused.to_string().contains("renamed or replaced"),
            "{refused}"
        );
    }
}
