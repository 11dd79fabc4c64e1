//! Seeded random case files: realistic lease histories whose cases together reach every
//! decision and reason of the contract, for practice labs and benchmarks.
//!
//! The generator owns its PRNG (SplitMix64), so the same options give the same bytes on every
//! run and machine. Each case follows a *scenario* (a story that ends in one decision and
//! reason, such as `ack-late` or `holder-conflict`), padded with ordinary work (progress and
//! renewals inside the lease) and harmless noise (duplicates, messages from unknown leases or
//! generations); the engine, not the generator, decides what each case's matrix row is.

use std::io::{self, Write};

use crate::lease::Timestamp;
use crate::random::SplitMix64;

mod messy;

pub use messy::{write_messy_cases, CaseModel};

/// How a generated file is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Style {
    /// One spelling of everything, UTC times, long case ids: the fast path's favourite shape.
    #[default]
    Plain,
    /// The spellings and shapes other tools and people write: scrambled and aliased headers,
    /// quoted cells, offset times, every duration form, blank lines, CRLF, cases cut short.
    Messy,
}

crate::choice::choices!(Style {
    Plain => "plain",
        "One spelling of everything, UTC times, long case ids: the fast path's favourite shape";
    Messy => "messy",
        "The spellings and shapes other tools and people write: scrambled and aliased headers, quoted cells, offset times, every duration form, blank lines, CRLF, cases cut short";
});

