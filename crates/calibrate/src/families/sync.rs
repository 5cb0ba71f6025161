//! BAR.SYNC and mbarrier latencies.
//!
//! The collector's section (run on the GPU) and the simulated twins of its benchmarks, side by side.

use crate::bench::*;
use crate::gpu::{Result, arg};
use crate::twins::*;

impl Runner {
    pub(crate) fn lat_barsync(&mut self) -> Result<()> {
        let iters: i32 = if self.quick { 256 } else { 1024 };
        let reps = self.reps(8, 3);
        let out = self.out.ptr;
        for warps in [1u32, 2, 4, 8, 16, 32] {
            self.launch(
                "lat_barsync",
                1,
                32 * warps,
                0,
                &[arg(&iters), arg(&reps), arg(&out)],
            )?;
            let raw = self.out_u64(reps as usize)?;
            let per: Vec<f64> = raw.iter().map(|t| *t as f64 / f64::from(iters)).collect();
            self.push(Rec {
                name: format!("lat.bar_sync.warps_{warps}"),
                group: "latency",
                unit: "cycles",
                kernel: "lat_barsync",
                method: "back-to-back bar.sync 0 by every thread of the block; cycles per barrier seen by thread 0",
                params: vec![("warps", v(warps)), ("iters", v(iters))],
                reps: per,
                extra: vec![],
            });
        }
        Ok(())
    }

    pub(crate) fn lat_mbarrier(&mut self) -> Result<()> {
        let iters: i32 = if self.quick { 200 } else { 1000 };
        let reps = self.reps(16, 4);
        let (out, err) = (self.out.ptr, self.err.ptr);
        self.clear_err()?;
        self.launch(
            "lat_mbar_pingpong",
            1,
            64,
            0,
            &[arg(&iters), arg(&reps), arg(&out), arg(&err)],
        )?;
        self.check_err("lat_mbar_pingpong")?;
        let raw = self.out_u64(reps as usize)?;
        let rt: Vec<f64> = raw.iter().map(|t| *t as f64 / f64::from(iters)).collect();
        let one_way: Vec<f64> = rt.iter().map(|x| x / 2.0).collect();
        self.push(Rec {
            name: "lat.mbarrier.pingpong_roundtrip".into(),
            group: "latency",
            unit: "cycles",
            kernel: "lat_mbar_pingpong",
            method: "warp 0 arrives on bar0 and waits on bar1, warp 1 waits on bar0 and arrives on bar1 \
                     (one lane each, try_wait.parity loops); cycles per round trip",
            params: vec![("iters", v(iters)), ("warps", v(2))],
            reps: rt,
            extra: vec![],
        });
        self.push(Rec {
            name: "lat.mbarrier.arrive_to_wait".into(),
            group: "latency",
            unit: "cycles",
            kernel: "lat_mbar_pingpong",
            method: "half the ping-pong round trip: one arrive by one warp until the other warp's wait returns",
            params: vec![("iters", v(iters)), ("warps", v(2))],
            reps: one_way,
            extra: vec![],
        });
        self.clear_err()?;
        self.launch(
            "lat_mbar_self",
            1,
            32,
            0,
            &[arg(&iters), arg(&reps), arg(&out), arg(&err)],
        )?;
        self.check_err("lat_mbar_self")?;
        let raw = self.out_u64(reps as usize)?;
        let per: Vec<f64> = raw.iter().map(|t| *t as f64 / f64::from(iters)).collect();
        self.push(Rec {
            name: "lat.mbarrier.self_arrive_wait".into(),
            group: "latency",
            unit: "cycles",
            kernel: "lat_mbar_self",
            method: "one thread: arrive (count 1) then try_wait.parity on the phase it completed; cycles per pair",
            params: vec![("iters", v(iters))],
            reps: per,
            extra: vec![],
        });
        self.clear_err()?;
        self.launch(
            "lat_mbar_probe",
            1,
            32,
            0,
            &[arg(&iters), arg(&reps), arg(&out), arg(&err)],
        )?;
        self.check_err("lat_mbar_probe")?;
        let raw = self.out_u64(reps as usize)?;
        let per: Vec<f64> = raw.iter().map(|t| *t as f64 / f64::from(iters)).collect();
        self.push(Rec {
            name: "lat.mbarrier.probe_completed".into(),
            group: "latency",
            unit: "cycles",
            kernel: "lat_mbar_probe",
            method: "one thread: try_wait.parity on a phase that completed before the loop, its predicate deciding \
                     the branch; cycles per try_wait",
            params: vec![("iters", v(iters))],
            reps: per,
            extra: vec![],
        });
        Ok(())
    }
}

