//! gemm-mainloop (seed 000): C += A x B in BF16 with FP32 accumulators, a 128x256x64 CTA
//! tile, PIPE shared-memory stages filled by TMA (A 128x64 = 16 KiB + B 256x64 = 32 KiB a
//! stage), K/64 iterations of four HGMMA.64x256x16 per consumer warpgroup.
//!
//! Schedules:
//! - `static-v1`: no specialization. Eight warps (two warpgroups) each own 64 rows; warp 0
//!   issues the TMA. Per k: wait for the stage, MMA, wait_group 0, a CTA-wide BAR.SYNC
//!   (both warpgroups are done with the stage), then warp 0 refills the stage just consumed.
//! - `static-v2`: the seed's v2: wait_group 1 keeps one MMA group in flight, and the stage
//!   the previous iteration used is refilled.
//! - `ws`: a producer warp (warps 1..3 of its warpgroup exit) and two consumer
//!   warpgroups; consumers release the stage after wait_group 0.
//! - `ws-wait1`: consumers keep one group in flight and release the previous stage.
//! - `ws-pingpong`: the two consumer warpgroups take alternate 64x256 tiles; a named
//!   barrier orders their mainloops so one issues MMAs while the other runs its epilogue.
//! - `ws-cooperative`: both consumer warpgroups split each tile (the `ws` body, named as
//!   CUTLASS names it).
//!
//! EPILOGUE: 0 none, 1 STG.128 of the accumulator, 2 staged through shared memory and
//! stored with UTMASTG (4 KiB subtiles per warp).
//!
//! ARITH=1 (the default): every consumer k-step also carries the 66 scalar instructions a
//! compiled kernel spends on it (the stage's mbarrier address and phase, the four
//! descriptors; `KstepArith`). They are hidden behind the MMAs in flight under wait_group
//! 1 and exposed under wait_group 0: at the seed's 8192^3, static-v1 681.7 -> 645.1
//! TFLOP/s and static-v2 783.1 -> 771.7, v2/v1 1.149 -> 1.196 (the seed: 1.207).

use isa::builder::{BodyBuilder, KernelBuilder};

use crate::{Family, ParamSpec, Params, Schedule, check_range};

pub const FAMILY: Family = Family {
    name: "gemm-mainloop",
    description: "Hopper GEMM mainloop, 128x256x64 BF16 tile, TMA + HGMMA (seed 000)",
    profile: "h100",
    schedules: &[
        Schedule {
            name: "static-v1",
            description: "no specialization; wait_group 0, then refill the stage just consumed",
        },
        Schedule {
            name: "static-v2",
            description: "no specialization; wait_group 1, refill the stage of the previous iteration",
        },
        Schedule {
            name: "ws",
            description: "producer warp + 2 consumer warpgroups; release after wait_group 0",
        },
        Schedule {
            name: "ws-wait1",
            description: "warp-specialized; wait_group 1, release the previous stage",
        },
        Schedule {
            name: "ws-pingpong",
            description: "consumer warpgroups take alternate 64x256 tiles, ordered by named barriers",
        },
        Schedule {
            name: "ws-cooperative",
            description: "both consumer warpgroups split each tile (as ws)",
        },
    ],
    params: &[
        ParamSpec {
            name: "PIPE",
            default: 4,
            help: "shared-memory stages (1..=4; 48 KiB each)",
        },
        ParamSpec {
            name: "K",
            default: 4096,
            help: "reduction length (multiple of 64); K/64 mainloop iterations",
        },
        ParamSpec {
            name: "M",
            default: 1536,
            help: "rows of C (multiple of 128); grid = M/128 x N/256",
        },
        ParamSpec {
            name: "N",
            default: 2816,
            help: "columns of C (multiple of 256)",
        },
        ParamSpec {
            name: "CLUSTER",
            default: 2,
            help: "CTAs per thread-block cluster (1 or 2): the pair shares a B tile (or, with M=128, an A tile) through TMA multicast",
        },
        ParamSpec {
            name: "EPILOGUE",
            default: 0,
            help: "0 none, 1 STG of the accumulator, 2 UTMASTG via shared memory",
        },
        ParamSpec {
            name: "RASTER",
            default: 0,
            help: "CTA raster order, which decides what the wave's CTAs share in L2: 0 along M (consecutive CTAs take consecutive rows of tiles), 1 along N",
        },
        ParamSpec {
            name: "SWIZZLE",
            default: 1,
            help: "CUTLASS's swizzle: consecutive CTAs take SWIZZLE tiles across before the raster moves on (divides the tile columns for RASTER=0, rows for 1)",
        },
        ParamSpec {
            name: "ARITH",
            default: 1,
            help: "1: each consumer k-step carries the scalar work ptxas compiles for it (the stage's mbarrier and phase, the four HGMMAs' shared-memory descriptors built and moved to uniform registers: 66 instructions, from a compiled static-v1 kernel); 0: none (the bare miniature)",
        },
        ParamSpec {
            name: "PEER_WAIT_NS",
            default: 0,
            help: "what-if for the static schedules: ns each CTA-wide stage barrier also waits for the cluster's other CTA, as the seed's v1/v2 do (\"this MMA wait will also include waiting on the paired cluster thread block\"); the engine has no cross-SM barrier, so a NANOSLEEP stands in for it",
        },
    ],
    seed_params: &[("M", 8192), ("N", 8192), ("K", 8192), ("EPILOGUE", 2)],
    build,
};

