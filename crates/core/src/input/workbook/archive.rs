//! A workbook's zip archive, read within limits: its directory read at most
//! [`MAX_WORKBOOK_DIRECTORY_BYTES`] deep, only the parts asked for ever inflated, and every
//! byte inflated counted as it comes ([`Budget`]), so that an archive that declares small sizes
//! and inflates to gigabytes stops at the limit, not at the end of memory.

use std::cell::Cell;
use std::io::{self, Read, Seek, SeekFrom};
use std::rc::Rc;

use zip::read::ZipFile;
use zip::ZipArchive;

use super::xml::XmlReader;
use crate::limits::{
    MAX_WORKBOOK_DIRECTORY_BYTES, MAX_WORKBOOK_HELD_BYTES, MAX_WORKBOOK_INFLATED_BYTES,
    MAX_WORKBOOK_TEXT_BYTES,
};

/// What reading a workbook has used so far, against its limits: one for all its parts.
#[derive(Default)]
pub(super) struct Budget {
    /// Bytes inflated, of every part read.
    inflated: Cell<u64>,
    /// Bytes inflated of the parts kept in memory.
    held: Cell<u64>,
    /// Text handed on as cells.
    text: Cell<u64>,
}

impl Budget {
    /// Counts `bytes` of cell text handed on; past [`MAX_WORKBOOK_TEXT_BYTES`] an error.
    pub(super) fn text(&self, bytes: usize) -> Result<(), String> {
        let total = self.text.get() + bytes as u64;
        self.text.set(total);
        if total > MAX_WORKBOOK_TEXT_BYTES {
            return Err(format!(
                "the sheet's cells hold more than {MAX_WORKBOOK_TEXT_BYTES} bytes (256 MiB) of \
                 text, the most a workbook may hand on (a shared string counts each time a \
                 cell uses it, a repeated cell each time it repeats)"
            ));
        }
        Ok(())
    }
}

/// What an archive is read from: its bytes in memory, or a file.
pub(super) trait ReadSeek: Read + Seek {}

impl<T: Read + Seek> ReadSeek for T {}

/// The archive's reader: the workbook's bytes, but while the directory is read, no more than
/// [`MAX_WORKBOOK_DIRECTORY_BYTES`] of them (the zip crate keeps an entry in memory for each
/// part it lists, however many the directory says there are).
pub(super) struct Metered<'b> {
    inner: Box<dyn ReadSeek + 'b>,
    /// Bytes that may still be read (`u64::MAX` once the directory is read).
    left: Rc<Cell<u64>>,
}

impl Read for Metered<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.left.get();
        if left == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "the zip directory is larger than {MAX_WORKBOOK_DIRECTORY_BYTES} bytes (1 MiB), \
                     the most a workbook's may be"
                ),
            ));
        }
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        self.left.set(left - n as u64);
        Ok(n)
    }
}

impl Seek for Metered<'_> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.inner.seek(to)
    }
}

/// A workbook's archive.
pub(super) struct Archive<'b> {
    zip: ZipArchive<Metered<'b>>,
}

/// The first bytes of an OLE compound file: an encrypted workbook, or an old `.xls`.
const COMPOUND_FILE: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";

impl<'b> Archive<'b> {
    /// Opens the archive `reader` reads (its directory read, nothing inflated).
    pub(super) fn open(mut reader: impl Read + Seek + 'b) -> Result<Archive<'b>, String> {
        let mut head = [0u8; COMPOUND_FILE.len()];
        let read = read_head(&mut reader, &mut head).map_err(|e| e.to_string())?;
        if head[..read] == *COMPOUND_FILE {
            return Err(
                "an encrypted workbook or an old .xls file (an OLE compound file), which \
                 leasejudge cannot read: save it as .xlsx without a password, or as CSV"
                    .to_owned(),
            );
        }
        let left = Rc::new(Cell::new(MAX_WORKBOOK_DIRECTORY_BYTES));
        let reader = Metered {
            inner: Box::new(reader),
            left: Rc::clone(&left),
        };
        let zip = ZipArchive::new(reader)
            .map_err(|e| format!("not a zip archive, as a workbook is ({e})"))?;
        left.set(u64::MAX);
        Ok(Archive { zip })
    }

    /// The index of the part at `path`: by its exact name, else ignoring case and reading
    /// `\` as `/` (as calamine finds parts).
    pub(super) fn find(&self, path: &str) -> Option<usize> {
        if let Some(index) = self.zip.index_for_name(path) {
            return Some(index);
        }
        let wanted = path.replace('\\', "/").to_ascii_lowercase();
        self.zip
            .file_names()
            .find(|name| name.replace('\\', "/").to_ascii_lowercase() == wanted)
            .and_then(|name| self.zip.index_for_name(name))
    }

    /// The part at `index`, named `name` in errors, inflated as it is read and counted
    /// against the budget (and, if it is `held` in memory while the sheet is read, against
    /// that budget too).
    pub(super) fn part<'a>(
        &'a mut self,
        index: usize,
        name: &str,
        held: bool,
        budget: &'a Budget,
    ) -> Result<Part<'a, 'b>, String> {
        let file = self
            .zip
            .by_index(index)
            .map_err(|e| format!("{name}: cannot read the part: {e}"))?;
        Ok(Inflated {
            inner: file,
            part: name.to_owned(),
            budget,
            held,
        })
    }

    /// An XML reader of the part at `index` (see [`Archive::part`]).
    pub(super) fn xml<'a>(
        &'a mut self,
        index: usize,
        name: &str,
        held: bool,
        budget: &'a Budget,
    ) -> Result<XmlReader<Part<'a, 'b>>, String> {
        self.part(index, name, held, budget).map(XmlReader::new)
    }
}

pub(super) use crate::input::content::read_head;

/// A part of an [`Archive`] as it is inflated.
pub(super) type Part<'a, 'b> = Inflated<'a, ZipFile<'a, Metered<'b>>>;

/// A part as it is inflated, every byte counted against the workbook's [`Budget`].
pub(super) struct Inflated<'a, R> {
    inner: R,
    part: String,
    budget: &'a Budget,
    held: bool,
}

impl<R: Read> Read for Inflated<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let inflated = self.budget.inflated.get() + n as u64;
        self.budget.inflated.set(inflated);
        if inflated > MAX_WORKBOOK_INFLATED_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                format!(
                    "{}: the workbook's parts inflate to more than {MAX_WORKBOOK_INFLATED_BYTES} \
                     bytes (256 MiB), the most they may together",
                    self.part
                ),
            ));
        }
        if self.held {
            let held = self.budget.held.get() + n as u64;
            self.budget.held.set(held);
            if held > MAX_WORKBOOK_HELD_BYTES {
                return Err(io::Error::new(
                    io::ErrorKind::FileTooLarge,
                    format!(
                        "{}: the parts kept in memory while the sheet is read (shared strings, \
                         styles, the list of sheets) inflate to more than \
                         {MAX_WORKBOOK_HELD_BYTES} bytes (32 MiB), the most they may together",
                        self.part
                    ),
                ));
            }
        }
        Ok(n)
    }
}
