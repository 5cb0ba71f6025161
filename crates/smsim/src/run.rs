//! `smsim run KERNEL`: simulate a kernel on one SM and report where its warps spent
//! their cycles, in Nsight Compute's terms.

use std::io::{BufWriter, Write};

use present::chrome::ChromeTrace;
use sim_core::RunConfig;
use sim_core::diagnose::critical_path::{CriticalPath, PathRecorder};
use sim_core::races::{Hazard, RaceCheck};
use sim_core::result::{RunResult, SimError};
use sim_core::scheduler::Policy;
use sim_core::sink::{Event, NoSink, RunEnd, RunHeader, Sink};

use crate::files::Pending;
use crate::progress::{Watched, interrupt_flag};
// (`parse_set` and `default_profile` are named here too, for the other subcommands.)
pub use crate::inputs::{default_profile, parse_set};
use crate::kernel_file;
use crate::outcome::{Fail, Outcome, print, print_json, say};

#[derive(clap::Args)]
pub struct Args {
    /// A kernel file (`.smk`) or a built-in kernel `family/schedule` (see `smsim kernels`).
    pub kernel: String,
    /// A built-in profile (h100, b200, h200) or a profile TOML file; by default the profile
    /// a built-in kernel's family targets (`smsim kernels` lists it), else h100.
    #[arg(long)]
    pub profile: Option<String>,
    /// Warp-scheduling policy: gto, lrr, oldest, two-level.
    #[arg(long, default_value = "two-level", value_parser = Policy::from_name)]
    pub policy: Policy,
    /// Seed of the variable latencies; part of every result.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Override one profile parameter for this run: `--set lat_fma=6` (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_set)]
    pub set: Vec<(String, f64)>,
    /// Override a kernel parameter: `--param KT=512` (repeatable).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE", value_parser = kernel_file::parse_param)]
    pub params: Vec<(String, i64)>,
    /// The watchdog: a run still going after this many simulated cycles stops with a
    /// report of every warp and what it waits on. By default sized to the kernel: 64
    /// times its longest warp's instructions at the profile's worst latency, for every
    /// wave, and at least a million.
    #[arg(long, value_name = "CYCLES")]
    pub max_cycles: Option<u64>,
    /// Simulate at most this many CTAs (the whole-kernel estimate scales from them).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_ctas: Option<u32>,
    /// Start with this buffer's lines in L2, as after an earlier kernel that read or
    /// wrote it (repeatable): `--warm-l2 A --warm-l2 B`.
    #[arg(long = "warm-l2", value_name = "BUFFER")]
    pub warm_l2: Vec<String>,
    /// Run on this many seeds (from `--seed` on) and report their mean and range; the
    /// report and the trace are the first seed's.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub seeds: u32,
    /// Print the result as JSON (documented in the README).
    #[arg(long)]
    pub json: bool,
    /// Say no progress on stderr (a run longer than a second says how far it got).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Leave the critical path out of the diagnosis: the run then keeps no record of
    /// its waits (the path's record grows with the run's state changes).
    #[arg(long)]
    pub no_path: bool,
    /// Also write the timeline as a Chrome trace (open in ui.perfetto.dev). Refuses to
    /// overwrite an existing file.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<std::path::PathBuf>,
}

/// A profile as `run` loads it, its refusal as text (for subcommands that say their
/// own errors: `calibrate`, `tui`).
pub fn load_profile(name: &str, set: &[(String, f64)]) -> Result<sim_core::Profile, String> {
    crate::inputs::load_profile(name, set).map_err(|e| e.to_string())
}

/// A kernel as `run` loads it, its refusal as stderr's text (`error: ...` or the
/// kernel's diagnostics with their carets), for subcommands that say their own errors
/// (`tui`).
pub fn load_kernel(name: &str, params: &[(String, i64)]) -> Result<isa::Kernel, String> {
    crate::inputs::load_kernel(name, params).map_err(|e| match e {
        Fail::Rendered(text) => text,
        e => format!("error: {e}\n"),
    })
}

/// A trace's file, under a temporary name until it is complete.
type TraceFile = BufWriter<std::fs::File>;

