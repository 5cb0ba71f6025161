//! A spec expanded into its points: every kernel built, every name checked, the output's
//! columns fixed, and a fingerprint that says whether two files come from the same sweep.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use sim_core::Profile;
use sim_core::scheduler::Policy;

use crate::metrics;
use crate::spec::{Spec, SpecError, did_you_mean};

/// Bumped when the rows' columns or their meaning change, so that files from before are
/// refused rather than resumed.
pub const FORMAT_VERSION: u32 = 1;

/// Where a point's kernel comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelSource {
    /// A generator of the library.
    Builtin {
        /// The family's name.
        family: String,
        /// The schedule's name.
        schedule: String,
    },
    /// A kernel file, parsed once when the plan is made.
    File(Arc<isa::Kernel>),
}

/// One point of a sweep: one kernel under one profile and policy, with its axis values;
/// it runs once per seed.
#[derive(Clone, Debug)]
pub struct Point {
    /// Its place in the spec's order (the output's `point` column).
    pub index: usize,
    /// The kernel as the spec names it (`family/schedule`, or the file as written).
    pub kernel: String,
    /// The profile's name as written.
    pub profile: String,
    /// The scheduling policy.
    pub policy: Policy,
    /// Each parameter axis's value at this point (the kernel's own where the point
    /// sets none; None where the kernel has no such parameter).
    pub params: Vec<Option<i64>>,
    /// Each profile axis's value at this point (the profile's own where not set).
    pub sets: Vec<Option<f64>>,
    /// The kernel, built with the point's parameters, or why it could not be.
    pub built: Result<Arc<isa::Kernel>, String>,
    /// The profile parameters the point overrides.
    pub overrides: Vec<(String, f64)>,
}

/// A spec expanded: what the runner runs and the writer writes.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The fingerprint of everything that decides the rows (16 hex digits).
    pub id: String,
    /// The spec's title.
    pub title: Option<String>,
    /// Seeds each point runs under.
    pub seeds: Vec<u64>,
    /// Kernel parameter axes, in column order.
    pub param_axes: Vec<String>,
    /// Profile parameter axes, in column order.
    pub set_axes: Vec<String>,
    /// The points, in spec order.
    pub points: Vec<Point>,
    /// Role names over every point's kernel, in order of first appearance.
    pub roles: Vec<String>,
    /// The output's columns.
    pub columns: Vec<String>,
    /// `RunConfig::max_ctas`.
    pub max_ctas: Option<u32>,
    /// The watchdog.
    pub max_cycles: u64,
    /// Buffers started in L2.
    pub warm_l2: Vec<String>,
    /// The base profiles by name as written (before a point's overrides).
    pub profiles: BTreeMap<String, Profile>,
}

/// A built-in profile or a profile file (relative to `base`).
pub fn load_profile(name: &str, base: &Path) -> Result<Profile, String> {
    if Profile::builtin_names().any(|n| n.eq_ignore_ascii_case(name)) {
        return Profile::builtin(name).map_err(|e| e.to_string());
    }
    let path = base.join(name);
    if path.exists() {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        return Profile::from_toml(&text).map_err(|e| format!("{}: {e}", path.display()));
    }
    let names: Vec<&str> = Profile::builtin_names().collect();
    Err(format!(
        "no built-in profile or file `{name}` (built in: {})",
        names.join(", ")
    ))
}

