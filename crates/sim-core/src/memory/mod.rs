//! The memory hierarchy as one SM sees it: L1 (sharing its capacity with shared memory),
//! L2 with near and far partitions, HBM. Hits and misses follow from the addresses a
//! program touches (set-associative caches with LRU replacement); bandwidth is a
//! server per level whose rate is the SM's share of the chip's.

use rand::RngExt;
use rand::SeedableRng;
use rand::rngs::StdRng;

use crate::profile::Timing;
use crate::sink::MemLevel;

mod access;
mod bandwidth;
mod cache;
mod draws;
mod first_read;
mod line_set;
mod load;
#[cfg(test)]
mod tests;

pub use access::*;
pub use bandwidth::*;
pub use cache::*;
use draws::*;
use first_read::*;
use line_set::*;
use load::*;

pub const LINE: u64 = 128;
pub const SECTOR: u64 = 32;
pub const SECTORS_PER_LINE: u64 = LINE / SECTOR;

/// How many lines ahead a bulk copy's L2 sets are asked for (`Cache::prefetch`): a
/// line's work is a few hundred host instructions, a host memory access a few hundred
/// cycles.
const PREFETCH_AHEAD: u64 = 4;

/// Set in a request's sharer count (`Memory::begin_request`) when the CTA's partner on
/// its TPC reads the same lines.
pub const TPC_PARTNER: u32 = 1 << 31;

