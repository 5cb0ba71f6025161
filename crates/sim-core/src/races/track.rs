//! The checker's state: per CTA the copies into its shared memory, per warp its MMAs and
//! bulk stores in flight by wait group, and the stages each mbarrier guards. The engine
//! tells it each instruction with concrete values (`engine::races`); it knows nothing of
//! the engine.

use std::collections::{HashMap, VecDeque};

use super::{Hazard, HazardKind, MAX_HAZARDS, Site};
use crate::sink::RunHeader;

/// An instruction about to issue, as the engine names it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct At {
    /// The warp's slot in the engine (reused by a later CTA's warp).
    pub slot: u32,
    /// The CTA's resident slot (reused by a later CTA).
    pub cta: u32,
    /// The CTA's launch order on the SM: which CTA holds the slot now.
    pub cta_id: u32,
    /// The warp's index in its CTA.
    pub warp: u32,
    /// Its role's index.
    pub role: u16,
    /// The instruction, numbered as events and reports number a role's instructions.
    pub pc: u32,
    /// The cycle.
    pub cycle: u64,
}

/// An instruction of a warp, kept in the checker's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Who {
    warp: u32,
    role: u16,
    pc: u32,
}

impl At {
    fn who(&self) -> Who {
        Who {
            warp: self.warp,
            role: self.role,
            pc: self.pc,
        }
    }
}

/// A copy into shared bytes `lo..hi`, which completes phase `phase` (phases completed,
/// counting it) of mbarrier `mbar`.
struct Fill {
    lo: u64,
    hi: u64,
    mbar: u32,
    phase: u64,
    who: Who,
}

/// The most copies a CTA's record keeps (a copy replaces those it overlaps, so a
/// pipeline keeps one per stage and operand).
const MAX_FILLS: usize = 1024;

#[derive(Default)]
struct CtaTrack {
    /// The CTA (launch order) the record is of.
    id: Option<u32>,
    fills: Vec<Fill>,
}

/// An async read in flight: up to two shared ranges (an MMA's A and B, a store's
/// source; empty ranges are none), an MMA's accumulator registers `regs.0..regs.1`, and
/// its wait group.
struct Read {
    smem: [(u64, u64); 2],
    regs: (u16, u16),
    who: Who,
    group: u64,
}

/// The most reads a warp keeps of one kind: a warp that never waits forgets the oldest.
const MAX_READS: usize = 256;

/// Async reads grouped as the hardware groups them, oldest first, each with its group's
/// number: those of group `open` are in no committed group yet. (One flat queue: a
/// group committed or waited for moves a number, not a vector.)
#[derive(Default)]
struct Groups {
    reads: VecDeque<Read>,
    /// The group that the next commit closes (the number of commits so far).
    open: u64,
}

impl Groups {
    fn push(&mut self, smem: [(u64, u64); 2], regs: (u16, u16), who: Who) {
        if self.reads.len() >= MAX_READS {
            self.reads.pop_front();
        }
        let group = self.open;
        self.reads.push_back(Read {
            smem,
            regs,
            who,
            group,
        });
    }
    fn commit(&mut self) {
        if self.reads.back().is_some_and(|r| r.group == self.open) {
            self.open += 1;
        }
    }
    /// A wait until at most `n` committed groups are pending: the committed groups
    /// older than the last `n` are done.
    fn wait(&mut self, n: i64) {
        let keep = u64::try_from(n.max(0)).unwrap_or(u64::MAX);
        let done_below = self.open.saturating_sub(keep);
        while self.reads.front().is_some_and(|r| r.group < done_below) {
            self.reads.pop_front();
        }
    }
    fn all(&self) -> impl Iterator<Item = &Read> {
        self.reads.iter()
    }
    fn is_empty(&self) -> bool {
        self.reads.is_empty()
    }
}

#[derive(Default)]
struct WarpTrack {
    /// The warp (CTA launch order, warp) the record is of.
    owner: Option<(u32, u32)>,
    mma: Groups,
    store: Groups,
}

/// The most shared ranges an mbarrier is learned to guard.
const MAX_GUARDED: usize = 64;

