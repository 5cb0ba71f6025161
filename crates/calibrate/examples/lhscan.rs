//! The latency-hiding validation twins against every committed GPU run:
//! `lhscan [l1|l2] [name=value ...]` prints, per K and WARPS, the simulated cycles per
//! iteration, the five runs' min and max, and the error against the scored run (`LHK=16
//! LHW=16` in the environment: that K and WARPS only); `lhscan probe [name=value ...]`
//! the chase of `gap.l1_spread` (data/gaps) by warps, cycles a step and a line; `lhscan
//! hide [name=value ...]` the 96 `gap.l1hide` points (data/gaps/l1hide) against the first
//! run's medians, each launch's cycles a line beside them (`LHK`, `LHW`, `LHS`: that K,
//! WARPS, stagger only); `lhscan text` prints the K = 16, 16-warp L1 twin.
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let level = a.get(1).cloned().unwrap_or_else(|| "l1".into());
    let mut p = sim_core::Profile::builtin("h100").unwrap();
    for kv in &a[2.min(a.len())..] {
        if let Some((k, v)) = kv.split_once('=') {
            p.set(k, v.parse().unwrap()).unwrap();
        }
    }
    if level == "text" {
        let c = calibrate::validation::VCase {
            bench: String::new(),
            l1: true,
            k: 16,
            warps: 16,
            iters: 4,
        };
        print!("{}", calibrate::validation::twin_text(&c, 4).unwrap());
        return;
    }
    if level == "hide" {
        // the 96 gap.l1hide points (data/gaps/l1hide): simulated against every launch
        let m = calibrate::load_data(calibrate::validation::L1HIDE_RUNS[0]).unwrap();
        let (mut sum, mut n) = (0.0, 0);
        let only = |v: &str, x: u32| std::env::var(v).map(|s| s == x.to_string()).unwrap_or(true);
        for pt in calibrate::validation::l1hide_points(&m) {
            if !only("LHK", pt.k) || !only("LHW", pt.warps) || !only("LHS", pt.stagger) {
                continue;
            }
            let s = calibrate::validation::simulate_l1hide(&pt, 64, &p).unwrap();
            let e = (s / pt.median - 1.0) * 100.0;
            sum += e.abs();
            n += 1;
            let lines = 32.0 * pt.warps as f64;
            let reps: Vec<String> = pt
                .reps
                .iter()
                .map(|r| format!("{:.2}", r / lines))
                .collect();
            println!(
                "s{} k{:<3} w{:<3} gpu {:7.1} ({:.3}/line; launches {})  sim {:7.1} ({:.3})  {:+6.2}%",
                pt.stagger,
                pt.k,
                pt.warps,
                pt.median,
                pt.median / lines,
                reps.join(" "),
                s,
                s / lines,
                e
            );
        }
        println!("MAPE {:.2}% over {n}", sum / n as f64);
        return;
    }
    if level == "probe" {
        // gap.l1_spread's walk: every lane chases its own 8 lines (lanes 1 KiB apart),
        // the next load waiting for the last (data/gaps h100-20261127T191229Z)
        let text = |w: u32, iters: u32| {
            format!(
                "kernel probe\nlaunch cta_threads={} regs=64 smem=0 grid=1\nbuffer P size={}\nparam LINES=8 ITERS={iters}\nrole chase warps=0..{}\n  loop i 0..ITERS\n    LDG.E R14, P[((warp * 32 + lane) * LINES + i % LINES) * 128]\n    IADD3 R15, R14, R14, RZ\n  EXIT\n",
                w * 32,
                w as u64 * 32 * 8 * 128,
                w - 1
            )
        };
        for w in [8, 10, 11, 12, 13, 14, 16, 20, 24, 32] {
            let a =
                calibrate::twins::span(&calibrate::twins::sim_text(&text(w, 64), 0, &p).unwrap());
            let b =
                calibrate::twins::span(&calibrate::twins::sim_text(&text(w, 256), 0, &p).unwrap());
            let step = (b - a) / 192.0;
            println!(
                "probe w{w:<3} {step:7.1} cycles a step, {:.3} a line",
                step / (32.0 * w as f64)
            );
        }
        return;
    }
    let runs: Vec<calibrate::Measurement> = calibrate::VALIDATION_RUNS
        .iter()
        .map(|(d, _)| calibrate::load_data(d).unwrap())
        .collect();
    let cases = calibrate::validation::cases(&runs[0]);
    let mut sum = 0.0;
    let mut n = 0;
    for (c, m) in cases {
        if c.l1 != (level == "l1") {
            continue;
        }
        let only = |v: &str, x: u32| std::env::var(v).map(|s| s == x.to_string()).unwrap_or(true);
        if !only("LHK", c.k) || !only("LHW", c.warps) {
            continue;
        }
        let others: Vec<f64> = runs
            .iter()
            .filter_map(|r| {
                r.benchmarks
                    .iter()
                    .find(|b| b.name == c.bench)
                    .map(|b| b.median)
            })
            .collect();
        let lo = others.iter().cloned().fold(f64::MAX, f64::min);
        let hi = others.iter().cloned().fold(0.0, f64::max);
        let (s, _) = calibrate::validation::simulate(&c, &p).unwrap();
        let e = (s / m - 1.0) * 100.0;
        sum += e.abs();
        n += 1;
        println!(
            "k{:<3} w{:<3} gpu {:7.1} [{:7.1} {:7.1}]  sim {:7.1}  {:+6.2}%",
            c.k, c.warps, m, lo, hi, s, e
        );
    }
    println!("MAPE {:.2}% over {n}", sum / n as f64);
}
