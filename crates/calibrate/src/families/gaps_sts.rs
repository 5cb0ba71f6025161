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
    let mut body = Vec::new();
    for (i, (_, ins, stall)) in path.iter().enumerate() {
        let bare = crate::validation::strip_guard(ins).trim();
        let line = if bare.starts_with("STS.128") {
            // `[R10+UR5+0x200], R4`: slot 0x200 / 512, data R4..R7
            let (addr, data) = bare["STS.128".len()..]
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
            if j >= u64::from(q) {
                "NOP".to_string()
            } else {
                format!(
                    "STS.128 s[warp * 8192 + {} + lane * 16], {}",
                    off,
                    data.trim()
                )
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
