//! The check of a learner's matrix before it is graded, without the key: `leasejudge
//! precheck` for learners (the lab's case ids from its case files), and the first thing both
//! autograders run (the case ids from the key, whose values it never looks at). It says how
//! the file is read (its format, delimiter, encoding or sheet) and lists, located, what would
//! cost points or stop the grading: a file that cannot be read or lacks a graded column, a
//! case id twice, a case of the lab missing, a row whose case the lab does not have, and a
//! graded cell that is no valid code (with the nearest one) or empty where every case has a
//! value. Everything it says depends on the learner's file and the lab's case ids alone, so it
//! gives nothing of an answer away: learners can run it themselves.

use std::collections::BinaryHeap;

use std::io::Seek;

use super::columns::typo_note;
use super::columns::Column;
use super::matrix_reader::{
    listed_problems, with_duplicates, MatrixFileFormat, MatrixInput, MatrixRead, ReadAs,
    SplitMatrix, MAX_LISTED_PROBLEMS,
};
use super::partitions::Splitter;
use crate::input::{ErrorKind, InputError, InputErrors, ReadOptions, Source};
use crate::streaming::{judge, Sink, StreamError, StreamSettings};

/// What the check found: a value every format renders.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Precheck {
    /// The file, named as its learner sees it.
    pub name: String,
    /// How it was read (`None`: it could not be).
    pub read_as: Option<ReadAs>,
    /// How many rows it has.
    pub rows: u64,
    /// How many cases the lab has.
    pub cases: u64,
    /// Whether it can be graded: `false` when its problems stop the grading (it cannot be
    /// read, lacks a graded column, has a case id twice).
    pub gradable: bool,
    /// Every problem, located, in the file's order and then the lab's cases it lacks (the
    /// first [`MAX_LISTED_PROBLEMS`], then a count).
    pub problems: InputErrors,
}

impl Precheck {
    /// A file that could not be read at all, with its problems.
    pub fn unreadable(name: &str, cases: u64, problems: InputErrors) -> Precheck {
        Precheck {
            name: name.to_owned(),
            read_as: None,
            rows: 0,
            cases,
            gradable: false,
            problems,
        }
    }

    /// Whether it has no problem: every case once, every graded cell valid.
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
    }

    /// What was read: `matrix.csv: read as CSV, cells separated by ",": 4 rows, for the lab's
    /// 4 cases`.
    pub fn read_line(&self) -> String {
        match &self.read_as {
            Some(read_as) => format!(
                "{}: read as {read_as}: {} row{}, for the lab's {} case{}",
                self.name,
                self.rows,
                plural(self.rows),
                self.cases,
                plural(self.cases)
            ),
            None => format!("{}: could not be read", self.name),
        }
    }

    /// The verdict: ready to hand in, points at stake, or not gradable as it is.
    pub fn verdict_line(&self) -> String {
        let count = self.problems.total();
        if self.passed() {
            format!(
                "{}: ready: every case of the lab once, every graded cell a valid value",
                self.name
            )
        } else if self.gradable {
            format!(
                "{}: {} problem{} above: the file can be graded, but these cost points or are \
                 not graded; fix them and check again",
                self.name,
                count,
                plural(count)
            )
        } else {
            format!(
                "{}: cannot be graded as it is: fix the problem{} above and check again",
                self.name,
                plural(count)
            )
        }
    }

    /// Every line, as a learner reads them: how it was read, the problems, the verdict.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![self.read_line()];
        lines.extend(self.problems.shown().iter().map(InputError::to_string));
        lines.push(self.verdict_line());
        lines
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The problems found, kept in the file's order: the first [`MAX_LISTED_PROBLEMS`] by where
/// they are, the others counted.
struct Found {
    kept: BinaryHeap<(u64, u64, Keyed)>,
    unlisted: u64,
}

/// A problem, ordered only by where it is.
#[derive(Debug, PartialEq, Eq)]
struct Keyed(InputError);

impl PartialOrd for Keyed {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Keyed {
    fn cmp(&self, _: &Self) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

impl Found {
    /// Adds the problem at `(line, order)`; past the cap, the last by place is counted.
    fn add(&mut self, line: u64, order: u64, error: InputError) {
        self.kept.push((line, order, Keyed(error)));
        if self.kept.len() > MAX_LISTED_PROBLEMS {
            self.kept.pop();
            self.unlisted += 1;
        }
    }

