//! `leasejudge shortcuts`' report of a lab's strength ([`Assessment`]): a table for people,
//! JSON, or Markdown. The cases that catch a shortcut are read back from the assessment's
//! records as they are written (a lab may have millions); the table and Markdown list the
//! first few of each, JSON all of them. Case ids are input: shown inert, as every report
//! shows input.

use std::io::{self, Write};

use serde_json::Value;

use crate::lease::{Message, Row, Shortcut};
use crate::matrix::COLUMNS;
use crate::report::markdown::escape_cell;
use crate::sanitize::escape_controls;
use crate::shortcuts::{row_object, Assessment, Bounds, Coverage, Standing, Witness};

/// How many catching cases the table and Markdown list for each shortcut.
const LISTED: usize = 5;

/// The names of the columns whose bits are set in `bits`, in matrix order.
fn column_names(bits: u32) -> Vec<&'static str> {
    COLUMNS
        .iter()
        .enumerate()
        .filter(|(index, _)| bits >> index & 1 == 1)
        .map(|(_, name)| *name)
        .collect()
}

/// The first [`LISTED`] cases catching `shortcut` (as `show` renders each), and how many more.
fn first_cases(
    assessment: &Assessment,
    shortcut: Shortcut,
    show: &dyn Fn(&str) -> String,
) -> io::Result<(Vec<String>, u64)> {
    let mut listed = Vec::new();
    let mut more = 0;
    assessment.cases_catching(shortcut, &mut |case_id| {
        if listed.len() < LISTED {
            listed.push(show(case_id));
        } else {
            more += 1;
        }
        Ok(())
    })?;
    Ok((listed, more))
}

/// What the cases column says of a shortcut.
fn cases_cell(
    assessment: &Assessment,
    shortcut: Shortcut,
    standing: &Standing,
    show: &dyn Fn(&str) -> String,
) -> io::Result<String> {
    Ok(match standing {
        Standing::Caught { .. } => {
            let (listed, more) = first_cases(assessment, shortcut, show)?;
            let mut cell = listed.join(", ");
            if more > 0 {
                cell.push_str(&format!(" and {more} more"));
            }
            cell
        }
        Standing::Survives(witness) => format!("none; a case of {} rows would", witness.rows.len()),
        Standing::Uncatchable { .. } => "none can".to_owned(),
        Standing::Undecided { search } => format!("none; none found in {} rows", search.rows),
    })
}

/// One row of a witness, for people: its time from the case's first row and what it says.
pub fn describe_row(row: &Row, start: i64) -> String {
    let offset = |t: crate::lease::Timestamp| format!("+{}s", t.unix_seconds() - start);
    let mut text = format!("{} {}", offset(row.observed_at), row.message.event());
    if let Some(identity) = row.message.identity() {
        text.push_str(&format!(
            " {} generation {} {}",
            identity.lease_id, identity.generation, identity.holder
        ));
    }
    match &row.message {
        Message::Offer(offer) => text.push_str(&format!(
            ", lease_duration {}s, ack_deadline {}",
            offer.terms.lease_duration,
            offset(offer.terms.ack_deadline)
        )),
        Message::Renew { renew_seq, .. } => text.push_str(&format!(", renew_seq {renew_seq}")),
        Message::Progress { progress_seq, .. } => {
            text.push_str(&format!(", progress_seq {progress_seq}"))
        }
        Message::Result { result, .. } => text.push_str(&format!(", result {result}")),
        Message::Ack(_) | Message::CancelAck(_) | Message::CancelRequest | Message::Observe => {}
    }
    if let Some(sent_at) = row.sent_at {
        text.push_str(&format!(", sent_at {}", offset(sent_at)));
    }
    text
}

/// The witness's differing graded values: `column contract → shortcut`, each.
fn differences(witness: &Witness) -> Vec<String> {
    let (contract, shortcut) = (witness.contract.cells(), witness.shortcut.cells());
    COLUMNS
        .iter()
        .enumerate()
        .filter(|(index, _)| witness.columns >> index & 1 == 1)
        .map(|(index, name)| {
            let show = |cell: &str| {
                if cell.is_empty() {
                    "(empty)".to_owned()
                } else {
                    cell.to_owned()
                }
            };
            format!(
                "{name} {} under the contract, {} under the shortcut",
                show(&contract[index]),
                show(&shortcut[index])
            )
        })
        .collect()
}

