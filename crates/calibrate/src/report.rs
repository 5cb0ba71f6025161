//! `calibrate report`: simulated against measured for every microbenchmark (through its
//! twin) and every validation kernel, per-group mean absolute percentage error, the worst
//! case, the ranking of the measured configurations, Nsight Compute's warp-state ratios
//! against the simulator's, and a scatter plot (SVG and PNG).
//!
//! `report.md` and `report.json` are deterministic: `--check` recomputes them and fails
//! when the committed ones differ.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;
use sim_core::{Profile, WarpState};

use crate::fit::targets;
use crate::schema::Measurement;
use crate::twins::untwinned;
use crate::validation::{
    GemmCase, VCase, cases, gemm_cases, ncu_gemm_pipe4_cta1, ncu_ratios, simulate, simulate_gemm,
};

pub mod gaps;
mod input;
mod rank;
mod scatter;
pub use input::{SetAside, ValidationInput, ValidationRun};
use rank::Tally;
pub use rank::{RankMiss, Ranking, TIE};

#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub bench: String,
    pub group: String,
    pub measured: f64,
    pub simulated: f64,
    pub err_pct: f64,
    /// The benchmark's spread over GPUs (microbenchmarks measured on a committed GPU).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub band: Option<Band>,
    /// A validation kernel's spread over the validation runs (GPUs) that measured it,
    /// when more than one run is read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<Spread>,
}

/// A validation kernel's measured values over the runs (GPUs) the rankings read.
#[derive(Clone, Debug, Serialize)]
pub struct Spread {
    /// Runs that measured it.
    pub runs: usize,
    pub lowest: f64,
    pub highest: f64,
}

