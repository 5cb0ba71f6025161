//! The engine's side of `data/gaps/hgmma/`: the stamped gemm consumer loops (each HGMMA's
//! issue to its DEPBAR release) run as twins of their own SASS, the stamps timed as the GPU's.
//! `hgtwin SASS [name=value ...]`: SASS is the stamped build's dump with its raw-record
//! regions left out (`python3 data/gaps/hgmma/twin_sass.py DUMP.gz > SASS`). Prints, per
//! kernel and PIPE, the simulated span and per warp the mean cycles a k-step of each
//! interval (k-steps 8 to 55), in the GPU output's columns. `HGTWIN_TEXT=NAME` prints that
//! twin's text instead (NAME as the output's labels: `ws-wait1-2wg.pipe_4`).
use sim_core::sink::{Event, RunHeader, Sink};

/// Every stamp's issue: (cycle, warp).
struct Stamps {
    stamp: Vec<Vec<bool>>,
    out: Vec<(u64, u32)>,
}

impl Sink for Stamps {
    fn begin(&mut self, h: &RunHeader) {
        self.stamp = h
            .roles
            .iter()
            .map(|r| {
                r.instructions
                    .iter()
                    .map(|i| i.text.starts_with("FMNMX"))
                    .collect()
            })
            .collect();
    }
    fn event(&mut self, e: Event) {
        if let Event::Issue {
            cycle,
            warp,
            role,
            pc,
            ..
        } = e
            && warp.cta == 0
            && self.stamp[role as usize][pc as usize]
        {
            self.out.push((cycle, warp.warp));
        }
    }
}

/// The stamped kernels: label, schedule, consumer warpgroups, every lane arrives, function.
const KERNELS: [(&str, &str, u32, bool, &str); 7] = [
    ("ws-wait1-plain", "ws-wait1", 2, false, "vg_ws_wait1"),
    ("static-v2-plain", "static-v2", 2, false, "vg_static_v2"),
    (
        "ws-wait1-2wg",
        "ws-wait1",
        2,
        false,
        "_Z13vg_ws_wait1_hILi2ELi0EEv5TmapTS0_iiiPyPfPiPjS4_",
    ),
    (
        "ws-wait1-1wg",
        "ws-wait1",
        1,
        false,
        "_Z13vg_ws_wait1_hILi1ELi0EEv5TmapTS0_iiiPyPfPiPjS4_",
    ),
    (
        "ws-wait1-2wg-all",
        "ws-wait1",
        2,
        true,
        "_Z13vg_ws_wait1_hILi2ELi1EEv5TmapTS0_iiiPyPfPiPjS4_",
    ),
    (
        "static-v2-2wg",
        "static-v2",
        2,
        false,
        "_Z14vg_static_v2_hILi2EEv5TmapTS0_iiiPyPfPiPjS4_",
    ),
    (
        "static-v2-1wg",
        "static-v2",
        1,
        false,
        "_Z14vg_static_v2_hILi1EEv5TmapTS0_iiiPyPfPiPjS4_",
    ),
];

