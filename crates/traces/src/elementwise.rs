//! elementwise-add (seed 001, Gluon tutorial): c = a + b over an XNUMEL x YNUMEL FP32
//! tensor (row-major), as the tutorial launches it: a CTA per XBLOCK rows (grid =
//! XNUMEL / XBLOCK), walking them in TILES = YNUMEL / YBLOCK tiles of XBLOCK x YBLOCK
//! (a TMA box: XBLOCK rows of YBLOCK x 4 bytes, a row of the tensor apart). The seed's
//! benchmark: 32768 x 32768, 64 x 128 tiles (32 KiB an operand), 3 load buffers, 1 store
//! buffer, 4 warps.
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
            name: "XNUMEL",
            default: 1024,
            help: "rows of the FP32 tensor (multiple of XBLOCK; the seed: 32768); CTAs = XNUMEL / XBLOCK",
        },
        ParamSpec {
            name: "YNUMEL",
            default: 1024,
            help: "columns (multiple of YBLOCK; the seed: 32768); each CTA walks its XBLOCK rows in YNUMEL / YBLOCK tiles",
        },
        ParamSpec {
            name: "XBLOCK",
            default: 64,
            help: "rows of a tile (the seed: 64)",
        },
        ParamSpec {
            name: "YBLOCK",
            default: 128,
            help: "columns of a tile (the seed: 128); a tile is XBLOCK x YBLOCK x 4 bytes, a multiple of 512 per compute warp",
        },
        ParamSpec {
            name: "NUM_LOAD_BUFFERS",
            default: 3,
            help: "stages of (a, b) tiles in shared memory (1..=4; the seed: 3)",
        },
        ParamSpec {
            name: "NUM_STORE_BUFFERS",
            default: 1,
            help: "stages of c tiles in shared memory (1..=4; the seed: 1)",
        },
        ParamSpec {
            name: "COMPUTE_WARPS",
            default: 4,
            help: "warps of the compute partition (4 or 8; the seed's num_warps: 4)",
        },
    ],
    seed_params: &[("XNUMEL", 32768), ("YNUMEL", 32768)],
    build,
};

pub fn build(schedule: &str, p: &Params) -> Result<isa::Kernel, String> {
    let (rows, cols) = (p.get("XNUMEL"), p.get("YNUMEL"));
    let (xb, yb) = (p.get("XBLOCK"), p.get("YBLOCK"));
    let nlb = p.get("NUM_LOAD_BUFFERS");
    let nsb = p.get("NUM_STORE_BUFFERS");
    let cw = p.get("COMPUTE_WARPS");
    check_range("NUM_LOAD_BUFFERS", nlb, 1, 4)?;
    check_range("NUM_STORE_BUFFERS", nsb, 1, 4)?;
    check_range("XBLOCK", xb, 1, 256)?;
    check_range("YBLOCK", yb, 4, 256)?;
    check_range("XNUMEL", rows, 1, 1 << 20)?;
    check_range("YNUMEL", cols, 1, 1 << 20)?;
    if cw != 4 && cw != 8 {
        return Err(format!("COMPUTE_WARPS={cw} must be 4 or 8"));
    }
    if rows % xb != 0 || cols % yb != 0 {
        return Err(format!(
            "XNUMEL={rows} must be a multiple of XBLOCK={xb} and YNUMEL={cols} of YBLOCK={yb}"
        ));
    }
    // A tile, split into 512-byte pieces (a warp's LDS.128) over the compute warps.
    let tile = xb * yb * 4;
    if tile % (512 * 8) != 0 {
        return Err(format!(
            "a tile of XBLOCK x YBLOCK x 4 = {tile} bytes must be a multiple of 4096 (512 bytes for each of up to 8 compute warps)"
        ));
    }
    let smem = (2 * nlb + nsb) * tile;
    if smem > 232448 {
        return Err(format!(
            "{nlb} load buffers of two {tile}-byte tiles and {nsb} store buffers need {smem} bytes of shared memory, more than a CTA's 232448"
        ));
    }
    let grid = rows / xb;
    let per_cta = cols / yb;
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
    .shared("sA", (nlb * tile) as u32)
    .shared("sB", (nlb * tile) as u32)
    .shared("sC", (nsb * tile) as u32)
    .param("TILES", per_cta)
    .param("NLB", nlb)
    .param("NSB", nsb)
    .param("TB", tile)
    .param("XBLOCK", xb)
    .param("YBLOCK", yb)
    .param("YNUMEL", cols)
    .work_bytes("3 * TB * TILES");
    // Tile t of the CTA: its XBLOCK rows, columns t * YBLOCK onwards, a TMA box of
    // XBLOCK rows of YBLOCK x 4 bytes, YNUMEL x 4 bytes apart. (The TMA store is written
    // as one contiguous range of the tile's size from the box's first byte: the model's
    // stores take no box.)
    let at = |t: &str| format!("(cta * XBLOCK * YNUMEL + ({t}) * YBLOCK) * 4");
    let load = |b: &mut isa::builder::BodyBuilder, stage: &str, t: &str| {
        b.ins(format!(
            "SYNCS.ARRIVE.TRANS64.EXPECT_TX full[{stage}], bytes=2 * TB"
        ));
        for x in ["A", "B"] {
            b.ins(format!(
                "UTMALDG.2D s{x}[({stage}) * TB], {x}[{}], bytes=TB, row=YBLOCK * 4, pitch=YNUMEL * 4, bar=full[{stage}]",
                at(t)
            ));
        }
    };
    let store_tma = format!("UTMASTG.2D C[{}], sC[(t % NSB) * TB], bytes=TB", at("t"));
    // A compute warp's share of a tile: `n` 512-byte pieces starting at piece `first`.
    let compute = |b: &mut isa::builder::BodyBuilder, n: i64, first: &str| {
        b.loop_("j", 0, n, |b| {
            b.ins(format!(
                "LDS.128 R4, sA[(t % NLB) * TB + ({first} + j) * 512 + lane * 16]"
            ));
            b.ins(format!(
                "LDS.128 R8, sB[(t % NLB) * TB + ({first} + j) * 512 + lane * 16]"
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
                "STS.128 sC[(t % NSB) * TB + ({first} + j) * 512 + lane * 16], R12"
            ));
        });
    };
    let pieces_per_tile = tile / 512;
    let k = match schedule {
        "tma-pipelined" => b
            .mbarrier("full", nlb as u32, 1)
            .role("main", 0, 3, None, |b| {
                b.if_("warp == 0", |b| {
                    b.loop_("s", 0, "min(NLB, TILES)", |b| load(b, "s", "s"));
                });
                b.loop_("t", 0, "TILES", |b| {
                    b.ins("SYNCS.PHASECHK.TRANS64.TRYWAIT full[t % NLB], parity=(t / NLB) & 1");
                    // Each warp reads, adds and keeps its quarter in registers.
                    let q = pieces_per_tile / 4;
                    compute(b, q, &format!("warp * {q}"));
                    b.if_("warp == 0", |b| {
                        b.ins("DEPBAR.LE SB1, NSB - 1");
                    });
                    // Everyone has read stage t % NLB, and store buffer t % NSB is free.
                    b.ins("BAR.SYNC 1, 128");
                    store(b, q, &format!("warp * {q}"));
                    b.ins("FENCE.PROXY.ASYNC");
                    b.ins("BAR.SYNC 1, 128");
                    b.if_("warp == 0", |b| {
                        b.ins(&store_tma);
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
            let pieces = pieces_per_tile / cw;
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
                        b.ins(&store_tma);
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
