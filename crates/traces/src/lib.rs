//! The kernel library: the seed kernels as parameterized generators, each family with a
//! static and a warp-specialized schedule of the same work, and [`compare()`] that runs them
//! side by side.
//!
//! Every generator is `fn build(schedule, &Params) -> Result<isa::Kernel, String>`; the
//! registry ([`families`]) lists the schedules and parameters, [`generate`] checks names
//! and overrides, and [`builtin`] resolves `family/schedule` for `smsim run`.

use std::collections::BTreeMap;

pub mod blackwell;
pub mod compare;
pub mod elementwise;
pub mod fa3;
pub mod gemm;
pub mod latency;
pub mod seeds;
pub mod singe;

pub use compare::{Comparison, ScheduleRow, compare};

/// One schedule of a family.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    pub name: &'static str,
    pub description: &'static str,
}

/// One parameter of a family, with its default.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub default: i64,
    pub help: &'static str,
}

/// A kernel family: one computation, several schedules.
#[derive(Clone, Copy)]
pub struct Family {
    pub name: &'static str,
    pub description: &'static str,
    /// The profile the family is written for ("h100" or "b200").
    pub profile: &'static str,
    pub schedules: &'static [Schedule],
    pub params: &'static [ParamSpec],
    /// The seed's own problem as parameter values (the rest at their defaults): what
    /// `smsim compare FAMILY --param ...` takes to run the kernel the seed measured.
    pub seed_params: &'static [(&'static str, i64)],
    pub build: fn(&str, &Params) -> Result<isa::Kernel, String>,
}

impl std::fmt::Debug for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Family").field("name", &self.name).finish()
    }
}

/// Resolved parameter values (defaults plus overrides).
#[derive(Clone, Debug, Default)]
pub struct Params(pub BTreeMap<String, i64>);

impl Params {
    /// The value of a parameter the family declares (a missing one is a generator bug).
    pub fn get(&self, name: &str) -> i64 {
        *self
            .0
            .get(name)
            .unwrap_or_else(|| panic!("generator asked for undeclared parameter `{name}`"))
    }
    pub fn defaults(f: &Family) -> Params {
        Params(
            f.params
                .iter()
                .map(|p| (p.name.to_string(), p.default))
                .collect(),
        )
    }
}

static FAMILIES: &[Family] = &[
    gemm::FAMILY,
    latency::FAMILY,
    elementwise::FAMILY,
    fa3::FAMILY,
    singe::FAMILY,
    blackwell::FAMILY,
];

/// Every kernel family, in the order of the issue.
pub fn families() -> &'static [Family] {
    FAMILIES
}

pub fn family(name: &str) -> Result<&'static Family, String> {
    FAMILIES.iter().find(|f| f.name == name).ok_or_else(|| {
        format!(
            "unknown kernel family `{name}`; the families are: {}",
            FAMILIES
                .iter()
                .map(|f| f.name)
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// Resolves defaults plus overrides, rejecting names the family does not declare.
pub fn resolve_params(f: &Family, overrides: &[(String, i64)]) -> Result<Params, String> {
    let mut p = Params::defaults(f);
    for (k, v) in overrides {
        match p.0.get_mut(k.as_str()) {
            Some(slot) => *slot = *v,
            None => {
                return Err(format!(
                    "family `{}` has no parameter `{k}`; its parameters are: {}",
                    f.name,
                    f.params
                        .iter()
                        .map(|p| p.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
    }
    Ok(p)
}

/// Builds one schedule of one family with parameter overrides.
pub fn generate(
    family_name: &str,
    schedule: &str,
    overrides: &[(String, i64)],
) -> Result<isa::Kernel, String> {
    let f = family(family_name)?;
    if !f.schedules.iter().any(|s| s.name == schedule) {
        return Err(format!(
            "family `{}` has no schedule `{schedule}`; its schedules are: {}",
            f.name,
            f.schedules
                .iter()
                .map(|s| s.name)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let p = resolve_params(f, overrides)?;
    (f.build)(schedule, &p)
}

/// Resolves a built-in kernel name `family/schedule` (e.g. `gemm-mainloop/ws`) with its
/// default parameters; `None` when the name is not of that form or unknown.
pub fn builtin(name: &str) -> Option<isa::Kernel> {
    builtin_with(name, &[]).ok()
}

/// [`builtin`] with parameter overrides, and an error message that says what is valid.
pub fn builtin_with(name: &str, overrides: &[(String, i64)]) -> Result<isa::Kernel, String> {
    let (f, s) = name
        .split_once('/')
        .ok_or_else(|| format!("`{name}` is not of the form family/schedule"))?;
    generate(f, s, overrides)
}

/// Every `family/schedule` name.
pub fn builtin_names() -> Vec<String> {
    FAMILIES
        .iter()
        .flat_map(|f| {
            f.schedules
                .iter()
                .map(move |s| format!("{}/{}", f.name, s.name))
        })
        .collect()
}

pub(crate) fn check_range(name: &str, v: i64, lo: i64, hi: i64) -> Result<(), String> {
    if v < lo || v > hi {
        Err(format!("parameter {name}={v} is out of range {lo}..={hi}"))
    } else {
        Ok(())
    }
}
