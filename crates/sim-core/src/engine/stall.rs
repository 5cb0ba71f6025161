//! Stall accounting: every cycle of every warp in exactly one state, charged to one
//! instruction and, for a stall, to what it waits on. A warp's state lasts a span
//! (`set_state` closes one and opens the next); spans add to the warp's and the
//! instruction's totals (`PcTotals`) and, with a sink, become `StateChange` events with
//! their typed causes. `classify` decides a warp's state each time it is looked at.

use super::*;

/// What a stall waits on, besides the instruction it is charged to, packed in one word
/// (the kind above 32 bits, its text index, pipe, barrier or mbarrier number below) so
/// that the span accounting, which compares causes on every issue, compares one word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Cause(pub(super) u64);

/// A `Cause` unpacked.
pub(super) enum Unpacked {
    Own,
    Producer {
        text: u32,
    },
    Pipe(Pipe),
    Barrier {
        id: u32,
    },
    /// An mbarrier (its flat number) whose phase lacks arrivals.
    MbarArrivals {
        mbar: u32,
    },
    /// An mbarrier whose arrivals are in, its transaction bytes not.
    MbarCopies {
        mbar: u32,
    },
    Warpgroup {
        wg: u32,
    },
    Group(GroupKind),
}

impl Cause {
    /// The instruction itself (a stall count, a fence, an issue) says what it waits for.
    pub(super) const OWN: Cause = Cause(0);

    /// A register written by this instruction (text index in the role) is not ready.
    pub(super) fn producer(text: u32) -> Cause {
        Cause(1 << 32 | text as u64)
    }

    /// A busy pipe or a full queue.
    pub(super) fn pipe(p: Pipe) -> Cause {
        Cause(2 << 32 | p.index() as u64)
    }

    pub(super) fn barrier(id: u32) -> Cause {
        Cause(3 << 32 | id as u64)
    }

    /// An mbarrier's phase, by what it lacks.
    pub(super) fn mbar(m: &Mbar, flat: u32) -> Cause {
        let kind = if m.pending == 0 && m.tx > 0 { 5 } else { 4 };
        Cause(kind << 32 | flat as u64)
    }

    pub(super) fn warpgroup(wg: u32) -> Cause {
        Cause(6 << 32 | wg as u64)
    }

    /// A wait for async groups (`GROUP_*`).
    pub(super) fn group(group: u8) -> Cause {
        Cause(7 << 32 | group as u64)
    }

    /// An mbarrier's phase that lacked arrivals (`by_copies` false) or copies' bytes.
    pub(super) fn mbar_lacking(flat: u32, by_copies: bool) -> Cause {
        Cause(if by_copies { 5 } else { 4 } << 32 | flat as u64)
    }

    #[inline(always)]
    pub(super) fn unpack(self) -> Unpacked {
        let low = self.0 as u32;
        match self.0 >> 32 {
            0 => Unpacked::Own,
            1 => Unpacked::Producer { text: low },
            2 => Unpacked::Pipe(Pipe::ALL[low as usize % NPIPES]),
            3 => Unpacked::Barrier { id: low },
            4 => Unpacked::MbarArrivals { mbar: low },
            5 => Unpacked::MbarCopies { mbar: low },
            6 => Unpacked::Warpgroup { wg: low },
            _ => Unpacked::Group(group_kind(low as u8)),
        }
    }
}

// `Cause::pipe` packs a pipe's index and unpacking reads `Pipe::ALL` at it.
const _: () = {
    let mut i = 0;
    while i < NPIPES {
        assert!(Pipe::ALL[i] as usize == i);
        i += 1;
    }
};

/// The async groups a packed group number (`GROUP_*`) counts.
fn group_kind(group: u8) -> GroupKind {
    match group {
        GROUP_WGMMA => GroupKind::Wgmma,
        GROUP_CP_ASYNC => GroupKind::CpAsync,
        _ => GroupKind::BulkStore,
    }
}

