//! Each unit's work in a run at its peak rate: a lower bound on the run's cycles that
//! no schedule of the same work beats, the binding unit, and the run's distance from it.
//!
//! The work is the run's own: the cycles each pipe was booked for, the issues of each
//! scheduler, the lines through L1TEX and the wavefronts through shared memory, the
//! bytes moved (HBM's within the run: write-backs owed at its end come after it). A pipe's booked cycles are spread over the four
//! sub-partitions for its bound (another warp-to-scheduler assignment could balance
//! them); the issue slots are counted per scheduler as the warps were placed.

use serde::Serialize;

use crate::{Profile, RunResult};

/// A unit whose peak rate bounds a run's cycles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BoundUnit {
    /// One warp-instruction per scheduler per cycle.
    IssueSlots,
    /// The FP32 multiply-add pipe.
    Fma,
    /// The integer and logic pipe.
    Alu,
    /// The double-precision pipe.
    Fp64,
    /// The special-function pipe.
    Mufu,
    /// The LSU path of global and local accesses: L1TEX takes `l1_lines_per_clk`
    /// lines a cycle.
    Lsu,
    /// The shared-memory crossbar behind the MIO queue: `smem_bytes_per_clk` for
    /// shared loads and stores (each wavefront of a bank conflict its own) and shuffles.
    SharedMemory,
    /// The SM's tensor cores (wgmma, tcgen05).
    Tensor,
    /// The tensor memory accelerator's copies.
    Tma,
    /// The SM's port to L2 and its share of the chip's L2 bandwidth.
    L2Bandwidth,
    /// The SM's share of the chip's sustained HBM bandwidth.
    HbmBandwidth,
}

impl BoundUnit {
    /// The unit's name for a reader.
    pub fn label(self) -> &'static str {
        match self {
            BoundUnit::IssueSlots => "issue slots",
            BoundUnit::Fma => "FMA pipe",
            BoundUnit::Alu => "ALU pipe",
            BoundUnit::Fp64 => "FP64 pipe",
            BoundUnit::Mufu => "MUFU pipe",
            BoundUnit::Lsu => "LSU (L1TEX lines)",
            BoundUnit::SharedMemory => "shared memory (MIO)",
            BoundUnit::Tensor => "tensor pipe",
            BoundUnit::Tma => "TMA",
            BoundUnit::L2Bandwidth => "L2 bandwidth",
            BoundUnit::HbmBandwidth => "HBM bandwidth",
        }
    }
}

/// One unit's bound on a run.
#[derive(Clone, Debug, Serialize)]
pub struct UnitBound {
    /// The unit.
    pub unit: BoundUnit,
    /// Cycles the run's work on this unit takes at its peak rate: no schedule of the
    /// same work finishes in fewer.
    pub lower_bound_cycles: u64,
    /// `lower_bound_cycles` over the run's cycles: the unit's use against its peak.
    /// Above 1 only for HBM, whose write-back may go on after the run (see `exceeds_run`).
    pub use_fraction: f64,
    /// The work needs more cycles than the run took: it cannot all have happened within
    /// the run (HBM write-back of stores that L2 still holds at the end).
    pub exceeds_run: bool,
}

/// Every unit's bound on a run, and the one that binds.
#[derive(Clone, Debug, Serialize)]
pub struct Bounds {
    /// The run's cycles on the simulated SM.
    pub cycles: u64,
    /// Every unit's bound, in [`BoundUnit`] order.
    pub units: Vec<UnitBound>,
    /// The unit with the largest bound within the run.
    pub binding: BoundUnit,
    /// The binding unit's bound: no schedule of this work runs in fewer cycles.
    pub lower_bound_cycles: u64,
    /// How far the run is above its bound: `cycles / lower_bound_cycles - 1` (0 when
    /// the bound is 0).
    pub above_bound: f64,
}

impl Bounds {
    /// The bound of `unit`.
    pub fn unit(&self, unit: BoundUnit) -> Option<&UnitBound> {
        self.units.iter().find(|u| u.unit == unit)
    }

    /// `unit`'s use against its peak (0 when absent).
    pub fn use_of(&self, unit: BoundUnit) -> f64 {
        self.unit(unit).map_or(0.0, |u| u.use_fraction)
    }
}

