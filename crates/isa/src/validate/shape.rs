//! Operand counts, kinds and keys per op, and each op's own rules.

use super::*;

impl<'k> Validator<'k> {
    /// Operand kinds and counts per op, plus op-specific semantics.
    pub(super) fn shape(&mut self, rc: &RoleCtx, ins: &'k Instr, scope: &[ScopeVar]) {
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
    pub(super) fn depth(&mut self, ins: &Instr, i: usize, o: &Operand) {
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

    pub(super) fn copy_bytes(&mut self, ins: &Instr, bytes: Option<i64>) {
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
    pub(super) fn tensor_box(
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

    pub(super) fn two_cta(&mut self, ins: &Instr) {
        if ins.has_mod("2CTA") && !self.k.launch.cluster.is_multiple_of(2) {
            let msg = format!(
                "`{}` pairs two CTAs but the launch has cluster={}",
                ins.mnemonic(),
                self.k.launch.cluster
            );
            self.error_help(ins.span, msg, "2-SM MMAs need clusters of an even number of CTAs: add cluster=2 to the launch line");
        }
    }
}
