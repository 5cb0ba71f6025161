//! Runs several kernels on several seeds and puts them side by side: every schedule of
//! a family ([`compare`], [`compare_family`]), or any kernels at all ([`compare_kernels`]:
//! kernel files, built-in schedules, variants with other parameters or profile values).
//!
//! Each kernel runs on every seed; a row holds its mean and range, and the kernels whose
//! ranges overlap the fastest's are a tie with it: their difference is the variable
//! latencies' noise, and the explanation says so rather than giving a reason. Each row
//! carries the diagnosis of its first seed's run (bounds, flags, advice). The text is
//! rendered by the `present` crate.

use serde::Serialize;
use std::panic::AssertUnwindSafe;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use sim_core::diagnose::critical_path::{PathRecorder, run_prepared_with_path_into};
use sim_core::diagnose::{CriticalPath, Diagnosis, diagnose};
use sim_core::{Profile, RunConfig, RunResult, WarpState};

use crate::{family, resolve_params};

/// Seeds a comparison runs by default: enough to see the spread of the variable
/// latencies (gemm-mainloop's schedules move by about 0.5% across five).
pub const DEFAULT_SEEDS: u32 = 5;

/// Waves of resident CTAs a comparison simulates per run when the caller sets no
/// `max_ctas` ([`default_max_ctas`]). A seed-shaped grid gives the busiest SM tens of
/// CTAs that run alike (fa3-forward at batch 4, seqlen 8448, 16 heads: 32, one at a
/// time). The first wave starts cold; the second runs as every later one does, and the
/// whole-kernel estimate takes the first as run and the rest at the second's rate
/// (`RunResult::kernel_time_us`). Against the full share (seed 1, two-level, h100) at
/// the seeds' shapes every schedule of every family is within 0.1%
/// (`compare_estimate_matches_the_full_share` has the table's method).
pub const DEFAULT_WAVES: u32 = 2;

/// The CTAs a comparison simulates of `kernel` on `profile` when the caller sets none:
/// [`DEFAULT_WAVES`] waves of the CTAs resident on an SM, or None (all of them) when the
/// busiest SM's share of the grid is no more than that.
pub fn default_max_ctas(kernel: &isa::Kernel, profile: &Profile) -> Option<u32> {
    let resident = isa::occupancy::occupancy(kernel, &profile.limits())
        .ctas_per_sm
        .max(1);
    let share = kernel
        .launch
        .grid
        .max(1)
        .div_ceil((profile.t.sm_count as u32).max(1));
    let cap = DEFAULT_WAVES.saturating_mul(resident);
    (share > cap).then_some(cap)
}

/// One role of a row's first run.
#[derive(Clone, Debug, Serialize)]
pub struct RoleRow {
    /// The role's name.
    pub role: String,
    /// Its warps per CTA.
    pub warps_per_cta: u32,
    /// Its warp-instructions.
    pub instructions: u64,
    /// Share of the role's warp-cycles spent issuing (`selected`).
    pub issue_share: f64,
    /// The three largest stall states (everything but `selected`), as shares of the
    /// role's warp-cycles.
    pub top_stalls: Vec<(String, f64)>,
    /// What each of `top_stalls` waited on most, in a few words: from the typed wait
    /// causes (a state's name alone can mislead: Nsight names an mbarrier try-wait
    /// `long_scoreboard`), else the state's meaning.
    pub top_stall_waits: Vec<String>,
}

/// A kernel to compare: its name in the table, and what to run.
pub struct Candidate {
    /// Its name in the table (`ws`, `gemm.smk@PIPE=2`).
    pub name: String,
    /// A line saying what it is.
    pub description: String,
    /// The kernel, or why it could not be built.
    pub kernel: Result<isa::Kernel, String>,
    /// The profile it runs on.
    pub profile: Profile,
}

