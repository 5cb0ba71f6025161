//! singe-viscosity (seed 004, Singe, PPoPP 2014): the viscosity of a combustion mixture at
//! each grid point, in double precision, from SPECIES per-species viscosities:
//!
//!   s_k = sqrt(vis_k),  vis_k = exp(poly3(T));
//!   nu  = sum_k x_k vis_k / den_k,  den_k = sum_j x_j * f(s_k, s_j; c_kj, d_kj)
//!
//! where each of the SPECIES^2 pairs loads two double constants (c_kj, d_kj) and costs 14
//! FP64 operations (the seed: 2 DADD, 2 DMUL, 10 DFMA, all issued here as DFMA: two
//! dependent chains of six, joined, then accumulated into den_k).
//!
//! - `data-parallel`: one thread per point, WARPS x 32 points per CTA, 255 registers. The
//!   working set keeps x_j and s_j (two doubles, four registers) for every species live
//!   across the pair loops; with 32 registers of temporaries, FIT = (255 - 32) / 4 species
//!   fit (rounded down to even) and the rest are spilled: the prologue STL.128s them, and
//!   every pair with a spilled j reloads them with LDL.128 just before use (no free
//!   registers to load them earlier). The pair constants are warp-uniform
//!   LDG.E.CONSTANT.128 loads, also issued just before use. Pairs are unrolled two wide.
//! - `warp-specialized`: Singe's partition. A CTA of WARPS warps works on 32 points at a
//!   time (lane = point), WARPS batches of them, so both schedules cover the same points
//!   with the same grid. Warp w owns species k in [w*SL, (w+1)*SL), SL = ceil(SPECIES /
//!   WARPS): it computes x_k, s_k for them and publishes them through shared memory
//!   (double-buffered by batch; a BAR.SYNC on barrier 1 + batch % 2 by every warp, each
//!   being a producer of its slice and a consumer of the others'), then runs the pairs of
//!   its own k for every j, reading x_j, s_j with LDS and its pair constants from
//!   registers (Singe's constant deduplication, paper section 5.2, is taken as given; no
//!   loads), keeping den_k in registers: no spills. The per-warp partial sums of nu go
//!   through shared memory to warp 0: the other warps BAR.ARV on barrier 3 + batch % 2
//!   (producers), warp 0 BAR.SYNCs on it (consumer), adds and stores.

use isa::builder::{BodyBuilder, KernelBuilder};

use crate::{Family, ParamSpec, Params, Schedule, check_range};

pub const FAMILY: Family = Family {
    name: "singe-viscosity",
    description: "combustion viscosity over SPECIES^2 species pairs in FP64: spilling data-parallel vs Singe's warp specialization (seed 004)",
    profile: "h100",
    schedules: &[
        Schedule {
            name: "data-parallel",
            description: "a thread per point at 255 registers; species beyond the budget spill to local memory",
        },
        Schedule {
            name: "warp-specialized",
            description: "each warp owns a slice of species, constants in registers, named-barrier exchange",
        },
    ],
    params: &[
        ParamSpec {
            name: "SPECIES",
            default: 30,
            help: "species N (N^2 pairs; the seed's DME mechanism has 30 after QSSA, heptane 52); the data-parallel kernel spills once 4N + 32 registers exceed 255 (N > 55)",
        },
        ParamSpec {
            name: "WARPS",
            default: 8,
            help: "warps per CTA (1..=8 at 255 registers); a CTA covers WARPS x 32 points",
        },
        ParamSpec {
            name: "POINTS",
            default: 32768,
            help: "grid points (the seed's grids are 32^3, 64^3 and 128^3); CTAs = POINTS / (WARPS x 32), rounded up",
        },
    ],
    seed_params: &[("SPECIES", 52), ("POINTS", 262144)],
    build,
};

/// Registers of temporaries in the data-parallel kernel (R0..R31); the rest hold species.
const RESERVED: i64 = 32;

