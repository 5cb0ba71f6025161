//! The [`Sink`] that fills a [`Timeline`]: each state change's kind (state,
//! instruction, cause) found in a table all warps share, causes kept once per distinct
//! wait, warps and units found by number, not by search.

use std::hash::Hasher;
use std::sync::atomic::Ordering;

use crate::cause::WaitCause;
use crate::sink::{Event, MemLevel, RunEnd, RunHeader, Sink, Unit, WarpId};
use crate::state::WarpState;

use super::Timeline;
use super::spans::{KIND_BITS, Kind, NO_CAUSE, STATE_BITS, WarpTimeline};
use super::units::{MemoryTimeline, SyncEvent, SyncKind, UnitTimeline};

/// Kinds a timeline can name: past this many (a run with over a hundred million
/// barrier waits, each a kind of its own), new spans keep their state but name the
/// first kind met with their instruction and no cause, or the first kind.
pub(super) const KIND_LIMIT: usize = 1 << (KIND_BITS - STATE_BITS);

/// Kinds without a cause are found by `pc_state` in an array up to this size (roles of
/// up to 8,192 instructions); past it, by the hash map like the others.
const PLAIN_LIMIT: usize = 1 << 18;

/// A kind as the timeline looks it up while the run goes: `pc_state` with the cause's
/// own key ([`Timeline::cause_key`]), so that a recurring kind costs one lookup in one
/// small table that all warps share (they run the same code).
pub(super) type KindKey = (u64, u64, u64);

