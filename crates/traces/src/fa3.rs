//! fa3-forward (seed 002, FlashAttention-3): attention forward over BATCH x HEADS heads
//! of SEQLEN queries and SEQLEN_K keys, head dimension d (64 or 128), FP16 operands with
//! FP32 accumulators. A CTA is one query tile of B_r = 128 rows (grid = BATCH x HEADS x
//! SEQLEN / 128, a head's tiles consecutive) over its head's T_c = SEQLEN_K / 128
//! key/value blocks of B_c = 128 keys, which every tile of the head reads (so the CTAs
//! of a wave that share a head share those lines in L2); under CAUSAL=1 tile i reads
//! blocks up to its diagonal, masked. (The figures below are for d = 128.)
//!
//! At d = 64 the tile is FA3's for that head dimension: B_r = 192 rows over three
//! consumer warpgroups (grid = BATCH x HEADS x ceil(SEQLEN / 192), the last tile of a
//! sequence computed whole and stored clipped), 128-key blocks, two stages. The source:
//! hopper/flash_fwd_launch_template.h of the paper's release (Dao-AILab/flash-attention
//! 7f67966c, "FA3 initial code release"), `run_mha_fwd_hdim64`:
//! `Flash_fwd_kernel_traits<64, 192, 128, 16, 2, false, 1, T>` (d, kBlockM, kBlockN,
//! kNWarps = a producer warpgroup and three consumers, kStages, Q not in registers, no
//! cluster, causal or not); flash_fwd_kernel.h: setmaxnreg 32 for the producer
//! warpgroup and 160 for the consumers; mainloop_fwd_sm90_tma_gmma_ws.hpp:
//! `UseSchedulerBarrier = kHeadDim <= 128`, so the three consumers pingpong: warpgroup
//! w syncs on its own barrier of 384 threads and, after issuing its GEMMs, arrives on
//! the two others' (`scheduler_barrier_arrive`), and `mma_init` has each arrive on the
//! barriers of those before it, so the turns go round in order. Under a causal mask a
//! 192-row tile's diagonal crosses two or three 128-key blocks, each masked. (Today's
//! FA3, hopper/tile_size.h, runs non-causal d = 64 as 192 x 192 with P from shared
//! memory; the paper's figures are of the first release.) With 160 registers a consumer
//! keeps one S buffer and P apart (FA3's `tOrP`), converting S to P after GEMM1 has read
//! the previous P (its order, after `warpgroup_wait<0>`).
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
//! Against FlashAttention-3's own kernel (hopper/ in Dao-AILab/flash-attention, the
//! paper's version): the same three warpgroups (a producer, two consumers of 64 rows
//! each: `TiledMma0` is `kBlockM / 64` warpgroups), the same per-block order in the
//! consumer (`fwd_step`: scheduler-barrier sync, S = Q K^T issued, O rescaled, P V
//! issued, arrive, wait for S, the softmax, wait for P V, P converted), GEMM1 in RS form
//! with V MN-major, and the non-overlapped variant's order (GEMM1 waited, then the next
//! GEMM0, arrive). What differs: for non-causal d = 128 FA3 takes 176-key blocks
//! (`Flash_fwd_kernel_traits<128, 128, 176, 12, 2, ...>`; the seed's 8448 = 48 x 176),
//! a cluster of two CTAs with K/V multicast and a persistent tile scheduler. The per-key
//! work is the same at 176; the per-block costs (barriers, row reductions, the O
//! rescale) spread over more keys, so the real tile is, if anything, faster per FLOP
//! than this family's 128.
//!
//! The level: on the H100 the FP32 FMA pipe and the tensor core take turns (measured:
//! each FFMA a sub-partition issues beside a busy tensor core costs it 0.99 cycle; MUFU
//! and ALU-pipe work cost it nothing: crates/traces/seeds/data/mufu-tensor). The
//! softmax's FMA-pipe work (FFMA scale, FADD row sums, FMUL rescale, about 200
//! instructions a warp per block) therefore adds to the tensor time of the other
//! warpgroup's GEMMs, whatever the schedule (the profile's `fma_tensor_cycles`). MUFU, in
//! turn, issues slower beside a busy tensor core (8.04 to 10.78 cycles an instruction,
//! `mufu_beside_tensor_cycles`), and beside it the math pipes stop overlapping: FA3's
//! softmax of one warp takes 1414 cycles beside two warpgroups of wgmma against 699
//! alone (crates/traces/seeds/data/beside), which the profile's
//! `*_port_beside_tensor_cycles` model as a port the math pipes share while the tensor core
//! is busy. With the three the seed's FA3 figure is -2% (+5% without the port, +6%
//! without the FMA/tensor turns), the paper's d = 128 -3%, d = 64 -16% (-15% with d = 64
//! run as two warpgroups of 64 rows like d = 128: FA3's tiling does not close the gap;
//! at d = 64 the tensor time per block halves while the softmax's stays, and the model's
//! MUFU and math ports beside the busy tensor core bind).
//!
//! The no-pipelining step: FA3's IntraWGOverlap=false loop compiled for an H100
//! (crates/traces/seeds/data/pingpong: the loop alone, in pingpong, without loads) has
//! most of its softmax below the scheduler barrier's sync, in the ordered region ahead of
//! P V (ptxas sinks 42 of the 64 exponentials, their row sums and the 32 F2FP there), so
//! the other warpgroup's GEMMs wait for them; it ran 1.181 times the pipelined loop's
//! step. `fa3-no-pipelining` runs its softmax in that order (`SYNC_GROUPS`); in the
//! source's order (the whole softmax before the sync) it would lose 2% to FA3 where the
//! seed measured 14%.
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
//!   waited, the softmax after; its last two thirds (from `SYNC_GROUPS` on) after the
//!   next sync, ahead of GEMM1, as the compiled loop runs it.
//! - `fa3-no-pingpong`: as `fa3` without the scheduler barriers.
//! - `fa3-no-ws`: no producer; warp 0 (a consumer) issues every load, refilling a stage
//!   once both warpgroups released it, at the end of its own iteration (a static
//!   schedule); pingpong and pipelining kept.
//! - `fa2-like`: no producer, no pingpong, no overlap: GEMM0, wait, softmax, GEMM1, wait.

