//! Which profile parameters a prediction depends on: each parameter moved down and up by
//! a relative step in turn, the kernel rerun, the metric's change recorded. A user
//! learns which measured numbers to trust before trusting the prediction.

use rayon::prelude::*;
use sim_core::result::RunResult;
use sim_core::{Profile, RunConfig};

use crate::chart::Tornado;

/// What a sensitivity study runs.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The kernel, built.
    pub kernel: isa::Kernel,
    /// Its name, for titles.
    pub name: String,
    /// The base profile (with any overrides already applied).
    pub profile: Profile,
    /// The run's settings; its seed is replaced by each of `seeds`.
    pub config: RunConfig,
    /// Seeds averaged at each setting (their spread is the noise floor).
    pub seeds: Vec<u64>,
    /// The relative step, such as 0.1.
    pub delta: f64,
    /// The metric (`time_us`, `cycles`, `kernel_time_us`, `tflops`, `ipc`).
    pub metric: String,
    /// Worker threads (0: one per core).
    pub jobs: usize,
}

/// One parameter's effect.
#[derive(Clone, Debug, PartialEq)]
pub struct Effect {
    /// The profile parameter.
    pub parameter: String,
    /// Its value in the profile.
    pub base: f64,
    /// The values tried below and above (rounded for whole-number parameters; NaN where
    /// the parameter takes no value on that side).
    pub tried: (f64, f64),
    /// The metric's change in percent at each (None where the value is invalid or the
    /// run failed, with why in `note`).
    pub change: (Option<f64>, Option<f64>),
    /// Why a side has no change, if it has none.
    pub note: Option<String>,
}

impl Effect {
    /// The larger of the two changes' sizes.
    pub fn size(&self) -> f64 {
        self.change
            .0
            .unwrap_or(0.0)
            .abs()
            .max(self.change.1.unwrap_or(0.0).abs())
    }
}

/// A sensitivity study's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Sensitivity {
    /// The kernel's name.
    pub name: String,
    /// The metric.
    pub metric: String,
    /// The metric at the base profile (mean over seeds).
    pub base: f64,
    /// The seeds' spread at the base profile, in percent of the mean (max - min): changes
    /// within it are noise.
    pub noise_pct: f64,
    /// Each parameter with an effect or a note, largest effect first (ties by name).
    pub effects: Vec<Effect>,
    /// Parameters that moved nothing (zero in the profile, or no change at all).
    pub unmoved: Vec<String>,
}

/// The metric of a run.
pub fn metric(r: &RunResult, name: &str) -> Result<f64, String> {
    Ok(match name {
        "time_us" => r.time_us,
        "cycles" => r.cycles as f64,
        "kernel_time_us" => r.kernel_time_us,
        "ipc" => r.ipc,
        "tflops" => r.tflops.ok_or("the kernel declares no flops")?,
        "gbps" => r.gbps.ok_or("the kernel declares no bytes")?,
        other => {
            return Err(format!(
                "no metric `{other}`; choose time_us, cycles, kernel_time_us, ipc, tflops or gbps"
            ));
        }
    })
}

