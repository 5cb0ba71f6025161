//! Prints a latency-hiding validation twin's kernel text: `vtwin l2 64 20 [iters]`.
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let c = calibrate::validation::VCase {
        bench: String::new(),
        l1: a.get(1).map(|s| s == "l1").unwrap_or(false),
        k: a.get(2).and_then(|s| s.parse().ok()).unwrap_or(64),
        warps: a.get(3).and_then(|s| s.parse().ok()).unwrap_or(20),
        iters: a.get(4).and_then(|s| s.parse().ok()).unwrap_or(16),
    };
    print!("{}", calibrate::validation::twin_text(&c, c.iters).unwrap());
}