/// The twin text of one stamped kernel: its stamps as `FMNMX` (an ALU slot, as the
/// `CS2R.32` of the clock, which the engine's instructions otherwise never use), and with
/// one consumer warpgroup the generator's two-warpgroup structure cut to one.
fn twin(sched: &str, nwg: u32, pipe: i64, func: &str, dump: &str) -> String {
    let c = calibrate::validation::GemmCase {
        bench: format!("val.gemm_mainloop.{sched}.pipe_{pipe}.cta_1"),
        schedule: sched.into(),
        fenced: false,
        pipe,
        m: 128,
        n: 256,
        k: 4096,
        boxes: true,
    };
    let (text, _) = match calibrate::validation::gemm_twin_sass(&c, dump, func) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{func}: no twin: {e}");
            return String::new();
        }
    };
    let mut out = String::new();
    for l in text.lines() {
        let mut l = l.to_string();
        if let Some((code, sass)) = l.split_once("  # ")
            && sass.starts_with("CS2R.32 ")
            && sass.contains("SR_CLOCKLO")
        {
            let ind = &code[..code.len() - code.trim_start().len()];
            let reg = sass["CS2R.32 ".len()..].split(',').next().unwrap();
            let stall = code
                .split("stall=")
                .nth(1)
                .map(|s| format!(", stall={s}"))
                .unwrap_or_default();
            l = format!("{ind}FMNMX {reg}, RZ, RZ, !PT{stall}  # {sass}");
        }
        // The raw-record region's branch (`twin_sass.py` left the region out): taken on
        // the GPU's other 58 k-steps, so taken here, a forward taken branch.
        if l.trim_start().starts_with("@UP0 BRA") && l.contains("# @P0 BRA 0x") {
            l = l.replacen("@UP0 BRA", "@UP5 BRA", 1);
        }
        if l.starts_with("pred UP0 = 0") {
            l.push_str("\npred UP5 = 1");
        }
        if nwg == 1 {
            l = l
                .replace("cta_threads=384", "cta_threads=256")
                .replace("role consumer warps=4..11", "role consumer warps=4..7");
            if l.starts_with("mbarrier empty[") {
                l = l.replace("count=8", "count=4");
            }
            if sched == "static-v2" {
                l = l
                    .replace("cta_threads=256", "cta_threads=128")
                    .replace("role main warps=0..7", "role main warps=0..3")
                    .replace("BAR.SYNC 1, 256", "BAR.SYNC 1, 128")
                    .replace(
                        "barrier stage_free id=1 threads=256",
                        "barrier stage_free id=1 threads=128",
                    );
            }
        }
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// Every issue and mbarrier phase of CTA 0, as `itrace` prints them, with A and B warm.
fn issues(text: &str, p: &sim_core::Profile) {
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
                    let t = self.roles[role as usize][pc as usize].clone();
                    self.out.push((cycle, warp.warp, t));
                }
                _ => {}
            }
        }
    }
    let k = isa::parse_kernel(text).unwrap();
    let cfg = sim_core::RunConfig {
        max_cycles: 400_000_000,
        warm_l2: vec!["A".into(), "B".into()],
        ..sim_core::RunConfig::default()
    };
    let mut s = Issues {
        roles: Vec::new(),
        out: Vec::new(),
    };
    sim_core::run_with(&k, p, &cfg, cfg.policy.build(), &mut s).unwrap();
    for (c, w, t) in s.out {
        println!("{c:8} w{w} {t}");
    }
}

/// The plain kernels of `plain.cu` and `nodiv.cu` (no clock reads in the loop): label,
/// schedule, consumer warpgroups, function.
const PLAIN: [(&str, &str, u32, &str); 9] = [
    (
        "ws-wait1 nodiv",
        "ws-wait1",
        2,
        "_Z13vg_ws_wait1_nILi2ELi0EEv5TmapTS0_iiiPyPfPi",
    ),
    (
        "ws-wait1 nodiv 1wg",
        "ws-wait1",
        1,
        "_Z13vg_ws_wait1_nILi1ELi0EEv5TmapTS0_iiiPyPfPi",
    ),
    (
        "static-v2 nodiv",
        "static-v2",
        2,
        "_Z14vg_static_v2_nILi2EEv5TmapTS0_iiiPyPfPi",
    ),
    (
        "static-v2 nodiv 1wg",
        "static-v2",
        1,
        "_Z14vg_static_v2_nILi1EEv5TmapTS0_iiiPyPfPi",
    ),
    ("ws-wait1 plain", "ws-wait1", 2, "vg_ws_wait1"),
    (
        "ws-wait1 plain 1wg",
        "ws-wait1",
        1,
        "_Z13vg_ws_wait1_pILi1ELi0EEv5TmapTS0_iiiPyPfPi",
    ),
    (
        "ws-wait1 plain 2wg, every lane arrives",
        "ws-wait1",
        2,
        "_Z13vg_ws_wait1_pILi2ELi1EEv5TmapTS0_iiiPyPfPi",
    ),
    ("static-v2 plain", "static-v2", 2, "vg_static_v2"),
    (
        "static-v2 plain 1wg",
        "static-v2",
        1,
        "_Z14vg_static_v2_pILi1EEv5TmapTS0_iiiPyPfPi",
    ),
];

