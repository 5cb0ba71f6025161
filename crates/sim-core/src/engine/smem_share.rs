//! Shared memory's write side, shared by STS and the copies landing there (issue 25, the
//! TMA-streaming twins). On the H100 an STS stream beside bulk copies into shared memory
//! slows to about half its rate while both run (`gap.smem.g2s_sts`, data/gaps: STS.128
//! 86.5 B/clk alone, 42.6 beside copies landing at 58.0 B/clk); neither waits for the
//! other to finish. A copy's bytes reach shared memory as its lines land, not at its
//! turn at the TMA unit, some 300 cycles before.
//!
//! Model: a copy into shared memory (with `smem_copy_cost` above 0) lands its bytes over
//! the cycles before its last line arrives, at the TMA unit's rate
//! (`tma_bytes_per_clk`); an STS whose crossbar time falls in such a window takes
//! `sts_beside_copy_factor` times that time. The copy books nothing the STS waits for.
//! (Booked first come, first served from its turn, as before, a copy issued right after
//! a warp's LDS held the write side through its lines' L2 latency and the warp's STS
//! waited for bytes not yet there: the warp-specialized twin at 64x128 tiles lost 419
//! cycles a tile.) Bulk stores still book the read side from their turn: they read
//! shared memory from then.

use super::*;

impl<S: Sink> Engine<'_, S> {
    /// When a CTA-scope fence (`MEMBAR.CTA`, the proxy fence) issued at `now` by warp
    /// `slot` lets it go on: `lat_fence` after it, and not before the warp's shared
    /// stores have been written.
    pub(super) fn fence_until(&self, slot: u32, now: u64) -> u64 {
        (now + self.t.lat_fence as u64).max(self.warps[slot as usize].sts_written)
    }

    /// A copy of `bytes` into shared memory (of warp `slot`) whose last line lands at
    /// `done`; its writes take `booked` cycles of shared memory, shown at the window's
    /// end (the timeline's shared-memory row).
    pub(super) fn copy_lands(&mut self, slot: u32, bytes: i64, booked: f64, done: u64) {
        let until = done as f64;
        let from = until - bytes as f64 / self.t.tma_bytes_per_clk;
        let now = self.now as f64;
        self.landing.retain(|w| w.1 > now);
        self.landing.push((from, until));
        self.smem_side_busy[1] += booked;
        self.emit_busy(slot, Unit::SharedMemory, (until - booked).max(from), until);
    }

    /// The crossbar time of an STS of `waves` cycles from `start`: stretched while a
    /// copy lands.
    pub(super) fn sts_waves(&self, start: f64, waves: f64) -> f64 {
        let factor = self.t.sts_beside_copy_factor;
        if factor > 1.0
            && self
                .landing
                .iter()
                .any(|&(from, until)| start < until && start + waves > from)
        {
            waves * factor
        } else {
            waves
        }
    }
}
