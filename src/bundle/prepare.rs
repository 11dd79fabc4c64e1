//! An autograder's inputs checked before anything is written: the options, the binary to
//! carry (an x86-64 Linux executable of this version), the case files' names in the bundle,
//! and the key, read as `grade` reads it and checked against the contract's verdicts on the
//! case files ([`super::key_check`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::grading::class::{Feedback, Scoring};
use crate::grading::{Column, MatrixFileFormat};
use crate::input::{expand_inputs, FileStamp, InputErrors, ReadOptions};
use crate::ops::usage;
use crate::output::{check_paths, Named};
use crate::report::platform_results::Visibility;

use super::binary::{inspect, CLibrary};
use super::key_check::check_key;
use super::{is_reserved, GradeOptions, BINARY, KEY_STEM, RUN, SETUP};

/// What both platforms' autograders are built from.
#[derive(Clone, Debug)]
pub struct Inputs {
    /// The answer key: the golden matrix.
    pub golden: PathBuf,
    /// The lab's case files (or directories of them): adjudicated to check the key, and
    /// carried for hints.
    pub cases: Vec<PathBuf>,
    /// What learners see.
    pub feedback: Feedback,
    /// Partial credit: each case scores the sum of the weights of its right columns.
    pub weights: Option<Vec<(Column, u32)>>,
    /// The assignment's points: the score is scaled to them.
    pub points: Option<f64>,
    /// The columns graded.
    pub columns: Vec<Column>,
    /// The leasejudge binary to carry [default: this one].
    pub binary: Option<PathBuf>,
    /// How learners' CSV files and workbooks are read.
    pub read: ReadOptions,
}

/// An autograder's inputs, checked: what is carried, and how it grades.
pub(super) struct Prepared {
    /// The key and its name in the bundle.
    pub(super) key: PathBuf,
    /// The case files and their names in the bundle.
    pub(super) cases: Vec<(PathBuf, String)>,
    /// The binary and how it gets its C library.
    pub(super) binary: PathBuf,
    pub(super) c_library: CLibrary,
    /// How the bundled `grade` grades.
    pub(super) options: GradeOptions,
    /// How many cases the key has.
    pub(super) key_cases: u64,
    /// The copies of the case files that cannot be read twice, which `cases` names.
    pub(super) _copies: crate::validation::ReadTwice,
    /// What the key and the case files were before they were checked: each is carried only
    /// as it was then.
    pub(super) stamps: HashMap<PathBuf, Option<FileStamp>>,
    /// The points a submission can score on the platform: `--points`, or the raw total.
    pub(super) total_points: f64,
    /// The bytes of the lab's full matrix as CSV (every column): what a learner who fills
    /// in every column hands in.
    pub(super) matrix_bytes: u64,
}

