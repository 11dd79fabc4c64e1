//! The matrix as typed rows ([`CellsMatrix`]) for a reader in this process: `check`'s join,
//! and `adjudicate -f table`'s table.

use std::io::{self, Write};

use crate::lease::{Case, Judgement, Phase, Timestamp};

use super::{push_u64, push_u64_list, MatrixEncoding, MatrixRow, COLUMNS};

/// The matrix as typed rows for a reader in this process (`check`'s join with a golden
/// file, the table of `adjudicate -f table`), never an output: per case, its first line and
/// every cell's text as the CSV matrix holds it before
/// [`spreadsheet_cell`](crate::sanitize::spreadsheet_cell) quotes it for a spreadsheet. A
/// record is its length (u32, little-endian, of what follows), the first line (u64) and, per
/// column of [`COLUMNS`] and then per extra column (`--explain`'s), the cell's length (u32)
/// and bytes ([`CellsRecord`] reads it). No header, no separator, no trailer.
#[derive(Clone, Copy, Debug)]
pub struct CellsMatrix;

impl MatrixEncoding for CellsMatrix {
    fn write_header(&self, _out: &mut dyn Write, _extra_columns: &[&str]) -> io::Result<()> {
        Ok(())
    }

    fn separator(&self) -> &'static [u8] {
        b""
    }

    fn push_case(
        &self,
        out: &mut Vec<u8>,
        case_id: &str,
        first_line: u64,
        case: &Case,
        run_as_of: Option<Timestamp>,
    ) -> io::Result<()> {
        push_cells_record(out, case_id, first_line, case, &case.judge(run_as_of));
        Ok(())
    }

    /// The row's cells, then its extra cells, with a first line of 0.
    fn write_row(
        &self,
        out: &mut dyn Write,
        row: &MatrixRow,
        extra: &[(&str, String)],
    ) -> io::Result<()> {
        let mut bytes = Vec::new();
        let start = begin_record(&mut bytes, 0);
        let extra_cells = extra.iter().map(|(_, cell)| cell.as_str());
        for cell in row.cells().iter().map(String::as_str).chain(extra_cells) {
            push_cell(&mut bytes, |out| out.extend_from_slice(cell.as_bytes()));
        }
        end_record(&mut bytes, start);
        out.write_all(&bytes)
    }

    fn write_trailer(&self, _out: &mut dyn Write, _rows: u64) -> io::Result<()> {
        Ok(())
    }
}

/// Starts a [`CellsMatrix`] record: its length's place, and its first line; returns where
/// the length goes.
fn begin_record(out: &mut Vec<u8>, first_line: u64) -> usize {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&first_line.to_le_bytes());
    start
}

/// Ends the record begun at `start`: its length.
fn end_record(out: &mut [u8], start: usize) {
    let len = u32::try_from(out.len() - start - 4).expect("a matrix row is far below 4 GiB");
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
}

/// Appends one cell of a [`CellsMatrix`] record: its length, then what `fill` writes.
#[inline(always)]
fn push_cell(out: &mut Vec<u8>, fill: impl FnOnce(&mut Vec<u8>)) {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    fill(out);
    let len = (out.len() - at - 4) as u32;
    out[at..at + 4].copy_from_slice(&len.to_le_bytes());
}