/// `smsim run`: the report (or the failure) on stdout first, then the trace, if any,
/// finished and given its name; a trace that cannot be written is said after the
/// report, which stays complete. Ctrl-C stops the run: its report so far is printed,
/// marked partial, and the trace ends there too.
pub fn run(args: &Args) -> Outcome {
    let name = args
        .profile
        .as_deref()
        .unwrap_or_else(|| default_profile(&args.kernel));
    let profile = crate::inputs::load_profile(name, &args.set)?;
    let kernel = crate::inputs::load_kernel(&args.kernel, &args.params)?;
    // (A kernel the watchdog cannot size fails the run itself, with the same error.)
    let max_cycles = args.max_cycles.unwrap_or_else(|| {
        sim_core::watchdog_cycles(&kernel, &profile, args.max_ctas).unwrap_or(u64::MAX / 2)
    });
    let cfg = RunConfig {
        seed: args.seed,
        policy: args.policy,
        max_cycles,
        fast_forward: true,
        max_ctas: args.max_ctas,
        warm_l2: args.warm_l2.clone(),
    };
    let run = Run {
        kernel: &kernel,
        profile: &profile,
        cfg: &cfg,
        show: !args.quiet && !args.json,
    };
    // The critical path is recorded in the same run, beside the trace if any; the race
    // checker is always on, its hazards after the report.
    let recorder = (!args.no_path).then(|| PathRecorder::new(&profile));
    match (&args.trace, recorder) {
        (None, None) => {
            let (result, sink, interrupted) = run.watched(RaceCheck::new(NoSink, &kernel));
            let races = (sink.hazards(), sink.dropped());
            let printed = report(args, &result, interrupted, &run, None, races);
            conclude(args, result, interrupted, printed, Ok(()))
        }
        (None, Some(rec)) => {
            let (result, sink, interrupted) = run.watched(RaceCheck::new(rec, &kernel));
            let races = (sink.hazards().to_vec(), sink.dropped());
            let path = sink.inner.path();
            let printed = report(args, &result, interrupted, &run, path, (&races.0, races.1));
            conclude(args, result, interrupted, printed, Ok(()))
        }
        (Some(path), rec) => {
            let (pending, sink) = start_trace(path)?;
            let (result, sink, interrupted) = run.watched(RaceCheck::new(Both(sink, rec), &kernel));
            let races = (sink.hazards().to_vec(), sink.dropped());
            let Both(sink, rec) = sink.inner;
            // The report goes out before the trace is finished (below).
            let path = rec.and_then(|r| r.path());
            let printed = report(args, &result, interrupted, &run, path, (&races.0, races.1));
            let written = finish_trace(pending, sink, &result);
            conclude(args, result, interrupted, printed, written)
        }
    }
}

/// Two sinks fed the same events: the trace and, unless `--no-path`, the critical
/// path's record.
struct Both<A, B>(A, Option<B>);

impl<A: Sink, B: Sink> Sink for Both<A, B> {
    fn begin(&mut self, header: &RunHeader) {
        self.0.begin(header);
        if let Some(b) = &mut self.1 {
            b.begin(header);
        }
    }
    fn event(&mut self, e: Event) {
        if let Some(b) = &mut self.1 {
            b.event(e.clone());
        }
        self.0.event(e);
    }
    fn finish(&mut self, end: &RunEnd) {
        self.0.finish(end);
        if let Some(b) = &mut self.1 {
            b.finish(end);
        }
    }
    fn keep_going(&mut self) -> bool {
        self.0.keep_going() && self.1.as_mut().is_none_or(|b| b.keep_going())
    }
}

/// What one run needs, whatever its sink.
struct Run<'a> {
    kernel: &'a isa::Kernel,
    profile: &'a sim_core::Profile,
    cfg: &'a RunConfig,
    /// Whether progress is said on stderr.
    show: bool,
}

impl Run<'_> {
    /// Runs with `sink` watched (progress, Ctrl-C); the result, the sink, and whether
    /// Ctrl-C stopped it.
    fn watched<S: Sink>(&self, sink: S) -> (Result<RunResult, SimError>, S, bool) {
        let mut w = Watched::new(sink, self.show, interrupt_flag());
        let r = sim_core::run_with(
            self.kernel,
            self.profile,
            self.cfg,
            self.cfg.policy.build(),
            &mut w,
        );
        let interrupted = w.interrupted();
        (r, w.inner, interrupted)
    }
}

/// The exit: the run's failure first (a trace that also failed said before it), then a
/// stop by Ctrl-C (status 130), then the report's own failure (a closed pipe), then the
/// trace's.
fn conclude(
    args: &Args,
    result: Result<RunResult, SimError>,
    interrupted: bool,
    printed: Outcome,
    written: Outcome,
) -> Outcome {
    match result {
        Err(SimError::Stopped(_)) if interrupted => {
            if let Err(Fail::Failed(m)) = written {
                say(&format!("error: {m}\n"));
            }
            printed?;
            Err(Fail::Interrupted)
        }
        Err(e) => {
            if let Err(Fail::Failed(m)) = written {
                say(&format!("error: {m}\n"));
            }
            if args.json {
                Err(Fail::Reported)
            } else if let (SimError::Watchdog(_), None) = (&e, args.max_cycles) {
                Err(Fail::Rendered(format!(
                    "error: {e}note: the watchdog's default for this kernel: 64 times its longest warp's instructions at the profile's worst latency, for every wave (at least 1,000,000 cycles)\n"
                )))
            } else {
                Err(Fail::Rendered(format!("error: {e}\n")))
            }
        }
        Ok(_) => printed.and(written),
    }
}

