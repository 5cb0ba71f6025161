//! The TMA-streaming validation twins (`val.elementwise.*`, `kernels/stream.cu`) built
//! from the kernels' SASS, as the gemm-mainloop twins are (`validation.rs`).
//!
//! The library's `elementwise-add` generator writes what the CUDA kernel means: a loop
//! over a warp's 512-byte pieces, the adds overlapping. ptxas compiled something else:
//! the piece count is a runtime value, so the 16 possible pieces are unrolled, each under
//! its own branch, and every piece's second `LDS.128` lands in the same four registers
//! (R72..R75) that the previous piece's FADDs read, so the pieces run one after another,
//! each waiting out a shared-memory load; `t % NLB` and `t % NSB` are integer divisions
//! by a runtime value (I2F, MUFU.RCP, F2I and a dozen uniform instructions each); the
//! bulk store's read wait is a chain of branches on NSB; the fence after the stores is a
//! `MEMBAR.ALL.CTA` as well as the proxy fence. The twin keeps the generator's structure
//! (buffers, shared memory, mbarriers, roles, the prologue's loads, the final wait) and
//! replaces each role's tile loop with the SASS's loop, instruction for instruction:
//! - synchronization, copies and shared-memory accesses as the engine models them
//!   (TRYWAIT, EXPECT_TX, the mbarrier arrives, UTMALDG, UTMASTG, UTMACMDFLUSH,
//!   DEPBAR on the bulk-store groups, BAR.SYNC, MEMBAR, the proxy fence, LDS.128 and
//!   STS.128 with the generator's addresses for the piece the SASS names); the
//!   constant loads (LDC, LDC.64) as the engine's LDC (`lat_ldc`, a scoreboard, where
//!   ULDC is an ALU slot, as ptxas's control codes say);
//! - the FADDs as themselves, with the SASS's registers (so the pieces serialize as
//!   they do on the GPU);
//! - every other instruction by pipe and latency class (`translate_scalar`), with its
//!   control code's stall count; uniform predicates are left out of the dependencies
//!   (the engine has seven predicates; their producers are fixed-latency, which the
//!   stall counts already wait for);
//! - where the SASS branches on a value the twin knows (the piece count, NSB, which
//!   store wait) the twin takes the path the GPU took: a skipped piece's branch issues
//!   and jumps; a store predicated off for this piece count issues as a NOP; where it
//!   branches per thread (thread 0, lane 0) or per tile (the last NLB tiles load nothing)
//!   the twin opens the generator's `if`.
//!
//! The try_wait spin is the engine's suspending TRYWAIT (its re-probe, clock read and
//! timeout compare are left out), and the elect loops around UTMALDG run once.

use std::collections::HashMap;

use sim_core::{Profile, RunResult};

use crate::library::LibraryCase;
use crate::sass::{sass_listing, with_stall};
use crate::twins::{sim_text_warm, span};
use crate::validation::{RegMap, SReg, Tok, branch_target, operand_regs, strip_guard};

/// `cuobjdump -res-usage -sass` of the `validation_stream` cubin that ran
/// (`data/validation/h100-20261127T104407Z.json`).
pub const STREAM_SASS: &str =
    include_str!("../data/validation/h100-20261127T104407Z.stream.sass.txt");

/// What the twin does at a forward conditional branch of the SASS path.
#[derive(Clone, Debug, PartialEq)]
enum Fork {
    /// Not taken: the branch issues, the path goes on.
    Fall,
    /// Taken: the branch issues, the path continues at its target.
    Jump,
    /// Taken by some threads or tiles: the generator's `if` around the skipped range.
    Region(String),
}

/// One step of the path a warp runs through the SASS loop.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    /// (address, instruction, stall count).
    Ins(u64, String, u8),
    /// An `if` opens (its condition).
    Open(String),
    /// The innermost `if` closes.
    Close,
}

/// The role of a warp whose tile loop the twin replaces: which of the SASS's loops it
/// runs, and how its branches go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// `ew_tma_pipelined`: every warp computes; thread 0 also waits, stores and loads.
    Pipelined,
    /// `ew_warp_specialized` warp 0: the loads.
    Load,
    /// `ew_warp_specialized` warp 1: the stores.
    Store,
    /// `ew_warp_specialized` warps 4..: the adds.
    Compute,
}

impl Role {
    fn sass_function(self) -> &'static str {
        match self {
            Role::Pipelined => "ew_tma_pipelined",
            _ => "ew_warp_specialized",
        }
    }

    /// The generator's role name.
    fn generator_role(self) -> &'static str {
        match self {
            Role::Pipelined => "main",
            Role::Load => "load",
            Role::Store => "store",
            Role::Compute => "compute",
        }
    }

    /// Whether a backward branch's body is this role's tile loop: it waits on an
    /// mbarrier and does the role's work.
    fn is_loop(self, body: &[(u64, String, u8)]) -> bool {
        let has = |op: &str| body.iter().any(|(_, x, _)| strip_guard(x).starts_with(op));
        has("SYNCS.PHASECHK")
            && match self {
                Role::Pipelined | Role::Compute => has("LDS"),
                Role::Load => has("UTMALDG") && !has("LDS"),
                // `wshold/`'s `ew_ws_acc_ns` stores nothing: its store warp's loop waits
                // and releases
                Role::Store => {
                    (has("UTMASTG") || has("SYNCS.ARRIVE")) && !has("LDS") && !has("UTMALDG")
                }
            }
    }
}

/// A TMA-streaming case's shape, as the kernel's branches see it.
#[derive(Clone, Copy, Debug)]
struct Shape {
    /// 512-byte pieces per computing warp.
    pieces: i64,
    nsb: i64,
}

