//! The messy style of generated case files: the same stories as the plain style, written the
//! way case files from other tools and people look (spec section 2 accepts all of it).
//!
//! Per file: scrambled header spellings (any case, spaces or `-` for `_`, aliases, matrix
//! headings such as `Holder Identity`) in a shuffled column order with an unknown `note`
//! column, and `\n` or `\r\n` line endings. Per case: a short sequential id (`c9-000019`), and
//! now and then a story cut short. Per row: timestamps in other offsets (`+01:00`, `-08:00`,
//! `+05:30`, `z`), sometimes with a zero fraction (`.000`) and `t`, `sent_at` with a real
//! fraction (it is audit only, so it cannot change a decision), every duration form (`30`,
//! `30s`, `5M`, `1H`, `PT90S`, `PT1M30S`), event and result names in any case, padded cells,
//! quoted progress values with commas and doubled quotes (`"10,5%"`, `"phase ""b"""`), and
//! blank lines. Between one and `--interleave` cases are in progress at once, varying along
//! the file.
//!
//! The file's matrix is not written here: the command's `--golden` judges the file with the
//! engine. What the generator knows of each case (its story, and whether it was cut short) is
//! handed to a callback, so that a test can hold the engine's decision against the story.

use std::io::{self, Write};

use super::{tell, GenRow, Options, Scenario};
use crate::lease::Timestamp;
use crate::random::SplitMix64;

/// Lease durations of messy offers: the plain ones and hour-long leases (`1H`, `PT1H`).
const MESSY_DURATIONS: [i64; 8] = [30, 45, 60, 90, 120, 300, 3600, 7200];

/// What the generator meant a case to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseModel {
    /// The case id as written.
    pub case_id: String,
    /// The story it tells.
    pub scenario: Scenario,
    /// Whether its rows stop before the story's end (its decision is then whatever the rows
    /// written so far make it).
    pub cut_short: bool,
}

/// The columns of a messy file, in [`HEADER`](super::HEADER)'s order plus an unknown one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    /// `case_id`.
    CaseId,
    /// `event`.
    Event,
    /// `observed_at`.
    ObservedAt,
    /// `job_id`.
    JobId,
    /// `lease_id`.
    LeaseId,
    /// `generation`.
    Generation,
    /// `holder`.
    Holder,
    /// `lease_duration`.
    LeaseDuration,
    /// `ack_deadline`.
    AckDeadline,
    /// `renew_seq`.
    RenewSeq,
    /// `progress_seq`.
    ProgressSeq,
    /// `progress_value`.
    ProgressValue,
    /// `result`.
    Result,
    /// `sent_at`.
    SentAt,
    /// A column no field is named by (ignored on input).
    Note,
}

impl Column {
    const ALL: [Column; 15] = [
        Column::CaseId,
        Column::Event,
        Column::ObservedAt,
        Column::JobId,
        Column::LeaseId,
        Column::Generation,
        Column::Holder,
        Column::LeaseDuration,
        Column::AckDeadline,
        Column::RenewSeq,
        Column::ProgressSeq,
        Column::ProgressValue,
        Column::Result,
        Column::SentAt,
        Column::Note,
    ];

    /// Header spellings that name this column (spec section 2: any case, spaces, `-` and `/`
    /// for `_`, aliases, the lesson's matrix headings).
    fn spellings(self) -> &'static [&'static str] {
        match self {
            Column::CaseId => &["case_id", "Case ID", "CASE-ID", " case id "],
            Column::Event => &["event", "Event", "message", "Kind", "EVENT"],
            Column::ObservedAt => &["observed_at", "Observed At", "OBSERVED-AT", "observed at"],
            Column::JobId => &["job_id", "Job ID", "job-id", "JOB ID"],
            Column::LeaseId => &["lease_id", "Lease ID", "lease-id"],
            Column::Generation => &[
                "generation",
                "Generation",
                "lease_generation",
                "Lease Generation",
            ],
            Column::Holder => &["holder", "Holder", "holder_identity", "Holder Identity"],
            Column::LeaseDuration => &["lease_duration", "Lease Duration", "LEASE-DURATION"],
            Column::AckDeadline => &["ack_deadline", "ACK Deadline", "Ack/Deadline"],
            Column::RenewSeq => &["renew_seq", "renew_sequence", "Renew Sequence", "RENEW-SEQ"],
            Column::ProgressSeq => &["progress_seq", "progress_sequence", "Progress Sequence"],
            Column::ProgressValue => &["progress_value", "Progress Value", "progress-value"],
            Column::Result => &["result", "Result", "terminal_result", "Terminal Result"],
            Column::SentAt => &["sent_at", "Sent At", "SENT-AT"],
            Column::Note => &["note", "Coordinator Note", "region"],
        }
    }
}

