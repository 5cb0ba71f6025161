//! The TMA-streaming tile's waits in their context, and the L1 under many warps warp by
//! warp (issue 25: the stream twins' per-tile shortfall, gap 6): the collector's side of
//! `gaps.ctx` and `gaps.l1_spread` (kernels `gap_ctx`, `gap_l1_spread` in `gaps.cu`).

use crate::bench::*;
use crate::gpu::{Result, arg, tensor_map_2d_u32};
use serde_json::json;

/// The streaming kernels' tensor: rows of 4096 u32 (16 KiB apart), boxes 128 wide (as
/// `gaps_phase`'s).
const CTX_WIDTH: u64 = 4096;
/// A box's width in u32 (512-byte rows).
const CTX_BOX_W: u32 = 128;
/// The operation timed (`gap_ctx`'s `op`), by name.
const CTX_OPS: [(&str, i32); 5] = [
    ("try_wait_done", 0),
    ("ldc", 1),
    ("fence", 2),
    ("store_read_wait", 3),
    ("stamps", 4),
];
/// What is issued right before it (`pre`), by name.
const CTX_PRES: [(&str, i32); 4] = [
    ("alone", 0),
    ("after_loads", 1),
    ("after_store", 2),
    ("after_store_loads", 3),
];

/// The median of a list (0 when empty).
fn median(mut x: Vec<f64>) -> f64 {
    if x.is_empty() {
        return 0.0;
    }
    x.sort_by(f64::total_cmp);
    let n = x.len();
    if n % 2 == 1 {
        x[n / 2]
    } else {
        (x[n / 2 - 1] + x[n / 2]) / 2.0
    }
}

impl Runner {
    /// One thread times an operation of the streaming tile (a try_wait on a phase long
    /// complete, a constant load, the proxy fence, the store's read wait, an arrive and
    /// its wait) right after the tile's loads, its store, or both were issued, as
    /// ew_tma_pipelined's thread 0 does; cycles from after the issue to after the
    /// operation (median over operations 2..63 of every launch but the first).
    pub(crate) fn gaps_ctx(&mut self) -> Result<()> {
        let rows: u32 = 32;
        let tile = u64::from(CTX_BOX_W * rows * 4);
        let (a, b, c) = (
            self.arena.ptr,
            self.arena.ptr + 64 * MIB,
            self.arena.ptr + 128 * MIB,
        );
        let map = |p| tensor_map_2d_u32(p, CTX_WIDTH, u64::from(rows), CTX_BOX_W, rows);
        let (ta, tb, tc) = (map(a)?, map(b)?, map(c)?);
        let smem = 3 * tile as u32;
        self.k("gap_ctx")?.func.allow_smem(smem)?;
        let iters: i32 = 64;
        let box_w = CTX_BOX_W as i32;
        let bytes = tile as u32;
        let (out, err) = (self.out.ptr, self.err.ptr);
        let mut ops: Vec<(&str, i32)> = CTX_OPS.to_vec();
        ops.push(("arrive_wait", 5));
        for (op_name, op) in ops {
            for (pre_name, pre) in CTX_PRES {
                // the read wait waits for a store: only after one
                if op == 3 && pre & 2 == 0 {
                    continue;
                }
                self.clear_err()?;
                let (mut issue, mut timed, mut raw) = (Vec::new(), Vec::new(), Vec::new());
                for rep in 0..self.reps(5, 2) {
                    self.launch(
                        "gap_ctx",
                        1,
                        32,
                        smem,
                        &[
                            arg(&ta),
                            arg(&tb),
                            arg(&tc),
                            arg(&bytes),
                            arg(&box_w),
                            arg(&pre),
                            arg(&op),
                            arg(&iters),
                            arg(&out),
                            arg(&err),
                        ],
                    )?;
                    let o = self.out_u64(3 * iters as usize)?;
                    if rep == 0 {
                        continue;
                    }
                    for i in 2..iters as usize {
                        issue.push(o[3 * i + 1].wrapping_sub(o[3 * i]) as f64);
                        timed.push(o[3 * i + 2].wrapping_sub(o[3 * i + 1]) as f64);
                    }
                    raw.push(json!(o));
                }
                self.check_err("gap_ctx")?;
                let issue_median = median(issue);
                self.push(Rec {
                    name: format!("gap.ctx.{op_name}.{pre_name}"),
                    group: "gaps",
                    unit: "cycles",
                    kernel: "gap_ctx",
                    method: "one thread, 64 rounds: clock64 (a), the tile's store (16 KiB tensor \
                             box) and/or expect_tx + its two loads issued, clock64 (b), the \
                             operation, clock64 (c), then the loads' wait and the store's \
                             wait_group 0; value c - b, median over rounds 2.. of every launch \
                             after the first (A, B in L2 after the first)",
                    params: vec![
                        ("op", v(op)),
                        ("pre", v(pre)),
                        ("bytes", v(bytes)),
                        ("issue_median", v(issue_median)),
                    ],
                    reps: timed,
                    extra: vec![("raw", v(&raw))],
                });
            }
        }
        Ok(())
    }

