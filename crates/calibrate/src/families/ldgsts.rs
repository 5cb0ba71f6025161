//! cp.async (LDGSTS): copy 16 B, commit, wait, LDS it back.
//!
//! The collector's section (run on the GPU) and the simulated twins of its benchmarks, side by side.

use crate::bench::*;
use crate::gpu::{Result, arg};
use crate::twins::*;

impl Runner {
    pub(crate) fn lat_ldgsts(&mut self) -> Result<()> {
        let reps = self.reps(16, 4);
        let steps: i32 = 1024;
        for (kname, fp, level) in [
            ("lat_ldgsts_ca16", 4 * KIB, "L1"),
            ("lat_ldgsts_cg16", 4 * MIB, "L2"),
        ] {
            let (start, n) = self.build_chain(fp, 128, 0xa5a5 ^ fp)?;
            let (out, sink) = (self.out.ptr, self.sink.ptr);
            // warm pass over the whole cycle, then the timed run from the same start
            let warm_steps = ((n as u32).max(steps as u32).div_ceil(4) * 4) as i32;
            let one = 1i32;
            self.launch(
                kname,
                1,
                32,
                0,
                &[
                    arg(&start),
                    arg(&warm_steps),
                    arg(&one),
                    arg(&out),
                    arg(&sink),
                ],
            )?;
            self.launch(
                kname,
                1,
                32,
                0,
                &[arg(&start), arg(&steps), arg(&reps), arg(&out), arg(&sink)],
            )?;
            let raw = self.out_u64(reps as usize)?;
            let per: Vec<f64> = raw.iter().map(|t| *t as f64 / f64::from(steps)).collect();
            self.push(Rec {
                name: format!("lat.ldgsts.{}.fp_{}", &kname[11..], fmt_bytes(fp)),
                group: "latency",
                unit: "cycles",
                kernel: kname,
                method: "one thread; per step: cp.async 16 B of a pointer cycle to shared, commit_group, \
                         wait_group 0, LDS of the pointer; cycles per step (includes the LDS)",
                params: vec![
                    ("footprint_bytes", v(fp)),
                    ("steps", v(steps)),
                    ("expected_level", v(level)),
                ],
                reps: per,
                extra: vec![],
            });
        }
        Ok(())
    }
}

/// The timed loop of an LDGSTS chase kernel in the twin's format, and how many steps
/// (LDGSTS) it holds. Step `j` of loop iteration `i` copies line `(i * steps + j) %
/// lines`; each LDGSTS names the register its SASS takes the address from (the previous
/// LDS's destination), so it waits for that LDS as the GPU's scoreboard makes it.
fn ldgsts_loop(func: &str, lines: u64, stride: u64) -> (Vec<String>, u64) {
    let listing = timed_loop(func);
    let steps = listing
        .iter()
        .filter(|(_, s, _)| s.starts_with("LDGSTS"))
        .count() as u64;
    let mut out = Vec::new();
    let mut j = 0u64;
    for (_, ins, stall) in &listing {
        let mut words = ins.split_whitespace();
        let op = words.next().unwrap_or("");
        let text = if op.starts_with("LDGSTS") {
            // `LDGSTS.E.128 [R6], desc[UR4][R12.64]`: the address register is R12.
            let reg = ins
                .rsplit('[')
                .next()
                .and_then(|r| r.split(['.', ']']).next())
                .unwrap_or("RZ");
            let t = format!("{op} s[0], A[((i * {steps} + {j}) % {lines}) * {stride}], {reg}");
            j += 1;
            t
        } else if op == "LDGDEPBAR" {
            "LDGDEPBAR".to_string()
        } else if op == "DEPBAR.LE" {
            "DEPBAR.LE SB0, 0".to_string()
        } else if op.starts_with("LDS") {
            // `LDS.64 R12, [R6]`: the pointer, read back from the copy's destination.
            let dst = words.next().unwrap_or("R2,").trim_end_matches(',');
            format!("{op} {dst}, s[0]")
        } else if ins.contains(" BRA") {
            "BRA".to_string()
        } else {
            // `@!PT LDS RZ, [RZ]` (predicated off) and the loop's counter and compare.
            "NOP".to_string()
        };
        out.push(crate::sass::with_stall(&text, *stall));
    }
    (out, steps)
}

/// The LDGSTS chases from L1 and L2.
pub(crate) fn twins(v: &mut Vec<Twin>) {
    // --- LDGSTS: copy 16 B, commit, wait, LDS it back; the next address comes from the
    // value. The twin runs the SASS's timed loop (64 steps): per step three `@!PT LDS RZ,
    // [RZ]` (ptxas puts them before every LDGSTS; predicated off, an issue slot each),
    // LDGSTS (waiting for the register the previous LDS wrote), LDGDEPBAR, DEPBAR.LE SB0
    // and the LDS, each with its control code's stall count.
    for (bench, func, stride, lines) in [
        ("lat.ldgsts.ca16.fp_4KiB", "lat_ldgsts_ca16", 128u64, 32u64),
        ("lat.ldgsts.cg16.fp_4MiB", "lat_ldgsts_cg16", 1024, 4096),
    ] {
        let (body, steps) = ldgsts_loop(func, lines, stride);
        let iters = (lines / steps).max(1);
        let src = format!(
            "{}buffer A size={}\nshared s size=256\nrole main warps=0..0\n  loop p 0..{{N}}\n    loop i 0..{iters}\n{}  EXIT\n",
            header("ldgsts", 32, 32, 256, 1),
            stride * lines,
            body.iter()
                .map(|l| format!("      {l}\n"))
                .collect::<String>()
        );
        v.push(Twin {
            bench: bench.into(),
            group: "ldgsts",
            params: &[
                "lat_l1_hit",
                "lat_l2_near",
                "lat_l2_far",
                "lat_lds",
                "lat_ldgsts_fill",
            ],
            method: Method::Slope {
                src,
                lo: 2,
                hi: 3,
                per: (iters * steps) as f64,
            },
            what: format!("one warp runs `{func}`'s SASS loop ({steps} steps of three predicated-off LDS, LDGSTS 16 B, LDGDEPBAR, DEPBAR.LE SB0 0, LDS of the next address; stall counts from the SASS) over {lines} lines {stride} B apart; cycles per step"),
        });
    }
}
