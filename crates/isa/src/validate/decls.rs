//! The header: names, shared regions, mbarriers, named barriers, `work`, the launch
//! line's limits, and the roles' warp ranges and register budgets.

use super::*;
use crate::expr::EvalError;

impl<'k> Validator<'k> {
    pub(super) fn declarations(&mut self) {
        let k = self.k;
        // Every name lives in one namespace: a memory operand `X[...]` must say one thing.
        let mut seen: HashMap<&str, (&str, Span)> = HashMap::new();
        let mut names: Vec<(&str, &str, Span)> = Vec::new();
        names.extend(
            k.buffers
                .iter()
                .map(|b| (b.name.as_str(), "buffer", b.span)),
        );
        names.extend(
            k.shared
                .iter()
                .map(|b| (b.name.as_str(), "shared region", b.span)),
        );
        names.extend(
            k.mbarriers
                .iter()
                .map(|b| (b.name.as_str(), "mbarrier", b.span)),
        );
        names.extend(
            k.named_barriers
                .iter()
                .map(|b| (b.name.as_str(), "barrier", b.span)),
        );
        names.extend(
            k.params
                .iter()
                .map(|b| (b.name.as_str(), "parameter", b.span)),
        );
        names.sort_by_key(|(_, _, s)| (s.line, s.col));
        for (name, what, span) in names {
            if let Some((w0, s0)) = seen.get(name) {
                let msg = format!(
                    "`{name}` is declared twice: as a {w0} on line {} and as a {what} here",
                    s0.line
                );
                self.error_help(span, msg, "give each declaration its own name");
                continue;
            }
            seen.insert(name, (what, span));
            let reserved = BUILTIN_VARS.contains(&name)
                || matches!(name, "local" | "tmem" | "gsb0" | "min" | "max" | "perm")
                || parse_reg(name).is_some()
                || parse_reg(&name.to_ascii_uppercase()).is_some() && name.len() <= 4;
            if reserved {
                let msg =
                    format!("`{name}` cannot name a {what}: it is a register or a built-in name");
                self.error_help(
                    span,
                    msg,
                    "register names (R0..R254, RZ, P0..P6, PT, UR0..UR62, URZ, UP0..UP6, UPT), `warp`, `lane`, `warpgroup`, `cta`, `local`, `tmem`, `gsb0`, `min`, `max` and `perm` are reserved",
                );
            }
        }

        for b in &k.buffers {
            if b.warm > b.size {
                let msg = format!(
                    "buffer `{}` has warm={} bytes, more than its size={}",
                    b.name, b.warm, b.size
                );
                self.error_help(
                    b.span,
                    msg,
                    "warm= is how many of the buffer's first bytes start in L2: at most its size",
                );
            }
        }

        let mut shared_total: u64 = 0;
        let mut reported_over = false;
        for s in &k.shared {
            if s.size == 0 {
                self.error(s.span, format!("shared region `{}` has size 0", s.name));
            }
            shared_total += s.size as u64;
            if shared_total > k.launch.smem as u64 && !reported_over {
                reported_over = true;
                let msg = format!(
                    "shared regions add up to {shared_total} bytes with `{}`, more than the launch's smem={}",
                    s.name, k.launch.smem
                );
                self.error_help(
                    s.span,
                    msg,
                    format!(
                        "raise smem= on the launch line to at least {shared_total}, or shrink the regions"
                    ),
                );
            }
        }

        let mut mbarriers = 0u64;
        for m in &k.mbarriers {
            mbarriers += u64::from(m.len);
            if mbarriers > MAX_MBARRIERS {
                let msg = format!(
                    "{} declared up to `{}`: a CTA holds at most {MAX_MBARRIERS} (each is 8 bytes of its at most 227 KiB of shared memory)",
                    plural(mbarriers, "mbarrier", "mbarriers"),
                    m.name
                );
                self.error(m.span, msg);
                break;
            }
        }
        for m in &k.mbarriers {
            if m.count == 0 || m.count > MAX_MBARRIER_COUNT {
                let msg = format!(
                    "mbarrier `{}` has count={}: an mbarrier expects 1 to {MAX_MBARRIER_COUNT} arrivals per phase",
                    m.name, m.count
                );
                self.error(m.span, msg);
            }
        }

        let mut by_id: HashMap<u32, &NamedBarrierDecl> = HashMap::new();
        for b in &k.named_barriers {
            if b.id >= NAMED_BARRIERS {
                self.error_help(
                    b.span,
                    format!("barrier `{}` has id={}, outside 0..15", b.name, b.id),
                    "a CTA has 16 hardware named barriers, ids 0 to 15",
                );
            } else if let Some(prev) = by_id.get(&b.id) {
                if prev.threads != b.threads {
                    let msg = format!(
                        "barriers `{}` and `{}` both use id {} but with different thread counts ({} and {})",
                        prev.name, b.name, b.id, prev.threads, b.threads
                    );
                    self.error(b.span, msg);
                }
            } else {
                by_id.insert(b.id, b);
            }
            self.check_thread_count(b.span, b.threads as i64, &format!("barrier `{}`", b.name));
        }

        if let Some(w) = &k.work {
            for (what, e) in [("flops", &w.flops), ("bytes", &w.bytes)] {
                let Some(e) = e else { continue };
                self.check_vars(e, w.span, &[], Allow::Bounds, "`work`");
                // (Expressions wrap on overflow, as a 64-bit register does.)
                let value = e.eval(&|n| k.param(n));
                if let Err(why @ (EvalError::DivideByZero | EvalError::BadShift(_))) = &value {
                    let msg = format!("`work {what}=` has no value: {why}");
                    self.error(w.span, msg);
                }
                if let Ok(v) = value
                    && v < 0
                {
                    self.error(
                        w.span,
                        format!("`work {what}=` comes to {v}: a CTA's work is not negative (does its product overflow 64 bits?)"),
                    );
                }
            }
        }
    }

