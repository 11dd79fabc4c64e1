//! The inert filter's runs against the filter as it was, a byte and a character at a time, and
//! [`workflow_command_in`]'s word-at-a-time prefilter against a test of each byte.

use super::*;
use proptest::strategy::Strategy;

impl InertFilter {
    /// [`InertFilter::filter`] as it was, a space and an ASCII character at a time: what its
    /// runs must give.
    fn filter_one_at_a_time(&mut self, buf: &[u8]) {
        let syntax = self.syntax;
        let out = &mut self.scratch;
        let mut plain_from = 0;
        let mut at = 0;
        while at < buf.len() {
            let byte = buf[at];
            // Bytes that neither the guard nor the escapes care about pass in runs: ASCII
            // but whitespace, controls, `#`, `:` and `[`; a space only ends a line's start.
            if is_ordinary_ascii(byte) {
                let run = buf[at..]
                    .iter()
                    .position(|&b| !is_ordinary_ascii(b))
                    .unwrap_or(buf.len() - at);
                self.guard.ordinary();
                at += run;
                continue;
            }
            if byte == b' ' {
                if !self.guard.line_start {
                    self.guard.ordinary();
                }
                at += 1;
                continue;
            }
            let width = match byte {
                0..=0x7f => 1,
                0xc2..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf4 => 4,
                _ => 0,
            };
            if width > 1 && at + width > buf.len() {
                out.extend_from_slice(&buf[plain_from..at]);
                self.carry.extend_from_slice(&buf[at..]);
                return;
            }
            let c = match width {
                0 => None,
                _ => std::str::from_utf8(&buf[at..at + width])
                    .ok()
                    .and_then(|s| s.chars().next()),
            };
            let Some(c) = c else {
                // Not UTF-8: the byte passes, an ordinary character.
                self.guard.ordinary();
                at += 1;
                continue;
            };
            if self.guard.step(c).is_some() || syntax.escapes_unsafe(c) {
                out.extend_from_slice(&buf[plain_from..at]);
                syntax.write_escaped(c, out);
                plain_from = at + width;
            }
            at += width;
        }
        out.extend_from_slice(&buf[plain_from..]);
    }
}

/// The filter's runs (of ordinary bytes, of spaces, ASCII undecoded) give what a byte
/// and a character at a time gave, in every syntax, on pretty JSON, commands, controls,
/// cut characters and bytes that are not UTF-8, cut into writes at every place.
#[test]
fn the_filters_runs_give_what_one_at_a_time_gave() {
    let texts: [&[u8]; 11] = [
        b"[\n  {\n    \"case_id\": \"c1\",\n    \"rows\": [],\n    \"x\": null\n  }\n]\n",
        b"{\"case_id\":\"case-00000001\",\"job_id\":\"j##[x]\",\"a\":\"b::c\"},\n::x ##[y",
        b"a long line of words, then#a hash, ### three, #a#b##c##[d and \x7f\x1f\t:: ok",
        "0123456789abcdef\u{e9}0123456789abcdef#0123456789abcdef\u{202e}x".as_bytes(),
        b"  ::warning::x\n\t::error ::\n##[group]a\n# ## [ #[ ##  [\n",
        b"a\x1b[31mred\x07\x00 \r\n   ::set-output\r::x",
        "caf\u{e9} \u{202e}evil\u{2066} \u{feff}::x\n\u{200b}::y \u{85}z".as_bytes(),
        b"\xff\xfe ::\n\xc3 \xe2\x80 ok\n",
        b"          \n          ::   \n",
        b"::",
        b"",
    ];
    for text in texts {
        compare_with_one_at_a_time(text);
    }
}

