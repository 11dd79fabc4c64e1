//! The text of an `.xlsx` workbook: its shared strings (kept in memory in pieces, within the
//! workbook's budget) and the text of a string element, read as calamine reads it.

use super::super::archive::{Archive, Budget, Part};
use super::super::xml::{unescape_into, Event, XmlReader};
use super::super::Located;
use super::{part_error, why};
use crate::limits::MAX_RECORD_BYTES;

/// The shared strings, kept in pieces of [`Strings::PIECE`] bytes (no copy as they grow,
/// and no more than they hold besides four bytes a string).
#[derive(Default)]
pub(super) struct Strings {
    pieces: Vec<Vec<u8>>,
    /// Where each string ends, counted over all pieces, in pieces of `PIECE / 4` ends.
    ends: Vec<Vec<u32>>,
    pub(super) len: usize,
    bytes: u64,
}

impl Strings {
    const PIECE: usize = 1 << 20;

    fn push(&mut self, text: &str) {
        let mut rest = text.as_bytes();
        while !rest.is_empty() {
            if self.pieces.last().is_none_or(|p| p.len() == Self::PIECE) {
                self.pieces.push(Vec::with_capacity(Self::PIECE));
            }
            let piece = self.pieces.last_mut().expect("just pushed");
            let n = rest.len().min(Self::PIECE - piece.len());
            piece.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
        }
        self.bytes += text.len() as u64;
        if self.ends.last().is_none_or(|e| e.len() == Self::PIECE / 4) {
            self.ends.push(Vec::with_capacity(Self::PIECE / 4));
        }
        // The held parts are at most 32 MiB, so an offset fits in 32 bits.
        let end = u32::try_from(self.bytes).expect("shared strings within 4 GiB");
        self.ends.last_mut().expect("just pushed").push(end);
        self.len += 1;
    }

    fn end(&self, index: usize) -> u64 {
        u64::from(self.ends[index / (Self::PIECE / 4)][index % (Self::PIECE / 4)])
    }

    /// String `index`, if there is one.
    pub(super) fn get(&self, index: usize) -> Option<String> {
        if index >= self.len {
            return None;
        }
        let start = if index == 0 { 0 } else { self.end(index - 1) } as usize;
        let end = self.end(index) as usize;
        let mut bytes = Vec::with_capacity(end - start);
        let mut at = start;
        while at < end {
            let piece = &self.pieces[at / Self::PIECE];
            let from = at % Self::PIECE;
            let n = (end - at).min(Self::PIECE - from);
            bytes.extend_from_slice(&piece[from..from + n]);
            at += n;
        }
        Some(String::from_utf8(bytes).expect("pushed as text, split and joined in order"))
    }
}

pub(super) fn read_shared_strings(
    archive: &mut Archive<'_>,
    budget: &Budget,
) -> Result<Strings, String> {
    const PART: &str = "xl/sharedStrings.xml";
    let mut strings = Strings::default();
    let Some(index) = archive.find(PART) else {
        return Ok(strings);
    };
    let mut xml = archive.xml(index, PART, true, budget)?;
    let fail = |e| part_error(PART, e);
    let mut text = String::new();
    loop {
        match xml.next().map_err(fail)? {
            Event::Start(tag) if tag.local_name() == b"si" => {
                text.clear();
                read_rich_text(&mut xml, &mut text).map_err(|e| match e {
                    Located::Xml(e) => fail(e),
                    Located::Message(m) => format!("{PART}: string {}: {m}", strings.len + 1),
                })?;
                strings.push(&text);
            }
            Event::Eof => return Ok(strings),
            _ => {}
        }
    }
}

/// Reads the rest of a string element (`si` of the shared strings, `is` of a cell) into
/// `out`: the text of its `t` elements, those of phonetic runs (`rPh`) left out, as calamine
/// reads it; at most a record's length.
pub(super) fn read_rich_text(
    xml: &mut XmlReader<Part<'_, '_>>,
    out: &mut String,
) -> Result<(), Located> {
    let open = xml.depth();
    // The depth of the open `t` and `rPh`, if any.
    let (mut text_at, mut phonetic_at): (Option<usize>, Option<usize>) = (None, None);
    loop {
        match xml.next().map_err(Located::Xml)? {
            Event::Start(tag) => {
                let name = tag.local_name();
                let (phonetic, text) = (name == b"rPh", name == b"t");
                let depth = xml.depth();
                if phonetic && phonetic_at.is_none() {
                    phonetic_at = Some(depth);
                } else if text && phonetic_at.is_none() && text_at.is_none() {
                    text_at = Some(depth);
                }
            }
            Event::Text(raw) if text_at.is_some() => {
                unescape_into(raw, out, true, MAX_RECORD_BYTES).map_err(too_long)?
            }
            Event::CData(raw) if text_at.is_some() => push_cdata(raw, out)?,
            Event::End(depth) => {
                if depth < open {
                    return Ok(());
                }
                if text_at.is_some_and(|at| depth < at) {
                    text_at = None;
                }
                if phonetic_at.is_some_and(|at| depth < at) {
                    phonetic_at = None;
                }
            }
            _ => {}
        }
    }
}

/// An [`unescape_into`] error as a [`Located`] message.
fn too_long(error: Option<String>) -> Located {
    Located::Message(why(error))
}

/// Appends a CDATA section's text, within a record's length.
fn push_cdata(raw: &[u8], out: &mut String) -> Result<(), Located> {
    let raw =
        std::str::from_utf8(raw).map_err(|_| Located::Message("not valid UTF-8".to_owned()))?;
    if out.len() + raw.len() > MAX_RECORD_BYTES {
        return Err(too_long(None));
    }
    out.push_str(raw);
    Ok(())
}

/// Reads the rest of an element's text (all of it, at any depth) into `out`, within a
/// record's length.
pub(super) fn read_text(
    xml: &mut XmlReader<Part<'_, '_>>,
    out: &mut String,
) -> Result<(), Located> {
    let open = xml.depth();
    loop {
        match xml.next().map_err(Located::Xml)? {
            Event::Text(raw) => {
                unescape_into(raw, out, false, MAX_RECORD_BYTES).map_err(too_long)?
            }
            Event::CData(raw) => push_cdata(raw, out)?,
            Event::End(depth) if depth < open => return Ok(()),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_strings_span_pieces() {
        let mut strings = Strings::default();
        let long = "é".repeat(Strings::PIECE / 2 + 3);
        strings.push("a");
        strings.push(&long);
        strings.push("");
        strings.push(&long);
        assert_eq!(strings.get(0).as_deref(), Some("a"));
        assert_eq!(strings.get(1).as_deref(), Some(long.as_str()));
        assert_eq!(strings.get(2).as_deref(), Some(""));
        assert_eq!(strings.get(3).as_deref(), Some(long.as_str()));
        assert_eq!(strings.get(4), None);
    }
}