/// One instruction's totals over every warp that ran it (one host line or so per
/// update: a span closes into its state's count and, for a stall, what it waited on).
pub(super) struct PcTotals {
    /// Per state, its cycles: an issue is one cycle of `selected`, and nothing else
    /// is, so `selected` counts the instruction's issues.
    pub(super) states: [u64; STATE_COUNT],
    /// What its stalls waited on, by state: few distinct entries per instruction. The
    /// first one (`Cause::OWN`: none yet) is kept here, where most stalls add to it
    /// without a look at the vector; `more_causes` holds the others, in order.
    pub(super) first_cause: (WarpState, Cause, u64),
    pub(super) more_causes: Vec<(WarpState, Cause, u64)>,
}

impl Default for PcTotals {
    fn default() -> PcTotals {
        PcTotals {
            states: [0; STATE_COUNT],
            first_cause: (WarpState::Wait, Cause::OWN, 0),
            more_causes: Vec::new(),
        }
    }
}

impl PcTotals {
    // Rare next to the span accounting it is called from: kept out of its code.
    #[inline(never)]
    pub(super) fn add_cause(&mut self, state: WarpState, cause: Cause, span: u64) {
        if self.first_cause.1 == Cause::OWN {
            self.first_cause = (state, cause, span);
            return;
        }
        match self
            .more_causes
            .iter_mut()
            .find(|c| c.0 == state && c.1 == cause)
        {
            Some(c) => c.2 += span,
            None => self.more_causes.push((state, cause, span)),
        }
    }

    /// What its stalls waited on, in the order first met.
    pub(super) fn causes(&self) -> impl Iterator<Item = &(WarpState, Cause, u64)> {
        let first = (self.first_cause.1 != Cause::OWN).then_some(&self.first_cause);
        first.into_iter().chain(self.more_causes.iter())
    }
}

/// A warp's state span of `span` cycles (not 0) added to its totals and to `at`, the
/// totals of the instruction it is charged to.
#[inline(always)]
pub(super) fn close_into(w: &mut Warp, at: &mut PcTotals, span: u64) {
    w.stats[w.state.index()] += span;
    at.states[w.state.index()] += span;
    if w.cause != Cause::OWN {
        // Most instructions' stalls wait on one thing: the first entry.
        let c = &mut at.first_cause;
        if c.1 == w.cause && c.0 == w.state {
            c.2 += span;
        } else {
            at.add_cause(w.state, w.cause, span);
        }
    }
}

impl<'a, S: Sink> Engine<'a, S> {
    /// Closes the warp's current state span and opens a new one.
    /// (`until`: when the state is known to end, for the event's cause.)
    pub(super) fn set_state(&mut self, slot: u32, state: WarpState, cause: Cause, until: u64) {
        self.set_state_at(slot, state, cause, until, self.now);
    }

    /// Closes the warp's current state span at cycle `now` (this cycle, or the next
    /// when an issue already knows the state the warp will be in then) and opens a new one.
    pub(super) fn set_state_at(
        &mut self,
        slot: u32,
        state: WarpState,
        cause: Cause,
        until: u64,
        now: u64,
    ) {
        self.change_state_at(slot, state, cause, until, now);
    }

    /// The cycle loop's `set_state`: with a sink inlined (a state change then costs its
    /// event and the sink's work, and the call's register saves were a tenth of that),
    /// without one the call as before.
    #[inline(always)]
    pub(super) fn set_state_in_loop(
        &mut self,
        slot: u32,
        state: WarpState,
        cause: Cause,
        until: u64,
    ) {
        if S::ENABLED {
            self.change_state_at(slot, state, cause, until, self.now);
        } else {
            self.set_state(slot, state, cause, until);
        }
    }

    /// `set_state_at`'s work, inlined where it is called.
    #[inline(always)]
    pub(super) fn change_state_at(
        &mut self,
        slot: u32,
        state: WarpState,
        cause: Cause,
        until: u64,
        now: u64,
    ) {
        let w = &mut self.warps[slot as usize];
        let pc = w.charged_pc();
        if w.state == state && w.state_pc == pc && w.cause == cause {
            return;
        }
        self.close_span(slot, now);
        self.open_span(slot, state, cause, pc, until, now);
    }

