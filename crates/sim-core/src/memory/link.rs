//! The link between the L2's two partitions, as the first reads of lines the whole wave
//! reads see it.
//!
//! Each partition keeps a copy of a line that the other partition's SMs read, made on the
//! first read across the link between them, which the far half of HBM's lines cross too.
//! Measured (crates/calibrate/data/chip, `tma_stream`, finding 2 of its README): 132 SMs,
//! each with a stage of a 16 KiB copy of its own rows from HBM and a 32 KiB tile every SM
//! reads, take ~1250 cycles more a stage when the tile is on new lines every k-step (cold
//! in L2 or not), 691 at 66 SMs and 245 at 33 (in proportion to the SMs: a chip-wide
//! rate), nothing when the tile is on the same lines every k-step (the copies are made
//! once), and nothing extra when the SMs read the tile with no lines of their own from
//! HBM (`mode 1`: then the SMs' first reads arrive together and one copy serves them).
//! So a first read of a far shared line, made while this SM's own HBM lines are queued,
//! waits on the link behind the far ones among them and crosses at this SM's share of
//! the link's rate.

use super::LineSet;

/// This SM's share of the link and the shared lines already copied to its partition.
#[derive(Clone, Debug)]
pub struct Link {
    /// Cycles per byte at this SM's share; 0 when the link is not modelled.
    clk_per_byte: f64,
    /// When this SM's share of the link has carried what was booked on it.
    free_at: f64,
    /// Shared lines copied into this SM's partition (first read done).
    copied: LineSet,
}

impl Link {
    /// `chip`: the link's bytes per cycle, whole chip (0: off); `busy_sms` share it.
    pub fn new(chip: f64, busy_sms: u32) -> Link {
        let clk_per_byte = if chip > 0.0 {
            busy_sms.max(1) as f64 / chip
        } else {
            0.0
        };
        Link {
            clk_per_byte,
            free_at: 0.0,
            copied: LineSet::default(),
        }
    }

    /// Whether the link is modelled.
    #[inline(always)]
    pub fn on(&self) -> bool {
        self.clk_per_byte > 0.0
    }

    /// A far line from HBM whose turn at HBM ends at `turn`: it crosses the link then,
    /// ahead of any first read requested later (its own crossing is within its HBM
    /// turn: it costs the first reads only their place behind it).
    #[inline(always)]
    pub fn hbm_far_line(&mut self, turn: f64) {
        self.free_at = self.free_at.max(turn);
    }

    /// The first read of far shared `line` (`bytes` of it) requested at `t`: when its
    /// copy has crossed, if it waits for the link (this SM's HBM lines queued: `queued`);
    /// None when the line was copied before or the copy costs nothing.
    #[inline(always)]
    pub fn first_read(&mut self, line: u64, t: f64, bytes: u64, queued: bool) -> Option<f64> {
        if !self.copied.insert(line) || !queued {
            return None;
        }
        self.free_at = self.free_at.max(t) + bytes as f64 * self.clk_per_byte;
        Some(self.free_at)
    }
}
