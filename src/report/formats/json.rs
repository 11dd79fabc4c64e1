//! One JSON document: `check`'s (`grade_json`), a class's (`class_json`), the problems'
//! (`problems::json`).

use std::io::Write;

use anyhow::{Context, Result};

use crate::grading::class::ClassReport;
use crate::grading::GradeReport;
use crate::input::InputErrors;
use crate::report::{class_json, grade_json, problems};

use super::{ReportWriter, Style};

/// The JSON format's writer.
pub(super) struct Json;

impl ReportWriter for Json {
    fn check(&self, report: &GradeReport, _style: Style, out: &mut dyn Write) -> Result<()> {
        grade_json::write(report, out).context("cannot write the report")
    }

    fn class(&self, report: &ClassReport, _style: Style, out: &mut dyn Write) -> Result<()> {
        class_json::write_json(report, out).context("cannot write the report")
    }

    fn problems(&self, command: &str, errors: &InputErrors) -> Result<Option<String>> {
        Ok(Some(problems::json(command, errors)))
    }
}
