//! The contract's value types: timestamps, durations and integers, with their exact grammars.
//!
//! Parsing here is pure (no I/O, no clock; the thread-local memory of the last date read and
//! of the last date written saves work and changes no result). Each parser returns a
//! [`ValueError`] whose message says what was expected; the input layer adds the file, line,
//! column and value.

use std::cell::Cell;
use std::fmt;

use chrono::{DateTime, Datelike, NaiveDate, TimeDelta, Utc};

/// Why a cell's text is not a valid value of its type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueError(pub String);

impl ValueError {
    fn new(message: impl Into<String>) -> ValueError {
        ValueError(message.into())
    }
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ValueError {}

/// An instant on the coordinator's clock, kept in UTC, between years 0001 and 9999.
///
/// Kept as seconds since the Unix epoch and nanoseconds (fields in that order, so the derived
/// order is time order): every row carries a few, and chrono's calendar representation made
/// parsing and writing them a tenth of a streaming run (perf).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    seconds: i64,
    /// 0 to 999,999,999.
    nanos: u32,
}

thread_local! {
    /// The dates (`YYYY-MM-DD`) of the last two usual timestamps of different dates read on
    /// this thread, the latest first, each with its midnight in Unix seconds: valid dates, as
    /// text that matches one is not checked again. Two, as a file's offsets put its local
    /// times on two dates around each midnight UTC (a quarter of the reads missed one).
    static LAST_DATES: Cell<[([u8; 10], i64); 2]> =
        const { Cell::new([(*b"1970-01-01", 0), (*b"1970-01-02", 86_400)]) };
}

thread_local! {
    /// The day (counted from 0000-03-01) of the last timestamp written on this thread, and its
    /// `YYYY-MM-DD` as two little-endian words (`YYYY-MM-` and `DD`: loaded as two words, not
    /// ten bytes); day `u32::MAX` is never written.
    static LAST_WRITTEN_DATE: Cell<(u32, u64, u16)> = const { Cell::new((u32::MAX, 0, 0)) };
}

/// 0001-01-01T00:00:00Z in Unix seconds.
const MIN_UNIX_SECONDS: i64 = -62_135_596_800;
/// 9999-12-31T23:59:59Z in Unix seconds.
const MAX_UNIX_SECONDS: i64 = 253_402_300_799;

/// The longest duration the contract accepts: 100 years of 365 days.
pub(crate) const MAX_DURATION_SECONDS: u64 = 3_153_600_000;

impl Timestamp {
    /// Parses RFC 3339 as the contract restricts it: `T` or `t`, an offset (`Z`, `z` or
    /// `±HH:MM`), up to 9 fractional digits, no leap second, UTC year 0001 to 9999.
    pub fn parse(text: &str) -> Result<Timestamp, ValueError> {
        match Timestamp::parse_usual(text.as_bytes()) {
            Some(usual) => Ok(usual),
            None => Timestamp::parse_full(text),
        }
    }

