//! The evidence matrix (spec section 5): one row per case, its encodings (CSV and JSON) and
//! their writer.

use std::io::{self, Write};

use serde_json::{Map, Value};

use crate::cell::spreadsheet_cell;
use crate::lease::{
    AckState, Case, CaseReason, Decision, Judgement, Phase, Reading, Seconds, TerminalResult,
    Timestamp, Verdict,
};

mod cells;
mod column;
mod json_row;

pub use cells::{push_cells_record, CellsMatrix, CellsRecord};
pub use column::{Column, ValueKind};
pub use json_row::push_json_case;
pub use json_row::push_json_str;

/// The matrix's columns' names, in order; CSV headers and JSON keys are exactly these
/// ([`Column::name`] of each [`Column`]).
pub const COLUMNS: [&str; Column::COUNT] = {
    let mut names = [""; Column::COUNT];
    let mut index = 0;
    while index < Column::COUNT {
        names[index] = Column::ALL[index].name();
        index += 1;
    }
    names
};

/// One case's row of the evidence matrix. The contract columns describe the current
/// generation at `as_of`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatrixRow {
    /// `case_id`
    pub case_id: String,
    /// `job_id`
    pub job_id: String,
    /// `lease_id`
    pub lease_id: String,
    /// `generation`
    pub generation: u64,
    /// `holder_identity`
    pub holder_identity: String,
    /// `issued_at`
    pub issued_at: Timestamp,
    /// `lease_duration`
    pub lease_duration: Seconds,
    /// `expires_at`
    pub expires_at: Timestamp,
    /// `ack_deadline`
    pub ack_deadline: Timestamp,
    /// `ack_state`
    pub ack_state: AckState,
    /// `renew_sequence`
    pub renew_sequence: Option<u64>,
    /// `renew_time`
    pub renew_time: Option<Timestamp>,
    /// `progress_sequence`
    pub progress_sequence: Option<u64>,
    /// `progress_value`
    pub progress_value: Option<String>,
    /// `cancel_requested`
    pub cancel_requested: Option<Timestamp>,
    /// `cancel_ack`
    pub cancel_ack: Option<Timestamp>,
    /// `terminal_result`
    pub terminal_result: Option<TerminalResult>,
    /// `stale_generation`, ascending
    pub stale_generation: Vec<u64>,
    /// `late_progress`, ascending
    pub late_progress: Vec<u64>,
    /// `lease_expired`
    pub lease_expired: bool,
    /// `ownership_conflict`
    pub ownership_conflict: bool,
    /// `decision`
    pub decision: Decision,
    /// `reason`
    pub reason: CaseReason,
}

impl MatrixRow {
    /// The matrix row of a replayed case and its verdict (under any reading: a shortcut's row
    /// has the contract's columns).
    pub fn new<R: Reading>(case_id: &str, case: &Case<R>, verdict: &Verdict) -> MatrixRow {
        let lease = &verdict.lease;
        let identity = lease.identity();
        let terms = &lease.offer.terms;
        MatrixRow {
            case_id: case_id.to_owned(),
            job_id: case.job_id().to_owned(),
            lease_id: identity.lease_id.to_string(),
            generation: identity.generation,
            holder_identity: identity.holder.to_string(),
            issued_at: terms.issued_at,
            lease_duration: terms.lease_duration,
            expires_at: lease.expires_at,
            ack_deadline: terms.ack_deadline,
            ack_state: lease.ack_state,
            renew_sequence: lease.renewal.map(|r| r.renew_seq),
            renew_time: lease.renewal.map(|r| r.renew_time),
            progress_sequence: lease.progress.as_ref().map(|p| p.progress_seq),
            progress_value: lease
                .progress
                .as_ref()
                .and_then(|p| p.progress_value.as_ref().map(ToString::to_string)),
            cancel_requested: lease.cancel_requested,
            cancel_ack: lease.cancel_ack,
            terminal_result: match lease.phase {
                Phase::Terminal(result) => Some(result),
                _ => None,
            },
            stale_generation: case.stale_generations().iter().copied().collect(),
            late_progress: case.late_progress().iter().copied().collect(),
            lease_expired: verdict.lease_expired(),
            ownership_conflict: case.conflict().is_some(),
            decision: verdict.decision,
            reason: verdict.reason,
        }
    }

