//! A shared store's register read (issue 25, `data/gaps/stsissue/`).
//!
//! On the H100 an STS does not read its registers at issue: each sub-partition hands its
//! stores to shared memory one at a time, in issue order, reading each store's registers
//! at `sts_read_bytes_per_clk` (about 49 B/clk: one warp's sixteen STS.128 of 512 bytes
//! are written about 170 cycles after the first issues, while their issue takes 80, and
//! two warps on two sub-partitions take as long each). The warp goes on issuing; what
//! waits is an instruction that writes one of the store's registers (ptxas puts the wait
//! on the store's read scoreboard there), which is what the 8.25 cycles a real STS.128
//! measured in `wsstream/predsts/` were: each store followed by a write to its data
//! register. Stores of several sub-partitions share the crossbar: a store whose turn
//! starts while k other sub-partitions' paths are busy reads at most
//! `smem_bytes_per_clk / (k + 1)`, and its registers are read no sooner than its write's
//! crossbar turn ends. With the write queues on, that read's end is also the store's turn
//! in its queue (`smem_share.rs`): a store whose data arrives among a copy's landing bytes
//! is written after them.

use super::*;

impl<S: Sink> Engine<'_, S> {
    /// When the registers of an STS of `bytes` issued at `now` on sub-partition `sp` have
    /// been read, its crossbar turn ending at `crossbar_end`; the path's turn booked.
    pub(super) fn sts_read(&mut self, sp: usize, now: u64, bytes: f64, crossbar_end: f64) -> f64 {
        let start = self.sts_path_free[sp].max(now as f64);
        let others = (self.sts_path_free.iter().enumerate())
            .filter(|&(s, &free)| s != sp && free > start)
            .count();
        let rate = self
            .t
            .sts_read_bytes_per_clk
            .min(self.t.smem_bytes_per_clk / (others + 1) as f64);
        let end = (start + bytes / rate).max(crossbar_end);
        self.sts_path_free[sp] = end;
        end
    }

    /// The registers `d` (a shared store of warp `slot`) reads are read at `read`: a
    /// later write to any of them waits until then.
    pub(super) fn sts_registers_read(&mut self, slot: u32, d: &DInstr, read: u64) {
        let w = &mut self.warps[slot as usize];
        let reg = RegState {
            ready: read,
            writer: d.text,
            stall: WarpState::ShortScoreboard,
        };
        for &r in d.srcs.iter() {
            w.reads[r as usize % REG_ARRAY] = reg;
        }
    }
}