/// A hasher for the cause keys (a few integers): a multiply and a rotate per word, as
/// rustc's FxHasher does. The default SipHash cost a tenth of a long run's time.
#[derive(Default)]
pub(super) struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        // The multiplies leave the low bits, which pick the bucket, depending on the
        // inputs' low bits only: fold the high half down (as rustc-hash 2 does), else
        // keys differing in their high bits collide and probe long chains.
        self.0 ^ (self.0 >> 32)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u8(&mut self, x: u8) {
        self.write_u64(u64::from(x));
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// Moves a cause's cycles by `f` (to and from their span's start).
pub(super) fn shift_cycles(c: &mut WaitCause, f: impl Fn(u64) -> u64) {
    use crate::cause::MbarrierOwed;
    match c {
        WaitCause::Producer { ready, .. } => *ready = f(*ready),
        WaitCause::Pipe { free, .. } => *free = f(*free),
        WaitCause::WaitGroup { until, .. } => *until = f(*until),
        WaitCause::Mbarrier {
            owed: MbarrierOwed::Copies { lands, .. },
            ..
        } => *lands = f(*lands),
        WaitCause::Mbarrier { .. }
        | WaitCause::Barrier { .. }
        | WaitCause::WarpgroupArrive { .. } => {}
    }
}

/// Entries of [`Timeline::kind`]'s table of recent kinds (a power of two).
const RECENT: usize = 8192;

/// A kind key's entry in the table of recent kinds.
fn recent_slot(k: &KindKey) -> usize {
    let h = (k.0 ^ k.1.rotate_left(21) ^ k.2.rotate_left(42)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h >> (64 - RECENT.trailing_zeros())) as usize
}

/// A small number per unit, for a table lookup per `UnitBusy` event: one number per
/// unit (None for a sub-partition past 3, none today), so that the table's entry is
/// the unit's without comparing units.
#[inline(always)]
fn unit_code(u: Unit) -> Option<usize> {
    match u {
        Unit::Pipe { pipe, subpartition } if subpartition < 4 => {
            Some(pipe as usize * 4 + subpartition as usize)
        }
        Unit::Pipe { .. } => None,
        Unit::Tma => Some(4 * isa::Pipe::ALL.len()),
        Unit::SharedMemory => Some(4 * isa::Pipe::ALL.len() + 1),
        Unit::L1 => Some(4 * isa::Pipe::ALL.len() + 2),
    }
}

impl Timeline {
    /// A key of a cause of a span starting at `start`, for causes that recur (a
    /// producer, a pipe, a wait group at the same distance from their span's start, a
    /// warpgroup's arrivals); None for those kept once per span (barriers and
    /// mbarriers, whose phases and arrivals move on).
    #[inline(always)]
    fn cause_key(cause: &WaitCause, start: u64) -> Option<(u8, u64, u64)> {
        let rel = |x: u64| x.wrapping_sub(start);
        match cause {
            WaitCause::Producer { pc, ready } => {
                Some((0, pc.map_or(u64::MAX, u64::from), rel(*ready)))
            }
            WaitCause::Pipe { pipe, free } => Some((1, *pipe as u64, rel(*free))),
            WaitCause::WaitGroup { group, until } => Some((2, *group as u64, rel(*until))),
            WaitCause::WarpgroupArrive { warpgroup, arrived } => {
                Some((3, u64::from(*warpgroup), u64::from(*arrived)))
            }
            _ => None,
        }
    }

    /// Keeps a cause of a span starting at `start` (`key`: its [`Self::cause_key`]);
    /// its index.
    fn intern(&mut self, cause: WaitCause, start: u64, key: Option<(u8, u64, u64)>) -> u32 {
        if let Some(k) = key
            && let Some(&i) = self.cause_keys.get(&k)
        {
            return i;
        }
        let mut c = cause;
        shift_cycles(&mut c, |x| x.wrapping_sub(start));
        let i = self.causes.len() as u32;
        self.causes.push(c);
        if let Some(k) = key {
            self.cause_keys.insert(k, i);
        }
        i
    }

    /// The kind (state, instruction, cause) of a change at `cycle`, as a span names
    /// it: one lookup when the run has met it before. Inlined into the engine's state
    /// changes (a long run makes tens of millions): a kind met before is found in a
    /// table without a call; [`Self::kind_slow`] finds or adds the others.
    #[inline(always)]
    fn kind(&mut self, cycle: u64, state: WarpState, pc: u32, cause: Option<WaitCause>) -> u32 {
        let pc_state = pc << STATE_BITS | state as u32;
        match &cause {
            // Most changes wait on nothing outside their instruction (selected,
            // not_selected, a dispatch stall): those kinds by `pc_state` in a plain array.
            None => {
                if let Some(&i) = self.plain_kinds.get(pc_state as usize)
                    && i != u32::MAX
                {
                    return i << STATE_BITS | state as u32;
                }
            }
            // A warp in a loop waits on the same producers at the same distances again
            // and again: a small direct-mapped table of the kinds met lately.
            Some(c) => {
                if let Some(key) = Self::kind_key(pc_state, c, cycle)
                    && let Some(&(rk, i)) = self.recent.get(recent_slot(&key))
                    && rk == key
                {
                    return i << STATE_BITS | state as u32;
                }
            }
        }
        self.kind_slow(cycle, state, pc, cause)
    }

    /// The [`KindKey`] of a change with a cause: None for causes kept once per span.
    #[inline(always)]
    fn kind_key(pc_state: u32, cause: &WaitCause, cycle: u64) -> Option<KindKey> {
        Self::cause_key(cause, cycle)
            .map(|(k, a, b)| (u64::from(pc_state) | u64::from(k) << 32, a, b))
    }

    /// [`Self::kind`] of a kind not in its tables: by the hash map, or added.
    #[inline(never)]
    fn kind_slow(
        &mut self,
        cycle: u64,
        state: WarpState,
        pc: u32,
        cause: Option<WaitCause>,
    ) -> u32 {
        let pc_state = pc << STATE_BITS | state as u32;
        let plain = cause.is_none() && (pc_state as usize) < PLAIN_LIMIT;
        let no_cause = (u64::from(pc_state) | u64::from(u8::MAX) << 32, 0, 0);
        let key = match &cause {
            None => Some(no_cause),
            Some(c) => Self::kind_key(pc_state, c, cycle),
        };
        let slot = key.map(|k| recent_slot(&k));
        if let (Some(k), Some(r)) = (key, slot)
            && let Some(&(rk, i)) = self.recent.get(r)
            && rk == k
        {
            return i << STATE_BITS | state as u32;
        }
        let found = key.and_then(|k| self.kind_of.get(&k).copied());
        let i = match found {
            Some(i) => i,
            None if self.kinds.len() >= KIND_LIMIT => {
                self.kind_of.get(&no_cause).copied().unwrap_or(0)
            }
            None => {
                let cause = match cause {
                    Some(c) => {
                        let ck = Self::cause_key(&c, cycle);
                        self.intern(c, cycle, ck)
                    }
                    None => NO_CAUSE,
                };
                let i = self.kinds.len() as u32;
                self.kinds.push(Kind { pc_state, cause });
                if let Some(k) = key {
                    self.kind_of.insert(k, i);
                }
                if plain {
                    let at = pc_state as usize;
                    if self.plain_kinds.len() <= at {
                        self.plain_kinds.resize(at + 1, u32::MAX);
                    }
                    self.plain_kinds[at] = i;
                }
                i
            }
        };
        if let (Some(k), Some(r)) = (key, slot) {
            if self.recent.is_empty() {
                self.recent = vec![((u64::MAX, u64::MAX, u64::MAX), 0); RECENT];
            }
            self.recent[r] = (k, i);
        }
        i << STATE_BITS | state as u32
    }

    #[inline(always)]
    fn unit_index(&mut self, unit: Unit) -> usize {
        if let Some(code) = unit_code(unit)
            && let Some(&i) = self.unit_slots.get(code)
            && i != u32::MAX
        {
            return i as usize;
        }
        self.unit_index_slow(unit)
    }

    #[inline(never)]
    fn unit_index_slow(&mut self, unit: Unit) -> usize {
        let i = match self.units.iter().position(|u| u.unit == unit) {
            Some(i) => i,
            None => {
                self.units.push(UnitTimeline::new(unit));
                self.units.len() - 1
            }
        };
        if let Some(code) = unit_code(unit) {
            if self.unit_slots.len() <= code {
                self.unit_slots.resize(code + 1, u32::MAX);
            }
            self.unit_slots[code] = i as u32;
        }
        i
    }

    #[inline(always)]
    fn warp_mut(&mut self, id: WarpId, cycle: u64) -> &mut WarpTimeline {
        let i = self.warp_slot(id, cycle);
        &mut self.warps[i]
    }

    /// The index in `warps` of a warp, which starts at `cycle` if it is new: one
    /// table read for a warp met before.
    #[inline(always)]
    fn warp_slot(&mut self, id: WarpId, cycle: u64) -> usize {
        let w = id.warp as usize;
        if w < self.stride
            && let Some(&i) = self.slots.get(id.cta as usize * self.stride + w)
            && i != u32::MAX
        {
            return i as usize;
        }
        self.new_warp_slot(id, cycle)
    }

    /// [`Self::warp_slot`] of a warp not met before (or past the table).
    #[inline(never)]
    fn new_warp_slot(&mut self, id: WarpId, cycle: u64) -> usize {
        let w = id.warp as usize;
        if w >= self.stride {
            self.restride(w + 1);
        }
        let at = id.cta as usize * self.stride + w;
        if self.slots.len() <= at {
            self.slots
                .resize((id.cta as usize + 1) * self.stride, u32::MAX);
        }
        if self.slots[at] == u32::MAX {
            self.slots[at] = self.warps.len() as u32;
            let mut tw = WarpTimeline::new(id, cycle);
            // Its role, by the warp ranges the header gives.
            if let Some(h) = &self.header
                && let Some(r) = h
                    .roles
                    .iter()
                    .position(|r| (r.first_warp..=r.last_warp).contains(&id.warp))
            {
                tw.role = r as u16;
            }
            // A warp of a role seen finishing before likely changes state as often:
            // room for as many spans at once spares the copies of a growing vector.
            if let Some(&n) = self.typical_spans.get(tw.role as usize)
                && n > 0
            {
                tw.reserve(n + n / 8);
            }
            self.warps.push(tw);
        }
        self.slots[at] as usize
    }

    /// Makes room for `stride` warps per CTA in the table of warps (a warp past the
    /// header's roles, or no header: rare).
    fn restride(&mut self, stride: usize) {
        let old = std::mem::take(&mut self.slots);
        let ctas = old.len().div_ceil(self.stride.max(1));
        self.slots = vec![u32::MAX; ctas * stride];
        for (i, &v) in old.iter().enumerate() {
            let (c, w) = (i / self.stride, i % self.stride);
            self.slots[c * stride + w] = v;
        }
        self.stride = stride;
    }
}

impl Sink for Timeline {
    // (`WarpTimeline::change` drops a span opened ahead that a change at an earlier
    // cycle supersedes, and `catch_up` ends a partial frame past every open span.)
    const STATES_AHEAD: bool = true;
    // (An issue only sets its warp's role and sub-partition, the same at every issue.)
    const EVERY_ISSUE: bool = false;

    fn begin(&mut self, header: &RunHeader) {
        self.header = Some(header.clone());
        let warps = header.roles.iter().map(|r| r.last_warp as usize + 1).max();
        self.restride(warps.unwrap_or(1).max(self.stride));
        self.roles = header.roles.iter().map(|r| r.name.clone()).collect();
    }

    fn finish(&mut self, end: &RunEnd) {
        self.finish_all(end);
    }

    fn keep_going(&mut self) -> bool {
        self.stop
            .as_ref()
            .is_none_or(|s| !s.load(Ordering::Relaxed))
    }

    #[inline(always)]
    fn state_change(
        &mut self,
        cycle: u64,
        warp: WarpId,
        state: WarpState,
        pc: u32,
        cause: Option<WaitCause>,
    ) {
        let kind = self.kind(cycle, state, pc, cause);
        self.warp_mut(warp, cycle).change(cycle, kind)
    }

    // Inlined into the engine: the variant is known where the engine builds the event,
    // so a state change, an issue or a unit's busy time costs no call and no copy of
    // the event; the rare ones are out of line.
    #[inline(always)]
    fn event(&mut self, e: Event) {
        match e {
            Event::StateChange {
                cycle,
                warp,
                state,
                pc,
                cause,
            } => self.state_change(cycle, warp, state, pc, cause),
            Event::Issue {
                cycle,
                warp,
                subpartition,
                role,
                ..
            } => {
                let w = self.warp_mut(warp, cycle);
                w.role = role;
                w.subpartition = subpartition;
            }
            Event::UnitBusy {
                start, end, unit, ..
            } => {
                let i = self.unit_index(unit);
                if end > start {
                    self.units[i].add(start, end);
                }
            }
            e => self.rare_event(e),
        }
    }
}

impl Timeline {
    /// The events other than state changes, issues and units' busy time.
    #[inline(never)]
    fn rare_event(&mut self, e: Event) {
        match e {
            Event::StateChange { .. } | Event::Issue { .. } | Event::UnitBusy { .. } => {
                unreachable!("`event` takes these")
            }
            Event::WarpExit { cycle, warp } => self.warp_mut(warp, cycle).exited = Some(cycle),
            Event::WarpFinish { cycle, warp } => {
                let w = self.warp_mut(warp, cycle);
                w.finish_seen = Some(cycle);
                let (role, n) = (w.role as usize, w.len());
                if self.typical_spans.len() <= role {
                    self.typical_spans.resize(role + 1, 0);
                }
                self.typical_spans[role] = self.typical_spans[role].max(n);
            }
            // L1 hits and shared-memory accesses are the SM's own traffic, as many as
            // its loads: the viewer shows what crosses to L2 and HBM.
            Event::Memory {
                level: MemLevel::L1 | MemLevel::Shared,
                ..
            } => {}
            Event::Memory {
                done, level, bytes, ..
            } => {
                let i = match self.memory.iter().position(|m| m.level == level) {
                    Some(i) => i,
                    None => {
                        self.memory.push(MemoryTimeline {
                            level,
                            requests: Vec::new(),
                            prefix: Vec::new(),
                        });
                        self.memory.len() - 1
                    }
                };
                self.memory[i].requests.push((done, bytes));
            }
            Event::MbarrierPhase {
                cycle,
                cta,
                mbarrier,
                phase,
            } => self.syncs.push(SyncEvent {
                cycle,
                cta,
                kind: SyncKind::MbarrierPhase { mbarrier, phase },
            }),
            Event::BarrierRelease { cycle, cta, id } => self.syncs.push(SyncEvent {
                cycle,
                cta,
                kind: SyncKind::BarrierRelease { id },
            }),
            Event::CtaLaunch { cycle, cta } => self.syncs.push(SyncEvent {
                cycle,
                cta,
                kind: SyncKind::CtaLaunch,
            }),
            Event::CtaDone { cycle, cta } => self.syncs.push(SyncEvent {
                cycle,
                cta,
                kind: SyncKind::CtaDone,
            }),
        }
    }
}
