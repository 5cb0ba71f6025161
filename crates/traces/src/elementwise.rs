//! elementwise-add (seed 001, Gluon tutorial): c = a + b over a ROWS x COLS FP32 tensor,
//! tiles of 32 x 128 (16 KiB per operand), each CTA persistent over TILES = tiles / GRID.
//!
//! - `tma-pipelined`: one partition of 4 warps. Warp 0 keeps NUM_LOAD_BUFFERS TMA loads
//!   in flight; all warps read both tiles from shared memory, add, write the sum into one
//!   of NUM_STORE_BUFFERS store buffers and warp 0 stores it with UTMASTG. The partition
//!   synchronises with BAR.SYNC (a store buffer is reused only after its TMA store read it).
//! - `warp-specialized`: a load warp and a store warp at maxnreg=24 (warps 2..3 of their
//!   warpgroup exit), a compute partition of COMPUTE_WARPS warps; load_full/load_empty and
//!   c_full/c_empty mbarrier pairs between them.

use isa::builder::KernelBuilder;

use crate::{Family, ParamSpec, Params, Schedule, check_range};

pub const FAMILY: Family = Family {
    name: "elementwise-add",
    description: "c = a + b over a 2D FP32 tensor with TMA loads and stores (seed 001)",
    profile: "h100",
    schedules: &[
        Schedule {
            name: "tma-pipelined",
            description: "one partition, NUM_LOAD_BUFFERS TMA loads in flight, BAR.SYNC between steps",
        },
        Schedule {
            name: "warp-specialized",
            description: "load and store warps at 24 registers, a compute partition, mbarrier pairs",
        },
    ],
    params: &[
        ParamSpec {
            name: "ROWS",
            default: 4096,
            help: "rows (multiple of 32)",
        },
        ParamSpec {
            name: "COLS",
            default: 4096,
            help: "columns (multiple of 128)",
        },
        ParamSpec {
            name: "GRID",
            default: 128,
            help: "persistent CTAs (must divide the tile count)",
        },
        ParamSpec {
            name: "NUM_LOAD_BUFFERS",
            default: 3,
            help: "stages of (a, b) tiles in shared memory (1..=4)",
        },
        ParamSpec {
            name: "NUM_STORE_BUFFERS",
            default: 2,
            help: "stages of c tiles in shared memory (1..=4)",
        },
        ParamSpec {
            name: "COMPUTE_WARPS",
            default: 4,
            help: "warps of the compute partition (4 or 8)",
        },
    ],
    build,
};

const BLOCK: i64 = 16384;