impl Spread {
    fn of(values: &[Option<f64>]) -> Option<Spread> {
        let v: Vec<f64> = values.iter().flatten().copied().collect();
        (v.len() > 1).then(|| Spread {
            runs: v.len(),
            lowest: r2(v.iter().copied().fold(f64::INFINITY, f64::min)),
            highest: r2(v.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
        })
    }
}

/// A microbenchmark's measured spread over GPUs and whether the model is in band: inside
/// the spread or within 3% of the measured value, whichever is wider.
#[derive(Clone, Debug, Serialize)]
pub struct Band {
    /// GPUs whose value makes the spread (the committed collects' GPUs, the scored
    /// measurement's value included).
    pub gpus: usize,
    /// The lowest GPU's value.
    pub lowest: f64,
    /// The highest GPU's value.
    pub highest: f64,
    /// Whether the model is in band.
    pub in_band: bool,
    /// The same read strictly, as a newcomer is judged: the spread of the other GPUs only
    /// (the scored GPU's own value, and the scored measurement, left out of it), and that
    /// spread alone where it is wider than +-3% of the measured value, else +-3%
    /// ([`crate::across::in_band_strict`]).
    pub in_band_strict: bool,
}

/// Each benchmark's per-GPU values over the committed collects (its median on each GPU),
/// keyed by the GPU's UUID.
pub type Spreads = BTreeMap<String, Vec<(String, f64)>>;

/// The per-GPU values of every benchmark the committed median fit reads
/// ([`crate::across::median_data`]): the spreads a report's band uses.
pub fn committed_spreads() -> Result<Spreads, String> {
    let (m, _) = crate::across::median_data(&crate::workspace_path(crate::DATA_DIR), None)?;
    Ok(m.benchmarks
        .iter()
        .map(|b| (b.name.clone(), crate::across::per_gpu_keyed(b)))
        .filter(|(_, v)| !v.is_empty())
        .collect())
}

/// The band of a model value `sim` against `measured`, with the GPUs' `values` (the
/// measured value joins the spread: it may come from a GPU outside the committed set).
/// `scored_gpu` is the UUID of the GPU the measurement came from, if known: the strict
/// reading leaves its value out.
fn band_of(
    values: Option<&Vec<(String, f64)>>,
    measured: f64,
    sim: f64,
    scored_gpu: Option<&str>,
) -> Option<Band> {
    let v = values?;
    let lowest = v.iter().map(|x| x.1).fold(measured, f64::min);
    let highest = v.iter().map(|x| x.1).fold(measured, f64::max);
    let others: Vec<f64> = v
        .iter()
        .filter(|(g, _)| Some(g.as_str()) != scored_gpu)
        .map(|x| x.1)
        .collect();
    let in_band_strict = if others.is_empty() {
        ((sim - measured) / measured).abs() <= 0.03
    } else {
        let lo = others.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = others.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        crate::across::in_band_strict(sim, measured, lo, hi)
    };
    Some(Band {
        gpus: v.len(),
        lowest: r2(lowest),
        highest: r2(highest),
        in_band: crate::across::in_band(sim, measured, lowest, highest),
        in_band_strict,
    })
}

/// The GPU a measurement file was collected on: the UUID in the `.env.txt` beside it.
fn scored_gpu(data_file: &str) -> Option<String> {
    let env = Path::new(data_file).with_extension("env.txt");
    crate::across::gpu_uuid(&std::fs::read_to_string(env).ok()?)
}

#[derive(Clone, Debug, Serialize)]
pub struct Group {
    pub group: String,
    pub n: usize,
    pub mape_pct: f64,
    pub worst_pct: f64,
    pub worst_bench: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct StateRow {
    pub kernel: String,
    pub warps: u32,
    pub reason: String,
    pub measured: f64,
    pub simulated: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub data_file: String,
    pub validation_file: String,
    /// The validation runs the rankings read (the scored one first): file and GPU UUID
    /// (when its `.env.txt` is known).
    pub validation_runs: Vec<(String, Option<String>)>,
    pub profile: String,
    pub profile_validated: bool,
    /// The clock the gemm-mainloop twins run at: the profile's `clock_mhz_tensor_uniform`
    /// (their operands are near-constant).
    pub profile_clock_mhz: f64,
    pub micro_overall: Group,
    pub micro_within_3pct: usize,
    /// Microbenchmarks in band ([`Band`]; within 3% where no spread is known).
    pub micro_in_band: usize,
    /// The same read strictly ([`Band::in_band_strict`]: the scored GPU's own value out
    /// of the spread, the spread alone where wider than +-3%).
    pub micro_in_band_strict: usize,
    pub micro_groups: Vec<Group>,
    pub micro: Vec<Row>,
    pub untwinned: Vec<(String, f64, String)>,
    pub validation_overall: Group,
    pub validation_groups: Vec<Group>,
    pub validation: Vec<Row>,
    pub ranking: Ranking,
    /// The gemm-mainloop schedules, ranked within each (PIPE, grid).
    pub schedule_ranking: Ranking,
    /// The library kernels' configurations (TMA streaming: schedule and load stages;
    /// singe-viscosity: schedule), ranked within each family, size and grid.
    pub library_ranking: Ranking,
    pub warp_states: Vec<StateRow>,
    pub not_measured: Vec<String>,
    /// Validation repetitions set aside as spread out (run file, repetition;
    /// `input::spread_out_reps`); the committed runs predate the CTA spreads, so none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub validation_set_aside: Vec<(String, input::SetAside)>,
    /// The gemm-mainloop validation kernels simulated at the SM clock each one ran at
    /// (its cycles over its %globaltimer span) instead of the profile's `clock_mhz`: a
    /// diagnostic of how much of their error is the clock's (memory rates are per
    /// nanosecond, so the clock sets the bytes per cycle). Never the headline.
    pub gemm_at_measured_clock: Vec<Group>,
    /// The clocks those kernels ran at, lowest and highest, in MHz.
    pub gemm_measured_clock_mhz: (f64, f64),
    /// "What the largest errors say about the model": `report/gaps.md` with this
    /// profile's parameter values ([`gaps::section`]). Prose, so not in report.json.
    #[serde(skip)]
    pub gaps: String,
}

/// The SM clock a validation kernel ran at: the median over launches of its slowest
/// CTA's cycles over the launch's %globaltimer span, in MHz (None without both).
pub fn measured_clock_mhz(b: &crate::schema::Benchmark) -> Option<f64> {
    let cycles: Vec<f64> = b
        .extra
        .get("max_cta_cycles")?
        .as_array()?
        .iter()
        .filter_map(serde_json::Value::as_f64)
        .collect();
    let ns: Vec<f64> = b
        .extra
        .get("wall")?
        .as_array()?
        .iter()
        .filter_map(|w| w.get("globaltimer_ns").and_then(serde_json::Value::as_f64))
        .collect();
    let (c, t) = (crate::schema::median(&cycles)?, crate::schema::median(&ns)?);
    (t > 0.0).then(|| c / t * 1000.0)
}

fn r2(x: f64) -> f64 {
    if x.is_finite() {
        (x * 100.0).round() / 100.0
    } else {
        x
    }
}

fn err(sim: f64, meas: f64) -> f64 {
    r2((sim - meas) / meas * 100.0)
}

fn group_of(rows: &[Row], name: &str) -> Group {
    let n = rows.len();
    let mape = rows.iter().map(|r| r.err_pct.abs()).sum::<f64>() / n.max(1) as f64;
    let w = rows
        .iter()
        .max_by(|a, b| a.err_pct.abs().total_cmp(&b.err_pct.abs()));
    Group {
        group: name.into(),
        n,
        mape_pct: r2(mape),
        worst_pct: w.map(|r| r.err_pct).unwrap_or(0.0),
        worst_bench: w.map(|r| r.bench.clone()).unwrap_or_default(),
    }
}

fn groups(rows: &[Row]) -> Vec<Group> {
    let mut by: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for r in rows {
        by.entry(r.group.clone()).or_default().push(r.clone());
    }
    by.iter().map(|(g, rs)| group_of(rs, g)).collect()
}

/// Pairs of configurations the runs order (every run more than 2% apart, the same way;
/// ties otherwise: [`rank`]) and whether the simulator agrees: along WARPS for each
/// (level, K), along K for each (level, WARPS).
fn ranking(v: &[(VCase, Vec<Option<f64>>, f64)]) -> Ranking {
    let mut t = Tally::default();
    for (i, a) in v.iter().enumerate() {
        for b in &v[i + 1..] {
            let same_series = a.0.l1 == b.0.l1 && (a.0.k == b.0.k || a.0.warps == b.0.warps);
            if same_series {
                t.add((&a.0.bench, &a.1, a.2), (&b.0.bench, &b.1, b.2));
            }
        }
    }
    t.ranking("latency-hiding has one schedule; ranked here: every pair of configurations in one series (same level and K, or same level and WARPS) ")
}

/// Pairs of gemm-mainloop schedules (plain kernels, same PIPE and grid): orderings and
/// ties as the runs measure them ([`rank`]), and whether the simulator agrees.
fn schedule_ranking(v: &[(GemmCase, Vec<Option<f64>>, f64)]) -> Ranking {
    let mut t = Tally::default();
    let plain: Vec<&(GemmCase, Vec<Option<f64>>, f64)> = v.iter().filter(|x| !x.0.fenced).collect();
    for (i, a) in plain.iter().enumerate() {
        for b in &plain[i + 1..] {
            if a.0.pipe == b.0.pipe && a.0.shape() == b.0.shape() {
                t.add((&a.0.bench, &a.1, a.2), (&b.0.bench, &b.1, b.2));
            }
        }
    }
    t.ranking("gemm-mainloop: every pair of schedules (static-v1, static-v2, ws, ws-wait1; the kernels as ptxas compiled them) at the same PIPE and shape")
}

/// Pairs of library-kernel configurations in one series (family, size, grid): orderings
/// and ties as the runs measure them ([`rank`]).
fn library_ranking(v: &[(crate::library::LibraryCase, Vec<Option<f64>>, f64)]) -> Ranking {
    let mut t = Tally::default();
    for (i, a) in v.iter().enumerate() {
        for b in &v[i + 1..] {
            if a.0.series() == b.0.series() {
                t.add((&a.0.bench, &a.1, a.2), (&b.0.bench, &b.1, b.2));
            }
        }
    }
    t.ranking("library kernels: every pair of configurations at the same size and grid (elementwise-add: tma-pipelined and warp-specialized with 2 or 3 load stages, per tile; singe-viscosity: data-parallel and warp-specialized, per species count)")
}

/// Computes the report (no files) against the committed validation measurements.
pub fn compute(
    m: &Measurement,
    data_file: &str,
    spreads: &Spreads,
    p: &Profile,
) -> Result<Report, String> {
    compute_with(m, data_file, spreads, &ValidationInput::committed()?, p)
}

/// Computes the report (no files) against the validation measurements `val`. One pass
/// over the microbenchmarks, the validation kernels and Nsight's ratios, in the order
/// the report shows them.
pub fn compute_with(
    m: &Measurement,
    data_file: &str,
    spreads: &Spreads,
    val: &ValidationInput,
    p: &Profile,
) -> Result<Report, String> {
    let ts = targets(m);
    let scored = scored_gpu(data_file);
    let vals: Vec<Result<f64, String>> = ts.par_iter().map(|t| t.twin.eval(p)).collect();
    let mut micro = Vec::new();
    for (t, v) in ts.iter().zip(vals) {
        let v = v.map_err(|e| format!("{}: {e}", t.twin.bench))?;
        micro.push(Row {
            bench: t.twin.bench.clone(),
            group: t.twin.group.into(),
            measured: r2(t.measured),
            simulated: r2(v),
            err_pct: err(v, t.measured),
            band: band_of(spreads.get(&t.twin.bench), t.measured, v, scored.as_deref()),
            spread: None,
        });
    }
    let twinned: Vec<&str> = ts.iter().map(|t| t.twin.bench.as_str()).collect();
    let untw: Vec<(String, f64, String)> = m
        .benchmarks
        .iter()
        .filter(|b| !twinned.contains(&b.name.as_str()))
        .map(|b| {
            (
                b.name.clone(),
                r2(b.median),
                untwinned(&b.name).unwrap_or("no twin yet").to_string(),
            )
        })
        .collect();

    let vm = &val.measurement;
    // each kernel's value in every run the rankings read
    let per_run = |bench: &str| -> Vec<Option<f64>> {
        val.runs
            .iter()
            .map(|r| r.values.get(bench).copied())
            .collect()
    };
    let vc = cases(vm);
    let sims: Vec<Result<(f64, sim_core::RunResult), String>> =
        vc.par_iter().map(|(c, _)| simulate(c, p)).collect();
    let mut validation = Vec::new();
    let mut triples = Vec::new();
    let mut runs: BTreeMap<(String, u32), sim_core::RunResult> = BTreeMap::new();
    for ((c, meas), s) in vc.iter().zip(sims) {
        let (v, run) = s.map_err(|e| format!("{}: {e}", c.bench))?;
        let level = if c.l1 {
            "latency-hiding L1"
        } else {
            "latency-hiding L2"
        };
        validation.push(Row {
            bench: c.bench.clone(),
            group: level.into(),
            measured: r2(*meas),
            simulated: r2(v),
            err_pct: err(v, *meas),
            band: None,
            spread: Spread::of(&per_run(&c.bench)),
        });
        triples.push((c.clone(), per_run(&c.bench), v));
        let func = format!("vh_chase_{}_k{}", if c.l1 { "l1" } else { "l2" }, c.k);
        runs.insert((func, c.warps), run);
    }
    let gc = gemm_cases(vm);
    let gsims: Vec<Result<(f64, sim_core::RunResult), String>> =
        gc.par_iter().map(|(c, _)| simulate_gemm(c, p)).collect();
    // The same kernels at the clock each ran at (a diagnostic, see Report).
    let clocked: Vec<Result<Option<(f64, f64)>, String>> = gc
        .par_iter()
        .map(|(c, _)| {
            let Some(mhz) = vm.get(&c.bench).and_then(measured_clock_mhz) else {
                return Ok(None);
            };
            let mut q = p.clone();
            q.set("clock_mhz_tensor_uniform", mhz)
                .map_err(|e| e.to_string())?;
            Ok(Some((mhz, simulate_gemm(c, &q)?.0)))
        })
        .collect();
    let mut at_clock = Vec::new();
    let mut clock_range = (f64::INFINITY, f64::NEG_INFINITY);
    let mut gtriples = Vec::new();
    let mut gruns: BTreeMap<String, sim_core::RunResult> = BTreeMap::new();
    for (((c, meas), s), ck) in gc.iter().zip(gsims).zip(clocked) {
        let (v, run) = s.map_err(|e| format!("{}: {e}", c.bench))?;
        let group = if c.grid() == 1 {
            "gemm-mainloop, 1 CTA"
        } else if c.shape().contains("shared") {
            "gemm-mainloop, full chip, one operand shared by all CTAs"
        } else {
            "gemm-mainloop, full chip"
        };
        validation.push(Row {
            bench: c.bench.clone(),
            group: group.into(),
            measured: r2(*meas),
            simulated: r2(v),
            err_pct: err(v, *meas),
            band: None,
            spread: Spread::of(&per_run(&c.bench)),
        });
        if let Some((mhz, v)) = ck.map_err(|e| format!("{}: {e}", c.bench))? {
            clock_range = (clock_range.0.min(mhz), clock_range.1.max(mhz));
            at_clock.push(Row {
                bench: c.bench.clone(),
                group: group.into(),
                measured: r2(*meas),
                simulated: r2(v),
                err_pct: err(v, *meas),
                band: None,
                spread: None,
            });
        }
        gtriples.push((c.clone(), per_run(&c.bench), v));
        if c.pipe == 4 && c.grid() == 1 {
            let kernel = crate::sources::GEMM_SCHEDULES
                .iter()
                .find(|g| g.0 == c.schedule && g.1.ends_with("_fenced") == c.fenced)
                .map(|g| g.1.to_string())
                .unwrap_or_default();
            gruns.insert(kernel, run);
        }
    }
    let sc = crate::library::library_cases(vm);
    let ssims: Vec<Result<(f64, sim_core::RunResult), String>> = sc
        .par_iter()
        .map(|(c, _)| crate::library::simulate_library(c, p))
        .collect();
    let mut striples = Vec::new();
    for ((c, meas), s) in sc.iter().zip(ssims) {
        let (v, _) = s.map_err(|e| format!("{}: {e}", c.bench))?;
        validation.push(Row {
            bench: c.bench.clone(),
            group: c.group(),
            measured: r2(*meas),
            simulated: r2(v),
            err_pct: err(v, *meas),
            band: None,
            spread: Spread::of(&per_run(&c.bench)),
        });
        striples.push((c.clone(), per_run(&c.bench), v));
    }
    let ncu = val.ncu_csv.as_deref().unwrap_or("");
    let mut warp_states = Vec::new();
    for (kernel, warps, reason, meas) in ncu_ratios(ncu) {
        let Some(run) = runs.get(&(kernel.clone(), warps)) else {
            continue;
        };
        let sim = WarpState::ALL
            .iter()
            .find(|s| s.name() == reason)
            .map(|s| {
                run.roles.iter().map(|r| r.states.get(*s)).sum::<u64>() as f64
                    / run.roles.iter().map(|r| r.instructions).sum::<u64>().max(1) as f64
            })
            .unwrap_or(0.0);
        if meas >= 0.05 || sim >= 0.05 {
            warp_states.push(StateRow {
                kernel,
                warps,
                reason,
                measured: r2(meas),
                simulated: r2(sim),
            });
        }
    }
    for (kernel, reason, meas) in ncu_gemm_pipe4_cta1(ncu) {
        let Some(run) = gruns.get(&kernel) else {
            continue;
        };
        let sim = WarpState::ALL
            .iter()
            .find(|s| s.name() == reason)
            .map(|s| {
                run.roles.iter().map(|r| r.states.get(*s)).sum::<u64>() as f64
                    / run.roles.iter().map(|r| r.instructions).sum::<u64>().max(1) as f64
            })
            .unwrap_or(0.0);
        if meas >= 0.05 || sim >= 0.05 {
            let warps = if kernel.starts_with("vg_ws") { 12 } else { 8 };
            warp_states.push(StateRow {
                kernel: format!("{kernel} (PIPE 4, 1 CTA)"),
                warps,
                reason,
                measured: r2(meas),
                simulated: r2(sim),
            });
        }
    }
    Ok(Report {
        data_file: data_file.into(),
        validation_file: val.file.clone(),
        validation_runs: val
            .runs
            .iter()
            .map(|r| (r.file.clone(), r.gpu.clone()))
            .collect(),
        profile: p.file.name.clone(),
        profile_validated: p.file.validated,
        profile_clock_mhz: p.t.clock_mhz_tensor_uniform,
        micro_overall: group_of(&micro, "all microbenchmarks"),
        micro_within_3pct: micro.iter().filter(|r| r.err_pct.abs() <= 3.0).count(),
        micro_in_band: micro
            .iter()
            .filter(|r| {
                r.band
                    .as_ref()
                    .map_or(r.err_pct.abs() <= 3.0, |b| b.in_band)
            })
            .count(),
        micro_in_band_strict: micro
            .iter()
            .filter(|r| {
                r.band
                    .as_ref()
                    .map_or(r.err_pct.abs() <= 3.0, |b| b.in_band_strict)
            })
            .count(),
        micro_groups: groups(&micro),
        micro,
        untwinned: untw,
        validation_overall: group_of(&validation, "all validation kernels"),
        validation_groups: groups(&validation),
        validation,
        ranking: ranking(&triples),
        schedule_ranking: schedule_ranking(&gtriples),
        library_ranking: library_ranking(&striples),
        warp_states,
        gemm_at_measured_clock: groups(&at_clock),
        gemm_measured_clock_mhz: (r2(clock_range.0), r2(clock_range.1)),
        not_measured: vec!["gemm-mainloop as the schedules intend with wait_group 1: ptxas 13.0 serialized the wgmma of the static-v2 and ws-wait1 kernels (C7514; data/validation/README.md), so what was measured, and what their twins run, is the serialized instruction stream".into()],
        validation_set_aside: val.set_aside.clone(),
        gaps: gaps::section(p)?,
    })
}

fn gtable(s: &mut String, gs: &[Group]) {
    s.push_str("| group | n | MAPE % | worst % | worst case |\n|---|---:|---:|---:|---|\n");
    for g in gs {
        let _ = writeln!(
            s,
            "| {} | {} | {:.2} | {:+.2} | `{}` |",
            g.group, g.n, g.mape_pct, g.worst_pct, g.worst_bench
        );
    }
}

/// ", of which N disputed" for a ranking with ties the runs disagree on.
fn disputed(k: &Ranking) -> String {
    if k.ties_disputed == 0 {
        String::new()
    } else {
        format!(" ({} of them disputed)", k.ties_disputed)
    }
}

/// The validation runs, each with its GPU: "(file on GPU-..., ...)".
fn runs_list(runs: &[(String, Option<String>)]) -> String {
    let each: Vec<String> = runs
        .iter()
        .map(|(f, g)| match g {
            Some(g) => format!("`{f}` on {g}"),
            None => format!("`{f}`"),
        })
        .collect();
    format!(" ({})", each.join(", "))
}

/// The markdown report.
pub fn markdown(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Calibration report: simulator against a real H100\n");
    let _ = writeln!(
        s,
        "Generated by `smsim calibrate report` (CI checks it with `--check`). Profile `{}` (validated = {}), microbenchmarks {}{}, validation kernels `data/validation/{}` (never used by the fit). Errors are (simulated - measured) / measured.\n",
        r.profile,
        r.profile_validated,
        if r.data_file == crate::across::median_data_name(None) {
            format!(
                "measured as each benchmark's median over the GPUs of the committed collects (`data/*.json` grouped by the GPU UUID in each `.env.txt`, comparable measurements only, as `across-gpus.md` counts them; the built-in profile is fitted to these medians, so they are in sample: the out-of-sample figures are in `leave-one-gpu-out.md`); a benchmark one GPU alone measured keeps the primary's value, `data/{}`",
                crate::PRIMARY_DATA.rsplit('/').next().unwrap_or_default()
            )
        } else {
            format!("`data/{}`", r.data_file)
        },
        if r.data_file == crate::PRIMARY_DATA.rsplit('/').next().unwrap_or_default()
            || r.data_file == crate::across::median_data_name(None)
        {
            let data = |f: &str| format!("`data/{}`", f.rsplit('/').next().unwrap_or(f));
            let added: Vec<String> = crate::ADDED_DATA
                .iter()
                .map(|(f, b)| format!("; {} from {}", b.join(", "), data(f)))
                .collect();
            format!(
                " (its HBM copy latencies `lat.bulk.hbm.*`, `lat.tma2d.hbm.*`: the 2048 copies of {} pooled, item 5{})",
                crate::HBM_COPY_DATA
                    .iter()
                    .map(|f| data(f))
                    .collect::<Vec<_>>()
                    .join(" and "),
                added.concat()
            )
        } else {
            String::new()
        },
        r.validation_file
    );
    let _ = writeln!(s, "## Summary\n");
    let _ = writeln!(
        s,
        "- Microbenchmarks ({} with a simulated twin): MAPE **{:.2}%**, worst **{:+.2}%** (`{}`), {} of {} within 3%; **{} of {} in band** ({:.1}%: the model inside the benchmark's measured spread over GPUs or within 3%, whichever is wider); read strictly, {} of {} ({:.1}%: the spread of the other GPUs only, without the scored GPU's own value, and that spread alone where it is wider than ±3%).",
        r.micro_overall.n,
        r.micro_overall.mape_pct,
        r.micro_overall.worst_pct,
        r.micro_overall.worst_bench,
        r.micro_within_3pct,
        r.micro_overall.n,
        r.micro_in_band,
        r.micro_overall.n,
        100.0 * r.micro_in_band as f64 / r.micro_overall.n.max(1) as f64,
        r.micro_in_band_strict,
        r.micro_overall.n,
        100.0 * r.micro_in_band_strict as f64 / r.micro_overall.n.max(1) as f64
    );
    let _ = writeln!(
        s,
        "- Validation kernels ({}): MAPE **{:.2}%** (target 10%, goal 5%), worst **{:+.2}%** (`{}`).",
        r.validation_overall.n,
        r.validation_overall.mape_pct,
        r.validation_overall.worst_pct,
        r.validation_overall.worst_bench
    );
    let _ = writeln!(s, "- {}", rank::reading(r.validation_runs.len()));
    let _ = writeln!(
        s,
        "- Ranking: {} of {} measured orderings reproduced ({:.0}%); ties called ties by smsim: {} of {}{}. {}",
        r.ranking.concordant,
        r.ranking.pairs,
        r.ranking.fraction * 100.0,
        r.ranking.ties_called,
        r.ranking.ties,
        disputed(&r.ranking),
        r.ranking.note
    );
    let _ = writeln!(
        s,
        "- Schedule ranking: {} of {} measured orderings reproduced ({:.0}%); ties called ties: {} of {}{}. {}",
        r.schedule_ranking.concordant,
        r.schedule_ranking.pairs,
        r.schedule_ranking.fraction * 100.0,
        r.schedule_ranking.ties_called,
        r.schedule_ranking.ties,
        disputed(&r.schedule_ranking),
        r.schedule_ranking.note
    );
    if r.library_ranking.pairs + r.library_ranking.ties > 0 {
        let _ = writeln!(
            s,
            "- Library-kernel ranking: {} of {} measured orderings reproduced ({:.0}%); ties called ties: {} of {}{}. {}",
            r.library_ranking.concordant,
            r.library_ranking.pairs,
            r.library_ranking.fraction * 100.0,
            r.library_ranking.ties_called,
            r.library_ranking.ties,
            disputed(&r.library_ranking),
            r.library_ranking.note
        );
    }
    for n in &r.not_measured {
        let _ = writeln!(s, "- Not measured: {n}.");
    }
    if !r.validation_set_aside.is_empty() {
        let _ = writeln!(
            s,
            "- Set aside, as spread out (a repetition whose CTAs ended more than {} times its kernel's median end spread apart and more than {} ns beyond it, while most of its repetitions ran together; its kernel's value the median of the others): {}.",
            input::SPREAD_OUT_FACTOR,
            input::SPREAD_OUT_MIN_NS,
            r.validation_set_aside
                .iter()
                .map(|(f, a)| format!(
                    "`{}` repetition {} in {f} ({}, ends {} ns apart against {} ns; median {} -> {})",
                    a.bench, a.rep, a.value, a.end_ns, a.median_end_ns, a.median_before, a.median_after
                ))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    let _ = writeln!(s, "\n![predicted against measured](scatter.png)\n");
    s.push_str(&r.gaps);
    let _ = writeln!(s, "## Microbenchmarks by group\n");
    gtable(&mut s, &r.micro_groups);
    let _ = writeln!(s, "\n## Validation kernels by group\n");
    gtable(&mut s, &r.validation_groups);
    if !r.gemm_at_measured_clock.is_empty() {
        let _ = writeln!(
            s,
            "\nA diagnostic, not the figures above: the gemm-mainloop kernels simulated at the SM clock each ran at ({:.0} to {:.0} MHz: the slowest CTA's cycles over the launch's %globaltimer span) instead of the profile's `clock_mhz_tensor_uniform` ({:.1} MHz, full-chip wgmma with their operands, measured from idle). L2 and HBM move bytes per nanosecond, so the clock sets their bytes per cycle: what moves between the two tables is the clock's share of the error.\n",
            r.gemm_measured_clock_mhz.0, r.gemm_measured_clock_mhz.1, r.profile_clock_mhz
        );
        gtable(&mut s, &r.gemm_at_measured_clock);
    }
    rank::misses_table(
        &mut s,
        &[
            ("configurations", &r.ranking),
            ("schedules", &r.schedule_ranking),
            ("library kernels", &r.library_ranking),
        ],
    );
    let _ = writeln!(
        s,
        "\n## Every microbenchmark\n\nGPUs, lowest, highest: the benchmark's per-GPU values over the committed collects (and the measured value); in band: the model inside that spread or within 3%.\n\n| benchmark | group | measured | simulated | error % | GPUs | lowest | highest | in band |\n|---|---|---:|---:|---:|---:|---:|---:|---|"
    );
    for m in &r.micro {
        let (g, lo, hi, ok) = match &m.band {
            Some(b) => (
                b.gpus.to_string(),
                b.lowest.to_string(),
                b.highest.to_string(),
                b.in_band,
            ),
            None => ("-".into(), "-".into(), "-".into(), m.err_pct.abs() <= 3.0),
        };
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {:+.2} | {g} | {lo} | {hi} | {} |",
            m.bench,
            m.group,
            m.measured,
            m.simulated,
            m.err_pct,
            if ok { "yes" } else { "**no**" }
        );
    }
    let _ = writeln!(
        s,
        "\n## Benchmarks without a twin\n\n| benchmark | measured | why |\n|---|---:|---|"
    );
    for (b, v, why) in &r.untwinned {
        let _ = writeln!(s, "| `{b}` | {v} | {why} |");
    }
    let _ = writeln!(
        s,
        "\n## Every validation kernel (latency-hiding: cycles per iteration; gemm-mainloop: cycles per CTA)\n\nMeasured: `data/validation/{}`; runs, lowest, highest: the kernel's values over the validation runs the rankings read{}.\n\n| kernel | measured | simulated | error % | runs | lowest | highest |\n|---|---:|---:|---:|---:|---:|---:|",
        r.validation_file,
        runs_list(&r.validation_runs)
    );
    for m in &r.validation {
        let (n, lo, hi) = match &m.spread {
            Some(x) => (
                x.runs.to_string(),
                x.lowest.to_string(),
                x.highest.to_string(),
            ),
            None => ("1".into(), "-".into(), "-".into()),
        };
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {:+.2} | {n} | {lo} | {hi} |",
            m.bench, m.measured, m.simulated, m.err_pct
        );
    }
    let _ = writeln!(
        s,
        "\n## Warp states (warps per issued instruction: Nsight Compute against the simulator)\n\nStates where either side is at least 0.05; ncu ran with `--clock-control none` on a quick run (latency-hiding: WARPS 1, 8, 32; gemm-mainloop: PIPE 4, one CTA).\n\n| kernel | warps | state | ncu | simulated |\n|---|---:|---|---:|---:|"
    );
    for w in &r.warp_states {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {} |",
            w.kernel, w.warps, w.reason, w.measured, w.simulated
        );
    }
    s
}

/// What [`run_with`] does with the report it computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// Compare report.md and report.json with those in the folder; write nothing.
    Check,
    /// Write into the folder, replacing the files there (the committed report only).
    Replace,
    /// Create the folder, which must not exist, and write into it.
    NewDir,
}

