//! The warnings of a `validate` run: every one counted, in total and by kind, and the first
//! N (`--max-warnings`) listed in file and line order. Warnings come in any order (a case's
//! when it closes), so they are kept in the store's external sort: memory stays bounded
//! whatever their number.

use std::io::{self, Read};

use crate::input::InputError;
use crate::store::{Entry, ExternalSort, Get, Put, Record};

/// What a warning is about: set where each warning is made, and counted by it in the
/// summary, in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarningKind {
    /// A column the reader ignores.
    IgnoredColumn,
    /// A field given on an event that does not use it.
    UnusedField,
    /// A case that never leaves `PENDING_ACK` (`--lint`).
    NeverAcknowledged,
    /// A case that ends before any deadline could be judged (`--lint`).
    EndsBeforeDeadline,
    /// A file with no case rows.
    NoCaseRows,
}

impl WarningKind {
    /// Every kind, in the order the summary lists them.
    pub const ALL: [WarningKind; 5] = [
        WarningKind::IgnoredColumn,
        WarningKind::UnusedField,
        WarningKind::NeverAcknowledged,
        WarningKind::EndsBeforeDeadline,
        WarningKind::NoCaseRows,
    ];

    /// Its name in the summary, for one and for several.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            WarningKind::IgnoredColumn => ("ignored column", "ignored columns"),
            WarningKind::UnusedField => (
                "field its event does not use",
                "fields their events do not use",
            ),
            WarningKind::NeverAcknowledged => {
                ("case never acknowledged", "cases never acknowledged")
            }
            WarningKind::EndsBeforeDeadline => (
                "case ending before a deadline",
                "cases ending before a deadline",
            ),
            WarningKind::NoCaseRows => ("file without case rows", "files without case rows"),
        }
    }

    /// Its place in [`WarningKind::ALL`], as it is kept in a temporary file.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The kind whose [`code`](Self::code) is `code`.
    pub fn from_code(code: u8) -> io::Result<WarningKind> {
        WarningKind::ALL
            .get(usize::from(code))
            .copied()
            .ok_or_else(|| crate::store::corrupt("a warning's kind"))
    }
}

/// A warning: like an [`InputError`] but it does not stop anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// Which input on the command line (for ordering).
    pub file_index: usize,
    /// What it is about.
    pub kind: WarningKind,
    /// Where: `FILE:LINE: column: message (value)`, as an input error would be written.
    pub at: InputError,
}

/// How many warnings [`Warnings`] holds before it sorts them into a run on disk.
const WARNINGS_PER_RUN: usize = 8192;

/// How many runs [`Warnings`] keeps before merging them into one (a bound on open files).
const RUNS_BEFORE_MERGE: usize = 64;

/// A warning's place in the listing: file, line, then which pass found it (the reader's
/// warnings before the cases'), then the order it was found in, as a stable sort of the
/// reader's warnings followed by the cases' would put them.
type WarningKey = (u64, u64, u8, u64);

/// A warning as it is listed: its place, and `FILE:LINE: column: message (value)`.
#[derive(Clone, Debug)]
struct ListedWarning {
    key: WarningKey,
    text: Box<str>,
}

impl Entry for ListedWarning {
    type Key = WarningKey;

    fn key(&self) -> WarningKey {
        self.key
    }
}

impl Record for ListedWarning {
    fn encode(&self, out: &mut impl Put) {
        let (file, line, phase, seq) = self.key;
        out.put_u64(file);
        out.put_u64(line);
        out.put_u8(phase);
        out.put_u64(seq);
        out.put_str(&self.text);
    }

    fn decode(input: &mut impl Read) -> io::Result<ListedWarning> {
        Ok(ListedWarning {
            key: (
                input.get_u64()?,
                input.get_u64()?,
                input.get_u8()?,
                input.get_u64()?,
            ),
            text: input.get_string()?.into_boxed_str(),
        })
    }
}

