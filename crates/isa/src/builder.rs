//! A Rust API that builds the same programs as the text format, for the generators in
//! `traces`.
//!
//! ```
//! use isa::builder::KernelBuilder;
//! let k = KernelBuilder::new("chain", 32)
//!     .regs(32)
//!     .param("N", 8)
//!     .role("main", 0, 0, None, |b| {
//!         b.loop_("i", 0, "N", |b| {
//!             b.ins("FFMA R1, R1, R2, R3");
//!         });
//!         b.ins("EXIT");
//!     })
//!     .build();
//! assert_eq!(isa::parse_kernel(&k.to_string()).unwrap(), k);
//! ```

use crate::ast::*;
use crate::expr::Expr;
use crate::parse::{parse_expr, parse_instr};

/// Builds a [`Kernel`] from Rust; [`KernelBuilder::build`] gives the program.
pub struct KernelBuilder {
    k: Kernel,
}

/// Something that can become an expression: an integer, or expression text.
pub trait IntoExpr {
    /// The expression.
    fn into_expr(self) -> Expr;
}

impl IntoExpr for i64 {
    fn into_expr(self) -> Expr {
        Expr::Int(self)
    }
}
impl IntoExpr for i32 {
    fn into_expr(self) -> Expr {
        Expr::Int(self as i64)
    }
}
impl IntoExpr for u32 {
    fn into_expr(self) -> Expr {
        Expr::Int(self as i64)
    }
}
impl IntoExpr for Expr {
    fn into_expr(self) -> Expr {
        self
    }
}
impl IntoExpr for &str {
    /// Generators write expressions as text; a malformed one is a bug in the generator.
    fn into_expr(self) -> Expr {
        parse_expr(self)
            .unwrap_or_else(|e| panic!("generator wrote a bad expression `{self}`: {e}"))
    }
}
impl IntoExpr for String {
    fn into_expr(self) -> Expr {
        self.as_str().into_expr()
    }
}

