//! Reading for `grade`: the key (strictly, from the handle the instructor's files remember),
//! each submission (leniently, never the key), the hints from the case files, and the one
//! splitter all of them are partitioned by.

use std::io;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::grading::class::Hint;
use crate::grading::hint::hints_by_case;
use crate::grading::learner_shortcuts::CaseShortcuts;
use crate::grading::matrix_reader::{open_matrix, MatrixInput, MatrixRead, SplitMatrix};
use crate::grading::partitions::Splitter;
use crate::grading::spool::Spool;
use crate::grading::submission_file::{
    open_submission, standard_input_submission, InstructorFiles,
};
use crate::grading::{Column, MatrixFileFormat};
use crate::input::{InputErrors, ReadOptions};
use crate::streaming::StreamError;

/// A submission read split by `splitter`, with the errors its reader found; one that is not a
/// file of its own (a link, one of `instructor`'s files) is refused before a byte is read.
pub(super) fn read_submission(
    path: &Path,
    name: &str,
    options: &ReadOptions,
    columns: &[Column],
    splitter: &Splitter,
    instructor: &InstructorFiles,
) -> Result<(SplitMatrix, InputErrors), InputErrors> {
    if path.as_os_str() == "-" {
        let (file, format) = standard_input_submission(instructor).map_err(InputErrors::one)?;
        MatrixRead::submission(columns, options).read_split(
            MatrixInput::Open(file, format),
            "-",
            splitter,
        )
    } else {
        let file = open_submission(path, name, instructor).map_err(InputErrors::one)?;
        let format = MatrixFileFormat::for_path(path);
        MatrixRead::submission(columns, options).read_split(
            MatrixInput::Open(file, format),
            name,
            splitter,
        )
    }
}

/// The golden file, or its problems (unreadable, malformed, lacking a graded column). It is
/// read from the handle whose identity goes into `instructor`, so a submission can never be
/// the file that was read as the key.
pub(super) fn read_golden(
    path: &Path,
    columns: &[Column],
    splitter: &Splitter,
    instructor: &mut InstructorFiles,
) -> Result<Result<SplitMatrix, InputErrors>> {
    let name = path.to_string_lossy();
    let file = match open_matrix(path, &name) {
        Ok(file) => file,
        Err(problems) => return Ok(Err(problems)),
    };
    instructor.add_open(&file);
    // Strict: a golden value not in canonical form is the author's error.
    let format = MatrixFileFormat::for_path(path);
    let (golden, errors) = match MatrixRead::golden(columns).read_split(
        MatrixInput::Open(file, format),
        &name,
        splitter,
    ) {
        Ok(read) => read,
        Err(problems) => return Ok(Err(problems)),
    };
    // A full temporary directory is the run's trouble, never a malformed key.
    let golden = match golden
        .checked_kept(errors)
        .context("cannot keep the golden file in temporary files")?
    {
        Ok(golden) => golden,
        Err(problems) => return Ok(Err(problems)),
    };
    let missing = golden.missing_columns(columns);
    Ok(if missing.is_empty() {
        Ok(golden)
    } else {
        Err(missing)
    })
}

/// Per golden case (`case_ids`, in golden-file order), the hint from replaying `cases`.
pub(super) fn hints(
    cases: &[PathBuf],
    case_ids: &Spool<(u64, String)>,
) -> Result<Vec<Option<Hint>>> {
    // Read with the default options: `--delimiter` and `--sheet` are the submissions'.
    let sources = crate::input::expand_inputs(cases)?;
    let mut by_id = match hints_by_case(&sources) {
        Ok(hints) => hints,
        Err(StreamError::Input(errors)) => return Err(errors.into()),
        Err(StreamError::Io(e)) => return Err(e).context("cannot keep the case files' hints"),
    };
    let hint = |id: io::Result<(u64, String)>| Ok(by_id.remove(id?.1.as_str()));
    case_ids.iter().map(hint).collect()
}

/// Every golden case (`case_ids`, in golden-file order) judged under every shortcut, from
/// replaying `cases`, on the graded `columns`.
pub(super) fn case_shortcuts(
    cases: &[PathBuf],
    columns: &[Column],
    case_ids: &Spool<(u64, String)>,
) -> Result<CaseShortcuts> {
    let sources = crate::input::expand_inputs(cases)?;
    match CaseShortcuts::judge(&sources, columns, case_ids) {
        Ok(table) => Ok(table),
        Err(StreamError::Input(errors)) => Err(errors.into()),
        Err(StreamError::Io(e)) => {
            Err(e).context("cannot judge the case files under the shortcuts")
        }
    }
}

/// One splitter for the golden file and every submission, planned for the largest of them:
/// a partition of any of them then holds a few megabytes. Standard input is read whole
/// before it is split, so its size does not count, and nor does what a submission that is a
/// symbolic link points to (it is never read).
pub(super) fn splitter(golden: &Path, submissions: &[&Path]) -> Splitter {
    let largest = std::fs::metadata(golden)
        .into_iter()
        .chain(
            submissions
                .iter()
                .filter_map(|path| std::fs::symlink_metadata(path).ok()),
        )
        .map(|metadata| metadata.len())
        .max()
        .unwrap_or(0);
    Splitter::for_bytes(largest)
}
