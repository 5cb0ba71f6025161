//! Static hazards of the asynchronous protocols (issue 29's race checker, the part that
//! needs no timing): a stage released while an MMA or a bulk store may still read it,
//! and an mbarrier whose count the warps arriving on it overrun.
//!
//! Stage releases are found by walking each role's program for its first warp with
//! concrete values (parameters, loop trips, `if`s; guarded instructions run, as in the
//! simulator), up to [`STEPS`] instructions a role. A stage is an mbarrier element: the
//! shared memory a role's bulk copies fill after it waits on that element is what the
//! element guards. An arrive on the element while a wgmma or a bulk store that reads
//! that memory may still be in flight (not in a committed group that a wait has
//! covered) is a race: the producer may overwrite the data the MMA still reads.

use super::*;

/// Instructions walked per role: enough for several trips around any pipeline's ring,
/// and a bound on the time the check takes.
pub const STEPS: usize = 20_000;

/// Shared-memory bytes `region[lo..hi)`.
type Bytes<'k> = (&'k str, i64, i64);

/// One thing the walk saw, with concrete indices and offsets.
enum Ev<'k> {
    /// A wait on an mbarrier element: the copies that follow fill what it guards.
    Wait(&'k str, i64),
    /// A bulk copy fills `region[lo..hi)`, completing on the mbarrier named.
    Fill(&'k str, i64, i64, Option<&'k str>),
    /// A wgmma reads these shared addresses; `commit` closes its group (`gsb0`).
    Mma {
        ins: &'k Instr,
        reads: Vec<Bytes<'k>>,
        commit: bool,
    },
    /// `WARPGROUP.DEPBAR.LE gsb0, N`.
    MmaWait(&'k Instr, i64),
    /// A bulk store reads `region[lo..hi)`.
    Store(&'k Instr, &'k str, i64, i64),
    /// `UTMACMDFLUSH`: the bulk stores so far form a group.
    StoreCommit,
    /// `DEPBAR.LE SB1, N`.
    StoreWait(&'k Instr, i64),
    /// A plain arrive (no transaction bytes) on an mbarrier element: a release of what
    /// it guards. (An arrive with bytes announces a fill instead.)
    Arrive(&'k Instr, &'k str, i64),
}

/// Walks one warp's program with concrete values.
struct Walk<'a, 'k> {
    params: &'a HashMap<&'k str, i64>,
    warp: i64,
    vars: Vec<(&'k str, i64)>,
    steps: usize,
    events: Vec<Ev<'k>>,
}

impl<'k> Walk<'_, 'k> {
    fn eval(&self, e: &Expr) -> Option<i64> {
        e.eval(&|n| {
            if let Some((_, v)) = self.vars.iter().rev().find(|(m, _)| *m == n) {
                return Some(*v);
            }
            if let Some(v) = self.params.get(n) {
                return Some(*v);
            }
            match n {
                "warp" => Some(self.warp),
                "warpgroup" => Some(self.warp / 4),
                "lane" | "cta" => Some(0),
                _ => None,
            }
        })
        .ok()
    }

    /// False once the step budget is spent (or a value is unknown): the walk stops.
    fn body(&mut self, body: &'k [Stmt]) -> bool {
        for s in body {
            let go = match s {
                Stmt::Instr(i) => self.instr(i),
                Stmt::Loop {
                    var,
                    start,
                    end,
                    body,
                    ..
                } => {
                    let (Some(a), Some(b)) = (self.eval(start), self.eval(end)) else {
                        return false;
                    };
                    let mut go = true;
                    let mut v = a;
                    // Each trip is a step too: a loop whose body runs nothing (an `if`
                    // that never holds) must not walk its trips for ever.
                    while go && v < b && self.step() {
                        self.vars.push((var, v));
                        go = self.body(body);
                        self.vars.pop();
                        v += 1;
                    }
                    go
                }
                Stmt::If { cond, body, .. } if !self.step() => return false,
                Stmt::If { cond, body, .. } => match self.eval(cond) {
                    Some(0) => true,
                    Some(_) => self.body(body),
                    None => false,
                },
            };
            if !go {
                return false;
            }
        }
        true
    }

    /// The element an `NAME[EXPR]` operand names, evaluated.
    fn at(&self, o: Option<&'k Operand>) -> Option<(&'k str, i64)> {
        match o? {
            Operand::Index { name, index } => Some((name, self.eval(index)?)),
            _ => None,
        }
    }

    fn bytes(&self, ins: &Instr) -> Option<i64> {
        match ins.key("bytes")? {
            Operand::Int(v) => Some(*v),
            Operand::Expr(e) => self.eval(e),
            Operand::Word(w) => self.eval(&Expr::Var(w.clone())),
            _ => None,
        }
    }

    /// Takes one step of the budget; false when it is spent.
    fn step(&mut self) -> bool {
        if self.steps == 0 {
            return false;
        }
        self.steps -= 1;
        true
    }

    fn instr(&mut self, ins: &'k Instr) -> bool {
        if !self.step() {
            return false;
        }
        let mut pos = ins.positional();
        let ev = match ins.op {
            Op::Syncs if ins.has_mod("PHASECHK") || ins.has_mod("TRYWAIT") => {
                self.at(pos.next()).map(|(m, i)| Ev::Wait(m, i))
            }
            Op::Syncs
                if ins.has_mod("ARRIVE")
                    && !ins.has_mod("REMOTE")
                    && !ins.has_mod("EXPECT_TX")
                    && ins.key("bytes").is_none() =>
            {
                self.at(pos.next()).map(|(m, i)| Ev::Arrive(ins, m, i))
            }
            // (A valid UBLKCP without `bar=` is a bulk store, shared to global.)
            Op::Ublkcp if ins.key("bar").is_none() => {
                match (self.at(pos.nth(1)), self.bytes(ins)) {
                    (Some((r, lo)), Some(b)) => Some(Ev::Store(ins, r, lo, lo.saturating_add(b))),
                    _ => None,
                }
            }
            Op::Utmaldg | Op::Ublkcp => match (self.at(pos.next()), self.bytes(ins)) {
                (Some((r, lo)), Some(b)) => {
                    let bar = match ins.key("bar") {
                        Some(Operand::Index { name, .. }) => Some(name.as_str()),
                        _ => None,
                    };
                    Some(Ev::Fill(r, lo, lo.saturating_add(b), bar))
                }
                _ => None,
            },
            Op::Hgmma => {
                let reads = pos
                    .skip(1)
                    .take(2)
                    .filter_map(|o| self.at(Some(o)))
                    .map(|(r, a)| (r, a, a.saturating_add(1)))
                    .collect();
                Some(Ev::Mma {
                    ins,
                    reads,
                    commit: ins.has_word("gsb0"),
                })
            }
            Op::Warpgroup if ins.has_mod("DEPBAR") => match pos.nth(1) {
                Some(Operand::Int(n)) => Some(Ev::MmaWait(ins, *n)),
                Some(Operand::Expr(e)) => self.eval(e).map(|n| Ev::MmaWait(ins, n)),
                _ => None,
            },
            Op::Utmastg => match (self.at(pos.nth(1)), self.bytes(ins)) {
                (Some((r, lo)), Some(b)) => Some(Ev::Store(ins, r, lo, lo.saturating_add(b))),
                _ => None,
            },
            Op::Utmacmdflush => Some(Ev::StoreCommit),
            Op::Depbar if ins.has_word("SB1") => match pos.nth(1) {
                Some(Operand::Int(n)) => Some(Ev::StoreWait(ins, *n)),
                Some(Operand::Expr(e)) => self.eval(e).map(|n| Ev::StoreWait(ins, n)),
                _ => None,
            },
            _ => None,
        };
        self.events.extend(ev);
        true
    }
}

/// A read in flight: the instruction, the shared bytes it reads, and whether its group
/// was committed (and by which wait it was last left in flight).
struct InFlight<'k> {
    ins: &'k Instr,
    region: &'k str,
    lo: i64,
    hi: i64,
}

/// Asynchronous reads grouped as the hardware groups them: an open group, then
/// committed groups oldest first.
#[derive(Default)]
struct Groups<'k> {
    open: Vec<InFlight<'k>>,
    committed: Vec<Vec<InFlight<'k>>>,
    /// The last wait, which left the committed groups still here in flight.
    last_wait: Option<&'k Instr>,
}

