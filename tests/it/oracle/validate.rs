//! What `validate` reports, stated plainly with every case's rows in memory: what
//! [`validate_streaming`](leasejudge::validation::validate_streaming) (the command's run, in
//! bounded memory) is tested against. The warnings' rules are the product's own (the
//! reader's warnings of a file, the warnings of one case); what differs is how cases are
//! grouped, checked and handed to them.

use std::collections::HashMap;

use leasejudge::input::{InputErrors, InputFormat, ParsedRow, Source};
use leasejudge::validation::{case_warnings, read_file, CaseRows, Report, Warnings};

use super::adjudication::{Adjudication, Location};

/// Validates the sources: every input error and every warning (the first `max_warnings`
/// listed, every one counted; the case-level notes only with `lint`).
pub fn validate(
    sources: &[Source],
    input_format: Option<InputFormat>,
    max_warnings: Option<usize>,
    lint: bool,
) -> Report {
    let mut adjudication = Adjudication::new();
    let mut errors = InputErrors::new();
    let mut warnings = Warnings::new(max_warnings.unwrap_or(usize::MAX));
    let mut case_rows: Vec<(String, CaseRows)> = Vec::new();
    let mut case_index: HashMap<String, usize> = HashMap::new();
    let mut row_count = 0usize;
    for (file_index, source) in sources.iter().enumerate() {
        let (mut file_errors, rows) = read_file(
            file_index,
            source,
            input_format,
            &mut warnings,
            &mut |line, row| {
                let at = Location {
                    file_index,
                    file: &source.name,
                    line,
                };
                adjudication.feed(at, &row);
                if let Ok(ParsedRow { case_id, row }) = row {
                    let index = *case_index.entry(case_id.to_string()).or_insert_with(|| {
                        case_rows.push((
                            case_id.to_string(),
                            CaseRows {
                                file_index,
                                file: source.name.clone(),
                                lines: Vec::new(),
                                rows: Vec::new(),
                            },
                        ));
                        case_rows.len() - 1
                    });
                    let entry = &mut case_rows[index].1;
                    if entry.file_index == file_index {
                        entry.lines.push(line);
                        entry.rows.push(row);
                    }
                }
            },
        );
        row_count += rows;
        file_errors.merge_by_line(adjudication.take_errors());
        errors.append(file_errors);
    }
    let cases = case_rows.len();
    if errors.is_empty() && lint {
        for (case_id, rows) in &case_rows {
            for warning in case_warnings(case_id, rows) {
                warnings.push(warning, 1);
            }
        }
    }
    Report {
        errors,
        warnings,
        cases,
        rows: row_count,
    }
}
