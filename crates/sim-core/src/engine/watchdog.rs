//! A watchdog sized to the kernel: enough cycles for every instruction a warp runs to
//! wait the worst latency the profile has, many times over, so that a run which passes
//! it is stuck (a livelock) rather than long.

use super::*;

/// How many times over the bound the watchdog allows: contention (bandwidth, a shared
/// pipe, other CTAs' warps) can make an instruction wait longer than one worst latency.
const WATCHDOG_MARGIN: u64 = 64;

/// The fewest cycles the watchdog allows, for tiny kernels.
const WATCHDOG_FLOOR: u64 = 1_000_000;

/// A watchdog (`RunConfig::max_cycles`) sized to the kernel on this profile: the
/// dynamic instructions of its longest-running warp, each taking the profile's worst
/// latency (an HBM load from the far side through TMA, behind a GPU-scope fence, an
/// MMA's and a barrier's), for every wave of the CTAs the SM runs, times a margin of
/// 64, and at least a million cycles. Loop trip counts are those of each role's first
/// warp in CTA 0 (a count its expressions cannot give counts once).
///
/// ```
/// let k = isa::parse_kernel(
///     "kernel k\nlaunch cta_threads=32 regs=32 grid=1\nrole main warps=0..0\n  loop i 0..100000\n    FFMA R1, R1, R2, 0.5\n  EXIT\n",
/// )
/// .unwrap();
/// let p = sim_core::Profile::builtin("h100").unwrap();
/// let w = sim_core::watchdog_cycles(&k, &p, None).unwrap();
/// let r = sim_core::run(&k, &p, &sim_core::RunConfig { max_cycles: w, ..Default::default() }).unwrap();
/// assert!(r.cycles * 64 <= w);
/// ```
pub fn watchdog_cycles(
    kernel: &Kernel,
    profile: &Profile,
    max_ctas: Option<u32>,
) -> Result<u64, SimError> {
    let t = &profile.t;
    let prog = lower::lower(kernel, 2, 1, 0)
        .map_err(|e| SimError::Invalid(format!("line {}:{}: {}", e.line, e.col, e.message)))?;
    let per_warp = prog
        .roles
        .iter()
        .map(|r| dynamic_instructions(&r.code, r.first_warp))
        .max()
        .unwrap_or(0);
    let occ = isa::occupancy::occupancy(kernel, &profile.limits());
    let mut ctas = kernel
        .launch
        .grid
        .max(1)
        .div_ceil((t.sm_count as u32).max(1));
    if let Some(m) = max_ctas {
        ctas = ctas.min(m.max(1));
    }
    let waves = u64::from(ctas.div_ceil(occ.ctas_per_sm.max(1)));
    let worst = [
        t.lat_hbm + t.lat_hbm_far_extra + t.lat_hbm_tma_extra + t.tma_extra_latency,
        t.lat_membar_gpu,
        t.hgmma_latency,
        t.utcmma_latency_smem_a,
        t.lat_bar + t.lat_mbarrier_wake,
    ]
    .iter()
    .map(|&x| x.max(0.0) as u64)
    .sum::<u64>()
        + 1;
    Ok(per_warp
        .saturating_mul(worst)
        .saturating_mul(waves)
        .saturating_mul(WATCHDOG_MARGIN)
        .clamp(WATCHDOG_FLOOR, NEVER - 1))
}

/// The instructions a warp (the role's `warp`, in CTA 0) issues through `code`: each
/// loop's body times its trip count, an `if`'s body counted as taken.
fn dynamic_instructions(code: &[Node], warp: u32) -> u64 {
    let mut vars = [0i64; MAX_LOOP_DEPTH];
    // Per open loop: its multiplier before it, and its trip count.
    let mut mult = 1u64;
    let mut stack: Vec<u64> = Vec::new();
    let mut total = 0u64;
    for node in code {
        match node {
            Node::Instr(_) => total = total.saturating_add(mult),
            Node::LoopHead {
                slot, start, end, ..
            } => {
                let env = Env {
                    vars: &vars,
                    warp: i64::from(warp),
                    lane: 0,
                    cta: 0,
                };
                let (a, b) = (start.eval(&env), end.eval(&env));
                let trips = match (a, b) {
                    (Ok(a), Ok(b)) => {
                        vars[*slot as usize % MAX_LOOP_DEPTH] = a;
                        (b.saturating_sub(a)).max(0) as u64
                    }
                    _ => 1,
                };
                stack.push(mult);
                mult = mult.saturating_mul(trips);
            }
            Node::LoopTail { .. } => mult = stack.pop().unwrap_or(1),
            Node::If { .. } | Node::End => {}
        }
    }
    total
}
