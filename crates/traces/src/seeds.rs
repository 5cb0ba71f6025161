//! The seeds' published figures and the library runs that reproduce them: per seed, the
//! seed's figure, smsim's, the error, and the seed's ratios between schedules against
//! smsim's. `examples/seed_table.rs` prints the table and writes or checks the committed
//! copy (`crates/traces/seeds/table.md`); `tests/seed_table.rs` checks it in CI.
//!
//! The figures are the seeds' own (`../shared/seeds/`), each with where it is printed.
//! Seed 001's were measured on a Blackwell GPU: they run on the `b200` profile, which
//! holds published figures, and whose chip L2 bandwidth ([`B200_FIT`]) is fitted to three
//! of the seed's matmul figures ([`Use::Fit`]); the other three and the elementwise
//! figures are held out ([`Use::HeldOut`]).

use std::fmt::{self, Write as _};

use sim_core::{Profile, RunConfig};

/// The committed table, relative to the `traces` crate.
pub const TABLE_PATH: &str = "seeds/table.md";

/// What a figure measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// TFLOP/s (the kernel's declared FLOPs over its time).
    Tflops,
    /// TB/s (the kernel's declared bytes over its time).
    Tbps,
}

impl Unit {
    fn name(self) -> &'static str {
        match self {
            Unit::Tflops => "TFLOP/s",
            Unit::Tbps => "TB/s",
        }
    }
}

/// What a figure is for in this table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// A target of issue 30 (the seed's H100 figures).
    Target,
    /// A figure a profile parameter was fitted to (the b200 profile's [`B200_FIT`]).
    Fit,
    /// A figure no parameter was fitted to: a prediction.
    HeldOut,
    /// A run with a family's what-if parameter standing in for something the engine
    /// does not model (named in the figure's label): what that model change would give.
    WhatIf,
}

impl Use {
    fn name(self) -> &'static str {
        match self {
            Use::Target => "target",
            Use::Fit => "fit",
            Use::HeldOut => "held out",
            Use::WhatIf => "what-if",
        }
    }
}

/// One published figure and the library run that reproduces it.
#[derive(Clone, Copy, Debug)]
pub struct Figure {
    /// Short name, unique in the table (ratios refer to it).
    pub id: &'static str,
    /// The seed file's number (`000` .. `004`).
    pub seed: &'static str,
    /// What was measured, in the seed's words.
    pub label: &'static str,
    pub family: &'static str,
    pub schedule: &'static str,
    /// The seed's problem as the family's parameters (the rest at their defaults).
    pub params: &'static [(&'static str, i64)],
    /// The built-in profile it runs on.
    pub profile: &'static str,
    /// Profile parameters set for the run (a fit's values), by name.
    pub sets: &'static [(&'static str, f64)],
    pub published: f64,
    pub unit: Unit,
    /// Where the figure is printed.
    pub source: &'static str,
    pub use_: Use,
}

/// A ratio between two figures of one seed (the first over the second): a schedule's
/// gain in an ablation, as the seed measured it and as smsim predicts it.
#[derive(Clone, Copy, Debug)]
pub struct Ratio {
    pub seed: &'static str,
    pub label: &'static str,
    pub over: (&'static str, &'static str),
}

/// The b200 profile's parameter fitted to seed 001's matmul: the chip's L2 bandwidth,
/// unpublished for the B200 (the H100's measured figure scaled by SM count was the
/// prior, 5000 B/clk), which the seed's matmul is bound by (l2_bandwidth 100% busy at the
/// prior). `cargo run --release -p traces --example seed_table -- --fit` searches it again
/// ([`FITS`]) on the figures marked [`Use::Fit`] (K = 1024, 4096, 16384: every other K, so
/// the held-out ones span the same range) and `crates/sim-core/profiles/b200.toml` holds
/// the value, naming the figures. (`l2_shared_read_gain`, also unmeasured on Blackwell, moves the
/// same runs the same way; the matmul alone cannot tell the two apart.)
pub const B200_FIT: &str = "l2_bytes_per_clk_chip";
/// The b200 profile's value before the fit (what the prior rows run with).
pub const B200_PRIOR: f64 = 5000.0;
const B200_PRIOR_SETS: &[(&str, f64)] = &[(B200_FIT, B200_PRIOR)];

