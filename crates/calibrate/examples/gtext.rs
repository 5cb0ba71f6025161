//! Prints a gemm-mainloop validation twin's kernel text: `gtext SCHEDULE PIPE [M N K]`.
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let num = |i: usize, d: i64| a.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let c = calibrate::validation::GemmCase {
        bench: String::new(),
        schedule: a.get(1).cloned().unwrap_or_else(|| "ws".into()),
        fenced: false,
        pipe: num(2, 4),
        m: num(3, 128),
        n: num(4, 256),
        k: num(5, 4096),
        boxes: false,
    };
    match calibrate::validation::gemm_twin_text(&c) {
        Ok(t) => print!("{t}"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}
