//! The smsim instruction set and kernel text format.
//!
//! A kernel file describes one CTA's program and its launch: SASS-flavoured instructions
//! with real register operands, grouped into warp roles, with structured loops and
//! integer expressions for addresses, barrier indices and phase parities.
//!
//! - [`opcode`]: the opcodes, their pipes and result latency classes.
//! - [`ast`]: the program tree.
//! - [`parse`] and [`print`]: the text format, both directions.
//! - [`builder`]: the same programs from Rust.
//! - [`validate`]: semantic checks with positioned diagnostics.
//! - [`occupancy`]: CTAs per SM by the CUDA occupancy calculator's rules.
//!
//! This crate depends on nothing else of smsim's.

pub mod ast;
pub mod builder;
pub mod diag;
pub mod expr;
pub mod limits;
pub mod occupancy;
pub mod opcode;
pub mod parse;
pub mod print;
pub mod validate;

pub use ast::{Instr, Kernel, Operand, Reg, Role, Span, Stmt};
pub use diag::Diagnostic;
pub use expr::Expr;
pub use opcode::{Op, Pipe};
pub use parse::{parse_expr, parse_instr, parse_kernel};
pub use validate::validate;
