//! Bulk and tensor (TMA) copy latencies from L2 and HBM, and the opt-in HBM address map.
//!
//! The collector's section (run on the GPU) and the simulated twins of its benchmarks, side by side.

use crate::bench::*;
use crate::gpu::{Result, arg, tensor_map_2d_u32};
use crate::twins::*;

impl Runner {
    pub(crate) fn bulk_sizes(&self) -> Vec<u32> {
        if self.quick {
            vec![1024, 16384, 65536]
        } else {
            vec![1024, 2048, 4096, 8192, 16384, 32768, 65536]
        }
    }

    /// One thread, `count` bulk copies of `bytes` one after another, copy r from
    /// `src + r * step`; each copy's cycles land in `out`.
    pub(crate) fn launch_lat_bulk(
        &mut self,
        src: u64,
        step: u64,
        bytes: u32,
        count: i32,
    ) -> Result<()> {
        let (out, err) = (self.out.ptr, self.err.ptr);
        self.launch(
            "lat_bulk",
            1,
            32,
            bytes,
            &[
                arg(&src),
                arg(&step),
                arg(&bytes),
                arg(&count),
                arg(&out),
                arg(&err),
            ],
        )
    }

    pub(crate) fn lat_bulk(&mut self) -> Result<()> {
        self.k("lat_bulk")?.func.allow_smem(64 * 1024)?;
        let reps = self.reps(16, 4);
        for bytes in self.bulk_sizes() {
            for (src_level, cold) in [("l2", false), ("hbm", true)] {
                let step: u64 = if cold { 4 * MIB } else { 0 };
                // From HBM, launch k reads 64 KiB * k further on (fresh lines: no copy is
                // larger), each launch after an L2 flush.
                let launches = if cold { self.hbm_launches } else { 1 };
                let mut raw: Vec<u64> = Vec::new();
                for k in 0..launches {
                    let src = self.arena.ptr + 512 * MIB + u64::from(k) * 64 * 1024;
                    self.clear_err()?;
                    if cold {
                        self.flush_l2()?;
                    }
                    // From L2, a warm-up launch of two copies brings the lines in first.
                    for n in warm_then_timed(cold, reps) {
                        self.launch_lat_bulk(src, step, bytes, n)?;
                    }
                    self.check_err("lat_bulk")?;
                    raw.extend(self.out_u64(reps as usize)?);
                }
                let mut params = vec![
                    ("bytes", v(bytes)),
                    ("source", v(src_level)),
                    ("src_step_bytes", v(step)),
                ];
                params.extend(self.flush_params(cold));
                let mut method = String::from(
                    "one thread: mbarrier.arrive.expect_tx + cp.async.bulk global->shared, then \
                     try_wait.parity until complete; cycles per copy",
                );
                if launches > 1 {
                    params.push(("launches", v(launches)));
                    params.push(("reps_per_launch", v(reps)));
                    params.push(("launch_src_offset_bytes", v(64 * 1024)));
                    method.push_str(&format!(
                        "; {launches} launches of {reps} copies, each after an L2 flush, launch k's \
                         sources 64 KiB x k further on (reps in launch order)"
                    ));
                }
                self.push(Rec {
                    name: format!("lat.bulk.{src_level}.{}", fmt_bytes(u64::from(bytes))),
                    group: "latency",
                    unit: "cycles",
                    kernel: "lat_bulk",
                    method: &method,
                    params,
                    reps: raw.iter().map(|x| *x as f64).collect(),
                    extra: vec![],
                });
            }
        }
        Ok(())
    }

