//! Temporary files in memory, for a machine with no temporary directory (an empty root: a
//! chroot or a container holding nothing but the binary), kept within a budget (issue 36):
//! an anonymous file in memory (`memfd_create`) stands for each, as a `/tmp` on tmpfs would,
//! and once they would hold more than [`MAX_MEMORY_TEMP_BYTES`] together a write to one fails
//! with an error that says so, where a missing `TMPDIR` silently grew one to 199 MB.
//!
//! What they hold is counted from the files themselves, the pages each has (`fstat`), every
//! [`CENSUS_EVERY`] bytes written to temporary files: a file dropped gives its memory back
//! without being told, and no list of the files is kept. Nothing is counted until the first
//! such file is made.

use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};

/// The most temporary files may hold together when they are kept in memory, for want of a
/// temporary directory (an empty root): with the memory a command uses besides (under 100
/// MiB), within the 256 MiB every command is held to. Past it, a write
/// fails with an error saying so (a missing `TMPDIR` grew one file to 199 MB).
pub(super) const MAX_MEMORY_TEMP_BYTES: u64 = 128 << 20;

/// Bytes written to temporary files between two counts of what the files in memory hold: the
/// most they can pass the budget by before it is seen.
const CENSUS_EVERY: usize = 1 << 20;

/// Whether a file in memory was made (then writes are counted).
static IN_MEMORY: AtomicBool = AtomicBool::new(false);

/// The device the files in memory are on (all `memfd`s share one).
static DEVICE: AtomicU64 = AtomicU64::new(0);

/// The highest descriptor a file in memory was given: a count looks no further.
static HIGHEST: AtomicI32 = AtomicI32::new(-1);

/// Bytes written since the last count.
static SINCE_COUNT: AtomicUsize = AtomicUsize::new(0);

/// A new anonymous file in memory (`memfd_create`, Linux 3.17), counted against the budget.
#[cfg(target_os = "linux")]
pub(super) fn file() -> io::Result<File> {
    use std::os::fd::{AsRawFd, FromRawFd};
    // SAFETY: the name is a NUL-terminated string that outlives the call; the call has no
    // other inputs, and a descriptor it returns is new and owned by nothing else.
    let fd = unsafe { libc::memfd_create(c"leasejudge-scratch".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a new open descriptor, owned by the `File` from here on.
    let file = unsafe { File::from_raw_fd(fd) };
    let meta = file.metadata()?;
    DEVICE.store(
        std::os::unix::fs::MetadataExt::dev(&meta),
        Ordering::Relaxed,
    );
    HIGHEST.fetch_max(file.as_raw_fd(), Ordering::Relaxed);
    IN_MEMORY.store(true, Ordering::Release);
    Ok(file)
}

/// Anonymous files in memory are Linux's.
#[cfg(not(target_os = "linux"))]
pub(super) fn file() -> io::Result<File> {
    Err(io::ErrorKind::Unsupported.into())
}

/// Counts `bytes` just written to a temporary file; once files in memory hold more than
/// [`MAX_MEMORY_TEMP_BYTES`], an error saying so (the write that found it is the last).
pub(super) fn wrote(bytes: usize) -> io::Result<()> {
    if !IN_MEMORY.load(Ordering::Acquire) {
        return Ok(());
    }
    if SINCE_COUNT.fetch_add(bytes, Ordering::Relaxed) + bytes < CENSUS_EVERY {
        return Ok(());
    }
    SINCE_COUNT.store(0, Ordering::Relaxed);
    let held = held();
    if held > MAX_MEMORY_TEMP_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::OutOfMemory,
            format!(
                "no temporary file can be made there, so they are kept in memory, and they would \
                 hold more than {MAX_MEMORY_TEMP_BYTES} bytes (128 MiB), the most they may \
                 there; set TMPDIR to a directory with room"
            ),
        ));
    }
    Ok(())
}

/// What the files in memory hold now: the pages of every open descriptor up to the highest
/// one a file in memory was given that is on their device, unlinked.
#[cfg(target_os = "linux")]
fn held() -> u64 {
    let device = DEVICE.load(Ordering::Relaxed);
    let mut held = 0;
    for fd in 0..=HIGHEST.load(Ordering::Relaxed) {
        // SAFETY: fstat writes the struct it is given; a descriptor that is not open fails.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(fd, &mut stat) } != 0 {
            continue;
        }
        if stat.st_dev == device
            && stat.st_nlink == 0
            && stat.st_mode & libc::S_IFMT == libc::S_IFREG
        {
            held += (stat.st_blocks as u64) * 512;
        }
    }
    held
}

#[cfg(not(target_os = "linux"))]
fn held() -> u64 {
    0
}
