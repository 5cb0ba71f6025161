//! A run's diagnosis for a reader: the bound, flagged figures, advice, and the spread of
//! a run over several seeds.

use std::fmt::Write as _;

use sim_core::RunResult;
use sim_core::diagnose::{Advice, BoundUnit, Bounds, CriticalPath, Diagnosis, Flag};

use crate::units::pct;

/// The binding unit in one line: "tensor pipe 99% busy: at least 8192 cycles whatever
/// the schedule; this run is 0.6% above it".
pub fn bound_line(b: &Bounds) -> String {
    format!(
        "{} {} busy: at least {} cycles whatever the schedule; this run is {:.1}% above it",
        b.binding.label(),
        pct(b.use_of(b.binding)),
        b.lower_bound_cycles,
        b.above_bound * 100.0
    )
}

/// The other units' use, busiest first, those at 1% or more.
fn other_units(b: &Bounds) -> String {
    let mut v: Vec<_> = b
        .units
        .iter()
        .filter(|u| u.unit != b.binding && u.use_fraction >= 0.01)
        .collect();
    v.sort_by(|x, y| y.use_fraction.total_cmp(&x.use_fraction));
    let s: Vec<String> = v
        .iter()
        .map(|u| {
            let mark = if u.exceeds_run {
                " (beyond the run)"
            } else {
                ""
            };
            format!("{} {}{mark}", u.unit.label(), pct(u.use_fraction))
        })
        .collect();
    if s.is_empty() {
        "none".into()
    } else {
        s.join(", ")
    }
}

/// A flag in words.
pub fn flag_text(f: &Flag) -> String {
    match f {
        Flag::HbmRateAbovePeak {
            reported_gbps,
            peak_gbps,
            hbm_cycles,
            run_cycles,
        } => format!(
            "HBM {reported_gbps:.0} GB/s is above the chip's {peak_gbps:.0} GB/s: this SM's HBM bytes need {hbm_cycles} cycles at its share, the run took {run_cycles}; reads ran ahead of the sustained rate, which no whole kernel sustains"
        ),
        Flag::HbmWritebackAfterRun { bytes, cycles } => format!(
            "{} of stores were still being written back from L2 to HBM when the run ended ({cycles} cycles at this SM's share of HBM): they cross HBM after the run, so the HBM rate and bound leave them out",
            crate::units::bytes(*bytes)
        ),
    }
}

/// A piece of advice in words.
pub fn advice_text(a: &Advice) -> String {
    match a {
        Advice::PipeSaturated {
            role,
            state,
            share,
            unit,
            use_fraction,
        } => {
            let extra = if *unit == BoundUnit::Tensor {
                " no wgmma pipelining (wait_group 1) shortens it;"
            } else {
                ""
            };
            format!(
                "{role}'s {} ({} of its cycles) is the {}'s own time: it is {} busy;{extra} only less work on it, or another unit taking some, does",
                state.name(),
                pct(*share),
                unit.label(),
                pct(*use_fraction)
            )
        }
        Advice::KeepMmaInFlight {
            role,
            share,
            tensor_use,
        } => format!(
            "{role} waits on its own wgmma groups {} of its cycles while the tensor pipe is {} busy: keep a group in flight (`WARPGROUP.DEPBAR.LE gsb0, 1`) so the next MMAs overlap the wait",
            pct(*share),
            pct(*tensor_use)
        ),
        Advice::MoreStages {
            role,
            share,
            copy_latency_cycles,
            stage_cycles,
            stages_now,
            stages,
            smem_needed,
            smem_max,
        } => {
            let room = if smem_needed > smem_max {
                format!(
                    "; but {stages} stages need about {} KiB of shared memory, above a CTA's {} KiB: fewer bytes per stage (smaller tiles) or fewer consumers per stage",
                    smem_needed / 1024,
                    smem_max / 1024
                )
            } else {
                String::new()
            };
            format!(
                "{role} waits {} of its cycles on stages still being copied from HBM: a stage's copies take up to about {copy_latency_cycles} cycles and the CTA consumes a stage in {stage_cycles}; about {stages} stages in flight (it has {stages_now}) would cover that{room}",
                pct(*share)
            )
        }
        Advice::SlowPartner {
            role,
            instruction,
            share,
            partner_role,
            partner_warp,
            partner_share,
        } => format!(
            "{role} waits {} of its cycles at `{instruction}` for a slower partner: warp {partner_warp} ({partner_role}) waits least at barriers ({}); the others wait for it. Balance the work between them, or sync less often",
            pct(*share),
            pct(*partner_share)
        ),
        Advice::RegisterLimited {
            ctas_by_regs,
            ctas_otherwise,
            regs_for_one_more,
            latency_share,
        } => format!(
            "registers limit the SM to {ctas_by_regs} CTA(s) where the other resources allow {ctas_otherwise}, while {} of the warp-cycles wait on memory: at most {regs_for_one_more} registers a thread fit one more CTA to hide it",
            pct(*latency_share)
        ),
    }
}