/// One kernel's figures over the seeds.
#[derive(Clone, Debug, Serialize)]
pub struct ScheduleRow {
    /// Its name.
    pub schedule: String,
    /// What it is.
    pub description: String,
    /// The profile it ran on.
    pub profile: String,
    /// Set when the kernel could not be built or run; the numbers are then zero.
    pub error: Option<String>,
    /// CTAs each run simulated (fewer than `ctas_per_sm` under a cap: the whole-kernel
    /// figures scale them to the share).
    pub ctas_simulated: u32,
    /// The busiest SM's share of the grid (CTAs).
    pub ctas_per_sm: u32,
    /// The first seed's cycles on the simulated SM.
    pub cycles: u64,
    /// Cycles on each seed, in the order of [`Comparison::seeds`].
    pub cycles_by_seed: Vec<u64>,
    /// Mean cycles over the seeds.
    pub cycles_mean: f64,
    /// Least and most cycles over the seeds.
    pub cycles_min: u64,
    /// (See `cycles_min`.)
    pub cycles_max: u64,
    /// The first seed's SM time, µs.
    pub time_us: f64,
    /// Mean whole-kernel estimate over the seeds, µs.
    pub kernel_time_us: f64,
    /// Least whole-kernel estimate over the seeds, µs.
    pub kernel_time_min_us: f64,
    /// Most whole-kernel estimate over the seeds, µs.
    pub kernel_time_max_us: f64,
    /// TFLOP/s at the mean kernel time (for kernels that declare flops).
    pub tflops: Option<f64>,
    /// Declared bytes per second at the mean kernel time, GB/s.
    pub gbps: Option<f64>,
    /// Kernel time of the slowest row over this one's (means).
    pub speedup: f64,
    /// Busy shares of the first run's units.
    pub tensor: f64,
    /// (See `tensor`.)
    pub tma: f64,
    /// (See `tensor`.)
    pub mufu: f64,
    /// (See `tensor`.)
    pub fma: f64,
    /// (See `tensor`.)
    pub fp64: f64,
    /// L2 traffic over the first run's kernel time, for the whole grid, GB/s.
    pub l2_gbps: f64,
    /// HBM traffic over the first run's kernel time, for the whole grid, GB/s.
    pub hbm_gbps: f64,
    /// Its range of kernel times overlaps the fastest row's (the fastest itself too).
    pub ties_fastest: bool,
    /// The first run's roles.
    pub roles: Vec<RoleRow>,
    /// The first run's diagnosis.
    pub diagnosis: Option<Diagnosis>,
}

/// Kernels side by side.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// What was compared: the family, or the kernels' names.
    pub family: String,
    /// The profiles the rows ran on, as named, without repeats.
    pub profile: String,
    /// The family's parameters (empty for a comparison of kernels).
    pub params: Vec<(String, i64)>,
    /// The seeds every row ran on.
    pub seeds: Vec<u64>,
    /// One row per kernel, in the order given.
    pub rows: Vec<ScheduleRow>,
    /// Which row is fastest (by mean kernel time) and which tie with it, what bounds
    /// them, and each row's main stall.
    pub explanation: Vec<String>,
}

/// Runs every schedule of `family` on `cfg.seed` alone; see [`compare_family`].
pub fn compare(
    family_name: &str,
    overrides: &[(String, i64)],
    profile: &Profile,
    cfg: &RunConfig,
) -> Result<Comparison, String> {
    compare_family(family_name, overrides, profile, cfg, 1)
}

/// Runs every schedule of `family` on `seeds` seeds from `cfg.seed` and compares them.
pub fn compare_family(
    family_name: &str,
    overrides: &[(String, i64)],
    profile: &Profile,
    cfg: &RunConfig,
    seeds: u32,
) -> Result<Comparison, String> {
    let f = family(family_name)?;
    let params = resolve_params(f, overrides)?;
    let candidates = f
        .schedules
        .iter()
        .map(|sch| Candidate {
            name: sch.name.into(),
            description: sch.description.into(),
            kernel: (f.build)(sch.name, &params),
            profile: profile.clone(),
        })
        .collect();
    let mut c = compare_kernels(f.name, candidates, cfg, seeds);
    c.params = params.0.into_iter().collect();
    Ok(c)
}

/// One seed's run of a candidate, with its critical path for the first seed.
type SeedRun = (RunResult, Option<CriticalPath>);