use isa::builder::{BodyBuilder, KernelBuilder};

use crate::{Family, ParamSpec, Params, Schedule, check_range};

pub const FAMILY: Family = Family {
    name: "fa3-forward",
    description: "FlashAttention-3 forward: batch x heads x seqlen, 128-row query tiles (192 at d=64) over their head's K/V blocks, d=64/128, causal or not (seed 002)",
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
            name: "BATCH",
            default: 1,
            help: "batch size (the seed's ablation: 4)",
        },
        ParamSpec {
            name: "HEADS",
            default: 1,
            help: "attention heads (the seed: 16); a head's query tiles read the same K and V",
        },
        ParamSpec {
            name: "SEQLEN",
            default: 2048,
            help: "query sequence length (multiple of 128; the seed: 8448); CTAs = BATCH x HEADS x SEQLEN / 128 (at d = 64, / 192 rounded up)",
        },
        ParamSpec {
            name: "SEQLEN_K",
            default: 0,
            help: "key/value sequence length (multiple of 128; 0: the same as SEQLEN); T_c = SEQLEN_K / 128 blocks per query tile",
        },
        ParamSpec {
            name: "HEADDIM",
            default: 128,
            help: "head dimension d (64 or 128; the seed: 128); at 64 FA3's 192-row tiles over three consumer warpgroups",
        },
        ParamSpec {
            name: "CAUSAL",
            default: 0,
            help: "1: causal mask (query tile i reads the key blocks up to its diagonal, which is masked; the longest tiles are scheduled first, as FA3 does); 0: none (the seed)",
        },
        ParamSpec {
            name: "SYNC_GROUPS",
            default: 6,
            help: "fa3-no-pipelining: groups of four exponentials (of 16) a warpgroup runs before the scheduler barrier's sync, the rest after it (6: the compiled loop's order, ptxas sinking the rest; 16: the source's order, the softmax wholly before it)",
        },
        ParamSpec {
            name: "PIPE",
            default: 2,
            help: "stages of the K and of the V ring in shared memory (1..=3; 128 x d x 2 bytes each)",
        },
    ],
    seed_params: &[("BATCH", 4), ("HEADS", 16), ("SEQLEN", 8448)],
    build,
};

/// Query rows of a CTA's tile (B_r) at d = 128 and keys of a K/V block (B_c) at both
/// head dimensions, as in the paper's FA3 (`kBlockM` 128, `kBlockN` 128 causal; the
/// non-causal 176 is not taken, see the module doc). At d = 64 B_r is [`BR_D64`].
const BR: i64 = 128;
const BC: i64 = 128;
/// B_r at d = 64: FA3's `Flash_fwd_kernel_traits<64, 192, 128, 16, 2, ..>`, three
/// consumer warpgroups of 64 rows.
const BR_D64: i64 = 192;
/// Registers: S double buffer (64 FP32 each for a 64 x 128 tile), O accumulator (d / 2).
const SA: u32 = 24;
const SB: u32 = 88;
const O: u32 = 152;
/// With three consumer warpgroups a consumer has 160 registers (FA3's setmaxnreg 160),
/// too few for the double buffer: one S buffer at `SA`, P (FP16 pairs, 32 registers)
/// apart at `PB` as FA3 keeps `tOrP`, and O after it.
const PB: u32 = 88;
const O3: u32 = 120;

