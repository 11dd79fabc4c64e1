//! A case mark and an unknown row (what grading a submission makes, one per golden case and
//! one per row the golden file lacks), and how they are kept in a [`Spool`]: a submission's
//! marks and unknown rows, in memory that does not grow with its size. Below the class
//! grading that makes them ([`super::class`]), which does not import it back.

use std::io::{self, Read};

use super::columns::Column;
use super::spool::{Spool, SpoolWriter};
use crate::store::{corrupt, Get, Put, Record};

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
    /// The shortcuts whose matrix agrees with this wrong answer (bits by place in
    /// [`Shortcut::ALL`](crate::lease::Shortcut::ALL)); none without the case files.
    pub shortcuts: u64,
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
        "this case is not in the key; the row is ignored (warning, not scored)";

    /// The warning as a line of plain text, located in `submission` (a platform's results
    /// and a learner's feedback say it so).
    pub fn warning_line(&self, submission: &str) -> String {
        format!(
            "warning: {submission}:{}: {}: {}",
            self.line,
            self.case_id,
            UnknownRow::WARNING
        )
    }
}

/// One submission's marks, in golden-file order.
pub type Marks = Spool<CaseMark>;

/// Writes marks as they are made.
pub type MarksWriter = SpoolWriter<CaseMark>;

/// One submission's unknown rows, in its order.
pub type UnknownRows = Spool<UnknownRow>;

impl Record for CaseMark {
    fn encode(&self, out: &mut impl Put) {
        out.put_u32(self.case);
        out.put_str(&self.case_id);
        let status = match self.status {
            CaseStatus::Matched => 0u8,
            CaseStatus::Mismatched => 1,
            CaseStatus::Missing => 2,
        };
        out.put_u8(status);
        out.put_optional_u64(self.line);
        out.put_u32(self.correct);
        out.put_u64(self.points);
        // A case has at most one miss per column, and there are fewer than 256 columns.
        out.put_u8(self.misses.len() as u8);
        for miss in &self.misses {
            out.put_u8(miss.column.index() as u8);
            out.put_str(&miss.actual);
            out.put_optional_str(miss.expected.as_deref());
            out.put_optional_str(miss.note.as_deref());
        }
        out.put_u64(self.shortcuts);
    }

    fn decode(input: &mut impl Read) -> io::Result<CaseMark> {
        let case = input.get_u32()?;
        let case_id = input.get_string()?.into();
        let status = match input.get_u8()? {
            0 => CaseStatus::Matched,
            1 => CaseStatus::Mismatched,
            2 => CaseStatus::Missing,
            _ => return Err(corrupt("an unknown case status")),
        };
        let line = input.get_optional_u64()?;
        let correct = input.get_u32()?;
        let points = input.get_u64()?;
        let count = input.get_u8()?;
        let mut misses = Vec::with_capacity(usize::from(count));
        for _ in 0..count {
            let column = Column::at(usize::from(input.get_u8()?))
                .ok_or_else(|| corrupt("an unknown column"))?;
            misses.push(ColumnMiss {
                column,
                actual: input.get_string()?.into(),
                expected: input.get_optional_string()?.map(Into::into),
                note: input.get_optional_string()?,
            });
        }
        let shortcuts = input.get_u64()?;
        Ok(CaseMark {
            case,
            case_id,
            line,
            status,
            correct,
            points,
            misses,
            shortcuts,
        })
    }
}

impl Record for UnknownRow {
    fn encode(&self, out: &mut impl Put) {
        out.put_u64(self.index);
        out.put_u64(self.line);
        out.put_str(&self.case_id);
    }

    fn decode(input: &mut impl Read) -> io::Result<UnknownRow> {
        Ok(UnknownRow {
            index: input.get_u64()?,
            line: input.get_u64()?,
            case_id: input.get_string()?,
        })
    }
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
                shortcuts: 0,
            },
            1 => CaseMark {
                case,
                case_id: format!("c-{case}").into(),
                line: None,
                status: CaseStatus::Missing,
                correct: 0,
                points: 0,
                misses: Vec::new(),
                shortcuts: 0,
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
                        column: Column::Reason,
                        actual: format!("späte {case}").into(),
                        expected: Some("".into()),
                        note: None,
                    },
                    ColumnMiss {
                        column: Column::Decision,
                        actual: "".into(),
                        expected: None,
                        note: Some(format!("note {case}")),
                    },
                ],
                shortcuts: u64::from(case) << 3 | 1 << 63,
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
                assert_eq!(&first.next().unwrap().unwrap(), m);
                assert_eq!(&second.next().unwrap().unwrap(), m);
            }
            assert!(first.next().is_none());
            assert_eq!(
                written.iter().map(Result::unwrap).collect::<Vec<_>>(),
                marks
            );
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
            let merged = writer
                .finish()
                .unwrap()
                .merge_runs(&points, |mark| u64::from(mark.case))
                .unwrap();
            assert_eq!(merged.len(), count as usize);
            assert!(
                merged.iter().map(|m| m.unwrap().case).eq(0..count),
                "{count} in {runs}"
            );
            assert_eq!(
                merged,
                Marks::from_records(&(0..count).map(mark).collect::<Vec<_>>())
            );
        }
    }
}
