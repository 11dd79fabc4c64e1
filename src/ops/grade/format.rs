//! `grade -f`: a report format `check` writes too (the class's report in it), or a platform's
//! results file of one submission. The report formats are `report`'s table; the results files
//! are the platforms' (the list of platforms, `autograder_platforms!`): each platform's row,
//! beside its writer in `report/`, names its word, its help line, whether it runs `grade
//! --autograder`, and its writer. Every message that lists the formats reads them from the
//! rows.

use anyhow::{Context, Result};

use crate::choice::Choice;
use crate::grading::class::ClassReport;
use crate::output::{listed, Content, Output};
use crate::report::{PlatformResults, ReportFormat, ResultsOptions, Style};

use super::Options;

/// Declares [`GradeFormat`]: the report formats, then each platform's results file, in the
/// list of platforms' order.
macro_rules! grade_formats {
    ($($variant:ident $module:ident $options:ident;)+) => {
        /// How `grade`'s report is written: a report format `check` writes too (for a
        /// class), or a platform's results file of one submission.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum GradeFormat {
            /// A format of `check`'s reports: the class's report in it.
            Report(ReportFormat),
            $(
                #[doc = concat!("A platform's results file of one submission (`report::", stringify!($module), "`).")]
                $variant,
            )+
        }

        impl GradeFormat {
            /// The platforms' results files, in `--help`'s order.
            const RESULTS: &'static [GradeFormat] = &[$(GradeFormat::$variant),+];

            /// The platform's results file's row (`None`: a report format).
            fn results(self) -> Option<&'static PlatformResults> {
                match self {
                    GradeFormat::Report(_) => None,
                    $(GradeFormat::$variant => Some(&crate::report::$module::RESULTS),)+
                }
            }
        }
    };
}

crate::autograder_platforms!(grade_formats);

/// How many formats `grade -f` offers.
const FORMATS: usize = <ReportFormat as Choice>::ALL.len() + GradeFormat::RESULTS.len();

/// `grade -f`'s formats: every format `check -f` offers, by the same word, then the
/// platforms' results files.
const EVERY: [GradeFormat; FORMATS] = {
    let reports = <ReportFormat as Choice>::ALL;
    let mut every = [GradeFormat::RESULTS[0]; FORMATS];
    let mut i = 0;
    while i < reports.len() {
        every[i] = GradeFormat::Report(reports[i]);
        i += 1;
    }
    let mut j = 0;
    while j < GradeFormat::RESULTS.len() {
        every[i + j] = GradeFormat::RESULTS[j];
        j += 1;
    }
    every
};

impl Choice for GradeFormat {
    const ALL: &'static [Self] = &EVERY;

    fn name(self) -> &'static str {
        match (self, self.results()) {
            (GradeFormat::Report(format), _) => format.name(),
            (_, Some(results)) => results.word,
            (_, None) => unreachable!("a results file has its row"),
        }
    }

    /// The help lines say what a class's report holds, where `check`'s say what one
    /// submission's does.
    fn help(self) -> &'static str {
        match (self, self.results()) {
            (GradeFormat::Report(format), _) => format.class_help(),
            (_, Some(results)) => results.help,
            (_, None) => unreachable!("a results file has its row"),
        }
    }
}

impl GradeFormat {
    /// What a report in this format holds.
    pub fn content(self) -> Content {
        match self {
            GradeFormat::Report(format) => format.content(),
            _ => Content::Json,
        }
    }

    /// Whether this is an autograder platform's results file.
    pub fn is_platform(self) -> bool {
        self.results().is_some_and(|results| results.autograder)
    }

    /// Whether this reports on one submission.
    pub fn is_one_submission(self) -> bool {
        self.results().is_some()
    }

    /// Writes `report` in this format to `out`, as it is made.
    pub(super) fn write(
        self,
        report: &ClassReport,
        options: &Options,
        out: &mut Output,
    ) -> Result<()> {
        match (self, self.results()) {
            (GradeFormat::Report(format), _) => {
                format.write_class(report, Style::of(out, options.verbose), out)
            }
            (_, Some(results)) => {
                let asked = ResultsOptions {
                    visibility: options.visibility,
                };
                (results.write)(report, &asked, out).context("cannot write the report")
            }
            (_, None) => unreachable!("a results file has its row"),
        }
    }

    /// The formats of one submission, as a message lists them: `-f gradescope, -f
    /// prairielearn and -f github-classroom` (`conjunction`: `and`).
    pub(super) fn one_submission_listed(conjunction: &str) -> String {
        listed(&Self::words(|_| true), conjunction)
    }

    /// The autograder platforms' formats, and `more`, as a message lists them: `-f
    /// gradescope or -f prairielearn` (`conjunction`: `or`).
    pub(super) fn platforms_listed(more: &[&str], conjunction: &str) -> String {
        let mut words = Self::words(|results| results.autograder);
        words.extend(more.iter().map(|word| (*word).to_owned()));
        listed(&words, conjunction)
    }

    /// `-f WORD` of each results file `keep` keeps.
    fn words(keep: impl Fn(&PlatformResults) -> bool) -> Vec<String> {
        Self::RESULTS
            .iter()
            .filter_map(|format| format.results())
            .filter(|results| keep(results))
            .map(|results| format!("-f {}", results.word))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `grade -f` offers every format `check -f` does, by the same word, then the platforms'.
    #[test]
    fn grade_offers_every_report_format() {
        let reports: Vec<GradeFormat> = ReportFormat::ALL
            .iter()
            .map(|format| GradeFormat::Report(*format))
            .collect();
        assert_eq!(GradeFormat::ALL[..reports.len()], reports[..]);
        for format in ReportFormat::ALL {
            assert_eq!(GradeFormat::Report(*format).name(), format.name());
        }
        for format in &GradeFormat::ALL[reports.len()..] {
            assert!(!matches!(format, GradeFormat::Report(_)), "{format:?}");
            assert!(format.results().is_some(), "{format:?}");
        }
    }

    /// The messages list the formats as they were written by hand.
    #[test]
    fn the_messages_list_the_formats_from_the_table() {
        assert_eq!(
            GradeFormat::one_submission_listed("and"),
            "-f gradescope, -f prairielearn and -f github-classroom"
        );
        assert_eq!(
            GradeFormat::platforms_listed(&[], "or"),
            "-f gradescope or -f prairielearn"
        );
        assert_eq!(
            GradeFormat::platforms_listed(&["--lms"], "or"),
            "-f gradescope, -f prairielearn or --lms"
        );
        assert!(GradeFormat::Gradescope.is_platform() && GradeFormat::PrairieLearn.is_platform());
        assert!(!GradeFormat::GithubClassroom.is_platform());
        assert!(GradeFormat::GithubClassroom.is_one_submission());
        assert!(!GradeFormat::Report(ReportFormat::Table).is_one_submission());
    }
}