#[derive(Clone)]
struct Cfg {
    ws: bool,
    pingpong: bool,
    pipelined: bool,
    /// Consumer warpgroup index (0 or 1) as an expression.
    cw: &'static str,
    /// Warp index within the consumers (0..7).
    cwarp: &'static str,
    /// Head dimension.
    d: u32,
    /// Consumer warpgroups (2, or 3 at d = 64), each of 64 query rows.
    wgs: u32,
    /// First register of the O accumulator.
    o: u32,
    /// The Q (and O) tile's bytes as a launch parameter: `BLK` when the tile is a K/V
    /// block's size (B_r = B_c), else `QBLK`.
    qblk: &'static str,
    /// Under a causal mask with B_r > B_c: the first masked block, as an expression
    /// (several blocks meet the diagonal); `None`: only the last one.
    mask_from: Option<String>,
    /// The K/V blocks this CTA reads, as an expression (`TC`, or its diagonal's block
    /// count under a causal mask, which depends on `cta`).
    nb: String,
    /// Whether the last block is masked (causal: the diagonal).
    causal: bool,
    /// fa3-no-pipelining: the exponential groups (of 16) before the scheduler barrier's
    /// sync (`SYNC_GROUPS`).
    sync_groups: u32,
}

/// The problem, resolved from the parameters: query tiles per head, key blocks, CTAs.
struct Shape {
    d: i64,
    /// Query rows of a tile (B_r) and consumer warpgroups.
    br: i64,
    wgs: i64,
    /// Query sequence length.
    sq: i64,
    qt: i64,
    tc: i64,
    heads: i64,
    /// Key blocks past the query tile's own (SEQLEN_K - SEQLEN) / 128: a causal mask
    /// is aligned at the bottom right, as FlashAttention aligns it.
    shift: i64,
    /// The same in keys (SEQLEN_K - SEQLEN).
    shiftk: i64,
    causal: bool,
}

impl Shape {
    fn from(p: &Params) -> Result<Shape, String> {
        let (batch, heads, sq) = (p.get("BATCH"), p.get("HEADS"), p.get("SEQLEN"));
        let sk = match p.get("SEQLEN_K") {
            0 => sq,
            v => v,
        };
        check_range("BATCH", batch, 1, 1 << 12)?;
        check_range("HEADS", heads, 1, 1 << 10)?;
        check_range("SEQLEN", sq, BR, 1 << 20)?;
        check_range("SEQLEN_K", sk, BC, 1 << 20)?;
        check_range("CAUSAL", p.get("CAUSAL"), 0, 1)?;
        let d = p.get("HEADDIM");
        if d != 64 && d != 128 {
            return Err(format!("HEADDIM={d} is not supported: 64 or 128"));
        }
        if sq % BR != 0 || sk % BC != 0 {
            return Err(format!(
                "SEQLEN={sq} and SEQLEN_K={sk} must be multiples of 128 (the tile); pad the sequence"
            ));
        }
        let causal = p.get("CAUSAL") == 1;
        if causal && sk < sq {
            return Err(format!(
                "CAUSAL=1 needs SEQLEN_K >= SEQLEN (got {sk} < {sq}): the first query rows would see no key"
            ));
        }
        // FA3's tile for the head dimension (hopper/flash_fwd_launch_template.h of the
        // paper's release): d = 64 runs 192-row tiles, the last one of a sequence partly
        // past its end (computed whole, stored clipped).
        let (br, wgs) = if d == 64 { (BR_D64, 3) } else { (BR, 2) };
        let (qt, tc) = ((sq + br - 1) / br, sk / BC);
        if batch * heads * qt > 1 << 22 {
            return Err(format!(
                "BATCH x HEADS x SEQLEN / 128 = {} CTAs is too many",
                batch * heads * qt
            ));
        }
        Ok(Shape {
            d,
            br,
            wgs,
            sq,
            qt,
            tc,
            heads: batch * heads,
            shift: (sk - sq) / BC,
            shiftk: sk - sq,
            causal,
        })
    }
    fn grid(&self) -> i64 {
        self.heads * self.qt
    }
    /// Bytes of a K or V block.
    fn block(&self) -> i64 {
        BC * self.d * 2
    }
    /// Bytes of the Q (or O) tile.
    fn qblock(&self) -> i64 {
        self.br * self.d * 2
    }
    /// Key blocks query tile `qi` reads: those holding a key up to its last row's
    /// diagonal.
    fn blocks(&self, qi: i64) -> i64 {
        if self.causal {
            (((qi + 1) * self.br + self.shiftk + BC - 1) / BC).min(self.tc)
        } else {
            self.tc
        }
    }
    /// The useful FLOPs of the whole problem as FlashAttention counts them: 4 S_q S_k d
    /// per head, or under the causal mask 4 d times the (query, key) pairs it keeps.
    fn flops(&self) -> i64 {
        let (sq, sk) = (self.sq, self.tc * BC);
        let pairs = if self.causal {
            sq * (sk - sq) + sq * (sq + 1) / 2
        } else {
            sq * sk
        };
        4 * pairs * self.d * self.heads
    }
}

