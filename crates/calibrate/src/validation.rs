//! Simulated twins of the validation kernels (never used by the fit).
//!
//! latency-hiding (`kernels/validation.cu`, `vh_chase_<level>_k<K>`): the twin's loop is
//! the timed loop of the committed SASS, instruction for instruction: the two register
//! moves that rebuild the address, the load, the uniform loop counter (a `NOP`: the
//! engine has no uniform datapath, the instruction still takes an issue slot), the 64-bit
//! pointer increments, the wrap compare, the SELs, the K FFMAs, the back branch. The load's
//! destination is not the FFMAs' register, so the next load issues as soon as the chain
//! has issued (in-order issue is all that orders them).
//!
//! Before the timed loop the twin loads each thread's 8 lines through L2 and waits for
//! them (the real kernel's lines are warm in L2 from a previous launch; the simulator
//! starts cold), then `BAR.SYNC` as the kernel does before its first clock read. The value
//! is (span with ITERS - span with 0 iterations) / ITERS.

use sim_core::{Profile, RunResult};

use crate::twins::{sim_text, span};

pub const VALIDATION_SASS: &str = include_str!("../data/validation/h100-20261122T082052Z.sass.txt");

/// One validation configuration.
#[derive(Clone, Debug)]
pub struct VCase {
    pub bench: String,
    pub l1: bool,
    pub k: u32,
    pub warps: u32,
    pub iters: u32,
}

/// The timed loop of a SASS function: from the back branch's target to the branch.
pub fn sass_timed_loop(func: &str) -> Result<Vec<String>, String> {
    let mut lines: Vec<(u64, String)> = Vec::new();
    let mut inside = false;
    for line in VALIDATION_SASS.lines() {
        if line.contains("Function : ") {
            inside = line.trim().ends_with(&format!("Function : {func}"));
            continue;
        }
        if !inside {
            continue;
        }
        let (Some(a), Some(b)) = (line.find("/*"), line.find("*/")) else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(line[a + 2..b].trim(), 16) else {
            continue;
        };
        let Some(end) = line.rfind(';') else { continue };
        lines.push((addr, line[b + 2..end].trim().to_string()));
    }
    let (bi, target) = lines
        .iter()
        .enumerate()
        .find_map(|(i, (addr, ins))| {
            let t = ins.split("BRA ").nth(1)?.trim();
            let t = u64::from_str_radix(t.trim_start_matches("0x"), 16).ok()?;
            (ins.starts_with('@') && t < *addr).then_some((i, t))
        })
        .ok_or_else(|| format!("{func}: no backward branch in the SASS"))?;
    let start = lines
        .iter()
        .position(|(a, _)| *a == target)
        .ok_or("branch target not found")?;
    Ok(lines[start..=bi].iter().map(|(_, s)| s.clone()).collect())
}

/// One SASS instruction in the twin's text format.
fn translate(ins: &str) -> String {
    let mut s = ins.replace(".reuse", "");
    if s.starts_with("LDG") {
        let dst = s
            .split_whitespace()
            .nth(1)
            .unwrap_or("R10,")
            .trim_end_matches(',')
            .to_string();
        let op = if s.contains("STRONG.GPU") {
            "LDG.E.CG"
        } else {
            "LDG.E"
        };
        return format!("{op} {dst}, P[((warp * 32 + lane) * LINES + i % LINES) * 128]");
    }
    if s.starts_with('U') {
        return format!("NOP  # {s}");
    }
    if let Some(p) = s.find(" BRA ") {
        s.truncate(p + 4);
        return s;
    }
    // uniform registers: one vector register stands for them
    for u in ["UR4", "UR5", "UR6", "UR7"] {
        s = s.replace(u, "R30");
    }
    s
}

/// The twin's kernel text for a configuration.
pub fn twin_text(c: &VCase, iters: u32) -> Result<String, String> {
    let func = format!("vh_chase_{}_k{}", if c.l1 { "l1" } else { "l2" }, c.k);
    let body = sass_timed_loop(&func)?;
    let mut s = format!(
        "# latency-hiding twin of {func} (SASS: data/validation/h100-20261122T082052Z.sass.txt)\nkernel {func}\nlaunch cta_threads={} regs=64 smem=0 grid=1\nbuffer P size={}\nparam LINES=8 ITERS={iters}\nrole chase warps=0..{}\n",
        c.warps * 32,
        c.warps as u64 * 32 * 8 * 128,
        c.warps - 1
    );
    // warm L2 with this thread's 8 lines (not L1), wait for them, then the barrier
    for j in 0..8 {
        s.push_str(&format!(
            "  LDG.E.CG R{}, P[((warp * 32 + lane) * LINES + {j}) * 128]\n",
            40 + j
        ));
    }
    for j in 0..4 {
        s.push_str(&format!(
            "  FADD R{}, R{}, R{}\n",
            50 + j,
            40 + 2 * j,
            41 + 2 * j
        ));
    }
    s.push_str("  BAR.SYNC 0\n");
    if iters > 0 {
        s.push_str("  loop i 0..ITERS\n");
        for ins in &body {
            s.push_str("    ");
            s.push_str(&translate(ins));
            s.push('\n');
        }
    }
    s.push_str("  EXIT\n");
    Ok(s)
}

/// Simulated cycles per iteration, and the full run (for warp states).
pub fn simulate(c: &VCase, p: &Profile) -> Result<(f64, RunResult), String> {
    let full = sim_text(&twin_text(c, c.iters)?, 0, p)?;
    let base = sim_text(&twin_text(c, 0)?, 0, p)?;
    Ok(((span(&full) - span(&base)) / c.iters as f64, full))
}

/// The configurations in a validation measurement file.
pub fn cases(m: &crate::Measurement) -> Vec<(VCase, f64)> {
    m.benchmarks
        .iter()
        .filter(|b| b.name.starts_with("val.latency_hiding."))
        .filter_map(|b| {
            let g = |k: &str| b.params.get(k).and_then(|v| v.as_i64());
            Some((
                VCase {
                    bench: b.name.clone(),
                    l1: g("L1")? == 1,
                    k: g("K")? as u32,
                    warps: g("WARPS")? as u32,
                    iters: g("ITERS")? as u32,
                },
                b.median,
            ))
        })
        .collect()
}

/// Nsight Compute's warp-state ratios for (kernel, warps): median over the launches.
pub fn ncu_ratios(csv: &str) -> Vec<(String, u32, String, f64)> {
    use std::collections::BTreeMap;
    let mut acc: BTreeMap<(String, u32, String), Vec<f64>> = BTreeMap::new();
    for line in csv.lines() {
        if !line.starts_with('"') || line.starts_with("\"ID\"") {
            continue;
        }
        let f: Vec<&str> = line.split("\",\"").map(|x| x.trim_matches('"')).collect();
        if f.len() < 15 {
            continue;
        }
        let kernel = f[4].to_string();
        let warps = f[7]
            .trim_start_matches('(')
            .split(',')
            .next()
            .and_then(|x| x.trim().parse::<u32>().ok())
            .unwrap_or(0)
            / 32;
        let metric = f[12];
        let Some(reason) = metric
            .strip_prefix("smsp__average_warps_issue_stalled_")
            .and_then(|r| r.strip_suffix("_per_issue_active.ratio"))
        else {
            continue;
        };
        let Ok(v) = f[14].replace(',', "").parse::<f64>() else {
            continue;
        };
        acc.entry((kernel, warps, reason.to_string()))
            .or_default()
            .push(v);
    }
    acc.into_iter()
        .map(|((k, w, r), v)| (k, w, r, crate::schema::median(&v).unwrap_or(0.0)))
        .collect()
}
