//! The rows an open case keeps for a [`CaseWriter`](super::CaseWriter) ([`KeptRows`]): in
//! memory up to a limit of rows per case, past it written to an anonymous temporary file
//! and read back, in order, when the case is written, so that one case of millions of rows
//! holds no more memory than one of a few thousand.

use std::io::{self, BufReader, Read};
use std::ops::ControlFlow;

use compact_str::CompactString;

use crate::lease::{
    GivenTerms, Identity, Message, Offer, OfferTerms, Row, Seconds, TerminalResult, Timestamp,
};
use crate::store::{corrupt, Get, Put, Record, TempFile};

/// A row of a case as it was replayed, with its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptRow {
    /// Its line in the case's file.
    pub line: u64,
    /// The typed row.
    pub row: Row,
}

/// How many rows a case keeps in memory before they go to a temporary file, by default: about
/// 1.5 MiB (a kept row takes about 370 bytes), more than nearly every case has, so that only
/// a case of thousands of rows pays for the file.
pub const DEFAULT_CASE_ROWS_IN_MEMORY: usize = 4096;

/// A case's kept rows, in file order: the first ones in a temporary file once there were more
/// than the limit, the rest in memory.
#[derive(Debug)]
pub struct KeptRows {
    /// The rows after those in `file`.
    memory: Vec<KeptRow>,
    /// The rows written out, encoded ([`Record`]), and their number and bytes.
    file: Option<TempFile>,
    spilled: usize,
    bytes: u64,
    /// How many rows `memory` holds at most.
    limit: usize,
}

impl KeptRows {
    /// No rows; at most `limit` (at least 1) kept in memory.
    pub fn new(limit: usize) -> KeptRows {
        KeptRows {
            memory: Vec::new(),
            file: None,
            spilled: 0,
            bytes: 0,
            limit: limit.max(1),
        }
    }

    /// `rows`, at most `limit` of them in memory.
    pub fn from_rows(rows: Vec<KeptRow>, limit: usize) -> io::Result<KeptRows> {
        let mut kept = KeptRows::new(limit);
        if rows.len() <= kept.limit {
            kept.memory = rows;
            return Ok(kept);
        }
        for row in rows {
            kept.push(row)?;
        }
        Ok(kept)
    }

