//! The XML reader of a workbook's parts: a pull reader of start tags, end tags and text, each
//! held whole while it is read and none longer than [`MAX_RECORD_BYTES`] (1 MiB), so that a
//! part of any size, however it is written, costs at most that much memory here.
//!
//! It reads what spreadsheets write, and no more: UTF-8 (a byte-order mark is skipped),
//! elements that nest and close by name (at most [`MAX_DEPTH`] deep), the five predefined
//! entities and character references. A document type declaration, which no workbook has and
//! which could declare entities, is an error; comments and processing instructions are skipped.

use std::io::Read;

use crate::limits::MAX_RECORD_BYTES;

/// The deepest elements may nest (a sheet's cells are five deep, an `.ods` cell's text seven).
pub(super) const MAX_DEPTH: usize = 256;

/// The size of the reader's buffer.
const BUFFER_BYTES: usize = 1 << 16;

/// What went wrong reading a part's XML.
#[derive(Debug)]
pub(super) enum XmlError {
    /// A tag, a text, a comment or a CDATA section longer than [`MAX_RECORD_BYTES`].
    TooLong,
    /// Not XML as a workbook writes it.
    Malformed(String),
    /// The part could not be read (inflated), or inflates past a limit.
    Io(std::io::Error),
}

impl std::fmt::Display for XmlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            XmlError::TooLong => write!(
                f,
                "an XML tag, text or comment longer than {MAX_RECORD_BYTES} bytes (1 MiB), \
                 the most one may hold"
            ),
            XmlError::Malformed(message) => write!(f, "not well-formed XML: {message}"),
            XmlError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl From<std::io::Error> for XmlError {
    fn from(e: std::io::Error) -> XmlError {
        XmlError::Io(e)
    }
}

fn malformed(message: impl Into<String>) -> XmlError {
    XmlError::Malformed(message.into())
}

/// One thing read.
#[derive(Debug)]
pub(super) enum Event<'a> {
    /// A start tag; an empty element (`<c/>`) is a start followed by its [`Event::End`].
    Start(Tag<'a>),
    /// The end of the element last started (its name was checked against the start's), and
    /// how many elements are still open.
    End(usize),
    /// Character data as written (entities not yet decoded: see [`unescape_into`]).
    Text(&'a [u8]),
    /// The content of a CDATA section, taken as it is.
    CData(&'a [u8]),
    /// The end of the part.
    Eof,
}

/// A start tag: its name and its attributes as written.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tag<'a> {
    /// The bytes between `<` and `>` (without a closing `/`).
    raw: &'a [u8],
    name_len: usize,
}

impl<'a> Tag<'a> {
    /// The name as written, with its prefix (`table:table-row`).
    pub(super) fn name(&self) -> &'a [u8] {
        &self.raw[..self.name_len]
    }

    /// The name without its prefix (`row` of `x:row`).
    pub(super) fn local_name(&self) -> &'a [u8] {
        local(self.name())
    }

    /// The value, as written (entities not decoded), of the first attribute named `key`
    /// (with its prefix).
    pub(super) fn attr(&self, key: &[u8]) -> Option<&'a [u8]> {
        self.attrs().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// Every attribute as (name, value as written), in order; stops at the first that is
    /// not well-formed.
    pub(super) fn attrs(&self) -> Attrs<'a> {
        Attrs {
            rest: &self.raw[self.name_len..],
        }
    }
}

/// The name after its prefix.
pub(super) fn local(name: &[u8]) -> &[u8] {
    match memchr::memchr(b':', name) {
        Some(colon) => &name[colon + 1..],
        None => name,
    }
}

