//! A grammar-aware generator of kernel text, for fuzzing the parser and the validator.
//!
//! [`kernel`] writes a kernel that follows the grammar (declarations, roles, loops, `if`s
//! and instructions drawn from the opcode table's forms, with values that are sometimes
//! at the edges), so that most cases get past the parser and exercise the validator;
//! [`mutate`] then corrupts some of them at the character and line level, for the
//! parser's error paths. [`check`] runs one text through everything downstream of the
//! text format and says which of its promises broke, if any.
//!
//! ```
//! let mut rng = isa::textgen::Rng(7);
//! let src = isa::textgen::kernel(&mut rng);
//! assert!(src.starts_with("kernel "));
//! assert!(isa::textgen::check(&src).is_ok());
//! ```

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::ast::Kernel;
use crate::opcode::{Form, Kind, Op, Space};

/// A small deterministic generator (SplitMix64): the same seed gives the same cases.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent as usize
    }
    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Values that find off-by-one and overflow mistakes, beside ordinary ones.
const EDGES: &[i64] = &[
    0,
    1,
    -1,
    2,
    3,
    4,
    7,
    8,
    16,
    31,
    32,
    63,
    64,
    255,
    256,
    1024,
    4096,
    65536,
    i32::MAX as i64,
    u32::MAX as i64,
    1 << 32,
    i64::MAX,
    i64::MIN,
];

/// What the kernel being written declares, for operands that name it.
struct Decls {
    params: Vec<String>,
    buffers: Vec<String>,
    shared: Vec<String>,
    mbarriers: Vec<String>,
    barriers: Vec<String>,
    warps: u32,
    /// The launch allocates tensor memory.
    tmem: bool,
    /// Only plain instructions, written correctly.
    plain: bool,
}

/// A number: usually small, sometimes at an edge.
fn number(rng: &mut Rng) -> i64 {
    if rng.chance(85) {
        rng.below(64) as i64
    } else {
        *rng.pick(EDGES)
    }
}

/// An expression over `vars`, at most `depth` deep.
fn expr(rng: &mut Rng, vars: &[String], depth: u32) -> String {
    if depth == 0 || rng.chance(40) {
        return if !vars.is_empty() && rng.chance(60) {
            rng.pick(vars).clone()
        } else {
            number(rng).to_string()
        };
    }
    let sub = |rng: &mut Rng| expr(rng, vars, depth - 1);
    match rng.below(10) {
        0 => format!("-{}", sub(rng)),
        1 => format!("~({})", sub(rng)),
        2 => format!("{}({}, {})", rng.pick(&["min", "max"]), sub(rng), sub(rng)),
        3 => format!("({})", sub(rng)),
        _ => {
            let op = rng.pick(&[
                "*", "/", "%", "+", "-", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "&", "^",
                "|",
            ]);
            format!("{} {op} {}", sub(rng), sub(rng))
        }
    }
}

/// A byte offset: mostly the aligned, in-range kind kernels write.
fn offset(rng: &mut Rng, vars: &[String]) -> String {
    if rng.chance(90) {
        let lane = if rng.chance(50) { " + lane * 4" } else { "" };
        let v = if vars.is_empty() {
            "0".to_string()
        } else {
            format!("({} % 4) * 256", rng.pick(vars))
        };
        format!("{v}{lane}")
    } else {
        expr(rng, vars, 3)
    }
}

fn register(rng: &mut Rng) -> String {
    match rng.below(20) {
        0 => "RZ".into(),
        1 => format!("R{}", rng.below(255)),
        2 => format!("-R{}", rng.below(32)),
        3 => format!("R{}.reuse", rng.below(32)),
        _ => format!("R{}", rng.below(24) & !1),
    }
}

/// A uniform register operand: UR0..UR62 or URZ, sometimes one past the file (UR63,
/// which does not parse as a register).
fn uniform_register(rng: &mut Rng) -> String {
    match rng.below(12) {
        0 => "URZ".into(),
        1 => format!("-UR{}", rng.below(63)),
        2 => format!("UR{}", rng.below(64)),
        _ => format!("UR{}", rng.below(16) & !1),
    }
}

