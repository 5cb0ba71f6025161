//! The validation kernels' collector section (their own file; never used by the fit).

use crate::bench::*;
use crate::gpu::{Result, arg, tensor_map_2d_bf16_sw128, tensor_map_2d_u32};
use crate::sources::{self};
use serde_json::json;

/// Bytes of each lane's own walk in the latency-hiding kernels (8 lines of 128 bytes).
pub(crate) const LATENCY_WALK_FOOTPRINT: u32 = 1024;

impl Runner {
    /// Uploads the latency-hiding walk's arena (32 warps x 32 lanes, each lane's 1 KiB
    /// of 8 lines holding finite values, not zeros) and returns its lines per lane.
    pub(crate) fn upload_latency_walk(&mut self) -> Result<i32> {
        let init: Vec<f32> = (0..(32 * 32 * LATENCY_WALK_FOOTPRINT / 4))
            .map(|i| 1.0 + (i % 97) as f32 * 1e-3)
            .collect();
        self.arena.upload(&init)?;
        Ok((LATENCY_WALK_FOOTPRINT / 128) as i32)
    }

    /// latency-hiding (traces::latency): WARPS x K x {L1, L2}; cycles per iteration.
    pub(crate) fn val_latency_hiding(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        let iters: i32 = 256;
        let lines = self.upload_latency_walk()?;
        let (r2, r3) = (0.999f32, 0.001f32);
        let (p, out, sink) = (self.arena.ptr, self.out.ptr, self.sink.ptr);
        let warps_list: &[u32] = if self.quick {
            &[1, 8, 32]
        } else {
            &[1, 2, 4, 6, 8, 12, 16, 20, 24, 28, 32]
        };
        for (level, l1) in [("l1", 1), ("l2", 0)] {
            for k in sources::VH_K {
                let kname = format!("vh_chase_{level}_k{k}");
                for &warps in warps_list {
                    let block = 32 * warps;
                    let args = [
                        arg(&p),
                        arg(&iters),
                        arg(&lines),
                        arg(&r2),
                        arg(&r3),
                        arg(&out),
                        arg(&sink),
                    ];
                    // one launch to bring the lines into L2 (L1 starts every launch cold)
                    self.launch(&kname, 1, block, 0, &args)?;
                    let mut per = Vec::new();
                    let mut warp_cycles = Vec::new();
                    for _ in 0..reps {
                        self.launch(&kname, 1, block, 0, &args)?;
                        let raw = self.out_u64(2 * warps as usize)?;
                        per.push(self.warp_span(&raw) / f64::from(iters));
                        warp_cycles.push(Self::warp_spans(&raw));
                    }
                    self.push(Rec {
                        name: format!("val.latency_hiding.{level}.k{k}.warps_{warps}"),
                        group: "validation",
                        unit: "cycles_per_iter",
                        kernel: &kname,
                        method: "one CTA of WARPS warps; every thread: ITERS x (load f32 from its own line, K \
                                 dependent FFMAs); cycles from the first warp's start to the last warp's end \
                                 / ITERS (clock64); L1 is cold at launch, L2 warm",
                        params: vec![
                            ("WARPS", v(warps)),
                            ("K", v(k)),
                            ("FOOTPRINT", v(LATENCY_WALK_FOOTPRINT)),
                            ("L1", v(l1)),
                            ("ITERS", v(iters)),
                            ("family", v("latency-hiding")),
                            ("schedule", v("chase")),
                        ],
                        reps: per,
                        extra: vec![("warp_cycles", v(&warp_cycles))],
                    });
                }
            }
        }
        Ok(())
    }

