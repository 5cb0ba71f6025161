//! The event stream. The engine pushes events into a [`Sink`]; reports, the timeline
//! viewer and trace exporters implement it. With [`NoSink`] the engine builds no event
//! at all: every emission is guarded by the sink's `ENABLED` constant.

use isa::Pipe;
use serde::Serialize;

use crate::state::WarpState;

/// A warp, named by the CTA it belongs to (its launch order on this SM) and its index
/// in the CTA.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct WarpId {
    pub cta: u32,
    pub warp: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Unit {
    Pipe { pipe: Pipe, subpartition: u8 },
    Tma,
    SharedMemory,
    L1,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Event {
    CtaLaunch {
        cycle: u64,
        cta: u32,
    },
    CtaDone {
        cycle: u64,
        cta: u32,
    },
    /// A warp issued the instruction at `pc` of its role. (`pc` numbers a role's
    /// instructions in source order from 0, as reports do: `PcStats::pc`.)
    Issue {
        cycle: u64,
        warp: WarpId,
        subpartition: u8,
        role: u16,
        pc: u32,
    },
    /// A warp entered `state` at `cycle` (and stays in it until its next StateChange),
    /// charged to the instruction at `pc` (numbered as in `Issue`).
    StateChange {
        cycle: u64,
        warp: WarpId,
        state: WarpState,
        pc: u32,
    },
    /// A unit is busy from `start` to `end` on behalf of `warp`.
    UnitBusy {
        start: u64,
        end: u64,
        unit: Unit,
        warp: WarpId,
    },
    /// A memory request: `bytes` from the level that served it, complete at `done`.
    Memory {
        cycle: u64,
        done: u64,
        warp: WarpId,
        level: MemLevel,
        bytes: u32,
        write: bool,
    },
    /// An mbarrier completed a phase (`phase` is the number of phases completed so far).
    MbarrierPhase {
        cycle: u64,
        cta: u32,
        mbarrier: u32,
        phase: u64,
    },
    /// A named barrier released its warps.
    BarrierRelease {
        cycle: u64,
        cta: u32,
        id: u32,
    },
    WarpExit {
        cycle: u64,
        warp: WarpId,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MemLevel {
    L1,
    L2Near,
    L2Far,
    Hbm,
    Shared,
}

pub trait Sink {
    /// False for sinks that want nothing: the engine then builds no events.
    const ENABLED: bool = true;
    fn event(&mut self, e: Event);
}

/// Discards everything, at no cost.
pub struct NoSink;

impl Sink for NoSink {
    const ENABLED: bool = false;
    fn event(&mut self, _: Event) {}
}

/// Keeps every event, for tests and exporters.
#[derive(Default)]
pub struct VecSink {
    pub events: Vec<Event>,
}

impl Sink for VecSink {
    fn event(&mut self, e: Event) {
        self.events.push(e);
    }
}
