//! Adjudicating case files, `adjudicate`'s work: the cases replayed through the engine and
//! the evidence matrix written as CSV, JSON or a table (with `explain`, each case's
//! sentence in a column of its own), and an audit of every row. [`run`] takes plain
//! [`Options`]; the command line makes them (`commands/adjudicate.rs`).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use crate::explain::stream::{DetailedRows, WITNESS_COLUMNS};
use crate::input::{expand_inputs, InputFormat, ReadOptions};
use crate::lease::Timestamp;
use crate::matrix::{CellsMatrix, Column, CsvMatrix, JsonMatrix, MatrixEncoding};
use crate::ops::{source_names, Status};
use crate::output::{check_paths, commit_all, Content, Named, Output};
use crate::report::audit::AuditWriter;
use crate::report::table::{TableColumns, TableStyle, TableWriter};
use crate::streaming::{judge, CaseRecords, Sink, StreamError, StreamSettings};

/// How the matrix is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixFormat {
    /// The matrix of spec section 5 as CSV.
    Csv,
    /// The matrix of spec section 5 as one JSON array.
    Json,
    /// A table for people.
    Table,
}

crate::choice::choices!(MatrixFormat {
    Csv => "csv",
        "The matrix of spec section 5 as CSV";
    Json => "json",
        "The matrix of spec section 5 as one JSON array";
    Table => "table",
        "A table for people";
});

/// What `adjudicate` is asked to do: the command line's options, parsed.
#[derive(Clone, Debug)]
pub struct Options {
    /// Case files, directories of them, or `-` for standard input.
    pub inputs: Vec<PathBuf>,
    /// The matrix's format [default: table on a terminal, else CSV; JSON for a `.json` file].
    pub format: Option<MatrixFormat>,
    /// Where to write the matrix [default: standard output].
    pub output: Option<PathBuf>,
    /// Read every input as this format, whatever its extension.
    pub input_format: Option<InputFormat>,
    /// How CSV files and workbooks are read.
    pub read: ReadOptions,
    /// Judge every case at this instant if it is later than the case's last row.
    pub as_of: Option<Timestamp>,
    /// Where to write the audit, one line per input row (`-`: standard output).
    pub audit: Option<PathBuf>,
    /// Add a `detail` column after `reason`: one sentence per case.
    pub explain: bool,
    /// With `explain`, add each case's minimal witness and whether the search found it
    /// minimal, in two columns after `detail`.
    pub witness: bool,
    /// Threads for reading [default: the number of CPUs].
    pub jobs: Option<usize>,
    /// Cases kept open at once before the oldest is judged and written out.
    pub open_cases: usize,
    /// The table's columns.
    pub columns: Option<TableColumns>,
    /// Every column in the table.
    pub wide: bool,
}

/// Renders the typed rows of `records` (a run whose encoding was [`CellsMatrix`], with
/// `extra` columns after the matrix's) as a table on `out`, a page at a time.
fn render_table(
    records: CaseRecords,
    out: &mut Output,
    style: TableStyle,
    extra: &[&str],
) -> Result<()> {
    let extra: Vec<String> = extra.iter().map(|name| (*name).to_owned()).collect();
    let mut table = TableWriter::new(&mut *out, style, &extra).map_err(anyhow::Error::msg)?;
    let mut cells: Vec<String> = Vec::with_capacity(Column::COUNT + extra.len());
    let mut malformed = false;
    records
        .for_each_cells_record(&mut |_, record| {
            cells.clear();
            for cell in record.all_cells() {
                let Some(cell) = cell else {
                    malformed = true;
                    return Ok(());
                };
                cells.push(cell.to_owned());
            }
            let (matrix, extra) = cells.split_at(cells.len().min(Column::COUNT));
            table.write(matrix, extra)
        })
        .context("cannot write the matrix")?;
    if malformed {
        bail!("cannot read back the matrix: a malformed record");
    }
    table.finish().context("cannot write the matrix")?;
    Ok(())
}

/// The table style of `adjudicate`'s options for `out`.
fn table_style(options: &Options, out: &Output) -> TableStyle {
    let columns = if options.wide {
        TableColumns::All
    } else {
        options.columns.clone().unwrap_or(TableColumns::Default)
    };
    TableStyle::for_output(columns, out)
}