/// The attributes of a [`Tag`].
pub(super) struct Attrs<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Attrs<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<(&'a [u8], &'a [u8])> {
        let rest = trim_start(self.rest);
        let eq = memchr::memchr(b'=', rest)?;
        let key = trim_end(&rest[..eq]);
        let after = trim_start(&rest[eq + 1..]);
        let quote = *after.first()?;
        if (quote != b'"' && quote != b'\'') || key.is_empty() {
            return None;
        }
        let end = memchr::memchr(quote, &after[1..])?;
        self.rest = &after[end + 2..];
        Some((key, &after[1..end + 1]))
    }
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|&b| !is_space(b))
        .unwrap_or(bytes.len());
    &bytes[start..]
}

fn trim_end(bytes: &[u8]) -> &[u8] {
    let end = bytes
        .iter()
        .rposition(|&b| !is_space(b))
        .map_or(0, |i| i + 1);
    &bytes[..end]
}

/// Where the token just read lies: in the buffer, or gathered in `token`.
#[derive(Clone, Copy)]
enum Span {
    Buffer(usize, usize),
    Token,
}

/// What kind of token was read.
#[derive(Clone, Copy)]
enum Kind {
    Text,
    CData,
    /// A tag (its bytes between `<` and `>`).
    Tag,
    Skipped,
}

/// The pull reader over one part.
pub(super) struct XmlReader<R> {
    inner: R,
    buf: Box<[u8]>,
    pos: usize,
    filled: usize,
    eof: bool,
    /// A token that did not lie whole in the buffer, gathered here (never over the limit).
    token: Vec<u8>,
    /// The names of the open elements, end to end, and where each starts in it.
    names: Vec<u8>,
    starts: Vec<usize>,
    /// An empty element was returned as its start: its end comes next.
    end_pending: bool,
    started: bool,
}

impl<R: Read> XmlReader<R> {
    /// A reader of the XML `inner` yields.
    pub(super) fn new(inner: R) -> XmlReader<R> {
        XmlReader {
            inner,
            buf: vec![0; BUFFER_BYTES].into_boxed_slice(),
            pos: 0,
            filled: 0,
            eof: false,
            token: Vec::new(),
            names: Vec::new(),
            starts: Vec::new(),
            end_pending: false,
            started: false,
        }
    }

    /// How many elements are open: after the start of a root element, 1.
    pub(super) fn depth(&self) -> usize {
        self.starts.len()
    }