    /// The latency-hiding L1 walk (lanes 1 KiB apart, each lane's 8 lines 128 B apart;
    /// and lanes 4 KiB apart, which runs at one line a cycle) by warps, through L1 and
    /// through L2 (`.cg`): each warp's own steps, so the warps' spread shows. Value: the
    /// cycles per step of the slowest warp (its last load's return after the common
    /// start, over the steps), the fastest in `params`.
    pub(crate) fn gaps_l1_spread(&mut self) -> Result<()> {
        let steps: i32 = 256;
        let warm: i32 = 16;
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let max_warps = 32u64;
        // (label, lane stride, step between a lane's lines, region per warp)
        let layouts: [(&str, u64, u64, u64); 2] = [
            ("lanes_1KiB", 1024, 128, 32 * 1024),
            ("lanes_4KiB", 4096, 128, 128 * 1024),
        ];
        for (label, lane_stride, step, region) in layouts {
            let mut img = vec![0u64; (max_warps * region / 8) as usize];
            for w in 0..max_warps {
                let base = self.arena.ptr + w * region;
                for lane in 0..32u64 {
                    for j in 0..8u64 {
                        let from = lane * lane_stride + j * step;
                        let to = lane * lane_stride + ((j + 1) % 8) * step;
                        img[((w * region + from) / 8) as usize] = base + to;
                    }
                }
            }
            self.arena.upload(&img)?;
            for cg in [0i32, 1] {
                for warps in [1u32, 4, 8, 12, 13, 14, 15, 16, 20, 24, 32] {
                    let base = self.arena.ptr;
                    let (mut slow, mut fast, mut raw) = (Vec::new(), Vec::new(), Vec::new());
                    for rep in 0..self.reps(5, 2) {
                        self.launch(
                            "gap_l1_spread",
                            1,
                            32 * warps,
                            0,
                            &[
                                arg(&base),
                                arg(&region),
                                arg(&lane_stride),
                                arg(&warm),
                                arg(&steps),
                                arg(&cg),
                                arg(&out),
                                arg(&sink),
                            ],
                        )?;
                        let o = self.out_u64(2 * warps as usize)?;
                        if rep == 0 {
                            continue;
                        }
                        let ends: Vec<u64> = (0..warps as usize)
                            .map(|w| o[2 * w + 1].wrapping_sub(o[2 * w]))
                            .collect();
                        let per = |x: u64| x as f64 / f64::from(steps);
                        slow.push(per(ends.iter().copied().max().unwrap_or(0)));
                        fast.push(per(ends.iter().copied().min().unwrap_or(0)));
                        raw.push(json!(ends));
                    }
                    let path = if cg == 1 { "cg" } else { "ld" };
                    self.push(Rec {
                        name: format!("gap.l1_spread.{label}.{path}.warps_{warps}"),
                        group: "gaps",
                        unit: "cycles",
                        kernel: "gap_l1_spread",
                        method: "one block of WARPS warps, every lane chasing its own cycle of 8 \
                                 lines (ld.global; cg: ld.global.cg) in its warp's region, 256 \
                                 steps after 16 untimed; per warp the cycles from the common \
                                 start to its last load's return; value: the slowest warp's per \
                                 step; extra.raw: every warp's cycles per launch",
                        params: vec![
                            ("lane_stride_bytes", v(lane_stride)),
                            ("line_step_bytes", v(step)),
                            ("warps", v(warps)),
                            ("steps", v(steps)),
                            ("cg", v(cg)),
                            ("fastest_warp_per_step", v(median(fast))),
                        ],
                        reps: slow,
                        extra: vec![("raw", v(&raw))],
                    });
                }
            }
        }
        Ok(())
    }
}