/// The race checker's state for one run (opaque: [`super::RaceCheck`] holds it and
/// gives its hazards).
#[derive(Default)]
pub struct Checker {
    /// The kernel's shared regions: name, first byte, size.
    shared: Vec<(String, u64, u64)>,
    /// Per role its name and its instructions' texts and lines (from the run's header).
    roles: Vec<(String, Vec<(String, u32)>)>,
    /// The mbarriers' names, by number.
    mbar_names: Vec<String>,
    /// Per role, per instruction (as `At::pc` numbers them), the registers it reads and
    /// writes and, for an HGMMA, its accumulator; the instruction's text to check the
    /// numbering against the header's.
    regs: Vec<Vec<(String, RegUse)>>,
    ctas: Vec<CtaTrack>,
    warps: Vec<WarpTrack>,
    /// Per mbarrier, the shared ranges that copies fill after a wait on it.
    guards: HashMap<u32, Vec<(u64, u64)>>,
    found: Vec<Hazard>,
    /// Each pair of instructions found, to its hazard in `found` (`usize::MAX`: found
    /// beyond `MAX_HAZARDS`, counted in `dropped`).
    index: HashMap<(HazardKind, u16, u32, u16, u32), usize>,
    /// Distinct hazards beyond those kept.
    pub(super) dropped: u64,
}

/// The registers an instruction uses, as ranges of register numbers (`R24..R28` is
/// `(24, 28)`).
#[derive(Clone, Debug, Default)]
struct RegUse {
    /// Read or written by an instruction other than an MMA.
    used: Vec<(u16, u16)>,
    /// An HGMMA's accumulator.
    acc: Option<(u16, u16)>,
}

impl RegUse {
    fn of(i: &isa::ast::Instr) -> RegUse {
        let r = |reg: isa::ast::Reg, n: u32| match reg {
            isa::ast::Reg::R(x) => {
                let x = x as u16;
                Some((x, x.saturating_add(n.min(255) as u16)))
            }
            _ => None,
        };
        if i.op == isa::Op::Hgmma {
            let acc = match (i.positional().next(), i.mma_shape()) {
                (Some(isa::ast::Operand::Reg { reg, .. }), Some(Ok(shape))) => {
                    r(*reg, shape.hgmma_acc_regs())
                }
                _ => None,
            };
            return RegUse {
                used: Vec::new(),
                acc,
            };
        }
        let mut used: Vec<(u16, u16)> = i
            .source_regs()
            .into_iter()
            .filter_map(|(reg, n)| r(reg, n))
            .collect();
        used.extend(i.dest_reg().and_then(|(reg, n)| r(reg, n)));
        RegUse { used, acc: None }
    }
}

/// Each instruction of `body` in source order (as the lowering numbers them), with
/// its text and registers.
fn reg_uses(body: &[isa::ast::Stmt], out: &mut Vec<(String, RegUse)>) {
    for s in body {
        match s {
            isa::ast::Stmt::Instr(i) => out.push((i.to_string(), RegUse::of(i))),
            isa::ast::Stmt::Loop { body, .. } | isa::ast::Stmt::If { body, .. } => {
                reg_uses(body, out)
            }
        }
    }
}

/// Whether `a..b` and `c..d` share a byte.
fn overlap((a, b): (u64, u64), (c, d): (u64, u64)) -> bool {
    a < d && c < b
}

impl Checker {
    /// A checker for runs of `kernel`.
    pub(super) fn new(kernel: &isa::Kernel) -> Checker {
        let mut base = 0u64;
        let shared = kernel
            .shared
            .iter()
            .map(|s| {
                let r = (s.name.clone(), base, u64::from(s.size));
                base += u64::from(s.size);
                r
            })
            .collect();
        let regs = kernel
            .roles
            .iter()
            .map(|r| {
                let mut out = Vec::new();
                reg_uses(&r.body, &mut out);
                out
            })
            .collect();
        Checker {
            shared,
            regs,
            ..Checker::default()
        }
    }

    pub(super) fn begin(&mut self, h: &RunHeader) {
        self.roles = h
            .roles
            .iter()
            .map(|r| {
                let ins = r
                    .instructions
                    .iter()
                    .map(|i| (i.text.clone(), i.line))
                    .collect();
                (r.name.clone(), ins)
            })
            .collect();
        self.mbar_names = h.mbarriers.clone();
        // An instruction whose text is not the header's is not checked for registers
        // (a numbering that differed would name the wrong registers).
        for (uses, role) in self.regs.iter_mut().zip(&h.roles) {
            for (i, (text, u)) in uses.iter_mut().enumerate() {
                if role.instructions.get(i).is_none_or(|x| x.text != *text) {
                    *u = RegUse::default();
                }
            }
        }
    }

