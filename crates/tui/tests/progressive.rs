//! A long run drawn while it simulates: its first frame comes at a point of the run's
//! own (its first wave of CTAs done), says how far the run has got and how long it
//! will be, draws the cycles it has not reached as such, and keeps every figure that
//! needs the whole run for the end; the finished run's frame is `--render`'s.

use std::sync::Arc;
use std::time::Duration;

use sim_core::Profile;
use tui::app::App;
use tui::draw::{NOT_SIMULATED, group};
use tui::model::{
    FIRST_FRAME, FirstFrame, Loader, Outcome, Partials, Progress, RunData, RunSpec, Waves,
    simulate, simulate_first, simulate_live,
};
use tui::{parse_keys, prepare, render_text};

/// Kernels by name, from text.
struct Texts(Vec<(&'static str, &'static str)>);

impl Loader for Texts {
    fn load(&self, spec: &RunSpec) -> Result<(isa::Kernel, Profile), String> {
        let src = self
            .0
            .iter()
            .find(|(n, _)| *n == spec.kernel)
            .ok_or_else(|| format!("error: no kernel `{}`\n", spec.kernel))?
            .1;
        let mut k = isa::parse_kernel(src).map_err(|d| d.render("test", src))?;
        k.set_params(&spec.params)?;
        Ok((k, Profile::builtin("h100").map_err(|e| e.to_string())?))
    }
}

/// 1,056 CTAs over the 132 SMs: 8 on the SM simulated, one at a time (its shared
/// memory leaves room for one), each two warps of N dependent FFMAs, with a MUFU
/// beside each (its pipe, busy every few cycles, has a row).
const WAVES: &str = "kernel waves
launch cta_threads=64 regs=32 smem=196608 grid=1056
param N=1000
role main warps=0..1
  loop i 0..N
    FFMA R1, R1, R2, 0.5
    MUFU.EX2 R3, R4
  EXIT
";

/// One CTA of two warps of N dependent FFMAs: a single wave.
const CHAIN: &str = "kernel chain
launch cta_threads=64 regs=32 smem=0 grid=1
param N=3
role main warps=0..1
  loop i 0..N
    FFMA R1, R1, R2, 0.5
  EXIT
";

fn loader() -> Arc<dyn Loader> {
    Arc::new(Texts(vec![("waves", WAVES), ("chain", CHAIN)]))
}

fn lat_fma() -> u64 {
    Profile::builtin("h100").unwrap().t.lat_fma as u64
}

fn keys(a: &mut App, k: &str) {
    for e in parse_keys(k).unwrap() {
        a.key(e);
    }
}

/// The first frame due once the estimate has its pace (two waves done), whatever the
/// time or the work.
const PACED: FirstFrame = FirstFrame {
    after: Duration::MAX,
    min_changes: 0,
    max_changes: u64::MAX,
};

/// The first frame due once two waves are done and the third CTA is well on (a CTA
/// records some 5,000 state changes: two warps, a few for each of their 2,000
/// instructions).
const INTO_THE_THIRD: FirstFrame = FirstFrame {
    min_changes: 12_000,
    ..PACED
};

/// `spec` simulated with a partial run handed to `show` as `first` and `every` say;
/// the finished run (an error where `show` stopped it: its timeline went to `show`).
fn live(
    spec: &RunSpec,
    first: FirstFrame,
    every: Duration,
    show: &mut dyn FnMut(RunData) -> Option<RunData>,
) -> Result<RunData, String> {
    let (k, p) = loader().load(spec).unwrap();
    let partials = Partials {
        first,
        every,
        show,
        wanted: None,
    };
    simulate_live(spec, &k, &p, &Progress::default(), None, Some(partials))
}