    /// Reads into the buffer after what is left unread (moved to its front); `false` at the
    /// end of the input.
    fn fill(&mut self) -> Result<bool, XmlError> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.filled, 0);
            self.filled -= self.pos;
            self.pos = 0;
        }
        loop {
            match self.inner.read(&mut self.buf[self.filled..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.filled += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Makes at least `n` bytes (fewer at the end of the input) available from `pos`.
    fn ensure(&mut self, n: usize) -> Result<usize, XmlError> {
        while self.filled - self.pos < n {
            if !self.fill()? {
                break;
            }
        }
        Ok(self.filled - self.pos)
    }

    /// Adds `buf[from..to]` to the gathered token, within the limit.
    fn gather(&mut self, from: usize, to: usize) -> Result<(), XmlError> {
        if self.token.len() + (to - from) > MAX_RECORD_BYTES {
            return Err(XmlError::TooLong);
        }
        self.token.extend_from_slice(&self.buf[from..to]);
        Ok(())
    }

    /// Reads the next event.
    pub(super) fn next(&mut self) -> Result<Event<'_>, XmlError> {
        if self.end_pending {
            self.end_pending = false;
            self.pop_name();
            return Ok(Event::End(self.depth()));
        }
        if !self.started {
            self.started = true;
            self.ensure(4)?;
            let head = &self.buf[self.pos..self.filled];
            if head.starts_with(b"\xEF\xBB\xBF") {
                self.pos += 3;
            } else if head.starts_with(b"\xFE\xFF")
                || head.starts_with(b"\xFF\xFE")
                || head.starts_with(b"\0<")
                || head.starts_with(b"<\0")
            {
                return Err(malformed(
                    "UTF-16, which leasejudge does not read (only UTF-8)",
                ));
            }
        }
        loop {
            if self.pos == self.filled && !self.fill()? {
                if !self.starts.is_empty() {
                    return Err(malformed("the part ends inside an element"));
                }
                return Ok(Event::Eof);
            }
            let (kind, span) = if self.buf[self.pos] == b'<' {
                self.read_markup()?
            } else {
                (Kind::Text, self.read_text()?)
            };
            return match kind {
                Kind::Skipped => continue,
                Kind::Tag => self.tag(span),
                Kind::Text => Ok(Event::Text(self.span(span))),
                Kind::CData => Ok(Event::CData(self.span(span))),
            };
        }
    }

    /// The bytes of `span`.
    fn span(&self, span: Span) -> &[u8] {
        match span {
            Span::Buffer(from, to) => &self.buf[from..to],
            Span::Token => &self.token[..],
        }
    }

    /// A tag's event: a start (pushing its name) or an end (checked against the last start).
    fn tag(&mut self, span: Span) -> Result<Event<'_>, XmlError> {
        let raw = self.span(span);
        if let Some(rest) = raw.strip_prefix(b"/") {
            let name = trim_end(rest);
            let open = self.starts.last().map(|&start| &self.names[start..]);
            if open != Some(name) {
                let found = String::from_utf8_lossy(name).into_owned();
                return Err(malformed(match open {
                    Some(open) => format!(
                        "the end tag </{found}> closes <{}>",
                        String::from_utf8_lossy(open)
                    ),
                    None => format!("the end tag </{found}> closes nothing"),
                }));
            }
            self.pop_name();
            return Ok(Event::End(self.depth()));
        }
        let (raw, empty) = match raw.strip_suffix(b"/") {
            Some(raw) => (raw, true),
            None => (raw, false),
        };
        let name_len = raw.iter().position(|&b| is_space(b)).unwrap_or(raw.len());
        if name_len == 0 {
            return Err(malformed("a tag without a name"));
        }
        if self.starts.len() >= MAX_DEPTH {
            return Err(malformed(format!(
                "elements nested more than {MAX_DEPTH} deep"
            )));
        }
        let raw_len = raw.len();
        self.starts.push(self.names.len());
        // The name is copied before the borrow of the token ends (it may lie in either).
        match span {
            Span::Buffer(from, _) => self
                .names
                .extend_from_slice(&self.buf[from..from + name_len]),
            Span::Token => self.names.extend_from_slice(&self.token[..name_len]),
        }
        self.end_pending = empty;
        let raw = match span {
            Span::Buffer(from, _) => &self.buf[from..from + raw_len],
            Span::Token => &self.token[..raw_len],
        };
        Ok(Event::Start(Tag { raw, name_len }))
    }

    fn pop_name(&mut self) {
        if let Some(start) = self.starts.pop() {
            self.names.truncate(start);
        }
    }

    /// Reads text up to the next `<` or the end.
    fn read_text(&mut self) -> Result<Span, XmlError> {
        self.token.clear();
        let start = self.pos;
        if let Some(at) = memchr::memchr(b'<', &self.buf[start..self.filled]) {
            if at > MAX_RECORD_BYTES {
                return Err(XmlError::TooLong);
            }
            self.pos = start + at;
            return Ok(Span::Buffer(start, start + at));
        }
        loop {
            let from = self.pos;
            match memchr::memchr(b'<', &self.buf[from..self.filled]) {
                Some(at) => {
                    self.gather(from, from + at)?;
                    self.pos = from + at;
                    return Ok(Span::Token);
                }
                None => {
                    self.gather(from, self.filled)?;
                    self.pos = self.filled;
                    if !self.fill()? {
                        return Ok(Span::Token);
                    }
                }
            }
        }
    }

    /// Reads from a `<`: a tag, or a comment, CDATA section or processing instruction.
    fn read_markup(&mut self) -> Result<(Kind, Span), XmlError> {
        // Most markup is a tag: told by its second byte without looking further.
        if self.pos + 1 < self.filled && !matches!(self.buf[self.pos + 1], b'!' | b'?') {
            self.pos += 1;
            return Ok((Kind::Tag, self.read_tag()?));
        }
        let available = self.ensure(9)?;
        let head = &self.buf[self.pos..self.pos + available];
        if head.starts_with(b"<!--") {
            self.pos += 4;
            self.read_until(b"-->")?;
            return Ok((Kind::Skipped, Span::Token));
        }
        if head.starts_with(b"<![CDATA[") {
            self.pos += 9;
            self.read_until(b"]]>")?;
            let len = self.token.len() - 3;
            self.token.truncate(len);
            return Ok((Kind::CData, Span::Token));
        }
        if head.starts_with(b"<?") {
            self.pos += 2;
            self.read_until(b"?>")?;
            return Ok((Kind::Skipped, Span::Token));
        }
        if head.starts_with(b"<!") {
            return Err(malformed(
                "a document type declaration, which a workbook's XML does not have",
            ));
        }
        self.pos += 1;
        Ok((Kind::Tag, self.read_tag()?))
    }

    /// Reads up to and including `end` into the token.
    fn read_until(&mut self, end: &[u8]) -> Result<(), XmlError> {
        self.token.clear();
        let last = end[end.len() - 1];
        loop {
            let from = self.pos;
            match memchr::memchr(last, &self.buf[from..self.filled]) {
                Some(at) => {
                    self.gather(from, from + at + 1)?;
                    self.pos = from + at + 1;
                    if self.token.ends_with(end) {
                        return Ok(());
                    }
                }
                None => {
                    self.gather(from, self.filled)?;
                    self.pos = self.filled;
                    if !self.fill()? {
                        return Err(malformed("the part ends inside a comment or CDATA section"));
                    }
                }
            }
        }
    }

    /// Reads a tag's bytes after its `<`, up to the `>` outside quotes, which is taken.
    fn read_tag(&mut self) -> Result<Span, XmlError> {
        self.token.clear();
        let mut quote: Option<u8> = None;
        let start = self.pos;
        let mut at = start;
        let mut gathered = false;
        loop {
            // Tags are short: a plain scan beats setting up a vectorised one.
            let found = match quote {
                Some(q) => memchr::memchr(q, &self.buf[at..self.filled]),
                None => self.buf[at..self.filled]
                    .iter()
                    .position(|&b| matches!(b, b'>' | b'"' | b'\'')),
            };
            match found {
                Some(i) => {
                    let byte = self.buf[at + i];
                    at += i + 1;
                    if quote.is_some() {
                        quote = None;
                    } else if byte == b'>' {
                        let end = at - 1;
                        self.pos = at;
                        if !gathered {
                            if end - start > MAX_RECORD_BYTES {
                                return Err(XmlError::TooLong);
                            }
                            return Ok(Span::Buffer(start, end));
                        }
                        self.gather(0, end)?;
                        return Ok(Span::Token);
                    } else {
                        quote = Some(byte);
                    }
                    if self.token.len() + (at - self.pos) > MAX_RECORD_BYTES {
                        return Err(XmlError::TooLong);
                    }
                }
                None => {
                    // Gather what was scanned and read on.
                    let from = if gathered { 0 } else { start };
                    self.gather(from, self.filled)?;
                    gathered = true;
                    self.pos = self.filled;
                    if !self.fill()? {
                        return Err(malformed("the part ends inside a tag"));
                    }
                    at = 0;
                }
            }
        }
    }

    /// Reads on to the end of the element just started (its content skipped).
    pub(super) fn skip_element(&mut self) -> Result<(), XmlError> {
        let depth = self.depth();
        while self.depth() >= depth {
            if let Event::Eof = self.next()? {
                return Err(malformed("the part ends inside an element"));
            }
        }
        Ok(())
    }
}

