//! Prints, per schedule of a family, each role's stall states broken down by the opcode
//! they were charged to (debugging aid for the library's properties).
use std::collections::BTreeMap;

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
    let prof = sim_core::Profile::builtin(f.profile).unwrap();
    let cfg = sim_core::RunConfig {
        max_ctas: Some(1),
        ..Default::default()
    };
    for s in f.schedules {
        let k = traces::generate(fam, s.name, &ov).unwrap();
        let r = match sim_core::run(&k, &prof, &cfg) {
            Ok(r) => r,
            Err(e) => {
                println!("{}: {e}", s.name);
                continue;
            }
        };
        println!("== {} cycles {}", s.name, r.cycles);
        for ro in &r.roles {
            let total = ro.states.total().max(1) as f64;
            let mut m: BTreeMap<(String, String), u64> = BTreeMap::new();
            for pc in &ro.per_pc {
                let op = pc
                    .instruction
                    .split(['.', ' '])
                    .next()
                    .unwrap_or("")
                    .to_string();
                for (st, c) in pc.states.ranked() {
                    *m.entry((st.name().to_string(), op.clone())).or_default() += c;
                }
            }
            let mut v: Vec<_> = m.into_iter().collect();
            v.sort_by_key(|e| std::cmp::Reverse(e.1));
            let line: Vec<String> = v
                .iter()
                .take(8)
                .map(|((st, op), c)| format!("{st}@{op} {:.0}%", *c as f64 / total * 100.0))
                .collect();
            println!("  {:<10} {}", ro.name, line.join(", "));
            let mut m: BTreeMap<(String, String), u64> = BTreeMap::new();
            for pc in &ro.per_pc {
                for w in &pc.waits_on {
                    let on = match &w.on {
                        sim_core::cause::Waited::Producer { instruction, .. } => {
                            instruction.split(' ').next().unwrap_or("").to_string()
                        }
                        other => other.to_string(),
                    };
                    *m.entry((w.state.name().to_string(), on)).or_default() += w.cycles;
                }
            }
            let mut v: Vec<_> = m.into_iter().collect();
            v.sort_by_key(|e| std::cmp::Reverse(e.1));
            let line: Vec<String> = v
                .iter()
                .take(8)
                .map(|((st, op), c)| format!("{st} on {op} {:.0}%", *c as f64 / total * 100.0))
                .collect();
            println!("  {:<10} {}", "", line.join(", "));
        }
    }
}