    /// [`Timestamp::parse`] for every shape the contract allows.
    // Kept out of `parse`, whose usual path then needs fewer registers.
    #[cold]
    #[inline(never)]
    fn parse_full(text: &str) -> Result<Timestamp, ValueError> {
        let b = text.as_bytes();
        const SHAPE: &str = "not an RFC 3339 timestamp like 2026-01-01T10:00:00Z";
        let digits = |range: std::ops::Range<usize>| -> Option<u32> {
            let part = b.get(range)?;
            if part.iter().all(u8::is_ascii_digit) {
                Some(part.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
            } else {
                None
            }
        };
        if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || b[13] != b':' || b[16] != b':' {
            return Err(ValueError::new(SHAPE));
        }
        let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) = (
            digits(0..4),
            digits(5..7),
            digits(8..10),
            digits(11..13),
            digits(14..16),
            digits(17..19),
        ) else {
            return Err(ValueError::new(SHAPE));
        };
        match b[10] {
            b'T' | b't' => {}
            b' ' => {
                return Err(ValueError::new(
                    "a space separates date and time; the contract needs `T`",
                ))
            }
            _ => return Err(ValueError::new(SHAPE)),
        }
        let mut pos = 19;
        let mut nanos = 0u32;
        if b.get(pos) == Some(&b'.') {
            let start = pos + 1;
            let mut end = start;
            while end < b.len() && b[end].is_ascii_digit() {
                end += 1;
            }
            let count = end - start;
            if count == 0 {
                return Err(ValueError::new(
                    "a `.` must be followed by fractional digits",
                ));
            }
            if count > 9 {
                return Err(ValueError::new("more than 9 fractional digits"));
            }
            let fraction = digits(start..end).expect("checked digits");
            nanos = fraction * 10u32.pow(9 - count as u32);
            pos = end;
        }
        let offset_seconds: i64 = match &b[pos..] {
            [] => return Err(ValueError::new("no offset (add `Z` or `±HH:MM`)")),
            [b'Z'] | [b'z'] => 0,
            [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
                let (Some(oh), Some(om)) = (digits(pos + 1..pos + 3), digits(pos + 4..pos + 6))
                else {
                    return Err(ValueError::new(SHAPE));
                };
                if oh > 23 || om > 59 {
                    return Err(ValueError::new("offset out of range"));
                }
                let magnitude = i64::from(oh * 3600 + om * 60);
                if *sign == b'-' {
                    -magnitude
                } else {
                    magnitude
                }
            }
            _ => return Err(ValueError::new(SHAPE)),
        };
        if second == 60 {
            return Err(ValueError::new("leap second (:60) is not accepted"));
        }
        // The common case without chrono's general machinery; anything unusual (a bad date
        // or time, the edge of the range) takes the path below for its exact message.
        if let Some(seconds) = fast_utc(year, month, day, hour, minute, second, offset_seconds) {
            return Ok(Timestamp { seconds, nanos });
        }
        let date = NaiveDate::from_ymd_opt(year as i32, month, day)
            .ok_or_else(|| ValueError::new("no such date"))?;
        let local = date
            .and_hms_nano_opt(hour, minute, second, nanos)
            .ok_or_else(|| ValueError::new("no such time of day"))?;
        let utc = local.and_utc() - TimeDelta::seconds(offset_seconds);
        Timestamp::from_utc(utc)
    }

    /// The usual shapes, `YYYY-MM-DDTHH:MM:SS`, a fraction of up to 9 digits or none, then
    /// `Z` or `±HH:MM` (`t` and `z` in either case), without the general path's branches.
    /// `None` for anything else, valid or not, and for any value out of range: [`Timestamp::parse`]
    /// then reads it in full (and explains what is wrong).
    fn parse_usual(b: &[u8]) -> Option<Timestamp> {
        let (Some(date), Some(time), Some(rest)) = (b.get(..10), b.get(11..19), b.get(19..)) else {
            return None;
        };
        // `| 0x20` maps `T` to `t`, and no other byte to it.
        if b[10] | 0x20 != b't' {
            return None;
        }
        let time = u64::from_le_bytes(time.try_into().expect("8 bytes"));
        let pairs = digit_pairs(
            time,
            u64::from_le_bytes(*b"00:00:00"),
            0x0000_FF00_00FF_0000,
        )?;
        let (hour, minute, second) = (pairs & 0xFF, pairs >> 24 & 0xFF, pairs >> 48 & 0xFF);
        // A leap second, or any time that does not exist, is left to the full path.
        if (hour > 23) | (minute > 59) | (second > 59) {
            return None;
        }
        let time_of_day = (hour * 3600 + minute * 60 + second) as i64;
        let (mut rest, mut nanos) = (rest, 0u32);
        if let [b'.', fraction @ ..] = rest {
            let count = fraction
                .iter()
                .take(10)
                .take_while(|byte| byte.is_ascii_digit())
                .count();
            if !(1..=9).contains(&count) {
                return None;
            }
            for &digit in &fraction[..count] {
                nanos = nanos * 10 + u32::from(digit - b'0');
            }
            nanos *= [
                1,
                10,
                100,
                1_000,
                10_000,
                100_000,
                1_000_000,
                10_000_000,
                100_000_000,
            ][9 - count];
            rest = &fraction[count..];
        }
        let offset = match *rest {
            [zone] if zone | 0x20 == b'z' => 0,
            [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
                let offset = u64::from_le_bytes([h1, h2, b':', m1, m2, 0, 0, 0]);
                let pairs = digit_pairs(
                    offset,
                    u64::from_le_bytes(*b"00:00\0\0\0"),
                    0xFFFF_FF00_00FF_0000,
                )?;
                let (hours, minutes) = (pairs & 0xFF, pairs >> 24 & 0xFF);
                if (hours > 23) | (minutes > 59) {
                    return None;
                }
                let magnitude = (hours * 3600 + minutes * 60) as i64;
                if sign == b'-' {
                    -magnitude
                } else {
                    magnitude
                }
            }
            _ => return None,
        };
        let date: [u8; 10] = date.try_into().expect("10 bytes");
        // The timestamps of a file are mostly of a few days: the dates of the last ones read
        // on this thread are remembered, and most dates are then looked up, not worked out.
        let [latest, other] = LAST_DATES.get();
        let midnight = if date == latest.0 {
            latest.1
        } else if date == other.0 {
            LAST_DATES.set([other, latest]);
            other.1
        } else {
            if (date[4] != b'-') | (date[7] != b'-') {
                return None;
            }
            let d = |at: usize| date[at].wrapping_sub(b'0');
            let digits = [d(0), d(1), d(2), d(3), d(5), d(6), d(8), d(9)];
            if digits.iter().fold(false, |bad, &digit| bad | (digit > 9)) {
                return None;
            }
            let n = |pair: &[u8]| u32::from(pair[0]) * 10 + u32::from(pair[1]);
            let year = n(&digits[0..2]) * 100 + n(&digits[2..4]);
            let midnight = fast_utc(year, n(&digits[4..6]), n(&digits[6..8]), 0, 0, 0, 0)?;
            LAST_DATES.set([(date, midnight), latest]);
            midnight
        };
        let seconds = midnight + time_of_day - offset;
        // An offset can take the instant out of years 0001 to 9999; the full path says so.
        (MIN_UNIX_SECONDS..=MAX_UNIX_SECONDS)
            .contains(&seconds)
            .then_some(Timestamp { seconds, nanos })
    }

