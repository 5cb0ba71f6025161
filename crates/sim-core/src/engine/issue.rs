//! Issue: what a warp's instruction does when its scheduler picks it. The short paths
//! (plain arithmetic, global loads without a sink) come first; `issue_instr` and
//! `issue_other` handle every kind, the synchronization and async units in their
//! own modules.

use super::*;

impl<'a, S: Sink> Engine<'a, S> {
    /// Issues the warp's instruction and sets when the warp is next looked at. (Inlined
    /// always: with two short paths, each inlined, it was otherwise left out of the
    /// cycle loop, and a call per issue cost more than the paths saved.)
    #[inline(always)]
    pub(super) fn issue(&mut self, slot: u32) -> Result<(), SimError> {
        let d = self.instr(slot);
        // (Before any issue path, the short ones too: a race checker sees every issue.)
        // (An instruction whose declared guard is false does nothing to check; a lane
        // guard leaves its lanes in `active_lanes` for the checker's addresses.)
        if S::RACES && !matches!(self.guard_off(slot, d), Ok(true)) {
            self.race_check(slot, d, self.now);
        }
        // (A sink that takes states ahead gets the short paths' events.)
        if !S::ENABLED || S::STATES_AHEAD {
            match d.issue {
                IssueClass::Plain => return self.issue_plain(slot, d),
                IssueClass::GlobalLoad => return self.issue_global_load(slot, d),
                IssueClass::General => {}
            }
        }
        let next = self.now + 1;
        self.issue_general(slot, d)?;
        self.after_issue(slot, next);
        Ok(())
    }

    /// `issue` of a plain instruction (`IssueClass::Plain`) without events: what
    /// `issue_general` and `after_issue` do for it, with the warp looked up once. Its
    /// pipe is booked, its one register written, its pc stepped, and a register wait of
    /// the next instruction is its state from the next cycle on (`Warp::quiet_step`).
    /// (`start_quiet_issue` on the warp it holds: a look-up of the warp of its own
    /// measured about 1% more host instructions on the chain.)
    #[inline(always)]
    pub(super) fn issue_plain(&mut self, slot: u32, d: &'a DInstr) -> Result<(), SimError> {
        let now = self.now;
        let next = now + 1;
        let unchanged = S::ENABLED && self.selected_unchanged(slot);
        let w = &mut self.warps[slot as usize];
        let paced = paced!(self);
        start_quiet_issue(w, &mut self.pcs, &mut self.pipes, paced, d, now);
        if S::ENABLED {
            self.quiet_issue_events(slot, d, unchanged, now);
        }
        let w = &mut self.warps[slot as usize];
        hold_tensor(
            &mut self.tensor_free[w.sp as usize & 3],
            self.tensor_hold[d.pipe.index()],
            now,
        );
        // (Written whether or not there is a result: `dst_reg` is then a slot nobody
        // reads.)
        let (cycles, stall) = d.short_result;
        let reg = RegState {
            ready: now + cycles,
            writer: d.text,
            stall,
        };
        write_short_dst(&mut w.regs, d, reg);
        // The pc step and the next instruction's register wait, or else its pipe's.
        let due = w.quiet_step(d, next);
        let due = self.hold_ahead(slot, due, next);
        if S::ENABLED {
            self.quiet_wait_event(slot, next, due);
        }
        self.end_quiet_issue(slot, due, next)
    }

    /// `issue` of a global or local load (`IssueClass::GlobalLoad`) without events:
    /// its access as `issue_instr`'s load arm makes it, around it what `issue_plain` does
    /// (`start_quiet_issue` before, `Warp::quiet_step` after).
    #[inline(always)]
    pub(super) fn issue_global_load(&mut self, slot: u32, d: &'a DInstr) -> Result<(), SimError> {
        let now = self.now;
        let unchanged = S::ENABLED && self.selected_unchanged(slot);
        let paced = paced!(self);
        start_quiet_issue(
            &mut self.warps[slot as usize],
            &mut self.pcs,
            &mut self.pipes,
            paced,
            d,
            now,
        );
        if S::ENABLED {
            self.quiet_issue_events(slot, d, unchanged, now);
        }
        let done = self.global_access(slot, d, 0, false, !d.bypass_l1)?;
        let next = now + 1;
        let w = &mut self.warps[slot as usize];
        w.outstanding = w.outstanding.max(done);
        let reg = RegState {
            ready: done,
            writer: d.text,
            stall: WarpState::LongScoreboard,
        };
        write_short_dst(&mut w.regs, d, reg);
        // The pc step and the next instruction's register wait, on the warp looked up
        // once after the access (a look-up of its own cost about 5 host instructions).
        let due = w.quiet_step(d, next);
        let due = self.hold_ahead(slot, due, next);
        if S::ENABLED {
            self.quiet_wait_event(slot, next, due);
        }
        self.end_quiet_issue(slot, due, next)
    }