    /// Where HBM latency depends on the address (report item 5): one thread copies
    /// `count` blocks of `bytes` from HBM one after another, block r at `src + r * step`
    /// (every line read once, after one L2 flush), and records each copy's cycles in
    /// address order. Each case names its offset in the arena, so that the same
    /// addresses can be compared across cases and runs; `.again` repeats a case.
    pub(crate) fn map_hbm(&mut self) -> Result<()> {
        self.k("lat_bulk")?.func.allow_smem(64 * 1024)?;
        // (name, arena offset, bytes per copy, step, copies)
        let mut cases: Vec<(String, u64, u32, u64, i32)> = vec![
            ("map.hbm.line.step_128B".into(), 256 * MIB, 128, 128, 16384),
            (
                "map.hbm.line.step_128B.again".into(),
                256 * MIB,
                128,
                128,
                16384,
            ),
            (
                "map.hbm.line.step_4KiB".into(),
                320 * MIB,
                128,
                4 * KIB,
                16384,
            ),
            (
                "map.hbm.pair.step_4KiB".into(),
                384 * MIB,
                256,
                4 * KIB,
                16384,
            ),
            ("map.hbm.1KiB.step_1KiB".into(), 448 * MIB, 1024, KIB, 16384),
            (
                "map.hbm.1KiB.step_1KiB.again".into(),
                448 * MIB,
                1024,
                KIB,
                16384,
            ),
            (
                "map.hbm.8KiB.step_8KiB".into(),
                512 * MIB,
                8192,
                8 * KIB,
                4096,
            ),
        ];
        // Every size over the 16 MiB the 1 KiB cases mapped, so that each copy's lines'
        // classes are known: copy r of size S at r x S.
        for kib in [2u32, 4, 8, 16, 32, 64] {
            let bytes = kib * 1024;
            cases.push((
                format!("map.hbm.{kib}KiB.step_{kib}KiB.in_1KiB_map"),
                448 * MIB,
                bytes,
                u64::from(bytes),
                (16 * MIB / u64::from(bytes)) as i32,
            ));
        }
        for (name, offset, bytes, step, count) in cases {
            let name = name.as_str();
            let src = self.arena.ptr + offset;
            self.clear_err()?;
            self.flush_l2()?;
            self.launch_lat_bulk(src, step, bytes, count)?;
            self.check_err(name)?;
            let raw = self.out_u64(count as usize)?;
            self.push(Rec {
                name: name.to_string(),
                group: "map",
                unit: "cycles",
                kernel: "lat_bulk",
                method: "one thread: COUNT bulk copies of BYTES from HBM one after another (expect_tx, \
                         cp.async.bulk, try_wait), copy r from the arena + OFFSET + r x STEP, one L2 flush \
                         before the launch; reps = each copy's cycles in address order",
                params: vec![
                    ("bytes", v(bytes)),
                    ("step_bytes", v(step)),
                    ("count", v(count)),
                    ("arena_offset_bytes", v(offset)),
                    ("l2_flushed_before", v(true)),
                ],
                reps: raw.iter().map(|x| *x as f64).collect(),
                extra: vec![],
            });
        }
        Ok(())
    }

    pub(crate) fn lat_tma(&mut self) -> Result<()> {
        self.k("lat_tma2d")?.func.allow_smem(64 * 1024)?;
        let reps = self.reps(16, 4);
        let (out, err) = (self.out.ptr, self.err.ptr);
        let width = 1024u64; // u32 elements per row: 4 KiB rows
        let height = ARENA / (width * 4);
        for bytes in self.bulk_sizes() {
            let rows = bytes / 256;
            let tm = tensor_map_2d_u32(self.arena.ptr, width, height, 64, rows)?;
            for (src_level, cold) in [("l2", false), ("hbm", true)] {
                // y offset 128 Ki rows = 512 MiB into the arena; HBM steps 1024 rows (4 MiB)
                let y_step: i32 = if cold { 1024 } else { 0 };
                // From HBM, launch k's map starts 256 B x (k % 16) + 1 MiB x (k / 16)
                // further on: other columns of the same rows, then rows a box (at most 256
                // rows, 1 MiB) never reached; each launch after an L2 flush.
                let launches = if cold { self.hbm_launches } else { 1 };
                let mut raw: Vec<u64> = Vec::new();
                for k in 0..launches {
                    let shift = u64::from(k % 16) * 256 + u64::from(k / 16) * MIB;
                    let tm_shift = tensor_map_2d_u32(
                        self.arena.ptr + 512 * MIB + shift,
                        width,
                        height / 2 - 1024,
                        64,
                        rows,
                    )?;
                    let tmu = if cold { &tm_shift } else { &tm };
                    self.clear_err()?;
                    if cold {
                        self.flush_l2()?;
                    }
                    for n in warm_then_timed(cold, reps) {
                        self.launch(
                            "lat_tma2d",
                            1,
                            32,
                            bytes,
                            &[
                                arg(tmu),
                                arg(&bytes),
                                arg(&y_step),
                                arg(&n),
                                arg(&out),
                                arg(&err),
                            ],
                        )?;
                    }
                    self.check_err("lat_tma2d")?;
                    raw.extend(self.out_u64(reps as usize)?);
                }
                let mut params = vec![
                    ("bytes", v(bytes)),
                    ("box", v([64, rows])),
                    ("row_pitch_bytes", v(width * 4)),
                    ("source", v(src_level)),
                    ("y_step_rows", v(y_step)),
                ];
                params.extend(self.flush_params(cold));
                let mut method = String::from(
                    "one thread: expect_tx + cp.async.bulk.tensor.2d (tile, no swizzle, u32 box 64 x rows, \
                     map from cuTensorMapEncodeTiled) then try_wait.parity; cycles per copy",
                );
                if launches > 1 {
                    params.push(("launches", v(launches)));
                    params.push(("reps_per_launch", v(reps)));
                    method.push_str(&format!(
                        "; {launches} launches of {reps} copies, each after an L2 flush, launch k's map \
                         based 256 B x (k % 16) + 1 MiB x (k / 16) further on (reps in launch order)"
                    ));
                }
                self.push(Rec {
                    name: format!("lat.tma2d.{src_level}.{}", fmt_bytes(u64::from(bytes))),
                    group: "latency",
                    unit: "cycles",
                    kernel: "lat_tma2d",
                    method: &method,
                    params,
                    reps: raw.iter().map(|x| *x as f64).collect(),
                    extra: vec![],
                });
            }
        }
        Ok(())
    }
}