/// Judges the case files `options` name and writes the matrix (and the audit).
pub fn run(options: &Options) -> Result<Status> {
    let audit_to_stdout = options
        .audit
        .as_deref()
        .is_some_and(|p| p.as_os_str() == "-");
    let matrix_to_stdout = options
        .output
        .as_deref()
        .is_none_or(|p| p.as_os_str() == "-");
    if audit_to_stdout && matrix_to_stdout {
        bail!("--audit - streams the audit to standard output; give the matrix a file with -o");
    }
    if options
        .inputs
        .iter()
        .filter(|p| p.as_os_str() == "-")
        .count()
        > 1
    {
        bail!("standard input (-) can be read only once");
    }
    let table_options = options.columns.is_some() || options.wide;
    if table_options && options.format.is_some_and(|f| f != MatrixFormat::Table) {
        // CSV and JSON always carry every matrix column; ignoring the option silently would
        // hide a typo in a column name.
        bail!("--columns and --wide choose the table's columns; they cannot be used with -f csv or -f json");
    }
    let sources = options.read.apply(expand_inputs(&options.inputs)?);
    let mut outputs = vec![match &options.output {
        Some(path) => Named::new("-o", path),
        None => Named::stdout("the matrix"),
    }];
    if let Some(path) = &options.audit {
        outputs.push(Named::new("--audit", path));
    }
    check_paths(&source_names(&sources), &outputs)?;

    let mut audit = match &options.audit {
        Some(path) => Some(AuditWriter::new(
            Output::open(Some(path), Content::Csv)?,
            audit_to_stdout,
        )?),
        None => None,
    };
    let mut audit_error = None;
    let mut on_row = |at: crate::streaming::Location<'_>,
                      row: &crate::input::ParsedRow,
                      outcome: &crate::lease::Outcome| {
        if let Some(writer) = audit.as_mut() {
            if audit_error.is_none() {
                let event = row.row.message.event();
                if let Err(e) = writer.write(&row.case_id, at.file, at.line, event, outcome) {
                    audit_error = Some(e);
                }
            }
        }
    };

    let mut output = Output::open(options.output.as_deref(), Content::Binary)?;
    let format = match options.format {
        Some(format) => format,
        None if table_options => MatrixFormat::Table,
        None => default_format(&options.output, &output),
    };
    output.set_content(match format {
        MatrixFormat::Csv => Content::Csv,
        MatrixFormat::Json => Content::Json,
        MatrixFormat::Table => Content::Text,
    });
    // --explain's sentences come after `reason`, in a column of their own.
    let [witness_lines, witness_minimal] = WITNESS_COLUMNS;
    let extra: &[&str] = match (options.explain, options.witness) {
        (true, true) => &[DETAIL_COLUMN, witness_lines, witness_minimal],
        (true, false) => &[DETAIL_COLUMN],
        (false, _) => &[],
    };
    let style = table_style(options, &output);
    if format == MatrixFormat::Table {
        // An unknown column is a usage error before any input is read.
        let extra: Vec<String> = extra.iter().map(|name| (*name).to_owned()).collect();
        TableWriter::new(std::io::sink(), style.clone(), &extra).map_err(anyhow::Error::msg)?;
    }
    // Finished cases are written out early and memory stays flat; the table's rows are the
    // engine's typed rows, rendered a page at a time.
    let encoding: &'static dyn MatrixEncoding = match format {
        MatrixFormat::Json => &JsonMatrix,
        MatrixFormat::Csv => &CsvMatrix,
        MatrixFormat::Table => &CellsMatrix,
    };
    let sink = if options.explain {
        Sink::Cases(Box::new(DetailedRows {
            encoding,
            run_as_of: options.as_of,
            column: DETAIL_COLUMN,
            witness: options
                .witness
                .then_some(crate::explain::witness::Search::COMMAND),
        }))
    } else {
        Sink::Matrix(encoding)
    };
    let progress = match options.explain {
        false => crate::ops::bytes_bar(&sources),
        true => None,
    };
    let settings = StreamSettings {
        input_format: options.input_format,
        run_as_of: options.as_of,
        open_cases: options.open_cases,
        jobs: options
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .min(crate::limits::MAX_JOBS),
        progress: progress.as_ref().map(crate::terminal::Progress::bytes_read),
        rows_observed: options.audit.is_some(),
        // As --explain always listed them (it kept every case in memory).
        ..StreamSettings::default()
    };
    let judged = judge(&sources, &settings, sink, &mut on_row);
    if let Some(progress) = progress {
        progress.finish_and_clear();
    }
    let records = match judged {
        Ok(records) => records,
        Err(StreamError::Input(errors)) => return Err(errors.into()),
        Err(StreamError::Io(e)) => return Err(e).context("cannot write the matrix"),
    };
    if format == MatrixFormat::Table {
        render_table(records, &mut output, style, extra)?;
    } else {
        write_records(&mut output, encoding, extra, records).context("cannot write the matrix")?;
    }
    if let Some(e) = audit_error {
        return Err(e).context("cannot write the audit");
    }
    commit_with_audit(output, audit)?;
    Ok(Status::Success)
}

/// Writes the whole matrix of `records` as `encoding` to `out`: the engine's matrix rows, or
/// rows with `extra` columns (the header, or the JSON array's brackets, around them).
fn write_records(
    out: &mut impl crate::store::AppendFile,
    encoding: &dyn MatrixEncoding,
    extra: &[&str],
    records: CaseRecords,
) -> std::io::Result<()> {
    if extra.is_empty() {
        return records.write_to(out);
    }
    let rows = records.count();
    encoding.write_header(out, extra)?;
    records.write_to(out)?;
    encoding.write_trailer(out, rows)
}

/// Commits the matrix and the audit together: neither replaces its file unless both were
/// written completely.
fn commit_with_audit(output: Output, audit: Option<AuditWriter<Output>>) -> Result<()> {
    let mut outputs = vec![output];
    if let Some(writer) = audit {
        outputs.push(writer.finish().context("cannot write the audit")?);
    }
    commit_all(outputs)
}

fn default_format(target: &Option<PathBuf>, output: &Output) -> MatrixFormat {
    let json_file = target.as_ref().is_some_and(|p| {
        p.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    });
    if json_file {
        MatrixFormat::Json
    } else if output.is_terminal() {
        MatrixFormat::Table
    } else {
        MatrixFormat::Csv
    }
}

/// The name of the column `--explain` adds after `reason`.
pub const DETAIL_COLUMN: &str = "detail";
