//! Bandwidth: LDG and TMA streams from L2 and HBM, one SM and the whole chip.
//!
//! The collector's section (run on the GPU) and the simulated twins of its benchmarks, side by side.

use crate::bench::*;
use crate::gpu::{Result, arg};
use crate::twins::*;
use serde_json::json;

impl Runner {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn bw_run(
        &mut self,
        name: &str,
        region: u64,
        grid: u32,
        total_bytes: u64,
        warm: bool,
        level: &str,
        reps: i32,
    ) -> Result<()> {
        let block = 1024u32;
        let per_iter = u64::from(grid) * u64::from(block) * 16 * 8;
        let iters = (total_bytes / per_iter).max(1);
        let bytes = (iters * per_iter) as f64;
        let mask = region / 16 - 1;
        let (base, out, sink) = (self.arena.ptr, self.out.ptr, self.sink.ptr);
        if warm {
            let wi = (region / per_iter).max(1);
            self.launch(
                "bw_ld",
                grid,
                block,
                0,
                &[arg(&base), arg(&mask), arg(&wi), arg(&out), arg(&sink)],
            )?;
        }
        let mut bpc = Vec::new();
        let mut gbs = Vec::new();
        let mut gbs_ev = Vec::new();
        let mut raw_all = Vec::new();
        for _ in 0..reps {
            if !warm {
                self.flush_l2()?;
            }
            let ms = self.launch_timed(
                "bw_ld",
                grid,
                block,
                0,
                &[arg(&base), arg(&mask), arg(&iters), arg(&out), arg(&sink)],
            )?;
            let bt = BlockTimes::parse(&self.out_u64(5 * grid as usize)?);
            let mhz = bt.mhz();
            let ns = bt.span_ns();
            gbs.push(bytes / ns);
            gbs_ev.push(bytes / (ms * 1e6));
            // bytes per SM-clock: wall time converted with the clock measured in the same kernel
            bpc.push(bytes / (ns * mhz * 1e-3));
            raw_all.push(json!({"event_ms": ms, "span_ns": ns, "max_block_ns": bt.max_ns(), "clock_mhz": mhz,
                "max_block_cycles": bt.max_cycles(), "distinct_sms": bt.distinct_sms(), "blocks": bt.c.len()}));
        }
        let params = vec![
            ("region_bytes", v(region)),
            ("grid", v(grid)),
            ("block", v(block)),
            ("bytes_per_rep", v(bytes)),
            ("expected_level", v(level)),
            (
                "instruction",
                v("ld.global.v4.u32 (LDG.E.128), 8 independent per thread"),
            ),
        ];
        let method = "streaming 16-byte loads over a region (grid-stride, wrapped; grid = one full wave); time = \
                      %globaltimer from the earliest block start to the latest block end, cycles = that time x the \
                      clock64/globaltimer ratio measured in the same kernel";
        self.push(Rec {
            name: format!("{name}.bytes_per_clk"),
            group: "bandwidth",
            unit: "bytes_per_clk",
            kernel: "bw_ld",
            method,
            params: params.clone(),
            reps: bpc,
            extra: vec![("raw", v(&raw_all))],
        });
        self.push(Rec {
            name: format!("{name}.gbps"),
            group: "bandwidth",
            unit: "GB/s",
            kernel: "bw_ld",
            method,
            params,
            reps: gbs,
            extra: vec![("event_gbps", v(&gbs_ev))],
        });
        Ok(())
    }

    pub(crate) fn bw_ldg(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        let per_sm = self.k("bw_ld")?.func.max_active_blocks(1024, 0)?.max(1);
        let chip = per_sm * self.sm_count;
        let q = if self.quick { 4 } else { 1 };
        self.bw_run("bw.l2.one_sm", 8 * MIB, 1, 64 * MIB / q, true, "L2", reps)?;
        self.bw_run("bw.l2.chip", 16 * MIB, chip, 4 * GIB / q, true, "L2", reps)?;
        self.bw_run("bw.hbm.one_sm", ARENA, 1, 256 * MIB / q, false, "HBM", reps)?;
        self.bw_run("bw.hbm.chip", ARENA, chip, 4 * GIB / q, false, "HBM", reps)?;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn bw_tma_run(
        &mut self,
        name: &str,
        region: u64,
        grid: u32,
        bytes_per_block: u64,
        warm: bool,
        level: &str,
        chunk: u32,
        stages: i32,
    ) -> Result<()> {
        self.bw_tma_run_shared(
            name,
            region,
            grid,
            bytes_per_block,
            warm,
            level,
            chunk,
            stages,
            false,
        )
    }

    /// `shared`: every block streams the same bytes (block stride 0), as the CTAs of a
    /// GEMM wave read the same operand tiles at about the same time.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn bw_tma_run_shared(
        &mut self,
        name: &str,
        region: u64,
        grid: u32,
        bytes_per_block: u64,
        warm: bool,
        level: &str,
        chunk: u32,
        stages: i32,
        shared: bool,
    ) -> Result<()> {
        let nchunks = (bytes_per_block / u64::from(chunk)) as i32;
        let smem = chunk * stages as u32;
        self.k("bw_bulk")?.func.allow_smem(smem)?;
        let block_stride = if shared {
            0
        } else {
            (region / u64::from(grid)) / u64::from(chunk) * u64::from(chunk)
        };
        let (base, out, err) = (self.arena.ptr, self.out.ptr, self.err.ptr);
        let args = |n: &i32| {
            [
                arg(&base),
                arg(&region),
                arg(&block_stride),
                arg(&chunk),
                arg(&stages),
                arg(n),
                arg(&out),
                arg(&err),
            ]
        };
        self.clear_err()?;
        if warm {
            let wn = (region / u64::from(chunk)) as i32;
            self.launch("bw_bulk", grid, 32, smem, &args(&wn))?;
        }
        let reps = self.reps(5, 2);
        let bytes = f64::from(nchunks) * f64::from(chunk) * f64::from(grid);
        let mut bpc = Vec::new();
        let mut gbs = Vec::new();
        let mut raw_all = Vec::new();
        for _ in 0..reps {
            if !warm {
                self.flush_l2()?;
            }
            let ms = self.launch_timed("bw_bulk", grid, 32, smem, &args(&nchunks))?;
            self.check_err("bw_bulk")?;
            let bt = BlockTimes::parse(&self.out_u64(5 * grid as usize)?);
            let mhz = bt.mhz();
            let ns = bt.span_ns();
            gbs.push(bytes / ns);
            bpc.push(bytes / (ns * mhz * 1e-3));
            raw_all.push(
                json!({"event_ms": ms, "span_ns": ns, "max_block_ns": bt.max_ns(), "clock_mhz": mhz,
                "distinct_sms": bt.distinct_sms(), "blocks": bt.c.len()}),
            );
        }
        let params = vec![
            ("region_bytes", v(region)),
            ("grid", v(grid)),
            ("chunk_bytes", v(chunk)),
            ("stages", v(stages)),
            ("chunks_per_block", v(nchunks)),
            ("expected_level", v(level)),
            ("block_stride", v(block_stride)),
        ];
        let method = "one thread per block keeps `stages` cp.async.bulk copies of `chunk_bytes` in flight into a \
                      shared-memory ring (mbarrier per slot); bytes / %globaltimer span from the earliest block start to the \
                      latest block end (cycles via the clock64/globaltimer ratio of the same kernel)";
        self.push(Rec {
            name: format!("{name}.bytes_per_clk"),
            group: "bandwidth",
            unit: "bytes_per_clk",
            kernel: "bw_bulk",
            method,
            params: params.clone(),
            reps: bpc,
            extra: vec![("raw", v(&raw_all))],
        });
        self.push(Rec {
            name: format!("{name}.gbps"),
            group: "bandwidth",
            unit: "GB/s",
            kernel: "bw_bulk",
            method,
            params,
            reps: gbs,
            extra: vec![],
        });
        Ok(())
    }

