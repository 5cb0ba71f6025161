//! The timeline's rows: per run, each CTA's roles as groups (a group row of state
//! shares, then its warps unless folded), then the units, memory levels and barriers.

use std::collections::HashSet;

use sim_core::sink::{MemLevel, Unit};

use crate::model::RunData;

/// One row of the timeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Which run (0, or 1 in compare mode).
    pub run: usize,
    /// What it shows.
    pub kind: RowKind,
}

/// What a row shows.
#[derive(Clone, Debug, PartialEq)]
pub enum RowKind {
    /// A run's title (compare mode).
    Title,
    /// A role's warps in one CTA, as shares of states.
    Group {
        /// The CTA's launch id.
        cta: u32,
        /// The role's index.
        role: u16,
        /// Indices of its warps in the timeline.
        warps: Vec<usize>,
        /// Its warps' rows are hidden.
        folded: bool,
    },
    /// One warp (its index in the timeline).
    Warp(usize),
    /// Units busy, averaged over `lanes` of them (a pipe's sub-partitions).
    Units {
        /// The row's label.
        label: String,
        /// Indices in the timeline's units.
        units: Vec<usize>,
        /// What 100% busy is: how many of the units can be busy at once.
        lanes: u64,
    },
    /// Bytes served by memory levels, shaded against the run's busiest column.
    Memory {
        /// The row's label.
        label: String,
        /// Indices in the timeline's memory levels.
        levels: Vec<usize>,
    },
    /// Synchronisation events: mbarrier phases (true) or barrier releases (false).
    Sync {
        /// Mbarrier phases rather than named-barrier releases.
        mbarrier: bool,
    },
}

/// Which groups are folded and which pipes show their sub-partitions.
#[derive(Clone, Debug, Default)]
pub struct Folds {
    /// Folded groups: (run, CTA, role).
    pub groups: HashSet<(usize, u32, u16)>,
    /// Pipes shown one row per sub-partition: (run, the pipe row's label).
    pub pipes: HashSet<(usize, String)>,
}

/// The rows of `runs` with `folds` applied; `units` adds the unit, memory and barrier
/// rows.
pub fn build_rows(runs: &[RunData], folds: &Folds, units: bool) -> Vec<Row> {
    let folded = &folds.groups;
    let mut rows = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        let push = |rows: &mut Vec<Row>, kind| rows.push(Row { run: r, kind });
        if runs.len() > 1 {
            push(&mut rows, RowKind::Title);
        }
        let t = &run.timeline;
        // Groups in launch order: warps arrive by CTA, then by warp index.
        let mut groups: Vec<(u32, u16, Vec<usize>)> = Vec::new();
        for (i, w) in t.warps.iter().enumerate() {
            match groups.iter_mut().find(|g| g.0 == w.id.cta && g.1 == w.role) {
                Some(g) => g.2.push(i),
                None => groups.push((w.id.cta, w.role, vec![i])),
            }
        }
        groups.sort_by_key(|g| (g.0, g.1));
        for (cta, role, warps) in groups {
            let f = folded.contains(&(r, cta, role));
            push(
                &mut rows,
                RowKind::Group {
                    cta,
                    role,
                    warps: warps.clone(),
                    folded: f,
                },
            );
            if !f {
                for w in warps {
                    push(&mut rows, RowKind::Warp(w));
                }
            }
        }
        if units {
            unit_rows(run, &mut rows, r, folds);
        }
    }
    rows
}

/// A row per pipe (its sub-partitions averaged), TMA, L2 and HBM traffic, and the
/// barriers.
fn unit_rows(run: &RunData, rows: &mut Vec<Row>, r: usize, folds: &Folds) {
    let t = &run.timeline;
    let mut pipes: Vec<(isa::Pipe, Vec<usize>)> = Vec::new();
    let mut others: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, u) in t.units.iter().enumerate() {
        match u.unit {
            Unit::Pipe { pipe, .. } => match pipes.iter_mut().find(|p| p.0 == pipe) {
                Some(p) => p.1.push(i),
                None => pipes.push((pipe, vec![i])),
            },
            other => {
                let label = match other {
                    Unit::Tma => "TMA",
                    Unit::SharedMemory => "shared mem",
                    Unit::L1 => "L1",
                    Unit::Pipe { .. } => unreachable!(),
                };
                match others.iter_mut().find(|o| o.0 == label) {
                    Some(o) => o.1.push(i),
                    None => others.push((label.to_string(), vec![i])),
                }
            }
        }
    }
    pipes.sort_by_key(|p| p.0 as u8);
    for (pipe, units) in pipes {
        // A pipe per sub-partition (the tensor pipe's bookings are reported by each
        // sub-partition that uses it): busy is averaged over the four, as
        // `RunResult::units` does.
        let lanes = 4;
        let label = format!("{} pipe", pipe.name());
        let expanded = folds.pipes.contains(&(r, label.clone()));
        rows.push(Row {
            run: r,
            kind: RowKind::Units {
                label,
                units: units.clone(),
                lanes,
            },
        });
        if expanded {
            let mut units = units;
            units.sort_by_key(|&u| match t.units[u].unit {
                Unit::Pipe { subpartition, .. } => subpartition,
                _ => 0,
            });
            for u in units {
                let sp = match t.units[u].unit {
                    Unit::Pipe { subpartition, .. } => subpartition,
                    _ => 0,
                };
                rows.push(Row {
                    run: r,
                    kind: RowKind::Units {
                        label: format!(" {} sp{sp}", pipe.name()),
                        units: vec![u],
                        lanes: 1,
                    },
                });
            }
        }
    }
    for (label, units) in others {
        rows.push(Row {
            run: r,
            kind: RowKind::Units {
                label,
                units,
                lanes: 1,
            },
        });
    }
    let level = |want: &[MemLevel]| -> Vec<usize> {
        t.memory
            .iter()
            .enumerate()
            .filter(|(_, m)| want.contains(&m.level))
            .map(|(i, _)| i)
            .collect()
    };
    let l2 = level(&[MemLevel::L2Near, MemLevel::L2Far, MemLevel::Hbm]);
    if !l2.is_empty() {
        rows.push(Row {
            run: r,
            kind: RowKind::Memory {
                label: "L2 bytes".into(),
                levels: l2,
            },
        });
    }
    let hbm = level(&[MemLevel::Hbm]);
    if !hbm.is_empty() {
        rows.push(Row {
            run: r,
            kind: RowKind::Memory {
                label: "HBM bytes".into(),
                levels: hbm,
            },
        });
    }
    use sim_core::timeline::SyncKind;
    if t.syncs
        .iter()
        .any(|e| matches!(e.kind, SyncKind::MbarrierPhase { .. }))
    {
        rows.push(Row {
            run: r,
            kind: RowKind::Sync { mbarrier: true },
        });
    }
    if t.syncs
        .iter()
        .any(|e| matches!(e.kind, SyncKind::BarrierRelease { .. }))
    {
        rows.push(Row {
            run: r,
            kind: RowKind::Sync { mbarrier: false },
        });
    }
}
