//! Shared memory shared by LDS/STS and the bulk copies through it (issue 25, the
//! TMA-streaming twins), against hand-derived cycle counts: the write side by STS and a
//! copy landing there (`gap.smem.g2s_sts`: STS.128 at 42.6 B/clk beside copies landing,
//! 86.5 alone), the read side by LDS and a bulk store reading it out
//! (`gap.smem.s2g_lds`: LDS.128 at 56.8 B/clk beside stores draining at 31.9, 96.7
//! alone).

use sim_core::sink::{Event, Unit, VecSink};
use sim_core::{Profile, RunConfig, RunResult, run};

fn sim(src: &str, p: &Profile) -> RunResult {
    let k = isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)));
    run(&k, p, &RunConfig::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// The cycle the warp of `role` ends.
fn end_of(r: &RunResult, role: &str) -> u64 {
    r.warps.iter().find(|w| w.role == role).unwrap().finished
}

/// The h100 profile with `sets`, the store path's register read off
/// (`sts_read_bytes_per_clk` 0): these tests time the crossbar and the write queue, and
/// one warp's STS.128 read at 45 B/clk would leave the crossbar idle between them
/// (`tests/sts_read.rs` times that path).
fn h100_with(sets: &[(&str, f64)]) -> Profile {
    let mut p = Profile::builtin("h100").unwrap();
    p.set("sts_read_bytes_per_clk", 0.0).unwrap();
    // the landing rule (a copy holds the queue while its bytes land), which these tests
    // time; `smem_write_hold_from_turn` is timed by its own test below
    p.set("smem_write_hold_from_turn", 0.0).unwrap();
    for (k, v) in sets {
        p.set(k, *v).unwrap();
    }
    p
}

/// Warp 0 copies 16 KiB into shared memory and waits for it; warp 1 (another
/// sub-partition) stores 256 STS.128 meanwhile, 4 wavefronts each.
const SRC: &str = "kernel share\nlaunch cta_threads=64 regs=32 smem=65536 grid=1\nbuffer G global size=1MiB\nshared stage size=65536\nmbarrier full[1] count=1\nparam N=256\nrole copy warps=0..0\n  SYNCS.ARRIVE.TRANS64.EXPECT_TX full[0], bytes=16384\n  UBLKCP.S.G stage[0], G[0], bytes=16384, bar=full[0]\n  SYNCS.PHASECHK.TRANS64.TRYWAIT full[0], parity=0\n  EXIT\nrole sts warps=1..1\n  loop i 0..N\n    STS.128 stage[16384 + (i % 64) * 512 + lane * 16], R6\n  EXIT\n";

/// The cycle the STS warp ends.
fn sts_end(p: &Profile) -> u64 {
    end_of(&sim(SRC, p), "sts")
}

#[test]
fn an_sts_stream_slows_by_the_factor_while_a_copy_lands() {
    // The copy's 16 KiB land in the 16384 / tma_bytes_per_clk cycles before its last
    // line arrives, well inside the STS stream (256 x 4 wavefronts at 128 B/clk: 1024
    // cycles). There the stream moves at 1 / factor of its rate, so it ends
    // window x (1 - 1 / factor) later than with no slowing, give or take the one STS
    // that straddles the window's end (4 x factor cycles).
    // (the factor's path: the write queues off)
    let f = 2.03;
    let base = h100_with(&[
        ("smem_bytes_per_clk", 128.0),
        ("sts_beside_copy_factor", 1.0),
        ("smem_write_queue", 0.0),
    ]);
    let slow = h100_with(&[
        ("smem_bytes_per_clk", 128.0),
        ("sts_beside_copy_factor", f),
        ("smem_write_queue", 0.0),
    ]);
    let window = 16384.0 / slow.t.tma_bytes_per_clk;
    let want = window * (1.0 - 1.0 / f);
    let got = sts_end(&slow) as f64 - sts_end(&base) as f64;
    assert!((got - want).abs() <= 4.0 * f + 1.0, "{got} against {want}");
    // With the factor at 1 the copy costs the STS nothing: the stream alone (1024
    // cycles of the crossbar from its first issue).
    let alone = base.clone();
    let no_copy = SRC.replace("UBLKCP.S.G stage[0], G[0], bytes=16384, bar=full[0]", "NOP");
    let no_copy = no_copy.replace("  SYNCS.PHASECHK.TRANS64.TRYWAIT full[0], parity=0\n", "");
    assert_eq!(sts_end(&base), end_of(&sim(&no_copy, &alone), "sts"));
}

/// Warp 0 bulk-stores 16 KiB out of shared memory and waits for it; warp 1 (another
/// sub-partition) loads 256 LDS.128 meanwhile, 4 wavefronts each, eight registers in turn
/// so that no load waits for an earlier one's result.
const LDS_SRC: &str = "kernel share_read\nlaunch cta_threads=64 regs=64 smem=65536 grid=1\nbuffer G global size=1MiB\nshared stage size=65536\nparam N=32\nrole store warps=0..0\n  UBLKCP.G.S G[0], stage[0], bytes=16384\n  DEPBAR.LE SB0, 0\n  EXIT\nrole lds warps=1..1\n  loop i 0..N\n    LDS.128 R8, stage[16384 + (i % 8) * 4096 + lane * 16]\n    LDS.128 R12, stage[16896 + (i % 8) * 4096 + lane * 16]\n    LDS.128 R16, stage[17408 + (i % 8) * 4096 + lane * 16]\n    LDS.128 R20, stage[17920 + (i % 8) * 4096 + lane * 16]\n    LDS.128 R24, stage[18432 + (i % 8) * 4096 + lane * 16]\n    LDS.128 R28, stage[18944 + (i % 8) * 4096 + lane * 16]\n    LDS.128 R32, stage[19456 + (i % 8) * 4096 + lane * 16]\n    LDS.128 R36, stage[19968 + (i % 8) * 4096 + lane * 16]\n  EXIT\n";

/// The cycle the LDS warp ends.
fn lds_end(src: &str, p: &Profile) -> u64 {
    end_of(&sim(src, p), "lds")
}

#[test]
fn an_lds_stream_slows_by_the_factor_while_a_bulk_store_reads() {
    // The store reads its 16 KiB over its time at the TMA unit, tma_issue_cycles +
    // 16384 / tma_store_bytes_per_clk cycles from its turn (cycle 0), well inside the LDS
    // stream (256 x 4 wavefronts at 128 B/clk: 1024 cycles). There the stream moves at
    // 1 / factor of its rate, so it ends window x (1 - 1 / factor) later than with no
    // slowing, give or take the one LDS that straddles the window's end (4 x factor).
    let f = 1.70;
    let base = h100_with(&[
        ("smem_bytes_per_clk", 128.0),
        ("lds_beside_store_factor", 1.0),
    ]);
    let slow = h100_with(&[
        ("smem_bytes_per_clk", 128.0),
        ("lds_beside_store_factor", f),
    ]);
    let window = slow.t.tma_issue_cycles + 16384.0 / slow.t.tma_store_bytes_per_clk;
    let want = window * (1.0 - 1.0 / f);
    let got = lds_end(LDS_SRC, &slow) as f64 - lds_end(LDS_SRC, &base) as f64;
    assert!((got - want).abs() <= 4.0 * f + 1.0, "{got} against {want}");
    // With the factor at 1 the store costs the LDS nothing (it books no time they wait
    // for): the stream as with no store at all.
    let no_store = LDS_SRC.replace("UBLKCP.G.S G[0], stage[0], bytes=16384", "NOP");
    let no_store = no_store.replace("  DEPBAR.LE SB0, 0\n", "");
    assert_eq!(lds_end(LDS_SRC, &base), lds_end(&no_store, &base));
    // ... and the stream alone is the crossbar's: 1024 cycles of wavefronts, the warp
    // done when its last loads are in the MIO queue (up to its depth of loads before the
    // crossbar's end), give or take the loop's issue around them.
    let alone = lds_end(&no_store, &base) as f64;
    let crossbar = 256.0 * 4.0 * 128.0 / 128.0;
    let queued = (base.t.mio_queue_depth + 1.0) * 4.0;
    assert!(
        alone >= crossbar - queued && alone <= crossbar + base.t.lat_lds,
        "{alone} against {crossbar}"
    );
    // The store is not slowed by the loads beside it (measured: 31.9 B/clk either way).
    let store_end = |p: &Profile| end_of(&sim(LDS_SRC, p), "store");
    assert_eq!(store_end(&slow), store_end(&base));
}

/// Warp 0 copies 32 KiB into shared memory and waits for it; warp 1 sleeps `ns`, stores
/// 8 STS.128 (4 KiB) and arrives on `other`; warp 2 waits on `other` (the store warp of
/// the streaming kernels on c_full). The probe of `data/gaps/hold/` (op 3, one warp).
fn hold_src(ns: u64, sts: bool) -> String {
    hold_src_at(ns, sts, 32768, 65536)
}

/// `hold_src` with the STS at shared byte `at` of a CTA with `smem` bytes (the copy
/// lands at 0).
fn hold_src_at(ns: u64, sts: bool, at: u64, smem: u64) -> String {
    let stores: String = if sts {
        (0..8)
            .map(|j| format!("  STS.128 stage[{} + lane * 16], R4\n", at + j * 512))
            .collect()
    } else {
        String::new()
    };
    format!(
        "kernel hold\nlaunch cta_threads=96 regs=32 smem={smem} grid=1\nbuffer G global size=1MiB\nshared stage size={smem}\nmbarrier full[1] count=1\nmbarrier other[1] count=1\nrole copy warps=0..0\n  SYNCS.ARRIVE.TRANS64.EXPECT_TX full[0], bytes=32768\n  UBLKCP.S.G stage[0], G[0], bytes=32768, bar=full[0]\n  SYNCS.PHASECHK.TRANS64.TRYWAIT full[0], parity=0\n  EXIT\nrole sts warps=1..1\n  NANOSLEEP {ns}\n{stores}  SYNCS.ARRIVE.TRANS64 other[0]\n  EXIT\nrole waiter warps=2..2\n  SYNCS.PHASECHK.TRANS64.TRYWAIT other[0], parity=0\n  EXIT\n"
    )
}

#[test]
fn with_the_write_queue_an_arrive_waits_for_its_stores_behind_a_landing_copy() {
    let on = h100_with(&[("smem_write_queue", 1.0)]);
    let off = h100_with(&[("smem_write_queue", 0.0)]);
    // When the copy completes: the copy warp's wait returns a probe after it.
    let alone = sim(&hold_src(1, false), &on);
    let probe = on.t.lat_mbarrier_probe as u64;
    let done = end_of(&alone, "copy") - probe - 1;
    // Its bytes land over the 32768 / tma_bytes_per_clk cycles before `done`; the STS
    // warp wakes in the middle of them (the sleep in ns at the profile's clock).
    let window = (32768.0 / on.t.tma_bytes_per_clk) as u64;
    let wake = done - window / 2;
    let ns = (wake as f64 * 1000.0 / on.t.clock_mhz_light).floor() as u64;
    let held = sim(&hold_src(ns, true), &on);
    let free = sim(&hold_src(ns, true), &off);
    // Without the queue the STS and the arrive go at once, mid-landing; with it the STS
    // are written after the rest of the landing bytes (from about half the window to
    // all of it, the wake being placed from the copy warp's end) and the arrive, and so
    // the store warp, waits for them; never past the copy warp's own end.
    let (held_end, free_end) = (end_of(&held, "sts"), end_of(&free, "sts"));
    assert!(
        held_end >= free_end + window / 4 && held_end <= free_end + window,
        "held {held_end}, free {free_end}, window {window}"
    );
    assert!(held_end <= end_of(&held, "copy"));
    assert!(end_of(&held, "waiter") > held_end);
    assert!(
        end_of(&free, "waiter") < done,
        "{} against {done}",
        end_of(&free, "waiter")
    );
    // An arrive with no stores before it is not held (the GPU's arrive alone).
    let bare = sim(&hold_src(ns, false), &on);
    assert!(
        end_of(&bare, "waiter") < done,
        "{} against {done}",
        end_of(&bare, "waiter")
    );
}

/// The write queues are per 128 KiB (`smem_write_queue_bytes`, `data/gaps/wsstream/`):
/// the probe's STS in the half the copy lands in are held behind its bytes, in the other
/// half they go as if no copy landed at all.
#[test]
fn with_the_write_queue_only_stores_in_the_copys_half_wait_for_it() {
    let on = h100_with(&[("smem_write_queue", 1.0)]);
    assert_eq!(on.t.smem_write_queue_bytes, 131072.0);
    let smem = 196608;
    let alone = sim(&hold_src_at(1, false, 0, smem), &on);
    let done = end_of(&alone, "copy") - on.t.lat_mbarrier_probe as u64 - 1;
    let window = (32768.0 / on.t.tma_bytes_per_clk) as u64;
    let ns = ((done - window / 2) as f64 * 1000.0 / on.t.clock_mhz_light).floor() as u64;
    // the STS warp's run with no copy: the copy warp's role emptied but for its exit
    let no_copy = |at: u64| {
        let src = hold_src_at(ns, true, at, smem);
        let head = src.find("role copy").unwrap();
        let tail = src.find("role sts").unwrap();
        src[..head].to_string() + "role copy warps=0..0\n  EXIT\n" + &src[tail..]
    };
    let lower = 65536;
    let upper = 131072 + 32768;
    let other_half = end_of(&sim(&hold_src_at(ns, true, upper, smem), &on), "sts");
    assert_eq!(other_half, end_of(&sim(&no_copy(upper), &on), "sts"));
    let same_half = end_of(&sim(&hold_src_at(ns, true, lower, smem), &on), "sts");
    let unheld = end_of(&sim(&no_copy(lower), &on), "sts");
    assert!(
        same_half >= unheld + window / 4 && same_half <= done + window,
        "same half {same_half}, no copy {unheld}, window {window}"
    );
    // one queue for all of shared memory: the other half's STS are held too
    let one = h100_with(&[
        ("smem_write_queue", 1.0),
        ("smem_write_queue_bytes", 262144.0),
    ]);
    let one_queue = end_of(&sim(&hold_src_at(ns, true, upper, smem), &one), "sts");
    assert!(
        one_queue >= other_half + window / 4,
        "{one_queue} against {other_half}"
    );
}

/// With the store path on (`sts_read_bytes_per_clk`), an STS takes its turn in the write
/// queue once its registers are read, not at its issue (`data/gaps/wshold/`): eight
/// STS.128 issued 40 cycles before a copy's bytes begin to land have their data read at
/// 45 B/clk, 11.4 cycles each, the last ~91 cycles after the first issues, inside the
/// landing window: those stores are written after the copy's bytes and the arrive behind
/// them waits; with the path off every turn comes at issue, before the window, and none
/// is held.
#[test]
fn with_the_store_path_an_sts_meets_the_landing_bytes_when_its_data_arrives() {
    let mut on = Profile::builtin("h100").unwrap();
    on.set("smem_write_queue", 1.0).unwrap();
    on.set("smem_write_hold_from_turn", 0.0).unwrap();
    assert_eq!(on.t.sts_read_bytes_per_clk, 45.0);
    let off = h100_with(&[("smem_write_queue", 1.0)]);
    let alone = sim(&hold_src(1, false), &on);
    let done = end_of(&alone, "copy") - on.t.lat_mbarrier_probe as u64 - 1;
    let window = (32768.0 / on.t.tma_bytes_per_clk) as u64;
    // the STS warp wakes 40 cycles before the first landing byte
    let wake = done - window - 40;
    let ns = (wake as f64 * 1000.0 / on.t.clock_mhz_light).floor() as u64;
    // the eighth store's registers are read 8 x 512 / 45 = 91 cycles after the first
    // issues: 51 cycles into the window, so it is written after the landing, and the
    // arrive (and the warp) no sooner
    let read_end = 8.0 * 512.0 / on.t.sts_read_bytes_per_clk;
    assert!(read_end > 40.0 + 10.0 && read_end < window as f64);
    let held = end_of(&sim(&hold_src(ns, true), &on), "sts");
    assert!(held >= done, "held {held}, landing done {done}");
    // the path off: the STS are written at their turns, before the window, and the
    // warp is done long before the copy
    let free = end_of(&sim(&hold_src(ns, true), &off), "sts");
    assert!(
        free < done - window / 2,
        "free {free}, landing done {done}, window {window}"
    );
}

/// Warp 0 copies 32 KiB (from HBM: its last line lands long after the TMA unit is done)
/// into shared memory at 0; warp 1 sleeps `ns`, stores one STS.128 at shared byte `at`
/// and arrives on `other`; warp 2 waits on `other`. Run with every event kept.
fn unit_hold_run(ns: u64, at: u64, p: &Profile) -> (RunResult, VecSink) {
    let src = format!(
        "kernel unit_hold\nlaunch cta_threads=96 regs=32 smem=196608 grid=1\nbuffer G global size=1MiB\nshared stage size=196608\nmbarrier full[1] count=1\nmbarrier other[1] count=1\nrole copy warps=0..0\n  SYNCS.ARRIVE.TRANS64.EXPECT_TX full[0], bytes=32768\n  UBLKCP.S.G stage[0], G[0], bytes=32768, bar=full[0]\n  SYNCS.PHASECHK.TRANS64.TRYWAIT full[0], parity=0\n  EXIT\nrole sts warps=1..1\n  NANOSLEEP {ns}\n  STS.128 stage[{at} + lane * 16], R4\n  SYNCS.ARRIVE.TRANS64 other[0]\n  EXIT\nrole waiter warps=2..2\n  SYNCS.PHASECHK.TRANS64.TRYWAIT other[0], parity=0\n  EXIT\n"
    );
    let k = isa::parse_kernel(&src).unwrap_or_else(|e| panic!("{}", e.render("test", &src)));
    let cfg = RunConfig::default();
    let mut sink = VecSink::default();
    let r = sim_core::run_with(&k, p, &cfg, cfg.policy.build(), &mut sink)
        .unwrap_or_else(|e| panic!("{e}"));
    (r, sink)
}

/// The TMA unit's busy span (start, end) and the STS warp's STS issue cycle.
fn unit_and_sts(sink: &VecSink) -> ((u64, u64), u64) {
    let tma = sink.events.iter().find_map(|e| match e {
        Event::UnitBusy {
            start,
            end,
            unit: Unit::Tma,
            ..
        } => Some((*start, *end)),
        _ => None,
    });
    // the STS is warp 1's second instruction (pc 1, after the NANOSLEEP)
    let sts = sink.events.iter().find_map(|e| match e {
        Event::Issue {
            cycle, warp, pc, ..
        } if warp.warp == 1 && *pc == 1 => Some(*cycle),
        _ => None,
    });
    (tma.expect("a TMA busy span"), sts.expect("the STS issued"))
}

/// `smem_write_hold_from_turn` (`data/gaps/wshold/queue/`): an STS reaching the copy's
/// write queue from `hold` cycles after the copy's turn at the TMA unit, while the unit
/// works on it (shifted by `hold`), is written when that span ends, `hold` after the
/// unit's end: the store warp ends exactly that much later than the same STS in the other
/// 128 KiB. One reaching the queue after the span passes, though the copy's bytes (from
/// HBM) are still landing.
#[test]
fn an_sts_in_the_copys_half_waits_out_the_units_span_shifted_by_the_hold() {
    let mut p = h100_with(&[]);
    p.set("smem_write_hold_from_turn", 96.0).unwrap();
    let hold = p.t.smem_write_hold_from_turn as u64;
    let ns_at = |cycle: u64| (cycle as f64 * 1000.0 / p.t.clock_mhz_light).floor() as u64;
    let (lower, upper) = (65536, 131072 + 32768);
    // where the unit works on the copy, from a run whose STS comes early, in the other half
    let ((s, e), _) = unit_and_sts(&unit_hold_run(1, upper, &p).1);
    assert!(e - s >= 300, "32 KiB at the unit: {s}..{e}");
    // the STS issued (with the store path off, its turn) in the middle of the span
    let ns = ns_at((s + hold + e + hold) / 2);
    let (free, fs) = unit_hold_run(ns, upper, &p);
    let (held, hs) = unit_hold_run(ns, lower, &p);
    let ((_, _), t) = unit_and_sts(&fs);
    assert_eq!(unit_and_sts(&hs).1, t, "the same issue in both halves");
    assert!(
        t >= s + hold && t < e + hold,
        "STS at {t}, span {}..{}",
        s + hold,
        e + hold
    );
    // written at e + hold (the span's end, to the cycle the unit's end rounds up to)
    let want = (e + hold - t) as i64;
    let got = end_of(&held, "sts") as i64 - end_of(&free, "sts") as i64;
    assert!(
        (got - want).abs() <= 1,
        "held {got} cycles later, want {want}"
    );
    // after the span: not held, though the copy's last line has not landed
    let late = ns_at(e + hold + 40);
    let (late_held, ls) = unit_hold_run(late, lower, &p);
    let t_late = unit_and_sts(&ls).1;
    assert!(t_late >= e + hold, "late STS at {t_late}");
    assert!(
        end_of(&late_held, "copy") > t_late + 100,
        "the copy still lands"
    );
    assert_eq!(
        end_of(&late_held, "sts"),
        end_of(&unit_hold_run(late, upper, &p).0, "sts")
    );
}
