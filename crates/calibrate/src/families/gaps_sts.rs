//! Twins of `data/gaps/stsissue/`'s probe: what a real STS costs its warp. W warps
//! (warp w on sub-partition w % 4) each loop over the SASS between two clock reads of
//! `k_slots` (16 slots `if (j < q)` of one float4, R7 rewritten after each store) or
//! `k_distinct` (16 slots of 16 float4 that nothing rewrites), then the fence, the
//! record and the back branch, with every instruction's stall count: the stores as the
//! engine's `STS.128` (a slot past `q` an issue slot, as the GPU's predicated-off store),
//! `MEMBAR.SC.CTA` as `MEMBAR.CTA`, the rest translated by pipe and latency class.
//! Not part of the fit or the report: `cargo test -p calibrate gaps_sts` compares the
//! twins with the measured windows.

use crate::sass::{sass_listing, with_stall};
use crate::twins::{header, sim_text};
use crate::validation::{RegMap, Tok, translate_scalar};
use sim_core::Profile;

/// The probe's `k_slots` and `k_distinct` (an excerpt of the dump of
/// `data/gaps/stsissue/h200-20261128T091435Z`, spacing collapsed).
pub const STS_SASS: &str =
    include_str!("../../data/gaps/stsissue/h200-20261128T091435Z.twins.sass.txt");

/// The predicate a store predicated off is guarded by (declared false).
const OFF: &str = "P6";

/// The loop of `func` from its first clock read in the loop to its back branch, as the
/// engine's lines for `q` real stores of 16.
pub fn sts_probe_body(func: &str, q: u32) -> Result<Vec<String>, String> {
    let listing = sass_listing(STS_SASS, func);
    let back = listing
        .iter()
        .rposition(|(_, ins, _)| ins.contains("BRA") && ins.starts_with("@!P"))
        .ok_or_else(|| format!("{func}: no back branch"))?;
    let first = listing
        .iter()
        .position(|(_, ins, _)| ins.contains("SR_CLOCKLO"))
        .ok_or_else(|| format!("{func}: no clock read"))?;
    let path = &listing[first..=back];
    let toks: Vec<Tok> = path
        .iter()
        .map(|(_, ins, stall)| Tok::Sass(ins.clone(), *stall))
        .collect();
    let map = RegMap::for_path(&toks, 0)?;
    // the predicate a store predicated off is guarded by, declared false, where the
    // SASS leaves it free (k_slots; k_distinct uses P0..P6: its stores off are NOPs)
    let free_pred = !path.iter().any(|(_, ins, _)| ins.contains(OFF));
    let mut body = Vec::new();
    for (i, (_, ins, stall)) in path.iter().enumerate() {
        let bare = crate::validation::strip_guard(ins).trim();
        let line = if let Some(operands) = bare.strip_prefix("STS.128") {
            // `[R10+UR5+0x200], R4`: slot 0x200 / 512, data R4..R7
            let (addr, data) = operands
                .rsplit_once(',')
                .ok_or_else(|| format!("STS without data: {ins}"))?;
            let off = addr
                .trim()
                .trim_end_matches(']')
                .rsplit('+')
                .next()
                .filter(|_| addr.matches('+').count() >= 2)
                .and_then(|o| u64::from_str_radix(o.trim().trim_start_matches("0x"), 16).ok())
                .unwrap_or(0);
            let j = off / 512;
            let sts = format!(
                "STS.128 s[warp * 8192 + {} + lane * 16], {}",
                off,
                data.trim()
            );
            if j < u64::from(q) {
                sts
            } else if free_pred {
                // predicated off: it issues, and takes its place in the MIO queue
                format!("@{OFF} {sts}")
            } else {
                "NOP".to_string()
            }
        } else if bare.starts_with("MEMBAR") {
            "MEMBAR.CTA".to_string()
        } else if i == path.len() - 1 {
            "BRA".to_string()
        } else if bare.contains("BRA") {
            // the record's branch: lane 0 of every warp stores, so the warp runs it
            "NOP".to_string()
        } else {
            translate_scalar(ins, &map)
        };
        body.push(with_stall(&line, *stall));
    }
    Ok(body)
}

/// The probe's twin for `warps` warps: `{N}` iterations of the loop.
pub fn sts_probe_text(func: &str, warps: u32, q: u32) -> Result<String, String> {
    let body = sts_probe_body(func, q)?;
    let mut src = header(func, warps * 32, 96, warps * 8192, 1);
    if body.iter().any(|l| l.starts_with(&format!("@{OFF} "))) {
        src.push_str(&format!("pred {OFF} = 0\n"));
    }
    src.push_str(&format!(
        "shared s size={}\nrole main warps=0..{}\n  loop it 0..{{N}}\n",
        warps * 8192,
        warps - 1
    ));
    for l in &body {
        src.push_str(&format!("    {l}\n"));
    }
    src.push_str("  EXIT\n");
    Ok(src)
}

/// Cycles an iteration of the probe's loop takes the twin (the slope between 16 and 48
/// iterations, which leaves the start out).
pub fn sts_probe_period(func: &str, warps: u32, q: u32, p: &Profile) -> Result<f64, String> {
    let src = sts_probe_text(func, warps, q)?;
    let lo = sim_text(&src, 16, p)?.cycles as f64;
    let hi = sim_text(&src, 48, p)?.cycles as f64;
    Ok((hi - lo) / 32.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The probe's output (`stsread.txt`): window + fence, medians, by (kernel, warps, q).
    fn measured(kernel: &str, warps: u32, q: u32) -> f64 {
        let text = include_str!("../../data/gaps/stsissue/h200-20261128T091435Z.stsread.txt");
        for l in text.lines() {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() > 12 && f[0] == kernel && f[2] == warps.to_string() && f[4] == q.to_string()
            {
                return f[6].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap();
            }
        }
        panic!("{kernel} {warps} {q} not measured")
    }

    /// What 16 real stores cost one warp over 16 predicated off (q 16 against q 0; 8
    /// against 0), the twin's period against the GPU's window and fence: `k_slots`
    /// (each store followed by a write to its data register) +140 and +71 against +139
    /// and +69, `k_distinct` (nothing rewritten) +94 and +3 against +87 and +15. With the
    /// store path off (registers read at issue) `k_slots`' stores cost nothing: the
    /// 8.25 cycles a store of `wsstream/predsts/` are the write's wait, not an issue cost.
    /// (Four warps on four sub-partitions: `k_slots` +219 on the GPU, +140 here: the
    /// crossbar is shared first come first served, not evenly; not asserted.)
    #[test]
    fn one_warps_real_stores_cost_what_the_gpu_measured() {
        let p = Profile::builtin("h100").unwrap();
        let extra = |func: &str, q: u32, p: &Profile| {
            sts_probe_period(func, 1, q, p).unwrap() - sts_probe_period(func, 1, 0, p).unwrap()
        };
        for (func, kernel) in [("k_slots", "slots"), ("k_distinct", "distinct")] {
            for q in [8, 16] {
                let (s, m) = (
                    extra(func, q, &p),
                    measured(kernel, 1, q) - measured(kernel, 1, 0),
                );
                assert!((s - m).abs() <= 12.0, "{func} q {q}: {s} against {m}");
            }
        }
        let mut off = p.clone();
        off.set("sts_read_bytes_per_clk", 0.0).unwrap();
        assert_eq!(extra("k_slots", 16, &off), 0.0);
    }
}
