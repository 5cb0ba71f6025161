//! Calibration by benchmark family: each file holds one family's collector section
//! (the `impl Runner` methods that run its kernels on the GPU), the simulated twins of
//! its benchmarks and their helpers, so that a microbenchmark is named in one file
//! (its CUDA source stays in `kernels/*.cu` or `sources.rs`).

pub(crate) mod alu;
pub(crate) mod bw;
pub(crate) mod clock;
pub(crate) mod copy;
pub(crate) mod gaps;
mod gaps_const;
mod gaps_ctx;
mod gaps_l1hide;
mod gaps_shape;
pub mod gaps_sts;
pub mod gaps_twins;
mod gemm_l2;
pub(crate) mod ldg;
pub(crate) mod ldgsts;
pub(crate) mod lds;
pub(crate) mod mio;
pub(crate) mod sync;
pub(crate) mod tcgen05;
pub(crate) mod uni;
pub(crate) mod validation;
pub(crate) mod wgmma;

use crate::twins::Twin;

/// Every microbenchmark twin, by benchmark name, in the order the fit and the report
/// take them (the order the families were written in before they had files of their own).
pub fn micro_twins() -> Vec<Twin> {
    let mut v = Vec::new();
    alu::latency_twins(&mut v);
    ldg::chase_twins(&mut v);
    ldgsts::twins(&mut v);
    copy::twins(&mut v);
    wgmma::twins(&mut v);
    ldg::lines_twins(&mut v);
    mio::twins(&mut v);
    uni::twins(&mut v);
    sync::twins(&mut v);
    alu::throughput_twins(&mut v);
    lds::throughput_twins(&mut v);
    alu::regbank_twins(&mut v);
    bw::twins(&mut v);
    v
}