    /// How many rows there are.
    pub fn len(&self) -> usize {
        self.spilled + self.memory.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many of them are in memory.
    pub fn in_memory(&self) -> usize {
        self.memory.len()
    }

    /// Whether some rows went to the temporary file (they are then read back to be seen).
    pub fn is_spilled(&self) -> bool {
        self.spilled > 0
    }

    /// Every row, when all are in memory.
    pub fn as_slice(&self) -> Option<&[KeptRow]> {
        (!self.is_spilled()).then_some(&self.memory[..])
    }

    /// Keeps `row`, at `at`, if it replayed (it has an `outcome`), for a
    /// [`CaseWriter`](super::CaseWriter); returns, if it was kept, how many rows left memory
    /// for the case's temporary file.
    pub(super) fn keep(
        &mut self,
        at: super::Location<'_>,
        row: &crate::input::RowResult,
        outcome: &Option<crate::lease::Outcome>,
    ) -> io::Result<Option<usize>> {
        if let (Some(_), Ok(parsed)) = (outcome, row) {
            return self
                .push(KeptRow {
                    line: at.line,
                    row: parsed.row.clone(),
                })
                .map(Some);
        }
        Ok(None)
    }

    /// Appends `row`; returns how many rows left memory for the file (all it held, when it
    /// was full).
    pub fn push(&mut self, row: KeptRow) -> io::Result<usize> {
        let mut moved = 0;
        if self.memory.len() >= self.limit {
            let mut bytes = Vec::with_capacity(self.memory.len() * 64);
            for kept in &self.memory {
                kept.encode(&mut bytes);
            }
            let file = match &self.file {
                Some(file) => file,
                None => self.file.insert(TempFile::new()?),
            };
            file.append(&bytes)?;
            self.bytes += bytes.len() as u64;
            moved = self.memory.len();
            self.spilled += moved;
            self.memory.clear();
        }
        self.memory.push(row);
        Ok(moved)
    }

    /// Lets go of every row (the file too), for a new case in the same place.
    pub fn clear(&mut self) {
        self.memory.clear();
        self.file = None;
        self.spilled = 0;
        self.bytes = 0;
    }

    /// Lets go of every row and of the memory that held them (a closed case's place may wait
    /// long for a new case).
    pub fn release(&mut self) {
        self.memory = Vec::new();
        self.clear();
    }

    /// Calls `visit` with each row, in order, until it breaks.
    pub fn visit(
        &self,
        visit: &mut dyn FnMut(&KeptRow) -> io::Result<ControlFlow<()>>,
    ) -> io::Result<()> {
        if let Some(file) = &self.file {
            let mut reader = BufReader::with_capacity(1 << 16, file.reader(0).take(self.bytes));
            for _ in 0..self.spilled {
                let row = KeptRow::decode(&mut reader)?;
                if visit(&row)?.is_break() {
                    return Ok(());
                }
            }
        }
        for row in &self.memory {
            if visit(row)?.is_break() {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Every row, in memory (for a writer that needs them all at once).
    pub fn to_vec(&self) -> io::Result<Vec<KeptRow>> {
        if let Some(rows) = self.as_slice() {
            return Ok(rows.to_vec());
        }
        let mut rows = Vec::with_capacity(self.len());
        self.visit(&mut |row| {
            rows.push(row.clone());
            Ok(ControlFlow::Continue(()))
        })?;
        Ok(rows)
    }
}

fn put_time(out: &mut impl Put, at: Timestamp) {
    let (seconds, nanos) = at.to_parts();
    // The seconds' two's complement: read back as they were.
    out.put_u64(seconds as u64);
    out.put_u32(nanos);
}

fn put_optional_time(out: &mut impl Put, at: Option<Timestamp>) {
    out.put_flag(at.is_some());
    if let Some(at) = at {
        put_time(out, at);
    }
}

fn put_identity(out: &mut impl Put, identity: &Identity) {
    out.put_str(&identity.lease_id);
    out.put_u64(identity.generation);
    out.put_str(&identity.holder);
}

/// A row kept in the temporary file: its line, its fields, then its message (a tag and the
/// message's fields).
impl Record for KeptRow {
    fn encode(&self, out: &mut impl Put) {
        let row = &self.row;
        out.put_u64(self.line);
        put_time(out, row.observed_at);
        out.put_optional_str(row.job_id.as_deref());
        put_optional_time(out, row.sent_at);
        match &row.message {
            Message::Offer(offer) => {
                out.put_u8(0);
                put_identity(out, &offer.identity);
                put_time(out, offer.terms.issued_at);
                out.put_u64(offer.terms.lease_duration.get());
                put_time(out, offer.terms.expires_at);
                put_time(out, offer.terms.ack_deadline);
                put_optional_time(out, offer.given.issued_at);
                put_optional_time(out, offer.given.expires_at);
                put_optional_time(out, offer.given.ack_deadline);
            }
            Message::Ack(identity) => {
                out.put_u8(1);
                put_identity(out, identity);
            }
            Message::Renew {
                identity,
                renew_seq,
            } => {
                out.put_u8(2);
                put_identity(out, identity);
                out.put_u64(*renew_seq);
            }
            Message::Progress {
                identity,
                progress_seq,
                progress_value,
            } => {
                out.put_u8(3);
                put_identity(out, identity);
                out.put_u64(*progress_seq);
                out.put_optional_str(progress_value.as_deref());
            }
            Message::CancelRequest => out.put_u8(4),
            Message::CancelAck(identity) => {
                out.put_u8(5);
                put_identity(out, identity);
            }
            Message::Result { identity, result } => {
                out.put_u8(6);
                put_identity(out, identity);
                out.put_u8(match result {
                    TerminalResult::Success => 0,
                    TerminalResult::Failed => 1,
                    TerminalResult::Cancelled => 2,
                });
            }
            Message::Observe => out.put_u8(7),
        }
    }

    fn decode(input: &mut impl Read) -> io::Result<KeptRow> {
        let line = input.get_u64()?;
        let observed_at = get_time(input)?;
        let job_id = get_optional_str(input)?;
        let sent_at = get_optional_time(input)?;
        let message = match input.get_u8()? {
            0 => Message::Offer(Offer {
                identity: get_identity(input)?,
                terms: OfferTerms {
                    issued_at: get_time(input)?,
                    lease_duration: Seconds::new(input.get_u64()?)
                        .map_err(|_| corrupt("a lease duration"))?,
                    expires_at: get_time(input)?,
                    ack_deadline: get_time(input)?,
                },
                given: GivenTerms {
                    issued_at: get_optional_time(input)?,
                    expires_at: get_optional_time(input)?,
                    ack_deadline: get_optional_time(input)?,
                },
            }),
            1 => Message::Ack(get_identity(input)?),
            2 => Message::Renew {
                identity: get_identity(input)?,
                renew_seq: input.get_u64()?,
            },
            3 => Message::Progress {
                identity: get_identity(input)?,
                progress_seq: input.get_u64()?,
                progress_value: get_optional_str(input)?,
            },
            4 => Message::CancelRequest,
            5 => Message::CancelAck(get_identity(input)?),
            6 => Message::Result {
                identity: get_identity(input)?,
                result: match input.get_u8()? {
                    0 => TerminalResult::Success,
                    1 => TerminalResult::Failed,
                    2 => TerminalResult::Cancelled,
                    _ => return Err(corrupt("an unknown result")),
                },
            },
            7 => Message::Observe,
            _ => return Err(corrupt("an unknown message")),
        };
        Ok(KeptRow {
            line,
            row: Row {
                observed_at,
                job_id,
                sent_at,
                message,
            },
        })
    }
}

fn get_optional_str(input: &mut impl Read) -> io::Result<Option<CompactString>> {
    Ok(input.get_optional_string()?.map(CompactString::from))
}

fn get_time(input: &mut impl Read) -> io::Result<Timestamp> {
    let seconds = input.get_u64()? as i64;
    let nanos = input.get_u32()?;
    Timestamp::from_parts(seconds, nanos).ok_or_else(|| corrupt("a time"))
}

fn get_optional_time(input: &mut impl Read) -> io::Result<Option<Timestamp>> {
    match input.get_flag()? {
        true => get_time(input).map(Some),
        false => Ok(None),
    }
}

fn get_identity(input: &mut impl Read) -> io::Result<Identity> {
    Ok(Identity {
        lease_id: input.get_string()?.into(),
        generation: input.get_u64()?,
        holder: input.get_string()?.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> Timestamp {
        Timestamp::from_unix_seconds(1_700_000_000 + seconds).unwrap()
    }

    fn identity(generation: u64) -> Identity {
        Identity {
            lease_id: "lease é".into(),
            generation,
            holder: "a holder whose name is longer than a compact string keeps inline".into(),
        }
    }

    /// A row of every message, with and without the optional fields.
    fn every_message() -> Vec<KeptRow> {
        let terms = OfferTerms {
            issued_at: at(1),
            lease_duration: Seconds::new(30).unwrap(),
            expires_at: at(31),
            ack_deadline: at(11),
        };
        let messages = [
            Message::Offer(Offer {
                identity: identity(1),
                terms,
                given: GivenTerms {
                    issued_at: Some(at(1)),
                    expires_at: None,
                    ack_deadline: Some(at(11)),
                },
            }),
            Message::Ack(identity(1)),
            Message::Renew {
                identity: identity(1),
                renew_seq: 3,
            },
            Message::Progress {
                identity: identity(2),
                progress_seq: 4,
                progress_value: Some("50%".into()),
            },
            Message::Progress {
                identity: identity(2),
                progress_seq: 5,
                progress_value: None,
            },
            Message::CancelRequest,
            Message::CancelAck(identity(2)),
            Message::Result {
                identity: identity(2),
                result: TerminalResult::Cancelled,
            },
            Message::Observe,
        ];
        messages
            .into_iter()
            .enumerate()
            .map(|(i, message)| KeptRow {
                line: 2 + i as u64,
                row: Row {
                    observed_at: at(i as i64),
                    job_id: (i % 2 == 0).then(|| "job-7".into()),
                    sent_at: (i % 3 == 0).then(|| at(i as i64 - 1)),
                    message,
                },
            })
            .collect()
    }

    fn seen(kept: &KeptRows) -> Vec<KeptRow> {
        let mut rows = Vec::new();
        kept.visit(&mut |row| {
            rows.push(row.clone());
            Ok(ControlFlow::Continue(()))
        })
        .unwrap();
        rows
    }

    #[test]
    fn rows_past_the_limit_read_back_as_they_were_kept() {
        let rows = every_message();
        for limit in [1, 2, 4, rows.len(), 100] {
            let mut kept = KeptRows::new(limit);
            for row in rows.clone() {
                kept.push(row).unwrap();
            }
            assert_eq!(kept.len(), rows.len());
            assert!(kept.in_memory() <= limit);
            assert_eq!(kept.is_spilled(), limit < rows.len(), "limit {limit}");
            assert_eq!(seen(&kept), rows, "limit {limit}");
            assert_eq!(kept.to_vec().unwrap(), rows, "limit {limit}");
            assert_eq!(
                seen(&KeptRows::from_rows(rows.clone(), limit).unwrap()),
                rows,
                "limit {limit}"
            );
        }
    }

    #[test]
    fn a_cleared_place_keeps_nothing_of_the_case_before() {
        let mut kept = KeptRows::from_rows(every_message(), 2).unwrap();
        kept.clear();
        assert!(kept.is_empty() && !kept.is_spilled());
        let row = every_message().remove(3);
        kept.push(row.clone()).unwrap();
        assert_eq!(seen(&kept), vec![row]);
    }
}
