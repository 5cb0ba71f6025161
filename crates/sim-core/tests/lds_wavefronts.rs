//! `lat_lds_conflict_wave` and `lat_lds_width_wave`: a shared load's wavefronts after its
//! first lengthen its result latency beyond their turns at the crossbar, by one figure
//! for those its width takes (LDS.64, LDS.128) and another for bank-conflict replays
//! (`data/gaps/ldsw/`, `data/gaps/ldsw2/`: one warp's chains 23, 27.38 and 33.88 cycles
//! a link for LDS.32, .64 and .128, 25 and 29 at 2 and 4 lanes a bank). Stores keep
//! theirs. The h100 profile has the conflict's figure and the width's off.

use sim_core::{Profile, RunConfig, run};

fn cycles(src: &str, p: &Profile) -> u64 {
    let k = isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)));
    run(&k, p, &RunConfig::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .cycles
}

/// Cycles a link of one warp's chain of `ins` (each load overwrites R4, so it waits
/// for the one before): the slope from 64 to 128 links.
fn per_link(ins: &str, p: &Profile) -> u64 {
    let src = |n: u64| {
        format!(
            "kernel k\nlaunch cta_threads=32 regs=64 smem=4096 grid=1\nshared s size=4096\nrole main warps=0..0\n  loop i 0..{n}\n    {ins}\n  EXIT\n"
        )
    };
    let (a, b) = (cycles(&src(64), p), cycles(&src(128), p));
    assert_eq!((b - a) % 64, 0, "{ins}: {a} -> {b}");
    (b - a) / 64
}

/// By hand: a load issued at f takes its `fronts` crossbar turns of 128 /
/// `smem_bytes_per_clk` cycles from f, and its data is there `lat_lds` - 1 cycles after
/// the cycle that ends them and the extra latency of its wavefronts after the first
/// (`conflicts` replays and `wide` - 1 for its width); the next load of the chain issues
/// then.
fn by_hand(p: &Profile, fronts: u32, wide: u32) -> u64 {
    let t = &p.t;
    let turns = f64::from(fronts) * 128.0 / t.smem_bytes_per_clk;
    let extra = f64::from(fronts - wide) * t.lat_lds_conflict_wave
        + f64::from(wide - 1) * t.lat_lds_width_wave;
    (turns + extra).ceil() as u64 + t.lat_lds as u64 - 1
}

/// The h100 profile with the width's extra at its measured value (the profile keeps it
/// off: `ldsw2/`): the LDS.128 chain's 33.88 cycles less the engine's 26 without it
/// (`lat_lds` and four crossbar turns), over its three wavefronts after the first.
fn measured() -> Profile {
    let mut p = Profile::builtin("h100").unwrap();
    assert_eq!(p.t.lat_lds_width_wave, 0.0);
    let without = by_hand(&p, 4, 4);
    p.set("lat_lds_width_wave", (33.88 - without as f64) / 3.0)
        .unwrap();
    p
}

#[test]
fn a_wide_or_conflicted_load_takes_its_wavefronts_latency() {
    let p = measured();
    let cases = [
        // (instruction, wavefronts, of them the width's)
        ("LDS R4, s[lane * 4]", 1, 1),
        ("LDS.64 R4, s[lane * 8]", 2, 2),
        ("LDS.128 R4, s[lane * 16]", 4, 4),
        ("LDS R4, s[lane * 8]", 2, 1),
        ("LDS R4, s[lane * 16]", 4, 1),
        // four lanes a bank at 16 bytes each: 8 wavefronts, 4 of them the width's
        ("LDS.128 R4, s[lane * 32 % 2048]", 8, 4),
    ];
    for (ins, fronts, wide) in cases {
        assert_eq!(per_link(ins, &p), by_hand(&p, fronts, wide), "{ins}");
    }
    // the measured chains, to the cycle (the GPU's 27.38 and 33.88 round to these)
    let measured: Vec<u64> = cases[..5].iter().map(|c| per_link(c.0, &p)).collect();
    assert_eq!(measured, [23, 27, 34, 25, 29]);
}

#[test]
fn without_the_extra_a_wavefront_costs_its_crossbar_turn_alone() {
    let mut p = Profile::builtin("h100").unwrap();
    p.set("lat_lds_conflict_wave", 0.0).unwrap();
    p.set("lat_lds_width_wave", 0.0).unwrap();
    let got: Vec<u64> = [
        "LDS R4, s[lane * 4]",
        "LDS.64 R4, s[lane * 8]",
        "LDS.128 R4, s[lane * 16]",
        "LDS R4, s[lane * 16]",
    ]
    .iter()
    .map(|i| per_link(i, &p))
    .collect();
    assert_eq!(got, [23, 24, 26, 26]);
}

/// A broadcast (every lane one address) is one wavefront whatever its width: no extra.
#[test]
fn a_broadcast_load_has_no_extra() {
    let p = measured();
    assert_eq!(per_link("LDS.128 R4, s[0]", &p), by_hand(&p, 1, 1));
}
