//! The fitted profile as TOML, its figures, and the terminal summary.

use super::*;

/// The profile as TOML in the layout of `profiles/h100.toml` (parameters in the engine's
/// order, one per line, a header saying where it came from).
pub fn profile_toml(p: &Profile, header: &str) -> String {
    let q = |s: &str| toml::Value::String(s.to_string()).to_string();
    let mut out = String::new();
    for l in header.lines() {
        out.push_str(&format!("# {l}\n"));
    }
    out.push_str(&format!(
        "name = {}\ngpu = {}\nvalidated = {}\nnote = {}\n\n[params]\n",
        q(&p.file.name),
        q(&p.file.gpu),
        p.file.validated,
        q(&p.file.note)
    ));
    for n in sim_core::profile::Timing::NAMES {
        let e = &p.file.params[*n];
        let v = if e.value.fract() == 0.0 && e.value.abs() < 1e15 {
            format!("{}", e.value as i64)
        } else {
            format!("{}", e.value)
        };
        out.push_str(&format!(
            "{n} = {{ value = {v}, source = {} }}\n",
            q(&e.source)
        ));
    }
    out
}

/// Mean and worst |error| in percent over the fit's rows.
pub fn error_figures(rows: &[(String, f64, f64)]) -> (f64, f64, String) {
    let mut worst = (0.0, String::new());
    let mut sum = 0.0;
    for (b, m, s) in rows {
        let e = (rel(*s, *m) * 100.0).abs();
        sum += e;
        if e > worst.0 {
            worst = (e, b.clone());
        }
    }
    (sum / rows.len().max(1) as f64, worst.0, worst.1)
}

/// The fitted profile as the TOML file `fit` writes: `validated` only when every
/// twinned microbenchmark is within 3%.
pub fn finished_toml(r: &FitResult) -> String {
    let mut p = r.profile.clone();
    let (mape, worst, wb) = error_figures(&r.rows);
    let within = r
        .rows
        .iter()
        .filter(|(_, m, s)| (rel(*s, *m)).abs() <= TARGET)
        .count();
    // validated: every benchmark in band (within 3% where the data carry no spread)
    p.file.validated = r.in_band == r.rows.len();
    p.file.note = format!(
        "fitted by `smsim calibrate fit` to {}{} ({} twinned microbenchmarks): mean |error| {:.1}%, {} of {} within 3%, {} in band (inside the spread over GPUs or within 3%), worst {:.1}% ({}); {}",
        r.data_file,
        crate::pooled_from(&r.data_file).map_or(String::new(), |p| format!(", with {p}")),
        r.rows.len(),
        mape,
        within,
        r.rows.len(),
        r.in_band,
        worst,
        wb,
        if p.file.validated {
            "all in band"
        } else {
            "not all in band: see crates/calibrate/report/report.md"
        }
    );
    profile_toml(
        &p,
        "The built-in H100 SXM profile. Every parameter the engine uses, with its value and\nwhere it came from. Written by `smsim calibrate fit --write-builtin`: parameters the\nmicrobenchmarks isolate are fitted (their source names the data file, the benchmarks\nand the residual); the others keep their published sources. Cycles are SM clock cycles.",
    )
}

/// A few lines for the terminal.
pub fn summary(r: &FitResult) -> String {
    let (mape, worst, wb) = error_figures(&r.rows);
    let mut s = String::new();
    for f in &r.params {
        s.push_str(&format!(
            "{:28} {:>10} (prior {:>8})  max err {:6.2}%\n",
            f.name, f.value, f.prior, f.max_abs_err_pct
        ));
    }
    s.push_str(&format!(
        "{} twinned microbenchmarks: mean |error| {mape:.2}%, worst {worst:.2}% ({wb})",
        r.rows.len()
    ));
    s
}