    /// The row's cells as CSV text, in [`COLUMNS`] order; empty means none.
    pub fn cells(&self) -> [String; Column::COUNT] {
        Column::ALL.map(|column| self.cell(column))
    }

    /// One cell as CSV text; empty means none.
    pub fn cell(&self, column: Column) -> String {
        fn opt<T: ToString>(value: &Option<T>) -> String {
            value.as_ref().map(T::to_string).unwrap_or_default()
        }
        fn list(values: &[u64]) -> String {
            let mut text = String::new();
            for (i, value) in values.iter().enumerate() {
                if i > 0 {
                    text.push(';');
                }
                text.push_str(&value.to_string());
            }
            text
        }
        match column {
            Column::CaseId => self.case_id.clone(),
            Column::JobId => self.job_id.clone(),
            Column::LeaseId => self.lease_id.clone(),
            Column::Generation => self.generation.to_string(),
            Column::HolderIdentity => self.holder_identity.clone(),
            Column::IssuedAt => self.issued_at.to_string(),
            Column::LeaseDuration => self.lease_duration.to_string(),
            Column::ExpiresAt => self.expires_at.to_string(),
            Column::AckDeadline => self.ack_deadline.to_string(),
            Column::AckState => self.ack_state.to_string(),
            Column::RenewSequence => opt(&self.renew_sequence),
            Column::RenewTime => opt(&self.renew_time),
            Column::ProgressSequence => opt(&self.progress_sequence),
            Column::ProgressValue => opt(&self.progress_value),
            Column::CancelRequested => opt(&self.cancel_requested),
            Column::CancelAck => opt(&self.cancel_ack),
            Column::TerminalResult => opt(&self.terminal_result),
            Column::StaleGeneration => list(&self.stale_generation),
            Column::LateProgress => list(&self.late_progress),
            Column::LeaseExpired => self.lease_expired.to_string(),
            Column::OwnershipConflict => self.ownership_conflict.to_string(),
            Column::Decision => self.decision.to_string(),
            Column::Reason => self.reason.to_string(),
        }
    }

    /// The row as a JSON object (spec section 5): keys in column order, integers as numbers,
    /// booleans, lists as arrays, empty cells as `null`.
    pub fn to_json(&self) -> Map<String, Value> {
        Column::all()
            .map(|column| (column.name().to_owned(), self.json_value(column)))
            .collect()
    }

    /// One cell as a JSON value (spec section 5): an integer as a number, a boolean, a list
    /// as an array, an empty cell as `null`.
    pub fn json_value(&self, column: Column) -> Value {
        fn opt<T: ToString>(value: &Option<T>) -> Value {
            value
                .as_ref()
                .map_or(Value::Null, |v| Value::String(v.to_string()))
        }
        fn number(value: Option<u64>) -> Value {
            value.map_or(Value::Null, Value::from)
        }
        match column {
            Column::CaseId => Value::String(self.case_id.clone()),
            Column::JobId => Value::String(self.job_id.clone()),
            Column::LeaseId => Value::String(self.lease_id.clone()),
            Column::Generation => Value::from(self.generation),
            Column::HolderIdentity => Value::String(self.holder_identity.clone()),
            Column::IssuedAt => Value::String(self.issued_at.to_string()),
            Column::LeaseDuration => Value::from(self.lease_duration.get()),
            Column::ExpiresAt => Value::String(self.expires_at.to_string()),
            Column::AckDeadline => Value::String(self.ack_deadline.to_string()),
            Column::AckState => Value::String(self.ack_state.to_string()),
            Column::RenewSequence => number(self.renew_sequence),
            Column::RenewTime => opt(&self.renew_time),
            Column::ProgressSequence => number(self.progress_sequence),
            Column::ProgressValue => opt(&self.progress_value),
            Column::CancelRequested => opt(&self.cancel_requested),
            Column::CancelAck => opt(&self.cancel_ack),
            Column::TerminalResult => opt(&self.terminal_result),
            Column::StaleGeneration => Value::from(self.stale_generation.clone()),
            Column::LateProgress => Value::from(self.late_progress.clone()),
            Column::LeaseExpired => Value::Bool(self.lease_expired),
            Column::OwnershipConflict => Value::Bool(self.ownership_conflict),
            Column::Decision => Value::String(self.decision.to_string()),
            Column::Reason => Value::String(self.reason.to_string()),
        }
    }
}