/// Why an uncatchable shortcut is, in a sentence: the search that proved it, and the
/// columns on which a case would catch it, on which none can, and on which the searches
/// could not tell within their bounds.
fn why(graded: u32, standing: &Standing) -> String {
    let Standing::Uncatchable {
        search,
        columns,
        never,
        unsettled,
    } = standing
    else {
        unreachable!("only an uncatchable shortcut has a why");
    };
    let mut text = format!(
        "no case tells it from the contract on {}: the search reached all {} pairs of cases \
         its rows can build (the longest {} rows) and judged every pair alike",
        column_names(graded).join(", "),
        search.states,
        search.rows
    );
    if *columns != 0 {
        let names = column_names(*columns).join(", ");
        text.push_str(&format!("; a case catches it on {names}"));
    }
    if *never != 0 {
        let names = column_names(*never).join(", ");
        text.push_str(&format!("; no case can on {names}"));
    }
    if *unsettled != 0 {
        let names = column_names(*unsettled).join(", ");
        text.push_str(&format!(
            "; on {names}, the search stopped at its bound ({} rows, {} pairs of cases) \
             without an answer",
            Bounds::ONE_COLUMN.rows,
            Bounds::ONE_COLUMN.states
        ));
    }
    text
}

/// What an undecided shortcut's search says.
fn undecided(search: &Coverage) -> String {
    format!(
        "the search stopped at its bound ({} pairs of cases, up to {} rows) without finding a \
         case that catches it or reaching every pair it can build",
        search.states, search.rows
    )
}

/// The counts line.
fn summary(assessment: &Assessment) -> String {
    let mut counts = [0; 4];
    for (_, standing) in &assessment.shortcuts {
        let slot = match standing {
            Standing::Caught { .. } => 0,
            Standing::Survives(_) => 1,
            Standing::Uncatchable { .. } => 2,
            Standing::Undecided { .. } => 3,
        };
        counts[slot] += 1;
    }
    let mut text = format!(
        "{} of {} shortcuts caught, {} survive, {} uncatchable on these columns",
        counts[0],
        assessment.shortcuts.len(),
        counts[1],
        counts[2]
    );
    if counts[3] > 0 {
        text.push_str(&format!(", {} undecided", counts[3]));
    }
    text
}

/// The report as a table for people, then each survivor's case and each uncatchable's
/// reason, fitted to `width` columns (the one width rule: [`crate::terminal::table_width`]).
/// Prose wraps at spaces with its hanging indent ([`crate::terminal::wrap_lines`]); a table
/// row's list of cases continues under its column, broken only between case ids, so no
/// word is split (a word wider than the line stands alone, as every table's does).
pub fn write_text(assessment: &Assessment, width: usize, out: &mut dyn Write) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    let prose = |out: &mut io::BufWriter<&mut dyn Write>, text: &str| -> io::Result<()> {
        writeln!(out, "{}", crate::terminal::wrap_lines(text, width))
    };
    prose(
        &mut out,
        &format!(
            "{} cases, graded on {}",
            assessment.cases,
            column_names(assessment.graded).join(", ")
        ),
    )?;
    writeln!(out)?;
    let show = |case_id: &str| escape_controls(case_id).into_owned();
    let mut rows = vec![[
        "shortcut".to_owned(),
        "section".to_owned(),
        "status".to_owned(),
        "cases that catch it".to_owned(),
    ]];
    for (shortcut, standing) in &assessment.shortcuts {
        rows.push([
            shortcut.name().to_owned(),
            shortcut.section().to_owned(),
            standing.status().to_owned(),
            cases_cell(assessment, *shortcut, standing, &show)?,
        ]);
    }
    write_table(&rows, width, &mut out)?;
    writeln!(out)?;
    prose(&mut out, &format!("{}.", summary(assessment)))?;
    let start = crate::shortcuts::search_start().unix_seconds();
    for (shortcut, standing) in &assessment.shortcuts {
        match standing {
            Standing::Caught { .. } => {}
            Standing::Survives(witness) => {
                writeln!(out)?;
                prose(
                    &mut out,
                    &format!(
                        "{shortcut} survives; this case of {} rows catches it ({}):",
                        witness.rows.len(),
                        differences(witness).join("; ")
                    ),
                )?;
                for row in &witness.rows {
                    prose(&mut out, &format!("  {}", describe_row(row, start)))?;
                }
            }
            Standing::Uncatchable { .. } => {
                writeln!(out)?;
                prose(
                    &mut out,
                    &format!(
                        "{shortcut} is uncatchable: {}.",
                        why(assessment.graded, standing)
                    ),
                )?;
            }
            Standing::Undecided { search } => {
                writeln!(out)?;
                prose(
                    &mut out,
                    &format!("{shortcut} is undecided: {}.", undecided(search)),
                )?;
            }
        }
    }
    if assessment.witnesses().next().is_some() {
        writeln!(out)?;
        prose(
            &mut out,
            "--suggest FILE writes these cases (case ids catch-<shortcut>) for the lab; --golden FILE their matrix.",
        )?;
    }
    out.flush()
}

