//! blackwell-matmul (seed 001, Gluon tutorial, the warp-specialized persistent matmul
//! with tcgen05), b200 profile: C = A B in BF16 with FP32 accumulators in tensor memory,
//! 128 x 256 x 64 tiles (BLOCK_M, BLOCK_N, BLOCK_K) of an M x N x K problem. The grid
//! is min(SMS, tiles) persistent CTAs; CTA c takes tiles c, c + CTAs, ... in Triton's
//! grouped raster (GROUP rows of tiles at a time), the simulated SM's CTA TILES =
//! ceil(tiles / CTAs) of them, each K/64 k-steps. A k-step is four UTCMMA.128x256x16 on the SM-wide tensor pipe
//! reading a PIPE-stage ring (A 16 KiB + B 32 KiB a stage). Two 256-column accumulators
//! (tmem=512) let the epilogue of one tile overlap the MMAs of the next. The epilogue
//! reads the accumulator in four 64-column subtiles (LDTM.32DP32BIT.X64: each warp its
//! 32 lanes), stages each through shared memory and stores it with UTMASTG
//! (UTMACMDFLUSH; DEPBAR.LE SB1, 0 before the staging buffer is rewritten).
//!
//! - `ws`: warp 0 loads (TMA into the ring, full/empty mbarriers), warp 1 issues the MMAs
//!   (UTCBAR `empty[stage]` releases a stage when its MMAs complete, UTCBAR `acc_full[buf]`
//!   hands the finished accumulator over), warps 4..7 are the epilogue (wait acc_full,
//!   LDTM, arrive acc_empty once the accumulator is read, store).
//! - `static`: one warpgroup in program order, software-pipelined: warp 0 fills the ring,
//!   then per tile issues the MMAs (waiting for each stage) and refills the stage the
//!   previous k-step used once its MMAs completed; then all four warps run the epilogue of
//!   the previous tile (so it overlaps this tile's MMAs only as far as program order
//!   allows), and the last tile's epilogue at the end.

use isa::builder::{BodyBuilder, KernelBuilder};

use crate::{Family, ParamSpec, Params, Schedule, check_range};

pub const FAMILY: Family = Family {
    name: "blackwell-matmul",
    description: "persistent tcgen05 matmul, TMEM double-buffered accumulators, subtiled TMA-store epilogue (seed 001)",
    profile: "b200",
    schedules: &[
        Schedule {
            name: "ws",
            description: "load warp, MMA warp, epilogue warpgroup; mbarriers and UTCBAR between them",
        },
        Schedule {
            name: "static",
            description: "one warpgroup: loads, MMAs, then the previous tile's epilogue, in order",
        },
    ],
    params: &[
        ParamSpec {
            name: "M",
            default: 4096,
            help: "rows of C (multiple of 128; the seed: 8192)",
        },
        ParamSpec {
            name: "N",
            default: 4096,
            help: "columns of C (multiple of 256; the seed: 8192)",
        },
        ParamSpec {
            name: "K",
            default: 512,
            help: "reduction length (multiple of 64; the seed: 512 to 16384); small K is where overlapping the epilogue matters",
        },
        ParamSpec {
            name: "SMS",
            default: 148,
            help: "SMs of the GPU (B200: 148): persistent CTAs = min(SMS, tiles), each taking tiles cta, cta + CTAs, ... (the simulated SM the most, ceil(tiles / CTAs))",
        },
        ParamSpec {
            name: "GROUP",
            default: 8,
            help: "grouped raster: tiles walk GROUP rows of tiles column by column (the seed's GroupedPersistentTileScheduler(8)), so the CTAs of a wave share A and B tiles in L2",
        },
        ParamSpec {
            name: "PIPE",
            default: 4,
            help: "ring stages (2..=4; 48 KiB each)",
        },
    ],
    seed_params: &[("M", 8192), ("N", 8192), ("K", 4096)],
    build,
};

