//! The bandwidth servers: a level's bytes at its rate, first come first served.

use super::*;

/// A first-come first-served server moving bytes at a fixed rate.
#[derive(Clone, Debug)]
pub struct Bandwidth {
    /// Cycles per byte.
    pub(super) clk_per_byte: f64,
    pub(super) free_at: f64,
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
    /// `transfer`'s end before rounding up to a cycle (see `hold`).
    #[inline(always)]
    pub(super) fn carry(&mut self, t: u64, bytes: u64) -> f64 {
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
    pub(super) fn hold(&mut self, t: u64, bytes: f64) -> f64 {
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
    pub(super) clk_per_byte: [f64; 2],
    pub(super) free_at: [f64; 2],
    /// Cycles each server has been occupied.
    pub(super) busy: [f64; 2],
    /// Bytes the port has carried.
    pub bytes: u64,
}

/// This SM's port to L2, in `L2Servers`.
pub(super) const PORT: usize = 0;
/// This SM's share of the chip's L2 bandwidth, in `L2Servers`.
pub(super) const CHIP: usize = 1;

impl L2Servers {
    pub(super) fn new(port_bytes_per_clk: f64, chip_bytes_per_clk: f64) -> L2Servers {
        L2Servers {
            clk_per_byte: [1.0 / port_bytes_per_clk, 1.0 / chip_bytes_per_clk],
            free_at: [0.0; 2],
            busy: [0.0; 2],
            bytes: 0,
        }
    }

    /// What each server takes for its share of bytes (`Bandwidth::hold`'s cycles).
    #[inline(always)]
    pub(super) fn cycles(&self, bytes: [f64; 2]) -> [f64; 2] {
        [
            bytes[PORT] * self.clk_per_byte[PORT],
            bytes[CHIP] * self.clk_per_byte[CHIP],
        ]
    }

    /// `Bandwidth::hold`'s step for server `i` (`PORT` or `CHIP`): held for `cycles`
    /// from no earlier than `t`; returns when that ends.
    #[inline(always)]
    pub(super) fn hold_one(&mut self, i: usize, t: f64, cycles: f64) -> f64 {
        self.free_at[i] = later(self.free_at[i], t) + cycles;
        self.busy[i] += cycles;
        self.free_at[i]
    }

    /// `Bandwidth::hold` of both servers for `cycles` from no earlier than `t`.
    #[inline(always)]
    pub(super) fn hold(&mut self, t: f64, cycles: [f64; 2]) -> [f64; 2] {
        [
            self.hold_one(PORT, t, cycles[PORT]),
            self.hold_one(CHIP, t, cycles[CHIP]),
        ]
    }

    /// `Bandwidth::hold` of the chip's server alone.
    #[inline(always)]
    pub(super) fn hold_chip(&mut self, t: u64, bytes: f64) -> f64 {
        self.hold_one(CHIP, t as i64 as f64, bytes * self.clk_per_byte[CHIP])
    }
}
