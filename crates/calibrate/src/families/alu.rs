//! Fixed-latency chains (ALU, FMA, MUFU, LDS) and the issue-rate loops of the FMA and MUFU pipes, with the scheduler order and the register banks they expose.
//!
//! The collector's section (run on the GPU) and the simulated twins of its benchmarks, side by side.

use crate::bench::*;
use crate::gpu::{Result, arg};
use crate::sources::{CHAIN_A, CHAIN_B};
use crate::twins::*;
use std::ffi::c_void;

impl Runner {
    pub(crate) fn lat_chain_raw(
        &self,
        kname: &str,
        a: *mut c_void,
        b: *mut c_void,
        x0: *mut c_void,
        reps: i32,
    ) -> Result<Vec<u64>> {
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        self.launch(
            kname,
            1,
            1,
            0,
            &[arg(&out), a, b, x0, arg(&reps), arg(&sink)],
        )?;
        self.out_u64(2 * reps as usize)
    }

    pub(crate) fn push_chain(&mut self, name: &str, kname: &str, raw: &[u64], what: &str) {
        let ta: Vec<f64> = raw.iter().step_by(2).map(|x| *x as f64).collect();
        let tb: Vec<f64> = raw.iter().skip(1).step_by(2).map(|x| *x as f64).collect();
        let per: Vec<f64> = ta
            .iter()
            .zip(&tb)
            .map(|(a, b)| (b - a) / f64::from(CHAIN_B - CHAIN_A))
            .collect();
        let naive: Vec<f64> = tb.iter().map(|b| b / f64::from(CHAIN_B)).collect();
        self.push(Rec {
            name: name.into(),
            group: "latency",
            unit: "cycles",
            kernel: kname,
            method: "one thread (one warp where the instruction says so); dependent chains of 64 and 320 instructions timed with clock64; \
                     (t320 - t64) / 256 per repetition",
            params: vec![
                ("instruction", v(what)),
                ("chain_a", v(CHAIN_A)),
                ("chain_b", v(CHAIN_B)),
            ],
            reps: per,
            extra: vec![
                ("t_chain_a", v(&ta)),
                ("t_chain_b", v(&tb)),
                ("t_chain_b_over_b", v(med(&naive))),
            ],
        });
    }

    pub(crate) fn lat_alu(&mut self) -> Result<()> {
        let reps = self.reps(32, 8);
        let f = |x: f32| x;
        let chains_f: [(&str, &str, f32, f32, f32, &str); 4] = [
            (
                "lat.ffma",
                "lat_ffma",
                0.999,
                0.001,
                1.0,
                "FFMA (fma.rn.f32 x, x, a, b)",
            ),
            (
                "lat.fadd",
                "lat_fadd",
                0.001,
                0.0,
                1.0,
                "FADD (add.rn.f32 x, x, a)",
            ),
            (
                "lat.mufu.ex2",
                "lat_mufu_ex2",
                0.0,
                0.0,
                0.5,
                "MUFU.EX2 (ex2.approx.ftz.f32)",
            ),
            (
                "lat.mufu.rcp",
                "lat_mufu_rcp",
                0.0,
                0.0,
                1.5,
                "MUFU.RCP (rcp.approx.ftz.f32 of |x|)",
            ),
        ];
        for (name, kname, a, b, x0, what) in chains_f {
            let (a, b, x0) = (f(a), f(b), f(x0));
            let raw = self.lat_chain_raw(kname, arg(&a), arg(&b), arg(&x0), reps)?;
            self.push_chain(name, kname, &raw, what);
        }
        let chains_i: [(&str, &str, u32, u32, u32, &str); 3] = [
            (
                "lat.imad",
                "lat_imad",
                3,
                1,
                7,
                "IMAD (mad.lo.u32 x, x, a, b)",
            ),
            (
                "lat.iadd3",
                "lat_iadd3",
                0x9e37_79b9,
                0x7f4a_7c15,
                7,
                "IADD3 (x = x + a + b, two PTX adds fused)",
            ),
            (
                "lat.lop3",
                "lat_lop3",
                0x1234_5678,
                0x0f0f_0f0f,
                7,
                "LOP3 (lop3.b32 x, x, a, b, 0x96)",
            ),
        ];
        for (name, kname, a, b, x0, what) in chains_i {
            let raw = self.lat_chain_raw(kname, arg(&a), arg(&b), arg(&x0), reps)?;
            self.push_chain(name, kname, &raw, what);
        }
        Ok(())
    }

