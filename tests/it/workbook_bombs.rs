//! Workbook bombs (issue 24): small files that inflate to far more than leasejudge lets a
//! workbook inflate to, made here (never committed), each read by every command that reads a
//! workbook, as a case file, a golden file and a submission. Each must stop with a located
//! error and exit 2 (or, for a bomb in a part the sheet does not need, succeed). Their time
//! and memory are measured by `bench/bombs.sh`, not here.
//!
//! The archives are written by hand so that, as an attacker's would, they declare sizes that
//! lie (every part's declared size is its compressed size), and their deflate streams are
//! made of blocks that repeat the unit before them (a block of 258-byte copies, repeated):
//! a few megabytes that inflate to hundreds.

use crate::common::said;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MIB: u64 = 1 << 20;

// ---- a deflate stream of text and repeats ---------------------------------------------------

/// Bits written least significant first, as deflate packs them.
#[derive(Default)]
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    fn put(&mut self, value: u64, count: u32) {
        self.acc |= value << self.n;
        self.n += count;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// A Huffman code, which deflate packs most significant bit first.
    fn code(&mut self, code: u64, len: u32) {
        let reversed = (0..len).fold(0, |r, i| (r << 1) | ((code >> i) & 1));
        self.put(reversed, len);
    }
}

/// A deflate stream's pieces: text as it is, or a unit repeated (the unit's length must
/// divide 258, the longest copy, so that every block ends on a whole unit).
enum Piece<'a> {
    Text(&'a [u8]),
    Repeat(&'a [u8], u64),
}

/// Stored (uncompressed) blocks of `text`, not final.
fn stored(text: &[u8], out: &mut Vec<u8>) {
    for chunk in text.chunks(65_535) {
        out.push(0);
        out.extend_from_slice(&(chunk.len() as u16).to_le_bytes());
        out.extend_from_slice(&(!(chunk.len() as u16)).to_le_bytes());
        out.extend_from_slice(chunk);
    }
}

/// One fixed-Huffman block of copies of length 258 from `distance` back, a whole number of
/// bytes long, and how many bytes it inflates to.
fn copy_block(distance: u64) -> (Vec<u8>, u64) {
    const BASES: [u64; 30] = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
        2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
    ];
    let code = BASES.iter().rposition(|&base| base <= distance).unwrap();
    let extra = if code < 4 { 0 } else { (code as u32 - 2) / 2 };
    let per_copy = 8 + 5 + extra;
    let copies = (4000..4100)
        .find(|k| (3 + k * per_copy + 7) % 8 == 0)
        .expect("an aligned block");
    let mut bits = Bits::default();
    bits.put(0b010, 3); // not final, fixed Huffman codes
    for _ in 0..copies {
        bits.code(0b1100_0101, 8); // length 258 (symbol 285)
        bits.code(code as u64, 5);
        bits.put(distance - BASES[code], extra);
    }
    bits.code(0, 7); // end of block
    assert_eq!(bits.n, 0);
    (bits.out, u64::from(copies) * 258)
}

/// A raw deflate stream of `pieces`, ended by an empty final block.
fn deflate(pieces: &[Piece<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Text(text) => stored(text, &mut out),
            Piece::Repeat(unit, bytes) => {
                assert_eq!(258 % unit.len(), 0, "a unit's length divides 258");
                stored(unit, &mut out);
                let (block, each) = copy_block(unit.len() as u64);
                for _ in 0..bytes.div_ceil(each) {
                    out.extend_from_slice(&block);
                }
            }
        }
    }
    out.extend_from_slice(&[0x01, 0, 0, 0xff, 0xff]); // final, stored, empty
    out
}

