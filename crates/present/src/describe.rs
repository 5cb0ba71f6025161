//! A kernel described for a reader: its launch, parameters, roles with their loops,
//! memory and barriers, and the occupancy its resources allow on a profile's SM (what
//! `smsim check` prints, as text or JSON).

use std::fmt::Write as _;

use isa::ast::{Kernel, Role, Stmt};
use isa::expr::Expr;
use isa::occupancy::{Limiter, Occupancy, SmLimits, occupancy};
use serde::Serialize;

use crate::units::{bytes, plural, si};

/// A valid kernel described: what `smsim check --json` prints.
#[derive(Serialize)]
pub struct Description {
    /// Always true: the kernel validated (a failed check prints its errors instead).
    pub ok: bool,
    /// The kernel file as the user named it.
    pub file: String,
    /// The kernel's name (`kernel NAME`).
    pub kernel: String,
    /// The launch line.
    pub launch: LaunchInfo,
    /// Each parameter with its value after `--param` overrides.
    pub params: Vec<(String, i64)>,
    /// The warp roles, in declaration order.
    pub roles: Vec<RoleInfo>,
    /// The global buffers.
    pub buffers: Vec<BufferInfo>,
    /// The shared-memory regions, laid out in order.
    pub shared: Vec<SharedInfo>,
    /// The mbarrier declarations.
    pub mbarriers: Vec<isa::ast::MbarrierDecl>,
    /// The named barriers.
    pub named_barriers: Vec<isa::ast::NamedBarrierDecl>,
    /// The predicates declared with `pred P = EXPR`, each with its truth as written.
    pub preds: Vec<PredInfo>,
    /// The declared work per CTA, if any (`work flops=` / `bytes=`).
    pub work: Option<WorkInfo>,
    /// The profile whose SM limits the occupancy is computed for.
    pub profile: String,
    /// That SM's limits.
    pub limits: SmLimits,
    /// CTAs per SM by each resource, and what binds.
    pub occupancy: Occupancy,
}

/// The kernel's launch configuration.
#[derive(Serialize)]
pub struct LaunchInfo {
    /// Threads per CTA.
    pub cta_threads: u32,
    /// Warps per CTA (threads rounded up to whole warps).
    pub warps: u32,
    /// Registers per thread (`regs=`).
    pub regs: u32,
    /// Shared memory per CTA, bytes (`smem=`).
    pub smem: u32,
    /// CTAs in the grid.
    pub grid: u32,
    /// CTAs per cluster (1 without clusters).
    pub cluster: u32,
    /// Tensor-memory columns allocated per CTA (0 without).
    pub tmem_cols: u32,
}

/// One warp role.
#[derive(Serialize)]
pub struct RoleInfo {
    /// The role's name.
    pub name: String,
    /// Its first warp in the CTA.
    pub first_warp: u32,
    /// Its last warp (inclusive).
    pub last_warp: u32,
    /// Warps it owns.
    pub warps: u32,
    /// Threads it owns (its last warp may be partial).
    pub threads: u32,
    /// Registers per thread: maxnreg= or the launch's regs.
    pub regs: u32,
    /// The role's `maxnreg=` budget, if it declares one.
    pub maxnreg: Option<u32>,
    /// Instructions in its text (each counted once, loops not unrolled).
    pub static_instrs: usize,
    /// Loop nests, e.g. `k 0..KT (64)`.
    pub loops: Vec<LoopInfo>,
}

/// One loop of a role.
#[derive(Serialize)]
pub struct LoopInfo {
    /// The loop variable.
    pub var: String,
    /// Its range as written: `0..KT`.
    pub range: String,
    /// Trips, when they do not depend on an enclosing loop.
    pub trips: Option<i64>,
    /// Loops around it (0 for an outermost loop).
    pub depth: usize,
}

/// One global buffer.
#[derive(Serialize)]
pub struct BufferInfo {
    /// Its name.
    pub name: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its first `warm` bytes start the run in L2 (`warm=`; 0 when not written).
    pub warm: u64,
}

