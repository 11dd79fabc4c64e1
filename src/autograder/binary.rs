//! The leasejudge binary an autograder carries: it must run on the platforms' x86-64 Linux
//! images. A statically linked one (the release build: `.cargo/config.toml`) runs on any of
//! them; a dynamically linked one needs a GNU C library at least as new as the newest version
//! it asks for (`GLIBC_2.34`). Both are read from the file's ELF headers: the identification,
//! the machine, the program headers (a program interpreter, `ld-linux`, or none), and the
//! version needs (`.gnu.version_r`, what `objdump -T` lists as `GLIBC_x.y`).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// `EM_X86_64`.
const X86_64: u16 = 0x3e;
/// `SHT_GNU_verneed`: the versions a file needs of the libraries it links.
const VERSION_NEEDS: u32 = 0x6fff_fffe;
/// `PT_INTERP`: the program interpreter (the dynamic loader) a dynamically linked executable
/// names; a statically linked one has none.
const INTERPRETER: u32 = 3;
/// More program headers than any real executable has: a header claiming more is not believed.
const MAX_PROGRAM_HEADERS: usize = 1 << 12;
/// More sections than any real executable has: a header claiming more is not believed.
const MAX_SECTIONS: usize = 1 << 16;
/// The most bytes read of one section (version needs and their names are a few kilobytes).
const MAX_SECTION_BYTES: u64 = 16 << 20;

/// A GNU C library version, `2.34`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct GlibcVersion(pub u32, pub u32);

impl std::fmt::Display for GlibcVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

/// How a binary gets its C library: what a system needs to run it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CLibrary {
    /// Linked into the binary (no program interpreter): it runs on any x86-64 Linux, whatever
    /// C library the system has, or none.
    Static,
    /// The system's shared GNU C library, at least the newest `GLIBC_x.y` the binary needs
    /// (`None`: it names no version, or its section headers were stripped).
    Shared(Option<GlibcVersion>),
}

impl CLibrary {
    /// The GNU C library version a system needs to run the binary (`None`: any, or unknown).
    pub fn glibc(self) -> Option<GlibcVersion> {
        match self {
            CLibrary::Static => None,
            CLibrary::Shared(version) => version,
        }
    }
}

/// What a binary is, as far as an autograder cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinuxBinary {
    /// How it gets its C library.
    pub c_library: CLibrary,
}

/// Why a file cannot be an autograder's binary.
#[derive(Debug)]
pub enum BinaryError {
    /// It could not be read.
    Io(io::Error),
    /// It is not an x86-64 Linux executable; says what it is instead.
    NotX86_64Linux(String),
}

impl std::fmt::Display for BinaryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BinaryError::Io(e) => write!(f, "cannot read it: {e}"),
            BinaryError::NotX86_64Linux(what) => {
                write!(f, "it is not an x86-64 Linux executable ({what})")
            }
        }
    }
}

impl std::error::Error for BinaryError {}

impl From<io::Error> for BinaryError {
    fn from(e: io::Error) -> BinaryError {
        BinaryError::Io(e)
    }
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"))
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"))
}

/// `len` bytes of `file` at `offset`, or `None` when the file is shorter.
fn read_range(file: &mut File, offset: u64, len: u64) -> io::Result<Option<Vec<u8>>> {
    if len > MAX_SECTION_BYTES {
        return Ok(None);
    }
    file.seek(SeekFrom::Start(offset))?;
    let mut bytes = Vec::new();
    file.take(len).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 == len).then_some(bytes))
}

/// The NUL-terminated string at `at` in the string table `table`.
fn string_at(table: &[u8], at: usize) -> Option<&str> {
    let rest = table.get(at..)?;
    let end = rest.iter().position(|&b| b == 0)?;
    std::str::from_utf8(&rest[..end]).ok()
}

/// `GLIBC_2.34` as a version.
fn glibc_version(name: &str) -> Option<GlibcVersion> {
    let (major, minor) = name.strip_prefix("GLIBC_")?.split_once('.')?;
    // `GLIBC_2.2.5` counts as 2.2.
    let minor = minor.split('.').next()?;
    Some(GlibcVersion(major.parse().ok()?, minor.parse().ok()?))
}