/// Writes (or, with `check`, compares) report.md and report.json in `dir`, and the
/// plots (not compared: they are drawn from the same numbers), against the committed
/// validation measurements. Returns a summary line.
pub fn run(
    m: &Measurement,
    data_file: &str,
    spreads: &Spreads,
    p: &Profile,
    dir: &Path,
    check: bool,
) -> Result<String, String> {
    let val = ValidationInput::committed()?;
    let mode = if check {
        Output::Check
    } else {
        Output::Replace
    };
    run_with(m, data_file, spreads, &val, p, dir, mode)
}

/// The folder a report goes to by default: `<stem>-report` beside the data file (`-2`,
/// `-3`, ... if that exists), unless the data file lies inside `source_tree` (the
/// checkout the program was built from), where a report would be written into the
/// repository: then the same name in the system's temporary folder.
pub fn default_out_dir(data: &Path, source_tree: Option<&Path>) -> PathBuf {
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let data_abs = abs(data);
    let stem = data_abs
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "data".into());
    let beside = data_abs.parent().map(Path::to_path_buf).unwrap_or_default();
    let inside_tree = source_tree.is_some_and(|t| beside.starts_with(abs(t)));
    let base = if inside_tree {
        std::env::temp_dir()
    } else {
        beside
    };
    let mut dir = base.join(format!("{stem}-report"));
    let mut i = 2;
    while dir.exists() {
        dir = base.join(format!("{stem}-report-{i}"));
        i += 1;
    }
    dir
}