/// Notes in the unknown column: mostly empty, some needing quotes.
const NOTES: [&str; 8] = [
    "",
    "",
    "",
    "",
    "retry",
    "slow disk",
    "paged, on-call",
    "said \"done\"",
];

/// Offsets timestamps are written in, in seconds east of UTC, and how they are spelled.
const OFFSETS: [(i64, &str); 6] = [
    (0, "Z"),
    (3600, "+01:00"),
    (-8 * 3600, "-08:00"),
    (0, "z"),
    (5 * 3600 + 1800, "+05:30"),
    (0, "+00:00"),
];

/// How one file is written.
struct FileLayout {
    /// Columns in file order.
    columns: Vec<Column>,
    /// The header line (without its ending).
    header: Vec<u8>,
    /// `\n` or `\r\n`.
    newline: &'static [u8],
}

impl FileLayout {
    fn draw(rng: &mut SplitMix64) -> FileLayout {
        let mut columns = Column::ALL.to_vec();
        // `case_id` stays first, as people write it; the rest are shuffled.
        for i in (2..columns.len()).rev() {
            let j = 1 + rng.below(i);
            columns.swap(i, j);
        }
        let mut header = Vec::new();
        for (n, column) in columns.iter().enumerate() {
            if n > 0 {
                header.push(b',');
            }
            let spellings = column.spellings();
            header.extend_from_slice(spellings[rng.below(spellings.len())].as_bytes());
        }
        let newline: &'static [u8] = if rng.chance(50) { b"\r\n" } else { b"\n" };
        FileLayout {
            columns,
            header,
            newline,
        }
    }
}

/// Writes a messy case file (CSV) telling the same kinds of stories as
/// [`write_cases`](super::write_cases); `on_case` learns each case's model in order of first
/// appearance. Returns the number of case rows written (blank lines not counted).
pub fn write_messy_cases(
    options: &Options,
    out: &mut impl Write,
    on_case: &mut dyn FnMut(CaseModel),
) -> io::Result<u64> {
    let mut rng = SplitMix64::new(options.seed);
    // Choices of spelling have their own stream, so that a story does not depend on them.
    let mut style = SplitMix64::new(options.seed ^ 0x6D65_7373_795F_7374);
    let layout = FileLayout::draw(&mut style);
    let prefix = format!("c{}-", options.seed);
    let total_weight: u64 = options.mix.iter().map(|(_, w)| w).sum();
    assert!(total_weight > 0, "the mix has a positive weight");
    let (low, high) = options.rows_per_case;
    let most_open = options.interleave.max(1);
    let mut clock: i64 = 1_767_225_600;
    let mut next_case = 0u64;
    let mut open: Vec<(u64, Vec<GenRow>, usize)> = Vec::new();
    // How many cases are in progress now: drawn from 1..=most_open again every so often.
    let mut open_now = 1u64;
    let mut rows_written = 0u64;
    let mut line = Vec::with_capacity(256);
    out.write_all(&layout.header)?;
    out.write_all(layout.newline)?;
    loop {
        if style.chance(2) {
            open_now = style.range(1, most_open);
        }
        while (open.len() as u64) < open_now && next_case < options.cases {
            let mut ticket = rng.range(0, total_weight - 1);
            let mut scenario = options.mix[0].0;
            for &(candidate, weight) in &options.mix {
                if ticket < weight {
                    scenario = candidate;
                    break;
                }
                ticket -= weight;
            }
            let target = rng.range(low, high.max(low));
            clock += rng.range(0, 5) as i64;
            let mut rows = tell(
                &mut rng,
                &MESSY_DURATIONS,
                next_case,
                scenario,
                target,
                clock,
            );
            let cut_short = rows.len() > 1 && style.chance(6);
            if cut_short {
                rows.truncate(style.range(1, rows.len() as u64 - 1) as usize);
            }
            on_case(CaseModel {
                case_id: format!("{prefix}{next_case:06}"),
                scenario,
                cut_short,
            });
            open.push((next_case, rows, 0));
            next_case += 1;
        }
        if open.is_empty() {
            break;
        }
        let slot = if open.len() == 1 {
            0
        } else {
            rng.range(0, open.len() as u64 - 1) as usize
        };
        let (index, rows, cursor) = &mut open[slot];
        line.clear();
        if style.chance(1) {
            // A blank line, or a row of empty cells: both are skipped.
            if style.chance(50) {
                line.extend(std::iter::repeat_n(b',', layout.columns.len() - 1));
            }
            line.extend_from_slice(layout.newline);
        }
        format_messy_row(
            &mut line,
            &layout,
            &mut style,
            &prefix,
            *index,
            &rows[*cursor],
        );
        out.write_all(&line)?;
        rows_written += 1;
        *cursor += 1;
        if *cursor == rows.len() {
            open.swap_remove(slot);
        }
    }
    Ok(rows_written)
}