    /// Starts the warp's new state span at `now` (its last one closed). (Inlined into
    /// `set_state_at` and `charge_issue`: with a sink, a call per state change cost
    /// more than its own work.)
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn open_span(
        &mut self,
        slot: u32,
        state: WarpState,
        cause: Cause,
        pc: u32,
        until: u64,
        now: u64,
    ) {
        let w = &mut self.warps[slot as usize];
        w.state = state;
        w.cause = cause;
        w.state_since = now;
        w.state_pc = pc;
        if S::ENABLED {
            let (id, pc, cause) = self.change_fields(slot, pc, cause, until);
            self.sink.state_change(now, id, state, pc, cause);
        }
    }

    /// A state change's fields as its event names them: the warp, the instruction's
    /// number in the reports (`event_pc` of node `pc`) and the typed cause
    /// (None for `Cause::OWN`; `until`: when the state is known to end, `NEVER` if not
    /// known), from one look-up of the warp (each of the three looking the warp up
    /// again cost the timeline's runs about a tenth of a change).
    #[inline(always)]
    pub(super) fn change_fields(
        &self,
        slot: u32,
        pc: u32,
        cause: Cause,
        until: u64,
    ) -> (WarpId, u32, Option<WaitCause>) {
        // (The warp alone, without its CTA's or its role's entry: a tenth of a change.)
        let w = &self.warps[slot as usize];
        let id = WarpId {
            cta: w.cta_id,
            warp: w.warp,
        };
        let typed = match cause.unpack() {
            Unpacked::Own => None,
            Unpacked::Producer { text } => Some(WaitCause::Producer {
                pc: (text < w.texts).then_some(text),
                ready: until,
            }),
            Unpacked::Pipe(pipe) => Some(WaitCause::Pipe { pipe, free: until }),
            Unpacked::Group(group) => Some(WaitCause::WaitGroup { group, until }),
            sync => self.typed_sync_cause(slot, sync),
        };
        (id, w.node_text[pc as usize], typed)
    }

    /// The warp issues at `now`: its open span ends and it enters `selected` (as
    /// `set_state` does, events included), and the issue cycle is charged at once (an
    /// issue lasts one cycle), so the `selected` span left open starts next cycle and
    /// whatever state follows closes it empty: one span closed per issue, not two. The
    /// `selected` cycles are then the issues, per warp and per instruction (no other
    /// count is kept).
    pub(super) fn charge_issue(&mut self, slot: u32, now: u64) {
        let w = &self.warps[slot as usize];
        // A warp issues only when nothing blocks it: its state is charged to its pc.
        debug_assert!(w.block == Block::None);
        let pc = w.pc;
        if S::ENABLED {
            let unchanged =
                w.state == WarpState::Selected && w.state_pc == pc && w.cause == Cause::OWN;
            self.close_span(slot, now);
            if !unchanged {
                self.open_span(slot, WarpState::Selected, Cause::OWN, pc, now + 1, now);
            }
        } else {
            // Without events an unchanged span needs no comparison: the same fields
            // are written again (and `state_since` below either way).
            self.close_span(slot, now);
            let w = &mut self.warps[slot as usize];
            w.state = WarpState::Selected;
            w.cause = Cause::OWN;
            w.state_pc = pc;
        }
        let w = &mut self.warps[slot as usize];
        let selected = WarpState::Selected.index();
        w.stats[selected] += 1;
        self.pcs[(w.pc_base + pc) as usize].states[selected] += 1;
        w.state_since = now + 1;
    }

    /// Whether the warp's open span is already `selected` at its pc: an issue then
    /// changes no state (`charge_issue`'s test, for the short issues' events).
    #[inline(always)]
    pub(super) fn selected_unchanged(&self, slot: u32) -> bool {
        let w = &self.warps[slot as usize];
        w.state == WarpState::Selected && w.state_pc == w.pc && w.cause == Cause::OWN
    }

