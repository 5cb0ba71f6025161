//! Semantic checks: everything a parsed kernel can get wrong that the grammar cannot see.
//!
//! [`validate`] returns every problem it finds, each positioned at the declaration,
//! role, loop, instruction or operand at fault and most with a `help` line. An empty
//! list means the engine can run the kernel: names resolve, indices stay in range,
//! registers fit the budgets, resources fit one SM of the Hopper generation, and every
//! barrier that someone waits on can complete.
//!
//! Values that depend on loop variables and built-ins are checked with interval
//! arithmetic: an index is an error when it certainly leaves its range, or when the
//! bound that leaves it is one the program really reaches (each variable used once,
//! operators whose bounds are attained).

use std::collections::{BTreeMap, HashMap};

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::expr::{BUILTIN_VARS, BinOp, Expr, Func};
use crate::opcode::Op;
use crate::parse::parse_reg;

/// Shared memory one block may use on Hopper (cc 9.0): 227 KB.
pub const MAX_SMEM_PER_BLOCK: u32 = 232_448;
/// Registers per thread an instruction can name (R0..R254; R255 is RZ).
pub const MAX_REGS_PER_THREAD: u32 = 255;
/// Threads per CTA.
pub const MAX_CTA_THREADS: u32 = 1024;
/// Hardware named barriers per CTA.
pub const NAMED_BARRIERS: u32 = 16;
/// An mbarrier's pending-arrival count is 20 bits wide.
pub const MAX_MBARRIER_COUNT: u32 = (1 << 20) - 1;

/// The most mbarriers a CTA can declare: each is 8 bytes of shared memory, and a CTA has
/// at most 227 KiB of it (232,448 bytes, the H100's and the B200's opt-in limit).
pub const MAX_MBARRIERS: u64 = 232_448 / 8;
/// The largest stall count a SASS control code holds (4 bits).
pub const MAX_STALL: i64 = 15;
/// Tensor-memory columns per SM (Blackwell).
pub const TMEM_COLUMNS: u32 = 512;
/// Largest non-portable thread-block cluster.
pub const MAX_CLUSTER: u32 = 16;

/// Checks a parsed (or built) kernel; returns every problem found, in source order.
pub fn validate(k: &Kernel) -> Vec<Diagnostic> {
    let mut v = Validator::new(k);
    v.declarations();
    v.launch();
    v.roles();
    for (i, r) in k.roles.iter().enumerate() {
        v.role_body(i, r);
    }
    v.barriers();
    v.mbarriers();
    let mut d = v.diags;
    d.sort_by_key(|d| (d.line, d.col));
    d
}

// ----- intervals -----

/// The values an expression can take: `lo..=hi`. `exact` when both bounds are really
/// reached; `dense` when every integer between them is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Iv {
    lo: i64,
    hi: i64,
    exact: bool,
    dense: bool,
}

impl Iv {
    fn point(v: i64) -> Iv {
        Iv {
            lo: v,
            hi: v,
            exact: true,
            dense: true,
        }
    }
    fn range(lo: i64, hi: i64) -> Iv {
        Iv {
            lo,
            hi,
            exact: true,
            dense: true,
        }
    }
    fn is_point(&self) -> bool {
        self.lo == self.hi
    }
    fn loose(self) -> Iv {
        Iv {
            exact: false,
            dense: false,
            ..self
        }
    }
}

fn corners(a: Iv, b: Iv, f: impl Fn(i64, i64) -> Option<i64>) -> Option<(i64, i64)> {
    let c = [
        f(a.lo, b.lo)?,
        f(a.lo, b.hi)?,
        f(a.hi, b.lo)?,
        f(a.hi, b.hi)?,
    ];
    Some((*c.iter().min()?, *c.iter().max()?))
}

/// Interval of `e`, `None` when unknown (an unbound name, overflow, a divisor that may be
/// zero). Exactness assumes the variables are independent; the caller clears it when a
/// variable appears twice.
fn interval(e: &Expr, env: &dyn Fn(&str) -> Option<Iv>) -> Option<Iv> {
    Some(match e {
        Expr::Int(v) => Iv::point(*v),
        Expr::Var(n) => env(n)?,
        Expr::Neg(a) => {
            let a = interval(a, env)?;
            Iv {
                lo: a.hi.checked_neg()?,
                hi: a.lo.checked_neg()?,
                ..a
            }
        }
        Expr::Not(a) => {
            let a = interval(a, env)?;
            Iv {
                lo: !a.hi,
                hi: !a.lo,
                ..a
            }
        }
        Expr::Call(f, a, b) => {
            let (a, b) = (interval(a, env)?, interval(b, env)?);
            let (lo, hi) = match f {
                Func::Min => (a.lo.min(b.lo), a.hi.min(b.hi)),
                Func::Max => (a.lo.max(b.lo), a.hi.max(b.hi)),
            };
            Iv {
                lo,
                hi,
                exact: a.exact && b.exact,
                dense: a.dense && b.dense,
            }
        }
        Expr::Bin(op, a, b) => {
            let (a, b) = (interval(a, env)?, interval(b, env)?);
            let exact = a.exact && b.exact;
            match op {
                BinOp::Add => Iv {
                    lo: a.lo.checked_add(b.lo)?,
                    hi: a.hi.checked_add(b.hi)?,
                    exact,
                    dense: a.dense && b.dense,
                },
                BinOp::Sub => Iv {
                    lo: a.lo.checked_sub(b.hi)?,
                    hi: a.hi.checked_sub(b.lo)?,
                    exact,
                    dense: a.dense && b.dense,
                },
                BinOp::Mul => {
                    let (lo, hi) = corners(a, b, i64::checked_mul)?;
                    let unit = |x: Iv| x.is_point() && x.lo.unsigned_abs() <= 1;
                    Iv {
                        lo,
                        hi,
                        exact,
                        dense: (a.dense && unit(b)) || (b.dense && unit(a)) || lo == hi,
                    }
                }
                BinOp::Div => {
                    if b.lo <= 0 && b.hi >= 0 {
                        return None;
                    }
                    let (lo, hi) = corners(a, b, i64::checked_div)?;
                    Iv {
                        lo,
                        hi,
                        exact: exact && b.is_point(),
                        dense: a.dense && b.is_point(),
                    }
                }
                BinOp::Rem => {
                    if !b.is_point() || b.lo <= 0 || a.lo < 0 {
                        return None;
                    }
                    let m = b.lo;
                    if a.lo / m == a.hi / m {
                        Iv {
                            lo: a.lo % m,
                            hi: a.hi % m,
                            exact: a.exact,
                            dense: a.dense,
                        }
                    } else {
                        // The range wraps: it reaches m - 1 just before a multiple of m
                        // and 0 at it, when it is dense.
                        Iv {
                            lo: 0,
                            hi: m - 1,
                            exact: a.exact && a.dense,
                            dense: a.dense && a.hi - a.lo + 1 >= m,
                        }
                    }
                }
                BinOp::Shl | BinOp::Shr => {
                    if !b.is_point() || !(0..63).contains(&b.lo) {
                        return None;
                    }
                    let s = b.lo as u32;
                    if *op == BinOp::Shl {
                        let f = 1i64.checked_shl(s)?;
                        Iv {
                            lo: a.lo.checked_mul(f)?,
                            hi: a.hi.checked_mul(f)?,
                            exact: a.exact,
                            dense: a.dense && (s == 0 || a.is_point()),
                        }
                    } else {
                        Iv {
                            lo: a.lo >> s,
                            hi: a.hi >> s,
                            exact: a.exact,
                            dense: a.dense,
                        }
                    }
                }
                BinOp::And | BinOp::Or | BinOp::Xor => {
                    if a.is_point() && b.is_point() {
                        return Some(Iv::point(op.apply(a.lo, b.lo).ok()?));
                    }
                    if a.lo < 0 || b.lo < 0 {
                        return None;
                    }
                    let hi = if *op == BinOp::And {
                        a.hi.min(b.hi)
                    } else {
                        let m = a.hi.max(b.hi) as u64;
                        (m + 1).checked_next_power_of_two()? as i64 - 1
                    };
                    Iv::range(0, hi).loose()
                }
                BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
                    if a.is_point() && b.is_point() {
                        return Some(Iv::point(op.apply(a.lo, b.lo).ok()?));
                    }
                    Iv::range(0, 1).loose()
                }
            }
        }
    })
}

/// True when some variable occurs twice (`warp` and `warpgroup` count as one), which
/// breaks the independence exact bounds rely on.
fn reuses_a_variable(e: &Expr) -> bool {
    fn walk(e: &Expr, seen: &mut Vec<String>) -> bool {
        match e {
            Expr::Int(_) => false,
            Expr::Var(v) => {
                let v = if v == "warpgroup" { "warp" } else { v.as_str() };
                if seen.iter().any(|s| s == v) {
                    true
                } else {
                    seen.push(v.to_string());
                    false
                }
            }
            Expr::Neg(a) | Expr::Not(a) => walk(a, seen),
            Expr::Bin(_, a, b) | Expr::Call(_, a, b) => walk(a, seen) || walk(b, seen),
        }
    }
    walk(e, &mut Vec::new())
}

// ----- helpers -----

fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(!a[i - 1].eq_ignore_ascii_case(&b[j - 1]));
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// `did you mean `x`?` for the closest candidate, if one is close.
fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let best = candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, c)| *d <= (name.len().max(c.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)?;
    Some(format!("did you mean `{}`?", best.1))
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn warps_text(first: u32, last: u32) -> String {
    if first == last {
        format!("warp {first}")
    } else {
        format!("warps {first}..{last}")
    }
}

/// What a name in an `Index` operand refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Mem(Space),
    Mbar,
}

/// Which instructions touch an mbarrier and how.
#[derive(Default)]
struct MbarUses {
    arrive: Vec<Span>,
    expect_tx: Vec<Span>,
    wait: Vec<Span>,
    complete_tx: Vec<Span>,
}

/// One use of a hardware named barrier.
struct BarUse {
    role: usize,
    /// The barrier ids it may name.
    ids: Iv,
    /// Threads the barrier waits for, when known.
    threads: Option<u32>,
    /// The instruction waits (BAR.SYNC, BAR.RED) rather than only arriving (BAR.ARV).
    waits: bool,
    mnemonic: String,
    span: Span,
}

/// A loop variable in scope with the values it takes.
struct ScopeVar {
    name: String,
    iv: Option<Iv>,
}

struct RoleCtx<'a> {
    index: usize,
    role: &'a Role,
    budget: u32,
    whole_warpgroups: bool,
}

/// What variables an expression may use.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Allow {
    /// Parameters and enclosing loop variables (loop bounds).
    Bounds,
    /// Anything the same for all lanes of a warp (conditions, barrier indices, sizes).
    Uniform,
    /// Anything, `lane` included (addresses, immediates).
    Lane,
}

struct Validator<'k> {
    k: &'k Kernel,
    params: HashMap<&'k str, i64>,
    diags: Vec<Diagnostic>,
    mbar_uses: BTreeMap<String, MbarUses>,
    bar_uses: Vec<BarUse>,
    /// Inside an `if` or a guarded instruction, not every value of a variable is reached,
    /// so bounds are not exact.
    conditional: u32,
    /// Roles already told that wgmma needs whole warpgroups.
    wgmma_reported: Vec<usize>,
    /// Loop variables whose loops have ended in the current role, with the loop's line.
    ended_loops: Vec<(String, u32)>,
}