fn operand(rng: &mut Rng, kind: Kind, d: &Decls, vars: &[String]) -> String {
    let mem = |rng: &mut Rng, spaces: &[Space]| -> String {
        let names: Vec<String> = spaces
            .iter()
            .flat_map(|s| match s {
                Space::Global => d.buffers.clone(),
                Space::Shared => d.shared.clone(),
                Space::Local => vec!["local".into()],
                Space::Tmem if d.tmem || rng.chance(5) => vec!["tmem".into()],
                Space::Tmem => vec![],
            })
            .collect();
        let name = if names.is_empty() || rng.chance(1) {
            "nowhere".to_string()
        } else {
            rng.pick(&names).clone()
        };
        format!("{name}[{}]", offset(rng, vars))
    };
    match kind {
        Kind::Reg => register(rng),
        Kind::Pred => format!("{}P{}", if rng.chance(20) { "!" } else { "" }, rng.below(7)),
        Kind::UReg => uniform_register(rng),
        Kind::UPred => format!(
            "{}UP{}",
            if rng.chance(20) { "!" } else { "" },
            rng.below(7)
        ),
        Kind::Int => expr(rng, vars, 2),
        Kind::Value => match rng.below(4) {
            0 => register(rng),
            1 => format!("{}.5", rng.below(10)),
            _ => expr(rng, vars, 2),
        },
        Kind::Mem(spaces) | Kind::RegOrMem(spaces) => mem(rng, spaces),
        Kind::Mbar => mbar(rng, d, vars),
        Kind::Any => rng.pick(&["gsb0", "SB0", "SB1", "1", "0"]).to_string(),
    }
}

fn mbar(rng: &mut Rng, d: &Decls, vars: &[String]) -> String {
    let name = if d.mbarriers.is_empty() {
        "m".to_string()
    } else {
        rng.pick(&d.mbarriers).clone()
    };
    let index = if vars.is_empty() || rng.chance(30) {
        if rng.chance(90) {
            "0".to_string()
        } else {
            rng.below(3).to_string()
        }
    } else {
        format!("{} % 2", rng.pick(vars))
    };
    format!("{name}[{index}]")
}

/// A key's value, of the kind the key takes.
fn key_value(rng: &mut Rng, key: &str, d: &Decls, vars: &[String]) -> String {
    match key {
        "bar" => mbar(rng, d, vars),
        "bytes" | "row" | "pitch" => {
            if rng.chance(80) {
                (128 * (1 + rng.below(8))).to_string()
            } else {
                expr(rng, vars, 2)
            }
        }
        "parity" => {
            if vars.is_empty() {
                rng.below(2).to_string()
            } else {
                format!("({} / 2) & 1", rng.pick(vars))
            }
        }
        "cols" => rng.pick(&["32", "64", "128", "48"]).to_string(),
        _ => number(rng).to_string(),
    }
}