const GEMM: &[(&str, i64)] = &[("M", 8192), ("N", 8192), ("K", 8192), ("EPILOGUE", 2)];
/// The bare miniature: no scalar work in the consumers' k-steps (`ARITH=0`), the model
/// before the compiled kernel's 66 instructions a k-step were added.
const GEMM_BARE: &[(&str, i64)] = &[
    ("M", 8192),
    ("N", 8192),
    ("K", 8192),
    ("EPILOGUE", 2),
    ("ARITH", 0),
];
const FA3: &[(&str, i64)] = &[("BATCH", 4), ("SEQLEN", 8448), ("HEADS", 16)];
/// The FA3 paper's forward benchmark at seqlen 8k: batch x seqlen = 16k, heads x d = 2048.
const FA3_D128: &[(&str, i64)] = &[("BATCH", 2), ("SEQLEN", 8192), ("HEADS", 16)];
const FA3_D64: &[(&str, i64)] = &[
    ("BATCH", 2),
    ("SEQLEN", 8192),
    ("HEADS", 32),
    ("HEADDIM", 64),
];
/// The model before the H100 measured its FP32 FMA pipe and tensor core taking turns
/// (`fma_tensor_cycles`, 1 in the h100 profile: crates/traces/seeds/data/mufu-tensor):
/// the what-if rows show what that measured effect does to seed 002's figures.
const NO_FMA_TENSOR: &[(&str, f64)] = &[("fma_tensor_cycles", 0.0)];
/// The model before MUFU was slowed beside a busy tensor core (`mufu_beside_tensor_cycles`,
/// 3 in the h100 profile: measured 8.04 to 10.78 cycles an instruction).
const NO_MUFU_BESIDE: &[(&str, f64)] = &[("mufu_beside_tensor_cycles", 0.0)];
/// The model before the math pipes were measured taking turns beside a busy tensor core
/// (the `*_port_beside_tensor_cycles`, and `alu_beside_tensor_cycles` 1, in the h100
/// profile: crates/traces/seeds/data/beside).
const NO_PORT: &[(&str, f64)] = &[
    ("fma_port_beside_tensor_cycles", 0.0),
    ("alu_port_beside_tensor_cycles", 0.0),
    ("mufu_port_beside_tensor_cycles", 0.0),
    ("alu_beside_tensor_cycles", 0.0),
];
/// Seed 002's ablation with the no-pipelining loop's softmax wholly before the scheduler
/// barrier's sync, as the source orders it (the family's default is the compiled order).
const FA3_SOURCE_ORDER: &[(&str, i64)] = &[
    ("BATCH", 4),
    ("SEQLEN", 8448),
    ("HEADS", 16),
    ("SYNC_GROUPS", 16),
];
const ADD: &[(&str, i64)] = &[("XNUMEL", 32768), ("YNUMEL", 32768)];
const S000: &str =
    "seed 000 (Unweaving Warp Specialization): gemm_nows_v1/v2 --m 8192 --n 8192 --k 8192, MY_GEMM";
const S001_ADD: &str =
    "seed 001 (Gluon tutorial): elementwise_add benchmark, 32768 x 32768 FP32, results on GB200";
const S001_MM: &str = "seed 001 (Gluon tutorial): matmul_warp_specialized, M = N = 8192, FP16, BLOCK 128x256x64, 4 buffers, GroupedPersistentTileScheduler(8)";
const S002: &str = "seed 002 (FA3 technique card): ablation, batch 4, seqlen 8448, 16 heads, d 128, non-causal FP16";
const S002_FIG5: &str = "FA3 paper (arXiv 2407.08608, seed 002's source), Fig. 5: forward, FP16, non-causal, H100 SXM5, seqlen 8k, batch 2, heads x d = 2048 (at d = 64 FA3 runs 192-row tiles over three consumer warpgroups, as the family does)";

macro_rules! fa3 {
    ($id:literal, $label:literal, $schedule:literal, $params:expr, $tf:literal, $sets:expr, $use:expr, $source:expr) => {
        Figure {
            id: $id,
            seed: "002",
            label: $label,
            family: "fa3-forward",
            schedule: $schedule,
            params: $params,
            profile: "h100",
            sets: $sets,
            published: $tf,
            unit: Unit::Tflops,
            source: $source,
            use_: $use,
        }
    };
}

