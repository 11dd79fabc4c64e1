//! `leasejudge adjudicate`: replay case files and write the evidence matrix (and an audit).

use std::io::Seek;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use crate::explain::stream::{DetailedRows, WITNESS_COLUMNS};
use crate::input::{expand_inputs, InputFormat, ReadArgs};
use crate::lease::Timestamp;
use crate::matrix::COLUMNS;
use crate::matrix::{CsvMatrix, JsonMatrix, MatrixEncoding};
use crate::output::{check_paths, commit_all, Content, Named, Output};
use crate::report::audit::AuditWriter;
use crate::report::table::{TableColumns, TableStyle, TableWriter};
use crate::store::TempWriter;
use crate::streaming::{judge, CaseRecords, Sink, StreamError, StreamSettings, DEFAULT_OPEN_CASES};

/// How the matrix is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MatrixFormat {
    /// The matrix of spec section 5 as CSV.
    Csv,
    /// The matrix of spec section 5 as one JSON array.
    Json,
    /// A table for people.
    Table,
}

/// Replay case files through the lease rules and write the evidence matrix.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Exit status: 0 the matrix was written; 2 bad input or usage (every problem is listed as \
FILE:LINE: column: message (value), and no output file is written or replaced).")]
pub struct Args {
    /// Case files (CSV, JSON, NDJSON or a workbook by extension), directories (every case file in them, in
    /// name order), or `-` for standard input.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Output format [default: table on a terminal, else csv; json when -o ends in .json].
    #[arg(long, short = 'f', value_enum)]
    pub format: Option<MatrixFormat>,

    /// Write the matrix to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Read every input as this format, whatever its extension (needed for standard input,
    /// which is otherwise read as CSV).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormat>,

    #[command(flatten)]
    #[allow(missing_docs)]
    pub read: ReadArgs,

    /// Judge every case at this RFC 3339 instant if it is later than the case's last row.
    #[arg(long, value_name = "TIMESTAMP", value_parser = parse_timestamp)]
    pub as_of: Option<Timestamp>,

    /// Also write one CSV line per input row (case_id, file, line, event, disposition,
    /// reason) to FILE; `-` streams it to standard output as rows are read.
    #[arg(long, value_name = "FILE")]
    pub audit: Option<PathBuf>,

    /// Add a `detail` column after `reason`: one sentence per case naming the rows that
    /// decided it (the sentence of `leasejudge explain`).
    #[arg(long)]
    pub explain: bool,

    /// With --explain, add two columns after `detail`: `witness`, the lines of a minimal
    /// witness (rows that, replayed alone, give the case's decision and reason, none of which
    /// can be left out), `;`-joined; and `witness_minimal`, `false` when the search stopped at
    /// its budget of replayed rows (see `leasejudge explain --witness`).
    #[arg(long, requires = "explain")]
    pub witness: bool,

    /// Threads for reading several input files at once, or the two halves of one CSV file of
    /// 4 MiB or more [default: the number of CPUs]; 1 to 256. The output is the same for any N.
    #[arg(long, value_name = "N", value_parser = crate::limits::parse_jobs)]
    pub jobs: Option<usize>,

    /// Cases kept open at once (per half, for a file read as two halves) before the oldest is
    /// judged and written out; a case that continues after that is still judged correctly: its
    /// own rows are read again. 1 to 1000000.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_OPEN_CASES,
          value_parser = crate::limits::parse_open_cases)]
    pub open_cases: usize,

    /// The table's columns: names separated by commas (matrix columns, `findings`, `detail`),
    /// `default` (case_id, decision, reason, findings) or `all`. Implies `-f table`; with
    /// `-f csv` or `-f json` (which always have every matrix column) it is a usage error.
    #[arg(long, value_name = "COLUMNS", value_parser = TableColumns::parse)]
    pub columns: Option<TableColumns>,

    /// Show every column in the table (as --columns all): a vertical record per case when
    /// they cannot fit the terminal. Implies `-f table`; a usage error with `-f csv` or `-f json`.
    #[arg(long, conflicts_with = "columns")]
    pub wide: bool,
}

/// Renders the CSV matrix in `spool` (with `extra` columns after the matrix's) as a table on
/// `out`.
fn render_spooled_table(
    spool: TempWriter<std::fs::File>,
    out: &mut Output,
    style: TableStyle,
    extra: &[&str],
) -> Result<()> {
    let mut file = spool.0;
    file.seek(std::io::SeekFrom::Start(0))?;
    let mut reader = csv::Reader::from_reader(std::io::BufReader::new(file));
    let extra: Vec<String> = extra.iter().map(|name| (*name).to_owned()).collect();
    let mut table = TableWriter::new(&mut *out, style, &extra).map_err(anyhow::Error::msg)?;
    let mut record = csv::StringRecord::new();
    let mut cells: Vec<String> = Vec::with_capacity(COLUMNS.len() + extra.len());
    while reader
        .read_record(&mut record)
        .context("cannot read back the matrix")?
    {
        cells.clear();
        // The values, as the matrix's CSV carries them inert (`'=x` is `=x`).
        cells.extend(
            record
                .iter()
                .map(|cell| crate::output::spreadsheet_value(cell).to_owned()),
        );
        let (matrix, extra) = cells.split_at(cells.len().min(COLUMNS.len()));
        table
            .write(matrix, extra)
            .context("cannot write the matrix")?;
    }
    table.finish().context("cannot write the matrix")?;
    Ok(())
}