/// One instruction, from the opcode table's form for a random op.
fn instr(rng: &mut Rng, d: &Decls, vars: &[String]) -> String {
    if d.plain {
        return plain_instr(rng, d, vars);
    }
    let mut op = *rng.pick(Op::ALL);
    let tensor_memory = matches!(
        op,
        Op::Utcmma | Op::Ldtm | Op::Sttm | Op::Tmemalloc | Op::Tmemdealloc
    );
    if tensor_memory && !d.tmem && rng.chance(90) {
        op = Op::Ffma;
    }
    let mut mods: Vec<String> = Vec::new();
    if matches!(op, Op::Hgmma | Op::Utcmma) {
        let m = if op == Op::Hgmma { 64 } else { 128 };
        let n = if rng.chance(90) {
            8 * (1 + rng.below(2))
        } else {
            8 * (1 + rng.below(32))
        };
        mods.push(format!("{m}x{n}x16"));
        mods.push("F32".into());
        mods.push("BF16".into());
    }
    let rows: Vec<&Form> = crate::opcode::FORMS.iter().filter(|f| f.op == op).collect();
    let row = *rng.pick(&rows);
    if let Some(w) = row.when.first() {
        mods.push(w.to_string());
    }
    if op == Op::Bar && rng.chance(95) {
        mods.push(rng.pick(&["SYNC", "ARV"]).to_string());
    }
    if let Some(rule) = row.modifier
        && rng.chance(97)
    {
        mods.push(rng.pick(rule.one_of).to_string());
    }
    for _ in 0..rng.below(3) {
        if let Some(m) = op.modifiers().get(rng.below(op.modifiers().len() + 1)) {
            // A second mode modifier (SETMAXNREG.INC.DEC) only now and then.
            let mode = row
                .modifier
                .is_some_and(|r| r.exactly && r.one_of.contains(m));
            if !mode || rng.chance(5) {
                mods.push(m.to_string());
            }
        }
    }
    mods.dedup();
    let mut text = String::new();
    if rng.chance(10) {
        text.push_str(&format!(
            "@{}P{} ",
            if rng.chance(50) { "!" } else { "" },
            rng.below(7)
        ));
    }
    text.push_str(op.mnemonic());
    for m in &mods {
        text.push('.');
        text.push_str(m);
    }
    let mut ops: Vec<String> = Vec::new();
    match (row.operands, op) {
        (_, Op::Bar) => {
            ops.push(if !d.barriers.is_empty() && rng.chance(40) {
                rng.pick(&d.barriers).clone()
            } else {
                rng.below(17).to_string()
            });
            if rng.chance(60) {
                ops.push((32 * (1 + rng.below(d.warps.max(1) as usize))).to_string());
            }
        }
        (Some(o), _) => {
            let n = if rng.chance(90) {
                o.min + rng.below(o.max - o.min + 1)
            } else {
                rng.below(o.max + 2)
            };
            for i in 0..n {
                let kind = o.kinds.get(i).map(|k| k.0).unwrap_or(Kind::Value);
                let text = match (op, i) {
                    (Op::Depbar, 0) => rng.pick(&["SB0", "SB1"]).to_string(),
                    (Op::Warpgroup, 0) | (Op::Hgmma, 3) => "gsb0".to_string(),
                    (Op::Depbar | Op::Warpgroup, 1) => rng.below(3).to_string(),
                    (Op::Setmaxnreg, 0) => rng.pick(&["40", "232", "24", "7"]).to_string(),
                    _ => operand(rng, kind, d, vars),
                };
                ops.push(text);
            }
        }
        (None, _) => {}
    }
    // A tensor box has both of row= and pitch=, or neither.
    let tensor_box = rng.chance(30);
    for k in row.keys {
        let allowed = k.only_with.is_none_or(|m| mods.iter().any(|x| x == m)) || rng.chance(5);
        let wanted = match k.key {
            "row" | "pitch" => tensor_box,
            _ => k.required.is_some() || rng.chance(40),
        };
        if allowed && wanted {
            let value = match k.key {
                "row" => "128".to_string(),
                "pitch" => "256".to_string(),
                _ => key_value(rng, k.key, d, vars),
            };
            ops.push(format!("{}={value}", k.key));
        }
    }
    if rng.chance(10) {
        let top = if rng.chance(95) { 16 } else { 17 };
        ops.push(format!("stall={}", rng.below(top)));
    }
    if !ops.is_empty() {
        text.push(' ');
        text.push_str(&ops.join(", "));
    }
    text
}

/// An instruction of the kind most kernels are made of, written correctly: so that
/// plain kernels validate and reach the simulator.
fn plain_instr(rng: &mut Rng, d: &Decls, vars: &[String]) -> String {
    let r = |rng: &mut Rng| format!("R{}", rng.below(12) * 2);
    let lanes = "lane * 4";
    let global = |rng: &mut Rng| {
        let b = rng.pick(&d.buffers).clone();
        let v = vars.iter().find(|v| v.starts_with('v'));
        match v {
            Some(v) if rng.chance(50) => format!("{b}[({v} % 4) * 128 + {lanes}]"),
            _ => format!("{b}[{lanes}]"),
        }
    };
    match rng.below(12) {
        0 | 1 => format!("FFMA {}, {}, {}, {}", r(rng), r(rng), r(rng), r(rng)),
        2 => format!("FADD {}, {}, 1.5", r(rng), r(rng)),
        3 => format!("IADD3 {}, {}, {}, RZ", r(rng), r(rng), r(rng)),
        4 => format!("MOV {}, {}", r(rng), r(rng)),
        5 => format!("LDG.E {}, {}", r(rng), global(rng)),
        6 => format!("STG.E {}, {}", global(rng), r(rng)),
        7 if !d.shared.is_empty() => {
            format!("LDS {}, {}[{lanes}]", r(rng), rng.pick(&d.shared))
        }
        8 if !d.shared.is_empty() => {
            format!("STS {}[{lanes}], {}", rng.pick(&d.shared), r(rng))
        }
        9 => format!("NANOSLEEP {}", 1 + rng.below(100)),
        10 => format!("MUFU.EX2 {}, {}, stall={}", r(rng), r(rng), rng.below(16)),
        _ => "NOP".to_string(),
    }
}