/// Creates the trace's temporary file and its sink, before the run: a path that cannot
/// be written is refused before any work.
fn start_trace(path: &std::path::Path) -> Result<(Pending, ChromeTrace<TraceFile>), Fail> {
    let (pending, file) = Pending::create(path, false)?;
    let sink = ChromeTrace::new(BufWriter::new(file))
        .map_err(|e| Fail::Failed(format!("writing {}: {e}", path.display())))?;
    Ok((pending, sink))
}

/// Ends the trace where the run stopped and gives it its name. A run that fails ends
/// its trace where it stopped (a deadlock's, the watchdog's cycle): the timeline up to
/// there is what explains it.
fn finish_trace(
    pending: Pending,
    sink: ChromeTrace<TraceFile>,
    result: &Result<RunResult, SimError>,
) -> Outcome {
    let end = match result {
        Ok(r) => r.cycles,
        Err(SimError::Stopped(r)) => r.cycles,
        Err(SimError::Deadlock(s) | SimError::Watchdog(s)) => s.cycle,
        Err(_) => 0,
    };
    let path = pending.path().display().to_string();
    let written = sink
        .finish(end)
        .and_then(|out| out.into_inner().map_err(|e| e.into_error()))
        .and_then(|mut file| file.flush().and_then(|()| file.sync_all()))
        .and_then(|()| {
            let path = pending.path().to_path_buf();
            pending.commit().map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => std::io::Error::new(
                    e.kind(),
                    format!(
                        "{} appeared during the run and is left as it was",
                        path.display()
                    ),
                ),
                _ => e,
            })
        });
    written.map_err(|e| {
        Fail::Failed(format!(
            "the trace {path} is not written: {e} (the report above is complete)"
        ))
    })
}

/// Prints the run's report, or its failure as JSON under `--json` (a failure's text
/// goes to stderr, from [`run`]). A run stopped by Ctrl-C prints its report so far,
/// marked partial (`"partial": true` in JSON).
fn report(
    args: &Args,
    result: &Result<RunResult, SimError>,
    interrupted: bool,
    run: &Run,
    path: Option<CriticalPath>,
    races: (&[Hazard], u64),
) -> Outcome {
    match result {
        Err(SimError::Stopped(r)) if interrupted => {
            if args.json {
                let mut v = serde_json::to_value(r.as_ref())
                    .map_err(|e| Fail::Failed(format!("the result does not serialize: {e}")))?;
                if let Some(o) = v.as_object_mut() {
                    o.insert("partial".into(), true.into());
                }
                print_json(&v)
            } else {
                print(&present::report::render_partial(r, "Ctrl-C"))
            }
        }
        Ok(r) => diagnosed(args, r, run, path, races),
        Err(e) if args.json => print_json(&present::report::failure_json(e)),
        Err(_) => Ok(()),
    }
}

/// A finished run's report with its diagnosis, `path` its critical path (recorded in
/// the same run; None with `--no-path`), and with `--seeds` the other seeds' spread,
/// then the race checker's hazards, if any; in JSON, the result with `diagnosis` and
/// `seeds` added, and `races` when there are hazards.
fn diagnosed(
    args: &Args,
    r: &RunResult,
    run: &Run,
    path: Option<CriticalPath>,
    races: (&[Hazard], u64),
) -> Outcome {
    let spread = other_seeds(r, run, args.seeds)?;
    let mut d = sim_core::diagnose::diagnose(r, run.kernel, run.profile);
    d.critical_path = path;
    if args.json {
        let json = present::diagnosis::RunJson {
            result: r,
            diagnosis: &d,
            seeds: spread.as_ref(),
        };
        if races.0.is_empty() {
            return print_json(&json);
        }
        let mut v = serde_json::to_value(&json)
            .map_err(|e| Fail::Failed(format!("the result does not serialize: {e}")))?;
        if let Some(o) = v.as_object_mut() {
            o.insert(
                "races".into(),
                serde_json::to_value(races.0).unwrap_or_default(),
            );
        }
        return print_json(&v);
    }
    let mut o = present::report::render(r);
    if let Some(s) = &spread {
        o.push_str(&format!("\nSeeds       {}\n", s.line()));
    }
    o.push_str(&present::diagnosis::render(&d));
    o.push_str(&present::races::render(races.0, races.1));
    print(&o)
}

/// With `--seeds N` above 1: the first seed's run `first` and the next N - 1 seeds'
/// (without a trace), as their spread.
fn other_seeds(
    first: &RunResult,
    run: &Run,
    seeds: u32,
) -> Result<Option<present::diagnosis::SeedSpread>, Fail> {
    if seeds <= 1 {
        return Ok(None);
    }
    let mut runs = vec![first.clone()];
    for seed in traces::compare::seeds_from(run.cfg, seeds)
        .into_iter()
        .skip(1)
    {
        let cfg = RunConfig {
            seed,
            ..run.cfg.clone()
        };
        let r = sim_core::run(run.kernel, run.profile, &cfg)
            .map_err(|e| Fail::Rendered(format!("error: seed {seed}: {e}\n")))?;
        runs.push(r);
    }
    Ok(Some(present::diagnosis::SeedSpread::of(&runs)))
}
