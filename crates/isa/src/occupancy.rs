//! How many CTAs of a kernel fit on one SM at once, by the rules of NVIDIA's occupancy
//! calculator (`cuda_occupancy.h`).
//!
//! The SM's limits are plain data, [`SmLimits`]; this crate holds none. The GPU profile
//! in sim-core supplies them.
//!
//! - Registers are allocated per warp: `regs x 32` rounded up to `reg_alloc_unit`. The
//!   register file is split among `reg_file_partitions` sub-partitions (the SMSPs), so
//!   the warps it holds are `floor(regs_per_sm / partitions / per_warp) x partitions`,
//!   and CTAs by registers are those warps divided by the CTA's warps.
//! - With `setmaxnreg` (roles with `maxnreg=`) the CTA is still launched with one
//!   allocation per warp; the budgets only move registers between its warps. The
//!   allocation that must be there is the larger of the launch's `regs` and the roles'
//!   total spread over the CTA's warps.
//! - Shared memory per CTA is `smem + smem_reserved_per_cta` rounded up to
//!   `smem_alloc_unit`; CTAs by shared memory are `smem_per_sm` divided by that.
//! - Warps: `min(max_warps_per_sm, max_threads_per_sm / 32)` divided by the CTA's warps.
//! - CTA slots: `max_ctas_per_sm`.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ast::Kernel;

/// One SM's resources, as the CUDA occupancy calculator sees them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SmLimits {
    /// 32-bit registers in the SM's register file.
    pub regs_per_sm: u32,
    /// Registers one thread may have.
    pub max_regs_per_thread: u32,
    /// Registers are given to a warp in multiples of this many.
    pub reg_alloc_unit: u32,
    /// Sub-partitions (SMSPs) the register file is divided among; a warp's registers come
    /// from one of them.
    pub reg_file_partitions: u32,
    /// Resident warps per SM.
    pub max_warps_per_sm: u32,
    /// Resident threads per SM.
    pub max_threads_per_sm: u32,
    /// Resident CTAs per SM.
    pub max_ctas_per_sm: u32,
    /// Shared memory the SM can give CTAs (the largest carveout), bytes.
    pub smem_per_sm: u32,
    /// Shared memory one block may opt in to, bytes (not counting the reserved part).
    pub max_smem_per_block: u32,
    /// Shared memory the driver reserves for each CTA, bytes.
    pub smem_reserved_per_cta: u32,
    /// Shared memory is allocated in multiples of this many bytes.
    pub smem_alloc_unit: u32,
}

/// The resource that bounds how many CTAs fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Limiter {
    /// The register file.
    Registers,
    /// Shared memory.
    SharedMemory,
    /// Warp slots.
    Warps,
    /// CTA slots.
    CtaSlots,
}

impl Limiter {
    /// Every limiter.
    pub const ALL: [Limiter; 4] = [
        Limiter::Registers,
        Limiter::SharedMemory,
        Limiter::Warps,
        Limiter::CtaSlots,
    ];
}

impl fmt::Display for Limiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limiter::Registers => "registers",
            Limiter::SharedMemory => "shared memory",
            Limiter::Warps => "warps",
            Limiter::CtaSlots => "CTA slots",
        })
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
/// CTAs per SM by each limit, and what they give.
pub struct Occupancy {
    /// Warps per CTA.
    pub warps_per_cta: u32,
    /// Registers allocated to each warp of the CTA at launch.
    pub regs_per_warp: u32,
    /// Registers a CTA is allocated.
    pub regs_per_cta: u32,
    /// The roles' register budgets summed over the CTA's warps (each warp rounded up to
    /// the allocation unit); equal to `regs_per_cta` without `maxnreg=`.
    pub role_regs_per_cta: u32,
    /// Shared memory allocated to each CTA, the reserved part included, bytes.
    pub smem_per_cta: u32,
    /// CTAs the register file holds.
    pub ctas_by_regs: u32,
    /// CTAs shared memory holds.
    pub ctas_by_smem: u32,
    /// CTAs the warp slots hold.
    pub ctas_by_warps: u32,
    /// CTAs the CTA slots hold.
    pub ctas_by_slots: u32,
    /// CTAs per SM: the least of the four.
    pub ctas_per_sm: u32,
    /// The resource that binds; on a tie, the first of registers, shared memory, warps,
    /// CTA slots.
    pub limiter: Limiter,
    /// Every resource that allows exactly `ctas_per_sm` CTAs.
    pub limiters: Vec<Limiter>,
    /// Warps resident with `ctas_per_sm` CTAs.
    pub active_warps: u32,
    /// Warps an SM can hold.
    pub max_warps: u32,
    /// `active_warps / max_warps`.
    pub occupancy: f64,
}

