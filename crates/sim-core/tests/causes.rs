//! Typed causes: what a stall waits on, as data, in events and in results.

use sim_core::cause::{GroupKind, MbarrierOwed, WaitCause, Waited};
use sim_core::result::SimError;
use sim_core::sink::{Event, VecSink};
use sim_core::{Profile, RunConfig, RunResult, WarpState};

fn kernel_file(path: &str) -> isa::Kernel {
    let full = format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&full).unwrap();
    isa::parse_kernel(&src).unwrap_or_else(|e| panic!("{}", e.render(path, &src)))
}

fn traced(k: &isa::Kernel) -> (Result<RunResult, SimError>, VecSink) {
    let cfg = RunConfig {
        max_ctas: Some(2),
        ..Default::default()
    };
    let mut sink = VecSink::default();
    let p = Profile::builtin("h100").unwrap();
    let r = sim_core::run_with(k, &p, &cfg, cfg.policy.build(), &mut sink);
    (r, sink)
}

/// The causes of the states charged to the role's instruction whose text starts with
/// `text`.
fn causes_at<'a>(
    sink: &'a VecSink,
    role: &str,
    text: &str,
) -> impl Iterator<Item = (u64, WarpState, &'a WaitCause)> + 'a {
    let h = sink.header.as_ref().unwrap();
    let r = h.roles.iter().find(|r| r.name == role).unwrap();
    let pc = r
        .instructions
        .iter()
        .position(|i| i.text.starts_with(text))
        .unwrap() as u32;
    let (first, last) = (r.first_warp, r.last_warp);
    sink.events.iter().filter_map(move |e| match e {
        Event::StateChange {
            cycle,
            warp,
            state,
            pc: p,
            cause: Some(c),
        } if *p == pc && (first..=last).contains(&warp.warp) => Some((*cycle, *state, c)),
        _ => None,
    })
}

#[test]
fn a_consumers_full_wait_names_who_owes_the_phase() {
    let k = kernel_file("examples/mbarrier_pingpong.smk");
    let (r, sink) = traced(&k);
    let r = r.unwrap();
    let waits: Vec<_> =
        causes_at(&sink, "consumer", "SYNCS.PHASECHK.TRANS64.TRYWAIT full").collect();
    assert!(!waits.is_empty());
    let (mut by_producer, mut by_copies) = (0, 0);
    for (cycle, state, c) in &waits {
        assert_eq!(*state, WarpState::LongScoreboard);
        let WaitCause::Mbarrier {
            name,
            count,
            arrivals_missing,
            tx_bytes_missing,
            owed,
            ..
        } = c
        else {
            panic!("{c:?}")
        };
        assert!(name.starts_with("full["), "{name}");
        assert_eq!(*count, 1);
        match owed {
            // The producer has not arrived (with its expect-tx) on this stage yet.
            MbarrierOwed::Arrivals { roles } => {
                assert_eq!(roles, &["producer"]);
                assert_eq!(*arrivals_missing, 1);
                by_producer += 1;
            }
            // It has: the stage's copy is in flight and lands after the wait began, or
            // (the arrive just made, the copy right behind it) not yet issued.
            MbarrierOwed::Copies { in_flight, lands } => {
                assert_eq!(*arrivals_missing, 0);
                assert!(*tx_bytes_missing > 0);
                assert!(*in_flight <= 1);
                if *in_flight == 1 {
                    assert!(lands > cycle, "lands {lands} at {cycle}");
                    by_copies += 1;
                }
            }
        }
    }
    // Both happen: the first stages wait on the producer, later ones on the copies.
    assert!(
        by_producer > 0 && by_copies > 0,
        "{by_producer} {by_copies}"
    );
    // The results split the TRYWAIT's sleep by what it lacked, and the parts add up.
    let role = r.role("consumer").unwrap();
    let pc = role
        .per_pc
        .iter()
        .find(|p| {
            p.instruction
                .starts_with("SYNCS.PHASECHK.TRANS64.TRYWAIT full")
        })
        .unwrap();
    let sum = |f: &dyn Fn(&Waited) -> bool| -> u64 {
        pc.waits_on
            .iter()
            .filter(|w| w.state == WarpState::LongScoreboard && f(&w.on))
            .map(|w| w.cycles)
            .sum()
    };
    let arrivals =
        sum(&|w| matches!(w, Waited::MbarrierArrivals { roles, .. } if roles == &["producer"]));
    let copies = sum(&|w| matches!(w, Waited::MbarrierCopies { .. }));
    assert!(arrivals > 0 && copies > 0);
    // (The wake after the phase completes goes on waiting on what it lacked last.)
    assert_eq!(arrivals + copies, pc.states.get(WarpState::LongScoreboard));
    let text = pc
        .waits_on
        .iter()
        .map(|w| w.on.to_string())
        .collect::<Vec<_>>();
    assert!(
        text.iter().any(|t| t.contains("arrivals (by producer)")),
        "{text:?}"
    );
}

#[test]
fn a_producers_empty_wait_names_the_consumers() {
    let k = kernel_file("examples/gemm_ws.smk");
    let (_, sink) = traced(&k);
    let owed: Vec<_> = causes_at(&sink, "producer", "SYNCS.PHASECHK.TRANS64.TRYWAIT empty")
        .map(|(_, _, c)| c.clone())
        .collect();
    assert!(owed.iter().any(|c| matches!(c,
        WaitCause::Mbarrier { owed: MbarrierOwed::Arrivals { roles }, count: 8, .. } if roles == &["consumer"])));
}

#[test]
fn register_pipe_group_and_warpgroup_waits_are_typed() {
    let k = kernel_file("examples/gemm_ws.smk");
    let (r, sink) = traced(&k);
    let r = r.unwrap();
    // The final WARPGROUP.DEPBAR waits for the MMAs' group, until the last completes.
    let depbar: Vec<_> = causes_at(&sink, "consumer", "WARPGROUP.DEPBAR.LE gsb0, 0").collect();
    assert!(depbar.iter().any(|(cycle, state, c)| *state == WarpState::Barrier
        && matches!(c, WaitCause::WaitGroup { group: GroupKind::Wgmma, until } if until > cycle)));
    // Every register wait names a producer of its role and a ready cycle after it.
    for e in &sink.events {
        if let Event::StateChange {
            cycle,
            cause: Some(WaitCause::Producer { ready, .. } | WaitCause::Pipe { free: ready, .. }),
            ..
        } = e
        {
            assert!(ready > cycle);
        }
    }
    let stores = r.role("consumer").unwrap();
    assert!(
        stores
            .per_pc
            .iter()
            .flat_map(|p| &p.waits_on)
            .all(|w| !matches!(w.on, Waited::Producer { pc: None, .. })
                || w.state != WarpState::Selected)
    );
}

#[test]
fn a_barrier_wait_names_the_warps_not_arrived() {
    let k = isa::parse_kernel(
        "kernel bar\nlaunch cta_threads=64 regs=32 smem=0 grid=1\nrole slow warps=0..0\n  NANOSLEEP 1000\n  BAR.SYNC 1, 64\n  EXIT\nrole fast warps=1..1\n  BAR.SYNC 1, 64\n  EXIT\n",
    )
    .unwrap();
    let (r, sink) = traced(&k);
    let r = r.unwrap();
    let c: Vec<_> = causes_at(&sink, "fast", "BAR.SYNC").collect();
    assert!(
        matches!(c.as_slice(), [(_, WarpState::Barrier, WaitCause::Barrier { id: 1, arrived: 1, expected: 2, not_arrived })] if not_arrived == &[0]),
        "{c:?}"
    );
    let fast = &r.role("fast").unwrap().per_pc[0];
    assert_eq!(fast.waits_on[0].on, Waited::Barrier { id: 1 });
    assert_eq!(fast.waits_on[0].on.to_string(), "named barrier 1");
}

#[test]
fn an_arrival_fault_names_the_mbarrier_whose_count_is_wrong() {
    // gemm_ws.smk with `empty` counting 2 arrivals where its 8 consumer warps arrive:
    // its phases complete early, the producer runs ahead and arrives on a `full` stage
    // whose last phase has not completed. The fault names both.
    let src = std::fs::read_to_string(format!(
        "{}/../../examples/gemm_ws.smk",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .replace("mbarrier empty[4] count=8", "mbarrier empty[4] count=2");
    let k = isa::parse_kernel(&src).unwrap();
    let (r, _) = traced(&k);
    let Err(SimError::Fault(m)) = r else {
        panic!("{r:?}")
    };
    // (Which stage runs ahead first follows the timing: the fault names the same stage
    // of both.)
    let stage = m
        .split("1 arrivals on full[")
        .nth(1)
        .and_then(|r| r.split(']').next())
        .unwrap_or_else(|| panic!("{m}"));
    assert!(
        m.contains(&format!("a wait on empty[{stage}], which counts 2 arrivals per phase and is arrived on by consumer (8 warps per CTA): with fewer arrivals counted than warps arriving")),
        "{m}"
    );
}