    pub(crate) fn tp_alu(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        let block = 1024u32;
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let (a, b) = (0.999f32, 0.001f32);
        for (name, kname, iters, what) in [
            ("tp.ffma", "tp_ffma", 2048i32, "FFMA"),
            ("tp.mufu.ex2", "tp_mufu_ex2", 256, "MUFU.EX2"),
            ("tp.mufu.rcp", "tp_mufu_rcp", 256, "MUFU.RCP"),
        ] {
            let mut per = Vec::new();
            for _ in 0..reps {
                self.launch(
                    kname,
                    1,
                    block,
                    0,
                    &[arg(&iters), arg(&a), arg(&b), arg(&out), arg(&sink)],
                )?;
                let raw = self.out_u64(2 * (block / 32) as usize)?;
                let ops = f64::from(block) * f64::from(iters) * 16.0 * 8.0;
                per.push(ops / self.warp_span(&raw));
            }
            self.push(Rec {
                name: name.into(),
                group: "throughput",
                unit: "per_clk_per_sm",
                kernel: kname,
                method: "one block of 1024 threads, 8 independent chains per thread; thread-instructions per \
                         cycle over the span from the first warp's start to the last warp's end",
                params: vec![("instruction", v(what)), ("block", v(block)), ("iters", v(iters))],
                reps: per,
                extra: vec![],
            });
        }
        Ok(())
    }

    /// The warp scheduler's order: 8 warps (two per sub-partition) of the FFMA throughput
    /// kernel, every warp always ready. A greedy scheduler (GTO, oldest first) runs one
    /// warp of each pair to its end before the other (the first warps finish at half the
    /// span); a round-robin one interleaves them (all finish together). The value is the
    /// first warp's finish over the last one's, both from the earliest start.
    pub(crate) fn sched(&mut self) -> Result<()> {
        let reps = self.reps(9, 3);
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let (a, b) = (0.999f32, 0.001f32);
        let iters: i32 = 64;
        // 3, 5 and 7 warps per sub-partition: who finishes last when the warps do not
        // pair up (each repetition's warp end times are kept, from the earliest start).
        for (warps, label) in [
            (8u32, "warps_8"),
            (16, "warps_16"),
            (12, "warps_12"),
            (20, "warps_20"),
            (28, "warps_28"),
        ] {
            if warps % 8 != 0 && !self.only.iter().any(|o| o == "sched.odd") {
                continue;
            }
            let block = 32 * warps;
            let mut per = Vec::new();
            let mut spans = Vec::new();
            let mut warp_ends: Vec<Vec<u64>> = Vec::new();
            for _ in 0..reps {
                self.launch(
                    "tp_ffma",
                    1,
                    block,
                    0,
                    &[arg(&iters), arg(&a), arg(&b), arg(&out), arg(&sink)],
                )?;
                let raw = self.out_u64(2 * warps as usize)?;
                let start = raw.iter().step_by(2).copied().min().unwrap_or(0);
                let ends: Vec<u64> = raw.iter().skip(1).step_by(2).copied().collect();
                let first = ends.iter().copied().min().unwrap_or(0).wrapping_sub(start) as f64;
                let last = ends.iter().copied().max().unwrap_or(0).wrapping_sub(start) as f64;
                per.push(first / last);
                spans.push(last);
                warp_ends.push(ends.iter().map(|e| e.wrapping_sub(start)).collect());
            }
            self.push(Rec {
                name: format!("sched.first_finish.{label}"),
                group: "scheduler",
                unit: "fraction",
                kernel: "tp_ffma",
                method: "one block of tp_ffma (8 independent FFMA chains per thread, always ready); the first \
                         warp's end over the last warp's end, both from the earliest warp start",
                params: vec![("warps", v(warps)), ("iters", v(iters))],
                reps: per,
                extra: if warps % 8 == 0 {
                    vec![("span_cycles", v(&spans))]
                } else {
                    vec![("span_cycles", v(&spans)), ("warp_end_cycles", v(&warp_ends))]
                },
            });
        }
        // One and four warps (one per sub-partition) of the same kernel: thread-FFMA per
        // cycle per SM, i.e. how often one warp can issue when nothing else competes.
        for (warps, label) in [(1u32, "warps_1"), (4, "warps_4")] {
            let block = 32 * warps;
            let mut per = Vec::new();
            for _ in 0..reps {
                self.launch(
                    "tp_ffma",
                    1,
                    block,
                    0,
                    &[arg(&iters), arg(&a), arg(&b), arg(&out), arg(&sink)],
                )?;
                let raw = self.out_u64(2 * warps as usize)?;
                let ops = f64::from(block) * f64::from(iters) * 16.0 * 8.0;
                per.push(ops / self.warp_span(&raw));
            }
            self.push(Rec {
                name: format!("tp.ffma.{label}"),
                group: "throughput",
                unit: "per_clk_per_sm",
                kernel: "tp_ffma",
                method: "tp_ffma (8 independent FFMA chains per thread) with one block of 1 or 4 warps; \
                         thread-FFMA per cycle over the span",
                params: vec![("warps", v(warps)), ("iters", v(iters))],
                reps: per,
                extra: vec![],
            });
        }
        Ok(())
    }

