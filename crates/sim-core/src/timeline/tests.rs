//! The timeline's promises, against the engine's own events and results and against
//! a plain list of changes.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::*;
use crate::RunConfig;
use crate::profile::Profile;
use crate::result::RunResult;
use crate::sink::{Event, Sink, Unit};
use crate::state::{STATE_COUNT, WarpState};

/// The timeline, and every state change as the engine sent it.
#[derive(Default)]
struct Tee {
    t: Timeline,
    changes: Vec<(WarpId, u64, WarpState, u32, Option<WaitCause>)>,
}

impl Sink for Tee {
    fn begin(&mut self, h: &RunHeader) {
        self.t.begin(h);
    }
    fn finish(&mut self, end: &RunEnd) {
        self.t.finish(end);
    }
    fn event(&mut self, e: Event) {
        if let Event::StateChange {
            cycle,
            warp,
            state,
            pc,
            cause,
        } = &e
        {
            self.changes
                .push((*warp, *cycle, *state, *pc, cause.clone()));
        }
        self.t.event(e);
    }
}

fn run(src: &str) -> (Timeline, RunResult) {
    let k = isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("t", src)));
    let p = Profile::builtin("h100").unwrap();
    let cfg = RunConfig::default();
    let mut tee = Tee::default();
    let r = crate::run_with(&k, &p, &cfg, cfg.policy.build(), &mut tee).unwrap();
    // Every interval reads back the state, instruction and cause of the last change
    // the engine sent for its warp at its start cycle (causes kept once, relative to
    // their span, come back with their own cycles).
    let t = tee.t;
    let last: HashMap<(WarpId, u64), usize> = tee
        .changes
        .iter()
        .enumerate()
        .map(|(i, c)| ((c.0, c.1), i))
        .collect();
    for tw in &t.warps {
        for iv in tw.intervals() {
            let sent = &tee.changes[last[&(tw.id, iv.start)]];
            assert_eq!(
                (sent.2, sent.3),
                (iv.state, iv.pc),
                "{:?} at {}",
                tw.id,
                iv.start
            );
            assert_eq!(sent.4, t.cause(&iv), "{:?} at {}", tw.id, iv.start);
        }
    }
    (t, r)
}

/// The promises: intervals tile each warp's life from launch to finish, and the
/// cycles per state agree with the run's own per-warp totals; window sums agree
/// with a direct sum over the intervals.
fn check(t: &Timeline, r: &RunResult) {
    assert_eq!(t.warps.len(), r.warps.len());
    for w in &r.warps {
        let id = WarpId {
            cta: w.cta,
            warp: w.warp,
        };
        let tw = &t.warps[t.warp_index(id).expect("every warp has a timeline")];
        assert_eq!((tw.started, tw.finished), (w.started, w.finished), "{id:?}");
        let ivs: Vec<Interval> = tw.intervals().collect();
        if w.finished > w.started {
            assert_eq!(ivs.first().unwrap().start, w.started);
            assert_eq!(ivs.last().unwrap().end, w.finished);
        }
        let mut sums = [0u64; STATE_COUNT];
        for pair in ivs.windows(2) {
            assert_eq!(pair[0].end, pair[1].start, "{id:?} tiles");
        }
        for iv in &ivs {
            assert!(iv.end > iv.start, "{id:?}: empty interval {iv:?}");
            sums[iv.state.index()] += iv.end - iv.start;
        }
        assert_eq!(sums, w.states.to_array(), "{id:?} per-state totals");
        assert_eq!(tw.states_in(0, u64::MAX), sums);
        // Any window: the indexed sum equals the direct one.
        let len = w.finished - w.started;
        for (a, b) in [(0, len / 3), (len / 7, len / 2 + 3), (len / 2, len + 5)] {
            let (a, b) = (w.started + a, w.started + b);
            let mut direct = [0u64; STATE_COUNT];
            for iv in &ivs {
                let (s, e) = (iv.start.max(a), iv.end.min(b));
                if e > s {
                    direct[iv.state.index()] += e - s;
                }
            }
            assert_eq!(tw.states_in(a, b), direct, "{id:?} window {a}..{b}");
        }
        // A sweep of columns gives what each column's own query gives.
        let per = (len / 37).max(1);
        let cols = tw.columns(w.started, per, 40);
        for (i, c) in cols.iter().enumerate() {
            let a = w.started + i as u64 * per;
            assert_eq!(*c, tw.states_in(a, a + per), "{id:?} column {i}");
        }
    }
}

