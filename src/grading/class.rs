//! Grading a class (issue 14): many submissions against one golden file, each graded on its
//! own, with scores (all-or-nothing per case, or partial credit by column weights), notes on
//! cells that are not a valid code, warnings for unknown rows, and the feedback level that
//! decides what a learner may see. Golden values are dropped here unless revealed, so no
//! renderer can show them.

use std::collections::HashMap;

use super::case_grade::shown;
pub use super::columns::typo_note;
use super::columns::{codes, column_from_header, Column};
use super::learner_shortcuts::{CaseShortcuts, Explained, Tally, WrongAnswers};
pub use super::marks::{CaseMark, CaseStatus, ColumnMiss, UnknownRow};
use super::marks::{Marks, MarksWriter, UnknownRows};
use super::matrix_reader::{with_duplicates, Duplicates, MatrixEntry, SplitMatrix};
use super::spool::SpoolWriter;
use crate::input::InputErrors;

pub use super::feedback::Feedback;

/// What a learner is told when the golden file cannot be used; the details go to the
/// instructor only (`--reveal`).
pub const KEY_MALFORMED: &str = "the key is malformed; contact your instructor";

/// What learners are told when the golden file cannot be read at all (missing, no permission).
pub const KEY_UNREADABLE: &str = "the key cannot be read; contact your instructor";

/// Parses `--weights decision=2,reason=1` into (column, weight) pairs.
pub fn parse_weights(text: &str) -> Result<Vec<(Column, u32)>, String> {
    let mut weights: Vec<(Column, u32)> = Vec::new();
    for item in text.split(',').filter(|item| !item.trim().is_empty()) {
        let Some((name, weight)) = item.split_once('=') else {
            return Err(format!("{item:?}: write COLUMN=WEIGHT, e.g. decision=2"));
        };
        let column = column_from_header(name)
            .filter(|c| *c != Column::CaseId)
            .ok_or_else(|| format!("{:?}: not a matrix column", name.trim()))?;
        let weight: u32 = weight
            .trim()
            .parse()
            .ok()
            .filter(|w| *w <= 1000)
            .ok_or_else(|| {
                format!(
                    "{:?}: a weight is a whole number from 0 to 1000",
                    weight.trim()
                )
            })?;
        if weights.iter().any(|(c, _)| *c == column) {
            return Err(format!("{column}: weighted twice"));
        }
        weights.push((column, weight));
    }
    if weights.is_empty() {
        return Err("no weights given".into());
    }
    Ok(weights)
}

/// How cases are scored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scoring {
    /// The graded columns, in matrix order.
    pub columns: Vec<Column>,
    /// Each graded column's weight (parallel to `columns`); `None` scores one point per case
    /// whose graded columns are all right.
    pub weights: Option<Vec<u32>>,
}

impl Scoring {
    /// Scoring of `columns`, by `weights` if given: every weighted column must be graded;
    /// a graded column without a weight weighs 1.
    pub fn new(columns: Vec<Column>, weights: Option<&[(Column, u32)]>) -> Result<Scoring, String> {
        let Some(weights) = weights else {
            return Ok(Scoring {
                columns,
                weights: None,
            });
        };
        if let Some((column, _)) = weights.iter().find(|(c, _)| !columns.contains(c)) {
            return Err(format!(
                "--weights: {column} is not graded (add it to --columns)"
            ));
        }
        let per_column: Vec<u32> = columns
            .iter()
            .map(|c| {
                weights
                    .iter()
                    .find(|(w, _)| w == c)
                    .map_or(1, |(_, weight)| *weight)
            })
            .collect();
        if per_column.iter().all(|w| *w == 0) {
            return Err("--weights: every weight is 0".into());
        }
        Ok(Scoring {
            columns,
            weights: Some(per_column),
        })
    }

    /// The most one case can score.
    pub fn case_max(&self) -> u64 {
        self.weights
            .as_ref()
            .map_or(1, |w| w.iter().map(|&w| u64::from(w)).sum())
    }

    /// The weight of the graded column at `index` (1 without weights).
    pub fn weight(&self, index: usize) -> u32 {
        self.weights.as_ref().map_or(1, |w| w[index])
    }

