//! `leasejudge autograder gradescope`'s arguments: the zip to write and who sees the results.

use std::path::PathBuf;

use crate::bundle::GradescopeOptions;
use crate::commands::choice::choice;
use crate::report::platform_results::Visibility;

use super::Common;

/// A zip to upload on a Gradescope programming assignment's Configure Autograder page.
#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    common: Common,

    /// Who sees the results, and when: visible, hidden, after_due_date or after_published
    /// (the tests and the top-level output) [default: visible].
    #[arg(long, value_parser = choice::<Visibility>())]
    visibility: Option<Visibility>,

    /// The zip to write (atomically).
    #[arg(long, short = 'o', value_name = "ZIP")]
    output: PathBuf,
}

impl Args {
    /// The zip to build.
    pub(super) fn options(&self) -> GradescopeOptions {
        GradescopeOptions {
            inputs: self.common.inputs(),
            visibility: self.visibility,
            output: self.output.clone(),
        }
    }
}
