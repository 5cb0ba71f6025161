//! One simulated run as the viewer holds it: what was asked ([`RunSpec`]), the
//! [`Timeline`] it produced, its result or the reason it stopped, and the texts that
//! label its instructions.

use sim_core::result::{RunResult, SimError, StuckReport};
use sim_core::scheduler::Policy;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sim_core::cause::{MbarrierOwed, WaitCause};
use sim_core::diagnose::Bounds;
use sim_core::diagnose::bounds::bounds;
use sim_core::sink::{Event, RunEnd, RunHeader, Sink, WarpId};
use sim_core::timeline::Timeline;
use sim_core::{Profile, RunConfig, WarpState};

/// What to run: `smsim run`'s kernel and options, as data the viewer can change for a
/// what-if and hand back to its [`Loader`].
#[derive(Clone, Debug, PartialEq)]
pub struct RunSpec {
    /// A kernel file or a built-in `family/schedule`, as the user named it.
    pub kernel: String,
    /// `--param` overrides, in order.
    pub params: Vec<(String, i64)>,
    /// `--set` profile overrides, in order.
    pub sets: Vec<(String, f64)>,
    /// The scheduling policy.
    pub policy: Policy,
    /// The seed of the variable latencies.
    pub seed: u64,
    /// `--profile`, if given (else the kernel's default).
    pub profile: Option<String>,
    /// `--max-ctas`.
    pub max_ctas: Option<u32>,
    /// `--warm-l2` buffers.
    pub warm_l2: Vec<String>,
    /// The watchdog: runs longer than this many cycles stop.
    pub max_cycles: u64,
}

impl RunSpec {
    /// A spec of `kernel` with `smsim run`'s defaults.
    pub fn new(kernel: &str) -> RunSpec {
        RunSpec {
            kernel: kernel.to_string(),
            params: Vec::new(),
            sets: Vec::new(),
            policy: Policy::TwoLevel,
            seed: 1,
            profile: None,
            max_ctas: None,
            warm_l2: Vec::new(),
            max_cycles: RunConfig::default().max_cycles,
        }
    }

    /// The spec as a short label: the kernel with what differs from the defaults.
    pub fn label(&self) -> String {
        let mut s = self.kernel.clone();
        for (k, v) in &self.params {
            s.push_str(&format!(" {k}={v}"));
        }
        for (k, v) in &self.sets {
            s.push_str(&format!(" {k}={v}"));
        }
        if self.policy != Policy::TwoLevel {
            s.push_str(&format!(" {}", self.policy.name()));
        }
        if self.seed != 1 {
            s.push_str(&format!(" seed={}", self.seed));
        }
        s
    }

    /// Sets a `--param` (replacing an earlier value of the same name).
    pub fn set_param(&mut self, name: &str, value: i64) {
        self.params.retain(|(k, _)| k != name);
        self.params.push((name.to_string(), value));
    }

    /// Sets a `--set` profile value (replacing an earlier value of the same name).
    pub fn set_profile_value(&mut self, name: &str, value: f64) {
        self.sets.retain(|(k, _)| k != name);
        self.sets.push((name.to_string(), value));
    }

    fn config(&self) -> RunConfig {
        RunConfig {
            seed: self.seed,
            policy: self.policy,
            max_cycles: self.max_cycles,
            fast_forward: true,
            max_ctas: self.max_ctas,
            warm_l2: self.warm_l2.clone(),
        }
    }
}

/// Turns a [`RunSpec`] into a kernel and a profile, the way `smsim run` does (the
/// binary implements it; tests and benchmarks implement their own). Errors come back
/// as the text `smsim run` would print.
pub trait Loader: Send + Sync {
    /// The kernel (parameters applied, validated) and the profile (overrides applied).
    fn load(&self, spec: &RunSpec) -> Result<(isa::Kernel, Profile), String>;
}

