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
use crate::store::TempFile;

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
    /// The rows written out, encoded ([`encode`]), and their number and bytes.
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

    /// Appends `row`; returns how many rows left memory for the file (all it held, when it
    /// was full).
    pub fn push(&mut self, row: KeptRow) -> io::Result<usize> {
        let mut moved = 0;
        if self.memory.len() >= self.limit {
            let mut bytes = Vec::with_capacity(self.memory.len() * 64);
            for kept in &self.memory {
                encode(kept, &mut bytes);
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
                let row = decode(&mut reader)?;
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

fn put_u64(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, text: &str) {
    put_u64(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

fn put_time(out: &mut Vec<u8>, at: Timestamp) {
    let (seconds, nanos) = at.to_parts();
    out.extend_from_slice(&seconds.to_le_bytes());
    out.extend_from_slice(&nanos.to_le_bytes());
}

fn put_optional_time(out: &mut Vec<u8>, at: Option<Timestamp>) {
    match at {
        Some(at) => {
            out.push(1);
            put_time(out, at);
        }
        None => out.push(0),
    }
}

fn put_identity(out: &mut Vec<u8>, identity: &Identity) {
    put_str(out, &identity.lease_id);
    put_u64(out, identity.generation);
    put_str(out, &identity.holder);
}

/// Appends `kept` to `out` as [`decode`] reads it: its line, its fields, then its message
/// (a tag and the message's fields).
fn encode(kept: &KeptRow, out: &mut Vec<u8>) {
    let row = &kept.row;
    put_u64(out, kept.line);
    put_time(out, row.observed_at);
    match &row.job_id {
        Some(job_id) => {
            out.push(1);
            put_str(out, job_id);
        }
        None => out.push(0),
    }
    put_optional_time(out, row.sent_at);
    match &row.message {
        Message::Offer(offer) => {
            out.push(0);
            put_identity(out, &offer.identity);
            put_time(out, offer.terms.issued_at);
            put_u64(out, offer.terms.lease_duration.get());
            put_time(out, offer.terms.expires_at);
            put_time(out, offer.terms.ack_deadline);
            put_optional_time(out, offer.given.issued_at);
            put_optional_time(out, offer.given.expires_at);
            put_optional_time(out, offer.given.ack_deadline);
        }
        Message::Ack(identity) => {
            out.push(1);
            put_identity(out, identity);
        }
        Message::Renew {
            identity,
            renew_seq,
        } => {
            out.push(2);
            put_identity(out, identity);
            put_u64(out, *renew_seq);
        }
        Message::Progress {
            identity,
            progress_seq,
            progress_value,
        } => {
            out.push(3);
            put_identity(out, identity);
            put_u64(out, *progress_seq);
            match progress_value {
                Some(value) => {
                    out.push(1);
                    put_str(out, value);
                }
                None => out.push(0),
            }
        }
        Message::CancelRequest => out.push(4),
        Message::CancelAck(identity) => {
            out.push(5);
            put_identity(out, identity);
        }
        Message::Result { identity, result } => {
            out.push(6);
            put_identity(out, identity);
            out.push(match result {
                TerminalResult::Success => 0,
                TerminalResult::Failed => 1,
                TerminalResult::Cancelled => 2,
            });
        }
        Message::Observe => out.push(7),
    }
}

/// What a temporary file that does not hold what was written to it gives.
fn garbled() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "a temporary file of kept rows does not read back as it was written",
    )
}

fn get<const N: usize>(reader: &mut impl Read) -> io::Result<[u8; N]> {
    let mut bytes = [0; N];
    reader.read_exact(&mut bytes)?;
    Ok(bytes)
}

fn get_u64(reader: &mut impl Read) -> io::Result<u64> {
    get::<8>(reader).map(u64::from_le_bytes)
}

fn get_flag(reader: &mut impl Read) -> io::Result<bool> {
    match get::<1>(reader)?[0] {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(garbled()),
    }
}

fn get_str(reader: &mut impl Read) -> io::Result<CompactString> {
    let len = usize::try_from(get_u64(reader)?).map_err(|_| garbled())?;
    let mut bytes = vec![0; len];
    reader.read_exact(&mut bytes)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| garbled())?;
    Ok(CompactString::from(text))
}

fn get_time(reader: &mut impl Read) -> io::Result<Timestamp> {
    let seconds = i64::from_le_bytes(get::<8>(reader)?);
    let nanos = u32::from_le_bytes(get::<4>(reader)?);
    Timestamp::from_parts(seconds, nanos).ok_or_else(garbled)
}

fn get_optional_time(reader: &mut impl Read) -> io::Result<Option<Timestamp>> {
    match get_flag(reader)? {
        true => get_time(reader).map(Some),
        false => Ok(None),
    }
}

fn get_identity(reader: &mut impl Read) -> io::Result<Identity> {
    Ok(Identity {
        lease_id: get_str(reader)?,
        generation: get_u64(reader)?,
        holder: get_str(reader)?,
    })
}

/// Reads back a row [`encode`] wrote.
fn decode(reader: &mut impl Read) -> io::Result<KeptRow> {
    let line = get_u64(reader)?;
    let observed_at = get_time(reader)?;
    let job_id = match get_flag(reader)? {
        true => Some(get_str(reader)?),
        false => None,
    };
    let sent_at = get_optional_time(reader)?;
    let message = match get::<1>(reader)?[0] {
        0 => Message::Offer(Offer {
            identity: get_identity(reader)?,
            terms: OfferTerms {
                issued_at: get_time(reader)?,
                lease_duration: Seconds::new(get_u64(reader)?).map_err(|_| garbled())?,
                expires_at: get_time(reader)?,
                ack_deadline: get_time(reader)?,
            },
            given: GivenTerms {
                issued_at: get_optional_time(reader)?,
                expires_at: get_optional_time(reader)?,
                ack_deadline: get_optional_time(reader)?,
            },
        }),
        1 => Message::Ack(get_identity(reader)?),
        2 => Message::Renew {
            identity: get_identity(reader)?,
            renew_seq: get_u64(reader)?,
        },
        3 => Message::Progress {
            identity: get_identity(reader)?,
            progress_seq: get_u64(reader)?,
            progress_value: match get_flag(reader)? {
                true => Some(get_str(reader)?),
                false => None,
            },
        },
        4 => Message::CancelRequest,
        5 => Message::CancelAck(get_identity(reader)?),
        6 => Message::Result {
            identity: get_identity(reader)?,
            result: match get::<1>(reader)?[0] {
                0 => TerminalResult::Success,
                1 => TerminalResult::Failed,
                2 => TerminalResult::Cancelled,
                _ => return Err(garbled()),
            },
        },
        7 => Message::Observe,
        _ => return Err(garbled()),
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