    /// The end of a short issue, after `Warp::quiet_step` gave `due`: the warp is next
    /// looked at then, or, where the next node is the general loop control (None), the
    /// warp is settled and `after_issue` finds its next instruction's wait.
    #[inline(always)]
    pub(super) fn end_quiet_issue(
        &mut self,
        slot: u32,
        due: Option<u64>,
        next: u64,
    ) -> Result<(), SimError> {
        match due {
            Some(t) => self.set_until_ahead(slot, t),
            None => {
                self.settle(slot)?;
                self.after_issue(slot, next);
            }
        }
        Ok(())
    }

    /// `issue` of an instruction that is not a plain one: a branch's fetch, a stall
    /// count, whatever blocks the warp.
    pub(super) fn issue_general(&mut self, slot: u32, d: &'a DInstr) -> Result<(), SimError> {
        let stall = d.stall;
        // A branch (the twins' branches are their loops' back branches, taken) has its
        // target fetched `branch_target_cycles` after the branch entered the instruction
        // buffer, when the instruction two before it issued: a warp that reaches the
        // branch while that fetch is under way waits for it, one that waited on an
        // operand before the branch has had it fetched meanwhile.
        // (A guard that is false: the instruction issues and does nothing, a branch
        // is not taken.)
        let off = self.guard_off(slot, d)?;
        // A taken branch that is not a loop's back branch (a forward one, in the twins:
        // over a skipped slot) has its target issue `taken_branch_cycles` after it at
        // the soonest, however early the fetch began (`data/gaps/diverge/`'s `k_slots`:
        // taken branches back to back, or each 13 cycles after its ISETP, all cost
        // about 15; branches not taken nothing; `data/gaps/tploop/`: the streaming
        // kernel's skipped pieces and thread 0's regions the same). The try_wait's
        // branch over its spin (`after_probe`) has its redirect in `lat_mbarrier_probe`.
        // A loop's back branch over more code than the nearest instruction cache holds
        // (`icache_l0_bytes`, the branch's `bytes=`) finds its target gone every trip:
        // the fetch begins at the branch and takes `icache_miss_cycles` more
        // (`data/gaps/brdist/`: 13 cycles over the counts a trip from 6192 bytes on, 4
        // up to 5168).
        let fetched = if d.op == Op::Bra && !off {
            let f = self.warps[slot as usize].issued_before + self.t.branch_target_cycles as u64;
            if d.loop_tail.is_none() && !d.after_probe {
                // (a branch on a per-thread predicate, the one a BSSY opened a region
                // for, redirects later: `per_thread_branch_cycles`, `data/gaps/brdist/`)
                let per_thread = if d.per_thread {
                    self.t.per_thread_branch_cycles as u64
                } else {
                    0
                };
                f.max(self.now + self.t.taken_branch_cycles as u64 + per_thread)
            } else if d.loop_tail.is_some()
                && d.branch_bytes != 0
                && d.branch_bytes.unsigned_abs() as f64 > self.t.icache_l0_bytes
            {
                f.max(
                    self.now
                        + self.t.branch_target_cycles as u64
                        + self.t.icache_miss_cycles as u64,
                )
            } else {
                f
            }
        } else {
            0
        };
        if off {
            self.issue_off(slot)?;
        } else {
            self.issue_instr(slot)?;
        }
        self.active_lanes = u32::MAX;
        let next = self.now + 1;
        // The control code's stall count holds the warp (Nsight's `wait`, charged to
        // the instruction it waits to issue). An instruction that blocked the warp holds
        // it at least as long: the count takes over if the block ends first.
        if stall > 1 || fetched > next {
            let w = &mut self.warps[slot as usize];
            if w.block != Block::None {
                w.stall_until = self.now + stall as u64;
            } else if !w.exited {
                let waited = self.now + stall as u64;
                let (t, state) = if fetched > waited {
                    (fetched, WarpState::NoInstruction)
                } else {
                    (waited, WarpState::Wait)
                };
                self.block(slot, Block::until(t, state, Cause::OWN));
            }
        }
        Ok(())
    }

