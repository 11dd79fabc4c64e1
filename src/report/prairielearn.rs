//! PrairieLearn's results file of one submission (`grade -f prairielearn`): its row; the
//! writer is `platform_results.rs`'s, which it shares with Gradescope's.

use std::io::Write;

use crate::grading::class::ClassReport;

use super::platform_results::write_prairielearn;
use super::{PlatformResults, ResultsOptions};

/// PrairieLearn's results: its row of the platforms' results files.
pub(crate) const RESULTS: PlatformResults = PlatformResults {
    word: "prairielearn",
    help: "PrairieLearn's external grading results (one submission)",
    autograder: true,
    write,
};

/// The external grader's `results.json`.
fn write(report: &ClassReport, _: &ResultsOptions, out: &mut dyn Write) -> std::io::Result<()> {
    write_prairielearn(report, out)
}
