//! A case mark and an unknown row (what grading a submission makes, one per golden case and
//! one per row the golden file lacks), and how they are kept in a [`Spool`]: a submission's
//! marks and unknown rows, in memory that does not grow with its size. Below the class
//! grading that makes them ([`super::class`]), which does not import it back.

use std::io::{self, Read};

use super::columns::Column;
use super::spool::{Record, Spool, SpoolWriter};

/// One graded column of a case that is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnMiss {
    /// The column.
    pub column: Column,
    /// The submission's value, trimmed.
    pub actual: Box<str>,
    /// The golden value, trimmed; `None` unless revealed.
    pub expected: Option<Box<str>>,
    /// Why the value cannot be right whatever the case (`EXPIRD is not a decision code; did
    /// you mean EXPIRED?`); `None` for a valid value that is simply wrong.
    pub note: Option<String>,
}

/// How one golden case fared in one submission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaseStatus {
    /// Every graded column is right.
    Matched,
    /// At least one graded column is wrong.
    Mismatched,
    /// The submission has no row for the case (every column counts wrong).
    Missing,
}

impl CaseStatus {
    /// `matched`, `mismatched` or `missing`.
    pub fn name(self) -> &'static str {
        match self {
            CaseStatus::Matched => "matched",
            CaseStatus::Mismatched => "mismatched",
            CaseStatus::Missing => "missing",
        }
    }
}

/// One golden case's result in one submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseMark {
    /// The case's index in the golden file.
    pub case: u32,
    /// Its case id.
    pub case_id: Box<str>,
    /// The submission's row for it; `None` when missing.
    pub line: Option<u64>,
    /// How it fared.
    pub status: CaseStatus,
    /// Bit `i` set: graded column `i` is right.
    pub correct: u32,
    /// The points it scored.
    pub points: u64,
    /// The wrong columns (empty unless mismatched).
    pub misses: Vec<ColumnMiss>,
}

impl CaseMark {
    /// Whether graded column `index` is right.
    pub fn is_correct(&self, index: usize) -> bool {
        self.correct & (1 << index) != 0
    }
}

/// A submission row whose case id the golden file lacks: a warning, not scored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownRow {
    /// The case id as written.
    pub case_id: String,
    /// Its line in the submission.
    pub line: u64,
    /// Its place among the submission's rows.
    pub index: u64,
}

impl UnknownRow {
    /// The warning, for people (never naming the golden file).
    pub const WARNING: &'static str =
        "this case is not in the golden file; the row is ignored (warning, not scored)";
}

/// One submission's marks, in golden-file order.
pub type Marks = Spool<CaseMark>;

/// Writes marks as they are made.
pub type MarksWriter = SpoolWriter<CaseMark>;

/// One submission's unknown rows, in its order.
pub type UnknownRows = Spool<UnknownRow>;

impl Record for CaseMark {
    fn encode(&self, out: &mut Vec<u8>) {
        encode(self, out);
    }

    fn decode(reader: &mut dyn Read) -> io::Result<CaseMark> {
        decode(reader)
    }

    /// Its golden case.
    fn key(&self) -> u64 {
        u64::from(self.case)
    }
}

impl Record for UnknownRow {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.index.to_le_bytes());
        out.extend_from_slice(&self.line.to_le_bytes());
        encode_text(Some(&self.case_id), out);
    }

    fn decode(reader: &mut dyn Read) -> io::Result<UnknownRow> {
        let index = u64::from_le_bytes(bytes(reader)?);
        let line = u64::from_le_bytes(bytes(reader)?);
        let case_id = decode_text(reader)?.ok_or_else(|| corrupt("a row without a case id"))?;
        Ok(UnknownRow {
            case_id,
            line,
            index,
        })
    }

    /// Its place among the submission's rows (a JSON line may hold several).
    fn key(&self) -> u64 {
        self.index
    }
}

const HAS_LINE: u8 = 1 << 2;

fn encode(mark: &CaseMark, out: &mut Vec<u8>) {
    out.extend_from_slice(&mark.case.to_le_bytes());
    encode_text(Some(&mark.case_id), out);
    let status = match mark.status {
        CaseStatus::Matched => 0u8,
        CaseStatus::Mismatched => 1,
        CaseStatus::Missing => 2,
    };
    out.push(status | if mark.line.is_some() { HAS_LINE } else { 0 });
    if let Some(line) = mark.line {
        out.extend_from_slice(&line.to_le_bytes());
    }
    out.extend_from_slice(&mark.correct.to_le_bytes());
    out.extend_from_slice(&mark.points.to_le_bytes());
    // A case has at most one miss per column, and there are fewer than 256 columns.
    out.push(mark.misses.len() as u8);
    for miss in &mark.misses {
        out.push(miss.column.index() as u8);
        encode_text(Some(&miss.actual), out);
        encode_text(miss.expected.as_deref(), out);
        encode_text(miss.note.as_deref(), out);
    }
}

/// A text as its length plus one (0 for none) and its bytes.
fn encode_text(text: Option<&str>, out: &mut Vec<u8>) {
    match text {
        None => out.extend_from_slice(&0u32.to_le_bytes()),
        Some(text) => {
            out.extend_from_slice(&(text.len() as u32 + 1).to_le_bytes());
            out.extend_from_slice(text.as_bytes());
        }
    }
}

