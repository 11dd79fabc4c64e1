//! The rows the search tries next from a pair of cases (the contract's and a shortcut's after
//! the same rows): a finite alphabet, relative to where the two cases stand, of every kind of
//! row the rules tell apart.
//!
//! - **Times**: the instant of the last row, one second after it, and one second before, at
//!   and after each live deadline of either case (the ack deadline while `OFFERED`, the
//!   expiry while `ACTIVE`), never before the last row.
//! - **Offers**: a re-sent copy of either case's current offer (every time given), the
//!   current generation reused with another duration, and the next generation (to the
//!   other holder); an offer of an older generation is stale, as any message of one (below).
//!   Every offer of generation `g` is of lease `L-g`, for [`DURATION`] seconds from its own
//!   time if `g` is odd, 8 if even, its ack deadline [`ACK_WITHIN`] seconds after it.
//! - **Worker messages** of either case's current generation, lease and holder: `ack`,
//!   `renew` and `progress` with a sequence equal to, one above or one below either case's
//!   last accepted one, `cancel_ack`, and `result` of each value.
//! - **Identities the rules refuse**: another holder of the current generation and lease
//!   (any worker message is a holder conflict: one, an `ack`, stands for all), and the
//!   generation below the current one (one `progress` stands for every message and offer of
//!   it, each stale alike; and for `old_generation_renews`, which reads an old renew as the
//!   current one's, a `renew` with each sequence above). A newer generation or another lease
//!   id is rejected by every reading and changes nothing, like an `observe`: not tried.
//! - `cancel_request` and `observe`, at each time.
//! - For `worker_clock`, each worker message also without and with a `sent_at` one second
//!   before, at and after the live deadline of the shortcut's case, before the row's
//!   `observed_at` and at most [`DURATION`] seconds before it (a message is sent before it
//!   arrives; a lag of a whole lease is not tried); every other reading ignores `sent_at`.

use compact_str::{format_compact, CompactString};

use crate::lease::{
    Case, GivenTerms, Identity, Message, Offer, OfferTerms, Phase, Reading, Row, Seconds, Shortcut,
    TerminalResult, Timestamp,
};

/// The lease duration of the search's offers of odd generations, in seconds.
pub const DURATION: i64 = 10;
/// The lease duration of its offers of even generations: another, so that a case in which
/// the two readings end in different generations differs in `lease_duration` too, as it
/// would where a coordinator reassigns with other terms.
const EVEN_DURATION: i64 = 8;
/// The ack deadline of the search's offers, in seconds after the offer.
pub const ACK_WITHIN: i64 = 5;
/// The duration of a reused generation (another than [`DURATION`]: a `generation_reused`).
const REUSED_DURATION: i64 = 2 * DURATION;
/// The instant the search's cases start at: 2026-01-01T10:00:00Z, as the contract's probes.
pub const START: i64 = 1_767_261_600;
/// The holders the search's offers name.
const HOLDERS: [&str; 2] = ["worker-a", "worker-b"];

/// An instant `seconds` after the Unix epoch (the search's times are whole seconds near
/// [`START`]).
pub fn at(seconds: i64) -> Timestamp {
    Timestamp::from_unix_seconds(seconds).expect("the search's times are in range")
}

/// The lease duration of the search's offers of `generation`.
fn duration(generation: u64) -> i64 {
    if generation % 2 == 1 {
        DURATION
    } else {
        EVEN_DURATION
    }
}

/// The lease id of generation `generation`.
fn lease_id(generation: u64) -> CompactString {
    format_compact!("L-{generation}")
}

/// The holder that is not `holder` (of the two the search names).
fn other_holder(holder: &str) -> &'static str {
    if holder == HOLDERS[0] {
        HOLDERS[1]
    } else {
        HOLDERS[0]
    }
}

/// An offer at `t` of `generation` to `holder` for `duration` seconds, every time given.
fn offer_row(t: i64, generation: u64, holder: &str, duration: i64) -> Row {
    let given = GivenTerms {
        issued_at: Some(at(t)),
        expires_at: Some(at(t + duration)),
        ack_deadline: Some(at(t + ACK_WITHIN)),
    };
    let duration = Seconds::new(duration as u64).expect("a positive duration");
    let terms = OfferTerms::resolve(at(t), &given, duration).expect("consistent terms");
    row(
        t,
        Message::Offer(Offer {
            identity: Identity {
                lease_id: lease_id(generation),
                generation,
                holder: holder.into(),
            },
            terms,
            given,
        }),
    )
}

fn row(t: i64, message: Message) -> Row {
    Row {
        observed_at: at(t),
        job_id: None,
        sent_at: None,
        message,
    }
}

/// The first row of every case the search builds: generation 1 to `worker-a` at [`START`].
pub fn first_offer(job_id: &str) -> Row {
    let mut row = offer_row(START, 1, HOLDERS[0], duration(1));
    row.job_id = Some(job_id.into());
    row
}

/// The offer `offer` re-sent at `t`, every time given as issued.
fn resent(t: i64, offer: &Offer) -> Row {
    let terms = offer.terms;
    row(
        t,
        Message::Offer(Offer {
            identity: offer.identity.clone(),
            terms,
            given: GivenTerms {
                issued_at: Some(terms.issued_at),
                expires_at: Some(terms.expires_at),
                ack_deadline: Some(terms.ack_deadline),
            },
        }),
    )
}

