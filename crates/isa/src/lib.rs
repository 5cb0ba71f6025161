//! The smsim instruction set and kernel text format.
//!
//! A kernel file describes one CTA's program and its launch: SASS-flavoured instructions
//! with real register operands, grouped into warp roles, with structured loops and
//! integer expressions for addresses, barrier indices and phase parities.
//!
//! - [`opcode`]: the opcodes, their pipes and result latency classes.
//! - [`ast`]: the program tree.
//! - [`parse`] and [`print`](mod@print): the text format, both directions.
//! - [`builder`]: the same programs from Rust.
//! - [`validate`](mod@validate): semantic checks with positioned diagnostics.
//! - [`occupancy`]: CTAs per SM by the CUDA occupancy calculator's rules.
//!
//! - [`limits`]: the hardware limits validation checks against.
//! - [`textgen`]: a grammar-aware generator of kernel text, for fuzzing.
//!
//! The kernel grammar is described in `docs/grammar.md`. This crate depends on nothing
//! else of smsim's.
//!
//! ```
//! let src = "
//! kernel saxpy
//! launch cta_threads=64 regs=32 grid=4
//! buffer X size=1MiB
//! param N=4
//!
//! role main warps=0..1
//!   loop i 0..N
//!     LDG.E R2, X[(i * 64 + warp * 32 + lane) * 4]
//!     FFMA R4, R2, R3, R4
//!   EXIT
//! ";
//! let kernel = isa::parse_kernel(src).expect("parses");
//! assert!(isa::validate(&kernel).is_empty(), "validates");
//! assert_eq!(kernel.static_instr_count(), 3);
//!
//! // A mistake is reported at its line and column, with help.
//! let bad = isa::parse_kernel(&src.replace("X[", "Y[")).expect("parses");
//! let diags = isa::validate(&bad);
//! assert_eq!(diags[0].to_string(), "9:15: no buffer, shared region or mbarrier is named `Y`");
//! ```

#![warn(missing_docs)]

pub mod ast;
pub mod builder;
pub mod diag;
pub mod expr;
pub mod limits;
pub mod occupancy;
pub mod opcode;
pub mod parse;
pub mod print;
pub mod textgen;
pub mod validate;

pub use ast::{Instr, Kernel, Operand, Reg, Role, Span, Stmt};
pub use diag::Diagnostic;
pub use expr::Expr;
pub use opcode::{Op, Pipe};
pub use parse::{parse_expr, parse_instr, parse_kernel};
pub use validate::validate;