/// How a run ended.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Every CTA finished.
    Finished,
    /// No warp could ever move again: who waits on what.
    Deadlock(StuckReport),
    /// The run passed the watchdog's cycle count.
    Watchdog(StuckReport),
    /// A warp did something impossible (an address out of bounds...).
    Fault(String),
    /// The viewer stopped it (a newer what-if superseded it).
    Stopped,
    /// It is still simulating: the timeline shows it as far as it has got
    /// ([`Timeline::catch_up`]), and fills in as the run goes.
    Running(ProgressNow),
}

impl Outcome {
    /// The cycle a stopped run stopped at.
    pub fn stuck_cycle(&self) -> Option<u64> {
        match self {
            Outcome::Deadlock(s) | Outcome::Watchdog(s) => Some(s.cycle),
            _ => None,
        }
    }

    /// A word for the title bar.
    pub fn word(&self) -> &'static str {
        match self {
            Outcome::Finished => "finished",
            Outcome::Deadlock(_) => "DEADLOCK",
            Outcome::Watchdog(_) => "WATCHDOG",
            Outcome::Fault(_) => "FAULT",
            Outcome::Stopped => "stopped",
            Outcome::Running(_) => "so far (simulating)",
        }
    }
}

/// A simulated run, ready to draw.
pub struct RunData {
    /// What was run.
    pub spec: RunSpec,
    /// The kernel's name (its `kernel` line).
    pub kernel_name: String,
    /// The profile's name.
    pub profile_name: String,
    /// Role names in the kernel's order.
    pub roles: Vec<String>,
    /// Each role's instruction texts, by the pc events carry.
    pub texts: Vec<Vec<String>>,
    /// Each role's instructions' 1-based source lines (of the kernel text, or the
    /// `--emit` text of a built-in kernel), by pc; empty where unknown.
    pub lines: Vec<Vec<u32>>,
    /// Each mbarrier of a CTA by its number: `full[0]`.
    pub mbarriers: Vec<String>,
    /// The run as intervals.
    pub timeline: Timeline,
    /// The run's result, if it finished.
    pub result: Option<RunResult>,
    /// Each unit's work at its peak as a lower bound on the run's cycles, the binding
    /// unit and the run's distance from it (`sim_core::diagnose::bounds`), for a run
    /// that finished.
    pub bounds: Option<Bounds>,
    /// How it ended.
    pub outcome: Outcome,
}

impl RunData {
    /// The cycle a run still simulating has reached (its timeline's end for now);
    /// None for a run that is over.
    pub fn frontier(&self) -> Option<u64> {
        matches!(self.outcome, Outcome::Running(_)).then_some(self.timeline.end)
    }

    /// Where the time axis ends: the run's end, or for a run still simulating its
    /// estimated length ([`ProgressNow::estimate`]) where there is one, so that the
    /// cycles it has still to simulate are on the axis, drawn as such.
    pub fn axis_end(&self) -> u64 {
        match &self.outcome {
            Outcome::Running(p) => p.estimate.unwrap_or(0).max(self.timeline.end),
            _ => self.timeline.end,
        }
    }

    /// The text of instruction `pc` of role `role`.
    pub fn text(&self, role: u16, pc: u32) -> &str {
        self.texts
            .get(role as usize)
            .and_then(|t| t.get(pc as usize))
            .map_or("?", |s| s.as_str())
    }

    /// The mnemonic (first word, without guard) of instruction `pc` of role `role`.
    pub fn mnemonic(&self, role: u16, pc: u32) -> &str {
        let t = self.text(role, pc);
        let t = if t.starts_with('@') {
            t.split_once(' ').map_or(t, |x| x.1)
        } else {
            t
        };
        t.split([' ', ',']).next().unwrap_or(t)
    }

    /// The source line of instruction `pc` of role `role`, where known.
    pub fn line(&self, role: u16, pc: u32) -> Option<u32> {
        self.lines
            .get(role as usize)?
            .get(pc as usize)
            .copied()
            .filter(|&l| l > 0)
    }