macro_rules! scenarios {
    ($( $(#[$meta:meta])* $variant:ident => $name:literal, $weight:literal, $ends:literal; )+) => {
        /// The story a generated case tells; each ends in one decision and reason.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Scenario {
            $( $(#[$meta])* $variant, )+
        }

        impl Scenario {
            /// Every scenario, in the order of the default mix.
            pub const ALL: &'static [Scenario] = &[$(Scenario::$variant),+];

            /// The scenario's name in `--mix`.
            pub fn name(self) -> &'static str {
                match self { $( Scenario::$variant => $name, )+ }
            }

            /// The scenario's weight in the default mix.
            pub fn default_weight(self) -> u64 {
                match self { $( Scenario::$variant => $weight, )+ }
            }

            /// The decision and reason the story is written to end in (noise aside).
            pub fn ends_in(self) -> &'static str {
                match self { $( Scenario::$variant => $ends, )+ }
            }
        }
    };
}

scenarios! {
    /// Acked, worked, `result SUCCESS` → `SUCCESS result_accepted`.
    Success => "success", 20, "SUCCESS result_accepted";
    /// Acked, worked, `result FAILED` → `FAILED result_accepted`.
    Failed => "failed", 6, "FAILED result_accepted";
    /// Cancel requested, then `result CANCELLED` → `CANCELLED result_accepted`.
    Cancelled => "cancelled", 4, "CANCELLED result_accepted";
    /// Cancel requested and acknowledged, no result → `RECONCILIATION_REQUIRED
    /// cancel_acknowledged_no_result`.
    CancelAcked => "cancel-acked", 4, "RECONCILIATION_REQUIRED cancel_acknowledged_no_result";
    /// Cancel requested, progress keeps coming → `RECONCILIATION_REQUIRED cancel_unacknowledged`.
    CancelUnacked => "cancel-unacked", 4, "RECONCILIATION_REQUIRED cancel_unacknowledged";
    /// The worker goes silent → `EXPIRED expired_without_result`.
    Expired => "expired", 6, "EXPIRED expired_without_result";
    /// A result arrives after expiry → `EXPIRED result_after_expiry`.
    ResultAfterExpiry => "result-after-expiry", 3, "EXPIRED result_after_expiry";
    /// A renew arrives after expiry → `EXPIRED renew_after_expiry`.
    RenewAfterExpiry => "renew-after-expiry", 3, "EXPIRED renew_after_expiry";
    /// No ack before the deadline → `ACK_TIMEOUT ack_missing`.
    AckMissing => "ack-missing", 4, "ACK_TIMEOUT ack_missing";
    /// The ack arrives after the deadline → `ACK_TIMEOUT ack_after_deadline`.
    AckLate => "ack-late", 3, "ACK_TIMEOUT ack_after_deadline";
    /// Still working within the lease → `ACTIVE within_lease`.
    Active => "active", 15, "ACTIVE within_lease";
    /// Reassigned after expiry; the old holder's renew arrives (probe 1) → `ACTIVE
    /// stale_generation`.
    Stale => "stale", 4, "ACTIVE stale_generation";
    /// Progress arrives out of order (probe 3) → `ACTIVE late_progress`.
    LateProgress => "late-progress", 5, "ACTIVE late_progress";
    /// Offered, not yet acked → `PENDING_ACK awaiting_ack`.
    Pending => "pending", 4, "PENDING_ACK awaiting_ack";
    /// Another holder speaks for the lease → `OWNERSHIP_CONFLICT holder_conflict`.
    HolderConflict => "holder-conflict", 3, "OWNERSHIP_CONFLICT holder_conflict";
    /// A new generation is offered while the lease is active → `OWNERSHIP_CONFLICT
    /// overlapping_generations`.
    Overlapping => "overlapping", 3, "OWNERSHIP_CONFLICT overlapping_generations";
    /// The same generation is offered to another holder → `OWNERSHIP_CONFLICT
    /// generation_reused`.
    GenerationReused => "generation-reused", 3, "OWNERSHIP_CONFLICT generation_reused";
}

impl Scenario {
    /// The scenario called `name`.
    pub fn from_name(name: &str) -> Option<Scenario> {
        Scenario::ALL.iter().copied().find(|s| s.name() == name)
    }
}

/// Parses a `--mix`: `name=weight` pairs separated by commas (only these scenarios are
/// generated), or `default`.
pub fn parse_mix(text: &str) -> Result<Vec<(Scenario, u64)>, String> {
    if text.trim() == "default" {
        return Ok(default_mix());
    }
    let mut mix = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, weight) = part.split_once('=').unwrap_or((part, "1"));
        let scenario = Scenario::from_name(name.trim()).ok_or_else(|| {
            let names: Vec<_> = Scenario::ALL.iter().map(|s| s.name()).collect();
            format!("unknown scenario {name:?} (known: {})", names.join(", "))
        })?;
        let weight: u64 = weight
            .trim()
            .parse()
            .map_err(|_| format!("weight of {name} is not a whole number: {weight:?}"))?;
        mix.push((scenario, weight));
    }
    if mix.iter().map(|(_, w)| w).sum::<u64>() == 0 {
        return Err("the mix needs at least one scenario with a weight above 0".into());
    }
    Ok(mix)
}

/// Every scenario with its default weight.
pub fn default_mix() -> Vec<(Scenario, u64)> {
    Scenario::ALL
        .iter()
        .map(|&s| (s, s.default_weight()))
        .collect()
}

/// What to generate.
#[derive(Clone, Debug)]
pub struct Options {
    /// The PRNG seed.
    pub seed: u64,
    /// How many cases.
    pub cases: u64,
    /// The target number of rows per case, `min..=max` (scenarios need a few rows of their
    /// own, so very small targets are exceeded).
    pub rows_per_case: (u64, u64),
    /// How many cases are in progress at once: 1 writes each case's rows contiguously; more
    /// interleaves that many cases at random.
    pub interleave: u64,
    /// The scenarios and their weights.
    pub mix: Vec<(Scenario, u64)>,
}

/// The CSV header of generated files.
pub const HEADER: &str = "case_id,event,observed_at,job_id,lease_id,generation,holder,\
lease_duration,ack_deadline,renew_seq,progress_seq,progress_value,result,sent_at";

/// The lease durations of generated offers, in seconds.
const DURATIONS: [i64; 6] = [30, 45, 60, 90, 120, 300];

