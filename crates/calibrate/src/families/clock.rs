//! The SM clock: light load, after a tensor load, under full-chip wgmma load.
//!
//! The collector's section (run on the GPU) and the simulated twins of its benchmarks, side by side.

use crate::bench::*;
use crate::gpu::{Result, arg};
use crate::schema::{self};
use crate::sources::{self, BURN_PER_ITER};
use serde_json::json;

impl Runner {
    pub(crate) fn clock_spin(&mut self, label: &str, reps: i32) -> Result<()> {
        let cycles: u64 = if self.quick { 20_000_000 } else { 100_000_000 };
        let out = self.out.ptr;
        let mut gt = Vec::new();
        let mut ev = Vec::new();
        let mut raw = Vec::new();
        for _ in 0..reps {
            let ms = self.launch_timed("clk_spin", 1, 32, 0, &[arg(&cycles), arg(&out)])?;
            let t = self.out_u64(4)?;
            let dc = t[1].wrapping_sub(t[0]) as f64;
            let dg = t[3].wrapping_sub(t[2]) as f64;
            gt.push(dc / dg * 1e3);
            ev.push(dc / (ms * 1e3));
            raw.push(json!({"clock64": dc, "globaltimer_ns": dg, "event_ms": ms}));
        }
        let params = vec![("cycles", v(cycles)), ("grid", v(1)), ("block", v(32))];
        self.push(Rec {
            name: format!("clock.sm.{label}.globaltimer"),
            group: "clock",
            unit: "MHz",
            kernel: "clk_spin",
            method: "one thread spins on clock64; clock64 delta / %globaltimer delta",
            params: params.clone(),
            reps: gt.clone(),
            extra: vec![("raw", v(&raw))],
        });
        self.push(Rec {
            name: format!("clock.sm.{label}.events"),
            group: "clock",
            unit: "MHz",
            kernel: "clk_spin",
            method: "clock64 delta / CUDA event time around the launch (includes launch overhead)",
            params,
            reps: ev,
            extra: vec![],
        });
        if self.clock_mhz.is_none() {
            self.clock_mhz = schema::median(&gt);
        }
        Ok(())
    }

    pub(crate) fn clock_light(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        self.clock_spin("light", reps)
    }

    pub(crate) fn clock_light_after(&mut self) -> Result<()> {
        self.clock_spin("light_after_tensor", 3)
    }

    pub(crate) fn clock_tensor(&mut self) -> Result<()> {
        let grid = self.sm_count;
        let mhz = self.clock_mhz.unwrap_or(1700.0);
        // about 150 ms per launch (2 warpgroups x 16 x 128 cycles per iteration)
        let secs = if self.quick { 0.02 } else { 0.15 };
        let iters: i64 = ((secs * mhz * 1e6) / (2.0 * f64::from(BURN_PER_ITER) * 128.0)) as i64;
        let smem = sources::wgmma_smem(256);
        self.k("wgmma_burn_n256")?.func.allow_smem(smem)?;
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let mut clk = Vec::new();
        let mut ev = Vec::new();
        let mut tflops = Vec::new();
        let mut raw = Vec::new();
        for _ in 0..self.reps(4, 2) {
            let ms = self.launch_timed(
                "wgmma_burn_n256",
                grid,
                256,
                smem,
                &[arg(&iters), arg(&out), arg(&sink)],
            )?;
            let bt = BlockTimes::parse(&self.out_u64(5 * grid as usize)?);
            clk.push(bt.mhz());
            ev.push(bt.max_cycles() / (ms * 1e3));
            let flop = 2.0
                * 64.0
                * 256.0
                * 16.0
                * f64::from(BURN_PER_ITER)
                * iters as f64
                * 2.0
                * f64::from(grid);
            tflops.push(flop / (ms * 1e-3) / 1e12);
            raw.push(json!({"event_ms": ms, "max_block_cycles": bt.max_cycles(), "max_block_ns": bt.max_ns(),
                "distinct_sms": bt.distinct_sms()}));
        }
        let params = vec![
            ("grid", v(grid)),
            ("block", v(256)),
            ("iters", v(iters)),
            ("wgmma_per_iter_per_warpgroup", v(BURN_PER_ITER)),
            ("shape", v("m64n256k16 bf16, A and B from shared memory")),
        ];
        self.push(Rec {
            name: "clock.sm.tensor.globaltimer".into(),
            group: "clock",
            unit: "MHz",
            kernel: "wgmma_burn_n256",
            method: "every SM runs 2 warpgroups issuing wgmma back to back; median over blocks of clock64 \
                     delta / %globaltimer delta",
            params: params.clone(),
            reps: clk,
            extra: vec![("raw", v(&raw))],
        });
        self.push(Rec {
            name: "clock.sm.tensor.events".into(),
            group: "clock",
            unit: "MHz",
            kernel: "wgmma_burn_n256",
            method: "largest block clock64 delta / CUDA event time",
            params: params.clone(),
            reps: ev,
            extra: vec![],
        });
        self.push(Rec {
            name: "tp.wgmma.chip.m64n256k16.bf16".into(),
            group: "throughput",
            unit: "TFLOP/s",
            kernel: "wgmma_burn_n256",
            method: "dense bf16 FLOP / CUDA event time, whole chip",
            params,
            reps: tflops,
            extra: vec![],
        });
        Ok(())
    }
}