/// A kernel file read, parsed and validated (errors rendered with file, line, caret).
pub fn load_kernel_file(path: &Path, shown: &str) -> Result<isa::Kernel, String> {
    let source = std::fs::read_to_string(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    let kernel = isa::parse_kernel(&source).map_err(|d| d.render(shown, &source))?;
    let diags = isa::validate(&kernel);
    if let Some(d) = diags.first() {
        return Err(d.render(shown, &source));
    }
    Ok(kernel)
}

/// One kernel the spec names, resolved.
struct Resolved {
    name: String,
    source: KernelSource,
    /// Its family's profile, for a built-in kernel.
    family_profile: Option<&'static str>,
    /// Its parameters and their defaults.
    params: Vec<(String, i64)>,
}

fn resolve_kernels(spec: &Spec, name: &str) -> Result<Vec<Resolved>, SpecError> {
    let at = |e: SpecError| match spec.span_of(&format!("kernel:{name}")) {
        Some(s) => SpecError { span: Some(s), ..e },
        None => e,
    };
    let is_file = name.ends_with(".smk") || spec.base_dir.join(name).is_file();
    if is_file {
        let path = spec.base_dir.join(name);
        let k = load_kernel_file(&path, name).map_err(|m| at(SpecError::new(m)))?;
        let params = k
            .params
            .iter()
            .map(|p| (p.name.clone(), p.default))
            .collect();
        return Ok(vec![Resolved {
            name: name.to_string(),
            source: KernelSource::File(Arc::new(k)),
            family_profile: None,
            params,
        }]);
    }
    let (fam, sched) = match name.split_once('/') {
        Some((f, s)) => (f, Some(s)),
        None => (name, None),
    };
    let families: Vec<&str> = traces::families().iter().map(|f| f.name).collect();
    let Ok(f) = traces::family(fam) else {
        let mut known: Vec<String> = families.iter().map(|s| s.to_string()).collect();
        known.extend(traces::builtin_names());
        let known: Vec<&str> = known.iter().map(|s| s.as_str()).collect();
        return Err(at(SpecError {
            message: format!(
                "`{name}` is neither a kernel file nor a kernel family or family/schedule"
            ),
            help: did_you_mean(name, &known),
            span: None,
        }));
    };
    let params: Vec<(String, i64)> = f
        .params
        .iter()
        .map(|p| (p.name.to_string(), p.default))
        .collect();
    let schedules: Vec<&str> = match sched {
        None => f.schedules.iter().map(|s| s.name).collect(),
        Some(s) if f.schedules.iter().any(|x| x.name == s) => vec![s],
        Some(s) => {
            let known: Vec<&str> = f.schedules.iter().map(|x| x.name).collect();
            return Err(at(SpecError {
                message: format!("family `{fam}` has no schedule `{s}`"),
                help: did_you_mean(s, &known),
                span: None,
            }));
        }
    };
    Ok(schedules
        .into_iter()
        .map(|s| Resolved {
            name: format!("{fam}/{s}"),
            source: KernelSource::Builtin {
                family: fam.to_string(),
                schedule: s.to_string(),
            },
            family_profile: Some(f.profile),
            params: params.clone(),
        })
        .collect())
}

/// Builds a point's kernel: the generator with its parameters, or the file's kernel with
/// its `param` lines overridden, validated.
fn build(source: &KernelSource, params: &[(String, i64)]) -> Result<Arc<isa::Kernel>, String> {
    match source {
        KernelSource::Builtin { family, schedule } => {
            traces::generate(family, schedule, params).map(Arc::new)
        }
        KernelSource::File(k) => {
            let mut k = (**k).clone();
            k.set_params(params)?;
            if let Some(d) = isa::validate(&k).first() {
                return Err(format!("line {}:{}: {}", d.line, d.col, d.message));
            }
            Ok(Arc::new(k))
        }
    }
}

/// The cartesian product of axes, the last axis varying fastest.
fn product<T: Clone>(axes: &[Vec<T>]) -> Vec<Vec<T>> {
    axes.iter().fold(vec![Vec::new()], |acc, vals| {
        acc.iter()
            .flat_map(|prefix| {
                vals.iter().map(move |v| {
                    let mut p = prefix.clone();
                    p.push(v.clone());
                    p
                })
            })
            .collect()
    })
}

/// Expands a spec: every name checked (with the nearest valid names), every point's
/// kernel built, the columns and the fingerprint fixed.
pub fn expand(spec: &Spec) -> Result<Plan, SpecError> {
    if spec.kernels.is_empty() && spec.points.iter().all(|p| p.kernel.is_none()) {
        return Err(SpecError::new(
            "the spec names no kernel (`kernels = [...]`)",
        ));
    }
    let mut kernels: Vec<Resolved> = Vec::new();
    for k in &spec.kernels {
        kernels.extend(resolve_kernels(spec, k)?);
    }
    let policies: Vec<Policy> = if spec.policies.is_empty() {
        vec![Policy::TwoLevel]
    } else {
        spec.policies
            .iter()
            .map(|p| {
                Policy::from_name(p).map_err(|m| {
                    let mut e = SpecError::new(m);
                    e.span = spec.span_of(&format!("policy:{p}"));
                    e
                })
            })
            .collect::<Result<_, _>>()?
    };
    let seeds = if spec.seeds.is_empty() {
        vec![1]
    } else {
        spec.seeds.clone()
    };
    // Columns: the product's axes, then any a listed point adds.
    let mut param_axes: Vec<String> = spec.params.iter().map(|p| p.0.clone()).collect();
    let mut set_axes: Vec<String> = spec.sets.iter().map(|s| s.0.clone()).collect();
    for lp in &spec.points {
        for (k, _) in &lp.params {
            if !param_axes.contains(k) {
                param_axes.push(k.clone());
            }
        }
        for (k, _) in &lp.sets {
            if !set_axes.contains(k) {
                set_axes.push(k.clone());
            }
        }
    }
    let listed: Vec<(Vec<Resolved>, &crate::spec::ListedPoint)> = if spec.points.is_empty() {
        vec![]
    } else {
        spec.points
            .iter()
            .map(|lp| {
                let ks = match &lp.kernel {
                    Some(k) => resolve_kernels(spec, k)?,
                    None => spec
                        .kernels
                        .iter()
                        .map(|k| resolve_kernels(spec, k))
                        .collect::<Result<Vec<_>, _>>()?
                        .into_iter()
                        .flatten()
                        .collect(),
                };
                Ok((ks, lp))
            })
            .collect::<Result<_, SpecError>>()?
    };
    let mut profiles: BTreeMap<String, Profile> = BTreeMap::new();
    let mut points: Vec<Point> = Vec::new();
    let param_product = product(
        &spec
            .params
            .iter()
            .map(|(_, v)| v.clone())
            .collect::<Vec<_>>(),
    );
    let set_product = product(&spec.sets.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>());
    // Each group: kernels, and fixed values a listed point adds.
    let empty = crate::spec::ListedPoint::default();
    let groups: Vec<(&[Resolved], &crate::spec::ListedPoint)> = if listed.is_empty() {
        vec![(&kernels[..], &empty)]
    } else {
        listed.iter().map(|(k, lp)| (&k[..], *lp)).collect()
    };
    for (ks, lp) in groups {
        for k in ks {
            let profile_names: Vec<String> = if spec.profiles.is_empty() {
                vec![k.family_profile.unwrap_or("h100").to_string()]
            } else {
                spec.profiles.clone()
            };
            for pname in &profile_names {
                if !profiles.contains_key(pname) {
                    let p = load_profile(pname, &spec.base_dir).map_err(|m| {
                        let mut e = SpecError::new(m);
                        e.span = spec.span_of(&format!("profile:{pname}"));
                        e
                    })?;
                    profiles.insert(pname.clone(), p);
                }
                let base = &profiles[pname];
                check_names(spec, k, base, &param_axes, &set_axes, lp)?;
                for &policy in &policies {
                    for pv in &param_product {
                        for sv in &set_product {
                            let mut overrides_p: Vec<(String, i64)> = spec
                                .params
                                .iter()
                                .zip(pv)
                                .map(|((n, _), v)| (n.clone(), *v))
                                .collect();
                            overrides_p.extend(lp.params.iter().cloned());
                            let mut overrides_s: Vec<(String, f64)> = spec
                                .sets
                                .iter()
                                .zip(sv)
                                .map(|((n, _), v)| (n.clone(), *v))
                                .collect();
                            overrides_s.extend(lp.sets.iter().cloned());
                            let params = param_axes
                                .iter()
                                .map(|a| {
                                    overrides_p
                                        .iter()
                                        .rev()
                                        .find(|(n, _)| n == a)
                                        .map(|x| x.1)
                                        .or_else(|| {
                                            k.params.iter().find(|(n, _)| n == a).map(|x| x.1)
                                        })
                                })
                                .collect();
                            let sets = set_axes
                                .iter()
                                .map(|a| {
                                    overrides_s
                                        .iter()
                                        .rev()
                                        .find(|(n, _)| n == a)
                                        .map(|x| x.1)
                                        .or_else(|| base.file.params.get(a).map(|e| e.value))
                                })
                                .collect();
                            points.push(Point {
                                index: points.len(),
                                kernel: k.name.clone(),
                                profile: pname.clone(),
                                policy,
                                params,
                                sets,
                                built: build(&k.source, &overrides_p),
                                overrides: overrides_s,
                            });
                        }
                    }
                }
            }
        }
    }
    let mut roles: Vec<String> = Vec::new();
    for p in &points {
        if let Ok(k) = &p.built {
            for r in &k.roles {
                if !roles.contains(&r.name) {
                    roles.push(r.name.clone());
                }
            }
        }
    }
    let columns = metrics::columns(&param_axes, &set_axes, &roles);
    let mut plan = Plan {
        id: String::new(),
        title: spec.title.clone(),
        seeds,
        param_axes,
        set_axes,
        points,
        roles,
        columns,
        max_ctas: spec.max_ctas,
        max_cycles: spec.max_cycles.unwrap_or(200_000_000),
        warm_l2: spec.warm_l2.clone(),
        profiles,
    };
    plan.id = fingerprint(&plan);
    Ok(plan)
}

/// Every product axis must name a parameter the kernel (and profile) has.
fn check_names(
    spec: &Spec,
    k: &Resolved,
    profile: &Profile,
    param_axes: &[String],
    set_axes: &[String],
    lp: &crate::spec::ListedPoint,
) -> Result<(), SpecError> {
    let kparams: Vec<&str> = k.params.iter().map(|p| p.0.as_str()).collect();
    let written: Vec<&String> = spec
        .params
        .iter()
        .map(|p| &p.0)
        .chain(lp.params.iter().map(|p| &p.0))
        .collect();
    for a in param_axes.iter().filter(|a| written.contains(a)) {
        if !kparams.contains(&a.as_str()) {
            let mut e = SpecError::new(format!("kernel `{}` has no parameter `{a}`", k.name));
            e.help = did_you_mean(a, &kparams);
            e.span = spec.span_of(&format!("param:{a}"));
            return Err(e);
        }
    }
    let pnames: Vec<&str> = profile.file.params.keys().map(|s| s.as_str()).collect();
    for a in set_axes {
        if !pnames.contains(&a.as_str()) {
            let mut e = SpecError::new(format!(
                "profile `{}` has no parameter `{a}`",
                profile.name()
            ));
            e.help = did_you_mean(a, &pnames);
            e.span = spec.span_of(&format!("set:{a}"));
            return Err(e);
        }
    }
    Ok(())
}

/// FNV-1a, 64 bits: a fingerprint that is the same on every machine and toolchain.
pub fn fnv1a(bytes: &[u8], mut h: u64) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// Everything that decides a row: the format, the columns, the settings, the seeds, the
/// profiles' full text, and every point's axis values and kernel text.
fn fingerprint(plan: &Plan) -> String {
    let mut h = FNV_START;
    let mut feed = |s: &str| h = fnv1a(s.as_bytes(), fnv1a(b"\x1f", h));
    feed(&FORMAT_VERSION.to_string());
    feed(&plan.columns.join(","));
    feed(&format!(
        "{:?} {:?} {} {:?}",
        plan.seeds, plan.max_ctas, plan.max_cycles, plan.warm_l2
    ));
    for (name, p) in &plan.profiles {
        feed(name);
        feed(&p.to_toml());
    }
    for p in &plan.points {
        feed(&format!(
            "{} {} {} {:?} {:?} {:?}",
            p.kernel,
            p.profile,
            p.policy.name(),
            p.params,
            p.sets,
            p.overrides
        ));
        match &p.built {
            Ok(k) => feed(&k.to_string()),
            Err(e) => feed(e),
        }
    }
    format!("{h:016x}")
}

impl Plan {
    /// The indices of the points shard `i` of `n` runs (every n-th point from i:
    /// neighbours, which cost alike, spread over the shards).
    pub fn shard(&self, i: usize, n: usize) -> Vec<usize> {
        (0..self.points.len()).filter(|p| p % n == i).collect()
    }

    /// A short label of a point's axis values (for charts and messages).
    pub fn label(&self, p: &Point) -> String {
        let mut parts = vec![p.kernel.clone()];
        for (a, v) in self.param_axes.iter().zip(&p.params) {
            if let Some(v) = v {
                parts.push(format!("{a}={v}"));
            }
        }
        for (a, v) in self.set_axes.iter().zip(&p.sets) {
            if let Some(v) = v {
                parts.push(format!("{a}={v}"));
            }
        }
        parts.join(" ")
    }
}
