//! The one codec of the records kept in temporary files: fields appended little-endian to a
//! byte buffer ([`Put`]) and read back from any reader ([`Get`]), a record at a time
//! ([`Record`]). Every read returns `io::Result`: a file cut short is `UnexpectedEof`, bytes
//! that are not what was written are `InvalidData`, and neither is ever a panic.

use std::io::{self, Read};

/// A record kept in a temporary file: appended to a buffer and read back as it was written.
pub trait Record: Sized {
    /// Appends its encoding to `out`.
    fn encode(&self, out: &mut impl Put);
    /// Reads back one record [`Record::encode`] wrote.
    fn decode(input: &mut impl Read) -> io::Result<Self>;
}

/// Where a record's fields are appended, little-endian: lengths before texts, and an
/// optional text as its length plus one (0 for none).
pub trait Put {
    /// Appends `bytes` as they are.
    fn put_raw(&mut self, bytes: &[u8]);

    /// Appends one byte.
    #[inline]
    fn put_u8(&mut self, value: u8) {
        self.put_raw(&[value]);
    }

    /// Appends `true` as 1, `false` as 0.
    #[inline]
    fn put_flag(&mut self, value: bool) {
        self.put_u8(u8::from(value));
    }

    /// Appends four bytes.
    #[inline]
    fn put_u32(&mut self, value: u32) {
        self.put_raw(&value.to_le_bytes());
    }

    /// Appends eight bytes.
    #[inline]
    fn put_u64(&mut self, value: u64) {
        self.put_raw(&value.to_le_bytes());
    }

    /// Appends a number or none: a flag, then the number if there is one.
    #[inline]
    fn put_optional_u64(&mut self, value: Option<u64>) {
        self.put_flag(value.is_some());
        if let Some(value) = value {
            self.put_u64(value);
        }
    }

    /// Appends a text: its length (eight bytes), then its bytes.
    #[inline]
    fn put_str(&mut self, text: &str) {
        self.put_u64(text.len() as u64);
        self.put_raw(text.as_bytes());
    }

    /// Appends a text or none: its length plus one (0 for none), then its bytes.
    #[inline]
    fn put_optional_str(&mut self, text: Option<&str>) {
        match text {
            None => self.put_u64(0),
            Some(text) => {
                self.put_u64(text.len() as u64 + 1);
                self.put_raw(text.as_bytes());
            }
        }
    }
}

impl Put for Vec<u8> {
    #[inline]
    fn put_raw(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// The error of bytes that do not read back as they were written (`what` says which).
#[cold]
pub fn corrupt(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("a temporary file does not read back as it was written ({what})"),
    )
}

/// The error of a temporary file that ends inside a record.
#[cold]
fn cut_short() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "a temporary file ends inside a record",
    )
}

/// Texts up to this long are read into a buffer made to their size at once; a longer one
/// grows as its bytes come, so that a corrupt length cannot ask for more memory than the
/// file holds.
const TEXT_AT_ONCE: u64 = 1 << 16;

/// Reads back the fields [`Put`] appended, from any reader.
pub trait Get: Read {
    /// The next `N` bytes.
    #[inline]
    fn get_array<const N: usize>(&mut self) -> io::Result<[u8; N]> {
        let mut bytes = [0; N];
        self.get_raw(&mut bytes)?;
        Ok(bytes)
    }

    /// Fills `bytes`.
    #[inline]
    fn get_raw(&mut self, bytes: &mut [u8]) -> io::Result<()> {
        self.read_exact(bytes).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => cut_short(),
            _ => e,
        })
    }

    /// One byte.
    #[inline]
    fn get_u8(&mut self) -> io::Result<u8> {
        self.get_array::<1>().map(|[byte]| byte)
    }

    /// A flag [`Put::put_flag`] wrote.
    #[inline]
    fn get_flag(&mut self) -> io::Result<bool> {
        match self.get_u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(corrupt("a flag that is neither 0 nor 1")),
        }
    }

    /// Four bytes.
    #[inline]
    fn get_u32(&mut self) -> io::Result<u32> {
        self.get_array().map(u32::from_le_bytes)
    }

    /// Eight bytes.
    #[inline]
    fn get_u64(&mut self) -> io::Result<u64> {
        self.get_array().map(u64::from_le_bytes)
    }

    /// A number or none, as [`Put::put_optional_u64`] wrote it.
    #[inline]
    fn get_optional_u64(&mut self) -> io::Result<Option<u64>> {
        match self.get_flag()? {
            true => self.get_u64().map(Some),
            false => Ok(None),
        }
    }

    /// A text [`Put::put_str`] wrote.
    #[inline]
    fn get_string(&mut self) -> io::Result<String> {
        let len = self.get_u64()?;
        self.get_text(len)
    }

    /// A text or none, as [`Put::put_optional_str`] wrote it.
    #[inline]
    fn get_optional_string(&mut self) -> io::Result<Option<String>> {
        match self.get_u64()? {
            0 => Ok(None),
            len => self.get_text(len - 1).map(Some),
        }
    }

    /// A text of `len` bytes.
    #[inline]
    fn get_text(&mut self, len: u64) -> io::Result<String> {
        let mut bytes;
        if len <= TEXT_AT_ONCE {
            bytes = vec![0; len as usize];
            self.get_raw(&mut bytes)?;
        } else {
            bytes = Vec::new();
            if Read::take(&mut *self, len).read_to_end(&mut bytes)? as u64 != len {
                return Err(cut_short());
            }
        }
        String::from_utf8(bytes).map_err(|_| corrupt("a text that is not UTF-8"))
    }

    /// The `N` bytes a record starts with, or `None` where the records end (an end inside
    /// them is an error).
    #[inline]
    fn get_first<const N: usize>(&mut self) -> io::Result<Option<[u8; N]>> {
        let mut first = [0; N];
        loop {
            match self.read(&mut first[..1]) {
                Ok(0) => return Ok(None),
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.get_raw(&mut first[1..])?;
        Ok(Some(first))
    }
}

impl<R: Read + ?Sized> Get for R {}

/// The first `len` bytes of `bytes`, which then hold the rest (a record decoded in place,
/// its texts borrowed).
#[inline]
pub fn take<'a>(bytes: &mut &'a [u8], len: usize) -> io::Result<&'a [u8]> {
    let (head, tail) = bytes.split_at_checked(len).ok_or_else(cut_short)?;
    *bytes = tail;
    Ok(head)
}

