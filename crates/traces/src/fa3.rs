//! fa3-forward (seed 002, FlashAttention-3): attention forward for one query tile of
//! B_r = 128 rows over TC key/value blocks of B_c = 128 keys, head dimension d = 128, FP16
//! operands with FP32 accumulators.
//!
//! Two consumer warpgroups each own 64 query rows. Per key/value block a warpgroup runs
//! GEMM0 S = Q K_j^T (eight HGMMA.64x128x16 over d), the online softmax of its 64 x 128
//! S tile, and GEMM1 O += P V_j (eight HGMMA.64x128x16 over B_c with P, the A operand,
//! from registers). The softmax carries its real per-thread cost: every thread holds
//! 64 S values, so per block and warp there are 64 MUFU.EX2 (8 cycles each on the
//! sub-partition's MUFU pipe), 64 FFMA (scale and subtract the row max), the row max as
//! 64 FMNMX over eight chains, the row sum as 64 FADD chains, the reductions over the four
//! threads of a row (SHFL.BFLY butterflies through the shared-memory crossbar), the
//! running max/sum update (2 more MUFU.EX2), P packed to FP16 pairs for GEMM1's register
//! operand (32 F2FP.F16.F32.PACK_AB) and the O rescale (64 FMUL). On the H100 profile a block costs a warpgroup 1024 cycles of its
//! sub-partitions' tensor cores and each warp 528 cycles of MUFU, so an unhidden softmax
//! is about half the tensor time (the seed's "exponential can consume ~50%").
//!
//! Schedules:
//! - `fa3`: a producer warp (its warpgroup's other warps exit, setmaxnreg 24/240) loads Q
//!   once and K_j, V_j into a PIPE-stage ring with TMA (full/empty mbarriers per ring);
//!   the consumer warpgroups run in pingpong, ordered by two named barriers (a warpgroup
//!   BAR.SYNCs on its own barrier before issuing its GEMMs and BAR.ARVs on the other's
//!   after), and pipeline within the warpgroup: S_next = Q K_j^T and O += P_{j-1} V_{j-1}
//!   are issued together, then the softmax of S_next runs while they execute
//!   (wait_group 1), with S double-buffered in registers.
//! - `fa3-no-pipelining`: as `fa3` without the intra-warpgroup overlap (FA3's
//!   IntraWGOverlap=false path): GEMM1(j) then GEMM0(j+1) in the ordered region, each
//!   waited, the softmax after.
//! - `fa3-no-pingpong`: as `fa3` without the scheduler barriers.
//! - `fa3-no-ws`: no producer; warp 0 (a consumer) issues every load, refilling a stage
//!   once both warpgroups released it, at the end of its own iteration (a static
//!   schedule); pingpong and pipelining kept.
//! - `fa2-like`: no producer, no pingpong, no overlap: GEMM0, wait, softmax, GEMM1, wait.

use isa::builder::{BodyBuilder, KernelBuilder};

use crate::{Family, ParamSpec, Params, Schedule, check_range};

pub const FAMILY: Family = Family {
    name: "fa3-forward",
    description: "FlashAttention-3 forward, one 128-row query tile over TC K/V blocks, d=128 (seed 002)",
    profile: "h100",
    schedules: &[
        Schedule {
            name: "fa3",
            description: "producer warp + 2 consumer warpgroups in pingpong, GEMM-softmax pipelining",
        },
        Schedule {
            name: "fa3-no-pipelining",
            description: "as fa3 without intra-warpgroup overlap: GEMM0, wait, softmax, GEMM1",
        },
        Schedule {
            name: "fa3-no-pingpong",
            description: "as fa3 without the named barriers that alternate the warpgroups",
        },
        Schedule {
            name: "fa3-no-ws",
            description: "no producer: consumer warp 0 issues the TMA loads in a static schedule",
        },
        Schedule {
            name: "fa2-like",
            description: "no producer, no pingpong, synchronous GEMM0/softmax/GEMM1",
        },
    ],
    params: &[
        ParamSpec {
            name: "TC",
            default: 16,
            help: "key/value blocks of 128 (T_c = seqlen / 128)",
        },
        ParamSpec {
            name: "PIPE",
            default: 2,
            help: "stages of the K and of the V ring in shared memory (1..=3; 32 KiB each)",
        },
        ParamSpec {
            name: "GRID",
            default: 16,
            help: "CTAs (query tiles x heads). The engine's L2 sees only this SM, so K/V that \
                   other CTAs would share come from HBM at this SM's share of bandwidth; \
                   above ~50 CTAs that share, not the schedule, bounds the kernel",
        },
    ],
    build,
};