#[test]
fn intervals_tile_lifetimes_and_agree_with_the_result() {
    let (t, r) = run(include_str!("../../../../examples/mbarrier_pingpong.smk"));
    check(&t, &r);
    assert!(t.interval_count() > r.warps.len() * 10);
    assert!(
        t.syncs
            .iter()
            .any(|e| matches!(e.kind, SyncKind::MbarrierPhase { .. }))
    );
    let (t, r) = run(include_str!("../../../../examples/gemm_ws.smk"));
    check(&t, &r);
    let (t, r) = run(include_str!("../../../../examples/saxpy.smk"));
    check(&t, &r);
    assert!(!t.memory.is_empty());
}

#[test]
fn a_consumers_mbarrier_wait_names_who_owes_the_phase() {
    use crate::cause::MbarrierOwed;
    let (t, _) = run(include_str!("../../../../examples/mbarrier_pingpong.smk"));
    let consumer = t.roles.iter().position(|r| r == "consumer").unwrap() as u16;
    let mut owed_by_producer = 0;
    let mut owed_by_copies = 0;
    for tw in t.warps.iter().filter(|w| w.role == consumer) {
        for iv in tw
            .intervals()
            .filter(|iv| iv.state == WarpState::LongScoreboard)
        {
            match t.cause(&iv) {
                Some(WaitCause::Mbarrier { name, owed, .. }) => {
                    assert!(name.starts_with("full["), "{name}");
                    match owed {
                        MbarrierOwed::Arrivals { roles } => {
                            assert_eq!(roles, vec!["producer".to_string()]);
                            owed_by_producer += 1;
                        }
                        MbarrierOwed::Copies { in_flight, lands } => {
                            assert!(in_flight == 0 || lands >= iv.start, "{iv:?}");
                            owed_by_copies += 1;
                        }
                    }
                }
                other => panic!("a consumer's sleep waits on full: {other:?}"),
            }
        }
    }
    assert!(owed_by_producer + owed_by_copies > 0);
    // Causes are kept once per distinct wait, not per interval.
    assert!(t.cause_count() < t.interval_count());
}

#[test]
fn a_dependent_chain_reads_back_cycle_by_cycle() {
    // One warp: FFMA chain of 3, then EXIT. FFMA i issues at lat * i, the warp
    // waits (`wait`) in between, EXIT issues the cycle after the last FFMA and the
    // warp retires the cycle after (tests/engine.rs derives the same counts).
    let src = "kernel chain\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nrole main warps=0..0\n  loop i 0..3\n    FFMA R1, R1, R2, 0.5\n  EXIT\n";
    let (t, r) = run(src);
    check(&t, &r);
    let lat = Profile::builtin("h100").unwrap().t.lat_fma as u64;
    let w = &t.warps[0];
    let at = |c| w.at(c).map(|iv| iv.state);
    assert_eq!(at(0), Some(WarpState::Selected));
    assert_eq!(at(1), Some(WarpState::Wait));
    assert_eq!(w.at(1).unwrap().end, lat);
    assert_eq!(at(lat), Some(WarpState::Selected));
    assert_eq!(w.at(2 * lat).unwrap().pc, 0);
    assert_eq!(w.at(2 * lat + 1).unwrap().pc, 1, "EXIT after the loop");
    assert_eq!(w.finished, 2 * lat + 2);
    assert_eq!(at(w.finished), None);
    let s = w.states_in(0, lat);
    assert_eq!(s[WarpState::Selected.index()], 1);
    assert_eq!(s[WarpState::Wait.index()], lat - 1);
}

#[test]
fn a_set_stop_flag_stops_the_run_and_finishes_the_timeline() {
    let src = include_str!("../../../../examples/gemm_ws.smk");
    let k = isa::parse_kernel(src).unwrap();
    let p = Profile::builtin("h100").unwrap();
    let cfg = RunConfig::default();
    let stop = Arc::new(AtomicBool::new(true));
    let mut t = Timeline::with_stop(stop);
    let r = crate::run_with(&k, &p, &cfg, cfg.policy.build(), &mut t);
    let Err(crate::SimError::Stopped(partial)) = r else {
        panic!("the run stops")
    };
    assert!(matches!(t.outcome, Some(Outcome::Stopped)));
    assert_eq!(t.end, partial.cycles);
    assert!(t.warps.iter().all(|w| w.finished <= t.end));
}

