//! The event stream. The engine pushes events into a [`Sink`]; reports, the timeline
//! viewer and trace exporters implement it. With [`NoSink`] the engine builds no event
//! at all: every emission is guarded by the sink's `ENABLED` constant.
//!
//! A run that reaches its cycle loop tells the sink, in this order: [`Sink::begin`] with
//! a [`RunHeader`] (what the events name by number: roles, warps, instructions with
//! their source lines, mbarriers, units), then [`Sink::event`] for each [`Event`] in
//! cycle order per warp, then [`Sink::finish`] with a [`RunEnd`] (the last cycle and
//! the [`Outcome`]). A sink may end the run early by answering false to
//! [`Sink::keep_going`]; the run then returns [`SimError::Stopped`](crate::SimError)
//! with its partial result.
//!
//! A warp's states tile its life: its first [`Event::StateChange`] is at its launch,
//! each state lasts until the warp's next `StateChange`, and its last state ends at its
//! [`Event::WarpFinish`].

use isa::Pipe;
use serde::Serialize;

pub use crate::cause::{MbarrierOwed, WaitCause};
use crate::result::StuckReport;
use crate::state::WarpState;

/// A warp, named by the CTA it belongs to (its launch order on this SM) and its index
/// in the CTA.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct WarpId {
    /// The CTA's launch order on this SM (0 for the first CTA launched).
    pub cta: u32,
    /// The warp's index in its CTA.
    pub warp: u32,
}

/// A unit whose busy time [`Event::UnitBusy`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Unit {
    /// A sub-partition's pipe that takes a warp-instruction only every few cycles (its
    /// issue interval above one): FMA, ALU, FP64, MUFU, branch, sync, as the profile
    /// sets them.
    Pipe {
        /// Which pipe.
        pipe: Pipe,
        /// Its sub-partition (0 to 3).
        subpartition: u8,
    },
    /// The SM's TMA unit (bulk and tensor copies).
    Tma,
    /// The SM's shared-memory crossbar (shared loads and stores, shuffles).
    SharedMemory,
    /// The L1TEX pipeline's line rate (global and local accesses through L1).
    L1,
}

/// One thing that happened in a run, at a cycle.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Event {
    /// A CTA started on the SM (its warps' first `StateChange`s follow at this cycle).
    CtaLaunch {
        /// When.
        cycle: u64,
        /// The CTA's launch order on this SM.
        cta: u32,
    },
    /// Every warp of the CTA finished.
    CtaDone {
        /// When (its last warp's `WarpFinish` cycle).
        cycle: u64,
        /// The CTA's launch order on this SM.
        cta: u32,
    },
    /// A warp issued the instruction at `pc` of its role. (`pc` numbers a role's
    /// instructions in source order from 0, as reports do: `PcStats::pc`, and
    /// [`RoleInfo::instructions`].)
    Issue {
        /// When.
        cycle: u64,
        /// Which warp.
        warp: WarpId,
        /// Its sub-partition's scheduler (0 to 3).
        subpartition: u8,
        /// Its role's index in the kernel ([`RunHeader::roles`]).
        role: u16,
        /// The instruction issued.
        pc: u32,
    },
    /// A warp entered `state` at `cycle`, and stays in it until its next StateChange
    /// (or its `WarpFinish`), charged to the instruction at `pc` (numbered as in
    /// `Issue`).
    StateChange {
        /// When the state starts.
        cycle: u64,
        /// Which warp.
        warp: WarpId,
        /// Its state, by Nsight Compute's names.
        state: WarpState,
        /// The instruction the state is charged to.
        pc: u32,
        /// What the warp waits on, when that is not the instruction itself alone (a
        /// register's producer, a busy pipe, a barrier, an mbarrier phase, a wait
        /// group); None for `selected`, `not_selected` and stalls that the charged
        /// instruction explains by itself (a stall count, a fence).
        cause: Option<WaitCause>,
    },
    /// A unit is busy from `start` to `end` on behalf of `warp`.
    UnitBusy {
        /// The first busy cycle.
        start: u64,
        /// The first cycle it is free again.
        end: u64,
        /// Which unit.
        unit: Unit,
        /// The warp whose instruction keeps it busy.
        warp: WarpId,
    },
    /// A memory request: `bytes` from the level that served it, complete at `done`.
    Memory {
        /// When the request was made.
        cycle: u64,
        /// When its data is back (a load) or written (a store).
        done: u64,
        /// The warp that made it.
        warp: WarpId,
        /// Where it was served.
        level: MemLevel,
        /// How many bytes.
        bytes: u32,
        /// A store (or a bulk copy out of shared memory).
        write: bool,
    },
    /// An mbarrier completed a phase (`phase` is the number of phases completed so far).
    MbarrierPhase {
        /// When.
        cycle: u64,
        /// The CTA whose mbarrier it is.
        cta: u32,
        /// The mbarrier's number in the CTA ([`RunHeader::mbarriers`] names it).
        mbarrier: u32,
        /// Phases completed so far, this one included.
        phase: u64,
    },
    /// A named barrier released its warps.
    BarrierRelease {
        /// When the last warp arrived.
        cycle: u64,
        /// The CTA whose barrier it is.
        cta: u32,
        /// The barrier's id (0 to 15).
        id: u32,
    },
    /// A warp issued its EXIT (or ran off its role's end): it issues nothing more, and
    /// drains (its stores and loads still in flight) until its `WarpFinish`.
    WarpExit {
        /// When.
        cycle: u64,
        /// Which warp.
        warp: WarpId,
    },
    /// A warp's life on the SM ends: its last state ends at `cycle`. It drained after
    /// its exit, or the run ended with it still live (a deadlock, the watchdog, a
    /// stop: [`RunEnd::outcome`] says which). `cycle` is the warp's `finished` in the
    /// result.
    WarpFinish {
        /// When.
        cycle: u64,
        /// Which warp.
        warp: WarpId,
    },
}