/// One K or V block, 128 x 128 FP16; also the whole Q tile.
const BLOCK: i64 = 32768;
/// Registers: S double buffer, O accumulator (64 FP32 each for a 64 x 128 tile).
const SA: u32 = 24;
const SB: u32 = 88;
const O: u32 = 152;

#[derive(Clone, Copy)]
struct Cfg {
    ws: bool,
    pingpong: bool,
    pipelined: bool,
    /// Consumer warpgroup index (0 or 1) as an expression.
    cw: &'static str,
    /// Warp index within the consumers (0..7).
    cwarp: &'static str,
}

pub fn build(schedule: &str, p: &Params) -> Result<isa::Kernel, String> {
    let tc = p.get("TC");
    let pipe = p.get("PIPE");
    let grid = p.get("GRID");
    check_range("TC", tc, 1, 1 << 16)?;
    check_range("PIPE", pipe, 1, 3)?;
    check_range("GRID", grid, 1, 1 << 20)?;
    let (ws, pingpong, pipelined) = match schedule {
        "fa3" => (true, true, true),
        "fa3-no-pipelining" => (true, true, false),
        "fa3-no-pingpong" => (true, false, true),
        "fa3-no-ws" => (false, true, true),
        "fa2-like" => (false, false, false),
        other => return Err(format!("fa3-forward has no schedule `{other}`")),
    };
    let c = Cfg {
        ws,
        pingpong,
        pipelined,
        cw: if ws { "(warpgroup - 1)" } else { "warpgroup" },
        cwarp: if ws { "(warp - 4)" } else { "warp" },
    };
    let threads = if ws { 384 } else { 256 };
    // setmaxnreg 24 for the producer warpgroup, 240 for the consumers: 168 at launch.
    let regs = if ws { 168 } else { 240 };
    let name = format!("fa3_{}", schedule.replace('-', "_"));
    let kv = (grid * tc + pipe) * BLOCK;
    let mut b = KernelBuilder::new(&name, threads)
        .regs(regs)
        .grid(grid as u32)
        .buffer("Q", (grid * BLOCK) as u64)
        .buffer("K", kv as u64)
        .buffer("V", kv as u64)
        .buffer("O", (grid * BLOCK) as u64)
        .shared("sQ", BLOCK as u32)
        .shared("sK", (pipe * BLOCK) as u32)
        .shared("sV", (pipe * BLOCK) as u32)
        .mbarrier("q_full", 1, 1)
        .mbarrier("k_full", pipe as u32, 1)
        .mbarrier("v_full", pipe as u32, 1)
        // Every consumer warp releases a stage it read.
        .mbarrier("k_empty", pipe as u32, 8)
        .mbarrier("v_empty", pipe as u32, 8);
    if pingpong {
        b = b
            .named_barrier("sched0", 1, 256)
            .named_barrier("sched1", 2, 256);
    }
    b = b
        .named_barrier("epi0", 3, 128)
        .named_barrier("epi1", 4, 128)
        .param("TC", tc)
        .param("PIPE", pipe)
        .work_flops("4 * 128 * 128 * 128 * TC")
        .work_bytes("32768 * (2 * TC + 2)");
    let k = if ws {
        b.role("producer", 0, 0, Some(24), |b| {
            load_q(b);
            load(b, "K", "0");
            b.loop_("j", 1, "TC", |b| {
                load(b, "K", "j");
                load(b, "V", "(j - 1)");
            });
            load(b, "V", "(TC - 1)");
            b.ins("EXIT");
        })
        .role("idle", 1, 3, Some(24), |b| {
            b.ins("EXIT");
        })
        .role("consumer", 4, 11, Some(240), |b| consumer(b, c))
    } else {
        b.role("consumer", 0, 7, None, |b| consumer(b, c))
    };
    Ok(k.build())
}

