//! Simulates a TMA-streaming validation twin (`stream_twin.rs`) with optional profile
//! overrides: `stwin SCHEDULE XBLOCK NLB NSB [name=value ...] [--text]`.
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let arg = |i: usize, d: &str| a.get(i).cloned().unwrap_or_else(|| d.to_string());
    let schedule = arg(1, "tma-pipelined");
    let num = |i: usize, d: i64| arg(i, "").parse().unwrap_or(d);
    let (xb, nlb, nsb) = (num(2, 32), num(3, 2), num(4, 1));
    let mut p = sim_core::Profile::builtin("h100").unwrap();
    let mut text = false;
    for kv in &a[5.min(a.len())..] {
        if kv == "--text" {
            text = true;
        } else if let Some((k, v)) = kv.split_once('=') {
            p.set(k, v.parse().unwrap()).unwrap();
        }
    }
    let c = calibrate::library::LibraryCase {
        family: "elementwise-add",
        bench: String::new(),
        schedule,
        params: vec![
            ("XNUMEL".into(), xb),
            ("YNUMEL".into(), 4096),
            ("XBLOCK".into(), xb),
            ("YBLOCK".into(), 128),
            ("NUM_LOAD_BUFFERS".into(), nlb),
            ("NUM_STORE_BUFFERS".into(), nsb),
            ("COMPUTE_WARPS".into(), 4),
        ],
        grid: 1,
    };
    if text {
        print!("{}", calibrate::stream_twin::stream_twin_text(&c).unwrap());
    }
    let (cy, _) = calibrate::stream_twin::simulate_stream(&c, &p).unwrap();
    println!("{cy:.0}");
}
