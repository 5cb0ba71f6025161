//! The memory hierarchy as one SM sees it: L1 (sharing its capacity with shared memory),
//! L2 with near and far partitions, HBM. Hits and misses follow from the addresses a
//! program touches (set-associative caches with LRU replacement); bandwidth is a
//! server per level whose rate is the SM's share of the chip's.

use rand::RngExt;
use rand::SeedableRng;
use rand::rngs::StdRng;

use crate::profile::Timing;
use crate::sink::MemLevel;

pub const LINE: u64 = 128;
pub const SECTOR: u64 = 32;
pub const SECTORS_PER_LINE: u64 = LINE / SECTOR;

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
    sets: u32,
    /// `u64::MAX / sets + 1`: reduces a set hash below 2^32 modulo `sets` with two
    /// multiplications instead of a division (Lemire's fastmod).
    sets_magic: u64,
    set: SetLayout,
    /// Per set: epoch, ranks, tags (line address + 1; 0 is empty), arrival times.
    words: Vec<u64>,
    epoch: u32,
}

/// Where a set's parts lie in its block of words: the epoch at 0, the ranks from 1.
#[derive(Clone, Copy, Debug)]
struct SetLayout {
    ways: usize,
    tags_at: usize,
    ready_at: usize,
    stride: usize,
    /// 0x01 in each byte of the last rank word that holds a way's rank (the bytes
    /// beyond the last way hold 0xFF and are never demoted).
    last_rank_bytes: u64,
}