fn load_q(b: &mut BodyBuilder) {
    b.ins("SYNCS.ARRIVE.TRANS64.EXPECT_TX q_full[0], bytes=32768");
    b.ins("UTMALDG.2D sQ[0], Q[cta * 32768], bytes=32768, bar=q_full[0]");
}

/// The producer's load of block `j` of `K` or `V` once its stage is free.
fn load(b: &mut BodyBuilder, t: &str, j: &str) {
    let l = t.to_lowercase();
    b.ins(format!(
        "SYNCS.PHASECHK.TRANS64.TRYWAIT {l}_empty[{j} % PIPE], parity=(({j} / PIPE) & 1) ^ 1"
    ));
    fill(b, t, &format!("{j} % PIPE"), j);
}

fn fill(b: &mut BodyBuilder, t: &str, stage: &str, block: &str) {
    let l = t.to_lowercase();
    b.ins(format!(
        "SYNCS.ARRIVE.TRANS64.EXPECT_TX {l}_full[{stage}], bytes=32768"
    ));
    b.ins(format!(
        "UTMALDG.2D s{t}[({stage}) * 32768], {t}[(cta * TC + {block}) * 32768], bytes=32768, bar={l}_full[{stage}]"
    ));
}

/// No-ws: warp 0 refills the K stage of block `a` (when both warpgroups released it) with
/// block a + PIPE, and the V stage of block `c` with c + PIPE.
fn static_loads(b: &mut BodyBuilder, c: Cfg, a: Option<&str>, v: Option<&str>) {
    if c.ws {
        return;
    }
    b.if_("warp == 0", |b| {
        for (t, j) in [("K", a), ("V", v)] {
            let Some(j) = j else { continue };
            let l = t.to_lowercase();
            b.if_(format!("{j} + PIPE < TC"), |b| {
                b.ins(format!(
                    "SYNCS.PHASECHK.TRANS64.TRYWAIT {l}_empty[{j} % PIPE], parity=({j} / PIPE) & 1"
                ));
                fill(b, t, &format!("{j} % PIPE"), &format!("{j} + PIPE"));
            });
        }
    });
}

fn wait_full(b: &mut BodyBuilder, t: &str, j: &str) {
    b.ins(format!(
        "SYNCS.PHASECHK.TRANS64.TRYWAIT {t}_full[{j} % PIPE], parity=({j} / PIPE) & 1"
    ));
}

fn release(b: &mut BodyBuilder, t: &str, j: &str) {
    b.ins(format!("SYNCS.ARRIVE.TRANS64 {t}_empty[{j} % PIPE]"));
}

/// GEMM0: S (registers from `s`) = Q_rows K_j^T, eight k-steps over d, one wgmma group.
fn gemm0(b: &mut BodyBuilder, c: Cfg, s: u32, j: &str) {
    b.ins("WARPGROUP.ARRIVE");
    for k in 0..8 {
        let gsb = if k == 7 { ", gsb0" } else { "" };
        b.ins(format!(
            "HGMMA.64x128x16.F32.F16 R{s}, sQ[{} * 16384 + {}], sK[({j} % PIPE) * 32768 + {}]{gsb}",
            c.cw,
            k * 32,
            k * 32
        ));
    }
}

/// GEMM1: O += P V_j with P (FP16, converted in place in S's registers) as the A operand.
fn gemm1(b: &mut BodyBuilder, s: u32, j: &str) {
    b.ins("WARPGROUP.ARRIVE");
    for k in 0..8u32 {
        let gsb = if k == 7 { ", gsb0" } else { "" };
        b.ins(format!(
            "HGMMA.64x128x16.F32.F16 R{O}, R{}, sV[({j} % PIPE) * 32768 + {}]{gsb}",
            s + 4 * k,
            k * 4096
        ));
    }
}

/// Pingpong: wait for this warpgroup's turn at the tensor cores.
fn sched_sync(b: &mut BodyBuilder, c: Cfg) {
    if c.pingpong {
        b.ins(format!("BAR.SYNC {} + 1, 256", c.cw));
    }
}

