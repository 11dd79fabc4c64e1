//! Checking case files against golden matrices (spec section 8), `check`'s work for CI: each
//! case file judged by the streaming engine and its matrix diffed against its golden file,
//! the report written in the format asked for; `bless` writes the engine's matrices as
//! `<golden>.new` files for an author to review. [`run`] takes plain [`Options`]; the command
//! line makes them (`commands/check.rs`).

mod bless;
mod pairing;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::grading::clashes::CasePlaces;
use crate::grading::engine_check::{grade_judged, judge, OnCase, Threads};
use crate::grading::matrix_reader::{
    insert_errors, kept_error, listed_problems, with_duplicates, MatrixInput, MatrixRead,
    SplitMatrix,
};
use crate::grading::partitions::{Splitter, PART_INPUT_BYTES};
use crate::grading::{FileGrade, GradeReport, Unpaired, UnpairedFile};
use crate::input::{ErrorKind, InputError, InputErrors, ReadOptions, Source};
use crate::lease::Timestamp;
use crate::ops::Status;
use crate::output::{check_paths, commit_all, Named};
use crate::report::{
    render_report, report_output, step_summary, write_problems, ReportOptions, STEP_SUMMARY,
};
use crate::streaming::StreamError;

use bless::{bless, say_blessed};
use pairing::{name, pair, Pairing, Pairings};

/// What `check` is asked to do: the command line's options, parsed.
#[derive(Clone, Debug)]
pub struct Options {
    /// A case file, a directory of case files, or `-` for a CSV case file on standard input.
    pub cases: PathBuf,
    /// The golden matrix of a case file, or a directory of them.
    pub golden: PathBuf,
    /// Judge every case at this instant if it is later than the case's last row.
    pub as_of: Option<Timestamp>,
    /// Write the engine's matrix next to each golden file that differs, as `<golden>.new`.
    pub bless: bool,
    /// How case files that are CSV or workbooks are read.
    pub read: ReadOptions,
    /// The columns graded, and the report's format and place.
    pub report: ReportOptions,
}

/// Runs `check`. Bad input still writes the report (JUnit, GitHub, Markdown or JSON) naming
/// every problem, so that CI shows it; the exit code is 2 as ever.
pub fn run(options: &Options) -> Result<Status> {
    let result = check(options);
    if let Err(error) = &result {
        if let Some(errors) = error.downcast_ref::<InputErrors>() {
            // The run may have stopped before it compared its report's path with its inputs.
            let inputs = [
                Named::new("input", &options.cases),
                Named::new("--golden", &options.golden),
            ];
            let summary = step_summary(&options.report);
            let mut outputs = vec![report_output(&options.report)];
            outputs.extend(summary.as_deref().map(|p| Named::new(STEP_SUMMARY, p)));
            check_paths(&inputs, &outputs)?;
            write_problems(errors, &options.report, "check")?;
        }
    }
    result
}

