//! The built-in `h200` profile as a prediction of another GPU: the fitted H100 SM with
//! three memory parameters derived from an H200's device attributes, scored against two
//! H200s' collects from two leases (data/h200, kept out of the fit). The chip bandwidth
//! twins must land within 5% of what each H200 measured, where the H100's memory puts them
//! far off (so the test is of the derivation, not of slack), and a core benchmark must not
//! move.

use std::path::Path;

use calibrate::schema::Measurement;
use calibrate::twins::micro_twins;
use sim_core::Profile;

/// The two H200 collects, from two leases (data/h200/README.md).
fn h200_collects() -> Vec<Measurement> {
    [
        "data/h200/h200-20261128T091158Z.json",
        "data/h200/gpu-6420e068/h200-20261128T124907Z.json",
    ]
    .iter()
    .map(|file| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let text = calibrate::datafile::read_text(&path).unwrap();
        Measurement::from_json(&text).unwrap()
    })
    .collect()
}

/// (simulated on `h200`, simulated on `h100`, measured on the H200) for one benchmark.
fn score(bench: &str, m: &Measurement) -> (f64, f64, f64) {
    let twin = micro_twins()
        .into_iter()
        .find(|t| t.bench == bench)
        .unwrap_or_else(|| panic!("no twin for {bench}"));
    let h200 = twin.eval(&Profile::builtin("h200").unwrap()).unwrap();
    let h100 = twin.eval(&Profile::builtin("h100").unwrap()).unwrap();
    (h200, h100, m.get(bench).unwrap().median)
}

#[test]
fn the_derived_h200_profile_predicts_the_h200s_chip_bandwidths() {
    let collects = h200_collects();
    // two collects (on two GPUs: their UUIDs are in data/h200's env files)
    assert_ne!(
        collects[0].provenance.date_utc,
        collects[1].provenance.date_utc
    );
    for m in &collects {
        predicts(m);
    }
}

fn predicts(m: &Measurement) {
    assert_eq!(m.provenance.gpu_name, "NVIDIA H200");
    for bench in ["bw.hbm.chip.bytes_per_clk", "bw.l2.chip.bytes_per_clk"] {
        let (h200, h100, measured) = score(bench, m);
        let err = |x: f64| (x - measured) / measured;
        assert!(
            err(h200).abs() < 0.05,
            "{bench}: h200 {h200} against {measured}"
        );
        assert!(
            err(h100).abs() > 0.10,
            "{bench}: h100 {h100} against {measured}"
        );
    }
    // The SM is the H100's: a shared-memory rate is the same on both profiles and the GPU.
    let (h200, h100, measured) = score("tp.lds32", m);
    assert_eq!(h200, h100);
    assert!(
        (h200 - measured).abs() / measured < 0.03,
        "{h200} against {measured}"
    );
}
