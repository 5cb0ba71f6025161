//! Which twins a fitted parameter moves: those naming it and those [`MOVES_ALSO`] lists.

use super::*;

/// Twins a fitted parameter moves without naming it in their `params` (a copy twin's
/// loop also polls its mbarrier, a stream's twin also runs a branch...), found by
/// moving every parameter and re-running every twin (`examples/deps.rs`; the test
/// `fit_report::fitted_parameters_know_their_twins` keeps the table whole): the joint
/// refinement re-runs these too when it moves the parameter, so it never decides on a
/// twin's stale value.
pub const MOVES_ALSO: &[(&str, &[&str])] = &[
    ("lat_alu", &["tp.lds"]),
    (
        "branch_target_cycles",
        &[
            "tp.",
            "sched.",
            "regbank.",
            "bw.tma.hbm.one_sm.",
            "bw.tma.l2.one_sm.",
        ],
    ),
    ("smem_bytes_per_clk", &["lat.ldgsts."]),
    ("l2_line_cycles", &["bw.l2.one_sm.", "bw.hbm.one_sm."]),
    ("lat_l2_far", &["bw.tma.l2."]),
    ("lat_hbm", &["bw.l2.one_sm.", "bw.l2.chip."]),
    (
        "jitter_hbm",
        &[
            "bw.l2.one_sm.",
            "bw.hbm.",
            "bw.l2.chip.",
            "lat.ldg.",
            "lat.ldgsts.",
            "lat.ldg_lines.l2.",
        ],
    ),
    ("l2_bytes_per_clk_chip", &["bw.hbm.chip."]),
    ("l2_bytes_per_clk_sm_max", &["lat.ldg_lines.l2."]),
    ("hbm_bytes_per_clk_chip", &["bw.l2.chip."]),
    ("hbm_bytes_per_clk_sm_max", &["bw.l2.one_sm."]),
    ("tma_tensor_extra_latency", &["lat.tma2d."]),
    ("tma_min_latency", &["lat.bulk.l2.", "lat.tma2d.l2."]),
    ("lat_mbarrier_probe", &["bw.tma."]),
];

/// Whether the twin `t` depends on the profile parameter `param`: it says so, or
/// [`MOVES_ALSO`] does.
pub fn depends_on(t: &Twin, param: &str) -> bool {
    t.params.contains(&param)
        || MOVES_ALSO
            .iter()
            .any(|(p, benches)| *p == param && matches(&t.bench, benches))
}

/// The names of the parameters the fit searches (each of a fitted quantity's
/// parameters), in the order it takes them.
pub fn fitted_parameters() -> Vec<&'static str> {
    let prior = Profile::builtin("h100").expect("the built-in h100 profile loads");
    vars(&prior, 0.0)
        .iter()
        .flat_map(|v| v.sets.iter().map(|(n, _)| *n))
        .collect()
}

pub(super) fn matches(bench: &str, prefixes: &[&str]) -> bool {
    prefixes.iter().any(|p| bench == *p || bench.starts_with(p))
}
