//! The diagnosis of small hand-checked kernels: bounds, flags and advice.

use sim_core::diagnose::{Advice, BoundUnit, Diagnosis, Flag, diagnose};
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
                state: WarpState::Barrier,
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
        c.states.get(WarpState::LongScoreboard) as f64 / c.states.total() as f64
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

/// Stores the SM writes to L2 leave for HBM after the run: their HBM rate over the
/// kernel's time exceeds the chip's bandwidth, and is flagged.
#[test]
fn an_hbm_rate_above_the_peak_is_flagged() {
    let p = h100();
    let src = "kernel store\nlaunch cta_threads=256 regs=32 smem=0 grid=132\nbuffer C global size=32MiB\nrole main warps=0..7\n  loop c 0..32\n    STG.E.128 C[(((cta * 8 + warp) * 32 + c) * 32 + lane) * 16], R24\n  EXIT\n";
    let (r, d) = diagnosed(src, &p);
    let peak = p.t.hbm_bytes_per_clk_chip * p.t.clock_mhz / 1e3;
    assert!(r.hbm_gbps > peak, "{} vs {peak}", r.hbm_gbps);
    assert!(
        matches!(d.flags.as_slice(), [Flag::HbmRateAbovePeak { .. }]),
        "{:?}",
        d.flags
    );
    // The HBM bytes need more cycles than the run: not a bound on it.
    let hbm = d.bounds.unit(BoundUnit::HbmBandwidth).unwrap();
    assert!(hbm.exceeds_run, "{hbm:?}");
    assert_ne!(d.bounds.binding, BoundUnit::HbmBandwidth);
}

/// HGMMA on the B200 profile: Blackwell has no warpgroup MMAs.
#[test]
fn hopper_mmas_on_blackwell_are_flagged() {
    let p = Profile::builtin("b200").unwrap();
    let (_, d) = diagnosed(&mma_kernel(1, 2, 0), &p);
    assert!(
        d.flags.iter().any(|f| matches!(
            f,
            Flag::MissingInstruction { instruction, .. } if instruction.starts_with("HGMMA")
        )),
        "{:?}",
        d.flags
    );
    let (_, d) = diagnosed(&mma_kernel(1, 2, 0), &h100());
    assert!(d.flags.is_empty());
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
