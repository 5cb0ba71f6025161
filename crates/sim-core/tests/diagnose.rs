//! The diagnosis of small hand-checked kernels: bounds, flags and advice.

use sim_core::diagnose::{Advice, BoundUnit, Diagnosis, Flag, diagnose};
use sim_core::{Profile, RunConfig, RunResult, run};

fn kernel(src: &str) -> isa::Kernel {
    isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)))
}

fn h100() -> Profile {
    Profile::builtin("h100").unwrap()
}

fn sim(src: &str, p: &Profile) -> RunResult {
    run(&kernel(src), p, &RunConfig::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// A run of `src` on `p` and its diagnosis.
fn diagnosed(src: &str, p: &Profile) -> (RunResult, Diagnosis) {
    let r = sim(src, p);
    let d = diagnose(&r, &kernel(src), p);
    (r, d)
}

/// `wgs` warpgroups, each issuing `n` HGMMA.64x256x16 with a wgmma group per MMA,
/// waiting until at most `in_flight` groups are outstanding after each.
fn mma_kernel(wgs: u32, n: u32, in_flight: u32) -> String {
    format!(
        "kernel mma\nlaunch cta_threads={} regs=168 smem=65536 grid=1\nshared sA size=32768\nshared sB size=32768\nrole mma warps=0..{}\n  loop i 0..{n}\n    WARPGROUP.ARRIVE\n    HGMMA.64x256x16.F32.BF16 R24, sA[0], sB[0], gsb0\n    WARPGROUP.DEPBAR.LE gsb0, {in_flight}\n  WARPGROUP.DEPBAR.LE gsb0, 0\n  EXIT\n",
        wgs * 128,
        wgs * 4 - 1
    )
}

/// One HGMMA.64x256x16 in BF16 is 2 * 64 * 256 * 16 = 524,288 flops; the H100's SM
/// does 4,096 a cycle on its tensor pipe: 128 cycles. Two warpgroups of 32 MMAs each
/// keep the pipe busy for 2 * 32 * 128 = 8,192 cycles, whatever the schedule.
#[test]
fn a_tensor_bound_kernel_is_bound_by_the_tensor_pipe() {
    let p = h100();
    assert_eq!(
        (2.0 * 64.0 * 256.0 * 16.0 / p.t.tensor_flops_per_clk_sm) as u64,
        128
    );
    let (r, d) = diagnosed(&mma_kernel(2, 32, 1), &p);
    assert_eq!(d.bounds.binding, BoundUnit::Tensor);
    assert_eq!(d.bounds.lower_bound_cycles, 2 * 32 * 128);
    assert!(r.cycles >= 2 * 32 * 128, "{} cycles", r.cycles);
    // The run's distance from the bound: the first MMA's issue and the last one's
    // latency (46 cycles) lie outside the pipe's busy time.
    let over = r.cycles - d.bounds.lower_bound_cycles;
    assert!(over >= p.t.hgmma_latency as u64 && over < 100, "{over}");
    assert!(
        (d.bounds.above_bound - over as f64 / 8192.0).abs() < 1e-9,
        "{}",
        d.bounds.above_bound
    );
    // Every other unit's bound is below it.
    for u in &d.bounds.units {
        assert!(u.lower_bound_cycles <= 8192, "{u:?}");
    }
    assert!(d.flags.is_empty(), "{:?}", d.flags);
    // Its critical path runs back from the last wait through the MMAs that kept the
    // pipe busy, both warpgroups': all tensor pipe but the first issue and the EXIT.
    let (_, d) =
        sim_core::diagnose::diagnose_run(&kernel(&mma_kernel(2, 32, 1)), &p, &RunConfig::default())
            .unwrap();
    let path = d.critical_path.unwrap();
    assert_eq!(path.end, r.cycles);
    let tensor = path.cycles_of(sim_core::diagnose::PathCategory::TensorPipe);
    assert!(
        tensor >= 2 * 32 * 128 && tensor + 10 >= r.cycles,
        "{path:?}"
    );
    assert!(path.hops >= 1, "{path:?}");
    assert!(
        path.instructions[0].instruction.starts_with("HGMMA"),
        "{path:?}"
    );
}

/// An FFMA chain per warp issues once per `lat_fma` cycles: far from any unit's peak.
/// Its binding unit is the issue slots, bounded by one scheduler's issues.
#[test]
fn a_latency_bound_chain_is_far_above_its_bound() {
    let p = h100();
    let src = "kernel chain\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nrole main warps=0..0\n  loop i 0..100\n    FFMA R1, R1, R2, 0.5\n  EXIT\n";
    let (_, d) = diagnosed(src, &p);
    // 100 FFMAs and the EXIT, all on one scheduler; the FMA pipe is booked one cycle
    // an FFMA, over the four sub-partitions: 25 cycles.
    assert_eq!(d.bounds.binding, BoundUnit::IssueSlots);
    assert_eq!(d.bounds.lower_bound_cycles, 101);
    assert_eq!(
        d.bounds.unit(BoundUnit::Fma).unwrap().lower_bound_cycles,
        25
    );
    assert!(d.bounds.above_bound > 2.0, "{}", d.bounds.above_bound);
}

/// Two warpgroups waiting for each MMA (wait_group 0) keep the tensor pipe saturated:
/// their WARPGROUP.DEPBAR stall (`barrier` by Nsight Compute's name, the advice naming
/// that state) is the pipe's own time, and no wait_group advice is given. One
/// warpgroup alone leaves the pipe idle while it waits out each MMA's latency: then
/// keeping a group in flight is the advice.
#[test]
fn a_gmma_stall_with_the_pipe_saturated_gets_no_wait_group_advice() {
    let p = h100();
    let (_, d) = diagnosed(&mma_kernel(2, 32, 0), &p);
    assert!(d.bounds.use_of(BoundUnit::Tensor) >= 0.9);
    assert!(
        d.advice.iter().any(|a| matches!(
            a,
            Advice::PipeSaturated {
                unit: BoundUnit::Tensor,
                ..
            }
        )),
        "{:?}",
        d.advice
    );
    assert!(
        !d.advice
            .iter()
            .any(|a| matches!(a, Advice::KeepMmaInFlight { .. })),
        "{:?}",
        d.advice
    );

    let (_, d) = diagnosed(&mma_kernel(1, 32, 0), &p);
    let tensor = d.bounds.use_of(BoundUnit::Tensor);
    // Each MMA: 128 cycles on the pipe, then its 46 cycles of latency, then the next
    // is issued: the pipe is busy 128 of every 174 or more cycles.
    assert!(tensor < 128.0 / 174.0 + 1e-9, "{tensor}");
    assert!(
        d.advice
            .iter()
            .any(|a| matches!(a, Advice::KeepMmaInFlight { .. })),
        "{:?}",
        d.advice
    );
}

/// A TMA pipeline from HBM: the producer fills `stages` stages of 16 KiB, each
/// consumer stage costs 64 dependent FFMAs (256 cycles).
fn pipeline(stages: u32) -> String {
    format!(
        "kernel pipe\nlaunch cta_threads=64 regs=64 smem={smem} grid=8\nbuffer A global size=256MiB\nshared st size={smem}\nmbarrier full[{stages}] count=1\nmbarrier empty[{stages}] count=1\nparam S={stages} KT=48\nrole producer warps=0..0\n  loop k 0..KT\n    SYNCS.PHASECHK.TRANS64.TRYWAIT empty[k % S], parity=((k / S) & 1) ^ 1\n    SYNCS.ARRIVE.TRANS64.EXPECT_TX full[k % S], bytes=16384\n    UBLKCP st[(k % S) * 16384], A[(cta * KT + k) * 16384], bytes=16384, bar=full[k % S]\n  EXIT\nrole consumer warps=1..1\n  loop k 0..KT\n    SYNCS.PHASECHK.TRANS64.TRYWAIT full[k % S], parity=(k / S) & 1\n    loop i 0..64\n      FFMA R1, R1, R2, 0.5\n    SYNCS.ARRIVE.TRANS64 empty[k % S]\n  EXIT\n",
        smem = stages * 16384
    )
}

fn more_stages(d: &Diagnosis) -> Option<u64> {
    d.advice.iter().find_map(|a| match a {
        Advice::MoreStages { stages, .. } => Some(*stages),
        _ => None,
    })
}

/// Two stages do not cover a copy from HBM (about 900 cycles) at 256 cycles a stage:
/// the consumer sleeps, and the advice names the stages that would. With them, the
/// consumer's sleep shrinks to the pipeline's fill and the advice is gone.
#[test]
fn a_sleeping_consumer_behind_hbm_copies_is_told_how_many_stages() {
    let p = h100();
    let (r, d) = diagnosed(&pipeline(2), &p);
    let stages = more_stages(&d).unwrap_or_else(|| panic!("{:?}", d.advice));
    let Some(Advice::MoreStages {
        copy_latency_cycles,
        stage_cycles,
        stages_now,
        ..
    }) = d
        .advice
        .iter()
        .find(|a| matches!(a, Advice::MoreStages { .. }))
    else {
        unreachable!()
    };
    // A stage's own time: 64 FFMAs a lat_fma apart, the wait and the arrive.
    let ffmas = 64 * p.t.lat_fma as u64;
    assert!(
        *stage_cycles >= ffmas && *stage_cycles < ffmas + 20,
        "{stage_cycles}"
    );
    assert!(
        *copy_latency_cycles as f64 > p.t.lat_hbm,
        "{copy_latency_cycles}"
    );
    assert_eq!(
        stages,
        copy_latency_cycles.div_ceil(*stage_cycles) + 1,
        "{d:?}"
    );
    assert_eq!(*stages_now, 2);
    assert!(stages > 2 && stages <= 8, "{stages}");
    let sleeping = |r: &RunResult| {
        let c = r.role("consumer").unwrap();
        // (Its mbarrier waits, by their typed cause: Nsight names the state
        // `long_scoreboard`, smsim once `sleeping`.)
        let waits: u64 = c
            .per_pc
            .iter()
            .flat_map(|p| &p.waits_on)
            .filter(|w| {
                matches!(
                    w.on,
                    sim_core::cause::Waited::MbarrierArrivals { .. }
                        | sim_core::cause::Waited::MbarrierCopies { .. }
                )
            })
            .map(|w| w.cycles)
            .sum();
        waits as f64 / c.states.total() as f64
    };
    let (deeper, d2) = diagnosed(&pipeline(stages as u32), &p);
    assert!(
        sleeping(&deeper) < sleeping(&r) / 2.0,
        "{} -> {}",
        sleeping(&r),
        sleeping(&deeper)
    );
    assert!(deeper.cycles < r.cycles);
    assert_eq!(more_stages(&d2), None, "{:?}", d2.advice);
}

/// A fast role meets a slow one at a named barrier each iteration: the fast role's
/// barrier wait is behind the slow role, which waits least.
#[test]
fn a_barrier_stall_names_the_slow_partner() {
    let p = h100();
    let src = "kernel pair\nlaunch cta_threads=64 regs=32 smem=0 grid=1\nbarrier meet id=1 threads=64\nrole fast warps=0..0\n  loop k 0..16\n    FFMA R1, R1, R2, 0.5\n    BAR.SYNC meet\n  EXIT\nrole slow warps=1..1\n  loop k 0..16\n    loop i 0..32\n      FFMA R1, R1, R2, 0.5\n    BAR.SYNC meet\n  EXIT\n";
    let (_, d) = diagnosed(src, &p);
    let a = d
        .advice
        .iter()
        .find(|a| matches!(a, Advice::SlowPartner { .. }))
        .unwrap_or_else(|| panic!("{:?}", d.advice));
    match a {
        Advice::SlowPartner {
            role,
            instruction,
            partner_role,
            partner_warp,
            ..
        } => {
            assert_eq!(role, "fast");
            assert_eq!(instruction, "BAR.SYNC meet");
            assert_eq!(partner_role, "slow");
            assert_eq!(*partner_warp, 1);
        }
        _ => unreachable!(),
    }
}

/// 255 registers a thread for 8 warps: 255 rounds up to 256 a thread, 8,192 a warp,
/// 65,536 a CTA, the whole register file: one CTA per SM where the warp slots allow 8.
/// One more CTA needs at most 65,536 / 16 warps = 4,096 a warp: 128 a thread.
#[test]
fn register_limited_occupancy_under_memory_latency_is_advised() {
    let p = h100();
    let src = "kernel chase\nlaunch cta_threads=256 regs=255 smem=0 grid=1056\nbuffer A global size=256MiB\nrole main warps=0..7\n  loop i 0..8\n    LDG.E R1, A[((cta * 8 + warp) * 8 + i) * 4096 + lane * 4]\n    FFMA R2, R1, R2, 0.5\n  EXIT\n";
    let (_, d) = diagnosed(src, &p);
    let a = d
        .advice
        .iter()
        .find(|a| matches!(a, Advice::RegisterLimited { .. }))
        .unwrap_or_else(|| panic!("{:?}", d.advice));
    assert_eq!(
        *a,
        Advice::RegisterLimited {
            ctas_by_regs: 1,
            ctas_otherwise: 8,
            regs_for_one_more: 128,
            latency_share: match a {
                Advice::RegisterLimited { latency_share, .. } => *latency_share,
                _ => unreachable!(),
            },
        }
    );
}

/// Stores the SM writes to L2 leave for HBM after the run: they are left out of the
/// run's HBM rate (which stays within the chip's peak) and bound, and flagged.
#[test]
fn hbm_write_backs_after_the_run_are_flagged_not_counted() {
    let p = h100();
    let src = "kernel store\nlaunch cta_threads=256 regs=32 smem=0 grid=132\nbuffer C global size=32MiB\nrole main warps=0..7\n  loop c 0..32\n    STG.E.128 C[(((cta * 8 + warp) * 32 + c) * 32 + lane) * 16], R24\n  EXIT\n";
    let (r, d) = diagnosed(src, &p);
    // 8 warps x 32 stores x 512 bytes, each written back to HBM.
    let stored = 8 * 32 * 512;
    let m = &r.memory;
    assert_eq!(m.hbm_bytes + m.hbm_bytes_after_run, stored, "{m:?}");
    assert!(m.hbm_bytes_after_run > 0, "{m:?}");
    // Within the run, at most this SM's share of the bandwidth for its cycles.
    let share = sim_core::diagnose::bounds::hbm_bytes_per_clk(&r, &p);
    assert!(
        m.hbm_bytes as f64 <= share * r.cycles as f64 + 1.0,
        "{} bytes in {} cycles at {share} B/clk",
        m.hbm_bytes,
        r.cycles
    );
    // (Bandwidths are bytes per cycle of the light clock, in time whatever the kernel's.)
    let peak = p.t.hbm_bytes_per_clk_chip * p.t.clock_mhz_light / 1e3;
    assert!(r.hbm_gbps <= peak * 1.001, "{} vs {peak}", r.hbm_gbps);
    let after = m.hbm_bytes_after_run;
    assert_eq!(
        d.flags,
        vec![Flag::HbmWritebackAfterRun {
            bytes: after,
            cycles: (after as f64 / share).ceil() as u64,
        }]
    );
    let hbm = d.bounds.unit(BoundUnit::HbmBandwidth).unwrap();
    assert!(!hbm.exceeds_run, "{hbm:?}");
}

/// HGMMA on the B200 profile: Blackwell has no warpgroup MMAs, and the run is refused
/// with the line and role; tcgen05 (tensor memory) on the H100 likewise.
#[test]
fn instructions_the_gpu_lacks_are_refused() {
    let b200 = Profile::builtin("b200").unwrap();
    let e = run(&kernel(&mma_kernel(1, 2, 0)), &b200, &RunConfig::default()).unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, sim_core::SimError::Invalid(_)), "{m}");
    assert!(
        m.contains("line 7") && m.contains("role mma") && m.contains("WARPGROUP"),
        "{m}"
    );
    assert!(m.contains("Hopper") && m.contains("b200"), "{m}");
    // (The same kernel runs on the H100.)
    let (_, d) = diagnosed(&mma_kernel(1, 2, 0), &h100());
    assert!(d.flags.is_empty(), "{:?}", d.flags);
    let tc = "kernel tc\nlaunch cta_threads=128 regs=64 smem=0 tmem=128 grid=1\nrole main warps=0..3\n  TMEMALLOC cols=128\n  TMEMDEALLOC cols=128\n  EXIT\n";
    let e = run(&kernel(tc), &h100(), &RunConfig::default()).unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, sim_core::SimError::Invalid(_)), "{m}");
    assert!(m.contains("no tensor memory") && m.contains("b200"), "{m}");
}