/// Which build of `ew_tma_pipelined` a twin follows, beside the validation kernel's own
/// SASS (`STREAM_SASS`): a build with clock reads, whose SASS dump the caller gives.
#[derive(Clone, Copy, Debug)]
pub enum Build<'a> {
    /// `data/gaps/stamp3/`'s `ew_tma_pipelined_st`: stamps of tiles 12 and 13, each
    /// under its own `if (t == 12)`.
    Stamped(&'a str),
    /// `data/gaps/tploop/`'s `ew_tma_pipelined_acc`: nine clock reads a tile, made by
    /// every lane on every tile (no branch), each segment summed in a register.
    Segments(&'a str),
    /// `data/gaps/wshold/`'s `ew_ws_acc` (`store`) or `ew_ws_acc_ns` (not `store`: the
    /// store warp releases each buffer at once, no bulk store): the warp-specialized
    /// kernel with eight clock reads a tile in each compute warp, made by every lane on
    /// every tile (no branch); the load and store warps unstamped.
    WsSegments { sass: &'a str, store: bool },
}

impl Build<'_> {
    /// The SASS function of this build that `role` runs.
    fn function(self, role: Role) -> String {
        match self {
            Build::Stamped(_) => format!("{}_st", role.sass_function()),
            Build::Segments(_) => format!("{}_acc", role.sass_function()),
            Build::WsSegments { store: true, .. } => "ew_ws_acc".into(),
            Build::WsSegments { store: false, .. } => "ew_ws_acc_ns".into(),
        }
    }

    fn text(&self) -> &str {
        match self {
            Build::Stamped(t) | Build::Segments(t) | Build::WsSegments { sass: t, .. } => t,
        }
    }
}

/// The role's tile loop in the SASS: (first index, back branch's index).
fn tile_loop(lines: &[(u64, String, u8)], role: Role) -> Result<(usize, usize), String> {
    let mut found = Vec::new();
    for (i, (addr, ins, _)) in lines.iter().enumerate() {
        if !ins.starts_with('@') || ins.contains("BRA.U.ANY") || !ins.contains(" BRA ") {
            continue;
        }
        let Some(t) = branch_target(ins).filter(|t| t < addr) else {
            continue;
        };
        let Some(s) = lines.iter().position(|(a, _, _)| *a == t) else {
            continue;
        };
        if role.is_loop(&lines[s..=i]) {
            found.push((s, i));
        }
    }
    // The outermost: a spin loop inside the tile loop also waits, but does no work.
    found
        .into_iter()
        .max_by_key(|(s, e)| e - s)
        .ok_or_else(|| format!("{}: no tile loop for role {role:?}", role.sass_function()))
}

/// Where a build of `ew_tma_pipelined` has its forward conditional branches (each build's
/// SASS puts the same branches at its own addresses).
struct PipelinedBranches {
    /// tid != 0 skips the bulk-store wait, and later the store and the next loads.
    thread0: [u64; 2],
    /// The bulk-store wait's depth by NSB: nsb < 2 -> 0; nsb == 2 -> 1; nsb != 3 -> 3;
    /// else 2. The branches taken when nsb < 2, nsb == 2 and nsb != 3.
    depth: [u64; 3],
    /// The last NLB tiles load nothing.
    loads: u64,
}

/// The validation kernel's (`STREAM_SASS`).
const PLAIN_BRANCHES: PipelinedBranches = PipelinedBranches {
    thread0: [0x2510, 0x2b00],
    depth: [0x2540, 0x2560, 0x2580],
    loads: 0x2c00,
};

/// `data/gaps/stamp3/`'s `ew_tma_pipelined_st`; its stamps' `if (t == 12)` are taken by
/// `tile_path` (its clock read runs on every tile, as the GPU's does on tile 12).
const STAMPED_BRANCHES: PipelinedBranches = PipelinedBranches {
    thread0: [0x2a30, 0x30d0],
    depth: [0x2a60, 0x2a80, 0x2aa0],
    loads: 0x3280,
};

/// `data/gaps/tploop/`'s `ew_tma_pipelined_acc` (its clock reads add no branch).
const SEGMENTS_BRANCHES: PipelinedBranches = PipelinedBranches {
    thread0: [0x2650, 0x2ce0],
    depth: [0x2680, 0x26a0, 0x26c0],
    loads: 0x2dc0,
};

/// What the role's path does at the forward conditional branch at `addr` (not a
/// try_wait's branch over its spin, not an elect loop). The addresses are the committed
/// SASS's (or the `build`'s); the test `every_fork_is_the_instruction_it_names` checks
/// the validation kernel's.
fn fork(
    role: Role,
    addr: u64,
    skips_lds: bool,
    piece: &mut i64,
    s: Shape,
    build: Option<Build>,
) -> Result<Fork, String> {
    if skips_lds {
        // one 512-byte piece: run it if this warp has that many
        let f = if *piece < s.pieces {
            Fork::Fall
        } else {
            Fork::Jump
        };
        *piece += 1;
        return Ok(f);
    }
    let (b, name) = match build {
        None => (&PLAIN_BRANCHES, ""),
        Some(Build::Stamped(_)) => (&STAMPED_BRANCHES, " (stamped)"),
        Some(Build::Segments(_)) => (&SEGMENTS_BRANCHES, " (segments)"),
        Some(Build::WsSegments { .. }) => (&PLAIN_BRANCHES, " (ws segments)"),
    };
    let ws_acc = matches!(build, Some(Build::WsSegments { store: true, .. }));
    let taken = |b: bool| if b { Fork::Jump } else { Fork::Fall };
    Ok(match (role, addr) {
        (Role::Pipelined, a) if b.thread0.contains(&a) => Fork::Region(THREAD0.into()),
        (Role::Pipelined, a) if a == b.depth[0] => taken(s.nsb < 2),
        (Role::Pipelined, a) if a == b.depth[1] => taken(s.nsb == 2),
        (Role::Pipelined, a) if a == b.depth[2] => taken(s.nsb != 3),
        (Role::Pipelined, a) if a == b.loads => Fork::Region("(t + NLB) < TILES".into()),
        (Role::Store, 0x0db0) if build.is_none() => taken(s.nsb >= 2),
        // with two store buffers, the first tile releases nothing
        (Role::Store, 0x0e20) if build.is_none() => Fork::Region("t > 0".into()),
        // `ew_ws_acc`'s store warp: the same two branches (`wshold/`'s SASS)
        (Role::Store, 0x0de0) if ws_acc => taken(s.nsb >= 2),
        (Role::Store, 0x0e50) if ws_acc => Fork::Region("t > 0".into()),
        _ => {
            return Err(format!(
                "{role:?}{name}: no rule for the branch at {addr:#x}"
            ));
        }
    })
}

/// Whether a SASS instruction reads the clock (a stamp's).
fn reads_clock(ins: &str) -> bool {
    let b = strip_guard(ins);
    (b.starts_with("CS2R") || b.starts_with("S2UR")) && b.contains("SR_CLOCKLO")
}

/// The path one tile of the role's loop takes through the SASS.
fn tile_path(
    lines: &[(u64, String, u8)],
    role: Role,
    shape: Shape,
    build: Option<Build>,
) -> Result<Vec<Step>, String> {
    let (s, e) = tile_loop(lines, role)?;
    let index: HashMap<u64, usize> = lines.iter().enumerate().map(|(i, l)| (l.0, i)).collect();
    let at = |t: u64| {
        index
            .get(&t)
            .copied()
            .ok_or(format!("no instruction at {t:#x}"))
    };
    let end = lines[e].0;
    let mut out = Vec::new();
    let mut closes: Vec<u64> = Vec::new();
    let mut piece = 0;
    let mut spin: Option<String> = None;
    let mut i = s;
    while i <= e {
        let (addr, ins, stall) = &lines[i];
        while closes.last() == Some(addr) {
            closes.pop();
            out.push(Step::Close);
        }
        out.push(Step::Ins(*addr, ins.clone(), *stall));
        let bare = strip_guard(ins);
        if bare.starts_with("SYNCS.PHASECHK") {
            // its predicate: the first branch on it skips the spin
            spin = bare
                .split_whitespace()
                .nth(1)
                .map(|p| p.trim_end_matches(',').to_string());
        }
        if let Some(p) = &spin
            && ins.starts_with(&format!("@{p} BRA "))
            && let Some(t) = branch_target(ins).filter(|t| t > addr)
        {
            // the try_wait's branch over its spin: the engine's TRYWAIT suspends instead
            spin = None;
            i = at(t)?;
            continue;
        }
        if i == e || !bare.starts_with("BRA") || bare.starts_with("BRA.U.ANY") {
            i += 1;
            continue;
        }
        if bare.starts_with("BRA.DIV") {
            // taken only if the warp diverged, which it has not
            i += 1;
            continue;
        }
        let t = branch_target(&format!(" {ins}"))
            .ok_or_else(|| format!("branch without target: {ins}"))?;
        if t <= *addr || t > end {
            return Err(format!(
                "{role:?}: unexpected branch in the tile loop: {ins}"
            ));
        }
        let j = at(t)?;
        if !ins.starts_with('@') {
            // an unconditional jump, which must not leave an open region
            if closes.iter().any(|c| *c < t) {
                return Err(format!("{role:?}: {ins} leaves a region"));
            }
            i = j;
            continue;
        }
        let skips_lds = lines[i + 1..j]
            .iter()
            .any(|(_, x, _)| strip_guard(x).starts_with("LDS"));
        let stamped = matches!(build, Some(Build::Stamped(_)));
        let fork = if stamped && reads_clock(&lines[j].1) {
            // a stamp's `if (t == 12)`
            Fork::Jump
        } else {
            fork(role, *addr, skips_lds, &mut piece, shape, build)?
        };
        match fork {
            Fork::Fall => i += 1,
            Fork::Jump => i = j,
            Fork::Region(c) => {
                out.push(Step::Open(c));
                closes.push(t);
                i += 1;
            }
        }
    }
    if !closes.is_empty() {
        return Err(format!("{role:?}: a region runs past the tile loop"));
    }
    Ok(out)
}

/// A SASS instruction with its uniform predicates left out: a guard on one goes, and as
/// an operand it becomes `UPT` (no register).
fn without_uniform_predicates(ins: &str) -> String {
    let mut s = ins.to_string();
    if let Some(rest) = s.strip_prefix('@')
        && let Some((g, tail)) = rest.split_once(' ')
        && g.trim_start_matches('!').starts_with("UP")
    {
        s = tail.trim_start().to_string();
    }
    let mut out = String::new();
    let mut rest = s.as_str();
    while let Some(p) = rest.find("UP") {
        let after = &rest[p + 2..];
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        let word_start = p == 0 || !rest.as_bytes()[p - 1].is_ascii_alphanumeric();
        out.push_str(&rest[..p]);
        if digits > 0 && word_start {
            out.push_str("UPT");
        } else {
            out.push_str(&rest[p..p + 2 + digits]);
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// The engine lines for the synchronization, copy and shared-memory instructions of a
/// role, in the SASS's order; the rest is translated.
struct Lines<'a> {
    role: Role,
    shape: Shape,
    /// The generator's loop body lines of this role, by what they do.
    generator: &'a [&'a str],
    /// The role's first piece (an expression of `warp`).
    first: String,
    lds_seen: usize,
    ldg_seen: usize,
    waits_seen: usize,
    arrives_seen: usize,
    /// The store warp stores nothing and releases each buffer as it fills (`wshold/`'s
    /// `ew_ws_acc_ns`), whatever NSB.
    releases_at_once: bool,
}

impl Lines<'_> {
    fn generator_line(&self, starts: &str, nth: usize) -> Result<String, String> {
        self.generator
            .iter()
            .map(|l| l.trim())
            .filter(|l| l.starts_with(starts))
            .nth(nth)
            .map(str::to_string)
            .ok_or_else(|| format!("{:?}: the generator has no {starts} #{nth}", self.role))
    }

    /// The engine's line for a SASS instruction, or None to translate it as scalar.
    fn map(&mut self, ins: &str) -> Result<Option<String>, String> {
        let bare = strip_guard(ins).replace(".reuse", "");
        let op = bare.split_whitespace().next().unwrap_or("");
        let sh = |arr: &str, stage: &str, j: usize, first: &str| {
            format!("{arr}[({stage}) * TB + ({first} + {j}) * 512 + lane * 16]")
        };
        Ok(Some(if op == "LDS.128" {
            let dst = bare
                .split_whitespace()
                .nth(1)
                .unwrap_or("R4,")
                .trim_end_matches(',');
            let (j, arr) = (
                self.lds_seen / 2,
                if self.lds_seen.is_multiple_of(2) {
                    "sA"
                } else {
                    "sB"
                },
            );
            self.lds_seen += 1;
            format!("LDS.128 {dst}, {}", sh(arr, "t % NLB", j, &self.first))
        } else if op == "STS.128" {
            let (addr, src) = bare[op.len()..]
                .rsplit_once(',')
                .ok_or_else(|| format!("STS without a source: {ins}"))?;
            let off = addr
                .trim()
                .trim_end_matches(']')
                .rsplit('+')
                .next()
                .and_then(|o| u64::from_str_radix(o.trim().trim_start_matches("0x"), 16).ok())
                .filter(|_| addr.matches('+').count() >= 2)
                .unwrap_or(0);
            let j = (off / 512) as i64;
            if j >= self.shape.pieces {
                // predicated off for this piece count: it still issues
                return Ok(Some("NOP".into()));
            }
            format!(
                "STS.128 {}, {}",
                sh("sC", "t % NSB", j as usize, &self.first),
                src.trim()
            )
        } else if op == "FADD" {
            bare.to_string()
        } else if op == "LDC" || op == "LDC.64" {
            // a constant load: the engine's LDC (`lat_ldc`, a scoreboard), at the bank
            // offset the SASS reads (`c[0x0][0x3c0]` -> `0x3c0`)
            let dst = bare
                .split_whitespace()
                .nth(1)
                .unwrap_or("R4,")
                .trim_end_matches(',');
            let off = bare
                .rsplit('[')
                .next()
                .unwrap_or("0x0]")
                .trim_end_matches(']');
            format!("{op} {dst}, {off}")
        } else if op.starts_with("SYNCS.PHASECHK") {
            self.waits_seen += 1;
            let line = self.generator_line("SYNCS.PHASECHK", self.waits_seen - 1)?;
            match self.role {
                // lane 0's loop (`if (lane == 0)`): the other 31 lanes wait at its end
                // (BSYNC), and the try_wait is not woken by its phase
                // (`lat_mbarrier_lane_period`, data/gaps/lanewait/)
                Role::Load | Role::Store => format!("{line}, lanes=1"),
                // every lane waits
                Role::Pipelined | Role::Compute => line,
            }
        } else if op == "SYNCS.ARRIVE.TRANS64.A1T0" {
            // an mbarrier arrive (the compute warps' lane 0, the store warp's release):
            // the generator's arrive in this branch of the role
            // (the store warp's loop has one, whichever NSB's branch it is in)
            self.arrives_seen += 1;
            if self.role == Role::Store && self.releases_at_once {
                return Ok(Some("SYNCS.ARRIVE.TRANS64 c_empty[t % NSB]".into()));
            }
            let k = if self.role == Role::Compute {
                self.arrives_seen - 1
            } else {
                0
            };
            self.generator_line("SYNCS.ARRIVE.TRANS64 ", k)?
        } else if op == "SYNCS.ARRIVE.TRANS64" {
            self.generator_line("SYNCS.ARRIVE.TRANS64.EXPECT_TX", 0)?
        } else if op.starts_with("UTMALDG") {
            let k = self.ldg_seen;
            self.ldg_seen += 1;
            self.generator_line("UTMALDG", k)?
        } else if op.starts_with("UTMASTG") {
            self.generator_line("UTMASTG", 0)?
        } else if op == "UTMACMDFLUSH" {
            "UTMACMDFLUSH".into()
        } else if op == "DEPBAR.LE" {
            let n = bare.rsplit(',').next().unwrap_or("0").trim();
            let n = u64::from_str_radix(n.trim_start_matches("0x"), 16).unwrap_or(0);
            format!("DEPBAR.LE SB1, {n}")
        } else if op.starts_with("BAR.SYNC") {
            "BAR.SYNC 1, 128".into()
        } else if op.starts_with("MEMBAR") {
            "MEMBAR.CTA".into()
        } else if op.starts_with("FENCE.VIEW.ASYNC") {
            "FENCE.PROXY.ASYNC".into()
        } else {
            return Ok(None);
        }))
    }
}

/// The predicate the twin declares false (`pred UP0 = 0`): a branch the path does not
/// take is guarded by it. (The translated SASS names no uniform predicate:
/// `without_uniform_predicates`.)
const NOT_TAKEN: &str = "UP0";

/// The region thread 0 runs (`Fork::Region`): in warp 0, lane 0 alone.
const THREAD0: &str = "warp == 0";

/// The regions the twin opens (`Fork::Region`'s conditions) and the predicate that
/// guards the branch over each: true where the warp skips the region (for thread 0's,
/// every warp but warp 0: lane 0 runs it in warp 0, whose branch is then not taken).
const REGION_GUARDS: [(&str, &str); 3] = [
    (THREAD0, "UP1"),
    ("(t + NLB) < TILES", "UP2"),
    ("t > 0", "UP3"),
];

/// The guard of the branch over the region `cond`.
fn region_guard(cond: &str) -> Result<&'static str, String> {
    REGION_GUARDS
        .iter()
        .find(|g| g.0 == cond)
        .map(|g| g.1)
        .ok_or_else(|| format!("no guard for the region `{cond}`"))
}

