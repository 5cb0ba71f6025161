//! The header's declarations: `launch`, `buffer`, `shared`, `mbarrier`, `barrier`, whose
//! values are literals or expressions of parameters.

use super::*;

/// A declaration's `key=VALUE`: a literal, or an expression of parameters.
pub(super) enum Value {
    Int(u64),
    Expr(Expr, Span),
}

/// `key=VALUE key=VALUE ...`, each VALUE a size literal or an expression of parameters;
/// an expression's value is deferred to [`Kernel::bind`] as `field`, and is 0 here.
pub(super) fn values(
    c: &mut Cursor,
    k: &mut Kernel,
    field: impl Fn(&str) -> Option<DeclField>,
) -> PResult<Vec<(String, usize, u64)>> {
    let mut out = Vec::new();
    for (key, col, v) in c.key_values()? {
        let v = match v {
            Value::Int(v) => v,
            Value::Expr(expr, span) => {
                if let Some(field) = field(&key) {
                    k.decl_exprs.push(DeclExpr { field, expr, span });
                }
                0
            }
        };
        out.push((key, col, v));
    }
    Ok(out)
}

/// `launch cta_threads=N regs=N smem=BYTES grid=N [cluster=N] [tmem=COLUMNS]`.
pub(super) fn launch(c: &mut Cursor, k: &mut Kernel, span: Span) -> PResult<()> {
    let mut seen_threads = false;
    let field = |key: &str| {
        Some(match key {
            "cta_threads" | "threads" => DeclField::CtaThreads,
            "regs" => DeclField::Regs,
            "smem" => DeclField::Smem,
            "grid" => DeclField::Grid,
            "cluster" => DeclField::Cluster,
            "tmem" => DeclField::Tmem,
            _ => return None,
        })
    };
    for (key, kcol, v) in values(c, k, field)? {
        let v32 = |v: u64| -> PResult<u32> {
            u32::try_from(v).map_err(|_| err(span.line, kcol, format!("`{key}` is too large")))
        };
        match key.as_str() {
            "cta_threads" | "threads" => {
                k.launch.cta_threads = v32(v)?;
                seen_threads = true;
            }
            "regs" => k.launch.regs = v32(v)?,
            "smem" => k.launch.smem = v32(v)?,
            "grid" => k.launch.grid = v32(v)?,
            "cluster" => k.launch.cluster = v32(v)?,
            "tmem" => k.launch.tmem_cols = v32(v)?,
            _ => {
                return Err(err(
                    span.line,
                    kcol,
                    format!(
                        "unknown launch setting `{key}`; expected cta_threads, regs, smem, grid, cluster or tmem"
                    ),
                ));
            }
        }
    }
    if !seen_threads {
        return Err(c.error_at(0, "`launch` needs cta_threads=N"));
    }
    Ok(())
}

/// The `size=BYTES` a `buffer` or `shared` declaration (`decl`) takes, and nothing else.
fn size_only(
    c: &mut Cursor,
    k: &mut Kernel,
    span: Span,
    name_col: usize,
    decl: &str,
    field: DeclField,
) -> PResult<u64> {
    let mut size = None;
    for (key, kcol, v) in values(c, k, |key| (key == "size").then_some(field))? {
        if key != "size" {
            return Err(err(
                span.line,
                kcol,
                format!("unknown {decl} setting `{key}`; expected size"),
            ));
        }
        size = Some(v);
    }
    size.ok_or_else(|| err(span.line, name_col, format!("`{decl}` needs size=BYTES")))
}

/// `buffer NAME [global] size=BYTES`.
pub(super) fn buffer(c: &mut Cursor, k: &mut Kernel, span: Span) -> PResult<()> {
    let name_col = c.col();
    let name = c.ident("a buffer name")?;
    // `global` is optional: buffers are global memory.
    c.skip_ws();
    let save = c.pos;
    if c.ident_opt().as_deref() != Some("global") {
        c.pos = save;
    }
    let n = k.buffers.len();
    let (mut size, mut warm) = (None, 0);
    let field = |key: &str| match key {
        "size" => Some(DeclField::BufferSize(n)),
        "warm" => Some(DeclField::BufferWarm(n)),
        _ => None,
    };
    for (key, kcol, v) in values(c, k, field)? {
        match key.as_str() {
            "size" => size = Some(v),
            "warm" => warm = v,
            _ => {
                return Err(err(
                    span.line,
                    kcol,
                    format!("unknown buffer setting `{key}`; expected size or warm"),
                ));
            }
        }
    }
    let size = size.ok_or_else(|| err(span.line, name_col, "`buffer` needs size=BYTES"))?;
    k.buffers.push(Buffer {
        name,
        size,
        warm,
        span,
    });
    Ok(())
}