/// Appends one case's [`CellsMatrix`] record, its cells what [`MatrixRow::cells`] gives, built
/// straight from the case and its judgement as [`push_csv_row`](super::push_csv_row) builds
/// the CSV row.
pub fn push_cells_record(
    out: &mut Vec<u8>,
    case_id: &str,
    first_line: u64,
    case: &Case,
    judgement: &Judgement,
) {
    // Every column, in order: a new column fails to compile here until it is written.
    const _: () = assert!(super::Column::COUNT == 23);
    let lease = case.lease();
    let identity = lease.identity();
    let terms = &lease.offer.terms;
    let start = begin_record(out, first_line);
    let text = |out: &mut Vec<u8>, text: &str| {
        push_cell(out, |out| out.extend_from_slice(text.as_bytes()))
    };
    let number = |out: &mut Vec<u8>, value: Option<u64>| {
        push_cell(out, |out| {
            if let Some(value) = value {
                push_u64(out, value);
            }
        })
    };
    let time = |out: &mut Vec<u8>, value: Option<Timestamp>| {
        push_cell(out, |out| {
            if let Some(value) = value {
                value.write_to(out);
            }
        })
    };
    text(out, case_id);
    text(out, case.job_id());
    text(out, &identity.lease_id);
    number(out, Some(identity.generation));
    text(out, &identity.holder);
    time(out, Some(terms.issued_at));
    number(out, Some(terms.lease_duration.get()));
    time(out, Some(lease.expires_at));
    time(out, Some(terms.ack_deadline));
    text(out, judgement.ack_state.as_str());
    number(out, lease.renewal.map(|r| r.renew_seq));
    time(out, lease.renewal.map(|r| r.renew_time));
    number(out, lease.progress.as_ref().map(|p| p.progress_seq));
    text(
        out,
        lease
            .progress
            .as_ref()
            .and_then(|p| p.progress_value.as_deref())
            .unwrap_or(""),
    );
    time(out, lease.cancel_requested);
    time(out, lease.cancel_ack);
    text(
        out,
        match judgement.phase {
            Phase::Terminal(result) => result.as_str(),
            _ => "",
        },
    );
    for values in [case.stale_generations(), case.late_progress()] {
        push_cell(out, |out| push_u64_list(out, values, b';'));
    }
    text(
        out,
        if judgement.lease_expired() {
            "true"
        } else {
            "false"
        },
    );
    text(
        out,
        if case.conflict().is_some() {
            "true"
        } else {
            "false"
        },
    );
    text(out, judgement.decision.as_str());
    text(out, judgement.reason.as_str());
    end_record(out, start);
}

/// One [`CellsMatrix`] record, read in place.
#[derive(Clone, Copy, Debug)]
pub struct CellsRecord<'a> {
    /// The line of the case's first row, as its run counted it.
    pub first_line: u64,
    /// The cells after the first line.
    cells: &'a [u8],
}

impl<'a> CellsRecord<'a> {
    /// The record at the start of `bytes` and its length (its own length field included), if
    /// `bytes` holds a whole one.
    pub fn split_first(bytes: &'a [u8]) -> Option<(CellsRecord<'a>, usize)> {
        let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
        let record = bytes.get(4..4 + len)?;
        let first_line = u64::from_le_bytes(record.get(..8)?.try_into().ok()?);
        Some((
            CellsRecord {
                first_line,
                cells: &record[8..],
            },
            4 + len,
        ))
    }

    /// The record's cells in [`COLUMNS`] order (`None` for a cell of a malformed record).
    pub fn cells(&self) -> impl Iterator<Item = Option<&'a str>> + 'a {
        let mut rest = self.cells;
        let ascii = self.cells.is_ascii();
        (0..COLUMNS.len()).map(move |_| next_cell(&mut rest, ascii))
    }

    /// Puts the cells of the columns `wanted` marks, by their place in [`COLUMNS`], in their
    /// places of `cells`, the others skipped unread (a join reads a case id and the graded
    /// cells of every record); `None` for a malformed record or a wanted cell that is not
    /// UTF-8 (`cells` is then partly written).
    pub fn cells_into(
        &self,
        wanted: &[bool; COLUMNS.len()],
        cells: &mut [&'a str; COLUMNS.len()],
    ) -> Option<()> {
        let bytes = self.cells;
        let ascii = bytes.is_ascii();
        // By offsets, each cell's length read and the cell stepped over: most are not wanted.
        let mut at = 0usize;
        for (cell, &wanted) in cells.iter_mut().zip(wanted) {
            let text_at = at + 4;
            let len = u32::from_le_bytes(*bytes.get(at..text_at)?.first_chunk::<4>()?);
            let end = text_at.checked_add(len as usize)?;
            if wanted {
                *cell = cell_text(bytes.get(text_at..end)?, ascii)?;
            }
            at = end;
        }
        (at <= bytes.len()).then_some(())
    }

    /// Every cell of the record: the matrix's, then any extra columns' (`None` for a cell of
    /// a malformed record).
    pub fn all_cells(&self) -> impl Iterator<Item = Option<&'a str>> + 'a {
        let mut rest = self.cells;
        let ascii = self.cells.is_ascii();
        std::iter::from_fn(move || (!rest.is_empty()).then(|| next_cell(&mut rest, ascii)))
    }
}

/// The cell at the start of `rest`, which then starts after it. `ascii`: every byte of the
/// record's cells (their lengths included) is known to be ASCII, so the text is not checked
/// again (nearly every record: a length below 128 is ASCII too).
fn next_cell<'a>(rest: &mut &'a [u8], ascii: bool) -> Option<&'a str> {
    let len = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
    let text = rest.get(4..4 + len)?;
    *rest = &rest[4 + len..];
    cell_text(text, ascii)
}

