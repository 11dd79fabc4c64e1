//! What a file is by its first bytes, whatever its name says: a workbook (a zip archive, so a
//! renamed `.xlsx` is still read as one), UTF-16 text (what Excel saves as "Unicode Text",
//! renamed `.csv` by learners), or something that is not text at all (an old `.xls`, a PDF, a
//! picture), which is refused with what it is rather than read as junk; and UTF-16 text read
//! as the UTF-8 every reader expects, as it comes.

use std::io::{self, Read, Seek, SeekFrom};

use encoding_rs::{Decoder, Encoding, UTF_16BE, UTF_16LE};

/// How many bytes of a file [`sniff`] looks at.
pub const HEAD_BYTES: usize = 512;

/// What a file's first bytes say it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    /// A zip archive: a workbook (`.xlsx`, `.xlsm`, `.ods`), whatever its name.
    Workbook,
    /// UTF-16 text with a byte-order mark, in this encoding.
    Utf16(&'static Encoding),
    /// Not text, and not a workbook leasejudge reads: what it looks like, for a message.
    NotText(&'static str),
    /// Text (or too little to tell): read as its name says.
    Text,
}

/// What the bytes `head` (a file's first [`HEAD_BYTES`], or all of it) say the file is.
pub fn sniff(head: &[u8]) -> Content {
    const OLE2: &[u8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1";
    if head.starts_with(b"PK\x03\x04") {
        Content::Workbook
    } else if head.starts_with(b"\xff\xfe") {
        Content::Utf16(UTF_16LE)
    } else if head.starts_with(b"\xfe\xff") {
        Content::Utf16(UTF_16BE)
    } else if head.starts_with(OLE2) {
        Content::NotText(
            "an Excel 97-2003 workbook (.xls) or another old Office file, which leasejudge \
             does not read",
        )
    } else if head.starts_with(b"%PDF") {
        Content::NotText("a PDF document")
    } else if [&b"\x89PNG"[..], b"\xff\xd8\xff", b"GIF8"]
        .iter()
        .any(|magic| head.starts_with(magic))
    {
        Content::NotText("a picture")
    } else if head.starts_with(b"PK") || head.starts_with(b"\x1f\x8b") {
        Content::NotText("a compressed archive, not a workbook")
    } else if first_line(head).contains(&0) {
        // No header line holds a NUL byte; what follows a good one is for the reader to
        // locate, row by row.
        Content::NotText("binary data (a program or another file that is not text)")
    } else {
        Content::Text
    }
}

/// The bytes before the first line break.
fn first_line(head: &[u8]) -> &[u8] {
    let end = memchr::memchr(b'\n', head).unwrap_or(head.len());
    &head[..end]
}

/// The message of a file that is not text: what it is, and what to hand in instead.
pub fn not_text(what: &str) -> String {
    format!(
        "not a matrix: it is {what}; save the matrix as a CSV file (in a spreadsheet: Save As, \
         CSV UTF-8), or hand in the workbook itself (.xlsx, .xlsm or .ods)"
    )
}

/// Reads a file's first bytes into `head` (up to its length) and goes back to its start;
/// returns how many were read. A zip archive's reader and a matrix's sniffing both look first.
pub fn read_head(reader: &mut (impl Read + Seek), head: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < head.len() {
        match reader.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    reader.seek(SeekFrom::Start(0))?;
    Ok(filled)
}

/// UTF-16 text read as UTF-8, its byte-order mark dropped; a lone surrogate becomes U+FFFD,
/// as a spreadsheet shows it.
pub struct Utf16Text<R> {
    inner: R,
    decoder: Decoder,
    input: Box<[u8]>,
    /// The input read and not yet decoded: `input[start..end]`.
    start: usize,
    end: usize,
    eof: bool,
    /// Decoded and not yet handed on: `output[given..]`.
    output: Vec<u8>,
    given: usize,
}

impl<R: Read> Utf16Text<R> {
    /// `inner`, UTF-16 in `encoding` (with or without its byte-order mark), as UTF-8.
    pub fn new(inner: R, encoding: &'static Encoding) -> Utf16Text<R> {
        Utf16Text {
            inner,
            decoder: encoding.new_decoder_with_bom_removal(),
            input: vec![0; 64 << 10].into_boxed_slice(),
            start: 0,
            end: 0,
            eof: false,
            output: Vec::new(),
            given: 0,
        }
    }
}

impl<R: Read> Read for Utf16Text<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.given < self.output.len() || buf.is_empty() {
                let n = buf.len().min(self.output.len() - self.given);
                buf[..n].copy_from_slice(&self.output[self.given..self.given + n]);
                self.given += n;
                return Ok(n);
            }
            if self.eof && self.start == self.end {
                return Ok(0);
            }
            if self.start == self.end {
                self.start = 0;
                self.end = super::read_some(&mut self.inner, &mut self.input)?;
                self.eof = self.end == 0;
            }
            let source = &self.input[self.start..self.end];
            let room = self
                .decoder
                .max_utf8_buffer_length(source.len())
                .expect("64 KiB decodes to a few hundred KiB");
            self.output.resize(room, 0);
            let (_, read, written, _) =
                self.decoder
                    .decode_to_utf8(source, &mut self.output, self.eof);
            self.start += read;
            self.output.truncate(written);
            self.given = 0;
            if self.eof {
                // Everything is decoded (the decoder has room for it all).
                self.start = self.end;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(text: &str, little: bool) -> Vec<u8> {
        let mut bytes = if little {
            vec![0xff, 0xfe]
        } else {
            vec![0xfe, 0xff]
        };
        for unit in text.encode_utf16() {
            let pair = if little {
                unit.to_le_bytes()
            } else {
                unit.to_be_bytes()
            };
            bytes.extend_from_slice(&pair);
        }
        bytes
    }

    #[test]
    fn utf16_text_reads_as_utf8_however_it_is_cut() {
        let text = "case_id\tdecision\treason\r\nprobe-1\tACTIVE\tstale_generation\r\nü€😀\r\n"
            .repeat(5_000);
        for little in [true, false] {
            let bytes = utf16(&text, little);
            let Content::Utf16(encoding) = sniff(&bytes) else {
                panic!("UTF-16 with a BOM");
            };
            // Read a byte at a time too: a code unit and a surrogate pair cut between reads.
            for chunk in [1usize, 7, 1 << 16] {
                let mut reader = Utf16Text::new(&bytes[..], encoding);
                let mut out = Vec::new();
                let mut buf = vec![0u8; chunk];
                loop {
                    let n = reader.read(&mut buf).unwrap();
                    if n == 0 {
                        break;
                    }
                    out.extend_from_slice(&buf[..n]);
                }
                assert_eq!(String::from_utf8(out).unwrap(), text, "{little} {chunk}");
            }
        }
    }

    #[test]
    fn files_are_told_by_their_first_bytes() {
        assert_eq!(sniff(b"PK\x03\x04rest"), Content::Workbook);
        assert_eq!(sniff(b"case_id,decision\n"), Content::Text);
        assert_eq!(sniff(b"\xef\xbb\xbfcase_id"), Content::Text);
        assert_eq!(sniff(b""), Content::Text);
        assert!(
            matches!(sniff(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), Content::NotText(w) if w.contains(".xls"))
        );
        assert!(matches!(sniff(b"%PDF-1.7"), Content::NotText(w) if w.contains("PDF")));
        assert_eq!(
            sniff(b"\x89PNG\r\n\x1a\n\0\0"),
            Content::NotText("a picture")
        );
        assert!(
            matches!(sniff(b"\x7fELF\x02\x01\x01\0\0"), Content::NotText(w) if w.starts_with("binary"))
        );
        // A good header, then a NUL: the reader locates it.
        assert_eq!(sniff(b"case_id,decision\n\0\0"), Content::Text);
    }
}