/// Whether the path's step `k` is a conditional branch the path falls through (a
/// skipped piece's branch not taken, a `BRA.DIV` of a warp that has not diverged, an
/// elect loop's `BRA.U.ANY` that runs once): the path's next instruction is not its
/// target, and no region opens at it. (The loop's back branch is the path's last step:
/// taken.)
fn not_taken(path: &[Step], k: usize) -> bool {
    let Some(Step::Ins(_, ins, _)) = path.get(k) else {
        return false;
    };
    let bare = strip_guard(ins);
    if !bare.starts_with("BRA") || !(ins.starts_with('@') || bare.starts_with("BRA.DIV")) {
        return false;
    }
    let Some(t) = branch_target(&format!(" {ins}")) else {
        return false;
    };
    match path.get(k + 1) {
        Some(Step::Ins(next, _, _)) => *next != t,
        _ => false,
    }
}

/// The role's tile loop body, translated, at `indent`.
fn loop_body(
    role: Role,
    shape: Shape,
    generator: &[&str],
    first: &str,
    indent: usize,
    build: Option<Build>,
) -> Result<String, String> {
    let func = match build {
        Some(b) => b.function(role),
        None => role.sass_function().to_string(),
    };
    let lines = sass_listing(build.as_ref().map_or(STREAM_SASS, |b| b.text()), &func);
    if lines.is_empty() {
        return Err(format!("{func}: not in the SASS"));
    }
    let path = tile_path(&lines, role, shape, build)?;
    let toks: Vec<Tok> = path
        .iter()
        .filter_map(|s| match s {
            Step::Ins(_, ins, st) => Some(Tok::Sass(without_uniform_predicates(ins), *st)),
            _ => None,
        })
        .collect();
    let m = RegMap::for_path(&toks, 0)?;
    let mut map = Lines {
        role,
        shape,
        generator,
        first: first.to_string(),
        lds_seen: 0,
        ldg_seen: 0,
        waits_seen: 0,
        arrives_seen: 0,
        releases_at_once: matches!(build, Some(Build::WsSegments { store: false, .. })),
    };
    let mut out = String::new();
    let mut depth = indent;
    // the regions open, and the one that closed right before the instruction
    let mut open: Vec<&str> = Vec::new();
    let mut closed: Option<&str> = None;
    for (k, s) in path.iter().enumerate() {
        match s {
            Step::Open(c) => {
                out.push_str(&format!("{}if {c}\n", " ".repeat(depth)));
                depth += 2;
                open.push(c);
            }
            Step::Close => {
                depth -= 2;
                closed = open.pop();
            }
            Step::Ins(addr, ins, stall) => {
                let rejoin =
                    closed.take() == Some(THREAD0) && strip_guard(ins).starts_with("BSYNC");
                let line = match map.map(ins)? {
                    // the BSYNC after thread 0's region: warp 0's other 31 lanes rejoin
                    // it there (`bsync_rejoin_cycles`); the other warps skipped the
                    // region whole
                    _ if rejoin => format!("NOP lanes=32 - 31 * ({THREAD0})"),
                    Some(l) => l,
                    // a forward branch the path does not take (the next instruction is
                    // the one after it): guarded by `NOT_TAKEN`, declared false, so that
                    // it issues and is not taken, as on the GPU
                    None if not_taken(&path, k) => format!("@{NOT_TAKEN} BRA"),
                    // the branch over a region: taken by the warps that skip it
                    None if matches!(path.get(k + 1), Some(Step::Open(_))) => {
                        let Some(Step::Open(c)) = path.get(k + 1) else {
                            unreachable!()
                        };
                        format!("@{} BRA", region_guard(c)?)
                    }
                    None => {
                        let t = crate::validation::translate_scalar(
                            &without_uniform_predicates(ins),
                            &m,
                        );
                        match t.split_whitespace().nth(1) {
                            // a stamp: an ALU slot as before, by an opcode the twin
                            // uses for nothing else (`FMNMX`), so `sstamp` finds it
                            Some(d) if build.is_some() && reads_clock(ins) => {
                                format!("FMNMX {} RZ, RZ, !PT", d)
                            }
                            _ => t,
                        }
                    }
                };
                // every role's loop back branch (the path's last step) carries its
                // distance as compiled, which times its target's fetch
                // (`icache_l0_bytes`, `data/gaps/brdist/`): the tma-pipelined loop (7104
                // bytes) and the warp-specialized compute loop (7152) miss on the GPU,
                // the load and store warps' short loops do not
                let line = match (k + 1 == path.len(), branch_target(&format!(" {ins}"))) {
                    (true, Some(t)) if t < *addr && strip_guard(ins).starts_with("BRA") => {
                        format!("{line} bytes={}", t as i64 - *addr as i64)
                    }
                    _ => line,
                };
                out.push_str(&format!(
                    "{}{}  # {ins}\n",
                    " ".repeat(depth),
                    with_stall(&line, *stall)
                ));
            }
        }
    }
    Ok(out)
}