/// A cell's bytes as text (`None` if they are not UTF-8). `ascii`: they are part of a
/// record known to be ASCII, and are not checked again.
fn cell_text(text: &[u8], ascii: bool) -> Option<&str> {
    if ascii {
        // SAFETY: `text` is part of bytes checked to be ASCII, which is UTF-8. (Checked a
        // cell at a time, it was a quarter of `check`'s join.)
        return Some(unsafe { std::str::from_utf8_unchecked(text) });
    }
    std::str::from_utf8(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record's cells read back as they were written, through both paths: a record all
    /// ASCII (unchecked) and one that is not (a non-ASCII cell, a cell of 128 bytes or more,
    /// whose length is not ASCII, or a cell that is not UTF-8: `None`, the rest read).
    #[test]
    fn cells_read_back_checked_or_not() {
        let long = "x".repeat(300);
        let records: [&[&[u8]]; 4] = [
            &[b"case-1", b"", b"ACK_TIMEOUT"],
            &[b"caf\xc3\xa9", b"", b"ok"],
            &[b"a", long.as_bytes(), b"b"],
            &[b"a", b"\xff\xfe", b"b"],
        ];
        for cells in records {
            let mut bytes = Vec::new();
            let start = begin_record(&mut bytes, 3);
            for cell in cells {
                push_cell(&mut bytes, |out| out.extend_from_slice(cell));
            }
            end_record(&mut bytes, start);
            let (read, len) = CellsRecord::split_first(&bytes).unwrap();
            assert_eq!((read.first_line, len), (3, bytes.len()));
            let expected: Vec<Option<&str>> =
                cells.iter().map(|c| std::str::from_utf8(c).ok()).collect();
            assert_eq!(read.all_cells().collect::<Vec<_>>(), expected);
        }
    }

    /// Only the wanted cells are read, each in its column's place: a cell not wanted is not
    /// checked, a wanted one that is not UTF-8 or a record cut short is `None`.
    #[test]
    fn the_wanted_cells_are_read_in_their_places() {
        let record = |cells: &[&[u8]]| {
            let mut bytes = Vec::new();
            let start = begin_record(&mut bytes, 7);
            for cell in cells {
                push_cell(&mut bytes, |out| out.extend_from_slice(cell));
            }
            end_record(&mut bytes, start);
            bytes
        };
        let texts: Vec<String> = (0..COLUMNS.len()).map(|i| format!("cell-{i}")).collect();
        let mut cells: Vec<&[u8]> = texts.iter().map(|t| t.as_bytes()).collect();
        cells[3] = b"\xff";
        let mut wanted = [false; COLUMNS.len()];
        for at in [0, 5, COLUMNS.len() - 1] {
            wanted[at] = true;
        }
        let bytes = record(&cells);
        let (read, _) = CellsRecord::split_first(&bytes).unwrap();
        let mut picked = [""; COLUMNS.len()];
        read.cells_into(&wanted, &mut picked).unwrap();
        for (at, cell) in picked.iter().enumerate() {
            let expected = if wanted[at] { texts[at].as_str() } else { "" };
            assert_eq!(*cell, expected, "column {at}");
        }
        wanted[3] = true;
        assert_eq!(read.cells_into(&wanted, &mut picked), None);
        let short = record(&cells[..COLUMNS.len() - 1]);
        let (read, _) = CellsRecord::split_first(&short).unwrap();
        assert_eq!(read.cells_into(&[false; COLUMNS.len()], &mut picked), None);
    }
}