    /// What a warp of role `role` waits on, in words, with its cycles counted from
    /// `cursor`.
    pub fn cause_text(&self, role: u16, cursor: u64, c: &WaitCause) -> String {
        let when = |t: u64| {
            if t > cursor {
                format!("cycle {t}, {} from the cursor", t - cursor)
            } else {
                format!("cycle {t}")
            }
        };
        match c {
            WaitCause::Producer {
                pc: Some(pc),
                ready,
            } => {
                let line = self
                    .line(role, *pc)
                    .map_or(String::new(), |l| format!(" (line {l})"));
                format!(
                    "the result of pc {pc} `{}`{line}, ready at {}",
                    self.text(role, *pc),
                    when(*ready)
                )
            }
            WaitCause::Producer { pc: None, ready } => {
                format!(
                    "a register written before the loop, ready at {}",
                    when(*ready)
                )
            }
            WaitCause::Pipe { pipe, free } => format!(
                "the {} pipe (busy, or its queue full), taking it at {}",
                pipe.name(),
                when(*free)
            ),
            WaitCause::Barrier {
                id,
                arrived,
                expected,
                not_arrived,
            } => {
                let who: Vec<String> = not_arrived.iter().map(|w| format!("w{w}")).collect();
                format!(
                    "barrier {id}: {arrived} of {expected} warps arrived; not arrived: {}",
                    if who.is_empty() {
                        "none".into()
                    } else {
                        who.join(" ")
                    }
                )
            }
            WaitCause::Mbarrier {
                name,
                parity,
                phases,
                arrivals_missing,
                count,
                tx_bytes_missing,
                owed,
                ..
            } => {
                let by = match owed {
                    MbarrierOwed::Arrivals { roles } => {
                        format!("owed by {}", roles.join(", "))
                    }
                    MbarrierOwed::Copies { in_flight: 0, .. } => {
                        "owed by copies not yet issued".to_string()
                    }
                    MbarrierOwed::Copies { in_flight, lands } => format!(
                        "owed by {in_flight} cop{} in flight, the last landing at {}",
                        if *in_flight == 1 { "y" } else { "ies" },
                        when(*lands)
                    ),
                };
                format!(
                    "{name} phase of parity {parity} ({phases} completed): {arrivals_missing} of {count} arrivals and {tx_bytes_missing} bytes missing; {by}"
                )
            }
            WaitCause::WarpgroupArrive { warpgroup, arrived } => format!(
                "warpgroup {warpgroup}'s WARPGROUP.ARRIVE: {arrived} of its 4 warps arrived"
            ),
            WaitCause::WaitGroup { group, until } => {
                format!("its {group} groups, done at {}", when(*until))
            }
        }
    }

    /// A name for an mbarrier number: `full[2]`.
    pub fn mbarrier_name(&self, flat: u32) -> String {
        self.mbarriers
            .get(flat as usize)
            .cloned()
            .unwrap_or_else(|| format!("mbarrier {flat}"))
    }
}

/// Runs `spec` through `loader` with a [`Timeline`] attached. A run that deadlocks,
/// meets the watchdog or faults still gives a timeline (up to where it stopped); a
/// kernel or option error gives the error's text.
pub fn simulate(loader: &dyn Loader, spec: &RunSpec) -> Result<RunData, String> {
    let (kernel, profile) = loader.load(spec)?;
    simulate_loaded(spec, &kernel, &profile)
}

/// [`simulate`] of a kernel and profile already loaded.
pub fn simulate_loaded(
    spec: &RunSpec,
    kernel: &isa::Kernel,
    profile: &Profile,
) -> Result<RunData, String> {
    simulate_watched(spec, kernel, profile, &Progress::default())
}

/// How far a run has got, as the simulating thread publishes it for a progress line
/// or frame (read from another thread).
#[derive(Debug, Default)]
pub struct Progress {
    cycle: AtomicU64,
    ctas_done: AtomicU32,
    ctas: AtomicU32,
    /// The run's length as estimated from its CTAs done ([`Waves::estimate`]), 0 while
    /// there is none.
    estimate: AtomicU64,
}

