//! A Gradescope autograder: a zip with `setup.sh` and `run_autograder` at its root, the
//! binary, the key and the case files, written atomically.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use zip::write::SimpleFileOptions;

use crate::ops::{usage, Status};
use crate::output::{Content, Output};
use crate::report::class_text::number;
use crate::report::platform_results::Visibility;

use super::binary::{CLibrary, GlibcVersion};
use super::carried::carried;
use super::prepare::{case_names, needs, prepare, Inputs, Prepared};
use super::{run_script, setup_script, Autograder, BinaryAt, RunScript, BINARY, RUN, SETUP};

/// Gradescope: `/autograder`, the upload in `submission/`, the bundle in `source/`.
pub(super) const SCRIPT: RunScript = RunScript {
    results: &crate::report::gradescope::RESULTS,
    root: "/autograder",
    bundle: "source",
    upload: "submission",
    how: "# Gradescope runs this for each submission, as root, from /autograder (a copy of it is\n\
          # /autograder/run_autograder): the upload is in /autograder/submission, and the\n\
          # results go to /autograder/results/results.json.",
    makes_executable: false,
    lists_wrote: false,
};

/// Gradescope's default base image and its GNU C library.
const GRADESCOPE_IMAGE: (&str, GlibcVersion) = ("Ubuntu 22.04", GlibcVersion(2, 35));

/// A Gradescope autograder to build.
#[derive(Clone, Debug)]
pub struct GradescopeOptions {
    /// What it is built from.
    pub inputs: Inputs,
    /// Who sees the results, and when.
    pub visibility: Option<Visibility>,
    /// The zip to write.
    pub output: PathBuf,
}

impl Autograder for GradescopeOptions {
    fn build(&self) -> Result<Status> {
        gradescope(self)
    }
}

/// Builds the zip `options` describe and says what it holds and how to set it up.
fn gradescope(options: &GradescopeOptions) -> Result<Status> {
    if options.output.as_os_str() == "-" {
        return Err(usage("-o - is not allowed: the zip is written to a file"));
    }
    let prepared = prepare(&options.inputs, options.visibility, &options.output)?;
    write_zip(&options.output, &prepared)?;
    let (image, has) = GRADESCOPE_IMAGE;
    // What was written, for the instructor: said if standard output takes it (the run is
    // done either way). Names from the command line and the case files: no line of it is
    // a workflow command.
    let mut out = crate::output::InertWriter::new(Vec::new(), crate::output::Syntax::Text);
    writeln!(
        out,
        "leasejudge: wrote {}: {SETUP}, {RUN}, {BINARY} ({}), {} ({} cases), {}",
        options.output.display(),
        needs(prepared.c_library),
        prepared.options.key,
        prepared.key_cases,
        case_names(&prepared)
    )?;
    match prepared.c_library {
        CLibrary::Static => writeln!(
            out,
            "leasejudge: upload it on the assignment's Configure Autograder page, on any base \
             image (the binary is statically linked)"
        )?,
        CLibrary::Shared(glibc) => writeln!(
            out,
            "leasejudge: upload it on the assignment's Configure Autograder page, on a base \
             image with glibc {} or later (the default, {image}, has {has})",
            glibc.map_or_else(|| "any".to_owned(), |v| v.to_string())
        )?,
    }
    writeln!(
        out,
        "leasejudge: a submission scores out of {points}: set the assignment's autograder points \
         to {points} (--points N scales the score to another total)",
        points = number(prepared.total_points)
    )?;
    if let Ok(out) = out.finish() {
        super::say(&out);
    }
    Ok(Status::Success)
}

/// A file's bytes as a zip entry's options: deflated, the given Unix mode, the zip format's
/// earliest time (the same inputs give the same bytes), zip64 for a file over 4 GiB.
fn zip_options(mode: u32, bytes: u64) -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(mode)
        .last_modified_time(zip::DateTime::default())
        .large_file(bytes >= u64::from(u32::MAX))
}

/// The zip's output. Once a write or seek has failed (a full disk), the rest is dropped: the
/// archive's writer, dropped on the error's way out, then finishes the archive into nothing
/// (seeks keep a position of their own, so its checks still hold) instead of failing again
/// and printing its own error (a Debug dump) to standard error. The output is dropped
/// uncommitted either way.
struct ZipOutput {
    out: Output,
    failed: bool,
    /// Where the next byte goes, and the end of what was written.
    position: u64,
    end: u64,
}

impl Write for ZipOutput {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = if self.failed {
            buf.len()
        } else {
            let written = self.out.write(buf);
            self.failed = written.is_err();
            written?
        };
        self.position += n as u64;
        self.end = self.end.max(self.position);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.failed {
            return Ok(());
        }
        let flushed = self.out.flush();
        self.failed = flushed.is_err();
        flushed
    }
}

impl io::Seek for ZipOutput {
    fn seek(&mut self, pos: io::SeekFrom) -> io::Result<u64> {
        self.position = if self.failed {
            let from = |base: u64, delta: i64| base.saturating_add_signed(delta);
            match pos {
                io::SeekFrom::Start(at) => at,
                io::SeekFrom::Current(delta) => from(self.position, delta),
                io::SeekFrom::End(delta) => from(self.end, delta),
            }
        } else {
            let sought = self.out.seek(pos);
            self.failed = sought.is_err();
            sought?
        };
        Ok(self.position)
    }
}

/// Writes the Gradescope zip atomically: its scripts at the root (mode 0755), the binary, the
/// key and the case files, each streamed in.
fn write_zip(path: &Path, prepared: &Prepared) -> Result<()> {
    let mut zip = zip::ZipWriter::new(ZipOutput {
        out: Output::open(Some(path), Content::Binary)?,
        failed: false,
        position: 0,
        end: 0,
    });
    let what = || format!("cannot write {}", path.display());
    let mut add = |name: &str, mode: u32, contents: &mut dyn Read, bytes: u64| -> Result<()> {
        zip.start_file(name, zip_options(mode, bytes))
            .with_context(what)?;
        io::copy(contents, &mut zip).with_context(what)?;
        Ok(())
    };
    let setup = setup_script(prepared.c_library);
    add(SETUP, 0o755, &mut setup.as_bytes(), setup.len() as u64)?;
    let run = run_script(
        &SCRIPT,
        &prepared.options,
        BinaryAt::Bundle,
        &[],
    );
    add(RUN, 0o755, &mut run.as_bytes(), run.len() as u64)?;
    let mut carry = |source: &Path, name: &str, mode: u32| -> Result<()> {
        let mut file = carried(&prepared.stamps, source)?;
        let bytes = file.file.metadata().map_or(0, |m| m.len());
        add(name, mode, &mut file, bytes)
    };
    carry(&prepared.binary, BINARY, 0o755)?;
    carry(&prepared.key, &prepared.options.key, 0o644)?;
    for (case_file, name) in &prepared.cases {
        carry(case_file, name, 0o644)?;
    }
    let out = zip.finish().with_context(what)?;
    out.out.commit()
}