fn check(options: &Options) -> Result<Status> {
    let columns = &options.report.columns;
    if options.cases.as_os_str() == "-" && options.bless {
        anyhow::bail!("--bless judges the case file again, so it cannot read standard input (-)");
    }
    if options.cases.as_os_str() == "-" && options.golden.is_dir() {
        return Err(InputErrors::from(vec![InputError::new(
            ErrorKind::Refused,
            &name(&options.golden),
            0,
            "standard input (-) has no name to pair by, so --golden must be a file",
        )])
        .into());
    }
    let pairings = pair(&options.cases, &options.golden)?;
    let shown: Vec<Source> = pairings
        .pairs
        .iter()
        .map(|p| Source {
            name: name(&p.cases),
            path: (p.cases.as_os_str() != "-").then(|| p.cases.clone()),
            options: options.read.clone(),
        })
        .collect();
    let progress = crate::ops::spinner("check", &shown);
    let mut inputs = Vec::new();
    for pairing in &pairings.pairs {
        inputs.push(Named::new("input", &pairing.cases));
        if let Some(golden) = &pairing.golden {
            inputs.push(Named::new("--golden", golden));
        }
    }
    // Golden files no case file claims are the author's too.
    inputs.extend(
        pairings
            .orphan_golden
            .iter()
            .map(|golden| Named::new("--golden", golden)),
    );
    let summary = step_summary(&options.report);
    let mut outputs = vec![report_output(&options.report)];
    outputs.extend(summary.as_deref().map(|p| Named::new(STEP_SUMMARY, p)));
    if options.bless {
        // Every file --bless might write: which ones it does depends on the results.
        outputs.extend(
            pairings
                .pairs
                .iter()
                .map(|pairing| Named::new("--bless", &pairing.blessed)),
        );
    }
    check_paths(&inputs, &outputs)?;
    let graded_files = grade_files(options, &pairings);
    if let Some(progress) = progress {
        progress.finish_and_clear();
    }
    let graded_files = graded_files?;

    let mut report = GradeReport {
        command: "check",
        columns: columns.clone(),
        revealed: true,
        files: Vec::new(),
        unpaired: Vec::new(),
    };
    let mut to_bless = Vec::new();
    for (pairing, grade) in graded_files {
        match grade {
            Some(grade) => {
                if !grade.summary().is_clean() {
                    to_bless.push(pairing);
                }
                report.files.push(grade);
            }
            None => {
                report.unpaired.push(UnpairedFile {
                    file: name(&pairing.cases),
                    problem: Unpaired::CaseFileWithoutGolden,
                });
                to_bless.push(pairing);
            }
        }
    }
    let checked = pairings.pairs.len();
    report
        .unpaired
        .extend(pairings.orphan_golden.iter().map(|file| UnpairedFile {
            file: name(file),
            problem: Unpaired::GoldenWithoutCaseFile,
        }));

    let mut outputs = vec![render_report(&report, &options.report)?];
    if options.bless {
        outputs.extend(bless(&to_bless, options)?);
    }
    commit_all(outputs)?;
    if options.bless {
        say_blessed(&to_bless, checked);
    }
    Ok(if report.summary().is_clean() {
        Status::Success
    } else {
        Status::Differences
    })
}