fn bytes<const N: usize>(reader: &mut dyn Read) -> io::Result<[u8; N]> {
    let mut buf = [0; N];
    reader.read_exact(&mut buf)?;
    Ok(buf)
}

fn corrupt(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
}

fn decode_text(reader: &mut dyn Read) -> io::Result<Option<String>> {
    let len = u32::from_le_bytes(bytes(reader)?);
    if len == 0 {
        return Ok(None);
    }
    let mut buf = vec![0; len as usize - 1];
    reader.read_exact(&mut buf)?;
    String::from_utf8(buf)
        .map(Some)
        .map_err(|_| corrupt("a text that is not UTF-8"))
}

fn decode(reader: &mut dyn Read) -> io::Result<CaseMark> {
    let case = u32::from_le_bytes(bytes(reader)?);
    let case_id = decode_text(reader)?.ok_or_else(|| corrupt("a mark without a case id"))?;
    let [flags] = bytes(reader)?;
    let status = match flags & 3 {
        0 => CaseStatus::Matched,
        1 => CaseStatus::Mismatched,
        2 => CaseStatus::Missing,
        _ => return Err(corrupt("an unknown case status")),
    };
    let line = if flags & HAS_LINE != 0 {
        Some(u64::from_le_bytes(bytes(reader)?))
    } else {
        None
    };
    let correct = u32::from_le_bytes(bytes(reader)?);
    let points = u64::from_le_bytes(bytes(reader)?);
    let [count] = bytes(reader)?;
    let mut misses = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let [column] = bytes(reader)?;
        let column = Column::at(column as usize).ok_or_else(|| corrupt("an unknown column"))?;
        let actual = decode_text(reader)?.ok_or_else(|| corrupt("a miss without a value"))?;
        misses.push(ColumnMiss {
            column,
            actual: actual.into(),
            expected: decode_text(reader)?.map(Into::into),
            note: decode_text(reader)?,
        });
    }
    Ok(CaseMark {
        case,
        case_id: case_id.into(),
        line,
        status,
        correct,
        points,
        misses,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(case: u32) -> CaseMark {
        match case % 3 {
            0 => CaseMark {
                case,
                case_id: format!("c-{case}").into(),
                line: Some(u64::from(case) * 7 + 2),
                status: CaseStatus::Matched,
                correct: 3,
                points: 1,
                misses: Vec::new(),
            },
            1 => CaseMark {
                case,
                case_id: format!("c-{case}").into(),
                line: None,
                status: CaseStatus::Missing,
                correct: 0,
                points: 0,
                misses: Vec::new(),
            },
            _ => CaseMark {
                case,
                case_id: format!("c-{case}").into(),
                line: Some(u64::MAX),
                status: CaseStatus::Mismatched,
                correct: 1,
                points: 2,
                misses: vec![
                    ColumnMiss {
                        column: Column::REASON,
                        actual: format!("späte {case}").into(),
                        expected: Some("".into()),
                        note: None,
                    },
                    ColumnMiss {
                        column: Column::DECISION,
                        actual: "".into(),
                        expected: None,
                        note: Some(format!("note {case}")),
                    },
                ],
            },
        }
    }

    #[test]
    fn marks_read_back_as_written_in_memory_and_spilled() {
        for count in [0u32, 1, 5, 20_000] {
            let marks: Vec<CaseMark> = (0..count).map(mark).collect();
            let mut writer = MarksWriter::new();
            for m in &marks {
                writer.push(m).unwrap();
            }
            let written = writer.finish().unwrap();
            assert_eq!(written.is_in_file(), count == 20_000, "{count}");
            assert_eq!(written.len(), marks.len());
            // Two readers at once, each from the start.
            let mut first = written.iter();
            let mut second = written.iter();
            for m in &marks {
                assert_eq!(first.next().as_ref(), Some(m));
                assert_eq!(second.next().as_ref(), Some(m));
            }
            assert_eq!(first.next(), None);
            assert_eq!(written.iter().collect::<Vec<_>>(), marks);
            assert_eq!(written, Marks::from_records(&marks));
        }
    }

    #[test]
    fn runs_merge_into_case_order_in_memory_and_spilled() {
        for (count, runs) in [(0u32, 1usize), (10, 1), (10, 3), (20_000, 7), (20_000, 300)] {
            // Case i goes to run hash(i) % runs, as a split matrix's partitions hold them.
            let run_of = |case: u32| (case.wrapping_mul(2_654_435_761) >> 7) as usize % runs;
            let mut writer = MarksWriter::new();
            let mut points = vec![writer.point()];
            for run in 0..runs {
                for case in (0..count).filter(|&case| run_of(case) == run) {
                    writer.push(&mark(case)).unwrap();
                }
                points.push(writer.point());
            }
            let merged = writer.finish().unwrap().merge_runs(&points).unwrap();
            assert_eq!(merged.len(), count as usize);
            assert!(
                merged.iter().map(|m| m.case).eq(0..count),
                "{count} in {runs}"
            );
            assert_eq!(
                merged,
                Marks::from_records(&(0..count).map(mark).collect::<Vec<_>>())
            );
        }
    }
}
