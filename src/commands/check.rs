//! `leasejudge check`: adjudicate case files with the engine and diff their matrices against
//! golden matrices (spec section 8), for CI; `--bless` writes the engine's matrices as
//! `<golden>.new` files for an author to review.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::commands::adjudicate::parse_timestamp;
use crate::grading::clashes::CasePlaces;
use crate::grading::engine_check::{grade_judged, judge, OnCase, Threads};
use crate::grading::matrix_reader::{
    insert_errors, kept_error, listed_problems, with_duplicates, MatrixInput, MatrixRead,
    SplitMatrix,
};
use crate::grading::partitions::Splitter;
use crate::grading::{GradeReport, MatrixFileFormat, ReportArgs, Unpaired, UnpairedFile};
use crate::input::{is_case_file, InputError, InputErrors, ReadArgs, Source};
use crate::lease::Timestamp;
use crate::matrix::COLUMNS;
use crate::matrix::{CsvMatrix, JsonMatrix, MatrixEncoding};
use crate::output::{check_paths, commit_all, Content, Named, Output};
use crate::report::{render_report, report_output, step_summary, write_problems, STEP_SUMMARY};
use crate::streaming::{Sink, StreamError, StreamSettings};

/// Adjudicate case files and compare their matrices with golden files.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Directories pair files by name: cases/x.csv (or .json, .ndjson, .jsonl, .xlsx, .xlsm, .ods) \
with golden/x.csv (or .json, .xlsx, .xlsm, .ods); subdirectories are not read. A file without \
a partner is reported. Golden values must be in the canonical form the engine writes.

Exit status: 0 every graded column of every case matches; 1 differences (a wrong, missing or \
unknown case, or an unpaired file); 2 trouble (unreadable file, bad input, a golden file \
lacking a graded column), every problem listed as FILE:LINE: column: message (value).")]
pub struct Args {
    /// A case file, a directory of case files, or `-` for a CSV case file on standard input
    /// (then --golden names a file).
    #[arg(value_name = "CASES")]
    pub cases: PathBuf,

    /// The golden matrix (CSV, or JSON or a workbook by extension) of a case file, or a
    /// directory of them.
    #[arg(long, value_name = "GOLDEN")]
    pub golden: PathBuf,

    /// Judge every case at this RFC 3339 instant if it is later than the case's last row.
    #[arg(long, value_name = "TIMESTAMP", value_parser = parse_timestamp)]
    pub as_of: Option<Timestamp>,

    /// Write the engine's matrix next to each golden file that differs in the graded columns,
    /// as `<golden>.new` (and `<golden dir>/<name>.csv.new` for a case file without one); golden files
    /// themselves are never changed.
    #[arg(long)]
    pub bless: bool,

    /// How case files that are CSV or workbooks are read (golden files: always detected, first
    /// sheet).
    #[command(flatten)]
    pub read: ReadArgs,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub report: ReportArgs,
}

/// A case file and the golden file it is checked against (if it has one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// The case file.
    pub cases: PathBuf,
    /// Its golden file; `None` when the golden directory has none (reported as unpaired).
    pub golden: Option<PathBuf>,
    /// Where `--bless` writes the engine's matrix.
    pub blessed: PathBuf,
}

/// The pairs to check, and golden files no case file claims.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pairings {
    /// Case files in name order, each with its golden file if any.
    pub pairs: Vec<Pairing>,
    /// Golden files without a case file.
    pub orphan_golden: Vec<PathBuf>,
}

