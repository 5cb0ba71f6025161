//! The cycle loop, and the end of a run (finished, deadlock, watchdog).

use super::*;

impl<'a, S: Sink> Engine<'a, S> {
    /// The cycle loop, to the end of the run: Ok(true) when the sink stopped it.
    ///
    /// Each visited cycle, in order:
    /// 1. apply the events due (copies landing, async arrivals, CTA launches);
    /// 2. take the warps due this cycle, per sub-partition (fast-forward's wheel, or
    ///    every warp);
    /// 3. per sub-partition with warps due: (a) classify each (a state until some
    ///    cycle, retired, or eligible); (b) the policy picks one eligible warp, the
    ///    others are `not_selected`; (c) the chosen warp issues;
    /// 4. find the next cycle to visit (the earliest due warp or event under
    ///    fast-forward, else the next cycle);
    /// 5. stop there if the run is over (every CTA done, a deadlock, the watchdog:
    ///    `stop`) or the sink asks to (at a multiple of `POLL_CYCLES`).
    ///
    /// (One function: the loop's locals stay in registers; its rare branches call out.)
    pub(super) fn run(&mut self) -> Result<bool, SimError> {
        let initial = (self.ctas.len() as u32).min(self.ctas_total);
        for c in 0..initial {
            self.launch_cta(c)?;
        }
        self.ctas_claimed = initial;
        let ff = self.cfg.fast_forward;
        let tell_policy = self.policy.as_dyn().wants_issued();
        let policy_reads_history = self.policy.as_dyn().reads_history();
        self.lone_cands = usize::from(self.policy.as_dyn().picks_lone());
        self.stop_after = self.cfg.max_cycles.min(NEVER - 1);
        // (Later the last CTA's retire lowers `stop_after`, which the end of its cycle
        // finds: nothing between there and the next cycle retires a warp.)
        if self.ctas_done == self.ctas_total {
            return Ok(false);
        }
        self.last_due_cycle = self.now;
        loop {
            // 1. Events due.
            if self.next_event <= self.now {
                self.last_due_cycle = self.now;
                self.apply_events()?;
            }
            // 2. The warps due.
            let now = self.now;
            if ff {
                self.due.admit_far(now, &self.until[..]);
            }
            // The warps that may be due, per sub-partition: the wheel's (a bit whose
            // warp has since been told another cycle is stale, and skipped below), or
            // without fast-forward every warp. In position order.
            let taken = if ff {
                self.due.take_all(now)
            } else {
                self.all_positions
            };
            debug_assert!(!ff || self.taken_has_every_due_warp(&taken));
            // 3. Each sub-partition with warps due, taken from a bit mask (host speed:
            // docs/speed/README.md).
            let mut busy_sps = u32::from(taken[0] != 0)
                | u32::from(taken[1] != 0) << 1
                | u32::from(taken[2] != 0) << 2
                | u32::from(taken[3] != 0) << 3;
            while busy_sps != 0 {
                let sp = busy_sps.trailing_zeros() as usize;
                busy_sps &= busy_sps - 1;
                let mut due_mask = taken[sp & 3];
                let mut n_cands = 0;
                // 3a. Classify. (Looking at a warp changes no other warp's `until`.)
                while due_mask != 0 {
                    let i = due_mask.trailing_zeros() as usize;
                    due_mask &= due_mask - 1;
                    let slot = (4 * i + sp) as u32;
                    let s = slot as usize;
                    if ff {
                        // A warp not live is due `NEVER` (from the start, and once
                        // retired: nothing wakes a warp that has exited).
                        if self.until[s % UNTIL_LEN] > now {
                            continue;
                        }
                        self.last_due_cycle = now;
                        debug_assert!(self.warps[s].live);
                    } else if !self.warps[s].live {
                        continue;
                    }
                    match self.classify(slot) {
                        Some((WarpState::Drain, t, _)) if t <= now => self.retire(slot),
                        Some((state, t, cause)) => {
                            self.set_state_in_loop(slot, state, cause, t);
                            // (Whatever holds a warp, it is after this cycle.)
                            self.set_until_ahead(slot, t);
                        }
                        None => {
                            let c = &mut self.cands[n_cands % due::MAX_POSITIONS];
                            c.slot = slot;
                            c.position = i as u32;
                            // (Else they stay 0, as the engine made them.)
                            if policy_reads_history {
                                let w = &self.warps[s];
                                c.age = w.age;
                                c.last_issue = w.last_issue;
                            }
                            n_cands += 1;
                        }
                    }
                }
                if n_cands == 0 {
                    continue;
                }
                // 3b. Pick. `others`: how many candidates to look over for those not
                // selected (none when the only one is chosen).
                let (chosen, others) = if n_cands == self.lone_cands {
                    self.policy.pick_lone(sp, now, &self.cands[0]);
                    (self.cands[0].slot, 0)
                } else {
                    let cands = &self.cands[..n_cands];
                    let pick = self.policy.as_dyn().pick(sp, now, cands);
                    let chosen = cands[pick.min(n_cands - 1)].slot;
                    if tell_policy {
                        self.policy.as_dyn().issued(sp, chosen);
                    }
                    (chosen, n_cands)
                };
                // Those not selected are looked at again next cycle: told the wheel at once.
                let mut not_selected = 0u64;
                for i in 0..others {
                    let Candidate { slot, position, .. } = self.cands[i];
                    if slot != chosen {
                        self.set_state_in_loop(slot, WarpState::NotSelected, Cause::OWN, now + 1);
                        self.until[slot as usize % UNTIL_LEN] = self.now + 1;
                        not_selected |= 1 << (position % 64);
                    }
                }
                if not_selected != 0 {
                    self.due.insert_next(sp, not_selected, self.now);
                }
                // 3c. Issue.
                self.issue(chosen)?;
            }
            // 4. The next cycle.
            let next = if ff {
                let n = self.due.next_due(now, &self.until[..]);
                n.min(self.next_event).max(self.now + 1)
            } else {
                self.now + 1
            };
            // 5. The end? (`NEVER`, a deadlock, is beyond any bound: one comparison for
            // all three.)
            if next > self.stop_after || (!ff && self.stuck()) {
                return self.stop(next).map(|()| false);
            }
            // (A constant test: without a sink that polls, nothing.)
            if S::POLLS && next / POLL_CYCLES != now / POLL_CYCLES && !self.sink.keep_going() {
                // The run ends after this cycle: every span so far closes at its end.
                self.now = now + 1;
                return Ok(true);
            }
            self.now = next;
        }
    }

