//! The CSV delimiter (spec section 2): a comma, a semicolon or a tab, detected from the header
//! line, or forced with `--delimiter`.

use std::fmt;
use std::str::FromStr;

/// The byte that separates a CSV file's cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Delimiter(u8);

impl Delimiter {
    /// `,`: what the contract's own files use.
    pub const COMMA: Delimiter = Delimiter(b',');
    /// `;`: what spreadsheets save as "CSV" in locales whose decimal mark is a comma.
    pub const SEMICOLON: Delimiter = Delimiter(b';');
    /// A tab: "tab-separated values" or text copied out of a spreadsheet.
    pub const TAB: Delimiter = Delimiter(b'\t');
    /// The delimiters detection tries, in the order that breaks a tie.
    pub const DETECTED: [Delimiter; 3] = [Delimiter::COMMA, Delimiter::SEMICOLON, Delimiter::TAB];

    /// The delimiter `byte`, if it can be one: ASCII, and not `"`, `\n` or `\r`.
    pub fn new(byte: u8) -> Option<Delimiter> {
        (byte.is_ascii() && !matches!(byte, b'"' | b'\n' | b'\r')).then_some(Delimiter(byte))
    }

    /// The byte.
    pub fn byte(self) -> u8 {
        self.0
    }
}

impl fmt::Display for Delimiter {
    /// `","`, `";"`, or `tab`: as error messages name it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            b'\t' => f.write_str("tab"),
            byte => write!(f, "{:?}", char::from(byte).to_string()),
        }
    }
}

impl FromStr for Delimiter {
    type Err = String;

    /// `comma`, `semicolon`, `tab` (any case), or a single ASCII character (`\t` for a tab).
    fn from_str(text: &str) -> Result<Delimiter, String> {
        let byte = match text.to_ascii_lowercase().as_str() {
            "comma" => b',',
            "semicolon" => b';',
            "tab" | "\\t" => b'\t',
            _ if text.len() == 1 => text.as_bytes()[0],
            _ => {
                return Err(format!(
                    "{text:?} is not a delimiter: comma, semicolon, tab, or one ASCII character"
                ))
            }
        };
        Delimiter::new(byte)
            .ok_or_else(|| format!("{text:?} cannot separate cells (a quote or a line end)"))
    }
}

/// A header line split by one delimiter, as the csv crate splits it (quotes honoured): by
/// csv_core, as the csv crate does, with one reader per delimiter and thread, reset for each
/// line (building a reader for every candidate delimiter of every file was most of the time
/// of a run over thousands of small files).
fn split(line: &[u8], delimiter: Delimiter) -> Vec<String> {
    use csv_core::ReadRecordResult as Core;
    thread_local! {
        static READERS: std::cell::RefCell<Vec<(u8, csv_core::Reader)>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }
    let whole = || vec![String::from_utf8_lossy(line).into_owned()];
    READERS.with_borrow_mut(|readers| {
        let byte = delimiter.byte();
        let index = match readers.iter().position(|(b, _)| *b == byte) {
            Some(index) => index,
            None => {
                let reader = csv_core::ReaderBuilder::new().delimiter(byte).build();
                readers.push((byte, reader));
                readers.len() - 1
            }
        };
        let reader = &mut readers[index].1;
        reader.reset();
        // Unquoting only shortens a cell, and there is at most one cell more than bytes.
        let mut out = vec![0u8; line.len()];
        let mut ends = vec![0usize; line.len() + 1];
        let (mut input, mut written, mut ended) = (line, 0, 0);
        loop {
            let (result, read, wrote, end) =
                reader.read_record(input, &mut out[written..], &mut ends[ended..]);
            input = &input[read..];
            written += wrote;
            ended += end;
            match result {
                // At the end of the line, the next (empty) read ends the record.
                Core::InputEmpty => {}
                Core::Record => break,
                Core::End | Core::OutputFull | Core::OutputEndsFull => return whole(),
            }
        }
        let mut start = 0;
        ends[..ended]
            .iter()
            .map(|&end| {
                let cell = String::from_utf8_lossy(&out[start..end]).into_owned();
                start = end;
                cell
            })
            .collect()
    })
}

/// What a header line says about columns: `known` tells a cell that names a column the
/// reader knows, `is_key` the `case_id` column.
pub struct HeaderColumns<'a> {
    /// Whether a header cell names a known column.
    pub known: &'a dyn Fn(&str) -> bool,
    /// Whether a header cell names `case_id`.
    pub is_key: &'a dyn Fn(&str) -> bool,
}

/// The delimiter of a file whose first line is `line` (spec section 2): of those that split it
/// into a `case_id` column, the one that gives the most cells naming known columns (a tie goes
/// to the earlier of comma, semicolon, tab). When none does, the message says what the header
/// looked like and which delimiters were tried.
pub fn detect(line: &[u8], columns: &HeaderColumns<'_>) -> Result<Delimiter, String> {
    let mut best: Option<(usize, Delimiter)> = None;
    let mut widest: Option<(usize, Delimiter, Vec<String>)> = None;
    for delimiter in Delimiter::DETECTED {
        let cells = split(line, delimiter);
        let known = cells.iter().filter(|cell| (columns.known)(cell)).count();
        if cells.iter().any(|cell| (columns.is_key)(cell))
            && best.is_none_or(|(most, _)| known > most)
        {
            best = Some((known, delimiter));
        }
        if widest
            .as_ref()
            .is_none_or(|(most, _, _)| cells.len() > *most)
        {
            widest = Some((cells.len(), delimiter, cells));
        }
    }
    if let Some((_, delimiter)) = best {
        return Ok(delimiter);
    }
    let tried = Delimiter::DETECTED.map(|d| d.to_string()).join(" ");
    let (_, delimiter, cells) = widest.expect("three delimiters were tried");
    Err(if cells.len() == 1 {
        format!(
            "no case_id column: the header has {}; tried {tried}",
            shown(&cells)
        )
    } else {
        format!(
            "no case_id column: split by {delimiter}, the header has {}; tried {tried}",
            shown(&cells)
        )
    })
}

