//! Hand-derived cycle counts on small kernels, and properties of every run.

use sim_core::result::SimError;
use sim_core::scheduler::Policy;
use sim_core::{Profile, RunConfig, RunResult, WarpState, run};

fn kernel(src: &str) -> isa::Kernel {
    isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)))
}

fn h100() -> Profile {
    Profile::builtin("h100").unwrap()
}

fn sim(src: &str, p: &Profile) -> RunResult {
    run(&kernel(src), p, &RunConfig::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn ffma_chain(warps: u32, n: u32) -> String {
    format!(
        "kernel chain\nlaunch cta_threads={} regs=32 smem=0 grid=1\nparam N={n}\nrole main warps=0..{}\n  loop i 0..N\n    FFMA R1, R1, R2, 0.5\n  EXIT\n",
        warps * 32,
        warps - 1
    )
}

#[test]
fn dependent_ffma_chain_takes_latency_per_step() {
    let p = h100();
    let lat = p.t.lat_fma as u64;
    for n in [1u64, 2, 16, 100] {
        let r = sim(&ffma_chain(1, n as u32), &p);
        // FFMA i issues at lat * i; EXIT (independent) the cycle after the last one;
        // the warp retires the cycle after that.
        assert_eq!(r.cycles, lat * (n - 1) + 2, "N = {n}");
        assert_eq!(r.instructions, n + 1);
        let states = &r.roles[0].states;
        assert_eq!(states.get(WarpState::Selected), n + 1);
        assert_eq!(states.get(WarpState::Wait), (lat - 1) * (n - 1));
    }
}

#[test]
fn four_warps_on_four_subpartitions_run_in_the_time_of_one() {
    let p = h100();
    let one = sim(&ffma_chain(1, 64), &p);
    let four = sim(&ffma_chain(4, 64), &p);
    assert_eq!(four.cycles, one.cycles);
    assert_eq!(four.issued_per_subpartition, [65; 4]);
}

fn independent_with_stall(warps: u32, n: u32, stall: u32) -> String {
    format!(
        "kernel stalls\nlaunch cta_threads={} regs=32 smem=0 grid=1\nparam N={n}\nrole main warps=0..{}\n  loop i 0..N\n    FADD R1, R2, R3, stall={stall}\n  EXIT\n",
        warps * 32,
        warps - 1
    )
}

#[test]
fn a_control_code_stall_count_spaces_a_warps_issues() {
    let p = h100();
    for (n, stall) in [(1u64, 6u64), (10, 6), (10, 15), (32, 2)] {
        let r = sim(&independent_with_stall(1, n as u32, stall as u32), &p);
        // Independent FADDs: FADD i issues at stall * i, EXIT when the last one's stall
        // has passed, and the warp retires the cycle after.
        assert_eq!(r.cycles, stall * n + 1, "N = {n}, stall = {stall}");
        let states = &r.roles[0].states;
        assert_eq!(states.get(WarpState::Selected), n + 1);
        assert_eq!(states.get(WarpState::Wait), (stall - 1) * n);
    }
    // Stall counts of 0 and 1 are the engine's own pace: one issue per cycle.
    let free = sim(&independent_with_stall(1, 10, 1), &p).cycles;
    assert_eq!(free, 10 + 1);
    assert_eq!(sim(&independent_with_stall(1, 10, 0), &p).cycles, free);
    // A stall shorter than the dependency leaves the chain's pace to the dependency
    // (only the EXIT after the last FFMA waits out its stall); a longer one is the pace.
    let lat = p.t.lat_fma as u64;
    let chain = |stall: u64| {
        let src = ffma_chain(1, 16).replace(", 0.5\n", &format!(", 0.5, stall={stall}\n"));
        sim(&src, &p).cycles
    };
    assert_eq!(chain(lat - 1), lat * 15 + (lat - 1) + 1);
    assert_eq!(chain(1), sim(&ffma_chain(1, 16), &p).cycles);
    assert_eq!(chain(lat + 3), (lat + 3) * 16 + 1);
    // A warp waiting out its stall leaves the issue slot to the others: two warps of a
    // sub-partition (warps 0 and 4) with stall 2 interleave at one issue per cycle.
    let two = sim(&independent_with_stall(5, 10, 2), &p);
    assert_eq!(two.cycles, 2 * 10 + 1 + 1);
    assert_eq!(two.issued_per_subpartition[0], 2 * 11);
}

/// A warpgroup's WARPGROUP.ARRIVE blocks its warps until all four have arrived, and its
/// stall count still holds each of them after that: the first three, released as the
/// fourth arrives a cycle or less later, wait out their own count like the fourth
/// (SASS puts 15 on ARRIVE, tp.wgmma_pair).
#[test]
fn a_stall_count_outlasts_the_block_it_follows() {
    let p = h100();
    let src = |first: &str| {
        format!(
            "kernel arrive\nlaunch cta_threads=128 regs=32 smem=0 grid=1\nrole main warps=0..3\n  {first} stall=15\n  FADD R1, R2, R3\n  EXIT\n"
        )
    };
    let arrive = sim(&src("WARPGROUP.ARRIVE"), &p);
    // ARRIVE at 0, the FADD at 15, EXIT at 16, retired the cycle after: as after a NOP.
    assert_eq!(arrive.cycles, 15 + 2);
    assert_eq!(arrive.cycles, sim(&src("NOP"), &p).cycles);
    let states = &arrive.roles[0].states;
    assert_eq!(states.get(WarpState::Wait), 4 * 14);
    assert_eq!(states.get(WarpState::Gmma), 0);
}

#[test]
fn a_changed_latency_changes_the_chain() {
    let mut p = h100();
    p.set("lat_fma", 6.0).unwrap();
    assert_eq!(sim(&ffma_chain(1, 10), &p).cycles, 6 * 9 + 2);
}

#[test]
fn thirty_two_warps_of_mufu_reach_the_sm_rate() {
    let p = h100();
    let m = 64;
    let src = format!(
        "kernel ex2\nlaunch cta_threads=1024 regs=32 smem=0 grid=1\nrole main warps=0..31\n  loop i 0..{m}\n    MUFU.EX2 R1, R100\n    MUFU.EX2 R2, R100\n  EXIT\n"
    );
    let r = sim(&src, &p);
    let results = 32.0 * 32.0 * 2.0 * m as f64;
    let per_cycle = results / r.cycles as f64;
    // Per sub-partition one MUFU warp-instruction per interval: 4 * 32 / interval per SM.
    let rate = 4.0 * 32.0 / p.t.mufu_issue_interval;
    // The run ends before the last results are back, so the measured rate may edge past.
    assert!(
        (per_cycle - rate).abs() < rate * 0.01,
        "{per_cycle} results/cycle, expected about {rate}"
    );
    assert!(r.unit("mufu") > 0.98);
    assert!(
        r.roles[0].states.get(WarpState::MathPipeThrottle)
            > r.roles[0].states.get(WarpState::Selected)
    );
}

/// One warp walks `footprint` bytes with a `stride`, `passes` times; each load must
/// wait for the one before (it overwrites the same register).
fn load_chain(footprint: u64, stride: u64, passes: u32) -> String {
    let steps = footprint / stride;
    format!(
        "kernel chase\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nbuffer A size={footprint}\nparam S={steps} P={passes}\nrole main warps=0..0\n  loop p 0..P\n    loop i 0..S\n      LDG.E R1, A[i * {stride}]\n  EXIT\n"
    )
}

/// Cycles per step in the steady state: the difference between 2 and 3 passes.
fn per_step(footprint: u64, stride: u64, p: &Profile) -> f64 {
    let a = sim(&load_chain(footprint, stride, 2), p).cycles;
    let b = sim(&load_chain(footprint, stride, 3), p).cycles;
    (b - a) as f64 / (footprint / stride) as f64
}

#[test]
fn dependent_loads_take_the_latency_of_the_level_their_footprint_lives_in() {
    let p = h100();
    let t = &p.t;
    // 16 KiB lives in L1.
    assert_eq!(per_step(16 << 10, 128, &p), t.lat_l1_hit);
    // 4 MiB misses L1 (256 KiB) and hits L2: between the near and far latencies.
    let l2 = per_step(4 << 20, 1024, &p);
    assert!(l2 > t.lat_l2_near && l2 < t.lat_l2_far, "L2 step {l2}");
    // A footprint of more lines than L2 holds misses it (L2 shrunk to keep the test short).
    let mut small_l2 = p.clone();
    small_l2.set("l2_bytes", (2 << 20) as f64).unwrap();
    let hbm = per_step(32 << 20, 1024, &small_l2);
    // Each step is one request of one line: `lat_hbm`, plus `lat_hbm_far_extra` for the
    // half of the lines the address hash makes far, plus a slow chunk's mean delay for
    // the share of requests that draw one: a one-line request's group is in a slow
    // window, and its one sub-domain slow there (the uniform jitter averages out).
    let expected = t.lat_hbm
        + t.lat_hbm_far_extra / 2.0
        + t.hbm_tail_window_probability
            * t.hbm_tail_probability
            * (t.hbm_tail_min + t.hbm_tail_max)
            / 2.0;
    assert!(
        (hbm - expected).abs() < expected * 0.02,
        "HBM step {hbm}, expected about {expected}"
    );
}

#[test]
fn mbarrier_ping_pong_takes_two_wakes_per_round() {
    let p = h100();
    let w = p.t.lat_mbarrier_wake as u64;
    let probe = p.t.lat_mbarrier_probe as u64;
    for k in [1u64, 2, 10] {
        let src = format!(
            "kernel pingpong\nlaunch cta_threads=64 regs=32 smem=0 grid=1\nmbarrier full count=1\nmbarrier empty count=1\nparam K={k}\n\
role producer warps=0..0\n  loop k 0..K\n    SYNCS.PHASECHK.TRANS64.TRYWAIT empty[0], parity=(k & 1) ^ 1\n    SYNCS.ARRIVE.TRANS64 full[0]\n  EXIT\n\
role consumer warps=1..1\n  loop k 0..K\n    SYNCS.PHASECHK.TRANS64.TRYWAIT full[0], parity=k & 1\n    SYNCS.ARRIVE.TRANS64 empty[0]\n  EXIT\n"
        );
        let r = sim(&src, &p);
        // The producer's first wait finds the phase before the first already complete:
        // it passes once its probe returns (cycle P), and the producer arrives at P;
        // then every 2W cycles. The consumer's last arrival comes W later, its EXIT one
        // cycle after, retiring one cycle after that.
        assert_eq!(r.cycles, probe + (2 * k - 1) * w + 2, "K = {k}");
        assert!(
            r.role("consumer")
                .unwrap()
                .states
                .get(WarpState::LongScoreboard)
                > 0
        );
    }
}

#[test]
fn a_barrier_one_warp_never_reaches_is_a_deadlock_naming_it() {
    let src = "kernel stuck\nlaunch cta_threads=64 regs=32 smem=0 grid=1\nrole waiter warps=0..0\n  BAR.SYNC 0\n  EXIT\nrole quitter warps=1..1\n  EXIT\n";
    for ff in [true, false] {
        let cfg = RunConfig {
            fast_forward: ff,
            ..Default::default()
        };
        match run(&kernel(src), &h100(), &cfg) {
            Err(SimError::Deadlock(r)) => {
                assert_eq!(r.warps.len(), 1);
                assert_eq!(r.warps[0].warp, 0);
                assert_eq!(r.warps[0].instruction, "BAR.SYNC 0");
                assert!(
                    r.warps[0].waits_for.contains("1 of 2 warps arrived"),
                    "{}",
                    r.warps[0].waits_for
                );
                assert!(
                    r.warps[0].waits_for.contains("1 (exited)"),
                    "{}",
                    r.warps[0].waits_for
                );
            }
            other => panic!("expected a deadlock, got {other:?}"),
        }
    }
}

#[test]
fn an_mbarrier_nobody_arrives_at_is_a_deadlock_with_its_phase() {
    let src = "kernel stuck\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nmbarrier full[2] count=1\nrole main warps=0..0\n  SYNCS.PHASECHK.TRANS64.TRYWAIT full[1], parity=0\n  EXIT\n";
    let Err(SimError::Deadlock(r)) = run(&kernel(src), &h100(), &RunConfig::default()) else {
        panic!("no deadlock")
    };
    assert!(
        r.warps[0].waits_for.contains("full[1]"),
        "{}",
        r.warps[0].waits_for
    );
    assert!(
        r.warps[0]
            .waits_for
            .contains("1 of 1 arrivals still missing"),
        "{}",
        r.warps[0].waits_for
    );
}

#[test]
fn the_watchdog_stops_runaway_runs() {
    let cfg = RunConfig {
        max_cycles: 1000,
        ..Default::default()
    };
    let Err(SimError::Watchdog(r)) = run(&kernel(&ffma_chain(1, 10_000)), &h100(), &cfg) else {
        panic!("no watchdog")
    };
    assert_eq!(r.warps.len(), 1);
}

/// A mixed kernel touching every mechanism, for the properties below.
const MIXED: &str = "kernel mixed
launch cta_threads=256 regs=64 smem=65536 grid=264
buffer A size=64MiB
buffer C size=1MiB
shared stage size=65536
mbarrier full[2] count=1
mbarrier empty[2] count=4
param K=12
role producer warps=0..0
  loop k 0..K
    SYNCS.PHASECHK.TRANS64.TRYWAIT empty[k % 2], parity=((k / 2) & 1) ^ 1
    SYNCS.ARRIVE.TRANS64.EXPECT_TX full[k % 2], bytes=16384
    UTMALDG stage[(k % 2) * 16384], A[(cta * K + k) * 16384], bytes=16384, bar=full[k % 2]
  EXIT
role idle warps=1..3
  EXIT
role consumer warps=4..7
  loop k 0..K
    SYNCS.PHASECHK.TRANS64.TRYWAIT full[k % 2], parity=(k / 2) & 1
    LDS.128 R4, stage[(k % 2) * 16384 + lane * 16]
    LDG.E R8, A[(warp * 32 + lane) * 4 + k * 131072]
    FFMA R10, R4, R8, R10
    MUFU.EX2 R11, R10
    SYNCS.ARRIVE.TRANS64 empty[k % 2]
    BAR.SYNC 1, 128
  STG.E C[(cta % 8) * 4096 + (warp * 32 + lane) * 4], R11
  EXIT
";

#[test]
fn every_cycle_of_every_warp_is_accounted_exactly_once() {
    let r = sim(MIXED, &h100());
    for w in &r.warps {
        assert_eq!(
            w.states.total(),
            w.finished - w.started,
            "CTA {} warp {}",
            w.cta,
            w.warp
        );
    }
    let lifetimes: u64 = r.warps.iter().map(|w| w.finished - w.started).sum();
    assert_eq!(r.total_states().total(), lifetimes);
    let per_pc: u64 = r
        .roles
        .iter()
        .flat_map(|r| r.per_pc.iter())
        .map(|p| p.states.total())
        .sum();
    assert_eq!(per_pc, lifetimes);
    assert_eq!(r.total_states().get(WarpState::Selected), r.instructions);
}

#[test]
fn the_same_seed_gives_the_same_result_and_fast_forward_changes_nothing() {
    let p = h100();
    let k = kernel(MIXED);
    let json = |cfg: &RunConfig| serde_json::to_string(&run(&k, &p, cfg).unwrap()).unwrap();
    let base = RunConfig {
        seed: 7,
        ..Default::default()
    };
    let a = json(&base);
    assert_eq!(a, json(&base));
    assert_eq!(
        a,
        json(&RunConfig {
            fast_forward: false,
            ..base.clone()
        })
    );
    assert_ne!(
        a,
        json(&RunConfig { seed: 8, ..base }),
        "HBM jitter should depend on the seed"
    );
}

#[test]
fn fast_forward_changes_nothing_on_the_hand_checked_kernels() {
    let p = h100();
    for src in [ffma_chain(4, 20), load_chain(4 << 20, 1024, 1)] {
        let k = kernel(&src);
        let a = serde_json::to_string(&run(&k, &p, &RunConfig::default()).unwrap()).unwrap();
        let b = serde_json::to_string(
            &run(
                &k,
                &p,
                &RunConfig {
                    fast_forward: false,
                    ..Default::default()
                },
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(a, b);
    }
}

#[test]
fn fast_forward_emits_the_same_state_changes() {
    use sim_core::sink::VecSink;
    let p = h100();
    let k = kernel(MIXED);
    let events = |ff: bool| {
        let mut sink = VecSink::default();
        let cfg = RunConfig {
            fast_forward: ff,
            seed: 7,
            ..Default::default()
        };
        sim_core::run_with(&k, &p, &cfg, cfg.policy.build(), &mut sink).unwrap();
        sink.events
            .into_iter()
            .map(|e| format!("{e:?}"))
            .collect::<Vec<_>>()
    };
    let (a, b) = (events(true), events(false));
    if std::env::var("DEBUG_FF").is_ok() {
        for (x, y) in a.iter().zip(b.iter()) {
            if x.contains("warp: 7 }") && x.contains("cta: 0,") {
                eprintln!("FF  {x}");
            }
            if y.contains("warp: 7 }") && y.contains("cta: 0,") {
                eprintln!("NFF {y}");
            }
        }
    }
    for (x, y) in a.iter().zip(b.iter()) {
        assert_eq!(x, y);
    }
    assert_eq!(a.len(), b.len());
}

#[test]
fn a_scoreboard_stall_names_the_instruction_it_waits_for() {
    let src = "kernel dep\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nbuffer A size=4KiB\nrole main warps=0..0\n  LDG.E R1, A[lane * 4]\n  MUFU.EX2 R2, R1\n  FFMA R3, R2, R2, R2\n  EXIT\n";
    let r = sim(src, &h100());
    let pcs = &r.roles[0].per_pc;
    let mufu = &pcs[1].waits_on[0];
    assert_eq!(mufu.state, WarpState::LongScoreboard);
    assert_eq!(
        mufu.on,
        sim_core::cause::Waited::Producer {
            pc: Some(0),
            instruction: "LDG.E R1, A[lane * 4]".into()
        }
    );
    assert_eq!(
        mufu.on.to_string(),
        "the result of pc 0 `LDG.E R1, A[lane * 4]`"
    );
    assert_eq!(mufu.cycles, pcs[1].states.get(WarpState::LongScoreboard));
    let ffma = &pcs[2].waits_on[0];
    assert_eq!(ffma.state, WarpState::ShortScoreboard);
    assert!(ffma.on.to_string().contains("MUFU.EX2"), "{}", ffma.on);
}

#[test]
fn policies_order_issue_as_they_say() {
    use sim_core::sink::{Event, VecSink};
    // Warps 0 and 4 share sub-partition 0; their FFMAs are independent.
    let src = "kernel two\nlaunch cta_threads=160 regs=32 smem=0 grid=1\nrole main warps=0..4\n  loop i 0..4\n    FFMA R1, R2, R3, R4\n  EXIT\n";
    let order = |policy: Policy| {
        let mut sink = VecSink::default();
        let cfg = RunConfig {
            policy,
            ..Default::default()
        };
        sim_core::run_with(&kernel(src), &h100(), &cfg, policy.build(), &mut sink).unwrap();
        sink.events
            .iter()
            .filter_map(|e| match e {
                Event::Issue {
                    warp,
                    subpartition: 0,
                    ..
                } => Some(warp.warp),
                _ => None,
            })
            .take(4)
            .collect::<Vec<_>>()
    };
    assert_eq!(order(Policy::Gto), [0, 0, 0, 0]);
    assert_eq!(order(Policy::Lrr), [0, 4, 0, 4]);
    assert_eq!(order(Policy::Oldest), [0, 0, 0, 0]);
}

#[test]
fn more_warps_never_slow_an_issue_bound_kernel_per_instruction() {
    // Independent FFMAs (sources in different banks): one warp per sub-partition already
    // issues every cycle, so adding
    // warps adds instructions at the same rate: cycles per warp-instruction per scheduler stay 1.
    let p = h100();
    for warps in [4u32, 8, 16, 32] {
        let src = format!(
            "kernel ind\nlaunch cta_threads={} regs=32 smem=0 grid=1\nrole main warps=0..{}\n  loop i 0..64\n    FFMA R1, R2, R3, 0.5\n    FFMA R5, R6, R7, 0.5\n  EXIT\n",
            warps * 32,
            warps - 1
        );
        let r = sim(&src, &p);
        let per_scheduler = r.instructions as f64 / 4.0;
        assert!(
            r.cycles as f64 <= per_scheduler + 2.0,
            "{warps} warps: {} cycles for {per_scheduler} instructions per scheduler",
            r.cycles
        );
    }
}

#[test]
fn register_bank_conflicts_show_as_dispatch_stalls() {
    let p = h100();
    let body = |ins: &str| {
        format!(
            "kernel banks\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nrole main warps=0..0\n  loop i 0..8\n    {ins}\n  EXIT\n"
        )
    };
    // Three sources in one bank of two: one conflict per instruction.
    let same = sim(&body("FFMA R1, R2, R4, R6"), &p);
    let expected =
        8 * (3u64.div_ceil(p.t.reg_bank_ports as u64) - 1) * p.t.reg_bank_conflict_cycles as u64;
    assert_eq!(same.roles[0].states.get(WarpState::DispatchStall), expected);
    let spread = sim(&body("FFMA R1, R2, R3, RZ"), &p);
    assert_eq!(spread.roles[0].states.get(WarpState::DispatchStall), 0);
    // Operands read from the reuse cache read no bank.
    let reused = sim(&body("FFMA R1, R2, R4.reuse, R6.reuse"), &p);
    assert_eq!(reused.roles[0].states.get(WarpState::DispatchStall), 0);
}

/// A conflict holds the sub-partition's dispatch, not just the warp: 32 warps of
/// independent FFMAs whose two sources share a bank issue one per `1 + extra` cycles per
/// sub-partition, as the H100 does (`regbank.*` in the calibration data).
#[test]
fn a_bank_conflict_holds_the_whole_subpartition() {
    let p = h100();
    let m = 32u64;
    let src = format!(
        "kernel banks\nlaunch cta_threads=1024 regs=32 smem=0 grid=1\nrole main warps=0..31\n  loop i 0..{m}\n    FFMA R1, R2, R4, R7\n    FFMA R3, R6, R8, R9\n  EXIT\n"
    );
    let r = sim(&src, &p);
    let extra =
        (2u64.div_ceil(p.t.reg_bank_ports as u64) - 1) * p.t.reg_bank_conflict_cycles as u64;
    assert!(
        extra > 0,
        "the profile has no conflict for two sources in one bank"
    );
    // per sub-partition: 8 warps x 2 m conflicting FFMAs, then 8 EXITs
    let per_sp = 8 * 2 * m;
    let expected = per_sp * (1 + extra) + 8;
    assert!(
        r.cycles >= expected && r.cycles <= expected + 4,
        "{} cycles, expected about {expected}",
        r.cycles
    );
    assert!(r.roles[0].states.get(WarpState::DispatchStall) > 0);
}

/// A chain of N dependent shuffles: each crosses the shared-memory crossbar (one
/// wavefront, 128 bytes) and returns `lat_shfl` after its turn, so each step takes
/// `128 / smem_bytes_per_clk` (one cycle on the H100 profile) plus `lat_shfl - 1`.
#[test]
fn dependent_shuffle_chain_takes_the_shuffle_latency_per_step() {
    let p = h100();
    let wave = (128.0 / p.t.smem_bytes_per_clk).ceil() as u64;
    let step = wave + p.t.lat_shfl as u64 - 1;
    for n in [1u64, 8, 40] {
        let src = format!(
            "kernel shfl\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nparam N={n}\nrole main warps=0..0\n  loop i 0..N\n    SHFL.BFLY R1, R1, 0x1, 0x1f\n  EXIT\n"
        );
        let r = sim(&src, &p);
        // shuffle i issues at step * i; EXIT waits for nothing and issues the cycle
        // after the last one; the warp retires the cycle after that.
        assert_eq!(r.cycles, step * (n - 1) + 2, "N = {n}");
        let states = &r.roles[0].states;
        assert_eq!(states.get(WarpState::ShortScoreboard), (step - 1) * (n - 1));
    }
}

/// 32 warps of independent shuffles share the crossbar: one warp-instruction per
/// `128 / smem_bytes_per_clk` cycles per SM (32 results per clock on the H100), and the
/// MIO queue fills.
#[test]
fn shuffles_share_the_shared_memory_crossbar() {
    let p = h100();
    let m = 16;
    // eight destinations per iteration, so no shuffle waits for an earlier one's write
    let body: String = (1..=8)
        .map(|j| format!("    SHFL.BFLY R{j}, R40, 0x{j:x}, 0x1f\n"))
        .collect();
    let src = format!(
        "kernel shfl\nlaunch cta_threads=1024 regs=64 smem=0 grid=1\nrole main warps=0..31\n  loop i 0..{m}\n{body}  EXIT\n"
    );
    let r = sim(&src, &p);
    let shuffles = 32.0 * 8.0 * m as f64;
    let per_cycle = shuffles / r.cycles as f64;
    let rate = p.t.smem_bytes_per_clk / 128.0;
    assert!(
        (per_cycle - rate).abs() < rate * 0.05,
        "{per_cycle} shuffles/cycle, expected about {rate}"
    );
    assert!(r.roles[0].states.get(WarpState::MioThrottle) > 0);
}

/// The first warp's end over the last warp's end, from the first start.
fn first_finish(r: &RunResult) -> f64 {
    let start = r.warps.iter().map(|w| w.started).min().unwrap();
    let first = r.warps.iter().map(|w| w.finished).min().unwrap();
    let last = r.warps.iter().map(|w| w.finished).max().unwrap();
    (first - start) as f64 / (last - start) as f64
}

/// Always-ready warps (independent FFMAs, sources in different banks): GTO runs one warp
/// per scheduler to its end before the next; two-level (pairs) interleaves two and runs
/// the next two after them, which is the order the H100 shows (sched.first_finish: 0.999
/// with two warps per scheduler, 0.502 with four); round robin interleaves all.
#[test]
fn scheduling_policies_order_always_ready_warps_as_stated() {
    let p = h100();
    let src = |warps: u32| {
        format!(
            "kernel ready\nlaunch cta_threads={} regs=32 smem=0 grid=1\nrole main warps=0..{}\n  loop i 0..256\n    FFMA R1, R2, R3, 0.5\n    FFMA R5, R6, R7, 0.5\n  EXIT\n",
            warps * 32,
            warps - 1
        )
    };
    let with = |policy: Policy, warps: u32| {
        let cfg = RunConfig {
            policy,
            ..RunConfig::default()
        };
        first_finish(&run(&kernel(&src(warps)), &p, &cfg).unwrap())
    };
    let near = |x: f64, want: f64| (x - want).abs() < 0.02;
    assert!(near(with(Policy::Gto, 8), 0.5));
    assert!(near(with(Policy::Gto, 16), 0.25));
    assert!(near(with(Policy::TwoLevel, 8), 1.0));
    assert!(near(with(Policy::TwoLevel, 16), 0.5));
    assert!(near(with(Policy::Lrr, 16), 1.0));
}

#[test]
fn two_level_fills_a_stall_bubble_without_giving_up_the_pair() {
    // The branch target's fetch off: the bubbles here are the control code's alone.
    let mut p = h100();
    p.set("branch_target_cycles", 0.0).unwrap();
    // Four warps per sub-partition, each loop ending in a branch whose control code
    // holds the warp 6 cycles: both warps of the active pair sit in that bubble at once.
    let src = |stall: u32| {
        format!(
            "kernel bubbles\nlaunch cta_threads=512 regs=32 smem=0 grid=1\nrole main warps=0..15\n  loop i 0..64\n    FFMA R1, R2, R3, 0.5\n    FFMA R5, R6, R7, 0.5\n    FFMA R11, R12, R13, 0.5\n    BRA stall={stall}\n  EXIT\n"
        )
    };
    let ff = |stall: u32| first_finish(&sim(&src(stall), &p));
    // Without bubbles the second pair waits for the first to finish.
    assert!((ff(1) - 0.5).abs() < 0.02, "{}", ff(1));
    // The other pair fills the bubbles, but the active pair keeps its turn: it still
    // finishes first, a little later than half-way (the filler got some cycles).
    let bubbly = ff(6);
    assert!(bubbly > ff(1) && bubbly < 0.7, "{bubbly}");
    // Loose round robin lets every warp through the bubbles alike: all end together.
    let cfg = RunConfig {
        policy: Policy::Lrr,
        ..RunConfig::default()
    };
    assert!(first_finish(&run(&kernel(&src(6)), &p, &cfg).unwrap()) > 0.95);
}

/// A tensor copy's box (`row=`, `pitch=`) reads each row's lines where the row is: four
/// 256-byte rows 4 KiB apart are eight lines (two per row), or twelve when the box
/// starts 64 bytes into a line (each row then spans three); the same box again hits L2.
#[test]
fn a_tensor_copy_reads_its_box_row_by_row() {
    let p = h100();
    for (x0, lines) in [(0u64, 8u64), (64, 12)] {
        let src = format!(
            "kernel box\nlaunch cta_threads=32 regs=8 smem=1024 grid=1\nbuffer A size=64KiB\nshared s size=1024\nmbarrier m[1] count=1\nrole main warps=0..0\n  loop r 0..2\n    SYNCS.ARRIVE.TRANS64.EXPECT_TX m[0], bytes=1024\n    UTMALDG.2D s[0], A[{x0}], bytes=1024, row=256, pitch=4096, bar=m[0]\n    SYNCS.PHASECHK.TRANS64.TRYWAIT m[0], parity=r & 1\n  EXIT\n"
        );
        let m = sim(&src, &p).memory;
        assert_eq!(m.requests_hbm, lines, "x0 = {x0}: the first copy misses");
        assert_eq!(
            m.requests_l2_near + m.requests_l2_far,
            lines,
            "x0 = {x0}: the second hits"
        );
    }
    // The box reaches 3 x 4096 + 256 bytes: beyond an 8 KiB buffer.
    let src = "kernel box\nlaunch cta_threads=32 regs=8 smem=1024 grid=1\nbuffer A size=8KiB\nshared s size=1024\nmbarrier m[1] count=1\nrole main warps=0..0\n  SYNCS.ARRIVE.TRANS64.EXPECT_TX m[0], bytes=1024\n  UTMALDG.2D s[0], A[0], bytes=1024, row=256, pitch=4096, bar=m[0]\n  SYNCS.PHASECHK.TRANS64.TRYWAIT m[0], parity=0\n  EXIT\n";
    let e = run(&kernel(src), &p, &RunConfig::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("the copy covers bytes 0..12544 of buffer `A`, which has 8192 bytes"),
        "{e}"
    );
}

/// One bulk copy of `bytes` from `offset` into a cold L2, waited for: the run's cycles.
fn cold_copy(bytes: u64, offset: u64, p: &Profile) -> u64 {
    let src = format!(
        "kernel copy\nlaunch cta_threads=32 regs=8 smem={bytes} grid=1\nbuffer A size=4MiB\nshared s size={bytes}\nmbarrier m[1] count=1\nrole main warps=0..0\n  SYNCS.ARRIVE.TRANS64.EXPECT_TX m[0], bytes={bytes}\n  UBLKCP.S.G s[0], A[{offset}], bytes={bytes}, bar=m[0]\n  SYNCS.PHASECHK.TRANS64.TRYWAIT m[0], parity=0\n  EXIT\n"
    );
    sim(&src, p).cycles
}

/// Lines from HBM, hand-derived with the variable parts switched off: a copy's lines
/// cross the SM's port at the burst rate one after another and each arrives `lat_hbm`
/// after its turn, so 8 KiB ends `ceil(8192 / rate) - ceil(4096 / rate)` cycles after
/// 4 KiB; a far line (by the address bits) takes `lat_hbm_far_extra` more, so of two
/// 4 KiB blocks that differ in bit 12 exactly one is that much slower; a slow chunk
/// adds its delay once to a copy whose every chunk draws it.
#[test]
fn hbm_lines_cross_the_burst_rate_and_pay_far_and_slow_chunk_delays() {
    let mut p = h100();
    for (k, v) in [
        ("jitter_hbm", 0.0),
        ("jitter_l2", 0.0),
        ("hbm_tail_probability", 0.0),
        ("lat_hbm_far_extra", 0.0),
        // The TMA unit must not be what limits the copy.
        ("tma_bytes_per_clk", 10_000.0),
    ] {
        p.set(k, v).unwrap();
    }
    let rate = p.t.hbm_burst_bytes_per_clk_sm;
    let turn = |bytes: f64| (bytes / rate).ceil() as u64;
    assert_eq!(
        cold_copy(8192, 0, &p) - cold_copy(4096, 0, &p),
        turn(8192.0) - turn(4096.0)
    );

    let far = 1000.0;
    let mut q = p.clone();
    q.set("lat_hbm_far_extra", far).unwrap();
    q.set("hbm_far_address_bits", (1u64 << 12) as f64).unwrap();
    let (a, b) = (cold_copy(4096, 0, &q), cold_copy(4096, 4096, &q));
    assert_eq!(a.abs_diff(b), far as u64, "{a} and {b}");
    assert_eq!(a.min(b), cold_copy(4096, 0, &p));

    let slow = 300.0;
    let mut r = p.clone();
    r.set("hbm_tail_window_probability", 1.0).unwrap();
    r.set("hbm_tail_probability", 1.0).unwrap();
    r.set("hbm_tail_min", slow).unwrap();
    r.set("hbm_tail_max", slow).unwrap();
    assert_eq!(cold_copy(8192, 0, &r) - cold_copy(8192, 0, &p), slow as u64);
}

#[test]
fn more_resident_warps_than_the_engine_holds_is_explained() {
    // A profile raised past any GPU's 64 warps per SM: 16 CTAs of 32 warps fit it.
    let mut p = h100();
    for (k, v) in [
        ("max_warps_per_sm", 512.0),
        ("max_threads_per_sm", 16384.0),
        ("regs_per_sm", 1048576.0),
    ] {
        p.set(k, v).unwrap();
    }
    let src = "kernel wide\nlaunch cta_threads=1024 regs=32 smem=0 grid=10000\nrole main warps=0..31\n  EXIT\n";
    match run(&kernel(src), &p, &RunConfig::default()) {
        Err(SimError::Invalid(msg)) => assert!(
            msg.contains("512 resident warps") && msg.contains("at most 256"),
            "{msg}"
        ),
        other => panic!(
            "expected an explanation, got {:?}",
            other.map(|r| r.ctas_resident)
        ),
    }
    // Within the limit the same kernel runs, as many 32-warp CTAs resident as fit.
    let limit = 256;
    p.set("max_warps_per_sm", limit as f64).unwrap();
    let r = run(&kernel(src), &p, &RunConfig::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.ctas_resident, limit / 32);
}

#[test]
fn ctas_finishing_together_start_no_more_ctas_than_remain() {
    // One-warp CTAs that only exit: up to 32 resident finish within a CTA launch's wait
    // of each other. The SM's share of the grid is ceil(10000 / sm_count) CTAs, each
    // issuing one EXIT; a CTA launched beyond it would issue another.
    let p = h100();
    let src = "kernel exits\nlaunch cta_threads=32 regs=32 smem=0 grid=10000\nrole main warps=0..0\n  EXIT\n";
    let r = sim(src, &p);
    let share = 10000u64.div_ceil(p.t.sm_count as u64);
    assert_eq!(r.ctas_simulated as u64, share);
    assert_eq!(r.instructions, share);
    assert_eq!(r.roles[0].warps_simulated as u64, share);
}

#[test]
fn fast_forward_changes_nothing_when_warps_wait_beyond_the_due_wheel() {
    // Sleeps of 176 to 6,518 cycles: many end beyond the due wheel's 1024-cycle horizon
    // and come into it at different cycles; then the same run ending in a deadlock.
    let p = h100();
    let body = "kernel sleepers\nlaunch cta_threads=256 regs=32 smem=0 grid=2\nparam N=5\nrole main warps=0..7\n  loop i 0..N\n    NANOSLEEP ((warp * 7 + i * 3) % 5) * 900 + 100\n    FFMA R1, R1, R2, 0.5\n";
    let outcome = |src: &str, fast_forward: bool| {
        let cfg = RunConfig {
            fast_forward,
            ..Default::default()
        };
        match run(&kernel(src), &p, &cfg) {
            Ok(r) => serde_json::to_string(&r).unwrap(),
            Err(e) => e.to_string(),
        }
    };
    let finishes = format!("{body}  EXIT\n");
    let a = outcome(&finishes, true);
    assert!(a.starts_with('{'), "{a}");
    assert_eq!(a, outcome(&finishes, false));
    let deadlocks = format!("{body}  if warp < 7\n    BAR.SYNC 1, 256\n  EXIT\n");
    let d = outcome(&deadlocks, true);
    assert!(d.contains("deadlock"), "{d}");
    assert_eq!(d, outcome(&deadlocks, false));
}

/// A coalesced load (lanes 4 bytes apart) that runs off its buffer names the first lane
/// out, as evaluating every lane would; one that fits reads its one line.
#[test]
fn a_coalesced_load_off_its_buffer_names_the_first_lane_out() {
    let p = h100();
    let at = |offset: u64| {
        format!(
            "kernel edge\nlaunch cta_threads=32 regs=8 smem=0 grid=1\nbuffer A size=256\nrole main warps=0..0\n  LDG.E R1, A[{offset} + lane * 4]\n  EXIT\n"
        )
    };
    // Lanes 0..=31 cover bytes 128..256: in bounds, one line.
    let m = sim(&at(128), &p).memory;
    assert_eq!(m.requests_l2_near + m.requests_l2_far + m.requests_hbm, 1);
    // From 200, lane 14 reads byte 256: the first lane out of the 256 bytes.
    let first_out = (256 - 200) / 4;
    let e = run(&kernel(&at(200)), &p, &RunConfig::default()).unwrap_err();
    assert!(
        e.to_string().contains(&format!(
            "lane {first_out} reads byte 256 of buffer `A`, which has 256 bytes"
        )),
        "{e}"
    );
}

/// A shared-memory address that goes negative from some lane on names that lane, as
/// evaluating every lane would (lanes are filled from lane 0's only when lane 31's
/// address is valid too).
#[test]
fn a_shared_address_going_negative_names_the_first_lane() {
    let src = "kernel neg\nlaunch cta_threads=32 regs=8 smem=1024 grid=1\nshared s size=1024\nrole main warps=0..0\n  LDS R1, s[60 - lane * 4]\n  EXIT\n";
    let e = run(&kernel(src), &h100(), &RunConfig::default()).unwrap_err();
    // Lane 16 is the first below 0: 60 - 64.
    assert!(
        e.to_string()
            .contains("lane 16 computes a negative address -4"),
        "{e}"
    );
}

/// A deadlock is reported at the same cycle with and without fast-forward: the cycle
/// after the last issue, where the warp that issued finds itself blocked (cycle 1 here:
/// the blocking instructions issue at cycle 0), or where the last warp retires; with a
/// copy in flight, where its bytes land (after which nothing is left to come).
#[test]
fn a_deadlock_is_reported_at_the_same_cycle_with_and_without_fast_forward() {
    let cases = [
        // The quitter's EXIT issues at 0 and it retires at 1.
        "kernel stuck\nlaunch cta_threads=64 regs=32 smem=0 grid=1\nrole waiter warps=0..0\n  BAR.SYNC 0\n  EXIT\nrole quitter warps=1..1\n  EXIT\n",
        // Two warps on two named barriers, each waiting for the other's.
        "kernel stuck\nlaunch cta_threads=64 regs=32 smem=0 grid=1\nbarrier a id=1 threads=64\nbarrier b id=2 threads=64\nrole x warps=0..0\n  BAR.SYNC 1, 64\n  EXIT\nrole y warps=1..1\n  BAR.SYNC 2, 64\n  EXIT\n",
        // An mbarrier wait nobody arrives at.
        "kernel stuck\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nmbarrier full[2] count=1\nrole main warps=0..0\n  SYNCS.PHASECHK.TRANS64.TRYWAIT full[1], parity=0\n  EXIT\n",
        // A copy still in flight when the warp waits on the other mbarrier: its bytes
        // land later, and then nothing is left to come.
        "kernel stuck\nlaunch cta_threads=32 regs=8 smem=1024 grid=1\nbuffer A size=8KiB\nshared s size=1024\nmbarrier m[2] count=1\nrole main warps=0..0\n  SYNCS.ARRIVE.TRANS64.EXPECT_TX m[0], bytes=1024\n  UBLKCP.S.G s[0], A[0], bytes=1024, bar=m[0]\n  SYNCS.PHASECHK.TRANS64.TRYWAIT m[1], parity=0\n  EXIT\n",
    ];
    for src in cases {
        let k = kernel(src);
        let cycles: Vec<u64> = [true, false]
            .into_iter()
            .map(|ff| {
                let cfg = RunConfig {
                    fast_forward: ff,
                    ..Default::default()
                };
                match run(&k, &h100(), &cfg) {
                    Err(SimError::Deadlock(r)) => r.cycle,
                    other => panic!("expected a deadlock, got {other:?}"),
                }
            })
            .collect();
        assert_eq!(cycles[0], cycles[1], "{src}");
        if src.contains("UBLKCP") {
            // Reported once the copy has landed (nothing could come before), not when
            // the warp began to wait.
            assert!(cycles[0] > 100, "{cycles:?}");
        } else {
            assert_eq!(cycles[0], 1, "{src}");
        }
    }
}

/// A kernel that reads each byte of its buffer once, from HBM (nothing of it in L2 at
/// the start), moves as many HBM bytes as it declares: its HBM rate is its declared
/// rate. (Both are over the same whole-kernel estimate, for the whole grid.)
#[test]
fn a_kernel_reading_each_byte_once_reports_its_declared_rate_as_hbm() {
    let src = "kernel stream\nlaunch cta_threads=128 regs=16 smem=0 grid=264\nbuffer A size=33MiB\nparam N=8\nwork bytes=N * 4 * 128\nrole main warps=0..3\n  loop i 0..N\n    LDG.E R1, A[((cta * N + i) * 4 + warp) * 128 + lane * 4]\n  EXIT\n";
    let r = sim(src, &h100());
    let declared = r.gbps.expect("the kernel declares its bytes");
    assert!(
        (r.hbm_gbps / declared - 1.0).abs() < 0.01,
        "HBM {} GB/s against {} declared",
        r.hbm_gbps,
        declared
    );
}

#[test]
fn a_warp_running_off_its_roles_end_drains_charged_to_the_end() {
    // No EXIT: the warp issues its load, runs off the end and drains until the load is
    // back. Its drain is the implicit EXIT's, so the per-instruction totals still hold
    // every cycle of its life.
    let src = "kernel k\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nbuffer A size=4KiB\nrole main warps=0..0\n  LDG.E R1, A[lane * 4]\n";
    let r = sim(src, &h100());
    let w = &r.warps[0];
    let role = &r.roles[0];
    assert_eq!(role.per_pc.len(), 2);
    let end = &role.per_pc[1];
    assert_eq!(end.instruction, sim_core::IMPLICIT_EXIT);
    assert_eq!(end.issued, 0);
    let drain = w.states.get(WarpState::Drain);
    assert!(drain > 100, "the load is outstanding past the end: {drain}");
    assert_eq!(end.states.get(WarpState::Drain), drain);
    let per_pc: u64 = role.per_pc.iter().map(|p| p.states.total()).sum();
    assert_eq!(per_pc, w.finished - w.started);
    // A role ending in EXIT reports no such row.
    let with_exit = sim(&format!("{src}  EXIT\n"), &h100());
    assert_eq!(with_exit.roles[0].per_pc.len(), 2);
    assert_eq!(with_exit.roles[0].per_pc[1].instruction, "EXIT");
}

#[test]
fn events_number_instructions_as_the_report_does() {
    // Loops and ifs put nodes of their own between instructions: an event's pc is still
    // the report's (each instruction's issues counted from the events are its report's).
    use sim_core::sink::{Event, VecSink};
    let p = h100();
    let k = kernel(MIXED);
    let mut sink = VecSink::default();
    let cfg = RunConfig::default();
    let r = sim_core::run_with(&k, &p, &cfg, cfg.policy.build(), &mut sink).unwrap();
    for (ri, role) in r.roles.iter().enumerate() {
        let mut issued = vec![0u64; role.per_pc.len()];
        for e in &sink.events {
            if let Event::Issue { role: er, pc, .. } = e
                && *er as usize == ri
            {
                issued[*pc as usize] += 1;
            }
        }
        let reported: Vec<u64> = role.per_pc.iter().map(|p| p.issued).collect();
        assert_eq!(issued, reported, "role {}", role.name);
    }
    // Every state change names an instruction of the report.
    let rows: usize = r.roles.iter().map(|r| r.per_pc.len()).max().unwrap();
    assert!(sink.events.iter().all(|e| match e {
        Event::StateChange { pc, .. } => (*pc as usize) < rows,
        _ => true,
    }));
}

/// Values the kernel computes at run time that no mbarrier or copy can take are faults
/// that say so, not numbers wrapped around (the values come from parameters; each
/// passes validation but the arrival count, which validation now catches too: the
/// engine's check stays for kernels run unvalidated).
#[test]
fn out_of_range_mbarrier_and_copy_values_are_faults() {
    let p = h100();
    let fault = |decls: &str, body: &str| {
        let src = format!(
            "kernel k\nlaunch cta_threads=32 regs=8 smem=8192 grid=1\nbuffer A size=1MiB\nshared s size=4096\nmbarrier m count=1\n{decls}\nrole main warps=0..0\n{body}  EXIT\n"
        );
        let k = kernel(&src);
        let diagnostics = isa::validate(&k);
        assert!(
            diagnostics.is_empty() || decls == "param N=4294967297",
            "{src}: {diagnostics:?}"
        );
        run(&k, &p, &RunConfig::default()).unwrap_err().to_string()
    };
    let tx = fault(
        "param B=1048576",
        "  SYNCS.ARRIVE.TRANS64.EXPECT_TX m[0], bytes=B\n",
    );
    assert!(tx.contains("an arrive expects 0 to 1048575 transaction bytes (the mbarrier's tx-count is 20 bits), not 1048576"), "{tx}");
    // 2^32 + 1 arrivals: not one arrival, as its low 32 bits would say. Validation's
    // protocol check sees the count against the mbarrier's before any run.
    let src = "kernel k\nlaunch cta_threads=32 regs=8 smem=8192 grid=1\nbuffer A size=1MiB\nshared s size=4096\nmbarrier m count=1\nparam N=4294967297\nrole main warps=0..0\n  SYNCS.ARRIVE.TRANS64 m[0], count=N\n  EXIT\n";
    let count = isa::validate(&kernel(src));
    assert!(
        count
            .iter()
            .any(|d| d.message.contains("arrives 4294967297 times on `m[0]`")),
        "{count:?}"
    );
    // Sixteen rows almost a whole i64 apart.
    let pitch = fault(
        "param P=9223372036854775792",
        "  SYNCS.ARRIVE.TRANS64.EXPECT_TX m[0], bytes=4096\n  UTMALDG.2D s[0], A[0], bytes=4096, row=256, pitch=P, bar=m[0]\n",
    );
    assert!(pitch.contains("a box of 16 rows 9223372036854775792 bytes apart spans more bytes than any buffer holds"), "{pitch}");
}

/// A local address beyond a thread's 512 KiB of local memory is a fault naming the lane
/// and the byte (an offset near i64's range overflowed the local address before).
#[test]
fn a_local_address_beyond_a_threads_local_memory_is_a_fault() {
    let p = h100();
    let at = |offset: i64| {
        format!(
            "kernel k\nlaunch cta_threads=32 regs=8 smem=0 grid=1\nparam OFF={offset}\nrole main warps=0..0\n  STL.128 local[OFF], R4\n  EXIT\n"
        )
    };
    let last = (512 << 10) - 16;
    assert!(run(&kernel(&at(last)), &p, &RunConfig::default()).is_ok());
    for off in [512 << 10, i64::MAX / 2] {
        let e = run(&kernel(&at(off)), &p, &RunConfig::default()).unwrap_err();
        assert!(
            e.to_string().contains(&format!(
                "lane 0 addresses local byte {off}, beyond a thread's 524288 bytes (512 KiB) of local memory"
            )),
            "{e}"
        );
    }
}

/// Two warps' local memory never overlaps, however far into its 512 KiB a thread
/// reaches: warp 0's byte 32 KiB is not warp 1's byte 0 (it was, when every warp's local
/// memory was one region of 1 MiB). After warp 1 stores its byte 0, warp 0's load of its
/// byte 32 KiB fares as its load of its own untouched byte 0, not as warp 1's load of
/// the line it stored, which hits.
#[test]
fn warps_local_memories_do_not_overlap() {
    let load = |warp: u32, off: u32| {
        let src = format!(
            "kernel k\nlaunch cta_threads=64 regs=16 smem=0 grid=1\nrole main warps=0..1\n  if warp == 1\n    STL.128 local[0], R4\n  BAR.SYNC 0\n  if warp == {warp}\n    LDL.128 R4, local[{off}]\n  EXIT\n"
        );
        sim(&src, &h100()).memory
    };
    let (far, untouched, stored) = (load(0, 32768), load(0, 0), load(1, 0));
    assert_eq!(format!("{far:?}"), format!("{untouched:?}"));
    assert!(
        stored.requests_l1 > untouched.requests_l1,
        "{stored:?} {untouched:?}"
    );
}

/// A kernel whose declared work comes to a negative number (its product wrapped past 64
/// bits) is not run: a negative GB/s would be reported.
#[test]
fn negative_declared_work_is_refused() {
    let src = "kernel k\nlaunch cta_threads=32 regs=8 smem=0 grid=1\nparam T=2\nwork bytes=9223372036854775807 * T\nrole main warps=0..0\n  EXIT\n";
    let e = run(&kernel(src), &h100(), &RunConfig::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("line 4:1: work: comes to -2, and a CTA's work is not negative"),
        "{e}"
    );
}

/// A pipe's busy share counts the cycles within the run: a kernel that ends right after
/// issuing leaves its last issue intervals partly past its end (8 warps issuing two
/// MOVs each on the B200's ALU, two cycles apart, reported 114% busy before).
#[test]
fn a_pipe_is_busy_at_most_the_whole_run() {
    let src = "kernel k\nlaunch cta_threads=256 regs=32 smem=0 grid=1\nrole main warps=0..7\n  MOV R2, RZ\n  MOV R3, RZ\n";
    let r = sim(src, &Profile::builtin("b200").unwrap());
    // Each sub-partition's four MOVs keep its ALU busy from the first issue (cycle 0)
    // on, an interval each, past the run's end: busy all the run, not more.
    let interval = Profile::builtin("b200").unwrap().t.alu_issue_interval as u64;
    assert!(4 * interval > r.cycles, "{} cycles", r.cycles);
    assert_eq!(r.unit("alu"), 1.0, "over {} cycles", r.cycles);
}

/// A warpgroup that exits without waiting for its MMA drains until the MMA has written
/// its accumulators (the warps' registers): its run ends one cycle before the same
/// warpgroup's that waits (`WARPGROUP.DEPBAR`) and then issues its EXIT. Before, it
/// retired at once, and the tensor pipe was reported busy beyond the run.
#[test]
fn warps_exiting_with_an_mma_in_flight_drain_for_it() {
    let no_wait = "kernel k\nlaunch cta_threads=128 regs=168 smem=65536 grid=1\nshared sA size=32768\nshared sB size=32768\nrole mma warps=0..3\n  WARPGROUP.ARRIVE\n  HGMMA.64x256x16.F32.BF16 R24, sA[0], sB[0], gsb0\n  EXIT\n";
    let wait = no_wait.replace("  EXIT\n", "  WARPGROUP.DEPBAR.LE gsb0, 0\n  EXIT\n");
    let (a, b) = (sim(no_wait, &h100()), sim(&wait, &h100()));
    assert_eq!(a.cycles + 1, b.cycles);
    let w = &a.warps[0];
    assert_eq!(w.states.get(WarpState::Drain), a.cycles - w.instructions);
    assert!(a.unit("tensor") <= 1.0, "tensor {}", a.unit("tensor"));
}

/// `fma_tensor_cycles`: an FMA-pipe warp-instruction issued while its sub-partition's
/// tensor core runs an HGMMA holds the tensor core that long, so the next HGMMA starts
/// later by the FMAs' count times k. Here each warp of the warpgroup issues 32
/// independent FFMAs (one a cycle) inside the first HGMMA's 64 cycles: once the second
/// HGMMA waits on the tensor core rather than on its own issue (at k = 0 it issues 2
/// cycles after the first one ends), it and the end move by 32 x k. The h100 profile has
/// 1 (measured: 0.99 cycle per FFMA beside a busy tensor core).
#[test]
fn an_fma_beside_a_busy_tensor_core_delays_its_next_mma() {
    let mut src = String::from(
        "kernel k\nlaunch cta_threads=128 regs=168 smem=65536 grid=1\nshared sA size=32768\nshared sB size=32768\nrole mma warps=0..3\n  WARPGROUP.ARRIVE\n  HGMMA.64x128x16.F32.BF16 R24, sA[0], sB[0], gsb0\n",
    );
    for i in 0..32 {
        src.push_str(&format!("  FFMA R{}, R1, R2, R3\n", 100 + i));
    }
    src.push_str("  WARPGROUP.ARRIVE\n  HGMMA.64x128x16.F32.BF16 R24, sA[0], sB[0], gsb0\n  WARPGROUP.DEPBAR.LE gsb0, 0\n  EXIT\n");
    let at = |k: f64| {
        let mut p = h100();
        p.set("fma_tensor_cycles", k).unwrap();
        sim(&src, &p).cycles
    };
    assert_eq!(h100().t.fma_tensor_cycles, 1.0);
    assert_eq!(at(1.0) - at(0.0), 32 - 2);
    assert_eq!(at(2.0) - at(1.0), 32);
    assert_eq!(at(3.0) - at(2.0), 32);
}

/// `mufu_tensor_cycles`: each MUFU warp-instruction holds its sub-partition's tensor core
/// that long, so an HGMMA behind sixteen back-to-back MUFUs starts 16 x k after the
/// first (each pushes the tensor core's next free cycle by k from where it was, k being
/// more than the MUFU's 8-cycle interval). Between k = 32 and k = 64 the HGMMA, and
/// everything after it, moves by 16 x 32 = 512 cycles. The h100 profile has 0 (measured:
/// MUFU beside a busy tensor core costs it nothing).
#[test]
fn a_mufu_holds_its_subpartitions_tensor_core() {
    let mut src = String::from(
        "kernel k\nlaunch cta_threads=128 regs=168 smem=65536 grid=1\nshared sA size=32768\nshared sB size=32768\nrole mma warps=0..3\n",
    );
    for i in 0..16 {
        src.push_str(&format!("  MUFU.EX2 R{}, R1\n", 100 + i));
    }
    src.push_str("  WARPGROUP.ARRIVE\n  HGMMA.64x128x16.F32.BF16 R24, sA[0], sB[0], gsb0\n  WARPGROUP.DEPBAR.LE gsb0, 0\n  EXIT\n");
    let at = |k: f64| {
        let mut p = h100();
        p.set("mufu_tensor_cycles", k).unwrap();
        sim(&src, &p).cycles
    };
    assert_eq!(h100().t.mufu_tensor_cycles, 0.0);
    assert_eq!(at(64.0) - at(32.0), 16 * 32);
    // Up to the MUFU's own 8-cycle interval each hold ends before the next MUFU issues,
    // so only the last one's reaches the HGMMA: past the HGMMA's own start it moves it
    // cycle for cycle.
    let (k0, k4, k8) = (at(0.0), at(4.0), at(8.0));
    assert!(
        k4 > k0,
        "k = 4 reaches past the HGMMA's start ({k4} vs {k0})"
    );
    assert_eq!(k8 - k4, 4);
}

/// `mufu_beside_tensor_cycles`: while its sub-partition's tensor core has an MMA to run,
/// a MUFU warp-instruction's issue interval is the pipe's 8 cycles plus k. Warp 4 (on
/// sub-partition 0, beside warp 0 of the warpgroup) waits out a chain of three FFMAs, so
/// that the warpgroup's 16 HGMMAs (1024 tensor cycles) are booked, then issues 16
/// MUFU.EX2 back to back, all inside those cycles: the last one issues 15 x (8 + k) after
/// the first, so the warp finishes 15 x k later than at k = 0. Without the HGMMAs the
/// tensor core is idle and k changes nothing. The h100 profile has 3 (measured: MUFU.EX2
/// every 8.04 cycles alone, 10.78 beside wgmma).
#[test]
fn a_mufu_beside_a_busy_tensor_core_issues_slower() {
    let kernel = |mma: bool| {
        let mut src = String::from(
            "kernel k\nlaunch cta_threads=256 regs=168 smem=65536 grid=1\nshared sA size=32768\nshared sB size=32768\nrole mma warps=0..3\n",
        );
        if mma {
            src.push_str("  WARPGROUP.ARRIVE\n");
            for _ in 0..15 {
                src.push_str("  HGMMA.64x128x16.F32.BF16 R24, sA[0], sB[0]\n");
            }
            src.push_str("  HGMMA.64x128x16.F32.BF16 R24, sA[0], sB[0], gsb0\n  WARPGROUP.DEPBAR.LE gsb0, 0\n");
        }
        src.push_str("  EXIT\nrole sfu warps=4..7\n");
        for _ in 0..3 {
            src.push_str("  FFMA R1, R1, R2, R3\n");
        }
        src.push_str("  MUFU.EX2 R100, R1\n");
        for i in 1..16 {
            src.push_str(&format!("  MUFU.EX2 R{}, R2\n", 100 + i));
        }
        src.push_str("  EXIT\n");
        src
    };
    let finished = |mma: bool, k: f64| {
        let mut p = h100();
        p.set("mufu_beside_tensor_cycles", k).unwrap();
        let r = sim(&kernel(mma), &p);
        r.warps.iter().find(|w| w.warp == 4).unwrap().finished
    };
    assert_eq!(h100().t.mufu_beside_tensor_cycles, 3.0);
    assert_eq!(finished(true, 3.0) - finished(true, 0.0), 15 * 3);
    assert_eq!(finished(true, 5.0) - finished(true, 0.0), 15 * 5);
    assert_eq!(finished(false, 5.0), finished(false, 0.0));
}