/// Pingpong: hand the turn to the other warpgroup. The second warpgroup skips its last
/// hand-over (`last` is the condition that this is the last one) so that every barrier
/// phase completes.
fn sched_arrive(b: &mut BodyBuilder, c: Cfg, last: &str) {
    if c.pingpong {
        b.if_(format!("({} == 0) | ({last} == 0)", c.cw), |b| {
            b.ins(format!("BAR.ARV 2 - {}, 256", c.cw));
        });
    }
}

// Per-thread registers of the softmax: R0/R1 row max, R2/R3 row sum, R4/R5 and R22/R23
// the rescale factor exp2(m_old - m_new) of rows 0 and 1, R6 -1.0, R7 softmax scale * log2(e), R8..R15 four partial
// max/sum chains per row, R16/R17 -m * scale, R18/R19 scratch, R20/R21 the previous max.

/// Row of accumulator value i (a thread holds pairs of two rows, r and r + 8).
fn row(i: u32) -> u32 {
    (i / 2) % 2
}

/// The partial-reduction register of value i: four chains per row, in the other
/// register bank than the value (S starts at an even register), as ptxas allocates.
fn chain(i: u32) -> u32 {
    8 + row(i) * 4 + ((i / 4) % 2) * 2 + (1 - i % 2)
}

/// The register holding the rescale factor of value i's row, in the other bank than
/// the value: row 0 in R4 (odd values) and R5 (even), row 1 in R22 and R23.
fn scale_reg(i: u32) -> u32 {
    let base = if row(i) == 0 { 4 } else { 22 };
    base + (1 - i % 2)
}

/// The online softmax of the S tile in registers from `s`: row max, exp2, row sum, and
/// the running max and sum. `first`: no previous max (no rescale factor).
fn softmax(b: &mut BodyBuilder, s: u32, first: bool) {
    // Row max: FMNMX over eight independent chains (four per row).
    for i in 0..64u32 {
        b.ins(format!(
            "FMNMX R{}, R{}, R{}, !PT",
            chain(i),
            chain(i),
            s + i
        ));
    }
    // Combine the four chains of each row, then the four threads of the row: two
    // butterfly steps, each a shuffle (through the shared-memory crossbar) and a max.
    let combine = |b: &mut BodyBuilder, pairs: &[(u32, u32)]| {
        for &(x, y) in pairs {
            b.ins(format!("FMNMX R{x}, R{x}, R{y}, !PT"));
        }
    };
    // (Pairs in different register banks; row 0 ends in R9, row 1 in R12.)
    combine(b, &[(9, 8), (10, 11), (12, 13), (15, 14)]);
    combine(b, &[(9, 10), (12, 15)]);
    for lanes in [1, 2] {
        b.ins(format!("SHFL.BFLY R18, R9, 0x{lanes}, 0x1f"));
        b.ins(format!("SHFL.BFLY R19, R12, 0x{lanes}, 0x1f"));
        combine(b, &[(9, 18), (12, 19)]);
    }
    if first {
        b.ins("MOV R0, R9");
        b.ins("MOV R1, R12");
    } else {
        b.ins("MOV R20, R0");
        b.ins("MOV R21, R1");
        combine(b, &[(0, 9), (1, 12)]);
        // Rescale factor for O and the running sum: exp2((m_old - m_new) * scale).
        b.ins("FFMA R18, R0, R6, R20");
        b.ins("FFMA R19, R1, R6, R21");
        b.ins("FMUL R18, R18, R7");
        b.ins("FMUL R19, R19, R7");
        b.ins("MUFU.EX2 R4, R18");
        b.ins("MUFU.EX2 R22, R19");
        b.ins("MOV R5, R4");
        b.ins("MOV R23, R22");
    }
    b.ins("FMUL R16, R0, R7");
    b.ins("FMUL R17, R1, R7");
    // P = exp2(S * scale - m * scale); the row sums trail the exponentials by two groups
    // so that the MUFU results are ready.
    let sum = |b: &mut BodyBuilder, g: u32| {
        for t in 0..4u32 {
            let i = 4 * g + t;
            b.ins(format!("FADD R{}, R{}, R{}", chain(i), chain(i), s + i));
        }
    };
    for g in 0..16u32 {
        for t in 0..4u32 {
            let i = 4 * g + t;
            b.ins(format!("FFMA R{}, R{}, R7, R{}", s + i, s + i, 16 + row(i)));
        }
        for t in 0..4u32 {
            let i = 4 * g + t;
            b.ins(format!("MUFU.EX2 R{}, R{}", s + i, s + i));
        }
        if g >= 2 {
            sum(b, g - 2);
        }
    }
    sum(b, 14);
    sum(b, 15);
    for (x, y) in [(9, 8), (10, 11), (12, 13), (15, 14), (9, 10), (12, 15)] {
        b.ins(format!("FADD R{x}, R{x}, R{y}"));
    }
    for lanes in [1, 2] {
        b.ins(format!("SHFL.BFLY R18, R9, 0x{lanes}, 0x1f"));
        b.ins(format!("SHFL.BFLY R19, R12, 0x{lanes}, 0x1f"));
        b.ins("FADD R9, R9, R18");
        b.ins("FADD R12, R12, R19");
    }
    if first {
        b.ins("MOV R2, R9");
        b.ins("MOV R3, R12");
    } else {
        b.ins("FFMA R2, R2, R4, R9");
        b.ins("FFMA R3, R3, R22, R12");
    }
    // P to FP16 pairs for GEMM1's register A operand: value pair (2q, 2q + 1) into
    // register q of the buffer (in order, so no pair is overwritten before it is read).
    for q in 0..32u32 {
        b.ins(format!(
            "F2FP.F16.F32.PACK_AB R{}, R{}, R{}",
            s + q,
            s + 2 * q + 1,
            s + 2 * q
        ));
    }
}

