//! Which twins each profile parameter moves that the twin does not declare in its
//! `params` (the joint refinement re-runs only declared twins): every parameter moved
//! by 10% (at least 1) up and down. `cargo run --release -p calibrate --example deps`.
fn main() {
    let p = sim_core::Profile::builtin("h100").unwrap();
    let twins = calibrate::twins::micro_twins();
    let base: Vec<f64> = twins
        .iter()
        .map(|t| t.eval(&p).unwrap_or(f64::NAN))
        .collect();
    for name in sim_core::profile::Timing::NAMES {
        let x = p.file.params[*name].value;
        let d = (x.abs() * 0.1).round().max(1.0);
        let mut moved = Vec::new();
        for cand in [x + d, (x - d).max(0.0), x * 1.1, x * 0.9] {
            let mut q = p.clone();
            if q.set(name, cand).is_err() {
                continue;
            }
            for (t, b) in twins.iter().zip(&base) {
                let v = t.eval(&q).unwrap_or(f64::NAN);
                if (v - b).abs() > 1e-9 && !t.params.contains(name) && !moved.contains(&t.bench) {
                    moved.push(t.bench.clone());
                }
            }
        }
        if !moved.is_empty() {
            println!("{name}: {}", moved.join(" "));
        }
    }
}