    /// The registers of the instruction `at`.
    fn reg_use(&self, at: &At) -> Option<&RegUse> {
        Some(&self.regs.get(at.role as usize)?.get(at.pc as usize)?.1)
    }

    pub(super) fn hazards(&self) -> &[Hazard] {
        &self.found
    }

    /// The warp's record, started afresh for a warp new to its slot.
    fn warp(&mut self, at: &At) -> &mut WarpTrack {
        let i = at.slot as usize;
        if self.warps.len() <= i {
            self.warps.resize_with(i + 1, WarpTrack::default);
        }
        let w = &mut self.warps[i];
        if w.owner != Some((at.cta_id, at.warp)) {
            *w = WarpTrack {
                owner: Some((at.cta_id, at.warp)),
                ..WarpTrack::default()
            };
        }
        w
    }

    /// The CTA's record, started afresh for a CTA new to its slot.
    fn cta(&mut self, at: &At) -> &mut CtaTrack {
        let i = at.cta as usize;
        if self.ctas.len() <= i {
            self.ctas.resize_with(i + 1, CtaTrack::default);
        }
        let c = &mut self.ctas[i];
        if c.id != Some(at.cta_id) {
            *c = CtaTrack {
                id: Some(at.cta_id),
                fills: Vec::new(),
            };
        }
        c
    }

    /// The instruction `at` (other than an MMA) reads or writes its registers: an
    /// accumulator of an HGMMA no wait has covered is a hazard.
    pub(crate) fn uses_regs(&mut self, at: &At) {
        if self.warp(at).mma.is_empty() {
            return;
        }
        let Some(u) = self.reg_use(at) else { return };
        let w = self.warp_ref(at);
        let uses = |a: (u16, u16)| u.used.iter().any(|&b| a.0 < b.1 && b.0 < a.1);
        let Some(r) = w.mma.all().find(|r| r.regs.0 < r.regs.1 && uses(r.regs)) else {
            return;
        };
        let (with, (a, b)) = (r.who, r.regs);
        let what = format!("R{a}..R{}", b - 1);
        self.report(HazardKind::AccumulatorBeforeWait, at, with, None, what);
    }

    /// Shared bytes `lo..hi` are read: a copy into them whose phase has not completed
    /// (`phase_of` gives an mbarrier's phases completed so far) is a hazard.
    pub(crate) fn reads_shared(
        &mut self,
        at: &At,
        lo: u64,
        hi: u64,
        phase_of: &dyn Fn(u32) -> u64,
    ) {
        let c = self.cta(at);
        let Some(f) = c
            .fills
            .iter()
            .find(|f| overlap((f.lo, f.hi), (lo, hi)) && phase_of(f.mbar) < f.phase)
        else {
            return;
        };
        let (with, mbar, range) = (f.who, f.mbar, (f.lo, f.hi));
        let what = self.region(range);
        self.report(HazardKind::ReadBeforeFill, at, with, Some(mbar), what);
    }

    /// A copy into shared bytes `lo..hi` completing on mbarrier `mbar`, by a warp whose
    /// last wait passed was on `waited`.
    pub(crate) fn fill(
        &mut self,
        at: &At,
        (lo, hi): (u64, u64),
        mbar: u32,
        waited: Option<u32>,
        phase_of: &dyn Fn(u32) -> u64,
    ) {
        let c = self.cta(at);
        let busy = c
            .fills
            .iter()
            .find(|f| overlap((f.lo, f.hi), (lo, hi)) && phase_of(f.mbar) < f.phase)
            .map(|f| (f.who, f.mbar, (f.lo, f.hi)));
        c.fills.retain(|f| !overlap((f.lo, f.hi), (lo, hi)));
        if c.fills.len() >= MAX_FILLS {
            c.fills.remove(0);
        }
        c.fills.push(Fill {
            lo,
            hi,
            mbar,
            phase: phase_of(mbar) + 1,
            who: at.who(),
        });
        if let Some(g) = waited.filter(|&g| g != mbar) {
            let guarded = self.guards.entry(g).or_default();
            if !guarded.contains(&(lo, hi)) && guarded.len() < MAX_GUARDED {
                guarded.push((lo, hi));
            }
        }
        if let Some((with, m, range)) = busy {
            let what = self.region(range);
            self.report(HazardKind::FillOverFill, at, with, Some(m), what);
        }
    }