    pub(crate) fn regbank(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        let iters: i32 = if self.quick { 256 } else { 1024 };
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let input: Vec<f32> = (0..64).map(|i| 1.0 + i as f32 * 1e-3).collect();
        let inbuf = self.gpu.alloc(64 * 4)?;
        inbuf.upload(&input)?;
        let inp = inbuf.ptr;
        let names: Vec<String> = {
            let mut v: Vec<String> = self
                .kernels
                .keys()
                .filter(|k| k.starts_with("rb_"))
                .cloned()
                .collect();
            v.sort();
            v
        };
        for kname in names {
            for (warps, label) in [(32u32, "warps_32"), (1, "warps_1")] {
                let block = 32 * warps;
                let mut per = Vec::new();
                let mut lat = Vec::new();
                for _ in 0..reps {
                    self.launch(
                        &kname,
                        1,
                        block,
                        0,
                        &[arg(&iters), arg(&inp), arg(&out), arg(&sink)],
                    )?;
                    let raw = self.out_u64(2 * warps as usize)?;
                    let span = self.warp_span(&raw);
                    let ops = f64::from(block) * f64::from(iters) * f64::from(RB_OPS_PER_ITER);
                    per.push(ops / span);
                    lat.push(span / (f64::from(iters) * f64::from(RB_OPS_PER_ITER / RB_CHAINS)));
                }
                self.push(Rec {
                    name: format!("regbank.{}.{label}", &kname[3..]),
                    group: "regbank",
                    unit: "ffma_per_clk_per_sm",
                    kernel: &kname,
                    method: "FFMA chains whose source registers were placed by ptxas as the kernel's comment says \
                             (see the SASS dump); thread-FFMA per cycle over the block's span",
                    params: vec![("warps", v(warps)), ("iters", v(iters))],
                    reps: per,
                    extra: vec![("cycles_per_dependent_step", v(&lat))],
                });
            }
        }
        Ok(())
    }
}

/// Dependent chains of one instruction each (registers from the SASS: banks matter), and the LDS chase.
pub(crate) fn latency_twins(v: &mut Vec<Twin>) {
    // --- fixed latencies (registers from the SASS: banks matter)
    v.push(chain(
        "lat.ffma",
        "alu-latency",
        &[
            "lat_fma",
            "reg_banks",
            "reg_bank_ports",
            "reg_bank_conflict_cycles",
        ],
        "FFMA R0, R0, R2, R3",
    ));
    v.push(chain(
        "lat.fadd",
        "alu-latency",
        &[
            "lat_fma",
            "reg_banks",
            "reg_bank_ports",
            "reg_bank_conflict_cycles",
        ],
        "FADD R11, R11, 0.5",
    ));
    v.push(chain(
        "lat.imad",
        "alu-latency",
        &[
            "lat_imad",
            "reg_banks",
            "reg_bank_ports",
            "reg_bank_conflict_cycles",
        ],
        "IMAD R13, R13, R2, R3",
    ));
    v.push(chain(
        "lat.iadd3",
        "alu-latency",
        &[
            "lat_alu",
            "reg_banks",
            "reg_bank_ports",
            "reg_bank_conflict_cycles",
        ],
        "IADD3 R13, R3, R13, R2",
    ));
    v.push(chain(
        "lat.lop3",
        "alu-latency",
        &[
            "lat_alu",
            "reg_banks",
            "reg_bank_ports",
            "reg_bank_conflict_cycles",
        ],
        "LOP3.LUT R13, R13, R2, R3, 0x96",
    ));
    v.push(chain(
        "lat.mufu.ex2",
        "mufu",
        &["lat_mufu"],
        "MUFU.EX2 R11, R11",
    ));
    v.push(chain(
        "lat.mufu.rcp",
        "mufu",
        &["lat_mufu"],
        "MUFU.RCP R11, R11",
    ));
    {
        let src = format!(
            "{}shared s size=4096\nrole main warps=0..0\n  loop i 0..{{N}}\n    LDS R1, s[(i % 8) * 4]\n  EXIT\n",
            header("lds_chain", 32, 32, 4096, 1)
        );
        v.push(Twin {
            bench: "lat.lds".into(),
            group: "shared",
            params: &["lat_lds", "smem_bytes_per_clk"],
            method: Method::Slope { src, lo: 64, hi: 320, per: 1.0 },
            what: "one warp, LDS chain (each load overwrites R1, so it waits for the one before); cycles per step".into(),
        });
    }
}

