//! Instructions guarded by a declared predicate (`pred P0 = EXPR`, `@P0 ...`): where
//! the guard is false the instruction issues, taking its warp's issue slot and its
//! control code's stall count, and does nothing else: no pipe, no result, no memory,
//! no synchronization, and a branch is not taken (no target fetch).

use super::*;

impl<'a, S: Sink> Engine<'a, S> {
    /// True when `d` has a declared guard that is false for the warp in `slot` now
    /// (its loop variables, warp and CTA as they are).
    #[inline]
    pub(super) fn guard_off(&self, slot: u32, d: &DInstr) -> Result<bool, SimError> {
        match &d.guard {
            Some(g) => Ok(self.eval(slot, g)? == 0),
            None => Ok(false),
        }
    }

    /// `issue_instr` for an instruction whose guard is false: the issue charged and
    /// told, the pc stepped; none of the instruction's effects. (The warp waited for
    /// the instruction's sources before it was picked, as the hardware's scoreboard
    /// waits come before the predicate is read.)
    pub(super) fn issue_off(&mut self, slot: u32) -> Result<(), SimError> {
        let now = self.now;
        let d: &'a DInstr = self.instr(slot);
        self.charge_issue(slot, now);
        {
            let w = &mut self.warps[slot as usize];
            w.issued_before = w.last_issue;
            w.last_issue = now;
        }
        if S::ENABLED {
            let id = self.wid(slot);
            let sp = self.warps[slot as usize].sp & 3;
            let w = &self.warps[slot as usize];
            let (role, pc) = (w.role, self.event_pc(slot, w.pc));
            self.sink.event(Event::Issue {
                cycle: now,
                warp: id,
                subpartition: sp,
                role,
                pc,
            });
        }
        let w = &mut self.warps[slot as usize];
        w.pc += 1;
        let code: &'a [Node] = w.code;
        if let Some((s, head)) = d.loop_tail {
            w.loop_tail(s, head);
        }
        if let Node::Instr(d) = &code[w.pc as usize] {
            w.cur = Some(d);
            return Ok(());
        }
        self.settle(slot)
    }
}
