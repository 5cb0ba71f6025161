//! The set-associative caches (L1, L2): lines with their arrival times, LRU ranks.

use super::*;

/// A set-associative cache of 128-byte lines. Each line remembers when its data
/// arrives, so a hit on a line still in flight waits for it (the MSHR merge).
///
/// Replacement is LRU. Rather than a last-use time per way, which needs a scan of the
/// whole set to find the victim, each way has a rank in its set's recency order: 0 is
/// the least recently used, `ways - 1` the most. Ways never used keep the lowest
/// ranks in way order, so they fill first and in order, as with last-use times.
///
/// Each set is one block of words: its epoch, its ways' ranks (a byte each, eight to a
/// word, updated eight at a time), its tags, then when each way's data arrives. A
/// lookup touches one contiguous block, not four arrays: a run whose lines spread over
/// thousands of sets pays for every host cache line a lookup touches.
///
/// The L2 model is megabytes of which a run may touch little. Sets are therefore
/// emptied when first touched, not when the cache is made (a set whose epoch word is
/// not the cache's `epoch` holds a previous run's lines), and the words are kept per
/// thread for the next run's caches: fresh pages would cost a page fault each, every
/// run, which is much of a short run's time.
pub struct Cache {
    /// Below 2^32 (`Cache::new`): so is a set's index, and the compiler then knows
    /// that a set's block (`block_of`) cannot end beyond the address space.
    pub(super) sets: u32,
    /// `u64::MAX / sets + 1`: reduces a set hash below 2^32 modulo `sets` with two
    /// multiplications instead of a division (Lemire's fastmod).
    pub(super) sets_magic: u64,
    pub(super) set: SetLayout,
    /// Per set: epoch, ranks, tags (line address + 1; 0 is empty), arrival times.
    pub(super) words: Vec<u64>,
    pub(super) epoch: u32,
}

/// Where a set's parts lie in its block of words: the epoch at 0, the ranks from 1.
#[derive(Clone, Copy, Debug)]
pub(super) struct SetLayout {
    pub(super) ways: usize,
    pub(super) tags_at: usize,
    pub(super) ready_at: usize,
    pub(super) stride: usize,
    /// 0x01 in each byte of the last rank word that holds a way's rank (the bytes
    /// beyond the last way hold 0xFF and are never demoted).
    pub(super) last_rank_bytes: u64,
}

impl SetLayout {
    #[inline(always)]
    pub(super) const fn new(ways: usize) -> SetLayout {
        let rank_words = ways.div_ceil(8);
        let tags_at = 1 + rank_words;
        let last = ways - 8 * (rank_words - 1);
        SetLayout {
            ways,
            tags_at,
            ready_at: tags_at + ways,
            stride: tags_at + 2 * ways,
            last_rank_bytes: BYTE_ONES >> (8 * (8 - last)),
        }
    }

    /// Empties a set of `ways` ways: no tags, ranks in way order (bytes beyond the last
    /// way 0xFF, never the least recently used). Out of line, as it runs once per set
    /// and run; given the way count alone, as a layout passed by reference would be
    /// stored for it at every lookup.
    #[cold]
    #[inline(never)]
    pub(super) fn empty(ways: usize, block: &mut [u64], epoch: u32) {
        let set = SetLayout::new(ways);
        block[0] = u64::from(epoch);
        // Word i holds ways 8i to 8i + 7 in its bytes, low byte first: 8i + b in byte b.
        const WAY_IN_WORD: u64 = 0x0706_0504_0302_0100;
        let ranks = &mut block[1..set.tags_at];
        for (i, word) in ranks.iter_mut().enumerate() {
            *word = WAY_IN_WORD + i as u64 * 8 * BYTE_ONES;
        }
        // The last word's bytes beyond the last way (those `last_rank_bytes` leaves out).
        if let Some(last) = ranks.last_mut() {
            *last |= !(set.last_rank_bytes * 0xFF);
        }
        block[set.tags_at..set.ready_at].fill(0);
    }