/// The critical path's categories in one line: "TMA copies in flight 62%, fixed
/// latency 21%, ...; 15 hops between warps".
pub fn path_line(p: &CriticalPath) -> String {
    let parts: Vec<String> = p
        .by_category
        .iter()
        .filter(|(_, c)| *c * 100 >= p.end.max(1))
        .map(|(cat, c)| format!("{} {}", cat.label(), pct(*c as f64 / p.end.max(1) as f64)))
        .collect();
    format!(
        "{} cycles: {}; {} hop{} between warps",
        p.end,
        parts.join(", "),
        p.hops,
        if p.hops == 1 { "" } else { "s" }
    )
}

/// The diagnosis section of `smsim run`'s report.
pub fn render(d: &Diagnosis) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "\nBound       {}", bound_line(&d.bounds));
    let _ = writeln!(o, "            other units: {}", other_units(&d.bounds));
    if let Some(p) = &d.critical_path {
        let _ = writeln!(o, "Critical    {}", path_line(p));
        for i in p.instructions.iter().take(4) {
            let _ = writeln!(
                o,
                "            {}:{} `{}`: {} {}",
                i.role,
                i.pc,
                i.instruction,
                i.category.label(),
                i.cycles
            );
        }
    }
    for f in &d.flags {
        let _ = writeln!(o, "Flag        {}", flag_text(f));
    }
    if !d.advice.is_empty() {
        let _ = writeln!(o, "Advice (from this run):");
        for a in &d.advice {
            let _ = writeln!(o, "  - {}", advice_text(a));
        }
    }
    o
}

/// A run repeated on several seeds: each seed's cycles, their mean and range.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SeedSpread {
    /// The seeds, in order.
    pub seeds: Vec<u64>,
    /// Cycles on each.
    pub cycles: Vec<u64>,
    /// Their mean.
    pub mean: f64,
    /// The least.
    pub min: u64,
    /// The most.
    pub max: u64,
}

impl SeedSpread {
    /// The spread of `runs` (one per seed, non-empty).
    pub fn of(runs: &[RunResult]) -> SeedSpread {
        let cycles: Vec<u64> = runs.iter().map(|r| r.cycles).collect();
        SeedSpread {
            seeds: runs.iter().map(|r| r.seed).collect(),
            mean: cycles.iter().sum::<u64>() as f64 / cycles.len().max(1) as f64,
            min: cycles.iter().copied().min().unwrap_or(0),
            max: cycles.iter().copied().max().unwrap_or(0),
            cycles,
        }
    }

    /// One line: "5 seeds (1-5): mean 67,100 cycles, range 66,950 to 67,270 (0.5%)".
    pub fn line(&self) -> String {
        let each: Vec<String> = self.cycles.iter().map(|c| c.to_string()).collect();
        format!(
            "{} seeds ({}..={}): mean {:.0} cycles, range {} to {} ({:.2}% of the mean); each: {}",
            self.seeds.len(),
            self.seeds.first().unwrap_or(&0),
            self.seeds.last().unwrap_or(&0),
            self.mean,
            self.min,
            self.max,
            (self.max - self.min) as f64 / self.mean.max(1.0) * 100.0,
            each.join(" ")
        )
    }
}

/// `smsim run --json`: the result's fields in their order, then `diagnosis` (and
/// `seeds`, for a run on several seeds).
#[derive(serde::Serialize)]
pub struct RunJson<'a> {
    /// The run.
    #[serde(flatten)]
    pub result: &'a RunResult,
    /// Its diagnosis.
    pub diagnosis: &'a Diagnosis,
    /// Its spread over seeds, with `--seeds N` above 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seeds: Option<&'a SeedSpread>,
}