fn mean_of(s: &Setup, p: &Profile) -> Result<(f64, f64, f64), String> {
    let mut v = Vec::new();
    for &seed in &s.seeds {
        let cfg = RunConfig {
            seed,
            ..s.config.clone()
        };
        let r = sim_core::run(&s.kernel, p, &cfg).map_err(|e| format!("seed {seed}: {e}"))?;
        v.push(metric(&r, &s.metric)?);
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Ok((mean, lo, hi))
}

/// A value moved by `factor`, as the parameter takes it: whole-number parameters are
/// rounded, and moved by one where rounding would leave them unchanged.
fn moved(p: &Profile, name: &str, base: f64, factor: f64) -> Result<(Profile, f64), String> {
    let mut v = base * factor;
    let mut prof = p.clone();
    if prof.set(name, v).is_err() {
        v = v.round();
        if v == base {
            v = if factor > 1.0 { base + 1.0 } else { base - 1.0 };
        }
        prof = p.clone();
        prof.set(name, v).map_err(|e| e.to_string())?;
    }
    Ok((prof, v))
}

/// Runs the study: the base, then every parameter down and up, in parallel.
pub fn run(s: &Setup) -> Result<Sensitivity, String> {
    if s.seeds.is_empty() {
        return Err("no seeds".into());
    }
    if !(s.delta > 0.0 && s.delta < 1.0) {
        return Err(format!(
            "--delta {}: the step is a fraction between 0 and 1 (such as 10%)",
            s.delta
        ));
    }
    let (base, lo, hi) = mean_of(s, &s.profile)?;
    let names: Vec<(String, f64)> = s
        .profile
        .file
        .params
        .iter()
        .map(|(k, e)| (k.clone(), e.value))
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(s.jobs)
        .build()
        .map_err(|e| e.to_string())?;
    let results: Vec<Result<Effect, String>> = pool.install(|| {
        names
            .par_iter()
            .map(|(name, value)| {
                let mut change = [None, None];
                let mut tried = [*value, *value];
                let mut notes = Vec::new();
                if *value == 0.0 {
                    return Ok(Effect {
                        parameter: name.clone(),
                        base: *value,
                        tried: (0.0, 0.0),
                        change: (Some(0.0), Some(0.0)),
                        note: Some("zero in the profile: a relative step moves nothing".into()),
                    });
                }
                for (i, factor) in [1.0 - s.delta, 1.0 + s.delta].into_iter().enumerate() {
                    match moved(&s.profile, name, *value, factor) {
                        Ok((p, v)) => {
                            tried[i] = v;
                            match mean_of(s, &p) {
                                Ok((m, _, _)) => change[i] = Some((m - base) / base * 100.0),
                                Err(e) => notes.push(format!("at {v}: {e}")),
                            }
                        }
                        Err(e) => {
                            // No value on this side: the table shows `-`.
                            tried[i] = f64::NAN;
                            notes.push(e);
                        }
                    }
                }
                Ok(Effect {
                    parameter: name.clone(),
                    base: *value,
                    tried: (tried[0], tried[1]),
                    change: (change[0], change[1]),
                    note: (!notes.is_empty()).then(|| notes.join("; ")),
                })
            })
            .collect()
    });
    let mut effects = Vec::new();
    let mut unmoved = Vec::new();
    for r in results {
        let e = r?;
        if e.size() == 0.0 && e.note.as_deref().is_none_or(|n| n.starts_with("zero")) {
            unmoved.push(e.parameter);
        } else {
            effects.push(e);
        }
    }
    effects.sort_by(|a, b| {
        b.size()
            .total_cmp(&a.size())
            .then_with(|| a.parameter.cmp(&b.parameter))
    });
    Ok(Sensitivity {
        name: s.name.clone(),
        metric: s.metric.clone(),
        base,
        noise_pct: (hi - lo) / base * 100.0,
        effects,
        unmoved,
    })
}

impl Sensitivity {
    /// The tornado chart of the `top` largest effects.
    pub fn tornado(&self, top: usize, delta: f64) -> Tornado {
        Tornado {
            title: format!(
                "{}: {} when each profile parameter moves ±{}%",
                self.name,
                self.metric,
                fmt_pct(delta * 100.0)
            ),
            metric: self.metric.clone(),
            rows: self
                .effects
                .iter()
                .filter(|e| e.size() > 0.0)
                .take(top)
                .map(|e| {
                    (
                        e.parameter.clone(),
                        e.change.0.unwrap_or(0.0),
                        e.change.1.unwrap_or(0.0),
                    )
                })
                .collect(),
        }
    }

    /// The table: every parameter with an effect, largest first, and those that moved
    /// nothing.
    pub fn table(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{}: {} = {} at the profile's values; the seeds' spread is {:.2}% (changes within it are noise)\n",
            self.name,
            self.metric,
            crate::chart::fmt_num(self.base),
            self.noise_pct
        );
        let _ = writeln!(
            s,
            "  {:<30} {:>12} {:>12} {:>9} {:>12} {:>9}",
            "parameter", "value", "down to", "change", "up to", "change"
        );
        let pct = |c: Option<f64>| c.map_or("-".to_string(), |v| format!("{v:+.2}%"));
        let val = |v: f64| {
            if v.is_nan() {
                "-".to_string()
            } else {
                crate::chart::fmt_num(v)
            }
        };
        for e in &self.effects {
            let _ = writeln!(
                s,
                "  {:<30} {:>12} {:>12} {:>9} {:>12} {:>9}{}",
                e.parameter,
                crate::chart::fmt_num(e.base),
                val(e.tried.0),
                pct(e.change.0),
                val(e.tried.1),
                pct(e.change.1),
                if e.size() > 0.0 && e.size() <= self.noise_pct {
                    "  (within noise)"
                } else {
                    ""
                }
            );
            if let Some(n) = &e.note {
                let _ = writeln!(s, "  {:<30} {n}", "");
            }
        }
        if !self.unmoved.is_empty() {
            let _ = writeln!(
                s,
                "\n  no effect ({}): {}",
                self.unmoved.len(),
                self.unmoved.join(", ")
            );
        }
        s
    }
}

fn fmt_pct(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}
