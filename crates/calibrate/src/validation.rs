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

/// A SASS function's instructions of the committed dump: (address, text without `;`).
pub fn sass_function(func: &str) -> Vec<(u64, String)> {
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
    lines
}

/// The target of a branch instruction (`@P0 BRA 0x1e0`, `@P0 BRA.U.ANY 0x2180`).
fn branch_target(ins: &str) -> Option<u64> {
    let rest = ins.split(" BRA").nth(1)?;
    let t = rest.split_whitespace().last()?;
    u64::from_str_radix(t.trim_start_matches("0x"), 16).ok()
}

/// The timed loop of a SASS function: from the back branch's target to the branch.
pub fn sass_timed_loop(func: &str) -> Result<Vec<String>, String> {
    let lines = sass_function(func);
    let (bi, target) = lines
        .iter()
        .enumerate()
        .find_map(|(i, (addr, ins))| {
            let t = branch_target(ins)?;
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

/// The twin's synchronization structure: the `traces` generator's schedule with CLUSTER 1
/// and no epilogue, as the CUDA kernel runs; where ptxas serialized the wgmma, every HGMMA
/// is its own group followed by `WARPGROUP.DEPBAR.LE gsb0, 0` (and the next one by a new
/// `WARPGROUP.ARRIVE`), and the wait_group 1 that ptxas turned into that same wait goes.
/// [`gemm_twin_text`] fills its main loops with the SASS.
pub fn gemm_structure_text(c: &GemmCase) -> Result<String, String> {
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

/// The committed SASS function of a gemm case (`vg_ws_wait1_fenced`, ...).
pub fn gemm_sass_name(c: &GemmCase) -> String {
    format!(
        "vg_{}{}",
        c.schedule.replace('-', "_"),
        if c.fenced { "_fenced" } else { "" }
    )
}

/// The instructions whose semantics the engine models (synchronization, copies, MMAs):
/// in the twin they are the generator's instructions, in the SASS's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Anchor {
    TryWait,
    ExpectTx,
    Copy,
    WgArrive,
    Mma,
    WgWait,
    Bar,
    Release,
}

fn strip_guard(ins: &str) -> &str {
    match ins.strip_prefix('@') {
        Some(r) => r.split_once(' ').map(|x| x.1.trim_start()).unwrap_or(ins),
        None => ins,
    }
}

fn sass_anchor(ins: &str) -> Option<Anchor> {
    let s = strip_guard(ins);
    Some(if s.starts_with("SYNCS.PHASECHK") {
        Anchor::TryWait
    } else if s.starts_with("SYNCS.ARRIVE.TRANS64.A1T0") {
        Anchor::Release
    } else if s.starts_with("SYNCS.ARRIVE.TRANS64 ") {
        Anchor::ExpectTx
    } else if s.starts_with("UTMALDG") {
        Anchor::Copy
    } else if s.starts_with("WARPGROUP.ARRIVE") {
        Anchor::WgArrive
    } else if s.starts_with("HGMMA") {
        Anchor::Mma
    } else if s.starts_with("WARPGROUP.DEPBAR") {
        Anchor::WgWait
    } else if s.starts_with("BAR.SYNC") {
        Anchor::Bar
    } else {
        return None;
    })
}

fn twin_anchor(line: &str) -> Option<Anchor> {
    Some(if line.starts_with("SYNCS.PHASECHK") {
        Anchor::TryWait
    } else if line.starts_with("SYNCS.ARRIVE.TRANS64.EXPECT_TX") {
        Anchor::ExpectTx
    } else if line.starts_with("SYNCS.ARRIVE.TRANS64 ") {
        Anchor::Release
    } else if line.starts_with("UTMALDG") {
        Anchor::Copy
    } else if line.starts_with("WARPGROUP.ARRIVE") {
        Anchor::WgArrive
    } else if line.starts_with("HGMMA") {
        Anchor::Mma
    } else if line.starts_with("WARPGROUP.DEPBAR") {
        Anchor::WgWait
    } else if line.starts_with("BAR.SYNC") {
        Anchor::Bar
    } else {
        return None;
    })
}

/// One step of an executed path (SASS) or of the generator's loop body (twin).
#[derive(Clone, Debug)]
enum Tok {
    /// A SASS instruction the twin issues as a scalar instruction (translated).
    Sass(String),
    /// A synchronization, copy or MMA instruction (SASS text, or the twin's line).
    Anchor(Anchor, String),
    /// A conditional region (the SASS branch over it, or the twin's `if` line).
    Open(String),
    Close,
}

/// A gemm kernel's main loops: (first index, back branch's index, holds HGMMA): the
/// backward branches (not `BRA.U.ANY`, the elect loops around UTMALDG) whose body waits
/// on an mbarrier and issues MMAs or copies.
fn sass_main_loops(lines: &[(u64, String)]) -> Vec<(usize, usize, bool)> {
    let mut out = Vec::new();
    for (i, (addr, ins)) in lines.iter().enumerate() {
        if !ins.starts_with('@') || ins.contains("BRA.U.ANY") {
            continue;
        }
        let Some(t) = branch_target(ins).filter(|t| t < addr) else {
            continue;
        };
        let Some(s) = lines.iter().position(|(a, _)| *a == t) else {
            continue;
        };
        let body = &lines[s..=i];
        let has = |op: &str| body.iter().any(|(_, x)| strip_guard(x).starts_with(op));
        if has("SYNCS.PHASECHK") && (has("HGMMA") || has("UTMALDG")) {
            out.push((s, i, has("HGMMA")));
        }
    }
    out
}

/// The path one k-step of a SASS main loop executes, and how many SASS instructions it
/// leaves out. A try_wait's `@P0 BRA` over the spin loop is taken: the engine's TRYWAIT
/// suspends the warp until the phase completes (and pays the probe latency), which is
/// what the spin (re-probe, clock read, timeout compare) waits for; the spin's
/// instructions are left out. The `BRA.U.ANY` loops around UTMALDG run once (one elected
/// thread issues the copy). Any other forward branch that skips synchronization,
/// copies or MMAs is a conditional region (the twin's `if`); one over scalar code only
/// is issued inline.
fn sass_loop_path(lines: &[(u64, String)], s: usize, e: usize) -> Result<(Vec<Tok>, usize), String> {
    let end_addr = lines[e].0;
    let mut toks = Vec::new();
    let mut closes: Vec<u64> = Vec::new();
    let mut skipped = 0;
    let mut i = s;
    while i <= e {
        let (addr, ins) = &lines[i];
        while closes.last() == Some(addr) {
            closes.pop();
            toks.push(Tok::Close);
        }
        let bare = strip_guard(ins);
        if let Some(a) = sass_anchor(ins) {
            toks.push(Tok::Anchor(a, ins.clone()));
            if a == Anchor::TryWait
                && let Some((_, next)) = lines.get(i + 1)
                && next.starts_with('@')
                && strip_guard(next).starts_with("BRA ")
                && let Some(t) = branch_target(next).filter(|t| *t > *addr)
            {
                toks.push(Tok::Sass(next.clone()));
                let j = lines
                    .iter()
                    .position(|(a, _)| *a == t)
                    .ok_or("try_wait branch target not found")?;
                skipped += j - (i + 2);
                i = j;
                continue;
            }
            i += 1;
            continue;
        }
        if bare.starts_with("BRA") && i != e && !bare.starts_with("BRA.U.ANY") {
            let t = branch_target(ins).ok_or_else(|| format!("branch without target: {ins}"))?;
            if !ins.starts_with('@') || t <= *addr || t > end_addr {
                return Err(format!("unexpected branch in the main loop: {ins}"));
            }
            let j = lines
                .iter()
                .position(|(a, _)| *a == t)
                .ok_or("branch target not found")?;
            toks.push(Tok::Sass(ins.clone()));
            if lines[i + 1..j].iter().any(|(_, x)| sass_anchor(x).is_some()) {
                toks.push(Tok::Open(ins.clone()));
                closes.push(t);
            }
            i += 1;
            continue;
        }
        toks.push(Tok::Sass(ins.clone()));
        i += 1;
    }
    if !closes.is_empty() {
        return Err("a conditional region runs past the loop".into());
    }
    Ok((toks, skipped))
}

/// The twin's loop body as tokens (its `if` blocks and its anchors).
fn twin_body_tokens(body: &[&str]) -> Result<Vec<Tok>, String> {
    let mut toks = Vec::new();
    let mut opens: Vec<usize> = Vec::new();
    for line in body {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let d = line.len() - t.len();
        while opens.last().is_some_and(|o| *o >= d) {
            opens.pop();
            toks.push(Tok::Close);
        }
        if t.starts_with("if ") {
            opens.push(d);
            toks.push(Tok::Open(t.to_string()));
        } else if let Some(a) = twin_anchor(t) {
            toks.push(Tok::Anchor(a, t.to_string()));
        } else {
            return Err(format!("unexpected line in the generator's loop: {t}"));
        }
    }
    toks.extend(opens.iter().map(|_| Tok::Close));
    Ok(toks)
}

/// A register of a SASS operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SReg {
    R(u32),
    U(u32),
    P(u32),
    Up(u32),
}

/// The registers an operand names, a `.64` one with its pair.
fn operand_regs(op: &str) -> Vec<SReg> {
    let mut out = Vec::new();
    for w in op.split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '.' || ch == '_')) {
        let (name, wide) = match w.strip_suffix(".64") {
            Some(n) => (n, true),
            None => (w, false),
        };
        let num = |p: &str| name.strip_prefix(p).and_then(|n| n.parse::<u32>().ok());
        let r = if let Some(n) = num("UR") {
            SReg::U(n)
        } else if let Some(n) = num("UP") {
            SReg::Up(n)
        } else if let Some(n) = num("R") {
            SReg::R(n)
        } else if let Some(n) = num("P") {
            SReg::P(n)
        } else {
            continue;
        };
        out.push(r);
        if wide {
            out.push(match r {
                SReg::R(n) => SReg::R(n + 1),
                SReg::U(n) => SReg::U(n + 1),
                x => x,
            });
        }
    }
    out
}