/// A [`Progress`] read at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProgressNow {
    /// The last cycle an event named.
    pub cycle: u64,
    /// CTAs finished.
    pub ctas_done: u32,
    /// CTAs the run simulates (0 until it starts).
    pub ctas: u32,
    /// The run's length in cycles as estimated from the CTAs done so far
    /// ([`Waves::estimate`]): None until its first wave of CTAs is done.
    pub estimate: Option<u64>,
}

impl ProgressNow {
    /// The share of the run simulated, by the estimate (below 1 until the run ends).
    pub fn fraction(&self) -> Option<f64> {
        let e = self.estimate?;
        Some((self.cycle as f64 / e.max(1) as f64).min(1.0))
    }
}

impl Progress {
    /// Where the run stands now.
    pub fn now(&self) -> ProgressNow {
        let e = self.estimate.load(Ordering::Relaxed);
        ProgressNow {
            cycle: self.cycle.load(Ordering::Relaxed),
            ctas_done: self.ctas_done.load(Ordering::Relaxed),
            ctas: self.ctas.load(Ordering::Relaxed),
            estimate: (e > 0).then_some(e),
        }
    }

    /// Back to a run not yet started.
    pub fn reset(&self) {
        self.cycle.store(0, Ordering::Relaxed);
        self.ctas_done.store(0, Ordering::Relaxed);
        self.ctas.store(0, Ordering::Relaxed);
        self.estimate.store(0, Ordering::Relaxed);
    }
}

/// A run's CTAs as they finish, for an estimate of its length while it simulates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Waves {
    /// CTAs the run simulates.
    pub ctas: u32,
    /// How many of them are resident at once.
    pub resident: u32,
    /// CTAs finished so far.
    pub done: u32,
    /// When the first wave ended: the `resident`-th CTA finished.
    pub first_wave_end: Option<u64>,
    /// When the last CTA so far finished.
    pub last_done: u64,
}

impl Waves {
    /// Counts a CTA finished at `cycle` (CTAs finish in cycle order).
    pub fn cta_done(&mut self, cycle: u64) {
        self.done += 1;
        self.last_done = self.last_done.max(cycle);
        if self.done == self.resident_now() {
            self.first_wave_end = Some(cycle);
        }
    }

    /// CTAs in the first wave: the resident ones, or all of a run of fewer.
    fn resident_now(&self) -> u32 {
        self.resident.min(self.ctas).max(1)
    }

    /// Whether the estimate has its pace: in a run of more than one wave, the first
    /// wave done and as many CTAs again after it (all but the last CTA of a run of
    /// fewer), so that [`estimate`](Self::estimate) takes the rest at the pace of
    /// warm CTAs, not the cold first wave's (singe-viscosity's first CTA at its seed's
    /// shape is twice the others: from it alone the estimate is 66% long).
    pub fn paced(&self) -> bool {
        let r = self.resident_now();
        self.ctas > r && self.done >= (2 * r).min(self.ctas - 1)
    }

    /// The run's length estimated once its first wave is done (as `smsim run`
    /// estimates a whole kernel from the CTAs it simulates): the first wave as run,
    /// cold, and the CTAs after it at the pace of those done since; from the first wave
    /// alone, that wave's length times the waves. Never before `frontier`, the cycle
    /// the run has reached; None before the first wave ends.
    pub fn estimate(&self, frontier: u64) -> Option<u64> {
        let t1 = self.first_wave_end?;
        let r = self.resident_now();
        let est = if self.done >= self.ctas {
            self.last_done
        } else if self.done > r {
            let per_cta = (self.last_done - t1) as f64 / (self.done - r) as f64;
            (t1 as f64 + per_cta * (self.ctas - r) as f64).round() as u64
        } else {
            (t1 as f64 * self.ctas as f64 / r as f64).round() as u64
        };
        Some(est.max(frontier))
    }
}