    /// The points of a case whose graded columns are right where `correct` says.
    fn points(&self, correct: u32) -> u64 {
        let all = (0..self.columns.len()).all(|i| correct & (1 << i) != 0);
        match &self.weights {
            None => u64::from(all),
            Some(weights) => weights
                .iter()
                .enumerate()
                .filter(|(i, _)| correct & (1 << i) != 0)
                .map(|(_, &w)| u64::from(w))
                .sum(),
        }
    }
}

// A case's right columns are a bit set in a `u32`.
const _: () = assert!(Column::COUNT <= 32);

/// A submission that was graded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graded {
    /// Every golden case, in golden-file order (spilled to a temporary file when large).
    pub cases: Marks,
    /// Rows the golden file lacks, in submission order (spilled to a temporary file when
    /// many).
    pub unknown: UnknownRows,
    /// The points scored.
    pub score: u64,
    /// Its counts, made as its cases were marked (so that they need no reading back).
    counts: Counts,
    /// Per graded column, how many cases have it right.
    column_correct: Vec<usize>,
    /// The workbook's sheet the matrix was read from, if it was: its rows are located as
    /// `FILE[SHEET]:LINE`, as its reader locates its problems.
    pub sheet: Option<String>,
    /// The shortcuts its wrong answers follow ([`Tally::named`]); `None` when they cannot
    /// be named (no case files were given).
    pub shortcuts: Option<Vec<Explained>>,
}

/// The counts of one graded submission.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Cases with every graded column right.
    pub matched: usize,
    /// Cases with a wrong graded column.
    pub mismatched: usize,
    /// Cases the submission lacks.
    pub missing: usize,
    /// Rows the golden file lacks.
    pub unknown: usize,
}

impl Graded {
    /// Its counts.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// How many cases have graded column `index` right.
    pub fn column_correct(&self, index: usize) -> usize {
        self.column_correct[index]
    }
}

/// What became of a submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubmissionOutcome {
    /// It was graded.
    Graded(Graded),
    /// It could not be read or lacks a graded column: its own problems, located.
    Ungradable(InputErrors),
    /// It was not graded because the golden file is malformed (details for the instructor).
    KeyMalformed,
}

/// A previous score from `--baseline`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Previous {
    /// The score in the old gradebook (`None`: it was ungradable there).
    pub score: Option<f64>,
}

/// One submission's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Submission {
    /// The file as named (a directory's files as `DIR/NAME`).
    pub name: String,
    /// What became of it.
    pub outcome: SubmissionOutcome,
    /// Its line in the `--baseline` gradebook, if one was given and has it.
    pub previous: Option<Previous>,
}

impl Submission {
    /// The name its rows are located by: `bob.xlsx[Answers]` for a workbook's sheet (as its
    /// reader locates its problems), else its name.
    pub fn located(&self) -> String {
        match &self.outcome {
            SubmissionOutcome::Graded(Graded {
                sheet: Some(sheet), ..
            }) => format!("{}[{sheet}]", self.name),
            _ => self.name.clone(),
        }
    }

    /// The score, if graded.
    pub fn score(&self) -> Option<u64> {
        match &self.outcome {
            SubmissionOutcome::Graded(graded) => Some(graded.score),
            _ => None,
        }
    }

    /// The change from the baseline score: `None` unless both are known.
    pub fn change(&self) -> Option<f64> {
        Some(self.score()? as f64 - self.previous?.score?)
    }

    /// `graded` or `ungradable`.
    pub fn status(&self) -> &'static str {
        match self.outcome {
            SubmissionOutcome::Graded(_) => "graded",
            SubmissionOutcome::Ungradable(_) | SubmissionOutcome::KeyMalformed => "ungradable",
        }
    }
}

/// Where the hint for a golden case points (`--feedback hint`): from the same replay as
/// `explain`, never the expected value. A file and line numbers, nothing more: every format
/// renders a hint from these two alone ([`Hint::describe`], [`Hint::json`]), so a hint cannot
/// carry a section, a rule's name or a word of the answer (issue 22).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    /// The case file.
    pub file: String,
    /// The lines that decide the correct verdict, ascending.
    pub lines: Vec<u64>,
}

