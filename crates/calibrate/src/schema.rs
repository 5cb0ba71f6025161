//! The measurement file: one JSON document per `calibrate-collect` run.
//!
//! Every benchmark keeps all of its repetitions; `median` is derived from them. The
//! CUDA source of every benchmark is stored in `sources`, with a hash, so the file says
//! exactly what ran.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Version tag of this layout. Bump when a field changes meaning.
pub const SCHEMA: &str = "smsim-calibrate-measurement/1";

/// One collect run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    pub schema: String,
    pub provenance: Provenance,
    /// CUDA sources compiled for this run (name, hash, full text, compiler log).
    pub sources: Vec<SourceRecord>,
    /// Resource usage of every kernel that was loaded.
    pub kernels: Vec<KernelInfo>,
    pub benchmarks: Vec<Benchmark>,
    /// Benchmarks that failed (compile, launch, timeout, ...), with the reason.
    pub errors: Vec<BenchError>,
}

/// Where and how the numbers were taken. Deliberately holds no host name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    pub tool: String,
    pub tool_version: String,
    /// ISO 8601, UTC, e.g. `2026-11-20T10:11:12Z`.
    pub date_utc: String,
    pub gpu_name: String,
    pub compute_capability: [i32; 2],
    pub sm_count: i32,
    pub l2_bytes: i64,
    pub total_mem_bytes: u64,
    pub max_smem_per_block_optin: i64,
    /// `cuDriverGetVersion`, e.g. 13000.
    pub driver_api_version: i32,
    /// The same as "major.minor".
    pub cuda_version: String,
    pub nvrtc_version: String,
    /// Device attributes (kHz); None where the driver no longer reports them.
    pub clock_rate_khz_attr: Option<i64>,
    pub mem_clock_rate_khz_attr: Option<i64>,
    pub mem_bus_width_bits: Option<i64>,
    /// SM clock measured at the start of the run (clock64 against %globaltimer), MHz.
    pub sm_clock_mhz_measured: Option<f64>,
    pub arch: String,
    pub compile_options: Vec<String>,
    pub quick: bool,
    /// The command line, program name first.
    pub command: Vec<String>,
    #[serde(default)]
    pub notes: Vec<String>,
}

/// A CUDA source as compiled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceRecord {
    pub name: String,
    pub hash_algo: String,
    pub hash: String,
    pub text: String,
    /// NVRTC's log (warnings, errors); empty when it had nothing to say.
    pub compile_log: String,
    /// "cubin" (NVRTC ran ptxas) or "ptx" (the driver compiled it at load).
    pub image_kind: String,
}

/// Resources of one kernel, from cuFuncGetAttribute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelInfo {
    pub name: String,
    pub source: String,
    pub num_regs: i32,
    pub local_bytes: i32,
    pub static_smem_bytes: i32,
}

/// One benchmark: every repetition and their median.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Benchmark {
    /// Unique within a file, e.g. `lat.ldg.ca.fp_16MiB`.
    pub name: String,
    /// "clock", "latency", "throughput", "bandwidth", "regbank", ...
    pub group: String,
    pub unit: String,
    pub params: BTreeMap<String, Value>,
    pub reps: Vec<f64>,
    pub median: f64,
    /// Name of the entry in `sources`.
    pub source: String,
    /// The kernel (or kernels) that ran.
    pub kernel: String,
    /// How `reps` were derived from the raw timings.
    pub method: String,
    /// Raw timings and derived figures that are not repetitions (percentiles, ...).
    #[serde(default)]
    pub extra: BTreeMap<String, Value>,
}

/// A benchmark that could not be measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchError {
    pub name: String,
    pub error: String,
}

/// Median of finite values (mean of the two middle ones for an even count).
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    })
}

/// Percentile (0..=100) by nearest rank on the sorted finite values.
pub fn percentile(values: &[f64], p: f64) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * (v.len() - 1) as f64).round() as usize;
    Some(v[rank.min(v.len() - 1)])
}

/// FNV-1a, 64 bit, as 16 hex digits: identifies a source text (not a security hash).
pub fn fnv1a64(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

impl Measurement {
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string_pretty(self)
    }
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
    /// The benchmark with this name, if present.
    pub fn get(&self, name: &str) -> Option<&Benchmark> {
        self.benchmarks.iter().find(|b| b.name == name)
    }
}