pub fn build(schedule: &str, p: &Params) -> Result<isa::Kernel, String> {
    let shape = Shape::from(p)?;
    let pipe = p.get("PIPE");
    check_range("PIPE", pipe, 1, 3)?;
    check_range("SYNC_GROUPS", p.get("SYNC_GROUPS"), 0, 16)?;
    let (ws, pingpong, pipelined) = match schedule {
        "fa3" => (true, true, true),
        "fa3-no-pipelining" => (true, true, false),
        "fa3-no-pingpong" => (true, false, true),
        "fa3-no-ws" => (false, true, true),
        "fa2-like" => (false, false, false),
        other => return Err(format!("fa3-forward has no schedule `{other}`")),
    };
    let (grid, blk, tc) = (shape.grid(), shape.block(), shape.tc);
    // The CTA's query tile: FA3 walks a head's tiles in order, longest first under a
    // causal mask (its tile scheduler's reversed m-blocks), so the first wave takes the
    // heaviest tiles.
    let wide = shape.br != BC;
    let nb = if !shape.causal {
        "TC".to_string()
    } else if wide {
        format!(
            "min(TC, ((QT - cta % QT) * {} + {} + {}) / {BC})",
            shape.br,
            shape.shiftk,
            BC - 1
        )
    } else {
        "min(TC, QT - cta % QT + SHIFT)".to_string()
    };
    // A wide tile's diagonal crosses several blocks: those from the one holding its
    // first row's diagonal key on are masked.
    let mask_from = (shape.causal && wide).then(|| {
        format!(
            "((QT - 1 - cta % QT) * {} + {}) / {BC}",
            shape.br, shape.shiftk
        )
    });
    let wgs = shape.wgs as u32;
    let c = Cfg {
        ws,
        pingpong,
        pipelined,
        cw: if ws { "(warpgroup - 1)" } else { "warpgroup" },
        cwarp: if ws { "(warp - 4)" } else { "warp" },
        d: shape.d as u32,
        wgs,
        o: if wgs == 2 { O } else { O3 },
        qblk: if wide { "QBLK" } else { "BLK" },
        mask_from,
        nb,
        causal: shape.causal,
        sync_groups: p.get("SYNC_GROUPS") as u32,
    };
    let threads = 128 * (wgs + u32::from(ws));
    // setmaxnreg 24 for the producer warpgroup, 240 for the consumers: 168 at launch
    // (FA3's 12 warps); with three consumer warpgroups 32 and 160, 128 at launch (its
    // 16 warps, flash_fwd_kernel.h). Without a producer the launch's share.
    let (regs, reg_producer, reg_consumer) = match (ws, wgs) {
        (true, 2) => (168, 24, 240),
        (true, _) => (128, 32, 160),
        (false, 2) => (240, 0, 0),
        (false, _) => (168, 0, 0),
    };
    let name = format!("fa3_{}", schedule.replace('-', "_"));
    // K and V of every (batch, head), T_c blocks each; PIPE blocks of slack because the
    // range check does not narrow by the `if` guarding a refill past the last block.
    let kv = (shape.heads * tc + pipe) * blk;
    let qblk = shape.qblock();
    let blocks: i64 = (0..shape.qt).map(|qi| shape.blocks(qi)).sum::<i64>() * shape.heads;
    let mut b = KernelBuilder::new(&name, threads)
        .regs(regs)
        .grid(grid as u32)
        .buffer("Q", (grid * qblk) as u64)
        .buffer("K", kv as u64)
        .buffer("V", kv as u64)
        .buffer("O", (grid * qblk) as u64)
        .shared("sQ", qblk as u32)
        .shared("sK", (pipe * blk) as u32)
        .shared("sV", (pipe * blk) as u32)
        .mbarrier("q_full", 1, 1)
        .mbarrier("k_full", pipe as u32, 1)
        .mbarrier("v_full", pipe as u32, 1)
        // Every consumer warp releases a stage it read.
        .mbarrier("k_empty", pipe as u32, 4 * wgs)
        .mbarrier("v_empty", pipe as u32, 4 * wgs);
    // A scheduler barrier per consumer warpgroup (ids 1..), then one per warpgroup for
    // its epilogue.
    if pingpong {
        for w in 0..wgs {
            b = b.named_barrier(&format!("sched{w}"), w + 1, 128 * wgs);
        }
    }
    for w in 0..wgs {
        b = b.named_barrier(&format!("epi{w}"), wgs + 1 + w, 128);
    }
    if wide {
        b = b.param("QBLK", qblk);
    }
    b = b
        .param("TC", tc)
        .param("QT", shape.qt)
        .param("SHIFT", shape.shift)
        .param("PIPE", pipe)
        .param("BLK", blk)
        // Per CTA, the grid's average: the useful FLOPs (a causal tile's masked half of
        // its diagonal block is work done but not counted, as FlashAttention counts),
        // and Q, O and the K/V blocks each CTA reads.
        .work_flops(format!("{}", shape.flops() / grid))
        .work_bytes(format!("{}", (2 * grid * qblk + 2 * blocks * blk) / grid));
    let k = if ws {
        let nb = c.nb.clone();
        let qb = c.qblk;
        b.role("producer", 0, 0, Some(reg_producer), |b| {
            load_q(b, qb);
            load(b, "K", "0");
            b.loop_("j", 1, "TC", |b| {
                b.if_(format!("j < {nb}"), |b| {
                    load(b, "K", "j");
                    load(b, "V", "(j - 1)");
                });
            });
            load(b, "V", &format!("({nb} - 1)"));
            b.ins("EXIT");
        })
        .role("idle", 1, 3, Some(reg_producer), |b| {
            b.ins("EXIT");
        })
        .role("consumer", 4, 3 + 4 * wgs, Some(reg_consumer), |b| {
            consumer(b, &c)
        })
    } else {
        b.role("consumer", 0, 4 * wgs - 1, None, |b| consumer(b, &c))
    };
    Ok(k.build())
}

