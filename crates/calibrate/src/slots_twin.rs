//! The engine's twin of `data/gaps/diverge/div_ldc.cu` part C (`k_slots`): one warp, a
//! loop whose iteration holds 16 guarded slots (`if (j < q)`, each 16 dependent FADDs),
//! built from the kernel's SASS as ptxas emitted it.
//!
//! ptxas unrolled the iteration loop by two and set the slots' predicates in advance
//! (ISETP on the runtime `q`, some kept across both iterations, some recomputed right
//! before their branch), so a trip of the SASS loop is two iterations: 32 forward
//! branches `@!Pn BRA` over a slot each, then the back branch. The twin walks that path
//! for a given `q`: slot `j` (its forward branch's rank in the trip, modulo 16) runs
//! when `j < q`, its branch not taken (a guard declared false: the issue slot and the
//! stall count only); otherwise the branch is taken (`BRA`: the target's fetch, as the
//! engine times a taken branch) and the path continues at its target. The other
//! instructions are translated as the validation twins' (`translate_scalar`) with their
//! control codes' stall counts; the FADDs are themselves.

use sim_core::Profile;

use crate::sass::{sass_listing, with_stall};
use crate::twins::{sim_text, span};
use crate::validation::{RegMap, Tok, branch_target, strip_guard, translate_scalar};

/// The committed SASS dump holding `k_slots` (`diverge/`'s complete run).
pub const SLOTS_SASS_PATH: &str = "data/gaps/diverge/h100-20261128T013142Z-sass.txt.gz";

/// The measured kernel: `k_slots<0>` (the 16 slots).
const SLOTS_FUNCTION: &str = "_Z7k_slotsILi0EEviPyPf";

/// Iterations of the source loop per trip of the SASS loop (ptxas unrolled it by two).
const ITERATIONS_PER_TRIP: f64 = 2.0;

/// Slots per source iteration.
const SLOTS: i64 = 16;

/// The GPU's cycles per iteration (`h100-20261128T013142Z-div_ldc.txt`), by `q`.
pub const MEASURED: [(i64, f64); 3] = [(0, 388.85), (8, 843.35), (16, 1304.85)];

/// The path one trip of the SASS loop takes with `q` slots run per iteration:
/// (instruction, stall count, whether it is a branch taken).
fn trip_path(lines: &[(u64, String, u8)], q: i64) -> Result<Vec<(String, u8, bool)>, String> {
    let (e, top) = lines
        .iter()
        .enumerate()
        .find_map(|(i, (a, ins, _))| {
            let t = branch_target(ins)?;
            (ins.starts_with('@') && t < *a).then_some((i, t))
        })
        .ok_or("k_slots: no back branch in the SASS")?;
    let mut i = lines
        .iter()
        .position(|l| l.0 == top)
        .ok_or("k_slots: the back branch's target is not an instruction")?;
    let mut out = Vec::new();
    let mut slot = 0i64;
    while i <= e {
        let (addr, ins, stall) = &lines[i];
        let bare = strip_guard(ins);
        if i == e {
            out.push((ins.clone(), *stall, true));
            break;
        }
        if !bare.starts_with("BRA") {
            out.push((ins.clone(), *stall, false));
            i += 1;
            continue;
        }
        let t = branch_target(ins)
            .filter(|t| t > addr && ins.starts_with('@'))
            .ok_or_else(|| format!("k_slots: unexpected branch in the loop: {ins}"))?;
        let runs = slot % SLOTS < q;
        slot += 1;
        out.push((ins.clone(), *stall, !runs));
        i = if runs {
            i + 1
        } else {
            lines
                .iter()
                .position(|l| l.0 == t)
                .ok_or_else(|| format!("k_slots: no instruction at {t:#x}"))?
        };
    }
    if slot != 2 * SLOTS {
        return Err(format!(
            "k_slots: {slot} slots in a trip of the SASS loop, not {}",
            2 * SLOTS
        ));
    }
    Ok(out)
}