    fn from_utc(utc: DateTime<Utc>) -> Result<Timestamp, ValueError> {
        if (1..=9999).contains(&utc.year()) {
            Ok(Timestamp {
                seconds: utc.timestamp(),
                nanos: utc.timestamp_subsec_nanos(),
            })
        } else {
            Err(ValueError::new("outside years 0001 to 9999 UTC"))
        }
    }

    /// Its seconds since the Unix epoch and nanoseconds, for a store that writes it down
    /// ([`Timestamp::from_parts`] reads it back).
    pub(crate) fn to_parts(self) -> (i64, u32) {
        (self.seconds, self.nanos)
    }

    /// The instant [`Timestamp::to_parts`] gave, if it is one.
    pub(crate) fn from_parts(seconds: i64, nanos: u32) -> Option<Timestamp> {
        ((MIN_UNIX_SECONDS..=MAX_UNIX_SECONDS).contains(&seconds) && nanos < 1_000_000_000)
            .then_some(Timestamp { seconds, nanos })
    }

    /// The instant `seconds` after the Unix epoch, if it lies in years 0001 to 9999.
    pub fn from_unix_seconds(seconds: i64) -> Result<Timestamp, ValueError> {
        if (MIN_UNIX_SECONDS..=MAX_UNIX_SECONDS).contains(&seconds) {
            Ok(Timestamp { seconds, nanos: 0 })
        } else {
            Err(ValueError::new("outside years 0001 to 9999 UTC"))
        }
    }

    /// This instant plus a duration, or an error if the result leaves years 0001 to 9999.
    pub fn checked_add(self, duration: Seconds) -> Result<Timestamp, ValueError> {
        // A duration is at most 100 years: the sum cannot overflow.
        let seconds = self.seconds + duration.0 as i64;
        if seconds > MAX_UNIX_SECONDS {
            return Err(ValueError::new("outside years 0001 to 9999 UTC"));
        }
        Ok(Timestamp {
            seconds,
            nanos: self.nanos,
        })
    }

    /// The instant as chrono's UTC date-time.
    pub fn as_datetime(self) -> DateTime<Utc> {
        DateTime::from_timestamp(self.seconds, self.nanos).expect("years 0001 to 9999")
    }

    /// Whole seconds since the Unix epoch (the fraction left off).
    pub fn unix_seconds(self) -> i64 {
        self.seconds
    }

    /// Seconds since the Unix epoch, with the fraction (for drawing timelines).
    pub fn unix_seconds_f64(self) -> f64 {
        self.seconds as f64 + f64::from(self.nanos) / 1e9
    }
}

