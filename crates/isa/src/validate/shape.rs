//! Operand counts, kinds and keys, checked generically from the opcode table
//! ([`crate::opcode::FORMS`]); each op's own rules follow in `ops`.

use super::*;
use crate::opcode::{Form, Kind};

/// An instruction's positional operands with their indices into `operands`.
pub(super) type Positional<'a> = Vec<(usize, &'a Operand)>;

impl<'k> Validator<'k> {
    /// Operand kinds and counts per op (from its form), then the op's own rules.
    pub(super) fn shape(&mut self, rc: &RoleCtx, ins: &'k Instr, scope: &[ScopeVar]) {
        let mnem = ins.mnemonic();
        let pos: Positional = ins
            .operands
            .iter()
            .enumerate()
            .filter(|(_, o)| !matches!(o, Operand::Key { .. }))
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
        let Some(form) = ins.op.form(&ins.mods) else {
            return;
        };
        self.keys(ins, form);
        self.stall(ins);
        if let Some(rule) = form.modifier {
            let n = rule.one_of.iter().filter(|m| ins.has_mod(m)).count();
            if n == 0 || (rule.exactly && n > 1) {
                self.error_help(ins.span, format!("`{mnem}` {}", rule.says), rule.help);
            }
        }
        let counted = match form.operands {
            Some(operands) => {
                let counted = self.arity(ins, &pos, operands.min, operands.max, operands.syntax);
                for (n, &(kind, role)) in operands.kinds.iter().enumerate() {
                    if counted || n < operands.always {
                        self.kind(ins, &pos, n, kind, role);
                    }
                }
                counted
            }
            None => true,
        };
        for k in form.keys {
            let needed = match k.required {
                Some(None) => true,
                Some(Some(m)) => ins.has_mod(m),
                None => false,
            };
            if needed && ins.key(k.key).is_none() {
                let syntax = k
                    .syntax
                    .or(form.operands.map(|o| o.syntax))
                    .unwrap_or_default()
                    .replace("{mnem}", &mnem);
                self.error_help(
                    ins.span,
                    format!("`{mnem}` needs `{}=`", k.key),
                    format!("write `{syntax}`"),
                );
            }
        }
        if form.no_memory {
            for &(i, o) in &pos {
                if let Operand::Index { name, .. } = o
                    && (self.k.mbarrier(name).is_some() || self.k.space_of(name).is_some())
                {
                    self.error_help(
                        ins.operand_span(i),
                        format!("`{mnem}` takes no memory operand"),
                        "load it into a register first (LDG, LDS)",
                    );
                }
            }
        }
        self.op_rules(rc, ins, &pos, counted, scope);
    }

    /// `key=` operands the op does not take.
    fn keys(&mut self, ins: &Instr, form: &Form) {
        let mnem = ins.mnemonic();
        let allowed: Vec<&str> = form.allowed_keys(&ins.mods).map(|k| k.key).collect();
        for (i, o) in ins.operands.iter().enumerate() {
            let Operand::Key { key, .. } = o else {
                continue;
            };
            if allowed.contains(&key.as_str()) || key == "stall" {
                continue;
            }
            let help = if allowed.is_empty() {
                format!("{} takes no key=value operands", ins.op)
            } else {
                let list: Vec<String> = allowed.iter().map(|k| format!("{k}=")).collect();
                format!("`{mnem}` takes {}", list.join(", "))
            };
            self.error_help(
                ins.operand_span(i),
                format!("`{mnem}` has no `{key}=` operand"),
                help,
            );
        }
    }