/// `divs.cu`'s kernels, `vg_ws_v<WG, P, H, R, ST>`: ws-wait1 with `WG` consumer
/// warpgroups and its divisions put back where the flag is 1 (P the producer's, H the
/// consumers' head, R their release region; ST with clock stamps), as `run_divs.sh` builds
/// them: label, schedule, consumer warpgroups, function.
fn divs() -> Vec<(String, &'static str, u32, String)> {
    let put_back = [
        (0, 0, 0, 0),
        (1, 0, 0, 0),
        (0, 1, 0, 0),
        (0, 0, 1, 0),
        (0, 1, 1, 0),
        (1, 1, 1, 0),
        (0, 0, 0, 1),
        (0, 1, 0, 1),
        (0, 0, 1, 1),
        (1, 1, 1, 1),
    ];
    let mut v = Vec::new();
    for (pr, h, r, st) in put_back {
        for wg in [2u32, 1] {
            let mut which: String = [(pr, 'P'), (h, 'H'), (r, 'R')]
                .iter()
                .filter(|(on, _)| *on == 1)
                .map(|(_, c)| *c)
                .collect();
            if which.is_empty() {
                which = "none".into();
            }
            let stamped = if st == 1 { " ST" } else { "" };
            v.push((
                format!("divs {which} {wg}wg{stamped}"),
                "ws-wait1",
                wg,
                format!("_Z7vg_ws_vILi{wg}ELi{pr}ELi{h}ELi{r}ELi{st}EEv5TmapTS0_iiiPyPfPiPj"),
            ));
        }
    }
    v
}

/// `HGTWIN_PLAIN=1 hgtwin PLAIN_SASS`: each plain kernel's twin at KT 16, 32 and 64, its
/// k-step the slope from 32 to 64 and what is left at 64 (prologue and last wait), as
/// `plain.cu` prints the GPU's.
fn plain(dump: &str, p: &sim_core::Profile) {
    for pipe in [2, 4] {
        let kernels = PLAIN
            .iter()
            .map(|&(l, s, n, f)| (l.to_string(), s, n, f.to_string()))
            .chain(divs());
        for (label, sched, nwg, func) in kernels {
            let (label, func) = (label.as_str(), func.as_str());
            // (each dump holds some of them: plain.cu's or nodiv.cu's)
            if !dump.contains(&format!("Function : {func}\n")) {
                continue;
            }
            let mut sp = [0.0; 3];
            for (i, kt) in [16, 32, 64].into_iter().enumerate() {
                let mut text =
                    twin(sched, nwg, pipe, func, dump).replace(" KT=64 ", &format!(" KT={kt} "));
                if text.is_empty() {
                    break;
                }
                // HGTWIN_LANES=1: the producer's empty wait as lane 0's (`lanes=1`)
                if std::env::var_os("HGTWIN_LANES").is_some() {
                    text = text.replace(
                        "parity=((k / PIPE) & 1) ^ 1, stall",
                        "parity=((k / PIPE) & 1) ^ 1, lanes=1, stall",
                    );
                }
                if let Ok(want) = std::env::var("HGTWIN_TEXT") {
                    if want == format!("{label}.pipe_{pipe}") && kt == 64 {
                        print!("{text}");
                    }
                    continue;
                }
                // HGTWIN_ISSUES=NAME: that twin's issues at KT 64 (cycle, warp, text), its
                // mbarrier phases as warp 99, as the span is timed (A and B warm)
                if let Ok(want) = std::env::var("HGTWIN_ISSUES") {
                    if want == format!("{label}.pipe_{pipe}") && kt == 64 {
                        issues(&text, p);
                    }
                    continue;
                }
                let k = isa::parse_kernel(&text).unwrap_or_else(|e| panic!("{label}: {e:?}"));
                let policy = match std::env::var("HGTWIN_POLICY").as_deref() {
                    Ok("gto") => sim_core::scheduler::Policy::Gto,
                    Ok("lrr") => sim_core::scheduler::Policy::Lrr,
                    Ok("oldest") => sim_core::scheduler::Policy::Oldest,
                    _ => sim_core::scheduler::Policy::TwoLevel,
                };
                let cfg = sim_core::RunConfig {
                    max_cycles: 400_000_000,
                    warm_l2: vec!["A".into(), "B".into()],
                    policy,
                    ..sim_core::RunConfig::default()
                };
                let r = sim_core::run_with(
                    &k,
                    p,
                    &cfg,
                    cfg.policy.build(),
                    &mut sim_core::sink::NoSink,
                )
                .unwrap();
                sp[i] = calibrate::twins::span(&r);
            }
            let step = (sp[2] - sp[1]) / 32.0;
            println!(
                "PIPE {pipe} {label}: span {:.0} / {:.0} / {:.0}, k-step {step:.1} (16 -> 32 {:.1}); KT 64 less 64 k-steps {:.0}",
                sp[0],
                sp[1],
                sp[2],
                (sp[1] - sp[0]) / 16.0,
                sp[2] - 64.0 * step
            );
        }
    }
}

