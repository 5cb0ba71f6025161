//! Each operand on its own: names resolve, indices and offsets stay inside what they
//! name, registers fit the role's budget.

use super::*;

impl<'k> Validator<'k> {
    pub(super) fn operand(
        &mut self,
        rc: &RoleCtx,
        ins: &Instr,
        o: &Operand,
        span: Span,
        scope: &[ScopeVar],
    ) {
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
                if !self.check_expr(rc, index, span, scope, allow, what) {
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
                        self.memory_offset(ins, name, index, space, iv, span);
                    }
                    None => {}
                }
            }
            Operand::Key { key, value } => match &**value {
                Operand::Index { .. } => self.operand(rc, ins, value, span, scope),
                Operand::Expr(e) => {
                    let what = format!("`{key}=`");
                    self.check_expr(rc, e, span, scope, Allow::Uniform, &what);
                }
                Operand::Word(w) => {
                    let what = format!("`{key}=`");
                    self.check_vars(&Expr::Var(w.clone()), span, scope, Allow::Uniform, &what);
                }
                _ => {}
            },
            Operand::Expr(e) => {
                self.check_expr(rc, e, span, scope, Allow::Lane, "an operand");
            }
            Operand::Word(w) => {
                if self.special_word(ins, w) {
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

    /// Whether `ins`'s op gives the bare word `w` a meaning of its own. (Only its own
    /// words: any other word, a wait depth's say, is a name to check like any operand's,
    /// or the simulator would meet an unknown name `check` let through.)
    pub(super) fn special_word(&self, ins: &Instr, w: &str) -> bool {
        // `PREFIX` and a number (`gsb0`, `SB1`): `shape` and the op's rules check which.
        let numbered = |prefix: &str| {
            w.len() > prefix.len()
                && w.is_char_boundary(prefix.len())
                && w[..prefix.len()].eq_ignore_ascii_case(prefix)
                && w[prefix.len()..].bytes().all(|b| b.is_ascii_digit())
        };
        match ins.op {
            Op::Hgmma | Op::Warpgroup => numbered("gsb"),
            Op::Depbar => numbered("SB"),
            // Barrier names and ids are resolved by `bar`.
            Op::Bar => true,
            Op::Bra => true,
            // S2UR's and S2R's source names a special register (`SR_CTAID_X`).
            Op::S2ur | Op::S2r => true,
            _ => false,
        }
    }

    /// Register ranges against the role's budget and the register file.
    pub(super) fn registers(&mut self, rc: &RoleCtx, ins: &Instr) {
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

    /// A memory operand's byte offset (or tensor-memory column), plus the bytes the
    /// instruction moves, against the size of what it names.
    fn memory_offset(
        &mut self,
        ins: &Instr,
        name: &str,
        index: &Expr,
        space: Space,
        iv: Option<Iv>,
        span: Span,
    ) {
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
                        Some(Operand::Word(w)) => self.params.get(w.as_str()).copied(),
                        _ => None,
                    })
                    .unwrap_or(1),
                _ if space == Space::Tmem => 1,
                Op::Ldg | Op::Stg | Op::Lds | Op::Sts | Op::Ldgsts | Op::Atom | Op::Red => {
                    ins.width_bytes() as i64
                }
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
                let container = format!("`{name}` starts at offset 0; offsets may not be negative");
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
                    format!("the last byte of `{name}[{index}]` ({width} bytes from the offset)")
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
}
