//! The data-parallel singe-viscosity validation twin (`val.singe.data-parallel.*`,
//! `kernels/singe.cu`'s `sv_data_parallel_nN`) built from its SASS, instruction for
//! instruction, as the gemm-mainloop and TMA-streaming twins are.
//!
//! The library's generator writes what the kernel means: per point, every species'
//! x_j and s_j, then for every k the pairs two at a time, each pair's two chains of six
//! DFMA. ptxas, with SPECIES a compile-time constant, made something else of it: the
//! per-species s_j depends on T alone, so it is computed once (one EX2, one RSQ) and the
//! 30 or 60 X loads are issued back to back; the k loop (not unrolled) loads all of row
//! k's pair constants first (LDG.E.128.CONSTANT, warp-uniform), then interleaves the
//! pairs' DFMA chains (four to six chains in flight), selects x_k and s_k with FSEL
//! chains and takes the reciprocal through MUFU.RCP. The twin is the whole function from
//! the first clock read to the last (the prologue, the k loop as the engine's `loop`, the
//! store of nu): DFMA with the SASS's registers (their dependencies are the chains'),
//! the loads and the store with the measured kernel's addresses, MUFU and F2F as the
//! engine's XU instructions, every other instruction by pipe and latency class
//! (`translate_scalar`), each with its control code's stall count. The reciprocal's
//! slow path (a call for denormal and huge values) is never taken.

use sim_core::{Profile, RunResult};

use crate::library::LibraryCase;
use crate::sass::{sass_listing, with_stall};
use crate::twins::{sim_text_warm, span};
use crate::validation::{
    RegMap, SReg, Tok, branch_target, operand_regs, strip_guard, translate_scalar,
};

/// `cuobjdump -res-usage -sass` of the data-parallel kernels of the `validation_singe30`
/// and `validation_singe60` cubins that ran (`data/validation/h100-20261127T104407Z.json`).
pub const SINGE_SASS: &str =
    include_str!("../data/validation/h100-20261127T104407Z.singe-dp.sass.txt");

/// The instructions of the function's timed path: the prologue (from the first
/// instruction), the k loop's body (its back branch last) and the epilogue up to the
/// second clock read; (address, instruction, stall count) each.
type Listing = Vec<(u64, String, u8)>;

fn parts(func: &str) -> Result<(Listing, Listing, Listing), String> {
    let l = sass_listing(SINGE_SASS, func);
    if l.is_empty() {
        return Err(format!("{func}: not in the committed SASS"));
    }
    let (e, s) = l
        .iter()
        .enumerate()
        .find_map(|(i, (a, ins, _))| {
            let t = branch_target(ins).filter(|t| t < a && ins.starts_with('@'))?;
            Some((i, l.iter().position(|x| x.0 == t)?))
        })
        .ok_or_else(|| format!("{func}: no k loop"))?;
    let end = l[e + 1..]
        .iter()
        .position(|x| x.1.contains("SR_CLOCKLO"))
        .map(|p| e + 1 + p)
        .ok_or_else(|| format!("{func}: no clock read after the k loop"))?;
    let body = path(&l[s..=e])?;
    Ok((l[..s].to_vec(), body, l[e + 1..end].to_vec()))
}

/// The loop body as run: a forward branch over the reciprocal's slow path (a CALL) is
/// taken; any other forward branch is an error (the kernel has none).
fn path(body: &[(u64, String, u8)]) -> Result<Listing, String> {
    let mut out = Vec::new();
    let mut i = 0;
    let last = body.len() - 1;
    while i < body.len() {
        let (a, ins, st) = &body[i];
        out.push((*a, ins.clone(), *st));
        let bare = strip_guard(ins);
        if i < last && bare.starts_with("BRA") {
            let t = branch_target(&format!(" {ins}")).ok_or("branch without target")?;
            let j = body
                .iter()
                .position(|x| x.0 == t)
                .ok_or_else(|| format!("branch out of the loop: {ins}"))?;
            let slow = body[i + 1..j].iter().any(|x| x.1.starts_with("CALL"));
            if !slow && ins.starts_with('@') {
                return Err(format!("unexpected branch in the k loop: {ins}"));
            }
            i = j;
            continue;
        }
        i += 1;
    }
    Ok(out)
}