    /// gemm-mainloop (traces::gemm): static-v1, static-v2, ws, ws-wait1 x PIPE {2, 4} x
    /// {one CTA, a full-chip grid}, K = 4096, CLUSTER 1, no epilogue; cycles per CTA.
    /// The plain kernels also on full-chip grids whose CTAs share one operand: every CTA
    /// the same A tile (M = 128) or the same B tile (N = 256), the other operand each
    /// CTA's own (from HBM at K = 4096: 264 or 132 MiB; in L2 at K = 1024: 33 MiB).
    pub(crate) fn val_gemm_mainloop(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        let (out, sink, err) = (self.out.ptr, self.sink.ptr, self.err.ptr);
        // finite bf16 operands (1.0 and nearby), A at the arena's start, B 64 MiB in
        // (512 MiB in for the shared-operand grids, whose A reaches 132 MiB)
        self.arena.fill_u32(0x3F80_3F81)?;
        // (label, M, N, K, B's offset): one CTA, and 132 tiles (one wave of a 132-SM H100)
        let shapes: [(&str, u64, u64, u64, u64); 5] = [
            ("cta_1", 128, 256, 4096, 64 * MIB),
            ("grid_132", 1536, 2816, 4096, 64 * MIB),
            ("grid_132_a_shared", 128, 33792, 4096, 512 * MIB),
            ("grid_132_b_shared", 16896, 256, 4096, 512 * MIB),
            ("grid_132_b_shared_k1024", 16896, 256, 1024, 512 * MIB),
        ];
        for (schedule, kname, threads, lag) in sources::GEMM_SCHEDULES {
            for pipe in [2i32, 4] {
                let smem = sources::gemm_smem(pipe as u32);
                self.k(kname)?.func.allow_smem(smem)?;
                for (label, m, n, k_elems, b_off) in shapes {
                    if label.contains("shared") && kname.ends_with("_fenced") {
                        continue;
                    }
                    let kt = (k_elems / 64) as i32;
                    let mt = (m / 128) as i32;
                    let grid = (m / 128 * (n / 256)) as u32;
                    let ta = tensor_map_2d_bf16_sw128(self.arena.ptr, k_elems, m, 64, 128)?;
                    let tb = tensor_map_2d_bf16_sw128(self.arena.ptr + b_off, k_elems, n, 64, 256)?;
                    let args = [
                        arg(&ta),
                        arg(&tb),
                        arg(&pipe),
                        arg(&kt),
                        arg(&mt),
                        arg(&out),
                        arg(&sink),
                        arg(&err),
                    ];
                    self.clear_err()?;
                    // one launch brings A and B into L2 (a repeated GEMM runs warm)
                    self.launch(kname, grid, threads, smem, &args)?;
                    let per_cta = sources::GEMM_TIMES_PER_CTA;
                    let warps = (threads / 32) as usize;
                    let (mut med_span, mut max_span, mut wall, mut sms) =
                        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                    // Each repetition's spread of the CTAs' starts and ends (%globaltimer,
                    // ns): the shared-operand launches run in one of two modes, the CTAs in
                    // step to the end or drifting apart (data/gemm_l2, run-20261128T0516Z:
                    // 0.3-0.7k cycles apart at the first stage and about a k-step at the
                    // end, against 1.1-2.4k and 3-10k), and the spread says which.
                    let mut spread = Vec::new();
                    for _ in 0..reps {
                        let ms = self.launch_timed(kname, grid, threads, smem, &args)?;
                        self.check_err(kname)?;
                        let raw = self.out_u64(per_cta * grid as usize)?;
                        let mut spans = Vec::new();
                        let (mut g0, mut g1) = (u64::MAX, 0u64);
                        let mut ids = std::collections::BTreeSet::new();
                        let (mut starts, mut ends) = (Vec::new(), Vec::new());
                        for c in raw.chunks_exact(per_cta) {
                            let w = &c[..4 * warps];
                            let c0 = w.iter().step_by(4).copied().min().unwrap_or(0);
                            let c1 = w.iter().skip(1).step_by(4).copied().max().unwrap_or(0);
                            spans.push(c1.wrapping_sub(c0) as f64);
                            let s0 = w.iter().skip(2).step_by(4).copied().min().unwrap_or(0);
                            let s1 = w.iter().skip(3).step_by(4).copied().max().unwrap_or(0);
                            g0 = g0.min(s0);
                            g1 = g1.max(s1);
                            starts.push(s0);
                            ends.push(s1);
                            ids.insert(c[63]);
                        }
                        let range = |v: &[u64]| {
                            let lo = v.iter().copied().min().unwrap_or(0);
                            v.iter().copied().max().unwrap_or(0).wrapping_sub(lo)
                        };
                        spread.push(json!({"start_ns": range(&starts), "end_ns": range(&ends)}));
                        spans.sort_by(f64::total_cmp);
                        med_span.push(spans[spans.len() / 2]);
                        max_span.push(*spans.last().unwrap_or(&f64::NAN));
                        wall.push(json!({"globaltimer_ns": g1.wrapping_sub(g0), "event_ms": ms}));
                        sms.push(ids.len());
                    }
                    let variant = if kname.ends_with("_fenced") {
                        "+fenced"
                    } else {
                        ""
                    };
                    self.push(Rec {
                        name: format!("val.gemm_mainloop.{schedule}{variant}.pipe_{pipe}.{label}"),
                        group: "validation",
                        unit: "cycles",
                        kernel: kname,
                        method: "CTA c takes tile (c % MT, c / MT); every warp's lane 0 records clock64 after \
                                 the mbarrier init's __syncthreads and after its last wgmma wait (or its \
                                 producer loop); value = the median over CTAs of (last end - first start) \
                                 within the CTA; A and B warm in L2 from one launch before",
                        params: vec![
                            ("family", v("gemm-mainloop")),
                            ("schedule", v(schedule)),
                            ("PIPE", v(pipe)),
                            ("K", v(k_elems)),
                            ("M", v(m)),
                            ("N", v(n)),
                            ("CLUSTER", v(1)),
                            ("EPILOGUE", v(0)),
                            ("grid", v(grid)),
                            ("threads", v(threads)),
                            ("wait_group", v(lag)),
                            ("kernel_variant", v(if variant.is_empty() { "plain" } else { "fenced" })),
                        ],
                        reps: med_span,
                        extra: vec![
                            ("max_cta_cycles", v(&max_span)),
                            ("wall", v(&wall)),
                            ("distinct_sms", v(&sms)),
                            ("cta_spread", v(&spread)),
                        ],
                    });
                }
            }
        }
        Ok(())
    }
}

