//! `leasejudge grade`: grade a learner's filled-in matrix against hidden golden labels (spec
//! section 8). Golden values stay hidden unless `--reveal` is given.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::grading::{
    compare, parse_matrix_with, read_golden_file, read_matrix_file_with, write_report, GradeReport,
    MatrixFile, MatrixFileFormat, MissingAt, ReportArgs,
};
use crate::input::{InputErrors, ReadArgs};

/// Grade a filled-in matrix against golden labels.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
The submission may be a CSV file from any spreadsheet (comma, semicolon or tab, detected from \
the header; a byte-order mark; \\n, \\r\\n or \\r line endings) or a workbook (.xlsx, .xlsm, \
.ods), with extra columns, columns in any order, headings as in the lesson (Decision, Reason, \
Stale Generation) and blank lines. Its values compare leniently (spec section 8): timestamps \
with a space for T and no offset (UTC), integers like 08 or 8.0, durations like PT30S, \
TRUE/yes/1 booleans, ;-lists in any order. The golden file's values must be in canonical form. \
Rows are matched by case_id; a golden case the submission lacks counts as wrong, a submission \
row the golden file lacks is reported.

Exit status: 0 every graded column of every case matches; 1 differences; 2 trouble \
(unreadable file, a duplicated case_id, a header without a graded column), every problem \
listed as FILE:LINE: column: message (value).")]
pub struct Args {
    /// The filled-in matrix: CSV, or JSON or a workbook by extension; `-` reads CSV (or a
    /// workbook) from standard input.
    #[arg(value_name = "SUBMISSION")]
    pub submission: PathBuf,

    /// The golden matrix with the labels (CSV, or JSON or a workbook by extension).
    #[arg(long, value_name = "GOLDEN")]
    pub golden: PathBuf,

    /// Show the golden values of wrong cases (for instructors); hidden by default.
    #[arg(long)]
    pub reveal: bool,

    /// How the submission is read if it is CSV or a workbook (the golden file: always
    /// detected, first sheet).
    #[command(flatten)]
    pub read: ReadArgs,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub report: ReportArgs,
}

fn read_submission(path: &std::path::Path, read: &ReadArgs) -> Result<MatrixFile, InputErrors> {
    if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| {
                InputErrors(vec![crate::input::InputError::new(
                    "-",
                    0,
                    format!("cannot read: {e}"),
                )])
            })?;
        // Standard input has no extension: a workbook is told by its bytes (a zip archive).
        let format = if bytes.starts_with(b"PK\x03\x04") {
            MatrixFileFormat::Workbook
        } else {
            MatrixFileFormat::Csv
        };
        parse_matrix_with(&bytes, "-", format, &read.options())
    } else {
        read_matrix_file_with(path, &path.to_string_lossy(), &read.options())
    }
}

/// Runs `grade`.
pub fn run(args: &Args) -> Result<ExitCode> {
    let columns = &args.report.columns.0;
    let submission = read_submission(&args.submission, &args.read);
    let golden = read_golden_file(&args.golden, &args.golden.to_string_lossy());
    let mut errors = Vec::new();
    for matrix in [&submission, &golden] {
        match matrix {
            Ok(matrix) => errors.extend(matrix.missing_columns(columns)),
            Err(e) => errors.extend(e.0.iter().cloned()),
        }
    }
    let (Ok(submission), Ok(golden), true) = (submission, golden, errors.is_empty()) else {
        return Err(InputErrors(errors).into());
    };
    let grade = compare(
        &golden,
        &submission,
        columns,
        args.reveal,
        MissingAt::GradedFile,
    );
    let report = GradeReport {
        command: "grade",
        columns: columns.clone(),
        revealed: args.reveal,
        files: vec![grade],
        unpaired: Vec::new(),
    };
    write_report(&report, &args.report)?;
    Ok(if report.summary().is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
