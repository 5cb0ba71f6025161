//! The singe-viscosity validation twins (`val.singe.*`, `kernels/singe.cu`'s
//! `sv_data_parallel_nN` and `sv_warp_specialized_nN`) built from their SASS,
//! instruction for instruction, as the gemm-mainloop and TMA-streaming twins are.
//!
//! Warp-specialized: the warp count is a runtime value in the CUDA kernel, so ptxas
//! put every one of the 8 species slots, pairs and nu slots under a branch; the twin
//! walks the SASS once per role (warp 0, which also sums the partial nu and stores it;
//! warps 1 to 6; the last warp, which owns fewer species where SPECIES is not a
//! multiple of 8), taking the slots that role's warps own, the batch loop and the j loop
//! as the engine's loops, the barrier the batch's parity picks (1 or 2, 3 or 4). Two
//! approximations: the predicated-off loads of unowned pair constants in the prologue
//! issue as loads (of an owned row); warp 0's sum over the other warps (ptxas's loops
//! unrolled by 16, 8 and 4 over a runtime count) is issued as the kernel writes it.
//!
//! Data-parallel:
//!
//! the library's generator writes what the kernel means: per point, every species'
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
    include_str!("../data/validation/h100-20261127T104407Z.singe.sass.txt");

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

/// A role of the warp-specialized twin: warps `first..=last`, each owning `valid` of
/// its SL species slots (the last warp fewer where SPECIES is not a multiple of 8);
/// warp 0 also gathers the partial sums and stores nu.
#[derive(Clone, Copy, Debug)]
struct WsRole {
    name: &'static str,
    first: i64,
    last: i64,
    valid: i64,
    warp0: bool,
}

fn ws_roles(sp: i64) -> Vec<WsRole> {
    let sl = (sp + 7) / 8;
    let last_valid = (sp - 7 * sl).clamp(0, sl);
    let mut v = vec![WsRole {
        name: "gather",
        first: 0,
        last: 0,
        valid: sl,
        warp0: true,
    }];
    if last_valid == sl {
        v.push(WsRole {
            name: "owners",
            first: 1,
            last: 7,
            valid: sl,
            warp0: false,
        });
    } else {
        v.push(WsRole {
            name: "owners",
            first: 1,
            last: 6,
            valid: sl,
            warp0: false,
        });
        v.push(WsRole {
            name: "last",
            first: 7,
            last: 7,
            valid: last_valid,
            warp0: false,
        });
    }
    v
}

/// What a warp-specialized path meets: an instruction (engine line, stall count, SASS
/// text), an `if` or a `loop` opening, or the innermost block's end.
enum WStep {
    Ins(String, u8, String),
    Open(String),
    Close,
}

/// Where the warp-specialized path is: which species, pair and nu slot comes next.
#[derive(Default)]
struct WsAt {
    species: i64,
    pair: i64,
    nu: i64,
    consts: i64,
    in_bt: bool,
}