/// The least room the list of cases may have beside the other columns; with less, each
/// shortcut's list goes on lines of its own.
const CASES_ROOM: usize = 24;

/// The table of shortcuts (`rows`, the header first) in `width` columns: aligned columns, a
/// row's list of cases continuing under its column, when the list has [`CASES_ROOM`] beside
/// the others; else each shortcut's name, status and section aligned on a line and its list
/// on the lines after it, indented. Lines break only at spaces (a word wider than the line
/// stands alone).
fn write_table(rows: &[[String; 4]], width: usize, out: &mut dyn Write) -> io::Result<()> {
    let widest = |column: usize| rows.iter().map(|row| row[column].len()).max().unwrap_or(0);
    let fixed = widest(0) + widest(1) + widest(2) + 6;
    if fixed + CASES_ROOM <= width {
        let indent = " ".repeat(fixed);
        for row in rows {
            let line = format!(
                "{:w0$}  {:w1$}  {:w2$}  {}",
                row[0],
                row[1],
                row[2],
                row[3],
                w0 = widest(0),
                w1 = widest(1),
                w2 = widest(2)
            );
            writeln!(out, "{}", crate::terminal::wrap(&line, width, &indent))?;
        }
        return Ok(());
    }
    let indent = " ".repeat(widest(0) + widest(2) + 4);
    for (index, row) in rows.iter().enumerate() {
        let line = format!(
            "{:w0$}  {:w2$}  {}",
            row[0],
            row[2],
            row[1],
            w0 = widest(0),
            w2 = widest(2)
        );
        writeln!(out, "{}", crate::terminal::wrap(&line, width, &indent))?;
        if index > 0 {
            let cases = format!("    {}: {}", rows[0][3], row[3]);
            writeln!(out, "{}", crate::terminal::wrap(&cases, width, "      "))?;
        }
    }
    Ok(())
}