/// A level of the memory hierarchy that served a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MemLevel {
    /// The SM's L1 cache.
    L1,
    /// The L2 partition near the SM.
    L2Near,
    /// The far L2 partition (across the chip's two halves).
    L2Far,
    /// Device memory.
    Hbm,
    /// The SM's shared memory.
    Shared,
}

/// What a run's events name by number, given once before the first event.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunHeader {
    /// The kernel's name.
    pub kernel: String,
    /// The profile's name (`h100`, `b200`, or a profile file's).
    pub profile: String,
    /// The seed of the run's variable latencies.
    pub seed: u64,
    /// The scheduling policy's name.
    pub policy: String,
    /// The SM clock, in MHz (cycles over this are microseconds).
    pub clock_mhz: f64,
    /// How many CTAs the run simulates on the SM.
    pub ctas_simulated: u32,
    /// How many of them are resident at once.
    pub ctas_resident: u32,
    /// Warps per CTA.
    pub warps_per_cta: u32,
    /// The kernel's roles, in its order (`Event::Issue::role` indexes this).
    pub roles: Vec<RoleInfo>,
    /// Each mbarrier of a CTA by its number (`Event::MbarrierPhase::mbarrier`), as the
    /// kernel names it: `full[0]`.
    pub mbarriers: Vec<String>,
    /// Every unit that `Event::UnitBusy` can name in this run.
    pub units: Vec<Unit>,
}

/// A role of the kernel as events see it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RoleInfo {
    /// Its name.
    pub name: String,
    /// Its first warp in the CTA.
    pub first_warp: u32,
    /// Its last warp in the CTA (inclusive).
    pub last_warp: u32,
    /// Its instructions, by the `pc` that events and reports give them.
    pub instructions: Vec<InstructionInfo>,
}

impl RoleInfo {
    /// Warps of the role per CTA.
    pub fn warps_per_cta(&self) -> u32 {
        self.last_warp + 1 - self.first_warp
    }
}

/// One instruction of a role, and where it was written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InstructionInfo {
    /// Its text, as reports print it.
    pub text: String,
    /// Its 1-based line in the kernel file; for a kernel built in Rust (the library's),
    /// its line in the kernel's printed text (`smsim kernels --emit`). A role's implicit
    /// EXIT (its end) has the line of its last statement.
    pub line: u32,
}

/// How a run ended, given to [`Sink::finish`].
#[derive(Clone, Debug, Serialize)]
pub struct RunEnd {
    /// The last cycle of the run (the result's `cycles`).
    pub cycles: u64,
    /// Why it ended.
    pub outcome: Outcome,
}

/// Why a run ended.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every CTA finished.
    Finished,
    /// No warp could make progress: what each live warp waits for.
    Deadlock(StuckReport),
    /// The run passed `RunConfig::max_cycles`.
    Watchdog(StuckReport),
    /// A warp did something impossible (an address out of bounds...): the message.
    Fault(String),
    /// The sink asked it to stop ([`Sink::keep_going`]).
    Stopped,
}