const A_STAGE: i64 = 16384;
const B_STAGE: i64 = 32768;

pub fn build(schedule: &str, p: &Params) -> Result<isa::Kernel, String> {
    let pipe = p.get("PIPE");
    let k = p.get("K");
    let m = p.get("M");
    let n = p.get("N");
    let epi = p.get("EPILOGUE");
    let peer_wait = p.get("PEER_WAIT_NS");
    check_range("ARITH", p.get("ARITH"), 0, 1)?;
    let arith = p.get("ARITH") == 1;
    check_range("PEER_WAIT_NS", peer_wait, 0, 100_000)?;
    check_range("PIPE", pipe, 1, 4)?;
    check_range("EPILOGUE", epi, 0, 2)?;
    if k < 64 || k % 64 != 0 {
        return Err(format!("K={k} must be a positive multiple of 64"));
    }
    if m < 128 || m % 128 != 0 || n < 256 || n % 256 != 0 {
        return Err(format!("M={m} must be a multiple of 128 and N={n} of 256"));
    }
    if pipe < 2 && matches!(schedule, "static-v2" | "ws-wait1" | "ws-pingpong") {
        return Err(format!(
            "{schedule} keeps one MMA group in flight and frees a stage one iteration late, so it needs PIPE >= 2 (got {pipe})"
        ));
    }
    let kt = k / 64;
    let mt = m / 128;
    let grid = mt * (n / 256);
    check_range("CLUSTER", p.get("CLUSTER"), 1, 2)?;
    // A cluster larger than the grid is a cluster of the whole grid.
    let cluster = p.get("CLUSTER").min(grid);
    if grid % cluster != 0 {
        return Err(format!(
            "the grid of {grid} CTAs does not divide into clusters of {cluster}"
        ));
    }
    let raster = Raster::new(p.get("RASTER"), p.get("SWIZZLE"), mt, n / 256)?;
    // The CTAs of a cluster share their A tile (B tile) when every cluster's CTAs are
    // on one row (column) of tiles: then it is loaded once, with TMA multicast.
    let same = |f: &dyn Fn(i64) -> i64| {
        cluster > 1
            && (0..grid / cluster)
                .all(|c| (1..cluster).all(|i| f(c * cluster + i) == f(c * cluster)))
    };
    let mc = Multicast {
        a: same(&|c| raster.m(c)),
        b: same(&|c| raster.n(c)),
    };
    let name = format!("gemm_{}", schedule.replace('-', "_"));
    let ws = schedule.starts_with("ws");
    let threads = if ws { 384 } else { 256 };
    let pingpong = schedule == "ws-pingpong";
    let mut b = KernelBuilder::new(&name, threads)
        .regs(168)
        .grid(grid as u32)
        .cluster(cluster as u32)
        // PIPE stages of slack: validate()'s range check does not narrow by the `if`
        // guarding the refill of iteration k + PIPE, so it sees k + PIPE up to KT + PIPE - 1.
        .buffer("A", (m * k * 2 + pipe * A_STAGE) as u64)
        .buffer("B", (n * k * 2 + pipe * B_STAGE) as u64)
        .buffer("C", (m * n * 4) as u64)
        .shared("sA", (pipe * A_STAGE) as u32)
        .shared("sB", (pipe * B_STAGE) as u32);
    if epi == 2 {
        b = b.shared("sC", 8 * 4096);
    }
    if raster.along_n {
        b = b.param("NT", n / 256);
    }
    // Arrivals on `empty` per use of a stage: every consumer warp that read it.
    let empty_count = if pingpong { 4 } else { 8 };
    b = b.mbarrier("full", pipe as u32, 1);
    if ws {
        b = b.mbarrier("empty", pipe as u32, empty_count);
    } else {
        b = b.named_barrier("stage_free", 1, 256);
    }
    b = b
        .param("PIPE", pipe)
        .param("KT", kt)
        .param("MT", mt)
        .work_flops("2 * 128 * 256 * 64 * KT")
        .work_bytes(if pingpong {
            "(8192 + 32768) * 2 * KT + 131072"
        } else {
            "(16384 + 32768) * KT + 131072"
        });
    let wait = |s: &str| {
        if s == "static-v2" || s == "ws-wait1" {
            1
        } else {
            0
        }
    };
    let k = match schedule {
        "static-v1" | "static-v2" => {
            let lag = wait(schedule);
            b.role("main", 0, 7, None, |b| {
                // Prologue: warp 0 fills every stage.
                b.if_("warp == 0", |b| {
                    b.loop_("s", 0, "min(PIPE, KT)", |b| load_stage(b, "s", "s", false, mc, &raster));
                });
                b.loop_("k", 0, "KT", |b| {
                    if arith {
                        KstepArith::emit(b, KstepArith::STAGE);
                    }
                    b.ins("SYNCS.PHASECHK.TRANS64.TRYWAIT full[k % PIPE], parity=(k / PIPE) & 1");
                    mma_kstep(b, "k % PIPE", "warpgroup * 8192", true, arith);
                    b.ins(format!("WARPGROUP.DEPBAR.LE gsb0, {lag}"));
                    // Refill the stage of iteration j = k - lag with iteration j + PIPE.
                    let j = if lag == 0 { "k".to_string() } else { format!("(k - {lag})") };
                    let cond = if lag == 0 {
                        "k + PIPE < KT".to_string()
                    } else {
                        format!("(k >= {lag}) & ({j} + PIPE < KT)")
                    };
                    // A non-specialized kernel learns that both warpgroups are done with
                    // a stage by a CTA-wide barrier (__syncthreads); then one elected warp
                    // refills it. When the refill is multicast into the cluster's other
                    // CTA too, that CTA must be done with the stage as well: a cluster
                    // barrier (barrier.cluster arrive/wait, relaxed), the seed's "this MMA
                    // wait will also include waiting on the paired cluster thread block".
                    b.if_(cond.as_str(), |b| {
                        if mc.a || mc.b {
                            b.ins("UCGABAR_ARV");
                            b.ins("UCGABAR_WAIT");
                        } else {
                            b.ins("BAR.SYNC 1, 256");
                        }
                        if peer_wait > 0 {
                            b.ins(format!("NANOSLEEP {peer_wait}"));
                        }
                        b.if_("warp == 0", |b| {
                            load_stage(b, &format!("{j} % PIPE"), &format!("{j} + PIPE"), false, mc, &raster);
                        });
                    });
                    if arith {
                        KstepArith::emit(b, KstepArith::NEXT);
                    }
                });
                b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
                epilogue(b, epi, "warp");
                b.ins("EXIT");
            })
        }
        "ws" | "ws-cooperative" | "ws-wait1" => {
            let lag = wait(schedule);
            b.role("producer", 0, 0, Some(40), |b| {
                b.loop_("k", 0, "KT", |b| {
                    b.ins("SYNCS.PHASECHK.TRANS64.TRYWAIT empty[k % PIPE], parity=((k / PIPE) & 1) ^ 1");
                    load_stage(b, "k % PIPE", "k", false, mc, &raster);
                });
                b.ins("EXIT");
            })
            .role("idle", 1, 3, Some(40), |b| {
                b.ins("EXIT");
            })
            .role("consumer", 4, 11, Some(232), |b| {
                b.loop_("k", 0, "KT", |b| {
                    if arith {
                        KstepArith::emit(b, KstepArith::STAGE);
                    }
                    b.ins("SYNCS.PHASECHK.TRANS64.TRYWAIT full[k % PIPE], parity=(k / PIPE) & 1");
                    mma_kstep(b, "k % PIPE", "(warpgroup - 1) * 8192", true, arith);
                    b.ins(format!("WARPGROUP.DEPBAR.LE gsb0, {lag}"));
                    if lag == 0 {
                        b.ins("SYNCS.ARRIVE.TRANS64 empty[k % PIPE]");
                    } else {
                        b.if_("k > 0", |b| {
                            b.ins("SYNCS.ARRIVE.TRANS64 empty[(k + PIPE - 1) % PIPE]");
                        });
                    }
                    if arith {
                        KstepArith::emit(b, KstepArith::NEXT);
                    }
                });
                b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
                epilogue(b, epi, "(warp - 4)");
                b.ins("EXIT");
            })
        }
        "ws-pingpong" => b
            .named_barrier("order", 1, 256)
            .role("producer", 0, 0, Some(40), |b| {
                // Stage use i = t * KT + k: tile t's 64 rows of A and the whole B block.
                b.loop_("i", 0, "2 * KT", |b| {
                    b.ins("SYNCS.PHASECHK.TRANS64.TRYWAIT empty[i % PIPE], parity=((i / PIPE) & 1) ^ 1");
                    load_stage(b, "i % PIPE", "i", true, mc, &raster);
                });
                b.ins("EXIT");
            })
            .role("idle", 1, 3, Some(40), |b| {
                b.ins("EXIT");
            })
            .role("consumer", 4, 11, Some(232), |b| {
                // The second warpgroup starts its mainloop when the first finishes its own.
                b.if_("warpgroup == 2", |b| {
                    b.ins("BAR.SYNC 1, 256");
                });
                b.loop_("k", 0, "KT", |b| {
                    let i = "((warpgroup - 1) * KT + k)";
                    if arith {
                        KstepArith::emit(b, KstepArith::STAGE);
                    }
                    b.ins(format!(
                        "SYNCS.PHASECHK.TRANS64.TRYWAIT full[{i} % PIPE], parity=({i} / PIPE) & 1"
                    ));
                    mma_kstep(b, &format!("{i} % PIPE"), "0", true, arith);
                    // Keep one wgmma group in flight; release the previous stage.
                    b.ins("WARPGROUP.DEPBAR.LE gsb0, 1");
                    b.if_("k > 0", |b| {
                        b.ins(format!("SYNCS.ARRIVE.TRANS64 empty[({i} + PIPE - 1) % PIPE]"));
                    });
                    if arith {
                        KstepArith::emit(b, KstepArith::NEXT);
                    }
                });
                b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
                b.ins("SYNCS.ARRIVE.TRANS64 empty[((warpgroup - 1) * KT + KT - 1) % PIPE]");
                b.if_("warpgroup == 1", |b| {
                    b.ins("BAR.ARV 1, 256");
                });
                epilogue(b, epi, "(warp - 4)");
                b.ins("EXIT");
            }),
        other => return Err(format!("gemm-mainloop has no schedule `{other}`")),
    };
    Ok(k.build())
}

