fn main() {
    let p = sim_core::Profile::builtin("h100").unwrap();
    let text =
        std::fs::read_to_string("crates/calibrate/data/validation/h100-20261122T210256Z.json")
            .unwrap();
    let m = calibrate::Measurement::from_json(&text).unwrap();
    for (c, meas) in calibrate::validation::gemm_cases(&m) {
        let t = std::time::Instant::now();
        let (v, _) = calibrate::validation::simulate_gemm(&c, &p).unwrap();
        println!(
            "{:55} {:>9.0} {:>9.0} {:+6.1}%  ({:.0} ms)",
            c.bench,
            meas,
            v,
            (v - meas) / meas * 100.0,
            t.elapsed().as_secs_f64() * 1e3
        );
    }
}