/// The warnings of a run: every one counted (in total and by kind), the first
/// N (the limit) in file and line order kept for listing, the rest dropped.
#[derive(Debug)]
pub struct Warnings {
    limit: usize,
    total: usize,
    by_kind: [usize; WarningKind::ALL.len()],
    next_seq: u64,
    listed: ExternalSort<ListedWarning>,
}

impl Default for Warnings {
    fn default() -> Warnings {
        Warnings::new(usize::MAX)
    }
}

impl Warnings {
    /// No warnings yet; the first `limit` will be listed.
    pub fn new(limit: usize) -> Warnings {
        Warnings::sorted_in_runs(limit, WARNINGS_PER_RUN, RUNS_BEFORE_MERGE)
    }

    /// No warnings yet, sorted into runs on disk of `per_run`, merged past `runs_before_merge`
    /// (the tests' small runs prove with a hundred warnings what the product's take half a
    /// million to show).
    fn sorted_in_runs(limit: usize, per_run: usize, runs_before_merge: usize) -> Warnings {
        Warnings {
            limit,
            total: 0,
            by_kind: [0; WarningKind::ALL.len()],
            next_seq: 0,
            listed: ExternalSort::new(limit, per_run, runs_before_merge),
        }
    }

    /// How many warnings there are.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// How many are listed: at most the limit.
    pub fn listed_count(&self) -> usize {
        self.total.min(self.limit)
    }

    /// Adds a warning found by pass `phase` (0 the reader, 1 the cases): at equal lines, a
    /// pass's warnings are listed before a later pass's.
    pub fn push(&mut self, warning: Warning, phase: u8) {
        self.total += 1;
        self.by_kind[usize::from(warning.kind.code())] += 1;
        let next_seq = &mut self.next_seq;
        self.listed.push(|| {
            let key = (warning.file_index as u64, warning.at.line, phase, *next_seq);
            *next_seq += 1;
            ListedWarning {
                key,
                text: warning.at.to_string().into_boxed_str(),
            }
        });
    }

    /// Adds every warning of `other` (its keys, counts and runs).
    pub(super) fn absorb(&mut self, other: Warnings) -> io::Result<()> {
        self.listed.absorb(other.listed)?;
        self.total += other.total;
        for (mine, theirs) in self.by_kind.iter_mut().zip(other.by_kind) {
            *mine += theirs;
        }
        Ok(())
    }

