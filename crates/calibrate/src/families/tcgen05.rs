//! Blackwell tensor memory and tcgen05.mma (`kernels/tcgen05.cu`): the TMEM allocation,
//! the latency of 1 and 8 MMAs from issue to their commit's mbarrier arrival, and a TMEM
//! load. Run only on compute capability 10.x; no twins yet (the b200 profile holds
//! published figures until a B200 measures them).

use crate::bench::{Rec, Runner, v};
use crate::gpu::{Result, arg};
use crate::sources::{TCGEN05_CASES, tcgen05_smem};

impl Runner {
    /// One CTA of one warpgroup per case; each repetition's three timings (allocation on
    /// the first, MMAs to commit arrival, TMEM load and wait) as three benchmarks.
    pub(crate) fn tcgen05(&mut self) -> Result<()> {
        let reps = self.reps(32, 8);
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        for (n, k) in TCGEN05_CASES {
            let kname = format!("tc_mma_lat_n{n}_k{k}");
            let smem = tcgen05_smem(n);
            self.k(&kname)?.func.allow_smem(smem)?;
            self.launch(&kname, 1, 128, smem, &[arg(&reps), arg(&out), arg(&sink)])?;
            let raw = self.out_u64(3 * reps as usize)?;
            let column =
                |c: usize| -> Vec<f64> { raw.chunks_exact(3).map(|r| r[c] as f64).collect() };
            let params = || vec![("n", v(n)), ("m", v(128)), ("k_back_to_back", v(k))];
            self.push(Rec {
                name: format!("lat.tcgen05.mma.m128n{n}k16.bf16.k{k}"),
                group: "latency",
                unit: "cycles",
                kernel: &kname,
                method: "one thread issues K tcgen05.mma (cta_group::1, kind::f16, bf16 in, f32 in TMEM) \
                         and tcgen05.commit to an mbarrier; clock64 before the first MMA to after the \
                         mbarrier wait returns (thread 0)",
                params: params(),
                reps: column(1),
                extra: vec![],
            });
            if k == 1 {
                self.push(Rec {
                    name: format!("lat.tcgen05.ld.32x32b.x4.after_n{n}"),
                    group: "latency",
                    unit: "cycles",
                    kernel: &kname,
                    method: "tcgen05.ld.32x32b.x4 of the accumulator and tcgen05.wait::ld, every warp \
                             its 32 lanes (thread 0's clock64)",
                    params: params(),
                    reps: column(2),
                    extra: vec![],
                });
            }
            if n == 256 && k == 1 {
                self.push(Rec {
                    name: "lat.tcgen05.alloc.cols_256".into(),
                    group: "latency",
                    unit: "cycles",
                    kernel: &kname,
                    method: "tcgen05.alloc of 256 columns and relinquish_alloc_permit by warp 0, \
                             once per launch",
                    params: vec![("columns", v(256))],
                    reps: column(0)[..1].to_vec(),
                    extra: vec![],
                });
            }
        }
        Ok(())
    }
}