fn format_messy_row(
    line: &mut Vec<u8>,
    layout: &FileLayout,
    style: &mut SplitMix64,
    prefix: &str,
    index: u64,
    row: &GenRow,
) {
    let mut cell = Vec::with_capacity(40);
    for (n, column) in layout.columns.iter().enumerate() {
        if n > 0 {
            line.push(b',');
        }
        cell.clear();
        match column {
            Column::CaseId => {
                let _ = write!(cell, "{prefix}{index:06}");
            }
            Column::Event => {
                let event = match style.range(0, 19) {
                    0 => row.event.to_ascii_uppercase(),
                    1 => format!(" {} ", row.event),
                    _ => row.event.to_owned(),
                };
                cell.extend_from_slice(event.as_bytes());
            }
            Column::ObservedAt => push_messy_time(&mut cell, style, row.at, false),
            Column::JobId => {
                // The plain style names the job on the first offer only; people repeat it.
                if row.job || style.chance(5) {
                    let _ = write!(cell, "J{index}");
                }
            }
            Column::LeaseId => {
                if let Some((lease, _, _)) = row.identity {
                    let _ = write!(cell, "L{lease}");
                }
            }
            Column::Generation => {
                if let Some((_, generation, _)) = row.identity {
                    let _ = write!(cell, "{generation}");
                }
            }
            Column::Holder => {
                if let Some((_, _, holder)) = row.identity {
                    let _ = write!(cell, "w{holder}");
                }
            }
            Column::LeaseDuration => {
                if let Some((seconds, _)) = row.duration {
                    push_duration(&mut cell, style, seconds);
                }
            }
            Column::AckDeadline => {
                if let Some(deadline) = row.ack_deadline {
                    push_messy_time(&mut cell, style, deadline, false);
                }
            }
            Column::RenewSeq => {
                if let Some(seq) = row.renew_seq {
                    let _ = write!(cell, "{seq}");
                }
            }
            Column::ProgressSeq => {
                if let Some(seq) = row.progress_seq {
                    let _ = write!(cell, "{seq}");
                }
            }
            Column::ProgressValue => {
                if let Some(value) = row.progress_value {
                    let _ = match style.range(0, 9) {
                        0..=3 => write!(cell, "{value}%"),
                        4 => write!(cell, "{value},5%"),
                        5 => write!(cell, "phase \"{}\"", (b'a' + (value / 26) as u8) as char),
                        6 => write!(cell, "{value} / 100"),
                        _ => write!(cell, "{value}"),
                    };
                }
            }
            Column::Result => {
                if let Some(result) = row.result {
                    let text = match style.range(0, 3) {
                        0 => result.to_ascii_lowercase(),
                        _ => result.to_owned(),
                    };
                    cell.extend_from_slice(text.as_bytes());
                }
            }
            Column::SentAt => {
                if let Some(sent) = row.sent_at {
                    push_messy_time(&mut cell, style, sent, true);
                }
            }
            Column::Note => {
                cell.extend_from_slice(NOTES[style.below(NOTES.len())].as_bytes());
            }
        }
        push_cell(line, &cell);
    }
    line.extend_from_slice(layout.newline);
}