/// The declarations of issue 25 item 8's constructs, now and then: a buffer partly
/// warm in L2 (sometimes warmer than its size), `pred` lines over warps, parameters
/// and loop variables (which may not be in scope where a guard reads them).
fn gap_decls(rng: &mut Rng, d: &mut Decls, out: &mut String) {
    if rng.chance(20) {
        let warm = rng.pick(&["0", "4096", "1MiB", "2MiB"]);
        out.push_str(&format!("buffer BW size=1MiB warm={warm}\n"));
        d.buffers.push("BW".into());
    }
    for n in 0..rng.below(3) {
        // A plain kernel's are valid everywhere: over warps and parameters only.
        let mut vars = vec!["warp".to_string()];
        vars.extend(d.params.iter().cloned());
        if !d.plain {
            vars.push("v0".into());
            if rng.chance(3) {
                vars.push("lane".into());
            }
        }
        let pred = if rng.chance(70) {
            format!("P{n}")
        } else {
            format!("UP{n}")
        };
        out.push_str(&format!("pred {pred} = {}\n", expr(rng, &vars, 2)));
    }
}

/// One instruction of issue 25 item 8's constructs: a guard on a declared (or
/// undeclared) predicate, uniform arithmetic, an address through `perm()`, a bulk
/// store and its `.READ` wait, `LDG.E.STRONG.GPU`.
fn gap_instr(rng: &mut Rng, d: &Decls, vars: &[String]) -> String {
    if d.plain {
        return plain_gap_instr(rng, d, vars);
    }
    let guard = match rng.below(4) {
        0 => format!("@P{} ", rng.below(3)),
        1 => format!("@!UP{} ", rng.below(3)),
        _ => String::new(),
    };
    let ur = |rng: &mut Rng| uniform_register(rng);
    let buffer = rng.pick(&d.buffers).clone();
    let index = if vars.is_empty() || rng.chance(20) {
        number(rng).to_string()
    } else {
        rng.pick(vars).clone()
    };
    let n = if rng.chance(90) {
        rng.pick(&["64", "512", "1"]).to_string()
    } else {
        expr(rng, vars, 1)
    };
    let body = match rng.below(7) {
        0 => format!("UIADD3 {}, {}, {}, URZ", ur(rng), ur(rng), ur(rng)),
        1 => format!("FFMA R{}, R2, {}, R1", rng.below(8) * 2, ur(rng)),
        2 => format!("LDG.E R4, {buffer}[perm({index}, {n}) * 128]"),
        3 => format!("LDG.E.STRONG.GPU R6, {buffer}[lane * 4]"),
        4 if !d.shared.is_empty() => format!(
            "UBLKCP.G.S {buffer}[0], {}[0], bytes={}",
            rng.pick(&d.shared),
            rng.pick(&["1024", "16", "100"])
        ),
        5 => format!("DEPBAR.LE.READ SB{}, {}", rng.below(2), rng.below(3)),
        _ => "BRA".to_string(),
    };
    format!("{guard}{body}")
}