    /// The way holding `line`, if any.
    #[inline(always)]
    pub(super) fn find(&self, block: &[u64], line: u64) -> Option<usize> {
        block[self.tags_at..self.ready_at]
            .iter()
            .position(|&t| t == line + 1)
    }

    /// The least recently used way: its rank byte is 0.
    #[inline]
    pub(super) fn lru(&self, block: &[u64]) -> usize {
        for (i, &x) in block[1..self.tags_at].iter().enumerate() {
            // The lowest zero byte (bytes above a zero byte may read as zero too).
            let zero = x.wrapping_sub(BYTE_ONES) & !x & BYTE_HIGHS;
            // In a set of one rank word (at most 8 ways), of its ways' bytes alone: the
            // compiler then knows the way is one of them (no bounds check on it later).
            let zero = if self.tags_at == 2 {
                zero & (self.last_rank_bytes << 7)
            } else {
                zero
            };
            if zero != 0 {
                return 8 * i + zero.trailing_zeros() as usize / 8;
            }
        }
        unreachable!("a set's ranks are a permutation")
    }

    /// Makes a way its set's most recently used: every rank above its old one moves
    /// one down, eight bytes per step (ranks are below 128, so `(rank | 0x80) -
    /// (old + 1)` keeps its high bit exactly when rank > old, with no borrow between
    /// bytes).
    #[inline(always)]
    pub(super) fn touch(&self, block: &mut [u64], way: usize) {
        let ranks = &mut block[1..self.tags_at];
        let (word, shift) = (way / 8, 8 * (way % 8));
        let old = (ranks[word] >> shift) & 0xFF;
        let k = (old + 1) * BYTE_ONES;
        let above = |x: u64| (((x | BYTE_HIGHS) - k) & BYTE_HIGHS) >> 7;
        let (last, full) = ranks.split_last_mut().expect("a set has a rank word");
        for x in full {
            *x -= above(*x);
        }
        *last -= above(*last) & self.last_rank_bytes;
        let top = (self.ways - 1) as u64;
        ranks[word] = (ranks[word] & !(0xFF << shift)) | (top << shift);
    }

    /// Whether `way` is its set's most recently used.
    #[inline(always)]
    pub(super) fn is_most_recent(&self, block: &[u64], way: usize) -> bool {
        // The rank's byte itself (the word's bytes in memory order): one load.
        block[1 + way / 8].to_le_bytes()[way % 8] as usize == self.ways - 1
    }

    /// `touch` of the least recently used way (rank 0: `lru`'s choice): every other
    /// rank moves one down, a subtraction per word. The way's byte is first raised to
    /// `ways`, which the subtraction leaves at the top rank, `ways - 1` (and every byte
    /// subtracted from is then at least 1: no borrow between bytes).
    #[inline(always)]
    pub(super) fn touch_least(&self, block: &mut [u64], way: usize) {
        let ranks = &mut block[1..self.tags_at];
        let (word, shift) = (way / 8, 8 * (way % 8));
        debug_assert_eq!((ranks[word] >> shift) & 0xFF, 0, "way {way} is not the LRU");
        ranks[word] |= (self.ways as u64) << shift;
        let (last, full) = ranks.split_last_mut().expect("a set has a rank word");
        for x in full {
            *x -= BYTE_ONES;
        }
        *last -= self.last_rank_bytes;
    }

    /// Looks `line` up in its set's block (at `base`): the hit's ready time, or the way
    /// to install it in. `recent`: whether to check first for a hit on the most recently
    /// used way (a line read again, a set of one line), which stays so: no ranks move.
    #[inline(always)]
    pub(super) fn probe(
        &self,
        block: &mut [u64],
        base: usize,
        line: u64,
        recent: bool,
    ) -> Result<u64, Victim> {
        match self.find(block, line) {
            Some(w) => {
                if !(recent && self.is_most_recent(block, w)) {
                    self.touch(block, w);
                }
                Ok(block[self.ready_at + w])
            }
            None => Err(Victim {
                base,
                way: self.lru(block),
            }),
        }
    }

