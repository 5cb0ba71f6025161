//! The race checker's hook: what an instruction about to issue reads, fills, releases
//! or waits for, with concrete values, told to the sink's checker (`crate::races`).
//! Called only for sinks whose `RACES` is set; for the others it compiles away.

use super::*;
use crate::races::At;

impl<'a, S: Sink> Engine<'a, S> {
    /// Tells the checker what `d` is about to do. A value that does not evaluate is left
    /// to the issue, which faults on it. (Never inlined: the issue path stays small.)
    #[inline(never)]
    pub(super) fn race_check(&mut self, slot: u32, d: &'a DInstr, now: u64) {
        let at = {
            let w = &self.warps[slot as usize];
            At {
                slot,
                cta: w.cta,
                cta_id: self.ctas[w.cta as usize].id,
                warp: w.warp,
                role: w.role,
                pc: self.event_pc(slot, w.pc),
                cycle: now,
            }
        };
        let shared_at = |e: &Self, m: &lower::MemOperand| -> Option<u64> {
            let off = e.eval(slot, &m.addr).ok()?;
            (off >= 0).then(|| m.base + off as u64)
        };
        match &d.kind {
            Kind::Hgmma { commit } => {
                let mut reads = [(0, 0); 2];
                for (r, m) in reads.iter_mut().zip(d.mem.iter()) {
                    if m.space == Space::Shared
                        && let Some(a) = shared_at(self, m)
                    {
                        // (The operand names its matrix's first byte; its layout is
                        // swizzled, so the first byte stands for it, as stages hold whole
                        // matrices.)
                        *r = (a, a + 1);
                    }
                }
                for (lo, hi) in reads.into_iter().filter(|r| r.0 < r.1) {
                    self.race_read(&at, lo, hi);
                }
                if let Some(c) = self.sink.races() {
                    c.mma(&at, reads, *commit);
                }
                return;
            }
            // (The lanes' addresses into `self.addrs`, as the issue computes them.)
            Kind::Load {
                space: Space::Shared,
            } if self.lane_addrs(slot, &d.mem[0], d.width, true).is_ok() => {
                let lo = self.addrs.iter().copied().min().unwrap_or(0);
                let hi = self.addrs.iter().copied().max().unwrap_or(0) + u64::from(d.width);
                self.race_read(&at, lo, hi);
            }
            Kind::Utcmma => {
                for m in d.mem.iter().filter(|m| m.space == Space::Shared) {
                    if let Some(a) = shared_at(self, m) {
                        self.race_read(&at, a, a + 1);
                    }
                }
            }
            Kind::TmaLoad | Kind::TmaStore => {
                let si = usize::from(d.kind == Kind::TmaStore);
                let (Some(lo), Ok(bytes), Some(m)) = (
                    d.mem.get(si).and_then(|m| shared_at(self, m)),
                    self.eval(slot, &d.n),
                    d.mem.get(si),
                ) else {
                    return;
                };
                if m.space != Space::Shared || bytes <= 0 {
                    return;
                }
                let hi = lo + bytes as u64;
                if d.kind == Kind::TmaStore {
                    self.race_read(&at, lo, hi);
                    if let Some(c) = self.sink.races() {
                        c.store(&at, lo, hi);
                    }
                } else if let Ok(mbar) = self.mbar_index(slot, d) {
                    let waited = Some(self.passed_mbar[slot as usize]).filter(|&m| m != u32::MAX);
                    let (ctas, sink) = (&self.ctas, &mut *self.sink);
                    let cta = &ctas[at.cta as usize];
                    if let Some(c) = sink.races() {
                        c.fill(&at, (lo, hi), mbar, waited, &|m| {
                            cta.mbars[m as usize].phase
                        });
                    }
                }
            }
            // (`.READ` waits until the stores have read shared memory: enough to reuse it.)
            Kind::WgDepbar | Kind::DepbarBulk | Kind::DepbarBulkRead => {
                if let Ok(n) = self.eval(slot, &d.n) {
                    let mma = d.kind == Kind::WgDepbar;
                    if let Some(c) = self.sink.races() {
                        if mma {
                            c.mma_wait(&at, n);
                        } else {
                            c.store_wait(&at, n);
                        }
                    }
                }
            }
            Kind::TmaCommit => {
                if let Some(c) = self.sink.races() {
                    c.store_commit(&at);
                }
            }
            Kind::MbarArrive { expect_tx: false } => {
                if let Ok(mbar) = self.mbar_index(slot, d)
                    && let Some(c) = self.sink.races()
                {
                    c.release(&at, mbar);
                }
            }
            _ => {}
        }
        if let Some(c) = self.sink.races() {
            c.uses_regs(&at);
        }
    }

    /// Shared bytes `lo..hi` read by the instruction `at`.
    fn race_read(&mut self, at: &At, lo: u64, hi: u64) {
        let (ctas, sink) = (&self.ctas, &mut *self.sink);
        let cta = &ctas[at.cta as usize];
        if let Some(c) = sink.races() {
            c.reads_shared(at, lo, hi, &|m| cta.mbars[m as usize].phase);
        }
    }
}