/// `gap_instr` written correctly, for plain kernels that should reach the simulator.
fn plain_gap_instr(rng: &mut Rng, d: &Decls, vars: &[String]) -> String {
    let guard = match rng.below(3) {
        0 => format!("@P{} ", rng.below(3)),
        1 => format!("@!UP{} ", rng.below(3)),
        _ => String::new(),
    };
    let ur = |rng: &mut Rng| format!("UR{}", 4 + rng.below(8));
    let body = match rng.below(5) {
        0 => format!("UIADD3 {}, {}, 0x1, URZ", ur(rng), ur(rng)),
        1 => format!("FFMA R{}, R2, {}, R1", rng.below(8) * 2, ur(rng)),
        2 => {
            let v = vars.iter().find(|v| v.starts_with('v'));
            let x = v.map_or("warp".to_string(), |v| format!("{v} + warp"));
            format!(
                "LDG.E R4, {}[perm({x}, 64) * 128 + lane * 4]",
                rng.pick(&d.buffers)
            )
        }
        3 => format!("LDG.E.STRONG.GPU R6, {}[lane * 4]", rng.pick(&d.buffers)),
        _ => "BRA".to_string(),
    };
    format!("{guard}{body}")
}

/// A block's statements at `indent`, with `vars` in scope.
fn block(rng: &mut Rng, d: &Decls, vars: &mut Vec<String>, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for _ in 0..1 + rng.below(6) {
        let deep = vars.len() < 3 || rng.chance(3);
        match rng.below(10) {
            0 | 1 if deep && indent < 40 => {
                let var = format!("v{}", vars.len());
                let end = if rng.chance(80) {
                    (1 + rng.below(4)).to_string()
                } else {
                    expr(rng, &d.params, 2)
                };
                out.push_str(&format!("{pad}loop {var} 0..{end}\n"));
                vars.push(var);
                block(rng, d, vars, indent + 2, out);
                vars.pop();
            }
            2 if indent < 40 => {
                let mut scope = vars.clone();
                scope.push("warp".into());
                out.push_str(&format!("{pad}if {}\n", expr(rng, &scope, 2)));
                block(rng, d, vars, indent + 2, out);
            }
            _ => {
                let mut scope = vars.clone();
                scope.extend(d.params.iter().cloned());
                let ins = if rng.chance(8) {
                    gap_instr(rng, d, &scope)
                } else {
                    instr(rng, d, &scope)
                };
                out.push_str(&format!("{pad}{ins}\n"));
            }
        }
    }
}