#[test]
fn the_estimate_takes_the_first_wave_as_run_and_the_rest_at_the_later_pace() {
    let mut w = Waves {
        ctas: 8,
        resident: 2,
        ..Waves::default()
    };
    assert_eq!(w.estimate(500), None, "no CTA done");
    w.cta_done(900);
    assert_eq!(w.estimate(950), None, "the first wave (two CTAs) not done");
    w.cta_done(1000);
    // The first wave alone: 1,000 cycles for 2 of 8 CTAs, four waves.
    assert_eq!(w.estimate(1010), Some(4000));
    w.cta_done(1300);
    assert!(!w.paced(), "one CTA after the first wave");
    w.cta_done(1700);
    assert!(w.paced(), "a second wave after the first");
    // Two CTAs in 700 cycles after the first wave: 350 a CTA for the other six.
    assert_eq!(w.estimate(1800), Some(1000 + 350 * 6));
    // Never before the cycle reached.
    assert_eq!(w.estimate(5000), Some(5000));
    for c in [2000, 2300, 2600, 2900] {
        w.cta_done(c);
    }
    assert_eq!(w.estimate(2900), Some(2900), "all done: the end");
    // A run of one wave has no pace to go by; one of a wave and a CTA, its first.
    let mut one = Waves {
        ctas: 2,
        resident: 4,
        ..Waves::default()
    };
    one.cta_done(10);
    one.cta_done(20);
    assert!(!one.paced());
    let mut three = Waves {
        ctas: 3,
        resident: 2,
        ..Waves::default()
    };
    three.cta_done(10);
    assert!(!three.paced());
    three.cta_done(20);
    assert!(three.paced());
    assert_eq!(
        three.estimate(20),
        Some(30),
        "20 cycles a wave of 2, 1.5 waves"
    );
}

#[test]
fn the_first_frame_comes_at_the_runs_own_point() {
    let wave = Waves {
        ctas: 8,
        resident: 1,
        done: 2,
        first_wave_end: Some(100),
        last_done: 150,
    };
    let single = Waves {
        ctas: 1,
        resident: 1,
        ..Waves::default()
    };
    let f = FIRST_FRAME.by_progress();
    let (lo, hi) = (FIRST_FRAME.min_changes, FIRST_FRAME.max_changes);
    let late = Duration::from_secs(3600);
    assert!(!f.due(late, lo - 1, &wave), "not before the minimum work");
    assert!(f.due(Duration::ZERO, lo, &wave), "two waves done");
    assert!(
        !f.due(late, hi - 1, &single),
        "a single wave: at the maximum"
    );
    assert!(f.due(Duration::ZERO, hi, &single));
    // The viewer's own adds a time: 0.4 s at the latest.
    assert!(FIRST_FRAME.due(Duration::from_millis(400), 0, &single));
    assert!(!FIRST_FRAME.due(Duration::from_millis(399), 0, &single));
}

