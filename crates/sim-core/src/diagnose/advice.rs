//! Advice conditioned on what a run found. `smsim explain` says what a stall means in
//! general; this says what it means in this run: a wait on wgmma groups with the tensor
//! pipe saturated is the pipe's own time (no wait_group change helps), one with the
//! pipe idle half the time is a pipelining problem.
//!
//! The waits are read from their typed causes (`PcStats::waits_on`: a wait group, an
//! mbarrier phase, a named barrier), not from the state names: Nsight Compute names an
//! mbarrier try-wait `long_scoreboard` and a wgmma wait `barrier`, so a state alone
//! does not say what was waited on.

use isa::Pipe;
use isa::occupancy::Limiter;
use serde::Serialize;

use super::bounds::{BoundUnit, Bounds};
use crate::cause::{GroupKind, Waited};
use crate::result::{RoleStats, RunResult};
use crate::{Profile, WarpState};

/// A stall this large a share of a role's warp-cycles is worth advice.
const WORTH: f64 = 0.2;
/// A unit this busy is saturated: waiting on it is its own time.
const SATURATED: f64 = 0.9;

/// One piece of advice, with the figures it follows from.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Advice {
    /// A role waits on a unit that is saturated: the wait is the unit's own time, and
    /// only less work on it (or a faster unit) shortens the run.
    PipeSaturated {
        /// The waiting role.
        role: String,
        /// Its stall.
        state: WarpState,
        /// The stall's share of the role's warp-cycles.
        share: f64,
        /// The saturated unit.
        unit: BoundUnit,
        /// Its use against its peak.
        use_fraction: f64,
    },
    /// A role waits on its own warpgroup MMAs while the tensor pipe has room: keeping a
    /// group in flight (`WARPGROUP.DEPBAR.LE gsb0, 1`) overlaps the wait with the next.
    KeepMmaInFlight {
        /// The waiting role.
        role: String,
        /// Its waits on wgmma groups, as a share of its warp-cycles.
        share: f64,
        /// The tensor pipe's use.
        tensor_use: f64,
    },
    /// A consumer waits on full stages while the copies come from HBM: the pipeline's
    /// depth does not cover a copy's latency.
    MoreStages {
        /// The waiting role.
        role: String,
        /// Its mbarrier waits' share of warp-cycles.
        share: f64,
        /// A stage's copies from HBM, issue to landing, at their slowest (a far line in
        /// a slow window), from the profile.
        copy_latency_cycles: u64,
        /// The CTA's cycles per stage filled when its consumer does not wait (the
        /// consumer's warp-cycles outside mbarrier waits, over the CTA's stage fills).
        stage_cycles: u64,
        /// The stages the kernel has: the length of the mbarrier array waited on.
        stages_now: u64,
        /// Stages in flight that cover the latency: `ceil(latency / stage) + 1`, more
        /// than `stages_now`.
        stages: u64,
        /// Shared memory a CTA would need with `stages` (its own now, the stages'
        /// part scaled), bytes.
        smem_needed: u64,
        /// The most shared memory a CTA can have, bytes.
        smem_max: u64,
    },
    /// A role waits at a barrier for a partner that arrives later.
    SlowPartner {
        /// The waiting role.
        role: String,
        /// The barrier instruction it waits at most.
        instruction: String,
        /// Its named-barrier waits' share of warp-cycles.
        share: f64,
        /// The barrier's participant (CTA 0) that waits least: the one the others wait for.
        partner_role: String,
        /// That warp.
        partner_warp: u32,
        /// Its `barrier` share of its own cycles.
        partner_share: f64,
    },
    /// Registers limit the CTAs per SM below what the other resources allow while the
    /// warps wait on memory latency: more resident warps would hide it.
    RegisterLimited {
        /// CTAs per SM the registers allow.
        ctas_by_regs: u32,
        /// CTAs per SM the other resources allow.
        ctas_otherwise: u32,
        /// Registers per thread at most for one more CTA per SM.
        regs_for_one_more: u32,
        /// The global-memory stalls' share of all warp-cycles (`long_scoreboard`,
        /// `lg_throttle`).
        latency_share: f64,
    },
}

