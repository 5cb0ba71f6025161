//! Runs every schedule of a family on the same parameters and puts them side by side,
//! with an explanation derived from this run's stall accounting.

use serde::Serialize;
use sim_core::{Profile, RunConfig, RunResult, WarpState};

use crate::{family, resolve_params};

#[derive(Clone, Debug, Serialize)]
pub struct RoleRow {
    pub role: String,
    pub warps_per_cta: u32,
    pub instructions: u64,
    /// Share of the role's warp-cycles spent issuing (`selected`).
    pub issue_share: f64,
    /// The three largest stall states (everything but `selected`), as shares of the
    /// role's warp-cycles.
    pub top_stalls: Vec<(String, f64)>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ScheduleRow {
    pub schedule: String,
    pub description: String,
    /// Set when the schedule could not be built or run; the numbers are then zero.
    pub error: Option<String>,
    pub cycles: u64,
    pub time_us: f64,
    pub kernel_time_us: f64,
    pub tflops: Option<f64>,
    pub gbps: Option<f64>,
    /// Kernel time of the slowest schedule over this one's.
    pub speedup: f64,
    pub tensor: f64,
    pub tma: f64,
    pub mufu: f64,
    pub fma: f64,
    pub roles: Vec<RoleRow>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub family: String,
    pub profile: String,
    pub params: Vec<(String, i64)>,
    pub rows: Vec<ScheduleRow>,
    pub explanation: Vec<String>,
}

/// Runs every schedule of `family` (in parallel threads) and compares them.
pub fn compare(
    family_name: &str,
    overrides: &[(String, i64)],
    profile: &Profile,
    cfg: &RunConfig,
) -> Result<Comparison, String> {
    let f = family(family_name)?;
    let params = resolve_params(f, overrides)?;
    let results: Vec<Result<RunResult, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = f
            .schedules
            .iter()
            .map(|sch| {
                let params = &params;
                s.spawn(move || {
                    let k = (f.build)(sch.name, params)?;
                    sim_core::run(&k, profile, cfg).map_err(|e| e.to_string())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("the run panicked".into())))
            .collect()
    });
    let mut rows: Vec<ScheduleRow> = f
        .schedules
        .iter()
        .zip(results.iter())
        .map(|(sch, r)| row(sch.name, sch.description, r))
        .collect();
    let slowest = rows
        .iter()
        .filter(|r| r.error.is_none())
        .map(|r| r.kernel_time_us)
        .fold(0.0, f64::max);
    for r in rows.iter_mut().filter(|r| r.error.is_none()) {
        r.speedup = if r.kernel_time_us > 0.0 {
            slowest / r.kernel_time_us
        } else {
            0.0
        };
    }
    let explanation = explain(&rows);
    Ok(Comparison {
        family: f.name.to_string(),
        profile: profile.name().to_string(),
        params: params.0.into_iter().collect(),
        rows,
        explanation,
    })
}

fn row(name: &str, description: &str, r: &Result<RunResult, String>) -> ScheduleRow {
    let mut out = ScheduleRow {
        schedule: name.into(),
        description: description.into(),
        error: None,
        cycles: 0,
        time_us: 0.0,
        kernel_time_us: 0.0,
        tflops: None,
        gbps: None,
        speedup: 0.0,
        tensor: 0.0,
        tma: 0.0,
        mufu: 0.0,
        fma: 0.0,
        roles: vec![],
    };
    let r = match r {
        Ok(r) => r,
        Err(e) => {
            out.error = Some(e.clone());
            return out;
        }
    };
    out.cycles = r.cycles;
    out.time_us = r.time_us;
    out.kernel_time_us = r.kernel_time_us;
    out.tflops = r.tflops;
    out.gbps = r.gbps;
    out.tensor = r.unit("tensor");
    out.tma = r.unit("tma");
    out.mufu = r.unit("mufu");
    out.fma = r.unit("fma");
    out.roles = r
        .roles
        .iter()
        .filter(|ro| ro.states.total() > 0)
        .map(|ro| {
            let total = ro.states.total().max(1) as f64;
            RoleRow {
                role: ro.name.clone(),
                warps_per_cta: ro.warps_per_cta,
                instructions: ro.instructions,
                issue_share: ro.states.get(WarpState::Selected) as f64 / total,
                top_stalls: ro
                    .states
                    .ranked()
                    .into_iter()
                    .filter(|(s, _)| *s != WarpState::Selected)
                    .take(3)
                    .map(|(s, c)| (s.name().to_string(), c as f64 / total))
                    .collect(),
            }
        })
        .collect();
    out
}

/// What a stall state means for a schedule, in a few words.
fn gloss(state: &str) -> &'static str {
    match state {
        "gmma" => "waiting on their own wgmma groups (WARPGROUP.DEPBAR / ARRIVE)",
        "sleeping" => "blocked in mbarrier try-wait (data or a free stage not there yet)",
        "long_scoreboard" => "waiting on global/local memory loads",
        "lg_throttle" => "held back by a full LSU queue (local/global traffic)",
        "short_scoreboard" => "waiting on MUFU or shared-memory results",
        "mio_throttle" => "held back by a full MIO queue (shared memory, MUFU)",
        "math_pipe_throttle" => "waiting for a busy math pipe",
        "barrier" => "waiting at a named barrier / BAR.SYNC",
        "wait" => "in fixed-latency dependency waits",
        "not_selected" => "eligible but another warp issued",
        "drain" => "draining stores before exit",
        "membar" => "waiting on memory fences",
        _ => "stalled",
    }
}

