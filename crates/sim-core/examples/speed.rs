//! Runs a benchmark kernel and prints simulated work per host second, for quick checks
//! under `perf stat` or callgrind (criterion's `cargo bench` is the measure).
//! `speed KERNEL [RUNS] [NAME=VALUE...]`: with several runs, in one process as criterion
//! does, the fastest is reported; profile parameters may be overridden (to see what a
//! model's size costs the host, say `l2_bytes=1048576`). With `SPEED_RACES` set, the
//! run checks races (`sim_core::races::RaceCheck`), to measure the checker's cost.
//! KERNEL is a benchmark's name (`crates/sim-core/benches/KERNEL.smk`) or a kernel file
//! (a path ending `.smk`: say one `smsim kernels --emit` wrote); `SPEED_MAX_CTAS=N`
//! simulates at most N CTAs (as `smsim compare` caps a seed-shaped grid).
fn main() {
    let which = std::env::args().nth(1).unwrap_or_else(|| "chain".into());
    let runs: usize = std::env::args()
        .nth(2)
        .map(|n| n.parse().expect("a number of runs"))
        .unwrap_or(1);
    let path = if which.ends_with(".smk") {
        which.clone()
    } else {
        format!("crates/sim-core/benches/{which}.smk")
    };
    let src = std::fs::read_to_string(path).expect("kernel");
    let k = isa::parse_kernel(&src).expect("parses");
    let mut p = sim_core::Profile::builtin("h100").unwrap();
    for set in std::env::args().skip(3) {
        let (name, value) = set.split_once('=').expect("NAME=VALUE");
        p.set(name, value.parse().expect("a number"))
            .expect("a profile parameter");
    }
    let mut best = f64::INFINITY;
    let mut r = None;
    for _ in 0..runs.max(1) {
        let t = std::time::Instant::now();
        // (SPEED_RACES=1: with the race checker on, to measure what it costs.)
        let cfg = sim_core::RunConfig {
            max_ctas: std::env::var("SPEED_MAX_CTAS")
                .ok()
                .map(|n| n.parse().expect("SPEED_MAX_CTAS: a number")),
            ..Default::default()
        };
        r = Some(if std::env::var_os("SPEED_RACES").is_some() {
            let mut sink = sim_core::races::RaceCheck::new(sim_core::sink::NoSink, &k);
            sim_core::run_with(&k, &p, &cfg, cfg.policy.build(), &mut sink).unwrap()
        } else {
            sim_core::run(&k, &p, &cfg).unwrap()
        });
        best = best.min(t.elapsed().as_secs_f64());
    }
    let (r, s) = (r.expect("ran"), best);
    println!(
        "{which}: {} cycles, {} instructions in {:.2} ms: {:.1} M cycles/s, {:.1} M instr/s",
        r.cycles,
        r.instructions,
        s * 1e3,
        r.cycles as f64 / s / 1e6,
        r.instructions as f64 / s / 1e6
    );
}
