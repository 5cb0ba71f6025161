//! The SASS side of the validation twins: a dump's main loops found and walked,
//! the instructions the engine models (anchors) matched to the generator's, the scalar
//! instructions between them translated by pipe and latency class with their registers
//! (`translate_scalar`). Used by the gemm twins (`gemm.rs`) and the streaming and
//! singe twins.

use super::*;

/// The instructions whose semantics the engine models (synchronization, copies, MMAs):
/// in the twin they are the generator's instructions, in the SASS's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    TryWait,
    ExpectTx,
    Copy,
    WgArrive,
    Mma,
    WgWait,
    Bar,
    Release,
}

pub(crate) fn strip_guard(ins: &str) -> &str {
    match ins.strip_prefix('@') {
        Some(r) => r.split_once(' ').map(|x| x.1.trim_start()).unwrap_or(ins),
        None => ins,
    }
}

pub(super) fn sass_anchor(ins: &str) -> Option<Anchor> {
    let s = strip_guard(ins);
    Some(if s.starts_with("SYNCS.PHASECHK") {
        Anchor::TryWait
    } else if s.starts_with("SYNCS.ARRIVE.TRANS64.A1T0") {
        Anchor::Release
    } else if s.starts_with("SYNCS.ARRIVE.TRANS64 ") {
        Anchor::ExpectTx
    } else if s.starts_with("UTMALDG") {
        Anchor::Copy
    } else if s.starts_with("WARPGROUP.ARRIVE") {
        Anchor::WgArrive
    } else if s.starts_with("HGMMA") {
        Anchor::Mma
    } else if s.starts_with("WARPGROUP.DEPBAR") {
        Anchor::WgWait
    } else if s.starts_with("BAR.SYNC") {
        Anchor::Bar
    } else {
        return None;
    })
}

pub(super) fn twin_anchor(line: &str) -> Option<Anchor> {
    Some(if line.starts_with("SYNCS.PHASECHK") {
        Anchor::TryWait
    } else if line.starts_with("SYNCS.ARRIVE.TRANS64.EXPECT_TX") {
        Anchor::ExpectTx
    } else if line.starts_with("SYNCS.ARRIVE.TRANS64 ") {
        Anchor::Release
    } else if line.starts_with("UTMALDG") {
        Anchor::Copy
    } else if line.starts_with("WARPGROUP.ARRIVE") {
        Anchor::WgArrive
    } else if line.starts_with("HGMMA") {
        Anchor::Mma
    } else if line.starts_with("WARPGROUP.DEPBAR") {
        Anchor::WgWait
    } else if line.starts_with("BAR.SYNC") {
        Anchor::Bar
    } else {
        return None;
    })
}

/// One step of an executed path (SASS) or of the generator's loop body (twin).
#[derive(Clone, Debug)]
pub(crate) enum Tok {
    /// A SASS instruction the twin issues as a scalar instruction (translated).
    Sass(String, u8),
    /// A synchronization, copy or MMA instruction (SASS text, or the twin's line).
    Anchor(Anchor, String, u8),
    /// A conditional region (the SASS branch over it, or the twin's `if` line).
    Open(String),
    Close,
}

/// A gemm kernel's main loops: (first index, back branch's index, holds HGMMA): the
/// backward branches (not `BRA.U.ANY`, the elect loops around UTMALDG) whose body waits
/// on an mbarrier and issues MMAs or copies.
pub(super) fn sass_main_loops(lines: &[(u64, String)]) -> Vec<(usize, usize, bool)> {
    let mut out = Vec::new();
    for (i, (addr, ins)) in lines.iter().enumerate() {
        if !ins.starts_with('@') || ins.contains("BRA.U.ANY") {
            continue;
        }
        let Some(t) = branch_target(ins).filter(|t| t < addr) else {
            continue;
        };
        let Some(s) = lines.iter().position(|(a, _)| *a == t) else {
            continue;
        };
        let body = &lines[s..=i];
        let has = |op: &str| body.iter().any(|(_, x)| strip_guard(x).starts_with(op));
        if has("SYNCS.PHASECHK") && (has("HGMMA") || has("UTMALDG")) {
            out.push((s, i, has("HGMMA")));
        }
    }
    out
}

