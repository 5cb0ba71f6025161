//! `smsim tui KERNEL [run options]` and `smsim tui --compare A B`: the interactive
//! timeline (the `tui` crate), with kernels and profiles loaded as `smsim run` loads
//! them, and `--render` for one frame as text.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use sim_core::Profile;
use sim_core::scheduler::Policy;
use tui::{App, Loader, RunSpec, Zoom};

use crate::{kernel_file, run};

#[derive(clap::Args)]
pub struct Args {
    /// A kernel file (`.smk`) or a built-in kernel `family/schedule` (see `smsim kernels`).
    #[arg(required_unless_present = "compare")]
    pub kernel: Option<String>,
    /// Compare two runs on one time axis: two kernels, or one kernel twice with
    /// suffixes `@K=V` (a --param), `@set:NAME=V` (a --set), `@policy:NAME`, `@seed:N`,
    /// e.g. `--compare gemm-mainloop/ws gemm-mainloop/ws@PIPE=2`.
    #[arg(long, num_args = 2, value_names = ["A", "B"], conflicts_with = "kernel")]
    pub compare: Option<Vec<String>>,
    /// A built-in profile (h100, b200, h200) or a profile TOML file; by default the profile
    /// a built-in kernel's family targets, else h100.
    #[arg(long)]
    pub profile: Option<String>,
    /// Warp-scheduling policy: gto, lrr, oldest, two-level.
    #[arg(long, default_value = "two-level", value_parser = Policy::from_name)]
    pub policy: Policy,
    /// Seed of the variable latencies.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Override one profile parameter: `--set lat_fma=6` (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = run::parse_set)]
    pub set: Vec<(String, f64)>,
    /// Override a kernel parameter: `--param KT=512` (repeatable).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE", value_parser = kernel_file::parse_param)]
    pub params: Vec<(String, i64)>,
    /// Stop runs that go on longer than this many cycles.
    #[arg(long, default_value_t = 2_000_000_000)]
    pub max_cycles: u64,
    /// Simulate at most this many CTAs.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_ctas: Option<u32>,
    /// Start with this buffer's lines in L2 (repeatable).
    #[arg(long = "warm-l2", value_name = "BUFFER")]
    pub warm_l2: Vec<String>,
    /// Print one frame of COLSxROWS characters as text and exit (for scripts and docs).
    #[arg(long, value_name = "COLSxROWS", value_parser = parse_size)]
    pub render: Option<(u16, u16)>,
    /// With --render: draw the frame the terminal shows first instead of the complete
    /// run: a long run as far as it has got when its first frame is due (its first two
    /// waves of CTAs done, or eight million state changes in), marked as still
    /// simulating; a run done sooner, whole.
    #[arg(long, requires = "render")]
    pub render_first: bool,
    /// With --render: the cursor's cycle (default: 0, or where a stopped run stopped).
    #[arg(long, value_name = "CYCLE", requires = "render")]
    pub at: Option<u64>,
    /// With --render: `fit` (the whole run) or cycles per column.
    #[arg(long, requires = "render")]
    pub zoom: Option<Zoom>,
    /// With --render: keys pressed before the frame is drawn, e.g. `"zz<Down><Enter>"`
    /// (`<Name>` for Left, Right, Up, Down, Enter, Esc, Tab, ...; see the README).
    #[arg(long, requires = "render")]
    pub keys: Option<String>,
    /// Colours: auto (off under NO_COLOR), always, never (the default with --render).
    #[arg(long, value_parser = ["auto", "always", "never"])]
    pub color: Option<String>,
}

fn parse_size(s: &str) -> Result<(u16, u16), String> {
    let (c, r) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("`{s}` is not COLSxROWS (e.g. 120x40)"))?;
    let n = |v: &str| v.trim().parse::<u16>().ok().filter(|&n| n > 0);
    match (n(c), n(r)) {
        (Some(c), Some(r)) if c >= 40 && r >= 12 => Ok((c, r)),
        (Some(_), Some(_)) => Err(format!("`{s}`: a frame is at least 40x12")),
        _ => Err(format!("`{s}` is not COLSxROWS (e.g. 120x40)")),
    }
}

/// Loads kernels and profiles as `smsim run` does.
struct RunLoader;

impl Loader for RunLoader {
    fn load(&self, spec: &RunSpec) -> Result<(isa::Kernel, Profile), String> {
        let name = spec
            .profile
            .as_deref()
            .unwrap_or_else(|| run::default_profile(&spec.kernel));
        let profile = run::load_profile(name, &spec.sets).map_err(|m| format!("error: {m}\n"))?;
        let kernel = run::load_kernel(&spec.kernel, &spec.params)?;
        Ok((kernel, profile))
    }
}

/// The kernel and profile of a first run, as `smsim run` loads them, its failure kept
/// whole (a usage error exits 2, a kernel's 1, as `run`'s do).
fn load_first(spec: &RunSpec) -> Result<(isa::Kernel, Profile), crate::outcome::Fail> {
    let name = spec
        .profile
        .as_deref()
        .unwrap_or_else(|| run::default_profile(&spec.kernel));
    let profile = crate::inputs::load_profile(name, &spec.sets)?;
    let kernel = crate::inputs::load_kernel(&spec.kernel, &spec.params)?;
    Ok((kernel, profile))
}

