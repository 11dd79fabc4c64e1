//! The entries of a zip download that the zip crate's index does not reach (issue 36). The
//! crate keys its entries by name and keeps, for a name the central directory holds twice,
//! the later record only: the earlier file would be lost without a word, and a learner whose
//! zip holds `matrix.csv` twice would be graded on whichever came last. Here the central
//! directory is walked record by record (APPNOTE.TXT 4.3.12: a fixed 46 bytes, then the
//! name, the extra field and the comment), and every record the index did not keep is a
//! [`Shadow`]: the download unpacks it beside the other of its name, where the autograders'
//! rule sees both. An entry written with a data descriptor (its sizes and checksum after the
//! data, as a zipper writing to a stream does) is read with the central directory's.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};

/// The signature of a central directory record.
const CENTRAL_RECORD: u32 = 0x0201_4b50;

/// The signature of a local file header.
const LOCAL_RECORD: u32 = 0x0403_4b50;

/// The general purpose flag saying the sizes and checksum follow the data (APPNOTE.TXT
/// 4.4.4, bit 3): the local header's are zero.
const DATA_DESCRIPTOR: u16 = 1 << 3;

/// The tag of the zip64 extended information in an extra field.
const ZIP64_EXTRA: u16 = 0x0001;

/// An entry of the central directory that the index does not reach.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shadow {
    /// Its name, as the central directory's bytes have it.
    pub name: Vec<u8>,
    /// Where its local header starts in the file.
    pub local_header: u64,
    /// Its compressed size.
    pub compressed_size: u64,
    /// Its size unpacked.
    pub uncompressed_size: u64,
    /// The CRC-32 of its data unpacked.
    pub crc32: u32,
    /// Its external attributes (a Unix mode in the upper half, when the zipper wrote one).
    pub external_attributes: u32,
}

impl Shadow {
    /// Whether it is a folder: its name ends with a separator (the zip crate's `is_dir`).
    pub fn is_dir(&self) -> bool {
        self.name.ends_with(b"/") || self.name.ends_with(b"\\")
    }

    /// Whether it is a symbolic link: a Unix mode in the upper half of its external
    /// attributes says so (the zip crate's `is_symlink`); its own record's, never its twin's,
    /// so a link is never unpacked as a file of its target's name, nor a file as a link.
    pub fn is_symlink(&self) -> bool {
        const LINK: u32 = 0o120_000;
        (self.external_attributes >> 16) & LINK == LINK
    }
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    bytes
        .get(at..at + 8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
}

/// The original size, the compressed size and the local header's offset of a record, its
/// 32-bit fields replaced by its zip64 extra field where they are all ones (APPNOTE.TXT 4.5.3:
/// the original size, the compressed size, the local header's offset, in that order, each
/// present only if its field is all ones).
fn sizes(fixed: &[u8], extra: &[u8]) -> (u64, u64, u64) {
    let original = u32_at(fixed, 24);
    let mut uncompressed = u64::from(original);
    let mut compressed = u64::from(u32_at(fixed, 20));
    let mut local = u64::from(u32_at(fixed, 42));
    let mut at = 0;
    while at + 4 <= extra.len() {
        let tag = u16_at(extra, at);
        let len = usize::from(u16_at(extra, at + 2));
        let body = &extra[(at + 4).min(extra.len())..(at + 4 + len).min(extra.len())];
        if tag == ZIP64_EXTRA {
            let mut field = 0;
            if original == u32::MAX {
                if let Some(value) = u64_at(body, field) {
                    uncompressed = value;
                }
                field += 8;
            }
            if compressed == u64::from(u32::MAX) {
                if let Some(value) = u64_at(body, field) {
                    compressed = value;
                }
                field += 8;
            }
            if local == u64::from(u32::MAX) {
                if let Some(value) = u64_at(body, field) {
                    local = value;
                }
            }
            break;
        }
        at += 4 + len;
    }
    (uncompressed, compressed, local)
}

/// The records of the central directory of the zip `file` (which starts at `start`) that are
/// not at one of `kept` (the offsets of the records the index keeps), at most `most` records
/// read and none past `most_bytes` from `start` (an `InvalidData` error: what is kept of the
/// records is bounded as the zip crate's reading of the directory is); `offset` is where the
/// archive starts in the file.
pub fn shadowed(
    file: &File,
    start: u64,
    offset: u64,
    kept: &HashSet<u64>,
    (most, most_bytes): (usize, u64),
) -> io::Result<Vec<Shadow>> {
    let mut reader = BufReader::new(file.try_clone()?);
    reader.seek(SeekFrom::Start(start))?;
    let mut at = start;
    let mut shadows = Vec::new();
    for _ in 0..most {
        let mut fixed = [0u8; 46];
        match reader.read_exact(&mut fixed) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(e),
        }
        if u32_at(&fixed, 0) != CENTRAL_RECORD {
            break;
        }
        let name_len = usize::from(u16_at(&fixed, 28));
        let extra_len = usize::from(u16_at(&fixed, 30));
        let comment_len = u64::from(u16_at(&fixed, 32));
        let end = at + 46 + name_len as u64 + extra_len as u64 + comment_len;
        if end - start > most_bytes {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("it is larger than {most_bytes} bytes, the most a download's may be"),
            ));
        }
        let mut name = vec![0u8; name_len];
        reader.read_exact(&mut name)?;
        let mut extra = vec![0u8; extra_len];
        reader.read_exact(&mut extra)?;
        reader.seek_relative(comment_len as i64)?;
        let record = at;
        at = end;
        if kept.contains(&record) {
            continue;
        }
        let (uncompressed_size, compressed_size, local) = sizes(&fixed, &extra);
        shadows.push(Shadow {
            name,
            local_header: offset.saturating_add(local),
            compressed_size,
            uncompressed_size,
            crc32: u32_at(&fixed, 16),
            external_attributes: u32_at(&fixed, 38),
        });
    }
    Ok(shadows)
}

