//! One simulated run as the viewer holds it: what was asked ([`RunSpec`]), the
//! [`Timeline`] it produced, its result or the reason it stopped, and the texts that
//! label its instructions.

use sim_core::result::{RunResult, SimError, StuckReport};
use sim_core::scheduler::Policy;
use sim_core::sink::{Event, Sink};
use sim_core::timeline::Timeline;
use sim_core::{Profile, RunConfig};

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
    /// The kernel's mbarrier declarations, to name mbarriers by their numbers.
    pub mbarriers: Vec<isa::ast::MbarrierDecl>,
    /// The run as intervals.
    pub timeline: Timeline,
    /// The run's result, if it finished.
    pub result: Option<RunResult>,
    /// How it ended.
    pub outcome: Outcome,
}

impl RunData {
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

    /// A name for an mbarrier number: `full[2]`.
    pub fn mbarrier_name(&self, flat: u32) -> String {
        match isa::ast::mbarrier_at(&self.mbarriers, flat) {
            Some((name, i)) => format!("{name}[{i}]"),
            None => format!("mbarrier {flat}"),
        }
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
    simulate_watched(spec, kernel, profile, &mut |_| {})
}

/// A [`Timeline`] that tells `progress` the cycle it has reached, every few thousand
/// events (for a progress line while a long run simulates).
struct Watched<'a> {
    timeline: &'a mut Timeline,
    progress: &'a mut dyn FnMut(u64),
    events: u32,
}

impl Sink for Watched<'_> {
    fn event(&mut self, e: Event) {
        self.events = self.events.wrapping_add(1);
        if self.events % 65536 == 0
            && let Event::StateChange { cycle, .. } | Event::Issue { cycle, .. } = e
        {
            (self.progress)(cycle);
        }
        self.timeline.event(e);
    }
}

/// [`simulate_loaded`], calling `progress` with the cycle reached as the run goes.
pub fn simulate_watched(
    spec: &RunSpec,
    kernel: &isa::Kernel,
    profile: &Profile,
    progress: &mut dyn FnMut(u64),
) -> Result<RunData, String> {
    let texts = sim_core::instruction_texts(kernel)
        .map_err(|e| format!("error: line {}:{}: {}\n", e.line, e.col, e.message))?;
    let roles: Vec<String> = kernel.roles.iter().map(|r| r.name.clone()).collect();
    let cfg = spec.config();
    let mut timeline = Timeline::new();
    let mut sink = Watched {
        timeline: &mut timeline,
        progress,
        events: 0,
    };
    let r = sim_core::run_with(kernel, profile, &cfg, cfg.policy.build(), &mut sink);
    let (result, outcome) = match r {
        Ok(r) => {
            timeline.close(&r);
            (Some(r), Outcome::Finished)
        }
        Err(SimError::Invalid(m)) => return Err(format!("error: cannot run this kernel: {m}\n")),
        // A stopped run's timeline runs through its stop cycle, so that the cycle
        // shows every blocked warp in the state it is stuck in.
        Err(SimError::Deadlock(s)) => {
            timeline.close_at(s.cycle + 1, roles.clone());
            (None, Outcome::Deadlock(s))
        }
        Err(SimError::Watchdog(s)) => {
            timeline.close_at(s.cycle + 1, roles.clone());
            (None, Outcome::Watchdog(s))
        }
        // The viewer's sink never asks to stop: a stopped run is shown as far as it went.
        Err(SimError::Stopped(r)) => {
            timeline.close(&r);
            (Some(*r), Outcome::Finished)
        }
        Err(SimError::Fault(m)) => {
            let last = timeline
                .warps
                .iter()
                .filter_map(|w| w.last_start())
                .max()
                .unwrap_or(0);
            timeline.close_at(last + 1, roles.clone());
            (None, Outcome::Fault(m))
        }
    };
    let lines = texts.iter().map(|t| vec![0; t.len()]).collect();
    Ok(RunData {
        spec: spec.clone(),
        kernel_name: kernel.name.clone(),
        profile_name: profile.name().to_string(),
        roles,
        texts,
        lines,
        mbarriers: kernel.mbarriers.clone(),
        timeline,
        result,
        outcome,
    })
}
