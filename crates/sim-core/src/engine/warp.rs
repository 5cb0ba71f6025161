//! A warp's state between cycles: its pc and loop counters, its registers' pending
//! writes, what blocks it (`Block`), its async groups; its launch, the loop control it
//! steps over (`settle`) and its retirement.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Block {
    None,
    Barrier {
        id: u32,
    },
    Mbar {
        idx: u32,
        parity: u32,
    },
    WgArrive,
    /// UCGABAR_WAIT on a phase of the cluster barrier that not every warp of the CTA has
    /// arrived on.
    Cluster,
    /// Until cycle `t`, in `state`, waiting on what the `Cause` packed in `cause_kind`
    /// and `cause_low` names (`Block::until`; two fields, not a `Cause`, keep a block
    /// two words).
    Until {
        t: u64,
        state: WarpState,
        cause_kind: u8,
        cause_low: u32,
    },
}

impl Block {
    /// `Block::Until` of a cause.
    pub(super) fn until(t: u64, state: WarpState, cause: Cause) -> Block {
        Block::Until {
            t,
            state,
            cause_kind: (cause.0 >> 32) as u8,
            cause_low: cause.0 as u32,
        }
    }
}

/// `Cause::group` of a wait for warpgroup MMAs, cp.async and bulk-store groups.
pub(super) const GROUP_WGMMA: u8 = 1;

pub(super) const GROUP_CP_ASYNC: u8 = 2;

pub(super) const GROUP_BULK: u8 = 3;

pub(super) struct Warp<'a> {
    pub(super) live: bool,
    pub(super) exited: bool,
    pub(super) cta: u32,
    /// Its CTA's launch id on this SM (`Cta::id`), as events name the warp: kept here
    /// so that a state change's event reads the warp alone (`change_fields`).
    pub(super) cta_id: u32,
    pub(super) warp: u32,
    pub(super) role: u16,
    /// Its sub-partition, below 4 (masked with 3 where it indexes, which spares the
    /// bounds checks).
    pub(super) sp: u8,
    pub(super) age: u64,
    pub(super) pc: u32,
    /// The instruction at `pc` (None before the warp's launch settles it, and once the
    /// warp has exited: classification's one test for both), kept so that
    /// classification and issue need not walk the program to find it.
    pub(super) cur: Option<&'a DInstr>,
    /// Its role's code, where an issue steps its pc. (The Vec, not a slice: one word
    /// in the warp; a slice's two cost the issue-bound benchmark more than they saved.)
    pub(super) code: &'a Vec<Node>,
    /// Its role's `RoleCode::node_text` (a node's instruction number in reports), and
    /// how many instruction texts the role has, for its events.
    pub(super) node_text: &'a Vec<u32>,
    pub(super) texts: u32,
    /// Where the warp's role begins in the per-instruction totals (`pcs`).
    pub(super) pc_base: u32,
    pub(super) vars: [i64; MAX_LOOP_DEPTH],
    pub(super) ends: [i64; MAX_LOOP_DEPTH],
    /// Per register, its pending write (together: one host cache line per lookup).
    /// (`REG_ARRAY` entries, the first `REG_SLOTS` used: an index masked to the array
    /// needs no bounds check.)
    pub(super) regs: Box<[RegState; REG_ARRAY]>,
    /// Per register, when the shared store that reads it last has read it (`ready`; the
    /// store as `writer`): a write to it waits until then (`DInstr::war`, `sts_read`).
    pub(super) reads: Box<[RegState; REG_ARRAY]>,
    /// From this cycle on, the registers of the instruction at `pc` are ready
    /// (`operands_wait` finds nothing) and nothing of the warp's own holds it (no block,
    /// no stall count, an instruction); u64::MAX: not known. Only the warp's own issue
    /// writes its registers, moves its pc or blocks it, and the issue works this out
    /// for the next instruction anyway, so classification need not look at the
    /// registers, the block or the stall count again. (Others only end a block.)
    pub(super) operands_clear_from: u64,
    pub(super) block: Block,
    /// The instruction that blocked the warp: stalls while blocked are charged to it.
    pub(super) block_pc: u32,
    pub(super) state: WarpState,
    /// What the current stall waits on, when it is not the instruction itself.
    pub(super) cause: Cause,
    pub(super) state_since: u64,
    pub(super) state_pc: u32,
    pub(super) wgmma: WaitGroups,
    /// HGMMAs this warp has issued: the i-th HGMMA of each of a warpgroup's four warps
    /// is one warpgroup MMA.
    pub(super) hgmma_issued: u32,
    /// UCGABAR_ARVs this warp has made: its WAIT waits for that many phases.
    pub(super) cga_arrivals: u32,
    pub(super) cp_async: WaitGroups,
    pub(super) bulk_store: WaitGroups,
    /// The same bulk-store groups, completing when their stores have read shared
    /// memory (`DEPBAR.LE.READ SB1`).
    pub(super) bulk_read: WaitGroups,
    pub(super) utc_done: u64,
    pub(super) outstanding: u64,
    /// When this warp's last shared-memory store has been written (its crossbar time's
    /// end): a CTA-scope fence waits for it (`engine/sync.rs`, `fence_until`).
    pub(super) sts_written: u64,
    pub(super) last_issue: u64,
    /// When the instruction before the last one issued: a branch enters the warp's
    /// instruction buffer when the instruction two before it issues.
    pub(super) issued_before: u64,
    /// Before this cycle the warp may not issue: the stall count of an instruction that
    /// also blocked the warp (a WARPGROUP.ARRIVE, a barrier, a wait) still holds it when
    /// the block ends sooner (the other warps of a warpgroup arrive a cycle later).
    pub(super) stall_until: u64,
    /// When its TRYWAIT issued, if that wait is a partial warp's (`lanes=` below 32) on a
    /// phase not yet complete: such a wait ends only at whole periods of
    /// `lat_mbarrier_lane_period` from then (`Engine::check_phase`). u64::MAX otherwise.
    pub(super) lane_wait_since: u64,
    pub(super) stats: [u64; STATE_COUNT],
    pub(super) started: u64,
    pub(super) finished: u64,
}

