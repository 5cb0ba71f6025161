//! `smsim check FILE`: validate a kernel and describe it with its occupancy.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use isa::ast::{Kernel, Role, Stmt};
use isa::expr::Expr;
use isa::occupancy::{Limiter, Occupancy, SmLimits, occupancy};
use serde::Serialize;

use crate::kernel_file::{self, Loaded};

#[derive(clap::Args)]
pub struct Args {
    /// The kernel file (`.smk`).
    pub file: PathBuf,
    /// Override a parameter's default: `--param KT=512` (repeatable).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE", value_parser = kernel_file::parse_param)]
    pub params: Vec<(String, i64)>,
    /// The GPU profile whose SM limits the occupancy is computed for.
    #[arg(long, default_value = "h100")]
    pub profile: String,
    /// Print the description (or the errors) as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args) -> ExitCode {
    let limits = match crate::run::load_profile(&args.profile, &[]) {
        Ok(p) => p.limits(),
        Err(m) => {
            eprintln!("error: {m}");
            return ExitCode::from(2);
        }
    };
    match kernel_file::load(&args.file, &args.params) {
        Ok(loaded) => {
            let d = describe(&loaded, &args.profile, &limits);
            if args.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&d).expect("a description serializes")
                );
            } else {
                print!("{}", render(&d));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            if args.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&e.to_json()).expect("errors serialize")
                );
            } else {
                eprint!("{}", e.render());
            }
            ExitCode::FAILURE
        }
    }
}

#[derive(Serialize)]
pub struct Description {
    pub ok: bool,
    pub file: String,
    pub kernel: String,
    pub launch: LaunchInfo,
    pub params: Vec<(String, i64)>,
    pub roles: Vec<RoleInfo>,
    pub buffers: Vec<BufferInfo>,
    pub shared: Vec<SharedInfo>,
    pub mbarriers: Vec<isa::ast::MbarrierDecl>,
    pub named_barriers: Vec<isa::ast::NamedBarrierDecl>,
    pub work: Option<WorkInfo>,
    pub profile: String,
    pub limits: SmLimits,
    pub occupancy: Occupancy,
}

#[derive(Serialize)]
pub struct LaunchInfo {
    pub cta_threads: u32,
    pub warps: u32,
    pub regs: u32,
    pub smem: u32,
    pub grid: u32,
    pub cluster: u32,
    pub tmem_cols: u32,
}

#[derive(Serialize)]
pub struct RoleInfo {
    pub name: String,
    pub first_warp: u32,
    pub last_warp: u32,
    pub warps: u32,
    pub threads: u32,
    /// Registers per thread: maxnreg= or the launch's regs.
    pub regs: u32,
    pub maxnreg: Option<u32>,
    pub static_instrs: usize,
    /// Loop nests, e.g. `k 0..KT (64)`.
    pub loops: Vec<LoopInfo>,
}

#[derive(Serialize)]
pub struct LoopInfo {
    pub var: String,
    pub range: String,
    /// Trips, when they do not depend on an enclosing loop.
    pub trips: Option<i64>,
    pub depth: usize,
}

#[derive(Serialize)]
pub struct BufferInfo {
    pub name: String,
    pub bytes: u64,
}

#[derive(Serialize)]
pub struct SharedInfo {
    pub name: String,
    pub bytes: u32,
    pub offset: u32,
}

#[derive(Serialize)]
pub struct WorkInfo {
    pub flops_expr: Option<String>,
    pub flops: Option<i64>,
    pub bytes_expr: Option<String>,
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

pub fn describe(loaded: &Loaded, profile: &str, limits: &SmLimits) -> Description {
    let k = &loaded.kernel;
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
        file: loaded.path.clone(),
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
            })
            .collect(),
        shared,
        mbarriers: k.mbarriers.clone(),
        named_barriers: k.named_barriers.clone(),
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

/// Bytes in the largest binary unit that keeps them readable: `192 KiB`, `16.5 MiB`.
fn bytes(v: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (m, u) in UNITS {
        if v >= m {
            let x = v as f64 / m as f64;
            return if v.is_multiple_of(m) {
                format!("{} {u}", v / m)
            } else {
                format!("{x:.2} {u}")
            };
        }
    }
    format!("{v} B")
}

/// Large counts with SI prefixes: `4.29 G`.
fn si(v: i64) -> String {
    let a = v.unsigned_abs() as f64;
    let (d, p) = if a >= 1e12 {
        (1e12, " T")
    } else if a >= 1e9 {
        (1e9, " G")
    } else if a >= 1e6 {
        (1e6, " M")
    } else if a >= 1e3 {
        (1e3, " k")
    } else {
        return v.to_string();
    };
    format!("{:.2}{p}", v as f64 / d)
}

fn plural(n: u64, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

fn ctas(n: u32) -> String {
    if n == u32::MAX {
        "unlimited".to_string()
    } else {
        format!("{n} CTA{}", if n == 1 { "" } else { "s" })
    }
}

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
        && d.named_barriers.is_empty());
    if any_memory {
        let _ = writeln!(s, "\nmemory and barriers");
        for b in &d.buffers {
            let _ = writeln!(s, "  buffer    {:<10}  {}", b.name, bytes(b.bytes));
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