/// The FFMA and MUFU issue loops (bodies from the SASS), one lone warp per sub-partition, and the scheduler order of always-ready warps.
pub(crate) fn throughput_twins(v: &mut Vec<Twin>) {
    // --- throughput loops (bodies from the SASS)
    let ffma = sass_loop("tp_ffma", "FFMA");
    v.push(tp_loop(
        "tp.ffma",
        "throughput",
        &[
            "fma_issue_interval",
            "lat_fma",
            "reg_banks",
            "reg_bank_ports",
            "reg_bank_conflict_cycles",
        ],
        &ffma,
        32,
        count_op(&ffma, "FFMA"),
        0,
        "",
    ));
    // --- one warp per sub-partition of the same loop: how often a lone warp issues
    for w in [1u32, 4] {
        v.push(tp_loop(
            &format!("tp.ffma.warps_{w}"),
            "throughput",
            &["fma_issue_interval", "lat_fma", "branch_target_cycles"],
            &ffma,
            w,
            count_op(&ffma, "FFMA"),
            0,
            "",
        ));
    }
    // --- the scheduler's order: tp_ffma's loop with 8 and 16 warps, every warp ready
    for w in [8u32, 16, 12, 20, 28] {
        let mut b = String::new();
        for l in &ffma {
            b.push_str("    ");
            b.push_str(l);
            b.push('\n');
        }
        let src = format!(
            "{}role all warps=0..{}\n  loop it 0..{{N}}\n{b}  EXIT\n",
            header("sched", w * 32, 64, 0, 1),
            w - 1
        );
        v.push(Twin {
            bench: format!("sched.first_finish.warps_{w}"),
            group: "scheduler",
            params: &["fma_issue_interval"],
            method: Method::FirstFinish { src, n: 64 },
            what: format!(
                "{w} warps of tp_ffma's loop (as in the SASS), 64 iterations: first warp's end over the last one's"
            ),
        });
    }
    for (bench, f) in [
        ("tp.mufu.ex2", "tp_mufu_ex2"),
        ("tp.mufu.rcp", "tp_mufu_rcp"),
    ] {
        let body: Vec<String> = sass_loop(f, "MUFU")
            .into_iter()
            .map(|s| s.replace('|', ""))
            .collect();
        v.push(tp_loop(
            bench,
            "throughput",
            &["mufu_issue_interval", "lat_mufu"],
            &body,
            32,
            count_op(&body, "MUFU"),
            0,
            "",
        ));
    }
}

/// FFMA loops whose sources ptxas put in the same or different register banks.
pub(crate) fn regbank_twins(v: &mut Vec<Twin>) {
    // --- register banks (the 64 FFMAs of each loop, from the SASS)
    for (kind, f) in [("diff", "rb_diff"), ("two", "rb_two"), ("same", "rb_same")] {
        let body = sass_loop(f, "FFMA");
        for w in [32u32, 1] {
            v.push(tp_loop(
                &format!("regbank.{kind}.warps_{w}"),
                "regbank",
                &[
                    "reg_banks",
                    "reg_bank_ports",
                    "reg_bank_conflict_cycles",
                    "lat_fma",
                    "fma_issue_interval",
                ],
                &body,
                w,
                count_op(&body, "FFMA"),
                0,
                "",
            ));
        }
    }
}