/// 16 warps each load 64 times 16 bytes a lane from shared memory, conflict-free: 512
/// bytes, four 128-byte wavefronts, an LDS.128. The crossbar moves `smem_bytes_per_clk`
/// a cycle, so the 1,024 loads need 1,024 x 512 / 128.3 = 4,087 cycles whatever the
/// schedule; the issue slots need only 4 warps x 66 instructions per scheduler. (Each
/// warp reads its last load's register: a warp's exit does not wait for its shared
/// loads, whose crossbar time would otherwise run past the run's end.)
#[test]
fn an_lds_bound_kernel_is_bound_by_shared_memory() {
    let p = h100();
    let src = "kernel lds\nlaunch cta_threads=512 regs=32 smem=8192 grid=1\nshared S size=8192\nrole main warps=0..15\n  loop i 0..64\n    LDS.128 R4, S[lane * 16]\n  FADD R8, R4, R5\n  EXIT\n";
    let (r, d) = diagnosed(src, &p);
    let loads = 16 * 64;
    assert_eq!(r.memory.shared_bytes, loads * 512);
    let bound = (loads as f64 * 512.0 / p.t.smem_bytes_per_clk).ceil() as u64;
    assert_eq!(bound, 4087);
    assert_eq!(d.bounds.binding, BoundUnit::SharedMemory, "{:?}", d.bounds);
    assert_eq!(d.bounds.lower_bound_cycles, bound);
    assert!(r.cycles >= bound, "{}", r.cycles);
    // The last load's latency after the crossbar is what the run adds.
    assert!(d.bounds.above_bound < 0.02, "{}", d.bounds.above_bound);
    assert_eq!(
        d.bounds
            .unit(BoundUnit::IssueSlots)
            .unwrap()
            .lower_bound_cycles,
        4 * 66
    );
}

