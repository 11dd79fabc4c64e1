//! The report formats of `check` and `grade`, as one table: each format's row names its
//! word, its help lines, what its file holds, which extension of an `-o` file chooses it, and
//! its writer, a [`ReportWriter`] in the format's own file (`json.rs`, ...). Every report goes
//! through the row: a new format is its file and its row here, and a compile error until both
//! are written.

mod github;
mod json;
mod junit;
mod markdown;
mod table;

use std::path::PathBuf;

use anyhow::Result;

use crate::grading::class::ClassReport;
use crate::grading::{Column, GradeReport};
use crate::input::InputErrors;
use crate::output::{Content, Output};

/// What a report format writes: `check`'s report of its case files, `grade`'s report of a
/// class, and the report of the input errors that kept either from grading. Each format's
/// own file implements it; its row in [`ReportFormat`]'s table names it.
pub(crate) trait ReportWriter: Sync {
    /// Writes `check`'s report, as it is made (a report may list millions of cases).
    fn check(&self, report: &GradeReport, style: Style, out: &mut dyn std::io::Write)
        -> Result<()>;

    /// Writes `grade`'s report of a class, as it is made (a class of large matrices makes a
    /// large document).
    fn class(&self, report: &ClassReport, style: Style, out: &mut dyn std::io::Write)
        -> Result<()>;

    /// The report of the input errors that kept `command` from grading; `None` when the
    /// format's reader sees standard error's list instead (a table).
    fn problems(&self, command: &str, errors: &InputErrors) -> Result<Option<String>>;
}

/// How a report is drawn where it goes: what only a table uses.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Style {
    /// Statuses coloured (`terminal::use_color`).
    pub color: bool,
    /// Every case listed, not only those that differ (`-v`).
    pub verbose: bool,
    /// The report goes to a terminal (a table is as wide as it: `terminal::table_width`).
    pub terminal: bool,
}

/// Which matched cases a report lists one by one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Listing {
    /// Every one (a record or a passing test per case).
    Always,
    /// Every one with `-v`; otherwise they are counted.
    Verbose,
    /// None: they are counted.
    Never,
}

/// A report format's row of the table.
struct FormatRow {
    /// The word `-f` takes.
    name: &'static str,
    /// `check -f`'s help line: what one run's report holds.
    help: &'static str,
    /// `grade -f`'s help line: what a class's report holds.
    class_help: &'static str,
    /// What its file holds.
    content: Content,
    /// The extensions (lower case) of an `-o` file that choose it when `-f` is not given.
    extensions: &'static [&'static str],
    /// Which matched cases it lists.
    listing: Listing,
    /// Whether a report of problems also goes to the step summary (`$GITHUB_STEP_SUMMARY`).
    step_summary: bool,
    /// Whether `grade`'s report shows each ungradable submission's problems (then standard
    /// error, on the same terminal, only counts them).
    shows_problems: bool,
    /// Its writer, in the format's own file.
    writer: &'static dyn ReportWriter,
}

/// Declares [`ReportFormat`] from its table: each variant with its row, in `--help`'s order.
/// The enum, its list and its row lookup come from this one list, so a format is one entry.
macro_rules! report_formats {
    ($($(#[$doc:meta])* $variant:ident => $row:expr;)+) => {
        /// How a grade report is written: the formats `check` and `grade` share.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum ReportFormat {
            $($(#[$doc])* $variant,)+
        }

        impl ReportFormat {
            /// Every format, in `--help`'s order.
            const EVERY: &'static [Self] = &[$(Self::$variant),+];

            /// The format's row.
            fn row(self) -> &'static FormatRow {
                match self {
                    $(Self::$variant => &$row,)+
                }
            }
        }
    };
}

report_formats! {
    /// A table per case and a summary, for people.
    Table => FormatRow {
        name: "table",
        help: "A table per case and a summary, for people",
        class_help: "Per submission a table of its cases, then the class summary, for people",
        content: Content::Text,
        extensions: &[],
        listing: Listing::Verbose,
        step_summary: false,
        shows_problems: true,
        writer: &table::Table,
    };
    /// One JSON document.
    Json => FormatRow {
        name: "json",
        help: "One JSON document",
        class_help:
            "One JSON document: every submission, per-case and per-column breakdown, the summary",
        content: Content::Json,
        extensions: &["json"],
        listing: Listing::Always,
        step_summary: false,
        shows_problems: false,
        writer: &json::Json,
    };
    /// JUnit XML: one testsuite per file, one testcase per case.
    Junit => FormatRow {
        name: "junit",
        help: "JUnit XML: one testsuite per file, one testcase per case",
        class_help: "JUnit XML: a testsuite per submission, a testcase per case",
        content: Content::Markup,
        extensions: &["xml"],
        listing: Listing::Always,
        step_summary: false,
        shows_problems: false,
        writer: &junit::Junit,
    };
    /// GitHub Actions workflow commands (`::error file=...,line=...::`).
    Github => FormatRow {
        name: "github",
        help: "GitHub Actions workflow commands (`::error file=...,line=...::`)",
        class_help: "GitHub Actions workflow commands",
        content: Content::WorkflowCommands,
        extensions: &[],
        listing: Listing::Never,
        step_summary: true,
        shows_problems: false,
        writer: &github::Github,
    };
    /// Markdown, for a CI step summary.
    Markdown => FormatRow {
        name: "markdown",
        help: "Markdown, for a CI step summary",
        class_help: "Markdown, for a CI step summary",
        content: Content::Text,
        extensions: &["md", "markdown"],
        listing: Listing::Never,
        step_summary: false,
        shows_problems: false,
        writer: &markdown::Markdown,
    };
}

impl crate::choice::Choice for ReportFormat {
    const ALL: &'static [Self] = Self::EVERY;

    fn name(self) -> &'static str {
        self.row().name
    }

    fn help(self) -> &'static str {
        self.row().help
    }
}

