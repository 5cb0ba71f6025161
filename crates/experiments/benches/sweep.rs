//! A 1,000-run sweep: five gemm-mainloop schedules x PIPE 3, 4 x twenty HBM latencies x
//! five seeds (200 points of five seeds each), written to a results file, on one worker
//! thread and on two. The ratio is the sweep's parallel speed-up; the two-thread time is
//! what a user waits for.
//!
//! `cargo bench -p experiments --bench sweep`

use criterion::{Criterion, criterion_group, criterion_main};
use experiments::runner::{Options, Quiet};
use experiments::{expand, spec};

const SPEC: &str = r#"
kernels = ["gemm-mainloop/static-v1", "gemm-mainloop/static-v2", "gemm-mainloop/ws",
           "gemm-mainloop/ws-wait1", "gemm-mainloop/ws-pingpong"]
seeds = "1..5"
[param]
PIPE = "3..4"
[set]
lat_hbm = "400..2300:100"
"#;

fn sweep(c: &mut Criterion) {
    let plan = expand(&spec::parse(SPEC, std::path::Path::new(".")).unwrap()).unwrap();
    assert_eq!(plan.points.len() * plan.seeds.len(), 1000);
    let out = std::env::temp_dir().join(format!("smsim-bench-{}.jsonl", std::process::id()));
    let mut g = c.benchmark_group("sweep_1000_runs");
    g.sample_size(10);
    for jobs in [1, 2] {
        g.bench_function(format!("jobs_{jobs}"), |b| {
            b.iter(|| {
                let opts = Options {
                    jobs,
                    force: true,
                    ..Options::default()
                };
                let o = experiments::run_sweep(&plan, &out, &opts, &Quiet).unwrap();
                assert_eq!(o.ran, 200);
            })
        });
    }
    g.finish();
    let _ = std::fs::remove_file(&out);
}

criterion_group!(benches, sweep);
criterion_main!(benches);