/// One generated row (times are seconds since the Unix epoch).
#[derive(Clone, Debug, Default)]
struct GenRow {
    event: &'static str,
    at: i64,
    job: bool,
    identity: Option<(u64, u64, u64)>,
    duration: Option<(u64, u8)>,
    ack_deadline: Option<i64>,
    renew_seq: Option<u64>,
    progress_seq: Option<u64>,
    progress_value: Option<u64>,
    result: Option<&'static str>,
    sent_at: Option<i64>,
}

/// Builds one case's rows while tracking the lease the way a coordinator would, so the story
/// stays on its intended course.
struct Story<'a> {
    rng: &'a mut SplitMix64,
    /// The lease durations an offer picks from, in seconds.
    durations: &'static [i64],
    rows: Vec<GenRow>,
    now: i64,
    /// The current generation's lease number, generation and holder.
    lease: u64,
    generation: u64,
    holder: u64,
    duration: i64,
    ack_deadline: i64,
    /// When the lease's authority ends (moved by renewals).
    expires: i64,
    renew_seq: u64,
    progress_seq: u64,
    progress_value: u64,
}

impl Story<'_> {
    fn push(&mut self, event: &'static str, identity: bool) -> &mut GenRow {
        let identity = identity.then_some((self.lease, self.generation, self.holder));
        self.rows.push(GenRow {
            event,
            at: self.now,
            identity,
            ..GenRow::default()
        });
        self.rows.last_mut().expect("just pushed")
    }

    fn advance(&mut self, seconds: i64) {
        self.now += seconds;
    }

    /// Moves the clock on by a random `low..=high` seconds.
    fn wait(&mut self, low: u64, high: u64) {
        self.now += self.rng.range(low, high) as i64;
    }

    fn offer(&mut self, generation: u64, holder: u64) {
        self.generation = generation;
        self.holder = holder;
        self.duration = self.durations[self.rng.range(0, self.durations.len() as u64 - 1) as usize];
        self.expires = self.now + self.duration;
        let explicit_deadline = self.rng.chance(70);
        self.ack_deadline = if explicit_deadline {
            self.now + self.duration / 3
        } else {
            self.expires
        };
        self.renew_seq = 0;
        self.progress_seq = 0;
        self.progress_value = 0;
        let style = self.rng.range(0, 3) as u8;
        let (duration, deadline) = (self.duration as u64, self.ack_deadline);
        let first = self.rows.is_empty();
        let row = self.push("offer", true);
        row.job = first;
        row.duration = Some((duration, style));
        row.ack_deadline = explicit_deadline.then_some(deadline);
    }

    fn ack(&mut self) {
        self.wait(1, 3);
        self.push("ack", true);
    }

    /// `steps` rows of ordinary work inside the lease: progress, renewals before half the
    /// lease has gone, and now and then harmless noise.
    fn work(&mut self, steps: u64) {
        for _ in 0..steps {
            let step = self.rng.range(1, (self.duration / 4).max(1) as u64) as i64;
            self.advance(step);
            let renewed_at = self.expires - self.duration;
            if self.now - renewed_at >= self.duration / 2 {
                self.renew();
                continue;
            }
            match self.rng.range(0, 99) {
                0..=2 => self.duplicate_last(),
                3 => {
                    let row = self.push("progress", true);
                    row.identity = row.identity.map(|(l, g, h)| (l, g + 1, h));
                    row.progress_seq = Some(1);
                }
                4 => {
                    let row = self.push("ack", true);
                    row.identity = row.identity.map(|(l, g, h)| (l + 1_000_000, g, h));
                }
                5..=7 => {
                    self.push("observe", false);
                }
                _ => self.progress(),
            }
        }
    }

    fn renew(&mut self) {
        self.renew_seq += 1;
        self.expires = self.now + self.duration;
        let seq = self.renew_seq;
        let sent = self.now - self.rng.range(0, 1) as i64;
        let row = self.push("renew", true);
        row.renew_seq = Some(seq);
        row.sent_at = Some(sent);
    }

    fn progress(&mut self) {
        self.progress_seq += 1;
        self.progress_value = (self.progress_value + self.rng.range(1, 15)).min(100);
        let (seq, value) = (self.progress_seq, self.progress_value);
        let row = self.push("progress", true);
        row.progress_seq = Some(seq);
        row.progress_value = Some(value);
    }

    /// Repeats the last worker message (a retransmission): a duplicate, never a change.
    fn duplicate_last(&mut self) {
        let last = self
            .rows
            .last()
            .expect("a story starts with an offer")
            .clone();
        if last.identity.is_some() && last.event != "offer" {
            self.rows.push(GenRow {
                at: self.now,
                sent_at: last.sent_at,
                ..last
            });
        } else {
            self.push("observe", false);
        }
    }

    fn cancel_request(&mut self) {
        self.wait(1, 4);
        self.push("cancel_request", false);
    }

    fn cancel_ack(&mut self) {
        self.wait(1, 3);
        self.push("cancel_ack", true);
    }

    fn result(&mut self, result: &'static str) {
        self.wait(1, 3);
        self.push("result", true).result = Some(result);
    }

    /// Lets the lease run out: the next row is observed at or after expiry.
    fn pass_expiry(&mut self) {
        self.now = self.now.max(self.expires) + self.rng.range(0, 20) as i64;
    }

    fn observe(&mut self) {
        self.push("observe", false);
    }
}