/// The seeds a comparison of `n` seeds from `cfg` runs: `cfg.seed`, `cfg.seed + 1`, ...
pub fn seeds_from(cfg: &RunConfig, n: u32) -> Vec<u64> {
    (0..n.max(1) as u64)
        .map(|i| cfg.seed.wrapping_add(i))
        .collect()
}

/// Runs every candidate on `seeds` seeds from `cfg.seed` (on as many threads as the
/// process may use) and compares them.
pub fn compare_kernels(
    title: &str,
    candidates: Vec<Candidate>,
    cfg: &RunConfig,
    seeds: u32,
) -> Comparison {
    let seed_list = seeds_from(cfg, seeds);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let runs = run_all(&candidates, cfg, &seed_list, workers);
    let mut rows: Vec<ScheduleRow> = candidates
        .iter()
        .zip(runs.iter())
        .map(|(c, r)| row(c, r))
        .collect();
    let ok = |r: &&mut ScheduleRow| r.error.is_none();
    let slowest = rows
        .iter_mut()
        .filter(ok)
        .map(|r| r.kernel_time_us)
        .fold(0.0, f64::max);
    for r in rows.iter_mut().filter(ok) {
        r.speedup = if r.kernel_time_us > 0.0 {
            slowest / r.kernel_time_us
        } else {
            0.0
        };
    }
    mark_ties(&mut rows);
    let explanation = explain(&rows, &seed_list);
    let mut profiles: Vec<String> = Vec::new();
    for c in &candidates {
        if !profiles.iter().any(|p| p == c.profile.name()) {
            profiles.push(c.profile.name().to_string());
        }
    }
    Comparison {
        family: title.to_string(),
        profile: profiles.join(", "),
        params: vec![],
        seeds: seed_list,
        rows,
        explanation,
    }
}

/// A candidate lowered once for all its seeds, with the CTAs each run simulates.
type Ready<'k> = Result<(sim_core::Prepared<'k>, Option<u32>), String>;

/// Every candidate's runs, one per seed in `seeds` (the first recording its critical
/// path), or its first error in seed order.
///
/// The runs are shared out among at most `workers` threads (`compare_kernels`: one per
/// processor the process may use), each taking the next run not yet taken; with one
/// worker they run in turn on this thread. A worker keeps one [`PathRecorder`] for its path runs and its allocator's
/// pages from run to run: a thread per candidate faulted in a fresh recorder (~36 MB
/// at fa3-forward's seed shape) and fresh caches for each, 0.1 s of the 1.0 s of
/// `smsim compare fa3-forward` at its seed's shape on one core. The results do not
/// depend on which worker ran what.
fn run_all(
    candidates: &[Candidate],
    cfg: &RunConfig,
    seeds: &[u64],
    workers: usize,
) -> Vec<Result<Vec<SeedRun>, String>> {
    let ready: Vec<Ready> = candidates
        .iter()
        .map(|c| {
            let k = c.kernel.as_ref().map_err(|e| e.clone())?;
            let max_ctas = cfg.max_ctas.or_else(|| default_max_ctas(k, &c.profile));
            let prepared = sim_core::Prepared::new(k, &c.profile).map_err(|e| e.to_string())?;
            Ok((prepared, max_ctas))
        })
        .collect();
    // The path runs first (the longest), then the rest seed by seed.
    let jobs: Vec<(usize, usize)> = (0..seeds.len())
        .flat_map(|i| (0..ready.len()).map(move |c| (c, i)))
        .filter(|&(c, _)| ready[c].is_ok())
        .collect();
    let slots: Vec<Vec<OnceLock<Result<SeedRun, String>>>> = ready
        .iter()
        .map(|_| seeds.iter().map(|_| OnceLock::new()).collect())
        .collect();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut rec: Option<PathRecorder> = None;
        while let Some(&(c, i)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
            // (An earlier seed's error is the candidate's: the later seeds need no run.)
            let failed = slots[c][..i]
                .iter()
                .any(|s| matches!(s.get(), Some(Err(_))));
            let Ok((prepared, max_ctas)) = &ready[c] else {
                continue;
            };
            if failed {
                continue;
            }
            let run = std::panic::catch_unwind(AssertUnwindSafe(|| {
                let run_cfg = RunConfig {
                    seed: seeds[i],
                    max_ctas: *max_ctas,
                    ..cfg.clone()
                };
                let profile = &candidates[c].profile;
                if i == 0 {
                    let rec = rec.get_or_insert_with(|| PathRecorder::new(profile));
                    run_prepared_with_path_into(prepared, profile, &run_cfg, rec)
                        .map(|(r, p)| (r, Some(p)))
                } else {
                    prepared.run(&run_cfg).map(|r| (r, None))
                }
                .map_err(|e| e.to_string())
            }))
            .unwrap_or_else(|_| {
                // (A recorder left mid-run is dropped, not reused.)
                rec = None;
                Err("the run panicked".into())
            });
            let _ = slots[c][i].set(run);
        }
    };
    let workers = workers.min(jobs.len());
    if workers <= 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(work);
            }
        });
    }
    ready
        .iter()
        .zip(slots)
        .map(|(r, slots)| {
            r.as_ref().map_err(|e| e.clone())?;
            // Seed order: the first error, as a run of the seeds in turn would stop at.
            slots
                .into_iter()
                .map(|s| {
                    s.into_inner()
                        .unwrap_or_else(|| Err("no seed was run".into()))
                })
                .collect()
        })
        .collect()
}