/// When a long run's first frame comes, while it simulates: whichever of a time after
/// launch and a point in the simulation comes first. The point is the run's own, so
/// that the same run always shows the same first frame (`--render-first`): once the
/// estimate of its length has its pace ([`Waves::paced`]: its first two waves of CTAs
/// done), or at most [`max_changes`](Self::max_changes) state changes in, never before
/// [`min_changes`](Self::min_changes) (a run done sooner opens whole: every library
/// kernel at its defaults).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FirstFrame {
    /// This long after launch at the latest (`Duration::MAX`: by the simulation's
    /// progress only).
    pub after: Duration,
    /// Not before the run has recorded this many state changes.
    pub min_changes: u64,
    /// At the latest once it has recorded this many (its second wave not done).
    pub max_changes: u64,
}

impl FirstFrame {
    /// By time alone: `after` from the start.
    pub const fn after(after: Duration) -> FirstFrame {
        FirstFrame {
            after,
            min_changes: u64::MAX,
            max_changes: u64::MAX,
        }
    }

    /// By the simulation's progress alone (the same frame on every machine).
    pub const fn by_progress(self) -> FirstFrame {
        FirstFrame {
            after: Duration::MAX,
            ..self
        }
    }

    /// Whether the first frame is due: `elapsed` since the start, `changes` recorded,
    /// the run's `waves` so far.
    pub fn due(&self, elapsed: Duration, changes: u64, waves: &Waves) -> bool {
        elapsed >= self.after
            || (changes >= self.min_changes && (waves.paced() || changes >= self.max_changes))
    }
}

/// The viewer's first frame of a long run: 0.4 s after launch at the latest, earlier
/// once a quarter of a million state changes are in and its first two waves of CTAs
/// are done (fa3 at its seed's shape: 2 of its 32 CTAs, about 700,000 changes; singe
/// at its seed's shape: 2 of 8, the first twice as long as the others, about 4
/// million), or at eight million changes.
pub const FIRST_FRAME: FirstFrame = FirstFrame {
    after: FIRST_PARTIAL,
    min_changes: 1 << 18,
    max_changes: 1 << 23,
};

/// When first, and how often, a long run shows itself while it simulates: the viewer
/// draws its first frame as [`Partials::first`] says (at the latest [`FIRST_PARTIAL`]
/// after launch, whatever the run's length), and fills it in every [`PARTIAL_EVERY`].
pub struct Partials<'a> {
    /// When the first partial run comes (a run done sooner has none).
    pub first: FirstFrame,
    /// Then one every this long.
    pub every: Duration,
    /// Takes each partial run (outcome [`Outcome::Running`]; the simulation waits) and
    /// gives it back for the run to go on filling, or `None` to stop the run.
    pub show: &'a mut dyn FnMut(RunData) -> Option<RunData>,
    /// Set by the viewer when it wants a partial run now (keys to apply): one comes at
    /// the engine's next poll, whenever the next would be due.
    pub wanted: Option<&'a AtomicBool>,
}

/// The first partial frame of a long run at the latest this long after launch, within
/// the 0.5 s a first frame may take. The run's own point ([`FIRST_FRAME`]) comes well
/// before on an idle core (fa3 and singe at their seeds' shapes: 0.09 s and 0.12 s of
/// CPU); this bound is for a loaded core, where the wall clock runs ahead of the CPU
/// (twice, at the development VM's usual load), and for runs whose first waves are long.
pub const FIRST_PARTIAL: Duration = Duration::from_millis(400);

/// A long run's partial frame is filled in this often.
pub const PARTIAL_EVERY: Duration = Duration::from_millis(300);

/// A [`Timeline`] that publishes how far the run got into a [`Progress`] at each of
/// the engine's polls (every `POLL_CYCLES` simulated cycles): a few stores, not one
/// per event; and hands the timeline so far to [`Partials::show`] when one is due.
struct Watched<'a, 'p> {
    timeline: &'a mut Timeline,
    progress: &'a Progress,
    cycle: u64,
    /// State changes recorded: the simulation's progress in host work, for the first
    /// frame's point.
    changes: u64,
    waves: Waves,
    spec: &'a RunSpec,
    partials: Option<Partials<'p>>,
    /// A partial run was shown.
    shown: bool,
    started: Instant,
    /// When the next partial run is due, after the first.
    due: Duration,
}