/// The rows of case number `index` following `scenario`, padded towards `target` rows.
fn tell(
    rng: &mut SplitMix64,
    durations: &'static [i64],
    index: u64,
    scenario: Scenario,
    target: u64,
    start: i64,
) -> Vec<GenRow> {
    let holder = rng.range(0, 63);
    let generation = rng.range(1, 9);
    let mut story = Story {
        rng,
        durations,
        rows: Vec::with_capacity(target as usize + 4),
        now: start,
        lease: index,
        generation,
        holder,
        duration: 60,
        ack_deadline: start,
        expires: start,
        renew_seq: 0,
        progress_seq: 0,
        progress_value: 0,
    };
    story.offer(generation, holder);
    // Rows each scenario adds beyond its work, so the padding hits the target.
    let own_rows = match scenario {
        Scenario::Pending | Scenario::AckMissing | Scenario::AckLate => 2,
        Scenario::Stale => 7,
        _ => 4,
    };
    let work = target.saturating_sub(own_rows);
    let other_holder = (holder + 1 + story.rng.range(0, 62)) % 64;
    story.play(scenario, work, index, other_holder);
    story.rows
}

impl Story<'_> {
    /// Tells `scenario` after the offer: `work` rows of work where it has them; the case is
    /// lease `index`, and `other_holder` is a worker other than its holder.
    fn play(&mut self, scenario: Scenario, work: u64, index: u64, other_holder: u64) {
        match scenario {
            Scenario::Success
            | Scenario::Failed
            | Scenario::Cancelled
            | Scenario::CancelAcked
            | Scenario::CancelUnacked
            | Scenario::Expired
            | Scenario::ResultAfterExpiry
            | Scenario::RenewAfterExpiry => self.worked(scenario, work),
            _ => self.other(scenario, work, index, other_holder),
        }
    }

    /// The scenarios of a lease acknowledged and worked on, then ended one way or another.
    fn worked(&mut self, scenario: Scenario, work: u64) {
        match scenario {
            Scenario::Success | Scenario::Failed => {
                self.ack();
                self.work(work);
                self.result(if scenario == Scenario::Success {
                    "SUCCESS"
                } else {
                    "FAILED"
                });
            }
            Scenario::Cancelled => {
                self.ack();
                self.work(work);
                self.cancel_request();
                if self.rng.chance(50) {
                    self.cancel_ack();
                }
                self.result("CANCELLED");
            }
            Scenario::CancelAcked => {
                self.ack();
                self.work(work);
                self.cancel_request();
                self.cancel_ack();
                if self.rng.chance(50) {
                    self.pass_expiry();
                    self.observe();
                }
            }
            Scenario::CancelUnacked => {
                self.ack();
                self.work(work);
                self.cancel_request();
                self.advance(2);
                self.progress();
            }
            Scenario::Expired => {
                self.ack();
                self.work(work);
                self.pass_expiry();
                self.observe();
            }
            Scenario::ResultAfterExpiry => {
                self.ack();
                self.work(work);
                self.pass_expiry();
                self.result("SUCCESS");
            }
            Scenario::RenewAfterExpiry => {
                self.ack();
                self.work(work);
                self.pass_expiry();
                self.renew();
            }
            _ => unreachable!("{scenario:?} is not a worked lease's scenario"),
        }
    }

    /// The scenarios of an offer left pending or acknowledged late, an active lease, and a
    /// holder, generation or lease in conflict.
    fn other(&mut self, scenario: Scenario, work: u64, index: u64, other_holder: u64) {
        let generation = self.generation;
        match scenario {
            Scenario::AckMissing => {
                self.now = self.ack_deadline + self.rng.range(0, 10) as i64;
                self.observe();
            }
            Scenario::AckLate => {
                self.now = self.ack_deadline + self.rng.range(0, 5) as i64;
                self.push("ack", true);
            }
            Scenario::Active => {
                self.ack();
                self.work(work + 2);
            }
            Scenario::Stale => {
                self.ack();
                self.work(work / 2);
                let (old_generation, old_holder, old_renew) =
                    (self.generation, self.holder, self.renew_seq);
                self.pass_expiry();
                self.observe();
                self.advance(2);
                self.offer(old_generation + 1, other_holder);
                self.ack();
                self.work(work - work / 2);
                self.advance(1);
                let row = self.push("renew", true);
                row.identity = Some((index, old_generation, old_holder));
                row.renew_seq = Some(old_renew + 1);
            }
            Scenario::LateProgress => {
                self.ack();
                self.progress();
                self.work(work);
                self.advance(1);
                self.progress();
                self.progress();
                self.advance(1);
                let late = self.progress_seq - 1;
                let row = self.push("progress", true);
                row.progress_seq = Some(late);
                row.progress_value = Some(story_value(late));
            }
            Scenario::Pending => {
                if self.rng.chance(50) {
                    self.advance(1);
                    let repeat = self.rows[0].clone();
                    self.rows.push(GenRow {
                        at: self.now,
                        job: false,
                        ..repeat
                    });
                } else {
                    self.advance(1);
                    self.observe();
                }
            }
            Scenario::HolderConflict => {
                self.ack();
                self.work(work);
                self.advance(1);
                self.push("progress", true).identity = Some((index, generation, other_holder));
                let seq = self.progress_seq + 1;
                self.rows.last_mut().expect("pushed").progress_seq = Some(seq);
                self.advance(1);
                self.renew();
            }
            Scenario::Overlapping => {
                self.ack();
                self.work(work);
                self.advance(1);
                let (generation, lease) = (self.generation, self.lease);
                self.offer(generation + 1, other_holder);
                self.lease = lease;
                self.renew();
            }
            Scenario::GenerationReused => {
                self.ack();
                self.work(work);
                self.advance(1);
                let generation = self.generation;
                self.offer(generation, other_holder);
                self.observe();
            }
            _ => unreachable!("{scenario:?} is a worked lease's scenario"),
        }
    }
}