// ---- a zip archive ----------------------------------------------------------------------------

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A part: stored as it is (with its true size and checksum), or a deflate stream that
/// declares its compressed size as its size (a lie) and a checksum of nothing.
enum Part<'a> {
    Plain(&'a str, Vec<u8>),
    Bomb(&'a str, Vec<u8>),
}

fn zip(parts: &[Part<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut directory = Vec::new();
    let mut count = 0u16;
    for part in parts {
        let (name, method, data, crc, size) = match part {
            Part::Plain(name, data) => (*name, 0u16, data, crc32(data), data.len() as u32),
            Part::Bomb(name, data) => (*name, 8u16, data, 0, data.len() as u32),
        };
        let offset = out.len() as u32;
        let header = |sig: u32, central: bool| {
            let mut h = Vec::new();
            h.extend_from_slice(&sig.to_le_bytes());
            if central {
                h.extend_from_slice(&20u16.to_le_bytes());
            }
            for field in [20u16, 0, method, 0, 0] {
                h.extend_from_slice(&field.to_le_bytes());
            }
            for field in [crc, data.len() as u32, size] {
                h.extend_from_slice(&field.to_le_bytes());
            }
            h.extend_from_slice(&(name.len() as u16).to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes());
            if central {
                for field in [0u16, 0, 0] {
                    h.extend_from_slice(&field.to_le_bytes());
                }
                h.extend_from_slice(&0u32.to_le_bytes());
                h.extend_from_slice(&offset.to_le_bytes());
            }
            h.extend_from_slice(name.as_bytes());
            h
        };
        out.extend(header(0x0403_4b50, false));
        out.extend_from_slice(data);
        directory.extend(header(0x0201_4b50, true));
        count += 1;
    }
    let start = out.len() as u32;
    out.extend_from_slice(&directory);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    for field in [0u16, 0, count, count] {
        out.extend_from_slice(&field.to_le_bytes());
    }
    out.extend_from_slice(&(directory.len() as u32).to_le_bytes());
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

// ---- workbooks ---------------------------------------------------------------------------------

/// A case file's header and one good row, as a sheet's first two rows.
fn header_rows() -> String {
    let row = |number: u32, values: &[&str]| {
        let cells: String = values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                format!(
                    "<c r=\"{}{number}\" t=\"inlineStr\"><is><t>{v}</t></is></c>",
                    (b'A' + i as u8) as char
                )
            })
            .collect();
        format!("<row r=\"{number}\">{cells}</row>")
    };
    row(
        1,
        &[
            "case_id",
            "event",
            "observed_at",
            "job_id",
            "lease_id",
            "generation",
            "holder",
            "lease_duration",
        ],
    ) + &row(
        2,
        &[
            "c1",
            "offer",
            "2026-01-01T00:00:00Z",
            "j",
            "L",
            "1",
            "w",
            "30",
        ],
    )
}

/// An `.xlsx` of one sheet `Bomb`, its sheet's deflate stream made of `sheet`, with other
/// parts as given.
fn xlsx(sheet: &[Piece<'_>], others: Vec<Part<'_>>) -> Vec<u8> {
    let workbook = "<workbook xmlns:r=\"r\"><sheets><sheet name=\"Bomb\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>";
    let rels = "<Relationships><Relationship Id=\"rId1\" Target=\"worksheets/sheet1.xml\"/></Relationships>";
    let mut parts = vec![
        Part::Plain("xl/workbook.xml", workbook.into()),
        Part::Plain("xl/_rels/workbook.xml.rels", rels.into()),
    ];
    parts.extend(others);
    parts.push(Part::Bomb("xl/worksheets/sheet1.xml", deflate(sheet)));
    zip(&parts)
}

fn sheet_start() -> Vec<u8> {
    format!(
        "<worksheet><dimension ref=\"A1:XFD1048576\"/><sheetData>{}",
        header_rows()
    )
    .into_bytes()
}

const SHEET_END: &[u8] = b"</sheetData></worksheet>";

/// A comment of 129 bytes (which divides 258): XML that holds nothing, repeated.
fn comment() -> Vec<u8> {
    format!("<!--{}-->", "x".repeat(122)).into_bytes()
}

/// An `.ods` whose `content.xml` is the deflate stream of `table` inside one sheet `Bomb`.
fn ods(table: &[Piece<'_>]) -> Vec<u8> {
    let start = format!(
        "<office:document-content><office:body><office:spreadsheet><table:table table:name=\"Bomb\">{}{}",
        ods_row(&[
            "case_id", "event", "observed_at", "job_id", "lease_id", "generation", "holder",
            "lease_duration"
        ]),
        ods_row(&["c1", "offer", "2026-01-01T00:00:00Z", "j", "L", "1", "w", "30"])
    );
    let end = "</table:table></office:spreadsheet></office:body></office:document-content>";
    let mut pieces = vec![Piece::Text(start.as_bytes())];
    for piece in table {
        pieces.push(match piece {
            Piece::Text(t) => Piece::Text(t),
            Piece::Repeat(u, n) => Piece::Repeat(u, *n),
        });
    }
    pieces.push(Piece::Text(end.as_bytes()));
    zip(&[
        Part::Plain(
            "mimetype",
            b"application/vnd.oasis.opendocument.spreadsheet".to_vec(),
        ),
        Part::Plain("META-INF/manifest.xml", b"<manifest:manifest/>".to_vec()),
        Part::Bomb("content.xml", deflate(&pieces)),
    ])
}

fn ods_row(values: &[&str]) -> String {
    let cells: String = values
        .iter()
        .map(|v| {
            format!("<table:table-cell office:value-type=\"string\"><text:p>{v}</text:p></table:table-cell>")
        })
        .collect();
    format!("<table:table-row>{cells}</table:table-row>")
}

/// The bomb `name`: its bytes, and the located error every command must report (`None`: a
/// bomb that is never inflated, and the file reads as its two rows).
fn bomb(name: &str) -> (Vec<u8>, Option<String>) {
    let mut bombs: Vec<(&str, Vec<u8>, Option<String>)> = Vec::new();
    // One cell of 600 MB, the rest ordinary (what the attack found).
    let start = sheet_start();
    let cell = b"<row r=\"3\"><c r=\"A3\" t=\"inlineStr\"><is><t>";
    bombs.push((
        "cell.xlsx",
        xlsx(
            &[
                Piece::Text(&start),
                Piece::Text(cell),
                Piece::Repeat(b"x", 600_000_000),
                Piece::Text(b"</t></is></c></row>"),
                Piece::Text(SHEET_END),
            ],
            vec![],
        ),
        Some("cell.xlsx[Bomb]:3: cell A3: longer than 1048576 bytes (1 MiB), the most one cell may hold".into()),
    ));
    // A hundred million empty rows.
    bombs.push((
        "empty-rows.xlsx",
        xlsx(
            &[
                Piece::Text(&start),
                Piece::Repeat(b"<row/>", 600_000_000),
                Piece::Text(SHEET_END),
            ],
            vec![],
        ),
        Some("empty-rows.xlsx[Bomb]:1048577: more than 1048576 rows, the most a sheet has".into()),
    ));
    // A cell placed past the last column, and a row past the last row.
    let far = format!(
        "<row r=\"3\"><c r=\"{}3\"><v>1</v></c></row>",
        "Z".repeat(40)
    );
    bombs.push((
        "far-column.xlsx",
        xlsx(
            &[
                Piece::Text(&start),
                Piece::Text(far.as_bytes()),
                Piece::Text(SHEET_END),
            ],
            vec![],
        ),
        Some(format!(
            "far-column.xlsx[Bomb]:3: a cell at \"{}3\", not a place in a sheet (A1 to XFD1048576)",
            "Z".repeat(40)
        )),
    ));
    bombs.push((
        "far-row.xlsx",
        xlsx(
            &[
                Piece::Text(&start),
                Piece::Text(b"<row r=\"99999999\"/>"),
                Piece::Text(SHEET_END),
            ],
            vec![],
        ),
        Some("far-row.xlsx[Bomb]:3: a row numbered \"99999999\", not from 1 to 1048576".into()),
    ));
    // A sheet of 300 MB of nothing (comments): stopped at 256 MiB inflated.
    let nothing = comment();
    bombs.push((
        "inflated.xlsx",
        xlsx(
            &[Piece::Text(&start), Piece::Repeat(&nothing, 300 * MIB), Piece::Text(SHEET_END)],
            vec![],
        ),
        Some("inflated.xlsx[Bomb]:3: xl/worksheets/sheet1.xml: the workbook's parts inflate to more than 268435456 bytes (256 MiB), the most they may together".into()),
    ));
    // Shared strings of 600 MB, and styles of 600 MB: stopped at 32 MiB kept in memory.
    let string = format!("<si><t>{}</t></si>", "s".repeat(113)).into_bytes();
    let sheet_only = [Piece::Text(&start), Piece::Text(SHEET_END)];
    bombs.push((
        "shared-strings.xlsx",
        xlsx(
            &sheet_only,
            vec![Part::Bomb(
                "xl/sharedStrings.xml",
                deflate(&[Piece::Text(b"<sst>"), Piece::Repeat(&string, 300_000_000)]),
            )],
        ),
        Some("shared-strings.xlsx: not a readable workbook: xl/sharedStrings.xml: the parts kept in memory while the sheet is read (shared strings, styles, the list of sheets) inflate to more than 33554432 bytes (32 MiB), the most they may together".into()),
    ));
    let style = format!("<xf numFmtId=\"14\" fontId=\"{}\"/>", "0".repeat(100)).into_bytes();
    bombs.push((
        "styles.xlsx",
        xlsx(
            &sheet_only,
            vec![Part::Bomb(
                "xl/styles.xml",
                deflate(&[Piece::Text(b"<styleSheet><cellXfs>"), Piece::Repeat(&style, 300_000_000)]),
            )],
        ),
        Some("styles.xlsx: not a readable workbook: xl/styles.xml: the parts kept in memory while the sheet is read (shared strings, styles, the list of sheets) inflate to more than 33554432 bytes (32 MiB), the most they may together".into()),
    ));
    // One long shared string used by every row: 256 MiB of text handed on, at most.
    let long = format!("<sst><si><t>{}</t></si></sst>", "y".repeat(400_000));
    let mut rows = String::new();
    for n in 3..2000 {
        rows.push_str(&format!(
            "<row r=\"{n}\"><c r=\"A{n}\" t=\"inlineStr\"><is><t>c{n}</t></is></c><c r=\"B{n}\" t=\"s\"><v>0</v></c></row>"
        ));
    }
    bombs.push((
        "shared-reused.xlsx",
        xlsx(
            &[Piece::Text(&start), Piece::Text(rows.as_bytes()), Piece::Text(SHEET_END)],
            vec![Part::Plain("xl/sharedStrings.xml", long.into_bytes())],
        ),
        Some("shared-reused.xlsx[Bomb]:674: cell B674: the sheet's cells hold more than 268435456 bytes (256 MiB) of text".into()),
    ));
    // A part the sheet does not need: never inflated.
    bombs.push((
        "unused-part.xlsx",
        xlsx(
            &sheet_only,
            vec![Part::Bomb(
                "xl/media/image1.png",
                deflate(&[Piece::Repeat(b"\0", 600_000_000)]),
            )],
        ),
        None,
    ));
    // A directory of 40,000 parts.
    let names: Vec<String> = (0..25_000)
        .map(|i| format!("xl/media/image{i:06}-with-a-longer-name.png"))
        .collect();
    let mut parts: Vec<Part<'_>> = names.iter().map(|n| Part::Plain(n, Vec::new())).collect();
    parts.push(Part::Plain("xl/workbook.xml", b"<workbook/>".to_vec()));
    bombs.push((
        "many-parts.xlsx",
        zip(&parts),
        Some(
            "many-parts.xlsx: not a readable workbook: not a zip archive, as a workbook is ("
                .into(),
        ),
    ));
    // An .ods: one cell of 600 MB; a cell repeated past a row's length; a run of spaces.
    bombs.push((
        "cell.ods",
        ods(&[
            Piece::Text(b"<table:table-row><table:table-cell office:value-type=\"string\"><text:p>"),
            Piece::Repeat(b"x", 600_000_000),
            Piece::Text(b"</text:p></table:table-cell></table:table-row>"),
        ]),
        Some("cell.ods[Bomb]:3: cell A3: longer than 1048576 bytes (1 MiB), the most one cell may hold".into()),
    ));
    let repeated = format!(
        "<table:table-row table:number-rows-repeated=\"1048000\"><table:table-cell \
         table:number-columns-repeated=\"16000\" office:value-type=\"string\" \
         office:string-value=\"{}\"/></table:table-row>",
        "v".repeat(70)
    );
    bombs.push((
        "repeated.ods",
        ods(&[Piece::Text(repeated.as_bytes())]),
        Some("repeated.ods[Bomb]:3: the row is longer than 1048576 bytes (1 MiB)".into()),
    ));
    bombs.push((
        "spaces.ods",
        ods(&[Piece::Text(
            b"<table:table-row><table:table-cell office:value-type=\"string\"><text:p>\
              <text:s text:c=\"4000000000\"/></text:p></table:table-cell></table:table-row>",
        )]),
        Some(
            "spaces.ods[Bomb]:3: cell A3: longer than 1048576 bytes (1 MiB), the most one may hold"
                .into(),
        ),
    ));
    let (_, bytes, error) = bombs
        .into_iter()
        .find(|(n, ..)| *n == name)
        .expect("a bomb");
    (bytes, error)
}

// ---- every command ----------------------------------------------------------------------------

fn leasejudge(dir: &Path, args: &[&str]) -> Output {
    crate::common::leasejudge_in(dir, args)
}

/// Writes the bomb and a small case file and its matrix (a key and a submission).
fn setup(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), bytes).unwrap();
    std::fs::write(
        dir.path().join("cases.csv"),
        "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n\
         c1,offer,2026-01-01T00:00:00Z,j,L,1,w,30\n",
    )
    .unwrap();
    let made = leasejudge(
        dir.path(),
        &["adjudicate", "cases.csv", "-f", "csv", "-o", "key.csv"],
    );
    assert!(made.status.success(), "{}", said(&made));
    let path = dir.path().to_owned();
    (dir, path)
}

/// Which commands a bomb is read by: all of them, or (for the bombs that take seconds to
/// reach their limit in a debug build) one that reads it as a case file and one that reads
/// it as a matrix, the two ways every command reads a workbook.
#[derive(Clone, Copy, PartialEq)]
enum Commands {
    All,
    CaseFileAndMatrix,
}

/// Runs the commands on bomb `name`: each stops with its located error, exit 2.
fn stops_every_command(name: &str, commands: Commands) {
    let (bytes, error) = bomb(name);
    assert!(
        bytes.len() < 5 << 20,
        "{name} is small: {} bytes",
        bytes.len()
    );
    let (_dir, dir) = setup(name, &bytes);
    let mut case_file = vec![vec!["adjudicate", name, "-f", "csv"]];
    if commands == Commands::All {
        case_file.push(vec!["validate", name]);
        case_file.push(vec!["explain", name, "-f", "json"]);
    }
    for args in &case_file {
        let out = leasejudge(&dir, args);
        match &error {
            Some(error) => {
                assert_eq!(out.status.code(), Some(2), "{args:?}: {}", said(&out));
                assert!(
                    said(&out).contains(error.as_str()),
                    "{args:?} lacks {error:?}:\n{}",
                    said(&out)
                );
            }
            None => assert!(out.status.success(), "{args:?}: {}", said(&out)),
        }
    }
    // As a golden file, a submission and a key it is malformed (the unused-part bomb's header
    // is a case file's, which is no matrix either): `true` where the error is shown located.
    let mut matrices: Vec<(Vec<&str>, bool)> =
        vec![(vec!["grade", "key.csv", "--golden", name, "--reveal"], true)];
    if commands == Commands::All {
        matrices.push((vec!["check", "cases.csv", "--golden", name], true));
        matrices.push((vec!["grade", name, "--golden", "key.csv"], true));
        matrices.push((vec!["grade", "key.csv", "--golden", name], false));
    }
    for (args, located) in &matrices {
        let out = leasejudge(&dir, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", said(&out));
        match (&error, located) {
            (Some(error), true) => assert!(
                said(&out).contains(error.as_str()),
                "{args:?} lacks {error:?}:\n{}",
                said(&out)
            ),
            // The learner sees only that the key is malformed, not where.
            (_, false) => {
                assert!(
                    said(&out).contains("the key is malformed"),
                    "{}",
                    said(&out)
                );
                assert!(
                    !said(&out).contains(name),
                    "{args:?} names the key:\n{}",
                    said(&out)
                );
            }
            (None, true) => {}
        }
    }
}

#[test]
fn a_huge_cell_in_an_xlsx() {
    stops_every_command("cell.xlsx", Commands::All);
}

#[test]
fn a_huge_cell_in_an_ods() {
    stops_every_command("cell.ods", Commands::All);
}

#[test]
fn millions_of_empty_rows() {
    stops_every_command("empty-rows.xlsx", Commands::CaseFileAndMatrix);
}

#[test]
fn a_column_past_the_sheet() {
    stops_every_command("far-column.xlsx", Commands::All);
}

#[test]
fn a_row_past_the_sheet() {
    stops_every_command("far-row.xlsx", Commands::All);
}

#[test]
fn a_sheet_inflating_past_256_mib() {
    stops_every_command("inflated.xlsx", Commands::CaseFileAndMatrix);
}

#[test]
fn shared_strings_past_32_mib() {
    stops_every_command("shared-strings.xlsx", Commands::CaseFileAndMatrix);
}

#[test]
fn styles_past_32_mib() {
    stops_every_command("styles.xlsx", Commands::CaseFileAndMatrix);
}

#[test]
fn one_long_shared_string_in_every_row() {
    stops_every_command("shared-reused.xlsx", Commands::All);
}

#[test]
fn a_bomb_in_a_part_the_sheet_does_not_need_is_never_inflated() {
    stops_every_command("unused-part.xlsx", Commands::All);
}

#[test]
fn a_directory_of_many_parts() {
    stops_every_command("many-parts.xlsx", Commands::All);
}

#[test]
fn repeated_cells_in_an_ods() {
    stops_every_command("repeated.ods", Commands::All);
}

#[test]
fn repeated_spaces_in_an_ods() {
    stops_every_command("spaces.ods", Commands::All);
}

/// Bomb `name` on standard input, as a case file and as a submission: stopped, located at
/// `-`.
fn stops_on_standard_input(name: &str) {
    let (bytes, error) = bomb(name);
    let (_dir, dir) = setup(name, &bytes);
    let input = std::fs::File::open(dir.join(name)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .current_dir(&dir)
        .args(["adjudicate", "-", "--input-format", "workbook", "-f", "csv"])
        .stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let want = error.unwrap().replace(name, "-");
    assert!(said(&out).contains(&want), "{want}:\n{}", said(&out));
    // And as a submission on standard input, told a workbook by its bytes.
    let input = std::fs::File::open(dir.join(name)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .current_dir(&dir)
        .args(["grade", "-", "--golden", "key.csv"])
        .stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains(&want), "{want}:\n{}", said(&out));
}

#[test]
fn an_xlsx_bomb_on_standard_input_is_stopped_too() {
    stops_on_standard_input("cell.xlsx");
}

#[test]
fn an_ods_bomb_on_standard_input_is_stopped_too() {
    stops_on_standard_input("cell.ods");
}