/// Q's tile; `qb` its bytes' parameter.
fn load_q(b: &mut BodyBuilder, qb: &str) {
    b.ins(format!(
        "SYNCS.ARRIVE.TRANS64.EXPECT_TX q_full[0], bytes={qb}"
    ));
    b.ins(format!(
        "UTMALDG.2D sQ[0], Q[cta * {qb}], bytes={qb}, bar=q_full[0]"
    ));
}

/// The producer's load of block `j` of `K` or `V` once its stage is free.
fn load(b: &mut BodyBuilder, t: &str, j: &str) {
    let l = t.to_lowercase();
    b.ins(format!(
        "SYNCS.PHASECHK.TRANS64.TRYWAIT {l}_empty[{j} % PIPE], parity=(({j} / PIPE) & 1) ^ 1"
    ));
    fill(b, t, &format!("{j} % PIPE"), j);
}

/// Block `block` of the CTA's head's K or V into a stage: every query tile of a head
/// reads the same blocks (`cta / QT` is the head), so the CTAs of a wave that share a
/// head share the lines in L2.
fn fill(b: &mut BodyBuilder, t: &str, stage: &str, block: &str) {
    let l = t.to_lowercase();
    b.ins(format!(
        "SYNCS.ARRIVE.TRANS64.EXPECT_TX {l}_full[{stage}], bytes=BLK"
    ));
    b.ins(format!(
        "UTMALDG.2D s{t}[({stage}) * BLK], {t}[((cta / QT) * TC + {block}) * BLK], bytes=BLK, bar={l}_full[{stage}]"
    ));
}