/// Which output tile each CTA computes: rows of tiles m and columns n as functions of
/// `cta`, in the raster order (along M or N) with CUTLASS's swizzle of `s` tiles.
struct Raster {
    along_n: bool,
    s: i64,
    mt: i64,
    nt: i64,
}

impl Raster {
    fn new(raster: i64, s: i64, mt: i64, nt: i64) -> Result<Raster, String> {
        check_range("RASTER", raster, 0, 1)?;
        check_range("SWIZZLE", s, 1, 64)?;
        let across = if raster == 0 { nt } else { mt };
        if across % s != 0 {
            return Err(format!(
                "SWIZZLE={s} must divide the {across} tile {} the raster crosses",
                if raster == 0 { "columns" } else { "rows" }
            ));
        }
        Ok(Raster {
            along_n: raster == 1,
            s,
            mt,
            nt,
        })
    }
    /// (along, across) of CTA `c`: `along` walks the raster's dimension of `len` tiles.
    fn split(&self, c: i64, len: i64) -> (i64, i64) {
        (
            (c / self.s) % len,
            (c / (self.s * len)) * self.s + c % self.s,
        )
    }
    fn m(&self, c: i64) -> i64 {
        if self.along_n {
            self.split(c, self.nt).1
        } else {
            self.split(c, self.mt).0
        }
    }
    fn n(&self, c: i64) -> i64 {
        if self.along_n {
            self.split(c, self.nt).0
        } else {
            self.split(c, self.mt).1
        }
    }
    /// `split` as kernel expressions (the plain raster along M as `cta % MT`, `cta / MT`).
    fn exprs(&self) -> (String, String) {
        let len = if self.along_n { "NT" } else { "MT" };
        if self.s == 1 {
            (format!("(cta % {len})"), format!("(cta / {len})"))
        } else {
            let s = self.s;
            (
                format!("((cta / {s}) % {len})"),
                format!("((cta / ({s} * {len})) * {s} + cta % {s})"),
            )
        }
    }
    fn m_expr(&self) -> String {
        let (along, across) = self.exprs();
        if self.along_n { across } else { along }
    }
    fn n_expr(&self) -> String {
        let (along, across) = self.exprs();
        if self.along_n { along } else { across }
    }
}

