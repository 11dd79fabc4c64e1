//! The `leasejudge` binary: the command line (`cli`, clap's definitions and the dispatch) and
//! its commands (`commands/`: usage, arguments and one call into the library each). The
//! library (`leasejudge`, on the core `leasejudge-core`) does the work and names no clap.

use std::process::ExitCode;

// The library's modules, at the binary's root under their own names, so that the command
// line reaches them as `crate::ops::...` as it did inside the library.
use leasejudge::{
    bundle, choice, explain, generate, grading, input, lease, limits, lms, ops, output, report,
    streaming, terminal,
};

mod cli;
mod commands;

/// mimalloc: every row allocates a few small strings, and the system allocator made up a
/// tenth of the run time (profiled with perf on a generated million-row file).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Runs before the standard library's start-up, which reopens a closed standard output on
/// `/dev/null` (after which `leasejudge ... >&-` would "succeed" writing nothing).
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static NOTE_CLOSED_STDOUT: extern "C" fn() = {
    extern "C" fn note() {
        // SAFETY: fcntl on a descriptor number only queries its flags; nothing is borrowed.
        if unsafe { libc::fcntl(1, libc::F_GETFD) } == -1 {
            leasejudge::output::note_stdout_closed();
        }
    }
    note
};

fn main() -> ExitCode {
    cli::main()
}
