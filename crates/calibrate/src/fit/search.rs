//! A fitted quantity and the two searches over one: the 1-D grid search and the
//! coordinate descent.

use super::*;

/// A fitted quantity: one or more profile parameters moved together (value + offset).
#[derive(Clone, Debug)]
pub(super) struct Var {
    pub(super) name: &'static str,
    pub(super) sets: Vec<(&'static str, f64)>,
    pub(super) integer: bool,
    pub(super) lo: f64,
    pub(super) hi: f64,
    /// Benchmark name prefixes that isolate it.
    pub(super) benches: &'static [&'static str],
}

pub(super) fn set_var(p: &mut Profile, v: &Var, x: f64) -> bool {
    let x = if v.integer { x.round() } else { x };
    for (name, off) in &v.sets {
        let val = if v.integer {
            (x + off).round()
        } else {
            x + off
        };
        if p.set(name, val).is_err() {
            return false;
        }
    }
    true
}

pub(super) fn get_var(p: &Profile, v: &Var) -> f64 {
    let (n, off) = v.sets[0];
    p.file.params[n].value - off
}

/// 1-D search of `v` on the twins in `ts`: a grid over [lo, hi], then finer grids around
/// the best point until the step is one unit (integers) or 0.1% (reals).
pub(super) fn search(p: &Profile, v: &Var, ts: &[&Target]) -> f64 {
    let cost = |x: f64| -> f64 {
        let mut q = p.clone();
        if !set_var(&mut q, v, x) {
            return f64::INFINITY;
        }
        sse(ts, &eval_many(ts, &q))
    };
    let (mut lo, mut hi) = (v.lo, v.hi);
    let mut best = (get_var(p, v), cost(get_var(p, v)));
    for _ in 0..12 {
        let n = 10;
        let pts: Vec<f64> = (0..=n)
            .map(|i| lo + (hi - lo) * i as f64 / n as f64)
            .map(|x| if v.integer { x.round() } else { x })
            .collect();
        let mut pts2 = pts.clone();
        pts2.dedup();
        let costs: Vec<(f64, f64)> = pts2.iter().map(|&x| (x, cost(x))).collect();
        for &(x, c) in &costs {
            if c < best.1 - 1e-12 {
                best = (x, c);
            }
        }
        let step = (hi - lo) / n as f64;
        if (v.integer && step <= 1.0) || (!v.integer && step <= best.0.abs() * 1e-3) {
            break;
        }
        lo = (best.0 - step).max(v.lo);
        hi = (best.0 + step).min(v.hi);
    }
    best.0
}

/// Coordinate descent on one parameter from `x0`: a step of `first` times its value (at
/// least 1 for an integer) to either side, keeping the first candidate within `lo..=hi`
/// that `accept` takes (it applies the candidate when it takes it), and halving the step
/// when it takes neither, until the step is 1 (integers) or `last` times the value.
pub(super) fn descend(
    x0: f64,
    integer: bool,
    lo: f64,
    hi: f64,
    first: f64,
    last: f64,
    mut accept: impl FnMut(f64) -> bool,
) {
    let mut step = if integer {
        (x0 * first).round().max(1.0)
    } else {
        (x0 * first).max(1e-3)
    };
    let mut x = x0;
    loop {
        let moved = [x - step, x + step]
            .into_iter()
            .find(|&cand| (lo..=hi).contains(&cand) && accept(cand));
        match moved {
            Some(cand) => x = cand,
            None => {
                if (integer && step <= 1.0) || (!integer && step <= x.abs() * last) {
                    break;
                }
                step = if integer {
                    (step / 2.0).floor().max(1.0)
                } else {
                    step / 2.0
                };
            }
        }
    }
}