/// The columns in which the matrix rows of two judged cases differ, as bits by position in
/// [`COLUMNS`] (bit 0 `case_id`, which they share): what [`MatrixRow::new`] would make of each,
/// compared value for value, without making them (for comparing a case under the contract
/// with the same case under each shortcut). An empty progress value is no value, as the
/// matrix writes both.
pub fn differing_columns<A: Reading, B: Reading>(
    (a, a_judged): (&Case<A>, &Judgement),
    (b, b_judged): (&Case<B>, &Judgement),
) -> u32 {
    let (a_lease, b_lease) = (a.lease(), b.lease());
    let (a_id, b_id) = (a_lease.identity(), b_lease.identity());
    let (a_terms, b_terms) = (&a_lease.offer.terms, &b_lease.offer.terms);
    fn value(lease: &crate::lease::Lease) -> &str {
        lease
            .progress
            .as_ref()
            .and_then(|p| p.progress_value.as_deref())
            .unwrap_or("")
    }
    let result = |judged: &Judgement| match judged.phase {
        Phase::Terminal(result) => Some(result),
        _ => None,
    };
    let same = [
        true,
        a.job_id() == b.job_id(),
        a_id.lease_id == b_id.lease_id,
        a_id.generation == b_id.generation,
        a_id.holder == b_id.holder,
        a_terms.issued_at == b_terms.issued_at,
        a_terms.lease_duration == b_terms.lease_duration,
        a_lease.expires_at == b_lease.expires_at,
        a_terms.ack_deadline == b_terms.ack_deadline,
        a_judged.ack_state == b_judged.ack_state,
        a_lease.renewal.map(|r| r.renew_seq) == b_lease.renewal.map(|r| r.renew_seq),
        a_lease.renewal.map(|r| r.renew_time) == b_lease.renewal.map(|r| r.renew_time),
        a_lease.progress.as_ref().map(|p| p.progress_seq)
            == b_lease.progress.as_ref().map(|p| p.progress_seq),
        value(a_lease) == value(b_lease),
        a_lease.cancel_requested == b_lease.cancel_requested,
        a_lease.cancel_ack == b_lease.cancel_ack,
        result(a_judged) == result(b_judged),
        a.stale_generations() == b.stale_generations(),
        a.late_progress() == b.late_progress(),
        a_judged.lease_expired() == b_judged.lease_expired(),
        a.conflict().is_some() == b.conflict().is_some(),
        a_judged.decision == b_judged.decision,
        a_judged.reason == b_judged.reason,
    ];
    const _: () = assert!(Column::COUNT == 23);
    same.iter()
        .enumerate()
        .filter(|(_, same)| !**same)
        .fold(0, |bits, (column, _)| bits | 1 << column)
}