    /// After an issue: the next instruction's registers, and when the warp is next
    /// looked at.
    #[inline(always)]
    pub(super) fn after_issue(&mut self, slot: u32, next: u64) {
        // The next instruction's registers, from next cycle: only the warp's own
        // issues change them, so this holds until its next issue.
        let w = &mut self.warps[slot as usize];
        // (An exited warp has no instruction.)
        let wait = match w.cur {
            Some(d) => {
                let wait = w.operands_wait(d, next);
                // A blocked warp (a stall count beyond one cycle blocks it too) has its
                // registers looked at again once the block ends.
                w.operands_clear_from = if w.block == Block::None {
                    wait.map_or(next, |x| x.1)
                } else {
                    u64::MAX
                };
                wait
            }
            _ => {
                w.operands_clear_from = u64::MAX;
                None
            }
        };
        // When that is a wait and nothing else holds the warp, it is the state the warp
        // will be in next cycle (nothing else unblocks or blocks a warp that is not
        // blocked): knowing it now spares that cycle a visit. With a sink the state
        // changes next cycle as before, so that events keep their order, unless the
        // sink takes states ahead (`Sink::STATES_AHEAD`).
        let due = match wait {
            Some((state, until, cause))
                if (!S::ENABLED || S::STATES_AHEAD) && w.block == Block::None =>
            {
                // Only `charge_issue` starts a span at `next`, so a span from `next` is
                // its `selected`: the state needs no comparison of its own (with a
                // sink, `set_state_at` also tells it).
                if !S::ENABLED && w.state_since == next {
                    debug_assert!(w.state == WarpState::Selected);
                    // The issue's `selected` span is charged and empty from `next` on
                    // (`charge_issue`), and a register wait is never `selected`: what
                    // `set_state_at` does, without its comparisons.
                    w.state = state;
                    w.cause = cause;
                    w.state_pc = w.pc;
                } else {
                    self.set_state_at(slot, state, cause, until, next);
                }
                until
            }
            _ => next,
        };
        self.set_until_ahead(slot, due);
    }