/// Cycles, rounded up, forgiving the float error of a busy share times the cycles.
fn whole(x: f64) -> u64 {
    (x - 1e-6).ceil().max(0.0) as u64
}

/// This SM's sustained share of the chip's HBM bandwidth, bytes per cycle, as the
/// memory model serves it: the chip's rate shared among the SMs the grid keeps busy,
/// at most one SM's own maximum and its L2 port.
pub fn hbm_bytes_per_clk(r: &RunResult, profile: &Profile) -> f64 {
    let t = &profile.t;
    let busy_sms = (r.grid as f64).min(t.sm_count).max(1.0);
    (t.hbm_bytes_per_clk_chip / busy_sms)
        .min(t.hbm_bytes_per_clk_sm_max)
        .min(t.l2_bytes_per_clk_sm_max)
}

/// This SM's sustained share of the chip's HBM bandwidth for TMA copies' lines, bytes
/// per cycle: `hbm_bytes_per_clk` with copies' own one-SM maximum
/// (`hbm_tma_bytes_per_clk_sm_max`) in place of loads'.
pub fn hbm_tma_bytes_per_clk(r: &RunResult, profile: &Profile) -> f64 {
    let t = &profile.t;
    let busy_sms = (r.grid as f64).min(t.sm_count).max(1.0);
    (t.hbm_bytes_per_clk_chip / busy_sms)
        .min(t.hbm_tma_bytes_per_clk_sm_max)
        .min(t.l2_bytes_per_clk_sm_max)
}

/// Every unit's bound on `r`, a run on `profile`.
pub fn bounds(r: &RunResult, profile: &Profile) -> Bounds {
    let c = r.cycles as f64;
    let mut units = Vec::new();
    let mut push = |unit: BoundUnit, lb: u64| {
        let use_fraction = if r.cycles == 0 { 0.0 } else { lb as f64 / c };
        units.push(UnitBound {
            unit,
            lower_bound_cycles: lb,
            use_fraction,
            exceeds_run: lb > r.cycles,
        });
    };
    // Each scheduler issues at most one warp-instruction a cycle.
    push(
        BoundUnit::IssueSlots,
        r.issued_per_subpartition.iter().copied().max().unwrap_or(0),
    );
    // A unit's busy share is its booked cycles over the run's (pipes: summed over the
    // four sub-partitions and divided by four), so share times cycles is its work.
    for (unit, name) in [
        (BoundUnit::Fma, "fma"),
        (BoundUnit::Alu, "alu"),
        (BoundUnit::Fp64, "fp64"),
        (BoundUnit::Mufu, "mufu"),
    ] {
        push(unit, whole(r.unit(name) * c));
    }
    // The memory paths' booked cycles, counted by the engine.
    push(BoundUnit::Lsu, whole(r.memory.l1tex_busy_cycles));
    push(BoundUnit::SharedMemory, whole(r.memory.shared_busy_cycles));
    for (unit, name) in [
        (BoundUnit::Tensor, "tensor"),
        (BoundUnit::Tma, "tma"),
        (BoundUnit::L2Bandwidth, "l2_bandwidth"),
    ] {
        push(unit, whole(r.unit(name) * c));
    }
    // Copies' lines and the rest (loads, write-backs) each at their own rate, as the
    // memory model books them on the SM's one share.
    let m = &r.memory;
    let tma = m.hbm_tma_bytes.min(m.hbm_bytes);
    push(
        BoundUnit::HbmBandwidth,
        whole(
            (m.hbm_bytes - tma) as f64 / hbm_bytes_per_clk(r, profile)
                + tma as f64 / hbm_tma_bytes_per_clk(r, profile),
        ),
    );
    // (A bound beyond the run is work that finished after it, not a bound on it.)
    let best = units
        .iter()
        .filter(|u| !u.exceeds_run)
        .max_by_key(|u| u.lower_bound_cycles)
        .expect("the issue slots' bound is within the run");
    let (binding, lower_bound_cycles) = (best.unit, best.lower_bound_cycles);
    let above_bound = if lower_bound_cycles == 0 {
        0.0
    } else {
        c / lower_bound_cycles as f64 - 1.0
    };
    Bounds {
        cycles: r.cycles,
        units,
        binding,
        lower_bound_cycles,
        above_bound,
    }
}
