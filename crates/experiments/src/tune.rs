//! Schedule search: a family's schedules over ranges of its parameters, exhaustively or
//! by a seeded random sample within a budget of points, run as a sweep (so a search is
//! resumable and its rows plottable), then ranked: the best points and the Pareto front
//! of time against shared memory and registers.

use crate::metrics::Cell;
use crate::spec::{ListedPoint, Spec};
use crate::table::Table;

/// What to search.
#[derive(Clone, Debug)]
pub struct Search {
    /// The family.
    pub family: String,
    /// Parameter ranges (parameters not named keep their defaults).
    pub params: Vec<(String, Vec<i64>)>,
    /// At most this many points; fewer candidates than that are all run.
    pub budget: usize,
    /// The sample's seed (and the runs' seed).
    pub seed: u64,
}

/// splitmix64: a small generator whose sequence is fixed by its seed on every machine.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The search as a sweep spec: every (schedule, parameter values) candidate if they fit
/// the budget, else a seeded sample of `budget` of them (in candidate order). Returns
/// the spec and how many candidates there were.
pub fn spec(s: &Search) -> Result<(Spec, usize), String> {
    let f = traces::family(&s.family)?;
    for (k, _) in &s.params {
        if !f.params.iter().any(|p| p.name == k) {
            let known: Vec<&str> = f.params.iter().map(|p| p.name).collect();
            return Err(format!(
                "family `{}` has no parameter `{k}`{}",
                f.name,
                crate::spec::did_you_mean(k, &known)
                    .map(|h| format!(" ({h})"))
                    .unwrap_or_default()
            ));
        }
    }
    let mut combos: Vec<Vec<i64>> = vec![vec![]];
    for (_, vals) in &s.params {
        combos = combos
            .iter()
            .flat_map(|c| {
                vals.iter().map(move |v| {
                    let mut c = c.clone();
                    c.push(*v);
                    c
                })
            })
            .collect();
    }
    let mut candidates: Vec<(String, Vec<i64>)> = Vec::new();
    for sched in f.schedules {
        for c in &combos {
            candidates.push((format!("{}/{}", f.name, sched.name), c.clone()));
        }
    }
    let n = candidates.len();
    if s.budget == 0 {
        return Err("--budget 0 runs nothing".into());
    }
    if n > s.budget {
        // A partial Fisher-Yates shuffle picks `budget` distinct candidates; sorted back
        // into candidate order so the rows read as a sweep's.
        let mut idx: Vec<usize> = (0..n).collect();
        let mut state = s.seed;
        for i in 0..s.budget {
            let j = i + (splitmix(&mut state) % (n - i) as u64) as usize;
            idx.swap(i, j);
        }
        let mut pick: Vec<usize> = idx[..s.budget].to_vec();
        pick.sort_unstable();
        candidates = pick.into_iter().map(|i| candidates[i].clone()).collect();
    }
    let spec = Spec {
        title: Some(format!("tune {}", f.name)),
        seeds: vec![s.seed],
        points: candidates
            .into_iter()
            .map(|(k, vals)| ListedPoint {
                kernel: Some(k),
                params: s.params.iter().map(|p| p.0.clone()).zip(vals).collect(),
                sets: vec![],
            })
            .collect(),
        base_dir: ".".into(),
        ..Spec::default()
    };
    Ok((spec, n))
}

/// A ranked point.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranked {
    /// The row's point index.
    pub point: usize,
    /// Kernel and parameters, as a label.
    pub label: String,
    /// The metric.
    pub time: f64,
    /// Shared memory per CTA (bytes).
    pub smem: f64,
    /// Registers per thread.
    pub regs: f64,
}