pub struct Memory {
    pub l1: Cache,
    pub l2: Cache,
    /// This SM's port to L2 (every byte it reads or writes crosses it) and its share of
    /// the chip's L2 bandwidth. A line that several SMs of the wave read at about the
    /// same time costs the chip's less (`Memory::sharing_gain`): the L2
    /// serves the copies from one lookup.
    pub l2_bw: L2Servers,
    l2_shared_read_gain: f64,
    l2_shared_read_sharers: f64,
    l2_tpc_read_gain: f64,
    pub hbm_bw: Bandwidth,
    /// This SM's share of the chip's HBM rate, from its recent traffic (`load.rs`):
    /// `hbm_bw`'s rate.
    hbm_share: HbmShare,
    /// First reads of wave-shared lines while this SM's HBM lines are in flight
    /// (`first_read.rs`).
    first_reads: FirstReads,
    /// What the current request's first reads of wave-shared lines wait, from its start.
    req_first_wait: u64,
    /// What they wait after this SM's own lines from HBM arrive
    /// (`l2_shared_lockstep_cycles_per_sm`).
    req_first_after: u64,
    /// When this SM's earlier copies of wave-shared lines complete (as the current
    /// request began).
    req_shared_before: u64,
    /// Whether the current request's lines are wave-shared (more than two SMs read
    /// them): their arrivals from HBM are not this SM's own (`FirstReads::hbm_arrival`).
    req_wave_shared: bool,
    /// Lines of the current request read from HBM (`box_read`).
    req_hbm_lines: u64,
    /// `hbm_tma_box_bytes`.
    hbm_box_bytes: f64,
    /// `hbm_burst_bytes`, for `hbm_burst_cycles` at `hbm_bw`'s rate.
    hbm_burst_bytes: f64,
    /// Bytes of stores written back to HBM (booked on `hbm_bw`, waited for by nobody).
    hbm_writeback_bytes: u64,
    /// Of `hbm_bw`'s bytes, those TMA copies read (at their own one-SM rate).
    pub hbm_tma_bytes: u64,
    rng: Draws,
    lat_l1: u64,
    /// What a hit's further sectors add on L1's return path: `l1_sector_extra[s]` for a
    /// line with `s` sectors requested (`l1_sector_cycles` per sector after the first).
    l1_sector_extra: [u64; 5],
    /// The same on L2's return path for a hit (`l2_sector_cycles` per sector after the
    /// first).
    l2_sector_extra: [u64; 5],
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
    /// What a TMA copy's line from HBM counts on `hbm_bw` per byte, against an LDG's 1
    /// (`hbm_tma_line_cost`).
    hbm_tma_cost: f64,
    /// The most a TMA copy's lines from HBM move on one SM
    /// (`hbm_tma_bytes_per_clk_sm_max`, within its L2 port).
    hbm_tma_most: f64,
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

/// What a TMA copy's line from HBM counts on the SM's sustained HBM share (`hbm_bw`, at
/// `hbm_rate`) per byte: as if that share ran at `hbm_tma_bytes_per_clk_sm_max` for
/// copies rather than `hbm_bytes_per_clk_sm_max`, while its share of the chip
/// (`chip_share`) binds both alike; 1 when the two rates are the same. H100, median over
/// the GPUs: one SM's bulk-copy stream from HBM 90.8 B/clk against its LDG stream's
/// 97.8, the whole chip's 1602 against 1597.
fn hbm_tma_line_cost(t: &Timing, hbm_rate: f64, chip_share: f64) -> f64 {
    let tma_rate = chip_share
        .min(t.hbm_tma_bytes_per_clk_sm_max)
        .min(t.l2_bytes_per_clk_sm_max);
    hbm_rate / tma_rate
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
            l2_shared_read_sharers: t.l2_shared_read_sharers.max(1.0),
            l2_tpc_read_gain: t.l2_tpc_read_gain.max(1.0),
            hbm_bw: Bandwidth::new(hbm_rate),
            hbm_share: HbmShare::new(
                t.hbm_bytes_per_clk_chip,
                t.hbm_bytes_per_clk_sm_max.min(t.l2_bytes_per_clk_sm_max),
                busy_sms,
            ),
            first_reads: FirstReads::new(
                t.l2_shared_first_read_cycles,
                t.l2_shared_first_read_cycles_per_sm,
                t.l2_shared_lockstep_cycles_per_sm,
            ),
            req_first_wait: 0,
            req_first_after: 0,
            req_shared_before: 0,
            req_wave_shared: false,
            req_hbm_lines: 0,
            hbm_box_bytes: t.hbm_tma_box_bytes,
            hbm_burst_bytes: t.hbm_burst_bytes,
            hbm_writeback_bytes: 0,
            hbm_tma_bytes: 0,
            rng: Draws::new(seed),
            lat_l1: t.lat_l1_hit as u64,
            l1_sector_extra: std::array::from_fn(|s| {
                ceil(s.saturating_sub(1) as f64 * t.l1_sector_cycles)
            }),
            l2_sector_extra: std::array::from_fn(|s| {
                ceil(s.saturating_sub(1) as f64 * t.l2_sector_cycles)
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
            hbm_tma_cost: hbm_tma_line_cost(t, hbm_rate, share(t.hbm_bytes_per_clk_chip)),
            hbm_tma_most: t
                .hbm_tma_bytes_per_clk_sm_max
                .min(t.l2_bytes_per_clk_sm_max),
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
    /// HBM bytes still to cross when the run ends at `end`: `hbm_bw`'s backlog then,
    /// at its rate, taken to be write-backs (every read was waited for within the
    /// run), at most the bytes written back.
    pub fn hbm_bytes_after(&self, end: u64) -> u64 {
        let backlog = (self.hbm_bw.free_at - end as f64).max(0.0) / self.hbm_bw.clk_per_byte;
        (backlog.ceil() as u64).min(self.hbm_writeback_bytes)
    }

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
    /// traffic (the others' copies hit in L2 behind the same fill). `sharers` may carry
    /// `TPC_PARTNER`.
    #[inline(always)]
    pub fn begin_request(&mut self, sharers: u32) {
        self.req_l2 = self.draw(self.jitter_l2);
        // Most requests are one CTA's own (and a hardware division is slow): the
        // general case gives the same values for one sharer.
        if sharers <= 1 {
            self.req_hbm_line_bytes = LINE;
            self.req_l2_chip_cost = 1.0;
            self.req_first_wait = 0;
            self.req_first_after = 0;
            self.req_wave_shared = false;
        } else {
            let (n, partner) = (sharers & !TPC_PARTNER, sharers & TPC_PARTNER != 0);
            self.req_hbm_line_bytes = LINE.div_ceil(n.max(1) as u64);
            self.req_l2_chip_cost = 1.0 / self.sharing_gain(n, partner);
            self.req_first_wait = self.first_reads.wait(n);
            self.req_first_after = self.first_reads.after_hbm(n);
            self.req_shared_before = self.first_reads.shared_done;
            self.req_wave_shared = n > 2;
        }
        self.req_hbm_lines = 0;
        self.req_multicast = 1;
        self.req_chunk = u64::MAX;
        self.req_tail_key = 0;
    }

    /// How many times less a line `n` CTAs of the wave read at about the same time costs
    /// the chip's L2 (`partner`: the CTA's TPC partner is among them). Measured
    /// (gaps/h100-20261127T111724Z.json, `gap.share.*`): CTAs on other TPCs gain nothing up
    /// to 8 sharers, 1.14 at 16, 2.13 at 32 (n / `l2_shared_read_sharers`); the two CTAs of
    /// one TPC 1.88 (`l2_tpc_read_gain`), and groups of 4, 8, 16, 32 consecutive CTAs
    /// 2.29, 2.34, 2.41, 2.42, approaching the cap (`l2_shared_read_gain`) as the pair's
    /// share of the group, 2 / n, falls: tpc + (cap - tpc) (1 - 2 / n) gives 2.21, 2.38,
    /// 2.47, 2.51. The larger of the two, within 1..=cap.
    pub(crate) fn sharing_gain(&self, n: u32, partner: bool) -> f64 {
        let cap = self.l2_shared_read_gain;
        let spread = n as f64 / self.l2_shared_read_sharers;
        let paired = if partner && n >= 2 {
            let tpc = self.l2_tpc_read_gain.min(cap);
            tpc + (cap - tpc) * (1.0 - 2.0 / n as f64)
        } else {
            1.0
        };
        spread.max(paired).clamp(1.0, cap)
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

    /// Moves `bytes` of this SM's HBM traffic requested at `t` through its share of HBM
    /// (`hbm_bw`), first setting the share's rate from its recent load (`HbmShare`) and
    /// the burst's reach in cycles at it; returns when they are through, not rounded.
    #[inline(always)]
    fn carry_hbm(&mut self, t: u64, bytes: u64, tma: bool) -> f64 {
        if self.hbm_share.roll(t) {
            self.hbm_bw.clk_per_byte = 1.0 / self.hbm_share.rate;
            self.hbm_burst_cycles = self.hbm_burst_bytes / self.hbm_share.rate;
            self.hbm_tma_cost = self.hbm_share.rate / self.hbm_share.offered.min(self.hbm_tma_most);
        }
        let start = later(self.hbm_bw.free_at, t as i64 as f64);
        let end = if tma {
            self.hbm_bw.bytes += bytes;
            self.hbm_tma_bytes += bytes;
            self.hbm_bw.hold(t, bytes as i64 as f64 * self.hbm_tma_cost)
        } else {
            self.hbm_bw.carry(t, bytes)
        };
        self.hbm_share.book(start, end);
        end
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
        let sustained = self.carry_hbm(t, self.req_hbm_line_bytes, tma);
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
        let arrives = ceil(later(later(burst, credit), chip)).max(t) + lat;
        // A wave-shared line's fill is not this SM's own traffic: counted as such, the
        // later rows of a shared box would wait on the box's own first row.
        if !self.req_wave_shared {
            self.first_reads.hbm_arrival = self.first_reads.hbm_arrival.max(arrives);
        }
        arrives
    }

    /// Ends the current request, a tensor copy's box of `lines` lines in rows a pitch
    /// apart, read from `t`: the box costs this SM's share of HBM `hbm_tma_box_bytes`
    /// more than its lines, in proportion to its lines from HBM and to this SM's share of
    /// them (`req_hbm_line_bytes`), after its lines (it delays the copies behind it, not
    /// its own lines: with gaps between copies the share has drained by the next one).
    pub fn box_read(&mut self, t: u64, lines: u64) {
        if self.hbm_box_bytes <= 0.0 || self.req_hbm_lines == 0 || lines == 0 {
            return;
        }
        let share =
            self.req_hbm_lines as f64 / lines as f64 * self.req_hbm_line_bytes as f64 / LINE as f64;
        let bytes = self.hbm_box_bytes * share;
        let start = later(self.hbm_bw.free_at, t as i64 as f64);
        let end = self.hbm_bw.hold(t, bytes * self.hbm_tma_cost);
        self.hbm_share.book(start, end);
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
        // First reads of wave-shared lines wait (`first_read.rs`) while this SM's own
        // lines from HBM are still arriving: from the copy's start, and, in a pipeline
        // (this SM's copy of an earlier wave-shared tile still under way: the wave then
        // runs in lockstep, every SM asking for the tile at once), after those lines.
        let shared_first = self.req_first_wait > 0 || self.req_first_after > 0;
        let first_wait = if shared_first && self.first_reads.hbm_arrival > t {
            let after = if self.req_shared_before > t {
                self.first_reads.hbm_arrival + self.req_first_after
            } else {
                0
            };
            (t + self.req_first_wait).max(after)
        } else {
            0
        };
        // Where the two servers stood after the last near and the last far hit.
        let (mut near_at, mut far_at) = (None, None);
        let mut hit_ready = 0u64;
        let (mut near, mut far, mut hbm) = (0u64, 0u64, 0u64);
        // The sets of the lines `PREFETCH_AHEAD` on asked for ahead of their probes
        // (`Cache::prefetch`: host speed only).
        for line in first..=last.min(first + PREFETCH_AHEAD - 1) {
            self.l2.prefetch(line);
        }
        for line in first..=last {
            if line + PREFETCH_AHEAD <= last {
                self.l2.prefetch(line + PREFETCH_AHEAD);
            }
            let is_far = Memory::is_far(line);
            if shared_first && self.first_reads.first(line) {
                done = done.max(first_wait);
            }
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
        self.req_hbm_lines += hbm;
        for (at, lat) in [(near_at, lat_near), (far_at, lat_far)] {
            if let Some((port, chip)) = at {
                done = done.max(ceil(later(port, chip)) + lat);
            }
        }
        done = done.max(hit_ready);
        if shared_first {
            self.first_reads.shared_done = self.first_reads.shared_done.max(done);
        }
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
            Ok(ready) => self.l2_hit(line, sectors, t, l2_bytes, ready),
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
    /// requested at `t` for `l2_bytes` of this SM's share, and from which partition:
    /// its `sectors` sectors after the first `l2_sector_cycles` apart on the return path.
    #[inline(always)]
    fn l2_hit(
        &mut self,
        line: u64,
        sectors: u32,
        t: u64,
        l2_bytes: u64,
        ready: u64,
    ) -> (u64, MemLevel) {
        let (lat, level) = if Memory::is_far(line) {
            (self.lat_l2_far, MemLevel::L2Far)
        } else {
            (self.lat_l2_near, MemLevel::L2Near)
        };
        let lat = jittered(lat, self.req_l2) + self.l2_sector_extra[(sectors as usize).min(4)];
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
                self.l2_hit(line, sectors, t_miss, l2_bytes, ready)
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
            self.carry_hbm(t, bytes, false);
            self.hbm_writeback_bytes += bytes;
        }
        if self.l2.lookup(line).is_none() {
            self.l2.fill(line, t + lat);
        }
        (t + lat).max(moved)
    }
}
