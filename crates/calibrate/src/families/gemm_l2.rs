//! The gemm-mainloop validation kernels under other L2 states (opt-in, `--validation --only
//! gemm_mainloop,gemm_l2`; never fitted, not read by the report): what the warm-up launch
//! leaves in L2 for the timed one, and how the shared-operand kernels scale with the grid.
//!
//! `val.gemm_mainloop.*` times each launch after a launch of the same kernel (a repeated
//! GEMM), so part of the private operand (264 MiB for `a_shared`, 132 MiB for `b_shared`,
//! beyond the 50 MiB L2) may still be in L2. Here each kernel is timed four ways, in one
//! run on one GPU: `warm` (that protocol, again), `flushed` (L2 pushed out by a 256 MiB
//! memset, 2 ms for its write-backs to drain, then a one-CTA launch that reads the shared
//! operand and CTA 0's tiles: the shared operand warm, the private ones cold),
//! `flushed_dirty` (the same without the 2 ms: the chip streams' protocol,
//! data/chip/chip.cu) and `cold` (flushed and drained, no one-CTA launch: the shared
//! operand too from HBM). The difference between `warm` and `flushed` is the private
//! operand the previous launch left in L2. And the shared-operand shapes on 33, 66 and 99
//! CTAs (`warm`, `flushed`): whether the stage latency that 132 SMs' loads see grows with
//! the SMs loading from HBM (data/gemm_l2/README.md).

use crate::bench::*;
use crate::gpu::{Result, arg, tensor_map_2d_bf16_sw128};
use crate::sources::{self};
use serde_json::json;

/// How L2 stands before a timed launch (see the module's doc).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Before {
    Warm,
    Flushed,
    FlushedDirty,
    Cold,
}

impl Before {
    fn label(self) -> &'static str {
        match self {
            Before::Warm => "warm",
            Before::Flushed => "flushed",
            Before::FlushedDirty => "flushed_dirty",
            Before::Cold => "cold",
        }
    }
}

/// A shape: its label, M, N, K, B's offset in the arena, the L2 states it is timed in.
type Shape = (String, u64, u64, u64, u64, &'static [Before]);

/// Host wait after the flush's memset, for its dirty lines' write-back (50 MiB at HBM's
/// 3 TB/s is about 17 us; the clean-flush kernel is not loaded in a validation run).
const DRAIN_US: u64 = 2000;

impl Runner {
    /// See the module's doc.
    pub(crate) fn val_gemm_l2(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        let (out, sink, err) = (self.out.ptr, self.sink.ptr, self.err.ptr);
        self.arena.fill_u32(0x3F80_3F81)?;
        // (label, M, N, K, B's offset, the L2 states): val.gemm_mainloop's shapes, and the
        // shared-operand ones on fewer CTAs
        const ALL: &[Before] = &[
            Before::Warm,
            Before::Flushed,
            Before::FlushedDirty,
            Before::Cold,
        ];
        const TWO: &[Before] = &[Before::Warm, Before::Flushed];
        let mut shapes: Vec<Shape> = vec![
            ("grid_132".into(), 1536, 2816, 4096, 64 * MIB, ALL),
            ("grid_132_a_shared".into(), 128, 33792, 4096, 512 * MIB, ALL),
            ("grid_132_b_shared".into(), 16896, 256, 4096, 512 * MIB, ALL),
            (
                "grid_132_b_shared_k1024".into(),
                16896,
                256,
                1024,
                512 * MIB,
                ALL,
            ),
        ];
        for g in [33u64, 66, 99] {
            shapes.push((
                format!("grid_{g}_a_shared"),
                128,
                256 * g,
                4096,
                512 * MIB,
                TWO,
            ));
            shapes.push((
                format!("grid_{g}_b_shared"),
                128 * g,
                256,
                4096,
                512 * MIB,
                TWO,
            ));
        }
        for (schedule, kname, threads, _lag) in sources::GEMM_SCHEDULES {
            if kname.ends_with("_fenced") {
                continue;
            }
            for pipe in [2i32, 4] {
                let smem = sources::gemm_smem(pipe as u32);
                self.k(kname)?.func.allow_smem(smem)?;
                for (label, m, n, k_elems, b_off, befores) in &shapes {
                    let (m, n, k_elems) = (*m, *n, *k_elems);
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
                    for &before in befores.iter() {
                        self.clear_err()?;
                        if before == Before::Warm {
                            self.launch(kname, grid, threads, smem, &args)?;
                        }
                        let per_cta = sources::GEMM_TIMES_PER_CTA;
                        let warps = (threads / 32) as usize;
                        let (mut med_span, mut max_span, mut wall) =
                            (Vec::new(), Vec::new(), Vec::new());
                        for _ in 0..reps {
                            if before != Before::Warm {
                                self.flush.fill_u32(0x5a5a_5a5a)?;
                                self.gpu.sync()?;
                                if before != Before::FlushedDirty {
                                    std::thread::sleep(std::time::Duration::from_micros(DRAIN_US));
                                }
                                if before != Before::Cold {
                                    self.launch(kname, 1, threads, smem, &args)?;
                                }
                            }
                            let ms = self.launch_timed(kname, grid, threads, smem, &args)?;
                            self.check_err(kname)?;
                            let raw = self.out_u64(per_cta * grid as usize)?;
                            // As val.gemm_mainloop reads them: per CTA, its warps' first
                            // start to last end (clock64), and the launch's %globaltimer.
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
                                "val.gemm_l2.{schedule}.pipe_{pipe}.{label}.{}",
                                before.label()
                            ),
                            group: "gemm_l2",
                            unit: "cycles",
                            kernel: kname,
                            method: "val.gemm_mainloop's kernel and value (the median over CTAs of \
                                     a CTA's last end - first start, clock64); before each timed \
                                     launch: warm = after a launch of the same kernel; flushed = a \
                                     256 MiB memset, 2 ms, a one-CTA launch; flushed_dirty = \
                                     without the 2 ms; cold = without the one-CTA launch",
                            params: vec![
                                ("family", v("gemm-mainloop")),
                                ("schedule", v(schedule)),
                                ("PIPE", v(pipe)),
                                ("K", v(k_elems)),
                                ("M", v(m)),
                                ("N", v(n)),
                                ("grid", v(grid)),
                                ("threads", v(threads)),
                                ("l2_before", v(before.label())),
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
