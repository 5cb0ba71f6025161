//! Simulated twins of the microbenchmarks: for each CUDA benchmark of `kernels/*.cu`, a
//! kernel in the simulator's text format that does what the benchmark does (the same
//! dependent chain, pointer chase, copy-and-wait, issue loop...), with the registers the
//! committed SASS uses where the register banks matter, and a measurement taken the way
//! the benchmark takes it (a difference of two lengths, so fixed costs cancel).
//!
//! A [`Twin`] maps a profile to the simulated value of one benchmark, in the benchmark's
//! unit. The fit and the report both use these.

use sim_core::{Profile, RunConfig, RunResult};

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
fn timed_loop(func: &str) -> Vec<(u64, String, u8)> {
    let listing = crate::validation::sass_listing(MICRO_SASS, func);
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

/// Everything a micro kernel's warp runs between its first clock read and its last, for
/// `iters` iterations of its timed loop, as the committed dump has it: the path from the
/// first read (that read included, an issue slot with its stall count) to the loop
/// chosen (the `nth` backward branch after the read), the loop, and the path from the
/// loop's end to the second read. Before the loop a forward branch is taken when its
/// target is at or before the loop's start (a branch to the loop of another mode), not
/// taken otherwise (the guards for fewer iterations); after it every branch is taken
/// (the remainder loops that `iters` a multiple of the unrolling skips). Each
/// instruction as in the listing with its stall count, and whether it is a taken branch.
struct TimedPath {
    prologue: Vec<(String, u8, bool)>,
    body: Vec<(String, u8, bool)>,
    tail: Vec<(String, u8, bool)>,
}

fn timed_path(func: &str, nth: usize) -> TimedPath {
    let listing = crate::validation::sass_listing(MICRO_SASS, func);
    let target = |ins: &str| -> Option<u64> {
        let t = ins.split("BRA").nth(1)?.split_whitespace().last()?;
        u64::from_str_radix(t.trim_start_matches("0x"), 16).ok()
    };
    let is_branch = |ins: &str| ins.contains(" BRA") || ins.starts_with("BRA");
    let c0 = listing
        .iter()
        .position(|(_, s, _)| s.contains("SR_CLOCKLO"))
        .unwrap_or_else(|| panic!("{func}: no clock read"));
    let (head, back) = listing[c0..]
        .iter()
        .enumerate()
        .filter_map(|(i, (addr, s, _))| {
            let t = target(s).filter(|_| is_branch(s))?;
            (t < *addr).then_some((t, c0 + i))
        })
        .nth(nth)
        .unwrap_or_else(|| panic!("{func}: no loop {nth} after the clock read"));
    let at = |a: u64| {
        listing
            .iter()
            .position(|(x, _, _)| *x == a)
            .unwrap_or_else(|| panic!("{func}: no instruction at {a:#x}"))
    };
    let mut prologue = Vec::new();
    let mut i = c0;
    while listing[i].0 != head {
        let (addr, ins, stall) = &listing[i];
        let taken = is_branch(ins) && target(ins).is_some_and(|t| t > *addr && t <= head);
        assert!(
            !is_branch(ins) || taken || ins.starts_with('@'),
            "{func}: an unconditional branch at {addr:#x} leaves the path"
        );
        prologue.push((ins.clone(), *stall, taken));
        i = if taken {
            at(target(ins).unwrap())
        } else {
            i + 1
        };
    }
    let body = listing[i..=back]
        .iter()
        .map(|(_, ins, stall)| (ins.clone(), *stall, is_branch(ins)))
        .collect();
    let mut tail = Vec::new();
    let mut i = back + 1;
    while !listing[i].1.contains("SR_CLOCKLO") {
        let (addr, ins, stall) = &listing[i];
        if is_branch(ins) {
            let t = target(ins).unwrap();
            assert!(
                t > *addr,
                "{func}: a backward branch after the loop at {addr:#x}"
            );
            tail.push((ins.clone(), *stall, true));
            i = at(t);
        } else {
            tail.push((ins.clone(), *stall, false));
            i += 1;
        }
    }
    TimedPath {
        prologue,
        body,
        tail,
    }
}

/// A wgmma micro kernel's SASS instruction as a twin line with its stall count: the
/// warpgroup synchronization and MMAs (HGMMA.64x`n`x16) as the engine models them (every HGMMA reads
/// `sA[0]`, `sB[0]`: the engine books the tensor pipe, not the operands' banks), a
/// taken branch as `BRA`, everything else (scalar work, the zeroing of the accumulators,
/// a branch not taken, the first clock read) an issue slot (`NOP`).
fn wgmma_line(ins: &str, stall: u8, taken: bool, n: u32) -> String {
    let text = if ins.starts_with("WARPGROUP.ARRIVE") {
        "WARPGROUP.ARRIVE".to_string()
    } else if ins.starts_with(&format!("HGMMA.64x{n}x16.F32.BF16")) {
        let c = if ins.contains("gsb0") { ", gsb0" } else { "" };
        format!("HGMMA.64x{n}x16.F32.BF16 R24, sA[0], sB[0]{c}")
    } else if ins.starts_with("WARPGROUP.DEPBAR.LE") {
        "WARPGROUP.DEPBAR.LE gsb0, 0".to_string()
    } else if taken {
        "BRA".to_string()
    } else {
        "NOP".to_string()
    };
    crate::validation::with_stall(&text, stall)
}

/// The twin of a wgmma micro kernel timed around `iters` iterations of its loop: every
/// warp runs [`timed_path`] (`groups_per_iter` commit groups per iteration) and ends at
/// the second clock read; the span of the run over `per`, as measured.
fn wgmma_span_src(
    func: &str,
    nth: usize,
    iters: u32,
    groups_per_iter: u32,
    wgs: u32,
    smem_decl: &str,
    smem: u32,
) -> (String, u32) {
    let path = timed_path(func, nth);
    let groups = path
        .body
        .iter()
        .filter(|(s, _, _)| s.starts_with("HGMMA") && s.contains("gsb0"))
        .count() as u32;
    let mmas = path
        .body
        .iter()
        .filter(|(s, _, _)| s.starts_with("HGMMA"))
        .count() as u32;
    let its = groups / groups_per_iter;
    assert!(
        groups > 0 && groups.is_multiple_of(groups_per_iter) && iters.is_multiple_of(its),
        "{func}: {groups} groups in the loop, {groups_per_iter} per iteration, {iters} iterations"
    );
    let mut src = format!(
        "{}{smem_decl}role mma warps=0..{}
",
        header(func, 128 * wgs, 168, smem, 1),
        4 * wgs - 1
    );
    for (ins, stall, taken) in &path.prologue {
        src.push_str(&format!("  {}\n", wgmma_line(ins, *stall, *taken, 256)));
    }
    src.push_str(&format!("  loop r 0..{}\n", iters / its));
    for (ins, stall, taken) in &path.body {
        src.push_str(&format!("    {}\n", wgmma_line(ins, *stall, *taken, 256)));
    }
    for (ins, stall, taken) in &path.tail {
        src.push_str(&format!("  {}\n", wgmma_line(ins, *stall, *taken, 256)));
    }
    src.push_str("  EXIT\n");
    (src, mmas / its)
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
        out.push(crate::validation::with_stall(&line, *stall));
    }
    out
}

