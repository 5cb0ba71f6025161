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

pub const VALIDATION_SASS: &str = include_str!("../data/validation/h100-20261122T210256Z.sass.txt");

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
        "# latency-hiding twin of {func} (SASS: data/validation/h100-20261122T210256Z.sass.txt)\nkernel {func}\nlaunch cta_threads={} regs=64 smem=0 grid=1\nbuffer P size={}\nparam LINES=8 ITERS={iters}\nrole chase warps=0..{}\n",
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

/// Nsight Compute's warp-state ratios of the gemm kernels with PIPE 4 on one CTA:
/// (kernel, reason, median). The quick run profiled each configuration's warm-up and two
/// repetitions in the collector's order (PIPE 2 then 4; one CTA then 132), so the second
/// three launches of a kernel with a one-CTA grid are PIPE 4.
pub fn ncu_gemm_pipe4_cta1(csv: &str) -> Vec<(String, String, f64)> {
    use std::collections::BTreeMap;
    let mut ids: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut vals: BTreeMap<(u64, String), f64> = BTreeMap::new();
    for line in csv.lines() {
        if !line.starts_with('"') || line.starts_with("\"ID\"") {
            continue;
        }
        let f: Vec<&str> = line.split("\",\"").map(|x| x.trim_matches('"')).collect();
        if f.len() < 15 || !f[4].starts_with("vg_") || f[8] != "(1, 1, 1)" {
            continue;
        }
        let Ok(id) = f[0].parse::<u64>() else {
            continue;
        };
        let Some(reason) = f[12]
            .strip_prefix("smsp__average_warps_issue_stalled_")
            .and_then(|r| r.strip_suffix("_per_issue_active.ratio"))
        else {
            continue;
        };
        let Ok(v) = f[14].replace(',', "").parse::<f64>() else {
            continue;
        };
        let e = ids.entry(f[4].to_string()).or_default();
        if !e.contains(&id) {
            e.push(id);
        }
        vals.insert((id, reason.to_string()), v);
    }
    let mut out = Vec::new();
    for (kernel, mut launches) in ids {
        launches.sort_unstable();
        let pipe4: Vec<u64> = launches.iter().skip(3).take(3).copied().collect();
        let mut by: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for ((id, reason), v) in &vals {
            if pipe4.contains(id) {
                by.entry(reason.clone()).or_default().push(*v);
            }
        }
        for (reason, v) in by {
            out.push((
                kernel.clone(),
                reason,
                crate::schema::median(&v).unwrap_or(0.0),
            ));
        }
    }
    out
}

/// One gemm-mainloop validation configuration (`val.gemm_mainloop.*`).
#[derive(Clone, Debug)]
pub struct GemmCase {
    pub bench: String,
    pub schedule: String,
    /// The `_fenced` kernel variant (same SASS structure as the plain one).
    pub fenced: bool,
    pub pipe: i64,
    pub m: i64,
    pub n: i64,
    pub k: i64,
}

impl GemmCase {
    pub fn grid(&self) -> i64 {
        self.m / 128 * (self.n / 256)
    }

    /// `cta_1` or `grid_132`: the shape label of the benchmark's name.
    pub fn shape(&self) -> &str {
        self.bench.rsplit('.').next().unwrap_or("")
    }
}

/// The gemm configurations in a validation measurement file.
pub fn gemm_cases(m: &crate::Measurement) -> Vec<(GemmCase, f64)> {
    m.benchmarks
        .iter()
        .filter(|b| b.name.starts_with("val.gemm_mainloop."))
        .filter_map(|b| {
            let g = |k: &str| b.params.get(k).and_then(|v| v.as_i64());
            Some((
                GemmCase {
                    bench: b.name.clone(),
                    schedule: b.params.get("schedule")?.as_str()?.to_string(),
                    fenced: b.params.get("kernel_variant").and_then(|v| v.as_str())
                        == Some("fenced"),
                    pipe: g("PIPE")?,
                    m: g("M")?,
                    n: g("N")?,
                    k: g("K")?,
                },
                b.median,
            ))
        })
        .collect()
}

/// Whether ptxas serialized the schedule's wgmma in the committed SASS (see
/// data/validation/README.md): the wait_group 1 kernels.
pub fn gemm_serialized(schedule: &str) -> bool {
    matches!(schedule, "static-v2" | "ws-wait1")
}

/// The twin's kernel text: the `traces` generator's schedule with CLUSTER 1 and no
/// epilogue, as the CUDA kernel runs; where ptxas serialized the wgmma, every HGMMA is
/// its own group followed by `WARPGROUP.DEPBAR.LE gsb0, 0` (and the next one by a new
/// `WARPGROUP.ARRIVE`), and the wait_group 1 that ptxas turned into that same wait goes.
pub fn gemm_twin_text(c: &GemmCase) -> Result<String, String> {
    let params: Vec<(String, i64)> = [
        ("PIPE", c.pipe),
        ("K", c.k),
        ("M", c.m),
        ("N", c.n),
        ("CLUSTER", 1),
        ("EPILOGUE", 0),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), *v))
    .collect();
    let text = traces::generate("gemm-mainloop", &c.schedule, &params)?.to_string();
    if !gemm_serialized(&c.schedule) {
        return Ok(text);
    }
    let mut out = String::new();
    let mut after_hgmma = false;
    for line in text.lines() {
        let t = line.trim_start();
        let indent = &line[..line.len() - t.len()];
        if t.starts_with("WARPGROUP.DEPBAR.LE gsb0, 1") {
            continue;
        }
        if t.starts_with("HGMMA") {
            if after_hgmma {
                out.push_str(&format!("{indent}WARPGROUP.ARRIVE\n"));
            }
            let ins = if t.contains("gsb0") {
                t.to_string()
            } else {
                format!("{t}, gsb0")
            };
            out.push_str(&format!(
                "{indent}{ins}\n{indent}WARPGROUP.DEPBAR.LE gsb0, 0\n"
            ));
            after_hgmma = true;
            continue;
        }
        after_hgmma = false;
        out.push_str(line);
        out.push('\n');
    }
    Ok(out)
}

/// Simulated cycles (first warp start to last warp end on the simulated SM), and the run.
pub fn simulate_gemm(c: &GemmCase, p: &Profile) -> Result<(f64, RunResult), String> {
    let r = sim_text(&gemm_twin_text(c)?, 0, p)?;
    Ok((span(&r), r))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(schedule: &str) -> GemmCase {
        GemmCase {
            bench: format!("val.gemm_mainloop.{schedule}.pipe_4.cta_1"),
            schedule: schedule.into(),
            fenced: false,
            pipe: 4,
            m: 128,
            n: 256,
            k: 4096,
        }
    }

    #[test]
    fn serialized_twin_follows_the_sass() {
        let t = gemm_twin_text(&case("static-v2")).unwrap();
        // the SASS: ARRIVE, then four times HGMMA gsb0 + DEPBAR 0, an ARRIVE between
        assert_eq!(t.matches("HGMMA").count(), 4);
        assert_eq!(t.matches(", gsb0\n").count(), 4, "{t}");
        assert_eq!(t.matches("WARPGROUP.ARRIVE").count(), 4);
        assert!(!t.contains("DEPBAR.LE gsb0, 1"));
        isa::parse_kernel(&t).unwrap();
        // ws is not serialized: one group of four
        let w = gemm_twin_text(&case("ws")).unwrap();
        assert_eq!(w.matches(", gsb0\n").count(), 1);
        assert_eq!(w.matches("WARPGROUP.ARRIVE").count(), 1);
    }
}
