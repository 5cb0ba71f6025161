//! What a run produces: plain data, serialisable, that reports and exporters read.

use std::fmt;

use serde::Serialize;

use crate::cause::Waited;
use crate::state::{STATE_COUNT, WarpState};

/// Cycles spent in each warp state, by Nsight Compute's names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StateCounts(pub [u64; STATE_COUNT]);

impl StateCounts {
    /// The counts of an array indexed by `WarpState::index`.
    pub fn from_array(a: &[u64; STATE_COUNT]) -> StateCounts {
        StateCounts(*a)
    }
    /// The counts as an array indexed by `WarpState::index`.
    pub fn to_array(&self) -> [u64; STATE_COUNT] {
        self.0
    }
    /// One state's cycles.
    pub fn get(&self, s: WarpState) -> u64 {
        self.0[s.index()]
    }
    /// Every state's cycles summed.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
    /// States by cycles, largest first, zeros left out.
    pub fn ranked(&self) -> Vec<(WarpState, u64)> {
        let mut v: Vec<(WarpState, u64)> = WarpState::ALL
            .iter()
            .map(|&s| (s, self.get(s)))
            .filter(|x| x.1 > 0)
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    }
}

impl Serialize for StateCounts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(STATE_COUNT))?;
        for st in WarpState::ALL {
            m.serialize_entry(st.name(), &self.get(st))?;
        }
        m.end()
    }
}

/// One instruction of a role, over every warp that ran it.
#[derive(Clone, Debug, Serialize)]
pub struct PcStats {
    /// Index of the instruction in its role's text.
    pub pc: u32,
    /// Its 1-based line in the kernel file (for a built-in kernel, in its
    /// `smsim kernels --emit` text); 0 where unknown.
    pub line: u32,
    /// Its text, as printed.
    pub instruction: String,
    /// How many times a warp issued it.
    pub issued: u64,
    /// Cycles charged to it, per state (`selected` counts its issues).
    pub states: StateCounts,
    /// Stalls charged to this instruction that wait on something besides it: the
    /// instruction whose result it needs, the busy pipe, the barrier, the mbarrier
    /// phase (split by what it lacked: arrivals, or copies' bytes), the warpgroup
    /// arrive, the async groups. Most cycles first.
    pub waits_on: Vec<WaitsOn>,
}

/// Cycles of one state of an instruction's stalls spent waiting on one thing.
#[derive(Clone, Debug, Serialize)]
pub struct WaitsOn {
    /// The state.
    pub state: WarpState,
    /// What it waited on (`Display` renders it for the text report).
    pub on: Waited,
    /// How long, over every warp.
    pub cycles: u64,
}

/// One role's totals over its simulated warps.
#[derive(Clone, Debug, Serialize)]
pub struct RoleStats {
    /// The role's name.
    pub name: String,
    /// Its warps per CTA.
    pub warps_per_cta: u32,
    /// Its warps over every simulated CTA.
    pub warps_simulated: u32,
    /// Instructions its warps issued.
    pub instructions: u64,
    /// Cycles its warps spent per state.
    pub states: StateCounts,
    /// Per instruction, in source order (`pc`).
    pub per_pc: Vec<PcStats>,
}

impl RoleStats {
    /// Nsight Compute's ratio: warps in a state per issued instruction.
    pub fn per_issue(&self, s: WarpState) -> f64 {
        self.states.get(s) as f64 / self.instructions.max(1) as f64
    }
}

/// One warp of one simulated CTA.
#[derive(Clone, Debug, Serialize)]
pub struct WarpSummary {
    /// Its CTA's launch order on the SM.
    pub cta: u32,
    /// Its index in the CTA.
    pub warp: u32,
    /// Its role's name.
    pub role: String,
    /// Its sub-partition's scheduler (0 to 3).
    pub subpartition: u8,
    /// The cycle it launched.
    pub started: u64,
    /// The cycle it left the SM (after its drain), or the run ended.
    pub finished: u64,
    /// Instructions it issued.
    pub instructions: u64,
    /// Its cycles per state (they sum to `finished - started`).
    pub states: StateCounts,
}