/// Async operations committed in groups and waited for by depth (wgmma wait_group,
/// cp.async and bulk-store wait groups): when each committed group completes.
#[derive(Default)]
pub(super) struct WaitGroups {
    /// Completion of the operations issued since the last commit.
    pub(super) open: u64,
    pub(super) committed: VecDeque<u64>,
}

impl WaitGroups {
    pub(super) fn add(&mut self, done: u64) {
        self.open = self.open.max(done);
    }

    pub(super) fn commit(&mut self, now: u64) {
        self.committed.push_back(self.open.max(now));
        self.open = 0;
    }

    pub(super) fn clear(&mut self) {
        self.open = 0;
        self.committed.clear();
    }

    /// The earliest cycle at which at most `n` committed groups are still pending.
    pub(super) fn wait_until(&mut self, now: u64, n: usize) -> u64 {
        self.committed.retain(|&t| t > now);
        if self.committed.len() <= n {
            return now;
        }
        // The (n+1)-th latest completion; groups beyond 64 pending are not told apart.
        let mut v: [u64; 64] = [0; 64];
        let k = self.committed.len().min(64);
        for (i, t) in self.committed.iter().take(k).enumerate() {
            v[i] = *t;
        }
        let v = &mut v[..k];
        v.sort_unstable_by(|a, b| b.cmp(a));
        v[n.min(k - 1)]
    }
}

/// A warp's register array: `REG_SLOTS` rounded up to a power of two, so that a
/// register index (below `REG_SLOTS`, by lowering) masked to it needs no bounds check
/// on the issue path. (The entries beyond are never read or written.)
pub(super) const REG_ARRAY: usize = REG_SLOTS.next_power_of_two();