/// One warp copies 8 x 16 KiB into shared memory with bulk copies and no shared load
/// or store: the crossbar is idle, but the copies' writes book the write side for
/// 8 x 16384 x `smem_copy_cost` / `smem_bytes_per_clk` cycles, and that is the
/// shared-memory bound; with copies off shared memory's books it is none.
#[test]
fn copies_into_shared_memory_count_in_its_bound() {
    let src = "kernel copies\nlaunch cta_threads=32 regs=32 smem=131072 grid=1\nbuffer G global size=1MiB\nshared S size=131072\nmbarrier full[1] count=1\nrole main warps=0..0\n  SYNCS.ARRIVE.TRANS64.EXPECT_TX full[0], bytes=131072\n  loop i 0..8\n    UBLKCP.S.G S[i * 16384], G[i * 16384], bytes=16384, bar=full[0]\n  SYNCS.PHASECHK.TRANS64.TRYWAIT full[0], parity=0\n  EXIT\n";
    let shared_bound = |p: &Profile| {
        let (r, d) = diagnosed(src, p);
        assert_eq!(r.memory.shared_bytes, 0);
        d.bounds
            .unit(BoundUnit::SharedMemory)
            .unwrap()
            .lower_bound_cycles
    };
    let p = h100();
    assert!(p.t.smem_copy_cost > 0.0);
    let booked = 8.0 * 16384.0 * p.t.smem_copy_cost / p.t.smem_bytes_per_clk;
    assert_eq!(shared_bound(&p), booked.ceil() as u64);
    let mut off = h100();
    off.t.smem_copy_cost = 0.0;
    assert_eq!(shared_bound(&off), 0);
}