/// Pairs of decimal digits read from up to eight bytes at once (`HH:MM:SS`, `HH:MM`), in place
/// of a branch per byte: `word`'s bytes XORed with `template`'s, whose bytes are `0`, or else
/// (0xFF in `others`) exactly what `word` must have there. XOR with `0` keeps only the low
/// nibble of `0` to `9` and puts any other byte at 10 or more. `None` unless every byte is as
/// the template says; else ten times each digit plus the next, in the byte of the first of
/// each pair.
#[inline]
fn digit_pairs(word: u64, template: u64, others: u64) -> Option<u64> {
    let digits = word ^ template;
    // A byte above 9 sets its top bit, by itself or plus 0x76 (no carry from a byte that
    // does not).
    let not_digits = (digits | digits.wrapping_add(0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080;
    if (not_digits | (digits & others)) != 0 {
        return None;
    }
    // At most 99 in a byte: no byte carries into another.
    Some(digits * 10 + (digits >> 8))
}

/// `00` to `99`: two digits per lookup when writing timestamps.
const DIGIT_PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

impl Timestamp {
    /// Appends the contract's UTC form (as [`Display`](fmt::Display) writes it) to `out`,
    /// without the formatting machinery: the matrix writes millions of these.
    pub fn write_to(self, out: &mut Vec<u8>) {
        // Counted from 0000-03-01, which every instant of years 0001 to 9999 follows: unsigned
        // arithmetic from here on.
        let since_0000_03_01 = (self.seconds + 719_468 * 86_400) as u64;
        let z = (since_0000_03_01 / 86_400) as u32;
        let time = (since_0000_03_01 % 86_400) as u32;
        let pair = |n: u32| {
            let at = 2 * n as usize;
            [DIGIT_PAIRS[at], DIGIT_PAIRS[at + 1]]
        };
        // A matrix row's timestamps are mostly of one day or a few: the date last written on
        // this thread is remembered.
        let (last_day, last_date, last_day_digits) = LAST_WRITTEN_DATE.get();
        let (date, day_digits) = if z == last_day {
            (last_date, last_day_digits)
        } else {
            // Civil from days (H. Hinnant), proleptic Gregorian.
            let era = z / 146_097;
            let doe = z - era * 146_097;
            let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
            let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
            let mp = (5 * doy + 2) / 153;
            let day = doy - (153 * mp + 2) / 5 + 1;
            let month = if mp < 10 { mp + 3 } else { mp - 9 };
            let year = yoe + era * 400 + u32::from(month <= 2);
            let ([y1, y2], [y3, y4]) = (pair(year / 100), pair(year % 100));
            let ([mo1, mo2], [d1, d2]) = (pair(month), pair(day));
            let date = u64::from_le_bytes([y1, y2, y3, y4, b'-', mo1, mo2, b'-']);
            let day_digits = u16::from_le_bytes([d1, d2]);
            LAST_WRITTEN_DATE.set((z, date, day_digits));
            (date, day_digits)
        };
        // Built as whole words, not byte by byte (a byte per instruction was half its cost).
        let (hour, minute, second) = (time / 3600, time / 60 % 60, time % 60);
        let pair_word = |n: u32| u64::from(u16::from_le_bytes(pair(n)));
        let clock = pair_word(hour)
            | u64::from(b':') << 16
            | pair_word(minute) << 24
            | u64::from(b':') << 40
            | pair_word(second) << 48;
        let mut text = [0u8; 20];
        text[..8].copy_from_slice(&date.to_le_bytes());
        text[8..10].copy_from_slice(&day_digits.to_le_bytes());
        text[10] = b'T';
        text[11..19].copy_from_slice(&clock.to_le_bytes());
        text[19] = b'Z';
        let nanos = self.nanos;
        if nanos == 0 {
            out.extend_from_slice(&text);
            return;
        }
        out.extend_from_slice(&text[..19]);
        out.push(b'.');
        let mut digits = [0u8; 9];
        let mut rest = nanos;
        for slot in digits.iter_mut().rev() {
            *slot = b'0' + (rest % 10) as u8;
            rest /= 10;
        }
        let kept = 9 - digits.iter().rev().take_while(|&&d| d == b'0').count();
        out.extend_from_slice(&digits[..kept]);
        out.push(b'Z');
    }
}

impl fmt::Display for Timestamp {
    /// `YYYY-MM-DDTHH:MM:SSZ`, with a non-zero fraction after the seconds, trailing zeros removed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = Vec::with_capacity(32);
        self.write_to(&mut text);
        f.write_str(std::str::from_utf8(&text).expect("ASCII"))
    }
}

/// The Unix seconds of a valid civil date and time with an offset, if they lie between years
/// 0001 and 9999 UTC; `None` for anything else (the caller then reports why).
fn fast_utc(
    year: u32,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    offset_seconds: i64,
) -> Option<i64> {
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if year == 0 || day == 0 || day > month_days || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    // Days from civil (H. Hinnant), for the proleptic Gregorian calendar; unsigned, as the
    // year is at least 1.
    let y = year - u32::from(month <= 2);
    let era = y / 400;
    let yoe = y - era * 400;
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = i64::from(era * 146_097 + doe) - 719_468;
    let unix = days * 86_400 + i64::from(hour * 3600 + minute * 60 + second) - offset_seconds;
    // 0001-01-01T00:00:00Z ..= 9999-12-31T23:59:59Z (the fraction stays within the second).
    (MIN_UNIX_SECONDS..=MAX_UNIX_SECONDS)
        .contains(&unix)
        .then_some(unix)
}

/// A lease duration in whole seconds, from 1 to `MAX_DURATION_SECONDS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seconds(u64);

impl Seconds {
    /// A duration from a number of seconds, if it is within the contract's range.
    pub fn new(seconds: u64) -> Result<Seconds, ValueError> {
        if seconds == 0 {
            Err(ValueError::new("a duration must be greater than 0"))
        } else if seconds > MAX_DURATION_SECONDS {
            Err(ValueError::new(
                "a duration must be at most 3153600000 seconds (100 years)",
            ))
        } else {
            Ok(Seconds(seconds))
        }
    }

    /// Parses `30`, `30s`, `5m`, `1h` (unit in any case) or ISO 8601 `PnDTnHnMnS` with
    /// upper-case designators. No fractions, weeks or compound forms like `1h30m`.
    pub fn parse(text: &str) -> Result<Seconds, ValueError> {
        const SHAPE: &str =
            "not a duration: whole seconds like 30, 30s, 5m, 1h, or ISO 8601 like PT90S";
        let seconds = if let Some(iso) = text.strip_prefix('P') {
            parse_iso_duration(iso).ok_or_else(|| ValueError::new(SHAPE))?
        } else {
            let (number, unit) = match text.as_bytes().last() {
                Some(b's' | b'S') => (&text[..text.len() - 1], 1),
                Some(b'm' | b'M') => (&text[..text.len() - 1], 60),
                Some(b'h' | b'H') => (&text[..text.len() - 1], 3600),
                _ => (text, 1),
            };
            let n = parse_digits(number).ok_or_else(|| ValueError::new(SHAPE))?;
            n.checked_mul(unit).ok_or_else(|| {
                ValueError::new("a duration must be at most 3153600000 seconds (100 years)")
            })?
        };
        Seconds::new(seconds)
    }

    /// The number of seconds.
    pub fn get(self) -> u64 {
        self.0
    }
}

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// `nD` then optionally `T` with `nH`, `nM`, `nS` in that order (the text after `P`).
/// Saturates on overflow so the range check rejects it.
fn parse_iso_duration(text: &str) -> Option<u64> {
    let (date_part, time_part) = match text.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (text, None),
    };
    let mut total: u64 = 0;
    let mut any = false;
    let mut take = |part: &str, designators: &[(u8, u64)]| -> Option<()> {
        let mut rest = part;
        let mut next = 0;
        while !rest.is_empty() {
            let end = rest.find(|c: char| !c.is_ascii_digit())?;
            let designator = rest.as_bytes()[end];
            let index = designators[next..]
                .iter()
                .position(|(d, _)| *d == designator)?
                + next;
            let n = parse_digits(&rest[..end])?;
            total = total.saturating_add(n.saturating_mul(designators[index].1));
            any = true;
            next = index + 1;
            rest = &rest[end + 1..];
        }
        Some(())
    };
    take(date_part, &[(b'D', 86_400)])?;
    if let Some(time) = time_part {
        if time.is_empty() {
            return None;
        }
        take(time, &[(b'H', 3600), (b'M', 60), (b'S', 1)])?;
    }
    any.then_some(total)
}