/// Walks `l[from..=to]` for `role`, appending to `out`. Branches are decided by what
/// they skip: a species slot (an EX2), a pair (DFMA only), a nu slot (an LDS.64 and
/// the reciprocal's call) run if the warp owns that slot; the reciprocal's slow path
/// (a call) is skipped; the test for warp 0 (a region with BAR.ARV) and for one warp
/// (a region with BAR.SYNC 3 or 4) go as for 8 warps; a branch past the batch loop
/// (no warps at all) falls through. The batch and j loops are the engine's loops; warp
/// 0's sum over the other warps' partial nu (ptxas's unrolled loops on a runtime warp
/// count) is issued as the kernel writes it, seven LDS.64 and DFMA.
#[allow(clippy::too_many_arguments)]
fn ws_walk(
    l: &Listing,
    from: usize,
    to: usize,
    role: WsRole,
    sl: i64,
    m: &RegMap,
    at: &mut WsAt,
    out: &mut Vec<WStep>,
) -> Result<(), String> {
    let index = |a: u64| l.iter().position(|x| x.0 == a);
    let region_has = |i: usize, j: usize, op: &str| {
        l[i + 1..j]
            .iter()
            .any(|x| strip_guard(&x.1).starts_with(op))
    };
    let bt_end = l
        .iter()
        .rposition(|x| x.1.starts_with('@') && branch_target(&x.1).is_some_and(|t| t < x.0))
        .ok_or("no batch loop")?;
    let point = "((cta * 8 + bt) * 32 + lane)";
    let parity = |ins: &str| {
        if ins.starts_with("@!") {
            "(bt % 2) == 0"
        } else {
            "(bt % 2) == 1"
        }
    };
    let mut i = from;
    while i <= to {
        let (a, ins, st) = &l[i];
        // an inner loop starts here: the j loop
        if i > from
            && let Some(e) = (i..=to).find(|&e| {
                l[e].1.starts_with('@')
                    && !l[e].1.contains("BRA.U.ANY")
                    && branch_target(&l[e].1) == Some(*a)
            })
        {
            out.push(WStep::Open("loop j 0..SPECIES".into()));
            ws_walk(l, i, e, role, sl, m, at, out)?;
            out.push(WStep::Close);
            i = e + 1;
            continue;
        }
        let bare = strip_guard(ins);
        let (op, rest) = bare.split_once(' ').unwrap_or((bare, ""));
        let ops: Vec<&str> = rest.split(',').map(str::trim).collect();
        let mut push = |line: String| out.push(WStep::Ins(line, *st, ins.clone()));
        if op.starts_with("BAR.SYNC") || op.starts_with("BAR.ARV") {
            let id = u64::from_str_radix(ops[0].trim_start_matches("0x"), 16).unwrap_or(0);
            let kind = if op.starts_with("BAR.ARV") {
                "BAR.ARV"
            } else {
                "BAR.SYNC"
            };
            if ins.starts_with('@') {
                out.push(WStep::Open(format!("if {}", parity(ins))));
                out.push(WStep::Ins(format!("{kind} {id}, 256"), *st, ins.clone()));
                out.push(WStep::Close);
            } else {
                out.push(WStep::Ins(format!("{kind} {id}, 256"), *st, ins.clone()));
            }
            if role.warp0 && kind == "BAR.SYNC" && id == 3 {
                // warp 0's sum of the partial nu, then on at the store of nu
                for v in 1..8 {
                    out.push(WStep::Ins(
                        format!("LDS.64 R8, S[2 * SPECIES * 512 + ((bt % 2) * 8 + {v}) * 256 + lane * 8]"),
                        1,
                        "(the sum over warps)".into(),
                    ));
                    out.push(WStep::Ins(
                        "DFMA R68, R8, R8, R68".into(),
                        1,
                        "(the sum over warps)".into(),
                    ));
                }
                i = l
                    .iter()
                    .position(|x| x.1.contains("c[0x0][0x228]"))
                    .ok_or("no store of nu")?;
                continue;
            }
            i += 1;
            continue;
        }
        if bare.starts_with("BRA") && i != to && !bare.starts_with("BRA.U.ANY") {
            let t = branch_target(&format!(" {ins}")).ok_or("branch without target")?;
            let j = index(t).ok_or_else(|| format!("no instruction at {t:#x}"))?;
            if !ins.starts_with('@') {
                push(translate_scalar(ins, m));
                i = j;
                continue;
            }
            let taken = if j > bt_end && !at.in_bt {
                false
            } else if region_has(i, j, "MUFU.EX2") {
                at.species += 1;
                at.species > role.valid
            } else if region_has(i, j, "LDS.64") && region_has(i, j, "CALL") {
                at.nu += 1;
                at.nu > role.valid
            } else if region_has(i, j, "CALL") {
                true
            } else if region_has(i, j, "BAR.ARV") {
                role.warp0
            } else if region_has(i, j, "BAR.SYNC") {
                false
            } else if l[i + 1..j]
                .iter()
                .all(|x| !strip_guard(&x.1).starts_with("LDS"))
                && region_has(i, j, "DFMA")
            {
                at.pair += 1;
                at.pair >= sl
            } else {
                return Err(format!("{}: no rule for {ins} at {a:#x}", role.name));
            };
            // a branch not taken issues guarded off (`pred UP0 = 0`): no target fetch
            push(if taken {
                translate_scalar(ins, m)
            } else {
                "@UP0 BRA".into()
            });
            i = if taken { j } else { i + 1 };
            continue;
        }
        let kk = |n: i64| format!("warp * {sl} + {}", n - 1);
        let line = match op {
            "DFMA" => format!(
                "DFMA {}, {}, {}, {}",
                reg(ops[0]),
                reg(ops.get(1).unwrap_or(&"RZ")),
                reg(ops.get(2).unwrap_or(&"RZ")),
                reg(ops.get(3).unwrap_or(&"RZ"))
            ),
            "LDG.E.128.CONSTANT" => {
                at.consts += 1;
                format!(
                    "LDG.E.128.CONSTANT {}, C[min(warp * {sl} + {}, SPECIES - 1) * (SPECIES + 1) * 16]",
                    reg(ops[0]),
                    at.consts - 1
                )
            }
            "LDG.E.64" if at.species == 0 => format!("LDG.E.64 {}, T[{point} * 8]", reg(ops[0])),
            "LDG.E.64" => format!(
                "LDG.E.64 {}, X[(({}) * POINTS + {point}) * 8]",
                reg(ops[0]),
                kk(at.species)
            ),
            "STS.128" => format!(
                "STS.128 S[((bt % 2) * SPECIES + {}) * 512 + lane * 16], {}",
                kk(at.species),
                reg(ops.last().unwrap_or(&"RZ"))
            ),
            "LDS.128" => format!(
                "LDS.128 {}, S[((bt % 2) * SPECIES + j) * 512 + lane * 16]",
                reg(ops[0])
            ),
            "LDS.64" => format!(
                "LDS.64 {}, S[((bt % 2) * SPECIES + {}) * 512 + lane * 16]",
                reg(ops[0]),
                kk(at.nu)
            ),
            "STS.64" => format!(
                "STS.64 S[2 * SPECIES * 512 + ((bt % 2) * 8 + warp) * 256 + lane * 8], {}",
                reg(ops.last().unwrap_or(&"RZ"))
            ),
            "STG.E.64" => format!(
                "STG.E.64 OUT[{point} * 8], {}",
                reg(ops.last().unwrap_or(&"RZ"))
            ),
            _ if op.starts_with("F2F") => {
                format!("F2F {}, {}", reg(ops[0]), reg(ops.get(1).unwrap_or(&"RZ")))
            }
            _ => translate_scalar(ins, m),
        };
        push(line);
        i += 1;
    }
    Ok(())
}

