//! Figures a reader should not take at face value: a rate above the GPU's physical
//! peak, and traffic that happens after the run. (An instruction the profile's GPU does
//! not have is refused before the run: HGMMA on a Blackwell profile, tcgen05 on a
//! Hopper one.)

use serde::Serialize;

use super::bounds::{BoundUnit, Bounds};
use crate::{Profile, RunResult};

/// A figure of the run that needs a word of warning.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Flag {
    /// The HBM rate reported over the kernel's time exceeds the chip's sustained HBM
    /// bandwidth. (Write-backs after the run are left out of the rate, so only reads
    /// running ahead of the sustained rate in bursts, or a profile whose per-SM limit
    /// exceeds its share of the chip, can cause it.)
    HbmRateAbovePeak {
        /// The rate the run reports, GB/s.
        reported_gbps: f64,
        /// The chip's sustained HBM bandwidth, GB/s.
        peak_gbps: f64,
        /// Cycles this SM's HBM bytes take at its share of that bandwidth.
        hbm_cycles: u64,
        /// The run's cycles.
        run_cycles: u64,
    },
    /// Stores the run wrote to L2 were still being written back to HBM when it ended:
    /// real HBM traffic, after the run, so left out of its HBM rate and bound.
    HbmWritebackAfterRun {
        /// The bytes still to write back, on this SM.
        bytes: u64,
        /// Cycles they take at this SM's share of the HBM bandwidth.
        cycles: u64,
    },
}

/// The chip's sustained HBM bandwidth, GB/s, from a profile as a kernel runs on it
/// (`Profile::for_kernel`: its HBM rate in bytes per cycle of its `clock_mhz`).
pub fn hbm_peak_gbps(profile: &Profile) -> f64 {
    profile.t.hbm_bytes_per_clk_chip * profile.t.clock_mhz / 1e3
}

/// The flags of `r`, a run on `profile` with bounds `b`.
pub fn flags(r: &RunResult, profile: &Profile, b: &Bounds) -> Vec<Flag> {
    let mut out = Vec::new();
    let peak = hbm_peak_gbps(profile);
    if r.hbm_gbps > peak * 1.001 {
        let hbm_cycles = b
            .unit(BoundUnit::HbmBandwidth)
            .map_or(0, |u| u.lower_bound_cycles);
        out.push(Flag::HbmRateAbovePeak {
            reported_gbps: r.hbm_gbps,
            peak_gbps: peak,
            hbm_cycles,
            run_cycles: r.cycles,
        });
    }
    // (A write-back shorter than 1% of the run is not worth a word.)
    let after = r.memory.hbm_bytes_after_run;
    let cycles = (after as f64 / super::bounds::hbm_bytes_per_clk(r, profile)).ceil() as u64;
    if after > 0 && cycles * 100 >= r.cycles {
        out.push(Flag::HbmWritebackAfterRun {
            bytes: after,
            cycles,
        });
    }
    out
}
