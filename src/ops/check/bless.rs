//! `check --bless`: the engine's matrix of each case file that differs from its golden file
//! (or has none), written beside the golden file as `<golden>.new` for an author to review.

use std::io::Write;

use anyhow::{Context, Result};

use crate::grading::MatrixFileFormat;
use crate::input::Source;
use crate::matrix::{CsvMatrix, JsonMatrix, MatrixEncoding, COLUMNS};
use crate::output::{Content, Output};
use crate::streaming::{Sink, StreamSettings};

use super::pairing::{name, Pairing};
use super::Options;

/// Writes each differing file's engine matrix for its `.new` path, to commit with the report
/// (the file is judged again, straight into the `.new` file: bless is rare, memory is not).
pub(super) fn bless(to_bless: &[&Pairing], options: &Options) -> Result<Vec<Output>> {
    let mut outputs = Vec::with_capacity(to_bless.len());
    for pairing in to_bless {
        let target = &pairing.blessed;
        // `x.csv.new` is written as CSV, `x.json.new` as JSON and `x.xlsx.new` as a
        // workbook: the format of the file it would replace.
        let format = MatrixFileFormat::for_path(&target.with_extension(""));
        let source = Source {
            name: name(&pairing.cases),
            path: Some(pairing.cases.clone()),
            options: options.read.clone(),
        };
        let settings = StreamSettings {
            run_as_of: options.as_of,
            ..StreamSettings::default()
        };
        let encoding: &'static dyn MatrixEncoding = match format {
            MatrixFileFormat::Json => &JsonMatrix,
            MatrixFileFormat::Csv | MatrixFileFormat::Workbook => &CsvMatrix,
        };
        let mut out = Output::open(
            Some(target),
            match format {
                MatrixFileFormat::Csv => Content::Csv,
                MatrixFileFormat::Json => Content::Json,
                MatrixFileFormat::Workbook => Content::Binary,
            },
        )?;
        let cannot = || format!("cannot write {}", target.display());
        let matrix = crate::streaming::judge(
            &[source],
            &settings,
            Sink::Matrix(encoding),
            &mut |_, _, _| {},
        )
        .with_context(cannot)?;
        if format == MatrixFileFormat::Workbook {
            let mut csv_text: Vec<u8> = Vec::new();
            matrix.write_to(&mut csv_text).with_context(cannot)?;
            let mut reader = csv::Reader::from_reader(csv_text.as_slice());
            let mut cells: Vec<Vec<String>> = Vec::new();
            for record in reader.records() {
                cells.push(
                    record
                        .with_context(cannot)?
                        .iter()
                        // A workbook's text cell is never a formula: the value as it is.
                        .map(|cell| crate::output::spreadsheet_value(cell).to_owned())
                        .collect(),
                );
            }
            let bytes = crate::input::workbook::matrix_xlsx("matrix", &COLUMNS, &cells)
                .map_err(std::io::Error::other)
                .with_context(cannot)?;
            out.write_all(&bytes).with_context(cannot)?;
        } else {
            matrix.write_to(&mut out).with_context(cannot)?;
        }
        outputs.push(out);
    }
    Ok(outputs)
}

/// Says what `--bless` wrote (each line fitted to standard error's width).
pub(super) fn say_blessed(to_bless: &[&Pairing], checked: usize) {
    crate::terminal::to_stderr_wrapped(&format!(
        "leasejudge: bless: {} of {} case files differ from their golden files (or have none)",
        to_bless.len(),
        checked
    ));
    for pairing in to_bless {
        crate::terminal::to_stderr_wrapped(&format!(
            "leasejudge: bless: wrote {} for review",
            crate::output::escape_controls(&pairing.blessed.to_string_lossy())
        ));
    }
    if to_bless.is_empty() {
        crate::terminal::to_stderr_wrapped("leasejudge: bless: nothing to write");
    }
}