fn empty_row(c: &Candidate) -> ScheduleRow {
    ScheduleRow {
        schedule: c.name.clone(),
        description: c.description.clone(),
        profile: c.profile.name().to_string(),
        error: None,
        ctas_simulated: 0,
        ctas_per_sm: 0,
        cycles: 0,
        cycles_by_seed: vec![],
        cycles_mean: 0.0,
        cycles_min: 0,
        cycles_max: 0,
        time_us: 0.0,
        kernel_time_us: 0.0,
        kernel_time_min_us: 0.0,
        kernel_time_max_us: 0.0,
        tflops: None,
        gbps: None,
        speedup: 0.0,
        tensor: 0.0,
        tma: 0.0,
        mufu: 0.0,
        fma: 0.0,
        fp64: 0.0,
        l2_gbps: 0.0,
        hbm_gbps: 0.0,
        ties_fastest: false,
        roles: vec![],
        diagnosis: None,
    }
}

fn row(
    c: &Candidate,
    runs: &Result<Vec<(RunResult, Option<CriticalPath>)>, String>,
) -> ScheduleRow {
    let mut out = empty_row(c);
    let runs = match runs {
        Ok(r) => r,
        Err(e) => {
            out.error = Some(e.clone());
            return out;
        }
    };
    let Some((r, path)) = runs.first() else {
        out.error = Some("no seed was run".into());
        return out;
    };
    let runs: Vec<&RunResult> = runs.iter().map(|x| &x.0).collect();
    let n = runs.len() as f64;
    out.ctas_simulated = r.ctas_simulated;
    out.ctas_per_sm = r.grid.div_ceil((c.profile.t.sm_count as u32).max(1));
    out.cycles = r.cycles;
    out.cycles_by_seed = runs.iter().map(|x| x.cycles).collect();
    out.cycles_mean = out.cycles_by_seed.iter().sum::<u64>() as f64 / n;
    out.cycles_min = out.cycles_by_seed.iter().copied().min().unwrap_or(0);
    out.cycles_max = out.cycles_by_seed.iter().copied().max().unwrap_or(0);
    out.time_us = r.time_us;
    let times = runs.iter().map(|x| x.kernel_time_us);
    out.kernel_time_us = times.clone().sum::<f64>() / n;
    out.kernel_time_min_us = times.clone().fold(f64::INFINITY, f64::min);
    out.kernel_time_max_us = times.fold(0.0, f64::max);
    // Rates at the mean time: the first run's work over the mean.
    let at_mean = if out.kernel_time_us > 0.0 {
        r.kernel_time_us / out.kernel_time_us
    } else {
        0.0
    };
    out.tflops = r.tflops.map(|t| t * at_mean);
    out.gbps = r.gbps.map(|g| g * at_mean);
    out.tensor = r.unit("tensor");
    out.tma = r.unit("tma");
    out.mufu = r.unit("mufu");
    out.fma = r.unit("fma");
    out.fp64 = r.unit("fp64");
    let grid_share = r.grid as f64 / r.ctas_simulated.max(1) as f64;
    out.l2_gbps = if r.kernel_time_us > 0.0 {
        r.memory.l2_bytes as f64 * grid_share / (r.kernel_time_us * 1e3)
    } else {
        0.0
    };
    out.hbm_gbps = r.hbm_gbps;
    out.roles = r
        .roles
        .iter()
        .filter(|ro| ro.states.total() > 0)
        .map(|ro| {
            let total = ro.states.total().max(1) as f64;
            let top: Vec<(WarpState, u64)> = ro
                .states
                .ranked()
                .into_iter()
                .filter(|(s, _)| *s != WarpState::Selected)
                .take(3)
                .collect();
            RoleRow {
                role: ro.name.clone(),
                warps_per_cta: ro.warps_per_cta,
                instructions: ro.instructions,
                issue_share: ro.states.get(WarpState::Selected) as f64 / total,
                top_stalls: top
                    .iter()
                    .map(|&(s, c)| (s.name().to_string(), c as f64 / total))
                    .collect(),
                top_stall_waits: top.iter().map(|&(s, _)| waited_gloss(ro, s)).collect(),
            }
        })
        .collect();
    if let Ok(k) = &c.kernel {
        let mut d = diagnose(r, k, &c.profile);
        d.critical_path = path.clone();
        out.diagnosis = Some(d);
    }
    out
}

