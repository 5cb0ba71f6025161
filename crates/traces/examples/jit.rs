//! Jitter sweep behind `gemm_jitter_hurts_chained_static_schedules_more_than_ws` (tests/library.rs): each
//! gemm-mainloop schedule at grid 1 (M=128, N=256) is run on the h100 profile and on the
//! same profile with more latency variation, with the same seed for both runs of a pair;
//! it prints the base cycles (first seed), the mean, min and max slowdown over the seeds,
//! and the mean extra cycles.
//!
//! `cargo run --release -p traces --example jit`, with, from the environment:
//! JIT="jitter_hbm,jitter_l2" (default 400,200), PIPES="2,3", SEEDS (count, default 5),
//! SEED0 (first seed, default 1), K (default 2048), SCHED (comma-separated schedules),
//! P="NAME=V,..." (more parameters), PERSEED=1 (print each seed's slowdown).
fn main() {
    let env = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
    let (jh, jl) = {
        let j = env("JIT", "400,200");
        let (a, b) = j.split_once(',').unwrap();
        (a.parse::<f64>().unwrap(), b.parse::<f64>().unwrap())
    };
    let pipes: Vec<i64> = env("PIPES", "2,3")
        .split(',')
        .map(|s| s.parse().unwrap())
        .collect();
    let seeds: u64 = env("SEEDS", "5").parse().unwrap();
    let k: i64 = env("K", "2048").parse().unwrap();
    let scheds = env(
        "SCHED",
        "static-v1,static-v2,ws,ws-wait1,ws-cooperative,ws-pingpong",
    );
    let extra = env("P", "");
    let base = sim_core::Profile::builtin("h100").unwrap();
    let mut jit = base.clone();
    jit.set("jitter_hbm", jh).unwrap();
    jit.set("jitter_l2", jl).unwrap();
    for pipe in pipes {
        for s in scheds.split(',') {
            let mut ov = vec![
                ("K".to_string(), k),
                ("M".to_string(), 128),
                ("N".to_string(), 256),
                ("PIPE".to_string(), pipe),
            ];
            for kv in extra.split(',').filter(|s| !s.is_empty()) {
                let (a, b) = kv.split_once('=').unwrap();
                ov.push((a.to_string(), b.parse().unwrap()));
            }
            let kern = match traces::generate("gemm-mainloop", s, &ov) {
                Ok(k) => k,
                Err(e) => {
                    println!("PIPE {pipe} {s}: {e}");
                    continue;
                }
            };
            let mut sl = vec![];
            let mut c0 = 0;
            let s0: u64 = env("SEED0", "1").parse().unwrap();
            for seed in s0..s0 + seeds {
                let cfg = sim_core::RunConfig {
                    max_ctas: Some(1),
                    seed,
                    ..Default::default()
                };
                let a = sim_core::run(&kern, &base, &cfg).unwrap().cycles;
                let b = sim_core::run(&kern, &jit, &cfg).unwrap().cycles;
                if seed == s0 {
                    c0 = a;
                }
                sl.push(b as f64 / a as f64 - 1.0);
            }
            let mean = sl.iter().sum::<f64>() / sl.len() as f64;
            let mn = sl.iter().cloned().fold(f64::MAX, f64::min);
            let mx = sl.iter().cloned().fold(f64::MIN, f64::max);
            let abs_extra: f64 = sl.iter().sum::<f64>() / sl.len() as f64 * c0 as f64;
            if std::env::var("PERSEED").is_ok() {
                println!(
                    "  per-seed {:?}",
                    sl.iter()
                        .map(|x| (x * 1000.0).round() / 10.0)
                        .collect::<Vec<_>>()
                );
            }
            println!(
                "PIPE {pipe} {s:15} extra~{abs_extra:6.0} base {c0:7} slow mean {:6.2}% min {:6.2}% max {:6.2}%",
                mean * 100.0,
                mn * 100.0,
                mx * 100.0
            );
        }
    }
}
