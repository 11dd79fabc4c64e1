//! A question leasejudge wrote before: what it holds that leasejudge did not write (a
//! rebuild replaces it whole, so such a file is a reason to refuse), and its uuid, kept.

use std::path::Path;

use anyhow::{Context, Result};

use crate::grading::upload::shown_name;

use super::{is_uuid, BINARY, RUN, WROTE};

/// How many names a refusal lists.
const NAMES_LISTED: usize = 10;

/// Every entry inside `dir`, by its path relative to it (`/`-separated): files, links and
/// anything else, and folders that hold nothing; links are not followed.
fn entries_inside(dir: &Path, prefix: &str, found: &mut Vec<String>) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    let mut names: Vec<_> = entries.filter_map(Result::ok).collect();
    names.sort_by_key(|entry| entry.file_name());
    for entry in names {
        let name = format!("{prefix}{}", shown_name(&entry.file_name()));
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            let before = found.len();
            entries_inside(&entry.path(), &format!("{name}/"), found)?;
            if found.len() == before {
                found.push(format!("{name}/"));
            }
        } else {
            found.push(name);
        }
    }
    Ok(())
}

/// What leasejudge wrote in the question at `dir`, as its script lists it ([`WROTE`]), with
/// the files every question has; for a question written before the script listed them, the
/// files such a question held (the binary, the key and case files in `tests/`).
fn written_by_leasejudge(dir: &Path, inside: &[String]) -> Option<Vec<String>> {
    let script = std::fs::read_to_string(dir.join("tests").join(RUN)).ok()?;
    let mut ours = vec![
        "info.json".to_owned(),
        "question.html".to_owned(),
        format!("tests/{RUN}"),
    ];
    match script.lines().find_map(|line| line.strip_prefix(WROTE)) {
        Some(listed) => ours.extend(serde_json::from_str::<Vec<String>>(listed).ok()?),
        None if script.contains("leasejudge grade --autograder") => {
            let carried = |name: &str| {
                name.strip_prefix("tests/").is_some_and(|file| {
                    !file.contains('/')
                        && (file == BINARY
                            || std::path::Path::new(file).extension().is_some_and(|e| {
                                ["csv", "json", "ndjson", "jsonl", "xlsx", "xlsm", "ods"]
                                    .iter()
                                    .any(|x| e.eq_ignore_ascii_case(x))
                            }))
                })
            };
            ours.extend(inside.iter().filter(|name| carried(name)).cloned());
        }
        None => return None,
    }
    Some(ours)
}

/// What a question directory holds that leasejudge did not write.
enum Foreign {
    /// Nothing at all.
    Empty,
    /// It is no question leasejudge wrote: everything in it.
    NotAQuestion(Vec<String>),
    /// A question leasejudge wrote: the files in it that leasejudge did not write.
    Files(Vec<String>),
}

fn foreign_files(dir: &Path) -> Result<Foreign> {
    let mut inside = Vec::new();
    entries_inside(dir, "", &mut inside)?;
    if inside.is_empty() {
        return Ok(Foreign::Empty);
    }
    let Some(ours) = written_by_leasejudge(dir, &inside) else {
        return Ok(Foreign::NotAQuestion(inside));
    };
    Ok(Foreign::Files(
        inside
            .into_iter()
            .filter(|name| !ours.contains(name))
            .collect(),
    ))
}

/// Checks the question a rebuild took out of place: a file added to it while the new one was
/// written (after [`existing_question`] looked) is no reason to lose it.
pub(super) fn nothing_added(question: &Path, replaced: &Path) -> Result<()> {
    let added = match foreign_files(replaced)? {
        Foreign::Empty => return Ok(()),
        Foreign::Files(added) if added.is_empty() => return Ok(()),
        Foreign::Files(added) | Foreign::NotAQuestion(added) => added,
    };
    anyhow::bail!(
        "{} was changed while it was rebuilt ({} appeared): it is left as it was; run again \
         (nothing was written)",
        question.display(),
        listed_names(&added)
    )
}

/// The uuid of the question leasejudge wrote at `dir` before, if there is one. It is replaced
/// whole, so one that holds anything leasejudge did not write, anywhere inside (an
/// instructor's `tests/grader.py`, `clientFilesQuestion/`), is refused with those names.
pub(super) fn existing_question(dir: &Path) -> Result<Option<String>> {
    match std::fs::symlink_metadata(dir) {
        Err(_) => return Ok(None),
        Ok(meta) if !meta.is_dir() => {
            anyhow::bail!("cannot write {}: it is not a directory", dir.display())
        }
        Ok(_) => {}
    }
    let foreign = match foreign_files(dir)? {
        Foreign::Empty => return Ok(None),
        Foreign::NotAQuestion(inside) => anyhow::bail!(
            "{} exists and is not a question leasejudge wrote (it holds {}): it would be \
             replaced whole, so give a new directory or remove it (nothing was written)",
            dir.display(),
            listed_names(&inside)
        ),
        Foreign::Files(foreign) => foreign,
    };
    if !foreign.is_empty() {
        anyhow::bail!(
            "{} holds {} leasejudge did not write ({}): a rebuild replaces the question whole, \
             so it would delete {}; move {} out of the question, or write another one \
             (nothing was written)",
            dir.display(),
            if foreign.len() == 1 {
                "a file"
            } else {
                "files"
            },
            listed_names(&foreign),
            if foreign.len() == 1 { "it" } else { "them" },
            if foreign.len() == 1 { "it" } else { "them" },
        );
    }
    let uuid = std::fs::read(dir.join("info.json"))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .and_then(|info| info["uuid"].as_str().map(str::to_owned))
        .filter(|uuid| is_uuid(uuid));
    Ok(uuid)
}

/// `a, b and 3 more`.
fn listed_names(names: &[String]) -> String {
    let mut text = names
        .iter()
        .take(NAMES_LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > NAMES_LISTED {
        text.push_str(&format!(" and {} more", names.len() - NAMES_LISTED));
    }
    text
}
