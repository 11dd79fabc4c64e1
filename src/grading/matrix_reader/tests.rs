//! The matrix readers: every format's rows and problems, whole and split alike.

use super::*;
use crate::grading::partitions::Splitter;

/// A submission read from bytes, every column kept.
fn submission(
    bytes: &[u8],
    name: &str,
    format: MatrixFileFormat,
) -> Result<MatrixFile, InputErrors> {
    let every: Vec<Column> = Column::all().collect();
    MatrixRead::submission(&every, &ReadOptions::default())
        .read(MatrixInput::Bytes(bytes, format), name)
}

/// A submission read from bytes, the cells of `keep` kept.
fn submission_keeping(
    bytes: &[u8],
    name: &str,
    format: MatrixFileFormat,
    keep: &[Column],
) -> Result<MatrixFile, InputErrors> {
    MatrixRead::submission(keep, &ReadOptions::default())
        .read(MatrixInput::Bytes(bytes, format), name)
}

/// A golden file read from bytes, the cells of `keep` kept.
fn golden_keeping(
    bytes: &[u8],
    name: &str,
    format: MatrixFileFormat,
    keep: &[Column],
) -> Result<MatrixFile, InputErrors> {
    MatrixRead::golden(keep).read(MatrixInput::Bytes(bytes, format), name)
}

#[test]
fn every_row_is_found_with_its_own_cells() {
    let mut text = String::from("case_id,decision,reason,job_id\n");
    for i in 0..5000 {
        // Empty cells, ids of every length, and ids that are prefixes of others.
        let reason = if i % 3 == 0 { "" } else { "within_lease" };
        text.push_str(&format!("c{i},D{i},{reason},j{i}\n"));
    }
    let keep = [Column::Decision, Column::Reason];
    let file = submission_keeping(text.as_bytes(), "m.csv", MatrixFileFormat::Csv, &keep).unwrap();
    assert_eq!(file.len(), 5000);
    for i in 0..5000 {
        let row = file.find(&format!("c{i}")).unwrap();
        assert_eq!(file.position(row.case_id), Some(i));
        assert_eq!(row.line, i as u64 + 2);
        assert_eq!(row.cell(Column::Decision), Some(format!("D{i}").as_str()));
        let reason = if i % 3 == 0 { "" } else { "within_lease" };
        assert_eq!(row.cell(Column::Reason), Some(reason));
        assert_eq!(row.cell(column_from_header("job_id").unwrap()), None);
        assert_eq!(row, file.row(i));
    }
    assert!(file.find("c5000").is_none() && file.find("c").is_none());
    // A JSON row that gives no kept key keeps no cells; the next row's are its own.
    let json = "[{\"case_id\":\"a\"},{\"case_id\":\"b\",\"reason\":\"x\"}]";
    let file =
        submission_keeping(json.as_bytes(), "m.json", MatrixFileFormat::Json, &keep).unwrap();
    let a = file.find("a").unwrap();
    assert_eq!(
        (a.cell(Column::Decision), a.cell(Column::Reason)),
        (None, None)
    );
    assert_eq!(file.find("b").unwrap().cell(Column::Reason), Some("x"));
}

fn csv(text: &str) -> Result<MatrixFile, InputErrors> {
    submission(text.as_bytes(), "m.csv", MatrixFileFormat::Csv)
}

fn messages(result: Result<MatrixFile, InputErrors>) -> Vec<String> {
    result.unwrap_err().iter().map(|e| e.to_string()).collect()
}

#[test]
fn messy_csv_is_read() {
    let file = csv("\u{feff}Note,Reason,Case ID,Decision\r\n\r\nx,within_lease,c1,ACTIVE\r\n,,,\r\ny,awaiting_ack,c2,\r\n")
            .unwrap();
    assert_eq!(file.header_line, Some(1));
    assert_eq!(file.len(), 2);
    let c1 = file.find("c1").unwrap();
    assert_eq!(c1.line, 3);
    assert_eq!(c1.cell(Column::Decision), Some("ACTIVE"));
    assert_eq!(c1.cell(Column::Reason), Some("within_lease"));
    assert_eq!(c1.cell(column_from_header("job_id").unwrap()), None);
    let c2 = file.find("c2").unwrap();
    assert_eq!(c2.line, 5);
    assert_eq!(c2.cell(Column::Decision), Some(""));
    assert!(file
        .missing_columns(&[Column::Decision, Column::Reason])
        .is_empty());
}

