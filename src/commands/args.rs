//! The options several commands share (`--delimiter` and `--sheet`; `check`'s and `grade`'s
//! report options), as clap parses them, and the options of the work they give.

use std::path::PathBuf;

use super::choice::choice;
use crate::grading::{parse_column_list, Column};
use crate::input::{Delimiter, ReadOptions};
use crate::report::{ReportFormat, ReportOptions};

/// `--delimiter` and `--sheet`, for every command that reads CSV files or workbooks.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct ReadArgs {
    /// The CSV delimiter: comma, semicolon, tab, or one ASCII character [default: detected
    /// from the header line].
    #[arg(long, value_name = "DELIMITER")]
    pub delimiter: Option<Delimiter>,

    /// The sheet of a workbook (.xlsx, .xlsm, .ods) to read [default: the first].
    #[arg(long, value_name = "NAME")]
    pub sheet: Option<String>,
}

impl ReadArgs {
    /// The options they give.
    pub fn options(&self) -> ReadOptions {
        ReadOptions {
            delimiter: self.delimiter,
            sheet: self.sheet.clone(),
        }
    }
}

/// The options `check` and `grade` share.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// The columns to grade: names separated by commas (as matrix headers), or `all`.
    #[arg(long, value_name = "COLUMNS", default_value = "decision,reason", value_parser = parse_graded_columns)]
    pub columns: GradedColumns,

    /// Report format [default: by the -o file's extension: .xml junit, .json json, .md
    /// markdown; otherwise table].
    #[arg(long, short = 'f', value_parser = choice::<ReportFormat>())]
    pub format: Option<ReportFormat>,

    /// Write the report to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// In the table, list every case, not only those that differ.
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

impl ReportArgs {
    /// The options they give.
    pub fn options(&self) -> ReportOptions {
        ReportOptions {
            columns: self.columns.0.clone(),
            format: self.format,
            output: self.output.clone(),
            verbose: self.verbose,
        }
    }
}

/// The graded columns given with `--columns`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GradedColumns(pub Vec<Column>);

pub(crate) fn parse_graded_columns(text: &str) -> Result<GradedColumns, String> {
    parse_column_list(text).map(GradedColumns)
}