    pub(crate) fn bw_tma(&mut self) -> Result<()> {
        let q = if self.quick { 4 } else { 1 };
        let sms = self.sm_count;
        let k32 = 32 * 1024;
        self.bw_tma_run(
            "bw.tma.l2.one_sm",
            8 * MIB,
            1,
            64 * MIB / q,
            true,
            "L2",
            k32,
            4,
        )?;
        self.bw_tma_run(
            "bw.tma.hbm.one_sm",
            ARENA,
            1,
            128 * MIB / q,
            false,
            "HBM",
            k32,
            4,
        )?;
        self.bw_tma_run(
            "bw.tma.l2.chip",
            16 * MIB,
            sms,
            16 * MIB / q,
            true,
            "L2",
            k32,
            4,
        )?;
        self.bw_tma_run(
            "bw.tma.hbm.chip",
            ARENA,
            sms,
            32 * MIB / q,
            false,
            "HBM",
            k32,
            4,
        )?;
        // every SM streams the same 16 MiB: reads of the same lines by many SMs at once
        self.bw_tma_run_shared(
            "bw.tma.l2.chip.same_data",
            16 * MIB,
            sms,
            16 * MIB / q,
            true,
            "L2",
            k32,
            4,
            true,
        )?;
        if !self.quick {
            // what limits one SM: chunk size x copies in flight
            for chunk in [8 * 1024, 16 * 1024, 32 * 1024] {
                for stages in [2, 4, 6] {
                    let name =
                        format!("bw.tma.l2.one_sm.chunk_{}KiB.stages_{stages}", chunk / 1024);
                    self.bw_tma_run(&name, 8 * MIB, 1, 32 * MIB, true, "L2", chunk, stages)?;
                }
            }
        }
        Ok(())
    }
}

/// The steady-state loop of `bw_bulk` (micro.cu) in the twin's format, from its SASS
/// with every instruction's stall count: the try_wait on the oldest stage (the spin
/// after a failed probe left out: the engine's TRYWAIT suspends), then, while copies
/// remain, the expect_tx arrive, the elect loop around UBLKCP (run once) and the offset
/// arithmetic, then the stage and parity updates and the loop's branch. Those ~40
/// instructions and the probe's latency are what one thread pays per copy (about 227
/// cycles: 8 KiB copies run at 36 B/clk with 2, 4 or 6 stages on the GPU).
pub(crate) fn bw_bulk_loop(slice: u64) -> String {
    let listing = crate::sass::sass_listing(MICRO_SASS, "bw_bulk");
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
        } else if (s.contains(" BRA") || s.starts_with("BRA"))
            && (k == ins.len() - 1 || target(s) == Some(skip_to) && k < ublk)
        {
            // taken: the loop's back branch and the try_wait's branch over its spin
            "BRA".to_string()
        } else {
            // the rest issue only, as do the branches not taken while copies remain
            // (the one past the issue block, the elect loop's `BRA.U.ANY`)
            "NOP".to_string()
        };
        let line = crate::sass::with_stall(&text, *stall);
        if k == issue_branch + 1 {
            out.push_str("    if i + S < {N}\n");
        }
        out.push_str(if inside { "      " } else { "    " });
        out.push_str(&line);
        out.push('\n');
    }
    out
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
            "hbm_tma_bytes_per_clk_sm_max",
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

/// LDG and bulk-copy streams.
pub(crate) fn twins(v: &mut Vec<Twin>) {
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
}
