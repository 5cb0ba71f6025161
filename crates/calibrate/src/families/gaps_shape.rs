//! The shapes behind the leave-one-GPU-out misses and the loaded HBM latency (issue 25):
//! the collector's side of `gaps.shape` (opt-in: `calibrate-collect --only
//! clock.light,gaps.shape`). Finer sizes of two committed curves, `lat.bulk.l2.*` (a
//! bulk copy's latency from L2, 256 B to 8 KiB in steps of 256 B, at four source
//! addresses) and `lat.ldg_lines.l2.*` (a warp-load of 1 to 32 lines from L2, every
//! count), and a 16 KiB copy's latency from HBM and from L2 on one SM while a number of
//! other SMs stream HBM; `gaps.shape_stream`: the one-SM copy stream by chunk and stages, and the
//! copy latency while SMs read L2.

use crate::bench::*;
use crate::gpu::{Result, arg};

/// Where the copies' sources start: the committed `lat.bulk.l2.*` address (the arena's
/// 512 MiB) and three others, so that a knee that moves with the lines' L2 partitions
/// shows as a difference between them.
const BULK_OFFSETS: [(&str, u64); 4] = [
    ("a0", 512 * MIB),
    ("a64k", 512 * MIB + 64 * 1024),
    ("a1m", 513 * MIB + 4096),
    ("a3m", 515 * MIB + 2048),
];

impl Runner {
    /// `gaps.shape`: the three sweeps, one after another.
    pub(crate) fn gaps_shape(&mut self) -> Result<()> {
        self.shape_bulk_l2()?;
        self.shape_ldg_lines()?;
        self.shape_loaded(1, "hbm_stream")
    }

    /// `gaps.shape_stream`: one SM's bulk-copy stream from L2 (`bw.tma.l2.one_sm.*`, the
    /// same kernel and protocol) at more chunk sizes and copies in flight, 1 to 4 (as
    /// many as fit in 192 KiB of shared memory), and a 16 KiB copy's latency on one SM
    /// while N SMs read private spans warm in L2 (`gap_loaded`'s load 3).
    pub(crate) fn gaps_shape_stream(&mut self) -> Result<()> {
        for kib in [8u32, 12, 16, 20, 24, 28, 32, 40, 48, 64] {
            for stages in 1..=4i32 {
                if kib * stages as u32 > 192 {
                    continue;
                }
                let name = format!("gap.shape.stream.chunk_{kib}KiB.stages_{stages}");
                self.bw_tma_run(&name, 8 * MIB, 1, 32 * MIB, true, "L2", kib * 1024, stages)?;
            }
        }
        self.shape_loaded(3, "l2_private")
    }

    /// One thread, bulk copies from L2 of 256 B to 8 KiB (steps of 256 B) at each of
    /// `BULK_OFFSETS`: as `lat_bulk` from L2 (a warm launch of two copies, then the
    /// timed launch of the same source), cycles per copy.
    fn shape_bulk_l2(&mut self) -> Result<()> {
        self.k("lat_bulk")?.func.allow_smem(64 * 1024)?;
        let reps = self.reps(16, 4);
        for (label, offset) in BULK_OFFSETS {
            let src = self.arena.ptr + offset;
            for bytes in (256u32..=8192).step_by(256) {
                self.clear_err()?;
                for n in warm_then_timed(false, reps) {
                    self.launch_lat_bulk(src, 0, bytes, n)?;
                }
                self.check_err("lat_bulk")?;
                let raw = self.out_u64(reps as usize)?;
                self.push(Rec {
                    name: format!("gap.shape.bulk_l2.{label}.bytes_{bytes}"),
                    group: "gaps",
                    unit: "cycles",
                    kernel: "lat_bulk",
                    method: "one thread: mbarrier.arrive.expect_tx + cp.async.bulk global->shared, then \
                             try_wait.parity until complete; the same source each copy, warm in L2 \
                             (a launch of two copies first); cycles per copy",
                    params: vec![
                        ("bytes", v(bytes)),
                        ("arena_offset", v(offset)),
                        ("source", v("l2")),
                    ],
                    reps: raw.iter().map(|x| *x as f64).collect(),
                    extra: vec![],
                });
            }
        }
        Ok(())
    }

    /// `lat.ldg_lines.l2` at every line count from 1 to 32: one warp, each lane chasing
    /// its own pointer cycle through 256 random 4 KiB blocks with `ld.global.cg`, lane i
    /// at (i % LINES) * 128 + ((i / LINES) % 16) * 8 of its block; cycles per step.
    fn shape_ldg_lines(&mut self) -> Result<()> {
        let reps = self.reps(8, 3);
        let steps: i32 = 256;
        let blocks: u64 = 256;
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        // The committed benchmark's image (`lat_ldg_lines`, level l2).
        let order = permutation(blocks as usize, 0x11e5 ^ blocks);
        let words = (blocks * 4096 / 8) as usize;
        let mut img = vec![0u64; words];
        for (j, &b) in order.iter().enumerate() {
            let next = u64::from(order[(j + 1) % order.len()]);
            for off in (0..4096u64).step_by(8) {
                img[(u64::from(b) * 4096 + off) as usize / 8] = self.arena.ptr + next * 4096 + off;
            }
        }
        self.arena.upload(&img)?;
        let start = self.arena.ptr + u64::from(order[0]) * 4096;
        let warm = (2 * blocks) as i32;
        for lines in 1i32..=32 {
            self.launch(
                "chase_lines_cg",
                1,
                32,
                0,
                &[
                    arg(&start),
                    arg(&lines),
                    arg(&warm),
                    arg(&steps),
                    arg(&reps),
                    arg(&out),
                    arg(&sink),
                ],
            )?;
            let raw = self.out_u64(reps as usize)?;
            self.push(Rec {
                name: format!("gap.shape.ldg_lines_l2.lines_{lines}"),
                group: "gaps",
                unit: "cycles",
                kernel: "chase_lines_cg",
                method: "as lat.ldg_lines.l2.*: one warp; each lane chases its own 64-bit pointer cycle; a \
                         step is one warp-load whose 32 lanes touch LINES lines of a 4 KiB block (lane i: \
                         (i % LINES) * 128 + ((i / LINES) % 16) * 8); cycles per step after a warm pass",
                params: vec![
                    ("lines", v(lines)),
                    ("blocks", v(blocks)),
                    ("steps", v(steps)),
                ],
                reps: raw.iter().map(|x| *x as f64 / f64::from(steps)).collect(),
                extra: vec![],
            });
        }
        Ok(())
    }

