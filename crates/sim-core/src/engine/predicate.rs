//! Instructions guarded by a declared predicate (`pred P0 = EXPR`, `@P0 ...`): where
//! the guard is false the instruction issues, taking its warp's issue slot and its
//! control code's stall count, and does nothing else: no pipe, no result, no memory,
//! no synchronization, and a branch is not taken (no target fetch). A truth that reads
//! `lane` diverges: the instruction executes when it holds for any lane, and its
//! memory accesses are the lanes' where it holds.

use super::*;

impl<'a, S: Sink> Engine<'a, S> {
    /// True when `d` has a declared guard that is false for the warp in `slot` now
    /// (its loop variables, warp and CTA as they are). A guard whose truth reads
    /// `lane` is false when it is false for every lane; otherwise the lanes it holds
    /// for are `active_lanes` while the instruction issues (the issue resets them).
    #[inline]
    pub(super) fn guard_off(&mut self, slot: u32, d: &DInstr) -> Result<bool, SimError> {
        let Some(g) = &d.guard else {
            return Ok(false);
        };
        if !g.uses_lane() {
            return Ok(self.eval(slot, g)? == 0);
        }
        let mut env = self.env(slot, 0);
        let mut mask = 0u32;
        for lane in 0..32 {
            env.lane = lane;
            let holds = g.eval(&env).map_err(|f| self.fault_at(slot, &f.0))? != 0;
            mask |= u32::from(holds) << lane;
        }
        self.active_lanes = mask;
        Ok(mask == 0)
    }

    /// After the active lanes' addresses are in `addrs`: each inactive lane's is the
    /// first active lane's, so that coalescing and bank conflicts count the active
    /// lanes' sectors and wavefronts only (a repeated address costs nothing more).
    #[inline]
    pub(super) fn fill_inactive_lanes(&mut self) {
        let active = self.active_lanes;
        if active == u32::MAX || active == 0 {
            return;
        }
        let first = self.addrs[active.trailing_zeros() as usize];
        for (lane, a) in self.addrs.iter_mut().enumerate() {
            if active >> lane & 1 == 0 {
                *a = first;
            }
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
        if S::ENABLED && self.tells_issue(slot) {
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