/// The warp-specialized twin's kernel text: per role, the SASS path from the first
/// instruction to the second clock read, the batch loop (`bt`) and the j loop as the
/// engine's loops, the species, pair and nu slots the role's warps own.
pub fn singe_ws_twin_text(c: &LibraryCase) -> Result<String, String> {
    let sp = c.get("SPECIES");
    let points = c.get("POINTS");
    if c.get("WARPS") != 8 || points != 256 * c.grid {
        return Err(format!(
            "{}: the SASS ran 8 warps and 256 points per CTA",
            c.bench
        ));
    }
    let sl = (sp + 7) / 8;
    let func = format!("sv_warp_specialized_n{sp}");
    let l = sass_listing(SINGE_SASS, &func);
    if l.is_empty() {
        return Err(format!("{func}: not in the committed SASS"));
    }
    let bt_end = l
        .iter()
        .rposition(|x| x.1.starts_with('@') && branch_target(&x.1).is_some_and(|t| t < x.0))
        .ok_or("no batch loop")?;
    let bt_start = l
        .iter()
        .position(|x| Some(x.0) == branch_target(&l[bt_end].1))
        .ok_or("no batch loop start")?;
    let end = l[bt_end..]
        .iter()
        .position(|x| x.1.contains("SR_CLOCKLO"))
        .map(|p| bt_end + p)
        .ok_or("no clock read after the batch loop")?;
    let all: Vec<Tok> = l[..end]
        .iter()
        .map(|(_, i, s)| Tok::Sass(i.clone(), *s))
        .collect();
    let m = RegMap::for_path(&all, 0)?;
    let mut text = String::new();
    let mut max_reg = 0;
    for role in ws_roles(sp) {
        let mut steps = Vec::new();
        let mut at = WsAt::default();
        ws_walk(&l, 0, bt_start - 1, role, sl, &m, &mut at, &mut steps)?;
        steps.push(WStep::Open("loop bt 0..8".into()));
        let mut inner = WsAt {
            consts: at.consts,
            in_bt: true,
            ..WsAt::default()
        };
        // each batch starts its slots afresh
        let mut body = Vec::new();
        ws_walk(&l, bt_start, bt_end, role, sl, &m, &mut inner, &mut body)?;
        steps.extend(body);
        steps.push(WStep::Close);
        let mut tail = WsAt {
            in_bt: true,
            ..WsAt::default()
        };
        ws_walk(&l, bt_end + 1, end - 1, role, sl, &m, &mut tail, &mut steps)?;
        text.push_str(&format!(
            "\nrole {} warps={}..{}\n",
            role.name, role.first, role.last
        ));
        let mut depth = 2;
        for s in &steps {
            match s {
                WStep::Open(h) => {
                    text.push_str(&format!("{}{h}\n", " ".repeat(depth)));
                    depth += 2;
                }
                WStep::Close => depth -= 2,
                WStep::Ins(line, st, ins) => {
                    for r in operand_regs(line) {
                        if let SReg::R(n) = r {
                            max_reg = max_reg.max(n + 2);
                        }
                    }
                    text.push_str(&format!(
                        "{}{}  # {ins}\n",
                        " ".repeat(depth),
                        with_stall(line, *st)
                    ));
                }
            }
        }
        text.push_str("  EXIT\n");
    }
    let regs = max_reg.div_ceil(8) * 8;
    Ok(format!(
        "kernel {func}\n\
         launch cta_threads=256 regs={regs} smem={} grid={}\n\
         buffer T global size={}\n\
         buffer X global size={}\n\
         buffer C global size={}\n\
         buffer OUT global size={}\n\
         shared S size={}\n\
         param SPECIES={sp} POINTS={points}\npred UP0 = 0\n{text}",
        sp * 1024 + 4096,
        c.grid,
        points * 8,
        sp * points * 8,
        sp * sp * 16,
        points * 8,
        sp * 1024 + 4096,
    ))
}