impl SetLayout {
    #[inline(always)]
    const fn new(ways: usize) -> SetLayout {
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
    fn empty(ways: usize, block: &mut [u64], epoch: u32) {
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
    fn find(&self, block: &[u64], line: u64) -> Option<usize> {
        block[self.tags_at..self.ready_at]
            .iter()
            .position(|&t| t == line + 1)
    }

    /// The least recently used way: its rank byte is 0.
    #[inline]
    fn lru(&self, block: &[u64]) -> usize {
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
    fn touch(&self, block: &mut [u64], way: usize) {
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
    fn is_most_recent(&self, block: &[u64], way: usize) -> bool {
        // The rank's byte itself (the word's bytes in memory order): one load.
        block[1 + way / 8].to_le_bytes()[way % 8] as usize == self.ways - 1
    }

    /// `touch` of the least recently used way (rank 0: `lru`'s choice): every other
    /// rank moves one down, a subtraction per word. The way's byte is first raised to
    /// `ways`, which the subtraction leaves at the top rank, `ways - 1` (and every byte
    /// subtracted from is then at least 1: no borrow between bytes).
    #[inline(always)]
    fn touch_least(&self, block: &mut [u64], way: usize) {
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
    fn probe(
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
    fn put(&self, block: &mut [u64], way: usize, line: u64, ready: u64) {
        self.store(block, way, line, ready);
        self.touch(block, way);
    }

    /// `put` in the least recently used way (a `Victim`'s).
    #[inline(always)]
    fn replace(&self, block: &mut [u64], way: usize, line: u64, ready: u64) {
        self.store(block, way, line, ready);
        self.touch_least(block, way);
    }

    /// Sets `way`'s tag and ready time.
    #[inline(always)]
    fn store(&self, block: &mut [u64], way: usize, line: u64, ready: u64) {
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
    base: usize,
    way: usize,
}

/// The words of a cache whose run has ended, for a later cache of the same shape.
struct Spare {
    ways: usize,
    words: Vec<u64>,
    epoch: u32,
}

thread_local! {
    static SPARES: std::cell::RefCell<Vec<Spare>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// How many caches' words a thread keeps (a run has two caches).
const SPARES_KEPT: usize = 4;

/// The most ways a cache may have: ranks are bytes below 128 (`SetLayout::touch`).
pub const MAX_WAYS: usize = 128;

/// `Cache::probe_shaped`'s ways for a cache whose ways are read when it runs.
const ANY_WAYS: usize = 0;

const BYTE_ONES: u64 = 0x0101_0101_0101_0101;
/// The block sizes of the profiles' associativities (`SetLayout::new(ways).stride`).
const STRIDE_16: usize = SetLayout::new(16).stride;
const STRIDE_4: usize = SetLayout::new(4).stride;
const BYTE_HIGHS: u64 = 0x8080_8080_8080_8080;

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
    fn set_index(&self, line: u64) -> usize {
        // Hash the line address so strided footprints spread over the sets.
        let h = line ^ (line >> 7) ^ (line >> 17);
        if h <= u32::MAX as u64 {
            let low = self.sets_magic.wrapping_mul(h);
            ((low as u128 * self.sets as u128) >> 64) as usize
        } else {
            (h % self.sets as u64) as usize
        }
    }

    /// The block of a line's set, the set emptied first if this is its first use.
    #[inline(always)]
    fn set_of(&mut self, line: u64) -> usize {
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
    fn block(&mut self, base: usize) -> &mut [u64] {
        &mut self.words[base..base + self.set.stride]
    }

    /// `block` for a layout of `S` words known when compiling: one bounds check, and
    /// none on the words within.
    #[inline(always)]
    fn block_of<const S: usize>(&mut self, base: usize) -> &mut [u64; S] {
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
    fn probe_shaped<const W: usize>(&mut self, line: u64, recent: bool) -> Result<u64, Victim> {
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
    fn probe_at<const S: usize>(
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
    fn install_shaped<const W: usize>(&mut self, v: Victim, line: u64, ready: u64) {
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
    fn set_tags(&self, set: usize) -> Option<&[u64]> {
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

/// A first-come first-served server moving bytes at a fixed rate.
#[derive(Clone, Debug)]
pub struct Bandwidth {
    /// Cycles per byte.
    clk_per_byte: f64,
    free_at: f64,
    pub bytes: u64,
    /// Cycles the server has been occupied.
    pub busy: f64,
}

impl Bandwidth {
    pub fn new(bytes_per_clk: f64) -> Bandwidth {
        Bandwidth {
            clk_per_byte: 1.0 / bytes_per_clk,
            free_at: 0.0,
            bytes: 0,
            busy: 0.0,
        }
    }
    /// Transfers `bytes` starting no earlier than `t`; returns when the transfer ends.
    pub fn transfer(&mut self, t: u64, bytes: u64) -> u64 {
        ceil(self.carry(t, bytes))
    }

    /// `transfer`'s end before rounding up to a cycle (see `hold`).
    #[inline(always)]
    fn carry(&mut self, t: u64, bytes: u64) -> f64 {
        self.bytes += bytes;
        // Byte counts and cycles are far below 2^63: the signed conversion is exact,
        // and shorter than the unsigned one.
        self.hold(t, bytes as i64 as f64)
    }

    /// Holds the server for `bytes` (a share, possibly fractional) from no earlier than
    /// `t`; returns when that ends, not rounded up to a cycle: for a caller that waits
    /// for the later of several servers and rounds once (rounding up is monotone, so the
    /// later end rounded is the later of the ends rounded). Counts no bytes.
    #[inline(always)]
    fn hold(&mut self, t: u64, bytes: f64) -> f64 {
        let start = later(self.free_at, t as i64 as f64);
        let cycles = bytes * self.clk_per_byte;
        self.free_at = start + cycles;
        self.busy += cycles;
        self.free_at
    }
}

/// The two servers an L2 hit crosses, side by side (`PORT`, `CHIP`) so that the host
/// computes both at once: each one's arithmetic is a `Bandwidth`'s, to the bit.
#[derive(Clone, Debug)]
pub struct L2Servers {
    /// Cycles per byte.
    clk_per_byte: [f64; 2],
    free_at: [f64; 2],
    /// Cycles each server has been occupied.
    busy: [f64; 2],
    /// Bytes the port has carried.
    pub bytes: u64,
}

/// This SM's port to L2, in `L2Servers`.
const PORT: usize = 0;
/// This SM's share of the chip's L2 bandwidth, in `L2Servers`.
const CHIP: usize = 1;

impl L2Servers {
    fn new(port_bytes_per_clk: f64, chip_bytes_per_clk: f64) -> L2Servers {
        L2Servers {
            clk_per_byte: [1.0 / port_bytes_per_clk, 1.0 / chip_bytes_per_clk],
            free_at: [0.0; 2],
            busy: [0.0; 2],
            bytes: 0,
        }
    }

    /// What each server takes for its share of bytes (`Bandwidth::hold`'s cycles).
    #[inline(always)]
    fn cycles(&self, bytes: [f64; 2]) -> [f64; 2] {
        [
            bytes[PORT] * self.clk_per_byte[PORT],
            bytes[CHIP] * self.clk_per_byte[CHIP],
        ]
    }

    /// `Bandwidth::hold`'s step for server `i` (`PORT` or `CHIP`): held for `cycles`
    /// from no earlier than `t`; returns when that ends.
    #[inline(always)]
    fn hold_one(&mut self, i: usize, t: f64, cycles: f64) -> f64 {
        self.free_at[i] = later(self.free_at[i], t) + cycles;
        self.busy[i] += cycles;
        self.free_at[i]
    }

    /// `Bandwidth::hold` of both servers for `cycles` from no earlier than `t`.
    #[inline(always)]
    fn hold(&mut self, t: f64, cycles: [f64; 2]) -> [f64; 2] {
        [
            self.hold_one(PORT, t, cycles[PORT]),
            self.hold_one(CHIP, t, cycles[CHIP]),
        ]
    }

    /// `Bandwidth::hold` of the chip's server alone.
    #[inline(always)]
    fn hold_chip(&mut self, t: u64, bytes: f64) -> f64 {
        self.hold_one(CHIP, t as i64 as f64, bytes * self.clk_per_byte[CHIP])
    }
}

pub struct Memory {
    pub l1: Cache,
    pub l2: Cache,
    /// This SM's port to L2 (every byte it reads or writes crosses it) and its share of
    /// the chip's L2 bandwidth. A line that several SMs of the wave read at about the
    /// same time costs the chip's less (up to `l2_shared_read_gain` times): the L2
    /// serves the copies from one lookup.
    pub l2_bw: L2Servers,
    l2_shared_read_gain: f64,
    pub hbm_bw: Bandwidth,
    rng: Draws,
    lat_l1: u64,
    /// What a hit's further sectors add on L1's return path: `l1_sector_extra[s]` for a
    /// line with `s` sectors requested (`l1_sector_cycles` per sector after the first).
    l1_sector_extra: [u64; 5],
    lat_l2_near: u64,
    lat_l2_far: u64,
    lat_hbm: u64,
    jitter_l2: Jitter,
    jitter_hbm: Jitter,
    /// HBM by address (`hbm_line`): far lines' extra latency, the address bits
    /// whose parity makes a line far within a page, the page size (log2), the run's
    /// seed for each page's own bit.
    lat_hbm_far_extra: u64,
    hbm_far_address_bits: u64,
    hbm_page_shift: u32,
    hbm_page_seed: u64,
    /// The page `hbm_is_far` hashed last and its bit.
    far_page: u64,
    far_page_bit: u64,
    /// `slow_chunk`'s hashes of the address alone, for the group and the chunk it
    /// hashed last: consecutive lines share them (a group is 64 KiB, a chunk 512 B in
    /// the profiles), and a hash costs a dozen instructions.
    tail_group: u64,
    tail_group_hash: u64,
    /// The window hash of that group for the request whose key is `tail_window_key`
    /// (0, which no key is, when none): a pure function of the two.
    tail_window_key: u64,
    tail_window: u64,
    tail_chunk: u64,
    tail_chunk_sub_hash: u64,
    /// What a TMA copy's line from HBM takes over an LDG's.
    lat_hbm_tma_extra: u64,
    /// A request's slow chunks (`hbm_line`): chunks (log2 bytes) hashed to `hbm_tail_subs`
    /// sub-domains of their group (log2 bytes); a group is in a slow window for the
    /// request with `hbm_tail_window_probability`, and then each sub-domain the request
    /// touches there is slow with `hbm_tail_probability`, adding `hbm_tail_min..=hbm_tail_max`.
    hbm_tail_chunk_shift: u32,
    hbm_tail_group_shift: u32,
    hbm_tail_subs: u64,
    hbm_tail_window_probability: f64,
    hbm_tail_probability: f64,
    hbm_tail_min: u64,
    hbm_tail_max: u64,
    /// This SM's lines from HBM may run ahead of the sustained rate (`hbm_bw`) by up to
    /// `hbm_burst_cycles`, at the burst rate (`hbm_burst`).
    hbm_burst: Bandwidth,
    hbm_burst_cycles: f64,
    /// The current request's chunk and its slow-access delay, and the request's own
    /// random key for its slow windows (drawn at its first line from HBM; 0: not yet).
    req_chunk: u64,
    req_chunk_tail: u64,
    req_tail_key: u64,
    /// Requests served per level (sectors).
    pub sectors: [u64; 5],
    req_l2: i64,
    /// HBM bytes this SM moves per missing line: its share among the wave's readers.
    req_hbm_line_bytes: u64,
    /// What one byte of the current request costs the chip's L2: 1 / min(sharers, gain).
    req_l2_chip_cost: f64,
    req_multicast: u32,
    /// Whether L1 has 4 ways and L2 16, the profiles' shape (`read_l1`).
    ways_4_16: bool,
}

impl Memory {
    /// `l1_bytes`: what shared memory leaves of the unified L1; `busy_sms`: SMs the
    /// launch keeps busy, who share the chip's L2 and HBM bandwidth.
    pub fn new(t: &Timing, l1_bytes: u64, busy_sms: u32, seed: u64) -> Memory {
        let share = |chip: f64| chip / busy_sms.max(1) as f64;
        // This SM's sustained rate from HBM.
        let hbm_rate = share(t.hbm_bytes_per_clk_chip)
            .min(t.hbm_bytes_per_clk_sm_max)
            .min(t.l2_bytes_per_clk_sm_max);
        let l1 = Cache::new(l1_bytes.max(LINE * t.l1_ways as u64), t.l1_ways as usize);
        let l2 = Cache::new(t.l2_bytes as u64, t.l2_ways as usize);
        let ways_4_16 = l1.set.ways == 4 && l2.set.ways == 16;
        Memory {
            l1,
            l2,
            l2_bw: L2Servers::new(t.l2_bytes_per_clk_sm_max, share(t.l2_bytes_per_clk_chip)),
            l2_shared_read_gain: t.l2_shared_read_gain.max(1.0),
            hbm_bw: Bandwidth::new(hbm_rate),
            rng: Draws::new(seed),
            lat_l1: t.lat_l1_hit as u64,
            l1_sector_extra: std::array::from_fn(|s| {
                ceil(s.saturating_sub(1) as f64 * t.l1_sector_cycles)
            }),
            lat_l2_near: t.lat_l2_near as u64,
            lat_l2_far: t.lat_l2_far as u64,
            lat_hbm: t.lat_hbm as u64,
            jitter_l2: Jitter::new(t.jitter_l2 as u64),
            jitter_hbm: Jitter::new(t.jitter_hbm as u64),
            lat_hbm_far_extra: t.lat_hbm_far_extra as u64,
            hbm_far_address_bits: t.hbm_far_address_bits as u64,
            hbm_page_shift: (t.hbm_page_bytes as u64).max(1).ilog2(),
            hbm_page_seed: seed,
            far_page: u64::MAX,
            far_page_bit: 0,
            tail_group: u64::MAX,
            tail_group_hash: 0,
            tail_window_key: 0,
            tail_window: 0,
            tail_chunk: u64::MAX,
            tail_chunk_sub_hash: 0,
            lat_hbm_tma_extra: t.lat_hbm_tma_extra as u64,
            hbm_tail_chunk_shift: (t.hbm_tail_chunk_bytes as u64).max(1).ilog2(),
            hbm_tail_group_shift: (t.hbm_tail_group_bytes as u64).max(1).ilog2(),
            hbm_tail_subs: (t.hbm_tail_subs as u64).max(1),
            hbm_tail_window_probability: t.hbm_tail_window_probability,
            hbm_tail_probability: t.hbm_tail_probability,
            hbm_tail_min: t.hbm_tail_min as u64,
            hbm_tail_max: (t.hbm_tail_max as u64).max(t.hbm_tail_min as u64),
            hbm_burst: Bandwidth::new(t.hbm_burst_bytes_per_clk_sm),
            hbm_burst_cycles: t.hbm_burst_bytes / hbm_rate,
            req_chunk: u64::MAX,
            req_chunk_tail: 0,
            req_tail_key: 0,
            sectors: [0; 5],
            req_l2: 0,
            req_hbm_line_bytes: LINE,
            req_l2_chip_cost: 1.0,
            req_multicast: 1,
            ways_4_16,
        }
    }

    /// Cycles the L2 path was the busier of this SM's port and its share of the chip.
    pub fn l2_busy_cycles(&self) -> f64 {
        self.l2_bw.busy[PORT].max(self.l2_bw.busy[CHIP])
    }

    /// Moves `bytes` between L2 and this SM: through the SM's port and its share of the
    /// chip's L2 bandwidth; returns when both are done.
    fn l2_transfer(&mut self, t: u64, bytes: u64) -> u64 {
        self.l2_bw.bytes += bytes;
        // (Byte counts are far below 2^63: as in `Bandwidth::carry`.)
        let bytes = bytes as i64 as f64;
        let cycles = self.l2_bw.cycles([bytes, bytes * self.req_l2_chip_cost]);
        let [port, chip] = self.l2_bw.hold(t as i64 as f64, cycles);
        ceil(later(port, chip))
    }

    fn draw(&mut self, jitter: Jitter) -> i64 {
        if jitter.half == 0 {
            return 0;
        }
        self.rng.symmetric_in(jitter)
    }

    /// Starts a request (one warp-instruction or one bulk copy): its L2 latency variation
    /// is drawn once, so all its lines see the same L2 delay (each line that misses
    /// draws its own HBM delay: `read_l2`). A request that
    /// `sharers` CTAs of the wave make for the same lines moves 1/sharers of the HBM
    /// traffic (the others' copies hit in L2 behind the same fill).
    #[inline(always)]
    pub fn begin_request(&mut self, sharers: u32) {
        self.req_l2 = self.draw(self.jitter_l2);
        // Most requests are one CTA's own (and a hardware division is slow): the
        // general case gives the same values for one sharer.
        if sharers <= 1 {
            self.req_hbm_line_bytes = LINE;
            self.req_l2_chip_cost = 1.0;
        } else {
            self.req_hbm_line_bytes = LINE.div_ceil(sharers as u64);
            self.req_l2_chip_cost = 1.0 / (sharers as f64).min(self.l2_shared_read_gain);
        }
        self.req_multicast = 1;
        self.req_chunk = u64::MAX;
        self.req_tail_key = 0;
    }

    /// Whether a line is in HBM's far half for this SM: the parity of the line address's
    /// `hbm_far_address_bits`, flipped on the pages whose own bit is set (a hash of the
    /// page number and the run's seed: the measured maps show the pattern flip from
    /// page to page with the physical frame, about half of them).
    fn hbm_is_far(&mut self, line: u64) -> bool {
        let addr = line * LINE;
        let parity = (addr & self.hbm_far_address_bits).count_ones() & 1;
        // A copy's lines are mostly in one page: its bit is hashed once.
        let page = addr >> self.hbm_page_shift;
        if page != self.far_page {
            self.far_page = page;
            self.far_page_bit = splitmix64(self.hbm_page_seed ^ page) & 1;
        }
        (parity as u64 ^ self.far_page_bit) == 1
    }

    /// The slow-access delay of the current request's chunk at `addr` (a pure function of
    /// the address and the request's key, so the request's chunks of one group and
    /// sub-domain share it): its group (`addr >> hbm_tail_group_shift`, hashed) is in a
    /// slow window for this request with `hbm_tail_window_probability`; if so, its
    /// sub-domain (the chunk's number hashed to one of `hbm_tail_subs`) is slow with
    /// `hbm_tail_probability`, for `hbm_tail_min..=hbm_tail_max` more. A contiguous copy
    /// reaches every sub-domain of its group within a few KiB (its slow share levels
    /// off with size); a tensor copy's rows 4 KiB apart reach a new group every 64 KiB of
    /// extent (its slow share does not).
    fn slow_chunk(&mut self, addr: u64) -> u64 {
        if self.hbm_tail_probability == 0.0 || self.hbm_tail_window_probability == 0.0 {
            return 0;
        }
        if self.req_tail_key == 0 {
            self.req_tail_key = self.rng.next_u64() | 1;
        }
        // (An address's group and chunk numbers are far below u64::MAX, the caches'
        // empty mark.)
        let group = addr >> self.hbm_tail_group_shift;
        if group != self.tail_group {
            self.tail_group = group;
            self.tail_group_hash = splitmix64(self.hbm_page_seed ^ !group);
            self.tail_window_key = 0;
        }
        if self.tail_window_key != self.req_tail_key {
            self.tail_window_key = self.req_tail_key;
            self.tail_window = splitmix64(self.req_tail_key ^ self.tail_group_hash);
        }
        let window = self.tail_window;
        if unit(window) >= self.hbm_tail_window_probability {
            return 0;
        }
        let chunk = addr >> self.hbm_tail_chunk_shift;
        if chunk != self.tail_chunk {
            self.tail_chunk = chunk;
            let sub = splitmix64(self.hbm_page_seed ^ chunk) % self.hbm_tail_subs;
            self.tail_chunk_sub_hash = splitmix64(sub);
        }
        let draw = splitmix64(window ^ self.tail_chunk_sub_hash);
        if unit(draw) >= self.hbm_tail_probability {
            return 0;
        }
        self.hbm_tail_min + splitmix64(draw) % (self.hbm_tail_max - self.hbm_tail_min + 1)
    }

    /// A line read from HBM, its request leaving at `t`: when it arrives at the SM.
    /// Its latency: `lat_hbm`, plus `lat_hbm_far_extra` for a far line, plus
    /// `lat_hbm_tma_extra` for a TMA copy's line, plus a uniform draw in
    /// +-`jitter_hbm`, plus its chunk's slow-access delay (`slow_chunk`).
    /// Its turn: this SM's share of HBM (`hbm_bw`, the sustained rate) may run up to
    /// `hbm_burst_bytes` ahead at the burst rate, and its share of the chip's L2.
    fn hbm_line(&mut self, line: u64, t: u64, l2_bytes: u64, tma: bool) -> u64 {
        let chunk = (line * LINE) >> self.hbm_tail_chunk_shift;
        if chunk != self.req_chunk {
            self.req_chunk = chunk;
            self.req_chunk_tail = self.slow_chunk(line * LINE);
        }
        let jitter = self.draw(self.jitter_hbm);
        let mut lat = self.lat_hbm + self.req_chunk_tail;
        if self.hbm_is_far(line) {
            lat += self.lat_hbm_far_extra;
        }
        if tma {
            lat += self.lat_hbm_tma_extra;
        }
        let lat = jittered(lat, jitter);
        let sustained = self.hbm_bw.carry(t, self.req_hbm_line_bytes);
        let credit = (sustained - self.hbm_burst_cycles).max(0.0);
        // The line crosses this SM's port at the burst rate (faster than a hit's
        // `l2_bytes_per_clk_sm_max`: one copy's lines from HBM arrive at up to 126 B/clk),
        // and the chip's L2.
        let burst = self.hbm_burst.carry(t, l2_bytes);
        self.l2_bw.bytes += l2_bytes;
        let chip = self
            .l2_bw
            .hold_chip(t, l2_bytes as f64 * self.req_l2_chip_cost);
        // One rounding of the latest (see `Bandwidth::hold`).
        ceil(later(later(burst, credit), chip)).max(t) + lat
    }

    /// The bytes of `bytes` read from L2 this SM carries: a multicast request carries its
    /// share of the cluster's.
    #[inline(always)]
    fn l2_share(&self, bytes: u64) -> u64 {
        if self.req_multicast == 1 {
            bytes
        } else {
            bytes.div_ceil(self.req_multicast as u64)
        }
    }

    /// Marks the current request as a multicast to `ctas` CTAs of a cluster: this SM
    /// carries 1/ctas of the L2 read traffic that lands in every CTA's shared memory.
    pub fn multicast(&mut self, ctas: u32) {
        self.req_multicast = ctas.max(1);
    }

    /// Which L2 partition holds a line: half the lines are near this SM. The partition
    /// is chosen per pair of adjacent lines (256 B): a warp-load of two adjacent lines
    /// measures no more than one (lat.ldg_lines.l2.lines_2 291 cycles against lines_1
    /// 293), four lines cost the far partition's latency (lines_4 307).
    pub fn is_far(line: u64) -> bool {
        // The parity of the pair number's bits 0, 5 and 11 (the line's 1, 6 and 12): a
        // multiplication adds the three into bit 12 (every other product of the bits
        // lands below it alone, or above), in fewer host instructions than the shifts.
        const BITS: u64 = 1 << 1 | 1 << 6 | 1 << 12;
        const SUM_AT_12: u64 = 1 << 11 | 1 << 6 | 1;
        (line & BITS).wrapping_mul(SUM_AT_12) as u32 & 1 << 12 != 0
    }

    /// Reads whole lines `first..=last` (a bulk copy) from L2, starting at `t`, as
    /// `read_l2` reads each (its misses are a TMA copy's lines: `lat_hbm_tma_extra`); counts the requests each level serves into `requests` and
    /// returns when the last line arrives, or `done` if that is later.
    ///
    /// The same arithmetic as `read_l2` line by line, arranged for a copy's hundreds of
    /// lines: every line crosses the bandwidth servers with the same start and size, so
    /// their times only grow, and of the hits only the last near one and the last far
    /// one can arrive last (or a hit whose fill is still under way): those are the only
    /// hits whose arrival is rounded to a cycle. The servers' sums are added in the same
    /// order as reading line by line would, so the results are the same to the bit.
    pub fn read_l2_lines(
        &mut self,
        first: u64,
        last: u64,
        t: u64,
        done: u64,
        requests: &mut [u64; 5],
    ) -> u64 {
        // The L2's associativity tested once per copy rather than at each line's
        // lookup and install (as `read_l1_lines` does).
        if self.l2.set.ways == 16 {
            self.read_l2_lines_shaped::<16>(first, last, t, done, requests)
        } else {
            self.read_l2_lines_shaped::<ANY_WAYS>(first, last, t, done, requests)
        }
    }

    /// `read_l2_lines` with an L2 of `W` ways (as `Cache::probe_shaped`).
    #[inline(always)]
    fn read_l2_lines_shaped<const W: usize>(
        &mut self,
        first: u64,
        last: u64,
        t: u64,
        mut done: u64,
        requests: &mut [u64; 5],
    ) -> u64 {
        const SECTORS: u32 = SECTORS_PER_LINE as u32;
        let l2_bytes = self.l2_share(LINE);
        let lat_near = jittered(self.lat_l2_near, self.req_l2);
        let lat_far = jittered(self.lat_l2_far, self.req_l2);
        let cycles = self
            .l2_bw
            .cycles([l2_bytes as f64, l2_bytes as f64 * self.req_l2_chip_cost]);
        let tf = t as f64;
        // Where the two servers stood after the last near and the last far hit.
        let (mut near_at, mut far_at) = (None, None);
        let mut hit_ready = 0u64;
        let (mut near, mut far, mut hbm) = (0u64, 0u64, 0u64);
        for line in first..=last {
            let is_far = Memory::is_far(line);
            // Without the check for a hit on the set's most recently used way: a bulk
            // copy's lines seldom hit it, and the check costs its hits more than it saves.
            match self.l2.probe_shaped::<W>(line, false) {
                Ok(ready) => {
                    // Server by server (`hold` of both here costs the misses' path
                    // more registers than it saves).
                    let port = self.l2_bw.hold_one(PORT, tf, cycles[PORT]);
                    let chip = self.l2_bw.hold_one(CHIP, tf, cycles[CHIP]);
                    hit_ready = hit_ready.max(ready);
                    if is_far {
                        far_at = Some((port, chip));
                        far += 1;
                    } else {
                        near_at = Some((port, chip));
                        near += 1;
                    }
                }
                Err(way) => {
                    let arrives = self.hbm_line(line, t, l2_bytes, true);
                    self.l2.install_shaped::<W>(way, line, arrives);
                    done = done.max(arrives);
                    hbm += 1;
                }
            }
        }
        self.l2_bw.bytes += (near + far) * l2_bytes;
        for (at, lat) in [(near_at, lat_near), (far_at, lat_far)] {
            if let Some((port, chip)) = at {
                done = done.max(ceil(later(port, chip)) + lat);
            }
        }
        done = done.max(hit_ready);
        let counted = [
            (MemLevel::L2Near, near),
            (MemLevel::L2Far, far),
            (MemLevel::Hbm, hbm),
        ];
        for (level, n) in counted {
            requests[level_index(level)] += n;
            self.sectors[level_index(level)] += n * SECTORS as u64;
        }
        done
    }

    /// Reads `sectors` sectors of one line from L2 (and HBM on a miss), starting at `t`.
    /// Returns the arrival time at the SM and the level that served it.
    /// (Inlined always: a bulk copy calls it for each of its lines.)
    #[inline(always)]
    pub fn read_l2(&mut self, line: u64, sectors: u32, t: u64) -> (u64, MemLevel) {
        let l2_bytes = self.l2_share(sectors as u64 * SECTOR);
        let (done, level) = match self.l2.probe(line) {
            Ok(ready) => self.l2_hit(line, t, l2_bytes, ready),
            Err(way) => {
                // A miss is served in request order too: its turn comes when this SM's
                // share of HBM has moved the lines before it, and it arrives its HBM
                // latency after its turn (`hbm_line`), so a copy of many lines waits for
                // the slowest of them.
                let done = self.hbm_line(line, t, l2_bytes, false);
                self.l2.install(way, line, done);
                (done, MemLevel::Hbm)
            }
        };
        self.sectors[level_index(level)] += sectors as u64;
        (done, level)
    }

    /// When a line that hits in L2 (its data there from `ready`) arrives at the SM,
    /// requested at `t` for `l2_bytes` of this SM's share, and from which partition.
    #[inline(always)]
    fn l2_hit(&mut self, line: u64, t: u64, l2_bytes: u64, ready: u64) -> (u64, MemLevel) {
        let (lat, level) = if Memory::is_far(line) {
            (self.lat_l2_far, MemLevel::L2Far)
        } else {
            (self.lat_l2_near, MemLevel::L2Near)
        };
        let lat = jittered(lat, self.req_l2);
        // The line's data crosses the SM's L2 port in request order, and arrives the
        // access latency after its turn: the lines of a large copy return one after
        // another at the port's rate, after the latency.
        let moved = self.l2_transfer(t, l2_bytes);
        ((moved + lat).max(ready), level)
    }

    /// When a line that hits in L1 (its data there from `ready`) returns, leaving the
    /// pipeline at `t_hit` with `sectors` sectors: `lat_l1_hit` for the first, and
    /// `l1_sector_cycles` for each further one (a warp's load of a whole line against
    /// one thread's chase). Counts its sectors.
    #[inline(always)]
    fn l1_hit(&mut self, sectors: u32, t_hit: u64, ready: u64) -> (u64, MemLevel) {
        self.sectors[level_index(MemLevel::L1)] += sectors as u64;
        let extra = self.l1_sector_extra[(sectors as usize).min(4)];
        ((t_hit + self.lat_l1 + extra).max(ready), MemLevel::L1)
    }

    /// Marks lines `first..=last` as present in L2 (data an earlier launch left there).
    pub fn warm_l2(&mut self, first: u64, last: u64) {
        self.l2.fill_range(first, last);
    }

    /// `begin_request` then `read_l1` of a request's only line, leaving the pipeline
    /// at `t` on either path: one call, and the request's draw out of the caller's
    /// code (a warp's load of one line, most loads).
    pub fn read_l1_request(
        &mut self,
        sharers: u32,
        line: u64,
        sectors: u32,
        t: u64,
    ) -> (u64, MemLevel) {
        self.begin_request(sharers);
        self.read_l1_lines(line, sectors, t, t)
    }

    /// A load through L1: hit, or fetch from L2 and allocate.
    /// `t_hit`: when the line leaves the L1 pipeline if it hits; `t_miss`: when its
    /// request leaves for L2 if it misses (the lines of one warp-load are staggered
    /// differently on the two paths). A hit returns `lat_l1_hit` after `t_hit` with one
    /// sector, and `l1_sector_cycles` later for each further sector of the line it
    /// returns (a warp's load of a whole line against one thread's chase).
    pub fn read_l1(&mut self, line: u64, sectors: u32, t_hit: u64, t_miss: u64) -> (u64, MemLevel) {
        self.read_l1_lines(line, sectors, t_hit, t_miss)
    }

    /// `read_l1`'s body, for `read_l1_request` too.
    #[inline(always)]
    fn read_l1_lines(
        &mut self,
        line: u64,
        sectors: u32,
        t_hit: u64,
        t_miss: u64,
    ) -> (u64, MemLevel) {
        // The profiles' shape tested once here rather than at each of the three
        // lookups (the L1's probe and install, the L2's probe).
        if self.ways_4_16 {
            self.read_l1_4_16(line, sectors, t_hit, t_miss)
        } else {
            self.read_l1_any(line, sectors, t_hit, t_miss)
        }
    }

    /// `read_l1` of a cache shape other than the profiles', out of the way of theirs.
    #[inline(never)]
    fn read_l1_any(&mut self, line: u64, sectors: u32, t_hit: u64, t_miss: u64) -> (u64, MemLevel) {
        match self.l1.probe(line) {
            Ok(ready) => self.l1_hit(sectors, t_hit, ready),
            Err(way) => {
                // Fetch the line's requested sectors; the line is allocated in L1.
                let (done, level) = self.read_l2(line, sectors, t_miss);
                self.l1.install(way, line, done);
                (done, level)
            }
        }
    }

    /// `read_l1` in the profiles' shape, a 4-way L1 and a 16-way L2: `read_l1_any`'s
    /// steps with each cache's set sliced once for its lookup and its install (a
    /// lookup's `Victim`, installed in after the L2's, slices it again and finds its
    /// least recently used way again: a bounds check and a search).
    #[inline(always)]
    fn read_l1_4_16(
        &mut self,
        line: u64,
        sectors: u32,
        t_hit: u64,
        t_miss: u64,
    ) -> (u64, MemLevel) {
        let (l1, l2) = (SetLayout::new(4), SetLayout::new(16));
        let base1 = self.l1.set_index(line) * STRIDE_4;
        let epoch1 = self.l1.epoch;
        let block1 = self.l1.block_of::<STRIDE_4>(base1);
        if block1[0] != u64::from(epoch1) {
            SetLayout::empty(l1.ways, block1, epoch1);
        }
        if let Some(w) = l1.find(block1, line) {
            if !l1.is_most_recent(block1, w) {
                l1.touch(block1, w);
            }
            let ready = block1[l1.ready_at + w];
            return self.l1_hit(sectors, t_hit, ready);
        }
        // Fetch the line's requested sectors (as `read_l2`); the line is allocated in
        // L1.
        let way1 = l1.lru(block1);
        let l2_bytes = self.l2_share(sectors as u64 * SECTOR);
        let base2 = self.l2.set_index(line) * STRIDE_16;
        let epoch2 = self.l2.epoch;
        let block2 = self.l2.block_of::<STRIDE_16>(base2);
        if block2[0] != u64::from(epoch2) {
            SetLayout::empty(l2.ways, block2, epoch2);
        }
        let (done, level) = match l2.find(block2, line) {
            Some(w) => {
                if !l2.is_most_recent(block2, w) {
                    l2.touch(block2, w);
                }
                let ready = block2[l2.ready_at + w];
                self.l2_hit(line, t_miss, l2_bytes, ready)
            }
            None => {
                let way2 = l2.lru(block2);
                let done = self.hbm_line(line, t_miss, l2_bytes, false);
                l2.replace(self.l2.block_of::<STRIDE_16>(base2), way2, line, done);
                (done, MemLevel::Hbm)
            }
        };
        self.sectors[level_index(level)] += sectors as u64;
        l1.replace(self.l1.block_of::<STRIDE_4>(base1), way1, line, done);
        (done, level)
    }

    /// A store: write-through to L2 (L1 keeps no copy of global data).
    pub fn write(&mut self, line: u64, sectors: u32, t: u64, keep_in_l1: bool) -> u64 {
        let bytes = sectors as u64 * SECTOR;
        let lat = if Memory::is_far(line) {
            self.lat_l2_far
        } else {
            self.lat_l2_near
        };
        self.req_l2_chip_cost = 1.0;
        let moved = self.l2_transfer(t, bytes);
        if keep_in_l1 {
            self.l1.fill(line, t + self.lat_l1);
        } else {
            self.l1.invalidate(line);
            // Global data written is written back to HBM in time: the store completes
            // at L2, but its bytes take their share of HBM bandwidth from later reads.
            self.hbm_bw.transfer(t, bytes);
        }
        if self.l2.lookup(line).is_none() {
            self.l2.fill(line, t + lat);
        }
        (t + lat).max(moved)
    }
}

/// The run's random stream: `StdRng` seeded from the run's seed, its words taken 64 at
/// a time (through its own buffer each word costs a call and its index steps). Every
/// draw takes whole 64-bit words, so the words come in the same order, and each draw
/// computes what the `rand` call it stands for does from them: the same values.
struct Draws {
    rng: StdRng,
    words: [u64; DRAW_WORDS],
    /// The next word to take; `DRAW_WORDS` when all are taken.
    next: usize,
}

const DRAW_WORDS: usize = 64;

impl Draws {
    fn new(seed: u64) -> Draws {
        Draws {
            rng: StdRng::seed_from_u64(seed),
            words: [0; DRAW_WORDS],
            next: DRAW_WORDS,
        }
    }

    /// `rng.random::<u64>()` (`StdRng::next_u64`).
    #[inline(always)]
    fn next_u64(&mut self) -> u64 {
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
    fn refill(&mut self) -> u64 {
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
    fn symmetric(&mut self, jitter: u64) -> i64 {
        self.symmetric_in(Jitter::new(jitter))
    }

    /// `symmetric` of a jitter whose range is worked out once.
    #[inline(always)]
    fn symmetric_in(&mut self, jitter: Jitter) -> i64 {
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
struct Jitter {
    half: u64,
    /// `2 * half + 1`.
    range: u64,
    /// `range.wrapping_neg()`: a low word above it may carry into the draw.
    carry_above: u64,
}

impl Jitter {
    fn new(half: u64) -> Jitter {
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
fn jittered(lat: u64, jitter: i64) -> u64 {
    (lat as i64 + jitter).max(0) as u64
}

/// SplitMix64: a page's bit from its number and the run's seed (a pure function, so the
/// same page gets the same bit throughout a run).
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A hash's top 53 bits as a uniform number in [0, 1).
#[inline]
fn unit(h: u64) -> f64 {
    (h >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// `x.ceil() as u64` for the non-negative times and cycle counts of the model, without
/// a libm call (the default target has no rounding instruction) and, below 2^52 (any
/// cycle count), without a conversion: adding 2^52 leaves the nearest whole number in
/// the low bits of the sum (its unit in the last place is 1), and one compare makes
/// that the ceiling. Above, it goes through u64 conversions; the result is the same.
/// (A negative `x`, which the model never makes, is not tested for outside debug
/// builds: every caller passes a time or a sum of non-negative cycles.)
#[inline]
pub fn ceil(x: f64) -> u64 {
    const TWO_52: f64 = 4_503_599_627_370_496.0;
    debug_assert!(x >= 0.0, "{x} is negative");
    if x < TWO_52 {
        let sum = x + TWO_52;
        let nearest = sum.to_bits() - TWO_52.to_bits();
        return nearest + u64::from(sum - TWO_52 < x);
    }
    let whole = x as u64;
    whole + u64::from(x > whole as f64)
}

pub fn level_index(l: MemLevel) -> usize {
    match l {
        MemLevel::L1 => 0,
        MemLevel::L2Near => 1,
        MemLevel::L2Far => 2,
        MemLevel::Hbm => 3,
        MemLevel::Shared => 4,
    }
}

/// The distinct 128-byte lines of a warp's addresses (32, or one for a warp-uniform
/// address), each with its sector count. Writes into `out` (cleared first) and returns
/// how many lines there are.
pub fn coalesce(addrs: &[u64], width: u32, out: &mut Vec<(u64, u32)>) -> usize {
    out.clear();
    let w = width.max(1) as u64;
    // A warp-uniform address (a broadcast) is the common case of scalar loads.
    if addrs.iter().all(|&a| a == addrs[0]) {
        return lines_of(addrs[0], w, out);
    }
    let lanes = addrs;
    let mut last_line = u64::MAX;
    let mut last_idx = 0;
    for &a in lanes {
        for s in a / SECTOR..=(a + w - 1) / SECTOR {
            let line = s * SECTOR / LINE;
            let bit = 1u32 << (s % SECTORS_PER_LINE);
            if line != last_line {
                last_idx = match out.iter().position(|(l, _)| *l == line) {
                    Some(i) => i,
                    None => {
                        out.push((line, 0));
                        out.len() - 1
                    }
                };
                last_line = line;
            }
            out[last_idx].1 |= bit;
        }
    }
    for (_, mask) in out.iter_mut() {
        *mask = mask.count_ones();
    }
    out.len()
}

/// The lines one address's `w` bytes touch, each with its sector count, as `coalesce`
/// lists them (in address order): a range of sectors needs no search.
pub fn lines_of(a: u64, w: u64, out: &mut Vec<(u64, u32)>) -> usize {
    let last = (a + w - 1) / SECTOR;
    let mut s = a / SECTOR;
    while s <= last {
        let line = s / SECTORS_PER_LINE;
        let end = last.min(line * SECTORS_PER_LINE + SECTORS_PER_LINE - 1);
        out.push((line, (end - s + 1) as u32));
        s = end + 1;
    }
    out.len()
}

/// Shared-memory wavefronts for a warp's access: each of the 32 banks (4 bytes wide)
/// serves one distinct word per wavefront; a warp moves at most 128 bytes per wavefront.
pub fn smem_wavefronts(addrs: &[u64; 32], width: u32) -> u32 {
    let mut words: [u32; 32] = [0; 32];
    let mut seen: [u64; 32 * 4] = [u64::MAX; 32 * 4];
    let mut n = 0usize;
    for &a in addrs {
        for w in 0..width.div_ceil(4) as u64 {
            let word = a / 4 + w;
            if !seen[..n].contains(&word) {
                seen[n] = word;
                n += 1;
                words[(word % 32) as usize] += 1;
            }
        }
    }
    let bytes = (n as u32) * 4;
    words
        .iter()
        .copied()
        .max()
        .unwrap_or(1)
        .max(bytes.div_ceil(128))
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Draws` gives what `StdRng`'s own calls give, draw by draw, whatever their mix
    /// and across refills; the wide jitters take the second word now and then.
    #[test]
    fn draws_match_std_rng() {
        for seed in [0, 1, 7, 0xdead_beef] {
            let (mut draws, mut rng) = (Draws::new(seed), StdRng::seed_from_u64(seed));
            let mut pick = StdRng::seed_from_u64(seed + 100);
            for n in 0..5000 {
                if pick.random_range(0..5) == 0 {
                    assert_eq!(
                        draws.next_u64(),
                        rng.random::<u64>(),
                        "seed {seed} draw {n}"
                    );
                } else {
                    let jitter = match pick.random_range(0..4) {
                        0 => pick.random_range(1..100),
                        1 => pick.random_range(1..1_000_000_000_000),
                        2 => (1 << 62) - 1,
                        _ => pick.random_range(1u64 << 61..1 << 62),
                    };
                    let j = jitter as i64;
                    assert_eq!(
                        draws.symmetric(jitter),
                        rng.random_range(-j..=j),
                        "seed {seed} draw {n} jitter {jitter}"
                    );
                }
            }
        }
    }

    #[test]
    fn one_address_lines_as_the_sector_walk_gives_them() {
        for a in 0..700u64 {
            for w in [1u64, 2, 4, 8, 12, 16, 32, 64, 128, 256, 300] {
                let mut want: Vec<(u64, u32)> = Vec::new();
                for s in a / SECTOR..=(a + w - 1) / SECTOR {
                    let line = s * SECTOR / LINE;
                    match want.iter_mut().find(|(l, _)| *l == line) {
                        Some(e) => e.1 += 1,
                        None => want.push((line, 1)),
                    }
                }
                let mut got = Vec::new();
                coalesce(&[a; 32], w as u32, &mut got);
                assert_eq!(got, want, "address {a}, width {w}");
            }
        }
    }

    /// Slow windows are drawn per 64 KiB address group: the share of contiguous requests
    /// with a slow line levels off at the window chance however large they are, while a
    /// request whose rows lie 4 KiB apart reaches a new group every 16 rows and is
    /// almost always slow somewhere (the measured bulk and tensor copies).
    #[test]
    fn slow_windows_level_off_for_contiguous_requests_only() {
        let p = crate::Profile::builtin("h100").unwrap();
        let mut m = Memory::new(&p.t, 256 << 10, 1, 11);
        let window = p.t.hbm_tail_window_probability;
        let mut share = |addrs: &dyn Fn(u64) -> Vec<u64>| {
            let n = 2000u64;
            let slow = (0..n)
                .filter(|r| {
                    m.begin_request(1);
                    addrs((1 << 32) + r * (4 << 20))
                        .into_iter()
                        .any(|a| m.slow_chunk(a) > 0)
                })
                .count();
            slow as f64 / n as f64
        };
        let contiguous = |kib: u64| move |base: u64| (0..kib * 2).map(|i| base + i * 512).collect();
        let (c16, c64) = (share(&contiguous(16)), share(&contiguous(64)));
        let rows = share(&|base| (0..256).map(|i| base + i * 4096).collect());
        assert!(
            c64 < window + 0.04,
            "64 KiB contiguous: {c64}, window chance {window}"
        );
        assert!(
            (c64 - c16).abs() < 0.05,
            "16 KiB {c16} against 64 KiB {c64}"
        );
        assert!(rows > 0.95, "256 rows 4 KiB apart: {rows}");
    }

    /// The measured near/far pattern of HBM: within a 2 MiB page the parity of address
    /// bits 12, 13, 16, 17 and 19, flipped for some pages: the 32 lines of a 4 KiB block
    /// share a class, neighbouring blocks (bit 12) differ, blocks 4 KiB apart with bit
    /// 14 or 15 or 18 flipped do not.
    #[test]
    fn hbm_near_and_far_follow_the_address_bits() {
        let p = crate::Profile::builtin("h100").unwrap();
        let mut m = Memory::new(&p.t, 256 << 10, 1, 7);
        let page = (1u64 << 32) + (5 << 21);
        let mut far = |off: u64| m.hbm_is_far((page + off) / LINE);
        for block in 0..512u64 {
            let b = block << 12;
            assert!(
                (1..32).all(|l| far(b + l * LINE) == far(b)),
                "block {block}"
            );
            let parity = (b & 0xB3000).count_ones() % 2 == 1;
            assert_eq!(far(b) ^ far(0), parity, "block {block}");
        }
        // Half the pages flip: of 64 pages, neither none nor all.
        let flipped = (0..64u64)
            .filter(|k| m.hbm_is_far(((1u64 << 32) + (k << 21)) / LINE))
            .count();
        assert!(
            (16..=48).contains(&flipped),
            "{flipped} of 64 pages flipped"
        );
    }

    #[test]
    fn coalescing_counts_lines_and_sectors() {
        let mut out = Vec::new();
        let unit: [u64; 32] = std::array::from_fn(|l| l as u64 * 4);
        assert_eq!(coalesce(&unit, 4, &mut out), 1);
        assert_eq!(out[0].1, 4);
        let strided: [u64; 32] = std::array::from_fn(|l| l as u64 * 128);
        assert_eq!(coalesce(&strided, 4, &mut out), 32);
        assert!(out.iter().all(|&(_, s)| s == 1));
        let wide: [u64; 32] = std::array::from_fn(|l| l as u64 * 16);
        assert_eq!(coalesce(&wide, 16, &mut out), 4);
    }

    proptest::proptest! {
        /// Lanes a step apart that leave no gap (step 0 to the width) touch the lines and
        /// sectors of the one run from lane 0's address to lane 31's end: what the
        /// engine computes for them instead of coalescing 32 addresses.
        #[test]
        fn gapless_lanes_coalesce_as_one_run(
            first in 0u64..1 << 40,
            width in proptest::sample::select(vec![1u32, 2, 4, 8, 16]),
            step in 0u64..=16,
        ) {
            let step = step.min(width as u64);
            let addrs: [u64; 32] = std::array::from_fn(|l| first + l as u64 * step);
            let (mut lanes, mut run) = (Vec::new(), Vec::new());
            coalesce(&addrs, width, &mut lanes);
            lines_of(first, 31 * step + width as u64, &mut run);
            proptest::prop_assert_eq!(lanes, run);
        }
    }

    proptest::proptest! {
        /// A read through L1 in the profiles' shape (4-way L1, 16-way L2), which takes
        /// `read_l1_4_16`, returns what the general read (`read_l1_any`) returns, step by step:
        /// hits, L1 and L2 misses and evictions (both caches small here, so that lines
        /// are evicted from each), the random draws taken in the same order.
        #[test]
        fn the_profiles_shaped_read_is_the_general_read(
            reads in proptest::collection::vec((0u64..2048, 1u32..=4, 0u64..40), 1..300),
            seed in 0u64..8,
        ) {
            let p = crate::Profile::builtin("h100").unwrap();
            let mut t = p.t.clone();
            t.l2_bytes = 64.0 * 1024.0;
            let mut shaped = Memory::new(&t, 16 << 10, 1, seed);
            let mut general = Memory::new(&t, 16 << 10, 1, seed);
            proptest::prop_assert!(shaped.ways_4_16);
            let mut now = 0;
            for (line, sectors, gap) in reads {
                now += gap;
                shaped.begin_request(1);
                general.begin_request(1);
                let a = shaped.read_l1(line, sectors, now, now + 1);
                let b = general.read_l1_any(line, sectors, now, now + 1);
                proptest::prop_assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn bank_conflicts_serialize() {
        let unit: [u64; 32] = std::array::from_fn(|l| l as u64 * 4);
        assert_eq!(smem_wavefronts(&unit, 4), 1);
        let same_bank: [u64; 32] = std::array::from_fn(|l| l as u64 * 128);
        assert_eq!(smem_wavefronts(&same_bank, 4), 32);
        let broadcast: [u64; 32] = [0; 32];
        assert_eq!(smem_wavefronts(&broadcast, 4), 1);
        let wide: [u64; 32] = std::array::from_fn(|l| l as u64 * 16);
        assert_eq!(smem_wavefronts(&wide, 16), 4);
    }

    /// The replacement the ranks stand for: a last-use time per way, the victim the
    /// first way of the set with the smallest.
    struct LastUse {
        ways: usize,
        tags: Vec<u64>,
        last_use: Vec<u64>,
        tick: u64,
    }

    impl LastUse {
        fn access(&mut self, set: usize, line: u64, allocate: bool) -> Option<usize> {
            self.tick += 1;
            let s = set * self.ways;
            let mut victim = s;
            for w in s..s + self.ways {
                if self.tags[w] == line + 1 {
                    self.last_use[w] = self.tick;
                    return Some(w - s);
                }
                if self.last_use[w] < self.last_use[victim] {
                    victim = w;
                }
            }
            if allocate {
                self.tags[victim] = line + 1;
                self.last_use[victim] = self.tick;
            }
            None
        }
    }

    proptest::proptest! {
        /// `fill_range` leaves a cache as `fill` of each line in order does: after lines
        /// there before (`before`), the same hits and misses, and the same victims, on
        /// any lines looked up after (`after`, each installed on a miss).
        #[test]
        fn a_range_fills_as_its_lines_in_order(
            ways in 1usize..6,
            sets in 1u64..9,
            before in proptest::collection::vec(0u64..400, 0..40),
            first in 0u64..200,
            len in 0u64..300,
            after in proptest::collection::vec(0u64..600, 1..80),
        ) {
            let bytes = LINE * sets * ways as u64;
            let (mut bounded, mut in_order) = (Cache::new(bytes, ways), Cache::new(bytes, ways));
            for &l in &before {
                bounded.fill(l, 7);
                in_order.fill(l, 7);
            }
            bounded.fill_range(first, first + len);
            for l in first..=first + len {
                in_order.fill(l, 0);
            }
            for (i, &l) in after.iter().enumerate() {
                let (a, b) = (bounded.lookup(l), in_order.lookup(l));
                proptest::prop_assert_eq!(a, b, "lookup {} of line {}", i, l);
                if a.is_none() {
                    bounded.fill(l, 1);
                    in_order.fill(l, 1);
                }
            }
        }
    }

    #[test]
    fn ranks_replace_as_last_use_times_do() {
        // The second round's cache reuses the first's arrays and must start as empty.
        for ways in [1, 4, 5, 8, 9, 16, 17, 128] {
            for round in 0..2 {
                replace_as_last_use_times_do(round, ways);
            }
        }
    }

    fn replace_as_last_use_times_do(seed: u64, ways: usize) {
        use rand::RngExt;
        let sets = 3;
        let mut c = Cache::new(LINE * (sets * ways) as u64, ways);
        let mut r = LastUse {
            ways,
            tags: vec![0; sets * ways],
            last_use: vec![0; sets * ways],
            tick: 0,
        };
        let mut rng = StdRng::seed_from_u64(seed);
        for step in 0..20_000u64 {
            let line = rng.random_range(0..(10 * ways as u64 + 10));
            let set = c.set_of(line) / c.set.stride;
            match rng.random_range(0..4) {
                0 => {
                    let hit = c.probe(line);
                    if let Err(v) = hit {
                        c.install(v, line, step);
                    }
                    assert_eq!(hit.is_ok(), r.access(set, line, true).is_some());
                }
                1 => assert_eq!(
                    c.lookup(line).is_some(),
                    r.access(set, line, false).is_some()
                ),
                2 => {
                    c.fill(line, step);
                    r.access(set, line, true);
                }
                _ => {
                    c.invalidate(line);
                    let s = set * ways;
                    for w in s..s + ways {
                        if r.tags[w] == line + 1 {
                            r.tags[w] = 0;
                        }
                    }
                }
            }
            // Compare the sets in use (a set not yet touched may hold old lines).
            for set in 0..sets {
                if let Some(tags) = c.set_tags(set) {
                    let w = set * ways..(set + 1) * ways;
                    assert_eq!(tags, &r.tags[w], "step {step}");
                }
            }
        }
    }

    #[test]
    fn fastmod_picks_the_set_division_would() {
        use rand::RngExt;
        let mut rng = StdRng::seed_from_u64(3);
        for sets in [1u64, 2, 3, 7, 512, 25600, 25601, 1 << 20, 999_983] {
            let mut c = Cache::new(LINE * sets * 2, 2);
            for _ in 0..10_000 {
                let bits = rng.random_range(1..40);
                let line = rng.random_range(0..1u64 << bits);
                let h = line ^ (line >> 7) ^ (line >> 17);
                assert_eq!(
                    c.set_of(line),
                    (h % sets) as usize * c.set.stride,
                    "{line} in {sets} sets"
                );
            }
        }
    }

    /// The multiplication's bit 12 is the parity the shifts give.
    #[test]
    fn is_far_is_the_pair_hash_parity() {
        for line in (0..1u64 << 16).chain((0..1000).map(|i| u64::MAX - i)) {
            let pair = line >> 1;
            let shifts = ((pair ^ (pair >> 5) ^ (pair >> 11)) & 1) == 1;
            assert_eq!(Memory::is_far(line), shifts, "line {line}");
        }
    }

    #[test]
    fn ceil_is_the_ceiling() {
        use rand::RngExt;
        let mut rng = StdRng::seed_from_u64(5);
        let mut xs = vec![
            0.0,
            0.5,
            1.0,
            1.5,
            2.5,
            3.0 - 1e-12,
            1e-300,
            4503599627370495.5,
        ];
        xs.extend([4503599627370496.0, 4503599627370497.0, 9.3e18]);
        for _ in 0..100_000 {
            let scale = 10f64.powi(rng.random_range(-3..16));
            xs.push(rng.random::<f64>() * scale);
            xs.push((rng.random_range(0..1u64 << 40) as f64) / 4.0);
        }
        for x in xs {
            assert_eq!(ceil(x), x.ceil() as u64, "{x}");
        }
    }

    #[test]
    fn lru_keeps_the_recent_lines() {
        let mut c = Cache::new(LINE * 4, 4);
        for l in 0..4 {
            c.fill(l, 0);
        }
        assert!(c.lookup(0).is_some());
        c.fill(99, 0);
        assert!(c.lookup(0).is_some(), "recently used line survived");
        assert!(
            c.lookup(1).is_none(),
            "least recently used line was evicted"
        );
    }
}