macro_rules! mm {
    ($id:literal, $k:literal, $tf:literal, $use:expr) => {
        mm!($id, $k, $tf, &[], $use)
    };
    ($id:literal, $k:literal, $tf:literal, $sets:expr, $use:expr) => {
        Figure {
            id: $id,
            seed: "001",
            label: concat!("persistent ws matmul, K = ", $k),
            family: "blackwell-matmul",
            schedule: "ws",
            params: &[("M", 8192), ("N", 8192), ("K", $k)],
            profile: "b200",
            sets: $sets,
            published: $tf,
            unit: Unit::Tflops,
            source: S001_MM,
            use_: $use,
        }
    };
}

static FIGURES: &[Figure] = &[
    Figure {
        id: "gemm-v1",
        seed: "000",
        label: "GEMM 8192^3, no specialization, v1 (wait_group 0)",
        family: "gemm-mainloop",
        schedule: "static-v1",
        params: GEMM,
        profile: "h100",
        sets: &[],
        published: 675.8688,
        unit: Unit::Tflops,
        source: S000,
        use_: Use::Target,
    },
    Figure {
        id: "gemm-v2",
        seed: "000",
        label: "GEMM 8192^3, no specialization, v2 (wait_group 1)",
        family: "gemm-mainloop",
        schedule: "static-v2",
        params: GEMM,
        profile: "h100",
        sets: &[],
        published: 815.8817,
        unit: Unit::Tflops,
        source: S000,
        use_: Use::Target,
    },
    Figure {
        id: "gemm-v1-bare",
        seed: "000",
        label: "v1, what-if: no scalar work in the k-steps (ARITH=0; the compiled kernel's stage, phase and descriptor arithmetic left out)",
        family: "gemm-mainloop",
        schedule: "static-v1",
        params: GEMM_BARE,
        profile: "h100",
        sets: &[],
        published: 675.8688,
        unit: Unit::Tflops,
        source: S000,
        use_: Use::WhatIf,
    },
    Figure {
        id: "gemm-v2-bare",
        seed: "000",
        label: "v2, the same what-if",
        family: "gemm-mainloop",
        schedule: "static-v2",
        params: GEMM_BARE,
        profile: "h100",
        sets: &[],
        published: 815.8817,
        unit: Unit::Tflops,
        source: S000,
        use_: Use::WhatIf,
    },
    Figure {
        id: "gemm-cublas",
        seed: "000",
        label: "GEMM 8192^3, cuBLAS (warp-specialized) vs smsim's ws-cooperative",
        family: "gemm-mainloop",
        schedule: "ws-cooperative",
        params: GEMM,
        profile: "h100",
        sets: &[],
        published: 807.708,
        unit: Unit::Tflops,
        source: "seed 000: CUBLAS_GEMM beside v2 (805.4 beside v1)",
        use_: Use::HeldOut,
    },
    Figure {
        id: "add-tma",
        seed: "001",
        label: "elementwise add, TMA software-pipelined",
        family: "elementwise-add",
        schedule: "tma-pipelined",
        params: ADD,
        profile: "b200",
        sets: &[],
        published: 5.89,
        unit: Unit::Tbps,
        source: S001_ADD,
        use_: Use::HeldOut,
    },
    Figure {
        id: "add-ws",
        seed: "001",
        label: "elementwise add, warp-specialized",
        family: "elementwise-add",
        schedule: "warp-specialized",
        params: ADD,
        profile: "b200",
        sets: &[],
        published: 5.98,
        unit: Unit::Tbps,
        source: S001_ADD,
        use_: Use::HeldOut,
    },
    // The b200 profile's L2 bandwidth is fitted to the figures marked `Fit` (`B200_FIT`).
    mm!("mm-k512", 512, 1004.18, Use::HeldOut),
    mm!("mm-k1024", 1024, 1182.61, Use::Fit),
    mm!("mm-k2048", 2048, 1313.71, Use::HeldOut),
    mm!("mm-k4096", 4096, 1317.58, Use::Fit),
    mm!("mm-k8192", 8192, 1291.56, Use::HeldOut),
    mm!("mm-k16384", 16384, 1256.74, Use::Fit),
    // The same on the prior (the estimate the fit replaced), for what the fit moved.
    mm!("prior-mm-k512", 512, 1004.18, B200_PRIOR_SETS, Use::WhatIf),
    mm!(
        "prior-mm-k4096",
        4096,
        1317.58,
        B200_PRIOR_SETS,
        Use::WhatIf
    ),
    fa3!(
        "fa3",
        "FlashAttention-3 (pingpong + GEMM-softmax pipelining)",
        "fa3",
        FA3,
        661.0,
        &[],
        Use::Target,
        S002
    ),
    fa3!(
        "fa3-no-pipelining",
        "no GEMM-softmax pipelining",
        "fa3-no-pipelining",
        FA3,
        582.0,
        &[],
        Use::Target,
        S002
    ),
    fa3!(
        "fa3-no-ws",
        "no warp specialization",
        "fa3-no-ws",
        FA3,
        570.0,
        &[],
        Use::Target,
        S002
    ),
    fa3!(
        "fa3-d128",
        "FA3 forward, d = 128, seqlen 8k",
        "fa3",
        FA3_D128,
        646.0,
        &[],
        Use::HeldOut,
        S002_FIG5
    ),
    fa3!(
        "fa3-d64",
        "FA3 forward, d = 64, seqlen 8k",
        "fa3",
        FA3_D64,
        496.0,
        &[],
        Use::HeldOut,
        S002_FIG5
    ),
    // What-if: the no-pipelining loop in its source's order, and MUFU unslowed.
    fa3!(
        "src-fa3-no-pipelining",
        "no GEMM-softmax pipelining, what-if: the softmax wholly before the scheduler barrier's sync (SYNC_GROUPS=16, the source's order; ptxas sinks two thirds of it below)",
        "fa3-no-pipelining",
        FA3_SOURCE_ORDER,
        582.0,
        &[],
        Use::WhatIf,
        S002
    ),
    fa3!(
        "nomufu-fa3",
        "FA3, what-if: MUFU unslowed beside the busy tensor core (mufu_beside_tensor_cycles = 0, the model before)",
        "fa3",
        FA3,
        661.0,
        NO_MUFU_BESIDE,
        Use::WhatIf,
        S002
    ),
    fa3!(
        "nomufu-fa3-no-pipelining",
        "no GEMM-softmax pipelining, the same what-if",
        "fa3-no-pipelining",
        FA3,
        582.0,
        NO_MUFU_BESIDE,
        Use::WhatIf,
        S002
    ),
    fa3!(
        "nomufu-fa3-no-ws",
        "no warp specialization, the same what-if",
        "fa3-no-ws",
        FA3,
        570.0,
        NO_MUFU_BESIDE,
        Use::WhatIf,
        S002
    ),
    // What-if: the model before the port measurement (`NO_PORT`).
    fa3!(
        "noport-fa3",
        "FA3, what-if: the math pipes overlap beside the busy tensor core (the *_port_beside_tensor_cycles and alu_beside_tensor_cycles 0, the model before they were measured)",
        "fa3",
        FA3,
        661.0,
        NO_PORT,
        Use::WhatIf,
        S002
    ),
    fa3!(
        "noport-fa3-no-pipelining",
        "no GEMM-softmax pipelining, the same what-if",
        "fa3-no-pipelining",
        FA3,
        582.0,
        NO_PORT,
        Use::WhatIf,
        S002
    ),
    fa3!(
        "noport-fa3-no-ws",
        "no warp specialization, the same what-if",
        "fa3-no-ws",
        FA3,
        570.0,
        NO_PORT,
        Use::WhatIf,
        S002
    ),
    // What-if: the model before the FMA/tensor measurement (`NO_FMA_TENSOR`).
    fa3!(
        "nofma-fa3",
        "FA3, what-if: the FMA pipe and the tensor core overlap freely (fma_tensor_cycles = 0, the model before it was measured)",
        "fa3",
        FA3,
        661.0,
        NO_FMA_TENSOR,
        Use::WhatIf,
        S002
    ),
    fa3!(
        "nofma-fa3-no-pipelining",
        "no GEMM-softmax pipelining, the same what-if",
        "fa3-no-pipelining",
        FA3,
        582.0,
        NO_FMA_TENSOR,
        Use::WhatIf,
        S002
    ),
    fa3!(
        "nofma-fa3-no-ws",
        "no warp specialization, the same what-if",
        "fa3-no-ws",
        FA3,
        570.0,
        NO_FMA_TENSOR,
        Use::WhatIf,
        S002
    ),
    fa3!(
        "nofma-fa3-d128",
        "FA3 forward, d = 128, seqlen 8k, the same what-if",
        "fa3",
        FA3_D128,
        646.0,
        NO_FMA_TENSOR,
        Use::WhatIf,
        S002_FIG5
    ),
    fa3!(
        "nofma-fa3-d64",
        "FA3 forward, d = 64, seqlen 8k, the same what-if",
        "fa3",
        FA3_D64,
        496.0,
        NO_FMA_TENSOR,
        Use::WhatIf,
        S002_FIG5
    ),
];