pub fn build(schedule: &str, p: &Params) -> Result<isa::Kernel, String> {
    let n = p.get("SPECIES");
    let w = p.get("WARPS");
    check_range("SPECIES", n, 2, 512)?;
    check_range("WARPS", w, 1, 8)?;
    check_range("POINTS", p.get("POINTS"), 1, 1 << 24)?;
    // Every CTA covers WARPS x 32 points; the last one's tail is padding (the buffers
    // are sized for the whole grid, so its loads stay in bounds).
    let grid = (p.get("POINTS") + w * 32 - 1) / (w * 32);
    let points = grid * w * 32;
    let fit = ((255 - RESERVED) / 4 / 2 * 2).min(n);
    let name = format!("viscosity_{}", schedule.replace('-', "_"));
    let b = KernelBuilder::new(&name, (w * 32) as u32)
        .regs(255)
        .grid(grid as u32)
        .buffer("T", (points * 8) as u64)
        .buffer("X", (n * points * 8) as u64)
        .buffer("C", (n * n * 16) as u64)
        .buffer("Out", (points * 8) as u64)
        .param("N", n)
        .param("WARPS", w)
        .param("POINTS", points)
        .work_flops("2 * 14 * N * N * 32 * WARPS");
    let k = match schedule {
        "data-parallel" => b
            .param("FIT", fit)
            .role("point", 0, (w - 1) as u32, None, |b| data_parallel(b, n)),
        "warp-specialized" => {
            let sl = (n + w - 1) / w;
            b.param("SL", sl)
                // x_k, s_k of every species for 32 points, two batches.
                .shared("sXS", (2 * n * 512) as u32)
                // Each warp's partial nu for 32 points, two batches.
                .shared("sP", (2 * w * 256) as u32)
                .named_barrier("xs_full0", 1, (w * 32) as u32)
                .named_barrier("xs_full1", 2, (w * 32) as u32)
                .named_barrier("part_full0", 3, (w * 32) as u32)
                .named_barrier("part_full1", 4, (w * 32) as u32)
                .role("species", 0, (w - 1) as u32, None, |b| {
                    specialized(b, w, sl)
                })
        }
        other => return Err(format!("singe-viscosity has no schedule `{other}`")),
    };
    Ok(k.build())
}

/// x_j (R{x}, R{x}+1) and s_j (R{x}+2, +3) of a species from T in R0: LDG of x, a cubic
/// in T, an exp (MUFU on the FP32 approximation, refined in FP64) and a square root
/// (MUFU.RSQ, refined).
fn species_prologue(b: &mut BodyBuilder, x: u32, addr: &str) {
    b.ins(format!("LDG.E.64 R{x}, X[{addr}]"));
    b.ins("DFMA R8, R0, R0, R0");
    b.ins("DFMA R8, R8, R0, R0");
    b.ins("DFMA R8, R8, R0, R0");
    b.ins("MUFU.EX2 R10, R8");
    b.ins("DFMA R12, R10, R10, R8");
    b.ins("DFMA R12, R12, R10, R8");
    b.ins("MUFU.RSQ R10, R12");
    b.ins(format!("DFMA R{}, R10, R12, R12", x + 2));
    b.ins(format!("DFMA R{}, R{}, R10, R12", x + 2, x + 2));
}

/// One pair: 14 DFMA. `sk`: s_k; `xj`: x_j (s_j at xj + 2); `c`: the constants (c_kj
/// at c, d_kj at c + 2); `t`: four temporaries; `den`: the accumulator.
fn pair_text(sk: u32, xj: u32, c: u32, t: u32, den: u32) -> Vec<String> {
    let (t0, t1, sj, d) = (t, t + 2, xj + 2, c + 2);
    let mut v = vec![
        format!("DFMA R{t0}, R{sk}, R{sj}, R{c}"),
        format!("DFMA R{t1}, R{sj}, R{d}, R{c}"),
    ];
    for _ in 0..5 {
        v.push(format!("DFMA R{t0}, R{t0}, R{t0}, R{c}"));
        v.push(format!("DFMA R{t1}, R{t1}, R{d}, R{c}"));
    }
    v.push(format!("DFMA R{t0}, R{t0}, R{t1}, R{d}"));
    v.push(format!("DFMA R{den}, R{xj}, R{t0}, R{den}"));
    v
}