/// O *= the rescale factor of its row.
fn rescale(b: &mut BodyBuilder) {
    for i in 0..64u32 {
        b.ins(format!("FMUL R{}, R{}, R{}", O + i, O + i, scale_reg(i)));
    }
}

fn consumer(b: &mut BodyBuilder, c: Cfg) {
    if !c.ws {
        // Warp 0 fills the ring: Q, then the first PIPE blocks of K and V.
        b.if_("warp == 0", |b| {
            load_q(b);
            b.loop_("s", 0, "min(PIPE, TC)", |b| {
                fill(b, "K", "s", "s");
                fill(b, "V", "s", "s");
            });
        });
    }
    if c.pingpong {
        // The first consumer warpgroup gets the first turn.
        b.if_(format!("{} == 0", c.cw), |b| {
            b.ins("BAR.ARV 1, 256");
        });
    }
    b.ins("SYNCS.PHASECHK.TRANS64.TRYWAIT q_full[0], parity=0");
    if c.pipelined {
        consumer_pipelined(b, c);
    } else if c.pingpong {
        consumer_ordered(b, c);
    } else {
        consumer_sync(b, c);
    }
    epilogue(b, c);
}

/// fa3 / fa3-no-pingpong / fa3-no-ws: S double-buffered; iteration j issues S_j and
/// O += P_{j-1} V_{j-1}, then runs softmax(S_j) while they execute.
fn consumer_pipelined(b: &mut BodyBuilder, c: Cfg) {
    // Block 0: S_0 alone.
    wait_full(b, "k", "0");
    sched_sync(b, c);
    gemm0(b, c, SA, "0");
    sched_arrive(b, c, "(TC == 1)");
    b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
    release(b, "k", "0");
    softmax(b, SA, true);
    static_loads(b, c, Some("0"), None);
    let iter = |b: &mut BodyBuilder, j: &str, cur: u32, next: u32| {
        wait_full(b, "k", j);
        sched_sync(b, c);
        gemm0(b, c, next, j);
        let jm = format!("({j} - 1)");
        wait_full(b, "v", &jm);
        gemm1(b, cur, &jm);
        sched_arrive(b, c, &format!("({j} == TC - 1)"));
        // S_j is done once at most one group (GEMM1) is pending.
        b.ins("WARPGROUP.DEPBAR.LE gsb0, 1");
        release(b, "k", j);
        softmax(b, next, false);
        b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
        release(b, "v", &jm);
        rescale(b);
        static_loads(b, c, Some(j), Some(&jm));
    };
    // Blocks 1..TC-1 in pairs, so that S_next alternates between the two buffers.
    b.loop_("jj", 0, "(TC - 1) / 2", |b| {
        iter(b, "(1 + 2 * jj)", SA, SB);
        iter(b, "(2 + 2 * jj)", SB, SA);
    });
    b.if_("(TC - 1) % 2 == 1", |b| {
        iter(b, "(TC - 1)", SA, SB);
    });
    // The last P V: P of block TC-1 is in buffer A when TC is odd, B when even.
    b.if_("TC % 2 == 1", |b| last_gemm1(b, c, SA));
    b.if_("TC % 2 == 0", |b| last_gemm1(b, c, SB));
}

