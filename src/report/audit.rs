//! The row audit: one CSV line per replayed row — `case_id,file,line,event,disposition,reason`.
//! A report people open in a spreadsheet or read in a log: the case id and the file name as
//! [`report_cell`] writes them.

use std::io::{self, Write};

use crate::lease::{Event, Outcome};
use crate::output::report_cell;

/// The audit's columns.
pub const AUDIT_COLUMNS: [&str; 6] = ["case_id", "file", "line", "event", "disposition", "reason"];

/// Writes audit lines, optionally flushing after each (for a live pipe).
pub struct AuditWriter<W: Write> {
    writer: csv::Writer<W>,
    flush_each: bool,
}

impl<W: Write> AuditWriter<W> {
    /// Starts the audit, writing its header.
    pub fn new(out: W, flush_each: bool) -> io::Result<AuditWriter<W>> {
        let mut writer = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(out);
        writer.write_record(AUDIT_COLUMNS)?;
        if flush_each {
            writer.flush()?;
        }
        Ok(AuditWriter { writer, flush_each })
    }

    /// Writes one row's line.
    pub fn write(
        &mut self,
        case_id: &str,
        file: &str,
        line: u64,
        event: Event,
        outcome: &Outcome,
    ) -> io::Result<()> {
        self.writer.write_record([
            &*report_cell(case_id),
            &*report_cell(file),
            &line.to_string(),
            event.as_str(),
            outcome.disposition.as_str(),
            outcome.reason.as_str(),
        ])?;
        if self.flush_each {
            self.writer.flush()?;
        }
        Ok(())
    }

    /// Flushes and returns the underlying writer.
    pub fn finish(self) -> io::Result<W> {
        self.writer
            .into_inner()
            .map_err(|e| io::Error::new(e.error().kind(), e.error().to_string()))
    }
}
