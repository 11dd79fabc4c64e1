//! Gradescope's results file of one submission (`grade -f gradescope`): its row; the writer is
//! `platform_results.rs`'s, which it shares with PrairieLearn's.

use std::io::Write;

use crate::grading::class::ClassReport;

use super::platform_results::{write_gradescope, Visibility};
use super::{PlatformResults, ResultsOptions};

/// Gradescope's results: its row of the platforms' results files.
pub(crate) const RESULTS: PlatformResults = PlatformResults {
    word: "gradescope",
    help: "Gradescope's autograder `results.json` (one submission)",
    autograder: true,
    write,
};

/// `results.json`, seen as `--visibility` says.
fn write(report: &ClassReport, options: &ResultsOptions, out: &mut dyn Write) -> std::io::Result<()> {
    write_gradescope(report, options.visibility.unwrap_or(Visibility::Visible), out)
}