impl Occupancy {
    /// CTAs per SM by limiter `l`.
    pub fn limit(&self, l: Limiter) -> u32 {
        match l {
            Limiter::Registers => self.ctas_by_regs,
            Limiter::SharedMemory => self.ctas_by_smem,
            Limiter::Warps => self.ctas_by_warps,
            Limiter::CtaSlots => self.ctas_by_slots,
        }
    }
}

fn round_up(v: u64, unit: u32) -> u64 {
    if unit == 0 {
        v
    } else {
        v.div_ceil(unit as u64) * unit as u64
    }
}

fn clamp(v: u64) -> u32 {
    v.min(u32::MAX as u64) as u32
}

/// CTAs of `k` that fit on one SM with limits `l`.
pub fn occupancy(k: &Kernel, l: &SmLimits) -> Occupancy {
    let warps = k.warps();
    let max_warps = l.max_warps_per_sm.min(l.max_threads_per_sm / 32);

    // Registers.
    let per_warp = |regs: u32| round_up(regs as u64 * 32, l.reg_alloc_unit);
    let launch_per_warp = per_warp(k.launch.regs);
    // A CTA has at most 32 warps; a bigger one cannot launch (0 CTAs by warps), so its
    // register figures only need to be finite.
    let role_total: u64 = (0..warps.min(32))
        .map(|w| {
            let regs = k
                .role_of(w)
                .and_then(|r| k.roles[r].maxnreg)
                .unwrap_or(k.launch.regs);
            per_warp(regs)
        })
        .sum();
    let spread = if warps == 0 {
        0
    } else {
        round_up(role_total.div_ceil(warps.min(32) as u64), l.reg_alloc_unit)
    };
    let regs_per_warp = launch_per_warp.max(spread);
    let regs_per_cta = regs_per_warp * warps as u64;
    let parts = l.reg_file_partitions.max(1) as u64;
    let fits = warps > 0
        && k.launch.regs <= l.max_regs_per_thread
        && regs_per_cta <= l.regs_per_sm as u64
        // The hardware check assumes the CTA's warps spread over all partitions.
        && regs_per_warp * round_up(warps as u64, parts as u32) <= l.regs_per_sm as u64;
    let ctas_by_regs = if !fits {
        0
    } else {
        match (l.regs_per_sm as u64 / parts).checked_div(regs_per_warp) {
            Some(warps_per_part) => clamp(warps_per_part * parts / warps as u64),
            None => u32::MAX,
        }
    };

    // Shared memory.
    let smem_per_cta = round_up(
        k.launch.smem as u64 + l.smem_reserved_per_cta as u64,
        l.smem_alloc_unit,
    );
    let ctas_by_smem = if k.launch.smem > l.max_smem_per_block {
        0
    } else {
        (l.smem_per_sm as u64)
            .checked_div(smem_per_cta)
            .map_or(u32::MAX, clamp)
    };

    // Warps and slots.
    let ctas_by_warps = if warps == 0 || k.launch.cta_threads > 1024 {
        0
    } else {
        max_warps / warps
    };
    let ctas_by_slots = l.max_ctas_per_sm;

    let ctas_per_sm = ctas_by_regs
        .min(ctas_by_smem)
        .min(ctas_by_warps)
        .min(ctas_by_slots);
    let mut o = Occupancy {
        warps_per_cta: warps,
        regs_per_warp: clamp(regs_per_warp),
        regs_per_cta: clamp(regs_per_cta),
        role_regs_per_cta: clamp(role_total),
        smem_per_cta: clamp(smem_per_cta),
        ctas_by_regs,
        ctas_by_smem,
        ctas_by_warps,
        ctas_by_slots,
        ctas_per_sm,
        limiter: Limiter::Registers,
        limiters: Vec::new(),
        active_warps: ctas_per_sm.saturating_mul(warps),
        max_warps,
        occupancy: 0.0,
    };
    o.limiters = Limiter::ALL
        .into_iter()
        .filter(|&x| o.limit(x) == ctas_per_sm)
        .collect();
    o.limiter = o.limiters[0];
    o.occupancy = if max_warps == 0 {
        0.0
    } else {
        o.active_warps as f64 / max_warps as f64
    };
    o
}