// A `Plain` instruction without a result writes `NO_RESULT_REG`, which must be in the
// array and read by none (beyond `REG_SLOTS`).
const _: () = assert!(lower::NO_RESULT_REG as usize >= REG_SLOTS);

const _: () = assert!((lower::NO_RESULT_REG as usize) < REG_ARRAY);

/// A register's pending write.
#[derive(Clone, Copy)]
pub(super) struct RegState {
    /// When the value is ready.
    pub(super) ready: u64,
    /// The instruction (text index) that last wrote it.
    pub(super) writer: u32,
    /// What a reader waits in until then: its scoreboard (`wait` for a fixed latency,
    /// `long_scoreboard`, `short_scoreboard`).
    pub(super) stall: WarpState,
}

impl RegState {
    pub(super) const EMPTY: RegState = RegState {
        ready: 0,
        writer: u32::MAX,
        stall: WarpState::Wait,
    };
}

impl<'a> Warp<'a> {
    /// The end of a short issue of `d` on the warp itself: its pc stepped and, when the
    /// next node is an instruction, that instruction current, its register wait (from
    /// `next`) found and, if any, made the state from `next` on (the issue's `selected`
    /// span is charged and empty from `next`: nothing to close). Returns when the warp
    /// is next looked at, or None when the next node is the general loop control (the
    /// caller settles the warp).
    #[inline(always)]
    pub(super) fn quiet_step(&mut self, d: &DInstr, next: u64) -> Option<u64> {
        self.pc += 1;
        if let Some((s, head)) = d.loop_tail {
            self.loop_tail(s, head);
        }
        let code: &'a [Node] = self.code;
        let Node::Instr(n) = &code[self.pc as usize] else {
            return None;
        };
        self.cur = Some(n);
        // The instruction after it asked of the host's memory now, for the warp's next
        // issue (`prefetch_instr`).
        if let Some(Node::Instr(after)) = code.get(self.pc as usize + 1) {
            prefetch_instr(after);
        }
        Some(match self.operands_wait(n, next) {
            Some((state, until, cause)) => {
                self.operands_clear_from = until;
                self.state = state;
                self.cause = cause;
                self.state_pc = self.pc;
                until
            }
            None => {
                self.operands_clear_from = next;
                next
            }
        })
    }
}

/// Asks the host to bring the fields of `d` that an issue reads first (`DInstr`'s
/// leading ones) into its caches, changing nothing: a long role's instructions (fa3's
/// consumer: 1,500 records of 1,160 bytes) do not stay in the host's nearer caches, and
/// each issue's step to the next instruction waited on host memory.
#[inline(always)]
fn prefetch_instr(d: &DInstr) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p = (d as *const DInstr).cast::<i8>();
        // SAFETY: a prefetch reads nothing the program sees and never faults (SSE,
        // which every x86-64 host has); the addresses are within the record.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = d;
}