/// The BAR.SYNC loop with `warps` warps.
fn barsync(bench: &str, warps: u32) -> Twin {
    let src = format!(
        "{}role all warps=0..{}\n  loop i 0..{{N}}\n    BAR.SYNC 0\n  EXIT\n",
        header("barsync", warps * 32, 32, 0, 1),
        warps - 1
    );
    Twin {
        bench: bench.into(),
        group: "sync",
        params: &[
            "lat_bar",
            "bar_arrive_cycles_per_warp",
            "sync_issue_interval",
        ],
        method: Method::Slope {
            src,
            lo: 64,
            hi: 320,
            per: 1.0,
        },
        what: format!("{warps} warps, back-to-back BAR.SYNC 0; cycles per barrier"),
    }
}

fn mbar_pingpong(bench: &str, per: f64) -> Twin {
    let src = format!(
        "{}mbarrier b[2] count=1\nrole ping warps=0..0\n  loop i 0..{{N}}\n    SYNCS.ARRIVE.TRANS64 b[0]\n    SYNCS.PHASECHK.TRANS64.TRYWAIT b[1], parity=i & 1\n  EXIT\nrole pong warps=1..1\n  loop i 0..{{N}}\n    SYNCS.PHASECHK.TRANS64.TRYWAIT b[0], parity=i & 1\n    SYNCS.ARRIVE.TRANS64 b[1]\n  EXIT\n",
        header("mbar_pingpong", 64, 32, 0, 1)
    );
    Twin {
        bench: bench.into(),
        group: "sync",
        params: &["lat_mbarrier_wake", "sync_issue_interval"],
        method: Method::Slope {
            src,
            lo: 64,
            hi: 320,
            per,
        },
        what: "two warps hand an mbarrier phase back and forth (arrive, the other's wait returns)"
            .into(),
    }
}

fn mbar_self(bench: &str) -> Twin {
    let src = format!(
        "{}mbarrier b[1] count=1\nrole main warps=0..0\n  loop i 0..{{N}}\n    SYNCS.ARRIVE.TRANS64 b[0]\n    SYNCS.PHASECHK.TRANS64.TRYWAIT b[0], parity=i & 1\n  EXIT\n",
        header("mbar_self", 32, 32, 0, 1)
    );
    Twin {
        bench: bench.into(),
        group: "sync",
        params: &[
            "lat_mbarrier_probe",
            "lat_mbarrier_arrive",
            "sync_issue_interval",
        ],
        method: Method::Slope {
            src,
            lo: 64,
            hi: 320,
            per: 1.0,
        },
        what: "one warp arrives on an mbarrier (count 1) and waits for the phase it completed"
            .into(),
    }
}

/// One warp waits again and again on a phase completed before the loop.
fn mbar_probe(bench: &str) -> Twin {
    let src = format!(
        "{}mbarrier b[1] count=1\nrole main warps=0..0\n  SYNCS.ARRIVE.TRANS64 b[0]\n  loop i 0..{{N}}\n    SYNCS.PHASECHK.TRANS64.TRYWAIT b[0], parity=0\n  EXIT\n",
        header("mbar_probe", 32, 32, 0, 1)
    );
    Twin {
        bench: bench.into(),
        group: "sync",
        params: &["lat_mbarrier_probe", "sync_issue_interval"],
        method: Method::Slope {
            src,
            lo: 64,
            hi: 320,
            per: 1.0,
        },
        what: "one warp: try_wait on a phase that completed before the loop; cycles per try_wait"
            .into(),
    }
}

/// BAR.SYNC with 1 to 32 warps; mbarrier ping-pong, self arrive-wait and probe of a completed phase.
pub(crate) fn twins(v: &mut Vec<Twin>) {
    // --- synchronization
    for w in [1u32, 2, 4, 8, 16, 32] {
        v.push(barsync(&format!("lat.bar_sync.warps_{w}"), w));
    }
    v.push(mbar_pingpong("lat.mbarrier.pingpong_roundtrip", 1.0));
    v.push(mbar_pingpong("lat.mbarrier.arrive_to_wait", 2.0));
    v.push(mbar_self("lat.mbarrier.self_arrive_wait"));
    v.push(mbar_probe("lat.mbarrier.probe_completed"));
}