/// A `--compare` side: `KERNEL[@K=V][@set:NAME=V][@policy:NAME][@seed:N]...` over the
/// command line's options.
fn side(text: &str, base: &RunSpec) -> Result<RunSpec, String> {
    let mut parts = text.split('@');
    let mut spec = base.clone();
    spec.kernel = parts.next().unwrap_or("").to_string();
    for p in parts {
        if let Some(v) = p.strip_prefix("set:") {
            let (k, v) = run::parse_set(v)?;
            spec.set_profile_value(&k, v);
        } else if let Some(v) = p.strip_prefix("policy:") {
            spec.policy = Policy::from_name(v)?;
        } else if let Some(v) = p.strip_prefix("seed:") {
            spec.seed = v
                .parse()
                .map_err(|_| format!("`{v}` is not a seed (in `{text}`)"))?;
        } else {
            let (k, v) = kernel_file::parse_param(p)?;
            spec.set_param(&k, v);
        }
    }
    Ok(spec)
}

pub fn run(args: &Args) -> ExitCode {
    let mut base = RunSpec::new(args.kernel.as_deref().unwrap_or(""));
    base.params = args.params.clone();
    base.sets = args.set.clone();
    base.policy = args.policy;
    base.seed = args.seed;
    base.profile = args.profile.clone();
    base.max_ctas = args.max_ctas;
    base.warm_l2 = args.warm_l2.clone();
    base.max_cycles = args.max_cycles;
    let specs: Vec<RunSpec> = match &args.compare {
        Some(pair) => match pair.iter().map(|s| side(s, &base)).collect() {
            Ok(v) => v,
            Err(m) => {
                eprintln!("error: --compare: {m}");
                return ExitCode::from(2);
            }
        },
        None => vec![base],
    };
    let keys = match args.keys.as_deref().map(tui::parse_keys).transpose() {
        Ok(k) => k.unwrap_or_default(),
        Err(m) => {
            eprintln!("error: {m}");
            return ExitCode::from(2);
        }
    };
    // Everything that can be wrong with the kernel or the options is found and printed
    // here, as `smsim run` prints it and with its exit status, before the terminal is
    // touched (and before a stdout that is not a terminal is refused: the kernel's
    // error is the more useful one).
    let mut jobs = Vec::new();
    for spec in specs {
        match load_first(&spec) {
            Ok((kernel, profile)) => jobs.push(tui::term::Job {
                spec,
                kernel,
                profile,
            }),
            Err(f) => return crate::outcome::exit(Err(f)),
        }
    }
    if args.render.is_none() && !std::io::stdout().is_terminal() {
        eprintln!(
            "error: standard output is not a terminal; smsim tui is interactive (use --render COLSxROWS to print one frame as text)"
        );
        return ExitCode::from(2);
    }
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let color = match args.color.as_deref() {
        Some("always") => true,
        Some("never") => false,
        _ => args.render.is_none() && !no_color,
    };
    let make_app = |runs| {
        let mut app = App::new(runs, Some(Arc::new(RunLoader)));
        app.color = color;
        app
    };
    let Some((cols, rows)) = args.render else {
        // Interactive: the runs simulate with their progress on screen; q quits.
        return match tui::term::run_loading(jobs, color, make_app) {
            Ok(tui::term::Ended::Quit) => ExitCode::SUCCESS,
            Ok(tui::term::Ended::Failed(m)) => {
                eprint!("{m}");
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("error: terminal: {e}");
                ExitCode::FAILURE
            }
        };
    };
    let interrupt = crate::progress::interrupt_flag();
    let mut runs = Vec::new();
    for job in &jobs {
        match simulate_showing_progress(job, &interrupt, args.render_first) {
            Ok(r) if matches!(r.outcome, tui::model::Outcome::Stopped) => {
                eprintln!("smsim tui: stopped by Ctrl-C at cycle {}", r.timeline.end);
                return ExitCode::from(130);
            }
            Ok(r) => {
                // The first frame: the runs so far, the one still simulating last
                // (in compare mode the later ones wait, as on the terminal).
                let partial = r.frontier().is_some();
                runs.push(r);
                if partial {
                    break;
                }
            }
            Err(m) => {
                eprint!("{m}");
                return ExitCode::FAILURE;
            }
        }
    }
    let mut app = make_app(runs);
    app.synchronous = true;
    tui::prepare(&mut app, cols, args.at, args.zoom, &keys);
    print!("{}", tui::render_text(&mut app, cols, rows));
    ExitCode::SUCCESS
}

/// Simulates a `--render` run on a worker thread, saying how far it got on stderr (a
/// terminal) once it has taken 0.3 s; Ctrl-C (`interrupt`) stops it. With `first`,
/// only until its first frame is due (`--render-first`), by the run's own progress.
fn simulate_showing_progress(
    job: &tui::term::Job,
    interrupt: &Arc<AtomicBool>,
    first: bool,
) -> Result<tui::RunData, String> {
    let progress = tui::model::Progress::default();
    let show = std::io::stderr().is_terminal();
    let started = Instant::now();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        s.spawn(|| {
            let (spec, kernel, profile) = (&job.spec, &job.kernel, &job.profile);
            let stop = Some(interrupt.clone());
            let run = if first {
                let at = tui::model::FIRST_FRAME.by_progress();
                tui::model::simulate_first(spec, kernel, profile, &progress, stop, at)
            } else {
                tui::model::simulate_stoppable(spec, kernel, profile, &progress, stop)
            };
            let _ = tx.send(run);
        });
        let mut shown = false;
        let run = loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(run) => break run,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    break Err("error: the simulation panicked\n".into());
                }
            }
            if show && started.elapsed() > Duration::from_millis(300) {
                eprint!(
                    "\rsmsim tui: simulating {}: {}; Ctrl-C stops\x1b[K",
                    job.spec.label(),
                    tui::draw::running(&progress.now()).trim_start_matches("simulating: ")
                );
                shown = true;
            }
        };
        if shown {
            eprint!("\r\x1b[K");
        }
        run
    })
}
