//! Decoding one role's body: each instruction's operands resolved (registers to
//! indices, names to barriers and buffers, expressions compiled), loops and ifs into
//! flat control nodes.

use super::*;

pub(super) struct Lowerer<'k> {
    pub(super) k: &'k Kernel,
    pub(super) scope: Vec<String>,
    pub(super) mbar_base: Vec<u32>,
}

impl<'k> Lowerer<'k> {
    pub(super) fn cexpr(&self, e: &Expr, span: isa::Span) -> Result<CExpr, LowerError> {
        let params = |n: &str| {
            if self.scope.iter().any(|s| s == n) {
                None
            } else {
                self.k.param(n)
            }
        };
        let e = e.substitute(&params);
        if let Expr::Int(v) = e {
            return Ok(CExpr::Const(v));
        }
        let mut code = Vec::new();
        compile(&e, self.k, &self.scope, &mut code).map_err(|m| err(span, m))?;
        if depth(&code) > 16 {
            return Err(err(
                span,
                "expression nested too deeply (more than 16 pending operands)",
            ));
        }
        Ok(CExpr::code(code))
    }

    pub(super) fn operand_expr(&self, o: &Operand, span: isa::Span) -> Result<CExpr, LowerError> {
        match o.as_expr() {
            Some(e) => self.cexpr(&e, span),
            None => Err(err(
                span,
                format!("expected a number or an expression, found `{o}`"),
            )),
        }
    }

    pub(super) fn key(&self, i: &Instr, key: &str) -> Result<Option<CExpr>, LowerError> {
        match i.key(key) {
            Some(o) => Ok(Some(self.operand_expr(o, i.span)?)),
            None => Ok(None),
        }
    }

    /// A branch's `bytes=` (its distance to its target as compiled): a whole number of
    /// 16-byte instructions, not 0, within 16 MiB; 0 where the branch gives none.
    pub(super) fn branch_bytes(&self, i: &Instr) -> Result<i32, LowerError> {
        const LIMIT: i64 = 1 << 24;
        match self.key(i, "bytes")? {
            None => Ok(0),
            Some(CExpr::Const(b)) if b != 0 && b % 16 == 0 && b.abs() < LIMIT => Ok(b as i32),
            Some(_) => Err(err(
                i.span,
                "BRA bytes= needs the branch's distance to its target as compiled: a nonzero \
                 multiple of 16 bytes below 16 MiB, as a number (e.g. `bytes=-7104`, a loop's \
                 back branch from 0x2fa0 to 0x13e0)",
            )),
        }
    }

    pub(super) fn need_key(&self, i: &Instr, key: &str) -> Result<CExpr, LowerError> {
        self.key(i, key)?
            .ok_or_else(|| err(i.span, format!("{} needs {key}=", i.mnemonic())))
    }

    pub(super) fn mbar_ref(
        &self,
        o: &Operand,
        span: isa::Span,
    ) -> Result<(u32, u32, CExpr), LowerError> {
        match o {
            Operand::Index { name, index } => {
                let d = self
                    .k
                    .mbarriers
                    .iter()
                    .position(|m| &m.name == name)
                    .ok_or_else(|| err(span, format!("`{name}` is not a declared mbarrier")))?;
                Ok((
                    self.mbar_base[d],
                    self.k.mbarriers[d].len,
                    self.cexpr(index, span)?,
                ))
            }
            Operand::Word(name) => {
                let d = self
                    .k
                    .mbarriers
                    .iter()
                    .position(|m| &m.name == name)
                    .ok_or_else(|| err(span, format!("`{name}` is not a declared mbarrier")))?;
                Ok((self.mbar_base[d], self.k.mbarriers[d].len, CExpr::Const(0)))
            }
            _ => Err(err(
                span,
                format!("expected an mbarrier such as full[i], found `{o}`"),
            )),
        }
    }

