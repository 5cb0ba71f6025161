//! The GPU profile: every timing and capacity parameter the engine uses, each with its
//! value and where it came from. No timing constant lives in the engine's code.

use std::collections::BTreeMap;
use std::fmt;

use isa::opcode::FixedClass;
use serde::{Deserialize, Serialize};

/// One parameter as written in a profile file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamEntry {
    pub value: f64,
    /// A citation, or the measurement file and benchmarks a fitted value came from.
    pub source: String,
}

/// A profile as stored in TOML.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProfileFile {
    pub name: String,
    pub gpu: String,
    /// True once the parameters have been fitted to measurements of this GPU.
    pub validated: bool,
    pub note: String,
    pub params: BTreeMap<String, ParamEntry>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ProfileError {
    Toml(String),
    Missing(Vec<String>),
    Unknown {
        name: String,
        known: Vec<String>,
    },
    Invalid {
        name: String,
        value: f64,
        why: String,
    },
    NoSuchBuiltin(String),
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProfileError::Toml(e) => write!(f, "the profile is not valid TOML: {e}"),
            ProfileError::Missing(names) => {
                write!(
                    f,
                    "the profile lacks these parameters: {}",
                    names.join(", ")
                )
            }
            ProfileError::Unknown { name, known } => {
                let close: Vec<&String> = known.iter().filter(|k| similar(k, name)).collect();
                write!(f, "no profile parameter is called `{name}`")?;
                if !close.is_empty() {
                    let c: Vec<&str> = close.iter().map(|s| s.as_str()).collect();
                    write!(f, " (did you mean {}?)", c.join(", "))?;
                }
                Ok(())
            }
            ProfileError::Invalid { name, value, why } => write!(f, "`{name}` = {value}: {why}"),
            ProfileError::NoSuchBuiltin(n) => {
                write!(
                    f,
                    "no built-in profile `{n}`; built in: {}",
                    BUILTIN.iter().map(|b| b.0).collect::<Vec<_>>().join(", ")
                )
            }
        }
    }
}

impl std::error::Error for ProfileError {}

fn similar(a: &str, b: &str) -> bool {
    a.contains(b) || b.contains(a) || {
        let pa: Vec<&str> = a.split('_').collect();
        b.split('_')
            .filter(|w| w.len() > 2 && pa.contains(w))
            .count()
            >= 2
    }
}

const BUILTIN: &[(&str, &str)] = &[
    ("h100", include_str!("../profiles/h100.toml")),
    ("b200", include_str!("../profiles/b200.toml")),
];