#[test]
fn bad_csv_is_located() {
    assert_eq!(
        messages(csv("case_id,decision\nc1,ACTIVE\nc2,EXPIRED\nc1,ACTIVE\n")),
        ["m.csv:4: case_id: duplicated case id: it is already on line 2 (\"c1\")"]
    );
    assert_eq!(
        messages(csv("case_id,decision\n,ACTIVE\nc2,EXPIRED,extra\nc3\n")),
        [
            "m.csv:2: case_id: missing case id",
            "m.csv:3: the row has 3 cells; the header has 2",
            "m.csv:4: the row has 1 cells; the header has 2",
        ]
    );
    assert_eq!(
        messages(csv("case_id,decision\nc1,ACTIVE\nc2,\"EXPIRED\n")),
        ["m.csv:3: unterminated quote: the file ends inside a quoted cell"]
    );
    // Lines end at a lone `\r` too, as old Mac spreadsheets save them.
    assert_eq!(
        messages(csv("case_id;decision\rc1;ACTIVE\r;EXPIRED\r")),
        ["m.csv:3: case_id: missing case id"]
    );
    assert_eq!(
            messages(csv("case_id|decision\nc1|ACTIVE\n")),
            ["m.csv:1: header: no case_id column: the header has one cell, \"case_id|decision\"; tried \",\" \";\" tab"]
        );
    assert_eq!(
        messages(csv("Decision,decision,case_id\n")),
        ["m.csv:1: header: columns \"Decision\" and \"decision\" both name the column decision"]
    );
    assert_eq!(messages(csv("")), ["m.csv:1: empty file: no header row"]);
    let file = csv("case_id,decision\nc1,ACTIVE\n").unwrap();
    let missing: Vec<String> = file
        .missing_columns(&[Column::Decision, Column::Reason])
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_eq!(
        missing,
        ["m.csv:1: header: no column for the graded column reason"]
    );
}

fn golden(text: &str, format: MatrixFileFormat, columns: &[Column]) -> Vec<String> {
    messages(golden_keeping(text.as_bytes(), "g", format, columns))
}

const DECISIONS: &str = "OWNERSHIP_CONFLICT, SUCCESS, FAILED, CANCELLED, RECONCILIATION_REQUIRED, EXPIRED, ACK_TIMEOUT, ACTIVE, PENDING_ACK";

#[test]
fn a_golden_files_value_errors_are_listed_with_its_structural_ones() {
    // The newcomer's file: a bad code, an empty reason, a duplicate id and a ragged row.
    let text = "case_id,decision,reason\nc1,BOGUS,\nc1,ACTIVE,stale_generation\nc2,active,within_lease,extra\n,ACTIVE,\"within_lease\"\n";
    assert_eq!(
        golden(
            text,
            MatrixFileFormat::Csv,
            &[Column::Decision, Column::Reason]
        ),
        [
            format!("g:2: decision: not a canonical code: one of {DECISIONS} (\"BOGUS\")"),
            "g:2: reason: empty; every case has a value here (\"\")".to_owned(),
            "g:3: case_id: duplicated case id: it is already on line 2 (\"c1\")".to_owned(),
            "g:4: the row has 4 cells; the header has 3".to_owned(),
            format!("g:4: decision: not a canonical code: one of {DECISIONS} (\"active\")"),
            "g:5: case_id: missing case id".to_owned(),
        ]
    );
    // A submission's values are not held to canonical form.
    assert_eq!(
        messages(csv(text)),
        [
            "m.csv:3: case_id: duplicated case id: it is already on line 2 (\"c1\")",
            "m.csv:4: the row has 4 cells; the header has 3",
            "m.csv:5: case_id: missing case id",
        ]
    );
}