/// The twin's kernel text: the generator's kernel at the case's parameters with each
/// role's tile loop replaced by the SASS's (`loop_body`); the launch's register
/// budget raised to hold the registers the SASS names (and the uniform ones' stand-ins).
pub fn stream_twin_text(c: &LibraryCase) -> Result<String, String> {
    twin_text(c, None)
}

/// The twin of the stamped build (`data/gaps/stamp3/`, `ew_tma_pipelined_st`) from its
/// SASS dump `sass`: every tile runs tile 12's path, each stamp a clock read (an ALU
/// slot in the engine), so that the engine's issue cycles of those reads line up with
/// the GPU's stamps (`examples/sstamp.rs --stamped`). tma-pipelined only.
pub fn stamped_twin_text(c: &LibraryCase, sass: &str) -> Result<String, String> {
    if c.schedule != "tma-pipelined" {
        return Err(format!(
            "{}: no stamped twin (tma-pipelined only)",
            c.schedule
        ));
    }
    twin_text(c, Some(Build::Stamped(sass)))
}

/// The twin of `data/gaps/tploop/`'s `ew_tma_pipelined_acc` from its SASS dump `sass`:
/// the validation loop with nine clock reads a tile (ALU slots in the engine, `FMNMX`
/// as in `stamped_twin_text`), so that the engine's segments between them compare with
/// the GPU's sums (`examples/segments.rs`). tma-pipelined only.
pub fn segments_twin_text(c: &LibraryCase, sass: &str) -> Result<String, String> {
    if c.schedule != "tma-pipelined" {
        return Err(format!(
            "{}: no segments twin (tma-pipelined only)",
            c.schedule
        ));
    }
    twin_text(c, Some(Build::Segments(sass)))
}