/// A register operand without its sign, absolute value or `.reuse`; an immediate
/// becomes RZ.
fn reg(op: &str) -> String {
    let o = op
        .trim()
        .trim_start_matches('-')
        .trim_matches('|')
        .replace(".reuse", "");
    if o.starts_with('R') && o[1..].chars().all(|c| c.is_ascii_digit()) || o == "RZ" {
        o
    } else {
        "RZ".into()
    }
}

/// What the twin issues for one SASS instruction (None: translate it as scalar).
/// `loads` counts the prologue's LDG.E.64: T first, then X row by row.
fn map(ins: &str, loads: &mut usize) -> Option<String> {
    let bare = strip_guard(ins);
    let (op, rest) = bare.split_once(' ').unwrap_or((bare, ""));
    let ops: Vec<&str> = rest.split(',').map(str::trim).collect();
    let point = "(cta * 256 + warp * 32 + lane)";
    Some(match op {
        "DFMA" => format!(
            "DFMA {}, {}, {}, {}",
            reg(ops[0]),
            reg(ops.get(1)?),
            reg(ops.get(2)?),
            reg(ops.get(3)?)
        ),
        "LDG.E.64" => {
            let n = *loads;
            *loads += 1;
            if n == 0 {
                format!("LDG.E.64 {}, T[{point} * 8]", reg(ops[0]))
            } else {
                format!(
                    "LDG.E.64 {}, X[({} * POINTS + {point}) * 8]",
                    reg(ops[0]),
                    n - 1
                )
            }
        }
        "LDG.E.128.CONSTANT" => {
            let off = rest
                .rsplit_once('+')
                .and_then(|(_, o)| o.trim_end_matches(']').trim().strip_prefix("0x"))
                .and_then(|o| u64::from_str_radix(o, 16).ok())
                .unwrap_or(0);
            format!(
                "LDG.E.128.CONSTANT {}, C[k * SPECIES * 16 + {off}]",
                reg(ops[0])
            )
        }
        "STG.E.64" => format!("STG.E.64 OUT[{point} * 8], {}", reg(ops.last()?)),
        _ if op.starts_with("F2F") => format!("F2F {}, {}", reg(ops[0]), reg(ops.get(1)?)),
        _ if op.starts_with("CALL") => return None,
        _ => return None,
    })
}

/// The data-parallel twin's kernel text at the case's SPECIES, POINTS and grid.
pub fn singe_twin_text(c: &LibraryCase) -> Result<String, String> {
    let sp = c.get("SPECIES");
    let points = c.get("POINTS");
    let warps = c.get("WARPS");
    if warps != 8 || points != 256 * c.grid {
        return Err(format!(
            "{}: the SASS is of 8 warps and 256 points per CTA",
            c.bench
        ));
    }
    let func = format!("sv_data_parallel_n{sp}");
    let (pro, body, epi) = parts(&func)?;
    let all: Vec<Tok> = pro
        .iter()
        .chain(&body)
        .chain(&epi)
        .map(|(_, i, s)| Tok::Sass(i.clone(), *s))
        .collect();
    let m = RegMap::for_path(&all, 0)?;
    let mut loads = 0;
    let mut max_reg = 0;
    let mut emit = |part: &[(u64, String, u8)], indent: &str, out: &mut String| {
        for (_, ins, st) in part {
            let line = map(ins, &mut loads).unwrap_or_else(|| translate_scalar(ins, &m));
            for r in operand_regs(&line) {
                if let SReg::R(n) = r {
                    max_reg = max_reg.max(n + 2);
                }
            }
            out.push_str(&format!("{indent}{}  # {ins}\n", with_stall(&line, *st)));
        }
    };
    let mut code = String::new();
    emit(&pro, "  ", &mut code);
    code.push_str("  loop k 0..SPECIES\n");
    emit(&body, "    ", &mut code);
    emit(&epi, "  ", &mut code);
    code.push_str("  EXIT\n");
    let regs = max_reg.div_ceil(8) * 8;
    Ok(format!(
        "kernel {func}\n\
         launch cta_threads=256 regs={regs} smem=0 grid={}\n\
         buffer T global size={}\n\
         buffer X global size={}\n\
         buffer C global size={}\n\
         buffer OUT global size={}\n\
         param SPECIES={sp} POINTS={points}\n\n\
         role main warps=0..7\n{code}",
        c.grid,
        points * 8,
        sp * points * 8,
        sp * sp * 16,
        points * 8
    ))
}