    /// A warpgroup MMA reads shared `reads` (and accumulates into its registers);
    /// `commit` closes its group.
    pub(crate) fn mma(&mut self, at: &At, reads: [(u64, u64); 2], commit: bool) {
        let who = at.who();
        let acc = self.reg_use(at).and_then(|u| u.acc).unwrap_or((0, 0));
        let w = self.warp(at);
        w.mma.push(reads, acc, who);
        if commit {
            w.mma.commit();
        }
    }

    /// `WARPGROUP.DEPBAR.LE gsb0, n`.
    pub(crate) fn mma_wait(&mut self, at: &At, n: i64) {
        self.warp(at).mma.wait(n);
    }

    /// A bulk store reads shared bytes `lo..hi`.
    pub(crate) fn store(&mut self, at: &At, lo: u64, hi: u64) {
        let who = at.who();
        self.warp(at).store.push([(lo, hi), (0, 0)], (0, 0), who);
    }

    /// `UTMACMDFLUSH`: the bulk stores so far form a group.
    pub(crate) fn store_commit(&mut self, at: &At) {
        self.warp(at).store.commit();
    }

    /// `DEPBAR.LE SB1, n`.
    pub(crate) fn store_wait(&mut self, at: &At, n: i64) {
        self.warp(at).store.wait(n);
    }

    /// A plain arrive on mbarrier `mbar`: the release of the stages it guards, a hazard
    /// while the warp's MMAs or bulk stores not covered by a wait read them.
    pub(crate) fn release(&mut self, at: &At, mbar: u32) {
        let Some(guarded) = self.guards.get(&mbar) else {
            return;
        };
        let w = self.warp_ref(at);
        let mut hits = Vec::new();
        for groups in [&w.mma, &w.store] {
            let hit = groups.all().find_map(|r| {
                let g = guarded
                    .iter()
                    .find(|&&g| r.smem.iter().any(|&s| overlap(s, g)))?;
                Some((r.who, *g))
            });
            hits.extend(hit);
        }
        for (with, range) in hits {
            let what = self.region(range);
            self.report(HazardKind::ReleaseWhileRead, at, with, Some(mbar), what);
        }
    }

    /// The warp's record as it stands (an empty one for a warp new to its slot).
    fn warp_ref(&self, at: &At) -> &WarpTrack {
        static EMPTY: WarpTrack = WarpTrack {
            owner: None,
            mma: Groups {
                reads: VecDeque::new(),
                open: 0,
            },
            store: Groups {
                reads: VecDeque::new(),
                open: 0,
            },
        };
        match self.warps.get(at.slot as usize) {
            Some(w) if w.owner == Some((at.cta_id, at.warp)) => w,
            _ => &EMPTY,
        }
    }

    /// Shared bytes `lo..hi` by their region: `sA[0..16384]`.
    fn region(&self, (lo, hi): (u64, u64)) -> String {
        match self
            .shared
            .iter()
            .find(|(_, base, size)| *base <= lo && lo < base + size)
        {
            Some((name, base, _)) => format!("{name}[{}..{}]", lo - base, hi - base),
            None => format!("shared bytes {lo}..{hi}"),
        }
    }

    fn site(&self, w: Who) -> Site {
        let (role, text, line) = match self.roles.get(w.role as usize) {
            Some((name, ins)) => match ins.get(w.pc as usize) {
                Some((text, line)) => (name.clone(), text.clone(), *line),
                None => (name.clone(), "?".to_string(), 0),
            },
            None => ("?".to_string(), "?".to_string(), 0),
        };
        Site {
            warp: w.warp,
            role,
            text,
            line,
        }
    }

    fn report(&mut self, kind: HazardKind, at: &At, with: Who, stage: Option<u32>, what: String) {
        let key = (kind, at.role, at.pc, with.role, with.pc);
        if let Some(&i) = self.index.get(&key) {
            if let Some(h) = self.found.get_mut(i) {
                h.occurrences += 1;
            }
            return;
        }
        if self.found.len() >= MAX_HAZARDS {
            self.index.insert(key, usize::MAX);
            self.dropped += 1;
            return;
        }
        let stage = stage.map(|m| {
            self.mbar_names
                .get(m as usize)
                .cloned()
                .unwrap_or_else(|| format!("mbarrier {m}"))
        });
        let h = Hazard {
            kind,
            cycle: at.cycle,
            cta: at.cta_id,
            racing: self.site(at.who()),
            with: self.site(with),
            stage,
            what,
            occurrences: 1,
        };
        self.index.insert(key, self.found.len());
        self.found.push(h);
    }
}
