//! `grade`'s options checked before anything is read: an option the format cannot honour
//! is a usage error, and no output may be an input or another output.

use std::path::Path;

use anyhow::Result;

use crate::grading::submission_file::is_symbolic_link;
use crate::ops::usage;
use crate::output::{check_paths, Named};

use super::{GradeFormat, Options};

/// An option the format cannot honour is a usage error, not ignored in silence.
pub(super) fn check_format_options(options: &Options, format: GradeFormat) -> Result<()> {
    if options.visibility.is_some() && format != GradeFormat::Gradescope {
        return Err(usage(if format == GradeFormat::PrairieLearn {
            "--visibility cannot be honoured with -f prairielearn: PrairieLearn shows external \
             grading results at once, and its results have no visibility (hide scores with the \
             assessment's own settings)"
        } else {
            "--visibility is used only with -f gradescope"
        }));
    }
    if options.points.is_some() && !format.is_platform() && options.lms.is_none() {
        return Err(usage(&format!(
            "--points scales a platform's score: it is used only with {}",
            GradeFormat::platforms_listed(&["--lms"], "or")
        )));
    }
    if options.verbose && format.is_one_submission() {
        return Err(usage(&format!(
            "-v lists every case in the table; {} have a test per case already",
            GradeFormat::one_submission_listed("and")
        )));
    }
    if options.lms.is_some() && format.is_one_submission() {
        return Err(usage(&format!(
            "--lms grades a class: {} report on one submission",
            GradeFormat::one_submission_listed("and")
        )));
    }
    if options.autograder {
        if !format.is_platform() {
            return Err(usage(&format!(
                "--autograder runs as a platform's grading script: give {}",
                GradeFormat::platforms_listed(&[], "or")
            )));
        }
        if options
            .output
            .as_deref()
            .is_none_or(|p| p.as_os_str() == "-")
        {
            return Err(usage(
                "--autograder needs -o FILE: the results file the platform reads",
            ));
        }
    }
    Ok(())
}

/// Before anything is read: no output may be an input or another output. A clash with the
/// golden file is reported without its name unless `reveal`, since learners may see it.
pub(super) fn check_outputs(options: &Options, submissions: &[&Path], reveal: bool) -> Result<()> {
    let mut outputs = vec![match &options.output {
        Some(path) => Named::new("-o", path),
        None => Named::stdout("the report"),
    }];
    if let Some(path) = &options.gradebook {
        outputs.push(Named::new("--gradebook", path));
    }
    if let Some(path) = &options.item_analysis {
        outputs.push(Named::new("--item-analysis", path));
    }
    // A submission that is a symbolic link is never read (it is ungradable), so it is no
    // input: a learner's link to an output does not stop the class's run.
    let mut inputs: Vec<Named<'_>> = submissions
        .iter()
        .filter(|path| !is_symbolic_link(path))
        .map(|path| Named::new("submission", path))
        .collect();
    if let Some(path) = &options.baseline {
        inputs.push(Named::new("--baseline", path));
    }
    if let Some(path) = &options.roster {
        inputs.push(Named::new("--roster", path));
    }
    if let Some(path) = &options.groups {
        inputs.push(Named::new("--groups", path));
    }
    if options.lms.is_some() {
        inputs.extend(
            options
                .submissions
                .iter()
                .map(|p| Named::new("the download", p)),
        );
    }
    inputs.extend(options.cases.iter().map(|path| Named::new("--cases", path)));
    check_paths(&inputs, &outputs)?;
    // A download's folder is an input whole: an output in it would be an entry of no
    // learner's in the next run.
    if let (Some(_), [download]) = (options.lms, options.submissions.as_slice()) {
        if let Some(folder) = std::fs::canonicalize(download).ok().filter(|p| p.is_dir()) {
            let named = [
                ("-o", &options.output),
                ("--gradebook", &options.gradebook),
                ("--item-analysis", &options.item_analysis),
            ];
            for (option, path) in named {
                let Some(path) = path else { continue };
                let parent = match path.parent() {
                    Some(parent) if !parent.as_os_str().is_empty() => parent,
                    _ => Path::new("."),
                };
                if std::fs::canonicalize(parent).is_ok_and(|p| p.starts_with(&folder)) {
                    return Err(usage(&format!(
                        "{option} {} is inside the download {}, an input: write it elsewhere \
                         (nothing was written)",
                        path.display(),
                        download.display()
                    )));
                }
            }
        }
    }
    let golden = [Named::new("--golden", &options.golden)];
    match check_paths(&golden, &outputs) {
        Err(_) if !reveal => Err(anyhow::anyhow!(
            "an output and the golden file are the same file; an output may not be an input (nothing \
             was written)"
        )),
        result => Ok(result?),
    }
}