impl<'k> Validator<'k> {
    fn new(k: &'k Kernel) -> Self {
        Validator {
            k,
            params: k
                .params
                .iter()
                .map(|p| (p.name.as_str(), p.default))
                .collect(),
            diags: Vec::new(),
            mbar_uses: BTreeMap::new(),
            bar_uses: Vec::new(),
            conditional: 0,
            wgmma_reported: Vec::new(),
            ended_loops: Vec::new(),
        }
    }

    fn error(&mut self, span: Span, msg: impl Into<String>) -> &mut Diagnostic {
        self.diags.push(Diagnostic::new(span, msg));
        self.diags.last_mut().expect("just pushed")
    }

    fn error_help(&mut self, span: Span, msg: impl Into<String>, help: impl Into<String>) {
        self.diags.push(Diagnostic::new(span, msg).with_help(help));
    }

    fn cta_threads(&self) -> u32 {
        self.k.launch.cta_threads
    }

    // ----- declarations -----

    fn declarations(&mut self) {
        let k = self.k;
        // Every name lives in one namespace: a memory operand `X[...]` must say one thing.
        let mut seen: HashMap<&str, (&str, Span)> = HashMap::new();
        let mut names: Vec<(&str, &str, Span)> = Vec::new();
        names.extend(
            k.buffers
                .iter()
                .map(|b| (b.name.as_str(), "buffer", b.span)),
        );
        names.extend(
            k.shared
                .iter()
                .map(|b| (b.name.as_str(), "shared region", b.span)),
        );
        names.extend(
            k.mbarriers
                .iter()
                .map(|b| (b.name.as_str(), "mbarrier", b.span)),
        );
        names.extend(
            k.named_barriers
                .iter()
                .map(|b| (b.name.as_str(), "barrier", b.span)),
        );
        names.extend(
            k.params
                .iter()
                .map(|b| (b.name.as_str(), "parameter", b.span)),
        );
        names.sort_by_key(|(_, _, s)| (s.line, s.col));
        for (name, what, span) in names {
            if let Some((w0, s0)) = seen.get(name) {
                let msg = format!(
                    "`{name}` is declared twice: as a {w0} on line {} and as a {what} here",
                    s0.line
                );
                self.error_help(span, msg, "give each declaration its own name");
                continue;
            }
            seen.insert(name, (what, span));
            let reserved = BUILTIN_VARS.contains(&name)
                || matches!(name, "local" | "tmem" | "gsb0" | "min" | "max")
                || parse_reg(name).is_some()
                || parse_reg(&name.to_ascii_uppercase()).is_some() && name.len() <= 4;
            if reserved {
                let msg =
                    format!("`{name}` cannot name a {what}: it is a register or a built-in name");
                self.error_help(
                    span,
                    msg,
                    "register names (R0..R254, RZ, P0..P6, PT), `warp`, `lane`, `warpgroup`, `cta`, `local`, `tmem`, `gsb0`, `min` and `max` are reserved",
                );
            }
        }

        let mut shared_total: u64 = 0;
        let mut reported_over = false;
        for s in &k.shared {
            if s.size == 0 {
                self.error(s.span, format!("shared region `{}` has size 0", s.name));
            }
            shared_total += s.size as u64;
            if shared_total > k.launch.smem as u64 && !reported_over {
                reported_over = true;
                let msg = format!(
                    "shared regions add up to {shared_total} bytes with `{}`, more than the launch's smem={}",
                    s.name, k.launch.smem
                );
                self.error_help(
                    s.span,
                    msg,
                    format!(
                        "raise smem= on the launch line to at least {shared_total}, or shrink the regions"
                    ),
                );
            }
        }

        let mut mbarriers = 0u64;
        for m in &k.mbarriers {
            mbarriers += u64::from(m.len);
            if mbarriers > MAX_MBARRIERS {
                let msg = format!(
                    "{} declared up to `{}`: a CTA holds at most {MAX_MBARRIERS} (each is 8 bytes of its at most 227 KiB of shared memory)",
                    plural(mbarriers, "mbarrier", "mbarriers"),
                    m.name
                );
                self.error(m.span, msg);
                break;
            }
        }
        for m in &k.mbarriers {
            if m.count == 0 || m.count > MAX_MBARRIER_COUNT {
                let msg = format!(
                    "mbarrier `{}` has count={}: an mbarrier expects 1 to {MAX_MBARRIER_COUNT} arrivals per phase",
                    m.name, m.count
                );
                self.error(m.span, msg);
            }
        }

        let mut by_id: HashMap<u32, &NamedBarrierDecl> = HashMap::new();
        for b in &k.named_barriers {
            if b.id >= NAMED_BARRIERS {
                self.error_help(
                    b.span,
                    format!("barrier `{}` has id={}, outside 0..15", b.name, b.id),
                    "a CTA has 16 hardware named barriers, ids 0 to 15",
                );
            } else if let Some(prev) = by_id.get(&b.id) {
                if prev.threads != b.threads {
                    let msg = format!(
                        "barriers `{}` and `{}` both use id {} but with different thread counts ({} and {})",
                        prev.name, b.name, b.id, prev.threads, b.threads
                    );
                    self.error(b.span, msg);
                }
            } else {
                by_id.insert(b.id, b);
            }
            self.check_thread_count(b.span, b.threads as i64, &format!("barrier `{}`", b.name));
        }

        if let Some(w) = &k.work {
            for (what, e) in [("flops", &w.flops), ("bytes", &w.bytes)] {
                let Some(e) = e else { continue };
                self.check_vars(e, w.span, &[], Allow::Bounds, "`work`");
                // (Expressions wrap on overflow, as a 64-bit register does.)
                if let Ok(v) = e.eval(&|n| k.param(n))
                    && v < 0
                {
                    self.error(
                        w.span,
                        format!("`work {what}=` comes to {v}: a CTA's work is not negative (does its product overflow 64 bits?)"),
                    );
                }
            }
        }
    }

    /// A barrier's thread count: a whole number of warps, at most the CTA.
    fn check_thread_count(&mut self, span: Span, n: i64, what: &str) {
        let cta = self.cta_threads() as i64;
        if n <= 0 || n % 32 != 0 {
            let msg = format!("{what} counts {n} threads, which is not a whole number of warps");
            self.error_help(
                span,
                msg,
                "barriers count whole warps: use a positive multiple of 32",
            );
        } else if n > cta {
            let msg = format!("{what} waits for {n} threads but the CTA has only {cta}");
            self.error_help(
                span,
                msg,
                "the barrier could never complete; count at most cta_threads",
            );
        }
    }

    // ----- launch -----

    fn launch(&mut self) {
        let l = &self.k.launch;
        let span = l.span;
        if l.cta_threads == 0 || l.cta_threads > MAX_CTA_THREADS {
            self.error_help(
                span,
                format!("cta_threads={} is outside 1..=1024", l.cta_threads),
                "a CTA has 1 to 1024 threads",
            );
        }
        if l.regs > MAX_REGS_PER_THREAD {
            self.error_help(
                span,
                format!("regs={} is more than a thread can have", l.regs),
                "a thread addresses at most 255 registers (R0..R254)",
            );
        }
        if l.regs == 0 && self.k.roles.iter().any(|r| r.maxnreg.is_none()) {
            self.error_help(
                span,
                "the launch gives no registers per thread",
                "add regs=N to the launch line (the register budget of roles without maxnreg=)",
            );
        }
        if l.smem > MAX_SMEM_PER_BLOCK {
            let msg = format!(
                "smem={} bytes ({:.1} KiB) is over the {} bytes (227 KB) one block may use",
                l.smem,
                l.smem as f64 / 1024.0,
                MAX_SMEM_PER_BLOCK
            );
            self.error_help(
                span,
                msg,
                "on Hopper a block can opt in to at most 227 KB of shared memory; shrink the pipeline or its stages",
            );
        }
        if l.grid == 0 {
            self.error(span, "grid=0: the launch needs at least one CTA");
        }
        if l.cluster == 0 || l.cluster > MAX_CLUSTER {
            self.error_help(
                span,
                format!("cluster={} is outside 1..={MAX_CLUSTER}", l.cluster),
                "a thread-block cluster has 1 to 8 CTAs (16 non-portably)",
            );
        } else if !l.grid.is_multiple_of(l.cluster) {
            let msg = format!(
                "grid={} is not a whole number of clusters of {}",
                l.grid, l.cluster
            );
            self.error(span, msg);
        }
        if l.tmem_cols != 0
            && (!l.tmem_cols.is_power_of_two() || l.tmem_cols < 32 || l.tmem_cols > TMEM_COLUMNS)
        {
            self.error_help(
                span,
                format!("tmem={} columns cannot be allocated", l.tmem_cols),
                "tensor memory is allocated in powers of two from 32 to 512 columns",
            );
        }
    }

    // ----- roles -----

    fn roles(&mut self) {
        let k = self.k;
        let warps = k.warps();
        // Per-warp checks look at a CTA's worth of warps at most (a bigger cta_threads
        // is reported by `launch`).
        let scan = warps.min(MAX_CTA_THREADS / 32);
        if k.roles.is_empty() {
            self.error_help(
                k.launch.span,
                "the kernel has no roles: nothing runs",
                "add `role main warps=0..N` with an indented body",
            );
            return;
        }
        let mut names: HashMap<&str, u32> = HashMap::new();
        for r in &k.roles {
            if let Some(line) = names.insert(&r.name, r.span.line) {
                self.error(
                    r.span,
                    format!(
                        "a second role named `{}` (the first is on line {line})",
                        r.name
                    ),
                );
            }
            if r.last_warp >= warps {
                let msg = format!(
                    "role `{}` runs {} but the CTA has {} ({} threads)",
                    r.name,
                    warps_text(r.first_warp, r.last_warp),
                    plural(warps as u64, "warp", "warps"),
                    k.launch.cta_threads
                );
                let help = if warps == 0 {
                    "set cta_threads on the launch line".to_string()
                } else {
                    format!(
                        "warps are numbered 0..{}; raise cta_threads to {} or renumber the role",
                        warps - 1,
                        (r.last_warp + 1) * 32
                    )
                };
                self.error_help(r.span, msg, help);
            }
            if let Some(m) = r.maxnreg
                && (!(24..=256).contains(&m) || m % 8 != 0)
            {
                let msg = format!("role `{}` has maxnreg={m}", r.name);
                self.error_help(
                    r.span,
                    msg,
                    "setmaxnreg takes a multiple of 8 from 24 to 256",
                );
            }
        }
        for (i, a) in k.roles.iter().enumerate() {
            for b in &k.roles[..i] {
                let lo = a.first_warp.max(b.first_warp);
                let hi = a.last_warp.min(b.last_warp);
                if lo <= hi {
                    let msg = format!(
                        "roles `{}` and `{}` overlap: both run {}",
                        b.name,
                        a.name,
                        warps_text(lo, hi)
                    );
                    self.error_help(
                        a.span,
                        msg,
                        "each warp runs exactly one role; make the warp ranges disjoint",
                    );
                }
            }
        }
        // Warps with no role.
        let mut w = 0;
        while w < scan {
            if k.role_of(w).is_some() {
                w += 1;
                continue;
            }
            let start = w;
            while w < scan && k.role_of(w).is_none() {
                w += 1;
            }
            let msg = format!(
                "{} of the CTA {} no role: every warp needs a body",
                warps_text(start, w - 1),
                if w - 1 == start { "has" } else { "have" }
            );
            let help = format!(
                "add a role for them (`role idle warps={start}..{}` with `EXIT` as its body), or lower cta_threads",
                w - 1
            );
            self.error_help(k.launch.span, msg, help);
        }
        // setmaxnreg acts on whole warpgroups: the warps of one must agree on a budget.
        let budget = |r: &Role| r.maxnreg.unwrap_or(k.launch.regs);
        for wg in 0..scan.div_ceil(4) {
            let members: Vec<&Role> = (wg * 4..(wg * 4 + 4).min(scan))
                .filter_map(|w| k.role_of(w).map(|i| &k.roles[i]))
                .collect();
            let Some(first) = members.first() else {
                continue;
            };
            if members.iter().any(|r| r.maxnreg.is_some())
                && let Some(other) = members.iter().find(|r| budget(r) != budget(first))
            {
                let msg = format!(
                    "warpgroup {wg} mixes register budgets: role `{}` has {} and role `{}` has {}",
                    first.name,
                    budget(first),
                    other.name,
                    budget(other)
                );
                self.error_help(
                    other.span,
                    msg,
                    "setmaxnreg changes the registers of a whole warpgroup (4 warps); give its warps the same maxnreg=",
                );
            }
        }
        // setmaxnreg moves registers within the CTA's launch allocation.
        if k.roles.iter().any(|r| r.maxnreg.is_some()) && k.launch.regs > 0 {
            let pool = k.launch.regs as u64 * 32 * warps as u64;
            let demand: u64 = k
                .roles
                .iter()
                .map(|r| budget(r) as u64 * 32 * r.warp_count().min(warps) as u64)
                .sum();
            if demand > pool {
                let parts: Vec<String> = k
                    .roles
                    .iter()
                    .map(|r| format!("{} x {}", r.warp_count() * 32, budget(r)))
                    .collect();
                let msg = format!(
                    "the roles' register budgets need {demand} registers per CTA ({}) but the launch allocates {pool} (regs={} x {} threads)",
                    parts.join(" + "),
                    k.launch.regs,
                    warps * 32
                );
                self.error_help(
                    k.launch.span,
                    msg,
                    "setmaxnreg.inc waits until registers are free in the CTA's pool, so it would wait forever; raise regs= or lower a maxnreg=",
                );
            }
        }
    }