/// Each case file judged on its own and graded against its golden file (`None`: it has
/// none); every input error of them all, case ids in two case files among them, is the
/// error.
fn grade_files<'p>(
    options: &Options,
    pairings: &'p Pairings,
) -> Result<Vec<(&'p Pairing, Option<FileGrade>)>> {
    let columns = &options.report.columns;
    let mut errors = InputErrors::new();
    // Each case file is judged on its own, by the streaming engine, and graded against its
    // own golden file as its matrix is read back: neither its cases nor its matrix are kept.
    let mut graded_files = Vec::new();
    // A case id may not appear in two case files (spec section 2): with several files, every
    // case's id and first line go to partitions on disk, and ids in two files are found a
    // partition at a time once every file is judged; each file's clashes are listed where its
    // errors end, before its golden file's.
    let several = pairings.pairs.len() > 1;
    let mut places = several.then(|| {
        CasePlaces::for_case_files(pairings.pairs.iter().map(|pairing| pairing.cases.as_path()))
    });
    for (file_index, pairing) in pairings.pairs.iter().enumerate() {
        let from_stdin = pairing.cases.as_os_str() == "-";
        let source = Source {
            name: name(&pairing.cases),
            path: (!from_stdin).then(|| pairing.cases.clone()),
            options: options.read.clone(),
        };
        // The golden file is read split by case-id hash, planned for the larger of it and
        // the case file, on a thread of its own while the engine judges the case file (on
        // every core: its first lines come with its rows, unless several files want them
        // in file order). One no larger than a partition is then loaded whole on that
        // thread, and the engine's rows are joined with it as they are read back; a larger
        // one is joined a partition at a time.
        let read_golden = || {
            pairing.golden.as_deref().map(|path| {
                let size = |path: &Path| std::fs::metadata(path).map_or(0, |m| m.len());
                let case_bytes = source.path.as_deref().map_or(0, size);
                let splitter = Splitter::for_bytes(size(path).max(case_bytes));
                let golden_name = name(path);
                let (mut golden, read_errors) = MatrixRead::golden(columns).read_split(
                    MatrixInput::Path(path),
                    &golden_name,
                    &splitter,
                )?;
                if read_errors.is_empty() && !golden.lacks_columns(columns) {
                    golden
                        .hold_within(PART_INPUT_BYTES)
                        .map_err(|e| kept_error(&golden_name, e))?;
                }
                Ok((golden, read_errors))
            })
        };
        let threads = Threads::like_adjudicate(crate::streaming::default_jobs());
        let mut on_case = |case_id: &str, line: u64| {
            if let Some(places) = &mut places {
                places.push(case_id, line, file_index);
            }
        };
        let on_case: Option<&mut OnCase<'_>> = several.then_some(&mut on_case);
        let (judged, golden) = std::thread::scope(|scope| {
            let golden = std::thread::Builder::new()
                .name("leasejudge-golden".into())
                .spawn_scoped(scope, read_golden);
            let judged = judge(&source, options.as_of, threads, on_case);
            // No thread to be had: the golden file is read after.
            let golden = match golden {
                Ok(thread) => thread
                    .join()
                    .expect("reading the golden file does not panic"),
                Err(_) => read_golden(),
            };
            (judged, golden)
        });
        if let Some(places) = &mut places {
            places.end_file(errors.len());
        }
        match (judged, golden) {
            (Ok(_), None) => graded_files.push((pairing, None)),
            (Ok(judged), Some(Ok((golden, read_errors))))
                if read_errors.is_empty() && !golden.lacks_columns(columns) =>
            {
                // Duplicated case ids are found as the join loads each partition.
                let (grade, duplicates) = grade_judged(
                    judged,
                    &source.name,
                    &golden,
                    columns,
                    options.report.lists_matched(),
                )
                .context("cannot keep the engine's matrix")?;
                if duplicates.is_empty() {
                    graded_files.push((pairing, Some(grade)));
                } else {
                    errors.append(with_duplicates(InputErrors::new(), duplicates));
                }
            }
            (Ok(_), Some(golden)) => errors.append(golden_problems(golden, columns)),
            (Err(StreamError::Input(judged)), golden) => {
                errors.append(judged);
                if let Some(golden) = golden {
                    errors.append(golden_problems(golden, columns));
                }
            }
            (Err(StreamError::Io(e)), _) => return Err(e.into()),
        }
    }
    if let Some(places) = places {
        let names: Vec<String> = pairings.pairs.iter().map(|p| name(&p.cases)).collect();
        let clashes = places
            .clashes(&names)
            .context("cannot keep the case ids in temporary files")?;
        let unlisted = errors.unlisted();
        errors = listed_problems(insert_errors(errors.into_listed(), clashes), unlisted);
    }
    if !errors.is_empty() {
        return Err(errors.into());
    }
    Ok(graded_files)
}

/// Every problem of a golden file read split, as a golden file read whole lists them: the
/// reader's errors with its duplicated case ids, or else the graded columns it lacks.
fn golden_problems(
    golden: Result<(SplitMatrix, InputErrors), InputErrors>,
    columns: &[crate::grading::Column],
) -> InputErrors {
    let (golden, read_errors) = match golden {
        Ok(read) => read,
        Err(errors) => return errors,
    };
    let errors = match golden.duplicates() {
        Ok(duplicates) => with_duplicates(read_errors, duplicates),
        Err(e) => return kept_error(&golden.name, e),
    };
    if errors.is_empty() {
        golden.missing_columns(columns)
    } else {
        errors
    }
}