impl Hint {
    /// `look again at lines 21 and 22 in cases.csv`.
    pub fn describe(&self) -> String {
        let numbers: Vec<String> = self.lines.iter().map(u64::to_string).collect();
        let lines = match numbers.split_last() {
            None => String::new(),
            Some((last, [])) => format!("line {last} in "),
            Some((last, rest)) => format!("lines {} and {last} in ", rest.join(", ")),
        };
        format!(
            "look again at {lines}{}",
            crate::output::escape_controls(&self.file)
        )
    }

    /// The JSON report's `hint`: `{"file": "cases.csv", "lines": [21, 22]}`.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({"file": self.file, "lines": self.lines})
    }
}

/// Everything a `grade` run found, ready to render.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassReport {
    /// How cases are scored.
    pub scoring: Scoring,
    /// What learners are shown.
    pub feedback: Feedback,
    /// The golden file's name: `None` unless revealed.
    pub golden: Option<String>,
    /// How many cases the golden file has (0 when it is unusable).
    pub cases: usize,
    /// Per golden case, the hint (with `--feedback hint`).
    pub hints: Vec<Option<Hint>>,
    /// Set when the golden file is malformed; it lists the problems only when revealed.
    pub key_problems: Option<InputErrors>,
    /// Whether the golden file could not be read at all (so it is not "malformed").
    pub key_unreadable: bool,
    /// Every submission, in command-line order (directories in name order).
    pub submissions: Vec<Submission>,
    /// Whether a `--baseline` gradebook was given.
    pub baseline: bool,
    /// The maximum scores the baseline's scores were out of (its `max_score` column; empty
    /// when it has none): [`ClassReport::baseline_out_of_another`] says when they differ
    /// from this run's.
    pub baseline_max_scores: Vec<f64>,
    /// The check of an autograder's one submission, run before it is graded (the platform
    /// formats show it at once, whatever else they hide).
    pub precheck: Option<super::precheck::Precheck>,
    /// The assignment's points (`--points`): the platforms' scores are scaled to them;
    /// `None`, the raw points ([`ClassReport::max_score`]).
    pub points: Option<f64>,
}

/// Parses `--points`: a number of points greater than 0 (a whole number or not).
pub fn parse_points(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(points) if points.is_finite() && points > 0.0 && points <= 1e9 => Ok(points),
        _ => Err(format!(
            "{text:?} is not a number of points: a number greater than 0, like 10 or 2.5"
        )),
    }
}

/// The counts over a class.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClassSummary {
    /// Submissions.
    pub submissions: usize,
    /// Submissions graded.
    pub graded: usize,
    /// Submissions that could not be graded.
    pub ungradable: usize,
    /// Graded submissions with full marks.
    pub full_marks: usize,
    /// The mean percentage over graded submissions.
    pub mean_percent: Option<f64>,
    /// Graded submissions with an unknown row (a warning).
    pub with_warnings: usize,
}

