//! Prints every issue of a kernel text's run, cycle by cycle, with the mbarriers' phase
//! completions (the engine's side of `data/gaps/loopwait/`): `itrace FILE [name=value ...]`.
//! Lines: cycle, cycles since the previous line, warp, instruction (`MBAR n phase p` for
//! a completion). `ITRACE_WARP=w` keeps one warp's issues (and the phases).
use sim_core::sink::{Event, RunHeader, Sink};

struct Issues {
    roles: Vec<Vec<String>>,
    out: Vec<(u64, u32, String)>,
}

impl Sink for Issues {
    fn begin(&mut self, h: &RunHeader) {
        self.roles = h
            .roles
            .iter()
            .map(|r| r.instructions.iter().map(|i| i.text.clone()).collect())
            .collect();
    }
    fn event(&mut self, e: Event) {
        match e {
            Event::MbarrierPhase {
                cycle,
                cta: 0,
                mbarrier,
                phase,
            } => self
                .out
                .push((cycle, 99, format!("MBAR {mbarrier} phase {phase}"))),
            Event::Issue {
                cycle,
                warp,
                role,
                pc,
                ..
            } if warp.cta == 0 => {
                let text = self.roles[role as usize][pc as usize].clone();
                self.out.push((cycle, warp.warp, text));
            }
            _ => {}
        }
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let Some(file) = a.get(1) else {
        eprintln!("usage: itrace FILE [name=value ...]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| {
        eprintln!("{file}: {e}");
        std::process::exit(2)
    });
    let mut p = sim_core::Profile::builtin("h100").unwrap();
    for kv in &a[2..] {
        if let Some((k, v)) = kv.split_once('=') {
            let set = v
                .parse()
                .map_err(|e| format!("{e}"))
                .and_then(|v| p.set(k, v).map_err(|e| e.to_string()));
            if let Err(e) = set {
                eprintln!("{kv}: {e}");
                std::process::exit(2);
            }
        }
    }
    let k = isa::parse_kernel(&text).unwrap_or_else(|e| {
        eprintln!("{e:?}");
        std::process::exit(1)
    });
    // buffer A, where the kernel has one, starts in L2 (as the twins' L2 streams)
    let warm = if text.lines().any(|l| l.starts_with("buffer A ")) {
        vec!["A".into()]
    } else {
        Vec::new()
    };
    let cfg = sim_core::RunConfig {
        warm_l2: warm,
        ..sim_core::RunConfig::default()
    };
    let mut s = Issues {
        roles: Vec::new(),
        out: Vec::new(),
    };
    let r = sim_core::run_with(&k, &p, &cfg, cfg.policy.build(), &mut s).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    // (a closed pipe, `itrace ... | head`, ends the listing quietly)
    if writeln!(o, "# cycles {}", r.cycles).is_err() {
        return;
    }
    let keep: Option<u32> = std::env::var("ITRACE_WARP")
        .ok()
        .and_then(|w| w.parse().ok());
    s.out.sort_by_key(|o| o.0);
    let mut prev = 0;
    for (cy, w, t) in &s.out {
        if keep.is_some_and(|k| k != *w && *w != 99) {
            continue;
        }
        if writeln!(o, "{cy:8} {:6} w{w} {t}", cy - prev).is_err() {
            return;
        }
        prev = *cy;
    }
}
