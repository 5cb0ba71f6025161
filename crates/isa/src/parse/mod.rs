//! The kernel text format: a header, then roles whose bodies are indented blocks.
//!
//! ```text
//! kernel NAME
//! launch cta_threads=384 regs=168 smem=196608 grid=132
//! buffer A size=64MiB
//! shared stage size=49152
//! mbarrier full[4] count=1
//! barrier epi id=1 threads=256
//! param PIPE=4 KT=512
//! work flops=2 * 128 * 256 * 64 * KT
//!
//! role producer warps=0..0 maxnreg=40
//!   loop k 0..KT
//!     SYNCS.PHASECHK.TRANS64.TRYWAIT empty[k % PIPE], parity=((k / PIPE) & 1) ^ 1
//! ```
//! Role warp ranges are inclusive (`warps=4..11` is eight warps); loop ranges exclude
//! their end (`loop k 0..KT` runs KT times), as in Rust.

pub use crate::ast::parse_reg;
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::expr::{BinOp, Expr, Func};
use crate::opcode::Op;

mod header;

use header::{Value, barrier, buffer, launch, mbarrier, pred, shared};

type PResult<T> = Result<T, Diagnostic>;

/// How deep an expression may nest (parentheses, operators, `min(`), and how deep its
/// tree may be (a sum of N terms is N deep): deeper is an error, not a stack overflow.
pub const MAX_EXPR_DEPTH: usize = 100;
/// How deep blocks (`loop`, `if`) may nest in the text.
pub const MAX_BLOCK_DEPTH: usize = 64;

fn err(line: u32, col: usize, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::new(
        Span {
            line,
            col: col as u32,
        },
        msg,
    )
}

/// One non-blank source line with its comment removed.
struct Line<'a> {
    num: u32,
    indent: usize,
    /// Text after the indentation, comment and trailing blanks removed.
    text: &'a str,
}

fn split_lines(src: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    for (i, raw) in src.lines().enumerate() {
        let mut end = raw.len();
        if let Some(p) = raw.find('#') {
            end = end.min(p);
        }
        if let Some(p) = raw.find("//") {
            end = end.min(p);
        }
        let body = &raw[..end];
        let trimmed = body.trim_end();
        let text = trimmed.trim_start();
        if text.is_empty() {
            continue;
        }
        let indent = trimmed.len() - text.len();
        out.push(Line {
            num: i as u32 + 1,
            indent,
            text,
        });
    }
    out
}

/// Parses a whole kernel file.
pub fn parse_kernel(src: &str) -> PResult<Kernel> {
    let lines = split_lines(src);
    let mut p = Parser {
        lines,
        pos: 0,
        depth: 0,
    };
    p.kernel()
}

/// Parses one instruction line such as `FFMA R1, R2, R3, R1`, for generators and tests.
pub fn parse_instr(text: &str) -> PResult<Instr> {
    let mut cur = Cursor::new(text, 1, 1);
    let ins = cur.instr()?;
    Ok(ins)
}

/// Parses an integer expression such as `(k / PIPE) & 1`.
pub fn parse_expr(text: &str) -> PResult<Expr> {
    let mut cur = Cursor::new(text, 1, 1);
    let e = cur.expr()?;
    cur.skip_ws();
    if !cur.at_end() {
        return Err(cur.error("expected the end of the expression"));
    }
    Ok(e)
}

struct Parser<'a> {
    lines: Vec<Line<'a>>,
    pos: usize,
    /// How many blocks enclose the line being parsed.
    depth: usize,
}