    /// Puts `line` in `way`, its data arriving at `ready`, as the most recently used.
    #[inline(always)]
    pub(super) fn put(&self, block: &mut [u64], way: usize, line: u64, ready: u64) {
        self.store(block, way, line, ready);
        self.touch(block, way);
    }

    /// `put` in the least recently used way (a `Victim`'s).
    #[inline(always)]
    pub(super) fn replace(&self, block: &mut [u64], way: usize, line: u64, ready: u64) {
        self.store(block, way, line, ready);
        self.touch_least(block, way);
    }

    /// Sets `way`'s tag and ready time.
    #[inline(always)]
    pub(super) fn store(&self, block: &mut [u64], way: usize, line: u64, ready: u64) {
        // One bounds check, on `way`: the ready times are as many as the tags, and
        // the rank words hold that many bytes (so the compiler drops the others).
        let (tags, ready_times) = block[self.tags_at..].split_at_mut(self.ways);
        tags[way] = line + 1;
        ready_times[way] = ready;
    }
}

/// The way a missing line goes to (the least recently used of its set).
#[derive(Clone, Copy, Debug)]
pub struct Victim {
    /// The set's block.
    pub(super) base: usize,
    pub(super) way: usize,
}

/// The words of a cache whose run has ended, for a later cache of the same shape.
pub(super) struct Spare {
    pub(super) ways: usize,
    pub(super) words: Vec<u64>,
    pub(super) epoch: u32,
}

