//! The open-case index of a streaming run: case-id hash → sequence numbers of its open cases
//! (ids that share a hash each have an entry; the caller compares ids).
//!
//! A run opens one case and closes one per new case, thousands of times a second, at a steady
//! size. A general hash table removes by leaving a tombstone, and a table used this way fills
//! with them and is rebuilt every few thousand cases (hashbrown's index was a sixteenth of all
//! instructions, callgrind). This one probes linearly and, on removal, shifts the entries after
//! the removed one back into place, so it never holds tombstones and never needs rebuilding.

/// A map from case-id hashes to sequence numbers; it grows (rarely: it is made for the open
/// cases a run keeps) when more than half full.
pub(super) struct OpenIndex {
    /// `(hash, seq + 1)`; `seq + 1 == 0` marks a free slot.
    slots: Box<[(u64, u64)]>,
    /// log2 of the number of slots.
    slots_log2: u32,
    len: usize,
}

impl OpenIndex {
    /// An empty index for `capacity` entries without growing.
    pub(super) fn with_capacity(capacity: usize) -> OpenIndex {
        let slots = (capacity.max(1) * 2).next_power_of_two();
        OpenIndex {
            slots: vec![(0, 0); slots].into_boxed_slice(),
            slots_log2: slots.trailing_zeros(),
            len: 0,
        }
    }

    /// The home slot of `hash`: its top bits.
    fn home(&self, hash: u64) -> usize {
        (hash >> (64 - self.slots_log2)) as usize
    }

    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// The slot holding `hash` with a sequence number `is` accepts, or the free slot that
    /// ends its probe run. Ids with one hash each have their own entry: `is` compares ids.
    fn find(&self, hash: u64, is: impl Fn(u64) -> bool) -> (usize, bool) {
        let mut at = self.home(hash);
        loop {
            let (key, value) = self.slots[at];
            if value == 0 {
                return (at, false);
            }
            if key == hash && is(value - 1) {
                return (at, true);
            }
            at = (at + 1) & self.mask();
        }
    }

    /// The sequence number stored for `hash` that `is` accepts (`is` tells apart the open
    /// cases whose ids share the hash).
    pub(super) fn get(&self, hash: u64, is: impl Fn(u64) -> bool) -> Option<u64> {
        match self.find(hash, is) {
            (at, true) => Some(self.slots[at].1 - 1),
            (_, false) => None,
        }
    }

    /// Stores `seq` for `hash`, beside any other entry of the same hash (the caller knows the
    /// case is not in the index).
    pub(super) fn insert(&mut self, hash: u64, seq: u64) {
        if self.len + 1 > self.slots.len() / 2 {
            self.grow();
        }
        let (at, _) = self.find(hash, |_| false);
        self.len += 1;
        self.slots[at] = (hash, seq + 1);
    }

    /// Doubles the slots, placing every entry again.
    fn grow(&mut self) {
        let mut grown = OpenIndex::with_capacity(self.slots.len());
        for &(hash, value) in self.slots.iter().filter(|(_, value)| *value != 0) {
            grown.insert(hash, value - 1);
        }
        *self = grown;
    }

    /// Forgets the entry of `hash` and `seq`, if stored.
    pub(super) fn remove(&mut self, hash: u64, seq: u64) {
        let (mut hole, present) = self.find(hash, |stored| stored == seq);
        if !present {
            return;
        }
        self.len -= 1;
        // Backward shift: every entry after the hole, up to the next free slot, moves into the
        // hole if its home is not strictly between the hole and where it is (cyclically).
        let mut at = hole;
        loop {
            at = (at + 1) & self.mask();
            let (key, value) = self.slots[at];
            if value == 0 {
                break;
            }
            let home = self.home(key);
            let distance_to_home = at.wrapping_sub(home) & self.mask();
            let distance_to_hole = at.wrapping_sub(hole) & self.mask();
            if distance_to_home >= distance_to_hole {
                self.slots[hole] = (key, value);
                hole = at;
            }
        }
        self.slots[hole] = (0, 0);
    }
}

/// A hint to bring the cache line at `at` into the cache.
#[inline(always)]
pub(super) fn prefetch(at: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it never faults and reads or changes nothing that the
    // program can see, whatever the address; SSE, which has it, is part of every x86-64.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(at.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_as_a_multimap_under_steady_churn_and_shared_hashes() {
        let mut rng = crate::random::SplitMix64::new(0x9E37_79B9_7F4A_7C15);
        let mut next = || rng.next_u64();
        for (capacity, key_bits) in [(1, 64), (8, 3), (64, 8), (4096, 64), (300, 10), (50, 1)] {
            // Made small, so that it grows on the way.
            let mut index = OpenIndex::with_capacity(capacity / 4);
            // (hash, seq) in order of insertion; few key bits make many entries share a hash.
            let mut model: Vec<(u64, u64)> = Vec::new();
            for seq in 0..12_000u64 {
                // Few distinct top bits: long probe runs that wrap around the table's end.
                let hash = next() >> (64 - key_bits) << (64 - key_bits) | (next() & 3);
                if model.len() == capacity {
                    // Remove the oldest (as a run closes cases), or a random one.
                    let (victim, victim_seq) = if next() % 3 == 0 {
                        model.swap_remove(next() as usize % model.len())
                    } else {
                        model.remove(0)
                    };
                    index.remove(victim, victim_seq);
                }
                index.insert(hash, seq);
                model.push((hash, seq));
                if seq % 97 == 0 {
                    // Not stored: nothing changes.
                    index.remove(hash, seq + 1);
                }
                let (oldest, oldest_seq) = model[0];
                for (probe, probe_seq) in [(hash, seq), (oldest, oldest_seq), (next(), seq)] {
                    let expected = model.contains(&(probe, probe_seq)).then_some(probe_seq);
                    assert_eq!(index.get(probe, |s| s == probe_seq), expected, "{probe:x}");
                    assert_eq!(index.get(probe, |_| false), None);
                }
                assert_eq!(index.len, model.len());
            }
            for &(hash, seq) in &model {
                assert_eq!(index.get(hash, |s| s == seq), Some(seq));
            }
        }
    }
}
