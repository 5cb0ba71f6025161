//! Shared memory shared by LDS/STS and the bulk copies through it (issue 25, the
//! TMA-streaming twins).
//!
//! Write side. A copy's bytes land at the TMA unit's rate (`tma_bytes_per_clk`) over the
//! cycles before its last line arrives, not at its turn at the TMA unit some 300 cycles
//! before. (Booked from its turn, a copy held STS that the GPU wrote before it: the
//! warp-specialized twin at 64x128 tiles lost 419 cycles a tile.) By default an STS whose
//! crossbar time falls among landing bytes takes `sts_beside_copy_factor` times that time
//! (`gap.smem.g2s_sts`: STS.128 86.5 B/clk alone, 42.6 beside 16 KiB copies landing at
//! 58.0). With `smem_write_queue` on (the H100's profile), shared memory's writes are a
//! queue in order per 128 KiB, landing bytes first: an STS whose turn falls among them is written after them, and an
//! mbarrier arrive reaches its barrier once the STS queued before it, any warp's, are
//! written, as the H100 does (`data/gaps/hold/`: one warp's 8 STS.128 and an arrive take
//! 200 cycles alone and end 50 to 90 cycles after another warp's tensor copies complete
//! when the STS meet their bytes; the arrive alone is never held, nor 8 STS and a fence
//! without it). The queue also gives the STS stream beside copies what it measured: the
//! copies' 58.0 B/clk land at 107 B/clk 54% of the time, leaving the STS 0.46 x 86.5 = 40
//! B/clk against 42.6.
//!
//! When a copy holds the queue (`smem_write_hold_from_turn`, the H100's profile): not
//! while its bytes land but while the TMA unit works on it, from a fixed time after its
//! turn there (`data/gaps/wshold/queue/`: on the H200's GH100 SM another warp's STS in the
//! copy's half are held from ~96 cycles after a tensor copy's issue, before a byte could
//! have returned from L2, for about the unit's time on the copy; later ones pass while its
//! bytes still land). A store reaching the queue in that span is written at its end. (With
//! the landing window, 152 cycles of a 16 KiB copy before its last line, the 32x128
//! warp-specialized twin's tail mostly passed before the next tile's copies landed: its
//! hold cost 42 cycles a tile where the GPU's costs 129, `data/gaps/wshold/tiles/`.)
//!
//! The queues are per half (`smem_write_queue_bytes`): on the H100 the warp-specialized
//! streaming kernel's tail is held by the next tile's copies only when its store buffer
//! and the load buffers lie in the same 128 KiB of shared memory (`data/gaps/wsstream/`:
//! the store buffer moved from 64 to 128 KiB takes the 32x128 kernel from 63.9k to 55.4k
//! cycles; moved below the load buffers, the 64x128 one from 75.1k to 92.2k), so an
//! STS waits only behind copy bytes landing in its own half, and its turn is its half's.
//! With one queue for all, the 64x128 twin (store buffer at 128 KiB) was held where the
//! GPU is not (+20%), which had kept the queue off.
//!
//! An STS takes its turn in its queue when its data reaches shared memory: once its
//! registers have been read on its sub-partition's store path (`sts_read.rs`), not at
//! its issue. A warp's eight STS.128 issue in a few cycles but are read at 45 B/clk
//! (`data/gaps/stsissue/`: sixteen written ~170 cycles after the first issues), so the
//! later ones of a warp whose stores issue just before a copy's bytes begin to land meet
//! them and are written after them. (Taken at issue, the 32x128 warp-specialized twin's
//! STS all passed before the next tile's bytes and its tail was held on every other tile
//! only: 56.2k cycles against the GPU's 66.4k, 53.4k with the store buffer in the other
//! half; with the turn at the read, 59.8k. `data/gaps/wshold/`.)
//!
//! Read side (`gap.smem.s2g_lds`: LDS.128 96.7 B/clk alone, 56.8 beside bulk stores
//! draining at 31.9, which they keep; copies in do not slow LDS, stores out do not slow
//! STS): a bulk store reads its bytes over its time at the TMA unit (from its turn, at
//! `tma_store_bytes_per_clk`); an LDS whose crossbar time falls in such a window takes
//! `lds_beside_store_factor` times that time. (Booked first come, first served, a 32 KiB
//! store held every LDS behind it 256 cycles, where the GPU's run beside it.)

use super::*;