impl ClassReport {
    /// What learners are told about an unusable golden file: [`KEY_UNREADABLE`] or
    /// [`KEY_MALFORMED`].
    pub fn key_message(&self) -> &'static str {
        if self.key_unreadable {
            KEY_UNREADABLE
        } else {
            KEY_MALFORMED
        }
    }

    /// The most a submission can score.
    pub fn max_score(&self) -> u64 {
        self.cases as u64 * self.scoring.case_max()
    }

    /// Raw points as the assignment's (`--points`): scaled, rounded to 4 decimals; as they
    /// are without `--points`. A JSON number either way.
    pub fn points_value(&self, raw: u64) -> serde_json::Value {
        match self.points {
            None => raw.into(),
            Some(points) => {
                let max = self.max_score();
                let scaled = if max == 0 {
                    0.0
                } else {
                    raw as f64 * points / max as f64
                };
                ((scaled * 1e4).round() / 1e4).into()
            }
        }
    }

    /// The most a submission can score, as text: `-` when the golden file is malformed.
    pub fn max_score_text(&self) -> String {
        if self.key_problems.is_some() {
            "-".to_owned()
        } else {
            self.max_score().to_string()
        }
    }

    /// The baseline's maximum scores when one differs from this run's
    /// ([`ClassReport::max_score`]: the key or the graded columns changed since), so that its
    /// scores, compared as they stand, are not read as like for like; `None` when they agree,
    /// are not known, or this run has no maximum (an unusable key).
    pub fn baseline_out_of_another(&self) -> Option<&[f64]> {
        let max = self.max_score() as f64;
        let differs = self.key_problems.is_none()
            && self
                .baseline_max_scores
                .iter()
                .any(|&earlier| earlier != max);
        differs.then_some(&self.baseline_max_scores[..])
    }

    /// A score as a percentage of [`ClassReport::max_score`]; `None` with nothing to score.
    pub fn percent(&self, score: u64) -> Option<f64> {
        let max = self.max_score();
        (max > 0).then(|| score as f64 * 100.0 / max as f64)
    }

    /// `75.0%`, or `-` with nothing to score.
    pub fn percent_text(&self, score: u64) -> String {
        self.percent(score)
            .map_or_else(|| "-".to_owned(), |p| format!("{p:.1}%"))
    }

    /// The class counts.
    pub fn summary(&self) -> ClassSummary {
        let mut summary = ClassSummary {
            submissions: self.submissions.len(),
            ..ClassSummary::default()
        };
        let mut total = 0.0;
        for submission in &self.submissions {
            match &submission.outcome {
                SubmissionOutcome::Graded(graded) => {
                    summary.graded += 1;
                    if graded.score == self.max_score() {
                        summary.full_marks += 1;
                    }
                    if !graded.unknown.is_empty() {
                        summary.with_warnings += 1;
                    }
                    total += self.percent(graded.score).unwrap_or(100.0);
                }
                _ => summary.ungradable += 1,
            }
        }
        if summary.graded > 0 {
            summary.mean_percent = Some(total / summary.graded as f64);
        }
        summary
    }

    /// The submissions whose score moved from the baseline, with the change.
    pub fn moved(&self) -> Vec<(&Submission, f64)> {
        self.submissions
            .iter()
            .filter_map(|s| s.change().filter(|c| *c != 0.0).map(|c| (s, c)))
            .collect()
    }

    /// The exit code: 0 every submission full marks; 1 any difference; 2 any trouble (an
    /// ungradable submission, a malformed golden file). Unknown rows do not count.
    pub fn exit_code(&self) -> u8 {
        let summary = self.summary();
        if self.key_problems.is_some() || summary.ungradable > 0 {
            2
        } else if summary.full_marks < summary.graded {
            1
        } else {
            0
        }
    }

    /// What is wrong with a case, one line per problem, at this report's feedback level
    /// (nothing at `none`); `submission` names the file for a missing case.
    pub fn problems(&self, case: &CaseMark, submission: &str) -> Vec<String> {
        if !self.feedback.shows_cases() {
            return Vec::new();
        }
        let mut lines: Vec<String> = match case.status {
            CaseStatus::Matched => return Vec::new(),
            CaseStatus::Mismatched => case.misses.iter().map(ColumnMiss::describe).collect(),
            CaseStatus::Missing => vec![format!(
                "missing: the key has this case, {} does not (counted wrong)",
                crate::output::escape_controls(submission)
            )],
        };
        if let Some(Some(hint)) = self.hints.get(case.case as usize) {
            lines.push(hint.describe());
        }
        lines
    }
}

impl ColumnMiss {
    /// `decision: EXPIRD is wrong — EXPIRD is not a decision code; did you mean EXPIRED?`,
    /// or with the golden value when revealed: `decision: expected ACTIVE, got EXPIRED`.
    pub fn describe(&self) -> String {
        let mut text = match &self.expected {
            Some(expected) => format!(
                "{}: expected {}, got {}",
                self.column,
                shown(expected),
                shown(&self.actual)
            ),
            None => format!("{}: {} is wrong", self.column, shown(&self.actual)),
        };
        if let Some(note) = &self.note {
            text.push_str(" — ");
            text.push_str(note);
        }
        text
    }
}

/// Grades one submission against `golden` (`None`: the golden file is malformed), both read
/// split by one splitter, a partition at a time; golden values are kept only when `reveal`.
/// `errors` are the ones the submission's reader found; with its duplicated case ids (found
/// here), they make it ungradable, as do graded columns it lacks, whatever the golden file.
/// Fails only when a temporary file cannot be written or read.
pub fn grade_submission(
    golden: Option<&SplitMatrix>,
    submission: SplitMatrix,
    errors: InputErrors,
    scoring: &Scoring,
    reveal: bool,
) -> std::io::Result<SubmissionOutcome> {
    grade_submission_naming(golden, submission, errors, scoring, reveal, None)
}

