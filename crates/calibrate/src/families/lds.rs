//! Shared-memory loads: the LDS latency chase and the LDS throughput loops.
//!
//! The collector's section (run on the GPU) and the simulated twins of its benchmarks, side by side.

use crate::bench::*;
use crate::gpu::{Result, arg};
use crate::twins::*;

impl Runner {
    pub(crate) fn lat_lds(&mut self) -> Result<()> {
        let reps = self.reps(32, 8);
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        self.launch("lat_lds", 1, 32, 0, &[arg(&out), arg(&reps), arg(&sink)])?;
        let raw = self.out_u64(2 * reps as usize)?;
        self.push_chain(
            "lat.lds",
            "lat_lds",
            &raw,
            "LDS.32 pointer chase (ld.shared.u32 x, [x])",
        );
        Ok(())
    }

    pub(crate) fn tp_lds(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        let block = 1024u32;
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        for (name, kname, iters, bytes) in [
            ("tp.lds128", "tp_lds128", 2048i32, 16.0),
            ("tp.lds32", "tp_lds32", 8192, 4.0),
        ] {
            let mut per = Vec::new();
            for _ in 0..reps {
                self.launch(kname, 1, block, 0, &[arg(&iters), arg(&out), arg(&sink)])?;
                let raw = self.out_u64(2 * (block / 32) as usize)?;
                let total = f64::from(block) * f64::from(iters) * f64::from(TP_LDS_UNR) * bytes;
                per.push(total / self.warp_span(&raw));
            }
            self.push(Rec {
                name: name.into(),
                group: "throughput",
                unit: "bytes_per_clk_per_sm",
                kernel: kname,
                method: "one block of 1024 threads, conflict-free shared loads, 8 per iteration; bytes per cycle \
                         over the block's span",
                params: vec![("bytes_per_thread_load", v(bytes)), ("block", v(block)), ("iters", v(iters))],
                reps: per,
                extra: vec![],
            });
        }
        Ok(())
    }
}

/// LDS.32 and LDS.128 loops over 32 KiB of shared memory.
pub(crate) fn throughput_twins(v: &mut Vec<Twin>) {
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
}
