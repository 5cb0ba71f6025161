//! Role bodies: loops and `if`s, the names an expression may use where it stands, the
//! values it takes, and the checks every instruction goes through.

use super::*;

impl<'k> Validator<'k> {
    pub(super) fn role_body(&mut self, index: usize, role: &'k Role) {
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

    pub(super) fn block(&mut self, rc: &RoleCtx, body: &'k [Stmt], scope: &mut Vec<ScopeVar>) {
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
                    if scope.len() == MAX_LOOP_DEPTH {
                        let msg = format!(
                            "this loop is nested {} deep: the simulator runs loops at most {MAX_LOOP_DEPTH} deep",
                            MAX_LOOP_DEPTH + 1
                        );
                        self.error_help(
                            *span,
                            msg,
                            "merge two loops into one (`loop ij 0..M * N` with `ij / N` and `ij % N`), or unroll one",
                        );
                    }
                    self.check_expr(rc, start, *span, scope, Allow::Bounds, "a loop bound");
                    self.check_expr(rc, end, *span, scope, Allow::Bounds, "a loop bound");
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
                    self.check_expr(rc, cond, *span, scope, Allow::Uniform, "an `if` condition");
                    self.conditional += 1;
                    self.block(rc, body, scope);
                    self.conditional -= 1;
                }
            }
        }
        self.tx_bytes_balance(body);
    }

    /// Checks an expression the simulator evaluates: the names it may use here, the
    /// depth of its evaluation, and values that overflow. True when its names are fine.
    pub(super) fn check_expr(
        &mut self,
        rc: &RoleCtx,
        e: &Expr,
        span: Span,
        scope: &[ScopeVar],
        allow: Allow,
        what: &str,
    ) -> bool {
        if !self.check_vars(e, span, scope, allow, what) {
            return false;
        }
        // As the simulator compiles it: parameters replaced by their values, constant
        // parts folded.
        let folded = e.substitute(&|n| {
            if scope.iter().any(|s| s.name == n) {
                None
            } else {
                self.params.get(n).copied()
            }
        });
        let stack = eval_stack(&folded);
        if stack > MAX_EXPR_STACK {
            let msg = format!(
                "{what} needs {stack} values pending at once to evaluate; the simulator evaluates at most {MAX_EXPR_STACK}"
            );
            self.error_help(
                span,
                msg,
                "write the deeper side of an operator first (`(a + b) * c`, not `c * (a + b)`), or simplify the expression",
            );
        }
        self.overflow(e, span, rc, scope);
        self.perm_domain(e, span, rc, scope);
        true
    }

    /// Reports names an expression may not use here; true when all are fine.
    pub(super) fn check_vars(
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
                        } else if what.starts_with("a declaration") {
                            "declarations are fixed when the kernel is launched: use parameters"
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

    /// The values each name can take in a role at a point in its body.
    fn env<'a>(
        &'a self,
        rc: &'a RoleCtx,
        scope: &'a [ScopeVar],
    ) -> impl Fn(&str) -> Option<Iv> + 'a {
        let r = rc.role;
        let grid = self.k.launch.grid.max(1) as i64;
        move |n: &str| -> Option<Iv> {
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
        }
    }

    /// The values `e` takes in a role at a point in its body.
    pub(super) fn iv(&self, e: &Expr, rc: &RoleCtx, scope: &[ScopeVar]) -> Option<Iv> {
        let iv = interval(e, &self.env(rc, scope))?;
        Some(if reuses_a_variable(e) || self.conditional > 0 {
            iv.loose()
        } else {
            iv
        })
    }

    /// Reports an expression whose value leaves the 64-bit integers for values the
    /// program reaches (a parameter of i64::MAX times 4): the engine would wrap it.
    pub(super) fn overflow(&mut self, e: &Expr, span: Span, rc: &RoleCtx, scope: &[ScopeVar]) {
        if reuses_a_variable(e) || self.conditional > 0 {
            return;
        }
        let part = overflowing(e, &self.env(rc, scope));
        if let Some(part) = part {
            let msg = if part == e {
                format!("`{e}` overflows 64-bit integers for values the program reaches")
            } else {
                format!(
                    "`{part}` in `{e}` overflows 64-bit integers for values the program reaches"
                )
            };
            self.error_help(
                span,
                msg,
                "the simulator's integers are 64-bit and would wrap; check the parameters' values",
            );
        }
    }

    /// The value of an expression that must be a compile-time constant (after parameters).
    pub(super) fn constant(&self, e: &Expr) -> Option<i64> {
        e.eval_checked(&|n| self.params.get(n).copied()).ok()
    }

    /// Checks that `iv` lies within `0..len`. `subject` says what takes the values
    /// ("mbarrier index `i % 8`"), `container` what it must stay inside ("`full` has 4
    /// mbarriers (0..=3)").
    pub(super) fn check_range(
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
    pub(super) fn target(&mut self, name: &str, span: Span) -> Option<Target> {
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
    pub(super) fn mem_size(&self, name: &str) -> Option<(i64, &'static str)> {
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

    pub(super) fn instr(&mut self, rc: &RoleCtx, ins: &'k Instr, scope: &[ScopeVar]) {
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
        self.guard_truth(rc, ins, scope);
        self.uniform_operands(ins);

        self.registers(rc, ins);
        self.shape(rc, ins, scope);
    }

    pub(super) fn modifiers(&mut self, ins: &Instr) {
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
}