/// The best points by `metric` (lowest first) and the Pareto front of (metric, smem,
/// regs), all minimized: points no other point beats or equals on all three while beating
/// on one. Failed points are left out (counted in the third value).
pub fn rank(t: &Table, metric: &str) -> Result<(Vec<Ranked>, Vec<Ranked>, usize), String> {
    let (mi, si, ri, pi, ki) = (
        t.column(metric)?,
        t.column("smem")?,
        t.column("regs")?,
        t.column("point")?,
        t.column("kernel")?,
    );
    let params: Vec<usize> = (0..t.columns.len())
        .filter(|&i| t.columns[i].starts_with("param."))
        .collect();
    let mut ok = Vec::new();
    let mut failed = 0;
    for r in &t.rows {
        let (Some(m), Some(s), Some(g)) = (r[mi].as_f64(), r[si].as_f64(), r[ri].as_f64()) else {
            failed += 1;
            continue;
        };
        let mut label = r[ki].label();
        for &p in &params {
            if r[p] != Cell::Null {
                label.push_str(&format!(
                    " {}={}",
                    &t.columns[p]["param.".len()..],
                    r[p].label()
                ));
            }
        }
        ok.push(Ranked {
            point: r[pi].as_f64().unwrap_or(0.0) as usize,
            label,
            time: m,
            smem: s,
            regs: g,
        });
    }
    ok.sort_by(|a, b| a.time.total_cmp(&b.time).then(a.point.cmp(&b.point)));
    let dominated = |a: &Ranked| {
        ok.iter().any(|b| {
            b.time <= a.time
                && b.smem <= a.smem
                && b.regs <= a.regs
                && (b.time < a.time || b.smem < a.smem || b.regs < a.regs)
        })
    };
    let front: Vec<Ranked> = ok.iter().filter(|a| !dominated(a)).cloned().collect();
    Ok((ok, front, failed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(point: i64, time: f64, smem: i64, regs: i64) -> Vec<Cell> {
        vec![
            Cell::Int(point),
            Cell::Text("k".into()),
            Cell::Float(time),
            Cell::Int(smem),
            Cell::Int(regs),
        ]
    }

    #[test]
    fn the_front_keeps_points_nothing_beats_on_every_count() {
        let cols = ["point", "kernel", "time_us", "smem", "regs"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let t = Table::new(
            cols,
            vec![
                row(0, 10.0, 200, 168), // fastest
                row(1, 12.0, 100, 168), // slower, less smem: on the front
                row(2, 12.0, 200, 168), // beaten by 0 on time, equal otherwise
                row(3, 15.0, 100, 128), // fewer registers: on the front
                row(4, 16.0, 100, 128), // beaten by 3
                vec![
                    Cell::Int(5),
                    Cell::Text("k".into()),
                    Cell::Null,
                    Cell::Int(1),
                    Cell::Int(1),
                ],
            ],
        );
        let (best, front, failed) = rank(&t, "time_us").unwrap();
        assert_eq!(failed, 1);
        let order: Vec<usize> = best.iter().map(|r| r.point).collect();
        assert_eq!(order, [0, 1, 2, 3, 4]);
        let f: Vec<usize> = front.iter().map(|r| r.point).collect();
        assert_eq!(f, [0, 1, 3]);
    }

    #[test]
    fn a_sample_within_the_budget_is_fixed_by_its_seed() {
        let s = Search {
            family: "gemm-mainloop".into(),
            params: vec![("PIPE".into(), vec![1, 2, 3, 4])],
            budget: 5,
            seed: 7,
        };
        let (a, n) = spec(&s).unwrap();
        assert_eq!(
            n,
            4 * traces::family("gemm-mainloop").unwrap().schedules.len()
        );
        assert_eq!(a.points.len(), 5);
        assert_eq!(spec(&s).unwrap().0, a);
        let other = spec(&Search {
            seed: 8,
            ..s.clone()
        })
        .unwrap()
        .0;
        assert_ne!(other.points, a.points);
        // Within the budget: every candidate.
        let all = spec(&Search { budget: 100, ..s }).unwrap().0;
        assert_eq!(all.points.len(), n);
        let e = spec(&Search {
            family: "gemm-mainloop".into(),
            params: vec![("PIPES".into(), vec![1])],
            budget: 5,
            seed: 1,
        })
        .unwrap_err();
        assert!(e.contains("did you mean PIPE?"), "{e}");
    }
}
