//! The table, for people: `check`'s per case (`grade_table`), a class's per submission
//! (`class_text`); its reader sees standard error's list of problems, so it has no report of them.

use std::io::Write;

use anyhow::{Context, Result};

use crate::grading::class::ClassReport;
use crate::grading::GradeReport;
use crate::input::InputErrors;
use crate::report::{class_text, grade_table};

use super::{ReportWriter, Style};

/// The table format's writer.
pub(super) struct Table;

impl ReportWriter for Table {
    fn check(&self, report: &GradeReport, style: Style, out: &mut dyn Write) -> Result<()> {
        grade_table::write(report, style.color, style.verbose, Some(style.width()), out)
            .context("cannot write the report")
    }

    fn class(&self, report: &ClassReport, style: Style, out: &mut dyn Write) -> Result<()> {
        class_text::write_table(report, style.color, style.verbose, Some(style.width()), out)
            .context("cannot write the report")
    }

    fn problems(&self, _command: &str, _errors: &InputErrors) -> Result<Option<String>> {
        Ok(None)
    }
}