fn share(role: &RoleStats, s: WarpState) -> f64 {
    role.states.get(s) as f64 / role.states.total().max(1) as f64
}

/// Cycles of `role`'s stalls (any state) that waited on what `on` accepts, and the
/// state most of them were in.
fn waited(role: &RoleStats, on: impl Fn(&Waited) -> bool) -> (u64, Option<WarpState>) {
    let mut by_state = [0u64; crate::state::STATE_COUNT];
    for w in role.per_pc.iter().flat_map(|p| &p.waits_on) {
        if on(&w.on) {
            by_state[w.state.index()] += w.cycles;
        }
    }
    let state = WarpState::ALL
        .iter()
        .copied()
        .filter(|s| by_state[s.index()] > 0)
        .max_by_key(|s| by_state[s.index()]);
    (by_state.iter().sum(), state)
}

/// `cycles` as a share of `role`'s warp-cycles.
fn share_of(role: &RoleStats, cycles: u64) -> f64 {
    cycles as f64 / role.states.total().max(1) as f64
}

fn is_wgmma_wait(w: &Waited) -> bool {
    matches!(
        w,
        Waited::WaitGroup {
            group: GroupKind::Wgmma
        }
    )
}

fn is_mbarrier_wait(w: &Waited) -> bool {
    matches!(
        w,
        Waited::MbarrierArrivals { .. } | Waited::MbarrierCopies { .. }
    )
}

fn opcode(text: &str) -> &str {
    text.split_whitespace().next().unwrap_or("")
}

/// The advice for `r`, a run on `profile` with bounds `b`.
pub fn advice(r: &RunResult, kernel: &isa::Kernel, profile: &Profile, b: &Bounds) -> Vec<Advice> {
    let mut out = Vec::new();
    for role in &r.roles {
        mma_waits(role, b, &mut out);
        if let Some(a) = more_stages(r, kernel, role, profile, b) {
            out.push(a);
        }
        if let Some(a) = slow_partner(r, role) {
            out.push(a);
        }
    }
    if let Some(a) = register_limited(r, profile) {
        out.push(a);
    }
    out
}

/// Waits on wgmma groups and `math_pipe_throttle`: the pipe's own time when it is
/// saturated, else (for wgmma groups) MMA groups waited for too early.
fn mma_waits(role: &RoleStats, b: &Bounds, out: &mut Vec<Advice>) {
    let tensor = b.use_of(BoundUnit::Tensor);
    let (cycles, state) = waited(role, is_wgmma_wait);
    let gmma = share_of(role, cycles);
    if gmma >= WORTH {
        if tensor >= SATURATED {
            out.push(Advice::PipeSaturated {
                role: role.name.clone(),
                state: state.unwrap_or(WarpState::Gmma),
                share: gmma,
                unit: BoundUnit::Tensor,
                use_fraction: tensor,
            });
        } else {
            out.push(Advice::KeepMmaInFlight {
                role: role.name.clone(),
                share: gmma,
                tensor_use: tensor,
            });
        }
    }
    let throttle = share(role, WarpState::MathPipeThrottle);
    // The pipe the role's throttle waited on most (its typed causes), else the busiest.
    let mut on = [0u64; 5];
    let units = [
        BoundUnit::Tensor,
        BoundUnit::Fma,
        BoundUnit::Alu,
        BoundUnit::Fp64,
        BoundUnit::Mufu,
    ];
    for w in role.per_pc.iter().flat_map(|p| &p.waits_on) {
        if let (WarpState::MathPipeThrottle, Waited::Pipe { pipe }) = (w.state, &w.on) {
            let i = match pipe {
                Pipe::Tensor => 0,
                Pipe::Fma => 1,
                Pipe::Alu => 2,
                Pipe::Fp64 => 3,
                Pipe::Mufu => 4,
                _ => continue,
            };
            on[i] += w.cycles;
        }
    }
    let unit = match (0..5).max_by_key(|&i| on[i]) {
        Some(i) if on[i] > 0 => units[i],
        _ => units
            .into_iter()
            .max_by(|x, y| b.use_of(*x).total_cmp(&b.use_of(*y)))
            .expect("five pipes"),
    };
    if throttle >= WORTH && b.use_of(unit) >= SATURATED {
        out.push(Advice::PipeSaturated {
            role: role.name.clone(),
            state: WarpState::MathPipeThrottle,
            share: throttle,
            unit,
            use_fraction: b.use_of(unit),
        });
    }
}