thread_local! {
    static SPARES: std::cell::RefCell<Vec<Spare>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// How many caches' words a thread keeps (a run has two caches).
pub(super) const SPARES_KEPT: usize = 4;

/// The most ways a cache may have (`profile::MAX_WAYS`, which the profile's values are
/// checked against): ranks are bytes below 128 (`SetLayout::touch`).
pub use crate::profile::MAX_WAYS;

/// `Cache::probe_shaped`'s ways for a cache whose ways are read when it runs.
pub(super) const ANY_WAYS: usize = 0;

pub(super) const BYTE_ONES: u64 = 0x0101_0101_0101_0101;
/// The block sizes of the profiles' associativities (`SetLayout::new(ways).stride`).
pub(super) const STRIDE_16: usize = SetLayout::new(16).stride;
pub(super) const STRIDE_4: usize = SetLayout::new(4).stride;
pub(super) const BYTE_HIGHS: u64 = 0x8080_8080_8080_8080;

impl Cache {
    pub fn new(bytes: u64, ways: usize) -> Cache {
        assert!(
            (1..=MAX_WAYS).contains(&ways),
            "a cache of {ways} ways (the profile allows 1 to {MAX_WAYS})"
        );
        let lines = (bytes / LINE).max(ways as u64) as usize;
        let sets = (lines / ways).max(1);
        let set = SetLayout::new(ways);
        let n = sets * set.stride;
        let spare = SPARES.with_borrow_mut(|spares| {
            let i = spares
                .iter()
                .position(|s| s.ways == ways && s.words.len() == n)?;
            Some(spares.swap_remove(i))
        });
        // Zeroed words: untouched pages are never faulted in.
        let (mut words, mut epoch) = match spare {
            Some(s) => (s.words, s.epoch),
            None => (vec![0; n], 0),
        };
        // A new epoch empties every set at once.
        epoch = epoch.wrapping_add(1);
        if epoch == 0 {
            for block in words.chunks_mut(set.stride) {
                block[0] = 0;
            }
            epoch = 1;
        }
        Cache {
            // A profile's caches hold at most 4 GiB (`profile::cache_bytes`): 2^25 lines.
            sets: u32::try_from(sets).expect("a cache of fewer than 2^32 sets"),
            sets_magic: (u64::MAX / sets as u64).wrapping_add(1),
            set,
            words,
            epoch,
        }
    }

    /// The set a line maps to.
    #[inline(always)]
    pub(super) fn set_index(&self, line: u64) -> usize {
        // Hash the line address so strided footprints spread over the sets.
        let h = line ^ (line >> 7) ^ (line >> 17);
        if h <= u32::MAX as u64 {
            let low = self.sets_magic.wrapping_mul(h);
            ((low as u128 * self.sets as u128) >> 64) as usize
        } else {
            (h % self.sets as u64) as usize
        }
    }

    /// Asks the host to bring the block of `line`'s set into its caches ahead of the
    /// line's probe, changing nothing: a bulk copy's lines hash to sets scattered over
    /// the model's megabytes, and each probe otherwise waited on host memory (half of
    /// `Memory::read_l2_lines`' time on fa3-forward, by `perf`'s samples).
    #[inline(always)]
    pub(super) fn prefetch(&self, line: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let base = self.set_index(line) * self.set.stride;
            if let Some(block) = self.words.get(base..base + self.set.stride) {
                let p = block.as_ptr().cast::<i8>();
                let bytes = 8 * block.len();
                // Every host cache line the block spans (it need not start on one).
                // SAFETY: a prefetch reads nothing the program sees and never faults
                // (SSE, which every x86-64 host has); the addresses are the block's own.
                unsafe {
                    for off in (0..bytes).step_by(64) {
                        _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(off));
                    }
                    _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(bytes - 1));
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = line;
    }

    /// The block of a line's set, the set emptied first if this is its first use.
    #[inline(always)]
    pub(super) fn set_of(&mut self, line: u64) -> usize {
        let base = self.set_index(line) * self.set.stride;
        let (set, epoch) = (self.set, self.epoch);
        let block = self.block(base);
        if block[0] != u64::from(epoch) {
            SetLayout::empty(set.ways, block, epoch);
        }
        base
    }

    /// The words of the set whose block starts at `base`.
    #[inline(always)]
    pub(super) fn block(&mut self, base: usize) -> &mut [u64] {
        &mut self.words[base..base + self.set.stride]
    }

    /// `block` for a layout of `S` words known when compiling: one bounds check, and
    /// none on the words within.
    #[inline(always)]
    pub(super) fn block_of<const S: usize>(&mut self, base: usize) -> &mut [u64; S] {
        (&mut self.words[base..base + S])
            .try_into()
            .expect("a slice of S words")
    }

    /// Looks a line up; on a hit returns when its data is (or will be) there.
    pub fn lookup(&mut self, line: u64) -> Option<u64> {
        self.probe(line).ok()
    }

    /// Looks a line up: the hit's ready time, or on a miss the way to `install` it in.
    /// (Inlined always: it runs once or twice per line, and a call costs it a fifth.)
    #[inline(always)]
    pub fn probe(&mut self, line: u64) -> Result<u64, Victim> {
        self.probe_shaped::<ANY_WAYS>(line, true)
    }

    /// `probe` in a cache of `W` ways, or of the ways it has if `W` is `ANY_WAYS` (a
    /// caller that knows the ways, `Memory::read_l1` or `Memory::read_l2_lines`, spares
    /// each lookup the test), checking first for a hit on the most recent way if `recent`.
    #[inline(always)]
    pub(super) fn probe_shaped<const W: usize>(
        &mut self,
        line: u64,
        recent: bool,
    ) -> Result<u64, Victim> {
        let set = self.set_index(line);
        let ways = if W == ANY_WAYS { self.set.ways } else { W };
        // The profiles' associativities with their layout known when compiling: the
        // same code, without a bounds check per word.
        match ways {
            16 => self.probe_at::<STRIDE_16>(set, line, SetLayout::new(16), recent),
            4 => self.probe_at::<STRIDE_4>(set, line, SetLayout::new(4), recent),
            _ => {
                let base = self.set_of(line);
                let set = self.set;
                set.probe(self.block(base), base, line, recent)
            }
        }
    }

    /// `probe` in set `set` of a layout of `S` words: the set's block sliced once for
    /// its epoch check and its lookup.
    #[inline(always)]
    pub(super) fn probe_at<const S: usize>(
        &mut self,
        set: usize,
        line: u64,
        layout: SetLayout,
        recent: bool,
    ) -> Result<u64, Victim> {
        let base = set * S;
        let epoch = self.epoch;
        let block = self.block_of::<S>(base);
        if block[0] != u64::from(epoch) {
            SetLayout::empty(layout.ways, block, epoch);
        }
        layout.probe(block, base, line, recent)
    }

    /// Installs a line in the way `probe` chose, the set unchanged since (so that way
    /// is still its least recently used: `SetLayout::touch_least`).
    #[inline(always)]
    pub fn install(&mut self, v: Victim, line: u64, ready: u64) {
        self.install_shaped::<ANY_WAYS>(v, line, ready);
    }

    /// `install` in a cache of `W` ways (as `probe_shaped`).
    #[inline(always)]
    pub(super) fn install_shaped<const W: usize>(&mut self, v: Victim, line: u64, ready: u64) {
        let ways = if W == ANY_WAYS { self.set.ways } else { W };
        match ways {
            16 => {
                SetLayout::new(16).replace(self.block_of::<STRIDE_16>(v.base), v.way, line, ready)
            }
            4 => SetLayout::new(4).replace(self.block_of::<STRIDE_4>(v.base), v.way, line, ready),
            _ => {
                let set = self.set;
                set.replace(self.block(v.base), v.way, line, ready);
            }
        }
    }

    /// Installs a line whose data arrives at `ready`, evicting the least recently used.
    pub fn fill(&mut self, line: u64, ready: u64) {
        let base = self.set_of(line);
        let set = self.set;
        let block = self.block(base);
        let way = set.find(block, line).unwrap_or_else(|| set.lru(block));
        set.put(block, way, line, ready);
    }

    /// `fill` of every line `first..=last` in order, ready at once, in work bounded by
    /// the cache's size rather than the range's (a buffer of many gigabytes warmed in L2
    /// took seconds): lines are taken from the last back, and one that the range's
    /// later lines fill its set without is skipped, as the fills in order would evict
    /// it. Each set then holds the lines the fills in order would leave, in the same
    /// recency order (in other ways of it, which nothing observes).
    pub fn fill_range(&mut self, first: u64, last: u64) {
        let ways = self.set.ways;
        let capacity = self.sets as u64 * ways as u64;
        if last.saturating_sub(first) < capacity {
            for line in first..=last {
                self.fill(line, 0);
            }
            return;
        }
        // Per set, how many of the range's later lines it takes (at most `ways`).
        let mut taken = vec![0u32; self.sets as usize];
        let mut full = 0u64;
        let mut kept = Vec::new();
        let mut line = last;
        loop {
            let n = &mut taken[self.set_index(line)];
            if (*n as usize) < ways {
                *n += 1;
                kept.push(line);
                full += u64::from(*n as usize == ways);
                if full == u64::from(self.sets) {
                    break;
                }
            }
            if line == first {
                break;
            }
            line -= 1;
        }
        for &line in kept.iter().rev() {
            self.fill(line, 0);
        }
    }

    pub fn invalidate(&mut self, line: u64) {
        let base = self.set_of(line);
        let set = self.set;
        let block = self.block(base);
        if let Some(w) = set.find(block, line) {
            block[set.tags_at + w] = 0;
        }
    }

    /// The tags of set `set` if it is in use this run (tests compare them).
    #[cfg(test)]
    pub(super) fn set_tags(&self, set: usize) -> Option<&[u64]> {
        let base = set * self.set.stride;
        (self.words[base] == u64::from(self.epoch))
            .then(|| &self.words[base + self.set.tags_at..base + self.set.ready_at])
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        let spare = Spare {
            ways: self.set.ways,
            words: std::mem::take(&mut self.words),
            epoch: self.epoch,
        };
        // A thread that is exiting keeps nothing.
        let _ = SPARES.try_with(|spares| {
            let mut spares = spares.borrow_mut();
            if spares.len() == SPARES_KEPT {
                spares.remove(0);
            }
            spares.push(spare);
        });
    }
}