/// `HGTWIN_STAMPS=1 hgtwin STAMPS_SASS`: `stamps.cu`'s kernels (`vg_ws_s<WG, P, H, R>`) run
/// as twins of their own SASS at KT 64, each clock read's issue printed as the GPU's raw lines
/// (`R pipe name rep k q0 q1 q2 | c0..c4 per consumer warp`), for `timeline.py`.
fn stamps(dump: &str, p: &sim_core::Profile) {
    let variants = [
        ("PHR 2wg", 2u32, "2ELi1ELi1ELi1"),
        ("HR 2wg", 2, "2ELi0ELi1ELi1"),
        ("PHR 1wg", 1, "1ELi1ELi1ELi1"),
        ("HR 1wg", 1, "1ELi0ELi1ELi1"),
        ("none 2wg", 2, "2ELi0ELi0ELi0"),
    ];
    for pipe in [4, 2] {
        for (name, nwg, tpl) in variants {
            let func = format!("_Z7vg_ws_sILi{tpl}EEv5TmapTS0_iiiPyPfPiPj");
            let text = twin("ws-wait1", nwg, pipe, &func, dump);
            if text.is_empty() {
                continue;
            }
            if std::env::var("HGTWIN_TEXT").ok() == Some(format!("{name}.pipe_{pipe}")) {
                print!("{text}");
                continue;
            }
            if std::env::var("HGTWIN_ISSUES").ok() == Some(format!("{name}.pipe_{pipe}")) {
                issues(&text, p);
                continue;
            }
            let k = isa::parse_kernel(&text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            let cfg = sim_core::RunConfig {
                max_cycles: 400_000_000,
                warm_l2: vec!["A".into(), "B".into()],
                ..sim_core::RunConfig::default()
            };
            let mut s = Stamps {
                stamp: Vec::new(),
                out: Vec::new(),
            };
            let r = sim_core::run_with(&k, p, &cfg, cfg.policy.build(), &mut s).unwrap();
            let of =
                |w: u32| -> Vec<u64> { s.out.iter().filter(|o| o.1 == w).map(|o| o.0).collect() };
            let q = of(0);
            let cs: Vec<Vec<u64>> = (4..4 + 4 * nwg).map(of).collect();
            if q.len() != 3 * 64 || cs.iter().any(|c| c.len() != 5 * 64 - 1) {
                let n: Vec<usize> = cs.iter().map(|c| c.len()).collect();
                println!(
                    "{name} PIPE {pipe}: producer {} stamps, consumers {n:?}",
                    q.len()
                );
                continue;
            }
            for kk in 0..64 {
                let mut l = format!(
                    "R {pipe} {name} 1 {kk} {} {} {} |",
                    q[3 * kk],
                    q[3 * kk + 1],
                    q[3 * kk + 2]
                );
                for c in &cs {
                    // k-step 0 has no arrive: four stamps, then five a k-step
                    let at = |i: usize| if kk == 0 { c[i] } else { c[5 * kk - 1 + i] };
                    let c4 = if kk == 0 { 0 } else { at(4) };
                    l.push_str(&format!(" {} {} {} {} {c4}", at(0), at(1), at(2), at(3)));
                }
                println!("{l}");
            }
            println!(
                "PIPE {pipe} KT 64 {name}: span {:.0}",
                calibrate::twins::span(&r)
            );
        }
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let Some(file) = a.get(1) else {
        eprintln!("usage: hgtwin SASS [name=value ...]");
        std::process::exit(2);
    };
    let dump = std::fs::read_to_string(file).unwrap();
    let mut p = sim_core::Profile::builtin("h100").unwrap();
    p.set("clock_mhz", p.t.clock_mhz_tensor_uniform).unwrap();
    p.set("hbm_tail_window_probability", 0.0).unwrap();
    for kv in &a[2..] {
        if let Some((k, v)) = kv.split_once('=') {
            p.set(k, v.parse().unwrap()).unwrap();
        }
    }
    if std::env::var_os("HGTWIN_STAMPS").is_some() {
        stamps(&dump, &p);
        return;
    }
    if std::env::var_os("HGTWIN_PLAIN").is_some() {
        plain(&dump, &p);
        return;
    }
    let show = std::env::var("HGTWIN_TEXT").ok();
    let names = [
        "ta->tt", "tt->tw", "tw->ti0", "ti0->tr0", "ti1->tr1", "ti2->tr2", "ti3->tr3", "tr0->ti1",
        "tr1->ti2", "tr2->ti3", "tr3->ta",
    ];
    for pipe in [2, 4] {
        for (label, sched, nwg, _all, func) in KERNELS {
            let text = twin(sched, nwg, pipe, func, &dump);
            if let Some(s) = &show {
                if *s == format!("{label}.pipe_{pipe}") {
                    print!("{text}");
                    return;
                }
                continue;
            }
            let k = isa::parse_kernel(&text).unwrap_or_else(|e| panic!("{label}: {e:?}\n{text}"));
            let cfg = sim_core::RunConfig {
                max_cycles: 400_000_000,
                warm_l2: vec!["A".into(), "B".into()],
                ..sim_core::RunConfig::default()
            };
            let mut s = Stamps {
                stamp: Vec::new(),
                out: Vec::new(),
            };
            let r = sim_core::run_with(&k, &p, &cfg, cfg.policy.build(), &mut s).unwrap();
            let span = calibrate::twins::span(&r);
            println!(
                "PIPE {pipe} {label}: span {span:.0} ({:.1} a k-step)",
                span / 64.0
            );
            println!("  {}", names.join(" "));
            let mut warps: Vec<u32> = s.out.iter().map(|o| o.1).collect();
            warps.sort();
            warps.dedup();
            for w in warps {
                let t: Vec<u64> = s.out.iter().filter(|o| o.1 == w).map(|o| o.0).collect();
                if t.len() != 11 * 64 {
                    println!("  warp {w}: {} stamps, not 11 a k-step", t.len());
                    continue;
                }
                let at = |k: usize, i: usize| t[k * 11 + i] as f64;
                let mut sums = [0.0; 11];
                let ks = 8..56;
                for k in ks.clone() {
                    let iv = [
                        at(k, 0) - at(k - 1, 10),
                        at(k, 1) - at(k, 0),
                        at(k, 2) - at(k, 1),
                        at(k, 3) - at(k, 2),
                        at(k, 5) - at(k, 4),
                        at(k, 7) - at(k, 6),
                        at(k, 9) - at(k, 8),
                        at(k, 4) - at(k, 3),
                        at(k, 6) - at(k, 5),
                        at(k, 8) - at(k, 7),
                        at(k, 10) - at(k, 9),
                    ];
                    for (s, v) in sums.iter_mut().zip(iv) {
                        *s += v;
                    }
                }
                let n = ks.len() as f64;
                print!("  warp {w:2}");
                for s in sums {
                    print!(" {:7.1}", s / n);
                }
                println!();
            }
        }
    }
}