/// The header's cells as the errors show them: `one cell, "a;b"` or `2 cells, "a" "b"`.
fn shown(cells: &[String]) -> String {
    let quoted: Vec<String> = cells.iter().map(|cell| format!("{cell:?}")).collect();
    match cells.len() {
        1 => format!("one cell, {}", quoted[0]),
        n => format!("{n} cells, {}", quoted.join(" ")),
    }
}

/// Checks that the header `line` split by the `--delimiter` given has a `case_id` column; when
/// not, the message says, as [`detect`]'s does, what the header looked like, and that the
/// delimiter was forced (a file saved with another one is the usual cause).
pub fn check_forced(
    line: &[u8],
    delimiter: Delimiter,
    columns: &HeaderColumns<'_>,
) -> Result<(), String> {
    let cells = split(line, delimiter);
    if cells.iter().any(|cell| (columns.is_key)(cell)) {
        return Ok(());
    }
    Err(format!(
        "no case_id column: split by {delimiter} (as --delimiter says), the header has {}",
        shown(&cells)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix_header(line: &str) -> Result<Delimiter, String> {
        let known = |cell: &str| {
            ["case_id", "decision", "reason", "note"].contains(&cell.trim().to_lowercase().as_str())
        };
        let is_key = |cell: &str| cell.trim().eq_ignore_ascii_case("case_id");
        detect(
            line.as_bytes(),
            &HeaderColumns {
                known: &known,
                is_key: &is_key,
            },
        )
    }

    #[test]
    fn the_delimiter_that_names_most_columns_wins() {
        assert_eq!(
            matrix_header("case_id,decision,reason"),
            Ok(Delimiter::COMMA)
        );
        assert_eq!(
            matrix_header("case_id;decision;reason"),
            Ok(Delimiter::SEMICOLON)
        );
        assert_eq!(
            matrix_header("case_id\tdecision\treason"),
            Ok(Delimiter::TAB)
        );
        // A comma inside a heading does not make the file comma-separated.
        assert_eq!(
            matrix_header("case_id;\"decision, final\";reason;note"),
            Ok(Delimiter::SEMICOLON)
        );
        // One column: every delimiter ties, and the comma wins.
        assert_eq!(matrix_header("case_id"), Ok(Delimiter::COMMA));
        // More known cells beats a case_id found either way.
        assert_eq!(
            matrix_header("case_id;decision,x;reason"),
            Ok(Delimiter::SEMICOLON)
        );
    }

    #[test]
    fn a_header_without_case_id_says_what_was_tried() {
        assert_eq!(
            matrix_header("case_id|decision|reason"),
            Err("no case_id column: the header has one cell, \"case_id|decision|reason\"; tried \",\" \";\" tab".into())
        );
        assert_eq!(
            matrix_header("id;decision;reason"),
            Err("no case_id column: split by \";\", the header has 3 cells, \"id\" \"decision\" \"reason\"; tried \",\" \";\" tab".into())
        );
    }

    #[test]
    fn a_forced_delimiter_says_what_the_header_looked_like() {
        let known = |cell: &str| cell == "case_id" || cell == "decision";
        let is_key = |cell: &str| cell == "case_id";
        let columns = HeaderColumns {
            known: &known,
            is_key: &is_key,
        };
        assert_eq!(
            check_forced(b"case_id;decision", Delimiter::COMMA, &columns),
            Err("no case_id column: split by \",\" (as --delimiter says), the header has one cell, \"case_id;decision\"".into())
        );
        assert_eq!(
            check_forced(b"id,decision", Delimiter::COMMA, &columns),
            Err("no case_id column: split by \",\" (as --delimiter says), the header has 2 cells, \"id\" \"decision\"".into())
        );
        assert_eq!(
            check_forced(b"case_id,decision", Delimiter::COMMA, &columns),
            Ok(())
        );
    }

    #[test]
    fn delimiters_parse_by_name_or_character() {
        assert_eq!("comma".parse(), Ok(Delimiter::COMMA));
        assert_eq!("Semicolon".parse(), Ok(Delimiter::SEMICOLON));
        assert_eq!("tab".parse(), Ok(Delimiter::TAB));
        assert_eq!("\t".parse(), Ok(Delimiter::TAB));
        assert_eq!("|".parse::<Delimiter>().map(Delimiter::byte), Ok(b'|'));
        assert!("\"".parse::<Delimiter>().is_err());
        assert!("pipe".parse::<Delimiter>().is_err());
        assert_eq!(Delimiter::TAB.to_string(), "tab");
        assert_eq!(Delimiter::SEMICOLON.to_string(), "\";\"");
    }
}
