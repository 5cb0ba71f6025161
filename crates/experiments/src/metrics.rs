//! A point's row: its axis values and what its runs measured, one cell per column. With
//! several seeds a metric is their mean, and the headline metrics carry `_min` and
//! `_max` (the noise band charts draw).

use sim_core::result::RunResult;
use sim_core::{Profile, WarpState};

use crate::plan::{Plan, Point};

/// One cell of a row.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Missing: a failed point's metrics, a kernel without that parameter or role.
    Null,
    /// An integer.
    Int(i64),
    /// A number.
    Float(f64),
    /// Text.
    Text(String),
}

impl Cell {
    /// The cell as a number, if it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Cell::Int(i) => Some(*i as f64),
            Cell::Float(f) => Some(*f),
            Cell::Text(t) => t.parse().ok(),
            Cell::Null => None,
        }
    }

    /// The cell as text for labels (numbers as written in the file).
    pub fn label(&self) -> String {
        match self {
            Cell::Null => String::new(),
            Cell::Int(i) => i.to_string(),
            Cell::Float(f) => crate::table::format_float(*f),
            Cell::Text(t) => t.clone(),
        }
    }
}

/// Metrics that carry a seed band (`_min`, `_max`) beside their mean.
pub const BANDED: &[&str] = &[
    "cycles",
    "time_us",
    "kernel_time_us",
    "tflops",
    "gbps",
    "ipc",
];

/// Metrics with their mean only.
pub const PLAIN: &[&str] = &[
    "hbm_gbps",
    "instructions",
    "regs",
    "smem",
    "ctas_per_sm",
    "occupancy",
];

/// The units whose busy share a run reports (README, `smsim run --json`'s `units`); a
/// test checks that a run reports exactly these.
pub const UNITS: &[&str] = &[
    "fma",
    "alu",
    "fp64",
    "mufu",
    "tensor",
    "tma",
    "l2_bandwidth",
];

/// The output's columns for these axes and roles.
pub fn columns(param_axes: &[String], set_axes: &[String], roles: &[String]) -> Vec<String> {
    let mut c: Vec<String> = ["point", "points", "spec", "kernel", "profile", "policy"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    c.extend(param_axes.iter().map(|a| format!("param.{a}")));
    c.extend(set_axes.iter().map(|a| format!("set.{a}")));
    c.push("seeds".into());
    c.push("error".into());
    for m in BANDED {
        c.push(m.to_string());
        c.push(format!("{m}_min"));
        c.push(format!("{m}_max"));
    }
    c.extend(PLAIN.iter().map(|s| s.to_string()));
    c.extend(UNITS.iter().map(|u| format!("unit.{u}")));
    c.extend(WarpState::ALL.iter().map(|s| format!("state.{}", s.name())));
    for r in roles {
        c.extend(
            WarpState::ALL
                .iter()
                .map(|s| format!("role.{r}.{}", s.name())),
        );
    }
    c
}

/// The error of a point: which seed failed and why.
pub type PointError = String;

/// A point's row from its runs (one per seed, in the plan's seed order), or its error.
pub fn row(plan: &Plan, p: &Point, runs: &Result<Vec<RunResult>, PointError>) -> Vec<Cell> {
    let mut r: Vec<Cell> = vec![
        Cell::Int(p.index as i64),
        Cell::Int(plan.points.len() as i64),
        Cell::Text(plan.id.clone()),
        Cell::Text(p.kernel.clone()),
        Cell::Text(p.profile.clone()),
        Cell::Text(p.policy.name().to_string()),
    ];
    r.extend(p.params.iter().map(|v| v.map_or(Cell::Null, Cell::Int)));
    r.extend(p.sets.iter().map(|v| v.map_or(Cell::Null, Cell::Float)));
    let seeds: Vec<String> = plan.seeds.iter().map(|s| s.to_string()).collect();
    r.push(Cell::Text(seeds.join(" ")));
    let runs = match runs {
        Ok(runs) => runs,
        Err(e) => {
            r.push(Cell::Text(e.clone()));
            r.resize(plan.columns.len(), Cell::Null);
            return r;
        }
    };
    r.push(Cell::Null);
    let banded = |f: &dyn Fn(&RunResult) -> Option<f64>| -> [Cell; 3] {
        let v: Vec<f64> = runs.iter().filter_map(f).collect();
        if v.len() != runs.len() || v.is_empty() {
            return [Cell::Null, Cell::Null, Cell::Null];
        }
        [
            Cell::Float(v.iter().sum::<f64>() / v.len() as f64),
            Cell::Float(v.iter().copied().fold(f64::INFINITY, f64::min)),
            Cell::Float(v.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
        ]
    };
    let mean = |f: &dyn Fn(&RunResult) -> f64| -> Cell {
        Cell::Float(runs.iter().map(f).sum::<f64>() / runs.len() as f64)
    };
    r.extend(banded(&|x| Some(x.cycles as f64)));
    r.extend(banded(&|x| Some(x.time_us)));
    r.extend(banded(&|x| Some(x.kernel_time_us)));
    r.extend(banded(&|x| x.tflops));
    r.extend(banded(&|x| x.gbps));
    r.extend(banded(&|x| Some(x.ipc)));
    r.push(mean(&|x| x.hbm_gbps));
    r.push(mean(&|x| x.instructions as f64));
    let k = p.built.as_ref().expect("a point that ran was built");
    r.push(Cell::Int(i64::from(k.launch.regs)));
    r.push(Cell::Int(i64::from(k.launch.smem)));
    r.push(mean(&|x| f64::from(x.occupancy.ctas_per_sm)));
    r.push(mean(&|x| x.occupancy.occupancy));
    for u in UNITS {
        r.push(mean(&|x| x.unit(u)));
    }
    for s in WarpState::ALL {
        r.push(mean(&|x| {
            let t = x.total_states();
            t.get(s) as f64 / t.total().max(1) as f64
        }));
    }
    for role in &plan.roles {
        let present = runs.iter().all(|x| x.role(role).is_some());
        for s in WarpState::ALL {
            r.push(if present {
                mean(&|x| {
                    let st = &x.role(role).expect("checked above").states;
                    st.get(s) as f64 / st.total().max(1) as f64
                })
            } else {
                Cell::Null
            });
        }
    }
    debug_assert_eq!(r.len(), plan.columns.len());
    r
}

/// The profile a point runs on: its base with the point's overrides.
pub fn point_profile(plan: &Plan, p: &Point) -> Result<Profile, String> {
    let mut prof = plan.profiles[&p.profile].clone();
    for (k, v) in &p.overrides {
        prof.set(k, *v).map_err(|e| format!("set {k}={v}: {e}"))?;
    }
    Ok(prof)
}