/// A text with its place: a case id and its index in its file, say (the grading spool's
/// record; here because a record of foreign types can be one only in the trait's crate).
impl Record for (u64, String) {
    fn encode(&self, out: &mut impl Put) {
        out.put_u64(self.0);
        out.put_str(&self.1);
    }

    fn decode(input: &mut impl Read) -> io::Result<(u64, String)> {
        Ok((input.get_u64()?, input.get_string()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of field, in one record.
    #[derive(Debug, PartialEq)]
    struct Fields(
        u8,
        bool,
        u32,
        u64,
        String,
        Option<String>,
        Option<String>,
        Option<u64>,
    );

    impl Record for Fields {
        fn encode(&self, out: &mut impl Put) {
            out.put_u8(self.0);
            out.put_flag(self.1);
            out.put_u32(self.2);
            out.put_u64(self.3);
            out.put_str(&self.4);
            out.put_optional_str(self.5.as_deref());
            out.put_optional_str(self.6.as_deref());
            out.put_optional_u64(self.7);
        }

        fn decode(input: &mut impl Read) -> io::Result<Fields> {
            Ok(Fields(
                input.get_u8()?,
                input.get_flag()?,
                input.get_u32()?,
                input.get_u64()?,
                input.get_string()?,
                input.get_optional_string()?,
                input.get_optional_string()?,
                input.get_optional_u64()?,
            ))
        }
    }

    fn fields() -> Fields {
        Fields(
            7,
            true,
            u32::MAX - 1,
            u64::MAX - 2,
            "späte".into(),
            None,
            Some(String::new()),
            Some(9),
        )
    }

    #[test]
    fn a_record_reads_back_as_written_and_the_records_end_cleanly() {
        let mut bytes = Vec::new();
        fields().encode(&mut bytes);
        fields().encode(&mut bytes);
        bytes.put_u64(42);
        let mut input = &bytes[..];
        assert_eq!(Fields::decode(&mut input).unwrap(), fields());
        assert_eq!(Fields::decode(&mut input).unwrap(), fields());
        assert_eq!(input.get_first().unwrap(), Some(42u64.to_le_bytes()));
        assert_eq!(input.get_first::<8>().unwrap(), None);
    }

    #[test]
    fn a_record_cut_anywhere_is_an_error_not_a_panic() {
        let mut bytes = Vec::new();
        fields().encode(&mut bytes);
        for len in 0..bytes.len() {
            let e = Fields::decode(&mut &bytes[..len]).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "cut at {len}");
            assert_eq!(e.to_string(), "a temporary file ends inside a record");
        }
        // A first word cut short is not the end of the records.
        let e = (&[1u8, 2, 3][..]).get_first::<8>().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        let mut rest: &[u8] = b"abc";
        assert_eq!(take(&mut rest, 2).unwrap(), b"ab");
        assert_eq!(
            take(&mut rest, 2).unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
    }

    #[test]
    fn bytes_that_were_not_written_so_are_invalid_data() {
        let mut bytes = Vec::new();
        fields().encode(&mut bytes);
        // The flag, then the text's first byte made half of a UTF-8 sequence.
        let mut bad_flag = bytes.clone();
        bad_flag[1] = 2;
        let text_at = 1 + 1 + 4 + 8 + 8;
        let mut bad_text = bytes.clone();
        bad_text[text_at] = 0xC3;
        bad_text[text_at + 1] = b'a';
        for bad in [bad_flag, bad_text] {
            let e = Fields::decode(&mut &bad[..]).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
        }
        // A length past what follows asks for no more memory than there is, and fails.
        let mut huge = Vec::new();
        huge.put_u64(u64::MAX / 2);
        huge.put_raw(b"short");
        let e = (&huge[..]).get_string().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
    }
}