/// Appends one case's matrix row as CSV to `out`: the same bytes as
/// [`MatrixRow::new`] then [`CsvMatrix`]'s [`write_row`](MatrixEncoding::write_row), built
/// straight from the case and verdict (no row, no string per cell: for the streaming pass,
/// which writes a row per case).
pub fn push_csv_row(out: &mut Vec<u8>, case_id: &str, case: &Case, judgement: &Judgement) {
    // Every column, in order: a new column fails to compile here until it is written.
    const _: () = assert!(Column::COUNT == 23);
    let lease = case.lease();
    let identity = lease.identity();
    let terms = &lease.offer.terms;
    push_csv_text(out, case_id);
    out.push(b',');
    push_csv_text(out, case.job_id());
    out.push(b',');
    push_csv_text(out, &identity.lease_id);
    out.push(b',');
    push_u64(out, identity.generation);
    out.push(b',');
    push_csv_text(out, &identity.holder);
    out.push(b',');
    terms.issued_at.write_to(out);
    out.push(b',');
    push_u64(out, terms.lease_duration.get());
    out.push(b',');
    lease.expires_at.write_to(out);
    out.push(b',');
    terms.ack_deadline.write_to(out);
    out.push(b',');
    out.extend_from_slice(judgement.ack_state.as_str().as_bytes());
    out.push(b',');
    if let Some(renewal) = lease.renewal {
        push_u64(out, renewal.renew_seq);
        out.push(b',');
        renewal.renew_time.write_to(out);
    } else {
        out.push(b',');
    }
    out.push(b',');
    if let Some(progress) = &lease.progress {
        push_u64(out, progress.progress_seq);
        out.push(b',');
        push_csv_text(out, progress.progress_value.as_deref().unwrap_or(""));
    } else {
        out.push(b',');
    }
    out.push(b',');
    if let Some(time) = lease.cancel_requested {
        time.write_to(out);
    }
    out.push(b',');
    if let Some(time) = lease.cancel_ack {
        time.write_to(out);
    }
    out.push(b',');
    if let Phase::Terminal(result) = judgement.phase {
        out.extend_from_slice(result.as_str().as_bytes());
    }
    for values in [case.stale_generations(), case.late_progress()] {
        out.push(b',');
        push_u64_list(out, values, b';');
    }
    out.extend_from_slice(if judgement.lease_expired() {
        b",true,"
    } else {
        b",false,"
    });
    out.extend_from_slice(if case.conflict().is_some() {
        b"true,"
    } else {
        b"false,"
    });
    out.extend_from_slice(judgement.decision.as_str().as_bytes());
    out.push(b',');
    out.extend_from_slice(judgement.reason.as_str().as_bytes());
    out.push(b'\n');
}

