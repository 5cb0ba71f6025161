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

mod body;
mod decls;
mod hazards;
mod interval;
mod operand;
mod ops;
mod preds;
mod shape;
mod sync;
mod text;

use std::collections::{BTreeMap, HashMap};

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::expr::{BUILTIN_VARS, Expr};
use crate::opcode::{Op, Pipe};
use interval::{Iv, eval_stack, interval, overflowing, reuses_a_variable};
use text::{plural, suggest, warps_text};

pub use crate::limits::*;

/// Checks a parsed (or built) kernel; returns every problem found, in source order.
pub fn validate(k: &Kernel) -> Vec<Diagnostic> {
    let mut v = Validator::new(k);
    if !v.decl_exprs() {
        let mut d = v.diags;
        d.sort_by_key(|d| (d.line, d.col));
        return d;
    }
    v.declarations();
    v.launch();
    v.roles();
    for (i, r) in k.roles.iter().enumerate() {
        v.role_body(i, r);
    }
    v.barriers();
    v.mbarriers();
    // The protocol checks read a kernel otherwise valid: the walk evaluates the program,
    // and a kernel with other errors would get noise.
    if v.diags.is_empty() {
        v.arrival_counts();
        v.hazards();
    }
    let mut d = v.diags;
    d.sort_by_key(|d| (d.line, d.col));
    d
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
    pub(super) fn new(k: &'k Kernel) -> Self {
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

    pub(super) fn error(&mut self, span: Span, msg: impl Into<String>) -> &mut Diagnostic {
        self.diags.push(Diagnostic::new(span, msg));
        self.diags.last_mut().expect("just pushed")
    }

    pub(super) fn error_help(
        &mut self,
        span: Span,
        msg: impl Into<String>,
        help: impl Into<String>,
    ) {
        self.diags.push(Diagnostic::new(span, msg).with_help(help));
    }

    pub(super) fn cta_threads(&self) -> u32 {
        self.k.launch.cta_threads
    }
}