    /// The listed warnings (`FILE:LINE: column: message (value)`), in file and line order.
    pub fn listed(&self) -> io::Result<impl Iterator<Item = io::Result<String>> + '_> {
        Ok(self
            .listed
            .sorted()?
            .map(|warning| warning.map(|warning| String::from(warning.text))))
    }

    /// `N kind, M kind, ...`, in [`WarningKind::ALL`] order.
    pub fn by_kind(&self) -> String {
        WarningKind::ALL
            .iter()
            .zip(self.by_kind)
            .filter(|(_, n)| *n > 0)
            .map(|(kind, n)| {
                let (one, many) = kind.names();
                format!("{n} {}", if n == 1 { one } else { many })
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` warnings over two files and two passes, in a scrambled order, with repeated lines.
    fn scrambled(n: u64) -> Vec<(Warning, u8)> {
        (0..n)
            .map(|i| {
                let mixed = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
                let file_index = (mixed % 2) as usize;
                let line = mixed % (n / 3 + 1);
                let (kind, message) = if i % 5 == 0 {
                    (
                        WarningKind::IgnoredColumn,
                        "names no case-file field: ignored".to_owned(),
                    )
                } else {
                    (WarningKind::UnusedField, format!("warning {i}"))
                };
                let at = InputError::new(
                    crate::input::ErrorKind::Header,
                    &format!("f{file_index}.csv"),
                    line,
                    message,
                );
                (
                    Warning {
                        file_index,
                        kind,
                        at,
                    },
                    (i % 3 == 0) as u8,
                )
            })
            .collect()
    }

    /// What `validate` listed before warnings were sorted in runs, up to `limit`: every
    /// warning, the reader's before the cases', stably sorted by file and line (ties kept
    /// in order by their index).
    fn expected(warnings: &[(Warning, u8)], limit: usize) -> Vec<String> {
        let mut order: Vec<(usize, u64, u8, usize)> = warnings
            .iter()
            .enumerate()
            .map(|(i, (w, phase))| (w.file_index, w.at.line, *phase, i))
            .collect();
        if limit < order.len() {
            order.select_nth_unstable(limit);
            order.truncate(limit);
        }
        order.sort_unstable();
        order
            .iter()
            .map(|&(.., i)| warnings[i].0.at.to_string())
            .collect()
    }

    fn listed(warnings: &Warnings) -> Vec<String> {
        warnings.listed().unwrap().map(Result::unwrap).collect()
    }

    /// Warnings per run on disk in these tests.
    const TEST_PER_RUN: usize = 16;

    /// Runs kept before a merge in these tests.
    const TEST_RUNS_BEFORE_MERGE: usize = 4;

    /// Enough warnings for runs on disk to be merged (more than `TEST_RUNS_BEFORE_MERGE` runs),
    /// listed up to `limit`: the first `limit` in file order, every one counted.
    fn runs_on_disk_list_the_first_in_file_order_and_count_every_one(limit: usize) {
        let n = (TEST_PER_RUN * (TEST_RUNS_BEFORE_MERGE + 3)) as u64;
        let warnings = scrambled(n);
        let all = expected(&warnings, limit);
        let mut sink = Warnings::sorted_in_runs(limit, TEST_PER_RUN, TEST_RUNS_BEFORE_MERGE);
        for (warning, phase) in warnings.iter().cloned() {
            sink.push(warning, phase);
        }
        assert_eq!(sink.total(), n as usize);
        assert_eq!(sink.listed_count(), limit.min(n as usize));
        let got = listed(&sink);
        assert_eq!(got.len(), limit.min(all.len()), "limit {limit}");
        assert!(got == all[..got.len()], "limit {limit}");
        assert_eq!(
            sink.by_kind(),
            format!(
                "{} ignored columns, {} fields their events do not use",
                n.div_ceil(5),
                n - n.div_ceil(5)
            )
        );
        // Listing twice gives the same.
        assert_eq!(listed(&sink), got);
    }

    #[test]
    fn runs_on_disk_list_every_warning_in_file_order_and_count_every_one() {
        runs_on_disk_list_the_first_in_file_order_and_count_every_one(usize::MAX);
    }

    #[test]
    fn runs_on_disk_list_none_of_them_with_no_room_and_count_every_one() {
        runs_on_disk_list_the_first_in_file_order_and_count_every_one(0);
    }

    #[test]
    fn runs_on_disk_list_the_first_one_and_count_every_one() {
        runs_on_disk_list_the_first_in_file_order_and_count_every_one(1);
    }

    #[test]
    fn runs_on_disk_list_the_first_fifty_and_count_every_one() {
        runs_on_disk_list_the_first_in_file_order_and_count_every_one(50);
    }

    #[test]
    fn runs_on_disk_list_the_first_run_and_some_and_count_every_one() {
        runs_on_disk_list_the_first_in_file_order_and_count_every_one(TEST_PER_RUN + 7);
    }

    #[test]
    fn absorbed_warnings_merge_with_the_reader_first_on_a_tie() {
        let warnings = scrambled(3 * TEST_PER_RUN as u64 + 11);
        let all = expected(&warnings, usize::MAX);
        let runs = |limit| Warnings::sorted_in_runs(limit, TEST_PER_RUN, TEST_RUNS_BEFORE_MERGE);
        let (mut reader, mut cases) = (runs(usize::MAX), runs(usize::MAX));
        for (warning, phase) in warnings.iter().cloned() {
            if phase == 0 {
                reader.push(warning, phase);
            } else {
                cases.push(warning, phase);
            }
        }
        reader.absorb(cases).unwrap();
        assert_eq!(reader.total(), warnings.len());
        assert_eq!(listed(&reader), all);
    }
}
