//! The open-case index of a streaming run: case-id hash → sequence number of its open case.
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

    /// The home slot of `hash`: its top bits (the id hash is a multiply-rotate hash, whose
    /// top bits are the best mixed).
    fn home(&self, hash: u64) -> usize {
        (hash >> (64 - self.slots_log2)) as usize
    }

    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// The slot holding `hash`, or the free slot where it would go.
    fn find(&self, hash: u64) -> (usize, bool) {
        let mut at = self.home(hash);
        loop {
            let (key, value) = self.slots[at];
            if value == 0 {
                return (at, false);
            }
            if key == hash {
                return (at, true);
            }
            at = (at + 1) & self.mask();
        }
    }

    /// The sequence number stored for `hash`.
    pub(super) fn get(&self, hash: u64) -> Option<u64> {
        match self.find(hash) {
            (at, true) => Some(self.slots[at].1 - 1),
            (_, false) => None,
        }
    }

    /// Stores `seq` for `hash`, in place of any earlier one.
    pub(super) fn insert(&mut self, hash: u64, seq: u64) {
        let (at, present) = self.find(hash);
        if present {
            self.slots[at].1 = seq + 1;
            return;
        }
        if self.len + 1 > self.slots.len() / 2 {
            self.grow();
            return self.insert(hash, seq);
        }
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

    /// Forgets `hash`, if stored.
    pub(super) fn remove(&mut self, hash: u64) {
        let (mut hole, present) = self.find(hash);
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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn behaves_as_a_hash_map_under_steady_churn_and_collisions() {
        let mut rng = crate::random::SplitMix64::new(0x9E37_79B9_7F4A_7C15);
        let mut next = || rng.next_u64();
        for (capacity, key_bits) in [(1, 64), (8, 3), (64, 8), (4096, 64), (300, 10)] {
            // Made small, so that it grows on the way.
            let mut index = OpenIndex::with_capacity(capacity / 4);
            let mut model: HashMap<u64, u64> = HashMap::new();
            let mut order: Vec<u64> = Vec::new();
            for seq in 0..60_000u64 {
                // Few distinct top bits: long probe runs that wrap around the table's end.
                let hash = next() >> (64 - key_bits) << (64 - key_bits) | (next() & 3);
                if model.len() == capacity {
                    // Remove the oldest (as a run closes cases), or a random one.
                    let victim = if next() % 3 == 0 {
                        order.swap_remove(next() as usize % order.len())
                    } else {
                        order.remove(0)
                    };
                    index.remove(victim);
                    model.remove(&victim);
                }
                if !model.contains_key(&hash) {
                    order.push(hash);
                }
                index.insert(hash, seq);
                model.insert(hash, seq);
                if seq % 97 == 0 {
                    index.remove(next());
                }
                for probe in [hash, order[0], next()] {
                    assert_eq!(index.get(probe), model.get(&probe).copied(), "{probe:x}");
                }
                assert_eq!(index.len, model.len());
            }
            for (&hash, &seq) in &model {
                assert_eq!(index.get(hash), Some(seq));
            }
        }
    }
}