impl Warp<'_> {
    /// When the registers `d` reads or writes are not ready at `now`: the scoreboard
    /// state, the cycle they are, and the instruction that writes the latest of them.
    #[inline(always)]
    pub(super) fn operands_wait(&self, d: &DInstr, now: u64) -> Option<(WarpState, u64, Cause)> {
        let regs: &[RegState; REG_ARRAY] = &self.regs;
        // The latest pending register: only its time is compared here, its scoreboard
        // and writer are read once at the end (through the reference kept, which needs
        // no second bounds check).
        let (mut ready, mut latest) = if let [r] = *d.srcs {
            // One register (the chain's each instruction): no loop to set up. (Its
            // writer and scoreboard are read only when it is pending, as the loop's.)
            let reg = &regs[r as usize % REG_ARRAY];
            (reg.ready, reg)
        } else {
            let mut ready = 0u64;
            let mut latest = &regs[0];
            for &r in d.srcs.iter() {
                let reg = &regs[r as usize % REG_ARRAY];
                if reg.ready > ready {
                    ready = reg.ready;
                    latest = reg;
                }
            }
            (ready, latest)
        };
        if let Some((base, end)) = d.waw {
            // Write after write: wait only until this result would land after the
            // pending one (fixed-latency writes to one register then land in order).
            let own = d.own_latency;
            for reg in &regs[base as usize..end as usize] {
                let t = reg.ready.saturating_sub(own);
                if t > ready {
                    ready = t;
                    latest = reg;
                }
            }
        }
        if let Some((base, end)) = d.war {
            // Write after read: a shared store before it has not read them yet.
            for reg in &self.reads[base as usize..end as usize] {
                if reg.ready > ready {
                    ready = reg.ready;
                    latest = reg;
                }
            }
        }
        if ready <= now {
            return None;
        }
        let reg = latest;
        Some((reg.stall, ready, Cause::producer(reg.writer)))
    }

    /// Ends an iteration of the loop in `slot` whose head is at `head`: back to the
    /// body's first node, or past the tail when the loop is done.
    #[inline]
    pub(super) fn loop_tail(&mut self, slot: u8, head: u32) {
        let s = slot as usize;
        self.vars[s] += 1;
        if self.vars[s] < self.ends[s] {
            self.pc = head + 1;
        } else {
            self.pc += 1;
        }
    }

    /// The instruction the current state is charged to.
    pub(super) fn charged_pc(&self) -> u32 {
        if self.block == Block::None {
            self.pc
        } else {
            self.block_pc
        }
    }
}

impl<'a, S: Sink> Engine<'a, S> {
    // Rare next to the issue loop it is called from: kept out of its code.
    #[inline(never)]
    pub(super) fn launch_cta(&mut self, c: u32) -> Result<(), SimError> {
        let id = self.next_cta;
        self.next_cta += 1;
        let cta = &mut self.ctas[c as usize];
        cta.id = id;
        cta.grid_id = id * self.t.sm_count as u32;
        let wave = self.wave_ctas.max(1);
        cta.wave_first = cta.grid_id / wave * wave;
        cta.wave_len = wave.min(self.kernel.launch.grid.max(1) - cta.wave_first);
        cta.live = true;
        cta.warps_left = self.warps_per_cta;
        cta.bars = [NamedBar::default(); 16];
        cta.wg_arrived = [0; 8];
        (cta.cga_arrived, cta.cga_phases, cta.cga_release) = (0, 0, 0);
        cta.wg_mma = [[MmaBooking::default(); MMA_BOOKINGS]; 8];
        for (d, decl) in self.kernel.mbarriers.iter().enumerate() {
            let base = self.prog.mbar_base[d] as usize;
            for i in 0..decl.len as usize {
                cta.mbars[base + i] = Mbar {
                    count: decl.count,
                    pending: decl.count,
                    tx: 0,
                    phase: 0,
                    settled: 0,
                };
            }
        }
        if S::ENABLED {
            self.sink.event(Event::CtaLaunch {
                cycle: self.now,
                cta: id,
            });
        }
        for w in 0..self.warps_per_cta {
            let slot = c * self.warps_per_cta + w;
            let role = self
                .kernel
                .role_of(w)
                .ok_or_else(|| fault(format!("warp {w} has no role")))?;
            self.age_counter += 1;
            let now = self.now;
            let (grid_id, wave_len) = (
                self.ctas[c as usize].grid_id,
                self.ctas[c as usize].wave_len,
            );
            let terms = &mut self.warp_terms[slot as usize];
            terms.wave_len = wave_len;
            for (fixed, a) in terms
                .fixed
                .iter_mut()
                .zip(&self.prog.roles[role].warp_terms)
            {
                *fixed = a.warp_part(w, grid_id);
            }
            let warp = &mut self.warps[slot as usize];
            warp.live = true;
            warp.exited = false;
            warp.role = role as u16;
            warp.pc_base = self.role_pc_base[role];
            warp.cur = None;
            warp.code = &self.prog.roles[role].code;
            warp.node_text = &self.prog.roles[role].node_text;
            warp.texts = self.prog.roles[role].texts.len() as u32;
            warp.cta_id = id;
            warp.age = self.age_counter;
            warp.pc = 0;
            warp.block = Block::None;
            warp.regs[..REG_SLOTS].fill(RegState::EMPTY);
            if self.prog.has_war {
                warp.reads[..REG_SLOTS].fill(RegState::EMPTY);
            }
            warp.operands_clear_from = u64::MAX;
            warp.state = WarpState::Selected;
            warp.cause = Cause::OWN;
            warp.state_since = now;
            warp.state_pc = 0;
            warp.wgmma.clear();
            warp.hgmma_issued = 0;
            warp.cga_arrivals = 0;
            warp.cp_async.clear();
            warp.bulk_store.clear();
            warp.bulk_read.clear();
            warp.utc_done = 0;
            warp.outstanding = 0;
            warp.last_issue = 0;
            warp.issued_before = 0;
            warp.lane_wait_since = u64::MAX;
            warp.stats = [0; STATE_COUNT];
            warp.started = now;
            self.set_until(slot, now);
            self.settle(slot)?;
            if S::ENABLED {
                // Open the warp's first span; its first classification may replace it
                // in this same cycle.
                let id = self.wid(slot);
                let w = &self.warps[slot as usize];
                let pc = self.event_pc(slot, w.pc);
                self.sink.state_change(now, id, w.state, pc, None);
            }
        }
        Ok(())
    }

