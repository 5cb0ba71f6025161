//! What the kernel format could not say before issue 25 item 8, timed: the uniform
//! datapath, predicates with a declared truth, the bulk store and its `.READ` wait,
//! `LDG.E.STRONG.GPU`, addresses from a permutation and a buffer partly warm in L2.
//! Each with a cycle count derived by hand from the profile.

use sim_core::{Profile, RunConfig, RunResult, WarpState, run};

fn kernel(src: &str) -> isa::Kernel {
    let k = isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)));
    let diags = isa::validate(&k);
    assert!(
        diags.is_empty(),
        "{}",
        diags
            .iter()
            .map(|d| d.render("test", src))
            .collect::<Vec<_>>()
            .join("\n")
    );
    k
}

fn h100() -> Profile {
    Profile::builtin("h100").unwrap()
}

fn sim(src: &str, p: &Profile) -> RunResult {
    run(&kernel(src), p, &RunConfig::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn head(warps: u32) -> String {
    format!(
        "kernel k\nlaunch cta_threads={} regs=64 smem=65536 grid=1\n",
        warps * 32
    )
}

// ----- the uniform datapath -----

/// 32 warps of independent FFMAs whose third source is a constant: read from a
/// uniform register, the two vector sources sit in different banks and every
/// sub-partition dispatches one FFMA a cycle; translated into a vector register (as a
/// twin without uniform registers writes it) the constant shares a bank with the
/// other source, and each FFMA takes `1 + reg_bank_conflict_cycles` cycles: half
/// rate on the H100 profile.
#[test]
fn ffma_reading_a_uniform_register_runs_at_full_rate() {
    let p = h100();
    let m = 32u64;
    let src = |c: &str| {
        format!(
            "{}role main warps=0..31\n  loop i 0..{m}\n    FFMA R1, R3, {c}, R6\n    FFMA R5, R7, {c}, R10\n  EXIT\n",
            head(32)
        )
    };
    let uniform = sim(&src("UR4"), &p);
    let vector = sim(&src("R40"), &p);
    // Per sub-partition: 8 warps x 2 m FFMAs, then 8 EXITs (one issue a cycle).
    let per_sp = 8 * 2 * m;
    let extra =
        (2u64.div_ceil(p.t.reg_bank_ports as u64) - 1) * p.t.reg_bank_conflict_cycles as u64;
    assert_eq!(extra, 1, "the H100 profile's conflict costs one cycle");
    let (u, v) = (per_sp + 8, per_sp * (1 + extra) + 8);
    assert!(
        (u..=u + 4).contains(&uniform.cycles),
        "uniform: {} cycles, expected about {u}",
        uniform.cycles
    );
    assert!(
        (v..=v + 4).contains(&vector.cycles),
        "vector: {} cycles, expected about {v}",
        vector.cycles
    );
    assert_eq!(uniform.roles[0].states.get(WarpState::DispatchStall), 0);
    assert!(vector.roles[0].states.get(WarpState::DispatchStall) > 0);
}

/// A dependent chain of uniform adds takes the ALU latency per step (the H100 ran
/// dependent UIADD3 chains at 4.0 cycles a step, as IADD3: `kernels/uni.cu`).
#[test]
fn a_dependent_uniform_chain_takes_the_alu_latency_per_step() {
    let p = h100();
    let lat = p.t.lat_alu as u64;
    for n in [1u64, 8, 50] {
        let src = format!(
            "{}role main warps=0..0\n  loop i 0..{n}\n    UIADD3 UR4, UR4, 0x1, URZ\n  EXIT\n",
            head(1)
        );
        let r = sim(&src, &p);
        // As the FFMA chain: step i issues at lat * i, EXIT the cycle after the last,
        // the warp retires the cycle after that.
        assert_eq!(r.cycles, lat * (n - 1) + 2, "N = {n}");
    }
}

/// Uniform instructions take the uniform pipe, not the ALU's: one warp alternating
/// independent IADD3 and UIADD3 issues one a cycle, where IADD3 alone is held to the
/// ALU's `alu_issue_interval` (2 cycles on the H100 profile).
#[test]
fn uniform_instructions_leave_the_alu_pipe_free() {
    let p = h100();
    let n = 20u64;
    let alu = p.t.alu_issue_interval as u64;
    assert_eq!(alu, 2);
    let pair = |second: &str| {
        format!(
            "{}role main warps=0..0\n  loop i 0..{n}\n    IADD3 R1, R2, R3, RZ\n    {second}\n  EXIT\n",
            head(1)
        )
    };
    let mixed = sim(&pair("UIADD3 UR5, UR6, UR7, URZ"), &p);
    // 2 n instructions at cycles 0 .. 2 n - 1, EXIT at 2 n, retired the cycle after.
    assert_eq!(mixed.cycles, 2 * n + 1);
    let all_alu = sim(&pair("IADD3 R5, R6, R7, RZ"), &p);
    // Instruction j at alu * j; EXIT (branch pipe) the cycle after the last.
    assert_eq!(all_alu.cycles, alu * (2 * n - 1) + 2);
}

// ----- predicates -----

/// `pred P0 = warp < 2`: warps 0 and 1 run the guarded chain of dependent FFMAs, warps
/// 2 and 3 issue each FFMA without executing it, so nothing they issue waits for R1.
#[test]
fn a_guard_false_for_a_warp_issues_without_executing() {
    let p = h100();
    let lat = p.t.lat_fma as u64;
    let n = 16u64;
    let src = format!(
        "{}pred P0 = warp < 2\nrole main warps=0..3\n  loop i 0..{n}\n    @P0 FFMA R1, R1, R2, 0.5\n  EXIT\n",
        head(4)
    );
    let r = sim(&src, &p);
    for w in &r.warps {
        let expected = if w.warp < 2 { lat * (n - 1) + 2 } else { n + 1 };
        assert_eq!(w.finished - w.started, expected, "warp {}", w.warp);
        assert_eq!(w.instructions, n + 1, "warp {} issues every one", w.warp);
    }
    // `@!P0` is the other half.
    let neg = sim(&src.replace("@P0", "@!P0"), &p);
    for w in &neg.warps {
        let expected = if w.warp >= 2 {
            lat * (n - 1) + 2
        } else {
            n + 1
        };
        assert_eq!(w.finished - w.started, expected, "@!P0 warp {}", w.warp);
    }
    // Without a declaration the guard is timed as holding, as before.
    let undeclared = sim(&src.replace("pred P0 = warp < 2\n", ""), &p);
    assert!(
        undeclared
            .warps
            .iter()
            .all(|w| w.finished - w.started == lat * (n - 1) + 2)
    );
}

/// A guard that is false issues and does nothing else: no memory access, no result.
#[test]
fn a_false_guard_makes_no_memory_access() {
    let p = h100();
    let src = format!(
        "{}buffer A size=1MiB\npred P0 = i % 4 == 0\nrole main warps=0..0\n  loop i 0..64\n    @P0 LDG.E R1, A[i * 1024]\n  EXIT\n",
        head(1)
    );
    let r = sim(&src, &p);
    let m = &r.memory;
    // 16 of the 64 iterations load a line, from L2 or HBM (all cold, all distinct).
    assert_eq!(
        m.requests_l1 + m.requests_l2_near + m.requests_l2_far + m.requests_hbm,
        16
    );
    assert_eq!(r.instructions, 65);
}

/// `@P1 BRA` with `pred P1 = i % 4 == 0`: a taken branch holds the warp until its
/// target is fetched, `branch_target_cycles` after the instruction two before it
/// issued; a branch not taken costs its issue slot only.
#[test]
fn a_guarded_branch_is_taken_only_when_its_predicate_holds() {
    let p = h100();
    let fetch = p.t.branch_target_cycles as u64;
    let n = 40u64;
    let src = |truth: &str| {
        format!(
            "{}pred P1 = {truth}\nrole main warps=0..0\n  loop i 0..{n}\n    FADD R1, R2, R3\n    @P1 BRA\n  EXIT\n",
            head(1)
        )
    };
    // By hand: FADD k issues at f, BRA k at f + 1; the next instruction issues the
    // cycle after, or, where the branch is taken, once its target is fetched:
    // `fetch` after the issue two before the branch (BRA k - 1's, or cycle 0 for the
    // first). EXIT is the instruction after the last; the warp retires a cycle later.
    let by_hand = |taken: &dyn Fn(u64) -> bool| {
        let (mut before, mut f) = (0u64, 0u64);
        for k in 0..n {
            let b = f + 1;
            f = if taken(k) {
                (b + 1).max(before + fetch)
            } else {
                b + 1
            };
            before = b;
        }
        f + 1
    };
    let never = sim(&src("0"), &p).cycles;
    assert_eq!(never, 2 * n + 1);
    assert_eq!(never, by_hand(&|_| false));
    let always = sim(&src("1"), &p).cycles;
    assert_eq!(always, by_hand(&|_| true), "always taken");
    let unguarded = sim(
        &src("1")
            .replace("@P1 BRA", "BRA")
            .replace("pred P1 = 1\n", ""),
        &p,
    )
    .cycles;
    assert_eq!(always, unguarded, "a true guard is the unguarded branch");
    let quarter = sim(&src("i % 4 == 0"), &p).cycles;
    assert_eq!(quarter, by_hand(&|k| k % 4 == 0), "every fourth taken");
    assert!(never < quarter && quarter < always);
}

// ----- the bulk store -----

/// `UBLKCP.G.S` moves shared memory out at the TMA's store rate; `DEPBAR.LE.READ SB1, 0`
/// waits until the TMA has read the bytes (`tma_issue_cycles` plus the bytes at
/// `tma_store_bytes_per_clk`), `DEPBAR.LE SB1, 0` until the lines are written to L2 too.
#[test]
fn the_read_wait_of_a_bulk_store_ends_when_shared_memory_is_read() {
    let p = h100();
    let bytes = 8192u64;
    let src = |wait: &str| {
        format!(
            "{}buffer C size=1MiB\nshared s size=65536\nrole main warps=0..0\n  UBLKCP.G.S C[0], s[0], bytes={bytes}\n  UTMACMDFLUSH\n  {wait} SB1, 0\n  STS s[lane * 4], R1\n  EXIT\n",
            head(1)
        )
    };
    let waited = |r: &RunResult| {
        let pc = &r.roles[0].per_pc[2];
        pc.states.get(WarpState::LongScoreboard)
    };
    let read = sim(&src("DEPBAR.LE.READ"), &p);
    let full = sim(&src("DEPBAR.LE"), &p);
    // UBLKCP at 0, UTMACMDFLUSH at 1, the wait issues at 2 and holds the warp from 3
    // until the read completes.
    let read_done =
        (p.t.tma_issue_cycles + bytes as f64 / p.t.tma_store_bytes_per_clk).ceil() as u64;
    assert_eq!(waited(&read), read_done - 3);
    assert!(
        waited(&full) > waited(&read) + p.t.tma_extra_latency as u64,
        "the full wait {} ends after the writes, the read wait {} before",
        waited(&full),
        waited(&read)
    );
    assert_eq!(read.memory.l2_bytes, full.memory.l2_bytes);
}

// ----- LDG.E.STRONG.GPU -----

fn chain(ldg: &str, footprint: u64, passes: u32) -> String {
    let steps = footprint / 128;
    format!(
        "{}buffer A size={footprint}\nrole main warps=0..0\n  loop p 0..{passes}\n    loop i 0..{steps}\n      {ldg} R1, A[i * 128]\n  EXIT\n",
        head(1)
    )
}

/// A 16 KiB footprint stays in L1 for `LDG.E` (`lat_l1_hit` a step after the first
/// pass); `LDG.E.STRONG.GPU` is not allocated in L1 and pays L2's latency every step.
#[test]
fn strong_gpu_loads_go_to_l2_every_time() {
    let p = h100();
    let step = |ldg: &str| {
        let a = sim(&chain(ldg, 16 << 10, 2), &p).cycles;
        let b = sim(&chain(ldg, 16 << 10, 3), &p).cycles;
        (b - a) as f64 / 128.0
    };
    assert_eq!(step("LDG.E"), p.t.lat_l1_hit);
    let strong = step("LDG.E.STRONG.GPU");
    assert!(
        strong >= p.t.lat_l2_near && strong <= p.t.lat_l2_far,
        "STRONG.GPU step {strong}"
    );
    let r = sim(&chain("LDG.E.STRONG.GPU", 16 << 10, 3), &p);
    assert_eq!(r.memory.requests_l1, 0);
    assert_eq!(step("LDG.E.CG"), strong);
}

// ----- addresses from a permutation; a buffer warm in L2 -----

/// A pointer chase through a seeded permutation of 64 lines: every line once per pass
/// (64 distinct lines missed in the first pass), then `lat_l1_hit` a step; the same
/// text gives the same order, run after run.
#[test]
fn a_permutation_chase_visits_every_line_once_per_pass() {
    let p = h100();
    let src = |passes: u32| {
        format!(
            "{}buffer A size=8KiB\nrole main warps=0..0\n  loop p 0..{passes}\n    loop i 0..64\n      LDG.E R1, A[perm(i, 64) * 128]\n  EXIT\n",
            head(1)
        )
    };
    let one = sim(&src(1), &p);
    let m = &one.memory;
    assert_eq!(m.requests_l1, 0);
    assert_eq!(m.requests_l2_near + m.requests_l2_far + m.requests_hbm, 64);
    let (two, three) = (sim(&src(2), &p), sim(&src(3), &p));
    assert_eq!(three.cycles - two.cycles, 64 * p.t.lat_l1_hit as u64);
    assert_eq!(two.memory.requests_l1, 64);
    assert_eq!(sim(&src(2), &p).cycles, two.cycles);
}

/// `warm=` starts the buffer's first bytes in L2: a cold chase over 1 MiB pays HBM,
/// one over a warm buffer L2, and `warm=` of the whole buffer is `--warm-l2`.
#[test]
fn a_warm_prefix_starts_in_l2() {
    let p = h100();
    let src = |warm: &str| {
        format!(
            "{}buffer A size=1MiB{warm}\nrole main warps=0..0\n  loop i 0..1024\n    LDG.E R1, A[i * 1024]\n  EXIT\n",
            head(1)
        )
    };
    let served = |r: &RunResult| {
        let m = &r.memory;
        (m.requests_l2_near + m.requests_l2_far, m.requests_hbm)
    };
    let cold = sim(&src(""), &p);
    assert_eq!(served(&cold), (0, 1024));
    // The first half: 512 lines from L2, the rest from HBM.
    let half = sim(&src(" warm=512KiB"), &p);
    assert_eq!(served(&half), (512, 512));
    let whole = sim(&src(" warm=1MiB"), &p);
    assert_eq!(served(&whole), (1024, 0));
    let cfg = RunConfig {
        warm_l2: vec!["A".into()],
        ..RunConfig::default()
    };
    let flag = run(&kernel(&src("")), &p, &cfg).unwrap();
    assert_eq!(flag.cycles, whole.cycles);
    assert!(cold.cycles > half.cycles && half.cycles > whole.cycles);
}

/// The example that uses every construct above: the same result with fast-forward
/// and without, with a sink and without, and on every policy without a fault.
#[test]
fn the_example_runs_the_same_with_and_without_fast_forward_and_a_sink() {
    use sim_core::sink::VecSink;
    let p = h100();
    let k = kernel(include_str!("../../../examples/format_gaps.smk"));
    let json = |r: &RunResult| serde_json::to_string(r).unwrap();
    let cfg = RunConfig {
        max_ctas: Some(2),
        ..RunConfig::default()
    };
    let base = run(&k, &p, &cfg).unwrap();
    let slow = run(
        &k,
        &p,
        &RunConfig {
            fast_forward: false,
            ..cfg.clone()
        },
    )
    .unwrap();
    assert_eq!(json(&base), json(&slow));
    let mut sink = VecSink::default();
    let with_sink = sim_core::run_with(&k, &p, &cfg, cfg.policy.build(), &mut sink).unwrap();
    assert_eq!(json(&base), json(&with_sink));
    assert!(!sink.events.is_empty());
    for policy in sim_core::scheduler::Policy::ALL {
        let r = run(
            &k,
            &p,
            &RunConfig {
                policy,
                ..cfg.clone()
            },
        );
        assert!(r.is_ok(), "{policy:?}: {:?}", r.err());
    }
}

// ----- lanes that diverge -----

/// `pred P0 = lane < L`: the guarded instruction executes for its L lanes only, so a
/// shared load whose 32 lanes fall in one bank (32 wavefronts) takes L wavefronts:
/// each step of a dependent chain is shorter by the wavefronts it no longer needs.
#[test]
fn a_lane_guard_limits_the_wavefronts_to_its_lanes() {
    let p = h100();
    let n = 16u64;
    // One step: the wavefronts at `smem_bytes_per_clk`, each bank-conflict replay after
    // the first `lat_lds_conflict_wave` longer, then `lat_lds` (lowering's `done`: the
    // wavefronts' end rounded up, plus the latency less one).
    let wave_cycles = |w: f64| {
        (w * 128.0 / p.t.smem_bytes_per_clk + (w - 1.0) * p.t.lat_lds_conflict_wave).ceil() as u64
    };
    let src = |lanes: u32| {
        format!(
            "{}shared s size=65536\npred P0 = lane < {lanes}\nrole main warps=0..0\n  loop i 0..{n}\n    @P0 LDS R1, s[lane * 128]\n  EXIT\n",
            head(1)
        )
    };
    let all = sim(&src(32), &p).cycles;
    let four = sim(&src(4), &p).cycles;
    // Load i + 1 waits for load i's R1 (a write after a write); EXIT waits for none:
    // (n - 1) steps, the last load, EXIT, the retire.
    let cycles = |w: f64| (n - 1) * (wave_cycles(w) + p.t.lat_lds as u64 - 1) + 2;
    assert_eq!(all, cycles(32.0));
    assert_eq!(four, cycles(4.0));
    assert_eq!(sim(&src(1), &p).cycles, cycles(1.0));
    // A truth false for every lane: the instruction only issues.
    assert_eq!(sim(&src(0), &p).cycles, n + 1);
}

/// A lane guard keeps the other lanes' addresses out of the access: out of the
/// buffer's bounds they fault nothing, and the sectors counted are the active lanes'.
#[test]
fn a_lane_guard_keeps_inactive_lanes_out_of_memory() {
    let p = h100();
    let src = |guard: &str| {
        format!(
            "{}buffer A size=64KiB\npred P0 = lane < 8\nrole main warps=0..0\n  loop k 0..64\n    {guard}LDG.E R1, A[k * 1024 + lane * 4]\n  EXIT\n",
            head(1)
        )
    };
    let full = sim(&src(""), &p);
    let part = sim(&src("@P0 "), &p);
    // 32 lanes x 4 bytes: 4 sectors of a line; 8 lanes: 1 sector.
    assert_eq!(full.memory.l2_bytes, 64 * 128);
    assert_eq!(part.memory.l2_bytes, 64 * 32);
    // Lanes 8.. would read past a 32-byte buffer: guarded off, they do not.
    let edge = format!(
        "{}buffer A size=32\npred P0 = lane < 8\nrole main warps=0..0\n  @P0 LDG.E R1, A[lane * 4]\n  EXIT\n",
        head(1)
    );
    assert!(run(&kernel(&edge), &p, &RunConfig::default()).is_ok());
}

/// Both sides of a divergent `if`, written `@P0` and `@!P0`, execute one after the
/// other: a chain through both takes two FFMA latencies an iteration, where a guard
/// uniform over the warp leaves one side issued only.
#[test]
fn divergent_sides_both_execute() {
    let p = h100();
    let lat = p.t.lat_fma as u64;
    let n = 8u64;
    let src = |truth: &str| {
        format!(
            "{}pred P0 = {truth}\nrole main warps=0..0\n  loop i 0..{n}\n    @P0 FFMA R1, R1, R2, 0.5\n    @!P0 FFMA R1, R1, R4, 0.5\n  EXIT\n",
            head(1)
        )
    };
    assert_eq!(sim(&src("lane < 16"), &p).cycles, lat * (2 * n - 1) + 2);
    // Uniform: the side that is off still waits for its source R1 (the scoreboard
    // wait comes before the predicate is read), then the next iteration's FFMA issues
    // the cycle after it: lat + 1 an iteration, then EXIT and the retire.
    assert_eq!(sim(&src("warp < 16"), &p).cycles, (lat + 1) * n + 1);
}

// ----- the race checker and the new constructs -----

/// Every hazard the runtime race checker finds in a run of `src`, by kind.
fn hazards(src: &str) -> Vec<String> {
    use sim_core::races::RaceCheck;
    use sim_core::sink::NoSink;
    let k = isa::parse_kernel(src).unwrap_or_else(|d| panic!("{d}"));
    let p = h100();
    let cfg = RunConfig::default();
    let mut sink = RaceCheck::new(NoSink, &k);
    sim_core::run_with(&k, &p, &cfg, cfg.policy.build(), &mut sink).unwrap();
    sink.hazards()
        .iter()
        .map(|h| format!("{}: `{}`", h.kind.name(), h.with.text))
        .collect()
}

/// A storer writes each stage of a two-stage ring back with `UBLKCP.G.S` and releases
/// it: after `DEPBAR.LE.READ SB1, 0` (the stores have read the stage) that is safe; a
/// store whose declared guard is false stores nothing and races nothing; one that
/// runs, unwaited, races the release.
#[test]
fn the_race_checker_follows_read_waits_and_false_guards() {
    let ring = |guard: &str, wait: &str| {
        format!(
            "kernel ring\nlaunch cta_threads=64 regs=32 smem=8192 grid=1\nbuffer A size=1MiB\nbuffer C size=1MiB\nshared stage size=8192\nmbarrier full[2] count=1\nmbarrier empty[2] count=1\npred P0 = {guard}\n\nrole producer warps=0..0\n  loop k 0..4\n    SYNCS.PHASECHK.TRANS64.TRYWAIT empty[k % 2], parity=((k / 2) & 1) ^ 1\n    SYNCS.ARRIVE.TRANS64.EXPECT_TX full[k % 2], bytes=4096\n    UTMALDG stage[(k % 2) * 4096], A[k * 4096], bytes=4096, bar=full[k % 2]\n  EXIT\n\nrole storer warps=1..1\n  loop k 0..4\n    SYNCS.PHASECHK.TRANS64.TRYWAIT full[k % 2], parity=(k / 2) & 1\n    @P0 UBLKCP.G.S C[k * 4096], stage[(k % 2) * 4096], bytes=4096\n    UTMACMDFLUSH\n{wait}    SYNCS.ARRIVE.TRANS64 empty[k % 2]\n  EXIT\n"
        )
    };
    let store = "UBLKCP.G.S C[k * 4096], stage[(k % 2) * 4096], bytes=4096";
    assert_eq!(
        hazards(&ring("1", "    DEPBAR.LE SB1, 0\n")),
        Vec::<String>::new()
    );
    assert_eq!(
        hazards(&ring("1", "    DEPBAR.LE.READ SB1, 0\n")),
        Vec::<String>::new()
    );
    assert_eq!(
        hazards(&ring("1", "")),
        [format!("release while read: `@P0 {store}`")]
    );
    assert_eq!(hazards(&ring("0", "")), Vec::<String>::new());
}