/// The twin's kernel text: `{N}` trips of the SASS loop with `q` slots run per
/// iteration, from the SASS dump `sass` (`SLOTS_SASS_PATH`'s text).
pub fn slots_twin_text(sass: &str, q: i64) -> Result<String, String> {
    let lines = sass_listing(sass, SLOTS_FUNCTION);
    if lines.is_empty() {
        return Err(format!("{SLOTS_FUNCTION}: not in the SASS"));
    }
    let path = trip_path(&lines, q)?;
    let toks: Vec<Tok> = path
        .iter()
        .map(|(ins, st, _)| Tok::Sass(ins.clone(), *st))
        .collect();
    let m = RegMap::for_path(&toks, 0)?;
    // A branch not taken is guarded by a predicate declared false (`UP0`: the SASS
    // names no uniform predicate), so that it issues and is not taken.
    let mut body = String::new();
    for (ins, stall, taken) in &path {
        let bare = strip_guard(ins);
        let line = if bare.starts_with("BRA") {
            if *taken {
                "BRA".into()
            } else {
                "@UP0 BRA".into()
            }
        } else if bare.starts_with("FADD") {
            bare.replace(".reuse", "")
        } else {
            translate_scalar(ins, &m)
        };
        body.push_str(&format!("    {}  # {ins}\n", with_stall(&line, *stall)));
    }
    Ok(format!(
        "# twin of k_slots (data/gaps/diverge/div_ldc.cu part C), q = {q}\n\
         kernel k_slots\nlaunch cta_threads=32 regs=64 smem=0 grid=1\n\
         pred UP0 = 0\nrole main warps=0..0\n  loop i 0..{{N}}\n{body}  EXIT\n"
    ))
}

/// The twin's cycles per source iteration with `q` slots run: the slope between 16 and
/// 48 trips of the SASS loop, over its two iterations a trip.
pub fn simulate_slots(sass: &str, q: i64, p: &Profile) -> Result<f64, String> {
    let text = slots_twin_text(sass, q)?;
    let (lo, hi) = (16i64, 48i64);
    let a = span(&sim_text(&text, lo, p)?);
    let b = span(&sim_text(&text, hi, p)?);
    Ok((b - a) / (hi - lo) as f64 / ITERATIONS_PER_TRIP)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sass() -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SLOTS_SASS_PATH);
        crate::datafile::read_text(&path).unwrap()
    }

    fn taken(path: &[(String, u8, bool)]) -> usize {
        path.iter().filter(|x| x.2).count()
    }

    /// A trip is two iterations: every slot's branch taken with q = 0 (32 and the back
    /// branch), half of them with q = 8, only the back branch with q = 16; the FADDs
    /// run are 16 a slot run.
    #[test]
    fn the_path_takes_the_branches_of_the_skipped_slots() {
        let lines = sass_listing(&sass(), SLOTS_FUNCTION);
        for (q, branches) in [(0, 33), (8, 17), (16, 1)] {
            let p = trip_path(&lines, q).unwrap();
            assert_eq!(taken(&p), branches, "q = {q}");
            let fadds = p.iter().filter(|x| x.0.starts_with("FADD")).count();
            assert_eq!(fadds as i64, 2 * 16 * q, "q = {q}");
        }
        assert!(
            trip_path(&lines, 0)
                .unwrap()
                .last()
                .unwrap()
                .0
                .contains("BRA 0x270")
        );
    }

    /// With every slot skipped the engine is 42% short of the GPU unless a taken
    /// branch's target waits `taken_branch_cycles` (15, measured here) after it; with
    /// every slot run (no branch taken but the back branch) it is within 1% either way.
    #[test]
    fn skipped_slots_need_the_taken_branch_cost() {
        let s = sass();
        let mut p = Profile::builtin("h100").unwrap();
        let err = |p: &Profile, q: i64| {
            let gpu = MEASURED.iter().find(|m| m.0 == q).unwrap().1;
            simulate_slots(&s, q, p).unwrap() / gpu - 1.0
        };
        p.set("taken_branch_cycles", 0.0).unwrap();
        assert!(err(&p, 0) < -0.40, "{}", err(&p, 0));
        assert!(err(&p, 16).abs() < 0.01, "{}", err(&p, 16));
        p.set("taken_branch_cycles", 15.0).unwrap();
        for q in [0, 8, 16] {
            assert!(err(&p, q).abs() < 0.03, "q = {q}: {}", err(&p, q));
        }
    }
}