/// The twin of `data/gaps/wshold/`'s `ew_ws_acc` (`store`) or `ew_ws_acc_ns` from its
/// SASS dump `sass`: the warp-specialized kernel with eight clock reads a tile in each
/// compute warp (`FMNMX`, as in `stamped_twin_text`); with `store_half` its store
/// buffer(s) at 128 KiB, the other half of shared memory from the load buffers (the
/// run's `cpos` 1), as a region declared before `sC` fills the space below
/// (`ws_segments.rs`). warp-specialized, NLB * 2 * TB at most 128 KiB.
pub fn ws_segments_twin_text(
    c: &LibraryCase,
    sass: &str,
    store: bool,
    store_half: bool,
) -> Result<String, String> {
    if c.schedule != "warp-specialized" {
        return Err(format!(
            "{}: no ws segments twin (warp-specialized only)",
            c.schedule
        ));
    }
    let text = twin_text(c, Some(Build::WsSegments { sass, store }))?;
    if !store_half {
        return Ok(text);
    }
    let half: i64 = 128 * 1024;
    let below = 2 * c.get("NUM_LOAD_BUFFERS") * c.get("XBLOCK") * c.get("YBLOCK") * 4;
    if below > half {
        return Err(format!("the load buffers ({below} bytes) pass 128 KiB"));
    }
    if below == half {
        return Ok(text);
    }
    let pad = half - below;
    let sc = text
        .lines()
        .find(|l| l.starts_with("shared sC "))
        .ok_or("the twin declares no sC")?;
    let smem = text
        .split_whitespace()
        .find_map(|w| w.strip_prefix("smem="))
        .and_then(|v| v.parse::<i64>().ok())
        .ok_or("the twin's launch sets no smem")?;
    Ok(text
        .replacen(
            &format!("{sc}\n"),
            &format!("shared below_sC size={pad}\n{sc}\n"),
            1,
        )
        .replacen(
            &format!(" smem={smem} "),
            &format!(" smem={} ", smem + pad),
            1,
        ))
}