/// 16 warps each load 64 lines from L2 (a warp's 32 lanes 128 bytes apart: 32 lines a
/// request). L1TEX takes `l1_lines_per_clk` lines a cycle: 16 x 8 x 32 = 4,096 lines
/// need 4,096 cycles, the LSU's bound, far above the issue slots'.
#[test]
fn an_uncoalesced_kernel_is_bound_by_the_lsu() {
    let p = h100();
    let src = "kernel scatter\nlaunch cta_threads=512 regs=32 smem=0 grid=1\nbuffer A global size=64MiB\nrole main warps=0..15\n  loop i 0..8\n    LDG.E R4, A[((warp * 8 + i) * 32 + lane) * 128]\n  EXIT\n";
    let (_, d) = diagnosed(src, &p);
    let lines = 16.0 * 8.0 * 32.0;
    let lsu = d.bounds.unit(BoundUnit::Lsu).unwrap();
    assert_eq!(
        lsu.lower_bound_cycles,
        (lines / p.t.l1_lines_per_clk) as u64
    );
    assert!(lsu.lower_bound_cycles > 16 * 9 / 4);
}

/// The critical path of the 2-stage HBM pipeline runs through the copies: the consumer
/// waits on each stage's copy, which started when the stage was freed. With the
/// stages the advice names, the copies are off the path but for the first fill, and
/// the consumer's own FFMA chain decides the end.
#[test]
fn an_hbm_latency_bound_pipelines_path_goes_through_its_copies() {
    use sim_core::diagnose::{PathCategory, diagnose_run};
    let p = h100();
    let cfg = RunConfig::default();
    let k = kernel(&pipeline(2));
    let (r, d) = diagnose_run(&k, &p, &cfg).unwrap();
    let path = d.critical_path.as_ref().unwrap();
    // The path tiles the run: its categories sum to the last warp's finish.
    assert_eq!(path.end, r.cycles);
    assert_eq!(path.by_category.iter().map(|x| x.1).sum::<u64>(), path.end);
    let copies = path.share_of(PathCategory::TmaCopies);
    assert!(copies > 0.4, "{path:?}");
    assert_eq!(path.by_category[0].0, PathCategory::TmaCopies, "{path:?}");
    assert!(path.hops > 10, "{}", path.hops);
    let Some(Advice::MoreStages {
        stages,
        copy_latency_cycles,
        ..
    }) = d
        .advice
        .iter()
        .find(|a| matches!(a, Advice::MoreStages { .. }))
        .cloned()
    else {
        panic!("{:?}", d.advice)
    };
    let (r2, d2) = diagnose_run(&kernel(&pipeline(stages as u32)), &p, &cfg).unwrap();
    let path2 = d2.critical_path.as_ref().unwrap();
    assert_eq!(
        path2.by_category.iter().map(|x| x.1).sum::<u64>(),
        r2.cycles
    );
    // The first fill's copy at most, which no depth hides.
    assert!(
        path2.cycles_of(PathCategory::TmaCopies) <= copy_latency_cycles,
        "{path2:?}"
    );
    assert!(
        path2.share_of(PathCategory::FixedLatency) > 0.5,
        "{path2:?}"
    );
    // The same run with and without the recorder.
    assert_eq!(r.cycles, sim(&pipeline(2), &p).cycles);
}