/// The timed loop of an LDGSTS chase kernel in the twin's format, and how many steps
/// (LDGSTS) it holds. Step `j` of loop iteration `i` copies line `(i * steps + j) %
/// lines`; each LDGSTS names the register its SASS takes the address from (the previous
/// LDS's destination), so it waits for that LDS as the GPU's scoreboard makes it.
fn ldgsts_loop(func: &str, lines: u64, stride: u64) -> (Vec<String>, u64) {
    let listing = timed_loop(func);
    let steps = listing
        .iter()
        .filter(|(_, s, _)| s.starts_with("LDGSTS"))
        .count() as u64;
    let mut out = Vec::new();
    let mut j = 0u64;
    for (_, ins, stall) in &listing {
        let mut words = ins.split_whitespace();
        let op = words.next().unwrap_or("");
        let text = if op.starts_with("LDGSTS") {
            // `LDGSTS.E.128 [R6], desc[UR4][R12.64]`: the address register is R12.
            let reg = ins
                .rsplit('[')
                .next()
                .and_then(|r| r.split(['.', ']']).next())
                .unwrap_or("RZ");
            let t = format!("{op} s[0], A[((i * {steps} + {j}) % {lines}) * {stride}], {reg}");
            j += 1;
            t
        } else if op == "LDGDEPBAR" {
            "LDGDEPBAR".to_string()
        } else if op == "DEPBAR.LE" {
            "DEPBAR.LE SB0, 0".to_string()
        } else if op.starts_with("LDS") {
            // `LDS.64 R12, [R6]`: the pointer, read back from the copy's destination.
            let dst = words.next().unwrap_or("R2,").trim_end_matches(',');
            format!("{op} {dst}, s[0]")
        } else if ins.contains(" BRA") {
            "BRA".to_string()
        } else {
            // `@!PT LDS RZ, [RZ]` (predicated off) and the loop's counter and compare.
            "NOP".to_string()
        };
        out.push(crate::validation::with_stall(&text, *stall));
    }
    (out, steps)
}