/// Which operand tiles the CTAs of a cluster share, loaded once with TMA multicast.
#[derive(Clone, Copy)]
struct Multicast {
    a: bool,
    b: bool,
}

impl Multicast {
    fn op(shared: bool) -> &'static str {
        if shared {
            "UTMALDG.2D.MULTICAST"
        } else {
            "UTMALDG.2D"
        }
    }
}

/// Announces a stage's bytes and issues its TMA loads (`half`: only 64 rows of A).
fn load_stage(b: &mut BodyBuilder, stage: &str, iter: &str, half: bool, mc: Multicast, r: &Raster) {
    let (tm, tn) = (r.m_expr(), r.n_expr());
    let (op_a, op_b) = (Multicast::op(mc.a), Multicast::op(mc.b));
    if half {
        // iter = t * KT + k: tile t (0 or 1) of 64 rows.
        b.ins(format!(
            "SYNCS.ARRIVE.TRANS64.EXPECT_TX full[{stage}], bytes=40960"
        ));
        b.ins(format!(
            "{op_a} sA[({stage}) * 16384], A[({tm} * 2 * KT + {iter}) * 8192], bytes=8192, bar=full[{stage}]"
        ));
        b.ins(format!(
            "{op_b} sB[({stage}) * 32768], B[({tn} * KT + ({iter}) % KT) * 32768], bytes=32768, bar=full[{stage}]"
        ));
    } else {
        b.ins(format!(
            "SYNCS.ARRIVE.TRANS64.EXPECT_TX full[{stage}], bytes=49152"
        ));
        b.ins(format!(
            "{op_a} sA[({stage}) * 16384], A[({tm} * KT + {iter}) * 16384], bytes=16384, bar=full[{stage}]"
        ));
        b.ins(format!(
            "{op_b} sB[({stage}) * 32768], B[({tn} * KT + {iter}) * 32768], bytes=32768, bar=full[{stage}]"
        ));
    }
}

