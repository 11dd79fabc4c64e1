//! Spec section 7 as a check a lab designer runs, `reorder`'s work: seeded permutations of
//! each case's renew/progress arrivals tried as the engine closes the case
//! ([`crate::reorder`] explores one case), and a report of the violations of the invariant
//! and the order-sensitive cases. [`run`] takes plain [`Options`]; the command line makes
//! them (`commands/reorder.rs`).

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::{bail, Context, Result};

use crate::input::{
    expand_inputs, thousands, ErrorKind, InputError, InputErrors, InputFormat, ReadOptions,
};
use crate::lease::{Row, Timestamp};
use crate::limits::MAX_REORDER_CASE_ROWS;
use crate::ops::{source_names, Status};
use crate::output::{check_paths, escape_controls, Content, Named, Output};
use crate::reorder::{case_seed, explore_case};
use crate::store::AppendFile;
use crate::store::{Get, Put};
use crate::streaming::{judge, CaseWriter, KeptRows, RecordOut, Sink, StreamError, StreamSettings};

/// What `reorder` is asked to do: the command line's options, parsed.
#[derive(Clone, Debug)]
pub struct Options {
    /// Case files, directories of them, or `-` for standard input.
    pub inputs: Vec<PathBuf>,
    /// How many permutations to try per case.
    pub permutations: usize,
    /// The seed of the permutations.
    pub seed: u64,
    /// Judge whole cases at this instant if it is later than the case's last row.
    pub as_of: Option<Timestamp>,
    /// Read every input as this format, whatever its extension.
    pub input_format: Option<InputFormat>,
    /// How CSV files and workbooks are read.
    pub read: ReadOptions,
    /// Where to write the report [default: standard output].
    pub output: Option<PathBuf>,
}

/// What the report's last line counts, over every case.
#[derive(Debug, Default)]
struct Totals {
    cases: u64,
    tried: u64,
    checked: u64,
    violations: u64,
    sensitive: u64,
}

/// Explores each case as the engine closes it and writes its record: the length of its report
/// lines (its violations of section 7 and whether its decision depends on arrival order), the
/// lines, then its counts ([`Unframed`] reads it). The counts are in the record so that a case
/// that comes back after the engine's window let it go, explored again whole, is counted
/// once: its record takes the place of the first, and the window bounds the cases kept.
struct Explorer {
    permutations: usize,
    seed: u64,
    as_of: Option<Timestamp>,
    /// The most rows of a case explored ([`MAX_REORDER_CASE_ROWS`]; tests use fewer).
    max_case_rows: usize,
    /// The cases too long to explore, by file and case id (a case that comes back is met
    /// again): each an input error, and the run writes nothing.
    too_long: Arc<Mutex<BTreeMap<(String, String), InputError>>>,
}

/// How many counts a record ends with.
const COUNTS: usize = 5;

