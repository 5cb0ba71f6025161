//! The viewer's speed: launch to a frame (the kernel loaded, the simulation with the
//! timeline attached, the app, one 200x60 frame), both the complete run's and the
//! first the terminal shows (a long run so far, drawn while it simulates), for two
//! library kernels at their defaults and singe-viscosity and fa3-forward at their
//! seeds' shapes; a redraw at 200x60 at full zoom-out and at one cycle per column, a
//! redraw that pans (a new window: the summary's scan included), and a what-if round
//! trip (rerun with the next seed, then a frame). Targets (issue 26): first frame
//! within 0.5 s, a redraw within 16 ms.
//!
//! `cargo bench -p tui --bench tui`

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use sim_core::Profile;
use tui::app::App;
use tui::model::{
    FIRST_FRAME, Loader, Progress, RunSpec, simulate, simulate_first, simulate_loaded,
};
use tui::{Zoom, prepare, render_text};

/// Library kernels, with their family's profile.
struct Library;

impl Loader for Library {
    fn load(&self, spec: &RunSpec) -> Result<(isa::Kernel, Profile), String> {
        let family = spec.kernel.split('/').next().unwrap_or("");
        let profile = traces::family(family)?.profile;
        let k = traces::builtin_with(&spec.kernel, &spec.params)?;
        let mut p = Profile::builtin(profile).map_err(|e| e.to_string())?;
        for (n, v) in &spec.sets {
            p.set(n, *v).map_err(|e| e.to_string())?;
        }
        Ok((k, p))
    }
}

const KERNELS: [&str; 2] = ["gemm-mainloop/ws", "singe-viscosity/data-parallel"];

/// The seed's problem size of singe-viscosity (seed 004): 2.66 M warp-instructions,
/// 12 M state changes.
const SEED_SCALE: (&str, &[(&str, i64)]) = (
    "singe-viscosity/data-parallel",
    &[("SPECIES", 52), ("POINTS", 262144)],
);

fn open(kernel: &str) -> App {
    open_with(kernel, &[])
}

fn open_with(kernel: &str, params: &[(&str, i64)]) -> App {
    let loader: Arc<dyn Loader> = Arc::new(Library);
    let mut spec = RunSpec::new(kernel);
    for (k, v) in params {
        spec.set_param(k, *v);
    }
    let run = simulate(&*loader, &spec).expect("a library kernel runs");
    let mut app = App::new(vec![run], Some(loader));
    app.color = true;
    app.synchronous = true;
    app
}

/// fa3-forward at its seed's shape (seed 002): 32 CTAs on the busiest SM, one at a
/// time, 7.14 M warp-instructions.
const FA3_SEED: (&str, &[(&str, i64)]) = (
    "fa3-forward/fa3",
    &[("BATCH", 4), ("SEQLEN", 8448), ("HEADS", 16)],
);

fn spec_of(kernel: &str, params: &[(&str, i64)]) -> RunSpec {
    let mut spec = RunSpec::new(kernel);
    for (k, v) in params {
        spec.set_param(k, *v);
    }
    spec
}

/// Launch to a frame at 200x60, from the kernel's loading: `complete`, the whole run
/// (`--render`); `first`, the frame the terminal shows first (`--render-first`: a
/// long run as far as it has got when its first frame is due by its own progress,
/// [`FIRST_FRAME`]; a short one whole).
fn first_frame(c: &mut Criterion) {
    let mut g = c.benchmark_group("first_frame");
    g.sample_size(10);
    let cases = KERNELS
        .iter()
        .map(|&k| (k.to_string(), k, &[][..]))
        .chain([SEED_SCALE, FA3_SEED].map(|(k, p)| (format!("{k}@seed-scale"), k, p)));
    for (name, k, params) in cases {
        for first in [false, true] {
            let which = if first { "first" } else { "complete" };
            g.bench_function(format!("{name}/{which}"), |b| {
                b.iter(|| {
                    let spec = spec_of(k, params);
                    let (kernel, profile) = Library.load(&spec).expect("loads");
                    let p = Progress::default();
                    let at = FIRST_FRAME.by_progress();
                    let run = if first {
                        simulate_first(&spec, &kernel, &profile, &p, None, at)
                    } else {
                        simulate_loaded(&spec, &kernel, &profile)
                    };
                    let mut app = App::new(vec![run.expect("runs")], None);
                    prepare(&mut app, 200, None, None, &[]);
                    black_box(render_text(&mut app, 200, 60))
                })
            });
        }
    }
    g.finish();
}

fn redraw(c: &mut Criterion) {
    let mut g = c.benchmark_group("redraw_200x60");
    let cases = KERNELS
        .iter()
        .map(|&k| (k.to_string(), k, &[][..]))
        .chain([(
            format!("{}@seed-scale", SEED_SCALE.0),
            SEED_SCALE.0,
            SEED_SCALE.1,
        )]);
    for (name, k, params) in cases {
        let mut app = open_with(k, params);
        let k = name.as_str();
        let mid = app.view.end / 2;
        for (name, zoom) in [("fit", Zoom::Fit), ("cycle", Zoom::PerColumn(1))] {
            prepare(&mut app, 200, Some(mid), Some(zoom), &[]);
            let mut flip = false;
            g.bench_function(format!("{k}/{name}"), |b| {
                b.iter(|| {
                    // The cursor moves (the window stays): what a key press redraws.
                    flip = !flip;
                    app.view.step(if flip { 1 } else { -1 });
                    black_box(render_text(&mut app, 200, 60))
                })
            });
        }
        prepare(&mut app, 200, Some(mid), Some(Zoom::PerColumn(64)), &[]);
        let mut flip = false;
        g.bench_function(format!("{k}/pan"), |b| {
            b.iter(|| {
                // A new window each time: the summary recomputed.
                flip = !flip;
                app.view.pan(if flip { 50 } else { -50 });
                black_box(render_text(&mut app, 200, 60))
            })
        });
    }
    g.finish();
}

fn what_if(c: &mut Criterion) {
    let mut g = c.benchmark_group("what_if");
    g.sample_size(10);
    let k = KERNELS[0];
    let mut app = open(k);
    prepare(&mut app, 200, None, None, &[]);
    g.bench_function(k, |b| {
        b.iter(|| {
            let mut spec = app.runs[0].spec.clone();
            spec.seed += 1;
            app.request(0, spec);
            black_box(render_text(&mut app, 200, 60))
        })
    });
    g.finish();
}

criterion_group!(benches, first_frame, redraw, what_if);
criterion_main!(benches);