/// One warp loads from HBM, issues eight independent FFMAs, then uses the load: the
/// FFMAs overlap the load's latency, so the path goes from the use back to the load's
/// issue, all global memory latency, and the FFMAs are off it.
#[test]
fn a_loads_latency_is_on_the_path_from_its_issue() {
    use sim_core::diagnose::{PathCategory, diagnose_run};
    let p = h100();
    let src = "kernel lat\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nbuffer A global size=1MiB\nrole main warps=0..0\n  loop i 0..4\n    LDG.E R1, A[i * 4096 + lane * 4]\n    FFMA R2, R2, R2, 0.5\n    FFMA R3, R3, R3, 0.5\n    FFMA R4, R4, R4, 0.5\n    FFMA R5, R5, R5, 0.5\n    FFMA R6, R6, R6, 0.5\n    FFMA R7, R7, R7, 0.5\n    FFMA R8, R8, R8, 0.5\n    FFMA R9, R9, R9, 0.5\n    FADD R10, R1, R10\n  EXIT\n";
    let (r, d) = diagnose_run(&kernel(src), &p, &RunConfig::default()).unwrap();
    let path = d.critical_path.unwrap();
    assert_eq!(path.by_category.iter().map(|x| x.1).sum::<u64>(), r.cycles);
    // Four loads from HBM, each at least lat_hbm, one after another.
    let mem = path.cycles_of(PathCategory::MemoryLatency);
    assert!(mem >= 4 * p.t.lat_hbm as u64, "{path:?}");
    assert!(path.share_of(PathCategory::MemoryLatency) > 0.9, "{path:?}");
    let top = &path.instructions[0];
    assert!(top.instruction.starts_with("LDG"), "{path:?}");
    assert_eq!(top.category, PathCategory::MemoryLatency);
    assert!(
        !path
            .instructions
            .iter()
            .any(|i| i.instruction.starts_with("FFMA R5")),
        "{path:?}"
    );
}

