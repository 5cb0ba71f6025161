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
//!
//! gemm-mainloop: `validation/gemm.rs` (twins whose main loops are the SASS's).

use sim_core::{Profile, RunResult};

pub use crate::ncu::{ncu_gemm_pipe4_cta1, ncu_ratios};
pub use crate::sass::{control_stall, sass_listing, with_stall};
use crate::twins::{sim_text, sim_text_warm, span};

mod gemm;
mod translate;
pub use gemm::*;
pub(crate) use translate::*;

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
    sass_listing(VALIDATION_SASS, func)
        .into_iter()
        .map(|(a, t, _)| (a, t))
        .collect()
}

/// The target of a branch instruction (`@P0 BRA 0x1e0`, `@P0 BRA.U.ANY 0x2180`).
pub(crate) fn branch_target(ins: &str) -> Option<u64> {
    let rest = ins.split(" BRA").nth(1)?;
    let t = rest.split_whitespace().last()?;
    u64::from_str_radix(t.trim_start_matches("0x"), 16).ok()
}

/// The timed loop of a SASS function: from the back branch's target to the branch.
pub fn sass_timed_loop(func: &str) -> Result<Vec<String>, String> {
    Ok(timed_loop(func)?.into_iter().map(|(s, _)| s).collect())
}

/// The timed loop with each instruction's control-code stall count.
fn timed_loop(func: &str) -> Result<Vec<(String, u8)>, String> {
    let lines = sass_listing(VALIDATION_SASS, func);
    let (bi, target) = lines
        .iter()
        .enumerate()
        .find_map(|(i, (addr, ins, _))| {
            let t = branch_target(ins)?;
            (ins.starts_with('@') && t < *addr).then_some((i, t))
        })
        .ok_or_else(|| format!("{func}: no backward branch in the SASS"))?;
    let start = lines
        .iter()
        .position(|(a, _, _)| *a == target)
        .ok_or("branch target not found")?;
    Ok(lines[start..=bi]
        .iter()
        .map(|(_, s, st)| (s.clone(), *st))
        .collect())
}

/// One SASS instruction in the twin's text format.
fn translate(ins: &str) -> String {
    // `.reuse` stays: those operands come from the reuse cache and read no bank.
    let mut s = ins.to_string();
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
    // uniform registers: one vector register stands for them, marked `.reuse` because
    // the uniform register file is not the vector register banks
    for u in ["UR4", "UR5", "UR6", "UR7"] {
        s = s.replace(u, "R30.reuse");
    }
    s
}