macro_rules! timing {
    ($( $(#[$doc:meta])* $name:ident : $check:expr ),* $(,)?) => {
        /// The profile's parameters as the engine reads them.
        #[derive(Clone, Debug, PartialEq, Serialize)]
        pub struct Timing { $( $(#[$doc])* pub $name: f64, )* }

        impl Timing {
            pub const NAMES: &'static [&'static str] = &[$(stringify!($name),)*];

            fn from_params(p: &BTreeMap<String, ParamEntry>) -> Result<Timing, ProfileError> {
                let missing: Vec<String> = Self::NAMES.iter().filter(|n| !p.contains_key(**n)).map(|n| n.to_string()).collect();
                if !missing.is_empty() {
                    return Err(ProfileError::Missing(missing));
                }
                $(
                    let $name = p[stringify!($name)].value;
                    let check: fn(f64) -> Result<(), &'static str> = $check;
                    check($name).map_err(|why| ProfileError::Invalid { name: stringify!($name).into(), value: $name, why: why.into() })?;
                )*
                Ok(Timing { $($name,)* })
            }
        }
    };
}

fn at_least_one(v: f64) -> Result<(), &'static str> {
    if v >= 1.0 && v.is_finite() {
        Ok(())
    } else {
        Err("must be a number of at least 1")
    }
}

fn probability(v: f64) -> Result<(), &'static str> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err("must be a probability, from 0 to 1")
    }
}

/// A rate or a clock: positive, from 10^-6 up to below 10^12. (No GPU's figure is
/// outside; a rate much nearer 0 makes times, and a cycle count near 10^18 makes sums of
/// them, that no 64-bit cycle count holds.)
fn positive(v: f64) -> Result<(), &'static str> {
    if (1e-6..1e12).contains(&v) {
        Ok(())
    } else {
        Err("must be a positive number from 0.000001 up to below 10^12")
    }
}
/// Cycles (or a count of lines) that may be fractional: zero or more, below 10^12, as
/// `whole`'s.
fn non_negative(v: f64) -> Result<(), &'static str> {
    if (0.0..1e12).contains(&v) {
        Ok(())
    } else {
        Err("must be zero or more, below 10^12")
    }
}
fn count(v: f64) -> Result<(), &'static str> {
    if v >= 1.0 && v.fract() == 0.0 && v < 1e12 {
        Ok(())
    } else {
        Err("must be a whole number of at least 1")
    }
}
/// A cache's or the L1's and shared memory's bytes: a whole number up to 4 GiB (80 times
/// the H100's L2). The cache model keeps every line's tag and arrival time in host
/// memory, and its set count below 2^32 (`memory::Cache`).
fn cache_bytes(v: f64) -> Result<(), &'static str> {
    if v >= 1.0 && v.fract() == 0.0 && v <= (1u64 << 32) as f64 {
        Ok(())
    } else {
        Err("must be a whole number of bytes from 1 to 4 GiB (4294967296)")
    }
}
/// The most ways a cache of the model may have: a set's recency ranks are bytes below
/// 128 (the memory model's `SetLayout`). Declared here, where profile values are
/// checked, so that the memory model depends on the profile and not the reverse.
pub const MAX_WAYS: usize = 128;

/// A cache's associativity (at most `MAX_WAYS`).
fn ways(v: f64) -> Result<(), &'static str> {
    if (1.0..=MAX_WAYS as f64).contains(&v) && v.fract() == 0.0 {
        Ok(())
    } else {
        Err("must be a whole number of ways from 1 to 128")
    }
}
fn whole(v: f64) -> Result<(), &'static str> {
    if v >= 0.0 && v.fract() == 0.0 && v < 1e12 {
        Ok(())
    } else {
        Err("must be a whole number")
    }
}

timing! {
    clock_mhz: positive,
    sm_count: count,
    cta_launch_cycles: whole,
    regs_per_sm: count,
    max_regs_per_thread: count,
    reg_alloc_unit: count,
    reg_file_partitions: count,
    max_warps_per_sm: count,
    max_threads_per_sm: count,
    max_ctas_per_sm: count,
    smem_per_sm: count,
    max_smem_per_block: count,
    smem_reserved_per_cta: whole,
    smem_alloc_unit: count,
    l1_plus_smem_bytes: cache_bytes,
    l2_bytes: cache_bytes,
    l2_ways: ways,
    l1_ways: ways,
    tmem_cols: whole,
    lat_fma: count,
    lat_imad: count,
    lat_alu: count,
    lat_fp64: count,
    fma_issue_interval: count,
    alu_issue_interval: count,
    fp64_issue_interval: count,
    mufu_issue_interval: count,
    lat_mufu: count,
    branch_issue_interval: count,
    branch_target_cycles: whole,
    sync_issue_interval: count,
    reg_banks: count,
    reg_bank_ports: count,
    reg_bank_conflict_cycles: whole,
    lat_lds: count,
    lat_shfl: count,
    smem_bytes_per_clk: positive,
    mio_queue_depth: count,
    lsu_queue_depth: count,
    l1_lines_per_clk: positive,
    l1_line_cycles: non_negative,
    l1_line_cap: non_negative,
    l1_sector_cycles: non_negative,
    l2_line_cycles: non_negative,
    l2_line_cap: non_negative,
    lat_ldgsts_fill: whole,
    lat_l1_hit: count,
    lat_l2_near: count,
    lat_l2_far: count,
    lat_hbm: count,
    jitter_l2: whole,
    jitter_hbm: whole,
    lat_hbm_far_extra: whole,
    hbm_far_address_bits: whole,
    hbm_page_bytes: count,
    lat_hbm_tma_extra: whole,
    hbm_tail_chunk_bytes: count,
    hbm_tail_group_bytes: count,
    hbm_tail_subs: count,
    hbm_tail_window_probability: probability,
    hbm_tail_probability: probability,
    hbm_tail_min: whole,
    hbm_tail_max: whole,
    l2_bytes_per_clk_chip: positive,
    l2_bytes_per_clk_sm_max: positive,
    l2_shared_read_gain: at_least_one,
    hbm_bytes_per_clk_chip: positive,
    hbm_bytes_per_clk_sm_max: positive,
    hbm_burst_bytes_per_clk_sm: positive,
    hbm_burst_bytes: whole,
    lat_membar_gpu: whole,
    tma_issue_cycles: whole,
    tma_extra_latency: whole,
    tma_bytes_per_clk: positive,
    tensor_flops_per_clk_sm: positive,
    hgmma_latency: whole,
    tensor_queue_depth: count,
    lat_bar: whole,
    bar_arrive_cycles_per_warp: non_negative,
    lat_mbarrier_wake: whole,
    lat_mbarrier_probe: whole,
    lat_mbarrier_arrive: whole,
    lat_mbarrier_tx_wake: whole,
    lat_fence: whole,
    utcmma_latency_tmem_a: non_negative,
    utcmma_latency_smem_a: non_negative,
    utcmma_smem_base_cycles: non_negative,
    lat_tmem_load: whole,
}