/// [`grade_submission`], naming the shortcuts its wrong answers follow when the lab's cases
/// were judged under them (`shortcuts`).
pub fn grade_submission_naming(
    golden: Option<&SplitMatrix>,
    submission: SplitMatrix,
    errors: InputErrors,
    scoring: &Scoring,
    reveal: bool,
    shortcuts: Option<&CaseShortcuts>,
) -> std::io::Result<SubmissionOutcome> {
    let sheet = match &submission.read_as {
        Some(crate::grading::matrix_reader::ReadAs::Sheet(sheet)) => Some(sheet.clone()),
        _ => None,
    };
    let lacks = submission.lacks_columns(&scoring.columns);
    let Some(golden) = golden.filter(|_| errors.is_empty() && !lacks) else {
        let errors = with_duplicates(errors, submission.duplicates()?);
        return Ok(if !errors.is_empty() {
            SubmissionOutcome::Ungradable(errors)
        } else if lacks {
            SubmissionOutcome::Ungradable(submission.into_missing_columns(&scoring.columns))
        } else {
            SubmissionOutcome::KeyMalformed
        });
    };
    assert_eq!(golden.parts(), submission.parts(), "split by one splitter");
    let mut score = 0;
    let mut counts = Counts::default();
    let mut column_correct = vec![0; scoring.columns.len()];
    let mut marks = MarksWriter::new();
    let mut runs = vec![marks.point()];
    let mut unknown = SpoolWriter::new();
    let mut unknown_runs = vec![unknown.point()];
    let mut duplicates = Duplicates::default();
    let mut tally = shortcuts.map(|table| Tally::new(table, &scoring.columns));
    for part in 0..golden.parts() {
        let expected = golden.load(part)?;
        let found = submission.load(part)?;
        duplicates.add(&found);
        for (row, &index) in expected.matrix.rows().zip(&expected.indexes) {
            let index = u32::try_from(index).expect("fewer than 4G golden cases");
            let answer = found.matrix.find(row.case_id);
            let mut mark = grade_case(index, row, answer, scoring, reveal);
            if let (Some(tally), Some(answer)) = (&mut tally, &answer) {
                let right = mark.status == CaseStatus::Matched;
                mark.shortcuts = tally.answered(index, answer, right);
            }
            score += mark.points;
            *match mark.status {
                CaseStatus::Matched => &mut counts.matched,
                CaseStatus::Mismatched => &mut counts.mismatched,
                CaseStatus::Missing => &mut counts.missing,
            } += 1;
            for (column, correct) in column_correct.iter_mut().enumerate() {
                *correct += usize::from(mark.is_correct(column));
            }
            marks.push(&mark)?;
        }
        runs.push(marks.point());
        for (row, &index) in found.matrix.rows().zip(&found.indexes) {
            if expected.matrix.position(row.case_id).is_none() {
                unknown.push(&UnknownRow {
                    case_id: row.case_id.to_owned(),
                    line: row.line,
                    index,
                })?;
            }
        }
        unknown_runs.push(unknown.point());
    }
    if !duplicates.is_empty() {
        return Ok(SubmissionOutcome::Ungradable(with_duplicates(
            InputErrors::new(),
            duplicates,
        )));
    }
    // Unknown rows by their place among the submission's rows (a JSON line may hold several).
    let unknown = unknown
        .finish()?
        .merge_runs(&unknown_runs, |row| row.index)?;
    counts.unknown = unknown.len();
    Ok(SubmissionOutcome::Graded(Graded {
        cases: marks
            .finish()?
            .merge_runs(&runs, |mark| u64::from(mark.case))?,
        unknown,
        score,
        counts,
        column_correct,
        sheet,
        shortcuts: tally.as_ref().map(Tally::named),
    }))
}