/// A kernel's text that follows the grammar, with values that are sometimes at edges.
pub fn kernel(rng: &mut Rng) -> String {
    let mut out = format!("kernel k{}\n", rng.below(1000));
    let nparams = rng.below(3);
    let params: Vec<String> = (0..nparams).map(|i| format!("P{}X", i)).collect();
    let param_values: Vec<i64> = params
        .iter()
        .map(|_| {
            if rng.chance(85) {
                1 + rng.below(8) as i64
            } else {
                number(rng)
            }
        })
        .collect();
    let decl = |rng: &mut Rng, literal: String| -> String {
        if !params.is_empty() && rng.chance(15) {
            format!("{} * {literal}", rng.pick(&params))
        } else {
            literal
        }
    };
    // Mostly values a kernel can have, now and then one it cannot.
    let threads = if rng.chance(95) {
        *rng.pick(&[32u32, 64, 128, 256, 384, 1024])
    } else {
        *rng.pick(&[0u32, 2048, 33])
    };
    let warps = threads.div_ceil(32).min(32);
    let regs = if rng.chance(95) {
        *rng.pick(&[32, 64, 168, 255])
    } else {
        *rng.pick(&[0, 256])
    };
    let shared: Vec<u32> = (0..1 + rng.below(2))
        .map(|_| *rng.pick(&[1024u32, 4096, 16384]))
        .collect();
    let total: u32 = shared.iter().sum();
    let smem = if rng.chance(95) {
        total.max(4096).to_string()
    } else {
        rng.pick(&["300000", "0", "64KiB"]).to_string()
    };
    let smem = decl(rng, smem);
    let grid = rng.pick(&["1", "2", "132"]).to_string();
    let grid = decl(rng, grid);
    out.push_str(&format!(
        "launch cta_threads={threads} regs={regs} smem={smem} grid={grid}"
    ));
    if rng.chance(5) {
        out.push_str(&format!(" cluster={}", rng.pick(&[1, 2, 3])));
    }
    let tmem = rng.chance(15);
    if tmem {
        out.push_str(&format!(" tmem={}", rng.pick(&[512, 512, 512, 48])));
    }
    out.push('\n');
    let mut d = Decls {
        params: params.clone(),
        buffers: Vec::new(),
        shared: Vec::new(),
        mbarriers: Vec::new(),
        barriers: Vec::new(),
        warps,
        tmem,
        plain: rng.chance(40),
    };
    for i in 0..1 + rng.below(2) {
        let size = if rng.chance(97) { "64MiB" } else { "16" }.to_string();
        let size = decl(rng, size);
        out.push_str(&format!("buffer B{i} size={size}\n"));
        d.buffers.push(format!("B{i}"));
    }
    for (i, size) in shared.iter().enumerate() {
        out.push_str(&format!("shared S{i} size={size}\n"));
        d.shared.push(format!("S{i}"));
    }
    for i in 0..1 + rng.below(2) {
        let len = if !params.is_empty() && rng.chance(20) {
            rng.pick(&params).clone()
        } else {
            rng.pick(&["1", "2", "4"]).to_string()
        };
        let count = if rng.chance(95) {
            rng.pick(&["1", "2", "4", "8"])
        } else {
            &"0"
        };
        out.push_str(&format!("mbarrier M{i}[{len}] count={count}\n"));
        d.mbarriers.push(format!("M{i}"));
    }
    if rng.chance(30) {
        out.push_str(&format!(
            "barrier NB id={} threads={}\n",
            rng.below(16),
            32 * (1 + rng.below(warps.max(1) as usize))
        ));
        d.barriers.push("NB".into());
    }
    if !params.is_empty() {
        out.push_str("param");
        for (p, v) in params.iter().zip(&param_values) {
            out.push_str(&format!(" {p}={v}"));
        }
        out.push('\n');
    }
    gap_decls(rng, &mut d, &mut out);
    if rng.chance(20) {
        let flops = if rng.chance(80) {
            format!("2 * {}", rng.pick(&["1024", "P0X", "4096 * 64"]))
        } else {
            expr(rng, &params, 2)
        };
        out.push_str(&format!("work flops={flops}\n"));
    }
    // Roles over contiguous warp ranges; now and then a gap or an overlap.
    let mut first = 0u32;
    let mut n = 0;
    while first < warps.max(1) && n < 4 {
        let len = 1 + rng.below(warps.max(1) as usize) as u32;
        let last = (first + len - 1).min(warps.max(1) - 1 + u32::from(rng.chance(3)));
        let maxnreg = if rng.chance(5) {
            format!(" maxnreg={}", rng.pick(&[40, 232, 24, 100]))
        } else {
            String::new()
        };
        out.push_str(&format!("\nrole r{n} warps={first}..{last}{maxnreg}\n"));
        block(rng, &d, &mut Vec::new(), 2, &mut out);
        if rng.chance(70) {
            out.push_str("  EXIT\n");
        }
        first = last + 1 + u32::from(rng.chance(3));
        n += 1;
    }
    out
}

