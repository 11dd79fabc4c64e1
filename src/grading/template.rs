//! The blank matrix to hand out for a lab: the header and one row per case of the case
//! files, in matrix order, with only `case_id` filled in. Grading it untouched scores 0
//! (every graded cell is empty, and a golden decision or reason never is).

use anyhow::{Context, Result};

use crate::grading::Column;
use crate::input::Source;
use crate::store::AppendFile;
use crate::streaming::{judge, CaseWriter, KeptRows, RecordOut, Sink, StreamError, StreamSettings};

/// Writes each case's template row: its id, then an empty cell per column.
struct BlankRows {
    blanks: usize,
}

impl CaseWriter for BlankRows {
    fn write_case(
        &mut self,
        _file_index: usize,
        _file: &str,
        case_id: &str,
        _rows: &KeptRows,
        out: &mut RecordOut<'_>,
    ) -> std::io::Result<bool> {
        blank_row(case_id, self.blanks, out)?;
        Ok(true)
    }

    fn needs_rows(&self) -> bool {
        false
    }
}

/// Appends the CSV row of `case_id` followed by `blanks` empty cells to `out`: the case id
/// as [`spreadsheet_cell`](crate::output::spreadsheet_cell) writes it, so the template a
/// learner opens in a spreadsheet runs nothing, and grading reads the id back as it is.
fn blank_row(case_id: &str, blanks: usize, out: impl std::io::Write) -> std::io::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    let case_id = crate::output::spreadsheet_cell(case_id);
    writer.write_record(std::iter::once(&*case_id).chain(std::iter::repeat_n("", blanks)))?;
    writer.flush()
}

/// The template's CSV header: `case_id`, then `columns`.
fn header(columns: &[Column]) -> Result<Vec<u8>> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(
        std::iter::once(Column::CASE_ID.name()).chain(columns.iter().map(|c| c.name())),
    )?;
    writer.into_inner().context("cannot write CSV")
}

/// Writes the blank matrix of the case files `sources`: the header (`case_id`, then
/// `columns`) and a row per case, in matrix order, with only its id; input errors are
/// returned, every one listed.
pub fn write_blank_matrix(
    sources: &[Source],
    columns: &[Column],
    out: &mut impl AppendFile,
) -> Result<()> {
    let settings = StreamSettings {
        ..StreamSettings::in_file_order()
    };
    let rows = BlankRows {
        blanks: columns.len(),
    };
    let rows = match judge(
        sources,
        &settings,
        Sink::Cases(Box::new(rows)),
        &mut |_, _, _| {},
    ) {
        Ok(rows) => rows,
        Err(StreamError::Input(errors)) => return Err(errors.into()),
        Err(StreamError::Io(e)) => return Err(e).context("cannot write the template"),
    };
    let header = header(columns)?;
    out.write_all(&header)
        .and_then(|()| rows.write_to(out))
        .context("cannot write the template")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_have_only_case_ids() {
        let mut text = header(&[Column::DECISION, Column::REASON]).unwrap();
        for case_id in ["a", "b,c", "=1+1"] {
            blank_row(case_id, 2, &mut text).unwrap();
        }
        assert_eq!(text, b"case_id,decision,reason\na,,\n\"b,c\",,\n'=1+1,,\n");
    }
}