fn last_gemm1(b: &mut BodyBuilder, c: Cfg, s: u32) {
    wait_full(b, "v", "(TC - 1)");
    gemm1(b, s, "(TC - 1)");
    b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
    release(b, "v", "(TC - 1)");
    let _ = c;
}

/// fa3-no-pipelining: pingpong, one S buffer. The ordered region is GEMM1(j) (waited)
/// then GEMM0(j+1); the softmax of S_{j+1} follows its wait.
fn consumer_ordered(b: &mut BodyBuilder, c: Cfg) {
    wait_full(b, "k", "0");
    sched_sync(b, c);
    gemm0(b, c, SA, "0");
    sched_arrive(b, c, "0");
    b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
    release(b, "k", "0");
    softmax(b, SA, true);
    static_loads(b, c, Some("0"), None);
    b.loop_("j", 0, "TC", |b| {
        wait_full(b, "v", "j");
        sched_sync(b, c);
        gemm1(b, SA, "j");
        b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
        release(b, "v", "j");
        b.if_("j + 1 < TC", |b| {
            wait_full(b, "k", "(j + 1)");
            gemm0(b, c, SA, "(j + 1)");
        });
        sched_arrive(b, c, "(j == TC - 1)");
        b.if_("j + 1 < TC", |b| {
            b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
            release(b, "k", "(j + 1)");
            softmax(b, SA, false);
            rescale(b);
        });
        static_loads(b, c, Some("(j + 1)"), Some("j"));
    });
}

/// fa2-like: GEMM0, wait, softmax, rescale, GEMM1, wait, per block.
fn consumer_sync(b: &mut BodyBuilder, c: Cfg) {
    b.loop_("j", 0, "TC", |b| {
        wait_full(b, "k", "j");
        gemm0(b, c, SA, "j");
        b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
        release(b, "k", "j");
        b.if_("j == 0", |b| softmax(b, SA, true));
        b.if_("j > 0", |b| {
            softmax(b, SA, false);
            rescale(b);
        });
        wait_full(b, "v", "j");
        gemm1(b, SA, "j");
        b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
        release(b, "v", "j");
        static_loads(b, c, Some("j"), Some("j"));
    });
}

/// O /= l, staged through this warpgroup's half of sQ (free after its last GEMM0) and
/// stored with one TMA store per warpgroup.
fn epilogue(b: &mut BodyBuilder, c: Cfg) {
    b.ins("MUFU.RCP R4, R2");
    b.ins("MUFU.RCP R22, R3");
    b.ins("MOV R5, R4");
    b.ins("MOV R23, R22");
    rescale(b);
    for s in 0..8u32 {
        b.ins(format!(
            "STS.128 sQ[{} * 4096 + {s} * 512 + lane * 16], R{}",
            c.cwarp,
            O + 4 * s
        ));
    }
    b.ins("FENCE.PROXY.ASYNC");
    b.ins(format!("BAR.SYNC {} + 3, 128", c.cw));
    b.if_("warp % 4 == 0", |b| {
        b.ins(format!(
            "UTMASTG.2D O[(cta * 2 + {}) * 16384], sQ[{} * 16384], bytes=16384",
            c.cw, c.cw
        ));
        b.ins("UTMACMDFLUSH");
        b.ins("DEPBAR.LE SB1, 0");
    });
    b.ins("EXIT");
}