    /// The truth of `i`'s guard where its predicate is declared (`pred P0 = EXPR`),
    /// compiled where `i` stands (its loop variables in scope); `@!P0` is `EXPR == 0`.
    pub(super) fn guard(&self, i: &Instr) -> Result<Option<Box<CExpr>>, LowerError> {
        let Some(g) = i.guard else { return Ok(None) };
        let Some(p) = self.k.pred(g.pred) else {
            return Ok(None);
        };
        let truth = if g.negated {
            Expr::bin(BinOp::Eq, p.truth.clone(), Expr::Int(0))
        } else {
            p.truth.clone()
        };
        self.cexpr(&truth, i.span).map(|c| Some(Box::new(c)))
    }

    /// One instruction decoded. (Over 150 lines: one match over the opcodes' operand
    /// forms, each arm a few lines that read that form's operands; split by family,
    /// the shared decoding of registers and results would be spread over several.)
    pub(super) fn decode(&self, i: &Instr, text: u32) -> Result<DInstr, LowerError> {
        let span = i.span;
        // `S2R.U` is an S2UR into a vector register: its pipe and latency are S2UR's.
        let op = match i.op {
            Op::S2r if i.has_mod("U") => Op::S2ur,
            op => op,
        };
        let mut d = DInstr {
            kind: Kind::Plain,
            op,
            pipe: op.pipe(),
            latency: op.result_latency(),
            dst: None,
            waw: None,
            war: None,
            srcs: Srcs::default(),
            bank_conflict_cycles: 0,
            operand_regs: Box::new([]),
            width: i.width_bytes(),
            mem: Box::new([]),
            mbar: None,
            n: CExpr::Const(0),
            n2: CExpr::Const(0),
            tensor_box: None,
            mma: None,
            mma_a_not_smem: false,
            // `.STRONG.GPU` (`__ldcg`, ld.relaxed.gpu): coherent at the GPU's level, so
            // not allocated in the SM's L1: served by L2 every time, as `.CG`.
            bypass_l1: i.has_mod("CG")
                || i.has_mod("BYPASS")
                || (op == Op::Ldg && i.has_mod("STRONG") && (i.has_mod("GPU") || i.has_mod("SYS"))),
            multicast: i.has_mod("MULTICAST"),
            guard: self.guard(i)?,
            text,
            result: None,
            own_latency: 0,
            issue: IssueClass::General,
            dst_reg: 0,
            dst_count: 1,
            short_result: (0, WarpState::Wait),
            loop_tail: None,
            after_probe: false,
            per_thread: false,
            branch_bytes: self.branch_bytes(i)?,
            stall: match self.key(i, "stall")? {
                None => 1,
                Some(CExpr::Const(c)) if (0..=isa::validate::MAX_STALL).contains(&c) => {
                    c.max(1) as u8
                }
                Some(_) => {
                    return Err(err(
                        span,
                        format!(
                            "`stall=` must be a constant from 0 to {}",
                            isa::validate::MAX_STALL
                        ),
                    ));
                }
            },
        };
        if let Some((r, n)) = i.dest_reg()
            && let Some(idx) = reg_index(r)
        {
            d.dst = Some((idx, n.min(255) as u8));
        }
        let mut srcs = Vec::new();
        let mut operand_regs = Vec::new();
        for r in i.bank_reads() {
            if let Some(idx) = reg_index(r)
                && !operand_regs.contains(&idx)
            {
                operand_regs.push(idx);
            }
        }
        for (r, n) in i.source_regs() {
            if let Some(idx) = reg_index(r) {
                for j in 0..n as u16 {
                    if idx + j < REG_SLOTS as u16 {
                        srcs.push(idx + j);
                    }
                }
            }
        }
        let mut mem = Vec::new();
        for (name, index) in i.memory_operands() {
            let Some(space) = self.k.space_of(name) else {
                if self.k.mbarrier(name).is_some() {
                    continue;
                }
                return Err(err(
                    span,
                    format!("`{name}` is not a declared buffer, shared region, `local` or `tmem`"),
                ));
            };
            let base = match space {
                Space::Global => self
                    .k
                    .buffers
                    .iter()
                    .position(|b| b.name == name)
                    .unwrap_or(0) as u64,
                Space::Shared => self.k.shared_offset(name).unwrap_or(0) as u64,
                _ => 0,
            };
            mem.push(MemOperand::new(space, base, self.cexpr(index, span)?));
        }
        let word_n = |w: &str| -> Option<&Operand> {
            // The operand after a word such as SB0 or gsb0: `DEPBAR.LE SB0, 2`.
            let pos: Vec<&Operand> = i.positional().collect();
            let at = pos
                .iter()
                .position(|o| matches!(o, Operand::Word(x) if x.eq_ignore_ascii_case(w)))?;
            pos.get(at + 1).copied()
        };
        use Kind::*;
        d.kind = match op {
            Op::Ldg | Op::Ldl | Op::Lds | Op::Ldsm => {
                let m = mem.first().ok_or_else(|| {
                    err(
                        span,
                        format!(
                            "{} needs a memory operand such as A[lane * 4]",
                            i.mnemonic()
                        ),
                    )
                })?;
                Load { space: m.space }
            }
            Op::Stg | Op::Stl | Op::Sts => {
                let m = mem.first().ok_or_else(|| {
                    err(
                        span,
                        format!(
                            "{} needs a memory operand such as A[lane * 4]",
                            i.mnemonic()
                        ),
                    )
                })?;
                Store { space: m.space }
            }
            Op::Atom | Op::Red => {
                if mem.is_empty() {
                    return Err(err(
                        span,
                        format!("{} needs a memory operand", i.mnemonic()),
                    ));
                }
                Atomic {
                    returns: op == Op::Atom,
                }
            }
            Op::Ldgsts => {
                if mem.len() != 2 || mem[0].space != Space::Shared || mem[1].space != Space::Global
                {
                    return Err(err(
                        span,
                        "LDGSTS takes a shared destination and a global source: LDGSTS.E.128 stage[off], A[off]",
                    ));
                }
                Ldgsts
            }
            Op::Ldgdepbar => CpAsyncCommit,
            Op::Depbar => {
                let (kind, n) = if let Some(n) = word_n("SB0") {
                    (DepbarCpAsync, n)
                } else if let Some(n) = word_n("SB1") {
                    (
                        if i.has_mod("READ") {
                            DepbarBulkRead
                        } else {
                            DepbarBulk
                        },
                        n,
                    )
                } else {
                    return Err(err(
                        span,
                        "DEPBAR.LE needs SB0, N (cp.async groups) or SB1, N (bulk-store groups)",
                    ));
                };
                d.n = self.operand_expr(n, span)?;
                kind
            }
            // UBLKCP shared to global: a bulk store, as UTMASTG of one contiguous range.
            Op::Ublkcp
                if mem.len() == 2
                    && mem[0].space == Space::Global
                    && mem[1].space == Space::Shared =>
            {
                d.n = self.need_key(i, "bytes")?;
                TmaStore
            }
            Op::Ublkcp | Op::Utmaldg => {
                if mem.len() != 2 || mem[0].space != Space::Shared || mem[1].space != Space::Global
                {
                    return Err(err(
                        span,
                        format!(
                            "{} copies global to shared: {} stage[off], A[off], bytes=N, bar=full[i]",
                            i.mnemonic(),
                            op
                        ),
                    ));
                }
                d.n = self.need_key(i, "bytes")?;
                if let (Some(row), Some(pitch)) = (self.key(i, "row")?, self.key(i, "pitch")?) {
                    d.tensor_box = Some((row, pitch));
                }
                let bar = i.key("bar").ok_or_else(|| {
                    err(span, format!("{} needs bar=MBARRIER[i] to complete on", op))
                })?;
                d.mbar = Some(self.mbar_ref(bar, span)?);
                TmaLoad
            }
            Op::Utmastg => {
                if mem.len() != 2 || mem[0].space != Space::Global || mem[1].space != Space::Shared
                {
                    return Err(err(
                        span,
                        "UTMASTG copies shared to global: UTMASTG C[off], stage[off], bytes=N",
                    ));
                }
                d.n = self.need_key(i, "bytes")?;
                TmaStore
            }
            Op::Utmacmdflush => TmaCommit,
            Op::Syncs => {
                let target = i.positional().next().ok_or_else(|| {
                    err(span, format!("{} needs an mbarrier operand", i.mnemonic()))
                })?;
                d.mbar = Some(self.mbar_ref(target, span)?);
                if i.has_mod("EXCH") {
                    d.n = self.need_key(i, "count")?;
                    MbarInit
                } else if i.has_mod("ARRIVE") {
                    let expect_tx = i.has_mod("EXPECT_TX");
                    d.n = if expect_tx {
                        self.need_key(i, "bytes")?
                    } else {
                        CExpr::Const(0)
                    };
                    d.n2 = self.key(i, "count")?.unwrap_or(CExpr::Const(1));
                    MbarArrive { expect_tx }
                } else if i.has_mod("PHASECHK") || i.has_mod("TRYWAIT") {
                    d.n = self.need_key(i, "parity")?;
                    // the lanes that issue it: fewer than 32 when the rest of the warp
                    // waits at the end of a region (`if (lane == 0)`), which changes
                    // how the wait ends (`Engine::mbar_wait`)
                    d.n2 = self.key(i, "lanes")?.unwrap_or(CExpr::Const(32));
                    MbarWait
                } else {
                    return Err(err(
                        span,
                        "SYNCS needs .EXCH (init), .ARRIVE or .PHASECHK.TRANS64.TRYWAIT",
                    ));
                }
            }
            Op::Fence => Fence,
            Op::Warpgroup => {
                if i.has_mod("ARRIVE") {
                    WgArrive
                } else if i.has_mod("DEPBAR") {
                    let n = word_n("gsb0")
                        .ok_or_else(|| err(span, "WARPGROUP.DEPBAR.LE needs gsb0, N"))?;
                    d.n = self.operand_expr(n, span)?;
                    WgDepbar
                } else {
                    return Err(err(span, "WARPGROUP needs .ARRIVE or .DEPBAR.LE"));
                }
            }
            Op::Hgmma => {
                let shape = i
                    .mma_shape()
                    .unwrap_or_else(|| Err("no shape".into()))
                    .map_err(|m| err(span, m))?;
                d.mma = Some(shape);
                // The accumulator is read and written; A may come from registers.
                let pos: Vec<&Operand> = i.positional().collect();
                if let Some(Operand::Reg { reg, .. }) = pos.get(1) {
                    d.mma_a_not_smem = true;
                    if let Some(idx) = reg_index(*reg) {
                        for j in 0..4 {
                            srcs.push(idx + j);
                        }
                    }
                }
                Hgmma {
                    commit: i.has_word("gsb0"),
                }
            }
            Op::Utcmma => {
                let shape = i
                    .mma_shape()
                    .unwrap_or_else(|| Err("no shape".into()))
                    .map_err(|m| err(span, m))?;
                d.mma = Some(shape);
                d.mma_a_not_smem = mem.get(1).map(|m| m.space == Space::Tmem).unwrap_or(false);
                Utcmma
            }
            Op::Utcbar => {
                let target = i
                    .positional()
                    .next()
                    .ok_or_else(|| err(span, "UTCBAR needs an mbarrier operand"))?;
                d.mbar = Some(self.mbar_ref(target, span)?);
                Utcbar
            }
            Op::Ldtm => TmemLoad,
            Op::Sttm => TmemStore,
            Op::Tmemalloc => TmemAlloc,
            Op::Bar => {
                let first = i.positional().next().ok_or_else(|| {
                    err(
                        span,
                        "BAR needs a barrier id (0..15) or a declared barrier name",
                    )
                })?;
                let all = self.k.launch.cta_threads as i64;
                match first {
                    Operand::Word(w) if self.k.named_barrier(w).is_some() => {
                        let b = self.k.named_barrier(w).expect("checked");
                        d.n = CExpr::Const(b.id as i64);
                        d.n2 = CExpr::Const(b.threads as i64);
                    }
                    o => {
                        d.n = self.operand_expr(o, span)?;
                        d.n2 = match i.positional().nth(1) {
                            Some(t) => self.operand_expr(t, span)?,
                            None => CExpr::Const(all),
                        };
                    }
                }
                if i.has_mod("ARV") { BarArrive } else { BarSync }
            }
            Op::Membar => Membar {
                gpu: !i.has_mod("CTA"),
            },
            Op::Nanosleep => {
                d.n = match i.positional().next() {
                    Some(o) => self.operand_expr(o, span)?,
                    None => return Err(err(span, "NANOSLEEP needs a duration in nanoseconds")),
                };
                Nanosleep
            }
            Op::UcgabarArv => ClusterArrive,
            Op::UcgabarWait => ClusterWait,
            Op::Exit => Exit,
            Op::Shfl => Shuffle,
            Op::Nop if i.key("lanes").is_some() => {
                d.n = self.need_key(i, "lanes")?;
                Rejoin
            }
            Op::Bra | Op::Nop | Op::Bssy | Op::Setmaxnreg | Op::Tmemdealloc => Plain,
            _ => Compute,
        };
        srcs.sort_unstable();
        srcs.dedup();
        if let Some((base, n)) = d.dst {
            let end = (base as usize + n as usize).min(REG_SLOTS) as u16;
            let base = base.min(end);
            if !(base..end).all(|r| srcs.binary_search(&r).is_ok()) {
                d.waw = Some((base, end));
            }
        }
        d.srcs = Srcs::from(srcs);
        d.operand_regs = operand_regs.into_boxed_slice();
        // Under a guard that reads `lane`, only the lanes it holds for access memory
        // (`engine/predicate.rs`): their addresses are worked out lane by lane, not
        // from a warp-uniform or contiguous shortcut.
        if d.guard.as_ref().is_some_and(|g| g.uses_lane()) {
            for mo in &mut mem {
                mo.uniform = false;
                if let CExpr::Code { lane_step, .. } = &mut mo.addr {
                    *lane_step = None;
                }
            }
        }
        d.mem = mem.into_boxed_slice();
        Ok(d)
    }