    /// A short issue's events at `now` (`issue_plain`, `issue_global_load`, for a sink
    /// that takes states ahead), as `issue_instr` gives them: the `selected` change
    /// (none when `unchanged`), the issue, and the pipe's busy time beyond one cycle
    /// (`start_quiet_issue` booked it: the pipe is free at the end of the interval).
    #[inline(always)]
    pub(super) fn quiet_issue_events(&mut self, slot: u32, d: &DInstr, unchanged: bool, now: u64) {
        let w = &self.warps[slot as usize];
        let (role, sp) = (w.role, w.sp as usize & 3);
        let (id, pc, _) = self.change_fields(slot, w.pc, Cause::OWN, now + 1);
        if !unchanged {
            self.sink
                .state_change(now, id, WarpState::Selected, pc, None);
        }
        if self.tells_issue(slot) {
            self.sink.issue(now, id, sp as u8, role, pc);
        }
        let end = self.pipes.slots[sp][d.pipe.index()].free;
        if end > now + 1 {
            let unit = Unit::Pipe {
                pipe: d.pipe,
                subpartition: sp as u8,
            };
            self.sink.unit_busy(now, end, unit, id);
        }
    }

    /// Whether the sink is told the issue the warp in `slot` has just made (and charged):
    /// every one, or for a sink without `Sink::EVERY_ISSUE` the warp's first since its
    /// launch.
    #[inline(always)]
    pub(super) fn tells_issue(&self, slot: u32) -> bool {
        S::EVERY_ISSUE || self.warps[slot as usize].stats[WarpState::Selected.index()] == 1
    }

    /// The wait a short issue found for its warp from `next` on (a register's, which
    /// `Warp::quiet_step` set, or a pipe's or the dispatch's, which `hold_ahead` set; due
    /// again at `due`), told to a sink that takes states
    /// ahead; nothing when the warp is still `selected` (no wait: looked at next cycle)
    /// or the step reached loop control (`after_issue` tells it).
    #[inline(always)]
    pub(super) fn quiet_wait_event(&mut self, slot: u32, next: u64, due: Option<u64>) {
        let w = &self.warps[slot as usize];
        let Some(until) = due else { return };
        if w.state == WarpState::Selected {
            return;
        }
        let (state, cause, pc) = (w.state, w.cause, w.state_pc);
        let (id, pc, cause) = self.change_fields(slot, pc, cause, until);
        self.sink.state_change(next, id, state, pc, cause);
    }

    /// Adds the time from the warp's state's start to `now` to its totals.
    #[inline(always)]
    pub(super) fn close_span(&mut self, slot: u32, now: u64) {
        let w = &mut self.warps[slot as usize];
        let span = now - w.state_since;
        if span == 0 {
            return;
        }
        close_into(w, &mut self.pcs[(w.pc_base + w.state_pc) as usize], span);
    }

    /// The warp's state this cycle and the first cycle it might change; None: eligible.
    pub(super) fn classify(&mut self, slot: u32) -> Option<(WarpState, u64, Cause)> {
        let now = self.now;
        let w = &mut self.warps[slot as usize];
        let d = match w.cur {
            // Nothing of the warp's own holds it (`operands_clear_from`): only the
            // sub-partition's pipe, queue and dispatch are left to look at.
            Some(d) if w.operands_clear_from <= now => {
                debug_assert!(w.block == Block::None && w.stall_until <= now);
                d
            }
            _ => {
                match w.block {
                    Block::None => {}
                    Block::Barrier { id } => {
                        return Some((WarpState::Barrier, NEVER, Cause::barrier(id)));
                    }
                    Block::Mbar { idx, .. } => {
                        let m = &self.ctas[w.cta as usize].mbars[idx as usize];
                        return Some((WarpState::LongScoreboard, NEVER, Cause::mbar(m, idx)));
                    }
                    Block::WgArrive => {
                        return Some((WarpState::Gmma, NEVER, Cause::warpgroup(w.warp / 4)));
                    }
                    Block::Cluster => return Some((WarpState::Barrier, NEVER, Cause::OWN)),
                    Block::Until {
                        t,
                        state,
                        cause_kind,
                        cause_low,
                    } => {
                        if t > now {
                            let cause = Cause((cause_kind as u64) << 32 | cause_low as u64);
                            return Some((state, t, cause));
                        }
                        w.block = Block::None;
                    }
                }
                if w.stall_until > now {
                    return Some((WarpState::Wait, w.stall_until, Cause::OWN));
                }
                // An exited warp has no instruction: it drains.
                let Some(d) = w.cur else {
                    debug_assert!(w.exited);
                    return Some((WarpState::Drain, w.outstanding.max(now), Cause::OWN));
                };
                debug_assert!(!w.exited);
                // Not known yet (the warp has not issued), not yet ready, or not looked
                // at while something else held the warp: what is found holds until the
                // warp's next issue, so later visits need not look again.
                let wait = w.operands_wait(d, now);
                w.operands_clear_from = wait.map_or(now, |x| x.1);
                if let Some(blocked) = wait {
                    return Some(blocked);
                }
                d
            }
        };
        let sp = w.sp as usize & 3;
        let p = d.pipe.index();
        // The pipe busy or its queue full: one test for both (most looks find neither).
        if self.pipes.slots[sp][p].ready > now {
            return Some(self.pipe_hold(sp, d.pipe, now));
        }
        // The sub-partition's dispatch is still collecting the operands of an earlier
        // instruction whose sources met in one register bank: nobody issues.
        if self.pipes.dispatch_free[sp] > now {
            return Some((
                WarpState::DispatchStall,
                self.pipes.dispatch_free[sp],
                Cause::OWN,
            ));
        }
        None
    }