/// No-ws: warp 0 refills the K stage of block `a` (when both warpgroups released it) with
/// block a + PIPE, and the V stage of block `c` with c + PIPE.
fn static_loads(b: &mut BodyBuilder, c: &Cfg, a: Option<&str>, v: Option<&str>) {
    if c.ws {
        return;
    }
    b.if_("warp == 0", |b| {
        for (t, j) in [("K", a), ("V", v)] {
            let Some(j) = j else { continue };
            let l = t.to_lowercase();
            b.if_(format!("{j} + PIPE < {}", c.nb), |b| {
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

/// GEMM0: S (registers from `s`) = Q_rows K_j^T, d / 16 k-steps, one wgmma group.
fn gemm0(b: &mut BodyBuilder, c: &Cfg, s: u32, j: &str) {
    b.ins("WARPGROUP.ARRIVE");
    let steps = c.d / 16;
    for k in 0..steps {
        let gsb = if k == steps - 1 { ", gsb0" } else { "" };
        b.ins(format!(
            "HGMMA.64x128x16.F32.F16 R{s}, sQ[{} * (BLK / 2) + {}], sK[({j} % PIPE) * BLK + {}]{gsb}",
            c.cw,
            k * 32,
            k * 32
        ));
    }
}

/// GEMM1: O += P V_j with P (FP16, converted in place in S's registers) as the A operand,
/// eight k-steps over the block's 128 keys.
fn gemm1(b: &mut BodyBuilder, c: &Cfg, s: u32, j: &str) {
    b.ins("WARPGROUP.ARRIVE");
    for k in 0..8u32 {
        let gsb = if k == 7 { ", gsb0" } else { "" };
        b.ins(format!(
            "HGMMA.64x{}x16.F32.F16 R{}, R{}, sV[({j} % PIPE) * BLK + {}]{gsb}",
            c.d,
            c.o,
            s + 4 * k,
            k * 32 * c.d
        ));
    }
}

/// Pingpong: wait for this warpgroup's turn at the tensor cores.
fn sched_sync(b: &mut BodyBuilder, c: &Cfg) {
    if c.pingpong {
        b.ins(format!("BAR.SYNC {} + 1, {}", c.cw, 128 * c.wgs));
    }
}

/// Pingpong: hand the turn to the other warpgroup. The second warpgroup skips its last
/// hand-over (`last` is the condition that this is the last one) so that every barrier
/// phase completes.
///
/// Three warpgroups take turns in order as FA3's `scheduler_barrier_arrive` orders them
/// (mainloop_fwd_sm90_tma_gmma_ws.hpp of the paper's release): each arrives on both
/// others' barriers (384 threads: a turn needs the other two to have issued since this
/// warpgroup's last). On its last turn a warpgroup arrives only on the barriers of the
/// warpgroups after it, which still have a turn to take.
fn sched_arrive(b: &mut BodyBuilder, c: &Cfg, last: &str) {
    if !c.pingpong {
        return;
    }
    if c.wgs == 2 {
        b.if_(format!("({} == 0) | ({last} == 0)", c.cw), |b| {
            b.ins(format!("BAR.ARV 2 - {}, 256", c.cw));
        });
        return;
    }
    for t in 0..c.wgs {
        b.if_(
            format!("({cw} != {t}) & (({last} == 0) | ({cw} < {t}))", cw = c.cw),
            |b| {
                b.ins(format!("BAR.ARV {}, {}", t + 1, 128 * c.wgs));
            },
        );
    }
}

/// Pingpong's first turn goes to the first warpgroup. With three, FA3's `mma_init`: each
/// warpgroup arrives on the barriers of those before it, so that the first needs no
/// turn of the others and the second only the first's.
fn sched_init(b: &mut BodyBuilder, c: &Cfg) {
    if !c.pingpong {
        return;
    }
    if c.wgs == 2 {
        b.if_(format!("{} == 0", c.cw), |b| {
            b.ins("BAR.ARV 1, 256");
        });
        return;
    }
    for t in 0..c.wgs - 1 {
        b.if_(format!("{} > {t}", c.cw), |b| {
            b.ins(format!("BAR.ARV {}, {}", t + 1, 128 * c.wgs));
        });
    }
}

/// The causal mask on the diagonal block (`j` the block): each of the thread's 64 S
/// values is compared with its column's limit (an ISETP per column pair) and set to
/// -inf past it (a SEL each), before the row max.
fn mask(b: &mut BodyBuilder, c: &Cfg, s: u32, j: &str) {
    if !c.causal {
        return;
    }
    let cond = match &c.mask_from {
        Some(from) => format!("{j} >= {from}"),
        None => format!("{j} == {} - 1", c.nb),
    };
    b.if_(cond, |b| {
        for g in 0..32u32 {
            b.ins("ISETP.GE.AND P0, PT, R18, R19, PT");
            for t in 0..2u32 {
                let i = 2 * g + t;
                b.ins(format!("SEL R{}, R{}, R6, P0", s + i, s + i));
            }
        }
    });
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
    softmax_head(b, s, first, 16);
    softmax_tail(b, s, first, 16);
}

/// The softmax up to its exponentials' group `groups` (of 16, four exponentials each):
/// the row max, the rescale factor, every scaled FFMA, the first `groups` groups'
/// exponentials and the row sums trailing them. `softmax_tail` with the same `groups`
/// does the rest; with 16 the two are the whole softmax in its order.
fn softmax_head(b: &mut BodyBuilder, s: u32, first: bool, groups: u32) {
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
    for g in 0..16u32 {
        for t in 0..4u32 {
            let i = 4 * g + t;
            b.ins(format!("FFMA R{}, R{}, R7, R{}", s + i, s + i, 16 + row(i)));
        }
        if g < groups {
            exp_group(b, s, g);
        }
    }
}

/// The exponentials of group `g` and the row sums of group g - 2 behind them.
fn exp_group(b: &mut BodyBuilder, s: u32, g: u32) {
    for t in 0..4u32 {
        let i = 4 * g + t;
        b.ins(format!("MUFU.EX2 R{}, R{}", s + i, s + i));
    }
    if g >= 2 {
        row_sum(b, s, g - 2);
    }
}

/// The row sums of group `g`'s four values.
fn row_sum(b: &mut BodyBuilder, s: u32, g: u32) {
    for t in 0..4u32 {
        let i = 4 * g + t;
        b.ins(format!("FADD R{}, R{}, R{}", chain(i), chain(i), s + i));
    }
}

/// The rest of the softmax after `softmax_head(.., groups)`: the exponentials from group
/// `groups` on, the last row sums, their reduction over the row's threads, the running
/// sum, and P packed to FP16 pairs.
fn softmax_tail(b: &mut BodyBuilder, s: u32, first: bool, groups: u32) {
    softmax_sums(b, s, first, groups);
    pack(b, s, s);
}

/// The online softmax without P's conversion (three consumer warpgroups convert into a
/// buffer apart once GEMM1 has read the previous P).
fn softmax_unpacked(b: &mut BodyBuilder, s: u32, first: bool) {
    softmax_head(b, s, first, 16);
    softmax_sums(b, s, first, 16);
}

/// `softmax_tail` up to P's conversion: the exponentials from group `groups` on, the
/// row sums and the running sum.
fn softmax_sums(b: &mut BodyBuilder, s: u32, first: bool, groups: u32) {
    for g in groups..16 {
        exp_group(b, s, g);
    }
    row_sum(b, s, 14);
    row_sum(b, s, 15);
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
}

/// P to FP16 pairs for GEMM1's register A operand: value pair (2q, 2q + 1) of S (from
/// `s`) into register q from `p` (in place in order, so no pair is overwritten before it
/// is read).
fn pack(b: &mut BodyBuilder, s: u32, p: u32) {
    for q in 0..32u32 {
        b.ins(format!(
            "F2FP.F16.F32.PACK_AB R{}, R{}, R{}",
            p + q,
            s + 2 * q + 1,
            s + 2 * q
        ));
    }
}

/// O *= the rescale factor of its row (the thread's d / 2 accumulator values).
fn rescale(b: &mut BodyBuilder, c: &Cfg) {
    for i in 0..c.d / 2 {
        let o = c.o + i;
        b.ins(format!("FMUL R{o}, R{o}, R{}", scale_reg(i)));
    }
}

fn consumer(b: &mut BodyBuilder, c: &Cfg) {
    if !c.ws {
        // Warp 0 fills the ring: Q, then the first PIPE blocks of K and V.
        b.if_("warp == 0", |b| {
            load_q(b, c.qblk);
            b.loop_("s", 0, "min(PIPE, TC)", |b| {
                b.if_(format!("s < {}", c.nb), |b| {
                    fill(b, "K", "s", "s");
                    fill(b, "V", "s", "s");
                });
            });
        });
    }
    sched_init(b, c);
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
fn consumer_pipelined(b: &mut BodyBuilder, c: &Cfg) {
    let nb = c.nb.as_str();
    // Three warpgroups (160 registers): one S buffer, P converted into `PB` once GEMM1
    // has read the previous P (FA3's order: after warpgroup_wait<0>).
    let split = c.wgs != 2;
    // Block 0: S_0 alone.
    wait_full(b, "k", "0");
    sched_sync(b, c);
    gemm0(b, c, SA, "0");
    sched_arrive(b, c, &format!("({nb} == 1)"));
    b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
    release(b, "k", "0");
    mask(b, c, SA, "0");
    if split {
        softmax_unpacked(b, SA, true);
        pack(b, SA, PB);
    } else {
        softmax(b, SA, true);
    }
    static_loads(b, c, Some("0"), None);
    let iter = |b: &mut BodyBuilder, j: &str, cur: u32, next: u32| {
        let (next, cur) = if split { (SA, PB) } else { (next, cur) };
        b.if_(format!("{j} < {nb}"), |b| {
            wait_full(b, "k", j);
            sched_sync(b, c);
            gemm0(b, c, next, j);
            let jm = format!("({j} - 1)");
            wait_full(b, "v", &jm);
            gemm1(b, c, cur, &jm);
            sched_arrive(b, c, &format!("({j} == {nb} - 1)"));
            // S_j is done once at most one group (GEMM1) is pending.
            b.ins("WARPGROUP.DEPBAR.LE gsb0, 1");
            release(b, "k", j);
            mask(b, c, next, j);
            if split {
                softmax_unpacked(b, next, false);
            } else {
                softmax(b, next, false);
            }
            b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
            release(b, "v", &jm);
            rescale(b, c);
            if split {
                pack(b, next, cur);
            }
            static_loads(b, c, Some(j), Some(&jm));
        });
    };
    // Blocks 1..TC-1 in pairs, so that S_next alternates between the two buffers.
    b.loop_("jj", 0, "(TC - 1) / 2", |b| {
        iter(b, "(1 + 2 * jj)", SA, SB);
        iter(b, "(2 + 2 * jj)", SB, SA);
    });
    b.if_("(TC - 1) % 2 == 1", |b| {
        iter(b, "(TC - 1)", SA, SB);
    });
    // The last P V: P of the last block is in buffer A when the count is odd, B when even.
    if split {
        last_gemm1(b, c, PB);
    } else {
        b.if_(format!("{nb} % 2 == 1"), |b| last_gemm1(b, c, SA));
        b.if_(format!("{nb} % 2 == 0"), |b| last_gemm1(b, c, SB));
    }
}

fn last_gemm1(b: &mut BodyBuilder, c: &Cfg, s: u32) {
    let last = format!("({} - 1)", c.nb);
    wait_full(b, "v", &last);
    gemm1(b, c, s, &last);
    b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
    release(b, "v", &last);
}

/// fa3-no-pipelining: pingpong, one S buffer (FA3's IntraWGOverlap=false loop). The
/// ordered region is GEMM1(j) (waited) then GEMM0(j+1); the softmax of S_{j+1} follows
/// its wait. In the order the compiled loop runs it: the row max, the scaling, the O
/// rescale and the first `SYNC_GROUPS` groups of exponentials before the sync; the rest
/// of the exponentials, the row sums and P's conversion after it, ahead of GEMM1, where
/// they hold the other warpgroup's turn back. (ptxas sinks them there: FA3's loop
/// compiled for an H100, pingpong.cu's MODE 1, has 22 of its 64 exponentials and none of
/// its 32 F2FP before the BAR.SYNC; crates/traces/seeds/data/pingpong.)
fn consumer_ordered(b: &mut BodyBuilder, c: &Cfg) {
    let nb = c.nb.as_str();
    let e = c.sync_groups;
    // Before the sync, and after it (at 16 the whole softmax before it, the source's order).
    let head = |b: &mut BodyBuilder, first: bool| {
        if e == 16 {
            softmax(b, SA, first);
        } else {
            softmax_head(b, SA, first, e);
        }
    };
    let tail = |b: &mut BodyBuilder, first: bool| {
        if e < 16 {
            softmax_tail(b, SA, first, e);
        }
    };
    wait_full(b, "k", "0");
    sched_sync(b, c);
    gemm0(b, c, SA, "0");
    sched_arrive(b, c, "0");
    b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
    release(b, "k", "0");
    mask(b, c, SA, "0");
    head(b, true);
    static_loads(b, c, Some("0"), None);
    b.loop_("j", 0, "TC", |b| {
        b.if_(format!("j < {nb}"), |b| {
            wait_full(b, "v", "j");
            sched_sync(b, c);
            if e < 16 {
                b.if_("j == 0", |b| tail(b, true));
                b.if_("j > 0", |b| tail(b, false));
            }
            gemm1(b, c, SA, "j");
            b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
            release(b, "v", "j");
            b.if_(format!("j + 1 < {nb}"), |b| {
                wait_full(b, "k", "(j + 1)");
                gemm0(b, c, SA, "(j + 1)");
            });
            sched_arrive(b, c, &format!("(j == {nb} - 1)"));
            b.if_(format!("j + 1 < {nb}"), |b| {
                b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
                release(b, "k", "(j + 1)");
                mask(b, c, SA, "(j + 1)");
                head(b, false);
                rescale(b, c);
            });
            static_loads(b, c, Some("(j + 1)"), Some("j"));
        });
    });
}

/// fa2-like: GEMM0, wait, softmax, rescale, GEMM1, wait, per block.
fn consumer_sync(b: &mut BodyBuilder, c: &Cfg) {
    b.loop_("j", 0, "TC", |b| {
        b.if_(format!("j < {}", c.nb), |b| {
            wait_full(b, "k", "j");
            gemm0(b, c, SA, "j");
            b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
            release(b, "k", "j");
            mask(b, c, SA, "j");
            b.if_("j == 0", |b| softmax(b, SA, true));
            b.if_("j > 0", |b| {
                softmax(b, SA, false);
                rescale(b, c);
            });
            wait_full(b, "v", "j");
            gemm1(b, c, SA, "j");
            b.ins("WARPGROUP.DEPBAR.LE gsb0, 0");
            release(b, "v", "j");
            static_loads(b, c, Some("j"), Some("j"));
        });
    });
}

/// O /= l, converted to FP16 and staged through this warpgroup's half of sQ (free after
/// its last GEMM0: a warp's 16 rows x d, 512 bytes a STS.128), stored with one TMA store
/// per warpgroup.
fn epilogue(b: &mut BodyBuilder, c: &Cfg) {
    b.ins("MUFU.RCP R4, R2");
    b.ins("MUFU.RCP R22, R3");
    b.ins("MOV R5, R4");
    b.ins("MOV R23, R22");
    rescale(b, c);
    for s in 0..c.d / 16 {
        b.ins(format!(
            "STS.128 sQ[{} * {} + {s} * 512 + lane * 16], R{}",
            c.cwarp,
            32 * c.d,
            c.o + 4 * s
        ));
    }
    b.ins("FENCE.PROXY.ASYNC");
    b.ins(format!("BAR.SYNC {} + {}, 128", c.cw, c.wgs + 1));
    b.if_("warp % 4 == 0", |b| {
        b.ins(format!(
            "UTMASTG.2D O[(cta * {} + {}) * (BLK / 2)], sQ[{} * (BLK / 2)], bytes=BLK / 2",
            c.wgs, c.cw, c.cw
        ));
        b.ins("UTMACMDFLUSH");
        b.ins("DEPBAR.LE SB1, 0");
    });
    b.ins("EXIT");
}
