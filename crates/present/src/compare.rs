//! A comparison (`smsim compare`) for a reader: the table of kernels over the seeds,
//! each one's top stalls, its bound, flags and advice, and the explanation with its tie
//! calls.

use std::fmt::Write as _;

use traces::compare::Comparison;

use crate::diagnosis::{advice_text, flag_text, path_line};

/// A rate in GB/s, marked `!` when the row's diagnosis flags it above the peak.
fn gbps(x: f64, flagged: bool) -> String {
    format!("{x:.0}{}", if flagged { "!" } else { "" })
}

/// The whole comparison as text.
pub fn render(c: &Comparison) -> String {
    let mut f = String::new();
    let params: Vec<String> = c.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let seeds = match c.seeds.as_slice() {
        [one] => format!("seed {one}"),
        [first, .., last] => format!("{} seeds, {first}..={last}", c.seeds.len()),
        [] => String::new(),
    };
    let _ = writeln!(
        f,
        "{} on {} ({}{}{seeds})",
        c.family,
        c.profile,
        params.join(" "),
        if params.is_empty() { "" } else { "; " }
    );
    // The name column fits the longest name.
    let w = c
        .rows
        .iter()
        .map(|r| r.schedule.len())
        .max()
        .unwrap_or(0)
        .max(18);
    let _ = writeln!(
        f,
        "{:<w$} {:>9} {:>7} {:>9} {:>11} {:>7} {:>6} {:>4} {:>4} {:>4} {:>4} {:>6} {:>6}  bound (cycles)",
        "schedule",
        "cycles",
        "range",
        "kernel us",
        "throughput",
        "speedup",
        "tensor",
        "TMA",
        "MUFU",
        "FMA",
        "FP64",
        "L2GB/s",
        "HBMGB/s",
    );
    for r in &c.rows {
        if let Some(e) = &r.error {
            let first = e.lines().next().unwrap_or("");
            let _ = writeln!(f, "{:<w$} FAILED: {first}", r.schedule);
            continue;
        }
        let tp = match (r.tflops, r.gbps) {
            (Some(t), _) if t >= 0.1 => format!("{t:.1} TF/s"),
            (_, Some(g)) => format!("{g:.0} GB/s"),
            _ => "-".into(),
        };
        let range = format!("±{}", (r.cycles_max - r.cycles_min).div_ceil(2));
        let (hbm_flag, bound) = match &r.diagnosis {
            Some(d) => (
                d.flags
                    .iter()
                    .any(|x| matches!(x, sim_core::diagnose::Flag::HbmRateAbovePeak { .. })),
                format!(
                    "{} {}",
                    d.bounds.binding.label(),
                    d.bounds.lower_bound_cycles
                ),
            ),
            None => (false, "-".into()),
        };
        let tie = if r.ties_fastest { " =" } else { "" };
        let _ = writeln!(
            f,
            "{:<w$} {:>9.0} {:>7} {:>9.2} {:>11} {:>6.2}x {:>6} {:>4} {:>4} {:>4} {:>4} {:>6} {:>6}  {bound}{tie}",
            r.schedule,
            r.cycles_mean,
            range,
            r.kernel_time_us,
            tp,
            r.speedup,
            pct0(r.tensor),
            pct0(r.tma),
            pct0(r.mufu),
            pct0(r.fma),
            pct0(r.fp64),
            gbps(r.l2_gbps, false),
            gbps(r.hbm_gbps, hbm_flag),
        );
    }
    let _ = writeln!(
        f,
        "(cycles: the mean over the seeds, range: half the spread; `=`: ties the fastest; `!`: above the chip's peak, see its flag)"
    );
    // A run that simulated part of the SM's share says so: its whole-kernel figures are
    // extrapolated from those CTAs.
    if let Some(r) = c
        .rows
        .iter()
        .find(|r| r.error.is_none() && r.ctas_simulated < r.ctas_per_sm)
    {
        let _ = writeln!(
            f,
            "(CTAs: each run simulated {} of the busiest SM's {}; the kernel time takes their first wave as run and the rest at the pace of the CTAs after it; --max-ctas N to choose)",
            r.ctas_simulated, r.ctas_per_sm
        );
    }
    let _ = writeln!(f);
    let _ = writeln!(f, "top stalls per role (share of the role's warp-cycles):");
    for r in c.rows.iter().filter(|r| r.error.is_none()) {
        for ro in &r.roles {
            let s: Vec<String> = ro
                .top_stalls
                .iter()
                .map(|(n, x)| format!("{n} {}", pct0(*x)))
                .collect();
            let _ = writeln!(
                f,
                "  {:<w$} {:<10} x{:<2} issue {:>4}  {}",
                r.schedule,
                ro.role,
                ro.warps_per_cta,
                pct0(ro.issue_share),
                s.join(", ")
            );
        }
    }
    let mut advised = String::new();
    for r in c.rows.iter().filter(|r| r.error.is_none()) {
        let Some(d) = &r.diagnosis else { continue };
        if let Some(p) = &d.critical_path {
            let _ = writeln!(
                advised,
                "  {:<w$} critical path {}",
                r.schedule,
                path_line(p)
            );
        }
        for x in &d.flags {
            let _ = writeln!(advised, "  {:<w$} ! {}", r.schedule, flag_text(x));
        }
        for a in &d.advice {
            let _ = writeln!(advised, "  {:<w$} {}", r.schedule, advice_text(a));
        }
    }
    if !advised.is_empty() {
        let _ = writeln!(
            f,
            "\ncritical path, flags and advice (each schedule's first seed):"
        );
        f.push_str(&advised);
    }
    if !c.explanation.is_empty() {
        let _ = writeln!(f);
        for e in &c.explanation {
            let _ = writeln!(f, "- {e}");
        }
    }
    f
}

/// A share as a whole percentage (the table's columns are narrow).
fn pct0(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}