/// A plausible progress value for a sequence number.
fn story_value(seq: u64) -> u64 {
    (seq * 7).min(100)
}

/// Writes a generated case file (CSV) to `out`; returns the number of rows written.
pub fn write_cases(options: &Options, out: &mut impl Write) -> io::Result<u64> {
    let mut rng = SplitMix64::new(options.seed);
    let total_weight: u64 = options.mix.iter().map(|(_, w)| w).sum();
    assert!(total_weight > 0, "the mix has a positive weight");
    let pick_scenario = |rng: &mut SplitMix64| {
        let mut ticket = rng.range(0, total_weight - 1);
        for &(scenario, weight) in &options.mix {
            if ticket < weight {
                return scenario;
            }
            ticket -= weight;
        }
        unreachable!("the ticket is below the total weight")
    };
    let (low, high) = options.rows_per_case;
    // 2026-01-01T00:00:00Z; each case starts a few seconds after the previous one.
    let mut clock: i64 = 1_767_225_600;
    let mut next_case = 0u64;
    let mut open: Vec<(u64, Vec<GenRow>, usize)> = Vec::new();
    let mut rows_written = 0u64;
    let mut line = Vec::with_capacity(256);
    out.write_all(HEADER.as_bytes())?;
    out.write_all(b"\n")?;
    loop {
        while open.len() < options.interleave.max(1) as usize && next_case < options.cases {
            let scenario = pick_scenario(&mut rng);
            let target = rng.range(low, high.max(low));
            clock += rng.range(0, 5) as i64;
            let rows = tell(&mut rng, &DURATIONS, next_case, scenario, target, clock);
            open.push((next_case, rows, 0));
            next_case += 1;
        }
        if open.is_empty() {
            break;
        }
        let slot = if open.len() == 1 {
            0
        } else {
            rng.range(0, open.len() as u64 - 1) as usize
        };
        let (index, rows, cursor) = &mut open[slot];
        line.clear();
        format_row(&mut line, *index, &rows[*cursor]);
        out.write_all(&line)?;
        rows_written += 1;
        *cursor += 1;
        if *cursor == rows.len() {
            open.swap_remove(slot);
        }
    }
    Ok(rows_written)
}

