//! `check`'s pairs: each case file with the golden file it is checked against, a file with
//! a file or a directory with a directory by name, and golden files no case file claims.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::input::{is_case_file, ErrorKind, InputError, InputErrors};

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

pub(super) fn name(path: &Path) -> String {
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
    let entries = std::fs::read_dir(directory).map_err(|e| {
        InputError::new(
            ErrorKind::Io,
            &name(directory),
            0,
            format!("cannot read directory: {e}"),
        )
    })?;
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
                ErrorKind::Refused,
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
                ErrorKind::Missing,
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
                ErrorKind::Rule,
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
                    ErrorKind::Rule,
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
