//! `leasejudge autograder prairielearn`'s arguments: where the question goes (a directory of
//! its own, or a course), and its `info.json`.

use std::path::PathBuf;

use crate::bundle::{is_uuid, PrairieLearnOptions};

use super::Common;

fn parse_timeout(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(seconds @ 1..=600) => Ok(seconds),
        _ => Err(format!(
            "{text:?} is not a timeout: whole seconds from 1 to 600 (PrairieLearn's limit)"
        )),
    }
}

fn parse_uuid(text: &str) -> Result<String, String> {
    if is_uuid(text) {
        Ok(text.to_ascii_lowercase())
    } else {
        Err(format!(
            "{text:?} is not a UUID (8-4-4-4-12 hexadecimal digits)"
        ))
    }
}

/// A question directory for a PrairieLearn course (questions/<QID>).
#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    common: Common,

    /// A question of its own to write (its name is the question's QID), the binary in its
    /// tests/; one leasejudge wrote before is replaced whole, keeping its uuid.
    #[arg(
        long,
        short = 'o',
        value_name = "QUESTION_DIR",
        required_unless_present = "course",
        conflicts_with_all = ["course", "qid"]
    )]
    output: Option<PathBuf>,

    /// The course to write the question into, as COURSE_DIR/questions/QID: the binary goes
    /// once to COURSE_DIR/serverFilesCourse/leasejudge/, which every leasejudge question of
    /// the course shares.
    #[arg(long, value_name = "COURSE_DIR", requires = "qid")]
    course: Option<PathBuf>,

    /// The question's id in the course: its directory under questions/ (folders separated by
    /// /).
    #[arg(long, value_name = "QID", requires = "course")]
    qid: Option<String>,

    /// The grading image: any, for the statically linked release binary; for a dynamically
    /// linked --binary, one with the GNU C library it needs.
    #[arg(
        long,
        value_name = "IMAGE",
        default_value = "prairielearn/grader-python"
    )]
    image: String,

    /// Seconds a grading job may take (PrairieLearn's `timeout`, at most 600).
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = parse_timeout)]
    timeout: u32,

    /// The question's uuid [default: kept from the question being replaced, else derived
    /// from the question's name, key and options, so the same inputs give the same bytes].
    #[arg(long, value_name = "UUID", value_parser = parse_uuid)]
    uuid: Option<String>,

    /// The question's title.
    #[arg(long, value_name = "TITLE", default_value = "Lease evidence matrix")]
    title: String,

    /// The question's topic.
    #[arg(long, value_name = "TOPIC", default_value = "Leases")]
    topic: String,

    /// Leave out clientFilesQuestion/: by default the question carries the lab's case files
    /// and the blank matrix there, linked from question.html for learners to download (never
    /// the key).
    #[arg(long)]
    no_client_files: bool,
}

impl Args {
    /// The question to build.
    pub(super) fn options(&self) -> PrairieLearnOptions {
        PrairieLearnOptions {
            inputs: self.common.inputs(),
            output: self.output.clone(),
            course: self.course.clone(),
            qid: self.qid.clone(),
            image: self.image.clone(),
            timeout: self.timeout,
            uuid: self.uuid.clone(),
            title: self.title.clone(),
            topic: self.topic.clone(),
            client_files: !self.no_client_files,
        }
    }
}