impl<'a> Parser<'a> {
    fn cursor(&self, l: &Line<'a>) -> Cursor<'a> {
        Cursor::new(l.text, l.num, l.indent + 1)
    }

    fn kernel(&mut self) -> PResult<Kernel> {
        let first = match self.lines.first() {
            Some(l) => l,
            None => return Err(err(1, 1, "empty file: expected `kernel NAME`")),
        };
        let mut c = self.cursor(first);
        if c.ident_opt().as_deref() != Some("kernel") {
            return Err(c.error_at(0, "expected `kernel NAME` as the first line"));
        }
        let name = c.ident("a kernel name")?;
        c.end()?;
        self.pos = 1;
        let mut k = Kernel {
            name,
            launch: Launch {
                cta_threads: 0,
                regs: 0,
                smem: 0,
                grid: 1,
                cluster: 1,
                tmem_cols: 0,
                span: Span::default(),
            },
            buffers: vec![],
            shared: vec![],
            mbarriers: vec![],
            named_barriers: vec![],
            params: vec![],
            work: None,
            preds: vec![],
            roles: vec![],
            decl_exprs: vec![],
        };
        let mut have_launch = false;
        while self.pos < self.lines.len() {
            let l = &self.lines[self.pos];
            if l.indent != 0 {
                return Err(err(
                    l.num,
                    l.indent + 1,
                    "unexpected indentation: only role bodies are indented",
                ));
            }
            let mut c = self.cursor(l);
            let span = c.span();
            let word = c.ident(
                "a declaration (launch, buffer, shared, mbarrier, barrier, param, work, pred, role)",
            )?;
            self.pos += 1;
            match word.as_str() {
                "launch" => {
                    if have_launch {
                        return Err(c.error_at(0, "a second `launch` line"));
                    }
                    have_launch = true;
                    k.launch.span = span;
                    launch(&mut c, &mut k, span)?;
                }
                "buffer" => buffer(&mut c, &mut k, span)?,
                "shared" => shared(&mut c, &mut k, span)?,
                "mbarrier" => mbarrier(&mut c, &mut k, span)?,
                "barrier" => barrier(&mut c, &mut k, span)?,
                "pred" => pred(&mut c, &mut k, span)?,
                "param" => {
                    let mut any = false;
                    loop {
                        c.skip_ws();
                        if c.at_end() {
                            break;
                        }
                        let pspan = c.span();
                        let name = c.ident("a parameter name")?;
                        c.expect('=')?;
                        c.skip_ws();
                        let neg = c.eat('-');
                        c.skip_ws();
                        let vpos = c.pos;
                        let v = c.uint()?;
                        let default = if neg {
                            0i64.checked_sub_unsigned(v)
                        } else {
                            i64::try_from(v).ok()
                        }
                        .ok_or_else(|| {
                            c.error_at(vpos, "parameter value out of range for a 64-bit integer")
                        })?;
                        k.params.push(Param {
                            name,
                            default,
                            span: pspan,
                        });
                        any = true;
                    }
                    if !any {
                        return Err(c.error_at(0, "`param` needs NAME=VALUE"));
                    }
                }
                "work" => {
                    let mut w = Work {
                        flops: None,
                        bytes: None,
                        span,
                    };
                    loop {
                        c.skip_ws();
                        if c.at_end() {
                            break;
                        }
                        let kcol = c.col();
                        let key = c.ident("flops= or bytes=")?;
                        c.expect('=')?;
                        let e = c.expr()?;
                        match key.as_str() {
                            "flops" => w.flops = Some(e),
                            "bytes" => w.bytes = Some(e),
                            _ => {
                                return Err(err(
                                    span.line,
                                    kcol,
                                    format!(
                                        "unknown work setting `{key}`; expected flops or bytes"
                                    ),
                                ));
                            }
                        }
                    }
                    if w.flops.is_none() && w.bytes.is_none() {
                        return Err(c.error_at(0, "`work` needs flops=EXPR or bytes=EXPR"));
                    }
                    k.work = Some(w);
                }
                "role" => {
                    let role = self.role(c, span, l.num)?;
                    k.roles.push(role);
                }
                "kernel" => {
                    return Err(c.error_at(0, "a second `kernel` line: one file holds one kernel"));
                }
                other => {
                    return Err(c.error_at(
                        0,
                        format!("unknown declaration `{other}`; expected launch, buffer, shared, mbarrier, barrier, param, work, pred or role"),
                    ));
                }
            }
        }
        if !have_launch {
            return Err(err(
                1,
                1,
                "the kernel has no `launch` line (launch cta_threads=N regs=N smem=BYTES grid=N)",
            ));
        }
        // Parameters may be declared after the declarations that use them.
        k.bind();
        Ok(k)
    }

    fn role(&mut self, mut c: Cursor<'a>, span: Span, line: u32) -> PResult<Role> {
        let name = c.ident("a role name")?;
        let mut range = None;
        let mut maxnreg = None;
        loop {
            c.skip_ws();
            if c.at_end() {
                break;
            }
            let kcol = c.col();
            let key = c.ident("warps=A..B or maxnreg=N")?;
            c.expect('=')?;
            c.skip_ws();
            match key.as_str() {
                "warps" => {
                    let a = c.uint()?;
                    let b = if c.eat_str("..") { c.uint()? } else { a };
                    if b < a {
                        return Err(err(
                            line,
                            kcol,
                            format!(
                                "warps={a}..{b} is empty: the range is inclusive and must not run backwards"
                            ),
                        ));
                    }
                    if b > 1023 {
                        return Err(err(line, kcol, "a CTA has at most 32 warps"));
                    }
                    range = Some((a as u32, b as u32));
                }
                "maxnreg" => maxnreg = Some(c.uint()?.min(u32::MAX as u64) as u32),
                _ => {
                    return Err(err(
                        line,
                        kcol,
                        format!("unknown role setting `{key}`; expected warps or maxnreg"),
                    ));
                }
            }
        }
        let (first_warp, last_warp) =
            range.ok_or_else(|| err(line, 1, "`role` needs warps=FIRST..LAST"))?;
        let body = self.block(0)?;
        if body.is_empty() {
            return Err(err(
                line,
                1,
                format!("role `{name}` has no body: indent its instructions under it"),
            ));
        }
        Ok(Role {
            name,
            first_warp,
            last_warp,
            maxnreg,
            body,
            span,
        })
    }

    /// The body of the `loop` or `if` on `head`, its nesting limited.
    fn nested_block(&mut self, parent: usize, head: &Line) -> PResult<Vec<Stmt>> {
        if self.depth >= MAX_BLOCK_DEPTH {
            return Err(err(
                head.num,
                head.indent + 1,
                format!("blocks nest more than {MAX_BLOCK_DEPTH} deep here"),
            ));
        }
        self.depth += 1;
        let body = self.block(parent);
        self.depth -= 1;
        body
    }

    /// Parses the lines indented deeper than `parent` as one block.
    fn block(&mut self, parent: usize) -> PResult<Vec<Stmt>> {
        let mut out = Vec::new();
        let Some(first) = self.lines.get(self.pos) else {
            return Ok(out);
        };
        if first.indent <= parent {
            return Ok(out);
        }
        let indent = first.indent;
        while let Some(line) = self.lines.get(self.pos) {
            let l = Line {
                num: line.num,
                indent: line.indent,
                text: line.text,
            };
            if l.indent < indent {
                if l.indent > parent {
                    return Err(err(
                        l.num,
                        l.indent + 1,
                        "this line's indentation matches no enclosing block",
                    ));
                }
                break;
            }
            if l.indent > indent {
                return Err(err(
                    l.num,
                    l.indent + 1,
                    "unexpected indentation: only `loop` and `if` open a block",
                ));
            }
            let mut c = self.cursor(&l);
            let span = c.span();
            self.pos += 1;
            let save = c.pos;
            let word = c.ident_opt();
            match word.as_deref() {
                Some("loop") => {
                    let var = c.ident("a loop variable")?;
                    c.skip_ws();
                    let start = c.expr_until("..")?;
                    if !c.eat_str("..") {
                        return Err(c.error("expected `..` between the loop's start and end"));
                    }
                    let end = c.expr()?;
                    c.end()?;
                    let body = self.nested_block(indent, &l)?;
                    if body.is_empty() {
                        return Err(err(
                            l.num,
                            1,
                            "this loop has no body: indent its instructions under it",
                        ));
                    }
                    out.push(Stmt::Loop {
                        var,
                        start,
                        end,
                        body,
                        span,
                    });
                }
                Some("if") => {
                    let cond = c.expr()?;
                    c.end()?;
                    let body = self.nested_block(indent, &l)?;
                    if body.is_empty() {
                        return Err(err(
                            l.num,
                            1,
                            "this `if` has no body: indent its instructions under it",
                        ));
                    }
                    out.push(Stmt::If { cond, body, span });
                }
                Some("role") if indent > 0 => {
                    return Err(err(
                        l.num,
                        l.indent + 1,
                        "`role` must start at the beginning of its line",
                    ));
                }
                _ => {
                    c.pos = save;
                    let ins = c.instr()?;
                    out.push(Stmt::Instr(ins));
                }
            }
        }
        Ok(out)
    }
}

/// A cursor over one line's text.
struct Cursor<'a> {
    s: &'a str,
    pos: usize,
    line: u32,
    /// The column of `s`'s first byte in the source line.
    base_col: usize,
    /// How many expressions the one being parsed is nested in (parentheses, unary
    /// operators, `min(`), so that deep nesting is an error rather than a stack overflow.
    nesting: usize,
    /// The depth of the expression tree the last expression parser returned: a long
    /// flat sum is a deep tree, which every later pass would walk recursively.
    tree_depth: usize,
    /// Integer literals may carry size suffixes (`48KiB`): in declaration values.
    sizes: bool,
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}
fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

