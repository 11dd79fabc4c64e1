//! `grade --autograder`, run as a platform's grading script: a key that cannot be used
//! writes no results, the results of an earlier run go first, and the run's log (its
//! standard output and error, which the platforms keep for the instructor) stays under 1 MB.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

use crate::grading::class::{ClassReport, SubmissionOutcome};
use crate::input::InputErrors;
use crate::ops::Status;
use crate::output::{escape_controls, escape_message};
use crate::report::class_text::{key_lines, score_line};

use super::Options;

/// On an autograder, a golden file that cannot be used writes no results: the platform then
/// reports the run as failed (Gradescope: "The autograder failed to execute correctly";
/// PrairieLearn: the job did not succeed, so the submission is not gradable and costs no
/// attempt) instead of recording a score for every learner. Its problems go in full to
/// standard output, which both platforms show only to instructors.
pub(super) fn refuse_unusable_key(golden: &Path, problems: &InputErrors) -> Status {
    let mut out = std::io::stdout().lock();
    let width = crate::terminal::table_width(std::io::IsTerminal::is_terminal(&out));
    let mut log = Log::within(LOG_LIMIT).wrapped(width);
    log.prose(
        &mut out,
        &format!(
            "the answer key {} cannot be used, so no results were written: the platform \
             reports this run as failed and records no score. Fix the key in the autograder, \
             then regrade. Its problems:",
            escape_controls(&golden.to_string_lossy())
        ),
    );
    for problem in problems {
        log.line(&mut out, &problem.to_string());
    }
    if let Some(line) = problems.unlisted_message() {
        log.line(&mut out, &line);
    }
    log.finish(&mut out);
    let _ = out.flush();
    Status::Trouble
}

/// Removes the results an earlier run left at `path` (a container used again): a run that
/// writes none (its key cannot be used) must leave none, or the platform would read the
/// earlier learner's. Run once `path` is known to be no input.
pub(super) fn remove_earlier_results(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e).with_context(|| {
            format!(
                "cannot remove the results of an earlier run, {}",
                path.display()
            )
        }),
        _ => Ok(()),
    }
}

/// The most bytes an autograder run writes for its instructor: its standard output and error
/// are the run's log (Gradescope's `results/stdout`, PrairieLearn's job log), and a large
/// upload's every problem once made 129 MB of it. 1,000,000 bytes, like the results.
pub(super) const LOG_LIMIT: usize = 1_000_000;

/// Lines written as `leasejudge: LINE` (controls made visible) while they fit in a budget;
/// the lines past it are counted, and [`Log::finish`] says how many.
pub(super) struct Log {
    left: usize,
    left_out: u64,
    /// The width its lines are wrapped to.
    width: usize,
}

impl Log {
    /// A log of at most `limit` bytes (`usize::MAX`: no limit), its lines unwrapped.
    pub(super) fn within(limit: usize) -> Log {
        // Room kept for the last line, which counts what was left out.
        Log {
            left: limit.saturating_sub(200),
            left_out: 0,
            width: usize::MAX,
        }
    }

    /// The log with its lines wrapped to `width` columns (the width rule of the stream it
    /// goes to), each entry's continuation indented.
    pub(super) fn wrapped(self, width: u16) -> Log {
        Log {
            width: usize::from(width),
            ..self
        }
    }

    /// A located problem: one line, whatever its length (as compilers write them, for
    /// editors, `grep` and CI's problem matchers).
    pub(super) fn line(&mut self, out: &mut dyn Write, line: &str) {
        self.entry(out, line, usize::MAX);
    }

    /// A sentence: wrapped to the log's width, its continuation lines indented.
    pub(super) fn prose(&mut self, out: &mut dyn Write, line: &str) {
        self.entry(out, line, self.width);
    }

