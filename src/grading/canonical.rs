//! A golden cell already in canonical form, told so without allocating: the fast path of the
//! golden read's check ([`Column::check_canonical`], which stays the authority and explains a
//! cell that is not). A golden file is what the engine wrote, so nearly every cell takes this
//! path; reading a golden file's cells cost a third of `check`'s instructions when each was
//! typed, printed back and compared (a list of every code collected for each code cell).

use std::sync::LazyLock;

use super::columns::{Column, ValueKind};
use crate::lease::{AckState, CaseReason, Decision, TerminalResult};

/// What the fast path checks a column's cells for.
#[derive(Clone, Copy)]
enum Form {
    /// Any text.
    Text,
    /// Digits, without a leading zero; `positive`: not 0 either.
    Integer { positive: bool },
    /// `YYYY-MM-DDTHH:MM:SSZ`, a time that exists.
    Timestamp,
    /// One of these codes.
    Code(&'static [&'static str]),
    /// `true` or `false`.
    Boolean,
    /// Something else (a list): the slow path.
    Slow,
}

/// Each column's form, by [`Column::index`], worked out once.
static FORMS: LazyLock<Vec<Form>> = LazyLock::new(|| Column::all().map(form_of).collect());

/// The codes of each kind, as text, made once.
static CODES: LazyLock<[Vec<&'static str>; 4]> = LazyLock::new(|| {
    [
        AckState::ALL.iter().map(|c| c.as_str()).collect(),
        TerminalResult::ALL.iter().map(|c| c.as_str()).collect(),
        Decision::ALL.iter().map(|c| c.as_str()).collect(),
        CaseReason::ALL.iter().map(|c| c.as_str()).collect(),
    ]
});

fn form_of(column: Column) -> Form {
    match column.kind() {
        ValueKind::Text => Form::Text,
        ValueKind::Integer => Form::Integer { positive: false },
        ValueKind::Duration => Form::Integer { positive: true },
        ValueKind::Timestamp => Form::Timestamp,
        ValueKind::Code => Form::Code(match column.name() {
            "ack_state" => &CODES[0],
            "terminal_result" => &CODES[1],
            "decision" => &CODES[2],
            _ => &CODES[3],
        }),
        ValueKind::Boolean => Form::Boolean,
        ValueKind::List => Form::Slow,
    }
}

/// Whether `cell` of `column` is certainly in canonical form; `false` when it is not or may
/// not be (an empty cell, a list, anything unusual): [`Column::check_canonical`] then says.
pub fn plainly_canonical(column: Column, cell: &str) -> bool {
    if cell.is_empty() {
        return false;
    }
    match FORMS[column.index()] {
        Form::Text => true,
        Form::Integer { positive } => canonical_digits(cell.as_bytes(), positive),
        Form::Timestamp => canonical_instant(cell.as_bytes()),
        Form::Code(codes) => codes.contains(&cell),
        Form::Boolean => cell == "true" || cell == "false",
        Form::Slow => false,
    }
}