    // ----- bodies -----

    fn role_body(&mut self, index: usize, role: &'k Role) {
        let rc = RoleCtx {
            index,
            role,
            budget: role.maxnreg.unwrap_or(self.k.launch.regs),
            whole_warpgroups: role.first_warp.is_multiple_of(4)
                && role.warp_count().is_multiple_of(4),
        };
        let mut scope = Vec::new();
        self.ended_loops.clear();
        self.block(&rc, &role.body, &mut scope);
    }

    fn block(&mut self, rc: &RoleCtx, body: &'k [Stmt], scope: &mut Vec<ScopeVar>) {
        for s in body {
            match s {
                Stmt::Instr(i) => self.instr(rc, i, scope),
                Stmt::Loop {
                    var,
                    start,
                    end,
                    body,
                    span,
                } => {
                    if self.params.contains_key(var.as_str()) {
                        let msg = format!("loop variable `{var}` has the name of a parameter");
                        self.error_help(*span, msg, "rename the loop variable");
                    } else if BUILTIN_VARS.contains(&var.as_str()) {
                        let msg = format!("loop variable `{var}` has the name of a built-in");
                        self.error_help(*span, msg, "rename the loop variable");
                    } else if scope.iter().any(|v| &v.name == var) {
                        let msg = format!("loop variable `{var}` shadows an enclosing loop's");
                        self.error_help(*span, msg, "rename the loop variable");
                    }
                    self.check_vars(start, *span, scope, Allow::Bounds, "a loop bound");
                    self.check_vars(end, *span, scope, Allow::Bounds, "a loop bound");
                    let (s, e) = (self.iv(start, rc, scope), self.iv(end, rc, scope));
                    let iv = match (s, e) {
                        (Some(s), Some(e)) if e.hi.checked_sub(1).is_some_and(|h| h >= s.lo) => {
                            let exact = s.is_point() && e.is_point() && s.exact && e.exact;
                            Some(Iv {
                                lo: s.lo,
                                hi: e.hi - 1,
                                exact,
                                dense: true,
                            })
                        }
                        _ => None,
                    };
                    scope.push(ScopeVar {
                        name: var.clone(),
                        iv,
                    });
                    self.block(rc, body, scope);
                    scope.pop();
                    self.ended_loops.push((var.clone(), span.line));
                }
                Stmt::If { cond, body, span } => {
                    self.check_vars(cond, *span, scope, Allow::Uniform, "an `if` condition");
                    self.conditional += 1;
                    self.block(rc, body, scope);
                    self.conditional -= 1;
                }
            }
        }
        self.tx_bytes_balance(body);
    }

    /// Reports names an expression may not use here; true when all are fine.
    fn check_vars(
        &mut self,
        e: &Expr,
        span: Span,
        scope: &[ScopeVar],
        allow: Allow,
        what: &str,
    ) -> bool {
        let mut vars = Vec::new();
        e.vars(&mut vars);
        let mut ok = true;
        for v in vars {
            let in_scope = scope.iter().any(|s| s.name == v);
            let param = self.params.contains_key(v.as_str());
            let builtin = BUILTIN_VARS.contains(&v.as_str());
            if in_scope || param {
                continue;
            }
            if builtin {
                match allow {
                    Allow::Lane => continue,
                    Allow::Uniform if v != "lane" => continue,
                    Allow::Uniform => {
                        ok = false;
                        let msg = format!(
                            "{what} must be the same for every lane of a warp, but it uses `lane`"
                        );
                        self.error_help(
                            span,
                            msg,
                            "a warp executes one instruction stream; guard with a predicate (`@P0`) for per-lane behaviour",
                        );
                    }
                    Allow::Bounds => {
                        ok = false;
                        let msg = format!(
                            "{what} may use parameters and enclosing loop variables only, not `{v}`"
                        );
                        let help = if what.starts_with("`work`") {
                            "work is counted once per CTA, from the parameters"
                        } else {
                            "trip counts are fixed when the program starts; put a per-warp choice in an `if`"
                        };
                        self.error_help(span, msg, help);
                    }
                }
                continue;
            }
            ok = false;
            let mut known: Vec<&str> = scope.iter().map(|s| s.name.as_str()).collect();
            known.extend(self.params.keys().copied());
            if allow != Allow::Bounds {
                known.extend(BUILTIN_VARS);
            }
            let mut help = match suggest(&v, known.iter().copied()) {
                Some(s) => format!("{s} "),
                None => String::new(),
            };
            help.push_str(&if allow == Allow::Bounds {
                format!("declare it with `param {v}=VALUE`")
            } else {
                format!("declare it with `param {v}=VALUE` or use it inside `loop {v} ...`")
            });
            if let Some((_, line)) = self.ended_loops.iter().rev().find(|(n, _)| n == &v) {
                let msg =
                    format!("`{v}` is used outside its loop (the loop on line {line} has ended)");
                self.error_help(
                    span,
                    msg,
                    "a loop variable exists only in the loop's body; indent this under the loop or use another value",
                );
                continue;
            }
            let msg = format!(
                "`{v}` is not a loop variable in scope, a parameter or a built-in (warp, lane, warpgroup, cta)"
            );
            self.error_help(span, msg, help);
        }
        ok
    }

    /// The variable environment of a role at a point in its body.
    fn iv(&self, e: &Expr, rc: &RoleCtx, scope: &[ScopeVar]) -> Option<Iv> {
        let r = rc.role;
        let grid = self.k.launch.grid.max(1) as i64;
        let env = |n: &str| -> Option<Iv> {
            if let Some(v) = scope.iter().rev().find(|s| s.name == n) {
                return v.iv;
            }
            if let Some(v) = self.params.get(n) {
                return Some(Iv::point(*v));
            }
            match n {
                "warp" => Some(Iv::range(r.first_warp as i64, r.last_warp as i64)),
                "warpgroup" => Some(Iv::range(
                    (r.first_warp / 4) as i64,
                    (r.last_warp / 4) as i64,
                )),
                "lane" => Some(Iv::range(0, 31)),
                "cta" => Some(Iv::range(0, grid - 1)),
                _ => None,
            }
        };
        let iv = interval(e, &env)?;
        Some(if reuses_a_variable(e) || self.conditional > 0 {
            iv.loose()
        } else {
            iv
        })
    }

    /// The value of an expression that must be a compile-time constant (after parameters).
    fn constant(&self, e: &Expr) -> Option<i64> {
        e.eval(&|n| self.params.get(n).copied()).ok()
    }

    /// Checks that `iv` lies within `0..len`. `subject` says what takes the values
    /// ("mbarrier index `i % 8`"), `container` what it must stay inside ("`full` has 4
    /// mbarriers (0..=3)").
    fn check_range(
        &mut self,
        span: Span,
        iv: Option<Iv>,
        len: i64,
        subject: &str,
        container: &str,
        help: &str,
    ) {
        let Some(iv) = iv else { return };
        let certain = iv.hi < 0 || iv.lo >= len;
        let reached = iv.exact && (iv.lo < 0 || iv.hi >= len);
        if !(certain || reached) {
            return;
        }
        let bad = if iv.hi >= len { iv.hi } else { iv.lo };
        let msg = if iv.is_point() {
            format!("{subject} is {bad}, but {container}")
        } else if reached {
            format!(
                "{subject} takes values {}..={} and reaches {bad}, but {container}",
                iv.lo, iv.hi
            )
        } else {
            format!("{subject} lies in {}..={}, but {container}", iv.lo, iv.hi)
        };
        if help.is_empty() {
            self.error(span, msg);
        } else {
            self.error_help(span, msg, help);
        }
    }

    /// Resolves the name of an `Index` operand.
    fn target(&mut self, name: &str, span: Span) -> Option<Target> {
        if self.k.mbarrier(name).is_some() {
            return Some(Target::Mbar);
        }
        if let Some(s) = self.k.space_of(name) {
            if s == Space::Tmem && self.k.launch.tmem_cols == 0 {
                self.error_help(
                    span,
                    "this uses tensor memory but the launch allocates none",
                    "add tmem=COLUMNS to the launch line",
                );
            }
            return Some(Target::Mem(s));
        }
        let k = self.k;
        let candidates = k
            .buffers
            .iter()
            .map(|b| b.name.as_str())
            .chain(k.shared.iter().map(|b| b.name.as_str()))
            .chain(k.mbarriers.iter().map(|b| b.name.as_str()))
            .chain(["local", "tmem"]);
        let mut help = suggest(name, candidates)
            .map(|s| format!("{s} "))
            .unwrap_or_default();
        help.push_str("declare it in the header: `buffer NAME size=BYTES`, `shared NAME size=BYTES` or `mbarrier NAME[N] count=C`");
        let msg = format!("no buffer, shared region or mbarrier is named `{name}`");
        self.error_help(span, msg, help);
        None
    }

    /// Size in bytes of the memory a name refers to, when it has one.
    fn mem_size(&self, name: &str) -> Option<(i64, &'static str)> {
        if let Some(b) = self.k.buffers.iter().find(|b| b.name == name) {
            return Some((i64::try_from(b.size).unwrap_or(i64::MAX), "bytes"));
        }
        if let Some(s) = self.k.shared.iter().find(|b| b.name == name) {
            return Some((s.size as i64, "bytes"));
        }
        if name == "tmem" && self.k.launch.tmem_cols > 0 {
            return Some((self.k.launch.tmem_cols as i64, "columns"));
        }
        None
    }

