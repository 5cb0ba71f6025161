//! The viewer driven through its keys on small hand-checked kernels; frames compared
//! with insta snapshots (ratatui's test backend, no colour).

use std::sync::Arc;

use sim_core::cause::WaitCause;
use sim_core::{Profile, WarpState};
use tui::app::App;
use tui::model::{Loader, Outcome, RunSpec, simulate};
use tui::{parse_keys, prepare, render_text};

/// Kernels by name, from text: the specs' `kernel` names one of them.
struct Texts(Vec<(&'static str, String)>);

impl Loader for Texts {
    fn load(&self, spec: &RunSpec) -> Result<(isa::Kernel, Profile), String> {
        let src = &self
            .0
            .iter()
            .find(|(n, _)| *n == spec.kernel)
            .ok_or_else(|| format!("error: no kernel `{}`\n", spec.kernel))?
            .1;
        let mut k = isa::parse_kernel(src).map_err(|d| d.render("test", src))?;
        k.set_params(&spec.params)?;
        let mut p = Profile::builtin("h100").map_err(|e| e.to_string())?;
        for (n, v) in &spec.sets {
            p.set(n, *v).map_err(|e| e.to_string())?;
        }
        Ok((k, p))
    }
}

const CHAIN: &str = "kernel chain
launch cta_threads=64 regs=32 smem=0 grid=1
param N=3
role main warps=0..1
  loop i 0..N
    FFMA R1, R1, R2, 0.5
  EXIT
";

/// Valid to the checker, stuck at run time: only warp 0 reaches the CTA-wide barrier.
const DEADLOCK: &str = "kernel stuck
launch cta_threads=64 regs=32 smem=0 grid=1
role main warps=0..1
  FFMA R1, R1, R2, 0.5
  if warp == 0
    BAR.SYNC 0
  EXIT
";

fn loader() -> Arc<dyn Loader> {
    Arc::new(Texts(vec![
        ("chain", CHAIN.to_string()),
        ("stuck", DEADLOCK.to_string()),
    ]))
}

fn app(specs: &[RunSpec]) -> App {
    let l = loader();
    let runs = specs
        .iter()
        .map(|s| simulate(&*l, s).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let mut a = App::new(runs, Some(l));
    a.color = false;
    a.synchronous = true;
    a
}

fn keys(a: &mut App, k: &str) {
    for e in parse_keys(k).unwrap() {
        a.key(e);
    }
}

fn lat_fma() -> u64 {
    Profile::builtin("h100").unwrap().t.lat_fma as u64
}

#[test]
fn cursor_shows_the_warps_state_at_a_known_cycle() {
    // Two warps on two sub-partitions, each a chain of 3 dependent FFMAs: FFMA i issues
    // at lat * i, the warp waits (`wait`) in between, EXIT issues at 2 * lat + 1 and
    // the warp finishes the cycle after.
    let lat = lat_fma();
    let mut a = app(&[RunSpec::new("chain")]);
    prepare(
        &mut a,
        80,
        Some(lat / 2),
        Some(tui::Zoom::PerColumn(1)),
        &[],
    );
    // Select warp 1 (the rows: the group, warp 0, warp 1).
    keys(&mut a, "jj");
    let (w, iv) = a.cursor_interval().expect("warp 1 is on the SM");
    assert_eq!(a.runs[0].timeline.warps[w].id.warp, 1);
    assert_eq!(iv.state, WarpState::Wait);
    assert_eq!(
        (iv.start, iv.end),
        (1, lat),
        "waits from its first issue to the next"
    );
    assert_eq!(a.runs[0].text(0, iv.pc), "FFMA R1, R1, R2, 0.5");
    // It waits on its own FFMA's result (the loop's previous iteration), ready at lat.
    assert_eq!(
        a.runs[0].timeline.cause(&iv),
        Some(WaitCause::Producer {
            pc: Some(0),
            ready: lat
        })
    );
    assert_eq!(a.runs[0].line(0, iv.pc), Some(6));
    assert_eq!(a.runs[0].timeline.end, 2 * lat + 2);
    insta::assert_snapshot!("chain_cursor_80x24", render_text(&mut a, 80, 24));
}

#[test]
fn zoom_and_pan_keys_move_the_window_by_the_arithmetic() {
    let lat = lat_fma();
    let mut a = app(&[RunSpec::new("chain")]);
    prepare(&mut a, 80, None, None, &[]);
    let end = 2 * lat + 2;
    let cols = 80 - tui::draw::LABEL_W as u64;
    assert_eq!(a.view.per_col, end.div_ceil(cols).max(1));
    // Cycle zoom: the run fits in 60 columns, so the whole run is one cycle per column
    // already (`+` cannot go below 1).
    keys(&mut a, "+");
    assert_eq!(a.view.per_col, 1);
    keys(&mut a, "<Right><Right><Right>");
    assert_eq!(a.view.cursor, 3);
    keys(&mut a, "<End>");
    assert_eq!(a.view.cursor, end - 1);
    keys(&mut a, "<Home>");
    assert_eq!(a.view.cursor, 0);
    // `s` picks the cursor's state (selected) to jump to: the next issue of warp 0 is
    // the second FFMA, at lat.
    keys(&mut a, "j");
    keys(&mut a, "s]");
    assert_eq!(a.view.cursor, lat);
    keys(&mut a, "]");
    assert_eq!(a.view.cursor, 2 * lat);
    keys(&mut a, "[");
    assert_eq!(a.view.cursor, lat);
    insta::assert_snapshot!("chain_jumped_100x24", render_text(&mut a, 100, 24));
}

#[test]
fn compare_finds_the_first_cycle_the_runs_differ() {
    // N=2 against N=3: both issue FFMA at 0 and lat; at lat + 1 the first issues EXIT
    // (selected, pc 1) while the second waits for its third FFMA (wait, pc 0).
    let lat = lat_fma();
    let mut b = RunSpec::new("chain");
    b.set_param("N", 2);
    let mut a = app(&[b, RunSpec::new("chain")]);
    assert_eq!(a.divergence, Some(lat + 1));
    prepare(&mut a, 100, None, None, &parse_keys("d").unwrap());
    assert_eq!(a.view.cursor, lat + 1);
    insta::assert_snapshot!("compare_100x30", render_text(&mut a, 100, 30));
    // Identical runs never diverge.
    let a = app(&[RunSpec::new("chain"), RunSpec::new("chain")]);
    assert_eq!(a.divergence, None);
}

#[test]
fn a_deadlocked_run_opens_at_the_deadlock_with_its_report() {
    let mut a = app(&[RunSpec::new("stuck")]);
    let Outcome::Deadlock(report) = &a.runs[0].outcome else {
        panic!("the kernel deadlocks")
    };
    // Warp 0 issues FFMA at 0 and BAR.SYNC at 1; warp 1 FFMA at 0 and EXIT at 1, and
    // leaves at 2: from then on nothing can move.
    let cycle = report.cycle;
    assert_eq!(cycle, 2);
    assert_eq!(a.view.cursor, cycle);
    let (w, iv) = a.cursor_interval().expect("the stuck warp is selected");
    assert_eq!(a.runs[0].timeline.warps[w].id.warp, 0);
    assert_eq!(iv.state, WarpState::Barrier);
    assert_eq!(a.runs[0].text(0, iv.pc), "BAR.SYNC 0");
    prepare(&mut a, 100, None, None, &[]);
    let frame = render_text(&mut a, 100, 24);
    assert!(frame.contains("deadlock"), "{frame}");
    insta::assert_snapshot!("deadlock_100x24", frame);
}

#[test]
fn resize_keeps_the_place_and_small_terminals_still_draw() {
    let lat = lat_fma();
    let mut a = app(&[RunSpec::new("chain")]);
    prepare(&mut a, 120, Some(lat), Some(tui::Zoom::PerColumn(1)), &[]);
    let wide = render_text(&mut a, 120, 30);
    assert_eq!(a.view.cursor, lat);
    let narrow = render_text(&mut a, 80, 24);
    assert_eq!((a.view.cursor, a.view.per_col), (lat, 1));
    assert_eq!(a.view.cols, 80 - tui::draw::LABEL_W as u64);
    insta::assert_snapshot!("resize_120x30", wide);
    insta::assert_snapshot!("resize_80x24", narrow);
    let tiny = render_text(&mut a, 30, 8);
    assert!(tiny.contains("too small"));
    // The help lists every key, at 80x24 too.
    keys(&mut a, "?");
    insta::assert_snapshot!("help_80x24", render_text(&mut a, 80, 24));
}

#[test]
fn what_if_reruns_in_place() {
    let lat = lat_fma();
    let mut a = app(&[RunSpec::new("chain")]);
    prepare(&mut a, 100, Some(lat), None, &[]);
    keys(&mut a, ":param N=5<Enter>");
    assert_eq!(a.runs[0].spec.params, vec![("N".to_string(), 5)]);
    assert_eq!(a.runs[0].timeline.end, 4 * lat + 2);
    assert_eq!(a.view.cursor, lat, "the cursor keeps its place");
    keys(&mut a, ":param N=x<Enter>");
    assert!(a.message.contains("not an integer"), "{}", a.message);
    keys(&mut a, ":set lat_fma=8<Enter>");
    assert_eq!(a.runs[0].timeline.end, 4 * 8 + 2);
    keys(&mut a, ":policy gto<Enter>");
    assert_eq!(a.runs[0].spec.policy.name(), "gto");
    keys(&mut a, ":nonsense<Enter>");
    assert!(a.message.contains("try `param K=V`"), "{}", a.message);
}

#[test]
fn the_summary_shows_the_runs_bounds() {
    // Two warps, each issuing 3 FFMA and EXIT on its own scheduler: the issue slots
    // bind at 4 cycles; the run takes 2 * lat_fma + 2 (the FFMA chain, EXIT, the
    // retire), so it is (2 * lat + 2) / 4 - 1 above its bound.
    let lat = lat_fma();
    let mut a = app(&[RunSpec::new("chain")]);
    assert_eq!(a.runs[0].timeline.end, 2 * lat + 2);
    prepare(&mut a, 160, None, None, &[]);
    let frame = render_text(&mut a, 160, 36);
    let above = 100.0 * ((2 * lat + 2) as f64 / 4.0 - 1.0);
    let want = format!("bound (whole run): issue slots ≥ 4 cycles, run {above:+.1}%");
    assert!(frame.contains(&want), "{want}\n{frame}");
    insta::assert_snapshot!("bounds_160x36", frame);
    // A run that did not finish has no bounds, and says none.
    let mut a = app(&[RunSpec::new("stuck")]);
    prepare(&mut a, 160, None, None, &[]);
    assert!(!render_text(&mut a, 160, 36).contains("bound (whole run)"));
}

#[test]
fn the_first_simulation_shows_its_progress() {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use tui::draw::{Loading, draw_loading};
    use tui::model::ProgressNow;
    let frame = |l: &Loading, w: u16, h: u16| {
        let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
        draw_loading(l, false, buf.area, &mut buf);
        tui::buffer_text(&buf)
    };
    let mut l = Loading {
        labels: vec!["gemm-mainloop/ws".into(), "gemm-mainloop/static-v1".into()],
        current: 1,
        progress: ProgressNow {
            cycle: 1_234_567,
            ctas_done: 3,
            ctas: 8,
            estimate: None,
        },
        elapsed: std::time::Duration::from_millis(1500),
    };
    let f = frame(&l, 80, 24);
    assert!(
        f.contains("cycle 1,234,567 simulated, 3 of 8 CTAs done, 1.5 s"),
        "{f}"
    );
    assert!(f.contains("run 2 of 2: gemm-mainloop/static-v1"), "{f}");
    // 3 of 8 CTAs: 3/8 of the 60-column bar.
    assert_eq!(f.matches('█').count(), 60 * 3 / 8, "{f}");
    insta::assert_snapshot!("loading_80x24", f);
    // Once the first wave is done, the run's length estimated from it: 1,234,567 of
    // 4,000,000 is 30.9%, said as 30% (never rounded up to what is not yet done).
    l.progress.estimate = Some(4_000_000);
    let f = frame(&l, 80, 24);
    assert!(
        f.contains("cycle 1,234,567 of ~4,000,000 (30%) simulated, 3 of 8 CTAs done"),
        "{f}"
    );
    // Before the run's header comes: starting; at 40x12 it still draws.
    l.progress = ProgressNow::default();
    l.labels.truncate(1);
    l.current = 0;
    let f = frame(&l, 40, 12);
    assert!(f.contains("starting"), "{f}");
    assert!(f.contains("q, Esc or Ctrl-C stops"), "{f}");
}

#[test]
fn a_what_if_under_way_is_shown_until_it_lands() {
    // The chain's N FFMAs, EXIT and the retire: (N - 1) * lat + 2 cycles.
    let lat = lat_fma();
    let mut a = app(&[RunSpec::new("chain")]);
    a.synchronous = false;
    prepare(&mut a, 100, None, None, &[]);
    keys(&mut a, ":param N=5<Enter>");
    // The old run stays on screen, the title says a new one is under way.
    let frame = render_text(&mut a, 100, 24);
    assert!(frame.contains(" simulating: "), "{frame}");
    let old = format!("chain: {} cycles", 2 * lat + 2);
    assert!(frame.contains(&old), "{frame}");
    let start = std::time::Instant::now();
    while !a.poll() {
        assert!(start.elapsed().as_secs() < 20, "the what-if never landed");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let frame = render_text(&mut a, 100, 24);
    assert!(!frame.contains("simulating:"), "{frame}");
    let new = format!("chain N=5: {} cycles", 4 * lat + 2);
    assert!(frame.contains(&new), "{frame}");
}

#[test]
fn a_long_run_shows_its_first_frame_while_it_simulates() {
    use std::time::Duration;
    use tui::model::{FirstFrame, Partials, Progress, simulate_live};
    // Two warps of 3,000 dependent FFMAs: (N - 1) * lat + 2 cycles each, well past the
    // engine's first poll (cycle 4,096), where the first partial run is due at once.
    let lat = lat_fma();
    let n = 3000;
    let mut spec = RunSpec::new("chain");
    spec.set_param("N", n);
    let l = loader();
    let (k, p) = l.load(&spec).unwrap();
    let mut frames = Vec::new();
    let mut ends = Vec::new();
    let mut show = |run: tui::RunData| {
        assert!(matches!(run.outcome, Outcome::Running(_)));
        ends.push(run.timeline.end);
        let mut a = App::new(vec![run], None);
        a.color = false;
        prepare(&mut a, 100, Some(4001), None, &[]);
        frames.push(render_text(&mut a, 100, 24));
        a.runs.pop()
    };
    let partials = Partials {
        first: FirstFrame::after(Duration::ZERO),
        every: Duration::from_secs(3600),
        show: &mut show,
        wanted: None,
    };
    let run = simulate_live(&spec, &k, &p, &Progress::default(), None, Some(partials)).unwrap();
    // One partial run, at the first poll (before cycle 4,096 is simulated): up to the
    // cycle past its last event, the wait after the last FFMA issued before 4,096.
    assert_eq!(frames.len(), 1);
    let end = ends[0];
    assert_eq!(end, 4095 / lat * lat + 2);
    let last = (n as u64 - 1) * lat + 2;
    assert!(matches!(run.outcome, Outcome::Finished));
    assert_eq!(run.timeline.end, last);
    let f = &frames[0];
    // The title says it is partial and how far it got, before anything else.
    assert!(
        f.lines()
            .next()
            .unwrap()
            .starts_with(" PARTIAL, simulating: cycle 4,"),
        "{f}"
    );
    assert!(
        f.contains(&format!("chain N=3000: {end} cycles, so far")),
        "{f}"
    );
    assert!(f.contains("what-ifs once it ends"), "{f}");
    // The cursor's warp reads what the finished run says there: 4,001 is one past an
    // issue (4,000 = 1,000 lat for lat 4), so the warp waits on its FFMA.
    let iv = run.timeline.warps[0].at(4001).unwrap();
    assert_eq!(iv.state, WarpState::Wait);
    assert!(f.contains("wait"), "{f}");
    insta::assert_snapshot!("partial_100x24", f);
}

/// While a run simulates, the viewer of its partial frames keeps its place from one
/// to the next (a zoom and cursor the user chose stay; a window showing the whole run
/// so far grows with it), and the finished run opens where the user left off.
#[test]
fn partial_frames_keep_the_users_place_into_the_finished_run() {
    use std::time::Duration;
    use tui::model::{FirstFrame, Partials, Progress, simulate_live};
    let lat = lat_fma();
    let mut spec = RunSpec::new("chain");
    spec.set_param("N", 5000);
    let l = loader();
    let (k, p) = l.load(&spec).unwrap();
    for zoomed in [false, true] {
        let mut live: Option<App> = None;
        let mut seen = Vec::new();
        let mut show = |run: tui::RunData| {
            let app = match &mut live {
                Some(a) => {
                    a.take_partial(vec![run]);
                    a
                }
                None => {
                    let mut a = App::new(vec![run], None);
                    a.color = false;
                    prepare(&mut a, 100, None, None, &[]);
                    if zoomed {
                        // One cycle per column at cycle 1,000, the cursor 3 columns on.
                        a.view.goto(1000);
                        keys(&mut a, "z<Right><Right><Right>");
                    }
                    live.insert(a)
                }
            };
            let frame = render_text(app, 100, 24);
            seen.push((app.view, app.runs[0].timeline.end, frame));
            app.give_back().pop()
        };
        let partials = Partials {
            first: FirstFrame::after(Duration::ZERO),
            every: Duration::ZERO,
            show: &mut show,
            wanted: None,
        };
        let run = simulate_live(&spec, &k, &p, &Progress::default(), None, Some(partials)).unwrap();
        // A partial frame at every poll: 4,096 cycles apart, over (N - 1) * lat + 2.
        let last = 4999 * lat + 2;
        assert_eq!(run.timeline.end, last);
        assert_eq!(seen.len() as u64, (last - 1) / 4096, "{zoomed}");
        for (i, (v, end, frame)) in seen.iter().enumerate() {
            assert_eq!(v.end, *end);
            assert!(frame.starts_with(" PARTIAL, simulating: cycle "), "{frame}");
            if zoomed {
                assert_eq!((v.per_col, v.cursor), (1, 1003), "partial {i}");
            } else {
                assert_eq!((v.start, v.per_col), (0, v.fit_per_col()), "partial {i}");
            }
        }
        // Each partial run ends further on.
        assert!(seen.windows(2).all(|w| w[0].1 < w[1].1));
        let live = live.unwrap();
        let mut done = App::new(vec![run], None);
        done.keep_place_of(&live);
        let f = render_text(&mut done, 100, 24);
        assert!(
            f.contains(&format!("chain N=5000: {last} cycles, finished")),
            "{f}"
        );
        if zoomed {
            assert_eq!((done.view.per_col, done.view.cursor), (1, 1003));
            assert!(f.contains("cursor 1003"), "{f}");
        } else {
            assert_eq!(done.view.per_col, done.view.fit_per_col());
            assert_eq!(done.view.end, last);
        }
    }
}

/// A run of four waves of two 32-warp CTAs: its partial frames fold each CTA's warps
/// into one row as the CTA launches (the first CTA open), a CTA the user unfolded stays
/// open, and the finished run keeps that and folds the CTAs launched since.
#[test]
fn partial_frames_fold_ctas_as_they_launch_and_keep_the_users_folds() {
    use std::time::Duration;
    use tui::model::{FirstFrame, Partials, Progress, simulate_live};
    use tui::rows::RowKind;
    // 1,056 CTAs over 132 SMs: 8 on the SM simulated, two resident at a time (64 warps).
    let waves = "kernel waves
launch cta_threads=1024 regs=32 smem=0 grid=1056
param N=1500
role main warps=0..31
  loop i 0..N
    FFMA R1, R1, R2, 0.5
  EXIT
";
    let l = Texts(vec![("waves", waves.to_string())]);
    let spec = RunSpec::new("waves");
    let (k, p) = l.load(&spec).unwrap();
    // The CTAs whose warps have rows of their own.
    let open_ctas = |a: &App| {
        let mut c: Vec<u32> = a
            .rows
            .iter()
            .filter_map(|r| match r.kind {
                RowKind::Warp(w) => Some(a.runs[0].timeline.warps[w].id.cta),
                _ => None,
            })
            .collect();
        c.dedup();
        c
    };
    let mut live: Option<App> = None;
    let mut seen = Vec::new();
    let mut show = |run: tui::RunData| {
        let app = match &mut live {
            Some(a) => {
                a.take_partial(vec![run]);
                a
            }
            None => {
                let mut a = App::new(vec![run], None);
                a.color = false;
                // The user opens CTA 1's group.
                let g = a
                    .rows
                    .iter()
                    .position(|r| matches!(r.kind, RowKind::Group { cta: 1, .. }))
                    .expect("CTA 1 is on the SM from the start");
                a.selected = g;
                keys(&mut a, "<Enter>");
                live.insert(a)
            }
        };
        let ctas = app.runs[0].timeline.warps.iter().map(|w| w.id.cta).max();
        seen.push((ctas.unwrap_or(0), open_ctas(app)));
        app.give_back().pop()
    };
    let partials = Partials {
        first: FirstFrame::after(Duration::ZERO),
        every: Duration::ZERO,
        show: &mut show,
        wanted: None,
    };
    let run = simulate_live(&spec, &k, &p, &Progress::default(), None, Some(partials)).unwrap();
    assert_eq!(run.timeline.warps.len(), 8 * 32);
    // Partial frames met every CTA as it launched, and only 0 and 1 had warp rows.
    assert!(seen.iter().any(|s| s.0 == 7), "{seen:?}");
    assert!(seen.iter().all(|s| s.1 == vec![0, 1]), "{seen:?}");
    let live = live.unwrap();
    let mut done = App::new(vec![run], None);
    assert_eq!(
        open_ctas(&done),
        vec![0],
        "opening folds: the first CTA open"
    );
    done.keep_place_of(&live);
    assert_eq!(open_ctas(&done), vec![0, 1], "the user's CTA 1 stays open");
}

/// A run that will be large opens folded even while its first CTAs alone would be
/// few: 8 CTAs of 8 warps, two resident at a time (16 warps on the SM at first, 64 in
/// all), fold every CTA but the first from the first partial frame to the end.
#[test]
fn partial_frames_fold_as_the_whole_run_will() {
    use std::time::Duration;
    use tui::model::{FirstFrame, Partials, Progress, simulate_live};
    use tui::rows::RowKind;
    let waves = "kernel waves8
launch cta_threads=256 regs=128 smem=0 grid=1056
param N=3000
role main warps=0..7
  loop i 0..N
    FFMA R1, R1, R2, 0.5
  EXIT
";
    let l = Texts(vec![("waves8", waves.to_string())]);
    let spec = RunSpec::new("waves8");
    let (k, p) = l.load(&spec).unwrap();
    let open_ctas = |a: &App| {
        let mut c: Vec<u32> = a
            .rows
            .iter()
            .filter_map(|r| match r.kind {
                RowKind::Warp(w) => Some(a.runs[0].timeline.warps[w].id.cta),
                _ => None,
            })
            .collect();
        c.dedup();
        c
    };
    let mut live: Option<App> = None;
    let mut seen = Vec::new();
    let mut show = |run: tui::RunData| {
        let app = match &mut live {
            Some(a) => {
                a.take_partial(vec![run]);
                a
            }
            None => live.insert(App::new(vec![run], None)),
        };
        seen.push((app.runs[0].timeline.warps.len(), open_ctas(app)));
        app.give_back().pop()
    };
    let partials = Partials {
        first: FirstFrame::after(Duration::ZERO),
        every: Duration::ZERO,
        show: &mut show,
        wanted: None,
    };
    let run = simulate_live(&spec, &k, &p, &Progress::default(), None, Some(partials)).unwrap();
    assert_eq!(run.timeline.warps.len(), 64);
    assert_eq!(seen[0].0, 16, "two CTAs at the first partial frame");
    assert!(seen.iter().all(|s| s.1 == vec![0]), "{seen:?}");
    let mut done = App::new(vec![run], None);
    done.keep_place_of(&live.unwrap());
    assert_eq!(open_ctas(&done), vec![0]);
}

/// In compare mode the second run shows itself while it simulates, beside the first
/// (finished): the title says it is partial, each run's row says how far it is.
#[test]
fn compare_shows_the_second_run_so_far_beside_the_first() {
    use std::time::Duration;
    use tui::model::{FirstFrame, Partials, Progress, simulate_live};
    let lat = lat_fma();
    let l = loader();
    let first = simulate(&*l, &RunSpec::new("chain")).unwrap();
    let mut spec = RunSpec::new("chain");
    spec.set_param("N", 3000);
    let (k, p) = l.load(&spec).unwrap();
    let mut first = Some(first);
    let mut frames = Vec::new();
    let mut show = |run: tui::RunData| {
        let mut a = App::new(vec![first.take().unwrap(), run], None);
        a.color = false;
        prepare(&mut a, 120, None, None, &[]);
        frames.push(render_text(&mut a, 120, 30));
        let mut runs = a.give_back();
        let run = runs.pop();
        first = runs.pop();
        run
    };
    let partials = Partials {
        first: FirstFrame::after(Duration::ZERO),
        every: Duration::from_secs(3600),
        show: &mut show,
        wanted: None,
    };
    let second = simulate_live(&spec, &k, &p, &Progress::default(), None, Some(partials));
    assert!(matches!(second.unwrap().outcome, Outcome::Finished));
    assert_eq!(frames.len(), 1);
    let f = &frames[0];
    let end = 4095 / lat * lat + 2;
    assert!(
        f.lines()
            .next()
            .unwrap()
            .starts_with(" PARTIAL, simulating: cycle 4,"),
        "{f}"
    );
    let chain = 2 * lat + 2;
    assert!(
        f.contains(&format!("chain: {chain} cycles, finished")),
        "{f}"
    );
    assert!(
        f.contains(&format!("{end} cycles, so far (simulating)")),
        "{f}"
    );
    assert!(f.contains("what-ifs once it ends"), "{f}");
}
