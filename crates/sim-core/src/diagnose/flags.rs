//! Figures a reader should not take at face value: a rate above the GPU's physical peak,
//! and instructions the profile's GPU does not have.

use serde::Serialize;

use super::bounds::{BoundUnit, Bounds};
use crate::{Profile, RunResult};

/// A figure of the run that needs a word of warning.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Flag {
    /// The HBM rate reported over the kernel's time exceeds the chip's sustained HBM
    /// bandwidth: stores written to L2 leave for HBM after the run (the write-back is
    /// booked but nothing waits for it), so the bytes are real but not their rate.
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
    /// The kernel issues an instruction the profile's GPU does not have.
    MissingInstruction {
        /// The role that issues it.
        role: String,
        /// Its text.
        instruction: String,
        /// The profile's GPU.
        gpu: String,
        /// Which GPUs have it.
        needs: String,
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
    // Hopper's warpgroup MMAs (sm_90a) are gone from Blackwell, which has tensor memory
    // and tcgen05 instead; a profile with tensor memory is a Blackwell one. (tcgen05 on
    // a profile without tensor memory is refused before the run.)
    if profile.t.tmem_cols > 0.0 {
        for role in &r.roles {
            for p in &role.per_pc {
                let op = p.instruction.split_whitespace().next().unwrap_or("");
                let hopper_only = op.starts_with("HGMMA") || op.starts_with("WARPGROUP.");
                // (One flag per role and opcode: the first instruction names it.)
                let seen = out.iter().any(|f| {
                    matches!(f, Flag::MissingInstruction { role: r, instruction, .. }
                        if *r == role.name && instruction.split_whitespace().next() == Some(op))
                });
                if hopper_only && p.issued > 0 && !seen {
                    out.push(Flag::MissingInstruction {
                        role: role.name.clone(),
                        instruction: p.instruction.clone(),
                        gpu: profile.file.gpu.clone(),
                        needs: "Hopper (sm_90a): warpgroup MMAs; Blackwell uses tcgen05 (UTCMMA)"
                            .into(),
                    });
                }
            }
        }
    }
    out
}
