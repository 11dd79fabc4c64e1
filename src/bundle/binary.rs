//! The leasejudge binary an autograder carries: it must run on the platforms' x86-64 Linux
//! images. A statically linked one (the release build: `.cargo/config.toml`) runs on any of
//! them; a dynamically linked one needs a GNU C library at least as new as the newest version
//! it asks for (`GLIBC_2.34`). Both are read from the file's ELF headers: the identification,
//! the machine, the program headers (a program interpreter, `ld-linux`, or none), and the
//! version needs (`.gnu.version_r`, what `objdump -T` lists as `GLIBC_x.y`), through the
//! `object` crate's ELF reader, which reads what it is asked for and no more of the file.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use object::elf::{self, FileHeader64};
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader};
use object::{LittleEndian, ReadCache, SectionIndex};

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
    let data = ReadCache::new(file);
    let not_elf =
        |e: object::Error| BinaryError::NotX86_64Linux(format!("a malformed ELF file: {e}"));
    let elf_header = FileHeader64::<LittleEndian>::parse(&data).map_err(not_elf)?;
    let machine = elf_header.e_machine(LittleEndian);
    if machine != elf::EM_X86_64 {
        let name = match machine {
            elf::EM_AARCH64 => "aarch64".to_owned(),
            elf::EM_ARM => "arm".to_owned(),
            elf::EM_RISCV => "riscv".to_owned(),
            other => format!("machine {other:#x}"),
        };
        return Err(BinaryError::NotX86_64Linux(format!(
            "an ELF file for {name}"
        )));
    }
    if !matches!(elf_header.e_type(LittleEndian), elf::ET_EXEC | elf::ET_DYN) {
        return Err(BinaryError::NotX86_64Linux(
            "an ELF file that is not an executable".to_owned(),
        ));
    }
    let c_library = if has_interpreter(elf_header, &data) {
        CLibrary::Shared(needed_glibc(elf_header, &data))
    } else {
        CLibrary::Static
    };
    Ok(LinuxBinary { c_library })
}

/// Whether the file's program headers name a program interpreter (a dynamically linked
/// executable). A table that cannot be read counts as one: the safe side, since an
/// interpreter that is missing on a system stops the binary there.
fn has_interpreter(elf_header: &FileHeader64<LittleEndian>, data: &ReadCache<File>) -> bool {
    match elf_header.program_headers(LittleEndian, data) {
        Ok(headers) if !headers.is_empty() => headers
            .iter()
            .any(|header| header.p_type(LittleEndian) == elf::PT_INTERP),
        _ => true,
    }
}

/// The newest `GLIBC_x.y` among the file's version needs of `libc.so.6` (`None`: it names
/// none, or they cannot be read).
fn needed_glibc(
    elf_header: &FileHeader64<LittleEndian>,
    data: &ReadCache<File>,
) -> Option<GlibcVersion> {
    let sections = elf_header.sections(LittleEndian, data).ok()?;
    let mut newest = None;
    for section in sections.iter() {
        if section.sh_type(LittleEndian) != elf::SHT_GNU_VERNEED {
            continue;
        }
        // The reader reads a section whole: a size no real table has is not believed.
        let link = SectionIndex(section.sh_link(LittleEndian) as usize);
        let string_bytes = sections.section(link).ok()?.sh_size(LittleEndian);
        if section.sh_size(LittleEndian).max(string_bytes) > MAX_SECTION_BYTES {
            return None;
        }
        let (mut needs, _) = section.gnu_verneed(LittleEndian, data).ok()??;
        let strings = sections.strings(LittleEndian, data, link).ok()?;
        while let Ok(Some((need, mut versions))) = needs.next() {
            let library = need.file(LittleEndian, strings).ok();
            while let Ok(Some(version)) = versions.next() {
                if library == Some(&b"libc.so.6"[..]) {
                    let name = version.name(LittleEndian, strings).ok();
                    let parsed = name
                        .and_then(|name| std::str::from_utf8(name).ok())
                        .and_then(glibc_version);
                    newest = newest.max(parsed);
                }
            }
        }
    }
    newest
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
        header[6] = 1; // EV_CURRENT
        header[16] = 2;
        header[18] = 0xb7;
        let path = dir.path().join("arm");
        std::fs::write(&path, &header).unwrap();
        assert_eq!(
            inspect(&path).unwrap_err().to_string(),
            "it is not an x86-64 Linux executable (an ELF file for aarch64)"
        );
    }

    /// A damaged executable (cut short, or a header field overwritten) is read without a
    /// panic: an answer or an error, and a cut-off table never makes it static.
    #[cfg(all(target_os = "linux", target_arch = "x86_64", target_env = "gnu"))]
    #[test]
    fn a_damaged_executable_is_an_answer_or_an_error() {
        let bytes = std::fs::read("/bin/sh").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("damaged");
        for cut in [64, 100, 1000, 4096, bytes.len() / 2, bytes.len() - 1] {
            std::fs::write(&path, &bytes[..cut]).unwrap();
            if let Ok(binary) = inspect(&path) {
                assert_ne!(binary.c_library, CLibrary::Static, "cut at {cut}");
            }
        }
        for at in 16..64 {
            let mut damaged = bytes.clone();
            damaged[at] = 0xff;
            std::fs::write(&path, &damaged).unwrap();
            let _ = inspect(&path);
        }
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