/// A consumer waiting in mbarrier waits while TMA brings stages from HBM: how many
/// stages would cover a stage's latency. Not when HBM or TMA is saturated (more stages
/// then only queue), nor for the role that issues the copies (it waits for free stages).
fn more_stages(
    r: &RunResult,
    kernel: &isa::Kernel,
    role: &RoleStats,
    profile: &Profile,
    b: &Bounds,
) -> Option<Advice> {
    let t = &profile.t;
    let waiting = share_of(role, waited(role, is_mbarrier_wait).0);
    let is_load = |text: &str| {
        let op = opcode(text);
        op.starts_with("UTMALDG") || op.starts_with("UBLKCP")
    };
    if waiting < WORTH
        || role.per_pc.iter().any(|p| is_load(&p.instruction))
        || r.memory.requests_hbm == 0
        || b.use_of(BoundUnit::HbmBandwidth) >= SATURATED
        || b.use_of(BoundUnit::Tma) >= SATURATED
    {
        return None;
    }
    // The wait the role spends longest in, and the stages its mbarrier array holds.
    let mbarrier_cycles = |p: &crate::result::PcStats| -> u64 {
        p.waits_on
            .iter()
            .filter(|w| is_mbarrier_wait(&w.on))
            .map(|w| w.cycles)
            .sum()
    };
    let wait = role
        .per_pc
        .iter()
        .filter(|p| opcode(&p.instruction).starts_with("SYNCS.PHASECHK"))
        .max_by_key(|p| mbarrier_cycles(p))?;
    let array = wait
        .instruction
        .split_whitespace()
        .nth(1)?
        .split('[')
        .next()?;
    let stages_now = kernel.mbarriers.iter().find(|m| m.name == array)?.len as u64;
    let warps = role.warps_simulated.max(1) as u64;
    // The copies: how many per stage fill, and their bytes (from the TMA's booked
    // cycles, `tma_issue_cycles + bytes / tma_bytes_per_clk` each).
    let loads: Vec<u64> = r
        .roles
        .iter()
        .flat_map(|ro| ro.per_pc.iter())
        .filter(|p| is_load(&p.instruction))
        .map(|p| p.issued)
        .collect();
    let fills = loads.iter().copied().max()?;
    let copies: u64 = loads.iter().sum();
    let ctas = r.ctas_simulated.max(1) as u64;
    let fills_per_cta = fills / ctas;
    if fills_per_cta == 0 {
        return None;
    }
    let tma_cycles = r.unit("tma") * r.cycles as f64;
    let bytes = ((tma_cycles - copies as f64 * t.tma_issue_cycles) * t.tma_bytes_per_clk).max(0.0);
    let per_fill = copies as f64 / fills as f64;
    // The slowest copy, so that every one is covered: a far line, in a slow window.
    let latency = t.lat_hbm
        + t.lat_hbm_far_extra
        + t.hbm_tail_max
        + t.lat_hbm_tma_extra
        + t.tma_extra_latency
        + per_fill * t.tma_issue_cycles
        + bytes / fills as f64 / t.tma_bytes_per_clk;
    let lifetime = role.states.total() / warps;
    let own = lifetime.saturating_sub(waited(role, is_mbarrier_wait).0 / warps);
    let stage_cycles = (own / fills_per_cta).max(1);
    let stages = (latency / stage_cycles as f64).ceil() as u64 + 1;
    if stages <= stages_now {
        return None;
    }
    // (The shared memory is taken to be all stages: an upper bound on the growth.)
    let smem = kernel.launch.smem as u64;
    let smem_needed = smem.div_ceil(stages_now.max(1)) * stages;
    Some(Advice::MoreStages {
        role: role.name.clone(),
        share: waiting,
        copy_latency_cycles: latency.ceil() as u64,
        stage_cycles,
        stages_now,
        stages,
        smem_needed,
        smem_max: t.max_smem_per_block as u64,
    })
}

