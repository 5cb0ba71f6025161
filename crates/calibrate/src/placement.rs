//! Which SM a one-CTA benchmark ran on: its distance to L2, taken out of the data.
//!
//! On an H100 the L2 round trip depends on where the SM sits: one thread chasing a 4 MiB
//! cycle measures 275 to 307 cycles a load from SM to SM, the two SMs of a TPC alike,
//! and that distribution is the same on every GPU (`data/sm-spread`: two GPUs, median
//! 286.3 and 286.4; the collects' `lat.ldg.ld.per_sm.fp_16MiB`, one chase per SM at
//! once, has its median within 276.5 to 279.3 on all 19 GPUs). A one-CTA launch lands on
//! one SM (SM id 124 on every GPU tried), whose place differs from die to die: that,
//! not the GPU's L2, made the one-SM L2 chase range 268.8 to 285.1 over the GPUs.
//!
//! The model stands for a typical SM, so each collect's one-SM accesses beyond L1 are
//! moved by the landing SM's offset from the median SM, measured in the same collect:
//! `offset = lat.ldg.ld.fp_16MiB - median(lat.ldg.ld.per_sm.fp_16MiB)` cycles, one round
//! trip. Every benchmark [`crosses_to_l2`] loses `offset` (one round trip per load or
//! copy it reports). Over the committed GPUs this takes the spread of the L2 chases from
//! 4.7% to 0.9%, the L2 line loads from ~5% to 1-2%, the HBM chases from ~3% to ~1%, the
//! L2 copies of 4-64 KiB from 1.5-5.5% to 1.1-3.6%; HBM copies (whose spread is their
//! own) do not move.

use crate::schema::{Benchmark, Measurement};

/// The one-SM chase whose SM is the benchmarks' landing SM.
pub const LANDING: &str = "lat.ldg.ld.fp_16MiB";
/// The same chase on every SM at once: its median is the typical SM.
pub const PER_SM: &str = "lat.ldg.ld.per_sm.fp_16MiB";

/// Whether `b` is a one-SM latency whose every reported unit (a load, a copy) makes one
/// round trip from the SM to L2 or beyond: loads and copies from L2 or HBM
/// (`lat.ldg.*` but L1 hits and the per-SM chase itself, `lat.ldg_lines.l2.*`,
/// `lat.ldgsts.*` from L2, `lat.bulk.*`, `lat.tma2d.*`).
pub fn crosses_to_l2(b: &Benchmark) -> bool {
    let n = b.name.as_str();
    if b.unit != "cycles" || n.contains(".per_sm.") {
        return false;
    }
    let beyond_l1 = || {
        b.params
            .get("expected_level")
            .and_then(|v| v.as_str())
            .is_some_and(|l| l != "L1")
    };
    n.starts_with("lat.ldg_lines.l2.")
        || n.starts_with("lat.bulk.")
        || n.starts_with("lat.tma2d.")
        || ((n.starts_with("lat.ldg.") || n.starts_with("lat.ldgsts.")) && beyond_l1())
}

/// The landing SM's L2 round trip less the median SM's, in cycles, when `m` measured both.
pub fn offset(m: &Measurement) -> Option<f64> {
    let landing = m.benchmarks.iter().find(|b| b.name == LANDING)?;
    let per_sm = m.benchmarks.iter().find(|b| b.name == PER_SM)?;
    if landing.reps.is_empty() {
        return None;
    }
    Some(landing.median - crate::schema::median(&per_sm.reps)?)
}

/// What [`normalize`] did to a measurement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Placement {
    /// Every benchmark that [`crosses_to_l2`] moved by this many cycles (subtracted).
    Moved(f64),
    /// No per-SM reference in the file: its benchmarks that cross to L2 were dropped
    /// (`drop_unplaced`) or left as measured.
    Unplaced,
}

/// Moves every benchmark of `m` that [`crosses_to_l2`] to the median SM ([`offset`]);
/// where `m` has no per-SM reference, drops those benchmarks if `drop_unplaced` (a
/// collect pooled with others must not mix SMs) or leaves them.
pub fn normalize(m: &mut Measurement, drop_unplaced: bool) -> Placement {
    match offset(m) {
        Some(d) => {
            for b in m.benchmarks.iter_mut().filter(|b| crosses_to_l2(b)) {
                for r in &mut b.reps {
                    *r -= d;
                }
                b.median -= d;
            }
            Placement::Moved(d)
        }
        None => {
            if drop_unplaced {
                m.benchmarks.retain(|b| !crosses_to_l2(b));
            }
            Placement::Unplaced
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A committed collect that measured the per-SM chase.
    fn committed() -> Measurement {
        let path = crate::workspace_path(crate::PRIMARY_DATA);
        Measurement::from_json(&crate::datafile::read_text(&path).unwrap()).unwrap()
    }

    fn median_of(m: &Measurement, name: &str) -> f64 {
        m.benchmarks.iter().find(|b| b.name == name).unwrap().median
    }

    #[test]
    fn the_landing_sms_offset_moves_exactly_the_accesses_beyond_l1() {
        let raw = committed();
        let d = offset(&raw).expect("the primary measured the per-SM chase");
        let mut sms = raw
            .benchmarks
            .iter()
            .find(|b| b.name == PER_SM)
            .unwrap()
            .reps
            .clone();
        sms.sort_by(f64::total_cmp);
        let typical = (sms[sms.len() / 2 - 1] + sms[sms.len() / 2]) / 2.0;
        assert_eq!(sms.len() % 2, 0);
        assert!((d - (median_of(&raw, LANDING) - typical)).abs() < 1e-9);
        let mut m = raw.clone();
        assert_eq!(normalize(&mut m, true), Placement::Moved(d));
        // the landing chase now reads as the typical SM's
        assert!((median_of(&m, LANDING) - typical).abs() < 1e-9);
        for (before, after) in raw.benchmarks.iter().zip(&m.benchmarks) {
            let moved = before.median - after.median;
            let expect = if crosses_to_l2(before) { d } else { 0.0 };
            assert!((moved - expect).abs() < 1e-9, "{}", before.name);
        }
        for (name, moves) in [
            ("lat.ldg.ld.fp_4MiB", true),
            ("lat.ldg.ld.fp_4KiB", false),
            ("lat.ldg_lines.l2.lines_16", true),
            ("lat.ldg_lines.l1.lines_16", false),
            ("lat.ldgsts.cg16.fp_4MiB", true),
            ("lat.ldgsts.ca16.fp_4KiB", false),
            ("lat.bulk.hbm.16KiB", true),
            ("lat.tma2d.l2.4KiB", true),
            (PER_SM, false),
        ] {
            let b = raw.benchmarks.iter().find(|b| b.name == name).unwrap();
            assert_eq!(crosses_to_l2(b), moves, "{name}");
        }
    }

    #[test]
    fn a_file_with_no_per_sm_reference_drops_or_keeps_what_it_would_move() {
        let mut raw = committed();
        raw.benchmarks.retain(|b| b.name != PER_SM);
        assert_eq!(offset(&raw), None);
        let mut kept = raw.clone();
        assert_eq!(normalize(&mut kept, false), Placement::Unplaced);
        assert_eq!(kept, raw);
        let mut dropped = raw.clone();
        assert_eq!(normalize(&mut dropped, true), Placement::Unplaced);
        assert!(dropped.benchmarks.iter().all(|b| !crosses_to_l2(b)));
        let left = raw.benchmarks.iter().filter(|b| !crosses_to_l2(b)).count();
        assert_eq!(dropped.benchmarks.len(), left);
        assert!(left < raw.benchmarks.len());
    }
}