    fn instr(&mut self, rc: &RoleCtx, ins: &'k Instr, scope: &[ScopeVar]) {
        let op = ins.op;
        let mnem = ins.mnemonic();
        self.modifiers(ins);

        if matches!(op, Op::Hgmma | Op::Warpgroup)
            && !rc.whole_warpgroups
            && !self.wgmma_reported.contains(&rc.index)
        {
            self.wgmma_reported.push(rc.index);
            let r = rc.role;
            let msg = format!(
                "`{mnem}` runs on whole warpgroups, but role `{}` is {}",
                r.name,
                warps_text(r.first_warp, r.last_warp)
            );
            let first = r.first_warp.div_ceil(4) * 4;
            let last = first + r.warp_count().div_ceil(4) * 4 - 1;
            self.error_help(
                ins.span,
                msg,
                format!(
                    "wgmma (HGMMA, WARPGROUP.*) needs a role of whole warpgroups: its first warp a multiple of 4 and a multiple of 4 warps (e.g. warps={first}..{last})"
                ),
            );
        }

        // Every operand: names resolve, expressions use what is in scope.
        let guarded = ins.guard.is_some_and(|g| g.pred != Reg::Pt || g.negated);
        self.conditional += u32::from(guarded);
        for (i, o) in ins.operands.iter().enumerate() {
            let span = ins.operand_span(i);
            self.operand(rc, ins, o, span, scope);
        }
        self.conditional -= u32::from(guarded);

        self.registers(rc, ins);
        self.shape(rc, ins, scope);
    }

    fn modifiers(&mut self, ins: &Instr) {
        let op = ins.op;
        let mnem = ins.mnemonic();
        let allowed = op.modifiers();
        let (skip, mma) = match ins.mma_shape() {
            Some(Err(e)) => {
                self.error_help(
                    ins.span,
                    format!("`{mnem}`: {e}"),
                    format!(
                        "write the shape first, then the accumulator and input types: {}",
                        if op == Op::Hgmma {
                            "HGMMA.64x256x16.F32.BF16"
                        } else {
                            "UTCMMA.128x256x16.F32.BF16"
                        }
                    ),
                );
                (1, true)
            }
            Some(Ok(_)) => (1, true),
            None => (0, false),
        };
        for m in ins.mods.iter().skip(skip) {
            if !allowed.contains(&m.as_str()) {
                let mut help = suggest(m, allowed.iter().copied())
                    .map(|s| format!("{s} "))
                    .unwrap_or_default();
                if allowed.is_empty() {
                    help.push_str(&format!("{op} takes no modifiers"));
                } else {
                    help.push_str(&format!("{op} takes .{}", allowed.join(", .")));
                }
                self.error_help(
                    ins.span,
                    format!("`{mnem}`: `.{m}` is not a modifier of {op}"),
                    help,
                );
                if mma {
                    break;
                }
            }
        }
    }

    fn operand(&mut self, rc: &RoleCtx, ins: &Instr, o: &Operand, span: Span, scope: &[ScopeVar]) {
        match o {
            Operand::Reg { .. } | Operand::Int(_) | Operand::Float(_) => {}
            Operand::Index { name, index } => {
                let t = self.target(name, span);
                let allow = if t == Some(Target::Mbar) {
                    Allow::Uniform
                } else {
                    Allow::Lane
                };
                let what = if t == Some(Target::Mbar) {
                    "an mbarrier index"
                } else {
                    "an address"
                };
                if !self.check_vars(index, span, scope, allow, what) {
                    return;
                }
                let iv = self.iv(index, rc, scope);
                match t {
                    Some(Target::Mbar) => {
                        let m = self.k.mbarrier(name).expect("resolved");
                        let len = m.len as i64;
                        let subject = if matches!(index, Expr::Int(_)) {
                            "the mbarrier index".to_string()
                        } else {
                            format!("mbarrier index `{index}`")
                        };
                        let container = format!(
                            "`{name}` has {} (0..={})",
                            plural(m.len as u64, "mbarrier", "mbarriers"),
                            len - 1
                        );
                        let help = format!(
                            "declare more with `mbarrier {name}[N]`, or keep the index in range (e.g. `{name}[i % {len}]`)"
                        );
                        self.check_range(span, iv, len, &subject, &container, &help);
                    }
                    Some(Target::Mem(space)) => {
                        if space == Space::Local {
                            return;
                        }
                        if let Some((size, unit)) = self.mem_size(name) {
                            let width = match ins.op {
                                Op::Utmaldg | Op::Ublkcp | Op::Utmastg => ins
                                    .key_expr("bytes")
                                    .and_then(|e| self.constant(e))
                                    .or(match ins.key("bytes") {
                                        Some(Operand::Int(v)) => Some(*v),
                                        Some(Operand::Word(w)) => {
                                            self.params.get(w.as_str()).copied()
                                        }
                                        _ => None,
                                    })
                                    .unwrap_or(1),
                                _ if space == Space::Tmem => 1,
                                Op::Ldg
                                | Op::Stg
                                | Op::Lds
                                | Op::Sts
                                | Op::Ldgsts
                                | Op::Atom
                                | Op::Red => ins.width_bytes() as i64,
                                _ => 1,
                            }
                            .max(1);
                            let Some(raw) = iv else { return };
                            if raw.lo < 0 && (raw.exact || raw.hi < 0) {
                                let subject = if raw.is_point() {
                                    "the byte offset".to_string()
                                } else {
                                    format!("byte offset `{index}`")
                                };
                                let container = format!(
                                    "`{name}` starts at offset 0; offsets may not be negative"
                                );
                                self.check_range(span, iv, i64::MAX, &subject, &container, "");
                                return;
                            }
                            // The last byte touched must be inside: offset + width - 1.
                            let iv = raw.hi.checked_add(width - 1).map(|hi| Iv {
                                lo: raw.lo.max(0),
                                hi,
                                ..raw
                            });
                            let (subject, container) = if space == Space::Tmem {
                                (
                                    format!("tensor-memory column `{index}`"),
                                    format!("the CTA allocates {size} {unit} (0..={})", size - 1),
                                )
                            } else {
                                let kind = if space == Space::Global {
                                    "buffer"
                                } else {
                                    "shared region"
                                };
                                let subject = if width > 1 {
                                    format!(
                                        "the last byte of `{name}[{index}]` ({width} bytes from the offset)"
                                    )
                                } else {
                                    format!("byte offset `{index}`")
                                };
                                (
                                    subject,
                                    format!("{kind} `{name}` has {size} {unit} (0..={})", size - 1),
                                )
                            };
                            let help = if space == Space::Tmem {
                                "allocate more columns (tmem= on the launch line) or use lower columns"
                            } else {
                                "grow the declaration's size= or keep the offsets inside it; the range covers every loop trip, warp and lane"
                            };
                            self.check_range(span, iv, size, &subject, &container, help);
                        }
                    }
                    None => {}
                }
            }
            Operand::Key { key, value } => match &**value {
                Operand::Index { .. } => self.operand(rc, ins, value, span, scope),
                Operand::Expr(e) => {
                    let what = format!("`{key}=`");
                    self.check_vars(e, span, scope, Allow::Uniform, &what);
                }
                Operand::Word(w) => {
                    let what = format!("`{key}=`");
                    self.check_vars(&Expr::Var(w.clone()), span, scope, Allow::Uniform, &what);
                }
                _ => {}
            },
            Operand::Expr(e) => {
                self.check_vars(e, span, scope, Allow::Lane, "an operand");
            }
            Operand::Word(w) => {
                if self.special_word(ins) {
                    return;
                }
                let numbered = |prefix: char| {
                    w.strip_prefix(prefix)
                        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                };
                if numbered('R') {
                    self.error_help(
                        span,
                        format!("`{w}` is not a register: registers are R0..R254"),
                        "R255 is RZ, the zero register",
                    );
                    return;
                }
                if numbered('P') {
                    self.error(
                        span,
                        format!("`{w}` is not a predicate: predicates are P0..P6 and PT"),
                    );
                    return;
                }
                if self.k.mbarrier(w).is_some() {
                    let m = self.k.mbarrier(w).expect("checked");
                    let msg = format!("mbarrier `{w}` needs an index");
                    let help = if m.len == 1 {
                        format!("write `{w}[0]`")
                    } else {
                        format!("write `{w}[i]` with i in 0..{}", m.len)
                    };
                    self.error_help(span, msg, help);
                    return;
                }
                if self.k.space_of(w).is_some() {
                    let msg = format!("memory `{w}` needs a byte offset");
                    self.error_help(span, msg, format!("write `{w}[OFFSET]`"));
                    return;
                }
                self.check_vars(
                    &Expr::Var(w.clone()),
                    span,
                    scope,
                    Allow::Lane,
                    "an operand",
                );
            }
        }
    }

    /// Ops that give bare words a meaning of their own.
    fn special_word(&self, ins: &Instr) -> bool {
        match ins.op {
            // `gsb0`, `SB0`, `SB1`: `shape` checks these words.
            Op::Hgmma | Op::Warpgroup | Op::Depbar => true,
            // Barrier names and ids are resolved by `bar`.
            Op::Bar => true,
            Op::Bra => true,
            _ => false,
        }
    }

    /// Register ranges against the role's budget and the register file.
    fn registers(&mut self, rc: &RoleCtx, ins: &Instr) {
        let mut ranges: Vec<(usize, u32, u32, &str)> = Vec::new();
        let positional: Vec<(usize, &Operand)> = ins
            .operands
            .iter()
            .enumerate()
            .filter(|(_, o)| !matches!(o, Operand::Key { .. }))
            .collect();
        let writes = ins.writes_first_operand();
        for (n, (i, o)) in positional.iter().enumerate() {
            let Operand::Reg { reg: Reg::R(r), .. } = o else {
                continue;
            };
            let r = *r as u32;
            let (count, what) = match (ins.op, n) {
                (Op::Hgmma, 0) => (
                    ins.mma_shape()
                        .and_then(Result::ok)
                        .map(|s| s.hgmma_acc_regs())
                        .unwrap_or(1),
                    "accumulator",
                ),
                (Op::Hgmma, 1) => (4, "A fragment"),
                (_, 0) if writes => (ins.def_count(), "destination"),
                (Op::Sttm, _) => (
                    ins.mods
                        .iter()
                        .find_map(|m| m.strip_prefix('X').and_then(|n| n.parse::<u32>().ok()))
                        .unwrap_or(1),
                    "source",
                ),
                (Op::Stg | Op::Sts | Op::Stl | Op::Red, _) => {
                    (ins.width_bytes().div_ceil(4), "data")
                }
                (Op::Dfma, _) => (2, "operand"),
                _ => (1, "operand"),
            };
            ranges.push((*i, r, count.max(1), what));
        }
        // Vector registers start at a multiple of their width.
        let aligned = matches!(
            ins.op,
            Op::Ldg | Op::Lds | Op::Ldl | Op::Stg | Op::Sts | Op::Stl | Op::Dfma | Op::Imad
        );
        let mut worst: Option<(usize, u32, u32, &str)> = None;
        for &(i, r, count, what) in &ranges {
            let last = r + count - 1;
            if last > 254 {
                let msg = format!(
                    "`{}`'s {what} covers R{r}..R{last}, past R254, the last register",
                    ins.mnemonic()
                );
                self.error(ins.operand_span(i), msg);
                continue;
            }
            if last >= rc.budget && worst.is_none_or(|w| w.1 + w.2 < r + count) {
                worst = Some((i, r, count, what));
            }
            if aligned && count > 1 && count.is_power_of_two() && r % count != 0 {
                let msg = format!(
                    "`{}`'s {what} R{r}..R{last} must start at a register that is a multiple of {count}",
                    ins.mnemonic()
                );
                self.error_help(
                    ins.operand_span(i),
                    msg,
                    format!(
                        "vector and 64-bit operands use aligned register groups, e.g. R{}",
                        r / count * count
                    ),
                );
            }
        }
        if let Some((i, r, count, what)) = worst {
            let last = r + count - 1;
            let used = if count == 1 {
                format!("uses R{r}")
            } else {
                format!("uses R{r}..R{last} ({what})")
            };
            let role = rc.role;
            let source = if role.maxnreg.is_some() {
                format!("role's maxnreg={}", rc.budget)
            } else {
                format!("launch's regs={}", rc.budget)
            };
            let msg = format!(
                "`{}` {used} but role `{}`'s budget is {} (the {source})",
                ins.mnemonic(),
                role.name,
                plural(rc.budget as u64, "register", "registers")
            );
            let help = if rc.budget == 0 {
                "give the role a budget: maxnreg= on the role or regs= on the launch".to_string()
            } else {
                format!(
                    "registers R0..R{} are available; raise the budget to at least {} or use lower registers",
                    rc.budget - 1,
                    (last + 1).div_ceil(8) * 8
                )
            };
            self.error_help(ins.operand_span(i), msg, help);
        }
    }