impl CaseWriter for Explorer {
    fn write_case(
        &mut self,
        _file_index: usize,
        file: &str,
        case_id: &str,
        kept: &KeptRows,
        out: &mut RecordOut<'_>,
    ) -> std::io::Result<bool> {
        if kept.len() > self.max_case_rows {
            let mut first_line = 0;
            kept.visit(&mut |row| {
                first_line = row.line;
                Ok(std::ops::ControlFlow::Break(()))
            })?;
            let error = InputError::new(
                ErrorKind::Limit,
                file,
                first_line,
                format!(
                    "case {} has {} rows, more than the {} reorder explores in one case \
                     (each permutation is replayed from the case's rows in memory)",
                    escape_controls(case_id),
                    thousands(kept.len() as u64),
                    thousands(self.max_case_rows as u64),
                ),
            );
            self.too_long
                .lock()
                .expect("no thread panicked holding it")
                .insert((file.to_owned(), case_id.to_owned()), error);
            // A record of no lines, counted as no case: the run fails before it is read.
            out.put_u64(0);
            out.put_raw(&[0; 8 * COUNTS]);
            return Ok(true);
        }
        let (lines, rows): (Vec<u64>, Vec<Row>) = kept
            .to_vec()?
            .into_iter()
            .map(|kept| (kept.line, kept.row))
            .unzip();
        let findings = explore_case(
            &rows,
            self.permutations,
            case_seed(self.seed, case_id),
            self.as_of,
        );
        let mut text = Vec::new();
        for (permutation, differences) in &findings.violations {
            let what: Vec<String> = differences
                .iter()
                .map(|d| format!("{} {:?} became {:?}", d.column, d.original, d.permuted))
                .collect();
            writeln!(
                text,
                "{}:{}: case {}: VIOLATION of section 7 ({}): {}",
                escape_controls(file),
                lines[permutation.last_slot()],
                escape_controls(case_id),
                permutation.describe(&lines),
                what.join(", ")
            )?;
        }
        if let Some(found) = &findings.order_sensitive {
            writeln!(
                text,
                "{}:{}: case {}: decision depends on arrival order: {} ({}) in file order, {} \
                 ({}) with {}",
                escape_controls(file),
                lines[found.permutation.slots[0]],
                escape_controls(case_id),
                found.original.0,
                found.original.1,
                found.permuted.0,
                found.permuted.1,
                found.permutation.describe(&lines)
            )?;
        }
        out.put_u64(text.len() as u64);
        out.put_raw(&text);
        let counts: [u64; COUNTS] = [
            1,
            findings.tried as u64,
            findings.checked as u64,
            findings.violations.len() as u64,
            u64::from(findings.order_sensitive.is_some()),
        ];
        for count in counts {
            out.put_u64(count);
        }
        Ok(true)
    }
}

/// The report's lines of [`Explorer`]'s records as they are copied out, to `out`, and their
/// counts added up.
struct Unframed<'a, W> {
    out: &'a mut W,
    totals: Totals,
    /// The part of a record being read.
    part: Part,
    /// The bytes of a length or of the counts read so far.
    held: Vec<u8>,
}

/// The parts of a record.
#[derive(Clone, Copy)]
enum Part {
    /// Its lines' length.
    Length,
    /// Its lines, this many bytes of them still to come.
    Lines(u64),
    /// Its counts.
    Counts,
}

impl<W: Write> Unframed<'_, W> {
    /// Takes up to `want` bytes of `bytes` into `held`; returns how many.
    fn hold(&mut self, bytes: &[u8], want: usize) -> usize {
        let n = (want - self.held.len()).min(bytes.len());
        self.held.extend_from_slice(&bytes[..n]);
        n
    }

    /// The counts, once every record was read whole.
    fn totals(self) -> io::Result<Totals> {
        match (self.part, self.held.is_empty()) {
            (Part::Length, true) => Ok(self.totals),
            _ => Err(io::Error::other("a record of the report was cut short")),
        }
    }
}