    /// Why the run stops before `next`, the cycle it would visit next: every CTA is done,
    /// else a deadlock (no cycle comes, or without fast-forward every live warp is
    /// stuck), else the watchdog.
    // Rare: kept out of the cycle loop's code.
    #[inline(never)]
    pub(super) fn stop(&mut self, next: u64) -> Result<(), SimError> {
        if self.ctas_done == self.ctas_total {
            return Ok(());
        }
        let ff = self.cfg.fast_forward;
        // Fast-forward may have come to `next` through a slot whose bits were all stale
        // (`DueWheel::next_due`): whether any cycle comes is the exact next's, and a
        // deadlock is reported at the last cycle a warp was due or an event came, where
        // the exact search would have stopped.
        let next = if ff && next != NEVER {
            let exact = self.due.next_due_exact(self.now, &self.until[..]);
            exact.min(self.next_event)
        } else {
            next
        };
        if next == NEVER || (!ff && self.stuck()) {
            if ff {
                self.now = self.last_due_cycle;
            } else if self.issued_at(self.now) {
                // A warp that issued this cycle is looked at again next cycle (where it
                // finds itself blocked) under fast-forward, which reports the deadlock
                // there: the same cycle either way.
                self.now += 1;
            }
            return Err(SimError::Deadlock(
                self.report("deadlock: no warp can make progress"),
            ));
        }
        self.now = self.cfg.max_cycles;
        Err(SimError::Watchdog(self.report(&format!(
            "watchdog: the run passed {} cycles (raise it with --max-cycles)",
            self.cfg.max_cycles
        ))))
    }

    /// Whether any warp issued at cycle `t`.
    pub(super) fn issued_at(&self, t: u64) -> bool {
        let selected = WarpState::Selected.index();
        self.warps
            .iter()
            .any(|w| w.stats[selected] > 0 && w.last_issue == t)
    }

    /// Whether the positions taken from the wheel at this cycle's start include every
    /// live warp due by now (what `DueWheel::take_all` relies on).
    pub(super) fn taken_has_every_due_warp(&self, taken: &[u64; 4]) -> bool {
        (0..self.warps.len()).all(|s| {
            let i = self.until_index(s as u32);
            !self.warps[s].live || self.until[i] > self.now || taken[s & 3] >> (s >> 2) & 1 != 0
        })
    }

    /// Without fast-forward the loop does not see `NEVER`; a run is stuck when every
    /// live warp waits on something only another warp or an event could end.
    // Rare next to the issue loop it is called from: kept out of its code.
    #[inline(never)]
    pub(super) fn stuck(&self) -> bool {
        self.events.is_empty()
            && self.warps.iter().all(|w| {
                !w.live
                    || matches!(
                        w.block,
                        Block::Barrier { .. }
                            | Block::Mbar { .. }
                            | Block::WgArrive
                            | Block::Cluster
                    )
            })
    }

    // Rare next to the issue loop it is called from: kept out of its code.
    #[inline(never)]
    pub(super) fn apply_events(&mut self) -> Result<(), SimError> {
        while let Some(Reverse((t, _, _))) = self.events.peek() {
            if *t > self.now {
                break;
            }
            let Some(Reverse((_, _, ev))) = self.events.pop() else {
                break;
            };
            match ev {
                Ev::TxComplete { cta, mbar, bytes } => {
                    self.ctas[cta as usize].mbars[mbar as usize].tx -= bytes as i64;
                    self.check_phase(cta, mbar, self.t.lat_mbarrier_tx_wake, true);
                }
                Ev::Arrive { cta, mbar } => {
                    let m = &mut self.ctas[cta as usize].mbars[mbar as usize];
                    m.pending = m.pending.saturating_sub(1);
                    self.check_phase(cta, mbar, self.t.lat_mbarrier_wake, false);
                }
                Ev::LaunchCta { slot } => self.launch_cta(slot)?,
            }
        }
        self.next_event = self.events.peek().map_or(NEVER, |Reverse((t, _, _))| *t);
        Ok(())
    }
}