/// Where a run's events go. Every method but `event` has an empty default.
///
/// ```
/// use sim_core::sink::{Event, RunEnd, RunHeader, Sink};
///
/// /// Counts issues, and stops the run after a million cycles.
/// #[derive(Default)]
/// struct Issues {
///     count: u64,
///     last_cycle: u64,
/// }
///
/// impl Sink for Issues {
///     fn event(&mut self, e: Event) {
///         if let Event::Issue { cycle, .. } = e {
///             self.count += 1;
///             self.last_cycle = cycle;
///         }
///     }
///     fn keep_going(&mut self) -> bool {
///         self.last_cycle < 1_000_000
///     }
/// }
///
/// let kernel = isa::parse_kernel(
///     "kernel k\nlaunch cta_threads=32 regs=32 grid=1\nrole main warps=0..0\n  FFMA R0, R1, R2, R3\n  EXIT\n",
/// )
/// .unwrap();
/// let profile = sim_core::Profile::builtin("h100").unwrap();
/// let cfg = sim_core::RunConfig::default();
/// let mut sink = Issues::default();
/// let r = sim_core::run_with(&kernel, &profile, &cfg, cfg.policy.build(), &mut sink).unwrap();
/// assert_eq!(sink.count, r.instructions);
/// ```
pub trait Sink {
    /// False for sinks that want no events: the engine then builds none (nor the
    /// header and end).
    const ENABLED: bool = true;
    /// Whether the engine asks [`Sink::keep_going`]; false spares the question.
    const POLLS: bool = true;
    /// Whether the engine tells the sink's race checker ([`Sink::races`]) what each
    /// instruction reads, fills, releases and waits for; false (the default) compiles
    /// every hook away. [`crate::races::RaceCheck`] sets it.
    const RACES: bool = false;
    /// Whether the sink takes a warp's state change dated the cycle after the one the
    /// engine is at, given before that cycle's other events: an issue that knows the
    /// register wait its warp is in from the next cycle says so at once, and the
    /// engine then skips that cycle's look at the warp, as it does without a sink
    /// (each warp's own events stay in cycle order). False (the default): every event
    /// in cycle order, as a trace wants.
    const STATES_AHEAD: bool = false;
    /// Whether the sink takes every issue ([`Sink::issue`], [`Event::Issue`]); false:
    /// only each warp's first since its launch, for a sink that reads from issues only
    /// what they say of the warp itself, its role and sub-partition (the timeline: the
    /// fa3 seed's 7 M issues then cost it nothing). True by default.
    const EVERY_ISSUE: bool = true;
    /// The run starts: what its events name by number. Called once, before any event
    /// (for a sink that is `ENABLED` or `POLLS`).
    fn begin(&mut self, _header: &RunHeader) {}
    /// One event.
    fn event(&mut self, e: Event);
    /// An [`Event::StateChange`], the most frequent event (a long run makes tens of
    /// millions), given by its fields. The default passes the event to
    /// [`Sink::event`]; a sink that overrides it takes the change without an event
    /// being built and moved (the engine inlines it), and must treat it as `event`
    /// would treat the `StateChange`.
    #[inline(always)]
    fn state_change(
        &mut self,
        cycle: u64,
        warp: WarpId,
        state: WarpState,
        pc: u32,
        cause: Option<WaitCause>,
    ) {
        self.event(Event::StateChange {
            cycle,
            warp,
            state,
            pc,
            cause,
        });
    }
    /// An [`Event::Issue`] given by its fields (the engine's short issue paths, most of
    /// a run's issues, give them this way). The default passes the event to
    /// [`Sink::event`]; a sink that overrides it must treat it as `event` would.
    #[inline(always)]
    fn issue(&mut self, cycle: u64, warp: WarpId, subpartition: u8, role: u16, pc: u32) {
        self.event(Event::Issue {
            cycle,
            warp,
            subpartition,
            role,
            pc,
        });
    }
    /// An [`Event::UnitBusy`] given by its fields (as [`Sink::issue`]: the short issue
    /// paths' pipe time). The default passes the event to [`Sink::event`].
    #[inline(always)]
    fn unit_busy(&mut self, start: u64, end: u64, unit: Unit, warp: WarpId) {
        self.event(Event::UnitBusy {
            start,
            end,
            unit,
            warp,
        });
    }
    /// The run ended (after its last event; for a sink that is `ENABLED` or `POLLS`,
    /// whenever `begin` was called).
    fn finish(&mut self, _end: &RunEnd) {}
    /// Whether the run goes on. Asked when the cycle loop passes a multiple of
    /// [`POLL_CYCLES`] (fast-forward jumps included), so at a bounded cost; false ends
    /// the run there with [`Outcome::Stopped`], and `run_with` returns
    /// `SimError::Stopped` with the result so far.
    fn keep_going(&mut self) -> bool {
        true
    }
    /// The race checker the engine tells, for a sink whose `RACES` is set (a wrapper
    /// passes its inner sink's on).
    fn races(&mut self) -> Option<&mut crate::races::Checker> {
        None
    }
}

/// How often (in simulated cycles) the engine asks [`Sink::keep_going`]: a power of two.
pub const POLL_CYCLES: u64 = 1 << 12;

/// Discards everything, at no cost.
pub struct NoSink;

impl Sink for NoSink {
    const ENABLED: bool = false;
    const POLLS: bool = false;
    fn event(&mut self, _: Event) {}
}

/// Keeps the header, every event and the end, for tests and exporters.
#[derive(Default)]
pub struct VecSink {
    /// The run's header, once it began.
    pub header: Option<RunHeader>,
    /// Every event, in the order the engine gave them.
    pub events: Vec<Event>,
    /// How the run ended, once it did.
    pub end: Option<RunEnd>,
}

impl Sink for VecSink {
    fn begin(&mut self, header: &RunHeader) {
        self.header = Some(header.clone());
    }
    fn event(&mut self, e: Event) {
        self.events.push(e);
    }
    fn finish(&mut self, end: &RunEnd) {
        self.end = Some(end.clone());
    }
}
