//! The same-file check: before any work, every output a command will write is compared with
//! every input it reads and every other output, so that no run can destroy its own input or
//! write two outputs over each other.
//!
//! Two names are the same file when
//! - both exist and have the same device and inode (this catches symlinks, `..`, hard links,
//!   bind mounts and `/dev/stdout` or `/dev/fd/N` naming a redirected file), or
//! - neither exists yet and their directories resolve (symlinks and `..`) to the same
//!   directory and their file names are equal.
//!
//! Character devices (`/dev/null`, a terminal, `/dev/full`) are never a clash: writing to them
//! replaces nothing, and two outputs sent to `/dev/null` are harmless. Everything else — a
//! regular file, a FIFO, a socket — is compared. Standard input (`-` as an input) and standard
//! output (an output of `None` or `-`) are compared by what they are open on, so
//! `leasejudge adjudicate - -o in.csv < in.csv` and `leasejudge adjudicate in.csv >> in.csv`
//! are clashes too.

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// A file a command reads or writes, as the user named it, with the option that named it.
#[derive(Clone, Copy, Debug)]
pub struct Named<'a> {
    /// What names the file in the command line, for the message: `-o`, `--audit`, `input`,
    /// `--golden`, `--bless`…
    pub role: &'a str,
    /// The path as given. For an input, `-` is standard input; for an output, `None` (see
    /// [`Named::stdout`]) or `-` is standard output.
    pub path: Option<&'a Path>,
}

impl<'a> Named<'a> {
    /// A file named by `role` at `path`.
    pub fn new(role: &'a str, path: &'a Path) -> Named<'a> {
        Named {
            role,
            path: Some(path),
        }
    }

    /// Standard output, for an output written there (no `-o`).
    pub fn stdout(role: &'a str) -> Named<'a> {
        Named { role, path: None }
    }

    fn is_dash(&self) -> bool {
        self.path.is_none_or(|p| p.as_os_str() == "-")
    }

    fn describe(&self) -> String {
        match self.path {
            Some(path) if path.as_os_str() != "-" => format!("{} {}", self.role, path.display()),
            _ if self.role == "input" => "standard input".to_owned(),
            _ => format!("{} (standard output)", self.role),
        }
    }
}

/// Two names of one file, at least one of them an output: the run would destroy a file it
/// reads, or write two outputs over each other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathClash {
    /// The first name (an input, or the output named first).
    pub first: String,
    /// The output that is the same file.
    pub second: String,
}

impl fmt::Display for PathClash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} and {} are the same file; an output may not be an input or another output \
             (nothing was written)",
            self.first, self.second
        )
    }
}

/// Every clash of a command line, in the order the outputs were given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathClashes(pub Vec<PathClash>);

impl fmt::Display for PathClashes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, clash) in self.0.iter().enumerate() {
            if index > 0 {
                f.write_str("\nleasejudge: ")?;
            }
            write!(f, "{clash}")?;
        }
        Ok(())
    }
}

impl std::error::Error for PathClashes {}

/// What a name resolves to, for comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Identity {
    /// An existing file other than a character device.
    Inode(u64, u64),
    /// A file that does not exist yet: its resolved directory joined with its name.
    Planned(PathBuf),
    /// A character device, or a name that cannot be resolved at all (reading or writing it
    /// will fail with its own message): never a clash.
    Exempt,
}

#[cfg(unix)]
fn identity_of(meta: &fs::Metadata) -> Identity {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    if meta.file_type().is_char_device() {
        Identity::Exempt
    } else {
        Identity::Inode(meta.dev(), meta.ino())
    }
}

#[cfg(not(unix))]
fn identity_of(_meta: &fs::Metadata) -> Identity {
    Identity::Exempt
}

/// The metadata of standard input (`fd` 0) or standard output (`fd` 1), whatever it is open on.
#[cfg(unix)]
fn standard_stream(fd: i32) -> Option<fs::Metadata> {
    use std::os::fd::AsFd;
    let owned = if fd == 0 {
        io::stdin().as_fd().try_clone_to_owned()
    } else {
        io::stdout().as_fd().try_clone_to_owned()
    };
    owned.ok().and_then(|fd| fs::File::from(fd).metadata().ok())
}

#[cfg(not(unix))]
fn standard_stream(_fd: i32) -> Option<fs::Metadata> {
    None
}