/// The role that does the family's work: the one that issued the most instructions.
fn main_role(r: &ScheduleRow) -> Option<&RoleRow> {
    r.roles.iter().max_by_key(|ro| ro.instructions)
}

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

fn explain(rows: &[ScheduleRow]) -> Vec<String> {
    let mut out = vec![];
    for r in rows.iter().filter(|r| r.error.is_some()) {
        out.push(format!(
            "{} did not finish: {}",
            r.schedule,
            r.error.as_deref().unwrap_or("")
        ));
    }
    let ok: Vec<&ScheduleRow> = rows.iter().filter(|r| r.error.is_none()).collect();
    if ok.len() < 2 {
        return out;
    }
    let fastest = ok
        .iter()
        .copied()
        .min_by(|a, b| a.kernel_time_us.total_cmp(&b.kernel_time_us))
        .unwrap();
    let slowest = ok
        .iter()
        .copied()
        .max_by(|a, b| a.kernel_time_us.total_cmp(&b.kernel_time_us))
        .unwrap();
    out.push(format!(
        "{} is fastest: {:.2}x the slowest, {} ({} vs {} cycles on the simulated SM).",
        fastest.schedule, fastest.speedup, slowest.schedule, fastest.cycles, slowest.cycles
    ));
    // The unit whose utilisation differs most between fastest and slowest.
    let units = [
        ("tensor pipe", fastest.tensor, slowest.tensor),
        ("TMA", fastest.tma, slowest.tma),
        ("MUFU", fastest.mufu, slowest.mufu),
        ("FMA pipe", fastest.fma, slowest.fma),
    ];
    if let Some((u, a, b)) = units
        .iter()
        .copied()
        .max_by(|x, y| (x.1 - x.2).abs().total_cmp(&(y.1 - y.2).abs()))
        && (a - b).abs() >= 0.02
    {
        {
            out.push(format!(
                "{} keeps the {u} {} busy; {} keeps it {} busy.",
                fastest.schedule,
                pct(a),
                slowest.schedule,
                pct(b)
            ));
        }
    }
    // Each schedule's main role: its largest stall, compared with the fastest's share of it.
    let fast_main = main_role(fastest);
    for r in &ok {
        let Some(m) = main_role(r) else { continue };
        let Some((state, share)) = m.top_stalls.first() else {
            continue;
        };
        let mut line = format!(
            "{}'s {} warps spend {} of their cycles in {} ({}), and issue in {}",
            r.schedule,
            m.role,
            pct(*share),
            state,
            gloss(state),
            pct(m.issue_share)
        );
        if r.schedule != fastest.schedule
            && let Some(fm) = fast_main
        {
            {
                let fs = fm.top_stalls.iter().find(|(s, _)| s == state).map(|x| x.1);
                match fs {
                    Some(fs) => line.push_str(&format!(
                        "; {}'s {} warps: {} there",
                        fastest.schedule,
                        fm.role,
                        pct(fs)
                    )),
                    None => line.push_str(&format!(
                        "; {} is not among {}'s top stalls",
                        state, fastest.schedule
                    )),
                }
            }
        }
        line.push('.');
        out.push(line);
    }
    out
}
