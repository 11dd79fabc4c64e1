//! The CSV record reader (`leasejudge::input::records`) against the csv crate: the same
//! records from any bytes (quotes, `\r`, `\n`, blank lines, a BOM, non-ASCII), however the
//! input arrives (a byte at a time or in one piece); and the lines it gives records.

use std::io::Read;

use leasejudge::input::records::RecordReader;
use proptest::prelude::*;

/// A reader that hands out at most `chunk` bytes per read, so that records cross the
/// boundaries of what has been read.
struct Trickle<'a> {
    bytes: &'a [u8],
    chunk: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.chunk.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

type Cells = Vec<Vec<u8>>;

fn ours(bytes: &[u8], chunk: usize) -> Vec<(u64, Cells)> {
    ours_split_by(bytes, chunk, b',')
}

fn ours_split_by(bytes: &[u8], chunk: usize, delimiter: u8) -> Vec<(u64, Cells)> {
    let mut records = RecordReader::new(Trickle { bytes, chunk }, true);
    if delimiter != b',' {
        records.set_delimiter(delimiter);
    }
    let mut all = Vec::new();
    while let Some(record) = records.next_record().unwrap() {
        // What the reader claims is ASCII is (the cells are then used unchecked as text).
        if record.is_ascii() {
            assert!(record.iter().all(|cell| cell.is_ascii()));
        }
        // Its cells as text, unchecked, are each cell checked alone; `None` only when one
        // is not UTF-8.
        let one_by_one: Option<Vec<&str>> = record
            .iter()
            .map(|cell| std::str::from_utf8(cell).ok())
            .collect();
        match record.texts() {
            Some(texts) => assert_eq!(Some(texts.iter().collect()), one_by_one),
            None => assert!(one_by_one.is_none() || !record.is_ascii()),
        }
        all.push((record.line, record.iter().map(<[u8]>::to_vec).collect()));
    }
    all
}

fn csv_crate(bytes: &[u8]) -> Vec<Cells> {
    csv_crate_split_by(bytes, b',')
}

fn csv_crate_split_by(bytes: &[u8], delimiter: u8) -> Vec<Cells> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .delimiter(delimiter)
        .flexible(true)
        .from_reader(bytes);
    let mut record = csv::ByteRecord::new();
    let mut all = Vec::new();
    while reader.read_byte_record(&mut record).unwrap() {
        all.push(record.iter().map(<[u8]>::to_vec).collect());
    }
    all
}

fn pieces() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => Just(&b"ab"[..]),
        1 => Just(&b"\xC3\xA9"[..]),
        3 => Just(&b","[..]),
        2 => Just(&b";"[..]),
        2 => Just(&b"\t"[..]),
        2 => Just(&b"\""[..]),
        2 => Just(&b"\n"[..]),
        1 => Just(&b"\r"[..]),
        1 => Just(&b"\r\n"[..]),
        1 => Just(&b" "[..]),
        1 => Just(&b"\xEF\xBB\xBF"[..]),
        1 => Just(&b"\xFF"[..]),
    ];
    proptest::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn records_are_the_csv_crates(bytes in pieces(), chunk in 1usize..9) {
        let ours = ours(&bytes, chunk);
        let cells: Vec<Cells> = ours.iter().map(|(_, cells)| cells.clone()).collect();
        prop_assert_eq!(&cells, &csv_crate(&bytes));
        // Lines never go back, and a record's line counts the line ends before it.
        let mut previous = 1;
        for (line, _) in &ours {
            prop_assert!(*line >= previous);
            previous = *line;
        }
        prop_assert_eq!(ours, self::ours(&bytes, usize::MAX));
    }

    #[test]
    fn records_split_by_semicolon_or_tab_are_the_csv_crates(
        bytes in pieces(),
        chunk in 1usize..9,
        delimiter in prop_oneof![Just(b';'), Just(b'\t')],
    ) {
        let ours = ours_split_by(&bytes, chunk, delimiter);
        let cells: Vec<Cells> = ours.iter().map(|(_, cells)| cells.clone()).collect();
        prop_assert_eq!(&cells, &csv_crate_split_by(&bytes, delimiter));
        prop_assert_eq!(ours, ours_split_by(&bytes, usize::MAX, delimiter));
    }
}

#[test]
fn lines_end_at_a_lone_carriage_return_too() {
    // `\n`, `\r\n` and a lone `\r` each end one line, in quotes or not (spec section 2).
    let text = "h1;h2\ra;b\r\n\rc;\"x\ry\"\r\"p\r\nq\";z\nlast";
    let lines: Vec<u64> = ours_split_by(text.as_bytes(), 2, b';')
        .iter()
        .map(|(line, _)| *line)
        .collect();
    assert_eq!(lines, [1, 2, 4, 6, 8]);
}

