//! Markdown, for a CI step summary: `check`'s (`markdown`), a class's
//! (`class_text::write_markdown`), the problems' (`problems::markdown`).

use std::io::Write;

use anyhow::{Context, Result};

use crate::grading::class::ClassReport;
use crate::grading::GradeReport;
use crate::input::InputErrors;
use crate::report::{class_text, markdown, problems};

use super::{ReportWriter, Style};

/// The Markdown format's writer.
pub(super) struct Markdown;

impl ReportWriter for Markdown {
    fn check(&self, report: &GradeReport, _style: Style, out: &mut dyn Write) -> Result<()> {
        markdown::write(report, out).context("cannot write the report")
    }

    fn class(&self, report: &ClassReport, _style: Style, out: &mut dyn Write) -> Result<()> {
        class_text::write_markdown(report, out).context("cannot write the report")
    }

    fn problems(&self, command: &str, errors: &InputErrors) -> Result<Option<String>> {
        Ok(Some(problems::markdown(command, errors)))
    }
}
