//! Prints a kernel in the text format; `parse_kernel(&k.to_string()) == Ok(k)`.

use std::fmt::{self, Display, Formatter, Write};

use crate::ast::*;
use crate::expr::Expr;

fn size(v: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (m, u) in UNITS {
        if v >= m && v.is_multiple_of(m) {
            return format!("{}{u}", v / m);
        }
    }
    v.to_string()
}

impl Display for Operand {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Reg {
                reg,
                negated,
                reuse,
            } => {
                if *negated {
                    f.write_char(if reg.is_predicate() { '!' } else { '-' })?;
                }
                write!(f, "{reg}")?;
                if *reuse {
                    f.write_str(".reuse")?;
                }
                Ok(())
            }
            Operand::Int(v) => write!(f, "{v}"),
            Operand::Float(s) => f.write_str(s),
            Operand::Index { name, index } => write!(f, "{name}[{index}]"),
            Operand::Key { key, value } => write!(f, "{key}={value}"),
            // A negated name that looks like a register must not read as a negated
            // register: `-(R5)`, not `-R5`.
            Operand::Expr(Expr::Neg(inner)) if matches!(&**inner, Expr::Var(v) if crate::parse::parse_reg(v).is_some()) =>
            {
                write!(f, "-({inner})")
            }
            // One name alone would parse back as a word: keep the parentheses that made
            // it an expression.
            Operand::Expr(e @ Expr::Var(_)) => write!(f, "({e})"),
            Operand::Expr(e) => write!(f, "{e}"),
            Operand::Word(w) => f.write_str(w),
        }
    }
}

impl Display for Instr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(g) = self.guard {
            write!(f, "@{}{} ", if g.negated { "!" } else { "" }, g.pred)?;
        }
        f.write_str(&self.mnemonic())?;
        for (i, o) in self.operands.iter().enumerate() {
            f.write_str(if i == 0 { " " } else { ", " })?;
            write!(f, "{o}")?;
        }
        Ok(())
    }
}

fn body(f: &mut Formatter<'_>, stmts: &[Stmt], depth: usize) -> fmt::Result {
    let pad = "  ".repeat(depth);
    for s in stmts {
        match s {
            Stmt::Instr(i) => writeln!(f, "{pad}{i}")?,
            Stmt::Loop {
                var,
                start,
                end,
                body: b,
                ..
            } => {
                writeln!(f, "{pad}loop {var} {start}..{end}")?;
                body(f, b, depth + 1)?;
            }
            Stmt::If { cond, body: b, .. } => {
                writeln!(f, "{pad}if {cond}")?;
                body(f, b, depth + 1)?;
            }
        }
    }
    Ok(())
}

impl Display for Kernel {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        writeln!(f, "kernel {}", self.name)?;
        // A value written as an expression prints as the expression.
        let v = |field: DeclField, value: String| match self.decl_expr(field) {
            Some(d) => d.expr.to_string(),
            None => value,
        };
        let l = &self.launch;
        write!(
            f,
            "launch cta_threads={} regs={} smem={} grid={}",
            v(DeclField::CtaThreads, l.cta_threads.to_string()),
            v(DeclField::Regs, l.regs.to_string()),
            v(DeclField::Smem, l.smem.to_string()),
            v(DeclField::Grid, l.grid.to_string()),
        )?;
        if l.cluster != 1 || self.decl_expr(DeclField::Cluster).is_some() {
            write!(
                f,
                " cluster={}",
                v(DeclField::Cluster, l.cluster.to_string())
            )?;
        }
        if l.tmem_cols != 0 || self.decl_expr(DeclField::Tmem).is_some() {
            write!(f, " tmem={}", v(DeclField::Tmem, l.tmem_cols.to_string()))?;
        }
        writeln!(f)?;
        for (i, b) in self.buffers.iter().enumerate() {
            let size = v(DeclField::BufferSize(i), size(b.size));
            write!(f, "buffer {} global size={size}", b.name)?;
            if b.warm != 0 || self.decl_expr(DeclField::BufferWarm(i)).is_some() {
                write!(
                    f,
                    " warm={}",
                    v(DeclField::BufferWarm(i), b.warm.to_string())
                )?;
            }
            writeln!(f)?;
        }
        for (i, s) in self.shared.iter().enumerate() {
            let size = v(DeclField::SharedSize(i), s.size.to_string());
            writeln!(f, "shared {} size={size}", s.name)?;
        }
        for (i, m) in self.mbarriers.iter().enumerate() {
            let count = v(DeclField::MbarrierCount(i), m.count.to_string());
            match self.decl_expr(DeclField::MbarrierLen(i)) {
                None if m.len == 1 => writeln!(f, "mbarrier {} count={count}", m.name)?,
                _ => {
                    let len = v(DeclField::MbarrierLen(i), m.len.to_string());
                    writeln!(f, "mbarrier {}[{len}] count={count}", m.name)?
                }
            }
        }
        for (i, b) in self.named_barriers.iter().enumerate() {
            let id = v(DeclField::BarrierId(i), b.id.to_string());
            let threads = v(DeclField::BarrierThreads(i), b.threads.to_string());
            writeln!(f, "barrier {} id={id} threads={threads}", b.name)?;
        }
        if !self.params.is_empty() {
            f.write_str("param")?;
            for p in &self.params {
                write!(f, " {}={}", p.name, p.default)?;
            }
            writeln!(f)?;
        }
        if let Some(w) = &self.work {
            f.write_str("work")?;
            if let Some(e) = &w.flops {
                write!(f, " flops={e}")?;
            }
            if let Some(e) = &w.bytes {
                write!(f, " bytes={e}")?;
            }
            writeln!(f)?;
        }
        for p in &self.preds {
            writeln!(f, "pred {} = {}", p.pred, p.truth)?;
        }
        for r in &self.roles {
            writeln!(f)?;
            write!(f, "role {} warps={}..{}", r.name, r.first_warp, r.last_warp)?;
            if let Some(m) = r.maxnreg {
                write!(f, " maxnreg={m}")?;
            }
            writeln!(f)?;
            body(f, &r.body, 1)?;
        }
        Ok(())
    }
}