/// A JSON string.
fn json_string(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

fn coverage_json(coverage: &Coverage) -> String {
    format!(
        "{{\"exhausted\":{},\"states\":{},\"rows\":{}}}",
        coverage.exhausted, coverage.states, coverage.rows
    )
}

fn names_json(bits: u32) -> String {
    Value::from(column_names(bits)).to_string()
}

/// The report as JSON: `graded`, `cases`, `summary`, and for each shortcut `name`,
/// `section`, `summary`, `status` and `cases` (every catching case), with the `witness` of
/// a survivor, and the `columns` that would catch an uncatchable one with `why`.
pub fn write_json(assessment: &Assessment, out: &mut dyn Write) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    write!(
        out,
        "{{\"graded\":{},\"cases\":{},\"summary\":{},\"shortcuts\":[",
        names_json(assessment.graded),
        assessment.cases,
        json_string(&summary(assessment))
    )?;
    for (index, (shortcut, standing)) in assessment.shortcuts.iter().enumerate() {
        if index > 0 {
            out.write_all(b",")?;
        }
        write!(
            out,
            "\n{{\"name\":{},\"section\":{},\"summary\":{},\"status\":{},\"cases\":[",
            json_string(shortcut.name()),
            json_string(shortcut.section()),
            json_string(shortcut.summary()),
            json_string(standing.status())
        )?;
        let mut first = true;
        assessment.cases_catching(*shortcut, &mut |case_id| {
            if !std::mem::take(&mut first) {
                out.write_all(b",")?;
            }
            out.write_all(json_string(case_id).as_bytes())
        })?;
        out.write_all(b"]")?;
        match standing {
            Standing::Caught { .. } => {}
            Standing::Survives(witness) => {
                let rows: Vec<Value> = witness
                    .rows
                    .iter()
                    .map(|row| Value::Object(row_object(&witness.case_id, row)))
                    .collect();
                let mut differs = serde_json::Map::new();
                let (contract, under) = (witness.contract.to_json(), witness.shortcut.to_json());
                for name in column_names(witness.columns) {
                    differs.insert(
                        name.to_owned(),
                        serde_json::json!({"contract": contract[name], "shortcut": under[name]}),
                    );
                }
                write!(
                    out,
                    ",\"witness\":{{\"case_id\":{},\"rows\":{},\"differs\":{}}}",
                    json_string(&witness.case_id),
                    Value::from(rows),
                    Value::Object(differs)
                )?;
            }
            Standing::Uncatchable {
                search, columns, ..
            } => write!(
                out,
                ",\"columns\":{},\"why\":{},\"search\":{}",
                names_json(*columns),
                json_string(&why(assessment.graded, standing)),
                coverage_json(search)
            )?,
            Standing::Undecided { search } => write!(
                out,
                ",\"why\":{},\"search\":{}",
                json_string(&undecided(search)),
                coverage_json(search)
            )?,
        }
        out.write_all(b"}")?;
    }
    out.write_all(b"\n]}\n")?;
    out.flush()
}

/// The report as Markdown: a headline, a table of the shortcuts, and each survivor's case and
/// each uncatchable's reason.
pub fn write_markdown(assessment: &Assessment, out: &mut dyn Write) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    // Column names and shortcut names are plain identifiers, safe inside code spans.
    let graded: Vec<String> = column_names(assessment.graded)
        .iter()
        .map(|name| format!("`{name}`"))
        .collect();
    write!(
        out,
        "## leasejudge shortcuts: {}\n\n{} cases, graded on {}.\n\n",
        summary(assessment),
        assessment.cases,
        graded.join(", ")
    )?;
    out.write_all(b"| shortcut | section | status | cases that catch it |\n|---|---|---|---|\n")?;
    let show = |case_id: &str| escape_cell(case_id);
    for (shortcut, standing) in &assessment.shortcuts {
        writeln!(
            out,
            "| `{shortcut}` | {} | {} | {} |",
            escape_cell(shortcut.section()),
            standing.status(),
            cases_cell(assessment, *shortcut, standing, &show)?
        )?;
    }
    let start = crate::shortcuts::search_start().unix_seconds();
    for (shortcut, standing) in &assessment.shortcuts {
        match standing {
            Standing::Caught { .. } => {}
            Standing::Survives(witness) => {
                write!(
                    out,
                    "\n`{shortcut}` survives; this case of {} rows catches it ({}):\n\n",
                    witness.rows.len(),
                    escape_cell(&differences(witness).join("; "))
                )?;
                for row in &witness.rows {
                    writeln!(out, "1. {}", escape_cell(&describe_row(row, start)))?;
                }
            }
            Standing::Uncatchable { .. } => write!(
                out,
                "\n`{shortcut}` is uncatchable: {}.\n",
                escape_cell(&why(assessment.graded, standing))
            )?,
            Standing::Undecided { search } => write!(
                out,
                "\n`{shortcut}` is undecided: {}.\n",
                escape_cell(&undecided(search))
            )?,
        }
    }
    out.flush()
}