/// The twin's cycles (first warp's start to the last warp's end of the simulated SM's
/// CTA) and its run, T, X and C in L2 (the launch before read them).
pub fn simulate_singe(c: &LibraryCase, p: &Profile) -> Result<(f64, RunResult), String> {
    let r = sim_text_warm(&singe_twin_text(c)?, 0, p, &["T", "X", "C"])?;
    Ok((span(&r), r))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(sp: i64, grid: i64) -> LibraryCase {
        LibraryCase {
            family: "singe-viscosity",
            bench: "val.singe.data-parallel.x".into(),
            schedule: "data-parallel".into(),
            params: vec![
                ("SPECIES".into(), sp),
                ("WARPS".into(), 8),
                ("POINTS".into(), 256 * grid),
            ],
            grid,
        }
    }

    /// The twin runs every instruction of the SASS's timed path: the loop body SPECIES
    /// times, with row k's SPECIES pair constants and 14 DFMA per pair (ptxas keeps them
    /// all), and the 1 + SPECIES loads of T and X once.
    #[test]
    fn the_twin_is_the_sass_path() {
        for sp in [30usize, 60] {
            let (pro, body, epi) = parts(&format!("sv_data_parallel_n{sp}")).unwrap();
            let n = |l: &Listing, op: &str| {
                l.iter()
                    .filter(|x| strip_guard(&x.1).starts_with(op))
                    .count()
            };
            assert_eq!(n(&pro, "LDG.E.64"), 1 + sp);
            assert_eq!(n(&body, "LDG.E.128.CONSTANT"), sp);
            // 14 per pair, then den's join, the reciprocal's two refinements, s_k^2 + r
            // and nu's accumulation
            assert_eq!(n(&body, "DFMA"), 14 * sp + 5);
            assert_eq!(n(&body, "CALL"), 0, "the slow reciprocal is skipped");
            assert_eq!(n(&epi, "STG.E.64"), 1);
            let t = singe_twin_text(&case(sp as i64, 1)).unwrap();
            let issued = t
                .lines()
                .filter(|l| l.trim_start().starts_with("DFMA"))
                .count();
            assert_eq!(issued, n(&pro, "DFMA") + n(&body, "DFMA"));
        }
    }

    /// The pairs' DFMA chains bound the twin from below: per sub-partition two warps of
    /// SPECIES^2 pairs of 14 DFMA, each at the FP64 pipe's rate.
    #[test]
    fn the_twin_takes_at_least_the_fp64_pipe_time() {
        let p = Profile::builtin("h100").unwrap();
        let (cy, r) = simulate_singe(&case(30, 1), &p).unwrap();
        let per = p.file.params["fp64_issue_interval"].value;
        let floor = 2.0 * 900.0 * 14.0 * per;
        assert!(cy >= floor, "{cy} against the pipe's {floor}");
        assert_eq!(r.warps.len(), 8);
    }
}