/// [`InertFilter::write_through`] against [`InertFilter::filter_one_at_a_time`] on `text`, in
/// every syntax, cut into two writes at every place.
fn compare_with_one_at_a_time(text: &[u8]) {
    let syntaxes = [
        Syntax::Text,
        Syntax::WorkflowCommands,
        Syntax::Json,
        Syntax::Markup,
        Syntax::CsvOnTerminal,
    ];
    {
        for syntax in syntaxes {
            for cut in 0..=text.len() {
                let mut runs = InertFilter::new(syntax);
                let mut one = InertFilter::new(syntax);
                let (mut a, mut b) = (Vec::new(), Vec::new());
                for part in [&text[..cut], &text[cut..]] {
                    runs.write_through(&mut a, part).unwrap();
                    one.scratch.clear();
                    if one.carry.is_empty() {
                        one.filter_one_at_a_time(part);
                    } else {
                        let mut joined = std::mem::take(&mut one.carry);
                        joined.extend_from_slice(part);
                        one.filter_one_at_a_time(&joined);
                    }
                    b.extend_from_slice(&one.scratch);
                }
                runs.end(&mut a).unwrap();
                one.end(&mut b).unwrap();
                assert_eq!(
                    a,
                    b,
                    "{syntax:?}, {:?} cut at {cut}",
                    String::from_utf8_lossy(text)
                );
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// Random text of the bytes the filter's rules look at (line ends, spaces, tabs, `:`, `#`,
    /// `[`, controls, `DEL`, a cut or whole multi-byte character, bytes that are not UTF-8)
    /// among long printable stretches, which the filter passes eight bytes at a time.
    #[test]
    fn random_text_filters_as_one_at_a_time(
        parts in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::sample::select(vec![
                    "\n", "\r", " ", "  ", "\t", ":", "::", "#", "##", "[", "\u{1b}", "\u{7f}",
                    "\u{e9}", "\u{202e}", "\u{85}", "\u{feff}", "\"", ",",
                ]).prop_map(|s| s.as_bytes().to_vec()),
                "[ -~]{0,20}".prop_map(String::into_bytes),
                proptest::sample::select(vec![0x80u8, 0xc3, 0xe2, 0xff]).prop_map(|b| vec![b]),
            ],
            0..40,
        )
    ) {
        compare_with_one_at_a_time(&parts.concat());
    }
}

/// The bytes the prefilter must tell apart: the three it looks for, the bytes just above
/// and below its threshold (0x24), a space, ordinary ASCII and bytes above ASCII.
const PREFILTER_BYTES: &[u8] = b"#\n\r \"!$%aZ9\x00\x7f\x80\xc3\xff";

fn holds_command_byte(text: &[u8]) -> bool {
    text.iter().any(|b| matches!(b, b'#' | b'\n' | b'\r'))
}

#[test]
fn the_word_prefilter_finds_every_command_byte_at_every_place() {
    for len in 0..=40 {
        for at in 0..len {
            for &byte in PREFILTER_BYTES {
                let mut text = vec![b'a'; len];
                text[at] = byte;
                assert_eq!(
                    may_hold_command(&text),
                    holds_command_byte(&text),
                    "{text:?}"
                );
            }
        }
    }
}

proptest::proptest! {
    #[test]
    fn the_word_prefilter_is_the_byte_test(
        picks in proptest::collection::vec(0..PREFILTER_BYTES.len() * 4, 0..48)
    ) {
        // Mostly ordinary bytes, as values are.
        let text: Vec<u8> = picks
            .iter()
            .map(|&pick| PREFILTER_BYTES.get(pick).copied().unwrap_or(b'a' + (pick % 26) as u8))
            .collect();
        proptest::prop_assert_eq!(may_hold_command(&text), holds_command_byte(&text));
    }
}

#[test]
fn printable_runs_end_at_the_first_byte_they_must_at_every_place() {
    // The bytes a run ends at, and printable ones at the edges of its range that it passes.
    let bytes = [
        b'\n', b'#', 0x7f, 0x80, 0x1f, 0xff, 0xc3, 0, b' ', b'~', b'"', b':',
    ];
    for len in 0..=50 {
        for at in 0..len {
            for &byte in &bytes {
                let mut text = vec![b'a'; len];
                text[at] = byte;
                let expected = text
                    .iter()
                    .position(|&b| !(0x20..0x7f).contains(&b) || b == b'#')
                    .unwrap_or(len);
                assert_eq!(printable_run(&text), expected, "{text:?}");
            }
        }
    }
}