/// `pred P0 = EXPR` (or `UP0`): the predicate's truth, an expression of parameters,
/// built-ins and the loop variables where a guard reads it.
pub(super) fn pred(c: &mut Cursor, k: &mut Kernel, span: Span) -> PResult<()> {
    c.skip_ws();
    let col = c.pos;
    let name = c.ident("a predicate such as P0")?;
    let reg = match parse_reg(&name) {
        Some(r @ (Reg::P(_) | Reg::Up(_))) => r,
        Some(Reg::Pt | Reg::Upt) => {
            return Err(c.error_at(
                col,
                format!("`{name}` is always true; declare P0..P6 or UP0..UP6"),
            ));
        }
        _ => {
            return Err(c.error_at(
                col,
                format!("`{name}` is not a predicate register (P0..P6, UP0..UP6)"),
            ));
        }
    };
    if k.pred(reg).is_some() {
        return Err(c.error_at(col, format!("`{name}` is declared a second time")));
    }
    c.skip_ws();
    c.expect('=')?;
    let truth = c.expr()?;
    c.end()?;
    k.preds.push(PredDecl {
        pred: reg,
        truth,
        span,
    });
    Ok(())
}

/// `shared NAME size=BYTES`.
pub(super) fn shared(c: &mut Cursor, k: &mut Kernel, span: Span) -> PResult<()> {
    let name_col = c.col();
    let name = c.ident("a shared-memory region name")?;
    let size = size_only(
        c,
        k,
        span,
        name_col,
        "shared",
        DeclField::SharedSize(k.shared.len()),
    )?;
    let size =
        u32::try_from(size).map_err(|_| err(span.line, name_col, "shared region too large"))?;
    k.shared.push(SharedAlloc { name, size, span });
    Ok(())
}

/// `mbarrier NAME[[LEN]] count=N`.
pub(super) fn mbarrier(c: &mut Cursor, k: &mut Kernel, span: Span) -> PResult<()> {
    let name = c.ident("an mbarrier name")?;
    let n = k.mbarriers.len();
    let mut len = 1;
    if c.eat('[') {
        c.skip_ws();
        let col = c.col();
        let lspan = c.span();
        match c.decl_value()? {
            Value::Int(v) => {
                len = v;
                if len == 0 {
                    return Err(err(
                        span.line,
                        col,
                        "an mbarrier array needs at least one element",
                    ));
                }
                if len > crate::limits::MAX_MBARRIERS {
                    return Err(err(
                        span.line,
                        col,
                        format!(
                            "an mbarrier array of {len} elements: a CTA holds at most {} mbarriers (each is 8 bytes of its at most 227 KiB of shared memory)",
                            crate::limits::MAX_MBARRIERS
                        ),
                    ));
                }
            }
            Value::Expr(expr, _) => k.decl_exprs.push(DeclExpr {
                field: DeclField::MbarrierLen(n),
                expr,
                span: lspan,
            }),
        }
        c.expect(']')?;
    }
    let mut count = None;
    for (key, kcol, v) in values(c, k, |key| {
        (key == "count").then_some(DeclField::MbarrierCount(n))
    })? {
        match key.as_str() {
            "count" => count = Some(v),
            _ => {
                return Err(err(
                    span.line,
                    kcol,
                    format!("unknown mbarrier setting `{key}`; expected count"),
                ));
            }
        }
    }
    let count =
        count.ok_or_else(|| c.error_at(0, "`mbarrier` needs count=N (arrivals per phase)"))?;
    k.mbarriers.push(MbarrierDecl {
        name,
        len: len as u32,
        count: count.min(u32::MAX as u64) as u32,
        span,
    });
    Ok(())
}

/// `barrier NAME id=I threads=T`.
pub(super) fn barrier(c: &mut Cursor, k: &mut Kernel, span: Span) -> PResult<()> {
    let name = c.ident("a barrier name")?;
    let n = k.named_barriers.len();
    let field = |key: &str| match key {
        "id" => Some(DeclField::BarrierId(n)),
        "threads" => Some(DeclField::BarrierThreads(n)),
        _ => None,
    };
    let (mut id, mut threads) = (None, None);
    for (key, kcol, v) in values(c, k, field)? {
        match key.as_str() {
            "id" => id = Some(v),
            "threads" => threads = Some(v),
            _ => {
                return Err(err(
                    span.line,
                    kcol,
                    format!("unknown barrier setting `{key}`; expected id or threads"),
                ));
            }
        }
    }
    let id = id.ok_or_else(|| c.error_at(0, "`barrier` needs id=0..15"))?;
    let threads = threads.ok_or_else(|| c.error_at(0, "`barrier` needs threads=N"))?;
    k.named_barriers.push(NamedBarrierDecl {
        name,
        id: id.min(u32::MAX as u64) as u32,
        threads: threads.min(u32::MAX as u64) as u32,
        span,
    });
    Ok(())
}