impl Watched<'_, '_> {
    /// Shows the run so far, if one is due; false when the viewer wants it stopped.
    fn show_partial(&mut self) -> bool {
        let Some(p) = &mut self.partials else {
            return true;
        };
        let elapsed = self.started.elapsed();
        let wanted = p.wanted.is_some_and(|w| w.load(Ordering::Relaxed));
        let due = if self.shown {
            elapsed >= self.due
        } else {
            p.first.due(elapsed, self.changes, &self.waves)
        };
        if (!due && !wanted) || self.timeline.header.is_none() {
            return true;
        }
        if let Some(w) = p.wanted {
            w.store(false, Ordering::Relaxed);
        }
        let mut t = std::mem::take(self.timeline);
        let now = t.catch_up(self.cycle);
        let mut progress = self.progress.now();
        // (As the frame's frontier has them.)
        progress.cycle = now;
        progress.estimate = self.waves.estimate(now);
        let run = RunData::new(self.spec, t, None, None, Outcome::Running(progress));
        self.shown = true;
        match (p.show)(run) {
            Some(run) => *self.timeline = run.timeline,
            None => return false,
        }
        // The next one counts from now: time the viewer spent is not the run's.
        self.due = self.started.elapsed().saturating_add(p.every);
        true
    }
}

impl Sink for Watched<'_, '_> {
    const STATES_AHEAD: bool = Timeline::STATES_AHEAD;
    // (Issues reach the timeline alone.)
    const EVERY_ISSUE: bool = Timeline::EVERY_ISSUE;

    fn begin(&mut self, h: &RunHeader) {
        self.progress
            .ctas
            .store(h.ctas_simulated, Ordering::Relaxed);
        self.waves = Waves {
            ctas: h.ctas_simulated,
            resident: h.ctas_resident,
            ..Waves::default()
        };
        self.timeline.begin(h);
    }
    fn finish(&mut self, end: &RunEnd) {
        self.progress.cycle.store(end.cycles, Ordering::Relaxed);
        self.timeline.finish(end);
    }
    fn keep_going(&mut self) -> bool {
        let p = self.progress;
        p.cycle.store(self.cycle, Ordering::Relaxed);
        p.ctas_done.store(self.waves.done, Ordering::Relaxed);
        let e = self.waves.estimate(self.cycle).unwrap_or(0);
        p.estimate.store(e, Ordering::Relaxed);
        self.timeline.keep_going() && self.show_partial()
    }
    // Inlined, as the timeline's own: the engine's state changes reach it without a
    // call or a copy of an event.
    #[inline(always)]
    fn state_change(
        &mut self,
        cycle: u64,
        warp: WarpId,
        state: WarpState,
        pc: u32,
        cause: Option<WaitCause>,
    ) {
        self.cycle = self.cycle.max(cycle);
        self.changes += 1;
        self.timeline.state_change(cycle, warp, state, pc, cause);
    }
    #[inline(always)]
    fn event(&mut self, e: Event) {
        match &e {
            Event::StateChange { cycle, .. } => {
                self.cycle = self.cycle.max(*cycle);
                self.changes += 1;
            }
            Event::CtaDone { cycle, .. } => self.waves.cta_done(*cycle),
            _ => {}
        }
        self.timeline.event(e);
    }
}

/// [`simulate_loaded`], publishing how far it got into `progress` as the run goes.
pub fn simulate_watched(
    spec: &RunSpec,
    kernel: &isa::Kernel,
    profile: &Profile,
    progress: &Progress,
) -> Result<RunData, String> {
    simulate_stoppable(spec, kernel, profile, progress, None)
}

/// [`simulate_watched`] that stops early (outcome [`Outcome::Stopped`]) once `stop` is
/// set: a what-if that a newer one supersedes.
pub fn simulate_stoppable(
    spec: &RunSpec,
    kernel: &isa::Kernel,
    profile: &Profile,
    progress: &Progress,
    stop: Option<Arc<AtomicBool>>,
) -> Result<RunData, String> {
    simulate_live(spec, kernel, profile, progress, stop, None)
}