/// The first frame of an 8-CTA run, one CTA at a time, drawn once two are done: the
/// status line says the cycle reached, the length estimated from them (the first as
/// run, the seven after it at the second's pace), the share done and the CTAs; the
/// axis runs to the estimate, and past the frontier the third CTA's warps (on the SM)
/// and the unit rows are drawn as not simulated, while the first two CTAs' warps
/// (finished) are blank, as a warp off the SM is.
#[test]
fn the_first_frame_shows_the_run_in_progress() {
    let mut frames = Vec::new();
    let mut show = |run: RunData| {
        let mut a = App::new(vec![run], Some(loader()));
        a.color = false;
        a.synchronous = true;
        prepare(&mut a, 100, None, None, &[]);
        frames.push((a.runs[0].timeline.end, render_text(&mut a, 100, 30), a));
        None
    };
    let spec = RunSpec::new("waves");
    let _ = live(&spec, INTO_THE_THIRD, Duration::MAX, &mut show);
    assert_eq!(frames.len(), 1);
    let (frontier, f, mut a) = frames.pop().unwrap();
    // The first CTA's end, as the whole run has it: its last warp's finish.
    let whole = simulate(&*loader(), &spec).unwrap();
    let finish = |cta: u32| {
        let w = whole.timeline.warps.iter().filter(|w| w.id.cta == cta);
        w.map(|w| w.finished).max().unwrap()
    };
    // The first CTA as run (cold), the seven after it at the second's pace.
    let estimate = finish(0) + 7 * (finish(1) - finish(0));
    // Inside the third CTA.
    assert!(
        frontier > finish(1) && frontier < finish(2),
        "{frontier}\n{f}"
    );
    let progress = format!(
        "simulating: cycle {} of ~{}, {}%, 2/8 CTAs",
        group(frontier),
        group(estimate),
        100 * frontier / estimate
    );
    let lines: Vec<&str> = f.lines().collect();
    assert!(
        lines[0].starts_with(&format!(" PARTIAL, {progress} │")),
        "{f}"
    );
    let status = lines.last().unwrap();
    assert!(status.starts_with(&progress), "{f}");
    assert!(status.contains("what-ifs once it ends"), "{f}");
    // The axis: the estimate over 80 columns.
    assert_eq!(a.view.end, estimate);
    assert_eq!(a.view.per_col, estimate.div_ceil(80));
    let cells = |label: &str| -> Vec<char> {
        let row = lines
            .iter()
            .find(|l| l.contains(label))
            .unwrap_or_else(|| panic!("no row {label}: {f}"));
        row.chars().skip(tui::draw::LABEL_W as usize).collect()
    };
    let past = (frontier.div_ceil(a.view.per_col)) as usize;
    for row in ["c2 w0", "c2 w1", "mufu pipe"] {
        let c = cells(row);
        assert_eq!(c.len(), 80, "{row}: {f}");
        assert!(c[past..].iter().all(|&x| x == NOT_SIMULATED), "{row}: {f}");
        assert!(c[..past].iter().all(|&x| x != NOT_SIMULATED), "{row}: {f}");
    }
    for row in ["c0 w0", "c1 w1"] {
        // Finished before the frontier: nothing after, blank (trailing spaces cut).
        let c = cells(row);
        assert!(c.len() < past && !c.contains(&NOT_SIMULATED), "{row}: {f}");
    }
    assert!(
        f.contains(&format!("{NOT_SIMULATED} not simulated yet")),
        "{f}"
    );
    assert!(f.contains("bound (whole run): once the run ends"), "{f}");
    assert!(
        f.contains(&format!("simulated to {frontier}")),
        "the window's figures are of what is simulated: {f}"
    );
    insta::assert_snapshot!("first_frame_100x30", f);

    // What needs the whole run waits for it: End goes as far as the run has got,
    // the cursor past the frontier reads "not simulated", a what-if is refused.
    keys(&mut a, "<End>");
    assert_eq!(a.view.cursor, frontier - 1);
    let f = render_text(&mut a, 100, 30);
    let end = format!("end not simulated yet: cursor at cycle {}", frontier - 1);
    assert!(f.contains(&end), "{f}");
    a.view.goto(frontier + 5000);
    let f = render_text(&mut a, 100, 30);
    // (The pane wraps its lines at 49 columns.)
    let ahead = format!(
        "cycle {} is not simulated yet: the run has",
        frontier + 5000
    );
    assert!(f.contains(&ahead), "{f}");
    assert!(f.contains(&format!("reached cycle {frontier} ")), "{f}");
    keys(&mut a, "r");
    assert_eq!(
        a.pending,
        [None, None],
        "no what-if while the run simulates"
    );
    let f = render_text(&mut a, 100, 30);
    assert!(f.contains("what-ifs work once the run ends"), "{f}");
    // A warp at the frontier is in a state whose end is not known yet.
    keys(&mut a, "<Down><Down><Down><Down><Down><Down><Down>");
    a.view.goto(frontier - 1);
    let f = render_text(&mut a, 100, 30);
    assert!(f.contains("CTA 2 warp 0"), "{f}");
    let (_, iv) = a.cursor_interval().unwrap();
    assert_eq!(iv.end, frontier);
    let open = format!("since cycle {} ({} so far;", iv.start, frontier - iv.start);
    assert!(f.contains(&open), "{f}");
    assert!(f.contains(&format!("reached cycle {frontier})")), "{f}");
}

/// The frames drawn as the run goes end in the finished run's, which is the frame
/// `--render` prints of it, byte for byte.
#[test]
fn the_last_frame_is_the_complete_runs() {
    let spec = RunSpec::new("waves");
    let mut live_app: Option<App> = None;
    let mut partials = 0;
    let mut show = |run: RunData| {
        let app = match &mut live_app {
            Some(a) => {
                a.take_partial(vec![run]);
                a
            }
            None => {
                let mut a = App::new(vec![run], Some(loader()));
                a.color = false;
                live_app.insert(a)
            }
        };
        render_text(app, 100, 30);
        partials += 1;
        app.give_back().pop()
    };
    let run = live(&spec, PACED, Duration::ZERO, &mut show).unwrap();
    assert!(matches!(run.outcome, Outcome::Finished));
    assert!(partials > 4, "{partials}");
    // As the terminal opens the finished run: made, then the place kept.
    let mut done = App::new(vec![run], Some(loader()));
    done.color = false;
    done.keep_place_of(&live_app.unwrap());
    let shown = render_text(&mut done, 100, 30);
    // As `--render 100x30` draws it.
    let mut fresh = App::new(vec![simulate(&*loader(), &spec).unwrap()], Some(loader()));
    fresh.color = false;
    fresh.synchronous = true;
    prepare(&mut fresh, 100, None, None, &[]);
    assert_eq!(shown, render_text(&mut fresh, 100, 30));
    assert!(!shown.contains("simulat"), "{shown}");
    assert!(!shown.contains(NOT_SIMULATED), "{shown}");
}

