//! Warpgroup MMA (HGMMA): latency, issue interval, serialized groups of one and two warpgroups, the gemm consumer's k-slices.
//!
//! The collector's section (run on the GPU) and the simulated twins of its benchmarks, side by side.

use crate::bench::*;
use crate::gpu::{Result, arg};
use crate::sources::{self, WGMMA_K, WGMMA_N};
use crate::twins::*;
use std::collections::BTreeMap;

impl Runner {
    pub(crate) fn lat_wgmma(&mut self) -> Result<()> {
        let reps = self.reps(32, 8);
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        for n in WGMMA_N {
            let smem = sources::wgmma_smem(n);
            let mut by_k: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
            for k in WGMMA_K {
                let kname = format!("wgmma_lat_n{n}_k{k}");
                self.k(&kname)?.func.allow_smem(smem)?;
                self.launch(&kname, 1, 128, smem, &[arg(&reps), arg(&out), arg(&sink)])?;
                let raw: Vec<f64> = self
                    .out_u64(reps as usize)?
                    .iter()
                    .map(|x| *x as f64)
                    .collect();
                by_k.insert(k, raw.clone());
                self.push(Rec {
                    name: format!("lat.wgmma.m64n{n}k16.bf16.k{k}"),
                    group: "latency",
                    unit: "cycles",
                    kernel: &kname,
                    method: "one warpgroup: wgmma.fence, clock64, K wgmma.mma_async into the same accumulators, \
                             commit_group, wait_group 0, clock64; cycles per repetition (thread 0)",
                    params: vec![
                        ("n", v(n)),
                        ("k_back_to_back", v(k)),
                        ("operands", v("A and B from shared memory (descriptors, no swizzle)")),
                    ],
                    reps: raw,
                    extra: vec![],
                });
            }
            let lat = by_k[&1].clone();
            self.push(Rec {
                name: format!("lat.wgmma.m64n{n}k16.bf16.issue_to_complete"),
                group: "latency",
                unit: "cycles",
                kernel: &format!("wgmma_lat_n{n}_k1"),
                method: "K = 1: from before the wgmma to after wait_group 0 returns (includes one clock read, \
                         commit and wait)",
                params: vec![("n", v(n))],
                reps: lat,
                extra: vec![],
            });
            let (k_lo, k_hi) = (8u32, 32u32);
            let interval: Vec<f64> = by_k[&k_lo]
                .iter()
                .zip(&by_k[&k_hi])
                .map(|(a, b)| (b - a) / f64::from(k_hi - k_lo))
                .collect();
            self.push(Rec {
                name: format!("lat.wgmma.m64n{n}k16.bf16.interval"),
                group: "throughput",
                unit: "cycles",
                kernel: &format!("wgmma_lat_n{n}_k{k_lo},wgmma_lat_n{n}_k{k_hi}"),
                method: "issue interval of back-to-back wgmma into the same accumulators: (t(K=32) - t(K=8)) / 24 \
                         per repetition",
                params: vec![("n", v(n)), ("k_lo", v(k_lo)), ("k_hi", v(k_hi))],
                reps: interval,
                extra: vec![],
            });
        }
        Ok(())
    }

    /// Runs a per-SM throughput kernel (1 block) and returns the span in cycles per rep.
    pub(crate) fn warp_span(&self, raw: &[u64]) -> f64 {
        let starts = raw.iter().step_by(2).copied().min().unwrap_or(0);
        let ends = raw.iter().skip(1).step_by(2).copied().max().unwrap_or(0);
        ends.wrapping_sub(starts) as f64
    }

    /// Every warp's own span from a per-warp (start, end) clock buffer.
    pub(crate) fn warp_spans(raw: &[u64]) -> Vec<u64> {
        raw.chunks_exact(2)
            .map(|c| c[1].wrapping_sub(c[0]))
            .collect()
    }

    /// One and two warpgroups issuing groups of K m64n256k16 (wait_group 0 after each):
    /// cycles per wgmma on the SM.
    pub(crate) fn tp_wgmma_pair(&mut self) -> Result<()> {
        let reps = self.reps(8, 3);
        let iters: i32 = 64;
        let smem = sources::wgmma_smem(256);
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        for k in sources::WGMMA_PAIR_K {
            let kname = format!("wgmma_pair_n256_k{k}");
            self.k(&kname)?.func.allow_smem(smem)?;
            for wgs in [1u32, 2] {
                let block = 128 * wgs;
                let args = [arg(&iters), arg(&out), arg(&sink)];
                self.launch(&kname, 1, block, smem, &args)?;
                let mut per = Vec::new();
                for _ in 0..reps {
                    self.launch(&kname, 1, block, smem, &args)?;
                    let raw = self.out_u64(2 * (block / 32) as usize)?;
                    per.push(self.warp_span(&raw) / f64::from(iters as u32 * k * wgs));
                }
                self.push(Rec {
                    name: format!("tp.wgmma_pair.m64n256k16.k{k}.warpgroups_{wgs}"),
                    group: "throughput",
                    unit: "cycles_per_wgmma",
                    kernel: &kname,
                    method: "one CTA of WARPGROUPS warpgroups; each: ITERS x (K wgmma m64n256k16 into its own \
                             accumulators, commit, wait_group 0); (last warp end - first warp start) / (ITERS x K x \
                             WARPGROUPS)",
                    params: vec![
                        ("K", v(k)),
                        ("warpgroups", v(wgs)),
                        ("iters", v(iters)),
                    ],
                    reps: per,
                    extra: vec![],
                });
            }
        }
        Ok(())
    }