/// The deadline step 1 would act on next, if any: the ack deadline while `OFFERED`, the
/// expiry while `ACTIVE`.
fn live_deadline<R: Reading>(case: &Case<R>) -> Option<i64> {
    let lease = case.lease();
    match lease.phase {
        Phase::Offered => Some(lease.offer.terms.ack_deadline.unix_seconds()),
        Phase::Active => Some(lease.expires_at.unix_seconds()),
        Phase::AckTimeout | Phase::Expired | Phase::Terminal(_) => None,
    }
}

/// Sequence numbers to try against the last accepted ones `lasts` (0: none): equal, one
/// above, one below, each at least 1.
fn sequences(lasts: [u64; 2]) -> Vec<u64> {
    let mut seqs: Vec<u64> = lasts
        .iter()
        .flat_map(|&last| [last.saturating_sub(1), last, last + 1])
        .filter(|&seq| seq >= 1)
        .collect();
    seqs.sort_unstable();
    seqs.dedup();
    seqs
}

/// Pushes `item` unless `items` holds it already.
fn push_new<T: PartialEq>(items: &mut Vec<T>, item: T) {
    if !items.contains(&item) {
        items.push(item);
    }
}

/// Every row the search tries after the pair `contract`, `under` (the same rows replayed
/// under the contract and under `shortcut`), into `rows` (cleared first), in a fixed order.
pub fn next_rows(contract: &Case, under: &Case<Shortcut>, shortcut: Shortcut, rows: &mut Vec<Row>) {
    rows.clear();
    let now = contract.last_observed_at().unix_seconds();
    let deadlines: Vec<i64> = [live_deadline(contract), live_deadline(under)]
        .into_iter()
        .flatten()
        .collect();
    let mut times = vec![now, now + 1];
    for &deadline in &deadlines {
        times.extend([deadline - 1, deadline, deadline + 1]);
    }
    times.retain(|&t| t >= now);
    times.sort_unstable();
    times.dedup();

    let (mine, theirs) = (contract.lease(), under.lease());
    let mut offers = Vec::new();
    push_new(&mut offers, &mine.offer);
    push_new(&mut offers, &theirs.offer);
    let generations = [mine.identity().generation, theirs.identity().generation];
    let newer = generations.iter().max().expect("two") + 1;
    let older = generations.iter().min().expect("two").checked_sub(1);
    let mut current: Vec<&Identity> = Vec::new();
    push_new(&mut current, mine.identity());
    push_new(&mut current, theirs.identity());
    let renews = sequences([mine, theirs].map(|lease| lease.renewal.map_or(0, |r| r.renew_seq)));
    let progresses = sequences(
        [mine, theirs].map(|lease| lease.progress.as_ref().map_or(0, |p| p.progress_seq)),
    );
    let sent_ats: Vec<i64> = match shortcut {
        Shortcut::WorkerClock => live_deadline(under)
            .map(|d| vec![d - 1, d, d + 1])
            .unwrap_or_default(),
        _ => Vec::new(),
    };

    for &t in &times {
        if t > now {
            rows.push(row(t, Message::Observe));
        }
        rows.push(row(t, Message::CancelRequest));
        for offer in &offers {
            rows.push(resent(t, offer));
            let identity = &offer.identity;
            rows.push(offer_row(
                t,
                identity.generation,
                &identity.holder,
                REUSED_DURATION,
            ));
        }
        let holder = other_holder(&mine.identity().holder);
        rows.push(offer_row(t, newer, holder, duration(newer)));
        let first_worker_row = rows.len();
        for identity in &current {
            push_worker_messages(t, identity, &renews, &progresses, rows);
            let mut other = (*identity).clone();
            other.holder = other_holder(&identity.holder).into();
            rows.push(row(t, Message::Ack(other)));
        }
        if let Some(older) = older {
            let identity = Identity {
                lease_id: lease_id(older),
                generation: older,
                holder: mine.identity().holder.clone(),
            };
            for &renew_seq in &renews {
                let identity = identity.clone();
                rows.push(row(
                    t,
                    Message::Renew {
                        identity,
                        renew_seq,
                    },
                ));
            }
            rows.push(row(
                t,
                Message::Progress {
                    identity,
                    progress_seq: 1,
                    progress_value: Some("1".into()),
                },
            ));
        }
        // The worker's clock, for the one reading that reads it.
        let worker_rows = rows.len() - first_worker_row;
        for index in first_worker_row..first_worker_row + worker_rows {
            for &sent_at in &sent_ats {
                if (t - DURATION..t).contains(&sent_at) {
                    let mut sent = rows[index].clone();
                    sent.sent_at = Some(at(sent_at));
                    rows.push(sent);
                }
            }
        }
    }
}

/// The worker messages of `identity` at `t`: `ack`, a `renew` and a `progress` of each
/// sequence, `cancel_ack`, and a `result` of each value.
fn push_worker_messages(
    t: i64,
    identity: &Identity,
    renews: &[u64],
    progresses: &[u64],
    rows: &mut Vec<Row>,
) {
    rows.push(row(t, Message::Ack(identity.clone())));
    for &renew_seq in renews {
        let identity = identity.clone();
        rows.push(row(
            t,
            Message::Renew {
                identity,
                renew_seq,
            },
        ));
    }
    for &progress_seq in progresses {
        rows.push(row(
            t,
            Message::Progress {
                identity: identity.clone(),
                progress_seq,
                progress_value: Some(format_compact!("{progress_seq}")),
            },
        ));
    }
    rows.push(row(t, Message::CancelAck(identity.clone())));
    for &result in TerminalResult::ALL {
        let identity = identity.clone();
        rows.push(row(t, Message::Result { identity, result }));
    }
}
