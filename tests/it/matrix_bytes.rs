//! The matrix of a straightforward run, as bytes: what the streaming tests compare the
//! engine's output with.

use leasejudge::adjudication::Judged;
use leasejudge::matrix::{CsvMatrixWriter, JsonMatrixWriter, MatrixRow};
use leasejudge::streaming::Encoding;

/// The matrix of `judged`, in order, encoded as `adjudicate` writes it.
pub fn matrix_bytes(judged: &[Judged], encoding: Encoding) -> Vec<u8> {
    let rows = judged
        .iter()
        .map(|j| MatrixRow::new(&j.case_id, &j.case, &j.verdict));
    let mut out = Vec::new();
    match encoding {
        Encoding::Csv => {
            let mut writer = CsvMatrixWriter::new(&mut out, &[]).unwrap();
            for row in rows {
                writer.write(&row, &[]).unwrap();
            }
            writer.finish().unwrap();
        }
        Encoding::Json => {
            let mut writer = JsonMatrixWriter::new(&mut out).unwrap();
            for row in rows {
                writer.write(&row, &[]).unwrap();
            }
            writer.finish().unwrap();
        }
    }
    out
}