    /// A barrier's thread count: a whole number of warps, at most the CTA.
    pub(super) fn check_thread_count(&mut self, span: Span, n: i64, what: &str) {
        let cta = self.cta_threads() as i64;
        if n <= 0 || n % 32 != 0 {
            let msg = format!("{what} counts {n} threads, which is not a whole number of warps");
            self.error_help(
                span,
                msg,
                "barriers count whole warps: use a positive multiple of 32",
            );
        } else if n > cta {
            let msg = format!("{what} waits for {n} threads but the CTA has only {cta}");
            self.error_help(
                span,
                msg,
                "the barrier could never complete; count at most cta_threads",
            );
        }
    }

    // ----- launch -----

    pub(super) fn launch(&mut self) {
        let l = &self.k.launch;
        let span = l.span;
        if l.cta_threads == 0 || l.cta_threads > MAX_CTA_THREADS {
            self.error_help(
                span,
                format!("cta_threads={} is outside 1..=1024", l.cta_threads),
                "a CTA has 1 to 1024 threads",
            );
        }
        if l.regs > MAX_REGS_PER_THREAD {
            self.error_help(
                span,
                format!("regs={} is more than a thread can have", l.regs),
                "a thread addresses at most 255 registers (R0..R254)",
            );
        }
        if l.regs == 0 && self.k.roles.iter().any(|r| r.maxnreg.is_none()) {
            self.error_help(
                span,
                "the launch gives no registers per thread",
                "add regs=N to the launch line (the register budget of roles without maxnreg=)",
            );
        }
        if l.smem > MAX_SMEM_PER_BLOCK {
            let msg = format!(
                "smem={} bytes ({:.1} KiB) is over the {} bytes (227 KB) one block may use",
                l.smem,
                l.smem as f64 / 1024.0,
                MAX_SMEM_PER_BLOCK
            );
            self.error_help(
                span,
                msg,
                "on Hopper a block can opt in to at most 227 KB of shared memory; shrink the pipeline or its stages",
            );
        }
        if l.grid == 0 {
            self.error(span, "grid=0: the launch needs at least one CTA");
        }
        if l.cluster == 0 || l.cluster > MAX_CLUSTER {
            self.error_help(
                span,
                format!("cluster={} is outside 1..={MAX_CLUSTER}", l.cluster),
                "a thread-block cluster has 1 to 8 CTAs (16 non-portably)",
            );
        } else if !l.grid.is_multiple_of(l.cluster) {
            let msg = format!(
                "grid={} is not a whole number of clusters of {}",
                l.grid, l.cluster
            );
            self.error(span, msg);
        }
        if l.tmem_cols != 0
            && (!l.tmem_cols.is_power_of_two() || l.tmem_cols < 32 || l.tmem_cols > TMEM_COLUMNS)
        {
            self.error_help(
                span,
                format!("tmem={} columns cannot be allocated", l.tmem_cols),
                "tensor memory is allocated in powers of two from 32 to 512 columns",
            );
        }
    }

    // ----- roles -----

