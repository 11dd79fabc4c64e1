use std::process::ExitCode;

/// mimalloc: every row allocates a few small strings, and the system allocator made up a
/// tenth of the run time (profiled with perf on a generated million-row file).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    match leasejudge::cli::run() {
        Ok(code) => code,
        Err(error) if leasejudge::is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("leasejudge: {error:#}");
            ExitCode::from(2)
        }
    }
}
