//! Each op's own rules, beyond the operand counts and kinds of its form: values in
//! range, wait depths, copy sizes, tensor boxes, MMA accumulators, and the uses of
//! mbarriers that the whole-program checks in `sync` read.

use super::shape::Positional;
use super::*;

impl<'k> Validator<'k> {
    /// The rules of `ins`'s op; `counted` says its operand count was right.
    pub(super) fn op_rules(
        &mut self,
        rc: &RoleCtx,
        ins: &Instr,
        pos: &Positional,
        counted: bool,
        scope: &[ScopeVar],
    ) {
        let mnem = ins.mnemonic();
        match ins.op {
            Op::Depbar if counted => {
                let sb = matches!(pos[0].1, Operand::Word(w) if w.eq_ignore_ascii_case("SB0") || w.eq_ignore_ascii_case("SB1"));
                if !sb {
                    self.error_help(
                        ins.operand_span(pos[0].0),
                        format!("`{mnem}` waits on SB0 or SB1, not `{}`", pos[0].1),
                        "SB0 counts cp.async groups (LDGDEPBAR), SB1 bulk-store groups (UTMACMDFLUSH)",
                    );
                }
                let sb0 = matches!(pos[0].1, Operand::Word(w) if w.eq_ignore_ascii_case("SB0"));
                if ins.has_mod("READ") && sb0 {
                    self.error_help(
                        ins.span,
                        format!("`{mnem}` waits until bulk stores have read shared memory, which SB0 (cp.async groups) does not count"),
                        "write `DEPBAR.LE.READ SB1, N` (cp.async.bulk.wait_group.read N)",
                    );
                }
                self.depth(ins, pos[1].0, pos[1].1);
            }
            Op::Ublkcp if counted && self.bulk_store(ins, pos) => {
                let b = self.const_key(ins, "bytes");
                self.copy_bytes(ins, b);
            }
            Op::Ublkcp | Op::Utmaldg => {
                if let Some(name) = self.mbar_key(ins, "bar") {
                    self.mbar_uses
                        .entry(name)
                        .or_default()
                        .complete_tx
                        .push(ins.span);
                }
                let b = self.const_key(ins, "bytes");
                self.copy_bytes(ins, b);
                if ins.op == Op::Utmaldg {
                    let (row, pitch) = (self.const_key(ins, "row"), self.const_key(ins, "pitch"));
                    self.tensor_box(ins, b, row, pitch);
                }
            }
            Op::Utmastg => {
                let b = self.const_key(ins, "bytes");
                self.copy_bytes(ins, b);
            }
            Op::Syncs => self.syncs(ins, pos),
            Op::Hgmma if counted => {
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
            Op::Warpgroup if counted && !ins.has_mod("ARRIVE") && ins.has_mod("DEPBAR") => {
                if !matches!(pos[0].1, Operand::Word(w) if w.eq_ignore_ascii_case("gsb0")) {
                    self.error_help(
                        ins.operand_span(pos[0].0),
                        format!("`{mnem}` waits on gsb0, not `{}`", pos[0].1),
                        "write `WARPGROUP.DEPBAR.LE gsb0, N`",
                    );
                }
                self.depth(ins, pos[1].0, pos[1].1);
            }
            Op::Setmaxnreg if counted => self.setmaxnreg(rc, ins, pos),
            Op::Utcmma => {
                self.two_cta(ins);
                self.tmem_accumulator(rc, ins, pos, scope);
            }
            Op::Utcbar => {
                self.two_cta(ins);
                if let Some(name) = self.mbar_of(pos, 0) {
                    self.mbar_uses
                        .entry(name)
                        .or_default()
                        .arrive
                        .push(ins.span);
                }
            }
            Op::Tmemalloc | Op::Tmemdealloc => self.tmem_cols(ins),
            Op::Bar => self.bar(rc, ins, pos, scope),
            _ => {}
        }
    }

    /// `UBLKCP`'s direction from its operands: true for a bulk store (shared to
    /// global), which takes no `bar=`; a copy into shared memory needs one. Both
    /// operands in one space, or `.S.G` / `.G.S` saying the other direction, are
    /// reported.
    fn bulk_store(&mut self, ins: &Instr, pos: &Positional) -> bool {
        let mnem = ins.mnemonic();
        let space = |o: &Operand| match o {
            Operand::Index { name, .. } => self.k.space_of(name),
            _ => None,
        };
        let (Some(dst), Some(src)) = (space(pos[0].1), space(pos[1].1)) else {
            return false;
        };
        if dst == src {
            self.error_help(
                ins.operand_span(pos[1].0),
                format!("`{mnem}` copies between global and shared memory, not within one"),
                "write `UBLKCP.S.G SHARED[off], BUFFER[off], bytes=N, bar=MBAR[i]` (into shared memory) or `UBLKCP.G.S BUFFER[off], SHARED[off], bytes=N` (a bulk store)",
            );
            return true;
        }
        let store = dst == Space::Global;
        // `.S.G`: to shared from global; `.G.S`: to global from shared.
        let first = ins.mods.iter().find(|m| *m == "S" || *m == "G");
        if let Some(m) = first
            && (m == "G") != store
        {
            self.error_help(
                ins.span,
                format!(
                    "`{mnem}` says {} but its destination is {}",
                    if m == "G" {
                        "global memory first (a store)"
                    } else {
                        "shared memory first (a load)"
                    },
                    if store { "global memory" } else { "shared memory" }
                ),
                "the modifiers name the destination, then the source: `.S.G` copies into shared memory, `.G.S` out of it",
            );
        }
        match (store, ins.key("bar").is_some()) {
            (true, true) => self.error_help(
                ins.key_span("bar"),
                format!("`{mnem}` is a bulk store (shared to global): it completes through bulk groups, not an mbarrier"),
                "drop bar=; commit with UTMACMDFLUSH and wait with `DEPBAR.LE SB1, N` (or `DEPBAR.LE.READ SB1, N` to reuse the shared memory)",
            ),
            (false, false) => self.error_help(
                ins.span,
                format!("`{mnem}` copies into shared memory and needs bar=MBAR[i], the mbarrier its bytes complete on"),
                "write `UBLKCP.S.G SHARED[off], BUFFER[off], bytes=N, bar=MBAR[i]`",
            ),
            _ => {}
        }
        store
    }

    /// `SYNCS`: the values of its keys, and its uses of the mbarrier.
    fn syncs(&mut self, ins: &Instr, pos: &Positional) {
        let mnem = ins.mnemonic();
        if ins.has_mod("EXCH") {
            if let Some(c) = self.const_key(ins, "count")
                && (c <= 0 || c > MAX_MBARRIER_COUNT as i64)
            {
                self.error(
                    ins.key_span("count"),
                    format!("count={c}: an mbarrier expects 1 to {MAX_MBARRIER_COUNT} arrivals"),
                );
            }
        } else if ins.has_mod("ARRIVE") {
            if !ins.has_mod("REMOTE") && ins.key("cta").is_some() {
                self.error_help(
                    ins.key_span("cta"),
                    format!("`{mnem}` has `cta=` but is not .REMOTE"),
                    "arrive on another CTA's mbarrier with SYNCS.ARRIVE.TRANS64.REMOTE",
                );
            }
            if let Some(b) = self.const_key(ins, "bytes")
                && b < 0
            {
                self.error(ins.key_span("bytes"), format!("bytes={b} is negative"));
            }
            if let Some(c) = self.const_key(ins, "count")
                && c <= 0
            {
                self.error(
                    ins.key_span("count"),
                    format!("count={c}: an arrival counts at least 1"),
                );
            }
            if let Some(name) = self.mbar_of(pos, 0) {
                let u = self.mbar_uses.entry(name).or_default();
                u.arrive.push(ins.span);
                if ins.key("bytes").is_some() {
                    u.expect_tx.push(ins.span);
                }
            }
        } else if ins.has_mod("PHASECHK") || ins.has_mod("TRYWAIT") {
            if let Some(p) = self.const_key(ins, "parity")
                && p != 0
                && p != 1
            {
                self.error(
                    ins.key_span("parity"),
                    format!("parity={p}: a phase parity is 0 or 1"),
                );
            }
            if let Some(name) = self.mbar_of(pos, 0) {
                self.mbar_uses.entry(name).or_default().wait.push(ins.span);
            }
        }
    }

    /// `SETMAXNREG.INC N`: a budget setmaxnreg can set, and the one the role declares.
    fn setmaxnreg(&mut self, rc: &RoleCtx, ins: &Instr, pos: &Positional) {
        let mnem = ins.mnemonic();
        let v = match pos[0].1 {
            Operand::Int(v) => Some(*v),
            Operand::Expr(e) => self.constant(e),
            Operand::Word(w) => self.params.get(w.as_str()).copied(),
            _ => None,
        };
        let Some(v) = v else { return };
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

    /// A UTCMMA's accumulator occupies N columns (fp32, M = 128 lanes) from its column.
    fn tmem_accumulator(
        &mut self,
        rc: &RoleCtx,
        ins: &Instr,
        pos: &Positional,
        scope: &[ScopeVar],
    ) {
        let (Some(Ok(shape)), Some((i, Operand::Index { index, .. }))) =
            (ins.mma_shape(), pos.first())
        else {
            return;
        };
        if self.k.launch.tmem_cols == 0 {
            return;
        }
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
        let container = format!("the CTA allocates {cols} columns (0..={})", cols - 1);
        self.check_range(
            ins.operand_span(*i),
            iv,
            cols,
            &subject,
            &container,
            "allocate more columns (tmem= on the launch line) or start the accumulator lower",
        );
    }

    /// `TMEMALLOC cols=N`: an allocatable column count within the launch's.
    fn tmem_cols(&mut self, ins: &Instr) {
        let mnem = ins.mnemonic();
        let Some(c) = self.const_key(ins, "cols") else {
            return;
        };
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

    /// The mbarrier `key=` names; anything else there is reported.
    fn mbar_key(&mut self, ins: &Instr, key: &str) -> Option<String> {
        match ins.key(key)? {
            Operand::Index { name, .. } if self.k.mbarrier(name).is_some() => Some(name.clone()),
            Operand::Index { name, .. } if self.k.space_of(name).is_none() => None,
            other => {
                self.error_help(
                    ins.key_span(key),
                    format!("`{key}=` names an mbarrier, not `{other}`"),
                    format!("write `{key}=NAME[i]` with an mbarrier declared in the header"),
                );
                None
            }
        }
    }

    /// The mbarrier positional operand `n` names, if it names one.
    fn mbar_of(&self, pos: &Positional, n: usize) -> Option<String> {
        match pos.get(n)?.1 {
            Operand::Index { name, .. } if self.k.mbarrier(name).is_some() => Some(name.clone()),
            _ => None,
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
