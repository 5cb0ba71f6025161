//! Where a viewer's run spends its memory: state intervals, causes, units, memory
//! requests, synchronisation events, as the timeline counts them.
//!
//! `cargo run --release -p tui --example footprint -- KERNEL [K=V ...]`

use sim_core::Profile;
use tui::model::{Loader, RunSpec, simulate};

struct Library;

impl Loader for Library {
    fn load(&self, spec: &RunSpec) -> Result<(isa::Kernel, Profile), String> {
        let family = spec.kernel.split('/').next().unwrap_or("");
        let profile = traces::family(family)?.profile;
        let k = traces::builtin_with(&spec.kernel, &spec.params)?;
        Ok((k, Profile::builtin(profile).map_err(|e| e.to_string())?))
    }
}

/// Events by kind.
#[derive(Default)]
struct Count([u64; 5]);

impl sim_core::sink::Sink for Count {
    fn event(&mut self, e: sim_core::sink::Event) {
        use sim_core::sink::Event;
        let i = match e {
            Event::StateChange { cause: Some(_), .. } => 4,
            Event::StateChange { .. } => 0,
            Event::Issue { .. } => 1,
            Event::UnitBusy { .. } => 2,
            _ => 3,
        };
        self.0[i] += 1;
    }
}

/// Takes every event as the timeline asks for them (states ahead, first issues only)
/// and keeps nothing: the engine's side of the recording cost.
struct Null;

impl sim_core::sink::Sink for Null {
    const STATES_AHEAD: bool = true;
    const EVERY_ISSUE: bool = false;
    #[inline(always)]
    fn state_change(
        &mut self,
        cycle: u64,
        warp: sim_core::sink::WarpId,
        state: sim_core::WarpState,
        pc: u32,
        cause: Option<sim_core::cause::WaitCause>,
    ) {
        std::hint::black_box((cycle, warp, state, pc, &cause));
    }
    #[inline(always)]
    fn event(&mut self, e: sim_core::sink::Event) {
        std::hint::black_box(&e);
    }
}

/// Keeps the stream a timeline is given (states ahead, first issues only), to replay
/// into a timeline alone: the recording side's cost without the engine's.
#[derive(Default)]
struct Recorder {
    header: Option<sim_core::sink::RunHeader>,
    events: Vec<sim_core::sink::Event>,
    end: Option<sim_core::sink::RunEnd>,
}

impl sim_core::sink::Sink for Recorder {
    const STATES_AHEAD: bool = true;
    const EVERY_ISSUE: bool = false;
    fn begin(&mut self, h: &sim_core::sink::RunHeader) {
        self.header = Some(h.clone());
    }
    fn event(&mut self, e: sim_core::sink::Event) {
        self.events.push(e);
    }
    fn finish(&mut self, end: &sim_core::sink::RunEnd) {
        self.end = Some(end.clone());
    }
}

/// The recorded stream into a new timeline (callgrind's `--toggle-collect` counts it
/// alone).
#[inline(never)]
fn replay_timeline(r: &Recorder) -> sim_core::timeline::Timeline {
    replay(r, sim_core::timeline::Timeline::new())
}

/// The recorded stream into [`Null`]: the replay's own cost.
#[inline(never)]
fn replay_null(r: &Recorder) {
    replay(r, Null);
}

