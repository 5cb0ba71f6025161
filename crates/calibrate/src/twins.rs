//! Simulated twins of the microbenchmarks: for each CUDA benchmark of `kernels/*.cu`, a
//! kernel in the simulator's text format that does what the benchmark does (the same
//! dependent chain, pointer chase, copy-and-wait, issue loop...), with the registers the
//! committed SASS uses where the register banks matter, and a measurement taken the way
//! the benchmark takes it (a difference of two lengths, so fixed costs cancel).
//!
//! A [`Twin`] maps a profile to the simulated value of one benchmark, in the benchmark's
//! unit. The fit and the report both use these.

use sim_core::{Profile, RunConfig, RunResult};

pub use crate::families::gaps_twins::gap_twins;
pub use crate::families::micro_twins;

/// The SASS of the microbenchmarks that ran (committed beside the data).
pub const MICRO_SASS: &str = include_str!("../data/h100-20261123T012202Z.sass.txt");

/// How a twin computes its value.
#[derive(Clone, Debug)]
pub enum Method {
    /// (cycles(hi) - cycles(lo)) / (hi - lo) x scale, where `{N}` in the kernel is
    /// replaced by lo and hi.
    Slope {
        src: String,
        lo: i64,
        hi: i64,
        per: f64,
    },
    /// work(hi) - work(lo) over the span (first warp start to last warp end) difference,
    /// times `mult` (SMs of the chip for whole-chip figures).
    Rate {
        src: String,
        lo: i64,
        hi: i64,
        work_per_n: f64,
        mult: f64,
    },
    /// (cycles(hi_src at n) - cycles(lo_src at n)) / per.
    Pair {
        lo_src: String,
        hi_src: String,
        n: i64,
        per: f64,
    },
    /// The span (first warp start to last warp end) of one run, over `per`: for
    /// benchmarks timed from each warp's first clock read to its last around a fixed
    /// number of iterations, whose twins run everything between the two reads.
    Span { src: String, per: f64 },
    /// The measured value used as is (no simulation: e.g. the clock).
    Direct { param: &'static str },
    /// The first warp's end over the last warp's end, both from the earliest start (the
    /// warp scheduler's order), with `{N}` replaced by n.
    FirstFinish { src: String, n: i64 },
    /// The median of one warp's iterations, as the benchmark's reps are each copy's
    /// cycles: with `{N}` replaced by n, the cycles from each issue of the loop's second
    /// instruction (the copy) to the next.
    Median { src: String, n: i64 },
}

/// The cycles at which warp 0 issues the instruction it issued second (a copy loop's
/// copy, after its EXPECT_TX).
#[derive(Default)]
struct SecondIssues {
    issues: u32,
    pc: u32,
    cycles: Vec<u64>,
}

impl sim_core::sink::Sink for SecondIssues {
    fn event(&mut self, e: sim_core::sink::Event) {
        if let sim_core::sink::Event::Issue {
            cycle, warp, pc, ..
        } = e
            && warp.cta == 0
            && warp.warp == 0
        {
            self.issues += 1;
            if self.issues == 2 {
                self.pc = pc;
            }
            if self.issues >= 2 && pc == self.pc {
                self.cycles.push(cycle);
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct Twin {
    /// The benchmark's name in the measurement file.
    pub bench: String,
    /// Report group.
    pub group: &'static str,
    /// Profile parameters the value depends on (for the fit).
    pub params: &'static [&'static str],
    pub method: Method,
    /// One line: what the twin does.
    pub what: String,
}

/// Runs kernel text with `{N}` replaced.
pub fn sim_text(src: &str, n: i64, p: &Profile) -> Result<RunResult, String> {
    sim_text_warm(src, n, p, &[])
}

/// [`sim_text`] with the named global buffers' lines in L2 at the start (the measured
/// kernel ran after a warm-up launch that read them).
pub fn sim_text_warm(
    src: &str,
    n: i64,
    p: &Profile,
    warm_l2: &[&str],
) -> Result<RunResult, String> {
    let text = src.replace("{N}", &n.to_string());
    let k = isa::parse_kernel(&text).map_err(|e| format!("twin does not parse: {e:?}\n{text}"))?;
    let cfg = RunConfig {
        max_cycles: 400_000_000,
        warm_l2: warm_l2.iter().map(|s| s.to_string()).collect(),
        ..RunConfig::default()
    };
    sim_core::run(&k, p, &cfg).map_err(|e| e.to_string())
}

/// First warp start to last warp end.
pub fn span(r: &RunResult) -> f64 {
    let s = r.warps.iter().map(|w| w.started).min().unwrap_or(0);
    let e = r.warps.iter().map(|w| w.finished).max().unwrap_or(r.cycles);
    (e - s) as f64
}

impl Twin {
    /// The simulated value in the benchmark's unit.
    pub fn eval(&self, p: &Profile) -> Result<f64, String> {
        match &self.method {
            Method::Slope { src, lo, hi, per } => {
                let a = sim_text(src, *lo, p)?.cycles as f64;
                let b = sim_text(src, *hi, p)?.cycles as f64;
                Ok((b - a) / ((hi - lo) as f64 * per))
            }
            Method::Rate {
                src,
                lo,
                hi,
                work_per_n,
                mult,
            } => {
                let a = span(&sim_text(src, *lo, p)?);
                let b = span(&sim_text(src, *hi, p)?);
                Ok((hi - lo) as f64 * work_per_n / (b - a) * mult)
            }
            Method::Pair {
                lo_src,
                hi_src,
                n,
                per,
            } => {
                let a = sim_text(lo_src, *n, p)?.cycles as f64;
                let b = sim_text(hi_src, *n, p)?.cycles as f64;
                Ok((b - a) / per)
            }
            Method::FirstFinish { src, n } => {
                let r = sim_text(src, *n, p)?;
                let start = r.warps.iter().map(|w| w.started).min().unwrap_or(0);
                let first = r.warps.iter().map(|w| w.finished).min().unwrap_or(0);
                let last = r.warps.iter().map(|w| w.finished).max().unwrap_or(0);
                Ok((first - start) as f64 / (last - start).max(1) as f64)
            }
            Method::Median { src, n } => {
                let text = src.replace("{N}", &n.to_string());
                let k = isa::parse_kernel(&text)
                    .map_err(|e| format!("twin does not parse: {e:?}\n{text}"))?;
                let cfg = RunConfig {
                    max_cycles: 400_000_000,
                    ..RunConfig::default()
                };
                let mut sink = SecondIssues::default();
                sim_core::run_with(&k, p, &cfg, cfg.policy.build(), &mut sink)
                    .map_err(|e| e.to_string())?;
                let mut steps: Vec<u64> = sink.cycles.windows(2).map(|w| w[1] - w[0]).collect();
                if steps.is_empty() {
                    return Err(format!(
                        "the twin issued its copy {} times",
                        sink.cycles.len()
                    ));
                }
                steps.sort_unstable();
                let m = steps.len();
                Ok(if m % 2 == 1 {
                    steps[m / 2] as f64
                } else {
                    (steps[m / 2 - 1] + steps[m / 2]) as f64 / 2.0
                })
            }
            Method::Span { src, per } => Ok(span(&sim_text(src, 0, p)?) / per),
            Method::Direct { param } => Ok(p
                .file
                .params
                .get(*param)
                .map(|e| e.value)
                .unwrap_or(f64::NAN)),
        }
    }

    /// The kernel text at the larger length (for `--emit`, tests).
    pub fn kernel_text(&self) -> Option<String> {
        match &self.method {
            Method::Slope { src, hi, .. } | Method::Rate { src, hi, .. } => {
                Some(src.replace("{N}", &hi.to_string()))
            }
            Method::Pair { hi_src, n, .. } => Some(hi_src.replace("{N}", &n.to_string())),
            Method::FirstFinish { src, n } | Method::Median { src, n } => {
                Some(src.replace("{N}", &n.to_string()))
            }
            Method::Span { src, .. } => Some(src.clone()),
            Method::Direct { .. } => None,
        }
    }
}

/// A micro kernel's timed loop in the committed dump: after the first clock read, from
/// the first backward branch's target to that branch, each instruction with its address
/// and control-code stall count (empty when the function has no such loop).
pub(crate) fn timed_loop(func: &str) -> Vec<(u64, String, u8)> {
    let listing = crate::sass::sass_listing(MICRO_SASS, func);
    let Some(clock) = listing
        .iter()
        .position(|(_, s, _)| s.contains("SR_CLOCKLO"))
    else {
        return Vec::new();
    };
    let back = listing[clock..].iter().find_map(|(addr, s, _)| {
        let t = s.split(" BRA").nth(1)?.split_whitespace().last()?;
        let t = u64::from_str_radix(t.trim_start_matches("0x"), 16).ok()?;
        (t < *addr).then_some((t, *addr))
    });
    let Some((first, last)) = back else {
        return Vec::new();
    };
    listing
        .into_iter()
        .filter(|(a, _, _)| (first..=last).contains(a))
        .collect()
}

/// A SASS function's timed loop (after the first clock read, from the back branch's
/// target to the back branch), instruction for instruction with each one's control-code
/// stall count (`stall=`): the `op` lines as in the SASS, `.reuse` flags kept (those
/// operands read no bank) and uniform registers (which read no vector register bank)
/// written as an immediate; the loop's counter and compare as issue slots (`NOP`); the
/// back branch as `BRA` (its stall count is what a lone warp pays per iteration).
pub fn sass_loop(func: &str, op: &str) -> Vec<String> {
    let listing = timed_loop(func);
    let mut out = Vec::new();
    for (_, ins, stall) in &listing {
        let line = if ins.starts_with(op) {
            let mut s = ins.to_string();
            for u in ["UR4", "UR5", "UR6", "UR7"] {
                s = s.replace(u, "0.5");
            }
            s
        } else if ins.contains(" BRA") || ins.starts_with("BRA") {
            "BRA".to_string()
        } else {
            // The loop's counter and compare (uniform or vector): an issue slot each.
            "NOP".to_string()
        };
        out.push(crate::sass::with_stall(&line, *stall));
    }
    out
}

/// How many of a loop body's lines are `op` (the unit a throughput counts).
pub(crate) fn count_op(body: &[String], op: &str) -> f64 {
    body.iter().filter(|l| l.starts_with(op)).count() as f64
}

pub(crate) fn header(name: &str, threads: u32, regs: u32, smem: u32, grid: u32) -> String {
    format!("kernel {name}\nlaunch cta_threads={threads} regs={regs} smem={smem} grid={grid}\n")
}

/// One warp, N copies of `op` (a dependent chain through its registers).
pub(crate) fn chain(
    bench: &str,
    group: &'static str,
    params: &'static [&'static str],
    op: &str,
) -> Twin {
    let src = format!(
        "{}role main warps=0..0\n  loop i 0..{{N}}\n    {op}\n  EXIT\n",
        header("chain", 32, 32, 0, 1)
    );
    Twin {
        bench: bench.into(),
        group,
        params,
        method: Method::Slope {
            src,
            lo: 64,
            hi: 320,
            per: 1.0,
        },
        what: format!(
            "one warp, a dependent chain of `{op}` (registers as in the SASS); cycles per link"
        ),
    }
}

/// 32 warps (1024 threads) run `body` per iteration; rate = units per clock per SM.
#[allow(clippy::too_many_arguments)]
pub(crate) fn tp_loop(
    bench: &str,
    group: &'static str,
    params: &'static [&'static str],
    body: &[String],
    warps: u32,
    units_per_iter_per_thread: f64,
    smem: u32,
    extra_decl: &str,
) -> Twin {
    let mut b = String::new();
    for l in body {
        b.push_str("    ");
        b.push_str(l);
        b.push('\n');
    }
    let src = format!(
        "{}{extra_decl}role all warps=0..{}\n  loop it 0..{{N}}\n{b}  EXIT\n",
        header("tp", warps * 32, 64, smem, 1),
        warps - 1
    );
    Twin {
        bench: bench.into(),
        group,
        params,
        method: Method::Rate {
            src,
            lo: 8,
            hi: 24,
            work_per_n: units_per_iter_per_thread * (warps * 32) as f64,
            mult: 1.0,
        },
        what: format!(
            "{warps} warps, a loop of {} instructions per iteration (as in the SASS); per clock per SM",
            body.len()
        ),
    }
}

pub(crate) fn human(b: u64) -> String {
    if b >= 1 << 30 {
        format!("{} GiB", b >> 30)
    } else if b >= 1 << 20 {
        format!("{} MiB", b >> 20)
    } else if b >= 1 << 10 {
        format!("{} KiB", b >> 10)
    } else {
        format!("{b} B")
    }
}

/// Why a benchmark has no twin (it is reported, not fitted).
pub fn untwinned(bench: &str) -> Option<&'static str> {
    if bench.ends_with(".gbps") {
        return Some("the same run as the `.bytes_per_clk` entry, in GB/s at the measured clock");
    }
    if bench.starts_with("lat.tcgen05.") {
        return Some(
            "Blackwell only (tensor memory and tcgen05.mma): for the b200 profile, which is not fitted yet",
        );
    }
    if bench.starts_with("clock.") {
        return Some(
            "a clock reading; the profile's clocks are measured by the gaps family (data/gaps/): clock_mhz under full-chip wgmma with random operands (the collector's near-one operands run 9% faster), clock_mhz_light under light, FFMA and HBM-stream loads",
        );
    }
    if bench.starts_with("tp.wgmma_var.") {
        return Some(
            "what a main loop adds to serialized wgmma: every variant costs the same (about 164 cycles per wgmma against 134 in tp.wgmma_pair), and what differs from tp.wgmma_pair is the loop's ~40 scalar instructions of descriptor arithmetic between the waits (SASS beside the data); a twin needs those instructions translated from the SASS, not yet done",
        );
    }
    if bench.starts_with("tp.wgmma.chip") {
        return Some(
            "whole-chip TFLOP/s at the loaded clock: follows from tensor_flops_per_clk_sm x SMs x clock",
        );
    }
    for fp in ["fp_24MiB", "fp_32MiB", "fp_40MiB", "fp_48MiB"] {
        if bench.ends_with(fp) {
            return Some(
                "L2 capacity edge: the hit rate of one SM's chase between 24 and 48 MiB depends on how the two L2 partitions replicate lines, which the model's single 50 MiB L2 does not represent",
            );
        }
    }
    if bench.starts_with("lat.wgmma") && bench.contains(".k") && !bench.ends_with(".k1") {
        return None;
    }
    None
}