/// The table style of `adjudicate`'s options for `out`.
fn table_style(args: &Args, out: &Output) -> TableStyle {
    let columns = if args.wide {
        TableColumns::All
    } else {
        args.columns.clone().unwrap_or(TableColumns::Default)
    };
    TableStyle::for_output(columns, out)
}

/// Parses a command-line timestamp with the contract's grammar.
pub fn parse_timestamp(text: &str) -> Result<Timestamp, String> {
    Timestamp::parse(text.trim()).map_err(|e| e.to_string())
}

/// Runs `adjudicate`.
pub fn run(args: &Args) -> Result<ExitCode> {
    let audit_to_stdout = args.audit.as_deref().is_some_and(|p| p.as_os_str() == "-");
    let matrix_to_stdout = args.output.as_deref().is_none_or(|p| p.as_os_str() == "-");
    if audit_to_stdout && matrix_to_stdout {
        bail!("--audit - streams the audit to standard output; give the matrix a file with -o");
    }
    if args.inputs.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        bail!("standard input (-) can be read only once");
    }
    let table_options = args.columns.is_some() || args.wide;
    if table_options && args.format.is_some_and(|f| f != MatrixFormat::Table) {
        // CSV and JSON always carry every matrix column; ignoring the option silently would
        // hide a typo in a column name.
        bail!("--columns and --wide choose the table's columns; they cannot be used with -f csv or -f json");
    }
    let sources = args.read.apply(expand_inputs(&args.inputs)?);
    let mut outputs = vec![match &args.output {
        Some(path) => Named::new("-o", path),
        None => Named::stdout("the matrix"),
    }];
    if let Some(path) = &args.audit {
        outputs.push(Named::new("--audit", path));
    }
    check_paths(&source_names(&sources), &outputs)?;

    let mut audit = match &args.audit {
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

    let mut output = Output::open(args.output.as_deref(), Content::Binary)?;
    let format = match args.format {
        Some(format) => format,
        None if table_options => MatrixFormat::Table,
        None => default_format(&args.output, &output),
    };
    output.set_content(match format {
        MatrixFormat::Csv => Content::Csv,
        MatrixFormat::Json => Content::Json,
        MatrixFormat::Table => Content::Text,
    });
    // --explain's sentences come after `reason`, in a column of their own.
    let [witness_lines, witness_minimal] = WITNESS_COLUMNS;
    let extra: &[&str] = match (args.explain, args.witness) {
        (true, true) => &[DETAIL_COLUMN, witness_lines, witness_minimal],
        (true, false) => &[DETAIL_COLUMN],
        (false, _) => &[],
    };
    let style = table_style(args, &output);
    if format == MatrixFormat::Table {
        // An unknown column is a usage error before any input is read.
        let extra: Vec<String> = extra.iter().map(|name| (*name).to_owned()).collect();
        TableWriter::new(std::io::sink(), style.clone(), &extra).map_err(anyhow::Error::msg)?;
    }
    // Finished cases are written out early and memory stays flat; the table streams as CSV
    // to a temporary file, read back a page at a time.
    let encoding: &'static dyn MatrixEncoding = match format {
        MatrixFormat::Json => &JsonMatrix,
        MatrixFormat::Csv | MatrixFormat::Table => &CsvMatrix,
    };
    let sink = if args.explain {
        Sink::Cases(Box::new(DetailedRows {
            encoding,
            run_as_of: args.as_of,
            column: DETAIL_COLUMN,
            witness: args
                .witness
                .then_some(crate::explain::witness::Search::COMMAND),
        }))
    } else {
        Sink::Matrix(encoding)
    };
    let progress = match args.explain {
        false => crate::terminal::bytes_bar(&sources),
        true => None,
    };
    let settings = StreamSettings {
        input_format: args.input_format,
        run_as_of: args.as_of,
        open_cases: args.open_cases,
        jobs: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .min(crate::limits::MAX_JOBS),
        progress: progress.as_ref().map(crate::terminal::Progress::bytes_read),
        rows_observed: args.audit.is_some(),
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
        // The matrix is streamed to a temporary file as CSV, then read back a page at a time.
        let mut spool = TempWriter(crate::store::scratch_file()?);
        write_records(&mut spool, encoding, extra, records).context("cannot write the matrix")?;
        render_spooled_table(spool, &mut output, style, extra)?;
    } else {
        write_records(&mut output, encoding, extra, records).context("cannot write the matrix")?;
    }
    if let Some(e) = audit_error {
        return Err(e).context("cannot write the audit");
    }
    commit_with_audit(output, audit)?;
    Ok(ExitCode::SUCCESS)
}

/// Writes the whole matrix of `records` as `encoding` to `out`: the engine's matrix rows, or
/// rows with `extra` columns (the header, or the JSON array's brackets, around them).
fn write_records(
    out: &mut impl crate::output::AppendFile,
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

/// The names of the files `sources` reads, for [`check_paths`] (standard input as `-`).
pub fn source_names(sources: &[crate::input::Source]) -> Vec<Named<'_>> {
    sources
        .iter()
        .map(|source| match &source.path {
            Some(path) => Named::new("input", path),
            None => Named::new("input", std::path::Path::new("-")),
        })
        .collect()
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