impl<W: Write> Write for Unframed<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut rest = bytes;
        while !rest.is_empty() {
            match self.part {
                Part::Length => {
                    let n = self.hold(rest, 8);
                    rest = &rest[n..];
                    if self.held.len() == 8 {
                        let len = (&self.held[..]).get_u64()?;
                        self.held.clear();
                        self.part = if len == 0 {
                            Part::Counts
                        } else {
                            Part::Lines(len)
                        };
                    }
                }
                Part::Lines(left) => {
                    let n = usize::try_from(left).unwrap_or(usize::MAX).min(rest.len());
                    self.out.write_all(&rest[..n])?;
                    rest = &rest[n..];
                    let left = left - n as u64;
                    self.part = if left == 0 {
                        Part::Counts
                    } else {
                        Part::Lines(left)
                    };
                }
                Part::Counts => {
                    let n = self.hold(rest, 8 * COUNTS);
                    rest = &rest[n..];
                    if self.held.len() == 8 * COUNTS {
                        let mut counts = &self.held[..];
                        let totals = &mut self.totals;
                        for total in [
                            &mut totals.cases,
                            &mut totals.tried,
                            &mut totals.checked,
                            &mut totals.violations,
                            &mut totals.sensitive,
                        ] {
                            *total += counts.get_u64()?;
                        }
                        self.held.clear();
                        self.part = Part::Length;
                    }
                }
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl<W: Write> AppendFile for Unframed<'_, W> {}

/// Explores the cases of the case files `options` name and writes the report; differences
/// are violations of the invariant.
pub fn run(options: &Options) -> Result<Status> {
    if options
        .inputs
        .iter()
        .filter(|p| p.as_os_str() == "-")
        .count()
        > 1
    {
        bail!("standard input (-) can be read only once");
    }
    let sources = options.read.apply(expand_inputs(&options.inputs)?);
    let output_name = match &options.output {
        Some(path) => Named::new("-o", path),
        None => Named::stdout("the report"),
    };
    check_paths(&source_names(&sources), &[output_name])?;
    let progress = crate::ops::spinner("reorder", &sources);
    let too_long = Arc::new(Mutex::new(BTreeMap::new()));
    let explorer = Explorer {
        permutations: options.permutations,
        seed: options.seed,
        as_of: options.as_of,
        max_case_rows: MAX_REORDER_CASE_ROWS,
        too_long: Arc::clone(&too_long),
    };
    let settings = StreamSettings {
        input_format: options.input_format,
        ..StreamSettings::in_file_order()
    };
    let found = judge(
        &sources,
        &settings,
        Sink::Cases(Box::new(explorer)),
        &mut |_, _, _| {},
    );
    let found = match found {
        Ok(found) => found,
        Err(error) => {
            if let Some(progress) = progress {
                progress.finish_and_clear();
            }
            return match error {
                StreamError::Input(errors) => Err(errors.into()),
                StreamError::Io(e) => Err(e.into()),
            };
        }
    };
    let too_long = std::mem::take(&mut *too_long.lock().expect("the run is over"));
    if !too_long.is_empty() {
        if let Some(progress) = progress {
            progress.finish_and_clear();
        }
        return Err(InputErrors::from(too_long.into_values().collect::<Vec<_>>()).into());
    }
    let mut out = Output::open(options.output.as_deref(), Content::Text)?;
    let mut unframed = Unframed {
        out: &mut out,
        totals: Totals::default(),
        part: Part::Length,
        held: Vec::new(),
    };
    found.write_to(&mut unframed)?;
    let Totals {
        cases,
        tried,
        checked,
        violations,
        sensitive,
    } = unframed.totals()?;
    writeln!(
        out,
        "{} case{}, {tried} permutation{} tried (seed {}), {checked} within the invariant's \
         scope: {violations} violation{}, {sensitive} order-sensitive case{}",
        cases,
        if cases == 1 { "" } else { "s" },
        if tried == 1 { "" } else { "s" },
        options.seed,
        if violations == 1 { "" } else { "s" },
        if sensitive == 1 { "" } else { "s" },
    )?;
    if let Some(progress) = progress {
        progress.finish_and_clear();
    }
    out.commit().context("cannot write the report")?;
    Ok(if violations > 0 {
        Status::Differences
    } else {
        Status::Success
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Source;

    /// A case longer than the rows reorder explores is a located input error naming it (its
    /// first line, its length and the limit); a case within the limit is not.
    #[test]
    fn a_case_too_long_to_explore_is_a_located_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cases.csv");
        let mut text = String::from(
            "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n\
             short,offer,2026-01-01T10:00:00Z,job-s,L-S,1,w,30\n\
             long,offer,2026-01-01T10:00:00Z,job-l,L-L,1,w,30\n",
        );
        for second in 1..=4 {
            text.push_str(&format!("long,observe,2026-01-01T10:00:0{second}Z,,,,,\n"));
        }
        std::fs::write(&path, text).unwrap();
        let too_long = Arc::new(Mutex::new(BTreeMap::new()));
        let explorer = Explorer {
            permutations: 4,
            seed: 0,
            as_of: None,
            max_case_rows: 3,
            too_long: Arc::clone(&too_long),
        };
        let sources = [Source::file(&path)];
        let found = judge(
            &sources,
            &StreamSettings::in_file_order(),
            Sink::Cases(Box::new(explorer)),
            &mut |_, _, _| {},
        );
        assert!(found.is_ok());
        let errors: Vec<String> = too_long
            .lock()
            .unwrap()
            .values()
            .map(ToString::to_string)
            .collect();
        let name = path.display();
        assert_eq!(
            errors,
            [format!(
                "{name}:3: case long has 5 rows, more than the 3 reorder explores in one case \
                 (each permutation is replayed from the case's rows in memory)"
            )]
        );
    }
}