/// Checks the options and the binary, reads the key and adjudicates the case files, and
/// refuses (every problem listed) a key that cannot grade them.
pub(super) fn prepare(
    inputs: &Inputs,
    visibility: Option<Visibility>,
    output: &Path,
) -> Result<Prepared> {
    let feedback = inputs.feedback;
    let columns = inputs.columns.clone();
    let weights = inputs.weights.clone();
    let scoring = Scoring::new(columns.clone(), weights.as_deref()).map_err(|e| usage(&e))?;
    if inputs.golden.as_os_str() == "-" || inputs.cases.iter().any(|c| c.as_os_str() == "-") {
        return Err(usage(
            "standard input (-) cannot be carried: give the key's and the case files' paths",
        ));
    }
    let (binary, c_library) = check_binary(inputs.binary.as_deref())?;
    // A case file that cannot be read twice (a pipe, `<(…)`) is read once, into a copy that
    // is checked against the key and carried.
    let copies = crate::validation::read_twice(
        &expand_inputs(&inputs.cases)?,
        crate::limits::MAX_KEPT_INPUT_BYTES,
    )?
    .map_err(InputErrors::one)?;
    let sources = copies.sources.clone();
    let mut cases = Vec::new();
    let mut names: HashMap<String, PathBuf> = HashMap::new();
    for source in &sources {
        let path = source.path.clone().expect("not standard input");
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if is_reserved(&name) {
            return Err(usage(&format!(
                "the case file {} cannot be carried under its name: {name} is a name the \
                 autograder's own files use ({SETUP}, {RUN}, {BINARY}, {KEY_STEM}.*, info.json, \
                 question.html); rename it",
                path.display()
            )));
        }
        if let Some(earlier) = names.insert(name.clone(), path.clone()) {
            return Err(usage(&format!(
                "the case files {} and {} have the same name, {name}: they sit side by side in \
                 the autograder; rename one",
                earlier.display(),
                path.display()
            )));
        }
        cases.push((path, name));
    }
    let mut named = vec![
        Named::new("--golden", &inputs.golden),
        Named::new("--binary", &binary),
    ];
    named.extend(cases.iter().map(|(path, _)| Named::new("--cases", path)));
    check_paths(&named, &[Named::new("-o", output)])?;
    let key_extension = match MatrixFileFormat::for_path(&inputs.golden) {
        MatrixFileFormat::Csv => "csv".to_owned(),
        MatrixFileFormat::Json => "json".to_owned(),
        MatrixFileFormat::Workbook => inputs
            .golden
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default(),
    };
    // Taken before the key is checked against the cases: what is carried is what was checked.
    let stamps = std::iter::once(&inputs.golden)
        .chain(cases.iter().map(|(path, _)| path))
        .map(|path| (path.clone(), FileStamp::of_path(path).ok().flatten()))
        .collect();
    let (key_cases, matrix_bytes) = check_key(&inputs.golden, &sources, &scoring, true)?;
    Ok(Prepared {
        _copies: copies,
        stamps,
        key: inputs.golden.clone(),
        cases: cases.clone(),
        binary,
        c_library,
        options: GradeOptions {
            key: format!("{KEY_STEM}.{key_extension}"),
            cases: cases.into_iter().map(|(_, name)| name).collect(),
            feedback,
            columns,
            weights,
            visibility,
            delimiter: inputs.read.delimiter,
            sheet: inputs.read.sheet.clone(),
            points: inputs.points,
        },
        key_cases,
        total_points: inputs
            .points
            .unwrap_or((key_cases * scoring.case_max()) as f64),
        matrix_bytes,
    })
}

/// The binary to carry and how it gets its C library: this one, or `--binary`'s, which must
/// be an x86-64 Linux executable of this version.
pub(super) fn check_binary(given: Option<&Path>) -> Result<(PathBuf, CLibrary)> {
    let path = match given {
        Some(path) => path.to_owned(),
        None => std::env::current_exe().context("cannot find this leasejudge binary")?,
    };
    let binary = inspect(&path).map_err(|e| {
        let hint = if given.is_some() {
            "give --binary a leasejudge built for x86_64-unknown-linux-gnu"
        } else {
            "this leasejudge cannot be carried: give --binary a leasejudge built for \
             x86_64-unknown-linux-gnu (`cargo build --release --target x86_64-unknown-linux-gnu`)"
        };
        anyhow::anyhow!(
            "cannot carry {}: {e}; Gradescope and PrairieLearn grade on x86-64 Linux, so {hint}",
            path.display()
        )
    })?;
    if let Some(given) = given {
        check_version(given)?;
    }
    Ok((path, binary.c_library))
}

/// A `--binary` must be this version: the scripts use this version's options. It is run to
/// ask, where it can run.
fn check_version(binary: &Path) -> Result<()> {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return Ok(());
    }
    let ours = format!("leasejudge {}", env!("CARGO_PKG_VERSION"));
    let output = std::process::Command::new(binary)
        .arg("--version")
        .output()
        .with_context(|| {
            format!(
                "cannot run --binary {} to ask its version",
                binary.display()
            )
        })?;
    let theirs = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if !output.status.success() || theirs != ours {
        anyhow::bail!(
            "--binary {} is not {ours} (it says {:?}{}): the autograder's scripts use this \
             version's options",
            binary.display(),
            theirs,
            if output.status.success() {
                String::new()
            } else {
                format!(", {}", String::from_utf8_lossy(&output.stderr).trim())
            }
        );
    }
    Ok(())
}

/// What the binary needs of the machine that runs it, as the build's summary says it.
pub(super) fn needs(c_library: CLibrary) -> String {
    match c_library {
        CLibrary::Static => "x86-64 Linux, statically linked".to_owned(),
        CLibrary::Shared(Some(version)) => format!("x86-64 Linux, glibc {version} or later"),
        CLibrary::Shared(None) => "x86-64 Linux".to_owned(),
    }
}

/// The case files' names in the bundle, as the build's summary lists them.
pub(super) fn case_names(prepared: &Prepared) -> String {
    prepared
        .cases
        .iter()
        .map(|(_, name)| name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