/// The text with one to three small corruptions: a character deleted, inserted or
/// changed, a line deleted, duplicated or moved, a number replaced by an edge value, an
/// expression nested deeply.
pub fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(3) {
        if lines.is_empty() {
            break;
        }
        let i = rng.below(lines.len());
        match rng.below(8) {
            0 => {
                lines.remove(i);
            }
            1 => {
                let l = lines[i].clone();
                lines.insert(rng.below(lines.len() + 1), l);
            }
            2 => {
                let j = rng.below(lines.len());
                lines.swap(i, j);
            }
            3 => {
                let chars: Vec<char> = lines[i].chars().collect();
                if !chars.is_empty() {
                    let at = rng.below(chars.len());
                    let mut c = chars;
                    c.remove(at);
                    lines[i] = c.into_iter().collect();
                }
            }
            4 => {
                let mut c: Vec<char> = lines[i].chars().collect();
                let at = rng.below(c.len() + 1);
                let ch = *rng.pick(&[
                    '(', ')', '[', ']', ',', '=', '.', '@', '!', '-', '+', '*', '#', '\t', ' ',
                    '0', '9', 'R', 'P', 'x', '_', 'é', ';', '~', '<',
                ]);
                c.insert(at, ch);
                lines[i] = c.into_iter().collect();
            }
            5 => {
                let edge = *rng.pick(&[
                    "0",
                    "-1",
                    "4294967296",
                    "9223372036854775807",
                    "99999999999999999999",
                    "0x",
                    "1e400",
                ]);
                lines[i] = replace_a_number(&lines[i], edge, rng);
            }
            6 => {
                let n = *rng.pick(&[50usize, 101, 5000]);
                let deep = if rng.chance(50) {
                    format!("{}1{}", "(".repeat(n), ")".repeat(n))
                } else {
                    vec!["1"; n].join("+")
                };
                lines[i] = replace_a_number(&lines[i], &deep, rng);
            }
            _ => {
                let extra = " ".repeat(1 + rng.below(3));
                lines[i] = format!("{extra}{}", lines[i]);
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// `line` with one of its numbers (a run of digits) replaced by `by`.
fn replace_a_number(line: &str, by: &str, rng: &mut Rng) -> String {
    let starts: Vec<usize> = line
        .char_indices()
        .filter(|&(i, c)| {
            c.is_ascii_digit() && !line[..i].ends_with(|p: char| p.is_ascii_alphanumeric())
        })
        .map(|(i, _)| i)
        .collect();
    if starts.is_empty() {
        return line.to_string();
    }
    let s = starts[rng.below(starts.len())];
    let e = line[s..]
        .find(|c: char| !c.is_ascii_digit())
        .map_or(line.len(), |n| s + n);
    format!("{}{by}{}", &line[..s], &line[e..])
}

/// What became of a text.
#[derive(Debug)]
pub enum Outcome {
    /// The parser rejected it.
    ParseError,
    /// It parsed and the validator found this many problems.
    Invalid(usize),
    /// It parsed and validated.
    Valid(Box<Kernel>),
}

/// Runs `src` through the parser, the validator, the diagnostics' rendering and the
/// printer, and checks their promises: no panic; every diagnostic points into the
/// text; a parsed kernel prints to text that parses back to the same kernel, valid
/// exactly when the original is. The error says which promise broke.
pub fn check(src: &str) -> Result<Outcome, String> {
    let caught = catch_unwind(AssertUnwindSafe(|| check_inner(src)));
    caught.unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err(format!("panicked: {msg}"))
    })
}

fn check_inner(src: &str) -> Result<Outcome, String> {
    let lines = src.lines().count() as u32;
    let in_text = |line: u32, col: u32| line >= 1 && line <= lines.max(1) && col >= 1;
    let k = match crate::parse_kernel(src) {
        Err(d) => {
            if !in_text(d.line, d.col) {
                return Err(format!("parse error outside the text: {d}"));
            }
            let _ = d.render("fuzz.smk", src);
            return Ok(Outcome::ParseError);
        }
        Ok(k) => k,
    };
    let diags = crate::validate(&k);
    for d in &diags {
        if !in_text(d.line, d.col) {
            return Err(format!("diagnostic outside the text: {d}"));
        }
        let _ = d.render("fuzz.smk", src);
    }
    let printed = k.to_string();
    let again = crate::parse_kernel(&printed)
        .map_err(|d| format!("the printed kernel does not parse: {d}\n{printed}"))?;
    if again != k {
        return Err(format!(
            "the printed kernel parses to another kernel\n{printed}"
        ));
    }
    let valid_again = crate::validate(&again).is_empty();
    if valid_again != diags.is_empty() {
        return Err(format!(
            "the printed kernel is {}valid, the original {}\n{printed}",
            if valid_again { "" } else { "in" },
            if diags.is_empty() { "valid" } else { "invalid" }
        ));
    }
    Ok(if diags.is_empty() {
        Outcome::Valid(Box::new(k))
    } else {
        Outcome::Invalid(diags.len())
    })
}

/// What a fuzzing loop ([`fuzz`]) counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Cases run.
    pub cases: u64,
    /// Texts the parser refused (with a diagnostic, as it should).
    pub parse_errors: u64,
    /// Kernels the validator refused.
    pub invalid: u64,
    /// Kernels that validated (and went through the caller's further check).
    pub valid: u64,
    /// Cases that broke a promise.
    pub found: u64,
}