/// The tensor copies' box (`lat_tma2d`): rows of 64 u32 (256 B) from a tensor whose rows
/// are 1024 u32 (4 KiB) long.
const TMA2D_ROW: u64 = 256;

const TMA2D_PITCH: u64 = 4096;

/// Copies from HBM a twin times (each at new addresses, 4 MiB apart): their median's
/// standard error is about 1%.
const HBM_COPIES: i64 = 513;

/// One thread: expect_tx, one bulk copy (UBLKCP) or tensor copy (UTMALDG) of `bytes`,
/// wait on the mbarrier; {N} repetitions; per repetition.
fn copy_wait(bench: &str, group: &'static str, op: &str, bytes: u64, step: u64) -> Twin {
    // UTMALDG reads the benchmark's box row by row; UBLKCP one contiguous range.
    let (extent, tile) = if op.starts_with("UTMALDG") {
        (
            (bytes / TMA2D_ROW - 1) * TMA2D_PITCH + TMA2D_ROW,
            format!(", row={TMA2D_ROW}, pitch={TMA2D_PITCH}"),
        )
    } else {
        (bytes, String::new())
    };
    let size = (step * (HBM_COPIES as u64 + 1)).max(extent * 2) + extent;
    let src = format!(
        "{}buffer A size={size}\nshared s size={bytes}\nmbarrier mb[1] count=1\nrole main warps=0..0\n  loop r 0..{{N}}\n    SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[0], bytes={bytes}\n    {op} s[0], A[r * {step}], bytes={bytes}{tile}, bar=mb[0]\n    SYNCS.PHASECHK.TRANS64.TRYWAIT mb[0], parity=r & 1\n  EXIT\n",
        header("copy_wait", 32, 32, bytes as u32, 1)
    );
    Twin {
        bench: bench.into(),
        group,
        params: &[
            "tma_extra_latency",
            "tma_bytes_per_clk",
            "tma_issue_cycles",
            "lat_mbarrier_wake",
            "lat_mbarrier_tx_wake",
            "lat_l2_near",
            "lat_l2_far",
            "lat_hbm",
            "jitter_hbm",
            "lat_hbm_far_extra",
            "lat_hbm_tma_extra",
            "hbm_tail_window_probability",
            "hbm_tail_probability",
            "hbm_tail_min",
            "hbm_tail_max",
            "hbm_bytes_per_clk_sm_max",
            "hbm_tma_bytes_per_clk_sm_max",
            "hbm_burst_bytes_per_clk_sm",
            "hbm_burst_bytes",
            "l2_bytes_per_clk_sm_max",
        ],
        // From L2 every copy takes the same time: the slope of 8 to 24 copies. From HBM
        // a copy's time depends on its lines' addresses and draws (near or far, slow
        // chunks): the median of many copies at new addresses, as the measured reps.
        method: if step == 0 {
            Method::Slope {
                src,
                lo: 8,
                hi: 24,
                per: 1.0,
            }
        } else {
            Method::Median { src, n: HBM_COPIES }
        },
        what: format!(
            "one thread: EXPECT_TX, `{op}` of {bytes} B{} (source {}), TRYWAIT; cycles per copy",
            if tile.is_empty() {
                String::new()
            } else {
                format!(" in rows of {TMA2D_ROW} B, {TMA2D_PITCH} B apart")
            },
            if step == 0 {
                "the same, in L2"
            } else {
                "new lines each time; the median copy of 512"
            }
        ),
    }
}

/// cp.async.bulk and 2-D tensor copies of 1 to 64 KiB, each waited for on an mbarrier.
pub(crate) fn twins(v: &mut Vec<Twin>) {
    // --- bulk and tensor copies: latency
    for (kib, bytes) in [
        (1u64, 1024u64),
        (2, 2048),
        (4, 4096),
        (8, 8192),
        (16, 16384),
        (32, 32768),
        (64, 65536),
    ] {
        v.push(copy_wait(
            &format!("lat.bulk.l2.{kib}KiB"),
            "tma-latency-l2",
            "UBLKCP.S.G",
            bytes,
            0,
        ));
        v.push(copy_wait(
            &format!("lat.bulk.hbm.{kib}KiB"),
            "tma-latency-hbm",
            "UBLKCP.S.G",
            bytes,
            4 << 20,
        ));
        v.push(copy_wait(
            &format!("lat.tma2d.l2.{kib}KiB"),
            "tma-latency-l2",
            "UTMALDG.2D",
            bytes,
            0,
        ));
        v.push(copy_wait(
            &format!("lat.tma2d.hbm.{kib}KiB"),
            "tma-latency-hbm",
            "UTMALDG.2D",
            bytes,
            4 << 20,
        ));
    }
}