static RATIOS: &[Ratio] = &[
    Ratio {
        seed: "000",
        label: "v2 over v1 (the wait_group 1 pipelining)",
        over: ("gemm-v2", "gemm-v1"),
    },
    Ratio {
        seed: "000",
        label: "v2 over v1, what-if without the k-steps' scalar work",
        over: ("gemm-v2-bare", "gemm-v1-bare"),
    },
    Ratio {
        seed: "000",
        label: "cuBLAS over v2",
        over: ("gemm-cublas", "gemm-v2"),
    },
    Ratio {
        seed: "002",
        label: "FA3 over no GEMM-softmax pipelining",
        over: ("fa3", "fa3-no-pipelining"),
    },
    Ratio {
        seed: "002",
        label: "FA3 over no warp specialization",
        over: ("fa3", "fa3-no-ws"),
    },
    Ratio {
        seed: "002",
        label: "FA3 at d = 128 over d = 64 (the softmax's share doubles at d = 64)",
        over: ("fa3-d128", "fa3-d64"),
    },
    Ratio {
        seed: "002",
        label: "what-if the softmax wholly before the sync: FA3 over no GEMM-softmax pipelining",
        over: ("fa3", "src-fa3-no-pipelining"),
    },
    Ratio {
        seed: "002",
        label: "what-if MUFU unslowed: FA3 over no GEMM-softmax pipelining",
        over: ("nomufu-fa3", "nomufu-fa3-no-pipelining"),
    },
    Ratio {
        seed: "002",
        label: "the same what-if: FA3 over no warp specialization",
        over: ("nomufu-fa3", "nomufu-fa3-no-ws"),
    },
    Ratio {
        seed: "002",
        label: "what-if the math pipes overlap beside the tensor core: FA3 over no GEMM-softmax pipelining",
        over: ("noport-fa3", "noport-fa3-no-pipelining"),
    },
    Ratio {
        seed: "002",
        label: "the same what-if: FA3 over no warp specialization",
        over: ("noport-fa3", "noport-fa3-no-ws"),
    },
    Ratio {
        seed: "002",
        label: "what-if FMA and tensor overlap freely: FA3 over no GEMM-softmax pipelining",
        over: ("nofma-fa3", "nofma-fa3-no-pipelining"),
    },
    Ratio {
        seed: "002",
        label: "the same what-if: FA3 over no warp specialization",
        over: ("nofma-fa3", "nofma-fa3-no-ws"),
    },
    Ratio {
        seed: "002",
        label: "the same what-if: FA3 at d = 128 over d = 64",
        over: ("nofma-fa3-d128", "nofma-fa3-d64"),
    },
    Ratio {
        seed: "001",
        label: "elementwise add: warp-specialized over TMA-pipelined",
        over: ("add-ws", "add-tma"),
    },
    Ratio {
        seed: "001",
        label: "matmul: K = 4096 over K = 512 (the epilogue's share at small K)",
        over: ("mm-k4096", "mm-k512"),
    },
    Ratio {
        seed: "001",
        label: "matmul on the prior L2 bandwidth: K = 4096 over K = 512",
        over: ("prior-mm-k4096", "prior-mm-k512"),
    },
];