    /// Issues the warp's instruction: its effects, and its pc stepped to the next one.
    pub(super) fn issue_instr(&mut self, slot: u32) -> Result<(), SimError> {
        let now = self.now;
        let d: &'a DInstr = self.instr(slot);
        let t = self.t;
        let sp = self.warps[slot as usize].sp as usize & 3;
        self.charge_issue(slot, now);
        {
            let w = &mut self.warps[slot as usize];
            w.issued_before = w.last_issue;
            w.last_issue = now;
        }
        if S::ENABLED && self.tells_issue(slot) {
            let id = self.wid(slot);
            let w = &self.warps[slot as usize];
            let (role, pc) = (w.role, self.event_pc(slot, w.pc));
            self.sink.event(Event::Issue {
                cycle: now,
                warp: id,
                subpartition: sp as u8,
                role,
                pc,
            });
        }
        let p = d.pipe.index();
        let interval = paced!(self).book(&mut self.pipes, sp, p, now);
        hold_tensor(&mut self.tensor_free[sp], self.tensor_hold[p], now);
        if d.bank_conflict_cycles > 0 {
            self.pipes.dispatch_free[sp] = now + 1 + d.bank_conflict_cycles as u64;
        }
        // The pipe is busy to its free cycle: its interval, or longer where a math issue
        // beside a busy tensor core held the port (`Paced::book`); as `quiet_issue_events`.
        let busy_end = self.pipes.slots[sp][p].free;
        debug_assert!(busy_end >= now + interval);
        if S::ENABLED && busy_end > now + 1 {
            let id = self.wid(slot);
            self.sink.event(Event::UnitBusy {
                start: now,
                end: busy_end,
                unit: Unit::Pipe {
                    pipe: d.pipe,
                    subpartition: sp as u8,
                },
                warp: id,
            });
        }
        match &d.kind {
            Kind::Compute | Kind::Plain => {
                if let Some((cycles, stall)) = d.result {
                    self.set_dst(slot, d, now + cycles, stall);
                }
            }
            Kind::Load { space } | Kind::Store { space } => {
                let write = matches!(d.kind, Kind::Store { .. });
                match space {
                    Space::Shared => {
                        let m = &d.mem[0];
                        self.lane_addrs(slot, m, d.width, true)?;
                        let fronts = memory::smem_wavefronts(&self.addrs, d.width);
                        let waves = fronts as f64 * 128.0 / t.smem_bytes_per_clk;
                        // with the write queues on, an STS takes its turn in its own
                        // queue (`smem_write_queue_bytes`: its lowest lane address's)
                        let queue = (write && t.smem_write_queue > 0.0).then(|| {
                            self.write_queue(self.addrs.iter().copied().min().unwrap_or(0))
                        });
                        let side = match queue {
                            Some(q) => self.smem_write_free[q],
                            None => self.smem_side_free[write as usize],
                        };
                        let start = self.smem_free.max(side).max(now as f64);
                        // an STS shares the write side with a copy's bytes landing at its
                        // turn, an LDS the read side with a bulk store reading
                        // a store's registers are read in its turn on its sub-partition's
                        // store path, and it is written no sooner (`sts_read`)
                        let path = write && t.sts_read_bytes_per_clk > 0.0;
                        let bytes = d.width as f64 * 32.0;
                        let (waves, written, read) = if let Some(q) = queue {
                            let read = path.then(|| self.sts_read(sp, now, bytes, start + waves));
                            // its turn in the queue comes once its registers are read: a
                            // store whose data reaches shared memory among a copy's
                            // landing bytes is written after them, and holds the queue
                            let turn = read.map_or(start, |r| (r - waves).max(start));
                            let landed = self.after_landing(turn, q);
                            let written = if landed > turn {
                                landed + waves
                            } else {
                                start + waves
                            };
                            self.smem_write_free[q] = written;
                            (waves, written, read)
                        } else if write {
                            let waves = self.sts_beside_landing(start, waves);
                            let read = path.then(|| self.sts_read(sp, now, bytes, start + waves));
                            (waves, start + waves, read)
                        } else {
                            let waves = self.beside_stores(start, waves);
                            (waves, start + waves, None)
                        };
                        self.smem_free = start + waves;
                        let written = match read {
                            Some(read) => {
                                self.sts_registers_read(slot, d, memory::ceil(read));
                                written.max(read)
                            }
                            None => written,
                        };
                        // (with the queues on, the write side's is their latest: an
                        // arrive waits for every STS queued before it, `sync.rs`)
                        let s = &mut self.smem_side_free[write as usize];
                        *s = if queue.is_some() {
                            s.max(written)
                        } else {
                            written
                        };
                        self.smem_busy += waves;
                        self.smem_side_busy[write as usize] += waves;
                        self.smem_bytes += d.width as u64 * 32;
                        self.queue_push(Pipe::Mio, sp, now, memory::ceil(start));
                        self.emit_busy(slot, Unit::SharedMemory, start, self.smem_free);
                        // a load's wavefronts after its first lengthen its latency beyond
                        // their crossbar turns: those its width takes (LDS.64, LDS.128) by
                        // `lat_lds_width_wave` each, bank-conflict replays by
                        // `lat_lds_conflict_wave` (`data/gaps/ldsw/`, `ldsw2/`)
                        let extra = if write {
                            0.0
                        } else {
                            let wide = (d.width / 4).clamp(1, fronts.max(1));
                            f64::from(fronts.saturating_sub(wide)) * t.lat_lds_conflict_wave
                                + f64::from(wide - 1) * t.lat_lds_width_wave
                        };
                        let done = memory::ceil(start + waves + extra) + t.lat_lds as u64 - 1;
                        self.emit_mem(slot, MemLevel::Shared, d.width * 32, done, write);
                        if !write {
                            self.set_dst(slot, d, done, WarpState::ShortScoreboard);
                        } else {
                            let w = &mut self.warps[slot as usize];
                            w.sts_written = w.sts_written.max(memory::ceil(written));
                        }
                    }
                    Space::Global | Space::Local => {
                        let through_l1 = !d.bypass_l1;
                        let done = self.global_access(slot, d, 0, write, through_l1)?;
                        let w = &mut self.warps[slot as usize];
                        w.outstanding = w.outstanding.max(done);
                        if !write {
                            self.set_dst(slot, d, done, WarpState::LongScoreboard);
                        }
                    }
                    Space::Tmem => {
                        self.set_dst(
                            slot,
                            d,
                            now + t.lat_tmem_load as u64,
                            WarpState::ShortScoreboard,
                        );
                    }
                }
            }
            Kind::Exit => {
                let w = &mut self.warps[slot as usize];
                w.exited = true;
                w.cur = None;
                if S::ENABLED {
                    let id = self.wid(slot);
                    self.sink.event(Event::WarpExit {
                        cycle: now,
                        warp: id,
                    });
                }
                return Ok(());
            }
            // The rest, kept out of this function so that the common instructions'
            // path stays small (a match of every kind here left it spilling registers).
            _ => self.issue_other(slot, d, now, sp)?,
        }
        let w = &mut self.warps[slot as usize];
        w.pc += 1;
        // The common cases, straight-line code and the end of a loop's body followed by
        // an instruction, need no general loop control.
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

    /// `issue_instr`'s effects of the instructions other than arithmetic, loads, stores
    /// and EXIT.
    #[inline(never)]
    pub(super) fn issue_other(
        &mut self,
        slot: u32,
        d: &'a DInstr,
        now: u64,
        sp: usize,
    ) -> Result<(), SimError> {
        let t = self.t;
        match &d.kind {
            Kind::Shuffle => {
                // One wavefront (32 lanes x 4 bytes) through the shared-memory crossbar:
                // shuffles and shared loads share its bandwidth and the MIO queue.
                let waves = 128.0 / t.smem_bytes_per_clk;
                let start = self.smem_free.max(self.smem_side_free[0]).max(now as f64);
                self.smem_free = start + waves;
                self.smem_side_free[0] = self.smem_free;
                self.smem_busy += waves;
                self.smem_side_busy[0] += waves;
                self.queue_push(Pipe::Mio, sp, now, memory::ceil(start));
                self.emit_busy(slot, Unit::SharedMemory, start, self.smem_free);
                let done = memory::ceil(start + waves) + t.lat_shfl as u64 - 1;
                self.set_dst(slot, d, done, WarpState::ShortScoreboard);
            }
            Kind::Atomic { returns } => {
                let done = self.global_access(slot, d, 0, false, false)?;
                let w = &mut self.warps[slot as usize];
                w.outstanding = w.outstanding.max(done);
                if *returns {
                    self.set_dst(slot, d, done, WarpState::LongScoreboard);
                }
            }
            Kind::Ldgsts => {
                // The data then goes into shared memory; the group completes after that.
                // `.BYPASS` (cp.async.cg) reads L2 without allocating in L1.
                let fill = if d.bypass_l1 {
                    t.lat_ldgsts_bypass_fill
                } else {
                    t.lat_ldgsts_fill
                };
                let done = self.global_access(slot, d, 1, false, !d.bypass_l1)? + fill as u64;
                let w = &mut self.warps[slot as usize];
                w.cp_async.add(done);
                w.outstanding = w.outstanding.max(done);
            }
            Kind::CpAsyncCommit => self.warps[slot as usize].cp_async.commit(now),
            Kind::DepbarCpAsync | Kind::DepbarBulk | Kind::DepbarBulkRead | Kind::WgDepbar => {
                let n = self.eval(slot, &d.n)?;
                if n < 0 {
                    return Err(self.fault_at(slot, "a wait depth cannot be negative"));
                }
                let w = &mut self.warps[slot as usize];
                let (groups, state, group) = match d.kind {
                    Kind::DepbarCpAsync => {
                        (&mut w.cp_async, WarpState::LongScoreboard, GROUP_CP_ASYNC)
                    }
                    Kind::DepbarBulk => (&mut w.bulk_store, WarpState::LongScoreboard, GROUP_BULK),
                    Kind::DepbarBulkRead => {
                        (&mut w.bulk_read, WarpState::LongScoreboard, GROUP_BULK)
                    }
                    // (Nsight Compute counts a WARPGROUP.DEPBAR wait as `barrier`.)
                    _ => (&mut w.wgmma, WarpState::Barrier, GROUP_WGMMA),
                };
                let until = groups.wait_until(now, n as usize);
                if until > now + 1 {
                    self.block(slot, Block::until(until, state, Cause::group(group)));
                }
            }
            Kind::TmaLoad | Kind::TmaStore => self.tma_copy(slot, d, now)?,
            Kind::TmaCommit => {
                let w = &mut self.warps[slot as usize];
                w.bulk_store.commit(now);
                w.bulk_read.commit(now);
            }
            Kind::MbarInit => self.mbar_init(slot, d)?,
            Kind::MbarArrive { expect_tx } => self.mbar_arrive(slot, d, now, *expect_tx)?,
            Kind::MbarWait => self.mbar_wait(slot, d, now)?,
            Kind::Fence => {
                let until = self.fence_until(slot, now);
                self.block(slot, Block::until(until, WarpState::Membar, Cause::OWN));
            }
            Kind::Membar { gpu } => {
                let until = if *gpu {
                    (now + t.lat_membar_gpu as u64).max(self.warps[slot as usize].outstanding)
                } else {
                    self.fence_until(slot, now)
                };
                self.block(slot, Block::until(until, WarpState::Membar, Cause::OWN));
            }
            Kind::Nanosleep => {
                let ns = self.eval(slot, &d.n)?.max(0) as f64;
                let cycles = (ns * t.clock_mhz / 1000.0).ceil() as u64;
                self.block(
                    slot,
                    Block::until(now + cycles.max(1), WarpState::Sleeping, Cause::OWN),
                );
            }
            Kind::Rejoin => {
                let lanes = self.eval(slot, &d.n)?;
                if !(1..=32).contains(&lanes) {
                    return Err(self.fault_at(
                        slot,
                        &format!("a region is run by 1 to 32 lanes of its warp, not {lanes}"),
                    ));
                }
                if lanes < 32 {
                    // The parked lanes rejoin: the warp's next instruction issues this
                    // much later than after a converged BSYNC (its stall count).
                    let until = now + u64::from(d.stall) + t.bsync_rejoin_cycles as u64;
                    self.block(slot, Block::until(until, WarpState::Wait, Cause::OWN));
                }
            }
            Kind::WgArrive => self.warpgroup_arrive(slot, now)?,
            Kind::Hgmma { commit } => self.hgmma(slot, d, now, sp, *commit)?,
            Kind::Utcmma => self.utcmma(slot, d, now)?,
            Kind::Utcbar => {
                let idx = self.mbar_index(slot, d)?;
                let w = &self.warps[slot as usize];
                let (cta, at) = (w.cta, w.utc_done.max(now + 1));
                self.push_event(at, Ev::Arrive { cta, mbar: idx });
            }
            Kind::TmemLoad => self.set_dst(
                slot,
                d,
                now + t.lat_tmem_load as u64,
                WarpState::ShortScoreboard,
            ),
            Kind::TmemStore | Kind::TmemAlloc => {}
            Kind::BarSync | Kind::BarArrive => self.named_barrier(slot, d, now)?,
            Kind::ClusterArrive => self.cluster_arrive(slot, now),
            Kind::ClusterWait => self.cluster_wait(slot, now)?,
            Kind::Compute | Kind::Plain | Kind::Load { .. } | Kind::Store { .. } | Kind::Exit => {
                unreachable!("issue_instr issues these itself")
            }
        }
        Ok(())
    }
}

/// A short issue's result (`IssueClass::Plain`, `GlobalLoad`): its destination registers
/// from `dst_reg`, as `set_dst` writes them (lowering keeps them within the file).
#[inline(always)]
fn write_short_dst(regs: &mut [RegState; REG_ARRAY], d: &DInstr, reg: RegState) {
    let base = d.dst_reg as usize;
    regs[base % REG_ARRAY] = reg;
    // (Most write one: FP64 arithmetic and wide loads two or four.)
    if d.dst_count > 1 {
        for r in base + 1..base + d.dst_count as usize {
            regs[r % REG_ARRAY] = reg;
        }
    }
}

/// A warp-instruction issued at `now` takes `hold` cycles of its sub-partition's tensor
/// core, whose next free cycle is `tensor_free` (`tensor_hold`: on the H100 an FMA-pipe
/// instruction takes one, MUFU none): the next MMA starts after them (an MMA already
/// booked keeps its time).
#[inline(always)]
fn hold_tensor(tensor_free: &mut u64, hold: u64, now: u64) {
    if hold > 0 {
        *tensor_free = (*tensor_free).max(now) + hold;
    }
}
