//! The run's random stream and the latencies' jitter drawn from it.

use super::*;

/// The run's random stream: `StdRng` seeded from the run's seed, its words taken 64 at
/// a time (through its own buffer each word costs a call and its index steps). Every
/// draw takes whole 64-bit words, so the words come in the same order, and each draw
/// computes what the `rand` call it stands for does from them: the same values.
pub(super) struct Draws {
    pub(super) rng: StdRng,
    pub(super) words: [u64; DRAW_WORDS],
    /// The next word to take; `DRAW_WORDS` when all are taken.
    pub(super) next: usize,
}

pub(super) const DRAW_WORDS: usize = 64;

impl Draws {
    pub(super) fn new(seed: u64) -> Draws {
        Draws {
            rng: StdRng::seed_from_u64(seed),
            words: [0; DRAW_WORDS],
            next: DRAW_WORDS,
        }
    }

    /// `rng.random::<u64>()` (`StdRng::next_u64`).
    #[inline(always)]
    pub(super) fn next_u64(&mut self) -> u64 {
        // The bounds check is the test for words left (a mask of `next` would cost two
        // more instructions).
        match self.words.get(self.next) {
            Some(&word) => {
                self.next += 1;
                word
            }
            None => self.refill(),
        }
    }

    /// The next `DRAW_WORDS` words, the first taken: `StdRng`'s bytes are its 32-bit
    /// words in order, little-endian, and `next_u64` joins two of them the same way (low
    /// word first).
    #[cold]
    #[inline(never)]
    pub(super) fn refill(&mut self) -> u64 {
        // `fill` takes the bytes in place, little-endian, without a copy.
        self.rng.fill(&mut self.words[..]);
        self.next = 1;
        self.words[0]
    }

    /// `rng.random_range(-(jitter as i64)..=jitter as i64)` for a `jitter` below 2^62:
    /// rand's single draw from an inclusive range (Canon's method: the high word of a
    /// word times the range's size, and rarely a second word for the carry the low
    /// word leaves).
    #[cfg(test)]
    pub(super) fn symmetric(&mut self, jitter: u64) -> i64 {
        self.symmetric_in(Jitter::new(jitter))
    }

    /// `symmetric` of a jitter whose range is worked out once.
    #[inline(always)]
    pub(super) fn symmetric_in(&mut self, jitter: Jitter) -> i64 {
        let wide = self.next_u64() as u128 * jitter.range as u128;
        let (mut result, low_order) = ((wide >> 64) as u64, wide as u64);
        if low_order > jitter.carry_above {
            let new_high = ((self.next_u64() as u128 * jitter.range as u128) >> 64) as u64;
            result += u64::from(low_order.checked_add(new_high).is_none());
        }
        (result as i64).wrapping_sub(jitter.half as i64)
    }
}

/// A latency's variation, a uniform draw in +-`half` (`Draws::symmetric`), with the
/// size of its range worked out once rather than at each draw.
#[derive(Clone, Copy, Debug)]
pub(super) struct Jitter {
    pub(super) half: u64,
    /// `2 * half + 1`.
    pub(super) range: u64,
    /// `range.wrapping_neg()`: a low word above it may carry into the draw.
    pub(super) carry_above: u64,
}

impl Jitter {
    pub(super) fn new(half: u64) -> Jitter {
        let range = 2 * half + 1;
        Jitter {
            half,
            range,
            carry_above: range.wrapping_neg(),
        }
    }
}

/// The later of two cycles: `f64::max` without its NaN cases (cycles are never NaN),
/// which cost the host a few instructions at every request.
#[inline(always)]
pub fn later(a: f64, b: f64) -> f64 {
    if a > b { a } else { b }
}

/// A latency moved by a jitter draw, not below 0: `lat.saturating_add_signed(jitter)`
/// in fewer host instructions, for the profile's latencies and jitters (a few summed,
/// each a whole number below 10^12: `profile::whole`), which keep the sum far inside
/// i64 and never reach the upper bound.
#[inline(always)]
pub(super) fn jittered(lat: u64, jitter: i64) -> u64 {
    (lat as i64 + jitter).max(0) as u64
}

/// SplitMix64: a page's bit from its number and the run's seed (a pure function, so the
/// same page gets the same bit throughout a run).
pub(super) fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A hash's top 53 bits as a uniform number in [0, 1).
#[inline]
pub(super) fn unit(h: u64) -> f64 {
    (h >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}