    /// A 16 KiB bulk copy's latency on one SM (CTA 0, `gap_loaded`'s probe) while every
    /// other thread of the grid (one CTA per SM, 1024 threads) runs `gap_loaded`'s load
    /// `load` (1: an HBM stream; 3: its CTA's private span warm in L2): grids of 1 (the
    /// probe's own SM alone) to every SM; from HBM (lines never read) and from L2. Cycles
    /// per copy, every copy of every launch; each launch's chip rate in extra.
    fn shape_loaded(&mut self, load: i32, lname: &str) -> Result<()> {
        let p = self.arena.ptr;
        let (hsrc, hdst, span, private, probe_l2) = (
            p,
            p + 256 * MIB,
            p + 512 * MIB,
            p + 520 * MIB,
            p + 560 * MIB,
        );
        let (out, err) = (self.out.ptr, self.err.ptr);
        let flag = self.err.ptr + 64;
        self.k("gap_loaded")?.func.allow_smem(16384)?;
        let settle: i64 = 20_000;
        // As `gaps_loaded`: HBM streams poll the flag every 16 iterations, L2 reads every
        // 256 (and may run ten times as many).
        let (cap, poll) = if load == 1 {
            (4000i64, 15i32)
        } else {
            (40_000, 255)
        };
        let reps = self.reps(4, 2);
        let all = self.sm_count;
        let mut grids = vec![1u32, 2, 5, 9, 17, 33, 66, 99];
        grids.push(all);
        let mut launch_no: u64 = 0;
        for grid in grids.into_iter().filter(|&g| g <= all) {
            for (probe, pname) in [(0i32, "l2"), (1, "hbm")] {
                let (mut lat, mut raw) = (Vec::new(), Vec::new());
                for _ in 0..reps {
                    let probe_hbm = p + 576 * MIB + launch_no * 16 * MIB;
                    if probe == 1 {
                        launch_no = (launch_no + 1) % 16;
                    }
                    self.clear_err()?;
                    let ms = self.launch_timed(
                        "gap_loaded",
                        grid,
                        1024,
                        16384,
                        &[
                            arg(&hsrc),
                            arg(&hdst),
                            arg(&span),
                            arg(&private),
                            arg(&probe_l2),
                            arg(&probe_hbm),
                            arg(&load),
                            arg(&probe),
                            arg(&settle),
                            arg(&cap),
                            arg(&poll),
                            arg(&flag),
                            arg(&out),
                            arg(&err),
                        ],
                    )?;
                    self.check_err("gap_loaded")?;
                    let o = self.out_u64(64 + 4 * grid as usize)?;
                    lat.extend(o[..16].iter().map(|x| *x as f64));
                    let ctas = &o[64..];
                    let moved: u64 = ctas.chunks_exact(4).map(|c| c[2]).sum();
                    let longest = ctas
                        .chunks_exact(4)
                        .map(|c| c[1].wrapping_sub(c[0]) as f64)
                        .fold(0.0, f64::max);
                    raw.push(serde_json::json!({"copies": &o[..16], "event_ms": ms,
                        "bytes_moved": moved, "chip_bytes_per_clk": moved as f64 / longest}));
                }
                self.push(Rec {
                    name: if load == 1 {
                        format!("gap.shape.loaded.sms_{grid}.probe_{pname}_16KiB")
                    } else {
                        format!("gap.shape.loaded_{lname}.sms_{grid}.probe_{pname}_16KiB")
                    },
                    group: "gaps",
                    unit: "cycles",
                    kernel: "gap_loaded",
                    method: "a grid of SMS CTAs (one per SM): every thread but CTA 0's thread 0 runs \
                             the load (load 1: HBM, 16 B loads and stores; load 3: its CTA's own \
                             192 KiB warm in L2, 16 B loads), CTA 0's thread 0, after 20k cycles, times 16 bulk \
                             copies of 16 KiB (from L2: each source copied once untimed first; from HBM: \
                             lines never read, 2 MiB apart), then raises a flag that ends the load; every \
                             copy of every launch",
                    params: vec![("sms", v(grid)), ("load", v(lname)), ("probe", v(pname))],
                    reps: lat,
                    extra: vec![("raw", v(&raw))],
                });
            }
        }
        Ok(())
    }
}