/// A loaded profile: the file (for provenance) and its parameters in typed form.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    pub file: ProfileFile,
    pub t: Timing,
    /// Parameters overridden for this run with `set`, in order.
    pub overrides: Vec<(String, f64)>,
}

impl Profile {
    pub fn builtin(name: &str) -> Result<Profile, ProfileError> {
        let text = BUILTIN
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, t)| *t)
            .ok_or_else(|| ProfileError::NoSuchBuiltin(name.to_string()))?;
        Profile::from_toml(text)
    }

    pub fn builtin_names() -> impl Iterator<Item = &'static str> {
        BUILTIN.iter().map(|b| b.0)
    }

    pub fn from_toml(text: &str) -> Result<Profile, ProfileError> {
        let file: ProfileFile =
            toml::from_str(text).map_err(|e| ProfileError::Toml(e.to_string()))?;
        let unknown: Vec<&String> = file
            .params
            .keys()
            .filter(|k| !Timing::NAMES.contains(&k.as_str()))
            .collect();
        if let Some(name) = unknown.first() {
            return Err(ProfileError::Unknown {
                name: name.to_string(),
                known: Timing::NAMES.iter().map(|s| s.to_string()).collect(),
            });
        }
        let t = Timing::from_params(&file.params)?;
        Ok(Profile {
            file,
            t,
            overrides: vec![],
        })
    }

    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(&self.file).unwrap_or_default()
    }

    pub fn name(&self) -> &str {
        &self.file.name
    }

    /// Overrides one parameter for a run (`--set name=value`).
    pub fn set(&mut self, name: &str, value: f64) -> Result<(), ProfileError> {
        let Some(entry) = self.file.params.get_mut(name) else {
            return Err(ProfileError::Unknown {
                name: name.to_string(),
                known: Timing::NAMES.iter().map(|s| s.to_string()).collect(),
            });
        };
        let old = entry.value;
        entry.value = value;
        match Timing::from_params(&self.file.params) {
            Ok(t) => {
                self.t = t;
                entry_source_note(self.file.params.get_mut(name), value);
                self.overrides.push((name.to_string(), value));
                Ok(())
            }
            Err(e) => {
                if let Some(entry) = self.file.params.get_mut(name) {
                    entry.value = old;
                }
                Err(e)
            }
        }
    }

    pub fn source(&self, name: &str) -> Option<&str> {
        self.file.params.get(name).map(|p| p.source.as_str())
    }

    /// The capacity limits that decide occupancy.
    pub fn limits(&self) -> isa::occupancy::SmLimits {
        let t = &self.t;
        isa::occupancy::SmLimits {
            regs_per_sm: t.regs_per_sm as u32,
            max_regs_per_thread: t.max_regs_per_thread as u32,
            reg_alloc_unit: t.reg_alloc_unit as u32,
            reg_file_partitions: t.reg_file_partitions as u32,
            max_warps_per_sm: t.max_warps_per_sm as u32,
            max_ctas_per_sm: t.max_ctas_per_sm as u32,
            smem_per_sm: t.smem_per_sm as u32,
            max_smem_per_block: t.max_smem_per_block as u32,
            smem_reserved_per_cta: t.smem_reserved_per_cta as u32,
            smem_alloc_unit: t.smem_alloc_unit as u32,
            max_threads_per_sm: t.max_threads_per_sm as u32,
        }
    }

    pub fn fixed_latency(&self, c: FixedClass) -> u64 {
        (match c {
            FixedClass::Fma => self.t.lat_fma,
            FixedClass::Alu => self.t.lat_alu,
            FixedClass::Imad => self.t.lat_imad,
            FixedClass::Fp64 => self.t.lat_fp64,
        }) as u64
    }

    pub fn cycles_to_us(&self, cycles: u64) -> f64 {
        cycles as f64 / self.t.clock_mhz
    }
}