#[test]
fn a_golden_files_columns_are_all_checked_though_only_graded_ones_are_kept() {
    let graded = [Column::Decision, Column::Reason];
    let generation = column_from_header("generation").unwrap();
    let text = "case_id,generation,decision,reason\nc1,SECRETGEN,ACTIVE,within_lease\nc2,08,EXPIRED,expired_without_result\n";
    let bad = [
        "g:2: generation: not an unsigned integer (decimal digits only) (\"SECRETGEN\")",
        "g:3: generation: not a canonical integer: digits without leading zeros (\"08\")",
    ];
    assert_eq!(golden(text, MatrixFileFormat::Csv, &graded), bad);
    let json = "[{\"case_id\":\"c1\",\"generation\":\"SECRETGEN\",\"decision\":\"ACTIVE\",\"reason\":\"within_lease\"},\n{\"case_id\":\"c2\",\"generation\":\"08\",\"decision\":\"EXPIRED\",\"reason\":\"expired_without_result\"}]";
    let bad_json: Vec<String> = bad
        .iter()
        .map(|m| m.replace("g:2", "g:1").replace("g:3", "g:2"))
        .collect();
    assert_eq!(golden(json, MatrixFileFormat::Json, &graded), bad_json);
    // A canonical file is read, keeping only the graded cells.
    let good = text.replace("SECRETGEN", "7").replace(",08,", ",8,");
    let file = golden_keeping(good.as_bytes(), "g", MatrixFileFormat::Csv, &graded).unwrap();
    let c1 = file.find("c1").unwrap();
    assert_eq!(c1.cell(Column::Decision), Some("ACTIVE"));
    assert_eq!(c1.cell(generation), None);
}

#[test]
fn a_golden_workbook_is_checked_whole_too() {
    let header = ["case_id", "generation", "decision", "reason"];
    let rows: Vec<Vec<String>> = [
        ["c1", "SECRETGEN", "ACTIVE", "within_lease"],
        ["c1", "7", "active", "within_lease"],
        ["c2", "8", "EXPIRED", ""],
    ]
    .iter()
    .map(|row| row.iter().map(|cell| cell.to_string()).collect())
    .collect();
    let bytes = crate::input::workbook::matrix_xlsx("Key", &header, &rows).unwrap();
    let errors: Vec<String> = golden_keeping(
        &bytes,
        "g.xlsx",
        MatrixFileFormat::Workbook,
        &[Column::Decision],
    )
    .unwrap_err()
    .iter()
    .map(|e| e.to_string())
    .collect();
    assert_eq!(
            errors,
            [
                "g.xlsx[Key]:2: generation: not an unsigned integer (decimal digits only) (\"SECRETGEN\")".to_owned(),
                "g.xlsx[Key]:3: case_id: duplicated case id: it is already on line 2 (\"c1\")".to_owned(),
                format!("g.xlsx[Key]:3: decision: not a canonical code: one of {DECISIONS} (\"active\")"),
                // An empty cell is checked, whether the sheet stores it or ends the row before it.
                "g.xlsx[Key]:4: reason: empty; every case has a value here (\"\")".to_owned(),
            ]
        );
}

#[test]
fn a_json_key_given_twice_is_an_error_not_the_last_value() {
    let json = |text: &str| submission(text.as_bytes(), "m.json", MatrixFileFormat::Json);
    let twice = "[{\"case_id\":\"probe-1\",\"decision\":\"ACTIVE\",\"reason\":\"stale_generation\",\"decision\":\"EXPIRED\"}]";
    assert_eq!(
        messages(json(twice)),
        ["m.json:1: decision: keys \"decision\" and \"decision\" both name the column decision"]
    );
    let cased = "[{\"case_id\":\"c1\",\"Decision\":\"ACTIVE\"},\n{\"case_id\":\"c2\",\"decision\":\"ACTIVE\",\"Decision\":\"ACTIVE\"}]";
    assert_eq!(
        messages(json(cased)),
        ["m.json:2: decision: keys \"decision\" and \"Decision\" both name the column decision"]
    );
    assert_eq!(
        messages(json("[{\"case_id\":\"c1\",\"case_id\":\"c2\"}]")),
        ["m.json:1: case_id: keys \"case_id\" and \"case_id\" both name the column case_id"]
    );
    // Unknown keys are ignored, given twice or not.
    assert!(json("[{\"case_id\":\"c1\",\"note\":1,\"note\":2}]").is_ok());
    // In a golden file, the second value is checked too.
    assert_eq!(
            golden(
                "[{\"case_id\":\"c1\",\"decision\":\"ACTIVE\",\"reason\":\"within_lease\",\"decision\":\"active\"}]",
                MatrixFileFormat::Json,
                &[Column::Decision],
            ),
            [
                "g:1: decision: keys \"decision\" and \"decision\" both name the column decision".to_owned(),
                format!("g:1: decision: not a canonical code: one of {DECISIONS} (\"active\")"),
            ]
        );
}