    /// Two warpgroups of serialized wgmma (k = 1) with what a main loop adds: a ring of
    /// operand addresses, swizzled descriptors, a concurrent bulk-copy stream.
    pub(crate) fn tp_wgmma_var(&mut self) -> Result<()> {
        let reps = self.reps(8, 3);
        let iters: i32 = 256;
        // the operand ring, up to 1 KiB to align it, 1 KiB apart, then the copy ring
        let smem: u32 = 1024 + 4 * 10240 + 1024 + 2 * 32768;
        self.k("wgmma_pair_var")?.func.allow_smem(smem)?;
        let (out, sink, src) = (self.out.ptr, self.sink.ptr, self.arena.ptr);
        for (label, ring, swz, copies) in [
            ("same", 1i32, 0i32, 0i32),
            ("ring4", 4, 0, 0),
            ("swz", 1, 1, 0),
            ("ring4_swz", 4, 1, 0),
            ("copies", 1, 0, 64),
            ("ring4_swz_copies", 4, 1, 64),
        ] {
            let args = [
                arg(&iters),
                arg(&ring),
                arg(&swz),
                arg(&src),
                arg(&copies),
                arg(&out),
                arg(&sink),
            ];
            self.launch("wgmma_pair_var", 1, 288, smem, &args)?;
            let mut per = Vec::new();
            for _ in 0..reps {
                self.launch("wgmma_pair_var", 1, 288, smem, &args)?;
                let raw = self.out_u64(16)?;
                per.push(self.warp_span(&raw) / f64::from(iters as u32 * 2));
            }
            self.push(Rec {
                name: format!("tp.wgmma_var.m64n256k16.{label}"),
                group: "throughput",
                unit: "cycles_per_wgmma",
                kernel: "wgmma_pair_var",
                method: "two warpgroups, each ITERS x (one wgmma m64n256k16, commit, wait_group 0); RING operand \
                         slots of 10 KiB, SWZ 128-byte-swizzle descriptors, COPIES bulk copies of 32 KiB by a ninth \
                         warp meanwhile; (last consumer warp end - first start) / (ITERS x 2)",
                params: vec![
                    ("ring", v(ring)),
                    ("swz", v(swz)),
                    ("copies", v(copies)),
                    ("iters", v(iters)),
                ],
                reps: per,
                extra: vec![],
            });
        }
        Ok(())
    }

    /// The gemm consumer's four k-slice wgmma per k-step, two warpgroups, no loads:
    /// serialized, one group, and serialized on one slice.
    pub(crate) fn tp_wgmma_slices(&mut self) -> Result<()> {
        let reps = self.reps(8, 3);
        let iters: i32 = 64;
        let smem: u32 = 49152 + 2048;
        self.k("wgmma_slices")?.func.allow_smem(smem)?;
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        for (label, mode) in [
            ("serialized", 0i32),
            ("one_group", 1),
            ("serialized_one_slice", 2),
        ] {
            let args = [arg(&iters), arg(&mode), arg(&out), arg(&sink)];
            self.launch("wgmma_slices", 1, 256, smem, &args)?;
            let mut per = Vec::new();
            for _ in 0..reps {
                self.launch("wgmma_slices", 1, 256, smem, &args)?;
                let raw = self.out_u64(16)?;
                per.push(self.warp_span(&raw) / f64::from(iters as u32 * 8));
            }
            self.push(Rec {
                name: format!("tp.wgmma_slices.m64n256k16.{label}"),
                group: "throughput",
                unit: "cycles_per_wgmma",
                kernel: "wgmma_slices",
                method: "two warpgroups, ITERS k-steps of the gemm consumer's four wgmma m64n256k16 over one \
                         128x256x64 SW128 stage (descriptors computed before the loop); MODE 0 each wgmma its own \
                         group + wait 0, 1 one group of four + wait 0, 2 as 0 on k-slice 0 only; span / (ITERS x 8)",
                params: vec![("mode", v(mode)), ("iters", v(iters))],
                reps: per,
                extra: vec![],
            });
        }
        Ok(())
    }
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
    let listing = crate::sass::sass_listing(MICRO_SASS, func);
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
    crate::sass::with_stall(&text, stall)
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

/// The instructions a wgmma latency kernel runs between the two clock reads of one
/// repetition, each with its stall count: the first read (an issue slot), WARPGROUP.ARRIVE,
/// the K HGMMAs with ptxas's NOPs, WARPGROUP.DEPBAR. The last such window in the dump
/// (the unrolled loop's; every repetition's window has the same counts).
fn clock_window(func: &str) -> Vec<(String, u8)> {
    let listing = crate::sass::sass_listing(MICRO_SASS, func);
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

/// wgmma latencies, intervals, pairs and slices.
pub(crate) fn twins(v: &mut Vec<Twin>) {
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
}