fn resolve(named: &Named<'_>, is_input: bool) -> Identity {
    if named.is_dash() {
        return standard_stream(if is_input { 0 } else { 1 })
            .map_or(Identity::Exempt, |meta| identity_of(&meta));
    }
    let path = named.path.expect("not standard input or output");
    match fs::metadata(path) {
        Ok(meta) => identity_of(&meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => planned(path),
        Err(_) => Identity::Exempt,
    }
}

/// A name that does not exist yet: its directory resolved (symlinks, `..`), then its name.
/// A dangling symlink resolves to where it points.
fn planned(path: &Path) -> Identity {
    let path = match fs::read_link(path) {
        Ok(target) => match path.parent() {
            Some(parent) => parent.join(target),
            None => target,
        },
        Err(_) => path.to_owned(),
    };
    let Some(name) = path.file_name() else {
        return Identity::Exempt;
    };
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    match fs::canonicalize(parent) {
        Ok(directory) => Identity::Planned(directory.join(name)),
        Err(_) => Identity::Exempt,
    }
}

/// Checks that no output is an input or another output; call it before reading anything.
///
/// `inputs` are every file the run reads (after directories are expanded into their files,
/// and golden files too); `outputs` every file it may write, including ones it writes only
/// sometimes (`--bless`'s `.new` files). Pass standard output as an output with
/// [`Named::stdout`] when something is written there. Every clash is listed; the command
/// should return the error (a usage error, exit 2) without writing anything.
///
/// ```
/// use std::path::Path;
/// use leasejudge::output::{check_paths, Named};
///
/// let dir = tempfile::tempdir().unwrap();
/// let input = dir.path().join("in.csv");
/// std::fs::write(&input, "case_id\n").unwrap();
/// let outputs = [Named::new("-o", &input)];
/// let clash = check_paths(&[Named::new("input", &input)], &outputs).unwrap_err();
/// assert!(clash.to_string().contains("are the same file"));
/// let elsewhere = dir.path().join("sub/../out.csv");
/// std::fs::create_dir(dir.path().join("sub")).unwrap();
/// let outputs = [Named::new("-o", &elsewhere), Named::new("--audit", Path::new("/dev/null"))];
/// assert!(check_paths(&[Named::new("input", &input)], &outputs).is_ok());
/// ```
pub fn check_paths(inputs: &[Named<'_>], outputs: &[Named<'_>]) -> Result<(), PathClashes> {
    let inputs: Vec<(Identity, &Named<'_>)> = inputs
        .iter()
        .map(|named| (resolve(named, true), named))
        .collect();
    let mut seen_outputs: Vec<(Identity, &Named<'_>)> = Vec::new();
    let mut clashes = Vec::new();
    for output in outputs {
        let identity = resolve(output, false);
        if identity != Identity::Exempt {
            let earlier = inputs
                .iter()
                .chain(seen_outputs.iter())
                .find(|(other, _)| *other == identity);
            if let Some((_, other)) = earlier {
                clashes.push(PathClash {
                    first: other.describe(),
                    second: output.describe(),
                });
            }
        }
        seen_outputs.push((identity, output));
    }
    if clashes.is_empty() {
        Ok(())
    } else {
        Err(PathClashes(clashes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_dotdot_resolve_to_the_input() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.csv");
        fs::write(&input, "x").unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        let hard = dir.path().join("hard.csv");
        fs::hard_link(&input, &hard).unwrap();
        let soft = dir.path().join("soft.csv");
        std::os::unix::fs::symlink(&input, &soft).unwrap();
        let dotdot = dir.path().join("sub/../in.csv");
        let inputs = [Named::new("input", &input)];
        for output in [&input, &hard, &soft, &dotdot] {
            let outputs = [Named::new("-o", output)];
            assert!(check_paths(&inputs, &outputs).is_err(), "{output:?}");
        }
    }

    #[test]
    fn two_new_outputs_with_one_name_clash_but_devices_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let a_again = dir.path().join("./a.csv");
        let clash = check_paths(
            &[],
            &[Named::new("-o", &a), Named::new("--audit", &a_again)],
        )
        .unwrap_err();
        assert_eq!(clash.0.len(), 1);
        assert!(clash.0[0].first.starts_with("-o "));
        assert!(clash.0[0].second.starts_with("--audit "));
        let null = Path::new("/dev/null");
        assert!(check_paths(
            &[Named::new("input", null)],
            &[Named::new("-o", null), Named::new("--audit", null)]
        )
        .is_ok());
    }
}
