//! Comparing a matrix with its golden file (spec section 8) into a grade report that every
//! report format renders; hidden golden values are dropped here, so no renderer can show them.

pub use super::case_grade::{shown, CaseGrade, CaseOutcome, Mismatch, Spot, UnknownCase};
use super::case_list::{CaseList, UnknownList};
use super::columns::Column;
use super::matrix_reader::{MatrixEntry, MatrixFile};

/// The grade of one matrix against one golden file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileGrade {
    /// The graded file (a case file for `check`, the submission for `grade`).
    pub file: String,
    /// The golden file it was compared with.
    pub golden: String,
    /// The golden cases listed, in golden-file order: every wrong and missing case, and the
    /// matched ones too unless they are only counted (see [`FileGrade::matched_unlisted`]).
    /// Read back one at a time: a large file's list is kept in a temporary file.
    pub cases: CaseList,
    /// Matched golden cases that are counted but not in [`FileGrade::cases`]: a report that
    /// does not list matched cases needs no record per case, so a large file is graded in
    /// memory proportional to its differences.
    pub matched_unlisted: usize,
    /// Cases the golden file lacks, in graded-file order.
    pub unknown: UnknownList,
}

/// Why a file could not be paired (`check` on directories).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unpaired {
    /// A case file with no golden file of the same name.
    CaseFileWithoutGolden,
    /// A golden file with no case file of the same name.
    GoldenWithoutCaseFile,
}

impl Unpaired {
    /// What is wrong, for people.
    pub fn message(self) -> &'static str {
        match self {
            Unpaired::CaseFileWithoutGolden => "case file has no golden file of the same name",
            Unpaired::GoldenWithoutCaseFile => "golden file has no case file of the same name",
        }
    }

    /// A short code, for machine formats.
    pub fn code(self) -> &'static str {
        match self {
            Unpaired::CaseFileWithoutGolden => "no_golden_file",
            Unpaired::GoldenWithoutCaseFile => "no_case_file",
        }
    }
}

/// An unpaired file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnpairedFile {
    /// The file.
    pub file: String,
    /// Which side lacks a partner.
    pub problem: Unpaired,
}

/// Everything a `check` or `grade` run found, ready to render.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GradeReport {
    /// `check` or `grade`.
    pub command: &'static str,
    /// The graded columns.
    pub columns: Vec<Column>,
    /// Whether golden values are shown (`check` always; `grade` with `--reveal`).
    pub revealed: bool,
    /// One entry per compared pair, in pairing order.
    pub files: Vec<FileGrade>,
    /// Files without a partner.
    pub unpaired: Vec<UnpairedFile>,
}

/// The counts of a report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Golden cases: the ones scored.
    pub cases: usize,
    /// Golden cases whose graded columns all match.
    pub matched: usize,
    /// Golden cases with a differing graded column.
    pub mismatched: usize,
    /// Golden cases the graded matrix lacks (counted wrong).
    pub missing: usize,
    /// Graded rows the golden file lacks (reported, not scored).
    pub unknown: usize,
    /// Files without a partner.
    pub unpaired: usize,
}

impl Summary {
    /// The score: matched cases out of golden cases, in percent; `None` with no golden case.
    pub fn score_percent(&self) -> Option<f64> {
        (self.cases > 0).then(|| self.matched as f64 * 100.0 / self.cases as f64)
    }

    /// The score as text with one decimal (`87.5%`), or `-` with no golden case.
    pub fn score_text(&self) -> String {
        self.score_percent()
            .map_or_else(|| "-".to_owned(), |score| format!("{score:.1}%"))
    }

    /// Whether everything matches: no wrong, missing or unknown case, no unpaired file.
    pub fn is_clean(&self) -> bool {
        self.mismatched == 0 && self.missing == 0 && self.unknown == 0 && self.unpaired == 0
    }