/// Appends a text cell as the csv writer would write what [`spreadsheet_cell`] gives for it:
/// quoted (with `"` doubled) only if it holds a `,`, `"`, CR or LF.
#[inline(always)]
pub fn push_csv_text(out: &mut Vec<u8>, text: &str) {
    let text = spreadsheet_cell(text);
    let bytes = text.as_bytes();
    if !bytes
        .iter()
        .any(|&b| matches!(b, b',' | b'"' | b'\r' | b'\n'))
    {
        out.extend_from_slice(bytes);
        return;
    }
    out.push(b'"');
    for &b in bytes {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// Appends a list of numbers, `separator` between them: an integer-list cell (`;` in a CSV
/// cell, `,` in a JSON array).
pub(crate) fn push_u64_list<'a>(
    out: &mut Vec<u8>,
    values: impl IntoIterator<Item = &'a u64>,
    separator: u8,
) {
    for (i, &value) in values.into_iter().enumerate() {
        if i > 0 {
            out.push(separator);
        }
        push_u64(out, value);
    }
}

/// Appends a number's decimal digits.
pub fn push_u64(out: &mut Vec<u8>, mut value: u64) {
    if value < 10 {
        // Most numbers of a matrix row are single digits: no copy of a digit buffer.
        out.push(b'0' + value as u8);
        return;
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// One encoding of the evidence matrix, as its rows are written one at a time: what comes
/// before the rows, each row (after a separator, but the first), and what comes after them.
/// The engine writes each closed case's row through it and puts the rows together in order
/// without knowing which encoding it writes; a command chooses one ([`CsvMatrix`] or
/// [`JsonMatrix`]), so that a new output format touches this module and the command only.
pub trait MatrixEncoding: Sync + std::fmt::Debug {
    /// Writes what comes before the rows, with `extra_columns` after the matrix's.
    fn write_header(&self, out: &mut dyn Write, extra_columns: &[&str]) -> io::Result<()>;

    /// What comes between two rows, before the second.
    fn separator(&self) -> &'static [u8];

    /// Appends a closed case's row, judged at `run_as_of` (without a separator): as
    /// [`write_row`](MatrixEncoding::write_row) of its [`MatrixRow`] with no extra cells.
    /// `first_line` is the line of the case's first row (counted from the start of the part
    /// of the file its run read: see [`CellsMatrix`]); the outputs' encodings ignore it.
    fn push_case(
        &self,
        out: &mut Vec<u8>,
        case_id: &str,
        first_line: u64,
        case: &Case,
        run_as_of: Option<Timestamp>,
    ) -> io::Result<()>;

    /// Writes a row (without a separator) with `extra` cells after the matrix's, each with
    /// the name of its column.
    fn write_row(
        &self,
        out: &mut dyn Write,
        row: &MatrixRow,
        extra: &[(&str, String)],
    ) -> io::Result<()>;

    /// Writes what comes after `rows` rows.
    fn write_trailer(&self, out: &mut dyn Write, rows: u64) -> io::Result<()>;
}

/// CSV: a header of [`COLUMNS`] (plus any extra columns), `\n` line endings, fields quoted
/// only when they must be, each as [`spreadsheet_cell`] writes it.
#[derive(Clone, Copy, Debug)]
pub struct CsvMatrix;

/// A CSV writer with `\n` line endings over `out`.
fn csv_writer<W: Write>(out: W) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out)
}

impl MatrixEncoding for CsvMatrix {
    fn write_header(&self, out: &mut dyn Write, extra_columns: &[&str]) -> io::Result<()> {
        let mut writer = csv_writer(out);
        writer.write_record(COLUMNS.iter().chain(extra_columns))?;
        writer.flush()
    }

    fn separator(&self) -> &'static [u8] {
        b""
    }

    /// [`push_csv_row`]: no [`MatrixRow`] built, no string per cell (it is the hot path of a
    /// run that writes a row per case).
    fn push_case(
        &self,
        out: &mut Vec<u8>,
        case_id: &str,
        _first_line: u64,
        case: &Case,
        run_as_of: Option<Timestamp>,
    ) -> io::Result<()> {
        push_csv_row(out, case_id, case, &case.judge(run_as_of));
        Ok(())
    }

    fn write_row(
        &self,
        out: &mut dyn Write,
        row: &MatrixRow,
        extra: &[(&str, String)],
    ) -> io::Result<()> {
        let mut writer = csv_writer(out);
        for cell in row.cells().iter().chain(extra.iter().map(|(_, cell)| cell)) {
            writer.write_field(&*spreadsheet_cell(cell))?;
        }
        writer.write_record(None::<&[u8]>)?;
        writer.flush()
    }

    fn write_trailer(&self, _out: &mut dyn Write, _rows: u64) -> io::Result<()> {
        Ok(())
    }
}

/// One JSON array, one case object per line (extra cells as string members after
/// `reason`).
#[derive(Clone, Copy, Debug)]
pub struct JsonMatrix;

impl MatrixEncoding for JsonMatrix {
    fn write_header(&self, out: &mut dyn Write, _extra_columns: &[&str]) -> io::Result<()> {
        out.write_all(b"[")
    }