/// The path one k-step of a SASS main loop executes, and how many SASS instructions it
/// leaves out. A try_wait's `@P0 BRA` over the spin loop is taken: the engine's TRYWAIT
/// suspends the warp until the phase completes (and pays the probe latency), which is
/// what the spin (re-probe, clock read, timeout compare) waits for; the spin's
/// instructions are left out. The `BRA.U.ANY` loops around UTMALDG run once (one elected
/// thread issues the copy). Any other forward branch that skips synchronization,
/// copies or MMAs is a conditional region (the twin's `if`); one over scalar code only
/// is issued inline.
pub(super) fn sass_loop_path(
    lines: &[(u64, String)],
    stalls: &std::collections::HashMap<u64, u8>,
    s: usize,
    e: usize,
) -> Result<(Vec<Tok>, usize), String> {
    let stall = |addr: u64| stalls.get(&addr).copied().unwrap_or(1);
    let end_addr = lines[e].0;
    let mut toks = Vec::new();
    let mut closes: Vec<u64> = Vec::new();
    let mut skipped = 0;
    let mut i = s;
    while i <= e {
        let (addr, ins) = &lines[i];
        while closes.last() == Some(addr) {
            closes.pop();
            toks.push(Tok::Close);
        }
        let bare = strip_guard(ins);
        if let Some(a) = sass_anchor(ins) {
            toks.push(Tok::Anchor(a, ins.clone(), stall(*addr)));
            if a == Anchor::TryWait
                && let Some((_, next)) = lines.get(i + 1)
                && next.starts_with('@')
                && strip_guard(next).starts_with("BRA ")
                && let Some(t) = branch_target(next).filter(|t| *t > *addr)
            {
                toks.push(Tok::Sass(next.clone(), stall(lines[i + 1].0)));
                let j = lines
                    .iter()
                    .position(|(a, _)| *a == t)
                    .ok_or("try_wait branch target not found")?;
                skipped += j - (i + 2);
                i = j;
                continue;
            }
            i += 1;
            continue;
        }
        if bare.starts_with("BRA") && i != e && !bare.starts_with("BRA.U.ANY") {
            let t = branch_target(ins).ok_or_else(|| format!("branch without target: {ins}"))?;
            if !ins.starts_with('@') || t <= *addr || t > end_addr {
                return Err(format!("unexpected branch in the main loop: {ins}"));
            }
            let j = lines
                .iter()
                .position(|(a, _)| *a == t)
                .ok_or("branch target not found")?;
            toks.push(Tok::Sass(ins.clone(), stall(*addr)));
            if lines[i + 1..j]
                .iter()
                .any(|(_, x)| sass_anchor(x).is_some())
            {
                toks.push(Tok::Open(ins.clone()));
                closes.push(t);
            }
            i += 1;
            continue;
        }
        toks.push(Tok::Sass(ins.clone(), stall(*addr)));
        i += 1;
    }
    if !closes.is_empty() {
        return Err("a conditional region runs past the loop".into());
    }
    Ok((toks, skipped))
}

/// The twin's loop body as tokens (its `if` blocks and its anchors).
pub(super) fn twin_body_tokens(body: &[&str]) -> Result<Vec<Tok>, String> {
    let mut toks = Vec::new();
    let mut opens: Vec<usize> = Vec::new();
    for line in body {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let d = line.len() - t.len();
        while opens.last().is_some_and(|o| *o >= d) {
            opens.pop();
            toks.push(Tok::Close);
        }
        if t.starts_with("if ") {
            opens.push(d);
            toks.push(Tok::Open(t.to_string()));
        } else if let Some(a) = twin_anchor(t) {
            toks.push(Tok::Anchor(a, t.to_string(), 1));
        } else {
            return Err(format!("unexpected line in the generator's loop: {t}"));
        }
    }
    toks.extend(opens.iter().map(|_| Tok::Close));
    Ok(toks)
}

/// A register of a SASS operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SReg {
    R(u32),
    U(u32),
    P(u32),
    Up(u32),
}

