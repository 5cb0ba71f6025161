//! Simulates the gemm-mainloop validation twins whose names contain a filter, each at the
//! profile's clock_mhz_tensor_uniform and at the clock it ran at, with optional parameter overrides:
//! `gshared FILTER [name=value ...]` (prints measured, simulated, error, at its clock).
//! `GSHARED_CONTIGUOUS=1`: the copies contiguous, not the tensor maps' boxes; `GSHARED_MEM=1`: memory
//! counts; `GSHARED_TEXT=1`: the first case's twin text.
use rayon::prelude::*;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let filter = a.get(1).cloned().unwrap_or_default();
    let mut p = sim_core::Profile::builtin("h100").unwrap();
    for kv in &a[2.min(a.len())..] {
        if let Some((k, v)) = kv.split_once('=') {
            p.set(k, v.parse().unwrap()).unwrap();
        }
    }
    let vm = calibrate::load_data("crates/calibrate/data/validation/h100-20261127T060007Z.json")
        .unwrap();
    // GSHARED_CONTIGUOUS=1: the operand copies contiguous, not as the tensor maps' boxes
    // (`GemmCase::boxes`).
    let boxes = std::env::var_os("GSHARED_CONTIGUOUS").is_none();
    let cases: Vec<_> = calibrate::validation::gemm_cases(&vm)
        .into_iter()
        .filter(|(c, _)| c.bench.contains(&filter) && !c.fenced)
        .map(|(mut c, m)| {
            c.boxes = boxes;
            (c, m)
        })
        .collect();
    // GSHARED_TEXT=1: the first case's twin text instead.
    if std::env::var_os("GSHARED_TEXT").is_some() {
        if let Some((c, _)) = cases.first() {
            print!("{}", calibrate::validation::gemm_twin_text(c).unwrap());
        }
        return;
    }
    // GSHARED_MEM=1: each case's memory counts (requests per level, bytes from HBM).
    if std::env::var_os("GSHARED_MEM").is_some() {
        for (c, _) in &cases {
            let r = calibrate::validation::simulate_gemm(c, &p).unwrap().1;
            let m = &r.memory;
            println!(
                "{:44} L2 near {:6} far {:6} HBM {:6} hbm bytes {:9}",
                c.bench.trim_start_matches("val.gemm_mainloop."),
                m.requests_l2_near,
                m.requests_l2_far,
                m.requests_hbm,
                m.hbm_bytes
            );
        }
        return;
    }
    let rows: Vec<(String, f64, f64)> = cases
        .par_iter()
        .map(|(c, meas)| {
            let b = vm.get(&c.bench).unwrap();
            let mhz = calibrate::report::measured_clock_mhz(b).unwrap();
            let s = calibrate::validation::simulate_gemm(c, &p).unwrap().0;
            let mut q = p.clone();
            q.set("clock_mhz_tensor_uniform", mhz).unwrap();
            let sc = calibrate::validation::simulate_gemm(c, &q).unwrap().0;
            (
                format!(
                    "{:58} {:8.0} {:8.0} {:+7.2}%  @{:4.0} {:8.0} {:+7.2}%",
                    c.bench.trim_start_matches("val.gemm_mainloop."),
                    meas,
                    s,
                    (s - meas) / meas * 100.0,
                    mhz,
                    sc,
                    (sc - meas) / meas * 100.0
                ),
                ((s - meas) / meas).abs(),
                ((sc - meas) / meas).abs(),
            )
        })
        .collect();
    for r in &rows {
        println!("{}", r.0);
    }
    let n = rows.len().max(1) as f64;
    println!(
        "MAPE {:.2}% at the profile's clock, {:.2}% at each kernel's",
        rows.iter().map(|r| r.1).sum::<f64>() / n * 100.0,
        rows.iter().map(|r| r.2).sum::<f64>() / n * 100.0
    );
}