/// The mark of golden case `index` (its row `expected`), given the submission's row for it.
fn grade_case(
    index: u32,
    expected: MatrixEntry<'_>,
    found: Option<MatrixEntry<'_>>,
    scoring: &Scoring,
    reveal: bool,
) -> CaseMark {
    let Some(found) = found else {
        return CaseMark {
            case: index,
            case_id: expected.case_id.into(),
            line: None,
            status: CaseStatus::Missing,
            correct: 0,
            points: 0,
            misses: Vec::new(),
            shortcuts: 0,
        };
    };
    let mut correct = 0u32;
    let mut misses = Vec::new();
    for (i, &column) in scoring.columns.iter().enumerate() {
        let want = expected.cell(column).unwrap_or_default();
        let got = found.cell(column).unwrap_or_default();
        if column.same_value(want, got) {
            correct |= 1 << i;
        } else {
            misses.push(ColumnMiss {
                column,
                actual: got.trim().into(),
                expected: reveal.then(|| want.trim().into()),
                note: typo_note(column, got),
            });
        }
    }
    CaseMark {
        case: index,
        case_id: expected.case_id.into(),
        line: Some(found.line),
        status: if misses.is_empty() {
            CaseStatus::Matched
        } else {
            CaseStatus::Mismatched
        },
        correct,
        points: scoring.points(correct),
        misses,
        shortcuts: 0,
    }
}

/// Per golden case and graded column: how many graded submissions got it right, and the
/// most common wrong answer with its count (ties go to the answer first in text order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemStats {
    /// The case id.
    pub case_id: String,
    /// Per graded column: right count, and the most common wrong answer with its count.
    pub columns: Vec<(usize, Option<(String, usize)>)>,
    /// The shortcuts that give the case's most common wrong answer (its graded cells together;
    /// bits by place in [`Shortcut::ALL`](crate::lease::Shortcut::ALL), 0 for none); `None`
    /// when the shortcuts were not named (no case files).
    pub shortcuts: Option<u64>,
}

/// Item analysis over the graded submissions: `each` is called with one entry per golden
/// case (`golden_ids`, in golden-file order). A missing case counts as wrong in every column,
/// with no answer. Every graded submission has a mark per golden case in golden order, so
/// their marks are walked side by side and one case's tally is held at a time.
pub fn item_analysis<E: From<std::io::Error>>(
    report: &ClassReport,
    golden_ids: impl Iterator<Item = std::io::Result<String>>,
    each: &mut dyn FnMut(ItemStats) -> Result<(), E>,
) -> Result<(), E> {
    let ncols = report.scoring.columns.len();
    let mut marks: Vec<_> = report
        .submissions
        .iter()
        .filter_map(|submission| match &submission.outcome {
            SubmissionOutcome::Graded(graded) => Some(graded.cases.iter()),
            _ => None,
        })
        .collect();
    let named = report.submissions.iter().any(|submission| {
        matches!(&submission.outcome,
            SubmissionOutcome::Graded(graded) if graded.shortcuts.is_some())
    });
    for case_id in golden_ids {
        let case_id = case_id?;
        let mut right = vec![0usize; ncols];
        let mut wrong: Vec<HashMap<String, usize>> = vec![HashMap::new(); ncols];
        let mut answers = WrongAnswers::default();
        for case in marks.iter_mut().filter_map(Iterator::next) {
            let case = case?;
            answers.add(&case, &report.scoring.columns);
            debug_assert_eq!(*case.case_id, case_id);
            for (i, column) in report.scoring.columns.iter().enumerate() {
                if case.is_correct(i) {
                    right[i] += 1;
                } else if let Some(miss) = case.misses.iter().find(|m| m.column == *column) {
                    // A valid code in any case counts as one answer, written canonically.
                    let answer = codes(*column)
                        .and_then(|codes| {
                            codes
                                .into_iter()
                                .find(|c| c.eq_ignore_ascii_case(&miss.actual))
                        })
                        .map_or_else(|| miss.actual.to_string(), str::to_owned);
                    *wrong[i].entry(answer).or_default() += 1;
                }
            }
        }
        each(ItemStats {
            case_id,
            shortcuts: named.then(|| answers.most_common_shortcuts()),
            columns: right
                .into_iter()
                .zip(&wrong)
                .map(|(right, wrong)| {
                    let top = wrong
                        .iter()
                        .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
                        .map(|(answer, count)| (answer.clone(), *count));
                    (right, top)
                })
                .collect(),
        })?;
    }
    Ok(())
}

