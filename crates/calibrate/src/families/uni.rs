//! The uniform datapath (kernels/uni.cu): dependent chains in uniform registers.
//!
//! The collector's section (run on the GPU) and the simulated twins of its benchmarks, side by side.

use crate::bench::*;
use crate::gpu::{Result, arg};
use crate::twins::*;

impl Runner {
    /// Dependent chains of the uniform datapath (UIADD3, UIMAD, ULOP3, USHF, UISETP ->
    /// USEL), one thread, operands from the kernel parameters (`kernels/uni.cu`).
    pub(crate) fn uni(&mut self) -> Result<()> {
        let reps = self.reps(32, 8);
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let (a, b, x0): (u32, u32, u32) = (3, 5, 7);
        for (name, kname, what) in [
            (
                "lat.uiadd3",
                "lat_uiadd3",
                "UIADD3 (two PTX adds fused: UIADD3 x, a, x, b), uniform registers",
            ),
            (
                "lat.uimad",
                "lat_uimad",
                "UIMAD (mad.lo.u32 x, x, a, b), uniform registers",
            ),
            (
                "lat.ulop3",
                "lat_ulop3",
                "ULOP3.LUT (lop3.b32 x, x, a, b, 0x96), uniform registers",
            ),
            (
                "lat.ushf",
                "lat_ushf",
                "USHF.L.W.U32.HI (shf.l.wrap.b32 x, x, x, a), uniform registers",
            ),
            (
                "lat.usel",
                "lat_usel",
                "UISETP.GE.U32 into UP0 then USEL x, x, b, !UP0 (two instructions per step), uniform registers",
            ),
        ] {
            let args = [
                arg(&out),
                arg(&a),
                arg(&b),
                arg(&x0),
                arg(&reps),
                arg(&sink),
            ];
            self.launch(kname, 1, 1, 0, &args)?;
            let raw = self.out_u64(2 * reps as usize)?;
            self.push_chain(name, kname, &raw, what);
        }
        Ok(())
    }
}

/// Each uniform chain as the gemm twins translate it.
pub(crate) fn twins(v: &mut Vec<Twin>) {
    // --- the uniform datapath (kernels/uni.cu): each chain as the gemm twins translate
    // its SASS (`validation::translate_scalar`: UIMAD as IMAD, every other uniform
    // instruction as IADD3, UISETP as ISETP; uniform registers become vector registers,
    // here the vector twins' registers so that the banks match theirs)
    let banks: &[&str] = &[
        "lat_alu",
        "reg_banks",
        "reg_bank_ports",
        "reg_bank_conflict_cycles",
    ];
    v.push(chain(
        "lat.uiadd3",
        "alu-latency",
        banks,
        "IADD3 R13, R3, R13, R2",
    ));
    v.push(chain(
        "lat.uimad",
        "alu-latency",
        &[
            "lat_imad",
            "reg_banks",
            "reg_bank_ports",
            "reg_bank_conflict_cycles",
        ],
        "IMAD R13, R13, R2, R3",
    ));
    v.push(chain(
        "lat.ulop3",
        "alu-latency",
        banks,
        "IADD3 R13, R13, R2, R3",
    ));
    v.push(chain(
        "lat.ushf",
        "alu-latency",
        banks,
        "IADD3 R13, R13, R2, R13",
    ));
    v.push(chain(
        "lat.usel",
        "alu-latency",
        banks,
        "ISETP.NE.AND P0, PT, R13, R2, PT\n    IADD3 R13, R13, R3, P0",
    ));
    for (bench, f, op, group, params) in [
        (
            "tp.shfl",
            "tp_shfl",
            "SHFL",
            "shuffle",
            &["smem_bytes_per_clk", "lat_shfl", "mio_queue_depth"][..],
        ),
        (
            "tp.fmnmx",
            "tp_fmnmx",
            "FMNMX",
            "throughput",
            &["alu_issue_interval", "lat_alu"][..],
        ),
        (
            "tp.f2fp",
            "tp_f2fp",
            "F2FP",
            "throughput",
            &["alu_issue_interval", "lat_alu"][..],
        ),
    ] {
        // SASS writes SHFL's predicate output first; the kernel format leaves it out.
        let body: Vec<String> = sass_loop(f, op)
            .into_iter()
            .map(|s| s.replacen(" PT, ", " ", 1))
            .collect();
        let params: &'static [&'static str] = params;
        v.push(tp_loop(
            bench,
            group,
            params,
            &body,
            32,
            count_op(&body, op),
            0,
            "",
        ));
    }
}