fn format_row(line: &mut Vec<u8>, index: u64, row: &GenRow) {
    let _ = write!(line, "case-{index:08},{},", row.event);
    push_time(line, row.at);
    line.push(b',');
    if row.job {
        let _ = write!(line, "job-{index}");
    }
    line.push(b',');
    if let Some((lease, generation, holder)) = row.identity {
        let _ = write!(line, "L-{lease},{generation},worker-{holder:02}");
    } else {
        line.extend_from_slice(b",,");
    }
    line.push(b',');
    if let Some((seconds, style)) = row.duration {
        let _ = match style {
            0 => write!(line, "{seconds}"),
            1 => write!(line, "{seconds}s"),
            2 => write!(line, "PT{seconds}S"),
            _ if seconds % 60 == 0 => write!(line, "{}m", seconds / 60),
            _ => write!(line, "{seconds}"),
        };
    }
    line.push(b',');
    if let Some(deadline) = row.ack_deadline {
        push_time(line, deadline);
    }
    line.push(b',');
    if let Some(seq) = row.renew_seq {
        let _ = write!(line, "{seq}");
    }
    line.push(b',');
    if let Some(seq) = row.progress_seq {
        let _ = write!(line, "{seq}");
    }
    line.push(b',');
    if let Some(value) = row.progress_value {
        let _ = write!(line, "{value}%");
    }
    line.push(b',');
    if let Some(result) = row.result {
        line.extend_from_slice(result.as_bytes());
    }
    line.push(b',');
    if let Some(sent) = row.sent_at {
        push_time(line, sent);
    }
    line.push(b'\n');
}

/// Writes `YYYY-MM-DDTHH:MM:SSZ` for Unix seconds, exactly as the matrix writes timestamps.
fn push_time(line: &mut Vec<u8>, unix: i64) {
    Timestamp::from_unix_seconds(unix)
        .expect("generated times lie in 2026")
        .write_to(line);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_in_utc() {
        let mut line = Vec::new();
        push_time(&mut line, 1_767_225_600 + 3661);
        assert_eq!(line, b"2026-01-01T01:01:01Z");
        line.clear();
        push_time(&mut line, 951_782_400); // 2000-02-29
        assert_eq!(line, b"2000-02-29T00:00:00Z");
    }

    #[test]
    fn mix_names_every_scenario_and_rejects_unknown_ones() {
        assert_eq!(parse_mix("default").unwrap().len(), Scenario::ALL.len());
        assert_eq!(
            parse_mix("success=3, stale").unwrap(),
            vec![(Scenario::Success, 3), (Scenario::Stale, 1)]
        );
        assert!(parse_mix("nope=1").is_err());
        assert!(parse_mix("success=0").is_err());
    }
}