/// One declared predicate: `pred P0 = EXPR`.
#[derive(Serialize)]
pub struct PredInfo {
    /// The predicate register, `P0`..`P6` or `UP0`..`UP6`.
    pub pred: String,
    /// Its truth as written (non-zero is true), evaluated per warp and iteration.
    pub truth: String,
}

/// One shared-memory region.
#[derive(Serialize)]
pub struct SharedInfo {
    /// Its name.
    pub name: String,
    /// Its size in bytes.
    pub bytes: u32,
    /// Where it starts in the CTA's shared memory (regions are laid out in order).
    pub offset: u32,
}

/// The work a CTA declares, for TFLOP/s and GB/s.
#[derive(Serialize)]
pub struct WorkInfo {
    /// `flops=` as written.
    pub flops_expr: Option<String>,
    /// Its value under the parameters, where it evaluates.
    pub flops: Option<i64>,
    /// `bytes=` as written.
    pub bytes_expr: Option<String>,
    /// Its value under the parameters, where it evaluates.
    pub bytes: Option<i64>,
}

fn count_instrs(body: &[Stmt]) -> usize {
    body.iter()
        .map(|s| match s {
            Stmt::Instr(_) => 1,
            Stmt::Loop { body, .. } | Stmt::If { body, .. } => count_instrs(body),
        })
        .sum()
}

fn loops(k: &Kernel, body: &[Stmt], depth: usize, out: &mut Vec<LoopInfo>) {
    let value = |e: &Expr| e.eval(&|n| k.param(n)).ok();
    for s in body {
        match s {
            Stmt::Instr(_) => {}
            Stmt::Loop {
                var,
                start,
                end,
                body,
                ..
            } => {
                let trips = match (value(start), value(end)) {
                    (Some(a), Some(b)) => Some((b - a).max(0)),
                    _ => None,
                };
                out.push(LoopInfo {
                    var: var.clone(),
                    range: format!("{start}..{end}"),
                    trips,
                    depth,
                });
                loops(k, body, depth + 1, out);
            }
            Stmt::If { body, .. } => loops(k, body, depth, out),
        }
    }
}

fn role_info(k: &Kernel, r: &Role) -> RoleInfo {
    let mut l = Vec::new();
    loops(k, &r.body, 0, &mut l);
    let cta = k.launch.cta_threads;
    RoleInfo {
        name: r.name.clone(),
        first_warp: r.first_warp,
        last_warp: r.last_warp,
        warps: r.warp_count(),
        threads: ((r.last_warp + 1) * 32)
            .min(cta)
            .saturating_sub(r.first_warp * 32),
        regs: r.maxnreg.unwrap_or(k.launch.regs),
        maxnreg: r.maxnreg,
        static_instrs: count_instrs(&r.body),
        loops: l,
    }
}

/// Describes `kernel`, read from `file` (as the user named it), with its occupancy
/// under `limits` (the SM of the profile called `profile`).
pub fn describe(kernel: &Kernel, file: &str, profile: &str, limits: &SmLimits) -> Description {
    let k = kernel;
    let l = &k.launch;
    let value = |e: &Expr| e.eval(&|n| k.param(n)).ok();
    let mut offset = 0;
    let shared = k
        .shared
        .iter()
        .map(|s| {
            let info = SharedInfo {
                name: s.name.clone(),
                bytes: s.size,
                offset,
            };
            offset += s.size;
            info
        })
        .collect();
    Description {
        ok: true,
        file: file.to_string(),
        kernel: k.name.clone(),
        launch: LaunchInfo {
            cta_threads: l.cta_threads,
            warps: l.warps(),
            regs: l.regs,
            smem: l.smem,
            grid: l.grid,
            cluster: l.cluster,
            tmem_cols: l.tmem_cols,
        },
        params: k
            .params
            .iter()
            .map(|p| (p.name.clone(), p.default))
            .collect(),
        roles: k.roles.iter().map(|r| role_info(k, r)).collect(),
        buffers: k
            .buffers
            .iter()
            .map(|b| BufferInfo {
                name: b.name.clone(),
                bytes: b.size,
                warm: b.warm,
            })
            .collect(),
        shared,
        mbarriers: k.mbarriers.clone(),
        named_barriers: k.named_barriers.clone(),
        preds: k
            .preds
            .iter()
            .map(|p| PredInfo {
                pred: p.pred.to_string(),
                truth: p.truth.to_string(),
            })
            .collect(),
        work: k.work.as_ref().map(|w| WorkInfo {
            flops_expr: w.flops.as_ref().map(|e| e.to_string()),
            flops: w.flops.as_ref().and_then(value),
            bytes_expr: w.bytes.as_ref().map(|e| e.to_string()),
            bytes: w.bytes.as_ref().and_then(value),
        }),
        profile: profile.to_string(),
        limits: limits.clone(),
        occupancy: occupancy(k, limits),
    }
}