/// A unit's use over the run.
#[derive(Clone, Debug, Serialize)]
pub struct UnitUse {
    /// The unit: fma, alu, fp64, mufu, tensor, tma, l2_bandwidth.
    pub unit: String,
    /// Share of the run's cycles the unit was busy (averaged over sub-partitions for pipes).
    pub busy_fraction: f64,
}

/// Memory requests by the level that served them, and bytes moved.
#[derive(Clone, Debug, Serialize)]
pub struct MemoryStats {
    /// Line requests that hit L1.
    pub requests_l1: u64,
    /// Line requests served by the near L2 partition.
    pub requests_l2_near: u64,
    /// Line requests served by the far L2 partition.
    pub requests_l2_far: u64,
    /// Line requests served from HBM.
    pub requests_hbm: u64,
    /// Shared-memory accesses.
    pub requests_shared: u64,
    /// Bytes through the SM's L2 bandwidth.
    pub l2_bytes: u64,
    /// Bytes read from or written to HBM within the run (write-backs still owed at its
    /// end excluded: see `hbm_bytes_after_run`).
    pub hbm_bytes: u64,
    /// Of `hbm_bytes`, those TMA copies read, whose one-SM rate is their own
    /// (`hbm_tma_bytes_per_clk_sm_max`).
    pub hbm_tma_bytes: u64,
    /// Bytes of stores still being written back from L2 to HBM when the run ends:
    /// real traffic, but after the run, so in neither its HBM rate nor its bound.
    pub hbm_bytes_after_run: u64,
    /// Bytes shared loads and stores (LDS, STS, LDSM, STSM) moved through the
    /// shared-memory crossbar.
    pub shared_bytes: u64,
    /// Cycles shared memory was booked: the crossbar's (every shared access's
    /// wavefronts, bank conflicts included, and shuffles at `smem_bytes_per_clk`) or its
    /// busier side's (those on the side plus copies' writes or bulk stores' reads at
    /// `smem_copy_cost`), whichever is more.
    pub shared_busy_cycles: f64,
    /// Cycles the L1TEX pipeline's line rate (the LSU path of global and local
    /// accesses) was booked: every request's lines at `l1_lines_per_clk`.
    pub l1tex_busy_cycles: f64,
}

/// What a run returns: its configuration, its time, the whole-kernel estimate, unit use, and states per role, instruction and warp.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    /// The kernel's name.
    pub kernel: String,
    /// The profile's name.
    pub profile: String,
    /// Whether the profile was fitted to measurements.
    pub profile_validated: bool,
    /// The profile's note on how far to trust it.
    pub profile_note: String,
    /// Profile parameters overridden for the run (`--set`).
    pub overrides: Vec<(String, f64)>,
    /// The seed of its variable latencies.
    pub seed: u64,
    /// The scheduling policy's name.
    pub policy: String,
    /// Buffers whose lines started in L2 (`RunConfig::warm_l2`).
    pub warm_l2: Vec<String>,
    /// Cycles the simulated SM took for its CTAs.
    pub cycles: u64,
    /// `cycles` in microseconds at the profile's clock.
    pub time_us: f64,
    /// The SM clock.
    pub clock_mhz: f64,
    /// Warp-instructions issued.
    pub instructions: u64,
    /// Per sub-partition's scheduler, warp-instructions it issued.
    pub issued_per_subpartition: [u64; 4],
    /// Warp-instructions issued per cycle, over the SM.
    pub ipc: f64,
    /// CTAs simulated on the SM.
    pub ctas_simulated: u32,
    /// CTAs resident at once.
    pub ctas_resident: u32,
    /// What the kernel's resources allow, by the CUDA occupancy rules.
    pub occupancy: isa::occupancy::Occupancy,
    /// The launch's CTAs.
    pub grid: u32,
    /// Waves of the grid over the whole chip.
    pub waves: u32,
    /// Whole-kernel estimate: the busiest SM's CTAs. When fewer were simulated
    /// (`ctas_simulated`), the first wave as run and the rest at the rate of the CTAs
    /// after it.
    pub kernel_time_us: f64,
    /// The kernel's declared flops (`work flops=`) over the whole-kernel estimate.
    pub tflops: Option<f64>,
    /// The kernel's declared bytes (`work bytes=`) over the whole-kernel estimate:
    /// what it reads and writes as its source counts them, re-reads from L2 included.
    pub gbps: Option<f64>,
    /// HBM traffic over the whole-kernel estimate: the simulated SM's share of HBM
    /// bytes within the run (`MemoryStats::hbm_bytes`), for every CTA of the grid.
    pub hbm_gbps: f64,
    /// Unit use.
    pub units: Vec<UnitUse>,
    /// Memory requests and bytes.
    pub memory: MemoryStats,
    /// Per role, in the kernel's order.
    pub roles: Vec<RoleStats>,
    /// Per warp, in the order they finished.
    pub warps: Vec<WarpSummary>,
}