/// The steady-state loop of `bw_bulk` (micro.cu) in the twin's format, from its SASS
/// with every instruction's stall count: the try_wait on the oldest stage (the spin
/// after a failed probe left out: the engine's TRYWAIT suspends), then, while copies
/// remain, the expect_tx arrive, the elect loop around UBLKCP (run once) and the offset
/// arithmetic, then the stage and parity updates and the loop's branch. Those ~40
/// instructions and the probe's latency are what one thread pays per copy (about 227
/// cycles: 8 KiB copies run at 36 B/clk with 2, 4 or 6 stages on the GPU).
fn bw_bulk_loop(slice: u64) -> String {
    let listing = crate::validation::sass_listing(MICRO_SASS, "bw_bulk");
    let target = |s: &str| {
        let t = s.split(" BRA").nth(1)?.split_whitespace().last()?;
        u64::from_str_radix(t.trim_start_matches("0x"), 16).ok()
    };
    // The main loop: the last backward branch's target to that branch (the first one
    // is the elect loop).
    let (first, last) = listing
        .iter()
        .filter_map(|(a, s, _)| target(s).filter(|t| t < a).map(|t| (t, *a)))
        .max_by_key(|(_, a)| *a)
        .unwrap_or((0, 0));
    let ins: Vec<&(u64, String, u8)> = listing
        .iter()
        .filter(|(a, _, _)| (first..=last).contains(a))
        .collect();
    // The try_wait's success branch jumps over the spin; the issue block is skipped by
    // the forward branch after it when no copy remains.
    let tw = ins
        .iter()
        .position(|(_, s, _)| s.contains("TRYWAIT"))
        .unwrap_or(0);
    let skip_to = ins[tw..]
        .iter()
        .find_map(|(a, s, _)| target(s).filter(|t| t > a))
        .unwrap_or(0);
    let ublk = ins
        .iter()
        .position(|(_, s, _)| s.starts_with("UBLKCP"))
        .unwrap_or(0);
    let issue_branch = ins[..ublk]
        .iter()
        .rposition(|(a, s, _)| *a >= skip_to && target(s).is_some_and(|t| t > *a))
        .unwrap_or(0);
    let issue_end = ins[issue_branch].1.as_str();
    let issue_end = target(issue_end).unwrap_or(0);
    let mut out = String::new();
    for (k, (a, s, stall)) in ins.iter().enumerate() {
        if k > tw && *a > ins[tw].0 && *a < skip_to && k != tw + 1 && k != tw + 2 {
            continue;
        }
        let inside = k > issue_branch && *a < issue_end;
        let text = if s.contains("TRYWAIT") {
            "SYNCS.PHASECHK.TRANS64.TRYWAIT mb[i % S], parity=(i / S) & 1".to_string()
        } else if s.starts_with("SYNCS.ARRIVE.TRANS64") {
            "SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[i % S], bytes=C".to_string()
        } else if s.starts_with("UBLKCP") {
            format!(
                "UBLKCP.S.G s[(i % S) * C], A[(cta * {slice} + (i + S) * C) % R], bytes=C, bar=mb[i % S]"
            )
        } else if s.contains(" BRA") || s.starts_with("BRA") {
            "BRA".to_string()
        } else {
            "NOP".to_string()
        };
        let line = crate::validation::with_stall(&text, *stall);
        if k == issue_branch + 1 {
            out.push_str("    if i + S < {N}\n");
        }
        out.push_str(if inside { "      " } else { "    " });
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// How many of a loop body's lines are `op` (the unit a throughput counts).
fn count_op(body: &[String], op: &str) -> f64 {
    body.iter().filter(|l| l.starts_with(op)).count() as f64
}

fn header(name: &str, threads: u32, regs: u32, smem: u32, grid: u32) -> String {
    format!("kernel {name}\nlaunch cta_threads={threads} regs={regs} smem={smem} grid={grid}\n")
}

/// One warp, N copies of `op` (a dependent chain through its registers).
fn chain(bench: &str, group: &'static str, params: &'static [&'static str], op: &str) -> Twin {
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

/// One thread's pointer chase in the simulator: every load overwrites R1, so it waits for
/// the one before (in-order issue, WAW). `lines` distinct lines `stride` bytes apart,
/// walked `passes` times ({N} passes); the slope over passes is the per-step latency.
fn chase(
    bench: &str,
    group: &'static str,
    params: &'static [&'static str],
    ld: &str,
    lines: u64,
    stride: u64,
) -> Twin {
    let size = lines * stride;
    let src = format!(
        "{}buffer A size={size}\nrole main warps=0..0\n  loop p 0..{{N}}\n    loop i 0..{lines}\n      {ld} R2, A[i * {stride}]\n  EXIT\n",
        header("chase", 32, 32, 0, 1)
    );
    Twin {
        bench: bench.into(),
        group,
        params,
        method: Method::Slope {
            src,
            lo: 2,
            hi: 3,
            per: lines as f64,
        },
        what: format!(
            "one warp, `{ld}` chase over {lines} lines {stride} B apart, warm; cycles per step"
        ),
    }
}

/// A chase over lines never seen before (cold: every step misses L2 in the simulator).
fn cold_chase(bench: &str, params: &'static [&'static str]) -> Twin {
    let stride: u64 = (1 << 20) + 128;
    let src = format!(
        "{}buffer A size={}\nrole main warps=0..0\n  loop i 0..{{N}}\n    LDG.E.64 R2, A[i * {stride}]\n  EXIT\n",
        header("cold_chase", 32, 32, 0, 1),
        stride * 1100
    );
    Twin {
        bench: bench.into(),
        group: "ldg-hbm",
        params,
        method: Method::Slope { src, lo: 256, hi: 1024, per: 1.0 },
        what: "one warp, `LDG.E.64` chase over lines 1 MiB apart never touched before (L2 misses); cycles per step".into(),
    }
}

/// The tensor copies' box (`lat_tma2d`): rows of 64 u32 (256 B) from a tensor whose rows
/// are 1024 u32 (4 KiB) long.
const TMA2D_ROW: u64 = 256;
const TMA2D_PITCH: u64 = 4096;

/// Copies from HBM a twin times (each at new addresses, 4 MiB apart): their median's
/// standard error is about 1%.
const HBM_COPIES: i64 = 513;

/// One thread: expect_tx, one bulk copy (UBLKCP) or tensor copy (UTMALDG) of `bytes`,
/// wait on the mbarrier; {N} repetitions; per repetition.
fn copy_wait(bench: &str, group: &'static str, op: &str, bytes: u64, step: u64) -> Twin {
    // UTMALDG reads the benchmark's box row by row; UBLKCP one contiguous range.
    let (extent, tile) = if op.starts_with("UTMALDG") {
        (
            (bytes / TMA2D_ROW - 1) * TMA2D_PITCH + TMA2D_ROW,
            format!(", row={TMA2D_ROW}, pitch={TMA2D_PITCH}"),
        )
    } else {
        (bytes, String::new())
    };
    let size = (step * (HBM_COPIES as u64 + 1)).max(extent * 2) + extent;
    let src = format!(
        "{}buffer A size={size}\nshared s size={bytes}\nmbarrier mb[1] count=1\nrole main warps=0..0\n  loop r 0..{{N}}\n    SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[0], bytes={bytes}\n    {op} s[0], A[r * {step}], bytes={bytes}{tile}, bar=mb[0]\n    SYNCS.PHASECHK.TRANS64.TRYWAIT mb[0], parity=r & 1\n  EXIT\n",
        header("copy_wait", 32, 32, bytes as u32, 1)
    );
    Twin {
        bench: bench.into(),
        group,
        params: &[
            "tma_extra_latency",
            "tma_bytes_per_clk",
            "tma_issue_cycles",
            "lat_mbarrier_wake",
            "lat_mbarrier_tx_wake",
            "lat_l2_near",
            "lat_l2_far",
            "lat_hbm",
            "jitter_hbm",
            "lat_hbm_far_extra",
            "lat_hbm_tma_extra",
            "hbm_tail_window_probability",
            "hbm_tail_probability",
            "hbm_tail_min",
            "hbm_tail_max",
            "hbm_bytes_per_clk_sm_max",
            "hbm_burst_bytes_per_clk_sm",
            "hbm_burst_bytes",
            "l2_bytes_per_clk_sm_max",
        ],
        // From L2 every copy takes the same time: the slope of 8 to 24 copies. From HBM
        // a copy's time depends on its lines' addresses and draws (near or far, slow
        // chunks): the median of many copies at new addresses, as the measured reps.
        method: if step == 0 {
            Method::Slope {
                src,
                lo: 8,
                hi: 24,
                per: 1.0,
            }
        } else {
            Method::Median { src, n: HBM_COPIES }
        },
        what: format!(
            "one thread: EXPECT_TX, `{op}` of {bytes} B{} (source {}), TRYWAIT; cycles per copy",
            if tile.is_empty() {
                String::new()
            } else {
                format!(" in rows of {TMA2D_ROW} B, {TMA2D_PITCH} B apart")
            },
            if step == 0 {
                "the same, in L2"
            } else {
                "new lines each time; the median copy of 512"
            }
        ),
    }
}

/// The instructions a wgmma latency kernel runs between the two clock reads of one
/// repetition, each with its stall count: the first read (an issue slot), WARPGROUP.ARRIVE,
/// the K HGMMAs with ptxas's NOPs, WARPGROUP.DEPBAR. The last such window in the dump
/// (the unrolled loop's; every repetition's window has the same counts).
fn clock_window(func: &str) -> Vec<(String, u8)> {
    let listing = crate::validation::sass_listing(MICRO_SASS, func);
    let reads: Vec<usize> = listing
        .iter()
        .enumerate()
        .filter(|(_, (_, s, _))| s.contains("SR_CLOCKLO"))
        .map(|(i, _)| i)
        .collect();
    let (a, b) = reads
        .windows(2)
        .map(|w| (w[0], w[1]))
        .rfind(|&(a, b)| {
            let between = &listing[a + 1..b];
            between.iter().any(|(_, s, _)| s.starts_with("HGMMA"))
                && !between.iter().any(|(_, s, _)| s.contains("BRA"))
        })
        .unwrap_or_else(|| panic!("{func}: no clock-to-clock window around HGMMA"));
    listing[a..b]
        .iter()
        .map(|(_, s, stall)| (s.clone(), *stall))
        .collect()
}

/// One warpgroup: the clock-to-clock window of `wgmma_lat_n{N}_k{K}` (ARRIVE, K x HGMMA
/// 64xNx16, the last committing, DEPBAR gsb0 0, with the SASS's stall counts); the span
/// from the first read to the second, as measured (thread 0's t1 - t0 of one repetition,
/// the tensor pipe idle at t0).
fn wgmma_lat_src(n: u32, k: u32) -> String {
    let func = format!("wgmma_lat_n{n}_k{k}");
    let mut body = String::new();
    let mut mmas = 0;
    for (ins, stall) in clock_window(&func) {
        mmas += u32::from(ins.starts_with(&format!("HGMMA.64x{n}x16.F32.BF16")));
        body.push_str(&format!("  {}\n", wgmma_line(&ins, stall, false, n)));
    }
    assert_eq!(mmas, k, "{func}: not {k} HGMMA between the clock reads");
    format!(
        "{}shared sA size=16384\nshared sB size=16384\nrole mma warps=0..3\n{body}  EXIT\n",
        header(&func, 128, 168, 32768, 1)
    )
}

fn wgmma(bench: &str, n: u32, k: u32) -> Twin {
    Twin {
        bench: bench.into(),
        group: "wgmma",
        params: &["hgmma_latency", "tensor_flops_per_clk_sm"],
        method: Method::Span {
            src: wgmma_lat_src(n, k),
            per: 1.0,
        },
        what: format!(
            "one warpgroup: what `wgmma_lat_n{n}_k{k}` runs between its clock reads (ARRIVE, {k} x HGMMA.64x{n}x16 (A, B in shared), DEPBAR gsb0 0; stall counts from the SASS); cycles from read to read"
        ),
    }
}

fn wgmma_interval(bench: &str, n: u32) -> Twin {
    Twin {
        bench: bench.into(),
        group: "wgmma",
        params: &["hgmma_latency", "tensor_flops_per_clk_sm"],
        method: Method::Pair {
            lo_src: wgmma_lat_src(n, 8),
            hi_src: wgmma_lat_src(n, 32),
            n: 0,
            per: 24.0,
        },
        what: format!("HGMMA.64x{n}x16: (time of 32 back to back - time of 8) / 24"),
    }
}

/// One or two warpgroups, each ITERS x (K HGMMA.64x256x16 as one group, wait_group 0);
/// cycles per HGMMA on the SM, as measured: (last warp's end - first warp's start) / (ITERS
/// x K x warpgroups), with ITERS = 64 (`bench::tp_wgmma_pair`). The twin runs what each
/// warp of `wgmma_pair_n256_k{K}` runs between its two clock reads (`timed_path`): the
/// accumulators' zeroing that ptxas put after the first read (two runs of 64 CS2R with a
/// stall count of 2, about 330 cycles before the first ARRIVE), the unrolled loop with its
/// stall counts (WARPGROUP.ARRIVE holds the warp 15 cycles and a NOP 8 before the group's
/// first HGMMA, every HGMMA but the last 15 and a NOP 13 more, the DEPBAR 2), and the last
/// group's completion and the branches to the second read.
fn wgmma_pair(bench: &str, k: u32, wgs: u32) -> Twin {
    let func = format!("wgmma_pair_n256_k{k}");
    let iters = 64;
    let (src, mmas) = wgmma_span_src(
        &func,
        0,
        iters,
        1,
        wgs,
        "shared sA size=16384\nshared sB size=16384\n",
        32768,
    );
    assert_eq!(mmas, k, "{func}: not {k} HGMMA per iteration");
    Twin {
        bench: bench.into(),
        group: "wgmma",
        params: &["hgmma_latency", "tensor_flops_per_clk_sm"],
        method: Method::Span {
            src,
            per: f64::from(iters * k * wgs),
        },
        what: format!(
            "{wgs} warpgroup(s), each runs what `{func}`'s SASS runs between its clock reads with 64 iterations (the accumulators' zeroing, the loop of groups of {k} HGMMA.64x256x16: ARRIVE, the group, DEPBAR gsb0 0; stall counts from the SASS); span / HGMMAs"
        ),
    }
}

/// Two warpgroups, ITERS = 64 k-steps of four HGMMA.64x256x16 over the k-slices of one
/// stage (`wgmma_slices`, mode 0 and 2: each its own group and waited for; mode 1: one
/// group of four); span / (ITERS x 8) as measured. The twin runs what each warp runs
/// between its clock reads (`timed_path`: mode 0's loop is the first after the read,
/// mode 1's the third), with the stall counts and the R2UR that reload the descriptors
/// between the MMAs as issue slots.
fn wgmma_slices(bench: &str, serialized: bool) -> Twin {
    let iters = 64;
    let (nth, groups) = if serialized { (0, 4) } else { (2, 1) };
    let (src, mmas) = wgmma_span_src(
        "wgmma_slices",
        nth,
        iters,
        groups,
        2,
        "shared sA size=16384\nshared sB size=32768\n",
        49152,
    );
    assert_eq!(mmas, 4, "wgmma_slices: not four HGMMA per k-step");
    Twin {
        bench: bench.into(),
        group: "wgmma",
        params: &["hgmma_latency", "tensor_flops_per_clk_sm"],
        method: Method::Span {
            src,
            per: f64::from(iters * 8),
        },
        what: format!(
            "two warpgroups run what `wgmma_slices`'s SASS runs between its clock reads with 64 k-steps of four HGMMA.64x256x16 over k-slices of one stage, {} (stall counts from the SASS); span / HGMMAs",
            if serialized {
                "each its own group, waited for"
            } else {
                "one group"
            }
        ),
    }
}

/// One warp-load whose 32 lanes touch `lines` lines of a 4 KiB block, a dependent chain
/// over `blocks` blocks (`ld`: through L1; `LDG.E.64.CG`: L2).
fn chase_lines(
    bench: &str,
    group: &'static str,
    params: &'static [&'static str],
    ld: &str,
    lines: u32,
    blocks: u64,
) -> Twin {
    let src = format!(
        "{}buffer A size={}\nrole main warps=0..0\n  loop p 0..{{N}}\n    loop i 0..{blocks}\n      {ld} R2, A[i * 4096 + (lane % {lines}) * 128 + ((lane / {lines}) % 16) * 8]\n  EXIT\n",
        header("chase_lines", 32, 32, 0, 1),
        blocks * 4096
    );
    Twin {
        bench: bench.into(),
        group,
        params,
        method: Method::Slope {
            src,
            lo: 2,
            hi: 3,
            per: blocks as f64,
        },
        what: format!(
            "one warp, `{ld}` chase whose every warp-load touches {lines} lines (lanes spread as the CUDA kernel spreads them); cycles per step"
        ),
    }
}

/// The BAR.SYNC loop with `warps` warps.
fn barsync(bench: &str, warps: u32) -> Twin {
    let src = format!(
        "{}role all warps=0..{}\n  loop i 0..{{N}}\n    BAR.SYNC 0\n  EXIT\n",
        header("barsync", warps * 32, 32, 0, 1),
        warps - 1
    );
    Twin {
        bench: bench.into(),
        group: "sync",
        params: &[
            "lat_bar",
            "bar_arrive_cycles_per_warp",
            "sync_issue_interval",
        ],
        method: Method::Slope {
            src,
            lo: 64,
            hi: 320,
            per: 1.0,
        },
        what: format!("{warps} warps, back-to-back BAR.SYNC 0; cycles per barrier"),
    }
}

fn mbar_pingpong(bench: &str, per: f64) -> Twin {
    let src = format!(
        "{}mbarrier b[2] count=1\nrole ping warps=0..0\n  loop i 0..{{N}}\n    SYNCS.ARRIVE.TRANS64 b[0]\n    SYNCS.PHASECHK.TRANS64.TRYWAIT b[1], parity=i & 1\n  EXIT\nrole pong warps=1..1\n  loop i 0..{{N}}\n    SYNCS.PHASECHK.TRANS64.TRYWAIT b[0], parity=i & 1\n    SYNCS.ARRIVE.TRANS64 b[1]\n  EXIT\n",
        header("mbar_pingpong", 64, 32, 0, 1)
    );
    Twin {
        bench: bench.into(),
        group: "sync",
        params: &["lat_mbarrier_wake", "sync_issue_interval"],
        method: Method::Slope {
            src,
            lo: 64,
            hi: 320,
            per,
        },
        what: "two warps hand an mbarrier phase back and forth (arrive, the other's wait returns)"
            .into(),
    }
}

fn mbar_self(bench: &str) -> Twin {
    let src = format!(
        "{}mbarrier b[1] count=1\nrole main warps=0..0\n  loop i 0..{{N}}\n    SYNCS.ARRIVE.TRANS64 b[0]\n    SYNCS.PHASECHK.TRANS64.TRYWAIT b[0], parity=i & 1\n  EXIT\n",
        header("mbar_self", 32, 32, 0, 1)
    );
    Twin {
        bench: bench.into(),
        group: "sync",
        params: &[
            "lat_mbarrier_probe",
            "lat_mbarrier_arrive",
            "sync_issue_interval",
        ],
        method: Method::Slope {
            src,
            lo: 64,
            hi: 320,
            per: 1.0,
        },
        what: "one warp arrives on an mbarrier (count 1) and waits for the phase it completed"
            .into(),
    }
}

/// One warp waits again and again on a phase completed before the loop.
fn mbar_probe(bench: &str) -> Twin {
    let src = format!(
        "{}mbarrier b[1] count=1\nrole main warps=0..0\n  SYNCS.ARRIVE.TRANS64 b[0]\n  loop i 0..{{N}}\n    SYNCS.PHASECHK.TRANS64.TRYWAIT b[0], parity=0\n  EXIT\n",
        header("mbar_probe", 32, 32, 0, 1)
    );
    Twin {
        bench: bench.into(),
        group: "sync",
        params: &["lat_mbarrier_probe", "sync_issue_interval"],
        method: Method::Slope {
            src,
            lo: 64,
            hi: 320,
            per: 1.0,
        },
        what: "one warp: try_wait on a phase that completed before the loop; cycles per try_wait"
            .into(),
    }
}

/// 32 warps (1024 threads) run `body` per iteration; rate = units per clock per SM.
#[allow(clippy::too_many_arguments)]
fn tp_loop(
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

/// Streaming 16-byte loads, 8 independent per thread per iteration, then XORs; `grid`
/// CTAs of 1024 threads, chip share of the bandwidth; bytes per clock (x SMs for chip).
fn bw_ld(
    bench: &str,
    group: &'static str,
    params: &'static [&'static str],
    region: u64,
    warm: bool,
    grid: u32,
) -> Twin {
    let threads = 1024u64;
    let mut body = String::new();
    // As the CUDA kernel (micro.cu, bw_ld): a grid-strided stream, thread `idx` of
    // `T = grid * 1024` reading 16 bytes at (idx + (it * 8 + u) * T) modulo the region,
    // so every CTA reads its own data.
    let t_all = grid as u64 * threads;
    for u in 0..8 {
        body.push_str(&format!(
            "    LDG.E.128 R{}, A[(((cta * {threads} + warp * 32 + lane) + (it * 8 + {u}) * {t_all}) * 16) % {region}]\n",
            4 * u + 8
        ));
    }
    let per_iter = (threads * 16 * 8) as f64;
    let iters_per_pass = (region as f64 / per_iter) as i64;
    let (lo, hi) = if warm {
        (iters_per_pass * 2, iters_per_pass * 3)
    } else {
        (8, 24)
    };
    let src = format!(
        "{}buffer A size={region}\nrole all warps=0..31\n  loop it 0..{{N}}\n{body}  EXIT\n",
        header("bw_ld", 1024, 64, 0, grid)
    );
    Twin {
        bench: bench.into(),
        group,
        params,
        method: Method::Rate {
            src,
            lo,
            hi,
            work_per_n: per_iter,
            mult: if grid > 1 { 132.0 } else { 1.0 },
        },
        what: format!(
            "{grid} CTA(s) of 32 warps, 8 LDG.E.128 per thread per iteration over {} ({}); bytes per clock{}",
            human(region),
            if warm {
                "warm in L2"
            } else {
                "streaming from HBM"
            },
            if grid > 1 { " x 132 SMs" } else { "" }
        ),
    }
}

/// One thread keeps `stages` bulk copies of `chunk` bytes in flight (bw_bulk).
fn bw_tma(
    bench: &str,
    group: &'static str,
    chunk: u64,
    stages: u64,
    region: u64,
    warm: bool,
    grid: u32,
) -> Twin {
    bw_tma_slices(bench, group, chunk, stages, region, warm, grid, true)
}

/// `own_slices`: each CTA streams its own slice of the region (false: all stream the
/// same bytes, block stride 0, as `bw.tma.l2.chip.same_data`).
#[allow(clippy::too_many_arguments)]
fn bw_tma_slices(
    bench: &str,
    group: &'static str,
    chunk: u64,
    stages: u64,
    region: u64,
    warm: bool,
    grid: u32,
    own_slices: bool,
) -> Twin {
    let per_pass = (region / chunk) as i64;
    let (lo, hi) = if warm && region > 4 << 20 {
        // a large region: one pass warms L2 (the difference is one warm pass)
        (per_pass, per_pass * 2)
    } else if warm {
        (per_pass * 2, per_pass * 4)
    } else {
        (16, 48)
    };
    // As the CUDA kernel (micro.cu, bw_bulk), each CTA streams its own slice of the
    // region (blockIdx.x * block_stride), so data no other CTA reads comes from HBM.
    let slice = if own_slices {
        (region / grid as u64) / chunk * chunk
    } else {
        0
    };
    let src = format!(
        "{}buffer A size={region}\nshared s size={}\nmbarrier mb[{stages}] count=1\nparam S={stages} C={chunk} R={region}\nrole main warps=0..0\n  loop i 0..S\n    SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[i], bytes=C\n    UBLKCP.S.G s[i * C], A[(cta * {slice} + i * C) % R], bytes=C, bar=mb[i]\n  loop i 0..{{N}}\n{}  EXIT\n",
        header("bw_tma", 32, 32, (chunk * stages) as u32, grid),
        chunk * stages,
        bw_bulk_loop(slice)
    );
    Twin {
        bench: bench.into(),
        group,
        params: &[
            "tma_issue_cycles",
            "tma_bytes_per_clk",
            "tma_extra_latency",
            "l2_bytes_per_clk_sm_max",
            "l2_bytes_per_clk_chip",
            "l2_shared_read_gain",
            "hbm_bytes_per_clk_chip",
            "hbm_bytes_per_clk_sm_max",
            "hbm_burst_bytes_per_clk_sm",
            "hbm_burst_bytes",
            "lat_hbm",
            "jitter_hbm",
            "lat_hbm_far_extra",
            "lat_hbm_tma_extra",
            "hbm_tail_window_probability",
            "hbm_tail_probability",
            "lat_mbarrier_wake",
            "lat_mbarrier_tx_wake",
        ],
        method: Method::Rate {
            src,
            lo,
            hi,
            work_per_n: chunk as f64,
            mult: if grid > 1 { 132.0 } else { 1.0 },
        },
        what: format!(
            "{grid} CTA(s): one thread keeps {stages} UBLKCP of {} in flight over {}; bytes per clock{}",
            human(chunk),
            human(region),
            if grid > 1 { " x 132" } else { "" }
        ),
    }
}

fn human(b: u64) -> String {
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
    if bench.starts_with("clock.") && bench != "clock.sm.tensor.globaltimer" {
        return Some("a clock reading; the profile takes the clock under tensor load");
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

/// Every microbenchmark twin, by benchmark name.
#[allow(clippy::vec_init_then_push)]
pub fn micro_twins() -> Vec<Twin> {
    let mut v = Vec::new();
    // --- fixed latencies (registers from the SASS: banks matter)
    v.push(chain(
        "lat.ffma",
        "alu-latency",
        &[
            "lat_fma",
            "reg_banks",
            "reg_bank_ports",
            "reg_bank_conflict_cycles",
        ],
        "FFMA R0, R0, R2, R3",
    ));
    v.push(chain(
        "lat.fadd",
        "alu-latency",
        &[
            "lat_fma",
            "reg_banks",
            "reg_bank_ports",
            "reg_bank_conflict_cycles",
        ],
        "FADD R11, R11, 0.5",
    ));
    v.push(chain(
        "lat.imad",
        "alu-latency",
        &[
            "lat_imad",
            "reg_banks",
            "reg_bank_ports",
            "reg_bank_conflict_cycles",
        ],
        "IMAD R13, R13, R2, R3",
    ));
    v.push(chain(
        "lat.iadd3",
        "alu-latency",
        &[
            "lat_alu",
            "reg_banks",
            "reg_bank_ports",
            "reg_bank_conflict_cycles",
        ],
        "IADD3 R13, R3, R13, R2",
    ));
    v.push(chain(
        "lat.lop3",
        "alu-latency",
        &[
            "lat_alu",
            "reg_banks",
            "reg_bank_ports",
            "reg_bank_conflict_cycles",
        ],
        "LOP3.LUT R13, R13, R2, R3, 0x96",
    ));
    v.push(chain(
        "lat.mufu.ex2",
        "mufu",
        &["lat_mufu"],
        "MUFU.EX2 R11, R11",
    ));
    v.push(chain(
        "lat.mufu.rcp",
        "mufu",
        &["lat_mufu"],
        "MUFU.RCP R11, R11",
    ));
    {
        let src = format!(
            "{}shared s size=4096\nrole main warps=0..0\n  loop i 0..{{N}}\n    LDS R1, s[(i % 8) * 4]\n  EXIT\n",
            header("lds_chain", 32, 32, 4096, 1)
        );
        v.push(Twin {
            bench: "lat.lds".into(),
            group: "shared",
            params: &["lat_lds", "smem_bytes_per_clk"],
            method: Method::Slope { src, lo: 64, hi: 320, per: 1.0 },
            what: "one warp, LDS chain (each load overwrites R1, so it waits for the one before); cycles per step".into(),
        });
    }
    // --- LDG chases
    let l1p: &'static [&'static str] = &["lat_l1_hit", "l1_lines_per_clk"];
    for (name, fp) in [
        ("fp_4KiB", 4u64 << 10),
        ("fp_16KiB", 16 << 10),
        ("fp_64KiB", 64 << 10),
        ("fp_128KiB", 128 << 10),
        ("fp_192KiB", 192 << 10),
    ] {
        v.push(chase(
            &format!("lat.ldg.ld.{name}"),
            "ldg-l1",
            l1p,
            "LDG.E.64",
            fp / 128,
            128,
        ));
    }
    v.push(chase(
        "lat.ldg.ca.fp_4KiB",
        "ldg-l1",
        l1p,
        "LDG.E.64.CA",
        32,
        128,
    ));
    v.push(chase(
        "lat.ldg.ca.fp_64KiB",
        "ldg-l1",
        l1p,
        "LDG.E.64.CA",
        512,
        128,
    ));
    v.push(chase(
        "lat.ldg.ld.per_sm.fp_4KiB",
        "ldg-l1",
        l1p,
        "LDG.E.64",
        32,
        128,
    ));
    let l2p: &'static [&'static str] =
        &["lat_l2_near", "lat_l2_far", "jitter_l2", "l1_lines_per_clk"];
    for (name, fp) in [
        ("fp_512KiB", 512u64 << 10),
        ("fp_1MiB", 1 << 20),
        ("fp_2MiB", 2 << 20),
        ("fp_4MiB", 4 << 20),
        ("fp_8MiB", 8 << 20),
        ("fp_16MiB", 16 << 20),
    ] {
        v.push(chase(
            &format!("lat.ldg.ld.{name}"),
            "ldg-l2",
            l2p,
            "LDG.E.64",
            4096,
            fp / 4096,
        ));
    }
    v.push(chase(
        "lat.ldg.cg.fp_1MiB",
        "ldg-l2",
        l2p,
        "LDG.E.64.CG",
        4096,
        256,
    ));
    v.push(chase(
        "lat.ldg.cg.fp_16MiB",
        "ldg-l2",
        l2p,
        "LDG.E.64.CG",
        4096,
        4096,
    ));
    v.push(chase(
        "lat.ldg.ld.per_sm.fp_16MiB",
        "ldg-l2",
        l2p,
        "LDG.E.64",
        4096,
        4096,
    ));
    let hp: &'static [&'static str] = &[
        "lat_hbm",
        "jitter_hbm",
        "lat_hbm_far_extra",
        "hbm_tail_window_probability",
        "hbm_tail_probability",
        "hbm_tail_min",
        "hbm_tail_max",
    ];
    v.push(cold_chase("lat.ldg.ld.fp_64MiB", hp));
    v.push(cold_chase("lat.ldg.ld.fp_256MiB_cold", hp));
    v.push(cold_chase("lat.ldg.ld.fp_1GiB_cold", hp));
    // --- LDGSTS: copy 16 B, commit, wait, LDS it back; the next address comes from the
    // value. The twin runs the SASS's timed loop (64 steps): per step three `@!PT LDS RZ,
    // [RZ]` (ptxas puts them before every LDGSTS; predicated off, an issue slot each),
    // LDGSTS (waiting for the register the previous LDS wrote), LDGDEPBAR, DEPBAR.LE SB0
    // and the LDS, each with its control code's stall count.
    for (bench, func, stride, lines) in [
        ("lat.ldgsts.ca16.fp_4KiB", "lat_ldgsts_ca16", 128u64, 32u64),
        ("lat.ldgsts.cg16.fp_4MiB", "lat_ldgsts_cg16", 1024, 4096),
    ] {
        let (body, steps) = ldgsts_loop(func, lines, stride);
        let iters = (lines / steps).max(1);
        let src = format!(
            "{}buffer A size={}\nshared s size=256\nrole main warps=0..0\n  loop p 0..{{N}}\n    loop i 0..{iters}\n{}  EXIT\n",
            header("ldgsts", 32, 32, 256, 1),
            stride * lines,
            body.iter()
                .map(|l| format!("      {l}\n"))
                .collect::<String>()
        );
        v.push(Twin {
            bench: bench.into(),
            group: "ldgsts",
            params: &[
                "lat_l1_hit",
                "lat_l2_near",
                "lat_l2_far",
                "lat_lds",
                "lat_ldgsts_fill",
            ],
            method: Method::Slope {
                src,
                lo: 2,
                hi: 3,
                per: (iters * steps) as f64,
            },
            what: format!("one warp runs `{func}`'s SASS loop ({steps} steps of three predicated-off LDS, LDGSTS 16 B, LDGDEPBAR, DEPBAR.LE SB0 0, LDS of the next address; stall counts from the SASS) over {lines} lines {stride} B apart; cycles per step"),
        });
    }
    // --- bulk and tensor copies: latency
    for (kib, bytes) in [
        (1u64, 1024u64),
        (2, 2048),
        (4, 4096),
        (8, 8192),
        (16, 16384),
        (32, 32768),
        (64, 65536),
    ] {
        v.push(copy_wait(
            &format!("lat.bulk.l2.{kib}KiB"),
            "tma-latency-l2",
            "UBLKCP.S.G",
            bytes,
            0,
        ));
        v.push(copy_wait(
            &format!("lat.bulk.hbm.{kib}KiB"),
            "tma-latency-hbm",
            "UBLKCP.S.G",
            bytes,
            4 << 20,
        ));
        v.push(copy_wait(
            &format!("lat.tma2d.l2.{kib}KiB"),
            "tma-latency-l2",
            "UTMALDG.2D",
            bytes,
            0,
        ));
        v.push(copy_wait(
            &format!("lat.tma2d.hbm.{kib}KiB"),
            "tma-latency-hbm",
            "UTMALDG.2D",
            bytes,
            4 << 20,
        ));
    }
    // --- wgmma
    for n in [64u32, 128, 256] {
        for k in [1u32, 2, 4, 8, 16, 32] {
            v.push(wgmma(&format!("lat.wgmma.m64n{n}k16.bf16.k{k}"), n, k));
        }
        let mut t = wgmma(
            &format!("lat.wgmma.m64n{n}k16.bf16.issue_to_complete"),
            n,
            1,
        );
        t.what = format!("= k1: one warpgroup, ARRIVE, HGMMA.64x{n}x16, DEPBAR gsb0 0");
        v.push(t);
        v.push(wgmma_interval(
            &format!("lat.wgmma.m64n{n}k16.bf16.interval"),
            n,
        ));
    }
    for k in crate::sources::WGMMA_PAIR_K {
        for wgs in [1u32, 2] {
            v.push(wgmma_pair(
                &format!("tp.wgmma_pair.m64n256k16.k{k}.warpgroups_{wgs}"),
                k,
                wgs,
            ));
        }
    }
    for (label, serialized) in [
        ("serialized", true),
        ("one_group", false),
        ("serialized_one_slice", true),
    ] {
        v.push(wgmma_slices(
            &format!("tp.wgmma_slices.m64n256k16.{label}"),
            serialized,
        ));
    }
    // --- uncoalesced loads: lines per warp-load
    for lines in [1u32, 2, 4, 8, 16, 32] {
        v.push(chase_lines(
            &format!("lat.ldg_lines.l1.lines_{lines}"),
            "ldg-lines",
            &[
                "lat_l1_hit",
                "l1_sector_cycles",
                "l1_line_cycles",
                "l1_line_cap",
                "l1_lines_per_clk",
            ],
            "LDG.E.64",
            lines,
            16,
        ));
        v.push(chase_lines(
            &format!("lat.ldg_lines.l2.lines_{lines}"),
            "ldg-lines",
            &[
                "lat_l2_near",
                "lat_l2_far",
                "l2_line_cycles",
                "l2_line_cap",
                "l1_lines_per_clk",
            ],
            "LDG.E.64.CG",
            lines,
            256,
        ));
    }
    // --- the softmax's other instructions (kernels/mio.cu)
    v.push(chain(
        "lat.shfl",
        "shuffle",
        &["lat_shfl", "smem_bytes_per_clk"],
        "SHFL.BFLY R13, R13, R0, 0x1f",
    ));
    v.push(chain(
        "lat.fmnmx",
        "alu-latency",
        &["lat_alu"],
        "FMNMX R11, R11, 0.5, !PT",
    ));
    v.push(chain(
        "lat.f2fp",
        "alu-latency",
        &["lat_alu"],
        "F2FP.BF16.F32.PACK_AB R11, R11, 0.5",
    ));
    // --- the uniform datapath (kernels/uni.cu): each chain as the gemm twins translate
    // its SASS (`validation::translate_scalar`: UIMAD as IMAD, every other uniform
    // instruction as IADD3, UISETP as ISETP; uniform registers become vector registers,
    // here the vector twins' registers so that the banks match theirs)
    let banks: &[&str] = &[
        "lat_alu",
        "reg_banks",
        "reg_bank_ports",
        "reg_bank_conflict_cycles",
    ];
    v.push(chain(
        "lat.uiadd3",
        "alu-latency",
        banks,
        "IADD3 R13, R3, R13, R2",
    ));
    v.push(chain(
        "lat.uimad",
        "alu-latency",
        &[
            "lat_imad",
            "reg_banks",
            "reg_bank_ports",
            "reg_bank_conflict_cycles",
        ],
        "IMAD R13, R13, R2, R3",
    ));
    v.push(chain(
        "lat.ulop3",
        "alu-latency",
        banks,
        "IADD3 R13, R13, R2, R3",
    ));
    v.push(chain(
        "lat.ushf",
        "alu-latency",
        banks,
        "IADD3 R13, R13, R2, R13",
    ));
    v.push(chain(
        "lat.usel",
        "alu-latency",
        banks,
        "ISETP.NE.AND P0, PT, R13, R2, PT\n    IADD3 R13, R13, R3, P0",
    ));
    for (bench, f, op, group, params) in [
        (
            "tp.shfl",
            "tp_shfl",
            "SHFL",
            "shuffle",
            &["smem_bytes_per_clk", "lat_shfl", "mio_queue_depth"][..],
        ),
        (
            "tp.fmnmx",
            "tp_fmnmx",
            "FMNMX",
            "throughput",
            &["alu_issue_interval", "lat_alu"][..],
        ),
        (
            "tp.f2fp",
            "tp_f2fp",
            "F2FP",
            "throughput",
            &["alu_issue_interval", "lat_alu"][..],
        ),
    ] {
        // SASS writes SHFL's predicate output first; the kernel format leaves it out.
        let body: Vec<String> = sass_loop(f, op)
            .into_iter()
            .map(|s| s.replacen(" PT, ", " ", 1))
            .collect();
        let params: &'static [&'static str] = params;
        v.push(tp_loop(
            bench,
            group,
            params,
            &body,
            32,
            count_op(&body, op),
            0,
            "",
        ));
    }
    // --- synchronization
    for w in [1u32, 2, 4, 8, 16, 32] {
        v.push(barsync(&format!("lat.bar_sync.warps_{w}"), w));
    }
    v.push(mbar_pingpong("lat.mbarrier.pingpong_roundtrip", 1.0));
    v.push(mbar_pingpong("lat.mbarrier.arrive_to_wait", 2.0));
    v.push(mbar_self("lat.mbarrier.self_arrive_wait"));
    v.push(mbar_probe("lat.mbarrier.probe_completed"));
    // --- throughput loops (bodies from the SASS)
    let ffma = sass_loop("tp_ffma", "FFMA");
    v.push(tp_loop(
        "tp.ffma",
        "throughput",
        &[
            "fma_issue_interval",
            "lat_fma",
            "reg_banks",
            "reg_bank_ports",
            "reg_bank_conflict_cycles",
        ],
        &ffma,
        32,
        count_op(&ffma, "FFMA"),
        0,
        "",
    ));
    // --- one warp per sub-partition of the same loop: how often a lone warp issues
    for w in [1u32, 4] {
        v.push(tp_loop(
            &format!("tp.ffma.warps_{w}"),
            "throughput",
            &["fma_issue_interval", "lat_fma", "branch_target_cycles"],
            &ffma,
            w,
            count_op(&ffma, "FFMA"),
            0,
            "",
        ));
    }
    // --- the scheduler's order: tp_ffma's loop with 8 and 16 warps, every warp ready
    for w in [8u32, 16, 12, 20, 28] {
        let mut b = String::new();
        for l in &ffma {
            b.push_str("    ");
            b.push_str(l);
            b.push('\n');
        }
        let src = format!(
            "{}role all warps=0..{}\n  loop it 0..{{N}}\n{b}  EXIT\n",
            header("sched", w * 32, 64, 0, 1),
            w - 1
        );
        v.push(Twin {
            bench: format!("sched.first_finish.warps_{w}"),
            group: "scheduler",
            params: &["fma_issue_interval"],
            method: Method::FirstFinish { src, n: 64 },
            what: format!(
                "{w} warps of tp_ffma's loop (as in the SASS), 64 iterations: first warp's end over the last one's"
            ),
        });
    }
    for (bench, f) in [
        ("tp.mufu.ex2", "tp_mufu_ex2"),
        ("tp.mufu.rcp", "tp_mufu_rcp"),
    ] {
        let body: Vec<String> = sass_loop(f, "MUFU")
            .into_iter()
            .map(|s| s.replace('|', ""))
            .collect();
        v.push(tp_loop(
            bench,
            "throughput",
            &["mufu_issue_interval", "lat_mufu"],
            &body,
            32,
            count_op(&body, "MUFU"),
            0,
            "",
        ));
    }
    for (bench, vec) in [("tp.lds32", 1u32), ("tp.lds128", 4)] {
        let mut body = Vec::new();
        for u in 0..8u32 {
            let op = if vec == 4 { "LDS.128" } else { "LDS" };
            body.push(format!(
                "{op} R{}, s[(it % 8) * {} + {} + lane * {}]",
                8 + 4 * u,
                8 * 128 * vec,
                u * 128 * vec,
                4 * vec
            ));
        }
        for u in 0..8u32 {
            body.push(format!("LOP3.LUT R4, R4, R{}, R5, 0x96", 8 + 4 * u));
        }
        let decl = "shared s size=32768\n";
        v.push(tp_loop(
            bench,
            "shared",
            &["smem_bytes_per_clk", "lat_lds", "mio_queue_depth"],
            &body,
            32,
            (8 * 4 * vec) as f64,
            32768,
            decl,
        ));
    }
    // --- register banks (the 64 FFMAs of each loop, from the SASS)
    for (kind, f) in [("diff", "rb_diff"), ("two", "rb_two"), ("same", "rb_same")] {
        let body = sass_loop(f, "FFMA");
        for w in [32u32, 1] {
            v.push(tp_loop(
                &format!("regbank.{kind}.warps_{w}"),
                "regbank",
                &[
                    "reg_banks",
                    "reg_bank_ports",
                    "reg_bank_conflict_cycles",
                    "lat_fma",
                    "fma_issue_interval",
                ],
                &body,
                w,
                count_op(&body, "FFMA"),
                0,
                "",
            ));
        }
    }
    // --- bandwidth
    let l2bw: &'static [&'static str] = &[
        "l2_bytes_per_clk_sm_max",
        "l2_bytes_per_clk_chip",
        "l1_lines_per_clk",
        "lsu_queue_depth",
        "lat_l2_near",
        "lat_l2_far",
    ];
    let hbmbw: &'static [&'static str] = &[
        "l2_bytes_per_clk_sm_max",
        "hbm_bytes_per_clk_chip",
        "hbm_bytes_per_clk_sm_max",
        "hbm_burst_bytes_per_clk_sm",
        "hbm_burst_bytes",
        "l1_lines_per_clk",
        "lsu_queue_depth",
        "lat_hbm",
    ];
    v.push(bw_ld(
        "bw.l2.one_sm.bytes_per_clk",
        "bandwidth",
        l2bw,
        4 << 20,
        true,
        1,
    ));
    v.push(bw_ld(
        "bw.l2.chip.bytes_per_clk",
        "bandwidth",
        l2bw,
        4 << 20,
        true,
        132,
    ));
    v.push(bw_ld(
        "bw.hbm.one_sm.bytes_per_clk",
        "bandwidth",
        hbmbw,
        1 << 30,
        false,
        1,
    ));
    v.push(bw_ld(
        "bw.hbm.chip.bytes_per_clk",
        "bandwidth",
        hbmbw,
        1 << 30,
        false,
        132,
    ));
    v.push(bw_tma(
        "bw.tma.l2.one_sm.bytes_per_clk",
        "tma-bandwidth",
        32768,
        4,
        1 << 20,
        true,
        1,
    ));
    v.push(bw_tma(
        "bw.tma.hbm.one_sm.bytes_per_clk",
        "tma-bandwidth",
        32768,
        4,
        1 << 30,
        false,
        1,
    ));
    // 16 MiB as the CUDA kernel: its block stride (16 MiB / 132, in whole 32 KiB chunks)
    // gives each CTA its own starting point, so few lines are read by many SMs at once.
    v.push(bw_tma(
        "bw.tma.l2.chip.bytes_per_clk",
        "tma-bandwidth",
        32768,
        4,
        16 << 20,
        true,
        132,
    ));
    v.push(bw_tma_slices(
        "bw.tma.l2.chip.same_data.bytes_per_clk",
        "tma-bandwidth",
        32768,
        4,
        16 << 20,
        true,
        132,
        false,
    ));
    v.push(bw_tma(
        "bw.tma.hbm.chip.bytes_per_clk",
        "tma-bandwidth",
        32768,
        4,
        1 << 30,
        false,
        132,
    ));
    for chunk_kib in [8u64, 16, 32] {
        for stages in [2u64, 4, 6] {
            v.push(bw_tma(
                &format!("bw.tma.l2.one_sm.chunk_{chunk_kib}KiB.stages_{stages}.bytes_per_clk"),
                "tma-bandwidth",
                chunk_kib << 10,
                stages,
                1 << 20,
                true,
                1,
            ));
        }
    }
    v.push(Twin {
        bench: "clock.sm.tensor.globaltimer".into(),
        group: "clock",
        params: &["clock_mhz"],
        method: Method::Direct { param: "clock_mhz" },
        what: "the profile's clock is the SM clock measured under full-chip wgmma load".into(),
    });
    v
}
