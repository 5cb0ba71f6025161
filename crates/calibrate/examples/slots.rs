//! The engine's side of `data/gaps/diverge/`'s `k_slots`: cycles per iteration with q
//! slots of 16 run (q = 0, 8, 16) against the GPU's. `slots [--text Q] [name=value ...]`.
use calibrate::slots_twin::{MEASURED, SLOTS_SASS_PATH, simulate_slots, slots_twin_text};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SLOTS_SASS_PATH);
    let sass = calibrate::datafile::read_text(&path).unwrap();
    if let Some(i) = a.iter().position(|x| x == "--text") {
        let q = a.get(i + 1).and_then(|x| x.parse().ok()).unwrap_or(0);
        print!("{}", slots_twin_text(&sass, q).unwrap());
        return;
    }
    let mut p = sim_core::Profile::builtin("h100").unwrap();
    for kv in &a {
        if let Some((k, v)) = kv.split_once('=') {
            p.set(k, v.parse().unwrap()).unwrap();
        }
    }
    println!("q  GPU  engine  (cycles per iteration)");
    for (q, gpu) in MEASURED {
        let e = simulate_slots(&sass, q, &p).unwrap();
        println!("{q:2} {gpu:8.2} {e:8.2} {:+.1}%", (e / gpu - 1.0) * 100.0);
    }
}