impl Tally {
    /// `N cases in S s: P parse errors, I invalid, V valid; F problems found`.
    pub fn line(&self, seconds: f64) -> String {
        format!(
            "{} cases in {seconds:.1} s: {} parse errors, {} invalid, {} valid; {} problems found",
            self.cases, self.parse_errors, self.invalid, self.valid, self.found
        )
    }
}

/// How a fuzzing loop runs: its seed, how many cases at most, for how long at most, and
/// where the cases that break a promise are written.
#[derive(Clone, Debug)]
pub struct FuzzRun {
    /// The seed of the generator: the same seed gives the same cases.
    pub seed: u64,
    /// The most cases to run.
    pub cases: u64,
    /// The most time to run for (None: no limit).
    pub limit: Option<std::time::Duration>,
    /// The folder the failing cases are written to, one new file each
    /// (`SEED-CASE.smk`, headed by the problem in comments).
    pub out_dir: std::path::PathBuf,
}

impl FuzzRun {
    /// A loop's settings from a driver's arguments `[SEED] [CASES] [SECONDS]` (defaults
    /// 1, `cases`, no limit), its findings written under `out_dir`.
    pub fn from_args(args: &[String], cases: u64, out_dir: &str) -> Result<FuzzRun, String> {
        let num = |i: usize, what: &str| -> Result<Option<u64>, String> {
            args.get(i)
                .map(|s| {
                    s.parse()
                        .map_err(|_| format!("{what} `{s}` is not a number"))
                })
                .transpose()
        };
        Ok(FuzzRun {
            seed: num(0, "SEED")?.unwrap_or(1),
            cases: num(1, "CASES")?.unwrap_or(cases),
            limit: num(2, "SECONDS")?.map(std::time::Duration::from_secs),
            out_dir: out_dir.into(),
        })
    }
}

/// The text fuzzers' loop: each case is a generated kernel ([`kernel`]), corrupted in
/// every other case ([`mutate`]), run through [`check`]; a kernel that validates then
/// goes through `then`, the driver's further promise (None when it holds). A case that
/// breaks a promise is written to a new file under `run.out_dir` and said on stderr;
/// progress goes to stderr every 10,000 cases. Stops after `run.cases` cases or
/// `run.limit`, whichever comes first.
pub fn fuzz(run: &FuzzRun, mut then: impl FnMut(&Kernel) -> Option<String>) -> Tally {
    let mut rng = Rng(run.seed);
    let mut t = Tally::default();
    let started = std::time::Instant::now();
    for case in 0..run.cases {
        if run.limit.is_some_and(|l| started.elapsed() >= l) {
            break;
        }
        let mut src = kernel(&mut rng);
        if case % 2 == 1 {
            src = mutate(&src, &mut rng);
        }
        t.cases += 1;
        let problem = match check(&src) {
            Ok(Outcome::ParseError) => {
                t.parse_errors += 1;
                None
            }
            Ok(Outcome::Invalid(_)) => {
                t.invalid += 1;
                None
            }
            Ok(Outcome::Valid(k)) => {
                t.valid += 1;
                then(&k)
            }
            Err(p) => Some(p),
        };
        if let Some(problem) = problem {
            t.found += 1;
            record(run, case, &problem, &src);
        }
        if (case + 1) % 10_000 == 0 {
            eprintln!("{}", t.line(started.elapsed().as_secs_f64()));
        }
    }
    t
}

/// A failing case written to a new file (never over one), headed by its problem.
fn record(run: &FuzzRun, case: u64, problem: &str, src: &str) {
    use std::io::Write;
    let path = run.out_dir.join(format!("{}-{case}.smk", run.seed));
    let body: String = problem.lines().map(|l| format!("# {l}\n")).collect();
    let written = std::fs::create_dir_all(&run.out_dir).and_then(|()| {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)?
            .write_all(format!("{body}{src}").as_bytes())
    });
    let first = problem.lines().next().unwrap_or("");
    match written {
        Ok(()) => eprintln!("case {case}: {first} -> {}", path.display()),
        Err(e) => eprintln!("case {case}: {problem} (not written: {e})\n{src}"),
    }
}