/// Decimal digits only (no sign, no fraction, no spaces), at most 2^64−1.
fn parse_digits(text: &str) -> Option<u64> {
    decimal(text).ok()
}

/// Why text is not a decimal integer.
enum NotDecimal {
    /// Empty, or a character that is not a digit.
    NotDigits,
    /// Only digits, but more than 2^64−1.
    TooLarge,
}

/// Decimal digits only (no sign, no spaces), at most 2^64−1: one pass, where `str::parse` after
/// a check for digits read the text twice (a generation or sequence number is on most rows).
fn decimal(text: &str) -> Result<u64, NotDecimal> {
    if text.is_empty() {
        return Err(NotDecimal::NotDigits);
    }
    let mut value = Some(0u64);
    for &byte in text.as_bytes() {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return Err(NotDecimal::NotDigits);
        }
        // Once too large it stays `None`, but every character is still checked.
        value = value
            .and_then(|n| n.checked_mul(10))
            .and_then(|n| n.checked_add(u64::from(digit)));
    }
    value.ok_or(NotDecimal::TooLarge)
}

/// Parses the contract's unsigned integer: decimal digits only, at most 2^64−1.
#[inline]
pub(crate) fn parse_integer(text: &str) -> Result<u64, ValueError> {
    decimal(text).map_err(|e| match e {
        NotDecimal::NotDigits => ValueError::new("not an unsigned integer (decimal digits only)"),
        NotDecimal::TooLarge => {
            ValueError::new("integer out of range (at most 18446744073709551615)")
        }
    })
}