/// The fast warp waits at the barrier each round for the slow one's 32-FFMA chain: the
/// path goes from the fast warp's end through the last barrier into the slow warp,
/// whose chain (issue and fixed latency) is nearly all of it.
#[test]
fn a_barriers_path_goes_to_its_last_arriver() {
    use sim_core::diagnose::{PathCategory, diagnose_run};
    let p = h100();
    let src = "kernel pair\nlaunch cta_threads=64 regs=32 smem=0 grid=1\nbarrier meet id=1 threads=64\nrole fast warps=0..0\n  loop k 0..16\n    FFMA R1, R1, R2, 0.5\n    BAR.SYNC meet\n  loop j 0..64\n    FFMA R1, R1, R2, 0.5\n  EXIT\nrole slow warps=1..1\n  loop k 0..16\n    loop i 0..32\n      FFMA R1, R1, R2, 0.5\n    BAR.SYNC meet\n  EXIT\n";
    let (r, d) = diagnose_run(&kernel(src), &p, &RunConfig::default()).unwrap();
    let path = d.critical_path.unwrap();
    assert_eq!(path.end, r.cycles);
    // The fast warp finishes last (its 64 FFMAs after the last barrier); the path
    // moves into the slow warp at the last barrier and stays there.
    assert!(path.hops >= 1, "{path:?}");
    let slow: u64 = path
        .instructions
        .iter()
        .filter(|i| i.role == "slow")
        .map(|i| i.cycles)
        .sum();
    // The slow warp's 16 x 32 dependent FFMAs, lat_fma apart.
    assert!(slow >= 16 * 32 * p.t.lat_fma as u64 - 16, "{path:?}");
    // (Each FFMA: its issue cycle, then lat_fma - 1 cycles of fixed latency.)
    let chain = path.share_of(PathCategory::FixedLatency) + path.share_of(PathCategory::Issue);
    assert!(chain > 0.85, "{path:?}");
    assert!(path.cycles_of(PathCategory::Barriers) < 16 * 40, "{path:?}");
}