    /// Operand kinds and counts per op, plus op-specific semantics.
    fn shape(&mut self, rc: &RoleCtx, ins: &'k Instr, scope: &[ScopeVar]) {
        use Op::*;
        let op = ins.op;
        let mnem = ins.mnemonic();
        let pos: Vec<(usize, &Operand)> = ins
            .operands
            .iter()
            .enumerate()
            .filter(|(_, o)| !matches!(o, Operand::Key { .. }))
            .collect();
        let keys: Vec<(usize, &str)> = ins
            .operands
            .iter()
            .enumerate()
            .filter_map(|(i, o)| match o {
                Operand::Key { key, .. } => Some((i, key.as_str())),
                _ => None,
            })
            .collect();
        // `.reuse` marks a source read from the operand reuse cache; a destination is
        // written, not read.
        if ins.writes_first_operand()
            && let Some(&(i, Operand::Reg { reuse: true, .. })) = pos.first()
        {
            self.error_help(
                ins.operand_span(i),
                format!("`{mnem}`'s destination cannot be `.reuse`"),
                "`.reuse` marks a source operand read from the operand reuse cache; drop it here",
            );
        }

        // Which keys the op takes.
        let allowed_keys: &[&str] = match op {
            Ublkcp => {
                if ins.has_mod("MULTICAST") {
                    &["bytes", "bar", "mask"]
                } else {
                    &["bytes", "bar"]
                }
            }
            Utmaldg => {
                if ins.has_mod("MULTICAST") {
                    &["bytes", "bar", "mask", "row", "pitch"]
                } else {
                    &["bytes", "bar", "row", "pitch"]
                }
            }
            Utmastg => &["bytes"],
            Syncs if ins.has_mod("EXCH") => &["count"],
            Syncs if ins.has_mod("ARRIVE") => &["bytes", "count", "cta"],
            Syncs => &["parity"],
            Tmemalloc | Tmemdealloc => &["cols"],
            _ => &[],
        };
        for &(i, key) in &keys {
            if !allowed_keys.contains(&key) && key != "stall" {
                let help = if allowed_keys.is_empty() {
                    format!("{op} takes no key=value operands")
                } else {
                    format!(
                        "`{mnem}` takes {}",
                        allowed_keys
                            .iter()
                            .map(|k| format!("{k}="))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                self.error_help(
                    ins.operand_span(i),
                    format!("`{mnem}` has no `{key}=` operand"),
                    help,
                );
            }
        }

        let arity = |me: &mut Self, min: usize, max: usize, form: &str| -> bool {
            if pos.len() < min || pos.len() > max {
                let span = if pos.len() > max {
                    ins.operand_span(pos[max].0)
                } else {
                    ins.span
                };
                let n = pos.len();
                let expected = if min == max {
                    plural(min as u64, "operand", "operands")
                } else {
                    format!("{min} to {max} operands")
                };
                me.error_help(
                    span,
                    format!("`{mnem}` takes {expected}, not {n}"),
                    format!("write `{form}`"),
                );
                false
            } else {
                true
            }
        };

        // Expectations for single positional operands.
        #[derive(Clone, Copy)]
        enum Want {
            Reg,
            Pred,
            /// A register, immediate or expression.
            Value,
            Mem(&'static [Space]),
            Mbar,
        }
        let check = |me: &mut Self, n: usize, want: Want, role: &str| {
            let Some(&(i, o)) = pos.get(n) else { return };
            let span = ins.operand_span(i);
            let got = match o {
                Operand::Reg {
                    reg: Reg::R(_) | Reg::Rz,
                    ..
                } => "a register",
                Operand::Reg { .. } => "a predicate",
                Operand::Int(_) | Operand::Float(_) => "an immediate",
                Operand::Expr(_) => "an expression",
                Operand::Word(_) => "a name",
                Operand::Index { name, .. } => match me.k.mbarrier(name) {
                    Some(_) => "an mbarrier",
                    None => match me.k.space_of(name) {
                        Some(Space::Global) => "global memory",
                        Some(Space::Shared) => "shared memory",
                        Some(Space::Local) => "local memory",
                        Some(Space::Tmem) => "tensor memory",
                        None => return, // already reported
                    },
                },
                Operand::Key { .. } => return,
            };
            // A bare memory or mbarrier name was reported by `operand`.
            if let Operand::Word(w) = o
                && (me.k.mbarrier(w).is_some() || me.k.space_of(w).is_some())
            {
                return;
            }
            let ok = match want {
                Want::Reg => matches!(
                    o,
                    Operand::Reg {
                        reg: Reg::R(_) | Reg::Rz,
                        ..
                    }
                ),
                Want::Pred => matches!(
                    o,
                    Operand::Reg {
                        reg: Reg::P(_) | Reg::Pt,
                        ..
                    }
                ),
                Want::Value => !matches!(o, Operand::Index { .. }),
                Want::Mem(spaces) => match o {
                    Operand::Index { name, .. } => {
                        me.k.space_of(name)
                            .is_some_and(|s| spaces.contains(&s) && me.k.mbarrier(name).is_none())
                    }
                    _ => false,
                },
                Want::Mbar => match o {
                    Operand::Index { name, .. } => me.k.mbarrier(name).is_some(),
                    _ => false,
                },
            };
            if ok {
                return;
            }
            let wanted = match want {
                Want::Reg => "a register".to_string(),
                Want::Pred => "a predicate (P0..P6, PT)".to_string(),
                Want::Value => "a register or an immediate".to_string(),
                Want::Mbar => "an mbarrier (`bar[i]`)".to_string(),
                Want::Mem(spaces) => {
                    let names: Vec<&str> = spaces
                        .iter()
                        .map(|s| match s {
                            Space::Global => "global memory (a buffer)",
                            Space::Shared => "shared memory (a shared region)",
                            Space::Local => "local memory (`local[...]`)",
                            Space::Tmem => "tensor memory (`tmem[col]`)",
                        })
                        .collect();
                    names.join(" or ")
                }
            };
            let msg = format!("`{mnem}`'s {role} must be {wanted}, not {got}");
            let help = match (op, want, got) {
                (Ldg, Want::Mem(_), "shared memory") => {
                    Some("LDG reads global memory; use LDS for shared memory")
                }
                (Lds, Want::Mem(_), "global memory") => {
                    Some("LDS reads shared memory; use LDG for global memory")
                }
                (Stg, Want::Mem(_), "shared memory") => {
                    Some("STG writes global memory; use STS for shared memory")
                }
                (Sts, Want::Mem(_), "global memory") => {
                    Some("STS writes shared memory; use STG for global memory")
                }
                _ => None,
            };
            match help {
                Some(h) => me.error_help(span, msg, h),
                None => {
                    me.error(span, msg);
                }
            }
        };
        let no_mem = |me: &mut Self| {
            for &(i, o) in &pos {
                if let Operand::Index { name, .. } = o
                    && (me.k.mbarrier(name).is_some() || me.k.space_of(name).is_some())
                {
                    me.error_help(
                        ins.operand_span(i),
                        format!("`{mnem}` takes no memory operand"),
                        "load it into a register first (LDG, LDS)",
                    );
                }
            }
        };
        let require_key = |me: &mut Self, key: &str, form: &str| -> bool {
            if ins.key(key).is_none() {
                me.error_help(
                    ins.span,
                    format!("`{mnem}` needs `{key}=`"),
                    format!("write `{form}`"),
                );
                false
            } else {
                true
            }
        };
        // `key=` whose value must be a (parameter-)constant integer; returns it.
        let const_key = |me: &mut Self, key: &str| -> Option<i64> {
            let v = ins.key(key)?;
            let e = match v {
                Operand::Int(x) => Expr::Int(*x),
                Operand::Expr(e) => e.clone(),
                Operand::Word(w) => Expr::Var(w.clone()),
                _ => {
                    me.error(
                        ins.key_span(key),
                        format!("`{key}=` takes an integer, not `{v}`"),
                    );
                    return None;
                }
            };
            me.constant(&e)
        };
        // `stall=N`: the instruction's control-code stall count (SASS encodes one in
        // every instruction: cycles before the warp may issue again), 0 to 15.
        if let Some(v) = ins.key("stall") {
            let integer = matches!(v, Operand::Int(_) | Operand::Expr(_) | Operand::Word(_));
            match const_key(self, "stall") {
                Some(c) if (0..=MAX_STALL).contains(&c) => {}
                Some(c) => self.error_help(
                    ins.key_span("stall"),
                    format!("stall={c}: a control code's stall count is 0 to {MAX_STALL}"),
                    "SASS encodes the stall count in 4 bits",
                ),
                None if integer => self.error_help(
                    ins.key_span("stall"),
                    "`stall=` must be a constant",
                    "write an integer, or an expression of parameters",
                ),
                None => {}
            }
        }
        let mbar_key = |me: &mut Self, key: &str| -> Option<String> {
            match ins.key(key)? {
                Operand::Index { name, .. } if me.k.mbarrier(name).is_some() => Some(name.clone()),
                Operand::Index { name, .. } if me.k.space_of(name).is_none() => None,
                other => {
                    me.error_help(
                        ins.key_span(key),
                        format!("`{key}=` names an mbarrier, not `{other}`"),
                        format!("write `{key}=NAME[i]` with an mbarrier declared in the header"),
                    );
                    None
                }
            }
        };
        let mbar_of = |me: &Self, n: usize| -> Option<String> {
            match pos.get(n)?.1 {
                Operand::Index { name, .. } if me.k.mbarrier(name).is_some() => Some(name.clone()),
                _ => None,
            }
        };

        const G: &[Space] = &[Space::Global];
        const S: &[Space] = &[Space::Shared];
        const L: &[Space] = &[Space::Local];
        const T: &[Space] = &[Space::Tmem];
        const ST: &[Space] = &[Space::Shared, Space::Tmem];

        match op {
            Ffma | Fadd | Fmul | Hfma2 | Iadd3 | Imad | Lop3 | Isetp | Fsetp | Shf | Lea | Mov
            | Sel | Fmnmx | F2fp | Shfl | I2f | F2i | F2f | Dfma | Mufu => {
                let (min, max, form) = match op {
                    Ffma => (4, 4, "FFMA Rd, Ra, Rb, Rc"),
                    Fadd => (3, 3, "FADD Rd, Ra, Rb"),
                    Fmul => (3, 3, "FMUL Rd, Ra, Rb"),
                    Hfma2 => (4, 5, "HFMA2 Rd, Ra, Rb, Rc"),
                    Iadd3 => (3, 6, "IADD3 Rd, Ra, Rb, Rc"),
                    Imad => (4, 5, "IMAD Rd, Ra, Rb, Rc"),
                    Lop3 => (5, 7, "LOP3.LUT Rd, Ra, Rb, Rc, LUT"),
                    Isetp => (4, 6, "ISETP.GE.AND Pd, PT, Ra, Rb, PT"),
                    Fsetp => (4, 6, "FSETP.GT.AND Pd, PT, Ra, Rb, PT"),
                    Shf => (4, 4, "SHF.L.U32 Rd, Ra, SHIFT, Rc"),
                    Lea => (4, 6, "LEA Rd, Ra, Rb, SHIFT"),
                    Mov => (2, 3, "MOV Rd, Ra"),
                    Sel => (4, 4, "SEL Rd, Ra, Rb, P0"),
                    Fmnmx => (4, 4, "FMNMX Rd, Ra, Rb, !PT"),
                    F2fp => (3, 3, "F2FP.BF16.F32.PACK_AB Rd, Ra, Rb"),
                    Shfl => (3, 4, "SHFL.BFLY Rd, Ra, LANEMASK, 0x1f"),
                    Dfma => (4, 4, "DFMA Rd, Ra, Rb, Rc"),
                    I2f => (2, 2, "I2F Rd, Ra"),
                    F2i => (2, 2, "F2I Rd, Ra"),
                    F2f => (2, 2, "F2F Rd, Ra"),
                    _ => (2, 2, "MUFU.EX2 Rd, Ra"),
                };
                arity(self, min, max, form);
                let dest = if matches!(op, Isetp | Fsetp) {
                    Want::Pred
                } else {
                    Want::Reg
                };
                check(self, 0, dest, "destination");
                if op == Shfl
                    && !ins
                        .mods
                        .iter()
                        .any(|m| ["BFLY", "UP", "DOWN", "IDX"].contains(&m.as_str()))
                {
                    self.error_help(
                        ins.span,
                        format!("`{mnem}` does not say which shuffle"),
                        "write SHFL.BFLY, .UP, .DOWN or .IDX",
                    );
                }
                if op == Mufu
                    && !ins.mods.iter().any(|m| {
                        ["EX2", "RCP", "RSQ", "LG2", "SIN", "COS", "TANH", "SQRT"]
                            .contains(&m.as_str())
                    })
                {
                    self.error_help(
                        ins.span,
                        format!("`{mnem}` does not say which function"),
                        "write MUFU.EX2, .RCP, .RSQ, .LG2, .SIN, .COS, .TANH or .SQRT",
                    );
                }
                no_mem(self);
            }
            Ldg | Lds | Ldsm | Ldl => {
                let (space, form) = match op {
                    Ldg => (G, "LDG.E Rd, BUFFER[offset]"),
                    Ldl => (L, "LDL Rd, local[offset]"),
                    Ldsm => (S, "LDSM.16.M88.4 Rd, SHARED[offset]"),
                    _ => (S, "LDS Rd, SHARED[offset]"),
                };
                if arity(self, 2, 2, form) {
                    check(self, 0, Want::Reg, "destination");
                    check(self, 1, Want::Mem(space), "address");
                }
            }
            Stg | Sts | Stl | Red => {
                let (space, form) = match op {
                    Stg => (G, "STG.E BUFFER[offset], Rs"),
                    Stl => (L, "STL local[offset], Rs"),
                    Red => (G, "RED.E.ADD BUFFER[offset], Rs"),
                    _ => (S, "STS SHARED[offset], Rs"),
                };
                if arity(self, 2, 2, form) {
                    check(self, 0, Want::Mem(space), "address");
                    check(self, 1, Want::Reg, "data");
                }
            }
            Atom => {
                if arity(self, 3, 4, "ATOM.E.ADD Rd, BUFFER[offset], Rs") {
                    check(self, 0, Want::Reg, "destination");
                    check(self, 1, Want::Mem(G), "address");
                    check(self, 2, Want::Reg, "data");
                    check(self, 3, Want::Reg, "compare value");
                }
            }
            Ldgsts => {
                // An optional register: the one SASS holds the address in, which the
                // copy waits for like any source.
                if arity(
                    self,
                    2,
                    3,
                    "LDGSTS.E.128 SHARED[offset], BUFFER[offset][, Raddr]",
                ) {
                    check(self, 0, Want::Mem(S), "destination");
                    check(self, 1, Want::Mem(G), "source");
                    check(self, 2, Want::Reg, "address register");
                }
            }
            Ldgdepbar | Utmacmdflush | Fence | Membar | Exit | Nop => {
                arity(self, 0, 0, op.mnemonic());
            }
            Depbar => {
                if !ins.has_mod("LE") {
                    self.error_help(
                        ins.span,
                        format!("`{mnem}` needs `.LE`"),
                        "write `DEPBAR.LE SB0, N` (cp.async groups) or `DEPBAR.LE SB1, N` (bulk stores)",
                    );
                }
                if arity(self, 2, 2, "DEPBAR.LE SB0, N") {
                    let sb = matches!(pos[0].1, Operand::Word(w) if w.eq_ignore_ascii_case("SB0") || w.eq_ignore_ascii_case("SB1"));
                    if !sb {
                        self.error_help(
                            ins.operand_span(pos[0].0),
                            format!("`{mnem}` waits on SB0 or SB1, not `{}`", pos[0].1),
                            "SB0 counts cp.async groups (LDGDEPBAR), SB1 bulk-store groups (UTMACMDFLUSH)",
                        );
                    }
                    self.depth(ins, pos[1].0, pos[1].1);
                }
            }
            Ublkcp | Utmaldg => {
                let form = format!("{mnem} SHARED[offset], BUFFER[offset], bytes=N, bar=MBAR[i]");
                if arity(self, 2, 2, &form) {
                    check(self, 0, Want::Mem(S), "destination");
                    check(self, 1, Want::Mem(G), "source");
                }
                require_key(self, "bytes", &form);
                if require_key(self, "bar", &form)
                    && let Some(name) = mbar_key(self, "bar")
                {
                    self.mbar_uses
                        .entry(name)
                        .or_default()
                        .complete_tx
                        .push(ins.span);
                }
                let b = const_key(self, "bytes");
                self.copy_bytes(ins, b);
                if op == Utmaldg {
                    let (row, pitch) = (const_key(self, "row"), const_key(self, "pitch"));
                    self.tensor_box(ins, b, row, pitch);
                }
            }
            Utmastg => {
                let form = "UTMASTG BUFFER[offset], SHARED[offset], bytes=N";
                if arity(self, 2, 2, form) {
                    check(self, 0, Want::Mem(G), "destination");
                    check(self, 1, Want::Mem(S), "source");
                }
                require_key(self, "bytes", form);
                let b = const_key(self, "bytes");
                self.copy_bytes(ins, b);
            }
            Syncs => {
                if ins.has_mod("EXCH") {
                    if arity(self, 1, 1, "SYNCS.EXCH.64 MBAR[i], count=N") {
                        check(self, 0, Want::Mbar, "operand");
                    }
                    if let Some(c) = const_key(self, "count")
                        && (c <= 0 || c > MAX_MBARRIER_COUNT as i64)
                    {
                        self.error(
                            ins.key_span("count"),
                            format!(
                                "count={c}: an mbarrier expects 1 to {MAX_MBARRIER_COUNT} arrivals"
                            ),
                        );
                    }
                } else if ins.has_mod("ARRIVE") {
                    let form = "SYNCS.ARRIVE.TRANS64.EXPECT_TX MBAR[i], bytes=N";
                    if arity(self, 1, 1, form) {
                        check(self, 0, Want::Mbar, "operand");
                    }
                    let remote = ins.has_mod("REMOTE");
                    if remote {
                        require_key(self, "cta", "SYNCS.ARRIVE.TRANS64.REMOTE MBAR[i], cta=RANK");
                    } else if ins.key("cta").is_some() {
                        self.error_help(
                            ins.key_span("cta"),
                            format!("`{mnem}` has `cta=` but is not .REMOTE"),
                            "arrive on another CTA's mbarrier with SYNCS.ARRIVE.TRANS64.REMOTE",
                        );
                    }
                    if ins.has_mod("EXPECT_TX") {
                        require_key(self, "bytes", form);
                    }
                    if let Some(b) = const_key(self, "bytes")
                        && b < 0
                    {
                        self.error(ins.key_span("bytes"), format!("bytes={b} is negative"));
                    }
                    if let Some(c) = const_key(self, "count")
                        && c <= 0
                    {
                        self.error(
                            ins.key_span("count"),
                            format!("count={c}: an arrival counts at least 1"),
                        );
                    }
                    if let Some(name) = mbar_of(self, 0) {
                        let u = self.mbar_uses.entry(name).or_default();
                        u.arrive.push(ins.span);
                        if ins.key("bytes").is_some() {
                            u.expect_tx.push(ins.span);
                        }
                    }
                } else if ins.has_mod("PHASECHK") || ins.has_mod("TRYWAIT") {
                    let form = "SYNCS.PHASECHK.TRANS64.TRYWAIT MBAR[i], parity=P";
                    if arity(self, 1, 1, form) {
                        check(self, 0, Want::Mbar, "operand");
                    }
                    if require_key(self, "parity", form)
                        && let Some(p) = const_key(self, "parity")
                        && p != 0
                        && p != 1
                    {
                        self.error(
                            ins.key_span("parity"),
                            format!("parity={p}: a phase parity is 0 or 1"),
                        );
                    }
                    if let Some(name) = mbar_of(self, 0) {
                        self.mbar_uses.entry(name).or_default().wait.push(ins.span);
                    }
                } else {
                    self.error_help(
                        ins.span,
                        format!("`{mnem}` does not say what to do with the mbarrier"),
                        "write SYNCS.EXCH.64 (init), SYNCS.ARRIVE.TRANS64[.EXPECT_TX] (arrive) or SYNCS.PHASECHK.TRANS64.TRYWAIT (wait)",
                    );
                }
            }
            Hgmma => {
                let form = "HGMMA.64x256x16.F32.BF16 Racc, SHARED[a], SHARED[b], gsb0";
                if arity(self, 3, 4, form) {
                    check(self, 0, Want::Reg, "accumulator");
                    let a_is_reg = matches!(pos[1].1, Operand::Reg { .. });
                    if a_is_reg {
                        check(self, 1, Want::Reg, "A operand");
                    } else {
                        check(self, 1, Want::Mem(S), "A operand");
                    }
                    check(self, 2, Want::Mem(S), "B operand");
                    if let Some(&(i, o)) = pos.get(3)
                        && !matches!(o, Operand::Word(w) if w.eq_ignore_ascii_case("gsb0"))
                    {
                        self.error_help(
                            ins.operand_span(i),
                            format!("`{mnem}`'s fourth operand can only be `gsb0`, not `{o}`"),
                            "`gsb0` closes the wgmma group (wgmma.commit_group)",
                        );
                    }
                }
            }
            Warpgroup => {
                if ins.has_mod("ARRIVE") {
                    arity(self, 0, 0, "WARPGROUP.ARRIVE");
                } else if ins.has_mod("DEPBAR") {
                    if !ins.has_mod("LE") {
                        self.error_help(
                            ins.span,
                            format!("`{mnem}` needs `.LE`"),
                            "write `WARPGROUP.DEPBAR.LE gsb0, N`",
                        );
                    }
                    if arity(self, 2, 2, "WARPGROUP.DEPBAR.LE gsb0, N") {
                        if !matches!(pos[0].1, Operand::Word(w) if w.eq_ignore_ascii_case("gsb0")) {
                            self.error_help(
                                ins.operand_span(pos[0].0),
                                format!("`{mnem}` waits on gsb0, not `{}`", pos[0].1),
                                "write `WARPGROUP.DEPBAR.LE gsb0, N`",
                            );
                        }
                        self.depth(ins, pos[1].0, pos[1].1);
                    }
                } else {
                    self.error_help(
                        ins.span,
                        format!("`{mnem}` needs .ARRIVE or .DEPBAR.LE"),
                        "WARPGROUP.ARRIVE fences registers before HGMMA; WARPGROUP.DEPBAR.LE gsb0, N waits for groups",
                    );
                }
            }
            Setmaxnreg => {
                let inc = ins.has_mod("INC");
                let dec = ins.has_mod("DEC");
                if inc == dec {
                    self.error_help(
                        ins.span,
                        format!("`{mnem}` needs exactly one of .INC and .DEC"),
                        "write SETMAXNREG.DEC 40 or SETMAXNREG.INC 232",
                    );
                }
                if arity(self, 1, 1, "SETMAXNREG.INC N") {
                    check(self, 0, Want::Value, "count");
                    let n = pos[0].1.clone();
                    let v = match n {
                        Operand::Int(v) => Some(v),
                        Operand::Expr(e) => self.constant(&e),
                        Operand::Word(w) => self.params.get(w.as_str()).copied(),
                        _ => None,
                    };
                    if let Some(v) = v {
                        if !(24..=256).contains(&v) || v % 8 != 0 {
                            self.error_help(
                                ins.operand_span(pos[0].0),
                                format!("`{mnem} {v}`"),
                                "setmaxnreg takes a multiple of 8 from 24 to 256",
                            );
                        } else if let Some(m) = rc.role.maxnreg
                            && m as i64 != v
                        {
                            let msg = format!(
                                "`{mnem} {v}` disagrees with role `{}`'s maxnreg={m}",
                                rc.role.name
                            );
                            self.error_help(
                                ins.operand_span(pos[0].0),
                                msg,
                                "the register check uses the role's maxnreg=; make them agree",
                            );
                        }
                    }
                }
            }
            Utcmma => {
                if arity(
                    self,
                    3,
                    3,
                    "UTCMMA.128x256x16.F32.BF16 tmem[col], SHARED[a], SHARED[b]",
                ) {
                    check(self, 0, Want::Mem(T), "accumulator");
                    check(self, 1, Want::Mem(ST), "A operand");
                    check(self, 2, Want::Mem(S), "B operand");
                }
                self.two_cta(ins);
                if let (Some(Ok(shape)), Some((_, Operand::Index { index, .. }))) =
                    (ins.mma_shape(), pos.first())
                {
                    // The accumulator occupies N columns (fp32, M = 128 lanes).
                    if self.k.launch.tmem_cols > 0 {
                        let iv = self.iv(index, rc, scope).and_then(|iv| {
                            Some(Iv {
                                hi: iv.hi.checked_add(shape.n as i64 - 1)?,
                                ..iv
                            })
                        });
                        let cols = self.k.launch.tmem_cols as i64;
                        let subject = format!(
                            "the last column of the {}-column accumulator at `tmem[{index}]`",
                            shape.n
                        );
                        let container =
                            format!("the CTA allocates {cols} columns (0..={})", cols - 1);
                        self.check_range(
                            ins.operand_span(pos[0].0),
                            iv,
                            cols,
                            &subject,
                            &container,
                            "allocate more columns (tmem= on the launch line) or start the accumulator lower",
                        );
                    }
                }
            }
            Utcbar => {
                if arity(self, 1, 1, "UTCBAR MBAR[i]") {
                    check(self, 0, Want::Mbar, "operand");
                }
                self.two_cta(ins);
                if let Some(name) = mbar_of(self, 0) {
                    self.mbar_uses
                        .entry(name)
                        .or_default()
                        .arrive
                        .push(ins.span);
                }
            }
            Ldtm => {
                if arity(self, 2, 2, "LDTM.32DP32BIT.X64 Rd, tmem[col]") {
                    check(self, 0, Want::Reg, "destination");
                    check(self, 1, Want::Mem(T), "source");
                }
            }
            Sttm => {
                if arity(self, 2, 2, "STTM.32DP32BIT.X64 tmem[col], Rs") {
                    check(self, 0, Want::Mem(T), "destination");
                    check(self, 1, Want::Reg, "source");
                }
            }
            Tmemalloc | Tmemdealloc => {
                arity(self, 0, 0, &format!("{mnem} cols=N"));
                if op == Tmemalloc {
                    require_key(self, "cols", "TMEMALLOC cols=N");
                }
                if let Some(c) = const_key(self, "cols") {
                    let ok = c >= 32 && c <= TMEM_COLUMNS as i64 && (c as u64).is_power_of_two();
                    if !ok {
                        self.error_help(
                            ins.key_span("cols"),
                            format!("cols={c} cannot be allocated"),
                            "tensor memory is allocated in powers of two from 32 to 512 columns",
                        );
                    } else if c > self.k.launch.tmem_cols as i64 {
                        let msg = format!(
                            "`{mnem}` allocates {c} columns but the launch declares tmem={}",
                            self.k.launch.tmem_cols
                        );
                        self.error_help(
                            ins.key_span("cols"),
                            msg,
                            format!("set tmem={c} on the launch line"),
                        );
                    }
                }
            }
            Bar => self.bar(rc, ins, &pos, scope),
            Nanosleep => {
                if arity(self, 1, 1, "NANOSLEEP NS") {
                    check(self, 0, Want::Value, "duration");
                }
            }
            Bra => {
                arity(self, 0, 1, "BRA target");
            }
        }
    }

    /// A wait-group depth `N` in `DEPBAR.LE SBx, N`.
    fn depth(&mut self, ins: &Instr, i: usize, o: &Operand) {
        let v = match o {
            Operand::Int(v) => Some(*v),
            Operand::Expr(e) => self.constant(e),
            Operand::Word(w) => self.params.get(w.as_str()).copied(),
            _ => {
                self.error(
                    ins.operand_span(i),
                    format!("`{}`'s depth must be an integer, not `{o}`", ins.mnemonic()),
                );
                return;
            }
        };
        if let Some(v) = v
            && !(0..=63).contains(&v)
        {
            self.error(
                ins.operand_span(i),
                format!("wait depth {v} is outside 0..=63"),
            );
        }
    }

    fn copy_bytes(&mut self, ins: &Instr, bytes: Option<i64>) {
        if let Some(b) = bytes
            && (b <= 0 || b % 16 != 0)
        {
            self.error_help(
                ins.key_span("bytes"),
                format!("`{}` copies {b} bytes", ins.mnemonic()),
                "bulk copies move a positive multiple of 16 bytes",
            );
        }
    }

    /// A tensor copy's box, when given: `row=` bytes from each of its rows, `pitch=`
    /// bytes apart in global memory (the tensor map's row stride).
    fn tensor_box(
        &mut self,
        ins: &Instr,
        bytes: Option<i64>,
        row: Option<i64>,
        pitch: Option<i64>,
    ) {
        let (has_row, has_pitch) = (ins.key("row").is_some(), ins.key("pitch").is_some());
        if has_row != has_pitch {
            let missing = if has_row { "pitch" } else { "row" };
            self.error_help(
                ins.key_span(if has_row { "row" } else { "pitch" }),
                format!("a tensor copy's box needs both row= and pitch=, `{missing}=` is missing"),
                "row=B reads B bytes from each row of the box, pitch=P steps P bytes between rows (the tensor map's row stride); leave both out for a contiguous copy",
            );
            return;
        }
        if let Some(r) = row
            && (r <= 0 || r % 16 != 0)
        {
            self.error_help(
                ins.key_span("row"),
                format!("row={r}: a box row is a positive multiple of 16 bytes"),
                "TMA moves 16-byte units; row= is the box's inner extent in bytes",
            );
            return;
        }
        if let (Some(r), Some(b)) = (row, bytes)
            && b > 0
            && b % r != 0
        {
            self.error_help(
                ins.key_span("row"),
                format!("bytes={b} is not a whole number of {r}-byte rows"),
                "bytes= is the whole box: row= times the number of rows",
            );
        }
        if let (Some(r), Some(p)) = (row, pitch)
            && (p < r || p % 16 != 0)
        {
            self.error_help(
                ins.key_span("pitch"),
                format!("pitch={p}: rows {r} bytes long are at least {r} bytes apart, in multiples of 16"),
                "pitch= is the tensor's row stride in bytes (cuTensorMapEncodeTiled's globalStrides[0])",
            );
        }
    }

    fn two_cta(&mut self, ins: &Instr) {
        if ins.has_mod("2CTA") && !self.k.launch.cluster.is_multiple_of(2) {
            let msg = format!(
                "`{}` pairs two CTAs but the launch has cluster={}",
                ins.mnemonic(),
                self.k.launch.cluster
            );
            self.error_help(ins.span, msg, "2-SM MMAs need clusters of an even number of CTAs: add cluster=2 to the launch line");
        }
    }

    fn bar(&mut self, rc: &RoleCtx, ins: &Instr, pos: &[(usize, &Operand)], scope: &[ScopeVar]) {
        let mnem = ins.mnemonic();
        let modes = ["SYNC", "ARV", "RED"]
            .iter()
            .filter(|m| ins.has_mod(m))
            .count();
        if modes != 1 {
            self.error_help(
                ins.span,
                format!("`{mnem}` needs exactly one of .SYNC, .ARV and .RED"),
                "BAR.SYNC id[, threads] waits; BAR.ARV id, threads only arrives",
            );
            return;
        }
        let red = ins.has_mod("RED");
        // BAR.RED may carry a destination register and a predicate; the id and count are
        // the other operands.
        let rest: Vec<(usize, &Operand)> = pos
            .iter()
            .copied()
            .filter(|(_, o)| !(red && matches!(o, Operand::Reg { .. })))
            .collect();
        let form = if ins.has_mod("ARV") {
            "BAR.ARV id, threads"
        } else {
            "BAR.SYNC id[, threads]"
        };
        if rest.is_empty() || rest.len() > 2 {
            let n = rest.len();
            self.error_help(
                ins.span,
                format!(
                    "`{mnem}` takes a barrier id and an optional thread count, not {n} operands"
                ),
                format!("write `{form}`"),
            );
            return;
        }
        let (id_i, id_op) = rest[0];
        let id_span = ins.operand_span(id_i);
        let mut decl = None;
        let ids: Option<Iv> = match id_op {
            Operand::Int(v) => Some(Iv::point(*v)),
            Operand::Word(w) if self.k.named_barrier(w).is_some() => {
                let d = self.k.named_barrier(w).expect("checked");
                decl = Some(d);
                Some(Iv::point(d.id as i64))
            }
            Operand::Word(w) => {
                let known = self.params.contains_key(w.as_str())
                    || scope.iter().any(|v| &v.name == w)
                    || BUILTIN_VARS.contains(&w.as_str());
                if known {
                    if w == "lane" {
                        self.error(id_span, "a barrier id must be the same for every lane of a warp, but it uses `lane`");
                        None
                    } else {
                        self.iv(&Expr::Var(w.clone()), rc, scope)
                    }
                } else {
                    let names = self.k.named_barriers.iter().map(|b| b.name.as_str());
                    let mut help = suggest(w, names)
                        .map(|s| format!("{s} "))
                        .unwrap_or_default();
                    help.push_str("declare it: `barrier NAME id=I threads=T`, or give the id as a number 0..15");
                    self.error_help(id_span, format!("no barrier is named `{w}`"), help);
                    None
                }
            }
            Operand::Expr(e) => {
                let mut scope_free = Vec::new();
                e.vars(&mut scope_free);
                // Warp-uniform: the id may use warp/warpgroup but not lane.
                if scope_free.iter().any(|v| v == "lane") {
                    self.error(id_span, "a barrier id must be the same for every lane of a warp, but it uses `lane`");
                    None
                } else {
                    self.iv(e, rc, scope)
                }
            }
            other => {
                self.error_help(id_span, format!("`{mnem}`'s barrier id must be a number 0..15 or a declared barrier, not `{other}`"), format!("write `{form}`"));
                return;
            }
        };
        if let Some(iv) = ids {
            let subject = match id_op {
                Operand::Expr(e) => format!("barrier id `{e}`"),
                _ => "the barrier id".to_string(),
            };
            self.check_range(
                id_span,
                Some(iv),
                NAMED_BARRIERS as i64,
                &subject,
                "a CTA has 16 hardware barriers (0..=15)",
                "use an id from 0 to 15",
            );
        }
        let mut threads: Option<u32> = decl.map(|d| d.threads);
        if let Some(&(ti, t)) = rest.get(1) {
            let tspan = ins.operand_span(ti);
            let v = match t {
                Operand::Int(v) => Some(*v),
                Operand::Expr(e) => self.constant(e),
                Operand::Word(w) => self.params.get(w.as_str()).copied(),
                other => {
                    self.error(
                        tspan,
                        format!("`{mnem}`'s thread count must be an integer, not `{other}`"),
                    );
                    None
                }
            };
            if let Some(v) = v {
                self.check_thread_count(tspan, v, &format!("`{mnem}`"));
                if let Some(d) = decl
                    && d.threads as i64 != v
                {
                    let msg = format!(
                        "`{mnem}` counts {v} threads but barrier `{}` is declared with threads={}",
                        d.name, d.threads
                    );
                    self.error(tspan, msg);
                }
                threads = u32::try_from(v).ok();
            }
        } else if ins.has_mod("ARV") && decl.is_none() {
            self.error_help(
                ins.span,
                format!("`{mnem}` needs a thread count"),
                "an arrive-only barrier must say how many threads complete it: `BAR.ARV id, threads`",
            );
        }
        if let Some(ids) = ids
            && ids.lo >= 0
            && ids.hi < NAMED_BARRIERS as i64
        {
            self.bar_uses.push(BarUse {
                role: rc.index,
                ids,
                threads,
                waits: !ins.has_mod("ARV"),
                mnemonic: mnem,
                span: ins.span,
            });
        }
    }

    /// In one block, the bytes a `SYNCS.ARRIVE.EXPECT_TX` announces on an mbarrier should
    /// equal the bytes the copies in the same block complete on it.
    fn tx_bytes_balance(&mut self, body: &[Stmt]) {
        fn nested_copies(s: &Stmt, out: &mut Vec<String>) {
            match s {
                Stmt::Instr(i) => {
                    if matches!(i.op, Op::Utmaldg | Op::Ublkcp)
                        && let Some(Operand::Index { name, .. }) = i.key("bar")
                    {
                        out.push(name.clone());
                    }
                }
                Stmt::Loop { body, .. } | Stmt::If { body, .. } => {
                    for s in body {
                        nested_copies(s, out);
                    }
                }
            }
        }
        let mut skip: Vec<String> = Vec::new();
        for s in body {
            if !matches!(s, Stmt::Instr(_)) {
                nested_copies(s, &mut skip);
            }
        }
        // (mbarrier name, index expr) -> (expected, completed, span of the expect)
        let mut expect: Vec<(String, Expr, i64, Span)> = Vec::new();
        let mut done: Vec<(String, Expr, i64)> = Vec::new();
        for s in body {
            let Stmt::Instr(i) = s else { continue };
            if i.guard.is_some() {
                if let Some(Operand::Index { name, .. }) =
                    i.key("bar").or_else(|| i.positional().next())
                {
                    skip.push(name.clone());
                }
                continue;
            }
            let bytes =
                i.key_expr("bytes")
                    .and_then(|e| self.constant(e))
                    .or(match i.key("bytes") {
                        Some(Operand::Int(v)) => Some(*v),
                        Some(Operand::Word(w)) => self.params.get(w.as_str()).copied(),
                        _ => None,
                    });
            match i.op {
                Op::Syncs if i.has_mod("ARRIVE") && !i.has_mod("REMOTE") => {
                    if let (Some(Operand::Index { name, index }), Some(b)) =
                        (i.positional().next(), bytes)
                    {
                        expect.push((name.clone(), index.clone(), b, i.span));
                    }
                }
                Op::Utmaldg | Op::Ublkcp => match (i.key("bar"), bytes) {
                    (Some(Operand::Index { name, index }), Some(b)) => {
                        done.push((name.clone(), index.clone(), b))
                    }
                    (Some(Operand::Index { name, .. }), None) => skip.push(name.clone()),
                    _ => {}
                },
                _ => {}
            }
        }
        for (name, index, want, span) in expect {
            if skip.contains(&name) {
                continue;
            }
            let copies: Vec<i64> = done
                .iter()
                .filter(|(n, e, _)| n == &name && e == &index)
                .map(|(_, _, b)| *b)
                .collect();
            if copies.is_empty() {
                continue;
            }
            // (Summed wide: a kernel's bytes= may be any i64.)
            let got: i128 = copies.iter().map(|&b| i128::from(b)).sum();
            if got != i128::from(want) {
                let msg = format!(
                    "this expects {want} bytes on `{name}[{index}]` but the {} {got} in this block",
                    if copies.len() == 1 {
                        "copy completes"
                    } else {
                        "copies complete"
                    }
                );
                let help = if got < i128::from(want) {
                    "the phase completes only when all expected bytes arrive, so its waiters would hang: make bytes= match the copies"
                } else {
                    "more bytes arrive than expected, which completes the phase early or corrupts the next one: make bytes= match the copies"
                };
                self.error_help(span, msg, help);
            }
        }
    }

    // ----- whole-program barrier checks -----

    fn barriers(&mut self) {
        let k = self.k;
        let cta = k.launch.cta_threads;
        let uses = std::mem::take(&mut self.bar_uses);
        // Ids named by expressions could be any value in their interval.
        for u in uses.iter().filter(|u| u.waits) {
            if !u.ids.is_point() {
                continue;
            }
            let id = u.ids.lo;
            let expected = u.threads.unwrap_or(cta);
            if expected > cta {
                continue; // reported with the count
            }
            // Other uses of the same id must agree on the count.
            if let Some(o) = uses.iter().find(|o| {
                o.ids.is_point() && o.ids.lo == id && o.threads.unwrap_or(cta) != expected
            }) && o.span.line < u.span.line
            {
                let msg = format!(
                    "barrier {id} waits for {expected} threads here but for {} at line {}",
                    o.threads.unwrap_or(cta),
                    o.span.line
                );
                self.error_help(
                    u.span,
                    msg,
                    "every use of a barrier must give the same thread count",
                );
            }
            let mut roles: Vec<usize> = uses
                .iter()
                .filter(|o| o.ids.lo <= id && id <= o.ids.hi)
                .map(|o| o.role)
                .collect();
            roles.sort();
            roles.dedup();
            let arriving: u32 = roles
                .iter()
                .map(|&r| {
                    let r = &k.roles[r];
                    let lo = r.first_warp * 32;
                    let hi = ((r.last_warp + 1) * 32).min(cta);
                    hi.saturating_sub(lo)
                })
                .sum();
            if arriving < expected {
                let who: Vec<String> = roles
                    .iter()
                    .map(|&r| {
                        let r = &k.roles[r];
                        let threads = ((r.last_warp + 1) * 32)
                            .min(cta)
                            .saturating_sub(r.first_warp * 32);
                        format!(
                            "`{}` ({}, {threads} threads)",
                            r.name,
                            warps_text(r.first_warp, r.last_warp)
                        )
                    })
                    .collect();
                let missing: Vec<String> = k
                    .roles
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !roles.contains(i))
                    .map(|(_, r)| format!("`{}`", r.name))
                    .collect();
                let counted = if u.threads.is_some() {
                    format!("{expected} threads")
                } else {
                    format!("all {expected} threads of the CTA")
                };
                let msg = format!(
                    "`{}` on barrier {id} waits for {counted}, but only {} ever {} it; role{} {} never {}, so the barrier never completes",
                    u.mnemonic,
                    if who.len() == 1 {
                        format!("role {}", who[0])
                    } else {
                        format!("roles {} ({arriving} threads)", who.join(", "))
                    },
                    if who.len() == 1 { "reaches" } else { "reach" },
                    if missing.len() == 1 { "" } else { "s" },
                    missing.join(", "),
                    if missing.len() == 1 {
                        "arrives"
                    } else {
                        "arrive"
                    }
                );
                let help = if u.threads.is_none() {
                    format!(
                        "give the thread count of the warps that take part (`{} {id}, {arriving}`), or make every role arrive",
                        u.mnemonic
                    )
                } else {
                    format!(
                        "count only the warps that arrive ({arriving} threads), or add BAR.ARV {id}, {expected} to the missing roles"
                    )
                };
                self.error_help(u.span, msg, help);
            }
        }
        self.bar_uses = uses;
    }

    fn mbarriers(&mut self) {
        let uses = std::mem::take(&mut self.mbar_uses);
        for (name, u) in &uses {
            if u.arrive.is_empty() {
                if let Some(&span) = u.wait.first() {
                    let msg = format!(
                        "this waits on mbarrier `{name}`, but nothing ever arrives at it: no SYNCS.ARRIVE or UTCBAR names `{name}`, so its phase never completes and the wait never returns"
                    );
                    self.error_help(
                        span,
                        msg,
                        format!("add `SYNCS.ARRIVE.TRANS64 {name}[i]` (or `.EXPECT_TX ... bytes=N` before a copy) in the role that produces the data"),
                    );
                } else if let Some(&span) = u.complete_tx.first() {
                    let msg = format!(
                        "copies complete bytes on mbarrier `{name}`, but nothing ever arrives at it, so its phase never completes"
                    );
                    self.error_help(
                        span,
                        msg,
                        format!("announce the bytes first: `SYNCS.ARRIVE.TRANS64.EXPECT_TX {name}[i], bytes=N`"),
                    );
                }
            } else if u.expect_tx.is_empty()
                && let Some(&span) = u.complete_tx.first()
            {
                let msg = format!(
                    "this copy completes bytes on mbarrier `{name}`, but no SYNCS.ARRIVE.TRANS64.EXPECT_TX announces bytes on it"
                );
                self.error_help(
                        span,
                        msg,
                        format!("without an expected transaction count the phase can complete before the data lands; use `SYNCS.ARRIVE.TRANS64.EXPECT_TX {name}[i], bytes=N`"),
                    );
            }
        }
        self.mbar_uses = uses;
    }
}