type Slot = (u32, u32, u32, u32, u32);

fn pair(b: &mut BodyBuilder, a: Slot) {
    for i in pair_text(a.0, a.1, a.2, a.3, a.4) {
        b.ins(i);
    }
}

/// Two pairs interleaved instruction by instruction (the unroll a compiler does).
fn pair2(b: &mut BodyBuilder, a: Slot, c: Slot) {
    let x = pair_text(a.0, a.1, a.2, a.3, a.4);
    let y = pair_text(c.0, c.1, c.2, c.3, c.4);
    for (i, j) in x.into_iter().zip(y) {
        b.ins(i);
        b.ins(j);
    }
}

/// ν for one point per thread. Registers: R0 T, R2 ν, R4..R7 x_k/s_k, R8..R15
/// temporaries and den (R12 for even j, R14 for odd j), slot u of the pair unroll: R16+16u
/// the constants, R20+16u x_j/s_j reloaded, R24+16u temporaries; species held in
/// registers appear as R48 + 4u (their dependencies are what matter to the timing).
fn data_parallel(b: &mut BodyBuilder, n: i64) {
    let pt = "((cta * WARPS + warp) * 32 + lane)";
    b.ins(format!("LDG.E.64 R0, T[{pt} * 8]"));
    // x_j, s_j for every species; those beyond FIT are spilled.
    b.loop_("j", 0, "N", |b| {
        species_prologue(b, 4, &format!("(j * POINTS + {pt}) * 8"));
        b.if_("j >= FIT", |b| {
            b.ins("STL.128 local[(j - FIT) * 16], R4");
        });
    });
    b.loop_("k", 0, "N", |b| {
        b.ins("DFMA R12, RZ, RZ, RZ");
        b.ins("DFMA R14, RZ, RZ, RZ");
        b.if_("k >= FIT", |b| {
            b.ins("LDL.128 R4, local[(k - FIT) * 16]");
        });
        // Two pairs at a time: j = 2 jj and 2 jj + 1 (FIT is even, so both spilled or not).
        b.loop_("jj", 0, "N / 2", |b| {
            for u in 0..2 {
                b.ins(format!(
                    "LDG.E.CONSTANT.128 R{}, C[(k * N + 2 * jj + {u}) * 16]",
                    16 + 16 * u
                ));
            }
            b.if_("2 * jj >= FIT", |b| {
                for u in 0..2 {
                    b.ins(format!(
                        "LDL.128 R{}, local[(2 * jj + {u} - FIT) * 16]",
                        20 + 16 * u
                    ));
                }
                pair2(b, (6, 20, 16, 24, 12), (6, 36, 32, 40, 14));
            });
            b.if_("2 * jj < FIT", |b| {
                pair2(b, (6, 48, 16, 24, 12), (6, 52, 32, 40, 14));
            });
        });
        if n % 2 == 1 {
            b.ins("LDG.E.CONSTANT.128 R16, C[(k * N + N - 1) * 16]");
            b.if_("N - 1 >= FIT", |b| {
                b.ins("LDL.128 R20, local[(N - 1 - FIT) * 16]");
                pair(b, (6, 20, 16, 24, 12));
            });
            b.if_("N - 1 < FIT", |b| pair(b, (6, 48, 16, 24, 12)));
        }
        // nu += x_k s_k^2 / den_k.
        b.ins("DFMA R12, R12, R14, R12");
        b.ins("MUFU.RCP R9, R13");
        b.ins("DFMA R10, R12, R8, R8");
        b.ins("DFMA R8, R8, R10, R8");
        b.ins("DFMA R10, R6, R6, R8");
        b.ins("DFMA R2, R4, R10, R2");
    });
    b.ins(format!("STG.E.64 Out[{pt} * 8], R2"));
    b.ins("EXIT");
}