#[test]
fn json_matrix_is_read_with_lines() {
    let text = "[\n{\"case_id\":\"c1\",\"stale_generation\":[7,3],\"lease_expired\":false,\"Decision\":\"ACTIVE\",\"reason\":null},\n{\"case_id\":\"c2\",\"decision\":\"EXPIRED\"}\n]\n";
    let file = submission(text.as_bytes(), "m.json", MatrixFileFormat::Json).unwrap();
    let c1 = file.find("c1").unwrap();
    assert_eq!(c1.line, 2);
    assert_eq!(
        c1.cell(column_from_header("stale_generation").unwrap()),
        Some("7;3")
    );
    assert_eq!(
        c1.cell(column_from_header("lease_expired").unwrap()),
        Some("false")
    );
    assert_eq!(c1.cell(Column::Reason), Some(""));
    let missing: Vec<String> = file
        .missing_columns(&[Column::Reason])
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_eq!(missing, ["m.json:3: reason: the row has no such key"]);
    let bad = submission(b"{\"cases\": []}", "m.json", MatrixFileFormat::Json);
    assert_eq!(
        messages(bad),
        ["m.json:1: a JSON matrix is one array of case objects"]
    );
}

/// A JSON matrix is read a case at a time: what breaks it is located where it is, and the
/// cases before are still checked (every error listed).
#[test]
fn json_matrix_breaks_are_located() {
    let json = |text: &[u8]| messages(submission(text, "m.json", MatrixFileFormat::Json));
    assert_eq!(
        json(b"[\n{\"case_id\": \"c1\"},\n{\"case_id\": \"c1\"},\n{\"case_id\": \"c\xFF\"}]"),
        [
            "m.json:3: case_id: duplicated case id: it is already on line 2 (\"c1\")",
            "m.json:4: not valid UTF-8"
        ]
    );
    assert_eq!(
        json(b"[\n{\"case_id\": \"c1\"},\n]"),
        ["m.json:3: unreadable JSON: trailing comma at line 3 column 1"]
    );
    let long = format!(
        "[{{\"case_id\": \"c1\"}},\n {{\"note\": \"{}\"}}]",
        "a".repeat(2 << 20)
    );
    let errors = json(long.as_bytes());
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("m.json:2: cannot read: a record longer than"),
        "{errors:?}"
    );
    assert_eq!(
        json(b"[{\"case_id\": \"c1\"}] []"),
        ["m.json:1: unreadable JSON: trailing characters at line 1 column 21"]
    );
}