/// Changes fed one by one (replacements at the same cycle or before an open span's
/// start, repeats of the open kind, waits of millions of cycles that overflow a block's
/// 24-bit offsets and of billions that overflow 32-bit checkpoints) read back as a direct list of them reads: intervals,
/// the interval at a cycle, window sums and column sweeps.
#[test]
fn packed_spans_read_back_as_a_plain_list_of_changes() {
    for seed in 1..=6u64 {
        let mut x = seed;
        let mut next = move |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let warp = WarpId { cta: 0, warp: 0 };
        let mut t = Timeline::new();
        // The plain list: (start, state, pc), by the same rules as `change`.
        let mut plain: Vec<(u64, usize, u32)> = Vec::new();
        let mut cycle = 10;
        for _ in 0..700 {
            cycle = match next(10) {
                0 => cycle,                                        // replaces the open span
                1 if seed % 2 == 0 => cycle + (1 << 32) + next(9), // overflows an offset
                1 if seed == 3 => cycle + (1 << 24) + next(9),     // and not a checkpoint
                2 => cycle.saturating_sub(next(3)).max(10),        // before the open span
                _ => cycle + 1 + next(40),
            };
            let state = WarpState::ALL[next(4) as usize];
            let pc = next(3) as u32;
            t.event(Event::StateChange {
                cycle,
                warp,
                state,
                pc,
                cause: None,
            });
            while plain.last().is_some_and(|s| s.0 >= cycle) {
                plain.pop();
            }
            if plain
                .last()
                .is_none_or(|s| (s.1, s.2) != (state.index(), pc))
            {
                plain.push((cycle, state.index(), pc));
            }
        }
        let finish = cycle + 5;
        t.event(Event::WarpFinish {
            cycle: finish,
            warp,
        });
        t.finish(&RunEnd {
            cycles: finish,
            outcome: Outcome::Finished,
        });
        let w = &t.warps[0];
        assert_eq!(w.len(), plain.len(), "seed {seed}");
        if seed % 2 == 0 {
            assert!(
                !w.wide.is_empty(),
                "seed {seed}: the wide form was exercised"
            );
            // A state held over `u32::MAX` cycles: the checkpoints kept in full.
            assert!(
                !w.wide_checkpoints.is_empty(),
                "seed {seed}: the wide checkpoints were exercised"
            );
        } else {
            assert!(
                w.wide_checkpoints.is_empty() && w.checkpoint_count() > 1,
                "seed {seed}: 32-bit checkpoints"
            );
            assert_eq!(
                !w.wide.is_empty(),
                seed == 3,
                "seed {seed}: the wide form only past 24-bit offsets"
            );
        }
        let ends: Vec<u64> = plain.iter().skip(1).map(|s| s.0).chain([finish]).collect();
        for (i, iv) in w.intervals().enumerate() {
            let p = plain[i];
            assert_eq!(
                (iv.start, iv.end, iv.state.index(), iv.pc),
                (p.0, ends[i], p.1, p.2),
                "seed {seed} interval {i}"
            );
        }
        let direct = |a: u64, b: u64| {
            let mut d = [0u64; STATE_COUNT];
            for (i, p) in plain.iter().enumerate() {
                let (s, e) = (p.0.max(a), ends[i].min(b));
                if e > s {
                    d[p.1] += e - s;
                }
            }
            d
        };
        for _ in 0..200 {
            let a = 10 + next(finish - 5);
            let b = a + next(finish - a + 20);
            assert_eq!(w.states_in(a, b), direct(a, b), "seed {seed} {a}..{b}");
            let at = w.at(a).map(|iv| iv.start);
            let want = plain.iter().rev().find(|p| p.0 <= a).map(|p| p.0);
            assert_eq!(at, want.filter(|_| a < finish), "seed {seed} at {a}");
        }
        for per in [1, 7, 300, finish / 50 + 1] {
            let cols = w.columns(10, per, 60);
            for (i, c) in cols.iter().enumerate() {
                let a = 10 + i as u64 * per;
                assert_eq!(*c, direct(a, a + per), "seed {seed} per {per} column {i}");
            }
        }
    }
}