/// Whether two texts (ids, holders) are equal: `a == b`, with the usual lengths of ids (4 to 16
/// bytes) compared as two overlapping words each rather than by a call to `memcmp`, since ids
/// are compared on every row.
#[inline]
pub(crate) fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let len = a.len();
    if len != b.len() {
        return false;
    }
    let u64_at =
        |text: &[u8], at: usize| u64::from_le_bytes(text[at..at + 8].try_into().expect("8 bytes"));
    let u32_at =
        |text: &[u8], at: usize| u32::from_le_bytes(text[at..at + 4].try_into().expect("4 bytes"));
    match len {
        8..=16 => u64_at(a, 0) == u64_at(b, 0) && u64_at(a, len - 8) == u64_at(b, len - 8),
        4..=7 => u32_at(a, 0) == u32_at(b, 0) && u32_at(a, len - 4) == u32_at(b, len - 4),
        _ => a == b,
    }
}

/// Parses a sequence number: an integer of at least 1.
#[inline]
pub(crate) fn parse_sequence(text: &str) -> Result<u64, ValueError> {
    let n = parse_integer(text)?;
    if n == 0 {
        Err(ValueError::new("a sequence number must be at least 1"))
    } else {
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(text: &str) -> String {
        Timestamp::parse(text).unwrap().to_string()
    }

    #[test]
    fn timestamps_normalise_to_utc_with_trimmed_fraction() {
        assert_eq!(ts("2026-01-01T10:00:00Z"), "2026-01-01T10:00:00Z");
        assert_eq!(ts("2026-01-01t10:00:00z"), "2026-01-01T10:00:00Z");
        assert_eq!(
            ts("2026-01-01T12:00:00.250+02:00"),
            "2026-01-01T10:00:00.25Z"
        );
        assert_eq!(ts("2026-01-01T00:30:00-01:00"), "2026-01-01T01:30:00Z");
        assert_eq!(
            ts("2026-01-01T10:00:00.000000001Z"),
            "2026-01-01T10:00:00.000000001Z"
        );
        assert_eq!(ts("2026-01-01T10:00:00.000Z"), "2026-01-01T10:00:00Z");
    }

    #[test]
    fn timestamps_reject_what_the_contract_rejects() {
        for bad in [
            "2026-01-01T10:00:00",
            "2026-01-01 10:00:00Z",
            "2026-01-01T10:00:60Z",
            "2026-01-01T10:00:00.1234567890Z",
            "2026-01-01T10:00:00.Z",
            "2026-02-30T10:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T10:00:00+0200",
            "2026-01-01T10:00:00+24:00",
            "0001-01-01T00:30:00+01:00",
            "26-01-01T10:00:00Z",
            "",
            "tomorrow",
        ] {
            assert!(Timestamp::parse(bad).is_err(), "{bad:?} should be rejected");
        }
        assert!(Timestamp::parse("0001-01-01T00:00:00Z").is_ok());
        assert!(Timestamp::parse("9999-12-31T23:59:59.999999999Z").is_ok());
        assert!(Timestamp::parse("2026-01-01T10:00:00Z")
            .unwrap()
            .checked_add(Seconds::new(1).unwrap())
            .is_ok());
        assert!(Timestamp::parse("9999-12-31T23:59:59Z")
            .unwrap()
            .checked_add(Seconds::new(1).unwrap())
            .is_err());
    }

    #[test]
    fn the_usual_shapes_read_as_the_full_grammar_does() {
        let mut rng = crate::random::SplitMix64::new(0x2545_F491_4F6C_DD1D);
        let mut next = |bound: u64| rng.next_u64() % bound;
        let mut usual = 0;
        for _ in 0..100_000 {
            // Mostly real instants, in every usual shape (`T` or `t`, a fraction or none, `Z`,
            // `z` or an offset, the range's edges); some fields out of range, some characters
            // not digits, some fractions too long.
            let year = match next(4) {
                0 => next(3),
                1 => 9998 + next(3),
                _ => next(10_000),
            };
            let fraction = match next(4) {
                0 => format!(".{}", "0123456789".get(..1 + next(10) as usize).unwrap()),
                1 => ".".to_owned(),
                _ => String::new(),
            };
            let zone = match next(5) {
                0 => "Z".to_owned(),
                1 => "z".to_owned(),
                2 => format!("+{:02}:{:02}", next(26), next(62)),
                3 => format!("-{:02}:{:02}", next(26), next(62)),
                _ => ["", "+01", "+01:0", "Z0", "+0100"][next(5) as usize].to_owned(),
            };
            let mut text = format!(
                "{year:04}-{:02}-{:02}{}{:02}:{:02}:{:02}{fraction}{zone}",
                next(14),
                next(33),
                ["T", "t", " "][next(3) as usize],
                next(25),
                next(61),
                next(62)
            )
            .into_bytes();
            if next(10) == 0 {
                let at = next(text.len() as u64) as usize;
                text[at] = b"0Z:-T/ a9.+"[next(11) as usize];
            }
            let text = String::from_utf8(text).unwrap();
            let full = Timestamp::parse_full(&text);
            // Twice: after whatever date came before, then after its own date at midnight (a
            // date the usual path remembers, if it is one).
            for primed in [false, true] {
                if primed {
                    let _ = Timestamp::parse(&format!("{}T00:00:00Z", &text[..10]));
                }
                match Timestamp::parse_usual(text.as_bytes()) {
                    Some(fast) => {
                        usual += 1;
                        assert_eq!(Ok(fast), full, "{text}");
                    }
                    // Left to the full path, which gives the message.
                    None => assert_eq!(Timestamp::parse(&text), full, "{text}"),
                }
            }
        }
        assert!(usual > 40_000, "the usual path read {usual} of 200000");
    }

    #[test]
    fn remembered_dates_read_as_the_full_parse_reads_them() {
        // Dates alternating, repeating and new, so that each of the two remembered dates is
        // hit and replaced; the initial ones included, and text that is no date at all.
        let texts = [
            "2026-01-01T00:00:01Z",
            "2025-12-31T16:00:02-08:00",
            "2026-01-01T05:30:03+05:30",
            "2025-12-31T23:59:59.5Z",
            "2026-01-02T00:00:00z",
            "2026-01-01t00:00:04.000+00:00",
            "2026-02-30T00:00:00Z",
            "1970-01-01T00:00:00Z",
            "1970-01-02T10:00:00Z",
            "1970-01-01T23:59:60Z",
            "\0\0\0\0\0\0\0\0\0\0T00:00:00Z",
            "1970_01_01T00:00:00Z",
        ];
        std::thread::spawn(move || {
            for round in 0..4 {
                for at in 0..texts.len() {
                    let text = texts[(at * (round + 1)) % texts.len()];
                    assert_eq!(
                        Timestamp::parse(text),
                        Timestamp::parse_full(text),
                        "{text}"
                    );
                }
            }
        })
        .join()
        .unwrap();
    }

    #[test]
    fn durations_follow_the_contract_grammar() {
        let secs = |t: &str| Seconds::parse(t).map(Seconds::get);
        assert_eq!(secs("30"), Ok(30));
        assert_eq!(secs("30s"), Ok(30));
        assert_eq!(secs("30S"), Ok(30));
        assert_eq!(secs("5m"), Ok(300));
        assert_eq!(secs("1H"), Ok(3600));
        assert_eq!(secs("PT90S"), Ok(90));
        assert_eq!(secs("PT1M30S"), Ok(90));
        assert_eq!(secs("P1D"), Ok(86_400));
        assert_eq!(secs("P1DT1H"), Ok(90_000));
        assert_eq!(secs("3153600000"), Ok(MAX_DURATION_SECONDS));
        for bad in [
            "0",
            "0s",
            "PT0S",
            "-5",
            "1.5",
            "1h30m",
            "P1W",
            "PT",
            "P",
            "P1DT",
            "pt30s",
            "PT30s",
            "PT1S1M",
            "3153600001",
            "99999999999999999999",
            "PT1.5S",
            " 30",
            "",
            "s",
        ] {
            assert!(Seconds::parse(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn same_text_is_equality() {
        let base: Vec<u8> = (0..40u8).map(|i| b'a' + i % 26).collect();
        for len in 0..40 {
            let a = std::str::from_utf8(&base[..len]).unwrap();
            assert!(same_text(a, a));
            for other_len in [len.saturating_sub(1), len + 1] {
                let b = std::str::from_utf8(&base[..other_len]).unwrap();
                assert_eq!(same_text(a, b), a == b, "{a:?} {b:?}");
            }
            for at in 0..len {
                let mut changed = base[..len].to_vec();
                changed[at] = b'Z';
                let b = std::str::from_utf8(&changed).unwrap();
                assert!(!same_text(a, b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn integers_are_digits_only() {
        assert_eq!(parse_integer("0"), Ok(0));
        assert_eq!(parse_integer("18446744073709551615"), Ok(u64::MAX));
        for bad in ["", "-1", "+1", "1.0", "1e3", "18446744073709551616", " 1"] {
            assert!(parse_integer(bad).is_err(), "{bad:?} should be rejected");
        }
        assert!(parse_sequence("0").is_err());
        assert_eq!(parse_sequence("1"), Ok(1));
        let message = |text: &str| parse_integer(text).unwrap_err().0;
        assert_eq!(
            message("18446744073709551616"),
            "integer out of range (at most 18446744073709551615)"
        );
        assert_eq!(
            message("99999999999999999999x"),
            "not an unsigned integer (decimal digits only)",
            "a stray character is named before the size"
        );
        // Digit strings of every length up to 25, leading zeros included: as `str::parse`.
        let mut rng = crate::random::SplitMix64::new(0x9E37_79B9_7F4A_7C15);
        for _ in 0..20_000 {
            let state = rng.next_u64();
            let len = 1 + (state % 25) as usize;
            let digits: String = (0..len)
                .map(|i| char::from(b'0' + ((state >> (i % 16 * 4)) % 10) as u8))
                .collect();
            let text = if state % 7 == 0 {
                "1".repeat(len)
            } else {
                digits
            };
            assert_eq!(
                parse_integer(&text).ok(),
                text.parse::<u64>().ok(),
                "{text}"
            );
        }
    }

    #[test]
    fn fast_timestamps_agree_with_chrono() {
        // Pseudo-random civil times and offsets (including invalid days and the range's
        // edges): the fast path and chrono's RFC 3339 parser must agree on every valid one,
        // and writing must agree with chrono's formatting.
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % n
        };
        for _ in 0..20_000 {
            let year = match next(4) {
                0 => 1 + next(3),
                1 => 9997 + next(3),
                _ => 1 + next(9999),
            };
            let text = format!(
                "{year:04}-{:02}-{:02}T{:02}:{:02}:{:02}{}{}",
                1 + next(12),
                1 + next(31),
                next(24),
                next(60),
                next(60),
                [String::new(), format!(".{}", next(1_000_000_000))][next(2) as usize],
                [
                    "Z".to_string(),
                    format!("+{:02}:{:02}", next(24), next(60)),
                    format!("-{:02}:{:02}", next(24), next(60))
                ][next(3) as usize],
            );
            let ours = Timestamp::parse(&text);
            let theirs = DateTime::parse_from_rfc3339(&text)
                .ok()
                .map(|t| t.with_timezone(&Utc))
                .filter(|t| (1..=9999).contains(&t.year()));
            match (ours, theirs) {
                (Ok(ours), Some(theirs)) => {
                    assert_eq!(ours.as_datetime(), theirs, "{text}");
                    let expected = theirs.format("%Y-%m-%dT%H:%M:%S%.fZ").to_string();
                    let expected = if expected.contains('.') {
                        let (whole, fraction) =
                            expected.trim_end_matches('Z').split_once('.').unwrap();
                        let fraction = fraction.trim_end_matches('0');
                        if fraction.is_empty() {
                            format!("{whole}Z")
                        } else {
                            format!("{whole}.{fraction}Z")
                        }
                    } else {
                        expected
                    };
                    assert_eq!(ours.to_string(), expected, "{text}");
                    // Another second of the same UTC day: written from the remembered date.
                    let midnight = ours.seconds - ours.seconds.rem_euclid(86_400);
                    let same_day = midnight + next(86_400) as i64;
                    if let Ok(other) = Timestamp::from_unix_seconds(same_day) {
                        let theirs = other.as_datetime().format("%Y-%m-%dT%H:%M:%SZ");
                        assert_eq!(other.to_string(), theirs.to_string(), "{text}");
                    }
                }
                (Err(_), None) => {}
                (ours, theirs) => panic!("{text}: ours {ours:?}, chrono {theirs:?}"),
            }
        }
    }
}