    fn entry(&mut self, out: &mut dyn Write, line: &str, width: usize) {
        // An entry starts a line of its own: a line break in a name cannot forge another, and
        // a wrapped one's continuation lines are indented. Its parts from input are escaped
        // where the line is made; what is still unsafe is shown here.
        let line = crate::terminal::wrap(
            &format!("leasejudge: {}", escape_message(line)),
            width,
            "  ",
        ) + "\n";
        if self.left_out == 0 && line.len() <= self.left {
            self.left -= line.len();
            let _ = out.write_all(line.as_bytes());
        } else {
            self.left_out += 1;
        }
    }

    pub(super) fn finish(&mut self, out: &mut dyn Write) {
        if self.left_out > 0 {
            let _ = writeln!(
                out,
                "leasejudge: … and {} more line{} not shown: this log is kept under 1 MB",
                self.left_out,
                if self.left_out == 1 { "" } else { "s" }
            );
            self.left_out = 0;
        }
    }
}

/// Trouble goes to standard error too, as with every command, whatever the report's format:
/// what is wrong with an unusable key (`key_trouble`, or the key's problems only as the
/// report shows them, in full with --reveal) and each ungradable submission's problems,
/// unless `problems_shown` (the table on this terminal showed them: they are counted). An
/// autograder's log is the instructor's: kept under 1 MB whatever the upload.
pub(super) fn log_trouble(
    autograder: bool,
    report: &ClassReport,
    key_trouble: Option<&str>,
    problems_shown: bool,
) {
    let mut log = Log::within(if autograder { LOG_LIMIT } else { usize::MAX })
        .wrapped(crate::terminal::stderr_text_width());
    let mut err = std::io::stderr().lock();
    match key_trouble {
        Some(trouble) => log.prose(&mut err, trouble),
        None => {
            for line in key_lines(report) {
                log.line(&mut err, &line);
            }
        }
    }
    let mut ungradable = 0;
    for submission in &report.submissions {
        if let SubmissionOutcome::Ungradable(problems) = &submission.outcome {
            ungradable += 1;
            if !problems_shown {
                for problem in problems {
                    log.line(&mut err, &problem.to_string());
                }
            }
        }
    }
    log.finish(&mut err);
    if ungradable > 0 {
        let _ = writeln!(
            err,
            "leasejudge: {ungradable} submission{} could not be graded{}",
            if ungradable == 1 { "" } else { "s" },
            if problems_shown {
                " (the report above says why)"
            } else {
                ""
            }
        );
    }
}

/// Says the one submission's score and where its results are, for the instructor: standard
/// output is theirs on both platforms.
pub(super) fn say_results(options: &Options, report: &ClassReport) {
    let submission = &report.submissions[0];
    let mut out = std::io::stdout().lock();
    let line = format!(
        "leasejudge: {}: {}; the results are in {}",
        escape_controls(&submission.name),
        score_line(report, submission),
        escape_controls(
            &options
                .output
                .as_deref()
                .unwrap_or(Path::new("-"))
                .to_string_lossy()
        )
    );
    let width = crate::terminal::table_width(std::io::IsTerminal::is_terminal(&out));
    let _ = writeln!(
        out,
        "{}",
        crate::terminal::wrap(&line, usize::from(width), "  ")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_keeps_to_its_budget_and_counts_what_it_leaves_out() {
        let mut log = Log::within(1_000);
        let mut out = Vec::new();
        for i in 0..100 {
            log.line(&mut out, &format!("problem {i:03}: {}", "x".repeat(40)));
        }
        log.finish(&mut out);
        let text = String::from_utf8(out).unwrap();
        assert!(text.len() <= 1_000, "{} bytes", text.len());
        let listed = text.matches("leasejudge: problem ").count();
        assert!(listed > 5, "{text}");
        assert!(
            text.ends_with(&format!(
                "leasejudge: … and {} more lines not shown: this log is kept under 1 MB\n",
                100 - listed
            )),
            "{text}"
        );
        // Control characters in a line are made visible, not written.
        let mut out = Vec::new();
        Log::within(LOG_LIMIT).line(&mut out, "a\u{1b}[31mb\nforged");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "leasejudge: a\\u{1b}[31mb\\u{a}forged\n"
        );
    }
}