fn entry_source_note(entry: Option<&mut ParamEntry>, value: f64) {
    if let Some(e) = entry
        && !e.source.starts_with("--set")
    {
        e.source = format!("--set {value} for this run (profile said: {})", e.source);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_load_and_every_parameter_has_a_source() {
        for name in Profile::builtin_names() {
            let p = Profile::builtin(name).unwrap();
            for (k, v) in &p.file.params {
                assert!(!v.source.trim().is_empty(), "{name}: {k} has no source");
            }
            assert_eq!(p.file.params.len(), Timing::NAMES.len(), "{name}");
        }
    }

    #[test]
    fn set_rejects_unknown_and_invalid_values_and_keeps_the_old_one() {
        let mut p = Profile::builtin("h100").unwrap();
        let e = p.set("lat_fmaa", 5.0).unwrap_err();
        assert!(e.to_string().contains("did you mean"), "{e}");
        let before = p.t.lat_fma;
        assert!(p.set("lat_fma", -1.0).is_err());
        assert_eq!(p.t.lat_fma, before);
        p.set("lat_fma", 6.0).unwrap();
        assert_eq!(p.t.lat_fma, 6.0);
        assert_eq!(p.overrides, vec![("lat_fma".to_string(), 6.0)]);
        // A cache larger than the model holds is refused, not left to the cache to fail
        // on (a one-way L2 of 1 TiB would have 2^33 sets; 64 GiB already costs the host
        // more memory than the machine has).
        let e = p.set("l2_bytes", (1u64 << 36) as f64).unwrap_err();
        assert!(e.to_string().contains("4 GiB"), "{e}");
        p.set("l2_ways", 1.0).unwrap();
        p.set("l2_bytes", (1u64 << 32) as f64).unwrap();
        // Cycles near 10^18, or a rate near 0, would make times no cycle count holds
        // (found by fuzzing `--set`: an uncoalesced load's lines 10^18 cycles apart
        // overflowed).
        let e = p.set("l2_line_cycles", 1e18).unwrap_err();
        assert!(e.to_string().contains("below 10^12"), "{e}");
        let e = p.set("smem_bytes_per_clk", 1e-9).unwrap_err();
        assert!(e.to_string().contains("from 0.000001"), "{e}");
        p.set("l2_line_cycles", 1e11).unwrap();
    }

    #[test]
    fn profile_round_trips_through_toml() {
        let p = Profile::builtin("b200").unwrap();
        let q = Profile::from_toml(&p.to_toml()).unwrap();
        assert_eq!(p.file, q.file);
    }
}