/// How many write queues the engine keeps (`smem_write_queue_bytes`): byte offsets past
/// the last one's share it.
pub(super) const WRITE_QUEUES: usize = 8;

impl<S: Sink> Engine<'_, S> {
    /// The write queue that serves shared byte offset `addr` (`smem_write_queue_bytes`).
    pub(super) fn write_queue(&self, addr: u64) -> usize {
        let per = self.t.smem_write_queue_bytes.max(1.0) as u64;
        ((addr / per) as usize).min(WRITE_QUEUES - 1)
    }

    /// When a CTA-scope fence (`MEMBAR.CTA`, the proxy fence) issued at `now` by warp
    /// `slot` lets it go on: `lat_fence` after it, and not before the warp's shared
    /// stores have been written.
    pub(super) fn fence_until(&self, slot: u32, now: u64) -> u64 {
        (now + self.t.lat_fence as u64).max(self.warps[slot as usize].sts_written)
    }

    /// A copy of `bytes` into shared memory at byte offset `addr` (of warp `slot`), at the
    /// TMA unit over `unit` (its turn to the unit's end), whose last line lands at `done`;
    /// its writes take `booked` cycles of shared memory, shown at the window's end (the
    /// timeline's shared-memory row). A copy whose bytes reach into a second write queue
    /// lands in each it reaches.
    pub(super) fn copy_lands(
        &mut self,
        slot: u32,
        addr: u64,
        bytes: i64,
        booked: f64,
        unit: (f64, f64),
        done: u64,
    ) {
        let until = done as f64;
        let hold = self.t.smem_write_hold_from_turn;
        // (from, held until): while the unit works on the copy, `hold` later
        // (`smem_write_hold_from_turn`, data/gaps/wshold/queue/), or while its bytes land
        let (from, held) = if hold > 0.0 {
            (unit.0 + hold, (unit.1 + hold).min(until))
        } else {
            (until - bytes as f64 / self.t.tma_bytes_per_clk, until)
        };
        let now = self.now as f64;
        self.landing.retain(|w| w.2 > now);
        let (q0, q1) = (
            self.write_queue(addr),
            self.write_queue(addr + (bytes.max(1) as u64 - 1)),
        );
        for q in q0..=q1 {
            self.landing.push((from, held, until, q));
        }
        self.smem_side_busy[1] += booked;
        self.emit_busy(slot, Unit::SharedMemory, (until - booked).max(from), until);
    }

    /// A bulk store reading `booked` cycles' worth of shared memory over `from..until`
    /// (its time at the TMA unit), shown at the window's start.
    pub(super) fn store_reads(&mut self, slot: u32, booked: f64, from: f64, until: f64) {
        let now = self.now as f64;
        self.reading.retain(|w| w.1 > now);
        self.reading.push((from, until));
        self.smem_side_busy[0] += booked;
        self.emit_busy(slot, Unit::SharedMemory, from, (from + booked).min(until));
    }

    /// When an STS whose turn at write queue `q` is `start` is written: at the end of the
    /// span any copy holds that queue then (its bytes' landing, or with
    /// `smem_write_hold_from_turn` the unit's span shifted; `copy_lands`).
    pub(super) fn after_landing(&self, start: f64, q: usize) -> f64 {
        let mut at = start;
        // windows may overlap or follow one another: move past each until none holds it
        while let Some(&(_, held, _, _)) = self
            .landing
            .iter()
            .find(|&&(from, held, _, wq)| wq == q && at >= from && at < held)
        {
            at = held;
        }
        at
    }

    /// The crossbar time of an STS of `waves` cycles from `start`: stretched while a copy
    /// lands (`sts_beside_copy_factor`, with `smem_write_queue` off).
    pub(super) fn sts_beside_landing(&self, start: f64, waves: f64) -> f64 {
        let factor = self.t.sts_beside_copy_factor;
        if factor > 1.0
            && self
                .landing
                .iter()
                .any(|&(from, _, until, _)| start < until && start + waves > from)
        {
            waves * factor
        } else {
            waves
        }
    }

    /// The crossbar time of an LDS of `waves` cycles from `start`: stretched while a bulk
    /// store reads shared memory.
    pub(super) fn beside_stores(&self, start: f64, waves: f64) -> f64 {
        let factor = self.t.lds_beside_store_factor;
        if factor > 1.0
            && self
                .reading
                .iter()
                .any(|&(from, until)| start < until && start + waves > from)
        {
            waves * factor
        } else {
            waves
        }
    }
}