/// Compare mode, the second run still simulating: the divergence is sought only as
/// far as it has got (the same kernel twice is identical there, not divergent at its
/// frontier), and the lengths and bounds wait for its end.
#[test]
fn compare_waits_for_the_second_run_before_calling_it_identical() {
    let spec = RunSpec::new("waves");
    let first = simulate(&*loader(), &spec).unwrap();
    let mut first = Some(first);
    let mut seen = Vec::new();
    let mut show = |run: RunData| {
        let mut a = App::new(vec![first.take().unwrap(), run], None);
        a.color = false;
        prepare(&mut a, 120, None, None, &[]);
        let frontier = a.frontier().unwrap();
        seen.push((a.divergence, frontier, render_text(&mut a, 120, 30)));
        let mut runs = a.give_back();
        let run = runs.pop();
        first = runs.pop();
        run
    };
    let second = live(&spec, INTO_THE_THIRD, Duration::MAX, &mut show).unwrap();
    assert_eq!(seen.len(), 1);
    let (divergence, frontier, f) = &seen[0];
    assert_eq!(*divergence, None, "{f}");
    assert!(
        f.contains(&format!("runs identical before cycle {frontier}")),
        "{f}"
    );
    assert!(
        f.contains(&format!("B simulating ({frontier} cycles so far)")),
        "{f}"
    );
    assert!(f.contains("B once"), "{f}");
    // Finished, the two runs are identical, and say so.
    let mut both = App::new(vec![first.unwrap(), second], None);
    assert_eq!(both.divergence, None);
    let f = render_text(&mut both, 120, 30);
    assert!(f.contains("runs identical"), "{f}");
    assert!(!f.contains("simulat"), "{f}");
}

/// `--render-first`'s run: stopped where its first frame is due, or whole when it
/// ends sooner (a single small wave, as every library kernel at its defaults is).
#[test]
fn a_run_shows_whole_when_it_ends_before_its_first_frame() {
    let l = loader();
    let (k, p) = l.load(&RunSpec::new("waves")).unwrap();
    let first = simulate_first(
        &RunSpec::new("waves"),
        &k,
        &p,
        &Progress::default(),
        None,
        PACED,
    )
    .unwrap();
    assert!(first.frontier().is_some());
    assert_eq!(first.timeline.warps.len(), 6, "CTAs 0, 1 and 2 so far");
    let spec = RunSpec::new("chain");
    let (k, p) = l.load(&spec).unwrap();
    let f = FIRST_FRAME.by_progress();
    let run = simulate_first(&spec, &k, &p, &Progress::default(), None, f).unwrap();
    assert!(matches!(run.outcome, Outcome::Finished));
    assert_eq!(run.timeline.end, 2 * lat_fma() + 2);
}

/// Every key, pressed on the first frame of a run still simulating (alone, and beside
/// a finished run in compare mode, normalized or not), draws a frame: nothing a user
/// can press while the run goes on panics.
#[test]
fn every_key_on_a_run_in_progress_draws() {
    let spec = RunSpec::new("waves");
    let mut names: Vec<String> = (' '..='~').map(|c| c.to_string()).collect();
    // (`<` is `<lt>` here; q and Esc only set the app's quit flag.)
    names.retain(|k| k != "<");
    for k in [
        "Left", "Right", "Up", "Down", "S-Left", "S-Right", "Enter", "Esc", "Tab", "PgUp", "PgDn",
        "Home", "End", "BS",
    ] {
        names.push(format!("<{k}>"));
    }
    for compare in [false, true] {
        let mut first = compare.then(|| simulate(&*loader(), &spec).unwrap());
        let mut pressed = 0;
        let mut show = |run: RunData| {
            let runs = match first.take() {
                Some(f) => vec![f, run],
                None => vec![run],
            };
            let mut a = App::new(runs, Some(loader()));
            a.color = false;
            a.synchronous = true;
            prepare(&mut a, 100, None, None, &[]);
            for normalize in [false, true] {
                for k in &names {
                    keys(&mut a, k);
                    a.normalize = normalize;
                    // (`:` and `w` open the prompt: Esc closes it for the next key.)
                    if a.prompt.is_some() {
                        keys(&mut a, "<Esc>");
                    }
                    render_text(&mut a, 100, 30);
                    a.view.goto(a.frontier().unwrap() + 100);
                    render_text(&mut a, 100, 30);
                    pressed += 1;
                }
            }
            None
        };
        let _ = live(&spec, INTO_THE_THIRD, Duration::MAX, &mut show);
        assert_eq!(pressed, 2 * names.len(), "compare {compare}");
    }
}