    fn add_file(&mut self, file: &FileGrade) {
        // Counted as the list was made: a summary never reads the cases back.
        self.cases += file.cases.len();
        self.matched += file.cases.matched();
        self.mismatched += file.cases.mismatched();
        self.missing += file.cases.missing();
        self.cases += file.matched_unlisted;
        self.matched += file.matched_unlisted;
        self.unknown += file.unknown.len();
    }
}

impl FileGrade {
    /// The same grade with its matched cases counted instead of listed, as
    /// [`judge_and_compare`](super::engine_check::judge_and_compare) makes it for a report that
    /// does not list them.
    pub fn matched_counted_only(mut self) -> std::io::Result<FileGrade> {
        let before = self.cases.len();
        let kept = self
            .cases
            .iter()
            .filter(
                |case| !matches!(case, Ok(case) if matches!(case.outcome, CaseOutcome::Matched)),
            )
            .collect::<std::io::Result<_>>()?;
        self.cases = kept;
        self.matched_unlisted += before - self.cases.len();
        Ok(self)
    }

    /// The counts of this file alone.
    pub fn summary(&self) -> Summary {
        let mut summary = Summary::default();
        summary.add_file(self);
        summary
    }
}

impl GradeReport {
    /// The counts over every file.
    pub fn summary(&self) -> Summary {
        let mut summary = Summary {
            unpaired: self.unpaired.len(),
            ..Summary::default()
        };
        for file in &self.files {
            summary.add_file(file);
        }
        summary
    }
}

/// Where a missing case is pointed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MissingAt {
    /// The golden file's row (authors can open it).
    GoldenRow,
    /// The graded file, without a line (the golden file is hidden).
    GradedFile,
}

/// Grades `actual` against `golden` on `columns`. Golden values are kept only when `reveal`.
pub fn compare(
    golden: &MatrixFile,
    actual: &MatrixFile,
    columns: &[Column],
    reveal: bool,
    missing_at: MissingAt,
) -> FileGrade {
    let cases = golden
        .rows()
        .map(|expected| match actual.find(expected.case_id) {
            None => CaseGrade {
                case_id: expected.case_id.to_owned(),
                at: match missing_at {
                    MissingAt::GoldenRow => Spot {
                        file: golden.name.clone(),
                        line: Some(expected.line),
                    },
                    MissingAt::GradedFile => Spot {
                        file: actual.name.clone(),
                        line: None,
                    },
                },
                outcome: CaseOutcome::Missing,
            },
            Some(found) => {
                let mismatches =
                    mismatches(&expected, &|column| found.cell(column), columns, reveal);
                CaseGrade {
                    case_id: expected.case_id.to_owned(),
                    at: Spot {
                        file: actual.name.clone(),
                        line: Some(found.line),
                    },
                    outcome: if mismatches.is_empty() {
                        CaseOutcome::Matched
                    } else {
                        CaseOutcome::Mismatched(mismatches)
                    },
                }
            }
        })
        .collect();
    let unknown = actual
        .rows()
        .filter(|row| golden.find(row.case_id).is_none())
        .map(|row| UnknownCase {
            case_id: row.case_id.to_owned(),
            at: Spot {
                file: actual.name.clone(),
                line: Some(row.line),
            },
        })
        .collect();
    FileGrade {
        file: actual.name.clone(),
        golden: golden.name.clone(),
        cases,
        matched_unlisted: 0,
        unknown,
    }
}

/// The graded `columns` in which `found` (a cell by column) differs from `expected`.
pub fn mismatches<'a>(
    expected: &MatrixEntry,
    found: &dyn Fn(Column) -> Option<&'a str>,
    columns: &[Column],
    reveal: bool,
) -> Vec<Mismatch> {
    columns
        .iter()
        .filter_map(|&column| {
            let want = expected.cell(column).unwrap_or_default();
            let got = found(column).unwrap_or_default();
            (!column.same_value(want, got)).then(|| Mismatch {
                column,
                expected: reveal.then(|| want.trim().to_owned()),
                actual: got.trim().to_owned(),
            })
        })
        .collect()
}
