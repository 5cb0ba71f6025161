//! Prints a digest of every run's whole result (JSON) for the library's kernels (every
//! family and schedule at its defaults and a few variants), the engine benchmarks and the
//! examples, on the built-in profiles and with more HBM jitter, under every scheduling
//! policy and two seeds, plus a digest of one run's event stream per kernel. An engine
//! change meant to change no result (a speed-up) must leave the output unchanged:
//!
//! ```sh
//! cargo run --release -p traces --example digest > before.txt   # on the old tree
//! cargo run --release -p traces --example digest > after.txt    # on the new one
//! diff before.txt after.txt
//! ```
//!
//! (Run it from the repository root. The digests are std's `DefaultHasher`: compare
//! outputs of one toolchain.)
use std::hash::{Hash, Hasher};
fn main() {
    let mut out = String::new();
    let mut kernels: Vec<(String, isa::Kernel, &'static str)> = Vec::new();
    for f in traces::families() {
        for s in f.schedules {
            let k = traces::generate(f.name, s.name, &[]).unwrap();
            kernels.push((format!("{}/{}", f.name, s.name), k, f.profile));
        }
    }
    for (fam, sch, ov) in [
        ("gemm-mainloop", "ws", vec![("PIPE", 2), ("K", 1024)]),
        ("gemm-mainloop", "static-v1", vec![("PIPE", 2)]),
        ("latency-hiding", "chase", vec![("WARPS", 32), ("K", 4)]),
    ] {
        let ov: Vec<(String, i64)> = ov.iter().map(|(a, b)| (a.to_string(), *b)).collect();
        let k = traces::generate(fam, sch, &ov).expect("a library kernel");
        kernels.push((format!("{fam}/{sch}/{ov:?}"), k, "h100"));
    }
    for p in [
        "crates/sim-core/benches/chain.smk",
        "crates/sim-core/benches/gemm.smk",
        "examples/cp_async.smk",
        "examples/ffma_chain.smk",
        "examples/gemm_ws.smk",
        "examples/mbarrier_pingpong.smk",
        "examples/saxpy.smk",
    ] {
        let k = isa::parse_kernel(&std::fs::read_to_string(p).unwrap()).unwrap();
        kernels.push((p.to_string(), k, "h100"));
    }
    for (name, k, pname) in &kernels {
        let base = sim_core::Profile::builtin(pname).unwrap();
        let mut jittered = base.clone();
        jittered.set("jitter_hbm", 300.0).unwrap();
        for (pi, p) in [&base, &jittered].iter().enumerate() {
            for policy in sim_core::scheduler::Policy::ALL {
                for seed in [1u64, 7] {
                    let cfg = sim_core::RunConfig {
                        seed,
                        policy,
                        max_ctas: Some(4),
                        ..Default::default()
                    };
                    let r = sim_core::run(k, p, &cfg);
                    let s = match r {
                        Ok(r) => serde_json::to_string(&r).unwrap(),
                        Err(e) => format!("ERR {e}"),
                    };
                    out.push_str(&format!(
                        "{name} p{pi} {policy:?} {seed} {:016x}\n",
                        digest(&s)
                    ));
                    if seed == 1 && pi == 0 && policy == sim_core::scheduler::Policy::TwoLevel {
                        let mut sink = sim_core::sink::VecSink::default();
                        let r = sim_core::run_with(k, p, &cfg, policy.build(), &mut sink);
                        let events = format!("{:?} {:?}", sink.events, r.map(|r| r.cycles));
                        out.push_str(&format!(
                            "{name} events {:016x} n={}\n",
                            digest(&events),
                            sink.events.len()
                        ));
                    }
                }
            }
        }
    }
    print!("{out}");
}

fn digest(text: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}