/// One CTA streaming 32 copies of 16 KiB from HBM (cold), two in flight: 512 KiB, all of
/// it TMA copies' lines, bounded at the copies' own one-SM rate
/// (`hbm_tma_bytes_per_clk_sm_max`, 115.2 B/clk on the H100, within the chip's share and
/// the L2 port), not at loads' (`hbm_bytes_per_clk_sm_max`, 101.5): 524288 / 115.2 = 4552
/// cycles against 5166.
#[test]
fn copies_from_hbm_are_bounded_at_their_own_rate() {
    let p = h100();
    let src = "kernel stream\nlaunch cta_threads=32 regs=32 smem=32768 grid=1\nbuffer A global size=1MiB\nshared s size=32768\nmbarrier mb[2] count=1\nrole main warps=0..0\n  loop i 0..2\n    SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[i], bytes=16384\n    UBLKCP.S.G s[i * 16384], A[i * 16384], bytes=16384, bar=mb[i]\n  loop j 0..32\n    SYNCS.PHASECHK.TRANS64.TRYWAIT mb[j % 2], parity=(j / 2) & 1\n    if j + 2 < 32\n      SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[j % 2], bytes=16384\n      UBLKCP.S.G s[(j % 2) * 16384], A[(j + 2) * 16384], bytes=16384, bar=mb[j % 2]\n  EXIT\n";
    let (r, d) = diagnosed(src, &p);
    let m = &r.memory;
    assert_eq!((m.hbm_bytes, m.hbm_tma_bytes), (524288, 524288), "{m:?}");
    let t = &p.t;
    let rate = t
        .hbm_tma_bytes_per_clk_sm_max
        .min(t.l2_bytes_per_clk_sm_max);
    assert!(
        rate > t.hbm_bytes_per_clk_sm_max,
        "the two one-SM rates differ"
    );
    let hbm = d.bounds.unit(BoundUnit::HbmBandwidth).unwrap();
    assert_eq!(hbm.lower_bound_cycles, (524288.0 / rate).ceil() as u64);
    assert!(!hbm.exceeds_run, "{hbm:?} in {} cycles", r.cycles);
}