/// Reads what `path` is: an x86-64 Linux executable and the C library version it needs.
pub fn inspect(path: &Path) -> Result<LinuxBinary, BinaryError> {
    let mut file = File::open(path)?;
    let mut header = [0u8; 64];
    let mut got = 0;
    while got < header.len() {
        match file.read(&mut header[got..])? {
            0 => break,
            n => got += n,
        }
    }
    if got < 4 || &header[..4] != b"\x7fELF" {
        let what = match &header[..got.min(4)] {
            [0xcf, 0xfa, 0xed, 0xfe] | [0xca, 0xfe, 0xba, 0xbe] => "a macOS Mach-O file",
            [b'M', b'Z', ..] => "a Windows executable",
            [b'#', b'!', ..] => "a script",
            _ => "not an ELF file",
        };
        return Err(BinaryError::NotX86_64Linux(what.to_owned()));
    }
    if got < 64 || header[4] != 2 || header[5] != 1 {
        return Err(BinaryError::NotX86_64Linux(
            "a 32-bit or big-endian ELF file".to_owned(),
        ));
    }
    // System V or GNU/Linux; FreeBSD and others have their own ABI numbers.
    if !matches!(header[7], 0 | 3) {
        return Err(BinaryError::NotX86_64Linux(format!(
            "an ELF file for OS ABI {}",
            header[7]
        )));
    }
    let machine = u16_at(&header, 18);
    if machine != X86_64 {
        let name = match machine {
            0xb7 => "aarch64".to_owned(),
            0x28 => "arm".to_owned(),
            0xf3 => "riscv".to_owned(),
            other => format!("machine {other:#x}"),
        };
        return Err(BinaryError::NotX86_64Linux(format!(
            "an ELF file for {name}"
        )));
    }
    if !matches!(u16_at(&header, 16), 2 | 3) {
        return Err(BinaryError::NotX86_64Linux(
            "an ELF file that is not an executable".to_owned(),
        ));
    }
    let c_library = if has_interpreter(&mut file, &header)? {
        CLibrary::Shared(needed_glibc(&mut file, &header)?)
    } else {
        CLibrary::Static
    };
    Ok(LinuxBinary { c_library })
}

/// Whether the file's program headers name a program interpreter (a dynamically linked
/// executable). A table that cannot be read counts as one: the safe side, since an
/// interpreter that is missing on a system stops the binary there.
fn has_interpreter(file: &mut File, header: &[u8]) -> io::Result<bool> {
    let headers_at = u64_at(header, 0x20);
    let entry = usize::from(u16_at(header, 0x36));
    let count = usize::from(u16_at(header, 0x38));
    if headers_at == 0 || entry < 56 || count == 0 || count > MAX_PROGRAM_HEADERS {
        return Ok(true);
    }
    let Some(table) = read_range(file, headers_at, (entry * count) as u64)? else {
        return Ok(true);
    };
    Ok(table
        .chunks_exact(entry)
        .any(|program_header| u32_at(program_header, 0) == INTERPRETER))
}