/// The fastest row by mean kernel time, among those that ran.
pub fn fastest(rows: &[ScheduleRow]) -> Option<&ScheduleRow> {
    rows.iter()
        .filter(|r| r.error.is_none())
        .min_by(|a, b| a.kernel_time_us.total_cmp(&b.kernel_time_us))
}

/// A row ties the fastest when their ranges of kernel times over the seeds overlap.
fn mark_ties(rows: &mut [ScheduleRow]) {
    let Some((lo, hi)) = fastest(rows).map(|f| (f.kernel_time_min_us, f.kernel_time_max_us)) else {
        return;
    };
    for r in rows.iter_mut().filter(|r| r.error.is_none()) {
        r.ties_fastest = r.kernel_time_min_us <= hi && r.kernel_time_max_us >= lo;
    }
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

/// What `role`'s cycles in `state` waited on most, in a few words (its typed causes;
/// the state's meaning when they name none, or only register producers).
fn waited_gloss(role: &sim_core::result::RoleStats, state: WarpState) -> String {
    use sim_core::cause::{GroupKind, Waited};
    let mut by: Vec<(&Waited, u64)> = vec![];
    for w in role.per_pc.iter().flat_map(|p| &p.waits_on) {
        if w.state != state || matches!(w.on, Waited::Producer { .. }) {
            continue;
        }
        match by.iter_mut().find(|x| x.0 == &w.on) {
            Some(x) => x.1 += w.cycles,
            None => by.push((&w.on, w.cycles)),
        }
    }
    // (Only a cause that holds most of the state's cycles names it.)
    let total = role.states.get(state);
    let Some((on, cycles)) = by.into_iter().max_by_key(|x| x.1) else {
        return gloss(state.name()).to_string();
    };
    if cycles * 2 < total {
        return gloss(state.name()).to_string();
    }
    match on {
        Waited::WaitGroup {
            group: GroupKind::Wgmma,
        } => "waiting on their own wgmma groups (WARPGROUP.DEPBAR)".into(),
        Waited::WaitGroup { group } => format!("waiting on their {group} groups"),
        Waited::MbarrierCopies { mbarrier } => {
            format!("in mbarrier try-wait on {mbarrier}'s copies in flight")
        }
        Waited::MbarrierArrivals { mbarrier, roles } => format!(
            "in mbarrier try-wait on {mbarrier}'s arrivals by {} (data or a free stage not there yet)",
            roles.join(", ")
        ),
        Waited::Barrier { id } => format!("waiting at named barrier {id} / BAR.SYNC"),
        Waited::WarpgroupArrive { .. } => "waiting for their warpgroup's WARPGROUP.ARRIVE".into(),
        Waited::Pipe { pipe } => format!("waiting for the busy {} pipe", pipe.name()),
        Waited::Producer { .. } => gloss(state.name()).to_string(),
    }
}

/// The role that does the family's work: the one that issued the most instructions.
fn main_role(r: &ScheduleRow) -> Option<&RoleRow> {
    r.roles.iter().max_by_key(|ro| ro.instructions)
}

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

fn seeds_text(seeds: &[u64]) -> String {
    match seeds {
        [one] => format!("seed {one}"),
        [first, .., last] => format!("seeds {first}-{last}"),
        [] => "no seeds".into(),
    }
}

/// The explanation: who is fastest and who ties, what bounds the fastest, the units
/// that differ between the fastest and the slowest (only when they do not tie), and
/// each row's main stall, contrasted with the fastest's only when they do not tie.
fn explain(rows: &[ScheduleRow], seeds: &[u64]) -> Vec<String> {
    let mut out = vec![];
    for r in rows.iter().filter(|r| r.error.is_some()) {
        out.push(format!(
            "{} did not finish: {}",
            r.schedule,
            r.error.as_deref().unwrap_or("")
        ));
    }
    let ok: Vec<&ScheduleRow> = rows.iter().filter(|r| r.error.is_none()).collect();
    let Some(fastest) = fastest(rows) else {
        return out;
    };
    if let Some(d) = &fastest.diagnosis {
        let b = &d.bounds;
        out.push(format!(
            "{} is bound by the {}: at least {} cycles whatever the schedule, {} busy; it runs {:.1}% above that bound.",
            fastest.schedule,
            b.binding.label(),
            b.lower_bound_cycles,
            pct(b.use_of(b.binding)),
            b.above_bound * 100.0
        ));
    }
    if ok.len() < 2 {
        return out;
    }
    let slowest = ok
        .iter()
        .copied()
        .max_by(|a, b| a.kernel_time_us.total_cmp(&b.kernel_time_us))
        .expect("two rows");
    let tied: Vec<&str> = ok
        .iter()
        .filter(|r| r.ties_fastest && r.schedule != fastest.schedule)
        .map(|r| r.schedule.as_str())
        .collect();
    let over = seeds_text(seeds);
    if slowest.ties_fastest {
        out.push(format!(
            "tie: all {} are within each other's range over {over} ({:.0} to {:.0} mean cycles); none is faster beyond the variable latencies' noise.",
            ok.len(),
            fastest.cycles_mean,
            slowest.cycles_mean
        ));
    } else {
        out.push(format!(
            "{} is fastest: {:.2}x the slowest, {} ({:.0} vs {:.0} mean cycles over {over}).",
            fastest.schedule,
            fastest.speedup,
            slowest.schedule,
            fastest.cycles_mean,
            slowest.cycles_mean
        ));
        if !tied.is_empty() {
            out.push(format!(
                "tie: {} {} within {}'s range over {over} ({} to {} cycles): which of them is fastest is noise.",
                tied.join(", "),
                if tied.len() == 1 { "is" } else { "are" },
                fastest.schedule,
                fastest.cycles_min,
                fastest.cycles_max
            ));
        }
        // The unit whose use differs most between the fastest and the slowest.
        let units = [
            ("tensor pipe", fastest.tensor, slowest.tensor),
            ("TMA", fastest.tma, slowest.tma),
            ("MUFU", fastest.mufu, slowest.mufu),
            ("FMA pipe", fastest.fma, slowest.fma),
            ("FP64 pipe", fastest.fp64, slowest.fp64),
        ];
        if let Some((u, a, b)) = units
            .iter()
            .copied()
            .max_by(|x, y| (x.1 - x.2).abs().total_cmp(&(y.1 - y.2).abs()))
            && (a - b).abs() >= 0.02
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
    // Each row's main role: its largest stall; contrasted with the fastest's only for
    // a row that does not tie with it (a tie has no reason to give).
    let fast_main = main_role(fastest);
    for r in &ok {
        let Some(m) = main_role(r) else { continue };
        let Some((state, share)) = m.top_stalls.first() else {
            continue;
        };
        let waited = m
            .top_stall_waits
            .first()
            .cloned()
            .unwrap_or_else(|| gloss(state).to_string());
        let mut line = format!(
            "{}'s {} warps spend {} of their cycles in {} ({}), and issue in {}",
            r.schedule,
            m.role,
            pct(*share),
            state,
            waited,
            pct(m.issue_share)
        );
        if r.schedule != fastest.schedule {
            if r.ties_fastest {
                line.push_str(&format!("; it ties {}", fastest.schedule));
            } else if let Some(fm) = fast_main {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A candidate of a family's schedule at `params`, on `profile`.
    fn cand(family: &str, schedule: &str, params: &[(&str, i64)], profile: &str) -> Candidate {
        let params: Vec<(String, i64)> = params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        Candidate {
            name: format!("{family}/{schedule}"),
            description: String::new(),
            kernel: crate::generate(family, schedule, &params),
            profile: Profile::builtin(profile).unwrap(),
        }
    }

    /// What a comparison takes from the runs, as text: each seed's result and path.
    fn runs_text(runs: &[Result<Vec<SeedRun>, String>]) -> Vec<String> {
        runs.iter()
            .map(|r| match r {
                Err(e) => format!("error: {e}"),
                Ok(seeds) => seeds
                    .iter()
                    .map(|(r, p)| {
                        format!(
                            "{r:?}\n{}\n",
                            p.as_ref()
                                .map_or("no path".into(), |p| serde_json::to_string(p).unwrap())
                        )
                    })
                    .collect(),
            })
            .collect()
    }

    /// The runs do not depend on how they are shared out: on one worker (the runs in
    /// turn, one recorder reset for every path, across kernels of other shapes and
    /// profiles), on two, or on one thread per run (a fresh recorder each). Each
    /// first seed's path is the one `run_with_path` gives; a candidate that cannot be
    /// built keeps its error.
    #[test]
    fn runs_are_the_same_on_any_number_of_workers() {
        let candidates = vec![
            // (12 warps a CTA, then fewer: a reused recorder's extra slots stay empty.)
            cand("fa3-forward", "fa3", &[("SEQLEN", 384)], "h100"),
            cand("gemm-mainloop", "ws", &[("K", 256)], "h100"),
            cand("gemm-mainloop", "nonexistent", &[], "h100"),
            cand("elementwise-add", "tma-pipelined", &[], "b200"),
            cand("latency-hiding", "chase", &[], "h100"),
            cand(
                "blackwell-matmul",
                "ws",
                &[("M", 1024), ("N", 1024), ("K", 256)],
                "b200",
            ),
        ];
        assert!(candidates[2].kernel.is_err());
        let cfg = RunConfig::default();
        let seeds = seeds_from(&cfg, 2);
        let one = runs_text(&run_all(&candidates, &cfg, &seeds, 1));
        assert_eq!(one.len(), candidates.len());
        assert!(one[2].starts_with("error: "), "{}", one[2]);
        for workers in [2, 64] {
            let other = runs_text(&run_all(&candidates, &cfg, &seeds, workers));
            for (c, (a, b)) in candidates.iter().zip(one.iter().zip(&other)) {
                assert!(a == b, "{} on {workers} workers", c.name);
            }
        }
        for (c, runs) in candidates.iter().zip(run_all(&candidates, &cfg, &seeds, 1)) {
            let (Ok(k), Ok(runs)) = (&c.kernel, runs) else {
                continue;
            };
            let run_cfg = RunConfig {
                seed: seeds[0],
                ..cfg.clone()
            };
            let (r, p) = sim_core::diagnose::run_with_path(k, &c.profile, &run_cfg).unwrap();
            assert_eq!(format!("{r:?}"), format!("{:?}", runs[0].0), "{}", c.name);
            assert_eq!(
                serde_json::to_string(&p).unwrap(),
                serde_json::to_string(runs[0].1.as_ref().unwrap()).unwrap(),
                "{}",
                c.name
            );
        }
    }
}