/// The scalar work of a consumer's k-step as ptxas compiles it (the validation kernel
/// `vg_static_v1`, crates/calibrate/data/validation/h100-20261122T210256Z.sass.txt, its
/// loop at 0x1680..0x1fa0): the stage's mbarrier address and phase before the wait (here
/// with PIPE a constant: that kernel divides by a run-time PIPE, 30 more instructions),
/// then the shared-memory descriptors of the four HGMMAs, built in registers and moved
/// to uniform ones (R2UR) around each issue: `before(j)` is what precedes HGMMA j.
struct KstepArith;

impl KstepArith {
    const STAGE: &'static [&'static str] = &[
        "ULOP3.LUT UR7, UR4, 0x3, URZ, 0xc0, !UPT",
        "USHF.R.U32.HI UR8, URZ, 0x2, UR4",
        "ULOP3.LUT UR8, UR8, 0x1, URZ, 0xc0, !UPT",
        "ULEA UR9, UR7, UR19, 0x3",
        "IMAD.U32 R10, RZ, RZ, UR8",
        "SHF.L.U32 R6, R10, 0x1f, RZ",
    ];
    const DESC0: &'static [&'static str] = &[
        "IMAD.SHL.U32 R6, R0, 0x40, RZ",
        "ULEA UR12, UR7, UR18, 0xf",
        "IMAD.U32 R7, RZ, RZ, UR7",
        "UMOV UR27, 0x40000040",
        "LOP3.LUT R6, R6, 0xffffe000, RZ, 0xc0, !PT",
        "ULOP3.LUT UR6, UR12, 0x3fc00, URZ, 0xc0, !UPT",
        "IADD3 R6, R6, UR5, RZ",
        "USHF.R.U32.HI UR6, URZ, 0x4, UR6",
        "IMAD R8, R7, 0x4000, R6",
        "ULOP3.LUT UR6, UR6, 0x10000, URZ, 0xfc, !UPT",
        "IMAD.MOV.U32 R7, RZ, RZ, 0x40000040",
        "LOP3.LUT R6, R8, 0x3fc00, RZ, 0xc0, !PT",
        "R2UR UR25, R7",
        "UMOV UR26, UR6",
        "SHF.R.U32.HI R6, RZ, 0x4, R6",
        "UIADD3 UR6, UR12, 0x20, URZ",
        "IMAD.MOV.U32 R7, RZ, RZ, 0x40000040",
        "LOP3.LUT R6, R6, 0x10000, RZ, 0xfc, !PT",
        "ULOP3.LUT UR6, UR6, 0x3fc20, URZ, 0xc0, !UPT",
        "R2UR UR24, R6",
        "IADD3 R6, R8, 0x20, RZ",
        "USHF.R.U32.HI UR6, URZ, 0x4, UR6",
        "LOP3.LUT R6, R6, 0x3fc20, RZ, 0xc0, !PT",
        "ULOP3.LUT UR6, UR6, 0x10000, URZ, 0xfc, !UPT",
        "SHF.R.U32.HI R6, RZ, 0x4, R6",
    ];
    const DESC1: &'static [&'static str] = &[
        "LOP3.LUT R6, R6, 0x10000, RZ, 0xfc, !PT",
        "UMOV UR26, UR6",
        "R2UR UR25, R7",
        "UMOV UR27, 0x40000040",
        "R2UR UR24, R6",
        "IADD3 R6, R8, 0x40, RZ",
        "UIADD3 UR6, UR12, 0x40, URZ",
        "IMAD.MOV.U32 R7, RZ, RZ, 0x40000040",
        "IADD3 R8, R8, 0x60, RZ",
        "LOP3.LUT R6, R6, 0x3fc40, RZ, 0xc0, !PT",
        "ULOP3.LUT UR6, UR6, 0x3fc40, URZ, 0xc0, !UPT",
        "SHF.R.U32.HI R6, RZ, 0x4, R6",
        "USHF.R.U32.HI UR6, URZ, 0x4, UR6",
        "LOP3.LUT R8, R8, 0x3fc60, RZ, 0xc0, !PT",
        "LOP3.LUT R6, R6, 0x10000, RZ, 0xfc, !PT",
        "ULOP3.LUT UR6, UR6, 0x10000, URZ, 0xfc, !UPT",
        "SHF.R.U32.HI R8, RZ, 0x4, R8",
    ];
    const DESC2: &'static [&'static str] = &[
        "R2UR UR24, R6",
        "UMOV UR26, UR6",
        "R2UR UR25, R7",
        "UMOV UR27, 0x40000040",
        "UIADD3 UR6, UR12, 0x60, URZ",
        "IMAD.MOV.U32 R7, RZ, RZ, 0x40000040",
        "LOP3.LUT R6, R8, 0x10000, RZ, 0xfc, !PT",
        "ULOP3.LUT UR6, UR6, 0x3fc60, URZ, 0xc0, !UPT",
        "USHF.R.U32.HI UR6, URZ, 0x4, UR6",
        "ULOP3.LUT UR6, UR6, 0x10000, URZ, 0xfc, !UPT",
    ];
    const DESC3: &'static [&'static str] = &[
        "R2UR UR24, R6",
        "UMOV UR26, UR6",
        "R2UR UR25, R7",
        "UMOV UR27, 0x40000040",
        "UIADD3 UR6, UR4, UR22, URZ",
        "UISETP.GE.AND UP0, UPT, UR6, UR23, UPT",
    ];
    /// The loop's own count (the branch is the loop's).
    const NEXT: &'static [&'static str] = &[
        "UIADD3 UR4, UR4, 0x1, URZ",
        "UISETP.GE.AND UP0, UPT, UR4, UR23, UPT",
    ];

    fn emit(b: &mut BodyBuilder, ins: &[&str]) {
        for i in ins {
            b.ins(*i);
        }
    }
    fn before(j: usize) -> &'static [&'static str] {
        [Self::DESC0, Self::DESC1, Self::DESC2, Self::DESC3][j]
    }
}

