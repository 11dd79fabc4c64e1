//! GitHub Actions workflow commands: `check`'s (`github`), a class's
//! (`class_text::write_github`), the problems' (`problems::github`).

use std::io::Write;

use anyhow::{Context, Result};

use crate::grading::class::ClassReport;
use crate::grading::GradeReport;
use crate::input::InputErrors;
use crate::report::{class_text, github, problems};

use super::{ReportWriter, Style};

/// The GitHub format's writer.
pub(super) struct Github;

impl ReportWriter for Github {
    fn check(&self, report: &GradeReport, _style: Style, out: &mut dyn Write) -> Result<()> {
        github::write(report, out).context("cannot write the report")
    }

    fn class(&self, report: &ClassReport, _style: Style, out: &mut dyn Write) -> Result<()> {
        class_text::write_github(report, out).context("cannot write the report")
    }

    fn problems(&self, command: &str, errors: &InputErrors) -> Result<Option<String>> {
        Ok(Some(problems::github(command, errors)))
    }
}
