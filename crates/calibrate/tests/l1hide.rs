//! The engine on the 96 `gap.l1hide` points (data/gaps/l1hide: the latency-hiding L1
//! walk at K 1 to 32, 12 to 24 warps, the warps' walks aligned or staggered), never
//! fitted. Near the crowding edge a launch runs in one of two states (one line a cycle
//! or about 1.18), the state set by how the warps start, so a point's median is that of
//! whichever state most of its five launches fell into: the engine is scored against
//! the band of every launch of both runs as well as against the first run's medians.

use calibrate::validation::{HidePoint, L1HIDE_RUNS, l1hide_points, simulate_l1hide};
use sim_core::Profile;

/// A point's every launch over both runs, with the first run's point.
fn pooled() -> Vec<(HidePoint, Vec<f64>)> {
    let runs: Vec<Vec<HidePoint>> = L1HIDE_RUNS
        .iter()
        .map(|f| l1hide_points(&calibrate::load_data(f).unwrap()))
        .collect();
    runs[0]
        .iter()
        .map(|p| {
            let reps = runs
                .iter()
                .flatten()
                .filter(|q| q.bench == p.bench)
                .flat_map(|q| q.reps.iter().copied())
                .collect();
            (p.clone(), reps)
        })
        .collect()
}

/// Cycles a line: cycles per iteration over the warps' 32 lines each.
fn per_line(cycles: f64, warps: u32) -> f64 {
    cycles / (32.0 * f64::from(warps))
}

#[test]
fn the_engine_on_the_l1hide_points() {
    let points = pooled();
    assert_eq!(points.len(), 96, "both runs hold the 96 points");
    let p = Profile::builtin("h100").unwrap();
    let (mut abs, mut in_band) = (0.0, 0);
    let (mut crowded_misses, mut crowded_points) = (Vec::new(), 0);
    for (pt, reps) in &points {
        assert_eq!(reps.len(), 10, "{}: five launches in each run", pt.bench);
        let sim = simulate_l1hide(pt, 64, &p).unwrap();
        abs += (sim / pt.median - 1.0).abs();
        let lo = reps.iter().copied().fold(f64::MAX, f64::min);
        let hi = reps.iter().copied().fold(0.0, f64::max);
        if sim >= lo * 0.98 && sim <= hi * 1.02 {
            in_band += 1;
        }
        // Aligned walks at 16 to 20 warps whose every launch ran crowded (the state the
        // engine's L1 crowd models): within 2.5% of the median.
        let crowded = reps
            .iter()
            .all(|&r| per_line(r, pt.warps) > 1.1 && per_line(r, pt.warps) < 1.25);
        if pt.stagger == 0 && (16..=20).contains(&pt.warps) && crowded {
            crowded_points += 1;
            let e = sim / pt.median - 1.0;
            if e.abs() > 0.025 {
                crowded_misses.push(format!("{} {:+.1}%", pt.bench, 100.0 * e));
            }
        }
    }
    let mape = 100.0 * abs / points.len() as f64;
    eprintln!(
        "l1hide: MAPE {mape:.2}% on the first run's medians, {in_band} of 96 in the launches' \
         band; {crowded_points} aligned points crowded in every launch"
    );
    // (12 in the committed runs: the check is not empty)
    assert!(
        crowded_points >= 9,
        "{crowded_points} points crowded in every launch"
    );
    assert!(crowded_misses.is_empty(), "{crowded_misses:?}");
    // The engine at this commit (no state choice, no stagger in the crowd's cost): 5.79%,
    // 34 of 96. A change to the L1 model must not lose ground here.
    assert!(mape <= 5.8, "MAPE {mape:.2}%");
    assert!(in_band >= 34, "{in_band} of 96 in band");
}