/// A role waiting at a barrier: its partner is the participant (a warp of CTA 0 whose
/// role issues a barrier instruction) that waits there least.
fn slow_partner(r: &RunResult, role: &RoleStats) -> Option<Advice> {
    let is_barrier = |w: &Waited| matches!(w, Waited::Barrier { .. });
    let waiting = share_of(role, waited(role, is_barrier).0);
    if waiting < WORTH {
        return None;
    }
    let at = role.per_pc.iter().max_by_key(|p| {
        p.waits_on
            .iter()
            .filter(|w| is_barrier(&w.on))
            .map(|w| w.cycles)
            .sum::<u64>()
    })?;
    let syncs = |name: &str| {
        r.role(name).is_some_and(|ro| {
            ro.per_pc
                .iter()
                .any(|p| opcode(&p.instruction).starts_with("BAR.") && p.issued > 0)
        })
    };
    let partner = r
        .warps
        .iter()
        .filter(|w| w.cta == 0 && syncs(&w.role))
        .map(|w| {
            let s = w.states.get(WarpState::Barrier) as f64 / w.states.total().max(1) as f64;
            (w, s)
        })
        .min_by(|x, y| x.1.total_cmp(&y.1))?;
    Some(Advice::SlowPartner {
        role: role.name.clone(),
        instruction: at.instruction.clone(),
        share: waiting,
        partner_role: partner.0.role.clone(),
        partner_warp: partner.0.warp,
        partner_share: partner.1,
    })
}

/// Registers binding occupancy below the other resources while warps wait on memory.
fn register_limited(r: &RunResult, profile: &Profile) -> Option<Advice> {
    let o = &r.occupancy;
    let otherwise = o.ctas_by_smem.min(o.ctas_by_warps).min(o.ctas_by_slots);
    let total = r.total_states();
    // (Not mbarrier waits, which Nsight Compute also names `long_scoreboard`: a
    // producer that waits for free stages waits by design.)
    let mbarrier: u64 = r
        .roles
        .iter()
        .flat_map(|ro| ro.per_pc.iter().flat_map(|p| &p.waits_on))
        .filter(|w| w.state == WarpState::LongScoreboard && is_mbarrier_wait(&w.on))
        .map(|w| w.cycles)
        .sum();
    let latency = (total.get(WarpState::LongScoreboard) + total.get(WarpState::LgThrottle))
        .saturating_sub(mbarrier) as f64
        / total.total().max(1) as f64;
    if o.limiter != Limiter::Registers || o.ctas_by_regs >= otherwise || latency < WORTH {
        return None;
    }
    let t = &profile.t;
    // Registers per thread at which one more CTA fits: the register file over the
    // warps, in whole allocation units per warp.
    let warps = (o.ctas_by_regs + 1) as f64 * o.warps_per_cta.max(1) as f64;
    let per_warp = (t.regs_per_sm / warps / t.reg_alloc_unit).floor() * t.reg_alloc_unit;
    Some(Advice::RegisterLimited {
        ctas_by_regs: o.ctas_by_regs,
        ctas_otherwise: otherwise,
        regs_for_one_more: (per_warp / 32.0) as u32,
        latency_share: latency,
    })
}
