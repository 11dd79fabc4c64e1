//! Files as people save them (issue 16; spec sections 2 and 8): matrices exported the way
//! Excel and LibreOffice export them, `.xlsx` and `.ods` workbooks, case files in any
//! delimiter, and the errors for what cannot be read, all through the `leasejudge` binary.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use rust_xlsxwriter::{ExcelDateTime, Format, Workbook};

struct Run {
    status: i32,
    stdout: String,
    stderr: String,
}

fn leasejudge(args: &[&str]) -> Run {
    let output = crate::common::leasejudge(args)
        .env("COLUMNS", "1000")
        .output();
    Run {
        status: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn path_text(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The CSV files directly in `dir` of the repository, in name order.
fn csv_files(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "csv"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{dir} has CSV files");
    files
}

fn read_rows(path: &Path) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .unwrap();
    reader
        .records()
        .map(|record| record.unwrap().iter().map(str::to_owned).collect())
        .collect()
}

/// How a spreadsheet writes a CSV file.
struct CsvStyle {
    delimiter: u8,
    bom: bool,
    line_end: &'static str,
    quote_all: bool,
}

fn write_csv(rows: &[Vec<String>], style: &CsvStyle) -> Vec<u8> {
    let mut writer = csv::WriterBuilder::new()
        .delimiter(style.delimiter)
        .terminator(csv::Terminator::Any(b'\n'))
        .quote_style(if style.quote_all {
            csv::QuoteStyle::Always
        } else {
            csv::QuoteStyle::Necessary
        })
        .from_writer(Vec::new());
    for row in rows {
        writer.write_record(row).unwrap();
    }
    let text = String::from_utf8(writer.into_inner().unwrap()).unwrap();
    // Line ends inside quoted cells stay `\n`, as spreadsheets write them; record ends change.
    let mut bytes = Vec::new();
    if style.bom {
        bytes.extend_from_slice(b"\xEF\xBB\xBF");
    }
    let mut in_quotes = false;
    for c in text.chars() {
        if c == '"' {
            in_quotes = !in_quotes;
        }
        if c == '\n' && !in_quotes {
            bytes.extend_from_slice(style.line_end.as_bytes());
        } else {
            let mut buf = [0; 4];
            bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    bytes
}

/// A canonical timestamp's parts, if `cell` is one (`2026-01-01T10:00:55.25Z`).
fn timestamp(cell: &str) -> Option<(&str, &str, Option<&str>)> {
    let body = cell.strip_suffix('Z')?;
    let (date, time) = body.split_once('T')?;
    let (time, fraction) = match time.split_once('.') {
        Some((time, fraction)) => (time, Some(fraction)),
        None => (time, None),
    };
    (date.len() == 10 && time.len() == 8).then_some((date, time, fraction))
}

/// What Excel does to a matrix it opens and saves as "CSV (semicolon)": timestamps become
/// `2026-01-01 10:00:55` (milliseconds shown as `.250`), booleans `TRUE`/`FALSE`.
fn excel_reformat(cell: &str) -> String {
    if let Some((date, time, fraction)) = timestamp(cell) {
        return match fraction {
            Some(fraction) => format!("{date} {time}.{fraction:0<3}"),
            None => format!("{date} {time}"),
        };
    }
    match cell {
        "true" => "TRUE".into(),
        "false" => "FALSE".into(),
        _ => cell.into(),
    }
}

/// What a person typing into a spreadsheet (or its number formats) may do to values that
/// grading must still accept (spec section 8).
fn hand_edited(column: &str, cell: &str) -> String {
    if cell.is_empty() {
        return String::new();
    }
    match column {
        "generation" | "renew_sequence" => format!("0{cell}"),
        "progress_sequence" => format!("{cell}.0"),
        "lease_duration" => format!("PT{cell}S"),
        "lease_expired" => if cell == "true" { "yes" } else { "no" }.into(),
        "ownership_conflict" => if cell == "true" { "1" } else { "0" }.into(),
        "stale_generation" | "late_progress" => {
            let mut items: Vec<&str> = cell.split(';').collect();
            items.reverse();
            items.join(" ; ")
        }
        "decision" | "reason" | "ack_state" => cell.to_lowercase(),
        // A timestamp without its offset (read as UTC).
        _ if timestamp(cell).is_some() => cell.trim_end_matches('Z').to_owned(),
        _ => cell.to_owned(),
    }
}

fn grade_all(submission: &Path, golden: &Path, extra: &[&str]) -> Run {
    let mut args = vec![
        "grade",
        path_text(submission),
        "--golden",
        path_text(golden),
        "--columns",
        "all",
    ];
    args.extend_from_slice(extra);
    leasejudge(&args)
}

fn assert_full_marks(run: &Run, what: &str) {
    assert_eq!(run.status, 0, "{what}: {}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("score 100.0%"),
        "{what}: {}",
        run.stdout
    );
}

fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn excel_and_libreoffice_csv_exports_grade_at_full_marks() {
    let dir = temp_dir();
    let styles = [
        (
            "excel",
            CsvStyle {
                delimiter: b';',
                bom: true,
                line_end: "\r\n",
                quote_all: false,
            },
        ),
        (
            "libreoffice",
            CsvStyle {
                delimiter: b'\t',
                bom: false,
                line_end: "\n",
                quote_all: true,
            },
        ),
        (
            "classic-mac",
            CsvStyle {
                delimiter: b',',
                bom: false,
                line_end: "\r",
                quote_all: false,
            },
        ),
    ];
    for golden in csv_files("golden") {
        let rows = read_rows(&golden);
        let header = rows[0].clone();
        for (name, style) in &styles {
            let exported: Vec<Vec<String>> = std::iter::once(header.clone())
                .chain(
                    rows[1..]
                        .iter()
                        .map(|row| row.iter().map(|cell| excel_reformat(cell)).collect()),
                )
                .collect();
            let file = dir.path().join(format!(
                "{name}-{}",
                golden.file_name().unwrap().to_string_lossy()
            ));
            fs::write(&file, write_csv(&exported, style)).unwrap();
            assert_full_marks(&grade_all(&file, &golden, &[]), &file.to_string_lossy());
        }
        // The same hand-edited values, as a sanity check that they really differ in text.
        let edited: Vec<Vec<String>> = std::iter::once(header.clone())
            .chain(rows[1..].iter().map(|row| {
                row.iter()
                    .zip(&header)
                    .map(|(cell, column)| hand_edited(column, cell))
                    .collect()
            }))
            .collect();
        let file = dir.path().join(format!(
            "edited-{}",
            golden.file_name().unwrap().to_string_lossy()
        ));
        fs::write(&file, write_csv(&edited, &styles[0].1)).unwrap();
        assert_full_marks(&grade_all(&file, &golden, &[]), &file.to_string_lossy());
    }
}

#[test]
fn a_reformatted_value_that_is_wrong_still_counts_wrong() {
    // Leniency undoes formatting, not mistakes: one second off, or a different integer.
    let dir = temp_dir();
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/probes.csv");
    let mut rows = read_rows(&golden);
    rows[1][7] = "2026-01-01 10:01:26".into(); // expires_at of probe-1: golden 10:01:25
    rows[2][3] = "2.0".into(); // generation of probe-2: golden 1
    let file = dir.path().join("wrong.csv");
    fs::write(
        &file,
        write_csv(
            &rows,
            &CsvStyle {
                delimiter: b';',
                bom: true,
                line_end: "\r\n",
                quote_all: false,
            },
        ),
    )
    .unwrap();
    let run = grade_all(&file, &golden, &[]);
    assert_eq!(run.status, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("wrong.csv: 2/4 (50.0%)")
            && run.stdout.matches("mismatched").count() == 2,
        "{}",
        run.stdout
    );
}

/// Writes `rows` as an `.xlsx` the way a spreadsheet stores typed cells: whole numbers as
/// numbers, timestamps (to the millisecond) as date-time cells, booleans as booleans.
fn write_xlsx(rows: &[Vec<String>], path: &Path, sheet: &str) {
    let mut workbook = Workbook::new();
    let worksheet = workbook.add_worksheet();
    worksheet.set_name(sheet).unwrap();
    let date_format = Format::new().set_num_format("yyyy-mm-dd hh:mm:ss.000");
    for (r, row) in rows.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            let (r, c) = (r as u32, c as u16);
            let whole = !cell.is_empty()
                && cell.len() < 15
                && cell.bytes().all(|b| b.is_ascii_digit())
                && (cell == "0" || !cell.starts_with('0'));
            if whole {
                worksheet
                    .write_number(r, c, cell.parse::<f64>().unwrap())
                    .unwrap();
            } else if cell == "true" || cell == "false" {
                worksheet.write_boolean(r, c, cell == "true").unwrap();
            } else if let Some((_, _, fraction)) =
                timestamp(cell).filter(|(_, _, f)| f.is_none_or(|f| f.len() <= 3))
            {
                let _ = fraction;
                let datetime = ExcelDateTime::parse_from_str(cell).unwrap();
                worksheet
                    .write_datetime_with_format(r, c, &datetime, &date_format)
                    .unwrap();
            } else if !cell.is_empty() {
                worksheet.write_string(r, c, cell).unwrap();
            }
        }
    }
    workbook.save(path).unwrap();
}

#[test]
fn xlsx_workbooks_grade_at_full_marks() {
    let dir = temp_dir();
    for golden in csv_files("golden") {
        let rows = read_rows(&golden);
        let file = dir.path().join(format!(
            "{}.xlsx",
            golden.file_stem().unwrap().to_string_lossy()
        ));
        write_xlsx(&rows, &file, "Sheet1");
        assert_full_marks(&grade_all(&file, &golden, &[]), &file.to_string_lossy());
        // A workbook is a golden file too (strictly read: its cells come out canonical).
        let same = leasejudge(&[
            "grade",
            path_text(&golden),
            "--golden",
            path_text(&file),
            "--columns",
            "all",
        ]);
        assert_full_marks(&same, "xlsx as golden");
    }
}

#[test]
fn ods_workbooks_made_by_odfpy_grade_at_full_marks() {
    for stem in ["probes", "lesson-headings"] {
        let ods = format!("tests/data/spreadsheets/{stem}.ods");
        let golden = format!("golden/{stem}.csv");
        let run = leasejudge(&[
            "grade",
            &ods,
            "--golden",
            &golden,
            "--columns",
            "all",
            "--sheet",
            "Matrix",
        ]);
        assert_full_marks(&run, &ods);
        // Typed cells read in canonical form: the workbook would pass as a golden file.
        let options = leasejudge::input::ReadOptions {
            delimiter: None,
            sheet: Some("Matrix".into()),
        };
        let every: Vec<leasejudge::grading::Column> = leasejudge::grading::Column::all().collect();
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(&ods);
        let matrix = leasejudge::grading::MatrixRead::submission(&every, &options)
            .read(leasejudge::grading::MatrixInput::Path(&path), &ods)
            .unwrap();
        assert!(leasejudge::grading::golden_errors(&matrix).is_empty());
        // The first sheet holds notes, not the matrix: without --sheet, the one sheet whose
        // first row is a matrix header is read (issue 29).
        let run = leasejudge(&["grade", &ods, "--golden", &golden, "--columns", "all"]);
        assert_full_marks(&run, &format!("{ods} without --sheet"));
        // Named, the notes are read, and are no matrix.
        let run = leasejudge(&["grade", &ods, "--golden", &golden, "--sheet", "Notes"]);
        assert_eq!(run.status, 2, "{}", run.stdout);
        assert!(
            run.stderr
                .contains(&format!("{ods}[Notes]:1: header: no case_id column")),
            "{}",
            run.stderr
        );
    }
    let run = leasejudge(&[
        "grade",
        "tests/data/spreadsheets/probes.ods",
        "--golden",
        "golden/probes.csv",
        "--sheet",
        "Answers",
    ]);
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains(
            "tests/data/spreadsheets/probes.ods: no sheet \"Answers\"; the workbook has \"Notes\", \"Matrix\""
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn case_files_in_any_delimiter_or_a_workbook_give_the_same_matrix() {
    let dir = temp_dir();
    for case_file in csv_files("cases") {
        let expected = leasejudge(&["adjudicate", path_text(&case_file), "--format", "csv"]);
        assert_eq!(expected.status, 0, "{}", expected.stderr);
        let rows = read_rows(&case_file);
        let stem = case_file
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let semicolon = dir.path().join(format!("{stem}-semicolon.csv"));
        fs::write(
            &semicolon,
            write_csv(
                &rows,
                &CsvStyle {
                    delimiter: b';',
                    bom: true,
                    line_end: "\r\n",
                    quote_all: false,
                },
            ),
        )
        .unwrap();
        let tab = dir.path().join(format!("{stem}-tab.csv"));
        fs::write(
            &tab,
            write_csv(
                &rows,
                &CsvStyle {
                    delimiter: b'\t',
                    bom: false,
                    line_end: "\r",
                    quote_all: true,
                },
            ),
        )
        .unwrap();
        let workbook = dir.path().join(format!("{stem}.xlsx"));
        write_xlsx(&rows, &workbook, "Cases");
        for file in [&semicolon, &tab, &workbook] {
            for jobs in ["1", "2"] {
                let run = leasejudge(&[
                    "adjudicate",
                    path_text(file),
                    "--format",
                    "csv",
                    "--jobs",
                    jobs,
                ]);
                assert_eq!(run.status, 0, "{}: {}", file.display(), run.stderr);
                assert!(
                    run.stdout == expected.stdout,
                    "{} differs from {}",
                    file.display(),
                    case_file.display()
                );
            }
        }
    }
}

#[test]
fn the_delimiter_is_detected_or_forced_and_a_failed_detection_says_what_it_tried() {
    let dir = temp_dir();
    let piped = dir.path().join("piped.csv");
    fs::write(
        &piped,
        "case_id|event|observed_at|job_id|lease_id|generation|holder|lease_duration\n\
         c1|offer|2026-01-01T10:00:00Z|j|L|1|w|30\n",
    )
    .unwrap();
    for command in ["adjudicate", "validate", "explain", "reorder"] {
        let run = leasejudge(&[command, path_text(&piped)]);
        assert_eq!(run.status, 2, "{command}: {}", run.stdout);
        assert!(
            run.stderr.contains(&format!(
                "{}:1: header: no case_id column: the header has one cell, \"case_id|event|observed_at|job_id|lease_id|generation|holder|lease_duration\"; tried \",\" \";\" tab",
                piped.display()
            )),
            "{command}: {}",
            run.stderr
        );
        let forced = leasejudge(&[command, path_text(&piped), "--delimiter", "|"]);
        assert_eq!(forced.status, 0, "{command}: {}", forced.stderr);
    }
    let run = leasejudge(&[
        "adjudicate",
        path_text(&piped),
        "--format",
        "csv",
        "--delimiter",
        "|",
    ]);
    assert!(
        run.stdout.contains("\nc1,j,L,1,w,2026-01-01T10:00:00Z,30,"),
        "{}",
        run.stdout
    );

    // Forcing the wrong delimiter reads one column, and says so.
    let run = leasejudge(&["adjudicate", "cases/probes.csv", "--delimiter", "semicolon"]);
    assert_eq!(run.status, 2);
    assert!(
        run.stderr
            .contains("cases/probes.csv:1: header: no case_id column: split by \";\" (as --delimiter says), the header has one cell, \"case_id,event,"),
        "{}",
        run.stderr
    );
    let run = leasejudge(&["adjudicate", "cases/probes.csv", "--delimiter", "pipe"]);
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains("\"pipe\" is not a delimiter"),
        "{}",
        run.stderr
    );

    // A submission: the same detection, the same message; grade and check take --delimiter.
    let submission = dir.path().join("answers.csv");
    fs::write(
        &submission,
        "case_id|decision|reason\nprobe-1|ACTIVE|stale_generation\n",
    )
    .unwrap();
    let run = leasejudge(&[
        "grade",
        path_text(&submission),
        "--golden",
        "golden/probes.csv",
    ]);
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains(&format!(
            "{}:1: header: no case_id column: the header has one cell, \"case_id|decision|reason\"; tried \",\" \";\" tab",
            submission.display()
        )),
        "{}",
        run.stderr
    );
    let run = leasejudge(&[
        "grade",
        path_text(&submission),
        "--golden",
        "golden/probes.csv",
        "--delimiter",
        "|",
    ]);
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains(": 1/4 (25.0%)")
            && run.stdout.matches("the key has this case").count() == 3,
        "{}",
        run.stdout
    );
    let run = leasejudge(&[
        "check",
        "cases/probes.csv",
        "--golden",
        "golden/probes.csv",
        "--delimiter",
        "tab",
    ]);
    assert_eq!(run.status, 2);
}

#[test]
fn submissions_are_as_strict_as_case_files() {
    let dir = temp_dir();
    for (text, message) in [
        (
            "case_id,decision,reason\nprobe-1,ACTIVE\n",
            ":2: the row has 2 cells; the header has 3",
        ),
        (
            "case_id,decision,reason\nprobe-1,ACTIVE,stale_generation,extra\n",
            ":2: the row has 4 cells; the header has 3",
        ),
        (
            "case_id,decision,reason\nprobe-1,ACTIVE,stale_generation\nprobe-2,\"EXPIRED,expired\n",
            ":3: unterminated quote: the file ends inside a quoted cell",
        ),
    ] {
        let file = dir.path().join("s.csv");
        fs::write(&file, text).unwrap();
        let run = leasejudge(&["grade", path_text(&file), "--golden", "golden/probes.csv"]);
        assert_eq!(run.status, 2, "{text}");
        assert!(
            run.stderr.contains(&format!("{}{message}", file.display())),
            "{text}: {}",
            run.stderr
        );
        // A case file with the same fault is refused the same way.
        let cases = dir.path().join("c.csv");
        fs::write(&cases, text.replace("decision,reason", "event,observed_at")).unwrap();
        let run = leasejudge(&["validate", path_text(&cases)]);
        assert_eq!(run.status, 2, "{text}");
        assert!(
            run.stdout
                .contains(&format!("{}{message}", cases.display()))
                || run
                    .stderr
                    .contains(&format!("{}{message}", cases.display())),
            "{text}: {}{}",
            run.stdout,
            run.stderr
        );
    }
}

#[test]
fn golden_files_are_read_strictly() {
    let dir = temp_dir();
    let golden = dir.path().join("probes.csv");
    let text = fs::read_to_string("golden/probes.csv")
        .unwrap()
        .replacen("2026-01-01T10:01:25Z", "2026-01-01 10:01:25", 1)
        .replacen(
            ",false,false,ACTIVE,stale_generation",
            ",FALSE,false,active,stale_generation",
            1,
        );
    fs::write(&golden, text).unwrap();
    // `check` is for authors: every golden problem, located.
    let run = leasejudge(&["check", "cases/probes.csv", "--golden", path_text(&golden)]);
    assert_eq!(run.status, 2, "{}", run.stdout);
    let at = golden.display();
    for expected in [
        format!("{at}:2: expires_at: not a canonical timestamp"),
        format!("{at}:2: lease_expired: not a canonical boolean: true or false (\"FALSE\")"),
        format!("{at}:2: decision: not a canonical code"),
    ] {
        assert!(run.stderr.contains(&expected), "{expected}\n{}", run.stderr);
    }
    // A submission may have exactly these values.
    let submission = dir.path().join("sub.csv");
    fs::copy(&golden, &submission).unwrap();
    let run = grade_all(&submission, Path::new("golden/probes.csv"), &[]);
    assert_full_marks(&run, "a lenient submission");
    // ... but not the golden file (what a learner is told about it is the grader's business).
    let run = grade_all(Path::new("golden/probes.csv"), &golden, &[]);
    assert_eq!(run.status, 2, "{}", run.stdout);
}

#[test]
fn workbook_errors_are_located_by_sheet_and_row() {
    let dir = temp_dir();
    let mut rows = read_rows(Path::new("cases/probes.csv"));
    rows[2][2] = "yesterday".into();
    rows[4][1] = "hello".into();
    let file = dir.path().join("cases.xlsx");
    write_xlsx(&rows, &file, "Lab 3");
    let run = leasejudge(&["validate", path_text(&file)]);
    assert_eq!(run.status, 2);
    let at = format!("{}[Lab 3]", file.display());
    for expected in [
        format!("{at}:3: observed_at: not an RFC 3339 timestamp like 2026-01-01T10:00:00Z (\"yesterday\")"),
        format!("{at}:5: event: unknown event"),
    ] {
        assert!(
            run.stdout.contains(&expected) || run.stderr.contains(&expected),
            "{expected}\n{}{}",
            run.stdout,
            run.stderr
        );
    }
}

#[test]
fn a_template_workbook_has_a_frozen_bold_header_and_sized_columns() {
    let header = ["case_id", "decision", "reason"];
    let rows = vec![
        vec!["probe-1".to_owned(), String::new(), String::new()],
        vec![
            "a-much-longer-case-identifier".to_owned(),
            String::new(),
            String::new(),
        ],
    ];
    let bytes = leasejudge::input::workbook::matrix_xlsx("matrix", &header, &rows).unwrap();
    // It reads back as the matrix it is.
    let dir = temp_dir();
    let path = dir.path().join("template.xlsx");
    fs::write(&path, &bytes).unwrap();
    let mut seen = Vec::new();
    leasejudge::input::workbook::for_each_row(
        &bytes,
        "template.xlsx",
        None,
        &mut |sheet, line, cells| {
            seen.push((sheet.to_owned(), line, cells.to_vec()));
        },
    )
    .unwrap();
    assert_eq!(
        seen,
        [
            (
                "template.xlsx[matrix]".to_owned(),
                1,
                vec!["case_id".to_owned(), "decision".into(), "reason".into()]
            ),
            (
                "template.xlsx[matrix]".to_owned(),
                2,
                vec!["probe-1".to_owned()]
            ),
            (
                "template.xlsx[matrix]".to_owned(),
                3,
                vec!["a-much-longer-case-identifier".to_owned()]
            ),
        ]
    );
    // The sheet's XML: the first row frozen, each column sized to its longest cell.
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut xml = String::new();
    archive
        .by_name("xl/worksheets/sheet1.xml")
        .unwrap()
        .read_to_string(&mut xml)
        .unwrap();
    assert!(
        xml.contains(
            "<pane ySplit=\"1\" topLeftCell=\"A2\" activePane=\"bottomLeft\" state=\"frozen\"/>"
        ),
        "{xml}"
    );
    // 29 characters + 2, and 8 + 2 (Excel stores widths with its padding added).
    assert!(
        xml.contains("<col min=\"1\" max=\"1\" width=\"31.7109375\""),
        "{xml}"
    );
    assert!(
        xml.contains("<col min=\"2\" max=\"2\" width=\"10.7109375\""),
        "{xml}"
    );
}

#[test]
fn a_large_file_read_as_two_halves_splits_by_its_own_delimiter() {
    use leasejudge::generate::{default_mix, write_cases, Options};
    use leasejudge::input::{Delimiter, ReadOptions, Source};
    use leasejudge::matrix::CsvMatrix;
    use leasejudge::streaming::{judge, Sink, StreamSettings};

    let options = Options {
        seed: 16,
        cases: 300,
        rows_per_case: (3, 12),
        interleave: 5,
        mix: default_mix(),
    };
    let mut comma = Vec::new();
    write_cases(&options, &mut comma).unwrap();
    assert!(!comma.contains(&b'"'), "generated cells need no quotes");
    let dir = temp_dir();
    let matrix = |bytes: &[u8], name: &str, delimiter: Option<Delimiter>| {
        let path = dir.path().join(name);
        fs::write(&path, bytes).unwrap();
        let source = Source {
            name: name.to_owned(),
            path: Some(path),
            options: ReadOptions {
                delimiter,
                sheet: None,
            },
        };
        let settings = StreamSettings {
            open_cases: 4096,
            jobs: 2,
            // Every file is cut in two, each half read on its own thread.
            split_min_bytes: 1,
            ..StreamSettings::default()
        };
        let mut out = Vec::new();
        judge(
            &[source],
            &settings,
            Sink::Matrix(&CsvMatrix),
            &mut |_, _, _| {},
        )
        .and_then(|matrix| Ok(matrix.write_to(&mut out)?))
        .map_err(|e| format!("{e:?}"))
        .unwrap();
        out
    };
    let expected = matrix(&comma, "comma.csv", None);
    assert!(expected.len() > 10_000);
    let swap = |to: u8| -> Vec<u8> {
        comma
            .iter()
            .map(|&b| if b == b',' { to } else { b })
            .collect()
    };
    let semicolon = swap(b';');
    let tab = swap(b'\t');
    assert!(expected == matrix(&semicolon, "semicolon.csv", None));
    assert!(expected == matrix(&semicolon, "semicolon.csv", Some(Delimiter::SEMICOLON)));
    assert!(expected == matrix(&tab, "tab.csv", None));
    let pipe = swap(b'|');
    assert!(expected == matrix(&pipe, "pipe.csv", Some("|".parse().unwrap())));
}

/// A `--delimiter` that does not fit the file says what the header looked like split by it,
/// as a detected delimiter does, for matrices and case files alike.
#[test]
fn a_forced_delimiter_that_does_not_fit_says_what_the_header_looked_like() {
    let dir = tempfile::tempdir().unwrap();
    let semi = dir.path().join("semi.csv");
    fs::write(
        &semi,
        "case_id;decision;reason\nprobe-1;ACTIVE;stale_generation\n",
    )
    .unwrap();
    let cases = dir.path().join("cases.csv");
    fs::write(
        &cases,
        "case_id;event;observed_at\nc;offer;2026-01-01T10:00:00Z\n",
    )
    .unwrap();
    let runs: &[&[&str]] = &[
        &[
            "grade",
            path_text(&semi),
            "--delimiter",
            "comma",
            "--golden",
            "examples/lab/key.csv",
        ],
        &["adjudicate", path_text(&cases), "--delimiter", "comma"],
        &["validate", path_text(&cases), "--delimiter", "comma"],
    ];
    for args in runs {
        let run = leasejudge(args);
        assert_eq!(run.status, 2, "{args:?}: {}", run.stderr);
        let said = format!("{}{}", run.stdout, run.stderr);
        assert!(
            said.contains(":1: header: no case_id column: split by \",\" (as --delimiter says), the header has one cell, \"case_id;"),
            "{args:?}: {said}"
        );
    }
}