impl<'a> Cursor<'a> {
    fn new(s: &'a str, line: u32, base_col: usize) -> Cursor<'a> {
        Cursor {
            s,
            pos: 0,
            line,
            base_col,
            nesting: 0,
            tree_depth: 0,
            sizes: false,
        }
    }
    fn col(&self) -> usize {
        self.base_col + self.s[..self.pos].chars().count()
    }
    fn span(&self) -> Span {
        Span {
            line: self.line,
            col: self.col() as u32,
        }
    }
    fn error(&self, msg: impl Into<String>) -> Diagnostic {
        let found = match self.peek() {
            Some(c) => format!(", found `{c}`"),
            None => ", found the end of the line".to_string(),
        };
        err(self.line, self.col(), format!("{}{found}", msg.into()))
    }
    fn error_at(&self, byte: usize, msg: impl Into<String>) -> Diagnostic {
        err(
            self.line,
            self.base_col + self.s[..byte.min(self.s.len())].chars().count(),
            msg,
        )
    }
    fn peek(&self) -> Option<char> {
        self.s[self.pos..].chars().next()
    }
    fn peek2(&self) -> Option<char> {
        let mut it = self.s[self.pos..].chars();
        it.next();
        it.next()
    }
    fn at_end(&self) -> bool {
        self.pos >= self.s.len()
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }
    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_whitespace() {
                self.bump();
            } else {
                break;
            }
        }
    }
    fn eat(&mut self, ch: char) -> bool {
        self.skip_ws();
        if self.peek() == Some(ch) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn eat_str(&mut self, s: &str) -> bool {
        self.skip_ws();
        if self.s[self.pos..].starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, ch: char) -> PResult<()> {
        if self.eat(ch) {
            Ok(())
        } else {
            Err(self.error(format!("expected `{ch}`")))
        }
    }
    fn end(&mut self) -> PResult<()> {
        self.skip_ws();
        if self.at_end() {
            Ok(())
        } else {
            Err(self.error("expected the end of the line"))
        }
    }
    fn ident_opt(&mut self) -> Option<String> {
        self.skip_ws();
        let start = self.pos;
        match self.peek() {
            Some(c) if is_ident_start(c) => {}
            _ => return None,
        }
        while let Some(c) = self.peek() {
            if is_ident_char(c) {
                self.bump();
            } else {
                break;
            }
        }
        Some(self.s[start..self.pos].to_string())
    }
    fn ident(&mut self, what: &str) -> PResult<String> {
        self.skip_ws();
        self.ident_opt()
            .ok_or_else(|| self.error(format!("expected {what}")))
    }
    fn uint(&mut self) -> PResult<u64> {
        self.skip_ws();
        let start = self.pos;
        let hex = self.s[self.pos..].starts_with("0x") || self.s[self.pos..].starts_with("0X");
        if hex {
            self.pos += 2;
            let hs = self.pos;
            while matches!(self.peek(), Some(c) if c.is_ascii_hexdigit()) {
                self.bump();
            }
            return u64::from_str_radix(&self.s[hs..self.pos], 16)
                .map_err(|_| self.error_at(start, "expected a hexadecimal number"));
        }
        while matches!(self.peek(), Some(c) if c.is_ascii_digit()) {
            self.bump();
        }
        if start == self.pos {
            return Err(self.error("expected a number"));
        }
        self.s[start..self.pos]
            .parse::<u64>()
            .map_err(|_| self.error_at(start, "number too large"))
    }
    /// A non-negative number with an optional size suffix: K/KB/KiB (1024), M/MB/MiB, G/GB/GiB.
    fn size(&mut self) -> PResult<u64> {
        let start = self.pos;
        let v = self.uint()?;
        let save = self.pos;
        // The suffix must touch the number: `64MiB`, not `64 MiB`.
        let touching = matches!(self.peek(), Some(c) if is_ident_start(c));
        let suffix = if touching { self.ident_opt() } else { None };
        let mult = match suffix.as_deref() {
            Some("K" | "KB" | "KiB") => 1u64 << 10,
            Some("M" | "MB" | "MiB") => 1 << 20,
            Some("G" | "GB" | "GiB") => 1 << 30,
            Some(other) => {
                return Err(self.error_at(
                    save,
                    format!("unknown size suffix `{other}`; expected KiB, MiB or GiB"),
                ));
            }
            None => {
                self.pos = save;
                1
            }
        };
        v.checked_mul(mult)
            .ok_or_else(|| self.error_at(start, "size too large"))
    }
    /// `key=VALUE key=VALUE ...` to the end of the line, each VALUE a declaration value.
    fn key_values(&mut self) -> PResult<Vec<(String, usize, Value)>> {
        let mut out = Vec::new();
        loop {
            self.skip_ws();
            if self.at_end() {
                return Ok(out);
            }
            let col = self.col();
            let key = self.ident("key=VALUE")?;
            self.expect('=')?;
            self.skip_ws();
            out.push((key, col, self.decl_value()?));
        }
    }

    /// A declaration value: a size literal (`64MiB`), or an expression of parameters in
    /// which literals may carry size suffixes too (`STAGES * 48KiB`).
    fn decl_value(&mut self) -> PResult<Value> {
        self.skip_ws();
        let start = self.pos;
        let span = self.span();
        if matches!(self.peek(), Some(c) if c.is_ascii_digit()) {
            let v = self.size()?;
            let save = self.pos;
            self.skip_ws();
            // A literal alone (the next word is another key, or the line ends).
            if self.peek_binop().is_none() || self.s[self.pos..].starts_with("..") {
                self.pos = save;
                return Ok(Value::Int(v));
            }
            self.pos = start;
        }
        self.sizes = true;
        let e = self.expr();
        self.sizes = false;
        Ok(match e? {
            Expr::Int(v) if v >= 0 => Value::Int(v as u64),
            e => Value::Expr(e, span),
        })
    }

    // ----- expressions -----

    fn expr(&mut self) -> PResult<Expr> {
        self.binary(0)
    }

    /// Parses an expression that ends where `stop` begins (for `START..END`).
    fn expr_until(&mut self, stop: &str) -> PResult<Expr> {
        let end = self.s[self.pos..]
            .find(stop)
            .map(|i| self.pos + i)
            .unwrap_or(self.s.len());
        let full = self.s;
        self.s = &full[..end];
        let r = self.expr();
        let done = self.at_end() || {
            self.skip_ws();
            self.at_end()
        };
        self.s = full;
        let e = r?;
        if !done {
            return Err(self.error("expected `..`"));
        }
        Ok(e)
    }

    fn peek_binop(&self) -> Option<(BinOp, usize)> {
        let rest = &self.s[self.pos..];
        let two = [
            ("<<", BinOp::Shl),
            (">>", BinOp::Shr),
            ("<=", BinOp::Le),
            (">=", BinOp::Ge),
            ("==", BinOp::Eq),
            ("!=", BinOp::Ne),
        ];
        for (t, op) in two {
            if rest.starts_with(t) {
                return Some((op, 2));
            }
        }
        // `..` is a range, not an operator.
        let op = match rest.chars().next()? {
            '*' => BinOp::Mul,
            '/' => BinOp::Div,
            '%' => BinOp::Rem,
            '+' => BinOp::Add,
            '-' => BinOp::Sub,
            '<' => BinOp::Lt,
            '>' => BinOp::Gt,
            '&' => BinOp::And,
            '^' => BinOp::Xor,
            '|' => BinOp::Or,
            _ => return None,
        };
        Some((op, 1))
    }

    fn binary(&mut self, min_prec: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        let mut depth = self.tree_depth;
        loop {
            self.skip_ws();
            let Some((op, len)) = self.peek_binop() else {
                break;
            };
            let prec = op.precedence();
            if prec < min_prec {
                break;
            }
            let at = self.pos;
            self.pos += len;
            let rhs = self.binary(prec + 1)?;
            depth = depth.max(self.tree_depth) + 1;
            if depth > MAX_EXPR_DEPTH {
                return Err(self.too_deep(at));
            }
            lhs = Expr::bin(op, lhs, rhs);
        }
        self.tree_depth = depth;
        Ok(lhs)
    }

    /// The error for an expression deeper than [`MAX_EXPR_DEPTH`], at byte `at`.
    fn too_deep(&self, at: usize) -> Diagnostic {
        self.error_at(
            at,
            format!(
                "this expression nests more than {MAX_EXPR_DEPTH} deep (parentheses, operators, `min(`; a sum of N terms is N deep)"
            ),
        )
        .with_help("split it: compute part of it in a parameter, or simplify it")
    }

    /// An operand of a binary operator: a literal, a name, a unary operator, a
    /// parenthesized expression or `min(`/`max(`. Its nesting is limited.
    fn unary(&mut self) -> PResult<Expr> {
        self.nesting += 1;
        if self.nesting > MAX_EXPR_DEPTH {
            return Err(self.too_deep(self.pos));
        }
        let r = self.unary_inner();
        self.nesting -= 1;
        let e = r?;
        if self.tree_depth > MAX_EXPR_DEPTH {
            return Err(self.too_deep(self.pos));
        }
        Ok(e)
    }

    /// `unary` without the limit; sets `tree_depth` to the depth of what it returns.
    fn unary_inner(&mut self) -> PResult<Expr> {
        self.skip_ws();
        match self.peek() {
            Some('-') => {
                self.bump();
                self.skip_ws();
                if matches!(self.peek(), Some(c) if c.is_ascii_digit()) {
                    // A negative literal, so that i64::MIN prints and parses back.
                    let start = self.pos;
                    let v = self.uint()?;
                    self.tree_depth = 1;
                    return 0i64
                        .checked_sub_unsigned(v)
                        .map(Expr::Int)
                        .ok_or_else(|| self.error_at(start, "number too large"));
                }
                let e = self.unary()?;
                Ok(match e {
                    Expr::Int(v) => Expr::Int(v.wrapping_neg()),
                    e => {
                        self.tree_depth += 1;
                        Expr::Neg(Box::new(e))
                    }
                })
            }
            Some('~') => {
                self.bump();
                let e = self.unary()?;
                self.tree_depth += 1;
                Ok(Expr::Not(Box::new(e)))
            }
            Some('(') => {
                self.bump();
                let e = self.expr()?;
                self.expect(')')?;
                Ok(e)
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.pos;
                let v = if self.sizes {
                    self.size()?
                } else {
                    self.uint()?
                };
                self.tree_depth = 1;
                i64::try_from(v)
                    .map(Expr::Int)
                    .map_err(|_| self.error_at(start, "number too large"))
            }
            Some(c) if is_ident_start(c) => {
                let name = self.ident_opt().unwrap_or_default();
                let func = match name.as_str() {
                    "min" => Some(Func::Min),
                    "max" => Some(Func::Max),
                    "perm" => Some(Func::Perm),
                    _ => None,
                };
                if let Some(f) = func
                    && self.peek_after_ws() == Some('(')
                {
                    self.expect('(')?;
                    let a = self.expr()?;
                    let da = self.tree_depth;
                    self.expect(',')?;
                    let b = self.expr()?;
                    self.tree_depth = self.tree_depth.max(da) + 1;
                    self.expect(')')?;
                    return Ok(Expr::Call(f, Box::new(a), Box::new(b)));
                }
                self.tree_depth = 1;
                Ok(Expr::Var(name))
            }
            _ => Err(self.error("expected an expression (a number, a name or `(`)")),
        }
    }

    fn peek_after_ws(&self) -> Option<char> {
        self.s[self.pos..].trim_start().chars().next()
    }

    // ----- instructions -----

    fn instr(&mut self) -> PResult<Instr> {
        self.skip_ws();
        let span = self.span();
        let mut guard = None;
        if self.eat('@') {
            let negated = self.eat('!');
            let gcol = self.pos;
            let name = self.ident("a predicate such as P0 after `@`")?;
            let pred = match parse_reg(&name) {
                Some(r) if r.is_predicate() => r,
                _ => {
                    return Err(self.error_at(
                        gcol,
                        format!("`{name}` is not a predicate register (P0..P6, PT, UP0..UP6, UPT)"),
                    ));
                }
            };
            guard = Some(Guard { pred, negated });
        }
        self.skip_ws();
        let mstart = self.pos;
        while let Some(c) = self.peek() {
            if is_ident_char(c) || c == '.' {
                self.bump();
            } else {
                break;
            }
        }
        let mnemonic = &self.s[mstart..self.pos];
        if mnemonic.is_empty() {
            return Err(self.error("expected an instruction mnemonic such as FFMA"));
        }
        let mut parts = mnemonic.split('.');
        let base = parts.next().unwrap_or_default();
        let op = Op::from_mnemonic(base).ok_or_else(|| {
            let hint = if base.chars().any(|c| c.is_ascii_lowercase()) {
                " (mnemonics are upper case, as in SASS)"
            } else {
                ""
            };
            self.error_at(mstart, format!("unknown instruction `{base}`{hint}"))
        })?;
        let mods: Vec<String> = parts.map(str::to_string).collect();
        let mut col = mstart + base.len();
        for m in &mods {
            col += 1;
            if m.is_empty() {
                return Err(self.error_at(col, "empty modifier after `.`"));
            }
            col += m.len();
        }
        let mut operands = Vec::new();
        let mut operand_spans = Vec::new();
        self.skip_ws();
        if !self.at_end() && self.peek() != Some(';') {
            loop {
                self.skip_ws();
                operand_spans.push(self.span());
                operands.push(self.operand()?);
                self.skip_ws();
                if self.eat(',') {
                    continue;
                }
                break;
            }
        }
        self.eat(';');
        self.skip_ws();
        if !self.at_end() {
            return Err(self.error("expected `,` or the end of the instruction"));
        }
        Ok(Instr {
            guard,
            op,
            mods,
            operands,
            span,
            operand_spans: OperandSpans(operand_spans),
        })
    }

    fn operand(&mut self) -> PResult<Operand> {
        self.skip_ws();
        let start = self.pos;
        // Negated register or predicate.
        // `-R5` and `- R5` alike; `-(R5)` stays an expression.
        let minus_reg = self.s[self.pos..].strip_prefix('-').is_some_and(|rest| {
            let rest = rest.trim_start();
            rest.starts_with('R') || rest.starts_with("UR")
        });
        if self.peek() == Some('!') || minus_reg {
            let neg_char = self.bump();
            let save = self.pos;
            if let Some(name) = self.ident_opt()
                && let Some(reg) = parse_reg(&name)
            {
                let ok = match neg_char {
                    Some('!') => reg.is_predicate(),
                    _ => reg.is_data(),
                };
                if ok {
                    let reuse = self.reuse_suffix(reg);
                    return Ok(Operand::Reg {
                        reg,
                        negated: true,
                        reuse,
                    });
                }
            }
            if neg_char == Some('!') {
                return Err(self.error_at(
                    save,
                    "`!` negates a predicate register (P0..P6, PT, UP0..UP6, UPT)",
                ));
            }
            self.pos = start;
        }
        // Float immediates: digits with a `.` or an exponent.
        if let Some(f) = self.float_lit() {
            return Ok(Operand::Float(f));
        }
        let save = self.pos;
        if let Some(name) = self.ident_opt() {
            if let Some(reg) = parse_reg(&name) {
                let reuse = self.reuse_suffix(reg);
                if reuse || !self.next_is_expr_continuation() {
                    return Ok(Operand::Reg {
                        reg,
                        negated: false,
                        reuse,
                    });
                }
            }
            self.skip_ws();
            match self.peek() {
                Some('[') => {
                    self.bump();
                    let index = self.expr()?;
                    self.expect(']')?;
                    if self.next_is_expr_continuation() {
                        return Err(self.error("expected `,` or the end of the instruction"));
                    }
                    return Ok(Operand::Index { name, index });
                }
                Some('=') if self.peek2() != Some('=') => {
                    self.bump();
                    let value = self.operand()?;
                    if let Operand::Key { .. } = value {
                        return Err(
                            self.error_at(save, "a key's value cannot be another key=value")
                        );
                    }
                    return Ok(Operand::Key {
                        key: name,
                        value: Box::new(value),
                    });
                }
                _ => {}
            }
            if !self.next_is_expr_continuation() {
                return Ok(Operand::Word(name));
            }
            self.pos = save;
        }
        let e = self.expr()?;
        Ok(match e {
            Expr::Int(v) => Operand::Int(v),
            e => Operand::Expr(e),
        })
    }

    /// After a vector register: SASS's `.reuse` flag, consumed if present.
    fn reuse_suffix(&mut self, reg: Reg) -> bool {
        if matches!(reg, Reg::R(_)) && self.s[self.pos..].starts_with(".reuse") {
            self.pos += ".reuse".len();
            true
        } else {
            false
        }
    }

    /// After a name: does an operator follow, making it part of a larger expression?
    fn next_is_expr_continuation(&self) -> bool {
        let rest = self.s[self.pos..].trim_start();
        match rest.chars().next() {
            None | Some(',') | Some(';') => false,
            Some('=') => rest.starts_with("=="),
            Some(_) => {
                let c = Cursor::new(rest, 0, 0);
                c.peek_binop().is_some() || rest.starts_with('(')
            }
        }
    }

    fn float_lit(&mut self) -> Option<String> {
        let rest = &self.s[self.pos..];
        let mut end = 0;
        let b = rest.as_bytes();
        if end < b.len() && (b[end] == b'-' || b[end] == b'+') {
            end += 1;
        }
        let digits_start = end;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
        if end == digits_start {
            return None;
        }
        let mut is_float = false;
        if end < b.len() && b[end] == b'.' && !(end + 1 < b.len() && b[end + 1] == b'.') {
            is_float = true;
            end += 1;
            while end < b.len() && b[end].is_ascii_digit() {
                end += 1;
            }
        }
        if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
            let mut e = end + 1;
            if e < b.len() && (b[e] == b'-' || b[e] == b'+') {
                e += 1;
            }
            let ds = e;
            while e < b.len() && b[e].is_ascii_digit() {
                e += 1;
            }
            if e > ds {
                is_float = true;
                end = e;
            }
        }
        if !is_float {
            return None;
        }
        // A float must stand alone as the operand.
        let after = rest[end..].trim_start();
        if !(after.is_empty() || after.starts_with(',') || after.starts_with(';')) {
            return None;
        }
        let text = rest[..end].to_string();
        if text.parse::<f64>().is_err() {
            return None;
        }
        self.pos += end;
        Some(text)
    }
}