fn ctas(n: u32) -> String {
    if n == u32::MAX {
        "unlimited".to_string()
    } else {
        format!("{n} CTA{}", if n == 1 { "" } else { "s" })
    }
}

/// The description as `smsim check` prints it.
pub fn render(d: &Description) -> String {
    let mut s = String::new();
    let l = &d.launch;
    let _ = writeln!(s, "kernel {}  ({})", d.kernel, d.file);
    let _ = writeln!(
        s,
        "  launch   {} threads ({}) x {}, {} registers/thread, {} shared memory{}{}",
        l.cta_threads,
        plural(l.warps as u64, "warp"),
        plural(l.grid as u64, "CTA"),
        l.regs,
        bytes(l.smem as u64),
        if l.cluster > 1 {
            format!(", clusters of {}", l.cluster)
        } else {
            String::new()
        },
        if l.tmem_cols > 0 {
            format!(", {} tensor-memory columns", l.tmem_cols)
        } else {
            String::new()
        }
    );
    if !d.params.is_empty() {
        let p: Vec<String> = d.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = writeln!(s, "  params   {}", p.join(" "));
    }
    if let Some(w) = &d.work {
        let mut parts = Vec::new();
        if let Some(e) = &w.flops_expr {
            parts.push(match w.flops {
                Some(v) => format!("{}FLOP ({e})", si(v)),
                None => format!("flops = {e}"),
            });
        }
        if let Some(e) = &w.bytes_expr {
            parts.push(match w.bytes {
                Some(v) => format!("{} ({e})", bytes(v.max(0) as u64)),
                None => format!("bytes = {e}"),
            });
        }
        let _ = writeln!(s, "  work     per CTA: {}", parts.join(", "));
    }

    let _ = writeln!(s, "\nroles");
    let name_w = d
        .roles
        .iter()
        .map(|r| r.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        s,
        "  {:<name_w$}  {:<7}  {:>7}  {:>14}  {:>6}  loops",
        "role", "warps", "threads", "registers", "instrs"
    );
    for r in &d.roles {
        let warps = if r.first_warp == r.last_warp {
            r.first_warp.to_string()
        } else {
            format!("{}..{}", r.first_warp, r.last_warp)
        };
        let regs = match r.maxnreg {
            Some(m) => format!("{m} (maxnreg)"),
            None => r.regs.to_string(),
        };
        let loops: Vec<String> = r
            .loops
            .iter()
            .map(|lp| {
                let indent = "> ".repeat(lp.depth);
                match lp.trips {
                    Some(t) => format!("{indent}{} {} ({t})", lp.var, lp.range),
                    None => format!("{indent}{} {}", lp.var, lp.range),
                }
            })
            .collect();
        let _ = writeln!(
            s,
            "  {:<name_w$}  {:<7}  {:>7}  {:>14}  {:>6}  {}",
            r.name,
            warps,
            r.threads,
            regs,
            r.static_instrs,
            if loops.is_empty() {
                "-".to_string()
            } else {
                loops.join(", ")
            }
        );
    }

    let any_memory = !(d.buffers.is_empty()
        && d.shared.is_empty()
        && d.mbarriers.is_empty()
        && d.named_barriers.is_empty()
        && d.preds.is_empty());
    if any_memory {
        let _ = writeln!(s, "\nmemory and barriers");
        for b in &d.buffers {
            let warm = match b.warm {
                0 => String::new(),
                w if w >= b.bytes => ", warm in L2".to_string(),
                w => format!(", first {} warm in L2", bytes(w)),
            };
            let _ = writeln!(s, "  buffer    {:<10}  {}{warm}", b.name, bytes(b.bytes));
        }
        for sh in &d.shared {
            let _ = writeln!(
                s,
                "  shared    {:<10}  {} at offset {}",
                sh.name,
                bytes(sh.bytes as u64),
                sh.offset
            );
        }
        for m in &d.mbarriers {
            let name = if m.len == 1 {
                m.name.clone()
            } else {
                format!("{}[{}]", m.name, m.len)
            };
            let _ = writeln!(
                s,
                "  mbarrier  {:<10}  {} arrival{} per phase",
                name,
                m.count,
                if m.count == 1 { "" } else { "s" }
            );
        }
        for b in &d.named_barriers {
            let _ = writeln!(
                s,
                "  barrier   {:<10}  id {}, {} threads",
                b.name, b.id, b.threads
            );
        }
        for p in &d.preds {
            let _ = writeln!(
                s,
                "  pred      {:<10}  = {} (true where non-zero)",
                p.pred, p.truth
            );
        }
    }

    let o = &d.occupancy;
    let lim = &d.limits;
    let _ = writeln!(
        s,
        "\noccupancy on {} (CUDA occupancy calculator rules)",
        d.profile
    );
    let regs_detail = if o.role_regs_per_cta != o.regs_per_cta
        || d.roles.iter().any(|r| r.maxnreg.is_some())
    {
        format!(
            "{}/warp x {} warps = {} of {} (roles' maxnreg total {})",
            o.regs_per_warp, o.warps_per_cta, o.regs_per_cta, lim.regs_per_sm, o.role_regs_per_cta
        )
    } else {
        format!(
            "{} x 32 -> {}/warp (unit {}) x {} warps = {} of {}",
            l.regs,
            o.regs_per_warp,
            lim.reg_alloc_unit,
            o.warps_per_cta,
            o.regs_per_cta,
            lim.regs_per_sm
        )
    };
    let smem_detail = format!(
        "{} + {} reserved -> {} (unit {}) of {}",
        l.smem, lim.smem_reserved_per_cta, o.smem_per_cta, lim.smem_alloc_unit, lim.smem_per_sm
    );
    let warps_detail = format!(
        "{}/CTA of {}",
        plural(o.warps_per_cta as u64, "warp"),
        o.max_warps
    );
    let slots_detail = format!("{} CTAs/SM at most", lim.max_ctas_per_sm);
    let rows = [
        (Limiter::Registers, regs_detail),
        (Limiter::SharedMemory, smem_detail),
        (Limiter::Warps, warps_detail),
        (Limiter::CtaSlots, slots_detail),
    ];
    let detail_w = rows.iter().map(|(_, t)| t.len()).max().unwrap_or(0);
    for (limiter, detail) in &rows {
        let mark = if o.limiters.contains(limiter) {
            "  <- binds"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "  {:<14} {:<detail_w$}  {:>10}/SM{mark}",
            limiter.to_string(),
            detail,
            ctas(o.limit(*limiter))
        );
    }
    let binding: Vec<String> = o.limiters.iter().map(|x| x.to_string()).collect();
    let _ = writeln!(
        s,
        "  => {} per SM, limited by {}; {} active warps of {} ({:.1}% occupancy)",
        ctas(o.ctas_per_sm),
        binding.join(" and "),
        o.active_warps,
        o.max_warps,
        o.occupancy * 100.0
    );
    s
}