/// Grades the CSV text `submission` against the CSV text `golden`, both split `parts` ways,
/// as `grade` grades files (for tests).
#[cfg(test)]
pub(crate) fn grade_csv(
    golden: &str,
    submission: &str,
    scoring: &Scoring,
    parts: usize,
) -> SubmissionOutcome {
    use crate::grading::partitions::Splitter;
    use crate::grading::{MatrixFileFormat, MatrixInput, MatrixRead};
    let splitter = Splitter::with_parts(parts);
    let options = Default::default();
    let how = MatrixRead::submission(&scoring.columns, &options);
    let read = |text: &str, name: &str| {
        how.read_split(
            MatrixInput::Bytes(text.as_bytes(), MatrixFileFormat::Csv),
            name,
            &splitter,
        )
        .unwrap()
    };
    let (golden, errors) = read(golden, "golden.csv");
    assert!(errors.is_empty() && golden.duplicates().unwrap().is_empty());
    let (submission, errors) = read(submission, "m.csv");
    grade_submission(Some(&golden), submission, errors, scoring, false).unwrap()
}

/// [`grade_csv`] on decision and reason, one partition, for a submission known to be graded.
#[cfg(test)]
pub(crate) fn graded_csv(golden: &str, submission: &str) -> Graded {
    let scoring = Scoring::new(vec![Column::Decision, Column::Reason], None).unwrap();
    match grade_csv(golden, submission, &scoring, 1) {
        SubmissionOutcome::Graded(graded) => graded,
        other => panic!("not graded: {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grading::{MatrixFile, MatrixFileFormat, MatrixInput, MatrixRead};

    fn matrix(text: &str) -> MatrixFile {
        let every: Vec<Column> = Column::all().collect();
        keeping(text.as_bytes(), MatrixFileFormat::Csv, &every).unwrap()
    }

    /// A submission read from `bytes`, the cells of `keep` kept.
    fn keeping(
        bytes: &[u8],
        format: MatrixFileFormat,
        keep: &[Column],
    ) -> Result<MatrixFile, crate::input::InputErrors> {
        let name = if format == MatrixFileFormat::Json {
            "m.json"
        } else {
            "m.csv"
        };
        MatrixRead::submission(keep, &Default::default())
            .read(MatrixInput::Bytes(bytes, format), name)
    }

    #[test]
    fn only_the_graded_cells_are_kept() {
        let text = "case_id,job_id,decision,reason\nc1,job-1,ACTIVE,\nc2,job-2,EXPIRED,\n";
        let file = keeping(text.as_bytes(), MatrixFileFormat::Csv, &[Column::Decision]).unwrap();
        let job_id = column_from_header("job_id").unwrap();
        let c1 = file.find("c1").unwrap();
        assert_eq!(c1.cell(Column::Decision), Some("ACTIVE"));
        assert_eq!(c1.cell(Column::CaseId), Some("c1"));
        assert_eq!(c1.cell(job_id), None);
        assert_eq!(c1.cell(Column::Reason), None);
        // A JSON row without the graded key is still reported as lacking it.
        let json = "[{\"case_id\":\"c1\",\"decision\":\"ACTIVE\"},{\"case_id\":\"c2\"}]";
        let file = keeping(json.as_bytes(), MatrixFileFormat::Json, &[Column::Decision]).unwrap();
        let missing: Vec<String> = file
            .missing_columns(&[Column::Decision])
            .iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(missing, ["m.json:1: decision: the row has no such key"]);
        // Without a choice every cell is kept; trailing cells left off read as empty.
        let all = matrix(text);
        assert_eq!(all.find("c2").unwrap().cell(job_id), Some("job-2"));
        assert_eq!(all.find("c2").unwrap().cell(Column::Reason), Some(""));
    }

    #[test]
    fn typos_get_the_nearest_code() {
        assert_eq!(
            typo_note(Column::Decision, "EXPIRD").as_deref(),
            Some("EXPIRD is not a decision code; did you mean EXPIRED?")
        );
        assert_eq!(
            typo_note(Column::Reason, "within-lease").as_deref(),
            Some("within-lease is not a reason code; did you mean within_lease?")
        );
        assert_eq!(typo_note(Column::Decision, "expired"), None);
        assert_eq!(typo_note(Column::Decision, ""), None);
        let far = typo_note(Column::Decision, "no idea at all whatsoever").unwrap();
        assert!(far.contains("the codes are ACTIVE") || far.contains("the codes are"));
        assert!(far.starts_with("no idea at all whatsoever is not a decision code"));
    }

    #[test]
    fn weights_give_partial_credit() {
        let golden = "case_id,decision,reason\na,ACTIVE,within_lease\nb,EXPIRED,ack_missing\nc,ACTIVE,within_lease\n";
        let submission =
            "case_id,decision,reason\na,ACTIVE,late_progress\nb,EXPIRED,ack_missing\nz,ACTIVE,x\n";
        let grade = |scoring: &Scoring| match grade_csv(golden, submission, scoring, 1) {
            SubmissionOutcome::Graded(graded) => graded,
            other => panic!("not graded: {other:?}"),
        };
        let columns = vec![Column::Decision, Column::Reason];
        let all_or_nothing = Scoring::new(columns.clone(), None).unwrap();
        let graded = grade(&all_or_nothing);
        assert_eq!(graded.score, 1);
        assert_eq!(graded.unknown.len(), 1);
        let weighted = Scoring::new(
            columns.clone(),
            Some(&parse_weights("decision=2,reason=1").unwrap()),
        )
        .unwrap();
        assert_eq!(weighted.case_max(), 3);
        let graded = grade(&weighted);
        // a: decision right (2); b: both (3); c: missing (0).
        assert_eq!(graded.score, 5);
        assert_eq!(graded.column_correct(0), 2);
        assert_eq!(graded.column_correct(1), 1);
        assert!(graded.cases.iter().next().unwrap().unwrap().misses[0]
            .expected
            .is_none());
        assert!(Scoring::new(
            vec![Column::Decision],
            Some(&parse_weights("reason=1").unwrap())
        )
        .is_err());
        assert!(parse_weights("decision=two").is_err());
        assert!(parse_weights("verdict=1").is_err());
    }

    /// A golden file and submissions with every shape a join must keep straight: wrong,
    /// missing and unknown rows, rows out of order, and bad rows (duplicated case ids among
    /// other errors, whose order must not depend on how the file is split).
    #[test]
    fn a_split_join_grades_as_one_partition_does() {
        let header = "case_id,decision,reason\n";
        let mut golden = header.to_owned();
        for i in 0..3_000 {
            golden.push_str(&format!("c{i},ACTIVE,within_lease\n"));
        }
        let mut shuffled = header.to_owned();
        for i in (0..3_500).rev().filter(|i| i % 11 != 0) {
            let decision = if i % 5 == 0 { "EXPIRED" } else { "active" };
            shuffled.push_str(&format!("c{i},{decision},within_lease\n"));
        }
        let mut bad = header.to_owned();
        for i in 0..500 {
            bad.push_str(&format!("c{},ACTIVE,within_lease\n", i % 300));
            if i % 97 == 0 {
                bad.push_str("c1,too,many,cells\n,ACTIVE,no_id\n");
            }
        }
        let columns = vec![Column::Decision, Column::Reason];
        let scoring = Scoring::new(columns.clone(), None).unwrap();
        for submission in [&golden, &shuffled, &bad, &header.to_owned()] {
            let whole = grade_csv(&golden, submission, &scoring, 1);
            for parts in [2, 7, 64] {
                assert_eq!(grade_csv(&golden, submission, &scoring, parts), whole);
            }
            // The errors are the ones (and in the order) a matrix read whole lists.
            if let SubmissionOutcome::Ungradable(errors) = &whole {
                let read = keeping(submission.as_bytes(), MatrixFileFormat::Csv, &columns);
                assert_eq!(&read.unwrap_err(), errors);
                assert!(errors.len() > 200);
            }
        }
        let SubmissionOutcome::Graded(shuffled) = grade_csv(&golden, &shuffled, &scoring, 7) else {
            panic!("graded");
        };
        assert!(shuffled.cases.iter().map(|c| c.unwrap().case).eq(0..3_000));
        assert!(shuffled
            .cases
            .iter()
            .map(Result::unwrap)
            .all(|c| *c.case_id == format!("c{}", c.case)));
        let counts = shuffled.counts();
        assert_eq!(counts.missing, 273);
        assert_eq!(counts.unknown, 454);
        // Unknown rows in the submission's order.
        let lines: Vec<u64> = shuffled
            .unknown
            .iter()
            .map(|row| row.unwrap().line)
            .collect();
        assert!(lines.windows(2).all(|w| w[0] < w[1]));
    }
}