impl KernelBuilder {
    /// A kernel named `name` whose CTAs have `cta_threads` threads, one CTA in the grid.
    pub fn new(name: &str, cta_threads: u32) -> KernelBuilder {
        KernelBuilder {
            k: Kernel {
                name: name.to_string(),
                launch: Launch {
                    cta_threads,
                    regs: 32,
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
                preds: vec![],
                params: vec![],
                work: None,
                roles: vec![],
                decl_exprs: vec![],
            },
        }
    }

    /// Registers per thread (`launch regs=`).
    pub fn regs(mut self, regs: u32) -> Self {
        self.k.launch.regs = regs;
        self
    }
    /// Shared memory per CTA in bytes (`launch smem=`).
    pub fn smem(mut self, bytes: u32) -> Self {
        self.k.launch.smem = bytes;
        self
    }
    /// CTAs in the grid (`launch grid=`).
    pub fn grid(mut self, ctas: u32) -> Self {
        self.k.launch.grid = ctas;
        self
    }
    /// The thread-block cluster size (`launch cluster=`).
    pub fn cluster(mut self, ctas: u32) -> Self {
        self.k.launch.cluster = ctas;
        self
    }
    /// Tensor-memory columns the CTA allocates (`launch tmem=`).
    pub fn tmem(mut self, cols: u32) -> Self {
        self.k.launch.tmem_cols = cols;
        self
    }
    /// Declares a global buffer of `size` bytes.
    pub fn buffer(mut self, name: &str, size: u64) -> Self {
        self.k.buffers.push(Buffer {
            name: name.into(),
            size,
            warm: 0,
            span: Span::default(),
        });
        self
    }
    /// Declares a shared region and grows the launch's shared memory to hold it.
    pub fn shared(mut self, name: &str, size: u32) -> Self {
        self.k.shared.push(SharedAlloc {
            name: name.into(),
            size,
            span: Span::default(),
        });
        let total: u32 = self.k.shared.iter().map(|s| s.size).sum();
        self.k.launch.smem = self.k.launch.smem.max(total);
        self
    }
    /// Declares `mbarrier name[len] count=count`.
    pub fn mbarrier(mut self, name: &str, len: u32, count: u32) -> Self {
        self.k.mbarriers.push(MbarrierDecl {
            name: name.into(),
            len,
            count,
            span: Span::default(),
        });
        self
    }
    /// Declares `barrier name id=id threads=threads`.
    pub fn named_barrier(mut self, name: &str, id: u32, threads: u32) -> Self {
        self.k.named_barriers.push(NamedBarrierDecl {
            name: name.into(),
            id,
            threads,
            span: Span::default(),
        });
        self
    }
    /// Declares `param name=default`.
    pub fn param(mut self, name: &str, default: i64) -> Self {
        self.k.params.push(Param {
            name: name.into(),
            default,
            span: Span::default(),
        });
        self
    }
    /// Floating-point operations per CTA (`work flops=`).
    pub fn work_flops(mut self, flops: impl IntoExpr) -> Self {
        let w = self.k.work.get_or_insert(Work {
            flops: None,
            bytes: None,
            span: Span::default(),
        });
        w.flops = Some(flops.into_expr());
        self
    }
    /// Bytes moved per CTA (`work bytes=`).
    pub fn work_bytes(mut self, bytes: impl IntoExpr) -> Self {
        let w = self.k.work.get_or_insert(Work {
            flops: None,
            bytes: None,
            span: Span::default(),
        });
        w.bytes = Some(bytes.into_expr());
        self
    }
    /// Adds a role running warps `first..=last`.
    pub fn role(
        mut self,
        name: &str,
        first: u32,
        last: u32,
        maxnreg: Option<u32>,
        f: impl FnOnce(&mut BodyBuilder),
    ) -> Self {
        let mut b = BodyBuilder { body: vec![] };
        f(&mut b);
        self.k.roles.push(Role {
            name: name.into(),
            first_warp: first,
            last_warp: last,
            maxnreg,
            body: b.body,
            span: Span::default(),
        });
        self
    }
    /// The kernel built.
    pub fn build(self) -> Kernel {
        self.k
    }
}

/// Builds the statements of a role, loop or `if` body.
pub struct BodyBuilder {
    body: Vec<Stmt>,
}

impl BodyBuilder {
    /// Appends one instruction written as text, e.g. `LDG.E.128 R4, A[lane * 16]`.
    pub fn ins(&mut self, text: impl AsRef<str>) -> &mut Self {
        let text = text.as_ref();
        let mut i = parse_instr(text)
            .unwrap_or_else(|e| panic!("generator wrote a bad instruction `{text}`: {e}"));
        // Positions within `text` mean nothing in a built kernel.
        i.span = Span::default();
        i.operand_spans = OperandSpans::default();
        self.body.push(Stmt::Instr(i));
        self
    }
    /// Appends an instruction built in Rust.
    pub fn instr(&mut self, i: Instr) -> &mut Self {
        self.body.push(Stmt::Instr(i));
        self
    }
    /// Appends `loop var start..end` with the body `f` builds.
    pub fn loop_(
        &mut self,
        var: &str,
        start: impl IntoExpr,
        end: impl IntoExpr,
        f: impl FnOnce(&mut BodyBuilder),
    ) -> &mut Self {
        let mut b = BodyBuilder { body: vec![] };
        f(&mut b);
        self.body.push(Stmt::Loop {
            var: var.into(),
            start: start.into_expr(),
            end: end.into_expr(),
            body: b.body,
            span: Span::default(),
        });
        self
    }
    /// Appends `if cond` with the body `f` builds.
    pub fn if_(&mut self, cond: impl IntoExpr, f: impl FnOnce(&mut BodyBuilder)) -> &mut Self {
        let mut b = BodyBuilder { body: vec![] };
        f(&mut b);
        self.body.push(Stmt::If {
            cond: cond.into_expr(),
            body: b.body,
            span: Span::default(),
        });
        self
    }
}

impl Operand {
    /// The operand for an expression, in the form the parser gives it (a lone name is a
    /// word, a literal an integer).
    pub fn from_expr(e: Expr) -> Operand {
        match e {
            Expr::Int(v) => Operand::Int(v),
            Expr::Var(n) => Operand::Word(n),
            e => Operand::Expr(e),
        }
    }

    /// The operand read as an integer expression, where it is one.
    pub fn as_expr(&self) -> Option<Expr> {
        match self {
            Operand::Int(v) => Some(Expr::Int(*v)),
            Operand::Expr(e) => Some(e.clone()),
            Operand::Word(w) => Some(Expr::Var(w.clone())),
            _ => None,
        }
    }
}