/// The TMA-streaming configurations: (XBLOCK, YBLOCK) tiles, load stages, grids.
pub(crate) const EW_TILES: [(u64, u64); 2] = [(64, 128), (32, 128)];
/// Load stages (NUM_LOAD_BUFFERS) measured; one store buffer.
pub(crate) const EW_NLB: [u64; 2] = [2, 3];
/// Grids: one CTA, eight, the whole chip (one CTA per SM).
pub(crate) const EW_GRIDS: [u64; 3] = [1, 8, 132];
/// Columns of the tensor: 32 tiles of 128 per CTA.
pub(crate) const EW_YNUMEL: u64 = 4096;

impl Runner {
    /// elementwise-add (traces::elementwise): tma-pipelined and warp-specialized (4
    /// compute warps) x tiles {64x128, 32x128} x load stages {2, 3} x store buffers {1,
    /// 2} (where shared memory holds them) x grids {1, 8, 132}, YNUMEL 4096; cycles per
    /// CTA.
    pub(crate) fn val_elementwise(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        let (out, err) = (self.out.ptr, self.err.ptr);
        self.arena.fill_u32(0x3F80_0000)?;
        // A, B, C 384 MiB apart (each at most 132 x 64 rows x 4096 x 4 B = 132 MiB)
        let (a, b, c) = (
            self.arena.ptr,
            self.arena.ptr + 384 * MIB,
            self.arena.ptr + 768 * MIB,
        );
        for (schedule, kname, threads) in [
            ("tma-pipelined", "ew_tma_pipelined", 128u32),
            ("warp-specialized", "ew_warp_specialized", 256),
        ] {
            for (xb, yb) in EW_TILES {
                let tb = xb * yb * 4;
                for (nlb, nsb) in EW_NLB.iter().flat_map(|l| [(*l, 1i32), (*l, 2)]) {
                    let smem = 1024 + (2 * nlb + nsb as u64) * tb + 8 * (2 * nlb + 2 * nsb as u64);
                    if smem > 232_448 {
                        continue;
                    }
                    let smem = smem as u32;
                    self.k(kname)?.func.allow_smem(smem)?;
                    // names without a store-buffer count are NSB 1 (the first collect's)
                    let nsb_label = if nsb == 1 {
                        String::new()
                    } else {
                        format!(".nsb_{nsb}")
                    };
                    for grid in EW_GRIDS {
                        let rows = grid * xb;
                        let map = |p| tensor_map_2d_u32(p, EW_YNUMEL, rows, yb as u32, xb as u32);
                        let (ta, tbm, tc) = (map(a)?, map(b)?, map(c)?);
                        let (tiles, nlb_i, xb_i, yb_i) =
                            ((EW_YNUMEL / yb) as i32, nlb as i32, xb as i32, yb as i32);
                        let args = [
                            arg(&ta),
                            arg(&tbm),
                            arg(&tc),
                            arg(&tiles),
                            arg(&nlb_i),
                            arg(&nsb),
                            arg(&xb_i),
                            arg(&yb_i),
                            arg(&out),
                            arg(&err),
                        ];
                        self.clear_err()?;
                        // one launch first: A and B in L2 as far as they fit (a repeated
                        // elementwise kernel runs warm)
                        self.launch(kname, grid as u32, threads, smem, &args)?;
                        let per_cta = sources::GEMM_TIMES_PER_CTA;
                        let warps = (threads / 32) as usize;
                        let (mut med_span, mut max_span, mut wall) =
                            (Vec::new(), Vec::new(), Vec::new());
                        for _ in 0..reps {
                            let ms = self.launch_timed(kname, grid as u32, threads, smem, &args)?;
                            self.check_err(kname)?;
                            let raw = self.out_u64(per_cta * grid as usize)?;
                            let mut spans = Vec::new();
                            let (mut g0, mut g1) = (u64::MAX, 0u64);
                            for c in raw.chunks_exact(per_cta) {
                                let w = &c[..4 * warps];
                                let c0 = w.iter().step_by(4).copied().min().unwrap_or(0);
                                let c1 = w.iter().skip(1).step_by(4).copied().max().unwrap_or(0);
                                spans.push(c1.wrapping_sub(c0) as f64);
                                g0 =
                                    g0.min(w.iter().skip(2).step_by(4).copied().min().unwrap_or(0));
                                g1 =
                                    g1.max(w.iter().skip(3).step_by(4).copied().max().unwrap_or(0));
                            }
                            spans.sort_by(f64::total_cmp);
                            med_span.push(spans[spans.len() / 2]);
                            max_span.push(*spans.last().unwrap_or(&f64::NAN));
                            wall.push(
                                json!({"globaltimer_ns": g1.wrapping_sub(g0), "event_ms": ms}),
                            );
                        }
                        self.push(Rec {
                            name: format!(
                                "val.elementwise.{schedule}.tile_{xb}x{yb}.nlb_{nlb}{nsb_label}.grid_{grid}"
                            ),
                            group: "validation",
                            unit: "cycles",
                            kernel: kname,
                            method: "CTA c adds rows c * XBLOCK.. in YNUMEL / YBLOCK tiles; every warp's lane 0 \
                                     records clock64 after the mbarrier init's __syncthreads and at its end; \
                                     value = the median over CTAs of (last end - first start) within the CTA; \
                                     one launch before the timed ones",
                            params: vec![
                                ("family", v("elementwise-add")),
                                ("schedule", v(schedule)),
                                ("XNUMEL", v(rows)),
                                ("YNUMEL", v(EW_YNUMEL)),
                                ("XBLOCK", v(xb)),
                                ("YBLOCK", v(yb)),
                                ("NUM_LOAD_BUFFERS", v(nlb)),
                                ("NUM_STORE_BUFFERS", v(nsb)),
                                ("COMPUTE_WARPS", v(4)),
                                ("grid", v(grid)),
                                ("threads", v(threads)),
                            ],
                            reps: med_span,
                            extra: vec![("max_cta_cycles", v(&max_span)), ("wall", v(&wall))],
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

/// singe-viscosity's measured species counts: 30 (the seed's DME mechanism; everything in
/// registers) and 60 (the data-parallel kernel spills past 55).
pub(crate) const SV_SPECIES: [u32; 2] = [30, 60];
/// singe-viscosity's grids: one CTA, eight, the whole chip (8 warps, 256 points a CTA).
pub(crate) const SV_GRIDS: [u64; 3] = [1, 8, 132];

impl Runner {
    /// singe-viscosity (traces::singe): data-parallel and warp-specialized x SPECIES {30,
    /// 60} x grids {1, 8, 132}, 8 warps a CTA; cycles per CTA.
    pub(crate) fn val_singe(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        let warps: u64 = 8;
        let threads = (warps * 32) as u32;
        let out = self.out.ptr;
        // finite doubles near 1 (0x3FF0... patterns): T, X, C and the output in the arena
        self.arena.fill_u32(0x3FF0_0000)?;
        let base = self.arena.ptr;
        for n in SV_SPECIES {
            for (schedule, kname) in [
                ("data-parallel", format!("sv_data_parallel_n{n}")),
                ("warp-specialized", format!("sv_warp_specialized_n{n}")),
            ] {
                let smem = if schedule == "warp-specialized" {
                    (2 * n as u64 * 32 * 16 + 2 * warps * 32 * 8) as u32
                } else {
                    0
                };
                if smem > 0 {
                    self.k(&kname)?.func.allow_smem(smem)?;
                }
                for grid in SV_GRIDS {
                    let points = grid * warps * 32;
                    // T, X (n x points), C (n x n pairs of doubles), out: 64 MiB apart
                    let (t, x, c, o) = (base, base + 64 * MIB, base + 256 * MIB, base + 320 * MIB);
                    let points_i = points as i32;
                    let args = [
                        arg(&t),
                        arg(&x),
                        arg(&c),
                        arg(&o),
                        arg(&points_i),
                        arg(&out),
                    ];
                    self.launch(&kname, grid as u32, threads, smem, &args)?;
                    let per_cta = sources::GEMM_TIMES_PER_CTA;
                    let (mut med_span, mut max_span) = (Vec::new(), Vec::new());
                    for _ in 0..reps {
                        self.launch_timed(&kname, grid as u32, threads, smem, &args)?;
                        let raw = self.out_u64(per_cta * grid as usize)?;
                        let mut spans: Vec<f64> = raw
                            .chunks_exact(per_cta)
                            .map(|c| {
                                let w = &c[..4 * warps as usize];
                                let c0 = w.iter().step_by(4).copied().min().unwrap_or(0);
                                let c1 = w.iter().skip(1).step_by(4).copied().max().unwrap_or(0);
                                c1.wrapping_sub(c0) as f64
                            })
                            .collect();
                        spans.sort_by(f64::total_cmp);
                        med_span.push(spans[spans.len() / 2]);
                        max_span.push(*spans.last().unwrap_or(&f64::NAN));
                    }
                    self.push(Rec {
                        name: format!("val.singe.{schedule}.species_{n}.grid_{grid}"),
                        group: "validation",
                        unit: "cycles",
                        kernel: &kname,
                        method: "every warp's lane 0 records clock64 at its start and end; value = the median \
                                 over CTAs of (last end - first start) within the CTA; one launch before the \
                                 timed ones",
                        params: vec![
                            ("family", v("singe-viscosity")),
                            ("schedule", v(schedule)),
                            ("SPECIES", v(n)),
                            ("WARPS", v(warps)),
                            ("POINTS", v(points)),
                            ("grid", v(grid)),
                        ],
                        reps: med_span,
                        extra: vec![("max_cta_cycles", v(&max_span))],
                    });
                }
            }
        }
        Ok(())
    }
}
