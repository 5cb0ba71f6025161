//! The softmax's other instructions (kernels/mio.cu): SHFL, FMNMX, F2FP.
//!
//! The collector's section (run on the GPU) and the simulated twins of its benchmarks, side by side.

use crate::bench::*;
use crate::gpu::{Result, arg};
use crate::twins::*;
use std::ffi::c_void;

impl Runner {
    /// The softmax's other instructions: dependent chains (cycles per step) of SHFL.BFLY
    /// (one full warp), FMNMX and F2FP.BF16.F32.PACK_AB (one thread), and their
    /// throughput with 1024 threads (thread-instructions per cycle per SM).
    pub(crate) fn mio(&mut self) -> Result<()> {
        let reps = self.reps(32, 8);
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let lane_mask: u32 = 1;
        let x0u: u32 = 7;
        let (a, b, x0f) = (0.5f32, 0.25f32, 1.5f32);
        for (name, kname, threads, what) in [
            (
                "lat.shfl",
                "lat_shfl",
                32u32,
                "SHFL.BFLY (shfl.sync.bfly.b32, lane mask 1 at run time), one warp",
            ),
            ("lat.fmnmx", "lat_fmnmx", 1, "FMNMX (max.f32 x, x, a)"),
            (
                "lat.f2fp",
                "lat_f2fp",
                1,
                "F2FP.BF16.F32.PACK_AB (cvt.rn.bf16x2.f32 x, x, a)",
            ),
        ] {
            let args: [*mut c_void; 6] = if kname == "lat_shfl" {
                [
                    arg(&out),
                    arg(&lane_mask),
                    arg(&lane_mask),
                    arg(&x0u),
                    arg(&reps),
                    arg(&sink),
                ]
            } else {
                [
                    arg(&out),
                    arg(&a),
                    arg(&b),
                    arg(&x0f),
                    arg(&reps),
                    arg(&sink),
                ]
            };
            self.launch(kname, 1, threads, 0, &args)?;
            let raw = self.out_u64(2 * reps as usize)?;
            self.push_chain(name, kname, &raw, what);
        }
        let block = 1024u32;
        let iters: i32 = 256;
        for (name, kname, what) in [
            ("tp.shfl", "tp_shfl", "SHFL.BFLY"),
            ("tp.fmnmx", "tp_fmnmx", "FMNMX"),
            ("tp.f2fp", "tp_f2fp", "F2FP.BF16.F32.PACK_AB"),
        ] {
            let mut per = Vec::new();
            for _ in 0..self.reps(5, 2) {
                let args: [*mut c_void; 5] = if kname == "tp_shfl" {
                    [
                        arg(&iters),
                        arg(&lane_mask),
                        arg(&lane_mask),
                        arg(&out),
                        arg(&sink),
                    ]
                } else {
                    [arg(&iters), arg(&a), arg(&b), arg(&out), arg(&sink)]
                };
                self.launch(kname, 1, block, 0, &args)?;
                let raw = self.out_u64(2 * (block / 32) as usize)?;
                let ops = f64::from(block) * f64::from(iters) * 16.0 * 8.0;
                per.push(ops / self.warp_span(&raw));
            }
            self.push(Rec {
                name: name.into(),
                group: "throughput",
                unit: "per_clk_per_sm",
                kernel: kname,
                method: "one block of 1024 threads, 8 independent chains per thread; thread-instructions per \
                         cycle over the span from the first warp's start to the last warp's end",
                params: vec![("instruction", v(what)), ("block", v(block)), ("iters", v(iters))],
                reps: per,
                extra: vec![],
            });
        }
        Ok(())
    }
}

/// SHFL, FMNMX and F2FP latency and throughput.
pub(crate) fn twins(v: &mut Vec<Twin>) {
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
}