/// A timeline caught up at every poll of the engine, and a copy of each catch-up.
#[derive(Default)]
struct Polled {
    t: Timeline,
    cycle: u64,
    seen: Vec<Timeline>,
}

impl Sink for Polled {
    fn begin(&mut self, h: &RunHeader) {
        self.t.begin(h);
    }
    fn finish(&mut self, end: &RunEnd) {
        self.t.finish(end);
    }
    fn keep_going(&mut self) -> bool {
        self.t.catch_up(self.cycle);
        self.seen.push(self.t.clone());
        true
    }
    fn event(&mut self, e: Event) {
        if let Event::StateChange { cycle, .. } = &e {
            self.cycle = self.cycle.max(*cycle);
        }
        self.t.event(e);
    }
}

/// What a viewer shows of a run still simulating is what the finished run shows
/// up to there: every warp's intervals are the final ones (the last of a warp
/// still on the SM cut at the catch-up's end), with their instruction and cause;
/// units' busy time and memory bytes before the end agree; and catching up changes
/// nothing in the finished timeline.
#[test]
fn a_caught_up_timeline_is_the_finished_one_cut_at_its_end() {
    for src in [
        include_str!("../../../../examples/gemm_ws.smk"),
        include_str!("../../../../examples/mbarrier_pingpong.smk"),
    ] {
        let k = isa::parse_kernel(src).unwrap();
        let p = Profile::builtin("h100").unwrap();
        let cfg = RunConfig::default();
        let mut polled = Polled::default();
        let r = crate::run_with(&k, &p, &cfg, cfg.policy.build(), &mut polled).unwrap();
        let fin = &polled.t;
        check(fin, &r);
        let (plain, _) = run(src);
        assert_eq!(fin.interval_count(), plain.interval_count());
        assert_eq!(fin.end, plain.end);
        assert!(polled.seen.len() >= 2, "{} polls", polled.seen.len());
        for part in &polled.seen {
            let now = part.end;
            assert!(part.outcome.is_none() && now < fin.end);
            assert_eq!(part.warps.len(), fin.warps.len().min(part.warps.len()));
            for (pw, fw) in part.warps.iter().zip(&fin.warps) {
                assert_eq!(pw.id, fw.id);
                let n = pw.len();
                for (i, iv) in pw.intervals().enumerate() {
                    let f = fw.get(i).expect("the final run has it");
                    assert_eq!(
                        (iv.start, iv.state, iv.pc),
                        (f.start, f.state, f.pc),
                        "{:?} interval {i} at {now}",
                        pw.id
                    );
                    assert_eq!(part.cause(&iv), fin.cause(&f));
                    if i + 1 < n || pw.finish_seen.is_some() {
                        assert_eq!(iv.end, f.end, "{:?} interval {i} at {now}", pw.id);
                    } else {
                        assert_eq!(iv.end, now, "{:?} open at {now}", pw.id);
                    }
                }
            }
            for (pu, fu) in part.units.iter().zip(&fin.units) {
                assert_eq!(pu.unit, fu.unit);
                assert_eq!(pu.busy_in(0, now), fu.busy_in(0, now), "{:?}", pu.unit);
            }
            for (pm, fm) in part.memory.iter().zip(&fin.memory) {
                assert!(pm.bytes_in(0, now) <= fm.bytes_in(0, now));
            }
        }
    }
}

#[test]
fn units_merge_and_sum_busy_time() {
    let mut u = UnitTimeline::new(Unit::Tma);
    for (s, e) in [(10, 20), (5, 12), (30, 31), (19, 25)] {
        u.add(s, e);
    }
    u.close();
    assert_eq!(u.busy().collect::<Vec<_>>(), vec![(5, 25), (30, 31)]);
    assert_eq!(u.busy_in(0, 100), 21);
    assert_eq!(u.busy_in(10, 30), 15);
    assert_eq!(u.busy_in(24, 31), 2);
    assert_eq!(u.busy_in(31, 40), 0);
    assert_eq!(u.busy_columns(0, 8, 4), vec![3, 8, 8, 2]);
    assert_eq!(u.busy_columns(26, 5, 2), vec![1, 0]);
}

