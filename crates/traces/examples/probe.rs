// scratch: run family/schedule with params and profile sets; prints tflops/gbps and units
fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let (fam, sch) = a[0].split_once('/').unwrap();
    let f = traces::family(fam).unwrap();
    let mut prof = sim_core::Profile::builtin(f.profile).unwrap();
    let mut params = vec![];
    for x in &a[1..] {
        let (k, v) = x.split_once('=').unwrap();
        if let Some(k) = k.strip_prefix('+') {
            prof.set(k, v.parse().unwrap()).unwrap();
        } else {
            params.push((k.to_string(), v.parse::<i64>().unwrap()));
        }
    }
    let k = traces::generate(fam, sch, &params).unwrap();
    let r = sim_core::run(&k, &prof, &Default::default()).unwrap();
    let u: Vec<String> = r
        .units
        .iter()
        .filter(|u| u.busy_fraction > 0.01)
        .map(|u| format!("{} {:.2}", u.unit, u.busy_fraction))
        .collect();
    println!(
        "{} tflops={:?} gbps={:?} cycles={} hbm_gbps={:.0} | {}",
        a.join(" "),
        r.tflops.map(|x| (x * 10.0).round() / 10.0),
        r.gbps.map(|x| x.round()),
        r.cycles,
        r.hbm_gbps,
        u.join(", ")
    );
}