/// Writes a cell, quoted (quotes doubled) when it holds a delimiter, a quote or a line break.
fn push_cell(line: &mut Vec<u8>, cell: &[u8]) {
    if cell
        .iter()
        .any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n'))
    {
        line.push(b'"');
        for &b in cell {
            if b == b'"' {
                line.push(b'"');
            }
            line.push(b);
        }
        line.push(b'"');
    } else {
        line.extend_from_slice(cell);
    }
}

/// Writes the instant `unix` (whole seconds) in a random offset, now and then with `t` for
/// `T` and a zero fraction; `audit` times (`sent_at`) may carry a real fraction.
fn push_messy_time(cell: &mut Vec<u8>, style: &mut SplitMix64, unix: i64, audit: bool) {
    let (offset, spelled) = OFFSETS[style.below(OFFSETS.len())];
    let start = cell.len();
    Timestamp::from_unix_seconds(unix + offset)
        .expect("generated times lie in 2026")
        .write_to(cell);
    cell.pop(); // the `Z`
    if style.chance(10) {
        cell[start + 10] = b't';
    }
    match style.range(0, 9) {
        0 => cell.extend_from_slice(b".000"),
        1 => cell.extend_from_slice(b".0"),
        2 if audit => {
            let _ = write!(cell, ".{:03}", style.range(1, 999));
        }
        3 if audit => {
            let _ = write!(cell, ".{:06}", style.range(1, 999_999));
        }
        _ => {}
    }
    cell.extend_from_slice(spelled.as_bytes());
}

/// Writes `seconds` in one of the duration forms spec section 2 accepts.
fn push_duration(cell: &mut Vec<u8>, style: &mut SplitMix64, seconds: u64) {
    let (minutes, rest) = (seconds / 60, seconds % 60);
    let _ = match style.range(0, 7) {
        0 => write!(cell, "{seconds}s"),
        1 => write!(cell, "{seconds}S"),
        2 if seconds % 3600 == 0 => write!(cell, "{}H", seconds / 3600),
        2 | 3 if rest == 0 => write!(
            cell,
            "{minutes}{}",
            if style.chance(50) { "m" } else { "M" }
        ),
        4 => write!(cell, "PT{seconds}S"),
        5 if seconds % 3600 == 0 => write!(cell, "PT{}H", seconds / 3600),
        5 if rest == 0 => write!(cell, "PT{minutes}M"),
        5 if minutes > 0 => write!(cell, "PT{minutes}M{rest}S"),
        _ => write!(cell, "{seconds}"),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_spell_the_same_seconds() {
        let mut style = SplitMix64::new(3);
        let mut forms = std::collections::BTreeSet::new();
        for seconds in [30u64, 90, 300, 3600] {
            for _ in 0..200 {
                let mut cell = Vec::new();
                push_duration(&mut cell, &mut style, seconds);
                let text = String::from_utf8(cell).unwrap();
                let parsed = crate::lease::values::Seconds::parse(&text)
                    .unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
                assert_eq!(parsed.get(), seconds, "{text:?}");
                forms.insert(text);
            }
        }
        for form in [
            "30", "30s", "30S", "PT30S", "PT1M30S", "5m", "5M", "PT5M", "1H", "PT1H",
        ] {
            assert!(forms.contains(form), "{form} never written: {forms:?}");
        }
    }

    #[test]
    fn times_in_other_offsets_are_the_same_instant() {
        let mut style = SplitMix64::new(5);
        let unix = 1_767_225_600 + 86_399;
        let mut offsets = std::collections::BTreeSet::new();
        for _ in 0..300 {
            let mut cell = Vec::new();
            push_messy_time(&mut cell, &mut style, unix, false);
            let text = String::from_utf8(cell).unwrap();
            let parsed = Timestamp::parse(&text).unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
            assert_eq!(
                parsed,
                Timestamp::from_unix_seconds(unix).unwrap(),
                "{text}"
            );
            offsets.insert(text[text.len() - 6..].to_owned());
        }
        assert!(
            offsets.contains("+01:00") && offsets.contains("-08:00"),
            "{offsets:?}"
        );
    }
}
