//! `gaps.l1hide` (data/gaps/l1hide): the latency-hiding L1 kernel at more K and warps
//! around the crowding step, and with the warps' walks staggered (issue 25 gap 6).

use crate::bench::*;
use crate::gpu::{Result, arg};

impl Runner {
    /// The validation kernel's walk (one CTA, every lane its own 8 lines, lanes 1 KiB
    /// apart, `ld.global.f32`, K dependent FFMAs a load) with K in 1..32 and 12 to 24
    /// warps, each warp starting `stagger * warp` lines into its lanes' cycles (0: the
    /// validation kernel). Value: cycles per iteration from the first warp's start to the
    /// last warp's end (as `val.latency_hiding.*`); the fastest warp's in `params`, every
    /// warp's span in `extra.raw`.
    pub(crate) fn gaps_l1hide(&mut self) -> Result<()> {
        let iters: i32 = 256;
        let lines = self.upload_latency_walk()?;
        let (r2, r3) = (0.999f32, 0.001f32);
        let (p, out, sink) = (self.arena.ptr, self.out.ptr, self.sink.ptr);
        for stagger in [0i32, 1] {
            for k in [1u32, 4, 8, 12, 16, 20, 24, 32] {
                let kname = format!("gap_l1_hide_k{k}");
                for warps in [12u32, 14, 16, 18, 20, 24] {
                    let args = [
                        arg(&p),
                        arg(&iters),
                        arg(&lines),
                        arg(&r2),
                        arg(&r3),
                        arg(&stagger),
                        arg(&out),
                        arg(&sink),
                    ];
                    // one launch to bring the lines into L2 (L1 starts every launch cold)
                    self.launch(&kname, 1, 32 * warps, 0, &args)?;
                    let (mut per, mut fast, mut raw) = (Vec::new(), Vec::new(), Vec::new());
                    for _ in 0..self.reps(5, 2) {
                        self.launch(&kname, 1, 32 * warps, 0, &args)?;
                        let o = self.out_u64(2 * warps as usize)?;
                        per.push(self.warp_span(&o) / f64::from(iters));
                        let spans = Self::warp_spans(&o);
                        let min = spans.iter().copied().min().unwrap_or(0);
                        fast.push(min as f64 / f64::from(iters));
                        raw.push(spans);
                    }
                    self.push(Rec {
                        name: format!("gap.l1hide.stagger_{stagger}.k{k}.warps_{warps}"),
                        group: "gaps",
                        unit: "cycles_per_iter",
                        kernel: &kname,
                        method: "val.latency_hiding.l1's kernel (one CTA of WARPS warps; every \
                                 thread ITERS x (load f32 from its own line through L1, K \
                                 dependent FFMAs); lanes 1 KiB apart, 8 lines each) with each \
                                 warp starting stagger x warp lines into its lanes' cycles; \
                                 cycles from the first warp's start to the last warp's end / \
                                 ITERS; extra.raw: every warp's own span per launch",
                        params: vec![
                            ("WARPS", v(warps)),
                            ("K", v(k)),
                            ("stagger", v(stagger)),
                            ("ITERS", v(iters)),
                            (
                                "fastest_warp_per_iter",
                                v(crate::schema::median(&fast).unwrap_or(0.0)),
                            ),
                        ],
                        reps: per,
                        extra: vec![("raw", v(&raw))],
                    });
                }
            }
        }
        Ok(())
    }

    /// `gaps.l1trap`: the validation walk (stagger 0) around the crowding edge with warp
    /// w starting `delay * w` cycles after the others (0, 32, 64), 12 launches a point:
    /// whether the bunched start is what puts a launch in the crowded state. Value: the
    /// median over launches of the mean warp's own cycles per iteration (each warp from
    /// its first load); `extra.raw`: every launch's per-warp spans.
    pub(crate) fn gaps_l1trap(&mut self) -> Result<()> {
        let iters: i32 = 512;
        let lines = self.upload_latency_walk()?;
        let (r2, r3) = (0.999f32, 0.001f32);
        let (p, out, sink) = (self.arena.ptr, self.out.ptr, self.sink.ptr);
        let points: [(u32, &[u32]); 4] = [
            (14, &[1, 4, 8]),
            (16, &[1, 4, 8, 12, 16, 32]),
            (18, &[8, 16, 24]),
            (20, &[8, 32]),
        ];
        for delay in [0i32, 32, 64] {
            for (warps, ks) in points {
                for &k in ks {
                    let kname = format!("gap_l1_trap_k{k}");
                    let args = [
                        arg(&p),
                        arg(&iters),
                        arg(&lines),
                        arg(&r2),
                        arg(&r3),
                        arg(&delay),
                        arg(&out),
                        arg(&sink),
                    ];
                    self.launch(&kname, 1, 32 * warps, 0, &args)?;
                    let (mut per, mut raw) = (Vec::new(), Vec::new());
                    for _ in 0..self.reps(12, 2) {
                        self.launch(&kname, 1, 32 * warps, 0, &args)?;
                        let o = self.out_u64(2 * warps as usize)?;
                        let spans = Self::warp_spans(&o);
                        let mean = spans.iter().sum::<u64>() as f64 / spans.len() as f64;
                        per.push(mean / f64::from(iters));
                        raw.push(spans);
                    }
                    self.push(Rec {
                        name: format!("gap.l1trap.delay_{delay}.k{k}.warps_{warps}"),
                        group: "gaps",
                        unit: "cycles_per_iter",
                        kernel: &kname,
                        method: "gap.l1hide's walk (stagger 0) with warp w waiting delay x w \
                                 cycles after the barrier before its first load; the mean \
                                 warp's own span (from its first load) / ITERS, per launch; \
                                 extra.raw: every warp's span per launch",
                        params: vec![
                            ("WARPS", v(warps)),
                            ("K", v(k)),
                            ("delay", v(delay)),
                            ("ITERS", v(iters)),
                        ],
                        reps: per,
                        extra: vec![("raw", v(&raw))],
                    });
                }
            }
        }
        Ok(())
    }
}