pub fn build(schedule: &str, p: &Params) -> Result<isa::Kernel, String> {
    let (rows, cols, grid) = (p.get("ROWS"), p.get("COLS"), p.get("GRID"));
    let nlb = p.get("NUM_LOAD_BUFFERS");
    let nsb = p.get("NUM_STORE_BUFFERS");
    let cw = p.get("COMPUTE_WARPS");
    check_range("NUM_LOAD_BUFFERS", nlb, 1, 4)?;
    check_range("NUM_STORE_BUFFERS", nsb, 1, 4)?;
    if cw != 4 && cw != 8 {
        return Err(format!("COMPUTE_WARPS={cw} must be 4 or 8"));
    }
    if rows < 32 || rows % 32 != 0 || cols < 128 || cols % 128 != 0 {
        return Err(format!(
            "ROWS={rows} must be a multiple of 32 and COLS={cols} of 128"
        ));
    }
    let tiles = rows / 32 * (cols / 128);
    if grid < 1 || tiles % grid != 0 {
        return Err(format!("GRID={grid} must divide the {tiles} tiles"));
    }
    let per_cta = tiles / grid;
    let bytes = (rows * cols * 4) as u64;
    let ws = schedule == "warp-specialized";
    let threads = if ws { 128 + cw * 32 } else { 128 };
    let b = KernelBuilder::new(
        &format!("add_{}", schedule.replace('-', "_")),
        threads as u32,
    )
    .regs(32)
    .grid(grid as u32)
    .buffer("A", bytes)
    .buffer("B", bytes)
    .buffer("C", bytes)
    .shared("sA", (nlb * BLOCK) as u32)
    .shared("sB", (nlb * BLOCK) as u32)
    .shared("sC", (nsb * BLOCK) as u32)
    .param("TILES", per_cta)
    .param("NLB", nlb)
    .param("NSB", nsb)
    .work_bytes("3 * 16384 * TILES");
    let load = |b: &mut isa::builder::BodyBuilder, stage: &str, t: &str| {
        b.ins(format!(
            "SYNCS.ARRIVE.TRANS64.EXPECT_TX full[{stage}], bytes=32768"
        ));
        b.ins(format!(
            "UTMALDG.2D sA[({stage}) * 16384], A[(cta * TILES + {t}) * 16384], bytes=16384, bar=full[{stage}]"
        ));
        b.ins(format!(
            "UTMALDG.2D sB[({stage}) * 16384], B[(cta * TILES + {t}) * 16384], bytes=16384, bar=full[{stage}]"
        ));
    };
    // A compute warp's share of a tile: `n` 512-byte pieces starting at piece `first`.
    let compute = |b: &mut isa::builder::BodyBuilder, n: i64, first: &str| {
        b.loop_("j", 0, n, |b| {
            b.ins(format!(
                "LDS.128 R4, sA[(t % NLB) * 16384 + ({first} + j) * 512 + lane * 16]"
            ));
            b.ins(format!(
                "LDS.128 R8, sB[(t % NLB) * 16384 + ({first} + j) * 512 + lane * 16]"
            ));
            b.ins("FADD R12, R4, R8");
            b.ins("FADD R13, R5, R9");
            b.ins("FADD R14, R6, R10");
            b.ins("FADD R15, R7, R11");
        });
    };
    let store = |b: &mut isa::builder::BodyBuilder, n: i64, first: &str| {
        b.loop_("j", 0, n, |b| {
            b.ins(format!(
                "STS.128 sC[(t % NSB) * 16384 + ({first} + j) * 512 + lane * 16], R12"
            ));
        });
    };
    let k = match schedule {
        "tma-pipelined" => b
            .mbarrier("full", nlb as u32, 1)
            .role("main", 0, 3, None, |b| {
                b.if_("warp == 0", |b| {
                    b.loop_("s", 0, "min(NLB, TILES)", |b| load(b, "s", "s"));
                });
                b.loop_("t", 0, "TILES", |b| {
                    b.ins("SYNCS.PHASECHK.TRANS64.TRYWAIT full[t % NLB], parity=(t / NLB) & 1");
                    // Each warp reads, adds and keeps its quarter (8 pieces) in registers.
                    compute(b, 8, "warp * 8");
                    b.if_("warp == 0", |b| {
                        b.ins("DEPBAR.LE SB1, NSB - 1");
                    });
                    // Everyone has read stage t % NLB, and store buffer t % NSB is free.
                    b.ins("BAR.SYNC 1, 128");
                    store(b, 8, "warp * 8");
                    b.ins("FENCE.PROXY.ASYNC");
                    b.ins("BAR.SYNC 1, 128");
                    b.if_("warp == 0", |b| {
                        b.ins("UTMASTG.2D C[(cta * TILES + t) * 16384], sC[(t % NSB) * 16384], bytes=16384");
                        b.ins("UTMACMDFLUSH");
                        b.if_("t + NLB < TILES", |b| load(b, "t % NLB", "t + NLB"));
                    });
                });
                b.if_("warp == 0", |b| {
                    b.ins("DEPBAR.LE SB1, 0");
                });
                b.ins("EXIT");
            }),
        "warp-specialized" => {
            let pieces = 32 / cw;
            b.mbarrier("full", nlb as u32, 1)
                .mbarrier("empty", nlb as u32, cw as u32)
                .mbarrier("c_full", nsb as u32, cw as u32)
                .mbarrier("c_empty", nsb as u32, 1)
                .param("CW", cw)
                .role("load", 0, 0, Some(24), |b| {
                    b.loop_("t", 0, "TILES", |b| {
                        b.ins("SYNCS.PHASECHK.TRANS64.TRYWAIT empty[t % NLB], parity=((t / NLB) & 1) ^ 1");
                        load(b, "t % NLB", "t");
                    });
                    b.ins("EXIT");
                })
                .role("store", 1, 1, Some(24), |b| {
                    b.loop_("t", 0, "TILES", |b| {
                        b.ins("SYNCS.PHASECHK.TRANS64.TRYWAIT c_full[t % NSB], parity=(t / NSB) & 1");
                        b.ins("UTMASTG.2D C[(cta * TILES + t) * 16384], sC[(t % NSB) * 16384], bytes=16384");
                        b.ins("UTMACMDFLUSH");
                        if nsb >= 2 {
                            // Release the previous buffer once its store has read it.
                            b.ins("DEPBAR.LE SB1, 1");
                            b.if_("t > 0", |b| {
                                b.ins("SYNCS.ARRIVE.TRANS64 c_empty[(t + NSB - 1) % NSB]");
                            });
                        } else {
                            b.ins("DEPBAR.LE SB1, 0");
                            b.ins("SYNCS.ARRIVE.TRANS64 c_empty[t % NSB]");
                        }
                    });
                    b.ins("DEPBAR.LE SB1, 0");
                    b.ins("EXIT");
                })
                .role("idle", 2, 3, Some(24), |b| {
                    b.ins("EXIT");
                })
                .role("compute", 4, (4 + cw - 1) as u32, None, |b| {
                    let first = format!("(warp - 4) * {pieces}");
                    b.loop_("t", 0, "TILES", |b| {
                        b.ins("SYNCS.PHASECHK.TRANS64.TRYWAIT full[t % NLB], parity=(t / NLB) & 1");
                        compute(b, pieces, &first);
                        b.ins("SYNCS.ARRIVE.TRANS64 empty[t % NLB]");
                        b.ins("SYNCS.PHASECHK.TRANS64.TRYWAIT c_empty[t % NSB], parity=((t / NSB) & 1) ^ 1");
                        store(b, pieces, &first);
                        b.ins("FENCE.PROXY.ASYNC");
                        b.ins("SYNCS.ARRIVE.TRANS64 c_full[t % NSB]");
                    });
                    b.ins("EXIT");
                })
        }
        other => return Err(format!("elementwise-add has no schedule `{other}`")),
    };
    Ok(k.build())
}
