//! The runs of bytes the inert filter and the workflow-command check pass at once, a word or
//! a 16-byte chunk at a time, each the same as a test of every byte (compared in
//! `filter_runs`).

/// Whether `text` holds a `#`, a `\n` or a `\r`, without which no workflow command is in it.
/// Every case file's text is asked this on every row: a word is passed at once when none of
/// its bytes is below `$` (0x24), which all three are (a word that has one, a space, say, is
/// looked at a byte at a time).
#[inline]
pub(super) fn may_hold_command(text: &[u8]) -> bool {
    // Bit Twiddling Hacks' `hasless(word, 0x24)`: not zero exactly when a byte is below 0x24.
    let has_low = |word: u64| word.wrapping_sub(ONES * 0x24) & !word & HIGHS != 0;
    let bytewise = |part: &[u8]| part.iter().any(|b| matches!(b, b'#' | b'\n' | b'\r'));
    let word_at = |at: usize| u64::from_le_bytes(text[at..at + 8].try_into().expect("8 bytes"));
    let len = text.len();
    match len {
        0..=3 => bytewise(text),
        4..=7 => {
            let half_at =
                |at: usize| u32::from_le_bytes(text[at..at + 4].try_into().expect("4 bytes"));
            // Two halves that overlap cover every byte.
            let word = u64::from(half_at(0)) | u64::from(half_at(len - 4)) << 32;
            has_low(word) && bytewise(text)
        }
        _ => {
            // Whole words, then the last eight bytes (overlapping the last word).
            let mut at = 0;
            while at + 8 <= len {
                if has_low(word_at(at)) {
                    return bytewise(&text[at..]);
                }
                at += 8;
            }
            at < len && has_low(word_at(len - 8)) && bytewise(&text[len - 8..])
        }
    }
}

/// How many bytes `buf` starts with that are printable ASCII (a space to a `~`) but `#`:
/// what passes the filter as it is, and leaves its guard as it was, in the middle of a line.
/// Sixteen bytes at a time where SSE2 is ([`printable_chunks`]), then eight: a word passes
/// when none of its bytes is below a space, above a `~` (`DEL` and every byte of a longer
/// UTF-8 character) or a `#`.
#[inline]
pub(super) fn printable_run(buf: &[u8]) -> usize {
    let mut at = match printable_chunks(buf) {
        Ok(stop) => return stop,
        Err(chunks_end) => chunks_end,
    };
    while let Some(chunk) = buf.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        // Each test sets a byte's high bit where the byte is one the run ends at. A borrow or
        // a carry can set it in a later byte too, never in an earlier one: the first byte
        // (the lowest, little-endian) with its bit set is the first the run ends at.
        let below_space = word.wrapping_sub(ONES * 0x20) & !word;
        let above_tilde = word.wrapping_add(ONES) | word; // 0x7f + 1 has it; 0x80 and up have it
        let hashes = word ^ (ONES * u64::from(b'#'));
        let hash = hashes.wrapping_sub(ONES) & !hashes;
        let stops = (below_space | above_tilde | hash) & HIGHS;
        if stops != 0 {
            return at + (stops.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + buf[at..]
        .iter()
        .position(|&b| !(0x20..0x7f).contains(&b) || b == b'#')
        .unwrap_or(buf.len() - at)
}

/// [`printable_run`] of `buf` if it ends within its whole 16-byte chunks (`Ok`), or where they
/// end (`Err`: [`printable_run`] goes on from there). With SSE2 (part of every x86-64), a
/// chunk's bytes are tested together: a pretty JSON line's middle is a chunk or two.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn printable_chunks(buf: &[u8]) -> Result<usize, usize> {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    let mut at = 0;
    while let Some(chunk) = buf.get(at..at + 16) {
        // SAFETY: SSE2 is enabled on every x86-64 target; the unaligned load reads exactly the
        // 16 bytes of `chunk`.
        let stops = unsafe {
            let bytes = _mm_loadu_si128(chunk.as_ptr().cast());
            // As signed bytes, every byte from 0x80 up is below a space too.
            let below_space = _mm_cmplt_epi8(bytes, _mm_set1_epi8(0x20));
            let del = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(0x7f));
            let hash = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'#' as i8));
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(below_space, del), hash))
        };
        if stops != 0 {
            return Ok(at + stops.trailing_zeros() as usize);
        }
        at += 16;
    }
    Err(at)
}

/// [`printable_chunks`] elsewhere: the words of [`printable_run`] do it all.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn printable_chunks(_: &[u8]) -> Result<usize, usize> {
    Err(0)
}

/// How many spaces `buf` starts with, eight at a time (pretty JSON's indentation).
#[inline]
pub(super) fn space_run(buf: &[u8]) -> usize {
    let mut at = 0;
    while let Some(chunk) = buf.get(at..at + 8) {
        let others = u64::from_le_bytes(chunk.try_into().expect("eight bytes")) ^ (ONES * 0x20);
        if others != 0 {
            return at + (others.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + buf[at..]
        .iter()
        .position(|&b| b != b' ')
        .unwrap_or(buf.len() - at)
}

/// A byte of ones in each byte of a word, and each byte's high bit.
const ONES: u64 = u64::from_le_bytes([0x01; 8]);
const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);

/// Whether `byte` is ASCII that no rule of [`InertFilter`] looks at: not whitespace, not a
/// control, not `#`, `:` or `[`.
#[inline(always)]
pub(super) fn is_ordinary_ascii(byte: u8) -> bool {
    byte.is_ascii_graphic() && !matches!(byte, b'#' | b':' | b'[')
}