/// Appends `raw` text or attribute value to `out` with its entities and character references
/// decoded and line ends normalised (`\r\n` and a lone `\r` read as `\n`, as XML says). With
/// `excel_escapes`, Excel's `_x00HH_` escapes in the text as written are decoded too (Excel
/// writes a carriage return as `_x000D_`; calamine decodes them so, in shared and inline
/// strings). `out` may not grow past `limit` bytes: `Err(None)` then; `Err(Some(message))`
/// for text that is not UTF-8 or names an unknown entity.
pub(super) fn unescape_into(
    raw: &[u8],
    out: &mut String,
    excel_escapes: bool,
    limit: usize,
) -> Result<(), Option<String>> {
    let text = std::str::from_utf8(raw).map_err(|_| Some("not valid UTF-8".to_owned()))?;
    let push = |out: &mut String, piece: &str| -> Result<(), Option<String>> {
        if out.len() + piece.len() > limit {
            return Err(None);
        }
        if excel_escapes && piece.contains("_x00") {
            push_excel_unescaped(out, piece);
        } else {
            out.push_str(piece);
        }
        Ok(())
    };
    let bytes = text.as_bytes();
    let mut from = 0;
    for at in memchr::memchr2_iter(b'&', b'\r', bytes) {
        if at < from {
            continue;
        }
        push(out, &text[from..at])?;
        if bytes[at] == b'\r' {
            // `\r\n` is one line end, and so is a lone `\r`.
            if bytes.get(at + 1) != Some(&b'\n') {
                push(out, "\n")?;
            }
            from = at + 1;
            continue;
        }
        let Some(semi) = memchr::memchr(b';', &bytes[at..]).filter(|&i| i <= 12) else {
            return Err(Some("an `&` that starts no entity".to_owned()));
        };
        let name = &text[at + 1..at + semi];
        let decoded = match name {
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let code = if let Some(hex) = name.strip_prefix("#x") {
                    u32::from_str_radix(hex, 16).ok()
                } else if let Some(decimal) = name.strip_prefix('#') {
                    decimal.parse::<u32>().ok()
                } else {
                    None
                };
                match code.and_then(char::from_u32) {
                    Some(c) => c,
                    None => return Err(Some(format!("an unknown entity &{name};"))),
                }
            }
        };
        let mut utf8 = [0u8; 4];
        if out.len() + decoded.len_utf8() > limit {
            return Err(None);
        }
        out.push_str(decoded.encode_utf8(&mut utf8));
        from = at + semi + 1;
    }
    push(out, &text[from..])
}