/// Digits without a leading zero (`0` alone, unless `positive`), at most 19 of them (so
/// within `u64`).
fn canonical_digits(b: &[u8], positive: bool) -> bool {
    match b {
        [b'0'] => !positive,
        [b'1'..=b'9', rest @ ..] => rest.len() < 19 && rest.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` of a date and time that exist, year 0001 to 9999 (leap seconds,
/// fractions and the rest are for the slow path).
fn canonical_instant(b: &[u8]) -> bool {
    let [y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1, b'T', h0, h1, b':', n0, n1, b':', s0, s1, b'Z'] =
        *b
    else {
        return false;
    };
    let digits = [y0, y1, y2, y3, m0, m1, d0, d1, h0, h1, n0, n1, s0, s1];
    if !digits.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let n = |pair: &[u8]| pair.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
    let (year, month, day) = (n(&digits[0..4]), n(&digits[4..6]), n(&digits[6..8]));
    let (hour, minute, second) = (n(&digits[8..10]), n(&digits[10..12]), n(&digits[12..14]));
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    year > 0 && (1..=month_days).contains(&day) && hour < 24 && minute < 60 && second < 60
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::SplitMix64;

    /// Cells of every kind, canonical and not: what the engine writes, and near misses.
    fn cells() -> Vec<String> {
        let mut cells: Vec<String> = [
            "",
            "0",
            "00",
            "01",
            "1",
            "7",
            "10",
            "30",
            "3153600000",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999",
            "1234567890123456789",
            "-1",
            "+1",
            " 1",
            "1 ",
            "1.0",
            "1e3",
            "true",
            "false",
            "TRUE",
            "True",
            "x",
            "é",
            "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00.5Z",
            "2026-01-01T10:00:00.0Z",
            "2026-01-01T10:00:60Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T23:59:59Z",
            "2026-02-29T10:00:00Z",
            "2024-02-29T10:00:00Z",
            "2100-02-29T10:00:00Z",
            "2000-02-29T10:00:00Z",
            "0000-01-01T00:00:00Z",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
            "2026-13-01T10:00:00Z",
            "2026-00-01T10:00:00Z",
            "2026-04-31T10:00:00Z",
            "2026-01-00T10:00:00Z",
            "2026-01-01t10:00:00z",
            "2026-01-01T10:00:00z",
            "2026-01-01 10:00:00Z",
            "2026-01-01T10:00:00+00:00",
            "2026-01-01T10:00Z",
            "1;2",
            "2;1",
            "1;1",
            "01;2",
            "1;;2",
            ";",
            "0;3;9",
        ]
        .map(str::to_owned)
        .to_vec();
        for code in CODES.iter().flatten() {
            cells.push((*code).to_owned());
            cells.push(code.to_uppercase());
            cells.push(format!("{code} "));
        }
        // Random cells over the bytes these forms are made of, of the lengths they have.
        let alphabet = b"0123456789-:TZtz.;+ ";
        let mut rng = SplitMix64::new(38);
        for _ in 0..20_000 {
            let len = rng.range(1, 22) as usize;
            let cell: String = (0..len)
                .map(|_| alphabet[rng.range(0, alphabet.len() as u64 - 1) as usize] as char)
                .collect();
            cells.push(cell);
        }
        // Timestamps of random fields, in and out of range.
        for _ in 0..20_000 {
            let field = |rng: &mut SplitMix64, max: u64| rng.range(0, max);
            cells.push(format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
                field(&mut rng, 10_000) % 10_000,
                field(&mut rng, 14),
                field(&mut rng, 33),
                field(&mut rng, 25),
                field(&mut rng, 61),
                field(&mut rng, 61)
            ));
        }
        cells
    }

    #[test]
    fn the_fast_path_agrees_with_the_slow_path_on_every_cell() {
        let cells = cells();
        for column in Column::all() {
            let mut fast = 0;
            for cell in &cells {
                let slow = column.check_canonical(cell).is_ok();
                if plainly_canonical(column, cell) {
                    fast += 1;
                    assert!(slow, "{}: {cell:?} is not canonical", column.name());
                }
            }
            if !matches!(FORMS[column.index()], Form::Slow) {
                assert!(fast > 0, "{}: no cell took the fast path", column.name());
            }
        }
    }

    /// Every cell of the matrices the engine writes takes the fast path, but lists and empty
    /// cells.
    #[test]
    fn the_engines_cells_take_the_fast_path() {
        let options = crate::generate::Options {
            seed: 38,
            cases: 2000,
            rows_per_case: (1, 12),
            interleave: 8,
            mix: crate::generate::default_mix(),
        };
        let mut cases = Vec::new();
        crate::generate::write_cases(&options, &mut cases).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cases.csv");
        std::fs::write(&path, cases).unwrap();
        let settings = crate::streaming::StreamSettings::default();
        let records = crate::streaming::judge(
            &[crate::input::Source::file(path)],
            &settings,
            crate::streaming::Sink::Matrix(&crate::matrix::CsvMatrix),
            &mut |_, _, _| {},
        )
        .unwrap();
        let mut matrix = Vec::new();
        records.write_to(&mut matrix).unwrap();
        let mut reader = csv::Reader::from_reader(&matrix[..]);
        let headers = reader.headers().unwrap().clone();
        let columns: Vec<Column> = headers
            .iter()
            .map(|name| crate::grading::column_from_header(name).unwrap())
            .collect();
        let mut seen = 0;
        for record in reader.records() {
            for (cell, &column) in record.unwrap().iter().zip(&columns) {
                assert!(column.check_canonical(cell).is_ok());
                let slow_only = cell.is_empty() || matches!(FORMS[column.index()], Form::Slow);
                assert_eq!(plainly_canonical(column, cell), !slow_only, "{cell:?}");
                seen += 1;
            }
        }
        assert!(seen > 20_000);
    }
}