    pub(super) fn body(&mut self, stmts: &[Stmt], rc: &mut RoleCode) -> Result<(), LowerError> {
        for s in stmts {
            match s {
                Stmt::Instr(i) => {
                    let text = rc.texts.len() as u32;
                    rc.texts.push(i.to_string());
                    rc.text_pc.push(rc.code.len() as u32);
                    let d = self.decode(i, text)?;
                    rc.code.push(Node::Instr(Box::new(d)));
                }
                Stmt::Loop {
                    var,
                    start,
                    end,
                    body,
                    span,
                } => {
                    if self.scope.len() >= MAX_LOOP_DEPTH {
                        return Err(err(
                            *span,
                            format!("loops nest at most {MAX_LOOP_DEPTH} deep"),
                        ));
                    }
                    let start = self.cexpr(start, *span)?;
                    let end = self.cexpr(end, *span)?;
                    let slot = self.scope.len() as u8;
                    let head = rc.code.len() as u32;
                    rc.code.push(Node::LoopHead {
                        slot,
                        start: Box::new(start),
                        end: Box::new(end),
                        exit: 0,
                    });
                    self.scope.push(var.clone());
                    self.body(body, rc)?;
                    self.scope.pop();
                    rc.code.push(Node::LoopTail { slot, head });
                    let exit = rc.code.len() as u32;
                    if let Node::LoopHead { exit: e, .. } = &mut rc.code[head as usize] {
                        *e = exit;
                    }
                }
                Stmt::If { cond, body, span } => {
                    let cond = self.cexpr(cond, *span)?;
                    let at = rc.code.len();
                    rc.code.push(Node::If {
                        cond: Box::new(cond),
                        exit: 0,
                    });
                    self.body(body, rc)?;
                    let exit = rc.code.len() as u32;
                    if let Node::If { exit: e, .. } = &mut rc.code[at] {
                        *e = exit;
                    }
                }
            }
        }
        Ok(())
    }
}