impl RunResult {
    /// A unit's busy fraction by name (0 for a unit not reported).
    pub fn unit(&self, name: &str) -> f64 {
        self.units
            .iter()
            .find(|u| u.unit == name)
            .map(|u| u.busy_fraction)
            .unwrap_or(0.0)
    }
    /// A role by name.
    pub fn role(&self, name: &str) -> Option<&RoleStats> {
        self.roles.iter().find(|r| r.name == name)
    }
    /// All states summed over every warp.
    pub fn total_states(&self) -> StateCounts {
        let mut a = [0u64; STATE_COUNT];
        for r in &self.roles {
            for (i, v) in r.states.0.iter().enumerate() {
                a[i] += v;
            }
        }
        StateCounts(a)
    }
}

/// A live warp when a run could not go on, and what it waits for.
#[derive(Clone, Debug, Serialize)]
pub struct StuckWarp {
    /// Its CTA's launch order.
    pub cta: u32,
    /// Its index in the CTA.
    pub warp: u32,
    /// Its role's name.
    pub role: String,
    /// Index of the instruction in its role's text.
    pub pc: u32,
    /// The instruction it is on (its text).
    pub instruction: String,
    /// What it waits for, in words (the barrier and who has not arrived, the mbarrier phase and what it lacks...).
    pub waits_for: String,
}

/// Which warps were waiting, on what, when a run could not go on.
#[derive(Clone, Debug, Serialize)]
pub struct StuckReport {
    /// What happened (deadlock, watchdog).
    pub headline: String,
    /// The cycle it was found.
    pub cycle: u64,
    /// Every live warp.
    pub warps: Vec<StuckWarp>,
}

impl fmt::Display for StuckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} (cycle {})", self.headline, self.cycle)?;
        for w in &self.warps {
            writeln!(
                f,
                "  CTA {} warp {:>2} ({}) at pc {} `{}`\n      waits for {}",
                w.cta, w.warp, w.role, w.pc, w.instruction, w.waits_for
            )?;
        }
        Ok(())
    }
}

/// Why a run did not finish.
#[derive(Clone, Debug)]
pub enum SimError {
    /// The kernel cannot run: it does not fit, or an operand cannot be resolved.
    Invalid(String),
    /// A warp did something impossible at run time (an address out of bounds...).
    Fault(String),
    /// No warp could make progress: what each live warp waits for.
    Deadlock(StuckReport),
    /// The run passed `RunConfig::max_cycles`: what each live warp was doing.
    Watchdog(StuckReport),
    /// The sink asked the run to stop (`Sink::keep_going`): the result so far, its
    /// `cycles` the last cycle simulated (warps still live end there).
    Stopped(Box<RunResult>),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Invalid(m) => write!(f, "cannot run this kernel: {m}"),
            SimError::Fault(m) => write!(f, "run-time fault: {m}"),
            SimError::Deadlock(r) | SimError::Watchdog(r) => write!(f, "{r}"),
            SimError::Stopped(r) => write!(f, "stopped at cycle {} (a partial result)", r.cycles),
        }
    }
}

impl std::error::Error for SimError {}
