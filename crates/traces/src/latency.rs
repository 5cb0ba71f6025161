//! latency-hiding (seed 003): every thread chases its own chain. Each iteration loads
//! R1 (overwriting the last value, so the load waits for the FFMA chain that read it)
//! and runs K dependent FFMAs on it. Lanes read different lines, so a warp-load is 32
//! line requests. Cycles per iteration against WARPS and K is the occupancy / ILP lesson.
//!
//! FOOTPRINT is the bytes of one thread's chain (it wraps); with L1=1 loads go through
//! L1 (`LDG.E`), with L1=0 they skip it (`LDG.E.CG`) so a small footprint lives in L2 and
//! one larger than ITERS x 128 bytes streams from HBM.

use isa::builder::KernelBuilder;

use crate::{Family, ParamSpec, Params, Schedule, check_range};

pub const FAMILY: Family = Family {
    name: "latency-hiding",
    description: "pointer chase + K dependent FFMAs per load, per warp (seed 003)",
    profile: "h100",
    schedules: &[Schedule {
        name: "chase",
        description: "each thread: load, K dependent FFMAs, next load (WAW on R1)",
    }],
    params: &[
        ParamSpec {
            name: "WARPS",
            default: 8,
            help: "warps per CTA (1..=32)",
        },
        ParamSpec {
            name: "K",
            default: 1,
            help: "dependent FFMAs per loaded value",
        },
        ParamSpec {
            name: "FOOTPRINT",
            default: 1024,
            help: "bytes of each thread's chain (multiple of 128)",
        },
        ParamSpec {
            name: "L1",
            default: 0,
            help: "1: loads cached in L1 (LDG.E); 0: L2 only (LDG.E.CG)",
        },
        ParamSpec {
            name: "ITERS",
            default: 64,
            help: "loads per thread",
        },
    ],
    seed_params: &[],
    build,
};

pub fn build(schedule: &str, p: &Params) -> Result<isa::Kernel, String> {
    if schedule != "chase" {
        return Err(format!("latency-hiding has no schedule `{schedule}`"));
    }
    let warps = p.get("WARPS");
    let k = p.get("K");
    let fp = p.get("FOOTPRINT");
    let iters = p.get("ITERS");
    check_range("WARPS", warps, 1, 32)?;
    check_range("K", k, 0, 4096)?;
    check_range("ITERS", iters, 1, 1 << 20)?;
    check_range("L1", p.get("L1"), 0, 1)?;
    if fp < 128 || fp % 128 != 0 {
        return Err(format!("FOOTPRINT={fp} must be a positive multiple of 128"));
    }
    let lines = fp / 128;
    let ld = if p.get("L1") == 1 {
        "LDG.E"
    } else {
        "LDG.E.CG"
    };
    let total = (warps * 32 * fp) as u64;
    let kb = KernelBuilder::new("latency_chase", (warps * 32) as u32)
        .regs(32)
        .grid(1)
        .buffer("P", total)
        .param("K", k)
        .param("ITERS", iters)
        .param("LINES", lines)
        .work_flops("2 * 32 * K * ITERS * WARPS")
        .work_bytes("4 * 32 * ITERS * WARPS")
        .param("WARPS", warps)
        .role("chase", 0, (warps - 1) as u32, None, |b| {
            b.ins("MOV R2, RZ");
            b.ins("MOV R3, RZ");
            b.loop_("i", 0, "ITERS", |b| {
                b.ins(format!(
                    "{ld} R1, P[((warp * 32 + lane) * LINES + i % LINES) * 128]"
                ));
                b.loop_("j", 0, "K", |b| {
                    b.ins("FFMA R1, R1, R2, R3");
                });
            });
            b.ins("EXIT");
        });
    Ok(kb.build())
}