    /// Steps over loop control (which costs no cycles) to the next instruction. A warp
    /// that goes `MAX_EMPTY_TRIPS` loop trips without reaching one (a loop whose body is
    /// an `if` that never holds) faults: those trips take no cycle, so neither the
    /// watchdog nor Ctrl-C would ever end them.
    pub(super) fn settle(&mut self, slot: u32) -> Result<(), SimError> {
        let role = self.warps[slot as usize].role as usize;
        let code: &'a [Node] = &self.prog.roles[role].code;
        let mut trips = 0u32;
        loop {
            let pc = self.warps[slot as usize].pc as usize;
            match &code[pc] {
                Node::Instr(d) => {
                    self.warps[slot as usize].cur = Some(d);
                    return Ok(());
                }
                Node::End => {
                    // Falling off the end of a role's body exits, as EXIT would.
                    let w = &mut self.warps[slot as usize];
                    w.cur = None;
                    if !w.exited {
                        w.exited = true;
                        if S::ENABLED {
                            let id = self.wid(slot);
                            self.sink.event(Event::WarpExit {
                                cycle: self.now,
                                warp: id,
                            });
                        }
                    }
                    return Ok(());
                }
                Node::LoopHead {
                    slot: s,
                    start,
                    end,
                    exit,
                } => {
                    let (a, b) = (self.eval(slot, start)?, self.eval(slot, end)?);
                    let w = &mut self.warps[slot as usize];
                    if a >= b {
                        w.pc = *exit;
                    } else {
                        w.vars[*s as usize] = a;
                        w.ends[*s as usize] = b;
                        w.pc += 1;
                    }
                }
                Node::LoopTail { slot: s, head } => {
                    trips += 1;
                    if trips >= MAX_EMPTY_TRIPS {
                        return Err(self.fault_at(
                            slot,
                            &format!("{MAX_EMPTY_TRIPS} loop trips in a row without an instruction (a loop whose body never runs, its `if` never holding?): they would take no cycle, so the run stops here; give the loop fewer trips or its body an instruction"),
                        ));
                    }
                    self.warps[slot as usize].loop_tail(*s, *head);
                }
                Node::If { cond, exit } => {
                    let c = self.eval(slot, cond)?;
                    let w = &mut self.warps[slot as usize];
                    if c != 0 {
                        w.pc += 1;
                    } else {
                        w.pc = *exit;
                    }
                }
            }
        }
    }