/// The warp-specialized twin's cycles and run (T, X and C in L2).
pub fn simulate_singe_ws(c: &LibraryCase, p: &Profile) -> Result<(f64, RunResult), String> {
    let r = sim_text_warm(&singe_ws_twin_text(c)?, 0, p, &["T", "X", "C"])?;
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

    /// Each warp of the warp-specialized twin runs the species it owns (SL = 4 of 30
    /// for warps 0 to 6, the last warp 2; 8 of 60, the last 4) and, per j, SL pairs of 14 DFMA;
    /// the batch parity picks barrier 1 or 2 and 3 or 4; warp 0 alone stores nu.
    #[test]
    fn the_warp_specialized_twin_follows_ownership() {
        for (sp, sl, last) in [(30, 4, 2), (60, 8, 4)] {
            let mut c = case(sp, 1);
            c.schedule = "warp-specialized".into();
            let t = singe_ws_twin_text(&c).unwrap();
            let roles: Vec<&str> = t.split("\nrole ").skip(1).collect();
            assert_eq!(roles.len(), if last == sl { 2 } else { 3 });
            for r in &roles {
                let code: Vec<&str> = r
                    .lines()
                    .map(|l| l.split('#').next().unwrap().trim())
                    .collect();
                let n = |p: &str| code.iter().filter(|l| l.starts_with(p)).count();
                let owned = if r.starts_with("last") { last } else { sl };
                assert_eq!(n("STS.128"), owned as usize, "{sp}: {}", &r[..10]);
                assert_eq!(
                    n("LDS.64"),
                    owned as usize + if r.starts_with("gather") { 7 } else { 0 }
                );
                let j = r.split("loop j 0..SPECIES").nth(1).unwrap();
                let in_j = j
                    .lines()
                    .skip(1)
                    .take_while(|l| l.starts_with("      "))
                    .filter(|l| l.trim_start().starts_with("DFMA"))
                    .count();
                assert_eq!(in_j, 14 * sl as usize);
                assert_eq!(n("STG.E.64"), usize::from(r.starts_with("gather")));
                assert_eq!((n("BAR.SYNC 1,"), n("BAR.SYNC 2,")), (1, 1));
            }
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
