//! JUnit XML: `check`'s (`junit`), a class's (`class_junit`), the problems'
//! (`problems::junit`).

use std::io::Write;

use anyhow::Result;

use crate::grading::class::ClassReport;
use crate::grading::GradeReport;
use crate::input::InputErrors;
use crate::report::{class_junit, junit, problems};

use super::{ReportWriter, Style};

/// The JUnit format's writer.
pub(super) struct Junit;

impl ReportWriter for Junit {
    fn check(&self, report: &GradeReport, _style: Style, out: &mut dyn Write) -> Result<()> {
        junit::write(report, out)
    }

    fn class(&self, report: &ClassReport, _style: Style, out: &mut dyn Write) -> Result<()> {
        class_junit::write(report, out)
    }

    fn problems(&self, command: &str, errors: &InputErrors) -> Result<Option<String>> {
        problems::junit(command, errors).map(Some)
    }
}