    fn separator(&self) -> &'static [u8] {
        b","
    }

    /// [`push_json_case`]: no [`MatrixRow`], no JSON value tree (the hot path of
    /// `adjudicate -f json`).
    fn push_case(
        &self,
        out: &mut Vec<u8>,
        case_id: &str,
        _first_line: u64,
        case: &Case,
        run_as_of: Option<Timestamp>,
    ) -> io::Result<()> {
        out.push(b'\n');
        push_json_case(out, case_id, case, &case.judge(run_as_of));
        Ok(())
    }

    fn write_row(
        &self,
        out: &mut dyn Write,
        row: &MatrixRow,
        extra: &[(&str, String)],
    ) -> io::Result<()> {
        let mut bytes = Vec::with_capacity(512);
        push_json_row(&mut bytes, row, extra)?;
        out.write_all(&bytes)
    }

    fn write_trailer(&self, out: &mut dyn Write, rows: u64) -> io::Result<()> {
        out.write_all(if rows == 0 { b"]\n" } else { b"\n]\n" })
    }
}

/// Appends a row as [`JsonMatrix`] writes it, serialised into memory rather than through a
/// `dyn Write` (serde_json writes each key and punctuation mark on its own: a call through a
/// vtable apiece).
fn push_json_row(out: &mut Vec<u8>, row: &MatrixRow, extra: &[(&str, String)]) -> io::Result<()> {
    let mut object = row.to_json();
    for (key, value) in extra {
        object.insert((*key).to_owned(), Value::String(value.clone()));
    }
    out.push(b'\n');
    serde_json::to_writer(out, &object)?;
    Ok(())
}

/// Writes a whole matrix of [`MatrixRow`]s in one [`MatrixEncoding`].
pub struct MatrixWriter<W: Write> {
    out: W,
    encoding: &'static dyn MatrixEncoding,
    rows: u64,
}

impl<W: Write> MatrixWriter<W> {
    /// Starts the matrix, writing its header with `extra_columns`.
    pub fn new(
        mut out: W,
        encoding: &'static dyn MatrixEncoding,
        extra_columns: &[&str],
    ) -> io::Result<MatrixWriter<W>> {
        encoding.write_header(&mut out, extra_columns)?;
        Ok(MatrixWriter {
            out,
            encoding,
            rows: 0,
        })
    }

    /// Writes one row, with its extra cells (and the names of their columns).
    pub fn write(&mut self, row: &MatrixRow, extra: &[(&str, String)]) -> io::Result<()> {
        if self.rows > 0 {
            self.out.write_all(self.encoding.separator())?;
        }
        self.encoding.write_row(&mut self.out, row, extra)?;
        self.rows += 1;
        Ok(())
    }

    /// Ends the matrix, flushes and returns the underlying writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.encoding.write_trailer(&mut self.out, self.rows)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{read, CaseRead, InputErrors, InputFormat, NoObserver, ReadOptions};