pub fn build(schedule: &str, p: &Params) -> Result<isa::Kernel, String> {
    let (m, n, k) = (p.get("M"), p.get("N"), p.get("K"));
    let pipe = p.get("PIPE");
    check_range("PIPE", pipe, 2, 4)?;
    check_range("SMS", p.get("SMS"), 1, 1 << 10)?;
    check_range("GROUP", p.get("GROUP"), 1, 1 << 10)?;
    check_range("M", m, 128, 1 << 20)?;
    check_range("N", n, 256, 1 << 20)?;
    check_range("K", k, 64, 1 << 20)?;
    if m % 128 != 0 || n % 256 != 0 || k % 64 != 0 {
        return Err(format!(
            "M={m}, N={n}, K={k}: M must be a multiple of 128, N of 256 and K of 64 (the 128x256x64 tile)"
        ));
    }
    let kt = k / 64;
    let (mt, nt) = (m / 128, n / 256);
    let total = mt * nt;
    let grid = p.get("SMS").min(total);
    let tiles = (total + grid - 1) / grid;
    let name = format!("bw_matmul_{schedule}");
    let b = KernelBuilder::new(&name, if schedule == "ws" { 256 } else { 128 })
        .regs(168)
        .grid(grid as u32)
        .tmem(512)
        // PIPE stages of slack for the guarded refills (the range check does not narrow by `if`).
        .buffer("A", ((mt * kt + pipe) * 16384) as u64)
        .buffer("B", ((nt * kt + pipe) * 32768) as u64)
        .buffer("C", (total * 65536) as u64)
        .shared("sA", (pipe * 16384) as u32)
        .shared("sB", (pipe * 32768) as u32)
        .shared("sC", 4 * 4096)
        .mbarrier("full", pipe as u32, 1)
        .mbarrier("empty", pipe as u32, 1)
        .mbarrier("acc_full", 2, 1)
        .mbarrier("acc_empty", 2, 4)
        .param("TILES", tiles)
        .param("KT", kt)
        .param("PIPE", pipe)
        .param("MT", mt)
        .param("NT", nt)
        .param("T", total)
        .param("CTAS", grid)
        .param("GROUP", p.get("GROUP"))
        // Per CTA, the grid's average (the simulated SM's CTA takes the most tiles: the
        // kernel's time is its time).
        .work_flops(format!("{}", 2 * m * n * k / grid))
        .work_bytes(format!("{}", (49152 * kt + 65536) * total / grid));
    let k = match schedule {
        "ws" => b
            .role("load", 0, 0, None, |b| {
                b.loop_("i", 0, "TILES * KT", |b| {
                    b.ins("SYNCS.PHASECHK.TRANS64.TRYWAIT empty[i % PIPE], parity=((i / PIPE) & 1) ^ 1");
                    load(b, "i % PIPE", "i");
                });
                b.ins("EXIT");
            })
            .role("mma", 1, 1, None, |b| {
                b.loop_("t", 0, "TILES", |b| {
                    b.ins("SYNCS.PHASECHK.TRANS64.TRYWAIT acc_empty[t % 2], parity=((t / 2) & 1) ^ 1");
                    b.loop_("k", 0, "KT", |b| {
                        let i = "(t * KT + k)";
                        b.ins(format!(
                            "SYNCS.PHASECHK.TRANS64.TRYWAIT full[{i} % PIPE], parity=({i} / PIPE) & 1"
                        ));
                        mma(b, i);
                        b.ins(format!("UTCBAR empty[{i} % PIPE]"));
                    });
                    b.ins("UTCBAR acc_full[t % 2]");
                });
                b.ins("EXIT");
            })
            .role("idle", 2, 3, None, |b| {
                b.ins("EXIT");
            })
            .role("epilogue", 4, 7, None, |b| {
                b.loop_("t", 0, "TILES", |b| epilogue(b, "t"));
                b.ins("DEPBAR.LE SB1, 0");
                b.ins("EXIT");
            }),
        "static" => b.role("main", 0, 3, None, |b| {
            b.if_("warp == 0", |b| {
                b.loop_("s", 0, "min(PIPE, TILES * KT)", |b| load(b, "s", "s"));
            });
            b.loop_("t", 0, "TILES", |b| {
                b.if_("warp == 0", |b| {
                    b.ins("SYNCS.PHASECHK.TRANS64.TRYWAIT acc_empty[t % 2], parity=((t / 2) & 1) ^ 1");
                    b.loop_("k", 0, "KT", |b| {
                        let i = "(t * KT + k)";
                        b.ins(format!(
                            "SYNCS.PHASECHK.TRANS64.TRYWAIT full[{i} % PIPE], parity=({i} / PIPE) & 1"
                        ));
                        mma(b, i);
                        b.ins(format!("UTCBAR empty[{i} % PIPE]"));
                        // Refill the stage of the previous k-step once its MMAs are done.
                        let j = "(t * KT + k - 1)";
                        b.if_(
                            format!("({i} >= 1) & ({j} + PIPE < TILES * KT)"),
                            |b| {
                                b.ins(format!(
                                    "SYNCS.PHASECHK.TRANS64.TRYWAIT empty[{j} % PIPE], parity=({j} / PIPE) & 1"
                                ));
                                load(b, &format!("{j} % PIPE"), &format!("{j} + PIPE"));
                            },
                        );
                    });
                    b.ins("UTCBAR acc_full[t % 2]");
                });
                b.if_("t >= 1", |b| epilogue(b, "(t - 1)"));
            });
            epilogue(b, "(TILES - 1)");
            b.ins("DEPBAR.LE SB1, 0");
            b.ins("EXIT");
        }),
        other => return Err(format!("blackwell-matmul has no schedule `{other}`")),
    };
    Ok(k.build())
}