    /// After a short issue whose step found the next instruction's registers clear at
    /// `next` (`due` is `next`): what classification would find holding the warp then,
    /// its pipe busy or its queue full, or its sub-partition's dispatch, made the warp's
    /// state from `next` on (as `Warp::quiet_step` makes a register wait), and the cycle
    /// it ends, when the warp is next looked at; else `due` as it was. Nothing between
    /// the issue and that classification changes what it reads: a sub-partition's pipes,
    /// queues and dispatch move only at its own issues, at most one a cycle (events and
    /// the other sub-partitions' issues leave them), and the warp's registers, block and
    /// pc move only at its own. So the visit at `next`, which in fa3-forward's softmax
    /// found a busy pipe after two issues in three, is spared.
    #[inline(always)]
    pub(super) fn hold_ahead(&mut self, slot: u32, due: Option<u64>, next: u64) -> Option<u64> {
        if due != Some(next) {
            return due;
        }
        let w = &self.warps[slot as usize];
        // (`quiet_step` made the next instruction current when it returned a cycle.)
        let Some(d) = w.cur else { return due };
        let sp = w.sp as usize & 3;
        let (state, until, cause) = if self.pipes.slots[sp][d.pipe.index()].ready > next {
            self.pipe_hold(sp, d.pipe, next)
        } else if self.pipes.dispatch_free[sp] > next {
            (
                WarpState::DispatchStall,
                self.pipes.dispatch_free[sp],
                Cause::OWN,
            )
        } else {
            return due;
        };
        // The issue's `selected` span is charged and empty from `next` on.
        let w = &mut self.warps[slot as usize];
        w.state = state;
        w.cause = cause;
        w.state_pc = w.pc;
        Some(until)
    }

    /// What holds a warp whose pipe is busy or whose pipe's queue is full at `now`:
    /// the pipe first (`math_pipe_throttle`), then the queue (its throttle state).
    #[inline]
    pub(super) fn pipe_hold(&self, sp: usize, pipe: Pipe, now: u64) -> (WarpState, u64, Cause) {
        let p = pipe.index();
        if self.pipes.slots[sp][p].free > now {
            return (
                WarpState::MathPipeThrottle,
                self.pipes.slots[sp][p].free,
                Cause::pipe(pipe),
            );
        }
        let t = self.pipes.slots[sp][p].queue_earliest;
        let state = match pipe {
            Pipe::Mio => WarpState::MioThrottle,
            Pipe::Lsu => WarpState::LgThrottle,
            _ => WarpState::MathPipeThrottle,
        };
        (state, t, Cause::pipe(pipe))
    }