/// The registers an operand names, a `.64` one with its pair.
pub(crate) fn operand_regs(op: &str) -> Vec<SReg> {
    let mut out = Vec::new();
    for w in op.split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '.' || ch == '_')) {
        let (name, wide) = match w.strip_suffix(".64") {
            Some(n) => (n, true),
            None => (w, false),
        };
        let num = |p: &str| name.strip_prefix(p).and_then(|n| n.parse::<u32>().ok());
        let r = if let Some(n) = num("UR") {
            SReg::U(n)
        } else if let Some(n) = num("UP") {
            SReg::Up(n)
        } else if let Some(n) = num("R") {
            SReg::R(n)
        } else if let Some(n) = num("P") {
            SReg::P(n)
        } else {
            continue;
        };
        out.push(r);
        if wide {
            out.push(match r {
                SReg::R(n) => SReg::R(n + 1),
                SReg::U(n) => SReg::U(n + 1),
                x => x,
            });
        }
    }
    out
}

/// Operands split at top-level commas.
pub(super) fn split_operands(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for ch in s.chars() {
        match ch {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// A scalar SASS instruction taken apart: guard, mnemonic, destination registers,
/// source registers.
pub(super) struct Scalar {
    guard: Option<(bool, SReg)>,
    mnemonic: String,
    dest: Vec<SReg>,
    srcs: Vec<SReg>,
}

pub(super) fn parse_scalar(ins: &str) -> Scalar {
    let ins = ins.replace(".reuse", "");
    let guard = ins.strip_prefix('@').map(|g| {
        let g = g.split_whitespace().next().unwrap_or("PT");
        let neg = g.starts_with('!');
        let r = operand_regs(g.trim_start_matches('!'));
        (neg, r.first().copied().unwrap_or(SReg::P(0)))
    });
    let bare = strip_guard(&ins);
    let (mnemonic, rest) = bare.split_once(' ').unwrap_or((bare, ""));
    let ops = split_operands(rest);
    let base = mnemonic.split('.').next().unwrap_or("");
    // Instructions without a register result (or whose result the twin does not track).
    let no_dest = matches!(
        base,
        "STG"
            | "BRA"
            | "NOP"
            | "BSSY"
            | "BSYNC"
            | "WARPSYNC"
            | "YIELD"
            | "FENCE"
            | "MEMBAR"
            | "EXIT"
            | "USETMAXREG"
    );
    let mut dest = Vec::new();
    let mut srcs = Vec::new();
    for (k, op) in ops.iter().enumerate() {
        let regs = operand_regs(op);
        let is_pred = regs.iter().all(|r| matches!(r, SReg::P(_) | SReg::Up(_)))
            && (op.ends_with('T') || !regs.is_empty());
        if k == 0 && !no_dest && !op.starts_with('[') {
            dest = regs;
            let wide = mnemonic.contains(".64") || mnemonic.contains(".WIDE") || base == "CS2R";
            if wide && let Some(SReg::R(n)) = dest.first().copied() {
                dest.push(SReg::R(n + 1));
            }
            if wide && let Some(SReg::U(n)) = dest.first().copied() {
                dest.push(SReg::U(n + 1));
            }
            continue;
        }
        // A predicate right after the destination is a second result (carry, ISETP's
        // second predicate), not a source.
        if k == 1 && !no_dest && is_pred {
            continue;
        }
        srcs.extend(regs);
    }
    Scalar {
        guard,
        mnemonic: mnemonic.to_string(),
        dest,
        srcs,
    }
}

/// Where a role's uniform registers and predicates live in the twin: the engine has one
/// register file, so UR n becomes R(`ur` + n) above the role's vector registers and UP n
/// becomes P(`up` + n) above its predicates.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RegMap {
    ur: u32,
    up: u32,
}

impl RegMap {
    /// Above every register the role's path names (and `floor`: the accumulators).
    pub(crate) fn for_path(toks: &[Tok], floor: u32) -> Result<RegMap, String> {
        let (mut r, mut p, mut umin, mut upmax) = (floor, 0u32, u32::MAX, 0u32);
        let mut any_up = false;
        for t in toks {
            let (Tok::Sass(ins, _) | Tok::Anchor(_, ins, _)) = t else {
                continue;
            };
            let sc = parse_scalar(ins);
            let g = sc.guard.map(|g| g.1);
            for x in sc.dest.iter().chain(&sc.srcs).chain(g.iter()) {
                match *x {
                    SReg::R(n) => r = r.max(n),
                    SReg::U(n) => umin = umin.min(n),
                    SReg::P(n) => p = p.max(n),
                    SReg::Up(n) => {
                        upmax = upmax.max(n);
                        any_up = true;
                    }
                }
            }
        }
        let umin = if umin == u32::MAX { 0 } else { umin & !1 };
        let up = p + 1;
        if any_up && up + upmax > 6 {
            return Err(format!("P0..P6 cannot hold P0..P{p} and UP0..UP{upmax}"));
        }
        // Even, so 64-bit uniform pairs stay aligned pairs.
        Ok(RegMap {
            ur: ((r + 2) & !1) - umin,
            up,
        })
    }

    fn name(&self, r: SReg) -> String {
        match r {
            SReg::R(n) => format!("R{n}"),
            SReg::U(n) => format!("R{}", self.ur + n),
            SReg::P(n) => format!("P{n}"),
            SReg::Up(n) => format!("P{}", self.up + n),
        }
    }
}

/// A scalar SASS instruction as the engine instruction of its pipe and latency class,
/// with the SASS's destination and source registers (so dependencies wait as in the
/// SASS; uniform registers mapped by `m`):
/// - MUFU, I2F, F2I: themselves (the XU, `lat_mufu`, short scoreboard).
/// - IMAD (all forms), UIMAD, FADD/FFMA/FMUL: `IMAD` (`IMAD.WIDE` for a register pair).
/// - a predicate result (ISETP, UISETP, PLOP3, ELECT, LOP3 into a predicate):
///   `ISETP` (ALU).
/// - every other register result: `IADD3` (ALU, `lat_alu`), or `IMAD.WIDE` for a 64-bit
///   result (ULDC.64, CS2R). This covers the uniform datapath (UIADD3, ULOP3,
///   ULEA, USHF, UMOV, ULDC), R2UR, MOV, IABS, VIADD, SHF, LEA, SEL, VIMNMX:
///   each gets the ALU's fixed latency. For the uniform arithmetic that is measured
///   (`kernels/uni.cu`: dependent UIADD3, UIMAD, ULOP3, USHF chains 4.0 cycles per
///   step, UISETP -> USEL 8.0 per pair, as their vector forms; twins `lat.u*` in the
///   fit of `lat_alu`, `lat_imad`); for R2UR and ULDC it is a judgment call
///   without a measurement (ptxas keeps an R -> UR -> R chain in vector registers, so
///   PTX gives no R2UR round trip to time). A uniform instruction still takes its
///   warp's issue slot, as on the GPU.
/// - a constant load (LDC, LDC.64): the engine's `LDC` (`lat_ldc`, a scoreboard:
///   `gap.const.ldc_chain`).
/// - a special-register read: S2R as the engine's `S2R` (`lat_s2r`), S2UR as `S2R.U`
///   (`lat_s2ur`: S2UR's timing into the vector register that holds its uniform
///   destination), both a scoreboard (data/gaps/sreg/: 25 and 31 cycles into a
///   dependent use).
/// - no register result (BSYNC, WARPSYNC, YIELD, NOP, FENCE): `NOP`; a branch: `BRA`;
///   a `BSSY`: itself, which makes the next branch a per-thread one
///   (`per_thread_branch_cycles`) (all one issue slot).
///
/// Guards stay (the engine issues a guarded instruction whatever the predicate, and
/// waits for the predicate as for a source).
pub(crate) fn translate_scalar(ins: &str, m: &RegMap) -> String {
    let sc = parse_scalar(ins);
    let guard = sc
        .guard
        .map(|(neg, r)| format!("@{}{} ", if neg { "!" } else { "" }, m.name(r)))
        .unwrap_or_default();
    let base = sc.mnemonic.split('.').next().unwrap_or("");
    let src_r: Vec<String> = sc
        .srcs
        .iter()
        .filter(|r| matches!(r, SReg::R(_) | SReg::U(_)))
        .map(|r| m.name(*r))
        .collect();
    let src_p: Vec<String> = sc
        .srcs
        .iter()
        .filter(|r| matches!(r, SReg::P(_) | SReg::Up(_)))
        .map(|r| m.name(*r))
        .collect();
    let first = src_r.first().cloned().unwrap_or_else(|| "RZ".into());
    let pad = |v: &[String], n: usize| -> String {
        let mut v: Vec<String> = v.iter().take(n.max(v.len())).cloned().collect();
        while v.len() < n {
            v.push("RZ".into());
        }
        v.join(", ")
    };
    if base == "BRA" || base == "BSSY" {
        return format!("{guard}{base}");
    }
    let Some(d) = sc.dest.first().copied() else {
        return format!("{guard}NOP");
    };
    let dn = m.name(d);
    match base {
        "MUFU" => {
            let f = sc.mnemonic.split('.').nth(1).unwrap_or("RCP");
            return format!("{guard}MUFU.{f} {dn}, {first}");
        }
        "I2F" | "F2I" => return format!("{guard}{base} {dn}, {first}"),
        // A special-register read: the engine's S2R (`lat_s2r`) or, for S2UR, whose
        // uniform destination the twin holds in a vector register, `S2R.U` (`lat_s2ur`);
        // both a scoreboard, as ptxas's control codes have them (data/gaps/sreg/).
        // `SR_CTAID.X` is written `SR_CTAID_X` in the kernel format.
        "S2R" | "S2UR" => {
            let bare = strip_guard(ins);
            let rest = bare.split_once(' ').map_or("", |(_, r)| r);
            let sr = split_operands(rest)
                .get(1)
                .map(|o| o.replace('.', "_"))
                .unwrap_or_else(|| "SR_TID_X".into());
            let u = if base == "S2UR" { ".U" } else { "" };
            return format!("{guard}S2R{u} {dn}, {sr}");
        }
        // a constant load: the engine's LDC (`lat_ldc`, a scoreboard)
        "LDC" => {
            let w = if sc.mnemonic.contains(".64") {
                ".64"
            } else {
                ""
            };
            return format!(
                "{guard}LDC{w} {dn}, {}",
                src_r.first().map_or("0x0", |r| r.as_str())
            );
        }
        _ => {}
    }
    if matches!(d, SReg::P(_) | SReg::Up(_)) {
        let a = src_r.first().cloned().unwrap_or_else(|| "RZ".into());
        let b = src_r.get(1).cloned().unwrap_or_else(|| "RZ".into());
        let p = src_p.first().cloned().unwrap_or_else(|| "PT".into());
        return format!("{guard}ISETP.NE.AND {dn}, PT, {a}, {b}, {p}");
    }
    let mut srcs: Vec<String> = src_r.clone();
    srcs.extend(src_p.iter().cloned());
    if sc.dest.len() > 1 {
        return format!(
            "{guard}IMAD.WIDE {dn}, {}",
            pad(&src_r[..src_r.len().min(3)], 3)
        );
    }
    if matches!(base, "IMAD" | "UIMAD" | "FADD" | "FFMA" | "FMUL") {
        return format!("{guard}IMAD {dn}, {}", pad(&srcs[..srcs.len().min(4)], 3));
    }
    format!("{guard}IADD3 {dn}, {}", pad(&srcs[..srcs.len().min(5)], 2))
}

/// Merges a SASS path with the generator's loop body: scalar instructions translated,
/// each anchor and conditional region replaced by the generator's own, in order (the
/// kinds must agree).
///
/// A branch issues as the warps that time the loop run it: the try_wait's branch over
/// the spin loop and the loop's back branch taken (their SASS guards, which no `pred`
/// declares); the branch over a conditional region guarded by a predicate true where
/// the warp skips the region (`pred UPn = (COND) == 0`, COND the generator's `if`,
/// collected in `regions`); any other (an elect loop's `BRA.U.ANY`, which runs once; a
/// forward branch over scalar code the path issues) guarded by [`NOT_TAKEN`], declared
/// false, so that it issues and is not taken, as on the GPU.
pub(super) fn merge_loop(
    sass: &[Tok],
    twin: &[Tok],
    indent: usize,
    m: &RegMap,
    regions: &mut Vec<String>,
) -> Result<String, String> {
    let mut out = String::new();
    let mut depth = indent;
    let mut g = twin.iter().peekable();
    for (k, t) in sass.iter().enumerate() {
        match t {
            Tok::Sass(ins, stall) if strip_guard(ins).starts_with("BRA") => {
                let after_wait = matches!(
                    k.checked_sub(1).and_then(|j| sass.get(j)),
                    Some(Tok::Anchor(Anchor::TryWait, ..))
                );
                let line = match (sass.get(k + 1), g.peek()) {
                    // the loop's back branch, the try_wait's branch: taken
                    (None, _) => translate_scalar(ins, m),
                    _ if after_wait => translate_scalar(ins, m),
                    (Some(Tok::Open(_)), Some(Tok::Open(line))) => {
                        let cond = line.trim_start().trim_start_matches("if ").trim();
                        let n = match regions.iter().position(|c| c == cond) {
                            Some(n) => n,
                            None => {
                                regions.push(cond.to_string());
                                regions.len() - 1
                            }
                        };
                        format!("@{} BRA", region_pred(n)?)
                    }
                    _ => format!("@{NOT_TAKEN} BRA"),
                };
                out.push_str(&format!(
                    "{}{}  # {ins}\n",
                    " ".repeat(depth),
                    with_stall(&line, *stall)
                ));
            }
            Tok::Sass(ins, stall) => {
                out.push_str(&format!(
                    "{}{}  # {ins}\n",
                    " ".repeat(depth),
                    with_stall(&translate_scalar(ins, m), *stall)
                ));
            }
            Tok::Anchor(a, ins, stall) => match g.next() {
                Some(Tok::Anchor(b, line, _)) if a == b => {
                    out.push_str(&format!(
                        "{}{}  # {ins}\n",
                        " ".repeat(depth),
                        with_stall(line, *stall)
                    ));
                }
                other => return Err(format!("SASS `{ins}` meets generator {other:?}")),
            },
            Tok::Open(ins) => match g.next() {
                Some(Tok::Open(line)) => {
                    out.push_str(&format!("{}{line}  # {ins}\n", " ".repeat(depth)));
                    depth += 2;
                }
                other => return Err(format!("SASS region `{ins}` meets generator {other:?}")),
            },
            Tok::Close => match g.next() {
                Some(Tok::Close) => depth -= 2,
                other => return Err(format!("SASS region end meets generator {other:?}")),
            },
        }
    }
    if let Some(rest) = g.next() {
        return Err(format!("the SASS path has nothing for generator {rest:?}"));
    }
    Ok(out)
}

/// The predicate the twin declares false (`pred UP0 = 0`): a branch the warps fall
/// through is guarded by it. (The translated SASS names no uniform predicate: `RegMap`
/// maps them to vector predicates.)
pub(super) const NOT_TAKEN: &str = "UP0";

/// The predicate that guards the branch over the `n`th conditional region (`UP1` on).
pub(super) fn region_pred(n: usize) -> Result<String, String> {
    if n >= 6 {
        return Err("more than six conditional regions in a gemm twin".into());
    }
    Ok(format!("UP{}", n + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_keep_their_registers() {
        let m = RegMap { ur: 150, up: 3 };
        // uniform registers and predicates move above the vector ones
        assert_eq!(
            translate_scalar("@!UP0 UIADD3 UR5, UR5, -UR10, URZ", &m),
            "@!P3 IADD3 R155, R155, R160"
        );
        assert_eq!(translate_scalar("R2UR UR16, R6", &m), "IADD3 R166, R6, RZ");
        assert_eq!(
            translate_scalar("UIMAD.WIDE.U32 UR6, UR7, UR8, URZ", &m),
            "IMAD.WIDE R156, R157, R158, RZ"
        );
        assert_eq!(
            translate_scalar("ISETP.GE.U32.AND.EX P0, PT, R8, RZ, PT, P0", &m),
            "ISETP.NE.AND P0, PT, R8, RZ, P0"
        );
        // a carry-out predicate is a result, not a source
        assert_eq!(
            translate_scalar("IADD3 R12, P0, -R6, R8, RZ", &m),
            "IADD3 R12, R6, R8"
        );
        assert_eq!(translate_scalar("MUFU.RCP R6, R6", &m), "MUFU.RCP R6, R6");
        assert_eq!(translate_scalar("I2F.RP R6, UR10", &m), "I2F R6, R160");
        assert_eq!(translate_scalar("BSSY B0, 0x1340", &m), "BSSY");
        // special-register reads keep their register and scoreboard; S2UR's uniform
        // destination moves with the other uniform registers and keeps S2UR's timing
        assert_eq!(
            translate_scalar("S2R R82, SR_TID.X", &m),
            "S2R R82, SR_TID_X"
        );
        assert_eq!(
            translate_scalar("S2UR UR5, SR_CgaCtaId", &m),
            "S2R.U R155, SR_CgaCtaId"
        );
        assert_eq!(translate_scalar("@!P0 BRA 0xa20", &m), "@!P0 BRA");
    }
}
