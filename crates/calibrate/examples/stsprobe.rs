//! The STS probe's twins (`data/gaps/stsissue/`): cycles an iteration for each kernel,
//! warp count and q, with optional profile overrides: `stsprobe [name=value ...]`.
fn main() {
    let mut p = sim_core::Profile::builtin("h100").unwrap();
    for kv in std::env::args().skip(1) {
        if let Some((k, v)) = kv.split_once('=') {
            p.set(k, v.parse().unwrap()).unwrap();
        }
    }
    for func in ["k_slots", "k_distinct"] {
        for warps in [1, 2, 4, 8, 16] {
            let per: Vec<String> = [0, 8, 16]
                .iter()
                .map(|&q| {
                    let c = calibrate::gaps_sts::sts_probe_period(func, warps, q, &p).unwrap();
                    format!("{c:.1}")
                })
                .collect();
            println!("{func} warps {warps}: q 0/8/16 {}", per.join(" / "));
        }
    }
}