/// The newest `GLIBC_x.y` among the file's version needs of `libc.so.6`.
fn needed_glibc(file: &mut File, header: &[u8]) -> io::Result<Option<GlibcVersion>> {
    let sections_at = u64_at(header, 0x28);
    let entry = usize::from(u16_at(header, 0x3a));
    let count = usize::from(u16_at(header, 0x3c));
    if sections_at == 0 || entry < 64 || count == 0 || count > MAX_SECTIONS {
        return Ok(None);
    }
    let Some(table) = read_range(file, sections_at, (entry * count) as u64)? else {
        return Ok(None);
    };
    let section = |index: usize| table.get(index * entry..index * entry + 64);
    let mut newest = None;
    for index in 0..count {
        let Some(needs) = section(index) else { break };
        if u32_at(needs, 4) != VERSION_NEEDS {
            continue;
        }
        let Some(strings) = section(u32_at(needs, 40) as usize) else {
            continue;
        };
        let (Some(needs_bytes), Some(strings)) = (
            read_range(file, u64_at(needs, 24), u64_at(needs, 32))?,
            read_range(file, u64_at(strings, 24), u64_at(strings, 32))?,
        ) else {
            continue;
        };
        // Verneed entries (16 bytes: version, count, file, aux, next), each with its Vernaux
        // entries (16 bytes: hash, flags, other, name, next), linked by byte offsets.
        let mut at = 0usize;
        for _ in 0..u32_at(needs, 44) {
            let Some(need) = needs_bytes.get(at..at + 16) else {
                break;
            };
            let library = string_at(&strings, u32_at(need, 4) as usize);
            let mut aux_at = at + u32_at(need, 8) as usize;
            for _ in 0..u16_at(need, 2) {
                let Some(aux) = needs_bytes.get(aux_at..aux_at + 16) else {
                    break;
                };
                if library == Some("libc.so.6") {
                    let version =
                        string_at(&strings, u32_at(aux, 8) as usize).and_then(glibc_version);
                    newest = newest.max(version);
                }
                match u32_at(aux, 12) {
                    0 => break,
                    next => aux_at += next as usize,
                }
            }
            match u32_at(need, 12) {
                0 => break,
                next => at += next as usize,
            }
        }
    }
    Ok(newest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_their_names() {
        assert_eq!(glibc_version("GLIBC_2.34"), Some(GlibcVersion(2, 34)));
        assert_eq!(glibc_version("GLIBC_2.2.5"), Some(GlibcVersion(2, 2)));
        assert_eq!(glibc_version("GLIBC_PRIVATE"), None);
        assert!(GlibcVersion(2, 34) > GlibcVersion(2, 4));
    }

    #[test]
    fn what_is_not_an_x86_64_linux_executable_says_what_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            (&b"#!/bin/sh\necho hi\n"[..], "a script"),
            (
                &b"\xcf\xfa\xed\xfe\x07\x00\x00\x01"[..],
                "a macOS Mach-O file",
            ),
            (&b"MZ\x90\x00"[..], "a Windows executable"),
            (&b"case_id,decision\n"[..], "not an ELF file"),
        ];
        for (bytes, what) in cases {
            let path = dir.path().join("binary");
            std::fs::write(&path, bytes).unwrap();
            let error = inspect(&path).unwrap_err();
            assert_eq!(
                error.to_string(),
                format!("it is not an x86-64 Linux executable ({what})")
            );
        }
        // An aarch64 ELF header.
        let mut header = vec![0u8; 64];
        header[..4].copy_from_slice(b"\x7fELF");
        header[4] = 2;
        header[5] = 1;
        header[16] = 2;
        header[18] = 0xb7;
        let path = dir.path().join("arm");
        std::fs::write(&path, &header).unwrap();
        assert_eq!(
            inspect(&path).unwrap_err().to_string(),
            "it is not an x86-64 Linux executable (an ELF file for aarch64)"
        );
    }

    /// The test binary is built like leasejudge: statically linked (`.cargo/config.toml`
    /// builds x86_64-unknown-linux-gnu with crt-static), so it names no program interpreter.
    #[cfg(all(
        target_os = "linux",
        target_arch = "x86_64",
        target_env = "gnu",
        target_feature = "crt-static"
    ))]
    #[test]
    fn this_binary_is_statically_linked() {
        let me = std::env::current_exe().unwrap();
        assert_eq!(inspect(&me).unwrap().c_library, CLibrary::Static);
    }

    /// A dynamically linked x86-64 executable of the system (the shell that runs every
    /// script): its interpreter is seen, and its newest version need is the newest
    /// `GLIBC_2.x` name among its strings (the dynamic string table holds every version name
    /// it needs, as `objdump -T` lists them), found by scanning its bytes, not its headers.
    #[cfg(all(target_os = "linux", target_arch = "x86_64", target_env = "gnu"))]
    #[test]
    fn a_dynamically_linked_binary_needs_the_newest_glibc_version_it_names() {
        let shell = std::path::Path::new("/bin/sh");
        let bytes = std::fs::read(shell).unwrap();
        let named = memchr::memmem::find_iter(&bytes, b"GLIBC_2.")
            .filter_map(|at| {
                let end = bytes[at..].iter().position(|&b| b == 0)?;
                glibc_version(std::str::from_utf8(&bytes[at..at + end]).ok()?)
            })
            .max()
            .expect("a glibc build names a version");
        assert_eq!(
            inspect(shell).unwrap().c_library,
            CLibrary::Shared(Some(named))
        );
        assert!(named >= GlibcVersion(2, 2), "{named}");
    }
}
