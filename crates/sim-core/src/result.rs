//! What a run produces: plain data, serialisable, that reports and exporters read.

use std::fmt;

use serde::Serialize;

use crate::cause::Waited;
use crate::state::{STATE_COUNT, WarpState};

/// Cycles spent in each warp state, by Nsight Compute's names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StateCounts(pub [u64; STATE_COUNT]);

impl StateCounts {
    pub fn from_array(a: &[u64; STATE_COUNT]) -> StateCounts {
        StateCounts(*a)
    }
    pub fn to_array(&self) -> [u64; STATE_COUNT] {
        self.0
    }
    pub fn get(&self, s: WarpState) -> u64 {
        self.0[s.index()]
    }
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

#[derive(Clone, Debug, Serialize)]
pub struct PcStats {
    /// Index of the instruction in its role's text.
    pub pc: u32,
    pub instruction: String,
    pub issued: u64,
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

#[derive(Clone, Debug, Serialize)]
pub struct RoleStats {
    pub name: String,
    pub warps_per_cta: u32,
    pub warps_simulated: u32,
    pub instructions: u64,
    pub states: StateCounts,
    pub per_pc: Vec<PcStats>,
}

impl RoleStats {
    /// Nsight Compute's ratio: warps in a state per issued instruction.
    pub fn per_issue(&self, s: WarpState) -> f64 {
        self.states.get(s) as f64 / self.instructions.max(1) as f64
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct WarpSummary {
    pub cta: u32,
    pub warp: u32,
    pub role: String,
    pub subpartition: u8,
    pub started: u64,
    pub finished: u64,
    pub instructions: u64,
    pub states: StateCounts,
}

#[derive(Clone, Debug, Serialize)]
pub struct UnitUse {
    pub unit: String,
    /// Share of the run's cycles the unit was busy (averaged over sub-partitions for pipes).
    pub busy_fraction: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct MemoryStats {
    pub requests_l1: u64,
    pub requests_l2_near: u64,
    pub requests_l2_far: u64,
    pub requests_hbm: u64,
    pub requests_shared: u64,
    pub l2_bytes: u64,
    pub hbm_bytes: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    pub kernel: String,
    pub profile: String,
    pub profile_validated: bool,
    pub profile_note: String,
    pub overrides: Vec<(String, f64)>,
    pub seed: u64,
    pub policy: String,
    /// Buffers whose lines started in L2 (`RunConfig::warm_l2`).
    pub warm_l2: Vec<String>,
    /// Cycles the simulated SM took for its CTAs.
    pub cycles: u64,
    pub time_us: f64,
    pub clock_mhz: f64,
    pub instructions: u64,
    pub issued_per_subpartition: [u64; 4],
    pub ipc: f64,
    pub ctas_simulated: u32,
    pub ctas_resident: u32,
    pub occupancy: isa::occupancy::Occupancy,
    pub grid: u32,
    pub waves: u32,
    /// Whole-kernel estimate: the busiest SM's CTAs.
    pub kernel_time_us: f64,
    pub tflops: Option<f64>,
    /// The kernel's declared bytes (`work bytes=`) over the whole-kernel estimate:
    /// what it reads and writes as its source counts them, re-reads from L2 included.
    pub gbps: Option<f64>,
    /// HBM traffic over the whole-kernel estimate: the simulated SM's share of HBM
    /// bytes, for every CTA of the grid.
    pub hbm_gbps: f64,
    pub units: Vec<UnitUse>,
    pub memory: MemoryStats,
    pub roles: Vec<RoleStats>,
    pub warps: Vec<WarpSummary>,
}

impl RunResult {
    pub fn unit(&self, name: &str) -> f64 {
        self.units
            .iter()
            .find(|u| u.unit == name)
            .map(|u| u.busy_fraction)
            .unwrap_or(0.0)
    }
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

#[derive(Clone, Debug, Serialize)]
pub struct StuckWarp {
    pub cta: u32,
    pub warp: u32,
    pub role: String,
    /// Index of the instruction in its role's text.
    pub pc: u32,
    pub instruction: String,
    pub waits_for: String,
}

/// Which warps were waiting, on what, when a run could not go on.
#[derive(Clone, Debug, Serialize)]
pub struct StuckReport {
    pub headline: String,
    pub cycle: u64,
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

#[derive(Clone, Debug)]
pub enum SimError {
    /// The kernel cannot run: it does not fit, or an operand cannot be resolved.
    Invalid(String),
    /// A warp did something impossible at run time (an address out of bounds...).
    Fault(String),
    Deadlock(StuckReport),
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
