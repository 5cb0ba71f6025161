//! Global loads: pointer chases through L1, L2 and HBM (one SM and every SM), and warp-loads of 1 to 32 lines.
//!
//! The collector's section (run on the GPU) and the simulated twins of its benchmarks, side by side.

use crate::bench::*;
use crate::gpu::{Result, arg};
use crate::schema::{self};
use crate::sources::REC_MAX;
use crate::twins::*;
use cudarc::driver::sys::CUfunction_attribute as FA;
use std::collections::BTreeMap;
use std::time::Instant;

impl Runner {
    /// Writes a random pointer cycle over `footprint` bytes of the arena (one pointer
    /// per `stride` bytes); returns the start pointer and the number of elements.
    pub(crate) fn build_chain(&self, footprint: u64, stride: u64, seed: u64) -> Result<(u64, u64)> {
        let n = footprint / stride;
        let order = permutation(n as usize, seed);
        let obuf = self.gpu.alloc(order.len() * 4)?;
        obuf.upload(&order)?;
        let (base, optr) = (self.arena.ptr, obuf.ptr);
        let grid = (n.div_ceil(256)).clamp(1, 4096) as u32;
        self.launch(
            "build_chain",
            grid,
            256,
            0,
            &[arg(&base), arg(&optr), arg(&n), arg(&stride)],
        )?;
        Ok((base + u64::from(order[0]) * stride, n))
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn chase(
        &mut self,
        kname: &str,
        label: &str,
        footprint: u64,
        warm_traversals: u64,
        chunk_steps: i32,
        chunks: i32,
        cold: bool,
        level: &str,
    ) -> Result<()> {
        let stride = 128u64;
        let (start, n) = self.build_chain(footprint, stride, 0x5eed ^ footprint)?;
        if cold {
            self.flush_l2()?;
        }
        let warm: i64 = (warm_traversals * n) as i64;
        let rec = REC_MAX as i32;
        let out = self.out.ptr;
        let out_rec = self.out.ptr + 64 * KIB;
        let sink = self.sink.ptr;
        let t0 = Instant::now();
        self.launch(
            kname,
            1,
            32,
            0,
            &[
                arg(&start),
                arg(&warm),
                arg(&chunk_steps),
                arg(&chunks),
                arg(&rec),
                arg(&out),
                arg(&out_rec),
                arg(&sink),
            ],
        )?;
        let secs = t0.elapsed().as_secs_f64();
        let mut raw = self.out_u64(chunks as usize + 1)?;
        let sm = raw.pop().unwrap_or(0);
        let per: Vec<f64> = raw
            .iter()
            .map(|t| *t as f64 / f64::from(chunk_steps))
            .collect();
        let mut steps_buf = vec![0u32; rec as usize];
        // the per-step samples sit 64 KiB into the output buffer
        let all = self
            .out
            .download::<u32>((64 * KIB / 4) as usize + rec as usize)?;
        steps_buf.copy_from_slice(&all[(64 * KIB / 4) as usize..]);
        let steps: Vec<f64> = steps_buf.iter().map(|x| f64::from(*x)).collect();
        let pct: BTreeMap<String, f64> = [1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0]
            .iter()
            .map(|p| {
                (
                    format!("p{p}"),
                    schema::percentile(&steps, *p).unwrap_or(f64::NAN),
                )
            })
            .collect();
        let op = match kname {
            "chase_cg" => "ld.global.cg.u64 (LDG.E.64.STRONG.GPU)",
            "chase_ca" => "ld.global.ca.u64 (LDG.E.64.STRONG.SM)",
            _ => "ld.global.u64 (LDG.E.64)",
        };
        self.push(Rec {
            name: format!("lat.ldg.{}.{label}", &kname[6..]),
            group: "latency",
            unit: "cycles",
            kernel: kname,
            method: "one thread chases a random pointer cycle (one 8-byte pointer per 128-byte line); \
                     each repetition = mean cycles per load over one timed chunk",
            params: vec![
                ("footprint_bytes", v(footprint)),
                ("stride_bytes", v(stride)),
                ("lines", v(n)),
                ("warm_traversals", v(warm_traversals)),
                ("chunk_steps", v(chunk_steps)),
                ("l2_flushed_before", v(cold)),
                ("expected_level", v(level)),
                ("instruction", v(op)),
            ],
            reps: per,
            extra: vec![
                ("per_step_cycles", v(&steps_buf)),
                (
                    "per_step_note",
                    v("each sample = clock64 read, load, dependent STS, clock64 read; compare with the L1 \
                       footprint's samples for the fixed cost of the timing code"),
                ),
                ("per_step_percentiles", v(&pct)),
                ("host_seconds", v(secs)),
                ("smid", v(sm)),
            ],
        });
        Ok(())
    }

    pub(crate) fn lat_ldg(&mut self) -> Result<()> {
        for k in ["chase_ld", "chase_ca", "chase_cg"] {
            self.k(k)?
                .func
                .set_attr(FA::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 0)?;
        }
        let l1: &[u64] = if self.quick {
            &[4 * KIB]
        } else {
            &[4 * KIB, 16 * KIB, 64 * KIB, 128 * KIB, 192 * KIB]
        };
        for &fp in l1 {
            self.chase(
                "chase_ld",
                &format!("fp_{}", fmt_bytes(fp)),
                fp,
                4,
                1024,
                8,
                false,
                "L1",
            )?;
        }
        if !self.quick {
            for fp in [4 * KIB, 64 * KIB] {
                self.chase(
                    "chase_ca",
                    &format!("fp_{}", fmt_bytes(fp)),
                    fp,
                    4,
                    1024,
                    8,
                    false,
                    "L1",
                )?;
            }
        }
        let l2: &[u64] = if self.quick {
            &[2 * MIB, 32 * MIB]
        } else {
            &[
                512 * KIB,
                MIB,
                2 * MIB,
                4 * MIB,
                8 * MIB,
                16 * MIB,
                24 * MIB,
                32 * MIB,
                40 * MIB,
                48 * MIB,
                64 * MIB,
            ]
        };
        for &fp in l2 {
            let n = fp / 128;
            let chunk = (n / 8).div_ceil(8) * 8;
            let level = if fp <= 32 * MIB {
                "L2"
            } else {
                "L2 capacity edge / HBM"
            };
            self.chase(
                "chase_ld",
                &format!("fp_{}", fmt_bytes(fp)),
                fp,
                1,
                chunk as i32,
                8,
                false,
                level,
            )?;
        }
        if !self.quick {
            for fp in [MIB, 16 * MIB] {
                let n = fp / 128;
                let chunk = (n / 8).div_ceil(8) * 8;
                self.chase(
                    "chase_cg",
                    &format!("fp_{}", fmt_bytes(fp)),
                    fp,
                    1,
                    chunk as i32,
                    8,
                    false,
                    "L2",
                )?;
            }
        }
        self.chase_per_sm(16 * MIB, "L2")?;
        if !self.quick {
            self.chase_per_sm(4 * KIB, "L1")?;
        }
        let hbm: &[u64] = if self.quick {
            &[256 * MIB]
        } else {
            &[256 * MIB, GIB]
        };
        for &fp in hbm {
            self.chase(
                "chase_ld",
                &format!("fp_{}_cold", fmt_bytes(fp)),
                fp,
                0,
                2048,
                8,
                true,
                "HBM",
            )?;
        }
        Ok(())
    }

    /// One block per SM chases the same cycle concurrently: the latency each SM sees.
    pub(crate) fn chase_per_sm(&mut self, footprint: u64, level: &str) -> Result<()> {
        let (start, n) = self.build_chain(footprint, 128, 0x5eed ^ footprint)?;
        let warm: i64 = n.max(1024) as i64;
        let steps: i32 = 4096;
        let grid = self.sm_count;
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        self.launch(
            "chase_sm",
            grid,
            32,
            0,
            &[arg(&start), arg(&warm), arg(&steps), arg(&out), arg(&sink)],
        )?;
        let raw = self.out_u64(2 * grid as usize)?;
        let mut by_sm: Vec<(u64, f64)> = raw
            .chunks_exact(2)
            .map(|c| (c[0], c[1] as f64 / f64::from(steps)))
            .collect();
        by_sm.sort_by_key(|x| x.0);
        let sms: Vec<u64> = by_sm.iter().map(|x| x.0).collect();
        let lat: Vec<f64> = by_sm.iter().map(|x| x.1).collect();
        self.push(Rec {
            name: format!("lat.ldg.ld.per_sm.fp_{}", fmt_bytes(footprint)),
            group: "latency",
            unit: "cycles",
            kernel: "chase_sm",
            method: "one block per SM, all at once; thread 0 of each chases the same random pointer cycle \
                     (warm pass, then 4096 timed steps); each repetition = one SM's mean cycles per load, \
                     in SM id order (see extra.smid)",
            params: vec![
                ("footprint_bytes", v(footprint)),
                ("stride_bytes", v(128)),
                ("steps", v(steps)),
                ("grid", v(grid)),
                ("expected_level", v(level)),
            ],
            reps: lat,
            extra: vec![("smid", v(&sms))],
        });
        Ok(())
    }

    /// One warp-load touching 1..32 lines, dependent chain: the latency of an uncoalesced
    /// load from L1 (`ld`, 16 blocks = 64 KiB) and from L2 (`cg`, 256 blocks = 1 MiB).
    pub(crate) fn lat_ldg_lines(&mut self) -> Result<()> {
        let reps = self.reps(8, 3);
        let steps: i32 = 256;
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        for (level, kname, blocks) in [
            ("l1", "chase_lines_ld", 16u64),
            ("l2", "chase_lines_cg", 256),
        ] {
            // a random cycle of 4 KiB blocks; at every lane offset the pointer leads to the
            // same offset of the next block
            let order = permutation(blocks as usize, 0x11e5 ^ blocks);
            let words = (blocks * 4096 / 8) as usize;
            let mut img = vec![0u64; words];
            for (j, &b) in order.iter().enumerate() {
                let next = u64::from(order[(j + 1) % order.len()]);
                for off in (0..4096u64).step_by(8) {
                    img[(u64::from(b) * 4096 + off) as usize / 8] =
                        self.arena.ptr + next * 4096 + off;
                }
            }
            self.arena.upload(&img)?;
            let start = self.arena.ptr + u64::from(order[0]) * 4096;
            let warm = (2 * blocks) as i32;
            // Cycles per step of warp 0, with `warps` warps chasing `lines` lines each step.
            let per_step = |me: &Self, lines: i32, warps: u32| -> Result<Vec<f64>> {
                me.launch(
                    kname,
                    1,
                    32 * warps,
                    0,
                    &[
                        arg(&start),
                        arg(&lines),
                        arg(&warm),
                        arg(&steps),
                        arg(&reps),
                        arg(&out),
                        arg(&sink),
                    ],
                )?;
                let raw = me.out_u64(reps as usize)?;
                Ok(raw.iter().map(|x| *x as f64 / f64::from(steps)).collect())
            };
            for lines in [1i32, 2, 4, 8, 16, 32] {
                let reps = per_step(self, lines, 1)?;
                self.push(Rec {
                    name: format!("lat.ldg_lines.{level}.lines_{lines}"),
                    group: "latency",
                    unit: "cycles",
                    kernel: kname,
                    method: "one warp; each lane chases its own 64-bit pointer cycle; a step is one warp-load whose \
                             32 lanes touch LINES lines of a 4 KiB block (lane i: (i % LINES) * 128 + ((i / LINES) \
                             % 16) * 8); cycles per step after a warm pass",
                    params: vec![
                        ("lines", v(lines)),
                        ("blocks", v(blocks)),
                        ("level", v(level)),
                        ("steps", v(steps)),
                    ],
                    reps,
                    extra: vec![],
                });
            }
            // Opt-in (`--only ldg_lines,ldg_lines.warps`): the same 32-line steps from
            // several warps at once (every warp chases the same lines, other words of
            // them), so that the L1TEX pipeline, not the latency, sets the pace: warp 0's
            // cycles per step, W warps x 32 lines each.
            if self.only.iter().any(|o| o == "ldg_lines.warps") {
                let lines = 32i32;
                for warps in [2u32, 4, 8, 12, 16, 20, 24, 28, 32] {
                    let reps = per_step(self, lines, warps)?;
                    self.push(Rec {
                        name: format!("tp.ldg_lines.{level}.lines_32.warps_{warps}"),
                        group: "throughput",
                        unit: "cycles_per_step",
                        kernel: kname,
                        method: "WARPS warps; each lane chases its own 64-bit pointer cycle; a step is one \
                                 warp-load of 32 lines of a 4 KiB block per warp (every warp the same lines, \
                                 other 8-byte words); warp 0's cycles per step after a warm pass",
                        params: vec![
                            ("lines", v(lines)),
                            ("warps", v(warps)),
                            ("blocks", v(blocks)),
                            ("level", v(level)),
                            ("steps", v(steps)),
                        ],
                        reps,
                        extra: vec![],
                    });
                }
            }
        }
        Ok(())
    }

    /// Warp-loads of 32 lines that no other warp touches (`lines.cu`), from W warps at
    /// once: cycles per line of the whole block. Lanes 128 B apart: with one 4 KiB block
    /// per warp every load hits in L1; with 64 (256 KiB per warp) every load misses, and
    /// allocates in L1 (`ld`) or not (`ld.cg`). Lanes 1 KiB apart (`stride_1KiB`): each
    /// lane cycles through its own 8 consecutive lines, the latency-hiding validation
    /// kernel's access pattern (32 KiB per warp).
    pub(crate) fn tp_own_lines(&mut self) -> Result<()> {
        let reps = self.reps(8, 3);
        let steps: i32 = 256;
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let max_warps = 32u64;
        // (label, lane stride, region per warp, warm steps, image of one warp's region:
        // (byte offset, byte offset it points to))
        type Case = (String, u64, u64, i32, Vec<(u64, u64)>);
        let mut cases: Vec<Case> = Vec::new();
        for blocks in [1u64, 8, 64] {
            let region = blocks * 4096;
            let mut links = Vec::new();
            let order = permutation(blocks as usize, 0x0e1 ^ blocks);
            for (j, &b) in order.iter().enumerate() {
                let next = u64::from(order[(j + 1) % order.len()]);
                for off in (0..4096u64).step_by(128) {
                    links.push((u64::from(b) * 4096 + off, next * 4096 + off));
                }
            }
            cases.push((
                format!("blocks_{blocks}"),
                128,
                region,
                (2 * blocks) as i32,
                links,
            ));
        }
        let links = (0..32u64)
            .flat_map(|lane| {
                (0..8u64).map(move |j| (lane * 1024 + j * 128, lane * 1024 + (j + 1) % 8 * 128))
            })
            .collect();
        cases.push(("stride_1KiB".into(), 1024, 32 * 1024, 16, links));
        for (label, lane_stride, region, warm, links) in cases {
            let mut img = vec![0u64; (max_warps * region / 8) as usize];
            for w in 0..max_warps {
                let base = self.arena.ptr + w * region;
                for &(from, to) in &links {
                    img[((w * region + from) / 8) as usize] = base + to;
                }
            }
            self.arena.upload(&img)?;
            for (kind, kname) in [("ld", "chase_own_lines_ld"), ("cg", "chase_own_lines_cg")] {
                for warps in [4u32, 8, 12, 16, 20, 24, 32] {
                    let base = self.arena.ptr;
                    self.launch(
                        kname,
                        1,
                        32 * warps,
                        0,
                        &[
                            arg(&base),
                            arg(&region),
                            arg(&lane_stride),
                            arg(&warm),
                            arg(&steps),
                            arg(&reps),
                            arg(&out),
                            arg(&sink),
                        ],
                    )?;
                    let raw = self.out_u64(reps as usize)?;
                    let lines = f64::from(steps) * f64::from(warps) * 32.0;
                    self.push(Rec {
                        name: format!("tp.own_lines.{kind}.{label}.warps_{warps}"),
                        group: "throughput",
                        unit: "cycles_per_line",
                        kernel: kname,
                        method: "one block of WARPS warps, each lane chasing its own pointer cycle through \
                                 its warp's region (lanes LANE_STRIDE apart), so each step is one warp-load \
                                 of 32 lines no other warp touches; cycles of STEPS steps of every warp \
                                 (between __syncthreads) per line",
                        params: vec![
                            ("case", v(&label)),
                            ("lane_stride_bytes", v(lane_stride)),
                            ("region_bytes_per_warp", v(region)),
                            ("warps", v(warps)),
                            ("load", v(kind)),
                            ("steps", v(steps)),
                        ],
                        reps: raw.iter().map(|x| *x as f64 / lines).collect(),
                        extra: vec![],
                    });
                }
            }
        }
        Ok(())
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

/// The LDG chases: L1 footprints, L2, HBM (cold).
pub(crate) fn chase_twins(v: &mut Vec<Twin>) {
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
}

/// Uncoalesced loads: one warp-load touching 1 to 32 lines, from L1 and L2.
pub(crate) fn lines_twins(v: &mut Vec<Twin>) {
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
                "l2_miss_burst_gap",
                "l1_lines_per_clk",
            ],
            "LDG.E.64.CG",
            lines,
            256,
        ));
    }
}