#[test]
fn a_quote_left_open_at_the_end_is_flagged() {
    for (text, open) in [
        ("a,\"b\nc", true),
        ("a,\"b\"\"\n", true),
        ("a,\"b\"", false),
        ("a,\"b\"\"c\"", false),
        ("a,b\"c\n", false),
        ("a,\"b\"c\n", false),
    ] {
        let mut records = RecordReader::new(text.as_bytes(), true);
        let record = records.next_record().unwrap().unwrap();
        assert_eq!(record.is_unterminated(), open, "{text:?}");
    }
}

#[test]
fn a_record_is_on_the_line_of_its_first_byte() {
    let text = "\u{feff}h1,h2\r\n\r\n\na,b\n\"x\ny\",z\n\n  ,\nlast";
    let lines: Vec<(u64, Cells)> = ours(text.as_bytes(), 3);
    let expected: Vec<(u64, Vec<&str>)> = vec![
        (1, vec!["h1", "h2"]),
        (4, vec!["a", "b"]),
        (5, vec!["x\ny", "z"]),
        (8, vec!["  ", ""]),
        (9, vec!["last"]),
    ];
    let expected: Vec<(u64, Cells)> = expected
        .into_iter()
        .map(|(line, cells)| (line, cells.iter().map(|c| c.as_bytes().to_vec()).collect()))
        .collect();
    assert_eq!(lines, expected);
}

#[test]
fn a_record_longer_than_the_buffer_is_read_whole() {
    let long = "x".repeat(200_000);
    let text = format!("a,{long},b\n\"q,{long}\"\n");
    let records = ours(text.as_bytes(), 70_000);
    assert_eq!(records.len(), 2);
    assert_eq!(records[0].1[1].len(), 200_000);
    assert_eq!(records[1].1[0].len(), 200_002);
    assert_eq!(records, ours(text.as_bytes(), usize::MAX));
}

#[test]
fn line_ends_inside_quoted_cells_count_as_outside() {
    // Quoted cells read without csv_core (a quote opening each) and with it (text after a
    // closing quote), holding `\r\n`, `\n` and lone `\r`s, and doubled quotes.
    let text = "h\n\"a\"\"\r\nb\",c\r\n\"d\n\ne\"\nx,\"y\"\r\"z\r\r\"\n\"p\nq\"r\nlast";
    let expected: Vec<(u64, Vec<&str>)> = vec![
        (1, vec!["h"]),
        (2, vec!["a\"\r\nb", "c"]),
        (4, vec!["d\n\ne"]),
        (7, vec!["x", "y"]),
        (8, vec!["z\r\r"]),
        (11, vec!["p\nqr"]),
        (13, vec!["last"]),
    ];
    let expected: Vec<(u64, Cells)> = expected
        .into_iter()
        .map(|(line, cells)| (line, cells.iter().map(|c| c.as_bytes().to_vec()).collect()))
        .collect();
    for chunk in [1, 2, 3, 5, usize::MAX] {
        assert_eq!(ours(text.as_bytes(), chunk), expected, "chunk {chunk}");
    }
    let cells: Vec<Cells> = expected.into_iter().map(|(_, cells)| cells).collect();
    assert_eq!(csv_crate(text.as_bytes()), cells);
}

#[test]
fn long_quoted_cells_are_read_sixteen_bytes_at_a_time_as_the_csv_crate_reads_them() {
    // Quotes, line ends and non-ASCII bytes at every offset of a sixteen-byte chunk, in
    // quoted cells longer than one; each record is checked for its cells and its line.
    let mut text = String::from("h1,h2\n");
    let mut expected_lines = vec![1];
    let mut line = 2;
    for offset in 0..40 {
        for inner in ["\"\"", "\n", "\r\n", "é", ","] {
            let cell = format!("{}{inner}{}", "a".repeat(offset), "b".repeat(40 - offset));
            let escaped = cell.replace('"', "\"\"");
            text.push_str(&format!("x{offset},\"{escaped}\"\n"));
            expected_lines.push(line);
            line += 1 + cell.matches('\n').count() as u64;
        }
    }
    let cells: Vec<Cells> = csv_crate(text.as_bytes());
    for chunk in [7, 64, usize::MAX] {
        let ours = ours(text.as_bytes(), chunk);
        let lines: Vec<u64> = ours.iter().map(|(line, _)| *line).collect();
        assert_eq!(lines, expected_lines, "chunk {chunk}");
        let ours: Vec<Cells> = ours.into_iter().map(|(_, cells)| cells).collect();
        assert_eq!(ours, cells, "chunk {chunk}");
    }
}
