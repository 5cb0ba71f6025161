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

/// One iteration of `lat_mbar_pingpong`'s loop as each warp runs it (micro.cu; its SASS in
/// `MICRO_SASS`, 0x280 to 0x5a0, with every instruction's stall count): the loop head
/// (ISETP, VIADD, YIELD, ULDC, BSSY, ISETP) and the branch on the warp, then ping arrives on
/// b0 and waits on b1, pong waits on b0 and arrives on b1, each wait's success branch over
/// its spin (the engine's TRYWAIT suspends), the BSYNCs, the parity's LOP3 and the back
/// branch. YIELD, BSSY and BSYNC are NOPs with their counts, ULDC an ALU slot. The path is
/// here so that `lat_mbarrier_wake` is the wake alone: fitted on the two synchronization
/// instructions by themselves it would hold the path too, which twins running their own
/// SASS path (the gemm ws producer) would then pay twice (`data/gaps/hgmma/`: the
/// producer's wake measures 85 to 88 cycles from the consumer's clock read before its
/// arrive to the producer's after its wait).
const PINGPONG_PATH: [&str; 2] = [
    "    ISETP.NE.AND P0, PT, R0, RZ, PT
    IADD3 R10, R10, RZ
    NOP stall=5
    IADD3 R11, RZ, RZ
    NOP
    ISETP.NE.AND P1, PT, R10, R11, PT, stall=4
    @UP5 BRA stall=9
    IADD3 R6, R5, RZ
    SYNCS.ARRIVE.TRANS64 b[0], stall=3
    SYNCS.PHASECHK.TRANS64.TRYWAIT b[1], parity=i & 1, stall=2
    @UP5 BRA stall=5
    NOP stall=5
    IADD3 R5, R5, RZ
    @!P1 BRA stall=6
",
    "    ISETP.NE.AND P0, PT, R0, RZ, PT
    IADD3 R10, R10, RZ
    NOP stall=5
    IADD3 R11, RZ, RZ
    NOP
    ISETP.NE.AND P1, PT, R10, R11, PT, stall=4
    @UP0 BRA stall=9
    IADD3 R6, R5, RZ
    NOP stall=3
    SYNCS.PHASECHK.TRANS64.TRYWAIT b[0], parity=i & 1, stall=2
    @UP5 BRA stall=5
    NOP stall=5
    SYNCS.ARRIVE.TRANS64 b[1]
    @UP5 BRA stall=5
    NOP stall=5
    IADD3 R5, R5, RZ
    @!P1 BRA stall=6
",
];

fn mbar_pingpong(bench: &str, per: f64) -> Twin {
    let src = format!(
        "{}mbarrier b[2] count=1\npred UP0 = 0\npred UP5 = 1\nrole ping warps=0..0\n  loop i 0..{{N}}\n{}  EXIT\nrole pong warps=1..1\n  loop i 0..{{N}}\n{}  EXIT\n",
        header("mbar_pingpong", 64, 32, 0, 1),
        PINGPONG_PATH[0],
        PINGPONG_PATH[1]
    );
    Twin {
        bench: bench.into(),
        group: "sync",
        // the path's ALU slots and its branches' target fetch too
        params: &[
            "lat_mbarrier_wake",
            "sync_issue_interval",
            "lat_alu",
            "branch_target_cycles",
        ],
        method: Method::Slope {
            src,
            lo: 64,
            hi: 320,
            per,
        },
        what:
            "two warps hand an mbarrier phase back and forth (arrive, the other's wait returns), \
               each running its loop's SASS path"
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The ping-pong's round trip is two wakes and the two warps' loop paths, which do not
    /// depend on the wake: each cycle of `lat_mbarrier_wake` is two of the round trip, and
    /// the profile's value reproduces the measured round trip (the median over the
    /// committed GPUs) within the fit's tolerance.
    #[test]
    fn pingpong_round_trip_is_two_wakes_and_the_path() {
        let t = mbar_pingpong("lat.mbarrier.pingpong_roundtrip", 1.0);
        let p = sim_core::Profile::builtin("h100").unwrap();
        let at = |w: f64| {
            let mut q = p.clone();
            q.set("lat_mbarrier_wake", w).unwrap();
            t.eval(&q).unwrap()
        };
        let path = at(60.0) - 120.0;
        for w in [40.0, 73.0, 110.0] {
            assert_eq!(at(w), 2.0 * w + path, "wake {w}");
        }
        // The path is at least the stall counts from each wake to that warp's arrive:
        // pong's BRA and BSYNC (5 + 5), ping's BRA, BSYNC, LOP3, back branch, loop head,
        // its forward branch (at its count 9) and SHF (5 + 5 + 1 + 6 + 1 + 1 + 5 + 1 + 1 +
        // 4 + 9 + 1).
        assert!(path >= 50.0, "path {path}");
        let (m, _) =
            crate::across::median_data(&crate::workspace_path(crate::DATA_DIR), None).unwrap();
        let measured = m.get("lat.mbarrier.pingpong_roundtrip").unwrap().median;
        let sim = t.eval(&p).unwrap();
        assert!(
            (sim / measured - 1.0).abs() < 0.005,
            "simulated {sim} against measured {measured}"
        );
    }
}
