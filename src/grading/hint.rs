//! Hints for `grade --feedback hint`: for a case, the case-file lines that decide its correct
//! verdict (the lines `explain` cites, from the same replay) and the contract section that
//! governs it — never the verdict itself.

use crate::explain::sentence::sentence;
use crate::explain::CaseTrace;
use crate::lease::{CaseReason, Decision};

use super::class::Hint;

/// The contract section that governs a verdict.
pub fn section(decision: Decision, reason: CaseReason) -> &'static str {
    match (decision, reason) {
        (Decision::OwnershipConflict, CaseReason::HolderConflict) => {
            "section 4.1, the identity check"
        }
        (Decision::OwnershipConflict, _) => "section 4.2, offers of a new or the same generation",
        (Decision::Success | Decision::Failed | Decision::Cancelled, _) => "section 4.2, results",
        (Decision::ReconciliationRequired, _) => "section 4.2, cancellation",
        (Decision::Expired, CaseReason::ResultAfterExpiry | CaseReason::RenewAfterExpiry) => {
            "section 4, step 1: the clock, and section 4.2, after expiry"
        }
        (Decision::Expired, _) => "section 4, step 1: the clock",
        (Decision::AckTimeout, CaseReason::AckAfterDeadline) => "section 4.2, late acks",
        (Decision::AckTimeout, _) => "section 4, step 1: the clock",
        (Decision::Active, CaseReason::StaleGeneration) => "section 4.1, stale generations",
        (Decision::Active, CaseReason::LateProgress) => "section 4.2, progress",
        (Decision::Active, _) => "section 4.2, acks and renewals",
        (Decision::PendingAck, _) => "section 4.2, offers and acks",
    }
}

/// The line numbers a sentence cites (`line 6`, `lines 8, 10 and 12`), ascending, once each.
pub fn cited_lines(text: &str) -> Vec<u64> {
    let mut lines = Vec::new();
    let mut words = text.split_whitespace().peekable();
    while let Some(word) = words.next() {
        let word = word.trim_start_matches('(');
        if word != "line" && word != "lines" {
            continue;
        }
        while let Some(next) = words.peek() {
            if *next == "and" {
                words.next();
                continue;
            }
            let digits = next.trim_end_matches([',', '.', ';', ')', ':']);
            match digits.parse::<u64>() {
                Ok(n) => {
                    lines.push(n);
                    words.next();
                }
                Err(_) => break,
            }
        }
    }
    lines.sort_unstable();
    lines.dedup();
    lines
}

/// The hint for a case, from its replay.
pub fn hint(trace: &CaseTrace) -> Hint {
    let text = sentence(trace);
    // The sentence starts `DECISION (reason): `; only the rest cites lines.
    let body = text
        .split_once(": ")
        .map_or(text.as_str(), |(_, body)| body);
    Hint {
        file: trace.file().to_owned(),
        lines: cited_lines(body),
        section: section(trace.verdict.decision, trace.verdict.reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_from_sentences() {
        assert_eq!(
            cited_lines("generation 8 has been current since line 6 (offer to worker-b); line 8, a renew from generation 7, was rejected; lines 9, 12 and 10."),
            [6, 8, 9, 10, 12]
        );
        assert_eq!(
            cited_lines("the verdict at 2026-01-01T10:00:00Z found"),
            Vec::<u64>::new()
        );
    }
}