/// One k-step of a warpgroup: four HGMMA.64x256x16 over a 64-wide stage, one wgmma group.
fn mma_kstep(b: &mut BodyBuilder, stage: &str, a_rows: &str, arrive: bool, arith: bool) {
    if arrive {
        b.ins("WARPGROUP.ARRIVE");
    }
    for j in 0..4 {
        if arith {
            KstepArith::emit(b, KstepArith::before(j));
        }
        let gsb = if j == 3 { ", gsb0" } else { "" };
        b.ins(format!(
            "HGMMA.64x256x16.F32.BF16 R24, sA[({stage}) * 16384 + {a_rows} + {}], sB[({stage}) * 32768 + {}]{gsb}",
            j * 32,
            j * 32
        ));
    }
}

/// Stores a warp's quarter of its warpgroup's 64x256 FP32 accumulator (16 KiB).
/// `cw` is the consumer warp index 0..7.
fn epilogue(b: &mut BodyBuilder, epi: i64, cw: &str) {
    match epi {
        1 => {
            b.loop_("c", 0, 32, |b| {
                b.ins(format!(
                    "STG.E.128 C[(((cta * 8 + {cw}) * 32 + c) * 32 + lane) * 16], R24"
                ));
            });
        }
        2 => {
            b.loop_("c", 0, 4, |b| {
                b.if_("c > 0", |b| {
                    b.ins("DEPBAR.LE SB1, 0");
                });
                b.loop_("j", 0, 8, |b| {
                    b.ins(format!(
                        "STS.128 sC[{cw} * 4096 + j * 512 + lane * 16], R24"
                    ));
                });
                b.ins("FENCE.PROXY.ASYNC");
                b.ins(format!(
                    "UTMASTG.2D C[((cta * 8 + {cw}) * 4 + c) * 4096], sC[{cw} * 4096], bytes=4096"
                ));
                b.ins("UTMACMDFLUSH");
            });
            b.ins("DEPBAR.LE SB1, 0");
        }
        _ => {}
    }
}
