//! The validation kernels' collector section (their own file; never used by the fit).

use crate::bench::*;
use crate::gpu::{Result, arg, tensor_map_2d_bf16_sw128};
use crate::sources::{self};
use serde_json::json;

impl Runner {
    /// latency-hiding (traces::latency): WARPS x K x {L1, L2}; cycles per iteration.
    pub(crate) fn val_latency_hiding(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        let iters: i32 = 256;
        let footprint: u32 = 1024;
        let lines = (footprint / 128) as i32;
        let (r2, r3) = (0.999f32, 0.001f32);
        let (p, out, sink) = (self.arena.ptr, self.out.ptr, self.sink.ptr);
        // the chains hold finite values, not zeros
        let init: Vec<f32> = (0..(32 * 32 * footprint / 4))
            .map(|i| 1.0 + (i % 97) as f32 * 1e-3)
            .collect();
        self.arena.upload(&init)?;
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
                        warp_cycles.push(
                            raw.chunks_exact(2)
                                .map(|c| c[1].wrapping_sub(c[0]))
                                .collect::<Vec<u64>>(),
                        );
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
                            ("FOOTPRINT", v(footprint)),
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
    pub(crate) fn val_gemm_mainloop(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        let kt: i32 = 64;
        let k_elems = 64 * kt as u64;
        let (out, sink, err) = (self.out.ptr, self.sink.ptr, self.err.ptr);
        // finite bf16 operands (1.0 and nearby), A at the arena's start, B 64 MiB in
        self.arena.fill_u32(0x3F80_3F81)?;
        let b_off = 64 * MIB;
        // (label, M, N): one CTA, and 132 tiles (one wave of a 132-SM H100)
        let shapes: [(&str, u64, u64); 2] = [("cta_1", 128, 256), ("grid_132", 1536, 2816)];
        for (schedule, kname, threads, lag) in sources::GEMM_SCHEDULES {
            for pipe in [2i32, 4] {
                let smem = sources::gemm_smem(pipe as u32);
                self.k(kname)?.func.allow_smem(smem)?;
                for (label, m, n) in shapes {
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
                    for _ in 0..reps {
                        let ms = self.launch_timed(kname, grid, threads, smem, &args)?;
                        self.check_err(kname)?;
                        let raw = self.out_u64(per_cta * grid as usize)?;
                        let mut spans = Vec::new();
                        let (mut g0, mut g1) = (u64::MAX, 0u64);
                        let mut ids = std::collections::BTreeSet::new();
                        for c in raw.chunks_exact(per_cta) {
                            let w = &c[..4 * warps];
                            let c0 = w.iter().step_by(4).copied().min().unwrap_or(0);
                            let c1 = w.iter().skip(1).step_by(4).copied().max().unwrap_or(0);
                            spans.push(c1.wrapping_sub(c0) as f64);
                            g0 = g0.min(w.iter().skip(2).step_by(4).copied().min().unwrap_or(0));
                            g1 = g1.max(w.iter().skip(3).step_by(4).copied().max().unwrap_or(0));
                            ids.insert(c[63]);
                        }
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
                        ],
                    });
                }
            }
        }
        Ok(())
    }
}
