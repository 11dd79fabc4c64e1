//! Whether the temporary directory may hold a private tree (issue 36): a directory that
//! another local user owns, or may write to without the sticky bit, lets that user rename what
//! a run makes in it and put their own in its place (a class's download, unpacked to be
//! graded, swapped for theirs). As OpenSSH's `secure_path` does for its files, the directory
//! and every directory above it must be owned by the user running leasejudge or by root, and
//! one that others may write to must have the sticky bit (as `/tmp` has), under which no one
//! but its owner may rename or remove an entry. An ancestor counts as much as the directory
//! itself: whoever may rename an ancestor may rename the whole path away.

use std::io;
use std::path::{Path, PathBuf};

/// The temporary directory (`TMPDIR`, else `/tmp`) with its links resolved, once it and every
/// directory above it is trusted; else an error saying which is not, and why.
pub(super) fn trusted_temp_dir() -> io::Result<PathBuf> {
    let dir = tempfile::env::temp_dir();
    let resolved = std::fs::canonicalize(&dir)
        .map_err(|e| crate::store::temp_error("cannot make a private temporary directory", e))?;
    refuse_untrusted(&resolved)
        .map_err(|e| crate::store::temp_error("cannot make a private temporary directory", e))?;
    Ok(resolved)
}

/// `Ok` when `dir` (resolved) and every directory above it are trusted.
#[cfg(unix)]
fn refuse_untrusted(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid cannot fail and touches no memory.
    let me = unsafe { libc::geteuid() };
    for at in dir.ancestors() {
        let meta = std::fs::metadata(at)?;
        if let Some(why) = untrusted(meta.uid(), meta.mode(), me) {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{} {why}, so someone else could rename or replace what is made in it; set \
                     TMPDIR to a directory of your own or root's (one that others may write to \
                     must have the sticky bit, as /tmp has)",
                    at.display()
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn refuse_untrusted(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// Why a directory owned by `owner` with `mode` is not trusted by the user `me`, if it is not.
#[cfg(unix)]
fn untrusted(owner: u32, mode: u32, me: u32) -> Option<String> {
    const WRITABLE_BY_OTHERS: u32 = 0o022;
    const STICKY: u32 = 0o1000;
    if owner != me && owner != 0 {
        Some(format!("is owned by another user (uid {owner})"))
    } else if mode & WRITABLE_BY_OTHERS != 0 && mode & STICKY == 0 {
        Some(format!(
            "may be written to by others (mode {:o}) and has no sticky bit",
            mode & 0o7777
        ))
    } else {
        None
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_directory_is_trusted_when_its_owners_or_roots_and_sticky_if_others_may_write() {
        assert_eq!(untrusted(1000, 0o40700, 1000), None);
        assert_eq!(untrusted(0, 0o40755, 1000), None);
        assert_eq!(untrusted(0, 0o41777, 1000), None);
        assert_eq!(untrusted(1000, 0o41770, 1000), None);
        assert!(untrusted(1001, 0o40755, 1000)
            .unwrap()
            .contains("another user (uid 1001)"));
        assert!(untrusted(1001, 0o41777, 0).is_some());
        assert!(untrusted(1000, 0o40775, 1000).unwrap().contains("mode 775"));
        assert!(untrusted(0, 0o40777, 0).unwrap().contains("no sticky bit"));
        assert!(untrusted(0, 0o40757, 1000).is_some());
    }

    #[test]
    fn every_directory_above_counts() {
        use std::os::unix::fs::PermissionsExt;
        let scratch = tempfile::tempdir().unwrap();
        let open = scratch.path().join("open");
        let inner = open.join("inner");
        std::fs::create_dir_all(&inner).unwrap();
        refuse_untrusted(&inner).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let said = refuse_untrusted(&inner).unwrap_err().to_string();
        assert!(said.contains("open may be written to by others"), "{said}");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).unwrap();
        refuse_untrusted(&inner).unwrap();
    }
}
