//! Two runs side by side: the first cycle where they behave differently, and how their
//! roles' state shares differ.

use sim_core::WarpState;
use sim_core::state::STATE_COUNT;

use crate::model::RunData;

/// The first cycle at which some warp present in both runs is in a different state
/// or charged to a different instruction, or a warp exists in one run only (its launch
/// cycle); None when the runs behave identically. A run still simulating is compared
/// only as far as it has got: what lies past its frontier is not known yet.
pub fn divergence(a: &RunData, b: &RunData) -> Option<u64> {
    let limit = a.frontier().into_iter().chain(b.frontier()).min();
    let limit = limit.unwrap_or(u64::MAX);
    let mut first: Option<u64> = None;
    let mut note = |c: u64| {
        if c < limit {
            first = Some(first.map_or(c, |f: u64| f.min(c)));
        }
    };
    for wa in &a.timeline.warps {
        let Some(j) = b.timeline.warp_index(wa.id) else {
            note(wa.started);
            continue;
        };
        let wb = &b.timeline.warps[j];
        if wa.started != wb.started {
            note(wa.started.min(wb.started));
            continue;
        }
        // Walk both interval lists together: at each boundary, compare what holds.
        let (mut i, mut k) = (0, 0);
        let mut c = wa.started;
        loop {
            let (x, y) = (wa.get(i), wb.get(k));
            match (x, y) {
                (None, None) => break,
                (Some(_), None) | (None, Some(_)) => {
                    note(c);
                    break;
                }
                (Some(x), Some(y)) => {
                    if x.state != y.state || x.pc != y.pc {
                        note(c);
                        break;
                    }
                    c = x.end.min(y.end);
                    if x.end == c {
                        i += 1;
                    }
                    if y.end == c {
                        k += 1;
                    }
                }
            }
        }
    }
    for wb in &b.timeline.warps {
        if a.timeline.warp_index(wb.id).is_none() {
            note(wb.started);
        }
    }
    first
}

/// Cycles per state of each role over `[from, to)`: `(role name, states)`.
pub fn role_states(run: &RunData, from: u64, to: u64) -> Vec<(String, [u64; STATE_COUNT])> {
    let mut out: Vec<(String, [u64; STATE_COUNT])> = run
        .roles
        .iter()
        .map(|r| (r.clone(), [0; STATE_COUNT]))
        .collect();
    for w in &run.timeline.warps {
        let s = w.states_in(from, to);
        if let Some(slot) = out.get_mut(w.role as usize) {
            for (acc, v) in slot.1.iter_mut().zip(s) {
                *acc += v;
            }
        }
    }
    out
}

/// Share of `s` in `states` (0 when empty).
pub fn share(states: &[u64; STATE_COUNT], s: WarpState) -> f64 {
    let total: u64 = states.iter().sum();
    if total == 0 {
        0.0
    } else {
        states[s.index()] as f64 / total as f64
    }
}