    // Rare next to the issue loop it is called from: kept out of its code.
    #[inline(never)]
    pub(super) fn retire(&mut self, slot: u32) {
        let now = self.now;
        // Close the last span (drain) before the warp leaves.
        self.close_span(slot, now);
        let w = &mut self.warps[slot as usize];
        w.state_since = now;
        w.live = false;
        w.finished = now;
        let i = self.until_index(slot);
        self.until[i] = NEVER;
        if S::ENABLED {
            let id = self.wid(slot);
            self.sink.event(Event::WarpFinish {
                cycle: now,
                warp: id,
            });
        }
        let w = &self.warps[slot as usize];
        self.warp_summaries.push(WarpSummary {
            cta: self.ctas[w.cta as usize].id,
            warp: w.warp,
            role: self.prog.roles[w.role as usize].name.clone(),
            subpartition: w.sp,
            started: w.started,
            finished: now,
            instructions: w.stats[WarpState::Selected.index()],
            states: StateCounts::from_array(&w.stats),
        });
        let c = w.cta as usize;
        self.ctas[c].warps_left -= 1;
        if self.ctas[c].warps_left == 0 {
            self.ctas[c].live = false;
            self.ctas_done += 1;
            self.cta_done_cycles.push(now);
            if self.ctas_done == self.ctas_total {
                // The run ends with this cycle.
                self.stop_after = 0;
            }
            if S::ENABLED {
                self.sink.event(Event::CtaDone {
                    cycle: now,
                    cta: self.ctas[c].id,
                });
            }
            if self.ctas_claimed < self.ctas_total {
                self.ctas_claimed += 1;
                let at = now + self.t.cta_launch_cycles as u64;
                self.push_event(at, Ev::LaunchCta { slot: c as u32 });
            }
        }
    }

    pub(super) fn set_dst(&mut self, slot: u32, d: &DInstr, ready: u64, stall: WarpState) {
        if let Some((base, n)) = d.dst {
            let w = &mut self.warps[slot as usize];
            let reg = RegState {
                ready,
                writer: d.text,
                stall,
            };
            // Most instructions write one register.
            if n == 1 && (base as usize) < REG_SLOTS {
                w.regs[base as usize] = reg;
                return;
            }
            let end = (base + n as u16).min(REG_SLOTS as u16) as usize;
            w.regs[(base as usize).min(end)..end].fill(reg);
        }
    }

    /// Blocks the warp on the instruction it is issuing.
    pub(super) fn block(&mut self, slot: u32, b: Block) {
        let w = &mut self.warps[slot as usize];
        w.block = b;
        w.block_pc = w.pc;
    }
}

impl Warp<'_> {
    /// The warp `warp` of the CTA slot `cta`, on sub-partition `sp`, before any launch.
    pub(super) fn unlaunched(cta: u32, warp: u32, sp: u8) -> Self {
        Warp {
            live: false,
            exited: false,
            cta,
            cta_id: 0,
            warp,
            role: 0,
            sp,
            age: 0,
            pc: 0,
            cur: None,
            code: &NO_CODE,
            node_text: &NO_TEXT,
            texts: 0,
            pc_base: 0,
            vars: [0; MAX_LOOP_DEPTH],
            ends: [0; MAX_LOOP_DEPTH],
            regs: Box::new([RegState::EMPTY; REG_ARRAY]),
            reads: Box::new([RegState::EMPTY; REG_ARRAY]),
            operands_clear_from: u64::MAX,
            block: Block::None,
            block_pc: 0,
            state: WarpState::Selected,
            cause: Cause::OWN,
            state_since: 0,
            state_pc: 0,
            wgmma: WaitGroups::default(),
            hgmma_issued: 0,
            cga_arrivals: 0,
            cp_async: WaitGroups::default(),
            bulk_store: WaitGroups::default(),
            bulk_read: WaitGroups::default(),
            utc_done: 0,
            outstanding: 0,
            sts_written: 0,
            last_issue: 0,
            issued_before: 0,
            stall_until: 0,
            lane_wait_since: u64::MAX,
            stats: [0; STATE_COUNT],
            started: 0,
            finished: 0,
        }
    }
}
