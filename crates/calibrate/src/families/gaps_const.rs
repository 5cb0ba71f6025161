//! The constant loads, the fence, the conversions and the instruction fetch of the
//! TMA-streaming loops (issue 25, stream twins): the collector's side of `gaps.const`,
//! split from `gaps.rs` (which holds the kernels' source and the other gap sections).

use super::gaps::ICACHE_BODIES;
use crate::bench::*;
use crate::gpu::{Result, arg};

impl Runner {
    /// The constant loads and the fence of the TMA-streaming loops (issue 25, stream
    /// twins): a dependent `LDC` chain (cycles per load), the trip count reloaded from
    /// the parameter bank each iteration (cycles per iteration), `fence.proxy.async`
    /// after STS with and without a CTA barrier (cycles per iteration), and a chain of
    /// divisions by a changing divisor (cycles per division).
    pub(crate) fn gaps_const(&mut self) -> Result<()> {
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let timed = |r: &mut Runner,
                     k: &str,
                     grid_block: u32,
                     args: &[*mut std::ffi::c_void],
                     per: f64|
         -> Result<Vec<f64>> {
            let mut v = Vec::new();
            for rep in 0..r.reps(7, 2) {
                r.launch(k, 1, grid_block, 0, args)?;
                let o = r.out_u64(2)?;
                if rep > 0 {
                    v.push(o[1].wrapping_sub(o[0]) as f64 / per);
                }
            }
            Ok(v)
        };
        for stride in [4i32, 64] {
            for threads in [1u32, 32] {
                let iters: i32 = 256;
                let reps = timed(
                    self,
                    "gap_ldc_chain",
                    threads,
                    &[arg(&iters), arg(&stride), arg(&out), arg(&sink)],
                    f64::from(iters) * 16.0,
                )?;
                self.push(Rec {
                    name: format!("gap.const.ldc_chain.stride_{stride}.threads_{threads}"),
                    group: "gaps",
                    unit: "cycles",
                    kernel: "gap_ldc_chain",
                    method: "one warp: a dependent chain of indexed constant loads \
                             (LDC R, c[0x3][R]), 16 per iteration; cycles per load",
                    params: vec![
                        ("iters", v(iters)),
                        ("stride", v(stride)),
                        ("threads", v(threads)),
                    ],
                    reps,
                    extra: vec![],
                });
            }
        }
        for mode in [0i32, 1] {
            let n: i32 = 4096;
            let reps = timed(
                self,
                "gap_ldc_loop",
                32,
                &[arg(&n), arg(&mode), arg(&out), arg(&sink)],
                f64::from(n),
            )?;
            self.push(Rec {
                name: format!("gap.const.ldc_loop.mode_{mode}"),
                group: "gaps",
                unit: "cycles",
                kernel: "gap_ldc_loop",
                method: "one warp: a loop whose trip count is reloaded from the parameter \
                         bank (ld.param) each iteration and compared at once; cycles per iteration",
                params: vec![("n", v(n)), ("mode", v(mode))],
                reps,
                extra: vec![],
            });
        }
        for threads in [32u32, 128] {
            for mode in [0i32, 1, 2, 3, 4] {
                if threads == 32 && mode >= 3 {
                    continue;
                }
                let iters: i32 = 512;
                let reps = timed(
                    self,
                    "gap_fence",
                    threads,
                    &[arg(&iters), arg(&mode), arg(&out), arg(&sink)],
                    f64::from(iters),
                )?;
                let what = ["sts", "sts_fence", "fence", "sts_fence_bar", "sts_bar"][mode as usize];
                self.push(Rec {
                    name: format!("gap.const.fence.{what}.threads_{threads}"),
                    group: "gaps",
                    unit: "cycles",
                    kernel: "gap_fence",
                    method: "threads x iters: STS.128 and/or fence.proxy.async.shared::cta \
                             (MEMBAR.ALL.CTA; FENCE.VIEW.ASYNC.S) and/or bar.sync 1; cycles per iteration",
                    params: vec![("iters", v(iters)), ("mode", v(mode)), ("threads", v(threads))],
                    reps,
                    extra: vec![],
                });
            }
        }
        // instruction fetch: straight-line FFMA bodies of 256 .. 8192 instructions
        for n in ICACHE_BODIES {
            for warps in [1u32, 4, 8] {
                let kernel = format!("gap_icache_{n}");
                let iters: i32 = (65536 / n) as i32;
                let (m, c) = (0.999f32, 0.5f32);
                let mut reps = Vec::new();
                for rep in 0..self.reps(6, 2) {
                    self.launch(
                        &kernel,
                        1,
                        32 * warps,
                        0,
                        &[arg(&iters), arg(&m), arg(&c), arg(&out), arg(&sink)],
                    )?;
                    let o = self.out_u64(2 * warps as usize)?;
                    let start = (0..warps as usize).map(|w| o[2 * w]).min().unwrap_or(0);
                    let end = (0..warps as usize).map(|w| o[2 * w + 1]).max().unwrap_or(0);
                    if rep > 0 {
                        reps.push(
                            end.wrapping_sub(start) as f64 / (f64::from(iters) * f64::from(n)),
                        );
                    }
                }
                self.push(Rec {
                    name: format!("gap.const.icache.ffma_{n}.warps_{warps}"),
                    group: "gaps",
                    unit: "cycles",
                    kernel: &kernel,
                    method: "warps x iters passes of a straight-line body of n FFMAs (8 chains); \
                             cycles per FFMA per warp, first start to last end",
                    params: vec![("n", v(n)), ("iters", v(iters)), ("warps", v(warps))],
                    reps,
                    extra: vec![],
                });
            }
        }
        for mode in [0i32, 1, 2, 3] {
            let (iters, n): (i32, i32) = (1024, 0);
            let reps = timed(
                self,
                "gap_diverge",
                32,
                &[arg(&iters), arg(&mode), arg(&n), arg(&out), arg(&sink)],
                f64::from(iters),
            )?;
            let what = ["lane0", "all", "uniform", "lane0_twice"][mode as usize];
            self.push(Rec {
                name: format!("gap.const.diverge.{what}"),
                group: "gaps",
                unit: "cycles",
                kernel: "gap_diverge",
                method: "one warp: a short dependent chain per iteration run by lane 0 alone \
                         (divergent branch), every lane, or under a warp-uniform branch; cycles per iteration",
                params: vec![("iters", v(iters)), ("mode", v(mode))],
                reps,
                extra: vec![],
            });
        }
        let iters: i32 = 256;
        let d0: u32 = 3;
        let reps = timed(
            self,
            "gap_div_chain",
            1,
            &[arg(&iters), arg(&d0), arg(&out), arg(&sink)],
            f64::from(iters) * 4.0,
        )?;
        self.push(Rec {
            name: "gap.const.div_chain".into(),
            group: "gaps",
            unit: "cycles",
            kernel: "gap_div_chain",
            method: "one thread: dependent u32 remainders by a divisor that changes each step \
                     (I2F.U32.RP, MUFU.RCP, F2I and the fix-ups each time); cycles per division",
            params: vec![("iters", v(iters)), ("d0", v(d0))],
            reps,
            extra: vec![],
        });
        Ok(())
    }
}