/// Operands split at top-level commas.
fn split_operands(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for ch in s.chars() {
        match ch {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// A scalar SASS instruction taken apart: guard, mnemonic, destination registers,
/// source registers.
struct Scalar {
    guard: Option<(bool, SReg)>,
    mnemonic: String,
    dest: Vec<SReg>,
    srcs: Vec<SReg>,
}

fn parse_scalar(ins: &str) -> Scalar {
    let ins = ins.replace(".reuse", "");
    let guard = ins.strip_prefix('@').map(|g| {
        let g = g.split_whitespace().next().unwrap_or("PT");
        let neg = g.starts_with('!');
        let r = operand_regs(g.trim_start_matches('!'));
        (neg, r.first().copied().unwrap_or(SReg::P(0)))
    });
    let bare = strip_guard(&ins);
    let (mnemonic, rest) = bare.split_once(' ').unwrap_or((bare, ""));
    let ops = split_operands(rest);
    let base = mnemonic.split('.').next().unwrap_or("");
    // Instructions without a register result (or whose result the twin does not track).
    let no_dest = matches!(
        base,
        "STG" | "BRA" | "NOP" | "BSSY" | "BSYNC" | "WARPSYNC" | "YIELD" | "FENCE" | "MEMBAR"
            | "EXIT" | "USETMAXREG"
    );
    let mut dest = Vec::new();
    let mut srcs = Vec::new();
    for (k, op) in ops.iter().enumerate() {
        let regs = operand_regs(op);
        let is_pred = regs.iter().all(|r| matches!(r, SReg::P(_) | SReg::Up(_)))
            && (op.ends_with('T') || !regs.is_empty());
        if k == 0 && !no_dest && !op.starts_with('[') {
            dest = regs;
            let wide = mnemonic.contains(".64") || mnemonic.contains(".WIDE") || base == "CS2R";
            if wide && let Some(SReg::R(n)) = dest.first().copied() {
                dest.push(SReg::R(n + 1));
            }
            if wide && let Some(SReg::U(n)) = dest.first().copied() {
                dest.push(SReg::U(n + 1));
            }
            continue;
        }
        // A predicate right after the destination is a second result (carry, ISETP's
        // second predicate), not a source.
        if k == 1 && !no_dest && is_pred {
            continue;
        }
        srcs.extend(regs);
    }
    Scalar {
        guard,
        mnemonic: mnemonic.to_string(),
        dest,
        srcs,
    }
}

/// Where a role's uniform registers and predicates live in the twin: the engine has one
/// register file, so UR n becomes R(`ur` + n) above the role's vector registers and UP n
/// becomes P(`up` + n) above its predicates.
#[derive(Clone, Copy, Debug)]
struct RegMap {
    ur: u32,
    up: u32,
}

impl RegMap {
    /// Above every register the role's path names (and `floor`: the accumulators).
    fn for_path(toks: &[Tok], floor: u32) -> Result<RegMap, String> {
        let (mut r, mut p, mut umin, mut upmax) = (floor, 0u32, u32::MAX, 0u32);
        for t in toks {
            let (Tok::Sass(ins) | Tok::Anchor(_, ins)) = t else {
                continue;
            };
            let sc = parse_scalar(ins);
            let g = sc.guard.map(|g| g.1);
            for x in sc.dest.iter().chain(&sc.srcs).chain(g.iter()) {
                match *x {
                    SReg::R(n) => r = r.max(n),
                    SReg::U(n) => umin = umin.min(n),
                    SReg::P(n) => p = p.max(n),
                    SReg::Up(n) => upmax = upmax.max(n),
                }
            }
        }
        let umin = if umin == u32::MAX { 0 } else { umin & !1 };
        let up = p + 1;
        if up + upmax > 6 {
            return Err(format!("P0..P6 cannot hold P0..P{p} and UP0..UP{upmax}"));
        }
        // Even, so 64-bit uniform pairs stay aligned pairs.
        Ok(RegMap {
            ur: ((r + 2) & !1) - umin,
            up,
        })
    }

    fn name(&self, r: SReg) -> String {
        match r {
            SReg::R(n) => format!("R{n}"),
            SReg::U(n) => format!("R{}", self.ur + n),
            SReg::P(n) => format!("P{n}"),
            SReg::Up(n) => format!("P{}", self.up + n),
        }
    }
}

/// A scalar SASS instruction as the engine instruction of its pipe and latency class,
/// with the SASS's destination and source registers (so dependencies wait as in the
/// SASS; uniform registers mapped by `m`):
/// - MUFU, I2F, F2I: themselves (the XU, `lat_mufu`, short scoreboard).
/// - IMAD (all forms), UIMAD, FADD/FFMA/FMUL: `IMAD` (`IMAD.WIDE` for a register pair).
/// - a predicate result (ISETP, UISETP, PLOP3, ELECT, LOP3 into a predicate):
///   `ISETP` (ALU).
/// - every other register result: `IADD3` (ALU, `lat_alu`), or `IMAD.WIDE` for a 64-bit
///   result (LDC.64, ULDC.64, CS2R). This covers the uniform datapath (UIADD3, ULOP3,
///   ULEA, USHF, UMOV, ULDC, S2UR), R2UR, MOV, IABS, VIADD, SHF, LEA, SEL, VIMNMX, and the
///   constant loads (LDC): the engine has no uniform pipe and no constant cache, and
///   no measurement of their latencies exists here, so each gets the ALU's fixed
///   latency, the class of the integer instructions they are (a uniform instruction
///   still takes its warp's issue slot, as on the GPU).
/// - no register result (BSSY, BSYNC, WARPSYNC, YIELD, NOP, FENCE): `NOP`; a branch:
///   `BRA` (both one issue slot).
///
/// Guards stay (the engine issues a guarded instruction whatever the predicate, and
/// waits for the predicate as for a source).
fn translate_scalar(ins: &str, m: &RegMap) -> String {
    let sc = parse_scalar(ins);
    let guard = sc
        .guard
        .map(|(neg, r)| format!("@{}{} ", if neg { "!" } else { "" }, m.name(r)))
        .unwrap_or_default();
    let base = sc.mnemonic.split('.').next().unwrap_or("");
    let src_r: Vec<String> = sc
        .srcs
        .iter()
        .filter(|r| matches!(r, SReg::R(_) | SReg::U(_)))
        .map(|r| m.name(*r))
        .collect();
    let src_p: Vec<String> = sc
        .srcs
        .iter()
        .filter(|r| matches!(r, SReg::P(_) | SReg::Up(_)))
        .map(|r| m.name(*r))
        .collect();
    let first = src_r.first().cloned().unwrap_or_else(|| "RZ".into());
    let pad = |v: &[String], n: usize| -> String {
        let mut v: Vec<String> = v.iter().take(n.max(v.len())).cloned().collect();
        while v.len() < n {
            v.push("RZ".into());
        }
        v.join(", ")
    };
    if base == "BRA" {
        return format!("{guard}BRA");
    }
    let Some(d) = sc.dest.first().copied() else {
        return format!("{guard}NOP");
    };
    let dn = m.name(d);
    match base {
        "MUFU" => {
            let f = sc.mnemonic.split('.').nth(1).unwrap_or("RCP");
            return format!("{guard}MUFU.{f} {dn}, {first}");
        }
        "I2F" | "F2I" => return format!("{guard}{base} {dn}, {first}"),
        _ => {}
    }
    if matches!(d, SReg::P(_) | SReg::Up(_)) {
        let a = src_r.first().cloned().unwrap_or_else(|| "RZ".into());
        let b = src_r.get(1).cloned().unwrap_or_else(|| "RZ".into());
        let p = src_p.first().cloned().unwrap_or_else(|| "PT".into());
        return format!("{guard}ISETP.NE.AND {dn}, PT, {a}, {b}, {p}");
    }
    let mut srcs: Vec<String> = src_r.clone();
    srcs.extend(src_p.iter().cloned());
    if sc.dest.len() > 1 {
        return format!("{guard}IMAD.WIDE {dn}, {}", pad(&src_r[..src_r.len().min(3)], 3));
    }
    if matches!(base, "IMAD" | "UIMAD" | "FADD" | "FFMA" | "FMUL") {
        return format!("{guard}IMAD {dn}, {}", pad(&srcs[..srcs.len().min(4)], 3));
    }
    format!("{guard}IADD3 {dn}, {}", pad(&srcs[..srcs.len().min(5)], 2))
}

/// Merges a SASS path with the generator's loop body: scalar instructions translated,
/// each anchor and conditional region replaced by the generator's own, in order (the
/// kinds must agree).
fn merge_loop(sass: &[Tok], twin: &[Tok], indent: usize, m: &RegMap) -> Result<String, String> {
    let mut out = String::new();
    let mut depth = indent;
    let mut g = twin.iter();
    for t in sass {
        match t {
            Tok::Sass(ins) => {
                out.push_str(&format!(
                    "{}{}  # {ins}\n",
                    " ".repeat(depth),
                    translate_scalar(ins, m)
                ));
            }
            Tok::Anchor(a, ins) => match g.next() {
                Some(Tok::Anchor(b, line)) if a == b => {
                    out.push_str(&format!("{}{line}  # {ins}\n", " ".repeat(depth)));
                }
                other => return Err(format!("SASS `{ins}` meets generator {other:?}")),
            },
            Tok::Open(ins) => match g.next() {
                Some(Tok::Open(line)) => {
                    out.push_str(&format!("{}{line}  # {ins}\n", " ".repeat(depth)));
                    depth += 2;
                }
                other => return Err(format!("SASS region `{ins}` meets generator {other:?}")),
            },
            Tok::Close => match g.next() {
                Some(Tok::Close) => depth -= 2,
                other => return Err(format!("SASS region end meets generator {other:?}")),
            },
        }
    }
    if let Some(rest) = g.next() {
        return Err(format!("the SASS path has nothing for generator {rest:?}"));
    }
    Ok(out)
}

/// One translated main loop: the k-step's SASS path and how many instructions it issues.
#[derive(Clone, Debug)]
pub struct LoopTranslation {
    /// The SASS main loop's instructions (back-branch target to back branch).
    pub sass_len: usize,
    /// Of those, the try_wait spin instructions left out (the engine's TRYWAIT waits).
    pub spin_left_out: usize,
    /// The instructions the twin issues per k-step (every conditional region taken).
    pub issued: usize,
    pub holds_mma: bool,
}

/// The twin's kernel text: [`gemm_structure_text`] with each role's main loop replaced
/// by the SASS main loop of that role (consumer or producer; the static kernels have one
/// role), instruction for instruction, as the latency-hiding twins are built: every
/// instruction the SASS issues in a k-step, the synchronization, copies and MMAs as the
/// generator writes them (so the engine's semantics for TRYWAIT, EXPECT_TX, UTMALDG,
/// WARPGROUP.ARRIVE, HGMMA gsb0, WARPGROUP.DEPBAR and BAR.SYNC stay), the scalar
/// instructions around them (the stage index and parity by an integer division through
/// I2F, MUFU.RCP and F2I, as `k % pipe` and `k / pipe` with a runtime `pipe` compile; the
/// descriptor arithmetic and R2UR; the loop counter, compare and back branch) by
/// [`translate_scalar`]. Outside the main loops the twin is the generator's (the
/// prologue's stage fills, the final wait); the kernel's time from its clock read to
/// the end is the main loops' to within the few hundred cycles of prologue.
pub fn gemm_twin_text(c: &GemmCase) -> Result<String, String> {
    Ok(gemm_twin(c)?.0)
}

/// The twin's text and its loops' translation figures (for the tests).
pub fn gemm_twin(c: &GemmCase) -> Result<(String, Vec<LoopTranslation>), String> {
    let structure = gemm_structure_text(c)?;
    let func = gemm_sass_name(c);
    let sass = sass_function(&func);
    if sass.is_empty() {
        return Err(format!("{func}: not in the committed SASS"));
    }
    let loops = sass_main_loops(&sass);
    let lines: Vec<&str> = structure.lines().collect();
    let mut out = String::new();
    let mut figures = Vec::new();
    let mut max_reg = 0u32;
    let mut own_budget = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim_start();
        let ind = line.len() - t.len();
        out.push_str(line);
        out.push('\n');
        i += 1;
        if t.starts_with("role ") {
            own_budget = t.contains("maxnreg=");
        }
        if !t.starts_with("loop k 0..KT") {
            continue;
        }
        let mut j = i;
        while j < lines.len() && {
            let u = lines[j].trim_start();
            u.is_empty() || lines[j].len() - u.len() > ind
        } {
            j += 1;
        }
        let body = &lines[i..j];
        let mma = body.iter().any(|l| l.contains("HGMMA"));
        let &(s, e, _) = loops
            .iter()
            .find(|l| l.2 == mma)
            .ok_or_else(|| format!("{func}: no SASS main loop for this role"))?;
        let (toks, spin) = sass_loop_path(&sass, s, e)?;
        // The accumulators R24..R151 are the HGMMA's (the generator's operand).
        let m = RegMap::for_path(&toks, if mma { 151 } else { 0 })?;
        let issued = toks
            .iter()
            .filter(|t| matches!(t, Tok::Sass(_) | Tok::Anchor(..)))
            .count();
        let text = merge_loop(&toks, &twin_body_tokens(body)?, ind + 2, &m)
            .map_err(|e| format!("{func}: {e}"))?;
        for l in text.lines().filter(|_| !own_budget) {
            let code = l.split('#').next().unwrap_or("");
            for r in operand_regs(code) {
                if let SReg::R(n) = r {
                    max_reg = max_reg.max(n + 1);
                }
            }
        }
        out.push_str(&text);
        figures.push(LoopTranslation {
            sass_len: e - s + 1,
            spin_left_out: spin,
            issued,
            holds_mma: mma,
        });
        i = j;
    }
    if figures.is_empty() {
        return Err("the generator's text has no main loop".into());
    }
    // The static kernels have no maxnreg: their launch budget must hold the uniform
    // registers' stand-ins too (one CTA of 256 threads fits the SM either way).
    let need = (max_reg + 1).div_ceil(8) * 8;
    if let Some(p) = out.find(" regs=") {
        let e = out[p + 6..].find(' ').map(|x| p + 6 + x).unwrap_or(out.len());
        if out[p + 6..e].parse::<u32>().is_ok_and(|r| r < need) {
            out.replace_range(p + 6..e, &need.to_string());
        }
    }
    Ok((out, figures))
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

    fn every_case() -> Vec<GemmCase> {
        let mut v = Vec::new();
        for (sched, fenced) in [
            ("static-v1", false),
            ("static-v2", false),
            ("ws", false),
            ("ws-wait1", false),
            ("static-v2", true),
            ("ws-wait1", true),
        ] {
            let mut c = case(sched);
            c.fenced = fenced;
            v.push(c);
        }
        v
    }

    #[test]
    fn gemm_twins_translate_every_kernel() {
        for c in every_case() {
            let (t, loops) = gemm_twin(&c).unwrap_or_else(|e| panic!("{}: {e}", c.bench));
            if let Ok(dir) = std::env::var("SMSIM_DUMP_TWINS") {
                std::fs::write(format!("{dir}/{}.smk", gemm_sass_name(&c)), &t).unwrap();
            }
            isa::parse_kernel(&t).unwrap_or_else(|e| panic!("{}: {e:?}\n{t}", c.bench));
            let roles = if c.schedule.starts_with("ws") { 2 } else { 1 };
            assert_eq!(loops.len(), roles, "{}", c.bench);
            for l in &loops {
                // every instruction of the k-step's SASS path, no more: the loop less
                // the try_wait spin the engine's TRYWAIT stands for
                assert_eq!(l.issued, l.sass_len - l.spin_left_out, "{} {l:?}", c.bench);
                assert!(l.spin_left_out > 0, "{} {l:?}", c.bench);
            }
        }
    }

    /// The twin's text without comments (which quote the SASS).
    fn code(t: &str) -> String {
        t.lines()
            .map(|l| l.split('#').next().unwrap_or("").trim_end())
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    }

    /// The instructions inside each `loop k` body (not its `if` lines).
    fn loop_instructions(t: &str) -> Vec<usize> {
        let mut out = Vec::new();
        let lines: Vec<&str> = t.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let ind = l.len() - l.trim_start().len();
            if !l.trim_start().starts_with("loop k 0..KT") {
                continue;
            }
            out.push(
                lines[i + 1..]
                    .iter()
                    .take_while(|x| x.len() - x.trim_start().len() > ind)
                    .filter(|x| !x.trim_start().starts_with("if "))
                    .count(),
            );
        }
        out
    }

    #[test]
    fn serialized_twin_follows_the_sass() {
        let t = code(&gemm_twin_text(&case("static-v2")).unwrap());
        // the SASS: ARRIVE, then four times HGMMA gsb0 + DEPBAR 0, an ARRIVE between
        assert_eq!(t.matches("HGMMA").count(), 4);
        assert_eq!(t.matches(", gsb0\n").count(), 4, "{t}");
        assert_eq!(t.matches("WARPGROUP.ARRIVE").count(), 4);
        assert!(!t.contains("DEPBAR.LE gsb0, 1"));
        // ws is not serialized: one group of four
        let w = code(&gemm_twin_text(&case("ws")).unwrap());
        assert_eq!(w.matches(", gsb0\n").count(), 1);
        assert_eq!(w.matches("WARPGROUP.ARRIVE").count(), 1);
    }

    #[test]
    fn twin_loops_issue_the_sass_k_step() {
        for c in every_case() {
            let (t, loops) = gemm_twin(&c).unwrap();
            let counts = loop_instructions(&t);
            assert_eq!(counts.len(), loops.len(), "{}", c.bench);
            for (n, l) in counts.iter().zip(&loops) {
                // one twin instruction per SASS instruction of the k-step's path
                assert_eq!(*n, l.issued, "{} {l:?}", c.bench);
                assert_eq!(l.issued, l.sass_len - l.spin_left_out, "{} {l:?}", c.bench);
            }
        }
        // ws: the consumer's k-step is the SASS's 0xa20..0x1180 less the spin
        // 0xc70..0xd30 (13 instructions): 119 - 13 = 106 instructions
        let (_, loops) = gemm_twin(&case("ws")).unwrap();
        let consumer = loops.iter().find(|l| l.holds_mma).unwrap();
        assert_eq!((consumer.sass_len, consumer.spin_left_out), (119, 13));
    }

    #[test]
    fn scalars_keep_their_registers() {
        let m = RegMap { ur: 150, up: 3 };
        // uniform registers and predicates move above the vector ones
        assert_eq!(
            translate_scalar("@!UP0 UIADD3 UR5, UR5, -UR10, URZ", &m),
            "@!P3 IADD3 R155, R155, R160"
        );
        assert_eq!(translate_scalar("R2UR UR16, R6", &m), "IADD3 R166, R6, RZ");
        assert_eq!(
            translate_scalar("UIMAD.WIDE.U32 UR6, UR7, UR8, URZ", &m),
            "IMAD.WIDE R156, R157, R158, RZ"
        );
        assert_eq!(
            translate_scalar("ISETP.GE.U32.AND.EX P0, PT, R8, RZ, PT, P0", &m),
            "ISETP.NE.AND P0, PT, R8, RZ, P0"
        );
        // a carry-out predicate is a result, not a source
        assert_eq!(
            translate_scalar("IADD3 R12, P0, -R6, R8, RZ", &m),
            "IADD3 R12, R6, R8"
        );
        assert_eq!(translate_scalar("MUFU.RCP R6, R6", &m), "MUFU.RCP R6, R6");
        assert_eq!(translate_scalar("I2F.RP R6, UR10", &m), "I2F R6, R160");
        assert_eq!(translate_scalar("BSSY B0, 0x1340", &m), "NOP");
        assert_eq!(translate_scalar("@!P0 BRA 0xa20", &m), "@!P0 BRA");
    }
}