/// Appends `text` with Excel's `_x00HH_` escapes decoded (each a character from U+0000 to
/// U+00FF), as calamine 0.35 decodes them.
fn push_excel_unescaped(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'_'
            && bytes.len() - i >= 7
            && &bytes[i..i + 4] == b"_x00"
            && bytes[i + 6] == b'_'
        {
            if let Some(value) = std::str::from_utf8(&bytes[i + 4..i + 6])
                .ok()
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
            {
                out.push(value as char);
                i += 7;
                continue;
            }
        }
        let c = text[i..].chars().next().expect("i is at a character");
        out.push(c);
        i += c.len_utf8();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event of `xml`, read through a reader that yields `chunk` bytes at a time, as
    /// text: `<name a=v>`, `</>`, `"text"`, `[cdata]`.
    fn events(xml: &[u8], chunk: usize) -> Result<Vec<String>, String> {
        struct Chunks<'a>(&'a [u8], usize);
        impl Read for Chunks<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(self.1).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut reader = XmlReader::new(Chunks(xml, chunk));
        let mut out = Vec::new();
        loop {
            let event = reader.next().map_err(|e| e.to_string())?;
            out.push(match event {
                Event::Start(tag) => {
                    let mut text = format!("<{}", String::from_utf8_lossy(tag.name()));
                    for (key, value) in tag.attrs() {
                        text.push_str(&format!(
                            " {}={}",
                            String::from_utf8_lossy(key),
                            String::from_utf8_lossy(value)
                        ));
                    }
                    text + ">"
                }
                Event::End(_) => "</>".to_owned(),
                Event::Text(text) => format!("{:?}", String::from_utf8_lossy(text)),
                Event::CData(text) => format!("[{}]", String::from_utf8_lossy(text)),
                Event::Eof => break,
            });
        }
        Ok(out)
    }

    #[test]
    fn reads_tags_text_and_cdata_whatever_the_chunks() {
        let xml = b"\xEF\xBB\xBF<?xml version=\"1.0\"?>\n<a x='1>2' y = \"q\"><!-- c > -->\
            <b/>t&amp;u<![CDATA[<raw>]]></a >";
        let want = [
            "\"\\n\"",
            "<a x=1>2 y=q>",
            "<b>",
            "</>",
            "\"t&amp;u\"",
            "[<raw>]",
            "</>",
        ];
        for chunk in [1, 2, 3, 7, 1 << 20] {
            assert_eq!(events(xml, chunk).unwrap(), want, "chunk {chunk}");
        }
    }

    #[test]
    fn what_spreadsheets_do_not_write_is_an_error() {
        for (xml, message) in [
            (&b"<a></b>"[..], "the end tag </b> closes <a>"),
            (b"</a>", "closes nothing"),
            (b"<a><b></a>", "the end tag </a> closes <b>"),
            (b"<a>", "ends inside an element"),
            (b"<a x='1", "ends inside a tag"),
            (
                b"<!DOCTYPE a [<!ENTITY e 'x'>]><a/>",
                "document type declaration",
            ),
            (b"<a><!-- open", "ends inside a comment"),
            (b"\xFF\xFE<\0a\0/\0>\0", "UTF-16"),
        ] {
            for chunk in [1, 5, 1 << 20] {
                let error = events(xml, chunk).unwrap_err();
                assert!(error.contains(message), "{error} lacks {message}");
            }
        }
        let deep = "<a>".repeat(MAX_DEPTH + 1);
        assert!(events(deep.as_bytes(), 1 << 16)
            .unwrap_err()
            .contains("nested more than 256 deep"));
    }

    #[test]
    fn no_token_may_pass_one_mebibyte() {
        let limit = MAX_RECORD_BYTES;
        for (what, xml) in [
            ("text", format!("<a>{}</a>", "x".repeat(limit + 1))),
            ("tag", format!("<a b='{}'/>", "x".repeat(limit))),
            ("quoted >", format!("<a b='{}'/>", ">".repeat(limit))),
            ("comment", format!("<a><!--{}--></a>", "x".repeat(limit))),
            ("cdata", format!("<a><![CDATA[{}]]></a>", "x".repeat(limit))),
        ] {
            for chunk in [4096, 1 << 16, 1 << 22] {
                let error = events(xml.as_bytes(), chunk).unwrap_err();
                assert!(
                    error.contains("longer than 1048576 bytes"),
                    "{what}: {error}"
                );
            }
        }
        // Just under the limit is read.
        let text = format!("<a>{}</a>", "x".repeat(limit));
        assert_eq!(events(text.as_bytes(), 4096).unwrap().len(), 3);
    }

    #[test]
    fn entities_references_and_line_ends_are_decoded_within_a_limit() {
        let decode = |raw: &str, excel: bool| {
            let mut out = String::new();
            unescape_into(raw.as_bytes(), &mut out, excel, 64).map(|()| out)
        };
        assert_eq!(decode("a&lt;b&amp;&#65;&#x42;", false).unwrap(), "a<b&AB");
        assert_eq!(decode("a\r\nb\rc", false).unwrap(), "a\nb\nc");
        assert_eq!(decode("x_x000D_y", true).unwrap(), "x\ry");
        assert_eq!(decode("x_x000D_y", false).unwrap(), "x_x000D_y");
        assert_eq!(
            decode("&bogus;", false).unwrap_err().unwrap(),
            "an unknown entity &bogus;"
        );
        assert!(decode("a & b", false).is_err());
        assert_eq!(decode(&"x".repeat(65), false), Err(None));
        assert_eq!(decode(&"&amp;".repeat(65), false), Err(None));
    }
}
