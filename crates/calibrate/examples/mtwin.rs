//! Simulates the microbenchmark twins whose names start with a prefix, with optional
//! parameter overrides: `mtwin PREFIX [name=value ...] [--text]`.
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let prefix = a.get(1).cloned().unwrap_or_default();
    let mut p = sim_core::Profile::builtin("h100").unwrap();
    let mut text = false;
    for kv in &a[2.min(a.len())..] {
        if kv == "--text" {
            text = true;
        } else if let Some((k, v)) = kv.split_once('=') {
            p.set(k, v.parse().unwrap()).unwrap();
        }
    }
    for t in calibrate::twins::micro_twins() {
        if t.bench.starts_with(&prefix) {
            if text {
                print!("{}", t.kernel_text().unwrap_or_default());
            }
            println!("{}\t{:.3}", t.bench, t.eval(&p).unwrap());
        }
    }
}