/// The twin's kernel text for a configuration.
pub fn twin_text(c: &VCase, iters: u32) -> Result<String, String> {
    let func = format!("vh_chase_{}_k{}", if c.l1 { "l1" } else { "l2" }, c.k);
    let body = timed_loop(&func)?;
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
        for (ins, stall) in &body {
            s.push_str("    ");
            s.push_str(&with_stall(&translate(ins), *stall));
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

/// The committed `gaps.l1hide` runs (data/gaps/l1hide; two H200s, the SM's L1 the
/// H100's): the latency-hiding L1 walk at more K and warps, and staggered. The first is
/// the one scored by its medians; the launches of both give each point's band (near the
/// crowding edge a launch runs in one of two states: data/gaps/l1hide/README.md).
pub const L1HIDE_RUNS: [&str; 2] = [
    "crates/calibrate/data/gaps/l1hide/h200-20261128T153605Z.json.gz",
    "crates/calibrate/data/gaps/l1hide/h200-20261128T175325Z.json.gz",
];

/// One `gap.l1hide.stagger_S.kK.warps_W` point: its configuration and every launch's
/// cycles per iteration (the median is the benchmark's value).
#[derive(Clone, Debug)]
pub struct HidePoint {
    pub bench: String,
    pub k: u32,
    pub warps: u32,
    pub stagger: u32,
    pub reps: Vec<f64>,
    pub median: f64,
}

/// The `gap.l1hide` points of a measurement file.
pub fn l1hide_points(m: &crate::Measurement) -> Vec<HidePoint> {
    m.benchmarks
        .iter()
        .filter(|b| b.name.starts_with("gap.l1hide."))
        .filter_map(|b| {
            let g = |k: &str| b.params.get(k).and_then(|v| v.as_i64());
            Some(HidePoint {
                bench: b.name.clone(),
                k: u32::try_from(g("K")?).ok()?,
                warps: u32::try_from(g("WARPS")?).ok()?,
                stagger: u32::try_from(g("stagger")?).ok()?,
                reps: b.reps.clone(),
                median: b.median,
            })
        })
        .collect()
}

/// The twin of `gap_l1_hide_kK` (`kernels/gaps.cu`): its loop is `vh_chase_l1_k16`'s
/// instruction for instruction (data/gaps/l1hide/README.md) with K dependent FFMAs, and
/// warp w's lanes start `stagger * w` lines into their 8-line cycles.
pub fn l1hide_twin_text(k: u32, warps: u32, stagger: u32, iters: u32) -> Result<String, String> {
    if k == 0 || warps == 0 || warps > 32 {
        return Err(format!("l1hide twin: K={k} WARPS={warps} out of range"));
    }
    let c = VCase {
        bench: String::new(),
        l1: true,
        k: 16,
        warps,
        iters,
    };
    let text = twin_text(&c, iters)?;
    // the stagger goes into the loop's line index; refuse a twin whose text moved away
    // from the form it is written into rather than run it unstaggered (with no
    // iterations there is no loop to stagger)
    const LINES: &str = "param LINES=8";
    const INDEX: &str = "+ i % LINES)";
    if iters > 0 && !(text.contains(LINES) && text.contains(INDEX)) {
        return Err(format!(
            "l1hide twin: vh_chase_l1_k16's twin has no `{LINES}` or `{INDEX}`"
        ));
    }
    let ffma = |l: &str| l.trim_start().starts_with("FFMA ");
    // (with no iterations the twin has no loop, and no FFMA)
    let first = text
        .lines()
        .find(|l| ffma(l))
        .unwrap_or_default()
        .to_string();
    let bare = first.split(", stall=").next().unwrap_or(&first).to_string();
    let mut out = String::new();
    let mut done = iters == 0;
    for l in text.lines() {
        if ffma(l) {
            if !done {
                // K - 1 chained FFMAs as the SASS's (stall 4), the last as its last
                for _ in 1..k {
                    out.push_str(&first);
                    out.push('\n');
                }
                out.push_str(&bare);
                out.push('\n');
                done = true;
            }
            continue;
        }
        let l = l
            .replace(LINES, &format!("{LINES} STAGGER={stagger}"))
            .replace(INDEX, "+ (i + STAGGER * warp) % LINES)");
        out.push_str(&l);
        out.push('\n');
    }
    if !done {
        return Err("vh_chase_l1_k16's loop has no FFMA".into());
    }
    Ok(out)
}

/// Simulated cycles per iteration of an l1hide point: (span at `iters` - span at 0) /
/// `iters`, as `simulate`.
pub fn simulate_l1hide(pt: &HidePoint, iters: u32, p: &Profile) -> Result<f64, String> {
    let full = sim_text(&l1hide_twin_text(pt.k, pt.warps, pt.stagger, iters)?, 0, p)?;
    let base = sim_text(&l1hide_twin_text(pt.k, pt.warps, pt.stagger, 0)?, 0, p)?;
    Ok((span(&full) - span(&base)) / iters as f64)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_codes_decode_as_the_dump_shows_them() {
        // From tp_ffma in the committed micro dump: LDC (stall 1), I2FP before the
        // dependent FFMAs (5), HFMA2.MMA (6).
        assert_eq!(control_stall(0x000fe20000000800), 1);
        assert_eq!(control_stall(0x001fca0000201000), 5);
        assert_eq!(control_stall(0x000fcc00000001ff), 6);
        // The latency-hiding loop's back branch and its dependent FFMAs.
        let body = timed_loop("vh_chase_l1_k4").unwrap();
        let (last, stall) = body.last().unwrap();
        assert!(last.contains("BRA") && *stall > 1, "{last} stall {stall}");
        assert!(body.iter().all(|(_, s)| *s <= 15));
    }

    #[test]
    fn stall_counts_go_before_comments_and_after_operands() {
        assert_eq!(
            with_stall("FFMA R1, R2, R3, R4", 4),
            "FFMA R1, R2, R3, R4, stall=4"
        );
        assert_eq!(with_stall("@P0 BRA", 6), "@P0 BRA stall=6");
        assert_eq!(
            with_stall("NOP  # UIADD3 UR4", 2),
            "NOP stall=2  # UIADD3 UR4"
        );
        assert_eq!(
            with_stall("IADD3 R1, R2, R3  # x", 1),
            "IADD3 R1, R2, R3  # x"
        );
        assert_eq!(with_stall("IADD3 R1, R2, R3", 0), "IADD3 R1, R2, R3");
        // What it writes parses, and the engine's instruction keeps the count.
        let k = isa::parse_kernel(&format!(
            "kernel k\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nrole main warps=0..0\n  {}\n  {}\n  EXIT\n",
            with_stall("FFMA R1, R2, R3, R4", 4),
            with_stall("@P0 BRA", 6)
        ))
        .unwrap();
        assert!(isa::validate(&k).is_empty());
    }

    #[test]
    fn the_l1hide_twin_has_k_ffmas_and_its_stagger() {
        let ffmas = |t: &str| {
            t.lines()
                .filter(|l| l.trim_start().starts_with("FFMA "))
                .count()
        };
        let k16 = twin_text(
            &VCase {
                bench: String::new(),
                l1: true,
                k: 16,
                warps: 16,
                iters: 8,
            },
            8,
        )
        .unwrap();
        // the K = 16 loop's FFMAs are every FFMA of the twin, so K replaces them all
        assert_eq!(ffmas(&k16), 16);
        for k in [1, 4, 32] {
            let t = l1hide_twin_text(k, 16, 1, 8).unwrap();
            assert_eq!(ffmas(&t), k as usize, "K={k}");
            assert!(t.contains("STAGGER=1") && t.contains("(i + STAGGER * warp) % LINES"));
            let k = isa::parse_kernel(&t).unwrap();
            assert!(isa::validate(&k).is_empty());
        }
        assert!(l1hide_twin_text(0, 16, 0, 8).is_err());
        assert!(l1hide_twin_text(4, 33, 0, 8).is_err());
    }
}
