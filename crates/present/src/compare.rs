//! A family's schedules side by side (`smsim compare`): cycles, time, throughput and
//! units per schedule, the top stalls per role, and why the fastest wins.

use std::fmt::Write as _;

use traces::Comparison;

/// A share as a whole percentage: `0.123` is `12%`.
fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// The comparison as `smsim compare` prints it.
pub fn render(c: &Comparison) -> String {
    let mut o = String::new();
    let params: Vec<String> = c.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let _ = writeln!(o, "{} on {} ({})", c.family, c.profile, params.join(" "));
    let _ = writeln!(
        o,
        "{:<18} {:>10} {:>9} {:>10} {:>11} {:>7} {:>6} {:>5} {:>5} {:>5}",
        "schedule",
        "cycles",
        "SM us",
        "kernel us",
        "throughput",
        "speedup",
        "tensor",
        "TMA",
        "MUFU",
        "FMA"
    );
    for r in &c.rows {
        if let Some(e) = &r.error {
            let first = e.lines().next().unwrap_or("");
            let _ = writeln!(o, "{:<18} FAILED: {first}", r.schedule);
            continue;
        }
        let tp = match (r.tflops, r.gbps) {
            (Some(t), _) if t >= 0.1 => format!("{t:.1} TF/s"),
            (_, Some(g)) => format!("{g:.0} GB/s"),
            _ => "-".into(),
        };
        let _ = writeln!(
            o,
            "{:<18} {:>10} {:>9.2} {:>10.2} {:>11} {:>6.2}x {:>6} {:>5} {:>5} {:>5}",
            r.schedule,
            r.cycles,
            r.time_us,
            r.kernel_time_us,
            tp,
            r.speedup,
            pct(r.tensor),
            pct(r.tma),
            pct(r.mufu),
            pct(r.fma)
        );
    }
    let _ = writeln!(o);
    let _ = writeln!(o, "top stalls per role (share of the role's warp-cycles):");
    for r in c.rows.iter().filter(|r| r.error.is_none()) {
        for ro in &r.roles {
            let s: Vec<String> = ro
                .top_stalls
                .iter()
                .map(|(n, x)| format!("{n} {}", pct(*x)))
                .collect();
            let _ = writeln!(
                o,
                "  {:<18} {:<10} x{:<2} issue {:>4}  {}",
                r.schedule,
                ro.role,
                ro.warps_per_cta,
                pct(ro.issue_share),
                s.join(", ")
            );
        }
    }
    if !c.explanation.is_empty() {
        let _ = writeln!(o);
        for e in &c.explanation {
            let _ = writeln!(o, "- {e}");
        }
    }
    o
}