impl ReportFormat {
    /// What a report in this format holds.
    pub fn content(self) -> Content {
        self.row().content
    }

    /// `grade -f`'s help line: what a class's report in this format holds.
    pub fn class_help(self) -> &'static str {
        self.row().class_help
    }

    /// Whether `grade`'s report in this format shows each ungradable submission's problems.
    pub fn shows_problems(self) -> bool {
        self.row().shows_problems
    }

    /// Whether a report of problems in this format also goes to the step summary.
    pub(crate) fn appends_step_summary(self) -> bool {
        self.row().step_summary
    }

    /// Writes `check`'s report in this format to `out`, as it is made.
    pub(crate) fn write_check(
        self,
        report: &GradeReport,
        style: Style,
        out: &mut Output,
    ) -> Result<()> {
        self.row().writer.check(report, style, out)
    }

    /// Writes `grade`'s report of a class in this format to `out`, as it is made.
    pub(crate) fn write_class(
        self,
        report: &ClassReport,
        style: Style,
        out: &mut Output,
    ) -> Result<()> {
        self.row().writer.class(report, style, out)
    }

    /// The report in this format of the input errors that kept `command` from grading;
    /// `None` when its reader sees standard error's list instead.
    pub(crate) fn problems(self, command: &str, errors: &InputErrors) -> Result<Option<String>> {
        self.row().writer.problems(command, errors)
    }
}

/// What a grade report is made of and where it goes: the options `check` and `grade` share.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// The columns graded.
    pub columns: Vec<Column>,
    /// The report's format [default: by the output's extension].
    pub format: Option<ReportFormat>,
    /// Where the report is written [default: standard output].
    pub output: Option<PathBuf>,
    /// In the table, list every case, not only those that differ.
    pub verbose: bool,
}

impl ReportOptions {
    /// The report's format: the one asked for, else the one the output's extension implies.
    pub fn format(&self) -> ReportFormat {
        self.format
            .unwrap_or_else(|| default_format(self.output.as_deref()))
    }

    /// Whether the report lists matched cases one by one: JSON and JUnit do (a record or a
    /// passing test per case), the table with `--verbose`; the others only count them.
    pub fn lists_matched(&self) -> bool {
        match self.format().row().listing {
            Listing::Always => true,
            Listing::Verbose => self.verbose,
            Listing::Never => false,
        }
    }
}

/// The format an output file's extension implies; a table otherwise.
pub fn default_format(output: Option<&std::path::Path>) -> ReportFormat {
    let extension = output.and_then(crate::input::lowercase_extension);
    ReportFormat::EVERY
        .iter()
        .copied()
        .find(|format| {
            extension
                .as_deref()
                .is_some_and(|extension| format.row().extensions.contains(&extension))
        })
        .unwrap_or(ReportFormat::Table)
}

impl Style {
    /// The style of a report written to `out`: coloured as `terminal::use_color` says.
    pub(crate) fn of(out: &Output, verbose: bool) -> Style {
        Style {
            color: crate::terminal::use_color(out.is_terminal()),
            verbose,
            terminal: out.is_terminal(),
        }
    }

    /// The widest a table may be: the one width rule of every table, coloured or not, on a
    /// terminal or piped.
    pub(crate) fn width(self) -> u16 {
        crate::terminal::table_width(self.terminal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::Choice;
    use std::path::Path;

    /// An `-o` file's extension chooses the format whose row lists it, in any case; any other
    /// file, or none, a table.
    #[test]
    fn the_extension_chooses_the_format_listing_it() {
        for (file, format) in [
            ("report.xml", ReportFormat::Junit),
            ("report.JSON", ReportFormat::Json),
            ("report.md", ReportFormat::Markdown),
            ("report.markdown", ReportFormat::Markdown),
            ("report.txt", ReportFormat::Table),
            ("report", ReportFormat::Table),
        ] {
            assert_eq!(default_format(Some(Path::new(file))), format, "{file}");
        }
        assert_eq!(default_format(None), ReportFormat::Table);
    }

    /// No two rows share a word or an extension: `-f` and `-o` choose one format each.
    #[test]
    fn each_word_and_extension_chooses_one_format() {
        let mut words = std::collections::HashSet::new();
        let mut extensions = std::collections::HashSet::new();
        for format in ReportFormat::ALL {
            assert!(words.insert(format.name()), "{format:?}");
            for extension in format.row().extensions {
                assert!(extensions.insert(*extension), "{extension}");
                assert_eq!(*extension, extension.to_lowercase());
            }
        }
    }

    /// JSON and JUnit list every matched case, the table with `-v` only, the others never.
    #[test]
    fn which_reports_list_matched_cases() {
        let options = |format, verbose| ReportOptions {
            columns: Vec::new(),
            format: Some(format),
            output: None,
            verbose,
        };
        for (format, quiet, verbose) in [
            (ReportFormat::Table, false, true),
            (ReportFormat::Json, true, true),
            (ReportFormat::Junit, true, true),
            (ReportFormat::Github, false, false),
            (ReportFormat::Markdown, false, false),
        ] {
            assert_eq!(options(format, false).lists_matched(), quiet, "{format:?}");
            assert_eq!(options(format, true).lists_matched(), verbose, "{format:?}");
        }
    }
}