/// Every seed figure the table reproduces.
pub fn figures() -> &'static [Figure] {
    FIGURES
}

/// The seeds' ratios between figures.
pub fn ratios() -> &'static [Ratio] {
    RATIOS
}

/// A figure with smsim's value for it.
#[derive(Clone, Debug)]
pub struct Row {
    pub figure: Figure,
    /// smsim's figure in the same unit, or why the run failed.
    pub smsim: Result<f64, String>,
}

impl Row {
    /// (smsim - seed) / seed.
    pub fn error(&self) -> Option<f64> {
        self.smsim
            .as_ref()
            .ok()
            .map(|s| (s - self.figure.published) / self.figure.published)
    }
}

/// The table: every figure run, and the ratios.
#[derive(Clone, Debug)]
pub struct Table {
    pub rows: Vec<Row>,
}

/// Each fitted figure's id and its error, (smsim - seed) / seed.
pub type FitErrors = Vec<(&'static str, f64)>;

/// A profile parameter fitted to figures of the table.
#[derive(Clone, Copy, Debug)]
pub struct Fit {
    /// The parameter.
    pub param: &'static str,
    /// The figures it is fitted to (by id; they share the profile).
    pub figures: &'static [&'static str],
    /// The range searched.
    pub range: (f64, f64),
    /// Where the fitted value lives: the built-in profile's file, or the table's what-if
    /// rows.
    pub holder: &'static str,
}

