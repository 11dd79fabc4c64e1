//! The matrix of a straightforward run, as bytes: what the streaming tests compare the
//! engine's output with.

use crate::oracle::adjudication::Judged;
use leasejudge::matrix::{CsvMatrix, JsonMatrix, MatrixEncoding, MatrixRow, MatrixWriter};

/// A matrix encoding, as the engine and the commands take it.
pub type Encoding = &'static dyn MatrixEncoding;

/// Every encoding a command writes the matrix in.
pub const ENCODINGS: [Encoding; 2] = [&CsvMatrix, &JsonMatrix];

/// The matrix of `judged`, in order, encoded as `adjudicate` writes it.
pub fn matrix_bytes(judged: &[Judged], encoding: Encoding) -> Vec<u8> {
    let mut writer = MatrixWriter::new(Vec::new(), encoding, &[]).unwrap();
    for j in judged {
        let row = MatrixRow::new(&j.case_id, &j.case, &j.verdict);
        writer.write(&row, &[]).unwrap();
    }
    writer.finish().unwrap()
}