/// A matrix read split lists the errors a matrix read whole lists, in its order, however
/// many partitions it is split into: duplicated case ids (found per partition) among the
/// structural and value errors of the rows around them, and a JSON row's missing keys.
#[test]
fn a_split_matrix_lists_what_a_whole_one_does() {
    let mut csv = "case_id,decision,reason\n".to_owned();
    let mut json = "[\n".to_owned();
    for i in 0..400 {
        let id = format!("c{}", i % 150);
        let decision = if i % 9 == 0 { "expired" } else { "EXPIRED" };
        csv.push_str(&format!("{id},{decision},ack_missing\n"));
        if i % 37 == 0 {
            csv.push_str(",ACTIVE,\nc1,short\n");
        }
        let reason = if i % 5 == 0 {
            String::new()
        } else {
            ",\"reason\":\"ack_missing\"".to_owned()
        };
        let sep = if i == 399 { "" } else { "," };
        json.push_str(&format!(
            "{{\"case_id\":\"{id}\",\"decision\":\"{decision}\"{reason}}}{sep}\n"
        ));
    }
    // Broken part-way: the duplicates before the break are listed with it.
    let broken = format!("{json}{{\"case_id\": oops\n");
    json.push(']');
    let columns = [Column::Reason, Column::Decision];
    for (text, format) in [
        (&csv, MatrixFileFormat::Csv),
        (&json, MatrixFileFormat::Json),
        (&broken, MatrixFileFormat::Json),
    ] {
        for strictness in [Strictness::Submission, Strictness::Golden] {
            let options = ReadOptions::default();
            let how = MatrixRead {
                strictness,
                keep: &columns,
                options: &options,
            };
            let read = |split: Split<'_>| {
                how.read_partial(MatrixInput::Bytes(text.as_bytes(), format), "m", split)
                    .unwrap()
            };
            let (whole, whole_errors) = read(None);
            assert!(whole_errors.len() >= 250, "{}", whole_errors.len());
            for parts in [1, 3, 16] {
                let splitter = Splitter::with_parts(parts);
                let (split, errors) = read(Some((&splitter, &columns)));
                let split = split.into_split().unwrap();
                let errors = with_duplicates(errors, split.duplicates().unwrap());
                assert_eq!(errors, whole_errors, "{format:?}, {parts} parts");
                // Missing keys are only asked of a matrix without errors: here the
                // duplicated rows' are listed too.
                let missing = split.missing_columns(&columns);
                assert_eq!(split.lacks_columns(&columns), !missing.is_empty());
                let csv_lacks = [Column::Reason, Column::at(5).expect("a column")];
                assert_eq!(
                    split.lacks_columns(&csv_lacks),
                    !split.missing_columns(&csv_lacks).is_empty()
                );
                assert_eq!(
                    missing.len(),
                    if format == MatrixFileFormat::Json {
                        80
                    } else {
                        0
                    }
                );
                assert_eq!(
                    whole.missing_columns(&columns).len(),
                    missing.len() * 30 / 80
                );
                assert_eq!(split.len(), whole.len() as u64 + 250);
                let ids = split.case_ids().unwrap();
                assert!(ids.iter().map(|id| id.unwrap().0).eq(0..400));
                let first: Vec<String> = ids.iter().take(3).map(|id| id.unwrap().1).collect();
                assert_eq!(first, ["c0", "c1", "c2"]);
            }
        }
    }
}

/// One row pasted over and over, and ragged rows: every format lists the first
/// `MAX_LISTED_PROBLEMS` problems and counts the rest, whole or split alike.
#[test]
fn problems_past_the_cap_are_counted_not_listed() {
    let rows = MAX_LISTED_PROBLEMS * 2 + 500;
    let mut pasted = "case_id,decision,reason\n".to_owned();
    let mut ragged = pasted.clone();
    let mut json = "[".to_owned();
    for i in 0..rows {
        pasted.push_str("c1,ACTIVE,within_lease\n");
        ragged.push_str(&format!("c{i},ACTIVE,within_lease,extra\n"));
        json.push_str(if i == 0 { "" } else { "," });
        json.push_str("{\"case_id\":\"c1\",\"decision\":\"ACTIVE\",\"reason\":\"within_lease\"}");
    }
    json.push(']');
    let columns = [Column::Decision, Column::Reason];
    for (text, format, problems) in [
        (&pasted, MatrixFileFormat::Csv, rows - 1),
        (&ragged, MatrixFileFormat::Csv, rows),
        (&json, MatrixFileFormat::Json, rows - 1),
    ] {
        let more = (problems - MAX_LISTED_PROBLEMS) as u64;
        let whole = submission_keeping(text.as_bytes(), "m", format, &columns).unwrap_err();
        assert_eq!(whole.listed().len(), MAX_LISTED_PROBLEMS, "{format:?}");
        assert_eq!(whole.unlisted(), more, "{format:?}");
        for parts in [1, 3] {
            let splitter = Splitter::with_parts(parts);
            let (split, errors) = MatrixRead::submission(&columns, &ReadOptions::default())
                .read_split(MatrixInput::Bytes(text.as_bytes(), format), "m", &splitter)
                .unwrap();
            let listed = with_duplicates(errors, split.duplicates().unwrap());
            assert_eq!(
                listed.listed().len(),
                MAX_LISTED_PROBLEMS,
                "{format:?} {parts}"
            );
            assert_eq!(
                listed.listed()[..10],
                whole.listed()[..10],
                "{format:?} {parts}"
            );
            assert_eq!(listed.unlisted(), more, "{format:?} {parts}");
        }
    }
}