/// The fits behind the table: the b200 profile's chip L2 bandwidth on seed 001's matmul
/// (the figures marked [`Use::Fit`]). (Seed 002's MUFU/tensor what-if, fitted here
/// before, gave way to the measured FMA/tensor turn-taking.)
pub static FITS: &[Fit] = &[Fit {
    param: B200_FIT,
    figures: &["mm-k1024", "mm-k4096", "mm-k16384"],
    range: (2000.0, 40000.0),
    holder: "crates/sim-core/profiles/b200.toml",
}];

/// Searches `fit.param`'s whole value in its range for the one at which its figures'
/// mean log error is nearest zero (the least-squares value in the log domain when the
/// runs move together): bisection on the sign, smsim's figures moving one way with the
/// value, then the nearer of the two whole values around the crossing. Returns the value
/// and each fitted figure's error there.
pub fn fit(fit: &Fit) -> Result<(f64, FitErrors), String> {
    let fitted: Vec<&Figure> = fit
        .figures
        .iter()
        .map(|id| {
            FIGURES
                .iter()
                .find(|f| f.id == *id)
                .ok_or_else(|| format!("no figure `{id}`"))
        })
        .collect::<Result<_, _>>()?;
    let errors = |v: f64| -> Result<FitErrors, String> {
        std::thread::scope(|s| {
            let handles: Vec<_> = fitted
                .iter()
                .map(|f| s.spawn(move || run_with(f, &[(fit.param, v)])))
                .collect();
            fitted
                .iter()
                .zip(handles)
                .map(|(f, h)| {
                    let sim = h.join().map_err(|_| "a run panicked".to_string())??;
                    Ok((f.id, sim / f.published - 1.0))
                })
                .collect()
        })
    };
    let mean_log = |v: f64| -> Result<f64, String> {
        let e = errors(v)?;
        Ok(e.iter().map(|(_, x)| (1.0 + x).ln()).sum::<f64>() / e.len() as f64)
    };
    let (mut lo, mut hi) = fit.range;
    let rising = mean_log(hi)? > mean_log(lo)?;
    while hi - lo > 1.0 {
        let mid = 0.5 * (lo + hi);
        if (mean_log(mid)? < 0.0) == rising {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let (a, b) = (lo.floor().max(fit.range.0), hi.ceil().min(fit.range.1));
    let v = if mean_log(a)?.abs() <= mean_log(b)?.abs() {
        a
    } else {
        b
    };
    Ok((v, errors(v)?))
}

/// Runs one figure's kernel on its profile at the run's defaults (seed 1, two-level).
pub fn run_figure(f: &Figure) -> Result<f64, String> {
    run_with(f, f.sets)
}

/// [`run_figure`] with these profile parameters set instead of the figure's.
fn run_with(f: &Figure, sets: &[(&str, f64)]) -> Result<f64, String> {
    let params: Vec<(String, i64)> = f.params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let k = crate::generate(f.family, f.schedule, &params)?;
    let mut profile = Profile::builtin(f.profile).map_err(|e| e.to_string())?;
    for (name, v) in sets {
        profile.set(name, *v).map_err(|e| e.to_string())?;
    }
    let r = sim_core::run(&k, &profile, &RunConfig::default()).map_err(|e| e.to_string())?;
    let v = match f.unit {
        Unit::Tflops => r.tflops,
        Unit::Tbps => r.gbps.map(|g| g / 1000.0),
    };
    v.ok_or_else(|| format!("{}/{} declares no {}", f.family, f.schedule, f.unit.name()))
}

/// Runs every figure (in parallel threads, one per figure).
pub fn table() -> Table {
    let rows = std::thread::scope(|s| {
        let handles: Vec<_> = FIGURES
            .iter()
            .map(|f| s.spawn(move || run_figure(f)))
            .collect();
        FIGURES
            .iter()
            .zip(handles)
            .map(|(f, h)| Row {
                figure: *f,
                smsim: h.join().unwrap_or_else(|_| Err("the run panicked".into())),
            })
            .collect()
    });
    Table { rows }
}

impl Table {
    fn value(&self, id: &str) -> Option<(f64, f64)> {
        let r = self.rows.iter().find(|r| r.figure.id == id)?;
        Some((r.figure.published, *r.smsim.as_ref().ok()?))
    }
    /// (seed's ratio, smsim's) of a ratio; None when a run failed.
    pub fn ratio(&self, r: &Ratio) -> Option<(f64, f64)> {
        let (a, sa) = self.value(r.over.0)?;
        let (b, sb) = self.value(r.over.1)?;
        Some((a / b, sa / sb))
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut seeds: Vec<&str> = self.rows.iter().map(|r| r.figure.seed).collect();
        seeds.dedup();
        writeln!(f, "# The seeds' figures against smsim\n")?;
        writeln!(
            f,
            "Generated by `cargo run --release -p traces --example seed_table -- --write`; \
             checked by `cargo test --release -p traces --test seed_table -- --ignored`. \
             Every run at seed 1 under the two-level policy, on the built-in profile named; \
             error = (smsim - seed) / seed. Ratios: the first figure over the second, \
             difference in points (1 point = 0.01).\n"
        )?;
        for seed in seeds {
            let rows: Vec<&Row> = self.rows.iter().filter(|r| r.figure.seed == seed).collect();
            writeln!(f, "## Seed {seed}\n")?;
            writeln!(
                f,
                "| figure | kernel | profile | use | seed | smsim | error |\n|---|---|---|---|---:|---:|---:|"
            )?;
            for r in &rows {
                let fig = &r.figure;
                let params: Vec<String> =
                    fig.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let mut profile = fig.profile.to_string();
                for (k, v) in fig.sets {
                    let _ = write!(profile, " {k}={v}");
                }
                let (smsim, err) = match (&r.smsim, r.error()) {
                    (Ok(v), Some(e)) => (format!("{v:.2}"), format!("{:+.1}%", 100.0 * e)),
                    (Err(e), _) => (format!("failed: {e}"), "-".into()),
                    _ => ("-".into(), "-".into()),
                };
                writeln!(
                    f,
                    "| {} | `{}/{}` {} | {} | {} | {:.2} {} | {smsim} | {err} |",
                    fig.label,
                    fig.family,
                    fig.schedule,
                    params.join(" "),
                    profile,
                    fig.use_.name(),
                    fig.published,
                    fig.unit.name(),
                )?;
            }
            let ratios: Vec<&Ratio> = RATIOS.iter().filter(|r| r.seed == seed).collect();
            if !ratios.is_empty() {
                writeln!(
                    f,
                    "\n| ratio | seed | smsim | difference |\n|---|---:|---:|---:|"
                )?;
                for r in ratios {
                    let (s, m) = match self.ratio(r) {
                        Some((a, b)) => (
                            format!("{a:.3}"),
                            format!("{b:.3} | {:+.1}", 100.0 * (b - a)),
                        ),
                        None => ("-".into(), "- | -".into()),
                    };
                    writeln!(f, "| {} | {s} | {m} |", r.label)?;
                }
            }
            let mut sources: Vec<&str> = Vec::new();
            for r in &rows {
                if !sources.contains(&r.figure.source) {
                    sources.push(r.figure.source);
                }
            }
            let mut text = String::new();
            for s in sources {
                let _ = writeln!(text, "- {s}");
            }
            writeln!(f, "\nSources:\n{text}")?;
        }
        Ok(())
    }
}