/// [`run`] against the validation measurements `val`, with the output `mode`.
pub fn run_with(
    m: &Measurement,
    data_file: &str,
    spreads: &Spreads,
    val: &ValidationInput,
    p: &Profile,
    dir: &Path,
    mode: Output,
) -> Result<String, String> {
    let check = mode == Output::Check;
    if mode == Output::NewDir && dir.exists() {
        // refused before the minutes of simulation, not after
        return Err(format!(
            "{} exists; a report goes into a new folder (name another with --out-dir)",
            dir.display()
        ));
    }
    let r = compute_with(m, data_file, spreads, val, p)?;
    let md = markdown(&r);
    let json = serde_json::to_string_pretty(&r).map_err(|e| e.to_string())? + "\n";
    let summary = format!(
        "microbenchmarks: MAPE {:.2}%, worst {:+.2}% ({}), {} of {} within 3%, {} in band ({} strictly); validation: MAPE {:.2}%, worst {:+.2}% ({}); ranking {} of {} pairs",
        r.micro_overall.mape_pct,
        r.micro_overall.worst_pct,
        r.micro_overall.worst_bench,
        r.micro_within_3pct,
        r.micro_overall.n,
        r.micro_in_band,
        r.micro_in_band_strict,
        r.validation_overall.mape_pct,
        r.validation_overall.worst_pct,
        r.validation_overall.worst_bench,
        r.ranking.concordant,
        r.ranking.pairs
    );
    if check {
        for (name, text) in [("report.md", &md), ("report.json", &json)] {
            let path = dir.join(name);
            let old = std::fs::read_to_string(&path).map_err(|e| {
                format!(
                    "{}: {e} (run `smsim calibrate report --write-committed` and commit it)",
                    path.display()
                )
            })?;
            if &old != text {
                let line = old
                    .lines()
                    .zip(text.lines())
                    .position(|(a, b)| a != b)
                    .map(|i| i + 1)
                    .unwrap_or(old.lines().count().min(text.lines().count()) + 1);
                return Err(format!(
                    "{} differs from what the code computes (first at line {line}); run `smsim calibrate report --write-committed` and commit the result",
                    path.display()
                ));
            }
        }
        return Ok(format!("the committed report matches: {summary}"));
    }
    if mode == Output::NewDir {
        if let Some(parent) = dir.parent()
            && !parent.as_os_str().is_empty()
        {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        // create_dir, not create_dir_all: an existing folder is refused, never written into
        std::fs::create_dir(dir).map_err(|e| {
            format!(
                "{}: {e} (a report goes into a new folder; name another with --out-dir)",
                dir.display()
            )
        })?;
        crate::write_new(&dir.join("report.md"), &md).map_err(|e| e.to_string())?;
        crate::write_new(&dir.join("report.json"), &json).map_err(|e| e.to_string())?;
    } else {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        outfile::write(&dir.join("report.md"), md.as_bytes(), true)?;
        outfile::write(&dir.join("report.json"), json.as_bytes(), true)?;
    }
    scatter::scatter(&r, dir)?;
    Ok(format!(
        "wrote {}/report.md, report.json, scatter.svg, scatter.png\n{summary}",
        dir.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spread() -> Vec<(String, f64)> {
        vec![
            ("GPU-a".into(), 100.0),
            ("GPU-b".into(), 101.0),
            ("GPU-new".into(), 120.0),
        ]
    }

    /// A newcomer's own value widens the loose band but never the strict one: the model
    /// at 110 is inside [100, 120] only because of the newcomer's 120, and 8.3% from it.
    #[test]
    fn the_strict_band_leaves_the_scored_gpu_out() {
        let s = spread();
        let b = band_of(Some(&s), 120.0, 110.0, Some("GPU-new")).unwrap();
        assert!(b.in_band && !b.in_band_strict);
        assert_eq!((b.gpus, b.lowest, b.highest), (3, 100.0, 120.0));
        // Not knowing the GPU, its value counts as another GPU's (the wide spread holds it).
        assert!(
            band_of(Some(&s), 120.0, 110.0, None)
                .unwrap()
                .in_band_strict
        );
    }

    /// A GPU outside the committed set: the measured value joins the loose spread, not
    /// the strict one, and within a narrow spread the strict band is +-3% of it.
    #[test]
    fn a_newcomer_is_judged_against_the_others_alone() {
        let s: Vec<(String, f64)> = spread().into_iter().take(2).collect();
        // 106 is inside [100, 108] (the newcomer's 108 joins the loose spread) and 1.9%
        // from 108: in band both ways.
        let b = band_of(Some(&s), 108.0, 106.0, Some("GPU-new")).unwrap();
        assert!(b.in_band && b.in_band_strict);
        // 104 is inside the loose spread but 3.7% from 108, and the others' spread
        // [100, 101] is narrower than +-3%: out, strictly.
        let b = band_of(Some(&s), 108.0, 104.0, Some("GPU-new")).unwrap();
        assert!(b.in_band && !b.in_band_strict);
    }
}