fn twin_text(c: &LibraryCase, build: Option<Build>) -> Result<String, String> {
    let text = traces::generate(c.family, &c.schedule, &c.params)?.to_string();
    let tile = c.get("XBLOCK") * c.get("YBLOCK") * 4;
    let ws = c.schedule == "warp-specialized";
    let cw = if ws { c.get("COMPUTE_WARPS") } else { 4 };
    let shape = Shape {
        pieces: tile / 512 / cw,
        nsb: c.get("NUM_STORE_BUFFERS"),
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    let mut role: Option<Role> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim_start();
        let ind = line.len() - t.len();
        // the CUDA kernel sets no register budget per warp (no setmaxnreg): its roles
        // share the launch's
        let line = match line.find(" maxnreg=") {
            Some(p) if t.starts_with("role ") => &line[..p],
            _ => line,
        };
        out.push_str(line);
        out.push('\n');
        i += 1;
        if let Some(name) = t.strip_prefix("role ") {
            let name = name.split_whitespace().next().unwrap_or("");
            role = [Role::Pipelined, Role::Load, Role::Store, Role::Compute]
                .into_iter()
                .find(|r| r.generator_role() == name && (ws != (*r == Role::Pipelined)));
        }
        let Some(r) = role.filter(|_| t.starts_with("loop t 0..TILES")) else {
            continue;
        };
        let mut j = i;
        while j < lines.len() && {
            let u = lines[j].trim_start();
            u.is_empty() || lines[j].len() - u.len() > ind
        } {
            j += 1;
        }
        let first = match r {
            Role::Pipelined => format!("warp * {}", shape.pieces),
            _ => format!("(warp - 4) * {}", shape.pieces),
        };
        out.push_str(&loop_body(r, shape, &lines[i..j], &first, ind + 2, build)?);
        i = j;
    }
    // the register budget: every register the translated loops name
    let mut max_reg = 0;
    for l in out.lines() {
        let code = l.split('#').next().unwrap_or("");
        for r in operand_regs(code) {
            if let SReg::R(n) = r {
                max_reg = max_reg.max(n + 1);
            }
        }
    }
    let need = (max_reg + 1).div_ceil(8) * 8;
    let out = out.replacen(" regs=32 ", &format!(" regs={need} "), 1);
    // the branches not taken's guard, before the first role
    let mut preds = format!("\npred {NOT_TAKEN} = 0");
    for (c, g) in REGION_GUARDS {
        preds.push_str(&format!("\npred {g} = ({c}) == 0"));
    }
    let out = match out.find("\nrole ") {
        Some(p) => format!("{}{preds}{}", &out[..p], &out[p..]),
        None => return Err("the generator's kernel has no role".into()),
    };
    Ok(out)
}

/// The twin's cycles (first warp's start to the last warp's end of the simulated SM's
/// CTA) and its run, A and B in L2 as on the GPU (read by the launch before).
pub fn simulate_stream(c: &LibraryCase, p: &Profile) -> Result<(f64, RunResult), String> {
    let r = sim_text_warm(&stream_twin_text(c)?, 0, p, &["A", "B"])?;
    Ok((span(&r), r))
}

/// `data/gaps/tploop/`'s nine segments of a tile, each named by the clock read that ends
/// it, in the order of the reads in a tile (the loop top's read ends the previous tile's
/// loop head).
pub const SEGMENTS: [&str; 9] = [
    "head", "wait", "adds", "rdwait", "bar1", "sts", "fence", "bar2", "st+ld",
];

/// Each warp's clock reads' (`FMNMX`) issue cycles, CTA 0.
struct ClockReads {
    roles: Vec<Vec<bool>>,
    by_warp: std::collections::BTreeMap<u32, Vec<u64>>,
}

impl sim_core::sink::Sink for ClockReads {
    fn begin(&mut self, h: &sim_core::sink::RunHeader) {
        self.roles = h
            .roles
            .iter()
            .map(|r| {
                r.instructions
                    .iter()
                    .map(|i| i.text.starts_with("FMNMX"))
                    .collect()
            })
            .collect();
    }
    fn event(&mut self, e: sim_core::sink::Event) {
        if let sim_core::sink::Event::Issue {
            cycle,
            warp,
            role,
            pc,
            ..
        } = e
            && warp.cta == 0
            && self.roles[role as usize][pc as usize]
        {
            self.by_warp.entry(warp.warp).or_default().push(cycle);
        }
    }
}

/// Runs a stamped build's twin `text` (A and B in L2, as on the GPU): the run, and each
/// warp's clock reads' (`FMNMX`) issue cycles in CTA 0, by warp. `what` names the twin
/// in a parse error.
pub(crate) fn run_clock_reads(
    text: &str,
    what: &str,
    p: &Profile,
) -> Result<
    (
        sim_core::RunResult,
        std::collections::BTreeMap<u32, Vec<u64>>,
    ),
    String,
> {
    let k = isa::parse_kernel(text).map_err(|e| e.render(what, text))?;
    let cfg = sim_core::RunConfig {
        warm_l2: vec!["A".into(), "B".into()],
        ..sim_core::RunConfig::default()
    };
    let mut s = ClockReads {
        roles: Vec::new(),
        by_warp: Default::default(),
    };
    let r =
        sim_core::run_with(&k, p, &cfg, cfg.policy.build(), &mut s).map_err(|e| e.to_string())?;
    Ok((r, s.by_warp))
}