fn name(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn new_path(golden: &Path) -> PathBuf {
    let mut text = golden.as_os_str().to_owned();
    text.push(".new");
    PathBuf::from(text)
}

fn is_golden_file(path: &Path) -> bool {
    let extension = crate::input::lowercase_extension(path);
    matches!(
        extension.as_deref(),
        Some("csv" | "json" | "xlsx" | "xlsm" | "ods")
    ) && path.is_file()
}

/// The files directly in `directory` that `keep` accepts, in name order.
fn list(directory: &Path, keep: fn(&Path) -> bool) -> Result<Vec<PathBuf>, InputError> {
    let entries = std::fs::read_dir(directory)
        .map_err(|e| InputError::new(&name(directory), 0, format!("cannot read directory: {e}")))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| keep(path))
        .collect();
    files.sort();
    Ok(files)
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Pairs case files with golden files: a file with a file; a file or directory of case files
/// with a golden directory, by name (`x.csv` with `x.csv` or `x.json`).
pub fn pair(cases: &Path, golden: &Path) -> Result<Pairings, InputErrors> {
    if !golden.is_dir() {
        if cases.is_dir() {
            return Err(InputErrors::from(vec![InputError::new(
                &name(golden),
                0,
                format!(
                    "{} is a directory, so --golden must be a directory too",
                    name(cases)
                ),
            )]));
        }
        return Ok(Pairings {
            pairs: vec![Pairing {
                cases: cases.to_owned(),
                golden: Some(golden.to_owned()),
                blessed: new_path(golden),
            }],
            orphan_golden: Vec::new(),
        });
    }
    let mut errors = InputErrors::new();
    let case_files = if cases.is_dir() {
        let files = list(cases, is_case_file).map_err(InputErrors::one)?;
        if files.is_empty() {
            errors.push(InputError::new(
                &name(cases),
                0,
                "the directory holds no case files",
            ));
        }
        files
    } else {
        vec![cases.to_owned()]
    };
    let mut golden_by_stem: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for file in list(golden, is_golden_file).map_err(InputErrors::one)? {
        golden_by_stem.entry(stem(&file)).or_default().push(file);
    }
    let mut claimed: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut pairs = Vec::new();
    for case_file in case_files {
        let key = stem(&case_file);
        if let Some(earlier) = claimed.insert(key.clone(), case_file.clone()) {
            errors.push(InputError::new(
                &name(&case_file),
                0,
                format!(
                    "{} has the same name, so both would pair with one golden file",
                    name(&earlier)
                ),
            ));
            continue;
        }
        let golden_file = match golden_by_stem.get(&key).map(Vec::as_slice) {
            None | Some([]) => None,
            Some([one]) => Some(one.clone()),
            Some(many) => {
                let names: Vec<String> = many.iter().map(|p| name(p)).collect();
                errors.push(InputError::new(
                    &name(&case_file),
                    0,
                    format!("more than one golden file matches: {}", names.join(", ")),
                ));
                continue;
            }
        };
        let blessed = match &golden_file {
            Some(file) => new_path(file),
            None => golden.join(format!("{key}.csv.new")),
        };
        pairs.push(Pairing {
            cases: case_file,
            golden: golden_file,
            blessed,
        });
    }
    // With a single case file, the rest of the golden directory is not its business.
    let orphan_golden = if cases.is_dir() {
        golden_by_stem
            .into_iter()
            .filter(|(key, _)| !claimed.contains_key(key))
            .flat_map(|(_, files)| files)
            .collect()
    } else {
        Vec::new()
    };
    if errors.is_empty() {
        Ok(Pairings {
            pairs,
            orphan_golden,
        })
    } else {
        Err(errors)
    }
}

/// Runs `check`. Bad input still writes the report (JUnit, GitHub, Markdown or JSON) naming
/// every problem, so that CI shows it; the exit code is 2 as ever.
pub fn run(args: &Args) -> Result<ExitCode> {
    let result = check(args);
    if let Err(error) = &result {
        if let Some(errors) = error.downcast_ref::<InputErrors>() {
            // The run may have stopped before it compared its report's path with its inputs.
            let inputs = [
                Named::new("input", &args.cases),
                Named::new("--golden", &args.golden),
            ];
            let summary = step_summary(&args.report);
            let mut outputs = vec![report_output(&args.report)];
            outputs.extend(summary.as_deref().map(|p| Named::new(STEP_SUMMARY, p)));
            check_paths(&inputs, &outputs)?;
            write_problems(errors, &args.report, "check")?;
        }
    }
    result
}

fn check(args: &Args) -> Result<ExitCode> {
    let columns = &args.report.columns.0;
    if args.cases.as_os_str() == "-" && args.bless {
        anyhow::bail!("--bless judges the case file again, so it cannot read standard input (-)");
    }
    if args.cases.as_os_str() == "-" && args.golden.is_dir() {
        return Err(InputErrors::from(vec![InputError::new(
            &name(&args.golden),
            0,
            "standard input (-) has no name to pair by, so --golden must be a file",
        )])
        .into());
    }
    let pairings = pair(&args.cases, &args.golden)?;
    let shown: Vec<Source> = pairings
        .pairs
        .iter()
        .map(|p| Source {
            name: name(&p.cases),
            path: (p.cases.as_os_str() != "-").then(|| p.cases.clone()),
            options: args.read.options(),
        })
        .collect();
    let progress = crate::terminal::spinner("check", &shown);
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
    let summary = step_summary(&args.report);
    let mut outputs = vec![report_output(&args.report)];
    outputs.extend(summary.as_deref().map(|p| Named::new(STEP_SUMMARY, p)));
    if args.bless {
        // Every file --bless might write: which ones it does depends on the results.
        outputs.extend(
            pairings
                .pairs
                .iter()
                .map(|pairing| Named::new("--bless", &pairing.blessed)),
        );
    }
    check_paths(&inputs, &outputs)?;
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
            options: args.read.options(),
        };
        // The golden file is read split by case-id hash, planned for the larger of it and
        // the case file, on a thread of its own while the engine judges the case file (on
        // every core: its first lines come with its rows, unless several files want them
        // in file order), and joined a partition at a time.
        let read_golden = || {
            pairing.golden.as_deref().map(|path| {
                let size = |path: &Path| std::fs::metadata(path).map_or(0, |m| m.len());
                let case_bytes = source.path.as_deref().map_or(0, size);
                let splitter = Splitter::for_bytes(size(path).max(case_bytes));
                MatrixRead::golden(columns).read_split(
                    MatrixInput::Path(path),
                    &name(path),
                    &splitter,
                )
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
            let judged = judge(&source, args.as_of, threads, on_case);
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
                    args.report.lists_matched(),
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
    if let Some(progress) = progress {
        progress.finish_and_clear();
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

    let mut outputs = vec![render_report(&report, &args.report)?];
    if args.bless {
        outputs.extend(bless(&to_bless, args)?);
    }
    commit_all(outputs)?;
    if args.bless {
        say_blessed(&to_bless, checked);
    }
    Ok(if report.summary().is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
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

/// Writes each differing file's engine matrix for its `.new` path, to commit with the report
/// (the file is judged again, straight into the `.new` file: bless is rare, memory is not).
fn bless(to_bless: &[&Pairing], args: &Args) -> Result<Vec<Output>> {
    let mut outputs = Vec::with_capacity(to_bless.len());
    for pairing in to_bless {
        let target = &pairing.blessed;
        // `x.csv.new` is written as CSV, `x.json.new` as JSON and `x.xlsx.new` as a
        // workbook: the format of the file it would replace.
        let format = MatrixFileFormat::for_path(&target.with_extension(""));
        let source = Source {
            name: name(&pairing.cases),
            path: Some(pairing.cases.clone()),
            options: args.read.options(),
        };
        let settings = StreamSettings {
            run_as_of: args.as_of,
            ..StreamSettings::default()
        };
        let encoding: &'static dyn MatrixEncoding = match format {
            MatrixFileFormat::Json => &JsonMatrix,
            MatrixFileFormat::Csv | MatrixFileFormat::Workbook => &CsvMatrix,
        };
        let mut out = Output::open(
            Some(target),
            match format {
                MatrixFileFormat::Csv => Content::Csv,
                MatrixFileFormat::Json => Content::Json,
                MatrixFileFormat::Workbook => Content::Binary,
            },
        )?;
        let cannot = || format!("cannot write {}", target.display());
        let matrix = crate::streaming::judge(
            &[source],
            &settings,
            Sink::Matrix(encoding),
            &mut |_, _, _| {},
        )
        .with_context(cannot)?;
        if format == MatrixFileFormat::Workbook {
            let mut csv_text: Vec<u8> = Vec::new();
            matrix.write_to(&mut csv_text).with_context(cannot)?;
            let mut reader = csv::Reader::from_reader(csv_text.as_slice());
            let mut cells: Vec<Vec<String>> = Vec::new();
            for record in reader.records() {
                cells.push(
                    record
                        .with_context(cannot)?
                        .iter()
                        // A workbook's text cell is never a formula: the value as it is.
                        .map(|cell| crate::output::spreadsheet_value(cell).to_owned())
                        .collect(),
                );
            }
            let bytes = crate::input::workbook::matrix_xlsx("matrix", &COLUMNS, &cells)
                .map_err(std::io::Error::other)
                .with_context(cannot)?;
            out.write_all(&bytes).with_context(cannot)?;
        } else {
            matrix.write_to(&mut out).with_context(cannot)?;
        }
        outputs.push(out);
    }
    Ok(outputs)
}

/// Says what `--bless` wrote (each line fitted to standard error's width).
fn say_blessed(to_bless: &[&Pairing], checked: usize) {
    crate::output::to_stderr_wrapped(&format!(
        "leasejudge: bless: {} of {} case files differ from their golden files (or have none)",
        to_bless.len(),
        checked
    ));
    for pairing in to_bless {
        crate::output::to_stderr_wrapped(&format!(
            "leasejudge: bless: wrote {} for review",
            crate::output::escape_controls(&pairing.blessed.to_string_lossy())
        ));
    }
    if to_bless.is_empty() {
        crate::output::to_stderr_wrapped("leasejudge: bless: nothing to write");
    }
}