/// The output tile the CTA takes at its `t`-th turn: tiles cta, cta + CTAs, ...; a CTA
/// with fewer tiles than the simulated one repeats its last (the busiest SM's CTA is the
/// one simulated, so this only keeps the others' addresses in range; `max` because the
/// range check does not narrow `t - 1` by the `if t >= 1` around the epilogue).
fn tile(t: &str) -> String {
    format!("min(cta + max({t}, 0) * CTAS, T - 1)")
}

/// Triton's grouped raster (`_compute_pid`): GROUP rows of tiles walked column by column.
fn pid_m(t: &str) -> String {
    let idx = tile(t);
    format!(
        "((({idx}) / (GROUP * NT)) * GROUP + ({idx}) % min(MT - (({idx}) / (GROUP * NT)) * GROUP, GROUP))"
    )
}

fn pid_n(t: &str) -> String {
    let idx = tile(t);
    format!("((({idx}) % (GROUP * NT)) / min(MT - (({idx}) / (GROUP * NT)) * GROUP, GROUP))")
}

/// Announces a stage's 48 KiB and issues its two TMA loads (flattened k-step `i`; A tile
/// (m, k) at (m KT + k) x 16 KiB, B tile (n, k) at (n KT + k) x 32 KiB: the CTAs whose
/// tiles share a row or a column read the same lines).
fn load(b: &mut BodyBuilder, stage: &str, i: &str) {
    b.ins(format!(
        "SYNCS.ARRIVE.TRANS64.EXPECT_TX full[{stage}], bytes=49152"
    ));
    b.ins(format!(
        "UTMALDG.2D sA[({stage}) * 16384], A[({} * KT + ({i}) % KT) * 16384], bytes=16384, bar=full[{stage}]",
        pid_m(&format!("({i}) / KT"))
    ));
    b.ins(format!(
        "UTMALDG.2D sB[({stage}) * 32768], B[({} * KT + ({i}) % KT) * 32768], bytes=32768, bar=full[{stage}]",
        pid_n(&format!("({i}) / KT"))
    ));
}

/// One k-step: four UTCMMA.128x256x16 into accumulator buffer (i / KT) % 2.
fn mma(b: &mut BodyBuilder, i: &str) {
    for j in 0..4 {
        b.ins(format!(
            "UTCMMA.128x256x16.F32.BF16 tmem[(({i} / KT) % 2) * 256], sA[({i} % PIPE) * 16384 + {}], sB[({i} % PIPE) * 32768 + {}]",
            j * 32,
            j * 32
        ));
    }
}

/// The epilogue of tile `t` by one warp of the epilogue warpgroup (its 32 TMEM lanes):
/// four 64-column subtiles, each LDTM'd, staged in this warp's 4 KiB of sC and stored.
fn epilogue(b: &mut BodyBuilder, t: &str) {
    b.ins(format!(
        "SYNCS.PHASECHK.TRANS64.TRYWAIT acc_full[{t} % 2], parity=({t} / 2) & 1"
    ));
    for s in 0..4 {
        b.ins(format!(
            "LDTM.32DP32BIT.X64 R0, tmem[({t} % 2) * 256 + {}]",
            s * 64
        ));
        if s == 3 {
            // The whole accumulator is in registers: the MMA warp may reuse it.
            b.ins(format!("SYNCS.ARRIVE.TRANS64 acc_empty[{t} % 2]"));
        }
        // The previous subtile's store has read the staging buffer.
        b.ins("DEPBAR.LE SB1, 0");
        for q in 0..8 {
            b.ins(format!(
                "STS.128 sC[(warp % 4) * 4096 + {q} * 512 + lane * 16], R{}",
                8 * q
            ));
        }
        b.ins("FENCE.PROXY.ASYNC");
        b.ins(format!(
            "UTMASTG.2D C[((({}) * 4 + {s}) * 4 + warp % 4) * 4096], sC[(warp % 4) * 4096], bytes=4096",
            tile(t)
        ));
        b.ins("UTMACMDFLUSH");
    }
}