    pub(super) fn roles(&mut self) {
        let k = self.k;
        let warps = k.warps();
        // Per-warp checks look at a CTA's worth of warps at most (a bigger cta_threads
        // is reported by `launch`).
        let scan = warps.min(MAX_CTA_THREADS / 32);
        if k.roles.is_empty() {
            self.error_help(
                k.launch.span,
                "the kernel has no roles: nothing runs",
                "add `role main warps=0..N` with an indented body",
            );
            return;
        }
        let mut names: HashMap<&str, u32> = HashMap::new();
        for r in &k.roles {
            if let Some(line) = names.insert(&r.name, r.span.line) {
                self.error(
                    r.span,
                    format!(
                        "a second role named `{}` (the first is on line {line})",
                        r.name
                    ),
                );
            }
            if r.last_warp >= warps {
                let msg = format!(
                    "role `{}` runs {} but the CTA has {} ({} threads)",
                    r.name,
                    warps_text(r.first_warp, r.last_warp),
                    plural(warps as u64, "warp", "warps"),
                    k.launch.cta_threads
                );
                let help = if warps == 0 {
                    "set cta_threads on the launch line".to_string()
                } else {
                    format!(
                        "warps are numbered 0..{}; raise cta_threads to {} or renumber the role",
                        warps - 1,
                        (r.last_warp + 1) * 32
                    )
                };
                self.error_help(r.span, msg, help);
            }
            if let Some(m) = r.maxnreg
                && (!(24..=256).contains(&m) || m % 8 != 0)
            {
                let msg = format!("role `{}` has maxnreg={m}", r.name);
                self.error_help(
                    r.span,
                    msg,
                    "setmaxnreg takes a multiple of 8 from 24 to 256",
                );
            }
        }
        for (i, a) in k.roles.iter().enumerate() {
            for b in &k.roles[..i] {
                let lo = a.first_warp.max(b.first_warp);
                let hi = a.last_warp.min(b.last_warp);
                if lo <= hi {
                    let msg = format!(
                        "roles `{}` and `{}` overlap: both run {}",
                        b.name,
                        a.name,
                        warps_text(lo, hi)
                    );
                    self.error_help(
                        a.span,
                        msg,
                        "each warp runs exactly one role; make the warp ranges disjoint",
                    );
                }
            }
        }
        // Warps with no role.
        let mut w = 0;
        while w < scan {
            if k.role_of(w).is_some() {
                w += 1;
                continue;
            }
            let start = w;
            while w < scan && k.role_of(w).is_none() {
                w += 1;
            }
            let msg = format!(
                "{} of the CTA {} no role: every warp needs a body",
                warps_text(start, w - 1),
                if w - 1 == start { "has" } else { "have" }
            );
            let help = format!(
                "add a role for them (`role idle warps={start}..{}` with `EXIT` as its body), or lower cta_threads",
                w - 1
            );
            self.error_help(k.launch.span, msg, help);
        }
        // setmaxnreg acts on whole warpgroups: the warps of one must agree on a budget.
        let budget = |r: &Role| r.maxnreg.unwrap_or(k.launch.regs);
        for wg in 0..scan.div_ceil(4) {
            let members: Vec<&Role> = (wg * 4..(wg * 4 + 4).min(scan))
                .filter_map(|w| k.role_of(w).map(|i| &k.roles[i]))
                .collect();
            let Some(first) = members.first() else {
                continue;
            };
            if members.iter().any(|r| r.maxnreg.is_some())
                && let Some(other) = members.iter().find(|r| budget(r) != budget(first))
            {
                let msg = format!(
                    "warpgroup {wg} mixes register budgets: role `{}` has {} and role `{}` has {}",
                    first.name,
                    budget(first),
                    other.name,
                    budget(other)
                );
                self.error_help(
                    other.span,
                    msg,
                    "setmaxnreg changes the registers of a whole warpgroup (4 warps); give its warps the same maxnreg=",
                );
            }
        }
        // setmaxnreg moves registers within the CTA's launch allocation.
        if k.roles.iter().any(|r| r.maxnreg.is_some()) && k.launch.regs > 0 {
            let pool = k.launch.regs as u64 * 32 * warps as u64;
            let demand: u64 = k
                .roles
                .iter()
                .map(|r| budget(r) as u64 * 32 * r.warp_count().min(warps) as u64)
                .sum();
            if demand > pool {
                let parts: Vec<String> = k
                    .roles
                    .iter()
                    .map(|r| format!("{} x {}", r.warp_count() * 32, budget(r)))
                    .collect();
                let msg = format!(
                    "the roles' register budgets need {demand} registers per CTA ({}) but the launch allocates {pool} (regs={} x {} threads)",
                    parts.join(" + "),
                    k.launch.regs,
                    warps * 32
                );
                self.error_help(
                    k.launch.span,
                    msg,
                    "setmaxnreg.inc waits until registers are free in the CTA's pool, so it would wait forever; raise regs= or lower a maxnreg=",
                );
            }
        }
    }

    /// Declaration values written as expressions: parameters only, and a value for the
    /// parameters given that the declaration can hold. False when one has none (the
    /// other checks would only see the 0 it was given).
    pub(super) fn decl_exprs(&mut self) -> bool {
        let k = self.k;
        let before = self.diags.len();
        for d in &k.decl_exprs {
            let key = d.field.key();
            let what = format!("a declaration's `{key}`");
            if !self.check_vars(&d.expr, d.span, &[], Allow::Bounds, &what) {
                continue;
            }
            let e = &d.expr;
            match k.decl_value(d) {
                Ok(0) if matches!(d.field, DeclField::MbarrierLen(_)) => {
                    let msg = format!("the mbarrier array's length `{e}` comes to 0");
                    self.error_help(d.span, msg, "an mbarrier array needs at least one element");
                }
                Ok(_) => {}
                Err(BindError::Eval(why)) => {
                    let msg = format!("`{e}` (the declaration's `{key}`) has no value: {why}");
                    self.error(d.span, msg);
                }
                Err(BindError::Range(v)) => {
                    let msg = format!(
                        "`{e}` (the declaration's `{key}`) comes to {v}, outside 0..={}",
                        d.field.max()
                    );
                    self.error_help(d.span, msg, "check the parameters' values");
                }
            }
        }
        self.diags.len() == before
    }
}