/// The twin of `ew_tma_pipelined_acc` (`segments_twin_text`, the SASS dump `sass`) run
/// for case `c` (its YNUMEL / YBLOCK tiles, A and B in L2): each warp's cycles in each
/// of the `SEGMENTS`, summed over the tiles (the GPU's sums; the first read of the run
/// ends no segment).
pub fn segment_sums(
    c: &LibraryCase,
    sass: &str,
    p: &Profile,
) -> Result<Vec<[f64; SEGMENTS.len()]>, String> {
    let (_, by_warp) = run_clock_reads(&segments_twin_text(c, sass)?, "segments twin", p)?;
    let tiles = c.get("YNUMEL") / c.get("YBLOCK");
    by_warp
        .values()
        .map(|reads| {
            let n = SEGMENTS.len();
            if reads.len() as i64 != n as i64 * tiles {
                return Err(format!(
                    "{} clock reads for {tiles} tiles, not nine a tile",
                    reads.len()
                ));
            }
            let mut out = [0.0; SEGMENTS.len()];
            for (i, w) in reads.windows(2).enumerate() {
                out[(i + 1) % n] += (w[1] - w[0]) as f64;
            }
            Ok(out)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(schedule: &str, xb: i64, nlb: i64, nsb: i64, grid: i64) -> LibraryCase {
        LibraryCase {
            family: "elementwise-add",
            bench: "val.elementwise.x".into(),
            schedule: schedule.into(),
            params: vec![
                ("XNUMEL".into(), xb * grid),
                ("YNUMEL".into(), 4096),
                ("XBLOCK".into(), xb),
                ("YBLOCK".into(), 128),
                ("NUM_LOAD_BUFFERS".into(), nlb),
                ("NUM_STORE_BUFFERS".into(), nsb),
                ("COMPUTE_WARPS".into(), 4),
            ],
            grid,
        }
    }

    /// The branches [`fork`] decides by address are the instructions it means.
    #[test]
    fn every_fork_is_the_instruction_it_names() {
        for (func, addr, text) in [
            ("ew_tma_pipelined", 0x2510, "@P6 BRA 0x2600"),
            ("ew_tma_pipelined", 0x2540, "@!P6 BRA 0x25f0"),
            ("ew_tma_pipelined", 0x2560, "@!P6 BRA 0x25d0"),
            ("ew_tma_pipelined", 0x2580, "@P6 BRA 0x25b0"),
            ("ew_tma_pipelined", 0x2b00, "@P6 BRA 0x2d70"),
            ("ew_tma_pipelined", 0x2c00, "@P0 BRA 0x2d70"),
            ("ew_warp_specialized", 0x0db0, "@P0 BRA 0xe00"),
            ("ew_warp_specialized", 0x0e20, "@!P0 BRA 0xfc0"),
        ] {
            let l = sass_listing(STREAM_SASS, func);
            let ins = l.iter().find(|x| x.0 == addr).map(|x| x.1.as_str());
            assert_eq!(ins, Some(text), "{func} at {addr:#x}");
        }
        // the wait's depth by NSB (0x2540..0x25f0): 0x2590 waits 2, 0x25b0 3, 0x25d0 1,
        // 0x25f0 0
        let l = sass_listing(STREAM_SASS, "ew_tma_pipelined");
        let at = |a: u64| l.iter().find(|x| x.0 == a).map(|x| x.1.clone()).unwrap();
        assert_eq!(at(0x2590), "DEPBAR.LE SB0, 0x2");
        assert_eq!(at(0x25b0), "DEPBAR.LE SB0, 0x3");
        assert_eq!(at(0x25d0), "DEPBAR.LE SB0, 0x1");
        assert_eq!(at(0x25f0), "DEPBAR.LE SB0, 0x0");
    }

    fn count(path: &[Step], op: &str) -> usize {
        path.iter()
            .filter(|s| matches!(s, Step::Ins(_, i, _) if strip_guard(i).starts_with(op)))
            .count()
    }

    /// One tile's path holds the pieces this warp adds, two loads and four adds each,
    /// every store of the SASS (predicated off beyond the piece count), and the one
    /// bulk-store wait NSB picks.
    #[test]
    fn a_tile_runs_the_pieces_of_its_size() {
        let l = sass_listing(STREAM_SASS, "ew_tma_pipelined");
        for (pieces, nsb, wait) in [(8, 1, "0x0"), (16, 2, "0x1"), (8, 3, "0x2")] {
            let p = tile_path(&l, Role::Pipelined, Shape { pieces, nsb }, None).unwrap();
            assert_eq!(count(&p, "LDS.128"), 2 * pieces as usize);
            assert_eq!(count(&p, "FADD"), 4 * pieces as usize);
            assert_eq!(count(&p, "STS.128"), 16);
            assert_eq!(count(&p, "DEPBAR"), 1);
            assert!(p.iter().any(
                |s| matches!(s, Step::Ins(_, i, _) if i == &format!("DEPBAR.LE SB0, {wait}"))
            ));
            assert_eq!(count(&p, "SYNCS.PHASECHK"), 1, "the spin is left out");
            assert_eq!(count(&p, "UTMALDG"), 2);
            assert_eq!(count(&p, "BAR.SYNC"), 2);
        }
        let l = sass_listing(STREAM_SASS, "ew_warp_specialized");
        let s = Shape { pieces: 8, nsb: 1 };
        let c = tile_path(&l, Role::Compute, s, None).unwrap();
        assert_eq!((count(&c, "LDS.128"), count(&c, "FADD")), (16, 32));
        assert_eq!(count(&c, "SYNCS.PHASECHK"), 2);
        // lane 0's arrives on empty and c_full
        assert_eq!(count(&c, "SYNCS.ARRIVE.TRANS64.A1T0"), 2);
        assert_eq!(
            count(&tile_path(&l, Role::Load, s, None).unwrap(), "UTMALDG"),
            2
        );
        let st = tile_path(&l, Role::Store, s, None).unwrap();
        assert_eq!((count(&st, "UTMASTG"), count(&st, "DEPBAR")), (1, 1));
    }

    /// Every measured shape builds, parses and runs; the larger tile (twice the pieces
    /// per warp, the same number of tiles) takes longer.
    #[test]
    fn every_schedule_builds_and_the_larger_tile_takes_longer() {
        let p = Profile::builtin("h100").unwrap();
        for sched in ["tma-pipelined", "warp-specialized"] {
            let small = simulate_stream(&case(sched, 32, 2, 1, 1), &p).unwrap().0;
            let large = simulate_stream(&case(sched, 64, 2, 2, 1), &p).unwrap().0;
            assert!(large > small, "{sched}: {large} against {small}");
            let text = stream_twin_text(&case(sched, 32, 2, 2, 1)).unwrap();
            assert!(!text.contains("maxnreg"), "the CUDA kernel sets no budget");
        }
    }

    /// Shared memory's write queues are per 128 KiB (`data/gaps/wsstream/`, the layout
    /// run): the warp-specialized 64x128 kernel, whose store buffer lies at 128 KiB above
    /// its load buffers, ran 75.1k cycles; with the store buffer moved below them (the
    /// same half as the copies landing) 92.2k, +22.7%, its tile tail held behind the next
    /// tile's copies. The twin with its `sC` declared first moves the same way (74.1k to
    /// 84.8k, +14.5%, with `taken_branch_cycles` 13; one queue for all of shared memory
    /// 88.0k): by more than 10%.
    #[test]
    fn the_ws_tail_is_held_when_its_store_buffer_shares_the_copies_half() {
        let p = Profile::builtin("h100").unwrap();
        assert!(p.t.smem_write_queue > 0.0);
        let text = stream_twin_text(&case("warp-specialized", 64, 2, 1, 1)).unwrap();
        let sc = text.lines().find(|l| l.starts_with("shared sC")).unwrap();
        let sa = text.lines().find(|l| l.starts_with("shared sA")).unwrap();
        let moved = text.replacen(&format!("{sc}\n"), "", 1).replacen(
            &format!("{sa}\n"),
            &format!("{sc}\n{sa}\n"),
            1,
        );
        assert_ne!(moved, text);
        let run = |t: &str| span(&sim_text_warm(t, 0, &p, &["A", "B"]).unwrap());
        let (apart, shared) = (run(&text), run(&moved));
        assert!(shared > apart * 1.10, "{shared} against {apart}");
        // one queue for all of shared memory: the validation layout is held as well
        let mut one = p.clone();
        one.set("smem_write_queue_bytes", 262144.0).unwrap();
        let one_queue = span(&sim_text_warm(&text, 0, &one, &["A", "B"]).unwrap());
        assert!(one_queue > apart * 1.10, "{one_queue} against {apart}");
    }

    /// The stamped build's twin (`data/gaps/stamp3/`): each tile runs tile 12's path,
    /// all eleven stamps (nine `CS2R.32`, two `S2UR` of the clock) and the plain
    /// kernel's work, so it takes longer than the plain twin by the stamps alone.
    #[test]
    fn the_stamped_twin_runs_every_stamp_and_the_same_work() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/gaps/stamp3/h100-20261127T230437Z-nvrtc.sass3.txt.gz");
        let sass = crate::datafile::read_text(&path).unwrap();
        let l = sass_listing(&sass, "ew_tma_pipelined_st");
        let shape = Shape { pieces: 8, nsb: 1 };
        let p = tile_path(&l, Role::Pipelined, shape, Some(Build::Stamped(&sass))).unwrap();
        let stamps = p
            .iter()
            .filter(|s| matches!(s, Step::Ins(_, i, _) if reads_clock(i)))
            .count();
        assert_eq!(stamps, 11);
        let plain = tile_path(
            &sass_listing(STREAM_SASS, "ew_tma_pipelined"),
            Role::Pipelined,
            shape,
            None,
        )
        .unwrap();
        for op in [
            "LDS.128", "FADD", "STS.128", "UTMALDG", "UTMASTG", "BAR.SYNC",
        ] {
            assert_eq!(count(&p, op), count(&plain, op), "{op}");
        }
        let c = case("tma-pipelined", 32, 2, 1, 1);
        let text = stamped_twin_text(&c, &sass).unwrap();
        assert_eq!(text.matches("FMNMX").count(), 11);
        let prof = Profile::builtin("h100").unwrap();
        let stamped = span(&sim_text_warm(&text, 0, &prof, &["A", "B"]).unwrap());
        let plain = simulate_stream(&c, &prof).unwrap().0;
        assert!(
            stamped > plain && stamped < 1.1 * plain,
            "{stamped} against {plain}"
        );
        assert!(stamped_twin_text(&case("warp-specialized", 32, 2, 1, 1), &sass).is_err());
    }

    #[test]
    fn uniform_predicates_leave_the_dependencies() {
        assert_eq!(
            without_uniform_predicates("@!UP1 UIADD3 UR8, UR8, -UR14, URZ"),
            "UIADD3 UR8, UR8, -UR14, URZ"
        );
        assert_eq!(
            without_uniform_predicates("UISETP.GE.U32.AND UP5, UPT, UR11, 0x2, UPT"),
            "UISETP.GE.U32.AND UPT, UPT, UR11, 0x2, UPT"
        );
        assert_eq!(
            without_uniform_predicates("PLOP3.LUT P4, PT, PT, PT, UP5, 0x80, 0x0"),
            "PLOP3.LUT P4, PT, PT, PT, UPT, 0x80, 0x0"
        );
        assert_eq!(without_uniform_predicates("@P0 BRA 0x10"), "@P0 BRA 0x10");
    }

    /// `data/gaps/tploop/`: the validation kernel's adds are 79.75 cycles a piece run
    /// and 23.4 a piece skipped (its taken branch) on the GPU; the twin of the same SASS,
    /// built-in profile, within 1.5 cycles of each (warp 0's steady tile: 64 tiles less
    /// 32, over 32; q = 4 and 16 pieces, at 16x128 and 64x128).
    #[test]
    fn the_segments_twin_prices_pieces_and_skipped_pieces_as_measured() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/gaps/tploop/h200-20261128T091509Z-sass.txt.gz");
        let sass = crate::datafile::read_text(&path).unwrap();
        let p = Profile::builtin("h100").unwrap();
        let adds = |xb: i64| {
            let run = |tiles: i64| {
                let mut c = case("tma-pipelined", xb, 2, 1, 1);
                c.params[1].1 = 128 * tiles;
                segment_sums(&c, &sass, &p).unwrap()[0][2]
            };
            (run(64) - run(32)) / 32.0
        };
        let piece = adds(64) / 16.0;
        let skipped = (adds(16) - 4.0 * piece) / 12.0;
        assert!((piece - 79.75).abs() < 3.0, "a piece run: {piece}");
        assert!((skipped - 23.4).abs() < 1.5, "a piece skipped: {skipped}");
        assert!(segments_twin_text(&case("warp-specialized", 32, 2, 1, 1), &sass).is_err());
    }
}