/// Busy intervals of every length, overlapping, touching and out of order, past a
/// prefix sum's block several times over: every window and column sweep reads what a
/// direct sum over the merged cycles reads; the same from a cycle where they cross
/// `u32::MAX` (kept in 32 bits, then in full).
#[test]
fn unit_sums_agree_with_a_direct_count() {
    for offset in [0, u64::from(u32::MAX) - 9_000] {
        let mut x = 7u64;
        let mut next = move |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let mut u = UnitTimeline::new(Unit::Tma);
        let mut busy = vec![false; 20_000];
        let mut at = 0u64;
        for _ in 0..900 {
            // Mostly forward, now and then back (out of order).
            at = if next(8) == 0 {
                at.saturating_sub(next(100))
            } else {
                at + next(40)
            };
            let len = 1 + next(10);
            let (s, e) = (at.min(19_000), (at + len).min(19_000));
            if e > s {
                u.add(offset + s, offset + e);
            }
            for b in &mut busy[s as usize..e as usize] {
                *b = true;
            }
        }
        u.close();
        let merged: Vec<(u64, u64)> = u.busy().collect();
        assert!(merged.len() > 4 * 64, "{} intervals", merged.len());
        assert!(
            merged.windows(2).all(|w| w[0].1 < w[1].0),
            "merged and sorted"
        );
        let direct =
            |a: u64, b: u64| busy[a as usize..b as usize].iter().filter(|&&b| b).count() as u64;
        for _ in 0..300 {
            let a = next(19_500);
            let b = a + next(19_999 - a);
            assert_eq!(
                u.busy_in(offset + a, offset + b),
                direct(a, b),
                "{offset}: {a}..{b}"
            );
        }
        for per in [1, 3, 97, 400] {
            let n = (19_000 / per) as usize;
            let cols = u.busy_columns(offset, per, n);
            for (i, c) in cols.iter().enumerate() {
                let a = i as u64 * per;
                assert_eq!(*c, direct(a, a + per), "{offset}: per {per} column {i}");
            }
        }
    }
}

/// Warps found by (CTA, warp) whatever order they come in, the table growing its
/// warps per CTA when a warp past them appears (no header here to size it).
#[test]
fn warps_are_found_by_cta_and_warp_as_the_table_grows() {
    let mut t = Timeline::new();
    let ids = [(0, 0), (1, 2), (0, 5), (3, 1), (1, 9), (0, 1)];
    for (n, &(cta, warp)) in ids.iter().enumerate() {
        t.event(Event::StateChange {
            cycle: n as u64,
            warp: WarpId { cta, warp },
            state: WarpState::Selected,
            pc: 0,
            cause: None,
        });
    }
    for (n, &(cta, warp)) in ids.iter().enumerate() {
        assert_eq!(
            t.warp_index(WarpId { cta, warp }),
            Some(n),
            "c{cta} w{warp}"
        );
        assert_eq!(t.warps[n].id, WarpId { cta, warp });
    }
    for (cta, warp) in [(0, 2), (2, 0), (1, 10), (9, 0), (3, 9)] {
        assert_eq!(t.warp_index(WarpId { cta, warp }), None, "c{cta} w{warp}");
    }
}

/// Past the kinds a span can name (`sink::KIND_LIMIT`, 24-bit kinds), new spans keep
/// their start and state (they name the first kind of their instruction); those
/// before read back their causes.
#[test]
fn spans_past_the_kind_limit_keep_their_state() {
    let limit = super::sink::KIND_LIMIT as u64;
    let warp = WarpId { cta: 0, warp: 0 };
    let mut t = Timeline::new();
    let state = |i: u64| [WarpState::Wait, WarpState::ShortScoreboard][i as usize % 2];
    // Every change a kind of its own: its producer ready further from its start.
    let cause = |i: u64| WaitCause::Producer {
        pc: Some(1),
        ready: 2 * i + 1 + i,
    };
    let n = limit + 100;
    for i in 0..n {
        t.state_change(2 * i, warp, state(i), 0, Some(cause(i)));
    }
    t.event(Event::WarpFinish { cycle: 2 * n, warp });
    t.finish(&RunEnd {
        cycles: 2 * n,
        outcome: Outcome::Finished,
    });
    assert_eq!(t.kind_count() as u64, limit);
    let w = &t.warps[0];
    assert_eq!(w.len() as u64, n);
    for (i, iv) in w.intervals().enumerate() {
        let i = i as u64;
        assert_eq!((iv.start, iv.end, iv.state), (2 * i, 2 * i + 2, state(i)));
        if i < limit {
            assert_eq!(t.cause(&iv), Some(cause(i)), "span {i}");
        }
    }
}
