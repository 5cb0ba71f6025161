//! Runs the benchmark kernels once each and prints simulated work per host second, for
//! quick checks under `perf stat` or callgrind (criterion's `cargo bench` is the measure).
fn main() {
    let which = std::env::args().nth(1).unwrap_or_else(|| "chain".into());
    let src =
        std::fs::read_to_string(format!("crates/sim-core/benches/{which}.smk")).expect("kernel");
    let k = isa::parse_kernel(&src).expect("parses");
    let p = sim_core::Profile::builtin("h100").unwrap();
    let t = std::time::Instant::now();
    let r = sim_core::run(&k, &p, &sim_core::RunConfig::default()).unwrap();
    let s = t.elapsed().as_secs_f64();
    println!(
        "{which}: {} cycles, {} instructions in {:.1} ms: {:.1} M cycles/s, {:.1} M instr/s",
        r.cycles,
        r.instructions,
        s * 1e3,
        r.cycles as f64 / s / 1e6,
        r.instructions as f64 / s / 1e6
    );
}
