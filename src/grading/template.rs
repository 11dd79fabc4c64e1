//! The blank matrix to hand out for a lab: the header and one row per case of the case
//! files, in matrix order, with only `case_id` filled in. Grading it untouched scores 0
//! (every graded cell is empty, and a golden decision or reason never is).

use anyhow::{Context, Result};

use crate::grading::Column;
use crate::input::Source;
use crate::store::AppendFile;
use crate::streaming::{
    judge, CaseWriter, KeptRows, RecordOut, Sink, StreamError, StreamSettings, Window,
};

/// Writes each case's template row: its id, then an empty cell per column.
struct BlankRows {
    blanks: usize,
    /// The row being made.
    row: Vec<u8>,
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
        self.row.clear();
        push_blank_row(&mut self.row, case_id, self.blanks);
        std::io::Write::write_all(out, &self.row)?;
        Ok(true)
    }

    fn needs_rows(&self) -> bool {
        false
    }

    /// A case's row is its id alone: any writer writes it alike.
    fn fork(&self) -> Option<Box<dyn CaseWriter + Send>> {
        Some(Box::new(BlankRows {
            blanks: self.blanks,
            row: Vec::new(),
        }))
    }
}

/// Appends the CSV row of `case_id` followed by `blanks` empty cells to `row`: the bytes
/// [`blank_row`]'s csv writer writes (a csv writer per case cost a third of the run).
fn push_blank_row(row: &mut Vec<u8>, case_id: &str, blanks: usize) {
    crate::matrix::push_csv_text(row, case_id);
    row.resize(row.len() + blanks, b',');
    row.push(b'\n');
}

/// Appends the CSV row of `case_id` followed by `blanks` empty cells to `out`, as the csv
/// writer writes it: the case id as [`spreadsheet_cell`](crate::output::spreadsheet_cell)
/// writes it, so the template a learner opens in a spreadsheet runs nothing, and grading
/// reads the id back as it is. ([`BlankRows`] writes the same bytes without a csv writer.)
#[cfg(test)]
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
        std::iter::once(Column::CaseId.name()).chain(columns.iter().map(|c| c.name())),
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
    write_blank_matrix_in(sources, columns, out, Window::COMMAND)
}

/// [`write_blank_matrix`], the engine keeping `window` open (and reading a lone CSV file of
/// `window.split_min_bytes` or more as two halves): the same bytes whatever the window.
pub fn write_blank_matrix_in(
    sources: &[Source],
    columns: &[Column],
    out: &mut impl AppendFile,
    window: Window,
) -> Result<()> {
    let settings = StreamSettings::for_records(window);
    let rows = BlankRows {
        blanks: columns.len(),
        row: Vec::new(),
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

    /// Every case through both paths: a lone file read whole, and as two halves on two
    /// threads (when there are two cores), gives the same template.
    #[test]
    fn a_template_read_as_two_halves_is_the_whole_files() {
        let dir = tempfile::tempdir().unwrap();
        for source in crate::split_corpus::files(dir.path()) {
            for window in crate::split_corpus::WINDOWS {
                let template = |split_min_bytes| {
                    let mut out = Vec::new();
                    let window = Window {
                        split_min_bytes,
                        ..window
                    };
                    let sources = std::slice::from_ref(&source);
                    write_blank_matrix_in(sources, &[Column::Decision], &mut out, window)
                        .map(|()| out)
                        .map_err(|e| format!("{e:#}"))
                };
                assert_eq!(template(1), template(u64::MAX), "{}", source.name);
            }
        }
    }

    #[test]
    fn templates_have_only_case_ids() {
        let mut text = header(&[Column::Decision, Column::Reason]).unwrap();
        for case_id in ["a", "b,c", "=1+1"] {
            blank_row(case_id, 2, &mut text).unwrap();
        }
        assert_eq!(text, b"case_id,decision,reason\na,,\n\"b,c\",,\n'=1+1,,\n");
    }

    #[test]
    fn a_blank_row_is_what_the_csv_writer_writes() {
        let ids = [
            "a",
            "b,c",
            "=1+1",
            "'=x",
            "q\"uote",
            "line\nbreak",
            "cr\r",
            " lead",
            "tab\t",
            "#hash",
            "é",
            "\"",
            "-2",
            "@x",
        ];
        for case_id in ids {
            for blanks in [0, 1, 22] {
                let mut expected = Vec::new();
                blank_row(case_id, blanks, &mut expected).unwrap();
                let mut actual = Vec::new();
                push_blank_row(&mut actual, case_id, blanks);
                assert_eq!(actual, expected, "{case_id:?}, {blanks} blanks");
            }
        }
    }
}
