//! What a stalled warp waits on, as data: in events ([`WaitCause`], with the cycles it
//! knows) and in results ([`Waited`], summed over a run).

use std::fmt;

use isa::Pipe;
use serde::Serialize;

/// What a warp's state waits on, as the engine knows it when the state starts (a wait
/// on an mbarrier's arrivals becomes a new state waiting on its copies once every
/// arrival is in): the thing, and when it is known to end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WaitCause {
    /// A register the instruction reads (or writes again) is still being written by
    /// the instruction at `pc` of the same role (None: written before a loop's first
    /// iteration, by code the role does not show).
    Producer {
        /// The producing instruction (numbered as `Event::Issue::pc`).
        pc: Option<u32>,
        /// When its result is ready.
        ready: u64,
    },
    /// The instruction's pipe is busy, or its queue (MIO, LSU, tensor) is full.
    Pipe {
        /// Which pipe.
        pipe: Pipe,
        /// When it takes the instruction (the state's end, if nothing else holds it).
        free: u64,
    },
    /// A named barrier (BAR.SYNC) that not every warp reached.
    Barrier {
        /// Its id.
        id: u32,
        /// Warps arrived in this round.
        arrived: u32,
        /// Warps it waits for.
        expected: u32,
        /// The CTA's warps that are not waiting on it (those that owe an arrival are
        /// among them).
        not_arrived: Vec<u32>,
    },
    /// An mbarrier phase that has not completed (SYNCS.PHASECHK.TRYWAIT).
    Mbarrier {
        /// Its number in the CTA (`RunHeader::mbarriers` names it).
        mbarrier: u32,
        /// Its name in the kernel: `full[0]`.
        name: String,
        /// The parity waited for.
        parity: u32,
        /// Phases completed so far.
        phases: u64,
        /// Arrivals the phase still lacks, of `count`.
        arrivals_missing: u32,
        /// Arrivals per phase.
        count: u32,
        /// Transaction bytes the phase still lacks (expected by an arrive, not landed).
        tx_bytes_missing: i64,
        /// Who owes the phase.
        owed: MbarrierOwed,
    },
    /// A warpgroup's WARPGROUP.ARRIVE, which its four warps make together.
    WarpgroupArrive {
        /// The warpgroup.
        warpgroup: u32,
        /// Its warps arrived so far.
        arrived: u32,
    },
    /// A wait for committed async groups (wgmma, cp.async, bulk store) to complete.
    WaitGroup {
        /// Which groups.
        group: GroupKind,
        /// When the wait ends.
        until: u64,
    },
}

/// Who has not yet done what an mbarrier's phase waits for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MbarrierOwed {
    /// Arrivals: the roles whose code arrives on this mbarrier (the producer warps, an
    /// MMA's commit).
    Arrivals {
        /// Their names.
        roles: Vec<String>,
    },
    /// Transaction bytes of copies (every arrival is in).
    Copies {
        /// How many copies are in flight (0: the bytes are expected and no copy is
        /// issued yet, as right after an expect-tx arrive that its copy follows).
        in_flight: u32,
        /// When the last of them lands (0 with none in flight).
        lands: u64,
    },
}

/// Async groups a wait counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupKind {
    /// Warpgroup MMAs (WARPGROUP.DEPBAR).
    Wgmma,
    /// cp.async copies (LDGDEPBAR / DEPBAR).
    CpAsync,
    /// Bulk stores (bulk wait_group).
    BulkStore,
}

impl fmt::Display for GroupKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GroupKind::Wgmma => "warpgroup MMA",
            GroupKind::CpAsync => "cp.async",
            GroupKind::BulkStore => "bulk store",
        })
    }
}

/// What a per-instruction stall waited on, summed over a run
/// (`PcStats::waits_on`): a [`WaitCause`] without its cycles.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Waited {
    /// The result of the instruction at `pc` of the role (None: a register written
    /// before a loop).
    Producer {
        /// The producing instruction.
        pc: Option<u32>,
        /// Its text.
        instruction: String,
    },
    /// A busy pipe or a full queue.
    Pipe {
        /// Which pipe.
        pipe: Pipe,
    },
    /// A named barrier.
    Barrier {
        /// Its id.
        id: u32,
    },
    /// An mbarrier phase that lacked arrivals.
    MbarrierArrivals {
        /// The mbarrier's name, `full[0]`.
        mbarrier: String,
        /// The roles that arrive on it.
        roles: Vec<String>,
    },
    /// An mbarrier phase whose arrivals were in, waiting for copies to land.
    MbarrierCopies {
        /// The mbarrier's name, `full[0]`.
        mbarrier: String,
    },
    /// A warpgroup's WARPGROUP.ARRIVE.
    WarpgroupArrive {
        /// The warpgroup.
        warpgroup: u32,
    },
    /// Committed async groups.
    WaitGroup {
        /// Which groups.
        group: GroupKind,
    },
}

impl fmt::Display for Waited {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Waited::Producer {
                pc: Some(pc),
                instruction,
            } => write!(f, "the result of pc {pc} `{instruction}`"),
            Waited::Producer { pc: None, .. } => f.write_str("a register written before the loop"),
            Waited::Pipe { pipe } => write!(f, "the {} pipe", pipe.name()),
            Waited::Barrier { id } => write!(f, "named barrier {id}"),
            Waited::MbarrierArrivals { mbarrier, roles } => {
                write!(f, "{mbarrier}'s arrivals (by {})", roles.join(", "))
            }
            Waited::MbarrierCopies { mbarrier } => {
                write!(f, "{mbarrier}'s copies in flight")
            }
            Waited::WarpgroupArrive { warpgroup } => {
                write!(f, "warpgroup {warpgroup}'s WARPGROUP.ARRIVE")
            }
            Waited::WaitGroup { group } => write!(f, "{group} groups"),
        }
    }
}