    fn into_problems(self) -> InputErrors {
        let problems = self
            .kept
            .into_sorted_vec()
            .into_iter()
            .map(|(_, _, Keyed(error))| error)
            .collect();
        listed_problems(problems, self.unlisted)
    }
}

/// The lab's cases: the engine's matrix of the case files `sources`, split by `splitter`,
/// only its case ids kept (a learner's check never sees a verdict). Bad case files give their
/// located errors.
pub fn lab_cases(sources: &[Source], splitter: &Splitter) -> Result<SplitMatrix, StreamError> {
    let settings = StreamSettings::default();
    let records = judge(
        sources,
        &settings,
        Sink::Matrix(&crate::matrix::CsvMatrix),
        &mut |_, _, _| {},
    )?;
    let mut spill = crate::store::TempWriter(crate::store::scratch_file()?);
    records.write_to(&mut spill)?;
    let mut file = spill.0;
    file.rewind()?;
    let options = ReadOptions::default();
    let (lab, errors) = MatrixRead::submission(&[], &options)
        .read_split(
            MatrixInput::Open(file, MatrixFileFormat::Csv),
            "the lab's cases",
            splitter,
        )
        .map_err(StreamError::Input)?;
    if errors.is_empty() {
        Ok(lab)
    } else {
        Err(StreamError::Input(errors))
    }
}

/// Checks `submission` (named `name`, read with `errors`) against the lab's case ids, the
/// rows of `lab` (its cells are never looked at), both split by one splitter, on the graded
/// `columns`. Fails only when a temporary file cannot be read.
pub fn precheck(
    name: &str,
    lab: &SplitMatrix,
    submission: &SplitMatrix,
    errors: &InputErrors,
    columns: &[Column],
) -> std::io::Result<Precheck> {
    // A row is located in its sheet, as the reader locates its problems: `bob.xlsx[Answers]:3`.
    let at = match &submission.read_as {
        Some(super::matrix_reader::ReadAs::Sheet(sheet)) => format!("{name}[{sheet}]"),
        _ => name.to_owned(),
    };
    let mut check = Precheck {
        name: name.to_owned(),
        read_as: submission.read_as.clone(),
        // Every row the file has, those with problems included: a learner counts them all.
        rows: submission.records(),
        cases: lab.len(),
        gradable: true,
        problems: InputErrors::new(),
    };
    // What stops the grading, listed as grading lists it.
    let duplicates = submission.duplicates()?;
    if !errors.is_empty() || !duplicates.is_empty() {
        check.gradable = false;
        check.problems = with_duplicates(errors.clone(), duplicates);
        return Ok(check);
    }
    if submission.lacks_columns(columns) {
        check.gradable = false;
        check.problems = submission.missing_columns(columns);
        return Ok(check);
    }
    assert_eq!(lab.parts(), submission.parts(), "split by one splitter");
    let mut found = Found {
        kept: BinaryHeap::new(),
        unlisted: 0,
    };
    for part in 0..lab.parts() {
        let expected = lab.load(part)?;
        let given = submission.load(part)?;
        for (row, &index) in given.matrix.rows().zip(&given.indexes) {
            if expected.matrix.position(row.case_id).is_none() {
                found.add(
                    row.line,
                    index * 64,
                    InputError::new(
                        ErrorKind::Rule,
                        &at,
                        row.line,
                        format!(
                            "{} is not a case of the lab: the row is not graded (is its case id \
                             mistyped?)",
                            row.case_id
                        ),
                    )
                    .column("case_id"),
                );
            }
            for (order, &column) in columns.iter().enumerate() {
                let cell = row.cell(column).unwrap_or_default();
                let problem = if cell.trim().is_empty() && column.always_filled() {
                    Some(format!("empty: every case has a {column}"))
                } else {
                    typo_note(column, cell)
                };
                if let Some(problem) = problem {
                    found.add(
                        row.line,
                        index * 64 + 1 + order as u64,
                        InputError::new(ErrorKind::Value, &at, row.line, problem)
                            .column(column.name()),
                    );
                }
            }
        }
        for (row, &index) in expected.matrix.rows().zip(&expected.indexes) {
            if given.matrix.position(row.case_id).is_none() {
                // After every located problem, in the lab's order.
                found.add(
                    u64::MAX,
                    index,
                    InputError::new(
                        ErrorKind::Rule,
                        name,
                        0,
                        format!(
                            "the lab's case {} is not in the file: every case is graded, and \
                             one left out counts as wrong",
                            row.case_id
                        ),
                    )
                    .column("case_id"),
                );
            }
        }
    }
    check.problems = found.into_problems();
    Ok(check)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grading::matrix_reader::{MatrixFileFormat, MatrixInput, MatrixRead};
    use crate::grading::partitions::Splitter;
    use crate::input::ReadOptions;

    const LAB: &str = "case_id\nprobe-1\nprobe-2\nprobe-3\n";

    fn check(text: &str, parts: usize) -> Precheck {
        let columns = [Column::Decision, Column::Reason];
        let splitter = Splitter::with_parts(parts);
        let options = ReadOptions::default();
        let (lab, _) = MatrixRead::submission(&[], &options)
            .read_split(
                MatrixInput::Bytes(LAB.as_bytes(), MatrixFileFormat::Csv),
                "lab",
                &splitter,
            )
            .unwrap();
        let (submission, errors) = MatrixRead::submission(&columns, &options)
            .read_split(
                MatrixInput::Bytes(text.as_bytes(), MatrixFileFormat::Csv),
                "m.csv",
                &splitter,
            )
            .unwrap();
        precheck("m.csv", &lab, &submission, &errors, &columns).unwrap()
    }

    #[test]
    fn a_right_shaped_file_passes() {
        for parts in [1, 4] {
            let text = "Case ID;Decision;Reason\nprobe-2;ACTIVE;within_lease\n\
                        probe-1;expired;ack_missing\nprobe-3;CANCELLED;result_accepted\n";
            let check = check(text, parts);
            assert!(check.passed() && check.gradable, "{check:?}");
            assert_eq!(
                check.lines(),
                [
                    "m.csv: read as CSV, cells separated by \";\": 3 rows, for the lab's 3 cases",
                    "m.csv: ready: every case of the lab once, every graded cell a valid value"
                ]
            );
        }
    }

    #[test]
    fn every_problem_is_located_in_the_files_order_then_the_missing_cases() {
        for parts in [1, 4] {
            let text = "case_id,decision,reason\nprobe-2,EXPIRD,\nprobe-9,ACTIVE,within_lease\n\
                        probe-1,ACTIVE,within-lease\n";
            let check = check(text, parts);
            assert!(check.gradable && !check.passed());
            let lines: Vec<String> = check.problems.iter().map(|p| p.to_string()).collect();
            assert_eq!(
                lines,
                [
                    "m.csv:2: decision: EXPIRD is not a decision code; did you mean EXPIRED?",
                    "m.csv:2: reason: empty: every case has a reason",
                    "m.csv:3: case_id: probe-9 is not a case of the lab: the row is not graded \
                     (is its case id mistyped?)",
                    "m.csv:4: reason: within-lease is not a reason code; did you mean \
                     within_lease?",
                    "m.csv: case_id: the lab's case probe-3 is not in the file: every case is \
                     graded, and one left out counts as wrong",
                ],
                "{parts}"
            );
            assert!(check.verdict_line().contains("5 problems above"));
        }
    }

    #[test]
    fn what_stops_the_grading_is_said_as_grading_says_it() {
        let lacking = check("case_id,decision\nprobe-1,ACTIVE\n", 1);
        assert!(!lacking.gradable);
        assert_eq!(
            lacking.problems.listed()[0].to_string(),
            "m.csv:1: header: no column for the graded column reason"
        );
        let again = check(
            "case_id,decision,reason\nprobe-1,ACTIVE,x\nprobe-1,ACTIVE,x\n",
            2,
        );
        assert!(!again.gradable);
        assert!(again.problems.listed()[0]
            .to_string()
            .contains("duplicated case id: it is already on line 2"));
        assert!(again.verdict_line().contains("cannot be graded as it is"));
    }
}