    /// The typed cause of a barrier, an mbarrier or a warpgroup's arrival, for
    /// [`Self::change_fields`], which builds the common ones (`OWN`, a producer, a pipe,
    /// a wait group) from the packed word alone; these read the CTA, out of line.
    #[cold]
    #[inline(never)]
    fn typed_sync_cause(&self, slot: u32, cause: Unpacked) -> Option<WaitCause> {
        let w = &self.warps[slot as usize];
        let cta = &self.ctas[w.cta as usize];
        let mbarrier = |flat: u32| {
            let m = &cta.mbars[flat as usize];
            let (name, el) = self.mbar_name(flat);
            let parity = match w.block {
                Block::Mbar { parity, .. } => parity,
                _ => (m.phase & 1) as u32,
            };
            let owed = if m.pending == 0 && m.tx > 0 {
                // The copies that still count against this mbarrier.
                let (mut in_flight, mut lands) = (0, 0);
                for Reverse((t, _, ev)) in self.events.iter() {
                    if let Ev::TxComplete { cta: c, mbar, .. } = *ev
                        && c == w.cta
                        && mbar == flat
                    {
                        in_flight += 1;
                        lands = lands.max(*t);
                    }
                }
                MbarrierOwed::Copies { in_flight, lands }
            } else {
                MbarrierOwed::Arrivals {
                    roles: self.arriving_roles(flat),
                }
            };
            WaitCause::Mbarrier {
                mbarrier: flat,
                name: format!("{name}[{el}]"),
                parity,
                phases: m.phase,
                arrivals_missing: m.pending,
                count: m.count,
                tx_bytes_missing: m.tx,
                owed,
            }
        };
        Some(match cause {
            // (`change_fields` builds these itself.)
            Unpacked::Own | Unpacked::Producer { .. } | Unpacked::Pipe(_) | Unpacked::Group(_) => {
                return None;
            }
            Unpacked::Barrier { id } => {
                let b = cta.bars[id as usize];
                let per = self.warps_per_cta;
                let not_arrived = (w.cta * per..(w.cta + 1) * per)
                    .map(|o| &self.warps[o as usize])
                    .filter(|o| !(o.live && o.block == (Block::Barrier { id })))
                    .map(|o| o.warp)
                    .collect();
                WaitCause::Barrier {
                    id,
                    arrived: b.arrived,
                    expected: b.expected,
                    not_arrived,
                }
            }
            Unpacked::MbarArrivals { mbar } | Unpacked::MbarCopies { mbar } => mbarrier(mbar),
            Unpacked::Warpgroup { wg } => WaitCause::WarpgroupArrive {
                warpgroup: wg,
                arrived: cta.wg_arrived[wg as usize % 8],
            },
        })
    }

    /// A packed cause, for results.
    pub(super) fn waited(&self, role: usize, cause: Cause) -> Waited {
        let texts = &self.prog.roles[role].texts;
        let name = |flat: u32| {
            let (name, el) = self.mbar_name(flat);
            format!("{name}[{el}]")
        };
        match cause.unpack() {
            Unpacked::Producer { text } if (text as usize) < texts.len() => Waited::Producer {
                pc: Some(text),
                instruction: texts[text as usize].clone(),
            },
            Unpacked::Producer { .. } | Unpacked::Own => Waited::Producer {
                pc: None,
                instruction: String::new(),
            },
            Unpacked::Pipe(pipe) => Waited::Pipe { pipe },
            Unpacked::Barrier { id } => Waited::Barrier { id },
            Unpacked::MbarArrivals { mbar } => Waited::MbarrierArrivals {
                mbarrier: name(mbar),
                roles: self.arriving_roles(mbar),
            },
            Unpacked::MbarCopies { mbar } => Waited::MbarrierCopies {
                mbarrier: name(mbar),
            },
            Unpacked::Warpgroup { wg } => Waited::WarpgroupArrive { warpgroup: wg },
            Unpacked::Group(group) => Waited::WaitGroup { group },
        }
    }

    /// The names of the roles whose code arrives on the mbarrier `flat` (an
    /// SYNCS.ARRIVE or a tcgen05 commit on its declaration).
    pub(super) fn arriving_roles(&self, flat: u32) -> Vec<String> {
        self.prog
            .roles
            .iter()
            .filter(|r| {
                r.code.iter().any(|n| match n {
                    Node::Instr(d) => {
                        matches!(d.kind, Kind::MbarArrive { .. } | Kind::Utcbar)
                            && d.mbar
                                .as_ref()
                                .is_some_and(|(base, len, _)| (*base..base + len).contains(&flat))
                    }
                    _ => false,
                })
            })
            .map(|r| r.name.clone())
            .collect()
    }
}