impl<'k> Groups<'k> {
    fn commit(&mut self) {
        if !self.open.is_empty() {
            self.committed.push(std::mem::take(&mut self.open));
        }
    }
    /// A wait until at most `n` committed groups are pending.
    fn wait(&mut self, ins: &'k Instr, n: i64) {
        let keep = usize::try_from(n.max(0)).unwrap_or(usize::MAX);
        let done = self.committed.len().saturating_sub(keep);
        self.committed.drain(..done);
        self.last_wait = Some(ins);
    }
    /// The first read in flight that touches one of `ranges`, and whether it is in the
    /// open group.
    fn reading(&self, ranges: &[Bytes]) -> Option<(&InFlight<'k>, bool)> {
        let hits = |r: &InFlight| {
            ranges
                .iter()
                .any(|&(reg, lo, hi)| reg == r.region && r.lo < hi && lo < r.hi)
        };
        let open = self.open.iter().find(|r| hits(r)).map(|r| (r, true));
        let committed = self.committed.iter().flatten().find(|r| hits(r));
        committed.map(|r| (r, false)).or(open)
    }
}

impl<'k> Validator<'k> {
    /// Every stage release that may race with a read in flight.
    pub(super) fn hazards(&mut self) {
        let k = self.k;
        let walks: Vec<Vec<Ev<'k>>> = k
            .roles
            .iter()
            .map(|r| {
                let mut w = Walk {
                    params: &self.params,
                    warp: i64::from(r.first_warp),
                    vars: Vec::new(),
                    steps: STEPS,
                    events: Vec::new(),
                };
                w.body(&r.body);
                w.events
            })
            .collect();
        // What each mbarrier element guards: the shared bytes the copies after a wait
        // on it fill, in any role. A wait on the mbarrier a copy completes on is a
        // consumer's wait for data, not a wait for a free stage.
        let mut guards: HashMap<(&str, i64), Vec<Bytes>> = HashMap::new();
        for events in &walks {
            let mut waited = None;
            for e in events {
                match *e {
                    Ev::Wait(m, i) => waited = Some((m, i)),
                    Ev::Fill(r, lo, hi, bar) => {
                        if let Some(w) = waited
                            && Some(w.0) != bar
                        {
                            let g = guards.entry(w).or_default();
                            if !g.contains(&(r, lo, hi)) {
                                g.push((r, lo, hi));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut seen: Vec<(u32, u32, u32, u32)> = Vec::new();
        for events in &walks {
            let (mut mma, mut store) = (Groups::default(), Groups::default());
            for e in events {
                match e {
                    Ev::Mma { ins, reads, commit } => {
                        for &(region, lo, hi) in reads {
                            mma.open.push(InFlight {
                                ins,
                                region,
                                lo,
                                hi,
                            });
                        }
                        if *commit {
                            mma.commit();
                        }
                    }
                    Ev::MmaWait(ins, n) => mma.wait(ins, *n),
                    Ev::Store(ins, region, lo, hi) => store.open.push(InFlight {
                        ins,
                        region,
                        lo: *lo,
                        hi: *hi,
                    }),
                    Ev::StoreCommit => store.commit(),
                    Ev::StoreWait(ins, n) => store.wait(ins, *n),
                    Ev::Arrive(ins, m, i) => {
                        let Some(ranges) = guards.get(&(*m, *i)) else {
                            continue;
                        };
                        for (groups, mma_side) in [(&mma, true), (&store, false)] {
                            let Some((r, open)) = groups.reading(ranges) else {
                                continue;
                            };
                            let key =
                                (ins.span.line, ins.span.col, r.ins.span.line, r.ins.span.col);
                            if seen.contains(&key) {
                                continue;
                            }
                            seen.push(key);
                            self.release_race(ins, m, *i, r, open, groups.last_wait, mma_side);
                        }
                    }
                    Ev::Wait(..) | Ev::Fill(..) => {}
                }
            }
        }
    }

    /// Reports a release of stage `m[i]` by `release` while `r` may still read it.
    #[allow(clippy::too_many_arguments)]
    fn release_race(
        &mut self,
        release: &Instr,
        m: &str,
        i: i64,
        r: &InFlight,
        open: bool,
        last_wait: Option<&Instr>,
        mma: bool,
    ) {
        let reader = format!("`{}` on line {}", r.ins.mnemonic(), r.ins.span.line);
        let why = match (mma, open, last_wait) {
            (true, true, _) => {
                "it is in no committed wgmma group (no `gsb0` closes one after it), so no `WARPGROUP.DEPBAR` waits for it".to_string()
            }
            (true, false, Some(w)) => format!(
                "its wgmma group is one that `{w}` on line {} leaves in flight",
                w.span.line
            ),
            (true, false, None) => {
                "no `WARPGROUP.DEPBAR` has waited for its wgmma group".to_string()
            }
            (false, true, _) => {
                "the bulk store is not committed (`UTMACMDFLUSH`), so no `DEPBAR.LE SB1` waits for it".to_string()
            }
            (false, false, Some(w)) => format!(
                "its bulk-store group is one that `{w}` on line {} leaves in flight",
                w.span.line
            ),
            (false, false, None) => "no `DEPBAR.LE SB1, N` has waited for it".to_string(),
        };
        let what = if mma {
            format!("`{}[{}]`", r.region, r.lo)
        } else {
            format!("`{}[{}..{}]`", r.region, r.lo, r.hi)
        };
        let msg = format!(
            "this releases stage `{m}[{i}]` while {reader} may still read {what} in it: {why}"
        );
        let help = if mma {
            "close the group with `gsb0` on its last HGMMA and wait for it (`WARPGROUP.DEPBAR.LE gsb0, N` leaving no group that reads this stage) before the release"
        } else {
            "commit the store (`UTMACMDFLUSH`) and wait for it (`DEPBAR.LE SB1, 0`) before the release"
        };
        self.error_help(release.span, msg, help);
    }

    /// An mbarrier whose count the arrivals of one instruction overrun: every warp of a
    /// role arriving on the same element completes the phase early, and the surplus
    /// arrivals count toward the next one.
    pub(super) fn arrival_counts(&mut self) {
        let k = self.k;
        for r in &k.roles {
            self.count_arrivals(r, &r.body, false);
        }
    }

    fn count_arrivals(&mut self, role: &'k Role, body: &'k [Stmt], per_warp: bool) {
        for s in body {
            match s {
                Stmt::Loop { body, .. } => self.count_arrivals(role, body, per_warp),
                // An `if` on the warp lets some warps of the role arrive and not others.
                Stmt::If { cond, body, .. } => {
                    let mut vars = Vec::new();
                    cond.vars(&mut vars);
                    let by_warp = vars.iter().any(|v| v == "warp" || v == "warpgroup");
                    self.count_arrivals(role, body, per_warp || by_warp);
                }
                Stmt::Instr(ins) if !per_warp => self.arrival_count(role, ins),
                Stmt::Instr(_) => {}
            }
        }
    }

    fn arrival_count(&mut self, role: &Role, ins: &Instr) {
        if ins.op != Op::Syncs || !ins.has_mod("ARRIVE") || ins.has_mod("REMOTE") {
            return;
        }
        let Some(Operand::Index { name, index }) = ins.positional().next() else {
            return;
        };
        let Some(decl) = self.k.mbarrier(name) else {
            return;
        };
        // An index that differs between warps spreads their arrivals.
        let mut vars = Vec::new();
        index.vars(&mut vars);
        if vars.iter().any(|v| BUILTIN_VARS.contains(&v.as_str())) {
            return;
        }
        let each = match ins.key("count") {
            None => Some(1),
            Some(_) => self.const_key_quiet(ins, "count"),
        };
        let Some(each) = each else { return };
        let warps = i64::from(role.warp_count());
        let arrivals = warps.saturating_mul(each);
        if arrivals <= i64::from(decl.count) {
            return;
        }
        let per = if each == 1 {
            "once for each".to_string()
        } else {
            format!("{each} times for each")
        };
        let msg = format!(
            "this arrives {arrivals} times on `{name}[{index}]` ({per} of role `{}`'s {}) but `{name}` completes a phase after count={} arrivals: the phase completes early and the surplus arrivals complete the next one",
            role.name,
            plural(warps as u64, "warp", "warps"),
            decl.count
        );
        let help = format!(
            "declare `mbarrier {name}[{}] count={arrivals}` to wait for every warp, or let fewer warps arrive (an `if` on `warp`)",
            decl.len
        );
        self.error_help(ins.span, msg, help);
    }

    /// A key's constant value, without reporting one that is not constant.
    fn const_key_quiet(&self, ins: &Instr, key: &str) -> Option<i64> {
        match ins.key(key)? {
            Operand::Int(v) => Some(*v),
            Operand::Expr(e) => self.constant(e),
            Operand::Word(w) => self.params.get(w.as_str()).copied(),
            _ => None,
        }
    }
}