    /// `stall=N`: the instruction's control-code stall count (SASS encodes one in every
    /// instruction: cycles before the warp may issue again), 0 to 15.
    fn stall(&mut self, ins: &Instr) {
        let Some(v) = ins.key("stall") else { return };
        let integer = matches!(v, Operand::Int(_) | Operand::Expr(_) | Operand::Word(_));
        match self.const_key(ins, "stall") {
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

    /// The count of positional operands; true when it is within `min..=max`.
    fn arity(
        &mut self,
        ins: &Instr,
        pos: &Positional,
        min: usize,
        max: usize,
        syntax: &str,
    ) -> bool {
        let n = pos.len();
        if (min..=max).contains(&n) {
            return true;
        }
        let span = if n > max {
            ins.operand_span(pos[max].0)
        } else {
            ins.span
        };
        let expected = if min == max {
            plural(min as u64, "operand", "operands")
        } else {
            format!("{min} to {max} operands")
        };
        let mnem = ins.mnemonic();
        self.error_help(
            span,
            format!("`{mnem}` takes {expected}, not {n}"),
            format!("write `{}`", syntax.replace("{mnem}", &mnem)),
        );
        false
    }

    /// What an operand is, in a diagnostic's words; `None` for a name already reported.
    fn operand_is(&self, o: &Operand) -> Option<&'static str> {
        Some(match o {
            Operand::Reg {
                reg: Reg::R(_) | Reg::Rz,
                ..
            } => "a register",
            Operand::Reg {
                reg: Reg::Ur(_) | Reg::Urz,
                ..
            } => "a uniform register",
            Operand::Reg {
                reg: Reg::Up(_) | Reg::Upt,
                ..
            } => "a uniform predicate",
            Operand::Reg { .. } => "a predicate",
            Operand::Int(_) | Operand::Float(_) => "an immediate",
            Operand::Expr(_) => "an expression",
            Operand::Word(_) => "a name",
            Operand::Index { name, .. } => match self.k.mbarrier(name) {
                Some(_) => "an mbarrier",
                None => match self.k.space_of(name)? {
                    Space::Global => "global memory",
                    Space::Shared => "shared memory",
                    Space::Local => "local memory",
                    Space::Tmem => "tensor memory",
                },
            },
            Operand::Key { .. } => return None,
        })
    }

    /// Positional operand `n` against the kind its form wants.
    fn kind(&mut self, ins: &Instr, pos: &Positional, n: usize, want: Kind, role: &str) {
        let Some(&(i, o)) = pos.get(n) else { return };
        let Some(got) = self.operand_is(o) else {
            return;
        };
        // A bare memory or mbarrier name was reported by `operand`.
        if let Operand::Word(w) = o
            && (self.k.mbarrier(w).is_some() || self.k.space_of(w).is_some())
        {
            return;
        }
        // A vector instruction reads uniform registers as it reads vector ones (SASS's
        // `FFMA R0, R2, UR4, R0`), but writes only vector registers.
        let dest = n == 0 && ins.writes_first_operand();
        let is_reg = match o {
            Operand::Reg { reg, .. } => match reg {
                Reg::R(_) | Reg::Rz => true,
                Reg::Ur(_) | Reg::Urz => !dest,
                _ => false,
            },
            _ => false,
        };
        // HGMMA's A operand: a register when written as one, else shared memory.
        let want = match want {
            Kind::RegOrMem(_) if matches!(o, Operand::Reg { .. }) => Kind::Reg,
            Kind::RegOrMem(spaces) => Kind::Mem(spaces),
            w => w,
        };
        let ok = match want {
            Kind::Reg => is_reg,
            Kind::Pred => matches!(
                o,
                Operand::Reg {
                    reg: Reg::P(_) | Reg::Pt,
                    ..
                }
            ),
            Kind::UReg => matches!(
                o,
                Operand::Reg {
                    reg: Reg::Ur(_) | Reg::Urz,
                    ..
                }
            ),
            Kind::UPred => matches!(
                o,
                Operand::Reg {
                    reg: Reg::Up(_) | Reg::Upt,
                    ..
                }
            ),
            Kind::Value => !matches!(o, Operand::Index { .. }),
            Kind::Int => matches!(o, Operand::Int(_) | Operand::Expr(_) | Operand::Word(_)),
            Kind::Mem(spaces) => match o {
                Operand::Index { name, .. } => {
                    self.k.space_of(name).is_some_and(|s| spaces.contains(&s))
                        && self.k.mbarrier(name).is_none()
                }
                _ => false,
            },
            Kind::Mbar => {
                matches!(o, Operand::Index { name, .. } if self.k.mbarrier(name).is_some())
            }
            Kind::RegOrMem(_) | Kind::Any => true,
        };
        if ok {
            return;
        }
        let wanted = match want {
            Kind::Reg if dest => "a vector register (R0..R254, RZ)".to_string(),
            Kind::Reg => "a register".to_string(),
            Kind::UReg => "a uniform register (UR0..UR62, URZ)".to_string(),
            Kind::UPred => "a uniform predicate (UP0..UP6, UPT)".to_string(),
            Kind::Pred => "a predicate (P0..P6, PT)".to_string(),
            Kind::Value => "a register or an immediate".to_string(),
            Kind::Int => "an integer (a number or an expression)".to_string(),
            Kind::Mbar => "an mbarrier (`bar[i]`)".to_string(),
            Kind::Mem(spaces) | Kind::RegOrMem(spaces) => {
                let names: Vec<&str> = spaces.iter().map(|s| s.wanted()).collect();
                names.join(" or ")
            }
            Kind::Any => String::new(),
        };
        let mnem = ins.mnemonic();
        let msg = format!("`{mnem}`'s {role} must be {wanted}, not {got}");
        let help = match (ins.op, want, got) {
            (Op::Ldg, Kind::Mem(_), "shared memory") => {
                Some("LDG reads global memory; use LDS for shared memory")
            }
            (Op::Lds, Kind::Mem(_), "global memory") => {
                Some("LDS reads shared memory; use LDG for global memory")
            }
            (Op::Stg, Kind::Mem(_), "shared memory") => {
                Some("STG writes global memory; use STS for shared memory")
            }
            (Op::Sts, Kind::Mem(_), "global memory") => {
                Some("STS writes shared memory; use STG for global memory")
            }
            _ => None,
        };
        let span = ins.operand_span(i);
        match help {
            Some(h) => self.error_help(span, msg, h),
            None => {
                self.error(span, msg);
            }
        }
    }

    /// The value of `key=` when it is an integer constant (after parameters); a key that
    /// is not an integer at all is reported.
    pub(super) fn const_key(&mut self, ins: &Instr, key: &str) -> Option<i64> {
        let v = ins.key(key)?;
        let e = match v {
            Operand::Int(x) => Expr::Int(*x),
            Operand::Expr(e) => e.clone(),
            Operand::Word(w) => Expr::Var(w.clone()),
            _ => {
                self.error(
                    ins.key_span(key),
                    format!("`{key}=` takes an integer, not `{v}`"),
                );
                return None;
            }
        };
        self.constant(&e)
    }
}