/// Reads the shadowed entry `shadow` of `file` with `read`, given the entry's data inflated
/// as its local header says; an entry whose local header is not where the central directory
/// says is an `InvalidData` error (a truncated one, `UnexpectedEof`), and `read` is not run.
pub fn read_with<T>(
    file: &File,
    shadow: &Shadow,
    read: impl FnOnce(&mut dyn Read) -> T,
) -> io::Result<T> {
    let mut reader = BufReader::new(file.try_clone()?);
    reader.seek(SeekFrom::Start(shadow.local_header))?;
    let mut local = [0u8; 30];
    reader.read_exact(&mut local)?;
    if u32_at(&local, 0) != LOCAL_RECORD {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "no local header where the central directory says",
        ));
    }
    let flags = u16_at(&local, 6);
    if flags & DATA_DESCRIPTOR != 0 {
        // The zip crate's stream reader refuses such a header (it cannot know where the data
        // ends): it is given the central directory's sizes and checksum instead, as the
        // archive's own index reads the entry. A size past 32 bits is past the limit anyway.
        let size = |value: u64| u32::try_from(value).unwrap_or(u32::MAX - 1);
        local[6..8].copy_from_slice(&(flags & !DATA_DESCRIPTOR).to_le_bytes());
        local[14..18].copy_from_slice(&shadow.crc32.to_le_bytes());
        local[18..22].copy_from_slice(&size(shadow.compressed_size).to_le_bytes());
        local[22..26].copy_from_slice(&size(shadow.uncompressed_size).to_le_bytes());
    }
    let mut patched = (&local[..]).chain(reader);
    let entry = zip::read::read_zipfile_from_stream_with_compressed_size(
        &mut patched,
        shadow.compressed_size,
    )
    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
    let Some(mut entry) = entry else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "no local header where the central directory says",
        ));
    };
    Ok(read(&mut entry))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Write;

    /// A zip of `entries` whose names may repeat (the zip crate's writer refuses that, so the
    /// stored entries are written by hand, as APPNOTE.TXT lays them out).
    pub(crate) fn zip_with(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for (name, data) in entries {
            let offset = out.len() as u32;
            let crc = crc32(data);
            let local = |sig: u32, out: &mut Vec<u8>| {
                out.extend_from_slice(&sig.to_le_bytes());
            };
            local(0x0403_4b50, &mut out);
            out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(data);
            central.extend_from_slice(&CENTRAL_RECORD.to_le_bytes());
            central.extend_from_slice(&[20, 3, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            central.extend_from_slice(&crc.to_le_bytes());
            central.extend_from_slice(&(data.len() as u32).to_le_bytes());
            central.extend_from_slice(&(data.len() as u32).to_le_bytes());
            central.extend_from_slice(&(name.len() as u16).to_le_bytes());
            central.extend_from_slice(&[0; 8]);
            central.extend_from_slice(&(0o100644u32 << 16).to_le_bytes());
            central.extend_from_slice(&offset.to_le_bytes());
            central.extend_from_slice(name.as_bytes());
        }
        let start = out.len() as u32;
        out.extend_from_slice(&central);
        out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        out.extend_from_slice(&(central.len() as u32).to_le_bytes());
        out.extend_from_slice(&start.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out
    }

    fn crc32(data: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &byte in data {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xedb8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn a_name_twice_in_the_central_directory_is_found_and_read() {
        let bytes = zip_with(&[
            ("a_1/matrix.csv", b"first"),
            ("a_1/notes.txt", b"n"),
            ("a_1/matrix.csv", b"second"),
        ]);
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&bytes).unwrap();
        let mut archive = zip::ZipArchive::new(file.try_clone().unwrap()).unwrap();
        assert_eq!(archive.len(), 2, "the crate keeps one entry per name");
        let mut kept = HashSet::new();
        for i in 0..archive.len() {
            kept.insert(archive.by_index_raw(i).unwrap().central_header_start());
        }
        let mut kept_text = String::new();
        archive
            .by_name("a_1/matrix.csv")
            .unwrap()
            .read_to_string(&mut kept_text)
            .unwrap();
        assert_eq!(kept_text, "second");
        let shadows = shadowed(
            &file,
            archive.central_directory_start(),
            archive.offset(),
            &kept,
            (10, 1 << 20),
        )
        .unwrap();
        assert_eq!(shadows.len(), 1);
        assert_eq!(shadows[0].name, b"a_1/matrix.csv");
        assert!(!shadows[0].is_dir() && !shadows[0].is_symlink());
        // What is read of the directory is bounded: past its bytes, an error, not a walk on.
        let bounded = shadowed(
            &file,
            archive.central_directory_start(),
            archive.offset(),
            &kept,
            (10, 100),
        )
        .unwrap_err();
        assert_eq!(bounded.kind(), io::ErrorKind::InvalidData);
        let mut out = Vec::new();
        read_with(&file, &shadows[0], |r| r.read_to_end(&mut out))
            .unwrap()
            .unwrap();
        assert_eq!(out, b"first");
    }
}