/// The recorded stream into a sink, as the engine gives it.
#[inline(always)]
fn replay<S: sim_core::sink::Sink>(r: &Recorder, mut t: S) -> S {
    use sim_core::sink::Event;
    t.begin(r.header.as_ref().expect("began"));
    for e in &r.events {
        match e {
            Event::StateChange {
                cycle,
                warp,
                state,
                pc,
                cause,
            } => t.state_change(*cycle, *warp, *state, *pc, cause.clone()),
            // (By their fields, as the engine's short paths give them.)
            Event::Issue {
                cycle,
                warp,
                subpartition,
                role,
                pc,
            } => t.issue(*cycle, *warp, *subpartition, *role, *pc),
            Event::UnitBusy {
                start,
                end,
                unit,
                warp,
            } => t.unit_busy(*start, *end, *unit, *warp),
            e => t.event(e.clone()),
        }
    }
    t.finish(r.end.as_ref().expect("finished"));
    t
}

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    // `--only MODE` (nosink, null, count, timeline, partial, replay) runs just that, for `perf stat`.
    let only = if args.peek().is_some_and(|a| a == "--only") {
        args.next();
        args.next()
    } else {
        None
    };
    let kernel = args
        .next()
        .unwrap_or_else(|| "singe-viscosity/data-parallel".into());
    let mut spec = RunSpec::new(&kernel);
    for a in args {
        let (k, v) = a.split_once('=').expect("K=V");
        spec.set_param(k, v.parse().expect("an integer"));
    }
    let (k, p) = Library.load(&spec).expect("loads");
    let cfg = sim_core::RunConfig {
        seed: spec.seed,
        ..Default::default()
    };
    match only.as_deref() {
        Some("nosink") => {
            sim_core::run(&k, &p, &cfg).expect("runs");
            return;
        }
        Some("null") => {
            sim_core::run_sink(&k, &p, &cfg, &mut Null).expect("runs");
            return;
        }
        Some("replay") => {
            // `valgrind --tool=callgrind --toggle-collect='footprint::replay_timeline'`
            // counts the replay into a timeline alone, `footprint::replay_null` the
            // replay's own part of it.
            let mut rec = Recorder::default();
            sim_core::run_sink(&k, &p, &cfg, &mut rec).expect("runs");
            let t0 = std::time::Instant::now();
            replay_null(&rec);
            println!(
                "replayed into no timeline in {:.3} s",
                t0.elapsed().as_secs_f64()
            );
            let t0 = std::time::Instant::now();
            let t = replay_timeline(&rec);
            println!(
                "replayed {} events into {} intervals in {:.3} s",
                rec.events.len(),
                t.interval_count(),
                t0.elapsed().as_secs_f64()
            );
            return;
        }
        Some("count") => {
            sim_core::run_with(&k, &p, &cfg, cfg.policy.build(), &mut Count::default())
                .expect("runs");
            return;
        }
        Some("timeline") => {
            simulate(&Library, &spec).expect("runs");
            return;
        }
        Some("partial") => {
            // As the terminal shows the run: launch to each partial frame (200x60),
            // then to the complete one.
            let t0 = std::time::Instant::now();
            let mut show = |run: tui::RunData| {
                let mut app = tui::App::new(vec![run], None);
                tui::prepare(&mut app, 200, None, None, &[]);
                std::hint::black_box(tui::render_text(&mut app, 200, 60));
                let progress = match &app.runs[0].outcome {
                    tui::model::Outcome::Running(p) => tui::draw::running(p),
                    _ => String::new(),
                };
                println!(
                    "partial frame at {:.3} s ({progress})",
                    t0.elapsed().as_secs_f64(),
                );
                app.runs.pop()
            };
            let partials = tui::model::Partials {
                first: tui::model::FIRST_FRAME,
                every: tui::model::PARTIAL_EVERY,
                show: &mut show,
                wanted: None,
            };
            let progress = tui::model::Progress::default();
            let run = tui::model::simulate_live(&spec, &k, &p, &progress, None, Some(partials));
            let mut app = tui::App::new(vec![run.expect("runs")], None);
            tui::prepare(&mut app, 200, None, None, &[]);
            std::hint::black_box(tui::render_text(&mut app, 200, 60));
            println!("complete frame at {:.3} s", t0.elapsed().as_secs_f64());
            return;
        }
        _ => {}
    }
    let t0 = std::time::Instant::now();
    let mut count = Count::default();
    sim_core::run_with(&k, &p, &cfg, cfg.policy.build(), &mut count).expect("runs");
    println!(
        "counting sink: {:.3} s, {:?}",
        t0.elapsed().as_secs_f64(),
        count.0
    );
    let t0 = std::time::Instant::now();
    sim_core::run(&k, &p, &cfg).expect("runs");
    println!("no sink: {:.3} s", t0.elapsed().as_secs_f64());
    let t0 = std::time::Instant::now();
    let run = simulate(&Library, &spec).expect("runs");
    println!("simulated in {:.3} s", t0.elapsed().as_secs_f64());
    let t0 = std::time::Instant::now();
    let mut app = tui::App::new(vec![run], None);
    tui::prepare(&mut app, 200, None, None, &[]);
    let frame = tui::render_text(&mut app, 200, 60);
    println!(
        "app and first 200x60 frame in {:.3} s ({} lines)",
        t0.elapsed().as_secs_f64(),
        frame.lines().count()
    );
    // Redraws at the whole run's zoom, the cursor moving: what a key press costs.
    let t0 = std::time::Instant::now();
    for i in 0..20 {
        app.view.step(if i % 2 == 0 { 1 } else { -1 });
        std::hint::black_box(tui::render_text(&mut app, 200, 60));
    }
    println!(
        "redraw 200x60 at fit: {:.1} ms",
        t0.elapsed().as_secs_f64() * 50.0
    );
    let t = &app.runs[0].timeline;
    println!("cycles {}", t.end);
    println!("warps {}", t.warps.len());
    println!("intervals {}", t.interval_count());
    println!("causes {}", t.cause_count());
    println!("kinds {}", t.kind_count());
    println!("syncs {}", t.syncs.len());
    for u in &t.units {
        println!("unit {:?}: {} busy intervals", u.unit, u.len());
    }
    for m in &t.memory {
        println!("memory {:?}: {} requests", m.level, m.requests.len());
    }
    println!("timeline heap {:.1} MB", t.heap_bytes() as f64 / 1e6);
}
