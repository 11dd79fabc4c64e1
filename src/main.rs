use std::process::ExitCode;

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