    /// The streaming pass's direct CSV encoding is byte for byte the csv writer's, quoting
    /// and the `'` before a formula included.
    #[test]
    fn push_csv_row_matches_the_csv_writer() {
        let file = "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration,\
                    progress_seq,progress_value,renew_seq,result\n\
                    \"c,1\",offer,2026-01-01T00:00:00Z,\"j\"\"1\",L 1,1,\"w\nx\",60s,,,,\n\
                    \"c,1\",ack,2026-01-01T00:00:01Z,,L 1,1,\"w\nx\",,,,,\n\
                    \"c,1\",renew,2026-01-01T00:00:02Z,,L 1,1,\"w\nx\",,,,2,\n\
                    \"c,1\",progress,2026-01-01T00:00:03Z,,L 1,1,\"w\nx\",,3,\" a,\"\"b\"\"\r\",,\n\
                    \"c,1\",progress,2026-01-01T00:00:04Z,,L 1,0,\"w\nx\",,1,,,\n\
                    c2,offer,2026-01-01T00:00:00Z,j2,L2,2,w,1m,,,,\n\
                    c2,progress,2026-01-01T00:00:30Z,,L2,1,w,,1,,,\n\
                    =c3,offer,2026-01-01T00:00:00Z,@j3,+L3,1,-w,60,,,,\n\
                    =c3,progress,2026-01-01T00:00:10Z,,+L3,1,-w,,1,=1+1,,\n";
        let mut errors = InputErrors::new();
        let mut rows: Vec<crate::input::ParsedRow> = Vec::new();
        read(
            file.as_bytes(),
            &CaseRead::new("t.csv", InputFormat::Csv, &ReadOptions::default()),
            &mut errors,
            &mut |_, row| rows.push(row.expect("a valid row")),
            &mut NoObserver,
        );
        assert!(errors.is_empty(), "{errors:?}");
        for case_id in ["c,1", "c2", "=c3"] {
            let case_rows = rows.iter().filter(|r| r.case_id == case_id).map(|r| &r.row);
            let (case, _) = crate::lease::replay(case_rows).unwrap().unwrap();
            for as_of in [None, Timestamp::parse("2027-01-01T00:00:00Z").ok()] {
                let verdict = case.verdict(as_of);
                let mut expected = Vec::new();
                let row = MatrixRow::new(case_id, &case, &verdict);
                CsvMatrix.write_row(&mut expected, &row, &[]).unwrap();
                let mut actual = Vec::new();
                push_csv_row(&mut actual, case_id, &case, &case.judge(as_of));
                assert_eq!(case_id == "=c3", actual.starts_with(b"'="));
                assert_eq!(
                    String::from_utf8(actual).unwrap(),
                    String::from_utf8(expected).unwrap()
                );
                // The typed cells, through both paths.
                let mut record = Vec::new();
                push_cells_record(&mut record, case_id, 7, &case, &case.judge(as_of));
                let (read, len) = CellsRecord::split_first(&record).unwrap();
                assert_eq!((read.first_line, len), (7, record.len()));
                let cells: Vec<String> = read.cells().map(|c| c.unwrap().to_owned()).collect();
                assert_eq!(cells, row.cells().to_vec());
                // The table's rows: the matrix's cells, then the extra columns' (`--explain`).
                let mut written = Vec::new();
                let extra = [("detail", "why, =1".to_owned())];
                CellsMatrix.write_row(&mut written, &row, &extra).unwrap();
                let (read, _) = CellsRecord::split_first(&written).unwrap();
                let all: Vec<&str> = read.all_cells().map(Option::unwrap).collect();
                assert_eq!(all[..Column::COUNT], cells);
                assert_eq!(all[Column::COUNT..], ["why, =1"]);
                assert_eq!(read.cells().count(), Column::COUNT);
                // The JSON row, through both paths: serde_json of the row's value tree, and
                // the direct encoding.
                let mut expected = Vec::new();
                push_json_row(&mut expected, &row, &[]).unwrap();
                let mut actual = vec![b'\n'];
                push_json_case(&mut actual, case_id, &case, &case.judge(as_of));
                assert_eq!(
                    String::from_utf8(actual).unwrap(),
                    String::from_utf8(expected).unwrap()
                );
            }
        }
    }

    /// Every character serde_json escapes, and some it does not, escaped as it escapes them.
    #[test]
    fn json_strings_are_escaped_as_serde_json_escapes_them() {
        let mut texts: Vec<String> = (0u32..0x80)
            .map(|c| format!("a{}b", char::from_u32(c).unwrap()))
            .collect();
        texts.extend(
            [
                "",
                "plain",
                "é\u{2028}\u{1F600}\"\\/\u{7f}",
                "\n\r\t\u{8}\u{c}",
            ]
            .map(String::from),
        );
        for text in texts {
            let mut actual = Vec::new();
            push_json_str(&mut actual, &text);
            assert_eq!(actual, serde_json::to_vec(&text).unwrap(), "{text:?}");
        }
    }
}
