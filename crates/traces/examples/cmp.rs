fn main() {
    let args: Vec<String> = std::env::args().collect();
    let fam = &args[1];
    let ov: Vec<(String, i64)> = args[2..]
        .iter()
        .map(|a| {
            let (k, v) = a.split_once('=').unwrap();
            (k.to_string(), v.parse().unwrap())
        })
        .collect();
    let f = traces::family(fam).unwrap();
    let mut prof = sim_core::Profile::builtin(f.profile).unwrap();
    if let Ok(j) = std::env::var("JL2") {
        prof.set("jitter_l2", j.parse().unwrap()).unwrap();
    }
    if let Ok(j) = std::env::var("JHBM") {
        prof.set("jitter_hbm", j.parse().unwrap()).unwrap();
    }
    // SET="name=value,name=value": profile overrides.
    if let Ok(sets) = std::env::var("SET") {
        for kv in sets.split(',').filter(|s| !s.is_empty()) {
            let (k, v) = kv.split_once('=').unwrap();
            prof.set(k, v.parse().unwrap()).unwrap();
        }
    }
    let cfg = sim_core::RunConfig {
        max_ctas: std::env::var("MAXCTAS").ok().map(|v| v.parse().unwrap()),
        ..Default::default()
    };
    for s in f.schedules {
        let k = traces::generate(fam, s.name, &ov).unwrap();
        let d = isa::validate::validate(&k);
        if !d.is_empty() {
            println!("{}: {:?}", s.name, d);
        }
    }
    let t = std::time::Instant::now();
    let c = traces::compare(fam, &ov, &prof, &cfg).unwrap();
    println!("{}", present::compare::render(&c));
    eprintln!("took {:?}", t.elapsed());
}
