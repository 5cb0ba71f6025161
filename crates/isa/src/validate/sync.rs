//! Synchronization: named barriers and their thread counts, mbarriers that someone
//! waits on, and transaction bytes that balance.

use super::*;

impl<'k> Validator<'k> {
    pub(super) fn bar(
        &mut self,
        rc: &RoleCtx,
        ins: &Instr,
        pos: &[(usize, &Operand)],
        scope: &[ScopeVar],
    ) {
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
    pub(super) fn tx_bytes_balance(&mut self, body: &[Stmt]) {
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

    pub(super) fn barriers(&mut self) {
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

    pub(super) fn mbarriers(&mut self) {
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
