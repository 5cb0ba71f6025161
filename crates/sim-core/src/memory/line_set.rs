//! A set of line numbers (`FirstReads`: which wave-shared lines this SM has read)
//! hashed by one multiply instead of SipHash. Only membership is asked, never an order, so
//! the hasher changes no result; SipHash's rounds and its random keys cost a plain fa3
//! run at its seed's shape a tenth of its host instructions (docs/speed/README.md).

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// Line numbers read so far.
pub(super) type LineSet = HashSet<u64, BuildHasherDefault<LineHasher>>;

/// A line number times an odd constant (Fibonacci hashing): consecutive lines, what a
/// copy reads, land in distinct buckets (the low bits are a permutation of theirs) and the
/// high bits, which the table keeps as tags, vary with every bit of the line.
#[derive(Default)]
pub(super) struct LineHasher(u64);

impl Hasher for LineHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // (Only `write_u64` is called for a `u64` key; this keeps the trait whole.)
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    #[inline(always)]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Membership as a `HashSet` answers it, for a copy's consecutive lines and repeats.
    #[test]
    fn answers_first_insert_only() {
        let mut s = LineSet::default();
        for line in 1000..1400u64 {
            assert!(s.insert(line));
        }
        for line in (1000..1400u64).rev() {
            assert!(!s.insert(line));
        }
        assert!(s.insert(1400));
        assert_eq!(s.len(), 401);
    }

    /// Consecutive lines hash to distinct low bits (no bucket clumps for a copy's lines).
    #[test]
    fn consecutive_lines_spread() {
        let low = |n: u64| {
            let mut h = LineHasher::default();
            h.write_u64(n);
            h.finish() & 1023
        };
        let mut seen = std::collections::BTreeSet::new();
        for n in 5000..6024u64 {
            seen.insert(low(n));
        }
        assert_eq!(seen.len(), 1024);
    }
}