/// [`simulate_stoppable`] that hands the run so far to `partials` while it simulates
/// (first when [`Partials::first`] says, then every [`Partials::every`]), so that a
/// viewer draws a long run's first frame without waiting for its end.
pub fn simulate_live(
    spec: &RunSpec,
    kernel: &isa::Kernel,
    profile: &Profile,
    progress: &Progress,
    stop: Option<Arc<AtomicBool>>,
    partials: Option<Partials>,
) -> Result<RunData, String> {
    let cfg = spec.config();
    let mut timeline = match stop {
        Some(s) => Timeline::with_stop(s),
        None => Timeline::new(),
    };
    let mut sink = Watched {
        timeline: &mut timeline,
        progress,
        cycle: 0,
        changes: 0,
        waves: Waves::default(),
        spec,
        partials,
        shown: false,
        started: Instant::now(),
        due: Duration::ZERO,
    };
    let r = sim_core::run_sink(kernel, profile, &cfg, &mut sink);
    // The timeline is finished (the engine's `finish`) whatever the outcome.
    let (result, outcome) = match r {
        Ok(r) => (Some(r), Outcome::Finished),
        Err(SimError::Invalid(m)) => return Err(format!("error: cannot run this kernel: {m}\n")),
        Err(SimError::Deadlock(s)) => (None, Outcome::Deadlock(s)),
        Err(SimError::Watchdog(s)) => (None, Outcome::Watchdog(s)),
        Err(SimError::Stopped(r)) => (Some(*r), Outcome::Stopped),
        Err(SimError::Fault(m)) => (None, Outcome::Fault(m)),
    };
    if timeline.header.is_none() {
        return Err("error: the run ended before it started\n".into());
    }
    let bounds = match outcome {
        Outcome::Finished => result.as_ref().map(|r| bounds(r, profile)),
        _ => None,
    };
    Ok(RunData::new(spec, timeline, result, bounds, outcome))
}

/// The run as the viewer first shows it: simulated until its first partial frame is
/// due by `first` (then stopped there: outcome [`Outcome::Running`]), or whole if it
/// ends sooner; `--render-first`. `stop` ends it early (Ctrl-C), as
/// [`simulate_stoppable`]'s.
pub fn simulate_first(
    spec: &RunSpec,
    kernel: &isa::Kernel,
    profile: &Profile,
    progress: &Progress,
    stop: Option<Arc<AtomicBool>>,
    first: FirstFrame,
) -> Result<RunData, String> {
    let mut partial = None;
    let mut show = |run: RunData| {
        partial = Some(run);
        None
    };
    let partials = Partials {
        first,
        every: Duration::MAX,
        show: &mut show,
        wanted: None,
    };
    let run = simulate_live(spec, kernel, profile, progress, stop, Some(partials));
    // (Stopped at the first frame, the run's own timeline was handed over whole: what
    // comes back is the empty rest.)
    match partial {
        Some(p) => Ok(p),
        None => run,
    }
}

impl RunData {
    /// A run's data from its timeline (which has had its header).
    fn new(
        spec: &RunSpec,
        timeline: Timeline,
        result: Option<RunResult>,
        bounds: Option<Bounds>,
        outcome: Outcome,
    ) -> RunData {
        let header = timeline.header.as_ref().expect("the run began");
        let texts = header
            .roles
            .iter()
            .map(|r| r.instructions.iter().map(|i| i.text.clone()).collect())
            .collect();
        let lines = header
            .roles
            .iter()
            .map(|r| r.instructions.iter().map(|i| i.line).collect())
            .collect();
        RunData {
            spec: spec.clone(),
            bounds,
            kernel_name: header.kernel.clone(),
            profile_name: header.profile.clone(),
            roles: header.roles.iter().map(|r| r.name.clone()).collect(),
            texts,
            lines,
            mbarriers: header.mbarriers.clone(),
            timeline,
            result,
            outcome,
        }
    }
}
