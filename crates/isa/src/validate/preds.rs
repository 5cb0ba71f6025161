//! Predicates with a declared truth (`pred P0 = EXPR`) and the uniform datapath's
//! registers: declarations, guards that read them, uniform instructions' operands.

use super::*;

impl<'k> Validator<'k> {
    /// A guard that reads a declared predicate: its truth must be computable where the
    /// instruction stands (its loop variables in scope), and fit the evaluator.
    pub(super) fn guard_truth(&mut self, rc: &RoleCtx, ins: &Instr, scope: &[ScopeVar]) {
        let Some(g) = ins.guard else { return };
        let Some(p) = self.k.pred(g.pred) else { return };
        let what = format!(
            "the truth of `{}` (declared on line {}, `{}`)",
            p.pred, p.span.line, p.truth
        );
        // (`lane` is allowed: the lanes diverge, each instruction executing for the
        // lanes its guard holds for.)
        self.check_expr(rc, &p.truth, ins.span, scope, Allow::Lane, &what);
    }

    /// A uniform instruction reads and writes uniform registers and predicates only
    /// (R2UR's source excepted: it moves a vector register into a uniform one); a
    /// uniform register pair (`ULDC.64`, `UIMAD.WIDE`) ends at UR62.
    pub(super) fn uniform_operands(&mut self, ins: &Instr) {
        let op = ins.op;
        let mnem = ins.mnemonic();
        if op.pipe() == Pipe::Uniform && op != Op::R2ur {
            // (The destination's kind is the form's to check.)
            let dest = ins
                .operands
                .iter()
                .position(|o| !matches!(o, Operand::Key { .. }))
                .filter(|_| ins.writes_first_operand());
            for (i, o) in ins.operands.iter().enumerate() {
                let Operand::Reg { reg, .. } = o else {
                    continue;
                };
                if reg.is_uniform() || Some(i) == dest {
                    continue;
                }
                let vector = match op.mnemonic().strip_prefix('U') {
                    Some(v) if Op::from_mnemonic(v).is_some() => format!(" ({v})"),
                    _ => String::new(),
                };
                self.error_help(
                    ins.operand_span(i),
                    format!(
                        "`{mnem}` runs on the uniform datapath and reads uniform registers (UR0..UR62, URZ, UP0..UP6, UPT), not `{reg}`"
                    ),
                    format!("move the value with R2UR first, or use the vector instruction{vector}"),
                );
            }
        }
        if let Some((Reg::Ur(r), n)) = ins.dest_reg()
            && u32::from(r) + n - 1 > MAX_UR
        {
            let i = ins
                .operands
                .iter()
                .position(|o| !matches!(o, Operand::Key { .. }))
                .unwrap_or(0);
            self.error(
                ins.operand_span(i),
                format!(
                    "`{mnem}`'s destination covers UR{r}..UR{}, past UR{MAX_UR}, the last uniform register",
                    u32::from(r) + n - 1
                ),
            );
        }
    }

    /// `perm(x, n)` whose `n` is below 1 for every value the program gives it (it
    /// permutes `0..n`): an error here rather than a fault in the run.
    pub(super) fn perm_domain(&mut self, e: &Expr, span: Span, rc: &RoleCtx, scope: &[ScopeVar]) {
        match e {
            Expr::Call(f, a, b) => {
                if *f == crate::expr::Func::Perm
                    && let Some(n) = self.iv(b, rc, scope)
                    && n.hi < 1
                {
                    self.error_help(
                        span,
                        format!(
                            "`{e}` permutes 0..n, but n = `{b}` is at most {} here",
                            n.hi
                        ),
                        "perm(x, n) needs n of at least 1: the number of slots it visits",
                    );
                }
                self.perm_domain(a, span, rc, scope);
                self.perm_domain(b, span, rc, scope);
            }
            Expr::Bin(_, a, b) => {
                self.perm_domain(a, span, rc, scope);
                self.perm_domain(b, span, rc, scope);
            }
            Expr::Neg(a) | Expr::Not(a) => self.perm_domain(a, span, rc, scope),
            Expr::Int(_) | Expr::Var(_) => {}
        }
    }
}
