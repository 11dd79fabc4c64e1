//! `leasejudge autograder`: an autograder ready to upload, built from the answer key and the
//! lab's case files: a Gradescope zip, a PrairieLearn question directory or a GitHub
//! Classroom template repository. The command line only: the work is [`crate::bundle`].
//! Each platform's subcommand is its arguments' file in `autograder/`, made a subcommand from
//! the library's list of platforms (`leasejudge::autograder_platforms!`) under its results
//! format's word.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::bundle::{Build, Inputs};
use crate::choice::Choice;
use crate::commands::args::GradedColumns;
use crate::commands::args::ReadArgs;
use crate::commands::choice::choice;
use crate::commands::grade::Weights;
use crate::grading::class::{parse_points, parse_weights, Feedback};
use crate::grading::parse_column_list;
use crate::ops::grade::GradeFormat;

fn parse_weights_arg(text: &str) -> Result<Weights, String> {
    parse_weights(text).map(Weights)
}

fn parse_graded(text: &str) -> Result<GradedColumns, String> {
    parse_column_list(text).map(GradedColumns)
}

/// Write an autograder ready to upload: a Gradescope zip, a PrairieLearn question, or a GitHub
/// Classroom template repository.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
The key is validated and the case files are adjudicated before anything is written: a \
malformed key, a case file with input errors, or a key that disagrees with the contract's \
verdicts on the case files (a case the key has and no case file does, one the case files \
have and the key does not, or a graded column that differs) is refused, every problem \
listed as FILE:LINE: column: message (value), and nothing is written.

Exit status: 0 the autograder was written; 2 it was not (bad input or usage).")]
pub struct Args {
    #[command(subcommand)]
    platform: PlatformArgs,
}

/// Declares each platform's module of arguments, the subcommands, and the autograder each
/// builds, from the library's list of platforms: a subcommand's word is its platform's
/// (`grade -f`'s for its results), its help its `Args`' doc comment.
macro_rules! platform_subcommands {
    ($($variant:ident $module:ident $options:ident;)+) => {
        $(mod $module;)+

        #[derive(Debug, clap::Subcommand)]
        enum PlatformArgs {
            $(
                #[command(name = <GradeFormat as Choice>::name(GradeFormat::$variant))]
                $variant($module::Args),
            )+
        }

        /// The platforms' results formats, in the list's order.
        #[cfg(test)]
        const PLATFORMS: &[GradeFormat] = &[$(GradeFormat::$variant),+];

        impl Args {
            /// The autograder to build.
            fn build(&self) -> Build {
                match &self.platform {
                    $(PlatformArgs::$variant(args) => Build::$variant(args.options()),)+
                }
            }
        }
    };
}

leasejudge::autograder_platforms!(platform_subcommands);

/// What both platforms' autograders are built from.
#[derive(Debug, clap::Args)]
struct Common {
    /// The answer key: the golden matrix (CSV, or JSON or a workbook by extension).
    #[arg(long, value_name = "KEY")]
    golden: PathBuf,

    /// The lab's case files (or directories of them): adjudicated to check the key, and
    /// carried for --feedback hint and shortcut.
    #[arg(long = "cases", value_name = "CASEFILE", num_args = 1.., required = true)]
    cases: Vec<PathBuf>,

    /// What learners see (as `grade`): none, cases, hint, shortcut or full [default: cases].
    #[arg(long, value_parser = choice::<Feedback>(), value_name = "LEVEL")]
    feedback: Option<Feedback>,

    /// Partial credit (as `grade`), e.g. `decision=2,reason=1`.
    #[arg(long, value_name = "COLUMN=WEIGHT,...", value_parser = parse_weights_arg)]
    weights: Option<Weights>,

    /// The assignment's points (as `grade`): the score is scaled to them [default: the raw
    /// points, one per case or the sum of the weights]. The build prints the total to set on
    /// the platform.
    #[arg(long, value_name = "N", value_parser = parse_points)]
    points: Option<f64>,

    /// The columns to grade (as `grade`): names separated by commas, or `all`.
    #[arg(long, value_name = "COLUMNS", default_value = "decision,reason", value_parser = parse_graded)]
    columns: GradedColumns,

    /// The leasejudge binary to carry [default: this one]: an x86-64 Linux executable of
    /// this version (the platforms run x86-64 Linux).
    #[arg(long, value_name = "PATH")]
    binary: Option<PathBuf>,

    /// How learners' CSV files and workbooks are read (as `grade`).
    #[command(flatten)]
    read: ReadArgs,
}

impl Common {
    fn inputs(&self) -> Inputs {
        Inputs {
            golden: self.golden.clone(),
            cases: self.cases.clone(),
            feedback: self.feedback.unwrap_or(Feedback::Cases),
            weights: self.weights.as_ref().map(|w| w.0.clone()),
            points: self.points,
            columns: self.columns.0.clone(),
            binary: self.binary.clone(),
            read: self.read.options(),
        }
    }
}

/// Runs `autograder`.
pub fn run(args: &Args) -> Result<ExitCode> {
    crate::bundle::build(&args.build()).map(super::exit_code)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of `markdown`'s section `heading` (to the next heading of its level or above).
    fn section<'a>(markdown: &'a str, heading: &str) -> Vec<&'a str> {
        let level = heading.chars().take_while(|c| *c == '#').count();
        markdown
            .lines()
            .skip_while(|line| *line != heading)
            .skip(1)
            .take_while(|line| {
                let hashes = line.chars().take_while(|c| *c == '#').count();
                hashes == 0 || hashes > level
            })
            .collect()
    }

    /// A platform is registered whole or not at all: each of the list is a subcommand of
    /// `autograder` with its help, a results format of one submission of `grade -f` with its
    /// help line, a row of the grading guide's table of formats and a mention of its
    /// subcommand there; and nothing else is a subcommand of `autograder` or a results format.
    #[test]
    fn every_platform_is_registered_whole() {
        let words: Vec<&str> = PLATFORMS.iter().map(|format| format.name()).collect();
        let cli = crate::cli::command();
        let autograder = cli
            .find_subcommand("autograder")
            .expect("autograder is a command");
        let subcommands: Vec<&str> = autograder
            .get_subcommands()
            .map(|sub| sub.get_name())
            .filter(|name| *name != "help")
            .collect();
        assert_eq!(subcommands, words, "autograder's subcommands");
        let results: Vec<&str> = GradeFormat::ALL
            .iter()
            .filter(|format| format.is_one_submission())
            .map(|format| format.name())
            .collect();
        assert_eq!(results, words, "grade -f's results formats");
        let guide = include_str!("../../docs/grading.md");
        let formats = section(guide, "## Formats");
        for format in PLATFORMS {
            let word = format.name();
            let sub = autograder.find_subcommand(word).expect("a subcommand");
            assert!(
                sub.get_about()
                    .is_some_and(|about| !about.to_string().is_empty()),
                "autograder {word} has no help"
            );
            assert!(!format.help().is_empty(), "-f {word} has no help line");
            assert!(
                formats
                    .iter()
                    .any(|line| line.starts_with(&format!("| `{word}` | "))),
                "docs/grading.md's table of formats has no row for `{word}`"
            );
            assert!(
                guide.contains(&format!("autograder {word}")),
                "docs/grading.md never names `autograder {word}`"
            );
        }
    }
}