/// Registers: R0 T, R2 partial ν, R4..R15 temporaries, R20..R23 x_j/s_j from shared
/// memory, species slot kk: s_k at R32 + 4kk, den_k at R34 + 4kk; pair temporaries
/// R96 + 4 (kk % 8); the pair constants (held in registers) R160 + 4 (kk % 16).
fn specialized(b: &mut BodyBuilder, w: i64, sl: i64) {
    let own = |kk: i64| format!("warp * SL + {kk}");
    b.loop_("bt", 0, "WARPS", |b| {
        let pt = "((cta * WARPS + bt) * 32 + lane)";
        b.ins(format!("LDG.E.64 R0, T[{pt} * 8]"));
        // Phase 1: this warp's species for the batch's 32 points, published in sXS.
        for kk in 0..sl {
            let k = own(kk);
            b.if_(format!("{k} < N"), |b| {
                species_prologue(b, 4, &format!("(({k}) * POINTS + {pt}) * 8"));
                b.ins(format!(
                    "STS.128 sXS[((bt % 2) * N + {k}) * 512 + lane * 16], R4"
                ));
                b.ins(format!("DFMA R{}, RZ, RZ, R6", 32 + 4 * kk));
            });
        }
        // Everyone's slice is in shared memory (each warp a producer and a consumer).
        b.ins("BAR.SYNC 1 + bt % 2, WARPS * 32");
        // Phase 2: every j against this warp's k, constants in registers.
        b.loop_("j", 0, "N", |b| {
            b.ins("LDS.128 R20, sXS[((bt % 2) * N + j) * 512 + lane * 16]");
            let mut kk = 0;
            while kk < sl {
                if kk + 1 < sl {
                    pair2(b, slot(kk), slot(kk + 1));
                    kk += 2;
                } else {
                    pair(b, slot(kk));
                    kk += 1;
                }
            }
        });
        // Partial nu over this warp's species (slots past N hold no species: skip them).
        b.ins("DFMA R2, RZ, RZ, RZ");
        for kk in 0..sl {
            b.if_(format!("{} < N", own(kk)), |b| {
                let (s, _, _, _, d) = slot(kk);
                b.ins(format!("MUFU.RCP R9, R{}", d + 1));
                b.ins(format!("DFMA R10, R{d}, R8, R8"));
                b.ins("DFMA R8, R8, R10, R8");
                b.ins(format!("DFMA R10, R{s}, R{s}, R8"));
                b.ins("DFMA R2, R4, R10, R2");
            });
        }
        b.ins("STS.64 sP[((bt % 2) * WARPS + warp) * 256 + lane * 8], R2");
        if w > 1 {
            b.if_("warp > 0", |b| {
                b.ins("BAR.ARV 3 + bt % 2, WARPS * 32");
            });
        }
        b.if_("warp == 0", |b| {
            if w > 1 {
                b.ins("BAR.SYNC 3 + bt % 2, WARPS * 32");
            }
            b.loop_("v", 1, "WARPS", |b| {
                b.ins("LDS.64 R8, sP[((bt % 2) * WARPS + v) * 256 + lane * 8]");
                b.ins("DFMA R2, R8, R8, R2");
            });
            b.ins(format!("STG.E.64 Out[{pt} * 8], R2"));
        });
    });
    b.ins("EXIT");
}

/// (s_k, x_j, constants, temporaries, den_k) of species slot kk in the specialized kernel.
fn slot(kk: i64) -> Slot {
    let kk = kk as u32;
    (
        32 + 4 * kk,
        20,
        160 + 4 * (kk % 16),
        96 + 4 * (kk % 8),
        32 + 4 * kk + 2,
    )
}
